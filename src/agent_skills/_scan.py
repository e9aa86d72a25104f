"""Listing roots and finding manifests (SPEC §4). The only place that lists roots.

The scan is lenient by construction: a missing, unreadable or non-directory root contributes
nothing, and every child entry that is a directory or a symlink yields exactly one
:class:`Candidate` saying what it is, so that the discovery report can account for all of them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._config import MAX_DEPTH, SkillRoot
from ._diagnostics import Diagnostic, DiagnosticKind, RootNote, RootStatus
from ._errors import SkillError, fs_error
from ._model import sort_key

if TYPE_CHECKING:
    from ._index import ManifestIndex
    from ._manifest import ManifestResult

__all__ = [
    "MANIFEST_NAME",
    "MAX_DEPTH",
    "MAX_SCAN_DIRS",
    "NOT_SEARCHED",
    "Candidate",
    "ManifestLookup",
    "RootScan",
    "find_manifest",
    "is_manifest_name",
    "scan_root",
    "sort_key",
    "walk_root",
]

#: The manifest's name (Agent Skills specification); letter-case variants are found too (SPEC §4).
MANIFEST_NAME = "SKILL.md"
_MANIFEST_LOWER = MANIFEST_NAME.lower()

#: Directories looked at per root by a nested walk (SPEC §21.4).
MAX_SCAN_DIRS = 2000
#: Names never searched by a nested walk (SPEC §21.4), besides names starting with ``.``.
NOT_SEARCHED = frozenset({"node_modules", "__pycache__"})
# Larger .gitignore files are not read: a walk stays bounded whatever a root holds.
_MAX_GITIGNORE_BYTES = 1 << 20
_NO_MANIFEST = f"no {MANIFEST_NAME} in directory"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One directory-or-symlink child of a root and what the scan found in it (built whole).

    Attributes:
        root: The configured root.
        entry_name: The child's name in the root.
        dir: ``root.path / category / entry_name`` (the link path for a linked skill).
        manifest: The manifest path (``dir / <on-disk name>``) or ``None``.
        location: ``str(manifest)`` (``""`` without one), built from the listing's own strings:
            I/O goes through it so that the snapshot's paths do not each cache their text.
        data: The manifest bytes, when read.
        error: The ``fs_error`` of a failed manifest read.
        skip_reason: Why the entry is not a skill candidate (``None`` when it is one).
        diagnostics: Problems found for this entry.
        cached: The parse outcome the on-disk index holds for this directory (then ``data`` is
            ``None``: the manifest was not read), SPEC §26.
        stamp: For the index, what a miss recorded: whether the entry is a link, then the
            directory's and the manifest's ``os.stat_result``, taken before the manifest was read;
            ``None`` when the directory cannot be kept in the index.
        category: The POSIX path of the entry's parent relative to the root (``""`` at depth 1,
            SPEC §21.4).
    """

    root: SkillRoot
    entry_name: str
    dir: Path
    manifest: Path | None = None
    location: str = ""
    data: bytes | None = None
    error: SkillError | None = None
    skip_reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    cached: ManifestResult | None = None
    stamp: tuple[bool, os.stat_result, os.stat_result] | None = None
    category: str = ""


def _list_root(root: SkillRoot) -> tuple[RootNote, list[os.DirEntry[str]]]:
    path = os.fspath(root.path)
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except FileNotFoundError:
        return RootNote(root.path, RootStatus.MISSING, "root does not exist"), []
    except NotADirectoryError:
        return RootNote(root.path, RootStatus.NOT_A_DIRECTORY, "root is not a directory"), []
    except OSError as exc:
        return RootNote(root.path, RootStatus.UNREADABLE, fs_error(exc, path).message), []
    except ValueError as exc:  # NUL in a configured path
        return RootNote(root.path, RootStatus.UNREADABLE, str(exc)), []
    entries.sort(key=lambda e: sort_key(e.name))
    return RootNote(root.path, RootStatus.OK), entries


def is_manifest_name(name: str) -> bool:
    """Whether ``name`` is a letter-case variant of ``SKILL.md`` (SPEC §4, §9)."""
    return name.lower() == _MANIFEST_LOWER


@dataclass(frozen=True, slots=True)
class ManifestLookup:
    """What :func:`find_manifest` found in one directory.

    Attributes:
        name: The chosen manifest's on-disk name, or ``None`` when there is none.
        path: ``os.path.join(dir, name)`` as text (``""`` without a manifest).
        skip_reason: Why there is no manifest (``None`` when ``name`` is set).
        diagnostics: ``io_error`` (directory unreadable), ``dangling_symlink`` (a variant that is
            a dangling link), ``manifest_case`` (the chosen name is not exactly ``SKILL.md``).
        linked: Whether a variant is a symlink: what it leads to can change while the directory
            does not, so the on-disk index does not keep such a directory (SPEC §26).
    """

    name: str | None
    path: str = ""
    skip_reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    linked: bool = False


