"""The command line run without click: ``list --json`` with only ``--preset`` and ``--root``
(SPEC §16, §26).

Importing click and building its commands costs more than a short command's own work, so the
one command line scripts run most is read here when its meaning cannot differ from click's
reading of it: ``list``, then only ``--json`` (required), ``--preset CLIENT`` (one of
:data:`._open.PRESETS`), ``--root PATH`` (a readable path not starting with ``-``), each option
a separate argument, no shell completion asked for. Every other command line (help, another
option, an ``--opt=value`` form, a value click would refuse, a usage error) is left to click.
The command then runs as click runs it: the same options, discovery (:func:`._open.open_skills`),
output (:mod:`._listing`), failures, warnings and exit codes (:mod:`._app`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._config import DEFAULT_MAX_MANIFEST_BYTES
from .._presets import AUTO
from ._app import PROG, command_line, failure_exit_code, flush_warnings
from ._listing import emit_list_json, listed_skills
from ._open import PRESETS, open_skills, warnings_to_stderr

__all__ = ["list_json_options", "run_without_click"]

# The variable that asks click for shell completion (click's name for it: the program's name).
_COMPLETE_VAR = f"_{PROG}_COMPLETE".replace("-", "_").upper()


def list_json_options(args: list[str]) -> dict[str, Any] | None:
    """The root options of the command line ``args`` (without the program name), as click's
    ``list`` passes them, when ``args`` is a ``list --json`` this module runs; else ``None``.

    Returns:
        ``{"preset", "workspace", "roots", "max_depth", "max_manifest_bytes", "disabled",
        "only", "strict", "no_follow_symlinks", "index"}`` (``roots`` a tuple of paths), or
        ``None``: the command line is click's to read.
    """
    if not args or args[0] != "list" or os.environ.get(_COMPLETE_VAR):
        return None
    preset, roots, as_json = AUTO, [], False
    rest = iter(args[1:])
    for arg in rest:
        if arg == "--json":
            as_json = True
            continue
        if arg not in ("--preset", "--root"):
            return None
        value = next(rest, "")
        if not value or value.startswith("-"):
            return None
        if arg == "--preset":
            if value not in PRESETS:
                return None
            preset = value
        elif os.access(value, os.R_OK):  # click's path type refuses an unreadable path
            roots.append(Path(value))
        else:
            return None
    if not as_json:
        return None
    return {
        "preset": preset,
        "workspace": None,
        "roots": tuple(roots),
        "max_depth": 1,
        "max_manifest_bytes": DEFAULT_MAX_MANIFEST_BYTES,
        "disabled": (),
        "only": (),
        "strict": False,
        "no_follow_symlinks": False,
        "index": None,
    }


def run_without_click(args: list[str]) -> int | None:
    """Run ``args`` (without the program name) when :func:`list_json_options` reads it; return
    the exit code, or ``None`` when the command line is click's (nothing was done)."""
    options = list_json_options(args)
    if options is None:
        return None
    with command_line(args):
        try:
            skills = open_skills(options)
            with warnings_to_stderr():
                emit_list_json(listed_skills(skills))
            rv = 0
        except Exception as exc:
            rv = failure_exit_code(exc)
        flush_warnings()
    return rv
