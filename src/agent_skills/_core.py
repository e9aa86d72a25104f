"""The :class:`AgentSkills` facade: one immutable snapshot, swapped atomically on refresh (SPEC §1,
§8, §10, §12), and the skill as it serves it now (:class:`ServedSkill`, one snapshot per answer).

It orchestrates and holds state; it does not parse, walk or decide containment (``_discover``,
``_scan``, ``_confine`` do). Consumers (``agent``, ``mcp``, ``cli``) ask it; they never take the
snapshot apart.
"""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ._args import coerce_byte_limit, coerce_name
from ._config import (
    DEFAULT_FOLLOW_SYMLINKS,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_MANIFEST_BYTES,
    DEFAULT_MAX_RESOURCE_BYTES,
    DEFAULT_MAX_RESOURCES,
    DEFAULT_STRICT,
    RootInput,
    SkillConfig,
    resolve_config,
)
from ._confine import Pin, read_pinned_manifest
from ._diagnostics import Diagnostic, DiscoveryReport
from ._discover import discover_skills
from ._errors import ErrorCode, SkillError, fs_error
from ._fs import read_capped
from ._manifest import parse_skill
from ._model import GrantSet, SkillContent, SkillInfo
from ._registry import SkillRegistry, unknown_skill

if TYPE_CHECKING:
    from ._trust import TrustStore
    from ._watch import SkillChanges, SkillWatcher

__all__ = ["ActivationView", "AgentSkills", "ServedSkill", "create_agent_skills"]


@dataclass(frozen=True, slots=True)
class ActivationView:
    """A skill as an activation hands it to an agent, taken from one snapshot (SPEC §14, §22.3,
    §22.4): the directory checked, the body read now, the files listed now.

    Attributes:
        info: The skill's catalog facts.
        pin: Its pinned real directory, checked when the view was made, its ``dir`` (maybe a
            link path) leading to it (SPEC §20.1); nominal for an archived skill.
        skill_dir: ``info.dir`` made absolute: the directory named to the agent.
        body: The manifest's body as it was read for this view (SPEC §22.4).
        resources: The ``rel`` of every file listed now (SPEC §9), in listing order.
        archived: Whether the skill lives in an archive root (its files have no path, §25.1).
    """

    info: SkillInfo
    pin: Pin
    skill_dir: Path
    body: str
    resources: tuple[str, ...]
    archived: bool


