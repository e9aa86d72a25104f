"""The real corpus (../shared/corpus): every root discovers without surprises, outcome pinned.

The corpus is read-only; tests that need the omitted files (MANIFEST.tsv kind ``omitted``) work on a
temporary copy holding empty placeholders for them.
"""

from __future__ import annotations

import csv
import os
import shutil
from pathlib import Path

import pytest

from agent_skills import AgentSkills, create_agent_skills
from conftest import core_loaded

# The real corpus, whole.
pytestmark = [pytest.mark.slow]

# Why the corpus skills that do not load are left out; each checked against the SPEC:
# - stitch-skills: ``name: stitch::react-components`` and the like break the name pattern (SPEC §6).
# - startup-founder-skills: a lower-case ``skill.md`` (found, with ``manifest_case``, SPEC §4) whose
#   frontmatter has ``trigger`` but no ``description``, which is required (SPEC §6).
# - oracle ``oci/functions`` and ``oci/oke``: grouping directories without a manifest (SPEC §4);
#   their skills live one level deeper (``oci/oke/skills`` is a root of its own).
BAD_NAME = "invalid frontmatter 'name': name must only contain letters, digits, '.', '_' and '-'"
NO_DESCRIPTION = "invalid frontmatter 'description': required key is missing"
NOT_LOADED: dict[str, tuple[str, str]] = {
    "google-labs-code__stitch-skills/plugins/stitch-build/skills/react-components": (
        "invalid",
        BAD_NAME,
    ),
    "google-labs-code__stitch-skills/plugins/stitch-build/skills/react-native": (
        "invalid",
        BAD_NAME,
    ),
    "google-labs-code__stitch-skills/plugins/stitch-design/skills/code-to-design": (
        "invalid",
        BAD_NAME,
    ),
    "google-labs-code__stitch-skills/plugins/stitch-design/skills/extract-design-md": (
        "invalid",
        BAD_NAME,
    ),
    "google-labs-code__stitch-skills/plugins/stitch-design/skills/extract-static-html": (
        "invalid",
        BAD_NAME,
    ),
    "google-labs-code__stitch-skills/plugins/stitch-design/skills/generate-design": (
        "invalid",
        BAD_NAME,
    ),
    "google-labs-code__stitch-skills/plugins/stitch-design/skills/manage-design-system": (
        "invalid",
        BAD_NAME,
    ),
    "google-labs-code__stitch-skills/plugins/stitch-design/skills/upload-to-stitch": (
        "invalid",
        BAD_NAME,
    ),
    "oracle__skills/oci/functions": ("skipped", "no SKILL.md in directory"),
    "oracle__skills/oci/oke": ("skipped", "no SKILL.md in directory"),
    "shawnpang__startup-founder-skills/skills/accelerator-application": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/board-update": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/code-review": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/community-discovery": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/content-strategy": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/daily-product-digest": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/email-marketing": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/event-hosting": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/fundraising-email": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/investor-research": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/launch-strategy": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/market-research": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/partnership-outreach": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/prd-writing": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/proposal-generation": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/roadmap-planning": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/sentiment-monitoring": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/soc2-prep": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/startup-context": ("invalid", NO_DESCRIPTION),
    "shawnpang__startup-founder-skills/skills/tech-stack-eval": ("invalid", NO_DESCRIPTION),
}
LOADED_TOTAL = 364
RESOURCES_TOTAL = 1623


def corpus_roots(corpus: Path) -> list[Path]:
    lines = (corpus / "ROOTS.txt").read_text(encoding="utf-8").splitlines()
    return [corpus / line.strip() for line in lines if line.strip()]


def candidate_dirs(root: Path) -> list[Path]:
    """SPEC §4 by hand: children that are directories or symlinks, in (casefold, name) order."""
    with os.scandir(root) as it:
        names = [e.name for e in it if e.is_symlink() or e.is_dir(follow_symlinks=False)]
    return [root / n for n in sorted(names, key=lambda n: (n.casefold(), n))]


def build_each(roots: list[Path]) -> list[tuple[Path, AgentSkills]]:
    return [(root, create_agent_skills([root])) for root in roots]


def test_corpus_report_has_one_entry_per_candidate(corpus: Path) -> None:
    roots = corpus_roots(corpus)
    assert len(roots) == 104
    for root, skills in build_each(roots):
        report = skills.report()
        assert [n.status for n in report.roots] == ["ok"], root
        assert [e.path for e in report.entries] == candidate_dirs(root), root
        assert {e.root for e in report.entries} <= {root}


