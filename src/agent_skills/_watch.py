"""Watching skill roots: refresh after changes settle, report what changed (SPEC §23.1).

Built on ``watchfiles`` (the optional ``watch`` extra), imported only when a watcher starts. A
:class:`SkillWatcher` watches every existing root recursively and, for a root that does not exist
yet, its nearest existing ancestor without recursion (so a ``.agents/skills`` created later is
picked up without watching a whole home directory). Events under hidden names, ``node_modules``
or ``__pycache__`` are ignored; any other event, once no new one arrived for ``debounce_ms``,
triggers :meth:`AgentSkills.refresh` (an atomic swap, SPEC §12). What changed is computed from
digests: the skill digest of SPEC §23.3 (manifest bytes, the set, sizes and contents of listed
files) of every skill under a changed path, compared with the digest taken before.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ._args import coerce_int
from ._config import SkillConfig
from ._diagnostics import get_logger
from ._errors import SkillError, StartupError, missing_extra
from ._model import SkillInfo, is_skipped, sort_key
from ._trust import digest_skill_dir

__all__ = ["DEFAULT_DEBOUNCE_MS", "SkillChanges", "SkillWatcher", "WatchedSkills"]

logger = get_logger()

#: How long changes must settle before a refresh, in milliseconds (SPEC §23.1).
DEFAULT_DEBOUNCE_MS = 200
# Directory names whose changes never concern a skill (SPEC §9 leaves them out).
# Longest a burst of changes is grouped before a refresh happens anyway, in milliseconds.
_MAX_GROUPING_MS = 5_000
# How often the thread looks at the stop flag, in milliseconds.
_TICK_MS = 100


class WatchedSkills(Protocol):
    """What a watcher keeps fresh: an :class:`~agent_skills.AgentSkills` (its configuration, the
    skills it serves now, and its atomic refresh)."""

    @property
    def config(self) -> SkillConfig:
        """The configuration whose roots are watched."""
        ...

    def list_skills(self) -> list[SkillInfo]:
        """The skills served now."""
        ...

    def refresh(self) -> None:
        """Rescan and swap the snapshot (SPEC §12)."""
        ...


@dataclass(frozen=True, slots=True)
class SkillChanges:
    """What one refresh changed (SPEC §23.1): skill names, each tuple sorted as SPEC §8.

    Attributes:
        added: Names served now and not before.
        removed: Names served before and not now.
        changed: Names served before and now whose manifest bytes, or the set, sizes or digests
            of whose listed files, differ (or which now come from another directory).
    """

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def _sorted(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(names, key=sort_key))


def _ignored(path: str, roots: Iterable[str]) -> bool:
    """Whether an event path lies under a hidden name, ``node_modules`` or ``__pycache__``."""
    for root in roots:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            parts = path[len(root) :].split(os.sep)
            return any(is_skipped(p) for p in parts if p)
    return False


def _touched_dirs(infos: Iterable[SkillInfo], paths: Iterable[str]) -> set[Path]:
    """The directories of the skills ``infos`` that the event ``paths`` touch: a path at or
    below a skill's directory, or its root itself (an archive root rewritten changes its skills,
    SPEC §25.1). Skills are indexed by directory first, so a batch costs one lookup per
    component of each event path (``O(events * depth)``), whatever the number of skills."""
    by_dir: dict[Path, Path] = {}
    by_root: dict[Path, list[Path]] = {}
    for info in infos:
        by_dir[info.dir] = info.dir
        by_root.setdefault(info.root, []).append(info.dir)
    hit: set[Path] = set()
    for text in paths:
        path = Path(text)
        hit.update(by_root.get(path, ()))
        for here in (path, *path.parents):
            found = by_dir.get(here)
            if found is not None:
                hit.add(found)
    return hit


def _nearest_existing(path: str) -> str:
    current = path
    while not os.path.isdir(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


def notifier_class() -> Any:
    """The ``watchfiles`` notifier class.

    Raises:
        StartupError: ``watchfiles`` is not installed (the ``watch`` extra).
    """
    try:
        from watchfiles._rust_notify import RustNotify
    except ImportError as exc:
        raise StartupError(missing_extra("watch", "watching skills", exc)) from None
    return RustNotify


class SkillWatcher:
    """Refreshes an :class:`~agent_skills.AgentSkills` when its roots change (SPEC §23.1).

    Get one from :meth:`AgentSkills.watch`; it is already watching when returned. Use it as a
    context manager, or call :meth:`stop`. ``on_change`` runs on the watcher's thread, after the
    refresh, only for refreshes that changed something; an exception it raises is logged.

    A watcher is also iterable: ``for changes in skills.watch(): ...`` yields the same
    :class:`SkillChanges`, in order, on the thread that iterates; see :meth:`__iter__`.

    Args:
        skills: The skills to keep fresh.
        on_change: Called with the :class:`SkillChanges` of each refresh that changed something.
        debounce_ms: How long changes must settle before the refresh, in milliseconds.

    Raises:
        StartupError: ``watchfiles`` is not installed (the ``watch`` extra), or ``debounce_ms``
            is not a positive ``int``.
    """

    def __init__(
        self,
        skills: WatchedSkills,
        on_change: Callable[[SkillChanges], object] | None = None,
        *,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    ) -> None:
        coerce_int(debounce_ms, "debounce_ms", minimum=1, startup=True)  # milliseconds
        self._notify_cls: Any = notifier_class()
        self._skills = skills
        self._on_change = on_change
        self._debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._roots = [os.fspath(root.path) for root in skills.config.roots]
        self._digests: dict[Path, str | None] = {}
        self._refreshes = 0
        self._pending: set[str] = set()
        # The changes kept for iteration: from the start without a callback (nothing a loop
        # started at once could miss), from the first iteration with one.
        self._changes: queue.SimpleQueue[SkillChanges] | None = (
            queue.SimpleQueue() if on_change is None else None
        )
        try:
            self._notifiers = self._watch_set()
        except (OSError, RuntimeError) as exc:  # e.g. the inotify watch limit
            raise StartupError(f"cannot watch the skill roots: {exc}") from None
        for info in skills.list_skills():
            self._digests[info.dir] = self._digest(info.dir)
        self._thread = threading.Thread(target=self._run, name="agent-skills-watch", daemon=True)
        self._thread.start()

    def __enter__(self) -> SkillWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """Whether the watcher thread is alive."""
        return self._thread.is_alive()

    @property
    def refreshes(self) -> int:
        """How many refreshes the watcher has run so far."""
        return self._refreshes

    def stop(self, timeout: float | None = 5.0) -> None:
        """Stop watching and wait (at most ``timeout`` seconds) for the thread to end.

        Safe from any thread and from a signal handler; a loop over the watcher ends (within
        0.1 s) once the changes already found are yielded.
        """
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __iter__(self) -> Iterator[SkillChanges]:
        """Yield the :class:`SkillChanges` of each refresh that changed something, as they come.

        Blocks between changes. The loop ends once the watcher is stopped (:meth:`stop`, from
        another thread or a signal handler) and the changes found before are yielded; leaving
        the loop (``break``, an exception, Ctrl-C's ``KeyboardInterrupt``) stops the watcher::

            try:
                for changes in skills.watch():
                    print(changes.added, changes.removed, changes.changed)
            except KeyboardInterrupt:
                pass  # the watcher has stopped

        Without ``on_change`` every change since the watcher started is yielded; with one, the
        changes from the first iteration on (the callback gets them all).
        """
        if self._changes is None:
            self._changes = queue.SimpleQueue()
        changes = self._changes
        try:
            while True:
                try:
                    yield changes.get(timeout=_TICK_MS / 1000)
                except queue.Empty:
                    if self._stop.is_set() or not self._thread.is_alive():
                        return
        finally:
            self.stop()

    # -- internals ---------------------------------------------------------------------------

    def _watch_set(self) -> list[tuple[Any, bool]]:
        """Notifiers: existing roots recursively, missing roots' nearest ancestors shallowly."""
        existing = sorted({r for r in self._roots if os.path.isdir(r)})
        awaited = sorted(
            {_nearest_existing(r) for r in self._roots if not os.path.isdir(r)} - set(existing)
        )
        notifiers: list[tuple[Any, bool]] = []
        for paths, recursive in ((existing, True), (awaited, False)):
            if paths:
                notifier = self._notify_cls(paths, False, False, 0, recursive, True)
                notifiers.append((notifier, recursive))
        return notifiers

    def _digest(self, skill_dir: Path) -> str | None:
        try:
            digest, _ = digest_skill_dir(
                skill_dir,
                follow_symlinks=self._skills.config.follow_symlinks,
                max_resources=self._skills.config.max_resources,
            )
        except SkillError:
            return None
        return digest

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:  # a fault of one round never ends the watching
                logger.exception("watching the skill roots failed; watching again")
                # The notifiers keep collecting events meanwhile: nothing is lost.
                if self._stop.wait(1.0):
                    break

    def _step(self) -> None:
        """Wait for one batch of changes (at most a tick), then refresh if they matter."""
        step = self._debounce_ms
        if self._stop.is_set():
            return
        paths: set[str] = set()
        rebuild = False
        for notifier, recursive in self._notifiers:
            # Only the first notifier waits; the others are looked at in passing.
            wait = _TICK_MS if notifier is self._notifiers[0][0] else 1
            result = notifier.watch(_MAX_GROUPING_MS, step, wait, self._stop)
            if isinstance(result, set):
                for _, path in result:
                    if path in self._roots:
                        rebuild = True  # a root itself appeared or went away
                        paths.add(path)
                    elif recursive:
                        if not _ignored(path, self._roots):
                            paths.add(path)
                    elif any(r == path or r.startswith(path + os.sep) for r in self._roots):
                        rebuild = True
                        paths.add(path)
        if not self._notifiers and self._stop.wait(_TICK_MS / 1000):
            return
        if self._stop.is_set():
            return
        if rebuild:
            self._notifiers = self._watch_set()
        # Paths of a batch whose refresh failed stay pending: the next batch compares their
        # skills again (no retry without new changes, so a broken tree is not rescanned in a loop).
        if paths:
            self._pending |= paths
            if self._refresh(self._pending):
                self._pending = set()

    def _refresh(self, paths: set[str]) -> bool:
        """Refresh and report; ``False`` when the refresh failed (the snapshot stays)."""
        skills = self._skills
        before = {info.name: info for info in skills.list_skills()}
        try:
            skills.refresh()
        except SkillError as err:  # strict mode: the previous snapshot stays
            logger.warning("refresh after a change failed, keeping the previous skills: %s", err)
            return False
        finally:
            self._refreshes += 1
        after = {info.name: info for info in skills.list_skills()}
        hit_dirs = _touched_dirs(after.values(), paths)
        changed: list[str] = []
        digests: dict[Path, str | None] = {}
        for name, info in after.items():
            old = before.get(name)
            if info.dir in hit_dirs or info.dir not in self._digests:
                digests[info.dir] = self._digest(info.dir)
            else:
                digests[info.dir] = self._digests[info.dir]
            if old is None:
                continue
            if old.dir != info.dir or self._digests.get(old.dir) != digests[info.dir]:
                changed.append(name)
        self._digests = digests
        changes = SkillChanges(
            added=_sorted(after.keys() - before.keys()),
            removed=_sorted(before.keys() - after.keys()),
            changed=_sorted(changed),
        )
        if changes and self._changes is not None:
            self._changes.put(changes)
        if changes and self._on_change is not None:
            try:
                self._on_change(changes)
            except Exception:
                logger.exception("the on_change callback of a skill watcher failed")
        return True
