"""Example tests for every statement of SPEC §10 (confinement), with exact codes and fields, and for
the input hardening of every public function that takes a path or a name (SPEC §2, §10, §11)."""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
from pathlib import Path
from typing import Any

import pytest

from agent_skills import (
    AgentSkills,
    SkillError,
    StartupError,
    _confine,
    _fs,
    create_agent_skills,
    resolve_config,
    resolve_resource_path,
)
from conftest import code_and_fields as _err
from conftest import make_skill, symlink

SECRET = b"TOP-SECRET"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``skills/s`` with files, hidden files, links of every kind and a FIFO; secrets outside."""
    skills = tmp_path / "skills"
    s = make_skill(
        skills,
        "s",
        files={
            "references/a.md": "A",
            "references/sub/b.md": "B",
            ".env": "HIDDEN",
            "scripts/run.sh": "echo run",
        },
    )
    make_skill(skills, "s-evil", files={"secret.md": SECRET.decode()})
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "secret.txt").write_bytes(SECRET)
    symlink(s / "link_in", "references/a.md")
    symlink(s / "link_dir", "references")
    symlink(s / "link_abs_in", s / "references" / "sub")
    symlink(s / "link_back", "../s/references/a.md")
    symlink(s / "link_out", "../../out/secret.txt")
    symlink(s / "link_abs_out", tmp_path / "out" / "secret.txt")
    symlink(s / "link_sibling", "../s-evil/secret.md")
    symlink(s / "link_parent", "..")
    symlink(s / "link_dangling_in", "missing.md")
    symlink(s / "link_dangling_out", "../../nowhere/x.md")
    symlink(s / "loop_a", "loop_b")
    symlink(s / "loop_b", "loop_a")
    symlink(s / "link_self", "link_self")
    os.mkfifo(s / "fifo")
    return tmp_path


@pytest.fixture
def skills(tree: Path) -> AgentSkills:
    return create_agent_skills([tree / "skills"])


def _all_three(skills: AgentSkills, name: Any, rel: Any) -> list[tuple[str, dict[str, Any]]]:
    """The error of ``resource_path``, ``open_resource`` and ``read_resource`` for one input."""
    return [
        _err(lambda: skills.resource_path(name, rel)),
        _err(lambda: skills.open_resource(name, rel)),
        _err(lambda: skills.read_resource(name, rel)),
    ]


# §10.1: rel must be a non-empty str (or os.PathLike) without NUL.


class _BytesPath:
    def __fspath__(self) -> bytes:
        return b"references/a.md"


class _BrokenPath:
    def __fspath__(self) -> str:
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("rel", "fields"),
    [
        ("", {"rel": ""}),
        ("\x00", {"rel": "\x00"}),
        ("references/a.md\x00.png", {"rel": "references/a.md\x00.png"}),
        ("\ud800", {"rel": "\ud800"}),
        ("references/\udfff.md", {"rel": "references/\udfff.md"}),
        (None, {"type": "NoneType"}),
        (7, {"type": "int"}),
        (b"references/a.md", {"type": "bytes"}),
        (bytearray(b"x"), {"type": "bytearray"}),
        (["references", "a.md"], {"type": "list"}),
        (_BytesPath(), {"type": "bytes"}),
        (_BrokenPath(), {"type": "_BrokenPath"}),
    ],
)
def test_rel_must_be_a_usable_non_empty_string(
    tree: Path, skills: AgentSkills, rel: Any, fields: dict[str, Any]
) -> None:
    s = tree / "skills" / "s"
    assert _err(lambda: resolve_resource_path(s, rel)) == ("invalid_input", fields)
    assert _all_three(skills, "s", rel) == [("invalid_input", fields)] * 3


def test_pathlike_rel_is_accepted(tree: Path, skills: AgentSkills) -> None:
    s = tree / "skills" / "s"
    assert resolve_resource_path(s, Path("references/a.md")) == s / "references" / "a.md"
    assert skills.read_resource("s", Path("references/a.md")) == b"A"


def test_surrogate_escaped_names_are_names(tree: Path, skills: AgentSkills) -> None:
    """An undecodable byte in a file name appears as U+DC80-U+DCFF; such a name is addressable."""
    s = tree / "skills" / "s"
    (s / os.fsdecode(b"raw\xff.md")).write_bytes(b"raw")
    assert resolve_resource_path(s, "raw\udcff.md") == s / "raw\udcff.md"
    assert skills.read_resource("s", "raw\udcff.md") == b"raw"


# §10.2: backslashes separate; absolute forms are invalid_input {rel}.


@pytest.mark.parametrize(
    "rel",
    [
        "/etc/passwd",
        "\\etc\\passwd",
        "C:\\x",
        "C:x",
        "c:/x",
        "Z:",
        "//server/share",
        "\\\\server\\share\\x",
        "/",
        "\\",
    ],
)
def test_absolute_forms_are_invalid_input(tree: Path, skills: AgentSkills, rel: str) -> None:
    s = tree / "skills" / "s"
    assert _err(lambda: resolve_resource_path(s, rel)) == ("invalid_input", {"rel": rel})
    assert _all_three(skills, "s", rel) == [("invalid_input", {"rel": rel})] * 3


def test_backslashes_separate_components(tree: Path, skills: AgentSkills) -> None:
    s = tree / "skills" / "s"
    assert resolve_resource_path(s, "references\\sub\\b.md") == s / "references" / "sub" / "b.md"
    assert skills.read_resource("s", "references\\sub/b.md") == b"B"


# §10.3: the candidate is normalised lexically.


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("references/./a.md", "references/a.md"),
        ("references//a.md", "references/a.md"),
        ("references/sub/../a.md", "references/a.md"),
        ("missing/../references/a.md", "references/a.md"),
        ("link_dir/../references/a.md", "references/a.md"),
        ("references/a.md/", "references/a.md"),
        ("./references/a.md/.", "references/a.md"),
    ],
)
def test_candidate_is_normalised_lexically(
    tree: Path, skills: AgentSkills, rel: str, expected: str
) -> None:
    s = tree / "skills" / "s"
    assert resolve_resource_path(s, rel) == s / expected
    assert skills.resource_path("s", rel) == s / expected
    assert skills.read_resource("s", rel) == (s / expected).read_bytes()


# §10.4: the lexical candidate must lie under skill_dir.


@pytest.mark.parametrize(
    "rel", ["..", "../s-evil/secret.md", "references/../../s-evil/secret.md", "a/b/../../../x"]
)
def test_lexical_escape_is_path_escape(tree: Path, skills: AgentSkills, rel: str) -> None:
    s = tree / "skills" / "s"
    assert _err(lambda: resolve_resource_path(s, rel)) == ("path_escape", {"rel": rel})
    assert _all_three(skills, "s", rel) == [("path_escape", {"name": "s", "rel": rel})] * 3


def test_dotdot_back_into_the_skill_is_fine(tree: Path, skills: AgentSkills) -> None:
    s = tree / "skills" / "s"
    assert resolve_resource_path(s, "../s/references/a.md") == s / "references" / "a.md"
    assert skills.read_resource("s", "../s/references/a.md") == b"A"


# §10.5: real paths compared by components.


@pytest.mark.parametrize(
    "rel",
    [
        "link_out",
        "link_abs_out",
        "link_sibling",
        "link_parent",
        "link_parent/s-evil/secret.md",
        "link_dangling_out",
        "link_dangling_out/deeper.md",
    ],
)
def test_symlinks_leading_outside_are_path_escape(
    tree: Path, skills: AgentSkills, rel: str
) -> None:
    s = tree / "skills" / "s"
    assert _err(lambda: resolve_resource_path(s, rel)) == ("path_escape", {"rel": rel})
    assert _all_three(skills, "s", rel) == [("path_escape", {"name": "s", "rel": rel})] * 3


def test_sibling_with_the_same_prefix_is_outside(tmp_path: Path) -> None:
    foo = make_skill(tmp_path, "foo")
    make_skill(tmp_path, "foo-evil", files={"x.md": "x"})
    symlink(foo / "l", str(tmp_path / "foo-evil" / "x.md"))
    assert _err(lambda: resolve_resource_path(foo, "l")) == ("path_escape", {"rel": "l"})
    assert not _confine.contains(str(tmp_path / "foo"), str(tmp_path / "foo-evil"))
    assert _confine.contains(str(tmp_path / "foo"), str(tmp_path / "foo" / "x"))
    assert _confine.contains(str(tmp_path / "foo"), str(tmp_path / "foo"))
    assert _confine.contains(str(tmp_path / "foo") + "/", str(tmp_path / "foo"))
    assert not _confine.contains(str(tmp_path / "foo"), str(tmp_path / "foo" / ".." / "x"))
    assert not _confine.contains(str(tmp_path / "foo" / "x"), str(tmp_path / "foo"))


@pytest.mark.parametrize(
    ("rel", "content"),
    [
        ("link_in", b"A"),
        ("link_dir/a.md", b"A"),
        ("link_dir/sub/b.md", b"B"),
        ("link_abs_in/b.md", b"B"),
        ("link_back", b"A"),
    ],
)
def test_symlinks_staying_inside_are_followed(
    tree: Path, skills: AgentSkills, rel: str, content: bytes
) -> None:
    s = tree / "skills" / "s"
    assert resolve_resource_path(s, rel) == s / rel
    assert skills.resource_path("s", rel) == s / rel
    assert skills.read_resource("s", rel) == content
    with skills.open_resource("s", rel) as fh:
        assert fh.read() == content


def test_missing_tail_resolves_without_existence_check(tree: Path) -> None:
    s = tree / "skills" / "s"
    assert resolve_resource_path(s, "missing/x.md") == s / "missing" / "x.md"
    assert resolve_resource_path(s, "link_dir/missing.md") == s / "link_dir" / "missing.md"
    assert resolve_resource_path(s, "link_dangling_in") == s / "link_dangling_in"
    assert resolve_resource_path(s, "x" * 300) == s / ("x" * 300)


# §10.6: the result is the lexical absolute path under skill_dir as given.


def test_result_is_under_skill_dir_as_given(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_skill(tree / "store", "real-s", files={"references/a.md": "A"})
    link = symlink(tree / "linked" / "s", store)
    assert resolve_resource_path(link, "references/a.md") == link / "references" / "a.md"
    monkeypatch.chdir(tree)
    assert resolve_resource_path("linked/s", "references/a.md") == link / "references" / "a.md"


def test_linked_skill_is_confined_to_its_real_directory(tmp_path: Path) -> None:
    """With ``skills/s`` a link into a store, ``..`` in a link target climbs from the store."""
    store = make_skill(tmp_path / "store", "s", files={"references/a.md": "A"})
    make_skill(tmp_path / "store", "s-x", files={"secret.md": "store secret"})
    make_skill(tmp_path / "skills", "s-x", files={"secret.md": "skills secret"})
    symlink(tmp_path / "skills" / "s", store)
    symlink(store / "up", "../s-x/secret.md")
    symlink(store / "via_link_path", str(tmp_path / "skills" / "s" / "references" / "a.md"))
    skills = create_agent_skills([tmp_path / "skills"])
    assert _all_three(skills, "s", "up") == [("path_escape", {"name": "s", "rel": "up"})] * 3
    assert skills.read_resource("s", "via_link_path") == b"A"
    assert skills.read_resource("s", "references/a.md") == b"A"
    assert skills.resource_path("s", "references/a.md") == (
        tmp_path / "skills" / "s" / "references" / "a.md"
    )


@pytest.mark.parametrize(
    ("skill_dir", "code", "fields"),
    [
        (None, "invalid_input", {"type": "NoneType"}),
        (3, "invalid_input", {"type": "int"}),
        (b"/tmp", "invalid_input", {"type": "bytes"}),
        ("", "invalid_input", {"type": "str"}),
        ("/tmp/s\x00", "invalid_input", {"skill_dir": "/tmp/s\x00"}),
        ("/tmp/\ud800", "invalid_input", {"skill_dir": "/tmp/\ud800"}),
    ],
)
def test_resolver_rejects_unusable_skill_dirs(
    skill_dir: Any, code: str, fields: dict[str, Any]
) -> None:
    assert _err(lambda: resolve_resource_path(skill_dir, "x")) == (code, fields)


# resource_path: unknown skill first, then the resolver, then reachability and type.


def test_unknown_skill_is_checked_first(skills: AgentSkills) -> None:
    for rel in ("references/a.md", "", "../x", None):
        expected = ("not_found", {"name": "nope", "suggestions": []})
        assert _all_three(skills, "nope", rel) == [expected] * 3


@pytest.mark.parametrize(
    "rel",
    [
        "missing.md",
        "references/missing.md",
        "missing/x.md",
        "references/a.md/x",  # ENOTDIR
        "link_dangling_in",
        "loop_a",  # ELOOP
        "link_self",
        "loop_a/x",
        "x" * 300,  # ENAMETOOLONG
        "/".join(["y" * 250] * 20),  # longer than PATH_MAX
    ],
)
def test_unreachable_targets_are_not_found(skills: AgentSkills, rel: str) -> None:
    assert _all_three(skills, "s", rel) == [("not_found", {"name": "s", "rel": rel})] * 3


@pytest.mark.parametrize("rel", [".", "./", "references", "references/sub/", "link_dir", "fifo"])
def test_directories_and_special_files_are_not_a_file(skills: AgentSkills, rel: str) -> None:
    # The FIFO has no writer: opening it for reading would block, so it must never be opened.
    assert _all_three(skills, "s", rel) == [("not_a_file", {"name": "s", "rel": rel})] * 3


def test_hidden_files_and_the_manifest_are_served_by_name(tree: Path, skills: AgentSkills) -> None:
    s = tree / "skills" / "s"
    assert skills.resource_path("s", ".env") == s / ".env"
    assert skills.read_resource("s", ".env") == b"HIDDEN"
    assert skills.resource_path("s", "SKILL.md") == s / "SKILL.md"
    assert skills.read_resource("s", "SKILL.md") == (s / "SKILL.md").read_bytes()
    content = skills.load_skill("s")
    assert content is not None
    assert ".env" not in [r.rel for r in content.resources]


def test_follow_symlinks_does_not_change_the_resolver(tree: Path) -> None:
    skills = create_agent_skills([tree / "skills"], follow_symlinks=False)
    s = tree / "skills" / "s"
    assert skills.resource_path("s", "link_in") == s / "link_in"
    assert skills.read_resource("s", "link_in") == b"A"
    assert _err(lambda: skills.read_resource("s", "link_out")) == (
        "path_escape",
        {"name": "s", "rel": "link_out"},
    )


def test_other_os_errors_become_io_error(
    tree: Path, skills: AgentSkills, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = tree / "skills" / "s"
    real_stat, real_open = os.stat, os.open
    monkeypatch.setattr(_fs, "_OPENAT2", [None])  # errors injected into the component walk

    def failing_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path) in (str(s / "references" / "a.md"), "a.md"):
            raise OSError(errno.EIO, "Input/output error")
        return real_stat(path, *args, **kwargs)

    def failing_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == "a.md":
            raise OSError(errno.EACCES, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", failing_stat)
    code, fields = _err(lambda: skills.resource_path("s", "references/a.md"))
    assert (code, fields) == ("io_error", {"path": str(s / "references" / "a.md")})
    code, fields = _err(lambda: skills.read_resource("s", "references/a.md"))
    assert (code, fields) == ("io_error", {"path": str(s / "references" / "a.md")})
    monkeypatch.setattr(os, "stat", real_stat)
    monkeypatch.setattr(os, "open", failing_open)
    assert _err(lambda: skills.read_resource("s", "references/a.md")) == (
        "io_error",
        {"path": str(s / "references" / "a.md")},
    )


def test_read_errors_after_open_become_io_error(
    tree: Path, skills: AgentSkills, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = tree / "skills" / "s"

    def failing_read(fh: Any, size: int, cap: int) -> bytes:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr("agent_skills._core.read_capped", failing_read)
    code, fields = _err(lambda: skills.read_resource("s", "references/a.md"))
    assert (code, fields) == ("io_error", {"path": str(s / "references/a.md")})


# open_resource / read_resource: the descriptor walk.


def _chain(skill: Path, length: int, prefix: str = "c") -> str:
    """``c0 -> c1 -> ... -> c<length-1> -> references/a.md``; return the first link's name."""
    for i in range(length):
        target = f"{prefix}{i + 1}" if i + 1 < length else "references/a.md"
        symlink(skill / f"{prefix}{i}", target)
    return f"{prefix}0"


