"""Enumeration of a skill's files (SPEC §9).

The walk lists every regular file of the skill directory without ever leaving its real directory:
symlinks that dangle or lead outside are reported and skipped, links to directories inside are
walked only after the whole real tree (so an alias never hides a file under its real name), and a
set of visited real directories ends cycles.
"""

from __future__ import annotations

import heapq
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ._confine import is_within, real_path
from ._diagnostics import Diagnostic, DiagnosticKind
from ._errors import SkillError, fs_error
from ._model import RESOURCE_KINDS, ResourceKind, SkillResource, sort_key
from ._scan import is_manifest_name

__all__ = ["RESOURCE_KINDS", "ResourceKind", "ResourceListing", "SkillResource", "list_resources"]

_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules"})
_DRIVE_RE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True, slots=True)
class ResourceListing:
    """Result of :func:`list_resources`: resources, whether capped, and diagnostics."""

    resources: tuple[SkillResource, ...]
    truncated: bool
    diagnostics: tuple[Diagnostic, ...]


def _kind(rel: str) -> ResourceKind:
    first = rel.split("/", 1)[0]
    for kind in RESOURCE_KINDS:
        if first == kind:
            return kind
    return "other"


def list_resources(
    skill_dir: Path, *, follow_symlinks: bool = True, max_resources: int = 5000
) -> ResourceListing:
    """List a skill's files (SPEC §9).

    Args:
        skill_dir: The skill directory (may be a symlink).
        follow_symlinks: When False, every symlink is ignored.
        max_resources: Keep only the first this many, in ``(rel.casefold(), rel)`` order.

    Returns:
        A :class:`ResourceListing`; never raises. Left out: the top-level manifest (every case
        variant), names starting with ``.``, ``__pycache__`` and ``node_modules`` directories, and
        names that cannot be addressed as a resource path (holding ``\\``, or a top-level
        ``X:`` drive form).
    """
    base = os.fspath(skill_dir)
    try:
        real_base = real_path(base)
    except SkillError as changing:
        diag = Diagnostic(
            DiagnosticKind.IO_ERROR, f"cannot list {skill_dir}: {changing}", skill_dir
        )
        return ResourceListing((), False, (diag,))
    found: dict[str, int] = {}
    diags: list[Diagnostic] = []
    visited: set[str] = set()
    # (real directory, rel prefix); real directories first, then directory links inside.
    stack: list[tuple[str, str]] = [(real_base, "")]
    # Directory links as a heap keyed by (rel.casefold(), rel): which alias lists a directory
    # reachable only through links does not depend on the order of scandir.
    links: list[tuple[tuple[str, str], str, str]] = []

    def visit_link(path: str, rel: str, name: str) -> None:
        try:
            st = os.stat(path)
            target = real_path(path)
        except (OSError, SkillError):
            diags.append(
                Diagnostic(
                    DiagnosticKind.DANGLING_SYMLINK,
                    f"skipping dangling symlink {skill_dir / rel}",
                    skill_dir / rel,
                )
            )
            return
        if not is_within(target, real_base):
            diags.append(
                Diagnostic(
                    DiagnosticKind.ESCAPING_SYMLINK,
                    f"skipping resource symlink escaping skill dir {skill_dir / rel}",
                    skill_dir / rel,
                )
            )
            return
        if stat.S_ISREG(st.st_mode):
            found.setdefault(rel, st.st_size)
        elif stat.S_ISDIR(st.st_mode) and name not in _SKIPPED_DIRS:
            heapq.heappush(links, (sort_key(rel + "/"), target, rel + "/"))

    while stack or links:
        if stack:
            real_dir, prefix = stack.pop()
        else:
            _, real_dir, prefix = heapq.heappop(links)
        if real_dir in visited:
            continue
        visited.add(real_dir)
        try:
            with os.scandir(real_dir) as it:
                entries = sorted(it, key=lambda e: sort_key(e.name))
        except OSError as exc:
            err = fs_error(exc, real_dir)
            diags.append(
                Diagnostic(
                    DiagnosticKind.IO_ERROR,
                    f"cannot list {real_dir}: {err.message}",
                    skill_dir / prefix.rstrip("/") if prefix else skill_dir,
                )
            )
            continue
        top = prefix == ""
        for entry in entries:
            name = entry.name
            if name.startswith(".") or "\\" in name:
                continue
            if top and (is_manifest_name(name) or _DRIVE_RE.match(name)):
                continue
            rel = prefix + name
            try:
                if entry.is_symlink():
                    if follow_symlinks:
                        visit_link(entry.path, rel, name)
                elif entry.is_dir(follow_symlinks=False):
                    if name not in _SKIPPED_DIRS:
                        stack.append((os.path.join(real_dir, name), rel + "/"))
                elif entry.is_file(follow_symlinks=False):
                    found[rel] = entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    ordered = sorted(found, key=sort_key)
    truncated = len(ordered) > max_resources
    if truncated:
        diags.append(
            Diagnostic(
                DiagnosticKind.RESOURCES_TRUNCATED,
                f"listing of {skill_dir} truncated to {max_resources} of {len(ordered)} files",
                skill_dir,
            )
        )
        ordered = ordered[:max_resources]
    resources = tuple(
        SkillResource(_kind(rel), rel, skill_dir / rel, found[rel]) for rel in ordered
    )
    return ResourceListing(resources, truncated, tuple(diags))
