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

__all__ = ["json_safe", "json_text", "safe_text", "undecodable_text", "wire_safe"]

# C0 controls but tab and newline, DEL, C1 controls, and lone surrogates. Compiled on first use
# (see _pattern): the JSON output of the CLI never needs them (SPEC §26).
_UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]"
_UNSAFE_INLINE = "[\x00-\x1f\x7f-\x9f\ud800-\udfff]"
_SURROGATE = "[\ud800-\udfff]"
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
    return json_safe(json.dumps(value, ensure_ascii=False, indent=indent, default=str))


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
