"""_frozen: the one class-swap constructor and the read-only frontmatter (SPEC §6, §26)."""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
from pathlib import Path

import pytest

from agent_skills._frozen import FrozenMapping, freeze, frozen_builder

# -- FrozenMapping: the read-only mappings of metadata (SPEC §6, §26) -----------------------------


def test_frozen_mapping_behaves_as_a_read_only_mapping() -> None:
    import copy
    import pickle
    from collections.abc import Mapping

    from agent_skills._frozen import FrozenMapping, freeze

    data = {"name": "a", "description": "d", "metadata": {"k": "v", "n": 3}, "tags": ["x", "y"]}
    frozen = freeze(data, {})
    assert type(frozen) is FrozenMapping and isinstance(frozen, Mapping)
    assert list(frozen) == ["name", "description", "metadata", "tags"]  # the file's order
    assert len(frozen) == 4 and "name" in frozen and "other" not in frozen and 3 not in frozen
    assert frozen["metadata"]["n"] == 3 and frozen["tags"] == ("x", "y")
    assert frozen.get("other") is None and frozen.get("other", 5) == 5 and frozen.get("name") == "a"
    with pytest.raises(KeyError):
        frozen["other"]
    assert frozen == {**data, "tags": ("x", "y")} and {**data, "tags": ("x", "y")} == frozen
    assert frozen != data  # a list is not a tuple, as with any mapping
    assert frozen != {"name": "a"} and frozen != "name"
    assert dict(frozen.items())["name"] == "a" and next(iter(frozen.values())) == "a"
    assert repr(frozen).startswith("FrozenMapping({'name': 'a'")
    assert pickle.loads(pickle.dumps(frozen)) == frozen and copy.deepcopy(frozen) == frozen
    with pytest.raises(TypeError):
        frozen["name"] = "b"  # type: ignore[index]
    with pytest.raises(AttributeError):
        frozen._values = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(frozen)


def test_frozen_mappings_with_the_same_keys_share_one_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_skills import _frozen
    from agent_skills._frozen import _MAX_LAYOUTS, FrozenMapping, _layout, freeze

    monkeypatch.setattr(_frozen, "_LAYOUTS", {})

    one = freeze({"name": "a", "description": "x"})
    two = freeze({"name": "b", "description": "y"})
    other_order = freeze({"description": "y", "name": "b"})
    assert one._layout is two._layout and one != two
    assert other_order._layout is not two._layout and other_order == two
    assert FrozenMapping({"name": "b", "description": "y"}) == two == dict(two)
    assert FrozenMapping() == {} and len(FrozenMapping()) == 0
    # past the bound, a layout is made for the mapping alone: still a correct mapping
    for i in range(_MAX_LAYOUTS + 10):
        _layout((f"k{i}",))
    assert len(_frozen._LAYOUTS) == _MAX_LAYOUTS
    late = freeze({"never-seen-key": 1})
    assert late["never-seen-key"] == 1 and list(late) == ["never-seen-key"]
    assert ("never-seen-key",) not in _frozen._LAYOUTS


def test_frozen_mapping_layout_cache_keeps_only_small_layouts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shared layouts outlive the skills: many or long keys are never kept (SPEC §20, §26)."""
    from agent_skills import _frozen
    from agent_skills._frozen import freeze

    monkeypatch.setattr(_frozen, "_LAYOUTS", {})
    many = freeze({f"k{i}": i for i in range(100)})
    long = freeze({"x" * 10_000: 1})
    small = freeze({"name": "a", "description": "b"})
    assert len(many) == 100 and many["k99"] == 99 and long["x" * 10_000] == 1
    assert list(_frozen._LAYOUTS) == [("name", "description")] and small["name"] == "a"


def test_frozen_mapping_keeps_the_read_only_mapping_api() -> None:
    """What ``MappingProxyType`` offered callers of ``SkillInfo.metadata`` still works (SPEC §6):
    dict equality (identity first, so NaN equals itself), copy, ``|``, ``reversed``, ``str``."""
    import math
    import pickle
    from types import MappingProxyType

    from agent_skills._frozen import freeze

    nan = math.nan
    plain = {"z": nan, "m": {"x": nan}, "a": 1}
    frozen = freeze(plain)
    assert frozen == {"z": nan, "m": freeze({"x": nan}), "a": 1}
    assert frozen["m"] == {"x": nan} and frozen["m"] == MappingProxyType({"x": nan})
    # a pickled copy holds new NaN objects: unequal, exactly as for a dict
    assert (pickle.loads(pickle.dumps(frozen)) == frozen) is (
        pickle.loads(pickle.dumps(plain)) == plain
    )
    assert pickle.loads(pickle.dumps(freeze({"a": (1, "b")}))) == {"a": (1, "b")}
    assert frozen.copy() == {"z": nan, "m": frozen["m"], "a": 1} and type(frozen.copy()) is dict
    assert frozen | {"q": 1} == {**frozen.copy(), "q": 1}
    assert {"q": 1} | frozen == {"q": 1, **frozen}
    assert list(reversed(frozen)) == ["a", "m", "z"]
    assert str(freeze({"a": 1})) == "{'a': 1}"
    many = freeze({f"k{i}": nan for i in range(40)})  # a layout too large to be shared
    assert many == {f"k{i}": nan for i in range(40)}


# -- objects made by the one class-swap constructor (SPEC §26) -----------------------------------


def _twin_built() -> list[tuple[object, object]]:
    """Pairs: an object built through its writable twin, and the constructor's."""
    from agent_skills._confine import Pin, pin_of
    from agent_skills._diagnostics import EntryStatus, ReportEntry
    from agent_skills._discover import _report_entry
    from agent_skills._model import ResolvedSkill, SkillInfo, make_resolved, make_skill_info

    root, d = Path("/r"), Path("/r/a")
    fields = ("a", "d", FrozenMapping({"k": (1,)}), ("Read",), True, False, "user", "src")
    info = make_skill_info(*fields, root, d, d / "SKILL.md", (), "", d)
    plain = SkillInfo(*fields, root, d, d / "SKILL.md", (), "", d)
    st = os.stat("/")
    return [
        (info, plain),
        (make_resolved(info, "body", None), ResolvedSkill(plain, "body", None)),
        (
            _report_entry(root, d, EntryStatus.LOADED, "a", "", None),
            ReportEntry(root, d, EntryStatus.LOADED, "a", "", None),
        ),
        (pin_of("/r", st.st_dev, st.st_ino, 1, "a"), Pin("/r", st.st_dev, st.st_ino, 1, name="a")),
        (freeze({"k": 1}), FrozenMapping({"k": 1})),
        (make_resolved(info, memoryview(b"caf\xc3\xa9"), None), ResolvedSkill(plain, "caf\u00e9")),
    ]


