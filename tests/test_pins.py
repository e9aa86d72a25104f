"""Pinned skills (SPEC §20.1-§20.3): what discovery found is what is served.

A skill linked into a shared store (``root/s -> store/s``) is pinned at discovery: its real
directory and ``(st_dev, st_ino)``. Whoever can write the store can repoint ``store/s`` later;
every access then raises ``stale_skill`` (or, for lists and approvals, leaves the skill out) and
nothing from the new location is served, listed or approved.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import posixpath
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import AgentSkills, SkillError, create_agent_skills
from agent_skills.agent import SkillSession
from conftest import make_skill, symlink

# Races run for a bounded time.
pytestmark = [pytest.mark.slow]

SECRET = b"CANARY-4f1c9e-never-served"


def _store(tmp_path: Path) -> tuple[AgentSkills, Path, Path, Path]:
    """``root/s -> store/s``, and ``outside/`` holding the canary under the same file names."""
    store = tmp_path / "store"
    real = make_skill(store, "s", files={"references/a.md": "A", "references/deep/b.md": "B"})
    symlink(tmp_path / "root" / "s", real)
    outside = tmp_path / "outside"
    make_skill(outside, "s", files={"references/a.md": SECRET, "references/deep/b.md": SECRET})
    (outside / "s" / "secret.txt").write_bytes(SECRET)
    return create_agent_skills([tmp_path / "root"]), real, outside / "s", tmp_path


def _code(call: Callable[[], object]) -> tuple[str, dict[str, Any]]:
    with pytest.raises(SkillError) as info:
        call()
    assert SECRET.decode() not in str(info.value)
    return info.value.code.value, dict(info.value.fields)


def test_real_dir_is_pinned_at_discovery(tmp_path: Path) -> None:
    skills, real, _, tmp = _store(tmp_path)
    [info] = skills.list_skills()
    assert (info.dir, info.real_dir) == (tmp / "root" / "s", real)
    plain = make_skill(tmp / "plain", "p")
    [p] = create_agent_skills([tmp / "plain"]).list_skills()
    assert p.real_dir == plain and p.real_dir is p.dir  # one Path for an unlinked skill


@pytest.mark.parametrize("how", ["symlink", "rename", "replace"])
def test_repointed_store_entry_is_stale_everywhere(tmp_path: Path, how: str) -> None:
    skills, real, outside, _ = _store(tmp_path)
    session = SkillSession(skills)
    session.activate("s")
    assert skills.read_resource("s", "references/a.md") == b"A"
    shutil.move(real, real.parent / "s.old")
    if how == "symlink":  # the store entry now points at the canary
        symlink(real, outside)
    elif how == "rename":  # another directory renamed into its place
        shutil.copytree(outside, real)
    # "replace": the directory is simply gone
    stale = ("stale_skill", {"name": "s", "dir": str(real)})
    assert _code(lambda: skills.read_resource("s", "references/a.md")) == stale
    assert _code(lambda: skills.open_resource("s", "secret.txt")) == stale
    assert _code(lambda: skills.resource_path("s", "references/a.md")) == stale
    assert _code(lambda: skills.load_skill("s")) == stale
    assert _code(lambda: session.read_resource("s", "references/a.md")) == stale
    assert skills.allowed_read_roots() == []
    assert session.allowed_read_roots() == []
    for path in (real / "references" / "a.md", real / "secret.txt"):
        assert _code(lambda p=path: session.check_read(p))[0] == "access_denied"  # type: ignore[misc]
    # refresh() re-pins: the new location is what discovery finds now
    skills.refresh()
    if how == "replace":
        assert skills.list_skills() == []
    else:
        assert skills.read_resource("s", "secret.txt") == SECRET  # found by a new discovery


def test_a_component_of_the_real_dir_turned_into_a_link_is_stale(tmp_path: Path) -> None:
    skills, real, _, tmp = _store(tmp_path)
    store = tmp / "store"
    os.rename(store, tmp / "store.old")
    symlink(store, tmp / "store.old")  # same directory, reached through a link now
    assert _code(lambda: skills.read_resource("s", "references/a.md")) == (
        "stale_skill",
        {"name": "s", "dir": str(real)},
    )


def test_stale_skill_error_is_json_ready(tmp_path: Path) -> None:
    import json

    skills, real, _, _ = _store(tmp_path)
    shutil.rmtree(real)
    with pytest.raises(SkillError) as info:
        skills.read_resource("s", "references/a.md")
    assert json.loads(json.dumps(info.value.to_dict()))["fields"] == {"name": "s", "dir": str(real)}


# -- races: bounded in time, a canary outside, zero leaks ------------------------------------------

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2() -> Callable[[str, str], None] | None:
    """``renameat2(RENAME_EXCHANGE)`` through ctypes, or None where the C library lacks it."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    libc = ctypes.CDLL(name, use_errno=True)
    func = getattr(libc, "renameat2", None)
    if func is None:
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]

    def exchange(a: str, b: str) -> None:
        if func(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) != 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))

    try:
        probe_a, probe_b = Path(os.environ.get("TMPDIR", "/tmp")) / f"x{os.getpid()}a", None
        probe_a.mkdir(exist_ok=True)
        probe_b = probe_a.with_name(probe_a.name + "b")
        probe_b.mkdir(exist_ok=True)
        exchange(str(probe_a), str(probe_b))
    except OSError:
        return None
    finally:
        for p in (probe_a, probe_b):
            if p is not None:
                shutil.rmtree(p, ignore_errors=True)
    return exchange


EXCHANGE = _renameat2()
RACE_SECONDS = 1.5
COUNTS: dict[str, int] = {"reads": 0, "swaps": 0, "leaks": 0}


