"""Property: parse_skill raises nothing but SkillError, whatever the text (SPEC §5, §11)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import ParsedSkill, SkillError, parse_skill
from agent_skills._manifest import MAX_FRONTMATTER_EXPANSION
from conftest import core_loaded

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

    from agent_skills._yaml12 import Core12Resolver

    ours = Core12Resolver()
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
    from agent_skills._yaml12 import Core12Loader

    text = "\n".join(lines) + "\n"

    def generic() -> Any:
        loader = Core12Loader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()

    def direct() -> Any:
        loader = Core12Loader(text)
        try:
            return loader.load_single()
        finally:
            loader.dispose()

    expected, got = _outcome(generic), _outcome(direct)
    if expected[0] == "ok" and got[0] == "ok":
        assert repr(got[1]) == repr(expected[1])  # cycles print as {...}, types show
    else:
        assert got == expected


_SIMPLE_KEYS = ["name", "description", "a", "b-c", "d_e", "x1", "true", "Null", "on", "y"]
_SIMPLE_VALUES = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("ab :#'\"\\-|>[]{}!&*%@`,?~.\x85\u2028\xa0\ufeff\x7f\x1b")),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=10,
)
_SIMPLE_LINES = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(_SIMPLE_KEYS), _SIMPLE_VALUES),
    st.builds(
        lambda k, sep, v: k + sep + v,
        st.sampled_from(_SIMPLE_KEYS),
        st.sampled_from([":", ":  ", " : ", ":\t"]),
        st.sampled_from(["v", "a b", '"q"', "'s'", "true", "~", "12", "x: y", "[a]", "&a x"]),
    ),
    st.builds(
        lambda k, h: f"{k}: {h}",
        st.sampled_from(_SIMPLE_KEYS),
        st.sampled_from([">", ">-", "|", "|-", "", ">+", "|2", "> #c"]),
    ),
    st.builds(lambda pad, v: pad + v, st.sampled_from([" ", "  ", "   "]), _SIMPLE_VALUES),
    st.builds(lambda pad, v: f"{pad}- {v}", st.sampled_from(["", " ", "  "]), _SIMPLE_VALUES),
    st.builds(
        lambda pad, k, v: f"{pad}{k}: {v}",
        st.sampled_from([" ", "  "]),
        st.sampled_from(_SIMPLE_KEYS),
        _SIMPLE_VALUES,
    ),
    st.sampled_from(["", "  ", "...", "# comment", "-", "metadata:", "  k:", "\t"]),
)


def _reads_as_the_loader(text: str) -> bool:
    """Check that the simple reading of ``text``, when it takes it, is what the YAML 1.2 loader
    gives (value, types and key order); return whether it took it."""
    from agent_skills._manifest import _simple_mapping

    simple = _simple_mapping(text)
    if simple is None:
        return False
    assert repr(simple) == repr(core_loaded(text))  # types and key order too
    return True


@settings(max_examples=3000, deadline=None)
@given(lines=st.lists(_SIMPLE_LINES, max_size=8))
def test_simple_frontmatter_reads_as_the_loader_does(lines: list[str]) -> None:
    """The simple reading of a frontmatter (SPEC §26) gives what the YAML 1.2 loader gives,
    value, types and key order, for every text it takes; a text it leaves (``None``) goes to the
    loader. The lines mix its shapes with every near miss: indicators, quotes with escapes or
    inner quotes, comments, typed scalars, block headers it leaves, uneven indentation, tabs,
    characters YAML does not print, line breaks YAML knows and Python's split does not."""
    _reads_as_the_loader("\n".join(lines) + "\n")


_NESTED_VALUES = st.one_of(
    _SIMPLE_VALUES,
    st.sampled_from(
        [
            "v w",
            "true",
            "[a, b c]",
            "[]",
            "{}",
            "{k: v}",
            "{k: {x: 'y'}, z: [\"q\"]}",
            "[a, {k: v}]",
            "[a,]",
            "[a b",
            "{k:v}",
            "[a: b]",
            "'q'",
            '"q r"',
            ">",
            "|-",
            "x # c",
            "1",
        ]
    ),
)
_NESTED_LINES = st.builds(
    lambda pad, lead, value: pad + lead + value,
    st.sampled_from(["", " ", "  ", "   ", "    ", "      "]),
    st.sampled_from(["", "- ", "-  ", "k: ", "b-c:", "a: ", "- k: ", "- a:", "# ", "-"]),
    _NESTED_VALUES,
)


