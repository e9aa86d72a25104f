"""Errors raised across the public API (SPEC §11).

Every failure a caller can act on is a :class:`SkillError` with a stable ``code`` and JSON-ready
``fields``. Configuration mistakes are a :class:`StartupError`, which is deliberately *not* a
``SkillError``: they are programming errors of the host, not problems with a skill.

Codes (what raises them; their ``fields``):

- ``invalid_skill``: ``parse_skill`` and strict discovery (fence, YAML, schema);
  ``path``, then ``at`` or ``line``/``column``.
- ``duplicate_skill``: strict discovery, one name twice in one root; ``name``, ``paths``.
- ``not_found``: unknown skill, unreachable resource, ENOENT; ``name``, ``rel`` or ``path``.
- ``not_a_file``: a resource that is a directory or special file, EISDIR/ENOTDIR;
  ``name``, ``rel`` or ``path``.
- ``path_escape``: a resource path leading outside its skill directory; ``rel``, ``name``.
- ``invalid_input``: an empty, absolute, NUL-holding or non-string path, a bad argument; ``rel``.
- ``io_error``: any other OS error (``fs_error``); ``path``.
- ``too_large``: ``read_resource`` over ``max_bytes``; ``name``, ``rel``, ``size``, ``max_bytes``.
- ``access_denied``: the agent file-access policy refused a path (SPEC §14); ``path``
  (``check_read``), or ``name``, ``rel`` (``SkillSession.read_resource`` of a skill not activated).
- ``stale_skill``: a pinned skill changed since discovery: its real directory was replaced, renamed
  away or became a symlink, or its archive was replaced (SPEC §20.1, §25.1); ``name``, ``dir``
  (the pinned ``real_dir``).
- ``invalid_archive``: an archive root or source breaking a rule of SPEC §25.1; ``path``,
  ``reason``.
- ``sandbox_unavailable``: ``agent_skills.grants.restrict_current_process`` (and the CLI's
  ``sandbox``) where Landlock cannot be applied: not Linux, a kernel without it, the ``sandbox``
  extra not installed, the kernel refusing the rule set (SPEC §28.4); ``reason``.

``fs_error`` is the single place where an :class:`OSError` becomes a ``SkillError``; the errnos
that mean "there is nothing to reach there" for a resource (:func:`unreachable`,
:func:`gone_or_link`) live here too, and :func:`invalid_input` is the one way an
``invalid_input`` error is made. :func:`missing_extra` is the one way a feature says which
optional extra it needs (:data:`EXTRAS`).
"""

from __future__ import annotations

import copy
import errno
import os
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NoReturn

__all__ = [
    "EXTRAS",
    "LINK_ERRNOS",
    "UNREACHABLE_ERRNOS",
    "ErrorCode",
    "ErrorFields",
    "SkillError",
    "StartupError",
    "fs_error",
    "gone_or_link",
    "invalid_input",
    "missing_extra",
    "unreachable",
]

UNREACHABLE_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG})
"""errnos that make a resource ``not_found`` rather than ``io_error`` (SPEC §10): the path names
nothing reachable (missing, through a non-directory, a symlink loop, a name too long)."""

LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})
"""errnos an ``O_NOFOLLOW`` open reports for a symlink: ``ELOOP`` on Linux, ``EMLINK`` on FreeBSD,
``ENOTDIR`` for a link met where ``O_DIRECTORY`` asks for a directory (SPEC §20.1)."""


class ErrorCode(StrEnum):
    """Stable error codes (SPEC §11). A ``str`` enum, so ``err.code == "path_escape"`` holds."""

    INVALID_SKILL = "invalid_skill"
    DUPLICATE_SKILL = "duplicate_skill"
    NOT_FOUND = "not_found"
    NOT_A_FILE = "not_a_file"
    PATH_ESCAPE = "path_escape"
    INVALID_INPUT = "invalid_input"
    IO_ERROR = "io_error"
    TOO_LARGE = "too_large"
    ACCESS_DENIED = "access_denied"
    STALE_SKILL = "stale_skill"
    INVALID_ARCHIVE = "invalid_archive"
    SANDBOX_UNAVAILABLE = "sandbox_unavailable"