@pytest.mark.parametrize(("length", "ok"), [(1, True), (40, True), (41, False)])
def test_at_most_40_symlinks_are_followed(tmp_path: Path, length: int, ok: bool) -> None:
    s = make_skill(tmp_path / "skills", "s", files={"references/a.md": "A"})
    rel = _chain(s, length)
    skills = create_agent_skills([tmp_path / "skills"])
    if ok:
        assert skills.resource_path("s", rel) == s / rel
        assert skills.read_resource("s", rel) == b"A"
    else:
        assert _all_three(skills, "s", rel) == [("not_found", {"name": "s", "rel": rel})] * 3


def test_links_of_a_linked_skill_dir_count_towards_the_limit(tmp_path: Path) -> None:
    """The kernel counts the link to the store too: 39 links inside make 40 in all, 40 make 41."""
    store = make_skill(tmp_path / "store", "s", files={"references/a.md": "A"})
    symlink(tmp_path / "skills" / "s", store)
    ok = _chain(store, 39, "c")
    too_many = _chain(store, 40, "d")
    skills = create_agent_skills([tmp_path / "skills"])
    assert skills.resource_path("s", ok) == tmp_path / "skills" / "s" / ok
    assert skills.read_resource("s", ok) == b"A"
    expected = ("not_found", {"name": "s", "rel": too_many})
    assert _all_three(skills, "s", too_many) == [expected] * 3


