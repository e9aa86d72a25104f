"""Containment of every path the library serves (SPEC §10, §20). The only module that decides
"is this inside, and what is it".

Its parts, each the one place for its rule:

* :func:`contains`, containment by path components of two real paths (``/s/foo`` never contains
  ``/s/foo-evil``).
* :func:`resolve`, the one symlink resolver: iterative (no recursion on input), at most
  :data:`MAX_SYMLINK_HOPS` links per path, either as ``os.path.realpath`` does (a missing tail kept)
  or as the kernel's lookup does (every component but the last must exist).
* :class:`Pin` and :func:`pin_directory`/:func:`open_pinned`: a skill's real directory and its
  ``(st_dev, st_ino)``, taken at discovery and checked on every later access by walking the real
  path from ``/`` one component at a time with ``O_NOFOLLOW`` (``O_PATH`` for the ancestors). A
  directory renamed away, replaced, or turned into a symlink is ``stale_skill``.
* :func:`resolve_resource_path`, the pure resolver of SPEC §10, and the pinned accessors
  :func:`open_in`, :func:`stat_in` and :func:`reach`, which reach a resource from the pinned
  directory's descriptor one component at a time with ``O_NOFOLLOW``, resolve each symlink met
  against the real directory, and open the final file with ``O_NONBLOCK | O_NOCTTY`` only after it
  is known to be a regular file.

Where the OS lacks ``O_NOFOLLOW`` or ``dir_fd`` support, files are opened by their checked real path
and the descriptor's ``fstat`` identity is compared with the file checked (SPEC §10, last sentence);
that fallback narrows the race window, it does not close it (see docs/security.md).
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
import stat
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from . import _fs
from ._args import exact_str
from ._errors import (
    LINK_ERRNOS,
    ErrorCode,
    SkillError,
    fs_error,
    gone_or_link,
    invalid_input,
    unreachable,
)
from ._frozen import frozen_builder
from ._fs import (
    ANCESTOR_FLAGS,
    DIR_FLAGS,
    FAST_RESOLVE,
    FILE_FLAGS,
    NOFOLLOW,
    NONBLOCK,
    PATH_FLAGS,
    RESOLVE_NO_SYMLINKS,
    openat2,
    openat2_loaded,
    read_limited,
)

__all__ = [
    "MAX_SYMLINK_HOPS",
    "Pin",
    "Reached",
    "absolute",
    "contains",
    "has_drive",
    "is_absolute_rel",
    "is_file_pin",
    "lexical_rel",
    "open_below",
    "open_confined",
    "open_dir_at",
    "open_file",
    "open_in",
    "open_pinned",
    "open_real_dir",
    "pin_by_name",
    "pin_directory",
    "pin_file",
    "reach",
    "real_path",
    "resolve",
    "resolve_resource_path",
    "stat_in",
    "verify_link",
    "verify_pin",
]

MAX_SYMLINK_HOPS = 40
"""Most symlinks followed while reaching one path (Linux ``MAXSYMLINKS``; SPEC §10, §20.6)."""

_DRIVE_RE = re.compile(r"^[A-Za-z]:")
_RETRIES = 3  # walks of one path when its links keep changing while they are read
# -- containment and the one resolver --


def contains(root: str, path: str) -> bool:
    """Return True when ``path`` equals ``root`` or lies under it, compared by path components.

    Both must be absolute real paths (e.g. from :func:`resolve`); a path holding a ``..``
    component is never contained. ``/s/foo`` never contains ``/s/foo-evil`` (SPEC §10.5).
    """
    outer = [p for p in root.split("/") if p]
    inner = [p for p in path.split("/") if p]
    return len(inner) >= len(outer) and inner[: len(outer)] == outer and ".." not in inner


def resolve(
    path: str, *, strict: bool = False, budget: int = MAX_SYMLINK_HOPS
) -> tuple[str, int] | None:
    """Resolve every symlink in the absolute ``path``, iteratively, following at most ``budget``.

    The one place a path is made real: it resolves fully or refuses, so what it returns holds no
    symlink at the moment of the call (SPEC §20.6, §30.6). A loop, a chain longer than
    ``budget`` or a link that changes while it is read (it vanishes between its ``lstat`` and
    its ``readlink``) is refused in both modes: a path holding the link the walk stopped at
    would be followed further by whoever opens it, with a fresh budget of its own.

    With ``strict=False`` this is ``os.path.realpath`` for every path whose links resolve: a
    missing component and what follows it are kept as written (``..`` after it applied
    lexically), a dangling link's target is included. With ``strict=True`` it is the kernel's
    lookup: a component followed by more of the path must be a directory once its links are
    followed (``file/..`` and ``missing/../x`` do not resolve) and only the last may be missing.

    Returns:
        ``(real path, number of links followed)``; ``None`` when the path takes more than
        ``budget`` links (a loop included) or a link changed while it was read, and (strict
        only) when it cannot be reached.
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
        except (OSError, ValueError):
            # ENOENT (or ENOTDIR, ENAMETOOLONG): nothing is there now.
            if strict and todo:
                return None
            comps.append(name)
            continue
        if not stat.S_ISLNK(mode):
            if strict and todo and not stat.S_ISDIR(mode):
                return None  # ENOTDIR: more path (even a trailing slash) after a non-directory
            comps.append(name)
            continue
        links += 1
        if links > budget:
            return None
        try:
            target = os.readlink(here)
        except (OSError, ValueError):
            return None  # the link changed between its lstat and its readlink
        if target.startswith("/"):
            comps = []
        todo.extend(target.split("/")[::-1])
    return "/" + "/".join(comps), links


