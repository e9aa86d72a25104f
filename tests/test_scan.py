"""Discovery scan (SPEC §4): candidates, report entries, roots and manifests."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

import agent_skills
from agent_skills import (
    AgentSkills,
    DiagnosticKind,
    EntryStatus,
    ReportEntry,
    RootNote,
    SkillRoot,
    create_agent_skills,
)
from agent_skills._model import is_manifest_name, sort_key
from agent_skills._scan import find_manifest, scan_root
from conftest import make_skill, symlink


def build(*roots: Path, **kw: Any) -> AgentSkills:
    return create_agent_skills(list(roots), **kw)


def entries(skills: AgentSkills) -> list[tuple[str, str, str | None, str]]:
    return [(e.path.name, e.status.value, e.name, e.reason) for e in skills.report().entries]


def kinds(skills: AgentSkills) -> list[str]:
    return [d.kind.value for d in skills.diagnostics]


# -- immediate children only ---------------------------------------------------------------


def _refuse_open(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """Make ``os.open`` of ``target`` fail with EACCES, however it is named: by path or by a name
    relative to a directory descriptor (as discovery opens skills and manifests)."""
    real_open = os.open

    def fake_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        full = os.fspath(path)
        if dir_fd is not None:
            full = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), full)
        if full == str(target):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(agent_skills._fs, "_OPENAT2", [None])  # opens go through os.open


needs_proc = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd"), reason="naming descriptors needs /proc/self/fd"
)


def test_only_immediate_children_are_skills(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "top")
    make_skill(root / "group", "deep")  # root/group/deep/SKILL.md: group has no manifest
    make_skill(root / "top" / "inner", "nested")
    skills = build(root)
    assert [s.name for s in skills.list_skills()] == ["top"]
    assert entries(skills) == [
        ("group", "skipped", None, "no SKILL.md in directory"),
        ("top", "loaded", "top", ""),
    ]
    content = skills.load_skill("top")
    assert content is not None
    assert [r.rel for r in content.resources] == ["inner/nested/SKILL.md"]


# -- roots ---------------------------------------------------------------------------------


def test_missing_root_is_silent_and_noted(tmp_path: Path, warn_messages: list[str]) -> None:
    root = tmp_path / "nope"
    skills = build(root)
    assert len(skills) == 0
    assert skills.diagnostics == ()
    assert skills.report().entries == ()
    assert skills.report().roots == (RootNote(root, "missing", "root does not exist"),)
    assert warn_messages == []


def test_root_that_is_a_file_is_silent_and_noted(tmp_path: Path, warn_messages: list[str]) -> None:
    root = tmp_path / "file"
    root.write_text("not a dir")
    skills = build(root)
    assert len(skills) == 0
    assert skills.diagnostics == ()
    assert skills.report().roots == (RootNote(root, "not_a_directory", "root is not a directory"),)
    assert warn_messages == []


def test_unreadable_root_is_silent_and_noted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warn_messages: list[str]
) -> None:
    locked = tmp_path / "locked"
    make_skill(locked, "a")
    other = tmp_path / "other"
    make_skill(other, "b")
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        # a skill directory is listed through its descriptor: only the root is named
        if not isinstance(path, int) and os.fspath(path) == str(locked):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    skills = build(locked, other)
    assert [s.name for s in skills.list_skills()] == ["b"]
    assert skills.diagnostics == ()
    notes = skills.report().roots
    assert [(n.root, n.status) for n in notes] == [(locked, "unreadable"), (other, "ok")]
    assert notes[0].message == f"EACCES: Permission denied: {locked}"
    assert warn_messages == []


def test_root_that_is_a_symlink_is_followed_even_without_follow_symlinks(tmp_path: Path) -> None:
    store = tmp_path / "store"
    make_skill(store, "deploy")
    link = symlink(tmp_path / "ws" / "skills", store)
    for follow in (True, False):
        skills = build(link, follow_symlinks=follow)
        [info] = skills.list_skills()
        assert info.name == "deploy"
        assert info.root == link
        assert info.dir == link / "deploy"
        assert info.path == link / "deploy" / "SKILL.md"
        assert skills.report().roots == (RootNote(link, "ok"),)


def test_dangling_root_link_is_missing(tmp_path: Path) -> None:
    link = symlink(tmp_path / "skills", tmp_path / "gone")
    skills = build(link)
    assert skills.report().roots == (RootNote(link, "missing", "root does not exist"),)


def test_root_link_to_file_is_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    link = symlink(tmp_path / "skills", tmp_path / "f")
    skills = build(link)
    assert skills.report().roots[0].status == "not_a_directory"


# -- candidates and report entries -----------------------------------------------------------


def test_only_dirs_and_symlinks_get_report_entries(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "real")
    (root / "README.md").write_text("readme")
    (root / "SKILL.md").write_text("---\nname: x\ndescription: y\n---\n")
    os.mkfifo(root / "pipe")
    (root / "empty").mkdir()
    make_skill(tmp_path / "out", "linked")
    symlink(root / "link", tmp_path / "out" / "linked")
    skills = build(root)
    assert entries(skills) == [
        ("empty", "skipped", None, "no SKILL.md in directory"),
        ("link", "loaded", "linked", ""),
        ("real", "loaded", "real", ""),
    ]
    assert [e.path for e in skills.report().entries] == [
        root / "empty",
        root / "link",
        root / "real",
    ]
    assert {e.root for e in skills.report().entries} == {root}


def test_dangling_child_link_is_skipped_with_diagnostic(
    tmp_path: Path, warn_messages: list[str]
) -> None:
    root = tmp_path / "skills"
    symlink(root / "gone", tmp_path / "nowhere")
    symlink(root / "loop", "loop")  # a self-loop dangles too
    skills = build(root)
    assert len(skills) == 0
    assert entries(skills) == [
        ("gone", "skipped", None, "dangling symlink"),
        ("loop", "skipped", None, "dangling symlink"),
    ]
    assert [(d.kind, d.path, d.severity) for d in skills.diagnostics] == [
        (DiagnosticKind.DANGLING_SYMLINK, root / "gone", "warning"),
        (DiagnosticKind.DANGLING_SYMLINK, root / "loop", "warning"),
    ]
    assert warn_messages == [
        f"skipping dangling symlink {root / 'gone'}",
        f"skipping dangling symlink {root / 'loop'}",
    ]


def test_child_link_to_file_is_skipped_without_diagnostic(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    target = make_skill(tmp_path / "out", "lint") / "SKILL.md"
    symlink(root / "file-link", target)
    skills = build(root)
    assert len(skills) == 0
    assert skills.diagnostics == ()
    assert entries(skills) == [
        ("file-link", "skipped", None, "symlink to a file, not a directory"),
    ]


def test_follow_symlinks_false_skips_linked_children_with_reason(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(tmp_path / "out", "lint")
    symlink(root / "lint", tmp_path / "out" / "lint")
    symlink(root / "dangling", tmp_path / "none")
    make_skill(root, "plain")
    skills = build(root, follow_symlinks=False)
    assert [s.name for s in skills.list_skills()] == ["plain"]
    reason = "symlink not followed (follow_symlinks=False)"
    assert entries(skills) == [
        ("dangling", "skipped", None, reason),
        ("lint", "skipped", None, reason),
        ("plain", "loaded", "plain", ""),
    ]
    assert skills.diagnostics == ()


def test_candidates_are_processed_in_casefold_order(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    names = ["beta", "Alpha", "alpha", "ALPHA", "_x", "Zed", "a-b", "a.b"]
    for n in names:
        make_skill(root, n, frontmatter={"name": f"s{names.index(n)}", "description": "d"})
    skills = build(root)
    expected = sorted(names, key=lambda n: (n.casefold(), n))
    assert expected == ["_x", "a-b", "a.b", "ALPHA", "Alpha", "alpha", "beta", "Zed"]
    assert [e.path.name for e in skills.report().entries] == expected
    root_entry = SkillRoot(root)
    note, cands = scan_root(root_entry, follow_symlinks=True)
    assert note.status == "ok"
    assert [c.entry_name for c in cands] == expected
    assert sort_key("Zed") == ("zed", "Zed")


def test_scan_order_decides_duplicates(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "b", frontmatter={"name": "same", "description": "from b"})
    make_skill(root, "A", frontmatter={"name": "same", "description": "from A"})
    skills = build(root)
    [info] = skills.list_skills()
    assert info.dir == root / "A"


# -- the manifest ----------------------------------------------------------------------------


def test_exact_manifest_wins_over_case_variants(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "fmt", frontmatter={"name": "fmt", "description": "exact"})
    (d / "skill.md").write_text("---\nname: fmt\ndescription: lower\n---\n")
    (d / "Skill.md").write_text("---\nname: fmt\ndescription: title\n---\n")
    skills = build(root)
    [info] = skills.list_skills()
    assert info.description == "exact"
    assert info.path == d / "SKILL.md"
    assert "manifest_case" not in kinds(skills)


def test_case_variant_manifest_used_with_diagnostic(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    lower = make_skill(root, "lower", manifest="skill.md")
    upper = make_skill(root, "upper", manifest="SKILL.MD")
    skills = build(root)
    infos = {i.name: i for i in skills.list_skills()}
    assert infos["lower"].path == lower / "skill.md"
    assert infos["upper"].path == upper / "SKILL.MD"
    assert [(d.kind, d.path) for d in skills.diagnostics] == [
        (DiagnosticKind.MANIFEST_CASE, lower / "skill.md"),
        (DiagnosticKind.MANIFEST_CASE, upper / "SKILL.MD"),
    ]


def test_first_variant_in_sort_order_wins(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = root / "fmt"
    d.mkdir(parents=True)
    for name in ("skill.md", "Skill.md", "SKILL.MD", "skill.MD"):
        (d / name).write_text(f"---\nname: fmt\ndescription: {name}\n---\n")
    skills = build(root)
    [info] = skills.list_skills()
    assert info.description == "SKILL.MD"
    assert info.path == d / "SKILL.MD"


def test_manifest_found_by_listing_not_by_lookup(tmp_path: Path) -> None:
    """On a case-insensitive filesystem ``exists("SKILL.md")`` would be true for ``skill.md``."""
    root = tmp_path / "skills"
    make_skill(root, "x", manifest="Skill.md")
    skills = build(root)
    [info] = skills.list_skills()
    assert info.path.name == "Skill.md"
    assert os.listdir(info.dir) == ["Skill.md"]


def test_manifest_must_be_a_regular_file(tmp_path: Path) -> None:
    """A FIFO, a socket or a device as the manifest (or a link to one) is skipped with a
    not_a_file diagnostic and never opened for reading (SPEC §20.4, §20.10)."""
    import socket

    root = tmp_path / "skills"
    (root / "dir-manifest" / "SKILL.md").mkdir(parents=True)
    fifo_dir = root / "fifo-manifest"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "SKILL.md")
    sock_dir = root / "socket-manifest"
    sock_dir.mkdir()
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(sock_dir / "SKILL.md"))
    except OSError:  # pragma: no cover - a path too long for AF_UNIX
        pytest.skip("cannot bind a UNIX socket here")
    dev_dir = root / "device-manifest"
    dev_dir.mkdir()
    symlink(dev_dir / "SKILL.md", "/dev/null")
    inner_dir = root / "fifo-link"
    inner_dir.mkdir()
    os.mkfifo(inner_dir / "pipe")
    symlink(inner_dir / "SKILL.md", "pipe")
    try:
        skills = build(root)
    finally:
        sock.close()
    reason = "manifest SKILL.md is not a regular file"
    assert entries(skills) == [
        ("device-manifest", "skipped", None, reason),
        ("dir-manifest", "skipped", None, "no SKILL.md in directory"),
        ("fifo-link", "skipped", None, reason),
        ("fifo-manifest", "skipped", None, reason),
        ("socket-manifest", "skipped", None, reason),
    ]
    assert [(d.kind, d.path) for d in skills.diagnostics] == [
        (DiagnosticKind.NOT_A_FILE, root / name / "SKILL.md")
        for name in ("device-manifest", "fifo-link", "fifo-manifest", "socket-manifest")
    ]


def test_manifest_symlink_followed_only_with_follow_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    target = make_skill(tmp_path / "dotfiles", "usage") / "SKILL.md"
    d = root / "usage"
    symlink(d / "SKILL.md", target)
    skills = build(root)
    [info] = skills.list_skills()
    assert info.path == d / "SKILL.md"
    skills = build(root, follow_symlinks=False)
    assert len(skills) == 0
    assert entries(skills) == [
        (
            "usage",
            "skipped",
            None,
            "manifest SKILL.md is a symlink, not followed (follow_symlinks=False)",
        )
    ]


def test_dangling_manifest_link_falls_back_to_variant(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "x", manifest="skill.md")
    symlink(d / "SKILL.md", tmp_path / "missing.md")
    skills = build(root)
    [info] = skills.list_skills()
    assert info.path == d / "skill.md"
    assert [(d_.kind, d_.path) for d_ in skills.diagnostics] == [
        (DiagnosticKind.DANGLING_SYMLINK, d / "SKILL.md"),
        (DiagnosticKind.MANIFEST_CASE, d / "skill.md"),
    ]


def test_skill_info_paths_are_exact(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    real = make_skill(root, "real")
    make_skill(tmp_path / "store", "linked", manifest="skill.md")
    symlink(root / "linked", tmp_path / "store" / "linked")
    skills = build(root)
    infos = {i.name: i for i in skills.list_skills()}
    assert (infos["real"].root, infos["real"].dir, infos["real"].path) == (
        root,
        real,
        real / "SKILL.md",
    )
    assert (infos["linked"].root, infos["linked"].dir, infos["linked"].path) == (
        root,
        root / "linked",
        root / "linked" / "skill.md",
    )


def test_report_entry_shape(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "one")
    [entry] = build(root).report().entries
    assert entry == ReportEntry(root, root / "one", EntryStatus.LOADED, "one", "", None)
    assert entry.status == "loaded"


@needs_proc
def test_unreadable_manifest_is_invalid_with_io_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "locked")
    make_skill(root, "ok")
    _refuse_open(monkeypatch, d / "SKILL.md")
    skills = build(root)
    assert [s.name for s in skills.list_skills()] == ["ok"]
    msg = f"EACCES: Permission denied: {d / 'SKILL.md'}"
    assert entries(skills) == [("locked", "invalid", None, msg), ("ok", "loaded", "ok", "")]
    assert [(x.kind, x.path) for x in skills.diagnostics] == [
        (DiagnosticKind.IO_ERROR, d / "SKILL.md")
    ]
    with pytest.raises(agent_skills.SkillError) as info:
        build(root, strict=True)
    assert info.value.code == "io_error"
    assert info.value.fields == {"path": str(d / "SKILL.md")}


def test_scan_root_never_raises_on_odd_root(tmp_path: Path) -> None:
    note, cands = scan_root(SkillRoot(Path("/nonexistent\x00x")), follow_symlinks=True)
    assert (note.status, cands) == ("unreadable", [])


def test_dangling_manifest_link_alone_says_why(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = root / "x"
    symlink(d / "SKILL.md", tmp_path / "missing.md")
    skills = build(root)
    assert entries(skills) == [("x", "skipped", None, "manifest SKILL.md is a dangling symlink")]
    assert [(x.kind, x.path) for x in skills.diagnostics] == [
        (DiagnosticKind.DANGLING_SYMLINK, d / "SKILL.md")
    ]


@needs_proc
def test_unreadable_skill_directory_is_skipped_with_io_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "skills"
    locked = make_skill(root, "locked")
    make_skill(root, "ok")
    _refuse_open(monkeypatch, locked)
    for strict in (False, True):
        skills = build(root, strict=strict)
        assert [s.name for s in skills.list_skills()] == ["ok"]
        msg = f"EACCES: Permission denied: {locked}"
        assert entries(skills) == [
            ("locked", "skipped", None, f"directory unreadable: {msg}"),
            ("ok", "loaded", "ok", ""),
        ]
        assert [(x.kind, x.path, x.message) for x in skills.diagnostics] == [
            (DiagnosticKind.IO_ERROR, locked, f"skipping {locked}: {msg}")
        ]


# -- find_manifest: the one manifest rule (discovery, validate and the CLI call it) ---------


def test_find_manifest_exact_name_wins_over_variants(tmp_path: Path) -> None:
    d = make_skill(tmp_path, "fmt", manifest="skill.md")
    (d / "SKILL.md").write_text("---\nname: fmt\ndescription: exact\n---\n")
    lookup = find_manifest(d, follow_symlinks=True)
    assert (lookup.name, lookup.path, lookup.skip_reason, lookup.diagnostics) == (
        "SKILL.md",
        os.path.join(str(d), "SKILL.md"),
        None,
        (),
    )


def test_find_manifest_variant_gives_manifest_case(tmp_path: Path) -> None:
    d = make_skill(tmp_path, "fmt", manifest="Skill.md")
    lookup = find_manifest(str(d), follow_symlinks=False)
    assert lookup.name == "Skill.md"
    assert [(x.kind, x.path) for x in lookup.diagnostics] == [
        (DiagnosticKind.MANIFEST_CASE, d / "Skill.md")
    ]


def test_find_manifest_symlinks_follow_or_not(tmp_path: Path) -> None:
    target = make_skill(tmp_path / "store", "usage") / "SKILL.md"
    d = tmp_path / "skills" / "usage"
    symlink(d / "SKILL.md", target)
    assert find_manifest(d, follow_symlinks=True).name == "SKILL.md"
    off = find_manifest(d, follow_symlinks=False)
    assert (off.name, off.skip_reason) == (
        None,
        "manifest SKILL.md is a symlink, not followed (follow_symlinks=False)",
    )
    os.unlink(target)
    gone = find_manifest(d, follow_symlinks=True)
    assert (gone.name, gone.skip_reason) == (None, "manifest SKILL.md is a dangling symlink")
    assert [x.kind for x in gone.diagnostics] == [DiagnosticKind.DANGLING_SYMLINK]


def test_find_manifest_missing_directory_and_nul_never_raise(tmp_path: Path) -> None:
    missing = find_manifest(tmp_path / "nope", follow_symlinks=True)
    assert missing.name is None
    assert missing.skip_reason is not None
    assert missing.skip_reason.startswith("directory unreadable: No such file")
    assert [x.kind for x in missing.diagnostics] == [DiagnosticKind.IO_ERROR]
    nul = find_manifest("bad\0dir", follow_symlinks=True)
    assert nul.name is None and [x.kind for x in nul.diagnostics] == [DiagnosticKind.IO_ERROR]
    (tmp_path / "empty").mkdir()
    empty = find_manifest(tmp_path / "empty", follow_symlinks=True)
    assert (empty.name, empty.skip_reason, empty.diagnostics) == (
        None,
        "no SKILL.md in directory",
        (),
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [("SKILL.md", True), ("skill.MD", True), ("SKILL.md.bak", False), ("SKILL", False)],
)
def test_is_manifest_name(name: str, expected: bool) -> None:
    assert is_manifest_name(name) is expected


@pytest.mark.parametrize(
    ("names", "chosen"),
    [
        ([], None),
        (["README.md"], None),
        (["skill.md", "SKILL.md", "Skill.md"], "SKILL.md"),
        (["skill.md", "Skill.md"], "Skill.md"),
        (["skill.MD", "skill.md"], "skill.MD"),
    ],
)
def test_choose_manifest_is_the_one_choice_of_variant(names: list[str], chosen: str | None) -> None:
    from agent_skills._model import choose_manifest

    assert choose_manifest(names) == chosen
    assert choose_manifest(reversed(names)) == chosen


def test_skills_share_one_manifest_name_string(tmp_path: Path) -> None:
    """Every skill's ``path`` ends in the module's one ``SKILL.md`` string, not a copy from its
    directory listing (about 60 B per skill, SPEC §26 memory); a case variant keeps its own."""
    from agent_skills import create_agent_skills
    from agent_skills._model import MANIFEST_NAME

    for name in ("alpha", "beta"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n")
    (tmp_path / "gamma").mkdir()
    (tmp_path / "gamma" / "skill.md").write_text("---\nname: gamma\ndescription: d\n---\n")
    infos = {i.name: i for i in create_agent_skills([tmp_path]).list_skills()}
    assert infos["alpha"].path.name is MANIFEST_NAME
    assert infos["beta"].path.name is MANIFEST_NAME
    assert infos["gamma"].path.name == "skill.md"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("kind", ["file", "link_inside", "dangling", "directory", "fifo"])
@pytest.mark.parametrize("follow", [True, False])
def test_find_manifest_on_a_lone_exact_manifest_of_each_kind(
    tmp_path: Path, kind: str, follow: bool
) -> None:
    """The one entry ``SKILL.md``, of each file kind: only a regular file is taken at once; the
    others get what the general rules give them (SPEC §4, §20.3-4)."""
    skill = tmp_path / "s"
    skill.mkdir()
    (skill / "notes.md").write_text("---\nname: s\ndescription: d\n---\n")
    manifest = skill / "SKILL.md"
    if kind == "file":
        manifest.write_text("---\nname: s\ndescription: d\n---\n")
    elif kind == "link_inside":
        manifest.symlink_to("notes.md")
    elif kind == "dangling":
        manifest.symlink_to("missing.md")
    elif kind == "directory":
        manifest.mkdir()
    else:
        os.mkfifo(manifest)
    found = find_manifest(skill, follow_symlinks=follow)
    got = (found.name, found.skip_reason, [d.kind.value for d in found.diagnostics], found.linked)
    expected = {
        "file": ("SKILL.md", None, [], False),
        "link_inside": ("SKILL.md", None, [], True)
        if follow
        else (
            None,
            "manifest SKILL.md is a symlink, not followed (follow_symlinks=False)",
            [],
            True,
        ),
        "dangling": (None, "manifest SKILL.md is a dangling symlink", ["dangling_symlink"], True)
        if follow
        else (
            None,
            "manifest SKILL.md is a symlink, not followed (follow_symlinks=False)",
            [],
            True,
        ),
        "directory": (None, "no SKILL.md in directory", [], False),
        "fifo": (None, "manifest SKILL.md is not a regular file", ["not_a_file"], False),
    }[kind]
    assert got == expected
    if found.name is not None:
        assert found.path == os.path.join(skill, "SKILL.md")
        for given in (f"{skill}/", f"{skill}//"):
            assert find_manifest(given, follow_symlinks=follow).path == os.path.join(
                given, "SKILL.md"
            )


# -- an install's work is no skill (SPEC §4, §25.4) ----------------------------------------


@pytest.mark.parametrize("max_depth", [1, 2])
@pytest.mark.parametrize("index", ["none", "cold", "warm"])
def test_an_installs_staged_and_set_aside_copies_are_skipped_not_skills(
    tmp_path: Path, max_depth: int, index: str
) -> None:
    # While add, update or remove runs, and after a kill until the next one, a root holds the
    # staging directory, each replaced skill set aside under a name of its own, and the
    # transaction's journal. Neither is a second copy of the skill: the set-aside one (sorting
    # before it) used to shadow the installed skill with a duplicate_skill and a name_mismatch
    # warning. A folder named like a set-aside copy that no journal names is no install's work
    # (a repository brought it): it stays a candidate, seen by list and verify.
    root = tmp_path / "skills"
    make_skill(root, "hello", body="new")
    fm = {"name": "hello", "description": "d"}
    make_skill(root, ".agent-skills-old-0123456789abcdef-hello", frontmatter=fm, body="old")
    (root / ".agent-skills-txn-0123456789abcdef.json").write_text("{}")
    make_skill(root / ".agent-skills-tmp-0123456789abcdef", "hello", body="staged")
    make_skill(root, ".agent-skills-tmp-fedcba9876543210")  # (a manifest at its top too)
    symlink(
        root / ".agent-skills-old-fedcba9876543210-hi",
        root / ".agent-skills-old-0123456789abcdef-hello",
    )
    (root / ".agent-skills-done-fedcba9876543210.json").write_text("{}")
    # Named like install work, no journal naming it: an ordinary entry.
    evil = {"name": "evil", "description": "Brought by a repository."}
    make_skill(root, ".agent-skills-old-aaaaaaaaaaaaaaaa-evil", frontmatter=evil)
    (root / ".agent-skills-txn-aaaaaaaaaaaaaaab.json").write_text("{}")  # (another token's)
    # A journal recovery never reads (no 16-hex token) vouches for nothing: left visible.
    ghost = {"name": "ghost", "description": "Hidden for good if passed over."}
    make_skill(root, ".agent-skills-old-xyz-ghost", frontmatter=ghost)
    (root / ".agent-skills-txn-xyz.json").write_text("{}")
    # Near misses are candidates as before: only the installer's own prefixes are passed over.
    make_skill(root, ".agent-skills-notes", frontmatter={"name": "kept-notes", "description": "d"})
    near = "agent-skills-old-0123456789abcdef-x"
    make_skill(root, near, frontmatter={"name": near, "description": "d"})
    kw: dict[str, Any] = {"max_depth": max_depth}
    if index != "none":
        kw["index"] = tmp_path / "index.bin"
        if index == "warm":
            build(root, **kw)
    skills = build(root, **kw)
    assert {s.name: s.dir.name for s in skills.list_skills()} == {
        "evil": ".agent-skills-old-aaaaaaaaaaaaaaaa-evil",
        "ghost": ".agent-skills-old-xyz-ghost",
        "hello": "hello",
        "kept-notes": ".agent-skills-notes",
        near: near,
    }
    assert skills.load_skill("hello").body.strip() == "new"  # type: ignore[union-attr]
    work = (
        "the work of an add, update or remove, running or left unfinished "
        "(the next one finishes or undoes it)"
    )
    assert [e for e in entries(skills) if e[1] != "loaded"] == [
        (".agent-skills-old-0123456789abcdef-hello", "skipped", None, work),
        (".agent-skills-old-fedcba9876543210-hi", "skipped", None, work),
        (".agent-skills-tmp-0123456789abcdef", "skipped", None, work),
        (".agent-skills-tmp-fedcba9876543210", "skipped", None, work),
    ]
    # No warning about the install's work; the entries that are none are named as ever.
    assert sorted((d.kind.value, d.path.parent.name) for d in skills.diagnostics) == [
        ("name_mismatch", ".agent-skills-notes"),
        ("name_mismatch", ".agent-skills-old-aaaaaaaaaaaaaaaa-evil"),
        ("name_mismatch", ".agent-skills-old-xyz-ghost"),
    ]
