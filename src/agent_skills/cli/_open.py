"""Discovery from the root options of a command (SPEC §2-§3, §16, §21.1-§21.3): the preset's
roots, the workspace, each ``--root``, the discovery options, the warnings that discovery and the
roots give. Imports no click: :mod:`._roots` declares the options, :mod:`._fast` reads the few it
accepts, and both open the skills here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._config import DEFAULT_MAX_MANIFEST_BYTES, SkillRoot, expand_home
from .._core import AgentSkills, create_agent_skills
from .._diagnostics import Diagnostic, DiagnosticKind, RootStatus, quiet_logger, set_diagnostic_sink
from .._errors import StartupError
from .._model import sort_key
from .._presets import CLIENTS, client_skill_roots, preset_workspace
from .._scan import find_manifest
from ._app import CliErrorCode, fail, for_a_person, warn

__all__ = [
    "PRESETS",
    "expand_user",
    "open_skills",
    "preset_roots",
    "root_hint",
    "warnings_to_stderr",
]

#: The values of ``--preset``: a client's layout, ``auto`` (all of them) or ``none`` (SPEC §21.1).
PRESETS = (*CLIENTS, "none")


def expand_user(path: Path) -> str:
    """A leading ``~`` expanded against the home directory (SPEC §21.3); other paths as given."""
    return expand_home(os.fspath(path), os.path.expanduser("~"))


def preset_roots(preset: str, workspace: str, cwd: str | None = None) -> list[SkillRoot]:
    """The roots of ``--preset`` (SPEC §21.1, §21.3); ``none`` has none. ``cwd`` (default: the
    current directory) ends the chains of directories below the workspace."""
    if preset == "none":
        return []
    return client_skill_roots(preset, workspace=workspace, cwd=cwd)


def root_hint(root: Path) -> str | None:
    """The hint for a root that is itself a skill directory (SPEC §21.3), else ``None``."""
    if find_manifest(root, follow_symlinks=True).name is not None:
        return "this is a skill; use its parent as the root"
    return None


def deeper_categories(skills: AgentSkills) -> list[str]:
    """The folders directly in the roots of ``skills`` (searched at depth 1) from which a
    search of depth 2 takes skills (SPEC §21.4: hidden, skipped and git-ignored folders are not
    searched), in the order of names; ``[]`` when ``skills`` already searches deeper. The same
    roots discovered again at depth 2, quietly and without the on-disk index: for the hint of
    ``report``."""
    if skills.config.max_depth != 1:
        return []
    deeper = AgentSkills(replace(skills.config, max_depth=2, index=None))
    found = {info.category.split("/", 1)[0] for info in deeper.list_skills() if info.category}
    return sorted(found, key=sort_key)


@contextmanager
def warnings_to_stderr(enabled: bool = True) -> Iterator[None]:
    """Send discovery warnings through :func:`._app.warn` while the command runs.

    A ``shadowed`` diagnostic (a higher-precedence copy overriding a lower one) is a warning
    (SPEC §21.8): under ``--json`` it is in the warnings of the one object on stderr, as every
    warning is. For a person it is the expected precedence rather than a problem of the command
    being run, so it is shown where it is the subject (the ``SHADOWS`` column of ``list``, the
    ``shadowed`` entries and ``diagnostics`` of ``report``), not repeated on stderr by every
    command.
    """
    # Without a handler, Python's last-resort handler would print each warning a second time.
    quiet_logger()

    def sink(diag: Diagnostic) -> None:
        if diag.kind is DiagnosticKind.SHADOWED and for_a_person():
            return
        warn(diag.kind.value, diag.message)

    set_diagnostic_sink(sink if enabled else None)
    try:
        yield
    finally:
        set_diagnostic_sink(None)


def open_skills(
    options: dict[str, Any],
    *,
    warnings: bool = True,
    at_workspace: bool = False,
    trust_store: Callable[[], Any] = lambda: None,
) -> AgentSkills:
    """Build :class:`AgentSkills` from the root options (SPEC §2-§3, §16).

    With ``at_workspace`` the preset's roots are those seen from the workspace itself, wherever
    inside it the command runs (the package commands: a lock means the same from any directory).
    ``trust_store`` gives the :class:`TrustStore` of ``--trust-store`` or ``None``; it is called
    once the roots are known.

    Raises:
        StartupError: Bad workspace, or no roots (``--preset none`` without ``--root``).
        SkillError: With ``--strict``, as discovery does.
    """
    given: Path | None = options["workspace"]
    workspace = preset_workspace(None if given is None else expand_user(given))
    roots: list[Any] = preset_roots(
        options["preset"], workspace, workspace if at_workspace else None
    )
    # SPEC §21.2: --root is taken against the current directory, as a shell user expects.
    explicit = [Path(os.path.abspath(expand_user(r))) for r in options["roots"]]
    roots.extend(explicit)
    if not roots:
        raise StartupError("no skill roots: use a preset or pass --root PATH")
    disabled = [
        os.path.abspath(expand_user(Path(d))) if os.sep in d or d.startswith("~") else d
        for d in options.get("disabled", ())
    ]
    with warnings_to_stderr(warnings):
        skills = create_agent_skills(
            roots,
            workspace=workspace,
            strict=options["strict"],
            follow_symlinks=not options["no_follow_symlinks"],
            index=options.get("index"),
            trust=trust_store(),
            max_depth=options.get("max_depth", 1),
            disabled=disabled,
            max_manifest_bytes=options.get("max_manifest_bytes", DEFAULT_MAX_MANIFEST_BYTES),
            only=list(options["only"]) if options.get("only") else None,
        )
    # The library is silent about missing roots (SPEC §4); a root typed on the command line that
    # is missing is most likely a typo, so say so (preset roots are often absent, and stay quiet).
    # With --strict it is a usage error (SPEC §21.3, §21.13).
    for note in skills.report().roots:
        if note.root not in explicit:
            continue
        if note.status != RootStatus.OK:
            if options["strict"] and note.status == RootStatus.MISSING:
                fail(CliErrorCode.USAGE_ERROR, f"--root {note.root}: {note.message}", 2)
            if warnings:
                warn(f"root_{note.status.value}", f"--root {note.root}: {note.message}")
        elif warnings and (hint := root_hint(note.root)) is not None:
            warn("root_is_skill", f"--root {note.root}: {hint}")
    return skills