class ServedSkill:
    """One skill as one snapshot serves it (SPEC §8-§10, §20, §22.4, §23.3, §25.1).

    Get one from :meth:`AgentSkills.served`: every answer (the directory checked, the body read
    now, the files listed, a file read, the trust approval applied) comes from the snapshot taken
    then, so a refresh in between can never pair one directory's body with another's files.
    Reading the disk is done when asked, through the pin.

    Attributes:
        name: The skill's name.
        info: Its catalog facts.
    """

    __slots__ = ("_config", "_registry", "info", "name")

    def __init__(self, registry: SkillRegistry, config: SkillConfig, info: SkillInfo) -> None:
        self._registry = registry
        self._config = config
        self.name = info.name
        self.info = info

    def __repr__(self) -> str:
        return f"ServedSkill({self.name!r}, dir={str(self.info.dir)!r})"

    @property
    def withheld(self) -> bool:
        """Whether the skill is withheld now: a gated skill a read found changed since approval
        (SPEC §23.3). Its reads are ``access_denied``; it is listed nowhere."""
        return not self._registry.admits(self.name)

    @property
    def archived(self) -> bool:
        """Whether the skill lives in an archive root (SPEC §25.1): its files have no path."""
        return self._registry.archived(self.name) is not None

    @property
    def gated(self) -> bool:
        """Whether it is served under a trust approval (SPEC §23.3): its reads are checked."""
        return self._registry.approval(self.name) is not None

    @property
    def pin(self) -> Pin:
        """Its pin as discovered (SPEC §20.1), not checked now; nominal for an archived skill."""
        return self._registry.pin(self.name)

    @property
    def manifest_outside(self) -> str | None:
        """The real target of a manifest that is a link leading outside the skill (SPEC §20.3),
        else ``None``."""
        manifest = self.pin.manifest
        return manifest[0] if manifest is not None else None

    def verify(self) -> Pin:
        """Check that the pinned directory is still the one discovered; return the pin.

        Raises:
            SkillError: ``stale_skill`` ``{name, dir}``.
        """
        return self._registry.verify(self.name)

    def verify_dir(self) -> Pin:
        """As :meth:`verify`, and check that ``dir`` (maybe a link path) still leads to the
        pinned directory: for a caller about to hand out a path under ``dir`` (SPEC §20.1).

        Raises:
            SkillError: ``stale_skill`` ``{name, dir}``.
        """
        return self._registry.verify_dir(self.name)

    def content(self) -> SkillContent:
        """The skill loaded: body snapshot plus resources enumerated now (SPEC §8-§9).

        Raises:
            SkillError: ``stale_skill`` ``{name, dir}``; ``access_denied`` ``{name}`` for a gated
                skill changed since approval (SPEC §23.3).
        """
        content = self._registry.get(self.name)
        if content is None:
            self._registry.require(self.name)  # (what made it go: its own error)
            raise unknown_skill(self.name, [])  # pragma: no cover - require raised
        return content

    def resource_path(self, rel: str | os.PathLike[str]) -> Path:
        """The confined path of a regular file of the skill (SPEC §10): see
        :meth:`AgentSkills.resource_path`; a gated skill's path only as its reads serve it."""
        path = self._registry.resource(self.name, rel)
        if self.gated:
            self.read(rel)  # the one gate of every access (SPEC §23.3)
        return path

    def open(self, rel: str | os.PathLike[str]) -> IO[bytes]:
        """Open a file of the skill race-free (SPEC §10): see :meth:`AgentSkills.open_resource`."""
        if not self.gated:
            return self._registry.open(self.name, rel)
        # A skill served under a trust approval: its bytes are checked before any is handed out.
        return io.BytesIO(self.read(rel))

    def read(self, rel: str | os.PathLike[str], max_bytes: int | None = None) -> bytes:
        """Read a file of the skill race-free, checked against a trust approval (SPEC §10,
        §20.5, §23.3): see :meth:`AgentSkills.read_resource`.

        Args:
            rel: The path relative to the skill directory.
            max_bytes: The cap, in bytes; ``None`` for the configured ``max_resource_bytes``.
        """
        data = self._read_bytes(rel, max_bytes)
        approval = self._registry.approval(self.name)
        trust = self._config.trust
        if approval is not None and trust is not None:
            if self.archived:
                from ._archive import member_rel  # (loads with the first archive root)

                rel_posix = member_rel(rel)  # SPEC §25.1: archived files have no path
            else:
                path = self._registry.resource(self.name, rel)
                rel_posix = path.relative_to(self.info.dir).as_posix()
            trust.check_read(approval, self.name, rel_posix, data)
        return data

    def _read_bytes(self, rel: str | os.PathLike[str], max_bytes: int | None) -> bytes:
        cap = self._config.max_resource_bytes if max_bytes is None else max_bytes
        name = self.name
        with self._registry.open(name, rel) as fh:
            rel_text = os.fspath(rel)
            try:
                size = _opened_size(fh)
                data = read_capped(fh, size, cap)
            except OSError as exc:
                raise fs_error(exc, self.info.dir / rel_text) from None
            if data is None:
                raise SkillError(
                    ErrorCode.TOO_LARGE,
                    f"Resource '{rel_text}' in skill '{name}' is larger than {cap} bytes",
                    {"name": name, "rel": rel_text, "size": max(size, cap + 1), "max_bytes": cap},
                )
            return data

    def read_listed(self, path: str, max_bytes: int | None = None) -> tuple[str, bytes]:
        """Read the manifest or a listed resource of the skill (SPEC §9, §10, §17): a file the
        listing does not hold (hidden, ignored, absent) is not read.

        Args:
            path: The file's path relative to the skill directory.
            max_bytes: The cap, in bytes; ``None`` for the configured ``max_resource_bytes``.

        Returns:
            ``(rel, data)``: the file's POSIX path relative to the skill directory and its bytes.

        Raises:
            SkillError: ``not_found`` ``{name, rel}`` for a file that is not one of the skill's
                files; ``invalid_input`` or ``path_escape`` for a bad path (SPEC §10); the
                read's ``too_large``, ``not_a_file``, ``io_error``, ``stale_skill``,
                ``access_denied``.
        """
        if self.archived:
            from ._archive import member_rel  # (loads with the first archive root)

            rel = member_rel(path)  # SPEC §25.1: archived files have no path; the rules are lexical
            content = self.content()
        else:
            target = self.resource_path(path)
            content = self.content()
            rel = target.relative_to(content.dir).as_posix()
        listed = {content.path.name, *(resource.rel for resource in content.resources)}
        if rel not in listed:
            raise SkillError(
                ErrorCode.NOT_FOUND,
                f"'{path}' is not one of the files of skill '{self.name}'",
                {"name": self.name, "rel": path},
            )
        return rel, self.read(rel, max_bytes)

    def body_now(self) -> str:
        """Read the manifest now and return its current body (SPEC §22.4).

        The manifest is read through the skill's pin (SPEC §20.1), as :meth:`read` reads (at most
        the configured ``max_manifest_bytes``), or, for a manifest that is a link leading outside
        the skill (SPEC §20.3), at the target pinned at discovery, whose identity must not have
        changed. It is parsed again as discovery parses it; the catalog entry is not changed
        (that waits for a refresh).

        Raises:
            SkillError: ``stale_skill`` ``{name, dir}`` when the skill's directory (or an outside
                manifest) is not the one pinned; ``invalid_skill`` ``{name, path}`` when the
                manifest no longer parses; the read's ``not_found``, ``not_a_file``,
                ``io_error``, ``too_large`` and ``access_denied`` (a gated skill's manifest
                changed since approval).
        """
        config = self._config
        limit = config.max_manifest_bytes
        info = self.info
        pin = None if self.archived else self.verify()
        if pin is not None and pin.manifest is not None:
            data = self._read_outside_manifest(pin, limit)
        else:
            data = self.read(info.path.name, max_bytes=limit)
        try:
            parsed = parse_skill(data, strict=config.strict, path=info.path)
        except SkillError as err:
            raise SkillError(
                ErrorCode.INVALID_SKILL,
                f"Skill '{self.name}' no longer parses: {err.message}",
                {"name": self.name, "path": str(info.path)},
            ) from None
        return parsed.body

    def _read_outside_manifest(self, pin: Pin, limit: int) -> bytes:
        """The manifest of a skill whose ``SKILL.md`` links outside it, read at its pinned target
        (SPEC §20.3) and, for a gated skill, checked against its approval (SPEC §23.3)."""
        data = read_pinned_manifest(pin, self.name, limit)
        if data is None:
            raise SkillError(
                ErrorCode.TOO_LARGE,
                f"The manifest of skill '{self.name}' is larger than {limit} bytes",
                {"name": self.name, "rel": self.info.path.name, "max_bytes": limit},
            )
        approval = self._registry.approval(self.name)
        trust = self._config.trust
        if approval is not None and trust is not None:
            # The manifest's name as approved: its case variant, or a single file's own name.
            trust.check_read(approval, self.name, self.info.path.name, data)
        return data

    def still_approved(self) -> bool:
        """Whether the skill may be granted as a whole directory now (SPEC §23.3): ``True`` when
        it is not gated; for a gated one, hashed now through its pin and compared with its
        approval, a mismatch marking it changed since approval."""
        approval = self._registry.approval(self.name)
        store = self._config.trust
        if approval is None or store is None:
            return True
        skill = self._registry.lookup(self.name)
        if skill is None or skill.pin is None:
            return False
        return store.still_approved(
            approval,
            skill.pin,
            skill.info.dir,
            skill.info.path.name,
            name=self.name,
            follow_symlinks=self._config.follow_symlinks,
            max_resources=self._config.max_resources,
        )

    def activation(self) -> ActivationView:
        """The skill as an activation hands it over (SPEC §14, §22.3, §22.4): the directory
        checked (:meth:`verify_dir`), the body read now (:meth:`body_now`), the files listed now
        (:meth:`content`), all from this snapshot.

        Raises:
            SkillError: As :meth:`verify_dir`, :meth:`body_now` and :meth:`content`.
        """
        pin = self.verify_dir()
        body = self.body_now()
        content = self.content()
        return ActivationView(
            self.info,
            pin,
            Path(os.path.abspath(self.info.dir)),
            body,
            tuple(resource.rel for resource in content.resources),
            self.archived,
        )


