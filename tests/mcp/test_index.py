"""The discovery index ``skill://index.json`` beside ``skills/list`` (SPEC §29.1), and the
``data: {"uri"}`` of every ``-32602`` that ``resources/read`` answers.

The index is checked value by value against ``skills/list`` (names, order, URIs, descriptions and
the ``SKILL.md`` digests), on both transports and both protocol eras, and under ``serve --watch``
after an add, a change and a removal.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
import mcp_types as types
from mcp import Client, MCPError

from agent_skills import create_agent_skills
from agent_skills.mcp import PAGE_SIZE, SkillServer
from agent_skills.mcp._publish import INDEX_SCHEMA, INDEX_URI
from conftest import make_skill
from mcp_support import GetParams as _GetParams
from mcp_support import GetSkill as _GetSkill
from mcp_support import (
    Notes,
    Raw,
    add_invocation_skills,
    digest,
    list_all_skills,
    run_client,
    server_of,
    write_until_notified,
)

WAIT = 20.0  # seconds: the most a test waits for one event on this shared machine


# In-process, and over stdio: a real process (SDK client and server).
TRANSPORTS = ["inprocess", pytest.param("stdio", marks=[pytest.mark.slow, pytest.mark.live])]


def _serve(root: Path, transport: str, *extra: str) -> Any:
    return server_of([root], transport, *extra)


async def _index(client: Client) -> dict[str, Any]:
    result = await client.read_resource(INDEX_URI)
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    assert (content.uri, content.mime_type) == (INDEX_URI, "application/json")
    value = json.loads(content.text)
    assert isinstance(value, dict)
    return value


def index_names(index: dict[str, Any]) -> list[str]:
    return [entry["name"] for entry in index["skills"]]


def _expected_index(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The index the ``skills/list`` entries call for (SPEC §29.1)."""
    return {
        "$schema": INDEX_SCHEMA,
        "skills": [
            {
                "name": entry["frontmatter"]["name"],
                "type": "skill-md",
                "description": entry["frontmatter"]["description"],
                "url": entry["uri"],
                "digest": entry["resources"][0]["digest"],
            }
            for entry in entries
        ],
    }


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp-index") / "skills"
    make_skill(
        root,
        "alpha",
        frontmatter={"name": "alpha", "description": 'Alpha: "quotes", café & <tags>.'},
        files={"references/guide.md": "# Guide\n"},
    )
    add_invocation_skills(root)  # beta, gamma, and Bad_Name, which is not published
    return root


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    "transport", ["inprocess", pytest.param("stdio", marks=[pytest.mark.slow, pytest.mark.live])]
)
def test_the_index_names_what_skills_list_names(tree: Path, transport: str, mode: str) -> None:
    async def body(client: Client) -> None:
        index = await _index(client)
        entries = await list_all_skills(client)
        assert index == _expected_index(entries)
        names = ["alpha", "beta", "gamma"]
        assert index_names(index) == names
        assert [e["digest"] for e in index["skills"]] == [
            digest((tree / name / "SKILL.md").read_bytes()) for name in names
        ]
        assert index["skills"][0]["description"] == 'Alpha: "quotes", café & <tags>.'
        # Listed last in resources/list, after one SKILL.md per skill; never a skill itself.
        listed = (await client.list_resources()).resources
        assert [str(r.uri) for r in listed] == [*(e["url"] for e in index["skills"]), INDEX_URI]
        with pytest.raises(MCPError) as caught:
            await client.session.send_request(_GetSkill(params=_GetParams(uri=INDEX_URI)), Raw)
        assert caught.value.code == -32602

    run_client(_serve(tree, transport), mode, body)


def test_the_index_is_one_document_over_many_pages(tmp_path: Path) -> None:
    root = tmp_path / "many"
    names = [f"skill-{i:03d}" for i in range(PAGE_SIZE + 3)]
    for name in names:
        make_skill(root, name)

    async def body(client: Client) -> None:
        index = await _index(client)
        entries = await list_all_skills(client)
        assert len(entries) == PAGE_SIZE + 3
        assert index == _expected_index(entries)
        assert index_names(index) == names

    run_client(_serve(root, "inprocess"), "auto", body)


