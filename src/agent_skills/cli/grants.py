"""``grants`` and ``sandbox``: what a host needs to read your skills' files, and a process that can
read the project and the skills and nothing else of your files (SPEC §28.1-§28.4).

Owns the options and what is printed; which skills are granted is the facade's
(``AgentSkills.grants``), every host's format, the merge into host settings and the Landlock
rule set are ``agent_skills.grants``'. That module loads with these commands only (SPEC §26).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from .._confine import contains
from .._core import AgentSkills
from .._errors import ErrorCode, SkillError
from .._model import GrantSet
from ..grants import (
    HOST_ALIASES,
    HOSTS,
    SETTINGS_FILES,
    host_name,
    landlock_abi,
    render_grants,
    restrict_current_process,
    sandbox_rules,
    write_grants,
)
from ._app import PROG, CliErrorCode, emit_json, fail, note, safe, warn
from ._roots import DIR_PATH, PATH, expand_user, with_skills

__all__ = ["grants_command", "sandbox_command"]


_host_option = click.option(
    "--for",
    "host",
    type=click.Choice([*HOSTS, *HOST_ALIASES]),
    default="json",
    show_default=True,
    metavar="HOST",
    callback=lambda ctx, param, value: host_name(value),
    help="The host whose format to print: json, claude (Claude Code, also claude-code), codex, "
    "gemini (Gemini CLI, also gemini-cli), opencode, openai-agents (SandboxPathGrant), bwrap, "
    "docker, seatbelt.",
)


#: What each reason of ``GrantSet.left_out`` means, for the warning the CLI prints.
_LEFT_OUT = {
    "stale_skill": "its directory changed since discovery",
    "archived_skill": "an archived skill has no directory to grant",
    "single_file_skill": "a single-file skill has no directory to grant",
    "untrusted": "its files changed since approval",
}


def _skill_grants(skills: AgentSkills, names: Sequence[str]) -> GrantSet:
    """The grants of every merged skill, or of ``names``; each skill left out is a warning."""
    grants = skills.grants(list(names) if names else None)
    for skill, reason in grants.left_out:
        why = _LEFT_OUT.get(reason, "its directory cannot be reached now")
        warn(reason, f"skill '{skill}' left out of the grants: {why}")
    return grants


@click.command("grants", short_help="Print what a host needs to read your skills' files.")
@_host_option
@click.option(
    "--args",
    "as_args",
    is_flag=True,
    help="With --for gemini: the --include-directories argument instead of the settings object.",
)
@click.option(
    "--skill", "names", multiple=True, metavar="NAME", help="Grant only this skill (repeatable)."
)
@click.option(
    "--write",
    is_flag=True,
    help="Merge the grants into the host's settings file in the workspace (claude: "
    ".claude/settings.local.json, gemini: .gemini/settings.json, opencode: opencode.json).",
)
@click.option(
    "--prune",
    is_flag=True,
    help="With --write: also remove the entries this command writes whose skill folder is gone.",
)
@with_skills()
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
    if as_args and host != "gemini":
        fail(CliErrorCode.USAGE_ERROR, "--args applies to --for gemini only", 2)
    if prune and not write:
        fail(CliErrorCode.USAGE_ERROR, "--prune applies to --write only", 2)
    if write and as_args:
        fail(CliErrorCode.USAGE_ERROR, "--args prints an argument; it cannot be written", 2)
    grants = _skill_grants(skills, names)
    if not grants and not grants.left_out:
        note(f"no skills to grant (see `{PROG} report`)")
    if not write:
        text = render_grants(grants, host, args=as_args)
        if text:
            click.echo(text)
        return
    workspace = skills.config.workspace_dir
    existed = host in SETTINGS_FILES and os.path.lexists(workspace / SETTINGS_FILES[host])
    result = write_grants(grants, host, workspace=workspace, prune=prune)
    click.echo(safe(f"{result.path}: {_write_counts(result.added, result.removed, result.kept)}"))
    for entry in result.added:
        click.echo(safe(f"  + {entry}"))
    for entry in result.removed:
        click.echo(safe(f"  - {entry}"))
    if result.changed and not existed and _visible_to_git(workspace, result.path):
        rel = os.path.relpath(result.path, workspace)
        note(
            f"{rel} holds paths of this machine and git does not ignore it; keep it out of "
            f"git: echo {rel} >> .git/info/exclude"
        )


def _write_counts(added: Sequence[str], removed: Sequence[str], kept: Sequence[str]) -> str:
    """What ``grants --write`` did, each count named: entries of these grants added, entries
    of gone skill folders pruned, entries of these grants the file held already."""

    def entries(items: Sequence[str]) -> str:
        return f"{len(items)} grant {'entry' if len(items) == 1 else 'entries'}"

    if not added and not removed:
        return f"unchanged ({entries(kept)} already there)" if kept else "unchanged (no grants)"
    parts = [(added, "added"), (removed, "pruned (folder gone)"), (kept, "already there")]
    shown = [(items, what) for items, what in parts if items]
    first, *rest = shown
    return ", ".join([f"{entries(first[0])} {first[1]}", *(f"{len(i)} {what}" for i, what in rest)])


def _visible_to_git(workspace: Path, path: Path) -> bool:
    """Whether ``path`` lies in a git work tree that does not ignore it (``git check-ignore``);
    ``False`` when git is missing, fails, or ``path`` is outside any work tree."""
    git = shutil.which("git")
    if git is None:
        return False
    try:
        done = subprocess.run(
            [git, "-C", os.fspath(workspace), "check-ignore", "-q", "--", os.fspath(path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 1  # 0 ignored, 128 not a work tree (or another failure)


@click.command(
    "sandbox",
    context_settings={"allow_interspersed_args": False},
    short_help="Run COMMAND able to read the project and skills, not ~/.ssh.",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="-- COMMAND [ARGS]...")
@click.option(
    "--project",
    type=DIR_PATH,
    default=None,
    help="The folder COMMAND may read and write [default: the workspace].",
)
@click.option(
    "--read",
    "read_paths",
    multiple=True,
    type=PATH,
    metavar="PATH",
    help="Also make PATH readable (and executable) (repeatable).",
)
@click.option(
    "--write",
    "write_paths",
    multiple=True,
    type=PATH,
    metavar="PATH",
    help="Also make PATH readable and writable, such as a host's own state folder "
    "(~/.claude, ~/.codex) (repeatable).",
)
@click.option("--no-skills", is_flag=True, help="Grant no skill.")
@click.option(
    "--skill", "names", multiple=True, metavar="NAME", help="Grant only this skill (repeatable)."
)
@click.option("--dry-run", is_flag=True, help="Print the rule set as JSON; run nothing.")
@with_skills()
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
    if not command:
        fail(
            CliErrorCode.USAGE_ERROR,
            "missing COMMAND: agent-skills sandbox [OPTIONS] -- COMMAND",
            2,
        )
    if no_skills and names:
        fail(CliErrorCode.USAGE_ERROR, "--no-skills and --skill exclude each other", 2)
    grants = () if no_skills else _skill_grants(skills, names)
    where = os.fspath(project) if project is not None else os.fspath(skills.config.workspace_dir)
    rules = sandbox_rules(
        grants,
        project=expand_user(Path(where)),
        read=[expand_user(p) for p in read_paths],
        write=[expand_user(p) for p in write_paths],
        command=command[0],
    )
    home = os.path.realpath(os.path.expanduser("~"))
    for rule in rules.rules:
        if contains(os.fspath(rule.path), home):  # a project, PATH entry or --read holding ~
            how = "readable and writable" if "write" in rule.access else "readable"
            warn(
                "rule_holds_home",
                f"{rule.path} ({', '.join(rule.reasons)}) holds your home folder: all of it is "
                f"{how} in the sandbox",
            )
    for code, message in rules.warnings:
        warn(code, message)
    if dry_run:
        if rules.command is None:
            warn(
                "command_not_found",
                f"{command[0]}: command not found on PATH (a real run exits 127)",
            )
        abi, reason = landlock_abi()
        shown = rules.to_dict()
        shown["argv"] = list(command)
        shown["landlock"] = {"abi": abi, "available": reason is None, "reason": reason}
        emit_json(shown)
        return
    if rules.command is None:
        fail("command_not_found", f"{command[0]}: command not found", 127)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        restrict_current_process(rules)
    except SkillError as exc:
        if exc.code == ErrorCode.SANDBOX_UNAVAILABLE:
            fail(exc.code.value, exc.message, 2)
        raise
    try:
        os.execv(rules.command, list(command))
    except OSError as exc:
        import errno

        not_found = exc.errno == errno.ENOENT
        fail(
            "command_not_run",
            f"{command[0]}: cannot run it in the sandbox: {exc.strerror or exc}",
            127 if not_found else 126,
        )