def _race(
    tmp_path: Path, reader: Callable[[AgentSkills, SkillSession], object], *, exchange: bool
) -> tuple[int, int, int]:
    """Flip ``store/s`` between the real skill and the canary directory while ``reader`` runs.

    Returns:
        ``(reads, swaps, leaks)``; a leak is any result that holds the canary's bytes or path.
    """
    skills, real, outside, _ = _store(tmp_path)
    session = SkillSession(skills)
    session.activate("s")
    stop = threading.Event()
    swaps = [0]
    decoy = real.with_name("s.decoy")
    os.rename(outside, decoy)  # the canary tree, ready to be swapped into the store entry

    def flipper() -> None:
        while not stop.is_set():
            if exchange:
                assert EXCHANGE is not None
                EXCHANGE(str(real), str(decoy))
            else:  # two renames: the entry is missing for a moment, then the other directory
                os.rename(real, real.with_name("s.tmp"))
                os.rename(decoy, real)
                os.rename(real.with_name("s.tmp"), decoy)
            swaps[0] += 1

    thread = threading.Thread(target=flipper)
    thread.start()
    reads = leaks = 0
    deadline = time.monotonic() + RACE_SECONDS
    try:
        while time.monotonic() < deadline:
            try:
                result = reader(skills, session)
            except SkillError as err:
                assert err.code.value in ("stale_skill", "access_denied", "not_found"), err
                if SECRET.decode() in str(err):
                    leaks += 1
            else:
                if SECRET in repr(result).encode() or "s.decoy" in repr(result):
                    leaks += 1
            reads += 1
    finally:
        stop.set()
        thread.join()
    COUNTS["reads"] += reads
    COUNTS["swaps"] += swaps[0]
    COUNTS["leaks"] += leaks
    return reads, swaps[0], leaks


def _read(skills: AgentSkills, session: SkillSession) -> object:
    return skills.read_resource("s", "references/a.md")


def _session_read(skills: AgentSkills, session: SkillSession) -> object:
    return session.read_resource("s", "references/deep/b.md")


def _check(skills: AgentSkills, session: SkillSession) -> object:
    [info] = skills.list_skills()
    assert info.real_dir is not None
    path = session.check_read(info.real_dir / "references" / "a.md")
    return path, session.allowed_read_roots(), skills.allowed_read_roots()


def _load(skills: AgentSkills, session: SkillSession) -> object:
    content = skills.load_skill("s")
    assert content is not None
    return [(r.rel, r.size) for r in content.resources] + [
        skills.read_resource("s", r.rel) for r in content.resources
    ]


READERS = {"read_resource": _read, "session": _session_read, "check_read": _check, "load": _load}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize(
    "exchange",
    [
        pytest.param(
            True,
            marks=pytest.mark.skipif(EXCHANGE is None, reason="renameat2 is not available"),
            id="renameat2",
        ),
        pytest.param(False, id="rename"),
    ],
)
def test_store_entry_flipped_during_access_never_leaks(
    tmp_path: Path, reader: str, exchange: bool
) -> None:
    reads, swaps, leaks = _race(tmp_path, READERS[reader], exchange=exchange)
    print(f"[race {reader} exchange={exchange}] reads={reads} swaps={swaps} leaks={leaks}")
    assert reads > 0 and swaps > 0
    assert leaks == 0


def test_directory_swapped_for_a_link_during_enumeration_never_lists_through(
    tmp_path: Path,
) -> None:
    """A directory of the skill flips between a real directory and a link to the canary while
    the listing runs: nothing under the canary is ever listed (SPEC §20.2)."""
    skill = make_skill(tmp_path / "root", "s", files={"references/a.md": "A"})
    outside = tmp_path / "outside"
    outside.mkdir()
    for i in range(20):
        (outside / f"leak{i}.md").write_bytes(SECRET)
    skills = create_agent_skills([tmp_path / "root"])
    refs = skill / "references"
    parked = tmp_path / "parked"
    stop = threading.Event()
    swaps = [0]

    def flipper() -> None:
        while not stop.is_set():
            os.rename(refs, parked)
            refs.symlink_to(outside)
            refs.unlink()
            os.rename(parked, refs)
            swaps[0] += 1

    thread = threading.Thread(target=flipper)
    thread.start()
    reads = leaks = 0
    deadline = time.monotonic() + RACE_SECONDS
    try:
        while time.monotonic() < deadline:
            content = skills.load_skill("s")
            assert content is not None
            if any(r.rel.startswith("references/leak") for r in content.resources):
                leaks += 1
            reads += 1
    finally:
        stop.set()
        thread.join()
    COUNTS["reads"] += reads
    COUNTS["swaps"] += swaps[0]
    COUNTS["leaks"] += leaks
    print(f"[race enumeration] reads={reads} swaps={swaps[0]} leaks={leaks}")
    assert reads > 0 and swaps[0] > 0
    assert leaks == 0


_COMPONENT = st.text(
    alphabet=st.characters(blacklist_characters="/\0", codec="utf-8"), min_size=1, max_size=8
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.sampled_from(["", "/", "//", "/a/", "/a//"]),
        st.lists(_COMPONENT, max_size=4).map(lambda parts: "/" + "/".join(parts)),
    ),
    _COMPONENT,
)
def test_a_pins_real_dir_is_its_parent_joined_with_its_name(base: str, name: str) -> None:
    from agent_skills._confine import Pin

    assert Pin(base, 1, 2, name=name).real_dir == posixpath.join(base, name)
    assert Pin(base, 1, 2).real_dir == base
