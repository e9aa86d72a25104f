"""_model: the data model and the naming rules every stage shares (SPEC §4, §9, §21.4)."""

from __future__ import annotations

import pytest

from agent_skills._model import SKIPPED_DIRS, is_hidden, is_skipped, sort_key


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
