"""The MCP server (SPEC §17), exercised by independent clients.

The official Python SDK client talks to ``python -m agent_skills.mcp`` over stdio (and once over
streamable HTTP); the MCP Inspector CLI verifies digests and frontmatter of every served skill.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from pydantic import TypeAdapter

import agent_skills
from agent_skills import create_agent_skills
from agent_skills.mcp import EXTENSION_ID, PAGE_SIZE, build_server
from conftest import CORPUS, make_skill, symlink
from mcp_support import (
    GetParams,
    GetSkill,
    ListSkills,
    add_invocation_skills,
    digest,
    error_of,
)

SRC = Path(agent_skills.__file__).resolve().parents[1]
REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "skills"
INSPECTOR_VERSION = "2.12.0"
INSPECTOR_JS = (
    REPO
    / ".ci"
    / "node_modules"
    / "@modelcontextprotocol"
    / "inspector"
    / "clients"
    / "cli"
    / "build"
    / "index.js"
)
RAW = TypeAdapter(dict[str, Any])
MODES = ["legacy", "auto"]

SECRET = b"TOP SECRET, never served\n"
CRLF_BOM = b"\xef\xbb\xbfline one\r\nline two\r\n"
BINARY = bytes(range(256))


ALPHA_MANIFEST = (
    "---\n"
    "name: alpha\n"
    "description: Alpha does things.\n"
    "version: 2024-01-01\n"
    "metadata:\n"
    "  enabled: yes\n"
    "  mode: off\n"
    "---\n"
    "# Alpha\n\nRead references/guide.md first.\n"
)


def _build_tree(base: Path) -> Path:
    """A root with published, unpublished, hidden and linked content; returns the root."""
    root = base / "skills"
    (base / "secret.txt").write_bytes(SECRET)
    alpha = make_skill(
        root,
        "alpha",
        raw=ALPHA_MANIFEST,
        files={
            "references/guide.md": "# Guide\n",
            "scripts/run.py": "print('hi')\n",
            "assets/data.bin": BINARY,
            "notes/crlf.txt": CRLF_BOM,
            "refund note.md": "spaces\n",
            "café.md": "accent\n",
            ".env": SECRET,
            "__pycache__/x.pyc": b"\0",
        },
    )
    symlink(alpha / "leak.txt", base / "secret.txt")
    symlink(alpha / "references" / "missing.md", "nowhere.md")
    symlink(alpha / "alias.md", "references/guide.md")
    add_invocation_skills(root)
    make_skill(
        root,
        "repaired",
        raw="---\nname: repaired\ndescription: Use it: when needed\n---\nRepaired body.\n",
    )
    make_skill(
        root,
        "nested-meta",
        raw="---\nname: nested-meta\ndescription: Meta.\nmetadata:\n  tags: [a, b]\n---\nBody.\n",
    )
    return root


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_tree(tmp_path_factory.mktemp("mcp"))


def _params(*roots: Path) -> StdioServerParameters:
    args = ["-m", "agent_skills.mcp", "--preset", "none"]
    for root in roots:
        args += ["--root", str(root)]
    return StdioServerParameters(
        command=sys.executable,
        args=args,
        env={"PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])},
    )


def _run(
    server: StdioServerParameters | Any, mode: str, body: Callable[[Client], Awaitable[None]]
) -> None:
    async def main() -> None:
        async with Client(server, mode=mode, cache=None) as client:
            await body(client)

    anyio.run(main)


async def _list_page(client: Client, cursor: str | None = None) -> dict[str, Any]:
    request = ListSkills(params=types.PaginatedRequestParams(cursor=cursor))
    return await client.session.send_request(request, RAW)


async def _get(client: Client, uri: str | None) -> dict[str, Any]:
    return await client.session.send_request(GetSkill(params=GetParams(uri=uri)), RAW)


def _expected_alpha_files(tree: Path) -> dict[str, bytes]:
    """Every file the alpha manifest must list: SKILL.md plus load_skill's resources."""
    alpha = tree / "alpha"
    rels = [
        "SKILL.md",
        "alias.md",
        "assets/data.bin",
        "café.md",
        "notes/crlf.txt",
        "references/guide.md",
        "refund note.md",
        "scripts/run.py",
    ]
    return {rel: (alpha / rel).read_bytes() for rel in rels}


