"""The MCP server of a set of skills (SPEC §17).

This wing (``agent_skills.mcp``) is the only part of the package that imports the ``mcp`` SDK
(the ``mcp`` extra);
``import agent_skills`` never loads it. :class:`SkillServer` turns an
:class:`~agent_skills.AgentSkills` into an ``mcp.server.lowlevel.Server`` that offers, on every
protocol era (the ``initialize`` handshake and the 2026-07-28 ``server/discover`` era):

- the MCP Skills extension ``io.modelcontextprotocol/skills`` (SEP-2640): ``skills/list`` (pages of
  at most 100 entries behind an opaque cursor) and ``skills/get``, each entry with the
  ``skill://<name>/SKILL.md`` URI, the verbatim frontmatter and a complete manifest (``uri``,
  ``size``, ``sha256:`` digest) of the skill's files;
- ``resources/list`` (one ``SKILL.md`` per published skill, then the discovery index
  ``skill://index.json`` of the same skills, SPEC §29.1), ``resources/templates/list`` (the
  ``skill://{name}/{+path}`` template) and ``resources/read`` of every manifest file, returning
  the exact bytes that were hashed, and of the index;
- the tools ``activate_skill`` and ``read_skill_resource`` for hosts without the extension;
- one prompt per user-invocable skill.

A skill's files are its ``SKILL.md`` plus exactly what :meth:`AgentSkills.load_skill` lists (SPEC
§9), always read through :meth:`AgentSkills.read_resource` (SPEC §10): hidden files, escaping or
dangling links and anything else outside that list are never listed nor served. The manifests are a
snapshot taken when the server is built; a file changed on disk afterwards is refused on read
(``-32603``) rather than served with bytes that no longer match its digest.

Protocol errors: ``-32602`` (invalid params) for an unknown or malformed URI (``..`` or
``%2e%2e`` segments, a query or a fragment; from ``resources/read`` with ``data: {"uri": <the URI
asked for>}``, which tells a client "not found" from a failure), an unknown prompt or tool, a bad
cursor; ``-32603`` for a file that cannot be read any more. Tool failures are results with
``isError: true`` whose text starts with the :class:`~agent_skills.ErrorCode` (``not_found: ...``).

Run it with ``agent-skills serve`` or ``python -m agent_skills.mcp`` (the same command and
options). The publication rules are ``_publish``'s, the transports ``_stdio``'s and ``_http``'s.
"""

from __future__ import annotations

import base64
import binascii
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote, unquote

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .._args import coerce_str
from .._core import AgentSkills
from .._diagnostics import Diagnostic, get_logger
from .._digest import file_digest
from .._errors import ErrorCode, SkillError, StartupError
from .._terminal import undecodable_text, wire_safe
from .._tools import (
    ACTIVATE_TOOL_NAME,
    DEFAULT_MAX_READ_BYTES,
    READ_TOOL_NAME,
    FileRead,
    read_skill_resource,
    tool_definition,
)
from .._version import __version__
from ..agent import SkillSession, render_skill
from ._http import MAX_SESSIONS, SESSION_IDLE_TIMEOUT, http_app
from ._publish import (
    INDEX_NAME,
    INDEX_URI,
    SCHEME,
    PublishedSkill,
    build_catalog,
    file_uri,
    is_utf8,
)
from ._stdio import serve_stdio

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from .._watch import SkillChanges, SkillWatcher

__all__ = [
    "EXTENSION_ID",
    "MAX_TOOL_READ_BYTES",
    "PAGE_SIZE",
    "PROMPT_ARGUMENT",
    "RESOURCE_TEMPLATE",
    "SkillServer",
    "build_server",
    "run_http",
    "run_stdio",
]

logger = get_logger()


#: Identifier of the MCP Skills extension (SEP-2640), the key under ``capabilities.extensions``.
EXTENSION_ID = "io.modelcontextprotocol/skills"


#: The one argument every prompt takes: the text typed after the skill's name (SPEC §22.8).
PROMPT_ARGUMENT = "arguments"


