"""The agent tools: their names, schemas and argument checks in every host's format, and the one
executor of ``read_skill_resource`` (SPEC §14, §17, §22.2, §22.5, §22.6, §24.3).

``activate_skill``, ``read_skill_resource`` and ``search_skills`` are defined once here; a
:class:`~agent_skills.agent.SkillSession` and the MCP server offer them in their formats and
answer ``read_skill_resource`` through :func:`read_skill_resource`, each with its policy (a
session reads the skills it activated, the server any listed file). Reading is the facade's
(``AgentSkills.served``); rendering a result is each front's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from ._args import coerce_str, shown_text
from ._confine import Pin
from ._core import AgentSkills, ServedSkill
from ._errors import ErrorCode, SkillError, invalid_input
from ._jsonfile import decode_json
from ._registry import suggest_files, unknown_skill
from ._terminal import undecodable_bytes

__all__ = [
    "ACTIVATE_TOOL_NAME",
    "DEFAULT_MAX_READ_BYTES",
    "DEFAULT_SEARCH_LIMIT",
    "ENUM_MAX_LONG_VALUES",
    "ENUM_MAX_TOTAL_CHARS",
    "ENUM_MAX_VALUES",
    "FLAVORS",
    "MAX_SEARCH_LIMIT",
    "READ_TOOL_NAME",
    "SEARCH_TOOL_NAME",
    "TOOLS",
    "FileRead",
    "ToolFlavor",
    "ToolName",
    "ToolResult",
    "enum_fits_strict_mode",
    "expect",
    "media_type",
    "read_skill_resource",
    "tool_arguments",
    "tool_definition",
]

DEFAULT_MAX_READ_BYTES = 1_048_576
"""Default cap of a ``read_skill_resource`` read, in bytes (1 MiB; SPEC §14)."""


ACTIVATE_TOOL_NAME: Final = "activate_skill"
"""Name of the activation tool (SPEC §14)."""


READ_TOOL_NAME: Final = "read_skill_resource"
"""Name of the resource-reading tool (SPEC §14)."""


SEARCH_TOOL_NAME: Final = "search_skills"
"""Name of the search tool offered when the catalog leaves skills out (SPEC §22.2)."""


DEFAULT_SEARCH_LIMIT = 10
"""Results of ``search_skills`` when ``limit`` is null (SPEC §22.2)."""


MAX_SEARCH_LIMIT = 50
"""Largest ``limit`` ``search_skills`` accepts."""


ENUM_MAX_VALUES = 250
"""An ``enum`` of at most this many names always fits OpenAI's strict mode (SPEC §22.2)."""


ENUM_MAX_LONG_VALUES = 500
"""Past :data:`ENUM_MAX_VALUES`, at most this many names ..."""


ENUM_MAX_TOTAL_CHARS = 7_500
"""... whose lengths add up to at most this many characters (SPEC §22.2)."""


ToolFlavor = Literal["openai", "openai_responses", "anthropic", "json_schema", "mcp"]


ToolName = Literal["activate_skill", "read_skill_resource", "search_skills"]

FLAVORS: tuple[str, ...] = ("openai", "openai_responses", "anthropic", "json_schema", "mcp")
TOOLS: tuple[str, ...] = (ACTIVATE_TOOL_NAME, READ_TOOL_NAME, SEARCH_TOOL_NAME)


_ACTIVATE_DESCRIPTION = (
    "Activate a skill: returns its instructions, its skill directory and the list of its bundled "
    "files. Call it when a task matches a skill's description, before starting the task."
)


_READ_DESCRIPTION = (
    "Read one file bundled with an activated skill, by the skill's name and the file's path "
    "relative to the skill directory (for example 'references/guide.md')."
)


_READ_ANY_DESCRIPTION = (
    "Read one file bundled with a skill, by the skill's name and the file's path "
    "relative to the skill directory (for example 'references/guide.md')."
)


