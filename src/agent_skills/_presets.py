"""Root presets for the common layouts (SPEC §3).

They never touch the filesystem and never raise for anything on disk; arguments of the wrong type
are a :class:`StartupError`, as in :func:`resolve_config`.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._config import SkillRoot, _fspath, resolve_workspace_dir
from ._errors import StartupError

__all__ = ["clarvis_skill_roots", "standard_skill_roots"]


def standard_skill_roots(
    client: str,
    *,
    workspace: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> list[SkillRoot]:
    """Return the four standard roots for ``client``, lowest precedence first (SPEC §3).

    Args:
        client: The client's folder name without the dot, e.g. ``"clarvis"`` for ``.clarvis``.
        workspace: Workspace directory (``None`` means ``cwd``); resolved, never checked.
        cwd: Defaults to the process working directory.
        home: Defaults to the OS home directory.

    Returns:
        ``[~/.agents/skills (user, agents), <ws>/.agents/skills (workspace, agents),
        ~/.<client>/skills (user, <client>), <ws>/.<client>/skills (workspace, <client>)]``.
        So any ``.<client>`` skill overrides any ``.agents`` skill of the same name, and within one
        source the workspace copy overrides the user copy.

    Raises:
        StartupError: ``client`` is not a non-empty ``str`` without ``/`` or NUL, or a path
            argument is not a ``str``/``os.PathLike[str]`` (programming errors; nothing on disk
            is checked).
    """
    if not isinstance(client, str) or not client or "/" in client or "\0" in client:
        raise StartupError(f"client must be a non-empty folder name, got {client!r}")
    home_p = Path(os.path.expanduser("~") if home is None else _fspath(home, "home"))
    ws = Path(resolve_workspace_dir(workspace, cwd, home_p))
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
    """Return ``standard_skill_roots("clarvis", ...)`` (SPEC §3).

    Raises:
        StartupError: As :func:`standard_skill_roots`.
    """
    return standard_skill_roots("clarvis", workspace=workspace, cwd=cwd, home=home)