def absolute(path: str) -> str:
    """``path`` made absolute against the working directory, *not* normalised: ``..`` after a
    symlink must climb from where the link leads, as the kernel does (``os.path.abspath`` would
    collapse it lexically and could name another directory)."""
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def real_path(path: str) -> str | None:
    """Canonicalise ``path`` (made absolute) as ``os.path.realpath`` does, without recursion
    (SPEC §10.5, §20.6): symlinks followed, a dangling link's target included, the missing tail
    kept, ``..`` resolved after each hop.

    Returns:
        The real path, holding no symlink; ``None`` when its links cannot be resolved within
        :data:`MAX_SYMLINK_HOPS` hops (a loop, a long chain) or one changed while it was read:
        the caller refuses, it never falls back to the path as given (SPEC §30.6).
    """
    resolved = resolve(absolute(path))
    return None if resolved is None else resolved[0]


# -- the pin --


class Pin:
    """A skill's real directory and identity, taken at discovery (SPEC §20.1). Read-only.

    A plain slotted class rather than a dataclass: discovery makes one per skill, so its size and
    construction time count (SPEC §26). A pin taken below a parent directory keeps the parent's real
    path (shared by the skills of a root) and its own name, and joins them when asked.

    Attributes:
        real_dir: The skill directory's real path (no symlink in it).
        dev: ``st_dev`` of that directory.
        ino: ``st_ino`` of that directory.
        hops: Symlinks followed from the skill's ``dir`` to ``real_dir``; they count towards the
            :data:`MAX_SYMLINK_HOPS` of a resource reached through ``dir`` (as the kernel counts).
        manifest: For a manifest that is a link leading outside the skill (SPEC §20.3): its real
            path, ``st_dev`` and ``st_ino``; else ``None``.
    """

    __slots__ = ("_base", "_name", "dev", "hops", "ino", "manifest")
    _base: str
    _name: str | None
    dev: int
    ino: int
    hops: int
    manifest: tuple[str, int, int] | None

    def __init__(
        self,
        real_dir: str,
        dev: int,
        ino: int,
        hops: int = 0,
        manifest: tuple[str, int, int] | None = None,
        *,
        name: str | None = None,
    ) -> None:
        # With ``name``, ``real_dir`` is the parent's real path and the pin's is the two joined.
        setattr_ = object.__setattr__
        setattr_(self, "_base", real_dir)
        setattr_(self, "_name", name)
        setattr_(self, "dev", _DEVICES.setdefault(dev, dev))  # one int per device, not per skill
        setattr_(self, "ino", ino)
        setattr_(self, "hops", hops)
        setattr_(self, "manifest", manifest)

    def __reduce__(self) -> tuple[Any, ...]:
        # Copies and pickles are made through the constructor (attributes cannot be set).
        return (_pin, (self._base, self.dev, self.ino, self.hops, self.manifest, self._name))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"Pin.{key} is read-only")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"Pin.{key} is read-only")

    @property
    def real_dir(self) -> str:
        """The skill directory's real path."""
        name = self._name
        if name is None:
            return self._base
        # posixpath.join for one listed component (never absolute), without its generic steps.
        base = self._base
        return base + name if not base or base.endswith("/") else f"{base}/{name}"

    def with_manifest(self, manifest: tuple[str, int, int]) -> Pin:
        """This pin with ``manifest`` set (a manifest link leading outside, SPEC §20.3)."""
        return Pin(self.real_dir, self.dev, self.ino, self.hops, manifest)

    def _key(self) -> tuple[str, int, int, int, tuple[str, int, int] | None]:
        return (self.real_dir, self.dev, self.ino, self.hops, self.manifest)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Pin:
            return NotImplemented
        assert isinstance(other, Pin)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Pin(real_dir={self.real_dir!r}, dev={self.dev!r}, ino={self.ino!r}, "
            f"hops={self.hops!r}, manifest={self.manifest!r})"
        )


_DEVICES: dict[int, int] = {}


def _pin(
    base: str,
    dev: int,
    ino: int,
    hops: int,
    manifest: tuple[str, int, int] | None,
    name: str | None,
) -> Pin:
    """Rebuild a pickled or copied :class:`Pin`."""
    return Pin(base, dev, ino, hops, manifest, name=name)


def _stale(name: str, real_dir: str) -> SkillError:
    return SkillError(
        ErrorCode.STALE_SKILL,
        f"skill '{name}' changed since discovery: {real_dir} is no longer the directory found "
        "(refresh to pick up the new one)",
        {"name": name, "dir": real_dir},
    )


_build_pin = frozen_builder(Pin, ("_base", "_name", "dev", "ino", "hops", "manifest"))


def pin_of(base: str, dev: int, ino: int, hops: int, name: str | None) -> Pin:
    """``Pin(base, dev, ino, hops, name=name)``, made by ``_frozen.frozen_builder``: discovery
    pins every skill (SPEC §26). The scan's index hit pins from the stat it validated the
    directory by (a directory, not a link: the identity an ``fstat`` of it open would give)."""
    return _build_pin(base, name, _DEVICES.setdefault(dev, dev), ino, hops, None)