#: Most entries on one page of ``skills/list``, ``resources/list`` and ``prompts/list``.
PAGE_SIZE = 100


#: Largest file ``read_skill_resource`` returns, in bytes (the SPEC §14 default read cap).
MAX_TOOL_READ_BYTES = DEFAULT_MAX_READ_BYTES


# The notifications sent after a change (SPEC §23.2).
_LIST_CHANGED = (
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
    "notifications/tools/list_changed",
)


# Longest one client may take to accept the change notifications, in seconds.
_NOTIFY_TIMEOUT_S = 5.0


#: The URI template of every published file (SPEC §24.1, RFC 6570 reserved expansion).
RESOURCE_TEMPLATE = "skill://{name}/{+path}"


# Cache hints sent on 2026-07-28 connections, where the extension's results require them.
_TTL_MS = 0


_CACHE_SCOPE = "private"


_T = TypeVar("_T")


def _canonical_uri(uri: str) -> str:
    """Return the canonical spelling of a ``skill://`` URI, for lookups.

    Segments are percent-decoded and encoded again, so ``%c3%a9`` and ``%C3%A9`` meet.

    Raises:
        MCPError: ``-32602`` for another scheme, a query or fragment, an empty, ``.`` or ``..``
            segment (raw or percent-encoded), an encoded separator or NUL, or invalid UTF-8.
    """
    if not uri.startswith(SCHEME):
        raise _invalid_params(f"not a skill:// URI: {uri!r}")
    rest = uri[len(SCHEME) :]
    if "?" in rest or "#" in rest:
        raise _invalid_params(f"skill URIs take no query or fragment: {uri!r}")
    segments: list[str] = []
    for raw in rest.split("/"):
        try:
            segment = unquote(raw, errors="strict")
        except UnicodeDecodeError:
            raise _invalid_params(f"malformed percent-encoding in {uri!r}") from None
        if segment in ("", ".", "..") or any(c in segment for c in "/\\\0"):
            raise _invalid_params(f"malformed skill URI segment {raw!r} in {uri!r}")
        segments.append(segment)
    return SCHEME + "/".join(quote(segment, safe="") for segment in segments)


def _invalid_params(message: str, uri: str | None = None) -> MCPError:
    """A ``-32602`` error; for a resource URI, with ``data: {"uri": uri}`` (SEP-2164), the one
    shape by which clients such as Microsoft Agent Framework tell "not found" from a failure."""
    data = {"uri": uri} if uri is not None else None
    return MCPError(code=types.INVALID_PARAMS, message=message, data=data)


