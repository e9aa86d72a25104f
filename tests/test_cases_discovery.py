"""Discovery and serving cases from the field (../shared/cases/CASES.md: C3-C7, C17-C20, C24, C25).

Each test is named after its case and also tries further inputs of the same kind of fault.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_skills import (
    AgentSkills,
    EntryStatus,
    ShadowedSkill,
    SkillContent,
    SkillError,
    clarvis_skill_roots,
    create_agent_skills,
)
from conftest import make_skill, symlink
from conftest import skill_error as err_of


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Path]:
    """``home`` (``~``), ``ws`` and ``out`` (outside every skill) as CASES.md uses them."""
    paths = {k: tmp_path / k for k in ("home", "ws", "out")}
    for p in paths.values():
        p.mkdir()
    return paths


def clarvis(env: dict[str, Path], **kw: Any) -> AgentSkills:
    return create_agent_skills(clarvis_skill_roots(workspace=env["ws"], home=env["home"]), **kw)


def build(*roots: Path, **kw: Any) -> AgentSkills:
    return create_agent_skills(list(roots), **kw)


def loaded(skills: AgentSkills, name: str) -> SkillContent:
    content = skills.load_skill(name)
    assert content is not None
    return content


def rels(content: SkillContent) -> list[str]:
    return [r.rel for r in content.resources]


def report_of(skills: AgentSkills) -> list[tuple[str, str, str]]:
    return [(e.path.name, e.status.value, e.reason) for e in skills.report().entries]


# -- C3 linked skill directories ---------------------------------------------------------------


def test_c3_linked_skill_dirs(env: dict[str, Path]) -> None:
    shared = make_skill(env["out"] / "shared", "lint-fix")
    root = env["ws"] / ".agents" / "skills"
    symlink(root / "lint-fix", shared)
    symlink(root / "dangling", "/nonexistent")
    symlink(root / "file-link", shared / "SKILL.md")
    skills = clarvis(env)
    [info] = skills.list_skills()
    assert (info.name, info.dir, info.path) == (
        "lint-fix",
        root / "lint-fix",
        root / "lint-fix" / "SKILL.md",
    )
    assert [(d.kind.value, d.path) for d in skills.diagnostics] == [
        ("dangling_symlink", root / "dangling")
    ]
    assert report_of(skills) == [
        ("dangling", "skipped", "dangling symlink"),
        ("file-link", "skipped", "symlink to a file, not a directory"),
        ("lint-fix", "loaded", ""),
    ]
    off = clarvis(env, follow_symlinks=False)
    assert off.list_skills() == []
    reason = "symlink not followed (follow_symlinks=False)"
    assert report_of(off) == [
        ("dangling", "skipped", reason),
        ("file-link", "skipped", reason),
        ("lint-fix", "skipped", reason),
    ]
    assert off.diagnostics == ()


def test_c3_linked_skill_dirs_chains_and_relative_links(env: dict[str, Path]) -> None:
    make_skill(env["out"] / "store", "chained")
    make_skill(env["out"] / "store", "rel")
    hop = symlink(env["out"] / "hops" / "one", env["out"] / "store" / "chained")
    hop2 = symlink(env["out"] / "hops" / "two", hop)  # link to a link to a dir
    root = env["ws"] / ".agents" / "skills"
    symlink(root / "chained", hop2)
    symlink(root / "rel", "../../../out/store/rel")  # relative link
    symlink(root / "chain-dangling", env["out"] / "hops" / "three")
    symlink(env["out"] / "hops" / "three", env["out"] / "nothing")  # chain ending nowhere
    symlink(root / "chain-file", env["out"] / "hops" / "f")
    symlink(env["out"] / "hops" / "f", env["out"] / "store" / "rel" / "SKILL.md")
    skills = clarvis(env)
    assert [(s.name, s.dir) for s in skills.list_skills()] == [
        ("chained", root / "chained"),
        ("rel", root / "rel"),
    ]
    assert report_of(skills) == [
        ("chain-dangling", "skipped", "dangling symlink"),
        ("chain-file", "skipped", "symlink to a file, not a directory"),
        ("chained", "loaded", ""),
        ("rel", "loaded", ""),
    ]
    assert skills.read_resource("chained", "SKILL.md").startswith(b"---\nname: chained")


# -- C4 the root is a link ---------------------------------------------------------------------


def test_c4_root_is_a_link(env: dict[str, Path]) -> None:
    make_skill(env["ws"] / "skills-store", "deploy")
    symlink(env["ws"] / ".agents" / "skills", "../skills-store")
    skills = clarvis(env)
    [info] = skills.list_skills()
    assert (info.name, info.root, info.dir) == (
        "deploy",
        env["ws"] / ".agents" / "skills",
        env["ws"] / ".agents" / "skills" / "deploy",
    )
    assert skills.resource_path("deploy", "SKILL.md") == info.path


def test_c4_root_is_a_link_chain_and_not_followed_flag(env: dict[str, Path]) -> None:
    make_skill(env["home"] / "dotfiles" / "skills", "notes")
    symlink(env["home"] / "links" / "skills", env["home"] / "dotfiles" / "skills")
    symlink(env["home"] / ".clarvis" / "skills", env["home"] / "links" / "skills")
    for follow in (True, False):
        skills = clarvis(env, follow_symlinks=follow)
        assert [s.name for s in skills.list_skills()] == ["notes"]
        assert skills.list_skills()[0].scope == "user"


# -- C5 only the manifest is a link ------------------------------------------------------------


def test_c5_manifest_is_a_link(env: dict[str, Path]) -> None:
    make_skill(env["home"] / "dotfiles", "usage")
    d = env["home"] / ".agents" / "skills" / "usage"
    symlink(d / "SKILL.md", env["home"] / "dotfiles" / "usage" / "SKILL.md")
    (d / "references").mkdir()
    (d / "references" / "a.md").write_text("A")
    skills = clarvis(env)
    content = loaded(skills, "usage")
    assert (content.dir, content.path) == (d, d / "SKILL.md")
    assert rels(content) == ["references/a.md"]
    assert content.resources[0].path == d / "references" / "a.md"
    assert skills.read_resource("usage", "references/a.md") == b"A"
    for rel in ["../../../dotfiles/usage/SKILL.md", "../../../dotfiles/usage"]:
        err = err_of(skills.resource_path, "usage", rel)
        assert (err.code, err.fields) == ("path_escape", {"name": "usage", "rel": rel})
    # The manifest's real file lies outside the skill: confinement (SPEC §10.5) refuses it too.
    err = err_of(skills.resource_path, "usage", "SKILL.md")
    assert (err.code, err.fields) == ("path_escape", {"name": "usage", "rel": "SKILL.md"})


def test_c5_manifest_link_inside_and_variant_link(env: dict[str, Path]) -> None:
    root = env["ws"] / ".agents" / "skills"
    d = make_skill(root, "inner", files={"docs/main.md": "x"}, raw="placeholder")
    (d / "SKILL.md").unlink()
    (d / "docs" / "main.md").write_text("---\nname: inner\ndescription: Inner.\n---\nBody\n")
    symlink(d / "SKILL.md", "docs/main.md")
    make_skill(env["out"], "lower")
    symlink(root / "lower" / "skill.md", env["out"] / "lower" / "SKILL.md")
    skills = clarvis(env)
    assert [s.name for s in skills.list_skills()] == ["inner", "lower"]
    assert skills.resource_path("inner", "SKILL.md") == d / "SKILL.md"
    assert loaded(skills, "inner").body == "Body"
    assert rels(loaded(skills, "inner")) == ["docs/main.md"]
    assert rels(loaded(skills, "lower")) == []
    # the variant is a link leading outside: it loads, with a warning naming the real target
    # (SPEC §20.3), and the report entry says so
    assert [d_.kind.value for d_ in skills.diagnostics] == ["manifest_case", "manifest_outside"]
    target = env["out"] / "lower" / "SKILL.md"
    assert str(target) in skills.diagnostics[1].message
    [entry] = [e for e in skills.report().entries if e.name == "lower"]
    assert (entry.status, entry.reason) == (
        "loaded",
        f"manifest is a link to {target}, outside the skill directory",
    )


# -- C6 a link inside a skill leads out ---------------------------------------------------------


def _c6(env: dict[str, Path]) -> tuple[AgentSkills, Path]:
    (env["out"] / "secrets").mkdir()
    (env["out"] / "secrets" / "id_key").write_text("PRIVATE")
    root = env["ws"] / "skills"
    d = make_skill(root, "notes", files={"references/v2.md": "version two"})
    symlink(d / "references" / "keys", env["out"] / "secrets")
    symlink(d / "references" / "latest.md", "v2.md")
    return build(root), d


def test_c6_link_inside_leads_out(env: dict[str, Path]) -> None:
    skills, d = _c6(env)
    rel = "references/keys/id_key"
    for fn in (skills.resource_path, skills.read_resource, skills.open_resource):
        err = err_of(fn, "notes", rel)
        assert (err.code, err.fields) == ("path_escape", {"name": "notes", "rel": rel})
    content = loaded(skills, "notes")
    assert rels(content) == ["references/latest.md", "references/v2.md"]
    assert [(x.kind.value, x.path) for x in content.diagnostics] == [
        ("escaping_symlink", d / "references" / "keys")
    ]
    assert skills.read_resource("notes", "references/latest.md") == b"version two"
    assert skills.resource_path("notes", "references/latest.md") == d / "references/latest.md"


def test_c6_relative_file_and_chained_links_out(env: dict[str, Path]) -> None:
    skills, d = _c6(env)
    (env["out"] / "secret.txt").write_text("S")
    symlink(d / "rel-keys", "../../../out/secrets")
    symlink(d / "file-out", env["out"] / "secret.txt")
    symlink(d / "hop1", "hop2")
    symlink(d / "hop2", "references/keys")  # inside -> inside -> outside
    for rel in ["rel-keys/id_key", "file-out", "hop1/id_key", "hop2/id_key", "hop1"]:
        for fn in (skills.resource_path, skills.read_resource):
            err = err_of(fn, "notes", rel)
            assert (err.code, err.fields) == ("path_escape", {"name": "notes", "rel": rel}), rel
    content = loaded(skills, "notes")
    assert rels(content) == ["references/latest.md", "references/v2.md"]
    assert sorted(str(x.path) for x in content.diagnostics) == sorted(
        str(d / p) for p in ["file-out", "hop1", "hop2", "references/keys", "rel-keys"]
    )
    assert {x.kind.value for x in content.diagnostics} == {"escaping_symlink"}


# -- C7 cycles and aliases ---------------------------------------------------------------------


def test_c7_cycles_and_aliases(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "loop", files={"assets/logo.png": b"\x89PNG"})
    symlink(d / "a" / "b", "../..")
    symlink(d / "a-link", "assets")
    skills = build(root)
    content = loaded(skills, "loop")
    assert rels(content) == ["assets/logo.png"]
    assert skills.read_resource("loop", "a-link/logo.png") == b"\x89PNG"
    assert skills.read_resource("loop", "assets/logo.png") == b"\x89PNG"


def test_c7_cycles_inside_and_aliases_either_side(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "loop", files={"assets/logo.png": "p", "m/n/deep.md": "d"})
    symlink(d / "m" / "n" / "up", "..")  # cycle inside the skill
    symlink(d / "m" / "self", ".")
    symlink(d / "A", "assets")  # sorts before
    symlink(d / "z", "assets")  # sorts after
    symlink(d / "p", "q")
    symlink(d / "q", "p")  # a link loop
    skills = build(root)
    content = loaded(skills, "loop")
    assert rels(content) == ["assets/logo.png", "m/n/deep.md"]
    assert [(x.kind.value, x.path) for x in content.diagnostics] == [
        ("dangling_symlink", d / "p"),
        ("dangling_symlink", d / "q"),
    ]
    err = err_of(skills.resource_path, "loop", "p/x")
    assert (err.code, err.fields) == ("not_found", {"name": "loop", "rel": "p/x"})
    assert skills.read_resource("loop", "m/n/up/n/up/self/n/deep.md") == b"d"


# -- C17 name differs from the directory --------------------------------------------------------


def test_c17_name_differs_from_directory(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(
        root,
        "react-best-practices",
        frontmatter={"name": "vendor-react-best-practices", "description": "React."},
    )
    notes = make_skill(root, "notes", frontmatter={"name": "Notes Helper", "description": "N."})
    skills = build(root)
    assert [s.name for s in skills.list_skills()] == ["vendor-react-best-practices"]
    assert skills.load_skill("react-best-practices") is None
    assert loaded(skills, "vendor-react-best-practices").dir == d
    assert [(x.kind.value, x.path) for x in skills.diagnostics] == [
        ("invalid_skill", notes / "SKILL.md"),
        ("name_mismatch", d / "SKILL.md"),
    ]
    entries = skills.report().entries
    assert [(e.path.name, e.status.value, e.name) for e in entries] == [
        ("notes", "invalid", None),
        ("react-best-practices", "loaded", "vendor-react-best-practices"),
    ]


@pytest.mark.parametrize(
    ("dirname", "name", "status"),
    [
        ("Deploy", "deploy", "loaded"),  # differs only in case: a mismatch, still loads
        ("dots", "...", "invalid"),  # only dots
        ("slash", "a/b", "invalid"),
        ("space", " padded ", "loaded"),  # trimmed to "padded": a mismatch
        ("unicode", "café", "loaded"),  # Unicode names load (SPEC §21.5): a mismatch here
        ("upper", "Café", "loaded"),  # ASCII upper case as §6 allowed
        ("upper-nonascii", "cafÉ", "invalid"),  # non-ASCII upper case is neither
    ],
)
def test_c17_other_names(tmp_path: Path, dirname: str, name: str, status: str) -> None:
    root = tmp_path / "skills"
    make_skill(root, dirname, frontmatter={"name": name, "description": "D."})
    skills = build(root)
    [entry] = skills.report().entries
    assert entry.status == status
    if status == "loaded":
        assert [s.name for s in skills.list_skills()] == [name.strip()]
        assert [x.kind.value for x in skills.diagnostics] == ["name_mismatch"]
        assert skills.load_skill(dirname) is None
    else:
        assert skills.list_skills() == []
        assert [x.kind.value for x in skills.diagnostics] == ["invalid_skill"]


# -- C18 duplicates ----------------------------------------------------------------------------


def test_c18_duplicates(env: dict[str, Path]) -> None:
    user = make_skill(env["home"] / ".clarvis" / "skills", "deploy")
    ws = make_skill(env["ws"] / ".clarvis" / "skills", "deploy")
    skills = clarvis(env)
    [info] = skills.list_skills()
    assert (info.dir, info.scope, info.source) == (ws, "workspace", "clarvis")
    assert info.shadowed == (
        ShadowedSkill("user", "clarvis", env["home"] / ".clarvis" / "skills", user),
    )
    root = env["ws"] / "one-root"
    x1 = make_skill(root, "x1", frontmatter={"name": "dup", "description": "first"})
    x2 = make_skill(root, "x2", frontmatter={"name": "dup", "description": "second"})
    one = build(root)
    assert [(s.name, s.description) for s in one.list_skills()] == [("dup", "first")]
    assert [(e.path, e.status) for e in one.report().entries] == [
        (x1, EntryStatus.LOADED),
        (x2, EntryStatus.DUPLICATE),
    ]
    with pytest.raises(SkillError) as info_strict:
        build(root, strict=True)
    assert info_strict.value.code == "duplicate_skill"
    assert info_strict.value.fields == {"name": "dup", "paths": [str(x1), str(x2)]}


def test_c18_four_roots_same_name(env: dict[str, Path]) -> None:
    h, w = env["home"], env["ws"]
    roots = [
        h / ".agents/skills",
        w / ".agents/skills",
        h / ".clarvis/skills",
        w / ".clarvis/skills",
    ]
    dirs = [
        make_skill(r, "deploy", frontmatter={"name": "deploy", "description": str(i)})
        for i, r in enumerate(roots)
    ]
    for strict in (False, True):
        skills = clarvis(env, strict=strict)
        [info] = skills.list_skills()
        assert (info.description, info.dir) == ("3", dirs[3])
        assert info.shadowed == (
            ShadowedSkill("user", "clarvis", roots[2], dirs[2]),
            ShadowedSkill("workspace", "agents", roots[1], dirs[1]),
            ShadowedSkill("user", "agents", roots[0], dirs[0]),
        )
        assert [(e.status.value, e.shadowed_by) for e in skills.report().entries] == [
            ("shadowed", dirs[3]),
            ("shadowed", dirs[3]),
            ("shadowed", dirs[3]),
            ("loaded", None),
        ]
        assert [x.kind.value for x in skills.diagnostics] == ["shadowed"] * 3


# -- C19 manifest casing -----------------------------------------------------------------------


def test_c19_manifest_casing(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    fmt = make_skill(root, "fmt", manifest="skill.md")
    lint = make_skill(root, "lint", manifest="SKILL.MD")
    both = make_skill(root, "both", frontmatter={"name": "both", "description": "upper"})
    (both / "skill.md").write_text("---\nname: both\ndescription: lower\n---\n")
    skills = build(root)
    infos = {s.name: s for s in skills.list_skills()}
    assert infos["fmt"].path == fmt / "skill.md"
    assert infos["lint"].path == lint / "SKILL.MD"
    assert (infos["both"].path, infos["both"].description) == (both / "SKILL.md", "upper")
    assert [(x.kind.value, x.path) for x in skills.diagnostics] == [
        ("manifest_case", fmt / "skill.md"),
        ("manifest_case", lint / "SKILL.MD"),
    ]
    # the variant is the manifest, so it is not a resource; the other variant of "both" neither
    assert rels(loaded(skills, "both")) == []
    assert skills.resource_path("fmt", "skill.md") == fmt / "skill.md"


def test_c19_two_variants_without_exact_name(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = root / "mixed"
    d.mkdir(parents=True)
    (d / "skill.MD").write_text("---\nname: mixed\ndescription: from skill.MD\n---\n")
    (d / "Skill.md").write_text("---\nname: mixed\ndescription: from Skill.md\n---\n")
    skills = build(root)
    [info] = skills.list_skills()
    assert (info.path, info.description) == (d / "Skill.md", "from Skill.md")
    assert [(x.kind.value, x.path) for x in skills.diagnostics] == [
        ("manifest_case", d / "Skill.md")
    ]
    assert rels(loaded(skills, "mixed")) == []


# -- C20 nested manifests are resources ---------------------------------------------------------


def test_c20_nested_manifests_are_resources(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(
        root,
        "learn",
        files={"examples/tasklist/SKILL.md": "---\nname: tasklist\ndescription: Nested.\n---\n"},
    )
    make_skill(root, "tasklist")
    skills = build(root)
    assert [s.name for s in skills.list_skills()] == ["learn", "tasklist"]
    assert loaded(skills, "tasklist").dir == root / "tasklist"
    assert rels(loaded(skills, "learn")) == ["examples/tasklist/SKILL.md"]
    assert skills.diagnostics == ()


def test_c20_deeper_and_variant_nested_manifests(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(
        root,
        "learn",
        files={
            "a/b/c/SKILL.md": "---\nname: deep\ndescription: D.\n---\n",
            "sub/skill.md": "---\nname: sub\ndescription: S.\n---\n",
        },
    )
    group = root / "group"
    make_skill(group, "inner")  # root/group has no manifest: not a skill, not recursed into
    skills = build(root)
    assert [s.name for s in skills.list_skills()] == ["learn"]
    assert rels(loaded(skills, "learn")) == ["a/b/c/SKILL.md", "sub/skill.md"]
    assert report_of(skills)[0] == ("group", "skipped", "no SKILL.md in directory")


# -- C24 junk and secrets in listings -------------------------------------------------------------


def test_c24_junk_and_secrets_in_listings(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(
        root,
        "report",
        files={
            ".env": "TOKEN=x",
            "assets/.DS_Store": b"\0",
            "references/.gitkeep": "",
            "node_modules/x/index.js": "js",
            "references/format.md": "format",
        },
    )
    make_skill(root, "other", files={"references": "a plain file", "scripts/run.sh": "run"})
    skills = build(root)
    assert rels(loaded(skills, "report")) == ["references/format.md"]
    other = loaded(skills, "other")
    assert rels(other) == ["references", "scripts/run.sh"]
    assert [r.kind for r in other.resources] == ["references", "scripts"]
    assert skills.read_resource("other", "references") == b"a plain file"
    err = err_of(skills.resource_path, "other", "references/x.md")
    assert (err.code, err.fields) == ("not_found", {"name": "other", "rel": "references/x.md"})


def test_c24_vcs_caches_and_nested_hidden(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(
        root,
        "report",
        files={
            ".git/HEAD": "ref",
            ".git/objects/ab/cdef": b"\0",
            "__pycache__/mod.cpython-311.pyc": b"\0",
            "scripts/__pycache__/run.cpython-311.pyc": b"\0",
            "scripts/run.py": "print()",
            "references/.hidden/file.md": "x",
            "references/.private.md": "x",
            "assets/node_modules/lib/index.js": "x",
            ".github/workflows/ci.yml": "x",
        },
    )
    skills = build(root)
    assert rels(loaded(skills, "report")) == ["scripts/run.py"]
    # not listed, yet served when asked for by name (SPEC §10)
    assert skills.read_resource("report", "references/.hidden/file.md") == b"x"


# -- C25 many entries --------------------------------------------------------------------------


@pytest.mark.slow
def test_c25_many_entries(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for i in range(5000):
        (root / f"empty-{i:04d}").mkdir(parents=True)
    for name in ("alpha", "beta", "gamma"):
        make_skill(root, name)
    skills = build(root)
    assert [s.name for s in skills.list_skills()] == ["alpha", "beta", "gamma"]
    entries = skills.report().entries
    assert len(entries) == 5003
    assert [e.path.name for e in entries if e.status == "loaded"] == ["alpha", "beta", "gamma"]
    assert {e.reason for e in entries if e.status == "skipped"} == {"no SKILL.md in directory"}
    assert skills.diagnostics == ()


@pytest.mark.slow
@pytest.mark.parametrize(("count", "cap"), [(5000, 5000), (5001, 5000), (50, 50), (51, 50)])
def test_c25_cap_at_exactly_max_and_max_plus_one(
    tmp_path: Path, count: int, cap: int, warn_messages: list[str]
) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "big", files={f"assets/f{i:05d}.bin": b"" for i in range(count)})
    skills = build(root, max_resources=cap)
    content = loaded(skills, "big")
    assert len(content.resources) == min(count, cap)
    assert content.resources[-1].rel == f"assets/f{min(count, cap) - 1:05d}.bin"
    truncated = count > cap
    assert content.resources_truncated is truncated
    if truncated:
        msg = f"listing of {d} truncated to {cap} of {count} files"
        assert [(x.kind.value, x.message) for x in content.diagnostics] == [
            ("resources_truncated", msg)
        ]
        assert warn_messages == [msg]
    else:
        assert content.diagnostics == ()
        assert warn_messages == []
    # files beyond the cap are still served by name
    assert skills.read_resource("big", f"assets/f{count - 1:05d}.bin") == b""