def pin_directory(real_dir: str, fd: int, hops: int = 0, *, name: str | None = None) -> Pin:
    """Pin the directory open as ``fd`` whose real path is ``real_dir`` (one ``fstat``); with
    ``name``, ``real_dir`` is its parent's real path and ``name`` its entry there."""
    st = os.fstat(fd)
    return pin_of(real_dir, st.st_dev, st.st_ino, hops, name)


def open_child_dir(parent_fd: int, name: str) -> int | None:
    """Open the directory ``name`` (one component) below the directory open as ``parent_fd``,
    with ``O_NOFOLLOW``: the last step of :func:`open_real_dir`, for a scan that walked to the
    parent once (SPEC §20.1, §26).

    Returns:
        A descriptor (``O_RDONLY | O_DIRECTORY``) the caller closes, or ``None`` when ``name`` is
        missing, not a directory, or a symlink.

    Raises:
        OSError: For other errors (``EACCES``, ``EMFILE``).
    """
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        if gone_or_link(exc):
            return None
        raise


def open_real_dir(real_dir: str, *, load: bool = True) -> int | None:
    """Open the directory at the real path ``real_dir`` by walking it from ``/`` one component at a
    time with ``O_NOFOLLOW`` (``O_PATH`` for the ancestors; SPEC §20.1).

    Args:
        real_dir: The absolute real path.
        load: Whether ``openat2`` may be loaded for this. Discovery passes ``False``: loading it
            imports ``ctypes`` (a few milliseconds, SPEC §26 first call), more than the few
            component opens it saves; once loaded by a resource access it is used anyway.

    Returns:
        A descriptor (``O_RDONLY | O_DIRECTORY``) the caller closes, or ``None`` when a component is
        missing, not a directory, or a symlink.

    Raises:
        OSError: For other errors (``EACCES`` on an ancestor, ``EMFILE``).
    """
    fast = openat2() if load or openat2_loaded() else None
    if callable(fast) and _fs.HAS_SAFE_OPEN:
        try:
            return int(fast(-100, real_dir, DIR_FLAGS, RESOLVE_NO_SYMLINKS))
        except OSError as exc:
            if gone_or_link(exc):
                return None
            raise
    parts = [p for p in real_dir.split("/") if p]
    cur = os.open("/", ANCESTOR_FLAGS if parts else DIR_FLAGS)
    try:
        last = len(parts) - 1
        for i, name in enumerate(parts):
            try:
                nxt = os.open(name, DIR_FLAGS if i == last else ANCESTOR_FLAGS, dir_fd=cur)
            except OSError as exc:
                if gone_or_link(exc):
                    return None
                raise
            os.close(cur)
            cur = nxt
        fd, cur = cur, -1
        return fd
    finally:
        if cur >= 0:
            os.close(cur)


def open_dir_at(dir_fd: int, name: str) -> int | None:
    """Open the directory ``name`` in ``dir_fd`` with ``O_NOFOLLOW`` (``O_RDONLY``).

    Returns:
        The descriptor, or ``None`` when ``name`` is missing, not a directory, or a symlink.

    Raises:
        OSError: For other errors.
    """
    try:
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if gone_or_link(exc):
            return None
        raise


def open_below(root: int, parts: tuple[str, ...]) -> int | None:
    """Open the real directory ``parts`` below the directory ``root`` (``O_RDONLY``), never
    through a symlink: in one ``openat2`` where Linux has it, else one component at a time with
    ``O_NOFOLLOW`` (SPEC §20.2).

    Returns:
        The descriptor, or ``None`` when a component is missing, not a directory, or a symlink.

    Raises:
        OSError: For other errors of the component walk.
    """
    if not parts:
        return os.dup(root)
    fast = openat2()
    if callable(fast):
        try:
            return int(fast(root, "/".join(parts), DIR_FLAGS, FAST_RESOLVE))
        except OSError:
            return None
    cur = root
    for part in parts:
        try:
            nxt = open_dir_at(cur, part)
        finally:
            if cur != root:
                os.close(cur)
        if nxt is None:
            return None
        cur = nxt
    return cur


def open_file(name: str, dir_fd: int | None = None) -> int:
    """Open ``name`` (in ``dir_fd``, or an absolute real path) for reading without blocking and
    without following a final symlink: ``O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`` (SPEC §20.4). The
    caller checks the type by ``fstat`` before reading and closes the descriptor.

    Raises:
        OSError: As ``os.open``.
    """
    return os.open(name, FILE_FLAGS, dir_fd=dir_fd)


def open_pinned(pin: Pin, name: str) -> int:
    """Reach the pinned directory and check its identity (SPEC §20.1).

    Args:
        pin: The skill's pin.
        name: The skill's name, for the error.

    Returns:
        A directory descriptor of ``pin.real_dir`` (``O_RDONLY``); the caller closes it.

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}`` when a component of ``real_dir`` is missing or
            became a symlink, or the directory reached is not the one pinned; ``fs_error``'s code
            ``{path}`` for other OS errors.
    """
    try:
        fd = open_real_dir(pin.real_dir)
        if fd is None:
            raise _stale(name, pin.real_dir)
        st = os.fstat(fd)
    except OSError as exc:
        raise fs_error(exc, pin.real_dir) from None
    if (st.st_dev, st.st_ino) != (pin.dev, pin.ino):
        os.close(fd)
        raise _stale(name, pin.real_dir)
    return fd


