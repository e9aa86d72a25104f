"""The grants of a snapshot: which skill directories a host may be told to read (SPEC §28.1).

Not owned here: whether a pin still holds (``SkillRegistry.verify_dir``, from ``_confine``),
whether a gated skill is still as approved (``AgentSkills.still_approved``, from ``_trust``), which
skills are merged at all (``_registry``), how a grant is written for a host (``grants``). This
module only puts those answers together into a :class:`~agent_skills.GrantSet`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ._args import coerce_name
from ._errors import ErrorCode, SkillError, invalid_input
from ._model import Grant, GrantSet
from ._registry import unknown_skill

if TYPE_CHECKING:
    from ._registry import SkillRegistry

__all__ = ["ARCHIVED", "SINGLE_FILE", "STALE", "UNTRUSTED", "grant_list", "grants_of"]

#: Why a merged skill is left out of the grants (SPEC §28.1).
STALE = "stale_skill"
ARCHIVED = "archived_skill"
UNTRUSTED = "untrusted"
#: A single-file skill has no directory; its body comes with its activation (SPEC §29.2).
SINGLE_FILE = "single_file_skill"


def grants_of(
    registry: SkillRegistry,
    names: Iterable[str] | None,
    still_approved: Callable[[str], bool],
) -> GrantSet:
    """The grants of the merged skills of ``registry`` (SPEC §28.1).

    Each skill's pin is verified now, and its discovered path must still lead to it
    (``verify_dir``): a grant is right when returned.

    Args:
        registry: The snapshot.
        names: Skill names to grant (each must be merged), or ``None`` for every merged skill.
            Either way the grants come sorted as SPEC §8; a name given twice is granted once.
        still_approved: The trust rule for a merged skill's name (``AgentSkills.still_approved``).

    Returns:
        A :class:`~agent_skills.GrantSet`: the grants, the ``(skill, reason)`` pairs left out
        (``stale_skill``, ``archived_skill``, ``single_file_skill``, ``untrusted``; the error
        code, such as
        ``io_error``, when the directory cannot be reached now for another reason), the
        configured roots.

    Raises:
        SkillError: ``invalid_input`` for a name that is not a ``str`` (or ``names`` being a
            ``str``); ``not_found`` ``{name}`` (with suggestions) for a name no merged skill has.
    """
    if names is None:
        listed = registry.list()
    else:
        if isinstance(names, str):
            raise invalid_input(
                "names must be a sequence of skill names, not one str", {"names": names}
            )
        wanted = {coerce_name(name) for name in names}
        # Every merged skill, a gated one a read found changed included: named, it is left out
        # as untrusted rather than unknown.
        merged = [skill.info for skill in registry.skills]
        known = {info.name for info in merged}
        for name in sorted(wanted):
            if name not in known:
                raise unknown_skill(name, [info.name for info in registry.list()])
        listed = [info for info in merged if info.name in wanted]
    grants: list[Grant] = []
    left_out: list[tuple[str, str]] = []
    for info in listed:
        name = info.name
        if not registry.admits(name):
            left_out.append((name, UNTRUSTED))
            continue
        if registry.archived(name) is not None:
            left_out.append((name, ARCHIVED))
            continue
        if info.single_file:
            left_out.append((name, SINGLE_FILE))
            continue
        try:
            pin = registry.verify_dir(name)
        except SkillError as err:
            # stale_skill, or the code of what else keeps the directory from being reached now
            left_out.append((name, err.code.value))
            continue
        if not still_approved(name):
            left_out.append((name, UNTRUSTED))
            continue
        grants.append(Grant(name, Path(os.path.abspath(info.dir)), Path(pin.real_dir)))
    roots = tuple(root.path for root in registry.config.roots)
    return GrantSet(tuple(grants), tuple(left_out), roots)


def grant_list(grants: object) -> list[Grant]:
    """``grants`` (a :class:`~agent_skills.GrantSet` or any iterable of
    :class:`~agent_skills.Grant`) as a list, checked before anything is written for a host
    (SPEC §28.2).

    Raises:
        SkillError: ``invalid_input`` ``{type}`` for anything else, or an item that is no
            ``Grant``.
    """
    if isinstance(grants, Grant) or not isinstance(grants, Iterable):
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            f"grants must be a GrantSet or a sequence of Grant, got {type(grants).__name__}",
            {"type": type(grants).__name__},
        )
    items = list(grants)
    for item in items:
        if not isinstance(item, Grant):
            raise SkillError(
                ErrorCode.INVALID_INPUT,
                f"grants must hold Grant objects, got {type(item).__name__}",
                {"type": type(item).__name__},
            )
    return items
