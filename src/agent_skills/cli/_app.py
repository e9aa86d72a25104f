"""The command line's protocol: failures as ``code: message`` (or one JSON object), warnings,
and JSON output (SPEC §16, §21.11, §26); click's group is :mod:`._group`.

Owns how the ``agent-skills`` command talks: the exit codes, the one format of errors and
warnings, when stderr holds one JSON object. It owns no command: those are the modules of this
package, loaded by import path when run (click's documented lazy subcommand loading). It
imports no click: a command line run without click (:mod:`._fast`) speaks the same way.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import StrEnum
from typing import Any, NoReturn

from .._errors import SkillError, StartupError
from .._terminal import json_safe, json_text, safe_text

__all__ = [
    "COMMANDS",
    "CONTEXT",
    "PROG",
    "CliErrorCode",
    "Fail",
    "command_line",
    "echo_error",
    "echo_stderr",
    "emit_json",
    "emit_json_text",
    "fail",
    "failure_exit_code",
    "flush_warnings",
    "is_terminal",
    "note",
    "safe",
    "silence_stdout",
    "warn",
]

PROG = "agent-skills"

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

#: Every command, by the import path of its click command.
COMMANDS = {
    "list": "agent_skills.cli.discover.list_command",
    "show": "agent_skills.cli.discover.show_command",
    "resources": "agent_skills.cli.discover.resources_command",
    "path": "agent_skills.cli.discover.path_command",
    "read": "agent_skills.cli.discover.read_command",
    "catalog": "agent_skills.cli.discover.catalog_command",
    "report": "agent_skills.cli.discover.report_command",
    "where": "agent_skills.cli.where.where_command",
    "validate": "agent_skills.cli.validate.validate_command",
    "serve": "agent_skills.cli.serve.serve_command",
    "trust": "agent_skills.cli.trust.trust_command",
    "grants": "agent_skills.cli.grants.grants_command",
    "sandbox": "agent_skills.cli.grants.sandbox_command",
    "pack": "agent_skills.cli.packages.pack_command",
    "lock": "agent_skills.cli.packages.lock_command",
    "verify": "agent_skills.cli.packages.verify_command",
    "add": "agent_skills.cli.packages.add_command",
    "update": "agent_skills.cli.packages.update_command",
    "remove": "agent_skills.cli.packages.remove_command",
}


class Fail(Exception):
    """A handled failure: print ``code: message`` and exit with ``exit_code``."""

    def __init__(self, code: str, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.exit_code = exit_code


class CliErrorCode(StrEnum):
    """Codes of CLI failures that are not a :class:`SkillError` (SPEC §16, §21.11)."""

    USAGE_ERROR = "usage_error"
    STARTUP_ERROR = "startup_error"
    INTERNAL_ERROR = "internal_error"
    ABORTED = "aborted"
    #: A command that asks before it acts ran without a terminal to ask on and without --yes.
    CONFIRMATION_REQUIRED = "confirmation_required"


def fail(code: str, message: str, exit_code: int = 1) -> NoReturn:
    """Stop the command: print ``code: message`` and exit with ``exit_code``."""
    raise Fail(code, message, exit_code)


# Whether the command line asked for --json: failures are then one JSON object (SPEC §21.11).
_JSON_ERRORS: contextvars.ContextVar[bool] = contextvars.ContextVar("json_errors", default=False)


# Under --json, the warnings of the command, printed with the one object on stderr.
_JSON_WARNINGS: contextvars.ContextVar[list[dict[str, str]] | None] = contextvars.ContextVar(
    "json_warnings", default=None
)


# The warnings already shown by this run of the command line: each is shown once, however often
# the skills are scanned again (``serve --watch`` refreshing, a command opening them twice).
_SHOWN: set[tuple[str, str]] = set()
_SHOWN_LOCK = threading.Lock()


def warn(code: str, message: str) -> None:
    """One warning: ``warning: CODE: message`` on stderr, or under ``--json`` kept for the one
    object stderr holds (see the module docstring). A warning already shown by this run of the
    command line is not shown again (once per process for the program)."""
    with _SHOWN_LOCK:
        if (code, message) in _SHOWN:
            return
        _SHOWN.add((code, message))
    collected = _JSON_WARNINGS.get()
    if collected is not None:
        collected.append({"code": code, "message": message})
        return
    echo_stderr(safe(f"warning: {code}: {message}"))


def for_a_person() -> bool:
    """Whether this command's output is for a person (no ``--json``): what only a person needs
    told, such as an ordinary precedence, is left out of the JSON protocol's object otherwise."""
    return _JSON_WARNINGS.get() is None


def note(message: str) -> None:
    """A note for a person (``note: message`` on stderr): what the output alone does not say,
    such as no skills found. Under ``--json`` nothing is printed: the output says it."""
    if _JSON_WARNINGS.get() is None:
        echo_stderr(safe(f"note: {message}"))