def find_manifest(dir: str | os.PathLike[str], *, follow_symlinks: bool) -> ManifestLookup:
    """Find a skill's manifest by listing the directory, never by ``exists()`` (SPEC §4).

    The one rule for every caller (discovery, ``validate``, the CLI): an entry whose lower-cased
    name is ``skill.md`` and which is a regular file, or with ``follow_symlinks`` a symlink to
    one. Exact ``SKILL.md`` wins; otherwise the first variant in ``(casefold, name)`` order.

    Args:
        dir: The directory to look in (text or path-like).
        follow_symlinks: Whether a manifest that is a symlink (to a regular file) is used.

    Returns:
        A :class:`ManifestLookup`. Nothing is raised: an unlistable directory is a skip reason
        with an ``io_error`` diagnostic.
    """
    dir_text = os.fspath(dir)
    diags: list[Diagnostic] = []
    try:
        with os.scandir(dir_text) as it:
            variants = sorted((e for e in it if is_manifest_name(e.name)), key=_entry_key)
    except (OSError, ValueError) as exc:
        where = Path(dir_text)
        message = fs_error(exc, where).message if isinstance(exc, OSError) else str(exc)
        diag = Diagnostic(DiagnosticKind.IO_ERROR, f"skipping {where}: {message}", where)
        return ManifestLookup(
            None, skip_reason=f"directory unreadable: {message}", diagnostics=(diag,)
        )
    usable: list[str] = []
    unfollowed: list[str] = []
    dangling: list[str] = []
    linked = False
    for entry in variants:
        try:
            if entry.is_symlink():
                linked = True
                if not follow_symlinks:
                    unfollowed.append(entry.name)
                    continue
                try:
                    target = os.stat(entry.path)
                except OSError:
                    dangling.append(entry.name)
                    diags.append(
                        Diagnostic(
                            DiagnosticKind.DANGLING_SYMLINK,
                            f"skipping dangling symlink {entry.path}",
                            Path(entry.path),
                        )
                    )
                    continue
                if stat.S_ISREG(target.st_mode):
                    usable.append(entry.name)
            elif entry.is_file(follow_symlinks=False):
                usable.append(entry.name)
        except OSError:
            continue
    if not usable:
        if unfollowed:
            reason = f"manifest {unfollowed[0]} is a symlink, not followed (follow_symlinks=False)"
        elif dangling:
            reason = f"manifest {dangling[0]} is a dangling symlink"
        else:
            reason = _NO_MANIFEST
        return ManifestLookup(None, skip_reason=reason, diagnostics=tuple(diags), linked=linked)
    chosen = MANIFEST_NAME if MANIFEST_NAME in usable else usable[0]
    path = os.path.join(dir_text, chosen)
    if chosen != MANIFEST_NAME:
        diags.append(
            Diagnostic(
                DiagnosticKind.MANIFEST_CASE,
                f"using {path} as the manifest of {dir_text} (expected {MANIFEST_NAME})",
                Path(path),
            )
        )
    return ManifestLookup(chosen, path, None, tuple(diags), linked)


def _entry_key(entry: os.DirEntry[str]) -> tuple[str, str]:
    return sort_key(entry.name)


