"""One request never stops the server (SPEC §24.5, §30.4): with skill folders, file names and
archive members that are not UTF-8, a render that would be too large, a parameter holding a lone
surrogate and a line that is not JSON, every request gets an answer (a result or a JSON-RPC
error with a real code, never ``0``) written as valid UTF-8, and the server then answers
``ping``: over stdio (the command line's ``serve``) and streamable HTTP."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import httpx2 as httpx  # the HTTP client the mcp SDK itself uses

from agent_skills import create_agent_skills
from agent_skills.mcp import SkillServer
from conftest import make_skill
from mcp_support import HEADERS, Uvicorn, initialize_params

pytestmark = [
    pytest.mark.slow,
    pytest.mark.live,
    pytest.mark.skipif(sys.platform == "darwin", reason="APFS refuses non-UTF-8 names"),
]

WAIT = 30.0
JSONRPC_CODES = {-32700, -32600, -32601, -32602, -32603}


def _tar_root(path: Path) -> Path:
    """A .tar.gz root whose members' names hold bytes that are not UTF-8."""
    members = {
        "arch/SKILL.md": b"---\nname: arch\ndescription: An archived skill.\n---\nArch.\n",
        "arch/references/n\udcfd.md": b"undecodable member\n",
        "t\udcfc/SKILL.md": b"---\nname: tarodd\ndescription: Odd top folder.\n---\nOdd.\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", errors="surrogateescape") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(buffer.getvalue())
    return path


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    base = tmp_path_factory.mktemp("answers")
    root = base / "skills"
    odd = make_skill(
        root,
        os.fsdecode(b"odd\xff"),
        raw=b"---\nname: oddname\ndescription: Odd folder.\n---\nDir: ${SKILL_DIR} $0\n",
    )
    (odd / "references").mkdir()
    (odd / "references" / "ok.md").write_text("fine\n")
    (odd / "references" / os.fsdecode(b"r\xfe.md")).write_text("undecodable file\n")
    make_skill(root, "good", raw=b"---\nname: good\ndescription: Good.\n---\nGood body.\n")
    huge_body = ("$0" * 200_000).encode()
    make_skill(root, "huge", raw=b"---\nname: huge\ndescription: Huge.\n---\n" + huge_body)
    return [root, _tar_root(base / "more.tar.gz")]


def _request(rid: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def _call(rid: int, tool: str, **arguments: str) -> bytes:
    return _request(rid, "tools/call", {"name": tool, "arguments": arguments})


# Each request (raw bytes, as a client may write them) and what its answer must be: a result
# holding these texts, or an error of this code.
CASES: list[tuple[str, bytes, dict[str, Any]]] = [
    (
        "activate an undecodable folder",
        _call(10, "activate_skill", name="oddname"),
        {"result": ["odd\\xff", "references/r\\xfe.md", "references/ok.md"]},
    ),
    (
        "activate an archived skill",
        _call(11, "activate_skill", name="arch"),
        {"result": ["references/n\\xfd.md"]},
    ),
    (
        "activate an undecodable archive folder",
        _call(12, "activate_skill", name="tarodd"),
        {"result": ["Odd."]},
    ),
    (
        "read a listed file",
        _call(13, "read_skill_resource", name="oddname", path="references/ok.md"),
        {"result": ["fine"]},
    ),
    (
        "read a name holding a lone surrogate",
        b'{"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": {"name": '
        b'"read_skill_resource", "arguments": {"name": "oddname", '
        b'"path": "references/r\\udcfe.md"}}}',
        {"error": -32700},
    ),
    (
        "a prompt naming its undecodable folder",
        _request(15, "prompts/get", {"name": "oddname"}),
        {"result": ["odd\\xff"]},
    ),
    (
        "a prompt too large to render",
        _request(16, "prompts/get", {"name": "huge", "arguments": {"arguments": "x" * 200}}),
        {"error": -32603},
    ),
    (
        "a prompt named by a lone surrogate",
        b'{"jsonrpc": "2.0", "id": 17, "method": "prompts/get", "params": {"name": "odd\\udcff"}}',
        {"error": -32700},
    ),
    (
        "an unpublished skill's manifest",
        _request(18, "resources/read", {"uri": "skill://oddname/SKILL.md"}),
        {"error": -32602},
    ),
    (
        "skills/get of an undecodable URI",
        _request(19, "skills/get", {"uri": "skill://odd%FF/SKILL.md"}),
        {"error": -32602},
    ),
    (
        "a tool of a skill named by a surrogate",
        b'{"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {"name": '
        b'"activate_skill", "arguments": {"name": "odd\\udcff"}}}',
        {"error": -32700},
    ),
    (
        "read an undecodable file by the name it was shown",
        _call(23, "read_skill_resource", name="oddname", path="references/r\\xfe.md"),
        {"result": ["undecodable file"]},
    ),
    (
        "read an undecodable archive member by the name it was shown",
        _call(24, "read_skill_resource", name="arch", path="references/n\\xFD.md"),
        {"result": ["undecodable member"]},
    ),
    (
        "read an undecodable file by its file name alone, as shown",
        _call(26, "read_skill_resource", name="oddname", path="r\\xfe.md"),
        {"result": ["undecodable file"]},
    ),
    (
        "read a name shown with a byte that names no file",
        _call(25, "read_skill_resource", name="oddname", path="references/r\\xfd.md"),
        {"result": ["not_found: ", "did you mean references/r\\xfe.md"]},
    ),
    ("prompts/list", _request(21, "prompts/list", {}), {"result": ["oddname", "arch"]}),
    ("tools/list", _request(22, "tools/list", {}), {"result": ["activate_skill"]}),
]


def _check(answer: dict[str, Any], expected: dict[str, Any], rid: int | None) -> None:
    assert answer.get("id") == rid, answer
    if "error" in expected:
        assert "error" in answer, answer
        assert answer["error"]["code"] == expected["error"], answer
        assert answer["error"]["code"] in JSONRPC_CODES
        return
    assert "result" in answer, answer
    text = "\n".join(_strings(answer["result"]))
    for part in expected["result"]:
        assert part in text, (part, text[:500])


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _decoded(line: bytes) -> dict[str, Any]:
    """One line written by the server: strict UTF-8 JSON (no lone surrogate escapes either)."""
    text = line.decode("utf-8")  # raises on invalid UTF-8
    assert "\\ud8" not in text.lower() and "\\udc" not in text.lower()
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


class _Stdio:
    """``agent-skills serve`` as a process, spoken to line by line."""

    def __init__(self, roots: list[Path]) -> None:
        args = [sys.executable, "-m", "agent_skills", "serve", "--preset", "none"]
        for root in roots:
            args += ["--root", str(root)]
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], WAIT)
        assert ready, "no answer"
        line = self.proc.stdout.readline()
        assert line, "the server stopped"
        return _decoded(line)

    def initialize(self) -> None:
        self.send(
            _request(
                1,
                "initialize",
                initialize_params(),
            )
        )
        assert "result" in self.receive()
        self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def ping(self, rid: int) -> None:
        self.send(_request(rid, "ping", {}))
        assert self.receive() == {"jsonrpc": "2.0", "id": rid, "result": {}}

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(WAIT)