def test_open_resource_returns_a_readable_binary_file(skills: AgentSkills) -> None:
    with skills.open_resource("s", "scripts/run.sh") as fh:
        assert fh.read() == b"echo run"
        assert fh.mode == "rb"
    assert fh.closed


def test_too_large_carries_sizes(skills: AgentSkills) -> None:
    assert skills.read_resource("s", "scripts/run.sh", max_bytes=8) == b"echo run"
    err = _err(lambda: skills.read_resource("s", "scripts/run.sh", max_bytes=7))
    assert err == (
        "too_large",
        {"name": "s", "rel": "scripts/run.sh", "size": 8, "max_bytes": 7},
    )
    with pytest.raises(SkillError) as info:
        skills.read_resource("s", "link_in", max_bytes=0)
    assert "A" not in str(info.value)
    assert info.value.fields == {"name": "s", "rel": "link_in", "size": 1, "max_bytes": 0}


@pytest.mark.parametrize("max_bytes", [-1, 1.5, "10", True])
def test_bad_max_bytes_is_invalid_input(skills: AgentSkills, max_bytes: Any) -> None:
    assert _err(lambda: skills.read_resource("s", "link_in", max_bytes=max_bytes)) == (
        "invalid_input",
        {"max_bytes": repr(max_bytes)},
    )