def test_corpus_outcome_is_pinned(corpus: Path) -> None:
    loaded = 0
    not_loaded: dict[str, tuple[str, str]] = {}
    for _, skills in build_each(corpus_roots(corpus)):
        loaded += len(skills)
        for entry in skills.report().entries:
            if entry.status != "loaded":
                rel = entry.path.relative_to(corpus).as_posix()
                not_loaded[rel] = (entry.status.value, entry.reason)
        names = [e.name for e in skills.report().entries if e.status == "loaded"]
        assert sorted(n for n in names if n is not None) == sorted(
            s.name for s in skills.list_skills()
        )
    assert loaded == LOADED_TOTAL
    assert not_loaded == NOT_LOADED


def test_corpus_every_resource_resolves_and_reads(corpus: Path) -> None:
    total = 0
    for _, skills in build_each(corpus_roots(corpus)):
        for info in skills.list_skills():
            content = skills.load_skill(info.name)
            assert content is not None
            assert content.resources_truncated is False
            assert content.diagnostics == (), info.dir
            for res in content.resources:
                path = skills.resource_path(info.name, res.rel)
                assert path == res.path == info.dir / res.rel
                data = skills.read_resource(info.name, res.rel)
                assert len(data) == res.size
                assert data == path.read_bytes()
                total += 1
            assert skills.resource_path(info.name, info.path.name) == info.path
    assert total == RESOURCES_TOTAL


def _manifest_rows(corpus: Path) -> list[dict[str, str]]:
    with (corpus / "MANIFEST.tsv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _listed_by_spec(rel: str) -> bool:
    """SPEC §9: left out are the top-level manifest, dot-names, __pycache__ and node_modules."""
    parts = rel.split("/")
    if len(parts) == 1 and parts[0].lower() == "skill.md":
        return False
    return not any(p.startswith(".") or p in ("__pycache__", "node_modules") for p in parts)


def test_corpus_copy_with_omitted_files_lists_every_file(corpus: Path, tmp_path: Path) -> None:
    copy = tmp_path / "corpus"
    shutil.copytree(corpus, copy, symlinks=True, copy_function=shutil.copyfile)
    for dirpath, _, _ in os.walk(copy):
        os.chmod(dirpath, 0o755)
    rows = _manifest_rows(corpus)
    repo_dirs = {p.name.replace("__", "/", 1): p.name for p in corpus.iterdir() if p.is_dir()}
    placed = 0
    for row in rows:
        if row["kind"] != "omitted":
            continue
        target = copy / repo_dirs[row["repo"]] / row["path"]
        if target.name.lower() == "skill.md":
            continue  # a manifest that was a git symlink: not a real skill of the corpus
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"")
        placed += 1
    assert placed == 454
    files = {f"{repo_dirs[r['repo']]}/{r['path']}" for r in rows}
    checked = 0
    for root, skills in build_each(corpus_roots(copy)):
        assert len(skills.report().entries) == len(candidate_dirs(root))
        for info in skills.list_skills():
            content = skills.load_skill(info.name)
            assert content is not None
            prefix = info.dir.relative_to(copy).as_posix() + "/"
            expected = sorted(
                (f[len(prefix) :] for f in files if f.startswith(prefix)),
                key=lambda r: (r.casefold(), r),
            )
            expected = [r for r in expected if _listed_by_spec(r)]
            assert [r.rel for r in content.resources] == expected, info.dir
            for res in content.resources:
                assert skills.read_resource(info.name, res.rel) == res.path.read_bytes()
            checked += len(expected)
    assert checked > RESOURCES_TOTAL


@pytest.mark.parametrize("follow_symlinks", [True, False])
def test_corpus_follow_symlinks_makes_no_difference(corpus: Path, follow_symlinks: bool) -> None:
    """The corpus holds no symlinks, so the flag changes nothing."""
    total = sum(
        len(create_agent_skills([root], follow_symlinks=follow_symlinks))
        for root in corpus_roots(corpus)
    )
    assert total == LOADED_TOTAL


# Nested discovery (SPEC §21.4) over the same roots: the category folders of oracle ``oci`` now
# lead to their skills (``oci/functions/*`` and ``oci/oke/skills/*``); what is left below them
# without a skill is reported, and nothing else changes.
NESTED_LOADED_TOTAL = 370


