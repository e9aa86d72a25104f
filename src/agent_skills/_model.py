"""The data model: what discovery hands out (SPEC §1, §6-§9, §20.1).

Frozen dataclasses with their JSON shapes, the read-only copy of frontmatter (:func:`freeze` and
its inverse :func:`thaw`) and the one order of names used everywhere (:func:`sort_key`). Pure: no
filesystem, no logging. Every later stage builds or reads these types; none defines its own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, overload

from ._config import Scope
from ._diagnostics import Diagnostic

if TYPE_CHECKING:
    from ._confine import Pin

__all__ = [
    "RESOURCE_KINDS",
    "SKIPPED_DIRS",
    "Grant",
    "GrantSet",
    "ResolvedSkill",
    "ResourceKind",
    "ShadowedSkill",
    "SkillContent",
    "SkillInfo",
    "SkillResource",
    "close_mappings",
    "freeze",
    "is_hidden",
    "is_skipped",
    "is_skipped_path",
    "make_resolved",
    "make_skill_info",
    "open_mappings",
    "share",
    "shared_layout",
    "sort_key",
    "sort_text",
    "thaw",
    "writable_twin",
]

ResourceKind: TypeAlias = Literal["scripts", "references", "assets", "examples", "other"]
RESOURCE_KINDS: tuple[ResourceKind, ...] = ("scripts", "references", "assets", "examples")


#: Directories that are never a skill's files and never searched for skills (SPEC §9, §21.4).
SKIPPED_DIRS: frozenset[str] = frozenset({"__pycache__", "node_modules"})


def is_hidden(name: str) -> bool:
    """Whether a file or directory name is hidden (starts with ``.``): not listed as a resource,
    not searched for skills, not watched (SPEC §9, §21.4); a hidden file is still served when
    asked for by name (SPEC §10)."""
    return name.startswith(".")


def is_skipped(name: str) -> bool:
    """Whether a path component keeps what is below it out of a skill's files and out of the
    search for skills: a hidden name or one of :data:`SKIPPED_DIRS` (SPEC §9, §21.4)."""
    return is_hidden(name) or name in SKIPPED_DIRS


def is_skipped_path(parts: Sequence[str], *, directory: bool) -> bool:
    """Whether the path ``parts`` (components below a skill's directory) is kept out of the
    skill's files: a hidden last component, or any directory on the way hidden or one of
    :data:`SKIPPED_DIRS` (the last too when it is a ``directory``). The rule for a name, applied
    to a whole path: a link's real target inside the skill is judged by it as well as the link's
    own name, so ``refs -> ../.git/config`` is no resource (SPEC §9, §30.2)."""
    if not parts:
        return False
    *above, last = parts
    if any(is_skipped(part) for part in above):
        return True
    return is_skipped(last) if directory else is_hidden(last)


_MAKE_CHILD = getattr(Path, "_make_child_relpath", None)
_PATH_TYPE = type(Path())  # what ``Path(text)`` makes here


def child_path(parent: Path, name: str) -> Path:
    """``parent / name`` for one component ``name`` taken from a directory listing (no ``/``, never
    ``.`` or ``..``), built without parsing ``name`` again where :mod:`pathlib` offers it (about a
    quarter of the cost; a scan builds two such paths per skill, SPEC §26)."""
    if _MAKE_CHILD is not None:
        made: Path = _MAKE_CHILD(parent, name)
        return made
    return parent / name


def lexical_child(skill_dir: Path, base: str, inner: str) -> Path:
    """The path handed out for ``inner`` under a skill (SPEC §10.6): ``Path(base + "/" +
    inner)``, ``base`` the text of ``skill_dir`` made absolute, ``inner`` normalised (no empty,
    ``.`` or ``..`` component; ``""`` for the directory itself). When ``skill_dir`` is that
    absolute path already, the result is built from it one component at a time, without
    parsing the whole text again (``resource_path``, SPEC §26)."""
    if type(skill_dir) is not _PATH_TYPE or str(skill_dir) != base:
        return Path(base.rstrip("/") + "/" + inner if inner else base)
    made = skill_dir
    if inner:
        for part in inner.split("/"):
            made = child_path(made, part)
    return made


def sort_key(name: str) -> tuple[str, str]:
    """The order of names everywhere in the library: ``(name.casefold(), name)`` (SPEC §4, §8)."""
    return (name.casefold(), name)


def sort_text(name: str) -> str:
    """:func:`sort_key` as one string, for a name that holds no NUL (every file name): ordering
    by it is ordering by ``sort_key``, since ``"\\0"`` sorts before every other character (a
    case-folded name that begins another still comes first), and one string comparison does
    the work of a tuple's two (a scan sorts each root's listing by it, about half the time;
    SPEC §26)."""
    return name.casefold() + "\0" + name


def writable_twin(cls: type) -> Any:
    """A plain class with the slots of ``cls`` (a read-only slotted class), or ``None`` where
    the interpreter does not let an instance of it take ``cls`` as its class.

    An instance of the twin filled by plain attribute stores, then given ``cls`` as its class,
    is what the constructor of ``cls`` makes with the same fields, for a fraction of the cost:
    the read-only classes (frozen dataclasses included) set each field through
    ``object.__setattr__``, about ten times what a store costs; discovery makes several such
    objects per skill (SPEC §26). Only for classes whose constructor does nothing else.
    """
    # The same bases (the layout rules compare them); none of their abstract methods is called.
    namespace = {"__slots__": getattr(cls, "__slots__", ()), "__module__": cls.__module__}
    twin: Any = type(cls)(f"_{cls.__name__}Fields", cls.__bases__, namespace)
    twin.__abstractmethods__ = frozenset()
    try:
        twin().__class__ = cls
    except TypeError:  # (the layouts differ)
        return None
    return twin


@dataclass(frozen=True, slots=True)
class SkillResource:
    """One file bundled with a skill (SPEC §9; progressive disclosure tier 3).

    Attributes:
        kind: ``scripts``, ``references``, ``assets`` or ``examples`` when that is the first
            segment of ``rel`` (case-sensitive), else ``other``.
        rel: POSIX path relative to the skill directory.
        path: ``skill.dir / rel``.
        size: Size in bytes at enumeration time.
    """

    kind: ResourceKind
    rel: str
    path: Path
    size: int

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"kind", "rel", "path", "size"}`` for JSON output."""
        return {"kind": self.kind, "rel": self.rel, "path": str(self.path), "size": self.size}