def test_no_descriptor_leaks(skills: AgentSkills) -> None:
    fd_dir = Path("/proc/self/fd")
    if not fd_dir.is_dir():
        pytest.skip("needs /proc/self/fd")
    before = len(list(fd_dir.iterdir()))
    for rel in ("references/a.md", "link_dir/sub/b.md", "link_out", "loop_a", "fifo", "missing"):
        for _ in range(20):
            with contextlib.suppress(SkillError):
                skills.read_resource("s", rel)
    assert len(list(fd_dir.iterdir())) == before


# The fallback for platforms without O_NOFOLLOW / dir_fd: open, then compare identities.


@pytest.fixture
def fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fs, "HAS_SAFE_OPEN", False)


@pytest.mark.usefixtures("fallback")
def test_fallback_reads_and_refuses_like_the_walk(tree: Path, skills: AgentSkills) -> None:
    assert skills.read_resource("s", "link_dir/sub/b.md") == b"B"
    assert skills.read_resource("s", "references\\a.md") == b"A"
    for rel, code in [
        ("link_out", "path_escape"),
        ("loop_a", "not_found"),
        ("missing.md", "not_found"),
        ("references", "not_a_file"),
        ("fifo", "not_a_file"),
    ]:
        assert _all_three(skills, "s", rel) == [(code, {"name": "s", "rel": rel})] * 3


