"""Skill-supplied text made safe for a terminal and for JSON (SPEC §20.8-§20.9).

Names, descriptions, bodies and paths come from skill folders written by someone else. Printed raw,
an escape sequence in a description could move the cursor, retitle the window or recolour the
screen, and a newline in a directory name could forge an output line. File names that are not
UTF-8 reach Python as lone surrogates (``surrogateescape``), which no UTF-8 stream can write.

* :func:`safe_text` is what every human-output path of the CLI prints: C0/C1 control characters
  other than newline and tab, and undecodable bytes, become ``\\xNN``; with ``inline=True`` (names,
  paths, table cells, one-line messages) a newline becomes ``\\n`` and a tab ``\\t`` too.
* :func:`json_text` is ``json.dumps`` whose output is always valid UTF-8: an undecodable byte is
  written as the four characters ``\\xNN`` inside its string.
* :func:`wire_safe` is a JSON-ready value as :func:`json_text` would write it: what a server hands
  to a transport that encodes it (SPEC §30.4), so no name can stop it.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

__all__ = [
    "json_safe",
    "json_text",
    "safe_text",
    "undecodable_bytes",
    "undecodable_text",
    "wire_safe",
]

# C0 controls but tab and newline, DEL, C1 controls, and lone surrogates. Compiled on first use
# (see _pattern): the JSON output of the CLI never needs them (SPEC §26).
_UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]"
_UNSAFE_INLINE = "[\x00-\x1f\x7f-\x9f\ud800-\udfff]"
_SURROGATE = "[\ud800-\udfff]"
_WRITTEN_BYTE = r"\\x[89a-fA-F][0-9a-fA-F]"  # an undecodable byte as it is written, \xNN
_JSON_UNSAFE = "[\x7f-\x9f\ud800-\udfff]"


@functools.cache
def _pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if c == "\n":
        return "\\n"
    if c == "\t":
        return "\\t"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe_text(text: str, *, inline: bool = False) -> str:
    """``text`` with nothing a terminal would act on (SPEC §20.9).

    Args:
        text: Skill-supplied text.
        inline: For a name, a path, a table cell or a one-line message: newlines and tabs are
            shown as ``\\n`` and ``\\t`` so they cannot forge or break a line.

    Returns:
        The text with every C0/C1 control character (but newline and tab unless ``inline``)
        written ``\\xNN``, and each undecodable byte of a file name written ``\\xNN``.
    """
    pattern = _pattern(_UNSAFE_INLINE if inline else _UNSAFE)
    return pattern.sub(_escape, text) if pattern.search(text) else text


def _surrogate_in_json(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\\\x{code - 0xDC00:02x}"  # the JSON string holds the characters \xNN
    return f"\\\\u{code:04x}"


def _undecodable(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def undecodable_text(text: str) -> str:
    """``text`` with each lone surrogate written as :func:`json_text` writes it (SPEC §20.8).

    An undecodable byte of a file name becomes the four characters ``\\xNN`` (another lone
    surrogate ``\\uNNNN``); everything else is kept. For a value stored in JSON and compared
    with the same value recomputed later (a lock's paths): both sides read the same.
    """
    pattern = _pattern(_SURROGATE)
    return pattern.sub(_undecodable, text) if pattern.search(text) else text


def undecodable_bytes(text: str) -> str:
    """The inverse of :func:`undecodable_text` for undecodable bytes: each ``\\xNN`` with ``NN``
    from ``80`` to ``ff`` (what a listing, a lock or JSON shows of a file name's byte that is
    not UTF-8, SPEC §20.8) becomes that byte again, as ``surrogateescape`` holds it; everything
    else is kept. For a path a client sends back as it was shown to it."""
    if "\\x" not in text:
        return text
    return _pattern(_WRITTEN_BYTE).sub(lambda m: chr(0xDC00 + int(m.group()[2:], 16)), text)


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """``json.dumps(value, ensure_ascii=False)``, valid UTF-8 whatever the names (SPEC §20.8).

    Args:
        value: A JSON-ready value (paths and other objects are written with ``str``).
        indent: As for ``json.dumps``.

    Returns:
        The JSON text, as ``json.dumps(value, ensure_ascii=False, indent=indent, default=str)``
        writes it; a lone surrogate from an undecodable file name is written as ``\\xNN``
        inside its string.
    """
    if indent is None or _make_encoder is None:
        text = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    else:
        text = _indented_json(value, indent)
    return json_safe(text)


# The C encoder of the standard library (``None`` where ``_json`` is missing): ``json.dumps``
# runs its pure-Python encoder whenever ``indent`` is given, so indented text is built here from
# the C encoder's output of each part that holds no non-empty container (SPEC §26).
_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)
_encode_string = json.encoder.encode_basestring
_SCALARS = frozenset({str, int, float, bool, type(None)})


class _NotPlain(Exception):
    """A value :func:`_indented_json` leaves to ``json.dumps`` (see there)."""


@functools.cache
def _flat_encoder(separator: str) -> Any:
    """The C encoder of a container without non-empty containers inside, its items joined by
    ``separator`` (``","``, a newline and the indentation of its items)."""
    return _make_encoder(None, None, _encode_string, None, ": ", separator, False, False, True)


def _is_flat(items: Any) -> bool:
    """Whether ``items`` (the values of a container) hold no non-empty container; raises
    ``_NotPlain`` on a value that is not a plain JSON value."""
    for item in items:
        kind = type(item)
        if kind not in _SCALARS:
            if kind is not dict and kind is not list and kind is not tuple:
                raise _NotPlain
            if item:
                return False
    return True


def _encode_into(out: list[str], value: Any, newline: str, step: str) -> None:
    """Append the indented JSON text of ``value`` to ``out``; ``newline`` is a newline and the
    indentation of the line ``value`` starts on, ``step`` one level of indentation."""
    kind = type(value)
    inner = newline + step
    if kind is dict:
        for key in value:
            if type(key) is not str:
                raise _NotPlain
        items: Any = value.values()
        opening, closing = "{", "}"
    elif kind is list or kind is tuple:
        items = value
        opening, closing = "[", "]"
    elif kind in _SCALARS:
        out.extend(_flat_encoder(inner)(value, 0))
        return
    else:
        raise _NotPlain
    if not value:
        out.append(opening + closing)
        return
    encoder = _flat_encoder("," + inner)
    if _is_flat(items):
        # The C encoder writes ``{"a": 1,<inner>"b": 2}``: only the brackets' lines are added.
        out.append(opening + inner + "".join(encoder(value, 0))[1:-1] + newline + closing)
        return
    separator = opening + inner
    pairs = value.items() if kind is dict else ((None, item) for item in value)
    for key, item in pairs:
        out.append(separator if key is None else separator + _encode_string(key) + ": ")
        if type(item) in _SCALARS or (type(item) in (dict, list, tuple) and not item):
            out.extend(encoder(item, 0))
        else:
            _encode_into(out, item, inner, step)
        separator = "," + inner
    out.append(newline + closing)


def _indented_json(value: Any, indent: int | str) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=indent, default=str)``, the same text.

    Dicts with string keys, lists, tuples, strings, ints, floats, booleans and ``None`` are
    encoded here; any other value anywhere in ``value`` (a path, a subclass, a non-string key)
    or a nesting too deep leaves the whole value to ``json.dumps``.
    """
    step = indent if isinstance(indent, str) else " " * indent
    out: list[str] = []
    try:
        _encode_into(out, value, "\n", step)
    except (_NotPlain, RecursionError):
        return json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    return "".join(out)


def json_safe(text: str) -> str:
    """A JSON text (``json.dumps(..., ensure_ascii=False)``'s output) safe to write anywhere
    (SPEC §20.8, §20.9): each lone surrogate inside its strings written as the characters
    ``\\xNN`` (valid UTF-8), and each DEL or C1 control character, which JSON leaves raw but
    a terminal acts on, as its ``\\u00NN`` escape (the same value once parsed). For JSON built
    elsewhere (a catalog) before it is written."""
    if text.isascii() and "\x7f" not in text:
        return text
    pattern = _pattern(_JSON_UNSAFE)
    return pattern.sub(_in_json, text) if pattern.search(text) else text


def _in_json(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0x9F:
        return f"\\u{code:04x}"  # a JSON escape: the parsed value keeps the character
    return _surrogate_in_json(match)


def _needs_escape(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _holds_surrogate(value: Any) -> bool:
    """Whether a string anywhere in ``value`` (keys included) holds a lone surrogate; walked
    iteratively (no recursion on input, SPEC §20.6)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if _needs_escape(item):
                return True
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list | tuple):
            todo.extend(item)
    return False


def wire_safe(value: Any) -> Any:
    """``value`` (a JSON-ready value: dicts, lists, strings, numbers) with every lone surrogate
    of every string, keys included, written as :func:`json_text` writes it (an undecodable byte
    as the four characters ``\\xNN``, SPEC §20.8, §30.4): encodable as UTF-8 whatever names it
    holds. Returned as it is when it holds none (the common case: nothing is copied)."""
    if not _holds_surrogate(value):
        return value
    return json.loads(json_text(value, indent=None))
