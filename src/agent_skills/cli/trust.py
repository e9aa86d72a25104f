"""``trust``: approve, list and revoke workspace skills in a trust store (SPEC §23.3-§23.5).

Owns which report entries a command line approves; the store, the digest and the rule of what
an approval admits are ``agent_skills._trust``'s.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from .._confine import contains
from .._core import AgentSkills
from .._diagnostics import EntryStatus
from .._errors import SkillError
from .._trust import TrustStore
from ._app import CliErrorCode, emit_json, fail, json_option, safe
from ._roots import FILE_PATH, PATH, trust_store, with_skills

__all__ = ["trust_command"]

#: The report statuses of a workspace skill that ``trust`` approves (SPEC §23.4).
APPROVABLE = (EntryStatus.LOADED, EntryStatus.SHADOWED, EntryStatus.UNTRUSTED)


@click.command("trust")
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
@json_option
@with_skills()
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
            if entry.status not in APPROVABLE:
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
    for message in failed:
        click.echo(safe(message), err=True)
    if failed:
        raise click.exceptions.Exit(1)
