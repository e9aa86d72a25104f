"""agent-skills: discover, parse, merge and serve Agent Skills with confined resource access.

Public API (SPEC §1). Sub-modules: :mod:`agent_skills.catalog` (prompt formats),
:mod:`agent_skills.agent` (agent sessions), :mod:`agent_skills.validate` (author-facing checks),
:mod:`agent_skills.cli` and :mod:`agent_skills.mcp` (heavy imports stay there).
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from ._config import (
    DEFAULT_FOLLOW_SYMLINKS,
    DEFAULT_MAX_RESOURCES,
    DEFAULT_STRICT,
    SkillConfig,
    SkillRoot,
    expand_home,
    resolve_against,
    resolve_config,
    resolve_workspace_dir,
)
from ._confine import resolve_resource_path
from ._core import AgentSkills, create_agent_skills
from ._diagnostics import (
    Diagnostic,
    DiagnosticKind,
    DiscoveryReport,
    EntryStatus,
    ReportEntry,
    RootNote,
    set_warn_sink,
)
from ._discover import discover_skills, merge_skills
from ._errors import ErrorCode, SkillError, StartupError, fs_error
from ._manifest import ParsedSkill, parse_skill
from ._model import (
    Grant,
    GrantSet,
    ResolvedSkill,
    ShadowedSkill,
    SkillContent,
    SkillInfo,
    SkillResource,
)
from ._registry import SkillRegistry
from ._schema import normalize_tools
from ._version import __version__

if _TYPE_CHECKING:
    from ._frontmatter import SkillFrontmatter
    from ._presets import clarvis_skill_roots, client_skill_roots, standard_skill_roots
    from ._trust import TrustStore
    from ._watch import SkillChanges, SkillWatcher


def __getattr__(name: str) -> _Any:
    # The pydantic model loads on first access: neither the import nor discovery needs it (§26).
    if name == "SkillFrontmatter":
        from ._frontmatter import SkillFrontmatter

        return SkillFrontmatter
    if name == "TrustStore":  # loads with the first use of trust (SPEC §23.3)
        from ._trust import TrustStore

        return TrustStore
    if name in ("SkillChanges", "SkillWatcher"):  # SPEC §23.1; watchfiles loads on start
        from . import _watch

        return getattr(_watch, name)
    if name in ("clarvis_skill_roots", "client_skill_roots", "standard_skill_roots"):
        from . import _presets  # the client layouts load when asked for (SPEC §21.1)

        return getattr(_presets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "DEFAULT_FOLLOW_SYMLINKS",
    "DEFAULT_MAX_RESOURCES",
    "DEFAULT_STRICT",
    "AgentSkills",
    "Diagnostic",
    "DiagnosticKind",
    "DiscoveryReport",
    "EntryStatus",
    "ErrorCode",
    "Grant",
    "GrantSet",
    "ParsedSkill",
    "ReportEntry",
    "ResolvedSkill",
    "RootNote",
    "ShadowedSkill",
    "SkillChanges",
    "SkillConfig",
    "SkillContent",
    "SkillError",
    "SkillFrontmatter",
    "SkillInfo",
    "SkillRegistry",
    "SkillResource",
    "SkillRoot",
    "SkillWatcher",
    "StartupError",
    "TrustStore",
    "__version__",
    "clarvis_skill_roots",
    "client_skill_roots",
    "create_agent_skills",
    "discover_skills",
    "expand_home",
    "fs_error",
    "merge_skills",
    "normalize_tools",
    "parse_skill",
    "resolve_against",
    "resolve_config",
    "resolve_resource_path",
    "resolve_workspace_dir",
    "set_warn_sink",
    "standard_skill_roots",
]
