"""Listing roots and finding manifests (SPEC §4). The only place that lists roots.

The scan is lenient by construction: a missing, unreadable or non-directory root contributes
nothing, and every child entry that is a directory or a symlink yields exactly one
:class:`Candidate` saying what it is, so that the discovery report can account for all of them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ._config import SkillRoot
from ._diagnostics import Diagnostic, DiagnosticKind, RootNote
from ._errors import SkillError, fs_error
from ._model import sort_key

__all__ = ["MANIFEST_NAME", "Candidate", "scan_root", "sort_key"]

MANIFEST_NAME = "SKILL.md"


@dataclass(slots=True)
class Candidate:
    """One directory-or-symlink child of a root and what the scan found in it.

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
    """

    root: SkillRoot
    entry_name: str
    dir: Path
    manifest: Path | None = None
    location: str = ""
    data: bytes | None = None
    error: SkillError | None = None
    skip_reason: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _list_root(root: SkillRoot) -> tuple[RootNote, list[os.DirEntry[str]]]:
    path = os.fspath(root.path)
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except FileNotFoundError:
        return RootNote(root.path, "missing", "root does not exist"), []
    except NotADirectoryError:
        return RootNote(root.path, "not_a_directory", "root is not a directory"), []
    except OSError as exc:
        return RootNote(root.path, "unreadable", fs_error(exc, path).message), []
    except ValueError as exc:  # NUL in a configured path
        return RootNote(root.path, "unreadable", str(exc)), []
    entries.sort(key=lambda e: sort_key(e.name))
    return RootNote(root.path, "ok"), entries


def _find_manifest(cand: Candidate, follow_symlinks: bool, dir_text: str) -> None:
    """Pick the manifest by listing the directory (never by ``exists()``), SPEC §4.

    ``dir_text`` is ``str(cand.dir)``, as listed in the root.
    """
    try:
        with os.scandir(dir_text) as it:
            variants = sorted(
                (e for e in it if e.name.lower() == "skill.md"), key=lambda e: sort_key(e.name)
            )
    except OSError as exc:
        err = fs_error(exc, cand.dir)
        cand.skip_reason = f"directory unreadable: {err.message}"
        cand.diagnostics.append(
            Diagnostic(DiagnosticKind.IO_ERROR, f"skipping {cand.dir}: {err.message}", cand.dir)
        )
        return
    usable: list[os.DirEntry[str]] = []
    unfollowed: list[str] = []
    dangling: list[str] = []
    for entry in variants:
        try:
            if entry.is_symlink():
                if not follow_symlinks:
                    unfollowed.append(entry.name)
                    continue
                try:
                    target = os.stat(entry.path)
                except OSError:
                    dangling.append(entry.name)
                    cand.diagnostics.append(
                        Diagnostic(
                            DiagnosticKind.DANGLING_SYMLINK,
                            f"skipping dangling symlink {entry.path}",
                            Path(entry.path),
                        )
                    )
                    continue
                if stat.S_ISREG(target.st_mode):
                    usable.append(entry)
            elif entry.is_file(follow_symlinks=False):
                usable.append(entry)
        except OSError:
            continue
    if not usable:
        if unfollowed:
            cand.skip_reason = (
                f"manifest {unfollowed[0]} is a symlink, not followed (follow_symlinks=False)"
            )
        elif dangling:
            cand.skip_reason = f"manifest {dangling[0]} is a dangling symlink"
        else:
            cand.skip_reason = f"no {MANIFEST_NAME} in directory"
        return
    chosen = next((e for e in usable if e.name == MANIFEST_NAME), usable[0])
    cand.manifest = cand.dir / chosen.name
    cand.location = os.path.join(dir_text, chosen.name)
    if chosen.name != MANIFEST_NAME:
        cand.diagnostics.append(
            Diagnostic(
                DiagnosticKind.MANIFEST_CASE,
                f"using {cand.manifest} as the manifest of {cand.dir} (expected {MANIFEST_NAME})",
                cand.manifest,
            )
        )
    try:
        with open(cand.location, "rb") as fh:
            cand.data = fh.read()
    except OSError as exc:
        cand.error = fs_error(exc, cand.manifest)


def scan_root(root: SkillRoot, *, follow_symlinks: bool) -> tuple[RootNote, list[Candidate]]:
    """Scan one root for skill candidates (SPEC §4).

    Args:
        root: The root to list; a root path that is a symlink is followed.
        follow_symlinks: Whether symlinked child directories and manifests are used.

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
        cand = Candidate(root, entry.name, root.path / entry.name)
        out.append(cand)
        if is_link:
            if not follow_symlinks:
                cand.skip_reason = "symlink not followed (follow_symlinks=False)"
                continue
            try:
                target = os.stat(entry.path)
            except OSError:
                cand.skip_reason = "dangling symlink"
                cand.diagnostics.append(
                    Diagnostic(
                        DiagnosticKind.DANGLING_SYMLINK,
                        f"skipping dangling symlink {cand.dir}",
                        cand.dir,
                    )
                )
                continue
            if not stat.S_ISDIR(target.st_mode):
                cand.skip_reason = "symlink to a file, not a directory"
                continue
        _find_manifest(cand, follow_symlinks, entry.path)
    return note, out
