"""The one nested search for skill folders below a root (SPEC §21.4): discovery, ``validate`` and
package sources.

Down to ``max_depth`` levels, a directory without a manifest is searched in turn, unless it is
hidden, skipped (``node_modules``, ``__pycache__``), ignored by a ``.gitignore`` between the root
and it, or already searched (a symlink loop); at most :data:`MAX_SCAN_DIRS` directories per root.
What one directory holds, and each candidate, are ``_scan``'s.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ._config import DEFAULT_MAX_MANIFEST_BYTES, SkillRoot
from ._diagnostics import Diagnostic, DiagnosticKind, RootNote, RootStatus
from ._fs import READ_FLAGS, read_limited
from ._model import (
    MANIFEST_NAME,
    SKIPPED_DIRS,
    accepts_single_files,
    install_work,
    is_hidden,
    sort_text,
)
from ._scan import (
    NO_MANIFEST,
    Candidate,
    IndexHit,
    dir_like,
    install_work_skipped,
    list_root,
    scan_entry,
    scan_root,
    scan_single_file,
)

if TYPE_CHECKING:
    from ._index import ManifestIndex

__all__ = ["HELD_DEPTH", "MAX_SCAN_DIRS", "RootScan", "plain_candidates", "walk_root"]

#: Directories looked at per root by a nested walk (SPEC §21.4).
MAX_SCAN_DIRS = 2000
#: How deep a folder that is not a skill is searched for the skills it holds (``skills/x``,
#: ``examples/skills/x``): ``validate`` of such a folder and a package source (SPEC §25.4).
HELD_DEPTH = 3
# Larger .gitignore files are not read: a walk stays bounded whatever a root holds.
_MAX_GITIGNORE_BYTES = 1 << 20


def _entry_key(entry: os.DirEntry[str]) -> str:
    return sort_text(entry.name)  # (file names: no NUL)


class RootScan(NamedTuple):
    """What :func:`walk_root` found in one root (a named tuple, as :class:`Candidate` is).

    Attributes:
        note: The root's :class:`RootNote`.
        candidates: One :class:`Candidate` per directory-or-symlink entry considered, in scan
            order (depth first, each directory's entries in ``(casefold, name)`` order); with an
            index, an :class:`IndexHit` for a directory of the root it vouches for.
        diagnostics: Root-level diagnostics (``scan_truncated``).
    """

    note: RootNote
    candidates: list[Candidate | IndexHit]
    diagnostics: tuple[Diagnostic, ...] = ()


def walk_root(
    root: SkillRoot,
    *,
    follow_symlinks: bool,
    max_depth: int,
    index: ManifestIndex | None = None,
    max_manifest_bytes: int = DEFAULT_MAX_MANIFEST_BYTES,
) -> RootScan:
    """Search one root for skill directories down to ``max_depth`` (SPEC §4, §21.4).

    Depth 1 is SPEC §4: every child that is a directory or a symlink is a candidate. With
    ``max_depth`` above 1, a candidate without any manifest is searched in turn (its entries
    become candidates one level deeper, with ``category`` set), unless its name starts with
    ``.``, it is ``node_modules`` or ``__pycache__``, a ``.gitignore`` between the root and it
    ignores it (``pathspec``'s git-wildmatch), or it is a directory already searched (a symlink
    loop). Below depth 1 such excluded entries are reported as skipped, "not searched". A
    directory holding a manifest is a skill and is not searched (its nested manifests are
    resources, C20). A directory searched that held nothing is reported as skipped; one under
    which something was found has no entry of its own. At most :data:`MAX_SCAN_DIRS` directories
    are looked at per root; beyond that the walk stops with a ``scan_truncated`` diagnostic.

    Args:
        root: The root; a root path that is a symlink is followed.
        follow_symlinks: Whether symlinked directories and manifests are used (and searched).
        max_depth: 1 to ``_config.MAX_SEARCH_DEPTH`` (the caller checks the range).
        index: The on-disk index (SPEC §26), as for :func:`scan_root`.

    Returns:
        A :class:`RootScan`. Nothing is raised.
    """
    if max_depth <= 1:
        note, out = scan_root(
            root,
            follow_symlinks=follow_symlinks,
            index=index,
            max_manifest_bytes=max_manifest_bytes,
        )
        return RootScan(note, out)
    note, entries = list_root(root)
    walk = _Walk(root, follow_symlinks, max_depth, index)
    walk.cap = max_manifest_bytes
    if note.status == RootStatus.OK:
        try:
            st = os.stat(root.path)
            walk.searched.add((st.st_dev, st.st_ino))
        except (OSError, ValueError):
            pass
        walk.ignores.append(_read_gitignore(os.fspath(root.path), ""))
        walk.visit(entries, root.path, "", 1)
    diags: tuple[Diagnostic, ...] = ()
    if walk.truncated:
        diags = (
            Diagnostic(
                DiagnosticKind.SCAN_TRUNCATED,
                f"stopped searching {root.path} after {MAX_SCAN_DIRS} directories "
                f"(max_depth {max_depth}); skills further down were not looked for",
                root.path,
            ),
        )
    return RootScan(note, walk.out, diags)


def plain_candidates(scan: RootScan) -> list[Candidate]:
    """The candidates of a walk made without an index (which holds no :class:`IndexHit`)."""
    return [cand for cand in scan.candidates if isinstance(cand, Candidate)]


class _Ignore:
    """One ``.gitignore``: its directory relative to the root (``""`` or ``"a/b/"``), its spec."""

    __slots__ = ("base", "spec")

    def __init__(self, base: str, spec: Any) -> None:
        self.base = base
        self.spec = spec


def _read_gitignore(directory: str, base: str) -> _Ignore | None:
    path = os.path.join(directory, ".gitignore")
    try:
        # Opened without blocking and checked on the descriptor: a FIFO or a device put there
        # (or swapped in after a stat) is refused, never waited on or read without end.
        fd = os.open(path, READ_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        data = read_limited(fd, _MAX_GITIGNORE_BYTES, st.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)
    if data is None:
        return None
    text = data.decode("utf-8", "replace")
    import pathspec  # only a nested walk that meets a .gitignore pays for it

    try:
        spec = pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    except Exception:  # a pattern pathspec cannot compile: the file is ignored, not the walk
        return None
    return _Ignore(base, spec)


class _Walk:
    """The state of one nested walk (see :func:`walk_root`)."""

    def __init__(
        self,
        root: SkillRoot,
        follow_symlinks: bool,
        max_depth: int,
        index: ManifestIndex | None,
    ) -> None:
        self.root = root
        self.index = index
        self.cap = DEFAULT_MAX_MANIFEST_BYTES
        self.follow_symlinks = follow_symlinks
        self.max_depth = max_depth
        self.out: list[Candidate | IndexHit] = []
        self.ignores: list[_Ignore | None] = []
        self.looked_at = 0
        self.truncated = False
        self.searched: set[tuple[int, int]] = set()

    def ignored_by(self, rel: str) -> str | None:
        """The ``.gitignore`` that ignores directory ``rel`` (POSIX, relative to the root)."""
        for ignore in reversed(self.ignores):  # the nearest file decides, as in git
            if ignore is None or not rel.startswith(ignore.base):
                continue
            result = ignore.spec.check_file(rel[len(ignore.base) :] + "/")
            if result.include is not None:
                where = os.path.join(os.fspath(self.root.path), ignore.base, ".gitignore")
                return os.path.normpath(where) if result.include else None
        return None

    def excluded(self, name: str, rel: str) -> str | None:
        if is_hidden(name):
            return "not searched: hidden directory"
        if name in SKIPPED_DIRS:
            return f"not searched: {name}"
        by = self.ignored_by(rel)
        return None if by is None else f"not searched: ignored by {by}"

    def visit(
        self, entries: list[os.DirEntry[str]], parent: Path, category: str, depth: int
    ) -> bool:
        """Add the candidates of one listing; return whether any was added."""
        added = False
        single = depth == 1 and accepts_single_files(self.root.path)  # SPEC §29.2
        # An install's work, in the root itself (SPEC §25.4).
        work = install_work(entry.name for entry in entries) if depth == 1 else frozenset()
        for entry in entries:
            if self.truncated:
                return added
            if single:
                found = scan_single_file(
                    self.root, entry, follow_symlinks=self.follow_symlinks, cap=self.cap
                )
                if found is not None:
                    self.out.append(found)
                    added = True
                    continue
            rel = f"{category}/{entry.name}" if category else entry.name
            is_link = dir_like(entry)
            if is_link is None:
                continue
            if work and entry.name in work:
                self.out.append(install_work_skipped(self.root, entry.name))
                added = True
                continue
            if depth > 1:
                reason = self.excluded(entry.name, rel)
                if reason is not None:
                    self.out.append(
                        Candidate(
                            self.root,
                            entry.name,
                            parent / entry.name,
                            skip_reason=reason,
                            category=category,
                        )
                    )
                    added = True
                    continue
            if self.looked_at >= MAX_SCAN_DIRS:
                self.truncated = True
                return added
            self.looked_at += 1
            cand = scan_entry(
                self.root,
                entry,
                is_link,
                self.follow_symlinks,
                self.index,
                parent,
                category,
                self.cap,
            )
            index = len(self.out)
            self.out.append(cand)
            added = True
            if cand.skip_reason == NO_MANIFEST and depth < self.max_depth:
                if depth == 1 and self.excluded(entry.name, rel) is not None:
                    continue
                if self.descend(entry, cand, rel, depth):
                    del self.out[index]  # a category: what it holds accounts for it
                else:
                    self.out[index] = cand.with_skip_reason(
                        f"no {MANIFEST_NAME} in directory or below (max_depth {self.max_depth})"
                    )
        return added

    def descend(self, entry: os.DirEntry[str], cand: Candidate, rel: str, depth: int) -> bool:
        try:
            st = os.stat(entry.path)
            key = (st.st_dev, st.st_ino)
            if key in self.searched:
                return False
            self.searched.add(key)
            with os.scandir(entry.path) as it:
                children = sorted(it, key=_entry_key)
        except (OSError, ValueError):
            return False
        self.ignores.append(_read_gitignore(entry.path, rel + "/"))
        try:
            return self.visit(children, cand.dir, rel, depth + 1)
        finally:
            self.ignores.pop()
