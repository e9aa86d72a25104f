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

``fs_error`` is the single place where an :class:`OSError` becomes a ``SkillError``.
"""

from __future__ import annotations

import errno
import os
from enum import StrEnum
from typing import Any

__all__ = ["ErrorCode", "SkillError", "StartupError", "fs_error"]


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


class SkillError(Exception):
    """A coded, structured failure of the library (SPEC §11).

    Args:
        code: One of :class:`ErrorCode` (a plain string with a known value is accepted).
        message: Human-readable text; never contains file contents.
        fields: JSON-serialisable details (paths as strings); a new dict is stored.

    Attributes:
        code: The :class:`ErrorCode`.
        message: The message passed in; ``str(err)`` contains it.
        fields: ``dict[str, Any]`` of structured details.
    """

    code: ErrorCode
    message: str
    fields: dict[str, Any]

    def __init__(
        self, code: ErrorCode | str, message: str, fields: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.fields = dict(fields) if fields else {}

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[SkillError], tuple[str, str, dict[str, Any]]]:
        # Rebuild from (code, message, fields) so errors survive pickle and copy.
        return (type(self), (self.code.value, self.message, dict(self.fields)))

    def __repr__(self) -> str:
        return f"SkillError({self.code.value!r}, {self.message!r}, {self.fields!r})"

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"code", "message", "fields"}`` for JSON output."""
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
