"""The on-disk index's file format (format 8, SPEC §26): pure encoding and decoding, no I/O.

What one entry holds and where (:data:`LINKED` ... :data:`PAYLOAD`), the stamps record
(:data:`STAMPS`, :func:`stat_key`), the frontmatters as rows of values over shared key layouts
(:class:`Nodes`, :func:`decode_nodes`), and the diagnostics and catalog facts of an entry. Reading,
validating and writing the file are ``_index``'s.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping
from itertools import chain, compress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._diagnostics import Diagnostic, DiagnosticKind
from ._frozen import close_mappings, open_mappings, shared_layout
from ._model import MANIFEST_NAME
from ._schema import tools_key

if TYPE_CHECKING:
    from ._model import SkillInfo

__all__ = [
    "DAMAGE",
    "KIND",
    "LINKED",
    "MAGIC",
    "MANIFEST",
    "PAYLOAD",
    "RACY",
    "RECORD",
    "SCAN_DIAGS",
    "STAMPS",
    "Nodes",
    "StatKey",
    "decode_nodes",
    "diag_rows",
    "diags",
    "facts",
    "loaded_name",
    "short_entry",
    "stat_key",
]

#: First line of every index file; the trailing digit is the format version.
MAGIC = b"agent-skills manifest index 8\n"

# Positions in an entry's list (the JSON stays compact and cheap to load).
LINKED, RECORD, MANIFEST, SCAN_DIAGS, RACY, KIND = range(6)
# After KIND: "ok": the frontmatter's node (see Nodes),
# diagnostics, catalog facts (the name, always: a scan decides precedence from it before any
# entry is restored; the description, null when the frontmatter's; allowed tools:
# a list, null for none, true for the frontmatter's own list; user-invocable; model-invocable),
# body offset, body length;
# "err": code, message, fields, diagnostics.
PAYLOAD = 6
# One stamps record: the directory's stamp, then the manifest's (see stat_key).
STAMPS = struct.Struct("<QQqqqQQqqq")

# What decoding a damaged or foreign entry may raise: the entry is ignored, never a crash.
DAMAGE = (
    TypeError,
    ValueError,
    IndexError,
    KeyError,
    AttributeError,
    RecursionError,
    struct.error,
)

StatKey = tuple[int, int, int, int, int]


def stat_key(st: os.stat_result) -> StatKey:
    """The identity and change stamp of a file or directory, as the index stores it (SPEC §26)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


#: What a decoded frontmatter holds besides its containers (JSON's scalars).
_SCALARS = frozenset({str, int, float, bool, type(None)})


class Nodes:
    """The frontmatters as the index stores them: every mapping and list in them is
    a *node*, numbered children first; a node is its layout's number and its values, a child
    node's place holding ``null``; the *links* say which node goes where. A layout is a
    mapping's keys in order, or a list's length; each distinct one is stored once.

    Decoded without a Python call per mapping (see :meth:`ManifestIndex._frontmatter`): the
    read-only mappings are what ``freeze`` makes of the frontmatters, sharing its key layouts.
    """

    __slots__ = ("layouts", "links", "numbers", "values")

    def __init__(self) -> None:
        self.layouts: dict[tuple[str, ...] | int, int] = {}
        self.numbers: list[int] = []
        self.values: list[list[Any]] = []
        self.links: list[int] = []  # (parent, position, child) flattened, parents in order

    def add(self, value: Mapping[str, Any] | list[Any] | tuple[Any, ...]) -> int:
        """Store ``value`` (a mapping, list or tuple) and what it holds; return its number."""
        if isinstance(value, Mapping):
            layout: tuple[str, ...] | int = tuple(value)
            items = list(value.values())
        else:
            layout, items = len(value), list(value)
        row: list[Any] = []
        children: list[tuple[int, int]] = []
        for position, item in enumerate(items):
            if isinstance(item, Mapping | list | tuple):
                children.append((position, self.add(item)))
                item = None
            row.append(item)
        node = len(self.numbers)
        self.numbers.append(self.layouts.setdefault(layout, len(self.layouts)))
        self.values.append(row)
        for position, child in children:
            self.links += (node, position, child)
        return node

    def sections(self) -> tuple[list[Any], list[Any]]:
        """The layouts (keys as lists, lengths as integers), then ``[numbers, values, links]``."""
        layouts = [list(k) if type(k) is tuple else k for k in self.layouts]
        return layouts, [self.numbers, self.values, self.links]


