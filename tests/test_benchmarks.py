"""The benchmark's helpers: the realistic tree's shape, the floors, the original's cache, targets.

Nothing here is timed (speed is measured by ``benchmarks/run.py`` alone) and nothing downloads:
the original library's cache is tried with cloning and building turned off.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import pytest
import yaml

import agent_skills

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import corpus_shape  # noqa: E402
import floor  # noqa: E402
import original  # noqa: E402
import skilltree  # noqa: E402


def _structure(node: list[object]) -> object:
    """A shape's node without its sizes: kinds, styles, tags and key names."""
    if node[0] == "s":
        return ("s", node[1], node[2])
    items = node[2]
    assert isinstance(items, list)
    if node[0] == "q":
        return ("q", node[1], tuple(_structure(v) for v in items))
    return ("m", node[1], tuple((k, _structure(v)) for k, v in items))


@pytest.fixture(scope="module")
def committed() -> list[corpus_shape.Shape]:
    data = json.loads(corpus_shape.SUMMARY.read_text(encoding="utf-8"))
    shapes: list[corpus_shape.Shape] = data["skills"]
    return shapes


def test_committed_summary_has_the_corpus_distribution(
    committed: list[corpus_shape.Shape],
) -> None:
    # Every record is a valid skill's: a mapping with a name and a description.
    assert len(committed) >= 300
    for shape in committed:
        keys = [k for k, _ in shape["fm"][2]]
        assert shape["fm"][0] == "m"
        assert "name" in keys and "description" in keys
        assert shape["fm_lines"] >= len(keys)
        assert all(len(r) == 3 and r[2] >= 0 for r in shape["res"])
    stats = corpus_shape.stats(committed)
    # Real skills have a short frontmatter (median 3 lines, 2 keys, no metadata) and a body
    # of a few KiB: the shape the synthetic tree (12 lines) does not have.
    assert stats["frontmatter lines"]["median"] == 3
    assert stats["top-level keys"]["median"] == 2
    assert stats["metadata entries"]["median"] == 0
    assert 4000 < stats["body bytes"]["median"] < 10_000
    assert stats["resources"]["median"] == 2


def test_committed_summary_matches_the_corpus(committed: list[corpus_shape.Shape]) -> None:
    corpus = corpus_shape.corpus_dir()
    if corpus is None:
        pytest.skip("the shared corpus is absent: the committed summary stands for it")
    measured = corpus_shape.measure(corpus)
    assert corpus_shape.digest(measured) == corpus_shape.digest(committed), (
        "corpus_shape.json is stale: run python benchmarks/corpus_shape.py --write"
    )


def test_summary_keeps_no_text(committed: list[corpus_shape.Shape]) -> None:
    names = {r[0] for s in committed for r in s["res"]}
    for rel in names:
        for depth, part in enumerate(rel.split("/") if rel else []):
            if depth == 0:
                assert part in corpus_shape._KINDS or part.startswith("docs"), rel
            else:
                assert part.startswith("d") and part[1:].isdigit(), rel
    scalars = []

    def walk(node: list[object]) -> None:
        if node[0] == "s":
            scalars.append(node)
            return
        items = node[2]
        assert isinstance(items, list)
        for item in items:
            walk(item[1] if node[0] == "m" else item)

    for shape in committed:
        walk(shape["fm"])
    assert scalars and all(
        len(s) == 5 and isinstance(s[3], int) and isinstance(s[4], int) for s in scalars
    )


def test_realistic_frontmatter_reproduces_each_shape(committed: list[corpus_shape.Shape]) -> None:
    for k, shape in enumerate(committed):
        text = skilltree.realistic_frontmatter(shape, "a-skill", f"seed-{k}")
        assert text.startswith("---\n") and text.endswith("\n---\n")
        inner = text[4 : -len("---\n")]
        node = yaml.compose(inner, Loader=yaml.SafeLoader)
        assert node is not None
        assert _structure(corpus_shape._node(node)) == _structure(shape["fm"]), k
        assert inner.count("\n") == shape["fm_lines"], k
        data = yaml.safe_load(inner)
        assert data["name"] == "a-skill"
        assert isinstance(data["description"], str) and data["description"]


def test_realistic_tree_is_deterministic_and_discovered(
    tmp_path: Path, committed: list[corpus_shape.Shape]
) -> None:
    small = skilltree.generate_realistic(tmp_path / "a", 8, committed)
    large = skilltree.generate_realistic(tmp_path / "b", 30, committed)
    assert (small.n, large.n, small.kind) == (8, 30, "realistic")
    # Skill i depends only on i: the tree of 8 is a prefix of the tree of 30.
    for entry in sorted(p.name for p in small.root.iterdir()):
        a, b = small.root / entry, large.root / entry
        assert (a / "SKILL.md").read_bytes() == (b / "SKILL.md").read_bytes()
        files_a = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
        files_b = sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file())
        assert files_a == files_b
    skills = agent_skills.create_agent_skills([large.root])
    assert len(skills) == 30
    resources = sum(
        len(content.resources)
        for content in (skills.load_skill(s.name) for s in skills.list_skills())
        if content is not None
    )
    assert resources == large.resources
    lines = [
        (p / "SKILL.md").read_text().split("\n---\n", 1)[0].count("\n")
        for p in large.root.iterdir()
    ]
    assert large.fm_lines_median == statistics.median(lines)


