"""The MCP server (SPEC §17, §24): every method, result field and error path, with exact values.

The shared suite (the tests parametrised by ``transport``) runs over two transports:
``inprocess`` (``mcp.Client`` given the ``Server`` object: ``mode="legacy"`` runs the
``initialize`` handshake over the SDK's in-memory streams, ``auto`` dispatches 2026-07-28 requests
directly) and ``stdio`` (the official client starting ``python -m agent_skills.mcp`` as a
subprocess). ``test_mcp.py`` adds the raw handshake on the wire, streamable HTTP, the CLI and the
MCP Inspector as an independent client.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("mcp")

import mcp_types as types
from mcp import Client

from agent_skills import AgentSkills, SkillError, create_agent_skills, resolve_config
from agent_skills._core import ServedSkill
from agent_skills.mcp import (
    EXTENSION_ID,
    MAX_SKILL_BYTES,
    MAX_TOOL_READ_BYTES,
    PAGE_SIZE,
    SkillServer,
    build_server,
    main,
)
from agent_skills.mcp._publish import INDEX_SCHEMA, _refuse
from agent_skills.mcp._publish import Unpublishable as _Unpublishable
from agent_skills.validate import check_manifest
from conftest import make_skill, symlink
from mcp_support import (
    GetParams,
    GetSkill,
    ListSkills,
    Raw,
    add_invocation_skills,
    digest,
    error_of,
    run_client,
    server_of,
)

# "auto" probes server/discover and settles on the 2026-07-28 revision; a pinned version would
# skip discovery and never see the server's capabilities.
LEGACY, MODERN = "legacy", "auto"
ERAS = [LEGACY, MODERN]
# The shared suite runs over both transports: the SDK's in-memory streams and a stdio subprocess
# (``python -m agent_skills.mcp``), so what one asserts holds for the other.
# The stdio transport starts the server as a process for each test.
TRANSPORTS = ["inprocess", pytest.param("stdio", marks=[pytest.mark.slow, pytest.mark.live])]
CACHE_FIELDS = {"ttlMs": 0, "cacheScope": "private"}

SECRET = b"never served\n"
BINARY = bytes(range(256))
CRLF_BOM = b"\xef\xbb\xbfone\r\ntwo\r\n"
ALPHA_MANIFEST = (
    "---\n"
    "name: alpha\n"
    "description: Alpha does things.\n"
    "version: 2024-01-01\n"
    "metadata:\n"
    "  enabled: yes\n"
    "  mode: off\n"
    "---\n"
    "# Alpha\n\nRead references/guide.md.\n"
)
ALPHA_FILES: dict[str, str | bytes] = {
    "references/guide.md": "# Guide\n",
    "scripts/run.py": "print('hi')\n",
    "assets/data.bin": BINARY,
    "notes/crlf.txt": CRLF_BOM,
    "notes/plain.unknownext": "text without a known type\n",
    "notes/raw.unknownext": b"\xff\xfe\x00",
    "refund note.md": "spaces\n",
    "café.md": "accent\n",
    ".env": SECRET,
    "__pycache__/x.pyc": b"\0",
    "node_modules/dep/index.js": "module.exports = 1\n",
}
# POSIX paths of every file the alpha manifest lists, SKILL.md first, then load_skill's order.
ALPHA_RELS = [
    "SKILL.md",
    "alias.md",
    "assets/data.bin",
    "café.md",
    "notes/crlf.txt",
    "notes/plain.unknownext",
    "notes/raw.unknownext",
    "references/guide.md",
    "refund note.md",
    "scripts/run.py",
]
ALPHA_URIS = {
    "alias.md": "skill://alpha/alias.md",
    "SKILL.md": "skill://alpha/SKILL.md",
    "assets/data.bin": "skill://alpha/assets/data.bin",
    "café.md": "skill://alpha/caf%C3%A9.md",
    "notes/crlf.txt": "skill://alpha/notes/crlf.txt",
    "notes/plain.unknownext": "skill://alpha/notes/plain.unknownext",
    "notes/raw.unknownext": "skill://alpha/notes/raw.unknownext",
    "references/guide.md": "skill://alpha/references/guide.md",
    "refund note.md": "skill://alpha/refund%20note.md",
    "scripts/run.py": "skill://alpha/scripts/run.py",
}


def _build_tree(base: Path) -> Path:
    """alpha (published, with hidden, escaping and dangling entries), beta, gamma, Bad_Name."""
    root = base / "skills"
    (base / "secret.txt").write_bytes(SECRET)
    alpha = make_skill(root, "alpha", raw=ALPHA_MANIFEST, files=ALPHA_FILES)
    symlink(alpha / "leak.txt", base / "secret.txt")
    symlink(alpha / "references" / "missing.md", "nowhere.md")
    symlink(alpha / "alias.md", "references/guide.md")  # a link that stays inside is a file
    add_invocation_skills(root)
    return root


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_tree(tmp_path_factory.mktemp("mcp-inprocess"))


@pytest.fixture(scope="module")
def alpha_bytes(tree: Path) -> dict[str, bytes]:
    return {rel: (tree / "alpha" / rel).read_bytes() for rel in ALPHA_RELS}


def _serve(root: Path, transport: str = "inprocess") -> Any:
    """The server of ``root``: a ``Server`` object in-process, or a stdio subprocess."""
    return server_of([root], transport)


async def _list_page(client: Client, cursor: str | None = None) -> dict[str, Any]:
    request = ListSkills(params=types.PaginatedRequestParams(cursor=cursor))
    return (await client.session.send_request(request, Raw)).model_dump()


async def _get(client: Client, uri: str | None) -> dict[str, Any]:
    result = await client.session.send_request(GetSkill(params=GetParams(uri=uri)), Raw)
    return result.model_dump()


def _text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def _index_text(result: types.ReadResourceResult) -> str:
    """The text of a ``resources/read`` of ``skill://index.json``: one JSON text content."""
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    assert (content.uri, content.mime_type) == ("skill://index.json", "application/json")
    return content.text


