"""The package commands: ``pack``, ``lock``, ``verify``, ``add``, ``update`` and ``remove``
(SPEC §25).

Owns the options, where a command line installs (``--to``, ``--client``) and what it prints;
packing, locking, verifying and installing are ``agent_skills.packages``'.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from .._config import SkillRoot
from .._core import AgentSkills
from .._errors import SkillError
from .._presets import client_skill_roots
from ..packages import (
    Installed,
    install_skills,
    lock_held,
    lock_path,
    lock_scopes,
    lock_skills,
    pack_skill,
    parse_source,
    pending_journals,
    read_lock,
    recover_roots,
    remove_skill,
    scoped_skills,
    update_skills,
    verify_lock,
    write_lock,
)
from ._app import PROG, CliErrorCode, echo_stderr, emit_json, fail, safe, warn
from ._group import json_option
from ._roots import FILE_PATH, PATH, warnings_to_stderr, with_package_skills

__all__ = [
    "add_command",
    "lock_command",
    "pack_command",
    "remove_command",
    "update_command",
    "verify_command",
]

_F = TypeVar("_F", bound=Callable[..., Any])


def _install_root(
    skills: AgentSkills, workspace: Path, scope: str, client: str | None
) -> SkillRoot:
    """The root ``add`` installs into: ``.agents/skills`` of the scope, or with a client, that
    client's highest-precedence root of the scope read literally from SPEC §21.1 (§25.5)."""
    lib_scope = "user" if scope == "user" else "workspace"
    config = skills.config
    if client is not None:
        roots = client_skill_roots(client, workspace=workspace, home=config.home)
        chosen = [r for r in roots if r.scope == lib_scope]
        if not chosen:
            fail(CliErrorCode.USAGE_ERROR, f"client {client!r} has no {scope} skill root", 2)
        return chosen[-1]
    base = config.home if lib_scope == "user" else workspace
    return SkillRoot(base / ".agents" / "skills", lib_scope, "agents")  # type: ignore[arg-type]


def _place(
    skills: AgentSkills, workspace: Path, scope: str, client: str | None
) -> tuple[SkillRoot, Path, Path]:
    """The root a command installs into, the scope's lock and the folder below which no link
    may lead to the root: the workspace for the project scope, the home folder for the user's
    (SPEC §25.4, §30). When the workspace is the home folder (a command run at home outside any
    repository, or a repository of the home folder), the project's roots are the user's: each
    path counts once, with the scope of its first place, the user's (SPEC §21.13), so the
    project scope is the user scope, its root, lock and base, and ``lock``, ``verify`` and
    discovery agree with what was installed."""
    home = skills.config.home
    if scope != "user" and os.path.abspath(workspace) == os.path.abspath(home):
        scope = "user"
    root = _install_root(skills, workspace, scope, client)
    return root, lock_path(home, workspace, scope), home if scope == "user" else workspace


def _warn_shadowed(skills: AgentSkills, installed: Sequence[Installed]) -> None:
    """Warn when discovery serves another copy of an installed name instead of the new one."""
    served = {info.name: info for info in AgentSkills(skills.config).list_skills()}
    for item in installed:
        info = served.get(item.name)
        if info is None or os.path.realpath(info.dir) == os.path.realpath(item.dir):
            continue
        echo_stderr(
            safe(
                f"warning: {item.name} installed in {item.dir} is shadowed by {info.dir} "
                f"({info.source}, higher precedence): that copy is the one served"
            )
        )