def test_cached_tree_is_reused_and_keyed_by_shape(
    tmp_path: Path, committed: list[corpus_shape.Shape]
) -> None:
    first = skilltree.cached_tree(5, tmp_path, kind="realistic", shapes=committed)
    again = skilltree.cached_tree(5, tmp_path, kind="realistic", shapes=committed)
    assert first == again
    assert corpus_shape.digest(committed) in first.root.parent.name
    other = skilltree.cached_tree(5, tmp_path, kind="realistic", shapes=committed[:50])
    assert other.root != first.root
    assert not list(tmp_path.glob("*.part-*"))
    with pytest.raises(ValueError, match="unknown tree kind"):
        skilltree.cached_tree(5, tmp_path, kind="other")


def test_floor_and_plain_walk(tmp_path: Path, committed: list[corpus_shape.Shape]) -> None:
    tree = skilltree.generate_realistic(tmp_path / "t", 12, committed)
    found = floor.floor_discovery(tree.root)
    assert sorted(fm["name"] for fm in found) == sorted(p.name for p in tree.root.iterdir())
    walked = floor.plain_walk(tree.root)
    assert len(walked) == 12
    # Each skill's files: its SKILL.md and its resources.
    assert sum(len(files) for _, files in walked) == 12 + tree.resources
    assert all(text.startswith("---\n") for text, _ in walked)


def test_floor_script_prints_nothing(tmp_path: Path, committed: list[corpus_shape.Shape]) -> None:
    import subprocess

    tree = skilltree.generate_realistic(tmp_path / "t", 3, committed)
    proc = subprocess.run(
        [sys.executable, str(BENCH / "floor.py"), str(tree.root)],
        capture_output=True,
        check=True,
    )
    assert (proc.stdout, proc.stderr) == (b"", b"")


def test_original_skipped_with_a_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SKILLS_ORIGINAL", str(tmp_path / "cache"))
    assert original.cache_dir() == tmp_path / "cache"
    reason = original.locate(allow_build=False, allow_clone=False)
    if original.shutil.which("node") is None:
        assert reason == "Node is not installed"
        return
    assert isinstance(reason, str) and "no built copy" in reason
    # Sources without a build: not built when building is not allowed.
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "package.json").write_text('{"version": "9.9.9"}')
    reason = original.locate(allow_build=False, allow_clone=False)
    assert isinstance(reason, str) and "is not built" in reason
    # A built copy is found as it is.
    (tmp_path / "cache" / "dist").mkdir()
    (tmp_path / "cache" / "dist" / "index.js").write_text("export {};\n")
    found = original.locate(allow_build=False, allow_clone=False)
    assert isinstance(found, original.Original)
    assert (found.version, found.entry) == ("9.9.9", tmp_path / "cache" / "dist" / "index.js")
    command = original.list_command(found, tmp_path)
    script = Path(command[1])
    assert script.parent == tmp_path / "cache" and script.suffix == ".mjs"
    assert json.dumps(found.entry.as_uri()) in script.read_text()


def test_original_without_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SKILLS_ORIGINAL", str(tmp_path))
    monkeypatch.setattr(original.shutil, "which", lambda name: None)
    assert original.locate() == "Node is not installed"


def test_targets_margins_and_misses() -> None:
    import run

    met = run._target(run.Row(1000, "a", 1.1, 1000, "skill", 1.1), "≤ 1.25× floor", 1.25)
    missed = run._target(run.Row(100, "b", 0.03, 100, "call"), "< 20 ms", 0.02, 0.03)
    info = run.Row(100, "c", 0.5, 100, "skill", 0.5)
    assert (met.ok, met.unit, met.measured) == (True, "×", 1.1)
    assert met.margin == pytest.approx(1.25 / 1.1)
    assert (missed.ok, missed.unit) == (False, "s")
    assert missed.margin == pytest.approx(2 / 3)
    assert (info.ok, info.margin) == (None, None)
    for row, tree in ((met, "synthetic"), (missed, "realistic"), (info, "realistic")):
        row.tree = tree
    text = run.render([met, missed, info], [])
    assert "Missed: 1 of 2 targets." in text
    misses = text.split("Missed: 1 of 2 targets.", 1)[1]
    assert "| realistic | 100 | b | < 20 ms | 30.00 ms | 0.67 |" in misses
    assert "| synthetic | 1,000 | a |" not in misses
    assert "| synthetic | 1,000 | a | ≤ 1.25× floor | 1.10× | 1.14 | ok |" in text


def test_shape_kept_without_the_corpus(
    monkeypatch: pytest.MonkeyPatch, committed: list[corpus_shape.Shape]
) -> None:
    monkeypatch.setattr(corpus_shape, "corpus_dir", lambda: None)
    shapes, source = corpus_shape.load()
    assert source == "corpus_shape.json"
    assert shapes == committed


def test_realistic_frontmatter_quotes_keys_that_need_it() -> None:
    scalar = ["s", "", "str", 12, 1]
    shape: corpus_shape.Shape = {
        "fm": [
            "m",
            False,
            [
                ["name", ["s", "", "str", 5, 1]],
                ["description", scalar],
                ["a key: with colon", scalar],
                ["on", ["s", "", "bool", 4, 1]],
                ["meta", ["m", True, [["#x", scalar], ["ok", scalar]]]],
            ],
        ],
        "fm_lines": 5,
    }
    text = skilltree.realistic_frontmatter(shape, "a-skill", "seed")
    inner = text[4 : -len("---\n")]
    data = yaml.safe_load(inner)
    assert list(data) == ["name", "description", "a key: with colon", "on", "meta"]
    assert list(data["meta"]) == ["#x", "ok"]
    assert isinstance(data["on"], bool)
    assert inner.count("\n") == 5
