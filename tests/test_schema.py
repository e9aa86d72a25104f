"""SPEC §6: the frontmatter schema and normalize_tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent_skills import ErrorCode, SkillError, SkillFrontmatter, normalize_tools, parse_skill
from agent_skills._frontmatter import validate_frontmatter
from agent_skills._schema import FLAG_KEYS, FRONTMATTER_KEYS

BASE: dict[str, Any] = {"name": "demo", "description": "A demo."}


def _fm(**extra: Any) -> dict[str, Any]:
    data = dict(BASE)
    data.update({k.replace("_", "-"): v for k, v in extra.items()})
    return data


def test_table_order_is_the_spec_order() -> None:
    assert FRONTMATTER_KEYS == (
        "name",
        "description",
        "version",
        "license",
        "compatibility",
        "argument-hint",
        "allowed-tools",
        "tools",
        "user-invocable",
        "disable-model-invocation",
        "metadata",
    )


def test_every_key_valid_loads_with_values_kept() -> None:
    data = {
        "name": "  demo  ",
        "description": "\tA demo.\n",
        "version": " 1.0 ",
        "license": "MIT ",
        "compatibility": " py3",
        "argument-hint": " [file] ",
        "allowed-tools": "Read Grep",
        "tools": ["Bash"],
        "user-invocable": False,
        "disable-model-invocation": True,
        "metadata": {"owner": "x", "n": 1},
        "x-custom": [1, 2],
    }
    model, dropped = validate_frontmatter(data, strict=True)
    assert dropped == []
    assert model.name == "demo"
    assert model.description == "A demo."
    # Optional strings are kept as written.
    assert model.version == " 1.0 "
    assert model.license == "MIT "
    assert model.compatibility == " py3"
    assert model.argument_hint == " [file] "
    assert model.allowed_tools == "Read Grep"
    assert model.tools == ["Bash"]
    assert model.user_invocable is False
    assert model.disable_model_invocation is True
    assert model.metadata == {"owner": "x", "n": 1}
    assert model.model_extra == {"x-custom": [1, 2]}


def test_parse_skill_frontmatter_trims_name_and_description_only() -> None:
    text = "---\nname: ' demo '\ndescription: ' A demo. '\nversion: ' 2 '\n---\n"
    parsed = parse_skill(text)
    assert parsed.frontmatter == {"name": "demo", "description": "A demo.", "version": " 2 "}


@pytest.mark.parametrize(
    ("data", "at"),
    [
        ({"description": "d"}, "name"),
        ({"name": 5, "description": "d"}, "name"),
        ({"name": None, "description": "d"}, "name"),
        ({"name": "   ", "description": "d"}, "name"),
        ({"name": "has space", "description": "d"}, "name"),
        ({"name": "a/b", "description": "d"}, "name"),
        ({"name": "É", "description": "d"}, "name"),
        ({"name": "a\u2215b", "description": "d"}, "name"),
        ({"name": "a\uff0fb", "description": "d"}, "name"),
        ({"name": ".", "description": "d"}, "name"),
        ({"name": "..", "description": "d"}, "name"),
        ({"name": "...", "description": "d"}, "name"),
        ({"name": ["a"], "description": "d"}, "name"),
        ({"name": "a"}, "description"),
        ({"name": "a", "description": ""}, "description"),
        ({"name": "a", "description": " \n\t "}, "description"),
        ({"name": "a", "description": 1}, "description"),
        ({"name": "a", "description": None}, "description"),
        ({"name": "a", "description": ["d"]}, "description"),
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_required_key_problems_are_invalid_skill(
    data: dict[str, Any], at: str, strict: bool
) -> None:
    with pytest.raises(SkillError) as info:
        validate_frontmatter(data, strict=strict)
    assert info.value.code == ErrorCode.INVALID_SKILL
    assert info.value.fields == {"at": at}


@pytest.mark.parametrize(
    "name", ["a", "A.b_c-1", ".hidden", "a..b", "-x", "_", "1", "é", "名前", "ß-2"]
)
def test_name_pattern_accepts(name: str) -> None:
    model, _ = validate_frontmatter({"name": name, "description": "d"}, strict=True)
    assert model.name == name


OPTIONAL_BAD: list[tuple[str, Any]] = [
    ("version", 1.0),
    ("version", 1),
    ("version", None),
    ("license", True),
    ("license", None),
    ("compatibility", ["x"]),
    ("compatibility", None),
    ("argument-hint", 3),
    ("argument-hint", None),
    ("allowed-tools", 42),
    ("allowed-tools", ["Read", 1]),
    ("allowed-tools", {"a": "b"}),
    ("allowed-tools", None),
    ("tools", 1.5),
    ("tools", None),
    ("user-invocable", "yes"),
    ("user-invocable", 1),
    ("user-invocable", None),
    ("user-invocable", "maybe"),
    ("disable-model-invocation", "true"),
    ("disable-model-invocation", 0),
    ("disable-model-invocation", None),
    ("disable-model-invocation", 2),
    ("metadata", [1]),
    ("metadata", "x"),
    ("metadata", None),
]


@pytest.mark.parametrize(("key", "value"), OPTIONAL_BAD)
def test_optional_key_strict_is_invalid_skill_at_key(key: str, value: Any) -> None:
    with pytest.raises(SkillError) as info:
        validate_frontmatter({**BASE, key: value}, strict=True)
    assert info.value.code == ErrorCode.INVALID_SKILL
    assert info.value.fields == {"at": key}


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, v in OPTIONAL_BAD if k not in FLAG_KEYS])
def test_optional_key_lenient_is_dropped_and_reported(key: str, value: Any) -> None:
    model, notes = validate_frontmatter({**BASE, key: value}, strict=False)
    assert [(n.kind, n.key, n.lead) for n in notes] == [
        ("invalid_field", key, "ignoring invalid frontmatter key")
    ]
    attr = key.replace("-", "_")
    assert getattr(model, attr) is None


def test_lenient_parse_keeps_raw_value_and_emits_invalid_field() -> None:
    text = "---\nname: a\ndescription: d\nlicense: true\nversion: 1.5\n---\n"
    parsed = parse_skill(text, path="/r/a/SKILL.md")
    assert parsed.frontmatter == {"name": "a", "description": "d", "license": True, "version": 1.5}
    assert parsed.model.license is None
    assert parsed.model.version is None
    assert [(d.kind, d.severity) for d in parsed.diagnostics] == [
        ("invalid_field", "warning"),
        ("invalid_field", "warning"),
    ]
    # Reported in table order: version before license.
    assert "'version'" in parsed.diagnostics[0].message
    assert "'license'" in parsed.diagnostics[1].message
    assert all(str(d.path) == "/r/a/SKILL.md" for d in parsed.diagnostics)


def test_first_failure_in_table_order_is_reported_strict() -> None:
    data = {**BASE, "metadata": 1, "tools": 1, "version": 1}
    with pytest.raises(SkillError) as info:
        validate_frontmatter(data, strict=True)
    assert info.value.fields == {"at": "version"}


def test_required_failure_wins_over_earlier_optional_in_lenient_mode() -> None:
    data = {"name": "a", "version": 1, "description": None}
    with pytest.raises(SkillError) as info:
        validate_frontmatter(data, strict=False)
    assert info.value.fields == {"at": "description"}


def test_name_failure_reported_before_description() -> None:
    with pytest.raises(SkillError) as info:
        validate_frontmatter({"description": None, "name": None}, strict=False)
    assert info.value.fields == {"at": "name"}


@pytest.mark.parametrize(
    "key",
    [
        "allowed_tools",
        "user_invocable",
        "disable_model_invocation",
        "argument_hint",
    ],
)
def test_snake_case_spellings_are_unknown_keys(key: str) -> None:
    """Only the table's keys are fields; ``user_invocable`` is an unknown key kept as parsed."""
    data = {**BASE, key: 5}
    model, dropped = validate_frontmatter(data, strict=True)
    assert dropped == []
    assert model.model_extra == {key: 5}
    assert model.user_invocable is None
    assert model.allowed_tools is None
    assert model.disable_model_invocation is None
    assert model.argument_hint is None


