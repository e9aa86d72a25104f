"""Property: parse_skill raises nothing but SkillError, whatever the text (SPEC §5, §11)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import ParsedSkill, SkillError, parse_skill
from agent_skills._manifest import MAX_FRONTMATTER_EXPANSION

# Hypothesis properties of the parser.
pytestmark = [pytest.mark.slow]

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


_SCALAR_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            "~",
            "null",
            "Null",
            "NULL",
            "true",
            "False",
            "TRUE",
            "yes",
            "0o17",
            "0x1F",
            "017",
            "-5",
            "+3",
            "1.5",
            "-.5e3",
            ".inf",
            "-.Inf",
            ".NaN",
            "1_000",
            "0b1",
            "2024-01-01",
            "1e3",
        ]
    ),
)


@settings(max_examples=400, deadline=None)
@given(value=_SCALAR_TEXT, plain=st.booleans(), quoted=st.booleans())
def test_core_resolver_answers_what_the_generic_resolver_answers(
    value: str, plain: bool, quoted: bool
) -> None:
    """The YAML 1.2 core resolver's own ``resolve`` (SPEC §5, §26) gives the tag PyYAML's generic
    ``BaseResolver.resolve`` gives with the same implicit resolvers, for every node kind."""
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode
    from yaml.resolver import BaseResolver

    from agent_skills._manifest import _Core12Resolver

    ours = _Core12Resolver()
    for kind in (ScalarNode, SequenceNode, MappingNode):
        expected = BaseResolver.resolve(ours, kind, value, (plain, quoted))
        assert ours.resolve(kind, value, (plain, quoted)) == expected


@settings(max_examples=600, deadline=None)
@given(text=st.text(alphabet="-- \t\na", max_size=40), start=st.integers(0, 45))
def test_closing_fence_finds_what_the_fence_regex_finds(text: str, start: int) -> None:
    """The closing-fence scanner (SPEC §5, §26) answers as ``^---[ \\t]*$`` (multiline) searched
    from ``start`` does, for any text and any start."""
    import re

    from agent_skills._manifest import _closing_fence

    match = re.compile(r"^---[ \t]*$", re.MULTILINE).search(text, start)
    expected = (match.start(), match.end()) if match is not None else None
    assert _closing_fence(text, start) == expected


_YAML_LINES = st.sampled_from(
    [
        "a: 1",
        "b: text",
        "a: again",
        "c:",
        "  d: x",
        "  d: y",
        "  e: [1, two, {f: 3}]",
        "  - item",
        "- item",
        "g: &anchor {h: 1}",
        "i: *anchor",
        "j: &s [1, 2]",
        "k: *s",
        "l: &v scalar",
        "m: *v",
        "n: !!str 12",
        "o: !!int nope",
        "p: !!set {x}",
        "q: !custom x",
        "? [complex, key]",
        ": value",
        "r: !!map {s: 1}",
        "t: !!seq [1]",
        "u: {v: {w: {x: [y, {z: 1}]}}}",
        "1: int key",
        "null: null key",
        "x: .inf",
        "y: 0o17",
        "z: yes",
        "  bad indent: 1",
        "[unclosed",
        "w: {a: 1, a: 2}",
        "v: [!!int bad]",
        "s: [[!!float x], {q: !!bool maybe}]",
        "ta: !!seq {a: 1}",
        "tb: !!map [1]",
        "tc: !!map a",
        "td: !!seq a",
        "te: !!seq {a: !!map [1]}",
        "tf: !!str [1]",
        "tg: !!null {a: 1}",
        "th: !custom {a: 1}",
        "ti: !!omap [a: 1]",
        "!!seq {name: a}",
        "!!map [a]",
    ]
)


def _outcome(load: Any) -> tuple[str, Any]:
    try:
        return ("ok", load())
    except Exception as exc:  # the very exception, compared by type and text
        return (type(exc).__name__, str(exc))


@settings(max_examples=1500, deadline=None)
@given(lines=st.lists(_YAML_LINES, max_size=10))
def test_direct_tree_building_equals_the_generic_construction(lines: list[str]) -> None:
    """The frontmatter loader's direct construction (SPEC §26) gives the generic construction's
    value, or raises its first error, for documents mixing nesting, aliases, duplicate keys,
    tags and syntax errors."""
    from agent_skills._manifest import _Core12Loader

    text = "\n".join(lines) + "\n"

    def generic() -> Any:
        loader = _Core12Loader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()

    def direct() -> Any:
        loader = _Core12Loader(text)
        try:
            return loader.load_single()
        finally:
            loader.dispose()

    expected, got = _outcome(generic), _outcome(direct)
    if expected[0] == "ok" and got[0] == "ok":
        assert repr(got[1]) == repr(expected[1])  # cycles print as {...}, types show
    else:
        assert got == expected


# -- alias bombs within the size and node budgets: the expanded size is bounded (SPEC §20.6) --


_EXPANDED = MAX_FRONTMATTER_EXPANSION * 2  # characters each bomb below expands to, at least


def _wide_scalar(size: int) -> str:
    count = _EXPANDED // size + 1
    return f'big: &a "{"x" * size}"\nlist: [{", ".join(["*a"] * count)}]\n'


def _nested_lists(size: int) -> str:
    inner = 8
    count = _EXPANDED // (size * inner) + 1
    return (
        f"a: &a {'y' * size}\n"
        f"b: &b [{', '.join(['*a'] * inner)}]\n"
        f"c: [{', '.join(['*b'] * count)}]\n"
    )


def _merged_mappings(size: int) -> str:
    count = _EXPANDED // (size * 2) + 1
    return f"base: &m {{k1: {'z' * size}, k2: {'w' * size}}}\nitems:\n" + "".join(
        f"  - {{<<: *m, n: {i}}}\n" for i in range(count)
    )


def _alias_values_of_a_mapping(size: int) -> str:
    count = _EXPANDED // size + 1
    return f"m: &m {{long: {'v' * size}}}\n" + "".join(f"k{i}: *m\n" for i in range(count))


_BOMBS = st.sampled_from(
    [_wide_scalar, _nested_lists, _merged_mappings, _alias_values_of_a_mapping]
)


@settings(max_examples=25, deadline=None)
@given(shape=_BOMBS, size=st.integers(3_000, 120_000))
def test_an_alias_bomb_under_every_count_budget_is_refused_by_its_expanded_size(
    shape: Any, size: int
) -> None:
    yaml_text = shape(size)
    assert len(yaml_text) < 1 << 20  # under the manifest's size cap, and its nodes under theirs
    with pytest.raises(SkillError) as caught:
        parse_skill(f"---\nname: b\ndescription: d\n{yaml_text}---\nbody\n", path="/r/b/SKILL.md")
    assert caught.value.code == "invalid_skill"
    assert "characters beyond its text through aliases" in caught.value.message


@settings(max_examples=25, deadline=None)
@given(size=st.integers(1, 200_000), repeats=st.integers(1, 4))
def test_aliases_that_expand_within_the_budget_load_as_written(size: int, repeats: int) -> None:
    word = "x" * size
    aliases = ", ".join(["*a"] * repeats)
    yaml_text = (
        f"big: &a {word}\nlist: [{aliases}]\nbase: &m {{k1: {word[:50]}}}\n"
        "items:\n  - {<<: *m, n: 1}\nmore: *m\n"
    )
    parsed = parse_skill(
        f"---\nname: b\ndescription: d\n{yaml_text}---\nbody\n", path="/r/b/SKILL.md"
    )
    assert parsed.frontmatter == {
        "name": "b",
        "description": "d",
        "big": word,
        "list": [word] * repeats,
        "base": {"k1": word[:50]},
        "items": [{"<<": {"k1": word[:50]}, "n": 1}],
        "more": {"k1": word[:50]},
    }
