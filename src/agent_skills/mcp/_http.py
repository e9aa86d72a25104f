"""The streamable HTTP transport of the MCP server: the application, its session limits and
``/healthz`` (SPEC §24.4).

Owns only the HTTP side; the server is ``_server``'s. The HTTP stack (starlette, uvicorn) loads
with the first application built: stdio serving never imports it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from mcp.server.lowlevel import Server

from .._diagnostics import get_logger

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette

    from .._watch import SkillWatcher

__all__ = [
    "MAX_SESSIONS",
    "SESSION_IDLE_TIMEOUT",
    "HttpServed",
    "http_app",
    "session_manager_class",
]

logger = get_logger()

#: Most streamable HTTP sessions open at once (SPEC §24.4).
MAX_SESSIONS = 1000
#: Seconds an HTTP session may stay idle before it is closed (SPEC §24.4: 30 minutes).
SESSION_IDLE_TIMEOUT = 30 * 60.0


class HttpServed(Protocol):
    """What the application serves: a :class:`~agent_skills.mcp.SkillServer`."""

    @property
    def server(self) -> Server[Any]:
        """The SDK's server."""
        ...

    def skill_count(self) -> int:
        """How many skills are served now (``/healthz``)."""
        ...

    def watch(self, *, debounce_ms: int = 200) -> SkillWatcher:
        """Watch the roots; after each change rebuild and notify."""
        ...


def session_manager_class() -> type[StreamableHTTPSessionManager]:
    """The SDK's session manager, closing the session idle longest when full (SPEC §24.4).

    Built on first use, so that stdio serving never imports the HTTP stack.
    """
    from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.datastructures import Headers

    class _SessionManager(StreamableHTTPSessionManager):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._last_used: dict[str, float] = {}

        def _admit_session(self, requestor: Any) -> Any:
            transport = super()._admit_session(requestor)
            if transport is not None and transport.mcp_session_id is not None:
                self._last_used[transport.mcp_session_id] = anyio.current_time()
            return transport

        async def _handle_stateful_request(self, scope: Any, receive: Any, send: Any) -> None:
            session_id = Headers(scope=scope).get(MCP_SESSION_ID_HEADER)
            if (
                session_id is None
                and self.max_sessions is not None
                and len(self._server_instances) >= self.max_sessions
            ):
                await self._close_oldest_idle()
            if session_id in self._server_instances:
                self._last_used[session_id] = anyio.current_time()
            try:
                await super()._handle_stateful_request(scope, receive, send)
            finally:
                if session_id in self._server_instances:
                    self._last_used[session_id] = anyio.current_time()
                for gone in self._last_used.keys() - self._server_instances.keys():
                    del self._last_used[gone]

        async def _close_oldest_idle(self) -> None:
            idle = [
                (self._last_used.get(sid, 0.0), sid)
                for sid, transport in self._server_instances.items()
                if getattr(transport, "_requests_in_flight", 0) == 0
            ]
            if idle:
                _, sid = min(idle)
                logger.info("closing idle MCP session %s: %d sessions open", sid, len(idle))
                await self._discard_session(sid, self._server_instances[sid])

    return _SessionManager


def http_app(
    served: HttpServed,
    *,
    host: str = "127.0.0.1",
    stateless: bool = False,
    watch: bool = False,
    debounce_ms: int = 200,
    max_sessions: int = MAX_SESSIONS,
    session_idle_timeout: float = SESSION_IDLE_TIMEOUT,
) -> Starlette:
    """The streamable HTTP application: ``/mcp`` and ``GET /healthz`` (SPEC §24.4).

    With sessions (the default), at most ``max_sessions`` are open at once: opening one
    more closes the session idle longest (one with no request in flight); a session idle
    for ``session_idle_timeout`` seconds is closed. With ``stateless``, every request is
    served on its own (streamable HTTP stateless mode): replicas behind any load balancer
    need no affinity, and with ``watch`` clients see a change on their next request.
    ``GET /healthz`` answers 200 ``{"status": "ok", "skills": N}``.

    Args:
        host: The address the server binds; for loopback addresses requests must carry a
            loopback ``Host`` and ``Origin`` (DNS rebinding protection).
        stateless: Serve without sessions.
        watch: Watch the roots while the application runs (SPEC §23.2).
        debounce_ms: With ``watch``, how long changes must settle, in milliseconds.
        max_sessions: Most sessions open at once.
        session_idle_timeout: Seconds a session may stay idle.

    Returns:
        A Starlette application (run it with any ASGI server).
    """
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    security = None
    if host in ("127.0.0.1", "localhost", "::1"):
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    manager = session_manager_class()(
        served.server,
        stateless=stateless,
        # Without sessions there is no stream to keep open: plain JSON answers cost less.
        json_response=stateless,
        security_settings=security,
        session_idle_timeout=session_idle_timeout,
        max_sessions=max_sessions,
    )

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "skills": served.skill_count()})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        watcher = served.watch(debounce_ms=debounce_ms) if watch else None
        try:
            async with manager.run():
                yield
        finally:
            if watcher is not None:
                watcher.stop()

    return Starlette(
        routes=[
            Route("/mcp", endpoint=StreamableHTTPASGIApp(manager)),
            Route("/healthz", endpoint=healthz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
