"""Read-only values made fast: the one class-swap constructor and the frozen frontmatter.

Discovery makes several read-only objects per skill. A frozen dataclass (or any class whose
``__setattr__`` refuses stores) sets each field through ``object.__setattr__``, which costs
more than a plain store. :func:`frozen_builder` writes that trick once, as attrs writes it
inside its class generator: a constructor that fills a writable twin of the class with plain
stores, then gives the object its read-only class; every field of the class is set, checked when
the constructor is made. :func:`freeze` makes the read-only copy of frontmatter
(:class:`FrozenMapping`, tuples), sharing one key layout per key set (SPEC §26).

It owns no rule of the skills: what a skill is, and which of its values are read-only, is
``_model``'s.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import MISSING, fields, is_dataclass
from itertools import repeat
from typing import Any, TypeVar

__all__ = [
    "FrozenMapping",
    "close_mappings",
    "freeze",
    "frozen_builder",
    "open_mappings",
    "share",
    "shared_layout",
    "thaw",
]

_T = TypeVar("_T")
_set = object.__setattr__


def _writable_twin(cls: type) -> Any:
    """A plain class with the slots of ``cls`` (a read-only slotted class), or ``None`` where
    the interpreter does not let an instance of it take ``cls`` as its class.

    An instance of the twin filled by plain attribute stores, then given ``cls`` as its class,
    is what the constructor of ``cls`` makes with the same fields (for classes whose constructor
    does nothing else).
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


def _slots(cls: type) -> list[str]:
    """Every data slot of ``cls`` and its bases, in order from the base class."""
    out: list[str] = []
    for klass in reversed(cls.__mro__):
        declared = klass.__dict__.get("__slots__", ())
        for slot in (declared,) if isinstance(declared, str) else declared:
            if slot not in ("__weakref__", "__dict__") and slot not in out:
                out.append(slot)
    return out


def frozen_builder(
    cls: type[_T], names: Sequence[str] | None = None, *, unset: Sequence[str] = ()
) -> Callable[..., _T]:
    """A fast constructor of the read-only slotted class ``cls`` (the one class-swap trick).

    The constructor takes the values of ``names`` as arguments, in that order (a dataclass
    field's default stands for a trailing argument left out), stores them into an instance of a
    writable twin of ``cls`` with plain stores, then gives the instance ``cls`` as its class:
    the object ``cls(...)`` would make, for a fraction of the cost. Where the interpreter refuses
    the class swap the values are set through ``object.__setattr__`` instead. Only for classes
    whose constructor does nothing but store its fields.

    Args:
        cls: A slotted class (a ``slots=True`` dataclass, or one declaring ``__slots__``).
        names: The slots to set, in argument order; ``None``: the dataclass fields in order.
        unset: Slots the constructor leaves unset on purpose (read lazily by the class).

    Returns:
        The constructor.

    Raises:
        TypeError: When ``names`` and ``unset`` do not name every slot of ``cls`` once (a field
            added to the class and not to its constructor would leave a slot unset).
    """
    wanted = list(names) if names is not None else [f.name for f in fields(cls)]  # type: ignore[arg-type]
    slots = _slots(cls)
    if sorted([*wanted, *unset]) != sorted(slots):
        raise TypeError(f"{cls.__name__}: builder names {wanted} + {list(unset)} != slots {slots}")
    defaults: dict[str, Any] = {}
    if names is None and is_dataclass(cls):
        defaults = {f.name: f.default for f in fields(cls) if f.default is not MISSING}
    params = []
    for name in wanted:
        params.append(f"{name}=_d_{name}" if name in defaults else name)
    twin = _writable_twin(cls)
    namespace: dict[str, Any] = {f"_d_{k}": v for k, v in defaults.items()}
    namespace.update(_twin=twin, _cls=cls, _set=_set, _new=object.__new__)
    if twin is not None:
        body = ["    made = _twin()", *(f"    made.{n} = {n}" for n in wanted)]
        body.append("    made.__class__ = _cls")
    else:
        body = ["    made = _new(_cls)", *(f"    _set(made, {n!r}, {n})" for n in wanted)]
    source = "\n".join([f"def build({', '.join(params)}):", *body, "    return made", ""])
    exec(compile(source, f"<frozen_builder {cls.__qualname__}>", "exec"), namespace)
    built: Callable[..., _T] = namespace["build"]
    built.__qualname__ = f"frozen_builder({cls.__qualname__})"
    return built


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


_new = object.__new__
_make_mapping = frozen_builder(FrozenMapping, ("_layout", "_values"))
# What open_mappings makes: instances to be filled by close_mappings, then given their class.
_MAPPING_TWIN = _writable_twin(FrozenMapping)


def open_mappings(count: int) -> list[Any]:
    """``count`` read-only mappings to be, each filled by :func:`close_mappings`: what the
    on-disk index decodes holds them in its rows before their own values are known (SPEC §26)."""
    return list(map(_new, repeat(_MAPPING_TWIN or FrozenMapping, count)))


def close_mappings(
    made: Iterable[Any], layouts: Iterable[dict[str, int]], values: Iterable[tuple[Any, ...]]
) -> None:
    """Fill mappings of :func:`open_mappings` with their key layouts (as :func:`freeze` shares
    them) and values: then each is the :class:`FrozenMapping` ``freeze`` makes. A few passes in
    C, no Python call per mapping."""
    made = list(made)
    setter = _set if _MAPPING_TWIN is None else setattr
    deque(map(setter, made, repeat("_layout"), layouts), 0)
    deque(map(setter, made, repeat("_values"), values), 0)
    if _MAPPING_TWIN is not None:
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
            return _make_mapping(_layout(tuple(value)), values)
        # Keys are shared already: the YAML loader interns them (and literals are interned).
        shared = pool.setdefault
        values = tuple(
            [shared(v, v) if type(v) is str else freeze(v, pool) for v in value.values()]
        )
        return _make_mapping(_layout(tuple(value)), values)
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
