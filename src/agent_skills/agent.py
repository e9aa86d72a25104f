"""Agent integration: one conversation's use of skills (SPEC §14).

Follows steps 3-5 of the Agent Skills client-implementation guide: show a catalog of the
model-invocable skills, let the model activate one through a dedicated tool, hand back the body
wrapped in ``<skill_content>`` with the skill directory and the list of its files (listed, never
read), and add the activated skill's real directory to the files the agent may read.

:class:`SkillSession` holds that state. Its file-access policy, :meth:`SkillSession.check_read`,
is what a sandboxed agent applies to every path the model asks its file tools to open: the project
root plus the real directories of the skills activated so far, and nothing else.
:meth:`SkillSession.allowed_read_roots` exports the same list for a host's own permission system or
for sandbox mounts.

Skills whose frontmatter says ``disable-model-invocation: true`` never appear in the catalog or in
a tool's ``enum``, and cannot be activated (Agent Skills spec; SPEC §6, §14).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape as _html_escape
from pathlib import Path
from typing import Any, Final, Literal

from ._confine import is_within, real_path
from ._core import AgentSkills
from ._errors import ErrorCode, SkillError
from ._model import SkillInfo
from .catalog import render_available_skills_xml, render_skill_catalog

__all__ = [
    "ACTIVATE_TOOL_NAME",
    "DEFAULT_MAX_READ_BYTES",
    "DEFAULT_SEARCH_LIMIT",
    "ENUM_MAX_LONG_VALUES",
    "ENUM_MAX_TOTAL_CHARS",
    "ENUM_MAX_VALUES",
    "MAX_SEARCH_LIMIT",
    "READ_TOOL_NAME",
    "SEARCH_TOOL_NAME",
    "Activation",
    "CatalogFormat",
    "SkillSession",
    "ToolFlavor",
    "ToolName",
    "enum_fits_strict_mode",
    "tool_definition",
]

DEFAULT_MAX_READ_BYTES = 1_048_576
"""Default cap of :meth:`SkillSession.read_resource`, in bytes (1 MiB; SPEC §14)."""

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

CatalogFormat = Literal["xml", "markdown"]
ToolFlavor = Literal["openai", "openai_responses", "anthropic", "json_schema", "mcp"]
ToolName = Literal["activate_skill", "read_skill_resource", "search_skills"]

_FORMATS: tuple[str, ...] = ("xml", "markdown")
_FLAVORS: tuple[str, ...] = ("openai", "openai_responses", "anthropic", "json_schema", "mcp")
_TOOLS: tuple[str, ...] = (ACTIVATE_TOOL_NAME, READ_TOOL_NAME, SEARCH_TOOL_NAME)

_INSTRUCTIONS = (
    "Skills are folders of instructions, scripts and reference files for specific tasks. "
    "Each skill below is listed with a description of when to use it. When a task matches a "
    f"skill's description, call the {ACTIVATE_TOOL_NAME} tool with the skill's name before you "
    "start, then follow the instructions it returns. Paths in a skill's instructions are relative "
    "to its skill directory, which the activation result names together with the skill's files; "
    f"read those files with {READ_TOOL_NAME} or with your file tools once the skill is active."
)
_MARKDOWN_HEADING = "## Available skills"
_ATTR = {'"': "&quot;"}


def escape(text: str, entities: dict[str, str] | None = None) -> str:
    """Escape ``&``, ``<``, ``>`` and the ``entities`` given, as ``xml.sax.saxutils.escape``
    does, without importing ``urllib.request`` as that module does (SPEC §26)."""
    out = _html_escape(text, quote=False)
    for char, entity in (entities or {}).items():
        out = out.replace(char, entity)
    return out


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
class Activation:
    """The result of :meth:`SkillSession.activate` (SPEC §14).

    Attributes:
        name: The skill's name.
        content: The text to return to the model: the ``<skill_content>`` block on the first
            activation, a one-line notice on a later one.
        skill_dir: The absolute skill directory named in ``content`` (the link path for a linked
            skill; its real directory is what the session allowlists).
        already_active: True when the skill had been activated earlier in this session.
    """

    name: str
    content: str
    skill_dir: Path
    already_active: bool


def _invalid(message: str, fields: dict[str, Any]) -> SkillError:
    return SkillError(ErrorCode.INVALID_INPUT, message, fields)


def _require_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise _invalid(
            f"{what} must be a str, got {type(value).__name__}", {"type": type(value).__name__}
        )
    return value


def _path_text(value: object, what: str) -> str:
    """Return ``value`` as a ``str`` path, or raise ``invalid_input`` (never ``TypeError``)."""
    if isinstance(value, os.PathLike):
        try:
            value = os.fspath(value)
        except Exception as exc:
            raise _invalid(f"{what} is unusable: {exc}", {"type": type(value).__name__}) from None
    if not isinstance(value, str):
        raise _invalid(
            f"{what} must be a str or os.PathLike[str], got {type(value).__name__}",
            {"type": type(value).__name__},
        )
    if value == "":
        raise _invalid(f"{what} must not be empty", {"path": value})
    if "\x00" in value:
        raise _invalid(f"{what} must not contain NUL", {"path": value})
    return value


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
    raise _invalid(
        f"tool flavor must be one of {', '.join(_FLAVORS)}, got {flavor!r}",
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
        raise _invalid(
            f"tool must be one of {', '.join(_TOOLS)}, got {tool!r}", {"tool": repr(tool)}
        )
    return _wrap_tool(flavor, tool, description, schema)


class SkillSession:
    """One conversation's use of skills: catalog, activation, reads and file policy (SPEC §14).

    Thread-safe for one conversation: the set of activated skills is guarded by a lock, so two
    concurrent activations of one skill yield exactly one ``already_active=False``. The skills
    themselves are read from ``skills`` on every call, so a :meth:`AgentSkills.refresh` is seen.

    Args:
        skills: The :class:`~agent_skills.AgentSkills` to serve.
        project_root: The directory the agent works in; its real path is always readable and
            relative paths given to :meth:`check_read` resolve against it. ``None`` for none.
            A relative ``project_root`` is taken against the working directory, now.
        max_read_bytes: Largest file :meth:`read_resource` returns, in bytes (default 1 MiB).

    Raises:
        SkillError: ``invalid_input`` when ``skills`` is not an ``AgentSkills``, ``project_root``
            is not a non-empty ``str``/``PathLike`` without NUL, or ``max_read_bytes`` is not a
            non-negative ``int``.
    """

    def __init__(
        self,
        skills: AgentSkills,
        *,
        project_root: str | os.PathLike[str] | None = None,
        max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    ) -> None:
        if not isinstance(skills, AgentSkills):
            raise _invalid(
                f"skills must be an AgentSkills, got {type(skills).__name__}",
                {"type": type(skills).__name__},
            )
        if (
            not isinstance(max_read_bytes, int)
            or isinstance(max_read_bytes, bool)
            or max_read_bytes < 0
        ):
            raise _invalid(
                "max_read_bytes must be a non-negative int",
                {"max_read_bytes": repr(max_read_bytes)},
            )
        self._skills = skills
        self._max_read_bytes = max_read_bytes
        self._project_root: Path | None = None
        if project_root is not None:
            root = _path_text(project_root, "project_root")
            self._project_root = Path(real_path(os.path.abspath(root)))
        self._lock = threading.Lock()
        # name -> real skill directory, in activation order
        self._active: dict[str, str] = {}
        self._offers_search = False

    def __repr__(self) -> str:
        with self._lock:
            active = list(self._active)
        return f"SkillSession(project_root={self._project_root!s}, active={active})"

    @property
    def skills(self) -> AgentSkills:
        """The :class:`~agent_skills.AgentSkills` this session serves."""
        return self._skills

    @property
    def project_root(self) -> Path | None:
        """The real project root, or ``None``."""
        return self._project_root

    @property
    def max_read_bytes(self) -> int:
        """The cap of :meth:`read_resource`, in bytes."""
        return self._max_read_bytes

    def model_invocable(self) -> list[SkillInfo]:
        """Return the skills the model may see and activate, sorted as SPEC §8.

        Those without ``disable-model-invocation: true`` (Agent Skills spec; SPEC §6).
        """
        return [info for info in self._skills.list_skills() if info.model_invocable]

    def active_skills(self) -> list[str]:
        """Return the names activated in this session, in activation order (a new list)."""
        with self._lock:
            return list(self._active)

    # -- tier 1: the catalog -------------------------------------------------------------------

    def catalog_prompt(self, format: CatalogFormat = "xml") -> str:
        """Return the system-prompt text that introduces the skills (SPEC §13-§14).

        Short instructions on activating skills, a blank line, then the catalog of the
        model-invocable skills: the ``<available_skills>`` block for ``"xml"`` (without
        ``<location>``: a skill's files become readable only once it is activated, so the
        catalog advertises no path the session would refuse), or a ``## Available skills``
        markdown list for ``"markdown"``. Ends with a newline.

        Args:
            format: ``"xml"`` or ``"markdown"``.

        Returns:
            The text, or ``""`` when there is no model-invocable skill.

        Raises:
            SkillError: ``invalid_input`` ``{format}`` for another format.
        """
        if format not in _FORMATS:
            raise _invalid(
                f"catalog format must be 'xml' or 'markdown', got {format!r}",
                {"format": repr(format)},
            )
        skills = self.model_invocable()
        if not skills:
            return ""
        if format == "xml":
            catalog = render_available_skills_xml(skills, include_location=False)
        else:
            catalog = render_skill_catalog(skills, heading=_MARKDOWN_HEADING)
        return _INSTRUCTIONS + "\n\n" + catalog

    # -- tools ---------------------------------------------------------------------------------

    def _names(self) -> list[str]:
        return [info.name for info in self.model_invocable()]

    def activation_tool(self, flavor: ToolFlavor = "openai") -> dict[str, Any] | None:
        """Return the ``activate_skill`` tool definition (SPEC §14, §22.2, §22.5).

        Its parameters are a JSON Schema object with one required string property ``name``
        (``additionalProperties`` false). ``name`` has an ``enum`` of the model-invocable skills,
        sorted as SPEC §8, while that list stays within OpenAI's strict-mode limits (at most 250
        names, or at most 500 adding up to at most 7 500 characters); past that it is a plain
        string and any model-invocable name is accepted.

        Args:
            flavor: ``"openai"``, ``"openai_responses"``, ``"anthropic"``, ``"json_schema"`` or
                ``"mcp"``; the shapes are those of :func:`tool_definition`.

        Returns:
            A new dict, or ``None`` when there is no model-invocable skill.

        Raises:
            SkillError: ``invalid_input`` ``{flavor}`` for another flavor.
        """
        names = self._names()
        tool = tool_definition(ACTIVATE_TOOL_NAME, flavor, names=names)
        return tool if names else None

    def read_tool(self, flavor: ToolFlavor = "openai") -> dict[str, Any] | None:
        """Return the ``read_skill_resource`` tool definition (SPEC §14, §22.5).

        Its parameters have two required string properties: ``name`` (an ``enum`` of the
        model-invocable skills, the only ones that can be activated, within the same limits as
        :meth:`activation_tool`) and ``path`` (relative to the skill directory);
        ``additionalProperties`` false.

        Args:
            flavor: As :meth:`activation_tool`.

        Returns:
            A new dict, or ``None`` when there is no model-invocable skill.

        Raises:
            SkillError: ``invalid_input`` ``{flavor}`` for another flavor.
        """
        names = self._names()
        tool = tool_definition(READ_TOOL_NAME, flavor, names=names)
        return tool if names else None

    def search_tool(self, flavor: ToolFlavor = "openai") -> dict[str, Any] | None:
        """Return the ``search_skills`` tool definition, when this session offers it (§22.2).

        It is offered when the session was built with a ``catalog_budget`` that left skills out
        of the catalog (decided once, when the session is built).

        Args:
            flavor: As :meth:`activation_tool`.

        Returns:
            A new dict, or ``None`` when the session does not offer search.

        Raises:
            SkillError: ``invalid_input`` ``{flavor}`` for another flavor.
        """
        tool = tool_definition(SEARCH_TOOL_NAME, flavor)
        return tool if self._offers_search else None

    def tools(self, flavor: ToolFlavor = "openai") -> list[dict[str, Any]]:
        """Return every tool of this session in one host's format (SPEC §22.5).

        ``activate_skill`` and ``read_skill_resource`` when there is a model-invocable skill,
        then ``search_skills`` when the session offers it; each a new dict, as
        :func:`tool_definition` builds them. Answer the model's calls with
        :meth:`handle_tool_call`.

        Args:
            flavor: ``"openai"``, ``"openai_responses"``, ``"anthropic"``, ``"json_schema"`` or
                ``"mcp"``.

        Returns:
            A new list (empty when there is nothing to offer).

        Raises:
            SkillError: ``invalid_input`` ``{flavor}`` for another flavor.
        """
        offered = (self.activation_tool(flavor), self.read_tool(flavor), self.search_tool(flavor))
        return [tool for tool in offered if tool is not None]

    # -- tier 2: activation --------------------------------------------------------------------

    def activate(self, name: str) -> Activation:
        """Activate a model-invocable skill (SPEC §14; Agent Skills client guide, step 4).

        The first activation returns::

            <skill_content name="NAME">
            BODY

            Skill directory: /absolute/skill/dir
            Relative paths in this skill resolve against the skill directory.

            <skill_resources>
            <file>references/guide.md</file>
            </skill_resources>
            </skill_content>

        with no trailing newline. ``BODY`` is the body verbatim (trailing whitespace removed);
        the name, the directory and each ``rel`` are XML-escaped (the name as an attribute);
        resources are those of SPEC §9, listed, never read (an empty list keeps the two tags).
        The skill's real directory joins the session's read allowlist. A later activation in
        the same session returns ``already_active=True`` and a one-line notice instead, unless a
        refresh has since moved the name to another directory: then the new directory replaces
        the old one in the allowlist and the full content is returned again.

        Args:
            name: The skill's name.

        Returns:
            An :class:`Activation`.

        Raises:
            SkillError: ``invalid_input`` for a non-``str`` name; ``not_found`` ``{name}`` for an
                unknown or non-model-invocable skill.
        """
        _require_str(name, "skill name")
        content = self._skills.load_skill(name)
        if content is None or not content.model_invocable:
            raise SkillError(ErrorCode.NOT_FOUND, f"No such skill: {name}", {"name": name})
        skill_dir = Path(os.path.abspath(content.dir))
        real_dir = real_path(os.fspath(skill_dir))
        with self._lock:
            # After a refresh the name may lead to another directory: that is a new activation,
            # and it replaces the old directory in the allowlist.
            already = self._active.get(name) == real_dir
            if not already:
                self._active.pop(name, None)
                self._active[name] = real_dir
        if already:
            notice = (
                f"Skill '{name}' is already active in this conversation; "
                "follow the instructions it returned earlier."
            )
            return Activation(name, notice, skill_dir, True)
        text = _skill_content(name, content.body, skill_dir, (r.rel for r in content.resources))
        return Activation(name, text, skill_dir, False)

    # -- tier 3: files -------------------------------------------------------------------------

    def read_resource(self, name: str, rel: str | os.PathLike[str]) -> bytes:
        """Read a file of an activated skill (SPEC §10, §14).

        Goes through :meth:`AgentSkills.read_resource`, so the read is confined and race-free.

        Args:
            name: The name of a skill activated in this session.
            rel: The path relative to the skill directory.

        Returns:
            The file's bytes.

        Raises:
            SkillError: ``invalid_input`` for a non-``str`` name; ``access_denied``
                ``{name, rel}`` when the skill is not activated in this session (unknown names
                included), or when after a refresh the name now belongs to a skill in another
                directory; then as :meth:`AgentSkills.read_resource`: ``invalid_input``,
                ``path_escape``, ``not_found``, ``not_a_file``, ``io_error``, and ``too_large``
                ``{name, rel, size, max_bytes}`` above ``max_read_bytes``.
        """
        _require_str(name, "skill name")
        with self._lock:
            real_dir = self._active.get(name)
        current = self._skills.registry.lookup(name)
        if (
            real_dir is None
            or current is None
            or real_path(os.path.abspath(current.info.dir)) != real_dir
        ):
            try:
                rel_text = os.fspath(rel)
            except TypeError:
                rel_text = repr(rel)
            if not isinstance(rel_text, str):
                rel_text = repr(rel_text)
            raise SkillError(
                ErrorCode.ACCESS_DENIED,
                f"Skill '{name}' is not active in this conversation; activate it first",
                {"name": name, "rel": rel_text},
            )
        return self._skills.read_resource(name, rel, max_bytes=self._max_read_bytes)

    def check_read(self, path: str | os.PathLike[str]) -> Path:
        """Decide whether the agent may read ``path`` (the file-access policy of SPEC §14).

        ``~`` is not expanded (``"~/x"`` is a relative path). A relative path is taken against
        the project root; with no project root it is refused. The path is then made real
        (symlinks and ``..`` resolved, in that order, as far as it exists) and allowed when it
        lies inside the real project root or inside the real directory of a skill activated in
        this session, compared by path components (``/s/foo`` never contains ``/s/foo-evil``).

        The check does not open the file: open the returned real path, which holds no symlink
        at the moment of the check.

        Args:
            path: The path the model asked for (``str`` or ``PathLike``).

        Returns:
            The real path.

        Raises:
            SkillError: ``invalid_input`` for a non-path, an empty path or one holding NUL;
                ``access_denied`` ``{path}`` (the path as given) otherwise.
        """
        text = _path_text(path, "path")
        denied = SkillError(
            ErrorCode.ACCESS_DENIED,
            f"Access denied: {text} is outside the readable roots",
            {"path": text},
        )
        if os.path.isabs(text):
            candidate = text
        elif self._project_root is not None:
            candidate = os.path.join(self._project_root, text)
        else:
            raise denied
        try:
            real = real_path(candidate)
        except (OSError, ValueError, SkillError):
            raise denied from None
        if any(is_within(real, root) for root in self._roots()):
            return Path(real)
        raise denied

    def _roots(self) -> list[str]:
        roots = [os.fspath(self._project_root)] if self._project_root is not None else []
        with self._lock:
            for real_dir in self._active.values():
                if real_dir not in roots:
                    roots.append(real_dir)
        return roots

    def allowed_read_roots(self) -> list[Path]:
        """Return the directories the agent may read (SPEC §14), as a new list.

        The real project root (if any) first, then the real directory of every skill activated
        in this session, in activation order, each listed once. Feed it to a host's permission
        system, an MCP ``roots`` list, or read-only sandbox mounts.
        """
        return [Path(root) for root in self._roots()]


def _skill_content(name: str, body: str, skill_dir: Path, rels: Iterable[str]) -> str:
    """Build the ``<skill_content>`` block of SPEC §14 (see :meth:`SkillSession.activate`)."""
    lines = [
        f'<skill_content name="{escape(name, _ATTR)}">',
        body.rstrip(),
        "",
        f"Skill directory: {escape(os.fspath(skill_dir))}",
        "Relative paths in this skill resolve against the skill directory.",
        "",
        "<skill_resources>",
        *(f"<file>{escape(rel)}</file>" for rel in rels),
        "</skill_resources>",
        "</skill_content>",
    ]
    return "\n".join(lines)
