"""The resource walk (SPEC §9, §20.2) against its reference: every directory reached from the
pinned root by ``open_below`` and listed in the order a stack pops, over random trees.

The walk opens each real subdirectory by its listed name below its parent's descriptor; the
reference below opens each one from the root again, as the walk did before. Over trees of
files, directories (hidden, skipped, deep), compiled files, manifest variants and links that
stay inside, leave, dangle or loop, both give the same :class:`ResourceListing`: the same
resources (rel, path, size, kind, order), the same diagnostics in the same order, the same
truncation. Also with ``openat2`` unavailable (the component walk).
"""

from __future__ import annotations

import heapq
import os
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import _confine, _fs, _resources
from agent_skills._confine import open_below, pin_by_name
from agent_skills._diagnostics import Diagnostic, DiagnosticKind
from agent_skills._errors import fs_error
from agent_skills._model import SKIPPED_DIRS, sort_key
from agent_skills._resources import (
    MAX_DIRECTORY_DEPTH,
    ResourceListing,
    _listing,
    _resolve_link,
    _sort_entries,
    list_resources,
)

pytestmark = [pytest.mark.slow]


def reference_walk(skill_dir: Path, max_resources: int = 1000) -> ResourceListing:
    """The walk as a stack of directories, each opened from the root by ``open_below``."""
    pin = pin_by_name(skill_dir, "")
    root = _confine.open_pinned(pin, "")
    try:
        found: dict[str, int] = {}
        diags: list[Diagnostic] = []
        visited: set[tuple[int, int]] = set()
        too_deep = False
        stack: list[tuple[tuple[str, ...], str]] = [((), "")]
        links: list[tuple[tuple[str, str], tuple[str, ...], str]] = []
        while stack or links:
            if stack:
                parts, prefix = stack.pop()
            else:
                _, parts, prefix = heapq.heappop(links)
            if prefix.count("/") > MAX_DIRECTORY_DEPTH:
                too_deep = True
                continue
            try:
                fd = open_below(root, parts)
                if fd is None:
                    continue
                try:
                    ident = os.fstat(fd)
                    if (ident.st_dev, ident.st_ino) in visited:
                        continue
                    visited.add((ident.st_dev, ident.st_ino))
                    with os.scandir(fd) as it:
                        ordered = sorted(it, key=lambda e: sort_key(e.name))
                        files, dirs, found_links = _sort_entries(ordered, parts, prefix, True)
                finally:
                    os.close(fd)
            except OSError as exc:
                where = skill_dir / prefix.rstrip("/") if prefix else skill_dir
                message = fs_error(exc, where).message
                diags.append(
                    Diagnostic(DiagnosticKind.IO_ERROR, f"cannot list {where}: {message}", where)
                )
                continue
            found.update(files)
            stack.extend(dirs)
            for link_parts, rel, entry_name in found_links:
                link = _resolve_link(skill_dir, pin, "", root, link_parts, rel)
                if link.diagnostic is not None:
                    diags.append(link.diagnostic)
                elif link.size is not None:
                    found.setdefault(rel, link.size)
                elif link.dir_parts is not None and entry_name not in SKIPPED_DIRS:
                    heapq.heappush(links, (sort_key(rel + "/"), link.dir_parts, rel + "/"))
        return _listing(skill_dir, found, diags, max_resources, too_deep)
    finally:
        os.close(root)


DIRS = ["a", "b", "B", "scripts", "a/x", "a/x/y", "b/z", ".hidden", "node_modules", "a/.git"]
FILES = ["f.txt", "SKILL.md", "skill.MD", "run.pyc", ".env", "n.md", "C:x", "w\\v", "é.txt"]
LINK_TARGETS = ["a", "a/x", "b/f.txt", "..", "../outside", "../outside/o.txt", "missing", "/tmp"]

TREES = st.fixed_dictionaries(
    {
        "dirs": st.lists(st.sampled_from(DIRS), max_size=8, unique=True),
        "files": st.lists(
            st.tuples(
                st.sampled_from(["", *DIRS]),
                st.sampled_from(FILES),
                st.integers(min_value=0, max_value=300),
            ),
            max_size=14,
        ),
        "links": st.lists(
            st.tuples(
                st.sampled_from(["", "a", "a/x", "b"]),
                st.sampled_from(["l1", "l2", "Lk", ".lh", "node_modules"]),
                st.sampled_from(LINK_TARGETS),
            ),
            max_size=5,
        ),
        "deep": st.integers(min_value=0, max_value=2),
    }
)


