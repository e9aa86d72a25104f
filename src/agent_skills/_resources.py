"""Enumeration of a skill's files (SPEC §9, §20.2).

The walk lists every regular file of the skill directory without ever leaving its real directory.
It runs through directory descriptors from the pinned skill directory down, each directory opened
relative to its parent with ``O_NOFOLLOW``:
symlinks that dangle or lead outside are reported and skipped, links to directories inside are
walked only after the whole real tree (so an alias never hides a file under its real name), and a
set of visited directories (by ``st_dev``/``st_ino``) ends cycles.
"""

from __future__ import annotations

import heapq
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ._config import DEFAULT_MAX_RESOURCES
from ._confine import Pin, has_drive, open_below, open_pinned, pin_by_name, reach
from ._diagnostics import Diagnostic, DiagnosticKind
from ._errors import ErrorCode, SkillError, fs_error, gone_or_link
from ._frozen import frozen_builder
from ._fs import DIR_FLAGS, child_path, openat2
from ._model import (
    RESOURCE_KINDS,
    SKIPPED_DIRS,
    ResourceKind,
    SkillResource,
    is_compiled,
    is_hidden,
    is_manifest_name,
    is_skipped_path,
    sort_key,
    sort_text,
)

__all__ = [
    "MAX_DIRECTORY_DEPTH",
    "RESOURCE_KINDS",
    "ResourceKind",
    "ResourceListing",
    "SkillResource",
    "list_resources",
]


@dataclass(frozen=True, slots=True)
class ResourceListing:
    """Result of :func:`list_resources`: resources, whether capped, and diagnostics.

    Attributes:
        resources: The files listed.
        truncated: Whether the listing was cut (at ``max_resources`` or at
            :data:`MAX_DIRECTORY_DEPTH`).
        diagnostics: What the walk found.
        too_deep: Whether it was cut because a directory lies more than
            :data:`MAX_DIRECTORY_DEPTH` levels down (the reason a caller names).
    """

    resources: tuple[SkillResource, ...]
    truncated: bool
    diagnostics: tuple[Diagnostic, ...]
    too_deep: bool = False


def _kind(rel: str) -> ResourceKind:
    return _KINDS.get(rel.partition("/")[0], "other")


_KINDS: dict[str, ResourceKind] = {kind: kind for kind in RESOURCE_KINDS}


MAX_DIRECTORY_DEPTH = 64
"""Deepest directory walked below a skill; deeper ones make the listing truncated (SPEC §20.6)."""


def list_resources(
    skill_dir: Path,
    *,
    follow_symlinks: bool = True,
    max_resources: int = DEFAULT_MAX_RESOURCES,
    pin: Pin | None = None,
    name: str = "",
) -> ResourceListing:
    """List a skill's files through directory descriptors (SPEC §9, §20.2).

    Every directory is opened relative to its parent's descriptor with ``O_NOFOLLOW``, starting
    from the pinned skill directory, so a directory swapped for a link during the walk is never
    listed through. Symlinks met are resolved as reads resolve them (SPEC §10).

    Args:
        skill_dir: The skill directory as configured (``SkillResource.path`` is under it).
        follow_symlinks: When False, every symlink is ignored.
        max_resources: Keep only the first this many, in ``(rel.casefold(), rel)`` order.
        pin: The skill's pin; ``None`` pins ``skill_dir`` by name now.
        name: The skill's name, for ``stale_skill``.

    Returns:
        A :class:`ResourceListing`. Left out: the top-level manifest (every case variant), names
        starting with ``.``, ``__pycache__`` and ``node_modules`` directories, compiled Python
        files (``*.pyc``, ``*.pyo``; SPEC §29.6), links whose target inside the skill is such a
        name or lies below one (SPEC §30.2), names that cannot be
        addressed as a resource path (holding ``\\``, or a top-level ``X:`` drive form), and
        directories more than :data:`MAX_DIRECTORY_DEPTH` levels down (the listing is then
        truncated).

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}`` when ``pin`` no longer matches the directory.
    """
    try:
        if pin is None:
            pin, root = _pin_now(skill_dir)
        else:
            root = open_pinned(pin, name)
    except SkillError as err:
        if err.code == ErrorCode.STALE_SKILL:
            raise
        diag = Diagnostic(DiagnosticKind.IO_ERROR, f"cannot list {skill_dir}: {err}", skill_dir)
        return ResourceListing((), False, (diag,))
    try:
        return _walk(skill_dir, pin, name, root, follow_symlinks, max_resources)
    finally:
        os.close(root)


def _pin_now(skill_dir: Path) -> tuple[Pin, int]:
    """Pin ``skill_dir`` by name now (for callers without a pin) and open it."""
    pin = pin_by_name(skill_dir, "")
    return pin, open_pinned(pin, "")


_Listed = tuple[
    list[tuple[str, int]],
    list[tuple[tuple[str, ...], str]],
    list[tuple[tuple[str, ...], str, str]],
]
"""What one directory's entries hold, sorted into the three things the walk does next:
``(rel, size)`` of each regular file, ``(real parts, rel prefix)`` of each real subdirectory to
walk, ``(real parts of the link, rel, entry name)`` of each symlink to resolve."""


