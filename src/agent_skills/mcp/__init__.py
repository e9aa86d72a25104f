"""Serving skills over the Model Context Protocol (SPEC §17): the MCP wing's public names.

:class:`SkillServer` turns an :class:`~agent_skills.AgentSkills` into an MCP server (the Skills
extension, ``skill://`` resources, the ``activate_skill`` and ``read_skill_resource`` tools, one
prompt per user-invocable skill); :func:`run_stdio` and :func:`run_http` serve it. Run it with
``agent-skills serve`` or ``python -m agent_skills.mcp`` (the same command and options). Only this
wing imports the ``mcp`` SDK (the ``mcp`` extra); ``import agent_skills`` never loads it.
"""

from .__main__ import main
from ._http import MAX_SESSIONS, SESSION_IDLE_TIMEOUT
from ._publish import MAX_SKILL_BYTES, MAX_SKILL_FILES
from ._server import (
    EXTENSION_ID,
    MAX_TOOL_READ_BYTES,
    PAGE_SIZE,
    PROMPT_ARGUMENT,
    RESOURCE_TEMPLATE,
    SkillServer,
    build_server,
    run_http,
    run_stdio,
)

__all__ = [
    "EXTENSION_ID",
    "MAX_SESSIONS",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "MAX_TOOL_READ_BYTES",
    "PAGE_SIZE",
    "PROMPT_ARGUMENT",
    "RESOURCE_TEMPLATE",
    "SESSION_IDLE_TIMEOUT",
    "SkillServer",
    "build_server",
    "main",
    "run_http",
    "run_stdio",
]
