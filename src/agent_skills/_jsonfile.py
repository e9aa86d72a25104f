"""Reading the JSON files the library keeps (trust store, lock), bounded (SPEC §20.4-§20.6).

One reader for every JSON document the library reads back from a path the caller names: the file
is opened without blocking (``O_NONBLOCK | O_NOCTTY``: a FIFO or a terminal never hangs the
caller), must be a regular file by ``fstat`` before a byte is read, is read up to a size cap (a
sparse or growing file never allocates more), and its nesting is measured without recursion before
it is decoded (a deeply nested document is an error, never a ``RecursionError``).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from ._errors import ErrorCode, SkillError, invalid_input
from ._fs import read_file_capped

__all__ = ["MAX_JSON_DEPTH", "decode_json", "json_depth", "read_json_file"]

#: The deepest nesting of arrays and objects accepted in a file the library reads back.
MAX_JSON_DEPTH = 64

# A JSON string, scanned once from its opening quote: possessive runs never give back what they
# took, and a string left open runs to the end of the text (the decoder then refuses it), so no
# quote is ever tried as an opening twice. (``"(?:[^"\\]|\\.)*"`` retried every escaped quote of an
# unterminated string as an opening: quadratic, 28 s for 64 KiB of ``\"``.)
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in the JSON ``text``, in linear time, iteratively.

    Brackets inside strings do not count. A text that is not JSON gets some number: the decoder
    rejects it afterwards.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def decode_json(text: str | bytes | bytearray, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Decode untrusted JSON ``text`` (a stdio line, a recovery journal, tool arguments), its
    nesting measured first, without recursion (SPEC §20.5-§20.6).

    Args:
        text: The document; bytes are decoded as UTF-8.
        max_depth: The deepest nesting of arrays and objects accepted.

    Returns:
        The decoded value.

    Raises:
        ValueError: For text that is not JSON (``json.JSONDecodeError``), not UTF-8, nests
            deeper than ``max_depth``, or that the decoder cannot hold (a ``RecursionError`` or
            ``MemoryError`` is never passed on). The caller turns it into its coded error.
    """
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8")  # (UnicodeDecodeError is a ValueError)
    if json_depth(text) > max_depth:
        raise ValueError(f"nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except (RecursionError, MemoryError) as exc:
        raise ValueError(f"too deep or too large to decode ({type(exc).__name__})") from None


def read_json_file(path: str, *, max_bytes: int, what: str, errors: str = "strict") -> Any:
    """Read and decode the JSON file ``path`` within the bounds above.

    Args:
        path: The file.
        max_bytes: The largest size accepted, in bytes.
        what: What the file is, for messages (``"trust store"``, ``"skills lock"``).
        errors: How undecodable bytes are decoded (``"surrogateescape"`` for a file that keeps
            names that are not UTF-8).

    Returns:
        The decoded document.

    Raises:
        SkillError: ``not_found`` ``{path}`` (missing) and the other ``fs_error`` codes;
            ``not_a_file`` ``{path}`` for a directory, FIFO, socket or device; ``too_large``
            ``{path, max_bytes}``; ``invalid_input`` ``{path, reason}`` for a file that is not
            UTF-8 JSON or nests deeper than :data:`MAX_JSON_DEPTH`.
    """
    data = read_file_capped(path, max_bytes, what=what)
    if data is None:
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{what} {path} is larger than {max_bytes} bytes",
            {"path": path, "max_bytes": max_bytes},
        )
    try:
        text = data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        raise _bad(path, what, f"not UTF-8 ({exc})") from None
    if json_depth(text) > MAX_JSON_DEPTH:
        raise _bad(path, what, f"nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return decode_json(text)
    except ValueError as exc:
        raise _bad(path, what, f"invalid JSON ({exc})") from None


def _bad(path: str, what: str, reason: str) -> SkillError:
    return invalid_input(
        f"{path} is not a valid {what} file: {reason}", {"path": path, "reason": reason}
    )
