"""Fuzzing ``parse_skill`` (SPEC §5, §11): whatever the input, only ``SkillError`` escapes.

Hypothesis feeds random bytes and text, structured frontmatter-like text, and mutations of the real
manifests of the shared corpus (skipped when the corpus is absent). A result must be a
``ParsedSkill`` whose frontmatter is a dict and whose body is a str; a refusal must be a
``SkillError`` with a known code and JSON-serialisable fields. The coverage-guided counterpart is
``fuzz/fuzz_parse.py`` (atheris), run by hand.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import ErrorCode, ParsedSkill, SkillError, parse_skill
from conftest import CORPUS

# Fuzzing the parser with many inputs.
pytestmark = [pytest.mark.slow]

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def _corpus_manifests() -> tuple[bytes, ...]:
    if not (CORPUS / "ROOTS.txt").is_file():
        return ()
    paths = sorted(CORPUS.rglob("SKILL.md"))
    return tuple(p.read_bytes() for p in paths)


def _check(data: str | bytes, strict: bool) -> None:
    try:
        parsed = parse_skill(data, strict=strict)
    except SkillError as err:
        assert err.code in (ErrorCode.INVALID_SKILL, ErrorCode.INVALID_INPUT)
        json.dumps(err.fields)
        assert isinstance(err.message, str)
        return
    assert isinstance(parsed, ParsedSkill)
    assert isinstance(parsed.frontmatter, dict)
    assert isinstance(parsed.body, str)
    json.dumps(parsed.frontmatter)


@FUZZ
@given(data=st.binary(max_size=2000), strict=st.booleans())
def test_random_bytes(data: bytes, strict: bool) -> None:
    _check(data, strict)
    _check(b"---\n" + data, strict)
    _check(b"---\n" + data + b"\n---\nbody", strict)


@FUZZ
@given(text=st.text(max_size=1000), strict=st.booleans())
def test_random_text(text: str, strict: bool) -> None:
    _check(text, strict)
    _check("---\n" + text + "\n---\n", strict)


YAML_PIECES = st.sampled_from(
    [
        "name: x\n",
        "description: d\n",
        "name: \n",
        "name: [a, b]\n",
        "description: |\n  t\n",
        "metadata:\n  k: v\n",
        "allowed-tools: Bash(git:*) Read\n",
        "tools: [a, 1]\n",
        "user-invocable: yes\n",
        "version: 1.0\n",
        "? complex\n",
        "&a x: *a\n",
        "!!binary x\n",
        "key: !custom v\n",
        "\t- tab\n",
        "a: b: c\n",
        "x: 'unterminated\n",
        '"q": "\\u\n',
        "---\n",
        "...\n",
        "- list\n",
        "1: one\n",
        "null: ~\n",
        "2024-01-01: date\n",
        "{\n",
        "<<: *b\n",
        "k: v # c\n",
        "\ufeff",
        "\r\n",
        "\r",
        "\x00",
        "\ud800",
    ]
)


@FUZZ
@given(pieces=st.lists(YAML_PIECES, max_size=12), strict=st.booleans())
def test_frontmatter_like_text(pieces: list[str], strict: bool) -> None:
    text = "---\n" + "".join(pieces) + "---\nbody\n"
    _check(text, strict)
    _check(text.encode("utf-8", "surrogatepass"), strict)


@FUZZ
@given(
    index=st.integers(min_value=0),
    edits=st.lists(
        st.tuples(
            st.sampled_from(["flip", "insert", "delete", "truncate", "dup"]),
            st.integers(min_value=0),
            st.binary(min_size=1, max_size=8),
        ),
        min_size=1,
        max_size=6,
    ),
    strict=st.booleans(),
)
def test_corpus_mutations(index: int, edits: list[tuple[str, int, bytes]], strict: bool) -> None:
    manifests = _corpus_manifests()
    if not manifests:
        pytest.skip("shared corpus not available")
    data = bytearray(manifests[index % len(manifests)])
    for op, pos, chunk in edits:
        at = pos % (len(data) + 1)
        if op == "flip" and data:
            data[at % len(data)] ^= chunk[0] or 1
        elif op == "insert":
            data[at:at] = chunk
        elif op == "delete":
            del data[at : at + len(chunk)]
        elif op == "truncate":
            del data[at:]
        else:
            data[at:at] = data[at : at + 64]
    _check(bytes(data), strict)


def test_corpus_manifests_are_all_parsed_or_refused(corpus: Path) -> None:
    manifests = _corpus_manifests()
    assert len(manifests) > 0
    for data in manifests:
        _check(data, False)
        _check(data, True)
