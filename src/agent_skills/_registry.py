"""The snapshot of discovered skills: :class:`SkillRegistry`, and the suggestions for a name that
is not found (SPEC §7-§10, §21.10).

An immutable value: lookups, and reads of a skill's files from the directory pinned at discovery
(SPEC §20.1). How it is built (scan, parse, precedence, the report) is ``_discover``'s; the skill
as served now, with trust and one snapshot per call, is the facade's (``_core``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ._args import coerce_name
from ._config import SkillConfig
from ._confine import (
    Pin,
    absolute,
    lexical_rel,
    open_in,
    pin_by_name,
    stat_in,
    verify_link,
    verify_pin,
)
from ._diagnostics import Diagnostic, DiscoveryReport, emit
from ._errors import ErrorCode, SkillError
from ._frozen import frozen_builder
from ._fs import lexical_child
from ._model import ResolvedSkill, SkillContent, SkillInfo, SkillResource, sort_key

if TYPE_CHECKING:
    from ._archive import ArchivedSkill
    from ._trust import Approval

# The archive reader (with zipfile, tarfile and the digests) and the resource walk load with
# their first use: discovery of plain folders needs neither (SPEC §26, light core).

__all__ = ["SkillRegistry", "suggest_files", "suggest_names", "unknown_skill"]


def suggest_names(name: str, known: Sequence[str]) -> list[str]:
    """Up to three known names closest to ``name`` (SPEC §21.10).

    Args:
        name: The name asked for.
        known: The names that exist.

    Returns:
        Names that equal ``name`` ignoring case first (in ``sort_key`` order), then names whose
        ``difflib`` ratio to ``name`` (both case-folded) is at least 0.6, best first (ties in
        ``sort_key`` order); never ``name`` itself; at most three.
    """
    return _closest(name, known, 3, lambda text: (text,))


def suggest_files(rel: str, listed: Sequence[str]) -> list[str]:
    """Up to five listed files of a skill closest to ``rel``, a path that was not found (SPEC
    §29.5).

    As :func:`suggest_names`, each file scored by the better of two ``difflib`` ratios: of the
    whole paths, and of their last components (``guide.md`` is close to
    ``references/guide.md``).

    Args:
        rel: The path asked for, relative to the skill directory.
        listed: The POSIX paths of the skill's files.

    Returns:
        At most five of ``listed``, best first; never ``rel`` itself.
    """
    return _closest(rel, listed, 5, lambda text: (text, text.rpartition("/")[2]))


def _closest(
    target: str, known: Sequence[str], limit: int, forms: Callable[[str], tuple[str, ...]]
) -> list[str]:
    """The ``known`` texts closest to ``target``: equal ignoring case first, then those with a
    ``difflib`` ratio of at least 0.6 between some form of each (case-folded), best first."""
    import difflib  # only a name that is not found pays for it (SPEC §26, light core)

    folded = target.casefold()
    same = sorted((k for k in known if k != target and k.casefold() == folded), key=sort_key)
    # One matcher per form of the target: the target's side is indexed once.
    matchers = [difflib.SequenceMatcher(b=f.casefold(), autojunk=False) for f in forms(target)]
    scored: list[tuple[float, str]] = []
    for k in known:
        if k == target or k in same:
            continue
        best = 0.0
        for matcher, theirs in zip(matchers, forms(k), strict=True):
            matcher.set_seq1(theirs.casefold())
            if matcher.real_quick_ratio() >= 0.6 and matcher.quick_ratio() >= 0.6:
                best = max(best, matcher.ratio())
        if best >= 0.6:
            scored.append((best, k))
    scored.sort(key=lambda item: (-item[0], *sort_key(item[1])))
    return [*same, *(k for _, k in scored)][:limit]


def unknown_skill(name: str, known: Sequence[str]) -> SkillError:
    """The ``not_found`` error for an unknown skill name (SPEC §11, §21.10).

    Returns:
        ``SkillError(not_found, "No such skill: <name>")`` with ``fields`` ``{name,
        suggestions}``: ``suggestions`` is always present, from :func:`suggest_names`. The
        message adds "did you mean ...?" when there are suggestions.
    """
    suggestions = suggest_names(name, known)
    message = f"No such skill: {name}"
    if suggestions:
        message += f" (did you mean {', '.join(suggestions)}?)"
    return SkillError(ErrorCode.NOT_FOUND, message, {"name": name, "suggestions": suggestions})


@dataclass(frozen=True, slots=True)
class SkillRegistry:
    """An immutable snapshot of discovered skills (SPEC §7-§10).

    Use :func:`discover_skills` to build one. ``len(registry)`` is the number of merged skills.
    """

    config: SkillConfig
    skills: tuple[ResolvedSkill, ...]
    report: DiscoveryReport
    _by_name: Mapping[str, ResolvedSkill] = field(repr=False, default_factory=dict)
    _approvals: Mapping[str, Approval] = field(repr=False, default_factory=dict)
    _archived: Mapping[str, ArchivedSkill] = field(repr=False, default_factory=dict)
    # What builds the fields above when first read (see deferred); None once built.
    _pending: Callable[[], SkillRegistry] | None = field(repr=False, compare=False, default=None)

    @classmethod
    def deferred(cls, config: SkillConfig, build: Callable[[], SkillRegistry]) -> SkillRegistry:
        """A registry whose fields but ``config`` are those of ``build()``'s registry, built
        when any of them is first read (once, under a lock: every reader sees the one
        snapshot). ``build`` makes objects from what discovery already read; it does no I/O
        that could change the snapshot (SPEC §8, §26)."""
        self = object.__new__(cls)
        _set(self, "config", config)
        _set(self, "_pending", build)
        return self

    def __getattr__(self, name: str) -> Any:
        # Only reached for a slot not set: a field of a deferred registry not built yet.
        if name in _DEFERRED:
            with _building:
                build = _get(self, "_pending")
                if build is not None:
                    built = build()
                    for field_name in _DEFERRED:
                        _set(self, field_name, _get(built, field_name))
                    _set(self, "_pending", None)
            return _get(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Diagnostics of the scan that built this snapshot (SPEC §7.4)."""
        return self.report.diagnostics

    def __len__(self) -> int:
        return len(self.skills)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._by_name and self.admits(name)

    def admits(self, name: str) -> bool:
        """Whether the merged skill ``name`` may be served now (SPEC §23.3): the trust store's
        rule (:meth:`~agent_skills.TrustStore.admits`) for a gated skill, ``True`` otherwise.
        No filesystem access."""
        approval = self._approvals.get(name)
        store = self.config.trust
        return approval is None or store is None or store.admits(approval)

    def withheld(self) -> list[SkillInfo]:
        """The merged skills a gated read found changed since approval (SPEC §23.3): served no
        more by this snapshot."""
        return [s.info for s in self.skills if not self.admits(s.info.name)]

    def list(self) -> list[SkillInfo]:
        """Every merged :class:`SkillInfo` that may be served (:meth:`admits`), sorted by
        ``(name.casefold(), name)``; a new list."""
        if not self._approvals:
            return [s.info for s in self.skills]
        return [s.info for s in self.skills if self.admits(s.info.name)]

    def lookup(self, name: str) -> ResolvedSkill | None:
        """The merged skill called ``name`` or ``None`` (also for a gated skill changed since
        approval, SPEC §23.3)."""
        if not isinstance(name, str):
            return None
        skill = self._by_name.get(name)
        return skill if skill is not None and self.admits(name) else None

    def merged(self, name: str) -> ResolvedSkill | None:
        """The merged skill called ``name``, served or not (a gated skill changed since approval
        included, SPEC §23.3), or ``None``."""
        return self._by_name.get(name) if isinstance(name, str) else None

    def approval(self, name: str) -> Approval | None:
        """The trust approval a merged skill is served under, or ``None`` (SPEC §23.3).

        Only skills from workspace-scope roots gated by a :class:`~agent_skills.TrustStore`
        have one; every read of such a skill is checked against it.
        """
        return self._approvals.get(name) if isinstance(name, str) else None

    def archived(self, name: str) -> ArchivedSkill | None:
        """How the merged skill ``name`` lives in an archive root, or ``None`` (SPEC §25.1)."""
        return self._archived.get(name) if isinstance(name, str) else None

    def get(self, name: str) -> SkillContent | None:
        """Load a skill: body snapshot plus resources enumerated now (SPEC §8-§9).

        Returns:
            The :class:`SkillContent`, or ``None`` for an unknown name (no diagnostic).

        Raises:
            SkillError: ``stale_skill`` ``{name, dir}`` for an archived skill whose archive
                changed since discovery (SPEC §25.1).
        """
        skill = self.lookup(name)
        if skill is None:
            return None
        archived = self._archived.get(name)
        if archived is not None:
            from ._archive import archived_listing

            listing = archived_listing(archived, name, self.config.max_resources)
        elif skill.info.single_file:
            return _content(skill, (), False, ())  # SPEC §29.2: a single file has no resources
        else:
            from ._resources import list_resources

            listing = list_resources(
                skill.info.dir,
                follow_symlinks=self.config.follow_symlinks,
                max_resources=self.config.max_resources,
                pin=skill.pin,
                name=name,
            )
            if skill.pin is not None:  # SkillResource.path is under dir: right when returned
                verify_link(skill.pin, name, skill.info.dir)
        emit(listing.diagnostics)
        return _content(skill, listing.resources, listing.truncated, listing.diagnostics)

    def require(self, name: object) -> ResolvedSkill:
        """The merged skill called ``name``, served now.

        Raises:
            SkillError: ``invalid_input`` for a non-``str``; ``not_found`` ``{name,
                suggestions}`` for an unknown name; ``access_denied`` ``{name}`` for a gated
                skill changed since approval (SPEC §23.3).
        """
        name = coerce_name(name)
        skill = self._by_name.get(name)
        if skill is None:
            raise unknown_skill(name, [i.name for i in self.list()])
        if not self.admits(name):
            assert self.config.trust is not None
            raise self.config.trust.refusal(name)
        return skill

    def resource(self, name: str, rel: str | os.PathLike[str]) -> Path:
        """Resolve a resource of skill ``name`` to a path (SPEC §10, ``resource_path``).

        Returns:
            The lexical absolute path under the skill's ``dir``; the target is a regular file.

        Raises:
            SkillError: ``not_found`` ``{name}`` for an unknown skill (checked first); the
                resolver's ``invalid_input`` ``{rel}`` / ``path_escape`` ``{rel, name}``;
                ``not_found`` ``{name, rel}`` when the target cannot be reached (ENOENT, ENOTDIR,
                ELOOP, ENAMETOOLONG); ``not_a_file`` ``{name, rel}`` for a directory or special
                file; ``io_error`` ``{path}`` for other OS errors; ``not_a_file``
                ``{name, rel, archive}`` for every path of an archived skill (SPEC §25.1: there
                is no path to hand out); ``not_found`` ``{name, rel}`` for every path of a
                single-file skill (SPEC §29.2: it has no resources).
        """
        skill = self.require(name)
        archived = self._archived.get(name)
        if archived is not None:
            from ._archive import archived_path_error

            raise archived_path_error(archived, name, rel)
        if skill.info.single_file:
            raise _no_resource(name, rel)
        pin = skill.pin if skill.pin is not None else pin_by_name(skill.info.dir, name)
        base = absolute(os.fspath(skill.info.dir))
        try:
            inner = stat_in(pin, name, base, rel)[1]
        except SkillError as err:
            raise _with_name(err, name) from None
        if base != pin.real_dir:
            # The lexical path must lead to the pin now (SPEC §20.1). When it is the real path
            # itself, reaching the pin from / just now (no link on the way, the identity
            # compared) was that check: one system call fewer.
            verify_link(pin, name, base)
        return lexical_child(skill.info.dir, base, inner)

    def pin(self, name: str) -> Pin:
        """The pin of the merged skill ``name`` (SPEC §20.1), for skills on disk (an archived
        skill is pinned by its archive, checked by the archive reader).

        Raises:
            SkillError: ``invalid_input`` for a non-``str``; ``not_found`` ``{name}``.
        """
        skill = self.require(name)
        if name in self._archived:  # no directory on disk: the archive reader checks its pin
            return Pin(absolute(os.fspath(skill.info.dir)), 0, 0)
        return skill.pin if skill.pin is not None else pin_by_name(skill.info.dir, name)

    def verify_dir(self, name: str) -> Pin:
        """As :meth:`verify`, and check that the skill's ``dir`` (maybe a link path) still leads
        to the pinned directory, for a caller about to hand out a path under ``dir``.

        Raises:
            SkillError: ``not_found`` ``{name}``; ``stale_skill`` ``{name, dir}``.
        """
        pin = self.verify(name)
        if name not in self._archived:
            verify_link(pin, name, absolute(os.fspath(self.require(name).info.dir)))
        return pin

    def verify(self, name: str) -> Pin:
        """Check that the skill's pinned directory is still the one discovered; return the pin.

        Raises:
            SkillError: ``not_found`` ``{name}``; ``stale_skill`` ``{name, dir}``.
        """
        pin = self.pin(name)
        if name not in self._archived:
            verify_pin(pin, name)
        return pin

    def open(self, name: str, rel: str | os.PathLike[str]) -> IO[bytes]:
        """Open a resource race-free (SPEC §10); the errors of :meth:`resource`.

        A file of an archived skill is streamed from its pinned archive (SPEC §25.1):
        ``stale_skill`` ``{name, dir}`` when the archive changed since discovery.
        """
        skill = self.require(name)
        archived = self._archived.get(name)
        if archived is not None:
            from ._archive import open_archived

            return open_archived(archived, name, rel)
        if skill.info.single_file:
            raise _no_resource(name, rel)
        pin = skill.pin if skill.pin is not None else pin_by_name(skill.info.dir, name)
        try:
            return open_in(pin, name, absolute(os.fspath(skill.info.dir)), rel)
        except SkillError as err:
            raise _with_name(err, name) from None


