"""The :class:`AgentSkills` facade: one immutable snapshot, swapped atomically on refresh (SPEC §1,
§8, §10, §12). It orchestrates and holds state; it does not parse or walk."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
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
from ._confine import read_capped
from ._diagnostics import Diagnostic, DiscoveryReport
from ._errors import ErrorCode, SkillError, fs_error
from ._model import GrantSet, SkillContent, SkillInfo
from ._registry import SkillRegistry, discover_skills

if TYPE_CHECKING:
    from ._trust import TrustStore
    from ._watch import SkillChanges, SkillWatcher

__all__ = ["AgentSkills", "create_agent_skills"]


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

    def __repr__(self) -> str:
        return f"AgentSkills({len(self)} skills, roots={[str(r.path) for r in self._config.roots]})"

    @property
    def config(self) -> SkillConfig:
        """The immutable configuration."""
        return self._config

    @property
    def registry(self) -> SkillRegistry:
        """The current snapshot."""
        return self._registry

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
        registry = self._registry
        path = registry.resource(name, rel)
        if registry.approval(name) is not None and self._config.trust is not None:
            self._read(registry, name, rel, None)  # the one gate of every access (SPEC §23.3)
        return path

    def open_resource(self, name: str, rel: str | os.PathLike[str]) -> IO[bytes]:
        """Open a resource race-free for binary reading (SPEC §10). The caller closes it.

        Raises:
            SkillError: As :meth:`resource_path`; the file is reached through descriptors with
                ``O_NOFOLLOW``, so a path swapped for an escaping symlink is ``path_escape``.
        """
        registry = self._registry
        if registry.approval(name) is None:
            return registry.open(name, rel)
        # A skill served under a trust approval: its bytes are checked before any is handed out.
        return io.BytesIO(self._read(registry, name, rel, None))

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
        return self._read(self._registry, name, rel, coerce_byte_limit(max_bytes))

    def _read(
        self,
        registry: SkillRegistry,
        name: str,
        rel: str | os.PathLike[str],
        max_bytes: int | None,
    ) -> bytes:
        data = self._read_bytes(registry, name, rel, max_bytes)
        approval = registry.approval(name)
        if approval is not None and self._config.trust is not None:
            skill = registry.lookup(name)
            assert skill is not None
            if registry.archived(name) is not None:
                from ._archive import member_rel

                rel_posix = member_rel(rel)  # SPEC §25.1: archived files have no path
            else:
                rel_posix = registry.resource(name, rel).relative_to(skill.info.dir).as_posix()
            self._config.trust.check_read(approval, name, rel_posix, data)
        return data

    def _read_bytes(
        self,
        registry: SkillRegistry,
        name: str,
        rel: str | os.PathLike[str],
        max_bytes: int | None,
    ) -> bytes:
        cap = self._config.max_resource_bytes if max_bytes is None else max_bytes
        with registry.open(name, rel) as fh:
            rel_text = os.fspath(rel)
            try:
                size = _opened_size(fh)
                data = read_capped(fh, size, cap)
            except OSError as exc:
                skill = registry.lookup(name)
                where = skill.info.dir / rel_text if skill is not None else Path(rel_text)
                raise fs_error(exc, where) from None
            if data is None:
                raise SkillError(
                    ErrorCode.TOO_LARGE,
                    f"Resource '{rel_text}' in skill '{name}' is larger than {cap} bytes",
                    {"name": name, "rel": rel_text, "size": max(size, cap + 1), "max_bytes": cap},
                )
            return data

    def refresh(self) -> None:
        """Rescan with the same config and swap the snapshot atomically (SPEC §12).

        Raises:
            SkillError: In strict mode, as :func:`discover_skills`; the previous snapshot stays.
        """
        with self._refresh_lock:
            self._registry = discover_skills(self._config)

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
        nothing.

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
        registry = self._registry
        approval = registry.approval(name)
        store = self._config.trust
        if approval is None or store is None:
            return True
        skill = registry.lookup(name)
        if skill is None or skill.pin is None:
            return False
        return store.still_approved(
            approval,
            skill.pin,
            skill.info.dir,
            skill.info.path.name,
            name=name,
            follow_symlinks=self._config.follow_symlinks,
            max_resources=self._config.max_resources,
        )

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
        (SPEC §14, §20.1).

        Each pin is verified when called: a skill whose directory was replaced, renamed away or
        turned into a link since discovery is left out, and so is a gated skill whose files no
        longer match its approval (hashed when called, SPEC §23.3). For hosts that pre-approve every
        discovered skill in their own permission system; the paths are right when returned.
        """
        registry = self._registry
        roots: list[Path] = []
        for info in registry.list():
            if registry.archived(info.name) is not None:
                continue  # SPEC §25.1: an archived skill has no directory to grant
            try:
                pin = registry.verify(info.name)
            except SkillError:
                continue  # stale or unreachable now: grant nothing for it
            if not self.still_approved(info.name):
                continue  # SPEC §23.3: a gated skill changed since approval grants nothing
            roots.append(info.real_dir if info.real_dir is not None else Path(pin.real_dir))
        return roots


def _opened_size(fh: IO[bytes]) -> int:
    """The size of an opened resource: ``fstat`` of its descriptor, or the declared size of an
    archive member streamed from its archive (SPEC §25.1)."""
    size = getattr(fh, "size", None)
    return size if isinstance(size, int) else os.fstat(fh.fileno()).st_size


def create_agent_skills(
    roots: Sequence[RootInput],
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
) -> AgentSkills:
    """Resolve the configuration and scan the roots once (SPEC §1-§2).

    Args:
        roots: Ordered roots, lowest precedence first (see ``resolve_config``).
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
    )
    return AgentSkills(config)