@click.command("pack", short_help="Pack a skill folder into a reproducible .skill archive.")
@click.argument("skill_dir", type=PATH)
@click.option(
    "-o",
    "--output",
    type=FILE_PATH,
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
    path = pack_skill(skill_dir, output)
    click.echo(f"packed {skill_dir} into {path}")


@click.command("lock", short_help="Write skills.lock.json: the project skills' file digests.")
@click.option(
    "--output",
    type=FILE_PATH,
    default=None,
    help="Lock file to write [default: <workspace>/skills.lock.json].",
)
@click.option(
    "--all", "all_roots", is_flag=True, help="Lock every root, user roots too (not for CI)."
)
@with_package_skills()
def lock_command(
    skills: AgentSkills, workspace: Path, output: Path | None, all_roots: bool
) -> None:
    """Write skills.lock.json: every project skill's files with their sha256 digests.

    Only workspace-scope roots are locked unless --all, so a check in CI never depends on a
    developer's own user skills. Origins recorded by `add` are kept. An add, update or remove
    of the project that was killed is finished or undone first, as the next of them would.

    \b
    Examples:
      agent-skills lock
      agent-skills lock --output ci/skills.lock.json
    """
    project_lock = lock_path(skills.config.home, workspace, "project")
    target = output if output is not None else project_lock
    with lock_held(target):  # an install's entry is never lost between the read and the write
        if os.path.abspath(target) == os.path.abspath(project_lock):
            # What a killed add, update or remove of the project left is finished or undone
            # first, as the next of them would do (SPEC §25.4): never recorded half done.
            roots = [root.path for root in skills.config.roots if root.scope == "workspace"]
            recover_roots(roots, lock=project_lock, workspace=workspace)
        origins: dict[str, Any] = {}
        if target.exists():
            try:
                previous = read_lock(target)
            except SkillError:
                previous = {"skills": []}
            origins = {e["dir"]: e["origin"] for e in previous["skills"] if "origin" in e}
        scoped = scoped_skills(skills, None if all_roots else ["workspace"])
        _warn_unfinished([root.path for root in scoped.config.roots])  # (any not recovered)
        lock = lock_skills(scoped, workspace=workspace, origins=origins)
        write_lock(target, lock, held=True)
    count = len(lock["skills"])
    click.echo(f"locked {count} skill{'s' if count != 1 else ''} in {target}")


@click.command("verify", short_help="Check installed skills against skills.lock.json.")
@click.option(
    "--lock",
    "lock_file",
    type=FILE_PATH,
    default=None,
    help="Lock file to check [default: <workspace>/skills.lock.json].",
)
@json_option
@with_package_skills()
def verify_command(
    skills: AgentSkills, workspace: Path, lock_file: Path | None, as_json: bool
) -> None:
    """Check the installed skills against skills.lock.json; exit 1 on any drift.

    Prints every added, removed and changed skill, and for a changed skill every added, removed
    and changed file. Hidden and other unlisted files do not count. A root left mid-change by a
    killed add, update or remove is named in a warning (verify changes nothing). JSON: {lock,
    ok, drift: [{name, status, dir, files: [{status, path}], moved_from}]}.

    \b
    Examples:
      agent-skills verify
      agent-skills verify --lock ci/skills.lock.json --json
    """
    target = (
        lock_file if lock_file is not None else lock_path(skills.config.home, workspace, "project")
    )
    if not target.exists():
        # Nothing to compare with: a usage problem, not drift (exit 2).
        fail(
            CliErrorCode.USAGE_ERROR,
            f"no lock file at {target}: write one with `{PROG} lock` first",
            2,
        )
    with lock_held(target, shared=True):  # never half of an add, update or remove
        lock = read_lock(target)
        scopes = sorted(lock_scopes(lock))
        _warn_unfinished([root.path for root in skills.config.roots if root.scope in scopes])
        scoped = scoped_skills(skills, scopes)
        current = lock_skills(scoped, workspace=workspace)
    drift = verify_lock(lock, current)
    if as_json:
        emit_json({"lock": str(target), "ok": not drift, "drift": [d.to_dict() for d in drift]})
    else:
        for item in drift:
            where = f" (moved from {item.moved_from})" if item.moved_from else ""
            click.echo(safe(f"{item.status} skill {item.name}: {item.dir}{where}"))
            for change in item.files:
                click.echo(safe(f"  {change.status} {change.path}"))
        count = len(lock["skills"])
        if drift:
            click.echo(f"{target}: {len(drift)} skill(s) differ from the lock", err=True)
        else:
            verb = "skill matches" if count == 1 else "skills match"
            click.echo(f"{target}: {count} {verb} the lock")
    if drift:
        raise click.exceptions.Exit(1)


def _warn_unfinished(roots: Sequence[Path]) -> None:
    """Warn of each root holding a transaction a kill left unfinished: what is read there may
    be half of an install. It changes nothing (the next ``add``, ``update`` or ``remove`` into
    the root finishes or undoes it; so does ``lock`` for the project's roots, SPEC §25.4)."""
    for root in roots:
        journals = pending_journals(root)
        if journals:
            shown = ", ".join(journals[:3]) + (", ..." if len(journals) > 3 else "")
            warn(
                "unfinished_install",
                f"{root} holds {len(journals)} unfinished add, update or remove ({shown}): "
                "what is there may be half installed; the next add, update or remove into "
                f"it finishes or undoes it (`{PROG} lock` does for the project's roots)",
            )


def install_options(verb: str) -> Callable[[_F], _F]:
    """``--to`` and ``--client`` of ``add`` (``verb`` "Install into"), ``update`` ("Update the
    skills installed in") and ``remove`` ("Remove from"): the same places, each help saying
    what that command does there."""

    def decorate(fn: _F) -> _F:
        options = [
            click.option(
                "--to",
                "scope",
                type=click.Choice(["project", "user"]),
                default="project",
                show_default=True,
                help=f"{verb} project: <workspace>/.agents/skills, or user: ~/.agents/skills.",
            ),
            click.option(
                "--client",
                default=None,
                metavar="NAME",
                help=f"{verb} this client's highest-precedence root of that scope (see "
                "docs/packages.md).",
            ),
        ]
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def _report_installed(installed: Sequence[Installed], verb: str, lock: Path) -> None:
    for item in installed:
        for code, message in item.warnings:
            warn(code, message)
        action = "replaced" if item.replaced and verb == "installed" else verb
        versions = ""
        if verb == "updated":
            old, new = item.previous_version or "unversioned", item.version or "unversioned"
            if item.unchanged:
                action = "unchanged"
                versions = f" ({new})" if item.version else ""
            elif old == new:
                versions = f" ({new}, files changed)" if item.version else ""
            else:
                versions = f" ({old} -> {new})"
        # The versions next to the name, the folder last: a long path wraps at its end.
        click.echo(safe(f"{action} {item.name}{versions} in {item.dir}"))
    click.echo(safe(f"lock: {lock}"))


@click.command("add", short_help="Install skills from a folder, an archive or a git repository.")
@click.argument("source")
@click.option(
    "--skill", "names", multiple=True, metavar="NAME", help="Install only this skill (repeatable)."
)
@install_options("Install into")
@click.option("--force", is_flag=True, help="Replace skills already installed.")
@with_package_skills(warnings=False)
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

    SOURCE is read by its form alone: a URL (scheme://..., or git's host:path) is a git
    repository, with an optional //SUBDIR and #REF (a branch, tag or commit); anything else
    is a local path: a .zip/.skill/.tar.gz/.tgz archive, a directory (a skill, or a folder of
    skills), or with #REF a local git repository. Credentials in a URL are used for this
    clone only: never written to the lock or shown. Every skill found (or each --skill) is
    validated, copied with its executable bits and renamed into place; the scope's lock
    (skills.lock.json) records where it came from. The install root must not be reached
    through a link.

    \b
    Examples:
      agent-skills add ./vendor/skills
      agent-skills add https://github.com/acme/skills//pdf-tools#v1.2.0
      agent-skills add pdf-tools.skill --to user --force
    """
    parsed = parse_source(source)
    root, lock, base = _place(skills, workspace, scope, client)
    with warnings_to_stderr():  # (the recovery's: journals set aside or left)
        installed = install_skills(
            parsed, root, names=names, force=force, lock=lock, workspace=workspace, base=base
        )
    _report_installed(installed, "installed", lock)
    _warn_shadowed(skills, installed)


@click.command("update", short_help="Re-install skills from the origin their lock recorded.")
@click.argument("names", nargs=-1)
@install_options("Update the skills installed in")
@click.option(
    "--force",
    is_flag=True,
    help="Re-install a skill even over its local edits (files changed or added since).",
)
@click.option(
    "--allow-downgrade", is_flag=True, help="Install a lower version than the one installed."
)
@with_package_skills(warnings=False)
def update_command(
    skills: AgentSkills,
    workspace: Path,
    names: tuple[str, ...],
    scope: str,
    client: str | None,
    force: bool,
    allow_downgrade: bool,
) -> None:
    """Re-install skills from the origin recorded in the scope's lock (all without NAME).

    Only skills the lock shows were installed in the root are updated. A skill with local
    edits (files changed or added since it was installed) is refused unless --force, and a
    lower version (PEP 440) unless --allow-downgrade. Each update prints old -> new versions.
    Git credentials come from git's own helpers and the environment, never from the lock.

    \b
    Examples:
      agent-skills update
      agent-skills update pdf-tools --to user
    """
    root, lock, base = _place(skills, workspace, scope, client)
    if not names and not lock.exists():
        click.echo(safe(f"nothing to update: there is no lock at {lock}"))
        return
    with warnings_to_stderr():  # (the recovery's: journals set aside or left)
        installed = update_skills(
            root,
            names,
            lock=lock,
            workspace=workspace,
            base=base,
            force=force,
            allow_downgrade=allow_downgrade,
        )
    if not installed:
        click.echo(
            safe(f"nothing to update: {lock} records no install in {root.path} with an origin")
        )
        return
    _report_installed(installed, "updated", lock)


@click.command("remove")
@click.argument("name")
@install_options("Remove from")
@click.option(
    "--force",
    is_flag=True,
    help="Delete the skill even with local edits, or when the lock does not show it installed "
    "(a link is removed, never followed).",
)
@with_package_skills(warnings=False)
def remove_command(
    skills: AgentSkills,
    workspace: Path,
    name: str,
    scope: str,
    client: str | None,
    force: bool,
) -> None:
    """Remove an installed skill and its entry in the scope's lock.

    Only a skill the lock shows was installed there, unchanged since, is deleted: a folder
    written by hand, a link or a copy with local edits is refused unless --force (a link is
    then removed, never followed).

    \b
    Examples:
      agent-skills remove pdf-tools
      agent-skills remove pdf-tools --to user
    """
    root, lock, base = _place(skills, workspace, scope, client)
    with warnings_to_stderr():  # (the recovery's: journals set aside or left)
        removed = remove_skill(root, name, lock=lock, workspace=workspace, base=base, force=force)
    _report_installed([removed], "removed", lock)
