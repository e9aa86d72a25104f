"""The roots of a command: the root options, discovery from them, and the skill a command names
(SPEC §2-§3, §16, §21.1-§21.3, §23.4).

Owns how a command line becomes an :class:`~agent_skills.AgentSkills`: the preset, the
workspace, each ``--root``, the discovery options and the trust store. It discovers nothing
itself (the library does), and decides no rule of skills.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from .._config import DEFAULT_MAX_MANIFEST_BYTES, MAX_SEARCH_DEPTH
from .._core import AgentSkills
from .._model import SkillContent
from .._presets import AUTO, preset_workspace
from .._registry import unknown_skill
from ._open import PRESETS, expand_user, open_skills, preset_roots, root_hint, warnings_to_stderr

__all__ = [
    "DIR_PATH",
    "FILE_PATH",
    "PATH",
    "ROOT_OPTION_KEYS",
    "expand_user",
    "open_skills",
    "preset_roots",
    "require_skill",
    "root_hint",
    "root_options",
    "trust_store",
    "warnings_to_stderr",
    "with_package_skills",
    "with_skills",
]

_F = TypeVar("_F", bound=Callable[..., Any])

# One instance of each path type serves every option (each click.Path names itself on creation).
PATH = click.Path(path_type=Path)
FILE_PATH = click.Path(dir_okay=False, path_type=Path)
DIR_PATH = click.Path(file_okay=False, path_type=Path)


def root_options(fn: _F) -> _F:
    """Add the root options of SPEC §16 to a command."""
    options = [
        click.option(
            "--preset",
            type=click.Choice(PRESETS),
            default=AUTO,
            show_default=True,
            metavar="CLIENT",
            help="Whose skill folders to read: a client's layout (agents, claude, codex, gemini, "
            "copilot, cursor, opencode, goose, antigravity, windsurf, clarvis), auto = all of "
            "them (user folders, then project folders), none = only --root. See docs/clients.md.",
        ),
        click.option(
            "--workspace",
            type=DIR_PATH,
            default=None,
            help="Project directory for the preset's project folders "
            "[default: the nearest directory above holding .git, else the current one].",
        ),
        click.option(
            "--root",
            "roots",
            multiple=True,
            type=PATH,
            help="Extra skill root, after the preset's (repeatable; later wins; "
            "relative to the current directory; ~ expands).",
        ),
        click.option(
            "--max-depth",
            type=click.IntRange(1, MAX_SEARCH_DEPTH),
            default=1,
            show_default=True,
            help="Search each root this deep for skill folders (categories such as "
            "skills/ios/swiftui need 2).",
        ),
        click.option(
            "--max-manifest-bytes",
            type=click.IntRange(1, None),
            default=DEFAULT_MAX_MANIFEST_BYTES,
            show_default=True,
            help="Skip a SKILL.md larger than this many bytes (too_large).",
        ),
        click.option(
            "--disable",
            "disabled",
            multiple=True,
            metavar="NAME",
            help="Leave out this skill (a name or a skill directory; repeatable): reported as "
            "disabled, never listed or served; a lower copy of a disabled directory wins.",
        ),
        click.option(
            "--only",
            "only",
            multiple=True,
            metavar="NAME",
            help="Serve only this skill (repeatable); every other one is reported as disabled.",
        ),
        click.option(
            "--strict",
            is_flag=True,
            help="Fail on the first invalid skill, and on a --root that does not exist.",
        ),
        click.option(
            "--no-follow-symlinks",
            is_flag=True,
            help="Ignore symlinked skill directories and files.",
        ),
        _index_option,
    ]
    for option in reversed(options):
        fn = option(fn)
    return _trust_store_option(fn)


_TRUST_STORE = "agent_skills.trust_store"


def _trust_store_option(fn: _F) -> _F:
    """``--trust-store FILE`` (SPEC §23.4), kept in the click context for :func:`_open_skills`."""

    def remember(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
        if value is not None:
            ctx.meta[_TRUST_STORE] = value

    return click.option(
        "--trust-store",
        type=FILE_PATH,
        default=None,
        expose_value=False,
        callback=remember,
        help="Serve project (workspace) skills only as approved in this trust store "
        "(written by the trust command) [default: no store, everything trusted].",
    )(fn)


def trust_store() -> Any:
    """The :class:`TrustStore` of ``--trust-store``, or ``None``."""
    ctx = click.get_current_context(silent=True)
    path = ctx.meta.get(_TRUST_STORE) if ctx is not None else None
    if path is None:
        return None
    from .._trust import TrustStore

    return TrustStore(os.path.expanduser(path))


# SPEC §26: an on-disk index of parsed manifests, reused while they are unchanged.
_index_option = click.option(
    "--index",
    type=FILE_PATH,
    default=None,
    help="Index file of parsed manifests: reused while they are unchanged, rewritten after "
    "each scan (faster starts on large stores; results are the same).",
)


#: The parameters :func:`_root_options` adds, taken out of a command's arguments by the decorators.
ROOT_OPTION_KEYS = (
    "preset",
    "workspace",
    "roots",
    "max_depth",
    "max_manifest_bytes",
    "disabled",
    "only",
    "strict",
    "no_follow_symlinks",
    "index",
)


def with_skills(*, warnings: bool = True) -> Callable[[_F], _F]:
    """Decorator of a command: add the root options and pass the discovered skills as
    ``skills``."""

    def decorate(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(**kwargs: Any) -> Any:
            options = {k: kwargs.pop(k) for k in ROOT_OPTION_KEYS}
            skills = open_skills(options, warnings=warnings, trust_store=trust_store)
            with warnings_to_stderr(warnings):
                return fn(skills=skills, **kwargs)

        return root_options(wrapper)  # type: ignore[return-value]

    return decorate


def with_package_skills(*, warnings: bool = True) -> Callable[[_F], _F]:
    """Like :func:`_with_skills`, also passing the preset's ``workspace`` (SPEC §21.2): the
    directory whose ``skills.lock.json`` and ``.agents/skills`` the package commands use."""

    def decorate(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(**kwargs: Any) -> Any:
            options = {k: kwargs.pop(k) for k in ROOT_OPTION_KEYS}
            workspace = Path(preset_workspace(options["workspace"]))
            # Lock and verify see the same roots wherever they run inside the workspace.
            skills = open_skills(
                options, warnings=warnings, at_workspace=True, trust_store=trust_store
            )
            with warnings_to_stderr(warnings):
                return fn(skills=skills, workspace=workspace, **kwargs)

        return root_options(wrapper)  # type: ignore[return-value]

    return decorate


def require_skill(skills: AgentSkills, name: str) -> SkillContent:
    """The skill called ``name``; an unknown name is ``not_found`` with "did you mean" (§21.10)."""
    content = skills.load_skill(name)
    if content is None:
        raise unknown_skill(name, [info.name for info in skills.list_skills()])
    return content