class AgentSkills:
    """Discovered skills served in three tiers of progressive disclosure (SPEC §1).

    Tier 1 is :meth:`list_skills` (name and description), tier 2 :meth:`load_skill` (the body),
    tier 3 the resources (:meth:`resource_path`, :meth:`open_resource`, :meth:`read_resource`).
    Build one with :func:`create_agent_skills`. Thread-safe: readers see one whole snapshot.

    Args:
        config: A :class:`SkillConfig`; the roots are scanned once, now.

    Raises:
        SkillError: In strict mode, as :func:`discover_skills`.
    """

    def __init__(self, config: SkillConfig) -> None:
        self._config = config
        self._refresh_lock = threading.Lock()
        self._registry: SkillRegistry = discover_skills(config)
        self._revision = 0

    def __repr__(self) -> str:
        return f"AgentSkills({len(self)} skills, roots={[str(r.path) for r in self._config.roots]})"

    @property
    def config(self) -> SkillConfig:
        """The immutable configuration."""
        return self._config

    @property
    def registry(self) -> SkillRegistry:
        """The current snapshot, for inspection: a consumer serving skills asks :meth:`served`
        (one snapshot per answer), never the registry."""
        return self._registry

    @property
    def revision(self) -> int:
        """A number that changes with every :meth:`refresh`: what is derived from the skills
        (a search index) is kept by it."""
        return self._revision

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Diagnostics of the last scan, in the order found (SPEC §7.4)."""
        return self._registry.diagnostics

    def __len__(self) -> int:
        return len(self._registry)

    def __contains__(self, name: object) -> bool:
        return name in self._registry

    def __iter__(self) -> Iterator[SkillInfo]:
        return iter(self._registry.list())

    def list_skills(self) -> list[SkillInfo]:
        """Return every merged skill sorted by ``(name.casefold(), name)`` (SPEC §8).

        No filesystem access; a new list on every call.
        """
        return self._registry.list()

    def load_skill(self, name: str) -> SkillContent | None:
        """Return the skill's body and resources, or ``None`` for an unknown name (SPEC §8-§9).

        Raises:
            SkillError: ``invalid_input`` when ``name`` is not a ``str``.
        """
        return self._registry.get(coerce_name(name))

    def resource_path(self, name: str, rel: str | os.PathLike[str]) -> Path:
        """Resolve a resource to a confined path to a regular file (SPEC §10).

        Args:
            name: The skill's name.
            rel: Path relative to the skill directory (``/`` or ``\\`` separators).

        Returns:
            The lexical absolute path under the skill's ``dir``.

        A skill served under a trust approval (SPEC §23.3) hands out the path of a file only as
        its reads do: a file the approval covers, whose bytes, read now through the pin, are
        the approved ones; anything else (a hidden file asked for by name, a file changed since
        approval) is refused, and a mismatch marks the skill changed since approval.

        Raises:
            SkillError: ``not_found`` ``{name}`` (unknown skill), ``invalid_input`` ``{rel}``,
                ``path_escape`` ``{rel, name}``, ``not_found`` ``{name, rel}``, ``not_a_file``
                ``{name, rel}``, ``io_error`` ``{path}``; for a gated skill, as
                :meth:`read_resource`: ``access_denied`` ``{name, rel}``, ``too_large``.
        """
        return self._require(name).resource_path(rel)

    def open_resource(self, name: str, rel: str | os.PathLike[str]) -> IO[bytes]:
        """Open a resource race-free for binary reading (SPEC §10). The caller closes it.

        Raises:
            SkillError: As :meth:`resource_path`; the file is reached through descriptors with
                ``O_NOFOLLOW``, so a path swapped for an escaping symlink is ``path_escape``.
        """
        return self._require(name).open(rel)

    def read_resource(
        self, name: str, rel: str | os.PathLike[str], max_bytes: int | None = None
    ) -> bytes:
        """Read a resource race-free (SPEC §10).

        Args:
            name: The skill's name.
            rel: Path relative to the skill directory.
            max_bytes: Largest size accepted, in bytes; ``None`` for the configured
                ``max_resource_bytes`` (64 MiB by default; SPEC §20.5). Reading stops at the cap,
                so a sparse or growing file never allocates more.

        Returns:
            The file's bytes.

        Raises:
            SkillError: As :meth:`open_resource`; ``too_large`` ``{name, rel, size, max_bytes}``
                when the file is larger than the cap (``max_bytes`` is the cap that applied);
                ``stale_skill`` ``{name, dir}``; ``invalid_input`` for a negative or non-int
                ``max_bytes``.
        """
        return self._require(name).read(rel, coerce_byte_limit(max_bytes))

    def served(self, name: str) -> ServedSkill | None:
        """The merged skill called ``name`` as the current snapshot serves it, or ``None`` for
        an unknown name. A gated skill changed since approval is returned
        :attr:`~ServedSkill.withheld` (its reads are ``access_denied``, SPEC §23.3).

        Every answer of the :class:`ServedSkill` comes from this one snapshot: ask once per
        operation (an activation, a read), never the registry.

        Raises:
            SkillError: ``invalid_input`` when ``name`` is not a ``str``.
        """
        name = coerce_name(name)
        registry = self._registry
        skill = registry.merged(name)
        return None if skill is None else ServedSkill(registry, self._config, skill.info)

    def _require(self, name: object) -> ServedSkill:
        """As :meth:`served`, with the registry's errors for a name that is not served."""
        registry = self._registry
        skill = registry.require(name)
        return ServedSkill(registry, self._config, skill.info)

    def current_body(self, name: str) -> str:
        """Read a skill's manifest now and return its current body (SPEC §22.4): see
        :meth:`ServedSkill.body_now`.

        Raises:
            SkillError: ``invalid_input`` for a non-``str`` name; ``not_found`` ``{name,
                suggestions}`` for an unknown skill; then as :meth:`ServedSkill.body_now`.
        """
        return self._served_or_unknown(name).body_now()

    def activation(self, name: str) -> ActivationView:
        """The skill as an activation hands it to an agent, from one snapshot (SPEC §14, §22.3,
        §22.4): see :meth:`ServedSkill.activation`.

        Raises:
            SkillError: ``invalid_input`` for a non-``str`` name; ``not_found`` ``{name,
                suggestions}`` for an unknown skill; then as :meth:`ServedSkill.activation`.
        """
        return self._served_or_unknown(name).activation()

    def read_listed_file(
        self, name: str, path: str, max_bytes: int | None = None
    ) -> tuple[str, bytes]:
        """Read the manifest or a listed resource of a skill (SPEC §9, §10, §17): see
        :meth:`ServedSkill.read_listed`.

        Raises:
            SkillError: ``invalid_input`` for a non-``str`` name; ``not_found`` ``{name,
                suggestions}`` for an unknown skill; then as :meth:`ServedSkill.read_listed`.
        """
        return self._served_or_unknown(name).read_listed(path, coerce_byte_limit(max_bytes))

    def _served_or_unknown(self, name: str) -> ServedSkill:
        served = self.served(name)
        if served is None or served.withheld:
            raise unknown_skill(name, [info.name for info in self.list_skills()])
        return served

    def refresh(self) -> None:
        """Rescan with the same config and swap the snapshot atomically (SPEC §12).

        Raises:
            SkillError: In strict mode, as :func:`discover_skills`; the previous snapshot stays.
        """
        with self._refresh_lock:
            self._registry = discover_skills(self._config)
            self._revision += 1

    def watch(
        self,
        on_change: Callable[[SkillChanges], object] | None = None,
        *,
        debounce_ms: int = 200,
    ) -> SkillWatcher:
        """Refresh whenever the roots change, and say what changed (SPEC §23.1).

        Watches the configured roots (a root that does not exist yet through its nearest
        existing ancestor, without recursion) with ``watchfiles`` and calls :meth:`refresh`
        once changes have settled for ``debounce_ms``. After each refresh that changed something
        it calls ``on_change(SkillChanges(added, removed, changed))`` on the watcher's thread;
        changes to files that are not listed resources (hidden files, ``node_modules``) call
        nothing. The watcher is also iterable, on the caller's thread: ``for changes in
        skills.watch(): ...`` (leaving the loop stops it; :meth:`SkillWatcher.__iter__`).

        Args:
            on_change: A callable taking a :class:`~agent_skills.SkillChanges`, or ``None``.
            debounce_ms: Quiet period before a refresh, in milliseconds (positive).

        Returns:
            A running :class:`~agent_skills.SkillWatcher` (a context manager with ``stop()``).

        Raises:
            StartupError: ``watchfiles`` is missing (install the ``watch`` extra) or
                ``debounce_ms`` is not a positive ``int``.
        """
        from ._watch import SkillWatcher

        return SkillWatcher(self, on_change, debounce_ms=debounce_ms)

    def report(self) -> DiscoveryReport:
        """Return the discovery report of the current snapshot (SPEC §7.4).

        A gated skill that a read found changed since approval is reported ``untrusted`` with
        reason ``changed since approval`` from then on (SPEC §23.3), as the next refresh does.
        """
        registry = self._registry
        withheld = {info.dir for info in registry.withheld()}
        if not withheld:
            return registry.report
        from ._diagnostics import EntryStatus
        from ._trust import CHANGED

        report = registry.report
        entries = tuple(
            replace(entry, status=EntryStatus.UNTRUSTED, reason=CHANGED)
            if entry.status == EntryStatus.LOADED and entry.path in withheld
            else entry
            for entry in report.entries
        )
        return replace(report, entries=entries)

    def still_approved(self, name: str) -> bool:
        """Whether the merged skill ``name`` may be granted as a whole directory now (SPEC §23.3).

        ``True`` for a skill not gated by the trust store; for a gated one, the store's rule
        (:meth:`~agent_skills.TrustStore.still_approved`): hashed now through its pin and
        compared with its approval, a mismatch marking it changed since approval.
        """
        served = self.served(name)
        return served is None or served.still_approved()

    def grants(self, names: Iterable[str] | None = None) -> GrantSet:
        """Return read grants for the merged skills' directories (SPEC §28.1).

        For hosts that enforce file access themselves: render them with
        :func:`agent_skills.grants.render_grants` or merge them into a host's settings with
        :func:`agent_skills.grants.write_grants`. Each pin is verified when called, and the
        discovered path must still lead to it.

        Args:
            names: Skill names, or ``None`` for every merged skill; grants come sorted as SPEC §8.

        Returns:
            A :class:`~agent_skills.GrantSet`: a :class:`~agent_skills.Grant` (``skill``, ``path``
            as discovered, ``real_path`` pinned) per skill granted; ``left_out`` the
            ``(skill, reason)`` pairs of stale (``stale_skill``), archived (``archived_skill``)
            and gated skills changed since approval (``untrusted``); ``roots`` the configured
            roots. Untrusted and disabled skills are not merged, so never granted.

        Raises:
            SkillError: ``invalid_input`` for a name that is not a ``str``; ``not_found``
                ``{name}`` (with suggestions) for a name no merged skill has.
        """
        from ._grant import grants_of

        return grants_of(self._registry, names, self.still_approved)

    def allowed_read_roots(self) -> list[Path]:
        """Return the pinned real directory of every merged skill, ordered as :meth:`list_skills`
        (SPEC §14, §20.1); archived and single-file skills have none (SPEC §25.1, §29.2).

        Each pin is verified when called: a skill whose directory was replaced, renamed away or
        turned into a link since discovery is left out, and so is a gated skill whose files no
        longer match its approval (hashed when called, SPEC §23.3). For hosts that pre-approve every
        discovered skill in their own permission system; the paths are right when returned.
        """
        registry = self._registry
        roots: list[Path] = []
        for info in registry.list():
            served = ServedSkill(registry, self._config, info)
            if served.archived or info.single_file:
                continue  # SPEC §25.1, §29.2: no directory to grant
            try:
                pin = served.verify()
            except SkillError:
                continue  # stale or unreachable now: grant nothing for it
            if not served.still_approved():
                continue  # SPEC §23.3: a gated skill changed since approval grants nothing
            roots.append(info.real_dir if info.real_dir is not None else Path(pin.real_dir))
        return roots


