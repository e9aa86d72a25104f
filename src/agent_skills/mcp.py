"""Serving skills over the Model Context Protocol (SPEC §17).

The only module of the package that imports the ``mcp`` SDK (the ``mcp`` extra);
``import agent_skills`` never loads it. :func:`build_server` turns an
:class:`~agent_skills.AgentSkills` into an ``mcp.server.lowlevel.Server`` that offers, on every
protocol era (the ``initialize`` handshake and the 2026-07-28 ``server/discover`` era):

- the MCP Skills extension ``io.modelcontextprotocol/skills`` (SEP-2640): ``skills/list`` (pages of
  at most 100 entries behind an opaque cursor) and ``skills/get``, each entry with the
  ``skill://<name>/SKILL.md`` URI, the verbatim frontmatter and a complete manifest (``uri``,
  ``size``, ``sha256:`` digest) of the skill's files;
- ``resources/list`` (one ``SKILL.md`` per published skill) and ``resources/read`` of every manifest
  file, returning the exact bytes that were hashed;
- the tools ``activate_skill`` and ``read_skill_resource`` for hosts without the extension;
- one prompt per user-invocable skill.

A skill's files are its ``SKILL.md`` plus exactly what :meth:`AgentSkills.load_skill` lists (SPEC
§9), always read through :meth:`AgentSkills.read_resource` (SPEC §10): hidden files, escaping or
dangling links and anything else outside that list are never listed nor served. The manifests are a
snapshot taken when the server is built; a file changed on disk afterwards is refused on read
(``-32603``) rather than served with bytes that no longer match its digest.

Protocol errors: ``-32602`` (invalid params) for an unknown or malformed URI (``..`` or
``%2e%2e`` segments, a query or a fragment), an unknown prompt or tool, a bad cursor; ``-32603``
for a file that cannot be read any more. Tool failures are results with ``isError: true`` whose
text starts with the :class:`~agent_skills.ErrorCode` (``not_found: ...``).

Run it with ``agent-skills serve`` or ``python -m agent_skills.mcp --root DIR``.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import logging
import mimetypes
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote, unquote

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from . import (
    AgentSkills,
    SkillError,
    SkillInfo,
    StartupError,
    __version__,
    create_agent_skills,
)
from ._digest import file_digest
from ._manifest import load_frontmatter_yaml, split_frontmatter
from .agent import SkillSession

__all__ = [
    "EXTENSION_ID",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "MAX_TOOL_READ_BYTES",
    "PAGE_SIZE",
    "build_server",
    "main",
    "run_http",
    "run_stdio",
]

logger = logging.getLogger("agent_skills")

#: Identifier of the MCP Skills extension (SEP-2640), the key under ``capabilities.extensions``.
EXTENSION_ID = "io.modelcontextprotocol/skills"
#: Most entries on one page of ``skills/list``, ``resources/list`` and ``prompts/list``.
PAGE_SIZE = 100
#: Most files (``SKILL.md`` included) of a published skill (MCP Skills extension limit).
MAX_SKILL_FILES = 512
#: Most bytes, summed over a published skill's files (MCP Skills extension limit: 16 MiB).
MAX_SKILL_BYTES = 16 * 1024 * 1024
#: Largest file ``read_skill_resource`` returns, in bytes (the SPEC §14 default read cap).
MAX_TOOL_READ_BYTES = 1_048_576

_MANIFEST = "SKILL.md"
_SCHEME = "skill://"
# Agent Skills spec: 1-64 lowercase ASCII letters, digits and single inner hyphens; hosts and the
# extension's conformance checks apply exactly this pattern.
_NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NAME_MAX = 64
_DESCRIPTION_MAX = 1024
_COMPATIBILITY_MAX = 500
# The reference TypeScript client refuses frontmatter nested deeper than this.
_MAX_DEPTH = 32
# Cache hints sent on 2026-07-28 connections, where the extension's results require them.
_TTL_MS = 0
_CACHE_SCOPE = "private"

_T = TypeVar("_T")


class _Unpublishable(Exception):
    """A skill hosts could not accept over the extension; the message is the reason."""


@dataclass(frozen=True, slots=True)
class _ServedFile:
    """One file of a published skill, as hashed when the server was built."""

    uri: str
    rel: str
    size: int
    digest: str
    mime_type: str


@dataclass(frozen=True, slots=True)
class _ServedSkill:
    """A published skill: its ``skills/list`` entry and the files behind it."""

    name: str
    uri: str
    description: str
    files: tuple[_ServedFile, ...]
    entry: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Catalog:
    """Every published skill (sorted as ``list_skills``) and an index of file URIs."""

    skills: tuple[_ServedSkill, ...]
    by_skill_uri: dict[str, _ServedSkill]
    by_file_uri: dict[str, tuple[_ServedSkill, _ServedFile]]


def _file_uri(name: str, rel: str) -> str:
    """``skill://<name>/<rel>`` with every segment percent-encoded (MCP Skills extension)."""
    return _SCHEME + "/".join(quote(segment, safe="") for segment in [name, *rel.split("/")])