class ErrorFields(dict[str, Any]):
    """The read-only ``fields`` of a :class:`SkillError`: a ``dict`` (so ``json.dumps`` and ``==``
    work as before) whose mutation raises ``TypeError``. ``dict(fields)`` gives a mutable copy.
    """

    __slots__ = ()

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("SkillError.fields is read-only; use SkillError.with_fields()")

    __setitem__ = _read_only
    __delitem__ = _read_only
    __ior__ = _read_only
    clear = _read_only
    pop = _read_only
    popitem = _read_only
    setdefault = _read_only
    update = _read_only

    def __reduce__(self) -> tuple[type[ErrorFields], tuple[dict[str, Any]]]:
        return (ErrorFields, (dict(self),))

    def __copy__(self) -> ErrorFields:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ErrorFields:
        return ErrorFields(copy.deepcopy(dict(self), memo))


_FROZEN = ("code", "message", "fields", "args")


class SkillError(Exception):
    """A coded, structured failure of the library (SPEC §11). Immutable once made.

    Args:
        code: One of :class:`ErrorCode` (a plain string with a known value is accepted).
        message: Human-readable text; never contains file contents.
        fields: JSON-serialisable details (paths as strings); a read-only copy is stored.

    Attributes:
        code: The :class:`ErrorCode`.
        message: The message passed in; ``str(err)`` contains it.
        fields: :class:`ErrorFields`, a read-only ``dict[str, Any]`` of structured details.

    ``code``, ``message``, ``fields`` and ``args`` cannot be reassigned (``AttributeError``) and
    ``fields`` cannot be changed (``TypeError``): to add detail to a caught error, raise the new
    error :meth:`with_fields` returns.
    """

    code: ErrorCode
    message: str
    fields: ErrorFields

    def __init__(
        self, code: ErrorCode | str, message: str, fields: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        set_ = object.__setattr__
        set_(self, "code", ErrorCode(code))
        set_(self, "message", message)
        set_(self, "fields", ErrorFields(fields) if fields else ErrorFields())

    def __setattr__(self, name: str, value: object) -> None:
        if name in _FROZEN:
            raise AttributeError(f"SkillError.{name} is read-only; use SkillError.with_fields()")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in _FROZEN:
            raise AttributeError(f"SkillError.{name} is read-only")
        super().__delattr__(name)

    def with_fields(
        self, fields: Mapping[str, Any] | None = None, /, *, message: str | None = None
    ) -> SkillError:
        """Return a new error of the same code with ``fields`` added (they win over the old ones).

        Args:
            fields: Details to add (or replace); ``None`` adds nothing.
            message: A new message; ``None`` keeps this one.

        Returns:
            A new :class:`SkillError`; this one is unchanged.
        """
        merged = {**self.fields, **(fields or {})}
        return type(self)(self.code, self.message if message is None else message, merged)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[SkillError], tuple[str, str, dict[str, Any]]]:
        # Rebuild from (code, message, fields) so errors survive pickle and copy.
        return (type(self), (self.code.value, self.message, dict(self.fields)))

    def __repr__(self) -> str:
        return f"SkillError({self.code.value!r}, {self.message!r}, {dict(self.fields)!r})"

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"code", "message", "fields"}`` for JSON output (``fields`` a new dict)."""
        return {"code": self.code.value, "message": self.message, "fields": dict(self.fields)}


class StartupError(Exception):
    """Invalid configuration (SPEC §2): empty roots, a bad scope, a missing workspace.

    Not a :class:`SkillError`: it reports a mistake in the host's configuration.
    """


def fs_error(exc: OSError, path: str | os.PathLike[str]) -> SkillError:
    """Map an :class:`OSError` to a :class:`SkillError` (SPEC §11).

    Args:
        exc: The OS error caught.
        path: The path being accessed; stored as ``fields["path"]`` (a string).

    Returns:
        ``not_found`` for ENOENT, ``not_a_file`` for EISDIR/ENOTDIR, ``io_error`` otherwise (the
        message names the errno symbol, e.g. ``EACCES: Permission denied``; ``EIO`` when the error
        carries no errno).
    """
    where = os.fspath(path)
    fields = {"path": where}
    code = exc.errno
    if code == errno.ENOENT:
        return SkillError(ErrorCode.NOT_FOUND, f"No such file: {where}", fields)
    if code == errno.EISDIR:
        return SkillError(ErrorCode.NOT_A_FILE, f"Path is a directory: {where}", fields)
    if code == errno.ENOTDIR:
        return SkillError(ErrorCode.NOT_A_FILE, f"Not a directory: {where}", fields)
    symbol = errno.errorcode.get(code, "EIO") if code is not None else "EIO"
    detail = exc.strerror or str(exc) or "I/O error"
    return SkillError(ErrorCode.IO_ERROR, f"{symbol}: {detail}: {where}", fields)


def unreachable(exc: OSError) -> bool:
    """True when ``exc`` says the path names nothing reachable (:data:`UNREACHABLE_ERRNOS`)."""
    return exc.errno in UNREACHABLE_ERRNOS


def gone_or_link(exc: OSError) -> bool:
    """True when an ``O_NOFOLLOW`` open failed because nothing is reachable there or a symlink
    stands there (:data:`UNREACHABLE_ERRNOS`, :data:`LINK_ERRNOS`): what a pinned walk takes as
    "not the directory it pinned" rather than an I/O failure (SPEC §20.1)."""
    return exc.errno in LINK_ERRNOS or exc.errno in UNREACHABLE_ERRNOS


def invalid_input(message: str, fields: Mapping[str, Any] | None = None) -> SkillError:
    """The ``invalid_input`` error of a bad argument (SPEC §11): the one way it is made.

    Args:
        message: What is wrong with the argument, naming it.
        fields: What identifies it (``{"rel": ...}``, ``{"type": ...}``, ...).
    """
    return SkillError(ErrorCode.INVALID_INPUT, message, fields)


#: The optional extras of the distribution (``pyproject.toml``'s optional dependencies) a feature
#: may need: ``{extra: (requirement, module)}``, the one requirement each adds and the module it
#: provides.
EXTRAS: dict[str, tuple[str, str]] = {
    "mcp": ("mcp>=2.3,<3", "mcp"),
    "watch": ("watchfiles>=0.21", "watchfiles"),
    "sandbox": ("landlockpy>=0.2", "landlockpy"),
}


def missing_extra(extra: str, feature: str, exc: ImportError | None = None) -> str:
    """The one message of a feature whose optional extra is missing, the same for every extra:
    ``"FEATURE needs the 'EXTRA' extra; install it with: PYTHON -m pip install 'REQUIREMENT'
    (or, from a checkout: pip install '.[EXTRA]')"``.

    ``PYTHON`` is the running interpreter's full path (in a virtual environment that is not
    activated, ``python3`` is another interpreter); the requirement is the extra's one
    dependency, since the package itself is installed from a checkout or from git, never by its
    bare distribution name (README). When the extra's module is installed but fails to import
    (a dependency of it missing), ``exc`` is named after ``EXTRA``: reinstalling brings it back.

    Args:
        extra: A key of :data:`EXTRAS`.
        feature: What needs it, as the message's subject ("the MCP server").
        exc: The import error met, if any.
    """
    import importlib.util
    import shlex
    import sys

    requirement, module = EXTRAS[extra]
    detail = ""
    if exc is not None:
        try:
            installed = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            installed = False
        if installed:
            detail = f" ('{module}' is installed but does not import: {exc})"
    python = shlex.quote(sys.executable or "python3")
    return (
        f"{feature} needs the '{extra}' extra{detail}; install it with: {python} -m pip install "
        f"'{requirement}' (or, from a checkout: pip install '.[{extra}]')"
    )