_SEARCH_DESCRIPTION = (
    "Search the skills that the catalog could not list: returns the best matches as "
    "'name: description' lines, best first. Activate a match with activate_skill."
)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to one tool call of the model (SPEC §22.6).

    Attributes:
        text: What to send back as the tool result. For a failure it starts with the error code
            (``"not_found: No such skill: x"``).
        is_error: True when the call failed: send it as an error result (``is_error`` in the
            Messages API, ``isError`` in MCP; Chat Completions has no flag, the text says it).
    """

    text: str
    is_error: bool = False


def tool_arguments(arguments: object) -> dict[str, Any]:
    """The arguments of a tool call as a dict: a mapping, or a JSON object as text (nested at
    most ``MAX_JSON_DEPTH`` levels, SPEC §20.5).

    Raises:
        SkillError: ``invalid_input`` ``{arguments: "json"}`` for text that is not JSON (or
            nests too deep), ``{type}`` for a value that is not an object.
    """
    if isinstance(arguments, str | bytes | bytearray):
        try:
            arguments = decode_json(arguments)
        except ValueError as exc:
            raise invalid_input(
                f"arguments are not valid JSON: {exc}", {"arguments": "json"}
            ) from None
    if arguments is None:
        return {}
    if not isinstance(arguments, Mapping):
        raise invalid_input(
            f"arguments must be a JSON object, got {type(arguments).__name__}",
            {"type": type(arguments).__name__},
        )
    return dict(arguments)


def expect(args: dict[str, Any], tool: str, *keys: str, optional: tuple[str, ...] = ()) -> None:
    """Refuse missing and unexpected arguments (the tools' schemas are closed, SPEC §22.5)."""
    unknown = sorted(str(k) for k in args if k not in keys)
    if unknown:
        raise invalid_input(
            f"unexpected argument(s) for {tool}: {', '.join(unknown)}",
            {"tool": tool, "unexpected": unknown},
        )
    missing = [k for k in keys if k not in args and k not in optional]
    if missing:
        raise invalid_input(
            f"missing argument(s) for {tool}: {', '.join(missing)}",
            {"tool": tool, "missing": missing},
        )


def media_type(rel: str, is_text: bool) -> str:
    """A MIME type from the file name; ``.md`` is ``text/markdown`` on every platform."""
    if rel.lower().endswith((".md", ".markdown")):
        return "text/markdown"
    import mimetypes  # only when a media type is asked for: keeps the import light

    guessed: str | None = mimetypes.guess_type(rel, strict=False)[0]
    if guessed:
        return guessed
    return "text/plain" if is_text else "application/octet-stream"


def _string(description: str, enum: list[str] | None = None) -> dict[str, Any]:
    """A JSON Schema string property, with an ``enum`` when given."""
    prop: dict[str, Any] = {"type": "string"}
    if enum is not None:
        prop["enum"] = enum
    prop["description"] = description
    return prop


def _arguments(**properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema object whose properties are all required and the only ones allowed.

    That is the shape OpenAI's strict mode asks for (SPEC §22.5), and it is valid JSON Schema
    2020-12 for every other host.
    """
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def enum_fits_strict_mode(names: Sequence[str]) -> bool:
    """Whether an ``enum`` of ``names`` stays within OpenAI's strict-mode limits (SPEC §22.2).

    At most 250 values, or at most 500 values whose lengths (in characters) add up to at most
    7 500. Past that a tool takes the name as a plain ``string``.
    """
    count = len(names)
    if count <= ENUM_MAX_VALUES:
        return True
    return count <= ENUM_MAX_LONG_VALUES and sum(map(len, names)) <= ENUM_MAX_TOTAL_CHARS


def _name_enum(names: Sequence[str] | None) -> list[str] | None:
    if names is None:
        return None
    listed = list(names)
    return listed if enum_fits_strict_mode(listed) else None


def _wrap_tool(
    flavor: object, name: str, description: str, schema: dict[str, Any]
) -> dict[str, Any]:
    if flavor == "openai":
        function = {"name": name, "description": description, "parameters": schema, "strict": True}
        return {"type": "function", "function": function}
    if flavor == "openai_responses":
        return {
            "type": "function",
            "name": name,
            "description": description,
            "parameters": schema,
            "strict": True,
        }
    if flavor == "anthropic":
        return {"name": name, "description": description, "input_schema": schema}
    if flavor == "json_schema":
        return {"name": name, "description": description, "parameters": schema}
    if flavor == "mcp":
        return {"name": name, "description": description, "inputSchema": schema}
    raise invalid_input(
        f"tool flavor must be one of {', '.join(FLAVORS)}, got {flavor!r}",
        {"flavor": repr(flavor)},
    )


def tool_definition(
    tool: ToolName,
    flavor: ToolFlavor = "openai",
    *,
    names: Sequence[str] | None = None,
    needs_activation: bool = True,
) -> dict[str, Any]:
    """Return one tool definition in one host's format (SPEC §14, §22.2, §22.5).

    Every flavor carries the same JSON Schema object (valid JSON Schema 2020-12 and OpenAI strict
    mode: every property required, ``additionalProperties`` false):

    - ``activate_skill``: ``name`` (string);
    - ``read_skill_resource``: ``name`` (string), ``path`` (string, relative to the skill
      directory);
    - ``search_skills``: ``query`` (string), ``limit`` (``["integer", "null"]``; null for 10).

    Args:
        tool: ``"activate_skill"``, ``"read_skill_resource"`` or ``"search_skills"``.
        flavor: ``"openai"`` (Chat Completions: ``{"type": "function", "function": {"name",
            "description", "parameters", "strict": true}}``), ``"openai_responses"``
            (``{"type": "function", "name", "description", "parameters", "strict": true}``),
            ``"anthropic"`` (``{"name", "description", "input_schema"}``), ``"json_schema"``
            (``{"name", "description", "parameters"}``) or ``"mcp"`` (``{"name",
            "description", "inputSchema"}``).
        names: The skill names the ``name`` property lists as an ``enum``, in the order given;
            ``None``, or more names than OpenAI's strict-mode limits allow
            (:func:`enum_fits_strict_mode`), gives a plain string. Ignored for
            ``search_skills``.
        needs_activation: For ``read_skill_resource``: whether its description tells the model
            to activate the skill first (a :class:`SkillSession`; the MCP server reads any
            skill's files without activation).

    Returns:
        A new dict.

    Raises:
        SkillError: ``invalid_input`` ``{flavor}`` for another flavor, ``{tool}`` for another
            tool.
    """
    enum = _name_enum(names)
    if tool == ACTIVATE_TOOL_NAME:
        schema = _arguments(name=_string("The name of the skill to activate.", enum))
        description = _ACTIVATE_DESCRIPTION
    elif tool == READ_TOOL_NAME:
        schema = _arguments(
            name=_string(
                "The name of an activated skill." if needs_activation else "The skill's name.",
                enum,
            ),
            path=_string("The file's path relative to the skill directory."),
        )
        description = _READ_DESCRIPTION if needs_activation else _READ_ANY_DESCRIPTION
    elif tool == SEARCH_TOOL_NAME:
        schema = _arguments(
            query=_string("Words describing the task, for example 'review an OpenAPI spec'."),
            limit={
                "type": ["integer", "null"],
                "description": (
                    f"Most skills to return, 1 to {MAX_SEARCH_LIMIT}; null for "
                    f"{DEFAULT_SEARCH_LIMIT}."
                ),
            },
        )
        description = _SEARCH_DESCRIPTION
    else:
        raise invalid_input(
            f"tool must be one of {', '.join(TOOLS)}, got {tool!r}", {"tool": repr(tool)}
        )
    return _wrap_tool(flavor, tool, description, schema)


@dataclass(frozen=True, slots=True)
class FileRead:
    """A file ``read_skill_resource`` read (SPEC §14, §24.3).

    Attributes:
        name: The skill's name.
        rel: The file's path as the tool names it: as the model gave it for a session, the
            listed POSIX path for the MCP server.
        data: The file's bytes.
    """

    name: str
    rel: str
    data: bytes

    @property
    def text(self) -> str | None:
        """The bytes as text when they are strict UTF-8, else ``None``."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @property
    def media_type(self) -> str:
        """The file's media type (:func:`media_type`)."""
        return media_type(self.rel, self.text is not None)


def read_skill_resource(
    skills: AgentSkills,
    name: object,
    path: object,
    *,
    max_bytes: int,
    active: Mapping[str, Pin] | None,
) -> FileRead:
    """Run ``read_skill_resource`` (SPEC §14, §17, §29.5): the one executor, under one of two
    policies.

    Names are forgiven as a model gets them wrong (SPEC §29.5): a ``path`` with no ``/`` that is
    not a file at the top of the skill but is the file name of exactly one listed file (SPEC §9;
    the manifest included) reads that file (``guide.md`` for ``references/guide.md``); a path
    that is still not found is ``not_found`` naming up to five listed files closest to it
    (``did you mean ...?``, :func:`~agent_skills._registry.suggest_files`). A path holding
    ``\\xNN``, as listings and JSON show an undecodable byte of a file name (SPEC §20.8), reads
    the listed file it names that way.

    Args:
        skills: The skills served.
        name: The skill's name, as the tool call gave it.
        path: The file's path relative to the skill directory, as the tool call gave it.
        max_bytes: The read cap, in bytes (``too_large`` above it).
        active: The policy. A mapping of the activated skills to the directories they were
            activated in (a :class:`~agent_skills.agent.SkillSession`): only those skills, still
            in those directories, are read, any file of theirs (SPEC §10); an unknown name (or
            one the model may not activate) is ``not_found``. ``None`` (the MCP server, which
            tells no conversations apart): any skill, but only its manifest and its listed
            resources (SPEC §9).

    Returns:
        A :class:`FileRead`; its ``rel`` is the file read (the listed path when a file name was
        forgiven).

    Raises:
        SkillError: ``invalid_input`` for a name or path that is not a ``str``; ``not_found``
            ``{name, suggestions}`` for an unknown skill (with ``active``: or one that is not
            model-invocable); with ``active``, ``access_denied`` ``{name, rel}`` for a skill not
            activated (the message says to call ``activate_skill`` first) or now in another
            directory; without, ``not_found`` for a file that is not listed; ``not_found``
            ``{name, rel, suggestions}`` for a file not found; then the read's
            ``invalid_input``, ``path_escape``, ``not_a_file``, ``too_large``, ``io_error``,
            ``stale_skill``, ``access_denied`` (SPEC §10, §23.3).
    """
    if active is not None:
        name_text = coerce_str(name, "skill name")
        served = skills.served(name_text)
        if served is None or served.withheld or not served.info.model_invocable:
            known = [info.name for info in skills.list_skills() if info.model_invocable]
            raise unknown_skill(name_text, known)
        pin = active.get(name_text)
        if pin is None or served.pin != pin:
            state, step = (
                ("is not active in this conversation", "first")
                if pin is None
                else ("has moved since it was activated in this conversation", "again")
            )
            raise SkillError(
                ErrorCode.ACCESS_DENIED,
                f"Skill '{name_text}' {state}; call {ACTIVATE_TOOL_NAME} {step}",
                {"name": name_text, "rel": shown_text(path)},
            )
        rel = path if isinstance(path, str) else shown_text(path)
        try:
            return FileRead(name_text, rel, served.read(path, max_bytes))  # type: ignore[arg-type]
        except SkillError as err:
            found = _forgiven(served, path, err)
        return FileRead(name_text, found, served.read(found, max_bytes))
    name_text = coerce_str(name, "argument 'name'")
    path_text = coerce_str(path, "argument 'path'")
    served = skills.served(name_text)
    if served is None:
        raise unknown_skill(name_text, [info.name for info in skills.list_skills()])
    try:
        rel, data = served.read_listed(path_text, max_bytes)
    except SkillError as err:
        rel, data = served.read_listed(_forgiven(served, path_text, err), max_bytes)
    return FileRead(name_text, rel, data)


def _forgiven(served: ServedSkill, path: object, err: SkillError) -> str:
    """The listed file a path that was not found names (SPEC §29.5), or ``err`` raised again.

    Raises:
        SkillError: ``err`` when ``path`` names no single listed file by its file name: a
            ``not_found`` with ``suggestions`` added to its fields (and "did you mean" to its
            message when there are any), any other error as it was.
    """
    if err.code not in (ErrorCode.NOT_FOUND, ErrorCode.NOT_A_FILE) or not isinstance(path, str):
        raise err
    try:
        content = served.content()
    except SkillError:
        raise err from None
    listed = [content.path.name, *(resource.rel for resource in content.resources)]
    # A file name that is not UTF-8 reaches a client as \xNN (SPEC §20.8), and JSON has no way
    # to send the byte back: the path as it was shown names the listed file.
    as_shown = undecodable_bytes(path)
    if as_shown != path and as_shown in listed:
        return as_shown
    if as_shown and "/" not in as_shown:
        named = [rel for rel in listed if rel != as_shown and rel.rpartition("/")[2] == as_shown]
        if len(named) == 1:
            return named[0]
    if err.code != ErrorCode.NOT_FOUND:
        raise err
    suggestions = suggest_files(path, listed)
    message = err.message
    if suggestions:
        message += f" (did you mean {', '.join(suggestions)}?)"
    raise err.with_fields({"suggestions": suggestions}, message=message) from None
