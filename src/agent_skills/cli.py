"""The ``agent-skills`` command line (SPEC §16).

Commands: ``list``, ``show NAME``, ``resources NAME``, ``path NAME REL``, ``read NAME REL``,
``catalog``, ``report``, ``validate PATH...`` and ``serve``. Options come after the command.

Roots (every command but ``validate``): ``--preset CLIENT`` (one of ``client_skill_roots``'s
clients, SPEC §21.1; default ``auto``: every client's folders, user then project; ``none``: no
preset roots), ``--workspace DIR`` (default: the nearest directory above holding ``.git``, else
the current one, SPEC §21.2), then each ``--root PATH`` in ascending precedence (``~`` expands; a
relative ``--root`` is taken against the current directory), ``--max-depth N``, ``--disable NAME``,
``--strict`` (also: a missing ``--root`` is exit 2) and ``--no-follow-symlinks``.

Exit codes: 0 ok (``validate``: no errors; warnings allowed); 1 a :class:`SkillError`, validation
errors, or an unexpected failure (``internal_error``); 2 usage errors and :class:`StartupError`.
Errors print ``code: message`` on stderr, never a traceback; under ``--json`` they are one object
``{"error": {"code", "message", "fields"}}`` on stderr (usage errors: ``usage_error``,
configuration: ``startup_error``; SPEC §21.11). Warnings have one format everywhere:
``warning: CODE: message`` lines on stderr. Under ``--json`` stderr holds at most one JSON object:
the warnings are collected as ``"warnings": [{"code", "message"}]``, in the error object on a
failure, else in ``{"warnings": [...]}`` printed at the end (nothing when there were none); they
never go into the output on stdout. Tables keep every column at 60 terminal columns and
more (SPEC §21.12, see :func:`_columns`).

This is the only module that imports ``click`` and ``rich``.
"""

from __future__ import annotations

import contextvars
import functools
import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
else:
    # rich costs tens of milliseconds to import: it loads with the first human-readable output,
    # so `--json`, `read` and `serve` never import it (SPEC §26).

    def Console(*args: Any, **kwargs: Any) -> Any:
        from rich.console import Console

        return Console(*args, **kwargs)

    def Table(*args: Any, **kwargs: Any) -> Any:
        from rich.table import Table

        return Table(*args, **kwargs)

    def Text(*args: Any, **kwargs: Any) -> Any:
        from rich.text import Text

        return Text(*args, **kwargs)


from ._config import DEFAULT_MAX_MANIFEST_BYTES, MAX_DEPTH, SkillRoot, expand_home
from ._confine import contains
from ._core import AgentSkills, create_agent_skills
from ._diagnostics import Diagnostic, EntryStatus, RootStatus, quiet_logger, set_diagnostic_sink
from ._errors import ErrorCode, SkillError, StartupError
from ._model import SkillInfo, is_hidden
from ._presets import AUTO, CLIENTS, client_skill_roots, preset_workspace
from ._registry import unknown_skill
from ._scan import find_manifest, is_manifest_name
from ._terminal import json_text, safe_text

if TYPE_CHECKING:
    from .validate import Problem, Profile

__all__ = ["cli", "main"]

_F = TypeVar("_F", bound=Callable[..., Any])

PROG = "agent-skills"
#: What to run when ``serve`` lacks the MCP SDK: the extra's one dependency, installed into the
#: interpreter that runs this command (works however the package itself was installed).
MCP_HINT = f"{os.path.basename(sys.executable) or 'python'} -m pip install 'mcp>=2.3,<3'"

_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _Fail(Exception):
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


def _fail(code: str, message: str, exit_code: int = 1) -> NoReturn:
    raise _Fail(code, message, exit_code)


# Whether the command line asked for --json: failures are then one JSON object (SPEC §21.11).
_JSON_ERRORS: contextvars.ContextVar[bool] = contextvars.ContextVar("json_errors", default=False)
# Under --json, the warnings of the command, printed with the one object on stderr.
_JSON_WARNINGS: contextvars.ContextVar[list[dict[str, str]] | None] = contextvars.ContextVar(
    "json_warnings", default=None
)


def _warn(code: str, message: str) -> None:
    """One warning: ``warning: CODE: message`` on stderr, or under ``--json`` kept for the one
    object stderr holds (see the module docstring)."""
    collected = _JSON_WARNINGS.get()
    if collected is not None:
        collected.append({"code": code, "message": message})
        return
    click.echo(_safe(f"warning: {code}: {message}"), err=True)


