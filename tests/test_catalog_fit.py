"""SPEC §22.1 and §22.9: ``fit_catalog`` and ``CatalogFit``, with exact values and properties."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import SkillError, SkillInfo
from agent_skills.catalog import (
    CatalogFit,
    fit_catalog,
    render_available_skills_xml,
    render_catalog_json,
    render_skill_catalog,
    shorten_description,
)


def info(name: str, description: str = "") -> SkillInfo:
    """A SkillInfo built in memory (no discovery): only name and description matter here."""
    values: dict[str, Any] = {
        "name": name,
        "description": description or f"The {name} skill.",
        "metadata": {},
        "allowed_tools": None,
        "user_invocable": True,
        "model_invocable": True,
        "scope": "user",
        "source": "test",
        "root": Path("/skills"),
        "dir": Path("/skills") / name,
        "path": Path("/skills") / name / "SKILL.md",
    }
    for field in dataclasses.fields(SkillInfo):
        if field.name not in values and field.default is dataclasses.MISSING:
            values[field.name] = Path("/skills") / name if "dir" in field.name else ""
    return SkillInfo(**values)


WORDS = " ".join(f"word{i:02d}" for i in range(40))  # 40 words of 6 characters: 279 characters


# -- shorten_description ------------------------------------------------------------------------


def test_shorten_fits_unchanged() -> None:
    assert shorten_description("short text", 10) == "short text"


def test_shorten_at_a_word_boundary() -> None:
    # 14 words take 97 characters; with the ellipsis, 98 of the 100 allowed.
    assert shorten_description(WORDS, 100) == " ".join(f"word{i:02d}" for i in range(14)) + "…"
    assert len(shorten_description(WORDS, 100)) == 98


def test_shorten_boundary_right_after_the_room() -> None:
    text = "a" * 9 + " bcd"
    assert shorten_description(text, 10) == "a" * 9 + "…"


def test_shorten_one_long_word_is_cut_inside() -> None:
    assert shorten_description("x" * 200, 100) == "x" * 99 + "…"
    # A boundary that would leave fewer than 80 characters is not taken.
    text = "a" * 10 + " " + "b" * 200
    assert shorten_description(text, 100) == text[:99] + "…"


def test_shorten_tiny_limits() -> None:
    assert shorten_description("abc def", 1) == "…"
    assert shorten_description("abc def", 2) == "a…"
    assert shorten_description("abc def", 6) == "abc…"
    assert shorten_description("abcdef ghi", 6) == "abcde…"  # a boundary below half is not taken


# -- fit_catalog: exact values ----------------------------------------------------------------


def test_empty_input() -> None:
    assert fit_catalog([], max_chars=0) == CatalogFit("", (), (), ())
    assert fit_catalog([], max_chars=100, format="json") == CatalogFit("", (), (), ())


@pytest.mark.parametrize("fmt", ["xml", "markdown", "json"])
def test_fits_whole_is_the_section_13_rendering(fmt: str) -> None:
    skills = [info("beta", "Beta   does\n things."), info("Alpha"), info("gamma")]
    rendered = {
        "xml": render_available_skills_xml(skills),
        "markdown": render_skill_catalog(skills),
        "json": render_catalog_json(skills),
    }[fmt]
    fit = fit_catalog(skills, max_chars=len(rendered), format=fmt)  # type: ignore[arg-type]
    assert fit == CatalogFit(rendered, ("Alpha", "beta", "gamma"), (), ())


def test_include_location_and_heading_are_passed_on() -> None:
    skills = [info("a"), info("b")]
    fit = fit_catalog(skills, max_chars=10_000, include_location=False)
    assert fit.text == render_available_skills_xml(skills, include_location=False)
    fit = fit_catalog(skills, max_chars=10_000, format="markdown", heading="## Skills")
    assert fit.text == render_skill_catalog(skills, heading="## Skills")


def test_descriptions_cut_to_max_description_chars() -> None:
    skills = [info("a", WORDS), info("b", "short")]
    fit = fit_catalog(skills, max_chars=10_000, format="markdown", max_description_chars=100)
    cut = shorten_description(WORDS, 100)
    assert fit.text == f"# Available skills\n\n- **a** — {cut}\n- **b** — short\n"
    assert (fit.included, fit.shortened, fit.omitted) == (("a", "b"), ("a",), ())


def test_default_cut_is_1536() -> None:
    long = "w" * 2000
    fit = fit_catalog([info("a", long)], max_chars=10_000, format="markdown")
    assert fit.text == "# Available skills\n\n- **a** — " + "w" * 1535 + "…\n"
    assert fit.shortened == ("a",)


def test_longest_shortened_first_never_below_80() -> None:
    skills = [info("a", WORDS), info("b", WORDS[:200]), info("c", "short")]
    full = render_skill_catalog(skills)
    # 60 characters too many: only the longest description is cut.
    fit = fit_catalog(skills, max_chars=len(full) - 60, format="markdown")
    assert fit.shortened == ("a",)
    assert fit.omitted == ()
    assert len(fit.text) <= len(full) - 60
    line_a = fit.text.splitlines()[2]
    assert line_a.endswith("…") and len(line_a) > len("- **a** — ") + 200
    # Far too many: both long ones go down to the floor, the short one is left alone.
    floor = f"# Available skills\n\n- **a** — {shorten_description(WORDS, 80)}\n"
    floor += f"- **b** — {shorten_description(WORDS[:200], 80)}\n- **c** — short\n"
    fit = fit_catalog(skills, max_chars=len(floor), format="markdown")
    assert fit == CatalogFit(floor, ("a", "b", "c"), ("a", "b"), ())


def test_omitted_later_in_order_first_with_the_note() -> None:
    skills = [info(n, "Does things.") for n in ("d", "c", "b", "a")]
    two = "# Available skills\n\n- **a** — Does things.\n- **b** — Does things.\n"
    note = "Also available: c, d\n"
    fit = fit_catalog(skills, max_chars=len(two + note), format="markdown")
    assert fit == CatalogFit(two + note, ("a", "b"), (), ("c", "d"))


def test_note_with_and_more() -> None:
    skills = [info(f"skill-number-{i}", "Does things.") for i in range(5)]
    one = "# Available skills\n\n- **skill-number-0** — Does things.\n"
    note = "Also available: skill-number-1, skill-number-2 … and 2 more\n"
    fit = fit_catalog(skills, max_chars=len(one + note), format="markdown")
    assert fit.text == one + note
    assert fit.included == ("skill-number-0",)
    assert fit.omitted == tuple(f"skill-number-{i}" for i in range(1, 5))


def test_note_naming_all_when_that_is_shortest() -> None:
    skills = [info(f"s{i}", "Does things.") for i in range(5)]
    one = "# Available skills\n\n- **s0** — Does things.\n"
    note = "Also available: s1, s2, s3, s4\n"
    fit = fit_catalog(skills, max_chars=len(one + note), format="markdown")
    assert fit.text == one + note


def test_note_count_when_no_name_fits() -> None:
    skills = [info(f"{i:02d}-" + "n" * 61, "Does things.") for i in range(30)]
    note = "Also available: 30 more skills not listed here; search for them by name or keyword.\n"
    fit = fit_catalog(skills, max_chars=len(note), format="markdown")
    assert fit.text == note
    assert fit.included == ()
    assert fit.omitted == tuple(s.name for s in skills)
    one = "Also available: 1 more skill not listed here; search for them by name or keyword.\n"
    single = [info("x" * 90, "Does things.")]
    assert fit_catalog(single, max_chars=len(one), format="markdown").text == one


def test_budget_too_small_for_the_note() -> None:
    skills = [info("a"), info("b")]
    for fmt in ("xml", "markdown", "json"):
        fit = fit_catalog(skills, max_chars=10, format=fmt)  # type: ignore[arg-type]
        assert fit == CatalogFit("", (), (), ("a", "b"))


def test_priority_keeps_higher_first() -> None:
    skills = [info(n, "Does things.") for n in ("a", "b", "c")]
    rank = {"a": 0, "b": 5, "c": 1}
    fit = fit_catalog(skills, max_chars=65, format="markdown", priority=lambda s: rank[s.name])
    assert fit.text == "# Available skills\n\n- **b** — Does things.\nAlso available: c, a\n"
    assert (fit.included, fit.omitted) == (("b",), ("a", "c"))


def test_priority_errors() -> None:
    skills = [info("a")]

    def boom(_: SkillInfo) -> float:
        raise RuntimeError("nope")

    with pytest.raises(SkillError) as exc:
        fit_catalog(skills, max_chars=5, priority=boom)
    assert (exc.value.code, exc.value.fields) == ("invalid_input", {"name": "a"})
    with pytest.raises(SkillError) as exc:
        fit_catalog(skills, max_chars=5, priority=lambda s: "high")  # type: ignore[arg-type,return-value]
    assert exc.value.fields == {"name": "a", "priority": "'high'"}
    with pytest.raises(SkillError) as exc:
        fit_catalog(skills, max_chars=5, priority=lambda s: float("nan"))
    assert exc.value.fields == {"name": "a", "priority": "nan"}


@pytest.mark.parametrize(
    ("kwargs", "fields"),
    [
        ({"max_chars": -1}, {"max_chars": "-1"}),
        ({"max_chars": True}, {"max_chars": "True"}),
        ({"max_chars": "10"}, {"max_chars": "'10'"}),
        ({"max_chars": 10, "max_description_chars": 0}, {"max_description_chars": "0"}),
        ({"max_chars": 10, "format": "yaml"}, {"format": "'yaml'"}),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], fields: dict[str, Any]) -> None:
    with pytest.raises(SkillError) as exc:
        fit_catalog([info("a")], **kwargs)
    assert (exc.value.code, exc.value.fields) == ("invalid_input", fields)


def test_bad_skills() -> None:
    with pytest.raises(SkillError) as exc:
        fit_catalog(["a"], max_chars=10)  # type: ignore[list-item]
    assert (exc.value.code, exc.value.fields) == ("invalid_input", {"type": "str"})
    with pytest.raises(SkillError) as exc:
        fit_catalog(3, max_chars=10)  # type: ignore[arg-type]
    assert exc.value.code == "invalid_input"


def test_json_note_is_a_last_element() -> None:
    skills = [info(f"s{i}", "Does things.") for i in range(6)]
    full = render_catalog_json(skills)
    fit = fit_catalog(skills, max_chars=len(full) // 2, format="json")
    data = json.loads(fit.text)
    assert len(fit.text) <= len(full) // 2
    assert data[:-1] == json.loads(render_catalog_json(skills[: len(fit.included)]))
    names = data[-1]["also_available"]
    assert data[-1] == {"also_available": names, "more": len(fit.omitted) - len(names)}
    assert list(fit.omitted[: len(names)]) == names


def test_json_count_only_and_nothing() -> None:
    skills = [info(f"a-long-skill-name-{i}") for i in range(12)]
    fit = fit_catalog(skills, max_chars=60, format="json")
    assert fit.text == '[\n  {\n    "also_available": [],\n    "more": 12\n  }\n]'
    assert json.loads(fit.text) == [{"also_available": [], "more": 12}]
    assert fit.included == ()


def test_xml_note_after_the_block() -> None:
    skills = [info("a", "A."), info("b", "B.")]
    one = render_available_skills_xml(skills[:1])
    fit = fit_catalog(skills, max_chars=len(one) + 20)
    assert fit.text == one + "Also available: b\n"


def test_ten_thousand_skills_in_8000_characters() -> None:
    skills = [info(f"skill-{i:05d}", f"Handles task number {i} " + WORDS) for i in range(10_000)]
    fit = fit_catalog(skills, max_chars=8000)
    assert len(fit.text) <= 8000
    assert len(fit.included) + len(fit.omitted) == 10_000
    assert fit.included == tuple(f"skill-{i:05d}" for i in range(len(fit.included)))
    last = fit.text.splitlines()[-1]
    assert last.startswith("Also available: skill-")
    assert last.endswith(" more") and str(len(fit.omitted) - last.count(",") - 1) in last
    for line in fit.text.splitlines():
        if line.startswith("    <description>"):
            assert len(line) - len("    <description></description>") >= 80


# -- properties ---------------------------------------------------------------------------------

NAMES = st.text(alphabet="abcdefghij-&<", min_size=1, max_size=12)
DESCRIPTIONS = st.text(alphabet=st.sampled_from('ab cd&<\n"é'), min_size=1, max_size=300)


@st.composite
def catalogs(draw: st.DrawFn) -> list[SkillInfo]:
    names = draw(st.lists(NAMES, min_size=0, max_size=12))
    return [info(n, draw(DESCRIPTIONS).strip() or "x") for n in names]


def _descriptions(text: str, fmt: str) -> list[str]:
    if fmt == "json":
        data = json.loads(text) if text else []
        return [d["description"] for d in data if "description" in d]
    if fmt == "markdown":
        return [line.split(" — ", 1)[1] for line in text.splitlines() if line.startswith("- **")]
    from html import unescape

    return [
        unescape(line.strip()[len("<description>") : -len("</description>")])
        for line in text.splitlines()
        if line.startswith("    <description>")
    ]


@settings(max_examples=150, deadline=None)
@given(
    skills=catalogs(),
    max_chars=st.integers(min_value=0, max_value=3000),
    fmt=st.sampled_from(["xml", "markdown", "json"]),
    limit=st.integers(min_value=1, max_value=400),
    ranked=st.booleans(),
)
def test_fit_properties(
    skills: list[SkillInfo], max_chars: int, fmt: str, limit: int, ranked: bool
) -> None:
    priority = (lambda s: len(s.name)) if ranked else None
    fit = fit_catalog(
        skills,
        max_chars=max_chars,
        format=fmt,  # type: ignore[arg-type]
        max_description_chars=limit,
        priority=priority,
    )
    # Never over budget.
    assert len(fit.text) <= max_chars
    # included + omitted = input, as multisets.
    assert sorted(fit.included + fit.omitted) == sorted(s.name for s in skills)
    assert set(fit.shortened) <= set(fit.included)
    if fmt == "json" and fit.text:
        json.loads(fit.text)
    if fit.omitted and fit.text:
        assert "also_available" in fit.text if fmt == "json" else "Also available:" in fit.text
    # No description under 80 characters unless omitted (or shorter to begin with).
    shown = _descriptions(fit.text, fmt)
    assert len(shown) == len(fit.included)
    for text in shown:
        assert len(text) <= limit
        if text.endswith("…") and limit >= 80:
            assert len(text) >= 80