def _canonical_uri(uri: str) -> str:
    """Return the canonical spelling of a ``skill://`` URI, for lookups.

    Segments are percent-decoded and encoded again, so ``%c3%a9`` and ``%C3%A9`` meet.

    Raises:
        MCPError: ``-32602`` for another scheme, a query or fragment, an empty, ``.`` or ``..``
            segment (raw or percent-encoded), an encoded separator or NUL, or invalid UTF-8.
    """
    if not uri.startswith(_SCHEME):
        raise _invalid_params(f"not a skill:// URI: {uri!r}")
    rest = uri[len(_SCHEME) :]
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
    return _SCHEME + "/".join(quote(segment, safe="") for segment in segments)


def _invalid_params(message: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message)


def _mime_type(rel: str, is_text: bool) -> str:
    """A MIME type from the file name; ``.md`` is ``text/markdown`` on every platform."""
    if rel.lower().endswith((".md", ".markdown")):
        return "text/markdown"
    guessed, _ = mimetypes.guess_type(rel, strict=False)
    if guessed:
        return guessed
    return "text/plain" if is_text else "application/octet-stream"


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _strict_frontmatter(data: bytes) -> dict[str, Any]:
    """The strict YAML 1.2 parse of a served ``SKILL.md``, as hosts parse it (SPEC §17).

    The bytes must be UTF-8 and open with a ``---`` line at their very first byte (no BOM, no
    leading blank lines); the YAML is loaded without repair and without trimming any value.

    Raises:
        _Unpublishable: naming the first problem.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unpublishable("SKILL.md is not valid UTF-8") from None
    first_line = text.split("\n", 1)[0].rstrip("\r")
    if first_line.rstrip(" \t") != "---":
        raise _Unpublishable("SKILL.md does not start with a '---' frontmatter line")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        yaml_text, _body, first_yaml_line = split_frontmatter(text)
        value = load_frontmatter_yaml(yaml_text or "", first_line=first_yaml_line)
    except SkillError as err:
        where = f" (line {err.fields['line']})" if "line" in err.fields else ""
        raise _Unpublishable(f"frontmatter does not parse without repair{where}: {err}") from None
    if not isinstance(value, dict):
        raise _Unpublishable("frontmatter is not a mapping")
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        raise _Unpublishable("frontmatter holds a value JSON cannot carry (.inf or .nan)") from None
    if _depth(value) > _MAX_DEPTH:
        raise _Unpublishable(f"frontmatter nests deeper than {_MAX_DEPTH} levels")
    return value


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _check_frontmatter(frontmatter: dict[str, Any]) -> None:
    """Apply the Agent Skills rules hosts enforce to the verbatim frontmatter.

    Raises:
        _Unpublishable: for a ``name`` that is not 1-64 lowercase alphanumerics and single inner
            hyphens, a ``description`` that is not a non-blank string of at most 1024 characters, a
            ``compatibility`` that is not a non-blank string of at most 500 characters, or a
            ``metadata`` that is not a string-to-string map.
    """
    name = frontmatter.get("name")
    if not isinstance(name, str) or len(name) > _NAME_MAX or not _NAME_RE.fullmatch(name):
        raise _Unpublishable("name is not 1-64 lowercase letters, digits and single inner hyphens")
    description = frontmatter.get("description")
    if not isinstance(description, str) or not description.strip():
        raise _Unpublishable("description is missing or blank")
    if len(description) > _DESCRIPTION_MAX:
        raise _Unpublishable(f"description is longer than {_DESCRIPTION_MAX} characters")
    if "compatibility" in frontmatter:
        compatibility = frontmatter["compatibility"]
        if not isinstance(compatibility, str) or not compatibility.strip():
            raise _Unpublishable("compatibility is not a non-empty string")
        if len(compatibility) > _COMPATIBILITY_MAX:
            raise _Unpublishable(f"compatibility is longer than {_COMPATIBILITY_MAX} characters")
    if "metadata" in frontmatter:
        meta = frontmatter["metadata"]
        if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
            raise _Unpublishable("metadata is not a string-to-string map")


def _check_collisions(rels: Sequence[str]) -> None:
    """Refuse file paths that become one file on a case-insensitive or normalising filesystem."""
    seen: dict[str, str] = {}
    for rel in rels:
        key = unicodedata.normalize("NFC", rel).casefold()
        if key in seen:
            raise _Unpublishable(
                f"file paths {seen[key]!r} and {rel!r} collide when case and Unicode form "
                "are ignored"
            )
        seen[key] = rel


def _publish(skills: AgentSkills, name: str) -> _ServedSkill:
    """Hash one skill's files and build its extension entry.

    Raises:
        _Unpublishable: when hosts could not accept the skill (SPEC §17), naming the reason.
    """
    content = skills.load_skill(name)
    if content is None:
        raise _Unpublishable("the skill disappeared")
    if content.path.name != _MANIFEST:
        raise _Unpublishable(f"its manifest is named {content.path.name!r}, not {_MANIFEST!r}")
    if content.resources_truncated:
        raise _Unpublishable("its resource listing was truncated (max_resources)")
    rels = [_MANIFEST, *(resource.rel for resource in content.resources)]
    if len(rels) > MAX_SKILL_FILES:
        raise _Unpublishable(f"it has {len(rels)} files, more than {MAX_SKILL_FILES}")
    if sum(resource.size for resource in content.resources) > MAX_SKILL_BYTES:
        raise _Unpublishable(f"its files total more than {MAX_SKILL_BYTES} bytes")
    _check_collisions(rels)
    files: list[_ServedFile] = []
    frontmatter: dict[str, Any] = {}
    budget = MAX_SKILL_BYTES
    for rel in rels:
        try:
            data = skills.read_resource(name, rel, max_bytes=budget)
        except SkillError as err:
            if err.code == "too_large":
                raise _Unpublishable(f"its files total more than {MAX_SKILL_BYTES} bytes") from None
            raise _Unpublishable(f"{rel} cannot be read: {err.code}: {err}") from None
        budget -= len(data)
        if rel == _MANIFEST:
            frontmatter = _strict_frontmatter(data)
            _check_frontmatter(frontmatter)
        files.append(
            _ServedFile(
                uri=_file_uri(name, rel),
                rel=rel,
                size=len(data),
                digest=file_digest(data),
                mime_type=_mime_type(rel, _is_utf8(data)),
            )
        )
    uri = files[0].uri
    entry = {
        "uri": uri,
        "frontmatter": frontmatter,
        "resources": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in files],
    }
    return _ServedSkill(name, uri, frontmatter["description"], tuple(files), entry)


def _build_catalog(skills: AgentSkills) -> _Catalog:
    """Publish every skill hosts can accept; log a warning naming the reason for each other one."""
    served: list[_ServedSkill] = []
    for info in skills.list_skills():
        try:
            served.append(_publish(skills, info.name))
        except _Unpublishable as why:
            logger.warning(
                "skill '%s' is not published through the MCP Skills extension: %s "
                "(it stays available through the tools)",
                info.name,
                why,
            )
    by_file_uri = {f.uri: (skill, f) for skill in served for f in skill.files}
    return _Catalog(tuple(served), {s.uri: s for s in served}, by_file_uri)


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


def _tool_error(err: SkillError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=f"{err.code.value}: {err.message}")], is_error=True
    )


def _string_argument(arguments: dict[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str):
        raise SkillError("invalid_input", f"argument '{key}' must be a string", {"value": key})
    return value


def _activation_content(skills: AgentSkills, name: str) -> str:
    """The SPEC §14 activation content of a model-invocable skill.

    Each call uses a fresh session: a server cannot tell conversations apart, so every activation
    returns the full content.

    Raises:
        SkillError: ``not_found`` for an unknown or non-model-invocable name.
    """
    return SkillSession(skills).activate(name).content


def _read_listed_file(skills: AgentSkills, name: str, path: str) -> tuple[str, bytes]:
    """Read ``SKILL.md`` or a listed resource of any skill (SPEC §17 ``read_skill_resource``).

    Returns:
        ``(rel, data)``: the POSIX path relative to the skill directory and the file's bytes.

    Raises:
        SkillError: ``not_found`` for an unknown skill or a file that is not one of the skill's
            files (hidden, ignored or absent), ``invalid_input``/``path_escape`` for a bad path
            (SPEC §10), ``too_large`` above :data:`MAX_TOOL_READ_BYTES`, ``io_error``.
    """
    target = skills.resource_path(name, path)
    content = skills.load_skill(name)
    if content is None:
        raise SkillError("not_found", f"unknown skill '{name}'", {"name": name})
    rel = target.relative_to(content.dir).as_posix()
    listed = {content.path.name, *(resource.rel for resource in content.resources)}
    if rel not in listed:
        raise SkillError(
            "not_found",
            f"'{path}' is not one of the files of skill '{name}'",
            {"name": name, "rel": path},
        )
    return rel, skills.read_resource(name, rel, max_bytes=MAX_TOOL_READ_BYTES)


def _tool_definitions(skills: AgentSkills) -> list[types.Tool]:
    infos = skills.list_skills()
    tools: list[types.Tool] = []
    # The same definition an in-process host gets from SkillSession (SPEC §14, §17).
    activate = SkillSession(skills).activation_tool("json_schema")
    if activate is not None:
        tools.append(
            types.Tool(
                name=activate["name"],
                description=activate["description"],
                input_schema=activate["parameters"],
            )
        )
    if infos:
        tools.append(
            types.Tool(
                name="read_skill_resource",
                description=(
                    "Read one file bundled with a skill, by the skill's name and the file's path "
                    "relative to the skill directory (for example 'references/guide.md')."
                ),
                input_schema={
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The skill's name."},
                        "path": {
                            "type": "string",
                            "description": "The file's path, relative to the skill directory.",
                        },
                    },
                    "required": ["name", "path"],
                    "additionalProperties": False,
                },
            )
        )
    return tools


async def _in_thread(fn: Callable[[], _T]) -> _T:
    """Run blocking file I/O off the event loop."""
    return await anyio.to_thread.run_sync(fn)


def _handshake_extension_middleware(
    extensions: dict[str, dict[str, Any]],
) -> ServerMiddleware[Any]:
    """Declare the extension in ``initialize`` results too.

    The SDK filters handshake-era ``initialize`` results through the 2025-11-25 schema, which has no
    ``capabilities.extensions``; this puts the declaration back so handshake-era hosts see it.
    """

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            capabilities = result.get("capabilities")
            if isinstance(capabilities, dict):
                declared = capabilities.get("extensions")
                merged = dict(declared) if isinstance(declared, dict) else {}
                merged.update({key: dict(value) for key, value in extensions.items()})
                capabilities["extensions"] = merged
        return result

    return middleware


def build_server(skills: AgentSkills) -> Server[Any]:
    """Build the MCP server for ``skills`` (SPEC §17).

    Every skill's files are read and hashed here, once: the extension's manifests are this snapshot.
    Skills that hosts could not accept (SPEC §17: Agent Skills ``name``/``description``/
    ``compatibility``/``metadata`` rules, a UTF-8 ``SKILL.md`` named exactly so whose frontmatter
    parses without repair, at most 512 files and 16 MiB, no paths that collide ignoring case) are
    left out of ``skills/*`` and ``resources/*`` with a warning on the ``agent_skills`` logger, and
    stay available through the tools and prompts.

    Args:
        skills: The skills to serve.

    Returns:
        An ``mcp.server.lowlevel.Server``; run it with :func:`run_stdio`, :func:`run_http` or the
        SDK's own transports.
    """
    catalog = _build_catalog(skills)

    async def list_skills(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> dict[str, Any]:
        page, next_cursor = _page("skills", catalog.skills, params.cursor)
        result: dict[str, Any] = {"skills": [skill.entry for skill in page]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return _with_cache_fields(ctx, result)

    async def get_skill(ctx: ServerRequestContext[Any], params: _GetSkillParams) -> dict[str, Any]:
        skill = catalog.by_skill_uri.get(_canonical_uri(params.uri))
        if skill is None:
            raise _invalid_params(f"no skill is served at {params.uri!r}")
        return _with_cache_fields(ctx, {"skill": skill.entry})

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        page, next_cursor = _page("resources", catalog.skills, params.cursor if params else None)
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=skill.uri,
                    name=skill.name,
                    description=skill.description,
                    mime_type="text/markdown",
                    size=skill.files[0].size,
                )
                for skill in page
            ],
            next_cursor=next_cursor,
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        hit = catalog.by_file_uri.get(_canonical_uri(params.uri))
        if hit is None:
            raise _invalid_params(f"unknown resource {params.uri!r}")
        skill, served = hit
        try:
            data: bytes | None = await _in_thread(
                lambda: skills.read_resource(skill.name, served.rel, max_bytes=served.size)
            )
        except SkillError as err:
            if err.code == "not_found":
                raise _invalid_params(f"unknown resource {params.uri!r}") from None
            if err.code != "too_large":
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
        if _is_utf8(data):
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

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_tool_definitions(skills))

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name not in ("activate_skill", "read_skill_resource"):
            raise _invalid_params(f"unknown tool {params.name!r}")
        try:
            name = _string_argument(arguments, "name")
            if params.name == "activate_skill":
                text = await _in_thread(lambda: _activation_content(skills, name))
                return types.CallToolResult(content=[types.TextContent(text=text)])
            path = _string_argument(arguments, "path")
            rel, data = await _in_thread(lambda: _read_listed_file(skills, name, path))
        except SkillError as err:
            return _tool_error(err)
        if _is_utf8(data):
            return types.CallToolResult(content=[types.TextContent(text=data.decode("utf-8"))])
        blob = types.BlobResourceContents(
            uri=_file_uri(name, rel),
            mime_type=_mime_type(rel, False),
            blob=base64.b64encode(data).decode("ascii"),
        )
        return types.CallToolResult(content=[types.EmbeddedResource(resource=blob)])

    def user_skills() -> list[SkillInfo]:
        return [info for info in skills.list_skills() if info.user_invocable]

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        page, next_cursor = _page("prompts", user_skills(), params.cursor if params else None)
        return types.ListPromptsResult(
            prompts=[types.Prompt(name=info.name, description=info.description) for info in page],
            next_cursor=next_cursor,
        )

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        content = skills.load_skill(params.name)
        if content is None or not content.user_invocable:
            raise _invalid_params(f"unknown prompt {params.name!r}")
        return types.GetPromptResult(
            description=content.description,
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(text=content.body))
            ],
        )

    server: Server[Any] = Server(
        "agent-skills",
        version=__version__,
        instructions=(
            "Agent Skills are served here: through the io.modelcontextprotocol/skills extension "
            "(skills/list, skill:// resources), the activate_skill and read_skill_resource tools, "
            "and one prompt per user-invocable skill."
        ),
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    server.add_request_handler("skills/list", types.PaginatedRequestParams, list_skills)
    server.add_request_handler("skills/get", _GetSkillParams, get_skill)
    server.extensions[EXTENSION_ID] = {}
    server.middleware.append(_handshake_extension_middleware(server.extensions))
    return server


def run_stdio(skills: AgentSkills) -> None:
    """Serve ``skills`` over stdio until the client closes stdin (SPEC §17)."""
    server = build_server(skills)

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)


def run_http(skills: AgentSkills, *, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve ``skills`` over streamable HTTP at ``http://<host>:<port>/mcp`` (SPEC §17).

    Args:
        skills: The skills to serve.
        host: Interface to bind; the default keeps the server local.
        port: TCP port.
    """
    import uvicorn

    app = build_server(skills).streamable_http_app(streamable_http_path="/mcp", host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agent_skills.mcp --root DIR [--root DIR ...] [--http [--port N]]``.

    Roots are given explicitly (no preset), lowest precedence first.

    Returns:
        The exit code: 0 when the client hung up, 1 for a ``SkillError`` (strict discovery), 2 for
        a ``StartupError`` (SPEC §16).
    """
    parser = argparse.ArgumentParser(prog="python -m agent_skills.mcp", description=__doc__)
    parser.add_argument("--root", action="append", required=True, help="a skill root (repeatable)")
    parser.add_argument("--workspace", help="workspace directory for relative roots")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--no-follow-symlinks", action="store_true")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    try:
        skills = create_agent_skills(
            args.root,
            workspace=args.workspace,
            strict=args.strict,
            follow_symlinks=not args.no_follow_symlinks,
        )
    except StartupError as err:
        print(f"startup_error: {err}", file=sys.stderr)
        return 2
    except SkillError as err:
        print(f"{err.code.value}: {err}", file=sys.stderr)
        return 1
    if args.http:
        run_http(skills, port=args.port)
    else:
        run_stdio(skills)
    return 0


if __name__ == "__main__":
    sys.exit(main())
