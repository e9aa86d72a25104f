"""The MCP server (SPEC §17) through real transports and independent clients.

What the server answers is asserted once, in ``test_mcp_inprocess.py``, over both the SDK's
in-memory streams and a stdio subprocess. Here: the raw handshake on the wire, the CLI's ``serve``,
streamable HTTP, and the MCP Inspector CLI verifying digests and frontmatter of every served skill.
"""

from __future__ import annotations

import json
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

from agent_skills import create_agent_skills
from agent_skills.mcp import EXTENSION_ID, PAGE_SIZE, build_server
from conftest import CORPUS, REPO, SRC, make_skill, symlink
from mcp_support import (
    GetParams,
    GetSkill,
    ListSkills,
    add_invocation_skills,
    free_port,
    initialize_request,
)
from mcp_support import (
    stdio_params as _params,
)

# The server on the wire: subprocesses, the CLI, the MCP Inspector.
pytestmark = [pytest.mark.slow, pytest.mark.live]

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
).resolve()  # The Inspector runs only when started by its real path (it compares argv[1] with
# its own file), so a linked .ci/node_modules is resolved first.
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


def test_legacy_initialize_result_carries_extension_on_the_wire(tree: Path) -> None:
    request = initialize_request(1)
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


def test_every_request_written_before_stdin_closes_is_answered(tree: Path) -> None:
    """A client that writes its requests and closes stdin at once still gets every reply."""
    initialize = initialize_request(0)
    requests = [
        initialize,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(1, 21)),
        {"jsonrpc": "2.0", "id": 21, "method": "prompts/list"},
        {"jsonrpc": "2.0", "id": 22, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 23, "method": "tools/list"},
    ]
    params = _params(tree)
    proc = subprocess.run(
        [params.command, *params.args],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        env={**os.environ, **(params.env or {})},
        timeout=120,
        check=False,
    )
    replies = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert sorted(r["id"] for r in replies) == list(range(24))
    assert all("result" in r for r in replies)
    assert proc.returncode == 0


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


def test_streamable_http(tree: Path) -> None:
    port = free_port()
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


def test_inspector_lists_the_resource_template(tmp_path: Path) -> None:
    # The MCP Inspector (like several SDK clients) asks for templates; -32601 broke them (§24.1).
    home = tmp_path / "home"
    home.mkdir()
    command = [*_inspector(), "--method", "resources/templates/list", "--format", "json", "-q"]
    command += [sys.executable, "-m", "agent_skills.mcp", "--preset", "none"]
    command += ["--root", str(EXAMPLES)]
    proc = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home), "PYTHONPATH": str(SRC)},
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    templates = json.loads(proc.stdout)["result"]["resourceTemplates"]
    assert [(t["name"], t["uriTemplate"]) for t in templates] == [
        ("skill-file", "skill://{name}/{+path}")
    ]
