"""Frontmatter cases C8-C16 of ../shared/cases/CASES.md, through parse_skill and discovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_skills import (
    AgentSkills,
    EntryStatus,
    ErrorCode,
    SkillError,
    create_agent_skills,
    parse_skill,
)
from conftest import make_skill


def discover(root: Path, *, strict: bool = False) -> AgentSkills:
    return create_agent_skills([root], cwd=root.parent, home=root.parent, strict=strict)


def load_one(tmp_path: Path, raw: str | bytes, dirname: str = "s") -> AgentSkills:
    root = tmp_path / "skills"
    make_skill(root, dirname, raw=raw)
    return discover(root)


def kinds(skills: AgentSkills) -> list[str]:
    return [d.kind.value for d in skills.diagnostics]


# --- C8: unquoted colon ----------------------------------------------------------------------

C8 = (
    "---\nname: pdf\ndescription: Handle PDF files: merge, split, and extract text.\n---\nUse it.\n"
)


def test_c8_unquoted_colon_lenient_parse() -> None:
    parsed = parse_skill(C8)
    assert parsed.frontmatter["description"] == "Handle PDF files: merge, split, and extract text."
    assert [d.kind.value for d in parsed.diagnostics] == ["yaml_repaired"]
    assert "(line 3)" in parsed.diagnostics[0].message


def test_c8_unquoted_colon_lenient_discovery(tmp_path: Path) -> None:
    skills = load_one(tmp_path, C8, "pdf")
    (info,) = skills.list_skills()
    assert info.description == "Handle PDF files: merge, split, and extract text."
    assert kinds(skills) == ["yaml_repaired"]
    assert skills.diagnostics[0].path == tmp_path / "skills/pdf/SKILL.md"


def test_c8_unquoted_colon_strict_names_manifest(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "pdf", raw=C8)
    manifest = str(root / "pdf" / "SKILL.md")
    with pytest.raises(SkillError) as info:
        discover(root, strict=True)
    assert info.value.code == ErrorCode.INVALID_SKILL
    assert info.value.fields == {"path": manifest, "line": 3, "column": 30}
    with pytest.raises(SkillError) as info2:
        parse_skill(C8, strict=True, path=manifest)
    assert info2.value.fields == info.value.fields


@pytest.mark.parametrize(
    ("line", "key", "value"),
    [
        ("license: MIT: see LICENSE", "license", "MIT: see LICENSE"),
        ("compatibility: Python 3.11: tested", "compatibility", "Python 3.11: tested"),
        ("argument-hint: file: path", "argument-hint", "file: path"),
        ("version: v1: beta", "version", "v1: beta"),
        ("x-note: C#: a # b", "x-note", "C#: a # b"),
        ("x-end: ends with:", "x-end", "ends with:"),
        ("x-url: see: https://example.com/a#b", "x-url", "see: https://example.com/a#b"),
        ('x-quote: say "hi": now', "x-quote", 'say "hi": now'),
        ("x-bs: C:\\tmp: dir", "x-bs", "C:\\tmp: dir"),
    ],
)
def test_c8_unquoted_colon_other_keys(line: str, key: str, value: str) -> None:
    parsed = parse_skill(f"---\nname: c8\ndescription: d\n{line}\n---\n")
    assert parsed.frontmatter[key] == value
    assert [d.kind.value for d in parsed.diagnostics] == ["yaml_repaired"]


def test_c8_unquoted_colon_multiple_broken_lines(tmp_path: Path) -> None:
    raw = (
        "---\nname: multi\ndescription: Step one: read. Step two: write.\n"
        "license: MIT\nx-a: k: v # c\nx-b: ok\nx-c: last:\n---\nBody\n"
    )
    parsed = parse_skill(raw)
    assert parsed.frontmatter == {
        "name": "multi",
        "description": "Step one: read. Step two: write.",
        "license": "MIT",
        "x-a": "k: v # c",
        "x-b": "ok",
        "x-c": "last:",
    }
    assert "(lines 3, 5, 7)" in parsed.diagnostics[0].message
    skills = load_one(tmp_path, raw, "multi")
    assert [s.name for s in skills.list_skills()] == ["multi"]


def test_c8_unquoted_colon_quoted_value_untouched() -> None:
    raw = "---\nname: q\ndescription: \"Handle: this, quoted\"\nx: 'a: b'\ny: plain: broken\n---\n"
    parsed = parse_skill(raw)
    assert parsed.frontmatter["description"] == "Handle: this, quoted"
    assert parsed.frontmatter["x"] == "a: b"
    assert parsed.frontmatter["y"] == "plain: broken"
    assert "(line 5)" in parsed.diagnostics[0].message


def test_c8_unquoted_colon_unrepairable_is_skipped(tmp_path: Path) -> None:
    raw = "---\nname: bad\ndescription: a: b\nx: [unclosed\n---\n"
    skills = load_one(tmp_path, raw, "bad")
    assert skills.list_skills() == []
    assert kinds(skills) == ["invalid_skill"]
    assert skills.report().entries[0].status == EntryStatus.INVALID


# --- C9: block scalars -----------------------------------------------------------------------


def test_c9_block_scalars_folded_strip() -> None:
    raw = "---\nname: b\ndescription: >-\n  First line\n  second line.\n---\n"
    assert parse_skill(raw, strict=True).frontmatter["description"] == "First line second line."


def test_c9_block_scalars_plain_continuation() -> None:
    raw = "---\nname: b\ndescription: A plain value\n  continued here.\n---\n"
    assert (
        parse_skill(raw, strict=True).frontmatter["description"] == "A plain value continued here."
    )


def test_c9_block_scalars_literal_keeps_newlines() -> None:
    raw = "---\nname: b\ndescription: |\n  Line one\n  Line two\n---\n"
    # Trimmed (SPEC §6), but the inner newline stays.
    assert parse_skill(raw, strict=True).frontmatter["description"] == "Line one\nLine two"
    raw2 = "---\nname: b\ndescription: d\nx-notes: |\n  a\n\n  b\n---\n"
    assert parse_skill(raw2).frontmatter["x-notes"] == "a\n\nb\n"


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (">\n  a\n  b\n", "a b\n"),
        (">+\n  a\n\n", "a\n\n"),
        ("|-\n  a\n  b\n", "a\nb"),
        ("|2\n    indented\n", "  indented\n"),
        (">-\n  a: b\n  c # d\n", "a: b c # d"),
    ],
)
def test_c9_block_scalars_variants(block: str, expected: str) -> None:
    parsed = parse_skill(f"---\nname: b\ndescription: d\nx: {block}---\n", strict=True)
    assert parsed.frontmatter["x"] == expected


def test_c9_block_scalars_discovery(tmp_path: Path) -> None:
    raw = "---\nname: b\ndescription: >-\n  Joined\n  words.\n---\n"
    (info,) = load_one(tmp_path, raw, "b").list_skills()
    assert info.description == "Joined words."


# --- C10: BOM --------------------------------------------------------------------------------

C10 = b"\xef\xbb\xbf---\nname: hello\ndescription: Say hello.\n---\nHi\n"


def test_c10_bom_parse() -> None:
    parsed = parse_skill(C10)
    assert parsed.frontmatter == {"name": "hello", "description": "Say hello."}
    assert parsed.body == "Hi"
    assert parsed.diagnostics == ()


def test_c10_bom_discovery(tmp_path: Path) -> None:
    skills = load_one(tmp_path, C10, "hello")
    (info,) = skills.list_skills()
    assert info.name == "hello"
    content = skills.load_skill("hello")
    assert content is not None
    assert content.body == "Hi"
    assert "\ufeff" not in content.body + info.name + info.description
    assert all("\ufeff" not in k for k in info.metadata)
    assert skills.diagnostics == ()


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbf---\r\nname: hello\r\ndescription: Say hello.\r\n---\r\nHi\r\n",
        b"\xef\xbb\xbf\n\n---\nname: hello\ndescription: Say hello.\n---\nHi",
        "\ufeff---\nname: hello\ndescription: Say hello.\n---\nHi",
    ],
)
def test_c10_bom_variants(data: str | bytes) -> None:
    parsed = parse_skill(data)
    assert (parsed.frontmatter["name"], parsed.body) == ("hello", "Hi")


# --- C11: CRLF and CR ------------------------------------------------------------------------

C11 = "---\r\nname: demo\r\ndescription: Demo skill.\r\n---\r\n\r\nBody.\r\n"


@pytest.mark.parametrize("text", [C11, C11.replace("\r\n", "\r")], ids=["crlf", "cr"])
def test_c11_crlf_and_cr(tmp_path: Path, text: str) -> None:
    parsed = parse_skill(text)
    assert parsed.frontmatter["description"] == "Demo skill."
    assert parsed.body == "Body."
    skills = load_one(tmp_path, text.encode(), "demo")
    (info,) = skills.list_skills()
    assert info.description == "Demo skill."
    content = skills.load_skill("demo")
    assert content is not None
    assert content.body == "Body."


def test_c11_crlf_mixed_endings() -> None:
    text = "---\r\nname: demo\rdescription: >-\n  Demo\r\n  skill.\r---\n\r\nOne.\r\rTwo.\n"
    parsed = parse_skill(text)
    assert parsed.frontmatter == {"name": "demo", "description": "Demo skill."}
    assert parsed.body == "One.\n\nTwo."


def test_c11_crlf_error_lines_count_file_lines() -> None:
    with pytest.raises(SkillError) as info:
        parse_skill("---\r\nname: demo\r\ndescription: d\r\nx: [\r\n---\r\n", strict=True)
    assert info.value.fields["line"] == 5


def test_c11_crlf_fence_with_trailing_space() -> None:
    parsed = parse_skill("--- \r\nname: demo\r\ndescription: d\r\n---\t\r\nB")
    assert parsed.body == "B"


# --- C12: --- where it is not a fence --------------------------------------------------------

C12 = (
    "---\nname: tone\n# ---- core ----\ndescription: Tone rules---short and direct.\n---\n"
    "# Part one\n\nBe brief.\n\n---\n\n# Part two\n\nBe kind.\n"
)


def test_c12_dashes_not_a_fence(tmp_path: Path) -> None:
    parsed = parse_skill(C12, strict=True)
    assert parsed.frontmatter["description"] == "Tone rules---short and direct."
    body = "# Part one\n\nBe brief.\n\n---\n\n# Part two\n\nBe kind."
    assert parsed.body == body
    skills = load_one(tmp_path, C12, "tone")
    content = skills.load_skill("tone")
    assert content is not None
    assert content.description == "Tone rules---short and direct."
    assert content.body == body


@pytest.mark.parametrize(
    ("yaml_lines", "key", "value"),
    [
        ("# ---\n", None, None),
        ("#---\n", None, None),
        ("x: ---\n", "x", "---"),
        ("x: '---'\n", "x", "---"),
        ("x: a --- b\n", "x", "a --- b"),
        ("x: |\n  ---\n  ----\n", "x", "---\n----\n"),
        ("x:\n  - ---x\n", "x", ["---x"]),
    ],
)
def test_c12_dashes_other_places(yaml_lines: str, key: str | None, value: object) -> None:
    parsed = parse_skill(f"---\nname: t\ndescription: d\n{yaml_lines}---\nA\n---\nB")
    if key is not None:
        assert parsed.frontmatter[key] == value
    assert parsed.body == "A\n---\nB"


def test_c12_body_starting_with_rule() -> None:
    parsed = parse_skill("---\nname: t\ndescription: d\n---\n---\nText\n")
    assert parsed.body == "---\nText"


# --- C13: tabs -------------------------------------------------------------------------------

C13 = "---\nname: tabs\ndescription: Tab indented.\nmetadata:\n\towner: team-a\n---\n"


def test_c13_tabs_lenient(tmp_path: Path) -> None:
    parsed = parse_skill(C13)
    assert parsed.frontmatter["metadata"] == {"owner": "team-a"}
    assert [d.kind.value for d in parsed.diagnostics] == ["yaml_repaired"]
    skills = load_one(tmp_path, C13, "tabs")
    (info,) = skills.list_skills()
    assert dict(info.metadata["metadata"]) == {"owner": "team-a"}
    assert kinds(skills) == ["yaml_repaired"]


def test_c13_tabs_strict(tmp_path: Path) -> None:
    with pytest.raises(SkillError) as info:
        parse_skill(C13, strict=True)
    assert info.value.code == ErrorCode.INVALID_SKILL
    assert info.value.fields == {"line": 5, "column": 1}
    root = tmp_path / "skills"
    make_skill(root, "tabs", raw=C13)
    with pytest.raises(SkillError) as info2:
        discover(root, strict=True)
    assert info2.value.fields == {
        "path": str(root / "tabs" / "SKILL.md"),
        "line": 5,
        "column": 1,
    }


@pytest.mark.parametrize(
    ("yaml_lines", "expected"),
    [
        ("metadata:\n\ta: 1\n\tb: 2\n", {"a": 1, "b": 2}),
        ("metadata:\n\ta:\n\t\tb: 1\n", {"a": {"b": 1}}),
        ("metadata:\n \ta: 1\n", {"a": 1}),
        ("metadata:\n\tlist:\n\t\t- x\n", {"list": ["x"]}),
    ],
)
def test_c13_tabs_variants(yaml_lines: str, expected: object) -> None:
    parsed = parse_skill(f"---\nname: t\ndescription: d\n{yaml_lines}---\n")
    assert parsed.frontmatter["metadata"] == expected
    assert [d.kind.value for d in parsed.diagnostics] == ["yaml_repaired"]


def test_c13_tabs_inside_values_are_kept() -> None:
    parsed = parse_skill("---\nname: t\ndescription: a\tb\n---\n", strict=True)
    assert parsed.frontmatter["description"] == "a\tb"
    assert parsed.diagnostics == ()


# --- C14: broken fences and encodings --------------------------------------------------------

C14 = {
    "a-unterminated": "---\nname: a-unterminated\ndescription: D.\n",
    "b-empty-block": "---\n---\nJust a body.",
    "c-no-frontmatter": "# Just markdown\n\nNo frontmatter here.\n",
    "e-utf16": b"\xff\xfe" + "---\nname: e-utf16\ndescription: D.\n---\n".encode("utf-16-le"),
}


@pytest.mark.parametrize("key", sorted(C14))
def test_c14_broken_fences_parse(key: str) -> None:
    with pytest.raises(SkillError) as info:
        parse_skill(C14[key])
    assert info.value.code == ErrorCode.INVALID_SKILL


def test_c14_broken_fences_d_loads_with_empty_body() -> None:
    parsed = parse_skill("---\nname: d\ndescription: D.\n---")
    assert parsed.frontmatter == {"name": "d", "description": "D."}
    assert parsed.body == ""


def test_c14_broken_fences_discovery(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for dirname, raw in C14.items():
        make_skill(root, dirname, raw=raw)
    make_skill(root, "d", raw="---\nname: d\ndescription: D.\n---")
    make_skill(root, "good-one")
    make_skill(root, "zz-good")
    skills = discover(root)
    assert [s.name for s in skills.list_skills()] == ["d", "good-one", "zz-good"]
    content = skills.load_skill("d")
    assert content is not None
    assert content.body == ""
    statuses = {e.path.name: e.status for e in skills.report().entries}
    assert statuses == {
        "a-unterminated": "invalid",
        "b-empty-block": "invalid",
        "c-no-frontmatter": "invalid",
        "d": "loaded",
        "e-utf16": "invalid",
        "good-one": "loaded",
        "zz-good": "loaded",
    }
    invalid = [d for d in skills.diagnostics if d.kind == "invalid_skill"]
    assert sorted(str(d.path.parent.name) for d in invalid if d.path) == [
        "a-unterminated",
        "b-empty-block",
        "c-no-frontmatter",
        "e-utf16",
    ]
    reasons = {e.path.name: e.reason for e in skills.report().entries}
    assert reasons["a-unterminated"].startswith("unterminated frontmatter")


@pytest.mark.parametrize(
    "data",
    [
        "---\nname: x\ndescription: D.\n---\n".encode("utf-16"),
        "---\nname: x\ndescription: D.\n---\n".encode("utf-16-be"),
        "---\nname: x\ndescription: D.\n---\n".encode("utf-32"),
        b"\x00\x00\xfe\xff",
        b"\xfe\xff\x00-\x00-\x00-",
        b"",
        b"\x00",
        b"\xff" * 64,
    ],
)
def test_c14_broken_encodings_are_invalid(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(SkillError) as info:
        parse_skill(data)
    assert info.value.code == ErrorCode.INVALID_SKILL
    root = tmp_path / "skills"
    make_skill(root, "x", raw=data)
    make_skill(root, "ok")
    skills = discover(root)
    assert [s.name for s in skills.list_skills()] == ["ok"]
    assert "invalid_skill" in kinds(skills)


def test_c14_nul_byte_in_frontmatter(tmp_path: Path) -> None:
    data = b"---\nname: n\ndescription: has\x00nul\n---\n"
    with pytest.raises(SkillError) as info:
        parse_skill(data)
    assert info.value.fields == {"line": 3, "column": 17}
    skills = load_one(tmp_path, data, "n")
    assert skills.list_skills() == []
    assert kinds(skills) == ["invalid_skill"]


def test_c14_nul_byte_in_body_is_kept() -> None:
    parsed = parse_skill(b"---\nname: n\ndescription: d\n---\nA\x00B")
    assert parsed.body == "A\x00B"


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        (b"caf\xc3", "caf\ufffd"),
        (b"\xe2\x82", "\ufffd"),
        (b"x\xf0\x9f\x98", "x\ufffd"),
        (b"\xed\xa0\x80", "\ufffd\ufffd\ufffd"),
        (b"\xc0\xaf", "\ufffd\ufffd"),
    ],
)
def test_c14_truncated_multibyte_loads_with_diagnostic(
    tmp_path: Path, tail: bytes, expected: str
) -> None:
    data = b"---\nname: t\ndescription: ok " + tail + b"\n---\nbody " + tail
    parsed = parse_skill(data)
    assert parsed.frontmatter["description"] == "ok " + expected
    assert parsed.body == "body " + expected
    assert [d.kind.value for d in parsed.diagnostics] == ["invalid_utf8"]
    skills = load_one(tmp_path, data, "t")
    assert [s.name for s in skills.list_skills()] == ["t"]
    assert kinds(skills) == ["invalid_utf8"]


def test_c14_lone_surrogate_in_str() -> None:
    parsed = parse_skill("---\nname: t\ndescription: a\ud800b\n---\n")
    assert parsed.frontmatter["description"] == "a\ufffdb"
    assert [d.kind.value for d in parsed.diagnostics] == ["invalid_utf8"]


def test_c14_strict_discovery_raises_for_first_broken(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "a", raw="---\nname: a\n")
    with pytest.raises(SkillError) as info:
        discover(root, strict=True)
    assert info.value.code == ErrorCode.INVALID_SKILL
    assert info.value.fields["path"] == str(root / "a" / "SKILL.md")


# --- C15: non-string scalars -----------------------------------------------------------------

C15 = "---\nname: 12306\ndescription:\nlicense: true\n---\nBody\n"


def test_c15_non_string_scalars(tmp_path: Path) -> None:
    for strict in (False, True):
        with pytest.raises(SkillError) as info:
            parse_skill(C15, strict=strict)
        assert info.value.code == ErrorCode.INVALID_SKILL
        assert info.value.fields == {"at": "name"}
    skills = load_one(tmp_path, C15, "12306")
    assert skills.list_skills() == []
    assert "12306" not in skills
    assert kinds(skills) == ["invalid_skill"]
    assert "None" not in skills.diagnostics[0].message


def test_c15_license_true_lenient(tmp_path: Path) -> None:
    raw = "---\nname: lic\ndescription: D.\nlicense: true\n---\n"
    parsed = parse_skill(raw)
    assert parsed.model.license is None
    assert parsed.frontmatter["license"] is True
    skills = load_one(tmp_path, raw, "lic")
    (info,) = skills.list_skills()
    assert info.metadata["license"] is True
    assert kinds(skills) == ["invalid_field"]
    assert "'license'" in skills.diagnostics[0].message
    with pytest.raises(SkillError) as err:
        parse_skill(raw, strict=True)
    assert err.value.fields == {"at": "license"}


@pytest.mark.parametrize(
    ("yaml_lines", "at"),
    [
        ("name: 1.5\ndescription: d\n", "name"),
        ("name: true\ndescription: d\n", "name"),
        ("name: null\ndescription: d\n", "name"),
        ("name: ~\ndescription: d\n", "name"),
        ("name:\ndescription: d\n", "name"),
        ("name: x\ndescription: 42\n", "description"),
        ("name: x\ndescription: false\n", "description"),
        ("name: x\ndescription: ~\n", "description"),
        ("name: x\ndescription: [a]\n", "description"),
        ("name: x\ndescription: {a: b}\n", "description"),
    ],
)
def test_c15_non_string_required_keys(yaml_lines: str, at: str) -> None:
    with pytest.raises(SkillError) as info:
        parse_skill(f"---\n{yaml_lines}---\n")
    assert info.value.fields == {"at": at}
    assert "None" not in info.value.message


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("version: 1.0", "version"),
        ("version: 2", "version"),
        ("compatibility: 3.11", "compatibility"),
        ("argument-hint: null", "argument-hint"),
        ("metadata: none", "metadata"),
    ],
)
def test_c15_non_string_optional_keys(tmp_path: Path, line: str, key: str) -> None:
    raw = f"---\nname: opt\ndescription: D.\n{line}\n---\n"
    skills = load_one(tmp_path, raw, "opt")
    (info,) = skills.list_skills()
    assert (info.user_invocable, info.model_invocable) == (True, True)
    assert kinds(skills) == ["invalid_field"]
    assert f"'{key}'" in skills.diagnostics[0].message


# --- C16: allowed-tools in every form --------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_lines", "expected"),
    [
        ("allowed-tools: Bash(git:*) Read\n", ("Bash(git:*)", "Read")),
        ("allowed-tools: Read, Grep, Bash(npm *)\n", ("Read", "Grep", "Bash(npm *)")),
        ("allowed-tools: [Read, Write]\n", ("Read", "Write")),
        ("allowed-tools:\n  - Read\n  - Bash(git status:*)\n", ("Read", "Bash(git status:*)")),
        ("allowed-tools: ''\n", ()),
        ("allowed-tools: []\n", ()),
        ("allowed-tools: 'Bash(git log:*), Read'\n", ("Bash(git log:*)", "Read")),
        ("tools: Read Grep\n", ("Read", "Grep")),
        ("tools: [Read]\nallowed-tools: Write\n", ("Write",)),
        ("allowed-tools: >-\n  Read\n  Grep\n", ("Read", "Grep")),
    ],
)
def test_c16_allowed_tools_forms(
    tmp_path: Path, yaml_lines: str, expected: tuple[str, ...]
) -> None:
    raw = f"---\nname: tools\ndescription: D.\n{yaml_lines}---\n"
    parse_skill(raw, strict=True)
    skills = load_one(tmp_path, raw, "tools")
    (info,) = skills.list_skills()
    assert info.allowed_tools == expected
    assert skills.diagnostics == ()


def test_c16_allowed_tools_absent_is_none(tmp_path: Path) -> None:
    (info,) = load_one(tmp_path, "---\nname: n\ndescription: D.\n---\n", "n").list_skills()
    assert info.allowed_tools is None


@pytest.mark.parametrize(
    "value", ["42", "true", "{Read: 1}", "[Read, 1]", "[[Read]]", "null", "1.5"]
)
def test_c16_allowed_tools_invalid_lenient(tmp_path: Path, value: str) -> None:
    raw = f"---\nname: bad-tools\ndescription: D.\nallowed-tools: {value}\n---\n"
    skills = load_one(tmp_path, raw, "bad-tools")
    (info,) = skills.list_skills()
    assert info.allowed_tools is None
    assert kinds(skills) == ["invalid_field"]
    assert "'allowed-tools'" in skills.diagnostics[0].message
    with pytest.raises(SkillError) as err:
        parse_skill(raw, strict=True)
    assert err.value.fields == {"at": "allowed-tools"}


def test_c16_invalid_allowed_tools_falls_back_to_tools(tmp_path: Path) -> None:
    raw = "---\nname: fb\ndescription: D.\nallowed-tools: 42\ntools: Read\n---\n"
    (info,) = load_one(tmp_path, raw, "fb").list_skills()
    assert info.allowed_tools == ("Read",)


# C14 (e), the encoding kept as the cause: an invalid skill whose bytes are not UTF-8 says so.


@pytest.mark.parametrize(
    "raw",
    [
        b"\xff\xfe-\x00-\x00-\x00\n\x00",  # UTF-16 LE with BOM
        b"---\nname: \xe9t\xe9\ndescription: Latin-1.\n---\n",  # invalid name once decoded
        b"\xc3\x28---\n",  # a broken sequence before the fence
    ],
)
def test_c14_invalid_utf8_is_reported_even_when_the_skill_is_invalid(
    tmp_path: Path, raw: bytes
) -> None:
    root = tmp_path / "skills"
    make_skill(root, "enc", raw=raw)
    make_skill(root, "fine")
    skills = create_agent_skills([root])
    assert [s.name for s in skills.list_skills()] == ["fine"]
    manifest = root / "enc" / "SKILL.md"
    kinds = [d.kind for d in skills.diagnostics if d.path == manifest]
    assert kinds == ["invalid_utf8", "invalid_skill"]
    with pytest.raises(SkillError) as info:
        parse_skill(raw)
    assert info.value.code == "invalid_skill"
    assert "invalid_utf8" not in info.value.fields  # the cause is in the message and a diagnostic
    assert str(info.value).endswith("(the file is not valid UTF-8)")


def test_c14_no_frontmatter_and_empty_manifest_say_so() -> None:
    for raw, message in [
        ("Just a body.\n", "no frontmatter: the manifest must open with a '---' line"),
        ("", "the manifest is empty"),
        ("  \n\t\n", "the manifest is empty"),
    ]:
        with pytest.raises(SkillError) as info:
            parse_skill(raw)
        assert (info.value.code, info.value.message, info.value.fields) == (
            "invalid_skill",
            message,
            {"at": "name"},
        )


@pytest.mark.parametrize(
    ("raw", "done"),
    [
        (
            "---\nname: a\ndescription: x: y\n---\n",
            "repaired (line 3): quoted values containing ': ', ' #' or a final ':'",
        ),
        (
            "---\nname: a\ndescription: d\nmetadata:\n\towner: t\n---\n",
            "repaired (line 5): indented with spaces instead of tabs",
        ),
        (
            "---\nname: a\ndescription: x: y\nmetadata:\n\towner: t\n---\n",
            "repaired (lines 3, 5): quoted values containing ': ', ' #' or a final ':' "
            "and indented with spaces instead of tabs",
        ),
    ],
)
def test_c13_c8_repair_message_names_only_what_was_done(raw: str, done: str) -> None:
    (diag,) = [d for d in parse_skill(raw).diagnostics if d.kind == "yaml_repaired"]
    assert diag.message == f"frontmatter of manifest {done}"
