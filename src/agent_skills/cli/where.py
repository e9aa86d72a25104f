"""``agent-skills where``: the folders each client reads, what they hold, and the skills no client
sees (SPEC §29.3).

It answers "my client does not see the skill I installed": for every client preset, each folder
it reads (scope, whether it exists, the skills found there); then the ``skills`` folders directly
under a dot-folder of the home directory or the workspace that hold skills but that no known
client reads; then whether another installed distribution provides the import package
``agent_skills`` (PyPI's ``agent-skills`` is a different project). Where each client looks is
``_presets.CLIENT_LAYOUTS``'s; what a folder holds is discovery's (each folder read as a root of
its own, warnings kept quiet); this module only puts the answers side by side.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from .._config import Scope, SkillRoot
from .._core import create_agent_skills
from .._diagnostics import EntryStatus
from .._errors import StartupError
from .._model import sort_key
from .._presets import AUTO, CLIENT_LAYOUTS, client_skill_roots, preset_workspace
from ._app import CONTEXT, PROG, emit_json, safe, warn
from ._group import json_option
from ._roots import DIR_PATH, expand_user, warnings_to_stderr
from ._table import columns, fold, print_out, terminal_width

__all__ = ["DISTRIBUTION", "FolderState", "import_clash", "unread_folders", "where_command"]

#: This project's distribution, the one that should provide ``agent_skills``.
DISTRIBUTION = "clarvis-agent-skills"
#: The import package whose other providers are a clash.
IMPORT_NAME = "agent_skills"


@dataclass
class FolderState:
    """What one folder holds, as discovery reads it as a root of its own.

    Attributes:
        path: The folder.
        scope: ``user`` or ``workspace``.
        source: The folder's client label.
        exists: Whether it is a directory now.
        skills: The names of the skills found there, sorted as SPEC §8.
        invalid: How many skill folders there failed to load (``invalid`` in the report).
    """

    path: Path
    scope: str
    source: str
    exists: bool
    skills: list[str] = field(default_factory=list)
    invalid: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "scope": self.scope,
            "source": self.source,
            "exists": self.exists,
            "skills": list(self.skills),
            "invalid": self.invalid,
        }


class _Reader:
    """Reads each folder once (several clients share folders)."""

    def __init__(self, workspace: str, home: Path) -> None:
        self.workspace = workspace
        self.home = home
        self.seen: dict[Path, FolderState] = {}

    def state(self, root: SkillRoot) -> FolderState:
        done = self.seen.get(root.path)
        if done is None:
            exists = os.path.isdir(root.path)
            names: list[str] = []
            invalid = 0
            if exists:
                skills = create_agent_skills([root], workspace=self.workspace, home=self.home)
                names = [info.name for info in skills.list_skills()]
                entries = skills.report().entries
                invalid = sum(entry.status is EntryStatus.INVALID for entry in entries)
            done = FolderState(root.path, root.scope, root.source, exists, names, invalid)
            self.seen[root.path] = done
        return FolderState(
            root.path, root.scope, root.source, done.exists, list(done.skills), done.invalid
        )


def unread_folders(home: Path, workspace: Path, known: set[Path]) -> list[tuple[Path, Scope]]:
    """The ``skills`` folders directly under a dot-folder of ``home`` and of ``workspace`` that
    no layout in ``known`` names (SPEC §29.3): ``(path, scope)``, home first, each sorted.
    Unreadable folders are passed over."""
    out: list[tuple[Path, Scope]] = []
    bases: tuple[tuple[Path, Scope], ...] = ((home, "user"), (workspace, "workspace"))
    for base, scope in bases:
        try:
            with os.scandir(base) as it:
                names = sorted((e.name for e in it if e.name.startswith(".")), key=sort_key)
        except (OSError, ValueError):
            continue
        for name in names:
            path = base / name / "skills"
            if path in known or any(path == p for p, _ in out):
                continue
            if os.path.isdir(path):
                out.append((path, scope))
    return out


def _normal(name: str) -> str:
    """A distribution name in its normalised form (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def import_clash() -> list[dict[str, str]]:
    """The installed distributions other than this one that provide the import package
    ``agent_skills`` (SPEC §29.3), as ``{"distribution", "version"}`` sorted by name: from
    ``importlib.metadata.packages_distributions()``."""
    from importlib import metadata

    try:
        providers = metadata.packages_distributions().get(IMPORT_NAME, [])
    except Exception:  # a broken installation's metadata: nothing can be said
        return []
    others = sorted({p for p in providers if _normal(p) != DISTRIBUTION}, key=_normal)
    out = []
    for name in others:
        try:
            version = metadata.version(name)
        except Exception:
            version = "?"
        out.append({"distribution": name, "version": version})
    return out


def _short(path: Path, home: Path, workspace: Path) -> str:
    """``path`` written from ``<ws>`` or ``~`` when it lies there (the workspace first: it may
    be inside the home directory)."""
    for base, label in ((workspace, "<ws>"), (home, "~")):
        if path == base:
            return label
        if path.is_relative_to(base):
            return f"{label}/{path.relative_to(base).as_posix()}"
    return str(path)


def _found(state: FolderState) -> str:
    if not state.exists:
        return "missing"
    count = len(state.skills)
    found = f"{count} skill{'s' if count != 1 else ''}: {', '.join(state.skills)}"
    if not count:
        found = "no skills"
    if state.invalid:  # what report says of them (SPEC §7)
        found += f" ({state.invalid} invalid: `{PROG} report` says why)"
    return found


@click.command(
    "where",
    context_settings=CONTEXT,
    short_help="Show each client's skill folders, and skills no client sees.",
)
@click.option(
    "--workspace",
    type=DIR_PATH,
    default=None,
    help="Project directory for the clients' project folders "
    "[default: the nearest directory above holding .git, else the current one].",
)
@json_option
def where_command(workspace: Path | None, as_json: bool) -> None:
    """Show where each client looks for skills, and skills no client sees.

    For every client (the presets of --preset), each folder it reads, lowest precedence first:
    its scope, whether it exists and the skills found there. Then the `skills` folders under a
    dot-folder of the home directory or the workspace that hold skills but that no known client
    reads. Last, whether another installed package also provides the import name agent_skills.
    In the table, ~ is the home directory and <ws> the workspace.
    JSON: {home, workspace, clients: [{client, folders: [{path, scope, source, exists,
    skills}]}], unread: [{path, scope, source, exists, skills}], import_clash: [{distribution,
    version}]}.

    \b
    Examples:
      agent-skills where
      agent-skills where --workspace ~/src/app --json
    """
    home = Path(os.path.expanduser("~"))
    ws_text = preset_workspace(None if workspace is None else expand_user(workspace))
    ws = Path(ws_text)
    if not ws.is_dir():
        raise StartupError(f"Workspace does not exist: {ws}")
    reader = _Reader(ws_text, home)
    clients: list[tuple[str, list[FolderState]]] = []
    with warnings_to_stderr(False):  # the folders' own warnings belong to `report`
        for client in CLIENT_LAYOUTS:
            roots = client_skill_roots(client, workspace=ws_text, home=home)
            clients.append((client, [reader.state(root) for root in roots]))
        known = {root.path for root in client_skill_roots(AUTO, workspace=ws_text, home=home)}
        unread = [
            state
            for path, scope in unread_folders(home, ws, known)
            if (state := reader.state(SkillRoot(path, scope, path.parent.name.lstrip(".")))).skills
        ]
    clash = import_clash()
    if as_json:
        emit_json(
            {
                "home": str(home),
                "workspace": ws_text,
                "clients": [
                    {"client": c, "folders": [s.to_dict() for s in states]} for c, states in clients
                ],
                "unread": [s.to_dict() for s in unread],
                "import_clash": clash,
            }
        )
    else:
        _print(clients, unread, home, ws)
    for item in clash:
        warn(
            "import_clash",
            f"{item['distribution']} {item['version']} also provides the import package "
            f"{IMPORT_NAME} (a different project); `import {IMPORT_NAME}` may load it instead of "
            f"{DISTRIBUTION}: uninstall it (pip uninstall {item['distribution']})",
        )


def _print(
    clients: list[tuple[str, list[FolderState]]],
    unread: list[FolderState],
    home: Path,
    ws: Path,
) -> None:
    from rich.text import Text

    width = terminal_width()
    parts: list[Any] = [Text(safe(f"~ is {home}")), Text(safe(f"<ws> is {ws}")), Text("")]
    rows: list[list[str]] = []
    styles: list[str] = []
    for client, states in clients:
        for i, state in enumerate(states):
            found = _found(state)
            rows.append(
                [client if i == 0 else "", _short(state.path, home, ws), state.scope, found]
            )
            styles.append("bold" if i == 0 else "")
    parts.extend(
        columns(
            ["CLIENT", "FOLDER", "SCOPE", "SKILLS"],
            rows,
            width=width,
            styles=styles,
            movable=2,
            cut=False,
            hang=True,  # the names are the point: wrapped under the column, never cut
        )
    )
    parts.append(Text(""))
    if unread:
        parts.append(Text("Skills in folders no client reads (move or link them into one above):"))
        for state in unread:
            line = safe(f"{_short(state.path, home, ws)} ({state.scope}): {_found(state)}")
            pieces = [line] if width is None else fold(line, width - 4)
            parts.append(Text("  " + pieces[0]))
            parts.extend(Text("    " + piece) for piece in pieces[1:])
    else:
        parts.append(Text("No skills in folders that no client reads."))
    print_out(*parts)
