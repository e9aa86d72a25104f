"""The stdio transport of the MCP server: every request read is answered before the end of input
is passed on, a line the SDK cannot read included (SPEC §30.4), and stdin is read without a thread
blocked on it, so an interrupt (Ctrl-C) ends the server at once (SPEC §17).

Owns only the streams' wrapping; the server is ``_server``'s.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from .._jsonfile import decode_json
from .._terminal import undecodable_text

__all__ = ["StdinLines", "serve_stdio"]


_DRAIN_SECONDS = 30.0
# Most bytes taken from stdin by one read.
_READ_BYTES = 65_536


class _AnswerBeforeClosing:
    """Stdio streams that answer every request already read before the end of input is passed on.

    A client may write its requests and close stdin at once (``printf ... | agent-skills serve``);
    the SDK ends the connection, and cancels the handlers still running, as soon as it reads the end
    of input. The reader holds the end back until each request read so far has had its response
    or error written, was cancelled by the client, or ``_DRAIN_SECONDS`` have passed.
    """

    def __init__(
        self, read_stream: Any, write_stream: Any, lines: deque[str] | None = None
    ) -> None:
        self._pending: set[object] = set()
        # The lines read, in the order the SDK turns each into one item of ``read_stream``.
        self._lines = lines if lines is not None else deque()
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

    def line_of(self) -> str | None:
        """The line the item being received was read from (the SDK makes one item per line,
        in order), or ``None`` when the lines are not kept."""
        return self._lines.popleft() if self._lines else None

    async def refuse(self, line: str | None) -> None:
        """Answer a line the SDK could not read as a JSON-RPC request (SPEC §30.4, JSON-RPC 2.0
        §5.1): ``-32700`` with the request's id when the line is JSON that names one (JSON the
        SDK refuses, such as a lone surrogate escape), else with ``null``; ``-32600`` with
        ``null`` for a request whose ``id`` is neither a string nor an integer (a float,
        ``true``, ``null``, an object: the SDK reads it as a notification). The line is looked
        into only when it nests at most 64 levels (``_jsonfile.decode_json``; a deeper one is
        answered ``-32700``, never decoded)."""
        code, request_id = _refusal(line)
        if code is None:
            return  # a notification: nothing to answer
        message = (
            "Parse error: the line is not a JSON-RPC message the server can read"
            if code == types.PARSE_ERROR
            else "Invalid Request: a request's id must be a string or an integer"
        )
        error = types.JSONRPCError(
            jsonrpc="2.0",
            id=request_id,
            error=types.ErrorData(code=code, message=message),
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
            line = self._owner.line_of()
            if isinstance(item, Exception):  # a line the SDK could not parse: answered here
                await self._owner.refuse(line if line is not None else _input_of(item))
                continue
            if (
                line is not None
                and isinstance(getattr(item, "message", None), types.JSONRPCNotification)
                and _refusal(line)[0] == types.INVALID_REQUEST
            ):  # a request with an id JSON-RPC does not allow, read by the SDK as a notification
                await self._owner.refuse(line)
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


def _refusal(line: str | None) -> tuple[int | None, str | int | None]:
    """The error code and id a line the SDK refused is answered with; ``(None, None)`` for a
    notification (no ``id``), which gets no answer."""
    message: object = None
    if line is not None:
        try:
            message = decode_json(line)
        except ValueError:
            message = None
    if not isinstance(message, dict) or "method" not in message:
        return types.PARSE_ERROR, None
    if "id" not in message:
        return None, None
    candidate = message["id"]
    if isinstance(candidate, bool) or not isinstance(candidate, str | int):
        return types.INVALID_REQUEST, None
    return types.PARSE_ERROR, undecodable_text(candidate) if isinstance(candidate, str) else (
        candidate
    )


def _input_of(exc: Exception) -> str | None:
    """The line a parse failure of the SDK's reader was about, when the error keeps it."""
    errors = getattr(exc, "errors", None)
    try:
        found = errors()[0].get("input") if callable(errors) else None
    except (IndexError, TypeError, AttributeError):
        return None
    return found if isinstance(found, str) else None


class StdinLines:
    """The lines of a file descriptor (stdin), as the SDK's stdio transport reads them.

    The SDK reads stdin on a worker thread, which stays blocked in ``read`` until the next line:
    an interrupt then waits for the user to press Enter. Here the event loop waits until the
    descriptor is readable and only then reads what is there, so cancelling the server stops the
    reading at once. A descriptor the event loop cannot wait on (a regular file, ``/dev/null``),
    whose reads never block for long, is read on a worker thread. Lines are decoded as UTF-8
    with replacement characters, as the SDK decodes them.
    """

    def __init__(self, fd: int = 0, *, keep: bool = False) -> None:
        self._fd = fd
        #: Each line returned, kept for the reader of the SDK's items when ``keep`` is true.
        self.taken: deque[str] | None = deque() if keep else None
        self._buffer = bytearray()
        self._scanned = 0  # the buffer holds no newline before this offset
        self._eof = False
        try:
            self._pollable = not stat.S_ISREG(os.fstat(fd).st_mode)
        except OSError:
            self._pollable = False

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        while True:
            newline = self._buffer.find(b"\n", self._scanned)
            if newline >= 0:
                line = bytes(self._buffer[: newline + 1])
                del self._buffer[: newline + 1]
                self._scanned = 0
                return self._taken(line.decode("utf-8", errors="replace"))
            self._scanned = len(self._buffer)
            if self._eof:
                if not self._buffer:
                    raise StopAsyncIteration
                rest = bytes(self._buffer)
                self._buffer.clear()
                self._scanned = 0
                return self._taken(rest.decode("utf-8", errors="replace"))
            chunk = await self._read()
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True

    def _taken(self, line: str) -> str:
        if self.taken is not None:
            self.taken.append(line)
        return line

    async def _read(self) -> bytes:
        while self._pollable:
            try:
                await anyio.wait_readable(self._fd)
            except OSError:  # the event loop cannot wait on this descriptor
                self._pollable = False
                break
            try:
                return os.read(self._fd, _READ_BYTES)  # readable: returns at once
            except BlockingIOError:  # (a non-blocking descriptor another reader emptied)
                continue
        return await anyio.to_thread.run_sync(os.read, self._fd, _READ_BYTES)


async def serve_stdio(server: Server[Any]) -> None:
    """Run ``server`` on this process's stdin and stdout until the client closes stdin (or the
    task running it is cancelled: an interrupt ends it at once)."""
    stdin = StdinLines(0, keep=True)
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
        replies = _AnswerBeforeClosing(read_stream, write_stream, stdin.taken)
        await server.run(replies.reader, replies.writer, server.create_initialization_options())