ALPHA_URIS = {
    "SKILL.md": "skill://alpha/SKILL.md",
    "alias.md": "skill://alpha/alias.md",
    "assets/data.bin": "skill://alpha/assets/data.bin",
    "café.md": "skill://alpha/caf%C3%A9.md",
    "notes/crlf.txt": "skill://alpha/notes/crlf.txt",
    "references/guide.md": "skill://alpha/references/guide.md",
    "refund note.md": "skill://alpha/refund%20note.md",
    "scripts/run.py": "skill://alpha/scripts/run.py",
}


# -- capabilities -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_extension_declared_on_every_era(tree: Path, mode: str) -> None:
    async def body(client: Client) -> None:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        caps = client.server_capabilities
        assert caps.extensions == {EXTENSION_ID: {}}
        assert caps.resources is not None
        assert caps.tools is not None
        assert caps.prompts is not None

    _run(_params(tree), mode, body)


def test_legacy_initialize_result_carries_extension_on_the_wire(tree: Path) -> None:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    params = _params(tree)
    proc = subprocess.run(
        [params.command, *params.args],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        env={**os.environ, **(params.env or {})},
        timeout=60,
        check=False,
    )
    response = json.loads(proc.stdout.splitlines()[0])
    assert response["result"]["protocolVersion"] == "2025-06-18"
    assert response["result"]["capabilities"]["extensions"] == {EXTENSION_ID: {}}


# -- skills/list and skills/get -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_skills_list_entries_and_digests(tree: Path, mode: str) -> None:
    files = _expected_alpha_files(tree)

    async def body(client: Client) -> None:
        page = await _list_page(client)
        if mode == "legacy":
            assert set(page) == {"skills"}
        else:
            assert (page["ttlMs"], page["cacheScope"], page["resultType"]) == (
                0,
                "private",
                "complete",
            )
            assert "nextCursor" not in page
        uris = [entry["uri"] for entry in page["skills"]]
        assert uris == ["skill://alpha/SKILL.md", "skill://beta/SKILL.md", "skill://gamma/SKILL.md"]
        alpha = page["skills"][0]
        assert set(alpha) == {"uri", "frontmatter", "resources"}
        # YAML 1.2 core typing, verbatim: yes/off and dates stay strings.
        assert alpha["frontmatter"] == {
            "name": "alpha",
            "description": "Alpha does things.",
            "version": "2024-01-01",
            "metadata": {"enabled": "yes", "mode": "off"},
        }
        assert alpha["resources"] == [
            {"uri": ALPHA_URIS[rel], "digest": digest(data), "size": len(data)}
            for rel, data in files.items()
        ]
        beta = page["skills"][1]
        beta_manifest = (tree / "beta" / "SKILL.md").read_bytes()
        assert beta["resources"] == [
            {
                "uri": "skill://beta/SKILL.md",
                "digest": digest(beta_manifest),
                "size": len(beta_manifest),
            }
        ]
        assert beta["frontmatter"] == {
            "name": "beta",
            "description": "Beta is for users only.",
            "disable-model-invocation": True,
        }

    _run(_params(tree), mode, body)


def test_alpha_manifest_is_exactly_skill_md_plus_listed_resources(tree: Path) -> None:
    skills = create_agent_skills([tree])
    content = skills.load_skill("alpha")
    assert content is not None
    listed = ["SKILL.md", *(r.rel for r in content.resources)]
    assert sorted(listed) == sorted(_expected_alpha_files(tree))

    async def body(client: Client) -> None:
        page = await _list_page(client)
        served = sorted(r["uri"] for r in page["skills"][0]["resources"])
        assert served == sorted(ALPHA_URIS.values())

    _run(build_server(skills), "auto", body)


@pytest.mark.parametrize("mode", MODES)
def test_skills_get(tree: Path, mode: str) -> None:
    async def body(client: Client) -> None:
        listing = (await _list_page(client))["skills"]
        for entry in listing:
            got = await _get(client, entry["uri"])
            assert got["skill"] == entry
            assert "nextCursor" not in got
            if mode == "legacy":
                assert set(got) == {"skill"}
            else:
                assert (got["ttlMs"], got["cacheScope"], got["resultType"]) == (
                    0,
                    "private",
                    "complete",
                )
        # Another spelling of the same URI reaches the same skill.
        assert (await _get(client, "skill://%61lpha/SKILL.md"))["skill"] == listing[0]
        for uri in [
            "skill://nope/SKILL.md",
            "skill://alpha/references/guide.md",
            "skill://alpha",
            "skill://Bad_Name/SKILL.md",
            "skill://repaired/SKILL.md",
            "skill://alpha/../beta/SKILL.md",
            "skill://alpha/SKILL.md?x=1",
            "https://example.com/alpha/SKILL.md",
        ]:
            code, _ = await error_of(_get(client, uri))
            assert (uri, code) == (uri, -32602)
        assert (await error_of(_get(client, None)))[0] == -32602

    _run(_params(tree), mode, body)