def pin_file(real_path: str, st: os.stat_result, hops: int = 0) -> Pin:
    """The pin of a single-file skill (SPEC §20.1, §29.2): the file's real path and identity
    stand as its ``real_dir`` and as its ``manifest``. Any walk below it fails closed (the
    kernel refuses to open a file as a directory: ``stale_skill``), so nothing next to the file
    is reached through it; :func:`verify_pin` and :func:`read_pinned_manifest` check the file.

    Args:
        real_path: The file's real path (no symlink in it).
        st: The ``fstat`` of the file opened there.
        hops: Symlinks followed from the listed name to ``real_path``.
    """
    return Pin(real_path, st.st_dev, st.st_ino, hops, (real_path, st.st_dev, st.st_ino))


def is_file_pin(pin: Pin) -> bool:
    """Whether ``pin`` is a single-file skill's (:func:`pin_file`)."""
    manifest = pin.manifest
    return manifest is not None and manifest[0] == pin.real_dir


def _open_pinned_file(pin: Pin, name: str) -> int:
    """Open the file ``pin.manifest`` names, checked against its pinned identity: its directory
    walked from ``/`` with ``O_NOFOLLOW``, the file opened with ``O_NOFOLLOW | O_NONBLOCK |
    O_NOCTTY`` (SPEC §20.3, §20.4). The caller closes the descriptor.

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}`` when it is gone, became a link, is not a
            regular file or is another file; ``fs_error``'s code for other OS errors.
    """
    assert pin.manifest is not None
    target, dev, ino = pin.manifest
    parent, leaf = posixpath.split(target)
    try:
        dir_fd = open_real_dir(parent)
        if dir_fd is None:
            raise _stale(name, pin.real_dir)
        try:
            fd = open_file(leaf, dir_fd)
        except OSError as exc:
            if gone_or_link(exc):
                raise _stale(name, pin.real_dir) from None
            raise
        finally:
            os.close(dir_fd)
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise
    except OSError as exc:
        raise fs_error(exc, target) from None
    if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (dev, ino):
        os.close(fd)
        raise _stale(name, pin.real_dir)
    return fd


def read_pinned_manifest(pin: Pin, name: str, cap: int) -> bytes | None:
    """Read the manifest of a skill whose ``SKILL.md`` links outside it (SPEC §20.3, §22.4).

    Opens the target pinned at discovery, never the link: its directory is walked from ``/``
    with ``O_NOFOLLOW``, the file opened with ``O_NOFOLLOW | O_NONBLOCK | O_NOCTTY``, and its
    identity compared with the pin before a byte is read.

    Args:
        pin: The skill's pin, with ``pin.manifest`` set.
        name: The skill's name, for errors.
        cap: The most bytes accepted.

    Returns:
        The bytes, or ``None`` when the file holds more than ``cap``.

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}`` when the target is gone, became a link, is
            not a regular file or is another file than the one pinned; ``fs_error``'s code for
            other OS errors.
    """
    fd = _open_pinned_file(pin, name)
    try:
        return read_limited(fd, cap)
    except OSError as exc:
        assert pin.manifest is not None
        raise fs_error(exc, pin.manifest[0]) from None
    finally:
        os.close(fd)


def pin_by_name(skill_dir: str | os.PathLike[str], name: str) -> Pin:
    """Pin ``skill_dir`` as it is now, by name (for a skill that carries no pin).

    Raises:
        SkillError: ``not_found`` ``{name}`` when it cannot be reached as a directory;
            ``fs_error``'s code for other OS errors.
    """
    resolved = resolve(absolute(os.fspath(skill_dir)), strict=True)
    try:
        fd = open_real_dir(resolved[0]) if resolved is not None else None
    except OSError as exc:
        raise fs_error(exc, skill_dir) from None
    if resolved is None or fd is None:
        raise SkillError(
            ErrorCode.NOT_FOUND, f"skill directory not found: {skill_dir}", {"name": name}
        )
    try:
        return pin_directory(resolved[0], fd, resolved[1])
    finally:
        os.close(fd)


def verify_pin(pin: Pin, name: str) -> None:
    """Raise ``stale_skill`` unless the pinned directory is still the one discovered.

    A single-file skill's pin (:func:`is_file_pin`) is checked as its file: reached the same
    way, and a regular file of the pinned identity (SPEC §29.2).

    Raises:
        SkillError: As :func:`open_pinned`.
    """
    if is_file_pin(pin):
        os.close(_open_pinned_file(pin, name))
        return
    if not _fs.HAS_SAFE_OPEN:
        _verify_by_name(pin, name)
        return
    os.close(open_pinned(pin, name))


def verify_link(pin: Pin, name: str, skill_dir: str | os.PathLike[str]) -> None:
    """Raise ``stale_skill`` unless ``skill_dir`` (the skill's ``dir``, maybe a link path) still
    leads to the pinned directory: the check behind every path handed out under ``dir``
    (``resource_path``, ``SkillResource.path``, the activation's skill directory; SPEC §20.1,
    "a name that is right when returned"; the path stays lexical, SPEC §10.6).

    ``skill_dir`` is looked up now by the kernel (one ``stat`` following links, as a caller
    opening the path will) and the directory it reaches is compared with the pin's identity, so
    a link repointed to another directory (while the pinned one still exists) is caught.

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}`` (``dir`` the pinned ``real_dir``).
    """
    try:
        st = os.stat(absolute(os.fspath(skill_dir)))
    except (OSError, ValueError):
        raise _stale(name, pin.real_dir) from None
    # A single-file skill's "directory" is its file (SPEC §29.2).
    kind_ok = stat.S_ISREG(st.st_mode) if is_file_pin(pin) else stat.S_ISDIR(st.st_mode)
    if not kind_ok or (st.st_dev, st.st_ino) != (pin.dev, pin.ino):
        raise _stale(name, pin.real_dir)