# The fields a deferred registry builds when first read, and the lock its build takes.
_DEFERRED = ("skills", "report", "_by_name", "_approvals", "_archived")
_building = threading.RLock()
_set = object.__setattr__
_get = object.__getattribute__


def _content(
    skill: ResolvedSkill,
    resources: tuple[SkillResource, ...],
    truncated: bool,
    diagnostics: tuple[Diagnostic, ...],
) -> SkillContent:
    make = _CONTENT
    if not make:  # made on the first load: building the constructor costs more than one load
        make.append(frozen_builder(SkillContent))
        make.append(attrgetter(*SkillInfo.__dataclass_fields__))
    info = skill.info
    made: SkillContent = make[0](*make[1](info), skill.body, resources, truncated, diagnostics)
    return made


#: ``[SkillContent's constructor, the getter of a SkillInfo's fields in order]`` once made.
_CONTENT: list[Any] = []


def _no_resource(name: str, rel: str | os.PathLike[str]) -> SkillError:
    """``not_found`` for any file of a single-file skill (SPEC §29.2): it has no resources, and
    nothing next to its file is ever served. A malformed ``rel`` keeps its own error."""
    _, text = lexical_rel(rel)
    return SkillError(
        ErrorCode.NOT_FOUND,
        f"No such resource '{text}' in skill '{name}' (a single-file skill has no resources)",
        {"name": name, "rel": text},
    )


def _with_name(err: SkillError, name: str) -> SkillError:
    """The confinement error ``err`` raised for skill ``name``, naming it (SPEC §10)."""
    if err.code not in (ErrorCode.PATH_ESCAPE, ErrorCode.NOT_FOUND, ErrorCode.NOT_A_FILE):
        return err
    message = None
    if "rel" in err.fields:
        rel = err.fields["rel"]
        if err.code == ErrorCode.NOT_FOUND:
            message = f"No such resource '{rel}' in skill '{name}'"
        elif err.code == ErrorCode.NOT_A_FILE:
            message = f"Resource '{rel}' in skill '{name}' is not a file"
    fields = None if "name" in err.fields else {"name": name}
    return err.with_fields(fields, message=message)