def test_skills_list_pagination(tmp_path: Path) -> None:
    root = tmp_path / "many"
    names = [f"skill-{i:03d}" for i in range(2 * PAGE_SIZE + 30)]
    for name in names:
        make_skill(root, name)

    async def body(client: Client) -> None:
        seen: list[str] = []
        cursors: list[str] = []
        page = await _list_page(client)
        sizes = [len(page["skills"])]
        seen += [entry["uri"] for entry in page["skills"]]
        while "nextCursor" in page:
            cursors.append(page["nextCursor"])
            page = await _list_page(client, page["nextCursor"])
            sizes.append(len(page["skills"]))
            seen += [entry["uri"] for entry in page["skills"]]
        assert sizes == [PAGE_SIZE, PAGE_SIZE, 30]
        assert seen == [f"skill://{name}/SKILL.md" for name in names]
        assert len(set(cursors)) == 2
        for bad in ["garbage", "", base64.urlsafe_b64encode(b"skills:9999").decode()]:
            assert (await error_of(_list_page(client, bad)))[0] == -32602
        # A skills/list cursor is not a resources/list cursor.
        code, _ = await error_of(client.list_resources(cursor=cursors[0]))
        assert code == -32602
        resources = await client.list_resources()
        assert len(resources.resources) == PAGE_SIZE
        second = await client.list_resources(cursor=resources.next_cursor)
        assert [r.name for r in resources.resources + second.resources] == names[: 2 * PAGE_SIZE]
        prompts = await client.list_prompts()
        assert (len(prompts.prompts), prompts.next_cursor is not None) == (PAGE_SIZE, True)

    _run(_params(root), "auto", body)


# -- resources ----------------------------------------------------------------------------------


def test_resources_list(tree: Path) -> None:
    async def body(client: Client) -> None:
        listed = await client.list_resources()
        assert listed.next_cursor is None
        assert [(r.uri, r.name, r.description, r.mime_type, r.size) for r in listed.resources] == [
            (
                f"skill://{name}/SKILL.md",
                name,
                description,
                "text/markdown",
                (tree / name / "SKILL.md").stat().st_size,
            )
            for name, description in [
                ("alpha", "Alpha does things."),
                ("beta", "Beta is for users only."),
                ("gamma", "Gamma is for models only."),
            ]
        ]

    _run(_params(tree), "legacy", body)


@pytest.mark.parametrize("mode", MODES)
def test_resources_read_serves_the_hashed_bytes(tree: Path, mode: str) -> None:
    async def body(client: Client) -> None:
        entry = (await _list_page(client))["skills"][0]
        kinds: dict[str, str] = {}
        for item in entry["resources"]:
            result = await client.read_resource(item["uri"])
            assert len(result.contents) == 1
            content = result.contents[0]
            assert content.uri == item["uri"]
            if isinstance(content, types.TextResourceContents):
                data = content.text.encode("utf-8")
                kinds[item["uri"]] = f"text {content.mime_type}"
            else:
                data = base64.b64decode(content.blob)
                kinds[item["uri"]] = f"blob {content.mime_type}"
            assert (len(data), digest(data)) == (item["size"], item["digest"])
        assert kinds == {
            "skill://alpha/SKILL.md": "text text/markdown",
            "skill://alpha/alias.md": "text text/markdown",
            "skill://alpha/assets/data.bin": "blob application/octet-stream",
            "skill://alpha/caf%C3%A9.md": "text text/markdown",
            "skill://alpha/notes/crlf.txt": "text text/plain",
            "skill://alpha/references/guide.md": "text text/markdown",
            "skill://alpha/refund%20note.md": "text text/markdown",
            "skill://alpha/scripts/run.py": "text text/x-python",
        }
        crlf = await client.read_resource("skill://alpha/notes/crlf.txt")
        assert isinstance(crlf.contents[0], types.TextResourceContents)
        assert crlf.contents[0].text.encode("utf-8") == CRLF_BOM
        # Lower-case percent escapes name the same file.
        same = await client.read_resource("skill://alpha/caf%c3%a9.md")
        assert same.contents[0].uri == "skill://alpha/caf%C3%A9.md"

    _run(_params(tree), mode, body)


