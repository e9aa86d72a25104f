"""cli._table: the terminal table layout, pure (rows in, lines out) at each width (SPEC §21.12)."""

from __future__ import annotations

import pytest

from agent_skills.cli._table import columns, ellipsis, fold

HEADERS = ["NAME", "SCOPE", "DESCRIPTION"]
ROWS = [
    ["alpha", "user", "Reviews API designs against the house rules."],
    ["a-much-longer-name", "workspace", "Short."],
]


def _lines(width: int | None, **kwargs: object) -> list[str]:
    return [line.plain for line in columns(HEADERS, ROWS, width=width, **kwargs)]  # type: ignore[arg-type]


def test_not_a_terminal_nothing_is_cut_or_moved() -> None:
    assert _lines(None) == [
        "NAME                SCOPE      DESCRIPTION",
        "alpha               user       Reviews API designs against the house rules.",
        "a-much-longer-name  workspace  Short.",
    ]


def test_wide_enough_the_table_is_one_line_per_row() -> None:
    assert _lines(80) == _lines(None)


def test_narrow_the_flexible_column_goes_under_its_row() -> None:
    assert _lines(50) == [
        "NAME                SCOPE",
        "    DESCRIPTION",
        "alpha               user",
        "    Reviews API designs against the house rules.",
        "a-much-longer-name  workspace",
        "    Short.",
    ]


def test_narrower_the_flexible_text_is_cut_with_an_ellipsis() -> None:
    assert _lines(30)[3] == "    Reviews API designs again…"
    assert all(len(line) <= 30 for line in _lines(30))


def test_too_narrow_for_the_fixed_columns_each_cell_gets_a_line() -> None:
    assert _lines(20) == [
        "NAME",
        "    SCOPE",
        "    DESCRIPTION",
        "alpha",
        "    user",
        "    Reviews API des…",
        "a-much-longer-name",
        "    workspace",
        "    Short.",
    ]


def test_notes_that_hold_paths_fold_and_are_never_cut() -> None:
    lines = columns(
        ["ROOT", "NOTE"],
        [["/x/y", "a note that is long enough to fold at a narrow width"]],
        width=30,
        cut=False,
    )
    assert [line.plain for line in lines] == [
        "ROOT  NOTE",
        "/x/y",
        "    a note that is long enough",
        "    to fold at a narrow width",
    ]


def test_control_characters_are_shown_escaped() -> None:
    lines = columns(["NAME", "NOTE"], [["a\x1b[31mb", "x"]], width=None)
    assert [line.plain for line in lines][1] == "a\\x1b[31mb  x"


@pytest.mark.parametrize(
    ("text", "room", "want"),
    [
        ("a b c defghijkl", 4, ["a b", "c", "defg", "hijk", "l"]),
        ("", 4, [""]),
        ("exactly", 7, ["exactly"]),
    ],
)
def test_fold_breaks_at_spaces_and_folds_long_words(text: str, room: int, want: list[str]) -> None:
    assert fold(text, room) == want


def test_ellipsis_cuts_only_what_is_too_long() -> None:
    assert ellipsis("abcdef", 4) == "abc…"
    assert ellipsis("ab", 4) == "ab"
    assert ellipsis("漢字漢字", 5) == "漢字…"  # two cells per character
