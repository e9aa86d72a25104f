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
