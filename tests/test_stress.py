"""Threaded stress of ``refresh()`` against concurrent readers (SPEC §12).

A writer thread flips the root between two states (skills ``{alpha, beta}`` and ``{alpha, gamma}``)
and refreshes after each flip, while reader threads list, load and read. Every reader must see one
whole snapshot: the set of names is exactly one of the two sets, ``len`` agrees with the list it
came with, and a loaded skill is consistent with the listing it came from. Iterations are bounded;
there are no timing assertions.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from agent_skills import SkillError, create_agent_skills
from conftest import make_skill

# Races and large trees.
pytestmark = [pytest.mark.slow]

OLD = frozenset({"alpha", "beta"})
NEW = frozenset({"alpha", "gamma"})
FLIPS = 60
READS_PER_THREAD = 400
READERS = 4


def _state(root: Path, names: frozenset[str]) -> None:
    # A skill appears whole: it is built in a sibling folder and renamed into the root, so a reader
    # never meets a half-written file (which would be a fault of this writer, not of the library).
    staging = root.parent / "staging"
    for gone in (OLD | NEW) - names:
        shutil.rmtree(root / gone, ignore_errors=True)
    present = {p.name for p in root.iterdir()} if root.is_dir() else set()
    root.mkdir(parents=True, exist_ok=True)
    for name in names - present:
        shutil.rmtree(staging, ignore_errors=True)
        make_skill(staging, name, files={"references/r.md": f"resource of {name}"})
        (staging / name).rename(root / name)


def test_readers_always_see_a_whole_snapshot(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _state(root, OLD)
    skills = create_agent_skills([root])
    problems: list[str] = []
    done = threading.Event()

    def writer() -> None:
        try:
            for i in range(FLIPS):
                _state(root, NEW if i % 2 == 0 else OLD)
                skills.refresh()
        finally:
            done.set()

    def reader() -> None:
        for _ in range(READS_PER_THREAD):
            registry = skills.registry
            listed = registry.list()
            names = frozenset(info.name for info in listed)
            if names not in (OLD, NEW):
                problems.append(f"mixed snapshot {sorted(names)}")
            if len(registry) != len(listed):
                problems.append("len disagrees with list")
            whole = frozenset(info.name for info in skills.list_skills())
            if whole not in (OLD, NEW):
                problems.append(f"mixed list_skills {sorted(whole)}")
            for name in sorted(names):
                try:
                    content = registry.get(name)
                except SkillError as err:
                    # an older snapshot whose directory was replaced since: stale (SPEC §20.1)
                    if err.code.value != "stale_skill":
                        problems.append(f"unexpected {err.code.value} loading {name}")
                    continue
                if content is None or content.name != name:
                    problems.append(f"{name} listed but not loadable from its snapshot")
                    continue
                try:
                    data = skills.read_resource(name, "references/r.md")
                except SkillError as err:
                    # the file may be gone on disk while an older snapshot still lists it, or
                    # its directory replaced since that snapshot pinned it (SPEC §20.1)
                    if err.code.value not in ("not_found", "path_escape", "stale_skill"):
                        problems.append(f"unexpected {err.code.value} reading {name}")
                    continue
                if data != f"resource of {name}".encode():
                    problems.append(f"{name} read {data!r}")
            if done.is_set():
                break

    threads = [threading.Thread(target=writer)] + [
        threading.Thread(target=reader) for _ in range(READERS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert problems == []
    assert frozenset(s.name for s in skills.list_skills()) == OLD
