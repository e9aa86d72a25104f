"""Argument coercion for every public entry point: paths, text, names, counts, byte limits, choices.

A leaf of the pipeline (it imports only the errors). Each rule about what an argument may be is
written here once and called by the public functions, so that every entry point accepts the same
spellings and refuses the same values with the same message:

- runtime calls (``resource_path``, ``read_resource``, ``validate_skill``, the agent tools, ...)
  raise :class:`SkillError` ``invalid_input`` with ``fields`` naming the problem (SPEC §11);
- configuration (``resolve_config``, the presets, the watcher) passes ``startup=True`` and gets a
  :class:`StartupError` with the same message (SPEC §2).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, TypeVar

from ._errors import StartupError, invalid_input

__all__ = [
    "coerce_bool",
    "coerce_byte_limit",
    "coerce_choice",
    "coerce_int",
    "coerce_name",
    "coerce_optional_int",
    "coerce_path",
    "coerce_str",
    "path_text",
    "shown_text",
]

_C = TypeVar("_C", bound=str)


def _refuse(message: str, fields: dict[str, Any], startup: bool) -> Exception:
    if startup:
        return StartupError(message)
    return invalid_input(message, fields)


def shown_text(value: object) -> str:
    """``value`` as text for a message or ``fields``: the path text of a ``str`` or path-like,
    else its ``repr`` (so a bad argument can always be named)."""
    text = path_text(value)
    return text if text is not None else repr(value)


def _kind(value: object) -> str:
    return type(value).__name__


def exact_str(value: str) -> str:
    """``value`` as a plain ``str``: a subclass's characters without its methods.

    Whatever the library decides about a text argument is decided by ``str``'s own operations,
    never by a subclass's overrides: a ``split`` or ``replace`` that lies could otherwise make the
    path checked and the path handed out differ (SPEC §10, §20).
    """
    return value if type(value) is str else str.__str__(value)


def path_text(value: object) -> str | None:
    """``value`` as text (an exact ``str``, see :func:`exact_str`) when it is a ``str`` or an
    ``os.PathLike`` giving a ``str``, else ``None``.

    A path-like whose ``__fspath__`` raises or returns ``bytes`` is ``None`` too: nothing escapes.
    """
    if isinstance(value, str):
        return exact_str(value)
    if isinstance(value, os.PathLike):
        try:
            raw = os.fspath(value)
        except Exception:
            return None
        return exact_str(raw) if isinstance(raw, str) else None
    return None


def coerce_path(value: object, what: str, *, usable: bool = False, startup: bool = False) -> str:
    """A path argument (``str`` or ``os.PathLike[str]``) as text.

    Args:
        value: The argument.
        what: Its name in messages (``"root path"``, ``"project_root"``).
        usable: Also refuse the empty string and a NUL character (``fields`` ``{path}``).
        startup: Raise :class:`StartupError` instead of :class:`SkillError`.

    Raises:
        SkillError: ``invalid_input`` ``{type}`` for anything but text or a path-like giving text
            ("<what> must be a str or os.PathLike[str], got <type>").
    """
    text = path_text(value)
    if text is None:
        raise _refuse(
            f"{what} must be a str or os.PathLike[str], got {_kind(value)}",
            {"type": _kind(value)},
            startup,
        )
    if usable and text == "":
        raise _refuse(f"{what} must not be empty", {"path": text}, startup)
    if usable and "\x00" in text:
        raise _refuse(f"{what} must not contain NUL", {"path": text}, startup)
    return text


def coerce_str(value: object, what: str, *, startup: bool = False) -> str:
    """A text argument, as an exact ``str`` (see :func:`exact_str`).

    Raises:
        SkillError: ``invalid_input`` ``{type}`` ("<what> must be a str, got <type>").
    """
    if not isinstance(value, str):
        raise _refuse(f"{what} must be a str, got {_kind(value)}", {"type": _kind(value)}, startup)
    return exact_str(value)


def coerce_name(value: object, what: str = "skill name") -> str:
    """A skill-name argument: any ``str`` (an unknown name is the caller's ``not_found``).

    Raises:
        SkillError: ``invalid_input`` ``{type}`` when ``value`` is not a ``str``.
    """
    return coerce_str(value, what)


def coerce_bool(value: object, what: str, *, startup: bool = False) -> bool:
    """A flag argument: exactly ``True`` or ``False`` (``1`` and ``"yes"`` are mistakes here).

    Raises:
        SkillError: ``invalid_input`` ``{<what>: repr(value)}`` ("<what> must be a bool").
    """
    if value is True or value is False:
        return value
    raise _refuse(f"{what} must be a bool", {what: repr(value)}, startup)


def coerce_optional_int(
    value: object,
    what: str,
    *,
    none: str,
    minimum: int = 0,
    maximum: int | None = None,
) -> int | None:
    """``None``, or a whole number as :func:`coerce_int` takes it (``none`` is the word for it in
    the message: ``"None"`` for Python callers, ``"null"`` for tool arguments).

    Raises:
        SkillError: ``invalid_input`` ``{<what>: repr(value)}``.
    """
    if value is None:
        return None
    return coerce_int(value, what, minimum=minimum, maximum=maximum, none=none)


def coerce_int(
    value: object,
    what: str,
    *,
    minimum: int = 0,
    maximum: int | None = None,
    none: str | None = None,
    startup: bool = False,
) -> int:
    """A whole-number argument in ``minimum..maximum``; ``bool`` is refused although it is an int.

    Args:
        value: The argument.
        what: Its name in messages and ``fields``.
        minimum: The smallest value allowed.
        maximum: The largest value allowed, or ``None`` for no bound.
        none: The word for "no value" added to the message (see :func:`coerce_optional_int`).
        startup: Raise :class:`StartupError` instead of :class:`SkillError`.

    Raises:
        SkillError: ``invalid_input`` ``{<what>: repr(value)}``, the message saying the range
            ("a non-negative int", "a positive int", "an int of at least N", "an integer from N
            to M", then ", or <none>").
    """
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= minimum
        and (maximum is None or value <= maximum)
    ):
        return value
    if maximum is not None:
        wanted = f"an integer from {minimum} to {maximum}"
    elif minimum == 0:
        wanted = "a non-negative int"
    elif minimum == 1:
        wanted = "a positive int"
    else:
        wanted = f"an int of at least {minimum}"
    if none is not None:
        wanted = f"{wanted}, or {none}"
    raise _refuse(f"{what} must be {wanted}", {what: repr(value)}, startup)


def coerce_byte_limit(value: object, what: str = "max_bytes") -> int | None:
    """A size limit in bytes: ``None`` (the caller's default applies) or an ``int`` >= 0.

    Raises:
        SkillError: ``invalid_input`` ``{<what>: repr(value)}``.
    """
    return coerce_optional_int(value, what, none="None")


def coerce_choice(value: object, choices: Sequence[_C], what: str) -> _C:
    """One of ``choices`` (exact, case-sensitive), returned as the member of ``choices``.

    Raises:
        SkillError: ``invalid_input`` ``{<what>: repr(value), "choices": [...]}`` otherwise.
    """
    for choice in choices:
        if isinstance(value, str) and value == choice:
            return choice
    raise invalid_input(
        f"{what} must be one of {', '.join(choices)}, got {value!r}",
        {what: repr(value), "choices": list(choices)},
    )