def decode_nodes(layouts_json: Any, nodes_json: Any) -> tuple[list[Any], list[Any]]:
    """The nodes of :class:`Nodes` decoded: each mapping node as a :class:`FrozenMapping`, with
    each node's layout (a dict, or a ``range`` for a list node, whose place holds nothing usable).

    Raises:
        TypeError, ValueError, IndexError: Damaged or foreign sections.
    """
    if type(layouts_json) is not list or type(nodes_json) is not list:
        raise TypeError("frontmatters")
    tables: list[Any] = []
    for keys in layouts_json:
        if type(keys) is int and keys >= 0:
            tables.append(range(keys))
            continue
        if type(keys) is not list or not set(map(type, keys)) <= {str}:
            raise TypeError("layouts")
        layout = shared_layout(tuple(keys))
        if len(layout) != len(keys):  # a key twice
            raise ValueError("layouts")
        tables.append(layout)
    numbers, values, links = nodes_json
    if (
        type(numbers) is not list
        or type(values) is not list
        or type(links) is not list
        or len(numbers) != len(values)
        or len(links) % 3
        or not set(map(type, numbers)) <= {int}
        or min(numbers, default=0) < 0
        or not set(map(type, values)) <= {list}
        or not set(map(type, chain.from_iterable(values))) <= _SCALARS
        or not set(map(type, links)) <= {int}
    ):
        raise TypeError("frontmatters")
    shapes = list(map(tables.__getitem__, numbers))  # IndexError: no such layout
    if list(map(len, values)) != list(map(len, shapes)):
        raise ValueError("frontmatters")
    # One mapping to be per node, filled below (a list node's stays unused: it becomes a tuple).
    made = open_mappings(len(shapes))
    last = 0
    it = iter(links)
    for parent, position, child in zip(it, it, it, strict=True):
        # Parents in order, each after its children: a list child's own links are done.
        if not 0 <= child < parent or parent < last:
            raise ValueError("links")
        last = parent
        shape = shapes[child]
        values[parent][position] = tuple(values[child]) if type(shape) is range else made[child]
    mappings = [type(shape) is dict for shape in shapes]
    rows = map(tuple, compress(values, mappings))
    close_mappings(compress(made, mappings), compress(shapes, mappings), rows)
    return made, shapes


def diag_rows(diagnostics: tuple[Diagnostic, ...]) -> list[list[Any]] | None:
    """The diagnostics as an entry stores them: a row each, ``null`` for none (the common case:
    a list fewer for the reader to build and hold per skill)."""
    if not diagnostics:
        return None
    return [
        [d.kind.value, d.message, os.fspath(d.path) if d.path else None, d.severity]
        for d in diagnostics
    ]


def diags(rows: list[list[Any]]) -> tuple[Diagnostic, ...]:
    out = []
    for kind, message, path, severity in rows:
        if type(message) is not str or severity not in ("warning", "info"):
            raise ValueError("diagnostic")
        out.append(
            Diagnostic(DiagnosticKind(kind), message, Path(path) if path else None, severity)
        )
    return tuple(out)


def facts(info: SkillInfo, frontmatter: Mapping[str, Any]) -> list[Any]:
    """The catalog facts as an entry stores them: the name always (precedence is decided from
    it before the entry is restored), a description equal to the frontmatter's (the common
    case) as ``null``, allowed tools that are the read-only frontmatter's own tuple (a list of
    clean names, the common case) as ``true``."""
    name = info.name
    description = None if frontmatter.get("description") == info.description else info.description
    tools = info.allowed_tools
    allowed: list[str] | bool | None = None
    if tools is not None:
        own = info.metadata.get(tools_key(info.metadata)) is tools
        allowed = True if own else list(tools)
    return [name, description, allowed, info.user_invocable, info.model_invocable]


def short_entry(entry: list[Any]) -> list[Any]:
    """What the header holds of ``entry`` (the whole entry is in a section of its own, decoded
    when first needed): for a *plain* entry (a skill that loaded from a ``SKILL.md`` of a
    directory that is not a link, not racy) ``[record, name]``, or ``[record, name, scan
    diagnostics, diagnostics]`` when it has any; ``[]`` for any other."""
    if (
        entry[RACY]
        or entry[LINKED] is not False
        or entry[MANIFEST] != MANIFEST_NAME
        or entry[KIND] != "ok"
    ):
        return []
    record, name, scan_rows, rows = (
        entry[RECORD],
        entry[PAYLOAD + 2],
        entry[SCAN_DIAGS],
        entry[PAYLOAD + 1],
    )
    return [record, name] if scan_rows is None and rows is None else [record, name, scan_rows, rows]


def loaded_name(short: list[Any]) -> tuple[str, tuple[Diagnostic, ...]] | None:
    """The skill name a short entry (see :func:`short_entry`) of a plain entry holds, and the
    diagnostics the scan and the parser reported for it, in that order; ``None`` for any other
    entry, a damaged one included."""
    try:
        if len(short) < 2:
            return None
        name = short[1]
        found: tuple[Diagnostic, ...] = ()
        if len(short) > 2:
            scan_rows, rows = short[2:4]
            found = (diags(scan_rows) if scan_rows else ()) + (diags(rows) if rows else ())
    except DAMAGE:
        return None
    return (name, found) if type(name) is str else None