def test_stdio_answers_every_request_and_then_ping(roots: list[Path]) -> None:
    server = _Stdio(roots)
    try:
        server.initialize()
        for rid, (label, line, expected) in enumerate(CASES, 100):
            server.send(line)
            answer = server.receive()
            assert "id" in answer, label
            _check(
                answer, expected, json.loads(line)["id"] if b"\\ud" not in line else answer["id"]
            )
            server.ping(rid)
        for junk, rid in ((b"{not json", None), (b"\xff\xfe garbage", None), (b"[]", None)):
            server.send(junk)
            answer = server.receive()
            assert answer["error"]["code"] in (-32700, -32600), (junk, answer)
            assert answer.get("id") == rid
            server.ping(500)
        assert server.proc.poll() is None
    finally:
        server.close()


def _answers(response: httpx.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages of one HTTP answer (a JSON body or an event stream)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [
            _decoded(line[len(b"data:") :].strip())
            for line in response.content.splitlines()
            if line.startswith(b"data:") and line[len(b"data:") :].strip()
        ]
    return [_decoded(response.content)]


@pytest.fixture
def http_server(roots: list[Path]) -> Iterator[tuple[httpx.Client, str, dict[str, str]]]:
    server = SkillServer(create_agent_skills(roots))
    with Uvicorn(server.http_app(), wait=WAIT) as port, httpx.Client(timeout=WAIT) as http:
        url = f"http://127.0.0.1:{port}/mcp"
        init = initialize_params()
        response = http.post(url, content=_request(1, "initialize", init), headers=HEADERS)
        assert response.status_code == 200
        headers = {
            **HEADERS,
            "mcp-session-id": response.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-06-18",
        }
        http.post(
            url,
            content=b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
            headers=headers,
        )
        yield http, url, headers


def test_http_answers_every_request_and_then_ping(
    http_server: tuple[httpx.Client, str, dict[str, str]],
) -> None:
    http, url, headers = http_server
    for rid, (label, line, expected) in enumerate(CASES, 100):
        response = http.post(url, content=line, headers=headers)
        [answer] = _answers(response)
        if expected.get("error") == -32700:
            # The transport cannot read the body: 400 with a parse error (JSON-RPC 2.0).
            assert response.status_code == 400, label
            assert answer["error"]["code"] == -32700
        else:
            assert response.status_code == 200, label
            _check(answer, expected, json.loads(line)["id"])
        ping = http.post(url, content=_request(rid, "ping", {}), headers=headers)
        assert _answers(ping) == [{"jsonrpc": "2.0", "id": rid, "result": {}}], label


def _nested(depth: int, open_: bytes = b"[", close: bytes = b"]") -> bytes:
    return open_ * depth + close * depth


# Lines nested past what the server looks into, and requests whose id JSON-RPC does not allow:
# each is answered (-32700 or -32600 with a null id), and the server keeps answering.
REFUSED: list[tuple[bytes, int]] = [
    (b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":' + _nested(1_000) + b"}}", -32700),
    (b'{"jsonrpc":"2.0","id":3,"method":"ping","params":' + _nested(100_000) + b"}", -32700),
    (
        b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":'
        + b'{"b":' * 5_000
        + b"1"
        + b"}" * 5_001,
        -32700,
    ),
    (_nested(200_000), -32700),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600),
]


def test_stdio_answers_deep_lines_and_invalid_ids(roots: list[Path]) -> None:
    server = _Stdio(roots)
    try:
        server.initialize()
        for rid, (line, code) in enumerate(REFUSED, 600):
            server.send(line)
            answer = server.receive()
            assert answer["id"] is None, line[:60]
            assert answer["error"]["code"] == code, (line[:60], answer)
            server.ping(rid)
        assert server.proc.poll() is None
    finally:
        server.close()
