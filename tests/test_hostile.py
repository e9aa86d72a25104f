"""Hostile input never crashes, hangs or exhausts (SPEC §20.4-§20.8): special files, limits,
long symlink chains, deep trees, names that are not UTF-8, random trees and manifests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent_skills import (
    DiagnosticKind,
    SkillError,
    StartupError,
    create_agent_skills,
    resolve_config,
)
from conftest import code_and_fields as _err
from conftest import make_skill, symlink

posix_only = pytest.mark.skipif(os.name != "posix", reason="needs POSIX special files")


# -- special files (SPEC §20.4) -------------------------------------------------------------------


@posix_only
def test_special_resources_are_not_listed_and_never_block_a_read(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "root", "s", files={"references/a.md": "A"})
    os.mkfifo(skill / "references" / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(skill / "references" / "sock"))
    except OSError:  # pragma: no cover - a path too long for AF_UNIX
        pytest.skip("cannot bind a UNIX socket here")
    symlink(skill / "references" / "tty", "/dev/null")  # a character device, through a link
    symlink(skill / "references" / "pipe-link", "pipe")
    try:
        skills = create_agent_skills([tmp_path / "root"])
        content = skills.load_skill("s")
        assert content is not None
        assert [r.rel for r in content.resources] == ["references/a.md"]
        for rel in ("references/pipe", "references/sock", "references/pipe-link"):
            expected = ("not_a_file", {"name": "s", "rel": rel})
            assert _err(lambda r=rel: skills.read_resource("s", r)) == expected
            assert _err(lambda r=rel: skills.resource_path("s", r)) == expected
        # a link to a device outside the skill is outside, whatever it is
        assert _err(lambda: skills.read_resource("s", "references/tty"))[0] == "path_escape"
    finally:
        sock.close()


@posix_only
def test_manifest_swapped_for_a_fifo_after_listing_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The FIFO appears between the listing and the open: the open does not block and the skill
    is skipped with not_a_file (SPEC §20.4, §20.10)."""
    from agent_skills import _scan

    skill = make_skill(tmp_path / "root", "s")
    real_open = _scan._open_listed

    def swap_then_open(name: str, dir_fd: int) -> int:
        (skill / "SKILL.md").unlink()
        os.mkfifo(skill / "SKILL.md")
        return real_open(name, dir_fd)

    monkeypatch.setattr(_scan, "_open_listed", swap_then_open)
    with _deadline(10):
        skills = create_agent_skills([tmp_path / "root"])
    assert skills.list_skills() == []
    [entry] = skills.report().entries
    assert (entry.status, entry.reason) == ("skipped", "manifest SKILL.md is not a regular file")
    assert [d.kind for d in skills.diagnostics] == [DiagnosticKind.NOT_A_FILE]


@posix_only
@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # a link inside the skill is followed as resource links are (SPEC §10)
        ("references/real.md", ("loaded", None)),
        # a link leading outside after the listing is refused: path_escape, never read
        ("../../outside.md", ("invalid", "resource path escapes the skill directory: SKILL.md")),
        # a dangling link: nothing to read
        ("missing.md", ("invalid", "No such resource: SKILL.md")),
    ],
)
def test_manifest_swapped_for_a_link_after_listing_is_confined(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    target: str,
    expected: tuple[str, str | None],
) -> None:
    """The manifest becomes a symlink between the listing and the open: the plain open refuses
    the link and the confined walk decides (SPEC §20.1, §20.3)."""
    from agent_skills import _scan

    skill = make_skill(tmp_path / "root", "s")
    (skill / "references").mkdir()
    (skill / "references" / "real.md").write_text("---\nname: s\ndescription: inside\n---\n")
    (tmp_path / "outside.md").write_text("---\nname: s\ndescription: outside\n---\n")
    real_open = _scan._open_listed

    def swap_then_open(name: str, dir_fd: int) -> int:
        (skill / "SKILL.md").unlink()
        (skill / "SKILL.md").symlink_to(target)
        return real_open(name, dir_fd)

    monkeypatch.setattr(_scan, "_open_listed", swap_then_open)
    with _deadline(10):
        skills = create_agent_skills([tmp_path / "root"])
    [entry] = skills.report().entries
    status, reason = expected
    assert entry.status == status
    if status == "loaded":
        assert skills.list_skills()[0].description == "inside"
    else:
        assert skills.list_skills() == []
        assert entry.reason == reason
        assert [d.kind for d in skills.diagnostics] == [DiagnosticKind.IO_ERROR]