def _cache(mode: str) -> dict[str, Any]:
    return CACHE_FIELDS if mode == MODERN else {}


# -- capabilities -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_capabilities_on_both_eras(transport: str, tree: Path, mode: str) -> None:
    async def body(client: Client) -> None:
        assert client.protocol_version == ("2025-11-25" if mode == LEGACY else "2026-07-28")
        caps = client.server_capabilities
        assert caps.extensions == {EXTENSION_ID: {}}
        assert (caps.resources is None, caps.tools is None, caps.prompts is None) == (
            False,
            False,
            False,
        )
        if mode == LEGACY:
            assert client.server_info is not None
            assert client.server_info.name == "agent-skills"
            assert client.instructions is not None
            assert client.instructions.startswith("Agent Skills are served here")

    run_client(_serve(tree, transport), mode, body)


# -- skills/list and skills/get -----------------------------------------------------------------


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_skills_list_entry_and_manifest(
    transport: str, tree: Path, alpha_bytes: dict[str, bytes], mode: str
) -> None:
    async def body(client: Client) -> None:
        page = await _list_page(client)
        assert page.pop("resultType", "complete") == "complete"
        page.pop("_meta", None)
        assert set(page) == {"skills", *_cache(mode)}
        for key, value in _cache(mode).items():
            assert page[key] == value
        assert [entry["uri"] for entry in page["skills"]] == [
            "skill://alpha/SKILL.md",
            "skill://beta/SKILL.md",
            "skill://gamma/SKILL.md",
        ]
        alpha = page["skills"][0]
        assert alpha["frontmatter"] == {
            "name": "alpha",
            "description": "Alpha does things.",
            "version": "2024-01-01",
            "metadata": {"enabled": "yes", "mode": "off"},
        }
        assert alpha["resources"] == [
            {
                "uri": ALPHA_URIS[rel],
                "digest": digest(alpha_bytes[rel]),
                "size": len(alpha_bytes[rel]),
            }
            for rel in ALPHA_RELS
        ]
        assert page["skills"][1]["frontmatter"] == {
            "name": "beta",
            "description": "Beta is for users only.",
            "disable-model-invocation": True,
        }

    run_client(_serve(tree, transport), mode, body)


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_skills_get(transport: str, tree: Path, mode: str) -> None:
    async def body(client: Client) -> None:
        listed = (await _list_page(client))["skills"]
        got = await _get(client, "skill://beta/SKILL.md")
        got.pop("resultType", None)
        got.pop("_meta", None)
        assert got == {"skill": listed[1], **_cache(mode)}
        # Percent-encoding is canonicalised before the lookup.
        assert (await _get(client, "skill://%61lpha/SKILL.md"))["skill"] == listed[0]
        for uri in [
            "skill://nope/SKILL.md",
            "skill://Bad_Name/SKILL.md",
            "skill://alpha/references/guide.md",
            "skill://alpha",
        ]:
            assert await error_of(_get(client, uri)) == (
                -32602,
                f"no skill is served at {uri!r}",
            )
        assert await error_of(_get(client, "skill://alpha/")) == (
            -32602,
            "malformed skill URI segment '' in 'skill://alpha/'",
        )
        code, _ = await error_of(_get(client, None))
        assert code == -32602

    run_client(_serve(tree, transport), mode, body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_skills_list_pagination_and_bad_cursors(transport: str, tmp_path: Path) -> None:
    root = tmp_path / "many"
    names = [f"skill-{i:03d}" for i in range(2 * PAGE_SIZE + 7)]
    for name in names:
        make_skill(root, name)

    def cursor(text: str) -> str:
        return base64.urlsafe_b64encode(text.encode()).decode()

    async def body(client: Client) -> None:
        first = await _list_page(client)
        second = await _list_page(client, first["nextCursor"])
        third = await _list_page(client, second["nextCursor"])
        assert (first["nextCursor"], second["nextCursor"], "nextCursor" in third) == (
            cursor("skills:100"),
            cursor("skills:200"),
            False,
        )
        uris = [e["uri"] for page in (first, second, third) for e in page["skills"]]
        assert uris == [f"skill://{name}/SKILL.md" for name in names]
        bad = [
            "garbage!",
            "",
            "%%%",
            "w6k=",  # valid base64, not UTF-8
            cursor("skills:0"),
            cursor("skills:207"),
            cursor("skills:-5"),
            cursor("skills:x"),
            cursor("resources:100"),
        ]
        for value in bad:
            assert await error_of(_list_page(client, value)) == (
                -32602,
                f"invalid cursor {value!r}",
            )
        # Each list has its own cursors.
        resources = await client.list_resources()
        assert resources.next_cursor == cursor("resources:100")
        assert await error_of(client.list_resources(cursor=first["nextCursor"])) == (
            -32602,
            f"invalid cursor {first['nextCursor']!r}",
        )
        rest = await client.list_resources(cursor=resources.next_cursor)
        last = await client.list_resources(cursor=rest.next_cursor)
        listed = resources.resources + rest.resources + last.resources
        # One SKILL.md per skill, then the discovery index (SPEC §29.1).
        assert [r.name for r in listed] == [*names, "skills-index"]
        assert last.next_cursor is None
        prompts = await client.list_prompts()
        more = await client.list_prompts(cursor=prompts.next_cursor)
        end = await client.list_prompts(cursor=more.next_cursor)
        assert (prompts.next_cursor, more.next_cursor, end.next_cursor) == (
            cursor("prompts:100"),
            cursor("prompts:200"),
            None,
        )
        assert [p.name for p in prompts.prompts + more.prompts + end.prompts] == names

    run_client(_serve(root, transport), MODERN, body)


# -- resources ----------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_resources_list(transport: str, tree: Path, alpha_bytes: dict[str, bytes]) -> None:
    async def body(client: Client) -> None:
        listed = await client.list_resources()
        index = _index_text(await client.read_resource("skill://index.json"))
        assert listed.next_cursor is None
        assert [(r.uri, r.name, r.description, r.mime_type, r.size) for r in listed.resources] == [
            ("skill://alpha/SKILL.md", "alpha", "Alpha does things.", "text/markdown", 144),
            (
                "skill://beta/SKILL.md",
                "beta",
                "Beta is for users only.",
                "text/markdown",
                (tree / "beta" / "SKILL.md").stat().st_size,
            ),
            (
                "skill://gamma/SKILL.md",
                "gamma",
                "Gamma is for models only.",
                "text/markdown",
                (tree / "gamma" / "SKILL.md").stat().st_size,
            ),
            (
                "skill://index.json",
                "skills-index",
                "The skills published here as an Agent Skills discovery index (v0.2.0): the same "
                "skills, in the same order, as skills/list.",
                "application/json",
                len(index.encode("utf-8")),
            ),
        ]
        assert listed.resources[-1].title == "Agent Skills discovery index"
        assert len(alpha_bytes["SKILL.md"]) == 144

    run_client(_serve(tree, transport), LEGACY, body)


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_resources_read_text_and_blob(
    transport: str, tree: Path, alpha_bytes: dict[str, bytes], mode: str
) -> None:
    async def body(client: Client) -> None:
        seen: dict[str, tuple[str, str]] = {}
        for rel in ALPHA_RELS:
            result = await client.read_resource(ALPHA_URIS[rel])
            assert len(result.contents) == 1
            content = result.contents[0]
            assert content.uri == ALPHA_URIS[rel]
            if isinstance(content, types.TextResourceContents):
                data, kind = content.text.encode("utf-8"), "text"
            else:
                assert isinstance(content, types.BlobResourceContents)
                data, kind = base64.b64decode(content.blob), "blob"
            assert data == alpha_bytes[rel]
            assert content.mime_type is not None
            seen[rel] = (kind, content.mime_type)
        assert seen == {
            "SKILL.md": ("text", "text/markdown"),
            "alias.md": ("text", "text/markdown"),
            "assets/data.bin": ("blob", "application/octet-stream"),
            "café.md": ("text", "text/markdown"),
            "notes/crlf.txt": ("text", "text/plain"),
            "notes/plain.unknownext": ("text", "text/plain"),
            "notes/raw.unknownext": ("blob", "application/octet-stream"),
            "references/guide.md": ("text", "text/markdown"),
            "refund note.md": ("text", "text/markdown"),
            "scripts/run.py": ("text", "text/x-python"),
        }
        same = await client.read_resource("skill://alpha/caf%c3%a9.md")
        assert same.contents[0].uri == "skill://alpha/caf%C3%A9.md"

    run_client(_serve(tree, transport), mode, body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_resources_read_refuses_unknown_and_malformed_uris(transport: str, tree: Path) -> None:
    unknown = [
        "skill://alpha/.env",
        "skill://alpha/__pycache__/x.pyc",
        "skill://alpha/node_modules/dep/index.js",
        "skill://alpha/leak.txt",
        "skill://alpha/references/missing.md",
        "skill://alpha/nope.md",
        "skill://nope/SKILL.md",
        "skill://Bad_Name/SKILL.md",
    ]
    malformed = {
        "skill://alpha/../beta/SKILL.md": "malformed skill URI segment '..' in {uri!r}",
        "skill://alpha/%2e%2e/beta/SKILL.md": "malformed skill URI segment '%2e%2e' in {uri!r}",
        "skill://alpha/%2E/SKILL.md": "malformed skill URI segment '%2E' in {uri!r}",
        "skill://alpha/references%2fguide.md": (
            "malformed skill URI segment 'references%2fguide.md' in {uri!r}"
        ),
        "skill://alpha/a%5cb.md": "malformed skill URI segment 'a%5cb.md' in {uri!r}",
        "skill://alpha/a%00.md": "malformed skill URI segment 'a%00.md' in {uri!r}",
        "skill://alpha//SKILL.md": "malformed skill URI segment '' in {uri!r}",
        "skill://alpha/SKILL.md?x=1": "skill URIs take no query or fragment: {uri!r}",
        "skill://alpha/SKILL.md#top": "skill URIs take no query or fragment: {uri!r}",
        "skill://alpha/%ff.md": "malformed percent-encoding in {uri!r}",
        "file:///etc/passwd": "not a skill:// URI: {uri!r}",
    }

    async def body(client: Client) -> None:
        for uri in unknown:
            assert await error_of(client.read_resource(uri)) == (
                -32602,
                f"unknown resource {uri!r}",
            )
        for uri, message in malformed.items():
            assert await error_of(client.read_resource(uri)) == (-32602, message.format(uri=uri))

    run_client(_serve(tree, transport), MODERN, body)


def test_changed_files_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill = make_skill(
        root,
        "changing",
        files={"grown.md": "one\n", "same.md": "one\n", "gone.md": "x", "dir.md": "x"},
    )
    server = _serve(root)
    (skill / "grown.md").write_text("two, and longer\n")
    (skill / "same.md").write_text("ONE\n")
    (skill / "gone.md").unlink()
    (skill / "dir.md").unlink()
    (skill / "dir.md").mkdir()

    async def body(client: Client) -> None:
        for rel in ["grown.md", "same.md"]:
            uri = f"skill://changing/{rel}"
            assert await error_of(client.read_resource(uri)) == (
                -32603,
                f"{uri} changed on disk since the server started; restart it",
            )
        gone = "skill://changing/gone.md"
        assert await error_of(client.read_resource(gone)) == (-32602, f"unknown resource {gone!r}")
        code, message = await error_of(client.read_resource("skill://changing/dir.md"))
        assert (code, message.split(": ")[:2]) == (
            -32603,
            ["skill://changing/dir.md cannot be read", "not_a_file"],
        )

    run_client(server, LEGACY, body)


# -- publication rules --------------------------------------------------------------------------

_PREFIX = "is not published through the MCP Skills extension: "
_SUFFIX = " (it stays available through the tools)"


def _unpublished(skills: AgentSkills, caplog: pytest.LogCaptureFixture) -> dict[str, str]:
    """Build a server; return ``{skill name: reason}`` of the skills left out, in log order."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="agent_skills"):
        build_server(skills)
    out: dict[str, str] = {}
    for record in caplog.records:
        message = record.getMessage()
        if _PREFIX not in message:
            continue  # a discovery diagnostic, logged while loading the skill
        assert (record.name, record.levelno) == ("agent_skills", logging.WARNING)
        assert message.startswith("skill '") and message.endswith(_SUFFIX)
        name, _, reason = message.removeprefix("skill '").partition("' " + _PREFIX)
        out[name] = reason.removesuffix(_SUFFIX)
    return out


def test_publication_rules(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "skills"
    make_skill(root, "ok-skill")
    make_skill(root, "max-desc", frontmatter={"name": "max-desc", "description": "d" * 1024})
    make_skill(root, "long-name", frontmatter={"name": "a" * 65, "description": "x"})
    make_skill(root, "double", frontmatter={"name": "a--b", "description": "x"})
    make_skill(root, "long-desc", frontmatter={"name": "long-desc", "description": "d" * 1025})
    make_skill(
        root,
        "blank-compat",
        frontmatter={"name": "blank-compat", "description": "x", "compatibility": " "},
    )
    make_skill(
        root,
        "num-compat",
        raw="---\nname: num-compat\ndescription: x\ncompatibility: 5\n---\nB\n",
    )
    make_skill(
        root,
        "long-compat",
        frontmatter={"name": "long-compat", "description": "x", "compatibility": "c" * 501},
    )
    make_skill(
        root,
        "nested-meta",
        frontmatter={"name": "nested-meta", "description": "x", "metadata": {"t": ["a"]}},
    )
    make_skill(root, "bom", raw=b"\xef\xbb\xbf---\nname: bom\ndescription: x\n---\nB\n")
    make_skill(root, "indented", raw="\n---\nname: indented\ndescription: x\n---\nB\n")
    make_skill(root, "latin1", raw=b"---\nname: latin1\ndescription: caf\xe9\n---\nB\n")
    make_skill(root, "repaired", raw="---\nname: repaired\ndescription: Use: when\n---\nB\n")
    make_skill(root, "inf", raw="---\nname: inf\ndescription: x\nweight: .inf\n---\nB\n")
    make_skill(
        root,
        "deep",
        raw="---\nname: deep\ndescription: x\nextra: " + "[" * 33 + "]" * 33 + "\n---\nB\n",
    )
    make_skill(root, "lower", manifest="skill.md")
    make_skill(root, "case-clash", files={"r/A.md": "1", "r/a.md": "2"})
    make_skill(root, "nfc-clash", files={"caf\u00e9.md": "1", "cafe\u0301.md": "2"})
    make_skill(root, "files-512", files={f"f/{i:03d}.txt": "" for i in range(511)})
    make_skill(root, "files-513", files={f"f/{i:03d}.txt": "" for i in range(512)})
    big = make_skill(root, "too-big", files={"huge.bin": b""})
    os.truncate(big / "huge.bin", MAX_SKILL_BYTES)  # sparse: cheap to create
    # Listed sizes already above the limit: refused before anything is read.
    bigger = make_skill(root, "too-big-listed", files={"huge.bin": b""})
    os.truncate(bigger / "huge.bin", MAX_SKILL_BYTES + 1)
    skills = create_agent_skills([root])
    assert _unpublished(skills, caplog) == {
        "a" * 65: "name_too_long: name is 65 characters; at most 64 are allowed (line 2)",
        "a--b": "name_double_hyphen: name must not contain '--' (line 2)",
        "blank-compat": "compatibility_empty: compatibility must not be empty (line 4)",
        "bom": "manifest_bom: manifest starts with a byte order mark; some hosts reject it",
        "case-clash": "path_collision: file paths 'r/A.md' and 'r/a.md' collide when case and "
        "Unicode form are ignored",
        "deep": "frontmatter_too_deep: frontmatter nests deeper than 32 levels",
        "files-513": "it has 513 files, more than 512",
        "indented": "frontmatter_not_first: manifest must open with '---' on its first line; "
        "hosts read no blank line before it (line 1)",
        "inf": "value_not_json: frontmatter holds a value JSON cannot carry (.inf or .nan)",
        "latin1": "invalid_encoding: manifest is not valid UTF-8 (byte 33) (line 3)",
        "long-compat": "compatibility_too_long: compatibility is 501 characters; "
        "at most 500 are allowed (line 4)",
        "long-desc": "description_too_long: description is 1025 characters; "
        "at most 1024 are allowed (line 3)",
        "lower": "manifest_case: manifest is named skill.md; hosts look for exactly SKILL.md",
        "nested-meta": "metadata_value_type: metadata value 't' must be a string, not a list "
        "(line 5)",
        "nfc-clash": "path_collision: file paths 'cafe\u0301.md' and 'caf\u00e9.md' collide "
        "when case and Unicode form are ignored",
        "num-compat": "compatibility_type: compatibility must be a string, not a number (line 4)",
        "repaired": "yaml_error: invalid YAML frontmatter: mapping values are not allowed in this "
        "context, at column 17 (line 3)",
        "too-big": f"its files total more than {MAX_SKILL_BYTES} bytes",
        "too-big-listed": f"its files total more than {MAX_SKILL_BYTES} bytes",
    }

    async def body(client: Client) -> None:
        page = await _list_page(client)
        assert [e["uri"] for e in page["skills"]] == [
            "skill://files-512/SKILL.md",
            "skill://max-desc/SKILL.md",
            "skill://ok-skill/SKILL.md",
        ]
        assert len(page["skills"][0]["resources"]) == 512
        # Left out of the extension, still reachable through the tools and prompts.
        read = await client.call_tool("read_skill_resource", {"name": "repaired", "path": "f"})
        assert (read.is_error, _text(read).split(":")[0]) == (True, "not_found")
        prompt = await client.get_prompt("repaired")
        assert prompt.description == "Use: when"

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="agent_skills"):
        run_client(build_server(skills), MODERN, body)


def test_truncated_listing_is_not_published(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "skills"
    make_skill(root, "many-files", files={f"f{i}.md": "x" for i in range(3)})
    skills = create_agent_skills([root], max_resources=2)
    assert _unpublished(skills, caplog) == {
        "many-files": "its resource listing was truncated (max_resources)"
    }


class _FlakyServed(ServedSkill):
    """A served skill whose reads fail on demand."""

    read_error: str | None = None

    def read(self, rel: str | os.PathLike[str], max_bytes: int | None = None) -> bytes:
        if self.read_error is not None and rel != "SKILL.md":
            raise SkillError(self.read_error, "simulated", {"name": self.name, "rel": rel})
        return super().read(rel, max_bytes)


class _Flaky(AgentSkills):
    """An ``AgentSkills`` whose skills vanish, or whose reads fail, on demand."""

    vanish: bool = False
    read_error: str | None = None

    def served(self, name: str) -> Any:
        found = None if self.vanish else super().served(name)
        if found is None:
            return None
        flaky = _FlakyServed(self.registry, self.config, found.info)
        flaky.read_error = self.read_error
        return flaky


@pytest.mark.parametrize(
    ("vanish", "read_error", "reason"),
    [
        (True, None, "the skill disappeared"),
        (False, "too_large", f"its files total more than {MAX_SKILL_BYTES} bytes"),
        (False, "io_error", "a.md cannot be read: io_error: simulated"),
    ],
)
def test_skills_that_fail_while_publishing(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    vanish: bool,
    read_error: str | None,
    reason: str,
) -> None:
    root = tmp_path / "skills"
    make_skill(root, "flaky", files={"a.md": "a"})
    skills = _Flaky(resolve_config([root]))
    skills.vanish, skills.read_error = vanish, read_error
    assert _unpublished(skills, caplog) == {"flaky": reason}


def _refusal(data: bytes) -> str | None:
    """Why the server would not publish a manifest of these bytes: the first error of the
    ``portable`` profile, as ``code: message (line N)``; ``None`` when it would."""
    try:
        _refuse(check_manifest(data, profile="portable").problems)
    except _Unpublishable as why:
        return str(why)
    return None


@pytest.mark.parametrize(
    ("frontmatter", "reason"),
    [
        ({"name": "x"}, "description_missing: frontmatter has no 'description'"),
        (
            {"name": "x", "description": " \n"},
            "description_empty: description must not be empty (line 3)",
        ),
        (
            {"name": "x", "description": "d", "metadata": "s"},
            "metadata_type: metadata must be a mapping of strings to strings, not a string "
            "(line 4)",
        ),
        ({"name": "x", "description": "d", "metadata": {"k": "v"}, "compatibility": "c"}, None),
    ],
)
def test_frontmatter_rules_discovery_never_lets_through(
    frontmatter: dict[str, Any], reason: str | None
) -> None:
    # Discovery already rejects these skills; the publication rule stays exact (validate's).
    data = ("---\n" + yaml.safe_dump(frontmatter, sort_keys=False) + "---\nB\n").encode()
    assert _refusal(data) == reason


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (
            b"---\n- a\n---\n",
            "frontmatter_not_mapping: frontmatter must be a mapping of keys to values, "
            "not a list (line 2)",
        ),
        (b"---\n---\n", "name_missing: frontmatter has no 'name'"),
        (
            b"---\nname: x\n",
            "frontmatter_unterminated: frontmatter has no closing '---' line (line 1)",
        ),
        (b"\n---\nname: x\ndescription: d\n---\n", "frontmatter_not_first: manifest must open"),
        (b"\xef\xbb\xbf---\nname: x\ndescription: d\n---\n", "manifest_bom: manifest starts"),
    ],
)
def test_strict_frontmatter_refusals(data: bytes, reason: str) -> None:
    refused = _refusal(data)
    assert refused is not None and refused.startswith(reason)
    check = check_manifest(b"---\r\nname: x\r\ndescription: d\r\nlist: []\r\n---\r\n")
    assert check.frontmatter == {"name": "x", "description": "d", "list": []}
    assert _refusal(b"---\r\nname: x\r\ndescription: d\r\n---\r\n") is None


# -- tools --------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tools_list(transport: str, tree: Path) -> None:
    async def body(client: Client) -> None:
        tools = (await client.list_tools()).tools
        assert [tool.name for tool in tools] == ["activate_skill", "read_skill_resource"]
        assert tools[0].input_schema == {
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "enum": ["alpha", "Bad_Name", "gamma"],
                    "description": "The name of the skill to activate.",
                }
            },
            "required": ["name"],
            "additionalProperties": False,
        }
        assert tools[1].input_schema["required"] == ["name", "path"]

    run_client(_serve(tree, transport), LEGACY, body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tools_list_without_model_invocable_or_any_skills(transport: str, tmp_path: Path) -> None:
    users = tmp_path / "users"
    make_skill(
        users,
        "only-users",
        frontmatter={"name": "only-users", "description": "x", "disable-model-invocation": True},
    )
    empty = tmp_path / "empty"
    empty.mkdir()

    async def names(client: Client) -> list[str]:
        return [tool.name for tool in (await client.list_tools()).tools]

    async def users_body(client: Client) -> None:
        assert await names(client) == ["read_skill_resource"]

    async def empty_body(client: Client) -> None:
        assert await names(client) == []
        # Only the discovery index, naming no skill (SPEC §29.1).
        index = await client.read_resource("skill://index.json")
        assert json.loads(_index_text(index)) == {"$schema": INDEX_SCHEMA, "skills": []}
        assert [r.uri for r in (await client.list_resources()).resources] == ["skill://index.json"]
        assert (await _list_page(client))["skills"] == []
        assert (await client.list_prompts()).prompts == []

    run_client(_serve(users, transport), MODERN, users_body)
    run_client(_serve(empty, transport), LEGACY, empty_body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_activate_skill(transport: str, tree: Path) -> None:
    async def body(client: Client) -> None:
        result = await client.call_tool("activate_skill", {"name": "alpha"})
        assert result.is_error is False
        files = "".join(f"<file>{rel}</file>\n" for rel in ALPHA_RELS[1:])
        expected = (
            '<skill_content name="alpha">\n# Alpha\n\nRead references/guide.md.\n\n'
            f"Skill directory: {tree / 'alpha'}\n"
            "Relative paths in this skill resolve against the skill directory.\n\n"
            f"<skill_resources>\n{files}</skill_resources>\n</skill_content>"
        )
        assert _text(result) == expected
        assert _text(await client.call_tool("activate_skill", {"name": "alpha"})) == expected
        bad = await client.call_tool("activate_skill", {"name": "Bad_Name"})
        assert _text(bad).startswith('<skill_content name="Bad_Name">\nBad body.\n')
        cases: list[tuple[dict[str, Any], str]] = [
            ({"name": "beta"}, "not_found: "),
            ({"name": "nope"}, "not_found: "),
            ({}, "invalid_input: argument 'name' must be a str, got NoneType"),
            ({"name": 3}, "invalid_input: argument 'name' must be a str, got int"),
        ]
        for arguments, code in cases:
            failed = await client.call_tool("activate_skill", arguments)
            assert (failed.is_error, _text(failed)[: len(code)]) == (True, code)

    run_client(_serve(tree, transport), MODERN, body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_read_skill_resource(transport: str, tree: Path, tmp_path: Path) -> None:
    big_root = tmp_path / "big"
    make_skill(
        big_root,
        "big",
        files={"large.txt": "x" * (MAX_TOOL_READ_BYTES + 1), "max.txt": "y" * MAX_TOOL_READ_BYTES},
    )
    shutil.copytree(tree / "alpha", big_root / "alpha", symlinks=True)
    shutil.copytree(tree / "beta", big_root / "beta", symlinks=True)
    (big_root / "secret.txt").write_bytes(SECRET)

    async def body(client: Client) -> None:
        async def read(name: str, path: Any) -> types.CallToolResult:
            return await client.call_tool("read_skill_resource", {"name": name, "path": path})

        ok = await read("alpha", "references/guide.md")
        assert (ok.is_error, _text(ok)) == (False, "# Guide\n")
        assert _text(await read("alpha", "./references//guide.md")) == "# Guide\n"
        assert _text(await read("alpha", "SKILL.md")) == ALPHA_MANIFEST
        assert _text(await read("beta", "SKILL.md")).endswith("Beta body.")
        assert _text(await read("alpha", "notes/crlf.txt")).encode("utf-8") == CRLF_BOM
        assert _text(await read("big", "max.txt")) == "y" * MAX_TOOL_READ_BYTES
        for path, mime in [
            ("assets/data.bin", "application/octet-stream"),
            ("notes/raw.unknownext", "application/octet-stream"),
        ]:
            binary = await read("alpha", path)
            assert binary.is_error is False
            assert len(binary.content) == 1
            block = binary.content[0]
            assert isinstance(block, types.EmbeddedResource)
            assert isinstance(block.resource, types.BlobResourceContents)
            assert (block.resource.uri, block.resource.mime_type) == (f"skill://alpha/{path}", mime)
            assert base64.b64decode(block.resource.blob) == (tree / "alpha" / path).read_bytes()
        cases: list[tuple[str, Any, str]] = [
            ("alpha", ".env", "not_found"),
            ("alpha", "leak.txt", "path_escape"),
            ("alpha", "references/missing.md", "not_found"),
            ("alpha", "../beta/SKILL.md", "path_escape"),
            ("alpha", "/etc/passwd", "invalid_input"),
            ("alpha", "references", "not_a_file"),
            ("alpha", "nope.md", "not_found"),
            ("alpha", 7, "invalid_input"),
            ("nope", "SKILL.md", "not_found"),
            ("big", "large.txt", "too_large"),
        ]
        for name, path, code in cases:
            failed = await read(name, path)
            assert (path, failed.is_error, _text(failed).split(":")[0]) == (path, True, code)
            assert SECRET.decode() not in _text(failed)
        assert _text(await read("alpha", "alias.md")) == "# Guide\n"
        pycache = await read("alpha", "__pycache__/x.pyc")
        assert (pycache.is_error, _text(pycache).split(":")[0]) == (True, "not_found")
        listed = await read("alpha", ".env")
        assert _text(listed) == "not_found: '.env' is not one of the files of skill 'alpha'"
        typed = await read("alpha", 7)
        assert _text(typed) == "invalid_input: argument 'path' must be a str, got int"

    run_client(_serve(big_root, transport), LEGACY, body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_unknown_tool_is_invalid_params(transport: str, tree: Path) -> None:
    async def body(client: Client) -> None:
        assert await error_of(client.call_tool("run_script", {})) == (
            -32602,
            "unknown tool 'run_script'",
        )

    run_client(_serve(tree, transport), LEGACY, body)


# -- prompts ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_prompts(transport: str, tree: Path, mode: str) -> None:
    async def body(client: Client) -> None:
        prompts = await client.list_prompts()
        assert prompts.next_cursor is None
        assert [(p.name, p.description) for p in prompts.prompts] == [
            ("alpha", "Alpha does things."),
            ("Bad_Name", "The Bad_Name skill."),
            ("beta", "Beta is for users only."),
        ]
        got = await client.get_prompt("beta")
        assert got.description == "Beta is for users only."
        assert [(m.role, m.content) for m in got.messages] == [
            ("user", types.TextContent(text="Beta body."))
        ]
        for name in ["gamma", "nope"]:
            assert await error_of(client.get_prompt(name)) == (-32602, f"unknown prompt {name!r}")

    run_client(_serve(tree, transport), mode, body)


# -- main ---------------------------------------------------------------------------------------


def test_main_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing"
    assert main(["--root", "skills", "--workspace", str(missing)]) == 2
    assert capsys.readouterr().err == f"startup_error: Workspace does not exist: {missing}\n"
    root = tmp_path / "skills"
    make_skill(root, "broken", raw="---\nname: broken\n")
    assert main(["--root", str(root), "--strict"]) == 1
    assert capsys.readouterr().err.startswith("invalid_skill: ")


# -- completeness (SPEC §24) ---------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_resource_templates_list(transport: str, tree: Path, mode: str) -> None:
    async def body(client: Client) -> None:
        listed = await client.list_resource_templates()
        assert [
            (t.uri_template, t.name, t.title, t.mime_type) for t in listed.resource_templates
        ] == [("skill://{name}/{+path}", "skill-file", "A file of a published skill", None)]
        assert listed.next_cursor is None
        assert await error_of(client.list_resource_templates(cursor="x")) == (
            -32602,
            "invalid cursor 'x'",
        )

    run_client(_serve(tree, transport), mode, body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_read_skill_resource_returns_images_as_image_content(
    transport: str, tmp_path: Path
) -> None:
    root = tmp_path / "skills"
    make_skill(
        root,
        "pics",
        files={"assets/logo.png": PNG, "assets/plan.svg": "<svg/>", "notes.txt": "hello\n"},
    )

    async def body(client: Client) -> None:
        async def read(path: str) -> Any:
            result = await client.call_tool("read_skill_resource", {"name": "pics", "path": path})
            assert (result.is_error, len(result.content)) == (False, 1)
            return result.content[0]

        png = await read("assets/logo.png")
        assert isinstance(png, types.ImageContent)
        assert (png.mime_type, base64.b64decode(png.data)) == ("image/png", PNG)
        svg = await read("assets/plan.svg")
        assert isinstance(svg, types.ImageContent)
        assert (svg.mime_type, base64.b64decode(svg.data)) == ("image/svg+xml", b"<svg/>")
        text = await read("notes.txt")
        assert text == types.TextContent(text="hello\n")

    run_client(_serve(root, transport), MODERN, body)


class _BrokenServed(ServedSkill):
    """A served skill whose reads of ``boom.md`` fail with an unexpected exception."""

    def read(self, rel: str | os.PathLike[str], max_bytes: int | None = None) -> bytes:
        if rel == "boom.md":
            raise RuntimeError("disk on fire")
        return super().read(rel, max_bytes)


class _Broken(AgentSkills):
    """An ``AgentSkills`` whose reads fail with an unexpected exception, not a SkillError."""

    def served(self, name: str) -> Any:
        found = super().served(name)
        return None if found is None else _BrokenServed(self.registry, self.config, found.info)


@pytest.mark.parametrize("mode", ERAS)
def test_a_failing_request_never_stops_the_server(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "skills"
    make_skill(root, "fragile", files={"boom.md": "x", "ok.md": "fine\n"})
    skills = _Broken(resolve_config([root]))
    server = SkillServer(skills)
    # Publishing met the same fault: that skill is left out, the server is built.
    assert server.published() == []

    async def body(client: Client) -> None:
        assert (await _list_page(client))["skills"] == []
        for _ in range(2):
            failed = await client.call_tool(
                "read_skill_resource", {"name": "fragile", "path": "boom.md"}
            )
            assert (failed.is_error, _text(failed)) == (
                True,
                "internal_error: RuntimeError: disk on fire",
            )
        ok = await client.call_tool("read_skill_resource", {"name": "fragile", "path": "ok.md"})
        assert (ok.is_error, _text(ok)) == (False, "fine\n")
        assert [t.name for t in (await client.list_tools()).tools] == [
            "activate_skill",
            "read_skill_resource",
        ]

    run_client(server.server, mode, body)


# -- the YAML subset of the official TypeScript skills client (SPEC §24.2) ----------------------

YAML_SUBSET = {
    "anchors": (
        "description: &d Shared.\nsummary: *d\n",
        "yaml_subset: anchors and aliases are not accepted (line 3)",
    ),
    "tags": ("description: !!str Tagged.\n", "yaml_subset: tags are not accepted (line 3)"),
    "indicator": (
        "description: |2\n    Indented by an indicator.\n",
        "yaml_subset: block scalar indentation indicators are not accepted (line 3)",
    ),
    "chomp-indicator": (
        "description: >-2\n    Folded.\n",
        "yaml_subset: block scalar indentation indicators are not accepted (line 3)",
    ),
    "flow-mapping": (
        "description: x\nitems: [{a: b}]\n",
        "yaml_subset: a mapping inside a flow collection is not accepted (line 4)",
    ),
    "flow-pair": (
        "description: x\nitems: [a: b]\n",
        "yaml_subset: a mapping inside a flow collection is not accepted (line 4)",
    ),
    "int-key": (
        "description: x\nmetadata:\n  1: one\n",
        "yaml_subset: the key '1' is not a string (line 5)",
    ),
    "null-key": (
        "description: x\nextra:\n  null: x\n",
        "yaml_subset: the key 'null' is not a string (line 5)",
    ),
    "multi-line-quote": (
        'description: "First line\n  second line"\n',
        "yaml_subset: quoted scalars over several lines are not accepted (line 3)",
    ),
}
YAML_SUBSET_OK = {
    "block": "description: |\n  A literal block.\nsummary: >-\n  Folded.\n",
    "flow-sequence": "description: x\ntags: [a, b]\nmetadata: {k: v}\n",
    "quoted-key": "description: x\nmetadata:\n  '1': one\n",
    "quotes": "description: \"One line\"\nsummary: 'also one'\n",
}


def test_frontmatter_outside_the_yaml_subset_is_not_published(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "skills"
    for name, (yaml_text, _) in YAML_SUBSET.items():
        make_skill(root, name, raw=f"---\nname: {name}\n{yaml_text}---\nBody of {name}.\n")
    for name, yaml_text in YAML_SUBSET_OK.items():
        make_skill(root, name, raw=f"---\nname: {name}\n{yaml_text}---\nBody.\n")
    skills = create_agent_skills([root])
    assert _unpublished(skills, caplog) == {name: why for name, (_, why) in YAML_SUBSET.items()}
    served = SkillServer(skills)
    assert sorted(served.published()) == sorted(YAML_SUBSET_OK)
    # One warning diagnostic per skill left out, naming the yaml_subset reason (SPEC §23.5).
    assert [(d.kind, d.severity, d.path) for d in served.diagnostics] == [
        ("not_published", "warning", root / name / "SKILL.md") for name in sorted(YAML_SUBSET)
    ]
    assert all("yaml_subset" in d.message for d in served.diagnostics)

    async def body(client: Client) -> None:
        # Left out of the extension, still reachable through the tools.
        result = await client.call_tool("activate_skill", {"name": "anchors"})
        assert (result.is_error, "Body of anchors." in _text(result)) == (False, True)
        assert await error_of(_get(client, "skill://anchors/SKILL.md")) == (
            -32602,
            "no skill is served at 'skill://anchors/SKILL.md'",
        )

    run_client(build_server(skills), MODERN, body)


def test_the_shared_tree_leaves_out_bad_name(tree: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert _unpublished(create_agent_skills([tree]), caplog) == {
        "Bad_Name": "name_uppercase: name 'Bad_Name' must be lowercase (line 2)",
    }
