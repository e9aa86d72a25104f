"""The streamable HTTP transport of the MCP server: the application, its session limits and
``/healthz`` (SPEC §24.4).

Owns only the HTTP side; the server is ``_server``'s. The HTTP stack (starlette, uvicorn) loads
with the first application built: stdio serving never imports it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from mcp.server.lowlevel import Server

from .._diagnostics import get_logger
from .._errors import StartupError

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette

    from .._watch import SkillWatcher

__all__ = [
    "LOOPBACK_NAMES",
    "MAX_SESSIONS",
    "SESSION_IDLE_TIMEOUT",
    "HttpServed",
    "allowed_hosts",
    "http_app",
    "refusal",
    "session_manager_class",
]

logger = get_logger()

#: Most streamable HTTP sessions open at once (SPEC §24.4).
MAX_SESSIONS = 1000
#: Seconds an HTTP session may stay idle before it is closed (SPEC §24.4: 30 minutes).
SESSION_IDLE_TIMEOUT = 30 * 60.0


#: The names a loopback client uses: always allowed in the ``Host`` and ``Origin`` headers.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

# Bind addresses meaning every interface: no name of their own a client would use.
_WILDCARDS = ("0.0.0.0", "::", "")


def _host_name(name: str) -> str:
    """``name`` as a ``Host`` header writes it: an IPv6 address in brackets."""
    import ipaddress

    try:
        ipaddress.IPv6Address(name.split("%", 1)[0])
    except ValueError:
        return name
    return f"[{name}]"


def allowed_hosts(host: str, allow: Sequence[str] = ()) -> list[str]:
    """The names a request may carry in ``Host`` and, as ``http(s)://NAME``, in ``Origin`` when
    the server binds ``host`` (SPEC §24.4, §30): the loopback names, the bind address itself
    unless it is a wildcard (``0.0.0.0``, ``::``), and every name in ``allow``
    (``--allow-host``; a name with ``:PORT`` allows that port only). An IP address is also
    accepted in ``Host`` (see :func:`refusal`).

    Raises:
        StartupError: A name in ``allow`` that is empty or holds a scheme, a path, a space or
            a wildcard.
    """
    names = list(LOOPBACK_NAMES)
    candidates = [] if host in _WILDCARDS else [host]
    for name in [*candidates, *allow]:
        if not _is_host_name(name):
            raise StartupError(
                f"--allow-host takes a host name or address (with an optional :PORT), got {name!r}"
            )
        shown = _host_name(name).lower()
        if shown not in names:
            names.append(shown)
    return names


# A host name or IPv4 address, or a bracketed IPv6 address, with an optional :PORT.
_NAME_RE = re.compile(
    r"(?P<host>[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+(?:%[A-Za-z0-9._-]+)?\])"
    r"(?::(?P<port>[0-9]{1,5}))?"
)


def _is_host_name(name: object) -> bool:
    """A name ``--allow-host`` takes: a host name or address with an optional ``:PORT``, or a
    bare IPv6 address."""
    if not isinstance(name, str):
        return False
    match = _NAME_RE.fullmatch(name)
    if match is not None:
        return match.group("port") is None or 0 < int(match.group("port")) < 65536
    return _host_name(name) != name


def _split(value: str) -> tuple[str, str | None] | None:
    """``(host, port)`` of a ``Host`` header's value (lower case), or ``None`` if malformed."""
    match = _NAME_RE.fullmatch(value.strip())
    if match is None:
        return None
    return match.group("host").lower(), match.group("port")