def test_snake_case_bool_does_not_change_invocability() -> None:
    text = (
        "---\nname: a\ndescription: d\nuser_invocable: false\ndisable_model_invocation: true\n---\n"
    )
    parsed = parse_skill(text, strict=True)
    assert parsed.model.user_invocable is None
    assert parsed.model.disable_model_invocation is None
    assert parsed.frontmatter["user_invocable"] is False


def test_unknown_keys_kept_as_parsed() -> None:
    parsed = parse_skill("---\nname: a\ndescription: d\nx: [1, {y: null}]\n'1': true\n---\n")
    assert parsed.frontmatter == {"name": "a", "description": "d", "x": [1, {"y": None}], "1": True}


def test_model_is_frozen() -> None:
    model, _ = validate_frontmatter(BASE, strict=True)
    with pytest.raises(ValidationError):
        model.name = "other"  # type: ignore[misc]


# --- normalize_tools -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, []),
        ("", []),
        ("   ", []),
        ("Read", ["Read"]),
        ("Bash(git status:*) Read, Grep", ["Bash(git status:*)", "Read", "Grep"]),
        ("Bash(git:*) Read", ["Bash(git:*)", "Read"]),
        ("Read, Grep, Bash(npm *)", ["Read", "Grep", "Bash(npm *)"]),
        ("Read,Grep", ["Read", "Grep"]),
        ("Read,,  ,Grep", ["Read", "Grep"]),
        ("  Read\tGrep\nWrite  ", ["Read", "Grep", "Write"]),
        ("Bash(a, b) Edit", ["Bash(a, b)", "Edit"]),
        ("Bash(x (y z)) Read", ["Bash(x (y z))", "Read"]),
        ("Bash(unclosed arg Read", ["Bash(unclosed arg Read"]),
        ("a) b", ["a)", "b"]),
        ([], []),
        (["Read", "Write"], ["Read", "Write"]),
        ([" Read ", "", "  ", "Bash(git status:*)"], ["Read", "Bash(git status:*)"]),
        (["Read Grep", "a,b"], ["Read Grep", "a,b"]),
    ],
)
def test_normalize_tools_forms(value: Any, expected: list[str]) -> None:
    assert normalize_tools(value) == expected


