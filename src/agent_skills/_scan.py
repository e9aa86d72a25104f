"""Listing roots and finding manifests (SPEC §4). The only place that lists roots.

The scan is lenient by construction: a missing, unreadable or non-directory root contributes
nothing, and every child entry that is a directory or a symlink yields exactly one
:class:`Candidate` saying what it is, so that the discovery report can account for all of them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ._config import SkillRoot
from ._diagnostics import Diagnostic, DiagnosticKind, RootNote, RootStatus
from ._errors import SkillError, fs_error
from ._model import sort_key

if TYPE_CHECKING:
    from ._index import ManifestIndex
    from ._manifest import ManifestResult

__all__ = [
    "MANIFEST_NAME",
    "Candidate",
    "ManifestLookup",
    "find_manifest",
    "is_manifest_name",
    "scan_root",
    "sort_key",
]

#: The manifest's name (Agent Skills specification); letter-case variants are found too (SPEC §4).
MANIFEST_NAME = "SKILL.md"
_MANIFEST_LOWER = MANIFEST_NAME.lower()


@dataclass(frozen=True, slots=True)
class Candidate:
    """One directory-or-symlink child of a root and what the scan found in it (built whole).

    Attributes:
        root: The configured root.
        entry_name: The child's name in the root.
        dir: ``root.path / entry_name`` (the link path for a linked skill).
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
            reason = f"no {MANIFEST_NAME} in directory"
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
) -> Candidate:
    """What one directory-or-symlink child of ``root`` holds (SPEC §4)."""
    path = root.path / entry.name
    if is_link:
        if not follow_symlinks:
            return Candidate(
                root, entry.name, path, skip_reason="symlink not followed (follow_symlinks=False)"
            )
        try:
            target = os.stat(entry.path)
        except OSError:
            diag = Diagnostic(
                DiagnosticKind.DANGLING_SYMLINK, f"skipping dangling symlink {path}", path
            )
            return Candidate(
                root, entry.name, path, skip_reason="dangling symlink", diagnostics=(diag,)
            )
        if not stat.S_ISDIR(target.st_mode):
            return Candidate(
                root, entry.name, path, skip_reason="symlink to a file, not a directory"
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
    )