@settings(max_examples=4000, deadline=None)
@given(lines=st.lists(st.one_of(_NESTED_LINES, _SIMPLE_LINES), max_size=10))
def test_simple_frontmatter_of_nested_lines_reads_as_the_loader_does(lines: list[str]) -> None:
    """Block mappings and sequences nested at any indentation, sequence entries holding
    mappings, flow collections, plain scalars folded over lines, comment and blank lines, and
    their near misses: what the simple reading takes (SPEC §26) the YAML 1.2 loader reads to
    the same value, types and key order (and does not refuse)."""
    _reads_as_the_loader("\n".join(lines) + "\n")


def _real_frontmatters() -> list[str]:
    """The corpus's frontmatter texts (empty when the shared corpus is absent)."""
    import os
    from pathlib import Path

    from agent_skills._manifest import _decode, split_frontmatter
    from conftest import CORPUS

    found = []
    for directory, _, files in os.walk(CORPUS):
        for file in files:
            if file.lower() == "skill.md":
                try:
                    text, _ = _decode(Path(directory, file).read_bytes())
                    frontmatter, _, _ = split_frontmatter(text)
                except Exception:  # (undecodable or unterminated: not a frontmatter to mutate)
                    continue
                if frontmatter:
                    found.append(frontmatter)
    return sorted(found)


_REAL_FRONTMATTERS = _real_frontmatters()
_EDIT_TEXT = st.lists(
    st.one_of(
        st.sampled_from(list(" :#'\"\\-|>[]{}!&*%@`,?~.\n\t\r\x85\u2028\xa0\ufeff")),
        st.sampled_from(["yes", "no", "on", "1.0", "0x1", "null", "True", ": ", " #", "- ", "  "]),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=4,
).map("".join)


@pytest.mark.skipif(not _REAL_FRONTMATTERS, reason="shared corpus not available")
@settings(max_examples=3000, deadline=None)
@given(
    which=st.integers(min_value=0),
    edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 3), _EDIT_TEXT), max_size=3),
)
def test_simple_frontmatter_of_edited_real_manifests_reads_as_the_loader_does(
    which: int, edits: list[tuple[float, int, str]]
) -> None:
    """A real frontmatter (``../shared/corpus``) edited anywhere (text inserted, or put in
    place of up to three characters: indicators, typed words, blanks, tabs, line breaks YAML
    knows and Python's split does not) reads through the simple reading as through the YAML
    1.2 loader, value, types and key order; when the simple reading cannot say, it says
    ``None`` and the loader reads the text (SPEC §26)."""
    from agent_skills._manifest import load_frontmatter_yaml

    text = _REAL_FRONTMATTERS[which % len(_REAL_FRONTMATTERS)]
    for where, removed, inserted in edits:
        at = int(where * len(text))
        text = text[:at] + inserted + text[at + removed :]
    if _reads_as_the_loader(text):
        assert repr(load_frontmatter_yaml(text)) == repr(core_loaded(text))


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


@pytest.mark.parametrize(
    ("text", "taken"),
    [
        ("".join(f"k{i}: v\n" for i in range(49_999)), True),  # 99 999 nodes
        ("".join(f"k{i}: v\n" for i in range(50_000)), False),  # 100 001 nodes
        ("a:\n" + "  - x\n" * 99_997, True),  # 100 000 nodes
        ("a:\n" + "  - x\n" * 99_998, False),  # 100 001 nodes
    ],
)
def test_simple_frontmatter_over_the_node_budget_is_the_loaders(text: str, taken: bool) -> None:
    """A frontmatter of the simple shape holding more YAML nodes than the budget (SPEC §20.6)
    is left to the loader, which refuses it (``yaml_nodes``); one within it is read directly to
    the loader's value."""
    from agent_skills._manifest import MAX_YAML_NODES, _simple_mapping, load_frontmatter_yaml
    from agent_skills._yaml12 import Core12Loader

    assert MAX_YAML_NODES == 100_000
    simple = _simple_mapping(text)
    assert (simple is not None) is taken
    if taken:
        loader = Core12Loader(text)
        try:
            assert simple == loader.load_single()
        finally:
            loader.dispose()
    else:
        with pytest.raises(SkillError) as caught:
            load_frontmatter_yaml(text)
        assert caught.value.fields == {"reason": "yaml_nodes"}