def _verify_by_name(pin: Pin, name: str) -> None:
    """Fallback check without ``dir_fd``: the real path holds no link and names the pinned inode."""
    resolved = resolve(pin.real_dir, strict=True)
    try:
        st = os.lstat(pin.real_dir)
    except OSError as exc:
        if unreachable(exc):
            raise _stale(name, pin.real_dir) from None
        raise fs_error(exc, pin.real_dir) from None
    if (
        resolved is None
        or resolved[0] != posixpath.normpath(pin.real_dir)
        or (st.st_dev, st.st_ino) != (pin.dev, pin.ino)
    ):
        raise _stale(name, pin.real_dir)


# -- the pure resolver --


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
            raise invalid_input(
                f"resource path is unusable: {type(exc).__name__}", {"type": type(rel).__name__}
            ) from None
    if not isinstance(rel, str):
        raise invalid_input(
            f"resource path must be a str, got {type(rel).__name__}", {"type": type(rel).__name__}
        )
    rel = exact_str(rel)  # (a subclass's own methods never decide what is checked and handed out)
    if rel == "":
        raise invalid_input("resource path must not be empty", {"rel": rel})
    if "\x00" in rel:
        raise invalid_input("resource path must not contain NUL", {"rel": rel})
    if not _encodable(rel):
        raise invalid_input("resource path cannot be encoded for the file system", {"rel": rel})
    posix = rel.replace("\\", "/")
    if is_absolute_rel(posix):
        raise invalid_input(f"resource path must be relative: {rel}", {"rel": rel})
    return rel, posix


def has_drive(text: str) -> bool:
    """Whether ``text`` starts with a drive (``C:``), which no relative path does (SPEC §10.2)."""
    return _DRIVE_RE.match(text) is not None


def is_absolute_rel(posix: str) -> bool:
    """Whether a resource path with ``/`` separators is absolute (SPEC §10.2): ``/x``,
    ``//server/share``, ``C:x``, ``C:/x``."""
    return posix.startswith("/") or has_drive(posix)


# A directory no relative path can name (NUL is refused in ``rel``): climbing out of it and back
# in is an escape, as it is for a directory on disk whose name is not given again.
_LEXICAL_BASE = "/\x00"


def lexical_rel(rel: object) -> tuple[str, str]:
    """The lexical rules of the resolver without a directory (SPEC §10.1-4), for skills whose
    files are names, not paths (archives, SPEC §25.1).

    Returns:
        ``(rel normalised, POSIX, "" for the skill itself; rel as given)``.

    Raises:
        SkillError: ``invalid_input`` for a non-text, empty, NUL-holding or absolute ``rel``;
            ``path_escape`` ``{rel}`` for one that climbs out of the skill.
    """
    return _lexical_inner(_LEXICAL_BASE, rel)


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
    if isinstance(skill_dir, str):
        skill_dir = exact_str(skill_dir)
    if not isinstance(skill_dir, str) or skill_dir == "":
        raise invalid_input(
            f"skill directory must be a non-empty str, got {type(skill_dir).__name__}",
            {"type": type(skill_dir).__name__},
        )
    if "\x00" in skill_dir or not _encodable(skill_dir):
        raise invalid_input("skill directory is not a usable path", {"skill_dir": skill_dir})
    return absolute(skill_dir)


def _escape(rel: str) -> SkillError:
    return SkillError(
        ErrorCode.PATH_ESCAPE, f"resource path escapes the skill directory: {rel}", {"rel": rel}
    )


def _not_found(rel: str) -> SkillError:
    return SkillError(ErrorCode.NOT_FOUND, f"No such resource: {rel}", {"rel": rel})


def _not_a_file(rel: str) -> SkillError:
    return SkillError(ErrorCode.NOT_A_FILE, f"Resource '{rel}' is not a file", {"rel": rel})


def _lexical_inner(base: str, rel: object) -> tuple[str, str]:
    """SPEC §10.1-4: return ``(rel normalised below the absolute ``base``, rel as given)``.

    ``rel`` is joined to ``base`` lexically, so ``../s/x`` under ``/r/s`` is ``x``.
    """
    rel_text, posix = _check_rel(rel)
    parts = posix.split("/")
    if "" not in parts and "." not in parts and ".." not in parts:
        # Already normal (no empty, ``.`` or ``..`` component; not absolute, checked above):
        # what _normalised_inner gives for it is itself (the common case, SPEC §26).
        return posix, rel_text
    return _normalised_inner(base, posix, rel_text), rel_text


def _normalised_inner(base: str, posix: str, rel_text: str) -> str:
    """``posix`` (a relative path with ``/`` separators) joined to ``base``, normalised, and
    taken below it again; ``path_escape`` ``{rel}`` when it climbs out."""
    lexical_base = posixpath.normpath(base)
    lexical = posixpath.normpath(posixpath.join(lexical_base, posix))
    if not contains(lexical_base, lexical):
        raise _escape(rel_text)
    return lexical[len(lexical_base) :].strip("/")