class FrozenMapping(Mapping[str, Any]):
    """A read-only mapping that shares its key layout with every mapping of the same keys.

    What :func:`freeze` makes of a frontmatter mapping: a tuple of values and a key-to-position
    table that all mappings with the same keys in the same order share (most skills of a store
    declare the same keys), so a skill's metadata costs a tuple instead of a hash table (SPEC §26
    memory). It behaves as a ``Mapping``: lookups, iteration in the original key order,
    ``len``, ``in``, and ``==`` with any mapping (a ``dict`` included) by content.
    """

    __slots__ = ("_layout", "_values")
    _layout: dict[str, int]
    _values: tuple[Any, ...]

    def __init__(self, items: Mapping[str, Any] | None = None) -> None:
        items = {} if items is None else items
        _set(self, "_layout", _layout(tuple(items)))
        _set(self, "_values", tuple(items.values()))  # a mapping's own (same) order

    @classmethod
    def _made(cls, layout: dict[str, int], values: tuple[Any, ...]) -> FrozenMapping:
        if _MAPPING_FIELDS is None or cls is not FrozenMapping:
            made = cls.__new__(cls)
            _set(made, "_layout", layout)
            _set(made, "_values", values)
            return made
        made = _MAPPING_FIELDS()  # see writable_twin
        made._layout = layout
        made._values = values
        made.__class__ = cls
        result: FrozenMapping = made
        return result

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("FrozenMapping is read-only")

    def __delattr__(self, key: str) -> None:
        raise AttributeError("FrozenMapping is read-only")

    def __getitem__(self, key: str) -> Any:
        return self._values[self._layout[key]]

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        at = self._layout.get(key)
        return default if at is None else self._values[at]

    def __contains__(self, key: object) -> bool:
        return key in self._layout

    def __iter__(self) -> Iterator[str]:
        return iter(self._layout)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        # As a dict compares (values by identity first, so NaN equals itself), whatever layouts.
        if isinstance(other, FrozenMapping) and other._layout is self._layout:
            return bool(self._values == other._values)
        if not isinstance(other, Mapping):
            return NotImplemented
        return self.copy() == (other if type(other) is dict else dict(other.items()))

    __hash__ = None  # type: ignore[assignment]  # as dict: equal to mutable mappings

    def copy(self) -> dict[str, Any]:
        """A shallow ``dict`` copy (as ``MappingProxyType.copy`` gives)."""
        return dict(zip(self._layout, self._values, strict=True))

    def __or__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        return self.copy() | dict(other.items())

    def __ror__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(other.items()) | self.copy()

    def __reversed__(self) -> Iterator[str]:
        return reversed(tuple(self._layout))

    def __repr__(self) -> str:
        return f"FrozenMapping({self.copy()!r})"

    def __str__(self) -> str:
        return str(self.copy())

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMapping, (self.copy(),))


