"""Discovery: from roots to a :class:`~agent_skills.SkillRegistry` (SPEC §4-§7, §21.4, §21.9,
§23.3, §25.1, §26).

Data flows one way: :func:`discover_skills` scans every root (``_scan``, ``_walk``, or
``_archive`` for an archive root), parses each manifest (``_manifest``), builds each skill's
info, drops duplicates within a root and the skills kept out (disabled, untrusted), merges
across roots (:func:`merge_skills`, later root wins) and records the fate of every candidate in
the :class:`DiscoveryReport`. It decides no containment (``_confine``) and holds nothing: the
snapshot it returns is ``_registry``'s, the facade that holds it ``_core``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ._config import SkillConfig, is_archive_root, is_path_entry
from ._diagnostics import (
    Diagnostic,
    DiagnosticKind,
    DiagnosticSeverity,
    DiscoveryReport,
    EntryStatus,
    ReportEntry,
    RootNote,
    emit,
)
from ._errors import ErrorCode, SkillError
from ._frozen import freeze, frozen_builder, share
from ._index_format import loaded_name
from ._manifest import ParsedSkill, parse_manifest
from ._model import (
    ResolvedSkill,
    ShadowedSkill,
    SkillInfo,
    make_resolved,
    make_skill_info,
    single_file_id,
    sort_key,
)
from ._registry import SkillRegistry, suggest_names
from ._scan import Candidate, IndexHit, hit_candidate
from ._schema import name_key, normalize_tools, skill_version, tools_key
from ._walk import walk_root

if TYPE_CHECKING:
    from ._archive import ArchivedSkill
    from ._index import CachedSkill, ManifestIndex
    from ._trust import Approval

__all__ = ["CandidateResult", "discover_skills", "load_candidate", "merge_skills"]


def _shadow_of(info: SkillInfo) -> ShadowedSkill:
    return ShadowedSkill(info.scope, info.source, info.root, info.dir)


def merge_skills(groups: Sequence[Sequence[ResolvedSkill]]) -> list[ResolvedSkill]:
    """Merge groups of skills by name, the last occurrence winning (SPEC §7.3). Pure.

    Args:
        groups: Groups in ascending precedence (one per root); within a group the last wins too.

    Returns:
        The winners sorted by ``(name.casefold(), name)``. A winner that displaced others is a new
        object whose ``info.shadowed`` lists its own earlier ``shadowed``, then the displaced
        skill, then what that one had displaced (nearest first); a copy in the winner's own
        directory (the same root listed twice) is not a displaced copy and is left out, and each
        directory appears once. Inputs are not mutated.
    """
    winners: dict[str, ResolvedSkill] = {}
    for group in groups:
        for skill in group:
            prev = winners.get(skill.info.name)
            if prev is not None:
                candidates = (*skill.info.shadowed, _shadow_of(prev.info), *prev.info.shadowed)
                # A root listed twice (e.g. the workspace is the home directory) meets the same
                # directory again: that is not a displaced copy, so it is left out, once each.
                shadowed: list[ShadowedSkill] = []
                for shadow in candidates:
                    if shadow.dir != skill.info.dir and all(s.dir != shadow.dir for s in shadowed):
                        shadowed.append(shadow)
                skill = replace(skill, info=replace(skill.info, shadowed=tuple(shadowed)))
            winners[skill.info.name] = skill
    return sorted(winners.values(), key=lambda s: sort_key(s.info.name))


def _build_info(cand: Candidate, parsed: ParsedSkill, pool: dict[str, str]) -> SkillInfo:
    values = parsed.values
    key = tools_key(values)
    declared = values.get(key)
    allowed = (
        tuple([pool.setdefault(t, t) for t in normalize_tools(declared)])
        if declared is not None
        else None
    )
    # The name is most often the directory's: one string for both (SPEC §26 memory).
    pool.setdefault(cand.entry_name, cand.entry_name)
    name = share(values["name"], pool)
    metadata = freeze(parsed.frontmatter, pool)
    if allowed is not None:
        # A list of clean tool names is already frozen in ``metadata``: keep one tuple of it.
        frozen = metadata.get(key)
        if type(frozen) is tuple and frozen == allowed:
            allowed = frozen
    return _skill_info(
        cand,
        name,
        values["description"],
        metadata,
        allowed,
        values.get("user-invocable") is not False,
        values.get("disable-model-invocation") is not True,
    )


def _cached_info(cand: Candidate, hit: CachedSkill) -> SkillInfo:
    """:func:`_build_info` of a skill the on-disk index answered for (SPEC §26): the facts it
    took from the validated values (the allowed tools already one tuple with the frontmatter's,
    as ``_build_info`` keeps them) and the frontmatter already read-only."""
    assert hit.facts is not None and hit.metadata is not None
    name, description, allowed, user_invocable, model_invocable = hit.facts
    if name == cand.entry_name:  # one string for both, as _build_info keeps (SPEC §26 memory)
        name = cand.entry_name
    return _skill_info(
        cand, name, description, hit.metadata, allowed, user_invocable, model_invocable
    )


def _skill_info(
    cand: Candidate,
    name: str,
    description: str,
    metadata: Mapping[str, Any],
    allowed: tuple[str, ...] | None,
    user_invocable: bool,
    model_invocable: bool,
) -> SkillInfo:
    assert cand.manifest is not None
    real_dir = cand.dir
    # The directory's text from the listing's own strings: ``os.fspath(cand.dir)`` would make
    # the snapshot's Path cache its text, bytes kept for every skill (SPEC §26 memory).
    # ``location`` is the listed directory's text joined with the manifest's name.
    if cand.pin is not None and cand.pin.real_dir != cand.location.rpartition("/")[0]:
        real_dir = Path(cand.pin.real_dir)
    root = cand.root
    return make_skill_info(
        name,
        description,
        metadata,
        allowed,
        user_invocable,
        model_invocable,
        root.scope,
        root.source,
        root.path,
        cand.dir,
        cand.manifest,
        (),
        cand.category,
        real_dir,
        skill_version(metadata),
    )


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


class CandidateResult:
    """What became of one candidate entry of a root (SPEC §7.4), with what was found on the way.

    A plain slotted class, not a dataclass: one is made per candidate, and neither its import nor
    its construction pays for generated code (SPEC §26). Not changed once its root is resolved
    (:func:`_resolve_root` drops the candidate's manifest bytes first).

    Attributes:
        cand: The candidate, as the scan built it.
        status: ``loaded``, ``invalid``, ``skipped``, ``duplicate`` or an exclusion status
            (``untrusted``); ``loaded`` turns into ``shadowed`` only when the report is finished.
        skill: The skill, for ``loaded`` only.
        name: The frontmatter name when known.
        reason: Why it was not loaded (empty for ``loaded``).
        diagnostics: This candidate's diagnostics, in the order they were found.
    """

    __slots__ = ("cand", "diagnostics", "name", "reason", "skill", "status")

    def __init__(
        self,
        cand: Candidate,
        status: EntryStatus,
        skill: ResolvedSkill | None = None,
        name: str | None = None,
        reason: str = "",
        diagnostics: tuple[Diagnostic, ...] = (),
    ) -> None:
        self.cand = cand
        self.status = status
        self.skill = skill
        self.name = name
        self.reason = reason
        self.diagnostics = diagnostics


def _located(err: SkillError) -> str:
    """The error's message with its position in the manifest, when it has one."""
    line, column = err.fields.get("line"), err.fields.get("column")
    if line is None:
        return err.message
    where = f"line {line}" if column is None else f"line {line}, column {column}"
    return f"{err.message} ({where})"


def _open_index(config: SkillConfig) -> ManifestIndex | None:
    """Load the on-disk index of ``config`` (SPEC §26), keyed by what parsing depends on."""
    if config.index is None:
        return None
    from ._index import ManifestIndex

    settings = {
        "strict": config.strict,
        "follow_symlinks": config.follow_symlinks,
        "max_manifest_bytes": getattr(config, "max_manifest_bytes", None),
    }
    return ManifestIndex(config.index, settings)


def discover_skills(config: SkillConfig) -> SkillRegistry:
    """Scan every root of ``config`` and build a :class:`SkillRegistry` (SPEC §4-§7).

    Diagnostics are logged on the ``agent_skills`` logger and warnings passed to the warn sink.

    With an on-disk index (SPEC §26) that vouches for every candidate of every root, each
    without diagnostics and each name found once, the scan ends once each was checked (their
    stamps, hence the snapshot, are taken now; the diagnostics, only the roots' and the
    index's, are emitted now), and the registry builds its skills, from the entries the index
    file held, when first read. Anything else builds them now.

    Args:
        config: A :class:`SkillConfig` from ``resolve_config``.

    Returns:
        The registry: merged skills, the report of every candidate, the scan's diagnostics.

    Raises:
        SkillError: Only with ``config.strict``: the manifest's ``fs_error`` code for an unreadable
            manifest, ``invalid_skill`` (``fields`` include ``path``) and ``duplicate_skill``
            (``fields`` ``{name, paths}``).
    """
    notes: list[RootNote] = []
    per_root: list[list[CandidateResult]] = []
    pool: dict[str, str] = {}  # shared strings of this scan, see freeze()
    index = _open_index(config)
    root_diags: list[Diagnostic] = []
    archived: dict[Path, ArchivedSkill] = {}
    gate = _Gate(config)
    # The roots held unbuilt while every candidate so far is a quiet index hit (see above).
    held: list[list[Candidate | IndexHit]] = []
    hit_notes: list[Diagnostic] = []  # what the held candidates report
    held_names: set[str] | None = (
        set() if index is not None and not config.strict and not gate.asks_names else None
    )
    for root in config.roots:
        # A gated root is never answered from the index: its trust verdict hashes the very
        # manifest bytes that are parsed (SPEC §23.3), so they are read every time.
        gated = config.trust is not None and root.scope == "workspace"
        root_index = None if gated else index
        cands: list[Candidate | IndexHit]
        if is_archive_root(root.path):
            from ._archive import scan_archive

            note, found_cands, found_diags, found = scan_archive(
                root, max_manifest_bytes=config.max_manifest_bytes
            )
            cands = [*found_cands]
            root_diags.extend(found_diags)
            archived.update(found)
            gate.archived.update(found)
            root_index = None  # the archive's pin covers its manifests (SPEC §25.1)
        else:
            walked = walk_root(
                root,
                follow_symlinks=config.follow_symlinks,
                max_depth=config.max_depth,
                index=root_index,
                max_manifest_bytes=config.max_manifest_bytes,
            )
            note, cands = walked.note, walked.candidates
            root_diags.extend(walked.diagnostics)
        notes.append(note)
        if held_names is not None:
            notes_of_hits = _hit_notes(cands, held_names)
            if notes_of_hits is not None:
                held.append(cands)
                hit_notes.extend(notes_of_hits)
                continue
            held_names = None
            per_root.extend(_resolve_root(kept, config, pool, gate, index) for kept in held)
            held = []
        per_root.append(_resolve_root(cands, config, pool, gate, root_index))
    index_notes = [] if index is None else [*index.diagnostics, *index.save()]
    if held_names is None or index is None:
        return _finish(config, notes, per_root, root_diags, index_notes, archived, gate)
    emitted = [*root_diags, *hit_notes, *index_notes]  # (such a scan has no others)
    emit(emitted)
    known = len(index.diagnostics)

    def build() -> SkillRegistry:
        results = [_resolve_root(kept, config, {}, gate, index) for kept in held]
        late = index.diagnostics[known:]  # an entry found damaged while restored
        if late:  # (then rescanned: the index is rewritten without the damage)
            late += index.save()
        return _finish(config, notes, results, root_diags, [*index_notes, *late], {}, gate, emitted)

    return SkillRegistry.deferred(config, build)


def _hit_notes(cands: Sequence[Candidate | IndexHit], names: set[str]) -> list[Diagnostic] | None:
    """The diagnostics of a root whose every candidate is an index hit of a skill that loaded,
    named as its directory, under a name not in ``names`` (each is then added): what its
    candidates report, in order (as stored: a scan of such roots reports nothing else, and
    its precedence has nothing to decide); ``None`` for any other root."""
    notes: list[Diagnostic] = []
    for cand in cands:
        if type(cand) is not IndexHit:
            return None
        loaded = loaded_name(cand.record)
        if loaded is None or loaded[0] != cand.entry.name or loaded[0] in names:
            return None
        names.add(loaded[0])
        notes.extend(loaded[1])
    return notes


def _finish(
    config: SkillConfig,
    notes: list[RootNote],
    per_root: list[list[CandidateResult]],
    root_diags: list[Diagnostic],
    index_notes: list[Diagnostic],
    archived: dict[Path, ArchivedSkill],
    gate: _Gate,
    emitted: Sequence[Diagnostic] = (),
) -> SkillRegistry:
    """Merge the roots' results, report every candidate, emit the diagnostics (but, once each,
    those equal to one of ``emitted``, emitted when the scan ended) and make the registry
    (SPEC §7)."""
    groups = [
        [r.skill for r in results if r.skill is not None and r.status == EntryStatus.LOADED]
        for results in per_root
    ]
    merged = merge_skills(groups)
    if archived:  # SPEC §25.1: real_dir is <real archive path>/<top folder>
        merged = [
            replace(s, info=replace(s.info, real_dir=archived[s.info.dir].real_dir))
            if s.info.dir in archived
            else s
            for s in merged
        ]
    # Guarded: a Path used as a key caches its text and hash, bytes kept for every skill.
    approvals = (
        {s.info.name: gate.approvals[s.info.dir] for s in merged if s.info.dir in gate.approvals}
        if gate.approvals
        else {}
    )
    by_name = {s.info.name: s for s in merged}
    winning_group = {s.info.name: gi for gi, group in enumerate(groups) for s in group}
    entries, shadow_notes = _report_entries(per_root, by_name, winning_group)
    diags = [*root_diags, *(d for results in per_root for r in results for d in r.diagnostics)]
    diags.extend(shadow_notes)
    diags.extend(index_notes)
    if gate.asks_names:
        named = {r.name for results in per_root for r in results if r.name is not None}
        diags.extend(gate.unknown_names(named))
    report = DiscoveryReport(tuple(entries), tuple(notes), tuple(diags))
    fresh = diags
    if emitted:
        left, fresh = Counter(emitted), []
        for d in diags:
            if left[d]:
                left[d] -= 1
            else:
                fresh.append(d)
    emit(fresh)
    archived_by_name = (
        {s.info.name: archived[s.info.dir] for s in merged if s.info.dir in archived}
        if archived
        else {}
    )
    return SkillRegistry(
        config,
        tuple(merged),
        report,
        MappingProxyType(by_name),
        MappingProxyType(approvals),
        MappingProxyType(archived_by_name),
    )


class _Gate:
    """Which loaded candidates are kept out of precedence altogether (SPEC §21.9, §23.3).

    The one place exclusions are decided: ``disabled`` names and directories (``config.disabled``;
    a directory matches as given or as its real path), then trust. A skill excluded here is
    reported with its status and reason and takes no part in precedence: a lower copy of the
    same name wins, so a cloned repository cannot hide a user's skill. Workspace-scope skills
    are checked against ``config.trust``; the approvals of those that pass are kept by skill
    directory.
    """

    def __init__(self, config: SkillConfig) -> None:
        self._config = config
        self.approvals: dict[Path, Approval] = {}
        # The skills of archive roots scanned so far, by ``dir`` (SPEC §25.1): hashed from
        # their pinned archive.
        self.archived: dict[Path, ArchivedSkill] = {}
        # SPEC §21.9: disabled names, and disabled directories as given and as real paths.
        self._names = frozenset(e for e in config.disabled if not is_path_entry(e))
        paths = [e for e in config.disabled if is_path_entry(e)]
        self._paths = frozenset((*paths, *(_real(e) for e in paths)))
        # SPEC §29.6: with ``only``, every skill it does not name is disabled.
        only = getattr(config, "only", None)
        self._only = None if only is None else frozenset(only)

    @property
    def asks_names(self) -> bool:
        """Whether ``disabled`` or ``only`` names skills (then each is checked, SPEC §29.6)."""
        return bool(self._names) or self._only is not None

    def unknown_names(self, found: set[str]) -> list[Diagnostic]:
        """An ``unknown_name`` warning for each name of ``disabled`` and ``only`` that no
        candidate of the scan was called (SPEC §29.6), with the closest names found."""
        out: list[Diagnostic] = []
        asked = [("disabled", n) for n in sorted(self._names, key=sort_key)]
        asked += [("only", n) for n in sorted(self._only or (), key=sort_key)]
        for option, name in asked:
            if name in found:
                continue
            close = suggest_names(name, sorted(found, key=sort_key))
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            message = f"'{name}' in {option} matches no skill found{hint}"
            out.append(Diagnostic(DiagnosticKind.UNKNOWN_NAME, message))
        return out

    def __call__(self, cand: Candidate, info: SkillInfo) -> tuple[EntryStatus, str] | None:
        if info.name in self._names:
            return EntryStatus.DISABLED, f"disabled by name '{info.name}'"
        if self._only is not None and info.name not in self._only:
            return EntryStatus.DISABLED, "not named in only"
        if self._paths:
            lexical = os.path.normpath(os.fspath(info.dir))
            if lexical in self._paths or _real_dir(info, info.dir) in self._paths:
                return EntryStatus.DISABLED, f"disabled by path {info.dir}"
        store = self._config.trust
        if store is None or cand.root.scope != "workspace":
            return None
        # SPEC §23.3: the digest is taken from the manifest bytes just parsed and the resources
        # reached through the pin, never from the directory read again by name.
        manifest = (
            (cand.manifest.name, cand.data)
            if cand.data is not None and cand.manifest is not None
            else None
        )
        approval, reason = store.verdict(
            cand.pin,
            cand.dir,
            manifest,
            name=info.name,
            follow_symlinks=self._config.follow_symlinks,
            max_resources=self._config.max_resources,
            archived=self.archived.get(cand.dir),
        )
        if approval is None:
            return EntryStatus.UNTRUSTED, reason
        self.approvals[info.dir] = approval
        return None


def _resolve_root(
    cands: list[Candidate | IndexHit],
    config: SkillConfig,
    pool: dict[str, str],
    gate: _Gate | None = None,
    index: ManifestIndex | None = None,
) -> list[CandidateResult]:
    """One result per candidate of one root, in scan order: each loaded, then admitted (SPEC §7.2).

    ``cands`` is consumed: once a candidate is loaded and admitted, its slot (and its result)
    holds it without its manifest bytes, all the report needs, so the manifests read by the
    scan are let go one by one as their skills are built rather than kept with the report.

    Raises:
        SkillError: Only with ``strict``, as :func:`discover_skills` documents.
    """
    strict = config.strict
    kept: dict[str, Candidate] = {}
    results: list[CandidateResult] = []
    for i, item in enumerate(cands):
        if isinstance(item, IndexHit):
            assert index is not None
            cand = hit_candidate(
                item, index, follow_symlinks=config.follow_symlinks, cap=config.max_manifest_bytes
            )
        else:
            cand = item
        result = load_candidate(cand, strict=strict, pool=pool, index=index)
        if result.skill is not None:
            result = _admit(result, kept, strict, gate)
        if cand.data is not None:
            light = Candidate._make((*cand[:_DATA], None, *cand[_DATA + 1 :]))
            cands[i] = result.cand = light
            if result.name is not None and kept.get(result.name) is cand:
                kept[result.name] = light
        results.append(result)
    return results


_DATA = Candidate._fields.index("data")


def load_candidate(
    cand: Candidate, *, strict: bool, pool: dict[str, str], index: ManifestIndex | None = None
) -> CandidateResult:
    """Turn one scanned candidate into a skill (SPEC §5-§7): ``loaded``, ``invalid`` or ``skipped``.

    Args:
        cand: The candidate from ``scan_root``.
        strict: Raise instead of returning ``invalid``.
        pool: The scan's shared strings (see :func:`freeze`).
        index: The on-disk index (SPEC §26): a candidate it answered carries the parse outcome
            (``cached``); a parsed one with a ``stamp`` is recorded in it.

    Returns:
        A :class:`CandidateResult`; a ``loaded`` one holds the skill (duplicates are decided per
        root, by the caller).

    Raises:
        SkillError: Only with ``strict``: the manifest's read error, or ``invalid_skill`` whose
            message names the manifest (SPEC §19).
    """
    found = list(cand.diagnostics)
    if cand.skip_reason is not None:
        return CandidateResult(
            cand, EntryStatus.SKIPPED, reason=cand.skip_reason, diagnostics=tuple(found)
        )
    if cand.error is not None:
        if strict:
            raise cand.error
        # SPEC §20.5: a manifest over the cap is skipped; any other read failure is invalid.
        too_large = cand.error.code == ErrorCode.TOO_LARGE
        kind = DiagnosticKind.TOO_LARGE if too_large else DiagnosticKind.IO_ERROR
        found.append(
            Diagnostic(kind, f"skipping {cand.manifest}: {cand.error.message}", cand.manifest)
        )
        status = EntryStatus.SKIPPED if too_large else EntryStatus.INVALID
        return CandidateResult(cand, status, reason=cand.error.message, diagnostics=tuple(found))
    assert cand.manifest is not None
    hit = cand.cached
    if hit is not None:  # answered by the on-disk index (SPEC §26)
        last = hit.result
        if last is not None and last[0] is cand:  # built from this very candidate before
            done: CandidateResult = last[1]
            return done
        found.extend(hit.diagnostics)
        if hit.error is not None:
            done = _invalid(cand, hit.error, strict, found)
        else:
            done = _loaded(cand, _cached_info(cand, hit), hit.body, found)
        hit.result = (cand, done)
        return done
    assert cand.data is not None
    # A single-file skill (SPEC §29.2): its id, the file's name without ".md", stands for the
    # directory's name.
    single = single_file_id(cand.entry_name) if cand.manifest is cand.dir else None
    result = parse_manifest(cand.data, strict=strict, path=cand.location, skill_id=single)
    found.extend(result.diagnostics)
    parsed = result.parsed
    info = _build_info(cand, parsed, pool) if parsed is not None else None
    if index is not None and cand.stamp is not None:
        index.record(
            os.path.dirname(cand.location),
            cand.stamp,
            cand.manifest.name,
            cand.diagnostics,
            result,
            info,
        )
    if parsed is None or info is None:
        assert result.error is not None
        return _invalid(cand, result.error, strict, found)
    return _loaded(cand, info, parsed.body, found)


def _invalid(
    cand: Candidate, err: SkillError, strict: bool, found: list[Diagnostic]
) -> CandidateResult:
    """The ``invalid`` result of a manifest that failed to parse (raised with ``strict``)."""
    if strict:
        # SPEC §19: a strict invalid_skill error names the manifest in its message too.
        raise err.with_fields(message=f"{cand.manifest}: {_located(err)}") from None
    found.append(
        Diagnostic(
            DiagnosticKind.INVALID_SKILL,
            f"skipping {cand.manifest}: {_located(err)}",
            cand.manifest,
        )
    )
    return CandidateResult(
        cand, EntryStatus.INVALID, reason=_located(err), diagnostics=tuple(found)
    )


def _loaded(
    cand: Candidate, info: SkillInfo, body: str | memoryview, found: list[Diagnostic]
) -> CandidateResult:
    """The ``loaded`` result of a parsed skill, with a ``name_mismatch`` note when due; a
    ``memoryview`` body is the on-disk index's UTF-8 bytes (see :func:`make_resolved`)."""
    entry_id = cand.entry_name
    what = "directory"
    if cand.manifest is cand.dir:  # a single-file skill: its id is the file's name (SPEC §29.2)
        entry_id, what = single_file_id(entry_id) or entry_id, "file"
    if info.name != entry_id and name_key(info.name) != name_key(entry_id):
        found.append(
            Diagnostic(
                DiagnosticKind.NAME_MISMATCH,
                f"skill name '{info.name}' does not match {what} '{entry_id}' ({cand.manifest})",
                cand.manifest,
            )
        )
    skill = make_resolved(info, body, cand.pin)
    return CandidateResult(cand, EntryStatus.LOADED, skill, info.name, cand.note, tuple(found))


def _admit(
    result: CandidateResult, kept: dict[str, Candidate], strict: bool, gate: _Gate | None
) -> CandidateResult:
    """Keep a loaded skill unless its name is already taken in the root or the gate excludes it.

    ``kept`` (name -> first candidate of this root) is updated for a kept skill.
    """
    cand, skill = result.cand, result.skill
    assert skill is not None
    info = skill.info
    first = kept.get(info.name)
    if first is not None:
        paths = [str(first.dir), str(cand.dir)]
        if strict:
            raise SkillError(
                ErrorCode.DUPLICATE_SKILL,
                f"Duplicate skill name '{info.name}' in {cand.dir} "
                f"(already defined in {first.dir})",
                {"name": info.name, "paths": paths},
            )
        duplicate = Diagnostic(
            DiagnosticKind.DUPLICATE_SKILL,
            f"duplicate skill '{info.name}' in {cand.dir} ignored (already defined in {first.dir})",
            cand.dir,
        )
        return CandidateResult(
            cand,
            EntryStatus.DUPLICATE,
            None,
            info.name,
            f"duplicate of {first.dir} in the same root",
            (*result.diagnostics, duplicate),
        )
    excluded = gate(cand, info) if gate is not None else None
    if excluded is not None:
        return CandidateResult(cand, excluded[0], None, info.name, excluded[1], result.diagnostics)
    kept[info.name] = cand
    return result


_report_entry = frozen_builder(ReportEntry)  # one per candidate (SPEC §26)


def _report_entries(
    per_root: Sequence[Sequence[CandidateResult]],
    by_name: Mapping[str, ResolvedSkill],
    winning_group: Mapping[str, int],
) -> tuple[list[ReportEntry], list[Diagnostic]]:
    """The report entry of every candidate, and the ``shadowed`` notes (SPEC §7.3-§7.4)."""
    entries: list[ReportEntry] = []
    notes: list[Diagnostic] = []
    for gi, results in enumerate(per_root):
        for result in results:
            cand, name = result.cand, result.name
            status, reason, by = result.status, result.reason, None
            if status == EntryStatus.LOADED and name is not None and winning_group[name] != gi:
                winner = by_name[name].info
                status, by = EntryStatus.SHADOWED, winner.dir
                if cand.dir == winner.dir:
                    reason = f"same directory as the winner {winner.dir} (its root is listed again)"
                else:
                    displaced = result.skill.info if result.skill is not None else None
                    notes.append(_shadowed(name, cand.dir, displaced, winner))
                    if notes[-1].severity == DiagnosticSeverity.INFO:
                        reason = "same skill (alias)"
                    else:
                        reason = (
                            f"overridden by {winner.dir} ({winner.scope}, {winner.source or '-'})"
                        )
            entries.append(_report_entry(cand.root.path, cand.dir, status, name, reason, by))
    return entries, notes


def _real_dir(info: SkillInfo | None, path: Path) -> str:
    """The real directory pinned at discovery (SPEC §20), else resolved now."""
    if info is not None and info.real_dir is not None:
        return os.fspath(info.real_dir)
    return _real(os.fspath(path))


def _shadowed(
    name: str, displaced: Path, displaced_info: SkillInfo | None, winner: SkillInfo
) -> Diagnostic:
    """The ``shadowed`` diagnostic (SPEC §21.8): a warning, as the Agent Skills client guide asks,
    except for an alias (the displaced copy's real directory is the winner's: one skill linked
    into several client folders), which stays at info."""
    if _real_dir(displaced_info, displaced) == _real_dir(winner, winner.dir):
        return Diagnostic(
            DiagnosticKind.SHADOWED,
            f"skill '{name}' in {displaced} is the same skill as {winner.dir} (alias)",
            displaced,
            DiagnosticSeverity.INFO,
        )
    return Diagnostic(
        DiagnosticKind.SHADOWED,
        f"skill '{name}' in {displaced} is overridden by {winner.dir} "
        f"({winner.scope}, {winner.source or '-'})",
        displaced,
    )
