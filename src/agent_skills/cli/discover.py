"""The commands that show what discovery found: ``list``, ``show``, ``resources``, ``path``,
``read``, ``catalog`` and ``report`` (SPEC §7.4, §8-§10, §13, §16, §21, §22.1).

Each asks the library's facade and prints its answer; none walks, parses or decides
containment. ``rich`` loads only for human-readable output, ``agent_skills.catalog`` only with
``catalog`` (SPEC §26).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from .._core import AgentSkills
from .._diagnostics import EntryStatus, RootStatus
from .._model import SkillInfo
from .._presets import AUTO, client_skill_roots
from .._scan import NO_MANIFEST
from .._terminal import json_safe, safe_text
from ._app import PROG, emit_json, emit_json_text, note, safe
from ._group import json_option
from ._listing import emit_list_json, listed_skills
from ._open import deeper_categories
from ._roots import require_skill, root_hint, with_skills
from ._table import columns, fold, print_out, terminal_width, text

__all__ = [
    "catalog_command",
    "list_command",
    "path_command",
    "read_command",
    "report_command",
    "resources_command",
    "show_command",
]


@click.command("list")
@json_option
@with_skills()
def list_command(skills: AgentSkills, as_json: bool) -> None:
    """List the active skills, sorted by name.

    A skill that overrides copies in lower-precedence roots shows how many it shadows (see
    `report` for the whole story). A VERSION column appears when any skill declares a version
    (`version`, or `metadata.version`).

    \b
    Examples:
      agent-skills list
      agent-skills list --preset agents --workspace ~/project
      agent-skills list --preset none --root ./skills --root ./more-skills --json
    """
    infos = listed_skills(skills)
    if as_json:
        emit_list_json(infos)
        return
    if not infos:
        count = len(skills.config.roots)
        click.echo(
            f"No skills found in {count} root{'s' if count != 1 else ''} (see `{PROG} report`)."
        )
        return
    # SPEC §29.7: a VERSION column after the name when any skill has a version.
    versioned = any(info.version is not None for info in infos)
    rows = []
    for info in infos:
        who = [
            w for w, on in (("user", info.user_invocable), ("model", info.model_invocable)) if on
        ]
        version = [info.version or "-"] if versioned else []
        rows.append(
            [
                info.name,
                *version,
                info.scope,
                info.source or "-",
                ", ".join(who) or "none",
                str(len(info.shadowed) or ""),
                " ".join(info.description.split()),
            ]
        )
    headers = ["NAME", *(["VERSION"] if versioned else []), "SCOPE", "SOURCE", "INVOCATION"]
    headers += ["SHADOWS", "DESCRIPTION"]
    print_out(*columns(headers, rows, width=terminal_width(), movable=4 if versioned else 3))


@click.command("show")
@click.argument("name")
@json_option
@with_skills()
def show_command(skills: AgentSkills, name: str, as_json: bool) -> None:
    """Show one skill: its facts, its resources and its body.

    \b
    Examples:
      agent-skills show release-notes
      agent-skills show release-notes --json
    """
    content = require_skill(skills, name)
    if as_json:
        emit_json(content.to_dict())
        return
    facts = _table_of(box=None, show_header=False, pad_edge=False)
    facts.add_column(style="bold")
    facts.add_column(overflow="fold")
    tools = content.allowed_tools
    rows: list[tuple[str, object]] = [
        ("name", content.name),
        ("description", " ".join(content.description.split())),
        ("version", content.version or "-"),
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
        facts.add_row(text(label), text(value))
    count = len(content.resources)
    more = " (truncated)" if content.resources_truncated else ""
    lines = [f"\nresources: {count}{more}", *(f"  {safe(res.rel)}" for res in content.resources)]
    print_out(facts, _text_of("\n".join(lines)), _text_of("\n" + safe_text(content.body)))


@click.command("resources", short_help="List a skill's files (scripts, references, assets, ...).")
@click.argument("name")
@json_option
@with_skills()
def resources_command(skills: AgentSkills, name: str, as_json: bool) -> None:
    """List a skill's files (scripts, references, assets, examples, other).

    JSON: {name, dir, resources: [{kind, rel, path, size}], resources_truncated}.

    \b
    Examples:
      agent-skills resources csv-profiler
      agent-skills resources csv-profiler --json
    """
    content = require_skill(skills, name)
    if as_json:
        emit_json(
            {
                "name": content.name,
                "dir": str(content.dir),
                "resources": [r.to_dict() for r in content.resources],
                "resources_truncated": content.resources_truncated,
            }
        )
        return
    if not content.resources:
        click.echo(safe(f"{content.name} has no resources."))
        return
    table = _table_of(box=None, pad_edge=False)
    table.add_column("KIND")
    table.add_column("SIZE", justify="right")
    table.add_column("PATH", overflow="fold")
    for res in content.resources:
        table.add_row(text(res.kind), text(res.size), text(res.rel))
    print_out(table)
    if content.resources_truncated:
        click.echo(f"(listing truncated at {len(content.resources)} files)", err=True)


@click.command("path")
@click.argument("name")
@click.argument("rel")
@json_option
@with_skills()
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
        emit_json({"name": name, "rel": rel, "path": str(path)})
    else:
        click.echo(safe(str(path)))


@click.command("read", short_help="Write a skill file's bytes to stdout (a confined read).")
@click.argument("name")
@click.argument("rel")
@click.option(
    "--max-bytes",
    type=click.IntRange(min=0),
    default=None,
    help="Fail with too_large when the file is bigger than this many bytes.",
)
@with_skills()
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


@click.command("catalog", short_help="Print the skill catalog for a system prompt.")
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
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@with_skills()
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
    from .. import catalog as _catalog  # only this command renders catalogs (SPEC §26)

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
        note(f"no skills to list (see `{PROG} report`)")
    _print_catalog(text, fmt)


def _print_catalog(text: str, fmt: str) -> None:
    """A catalog on stdout: JSON as UTF-8 whatever the names (SPEC §30.5); markdown and XML,
    read by a person too, with skill-supplied control characters escaped (SPEC §20.9)."""
    if fmt == "json":
        emit_json_text(text)
    else:
        click.echo(safe_text(text), nl=False)


_OMITTED_SHOWN = 20  # names of omitted skills in the catalog --max-chars note


def _print_fitted_catalog(infos: list[SkillInfo], fmt: str, max_chars: int) -> None:
    """``catalog --max-chars``: the fitted text on stdout, the report on stderr (SPEC §22.1)."""
    from ..catalog import fit_catalog

    # What is printed is escaped (control characters, undecodable bytes), which may lengthen it:
    # the fit is taken again in a budget smaller by the excess until the printed text fits.
    budget = max_chars
    while True:
        fit = fit_catalog(infos, max_chars=budget, format=fmt)  # type: ignore[arg-type]
        shown = json_safe(fit.text) if fmt == "json" else safe_text(fit.text)
        excess = len(shown) - max_chars
        if excess <= 0 or budget == 0:
            break
        budget = max(0, budget - excess)
    _print_catalog(fit.text + ("\n" if fmt == "json" and fit.text else ""), fmt)
    said = f"{len(fit.included)} of {len(infos)} skills listed in {len(shown)} of {max_chars}"
    said += " characters"
    if fit.shortened:
        said += f"; {len(fit.shortened)} descriptions shortened"
    if fit.omitted:
        shown = ", ".join(fit.omitted[:_OMITTED_SHOWN])
        rest = len(fit.omitted) - _OMITTED_SHOWN
        said += f"; omitted: {shown}" + (f" … and {rest} more" if rest > 0 else "")
    note(said)  # for a person: never under --json (the output says it)


@click.command("report", short_help="Explain discovery: every candidate folder and its status.")
@json_option
@with_skills(warnings=False)
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
        emit_json(data)
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
    width = terminal_width()
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
            columns(
                ["STATUS", "NAME", "PATH", "DETAIL"],
                rows,
                width=width,
                styles=styles,
                cut=False,
                movable=3,
            )
        )
    else:
        parts.append(_text_of("No candidate skill directories."))
    if any(e.reason == NO_MANIFEST for e in report.by_status(EntryStatus.SKIPPED)):
        categories = deeper_categories(skills)  # (a second search: only when it may find some)
        if categories:
            shown = ", ".join(categories[:5]) + (", ..." if len(categories) > 5 else "")
            many = len(categories) != 1
            hint = safe(
                f"{len(categories)} skipped folder{'s' if many else ''} ({shown}) "
                f"{'hold' if many else 'holds'} skills one level down: search "
                f"{'them' if many else 'it'} with --max-depth 2."
            )
            parts.append(_text_of(""))
            parts.extend(_text_of(p) for p in ([hint] if width is None else fold(hint, width)))
    parts.append(_text_of(""))
    parts.extend(
        columns(
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
            parts.append(
                _text_of("\nNo skill was found. Skill folders on this machine not searched:")
            )
            parts.extend(_text_of(safe(f"  {line}")) for line in unsearched)
    if report.diagnostics:
        parts.append(_text_of(""))
        for d in report.diagnostics:
            line = safe(f"{d.severity}: {d.kind.value}: {d.message}")
            # In a terminal, folded at its width (SPEC §21.12): paths in it stay whole.
            parts.extend(
                _text_of(part) for part in ([line] if width is None else fold(line, width))
            )
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
    parts.append(_text_of(f"\n{summary}"))
    print_out(*parts)


def _root_rows(skills: AgentSkills) -> list[list[str]]:
    """One row per root searched: path, scope, source, state and note (with the hint)."""
    rows = []
    for root, found in zip(skills.config.roots, skills.report().roots, strict=True):
        message = found.message
        if found.status == RootStatus.OK:
            message = root_hint(found.root) or ""
        rows.append([str(found.root), root.scope, root.source or "-", found.status.value, message])
    return rows


def _unsearched_layouts(skills: AgentSkills) -> list[str]:
    """Known skill folders (every layout of SPEC §21.1) that exist here but were not searched,
    each with the presets that read it."""
    from .._presets import CLIENT_LAYOUTS

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


def _table_of(*args: Any, **kwargs: Any) -> Any:
    """A ``rich`` table (rich loads with the first one)."""
    from rich.table import Table

    return Table(*args, **kwargs)


def _text_of(*args: Any, **kwargs: Any) -> Any:
    """A ``rich`` text (rich loads with the first one)."""
    from rich.text import Text

    return Text(*args, **kwargs)