@pytest.mark.parametrize("mode", MODES)
def test_resources_read_refuses_everything_else(tree: Path, mode: str) -> None:
    refused = [
        "skill://alpha/.env",
        "skill://alpha/leak.txt",
        "skill://alpha/references/missing.md",
        "skill://alpha/__pycache__/x.pyc",
        "skill://alpha/../beta/SKILL.md",
        "skill://alpha/%2e%2e/beta/SKILL.md",
        "skill://alpha/%2E%2E/%2E%2E/secret.txt",
        "skill://alpha/references/%2e%2e/SKILL.md",
        "skill://alpha/references%2fguide.md",
        "skill://alpha/SKILL.md?x=1",
        "skill://alpha/SKILL.md#top",
        "skill://alpha//SKILL.md",
        "skill://alpha/references/",
        "skill://alpha/%ff.md",
        "skill://alpha/nope.md",
        "skill://nope/SKILL.md",
        "skill://Bad_Name/SKILL.md",
        "skill://repaired/SKILL.md",
        "skill://nested-meta/SKILL.md",
        "file:///etc/passwd",
    ]

    async def body(client: Client) -> None:
        codes = {uri: (await error_of(client.read_resource(uri)))[0] for uri in refused}
        assert codes == dict.fromkeys(refused, -32602)

    _run(_params(tree), mode, body)


def test_changed_file_is_refused_not_served_with_a_stale_digest(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill = make_skill(root, "changing", files={"a.md": "first\n", "b.md": "first\n"})
    server = build_server(create_agent_skills([root]))
    (skill / "a.md").write_text("second version\n")  # grown
    (skill / "b.md").write_text("FIRST\n")  # same size, other bytes

    async def body(client: Client) -> None:
        for rel in ["a.md", "b.md"]:
            uri = f"skill://changing/{rel}"
            assert await error_of(client.read_resource(uri)) == (
                -32603,
                f"{uri} changed on disk since the server started; restart it",
            )

    _run(server, "auto", body)


# -- publication rules --------------------------------------------------------------------------


def _unpublished(root: Path, caplog: pytest.LogCaptureFixture) -> dict[str, str]:
    """Build a server on ``root``; return ``{skill name: reason}`` of the skills left out."""
    skills = create_agent_skills([root])
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="agent_skills"):
        build_server(skills)
    prefix = "is not published through the MCP Skills extension: "
    suffix = " (it stays available through the tools)"
    out: dict[str, str] = {}
    for record in caplog.records:
        message = record.getMessage()
        if prefix in message:
            assert record.name == "agent_skills"
            assert record.levelno == logging.WARNING
            name = message.split("'")[1]
            out[name] = message.split(prefix, 1)[1].removesuffix(suffix)
    return out


