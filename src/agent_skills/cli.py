"""The ``agent-skills`` command line (SPEC §16).

Commands: ``list``, ``show NAME``, ``resources NAME``, ``path NAME REL``, ``read NAME REL``,
``catalog``, ``report``, ``validate PATH...`` and ``serve``. Options come after the command.

Roots (every command but ``validate``): ``--preset clarvis|agents|none`` (default ``clarvis``: the
four roots of SPEC §3; ``agents``: ``~/.agents/skills`` then ``<workspace>/.agents/skills``;
``none``: no preset roots), ``--workspace DIR`` (default: the current directory), then each
``--root PATH`` in ascending precedence (a relative ``--root`` is taken against the current
directory), ``--strict`` and ``--no-follow-symlinks``.

Exit codes: 0 ok (``validate``: no errors; warnings allowed); 1 a :class:`SkillError`, validation
errors, or an unexpected failure (``internal_error``); 2 usage errors and :class:`StartupError`.
Errors print ``code: message`` on stderr, never a traceback. Discovery warnings go to stderr as
``warning: ...`` lines, never into ``--json`` output on stdout.

This is the only module that imports ``click`` and ``rich``.
"""

from __future__ import annotations

import functools
import importlib
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
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


from ._config import SkillRoot
from ._confine import is_within
from ._core import AgentSkills, create_agent_skills
from ._diagnostics import DiscoveryReport, EntryStatus, RootStatus, set_warn_sink
from ._errors import ErrorCode, SkillError, StartupError
from ._model import SkillInfo
from ._presets import clarvis_skill_roots, standard_skill_roots
from ._scan import is_manifest_name
from .validate import PROFILES, Problem, Profile, Severity, find_manifest, validate_skill

__all__ = ["cli", "main"]

_F = TypeVar("_F", bound=Callable[..., Any])

PROG = "agent-skills"
MCP_HINT = "install clarvis-agent-skills[mcp]"

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


def _fail(code: str, message: str, exit_code: int = 1) -> NoReturn:
    raise _Fail(code, message, exit_code)