def build(base: Path, tree: dict[str, object]) -> Path:
    skill = base / "skills" / "s"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    outside = base / "skills" / "outside"
    outside.mkdir()
    (outside / "o.txt").write_text("out")
    for d in tree["dirs"]:  # type: ignore[attr-defined]
        (skill / d).mkdir(parents=True, exist_ok=True)
    for folder, name, size in tree["files"]:  # type: ignore[attr-defined]
        where = skill / folder
        where.mkdir(parents=True, exist_ok=True)
        if not (where / name).is_dir():
            (where / name).write_bytes(b"x" * size)
    for folder, name, target in tree["links"]:  # type: ignore[attr-defined]
        where = skill / folder
        where.mkdir(parents=True, exist_ok=True)
        if not os.path.lexists(where / name):
            os.symlink(target, where / name)
    if tree["deep"]:
        # Deeper than MAX_DIRECTORY_DEPTH (deep == 2: past it by one more level).
        deep = skill / "deep"
        for _ in range(MAX_DIRECTORY_DEPTH + int(tree["deep"])):  # type: ignore[call-overload]
            deep = deep / "d"
        deep.mkdir(parents=True)
        (deep / "bottom.txt").write_text("b")
    return skill


def listing_values(listing: ResourceListing) -> tuple[object, ...]:
    return (
        [(r.kind, r.rel, r.path, r.size) for r in listing.resources],
        [(d.kind, d.message, d.path) for d in listing.diagnostics],
        listing.truncated,
        listing.too_deep,
    )


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(tree=TREES, fast=st.booleans(), cap=st.sampled_from([1000, 3]))
def test_walk_equals_reference(tree: dict[str, object], fast: bool, cap: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        skill = build(Path(tmp), tree)
        patch = mock.patch.object(_fs, "_OPENAT2", _fs._OPENAT2 if fast else [None])
        with patch:
            if fast:
                _fs.openat2()
            expected = reference_walk(skill, cap)
            got = list_resources(skill, max_resources=cap)
        assert listing_values(got) == listing_values(expected)


def test_unopenable_subdirectory_as_reference(tmp_path: Path) -> None:
    """A subdirectory that cannot be opened (``EACCES``) is left out silently where ``openat2``
    runs, as ``open_below`` leaves it, and is an ``io_error`` on the component walk, as there."""
    skill = build(
        tmp_path, {"dirs": ["a", "b"], "files": [("b", "f.txt", 3)], "links": [], "deep": 0}
    )
    (skill / "a" / "in.txt").write_text("in")
    real_open = os.open

    def refuse_a(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if path == "a" and dir_fd is not None:
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, mode, dir_fd=dir_fd)

    _fs.openat2()
    with mock.patch.object(_resources.os, "open", refuse_a):
        got = list_resources(skill)
    assert [r.rel for r in got.resources] == ["b/f.txt"]
    assert got.diagnostics == ()
    with (
        mock.patch.object(_fs, "_OPENAT2", [None]),
        mock.patch.object(_resources.os, "open", refuse_a),
    ):
        got = list_resources(skill)
        assert listing_values(got) == listing_values(reference_walk(skill))
    assert [r.rel for r in got.resources] == ["b/f.txt"]
    assert [(d.kind, d.path) for d in got.diagnostics] == [(DiagnosticKind.IO_ERROR, skill / "a")]


def test_walk_opens_each_directory_below_its_parent(tmp_path: Path) -> None:
    """Each real subdirectory is opened by its one listed name below its parent's descriptor
    (never by a path from the root), and the pinned root is listed without a copy of it."""
    skill = build(
        tmp_path,
        {"dirs": ["a/x/y", "b"], "files": [("a/x/y", "f.txt", 2)], "links": [], "deep": 0},
    )
    if not callable(_fs.openat2()):
        pytest.skip("openat2 is not available here: the root is reached by component opens")
    calls: list[tuple[str, int | None]] = []
    real_open = os.open

    def spy(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        calls.append((path, dir_fd))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    with (
        mock.patch.object(_resources.os, "open", spy),
        mock.patch.object(_resources.os, "dup", side_effect=AssertionError("dup")),
    ):
        got = list_resources(skill)
    assert [r.rel for r in got.resources] == ["a/x/y/f.txt"]
    assert [name for name, _ in calls] == ["b", "a", "x", "y"]
    assert all(fd is not None for _, fd in calls)