# -- limits (SPEC §20.5) ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1_048_577, 8 * 2**30])
def test_sparse_or_large_manifest_is_skipped_as_too_large(tmp_path: Path, size: int) -> None:
    skill = make_skill(tmp_path / "root", "big")
    with open(skill / "SKILL.md", "r+b") as fh:
        fh.truncate(size)  # sparse: no disk used, but fstat says `size`
    make_skill(tmp_path / "root", "ok")
    skills = create_agent_skills([tmp_path / "root"])
    assert [s.name for s in skills.list_skills()] == ["ok"]
    big = next(e for e in skills.report().entries if e.path == skill)
    assert big.status == "skipped"
    assert [d.kind for d in skills.diagnostics if d.path == skill / "SKILL.md"] == ["too_large"]
    with pytest.raises(SkillError) as info:
        create_agent_skills([tmp_path / "root"], strict=True)
    assert (info.value.code, info.value.fields) == (
        "too_large",
        {"path": str(skill / "SKILL.md"), "size": size, "max_bytes": 1_048_576},
    )


def test_max_manifest_bytes_is_configurable(tmp_path: Path) -> None:
    make_skill(tmp_path / "root", "s", body="x" * 400)
    assert len(create_agent_skills([tmp_path / "root"], max_manifest_bytes=1000)) == 1
    assert len(create_agent_skills([tmp_path / "root"], max_manifest_bytes=100)) == 0
    config = resolve_config([tmp_path / "root"], max_manifest_bytes=5, max_resource_bytes=7)
    assert (config.max_manifest_bytes, config.max_resource_bytes) == (5, 7)
    assert (resolve_config(["r"]).max_manifest_bytes, resolve_config(["r"]).max_resource_bytes) == (
        1_048_576,
        67_108_864,
    )
    for bad in (0, -1, True, 1.5, "10"):
        with pytest.raises(StartupError):
            resolve_config(["r"], max_manifest_bytes=bad)  # type: ignore[arg-type]
        with pytest.raises(StartupError):
            resolve_config(["r"], max_resource_bytes=bad)  # type: ignore[arg-type]


def test_reads_stop_at_max_resource_bytes(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "root", "s", files={"a.bin": b"12345678"})
    with open(skill / "sparse.bin", "wb") as fh:
        fh.truncate(2**40)  # 1 TiB, sparse
    skills = create_agent_skills([tmp_path / "root"], max_resource_bytes=8)
    assert skills.read_resource("s", "a.bin") == b"12345678"
    assert _err(lambda: skills.read_resource("s", "sparse.bin")) == (
        "too_large",
        {"name": "s", "rel": "sparse.bin", "size": 2**40, "max_bytes": 8},
    )
    # an explicit max_bytes is the cap that applies
    assert _err(lambda: skills.read_resource("s", "a.bin", max_bytes=4))[1]["max_bytes"] == 4
    default = create_agent_skills([tmp_path / "root"])
    assert _err(lambda: default.read_resource("s", "sparse.bin"))[1]["max_bytes"] == 67_108_864


# -- no recursion on input (SPEC §20.6) ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("length", [41, 1100])
def test_long_symlink_chains_end_without_recursion(tmp_path: Path, length: int) -> None:
    skill = make_skill(tmp_path / "root", "s", files={"a.md": "A"})
    previous = "a.md"
    for i in range(length):
        symlink(skill / f"c{i}", previous)
        previous = f"c{i}"
    chain = tmp_path / "chain"
    chain.mkdir()
    target = str(skill)
    for i in range(length):
        symlink(chain / f"d{i}", target)
        target = str(chain / f"d{i}")
    symlink(tmp_path / "root" / "linked", target)  # the skill directory behind the whole chain
    skills = create_agent_skills([tmp_path / "root"])
    assert [s.name for s in skills.list_skills()] == ["s"]  # the chained copy is dangling
    assert _err(lambda: skills.read_resource("s", previous)) == (
        "not_found",
        {"name": "s", "rel": previous},
    )
    content = skills.load_skill("s")
    assert content is not None
    assert "c0" in [r.rel for r in content.resources]  # short enough to follow


