"""Root presets: the layouts of the major clients (SPEC §3, §21.1, §21.2, §21.13, §29.2).

A preset is path arithmetic. Its only filesystem access is looking for ``.git`` to find the
workspace when none is given (§21.2); it never raises for anything on disk. Arguments of the wrong
type, and an unknown client name, are a :class:`StartupError`, as in :func:`resolve_config`.

The table :data:`CLIENT_LAYOUTS` is the one source of every layout: the presets, ``auto`` and the
CLI's ``--preset`` choices are built from it, and ``docs/clients.md`` is checked against it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Literal, NamedTuple

from ._args import coerce_path
from ._config import SkillRoot, resolve_workspace_dir
from ._errors import StartupError

__all__ = [
    "AUTO",
    "CLIENTS",
    "CLIENT_LAYOUTS",
    "LayoutRoot",
    "clarvis_skill_roots",
    "client_skill_roots",
    "preset_workspace",
    "standard_skill_roots",
]


class LayoutRoot(NamedTuple):
    """One root of a client's layout (SPEC §21.1).

    Attributes:
        base: ``"home"`` (a user root, written ``~/...``), ``"workspace"`` (``<ws>/...``) or
            ``"chain"`` (``rel`` in every directory from ``<ws>`` down to ``cwd``, nearer wins).
        rel: The POSIX path below the base, e.g. ``".claude/skills"``.
        source: The folder's client, the root's ``source`` label.
    """

    base: Literal["home", "workspace", "chain"]
    rel: str
    source: str


def _home(rel: str, source: str) -> LayoutRoot:
    return LayoutRoot("home", rel, source)


def _ws(rel: str, source: str) -> LayoutRoot:
    return LayoutRoot("workspace", rel, source)


_AGENTS = ".agents/skills"
_CLAUDE = ".claude/skills"

#: Every client's roots, lowest precedence first, in the order of the SPEC §21.1 table (which
#: is also the order ``auto`` reads them in). Sources: each client's own documentation, listed
#: in ``docs/clients.md``.
CLIENT_LAYOUTS: Mapping[str, tuple[LayoutRoot, ...]] = MappingProxyType(
    {
        "agents": (_home(_AGENTS, "agents"), _ws(_AGENTS, "agents")),
        # Claude Code: personal skills override project skills.
        "claude": (_ws(_CLAUDE, "claude"), _home(_CLAUDE, "claude")),
        "codex": (
            _home(".codex/skills", "codex"),
            _home(_AGENTS, "agents"),
            _ws(".codex/skills", "codex"),
            LayoutRoot("chain", _AGENTS, "agents"),
        ),
        "gemini": (
            _home(".gemini/skills", "gemini"),
            _home(_AGENTS, "agents"),
            _ws(".gemini/skills", "gemini"),
            _ws(_AGENTS, "agents"),
        ),
        "copilot": (
            _home(".copilot/skills", "copilot"),
            _home(_AGENTS, "agents"),
            _ws(_AGENTS, "agents"),
            _ws(_CLAUDE, "claude"),
            _ws(".github/skills", "github"),
        ),
        "cursor": (
            _home(".cursor/skills", "cursor"),
            _ws(_AGENTS, "agents"),
            _ws(_CLAUDE, "claude"),
            _ws(".codex/skills", "codex"),
            _ws(".cursor/skills", "cursor"),
        ),
        "opencode": (
            _home(_AGENTS, "agents"),
            _home(_CLAUDE, "claude"),
            _home(".config/opencode/skills", "opencode"),
            _ws(_AGENTS, "agents"),
            _ws(_CLAUDE, "claude"),
            _ws(".opencode/skills", "opencode"),
        ),
        # goose, as SPEC §21.1 lists it (goose's own loader has since changed its order and added
        # ~/.agents/skills: docs/clients.md).
        "goose": (
            _home(_CLAUDE, "claude"),
            _home(".config/agents/skills", "agents"),
            _home(".config/goose/skills", "goose"),
            _ws(_CLAUDE, "claude"),
            _ws(_AGENTS, "agents"),
            _ws(".goose/skills", "goose"),
        ),
        # Antigravity (SPEC §29.2): global ~/.gemini/config/skills and Gemini CLI's
        # ~/.gemini/skills; the project's .agents/skills, and the older .agent/skills.
        "antigravity": (
            _home(".gemini/config/skills", "antigravity"),
            _home(".gemini/skills", "gemini"),
            _ws(_AGENTS, "agents"),
            _ws(".agent/skills", "antigravity"),
        ),
        # Windsurf (SPEC §29.2): global ~/.codeium/windsurf/skills, project .windsurf/skills.
        "windsurf": (
            _home(".codeium/windsurf/skills", "windsurf"),
            _ws(".windsurf/skills", "windsurf"),
        ),
        # SPEC §3, unchanged: any .clarvis skill overrides any .agents skill of the same name.
        "clarvis": (
            _home(_AGENTS, "agents"),
            _ws(_AGENTS, "agents"),
            _home(".clarvis/skills", "clarvis"),
            _ws(".clarvis/skills", "clarvis"),
        ),
    }
)

#: The preset made of every layout above: user roots, then project roots (SPEC §21.1, §21.13).
AUTO = "auto"
#: Every name :func:`client_skill_roots` accepts, in table order, ``auto`` last.
CLIENTS: tuple[str, ...] = (*CLIENT_LAYOUTS, AUTO)


def _git_root(cwd: str) -> str | None:
    """The nearest ancestor of ``cwd`` (itself included) holding a ``.git`` entry, or ``None``."""
    here = os.path.normpath(os.path.abspath(cwd))
    while True:
        try:
            if os.path.lexists(os.path.join(here, ".git")):
                return here
        except (OSError, ValueError):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def preset_workspace(
    workspace: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> str:
    """The workspace directory of a preset (SPEC §21.2).

    Args:
        workspace: When given, resolved as SPEC §2 says (against ``cwd``, ``~`` expanded) and
            used, unchecked.
        cwd: Defaults to the process working directory.
        home: Defaults to the OS home directory.

    Returns:
        The workspace as an absolute ``str``: ``workspace`` resolved, else the nearest ancestor of
        ``cwd`` (itself included) that holds a ``.git`` entry (a directory, or the file of a git
        worktree or submodule), else ``cwd``.

    Raises:
        StartupError: An argument is not ``None``, a ``str`` or an ``os.PathLike[str]``.
    """
    cwd_s = os.getcwd() if cwd is None else coerce_path(cwd, "cwd", startup=True)
    if workspace is not None:
        return resolve_workspace_dir(workspace, cwd_s, home)
    if home is not None:
        coerce_path(home, "home", startup=True)
    found = _git_root(cwd_s)
    return found if found is not None else os.path.abspath(cwd_s)


def _chain(ws: str, cwd: str, *, include_ws: bool) -> list[str]:
    """Directories from ``ws`` down to ``cwd``, ``cwd`` last; just ``ws`` when ``cwd`` is not
    below it. With ``include_ws`` false, ``ws`` itself is left out."""
    ws_n = os.path.normpath(ws)
    cwd_n = os.path.normpath(os.path.abspath(cwd))
    out = [ws_n] if include_ws else []
    rel = os.path.relpath(cwd_n, ws_n)
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return out
    here = ws_n
    for part in rel.split(os.sep):
        here = os.path.join(here, part)
        out.append(here)
    return out


def _unique(roots: Iterable[SkillRoot]) -> list[SkillRoot]:
    """Each distinct path once, at its first place, with that place's scope (SPEC §21.13)."""
    seen: set[Path] = set()
    out: list[SkillRoot] = []
    for root in roots:
        if root.path not in seen:
            seen.add(root.path)
            out.append(root)
    return out