@pytest.mark.usefixtures("fallback")
def test_fallback_refuses_a_file_swapped_between_check_and_open(
    tree: Path, skills: AgentSkills, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = tree / "skills" / "s"
    target = s / "references" / "a.md"
    real_open = os.open

    def swapping_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(target) and not target.is_symlink():
            target.unlink()
            target.symlink_to(tree / "out" / "secret.txt")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", swapping_open)
    assert _err(lambda: skills.read_resource("s", "references/a.md")) == (
        "path_escape",
        {"name": "s", "rel": "references/a.md"},
    )


@pytest.mark.parametrize("safe_open", [True, False], ids=["descriptor-walk", "identity-fallback"])
@pytest.mark.parametrize(
    ("target", "code"),
    [("missing/..", "not_found"), ("file.md/..", "not_found"), ("sub/..", "not_a_file")],
)
def test_link_through_dotdot_follows_kernel_rules_on_both_open_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, safe_open: bool, target: str, code: str
) -> None:
    """``c/f -> X/..`` reaches ``c`` only when ``X`` is a directory, as ``stat`` says."""
    make_skill(tmp_path / "skills", "s", files={"c/file.md": "F", "c/sub/x.md": "X"})
    symlink(tmp_path / "skills" / "s" / "c" / "f", target)
    skills = create_agent_skills([tmp_path / "skills"])
    monkeypatch.setattr(_fs, "HAS_SAFE_OPEN", safe_open)
    assert _all_three(skills, "s", "c/f") == [(code, {"name": "s", "rel": "c/f"})] * 3


