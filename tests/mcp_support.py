"""Pieces shared by the MCP tests: raw requests for the Skills extension, common skills, and a
uvicorn server on a thread."""

from __future__ import annotations

import hashlib
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from pydantic import BaseModel, ConfigDict

from conftest import make_skill, src_on_path


class ListSkills(types.Request[types.PaginatedRequestParams, Literal["skills/list"]]):
    """A raw ``skills/list`` request (the SDK has no typed call for the extension)."""

    method: Literal["skills/list"] = "skills/list"


class GetParams(types.RequestParams):
    """Parameters of ``skills/get``; ``uri`` may be left out to test the error."""

    uri: str | None = None


class GetSkill(types.Request[GetParams, Literal["skills/get"]]):
    """A raw ``skills/get`` request."""

    method: Literal["skills/get"] = "skills/get"


class Raw(BaseModel):
    """Any result, every field kept as sent (``model_dump()`` gives the JSON object back)."""

    model_config = ConfigDict(extra="allow")


#: The notifications a server sends when its skills change (SPEC §23.2).
CHANGED = {
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
    "notifications/tools/list_changed",
}


class Notes:
    """The methods of the notifications a client receives (its ``message_handler``);
    ``got_all`` is set once every method of ``CHANGED`` came."""

    def __init__(self) -> None:
        self.methods: list[str] = []
        self.got_all = anyio.Event()

    def reset(self) -> None:
        self.methods.clear()
        self.got_all = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        method = getattr(message, "method", None)
        if method is not None:
            self.methods.append(method)
        if set(self.methods) >= CHANGED:
            self.got_all.set()


async def write_until_notified(path: Path, notes: Notes, wait: float) -> None:
    """Write new text to ``path`` until ``notes`` got every change notification; fail after
    ``wait`` seconds. A watcher starts with its server, so a first write may land before it
    watches."""
    with anyio.fail_after(wait):
        version = 0
        while not notes.got_all.is_set():
            version += 1
            path.write_text(f"version {version}\n")
            with anyio.move_on_after(2):
                await notes.got_all.wait()


def stdio_params(*roots: Path, extra: Sequence[str] = ()) -> StdioServerParameters:
    """``python -m agent_skills.mcp`` with ``extra`` options, no preset, and ``roots``."""
    args = ["-m", "agent_skills.mcp", *extra, "--preset", "none"]
    for root in roots:
        args += ["--root", str(root)]
    return StdioServerParameters(command=sys.executable, args=args, env=src_on_path())


def server_of(roots: Sequence[Path], transport: str, *extra: str) -> Any:
    """The server of ``roots``: a ``Server`` object for ``"inprocess"``, else the stdio
    parameters of a subprocess (given the ``extra`` options)."""
    if transport == "inprocess":
        from agent_skills import create_agent_skills
        from agent_skills.mcp import build_server

        return build_server(create_agent_skills(list(roots)))
    return stdio_params(*roots, extra=extra)


def run_client(server: Any, mode: str, body: Callable[[Client], Awaitable[None]]) -> None:
    """Connect an ``mcp.Client`` (``mode`` ``"legacy"`` or ``"auto"``, no cache) to ``server``
    (a server object or stdio parameters) and run ``body`` with it."""

    async def go() -> None:
        async with Client(server, mode=mode, cache=None) as client:
            await body(client)

    anyio.run(go)


async def list_all_skills(client: Any) -> list[dict[str, Any]]:
    """Every ``skills/list`` entry ``client`` (an ``mcp.Client``) is given, all pages followed."""
    entries: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        request = ListSkills(params=types.PaginatedRequestParams(cursor=cursor))
        page = (await client.session.send_request(request, Raw)).model_dump()
        entries.extend(page["skills"])
        cursor = page.get("nextCursor")
        if cursor is None:
            return entries


def initialize_params() -> dict[str, Any]:
    """The parameters of a raw ``initialize`` request (protocol revision 2025-06-18)."""
    return {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }


def initialize_request(rid: int) -> dict[str, Any]:
    """A raw JSON-RPC ``initialize`` request with the id ``rid``."""
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": initialize_params()}


def add_invocation_skills(root: Path) -> None:
    """Add ``beta`` (users only), ``gamma`` (models only) and ``Bad_Name`` (not publishable)."""
    make_skill(
        root,
        "beta",
        frontmatter={
            "name": "beta",
            "description": "Beta is for users only.",
            "disable-model-invocation": True,
        },
        body="Beta body.",
    )
    make_skill(
        root,
        "gamma",
        frontmatter={
            "name": "gamma",
            "description": "Gamma is for models only.",
            "user-invocable": False,
        },
        body="Gamma body.",
    )
    make_skill(root, "Bad_Name", body="Bad body.")


async def error_of(call: Awaitable[Any]) -> tuple[int, str]:
    """Await ``call`` and return the ``(code, message)`` of the MCP error it must raise."""
    try:
        await call
    except MCPError as err:
        return err.code, err.message
    raise AssertionError("the call succeeded")


def digest(data: bytes) -> str:
    """The manifest digest of ``data`` (MCP Skills extension: ``sha256:<hex>``)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


#: The headers of a raw streamable HTTP request.
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def free_port() -> int:
    """A loopback TCP port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Uvicorn:
    """A uvicorn server of ``app`` on a thread, on a free loopback port; entering it returns
    the port once the server has started (within ``wait`` seconds)."""

    def __init__(self, app: Any, *, wait: float = 30.0, log_level: str = "critical") -> None:
        import uvicorn

        self.port = free_port()
        self.wait = wait
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level=log_level)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> int:
        self.thread.start()
        deadline = time.monotonic() + self.wait
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise AssertionError("uvicorn did not start")
            time.sleep(0.02)
        return self.port

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(self.wait)