@pytest.mark.parametrize(
    "value", [42, 1.5, True, {"Read": 1}, ("Read",), b"Read", ["Read", 1], [None], [["Read"]]]
)
def test_normalize_tools_invalid_input(value: Any) -> None:
    with pytest.raises(SkillError) as info:
        normalize_tools(value)
    assert info.value.code == ErrorCode.INVALID_INPUT
    assert set(info.value.fields) == {"value"}


def test_normalize_tools_returns_a_new_list() -> None:
    items = ["Read", "Grep"]
    out = normalize_tools(items)
    assert out == items
    assert out is not items
    out.append("x")
    assert items == ["Read", "Grep"]
    assert normalize_tools(None) is not normalize_tools(None)


def test_skill_frontmatter_can_be_built_from_aliases() -> None:
    model = SkillFrontmatter.model_validate({**BASE, "allowed-tools": "Read"})
    assert model.allowed_tools == "Read"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bash(echo (a b)) Read", ["Bash(echo (a b))", "Read"]),  # nested groups stay whole
        ("Bash(x y", ["Bash(x y"]),  # an unclosed group runs to the end
        (")a b", [")a", "b"]),  # a stray closer is an ordinary character
        ("Read,Bash(a, b),\u00a0Grep", ["Read", "Bash(a, b)", "Grep"]),  # NBSP separates
        ("Bash(a)(b) c", ["Bash(a)(b)", "c"]),
    ],
)
def test_normalize_tools_parentheses_in_every_shape(text: str, expected: list[str]) -> None:
    assert normalize_tools(text) == expected


def test_a_long_description_loads_with_a_warning(tmp_path: Path) -> None:
    """SPEC §29.6: over 1 024 characters (after trimming) the skill loads whole, with one
    ``description_too_long`` warning naming the manifest; at 1 024 there is none. Strict mode
    loads it too (§7.5 raises for no such thing)."""
    from agent_skills import DiagnosticKind, create_agent_skills
    from agent_skills._schema import MAX_DESCRIPTION_LENGTH
    from agent_skills.validate import MAX_DESCRIPTION_LENGTH as VALIDATE_MAX
    from conftest import make_skill

    assert MAX_DESCRIPTION_LENGTH == VALIDATE_MAX == 1024
    long_text = "d" * 1025
    make_skill(tmp_path, "long", frontmatter={"name": "long", "description": f"  {long_text} "})
    make_skill(tmp_path, "edge", frontmatter={"name": "edge", "description": "e" * 1024})
    for strict in (False, True):
        skills = create_agent_skills([tmp_path], strict=strict)
        assert [s.name for s in skills.list_skills()] == ["edge", "long"]
        info = {s.name: s for s in skills.list_skills()}["long"]
        assert info.description == long_text
        found = [
            (d.kind, d.path, d.severity)
            for d in skills.diagnostics
            if d.kind == DiagnosticKind.DESCRIPTION_TOO_LONG
        ]
        assert found == [(DiagnosticKind.DESCRIPTION_TOO_LONG, info.path, "warning")]
        message = next(d.message for d in skills.diagnostics if d.path == info.path)
        assert "1025 characters, more than the 1024" in message
