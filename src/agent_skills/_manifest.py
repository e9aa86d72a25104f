"""Parsing a ``SKILL.md``: decoding, fences, YAML 1.2 frontmatter and lenient repair (SPEC §5).

Pure: text or bytes in, data out. No filesystem, no logging.

YAML is loaded with PyYAML's libyaml-backed parser and a resolver/constructor pair restricted to the
YAML 1.2 core schema: ``yes``/``no``/``on``/``off`` and dates stay strings, ``017`` is 17, ``<<`` is
an ordinary key, duplicate keys are an error, and tags outside the core schema are rejected.
"""

from __future__ import annotations

import math
import operator
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from ._diagnostics import Diagnostic, DiagnosticKind
from ._errors import ErrorCode, SkillError, invalid_input
from ._schema import check_frontmatter_values, yaml_kind

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
    "plain_scalar_tag",
    "split_frontmatter",
    "yaml_kind",
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


class _Core12Resolver(Resolver):
    """Implicit typing of the YAML 1.2 core schema only."""

    yaml_implicit_resolvers = {}  # noqa: RUF012
    yaml_path_resolvers = {}  # noqa: RUF012  # none, ever: ``resolve`` below ignores them

    # Without path resolvers the composer's two calls per node into these hooks do nothing
    # (``BaseResolver``'s return at once): C callables that ignore their arguments answer them
    # without a Python frame each (SPEC §26).
    descend_resolver = staticmethod(operator.is_)  # type: ignore[assignment]  # (node, index)
    ascend_resolver = staticmethod(tuple)  # type: ignore[assignment]  # ()

    def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool]) -> str:
        # What ``BaseResolver.resolve`` answers for this resolver (no path resolvers, no wildcard
        # implicit resolvers), without its generic lookups: it runs for every node (SPEC §26).
        if kind is ScalarNode:
            if implicit[0]:
                for tag, regexp in _IMPLICIT.get(value[:1], ()):
                    if regexp.match(value):
                        return tag
            return _STR_TAG
        return _SEQ_TAG if kind is SequenceNode else _MAP_TAG


_Core12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)
_Core12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
_Core12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
_Core12Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
#: The implicit resolvers above by the first character they apply to: ``(tag, regexp)`` pairs.
_IMPLICIT: dict[str, list[tuple[str, re.Pattern[str]]]] = _Core12Resolver.yaml_implicit_resolvers


def plain_scalar_tag(value: str) -> str:
    """The YAML 1.2 core schema tag of the plain (unquoted) scalar ``value``, as the loader
    types it: ``tag:yaml.org,2002:str``, ``...:null``, ``...:bool``, ``...:int`` or
    ``...:float``."""
    for tag, regexp in _IMPLICIT.get(value[:1], ()):
        if regexp.match(value):
            return tag
    return _STR_TAG


