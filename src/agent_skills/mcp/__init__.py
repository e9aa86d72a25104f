"""Serving skills over the Model Context Protocol (SPEC §17): the MCP wing's public names.

:class:`SkillServer` turns an :class:`~agent_skills.AgentSkills` into an MCP server (the Skills
extension, ``skill://`` resources, the ``activate_skill`` and ``read_skill_resource`` tools, one
prompt per user-invocable skill); :func:`run_stdio` and :func:`run_http` serve it. Run it with
``agent-skills serve`` or ``python -m agent_skills.mcp`` (the same command and options). Only this
wing imports the ``mcp`` SDK (the ``mcp`` extra); ``import agent_skills`` never loads it.

Each name loads its module when first asked for: importing this package needs no SDK, so
``python -m agent_skills.mcp`` reaches the command line (which says what to install) even without
the extra, and never runs its ``__main__`` twice. Without the SDK, taking a name of the server
(``from agent_skills.mcp import SkillServer``) raises ``ImportError``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Where each public name lives.
_HOMES = {
    "main": ".__main__",
    "MAX_SESSIONS": "._http",
    "SESSION_IDLE_TIMEOUT": "._http",
    "MAX_SKILL_BYTES": "._publish",
    "MAX_SKILL_FILES": "._publish",
    **dict.fromkeys(
        (
            "EXTENSION_ID",
            "MAX_TOOL_READ_BYTES",
            "PAGE_SIZE",
            "PROMPT_ARGUMENT",
            "RESOURCE_TEMPLATE",
            "SkillServer",
            "build_server",
            "run_http",
            "run_stdio",
        ),
        "._server",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
