"""Confinement of resource paths to their skill directory (SPEC §10).

The only module that decides containment. Two tools:

* :func:`resolve_resource_path`, the pure resolver: lexical checks, then both the skill directory
  and the candidate canonicalised the same way and compared by path components.
* :func:`open_confined`, the race-free opener: it walks from a descriptor of the skill's real
  directory one component at a time with ``O_NOFOLLOW``, resolves each symlink it meets against the
  real directory (at most :data:`MAX_SYMLINK_HOPS` hops), and requires a regular file. Data is read
  from that descriptor, so a file swapped for a symlink after a check is never followed out.
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import stat
from pathlib import Path
from typing import BinaryIO

from ._errors import ErrorCode, SkillError, fs_error

__all__ = [
    "MAX_SYMLINK_HOPS",
    "is_within",
    "open_confined",
    "real_path",
    "resolve_resource_path",
]

MAX_SYMLINK_HOPS = 40

_DRIVE_RE = re.compile(r"^[A-Za-z]:")
# errnos meaning "there is no such file to reach" (SPEC §10: not_found)
_UNREACHABLE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG})
_HAS_SAFE_OPEN = (
    hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
    and os.open in os.supports_dir_fd
    and os.readlink in os.supports_dir_fd
)


def is_within(child: str, parent: str) -> bool:
    """Return True when ``child`` equals ``parent`` or lies under it, by path components.

    Both must be absolute and normalised the same way. ``/s/foo`` never contains ``/s/foo-evil``.
    """
    if child == parent:
        return True
    prefix = parent if parent.endswith(os.sep) else parent + os.sep
    return child.startswith(prefix)


def real_path(path: str) -> str:
    """Canonicalise ``path`` (SPEC §10.5): symlinks followed as far as they exist, a dangling
    link's target included, the missing tail kept, ``..`` resolved after each hop."""
    return os.path.realpath(path)


def _check_rel(rel: object) -> str:
    """Validate ``rel`` and return it with ``/`` separators (SPEC §10.1-2)."""
    if isinstance(rel, os.PathLike):
        try:
            rel = os.fspath(rel)
        except Exception as exc:
            raise SkillError(ErrorCode.INVALID_INPUT, f"resource path is unusable: {exc}") from None
    if not isinstance(rel, str):
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            f"resource path must be a str, got {type(rel).__name__}",
            {"type": type(rel).__name__},
        )
    if rel == "":
        raise SkillError(ErrorCode.INVALID_INPUT, "resource path must not be empty", {"rel": rel})
    if "\x00" in rel:
        raise SkillError(
            ErrorCode.INVALID_INPUT, "resource path must not contain NUL", {"rel": rel}
        )
    posix = rel.replace("\\", "/")
    if posix.startswith("/") or _DRIVE_RE.match(posix):
        raise SkillError(
            ErrorCode.INVALID_INPUT, f"resource path must be relative: {rel}", {"rel": rel}
        )
    return posix


def _escape(rel: str) -> SkillError:
    return SkillError(
        ErrorCode.PATH_ESCAPE, f"resource path escapes the skill directory: {rel}", {"rel": rel}
    )


def resolve_resource_path(skill_dir: str | os.PathLike[str], rel: str | os.PathLike[str]) -> Path:
    """Resolve ``rel`` inside ``skill_dir`` without leaving it (SPEC §10).

    No existence or type check is made: the result may not exist.

    Args:
        skill_dir: The skill directory (may itself be a symlink, e.g. into a shared store).
        rel: A relative path; ``/`` and ``\\`` both separate components.

    Returns:
        The lexical absolute path ``skill_dir / normalised(rel)`` (under ``skill_dir`` as given,
        not its real path).

    Raises:
        SkillError: ``invalid_input`` for a non-string, empty, NUL-holding or absolute ``rel``
            (``/x``, ``\\x``, ``C:\\x``, ``C:x``, ``//server/share``), ``fields`` ``{rel}``;
            ``path_escape`` ``{rel}`` when the lexical or the real candidate lies outside the
            real skill directory (sibling prefixes such as ``foo-evil`` included).
    """
    posix = _check_rel(rel)
    try:
        base = os.path.abspath(os.fspath(skill_dir))
    except (TypeError, ValueError) as exc:
        raise SkillError(ErrorCode.INVALID_INPUT, f"skill directory is unusable: {exc}") from None
    candidate = posixpath.normpath(posixpath.join(base, posix))
    if not is_within(candidate, base):
        raise _escape(str(rel))
    try:
        real_base = real_path(base)
        real_candidate = real_path(candidate)
    except (OSError, ValueError):
        raise _escape(str(rel)) from None
    if not is_within(real_candidate, real_base):
        raise _escape(str(rel))
    return Path(candidate)


