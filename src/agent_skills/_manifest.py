"""Parsing a ``SKILL.md``: decoding, fences, YAML 1.2 frontmatter and lenient repair (SPEC §5).

Pure: text or bytes in, data out. No filesystem, no logging.

A frontmatter of the simple shape is read directly; any other is loaded by ``_yaml12`` (PyYAML's
libyaml-backed parser with the YAML 1.2 core schema), imported when the first one is met.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING, Any, NamedTuple

from ._diagnostics import Diagnostic, DiagnosticKind
from ._errors import ErrorCode, SkillError, invalid_input
from ._schema import CORE_SCALARS, check_frontmatter_values, plain_scalar_tag, yaml_kind

if TYPE_CHECKING:
    from ._frontmatter import SkillFrontmatter

__all__ = [
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "ManifestResult",
    "ParsedSkill",
    "invalid_utf8_diagnostic",
    "load_frontmatter_yaml",
    "load_repaired_yaml",
    "parse_manifest",
    "parse_skill",
    "split_frontmatter",
]


#: Upper bound on the values a frontmatter may expand to through aliases: the node budget of
#: SPEC §20.6 (a 50 000-item list loads, §30.6), counted over the expanded tree.
MAX_FRONTMATTER_NODES = 100_000

#: Upper bound on the characters aliases may add to a frontmatter (SPEC §20.6): the expanded
#: tree (every string, keys included, counted each time an alias repeats it) may hold at most
#: the text's own length plus this many characters. A tree without aliases never holds more
#: characters than its text, so only a document whose aliases multiply it is refused.
MAX_FRONTMATTER_EXPANSION = 1 << 20

_BOM = "\ufeff"
_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"


@dataclass(frozen=True, slots=True)
class ParsedSkill:
    """Result of :func:`parse_skill` (SPEC §5-§6).

    Attributes:
        frontmatter: The validated frontmatter as a fresh ``dict``: every key as parsed (unknown
            keys and, in lenient mode, the raw values of failing optional keys included) with
            ``name`` and ``description`` trimmed.
        body: The markdown after the closing fence, surrounding whitespace trimmed.
        diagnostics: ``invalid_utf8``, ``yaml_repaired`` and ``invalid_field`` notes.
        values: The validated values (``check_frontmatter_values``): every key but the optional
            keys that failed, ``name`` and ``description`` trimmed, the flags as booleans.
    """

    frontmatter: dict[str, Any]
    body: str
    diagnostics: tuple[Diagnostic, ...]
    values: Mapping[str, Any]

    @property
    def model(self) -> SkillFrontmatter:
        """The :class:`SkillFrontmatter` of :attr:`values`, built on each access (it imports
        pydantic; discovery never asks for it, SPEC §26). Optional keys that failed are absent."""
        from ._frontmatter import build_model  # pydantic loads with the first model asked for

        return build_model(self.values)


def _decode(data: str | bytes) -> tuple[str, bool]:
    """Return ``(text, had_invalid_utf8)``; one leading BOM dropped, newlines normalised."""
    invalid = False
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
            invalid = True
    elif isinstance(data, str):
        text = data
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # Lone surrogates cannot reach the YAML parser; they are invalid text.
            text = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in data)
            invalid = True
    else:
        raise invalid_input(
            f"manifest text must be str or bytes, got {type(data).__name__}",
            {"value": type(data).__name__},
        )
    if text.startswith(_BOM):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, invalid


def _closing_fence(text: str, start: int) -> tuple[int, int] | None:
    """``(start, end)`` of the first closing fence at or after ``start``: a whole line of three
    dashes, trailing spaces or tabs allowed (SPEC §5), ``end`` before the line's newline; as the
    multiline regex ``^---[ \t]*$`` searched from ``start`` finds it (a property test holds the
    two together). ``str.find`` jumps from candidate to candidate, so ordinary frontmatter costs
    a few searches, not a regex attempt per character (SPEC §26); linear in any case."""
    n = len(text)
    if text.startswith("---", start) and (start == 0 or text[start - 1] == "\n"):
        at = start
    else:
        found = text.find("\n---", max(start - 1, 0))
        if found < 0:
            return None
        at = found + 1
    while True:
        i = at + 3
        while i < n and text[i] in " \t":
            i += 1
        if i >= n or text[i] == "\n":
            return at, i
        found = text.find("\n---", i)
        if found < 0:
            return None
        at = found + 1


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """Split normalised text into ``(yaml_text, body, first_yaml_line)`` (SPEC §5).

    Args:
        text: Text with LF line endings and no BOM.

    Returns:
        ``yaml_text`` is ``None`` when there is no opening fence (the whole text is the body).
        ``first_yaml_line`` is the 1-based file line of the first YAML line.

    Raises:
        SkillError: ``invalid_skill`` "unterminated frontmatter" when no closing ``---``
            line exists.
    """
    stripped = text.lstrip()
    leading_lines = text.count("\n", 0, len(text) - len(stripped))
    first_end = stripped.find("\n")
    first = stripped if first_end < 0 else stripped[:first_end]
    if first.rstrip(" \t") != "---":
        return None, stripped.strip(), 0
    fence_line = leading_lines + 1
    start = first_end + 1 if first_end >= 0 else len(stripped)
    close = _closing_fence(stripped, start)
    if close is not None:
        begin, end = close
        return stripped[start:begin], stripped[end + 1 :].strip(), fence_line + 1
    raise SkillError(
        ErrorCode.INVALID_SKILL,
        "unterminated frontmatter: no closing '---' line",
        {"line": fence_line},
    )


MAX_YAML_DEPTH = 64
"""Deepest nesting of collections a frontmatter may have (SPEC §20.6)."""
MAX_YAML_NODES = 100_000
"""Most YAML nodes a frontmatter may hold (SPEC §20.6)."""


def _nesting_bound(text: str) -> int:
    """An upper bound of the collection depth of ``text``: each level needs a line of its own, a
    flow bracket, or a block indicator (``- ``, ``? ``) on a shared line."""
    return (
        text.count("\n")
        + 1
        + text.count("[")
        + text.count("{")
        + text.count("- ")
        + text.count("-\t")
        + text.count("? ")
        + text.count("?\t")
    )


def _cheap_nesting_bound(text: str) -> int:
    """A looser bound than :func:`_nesting_bound` (every ``-`` and ``?`` counted, whatever follows)
    in five counts instead of eight: enough for most frontmatter."""
    return (
        text.count("\n") + 1 + text.count("[") + text.count("{") + text.count("-") + text.count("?")
    )


def _check_shape(yaml_text: str) -> None:
    """Bound depth and size before the composer and constructor, which recurse, see the text.

    The event stream is walked iteratively only when the text could break a bound (a cheap count
    says whether it can), so ordinary frontmatter pays nothing.

    Raises:
        SkillError: ``invalid_skill`` ``{reason}`` (``yaml_depth`` or ``yaml_nodes``).
    """
    if len(yaml_text) <= MAX_YAML_NODES and (
        _cheap_nesting_bound(yaml_text) <= MAX_YAML_DEPTH
        or _nesting_bound(yaml_text) <= MAX_YAML_DEPTH
    ):
        return
    depth = nodes = 0
    import yaml

    from ._yaml12 import COLLECTION_ENDS, COLLECTION_STARTS, NODE_EVENTS, Core12Loader

    events = Core12Loader(yaml_text)
    try:
        while events.check_event():
            event = events.get_event()
            if isinstance(event, NODE_EVENTS):
                nodes += 1
                if nodes > MAX_YAML_NODES:
                    raise SkillError(
                        ErrorCode.INVALID_SKILL,
                        f"invalid YAML frontmatter: more than {MAX_YAML_NODES} nodes",
                        {"reason": "yaml_nodes"},
                    )
            if isinstance(event, COLLECTION_STARTS):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise SkillError(
                        ErrorCode.INVALID_SKILL,
                        f"invalid YAML frontmatter: nested deeper than {MAX_YAML_DEPTH} levels",
                        {"reason": "yaml_depth"},
                    )
            elif isinstance(event, COLLECTION_ENDS):
                depth -= 1
    except yaml.YAMLError:
        return  # the syntax error is reported, with its position, by the load that follows
    finally:
        events.dispose()


def _check_tree(value: object, text_length: int) -> None:
    """Reject alias cycles and alias bombs so the data stays JSON-compatible and small: at most
    :data:`MAX_FRONTMATTER_NODES` values and ``text_length`` +
    :data:`MAX_FRONTMATTER_EXPANSION` characters once every alias is expanded (a string weighs
    its length each time it is reached, a mapping its keys')."""
    budget = MAX_FRONTMATTER_NODES
    chars = text_length + MAX_FRONTMATTER_EXPANSION
    stack: list[tuple[object, frozenset[int]]] = [(value, frozenset())]
    while stack:
        node, ancestors = stack.pop()
        budget -= 1
        if budget < 0:
            raise ValueError(f"frontmatter expands to more than {MAX_FRONTMATTER_NODES} values")
        if isinstance(node, str):
            chars -= len(node)
        elif isinstance(node, dict | list):
            ident = id(node)
            if ident in ancestors:
                raise ValueError("frontmatter contains a recursive alias")
            inner = ancestors | {ident}
            if isinstance(node, dict):
                chars -= sum(len(key) for key in node if isinstance(key, str))
                children: Iterable[object] = node.values()
            else:
                children = node
            stack.extend((child, inner) for child in children)
        if chars < 0:
            raise ValueError(
                "frontmatter expands to more than "
                f"{MAX_FRONTMATTER_EXPANSION} characters beyond its text through aliases"
            )


# -- the simple frontmatter: what most manifests hold, read without the YAML machinery ----------

#: A key line of a simple frontmatter: a plain key of ASCII letters, digits, ``_`` and ``-``
#: beginning with a letter, its colon, the blanks after it and the rest of the line.
_SIMPLE_KEY_RE = re.compile(r"([A-Za-z][A-Za-z0-9_-]{0,127}):( *)(.*)\Z")
#: Characters a plain scalar cannot begin with (YAML's indicators) or that the simple reading
#: leaves to the loader (a blank, ``~`` is typed below).
_NOT_PLAIN_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@` ")
#: The block scalar headers the simple reading takes: folded or literal, clipped or stripped.
_BLOCK_HEADERS = frozenset((">", ">-", "|", "|-"))
_BOOL_TAG = "tag:yaml.org,2002:bool"
_NULL_TAG = "tag:yaml.org,2002:null"
_NOT_SIMPLE: Any = object()
#: The first characters of the plain scalars the core schema types as other than a string.
_TYPED_FIRSTS = frozenset(first for _, _, firsts in CORE_SCALARS for first in firsts)


def _simple_scalar(text: str) -> Any:
    """The value of a one-line scalar ``text`` (no trailing blank) as the loader types it: a
    quoted string without escapes or inner quotes, or a plain scalar typed by the core schema
    (a string, a boolean or null); :data:`_NOT_SIMPLE` for anything else."""
    first = text[0]
    if first == '"' or first == "'":
        inner = text[1:-1]
        if len(text) >= 2 and text[-1] == first and first not in inner and "\\" not in inner:
            return inner
        return _NOT_SIMPLE
    if first in _NOT_PLAIN_FIRST or ": " in text or " #" in text or text[-1] == ":":
        return _NOT_SIMPLE
    if first not in _TYPED_FIRSTS:
        return text
    tag = plain_scalar_tag(text)
    if tag == _STR_TAG:
        return text
    if tag == _BOOL_TAG:
        return text.lower() == "true"  # the core spellings only (the resolver's pattern)
    return None if tag == _NULL_TAG else _NOT_SIMPLE


class _NotSimple(Exception):
    """The frontmatter leaves the simple shape: the loader reads it."""


#: Deepest nesting of block or flow collections the simple reading follows; deeper goes to the
#: loader, which bounds depth itself (SPEC §20.6).
_SIMPLE_DEPTH = 16


def _skip_blank(lines: list[str], i: int) -> int:
    """The index of the first line at or after ``i`` that is neither empty nor a comment line."""
    count = len(lines)
    while i < count:
        line = lines[i]
        if line and line.lstrip(" ")[:1] != "#":
            break
        i += 1
    return i


def _plain_line(line: str) -> str:
    """The text of a continuation line of a plain scalar (blanks around it dropped), when it
    can only continue the scalar: no indicator first, no ``: ``, `` #`` or final colon."""
    text = line.strip(" ")
    if not text or text[0] in _NOT_PLAIN_FIRST or ": " in text or " #" in text or text[-1] == ":":
        raise _NotSimple
    return text


def _plain_lines(first: str | None, lines: list[str], i: int, indent: int) -> tuple[str, int]:
    """A plain scalar folded over the lines from ``i`` more indented than ``indent`` (``first``:
    its text on the line before, if any), with the index after them. Each line break folds to
    one space; the loader's typing of the whole must be a string."""
    deeper = " " * (indent + 1)
    parts = [] if first is None else [first]
    count = len(lines)
    while i < count and lines[i].startswith(deeper):
        parts.append(_plain_line(lines[i]))
        i += 1
    value = " ".join(parts)
    if plain_scalar_tag(value) != _STR_TAG:
        raise _NotSimple
    return value, i


def _flow_value(text: str, pos: int, depth: int) -> tuple[Any, int]:
    """A flow collection's item at ``pos`` of ``text``: a nested collection, a quoted scalar
    without escapes or inner quotes, or a plain scalar without flow indicators, comments or
    colons; with the position after it."""
    first = text[pos : pos + 1]
    if first == "[" or first == "{":
        return _flow_collection(text, pos, depth + 1)
    if first == '"' or first == "'":
        end = text.find(first, pos + 1)
        if end < 0:
            raise _NotSimple
        inner = text[pos + 1 : end]
        if "\\" in inner or text[end + 1 : end + 2] == first:
            raise _NotSimple
        return inner, end + 1
    end = pos
    n = len(text)
    while end < n and text[end] not in ",[]{}:#\"'?":
        end += 1
    item = text[pos:end].rstrip(" ")
    if not item:
        raise _NotSimple
    value = _simple_scalar(item)
    if value is _NOT_SIMPLE:
        raise _NotSimple
    return value, end


def _flow_collection(text: str, pos: int, depth: int) -> tuple[Any, int]:
    """The flow sequence or mapping opening at ``pos`` of a one-line ``text`` (plain keys as in
    a block mapping, one blank after the colon at least, no trailing comma), with the position
    after its closing bracket."""
    if depth > _SIMPLE_DEPTH:
        raise _NotSimple
    is_map = text[pos] == "{"
    close = "}" if is_map else "]"
    items: list[Any] = []
    mapping: dict[str, Any] = {}
    n = len(text)
    pos += 1
    while True:
        while pos < n and text[pos] == " ":
            pos += 1
        if pos >= n:
            raise _NotSimple
        if text[pos] == close and not items and not mapping:
            return (mapping if is_map else items), pos + 1
        if is_map:
            m = _SIMPLE_KEY_RE.match(text, pos)
            if m is None:
                raise _NotSimple
            key = m.group(1)
            pos += len(key)
            if text[pos + 1 : pos + 2] != " " or key in mapping:
                raise _NotSimple
            if plain_scalar_tag(key) != _STR_TAG:
                raise _NotSimple
            pos += 2
            while pos < n and text[pos] == " ":
                pos += 1
            value, pos = _flow_value(text, pos, depth)
            mapping[intern(key)] = value
        else:
            value, pos = _flow_value(text, pos, depth)
            items.append(value)
        while pos < n and text[pos] == " ":
            pos += 1
        if pos >= n:
            raise _NotSimple
        if text[pos] == close:
            return (mapping if is_map else items), pos + 1
        if text[pos] != ",":
            raise _NotSimple
        pos += 1
        while pos < n and text[pos] == " ":
            pos += 1
        if text[pos : pos + 1] == close:
            raise _NotSimple  # (a trailing comma: the loader's)


def _inline_value(text: str, lines: list[str], i: int, indent: int, depth: int) -> tuple[Any, int]:
    """The value whose text begins on a line (``text``: the rest of that line, not blank, no
    trailing blank), in a collection at column ``indent``; with the index of the line after it."""
    first = text[0]
    if first == "[" or first == "{":
        value, end = _flow_collection(text, 0, depth + 1)
        if end != len(text):
            raise _NotSimple
        return value, i
    value = _simple_scalar(text)
    if value is _NOT_SIMPLE:
        raise _NotSimple
    if i < len(lines) and lines[i].startswith(" " * (indent + 1)):
        if first == '"' or first == "'":
            raise _NotSimple
        return _plain_lines(text, lines, i, indent)
    return value, i


def _block_scalar(header: str, lines: list[str], i: int, indent: int) -> tuple[str, int]:
    """A block scalar's value (``header`` one of :data:`_BLOCK_HEADERS`) over the lines from
    ``i`` more indented than ``indent``: every one at the first line's indentation, none blank,
    none more indented, none ending with a blank; with the index after them."""
    deeper = " " * (indent + 1)
    count = len(lines)
    if i >= count or not lines[i].startswith(deeper):
        raise _NotSimple
    first = lines[i]
    at = len(first) - len(first.lstrip(" "))
    pad = first[:at]
    parts = []
    while i < count and lines[i].startswith(deeper):
        line = lines[i]
        if not line.startswith(pad) or line[at : at + 1] == " ":
            raise _NotSimple
        if line[-1] == " ":
            raise _NotSimple
        parts.append(line[at:])
        i += 1
    value = (" " if header[0] == ">" else "\n").join(parts)
    return (value if header[-1] == "-" else value + "\n"), i


def _nested_value(lines: list[str], i: int, indent: int, depth: int) -> tuple[Any, int]:
    """The value of a key at column ``indent`` with nothing after its colon: a block collection
    or plain scalar on the lines after it, or null; with the index after it."""
    j = _skip_blank(lines, i)
    if j >= len(lines):
        return None, i
    line = lines[j]
    content = line.lstrip(" ")
    at = len(line) - len(content)
    if at < indent or (at == indent and content[:2] != "- "):
        return None, i
    if depth >= _SIMPLE_DEPTH:
        raise _NotSimple
    if content[:2] == "- ":
        return _block_sequence(lines, j, at, depth + 1)
    m = _SIMPLE_KEY_RE.match(content)
    if m is not None and (m.group(2) or not m.group(3)):
        return _block_mapping(lines, j, at, depth + 1)
    if j != i:
        raise _NotSimple  # (blank lines before a plain scalar fold to line breaks)
    return _plain_lines(None, lines, i, indent)


def _block_sequence(lines: list[str], i: int, indent: int, depth: int) -> tuple[list[Any], int]:
    """The block sequence whose entries (``- `` lines) are at column ``indent`` from line ``i``,
    with the index after it. An entry holds a one-line or plain scalar, a flow collection, or a
    block mapping beginning on the entry's line."""
    pad = " " * indent
    items: list[Any] = []
    count = len(lines)
    while True:
        i = _skip_blank(lines, i)
        if i >= count:
            break
        line = lines[i]
        if not line.startswith(pad):
            break
        if line[indent : indent + 2] != "- ":
            if line[indent : indent + 1] == " " or line[indent:] == "-":
                raise _NotSimple
            break
        content = line[indent + 2 :]
        text = content.lstrip(" ")
        at = indent + 2 + len(content) - len(text)
        text = text.rstrip(" ")
        if not text or text[:1] == "-":
            raise _NotSimple
        m = _SIMPLE_KEY_RE.match(text)
        if m is not None:
            if depth >= _SIMPLE_DEPTH:
                raise _NotSimple
            lines[i] = " " * at + text  # (the entry's mapping begins at its key's column)
            value, i = _block_mapping(lines, i, at, depth + 1)
        else:
            value, i = _inline_value(text, lines, i + 1, indent, depth)
        items.append(value)
    return items, i


def _block_mapping(lines: list[str], i: int, indent: int, depth: int) -> tuple[dict[str, Any], int]:
    """The block mapping whose keys are at column ``indent`` from line ``i``, with the index
    after it (see :func:`_simple_mapping` for the shape)."""
    pad = " " * indent
    deeper = pad + " "
    out: dict[str, Any] = {}
    count = len(lines)
    match = _SIMPLE_KEY_RE.match
    while i < count:
        line = lines[i]
        m = match(line, indent)
        if m is None or (indent and not line.startswith(pad)):
            # Not a key at this column: a blank or comment line, the end of the mapping, or
            # a shape the loader reads.
            if not line or line.lstrip(" ")[:1] == "#":
                i += 1
                continue
            if not line.startswith(pad):
                break
            raise _NotSimple
        key, blanks, rest = m.groups()
        if key in out or (key[0] in _TYPED_FIRSTS and plain_scalar_tag(key) != _STR_TAG):
            raise _NotSimple
        i += 1
        if rest:
            if not blanks:
                raise _NotSimple
            rest = rest.rstrip(" ")
        if not rest:
            value, i = _nested_value(lines, i, indent, depth)
        else:
            value = _simple_scalar(rest)
            if value is _NOT_SIMPLE or (i < count and lines[i].startswith(deeper)):
                if rest in _BLOCK_HEADERS:
                    value, i = _block_scalar(rest, lines, i, indent)
                else:
                    value, i = _inline_value(rest, lines, i, indent, depth)
        out[intern(key)] = value
    return out, i


def _simple_mapping(yaml_text: str) -> dict[str, Any] | None:
    """The frontmatter as the loader reads it, when it has the simple shape most manifests have;
    ``None`` otherwise (the loader then reads it, SPEC §26).

    The simple shape: a block mapping of plain keys (see :data:`_SIMPLE_KEY_RE`, never twice in
    one mapping) at column 0, with blank and comment lines between entries, no tab and only
    printable characters. A value is a one-line scalar (see :func:`_simple_scalar`) or a plain
    scalar folded over more indented lines, a folded or literal block scalar (``>``, ``>-``,
    ``|``, ``|-``) whose lines share one indentation, a one-line flow collection of such
    scalars, null, or, after a bare ``key:``, a more indented block mapping or sequence (or a
    sequence at the key's column) of the same values, nested at most :data:`_SIMPLE_DEPTH`
    deep. Anything else (anchors, tags, escapes, trailing comments, multi-line quoted scalars,
    more-indented or blank lines inside a scalar, numbers, keys of other kinds) is left to the
    loader, which gives every error its position. A property test holds the two readings equal
    on what this one takes.
    """
    if "\t" in yaml_text or yaml_text[-1:] != "\n" or not yaml_text.replace("\n", "").isprintable():
        return None
    lines = yaml_text.split("\n")
    lines.pop()  # (the text ends with a newline: the last piece is empty)
    try:
        out, end = _block_mapping(lines, 0, 0, 0)
    except _NotSimple:
        return None
    if not out or end != len(lines):
        return None  # (no key at all: the loader's)
    if len(yaml_text) > MAX_YAML_NODES and _node_count(out) > MAX_YAML_NODES:
        return None  # (the loader refuses it, SPEC §20.6; a shorter text cannot hold as many)
    return out


def _node_count(value: object) -> int:
    """The YAML nodes of a value the simple reading made (keys included), as the loader counts
    them (SPEC §20.6)."""
    count = 0
    stack = [value]
    while stack:
        node = stack.pop()
        count += 1
        if type(node) is dict:
            count += len(node)
            stack.extend(node.values())
        elif type(node) is list:
            stack.extend(node)
    return count


def load_frontmatter_yaml(yaml_text: str, *, first_line: int = 1) -> Any:
    """Load YAML text with YAML 1.2 core typing (SPEC §5).

    Args:
        yaml_text: The lines between the fences.
        first_line: 1-based file line of the first YAML line, for error positions.

    Returns:
        The loaded value (``None`` for an empty or comment-only document).

    Raises:
        SkillError: ``invalid_skill`` with ``fields`` ``line``/``column`` (1-based, in the file)
            when known; ``invalid_skill`` ``{reason}`` (``yaml_depth`` or ``yaml_nodes``) for a
            document nested deeper than :data:`MAX_YAML_DEPTH` or holding more than
            :data:`MAX_YAML_NODES` nodes, checked before anything recursive runs (SPEC §20.6).
    """
    if not yaml_text or yaml_text.isspace():
        return None
    simple = _simple_mapping(yaml_text)
    if simple is not None:
        return simple
    import yaml

    from ._yaml12 import Core12Loader

    _check_shape(yaml_text)
    loader = Core12Loader(yaml_text)
    try:
        value = loader.load_single()
        # Without a shared node the tree has no cycle, at most two values per character of
        # text and no more characters than the text, so a short document with no alias (a
        # string's alias sets no flag, hence the look for an anchor) cannot reach either budget.
        if (
            loader.saw_alias
            or len(yaml_text) > MAX_FRONTMATTER_NODES // 4
            or ("&" in yaml_text and "*" in yaml_text)
        ):
            _check_tree(value, len(yaml_text))
        return value
    except yaml.MarkedYAMLError as exc:
        fields: dict[str, Any] = {}
        mark = exc.problem_mark or exc.context_mark
        if mark is not None:
            fields = {"line": mark.line + first_line, "column": mark.column + 1}
        problem = exc.problem or exc.context or "syntax error"
        raise SkillError(
            ErrorCode.INVALID_SKILL, f"invalid YAML frontmatter: {problem}", fields
        ) from None
    except yaml.reader.ReaderError as exc:
        position = max(exc.position, 0)
        line = first_line + yaml_text.count("\n", 0, position)
        column = position - (yaml_text.rfind("\n", 0, position) + 1) + 1
        raise SkillError(
            ErrorCode.INVALID_SKILL,
            "invalid YAML frontmatter: unacceptable character",
            {"line": line, "column": column},
        ) from None
    except (yaml.YAMLError, ValueError, RecursionError, UnicodeError) as exc:
        reason = str(exc) if isinstance(exc, ValueError) else type(exc).__name__
        raise SkillError(ErrorCode.INVALID_SKILL, f"invalid YAML frontmatter: {reason}") from None
    finally:
        loader.dispose()


_REPAIR_QUOTES = "quoted values containing ': ', ' #' or a final ':'"
_REPAIR_TABS = "indented with spaces instead of tabs"
# Each pattern is followed by a character it cannot match, so it runs in linear time (SPEC §20.7).
_KEY_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_LEADING_WS_RE = re.compile(r"^[ \t]+")


def _top_key(line: str) -> tuple[str, str, str] | None:
    """Split a top-level ``key: value`` line into ``(key, separator, value)``, or ``None``.

    A line scanner, linear in the line's length: the key is ``[A-Za-z0-9_][A-Za-z0-9_.-]*``, the
    separator blanks, a colon and at least one blank, the value the rest without trailing blanks.
    """
    m = _KEY_NAME_RE.match(line)
    if m is None:
        return None
    end = m.end()
    i = end
    n = len(line)
    while i < n and line[i] in " \t":
        i += 1
    if i >= n or line[i] != ":":
        return None
    j = i + 1
    while j < n and line[j] in " \t":
        j += 1
    if j == i + 1:
        return None
    return line[:end], line[end:j], line[j:].rstrip(" \t")


def _repair(yaml_text: str) -> tuple[str, list[int], list[str]]:
    """Quote top-level plain values holding ``: ``/`` #``/a trailing colon; expand leading tabs.

    Returns the repaired text, the 0-based indexes of the lines changed, and what was done
    (phrases for the ``yaml_repaired`` diagnostic, in a fixed order).
    """
    lines = yaml_text.split("\n")
    changed: list[int] = []
    done: set[str] = set()
    for i, line in enumerate(lines):
        new = line
        ws = _LEADING_WS_RE.match(new)
        if ws and "\t" in ws.group(0):
            new = ws.group(0).replace("\t", "  ") + new[ws.end() :]
            done.add(_REPAIR_TABS)
        m = _top_key(new)
        if m:
            value = m[2]
            # Besides the quoting and block indicators of SPEC §5, a value starting with '!' is
            # tagged, not plain: quoting it would let a non-core tag load as a string.
            if (
                value
                and value[0] not in "\"'[{|>!"
                and (": " in value or " #" in value or value.endswith(":"))
            ):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                new = f'{m[0]}{m[1]}"{escaped}"'
                done.add(_REPAIR_QUOTES)
        if new != line:
            lines[i] = new
            changed.append(i)
    return "\n".join(lines), changed, [p for p in (_REPAIR_QUOTES, _REPAIR_TABS) if p in done]


def load_repaired_yaml(yaml_text: str, *, first_line: int = 2) -> tuple[Any, list[int]] | None:
    """The frontmatter as the lenient loader reads YAML that failed to load (SPEC §5): after
    the repair :func:`parse_manifest` applies (top-level plain values holding ``: ``, `` #`` or
    a trailing colon quoted; leading tabs expanded).

    Args:
        yaml_text: The frontmatter's YAML, as :func:`split_frontmatter` gave it.
        first_line: Its first line's number in the file.

    Returns:
        ``(data, lines)``: the loaded value and the 1-based file lines the repair changed;
        ``None`` when the repair changes nothing or the repaired text does not load either.
    """
    repaired, changed, _ = _repair(yaml_text)
    if not changed:
        return None
    try:
        data = load_frontmatter_yaml(repaired, first_line=first_line)
    except SkillError:
        return None
    return data, [i + first_line for i in changed]


class ManifestResult(NamedTuple):
    """Outcome of :func:`parse_manifest`: the parsed skill or the error, never both (a named
    tuple: one is made per manifest, SPEC §26).

    Attributes:
        parsed: The :class:`ParsedSkill`, or ``None`` when the manifest is invalid.
        error: The ``SkillError`` :func:`parse_skill` would raise, or ``None``.
        diagnostics: What was found before the outcome was known: on failure, the notes of the
            attempt (``invalid_utf8`` when the bytes were not UTF-8, the likely real cause); on
            success, ``parsed.diagnostics``.
    """

    parsed: ParsedSkill | None
    error: SkillError | None
    diagnostics: tuple[Diagnostic, ...]


def parse_skill(
    text: str | bytes, *, strict: bool = False, path: str | Path | None = None
) -> ParsedSkill:
    """Parse and validate a ``SKILL.md`` (SPEC §5-§6).

    Args:
        text: The manifest as ``str`` or ``bytes`` (decoded as UTF-8; invalid bytes become U+FFFD
            with an ``invalid_utf8`` diagnostic). One leading BOM is dropped; CRLF and CR become LF.
        strict: No YAML repair, and a failing optional key (or a flag that is not a boolean) is
            an error instead of a diagnostic.
        path: The manifest's path, added to error ``fields`` and diagnostics when given. In
            lenient mode the name of its parent directory stands in for a missing ``name``
            (``name_missing`` diagnostic, SPEC §21.6).

    Returns:
        A :class:`ParsedSkill`. Its diagnostics may hold ``invalid_utf8``, ``yaml_repaired``,
        ``name_missing`` and ``invalid_field`` (an optional key ignored, or an invocation flag
        failed closed, SPEC §21.7).

    Raises:
        SkillError: ``invalid_skill`` for a fence problem ("unterminated frontmatter"), a YAML error
            (``fields`` ``line``/``column``), a document that is not a mapping (``at=""``) or a
            schema failure (``at=<key>``); ``invalid_input`` for a non-text argument. ``fields``
            include ``path`` when given.
    """
    result = parse_manifest(text, strict=strict, path=path)
    if result.error is not None:
        raise result.error
    assert result.parsed is not None
    return result.parsed


def parse_manifest(
    text: str | bytes,
    *,
    strict: bool = False,
    path: str | Path | None = None,
    skill_id: str | None = None,
) -> ManifestResult:
    """Parse a ``SKILL.md`` as :func:`parse_skill` does, returning the failure instead of raising.

    Discovery uses this so that what was learnt before a failure (``invalid_utf8``) reaches the
    report as a diagnostic, not as a flag inside the error.

    Args:
        text: The manifest (``str`` or ``bytes``), as for :func:`parse_skill`.
        strict: As for :func:`parse_skill`.
        path: The manifest's path, added to the error's ``fields`` (when absent) and diagnostics.
        skill_id: What stands in for a missing ``name`` in lenient mode (SPEC §21.6), when not
            the name of ``path``'s directory: a single-file skill's id (SPEC §29.2).

    Returns:
        A :class:`ManifestResult`; its ``error`` carries the codes :func:`parse_skill` documents,
        with the message ending in "(the file is not valid UTF-8)" when the bytes were not.
    """
    where = str(path) if path is not None else None
    diags: list[Diagnostic] = []
    try:
        decoded, invalid = _decode(text)
        if invalid:
            diags.append(invalid_utf8_diagnostic(where))
        yaml_text, body, first_line = split_frontmatter(decoded)
        data: Any = {}
        if yaml_text is not None:
            try:
                data = load_frontmatter_yaml(yaml_text, first_line=first_line)
            except SkillError as original:
                if strict:
                    raise
                repaired, changed, done = _repair(yaml_text)
                if not changed:
                    raise
                try:
                    data = load_frontmatter_yaml(repaired, first_line=first_line)
                except SkillError:
                    raise original from None  # the author's error, not our rewrite's
                lines = ", ".join(str(i + first_line) for i in changed)
                label = "line" if len(changed) == 1 else "lines"
                diags.append(
                    Diagnostic(
                        DiagnosticKind.YAML_REPAIRED,
                        f"frontmatter of {where or 'manifest'} repaired ({label} {lines}): "
                        + " and ".join(done),
                        _as_path(where),
                    )
                )
        elif not decoded.strip():
            raise SkillError(ErrorCode.INVALID_SKILL, "the manifest is empty", {"at": "name"})
        else:
            raise SkillError(
                ErrorCode.INVALID_SKILL,
                "no frontmatter: the manifest must open with a '---' line",
                {"at": "name"},
            )
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise SkillError(
                ErrorCode.INVALID_SKILL,
                f"frontmatter must be a mapping, got {yaml_kind(data)}",
                {"at": ""},
            )
        # The directory's name stands in only for a missing name (SPEC §21.6).
        dir_name = None
        if "name" not in data:
            if skill_id is not None:
                dir_name = skill_id
            elif where:
                dir_name = os.path.basename(os.path.dirname(where))
        values, notes = check_frontmatter_values(
            data,
            strict=strict,
            dir_name=dir_name or None,
            named_by="directory" if skill_id is None else "file",
        )
        for note in notes:
            diags.append(
                Diagnostic(
                    DiagnosticKind(note.kind),
                    f"{note.lead} '{note.key}' in {where or 'manifest'}: {note.detail}",
                    _as_path(where),
                )
            )
        # The loader's mapping is this parse's own: updated in place rather than copied.
        frontmatter = data if type(data) is dict else dict(data)
        frontmatter["name"] = values["name"]
        frontmatter["description"] = values["description"]
        found = tuple(diags)
        return ManifestResult(ParsedSkill(frontmatter, body, found, values), None, found)
    except SkillError as err:
        fields = {"path": where} if where is not None and "path" not in err.fields else None
        message = None
        if diags and diags[0].kind == DiagnosticKind.INVALID_UTF8:
            # The encoding is most likely the real cause: the message says so (SPEC §5).
            message = f"{err.message} (the file is not valid UTF-8)"
        if fields is not None or message is not None:
            err = err.with_fields(fields, message=message)
        return ManifestResult(None, err, tuple(diags))


def invalid_utf8_diagnostic(where: str | None) -> Diagnostic:
    """The ``invalid_utf8`` diagnostic for the manifest at ``where`` (SPEC §5)."""
    return Diagnostic(
        DiagnosticKind.INVALID_UTF8,
        f"invalid UTF-8 replaced with U+FFFD in {where or 'manifest'}",
        _as_path(where),
    )


def _as_path(where: str | None) -> Path | None:
    # Built only when a diagnostic needs it: a Path per manifest is a measurable share of a scan.
    return Path(where) if where is not None else None