def test_the_index_text_is_exact(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill = make_skill(root, "one", frontmatter={"name": "one", "description": "The first."})
    data = (skill / "SKILL.md").read_bytes()
    served = SkillServer(create_agent_skills([root]))

    async def body(client: Client) -> None:
        result = await client.read_resource("skill://index.json")
        (content,) = result.contents
        assert isinstance(content, types.TextResourceContents)
        assert content.text == (
            '{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", '
            '"skills": [{"name": "one", "type": "skill-md", "description": "The first.", '
            f'"url": "skill://one/SKILL.md", "digest": "{digest(data)}"}}]}}'
        )
        # A percent-encoded spelling of the same URI reads the same index.
        again = await client.read_resource("skill://index%2Ejson")
        assert again.contents == result.contents

    run_client(served.server, "legacy", body)


# -- -32602 from resources/read carries the URI asked for ----------------------------------------


UNKNOWN_OR_MALFORMED = [
    "skill://alpha/.env",
    "skill://alpha/nope.md",
    "skill://nope/SKILL.md",
    "skill://Bad_Name/SKILL.md",
    "skill://index.json/x",
    "skill://alpha/../beta/SKILL.md",
    "skill://alpha/%2e%2e/beta/SKILL.md",
    "skill://alpha/references%2fguide.md",
    "skill://alpha/SKILL.md?x=1",
    "skill://index.json?x=1",
    "skill://alpha/SKILL.md#top",
    "skill://alpha/%ff.md",
    "skill://",
    "file:///etc/passwd",
]


@pytest.mark.parametrize(
    "transport", ["inprocess", pytest.param("stdio", marks=[pytest.mark.slow, pytest.mark.live])]
)
def test_every_invalid_params_of_resources_read_names_the_uri(tree: Path, transport: str) -> None:
    async def body(client: Client) -> None:
        for uri in UNKNOWN_OR_MALFORMED:
            with pytest.raises(MCPError) as caught:
                await client.read_resource(uri)
            assert (uri, caught.value.code, caught.value.data) == (uri, -32602, {"uri": uri})
        # Other requests keep their plain -32602.
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("nope")
        assert (caught.value.code, caught.value.data) == (-32602, None)

    run_client(_serve(tree, transport), "legacy", body)


def test_a_file_gone_since_it_was_hashed_is_not_found_with_its_uri(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill = make_skill(root, "gone", files={"a.md": "a\n", "b.md": "b\n"})
    served = SkillServer(create_agent_skills([root]))
    (skill / "a.md").unlink()
    (skill / "b.md").write_text("changed\n")

    async def body(client: Client) -> None:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://gone/a.md")
        assert (caught.value.code, caught.value.data) == (-32602, {"uri": "skill://gone/a.md"})
        # A file changed on disk is a failure, not a miss: -32603 without data.
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://gone/b.md")
        assert (caught.value.code, caught.value.data) == (-32603, None)

    run_client(served.server, "legacy", body)


# -- kept current under --watch ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.live
def test_serve_watch_keeps_the_index_and_skills_list_in_step(tmp_path: Path) -> None:
    pytest.importorskip("watchfiles")
    root = tmp_path / "skills"
    make_skill(root, "alpha", files={"references/guide.md": "one\n"})
    staging = tmp_path / "staging"
    server = _serve(root, "stdio", "--watch")
    notes = Notes()

    async def same(client: Client) -> list[str]:
        index = await _index(client)
        entries = await list_all_skills(client)
        assert index == _expected_index(entries)
        return index_names(index)

    async def changed(client: Client, change: Callable[[], object]) -> None:
        notes.reset()
        change()
        with anyio.fail_after(WAIT):
            await notes.got_all.wait()

    async def go() -> None:
        async with Client(server, mode="legacy", cache=None, message_handler=notes) as client:
            assert await same(client) == ["alpha"]
            # The watcher starts with the server: write until the first notification arrives.
            guide = root / "alpha" / "references" / "guide.md"
            await write_until_notified(guide, notes, WAIT)
            # Added.
            make_skill(staging, "beta")
            await changed(client, lambda: os.rename(staging / "beta", root / "beta"))
            assert await same(client) == ["alpha", "beta"]
            # Changed: the new description and the new digest.
            manifest = root / "alpha" / "SKILL.md"
            edited = "---\nname: alpha\ndescription: Edited.\n---\nNew.\n"
            await changed(client, lambda: manifest.write_text(edited))
            index = await _index(client)
            assert index["skills"][0] == {
                "name": "alpha",
                "type": "skill-md",
                "description": "Edited.",
                "url": "skill://alpha/SKILL.md",
                "digest": digest(edited.encode()),
            }
            assert await same(client) == ["alpha", "beta"]
            # Removed.
            await changed(client, lambda: shutil.rmtree(root / "beta"))
            assert await same(client) == ["alpha"]

    anyio.run(go)