_set = object.__setattr__
_get = object.__getattribute__
_new = object.__new__
#: A :class:`FrozenMapping`'s fields, writable (see :func:`writable_twin`).
_MAPPING_FIELDS = writable_twin(FrozenMapping)


def open_mappings(count: int) -> list[Any]:
    """``count`` read-only mappings to be, each filled by :func:`close_mappings`: what the
    on-disk index decodes holds them in its rows before their own values are known (SPEC §26)."""
    return list(map(_new, repeat(_MAPPING_FIELDS or FrozenMapping, count)))


def close_mappings(
    made: Iterable[Any], layouts: Iterable[dict[str, int]], values: Iterable[tuple[Any, ...]]
) -> None:
    """Fill mappings of :func:`open_mappings` with their key layouts (as :func:`freeze` shares
    them) and values: then each is the :class:`FrozenMapping` ``freeze`` makes. A few passes in
    C, no Python call per mapping."""
    made = list(made)
    setter = _set if _MAPPING_FIELDS is None else setattr
    deque(map(setter, made, repeat("_layout"), layouts), 0)
    deque(map(setter, made, repeat("_values"), values), 0)
    if _MAPPING_FIELDS is not None:
        deque(map(setattr, made, repeat("__class__"), repeat(FrozenMapping)), 0)


# Key layouts shared between mappings, by their keys in order. The cache outlives the skills, so
# it is bounded in count and keeps only small layouts (what frontmatter declares); any other is
# made for its mapping alone (still correct, only not shared), so hostile manifests with many or
# long keys cannot make it hold more than about a megabyte.
_LAYOUTS: dict[tuple[str, ...], dict[str, int]] = {}
_MAX_LAYOUTS = 1024
_MAX_SHARED_KEYS = 32
_MAX_SHARED_KEY_CHARS = 512


def _layout(keys: tuple[str, ...]) -> dict[str, int]:
    found = _LAYOUTS.get(keys)
    if found is None:
        found = {k: i for i, k in enumerate(keys)}
        if (
            len(_LAYOUTS) < _MAX_LAYOUTS
            and len(keys) <= _MAX_SHARED_KEYS
            and sum(len(k) if type(k) is str else _MAX_SHARED_KEY_CHARS for k in keys)
            <= _MAX_SHARED_KEY_CHARS
        ):
            _LAYOUTS[keys] = found
    return found