class _Group(click.Group):
    """A group that turns every failure of a command into ``code: message`` and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except _Fail as exc:
            _echo_error(exc.code, exc.message)
            ctx.exit(exc.exit_code)
        except SkillError as exc:
            _echo_error(exc.code.value, exc.message)
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


def _echo_error(code: str, message: str) -> None:
    click.echo(f"{code}: {message}", err=True)


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
    console = _console()
    with console.capture() as capture:
        for renderable in renderables:
            console.print(renderable)
    lines = capture.get().split("\n")
    click.echo("\n".join(line.rstrip() for line in lines), nl=False)


def _emit_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


# ---------------------------------------------------------------------------------------------
# Shared options


def _root_options(fn: _F) -> _F:
    """Add the root options of SPEC §16 to a command."""
    options = [
        click.option(
            "--preset",
            type=click.Choice(["clarvis", "agents", "none"]),
            default="clarvis",
            show_default=True,
            help="Preset roots: clarvis = .agents then .clarvis, user then workspace; "
            "agents = the two .agents/skills roots; none = only --root.",
        ),
        click.option(
            "--workspace",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help="Workspace directory for the preset's workspace roots [default: current dir].",
        ),
        click.option(
            "--root",
            "roots",
            multiple=True,
            type=click.Path(path_type=Path),
            help="Extra skill root, after the preset's (repeatable; later wins).",
        ),
        click.option("--strict", is_flag=True, help="Fail on the first invalid skill."),
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
        type=click.Path(dir_okay=False, path_type=Path),
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
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Index file of parsed manifests: reused while they are unchanged, rewritten after "
    "each scan (faster starts on large stores; results are the same).",
)


def _json_option(fn: _F) -> _F:
    return click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")(fn)


def _preset_roots(preset: str, workspace: Path | None) -> list[SkillRoot]:
    if preset == "clarvis":
        return clarvis_skill_roots(workspace=workspace)
    if preset == "agents":
        return standard_skill_roots("agents", workspace=workspace)[:2]
    return []


@contextmanager
def _warnings_to_stderr(enabled: bool = True) -> Iterator[None]:
    """Send discovery warnings to stderr as ``warning: ...`` lines while the command runs."""
    logger = logging.getLogger("agent_skills")
    # Without a handler, Python's last-resort handler would print each warning a second time.
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
    if enabled:
        set_warn_sink(lambda message: click.echo(f"warning: {message}", err=True))
    else:
        set_warn_sink(lambda message: None)
    try:
        yield
    finally:
        set_warn_sink(None)


def _open_skills(options: dict[str, Any], *, warnings: bool = True) -> AgentSkills:
    """Build :class:`AgentSkills` from the root options (SPEC §2-§3, §16).

    Raises:
        StartupError: Bad workspace, or no roots (``--preset none`` without ``--root``).
        SkillError: With ``--strict``, as discovery does.
    """
    workspace: Path | None = options["workspace"]
    roots: list[Any] = _preset_roots(options["preset"], workspace)
    roots.extend(os.path.abspath(r) for r in options["roots"])
    if not roots:
        raise StartupError("no skill roots: use a preset or pass --root PATH")
    with _warnings_to_stderr(warnings):
        skills = create_agent_skills(
            roots,
            workspace=workspace,
            strict=options["strict"],
            follow_symlinks=not options["no_follow_symlinks"],
            index=options.get("index"),
            trust=_trust_store(),
        )
    # The library is silent about missing roots (SPEC §4); a root typed on the command line that
    # is missing is most likely a typo, so say so (preset roots are often absent, and stay quiet).
    explicit = {Path(os.path.abspath(r)) for r in options["roots"]}
    for note in skills.report().roots:
        if note.status != RootStatus.OK and note.root in explicit and warnings:
            click.echo(f"warning: --root {note.root}: {note.message}", err=True)
    return skills


#: The parameters :func:`_root_options` adds, taken out of a command's arguments by the decorators.
_ROOT_OPTION_KEYS = ("preset", "workspace", "roots", "strict", "no_follow_symlinks", "index")


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

    return decorate


def _require(skills: AgentSkills, name: str) -> Any:
    content = skills.load_skill(name)
    if content is None:
        raise SkillError(ErrorCode.NOT_FOUND, f"No such skill: {name}", {"name": name})
    return content


def _text(value: object) -> Text:
    return Text("" if value is None else str(value))


# ---------------------------------------------------------------------------------------------
# Commands


@click.group(cls=_Group, context_settings=_CONTEXT)
@click.version_option(package_name="clarvis-agent-skills", prog_name=PROG)
def cli() -> None:
    """Discover, inspect, validate and serve Agent Skills (SKILL.md folders).

    Options come after the command. Every command but `validate` reads the skill roots of a
    preset (default: clarvis) plus any --root.

    \b
    Examples:
      agent-skills list
      agent-skills list --preset none --root ./skills --json
      agent-skills show pdf-processing
      agent-skills report
      agent-skills validate skills/
      agent-skills serve --http --port 8000

    Exit codes: 0 ok; 1 a skill error or validation errors; 2 usage or configuration errors.
    """


@cli.command("list")
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
    table = Table(box=None, pad_edge=False)
    for column in ("NAME", "SCOPE", "SOURCE", "INVOCATION", "SHADOWS"):
        table.add_column(column, overflow="fold")
    table.add_column("DESCRIPTION", overflow="ellipsis", no_wrap=True)
    for info in infos:
        who = [
            w for w, on in (("user", info.user_invocable), ("model", info.model_invocable)) if on
        ]
        table.add_row(
            _text(info.name),
            _text(info.scope),
            _text(info.source or "-"),
            _text(", ".join(who) or "none"),
            _text(len(info.shadowed) or ""),
            _text(" ".join(info.description.split())),
        )
    _print(table)


@cli.command("show")
@click.argument("name")
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
        ("allowed-tools", " ".join(tools) if tools is not None else "-"),
        ("user-invocable", "yes" if content.user_invocable else "no"),
        ("model-invocable", "yes" if content.model_invocable else "no"),
    ]
    rows.extend(("shadows", s.dir) for s in content.shadowed)
    for label, value in rows:
        facts.add_row(_text(label), _text(value))
    count = len(content.resources)
    more = " (truncated)" if content.resources_truncated else ""
    lines = [f"\nresources: {count}{more}", *(f"  {res.rel}" for res in content.resources)]
    _print(facts, Text("\n".join(lines)), Text("\n" + content.body))


@cli.command("resources")
@click.argument("name")
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
        click.echo(f"{content.name} has no resources.")
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


@cli.command("path")
@click.argument("name")
@click.argument("rel")
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
        click.echo(str(path))


@cli.command("read")
@click.argument("name")
@click.argument("rel")
@click.option(
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


@cli.command("catalog")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "xml", "json"]),
    default="markdown",
    show_default=True,
    help="markdown list, Agent Skills <available_skills> XML, or a JSON array.",
)
@click.option(
    "--all",
    "include_all",
    is_flag=True,
    help="Include skills with disable-model-invocation (left out by default).",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Fit the catalog in N characters (descriptions shortened, then skills omitted and "
    "named in a closing note); what was left out is reported on stderr.",
)
@_with_skills()
def catalog_command(
    skills: AgentSkills, fmt: str, include_all: bool, max_chars: int | None
) -> None:
    """Print the skill catalog for a system prompt (model-invocable skills).

    \b
    Examples:
      agent-skills catalog
      agent-skills catalog --format xml
      agent-skills catalog --format json --all
      agent-skills catalog --max-chars 8000
    """
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


@cli.command("report")
@_json_option
@_with_skills(warnings=False)
def report_command(skills: AgentSkills, as_json: bool) -> None:
    """Explain discovery: every candidate directory of every root and what became of it.

    Statuses: loaded; shadowed (by a later root: which one); duplicate (same name earlier in the
    same root); invalid (why); skipped (why). Then the state of each root and the diagnostics.

    \b
    Examples:
      agent-skills report
      agent-skills report --preset none --root ./skills --json
    """
    report = skills.report()
    if as_json:
        _emit_json(report.to_dict())
        return
    _print_report(report)


def _print_report(report: DiscoveryReport) -> None:
    parts: list[Any] = []
    if report.entries:
        table = Table(box=None, pad_edge=False, title=None)
        table.add_column("STATUS")
        table.add_column("NAME")
        table.add_column("PATH", overflow="fold")
        table.add_column("DETAIL", overflow="fold")
        styles = {
            EntryStatus.LOADED: "green",
            EntryStatus.SHADOWED: "yellow",
            EntryStatus.DUPLICATE: "yellow",
            EntryStatus.INVALID: "red",
            EntryStatus.SKIPPED: "dim",
            EntryStatus.UNTRUSTED: "yellow",
        }
        for e in report.entries:
            detail = e.reason
            if e.shadowed_by is not None:
                detail = f"shadowed by {e.shadowed_by}"
            table.add_row(
                Text(e.status.value, style=styles.get(e.status, "")),
                _text(e.name or "-"),
                _text(e.path),
                _text(detail),
            )
        parts.append(table)
    else:
        parts.append(Text("No candidate skill directories."))
    parts.append(Text(""))
    roots = Table(box=None, pad_edge=False)
    roots.add_column("ROOT", overflow="fold")
    roots.add_column("STATE")
    roots.add_column("NOTE", overflow="fold")
    for note in report.roots:
        roots.add_row(_text(note.root), _text(note.status), _text(note.message))
    parts.append(roots)
    if report.diagnostics:
        parts.append(Text(""))
        for d in report.diagnostics:
            parts.append(Text(f"{d.severity}: {d.kind.value}: {d.message}"))
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
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    parts.append(Text(f"\n{summary}"))
    _print(*parts)


def _expand_validate_path(path: Path) -> list[Path]:
    """A skill dir, a manifest file (its directory) or a root (its skill children)."""
    if path.is_file() and is_manifest_name(path.name):
        return [path.parent]
    if not path.is_dir() or find_manifest(path) is not None:
        return [path]
    try:
        children = sorted(path.iterdir(), key=lambda p: (p.name.casefold(), p.name))
    except OSError:
        return [path]
    skills = [c for c in children if not c.name.startswith(".") and c.is_dir() and find_manifest(c)]
    return skills or [path]


@cli.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@_json_option
@click.option("--warnings-as-errors", is_flag=True, help="Exit 1 when any warning is found too.")
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default="spec",
    show_default=True,
    help="spec: the specification; portable: also ASCII names for MCP hosts (warnings); "
    "anthropic: also the upload rules.",
)
def validate_command(
    paths: tuple[Path, ...], as_json: bool, warnings_as_errors: bool, profile: Profile
) -> None:
    """Check skills strictly against the Agent Skills specification.

    Each PATH is a skill directory, a SKILL.md file, or a root whose subdirectories are skills.
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
    targets: list[Path] = []
    seen: set[str] = set()
    for path in paths:
        for target in _expand_validate_path(path):
            key = os.path.abspath(target)
            if key not in seen:
                seen.add(key)
                targets.append(target)
    results = [(target, validate_skill(target, profile=profile)) for target in targets]
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
    manifest = find_manifest(skill_dir) if skill_dir.is_dir() else None
    where = str(manifest if manifest is not None else skill_dir)
    if problem.line is not None:
        where = f"{where}:{problem.line}"
    return f"{where}: {problem.severity.value} {problem.code} {problem.message}"