def _wants_json(args: Sequence[str]) -> bool:
    """``--json`` among the options (before a ``--`` that ends them)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


class _Group(click.Group):
    """A group that turns every failure of a command into ``code: message`` (or, under
    ``--json``, one JSON object on stderr) and an exit code (SPEC §16, §21.11).

    Its commands are built on first use (see :func:`_command`): a command line builds only the
    command it runs, not the options of every other one (SPEC §26).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands: dict[str, Callable[[], click.Command]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        build = self.lazy_commands.pop(cmd_name, None)
        if build is not None:
            self.add_command(build(), cmd_name)
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in self.commands and args[0] not in self.lazy_commands:
            for name in list(self.lazy_commands):  # "did you mean" looks among every command
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        token = _JSON_ERRORS.set(_wants_json(argv))
        warnings_token = _JSON_WARNINGS.set([] if _JSON_ERRORS.get() else None)
        try:
            try:
                rv = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
            except click.ClickException as exc:
                if _JSON_ERRORS.get():
                    code = CliErrorCode.USAGE_ERROR if exc.exit_code == 2 else "error"
                    _echo_error(code, exc.format_message())
                elif standalone_mode:
                    exc.show()
                else:
                    raise
                rv = exc.exit_code
            except click.Abort:
                if not standalone_mode:
                    raise
                _echo_error(CliErrorCode.ABORTED, "interrupted")
                rv = 1
            collected = _JSON_WARNINGS.get()
            if collected:  # no failure printed them: they are the one object on stderr
                click.echo(json_text({"warnings": collected}, indent=None), err=True)
        finally:
            _JSON_WARNINGS.reset(warnings_token)
            _JSON_ERRORS.reset(token)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except _Fail as exc:
            _echo_error(exc.code, exc.message)
            ctx.exit(exc.exit_code)
        except SkillError as exc:
            _echo_error(exc.code.value, exc.message, exc.fields)
            ctx.exit(1)
        except StartupError as exc:
            _echo_error(CliErrorCode.STARTUP_ERROR, str(exc))
            ctx.exit(2)
        except BrokenPipeError:
            _silence_stdout()
            ctx.exit(1)
        except Exception as exc:
            _echo_error(CliErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
            ctx.exit(1)


def _echo_error(code: str, message: str, fields: Mapping[str, Any] | None = None) -> None:
    """Print a failure on stderr: ``code: message``, or under ``--json`` one object
    ``{"error": {"code", "message", "fields"}}`` (SPEC §16, §21.11)."""
    if _JSON_ERRORS.get():
        error = {"code": str(code), "message": message, "fields": dict(fields or {})}
        out: dict[str, Any] = {"error": error}
        collected = _JSON_WARNINGS.get()
        if collected:
            out["warnings"] = list(collected)
            collected.clear()
        click.echo(json_text(out, indent=None), err=True)
        return
    click.echo(_safe(f"{code}: {message}"), err=True)


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the interpreter's flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _console() -> Console:
    """A console on the current stdout; no wrapping or highlighting when not a terminal."""
    out = sys.stdout
    tty = out.isatty()
    return Console(
        file=out,
        highlight=False,
        soft_wrap=not tty,
        width=None if tty else 400,
    )


def _print(*renderables: Any) -> None:
    """Print rich renderables to stdout without the trailing padding of table cells."""
    from rich.text import Text as RichText

    console = _console()
    with console.capture() as capture:
        for renderable in renderables:
            # Lines laid out by _columns are never wrapped or cropped by rich (SPEC §21.12).
            console.print(renderable, soft_wrap=isinstance(renderable, RichText) or None)
    lines = capture.get().split("\n")
    click.echo("\n".join(line.rstrip() for line in lines), nl=False)


def _emit_json(value: Any) -> None:
    click.echo(json_text(value))


# ---------------------------------------------------------------------------------------------
# Commands built on first use, and shared options

_DEFERRED = "__cli_decorators__"


def _deferred(decorator: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Callable[[_F], _F]:
    """Stack ``decorator`` on a command function; it is applied when :func:`_command` builds the
    command, in the order written (the lowest first, as Python applies decorators)."""

    def record(fn: _F) -> _F:
        fn.__dict__.setdefault(_DEFERRED, []).append(decorator)
        return fn

    return record


def _option(*decls: str, **attrs: Any) -> Callable[[_F], _F]:
    """``click.option``, applied when the command is built."""
    return _deferred(click.option(*decls, **attrs))


def _argument(*decls: str, **attrs: Any) -> Callable[[_F], _F]:
    """``click.argument``, applied when the command is built."""
    return _deferred(click.argument(*decls, **attrs))


def _command(name: str) -> Callable[[_F], _F]:
    """``cli.command(name)``, built with its stacked options on first use (SPEC §26)."""

    def register(fn: _F) -> _F:
        decorators = fn.__dict__.pop(_DEFERRED, [])

        def build() -> click.Command:
            command: Callable[..., Any] = fn
            for decorator in decorators:
                command = decorator(command)
            return click.command(name)(command)

        cli.lazy_commands[name] = build
        return fn

    return register


# One instance of each path type serves every option (each click.Path names itself on creation).
_PATH = click.Path(path_type=Path)
_FILE_PATH = click.Path(dir_okay=False, path_type=Path)
_DIR_PATH = click.Path(file_okay=False, path_type=Path)


def _root_options(fn: _F) -> _F:
    """Add the root options of SPEC §16 to a command."""
    options = [
        click.option(
            "--preset",
            type=click.Choice([*CLIENTS, "none"]),
            default=AUTO,
            show_default=True,
            help="Whose skill folders to read: a client's layout (agents, claude, codex, gemini, "
            "copilot, cursor, opencode, goose, clarvis), auto = all of them (user folders, then "
            "project folders), none = only --root. See docs/clients.md.",
        ),
        click.option(
            "--workspace",
            type=_DIR_PATH,
            default=None,
            help="Project directory for the preset's project folders "
            "[default: the nearest directory above holding .git, else the current one].",
        ),
        click.option(
            "--root",
            "roots",
            multiple=True,
            type=_PATH,
            help="Extra skill root, after the preset's (repeatable; later wins; "
            "relative to the current directory; ~ expands).",
        ),
        click.option(
            "--max-depth",
            type=click.IntRange(1, MAX_DEPTH),
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
        type=_FILE_PATH,
        default=None,
        expose_value=False,
        callback=remember,
        help="Serve project (workspace) skills only as approved in this trust store "
        "(see `agent-skills trust`) [default: no store, everything trusted].",
    )(fn)


def _trust_store() -> Any:
    """The :class:`TrustStore` of ``--trust-store``, or ``None``."""
    ctx = click.get_current_context(silent=True)
    path = ctx.meta.get(_TRUST_STORE) if ctx is not None else None
    if path is None:
        return None
    from ._trust import TrustStore

    return TrustStore(os.path.expanduser(path))


# SPEC §26: an on-disk index of parsed manifests, reused while they are unchanged.
_index_option = click.option(
    "--index",
    type=_FILE_PATH,
    default=None,
    help="Index file of parsed manifests: reused while they are unchanged, rewritten after "
    "each scan (faster starts on large stores; results are the same).",
)


_json_option = _option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")


def _expand_user(path: Path) -> str:
    """A leading ``~`` expanded against the home directory (SPEC §21.3); other paths as given."""
    return expand_home(os.fspath(path), os.path.expanduser("~"))


def _preset_roots(preset: str, workspace: str, cwd: str | None = None) -> list[SkillRoot]:
    """The roots of ``--preset`` (SPEC §21.1, §21.3); ``none`` has none. ``cwd`` (default: the
    current directory) ends the chains of directories below the workspace."""
    if preset == "none":
        return []
    return client_skill_roots(preset, workspace=workspace, cwd=cwd)


def _root_hint(root: Path) -> str | None:
    """The hint for a root that is itself a skill directory (SPEC §21.3), else ``None``."""
    if find_manifest(root, follow_symlinks=True).name is not None:
        return "this is a skill; use its parent as the root"
    return None


@contextmanager
def _warnings_to_stderr(enabled: bool = True) -> Iterator[None]:
    """Send discovery warnings through :func:`_warn` while the command runs."""
    # Without a handler, Python's last-resort handler would print each warning a second time.
    quiet_logger()

    def sink(diag: Diagnostic) -> None:
        _warn(diag.kind.value, diag.message)

    set_diagnostic_sink(sink if enabled else None)
    try:
        yield
    finally:
        set_diagnostic_sink(None)


def _open_skills(
    options: dict[str, Any], *, warnings: bool = True, at_workspace: bool = False
) -> AgentSkills:
    """Build :class:`AgentSkills` from the root options (SPEC §2-§3, §16).

    With ``at_workspace`` the preset's roots are those seen from the workspace itself, wherever
    inside it the command runs (the package commands: a lock means the same from any directory).

    Raises:
        StartupError: Bad workspace, or no roots (``--preset none`` without ``--root``).
        SkillError: With ``--strict``, as discovery does.
    """
    given: Path | None = options["workspace"]
    workspace = preset_workspace(None if given is None else _expand_user(given))
    roots: list[Any] = _preset_roots(
        options["preset"], workspace, workspace if at_workspace else None
    )
    # SPEC §21.2: --root is taken against the current directory, as a shell user expects.
    explicit = [Path(os.path.abspath(_expand_user(r))) for r in options["roots"]]
    roots.extend(explicit)
    if not roots:
        raise StartupError("no skill roots: use a preset or pass --root PATH")
    disabled = [
        os.path.abspath(_expand_user(Path(d))) if os.sep in d or d.startswith("~") else d
        for d in options.get("disabled", ())
    ]
    with _warnings_to_stderr(warnings):
        skills = create_agent_skills(
            roots,
            workspace=workspace,
            strict=options["strict"],
            follow_symlinks=not options["no_follow_symlinks"],
            index=options.get("index"),
            trust=_trust_store(),
            max_depth=options.get("max_depth", 1),
            disabled=disabled,
            max_manifest_bytes=options.get("max_manifest_bytes", DEFAULT_MAX_MANIFEST_BYTES),
        )
    # The library is silent about missing roots (SPEC §4); a root typed on the command line that
    # is missing is most likely a typo, so say so (preset roots are often absent, and stay quiet).
    # With --strict it is a usage error (SPEC §21.3, §21.13).
    for note in skills.report().roots:
        if note.root not in explicit:
            continue
        if note.status != RootStatus.OK:
            if options["strict"] and note.status == RootStatus.MISSING:
                _fail(CliErrorCode.USAGE_ERROR, f"--root {note.root}: {note.message}", 2)
            if warnings:
                _warn(f"root_{note.status.value}", f"--root {note.root}: {note.message}")
        elif warnings and (hint := _root_hint(note.root)) is not None:
            _warn("root_is_skill", f"--root {note.root}: {hint}")
    return skills


#: The parameters :func:`_root_options` adds, taken out of a command's arguments by the decorators.
_ROOT_OPTION_KEYS = (
    "preset",
    "workspace",
    "roots",
    "max_depth",
    "max_manifest_bytes",
    "disabled",
    "strict",
    "no_follow_symlinks",
    "index",
)


def _with_skills(*, warnings: bool = True) -> Callable[[_F], _F]:
    """Decorator: add root options and pass the discovered skills as ``skills``."""

    def decorate(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(**kwargs: Any) -> Any:
            options = {k: kwargs.pop(k) for k in _ROOT_OPTION_KEYS}
            skills = _open_skills(options, warnings=warnings)
            with _warnings_to_stderr(warnings):
                return fn(skills=skills, **kwargs)

        return _root_options(wrapper)  # type: ignore[return-value]

    return _deferred(decorate)


def _require(skills: AgentSkills, name: str) -> Any:
    """The skill called ``name``; an unknown name is ``not_found`` with "did you mean" (§21.10)."""
    content = skills.load_skill(name)
    if content is None:
        raise unknown_skill(name, [info.name for info in skills.list_skills()])
    return content


def _text(value: object) -> Text:
    return Text(_safe("" if value is None else str(value)))


# ---------------------------------------------------------------------------------------------
# Commands


@click.group(cls=_Group, context_settings=_CONTEXT)
@click.version_option(package_name="clarvis-agent-skills", prog_name=PROG)
def cli() -> None:
    """Discover, inspect, validate and serve Agent Skills (SKILL.md folders).

    Options come after the command. Every command but `validate` reads the skill folders of a
    preset (default: auto, every client's: Claude Code, Codex, Gemini CLI, Copilot, Cursor,
    opencode, goose and .agents) plus any --root.

    \b
    Examples:
      agent-skills list
      agent-skills list --preset none --root ./skills --json
      agent-skills show pdf-processing
      agent-skills report
      agent-skills validate skills/
      agent-skills serve --http --port 8000

    Exit codes: 0 ok; 1 a skill error or validation errors; 2 usage or configuration errors.
    Warnings print `warning: CODE: message` on stderr. Under --json, stderr is at most one JSON
    object: {"error": {code, message, fields}, "warnings": [{code, message}]} on a failure, else
    {"warnings": [...]} when there were warnings.
    """


@_command("list")
@_json_option
@_with_skills()
def list_command(skills: AgentSkills, as_json: bool) -> None:
    """List the active skills, sorted by name.

    A skill that overrides copies in lower-precedence roots shows how many it shadows (see
    `report` for the whole story).

    \b
    Examples:
      agent-skills list
      agent-skills list --preset agents --workspace ~/project
      agent-skills list --preset none --root ./skills --root ./more-skills --json
    """
    infos = skills.list_skills()
    if as_json:
        _emit_json([info.to_dict() for info in infos])
        return
    if not infos:
        count = len(skills.config.roots)
        click.echo(
            f"No skills found in {count} root{'s' if count != 1 else ''} (see `{PROG} report`)."
        )
        return
    rows = []
    for info in infos:
        who = [
            w for w, on in (("user", info.user_invocable), ("model", info.model_invocable)) if on
        ]
        rows.append(
            [
                info.name,
                info.scope,
                info.source or "-",
                ", ".join(who) or "none",
                str(len(info.shadowed) or ""),
                " ".join(info.description.split()),
            ]
        )
    headers = ["NAME", "SCOPE", "SOURCE", "INVOCATION", "SHADOWS", "DESCRIPTION"]
    _print(*_columns(headers, rows, width=_terminal_width(), movable=3))


@_command("show")
@_argument("name")
@_json_option
@_with_skills()
def show_command(skills: AgentSkills, name: str, as_json: bool) -> None:
    """Show one skill: its facts, its resources and its body.

    \b
    Examples:
      agent-skills show release-notes
      agent-skills show release-notes --json
    """
    content = _require(skills, name)
    if as_json:
        _emit_json(content.to_dict())
        return
    facts = Table(box=None, show_header=False, pad_edge=False)
    facts.add_column(style="bold")
    facts.add_column(overflow="fold")
    tools = content.allowed_tools
    rows: list[tuple[str, object]] = [
        ("name", content.name),
        ("description", " ".join(content.description.split())),
        ("scope", f"{content.scope} ({content.source or '-'})"),
        ("root", content.root),
        ("dir", content.dir),
        ("path", content.path),
        ("category", content.category or "-"),
        ("allowed-tools", " ".join(tools) if tools is not None else "-"),
        ("user-invocable", "yes" if content.user_invocable else "no"),
        ("model-invocable", "yes" if content.model_invocable else "no"),
    ]
    rows.extend(("shadows", s.dir) for s in content.shadowed)
    for label, value in rows:
        facts.add_row(_text(label), _text(value))
    count = len(content.resources)
    more = " (truncated)" if content.resources_truncated else ""
    lines = [f"\nresources: {count}{more}", *(f"  {_safe(res.rel)}" for res in content.resources)]
    _print(facts, Text("\n".join(lines)), Text("\n" + safe_text(content.body)))


@_command("resources")
@_argument("name")
@_json_option
@_with_skills()
def resources_command(skills: AgentSkills, name: str, as_json: bool) -> None:
    """List a skill's files (scripts, references, assets, examples, other).

    JSON: {name, dir, resources: [{kind, rel, path, size}], resources_truncated}.

    \b
    Examples:
      agent-skills resources csv-profiler
      agent-skills resources csv-profiler --json
    """
    content = _require(skills, name)
    if as_json:
        _emit_json(
            {
                "name": content.name,
                "dir": str(content.dir),
                "resources": [r.to_dict() for r in content.resources],
                "resources_truncated": content.resources_truncated,
            }
        )
        return
    if not content.resources:
        click.echo(_safe(f"{content.name} has no resources."))
        return
    table = Table(box=None, pad_edge=False)
    table.add_column("KIND")
    table.add_column("SIZE", justify="right")
    table.add_column("PATH", overflow="fold")
    for res in content.resources:
        table.add_row(_text(res.kind), _text(res.size), _text(res.rel))
    _print(table)
    if content.resources_truncated:
        click.echo(f"(listing truncated at {len(content.resources)} files)", err=True)


@_command("path")
@_argument("name")
@_argument("rel")
@_json_option
@_with_skills()
def path_command(skills: AgentSkills, name: str, rel: str, as_json: bool) -> None:
    """Print the confined absolute path of a skill's file.

    REL is relative to the skill directory; paths that lead outside the skill fail with
    path_escape.

    \b
    Examples:
      agent-skills path release-notes scripts/collect_commits.py
      agent-skills path release-notes SKILL.md --json
    """
    path = skills.resource_path(name, rel)
    if as_json:
        _emit_json({"name": name, "rel": rel, "path": str(path)})
    else:
        click.echo(_safe(str(path)))


@_command("read")
@_argument("name")
@_argument("rel")
@_option(
    "--max-bytes",
    type=click.IntRange(min=0),
    default=None,
    help="Fail with too_large when the file is bigger than this many bytes.",
)
@_with_skills()
def read_command(skills: AgentSkills, name: str, rel: str, max_bytes: int | None) -> None:
    """Write a skill file's bytes to stdout, read race-free inside the skill.

    \b
    Examples:
      agent-skills read api-review references/checklist.md
      agent-skills read csv-profiler scripts/profile_csv.py > profile_csv.py
    """
    data = skills.read_resource(name, rel, max_bytes=max_bytes)
    stream = sys.stdout.buffer
    stream.write(data)
    stream.flush()


@_command("catalog")
@_option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "xml", "json"]),
    default="markdown",
    show_default=True,
    help="markdown list, Agent Skills <available_skills> XML, or a JSON array.",
)
@_option(
    "--all",
    "include_all",
    is_flag=True,
    help="Include skills with disable-model-invocation (left out by default).",
)
@_option(
    "--max-chars",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Fit the catalog in N characters (descriptions shortened, then skills omitted and "
    "named in a closing note); what was left out is reported on stderr.",
)
@_option("--json", "as_json", is_flag=True, help="The same as --format json.")
@_with_skills()
def catalog_command(
    skills: AgentSkills, fmt: str, include_all: bool, max_chars: int | None, as_json: bool
) -> None:
    """Print the skill catalog for a system prompt (model-invocable skills).

    \b
    Examples:
      agent-skills catalog
      agent-skills catalog --format xml
      agent-skills catalog --json --all
      agent-skills catalog --max-chars 8000
    """
    if as_json:
        fmt = "json"  # SPEC §21.11: --json is a synonym of --format json
    from . import catalog as _catalog  # only this command renders catalogs (SPEC §26)

    infos = [i for i in skills.list_skills() if include_all or i.model_invocable]
    if max_chars is not None and infos:
        _print_fitted_catalog(infos, fmt, max_chars)
        return
    if fmt == "markdown":
        text = _catalog.render_skill_catalog(infos)
    elif fmt == "xml":
        text = _catalog.render_available_skills_xml(infos)
    else:
        text = _catalog.render_catalog_json(infos) + "\n"
    if not infos:
        click.echo(f"note: no skills to list (see `{PROG} report`)", err=True)
    click.echo(text, nl=False)


_OMITTED_SHOWN = 20  # names of omitted skills in the catalog --max-chars note


def _print_fitted_catalog(infos: list[SkillInfo], fmt: str, max_chars: int) -> None:
    """``catalog --max-chars``: the fitted text on stdout, the report on stderr (SPEC §22.1)."""
    from .catalog import fit_catalog

    fit = fit_catalog(infos, max_chars=max_chars, format=fmt)  # type: ignore[arg-type]
    text = fit.text + ("\n" if fmt == "json" and fit.text else "")
    click.echo(text, nl=False)
    note = (
        f"note: {len(fit.included)} of {len(infos)} skills listed in {len(fit.text)} of "
        f"{max_chars} characters"
    )
    if fit.shortened:
        note += f"; {len(fit.shortened)} descriptions shortened"
    if fit.omitted:
        shown = ", ".join(fit.omitted[:_OMITTED_SHOWN])
        rest = len(fit.omitted) - _OMITTED_SHOWN
        note += f"; omitted: {shown}" + (f" … and {rest} more" if rest > 0 else "")
    click.echo(note, err=True)


@_command("report")
@_json_option
@_with_skills(warnings=False)
def report_command(skills: AgentSkills, as_json: bool) -> None:
    """Explain discovery: every candidate directory of every root and what became of it.

    Statuses: loaded; shadowed (by a later root: which one); duplicate (same name earlier in the
    same root); invalid (why); skipped (why); disabled (--disable); untrusted. Then every root
    searched with its scope, source and state (and a hint when a root is itself a skill), the
    known skill folders not searched when nothing was found, and the diagnostics.
    JSON: {roots: [{root, status, message, scope, source, hint}], entries, diagnostics,
    not_searched}.

    \b
    Examples:
      agent-skills report
      agent-skills report --preset none --root ./skills --json
    """
    report = skills.report()
    if as_json:
        data = report.to_dict()
        for item, row in zip(data["roots"], _root_rows(skills), strict=True):
            item.update(scope=row[1], source=row[2] if row[2] != "-" else "", hint=row[4] or None)
            if item["status"] != RootStatus.OK:
                item["hint"] = None
        data["not_searched"] = _unsearched_layouts(skills) if not skills.list_skills() else []
        _emit_json(data)
        return
    _print_report(skills)


_STATUS_STYLES = {
    EntryStatus.LOADED: "green",
    EntryStatus.SHADOWED: "yellow",
    EntryStatus.DUPLICATE: "yellow",
    EntryStatus.INVALID: "red",
    EntryStatus.SKIPPED: "dim",
    EntryStatus.DISABLED: "dim",
    EntryStatus.UNTRUSTED: "yellow",
}


def _print_report(skills: AgentSkills) -> None:
    """The discovery report as tables (SPEC §7.4, §21.3, §21.12): every candidate, the roots
    searched (with the root-is-a-skill hint), the known layouts not searched when nothing was
    found, the diagnostics and the counts."""
    report = skills.report()
    width = _terminal_width()
    short = _home_short if width is not None else str
    parts: list[Any] = []
    if report.entries:
        rows = []
        styles = []
        for e in report.entries:
            detail = e.reason
            if e.shadowed_by is not None:
                detail = f"shadowed by {e.shadowed_by}"
                if e.reason == "same skill (alias)":
                    detail += " (same skill, alias)"
            rows.append([e.status.value, e.name or "-", short(str(e.path)), short(detail)])
            styles.append(_STATUS_STYLES.get(e.status, ""))
        parts.extend(
            _columns(
                ["STATUS", "NAME", "PATH", "DETAIL"],
                rows,
                width=width,
                styles=styles,
                cut=False,
                movable=3,
            )
        )
    else:
        parts.append(Text("No candidate skill directories."))
    parts.append(Text(""))
    parts.extend(
        _columns(
            ["ROOT", "SCOPE", "SOURCE", "STATE", "NOTE"],
            [[short(r[0]), *r[1:]] for r in _root_rows(skills)],
            width=width,
            cut=False,
            movable=1,
        )
    )
    if not skills.list_skills():
        unsearched = _unsearched_layouts(skills)
        if unsearched:
            parts.append(Text("\nNo skill was found. Skill folders on this machine not searched:"))
            parts.extend(Text(_safe(f"  {line}")) for line in unsearched)
    if report.diagnostics:
        parts.append(Text(""))
        for d in report.diagnostics:
            line = _safe(f"{d.severity}: {d.kind.value}: {d.message}")
            # In a terminal, folded at its width (SPEC §21.12): paths in it stay whole.
            parts.extend(Text(part) for part in ([line] if width is None else _fold(line, width)))
    counts = {
        s.value: len(report.by_status(s))
        for s in (
            EntryStatus.LOADED,
            EntryStatus.SHADOWED,
            EntryStatus.DUPLICATE,
            EntryStatus.INVALID,
            EntryStatus.SKIPPED,
        )
    }
    for extra in (EntryStatus.DISABLED, EntryStatus.UNTRUSTED):
        if report.by_status(extra):
            counts[extra.value] = len(report.by_status(extra))
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    parts.append(Text(f"\n{summary}"))
    _print(*parts)


def _root_rows(skills: AgentSkills) -> list[list[str]]:
    """One row per root searched: path, scope, source, state and note (with the hint)."""
    rows = []
    for root, note in zip(skills.config.roots, skills.report().roots, strict=True):
        message = note.message
        if note.status == RootStatus.OK:
            message = _root_hint(note.root) or ""
        rows.append([str(note.root), root.scope, root.source or "-", note.status.value, message])
    return rows


def _unsearched_layouts(skills: AgentSkills) -> list[str]:
    """Known skill folders (every layout of SPEC §21.1) that exist here but were not searched,
    each with the presets that read it."""
    from ._presets import CLIENT_LAYOUTS

    home = Path(os.path.expanduser("~"))
    workspace = skills.config.workspace_dir
    searched = {root.path for root in skills.config.roots}
    out = []
    for root in client_skill_roots(AUTO, workspace=os.fspath(workspace), home=home):
        if root.path in searched or not root.path.is_dir():
            continue
        clients = [
            client
            for client, layout in CLIENT_LAYOUTS.items()
            if any(
                (home if item.base == "home" else workspace) / item.rel == root.path
                for item in layout
            )
        ]
        out.append(f"{root.path} ({root.scope}; --preset {' or '.join(clients) or AUTO})")
    return out


def _home_short(text: str) -> str:
    """``text`` with the home directory written ``~`` (for paths shown in a terminal)."""
    home = os.path.expanduser("~").rstrip(os.sep)
    if not home:
        return text
    if text == home:
        return "~"
    return text.replace(home + os.sep, "~" + os.sep)


def _terminal_width() -> int | None:
    """The terminal's width in columns, or ``None`` when stdout is not a terminal."""
    if not sys.stdout.isatty():
        return None
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


#: Below this many columns a flexible cell (a description, a note) goes on its own line.
_MIN_FLEX = 24
_GAP = "  "


def _columns(
    headers: list[str],
    rows: list[list[str]],
    *,
    width: int | None,
    styles: list[str] | None = None,
    cut: bool = True,
    movable: int | None = None,
) -> list[Text]:
    """Lay out a table whose last column is flexible (SPEC §21.12).

    Every other column is as wide as its widest cell and never cut, so names and paths stay
    whole at any width. The last column takes what is left of ``width``. When fewer than
    :data:`_MIN_FLEX` columns are left, it goes on a second line under its row, indented by
    four; when even the other columns do not fit, those from index ``movable`` on move to that
    second line too (aligned there), so every column still shows; when the columns before
    ``movable`` do not fit either (a 64-character name), every column but the first moves. When
    the moved columns do not fit on one line, each goes on a line of its own, folded at the
    width; a first cell wider than the terminal is folded too: no line is wider than ``width``
    and no name or path loses a character. With ``cut`` the flexible text
    is shortened with an ellipsis to fit (descriptions); without, it is shown whole, wrapped at
    the terminal's width (notes that hold paths). With ``width=None`` (not a terminal) nothing is
    cut or moved. Cells are shown through ``_safe`` (control characters escaped); ``styles``
    colours the first cell of each row.
    """
    from rich.cells import cell_len, set_cell_size

    table = [[_safe(c) for c in row] for row in [headers, *rows]]
    fixed = len(headers) - 1
    widths = [max(cell_len(r[i]) for r in table) for i in range(fixed)]
    gap = len(_GAP)
    keep = fixed
    if width is not None:
        first = movable if movable is not None else fixed
        while keep > max(first, 1) and sum(widths[:keep]) + gap * (keep - 1) > width:
            keep -= 1
        while keep > 1 and sum(widths[:keep]) + gap * (keep - 1) > width:
            keep -= 1  # the preferred columns alone are too wide: all but the first move
    room = None if width is None else width - sum(widths[:keep]) - gap * keep
    stacked = keep < fixed or (room is not None and room < _MIN_FLEX)
    moved_width = sum(widths[keep:fixed]) + gap * (fixed - keep)
    if width is not None and stacked and keep < fixed and 4 + moved_width + 8 > width:
        return _records(table, keep, width, styles, cut)
    out: list[Text] = []
    for n, row in enumerate(table):
        head = n == 0
        if width is not None and keep == 1 and cell_len(row[0]) > width:
            style = "bold" if head else (styles[n - 1] if styles else "")
            pieces = _fold(row[0], width)
            out.extend(Text(piece, style=style) for piece in pieces[:-1])
            row = [pieces[-1], *row[1:]]
        line = Text(no_wrap=True, overflow="ignore")
        for i in range(keep):
            style = "bold" if head else (styles[n - 1] if styles and i == 0 else "")
            line.append(set_cell_size(row[i], widths[i]), style=style)
            line.append(_GAP)
        flex = row[fixed]
        inline = not stacked and (cut or room is None or cell_len(flex) <= room)
        if inline:
            if room is not None:
                flex = _ellipsis(flex, room)
            line.append(flex, style="bold" if head else "")
            out.append(line)
            continue
        line.rstrip()
        out.append(line)
        assert width is not None
        second = Text("    ", style="bold" if head else "")
        for i in range(keep, fixed):
            second.append(set_cell_size(row[i], widths[i]) + _GAP)
        avail = max(width - 4 - (moved_width if stacked else 0), 8)
        if keep == fixed and not head and not flex:
            continue
        if cut or head:
            second.append(_ellipsis(flex, avail))
            second.rstrip()
            out.append(second)
        else:
            parts = _fold(flex, avail)
            second.append(parts[0])
            out.append(second)
            pad = " " * (4 + (moved_width if stacked else 0))
            out.extend(Text(pad + part) for part in parts[1:])
    return out


def _records(
    table: list[list[str]], keep: int, width: int, styles: list[str] | None, cut: bool
) -> list[Text]:
    """The layout of :func:`_columns` when even the moved columns overflow one line: the first
    ``keep`` cells on the row's line, then each other non-empty cell on a line of its own,
    indented by four and folded at ``width`` (a flexible cell with ``cut`` is shortened)."""
    from rich.cells import cell_len, set_cell_size

    widths = [max(cell_len(r[i]) for r in table) for i in range(keep)]
    last = len(table[0]) - 1
    out: list[Text] = []
    for n, row in enumerate(table):
        head = n == 0
        style = "bold" if head else (styles[n - 1] if styles else "")
        first = _GAP.join(set_cell_size(row[i], widths[i]) for i in range(keep)).rstrip()
        pieces = _fold(first, width)
        out.append(Text(pieces[0], style=style))
        out.extend(Text(piece, style=style) for piece in pieces[1:])
        for i in range(keep, last + 1):
            cell = row[i]
            if not cell:
                continue
            if cut and i == last and not head:
                out.append(Text("    " + _ellipsis(cell, width - 4)))
                continue
            out.extend(
                Text("    " + piece, style="bold" if head else "")
                for piece in _fold(cell, width - 4)
            )
    return out


def _fold(text: str, room: int) -> list[str]:
    """``text`` in lines of at most ``room`` cells, broken at spaces where it can be."""
    from rich.cells import cell_len

    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if cell_len(candidate) <= room:
            current = candidate
            continue
        if current:
            lines.append(current)
        while cell_len(word) > room:  # a path longer than the line: folded, nothing dropped
            cut = 0
            while cell_len(word[: cut + 1]) <= room:
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if current or not lines:
        lines.append(current)
    return lines


def _ellipsis(text: str, room: int) -> str:
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= room:
        return text
    return set_cell_size(text, max(room - 1, 0)) + "…"


#: How deep ``validate`` looks for skills in a directory that is not one (``skills/x``,
#: ``examples/skills/x``); the known client folders are looked at besides.
_VALIDATE_DEPTH = 3


def _project_skill_folders() -> list[str]:
    """The project folders of every client layout (``.agents/skills``, ``.claude/skills``, ...;
    SPEC §21.1), relative to a project directory."""
    from ._presets import CLIENT_LAYOUTS

    layouts = CLIENT_LAYOUTS.values()
    return sorted({item.rel for layout in layouts for item in layout if item.base != "home"})


def _skills_held(path: Path) -> list[Path]:
    """The skill directories a directory that is not a skill holds: below it down to
    :data:`_VALIDATE_DEPTH` (the nested-discovery rules of SPEC §21.4: hidden folders,
    ``node_modules`` and ``.gitignore``d paths are not searched), then in each known client
    folder it has (``.agents/skills``, ``.claude/skills``, ...)."""
    from ._scan import walk_root

    bases = [(path, _VALIDATE_DEPTH)]
    bases += [(path / rel, 1) for rel in _project_skill_folders() if (path / rel).is_dir()]
    found: list[Path] = []
    for base, depth in bases:
        scan = walk_root(SkillRoot(base), follow_symlinks=True, max_depth=depth)
        found.extend(c.dir for c in scan.candidates if c.manifest and not is_hidden(c.dir.name))
    return found


def _expand_validate_path(path: Path) -> list[Path]:
    """A skill dir, a manifest file (its directory), or a directory that holds skills (each of
    them, see :func:`_skills_held`); a directory holding none is returned as is."""
    from .validate import find_manifest

    if path.is_file() and is_manifest_name(path.name):
        return [path.parent]
    if not path.is_dir() or find_manifest(path) is not None:
        return [path]
    return _skills_held(path) or [path]


def _holds_nothing(path: Path) -> bool:
    from .validate import find_manifest

    return path.is_dir() and find_manifest(path) is None


def _nothing_held(path: Path) -> Problem:
    """The problem of a directory that is neither a skill nor holds one."""
    from .validate import Problem, ProblemCode, Severity

    folders = ", ".join(_project_skill_folders())
    return Problem(
        Severity.ERROR,
        ProblemCode.MANIFEST_MISSING,
        f"no skill found in {path}: it has no SKILL.md, and none below it (down to "
        f"{_VALIDATE_DEPTH} levels) nor in {folders}",
    )


def _profile_option(fn: _F) -> _F:
    from .validate import PROFILES  # the validator loads with its command only (SPEC §26)

    return click.option(
        "--profile",
        type=click.Choice(PROFILES),
        default="spec",
        show_default=True,
        help="spec: the specification; portable: also ASCII names for MCP hosts (warnings); "
        "anthropic: also the upload rules.",
    )(fn)


@_command("validate")
@_argument("paths", nargs=-1, required=True, type=_PATH)
@_json_option
@_option("--warnings-as-errors", is_flag=True, help="Exit 1 when any warning is found too.")
@_deferred(_profile_option)
def validate_command(
    paths: tuple[Path, ...], as_json: bool, warnings_as_errors: bool, profile: Profile
) -> None:
    """Check skills strictly against the Agent Skills specification.

    Each PATH is a skill directory, a SKILL.md file, or a directory that holds skills (a root,
    a project: the skills below it, down to 3 levels, and in its .agents/skills, .claude/skills
    and other client folders); a directory holding none is an error that says so.
    Output is one `path:line: severity code message` line per problem; --json gives
    [{path, problems: [{severity, code, message, field, line}]}]. Exits 1 when any error is
    found (warnings alone pass unless --warnings-as-errors).

    \b
    Examples:
      agent-skills validate skills/my-skill
      agent-skills validate skills/
      agent-skills validate skills/*/SKILL.md --json
      agent-skills validate skills/my-skill --profile portable
    """
    from .validate import Severity, validate_skill

    targets: list[Path] = []
    seen: set[str] = set()
    for path in paths:
        for target in _expand_validate_path(path):
            key = os.path.abspath(target)
            if key not in seen:
                seen.add(key)
                targets.append(target)
    results = [
        (
            target,
            [_nothing_held(target)]
            if _holds_nothing(target)
            else validate_skill(target, profile=profile),
        )
        for target in targets
    ]
    errors = sum(p.severity == Severity.ERROR for _, ps in results for p in ps)
    warnings = sum(p.severity == Severity.WARNING for _, ps in results for p in ps)
    if as_json:
        _emit_json([{"path": str(t), "problems": [p.to_dict() for p in ps]} for t, ps in results])
    else:
        for target, problems in results:
            for problem in problems:
                click.echo(_lint_line(target, problem))
        click.echo(
            f"{len(results)} skill(s) checked: {errors} error(s), {warnings} warning(s)",
            err=True,
        )
    if errors or (warnings_as_errors and warnings):
        raise click.exceptions.Exit(1)


def _lint_line(skill_dir: Path, problem: Problem) -> str:
    from .validate import find_manifest

    manifest = find_manifest(skill_dir) if skill_dir.is_dir() else None
    where = str(manifest if manifest is not None else skill_dir)
    if problem.line is not None:
        where = f"{where}:{problem.line}"
    return _safe(f"{where}: {problem.severity.value} {problem.code} {problem.message}")


@_command("serve")
@_option("--http", "use_http", is_flag=True, help="Serve streamable HTTP, not stdio.")
@_option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8000,
    show_default=True,
    help="HTTP port (with --http).",
)
@_option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind (with --http); 0.0.0.0 serves every interface.",
)
@_option(
    "--stateless",
    is_flag=True,
    help="With --http: no sessions, so replicas behind any load balancer need no affinity.",
)
@_option(
    "--watch",
    is_flag=True,
    help="Refresh when skills change and notify clients (needs the 'watch' extra).",
)
@_with_skills()
def serve_command(
    skills: AgentSkills, use_http: bool, port: int, host: str, stateless: bool, watch: bool
) -> None:
    """Serve the skills over MCP (stdio, or HTTP at http://HOST:PORT/mcp).

    Over HTTP, GET /healthz answers {"status": "ok", "skills": N}. Needs the optional MCP
    dependency: from a checkout, pip install '.[mcp]' (see the README for installing from git).

    \b
    Examples:
      agent-skills serve --watch
      agent-skills serve --http --port 8765 --root ./skills
      agent-skills serve --http --stateless --host 0.0.0.0 --watch --preset none --root /srv/skills
    """
    if (stateless or host != "127.0.0.1") and not use_http:
        _fail(CliErrorCode.USAGE_ERROR, "--stateless and --host apply to --http only", 2)
    try:
        # Imported with the collector still paused: the SDK's import makes several hundred
        # thousand long-lived objects, and the young-generation passes over them while it runs
        # cost a tenth of it or more here (SPEC §26, serve start-up).
        mcp_server = importlib.import_module("agent_skills.mcp")
    except ImportError as exc:
        _fail(
            "mcp_unavailable",
            f"the MCP server needs the 'mcp' package ({exc}); install it with: {MCP_HINT} "
            "(or, from a checkout: pip install '.[mcp]')",
        )
    finally:
        _resume_collector()  # a server runs on: its garbage is collected as usual
    if use_http:
        mcp_server.run_http(
            skills,
            host=host,
            port=port,
            stateless=stateless,
            watch=watch,
            ready=lambda url: click.echo(f"listening on {url}", err=True),
        )
    else:
        mcp_server.run_stdio(skills, watch=watch)


# ---------------------------------------------------------------------------------------------
# Trust (SPEC §23.3-§23.4)


_APPROVABLE = (EntryStatus.LOADED, EntryStatus.SHADOWED, EntryStatus.UNTRUSTED)


@_command("trust")
@_argument("paths", nargs=-1, type=_PATH)
@_option(
    "--store",
    "store_path",
    type=_FILE_PATH,
    default=None,
    help="The trust store file [default: the --trust-store value].",
)
@_option("--list", "list_only", is_flag=True, help="List the approvals in the store.")
@_option("--revoke", is_flag=True, help="Revoke the approvals under PATH instead.")
@_json_option
@_with_skills()
def trust_command(
    skills: AgentSkills,
    paths: tuple[Path, ...],
    store_path: Path | None,
    list_only: bool,
    revoke: bool,
    as_json: bool,
) -> None:
    """Approve the project skills under PATH as they are now (default: the whole workspace).

    An approval is bound to the skill's digest (its SKILL.md and every listed file): any later
    change takes the skill out again until it is approved anew. Hosts pass the store with
    --trust-store (or TrustStore in Python); user skills are always trusted.

    \b
    Examples:
      agent-skills trust --store ~/.config/agent-skills/trust.json
      agent-skills trust .agents/skills/pdf-tools --store trust.json
      agent-skills trust --list --store trust.json
      agent-skills trust --revoke .agents/skills/pdf-tools --store trust.json
    """
    from ._trust import TrustStore

    store = TrustStore(os.path.expanduser(store_path)) if store_path is not None else None
    store = store if store is not None else _trust_store()
    if store is None:
        _fail(
            CliErrorCode.USAGE_ERROR,
            "name the trust store with --store FILE",
            2,
        )
    if list_only:
        approvals = sorted(store.approved().items())
        if as_json:
            _emit_json([{"dir": str(d), "digest": digest} for d, digest in approvals])
        else:
            for directory, digest in approvals:
                click.echo(_safe(f"{digest}  {directory}"))
        return
    bases = [os.path.realpath(p) for p in paths] or [os.path.realpath(skills.config.workspace_dir)]
    done: list[dict[str, str]] = []
    failed: list[str] = []
    if revoke:
        for directory in sorted(store.approved()):
            if any(contains(base, os.fspath(directory)) for base in bases):
                store.revoke(directory)
                done.append({"dir": str(directory), "status": "revoked"})
    else:
        seen: set[str] = set()
        for entry in skills.report().entries:
            scope = next((r.scope for r in skills.config.roots if r.path == entry.root), None)
            if scope != "workspace" or entry.name is None:
                continue
            if entry.status not in (
                EntryStatus.LOADED,
                EntryStatus.SHADOWED,
                EntryStatus.UNTRUSTED,
            ):
                continue
            real = os.path.realpath(entry.path)
            if real in seen or not any(contains(base, real) for base in bases):
                continue
            seen.add(real)
            follow = skills.config.follow_symlinks
            try:
                digest = store.approve(
                    real, follow_symlinks=follow, max_resources=skills.config.max_resources
                )
            except SkillError as err:
                if err.fields.get("path") == str(store.path):
                    raise  # the store itself: nothing else can be approved either
                # One skill that cannot be hashed (a manifest linked from outside, an archived
                # skill, a file that vanished) does not stop the others.
                failed.append(f"{err.code.value}: cannot approve {entry.name}: {err.message}")
                continue
            done.append({"name": entry.name, "dir": real, "digest": digest, "status": "approved"})
    if as_json:
        _emit_json(done)
    else:
        for item in done:
            if item["status"] == "approved":
                click.echo(_safe(f"approved {item['name']} {item['digest']} {item['dir']}"))
            else:
                click.echo(_safe(f"revoked {item['dir']}"))
        if not done and not failed:
            what = "approval" if revoke else "project skill"
            click.echo(f"no {what} under {', '.join(bases)}", err=True)
    for message in failed:
        click.echo(_safe(message), err=True)
    if failed:
        raise click.exceptions.Exit(1)


# ---------------------------------------------------------------------------------------------
# Packages (SPEC §25): pack, lock, verify, add, update, remove


def _lock_path(skills: AgentSkills, workspace: Path, scope: str) -> Path:
    """The lock an install into ``scope`` keeps up to date (SPEC §25.4)."""
    if scope == "user":
        return skills.config.home / ".agents" / "skills.lock.json"
    return workspace / "skills.lock.json"


def _with_package_skills(*, warnings: bool = True) -> Callable[[_F], _F]:
    """Like :func:`_with_skills`, also passing the preset's ``workspace`` (SPEC §21.2): the
    directory whose ``skills.lock.json`` and ``.agents/skills`` the package commands use."""

    def decorate(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(**kwargs: Any) -> Any:
            from ._presets import preset_workspace

            options = {k: kwargs.pop(k) for k in _ROOT_OPTION_KEYS}
            workspace = Path(preset_workspace(options["workspace"]))
            # Lock and verify see the same roots wherever they run inside the workspace.
            skills = _open_skills(options, warnings=warnings, at_workspace=True)
            with _warnings_to_stderr(warnings):
                return fn(skills=skills, workspace=workspace, **kwargs)

        return _root_options(wrapper)  # type: ignore[return-value]

    return _deferred(decorate)


def _install_root(
    skills: AgentSkills, workspace: Path, scope: str, client: str | None
) -> SkillRoot:
    """The root ``add`` installs into: ``.agents/skills`` of the scope, or with a client, that
    client's highest-precedence root of the scope read literally from SPEC §21.1 (§25.5)."""
    lib_scope = "user" if scope == "user" else "workspace"
    config = skills.config
    if client is not None:
        from ._presets import client_skill_roots

        roots = client_skill_roots(client, workspace=workspace, home=config.home)
        chosen = [r for r in roots if r.scope == lib_scope]
        if not chosen:
            _fail(CliErrorCode.USAGE_ERROR, f"client {client!r} has no {scope} skill root", 2)
        return chosen[-1]
    base = config.home if lib_scope == "user" else workspace
    return SkillRoot(base / ".agents" / "skills", lib_scope, "agents")  # type: ignore[arg-type]


def _relock(
    skills: AgentSkills,
    workspace: Path,
    scope: str,
    root: SkillRoot,
    installed: Sequence[Any] = (),
    removed: Sequence[Path] = (),
) -> Path:
    """Update the lock of ``scope``: only the entries of the skills installed or removed change;
    every other entry is kept exactly as it was (drift stays visible to ``verify``, §25.4)."""
    from . import packages as _packages

    target = _lock_path(skills, workspace, scope)
    lock: dict[str, Any] = _packages.read_lock(target) if target.exists() else {}
    put = [
        _packages.lock_entry(
            item.dir, scope=root.scope, source=root.source, workspace=workspace, origin=item.origin
        )
        for item in installed
    ]
    merged = _packages.merge_lock(lock, put, removed, workspace=workspace)
    _packages.write_lock(target, merged)
    return target


def _warn_shadowed(skills: AgentSkills, installed: Sequence[Any]) -> None:
    """Warn when discovery serves another copy of an installed name instead of the new one."""
    served = {info.name: info for info in AgentSkills(skills.config).list_skills()}
    for item in installed:
        info = served.get(item.name)
        if info is None or os.path.realpath(info.dir) == os.path.realpath(item.dir):
            continue
        click.echo(
            _safe(
                f"warning: {item.name} installed in {item.dir} is shadowed by {info.dir} "
                f"({info.source}, higher precedence): that copy is the one served"
            ),
            err=True,
        )


@_command("pack")
@_argument("skill_dir", type=_PATH)
@_option(
    "-o",
    "--output",
    type=_FILE_PATH,
    default=None,
    help="File to write [default: <name>.skill in the current directory].",
)
def pack_command(skill_dir: Path, output: Path | None) -> None:
    """Pack a skill directory into a .skill archive with reproducible bytes.

    Validates first (errors refuse the pack). The zip holds one folder named after the skill,
    members sorted, dated 1980-01-01, executable bits kept; hidden files, __pycache__ and
    node_modules are left out, so packing the same tree twice gives identical bytes.

    \b
    Examples:
      agent-skills pack skills/pdf-tools
      agent-skills pack skills/pdf-tools -o dist/pdf-tools.skill
    """
    from . import packages as _packages

    path = _packages.pack_skill(skill_dir, output)
    click.echo(f"packed {skill_dir} into {path}")


@_command("lock")
@_option(
    "--output",
    type=_FILE_PATH,
    default=None,
    help="Lock file to write [default: <workspace>/skills.lock.json].",
)
@_option("--all", "all_roots", is_flag=True, help="Lock every root, user roots too (not for CI).")
@_with_package_skills()
def lock_command(
    skills: AgentSkills, workspace: Path, output: Path | None, all_roots: bool
) -> None:
    """Write skills.lock.json: every project skill's files with their sha256 digests.

    Only workspace-scope roots are locked unless --all, so a check in CI never depends on a
    developer's own user skills. Origins recorded by `add` are kept.

    \b
    Examples:
      agent-skills lock
      agent-skills lock --output ci/skills.lock.json
    """
    from . import packages as _packages

    target = output if output is not None else _lock_path(skills, workspace, "project")
    origins: dict[str, Any] = {}
    if target.exists():
        try:
            previous = _packages.read_lock(target)
        except SkillError:
            previous = {"skills": []}
        origins = {e["dir"]: e["origin"] for e in previous["skills"] if "origin" in e}
    scoped = _packages.scoped_skills(skills, None if all_roots else ["workspace"])
    lock = _packages.lock_skills(scoped, workspace=workspace, origins=origins)
    _packages.write_lock(target, lock)
    count = len(lock["skills"])
    click.echo(f"locked {count} skill{'s' if count != 1 else ''} in {target}")


@_command("verify")
@_option(
    "--lock",
    "lock_file",
    type=_FILE_PATH,
    default=None,
    help="Lock file to check [default: <workspace>/skills.lock.json].",
)
@_json_option
@_with_package_skills()
def verify_command(
    skills: AgentSkills, workspace: Path, lock_file: Path | None, as_json: bool
) -> None:
    """Check the installed skills against skills.lock.json; exit 1 on any drift.

    Prints every added, removed and changed skill, and for a changed skill every added, removed
    and changed file. Hidden and other unlisted files do not count. JSON: {lock, ok, drift:
    [{name, status, dir, files: [{status, path}], moved_from}]}.

    \b
    Examples:
      agent-skills verify
      agent-skills verify --lock ci/skills.lock.json --json
    """
    from . import packages as _packages

    target = lock_file if lock_file is not None else _lock_path(skills, workspace, "project")
    if not target.exists():
        # Nothing to compare with: a usage problem, not drift (exit 2).
        _fail(
            CliErrorCode.USAGE_ERROR,
            f"no lock file at {target}: write one with `{PROG} lock` first",
            2,
        )
    lock = _packages.read_lock(target)
    scoped = _packages.scoped_skills(skills, sorted(_packages.lock_scopes(lock)))
    current = _packages.lock_skills(scoped, workspace=workspace)
    drift = _packages.verify_lock(lock, current)
    if as_json:
        _emit_json({"lock": str(target), "ok": not drift, "drift": [d.to_dict() for d in drift]})
    else:
        for item in drift:
            where = f" (moved from {item.moved_from})" if item.moved_from else ""
            click.echo(_safe(f"{item.status} skill {item.name}: {item.dir}{where}"))
            for change in item.files:
                click.echo(_safe(f"  {change.status} {change.path}"))
        count = len(lock["skills"])
        if drift:
            click.echo(f"{target}: {len(drift)} skill(s) differ from the lock", err=True)
        else:
            verb = "skill matches" if count == 1 else "skills match"
            click.echo(f"{target}: {count} {verb} the lock")
    if drift:
        raise click.exceptions.Exit(1)


def _safe(text: str) -> str:
    """A name, path or one-line message safe to print (SPEC §20.9): see ``safe_text``."""
    return safe_text(text, inline=True)


def _add_install_options(fn: _F) -> _F:
    options = [
        click.option(
            "--to",
            "scope",
            type=click.Choice(["project", "user"]),
            default="project",
            show_default=True,
            help="project: <workspace>/.agents/skills; user: ~/.agents/skills.",
        ),
        click.option(
            "--client",
            default=None,
            help="Install into this client's highest-precedence root of that scope.",
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


_install_options = _deferred(_add_install_options)


def _report_installed(installed: Sequence[Any], verb: str, lock: Path) -> None:
    for item in installed:
        for code, message in item.warnings:
            _warn(code, message)
        action = "replaced" if item.replaced and verb == "installed" else verb
        click.echo(_safe(f"{action} {item.name} in {item.dir}"))
    click.echo(_safe(f"lock: {lock}"))


@_command("add")
@_argument("source")
@_option("--skill", "names", multiple=True, help="Install only this skill (repeatable).")
@_install_options
@_option("--force", is_flag=True, help="Replace skills already installed.")
@_with_package_skills(warnings=False)
def add_command(
    skills: AgentSkills,
    workspace: Path,
    source: str,
    names: tuple[str, ...],
    scope: str,
    client: str | None,
    force: bool,
) -> None:
    """Install skills from a directory, an archive or a git repository.

    SOURCE is a local directory (a skill, or a folder of skills), a .zip/.skill/.tar.gz/.tgz
    archive, or a git URL with an optional //SUBDIR and #REF (a branch, tag or commit). Every
    skill found (or each --skill) is validated, copied with its executable bits and renamed
    into place; the scope's lock (skills.lock.json) records where it came from.

    \b
    Examples:
      agent-skills add ./vendor/skills
      agent-skills add https://github.com/acme/skills//pdf-tools#v1.2.0
      agent-skills add pdf-tools.skill --to user --force
    """
    from . import packages as _packages

    parsed = _packages.parse_source(source)
    root = _install_root(skills, workspace, scope, client)
    installed = _packages.install_skills(parsed, root.path, names=names, force=force)
    lock = _relock(skills, workspace, scope, root, installed)
    _report_installed(installed, "installed", lock)
    _warn_shadowed(skills, installed)


@_command("update")
@_argument("names", nargs=-1)
@_install_options
@_with_package_skills(warnings=False)
def update_command(
    skills: AgentSkills, workspace: Path, names: tuple[str, ...], scope: str, client: str | None
) -> None:
    """Re-install skills from the origin recorded in the scope's lock (all without NAME).

    \b
    Examples:
      agent-skills update
      agent-skills update pdf-tools --to user
    """
    from . import packages as _packages

    root = _install_root(skills, workspace, scope, client)
    lock_file = _lock_path(skills, workspace, scope)

    # Per name, the entry of the copy in this root wins, then any copy with an origin.
    def rank(entry: dict[str, Any]) -> tuple[bool, bool]:
        home = os.path.abspath(workspace / str(entry.get("dir", "")))
        return "origin" in entry, home == os.path.abspath(root.path / entry["name"])

    entries: dict[str, Any] = {}
    for entry in sorted(_packages.read_lock(lock_file)["skills"], key=rank):
        entries[entry["name"]] = entry
    wanted = list(names) or [n for n, e in entries.items() if "origin" in e]
    for name in wanted:
        entry = entries.get(name)
        if entry is None or not isinstance(entry.get("origin"), dict):
            raise SkillError(
                ErrorCode.NOT_FOUND,
                f"{name} has no recorded origin in {lock_file}",
                {"name": name},
            )
    if not wanted:
        click.echo(f"nothing to update: no skill in {lock_file} has a recorded origin")
        return
    installed: list[Any] = []
    for name in wanted:
        origin = entries[name]["origin"]
        text = str(origin.get("source", ""))
        if origin.get("ref"):
            text = f"{text}#{origin['ref']}"
        parsed = _packages.parse_source(text)
        installed.extend(_packages.install_skills(parsed, root.path, names=[name], force=True))
    lock = _relock(skills, workspace, scope, root, installed)
    _report_installed(installed, "updated", lock)


@_command("remove")
@_argument("name")
@_install_options
@_with_package_skills(warnings=False)
def remove_command(
    skills: AgentSkills, workspace: Path, name: str, scope: str, client: str | None
) -> None:
    """Remove an installed skill and its entry in the scope's lock.

    \b
    Examples:
      agent-skills remove pdf-tools
      agent-skills remove pdf-tools --to user
    """
    from . import packages as _packages

    root = _install_root(skills, workspace, scope, client)
    removed = _packages.remove_skill(root.path, name)
    lock = _relock(skills, workspace, scope, root, removed=[removed.dir])
    _report_installed([removed], "removed", lock)


# ---------------------------------------------------------------------------------------------
# Grants and the sandbox (SPEC §28): `grants` and `sandbox`, with their helpers


def _host_option(fn: _F) -> _F:
    from .grants import HOSTS  # the grants module loads with its commands only (SPEC §26)

    return click.option(
        "--for",
        "host",
        type=click.Choice(HOSTS),
        default="json",
        show_default=True,
        help="The host whose format to print: json, claude (Claude Code), codex, gemini "
        "(Gemini CLI), opencode, openai-agents (SandboxPathGrant), bwrap, docker, seatbelt.",
    )(fn)


#: What each reason of ``GrantSet.left_out`` means, for the warning the CLI prints.
_LEFT_OUT = {
    "stale_skill": "its directory changed since discovery",
    "archived_skill": "an archived skill has no directory to grant",
    "untrusted": "its files changed since approval",
}


def _skill_grants(skills: AgentSkills, names: Sequence[str]) -> Any:
    """The grants of every merged skill, or of ``names``; each skill left out is a warning."""
    grants = skills.grants(list(names) if names else None)
    for skill, reason in grants.left_out:
        why = _LEFT_OUT.get(reason, "its directory cannot be reached now")
        _warn(reason, f"skill '{skill}' left out of the grants: {why}")
    return grants


@_command("grants")
@_deferred(_host_option)
@_option(
    "--args",
    "as_args",
    is_flag=True,
    help="With --for gemini: the --include-directories argument instead of the settings object.",
)
@_option(
    "--skill", "names", multiple=True, metavar="NAME", help="Grant only this skill (repeatable)."
)
@_option(
    "--write",
    is_flag=True,
    help="Merge the grants into the host's settings file in the workspace (claude: "
    ".claude/settings.local.json, gemini: .gemini/settings.json, opencode: opencode.json).",
)
@_option(
    "--prune",
    is_flag=True,
    help="With --write: also remove the entries this command writes whose skill folder is gone.",
)
@_with_skills()
def grants_command(
    skills: AgentSkills,
    host: str,
    as_args: bool,
    names: tuple[str, ...],
    write: bool,
    prune: bool,
) -> None:
    """Print what a host needs for your skills' files to be readable in its sandbox.

    Every skill found (or each --skill) is granted read access to its directory: the path it
    was found at and, for a skill linked from a shared store, its real directory too. Skills
    left out (changed since discovery, archived) are warnings. With --write the grants are
    merged into the host's workspace settings file: every other setting is kept, a second run
    changes nothing, and --prune removes entries of skill folders that are gone. See
    docs/grants.md.

    \b
    Examples:
      agent-skills grants --for claude --write
      agent-skills grants --for codex >> ~/.codex/config.toml
      agent-skills grants --for gemini --args
      eval "docker run $(agent-skills grants --for docker) -it my-agent-image"
    """
    from .grants import render_grants, write_grants

    if as_args and host != "gemini":
        _fail(CliErrorCode.USAGE_ERROR, "--args applies to --for gemini only", 2)
    if prune and not write:
        _fail(CliErrorCode.USAGE_ERROR, "--prune applies to --write only", 2)
    if write and as_args:
        _fail(CliErrorCode.USAGE_ERROR, "--args prints an argument; it cannot be written", 2)
    grants = _skill_grants(skills, names)
    if not write:
        text = render_grants(grants, host, args=as_args)
        if text:
            click.echo(text)
        return
    result = write_grants(grants, host, workspace=skills.config.workspace_dir, prune=prune)
    if result.changed:
        counts = (
            f"{len(result.added)} added, {len(result.removed)} removed, {len(result.kept)} kept"
        )
    else:
        counts = f"unchanged ({len(result.kept)} kept)"
    click.echo(_safe(f"{result.path}: {counts}"))
    for entry in result.added:
        click.echo(_safe(f"  + {entry}"))
    for entry in result.removed:
        click.echo(_safe(f"  - {entry}"))


@_command("sandbox")
@_argument("command", nargs=-1, type=click.UNPROCESSED, metavar="-- COMMAND [ARGS]...")
@_option(
    "--project",
    type=_DIR_PATH,
    default=None,
    help="The folder COMMAND may read and write [default: the workspace].",
)
@_option(
    "--read",
    "read_paths",
    multiple=True,
    type=_PATH,
    metavar="PATH",
    help="Also make PATH readable (and executable) (repeatable).",
)
@_option(
    "--write",
    "write_paths",
    multiple=True,
    type=_PATH,
    metavar="PATH",
    help="Also make PATH readable and writable, such as a host's own state folder "
    "(~/.claude, ~/.codex) (repeatable).",
)
@_option("--no-skills", is_flag=True, help="Grant no skill.")
@_option(
    "--skill", "names", multiple=True, metavar="NAME", help="Grant only this skill (repeatable)."
)
@_option("--dry-run", is_flag=True, help="Print the rule set as JSON; run nothing.")
@_with_skills()
def sandbox_command(
    skills: AgentSkills,
    command: tuple[str, ...],
    project: Path | None,
    read_paths: tuple[Path, ...],
    write_paths: tuple[Path, ...],
    no_skills: bool,
    names: tuple[str, ...],
    dry_run: bool,
) -> None:
    """Run COMMAND where it can read the project and your skills, and not the rest of your files.

    Linux only (Landlock; install the 'sandbox' extra). COMMAND and every process it starts may
    read, write, create and remove under the project and the temporary directory; read and run
    the system's programs and libraries (/usr, /etc, ..., each PATH folder); use /dev; read, never
    write, the files of every skill found (or each --skill, or none with --no-skills). Nothing
    else: reading ~/.ssh is a permission error. The network is not restricted. A host's own
    state folder needs --write. The exit status is COMMAND's (127: not found, 126: not run);
    where Landlock is missing nothing runs (sandbox_unavailable, exit 2). See docs/grants.md.

    \b
    Examples:
      agent-skills sandbox --write ~/.claude -- claude
      agent-skills sandbox --skill pdf-tools -- python agent.py
      agent-skills sandbox --dry-run -- codex
    """
    from .grants import landlock_abi, restrict_current_process, sandbox_rules

    if not command:
        _fail(
            CliErrorCode.USAGE_ERROR,
            "missing COMMAND: agent-skills sandbox [OPTIONS] -- COMMAND",
            2,
        )
    if no_skills and names:
        _fail(CliErrorCode.USAGE_ERROR, "--no-skills and --skill exclude each other", 2)
    grants = () if no_skills else _skill_grants(skills, names)
    where = os.fspath(project) if project is not None else os.fspath(skills.config.workspace_dir)
    rules = sandbox_rules(
        grants,
        project=_expand_user(Path(where)),
        read=[_expand_user(p) for p in read_paths],
        write=[_expand_user(p) for p in write_paths],
        command=command[0],
    )
    home = os.path.realpath(os.path.expanduser("~"))
    for rule in rules.rules:
        if contains(os.fspath(rule.path), home):  # a project, PATH entry or --read holding ~
            how = "readable and writable" if "write" in rule.access else "readable"
            _warn(
                "rule_holds_home",
                f"{rule.path} ({', '.join(rule.reasons)}) holds your home folder: all of it is "
                f"{how} in the sandbox",
            )
    if dry_run:
        abi, reason = landlock_abi()
        shown = rules.to_dict()
        shown["argv"] = list(command)
        shown["landlock"] = {"abi": abi, "available": reason is None, "reason": reason}
        _emit_json(shown)
        return
    if rules.command is None:
        _fail("command_not_found", f"{command[0]}: command not found", 127)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        restrict_current_process(rules)
    except SkillError as exc:
        if exc.code == ErrorCode.SANDBOX_UNAVAILABLE:
            _fail(exc.code.value, exc.message, 2)
        raise
    try:
        os.execv(rules.command, list(command))
    except OSError as exc:
        import errno

        not_found = exc.errno == errno.ENOENT
        _fail(
            "command_not_run",
            f"{command[0]}: cannot run it in the sandbox: {exc.strerror or exc}",
            127 if not_found else 126,
        )


def _sandbox_takes_its_command_whole() -> None:
    """Options of ``sandbox`` end at COMMAND: what follows it is COMMAND's, ``--`` or not."""
    build = cli.lazy_commands["sandbox"]

    def build_sandbox() -> click.Command:
        command = build()
        command.allow_interspersed_args = False
        return command

    cli.lazy_commands["sandbox"] = build_sandbox


_sandbox_takes_its_command_whole()


# Whether main() paused the cyclic garbage collector for a command run as the program.
_collector_paused = False


def _pause_collector() -> None:
    """Pause the cyclic garbage collector for the rest of a command run as the program.

    A command answers and the process ends: the cycles it makes are few and small, and a pass of
    the collector over everything discovery built (which the scan makes with the collector paused,
    so all of it is young) would cost more than the whole output (SPEC §26). ``serve`` runs on,
    and resumes it (:func:`_resume_collector`).
    """
    global _collector_paused
    if gc.isenabled():
        gc.disable()
        _collector_paused = True


def _resume_collector() -> None:
    """Resume the collector :func:`_pause_collector` paused: for a command that runs on.

    What the process made until now (the modules, the skills) lives as long as it does: it
    goes to the oldest generation first (``_collector.enable_promoted``), so that re-enabling
    starts no young-generation passes over all of it; cycles among it are still found by full
    collections.
    """
    global _collector_paused
    if _collector_paused:
        _collector_paused = False
        from ._collector import enable_promoted

        enable_promoted()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI (the ``agent-skills`` console script and ``python -m agent_skills``).

    Run as the program (``argv`` ``None``) the cyclic garbage collector stays paused to the end
    of a command, which then exits (``serve``, which runs on, resumes it), and what the process
    holds is frozen when the command ends (:func:`_leave_to_exit`); called with ``argv`` the
    collector is left as it is.

    Args:
        argv: Arguments without the program name; ``None`` reads ``sys.argv[1:]``.

    Returns:
        The exit code: 0 ok; 1 a ``SkillError``, validation errors or ``internal_error``; 2 usage
        errors and ``StartupError``.
    """
    if argv is None:
        _pause_collector()
        try:
            return _run(sys.argv[1:])
        finally:
            _leave_to_exit()
    return _run(list(argv))


def _leave_to_exit() -> None:
    """Freeze what the process holds (``gc.freeze``) once a command run as the program ends.

    The process exits next, and the interpreter's last collection at exit would pass over all
    that discovery built (with the collector paused it is all still young): 0.92x the whole
    process of ``list --json`` at N = 1 000 without that pass (medians of 21 interleaved
    processes; SPEC §26). Output is flushed and ``atexit`` handlers run as before, and what
    reference counting frees is freed; only the search for unreachable cycles among what was
    frozen is left out (the commands leave no open file or thread behind in one).
    """
    gc.freeze()


def _run(args: list[str]) -> int:
    """Run the command line ``args`` (without the program name); return the exit code."""
    try:
        rv = cli.main(args=args, prog_name=PROG, standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        _echo_error(CliErrorCode.ABORTED, "interrupted")
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except Exception as exc:  # a failure outside any command (argument parsing)
        _echo_error(CliErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        return 1
    return rv if isinstance(rv, int) else 0