def _read_manifest(
    path: str, where: Path
) -> tuple[bytes | None, SkillError | None, os.stat_result | None]:
    """Read a manifest: ``(data, error, stat)``; the ``fstat`` is taken before the first byte."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            return fh.read(), None, st
    except OSError as exc:
        return None, fs_error(exc, where), None


def scan_root(
    root: SkillRoot, *, follow_symlinks: bool, index: ManifestIndex | None = None
) -> tuple[RootNote, list[Candidate]]:
    """Scan one root for skill candidates (SPEC §4).

    Args:
        root: The root to list; a root path that is a symlink is followed.
        follow_symlinks: Whether symlinked child directories and manifests are used.
        index: The on-disk index (SPEC §26): a directory it holds a valid entry for is neither
            listed nor read (its candidate carries ``cached``); the others carry a ``stamp``.

    Returns:
        ``(note, candidates)``: the root's :class:`RootNote` and one :class:`Candidate` per child
        directory or symlink, in ``(casefold, name)`` order. Regular files and other entries are
        ignored. Nothing is raised.
    """
    note, entries = _list_root(root)
    out: list[Candidate] = []
    for entry in entries:
        try:
            is_link = entry.is_symlink()
            is_dir = not is_link and entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if not (is_link or is_dir):
            continue
        out.append(_candidate(root, entry, is_link, follow_symlinks, index))
    return note, out


def _candidate(
    root: SkillRoot,
    entry: os.DirEntry[str],
    is_link: bool,
    follow_symlinks: bool,
    index: ManifestIndex | None = None,
    parent: Path | None = None,
    category: str = "",
) -> Candidate:
    """What one directory-or-symlink entry holds (SPEC §4); ``parent`` defaults to the root."""
    path = (root.path if parent is None else parent) / entry.name
    if is_link:
        if not follow_symlinks:
            return Candidate(
                root,
                entry.name,
                path,
                skip_reason="symlink not followed (follow_symlinks=False)",
                category=category,
            )
        try:
            target = os.stat(entry.path)
        except OSError:
            diag = Diagnostic(
                DiagnosticKind.DANGLING_SYMLINK, f"skipping dangling symlink {path}", path
            )
            return Candidate(
                root,
                entry.name,
                path,
                skip_reason="dangling symlink",
                diagnostics=(diag,),
                category=category,
            )
        if not stat.S_ISDIR(target.st_mode):
            return Candidate(
                root,
                entry.name,
                path,
                skip_reason="symlink to a file, not a directory",
                category=category,
            )
    dir_stat = None
    if index is not None:
        hit = index.lookup(entry.path, is_link)
        if hit is not None:
            location = os.path.join(entry.path, hit.manifest_name)
            return Candidate(
                root,
                entry.name,
                path,
                path / hit.manifest_name,
                location,
                diagnostics=hit.scan_diagnostics,
                cached=hit.result,
                category=category,
            )
        dir_stat = index.stat_dir(entry.path, is_link)
    lookup = find_manifest(entry.path, follow_symlinks=follow_symlinks)
    if lookup.name is None:
        return Candidate(
            root,
            entry.name,
            path,
            skip_reason=lookup.skip_reason,
            diagnostics=lookup.diagnostics,
            category=category,
        )
    manifest = path / lookup.name
    data, error, manifest_stat = _read_manifest(lookup.path, manifest)
    stamp = None
    if dir_stat is not None and manifest_stat is not None and not lookup.linked:
        stamp = (is_link, dir_stat, manifest_stat)
    return Candidate(
        root,
        entry.name,
        path,
        manifest,
        lookup.path,
        data,
        error,
        None,
        lookup.diagnostics,
        stamp=stamp,
        category=category,
    )


def _dir_like(entry: os.DirEntry[str]) -> bool | None:
    """``True`` for a symlink, ``False`` for a real directory, ``None`` for anything else."""
    try:
        if entry.is_symlink():
            return True
        return False if entry.is_dir(follow_symlinks=False) else None
    except OSError:
        return None


@dataclass(frozen=True, slots=True)
class RootScan:
    """What :func:`walk_root` found in one root.

    Attributes:
        note: The root's :class:`RootNote`.
        candidates: One :class:`Candidate` per directory-or-symlink entry considered, in scan
            order (depth first, each directory's entries in ``(casefold, name)`` order).
        diagnostics: Root-level diagnostics (``scan_truncated``).
    """

    note: RootNote
    candidates: list[Candidate]
    diagnostics: tuple[Diagnostic, ...] = ()


def walk_root(
    root: SkillRoot,
    *,
    follow_symlinks: bool,
    max_depth: int,
    index: ManifestIndex | None = None,
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
        max_depth: 1 to :data:`MAX_DEPTH` (the caller checks the range).
        index: The on-disk index (SPEC §26), as for :func:`scan_root`.

    Returns:
        A :class:`RootScan`. Nothing is raised.
    """
    if max_depth <= 1:
        note, out = scan_root(root, follow_symlinks=follow_symlinks, index=index)
        return RootScan(note, out)
    note, entries = _list_root(root)
    walk = _Walk(root, follow_symlinks, max_depth, index)
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


class _Ignore:
    """One ``.gitignore``: its directory relative to the root (``""`` or ``"a/b/"``), its spec."""

    __slots__ = ("base", "spec")

    def __init__(self, base: str, spec: Any) -> None:
        self.base = base
        self.spec = spec


def _read_gitignore(directory: str, base: str) -> _Ignore | None:
    path = os.path.join(directory, ".gitignore")
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_GITIGNORE_BYTES:
            return None
        with open(path, "rb") as fh:
            text = fh.read(_MAX_GITIGNORE_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
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
        self.follow_symlinks = follow_symlinks
        self.max_depth = max_depth
        self.out: list[Candidate] = []
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
        if name.startswith("."):
            return "not searched: hidden directory"
        if name in NOT_SEARCHED:
            return f"not searched: {name}"
        by = self.ignored_by(rel)
        return None if by is None else f"not searched: ignored by {by}"

    def visit(
        self, entries: list[os.DirEntry[str]], parent: Path, category: str, depth: int
    ) -> bool:
        """Add the candidates of one listing; return whether any was added."""
        added = False
        for entry in entries:
            if self.truncated:
                return added
            rel = f"{category}/{entry.name}" if category else entry.name
            is_link = _dir_like(entry)
            if is_link is None:
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
            cand = _candidate(
                self.root, entry, is_link, self.follow_symlinks, self.index, parent, category
            )
            index = len(self.out)
            self.out.append(cand)
            added = True
            if cand.skip_reason == _NO_MANIFEST and depth < self.max_depth:
                if depth == 1 and self.excluded(entry.name, rel) is not None:
                    continue
                if self.descend(entry, cand, rel, depth):
                    del self.out[index]  # a category: what it holds accounts for it
                else:
                    self.out[index] = replace(
                        cand,
                        skip_reason=(
                            f"no {MANIFEST_NAME} in directory or below (max_depth {self.max_depth})"
                        ),
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
