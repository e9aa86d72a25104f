"""SPEC §5: decoding, fences, YAML 1.2 typing, repair, body and error fields of parse_skill."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_skills import ErrorCode, ParsedSkill, SkillError, parse_skill
from agent_skills._manifest import load_frontmatter_yaml, parse_manifest, split_frontmatter

HEAD = "name: demo\ndescription: A demo.\n"


def doc(yaml_lines: str = "", body: str = "Body.\n") -> str:
    return "---\n" + HEAD + yaml_lines + "---\n" + body


def extra(text: str, *, strict: bool = False) -> dict[str, Any]:
    """The frontmatter minus the two required keys."""
    fm = parse_skill(text, strict=strict).frontmatter
    return {k: v for k, v in fm.items() if k not in ("name", "description")}


def kinds(parsed: ParsedSkill) -> list[str]:
    return [d.kind.value for d in parsed.diagnostics]


def err(text: str | bytes, **kw: Any) -> SkillError:
    with pytest.raises(SkillError) as info:
        parse_skill(text, **kw)
    return info.value


# --- decoding --------------------------------------------------------------------------------


def test_str_and_bytes_give_the_same_result() -> None:
    text = doc(body="Héllo ✓\n")
    a, b = parse_skill(text), parse_skill(text.encode("utf-8"))
    assert (a.frontmatter, a.body, a.diagnostics) == (b.frontmatter, b.body, b.diagnostics)
    assert a.body == "Héllo ✓"


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf" + doc().encode(), "\ufeff" + doc()])
def test_one_leading_bom_is_dropped(data: str | bytes) -> None:
    parsed = parse_skill(data)
    assert parsed.frontmatter == {"name": "demo", "description": "A demo."}
    assert parsed.body == "Body."
    assert parsed.diagnostics == ()


def test_only_one_bom_is_dropped() -> None:
    # A second BOM is content: the first line is then not a fence.
    e = err("\ufeff\ufeff" + doc())
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.fields == {"at": "name"}


def test_invalid_utf8_becomes_replacement_with_diagnostic() -> None:
    data = b"---\nname: demo\ndescription: Caf\xe9 time.\n---\nBad \xff byte\n"
    parsed = parse_skill(data, path="/r/demo/SKILL.md")
    assert parsed.frontmatter["description"] == "Caf\ufffd time."
    assert parsed.body == "Bad \ufffd byte"
    assert kinds(parsed) == ["invalid_utf8"]
    assert str(parsed.diagnostics[0].path) == "/r/demo/SKILL.md"
    assert parsed.diagnostics[0].severity == "warning"


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_lone_cr_become_lf(newline: str) -> None:
    text = doc("metadata:\n  a: |\n    x\n    y\n", body="One.\n\nTwo.\n").replace("\n", newline)
    parsed = parse_skill(text)
    assert parsed.frontmatter["metadata"] == {"a": "x\ny\n"}
    assert parsed.body == "One.\n\nTwo."


@pytest.mark.parametrize("lead", ["\n", "\n\n", "  \n\t\n", "   ", "\t"])
def test_leading_whitespace_before_fence_is_ignored(lead: str) -> None:
    parsed = parse_skill(lead + doc())
    assert parsed.frontmatter["name"] == "demo"
    assert parsed.body == "Body."


def test_non_text_argument_is_invalid_input() -> None:
    e = err(12)  # type: ignore[arg-type]
    assert e.code == ErrorCode.INVALID_INPUT


# --- fences ----------------------------------------------------------------------------------


@pytest.mark.parametrize("pad", ["", " ", "\t", "  \t ", "\t\t"])
def test_fences_may_carry_trailing_spaces_and_tabs(pad: str) -> None:
    text = f"---{pad}\n{HEAD}---{pad}\nBody."
    assert parse_skill(text).body == "Body."


@pytest.mark.parametrize("line", ["----", "---text", "--- x", "-- -", " ---", "---#"])
def test_lines_that_are_not_a_closing_fence(line: str) -> None:
    # Inside a block scalar the line is content; were it a fence, the scalar would be cut short.
    text = f"---\n{HEAD}notes: |\n  a\n  {line}\n  b\n---\nBody."
    parsed = parse_skill(text)
    assert parsed.frontmatter["notes"] == f"a\n{line}\nb\n"
    assert parsed.body == "Body."


@pytest.mark.parametrize("line", ["----", "---text"])
def test_top_level_dash_lines_stay_yaml(line: str) -> None:
    # Not a fence, so the YAML sees them (and fails, where libyaml looks for the ':').
    e = err(f"---\n{HEAD}{line}\n---\n", strict=True)
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.message.startswith("invalid YAML frontmatter")
    assert e.fields == {"line": 5, "column": 1}


def test_dashes_inside_a_value_do_not_close() -> None:
    parsed = parse_skill(doc("license: a---b --- c\n"))
    assert parsed.frontmatter["license"] == "a---b --- c"


def test_opening_fence_with_text_is_not_a_fence() -> None:
    e = err("---text\n" + HEAD + "---\n")
    assert e.fields == {"at": "name"}


def test_empty_block_is_an_empty_mapping() -> None:
    assert split_frontmatter("---\n---\nBody") == ("", "Body", 2)
    e = err("---\n---\nJust a body.")
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.fields == {"at": "name"}


def test_yaml_text_is_the_lines_between_fences_each_with_lf() -> None:
    assert split_frontmatter("---\na: 1\nb: 2\n---\nrest\n") == ("a: 1\nb: 2\n", "rest", 2)
    assert split_frontmatter("\n\n---\na: 1\n---") == ("a: 1\n", "", 4)


def test_no_opening_fence_is_empty_frontmatter() -> None:
    assert split_frontmatter("# Title\n\nText\n") == (None, "# Title\n\nText", 0)
    e = err("# Title\nname: demo\n")
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.fields == {"at": "name"}


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("---\n" + HEAD, 1),
        ("---", 1),
        ("---\n", 1),
        ("\n\n---\nname: x\n", 3),
        ("---\nname: x\n----\n", 1),
    ],
)
def test_unterminated_frontmatter(text: str, line: int) -> None:
    e = err(text, path="/r/x/SKILL.md")
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.message.startswith("unterminated frontmatter")
    assert e.fields == {"path": "/r/x/SKILL.md", "line": line}


def test_body_is_text_after_closing_fence_trimmed() -> None:
    parsed = parse_skill(doc(body="\n\n  # Title\n\nText ---\n\n---\n\nMore  \n\n"))
    assert parsed.body == "# Title\n\nText ---\n\n---\n\nMore"


def test_closing_fence_at_end_of_file_gives_empty_body() -> None:
    assert parse_skill("---\n" + HEAD + "---").body == ""
    assert parse_skill("---\n" + HEAD + "---\n\n  \n").body == ""


# --- YAML 1.2 typing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_value", "expected"),
    [
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("off", "off"),
        ("Yes", "Yes"),
        ("y", "y"),
        ("n", "n"),
        ("2024-01-01", "2024-01-01"),
        ("2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"),
        ("12:30:00", "12:30:00"),
        ("017", 17),
        ("0o17", 15),
        ("0x1F", 31),
        ("-5", -5),
        ("+5", 5),
        ("1_000", "1_000"),
        ("0b101", "0b101"),
        ("1.5", 1.5),
        ("1e3", 1000.0),
        ("-.inf", float("-inf")),
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("null", None),
        ("~", None),
        ("", None),
        ("=", "="),
        ("'yes'", "yes"),
        ("!!str 12", "12"),
    ],
)
def test_yaml_12_core_schema_typing(yaml_value: str, expected: object) -> None:
    assert extra(doc(f"x: {yaml_value}\n"), strict=True) == {"x": expected}


def test_nan_is_a_float() -> None:
    value = extra(doc("x: .nan\n"))["x"]
    assert isinstance(value, float)
    assert value != value


def test_merge_key_is_an_ordinary_key() -> None:
    text = doc("base: &b {a: 1}\nchild:\n  <<: *b\n  c: 2\n")
    assert extra(text, strict=True) == {"base": {"a": 1}, "child": {"<<": {"a": 1}, "c": 2}}


@pytest.mark.parametrize(
    ("yaml_lines", "line"),
    [
        ("name: other\n", 4),
        ("x: 1\nx: 2\n", 5),
        ("m:\n  a: 1\n  a: 2\n", 6),
        ("1: a\n'1': b\n", 5),
        ("null: a\n~: b\n", 5),
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_duplicate_keys_are_an_error(yaml_lines: str, line: int, strict: bool) -> None:
    e = err(doc(yaml_lines), strict=strict, path="/r/demo/SKILL.md")
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.fields == {"path": "/r/demo/SKILL.md", "line": line, "column": e.fields["column"]}
    assert "duplicate key" in e.message


def test_non_string_scalar_keys_become_canonical_strings() -> None:
    text = doc("1: a\n017: b\n0x10: c\ntrue: d\nFalse: e\nnull: f\n1.5: g\n-.inf: h\n")
    assert extra(text, strict=True) == {
        "1": "a",
        "17": "b",
        "16": "c",
        "true": "d",
        "false": "e",
        "null": "f",
        "1.5": "g",
        "-.inf": "h",
    }


def test_nested_non_string_keys_become_strings() -> None:
    assert extra(doc("metadata:\n  2: two\n  yes: y\n")) == {"metadata": {"2": "two", "yes": "y"}}


@pytest.mark.parametrize(
    "value",
    [
        "!!python/object/apply:os.system ['true']",
        "!!python/name:os.system",
        "!custom value",
        "!!binary aGVsbG8=",
        "!!timestamp 2024-01-01",
        "!!set {a}",
        "!!omap [a: 1]",
        "!<tag:example.com,2000:x> v",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_non_core_tags_are_invalid_skill(value: str, strict: bool) -> None:
    e = err(doc(f"x: {value}\n"), strict=strict)
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.fields == {"line": 4, "column": 4}


def test_tag_message_does_not_echo_the_file() -> None:
    e = err(doc("x: !secret-token-4711 v\n"))
    assert "secret-token-4711" not in e.message


@pytest.mark.parametrize("yaml_text", ["", "\n", "# only a comment\n", "~\n", "null\n", "  \n#x\n"])
def test_null_or_comment_only_document_is_empty_mapping(yaml_text: str) -> None:
    assert load_frontmatter_yaml(yaml_text) in (None, {})
    e = err(f"---\n{yaml_text}---\nBody")
    assert e.fields == {"at": "name"}


@pytest.mark.parametrize("yaml_text", ["hello\n", "42\n", "- a\n- b\n", "[a, b]\n", "'x'\n"])
@pytest.mark.parametrize("strict", [False, True])
def test_scalar_or_list_document_is_invalid_at_root(yaml_text: str, strict: bool) -> None:
    e = err(f"---\n{yaml_text}---\n", strict=strict, path="/r/x/SKILL.md")
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.fields == {"path": "/r/x/SKILL.md", "at": ""}


def test_alias_bomb_is_invalid_skill() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]")
    e = err(doc("\n".join(lines) + "\n"))
    assert e.code == ErrorCode.INVALID_SKILL


def test_recursive_alias_is_invalid_skill() -> None:
    e = err(doc("x: &a [1, *a]\n"))
    assert e.code == ErrorCode.INVALID_SKILL


def test_shared_alias_values_are_fine() -> None:
    assert extra(doc("x: &a [1]\ny: *a\n")) == {"x": [1], "y": [1]}


# --- lenient repair --------------------------------------------------------------------------


def test_repair_quotes_colon_values_and_names_file_lines() -> None:
    text = "\n---\nname: demo\ndescription: Use it: now\nlicense: MIT\nx: a: b\n---\nBody"
    parsed = parse_skill(text, path="/r/demo/SKILL.md")
    assert parsed.frontmatter == {
        "name": "demo",
        "description": "Use it: now",
        "license": "MIT",
        "x": "a: b",
    }
    assert kinds(parsed) == ["yaml_repaired"]
    diag = parsed.diagnostics[0]
    assert "lines 4, 6" in diag.message
    assert str(diag.path) == "/r/demo/SKILL.md"
    assert diag.severity == "warning"


def test_repair_of_single_line_says_line() -> None:
    parsed = parse_skill("---\nname: demo\ndescription: a: b\n---\n")
    assert "(line 3)" in parsed.diagnostics[0].message


def test_repair_escapes_backslash_and_double_quote() -> None:
    parsed = parse_skill('---\nname: demo\ndescription: C:\\dir "q": x\\"y\n---\n')
    assert parsed.frontmatter["description"] == 'C:\\dir "q": x\\"y'


def test_repair_quotes_hash_values_when_yaml_fails() -> None:
    parsed = parse_skill("---\nname: demo\ndescription: a # b: c\nx: y: z\n---\n")
    assert parsed.frontmatter["description"] == "a # b: c"
    assert parsed.frontmatter["x"] == "y: z"


def test_repair_turns_leading_tabs_into_two_spaces() -> None:
    parsed = parse_skill("---\nname: demo\ndescription: d\nmetadata:\n\towner: team-a\n---\n")
    assert parsed.frontmatter["metadata"] == {"owner": "team-a"}
    assert "(line 5)" in parsed.diagnostics[0].message


def test_repair_tabs_nested() -> None:
    text = "---\nname: demo\ndescription: d\nmetadata:\n\ta:\n\t\tb: 1\n---\n"
    assert parse_skill(text).frontmatter["metadata"] == {"a": {"b": 1}}


@pytest.mark.parametrize("start", ['"', "'", "[", "{", "|", ">"])
def test_values_starting_with_quotes_brackets_or_block_are_not_touched(start: str) -> None:
    # The line stays broken, so the skill stays invalid and the original error is reported.
    text = f"---\nname: demo\ndescription: {start}a: b\nx: [\n---\n"
    e = err(text)
    assert e.code == ErrorCode.INVALID_SKILL
    assert "line" in e.fields


def test_repair_leaves_tagged_values_alone() -> None:
    e = err(doc("x: !!omap [a: 1]\n"))
    assert e.fields == {"line": 4, "column": 4}


def test_valid_yaml_is_never_repaired() -> None:
    parsed = parse_skill("---\nname: demo\ndescription: a #comment: yes\n---\n")
    assert parsed.frontmatter["description"] == "a"
    assert parsed.diagnostics == ()


def test_indented_lines_are_not_quoted() -> None:
    e = err("---\nname: demo\ndescription: d\nmetadata:\n  x: a: b\n---\n")
    assert e.fields == {"line": 5, "column": 7}


def test_strict_means_no_repair() -> None:
    e = err("---\nname: demo\ndescription: Use it: now\n---\n", strict=True, path="/p/SKILL.md")
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.fields == {"path": "/p/SKILL.md", "line": 3, "column": 20}
    e = err("---\nname: demo\ndescription: d\nmetadata:\n\towner: x\n---\n", strict=True)
    assert e.fields == {"line": 5, "column": 1}


def test_failed_repair_reports_the_original_error() -> None:
    e = err("---\nname: demo\ndescription: a: b\nx: [\n---\n")
    assert e.fields == {"line": 3, "column": 15}


# --- error fields and messages ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("---\nname: demo\ndescription: [x\n---\n", {"line": 4, "column": 1}),
        ("\n\n---\nname: demo\ndescription: d\n  x: y\n---\n", {"line": 6, "column": 4}),
        ("\ufeff---\r\nname: demo\r\ndescription: [x\r\n---\r\n", {"line": 4, "column": 1}),
        ("---\nname: demo\ndescription: d\n? [a]\n: b\n---\n", {"line": 4, "column": 3}),
        ('---\nname: demo\ndescription: "bad \\q"\n---\n', {"line": 3, "column": 19}),
    ],
)
def test_yaml_error_positions_are_file_lines(text: str, fields: dict[str, int]) -> None:
    e = err(text, strict=True, path="/r/demo/SKILL.md")
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.fields == {"path": "/r/demo/SKILL.md", **fields}


def test_unacceptable_character_has_line_and_column() -> None:
    e = err(b"---\nname: demo\ndescription: ab\x00c\n---\n")
    assert e.fields == {"line": 3, "column": 16}


def test_schema_error_fields_have_path_and_at() -> None:
    e = err("---\nname: demo\ndescription: d\nversion: 1\n---\n", strict=True, path="/p/SKILL.md")
    assert e.fields == {"path": "/p/SKILL.md", "at": "version"}


def test_without_path_fields_have_no_path() -> None:
    assert err("---\nname: 1\ndescription: d\n---\n").fields == {"at": "name"}


SECRET = "zq-secret-9931"


@pytest.mark.parametrize(
    "text",
    [
        f"---\nname: demo\ndescription: [{SECRET}\n---\n",
        f"---\nname: {SECRET} x\ndescription: d\n---\n",
        f"---\nname: demo\ndescription: d\nx: !{SECRET} v\n---\n",
        f"---\nname: demo\ndescription: d\n{SECRET}: 1\n{SECRET}: 2\n---\n",
        f"---\n{SECRET}\n---\n",
        f"---\nname: demo\ndescription: d\nversion: [{SECRET}]\n---\n",
        f'---\nname: demo\ndescription: "\\{SECRET[0]}{SECRET}"\n---\n',
        f"---\nname: demo\ndescription: {SECRET}\n",
        f"---\nname: demo\ndescription: d\n\t{SECRET}: [\n---\n",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_messages_never_contain_file_contents(text: str, strict: bool) -> None:
    try:
        parsed = parse_skill(text, strict=strict)
    except SkillError as e:
        assert SECRET not in e.message
        assert SECRET not in str(e)
    else:
        for d in parsed.diagnostics:
            assert SECRET not in d.message


def test_frontmatter_is_a_fresh_copy() -> None:
    text = doc("metadata:\n  a: [1]\n")
    first = parse_skill(text)
    first.frontmatter["name"] = "changed"
    first.frontmatter["metadata"]["a"].append(2)
    assert parse_skill(text).frontmatter == {
        "name": "demo",
        "description": "A demo.",
        "metadata": {"a": [1]},
    }


def _nested(shape: str, depth: int) -> str:
    """A value nested ``depth`` collections deep, in one of three shapes."""
    if shape == "flow-seq":
        return "[" * depth + "]" * depth
    if shape == "flow-map":
        return "{a: " * depth + "1" + "}" * depth
    return "\n" + "".join("  " * (i + 1) + "k:\n" for i in range(depth - 1)) + "  " * depth + "k: 1"


@pytest.mark.parametrize("depth", [200, 500, 999, 5000])
@pytest.mark.parametrize("shape", ["flow-seq", "flow-map", "block-map"])
def test_deep_nesting_is_invalid_skill(shape: str, depth: int) -> None:
    """Nesting is bounded before anything recursive runs (SPEC §20.6): never a RecursionError."""
    e = err(doc(f"x: {_nested(shape, depth)}\n"))
    assert e.code == ErrorCode.INVALID_SKILL
    assert e.message in (
        "invalid YAML frontmatter: nested deeper than 64 levels",
        "invalid YAML frontmatter: exceeded maximum nesting depth",  # libyaml's own bound
    )


@pytest.mark.parametrize("shape", ["flow-seq", "flow-map", "block-map"])
def test_nesting_bound_is_64_levels(shape: str) -> None:
    # the frontmatter mapping itself is the first level
    assert parse_skill(doc(f"x: {_nested(shape, 63)}\n")).frontmatter["name"] == "demo"
    e = err(doc(f"x: {_nested(shape, 64)}\n"))
    assert (e.code, e.message, e.fields.get("reason")) == (
        ErrorCode.INVALID_SKILL,
        "invalid YAML frontmatter: nested deeper than 64 levels",
        "yaml_depth",
    )


def test_node_bound_is_100_000_nodes() -> None:
    wide = "[" + ", ".join(["1"] * 100_000) + "]"
    e = err(doc(f"x: {wide}\n"))
    assert (e.code, e.fields.get("reason")) == (ErrorCode.INVALID_SKILL, "yaml_nodes")
    fine = "[" + ", ".join(["1"] * 9_000) + "]"
    assert len(parse_skill(doc(f"x: {fine}\n")).frontmatter["x"]) == 9_000


@pytest.mark.parametrize("items", [10_001, 20_000, 50_000, 99_990])
@pytest.mark.parametrize("style", ["block", "flow"])
def test_long_lists_in_metadata_load_within_the_node_budget(items: int, style: str) -> None:
    """SPEC §30.6: the budget is 100 000 nodes, whatever the shape: a 50 000-item list in
    ``metadata`` loads (it used to be refused by a 10 000-value budget of the expanded tree)."""
    if style == "block":
        listed = "metadata:\n  list:\n" + "".join(f"    - item{i}\n" for i in range(items))
    else:
        listed = "metadata:\n  list: [" + ", ".join(f"item{i}" for i in range(items)) + "]\n"
    parsed = parse_skill(doc(listed))
    assert parsed.frontmatter["metadata"]["list"][-1] == f"item{items - 1}"
    assert len(parsed.frontmatter["metadata"]["list"]) == items
    # One node more than the budget is refused, before anything recursive runs.
    over = "metadata:\n  list: [" + ", ".join(["x"] * 100_000) + "]\n"
    e = err(doc(over))
    assert (e.code, e.fields.get("reason")) == (ErrorCode.INVALID_SKILL, "yaml_nodes")


def test_a_50_000_item_list_loads_through_every_entry_point(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from agent_skills import create_agent_skills
    from agent_skills.cli import cli
    from agent_skills.validate import validate_skill

    listed = "".join(f"    - item{i}\n" for i in range(50_000))
    text = f"---\nname: big\ndescription: d\nmetadata:\n  list:\n{listed}---\nBody\n"
    skill = tmp_path / "root" / "big"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(text)
    skills = create_agent_skills([tmp_path / "root"])
    content = skills.load_skill("big")
    assert content is not None and len(content.metadata["metadata"]["list"]) == 50_000
    problems = validate_skill(skill)
    assert [p.code.value for p in problems] == ["metadata_value_type"]  # a list, not a string
    result = CliRunner().invoke(
        cli,
        ["show", "big", "--json", "--preset", "none", "--root", str(tmp_path / "root")],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    assert len(json.loads(result.output)["metadata"]["metadata"]["list"]) == 50_000


def test_parse_manifest_returns_the_failure_and_what_was_found_before_it() -> None:
    result = parse_manifest(b"---\nname: \xe9t\xe9\ndescription: d\n---\n", path="/r/enc/SKILL.md")
    assert result.parsed is None
    assert result.error is not None
    assert result.error.code == "invalid_skill"
    assert result.error.fields["path"] == "/r/enc/SKILL.md"
    assert "invalid_utf8" not in result.error.fields
    assert result.error.message.endswith("(the file is not valid UTF-8)")
    assert [(d.kind.value, str(d.path)) for d in result.diagnostics] == [
        ("invalid_utf8", "/r/enc/SKILL.md")
    ]
    ok = parse_manifest("---\nname: a\ndescription: d\n---\nBody")
    assert ok.error is None and ok.parsed is not None
    assert (ok.parsed.body, ok.diagnostics) == ("Body", ())


def test_parse_skill_raises_the_error_parse_manifest_returns() -> None:
    text = "---\nname: a\n---\n"
    with pytest.raises(SkillError) as info:
        parse_skill(text, path="/p/SKILL.md")
    returned = parse_manifest(text, path="/p/SKILL.md").error
    assert returned is not None
    assert (info.value.code, info.value.message, info.value.fields) == (
        returned.code,
        returned.message,
        returned.fields,
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("x: !!seq {a: 1}", "expected a sequence node, but found mapping"),
        ("x: !!map [1]", "expected a mapping node"),
        ("x: !!map a", "expected a mapping node"),
        ("x: !!seq a", "expected a sequence node, but found scalar"),
        ("x: !!seq {a: !!map [1]}", "expected a sequence node, but found mapping"),
    ],
)
def test_collection_tag_on_another_kind_of_node_is_invalid(line: str, message: str) -> None:
    """A core collection tag on the wrong kind of node is a YAML error at that node, in lenient
    and strict mode alike, never an empty value (SPEC §5)."""
    for strict in (False, True):
        with pytest.raises(SkillError) as info:
            parse_skill(f"---\nname: a\ndescription: d\n{line}\n---\n", strict=strict)
        assert info.value.code == "invalid_skill"
        assert info.value.message == f"invalid YAML frontmatter: {message}"
        assert dict(info.value.fields) == {"line": 4, "column": 4}


def test_first_yaml_error_is_the_earliest_in_construction_order() -> None:
    """With a bad tag on line 4 and a duplicate key on line 5, the tag is reported (SPEC §5)."""
    text = "---\nname: a\ndescription: d\nx: !!seq {a: 1}\ny: {b: 1, b: 2}\n---\n"
    with pytest.raises(SkillError) as info:
        parse_skill(text)
    assert info.value.message.endswith("expected a sequence node, but found mapping")
    assert info.value.fields["line"] == 4


def test_a_large_frontmatter_is_loaded_with_the_collector_as_the_host_left_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A large frontmatter is loaded without switching the process's collector (the library
    leaves it to the host); its node budget and errors are as for a small one (SPEC §20.6)."""
    import gc

    from agent_skills import _manifest, _yaml12

    seen: list[bool] = []
    real = _yaml12.Core12Loader.load_single

    def spy(self: Any) -> Any:
        seen.append(gc.isenabled())
        return real(self)

    monkeypatch.setattr(_yaml12.Core12Loader, "load_single", spy)
    small = "# a comment line\nname: s  # a trailing comment: the YAML loader reads it\n"
    small += "description: d\n"
    large = small + "".join(f"key{i}: value number {i}\n" for i in range(1500))
    assert _manifest.load_frontmatter_yaml(small) == {"name": "s", "description": "d"}
    loaded = _manifest.load_frontmatter_yaml(large)
    assert loaded["key1499"] == "value number 1499" and len(loaded) == 1502
    broken = large + "bad: [unclosed\n"
    with pytest.raises(SkillError) as caught:
        _manifest.load_frontmatter_yaml(broken)
    assert (
        caught.value.code == ErrorCode.INVALID_SKILL and caught.value.fields["line"] == 1505
    )  # libyaml: at the end
    # Aliases expanding past the value budget (SPEC §20.6: 100 000), in a long document.
    ten = ", ".join(["x"] * 10)
    bomb = f"a: &a [{ten}]\n" + "".join(
        f"{k}: &{k} [{', '.join([f'*{p}'] * 10)}]\n" for p, k in zip("abcd", "bcde", strict=True)
    )
    huge = bomb + "".join(f"k{i}: v\n" for i in range(3_000))
    with pytest.raises(SkillError, match="more than 100000 values"):
        _manifest.load_frontmatter_yaml(huge)
    assert seen == [True, True, True, True]
    assert gc.isenabled()
    gc.disable()
    try:
        _manifest.load_frontmatter_yaml(large)
        assert seen[-1] is False and not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "name: demo\ndescription: Does things.\n",
            {"name": "demo", "description": "Does things."},
        ),
        (
            "name: demo\ndescription: \"Quoted: with a colon\"\nlicense: 'MIT'\n",
            {"name": "demo", "description": "Quoted: with a colon", "license": "MIT"},
        ),
        (
            "name: demo\n\ndescription: >\n  Folded over\n  two lines\nuser-invocable: false\n",
            {"name": "demo", "description": "Folded over two lines\n", "user-invocable": False},
        ),
        ("description: |-\n  one\n  two\nx: ~\n", {"description": "one\ntwo", "x": None}),
        (
            "metadata:\n  author: me\n  version: '1.0'\n"
            "allowed-tools:\n  - Read\n  - Bash(git:*)\n",
            {
                "metadata": {"author": "me", "version": "1.0"},
                "allowed-tools": ["Read", "Bash(git:*)"],
            },
        ),
        ("key:\n", {"key": None}),
        ("metadata:\n  a: b\n\n  c: d\n", {"metadata": {"a": "b", "c": "d"}}),
        (
            "description: one\n  two\n   three\n# a comment\nother:\n  four\n  five\n",
            {"description": "one two three", "other": "four five"},
        ),
        (
            "metadata: {openclaw: {emoji: \"p\", x: []}}\nbundle: [a b, 'c', true, {}]\n",
            {"metadata": {"openclaw": {"emoji": "p", "x": []}}, "bundle": ["a b", "c", True, {}]},
        ),
        (
            "hooks:\n  Stop:\n    - matcher: m\n      hooks:\n        - type: t\n"
            '          command: "c d"\n    - n\nlist:\n- a\n- b: c\n  d: e\nx: y\n',
            {
                "hooks": {
                    "Stop": [{"matcher": "m", "hooks": [{"type": "t", "command": "c d"}]}, "n"]
                },
                "list": ["a", {"b": "c", "d": "e"}],
                "x": "y",
            },
        ),
    ],
)
def test_simple_frontmatter_shapes_are_read_without_the_loader(
    text: str, expected: dict[str, object]
) -> None:
    """The shapes most manifests have are read directly (SPEC §26), to the loader's value."""
    from agent_skills._manifest import _simple_mapping, load_frontmatter_yaml

    assert _simple_mapping(text) == expected
    assert load_frontmatter_yaml(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "name: demo\ndescription: a: b\n",  # the repair's case: the loader reports it
        "name: demo # comment\n",
        "name: &a demo\nother: *a\n",
        "version: 1.0\n",
        "description: >\n  one\n\n  two\n",
        "description: >\n  one\n    more indented\n",
        'description: "line\\nbreak"\n',
        "description: 'it''s'\n",
        "metadata: {a: b, c: [d e, 'f']} # comment\n",
        "metadata: {a: b,}\n",
        "metadata:\n  a: b\n   c: d\n",
        "metadata:\n  - a\n  b: c\n",
        "description:\n\n  folded after a blank line\n",
        "description: one\n  two: three\n",
        "description: one\n\n  two\n",
        "name: x\n# a comment with a control character \x1f\n",
        "name: demo\nname: again\n",
        "true: yes\n",
        "name:\tdemo\n",
        "name: x\u2028y\n",
        "",
    ],
)
def test_simple_frontmatter_leaves_other_shapes_to_the_loader(text: str) -> None:
    """Anything outside the simple shape goes to the YAML loader, errors and positions included."""
    from agent_skills._manifest import _simple_mapping

    assert _simple_mapping(text) is None
