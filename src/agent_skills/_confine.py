"""Confinement of resource paths to their skill directory (SPEC §10).

The only module that decides containment. Two tools:

* :func:`resolve_resource_path`, the pure resolver: lexical checks, then both the skill directory
  and the candidate canonicalised the same way and compared by path components.
* :func:`open_confined`, the race-free opener: it walks from a descriptor of the skill's real
  directory one component at a time with ``O_NOFOLLOW``, resolves each symlink it meets against the
  real directory (at most :data:`MAX_SYMLINK_HOPS` links in one lookup, as the kernel counts them),
  and requires a regular file. Data is read from that descriptor, so a file or directory swapped for
  a symlink after a check is never followed out.

Where the OS lacks ``O_NOFOLLOW`` or ``dir_fd`` support, :func:`open_confined` falls back to opening
the checked real path by name and comparing the descriptor's ``fstat`` identity with the file that
was checked (SPEC §10, last sentence). That fallback narrows the race window; it does not close it
for an intermediate directory swapped and swapped back between two checks (see docs/security.md).
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
"""Most symlinks followed while reaching one resource (Linux ``MAXSYMLINKS``; SPEC §10)."""

_DRIVE_RE = re.compile(r"^[A-Za-z]:")
# errnos meaning "there is no such file to reach" (SPEC §10: not_found)
_UNREACHABLE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG})
# errnos an O_NOFOLLOW open reports for a symlink (ELOOP on Linux, EMLINK on FreeBSD, ENOTDIR for a
# link met where O_DIRECTORY asks for a directory on some systems)
_LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _has_safe_open() -> bool:
    return (
        hasattr(os, "O_NOFOLLOW")
        and hasattr(os, "O_DIRECTORY")
        and os.open in os.supports_dir_fd
        and os.readlink in os.supports_dir_fd
        and os.stat in os.supports_dir_fd
        and os.stat in os.supports_follow_symlinks
    )


_HAS_SAFE_OPEN = _has_safe_open()
"""True where the descriptor walk is available; tests set it to False to exercise the fallback."""


def is_within(child: str, parent: str) -> bool:
    """Return True when ``child`` equals ``parent`` or lies under it, by path components.

    Both must be absolute and normalised the same way (e.g. both from :func:`real_path`).
    ``/s/foo`` never contains ``/s/foo-evil`` (SPEC §10.5).
    """
    if child == parent:
        return True
    prefix = parent if parent.endswith(os.sep) else parent + os.sep
    return child.startswith(prefix)


def real_path(path: str) -> str:
    """Canonicalise ``path`` (SPEC §10.5): symlinks followed as far as they exist, a dangling
    link's target included, the missing tail kept, ``..`` resolved after each hop.

    Raises:
        SkillError: ``not_found`` ``{path}`` when links keep changing while they are resolved
            (``os.path.realpath`` raises if a link vanishes between its ``lstat`` and
            ``readlink``); tried three times first.
    """
    for _ in range(3):
        try:
            return os.path.realpath(path)
        except OSError:
            continue
    raise SkillError(
        ErrorCode.NOT_FOUND, f"path changed while it was being resolved: {path}", {"path": path}
    )


def _invalid(message: str, fields: dict[str, object]) -> SkillError:
    return SkillError(ErrorCode.INVALID_INPUT, message, fields)


def _encodable(text: str) -> bool:
    """True when the OS can name ``text`` (lone surrogates outside ``surrogateescape`` cannot)."""
    try:
        os.fsencode(text)
    except UnicodeError:
        return False
    return True


def _check_rel(rel: object) -> tuple[str, str]:
    """Validate ``rel`` (SPEC §10.1-2); return ``(rel as given, rel with / separators)``."""
    if isinstance(rel, os.PathLike):
        try:
            rel = os.fspath(rel)
        except Exception as exc:
            raise _invalid(
                f"resource path is unusable: {type(exc).__name__}", {"type": type(rel).__name__}
            ) from None
    if not isinstance(rel, str):
        raise _invalid(
            f"resource path must be a str, got {type(rel).__name__}", {"type": type(rel).__name__}
        )
    if rel == "":
        raise _invalid("resource path must not be empty", {"rel": rel})
    if "\x00" in rel:
        raise _invalid("resource path must not contain NUL", {"rel": rel})
    if not _encodable(rel):
        raise _invalid("resource path cannot be encoded for the file system", {"rel": rel})
    posix = rel.replace("\\", "/")
    if posix.startswith("/") or _DRIVE_RE.match(posix):
        raise _invalid(f"resource path must be relative: {rel}", {"rel": rel})
    return rel, posix


def _check_dir(skill_dir: object) -> str:
    """Validate ``skill_dir`` and return it absolute, *not* normalised.

    ``..`` in the directory itself must climb from where its symlinks lead, as the kernel does;
    collapsing it lexically could name another directory.
    """
    if isinstance(skill_dir, os.PathLike):
        try:
            skill_dir = os.fspath(skill_dir)
        except Exception:
            skill_dir = None
    if not isinstance(skill_dir, str) or skill_dir == "":
        raise _invalid(
            f"skill directory must be a non-empty str, got {type(skill_dir).__name__}",
            {"type": type(skill_dir).__name__},
        )
    if "\x00" in skill_dir or not _encodable(skill_dir):
        raise _invalid("skill directory is not a usable path", {"skill_dir": skill_dir})
    return skill_dir if os.path.isabs(skill_dir) else os.path.join(os.getcwd(), skill_dir)


def _escape(rel: str) -> SkillError:
    return SkillError(
        ErrorCode.PATH_ESCAPE, f"resource path escapes the skill directory: {rel}", {"rel": rel}
    )


def _not_found(rel: str) -> SkillError:
    return SkillError(ErrorCode.NOT_FOUND, f"No such resource: {rel}", {"rel": rel})


def _not_a_file(rel: str) -> SkillError:
    return SkillError(ErrorCode.NOT_A_FILE, f"Resource '{rel}' is not a file", {"rel": rel})


def _confine(skill_dir: object, rel: object) -> tuple[str, str, str]:
    """Apply SPEC §10.1-5; return ``(base, lexical candidate, rel text)``, all ``str``."""
    rel_text, posix = _check_rel(rel)
    base = _check_dir(skill_dir)
    lexical_base = posixpath.normpath(base)
    lexical = posixpath.normpath(posixpath.join(lexical_base, posix))
    if not is_within(lexical, lexical_base):
        raise _escape(rel_text)
    # The candidate is the normalised ``rel`` under the directory *as given*.
    inner = lexical[len(lexical_base) :].strip("/")
    candidate = base.rstrip("/") + "/" + inner if inner else base
    try:
        real_base = real_path(base)
        inside = is_within(_real_below(real_base, inner), real_base)
    except SkillError:
        raise _not_found(rel_text) from None
    if not inside:
        raise _escape(rel_text)
    return base, candidate, rel_text


def _real_below(real_base: str, inner: str) -> str:
    """``real_path(real_base + "/" + inner)`` for a canonical ``real_base`` and a normalised
    relative ``inner``, without resolving ``real_base`` a second time.

    Components are ``lstat``-ed from the real base down; at the first symlink the rest is
    resolved by :func:`real_path`, and at the first missing component the rest is kept as given,
    which is exactly what :func:`real_path` returns for the whole path. Halves the system calls of
    ``resource_path`` for resources that hold no symlink (SPEC §18).
    """
    if not inner:
        return real_base
    parts = inner.split("/")
    path = real_base.rstrip("/")
    for i, name in enumerate(parts):
        step = f"{path}/{name}"
        try:
            mode = os.lstat(step).st_mode
        except OSError:
            return "/".join([step, *parts[i + 1 :]])
        if stat.S_ISLNK(mode):
            return real_path("/".join([step, *parts[i + 1 :]]))
        path = step
    return path


def resolve_resource_path(skill_dir: str | os.PathLike[str], rel: str | os.PathLike[str]) -> Path:
    """Resolve ``rel`` inside ``skill_dir`` without leaving it (SPEC §10).

    No existence or type check is made: the result may not exist (an overlong name is accepted
    here and is ``not_found`` when reached).

    Args:
        skill_dir: The skill directory (may itself be a symlink, e.g. into a shared store).
        rel: A relative path; ``/`` and ``\\`` both separate components.

    Returns:
        The lexical absolute path ``skill_dir / normalised(rel)`` (under ``skill_dir`` as given,
        not its real path).

    Raises:
        SkillError: ``invalid_input`` for a ``rel`` that is not a ``str``/``os.PathLike[str]``
            (``fields`` ``{type}``), or that is empty, holds NUL or a lone surrogate the file system
            cannot encode, or is absolute (``/x``, ``\\x``, ``C:\\x``, ``C:x``, ``//server/share``),
            ``fields`` ``{rel}``; ``invalid_input`` for an unusable ``skill_dir`` (``{type}`` or
            ``{skill_dir}``); ``path_escape`` ``{rel}`` when the lexical or the real candidate lies
            outside the real skill directory (sibling prefixes such as ``foo-evil`` included).
    """
    return Path(_confine(skill_dir, rel)[1])


def open_confined(skill_dir: str | os.PathLike[str], rel: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file inside ``skill_dir`` race-free (SPEC §10).

    The checks of :func:`resolve_resource_path` run first. Then the file is reached from a
    descriptor of the real skill directory, one component at a time, each opened with
    ``O_NOFOLLOW``; a symlink met on the way is read, resolved against the real skill directory,
    rejected when it leads outside, and the walk restarts on its target. The file is ``lstat``-ed
    before it is opened (so FIFOs and devices are never opened) and ``fstat``-ed after.

    Args:
        skill_dir: The skill directory.
        rel: As for :func:`resolve_resource_path`.

    Returns:
        A binary file object reading from the confined descriptor; the caller closes it.

    Raises:
        SkillError: the resolver's ``invalid_input``/``path_escape``; ``path_escape`` ``{rel}``
            when a symlink met on the way leads outside the real skill directory (also when a
            checked file is swapped, in the fallback); ``not_found`` ``{rel}`` when a component is
            missing, not a directory, its name too long, or reaching it takes more than
            :data:`MAX_SYMLINK_HOPS` symlinks (a loop); ``not_a_file`` ``{rel}`` for a directory or
            special file; ``io_error`` ``{path}`` (the lexical path) for other OS errors.
    """
    base, candidate, rel_text = _confine(skill_dir, rel)
    if not _HAS_SAFE_OPEN:
        return _open_by_identity(base, candidate, rel_text)
    resolved = _canonical(base, MAX_SYMLINK_HOPS)
    if resolved is None:
        raise _not_found(rel_text)
    real_base, hops = resolved
    inner = candidate[len(base.rstrip("/")) :].strip("/")
    parts = inner.split("/") if inner else []
    while True:
        result = _walk(real_base, parts, rel_text, candidate)
        if isinstance(result, int):
            return _wrap(result, rel_text)
        followed, parts = result
        hops += followed
        if hops > MAX_SYMLINK_HOPS:
            raise SkillError(
                ErrorCode.NOT_FOUND, f"too many symlinks resolving {rel_text}", {"rel": rel_text}
            )


def _canonical(path: str, budget: int) -> tuple[str, int] | None:
    """Resolve every symlink in the absolute ``path`` by name, as the kernel's lookup would.

    Unlike :func:`os.path.realpath`, a component followed by more of the path must be a directory
    (after its links are followed): ``file/..`` and ``missing/../x`` do not resolve, exactly as
    ``stat`` fails on them with ``ENOTDIR``/``ENOENT``. Only the last component may be missing.

    Returns:
        ``(real path, number of links followed)``, or ``None`` when the path cannot be reached or
        takes more than ``budget`` links.
    """
    todo = path.split("/")[::-1]
    comps: list[str] = []
    links = 0
    while todo:
        name = todo.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if comps:
                comps.pop()
            continue
        here = "/" + "/".join([*comps, name])
        try:
            mode = os.lstat(here).st_mode
            target = os.readlink(here) if stat.S_ISLNK(mode) else ""
        except OSError:
            if todo:  # ENOENT (or worse) before the last component
                return None
            comps.append(name)
            continue
        if not stat.S_ISLNK(mode):
            if todo and not stat.S_ISDIR(mode):  # ENOTDIR: more path after a non-directory
                return None
            comps.append(name)
            continue
        links += 1
        if links > budget:
            return None
        if target.startswith("/"):
            comps = []
        todo.extend(target.split("/")[::-1])
    return "/" + "/".join(comps), links


def _walk(real_base: str, parts: list[str], rel: str, lexical: str) -> int | tuple[int, list[str]]:
    """Walk ``parts`` from ``real_base`` with ``O_NOFOLLOW``.

    Returns:
        An open descriptor of the regular file reached, or, when a symlink is met, ``(links
        followed, new parts under real_base)`` for the caller to walk again.
    """
    try:
        cur = os.open(real_base, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        if exc.errno in _UNREACHABLE:
            raise _not_found(rel) from None
        raise fs_error(exc, lexical) from None
    try:
        if not parts:
            raise _not_a_file(rel)
        last_index = len(parts) - 1
        for i, name in enumerate(parts):
            try:
                if i < last_index:
                    nxt = os.open(
                        name,
                        os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC,
                        dir_fd=cur,
                    )
                else:
                    mode = os.stat(name, dir_fd=cur, follow_symlinks=False).st_mode
                    if stat.S_ISLNK(mode):
                        raise OSError(errno.ELOOP, "symbolic link")
                    if not stat.S_ISREG(mode):
                        raise _not_a_file(rel)
                    nxt = os.open(
                        name, os.O_RDONLY | os.O_NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=cur
                    )
            except OSError as exc:
                if exc.errno in _LINK_ERRNOS:
                    target = _readlink(name, cur)
                    if target is not None:
                        return _hop(real_base, parts[:i], target, parts[i + 1 :], rel)
                if exc.errno in _UNREACHABLE:
                    raise _not_found(rel) from None
                raise fs_error(exc, lexical) from None
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


def _hop(
    real_base: str, done: list[str], target: str, rest: list[str], rel: str
) -> tuple[int, list[str]]:
    """Resolve the symlink met at ``real_base/done/<link>`` whose text is ``target``.

    Returns:
        ``(links followed, the link included; the remaining parts relative to real_base)``.

    Raises:
        SkillError: ``path_escape`` when the target lies outside ``real_base``; ``not_found``
            when it cannot be reached or takes more than :data:`MAX_SYMLINK_HOPS` links.
    """
    here = posixpath.join(real_base, *done)
    # No lexical normpath here: ``..`` after a symlinked directory must climb from its target.
    resolved = _canonical(posixpath.join(here, target, *rest), MAX_SYMLINK_HOPS)
    if resolved is None:
        raise _not_found(rel)
    real_target, links = resolved
    if not is_within(real_target, real_base):
        raise _escape(rel)
    inner = real_target[len(real_base) :].strip("/")
    return links + 1, inner.split("/") if inner else []


def _wrap(fd: int, rel: str) -> BinaryIO:
    """Check that ``fd`` is a regular file and return a buffered reader owning it."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _not_a_file(rel)
        if _NONBLOCK and hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def _open_by_identity(base: str, candidate: str, rel: str) -> BinaryIO:
    """Fallback without ``O_NOFOLLOW``/``dir_fd``: open the checked real path by name, then require
    the descriptor to be the very file that was checked (same ``st_dev``/``st_ino``; SPEC §10).

    Raises:
        SkillError: As :func:`open_confined`; ``path_escape`` when the file opened is not the one
            checked or the real path changed meanwhile.
    """
    resolved_base = _canonical(base, MAX_SYMLINK_HOPS)
    resolved = _canonical(candidate, MAX_SYMLINK_HOPS)
    if resolved_base is None or resolved is None:
        raise _not_found(rel)
    real_base, real = resolved_base[0], resolved[0]
    if not is_within(real, real_base):
        raise _escape(rel)
    try:
        checked = os.lstat(real)
        if stat.S_ISLNK(checked.st_mode):
            # realpath resolved every link it could: what is left is a loop or a fresh swap.
            os.stat(real)
            raise _escape(rel)
    except OSError as exc:
        if exc.errno in _UNREACHABLE:
            raise _not_found(rel) from None
        raise fs_error(exc, candidate) from None
    if not stat.S_ISREG(checked.st_mode):
        raise _not_a_file(rel)
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_BINARY", 0) | _NONBLOCK | _CLOEXEC)
    except OSError as exc:
        if exc.errno in _UNREACHABLE:
            raise _not_found(rel) from None
        raise fs_error(exc, candidate) from None
    try:
        opened = os.fstat(fd)
        same = (opened.st_dev, opened.st_ino) == (checked.st_dev, checked.st_ino)
        again = _canonical(candidate, MAX_SYMLINK_HOPS)
        if not same or again is None or again[0] != real:
            raise _escape(rel)
    except BaseException:
        os.close(fd)
        raise
    return _wrap(fd, rel)
