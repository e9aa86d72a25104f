"""The ``agent-skills`` command line (SPEC §16).

Commands: ``list``, ``show NAME``, ``resources NAME``, ``path NAME REL``, ``read NAME REL``,
``catalog``, ``report`` (:mod:`.discover`), ``where`` (:mod:`.where`), ``validate PATH...``
(:mod:`.validate`), ``serve`` (:mod:`.serve`), ``trust`` (:mod:`.trust`), ``grants`` and
``sandbox`` (:mod:`.grants`), ``pack``, ``lock``, ``verify``, ``add``, ``update`` and
``remove`` (:mod:`.packages`). Options come after the command. Each command's module is
imported only when it runs (:class:`~._group.SkillsGroup`).

Roots (every command but ``validate``): ``--preset CLIENT`` (one of ``client_skill_roots``'s
clients, SPEC §21.1; default ``auto``: every client's folders, user then project; ``none``: no
preset roots), ``--workspace DIR`` (default: the nearest directory above holding ``.git``, else
the current one, SPEC §21.2), then each ``--root PATH`` in ascending precedence (``~`` expands; a
relative ``--root`` is taken against the current directory), ``--max-depth N``, ``--disable NAME``,
``--only NAME``,
``--strict`` (also: a missing ``--root`` is exit 2) and ``--no-follow-symlinks``.

Exit codes: 0 ok (``validate``: no errors; warnings allowed); 1 a :class:`SkillError`, validation
errors, or an unexpected failure (``internal_error``); 2 usage errors and :class:`StartupError`;
130 interrupted by Ctrl-C (SIGINT), after ``aborted: interrupted`` on stderr.
Errors print ``code: message`` on stderr, never a traceback; under ``--json`` they are one object
``{"error": {"code", "message", "fields"}}`` on stderr (usage errors: ``usage_error``,
configuration: ``startup_error``; SPEC §21.11). Warnings have one format everywhere:
``warning: CODE: message`` lines on stderr. Under ``--json`` stderr holds at most one JSON object:
the warnings are collected as ``"warnings": [{"code", "message"}]``, in the error object on a
failure, else in ``{"warnings": [...]}`` printed at the end (nothing when there were none); they
never go into the output on stdout. Notes for a person (``note: ...``, such as no skills found)
go to stderr too, never under ``--json``. On a terminal these stderr lines wrap at its width on
word boundaries; into a pipe each stays one line. A ``shadowed`` copy is not a stderr line for
a person (``list`` and ``report`` show it); under ``--json`` it is among the warnings. Tables
keep every column at 60 terminal columns and more (SPEC §21.12, see :func:`._table.columns`).

This package is the only one that imports ``click`` and ``rich``. A command line that
:mod:`._fast` reads exactly as click would (``list --json`` with only ``--preset`` and ``--root``)
runs without importing click; every other one, help and errors included, is click's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._collector import freeze_for_exit, pause_for_program
from ._app import COMMANDS, PROG, CliErrorCode, echo_error, silence_stdout

if TYPE_CHECKING:
    from ._group import cli

__all__ = ["COMMANDS", "CliErrorCode", "cli", "main"]

#: The exit code of a command interrupted by Ctrl-C (SIGINT): 128 + the signal's number.
INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI (the ``agent-skills`` console script and ``python -m agent_skills``).

    Run as the program (``argv`` ``None``) the cyclic garbage collector stays paused to the end
    of a command, which then exits (``serve``, which runs on, resumes it), and what the process
    holds is frozen when the command ends (``_collector.freeze_for_exit``); called with ``argv`` the
    collector is left as it is.

    Args:
        argv: Arguments without the program name; ``None`` reads ``sys.argv[1:]``.

    Returns:
        The exit code: 0 ok; 1 a ``SkillError``, validation errors or ``internal_error``; 2 usage
        errors and ``StartupError``; 130 interrupted (SIGINT).
    """
    if argv is None:
        pause_for_program()
        try:
            return _run(sys.argv[1:])
        finally:
            freeze_for_exit()
    return _run(list(argv))


def __getattr__(name: str) -> Any:
    """``cli``, the click group, is built on first use (see :mod:`._group`)."""
    if name == "cli":
        from ._group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _run(args: list[str]) -> int:
    """Run the command line ``args`` (without the program name); return the exit code."""
    from ._fast import run_without_click

    try:
        rv = run_without_click(args)
    except KeyboardInterrupt:
        import click

        click.echo(file=sys.stderr)  # as click ends a command Ctrl-C stopped
        return _aborted(interrupted=True)
    if rv is not None:
        return rv
    return _run_click(args)


def _aborted(*, interrupted: bool) -> int:
    """Say the command was aborted; the exit code: 130 after Ctrl-C (SIGINT), else 1."""
    echo_error(CliErrorCode.ABORTED, "interrupted")
    # Ctrl-C (SIGINT) ends with 128 + 2, as a shell reports a process the signal ended.
    return INTERRUPTED if interrupted else 1


def _run_click(args: list[str]) -> int:
    """Run the command line ``args`` through click."""
    import click

    from ._group import cli

    try:
        rv = cli.main(args=args, prog_name=PROG, standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort as exc:
        return _aborted(interrupted=isinstance(exc.__cause__, KeyboardInterrupt))
    except BrokenPipeError:
        silence_stdout()
        return 1
    except Exception as exc:  # a failure outside any command (argument parsing)
        echo_error(CliErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        return 1
    return rv if isinstance(rv, int) else 0