def freeze(value: Any, pool: dict[str, str] | None = None) -> Any:
    """Return a read-only deep copy: mappings become :class:`FrozenMapping`, lists tuples.

    With ``pool``, equal strings (keys and values) are replaced by one shared copy kept in it.
    """
    cls = type(value)
    # Exact-type tests first: frontmatter is mostly str, and ABC checks cost more per value.
    if cls is str:
        return value if pool is None else pool.setdefault(value, value)
    if cls is dict or isinstance(value, Mapping):
        # Keys and values in one pass each, in the mapping's own (same) order.
        if pool is None:
            values = tuple([freeze(v) for v in value.values()])
            return FrozenMapping._made(_layout(tuple(value)), values)
        # Keys are shared already: the YAML loader interns them (and literals are interned).
        shared = pool.setdefault
        values = tuple(
            [shared(v, v) if type(v) is str else freeze(v, pool) for v in value.values()]
        )
        return FrozenMapping._made(_layout(tuple(value)), values)
    if cls is list or cls is tuple or isinstance(value, list | tuple):
        return tuple(freeze(v, pool) for v in value)
    return value


def shared_layout(keys: tuple[str, ...]) -> dict[str, int]:
    """The key-to-position table :func:`freeze` gives a mapping of ``keys`` (in that order):
    what the on-disk index builds its read-only mappings on (SPEC §26). Not to be changed."""
    return _layout(keys)


def share(value: Any, pool: dict[str, str] | None) -> Any:
    """Return the pooled copy of a string ``value`` (itself when ``pool`` is ``None``)."""
    # Licenses, versions, authors and tool names repeat across a store; one copy each (SPEC §18).
    if pool is not None and type(value) is str:
        return pool.setdefault(value, value)
    return value


