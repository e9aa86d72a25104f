"""The stdio transport of the MCP server: every request read is answered before the end of input
is passed on (SPEC §17), a line the SDK cannot read included (SPEC §30.4).

Owns only the streams' wrapping; the server is ``_server``'s.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from .._terminal import undecodable_text

__all__ = ["serve_stdio"]


_DRAIN_SECONDS = 30.0


class _AnswerBeforeClosing:
    """Stdio streams that answer every request already read before the end of input is passed on.

    A client may write its requests and close stdin at once (``printf ... | agent-skills serve``);
    the SDK ends the connection, and cancels the handlers still running, as soon as it reads the end
    of input. The reader holds the end back until each request read so far has had its response
    or error written, was cancelled by the client, or ``_DRAIN_SECONDS`` have passed.
    """

    def __init__(self, read_stream: Any, write_stream: Any) -> None:
        self._pending: set[object] = set()
        self.reader = _CountingReader(read_stream, self)
        self.writer = _CountingWriter(write_stream, self)

    def read(self, item: object) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCRequest):
            self._pending.add(message.id)
        elif (
            isinstance(message, types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
            and isinstance(message.params, dict)
        ):
            self._pending.discard(message.params.get("requestId"))

    def written(self, item: object) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._pending.discard(message.id)

    async def refuse(self, exc: Exception) -> None:
        """Answer a line the SDK could not read as a JSON-RPC message (SPEC §30.4): ``-32700``
        with the request's id when the line is JSON that names one (JSON the SDK refuses, such
        as a lone surrogate escape), else with ``null`` as JSON-RPC 2.0 says."""
        line = _input_of(exc)
        request_id: object = None
        try:
            message = json.loads(line) if line is not None else None
        except ValueError:
            message = None
        if isinstance(message, dict) and "method" in message:
            candidate = message.get("id")
            if isinstance(candidate, str | int) and not isinstance(candidate, bool):
                request_id = (
                    undecodable_text(candidate) if isinstance(candidate, str) else candidate
                )
        if request_id is None and isinstance(message, dict) and "method" in message:
            return  # a notification: nothing to answer
        error = types.JSONRPCError(
            jsonrpc="2.0",
            id=request_id,  # type: ignore[arg-type]
            error=types.ErrorData(
                code=types.PARSE_ERROR,
                message="Parse error: the line is not a JSON-RPC message the server can read",
            ),
        )
        await self.writer.send(SessionMessage(error))

    async def drain(self) -> None:
        with anyio.move_on_after(_DRAIN_SECONDS):
            while self._pending:
                await anyio.sleep(0.005)


class _CountingReader:
    def __init__(self, inner: Any, owner: _AnswerBeforeClosing) -> None:
        self._inner = inner
        self._owner = owner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        while True:
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                await self._owner.drain()
                raise
            if isinstance(item, Exception):  # a line the SDK could not parse: answered here
                await self._owner.refuse(item)
                continue
            self._owner.read(item)
            return item

    def __aiter__(self) -> _CountingReader:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _CountingReader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _CountingWriter:
    def __init__(self, inner: Any, owner: _AnswerBeforeClosing) -> None:
        self._inner = inner
        self._owner = owner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, item: Any, /) -> None:
        await self._inner.send(item)
        self._owner.written(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _CountingWriter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _input_of(exc: Exception) -> str | None:
    """The line a parse failure of the SDK's reader was about, when the error keeps it."""
    errors = getattr(exc, "errors", None)
    try:
        found = errors()[0].get("input") if callable(errors) else None
    except (IndexError, TypeError, AttributeError):
        return None
    return found if isinstance(found, str) else None


async def serve_stdio(server: Server[Any]) -> None:
    """Run ``server`` on this process's stdin and stdout until the client closes stdin."""
    async with stdio_server() as (read_stream, write_stream):
        replies = _AnswerBeforeClosing(read_stream, write_stream)
        await server.run(replies.reader, replies.writer, server.create_initialization_options())