def _confine(skill_dir: object, rel: object) -> tuple[str, str, str]:
    """Apply SPEC §10.1-5 by name; return ``(base, lexical candidate, rel text)``, all ``str``."""
    _check_rel(rel)
    base = _check_dir(skill_dir)
    inner, rel_text = _lexical_inner(base, rel)
    # The candidate is the normalised ``rel`` under the directory *as given*.
    candidate = base.rstrip("/") + "/" + inner if inner else base
    real_base = real_path(base)
    real = None if real_base is None else _real_below(real_base, inner)
    # A path whose links cannot be resolved within MAX_SYMLINK_HOPS leads nowhere: the candidate
    # handed out is the lexical path, and the kernel, counting every link from its start (at
    # least as many as counted here), refuses it (ELOOP). Accesses through the pin are
    # ``not_found`` for it (SPEC §10).
    if real_base is not None and real is not None and not contains(real_base, real):
        raise _escape(rel_text)
    return base, candidate, rel_text


def _real_below(real_base: str, inner: str) -> str | None:
    """``real_path(real_base + "/" + inner)`` for a canonical ``real_base`` and a normalised
    relative ``inner``, without resolving ``real_base`` a second time.

    Components are ``lstat``-ed from the real base down; at the first symlink the rest is
    resolved by :func:`real_path`, and at the first missing component the rest is kept as given,
    which is exactly what :func:`real_path` returns for the whole path (``None`` included, for
    links that cannot be resolved within :data:`MAX_SYMLINK_HOPS` hops).
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
    here and is ``not_found`` when reached), and a path whose links cannot be resolved within
    :data:`MAX_SYMLINK_HOPS` hops (a loop, a long chain) is returned as the lexical path it is,
    which leads nowhere: the kernel, counting every link from its start, refuses it (``ELOOP``).
    The skill directory is taken by name, as it is now;
    the library's own accessors work from the directory pinned at discovery instead (SPEC §20).

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


# -- reaching a resource from the pin --


class Reached(NamedTuple):
    """What :func:`reach` found: the final object's ``lstat`` and its real path below the pin.

    A named tuple, not a dataclass: an internal record, and a dataclass's generated code would
    run at import (SPEC §26).

    Attributes:
        st: The ``stat_result`` of the object reached (never a symlink).
        parts: Its real path below ``pin.real_dir``, as components.
        fd: An open descriptor of it when asked for (a regular file or directory), else ``-1``.
    """

    st: os.stat_result
    parts: tuple[str, ...]
    fd: int = -1


def _check_inside(skill_dir: str, rel: object) -> tuple[str, str]:
    """The lexical checks of an access through a pin (SPEC §10.1-4): ``(inner, rel text)``."""
    return _lexical_inner(skill_dir, rel)


def open_in(pin: Pin, name: str, skill_dir: str, rel: str | os.PathLike[str]) -> BinaryIO:
    """Open the regular file ``rel`` of the pinned skill ``name`` race-free (SPEC §10, §20).

    ``rel`` is normalised lexically under ``skill_dir`` (the skill's ``dir`` as configured, an
    absolute path); the file is then reached from the pinned real directory.

    Returns:
        A binary file object reading from the confined descriptor; the caller closes it.

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}``; ``invalid_input`` ``{rel}``; ``path_escape``
            ``{rel}`` (``..`` out, or a symlink leading outside the real directory, also when one
            is swapped in during the call); ``not_found`` ``{rel}`` (missing, through a
            non-directory, too long, more than :data:`MAX_SYMLINK_HOPS` links); ``not_a_file``
            ``{rel}`` (a directory, FIFO, socket or device); ``io_error`` ``{path}`` otherwise.
    """
    inner, rel_text = _check_inside(skill_dir, rel)
    if not _fs.HAS_SAFE_OPEN:
        _verify_by_name(pin, name)
        base = pin.real_dir
        return _open_by_identity(base, posixpath.join(base, inner) if inner else base, rel_text)
    found = reach(pin, name, inner, rel_text, want="file")
    return _wrap(found.fd, rel_text)


def stat_in(
    pin: Pin, name: str, skill_dir: str, rel: str | os.PathLike[str]
) -> tuple[os.stat_result, str]:
    """``lstat`` of the regular file ``rel`` of the pinned skill, reached as :func:`open_in` does
    but without opening it (``resource_path``). A plain ``rel`` is tried first in the six system
    calls of :func:`_stat_plain`; whatever that does not answer goes through :func:`reach`.

    Returns:
        ``(stat of the file, rel normalised lexically)``.

    Raises:
        SkillError: As :func:`open_in`.
    """
    if type(rel) is str and _plain_rel(rel):
        plain = _stat_plain(pin, rel)
        if plain is not None:
            return plain, rel
    inner, rel_text = _check_inside(skill_dir, rel)
    if not _fs.HAS_SAFE_OPEN:
        with open_in(pin, name, skill_dir, rel) as fh:
            return os.fstat(fh.fileno()), inner
    found = reach(pin, name, inner, rel_text, want="stat")
    if not stat.S_ISREG(found.st.st_mode):
        raise _not_a_file(rel_text)
    return found.st, inner


def _plain_rel(rel: str) -> bool:
    """Whether ``rel`` is a path the lexical rules (SPEC §10.1-4) take as it is: ASCII, not
    empty, relative, ``/`` separators only, no NUL, no drive, and no empty, ``.`` or ``..``
    component. Then :func:`_check_inside` gives ``(rel, rel)`` for it, whatever the directory."""
    if not rel.isascii() or "\\" in rel or "\x00" in rel or rel.startswith("/"):
        return False
    if rel[1:2] == ":":  # (a drive, or a name such as "a:b": the lexical rules decide)
        return False
    parts = rel.split("/")
    return "" not in parts and "." not in parts and ".." not in parts


def _stat_plain(pin: Pin, rel: str) -> os.stat_result | None:
    """The common case of :func:`stat_in` for a plain ``rel`` (see :func:`_plain_rel`): the
    pinned directory reached from ``/`` with ``openat2(RESOLVE_NO_SYMLINKS)`` and its identity
    compared, then ``rel`` reached below it with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS``: the
    same six system calls :func:`reach` makes, without its steps for other cases (SPEC §26;
    docs/performance.md). ``None`` for anything but a regular file reached so (``openat2``
    missing, a symlink on the way, a stale pin, any error): :func:`reach` then decides, with its
    exact errors."""
    fast = openat2()
    if not callable(fast) or not _fs.HAS_SAFE_OPEN:
        return None
    try:
        fd = int(fast(-100, pin.real_dir, DIR_FLAGS, RESOLVE_NO_SYMLINKS))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_ino != pin.ino or st.st_dev != pin.dev:
            return None
        probe = int(fast(fd, rel, PATH_FLAGS, FAST_RESOLVE))
        try:
            st = os.fstat(probe)
        finally:
            os.close(probe)
    except OSError:
        return None
    finally:
        os.close(fd)
    return st if stat.S_ISREG(st.st_mode) else None


def reach(
    pin: Pin,
    name: str,
    inner: str,
    rel: str,
    *,
    want: str = "stat",
    base_fd: int = -1,
) -> Reached:
    """Reach ``inner`` (normalised, below the skill) from the pinned directory.

    Args:
        pin: The skill's pin.
        name: The skill's name (for ``stale_skill``).
        inner: The normalised relative path; ``""`` is the skill directory itself.
        rel: The path as the caller gave it, for errors.
        want: ``"stat"`` (no descriptor), ``"file"`` (a regular file opened with ``O_NOFOLLOW |
            O_NONBLOCK | O_NOCTTY``; anything else is ``not_a_file``) or ``"dir"`` (a directory
            opened ``O_RDONLY``; anything else is ``not_a_file``).
        base_fd: A descriptor of the pinned directory already checked, reused (not closed);
            ``-1`` to open and check one now.

    Returns:
        A :class:`Reached`.

    Raises:
        SkillError: As :func:`open_in`.
    """
    own = base_fd < 0
    root = open_pinned(pin, name) if own else base_fd
    try:
        if inner and want != "dir":
            found = _reach_at_once(root, inner, rel, want)
            if found is not None:
                return found
        parts = inner.split("/") if inner else []
        hops = pin.hops
        retries = 0
        while True:
            result = _walk(root, pin.real_dir, parts, rel, want)
            if isinstance(result, Reached):
                return result
            followed, parts = result
            if followed == 0:  # a link changed while it was read: walk again, a few times
                retries += 1
                if retries >= _RETRIES:
                    raise _not_found(rel)
                continue
            hops += followed
            if hops > MAX_SYMLINK_HOPS:
                raise SkillError(
                    ErrorCode.NOT_FOUND, f"too many symlinks resolving {rel}", {"rel": rel}
                )
    finally:
        if own:
            os.close(root)


def _reach_at_once(root: int, inner: str, rel: str, want: str) -> Reached | None:
    """The common case of :func:`reach` in one ``openat2`` (no symlink on the way, nothing
    outside): the object is opened ``O_PATH`` and ``fstat``-ed, and a regular file is then opened
    for reading the same way. ``None`` when ``openat2`` is missing or refuses (a symlink, an
    escape, any error): the component walk then decides, with its exact errors."""
    fast = openat2()
    if not callable(fast):
        return None
    try:
        probe = int(fast(root, inner, PATH_FLAGS, FAST_RESOLVE))
    except OSError:
        return None
    try:
        st = os.fstat(probe)
    finally:
        os.close(probe)
    if stat.S_ISLNK(st.st_mode):
        return None
    parts = tuple(inner.split("/"))
    if want != "file":
        return Reached(st, parts)
    if not stat.S_ISREG(st.st_mode):
        raise _not_a_file(rel)
    try:
        return Reached(st, parts, int(fast(root, inner, FILE_FLAGS, FAST_RESOLVE)))
    except OSError:
        return None


def _walk(
    root: int, real_base: str, parts: list[str], rel: str, want: str
) -> Reached | tuple[int, list[str]]:
    """Walk ``parts`` from the descriptor ``root`` with ``O_NOFOLLOW``.

    Returns:
        What was reached, or, when a symlink is met, ``(links followed, new parts below
        real_base)`` for the caller to walk again.
    """
    cur = root
    where = posixpath.join(real_base, *parts)
    try:
        if not parts:
            st = os.fstat(root)
            if want == "file":
                raise _not_a_file(rel)
            fd = os.dup(root) if want == "dir" else -1
            return Reached(st, (), fd)
        last = len(parts) - 1
        for i, part in enumerate(parts):
            try:
                if i < last:
                    nxt = os.open(part, ANCESTOR_FLAGS, dir_fd=cur)
                else:
                    st = os.stat(part, dir_fd=cur, follow_symlinks=False)
                    if stat.S_ISLNK(st.st_mode):
                        raise OSError(errno.ELOOP, "symbolic link")
                    fd = -1
                    if want == "file":
                        if not stat.S_ISREG(st.st_mode):
                            raise _not_a_file(rel)
                        fd = os.open(part, FILE_FLAGS, dir_fd=cur)
                    elif want == "dir":
                        if not stat.S_ISDIR(st.st_mode):
                            raise _not_a_file(rel)
                        fd = os.open(part, DIR_FLAGS, dir_fd=cur)
                    return Reached(st, tuple(parts), fd)
            except OSError as exc:
                if exc.errno in LINK_ERRNOS:
                    target = _readlink(part, cur)
                    if target is not None:
                        return _hop(real_base, parts[:i], target, parts[i + 1 :], rel)
                    if exc.errno == errno.ELOOP:
                        return 0, parts  # the link vanished or changed before readlink
                if unreachable(exc):
                    raise _not_found(rel) from None
                raise fs_error(exc, where) from None
            if cur != root:
                os.close(cur)
            cur = nxt
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns
    finally:
        if cur != root:
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
        SkillError: ``path_escape`` when the target lies outside ``real_base`` (a dangling target
            included); ``not_found`` when it cannot be reached or takes more than
            :data:`MAX_SYMLINK_HOPS` links.
    """
    here = posixpath.join(real_base, *done)
    # No lexical normpath here: ``..`` after a symlinked directory must climb from its target.
    whole = posixpath.join(here, target, *rest)
    resolved = resolve(whole, strict=True)
    if resolved is None:
        real = real_path(whole)
        if real is not None and not contains(real_base, real):
            raise _escape(rel)
        raise _not_found(rel)  # missing, or links that cannot be resolved: it leads nowhere
    real_target, links = resolved
    if not contains(real_base, real_target):
        raise _escape(rel)
    inner = real_target[len(real_base) :].strip("/")
    return links + 1, inner.split("/") if inner else []


