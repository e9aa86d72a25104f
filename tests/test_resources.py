"""Resource enumeration (SPEC §9): what is listed, in which order, and how links are treated."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent_skills import (
    AgentSkills,
    DiagnosticKind,
    SkillContent,
    SkillResource,
    create_agent_skills,
)
from agent_skills._resources import list_resources
from conftest import make_skill, symlink


def load(root: Path, name: str, **kw: Any) -> tuple[AgentSkills, SkillContent]:
    skills = create_agent_skills([root], **kw)
    content = skills.load_skill(name)
    assert content is not None
    return skills, content


def rels(content: SkillContent) -> list[str]:
    return [r.rel for r in content.resources]


def diag_pairs(content: SkillContent) -> list[tuple[str, Path | None]]:
    return [(d.kind.value, d.path) for d in content.diagnostics]


def assert_all_served(skills: AgentSkills, content: SkillContent) -> None:
    """SPEC §9: every listed resource resolves with resource_path and opens with open_resource."""
    for res in content.resources:
        assert skills.resource_path(content.name, res.rel) == res.path
        with skills.open_resource(content.name, res.rel) as fh:
            assert len(fh.read()) == res.size


def test_kinds_rel_path_size(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(
        root,
        "s",
        files={
            "scripts/run.sh": "echo hi\n",
            "references/guide.md": "guide",
            "assets/logo.png": b"\x89PNG",
            "examples/one/ex.md": "ex",
            "Scripts/upper.sh": "x",
            "notes.txt": "",
            "templates/t.html": "<html/>",
        },
    )
    skills, content = load(root, "s")
    assert content.resources == (
        SkillResource("assets", "assets/logo.png", d / "assets/logo.png", 4),
        SkillResource("examples", "examples/one/ex.md", d / "examples/one/ex.md", 2),
        SkillResource("other", "notes.txt", d / "notes.txt", 0),
        SkillResource("references", "references/guide.md", d / "references/guide.md", 5),
        SkillResource("scripts", "scripts/run.sh", d / "scripts/run.sh", 8),
        SkillResource("other", "Scripts/upper.sh", d / "Scripts/upper.sh", 1),
        SkillResource("other", "templates/t.html", d / "templates/t.html", 7),
    )
    assert content.resources_truncated is False
    assert content.diagnostics == ()
    assert_all_served(skills, content)


def test_left_out_entries(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(
        root,
        "s",
        files={
            "skill.md": "variant",
            "Skill.MD": "variant",
            ".env": "SECRET=1",
            ".git/config": "x",
            "assets/.DS_Store": "x",
            ".hidden/inner.md": "x",
            "__pycache__/m.pyc": b"\0",
            "scripts/__pycache__/m.pyc": b"\0",
            "node_modules/x/index.js": "x",
            "lib/node_modules/y.js": "x",
            "keep.md": "k",
        },
    )
    skills, content = load(root, "s")
    assert rels(content) == ["keep.md"]
    assert content.resources[0].path == d / "keep.md"
    # hidden files are not listed, but are served when asked for by name (SPEC §10)
    assert skills.read_resource("s", ".env") == b"SECRET=1"


def test_nested_manifest_is_a_resource(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "learn", files={"examples/tasklist/SKILL.md": "x", "sub/skill.md": "y"})
    skills, content = load(root, "learn")
    assert rels(content) == ["examples/tasklist/SKILL.md", "sub/skill.md"]
    assert [r.kind for r in content.resources] == ["examples", "other"]
    assert_all_served(skills, content)


def test_sorted_by_casefold_then_rel(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    names = ["b.md", "B.md", "a/z.md", "A.md", "a.md", "a-b.md", "_u.md", "Z/a.md", "10.md", "9.md"]
    make_skill(root, "s", files={n: n for n in names})
    _, content = load(root, "s")
    expected = sorted(names, key=lambda r: (r.casefold(), r))
    assert rels(content) == expected
    assert expected == [
        "10.md",
        "9.md",
        "_u.md",
        "a-b.md",
        "A.md",
        "a.md",
        "a/z.md",
        "B.md",
        "b.md",
        "Z/a.md",
    ]


def test_cap_and_truncation_diagnostic(tmp_path: Path, warn_messages: list[str]) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", files={f"f{i:02d}.txt": "x" for i in range(10)})
    _, content = load(root, "s", max_resources=3)
    assert rels(content) == ["f00.txt", "f01.txt", "f02.txt"]
    assert content.resources_truncated is True
    assert diag_pairs(content) == [("resources_truncated", d)]
    msg = f"listing of {d} truncated to 3 of 10 files"
    assert content.diagnostics[0].message == msg
    assert warn_messages == [msg]
    _, exact = load(root, "s", max_resources=10)
    assert (len(exact.resources), exact.resources_truncated, exact.diagnostics) == (10, False, ())


def test_dangling_link_one_diagnostic_wherever_it_points(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", files={"a.md": "a"})
    symlink(d / "references" / "in", "missing.md")
    symlink(d / "references" / "out", tmp_path / "nowhere" / "x.md")
    skills, content = load(root, "s")
    assert rels(content) == ["a.md"]
    assert diag_pairs(content) == [
        ("dangling_symlink", d / "references/in"),
        ("dangling_symlink", d / "references/out"),
    ]
    # enumerated per call: the same single diagnostic each time
    again = skills.load_skill("s")
    assert again is not None and diag_pairs(again) == diag_pairs(content)


def test_escaping_link_one_diagnostic(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (tmp_path / "out" / "secrets").mkdir(parents=True)
    (tmp_path / "out" / "secrets" / "id_key").write_text("KEY")
    (tmp_path / "out" / "f.txt").write_text("F")
    d = make_skill(root, "s")
    symlink(d / "keys", tmp_path / "out" / "secrets")
    symlink(d / "refs" / "f.txt", "../../../out/f.txt")
    symlink(d / "sib", "../other")  # a sibling skill is outside too
    make_skill(root, "other")
    _, content = load(root, "s")
    assert rels(content) == []
    assert diag_pairs(content) == [
        ("escaping_symlink", d / "keys"),
        ("escaping_symlink", d / "sib"),
        ("escaping_symlink", d / "refs/f.txt"),
    ]


def test_link_to_file_inside_listed_under_link_rel(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", files={"references/v2.md": "v2!"})
    symlink(d / "references" / "latest.md", "v2.md")
    symlink(d / "top.md", "references/v2.md")
    skills, content = load(root, "s")
    assert content.resources == (
        SkillResource("references", "references/latest.md", d / "references/latest.md", 3),
        SkillResource("references", "references/v2.md", d / "references/v2.md", 3),
        SkillResource("other", "top.md", d / "top.md", 3),
    )
    assert_all_served(skills, content)


def test_link_to_dir_inside_walked_only_when_not_walked_anyway(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", files={"assets/logo.png": "p", ".store/data/x.csv": "1,2"})
    symlink(d / "media", "assets")  # real dir walked anyway: not listed twice
    symlink(d / "data", ".store/data")  # only through the link, but hidden: SPEC §30.2
    symlink(d / "deep", "assets/deeper")  # only reachable through the link: walked
    (d / "assets" / "deeper").mkdir()
    (d / "assets" / "deeper" / "y.md").write_text("y")
    skills, content = load(root, "s")
    assert rels(content) == ["assets/deeper/y.md", "assets/logo.png"]
    assert content.diagnostics == ()
    assert_all_served(skills, content)


def test_alias_never_hides_real_file_whatever_the_name_order(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for alias in ("a-link", "zz-link", "Assets"):
        d = make_skill(root, alias, files={"assets/logo.png": "p", "assets/sub/x.md": "x"})
        symlink(d / alias, "assets")
        symlink(d / "assets" / "sub" / "up", "..")
        _, content = load(root, alias)
        assert rels(content) == ["assets/logo.png", "assets/sub/x.md"], alias


def test_links_only_reachable_dirs_are_deterministic(tmp_path: Path) -> None:
    """Two links reach the same directory the walk does not list (more than 64 levels down):
    the first link in rel order lists it. Links to a hidden directory list nothing (SPEC §30.2)."""
    root = tmp_path / "skills"
    deep = "/".join(["x"] * 66)
    d = make_skill(root, "s", files={f"{deep}/g.txt": "g", f"{deep}/sub/f.txt": "f"})
    symlink(d / "b", deep)
    symlink(d / "a", f"{deep}/sub")
    skills, content = load(root, "s")
    assert rels(content) == ["a/f.txt", "b/g.txt"]
    assert_all_served(skills, content)
    d2 = make_skill(root, "t", files={f"{deep}/g.txt": "g", f"{deep}/sub/f.txt": "f"})
    symlink(d2 / "a", deep)
    symlink(d2 / "b", f"{deep}/sub")
    _, content2 = load(root, "t")
    assert rels(content2) == ["a/g.txt", "a/sub/f.txt"]
    d3 = make_skill(root, "u", files={".h/g.txt": "g", ".h/sub/f.txt": "f"})
    symlink(d3 / "b", ".h")
    symlink(d3 / "a", ".h/sub")
    _, content3 = load(root, "u")
    assert rels(content3) == []
    assert content3.diagnostics == ()


def test_cycles_end(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", files={"a/file.md": "x"})
    symlink(d / "a" / "self", ".")
    symlink(d / "a" / "up", "..")
    symlink(d / "loop1", "loop2")
    symlink(d / "loop2", "loop1")
    skills, content = load(root, "s")
    assert rels(content) == ["a/file.md"]
    assert diag_pairs(content) == [
        ("dangling_symlink", d / "loop1"),
        ("dangling_symlink", d / "loop2"),
    ]
    assert_all_served(skills, content)


def test_follow_symlinks_false_ignores_links(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (tmp_path / "out").mkdir()
    d = make_skill(root, "s", files={"references/v2.md": "v2", ".h/x.md": "x"})
    symlink(d / "references" / "latest.md", "v2.md")
    symlink(d / "dangling", "nowhere")
    symlink(d / "out", tmp_path / "out")
    symlink(d / "alias", ".h")
    skills, content = load(root, "s", follow_symlinks=False)
    assert rels(content) == ["references/v2.md"]
    assert content.diagnostics == ()
    assert_all_served(skills, content)


def test_linked_skill_dir_resources_use_link_path(tmp_path: Path) -> None:
    store = make_skill(tmp_path / "store", "lint", files={"scripts/fix.sh": "fix"})
    root = tmp_path / "skills"
    symlink(root / "lint", store)
    skills, content = load(root, "lint")
    assert content.resources == (
        SkillResource("scripts", "scripts/fix.sh", root / "lint/scripts/fix.sh", 3),
    )
    assert_all_served(skills, content)


def test_unaddressable_names_are_left_out(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", files={"ok.md": "x", "sub/C:y.md": "y"})
    (d / "back\\slash.md").write_text("b")
    (d / "C:x.md").write_text("c")
    skills, content = load(root, "s")
    assert rels(content) == ["ok.md", "sub/C:y.md"]
    assert_all_served(skills, content)


def test_special_files_are_not_listed(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", files={"a.md": "a"})
    os.mkfifo(d / "pipe")
    symlink(d / "pipe-link", "pipe")
    _, content = load(root, "s")
    assert rels(content) == ["a.md"]


def test_list_resources_direct(tmp_path: Path) -> None:
    d = make_skill(tmp_path, "s", files={"x/y.md": "yy"})
    listing = list_resources(d, follow_symlinks=True, max_resources=5)
    assert listing.resources == (SkillResource("other", "x/y.md", d / "x/y.md", 2),)
    assert (listing.truncated, listing.diagnostics) == (False, ())
    assert list_resources(tmp_path / "gone").resources == ()
    assert [x.kind for x in list_resources(tmp_path / "gone").diagnostics] == [
        DiagnosticKind.IO_ERROR
    ]


def test_compiled_python_files_are_not_resources(tmp_path: Path) -> None:
    """SPEC §29.6: ``*.pyc`` and ``*.pyo`` (any letter case) are not resources; a plain ``.py``
    and a name that only holds the suffix inside it stay."""
    from agent_skills._trust import digest_skill_dir

    skill = make_skill(
        tmp_path,
        "compiled",
        files={
            "scripts/run.py": "print(1)\n",
            "scripts/run.cpython-312.pyc": b"\x00\x01",
            "scripts/old.pyo": b"\x02",
            "UPPER.PYC": b"\x03",
            "notes.pyc.txt": "kept\n",
        },
    )
    skills, content = load(tmp_path, "compiled")
    assert rels(content) == ["notes.pyc.txt", "scripts/run.py"]
    assert_all_served(skills, content)
    before = digest_skill_dir(skill)
    (skill / "scripts" / "more.pyc").write_bytes(b"\x04")
    assert digest_skill_dir(skill) == before  # not hashed either (trust, lock)


def test_a_link_to_a_compiled_file_is_not_a_resource(tmp_path: Path) -> None:
    """SPEC §29.6 with §30.2: the rule applies to a link's target inside the skill too."""
    skill = make_skill(tmp_path, "linked", files={"build/mod.pyc": b"\x00", "a.txt": "a\n"})
    symlink(skill / "mod.bin", "build/mod.pyc")
    _, content = load(tmp_path, "linked")
    assert rels(content) == ["a.txt"]
