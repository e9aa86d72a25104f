"""_model: the data model and the naming rules every stage shares (SPEC §4, §9, §21.4)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_skills._model import (
    MANIFEST_NAME,
    SKIPPED_DIRS,
    choose_manifest,
    is_hidden,
    is_manifest_name,
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


def test_the_manifest_name_and_its_variants() -> None:
    # The one rule of what a skill's manifest is called (SPEC §4), where every stage imports it.
    assert MANIFEST_NAME == "SKILL.md"
    assert [is_manifest_name(n) for n in ("SKILL.md", "skill.md", "Skill.MD", "SKILL.md.bak")] == [
        True,
        True,
        True,
        False,
    ]
    assert choose_manifest(["skill.md", "SKILL.md", "README.md"]) == "SKILL.md"
    assert choose_manifest(["skill.md", "Skill.md"]) == "Skill.md"
    assert choose_manifest(["README.md"]) is None