@cli.command("serve")
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP, not stdio.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8000,
    show_default=True,
    help="HTTP port (with --http).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind (with --http); 0.0.0.0 serves every interface.",
)
@click.option(
    "--stateless",
    is_flag=True,
    help="With --http: no sessions, so replicas behind any load balancer need no affinity.",
)
@click.option(
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
    dependency: pip install 'clarvis-agent-skills[mcp]'.

    \b
    Examples:
      agent-skills serve --watch
      agent-skills serve --http --port 8765 --root ./skills
      agent-skills serve --http --stateless --host 0.0.0.0 --watch --preset none --root /srv/skills
    """
    if (stateless or host != "127.0.0.1") and not use_http:
        _fail(CliErrorCode.USAGE_ERROR, "--stateless and --host apply to --http only", 2)
    try:
        mcp_server = importlib.import_module("agent_skills.mcp")
    except ImportError as exc:
        _fail(
            "mcp_unavailable",
            f"the MCP server needs the 'mcp' package ({exc}): {MCP_HINT}",
        )
    if use_http:
        mcp_server.run_http(skills, host=host, port=port, stateless=stateless, watch=watch)
    else:
        mcp_server.run_stdio(skills, watch=watch)


# ---------------------------------------------------------------------------------------------
# Trust (SPEC §23.3-§23.4)


_APPROVABLE = (EntryStatus.LOADED, EntryStatus.SHADOWED, EntryStatus.UNTRUSTED)


@cli.command("trust")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--store",
    "store_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The trust store file [default: the --trust-store value].",
)
@click.option("--list", "list_only", is_flag=True, help="List the approvals in the store.")
@click.option("--revoke", is_flag=True, help="Revoke the approvals under PATH instead.")
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
    if revoke:
        for directory in sorted(store.approved()):
            if any(is_within(os.fspath(directory), base) for base in bases):
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
            if real in seen or not any(is_within(real, base) for base in bases):
                continue
            seen.add(real)
            follow = skills.config.follow_symlinks
            digest = store.approve(
                real, follow_symlinks=follow, max_resources=skills.config.max_resources
            )
            done.append({"name": entry.name, "dir": real, "digest": digest, "status": "approved"})
    if as_json:
        _emit_json(done)
        return
    for item in done:
        if item["status"] == "approved":
            click.echo(_safe(f"approved {item['name']} {item['digest']} {item['dir']}"))
        else:
            click.echo(_safe(f"revoked {item['dir']}"))
    if not done:
        what = "approval" if revoke else "project skill"
        click.echo(f"no {what} under {', '.join(bases)}", err=True)


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
            skills = _open_skills(options, warnings=warnings)
            with _warnings_to_stderr(warnings):
                return fn(skills=skills, workspace=workspace, **kwargs)

        return _root_options(wrapper)  # type: ignore[return-value]

    return decorate


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
    skills: AgentSkills, workspace: Path, scope: str, root: SkillRoot, origins: dict[str, Any]
) -> Path:
    """Rewrite the lock of ``scope`` from what is installed now, keeping recorded origins."""
    from . import packages as _packages

    target = _lock_path(skills, workspace, scope)
    known: dict[str, Any] = {}
    if target.exists():
        for entry in _packages.read_lock(target)["skills"]:
            if isinstance(entry.get("origin"), dict):
                known[entry["name"]] = entry["origin"]
    known.update(origins)
    scoped = _packages.scoped_skills(skills, [root.scope], [root])
    _packages.write_lock(
        target,
        _packages.lock_skills(scoped, workspace=workspace, origins=known),
    )
    return target


@cli.command("pack")
@click.argument("skill_dir", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
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


@cli.command("lock")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Lock file to write [default: <workspace>/skills.lock.json].",
)
@click.option(
    "--all", "all_roots", is_flag=True, help="Lock every root, user roots too (not for CI)."
)
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
        origins = {e["name"]: e["origin"] for e in previous["skills"] if "origin" in e}
    scoped = _packages.scoped_skills(skills, None if all_roots else ["workspace"])
    lock = _packages.lock_skills(scoped, workspace=workspace, origins=origins)
    _packages.write_lock(target, lock)
    count = len(lock["skills"])
    click.echo(f"locked {count} skill{'s' if count != 1 else ''} in {target}")


@cli.command("verify")
@click.option(
    "--lock",
    "lock_file",
    type=click.Path(dir_okay=False, path_type=Path),
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
    """Show control characters of skill-supplied names as ``\\xNN`` (SPEC §20.9)."""
    return "".join(
        c if c == "\t" or (c >= " " and not 0x7F <= ord(c) <= 0x9F) else f"\\x{ord(c):02x}"
        for c in text
    )


def _install_options(fn: _F) -> _F:
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


def _report_installed(installed: Sequence[Any], verb: str, lock: Path) -> None:
    for item in installed:
        for message in item.warnings:
            click.echo(_safe(f"warning: {message}"), err=True)
        action = "replaced" if item.replaced and verb == "installed" else verb
        click.echo(_safe(f"{action} {item.name} in {item.dir}"))
    click.echo(_safe(f"lock: {lock}"))


@cli.command("add")
@click.argument("source")
@click.option("--skill", "names", multiple=True, help="Install only this skill (repeatable).")
@_install_options
@click.option("--force", is_flag=True, help="Replace skills already installed.")
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
    lock = _relock(skills, workspace, scope, root, {i.name: i.origin for i in installed})
    _report_installed(installed, "installed", lock)


@cli.command("update")
@click.argument("names", nargs=-1)
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
    entries = {e["name"]: e for e in _packages.read_lock(lock_file)["skills"]}
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
    lock = _relock(skills, workspace, scope, root, {i.name: i.origin for i in installed})
    _report_installed(installed, "updated", lock)


@cli.command("remove")
@click.argument("name")
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
    lock = _relock(skills, workspace, scope, root, {})
    _report_installed([removed], "removed", lock)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI (the ``agent-skills`` console script and ``python -m agent_skills``).

    Args:
        argv: Arguments without the program name; ``None`` reads ``sys.argv[1:]``.

    Returns:
        The exit code: 0 ok; 1 a ``SkillError``, validation errors or ``internal_error``; 2 usage
        errors and ``StartupError``.
    """
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        rv = cli.main(args=args, prog_name=PROG, standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        _echo_error("aborted", "interrupted")
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except Exception as exc:  # a failure outside any command (argument parsing)
        _echo_error(CliErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        return 1
    return rv if isinstance(rv, int) else 0
