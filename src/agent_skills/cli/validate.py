"""``validate``: check skills strictly against the Agent Skills specification (SPEC §15, §16,
§21.4).

Owns which skills a PATH names (a skill, a manifest, or a directory that holds skills, searched
by the one nested walk) and how problems are printed; the rules are ``agent_skills.validate``'s.
The validator loads with this command only (SPEC §26).
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from .._config import SkillRoot
from .._model import is_hidden, is_manifest_name
from .._walk import HELD_DEPTH, plain_candidates, walk_root
from ..validate import (
    PROFILES,
    Problem,
    ProblemCode,
    Profile,
    Severity,
    find_manifest,
    validate_skill,
)
from ._app import emit_json, safe
from ._group import json_option
from ._roots import PATH

__all__ = ["validate_command"]


def _project_skill_folders() -> list[str]:
    """The project folders of every client layout (``.agents/skills``, ``.claude/skills``, ...;
    SPEC §21.1), relative to a project directory."""
    from .._presets import CLIENT_LAYOUTS

    layouts = CLIENT_LAYOUTS.values()
    return sorted({item.rel for layout in layouts for item in layout if item.base != "home"})


def _skills_held(path: Path) -> list[Path]:
    """The skill directories a directory that is not a skill holds: below it down to
    :data:`HELD_DEPTH` (the nested-discovery rules of SPEC §21.4: hidden folders,
    ``node_modules`` and ``.gitignore``d paths are not searched), then in each known client
    folder it has (``.agents/skills``, ``.claude/skills``, ...)."""
    bases = [(path, HELD_DEPTH)]
    bases += [(path / rel, 1) for rel in _project_skill_folders() if (path / rel).is_dir()]
    found: list[Path] = []
    for base, depth in bases:
        scan = walk_root(SkillRoot(base), follow_symlinks=True, max_depth=depth)
        held = plain_candidates(scan)
        found.extend(c.dir for c in held if c.manifest and not is_hidden(c.dir.name))
    return found


def _expand_validate_path(path: Path) -> list[Path]:
    """A skill dir, a manifest file (its directory), or a directory that holds skills (each of
    them, see :func:`_skills_held`); a directory holding none is returned as is."""
    if path.is_file() and is_manifest_name(path.name):
        return [path.parent]
    if not path.is_dir() or find_manifest(path) is not None:
        return [path]
    return _skills_held(path) or [path]


def _holds_nothing(path: Path) -> bool:
    return path.is_dir() and find_manifest(path) is None


def _nothing_held(path: Path) -> Problem:
    """The problem of a directory that is neither a skill nor holds one."""
    folders = ", ".join(_project_skill_folders())
    return Problem(
        Severity.ERROR,
        ProblemCode.MANIFEST_MISSING,
        f"no skill found in {path}: it has no SKILL.md, and none below it (down to "
        f"{HELD_DEPTH} levels) nor in {folders}",
    )


_profile_option = click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default="spec",
    show_default=True,
    help="spec: the specification; portable: also what MCP hosts accept, as the MCP server "
    "publishes (exactly SKILL.md, no BOM, the YAML the TypeScript client reads, UTF-8 paths "
    "that do not collide; ASCII names as warnings); anthropic: also the upload rules.",
)


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=PATH)
@json_option
@click.option("--warnings-as-errors", is_flag=True, help="Exit 1 when any warning is found too.")
@_profile_option
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
        emit_json([{"path": str(t), "problems": [p.to_dict() for p in ps]} for t, ps in results])
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
    return safe(f"{where}: {problem.severity.value} {problem.code} {problem.message}")
