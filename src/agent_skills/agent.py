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
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape as _html_escape
from pathlib import Path
from typing import Any, Literal

from . import _access
from ._args import coerce_int, coerce_optional_int, coerce_path, coerce_str
from ._confine import Pin, real_path
from ._core import AgentSkills
from ._diagnostics import Diagnostic, DiagnosticKind, emit
from ._errors import SkillError, invalid_input
from ._model import MANIFEST_NAME, Grant, GrantSet, SkillInfo
from ._placeholders import Dialect, dialect_of, expand_skill_dir, render_skill
from ._registry import unknown_skill
from ._search import SkillSearchIndex, query_terms
from ._tools import (
    ACTIVATE_TOOL_NAME,
    DEFAULT_MAX_READ_BYTES,
    DEFAULT_SEARCH_LIMIT,
    ENUM_MAX_LONG_VALUES,
    ENUM_MAX_TOTAL_CHARS,
    ENUM_MAX_VALUES,
    MAX_SEARCH_LIMIT,
    READ_TOOL_NAME,
    SEARCH_TOOL_NAME,
    TOOLS,
    ToolFlavor,
    ToolName,
    ToolResult,
    enum_fits_strict_mode,
    expect,
    read_skill_resource,
    tool_arguments,
    tool_definition,
)
from .catalog import (
    CatalogFit,
    fit_catalog,
    render_available_skills_xml,
    render_skill_catalog,
    shorten_description,
)

__all__ = [
    "ACTIVATE_TOOL_NAME",
    "DEFAULT_MAX_LISTED_RESOURCES",
    "DEFAULT_MAX_READ_BYTES",
    "DEFAULT_SEARCH_LIMIT",
    "ENUM_MAX_LONG_VALUES",
    "ENUM_MAX_TOTAL_CHARS",
    "ENUM_MAX_VALUES",
    "MAX_SEARCH_LIMIT",
    "READ_TOOL_NAME",
    "SEARCH_TOOL_NAME",
    "STATE_VERSION",
    "Activation",
    "CatalogFormat",
    "Dialect",
    "SkillSession",
    "ToolFlavor",
    "ToolName",
    "ToolResult",
    "current_body",
    "enum_fits_strict_mode",
    "render_skill",
    "tool_definition",
]


DEFAULT_MAX_LISTED_RESOURCES = 100
"""Files an activation lists before ``<truncated total="N"/>`` (SPEC §22.3)."""

STATE_VERSION = 1
"""The ``version`` of :meth:`SkillSession.to_state` dicts."""


CatalogFormat = Literal["xml", "markdown"]

_FORMATS: tuple[str, ...] = ("xml", "markdown")

_INSTRUCTIONS = (
    "Skills are folders of instructions, scripts and reference files for specific tasks. "
    "Each skill below is listed with a description of when to use it. When a task matches a "
    f"skill's description, call the {ACTIVATE_TOOL_NAME} tool with the skill's name before you "
    "start, then follow the instructions it returns. Paths in a skill's instructions are relative "
    "to its skill directory, which the activation result names together with the skill's files; "
    f"read those files with {READ_TOOL_NAME} or with your file tools once the skill is active."
)
_SEARCH_INSTRUCTIONS = (
    " Not every skill is listed: when none of the listed skills fits the task, call "
    f"{SEARCH_TOOL_NAME} with a few words describing it and activate the best match."
)
_MARKDOWN_HEADING = "## Available skills"
_SUMMARY_INSTRUCTIONS = (
    "These skills were activated earlier in this conversation; keep following their "
    "instructions. Relative paths in a skill resolve against its skill directory, shown here. "
    f"If a skill's instructions are no longer in view, read its manifest again with "
    f"{READ_TOOL_NAME}."
)
_SEARCH_DESCRIPTION_CHARS = 200
_ATTR = {'"': "&quot;"}


