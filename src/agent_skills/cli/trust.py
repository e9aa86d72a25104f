"""``trust``: approve, list and revoke workspace skills in a trust store (SPEC §23.3-§23.5).

Owns which report entries a command line approves; the store, the digest and the rule of what
an approval admits are ``agent_skills._trust``'s.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from .._confine import contains
from .._core import AgentSkills
from .._diagnostics import EntryStatus
from .._errors import SkillError
from .._trust import TrustStore, digest_skill_dir
from ._app import CliErrorCode, emit_json, fail, safe, warn
from ._group import json_option
from ._roots import FILE_PATH, PATH, trust_store, with_skills

__all__ = ["trust_command"]

#: The report statuses of a workspace skill that ``trust`` approves (SPEC §23.4).
APPROVABLE = (EntryStatus.LOADED, EntryStatus.SHADOWED, EntryStatus.UNTRUSTED)


@click.command("trust", short_help="Approve project skills as they are now (or list, revoke).")
@click.argument("paths", nargs=-1, type=PATH)
@click.option(
    "--store",
    "store_path",
    type=FILE_PATH,
    default=None,
    help="The trust store file [default: the --trust-store value].",
)
@click.option("--list", "list_only", is_flag=True, help="List the approvals in the store.")
@click.option("--revoke", is_flag=True, help="Revoke the approvals under PATH instead.")
@click.option(
    "--yes",
    "-y",
    "assume_yes",
    is_flag=True,
    help="Approve without asking (for scripts; without a terminal, trust asks for this).",
)
@json_option
@with_skills()
def trust_command(
    skills: AgentSkills,
    paths: tuple[Path, ...],
    store_path: Path | None,
    list_only: bool,
    revoke: bool,
    assume_yes: bool,
    as_json: bool,
) -> None:
    """Approve the project skills under PATH as they are now (default: the whole workspace).

    Shows what it would approve (each skill's name, scope, digest and folder, and which of your
    user skills it would override) and asks first; --yes approves without asking, and without
    a terminal (or with --json) trust refuses unless --yes is given. An approval is bound to the
    skill's digest (its SKILL.md and every listed file): any later change takes the skill out
    again until it is approved anew. Hosts pass the store with --trust-store (or TrustStore in
    Python); user skills are always trusted.

    \b
    Examples:
      agent-skills trust --store ~/.config/agent-skills/trust.json
      agent-skills trust .agents/skills/pdf-tools --store trust.json --yes
      agent-skills trust --list --store trust.json
      agent-skills trust --revoke .agents/skills/pdf-tools --store trust.json
    """
    store = TrustStore(os.path.expanduser(store_path)) if store_path is not None else None
    store = store if store is not None else trust_store()
    if store is None:
        fail(
            CliErrorCode.USAGE_ERROR,
            "name the trust store with --store FILE",
            2,
        )
    if list_only:
        approvals = sorted(store.approved().items())
        if as_json:
            emit_json([{"dir": str(d), "digest": digest} for d, digest in approvals])
        else:
            for directory, digest in approvals:
                click.echo(safe(f"{digest}  {directory}"))
        return
    bases = [os.path.realpath(p) for p in paths] or [os.path.realpath(skills.config.workspace_dir)]
    done: list[dict[str, str]] = []
    failed: list[tuple[str, str]] = []  # (code, message)
    if revoke:
        for directory in sorted(store.approved()):
            if any(contains(base, os.fspath(directory)) for base in bases):
                store.revoke(directory)
                done.append({"dir": str(directory), "status": "revoked"})
    else:
        plan, failed = _plan(skills, bases)
        if plan and not assume_yes:
            _ask(plan, store.path, as_json)
        follow = skills.config.follow_symlinks
        for planned in plan:
            try:
                digest = store.approve(
                    planned.real, follow_symlinks=follow, max_resources=skills.config.max_resources
                )
            except SkillError as err:
                if err.fields.get("path") == str(store.path):
                    raise  # the store itself: nothing else can be approved either
                failed.append((err.code.value, f"cannot approve {planned.name}: {err.message}"))
                continue
            if digest != planned.digest:
                # Changed between what was shown and the approval: not what was agreed to.
                store.revoke(planned.real)
                failed.append(
                    ("changed_since_shown", f"{planned.name} changed while trust ran; not approved")
                )
                continue
            done.append(
                {"name": planned.name, "dir": planned.real, "digest": digest, "status": "approved"}
            )
    if as_json:
        emit_json(done)
    else:
        for item in done:
            if item["status"] == "approved":
                click.echo(safe(f"approved {item['name']} {item['digest']} {item['dir']}"))
            else:
                click.echo(safe(f"revoked {item['dir']}"))
        if not done and not failed:
            what = "approval" if revoke else "project skill"
            click.echo(f"no {what} under {', '.join(bases)}", err=True)
    for code, message in failed:
        if as_json:  # one JSON object on stderr (SPEC §21.11): each failure among its warnings
            warn(code, message)
        else:
            click.echo(safe(f"{code}: {message}"), err=True)
    if failed:
        raise click.exceptions.Exit(1)


@dataclass(frozen=True)
class _Planned:
    """A project skill ``trust`` would approve: as shown before asking."""

    name: str
    real: str
    digest: str
    overrides: tuple[Path, ...]


def _plan(skills: AgentSkills, bases: list[str]) -> tuple[list[_Planned], list[tuple[str, str]]]:
    """The workspace skills under ``bases`` that ``trust`` would approve, hashed now, and the
    ``(code, message)`` of those that cannot be hashed (one such skill does not stop the others: a
    manifest linked from outside, an archived skill, a file that vanished)."""
    report = skills.report()
    scopes = {r.path: r.scope for r in skills.config.roots}
    user_copies: dict[str, list[Path]] = {}
    for entry in report.entries:
        shown = entry.status in (EntryStatus.LOADED, EntryStatus.SHADOWED)
        if entry.name is not None and scopes.get(entry.root) == "user" and shown:
            user_copies.setdefault(entry.name, []).append(entry.path)
    plan: list[_Planned] = []
    failed: list[tuple[str, str]] = []
    seen: set[str] = set()
    for entry in report.entries:
        if scopes.get(entry.root) != "workspace" or entry.name is None:
            continue
        if entry.status not in APPROVABLE:
            continue
        real = os.path.realpath(entry.path)
        if real in seen or not any(contains(base, real) for base in bases):
            continue
        seen.add(real)
        try:
            digest, _ = digest_skill_dir(
                real,
                follow_symlinks=skills.config.follow_symlinks,
                max_resources=skills.config.max_resources,
            )
        except SkillError as err:
            failed.append((err.code.value, f"cannot approve {entry.name}: {err.message}"))
            continue
        overrides = tuple(user_copies.get(entry.name, ()))
        plan.append(_Planned(entry.name, real, digest, overrides))
    return plan, failed


def _ask(plan: list[_Planned], store: Path, as_json: bool) -> None:
    """Show ``plan`` on stderr and ask to go on (SPEC §23.4); without a terminal to ask on (or
    under ``--json``, whose stderr holds one object), refuse with ``confirmation_required``."""
    count = f"{len(plan)} project skill{'s' if len(plan) != 1 else ''}"
    stdin = sys.stdin
    if as_json or stdin is None or not stdin.isatty():
        names = ", ".join(item.name for item in plan)
        fail(
            CliErrorCode.CONFIRMATION_REQUIRED,
            f"trust would approve {count} ({names}); there is no terminal to ask on: pass "
            "--yes to approve them as they are now",
            2,
        )
    home = os.path.expanduser("~")
    lines = [f"trust would approve {count} as they are now, in {_tilde(str(store), home)}:"]
    for item in plan:
        lines.append(f"  {item.name} (workspace) {item.digest[:19]}…")
        lines.append(f"    {_tilde(item.real, home)}")
        for path in item.overrides:
            lines.append(f"    overrides your user skill {item.name}: {_tilde(str(path), home)}")
    click.echo("\n".join(safe(line) for line in lines), err=True)
    if not click.confirm(f"Approve {count}?", default=False, err=True):
        fail(CliErrorCode.ABORTED, "nothing approved", 1)


def _tilde(path: str, home: str) -> str:
    """``path`` relative to the current directory when it lies there, else with the home
    directory written ``~``."""
    here = os.path.realpath(os.getcwd())
    if path.startswith(here.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, here)
    home = home.rstrip(os.sep)
    return "~" + path[len(home) :] if home and path.startswith(home + os.sep) else path