def _is_ip(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


def _named(host: str, port: str | None, names: Sequence[str]) -> bool:
    for name in names:
        allowed = _split(name)
        if allowed is not None and allowed[0] == host and allowed[1] in (None, port):
            return True
    return False


def refusal(
    host: str | Sequence[str] | None, origin: str | Sequence[str] | None, names: Sequence[str]
) -> tuple[int, str] | None:
    """Why a request is refused by the DNS rebinding protection, or ``None`` (SPEC §30). Pure.

    ``Host`` must be present once and name an allowed host (``names``, from
    :func:`allowed_hosts`) or an IP address: a page whose domain an attacker rebinds to the
    server sends that domain, never an address. ``Origin``, when sent, must be sent once and be
    ``http(s)://`` an allowed host.

    Args:
        host: The ``Host`` header's value, or every value sent (a list).
        origin: The ``Origin`` header's value, or every value sent; ``None`` or ``[]`` when
            none was sent.
        names: The allowed names.

    Returns:
        ``(421, reason)`` for the host, ``(403, reason)`` for the origin (more than one
        ``Origin`` included), or ``None``.
    """
    host = _only(host)
    if host is _MANY:
        return 421, "Invalid Host header"
    origin = _only(origin)
    if origin is _MANY:
        return 403, "Invalid Origin header"
    parsed = _split(host) if host else None
    if parsed is None or not (_named(*parsed, names) or _is_ip(parsed[0])):
        return 421, "Invalid Host header"
    if origin is None:
        return None
    scheme, sep, rest = origin.partition("://")
    source = _split(rest) if sep and scheme.lower() in ("http", "https") else None
    if source is None or not _named(*source, names):
        return 403, "Invalid Origin header"
    return None


_MANY = "\x00many"  # (no header value holds NUL)


def _only(values: str | Sequence[str] | None) -> str | None:
    """The one value of a header, ``None`` when absent, :data:`_MANY` when sent more than once."""
    if values is None or isinstance(values, str):
        return values
    if len(values) > 1:
        return _MANY
    return values[0] if values else None


class _HostGuard:
    """ASGI middleware refusing what :func:`refusal` refuses, before any route runs."""

    def __init__(self, app: Any, names: Sequence[str]) -> None:
        self.app = app
        self.names = tuple(names)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            from starlette.datastructures import Headers
            from starlette.responses import PlainTextResponse

            headers = Headers(scope=scope)
            refused = refusal(headers.getlist("host"), headers.getlist("origin"), self.names)
            if refused is not None:
                status, reason = refused
                await PlainTextResponse(reason, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)


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
            # The SDK calls this under its session-creation lock and it never awaits: counting
            # the sessions, closing the one idle longest and registering the new one are one
            # step, so concurrent openings never find the table full while a session is idle.
            if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
                self._close_oldest_idle()
            transport = super()._admit_session(requestor)
            if transport is not None and transport.mcp_session_id is not None:
                self._last_used[transport.mcp_session_id] = anyio.current_time()
            return transport

        async def _handle_stateful_request(self, scope: Any, receive: Any, send: Any) -> None:
            session_id = Headers(scope=scope).get(MCP_SESSION_ID_HEADER)
            if session_id in self._server_instances:
                self._last_used[session_id] = anyio.current_time()
            try:
                await super()._handle_stateful_request(scope, receive, send)
            finally:
                if session_id in self._server_instances:
                    self._last_used[session_id] = anyio.current_time()
                for gone in self._last_used.keys() - self._server_instances.keys():
                    del self._last_used[gone]

        def _close_oldest_idle(self) -> None:
            """Forget the session idle longest (no request in flight) at once, and end its
            transport on the manager's task group."""
            idle = [
                (self._last_used.get(sid, 0.0), sid)
                for sid, transport in self._server_instances.items()
                if getattr(transport, "_requests_in_flight", 0) == 0
            ]
            if not idle:
                return
            _, sid = min(idle)
            logger.info("closing idle MCP session %s: %d sessions open", sid, len(idle))
            transport = self._server_instances.pop(sid)
            self._session_owners.pop(sid, None)
            self._last_used.pop(sid, None)
            if self._task_group is not None:
                self._task_group.start_soon(self._discard_session, sid, transport)

    return _SessionManager


def http_app(
    served: HttpServed,
    *,
    host: str = "127.0.0.1",
    allow_hosts: Sequence[str] = (),
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

    Every request, ``/healthz`` included, must name an allowed host (or an IP address) in
    ``Host`` and, when it sends one, an allowed host in ``Origin`` (DNS rebinding protection, on
    every bind address: :func:`allowed_hosts`, :func:`refusal`); another is refused with
    ``421`` (``403`` for the origin).

    Args:
        host: The address the server binds.
        allow_hosts: More names clients use to reach it (``--allow-host``): a server bound to
            ``0.0.0.0`` answers other machines only under the names given here.
        stateless: Serve without sessions.
        watch: Watch the roots while the application runs (SPEC §23.2).
        debounce_ms: With ``watch``, how long changes must settle, in milliseconds.
        max_sessions: Most sessions open at once.
        session_idle_timeout: Seconds a session may stay idle.

    Returns:
        A Starlette application (run it with any ASGI server).
    """
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    names = allowed_hosts(host, allow_hosts)
    manager = session_manager_class()(
        served.server,
        stateless=stateless,
        # Without sessions there is no stream to keep open: plain JSON answers cost less.
        json_response=stateless,
        # The Host and Origin checks are the application's own (_HostGuard), on every route.
        security_settings=None,
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
        middleware=[Middleware(_HostGuard, names=names)],
        lifespan=lifespan,
    )