def _expand(
    layout: Iterable[LayoutRoot], home: Path, ws: str, cwd: str, *, chain_ws: bool
) -> list[SkillRoot]:
    out: list[SkillRoot] = []
    for item in layout:
        if item.base == "home":
            out.append(SkillRoot(home / item.rel, "user", item.source))
        elif item.base == "workspace":
            out.append(SkillRoot(Path(ws) / item.rel, "workspace", item.source))
        else:
            for directory in _chain(ws, cwd, include_ws=chain_ws):
                out.append(SkillRoot(Path(directory) / item.rel, "workspace", item.source))
    return out


def client_skill_roots(
    client: str,
    *,
    workspace: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> list[SkillRoot]:
    """Return the roots a client reads, lowest precedence first (SPEC §21.1, §21.13, §29.2).

    Layouts (``~`` is ``home``, ``<ws>`` the workspace of :func:`preset_workspace`):

    - ``agents``: ``~/.agents/skills``, ``<ws>/.agents/skills``.
    - ``claude``: ``<ws>/.claude/skills``, ``~/.claude/skills`` (personal overrides project).
    - ``codex``: ``~/.codex/skills``, ``~/.agents/skills``, ``<ws>/.codex/skills``, then
      ``.agents/skills`` of every directory from ``<ws>`` down to ``cwd`` (nearer wins).
    - ``gemini``: ``~/.gemini/skills``, ``~/.agents/skills``, ``<ws>/.gemini/skills``,
      ``<ws>/.agents/skills``.
    - ``copilot``: ``~/.copilot/skills``, ``~/.agents/skills``, ``<ws>/.agents/skills``,
      ``<ws>/.claude/skills``, ``<ws>/.github/skills``.
    - ``cursor``: ``~/.cursor/skills``, ``<ws>/.agents/skills``, ``<ws>/.claude/skills``,
      ``<ws>/.codex/skills``, ``<ws>/.cursor/skills``.
    - ``opencode``: ``~/.agents/skills``, ``~/.claude/skills``, ``~/.config/opencode/skills``,
      ``<ws>/.agents/skills``, ``<ws>/.claude/skills``, ``<ws>/.opencode/skills``.
    - ``goose``: ``~/.claude/skills``, ``~/.config/agents/skills``, ``~/.config/goose/skills``,
      ``<ws>/.claude/skills``, ``<ws>/.agents/skills``, ``<ws>/.goose/skills``.
    - ``antigravity``: ``~/.gemini/config/skills``, ``~/.gemini/skills``, ``<ws>/.agents/skills``,
      ``<ws>/.agent/skills`` (SPEC §29.2).
    - ``windsurf``: ``~/.codeium/windsurf/skills``, ``<ws>/.windsurf/skills`` (SPEC §29.2).
    - ``clarvis``: exactly :func:`clarvis_skill_roots` (SPEC §3).
    - ``auto``: every distinct user root above, then every distinct workspace root above (project
      overrides user, as the Agent Skills client guide says), each group in order of first
      appearance reading the list top to bottom; then the ``codex`` chain's directories strictly
      below ``<ws>`` down to ``cwd``, ``cwd`` last.

    Scope is ``user`` for the ``~`` roots and ``workspace`` for the others (a workspace inside
    the home directory stays ``workspace``); ``source`` is the folder's client (``agents`` for
    ``.agents/skills`` and ``.config/agents/skills``, ``github`` for ``.github/skills``). Apart
    from ``clarvis``, each distinct path appears once, at its first place, with that place's scope
    (so a workspace equal to home gives no duplicates).

    Args:
        client: One of :data:`CLIENTS`.
        workspace: The workspace; ``None`` finds it at the nearest ``.git`` (SPEC §21.2).
        cwd: Defaults to the process working directory.
        home: Defaults to the OS home directory.

    Returns:
        A new list of :class:`SkillRoot`.

    Raises:
        StartupError: ``client`` is not a known name (the message lists them), or a path argument
            is not a ``str``/``os.PathLike[str]``.
    """
    if not isinstance(client, str) or client not in CLIENTS:
        raise StartupError(f"unknown client {client!r}: expected one of {', '.join(CLIENTS)}")
    if client == "clarvis":
        return clarvis_skill_roots(workspace=workspace, cwd=cwd, home=home)
    home_p = Path(
        os.path.expanduser("~") if home is None else coerce_path(home, "home", startup=True)
    )
    cwd_s = os.getcwd() if cwd is None else coerce_path(cwd, "cwd", startup=True)
    ws = preset_workspace(workspace, cwd_s, home_p)
    if client != AUTO:
        return _unique(_expand(CLIENT_LAYOUTS[client], home_p, ws, cwd_s, chain_ws=True))
    rows = [item for layout in CLIENT_LAYOUTS.values() for item in layout]
    user = [item for item in rows if item.base == "home"]
    project = [item for item in rows if item.base == "workspace"]
    chain = [item for item in rows if item.base == "chain"]
    roots = _expand([*user, *project], home_p, ws, cwd_s, chain_ws=False)
    roots += _expand(chain, home_p, ws, cwd_s, chain_ws=False)
    return _unique(roots)


def standard_skill_roots(
    client: str,
    *,
    workspace: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> list[SkillRoot]:
    """Return the four standard roots for ``client``, lowest precedence first (SPEC §3, §21.2).

    Args:
        client: The client's folder name without the dot, e.g. ``"clarvis"`` for ``.clarvis``.
        workspace: Workspace directory; ``None`` finds it at the nearest ``.git`` above ``cwd``
            (else ``cwd``, SPEC §21.2). Resolved, never checked.
        cwd: Defaults to the process working directory.
        home: Defaults to the OS home directory.

    Returns:
        ``[~/.agents/skills (user, agents), <ws>/.agents/skills (workspace, agents),
        ~/.<client>/skills (user, <client>), <ws>/.<client>/skills (workspace, <client>)]``.
        So any ``.<client>`` skill overrides any ``.agents`` skill of the same name, and within one
        source the workspace copy overrides the user copy. ``client="agents"`` gives the two
        ``.agents`` roots twice, each second copy reported as shadowed by its first: for those
        folders alone, use ``client_skill_roots("agents")``.

    Raises:
        StartupError: ``client`` is not a non-empty ``str`` without ``/`` or NUL, or a path
            argument is not a ``str``/``os.PathLike[str]`` (programming errors; nothing on disk
            is checked).
    """
    if not isinstance(client, str) or not client or "/" in client or "\0" in client:
        raise StartupError(f"client must be a non-empty folder name, got {client!r}")
    home_p = Path(
        os.path.expanduser("~") if home is None else coerce_path(home, "home", startup=True)
    )
    ws = Path(preset_workspace(workspace, cwd, home_p))
    return [
        SkillRoot(home_p / ".agents" / "skills", "user", "agents"),
        SkillRoot(ws / ".agents" / "skills", "workspace", "agents"),
        SkillRoot(home_p / f".{client}" / "skills", "user", client),
        SkillRoot(ws / f".{client}" / "skills", "workspace", client),
    ]


def clarvis_skill_roots(
    *,
    workspace: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> list[SkillRoot]:
    """Return ``standard_skill_roots("clarvis", ...)`` (SPEC §3, §21.2).

    Raises:
        StartupError: As :func:`standard_skill_roots`.
    """
    return standard_skill_roots("clarvis", workspace=workspace, cwd=cwd, home=home)