def _encode_cursor(kind: str, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{offset}".encode()).decode("ascii")


def _page(kind: str, items: Sequence[_T], cursor: str | None) -> tuple[Sequence[_T], str | None]:
    """Return one page of ``items`` and the cursor of the next page (``None`` on the last).

    Raises:
        MCPError: ``-32602`` for a cursor this server did not hand out for ``kind``.
    """
    start = 0
    if cursor is not None:
        try:
            label, _, number = (
                base64.urlsafe_b64decode(cursor.encode("ascii")).decode().partition(":")
            )
            start = int(number) if label == kind and number.isdigit() else -1
        except (binascii.Error, UnicodeError, ValueError):
            start = -1
        if not 0 < start < len(items):
            raise _invalid_params(f"invalid cursor {cursor!r}")
    end = start + PAGE_SIZE
    return items[start:end], _encode_cursor(kind, end) if end < len(items) else None


def _with_cache_fields(ctx: ServerRequestContext[Any], result: dict[str, Any]) -> dict[str, Any]:
    """Add ``ttlMs``/``cacheScope``, which the 2026-07-28 revision requires on extension results."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        result["ttlMs"] = _TTL_MS
        result["cacheScope"] = _CACHE_SCOPE
    return result


class _GetSkillParams(types.RequestParams):
    """Params of ``skills/get``: the ``SKILL.md`` URI of a served skill."""

    uri: str


def _tool_error(code: str, message: str) -> types.CallToolResult:
    """A tool failure: ``isError`` and one text block that starts with the code (SPEC §17)."""
    return types.CallToolResult(
        content=[types.TextContent(text=f"{code}: {message}")], is_error=True
    )


def _file_content(read: FileRead) -> types.ContentBlock:
    """One tool result block for a file (SPEC §24.3).

    ``image/*`` files are ``ImageContent``, other strict UTF-8 files text, anything else an
    embedded resource holding a base64 blob.
    """
    media, text = read.media_type, read.text
    if media.startswith("image/"):
        return types.ImageContent(data=base64.b64encode(read.data).decode("ascii"), mime_type=media)
    if text is not None:
        return types.TextContent(text=text)
    blob = types.BlobResourceContents(
        uri=file_uri(read.name, read.rel),
        mime_type=media,
        blob=base64.b64encode(read.data).decode("ascii"),
    )
    return types.EmbeddedResource(resource=blob)


async def _in_thread(fn: Callable[[], _T]) -> _T:
    """Run blocking file I/O off the event loop."""
    return await anyio.to_thread.run_sync(fn)


async def _answer_every_request(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """The one place every answer of the server passes (SPEC §24.5, §30.4): a result or an
    error, encodable as UTF-8 whatever names it carries, so one request never stops the server.

    A result and an error's message and data are made wire-safe (``_terminal.wire_safe``: an
    undecodable byte of a file name written ``\\xNN``); a failure that is no protocol error (a
    fault of ours) is logged and answered ``-32603`` (never the SDK's code ``0``). Parameters
    the SDK finds malformed stay its ``-32602``.
    """
    try:
        result = await call_next(ctx)
    except MCPError as err:
        error = err.error
        message = undecodable_text(error.message)
        data = wire_safe(error.data)
        if message == error.message and data is error.data:
            raise
        raise MCPError(code=error.code, message=message, data=data) from None
    except ValidationError:
        raise  # the SDK answers -32602 "Invalid request parameters", holding no input
    except Exception as exc:
        logger.exception("request %s failed", undecodable_text(str(ctx.method)))
        raise MCPError(
            code=types.INTERNAL_ERROR,
            message=undecodable_text(f"internal error: {type(exc).__name__}: {exc}"),
        ) from None
    return wire_safe(result) if isinstance(result, dict) else result


class _Server(Server[Any]):
    """The SDK's low-level server, declaring ``listChanged`` when the skills are watched."""

    def __init__(self, name: str, *, list_changed: bool, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self.list_changed = list_changed

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        if notification_options is None and self.list_changed:
            notification_options = NotificationOptions(
                prompts_changed=True, resources_changed=True, tools_changed=True
            )
        return super().create_initialization_options(
            notification_options, experimental_capabilities, extensions
        )


class SkillServer:
    """The MCP server of a set of skills (SPEC §17, §23.2, §24).

    Every skill's files are read and hashed when the server is built (and again by
    :meth:`rebuild`): the extension's manifests are that snapshot. Skills that hosts could not
    accept (SPEC §17: Agent Skills ``name``/``description``/``compatibility``/``metadata`` rules,
    a UTF-8 ``SKILL.md`` named exactly so whose frontmatter parses without repair, at most 512
    files and 16 MiB, no paths that collide ignoring case; SPEC §24.2: frontmatter within the
    YAML subset of the official TypeScript client) are left out of ``skills/*`` and
    ``resources/*`` with a ``not_published`` warning diagnostic (:attr:`diagnostics`), and stay
    available through the tools and prompts.

    Args:
        skills: The skills to serve.
        list_changed: Declare ``listChanged: true`` for resources, prompts and tools and serve
            ``subscriptions/listen`` (set when the skills are watched, SPEC §23.2).

    Attributes:
        server: The ``mcp.server.lowlevel.Server``; run it with :func:`run_stdio`,
            :func:`run_http` or the SDK's own transports.
    """

    def __init__(self, skills: AgentSkills, *, list_changed: bool = False) -> None:
        self._skills = skills
        self._catalog = build_catalog(skills)
        self._list_changed = list_changed
        # Handshake-era connections, told about changes on their own channel.
        self._connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        # 2026-07-28 connections listen for changes through subscriptions/listen.
        self._bus = InMemorySubscriptionBus()
        self.server: Server[Any] = self._build()

    @property
    def skills(self) -> AgentSkills:
        """The :class:`~agent_skills.AgentSkills` served."""
        return self._skills

    def published(self) -> list[str]:
        """Return the names of the skills published through the extension, sorted as SPEC §8."""
        return [skill.name for skill in self._catalog.skills]

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The ``not_published`` warnings of the last build: one per skill left out (§17, §24.2)."""
        return self._catalog.diagnostics

    def rebuild(self) -> None:
        """Hash the current snapshot of the skills again and serve it (SPEC §23.2)."""
        self._catalog = build_catalog(self._skills)

    async def announce_changes(self) -> None:
        """Send the three ``list_changed`` notifications to every connected client (SPEC §23.2).

        Handshake-era clients get them on their session; 2026-07-28 clients on their
        ``subscriptions/listen`` streams. A client that went away is skipped.
        """
        for connection in list(self._connections):
            try:
                # A client that stopped reading must not hold up the others (or the watcher).
                with anyio.move_on_after(_NOTIFY_TIMEOUT_S):
                    for method in _LIST_CHANGED:
                        await connection.outbound.notify(method, None)
            except Exception:  # a closed connection must not stop the others
                self._connections.discard(connection)
        for event in (ResourcesListChanged(), PromptsListChanged(), ToolsListChanged()):
            await self._bus.publish(event)

    def watch(self, *, debounce_ms: int = 200) -> SkillWatcher:
        """Watch the skills' roots; after each change rebuild and notify (SPEC §23.1-§23.2).

        Call it from the event loop that runs the server: the notifications are sent on it.

        Returns:
            The running :class:`~agent_skills.SkillWatcher`; stop it when the server ends.

        Raises:
            StartupError: ``watchfiles`` is missing (the ``watch`` extra).
        """
        token = anyio.lowlevel.current_token()

        def changed(changes: SkillChanges) -> None:
            self.rebuild()
            logger.info(
                "skills changed: added %s, removed %s, changed %s",
                list(changes.added),
                list(changes.removed),
                list(changes.changed),
            )
            anyio.from_thread.run(self.announce_changes, token=token)

        return self._skills.watch(changed, debounce_ms=debounce_ms)

    def skill_count(self) -> int:
        """How many skills are served now."""
        return len(self._skills)

    def http_app(
        self,
        *,
        host: str = "127.0.0.1",
        allow_hosts: Sequence[str] = (),
        stateless: bool = False,
        watch: bool = False,
        debounce_ms: int = 200,
        max_sessions: int = MAX_SESSIONS,
        session_idle_timeout: float = SESSION_IDLE_TIMEOUT,
    ) -> Starlette:
        """The streamable HTTP application of this server: ``/mcp`` and ``GET /healthz`` (SPEC
        §24.4), as ``_http.http_app`` builds it; the arguments, the sessions and their limits
        are described there.

        Returns:
            A Starlette application (run it with any ASGI server).
        """
        return http_app(
            self,
            host=host,
            allow_hosts=allow_hosts,
            stateless=stateless,
            watch=watch,
            debounce_ms=debounce_ms,
            max_sessions=max_sessions,
            session_idle_timeout=session_idle_timeout,
        )

    # -- the server --------------------------------------------------------------------------

    def _build(self) -> Server[Any]:
        server = _Server(
            "agent-skills",
            list_changed=self._list_changed,
            version=__version__,
            instructions=(
                "Agent Skills are served here: through the io.modelcontextprotocol/skills "
                "extension (skills/list, skill:// resources), the activate_skill and "
                "read_skill_resource tools, and one prompt per user-invocable skill."
            ),
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_resource_templates,
            on_read_resource=self._read_resource,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_subscriptions_listen=ListenHandler(self._bus) if self._list_changed else None,
        )
        server.add_request_handler("skills/list", types.PaginatedRequestParams, self._list_skills)
        server.add_request_handler("skills/get", _GetSkillParams, self._get_skill)
        server.extensions[EXTENSION_ID] = {}
        # Outermost: whatever happens below, the request gets an answer a transport can encode.
        server.middleware.append(_answer_every_request)
        server.middleware.append(self._middleware)
        return server

    async def _middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Remember handshake-era sessions; declare the extension in ``initialize`` results.

        The SDK filters handshake-era ``initialize`` results through the 2025-11-25 schema, which
        has no ``capabilities.extensions``; this puts the declaration back so those hosts see it.
        """
        if self._list_changed and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            # The connection outlives the per-request session object; it is what notifies.
            connection = getattr(ctx.session, "_connection", None)
            if connection is not None:
                self._connections.add(connection)
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            capabilities = result.get("capabilities")
            if isinstance(capabilities, dict):
                declared = capabilities.get("extensions")
                merged = dict(declared) if isinstance(declared, dict) else {}
                merged.update({key: dict(value) for key, value in self.server.extensions.items()})
                capabilities["extensions"] = merged
        return result

    async def _list_skills(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> dict[str, Any]:
        page, next_cursor = _page("skills", self._catalog.skills, params.cursor)
        result: dict[str, Any] = {"skills": [skill.entry for skill in page]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return _with_cache_fields(ctx, result)

    async def _get_skill(
        self, ctx: ServerRequestContext[Any], params: _GetSkillParams
    ) -> dict[str, Any]:
        skill = self._catalog.by_skill_uri.get(_canonical_uri(params.uri))
        if skill is None:
            raise _invalid_params(f"no skill is served at {params.uri!r}")
        return _with_cache_fields(ctx, {"skill": skill.entry})

    async def _list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        catalog = self._catalog
        # One SKILL.md per published skill, then the discovery index (SPEC §17, §29.1).
        listed: list[PublishedSkill | None] = [*catalog.skills, None]
        page, next_cursor = _page("resources", listed, params.cursor if params else None)
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=skill.uri,
                    name=skill.name,
                    description=skill.description,
                    mime_type="text/markdown",
                    size=skill.files[0].size,
                )
                if skill is not None
                else types.Resource(
                    uri=INDEX_URI,
                    name=INDEX_NAME,
                    title="Agent Skills discovery index",
                    description=(
                        "The skills published here as an Agent Skills discovery index (v0.2.0): "
                        "the same skills, in the same order, as skills/list."
                    ),
                    mime_type="application/json",
                    size=len(catalog.index.encode("utf-8")),
                )
                for skill in page
            ],
            next_cursor=next_cursor,
        )

    async def _list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        """The one ``skill://{name}/{+path}`` template (SPEC §24.1), never ``-32601``."""
        if params is not None and params.cursor is not None:
            raise _invalid_params(f"invalid cursor {params.cursor!r}")
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=RESOURCE_TEMPLATE,
                    name="skill-file",
                    title="A file of a published skill",
                    description=(
                        "One file of a skill published through the MCP Skills extension: "
                        "'name' is the skill's name, 'path' the file's path relative to the "
                        "skill directory (SKILL.md, references/guide.md, ...). The files of "
                        "each skill are listed in its skills/list entry."
                    ),
                )
            ]
        )

    async def _read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        catalog = self._catalog  # one build for the whole answer
        try:
            uri = _canonical_uri(params.uri)
        except MCPError as err:
            raise _invalid_params(err.message, params.uri) from None
        if uri == INDEX_URI:
            index = types.TextResourceContents(
                uri=INDEX_URI, mime_type="application/json", text=catalog.index
            )
            return types.ReadResourceResult(contents=[index])
        hit = catalog.by_file_uri.get(uri)
        if hit is None:
            raise _invalid_params(f"unknown resource {params.uri!r}", params.uri)
        skill, served = hit
        skills = self._skills
        try:
            data: bytes | None = await _in_thread(
                lambda: skills.read_resource(skill.name, served.rel, max_bytes=served.size)
            )
        except SkillError as err:
            if err.code == ErrorCode.NOT_FOUND:
                raise _invalid_params(f"unknown resource {params.uri!r}", params.uri) from None
            if err.code != ErrorCode.TOO_LARGE:
                raise MCPError(
                    code=types.INTERNAL_ERROR,
                    message=f"{served.uri} cannot be read: {err.code.value}: {err.message}",
                ) from None
            data = None  # grew since it was hashed
        if data is None or file_digest(data) != served.digest:
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"{served.uri} changed on disk since the server started; restart it",
            )
        contents: types.TextResourceContents | types.BlobResourceContents
        if is_utf8(data):
            contents = types.TextResourceContents(
                uri=served.uri, mime_type=served.mime_type, text=data.decode("utf-8")
            )
        else:
            contents = types.BlobResourceContents(
                uri=served.uri,
                mime_type=served.mime_type,
                blob=base64.b64encode(data).decode("ascii"),
            )
        return types.ReadResourceResult(contents=[contents])

    def _tools(self) -> list[types.Tool]:
        """The session's ``activate_skill`` and a ``read_skill_resource`` that needs no activation.

        Both are :mod:`agent_skills.agent`'s definitions in the ``mcp`` flavor (SPEC §17, §22.5).
        """
        tools: list[types.Tool] = []
        activate = SkillSession(self._skills).activation_tool("mcp")
        if activate is not None:
            tools.append(types.Tool.model_validate(activate))
        if len(self._skills):
            read = tool_definition(READ_TOOL_NAME, "mcp", needs_activation=False)
            tools.append(types.Tool.model_validate(read))
        return tools

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self._tools())

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        """Run one tool; every failure is a result with ``isError`` (SPEC §17, §24.5)."""
        arguments = params.arguments or {}
        if params.name not in (ACTIVATE_TOOL_NAME, READ_TOOL_NAME):
            raise _invalid_params(f"unknown tool {params.name!r}")
        skills = self._skills
        try:
            name = coerce_str(arguments.get("name"), "argument 'name'")
            if params.name == ACTIVATE_TOOL_NAME:
                # A fresh session each call: a server cannot tell conversations apart, so every
                # activation returns the full content.
                text = await _in_thread(lambda: SkillSession(skills).activate(name).content)
                return types.CallToolResult(content=[types.TextContent(text=text)])
            path = coerce_str(arguments.get("path"), "argument 'path'")
            read = await _in_thread(
                lambda: read_skill_resource(
                    skills, name, path, max_bytes=MAX_TOOL_READ_BYTES, active=None
                )
            )
        except SkillError as err:
            return _tool_error(err.code.value, err.message)
        except Exception as exc:  # a fault of ours: this call fails, the server goes on
            logger.exception("tool %s failed", params.name)
            return _tool_error("internal_error", f"{type(exc).__name__}: {exc}")
        return types.CallToolResult(content=[_file_content(read)])

    async def _list_prompts(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        users = [info for info in self._skills.list_skills() if info.user_invocable]
        page, next_cursor = _page("prompts", users, params.cursor if params else None)
        argument = types.PromptArgument(
            name=PROMPT_ARGUMENT,
            description=(
                "What to pass to the skill, as typed after its name: split like a shell "
                "command line and substituted for $ARGUMENTS, $0, $1, ... in its instructions."
            ),
            required=False,
        )
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(name=info.name, description=info.description, arguments=[argument])
                for info in page
            ],
            next_cursor=next_cursor,
        )

    async def _get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        """One user message: the body as it is now, with the prompt's arguments (SPEC §22.4,
        §22.8; the ``claude`` dialect)."""
        served = self._skills.served(params.name)  # one snapshot for the body and the directory
        if served is None or served.withheld or not served.info.user_invocable:
            raise _invalid_params(f"unknown prompt {params.name!r}")
        info = served.info
        arguments = (params.arguments or {}).get(PROMPT_ARGUMENT, "")
        try:
            body = await _in_thread(served.body_now)
            await _in_thread(served.verify_dir)  # SPEC §20.1
            skill_dir = str(info.dir.absolute())
            # Splitting a long argument string is slow (shlex): off the event loop, so the
            # server goes on answering while it runs.
            text = await _in_thread(lambda: render_skill(body, arguments, skill_dir=skill_dir))
        except SkillError as err:
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"prompt {params.name!r} cannot be built: {err.code.value}: {err.message}",
            ) from None
        return types.GetPromptResult(
            description=info.description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )


def build_server(skills: AgentSkills) -> Server[Any]:
    """Build the MCP server for ``skills`` (SPEC §17): :class:`SkillServer` ``(skills).server``.

    Args:
        skills: The skills to serve.

    Returns:
        An ``mcp.server.lowlevel.Server``; run it with the SDK's transports.
    """
    return SkillServer(skills).server


def run_stdio(
    skills: AgentSkills | SkillServer, *, watch: bool = False, debounce_ms: int = 200
) -> None:
    """Serve over stdio until the client closes stdin (SPEC §17).

    Args:
        skills: The skills (or the server) to serve.
        watch: Refresh on changes and notify the client (SPEC §23.2).
        debounce_ms: With ``watch``, how long changes must settle, in milliseconds.

    Raises:
        StartupError: ``watch`` without the ``watch`` extra.
    """
    served = _served(skills, watch)
    server = served.server

    async def serve() -> None:
        watcher = served.watch(debounce_ms=debounce_ms) if watch else None
        try:
            await serve_stdio(server)
        finally:
            if watcher is not None:
                watcher.stop()

    anyio.run(serve)


def run_http(
    skills: AgentSkills | SkillServer,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    allow_hosts: Sequence[str] = (),
    stateless: bool = False,
    watch: bool = False,
    debounce_ms: int = 200,
    ready: Callable[[str], object] | None = None,
) -> None:
    """Serve over streamable HTTP at ``http://<host>:<port>/mcp`` (SPEC §17, §24.4).

    Args:
        skills: The skills (or the server) to serve.
        host: Interface to bind; the default keeps the server local.
        port: TCP port.
        allow_hosts: More names clients reach the server by (``Host``/``Origin`` checks hold
            on every bind address: see ``_http.allowed_hosts``).
        stateless: Serve without sessions (see :meth:`SkillServer.http_app`).
        watch: Refresh on changes and notify session clients (SPEC §23.2).
        debounce_ms: With ``watch``, how long changes must settle, in milliseconds.
        ready: Called once the socket is bound, with the endpoint URL
            (``http://<host>:<port>/mcp``; an IPv6 host in brackets).

    Raises:
        StartupError: ``watch`` without the ``watch`` extra; a name in ``allow_hosts`` that
            is no host name; the server could not start.
    """
    import uvicorn

    if watch:
        from .._watch import notifier_class

        notifier_class()  # fail now, not in the server's start-up, when the extra is missing
    served = _served(skills, watch)
    app = served.http_app(
        host=host,
        allow_hosts=allow_hosts,
        stateless=stateless,
        watch=watch,
        debounce_ms=debounce_ms,
    )
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/mcp"

    class _Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started and ready is not None:
                ready(url)

    server = _Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    server.run()
    if not server.started:  # uvicorn has logged why (the port is taken, ...)
        raise StartupError(f"could not serve on {url}")


def _served(skills: AgentSkills | SkillServer, watch: bool) -> SkillServer:
    if isinstance(skills, SkillServer):
        return skills
    return SkillServer(skills, list_changed=watch)
