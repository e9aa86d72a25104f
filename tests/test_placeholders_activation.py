"""SPEC §29.4: what an agent sees at activation. ``${SKILL_DIR}`` and, in a Claude-style body,
``${CLAUDE_SKILL_DIR}`` are replaced by the skill's directory in ``SkillSession.activate`` and in
the MCP tool ``activate_skill``; ``load_skill().body`` and the ``SKILL.md`` served by
``resources/read`` stay as written."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agent_skills
from agent_skills import SkillError, create_agent_skills, resolve_config
from agent_skills._placeholders import DEFAULT_MAX_RENDERED_CHARS, dialect_of, expand_skill_dir
from agent_skills.agent import SkillSession
from conftest import make_skill, src_on_path

BODY = (
    "Run `${SKILL_DIR}/scripts/run.sh`, or in Claude Code `${CLAUDE_SKILL_DIR}/scripts/run.sh`.\n"
    "Read ${SKILL_DIR}/references/guide.md. Escaped: \\${SKILL_DIR}. Keep $ARGUMENTS, $0, $1.50\n"
    "and ${OTHER}.\n"
    "\n"
    "```bash\n"
    'python "${CLAUDE_SKILL_DIR}/scripts/x.py" "$1" \\${SKILL_DIR}\n'
    "```\n"
)


def _expected(body: str, skill_dir: str, *, claude: bool) -> str:
    """``BODY`` as the activation must show it (written out, not computed by the code)."""
    assert body == BODY
    claude_dir = skill_dir if claude else "${CLAUDE_SKILL_DIR}"
    return (
        f"Run `{skill_dir}/scripts/run.sh`, or in Claude Code `{claude_dir}/scripts/run.sh`.\n"
        f"Read {skill_dir}/references/guide.md. Escaped: ${{SKILL_DIR}}. Keep $ARGUMENTS, $0, "
        "$1.50\nand ${OTHER}.\n"
        "\n"
        "```bash\n"
        f'python "{claude_dir}/scripts/x.py" "$1" \\{skill_dir}\n'
        "```"
    )


def _body_of(content: str) -> str:
    """The body inside a ``<skill_content>`` block (up to the blank line before the directory)."""
    head, _, _ = content.partition("\n\nSkill directory: ")
    return head.split("\n", 1)[1]


@pytest.fixture
def roots(tmp_path: Path) -> dict[str, Path]:
    claude_root = tmp_path / "skills"
    make_skill(claude_root, "tool", body=BODY, files={"scripts/run.sh": "echo\n"})
    opencode_root = tmp_path / "opencode"
    make_skill(opencode_root, "oc-tool", body=BODY)
    return {"claude": claude_root, "opencode": opencode_root}


def _skills(roots: dict[str, Path]) -> Any:
    config = resolve_config(
        [
            {"path": roots["claude"], "source": "claude"},
            {"path": roots["opencode"], "source": "opencode"},
        ]
    )
    return agent_skills.AgentSkills(config)


def test_session_activation_replaces_the_directory_placeholders(roots: dict[str, Path]) -> None:
    skills = _skills(roots)
    session = SkillSession(skills)
    tool = session.activate("tool")
    assert _body_of(tool.content) == _expected(BODY, str(tool.skill_dir), claude=True)
    assert tool.skill_dir == roots["claude"] / "tool"
    # A body from a folder only opencode reads is in opencode's dialect.
    other = session.activate("oc-tool")
    assert _body_of(other.content) == _expected(BODY, str(other.skill_dir), claude=False)
    # What was written stays written: the body loaded, the manifest read.
    assert skills.load_skill("tool").body == BODY.rstrip("\n")  # (the parser's trim)
    manifest = (roots["claude"] / "tool" / "SKILL.md").read_bytes()
    assert skills.read_resource("tool", "SKILL.md") == manifest
    assert session.read_resource("tool", "SKILL.md") == manifest
    # Through the dispatcher, the same content.
    again = SkillSession(skills).handle_tool_call("activate_skill", {"name": "tool"})
    assert (again.is_error, again.text) == (False, tool.content)


def test_a_linked_skill_gets_the_directory_it_is_shown_at(tmp_path: Path) -> None:
    store = tmp_path / "store"
    make_skill(store, "linked", body="Use ${SKILL_DIR}/x and ${CLAUDE_SKILL_DIR}/y.")
    root = tmp_path / "skills"
    root.mkdir()
    os.symlink(store / "linked", root / "linked")
    activation = SkillSession(create_agent_skills([root])).activate("linked")
    shown = root / "linked"
    assert activation.skill_dir == shown
    assert _body_of(activation.content) == f"Use {shown}/x and {shown}/y."


def test_dialect_of_follows_the_root_source(roots: dict[str, Path]) -> None:
    skills = _skills(roots)
    assert {info.name: dialect_of(info) for info in skills.list_skills()} == {
        "oc-tool": "opencode",
        "tool": "claude",
    }
    plain = create_agent_skills([roots["claude"]])  # a root given as a path has no source
    assert [dialect_of(info) for info in plain.list_skills()] == ["claude"]


@pytest.mark.parametrize(
    ("body", "claude", "opencode"),
    [
        ("${SKILL_DIR}", "/d", "/d"),
        ("${CLAUDE_SKILL_DIR}", "/d", "${CLAUDE_SKILL_DIR}"),
        ("\\${SKILL_DIR}", "${SKILL_DIR}", "${SKILL_DIR}"),
        ("\\${CLAUDE_SKILL_DIR}", "${CLAUDE_SKILL_DIR}", "\\${CLAUDE_SKILL_DIR}"),
        ("`\\${SKILL_DIR}`", "`\\/d`", "`\\/d`"),  # in code a backslash is only a backslash
        ("$SKILL_DIR {SKILL_DIR} ${skill_dir}", "$SKILL_DIR {SKILL_DIR} ${skill_dir}", None),
        ("$ARGUMENTS $0 \\$1 $1.5", "$ARGUMENTS $0 \\$1 $1.5", None),
        ("${SKILL_DIR}${SKILL_DIR}", "/d/d", "/d/d"),
        ("", "", ""),
    ],
)
def test_expand_skill_dir(body: str, claude: str, opencode: str | None) -> None:
    assert expand_skill_dir(body, "/d") == claude
    assert expand_skill_dir(body, Path("/d"), dialect="opencode") == (opencode or claude)


def test_expand_skill_dir_checks_its_arguments() -> None:
    for call in (
        lambda: expand_skill_dir(b"x", "/d"),  # type: ignore[arg-type]
        lambda: expand_skill_dir("x", 3),  # type: ignore[arg-type]
        lambda: expand_skill_dir("x", "/d", dialect="vim"),  # type: ignore[arg-type]
    ):
        with pytest.raises(SkillError) as caught:
            call()
        assert caught.value.code.value == "invalid_input"


_TEXT = st.text(alphabet="ab$\\{}`~_ \nSKILDRCAUE", max_size=60)
# Prose only (no backticks or tildes, so no code span or fence).
_PROSE = st.text(alphabet="ab$\\{}_ \nSKILDRCAUE", max_size=60)
_PLACEHOLDER = re.compile(r"\\?\$\{(?:SKILL_DIR|CLAUDE_SKILL_DIR)\}")


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(body=_TEXT)
def test_a_body_without_the_placeholders_is_returned_as_it_is(body: str) -> None:
    if "${SKILL_DIR}" in body or "${CLAUDE_SKILL_DIR}" in body:
        return
    assert expand_skill_dir(body, "/d") == body
    assert expand_skill_dir(body, "/d", dialect="opencode") == body


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(body=_PROSE)
def test_in_prose_nothing_but_the_placeholders_changes(body: str) -> None:
    # With a directory no text holds, taking it back out gives the body with each placeholder
    # taken out and each escaped one written as the placeholder.
    marker = "\x00"
    out = expand_skill_dir(body, marker)
    expected = _PLACEHOLDER.sub(lambda m: m.group()[1:] if m.group()[0] == "\\" else "", body)
    assert out.replace(marker, "") == expected


@pytest.mark.slow
@pytest.mark.live
def test_mcp_activate_skill_replaces_and_resources_read_does_not(roots: dict[str, Path]) -> None:
    pytest.importorskip("mcp")
    import anyio
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_skills.mcp", "--preset", "none", "--root", str(roots["claude"])],
        env=src_on_path(),
    )
    manifest = (roots["claude"] / "tool" / "SKILL.md").read_text()

    async def go() -> None:
        async with Client(params, mode="legacy", cache=None) as client:
            result = await client.call_tool("activate_skill", {"name": "tool"})
            (block,) = result.content
            assert isinstance(block, types.TextContent)
            shown = str(roots["claude"] / "tool")
            assert _body_of(block.text) == _expected(BODY, shown, claude=True)
            read = await client.read_resource("skill://tool/SKILL.md")
            (content,) = read.contents
            assert isinstance(content, types.TextResourceContents)
            assert content.text == manifest
            prompt = await client.get_prompt("tool")  # prompts: the claude dialect (SPEC §22.9)
            message = prompt.messages[0].content
            assert isinstance(message, types.TextContent)
            assert message.text.startswith(f"Run `{shown}/scripts/run.sh`, or in Claude Code ")

    anyio.run(go)


def test_expand_skill_dir_is_bounded() -> None:
    # SPEC §30.6: a body of placeholders in a deep directory would build gigabytes.
    body = "${SKILL_DIR}" * 100_000  # 1.2 MB of body
    deep = "/" + "d" * 4095
    with pytest.raises(SkillError) as caught:
        expand_skill_dir(body, deep)
    assert (caught.value.code.value, caught.value.fields) == (
        "too_large",
        {"max_chars": DEFAULT_MAX_RENDERED_CHARS},
    )
    assert str(caught.value) == (
        f"the skill's text with its skill directory would be longer than "
        f"{DEFAULT_MAX_RENDERED_CHARS} characters"
    )
    assert expand_skill_dir("${SKILL_DIR}", "/" + "a" * 11, max_chars=12) == "/" + "a" * 11
    with pytest.raises(SkillError) as caught:
        expand_skill_dir("${SKILL_DIR}", "/" + "a" * 12, max_chars=12)
    assert caught.value.fields == {"max_chars": 12}
    with pytest.raises(SkillError) as caught:
        expand_skill_dir("x" * 13, "/d", max_chars=12)  # a body over the bound as it is
    assert caught.value.fields == {"max_chars": 12}


def test_an_activation_that_would_be_too_large_is_refused(tmp_path: Path) -> None:
    deep = tmp_path / "skills"
    for part in range(60):
        deep = deep / ("p" * 60 + str(part))
    make_skill(deep, "many", body="${SKILL_DIR}\n" * 70_000)  # under 1 MiB
    session = SkillSession(create_agent_skills([deep]))
    result = session.handle_tool_call("activate_skill", {"name": "many"})
    assert result.is_error
    assert result.text == (
        "too_large: the skill's text with its skill directory would be longer than "
        f"{DEFAULT_MAX_RENDERED_CHARS} characters"
    )
    assert session.active_skills() == []
