"""SPEC §22.8: ``render_skill``, arguments of user-invoked skills, in both dialects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import SkillError
from agent_skills._placeholders import Dialect
from agent_skills.agent import render_skill


def claude(body: str, arguments: Any = "a b") -> str:
    return render_skill(body, arguments, skill_dir="/s/dir")


def opencode(body: str, arguments: Any = "a b") -> str:
    return render_skill(body, arguments, skill_dir="/s/dir", dialect="opencode")


@pytest.mark.parametrize(
    ("body", "claude_text", "opencode_text"),
    [
        ("$ARGUMENTS", "a b", "a b"),
        ("$0 and $1", "a and b", "$0 and a"),
        ("$ARGUMENTS[0]/$ARGUMENTS[1]", "a/b", "$ARGUMENTS[0]/a"),
        ("$2", "$2", "b"),
        ("$3", "$3", "$3"),  # no value: kept verbatim
        ("${SKILL_DIR}/x", "/s/dir/x", "/s/dir/x"),
        ("${CLAUDE_SKILL_DIR}/x", "/s/dir/x", "${CLAUDE_SKILL_DIR}/x"),
        ("costs $0.06 or $1.5", "costs $0.06 or $1.5", "costs $0.06 or $1.5"),
        ("$1. Then", "b. Then", "a. Then"),  # "." not followed by a digit
        ("$10", "$10", "$10"),
        ("\\$1 \\$ARGUMENTS", "$1 $ARGUMENTS", "$1 $ARGUMENTS"),
        ("$ARGUMENTSX $ARGUMENTS_1", "$ARGUMENTSX $ARGUMENTS_1", "$ARGUMENTSX $ARGUMENTS_1"),
        ("$", "$", "$"),
        ("$$1", "$b", "$a"),
    ],
)
def test_placeholders(body: str, claude_text: str, opencode_text: str) -> None:
    assert claude(body) == claude_text
    assert opencode(body) == opencode_text


def test_price_with_many_digits() -> None:
    assert claude("$123.45 and $12", "x") == "$123.45 and $12"
    assert claude("$0.06", "x") == "$0.06"


def test_no_arguments() -> None:
    assert claude("run $ARGUMENTS now", "") == "run  now"
    assert claude("run $ARGUMENTS now", []) == "run  now"
    assert claude("$0", "") == "$0"


def test_shell_splitting() -> None:
    assert claude("[$0] [$1] [$ARGUMENTS]", 'one "two three"') == (
        "[one] [two three] [one two three]"
    )
    # An unbalanced quote falls back to whitespace.
    assert claude("[$0] [$1]", 'one "two') == '[one] ["two]'
    assert claude("[$0] [$1]", ["x y", "z"]) == "[x y] [z]"


def test_code_is_protected_but_skill_dir_is_not() -> None:
    body = (
        "Use $0 with `cmd $1 ${SKILL_DIR}` here.\n"
        "```bash\n"
        "echo $ARGUMENTS $1 \\$2\n"
        "${SKILL_DIR}/scripts/run.sh ${CLAUDE_SKILL_DIR}\n"
        "```\n"
        "After: $1\n"
    )
    assert claude(body) == (
        "Use a with `cmd $1 /s/dir` here.\n"
        "```bash\n"
        "echo $ARGUMENTS $1 \\$2\n"
        "/s/dir/scripts/run.sh /s/dir\n"
        "```\n"
        "After: b\n"
    )


def test_fences() -> None:
    body = "~~~~\n$0\n~~~\n$0\n~~~~\n$0\n   ```\n$0\n```\n$0"
    # A tilde fence closes only with a tilde run at least as long; a fence may be indented.
    assert claude(body) == "~~~~\n$0\n~~~\n$0\n~~~~\na\n   ```\n$0\n```\na"
    # An unclosed fence runs to the end.
    assert claude("$0\n```\n$0\n$1") == "a\n```\n$0\n$1"
    # A backtick fence whose info string holds a backtick is not a fence.
    assert claude("``` a`b\n$0\n") == "``` a`b\na\n"
    # Four spaces is not a fence.
    assert claude("    ```\n$0\n") == "    ```\na\n"


def test_inline_spans() -> None:
    assert claude("``$0 ` $1`` $0") == "``$0 ` $1`` a"
    assert claude("`$0` `unclosed $1") == "`$0` `unclosed b"
    # A span ends with a run of the same length.
    assert claude("`$0`` $1 `") == "`$0`` $1 `"
    # A span never crosses a blank line.
    assert claude("`open $0\n\n$1 close`") == "`open a\n\nb close`"
    # A span may cross one line break.
    assert claude("`open $0\n$1 close`") == "`open $0\n$1 close`"


def test_pathlike_skill_dir() -> None:
    assert render_skill("${SKILL_DIR}", "", skill_dir=Path("/p/q")) == "/p/q"


@pytest.mark.parametrize(
    ("kwargs", "fields"),
    [
        ({"body": 3, "arguments": ""}, {"type": "int"}),
        ({"body": "", "arguments": 3}, {"type": "int"}),
        ({"body": "", "arguments": b"x"}, {"type": "bytes"}),
        ({"body": "", "arguments": ["a", 1]}, {"type": "int"}),
        (
            {"body": "", "arguments": "", "dialect": "codex"},
            {"dialect": "'codex'", "choices": ["claude", "opencode"]},
        ),
        ({"body": "", "arguments": "", "skill_dir": 5}, {"type": "int"}),
    ],
)
def test_bad_input(kwargs: dict[str, Any], fields: dict[str, Any]) -> None:
    kwargs.setdefault("skill_dir", "/d")
    with pytest.raises(SkillError) as exc:
        render_skill(**kwargs)
    assert (exc.value.code, exc.value.fields) == ("invalid_input", fields)


TEXT = st.text(alphabet=st.sampled_from("ab $`~\\{}\n.0123ARGUMENTS[]_SKILDR"), max_size=80)


@settings(max_examples=300, deadline=None)
@given(body=TEXT, arguments=st.lists(st.text(alphabet="xy z", max_size=3), max_size=3))
def test_properties(body: str, arguments: list[str]) -> None:
    out = render_skill(body, arguments, skill_dir="/D")
    assert isinstance(out, str)
    # Without placeholders or escapes the body is unchanged.
    if "$" not in body:
        assert out == body
    # Placeholders never produce other text than the arguments, the directory or themselves.
    if not arguments and "${" not in body and "\\$" not in body:
        assert out.replace("$ARGUMENTS", "") == body.replace("$ARGUMENTS", "") or "`" in body


def test_linear_time_on_hostile_input() -> None:
    # Many unmatched backtick runs and dollar signs: one pass, no quadratic work.
    body = ("`" * 3 + " $1 " + "``" + " $ARGUMENTS[") * 20_000
    out = render_skill(body, "x", skill_dir="/d")
    # Every "$ARGUMENTS" is substituted (in prose) or kept (in a span), and nothing else changes.
    assert out.count("x[") + out.count("$ARGUMENTS[") == 20_000
    assert out.replace("x[", "$ARGUMENTS[").replace(" x ", " $1 ") == body


@pytest.mark.parametrize(
    ("body", "arguments", "dialect"),
    [
        ("$0 " * 100_000, "a" * 200, "claude"),  # 20 M characters of one argument
        ("$2" * 100_000, ["x", "y" * 500], "opencode"),
        ("$ARGUMENTS\n" * 50_000, ["word"] * 200, "claude"),
        ("$ARGUMENTS[0]" * 50_000, "z" * 400, "claude"),
        ("```\n" + "${SKILL_DIR}" * 100_000 + "\n```\n", "", "claude"),  # in code
        ("`${CLAUDE_SKILL_DIR}`" * 100_000, "", "claude"),
    ],
    ids=["dollar-0", "dollar-2", "arguments", "arguments-index", "dir-in-code", "dir-in-span"],
)
def test_the_result_is_bounded_while_it_is_built(
    body: str, arguments: str | list[str], dialect: Dialect
) -> None:
    """SPEC §30.6: a placeholder-heavy body with long arguments is refused with ``too_large``
    before the result is built; memory stays near the bound, far from the result's size."""
    import tracemalloc

    skill_dir = "/s/" + "d" * 300
    tracemalloc.start()
    try:
        with pytest.raises(SkillError) as info:
            render_skill(body, arguments, skill_dir=skill_dir, dialect=dialect, max_chars=1_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (info.value.code.value, info.value.fields) == ("too_large", {"max_chars": 1_000_000})
    assert peak < 40 * 1024 * 1024


def test_the_default_bound_is_16_mi_characters() -> None:
    body = "$0 " * 100_000
    with pytest.raises(SkillError) as default:
        render_skill(body, "q" * 200, skill_dir="/d")  # 20 M characters
    assert default.value.fields == {"max_chars": 16 * 1024 * 1024}
    assert len(render_skill(body, "q" * 100, skill_dir="/d")) == 10_100_000


def test_results_up_to_the_bound_are_whole() -> None:
    body = "$0" * 10
    assert render_skill(body, "abc", skill_dir="/d", max_chars=30) == "abc" * 10
    with pytest.raises(SkillError) as info:
        render_skill(body, "abc", skill_dir="/d", max_chars=29)
    assert (info.value.code.value, info.value.fields) == ("too_large", {"max_chars": 29})
    with pytest.raises(SkillError) as body_itself:
        render_skill("x" * 11, "", skill_dir="/d", max_chars=10)
    assert body_itself.value.fields == {"max_chars": 10}
    for bad in (-1, 1.5, True, "10"):
        with pytest.raises(SkillError) as wrong:
            render_skill("x", "", skill_dir="/d", max_chars=bad)  # type: ignore[arg-type]
        assert wrong.value.code == "invalid_input"
