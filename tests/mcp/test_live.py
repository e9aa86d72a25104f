"""Live MCP serving (SPEC §23.2, §24.4): notifications after changes, HTTP sessions, stateless
mode, ``--host`` and ``/healthz``. Every wait is bounded; changes are real file writes."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("watchfiles")

import anyio
import httpx2 as httpx  # the HTTP client the mcp SDK itself uses
import mcp_types as types
from mcp import Client, StdioServerParameters
from pydantic import ConfigDict

from agent_skills import create_agent_skills
from agent_skills.mcp import SkillServer
from conftest import SRC, make_skill, src_on_path
from mcp_support import (
    HEADERS,
    ListSkills,
    Notes,
    Uvicorn,
    digest,
    free_port,
    initialize_request,
    write_until_notified,
)

# Real servers over stdio and HTTP, each in its own process.
pytestmark = [pytest.mark.slow, pytest.mark.live]

WAIT = 20.0  # seconds: the most a test waits for one event on this shared machine


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    make_skill(root, "alpha", files={"references/guide.md": "one\n"})
    return root


async def _entries(client: Client) -> dict[str, Any]:
    page = await client.session.send_request(
        ListSkills(params=types.PaginatedRequestParams()), _Raw
    )
    return {e["uri"]: e for e in page.model_dump()["skills"]}


class _Raw(types.Result):
    model_config = ConfigDict(extra="allow")


def _run(server: Any, mode: str, body: Callable[[Client, Notes], Awaitable[None]]) -> None:
    async def main() -> None:
        notes = Notes()
        async with Client(server, mode=mode, cache=None, message_handler=notes) as client:
            await body(client, notes)

    anyio.run(main)


# -- notifications (SPEC §23.2) -------------------------------------------------------------------


def test_list_changed_declared_only_when_watching(tmp_path: Path) -> None:
    root = _root(tmp_path)

    async def watched(client: Client, notes: Notes) -> None:
        caps = client.server_capabilities
        assert caps.resources is not None and caps.resources.list_changed is True
        assert caps.prompts is not None and caps.prompts.list_changed is True
        assert caps.tools is not None and caps.tools.list_changed is True

    async def plain(client: Client, notes: Notes) -> None:
        caps = client.server_capabilities
        assert caps.resources is not None and not caps.resources.list_changed
        assert caps.tools is not None and not caps.tools.list_changed

    skills = create_agent_skills([root])
    for mode in ("legacy", "auto"):
        _run(SkillServer(skills, list_changed=True).server, mode, watched)
        _run(SkillServer(skills).server, mode, plain)


def test_handshake_client_is_notified_and_sees_the_new_digest(tmp_path: Path) -> None:
    root = _root(tmp_path)
    served = SkillServer(create_agent_skills([root]), list_changed=True)

    async def body(client: Client, notes: Notes) -> None:
        before = await _entries(client)
        uri = "skill://alpha/references/guide.md"
        old = {r["uri"]: r["digest"] for r in before["skill://alpha/SKILL.md"]["resources"]}
        assert old[uri] == digest(b"one\n")
        watcher = served.watch(debounce_ms=50)
        try:
            (root / "alpha" / "references" / "guide.md").write_text("two\n")
            with anyio.fail_after(WAIT):
                await notes.got_all.wait()
            after = await _entries(client)
            new = {r["uri"]: r["digest"] for r in after["skill://alpha/SKILL.md"]["resources"]}
            assert new[uri] == digest(b"two\n")
            read = await client.read_resource(uri)
            assert isinstance(read.contents[0], types.TextResourceContents)
            assert read.contents[0].text == "two\n"
            # A new skill reaches the tool enum and the prompts.
            notes.methods.clear()
            notes.got_all = anyio.Event()
            staging = tmp_path / "staging"
            make_skill(staging, "beta")
            os.rename(staging / "beta", root / "beta")
            with anyio.fail_after(WAIT):
                await notes.got_all.wait()
            tools = (await client.list_tools()).tools
            assert tools[0].input_schema["properties"]["name"]["enum"] == ["alpha", "beta"]
            assert [p.name for p in (await client.list_prompts()).prompts] == ["alpha", "beta"]
            assert sorted(await _entries(client)) == [
                "skill://alpha/SKILL.md",
                "skill://beta/SKILL.md",
            ]
        finally:
            watcher.stop()

    _run(served.server, "legacy", body)


def test_modern_client_hears_changes_on_its_listen_stream(tmp_path: Path) -> None:
    root = _root(tmp_path)
    served = SkillServer(create_agent_skills([root]), list_changed=True)

    async def body(client: Client, notes: Notes) -> None:
        assert client.protocol_version == "2026-07-28"
        watcher = served.watch(debounce_ms=50)
        kinds: set[str] = set()
        try:
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as subscription:
                (root / "alpha" / "SKILL.md").write_text(
                    "---\nname: alpha\ndescription: Edited.\n---\nNew.\n"
                )
                with anyio.fail_after(WAIT):
                    async for event in subscription:
                        kinds.add(type(event).__name__)
                        if len(kinds) == 3:
                            break
        finally:
            watcher.stop()
        assert kinds == {"ResourcesListChanged", "PromptsListChanged", "ToolsListChanged"}
        entry = (await _entries(client))["skill://alpha/SKILL.md"]
        assert entry["frontmatter"]["description"] == "Edited."

    _run(served.server, "auto", body)


def test_serve_watch_over_stdio_notifies_the_official_client(tmp_path: Path) -> None:
    root = _root(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_skills", "serve", "--watch", "--preset", "none", "--root", str(root)],
        env=src_on_path(),
    )

    async def body(client: Client, notes: Notes) -> None:
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        uri = "skill://alpha/references/guide.md"
        await _entries(client)
        # The watcher starts with the server; write until the first notification arrives, in
        # case the server had not finished starting when the first write landed.
        guide = root / "alpha" / "references" / "guide.md"
        await write_until_notified(guide, notes, WAIT)
        entry = (await _entries(client))["skill://alpha/SKILL.md"]
        served = {r["uri"]: r["digest"] for r in entry["resources"]}
        assert served[uri] == digest(guide.read_bytes())

    _run(params, "legacy", body)


# -- HTTP (SPEC §24.4) ----------------------------------------------------------------------------


@contextlib.contextmanager
def _uvicorn(app: Any) -> Iterator[str]:
    """A uvicorn server of ``app`` on a thread; yields its base URL."""
    with Uvicorn(app, wait=WAIT, log_level="warning") as port:
        yield f"http://127.0.0.1:{port}"


_INIT = initialize_request(1)


def _open_session(http: httpx.Client, base: str) -> str:
    response = http.post(f"{base}/mcp", json=_INIT, headers=HEADERS)
    assert response.status_code == 200, response.text
    session = response.headers["mcp-session-id"]
    http.post(
        f"{base}/mcp",
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers={**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"},
    )
    return session


def _ping(http: httpx.Client, base: str, session: str) -> int:
    response = http.post(
        f"{base}/mcp",
        json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
        headers={**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"},
    )
    return response.status_code


@pytest.fixture
def skills(tmp_path: Path) -> Any:
    return create_agent_skills([_root(tmp_path)])


def test_healthz(skills: Any) -> None:
    with _uvicorn(SkillServer(skills).http_app()) as base:
        response = httpx.get(f"{base}/healthz")
        assert (response.status_code, response.json()) == (200, {"status": "ok", "skills": 1})
        assert httpx.post(f"{base}/healthz").status_code == 405


def test_full_session_table_closes_the_oldest_idle_session(skills: Any) -> None:
    app = SkillServer(skills).http_app(max_sessions=2)
    with _uvicorn(app) as base, httpx.Client(timeout=WAIT) as http:
        first = _open_session(http, base)
        second = _open_session(http, base)
        assert _ping(http, base, first) == 200  # now `second` is the one idle longest
        third = _open_session(http, base)
        assert (_ping(http, base, second), _ping(http, base, first)) == (404, 200)
        assert _ping(http, base, third) == 200


def test_idle_sessions_expire(skills: Any) -> None:
    app = SkillServer(skills).http_app(session_idle_timeout=0.3)
    with _uvicorn(app) as base, httpx.Client(timeout=WAIT) as http:
        session = _open_session(http, base)
        deadline = time.monotonic() + WAIT
        while _ping(http, base, session) == 200:
            assert time.monotonic() < deadline, "the idle session was never closed"
            time.sleep(0.4)
        assert _ping(http, base, session) == 404


def test_default_limits() -> None:
    from agent_skills.mcp import MAX_SESSIONS, SESSION_IDLE_TIMEOUT

    assert (MAX_SESSIONS, SESSION_IDLE_TIMEOUT) == (1000, 1800.0)


def test_stateless_needs_no_session_and_sees_changes_on_the_next_request(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    served = SkillServer(create_agent_skills([root]), list_changed=True)
    app = served.http_app(stateless=True, watch=True, debounce_ms=50)
    with _uvicorn(app) as base, httpx.Client(timeout=WAIT) as http:
        response = http.post(f"{base}/mcp", json=_INIT, headers=HEADERS)
        assert response.status_code == 200
        assert "mcp-session-id" not in response.headers

        async def body(client: Client, notes: Notes) -> None:
            uri = "skill://alpha/references/guide.md"
            (root / "alpha" / "references" / "guide.md").write_text("three\n")
            with anyio.fail_after(WAIT):
                while True:
                    entry = (await _entries(client))["skill://alpha/SKILL.md"]
                    digests = {r["uri"]: r["digest"] for r in entry["resources"]}
                    if digests[uri] == digest(b"three\n"):
                        break
                    await anyio.sleep(0.05)

        _run(f"{base}/mcp", "legacy", body)


@pytest.fixture
def served_http(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    root = _root(tmp_path)
    port = free_port()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "agent_skills", "serve", "--http", "--host", "127.0.0.1"),
            *("--port", str(port), "--stateless", "--preset", "none", "--root", str(root)),
        ],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        proc.terminate()
        proc.wait(timeout=WAIT)


def test_cli_serves_http_with_host_and_healthz(
    served_http: tuple[str, subprocess.Popen[bytes]],
) -> None:
    base, _ = served_http
    assert httpx.get(f"{base}/healthz").json() == {"status": "ok", "skills": 1}

    async def body(client: Client, notes: Notes) -> None:
        assert sorted(await _entries(client)) == ["skill://alpha/SKILL.md"]

    _run(f"{base}/mcp", "auto", body)
    # Loopback binding keeps DNS rebinding protection: a foreign Host header is refused.
    refused = httpx.post(f"{base}/mcp", json=_INIT, headers={**HEADERS, "Host": "evil.example"})
    assert (refused.status_code, refused.text) == (421, "Invalid Host header")


def test_watch_without_watchfiles_fails_before_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from agent_skills import StartupError
    from agent_skills.cli import cli
    from agent_skills.mcp import run_http

    root = _root(tmp_path)
    monkeypatch.setitem(sys.modules, "watchfiles._rust_notify", None)
    hint = f"install it with: {sys.executable} -m pip install 'watchfiles>=0.21'"
    with pytest.raises(StartupError, match=re.escape(hint)):
        run_http(create_agent_skills([root]), port=free_port(), watch=True)
    for args in (["--http", "--port", str(free_port())], []):
        result = CliRunner().invoke(
            cli, ["serve", "--watch", *args, "--preset", "none", "--root", str(root)]
        )
        assert result.exit_code == 2
        assert result.stderr.splitlines()[-1].startswith(
            "startup_error: watching skills needs the 'watch' extra ('watchfiles' is installed "
            "but does not import: "
        )
        assert result.stderr.splitlines()[-1].endswith(
            hint + " (or, from a checkout: pip install '.[watch]')"
        )


def test_concurrent_openings_at_the_cap_close_idle_sessions_and_never_get_503(
    skills: Any,
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    cap = 8
    app = SkillServer(skills).http_app(max_sessions=cap)
    statuses: list[int] = []
    opened: list[str] = []
    lock = threading.Lock()
    with _uvicorn(app) as base:
        with httpx.Client(timeout=WAIT) as http:
            for _ in range(cap):  # the table full of idle sessions
                opened.append(_open_session(http, base))

        def open_many(count: int) -> None:
            with httpx.Client(timeout=WAIT) as http:
                for _ in range(count):
                    response = http.post(f"{base}/mcp", json=_INIT, headers=HEADERS)
                    with lock:
                        statuses.append(response.status_code)
                        if "mcp-session-id" in response.headers:
                            opened.append(response.headers["mcp-session-id"])

        deadline = time.monotonic() + 4 * WAIT
        with ThreadPoolExecutor(6) as pool:
            for future in [pool.submit(open_many, 20) for _ in range(6)]:
                future.result(timeout=max(1.0, deadline - time.monotonic()))
        assert statuses.count(503) == 0
        assert statuses == [200] * 120
        with httpx.Client(timeout=WAIT) as http:
            alive = [s for s in opened if _ping(http, base, s) == 200]
        assert len(opened) == cap + 120
        assert 0 < len(alive) <= cap