def test_corpus_nested_discovery_accounts_for_every_candidate(corpus: Path) -> None:
    loaded = 0
    changed: dict[str, tuple[str, str]] = {}
    for root in corpus_roots(corpus):
        flat = {e.path: e for e in create_agent_skills([root]).report().entries}
        nested = create_agent_skills([root], max_depth=3)
        loaded += len(nested)
        entries = nested.report().entries
        assert len({e.path for e in entries}) == len(entries), root
        for info in nested.list_skills():
            assert info.category == info.dir.parent.relative_to(root).as_posix().strip(".")
        for e in entries:
            assert e.path.is_relative_to(root) and e.path.is_dir()
            old = flat.get(e.path)
            if old is None or (old.status, old.reason) != (e.status, e.reason):
                rel = e.path.relative_to(corpus).as_posix()
                changed[rel] = (e.status.value, e.reason)
        # A depth-1 entry that disappeared was a category: a skill was found below it.
        for path, old in flat.items():
            if path not in {e.path for e in entries}:
                assert old.reason == "no SKILL.md in directory"
                assert any(i.dir.is_relative_to(path) for i in nested.list_skills())
    assert loaded == NESTED_LOADED_TOTAL
    new_loaded = {k for k, (status, _) in changed.items() if status == "loaded"}
    assert len(new_loaded) == NESTED_LOADED_TOTAL - LOADED_TOTAL
    assert all(k.startswith("oracle__skills/oci/") for k in changed)


def _corpus_frontmatters(corpus: Path) -> list[tuple[str, str]]:
    """Every manifest's frontmatter text in the corpus (``(relative path, text)``), as the
    parser splits it; manifests without one, or not UTF-8, are left out."""
    from agent_skills._manifest import _decode, split_frontmatter

    found = []
    for directory, _, files in os.walk(corpus):
        for file in files:
            if file.lower() != "skill.md":
                continue
            path = Path(directory, file)
            try:
                text, _ = _decode(path.read_bytes())
                frontmatter, _, _ = split_frontmatter(text)
            except Exception:  # (undecodable or unterminated: the parser's diagnostics)
                continue
            if frontmatter is not None:
                found.append((path.relative_to(corpus).as_posix(), frontmatter))
    return sorted(found)


def test_simple_frontmatter_reads_every_corpus_manifest_as_pyyaml_does(corpus: Path) -> None:
    """On every real frontmatter the simple reading takes, its value is the YAML loader's
    (PyYAML with the YAML 1.2 core resolver, SPEC §5) and PyYAML's ``CSafeLoader``'s: equal
    values, the same types and key order (SPEC §26). What it leaves goes to the loader."""
    import yaml

    from agent_skills._manifest import _simple_mapping

    frontmatters = _corpus_frontmatters(corpus)
    taken = 0
    for rel, text in frontmatters:
        simple = _simple_mapping(text)
        if simple is None:
            continue
        taken += 1
        loaded = core_loaded(text)
        assert repr(simple) == repr(loaded), rel  # types and key order too
        assert repr(simple) == repr(yaml.load(text, Loader=yaml.CSafeLoader)), rel
    # The corpus as it is: 392 frontmatters, 378 of the simple shape.
    assert (len(frontmatters), taken) == (392, 378)


def test_simple_frontmatter_reads_the_field_cases_as_pyyaml_does(corpus: Path) -> None:
    """The manifests quoted whole in the field cases (``../shared/cases/CASES.md``: the BOM, CRLF
    and CR ones) read the same through the simple reading, the YAML loader and ``CSafeLoader``."""
    import re

    import yaml

    from agent_skills._manifest import _decode, _simple_mapping, split_frontmatter

    cases = (corpus.parent / "cases" / "CASES.md").read_text(encoding="utf-8")
    quoted = [
        block.encode().decode("unicode_escape")
        for block in re.findall(r"`(---[^`]*)`", cases)
        if block.count("---") >= 2
    ]
    quoted += [text.replace("\r\n", "\r") for text in quoted if "\r\n" in text]  # C11's lone CR
    taken = []
    for manifest in quoted:
        frontmatter, _, _ = split_frontmatter(_decode(manifest)[0])
        assert frontmatter is not None
        simple = _simple_mapping(frontmatter)
        if simple is None:
            continue
        loaded = core_loaded(frontmatter)
        assert repr(simple) == repr(loaded) == repr(yaml.load(frontmatter, Loader=yaml.CSafeLoader))
        taken.append(simple)
    assert taken == [
        {"name": "hello", "description": "Say hello."},
        {"name": "demo", "description": "Demo skill."},
        {"name": "d", "description": "D."},
        {"name": "demo", "description": "Demo skill."},
    ]  # (the fourth quoted manifest has an empty frontmatter: the loader's null)