def test_skill_dir_with_dotdot_after_a_symlink_is_resolved_as_the_kernel_does(
    tmp_path: Path,
) -> None:
    (tmp_path / "real" / "deep").mkdir(parents=True)
    symlink(tmp_path / "link", "real/deep")
    make_skill(tmp_path / "real" / "skills", "s", files={"a.md": "REAL"})
    make_skill(tmp_path / "skills", "s", files={"a.md": "DECOY"})
    given = f"{tmp_path}/link/../skills/s"
    assert resolve_resource_path(given, "a.md") == Path(f"{given}/a.md")
    assert Path(f"{given}/a.md").read_bytes() == b"REAL"
    with _confine.open_confined(given, "a.md") as fh:
        assert fh.read() == b"REAL"


def test_capability_flag_matches_this_platform() -> None:
    assert _fs._has_safe_open() is (os.name == "posix" and hasattr(os, "O_NOFOLLOW"))


# Names: load_skill, resource_path, open_resource, read_resource.


@pytest.mark.parametrize(
    ("name", "type_name"), [(None, "NoneType"), (1, "int"), (b"s", "bytes"), (["s"], "list")]
)
def test_non_string_names_are_invalid_input(skills: AgentSkills, name: Any, type_name: str) -> None:
    expected = ("invalid_input", {"type": type_name})
    assert _err(lambda: skills.load_skill(name)) == expected
    assert _all_three(skills, name, "references/a.md") == [expected] * 3


@pytest.mark.parametrize(
    ("name", "suggestions"),
    [
        ("s\x00", ["s"]),
        ("\ud800", []),
        ("x" * 5000, []),
        ("", []),
        ("S", ["s"]),
        ("s/..", []),
        ("..\\s", []),
    ],
)
def test_odd_string_names_are_simply_unknown(
    skills: AgentSkills, name: str, suggestions: list[str]
) -> None:
    assert skills.load_skill(name) is None
    expected = ("not_found", {"name": name, "suggestions": suggestions})
    assert _all_three(skills, name, "references/a.md") == [expected] * 3


