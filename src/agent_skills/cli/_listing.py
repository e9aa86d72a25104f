"""What ``list`` says (SPEC §16, §21.4, §29.7): the active skills sorted by name, the skills a
trust store or ``--disable``/``--only`` held back, the list as JSON. Imports no click: the
``list`` command of :mod:`.discover` and :mod:`._fast` say it the same way.
"""

from __future__ import annotations

from .._core import AgentSkills
from .._diagnostics import EntryStatus
from .._model import SkillInfo
from ._app import PROG, emit_json, warn

__all__ = ["emit_list_json", "listed_skills"]


def listed_skills(skills: AgentSkills) -> list[SkillInfo]:
    """The active skills sorted by name (``list_skills``), after a warning on how many skills
    were found but held back, if any (``held_back``)."""
    infos = skills.list_skills()
    _say_held_back(skills, {info.name for info in infos})
    return infos


def emit_list_json(infos: list[SkillInfo]) -> None:
    """Write ``list --json``: each skill's ``SkillInfo.to_dict`` in a JSON list on stdout."""
    emit_json([info.to_dict() for info in infos])


def _say_held_back(skills: AgentSkills, served: set[str]) -> None:
    """Say on stderr how many skills a trust store, ``--disable`` or ``--only`` kept out of the
    list (skills found but not served under any copy), so a shorter list is never a mystery."""
    held: dict[EntryStatus, set[str]] = {EntryStatus.UNTRUSTED: set(), EntryStatus.DISABLED: set()}
    for entry in skills.report().entries:
        if entry.status in held and entry.name is not None and entry.name not in served:
            held[entry.status].add(entry.name)
    untrusted, disabled = (
        held[EntryStatus.UNTRUSTED],
        held[EntryStatus.DISABLED] - held[EntryStatus.UNTRUSTED],
    )
    if not untrusted and not disabled:
        return
    parts = []
    if untrusted:
        parts.append(f"{len(untrusted)} not approved in the trust store (see `{PROG} trust`)")
    if disabled:
        parts.append(f"{len(disabled)} disabled (--disable, --only)")
    total = len(untrusted) + len(disabled)
    skill_word = "skill" if total == 1 else "skills"
    warn("held_back", f"{total} {skill_word} not listed: {'; '.join(parts)}; see `{PROG} report`")