def test_directories_deeper_than_64_levels_truncate_the_listing(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "root", "s")
    deep = skill
    for i in range(70):
        deep = deep / f"d{i}"
    deep.mkdir(parents=True)
    (deep / "bottom.md").write_text("x")
    (skill / "d0" / "top.md").write_text("x")
    content = create_agent_skills([tmp_path / "root"]).load_skill("s")
    assert content is not None
    assert [r.rel for r in content.resources] == ["d0/top.md"]
    assert content.resources_truncated
    assert [d.kind for d in content.diagnostics] == ["resources_truncated"]


# -- names that are not UTF-8 (SPEC §20.8) --------------------------------------------------------

BAD = b"caf\xe9-\xff"


@pytest.mark.skipif(sys.platform == "darwin", reason="APFS refuses names that are not UTF-8")
def test_names_that_are_not_utf8_load_and_serve(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    bad_dir = os.fsdecode(BAD)
    skill = make_skill(root, bad_dir, frontmatter={"name": "odd", "description": "Odd."})
    (skill / os.fsdecode(b"r\xe9f.md")).write_text("R")
    nested = skill / os.fsdecode(b"n\xffested")
    nested.mkdir()
    (nested / "x.md").write_text("X")
    make_skill(root, "fine")
    skills = create_agent_skills([root])
    assert [s.name for s in skills.list_skills()] == ["fine", "odd"]
    [odd] = [s for s in skills.list_skills() if s.name == "odd"]
    assert odd.dir == root / bad_dir
    content = skills.load_skill("odd")
    assert content is not None
    rels = [r.rel for r in content.resources]
    assert rels == sorted(rels, key=lambda r: (r.casefold(), r))
    assert set(rels) == {os.fsdecode(b"n\xffested/x.md"), os.fsdecode(b"r\xe9f.md")}
    for rel in rels:
        assert skills.read_resource("odd", rel) in (b"R", b"X")


# -- every call returns, and raises only SkillError (fuzz) -----------------------------------------


@contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging (a FIFO opened for reading blocks forever)."""
    if not hasattr(signal, "SIGALRM"):  # pragma: no cover - not POSIX
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"call did not return within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


_MANIFESTS = [
    b"---\nname: s\ndescription: d\n---\nbody",
    b"---\nname: s\ndescription: a: b #c\n---\n",
    b"---\nname: s\ndescription: d\nm: " + b"[" * 300 + b"]" * 300 + b"\n---\n",
    b"---\nname: s\ndescription: d\nm: &a [*a]\n---\n",
    b"---\nname: \xff\xfe\ndescription: d\n---\n",
    b"---\nname: s\n",
    b"",
    b"\x00\x01\x02",
    b"---\nname: s\ndescription: " + b"x: " * 2000 + b"\n---\n",
]


def _tree_strategy() -> object:
    from hypothesis import strategies as st

    names = st.sampled_from(["SKILL.md", "skill.md", "a", "b", "c.md", ".h", os.fsdecode(b"\xff")])
    kinds = st.sampled_from(["file", "manifest", "dir", "link", "fifo"])
    targets = st.sampled_from(
        ["a", "../a", "../../outside", "/", "b/../a", "missing", "SKILL.md", ".", "..", "c.md/x"]
    )
    entry = st.tuples(
        st.lists(names, min_size=1, max_size=3), kinds, targets, st.binary(max_size=64)
    )
    return st.lists(entry, max_size=14)


def _build(base: Path, entries: list[tuple[list[str], str, str, bytes]]) -> None:
    for parts, kind, target, data in entries:
        path = base.joinpath(*parts)
        if os.path.lexists(path):
            continue  # the first kind given for a name stays (writing to a FIFO would block)
        if any(os.path.islink(base.joinpath(*parts[:i])) for i in range(1, len(parts))):
            continue  # never build through a link: it may lead out of the test's directory
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "file":
                path.write_bytes(data)
            elif kind == "manifest":
                path.write_bytes(_MANIFESTS[len(data) % len(_MANIFESTS)])
            elif kind == "dir":
                path.mkdir(exist_ok=True)
            elif kind == "link":
                os.symlink(target, path)
            elif hasattr(os, "mkfifo"):
                os.mkfifo(path)
        except OSError:
            continue  # a name already taken by another kind: keep what is there


@posix_only
def test_random_trees_raise_only_skill_errors_and_always_return(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Random trees (files, manifests, directories, links anywhere, FIFOs, undecodable names)
    under a root: discovery, listing, loading, reading, resolving, the allowlist and a session
    raise nothing but SkillError and every call returns (SPEC §20)."""
    from hypothesis import HealthCheck, given, settings

    from agent_skills.agent import SkillSession

    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(_tree_strategy())
    def check(entries: list[tuple[list[str], str, str, bytes]]) -> None:
        base = tmp_path_factory.mktemp("fuzz")
        (base / "outside").mkdir()
        (base / "outside" / "canary").write_bytes(b"CANARY")
        root = base / "root"
        _build(root / "s", entries)
        _build(root / "t", entries[::-1])
        with _deadline(20):
            for strict in (False, True):
                try:
                    skills = create_agent_skills([root], strict=strict)
                except SkillError:
                    continue
                session = SkillSession(skills, project_root=base / "root")
                skills.allowed_read_roots()
                for info in skills.list_skills():
                    with contextlib.suppress(SkillError):
                        skills.load_skill(info.name)
                    with contextlib.suppress(SkillError):
                        session.activate(info.name)
                    for rel in ("SKILL.md", "a", "b/a", "../outside/canary", "c.md", "a/../a"):
                        for read in (skills.read_resource, skills.resource_path):
                            try:
                                result = read(info.name, rel)
                            except SkillError:
                                continue
                            assert result != b"CANARY"
                    try:
                        session.check_read(base / "outside" / "canary")
                    except SkillError as err:
                        assert err.code == "access_denied"
                    else:  # pragma: no cover - the failure being guarded against
                        pytest.fail("the canary was approved")

    check()


# -- text arguments that are str subclasses (SPEC §10, §20) -------------------------------------


class _Lying(str):
    """A str whose own methods lie about it: what the library checks and what it hands out
    must both come from its characters."""

    def split(self, *args: object, **kwargs: object) -> list[str]:  # type: ignore[override]
        return ["out"]

    def replace(self, *args: object, **kwargs: object) -> str:  # type: ignore[override]
        return self

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("other")

    def __str__(self) -> str:
        return "out"

    def startswith(self, *args: object, **kwargs: object) -> bool:  # type: ignore[override]
        return False

    def isascii(self) -> bool:
        return True


class _LyingPath:
    def __init__(self, text: str) -> None:
        self.text = text

    def __fspath__(self) -> str:
        return _Lying(self.text)


def test_a_str_subclass_is_taken_by_its_characters_never_by_its_methods(tmp_path: Path) -> None:
    # A rel whose split/replace/__eq__/__str__ lie named "a.txt" to the kernel and "out" (a link
    # to a secret outside) to the path handed out: the path and the bytes now both follow the
    # characters, as for the plain string, through every entry point that takes text.
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET")
    root = tmp_path / "skills"
    make_skill(root, "demo", files={"a.txt": "A", "sub/b.txt": "B"})
    make_skill(root, "other", files={"a.txt": "OTHER"})
    symlink(root / "demo" / "out", secret)
    skills = create_agent_skills([root])
    from agent_skills import resolve_resource_path

    for rel in ("a.txt", "sub/b.txt", "./a.txt", "sub/../a.txt"):
        want = skills.resource_path("demo", rel)
        for given in (_Lying(rel), _LyingPath(rel)):
            assert skills.resource_path("demo", given) == want  # type: ignore[arg-type]
            assert type(skills.resource_path("demo", given).name) is str  # type: ignore[arg-type]
            assert skills.read_resource("demo", given) == want.read_bytes()  # type: ignore[arg-type]
            with skills.open_resource("demo", given) as fh:  # type: ignore[arg-type]
                assert fh.read() == want.read_bytes()
            assert resolve_resource_path(root / "demo", given) == want  # type: ignore[arg-type]
            assert resolve_resource_path(_Lying(str(root / "demo")), given) == want  # type: ignore[arg-type]
    assert _err(lambda: skills.resource_path("demo", "out")) == (
        "path_escape",
        {"name": "demo", "rel": "out"},
    )
    # A name is its characters too: a lying __eq__ and __hash__ pick no other skill.
    assert skills.read_resource(_Lying("demo"), "a.txt") == b"A"  # type: ignore[arg-type]
    assert _err(lambda: skills.resource_path(_Lying("nope"), "a.txt"))[0] == "not_found"  # type: ignore[arg-type]