def thaw(value: Any) -> Any:
    """Inverse of :func:`freeze`: fresh ``dict``/``list`` values, ready for ``json.dumps``."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class ShadowedSkill:
    """A copy of a skill displaced by a later root (SPEC §7.3).

    Attributes:
        scope: The displaced copy's root scope.
        source: The displaced copy's root source label.
        root: The displaced copy's root path.
        dir: The displaced copy's directory.
    """

    scope: Scope
    source: str
    root: Path
    dir: Path

    def to_dict(self) -> dict[str, str]:
        """Return a JSON-ready mapping."""
        return {
            "scope": self.scope,
            "source": self.source,
            "root": str(self.root),
            "dir": str(self.dir),
        }


@dataclass(frozen=True, slots=True)
class SkillInfo:
    """Catalog-level facts about one skill (SPEC §6; progressive disclosure tier 1).

    Attributes:
        name: The frontmatter ``name`` (the skill's identity, case-sensitive).
        description: The trimmed frontmatter ``description``.
        metadata: The whole validated frontmatter, unknown keys included; read-only (nested
            mappings are read-only too, lists are tuples).
        allowed_tools: From ``allowed-tools``, else ``tools`` (see ``normalize_tools``); ``None``
            when neither is declared (or valid).
        user_invocable: ``user-invocable``, default True.
        model_invocable: ``not disable-model-invocation``, default True.
        scope: The root's scope (``"user"`` or ``"workspace"``).
        source: The root's source label.
        root: The configured root path.
        dir: ``root / entry_name`` (the link path for a linked skill).
        path: ``dir / <manifest's on-disk name>``.
        shadowed: Copies displaced by this one from earlier roots, nearest first.
        category: The POSIX path of the skill directory's parent relative to its root: ``""``
            for a skill directly in its root, ``"ios"`` for ``<root>/ios/swiftui`` (SPEC §21.4).
        real_dir: The skill directory's real path, pinned at discovery with its identity: every
            later access works from it (SPEC §20.1). ``None`` only for an info built by hand.
    """

    name: str
    description: str
    metadata: Mapping[str, Any]
    allowed_tools: tuple[str, ...] | None
    user_invocable: bool
    model_invocable: bool
    scope: Scope
    source: str
    root: Path
    dir: Path
    path: Path
    shadowed: tuple[ShadowedSkill, ...] = ()
    category: str = ""
    real_dir: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape used by the CLI (SPEC §16, §21.4): paths as strings."""
        return {
            "name": self.name,
            "description": self.description,
            "scope": self.scope,
            "source": self.source,
            "root": str(self.root),
            "dir": str(self.dir),
            "path": str(self.path),
            "allowed_tools": list(self.allowed_tools) if self.allowed_tools is not None else None,
            "user_invocable": self.user_invocable,
            "model_invocable": self.model_invocable,
            "shadowed": [s.to_dict() for s in self.shadowed],
            "category": self.category,
        }


_SKILL_INFO_FIELDS = writable_twin(SkillInfo)


def make_skill_info(
    name: str,
    description: str,
    metadata: Mapping[str, Any],
    allowed_tools: tuple[str, ...] | None,
    user_invocable: bool,
    model_invocable: bool,
    scope: Scope,
    source: str,
    root: Path,
    dir: Path,
    path: Path,
    category: str,
    real_dir: Path | None,
) -> SkillInfo:
    """``SkillInfo(...)`` of these fields (nothing shadowed), built through its writable twin
    (:func:`writable_twin`): discovery makes one per skill (SPEC §26)."""
    if _SKILL_INFO_FIELDS is None:
        return SkillInfo(
            name,
            description,
            metadata,
            allowed_tools,
            user_invocable,
            model_invocable,
            scope,
            source,
            root,
            dir,
            path,
            (),
            category,
            real_dir,
        )
    made = _SKILL_INFO_FIELDS()
    made.name = name
    made.description = description
    made.metadata = metadata
    made.allowed_tools = allowed_tools
    made.user_invocable = user_invocable
    made.model_invocable = model_invocable
    made.scope = scope
    made.source = source
    made.root = root
    made.dir = dir
    made.path = path
    made.shadowed = ()
    made.category = category
    made.real_dir = real_dir
    made.__class__ = SkillInfo
    info: SkillInfo = made
    return info


@dataclass(frozen=True, slots=True)
class SkillContent(SkillInfo):
    """A loaded skill (SPEC §8; tiers 2 and 3): :class:`SkillInfo` plus body and resources.

    Attributes:
        body: The markdown body, as read at discovery.
        resources: The skill's files (SPEC §9), enumerated at load time.
        resources_truncated: True when the listing was capped at ``max_resources``.
        diagnostics: Problems found while enumerating the resources.
    """

    body: str = ""
    resources: tuple[SkillResource, ...] = ()
    resources_truncated: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the ``show --json`` shape: the :class:`SkillInfo` keys plus ``body``,
        ``resources``, ``resources_truncated`` and ``metadata``."""
        out = SkillInfo.to_dict(self)
        out["metadata"] = thaw(self.metadata)
        out["body"] = self.body
        out["resources"] = [r.to_dict() for r in self.resources]
        out["resources_truncated"] = self.resources_truncated
        return out


def stored_text(stored: memoryview) -> str:
    """The text of UTF-8 bytes a body snapshot is kept as (see :class:`_StoredBody`): decoded as
    the on-disk index encoded it (``surrogatepass``). The index hands only bodies it checked
    (ASCII); any other bytes that are not UTF-8 are decoded with replacement characters, never
    an error."""
    try:
        return str(stored, "utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return str(stored, "utf-8", "replace")


class _StoredBody:
    """Base of :class:`ResolvedSkill`: a body taken from the on-disk index is kept as the
    index's UTF-8 bytes (a view of the buffer its file was read into) and becomes ``body`` when
    first read. It is still the snapshot taken at discovery (SPEC §8): the bytes are in memory,
    read with the rest of the index. Discovery then copies no body text (SPEC §26: fresh memory
    for each copy costs a page fault per 4 KiB)."""

    __slots__ = ("_body_bytes",)

    def __getattr__(self, name: str) -> Any:
        # Only reached when ``name`` is not set: ``body`` of a skill whose body is stored bytes.
        if name == "body":
            try:
                stored = _get(self, "_body_bytes")
            except AttributeError:
                pass
            else:
                text = stored_text(stored)
                _set(self, "body", text)  # (two threads at once store equal texts)
                return text
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@dataclass(frozen=True, slots=True)
class ResolvedSkill(_StoredBody):
    """A skill found in one root, before or after merging: its info and body (SPEC §1).

    ``pin`` is the skill directory's real path and identity taken at discovery (SPEC §20.1);
    ``None`` for a skill built by hand, which the registry then pins by name when it is used.
    """

    info: SkillInfo
    body: str
    pin: Pin | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.info.name


_RESOLVED_FIELDS = writable_twin(ResolvedSkill)


def make_resolved(info: SkillInfo, body: str | memoryview, pin: Pin | None) -> ResolvedSkill:
    """``ResolvedSkill(info, body, pin)``, built through its writable twin
    (:func:`writable_twin`): discovery makes one per skill (SPEC §26). A ``memoryview`` body is
    the UTF-8 bytes the on-disk index holds, decoded by :func:`stored_text` when first read."""
    if _RESOLVED_FIELDS is None:
        text = body if isinstance(body, str) else stored_text(body)
        return ResolvedSkill(info, text, pin)
    made = _RESOLVED_FIELDS()
    made.info = info
    if type(body) is str:
        made.body = body
    else:
        made._body_bytes = body
    made.pin = pin
    made.__class__ = ResolvedSkill
    skill: ResolvedSkill = made
    return skill


@dataclass(frozen=True, slots=True)
class Grant:
    """Read access to one skill's directory, for a host's own sandbox or permissions (SPEC §28.1).

    Read-only by construction: nothing grants write access to a skill.

    Attributes:
        skill: The skill's name.
        path: The skill's directory as discovered, under its root, absolute: a directory that is
            a symlink into a shared store stays the link path (what the model is shown).
        real_path: The pinned real directory (SPEC §20.1): no symlink in it.
    """

    __module__ = "agent_skills"

    skill: str
    path: Path
    real_path: Path

    def paths(self) -> tuple[Path, ...]:
        """``(real_path,)``, then ``path`` when it differs: every spelling a host must grant,
        since hosts match either the path the model names or the resolved one (SPEC §28.2)."""
        return (self.real_path,) if self.path == self.real_path else (self.real_path, self.path)

    def to_dict(self) -> dict[str, str]:
        """Return ``{"skill", "path", "real_path"}`` (paths as strings): the ``json`` format."""
        return {"skill": self.skill, "path": str(self.path), "real_path": str(self.real_path)}


@dataclass(frozen=True, slots=True)
class GrantSet(Sequence[Grant]):
    """The grants of a snapshot: a sequence of :class:`Grant` with what was left out (SPEC §28.1).

    Iterates, indexes and measures as its ``grants`` tuple does (``len``, ``[i]``, ``in``).

    Attributes:
        grants: The grants, sorted as SPEC §8 (every merged skill, or the named ones).
        left_out: ``(skill, reason)`` pairs, in the same order, for the skills that could not be
            granted: ``reason`` is ``"stale_skill"`` (the pinned directory or the link path no
            longer leads to the directory discovered), ``"archived_skill"`` (an archived skill
            has no directory, SPEC §25.1) or ``"untrusted"`` (a skill gated by the trust store
            whose files no longer match its approval, SPEC §23.3). Untrusted and disabled skills
            are never merged, so they are never granted nor listed here.
        roots: The configured skill roots (lowest precedence first), as paths: the pruning of
            settings files uses them (SPEC §28.3).
    """

    __module__ = "agent_skills"

    grants: tuple[Grant, ...] = ()
    left_out: tuple[tuple[str, str], ...] = ()
    roots: tuple[Path, ...] = ()

    def __len__(self) -> int:
        return len(self.grants)

    @overload
    def __getitem__(self, index: int) -> Grant: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Grant, ...]: ...

    def __getitem__(self, index: int | slice) -> Grant | tuple[Grant, ...]:
        return self.grants[index]

    def __iter__(self) -> Iterator[Grant]:
        return iter(self.grants)

    def __contains__(self, value: object) -> bool:
        return value in self.grants

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"grants": [...], "left_out": [{"skill", "reason"}], "roots": [...]}``."""
        return {
            "grants": [g.to_dict() for g in self.grants],
            "left_out": [{"skill": s, "reason": r} for s, r in self.left_out],
            "roots": [str(r) for r in self.roots],
        }