# resolve_config / create_agent_skills: only StartupError.


class _RaisingPath:
    def __fspath__(self) -> str:
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"roots": None}, "roots must be a sequence of roots, got NoneType"),
        ({"roots": 5}, "roots must be a sequence of roots, got int"),
        # A single root is accepted (SPEC §29.6): a bytes one fails as a root path.
        ({"roots": b"skills"}, "root path must be a str or os.PathLike[str], got bytes"),
        ({"roots": [b"skills"]}, "root path must be a str or os.PathLike[str], got bytes"),
        ({"roots": [None]}, "root path must be a str or os.PathLike[str], got NoneType"),
        (
            {"roots": [_RaisingPath()]},
            "root path must be a str or os.PathLike[str], got _RaisingPath",
        ),
        ({"roots": ["x"], "home": b"/h"}, "home must be a str or os.PathLike[str], got bytes"),
        ({"roots": ["x"], "cwd": 3}, "cwd must be a str or os.PathLike[str], got int"),
        (
            {"roots": ["x"], "workspace": b"/tmp"},
            "workspace must be a str or os.PathLike[str], got bytes",
        ),
    ],
)
def test_config_type_errors_are_startup_errors(kwargs: dict[str, Any], message: str) -> None:
    for fn in (resolve_config, create_agent_skills):
        with pytest.raises(StartupError) as info:
            fn(**kwargs)
        assert str(info.value) == message


@pytest.mark.parametrize("workspace", ["ws\x00", "ws\ud800", "w" * 5000, "C:x"])
def test_unusable_workspaces_do_not_exist(tmp_path: Path, workspace: str) -> None:
    with pytest.raises(StartupError) as info:
        resolve_config(["x"], workspace=workspace, cwd=tmp_path)
    assert str(info.value) == f"Workspace does not exist: {tmp_path / workspace}"


@pytest.mark.parametrize(
    ("root", "status"),
    [
        ("skills\x00", "unreadable"),
        ("sk\ud800ills", "unreadable"),
        ("r" * 5000, "unreadable"),
        ("C:\\skills", "missing"),
    ],
)
def test_odd_roots_are_kept_and_scan_as_empty(tmp_path: Path, root: str, status: str) -> None:
    """Roots are never checked (SPEC §2): a root the OS cannot open contributes nothing."""
    config = resolve_config([root], cwd=tmp_path)
    assert [r.path for r in config.roots] == [tmp_path / root]
    skills = create_agent_skills([root], cwd=tmp_path)
    assert skills.list_skills() == []
    assert [(n.root, n.status) for n in skills.report().roots] == [(tmp_path / root, status)]


@pytest.mark.parametrize(
    ("target", "code"),
    [
        ("references/a.md/..", "not_found"),  # ENOTDIR: a file followed by ..
        ("missing/../references/a.md", "not_found"),  # ENOENT before the last component
        ("references/a.md/", "not_found"),  # a trailing slash after a file
        ("references/sub/../a.md", "ok"),
        ("references/../references/a.md", "ok"),
        ("link_dir/../references/a.md", "ok"),  # .. climbs from the link's target
    ],
)
def test_link_targets_resolve_as_the_kernel_does(
    tree: Path, skills: AgentSkills, target: str, code: str
) -> None:
    """A link's target is followed component by component, as ``stat`` follows it."""
    s = tree / "skills" / "s"
    symlink(s / "probe", target)
    if code == "ok":
        assert skills.resource_path("s", "probe") == s / "probe"
        assert skills.read_resource("s", "probe") == b"A"
    else:
        assert _all_three(skills, "s", "probe") == [(code, {"name": "s", "rel": "probe"})] * 3