def _wrap(fd: int, rel: str) -> BinaryIO:
    """Check that ``fd`` is a regular file and return a buffered reader owning it."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _not_a_file(rel)
        if NONBLOCK and hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def open_confined(skill_dir: str | os.PathLike[str], rel: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file inside ``skill_dir`` race-free, pinning the directory now (SPEC §10).

    The directory's real path is taken by name at the call and pinned; the file is then reached
    as :func:`open_in` reaches it.

    Raises:
        SkillError: The resolver's ``invalid_input``/``path_escape``; ``path_escape`` ``{rel}``
            when a symlink met on the way leads outside the real skill directory; ``not_found``
            ``{rel}`` when the directory or a component is missing, not a directory, its name too
            long, or reaching it takes more than :data:`MAX_SYMLINK_HOPS` symlinks (a loop);
            ``not_a_file`` ``{rel}`` for a directory or special file; ``io_error`` ``{path}``.
    """
    base, candidate, rel_text = _confine(skill_dir, rel)
    if not _fs.HAS_SAFE_OPEN:
        return _open_by_identity(base, candidate, rel_text)
    resolved = resolve(base, strict=True)
    if resolved is None:
        raise _not_found(rel_text)
    real_base, hops = resolved
    try:
        fd = open_real_dir(real_base)
    except OSError as exc:
        raise fs_error(exc, candidate) from None
    if fd is None:
        raise _not_found(rel_text)
    try:
        pin = pin_directory(real_base, fd, hops)
        inner = candidate[len(base.rstrip("/")) :].strip("/")
        found = reach(pin, "", inner, rel_text, want="file", base_fd=fd)
    finally:
        os.close(fd)
    return _wrap(found.fd, rel_text)


