"""The agent's file-access policy: what a sandboxed agent may read (SPEC §14, §20.1, §23.3, §25.1).

A :class:`~agent_skills.agent.SkillSession` applies it to every path the model asks its file tools
to open: the real project root, and the real directories of the skills activated in the session,
each still the directory it was activated in; a gated skill's file only as its approval covers
it. Containment is ``_confine``'s (:func:`~agent_skills._confine.contains`); what a skill is now,
and its reads, are the facade's (``AgentSkills.served``). It holds no state: the session passes
its activated skills in.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ._args import coerce_path
from ._confine import Pin, contains, real_path, verify_pin
from ._core import AgentSkills, ServedSkill
from ._errors import ErrorCode, SkillError
from ._grant import ARCHIVED, SINGLE_FILE, STALE, UNTRUSTED
from ._model import Grant, GrantSet

__all__ = ["check_read", "granted", "readable_roots", "session_grants"]


def check_read(
    skills: AgentSkills,
    project_root: Path | None,
    active: Sequence[tuple[str, Pin]],
    path: str | os.PathLike[str],
) -> Path:
    """Decide whether the agent may read ``path`` (SPEC §14): see
    :meth:`~agent_skills.agent.SkillSession.check_read`.

    Args:
        skills: The skills served.
        project_root: The session's real project root, or ``None``.
        active: The activated skills, in activation order, with the directories they were
            activated in.
        path: The path the model asked for.

    Returns:
        The real path. A path whose links cannot be resolved within 40 hops (a loop, a long
        chain) is refused whatever it names (SPEC §30.6).

    Raises:
        SkillError: ``invalid_input`` for a non-path, an empty path or one holding NUL;
            ``not_a_file`` ``{name, rel, archive}`` for a path inside an activated archived
            skill (its files have no path, SPEC §25.1); ``access_denied`` ``{path}`` otherwise.
    """
    text = coerce_path(path, "path", usable=True)
    denied = SkillError(
        ErrorCode.ACCESS_DENIED,
        f"Access denied: {text} is outside the readable roots",
        {"path": text},
    )
    if os.path.isabs(text):
        candidate = text
    elif project_root is not None:
        candidate = os.path.join(project_root, text)
    else:
        raise denied
    try:
        real = real_path(candidate)
    except (OSError, ValueError, SkillError):
        raise denied from None
    if real is None:  # SPEC §30.6: links that cannot be resolved within 40 hops
        raise denied
    served = [(name, pin, skills.served(name)) for name, pin in active]
    for _, pin, skill in served:
        if skill is not None and skill.archived and contains(pin.real_dir, real):
            skill.resource_path(_rel_of(real, pin))  # raises the archive's not_a_file
    for name, pin, skill in served:
        if skill is not None and skill.gated and contains(pin.real_dir, real):
            # SPEC §23.3: a gated skill's file is approved only as its approval covers it,
            # with the approved bytes (read now through the pin; a mismatch marks the
            # skill changed since approval), wherever the skill lies.
            try:
                if not _fresh(pin, name) or skill.pin != pin:
                    raise denied
                skill.read(_rel_of(real, pin))
            except SkillError:
                raise denied from None
            return Path(real)
    if project_root is not None and contains(os.fspath(project_root), real):
        return Path(real)
    for name, pin, _ in served:
        if contains(pin.real_dir, real) and _fresh(pin, name):
            return Path(real)
    raise denied


def readable_roots(
    skills: AgentSkills, project_root: Path | None, active: Sequence[tuple[str, Pin]]
) -> list[str]:
    """The directories the agent may read (SPEC §14): the real project root (if any) first, then
    the pinned real directory of every activated skill, in activation order, each once; a skill
    whose directory was replaced since activation is left out (each pin is verified now, SPEC
    §20.1), and so is an archived skill (no directory, SPEC §25.1) and a gated skill whose files
    no longer match its approval (hashed now, SPEC §23.3)."""
    roots = [os.fspath(project_root)] if project_root is not None else []
    for name, pin in active:
        skill = skills.served(name)
        if skill is not None and (skill.archived or skill.info.single_file):
            continue  # no directory (SPEC §25.1, §29.2)
        if pin.real_dir not in roots and _fresh(pin, name) and granted(skill, pin):
            roots.append(pin.real_dir)
    return roots


def session_grants(skills: AgentSkills, active: Sequence[tuple[str, Pin, Path]]) -> GrantSet:
    """The read grants of a session's activated skills, in activation order (SPEC §28.1,
    §28.5): see :meth:`~agent_skills.agent.SkillSession.grants`.

    Args:
        skills: The skills served.
        active: The activated skills: name, the directory activated in, the directory shown.
    """
    grants: list[Grant] = []
    left_out: list[tuple[str, str]] = []
    for name, pin, shown in active:
        skill = skills.served(name)
        if skill is not None and skill.archived:
            left_out.append((name, ARCHIVED))
        elif skill is not None and skill.info.single_file:
            left_out.append((name, SINGLE_FILE))
        elif not _fresh(pin, name):
            left_out.append((name, STALE))
        elif not granted(skill, pin):
            left_out.append((name, UNTRUSTED))
        else:
            grants.append(Grant(name, shown, Path(pin.real_dir)))
    roots = tuple(root.path for root in skills.config.roots)
    return GrantSet(tuple(grants), tuple(left_out), roots)


def granted(skill: ServedSkill | None, pin: Pin) -> bool:
    """Whether an activated skill may be granted as a directory: not gated, or still as approved
    (SPEC §23.3), and served now from the directory it was activated in (``pin``)."""
    if skill is None:
        return True  # (not served now: nothing of it is read through the facade)
    if not skill.gated:
        return True
    try:
        return skill.pin == pin and skill.still_approved()
    except SkillError:
        return False


def _fresh(pin: Pin, name: str) -> bool:
    """True when the pinned directory is still the one activated (SPEC §20.1)."""
    try:
        verify_pin(pin, name)
    except SkillError:
        return False
    return True


def _rel_of(real: str, pin: Pin) -> str:
    return os.path.relpath(real, pin.real_dir).replace(os.sep, "/")