def _canonical_key(value: object) -> str | None:
    """YAML 1.2 canonical text of a scalar key, or None for a non-scalar key."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    return None


def _duplicate_key(node: Node, key_node: Node) -> ConstructorError:
    """The error of a key met twice in one mapping (SPEC §5: duplicate keys are invalid)."""
    return ConstructorError(
        "while constructing a mapping", node.start_mark, "found duplicate key", key_node.start_mark
    )


class _NotPlain(Exception):
    """A node the direct construction leaves to the generic one (an alias to a collection, a
    collection tag on another kind of node, an unknown tag on a collection)."""


class _Core12Constructor(SafeConstructor):
    """Constructors for the core tags only; any other tag is an error."""

    yaml_constructors: ClassVar[dict[Any, Any]] = {}
    yaml_multi_constructors: ClassVar[dict[Any, Any]] = {}

    if TYPE_CHECKING:

        def get_single_node(self) -> Node | None:
            """The document's root node (from the composer the loader mixes in)."""

    def __init__(self) -> None:
        SafeConstructor.__init__(self)
        #: True once a node is met a second time (an alias to a collection or a non-str scalar).
        self.saw_alias = False

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        # Most frontmatter nodes are plain strings: return their text directly instead of going
        # through the generic dispatch (what the str constructor returns anyway; caching the
        # node is pointless for an immutable value). Everything else takes the normal path.
        if node.__class__ is ScalarNode and node.tag == _STR_TAG:
            return node.value
        if node in self.constructed_objects:
            self.saw_alias = True
        return super().construct_object(node, deep)

    def load_single(self) -> Any:
        """The document's value, as ``get_single_data`` gives it.

        A tree in which no collection node appears twice (no alias to a mapping or a list, so no
        cycle) is built directly, without the generic construction's generators and bookkeeping
        (they cost as much as the parsing for a small frontmatter, SPEC §26). It visits the nodes
        in the generic order (each collection's entries once every collection met before it is
        done), so the first error is the same. A shared collection or any node that is not plain
        (see :meth:`_child`) makes it start again the generic way, so aliases and tags behave
        exactly as before.
        """
        node = self.get_single_node()
        if node is None:
            return None
        try:
            value = self._build_tree(node)
            if not self.state_generators:  # nothing left half-built (see _child)
                return value
        except _NotPlain:
            pass
        self.constructed_objects = {}
        self.state_generators = []
        return self.construct_document(node)

    def _build_tree(self, root: Node) -> Any:
        seen: set[int] = set()
        queue: list[tuple[Any, Node]] = []
        value = self._child(root, seen, queue)
        i = 0
        while i < len(queue):
            container, node = queue[i]
            i += 1
            if type(container) is dict:
                for key_node, value_node in node.value:
                    # A plain string key or value is taken here, as _key and _child would take
                    # it: most nodes are, and a call each would cost most of the walk (SPEC §26).
                    if key_node.__class__ is ScalarNode and key_node.tag == _STR_TAG:
                        key = intern(key_node.value)
                    else:
                        key = self._key(key_node, node)
                    if key in container:
                        raise _duplicate_key(node, key_node)
                    if value_node.__class__ is ScalarNode and value_node.tag == _STR_TAG:
                        container[key] = value_node.value
                    else:
                        container[key] = self._child(value_node, seen, queue)
            else:
                for child in node.value:
                    if child.__class__ is ScalarNode and child.tag == _STR_TAG:
                        container.append(child.value)
                    else:
                        container.append(self._child(child, seen, queue))
        return value

    def _child(self, node: Node, seen: set[int], queue: list[tuple[Any, Node]]) -> Any:
        """A scalar's value, or a new empty collection queued to be filled.

        Only plain nodes are built here: a string, another core scalar (whose constructor is a
        plain function), a mapping tagged as a mapping, a sequence tagged as a sequence. Anything
        else (a collection tag on another kind of node, an unknown tag on a collection, a node
        met twice) makes the whole document go the generic way, whose answer is the contract.
        """
        cls = node.__class__
        tag = node.tag
        if cls is ScalarNode:
            if tag == _STR_TAG:
                return node.value
            if tag in (_MAP_TAG, _SEQ_TAG):
                raise _NotPlain
            return self.construct_object(node)
        if id(node) in seen:
            raise _NotPlain
        seen.add(id(node))
        container: Any
        if cls is MappingNode and tag == _MAP_TAG:
            container = {}
        elif cls is SequenceNode and tag == _SEQ_TAG:
            container = []
        else:
            raise _NotPlain
        queue.append((container, node))
        return container

    def _key(self, key_node: Node, node: Node) -> str:
        """The canonical text of a mapping key, interned (keys repeat across every skill)."""
        if key_node.__class__ is ScalarNode and key_node.tag == _STR_TAG:
            key: str | None = key_node.value  # the common case, as construct_object answers
        else:
            key = _canonical_key(self.construct_object(key_node, deep=True))
        if key is None:
            raise ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                "found a non-scalar key",
                key_node.start_mark,
            )
        return intern(key)

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, MappingNode):
            raise ConstructorError(None, None, "expected a mapping node", node.start_mark)
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self._key(key_node, node)
            if key in mapping:
                raise _duplicate_key(node, key_node)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_core_bool(self, node: ScalarNode) -> bool:
        text = str(self.construct_scalar(node))
        if text.lower() not in ("true", "false"):
            raise ConstructorError(None, None, "invalid boolean", node.start_mark)
        return text.lower() == "true"

    def construct_core_int(self, node: ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        try:
            if text.startswith("0o"):
                return int(text[2:], 8)
            if text.startswith("0x"):
                return int(text[2:], 16)
            if not re.fullmatch(r"[-+]?[0-9]+", text):
                raise ValueError(text)
            return int(text, 10)
        except ValueError:
            raise ConstructorError(None, None, "invalid integer", node.start_mark) from None

    def construct_core_float(self, node: ScalarNode) -> float:
        text = str(self.construct_scalar(node)).lower()
        special = {".inf": math.inf, "+.inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}
        if text in special:
            return special[text]
        try:
            return float(text)
        except ValueError:
            raise ConstructorError(None, None, "invalid float", node.start_mark) from None

    def construct_unknown(self, node: Node) -> None:
        # The tag itself is file content, so the message does not repeat it (SPEC §11).
        raise ConstructorError(
            None, None, "found a tag outside the YAML 1.2 core schema", node.start_mark
        )


_Core12Constructor.add_constructor("tag:yaml.org,2002:null", SafeConstructor.construct_yaml_null)  # type: ignore[type-var]
_Core12Constructor.add_constructor("tag:yaml.org,2002:bool", _Core12Constructor.construct_core_bool)  # type: ignore[type-var]
_Core12Constructor.add_constructor("tag:yaml.org,2002:int", _Core12Constructor.construct_core_int)  # type: ignore[type-var]
_Core12Constructor.add_constructor(
    "tag:yaml.org,2002:float", _Core12Constructor.construct_core_float
)  # type: ignore[type-var]
_Core12Constructor.add_constructor("tag:yaml.org,2002:str", SafeConstructor.construct_yaml_str)  # type: ignore[type-var]
_Core12Constructor.add_constructor("tag:yaml.org,2002:seq", SafeConstructor.construct_yaml_seq)  # type: ignore[type-var]
_Core12Constructor.add_constructor("tag:yaml.org,2002:map", SafeConstructor.construct_yaml_map)  # type: ignore[type-var]
_Core12Constructor.add_constructor(None, _Core12Constructor.construct_unknown)  # type: ignore[type-var]


if yaml.__with_libyaml__:
    from yaml._yaml import CParser as _CParser

    class _Core12Loader(_CParser, _Core12Constructor, _Core12Resolver):
        """libyaml parser and composer + YAML 1.2 core resolver and constructor."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            _Core12Constructor.__init__(self)
            # The resolver's own state is the path resolvers' (see _Core12Resolver): none.

else:  # pragma: no cover - PyYAML built without libyaml
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Core12Loader(  # type: ignore[no-redef]
        Reader, Scanner, Parser, Composer, _Core12Constructor, _Core12Resolver
    ):
        """Pure-Python parser + YAML 1.2 core resolver and constructor."""

        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)
            _Core12Constructor.__init__(self)
            _Core12Resolver.__init__(self)


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

_COLLECTION_STARTS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_COLLECTION_ENDS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
_NODE_EVENTS = (yaml.ScalarEvent, yaml.AliasEvent, *_COLLECTION_STARTS)


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
    events = _Core12Loader(yaml_text)
    try:
        while events.check_event():
            event = events.get_event()
            if isinstance(event, _NODE_EVENTS):
                nodes += 1
                if nodes > MAX_YAML_NODES:
                    raise SkillError(
                        ErrorCode.INVALID_SKILL,
                        f"invalid YAML frontmatter: more than {MAX_YAML_NODES} nodes",
                        {"reason": "yaml_nodes"},
                    )
            if isinstance(event, _COLLECTION_STARTS):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise SkillError(
                        ErrorCode.INVALID_SKILL,
                        f"invalid YAML frontmatter: nested deeper than {MAX_YAML_DEPTH} levels",
                        {"reason": "yaml_depth"},
                    )
            elif isinstance(event, _COLLECTION_ENDS):
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
    _check_shape(yaml_text)
    loader = _Core12Loader(yaml_text)
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
        values, notes = check_frontmatter_values(data, strict=strict, dir_name=dir_name or None)
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
