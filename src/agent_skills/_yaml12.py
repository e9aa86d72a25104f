"""The YAML 1.2 core loader over PyYAML (SPEC §5): imported on the first frontmatter that needs it.

A frontmatter of the simple shape most manifests have is read by ``_manifest`` without it, so a
process that meets only such frontmatters (or reads its skills from the on-disk index) never
imports PyYAML (SPEC §26).

YAML is loaded with PyYAML's libyaml-backed parser and a resolver/constructor pair restricted to the
YAML 1.2 core schema: ``yes``/``no``/``on``/``off`` and dates stay strings, ``017`` is 17, ``<<`` is
an ordinary key, duplicate keys are an error, and tags outside the core schema are rejected.
"""

from __future__ import annotations

import math
import operator
import re
from sys import intern
from typing import TYPE_CHECKING, Any, ClassVar

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from ._schema import CORE_SCALARS

__all__ = [
    "COLLECTION_ENDS",
    "COLLECTION_STARTS",
    "NODE_EVENTS",
    "Core12Constructor",
    "Core12Loader",
    "Core12Resolver",
]

_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"

#: The events that open and close a collection, and every event that is a node.
COLLECTION_STARTS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
COLLECTION_ENDS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
NODE_EVENTS = (yaml.ScalarEvent, yaml.AliasEvent, *COLLECTION_STARTS)


class Core12Resolver(Resolver):
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


for _tag, _pattern, _firsts in CORE_SCALARS:
    Core12Resolver.add_implicit_resolver(_tag, _pattern, list(_firsts))
#: The implicit resolvers above by the first character they apply to: ``(tag, regexp)`` pairs.
_IMPLICIT: dict[str, list[tuple[str, re.Pattern[str]]]] = Core12Resolver.yaml_implicit_resolvers


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


class Core12Constructor(SafeConstructor):
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


Core12Constructor.add_constructor("tag:yaml.org,2002:null", SafeConstructor.construct_yaml_null)  # type: ignore[type-var]
Core12Constructor.add_constructor("tag:yaml.org,2002:bool", Core12Constructor.construct_core_bool)  # type: ignore[type-var]
Core12Constructor.add_constructor("tag:yaml.org,2002:int", Core12Constructor.construct_core_int)  # type: ignore[type-var]
Core12Constructor.add_constructor("tag:yaml.org,2002:float", Core12Constructor.construct_core_float)  # type: ignore[type-var]
Core12Constructor.add_constructor("tag:yaml.org,2002:str", SafeConstructor.construct_yaml_str)  # type: ignore[type-var]
Core12Constructor.add_constructor("tag:yaml.org,2002:seq", SafeConstructor.construct_yaml_seq)  # type: ignore[type-var]
Core12Constructor.add_constructor("tag:yaml.org,2002:map", SafeConstructor.construct_yaml_map)  # type: ignore[type-var]
Core12Constructor.add_constructor(None, Core12Constructor.construct_unknown)  # type: ignore[type-var]


if yaml.__with_libyaml__:
    from yaml._yaml import CParser as _CParser

    class Core12Loader(_CParser, Core12Constructor, Core12Resolver):
        """libyaml parser and composer + YAML 1.2 core resolver and constructor."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            Core12Constructor.__init__(self)
            # The resolver's own state is the path resolvers' (see Core12Resolver): none.

else:  # pragma: no cover - PyYAML built without libyaml
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class Core12Loader(  # type: ignore[no-redef]
        Reader, Scanner, Parser, Composer, Core12Constructor, Core12Resolver
    ):
        """Pure-Python parser + YAML 1.2 core resolver and constructor."""

        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)
            Core12Constructor.__init__(self)
            Core12Resolver.__init__(self)