def escape(text: str, entities: dict[str, str] | None = None) -> str:
    """Escape ``&``, ``<``, ``>`` and the ``entities`` given, as ``xml.sax.saxutils.escape``
    does, without importing ``urllib.request`` as that module does (SPEC §26)."""
    out = _html_escape(text, quote=False)
    for char, entity in (entities or {}).items():
        out = out.replace(char, entity)
    return out


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
        grants: The read grant this activation added (SPEC §28.5): one
            :class:`~agent_skills.Grant` for a first activation of a skill with a directory,
            ``()`` for a later one and for an archived skill. With ``SkillSession(host=...)``
            it was written into the host's settings before the activation returned.
        grant_error: With ``SkillSession(host=...)``, the ``SkillError`` of a grant the host's
            settings file could not take (a file that is not a JSON object, a link in its
            place: left untouched), also emitted as a ``grant_not_written`` warning; the skill
            is active all the same. ``None`` otherwise.
    """

    name: str
    content: str
    skill_dir: Path
    already_active: bool
    # Derived from the skill's pin (compared through ``skill_dir``): not part of equality, so
    # an activation compares as it did before grants existed.
    grants: tuple[Grant, ...] = field(default=(), compare=False)
    grant_error: SkillError | None = field(default=None, compare=False)


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
        catalog_budget: The most characters :meth:`catalog_prompt` may take, instructions
            included (SPEC §22.1-§22.2); ``None`` for no limit. When the catalog cannot list
            every model-invocable skill within it, the session also offers ``search_skills``
            (decided now, once).
        max_listed_resources: Files an activation lists at most (SPEC §22.3; default 100).
        host: ``None``, or a host with a workspace settings file (``claude``, ``gemini``,
            ``opencode``; SPEC §28.3, §28.5): each activation that adds a directory merges its
            grant into that host's settings in the project root (the configured workspace
            without one) with :func:`agent_skills.grants.write_grants`, so a host that re-reads
            its settings can read the skill's files at once.

    Raises:
        SkillError: ``invalid_input`` when ``skills`` is not an ``AgentSkills``, ``project_root``
            is not a non-empty ``str``/``PathLike`` without NUL (or its links cannot be resolved
            within 40 hops, ``{path}``), or ``max_read_bytes``, ``catalog_budget`` or
            ``max_listed_resources`` is not a non-negative ``int`` (``catalog_budget`` may be
            ``None``); ``invalid_input`` ``{host}`` for a ``host`` without a workspace settings
            file (``{host, hosts}`` for an unknown one).
    """

    def __init__(
        self,
        skills: AgentSkills,
        *,
        project_root: str | os.PathLike[str] | None = None,
        max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
        catalog_budget: int | None = None,
        max_listed_resources: int = DEFAULT_MAX_LISTED_RESOURCES,
        host: str | None = None,
    ) -> None:
        if not isinstance(skills, AgentSkills):
            raise invalid_input(
                f"skills must be an AgentSkills, got {type(skills).__name__}",
                {"type": type(skills).__name__},
            )
        coerce_int(max_read_bytes, "max_read_bytes")
        coerce_int(max_listed_resources, "max_listed_resources")
        if catalog_budget is not None:
            coerce_int(catalog_budget, "catalog_budget")
        self._skills = skills
        self._max_read_bytes = max_read_bytes
        self._catalog_budget = catalog_budget
        self._max_listed = max_listed_resources
        self._project_root: Path | None = None
        if project_root is not None:
            root = coerce_path(project_root, "project_root", usable=True)
            real_root = real_path(os.path.abspath(root))
            if real_root is None:  # SPEC §30.6: a root that still holds a link grants nothing
                raise invalid_input(
                    f"project_root cannot be resolved within 40 symlinks: {root}", {"path": root}
                )
            self._project_root = Path(real_root)
        self._lock = threading.Lock()
        # name -> real skill directory, in activation order; and the directory shown for it
        self._active: dict[str, Pin] = {}
        self._shown: dict[str, Path] = {}
        self._dropped: tuple[str, ...] = ()
        self._offers_search = False
        if catalog_budget is not None:
            self._offers_search = bool(self._fit("xml", search=False).omitted)
        self._host: str | None = None
        if host is not None:
            from .grants import settings_host

            self._host = settings_host(host)

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

    @property
    def catalog_budget(self) -> int | None:
        """The budget of :meth:`catalog_prompt` in characters, or ``None``."""
        return self._catalog_budget

    @property
    def max_listed_resources(self) -> int:
        """The most files an activation lists (SPEC §22.3)."""
        return self._max_listed

    @property
    def offers_search(self) -> bool:
        """Whether the session offers ``search_skills`` (SPEC §22.2; decided when built)."""
        return self._offers_search

    @property
    def host(self) -> str | None:
        """The host whose settings each activation writes its grant into, or ``None``."""
        return self._host

    @property
    def dropped(self) -> tuple[str, ...]:
        """Skills :meth:`from_state` could not restore (vanished or moved), in state order."""
        return self._dropped

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

    def _instructions(self, search: bool) -> str:
        return _INSTRUCTIONS + (_SEARCH_INSTRUCTIONS if search else "")

    def _fit(self, format: str, *, search: bool) -> CatalogFit:
        skills = self.model_invocable()
        budget = self._catalog_budget
        if budget is None:
            if format == "xml":
                text = render_available_skills_xml(skills, include_location=False)
            else:
                text = render_skill_catalog(skills, heading=_MARKDOWN_HEADING)
            return CatalogFit(text, tuple(info.name for info in skills), (), ())
        # The whole prompt stays within the budget: instructions, a blank line, the catalog.
        room = max(0, budget - len(self._instructions(search)) - 2)
        return fit_catalog(
            skills,
            max_chars=room,
            format="xml" if format == "xml" else "markdown",
            include_location=False,
            heading=_MARKDOWN_HEADING,
        )

    def catalog_fit(self, format: CatalogFormat = "xml") -> CatalogFit:
        """Return the catalog part of :meth:`catalog_prompt` with its report (SPEC §22.1).

        Without a ``catalog_budget`` every model-invocable skill is included and nothing is
        shortened. With one, the :func:`~agent_skills.catalog.fit_catalog` report: which skills
        were listed, shortened and omitted (the omitted ones are still activatable, and found by
        ``search_skills`` when the session offers it).

        Args:
            format: ``"xml"`` or ``"markdown"``.

        Returns:
            A :class:`~agent_skills.catalog.CatalogFit`; its ``text`` is the catalog without the
            instructions.

        Raises:
            SkillError: ``invalid_input`` ``{format}`` for another format.
        """
        if format not in _FORMATS:
            raise invalid_input(
                f"catalog format must be 'xml' or 'markdown', got {format!r}",
                {"format": repr(format)},
            )
        return self._fit(format, search=self._offers_search)

    def catalog_prompt(self, format: CatalogFormat = "xml") -> str:
        """Return the system-prompt text that introduces the skills (SPEC §13-§14, §22.1-§22.2).

        Short instructions on activating skills, a blank line, then the catalog of the
        model-invocable skills: the ``<available_skills>`` block for ``"xml"`` (without
        ``<location>``: a skill's files become readable only once it is activated, so the
        catalog advertises no path the session would refuse), or a ``## Available skills``
        markdown list for ``"markdown"``. Ends with a newline.

        With a ``catalog_budget`` the whole text is at most that many characters: the catalog is
        fitted by :func:`~agent_skills.catalog.fit_catalog` (descriptions shortened, then skills
        omitted and named in a closing note), and when the session offers ``search_skills`` the
        instructions say how to use it. :meth:`catalog_fit` reports what was left out.

        Args:
            format: ``"xml"`` or ``"markdown"``.

        Returns:
            The text, or ``""`` when there is no model-invocable skill (or the budget cannot
            hold even the instructions and the note).

        Raises:
            SkillError: ``invalid_input`` ``{format}`` for another format.
        """
        fit = self.catalog_fit(format)
        if not fit.text:
            return ""
        return self._instructions(self._offers_search) + "\n\n" + fit.text

    # -- search --------------------------------------------------------------------------------

    def search_skills(self, query: str, limit: int | None = None) -> list[SkillInfo]:
        """Rank the model-invocable skills for ``query`` by BM25 (SPEC §22.2).

        Over name, description and category, with SQLite FTS5 (``porter`` stemming,
        ``unicode61`` words); a skill matches when any word of the query is in it. The index is
        built on first use and again after each :meth:`AgentSkills.refresh`, and shared by
        every session of the same :class:`~agent_skills.AgentSkills`. Works whether or
        not the session offers the ``search_skills`` tool.

        Args:
            query: Words describing the task.
            limit: The most results, 1 to 50; ``None`` for 10.

        Returns:
            The matching skills, best first (a new list; empty when none matches).

        Raises:
            SkillError: ``invalid_input`` ``{type}`` for a non-``str`` query, ``{query}`` for one
                without any word, ``{limit}`` for a limit that is not an int from 1 to 50;
                ``io_error`` when this Python's SQLite lacks FTS5.
        """
        coerce_str(query, "query")
        limit = coerce_optional_int(
            limit, "limit", none="null", minimum=1, maximum=MAX_SEARCH_LIMIT
        )
        if limit is None:
            limit = DEFAULT_SEARCH_LIMIT
        if not query_terms(query):
            raise invalid_input("the query has no word to search for", {"query": query})
        index = _search_index(self._skills)
        return index.search(query, limit)

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
        """Activate a model-invocable skill (SPEC §14, §22.3-§22.4; Agent Skills client guide).

        The first activation returns::

            <skill_content name="NAME">
            BODY

            Skill directory: /absolute/skill/dir
            Relative paths in this skill resolve against the skill directory.

            <skill_resources>
            <file>references/guide.md</file>
            <truncated total="240"/>
            </skill_resources>
            </skill_content>

        with no trailing newline. ``BODY`` is the body of the manifest as it is now (read at
        this moment, confined to the skill, and parsed again: SPEC §22.4), trailing whitespace
        removed, with ``${SKILL_DIR}`` and, in a Claude-style body, ``${CLAUDE_SKILL_DIR}``
        replaced by the skill directory shown (SPEC §29.4; see
        :func:`~agent_skills._placeholders.dialect_of`; ``load_skill().body`` stays as written);
        the name, the directory and each ``rel`` are XML-escaped (the name as an attribute).
        The files are those of SPEC §9, listed, never read: at most ``max_listed_resources`` of
        them, then ``<truncated total="N"/>`` with the number of files found (an empty list
        keeps the two tags); every file stays readable by :meth:`read_resource`. The skill's
        real directory joins the session's read allowlist. A later activation in the same
        session returns ``already_active=True`` and a one-line notice instead, unless a refresh
        has since moved the name to another directory: then the new directory replaces the old
        one in the allowlist and the full content is returned again.

        Args:
            name: The skill's name.

        Returns:
            An :class:`Activation`.

        Raises:
            SkillError: ``invalid_input`` for a non-``str`` name; ``not_found`` ``{name}`` for an
                unknown or non-model-invocable skill; ``stale_skill`` ``{name, dir}`` when the
                skill's directory is no longer the one pinned at discovery (SPEC §20.1);
                ``invalid_skill`` ``{name, path}`` when the manifest no longer parses (the
                catalog keeps the skill until a refresh); the read's errors (``not_found`` when
                the manifest was deleted, ``io_error``, ``too_large``, ``access_denied``) as
                :func:`current_body`; ``too_large`` ``{max_chars}`` when the body with its
                directory placeholders replaced would pass 16 Mi characters (SPEC §30.6);
                with a ``host``, an error of :func:`agent_skills.grants.write_grants` (such
                as ``invalid_input`` for a settings file that is not a JSON object, left
                untouched) is not raised: the skill is active, and the error is
                :attr:`Activation.grant_error` and a ``grant_not_written`` warning.
        """
        coerce_str(name, "skill name")
        # One snapshot for the whole activation: the directory, the body and the files listed
        # all come from it, whatever refresh happens meanwhile.
        served = self._skills.served(name)
        if served is None or served.withheld or not served.info.model_invocable:
            known = [i.name for i in self._skills.list_skills() if i.model_invocable]
            raise unknown_skill(name, known)  # with suggestions (SPEC §21.10)
        skill_dir = Path(os.path.abspath(served.info.dir))
        # The pin, checked now, and the link path shown must still lead to it (SPEC §20.1).
        real_dir = served.verify_dir()
        with self._lock:
            # After a refresh the name may lead to another directory: that is a new activation.
            already = self._active.get(name) == real_dir
        grants: tuple[Grant, ...] = ()
        grant_error: SkillError | None = None
        if not already:
            view = served.activation()
            # SPEC §29.4: the directory placeholders, as hosts replace them when they load a skill.
            body = expand_skill_dir(view.body, skill_dir, dialect=dialect_of(view.info))
            rels = view.resources
            if not view.archived and not view.info.single_file:  # §25.1, §29.2: no directory
                grants = (Grant(name, skill_dir, Path(view.pin.real_dir)),)
            if grants and self._host is not None:
                grant_error = self._write_grants(grants)  # SPEC §28.5: before it counts as active
            with self._lock:
                already = self._active.get(name) == view.pin  # a concurrent activation won
                if not already:
                    self._active.pop(name, None)
                    self._active[name] = view.pin
                    self._shown[name] = skill_dir
        if already:
            notice = (
                f"Skill '{name}' is already active in this conversation; "
                "follow the instructions it returned earlier."
            )
            return Activation(name, notice, skill_dir, True)
        text = _skill_content(name, body, skill_dir, rels, self._max_listed)
        return Activation(name, text, skill_dir, False, grants, grant_error)

    def _write_grants(self, grants: tuple[Grant, ...]) -> SkillError | None:
        """Merge ``grants`` into the session host's settings (SPEC §28.3, §28.5); a settings
        file that cannot take them is left as it is, and its error returned and emitted as a
        ``grant_not_written`` warning: a repository shipping a broken file never turns
        activation off."""
        from .grants import write_grants

        assert self._host is not None
        root = self._project_root
        workspace = root if root is not None else self._skills.config.workspace_dir
        roots = tuple(r.path for r in self._skills.config.roots)
        try:
            write_grants(GrantSet(grants, (), roots), self._host, workspace=workspace)
        except SkillError as exc:
            names = ", ".join(g.skill for g in grants)
            emit(
                [
                    Diagnostic(
                        DiagnosticKind.GRANT_NOT_WRITTEN,
                        f"the grant of {names} was not written into the {self._host} settings "
                        f"({exc.code.value}: {exc.message}); the skill is active, the file "
                        "left as it was",
                        Path(str(exc.fields["path"])) if "path" in exc.fields else None,
                    )
                ]
            )
            return exc
        return None

    # -- tier 3: files -------------------------------------------------------------------------

    def read_resource(self, name: str, rel: str | os.PathLike[str]) -> bytes:
        """Read a file of an activated skill (SPEC §10, §14, §29.5): what the model's
        ``read_skill_resource`` asks for.

        Goes through :meth:`AgentSkills.read_resource`, so the read is confined and race-free.
        Names are forgiven as the tool forgives them: a bare file name that is not a file at the
        top of the skill reads the one listed file of that name (``checklist.md`` for
        ``references/checklist.md``); a file still not found is ``not_found`` with the closest
        listed files as ``suggestions``.

        Args:
            name: The name of a skill activated in this session.
            rel: The path relative to the skill directory.

        Returns:
            The file's bytes.

        Raises:
            SkillError: ``invalid_input`` for a non-``str`` name; ``not_found``
                ``{name, suggestions}`` for a skill the model cannot activate (unknown, or not
                model-invocable); ``access_denied`` ``{name, rel}`` when the skill is not
                activated in this session (the message says to call ``activate_skill``
                first), or when after a refresh the name now belongs to a skill in another
                directory; ``not_found`` ``{name, rel, suggestions}`` for a file not found; then
                as :meth:`AgentSkills.read_resource`: ``invalid_input``, ``path_escape``,
                ``not_a_file``, ``io_error``, and ``too_large`` ``{name, rel, size, max_bytes}``
                above ``max_read_bytes``.
        """
        return read_skill_resource(
            self._skills, name, rel, max_bytes=self._max_read_bytes, active=self._activated()
        ).data

    def _activated(self) -> dict[str, Pin]:
        """The skills activated so far, with the directories they were activated in (a copy)."""
        with self._lock:
            return dict(self._active)

    def check_read(self, path: str | os.PathLike[str]) -> Path:
        """Decide whether the agent may read ``path`` (the file-access policy of SPEC §14).

        ``~`` is not expanded (``"~/x"`` is a relative path). A relative path is taken against
        the project root; with no project root it is refused. The path is then made real
        (symlinks and ``..`` resolved, in that order, as far as it exists; a path whose links
        cannot be resolved within 40 hops, a loop or a long chain, is refused whatever it names,
        SPEC §30.6) and allowed when it
        lies inside the real project root or inside the pinned real directory of a skill
        activated in this session, compared by path components (``/s/foo`` never contains
        ``/s/foo-evil``); a skill whose directory was replaced since discovery approves nothing
        (its pin is verified, SPEC §20.1; ``access_denied``, never ``stale_skill``). Inside an
        activated skill gated by the trust store (SPEC §23.3), even one inside the project root,
        only a file its approval covers is allowed, and only while its bytes (read now through
        the pin) are the approved ones; a mismatch marks the skill changed since approval.

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
        return _access.check_read(
            self._skills, self._project_root, list(self._activated().items()), path
        )

    def allowed_read_roots(self) -> list[Path]:
        """Return the directories the agent may read (SPEC §14), as a new list.

        The real project root (if any) first, then the pinned real directory of every skill
        activated in this session, in activation order, each listed once; a skill whose directory
        was replaced since discovery is left out (each pin is verified when called, SPEC §20.1),
        and so is a gated skill whose files no longer match its approval (hashed when called,
        SPEC §23.3). Feed it to a host's permission system, an MCP ``roots`` list, or read-only
        sandbox mounts.
        """
        active = list(self._activated().items())
        return [
            Path(root) for root in _access.readable_roots(self._skills, self._project_root, active)
        ]

    def grants(self) -> GrantSet:
        """Return the read grants of the skills activated in this session, in activation order
        (SPEC §28.1, §28.5).

        One :class:`~agent_skills.Grant` per active skill: ``path`` the directory shown to the
        model (the link path of a linked skill), ``real_path`` its pinned real directory. As in
        :meth:`allowed_read_roots`, each pin is verified when called: a skill whose directory was
        replaced since discovery is left out (``stale_skill``), so are a gated skill whose files
        no longer match its approval (``untrusted``) and an archived skill (``archived_skill``).
        ``roots`` are the configured roots.
        """
        with self._lock:
            active = [(name, pin, self._shown[name]) for name, pin in self._active.items()]
        return _access.session_grants(self._skills, active)

    # -- one dispatcher ------------------------------------------------------------------------

    def handle_tool_call(self, name: object, arguments: object = None) -> ToolResult:
        """Answer one tool call of the model (SPEC §22.6). Never raises for the model's input.

        Runs ``activate_skill`` (the activation content, or the already-active notice),
        ``read_skill_resource`` (the file as text when it is UTF-8, else a one-line notice with
        its size and media type) or, when the session offers it, ``search_skills`` (one
        ``name: description`` line per match, best first, descriptions on one line and cut to
        200 characters; a line saying so when nothing matches). Reading follows the session's
        policy: the skill must have been activated first (``access_denied``), and names are
        forgiven as :meth:`read_resource` forgives them (SPEC §29.5).

        A mistake of the model is a result with ``is_error=True`` whose text is
        ``"<code>: <message>"``: an unknown tool, arguments that are not a JSON object,
        missing, unexpected or mistyped arguments (``invalid_input``), and every
        :class:`~agent_skills.SkillError` of the call (``not_found``, ``access_denied``,
        ``path_escape``, ``too_large``, ...). ``limit`` may be left out (taken as null).

        Args:
            name: The tool's name as the model sent it.
            arguments: The arguments: a mapping, or the JSON text of an object (as Chat
                Completions and the Responses API send them); ``None`` for none.

        Returns:
            A :class:`ToolResult`.
        """
        try:
            return self._dispatch(name, arguments)
        except SkillError as err:
            return ToolResult(f"{err.code.value}: {err.message}", True)

    def _dispatch(self, name: object, arguments: object) -> ToolResult:
        if not isinstance(name, str):
            raise invalid_input(
                f"tool name must be a string, got {type(name).__name__}",
                {"type": type(name).__name__},
            )
        offered = [t for t in TOOLS if t != SEARCH_TOOL_NAME or self._offers_search]
        if name not in offered:
            raise invalid_input(
                f"unknown tool {name!r}; the tools are {', '.join(offered)}", {"tool": name}
            )
        args = tool_arguments(arguments)
        if name == ACTIVATE_TOOL_NAME:
            expect(args, name, "name")
            return ToolResult(self.activate(args["name"]).content)
        if name == READ_TOOL_NAME:
            expect(args, name, "name", "path")
            skill, rel = args["name"], args["path"]
            coerce_str(rel, "path")
            read = read_skill_resource(
                self._skills, skill, rel, max_bytes=self._max_read_bytes, active=self._activated()
            )
            text = read.text
            if text is not None:
                return ToolResult(text)
            return ToolResult(
                f"'{read.rel}' in skill '{skill}' is a binary file ({len(read.data)} bytes, "
                f"{read.media_type}); it cannot be shown as text."
            )
        expect(args, name, "query", "limit", optional=("limit",))
        query = args["query"]
        found = self.search_skills(query, args.get("limit"))
        if not found:
            return ToolResult(f"No skill matches {query!r}.")
        lines = [f"{info.name}: {_search_line(info.description)}" for info in found]
        return ToolResult("\n".join(lines))

    # -- surviving compaction --------------------------------------------------------------------

    def context_summary(self) -> str:
        """One short block naming the active skills and their directories (SPEC §22.7).

        Re-inject it after compacting a conversation instead of the skills' whole bodies::

            <active_skills>
            These skills were activated earlier in this conversation; keep following their
            instructions. ... read its manifest again with read_skill_resource.
            <skill name="api-review" manifest="SKILL.md">/home/me/.agents/skills/api-review</skill>
            </active_skills>

        (the instructions are one line). Values are XML-escaped.

        Returns:
            The block without a trailing newline, or ``""`` when no skill is active.
        """
        with self._lock:
            active = [(name, self._shown[name]) for name in self._active]
        if not active:
            return ""
        lines = ["<active_skills>", _SUMMARY_INSTRUCTIONS]
        for name, shown in active:
            found = self._skills.served(name)
            if found is not None and found.withheld:
                found = None
            if found is not None and not found.archived:
                try:  # a list leaves a skill whose dir no longer leads to its pin out (§20.1)
                    found.verify_dir()
                except SkillError:
                    continue
            manifest = found.info.path.name if found is not None else MANIFEST_NAME
            lines.append(
                f'<skill name="{escape(name, _ATTR)}" manifest="{escape(manifest, _ATTR)}">'
                f"{escape(os.fspath(shown))}</skill>"
            )
        lines.append("</active_skills>")
        return "\n".join(lines)

    def to_state(self) -> dict[str, Any]:
        """The session as a JSON-ready dict, for :meth:`from_state` in another process (§22.7).

        Returns:
            ``{"version": 1, "active": [{"name", "dir"}, ...], "project_root",
            "max_read_bytes", "catalog_budget", "max_listed_resources"}``: the active skills in
            activation order with their real directories, and the session's settings (paths as
            strings, ``None`` when unset).
        """
        with self._lock:
            active = [{"name": name, "dir": pin.real_dir} for name, pin in self._active.items()]
        root = self._project_root
        return {
            "version": STATE_VERSION,
            "active": active,
            "project_root": os.fspath(root) if root is not None else None,
            "max_read_bytes": self._max_read_bytes,
            "catalog_budget": self._catalog_budget,
            "max_listed_resources": self._max_listed,
        }

    @classmethod
    def from_state(
        cls, skills: AgentSkills, state: Mapping[str, Any], **overrides: Any
    ) -> SkillSession:
        """Restore a session saved by :meth:`to_state` (SPEC §22.7).

        The settings come from ``state`` unless given in ``overrides`` (the keyword arguments
        of :class:`SkillSession`). A saved active skill is restored when a model-invocable
        skill of that name still lives in the same real directory; the others (vanished,
        moved, hidden from the model) are left out and named in :attr:`dropped`. Restored skills
        are active without being activated again: their directories are readable at once.

        Args:
            skills: The skills of the new process.
            state: A dict from :meth:`to_state` (for example after ``json.loads``).
            **overrides: ``project_root``, ``max_read_bytes``, ``catalog_budget``,
                ``max_listed_resources``.

        Returns:
            A new :class:`SkillSession`.

        Raises:
            SkillError: ``invalid_input`` ``{state}`` when ``state`` is not such a dict (or has
                another ``version``); the constructor's ``invalid_input`` for bad settings.
        """
        active = _state_active(state)
        settings: dict[str, Any] = {
            key: state.get(key)
            for key in ("project_root", "max_read_bytes", "catalog_budget", "max_listed_resources")
            if key in state and (state.get(key) is not None or key == "catalog_budget")
        }
        settings.update(overrides)
        session = cls(skills, **settings)
        dropped: list[str] = []
        for name, real in active:
            found = skills.served(name)
            if found is not None and not found.withheld and found.info.model_invocable:
                shown = Path(os.path.abspath(found.info.dir))
                try:
                    pin: Pin | None = found.verify_dir()
                except SkillError:
                    pin = None
                if pin is not None and pin.real_dir == real:
                    session._active[name] = pin
                    session._shown[name] = shown
                    continue
            dropped.append(name)
        session._dropped = tuple(dropped)
        return session


# One search index per AgentSkills and revision, shared by its sessions (one per conversation):
# building it costs more than a query (docs/performance.md).
_INDEXES: weakref.WeakKeyDictionary[AgentSkills, tuple[int, SkillSearchIndex]] = (
    weakref.WeakKeyDictionary()
)
_INDEXES_LOCK = threading.Lock()


def _search_index(skills: AgentSkills) -> SkillSearchIndex:
    """The index of the model-invocable skills ``skills`` serves now."""
    revision = skills.revision  # (taken first: a refresh meanwhile rebuilds it next time)
    with _INDEXES_LOCK:
        cached = _INDEXES.get(skills)
    if cached is not None and cached[0] == revision:
        return cached[1]
    index = SkillSearchIndex([info for info in skills.list_skills() if info.model_invocable])
    with _INDEXES_LOCK:
        _INDEXES[skills] = (revision, index)
    return index


def _search_line(description: str) -> str:
    return shorten_description(" ".join(description.split()), _SEARCH_DESCRIPTION_CHARS)


def _state_active(state: object) -> list[tuple[str, str]]:
    """The ``(name, real dir)`` pairs of a :meth:`SkillSession.to_state` dict."""
    bad = invalid_input("state must be a dict from SkillSession.to_state()", {"state": "invalid"})
    if not isinstance(state, Mapping) or state.get("version") != STATE_VERSION:
        raise bad
    entries = state.get("active")
    if not isinstance(entries, list | tuple):
        raise bad
    pairs: list[tuple[str, str]] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise bad
        name, real = entry.get("name"), entry.get("dir")
        if not isinstance(name, str) or not isinstance(real, str):
            raise bad
        pairs.append((name, real))
    return pairs


def _skill_content(
    name: str, body: str, skill_dir: Path, rels: Sequence[str], max_listed: int
) -> str:
    """Build the ``<skill_content>`` block of SPEC §14 (see :meth:`SkillSession.activate`)."""
    listed = [f"<file>{escape(rel)}</file>" for rel in rels[:max_listed]]
    if len(rels) > max_listed:
        listed.append(f'<truncated total="{len(rels)}"/>')
    lines = [
        f'<skill_content name="{escape(name, _ATTR)}">',
        body.rstrip(),
        "",
        f"Skill directory: {escape(os.fspath(skill_dir))}",
        "Relative paths in this skill resolve against the skill directory.",
        "",
        "<skill_resources>",
        *listed,
        "</skill_resources>",
        "</skill_content>",
    ]
    return "\n".join(lines)


def current_body(skills: AgentSkills, name: str) -> str:
    """Read a skill's manifest now and return its current body (SPEC §22.4): the facade's
    :meth:`AgentSkills.current_body`, as a function of this module.

    Raises:
        SkillError: As :meth:`AgentSkills.current_body`.
    """
    coerce_str(name, "skill name")
    return skills.current_body(name)
