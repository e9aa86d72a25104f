"""SPEC §21.4: nested discovery with max_depth, bounds, skipped folders, .gitignore, category."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_skills import StartupError, create_agent_skills, resolve_config
from agent_skills._walk import MAX_SCAN_DIRS
from conftest import make_skill


def statuses(skills: object) -> list[tuple[str, str, str | None, str]]:
    root = skills.config.roots[0].path  # type: ignore[attr-defined]
    return [
        (e.path.relative_to(root).as_posix(), e.status.value, e.name, e.reason)
        for e in skills.report().entries  # type: ignore[attr-defined]
    ]


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    """skills/ios/swiftui, skills/ios/uikit, skills/web/react/hooks, skills/top, skills/empty."""
    root = tmp_path / "skills"
    make_skill(root / "ios", "swiftui")
    make_skill(root / "ios", "uikit", files={"nested/SKILL.md": "---\nname: inner\n---\n"})
    make_skill(root / "web" / "react", "hooks")
    make_skill(root, "top", files={"sub/SKILL.md": "---\nname: sub\ndescription: d\n---\n"})
    (root / "empty" / "deeper").mkdir(parents=True)
    return root


def test_default_depth_is_section_4(catalog: Path) -> None:
    skills = create_agent_skills([catalog])
    assert skills.config.max_depth == 1
    assert [s.name for s in skills.list_skills()] == ["top"]
    assert statuses(skills) == [
        ("empty", "skipped", None, "no SKILL.md in directory"),
        ("ios", "skipped", None, "no SKILL.md in directory"),
        ("top", "loaded", "top", ""),
        ("web", "skipped", None, "no SKILL.md in directory"),
    ]


def test_depth_two_finds_category_folders(catalog: Path) -> None:
    skills = create_agent_skills([catalog], max_depth=2)
    assert [(s.name, s.category) for s in skills.list_skills()] == [
        ("swiftui", "ios"),
        ("top", ""),
        ("uikit", "ios"),
    ]
    assert statuses(skills) == [
        ("empty/deeper", "skipped", None, "no SKILL.md in directory"),
        ("ios/swiftui", "loaded", "swiftui", ""),
        ("ios/uikit", "loaded", "uikit", ""),
        ("top", "loaded", "top", ""),
        ("web/react", "skipped", None, "no SKILL.md in directory"),
    ]
    swift = skills.load_skill("swiftui")
    assert swift is not None
    assert (swift.root, swift.dir, swift.path) == (
        catalog,
        catalog / "ios" / "swiftui",
        catalog / "ios" / "swiftui" / "SKILL.md",
    )
    assert swift.to_dict()["category"] == "ios"
    assert skills.diagnostics == ()


def test_depth_three_and_a_skill_is_never_searched(catalog: Path) -> None:
    skills = create_agent_skills([catalog], max_depth=3)
    assert [(s.name, s.category) for s in skills.list_skills()] == [
        ("hooks", "web/react"),
        ("swiftui", "ios"),
        ("top", ""),
        ("uikit", "ios"),
    ]
    # C20: manifests inside a skill stay its resources.
    uikit = skills.load_skill("uikit")
    assert uikit is not None and [r.rel for r in uikit.resources] == ["nested/SKILL.md"]
    top = skills.load_skill("top")
    assert top is not None and [r.rel for r in top.resources] == ["sub/SKILL.md"]
    assert "sub" not in skills and "inner" not in skills
    assert ("empty/deeper", "skipped", None, "no SKILL.md in directory or below (max_depth 3)") in (
        statuses(skills)
    )


@pytest.mark.parametrize("bad", [0, 7, -1, True, 1.5, "2", None])
def test_max_depth_out_of_range_is_a_startup_error(tmp_path: Path, bad: object) -> None:
    with pytest.raises(StartupError) as info:
        resolve_config([tmp_path], max_depth=bad)  # type: ignore[arg-type]
    assert str(info.value) == f"max_depth must be an int from 1 to 6, got {bad!r}"


def test_max_depth_six_is_the_deepest(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "a" / "b" / "c" / "d" / "e", "six")
    make_skill(root / "a" / "b" / "c" / "d" / "e" / "f", "seven")
    skills = create_agent_skills([root], max_depth=6)
    assert [(s.name, s.category) for s in skills.list_skills()] == [("six", "a/b/c/d/e")]
    assert resolve_config([root], max_depth=6).max_depth == 6


def test_hidden_node_modules_and_pycache_are_not_searched(tmp_path: Path) -> None:
    root = tmp_path / "r"
    for folder in (".git", ".cache", "node_modules", "__pycache__"):
        make_skill(root / "pkg" / folder, "inside")
        make_skill(root / folder, "inside-top")
    make_skill(root / "pkg", "real")
    skills = create_agent_skills([root], max_depth=3)
    assert [s.name for s in skills.list_skills()] == ["real"]
    assert statuses(skills) == [
        # Depth 1 is SPEC §4: every child is a candidate; excluded ones are not searched below.
        (".cache", "skipped", None, "no SKILL.md in directory"),
        (".git", "skipped", None, "no SKILL.md in directory"),
        ("__pycache__", "skipped", None, "no SKILL.md in directory"),
        ("node_modules", "skipped", None, "no SKILL.md in directory"),
        ("pkg/.cache", "skipped", None, "not searched: hidden directory"),
        ("pkg/.git", "skipped", None, "not searched: hidden directory"),
        ("pkg/__pycache__", "skipped", None, "not searched: __pycache__"),
        ("pkg/node_modules", "skipped", None, "not searched: node_modules"),
        ("pkg/real", "loaded", "real", ""),
    ]


def test_gitignore_between_the_root_and_the_directory(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "build", "from-build")
    for name in ("dist", "keep", "vendor", "vendor-ok"):
        make_skill(root / "pkg", name)
    (root / ".gitignore").write_text("build/\n/pkg/dist\n# comment\n")
    (root / "pkg" / ".gitignore").write_text("vendor\n!keep\n")
    skills = create_agent_skills([root], max_depth=3)
    assert [s.name for s in skills.list_skills()] == ["keep", "vendor-ok"]
    assert statuses(skills) == [
        ("build", "skipped", None, "no SKILL.md in directory"),
        ("pkg/dist", "skipped", None, f"not searched: ignored by {root}/.gitignore"),
        ("pkg/keep", "loaded", "keep", ""),
        ("pkg/vendor", "skipped", None, f"not searched: ignored by {root}/pkg/.gitignore"),
        ("pkg/vendor-ok", "loaded", "vendor-ok", ""),
    ]


def test_a_deeper_gitignore_can_re_include(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "pkg" / "gen", "generated")
    (root / ".gitignore").write_text("gen/\n")
    (root / "pkg" / ".gitignore").write_text("!gen/\n")
    skills = create_agent_skills([root], max_depth=3)
    assert [s.name for s in skills.list_skills()] == ["generated"]


def test_an_unreadable_or_odd_gitignore_is_ignored(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "pkg", "a")
    (root / ".gitignore").mkdir()  # a directory, not a file
    (root / "pkg" / "b").mkdir()
    (root / "pkg" / "b" / ".gitignore").write_bytes(b"\xff\xfe[\n")
    make_skill(root / "pkg" / "b", "c")
    skills = create_agent_skills([root], max_depth=4)
    assert [s.name for s in skills.list_skills()] == ["a", "c"]


def test_walk_is_bounded_with_scan_truncated(tmp_path: Path) -> None:
    root = tmp_path / "r"
    for i in range(MAX_SCAN_DIRS + 5):
        (root / "cat" / f"d{i:05d}").mkdir(parents=True)
    make_skill(root / "zz", "late")
    skills = create_agent_skills([root], max_depth=2)
    assert MAX_SCAN_DIRS == 2000
    assert len(skills) == 0
    [diag] = skills.diagnostics
    assert (diag.kind.value, diag.severity, diag.path) == ("scan_truncated", "warning", root)
    assert diag.message == (
        f"stopped searching {root} after 2000 directories (max_depth 2); "
        "skills further down were not looked for"
    )
    # The directories looked at are the first 2000 in scan order: "cat", then 1999 below it.
    assert len(skills.report().entries) == 1999


def test_exactly_the_bound_is_not_truncated(tmp_path: Path) -> None:
    root = tmp_path / "r"
    for i in range(MAX_SCAN_DIRS - 2):
        (root / "cat" / f"d{i:05d}").mkdir(parents=True)
    make_skill(root, "last")
    skills = create_agent_skills([root], max_depth=2)
    assert [s.name for s in skills.list_skills()] == ["last"]
    assert skills.diagnostics == ()


def test_depth_one_has_no_bound(tmp_path: Path) -> None:
    root = tmp_path / "r"
    for i in range(MAX_SCAN_DIRS + 1):
        (root / f"d{i:05d}").mkdir(parents=True)
    skills = create_agent_skills([root])
    assert len(skills.report().entries) == MAX_SCAN_DIRS + 1
    assert skills.diagnostics == ()


def test_symlink_loops_are_searched_once(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "a", "s")
    os.symlink(root, root / "a" / "loop")
    os.symlink(root / "a", root / "again")
    skills = create_agent_skills([root], max_depth=6)
    assert [(s.name, s.dir) for s in skills.list_skills()] == [("s", root / "a" / "s")]
    entries = statuses(skills)
    assert ("again", "skipped", None, "no SKILL.md in directory or below (max_depth 6)") in entries
    assert ("a/loop", "skipped", None, "no SKILL.md in directory or below (max_depth 6)") in (
        entries
    )


def test_symlinked_categories_are_not_searched_without_follow_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(tmp_path / "elsewhere", "linked")
    root.mkdir()
    os.symlink(tmp_path / "elsewhere", root / "cat", target_is_directory=True)
    on = create_agent_skills([root], max_depth=2)
    assert [(s.name, s.category) for s in on.list_skills()] == [("linked", "cat")]
    off = create_agent_skills([root], max_depth=2, follow_symlinks=False)
    assert off.list_skills() == []
    assert statuses(off) == [
        ("cat", "skipped", None, "symlink not followed (follow_symlinks=False)")
    ]


def test_nested_duplicates_keep_the_first_in_scan_order(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "a", "x", frontmatter={"name": "same", "description": "first"})
    make_skill(root / "b", "y", frontmatter={"name": "same", "description": "second"})
    skills = create_agent_skills([root], max_depth=2)
    [info] = skills.list_skills()
    assert (info.description, info.category) == ("first", "a")
    assert [e.status.value for e in skills.report().entries] == ["loaded", "duplicate"]


def test_identity_stays_the_frontmatter_name(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "cat", "dir-name", frontmatter={"name": "real-name", "description": "d"})
    skills = create_agent_skills([root], max_depth=2)
    assert [s.name for s in skills.list_skills()] == ["real-name"]
    assert [d.kind.value for d in skills.diagnostics] == ["name_mismatch"]


def test_missing_root_is_fine_nested(tmp_path: Path) -> None:
    skills = create_agent_skills([tmp_path / "missing"], max_depth=3)
    assert [n.status for n in skills.report().roots] == ["missing"]
    assert skills.report().entries == ()


def test_a_fifo_or_huge_gitignore_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "a", "kept")
    make_skill(root / "b", "also-kept")
    os.mkfifo(root / ".gitignore")  # opening it for reading would wait for a writer
    (root / "b" / ".gitignore").write_text("also-kept/\n" + "#" * (1 << 20))
    skills = create_agent_skills([root], max_depth=3)
    assert [s.name for s in skills.list_skills()] == ["also-kept", "kept"]


def test_gitignore_patterns_that_do_not_compile_are_ignored(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root / "a", "kept")
    (root / ".gitignore").write_bytes(b"***/[\n\xff\xfe\n!\n\\\n")
    skills = create_agent_skills([root], max_depth=2)
    assert [s.name for s in skills.list_skills()] == ["kept"]


def test_undecodable_folder_names_are_walked(tmp_path: Path) -> None:
    root = tmp_path / "r"
    odd = os.fsdecode(b"cat\xff")
    make_skill(root / odd, "inside")
    skills = create_agent_skills([root], max_depth=2)
    [info] = skills.list_skills()
    assert (info.name, info.category) == ("inside", odd)
