"""_model: the data model and the naming rules every stage shares (SPEC §4, §9, §21.4)."""

from __future__ import annotations

import copy
import os
import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_skills._model import (
    SKIPPED_DIRS,
    FrozenMapping,
    is_hidden,
    is_skipped,
    sort_key,
    sort_text,
)


def test_skipped_dirs_are_the_spec_names() -> None:
    assert sorted(SKIPPED_DIRS) == ["__pycache__", "node_modules"]


@pytest.mark.parametrize(
    ("name", "hidden", "skipped"),
    [
        (".env", True, True),
        (".git", True, True),
        ("node_modules", False, True),
        ("__pycache__", False, True),
        ("Node_Modules", False, False),
        ("scripts", False, False),
        ("a.b", False, False),
    ],
)
def test_hidden_and_skipped_names(name: str, hidden: bool, skipped: bool) -> None:
    assert (is_hidden(name), is_skipped(name)) == (hidden, skipped)


def test_sort_key_is_casefold_then_name() -> None:
    assert sorted(["b", "B", "a", "A"], key=sort_key) == ["A", "a", "B", "b"]
    assert sorted(["b", "B", "a", "A"], key=sort_text) == ["A", "a", "B", "b"]


# Names as file systems hold them: any character but NUL (and "/", which changes nothing here),
# with the ones that make case-folding and prefixes interesting drawn often.
_FILE_NAME_CHARS = st.one_of(
    st.sampled_from("aAbB\u00df\u1e9e\ufb00ffIi\u0130\u0131\u03a3\u03c3\u03c2-._ \x01\uffff"),
    st.characters(blacklist_characters="\0/", blacklist_categories=("Cs",)),
)


@given(st.lists(st.text(_FILE_NAME_CHARS, min_size=0, max_size=6), max_size=12))
def test_sort_text_orders_file_names_as_sort_key_does(names: list[str]) -> None:
    # One string, casefold + NUL + name, sorts as the tuple (casefold, name) for every name
    # without NUL: a case-folded name that begins another ("ss" and "\u00df...") comes first.
    assert sorted(names, key=sort_text) == sorted(names, key=sort_key)
    for a in names:
        for b in names:
            assert (sort_text(a) < sort_text(b)) == (sort_key(a) < sort_key(b))


def test_sort_text_orders_a_prefix_first() -> None:
    names = ["SSa", "\u00df", "ss", "Ss", "s", "ssa", "\u1e9e"]
    assert sorted(names, key=sort_text) == sorted(names, key=sort_key)
    assert sorted(names, key=sort_key)[0] == "s"


# -- FrozenMapping: the read-only mappings of metadata (SPEC §6, §26) -----------------------------


def test_frozen_mapping_behaves_as_a_read_only_mapping() -> None:
    import copy
    import pickle
    from collections.abc import Mapping

    from agent_skills._model import FrozenMapping, freeze

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
    from agent_skills import _model
    from agent_skills._model import _MAX_LAYOUTS, FrozenMapping, _layout, freeze

    monkeypatch.setattr(_model, "_LAYOUTS", {})

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
    assert len(_model._LAYOUTS) == _MAX_LAYOUTS
    late = freeze({"never-seen-key": 1})
    assert late["never-seen-key"] == 1 and list(late) == ["never-seen-key"]
    assert ("never-seen-key",) not in _model._LAYOUTS


def test_frozen_mapping_layout_cache_keeps_only_small_layouts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shared layouts outlive the skills: many or long keys are never kept (SPEC §20, §26)."""
    from agent_skills import _model
    from agent_skills._model import freeze

    monkeypatch.setattr(_model, "_LAYOUTS", {})
    many = freeze({f"k{i}": i for i in range(100)})
    long = freeze({"x" * 10_000: 1})
    small = freeze({"name": "a", "description": "b"})
    assert len(many) == 100 and many["k99"] == 99 and long["x" * 10_000] == 1
    assert list(_model._LAYOUTS) == [("name", "description")] and small["name"] == "a"


def test_frozen_mapping_keeps_the_read_only_mapping_api() -> None:
    """What ``MappingProxyType`` offered callers of ``SkillInfo.metadata`` still works (SPEC §6):
    dict equality (identity first, so NaN equals itself), copy, ``|``, ``reversed``, ``str``."""
    import math
    import pickle
    from types import MappingProxyType

    from agent_skills._model import freeze

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


def test_pins_copy_and_pickle() -> None:
    """A pin (and so a ResolvedSkill) can be copied and pickled; the copy equals it (SPEC §20.1)."""
    import copy
    import pickle

    from agent_skills._confine import Pin

    for pin in (Pin("/r", 5, 7, 1), Pin("/r", 5, 7, 0, ("/o/SKILL.md", 5, 9), name="s")):
        for dup in (copy.copy(pin), copy.deepcopy(pin), pickle.loads(pickle.dumps(pin))):
            assert dup == pin and dup.real_dir == pin.real_dir and dup.manifest == pin.manifest
    assert Pin("/r", 5, 7, name="s").real_dir == "/r/s" == Pin("/r/s", 5, 7).real_dir
    assert Pin("/r", 5, 7, name="s") == Pin("/r/s", 5, 7)


# -- objects built through their writable twin (SPEC §26) ----------------------------------------


def _twin_built() -> list[tuple[object, object]]:
    """Pairs: an object built through its writable twin, and the constructor's."""
    from agent_skills._confine import Pin, pin_of
    from agent_skills._diagnostics import EntryStatus, ReportEntry
    from agent_skills._model import ResolvedSkill, SkillInfo, make_resolved, make_skill_info
    from agent_skills._registry import _report_entry

    root, d = Path("/r"), Path("/r/a")
    fields = ("a", "d", FrozenMapping({"k": (1,)}), ("Read",), True, False, "user", "src")
    info = make_skill_info(*fields, root, d, d / "SKILL.md", "", d)
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
        (FrozenMapping._made({"k": 0}, (1,)), FrozenMapping({"k": 1})),
    ]


@pytest.mark.parametrize("index", range(5))
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
    from agent_skills._model import writable_twin

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
    from agent_skills._model import close_mappings, freeze, open_mappings, shared_layout

    outer, inner = open_mappings(2)
    close_mappings(
        [inner, outer],
        [shared_layout(("x",)), shared_layout(("a", "b"))],
        [((1, 2),), (inner, "s")],
    )
    want = freeze({"a": {"x": [1, 2]}, "b": "s"})
    assert type(outer) is FrozenMapping and type(outer["a"]) is FrozenMapping
    assert outer == want and outer._layout is want._layout
