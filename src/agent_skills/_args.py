"""Argument coercion for every public entry point: paths, names, byte limits, choices.

A leaf of the pipeline (it imports only the errors). Each rule about what an argument may be is
written here once and called by the public functions, so that every entry point accepts the same
spellings and refuses the same values with the same coded error:

- runtime calls (``resource_path``, ``read_resource``, ``validate_skill``, ...) raise
  :class:`SkillError` ``invalid_input`` with ``fields`` naming the problem (SPEC §11);
- configuration (``resolve_config``, the presets) raises :class:`StartupError` (SPEC §2).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TypeVar

from ._errors import ErrorCode, SkillError, StartupError

__all__ = [
    "coerce_byte_limit",
    "coerce_choice",
    "coerce_name",
    "coerce_path",
    "path_text",
    "startup_path",
]

_C = TypeVar("_C", bound=str)


def path_text(value: object) -> str | None:
    """``value`` as text when it is a ``str`` or an ``os.PathLike`` giving a ``str``, else ``None``.

    A path-like whose ``__fspath__`` raises or returns ``bytes`` is ``None`` too: nothing escapes.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        try:
            raw = os.fspath(value)
        except Exception:
            return None
        return raw if isinstance(raw, str) else None
    return None


def _kind(value: object) -> str:
    return type(value).__name__


def coerce_path(value: object, what: str) -> str:
    """A runtime path argument (``str`` or ``os.PathLike[str]``) as text.

    Raises:
        SkillError: ``invalid_input`` ``{type}`` for anything else, the message naming ``what``.
    """
    text = path_text(value)
    if text is None:
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            f"{what} must be a str or os.PathLike[str], got {_kind(value)}",
            {"type": _kind(value)},
        )
    return text


def startup_path(value: object, what: str) -> str:
    """A configuration path argument (``str`` or ``os.PathLike[str]``) as text (SPEC §2).

    Raises:
        StartupError: for anything else, naming ``what`` and the type given.
    """
    text = path_text(value)
    if text is None:
        raise StartupError(f"{what} must be a str or os.PathLike[str], got {_kind(value)}")
    return text


def coerce_name(value: object, what: str = "skill name") -> str:
    """A skill-name argument: a ``str`` (any text; an unknown name is the caller's ``not_found``).

    Raises:
        SkillError: ``invalid_input`` ``{type}`` when ``value`` is not a ``str``.
    """
    if not isinstance(value, str):
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            f"{what} must be a str, got {_kind(value)}",
            {"type": _kind(value)},
        )
    return value


def coerce_byte_limit(value: object, what: str = "max_bytes") -> int | None:
    """A size limit in bytes: ``None`` (no limit of the caller's own) or an ``int`` >= 0.

    ``bool`` is refused although it is an ``int``: ``max_bytes=True`` is a mistake, not 1.

    Raises:
        SkillError: ``invalid_input`` ``{<what>: repr(value)}`` otherwise.
    """
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise SkillError(
        ErrorCode.INVALID_INPUT,
        f"{what} must be a non-negative int or None",
        {what: repr(value)},
    )


def coerce_choice(value: object, choices: Sequence[_C], what: str) -> _C:
    """One of ``choices`` (exact, case-sensitive), returned as the member of ``choices``.

    Raises:
        SkillError: ``invalid_input`` ``{<what>: repr(value), "choices": [...]}`` otherwise.
    """
    for choice in choices:
        if value == choice and isinstance(value, str):
            return choice
    raise SkillError(
        ErrorCode.INVALID_INPUT,
        f"{what} must be one of {', '.join(choices)}, got {value!r}",
        {what: repr(value), "choices": list(choices)},
    )