@pytest.mark.parametrize("index", range(6))
def test_an_object_built_through_its_twin_is_what_its_constructor_makes(index: int) -> None:
    made, plain = _twin_built()[index]
    assert type(made) is type(plain)
    assert made == plain and repr(made) == repr(plain)
    assert copy.copy(made) == plain and pickle.loads(pickle.dumps(made)) == plain
    try:
        want = hash(plain)
    except TypeError:  # (a SkillInfo holds a mapping)
        with pytest.raises(TypeError):
            hash(made)
    else:
        assert hash(made) == want
    slot = next(iter(type(plain).__slots__))
    with pytest.raises(AttributeError):  # (FrozenInstanceError is one)
        setattr(made, slot, None)
    refused = []  # another name: refused as the constructor's object refuses it
    for obj in (plain, made):
        with pytest.raises((AttributeError, TypeError)) as caught:
            obj.extra = 1  # type: ignore[attr-defined]
        refused.append(type(caught.value))
    assert refused[0] is refused[1]


def test_a_writable_twin_is_refused_where_the_layouts_differ() -> None:
    from agent_skills._frozen import _writable_twin as writable_twin

    class WithDict:  # instances have a __dict__: no slotted twin takes its class
        def __init__(self) -> None:
            self.a = 1

    class Slotted:
        __slots__ = ("a",)

    assert writable_twin(WithDict) is None
    twin = writable_twin(Slotted)
    assert twin is not None
    made = twin()
    made.a = 1
    made.__class__ = Slotted
    assert type(made) is Slotted and made.a == 1


def test_mappings_opened_then_closed_are_what_freeze_makes() -> None:
    from agent_skills._frozen import close_mappings, freeze, open_mappings, shared_layout

    outer, inner = open_mappings(2)
    close_mappings(
        [inner, outer],
        [shared_layout(("x",)), shared_layout(("a", "b"))],
        [((1, 2),), (inner, "s")],
    )
    want = freeze({"a": {"x": [1, 2]}, "b": "s"})
    assert type(outer) is FrozenMapping and type(outer["a"]) is FrozenMapping
    assert outer == want and outer._layout is want._layout


def test_a_builder_must_set_every_slot_of_its_class() -> None:
    # A field added to a class and forgotten in its constructor is refused when the
    # constructor is made, not found later as an unset slot.
    @dataclasses.dataclass(frozen=True, slots=True)
    class Two:
        a: int
        b: int = 2

    assert frozen_builder(Two)(1) == Two(1, 2)
    assert frozen_builder(Two, ("b", "a"))(5, 1) == Two(1, 5)
    with pytest.raises(TypeError, match=r"Two: builder names \['a'\]"):
        frozen_builder(Two, ("a",))
    with pytest.raises(TypeError):
        frozen_builder(Two, ("a", "b", "c"))
    left = frozen_builder(Two, ("a",), unset=("b",))(1)
    with pytest.raises(AttributeError):
        left.b  # noqa: B018 (left unset on purpose: read lazily by such a class)


def test_a_builder_without_a_class_swap_sets_the_slots_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where the interpreter refuses the swap (no twin), the same object is made by
    # object.__setattr__; a stored body is still read lazily.
    from agent_skills import _frozen
    from agent_skills._model import ResolvedSkill, SkillInfo

    monkeypatch.setattr(_frozen, "_writable_twin", lambda cls: None)
    d = Path("/r/a")
    make = frozen_builder(SkillInfo)
    info = make("a", "d", FrozenMapping(), None, True, True, "user", "", Path("/r"), d, d)
    assert type(info) is SkillInfo and info == SkillInfo(
        "a", "d", FrozenMapping(), None, True, True, "user", "", Path("/r"), d, d
    )
    stored = frozen_builder(ResolvedSkill, ("info", "_body_bytes", "pin"), unset=("body",))
    skill = stored(info, memoryview("caf\u00e9".encode()), None)
    assert type(skill) is ResolvedSkill and skill.body == "caf\u00e9"
    assert skill == ResolvedSkill(info, "caf\u00e9")
