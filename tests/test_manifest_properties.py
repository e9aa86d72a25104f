"""Property: parse_skill raises nothing but SkillError, whatever the text (SPEC §5, §11)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import ParsedSkill, SkillError, parse_skill

FRAGMENTS = [
    "---",
    "--- ",
    "----",
    "name: ",
    "description: ",
    "metadata:",
    "allowed-tools: ",
    "license: ",
    "user-invocable: ",
    "- ",
    "? ",
    ": ",
    " #",
    "# c",
    "&a ",
    "*a",
    "!!str ",
    "!x ",
    "!!python/object:x ",
    "<<: ",
    "|",
    ">-",
    "[",
    "]",
    "{",
    "}",
    ",",
    '"',
    "'",
    "\\",
    "yes",
    "null",
    "~",
    "017",
    "0o17",
    ".inf",
    "2024-01-01",
    "true",
    "%YAML 1.2",
    "...",
    "demo",
    "a: b",
    "\t",
    "  ",
    "\n",
    "\r\n",
    "\r",
    "\ufeff",
    "\x00",
    "\ud800",
    "é",
]

texts = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=40).map(
    "".join
)


def _check(data: str | bytes, strict: bool) -> None:
    try:
        result = parse_skill(data, strict=strict)
    except SkillError as err:
        assert err.code in ("invalid_skill", "invalid_input")
        assert isinstance(err.fields, dict)
    else:
        assert isinstance(result, ParsedSkill)
        assert isinstance(result.frontmatter["name"], str)
        assert isinstance(result.frontmatter["description"], str)


@settings(max_examples=300, deadline=None)
@given(body=texts, strict=st.booleans())
def test_parse_skill_only_raises_skill_error(body: str, strict: bool) -> None:
    _check("---\n" + body, strict)
    _check("---\nname: demo\ndescription: d\n" + body + "\n---\n", strict)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=200), strict=st.booleans())
def test_parse_skill_bytes_only_raise_skill_error(data: bytes, strict: bool) -> None:
    _check(b"---\nname: demo\n" + data, strict)