def open_confined(skill_dir: str | os.PathLike[str], rel: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file inside ``skill_dir`` race-free (SPEC §10).

    Args:
        skill_dir: The skill directory.
        rel: As for :func:`resolve_resource_path`.

    Returns:
        A binary file object reading from the confined descriptor; the caller closes it.

    Raises:
        SkillError: the resolver's ``invalid_input``/``path_escape``; ``path_escape`` when a
            symlink met on the way leads outside the real skill directory; ``not_found``
            ``{rel}`` when a component is missing, not a directory, too long, or the symlink hops
            exceed 40; ``not_a_file`` ``{rel}`` for a directory or special file; ``io_error`` for
            other OS errors.
    """
    lexical = resolve_resource_path(skill_dir, rel)
    rel_text = os.fspath(rel)
    if not _HAS_SAFE_OPEN:  # pragma: no cover - platforms without O_NOFOLLOW/dir_fd
        return _open_by_identity(skill_dir, rel_text)
    base = os.path.abspath(os.fspath(skill_dir))
    real_base = real_path(base)
    inner = os.fspath(lexical)[len(base) :].strip(os.sep)
    parts = inner.split(os.sep) if inner else []
    hops = 0
    while True:
        result = _walk(real_base, parts, rel_text)
        if isinstance(result, int):
            return _wrap(result, rel_text)
        hops += 1
        if hops > MAX_SYMLINK_HOPS:
            raise SkillError(
                ErrorCode.NOT_FOUND, f"too many symlinks resolving {rel_text}", {"rel": rel_text}
            )
        parts = result


def _not_found(rel: str) -> SkillError:
    return SkillError(ErrorCode.NOT_FOUND, f"No such resource: {rel}", {"rel": rel})


def _walk(real_base: str, parts: list[str], rel: str) -> int | list[str]:
    """Walk ``parts`` from ``real_base``; return an open fd, or the new parts after one symlink."""
    nofollow = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        cur = os.open(real_base, os.O_RDONLY | os.O_DIRECTORY | nofollow)
    except OSError as exc:
        if exc.errno in _UNREACHABLE:
            raise _not_found(rel) from None
        raise fs_error(exc, real_base) from None
    try:
        if not parts:
            fd, cur = cur, -1
            return fd
        for i, name in enumerate(parts):
            last = i == len(parts) - 1
            flags = os.O_RDONLY | nofollow | (os.O_NONBLOCK if last else os.O_DIRECTORY)
            try:
                nxt = os.open(name, flags, dir_fd=cur)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    target = _readlink(name, cur)
                    if target is not None:
                        return _hop(real_base, parts[:i], target, parts[i + 1 :], rel)
                if exc.errno in _UNREACHABLE:
                    raise _not_found(rel) from None
                raise fs_error(exc, posixpath.join(real_base, *parts[: i + 1])) from None
            os.close(cur)
            cur = nxt
        fd, cur = cur, -1
        return fd
    finally:
        if cur >= 0:
            os.close(cur)


def _readlink(name: str, dir_fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:
        return None


def _hop(real_base: str, done: list[str], target: str, rest: list[str], rel: str) -> list[str]:
    """Resolve one symlink met at ``real_base/done/<link>`` and return the new relative parts."""
    here = posixpath.join(real_base, *done) if done else real_base
    joined = posixpath.normpath(posixpath.join(here, target, *rest))
    # Canonicalise what lies ahead so that links through other symlinked paths compare as the
    # resolver does; the walk that follows re-checks every component with O_NOFOLLOW anyway.
    real_target = real_path(joined)
    if not is_within(real_target, real_base):
        raise _escape(rel)
    if real_target == real_base:
        return []
    return real_target[len(real_base) :].lstrip(os.sep).split(os.sep)


def _wrap(fd: int, rel: str) -> BinaryIO:
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SkillError(ErrorCode.NOT_A_FILE, f"Resource '{rel}' is not a file", {"rel": rel})
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def _open_by_identity(
    skill_dir: str | os.PathLike[str], rel: str
) -> BinaryIO:  # pragma: no cover - exercised only where O_NOFOLLOW/dir_fd are missing
    """Fallback: open by name, then require the same file the check saw (SPEC §10)."""
    path = resolve_resource_path(skill_dir, rel)
    try:
        before = os.stat(path)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        if exc.errno in _UNREACHABLE:
            raise _not_found(rel) from None
        raise fs_error(exc, path) from None
    after = os.fstat(fd)
    if (before.st_dev, before.st_ino) != (after.st_dev, after.st_ino):
        os.close(fd)
        raise _escape(rel)
    resolve_resource_path(skill_dir, rel)
    return _wrap(fd, rel)