def test_unpublishable_skills_are_named_with_their_reason(
    tree: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert _unpublished(tree, caplog) == {
        "Bad_Name": "name_uppercase: name 'Bad_Name' must be lowercase",
        "nested-meta": "metadata_value_type: metadata value 'tags' must be a string, not a list",
        "repaired": "frontmatter does not parse without repair (line 3): "
        "invalid YAML frontmatter: mapping values are not allowed in this context",
    }


def test_publication_rules(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "skills"
    make_skill(root, "ok-skill")
    make_skill(root, "long-name", frontmatter={"name": "a" * 65, "description": "x"})
    make_skill(root, "double", frontmatter={"name": "a--b", "description": "x"})
    make_skill(root, "long-desc", frontmatter={"name": "long-desc", "description": "d" * 1025})
    make_skill(root, "max-desc", frontmatter={"name": "max-desc", "description": "d" * 1024})
    make_skill(
        root,
        "blank-compat",
        frontmatter={"name": "blank-compat", "description": "x", "compatibility": ""},
    )
    make_skill(
        root,
        "long-compat",
        frontmatter={"name": "long-compat", "description": "x", "compatibility": "c" * 501},
    )
    make_skill(root, "bom", raw=b"\xef\xbb\xbf---\nname: bom\ndescription: x\n---\nBody\n")
    make_skill(root, "indented", raw="\n---\nname: indented\ndescription: x\n---\nBody\n")
    make_skill(root, "latin1", raw=b"---\nname: latin1\ndescription: caf\xe9\n---\nBody\n")
    make_skill(root, "inf", raw="---\nname: inf\ndescription: x\nweight: .inf\n---\nBody\n")
    make_skill(root, "lower", manifest="skill.md")
    make_skill(root, "case-clash", files={"references/A.md": "1", "references/a.md": "2"})
    make_skill(root, "files-512", files={f"f/{i:03d}.txt": "" for i in range(511)})
    make_skill(root, "files-513", files={f"f/{i:03d}.txt": "" for i in range(512)})
    big = make_skill(root, "too-big", files={"assets/huge.bin": b""})
    os.truncate(big / "assets" / "huge.bin", 16 * 1024 * 1024)  # sparse: cheap to create
    assert _unpublished(root, caplog) == {
        "a" * 65: "name_too_long: name is 65 characters; at most 64 are allowed",
        "a--b": "name_double_hyphen: name must not contain '--'",
        "long-desc": "description_too_long: description is 1025 characters; "
        "at most 1024 are allowed",
        "blank-compat": "compatibility_empty: compatibility must not be empty",
        "long-compat": "compatibility_too_long: compatibility is 501 characters; "
        "at most 500 are allowed",
        "bom": "SKILL.md does not start with a '---' frontmatter line",
        "indented": "SKILL.md does not start with a '---' frontmatter line",
        "latin1": "SKILL.md is not valid UTF-8",
        "inf": "frontmatter holds a value JSON cannot carry (.inf or .nan)",
        "lower": "its manifest is named 'skill.md', not 'SKILL.md'",
        "case-clash": "file paths 'references/A.md' and 'references/a.md' collide when case "
        "and Unicode form are ignored",
        "files-513": "it has 513 files, more than 512",
        "too-big": "its files total more than 16777216 bytes",
    }


# -- tools --------------------------------------------------------------------------------------


def test_tools_list(tree: Path) -> None:
    async def body(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert list(tools) == ["activate_skill", "read_skill_resource"]
        activate = tools["activate_skill"].input_schema
        assert activate["required"] == ["name"]
        # Model-invocable skills only, published or not.
        assert activate["properties"]["name"]["enum"] == [
            "alpha",
            "Bad_Name",
            "gamma",
            "nested-meta",
            "repaired",
        ]
        read = tools["read_skill_resource"].input_schema
        assert (read["required"], read["properties"]["path"]["type"]) == (
            ["name", "path"],
            "string",
        )

    _run(_params(tree), "legacy", body)


def _text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def test_activate_skill(tree: Path) -> None:
    async def body(client: Client) -> None:
        result = await client.call_tool("activate_skill", {"name": "alpha"})
        assert result.is_error is False
        text = _text(result)
        assert text.startswith('<skill_content name="alpha">\n# Alpha\n\nRead references/guide.md')
        assert f"Skill directory: {tree / 'alpha'}" in text
        files = [line for line in text.splitlines() if line.startswith("<file>")]
        assert files == [
            "<file>alias.md</file>",
            "<file>assets/data.bin</file>",
            "<file>café.md</file>",
            "<file>notes/crlf.txt</file>",
            "<file>references/guide.md</file>",
            "<file>refund note.md</file>",
            "<file>scripts/run.py</file>",
        ]
        assert text.endswith("</skill_content>")
        # The same content on a second call: activation is stateless over MCP.
        assert _text(await client.call_tool("activate_skill", {"name": "alpha"})) == text
        # An unpublished skill stays reachable through the tool.
        bad = _text(await client.call_tool("activate_skill", {"name": "Bad_Name"}))
        assert bad.startswith('<skill_content name="Bad_Name">\nBad body.')
        for arguments, code in [
            ({"name": "beta"}, "not_found: "),
            ({"name": "nope"}, "not_found: "),
            ({}, "invalid_input: "),
            ({"name": 3}, "invalid_input: "),
        ]:
            failed = await client.call_tool("activate_skill", arguments)
            assert (failed.is_error, _text(failed)[: len(code)]) == (True, code)

    _run(_params(tree), "auto", body)


def test_read_skill_resource(tree: Path) -> None:
    async def body(client: Client) -> None:
        async def read(name: str, path: str) -> types.CallToolResult:
            return await client.call_tool("read_skill_resource", {"name": name, "path": path})

        ok = await read("alpha", "references/guide.md")
        assert (ok.is_error, _text(ok)) == (False, "# Guide\n")
        assert _text(await read("alpha", "./references//guide.md")) == "# Guide\n"
        assert _text(await read("alpha", "SKILL.md")) == ALPHA_MANIFEST
        assert _text(await read("beta", "SKILL.md")).endswith("Beta body.")
        assert _text(await read("Bad_Name", "SKILL.md")).endswith("Bad body.")
        crlf = await read("alpha", "notes/crlf.txt")
        assert _text(crlf).encode("utf-8") == CRLF_BOM
        binary = await read("alpha", "assets/data.bin")
        block = binary.content[0]
        assert isinstance(block, types.EmbeddedResource)
        assert isinstance(block.resource, types.BlobResourceContents)
        assert (block.resource.uri, base64.b64decode(block.resource.blob)) == (
            "skill://alpha/assets/data.bin",
            BINARY,
        )
        for name, path, code in [
            ("alpha", ".env", "not_found"),
            ("alpha", "__pycache__/x.pyc", "not_found"),
            ("alpha", "leak.txt", "path_escape"),
            ("alpha", "references/missing.md", "not_found"),
            ("alpha", "../beta/SKILL.md", "path_escape"),
            ("alpha", "/etc/passwd", "invalid_input"),
            ("alpha", "references", "not_a_file"),
            ("alpha", "nope.md", "not_found"),
            ("nope", "SKILL.md", "not_found"),
        ]:
            failed = await read(name, path)
            assert (path, failed.is_error, _text(failed).split(":")[0]) == (path, True, code)
            assert SECRET.decode() not in _text(failed)

    _run(_params(tree), "legacy", body)


def test_unknown_tool_is_invalid_params(tree: Path) -> None:
    async def body(client: Client) -> None:
        code, _ = await error_of(client.call_tool("run_script", {}))
        assert code == -32602

    _run(_params(tree), "auto", body)


# -- prompts ------------------------------------------------------------------------------------


def test_prompts(tree: Path) -> None:
    async def body(client: Client) -> None:
        prompts = await client.list_prompts()
        assert [(p.name, p.description) for p in prompts.prompts] == [
            ("alpha", "Alpha does things."),
            ("Bad_Name", "The Bad_Name skill."),
            ("beta", "Beta is for users only."),
            ("nested-meta", "Meta."),
            ("repaired", "Use it: when needed"),
        ]
        got = await client.get_prompt("beta")
        assert got.description == "Beta is for users only."
        assert [(m.role, m.content) for m in got.messages] == [
            ("user", types.TextContent(text="Beta body."))
        ]
        for name in ["gamma", "nope"]:
            assert (await error_of(client.get_prompt(name)))[0] == -32602

    _run(_params(tree), "auto", body)


# -- transports and packaging -------------------------------------------------------------------


def test_import_agent_skills_does_not_import_mcp() -> None:
    code = (
        "import sys, agent_skills\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == "[]"


def test_cli_serve_over_stdio(tree: Path) -> None:
    params = _params(tree)
    cli = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_skills", "serve", "--preset", "none", "--root", str(tree)],
        env=params.env,
    )

    async def body(client: Client) -> None:
        assert client.server_capabilities.extensions == {EXTENSION_ID: {}}
        page = await _list_page(client)
        assert [e["uri"] for e in page["skills"]] == [
            "skill://alpha/SKILL.md",
            "skill://beta/SKILL.md",
            "skill://gamma/SKILL.md",
        ]

    _run(cli, "legacy", body)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_streamable_http(tree: Path) -> None:
    port = _free_port()
    params = _params(tree)
    proc = subprocess.Popen(
        [params.command, *params.args, "--http", "--port", str(port)],
        env={**os.environ, **(params.env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)

        async def body(client: Client) -> None:
            assert client.server_capabilities.extensions == {EXTENSION_ID: {}}
            page = await _list_page(client)
            assert page["skills"][0]["uri"] == "skill://alpha/SKILL.md"
            read = await client.read_resource("skill://alpha/references/guide.md")
            assert isinstance(read.contents[0], types.TextResourceContents)
            assert read.contents[0].text == "# Guide\n"

        _run(f"http://127.0.0.1:{port}/mcp", "auto", body)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# -- the MCP Inspector as an independent verifier ------------------------------------------------


def _inspector() -> list[str]:
    """The pinned MCP Inspector CLI that ``.ci/npm-install.sh`` installs; never fetched here."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    if not INSPECTOR_JS.is_file():
        pytest.skip(f"MCP Inspector {INSPECTOR_VERSION} is not installed (run .ci/npm-install.sh)")
    return [node, str(INSPECTOR_JS)]


def _verify(
    tmp_path: Path, roots: list[Path], era: str, method: str = "skills/list", uri: str = ""
) -> list[dict[str, Any]]:
    """Run ``--verify`` through the Inspector; return its per-skill reports."""
    args = ["-m", "agent_skills.mcp", "--preset", "none"]
    for root in roots:
        args += ["--root", str(root)]
    server = {
        "command": sys.executable,
        "args": args,
        "env": {"PYTHONPATH": str(SRC)},
        "skillCatalogMaxSkills": 10_000,
    }
    config = tmp_path / "inspector.json"
    config.write_text(json.dumps({"mcpServers": {"skills": server}}))
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    command = [*_inspector(), "--config", str(config), "--server", "skills"]
    command += ["--protocol-era", era, "--method", method, "--verify", "-q"]
    if uri:
        command += ["--uri", uri]
    proc = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)},
        timeout=300,
        check=False,
    )
    reports = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    failed = [r for r in reports if not r.get("ok")]
    assert (proc.returncode, failed) == (0, []), proc.stderr[-2000:]
    return reports


def _published_uris(server: Any) -> list[str]:
    """Every ``skills/list`` URI of an in-process server, all pages followed."""
    uris: list[str] = []

    async def body(client: Client) -> None:
        page = await _list_page(client)
        uris.extend(entry["uri"] for entry in page["skills"])
        while "nextCursor" in page:
            page = await _list_page(client, page["nextCursor"])
            uris.extend(entry["uri"] for entry in page["skills"])

    _run(server, "auto", body)
    return uris


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_inspector_verifies_our_tree(tree: Path, tmp_path: Path, era: str) -> None:
    reports = _verify(tmp_path, [tree], era)
    assert [(r["name"], r["outcome"]) for r in reports] == [
        ("alpha", "verified"),
        ("beta", "verified"),
        ("gamma", "verified"),
    ]
    assert sorted(f["uri"] for f in reports[0]["files"]) == sorted(ALPHA_URIS.values())
    got = _verify(tmp_path, [tree], era, "skills/get", "skill://alpha/SKILL.md")
    assert [(r["name"], r["outcome"]) for r in got] == [("alpha", "verified")]


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_inspector_verifies_examples(tmp_path: Path, era: str) -> None:
    if not EXAMPLES.is_dir():
        pytest.skip("examples/skills not available")
    reports = _verify(tmp_path, [EXAMPLES], era)
    expected = sorted(p.name for p in EXAMPLES.iterdir() if (p / "SKILL.md").is_file())
    assert sorted(r["name"] for r in reports) == expected
    if era == "modern":
        first = reports[0]["uri"]
        got = _verify(tmp_path, [EXAMPLES], era, "skills/get", first)
        assert [r["uri"] for r in got] == [first]


def test_inspector_verifies_corpus(tmp_path: Path) -> None:
    # Modern era only: the handshake era is verified on the tree and the examples above.
    if not (CORPUS / "ROOTS.txt").is_file():
        pytest.skip("shared corpus not available")
    roots = [CORPUS / line.strip() for line in (CORPUS / "ROOTS.txt").read_text().splitlines()]
    roots = [root for root in roots if str(root) != str(CORPUS)]
    expected = _published_uris(build_server(create_agent_skills(roots)))
    assert len(expected) > PAGE_SIZE
    reports = _verify(tmp_path, roots, "modern")
    assert [r["uri"] for r in reports] == expected
    assert all(r["outcome"] == "verified" for r in reports)
    got = _verify(tmp_path, roots, "modern", "skills/get", expected[-1])
    assert [(r["uri"], r["outcome"]) for r in got] == [(expected[-1], "verified")]
