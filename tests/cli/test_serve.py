"""Ctrl-C ends ``agent-skills serve`` at once: a real server process, on stdio (stdin a pipe or a
terminal, with and without ``--watch``) and on streamable HTTP with a client connected, gets
SIGINT and is gone within 2 seconds with exit status 130 and one line on stderr, no traceback."""

from __future__ import annotations

import json
import os
import pty
import signal
import socket
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import click
import pytest

pytest.importorskip("mcp")

from agent_skills.cli import main
from conftest import make_skill, src_on_path
from mcp_support import initialize_request

ENV = {**os.environ, **src_on_path()}
GONE_WITHIN = 2.0  # seconds from SIGINT to the process's exit
START = 60.0  # seconds a server may take to start on this shared machine

INITIALIZE = initialize_request(0)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    skills = tmp_path / "skills"
    make_skill(skills, "alpha", files={"references/guide.md": "one\n"})
    return skills


def _serve(root: Path, *args: str, **popen: Any) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "agent_skills", "serve", *args]
    command += ["--preset", "none", "--root", str(root)]
    return subprocess.Popen(command, env=ENV, stderr=subprocess.PIPE, **popen)


def _interrupt(proc: subprocess.Popen[bytes]) -> tuple[float, int, str]:
    """SIGINT, then (seconds until the process was gone, exit status, stderr)."""
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=GONE_WITHIN + 10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("the server was still running 12 s after SIGINT")
    elapsed = time.monotonic() - sent
    assert proc.stderr is not None
    return elapsed, proc.returncode, proc.stderr.read().decode("utf-8", "replace")


def _handshake(proc: subprocess.Popen[bytes]) -> None:
    """Send initialize and wait for its answer: the server is serving."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    assert answer["id"] == 0 and "result" in answer


@pytest.mark.slow
@pytest.mark.live
@pytest.mark.parametrize("watch", [False, True])
def test_sigint_ends_serve_on_stdio_at_once(root: Path, watch: bool) -> None:
    if watch:
        pytest.importorskip("watchfiles")
    args = ("--watch",) if watch else ()
    proc = _serve(root, *args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        _handshake(proc)
        # The client keeps stdin open and writes nothing: the server waits on a read.
        elapsed, status, stderr = _interrupt(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (status, stderr) == (130, "\naborted: interrupted\n")
    assert elapsed < GONE_WITHIN


@pytest.mark.slow
@pytest.mark.live
def test_sigint_ends_serve_on_a_terminal_at_once(root: Path) -> None:
    # A person runs the server by hand: stdin is a terminal, and nothing was typed.
    leader, follower = pty.openpty()
    try:
        proc = _serve(root, stdin=follower, stdout=subprocess.PIPE)
        try:
            os.write(leader, json.dumps(INITIALIZE).encode() + b"\n")
            assert proc.stdout is not None
            assert json.loads(proc.stdout.readline())["id"] == 0
            elapsed, status, stderr = _interrupt(proc)
        finally:
            if proc.poll() is None:
                proc.kill()
    finally:
        os.close(leader)
        os.close(follower)
    # stdin is a terminal: the server first said what it waits for.
    waiting = "serving 1 skill over MCP: waiting for a client on stdin (Ctrl-C to stop)\n"
    assert (status, stderr) == (130, waiting + "\naborted: interrupted\n")
    assert elapsed < GONE_WITHIN


@pytest.mark.slow
@pytest.mark.live
def test_sigint_ends_serve_over_http_at_once(root: Path) -> None:
    import anyio
    from mcp import Client

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = _serve(root, "--http", "--port", str(port), stdout=subprocess.DEVNULL)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline().decode()
        url = f"http://127.0.0.1:{port}/mcp"
        assert line == f"listening on {url}\n"
        result: list[tuple[float, int, str]] = []

        async def go() -> None:
            # A connected client, its session open (and its event stream, on this era).
            async with Client(url, mode="legacy", cache=None) as client:
                tools = (await client.list_tools()).tools
                assert [t.name for t in tools] == ["activate_skill", "read_skill_resource"]
                result.append(await anyio.to_thread.run_sync(_interrupt, proc))

        anyio.run(go)
    finally:
        if proc.poll() is None:
            proc.kill()
    ((elapsed, status, stderr),) = result
    assert (status, stderr) == (130, "\naborted: interrupted\n")
    assert elapsed < GONE_WITHIN


@pytest.mark.parametrize(("raised", "status"), [(KeyboardInterrupt(), 130), (click.Abort(), 1)])
def test_the_command_line_exits_130_on_an_interrupt_only(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    status: int,
) -> None:
    def run_stdio(skills: Any, **_: Any) -> None:
        raise raised

    fake = types.ModuleType("agent_skills.mcp")
    fake.run_stdio = run_stdio  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agent_skills.mcp", fake)
    assert main(["serve", "--preset", "none", "--root", str(root)]) == status
    assert capsys.readouterr().err.endswith("aborted: interrupted\n")