def _open_by_identity(base: str, candidate: str, rel: str) -> BinaryIO:
    """Fallback without ``O_NOFOLLOW``/``dir_fd``: open the checked real path by name, then require
    the descriptor to be the very file that was checked (same ``st_dev``/``st_ino``; SPEC §10).

    Raises:
        SkillError: As :func:`open_confined`; ``path_escape`` when the file opened is not the one
            checked or the real path changed meanwhile.
    """
    resolved_base = resolve(base, strict=True)
    resolved = resolve(candidate, strict=True)
    if resolved_base is None or resolved is None:
        raise _not_found(rel)
    real_base, real = resolved_base[0], resolved[0]
    if not contains(real_base, real):
        raise _escape(rel)
    try:
        checked = os.lstat(real)
        if stat.S_ISLNK(checked.st_mode):
            # every link that could be resolved was: what is left is a loop or a fresh swap.
            os.stat(real)
            raise _escape(rel)
    except OSError as exc:
        if unreachable(exc):
            raise _not_found(rel) from None
        raise fs_error(exc, candidate) from None
    if not stat.S_ISREG(checked.st_mode):
        raise _not_a_file(rel)
    try:
        fd = os.open(real, FILE_FLAGS & ~NOFOLLOW)
    except OSError as exc:
        if unreachable(exc):
            raise _not_found(rel) from None
        raise fs_error(exc, candidate) from None
    try:
        opened = os.fstat(fd)
        same = (opened.st_dev, opened.st_ino) == (checked.st_dev, checked.st_ino)
        again = resolve(candidate, strict=True)
        if not same or again is None or again[0] != real:
            raise _escape(rel)
    except BaseException:
        os.close(fd)
        raise
    return _wrap(fd, rel)