def is_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal (``False`` for a pipe, a file, a closed stream or none)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def _stderr_width() -> int:
    """The width of the terminal stderr is: ``COLUMNS`` when set, else the terminal's own
    (stdout may be a pipe while stderr is the terminal), else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


def echo_stderr(line: str) -> None:
    """Print one line of the command line's own (a warning, a note, an error) on stderr. On a
    terminal it is wrapped at the terminal's width on word boundaries, the lines after the
    first indented by two spaces (a word longer than the width, a path, is never split); into
    a pipe or a file it stays one line, for tools that read it."""
    if is_terminal(sys.stderr):
        import textwrap

        width = _stderr_width()
        if len(line) > width:
            line = textwrap.fill(
                line,
                width=width,
                subsequent_indent="  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
    import click  # loaded already by every command line but ``_fast``'s, which prints no line

    click.echo(line, err=True)


def wants_json(args: Sequence[str]) -> bool:
    """``--json`` among the options (before a ``--`` that ends them)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


@contextlib.contextmanager
def command_line(argv: Sequence[str]) -> Iterator[None]:
    """One run of the command line ``argv`` (without the program name): its streams write what
    their encoding cannot hold as escapes, each warning shows once, and with ``--json`` among
    the options failures and warnings are the one JSON object on stderr (SPEC §16, §21.11)."""
    restore = _safe_streams()
    with _SHOWN_LOCK:
        _SHOWN.clear()  # a new run of the command line (one per process for the program)
    token = _JSON_ERRORS.set(wants_json(argv))
    warnings_token = _JSON_WARNINGS.set([] if _JSON_ERRORS.get() else None)
    try:
        yield
    finally:
        _JSON_WARNINGS.reset(warnings_token)
        _JSON_ERRORS.reset(token)
        restore()


def flush_warnings() -> None:
    """Under ``--json``, print the warnings no failure printed: ``{"warnings": [...]}`` on
    stderr, nothing when there were none."""
    collected = _JSON_WARNINGS.get()
    if collected:
        _write_json({"warnings": collected}, err=True)


def failure_exit_code(exc: Exception) -> int:
    """Print the failure ``exc`` of a command (see :func:`echo_error`) and return its exit code:
    a :class:`Fail` its own, a ``SkillError`` 1, a ``StartupError`` 2, a closed stdout 1 (stdout
    silenced), anything else 1 as ``internal_error`` (SPEC §16, §21.11)."""
    if isinstance(exc, Fail):
        echo_error(exc.code, exc.message)
        return exc.exit_code
    if isinstance(exc, SkillError):
        echo_error(exc.code.value, exc.message, exc.fields)
        return 1
    if isinstance(exc, StartupError):
        echo_error(CliErrorCode.STARTUP_ERROR, str(exc))
        return 2
    if isinstance(exc, BrokenPipeError):
        silence_stdout()
        return 1
    echo_error(CliErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
    return 1


def echo_error(code: str, message: str, fields: Mapping[str, Any] | None = None) -> None:
    """Print a failure on stderr: ``code: message``, or under ``--json`` one object
    ``{"error": {"code", "message", "fields"}}`` (SPEC §16, §21.11)."""
    if _JSON_ERRORS.get():
        error = {"code": str(code), "message": message, "fields": dict(fields or {})}
        out: dict[str, Any] = {"error": error}
        collected = _JSON_WARNINGS.get()
        if collected:
            out["warnings"] = list(collected)
            collected.clear()
        _write_json(out, err=True)
        return
    echo_stderr(safe(f"{code}: {message}"))


def silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the interpreter's flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _safe_streams() -> Callable[[], None]:
    """Make stdout and stderr write what their encoding cannot hold as backslash escapes
    instead of failing (SPEC §20.8-§20.9, §30.5): the one setting behind every text the
    command line prints, whatever ``PYTHONIOENCODING`` says. Returns what puts them back."""
    changed: list[tuple[Any, str]] = []
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        if not hasattr(stream, "reconfigure") or errors in (None, "backslashreplace"):
            continue
        try:
            stream.flush()
            stream.reconfigure(errors="backslashreplace")
        except (OSError, ValueError):
            continue
        changed.append((stream, errors))

    def restore() -> None:
        for stream, errors in changed:
            with contextlib.suppress(OSError, ValueError):
                stream.reconfigure(errors=errors)

    return restore


def _write_utf8(text: str, *, err: bool = False) -> None:
    """Write ``text`` (which holds no lone surrogate) as UTF-8 bytes to stdout or stderr,
    whatever the stream's encoding; a stream with no bytes underneath (a host's ``StringIO``)
    takes the text itself (SPEC §30.5)."""
    stream = sys.stderr if err else sys.stdout
    binary = getattr(stream, "buffer", None)
    if binary is None:
        stream.write(text)
        stream.flush()
        return
    stream.flush()
    binary.write(text.encode("utf-8"))
    binary.flush()


def _write_json(value: Any, *, err: bool = False, indent: int | None = None) -> None:
    """Write one JSON document and a newline as UTF-8 (SPEC §30.5)."""
    _write_utf8(json_text(value, indent=indent) + "\n", err=err)


def emit_json(value: Any) -> None:
    """Write ``value`` as indented JSON on stdout: valid UTF-8 whatever the names and the
    encoding of the stream (an undecodable byte of a name written ``\\xNN``, SPEC §30.5)."""
    _write_json(value, indent=2)


def emit_json_text(text: str) -> None:
    """Write a JSON text built elsewhere (a catalog) on stdout as ``emit_json`` writes JSON."""
    _write_utf8(json_safe(text))


def safe(text: str) -> str:
    """A name, path or one-line message safe to print (SPEC §20.9): see ``safe_text``."""
    return safe_text(text, inline=True)
