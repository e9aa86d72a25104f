"""The file system's plumbing: open flags, ``openat2``, capped reads, paths built by component.

It decides nothing: which path is inside a skill, and what is done when a link is met, is
``_confine``'s; what is read is its callers'. The two whole-file entry points,
:func:`read_whole` and :func:`read_file_capped`, say a file past its cap is ``too_large`` (SPEC
§30.3). Everything here is about doing a step cheaply and without blocking, the same way
everywhere (SPEC §20, §26).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ._errors import ErrorCode, SkillError, fs_error

__all__ = [
    "ANCESTOR_FLAGS",
    "CLOEXEC",
    "DIR_FLAGS",
    "FAST_RESOLVE",
    "FILE_FLAGS",
    "HAS_SAFE_OPEN",
    "LIST_FLAGS",
    "NOFOLLOW",
    "NONBLOCK",
    "PATH_FLAGS",
    "READ_FLAGS",
    "RESOLVE_NO_SYMLINKS",
    "child_path",
    "lexical_child",
    "openat2",
    "openat2_loaded",
    "read_capped",
    "read_file_capped",
    "read_limited",
    "read_whole",
]

CLOEXEC = getattr(os, "O_CLOEXEC", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
PATH_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | NOFOLLOW | CLOEXEC
"""A look at an object without opening it for reading (``O_PATH`` on Linux), never through a
final link: what is then ``fstat``-ed."""
ANCESTOR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | _DIRECTORY | NOFOLLOW | CLOEXEC
"""A directory opened only to look names up in it: ``O_PATH`` needs no read permission (Linux)."""
DIR_FLAGS = os.O_RDONLY | _DIRECTORY | NOFOLLOW | CLOEXEC
"""A directory opened for listing, never through a final link."""
LIST_FLAGS = os.O_RDONLY | _DIRECTORY | CLOEXEC
"""A directory opened for listing by a path that may hold links (a root as configured)."""
FILE_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | NOFOLLOW | NONBLOCK | _NOCTTY | CLOEXEC
"""How a regular file of a skill is opened: read-only, never following a final link, without
blocking (a FIFO swapped in) and without becoming a controlling terminal (SPEC §20.4)."""
READ_FLAGS = os.O_RDONLY | NONBLOCK | _NOCTTY | CLOEXEC
"""A file of the library's own (an index, a store, a lock, a ``.gitignore``, an archive) opened by
a path that may hold links: without blocking on a FIFO or becoming a controlling terminal; the
caller checks the type by ``fstat`` before reading."""


def _has_safe_open() -> bool:
    return (
        hasattr(os, "O_NOFOLLOW")
        and hasattr(os, "O_DIRECTORY")
        and os.open in os.supports_dir_fd
        and os.readlink in os.supports_dir_fd
        and os.stat in os.supports_dir_fd
        and os.stat in os.supports_follow_symlinks
        and os.scandir in os.supports_fd
    )


HAS_SAFE_OPEN = _has_safe_open()
"""True where the descriptor walk is available (``O_NOFOLLOW``, ``dir_fd``); tests set it to
False to exercise the fallback."""


# -- openat2: the whole walk in one system call, where Linux has it ------------------------------

_RESOLVE_BENEATH = 0x08
RESOLVE_NO_SYMLINKS = 0x04
"""``openat2`` refuses a path holding any symlink (``ELOOP``)."""
FAST_RESOLVE = _RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
"""``openat2`` refuses any symlink and any path leaving its directory descriptor."""
_OPENAT2: list[object] = []  # [function or None], loaded on first use


def openat2_loaded() -> bool:
    """Whether :func:`openat2` was loaded already (loading it imports ``ctypes``)."""
    return bool(_OPENAT2)


def openat2() -> Any:
    """``openat2(dirfd, path, flags, resolve) -> fd`` through ``syscall(2)`` on Linux, or ``None``.

    With :data:`RESOLVE_NO_SYMLINKS` the kernel refuses a path holding any symlink (``ELOOP``),
    which is exactly the component-by-component ``O_NOFOLLOW`` walk, in one call; with
    :data:`FAST_RESOLVE` it also refuses to leave ``dirfd``. Where it is missing (other systems,
    kernels before 5.6, a seccomp filter) callers walk one component at a time. Loaded on first
    use: the first call imports ``ctypes``.

    Returns:
        The function (it raises ``OSError`` with the errno of a failure), or ``None``.
    """
    if _OPENAT2:
        return _OPENAT2[0]
    func: object = None
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            class _How(ctypes.Structure):
                _fields_ = (
                    ("flags", ctypes.c_uint64),
                    ("mode", ctypes.c_uint64),
                    ("resolve", ctypes.c_uint64),
                )

            libc = ctypes.CDLL(None, use_errno=True)
            # A private prototype of syscall(2) for this call alone (the library's shared
            # ``libc.syscall`` is left as it is): arguments converted by ctypes, in C.
            prototype = ctypes.CFUNCTYPE(
                ctypes.c_long,
                ctypes.c_long,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.POINTER(_How),
                ctypes.c_size_t,
                use_errno=True,
            )
            syscall = prototype(("syscall", libc))
            size = ctypes.sizeof(_How)
            # One read-only ``open_how`` per (flags, resolve): the kernel only reads it, so
            # threads share it safely.
            hows: dict[tuple[int, int], Any] = {}
            get_errno, encode = ctypes.get_errno, os.fsencode

            def call(dirfd: int, path: str, flags: int, resolve: int) -> int:
                how = hows.get((flags, resolve))
                if how is None:
                    how = hows.setdefault((flags, resolve), _How(flags, 0, resolve))
                fd: int = syscall(437, dirfd, encode(path), how, size)  # __NR_openat2, any arch
                if fd < 0:
                    code = get_errno()
                    raise OSError(code, os.strerror(code))
                return fd

            os.close(call(-100, "/", ANCESTOR_FLAGS & ~NOFOLLOW, RESOLVE_NO_SYMLINKS))
            func = call
        except (OSError, AttributeError, ImportError, ValueError):
            func = None
    _OPENAT2.append(func)
    return func


# -- capped reads ----------------------------------------------------------------------------


def read_limited(fd: int, cap: int, size: int | None = None) -> bytes | None:
    """Read the regular file open as ``fd`` whole, never more than ``cap`` bytes (SPEC §20.5).

    The size is taken from ``fstat`` first and the read stops one byte past the cap, so a sparse
    or growing file never allocates more than ``cap + 1`` bytes.

    Args:
        fd: The open file.
        cap: Most bytes accepted.
        size: The file's ``st_size`` when the caller has just taken it (``None``: ``fstat`` now).

    Returns:
        The bytes, or ``None`` when the file holds more than ``cap`` bytes.

    Raises:
        OSError: From ``fstat``/``read``.
    """
    if size is None:
        size = os.fstat(fd).st_size
    if size > cap:
        return None
    return _read_upto(lambda n: os.read(fd, n), size, cap)


def read_whole(fh: IO[bytes], cap: int, where: str | os.PathLike[str]) -> bytes:
    """The whole of the regular file open as ``fh``, its size taken from ``fstat`` of its
    descriptor (or, without one, as it reads), never more than ``cap`` bytes (SPEC §30.3).

    Raises:
        SkillError: ``too_large`` ``{path, size, max_bytes}`` past ``cap``; ``fs_error``'s
            codes ``{path}`` for an error of the read.
    """
    try:
        try:
            size = os.fstat(fh.fileno()).st_size
        except (AttributeError, OSError, ValueError):  # (no descriptor: an in-memory stream)
            size = 0
        data = read_capped(fh, size, cap)
    except OSError as exc:
        raise fs_error(exc, where) from None
    if data is None:
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{os.fspath(where)} is larger than {cap} bytes",
            {"path": os.fspath(where), "size": max(size, cap + 1), "max_bytes": cap},
        )
    return data


def read_file_capped(path: str, cap: int, *, what: str) -> bytes | None:
    """Read the regular file at ``path`` (a final link followed) whole, at most ``cap`` bytes:
    opened without blocking (a FIFO or terminal never hangs the caller), a regular file by
    ``fstat`` before a byte is read, its size taken from that descriptor (SPEC §20.4, §30.3).

    Args:
        path: The file.
        cap: Most bytes accepted.
        what: What the file is, for messages (``"manifest"``, ``"trust store"``).

    Returns:
        The bytes, or ``None`` when the file holds more than ``cap`` bytes.

    Raises:
        SkillError: ``not_a_file`` ``{path}`` for a directory, FIFO, socket or device;
            ``fs_error``'s codes ``{path}`` (``not_found`` for a missing file); ``invalid_input``
            ``{path, reason}`` for a path holding NUL.
    """
    try:
        fd = os.open(path, READ_FLAGS | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise fs_error(exc, path) from None
    except ValueError as exc:  # NUL in the path
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            f"{what} path is not usable: {exc}",
            {"path": path, "reason": str(exc)},
        ) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SkillError(
                ErrorCode.NOT_A_FILE, f"{what} {path} is not a regular file", {"path": path}
            )
        return read_limited(fd, cap, st.st_size)
    except OSError as exc:
        raise fs_error(exc, path) from None
    finally:
        os.close(fd)


def read_capped(fh: IO[bytes], size: int, cap: int) -> bytes | None:
    """Read the open file ``fh`` (``size`` bytes by ``fstat`` or as declared) whole, never more
    than ``cap + 1`` bytes, so a sparse or growing file never allocates more (SPEC §20.5, §30.3).

    The one capped read of the library, for file objects (archive members, confined opens);
    :func:`read_limited` is the same read for a bare descriptor.

    Returns:
        The bytes, or ``None`` when there are more than ``cap``.

    Raises:
        OSError: From the read.
    """
    if size > cap:
        return None
    return _read_upto(fh.read, size, cap)


def _read_upto(read: Callable[[int], bytes], size: int, cap: int) -> bytes | None:
    """Read until the end or one byte past ``cap``: first the ``size`` expected plus one byte,
    then chunks of 64 KiB at most, so no call asks for more than what is there or ``cap + 1`` in
    all. A read that gives exactly the ``size`` counted, and less than it asked for, is the end:
    a file that does not change is read in one call."""
    chunks: list[bytes] = []
    total = 0
    while total <= cap:
        want = min(cap + 1 - total, max(size + 1 - total, 65_536))
        chunk = read(want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total == size and len(chunk) < want:
            break
    if total > cap:
        return None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# -- paths built by component ---------------------------------------------------------------

# ``Path._make_child_relpath`` (CPython 3.11 and 3.12; gone in 3.13, where ``/`` is used): it
# joins one listed name without parsing it again.
_MAKE_CHILD = getattr(Path, "_make_child_relpath", None)
_PATH_TYPE = type(Path())  # what ``Path(text)`` makes here


def child_path(parent: Path, name: str) -> Path:
    """``parent / name`` for one component ``name`` taken from a directory listing (no ``/``, never
    ``.`` or ``..``), built without parsing ``name`` again where :mod:`pathlib` offers it (a
    scan builds two such paths per skill, SPEC §26)."""
    if _MAKE_CHILD is not None:
        made: Path = _MAKE_CHILD(parent, name)
        return made
    return parent / name


def lexical_child(skill_dir: Path, base: str, inner: str) -> Path:
    """The path handed out for ``inner`` under a skill (SPEC §10.6): ``Path(base + "/" +
    inner)``, ``base`` the text of ``skill_dir`` made absolute, ``inner`` normalised (no empty,
    ``.`` or ``..`` component; ``""`` for the directory itself). When ``skill_dir`` is that
    absolute path already, the result is built from it one component at a time, without
    parsing the whole text again (``resource_path``, SPEC §26)."""
    if type(skill_dir) is not _PATH_TYPE or str(skill_dir) != base:
        return Path(base.rstrip("/") + "/" + inner if inner else base)
    made = skill_dir
    if inner:
        for part in inner.split("/"):
            made = child_path(made, part)
    return made
