"""SPEC §22.4 and §22.8 over MCP: ``prompts/get`` takes ``arguments`` and serves the current body;
``activate_skill`` serves the current body with the bounded listing."""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
import mcp_types as types
from mcp import Client

from agent_skills import create_agent_skills
from agent_skills.mcp import PROMPT_ARGUMENT, build_server
from conftest import make_skill
from mcp_support import error_of

BODY = (
    "Review $0 with level $1 (all: $ARGUMENTS); it costs $0.06.\n"
    "Run `check $0` then:\n"
    "```sh\n${CLAUDE_SKILL_DIR}/scripts/run.sh $ARGUMENTS\n```\n"
)


def _run(root: Path, body: Callable[[Client], Awaitable[None]], mode: str = "legacy") -> None:
    server = build_server(create_agent_skills([root]))

    async def go() -> None:
        async with Client(server, mode=mode, cache=None) as client:
            await body(client)

    anyio.run(go)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    make_skill(
        root, "review", body=BODY, files={f"references/r{i:03d}.md": "r" for i in range(105)}
    )
    return root


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_prompt_declares_and_applies_arguments(root: Path, mode: str) -> None:
    skill_dir = (root / "review").absolute()

    async def body(client: Client) -> None:
        listed = (await client.list_prompts()).prompts
        assert [(a.name, a.required) for a in listed[0].arguments or []] == [
            (PROMPT_ARGUMENT, False)
        ]
        got = await client.get_prompt("review", {"arguments": 'api.yaml "very strict"'})
        assert [(m.role, m.content) for m in got.messages] == [
            (
                "user",
                types.TextContent(
                    text=(
                        "Review api.yaml with level very strict (all: api.yaml very strict); "
                        "it costs $0.06.\n"
                        "Run `check $0` then:\n"
                        f"```sh\n{skill_dir}/scripts/run.sh $ARGUMENTS\n```"
                    )
                ),
            )
        ]
        bare = await client.get_prompt("review")
        assert isinstance(bare.messages[0].content, types.TextContent)
        assert bare.messages[0].content.text.startswith("Review $0 with level $1 (all: );")

    _run(root, body, mode)


def test_prompt_and_activation_serve_the_current_body(root: Path) -> None:
    server_root = root

    async def body(client: Client) -> None:
        make_skill(server_root, "review", body="Edited: $ARGUMENTS")
        got = await client.get_prompt("review", {"arguments": "x"})
        assert got.messages[0].content == types.TextContent(text="Edited: x")
        result = await client.call_tool("activate_skill", {"name": "review"})
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.startswith('<skill_content name="review">\nEdited: $ARGUMENTS\n')
        assert text.count("<file>") == 100
        assert '<truncated total="105"/>' in text
        (server_root / "review" / "SKILL.md").write_text("broken", encoding="utf-8")
        code, message = await error_of(client.get_prompt("review"))
        assert code == -32603
        assert message.startswith("prompt 'review' cannot be built: invalid_skill: ")
        failed = await client.call_tool("activate_skill", {"name": "review"})
        assert failed.is_error is True
        assert failed.content[0].text.startswith("invalid_skill: ")  # type: ignore[union-attr]

    _run(root, body)


def test_prompt_arguments_any_value(root: Path) -> None:
    async def body(client: Client) -> None:
        got = await client.get_prompt("review", {"arguments": "'unbalanced", "other": "x"})
        text: Any = got.messages[0].content
        assert text.text.startswith("Review 'unbalanced with level $1 (all: 'unbalanced);")

    _run(root, body)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    ("body", "argument"),
    [
        ("$0 " * 200_000, "a" * 100),  # 20 M characters
        ("$ARGUMENTS\n" * 80_000, "b " * 150),
        ("$ARGUMENTS[0]$0" * 40_000, "c" * 300),
    ],
    ids=["dollar-0", "arguments", "both"],
)
def test_a_prompt_past_the_bound_is_a_json_rpc_error_and_the_server_goes_on(
    tmp_path: Path, mode: str, body: str, argument: str
) -> None:
    """SPEC §30.4, §30.6: ``prompts/get`` of a placeholder-heavy body with a long argument is
    refused with an internal error (-32603) naming ``too_large``, never code 0; the server then
    answers ``ping`` (the 2025 revision; 2026 has none) and the next prompt."""
    root = tmp_path / "skills"
    make_skill(root, "bomb", body=body)
    make_skill(root, "fine", body="Do $0.")

    async def run(client: Client) -> None:
        code, message = await error_of(client.get_prompt("bomb", {"arguments": argument}))
        assert code == -32603
        assert message == (
            "prompt 'bomb' cannot be built: too_large: the skill's text with its arguments "
            f"would be longer than {16 * 1024 * 1024} characters"
        )
        if mode == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the SDK notes ping's removal in 2026)
                await client.send_ping()
        assert [p.name for p in (await client.list_prompts()).prompts] == ["bomb", "fine"]
        got = await client.get_prompt("fine", {"arguments": "it"})
        assert got.messages[0].content == types.TextContent(text="Do it.")

    _run(root, run, mode)


@pytest.mark.slow
def test_a_long_argument_string_does_not_hold_the_server(root: Path) -> None:
    # SPEC §30.4: one request never stops the server. Splitting megabytes of arguments as a
    # shell would takes seconds; the server answers other requests meanwhile.
    order: list[str] = []

    async def body(client: Client) -> None:
        async def long_prompt() -> None:
            got = await client.get_prompt("review", {"arguments": "ab " * 2_000_000})
            order.append("prompt")
            assert isinstance(got.messages[0].content, types.TextContent)
            assert got.messages[0].content.text.startswith("Review ab with level ab (all: ab ab")

        async with anyio.create_task_group() as group:
            group.start_soon(long_prompt)
            await anyio.sleep(0.3)
            with anyio.fail_after(5):
                listed = await client.list_prompts()
            order.append("list")
            assert [p.name for p in listed.prompts] == ["review"]

    _run(root, body)
    assert order == ["list", "prompt"]