def _opened_size(fh: IO[bytes]) -> int:
    """The size of an opened resource: ``fstat`` of its descriptor, or the declared size of an
    archive member streamed from its archive (SPEC §25.1)."""
    size = getattr(fh, "size", None)
    return size if isinstance(size, int) else os.fstat(fh.fileno()).st_size


def create_agent_skills(
    roots: RootInput | Sequence[RootInput],
    *,
    workspace: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    strict: bool = DEFAULT_STRICT,
    follow_symlinks: bool = DEFAULT_FOLLOW_SYMLINKS,
    max_resources: int = DEFAULT_MAX_RESOURCES,
    trust: TrustStore | None = None,
    index: str | os.PathLike[str] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    disabled: Sequence[str | os.PathLike[str]] = (),
    max_manifest_bytes: int = DEFAULT_MAX_MANIFEST_BYTES,
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    only: Sequence[str] | None = None,
) -> AgentSkills:
    """Resolve the configuration and scan the roots once (SPEC §1-§2).

    Args:
        roots: Ordered roots, lowest precedence first, or one root alone (see
            ``resolve_config``; SPEC §29.6).
        workspace, cwd, home, strict, follow_symlinks, max_resources, max_manifest_bytes,
            max_resource_bytes: See ``resolve_config``.
        trust: A :class:`~agent_skills.TrustStore` gating workspace-scope skills (SPEC §23.3);
            ``None`` trusts every root.
        index: A file for the on-disk index of parsed manifests (SPEC §26): discovery reuses the
            entries whose manifest and directory are unchanged and rewrites the file atomically;
            the result is the same as without it. See ``resolve_config``.
        max_depth: How deep each root is searched, 1 (default) to 6 (SPEC §21.4).
        disabled: Names or skill directory paths that are discovered, reported as ``disabled``
            and never listed, loaded or served; they take no part in precedence, so a copy in a
            lower root wins (SPEC §21.9).
        only: Skill names to serve alone; every other skill is reported ``disabled`` (SPEC
            §29.6). A name in ``only`` or ``disabled`` that matches no skill found gives an
            ``unknown_name`` warning.

    Returns:
        An :class:`AgentSkills`.

    Raises:
        StartupError: Bad configuration (SPEC §2).
        SkillError: Strict mode only (SPEC §7.5).
    """
    config = resolve_config(
        roots,
        workspace=workspace,
        cwd=cwd,
        home=home,
        strict=strict,
        follow_symlinks=follow_symlinks,
        max_resources=max_resources,
        trust=trust,
        index=index,
        max_depth=max_depth,
        disabled=disabled,
        max_manifest_bytes=max_manifest_bytes,
        max_resource_bytes=max_resource_bytes,
        only=only,
    )
    return AgentSkills(config)