@dataclass(frozen=True, slots=True)
class _Link:
    """What a symlink met in the walk resolves to: a file's size, a directory, or a diagnostic."""

    size: int | None = None
    dir_parts: tuple[str, ...] | None = None
    diagnostic: Diagnostic | None = None


def _sort_entries(
    entries: list[os.DirEntry[str]], parts: tuple[str, ...], prefix: str, follow_symlinks: bool
) -> _Listed:
    """Sort one directory's entries (SPEC §9): what is left out, files, directories, links."""
    files: list[tuple[str, int]] = []
    dirs: list[tuple[tuple[str, ...], str]] = []
    links: list[tuple[tuple[str, ...], str, str]] = []
    for entry in entries:
        entry_name = entry.name
        if is_hidden(entry_name) or is_compiled(entry_name) or "\\" in entry_name:
            continue
        if not prefix and (is_manifest_name(entry_name) or has_drive(entry_name)):
            continue
        rel = prefix + entry_name
        try:
            if entry.is_symlink():
                if follow_symlinks:
                    links.append(((*parts, entry_name), rel, entry_name))
            elif entry.is_dir(follow_symlinks=False):
                if entry_name not in SKIPPED_DIRS:
                    dirs.append(((*parts, entry_name), rel + "/"))
            elif entry.is_file(follow_symlinks=False):
                files.append((rel, entry.stat(follow_symlinks=False).st_size))
        except OSError:
            continue
    # Directories and links in (casefold, name) order, the order they are walked and reported
    # in; the files' order is the listing's, made at its end.
    if len(dirs) > 1:
        dirs.sort(key=_last_part)
    if len(links) > 1:
        links.sort(key=_last_part)
    return files, dirs, links


def _last_part(item: tuple[tuple[str, ...], str] | tuple[tuple[str, ...], str, str]) -> str:
    return sort_text(item[0][-1])  # the entry's name (file names: no NUL)


def _resolve_link(
    skill_dir: Path, pin: Pin, name: str, root: int, parts: tuple[str, ...], rel: str
) -> _Link:
    """Resolve a symlink met in the walk as reads resolve it (SPEC §9, §10); a target whose path
    inside the skill is hidden or skipped is left out as the name would be (SPEC §30.2)."""
    where = skill_dir / rel
    try:
        hit = reach(pin, name, "/".join(parts), rel, base_fd=root)
    except SkillError as err:
        if err.code == ErrorCode.PATH_ESCAPE and os.path.exists(os.path.join(pin.real_dir, *parts)):
            return _Link(
                diagnostic=Diagnostic(
                    DiagnosticKind.ESCAPING_SYMLINK,
                    f"skipping resource symlink escaping skill dir {where}",
                    where,
                )
            )
        if err.code in (ErrorCode.PATH_ESCAPE, ErrorCode.NOT_FOUND):
            return _Link(
                diagnostic=Diagnostic(
                    DiagnosticKind.DANGLING_SYMLINK, f"skipping dangling symlink {where}", where
                )
            )
        return _Link()
    # SPEC §30.2: the target's own path inside the skill must not be hidden or skipped either.
    if stat.S_ISREG(hit.st.st_mode):
        if is_skipped_path(hit.parts, directory=False):
            return _Link()
        return _Link(size=hit.st.st_size)
    if stat.S_ISDIR(hit.st.st_mode):
        if is_skipped_path(hit.parts, directory=True):
            return _Link()
        return _Link(dir_parts=hit.parts)
    return _Link()


def _walk(
    skill_dir: Path, pin: Pin, name: str, root: int, follow_symlinks: bool, max_resources: int
) -> ResourceListing:
    found: dict[str, int] = {}
    diags: list[Diagnostic] = []
    # The pinned root's identity is the pin's (``open_pinned`` checked it).
    visited: set[tuple[int, int]] = {(pin.dev, pin.ino)}
    # Real directories are walked depth first, each opened by its listed name below its
    # parent's open descriptor (one component, ``O_NOFOLLOW``); then the directory links inside,
    # as a heap keyed by (rel.casefold(), rel): which alias lists a directory reachable only
    # through links does not depend on the order of scandir.
    links: list[tuple[tuple[str, str], tuple[str, ...], str]] = []
    walk = _RealWalk(skill_dir, pin, name, root, follow_symlinks, found, diags, visited, links)
    walk.list_dir(root, (), "")
    too_deep = walk.too_deep
    while links:
        _, parts, prefix = heapq.heappop(links)
        if prefix.count("/") > MAX_DIRECTORY_DEPTH:
            too_deep = True
            continue
        try:
            fd = open_below(root, parts)
        except OSError as exc:
            walk.cannot_list(prefix, exc)
            continue
        if fd is None:
            continue  # replaced by a link or removed during the walk: not listed through
        try:
            walk.visit(fd, parts, prefix)
        finally:
            os.close(fd)
    return _listing(skill_dir, found, diags, max_resources, too_deep or walk.too_deep)