def test_real_below_agrees_with_realpath_over_every_kind_of_component(tmp_path: Path) -> None:
    """The shortcut behind resource_path canonicalises exactly as os.path.realpath does, except
    that a path meeting the looping link resolves to nothing (``None``, SPEC §30.6) where
    os.path.realpath keeps the link unresolved."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    base = tmp_path / "s"
    (base / "d" / "e").mkdir(parents=True)
    (base / "f.md").write_text("F")
    (tmp_path / "out").mkdir()
    for link, target in [
        ("in", "d"),
        ("up", ".."),
        ("out", str(tmp_path / "out")),
        ("dangle", "nowhere/x"),
        ("loop", "loop"),
        ("file", "f.md"),
    ]:
        symlink(base / link, target)
    names = ["d", "e", "f.md", "in", "up", "out", "dangle", "loop", "file", "missing"]
    real_base = _confine.real_path(str(base))

    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.sampled_from(names), min_size=0, max_size=5))
    def check(parts: list[str]) -> None:
        inner = "/".join(parts)
        whole = f"{real_base}/{inner}" if inner else real_base
        got = _confine._real_below(real_base, inner)
        if got is None:
            assert "loop" in parts  # the one link that cannot be resolved within 40 hops
        else:
            assert got == os.path.realpath(whole)
        if parts[:1] == ["loop"]:
            assert got is None

    check()


# -- the lexical rules, shared with archived skills -------------------------------------------


def test_lexical_rel_is_the_resolver_without_a_directory() -> None:
    from agent_skills._archive import member_rel
    from agent_skills._confine import has_drive, is_absolute_rel, lexical_rel

    assert lexical_rel("a/./b/../c") == ("a/c", "a/./b/../c")
    assert lexical_rel("a\\b") == ("a/b", "a\\b")
    assert member_rel("x/../y.md") == "y.md"
    for absolute in ("/x", "//server/share", "C:x", "c:/x"):
        assert is_absolute_rel(absolute)
    assert not is_absolute_rel("x/C:")
    assert has_drive("C:") and has_drive("x:y") and not has_drive("xy:")
    for rel, code in [
        ("../x", "path_escape"),
        ("a/../../x", "path_escape"),
        ("/etc/passwd", "invalid_input"),
        ("C:\\x", "invalid_input"),
        ("", "invalid_input"),
        ("a\0b", "invalid_input"),
        (3, "invalid_input"),
    ]:
        with pytest.raises(SkillError) as on_disk:
            resolve_resource_path("/s/skill", rel)  # type: ignore[arg-type]
        with pytest.raises(SkillError) as archived:
            member_rel(rel)
        assert on_disk.value.code == archived.value.code == code
        assert on_disk.value.message == archived.value.message
    with pytest.raises(SkillError) as itself:
        member_rel("a/..")
    assert (itself.value.code, itself.value.fields) == ("not_a_file", {"rel": "a/.."})


@pytest.mark.parametrize("store", [False, True], ids=["plain", "store-link"])
@pytest.mark.parametrize(
    "links",
    [
        {"a": "a/.."},  # each hop adds a ``..``: 40 of them must not climb out of the skill
        {"a": "a/../a"},
        {"a": "./a"},
        {"a": "b/..", "b": "a/.."},
        {"a": "b", "b": "c/..", "c": "a/x/.."},
    ],
)
def test_a_symlink_loop_is_unreachable_not_an_escape(
    tmp_path: Path, store: bool, links: dict[str, str]
) -> None:
    """SPEC §10.5, §20.6: a loop leads nowhere, inside or out; reached, it is ``not_found``."""
    root = tmp_path / "skills"
    if store:
        real = make_skill(tmp_path / "store", "s")
        root.mkdir()
        symlink(root / "s", real)
    else:
        real = make_skill(root, "s")
    for name, target in links.items():
        symlink(real / name, target)
    skills = create_agent_skills([root])
    for rel in ("a", "a/x", "a/../a"):
        assert resolve_resource_path(root / "s", rel) == root / "s" / posixpath.normpath(rel)
        for call in (skills.resource_path, skills.read_resource):
            with pytest.raises(SkillError) as caught:
                call("s", rel)
            assert caught.value.code == "not_found", (rel, call)
    assert resolve_resource_path(root / "s", "a/..") == root / "s"