class _RealWalk:
    """The state of one walk of a skill's directories (see :func:`_walk`)."""

    def __init__(
        self,
        skill_dir: Path,
        pin: Pin,
        name: str,
        root: int,
        follow_symlinks: bool,
        found: dict[str, int],
        diags: list[Diagnostic],
        visited: set[tuple[int, int]],
        links: list[tuple[tuple[str, str], tuple[str, ...], str]],
    ) -> None:
        self.skill_dir = skill_dir
        self.pin = pin
        self.name = name
        self.root = root
        self.follow_symlinks = follow_symlinks
        self.found = found
        self.diags = diags
        self.visited = visited
        self.links = links
        self.too_deep = False
        # Where ``openat2`` runs, a subdirectory that cannot be opened is left out, as
        # ``open_below`` leaves it; elsewhere only one missing or replaced by a link is.
        self.quiet = callable(openat2())

    def cannot_list(self, prefix: str, exc: OSError) -> None:
        where = self.skill_dir / prefix.rstrip("/") if prefix else self.skill_dir
        err = fs_error(exc, where)
        self.diags.append(
            Diagnostic(DiagnosticKind.IO_ERROR, f"cannot list {where}: {err.message}", where)
        )

    def visit(self, fd: int, parts: tuple[str, ...], prefix: str) -> None:
        """List the directory open as ``fd`` unless it was listed already (by identity)."""
        try:
            ident = os.fstat(fd)
        except OSError as exc:
            self.cannot_list(prefix, exc)
            return
        key = (ident.st_dev, ident.st_ino)
        if key in self.visited:
            return
        self.visited.add(key)
        self.list_dir(fd, parts, prefix)

    def list_dir(self, fd: int, parts: tuple[str, ...], prefix: str) -> None:
        """List the directory open as ``fd`` and walk its real subdirectories below it."""
        try:
            with os.scandir(fd) as it:
                # Sorted while the listing's descriptor is open: entries stat through it.
                listed = _sort_entries(list(it), parts, prefix, self.follow_symlinks)
        except OSError as exc:
            self.cannot_list(prefix, exc)
            return
        files, dirs, links = listed
        self.found.update(files)
        for link_parts, rel, entry_name in links:
            link = _resolve_link(self.skill_dir, self.pin, self.name, self.root, link_parts, rel)
            if link.diagnostic is not None:
                self.diags.append(link.diagnostic)
            elif link.size is not None:
                self.found.setdefault(rel, link.size)
            elif link.dir_parts is not None and entry_name not in SKIPPED_DIRS:
                heapq.heappush(self.links, (sort_key(rel + "/"), link.dir_parts, rel + "/"))
        for sub_parts, sub_prefix in reversed(dirs):  # the order a stack of them pops in
            if sub_prefix.count("/") > MAX_DIRECTORY_DEPTH:
                self.too_deep = True
                continue
            try:
                sub = os.open(sub_parts[-1], DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if not (self.quiet or gone_or_link(exc)):
                    self.cannot_list(sub_prefix, exc)
                continue  # replaced by a link or removed during the walk: not listed through
            try:
                self.visit(sub, sub_parts, sub_prefix)
            finally:
                os.close(sub)


def _listing(
    skill_dir: Path,
    found: dict[str, int],
    diags: list[Diagnostic],
    max_resources: int,
    too_deep: bool,
) -> ResourceListing:
    """The listing of ``found`` in ``(rel.casefold(), rel)`` order, capped (SPEC §9, §20.6)."""
    ordered = sorted(found, key=sort_text)  # (casefold, rel) order: rel holds no NUL
    truncated = len(ordered) > max_resources or too_deep
    notes = list(diags)
    if len(ordered) > max_resources:
        notes.append(
            Diagnostic(
                DiagnosticKind.RESOURCES_TRUNCATED,
                f"listing of {skill_dir} truncated to {max_resources} of {len(ordered)} files",
                skill_dir,
            )
        )
        ordered = ordered[:max_resources]
    if too_deep:
        notes.append(
            Diagnostic(
                DiagnosticKind.RESOURCES_TRUNCATED,
                f"listing of {skill_dir} truncated: directories more than "
                f"{MAX_DIRECTORY_DEPTH} levels deep are not listed",
                skill_dir,
            )
        )
    # Each path is ``skill_dir / rel``, built one listed name at a time from its directory's
    # path (made once per directory) rather than parsed again per file (SPEC §26).
    # The kind, from the first segment, is taken once per directory too.
    folders: dict[str, tuple[Path, ResourceKind]] = {}
    resources = []
    make = _make_resource
    for rel in ordered:
        folder, _, file = rel.rpartition("/")
        if not folder:  # a file at the top: its own name is the first segment
            resources.append(make(_kind(file), rel, child_path(skill_dir, file), found[rel]))
            continue
        made = folders.get(folder)
        if made is None:
            parent = skill_dir
            for part in folder.split("/"):
                parent = child_path(parent, part)
            made = folders[folder] = (parent, _kind(folder))
        resources.append(make(made[1], rel, child_path(made[0], file), found[rel]))
    return ResourceListing(tuple(resources), truncated, tuple(notes), too_deep)


_make_resource = frozen_builder(SkillResource)  # ``SkillResource(...)``, one per file (SPEC §26)
