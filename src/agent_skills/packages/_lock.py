"""Lock files: what a scope's skills are, file by file, and the drift from it (SPEC §25.3-§25.4).

Owns the lock's format, where a scope's lock lives (:func:`lock_path`) and how two locks differ.
The digests are ``_digest``'s; the files of a skill are what discovery lists (SPEC §9).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Literal

from .._args import coerce_path
from .._config import Scope, SkillRoot
from .._core import AgentSkills
from .._digest import FileDigest, digest_files, skill_digest
from .._errors import ErrorCode, SkillError, fs_error, invalid_input
from .._fs import LIST_FLAGS
from .._jsonfile import read_json_file
from .._members import MAX_MEMBERS, MAX_TOTAL_BYTES
from .._model import sort_key
from .._terminal import json_text, undecodable_text
from ._pack import write_atomic
from ._sources import SourceSkill, dir_skill

__all__ = [
    "LOCK_NAME",
    "LOCK_VERSION",
    "MAX_LOCK_BYTES",
    "FileChange",
    "FileStatus",
    "SkillDrift",
    "held_directory",
    "lock_bytes",
    "lock_dir_of",
    "lock_entry",
    "lock_held",
    "lock_path",
    "lock_scopes",
    "lock_skills",
    "merge_lock",
    "read_lock",
    "scoped_skills",
    "verify_lock",
    "write_lock",
]

LOCK_NAME = "skills.lock.json"


LOCK_VERSION = 1


def lock_path(home: str | os.PathLike[str], workspace: str | os.PathLike[str], scope: str) -> Path:
    """Where the lock of an install scope lives (SPEC §25.4): ``~/.agents/skills.lock.json``
    for the user scope (``"user"``), ``<workspace>/skills.lock.json`` for the project scope
    (any other value: ``"project"``, ``"workspace"``)."""
    if scope == "user":
        return Path(home) / ".agents" / LOCK_NAME
    return Path(workspace) / LOCK_NAME


def scoped_skills(
    skills: AgentSkills, scopes: Iterable[Scope] | None, extra_roots: Sequence[SkillRoot] = ()
) -> AgentSkills:
    """A new :class:`AgentSkills` over the roots of ``skills`` whose scope is in ``scopes``,
    listing up to ``MAX_MEMBERS`` files per skill (as an install copies them) or more if
    ``skills`` does.

    Args:
        skills: The configured skills (their config is reused: limits, symlink policy, ...).
        scopes: Scopes to keep; ``None`` keeps every root (``lock --all``).
        extra_roots: Roots appended (highest precedence) when not already configured.

    Returns:
        Skills discovered from those roots only, so a user's own skills can neither shadow nor
        join a project's lock (SPEC §25.3).
    """
    keep = None if scopes is None else set(scopes)
    roots = [r for r in skills.config.roots if keep is None or r.scope in keep]
    known = {r.path for r in roots}
    roots.extend(r for r in extra_roots if r.path not in known)
    # A skill's files as an install copies and records them (up to MAX_MEMBERS, SPEC §25.4),
    # so a lock or check of an installed skill lists what its install recorded.
    most = max(skills.config.max_resources, MAX_MEMBERS)
    return AgentSkills(replace(skills.config, roots=tuple(roots), max_resources=most))


def _display_dir(path: Path, workspace: Path) -> str:
    try:
        return (
            Path(os.path.relpath(path, workspace)).as_posix()
            if path.is_relative_to(workspace)
            else str(path)
        )
    except ValueError:
        return str(path)


def _hash_skill(skills: AgentSkills, name: str) -> tuple[FileDigest, ...]:
    """The file digests of the skill ``name`` as served now: its manifest and listed resources,
    read through the facade from one snapshot (``_digest.digest_files``)."""
    served = skills.served(name)
    if served is None or served.withheld:
        raise SkillError(ErrorCode.NOT_FOUND, f"No such skill: {name}", {"name": name})
    content = served.content()
    if content.resources_truncated:  # a lock that left files out could not see them change
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{content.dir} has more files than a lock records ({len(content.resources)}), or "
            "directories too deep to list",
            {"path": str(content.dir), "max_files": len(content.resources)},
        )
    rels = [content.path.name, *(r.rel for r in content.resources)]
    return digest_files(rels, served.open, max_bytes=MAX_TOTAL_BYTES, where=str(content.dir))


def _entry(
    *,
    name: str,
    scope: str,
    source: str,
    dir_: str,
    files: Sequence[FileDigest],
    origin: Mapping[str, Any] | None,
    version: str | None = None,
) -> dict[str, Any]:
    """One lock entry. Every path is written as ``undecodable_text`` gives it (an undecodable byte
    of a file name as the four characters ``\\xNN``, SPEC §20.8), so the entry is valid UTF-8
    JSON and an entry recomputed from the same tree compares equal to the one read back. The
    skill's ``version`` (SPEC §29.7) and its ``origin`` are written when known."""
    entry: dict[str, Any] = {
        "name": undecodable_text(name),
        "scope": scope,
        "source": source,
        "dir": undecodable_text(dir_),
        "digest": skill_digest(files),
        "files": [
            {"path": undecodable_text(f.rel), "size": f.size, "sha256": f.sha256} for f in files
        ],
    }
    if version is not None:
        entry["version"] = version
    if origin is not None:
        entry["origin"] = dict(origin)
    return entry


def _hash_source(skill: SourceSkill) -> tuple[FileDigest, ...]:
    """The file digests of a source skill's files (manifest and listed resources), each read
    through the pin its directory was read by (``_sources.dir_skill``)."""
    openers = {source.rel: source.open for source in skill.files}
    return digest_files(
        openers, lambda rel: openers[rel](), max_bytes=MAX_TOTAL_BYTES, where=skill.where
    )


def _entry_key(entry: Mapping[str, Any]) -> tuple[tuple[str, str], str]:
    return sort_key(str(entry.get("name", ""))), str(entry.get("dir", ""))


def lock_skills(
    skills: AgentSkills,
    *,
    workspace: str | os.PathLike[str],
    origins: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Build the lock of every skill directory of ``skills`` (SPEC §25.3, §25.5).

    A name found in several roots has one entry per copy: the copy discovery serves and every
    copy it shadows, each with its own ``dir`` and digest, so an edit of any locked directory is
    seen by :func:`verify_lock` (entries are keyed by ``dir``).

    Args:
        skills: The skills to lock (see :func:`scoped_skills` to keep one scope).
        workspace: ``dir`` is written relative to it (POSIX) when inside it, else absolute.
        origins: ``{dir: {source, ref, commit}}`` recorded by installs, keyed by the ``dir`` as
            the lock writes it; other entries get no ``origin`` key.

    Returns:
        ``{"version": 1, "skills": [{name, scope, source, dir, digest, files: [{path, size,
        sha256}], origin?}]}``, entries sorted by ``(casefold, name)`` then ``dir``, files by
        code point. Each digest is ``sha256:<hex>`` as the MCP extension serves it; ``digest`` is
        the skill digest of SPEC §23.3. Undecodable bytes of names are written ``\\xNN``.

    Each skill's files are those ``skills`` lists (:func:`scoped_skills` lists as many as an
    install copies, ``MAX_MEMBERS``), hashed no further than ``MAX_TOTAL_BYTES`` per skill.

    Raises:
        SkillError: A file listed a moment ago cannot be read (``not_found``, ``stale_skill``,
            ``io_error``, ...); ``too_large`` ``{path, max_bytes}`` for a skill holding more
            than ``MAX_TOTAL_BYTES`` (what an install copies at most, SPEC §25.1, §30.3), and
            ``{path, max_files}`` for one whose listing ``skills`` cuts (more files than it
            lists, or directories too deep): a lock never leaves out a file it could not see.
    """
    ws = Path(os.path.abspath(coerce_path(workspace, "workspace")))
    known = origins or {}
    entries: list[dict[str, Any]] = []

    def add(
        name: str,
        scope: str,
        source: str,
        path: Path,
        files: Sequence[FileDigest],
        version: str | None,
    ) -> None:
        shown = _display_dir(path, ws)
        entries.append(
            _entry(
                name=name,
                scope=scope,
                source=source,
                dir_=shown,
                files=files,
                origin=known.get(undecodable_text(shown)),
                version=version,
            )
        )

    for info in skills.list_skills():
        files = _hash_skill(skills, info.name)
        add(info.name, info.scope, info.source, info.dir, files, info.version)
        for copy in info.shadowed:
            try:
                skill = dir_skill(copy.dir)
                files = _hash_source(skill)
            except SkillError:
                continue  # not a readable skill directory (e.g. an archived copy)
            add(info.name, copy.scope, copy.source, copy.dir, files, skill.version)
    entries.sort(key=_entry_key)
    return {"version": LOCK_VERSION, "skills": entries}


def lock_entry(
    skill_dir: str | os.PathLike[str],
    *,
    scope: Scope,
    source: str,
    workspace: str | os.PathLike[str],
    origin: Mapping[str, Any] | None = None,
    at: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """The lock entry of one installed skill directory, as :func:`lock_skills` writes it.

    It describes that directory itself (its ``dir``, digest and version), whether or not
    discovery serves another copy of the name from a root of higher precedence (SPEC
    §25.3-§25.4).

    Args:
        skill_dir: The directory hashed.
        scope: The ``scope`` written.
        source: The root's source label written.
        workspace: ``dir`` is written relative to it when inside it.
        origin: ``{source, ref, commit}`` of an install.
        at: The ``dir`` the entry names, when not ``skill_dir`` itself (a copy staged before
            it is renamed into place).

    Raises:
        SkillError: ``invalid_skill`` when the directory has no usable manifest; ``too_large``
            as :func:`~._sources.dir_skill` raises it, and ``{path, max_bytes}`` for more than
            ``MAX_TOTAL_BYTES``; ``fs_error`` codes.
    """
    path = Path(os.path.abspath(coerce_path(skill_dir, "skill_dir")))
    named = path if at is None else Path(os.path.abspath(coerce_path(at, "at")))
    ws = Path(os.path.abspath(coerce_path(workspace, "workspace")))
    skill = dir_skill(path)
    return _entry(
        name=skill.name,
        scope=scope,
        source=source,
        dir_=_display_dir(named, ws),
        files=_hash_source(skill),
        origin=origin,
        version=skill.version,
    )


def lock_dir_of(path: str | os.PathLike[str], workspace: str | os.PathLike[str]) -> str:
    """The ``dir`` a lock entry of the skill directory ``path`` holds: relative to ``workspace``
    (POSIX) when inside it, else absolute, undecodable bytes written ``\\xNN``."""
    ws = Path(os.path.abspath(coerce_path(workspace, "workspace")))
    return undecodable_text(_display_dir(Path(os.path.abspath(os.fspath(path))), ws))


def merge_lock(
    lock: Mapping[str, Any],
    put: Iterable[Mapping[str, Any]] = (),
    drop: Iterable[str | os.PathLike[str]] = (),
    *,
    workspace: str | os.PathLike[str],
) -> dict[str, Any]:
    """``lock`` with the entries of ``put`` and without those of the directories ``drop``.

    ``add``, ``update`` and ``remove`` change only the entries of what they install or remove:
    every other entry is kept exactly as it was in the lock, so drift that ``verify`` would
    report is never written over (SPEC §25.4).

    Args:
        lock: The lock read (from :func:`read_lock`), or ``{}`` for none.
        put: Entries (from :func:`lock_entry`) replacing any entry of the same ``dir``.
        drop: Skill directories whose entries are removed.
        workspace: As for :func:`lock_skills` (to write ``drop`` as the lock does).

    Returns:
        A version-1 lock, entries sorted as :func:`lock_skills` sorts them.
    """
    new = [dict(e) for e in put]
    gone = {e["dir"] for e in new}
    gone.update(lock_dir_of(d, workspace) for d in drop)
    kept = [dict(e) for e in lock.get("skills", []) if e.get("dir") not in gone]
    entries = sorted([*kept, *new], key=_entry_key)
    return {"version": LOCK_VERSION, "skills": entries}


@contextmanager
def held_directory(directory: str | os.PathLike[str], *, shared: bool = False) -> Iterator[None]:
    """Hold a ``flock`` on ``directory`` (created when missing) while the block runs.

    The one lock of a scope's packages: ``add``, ``update`` and ``remove`` change the install
    root and the lock under the exclusive lock of the lock file's directory (:func:`lock_held`),
    so the tree and the lock move together and concurrent commands take turns (SPEC §25.4).
    POSIX; elsewhere no lock is taken.

    Args:
        directory: The directory locked.
        shared: A reader's lock instead (``verify``): held beside other readers, never beside a
            writer, so a reader never sees half of a change. A directory that is missing, cannot
            be opened or cannot be locked is then read without a lock (a reader needs no write
            access, and a lock is no reason to refuse a read).

    Raises:
        SkillError: ``fs_error`` codes when the directory cannot be created, opened or locked
            (never with ``shared``).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    path = os.fspath(directory)
    fd = -1
    try:
        if not shared:
            os.makedirs(path, exist_ok=True)
        fd = os.open(path, LIST_FLAGS)
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
    except OSError as exc:
        if fd >= 0:
            os.close(fd)
            fd = -1
        if not shared:
            raise fs_error(exc, path) from None
    try:
        yield
    finally:
        if fd >= 0:
            os.close(fd)


def lock_held(
    path: str | os.PathLike[str], *, shared: bool = False
) -> AbstractContextManager[None]:
    """The lock of the lock file ``path``: :func:`held_directory` of its directory, exclusive
    or (``shared``) a reader's."""
    return held_directory(Path(os.path.abspath(os.fspath(path))).parent, shared=shared)


def lock_bytes(lock: Mapping[str, Any]) -> bytes:
    """The bytes of a lock file: indented UTF-8 JSON with a final newline."""
    return (json_text(lock) + "\n").encode("utf-8")


def write_lock(
    path: str | os.PathLike[str], lock: Mapping[str, Any], *, held: bool = False
) -> None:
    """Write a lock as indented JSON with a final newline, atomically (temporary file, rename),
    under the lock of its directory (:func:`lock_held`).

    Args:
        path: The lock file.
        lock: The lock mapping.
        held: The caller already holds :func:`lock_held` of ``path``.

    Raises:
        SkillError: ``fs_error`` codes when the file cannot be written.
    """
    target = Path(coerce_path(path, "path"))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fs_error(exc, target.parent) from None
    data = lock_bytes(lock)

    def write(out: IO[bytes]) -> None:
        out.write(data)

    if held:
        write_atomic(target, write)
        return
    with lock_held(target):
        write_atomic(target, write)


#: The largest lock file read back, in bytes.
MAX_LOCK_BYTES = 64 * 1024 * 1024


def read_lock(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check a lock file (SPEC §25.5).

    Returns:
        The lock mapping, ``{"version": 1, "skills": [...]}``.

    Raises:
        SkillError: ``not_found`` ``{path}`` when missing; ``invalid_input`` ``{path, reason}``
            when it is not a version-1 lock (also not UTF-8 JSON, or nested deeper than 64
            levels); ``not_a_file`` ``{path}`` for a directory, FIFO or device (never waited
            on); ``too_large`` ``{path, max_bytes}`` over :data:`MAX_LOCK_BYTES`; other
            ``fs_error`` codes.
    """
    text_path = coerce_path(path, "path")

    def bad(reason: str) -> SkillError:
        return invalid_input(
            f"{text_path} is not a skills lock: {reason}", {"path": text_path, "reason": reason}
        )

    try:  # a FIFO never blocks, nesting and size are bounded (SPEC §20.4-§20.6)
        lock = read_json_file(text_path, max_bytes=MAX_LOCK_BYTES, what="skills lock")
    except SkillError as err:
        if err.code != ErrorCode.INVALID_INPUT:
            raise
        raise bad(str(err.fields["reason"])) from None
    if not isinstance(lock, dict) or lock.get("version") != LOCK_VERSION:
        raise bad(f"expected an object with version {LOCK_VERSION}")
    entries = lock.get("skills")
    if not isinstance(entries, list):
        raise bad("'skills' is not a list")
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise bad("a skill entry has no name")
        files = entry.get("files")
        if not isinstance(files, list) or not all(
            isinstance(f, dict)
            and isinstance(f.get("path"), str)
            and isinstance(f.get("sha256"), str)
            and isinstance(f.get("size"), int)
            for f in files
        ):
            raise bad(f"skill {entry['name']!r} has malformed files")
        origin = entry.get("origin")
        if origin is not None and not (
            isinstance(origin, dict)
            and isinstance(origin.get("source"), str)
            and all(origin.get(k) is None or isinstance(origin[k], str) for k in ("ref", "commit"))
        ):
            raise bad(f"skill {entry['name']!r} has a malformed origin")
        if not isinstance(entry.get("dir", ""), str) or not isinstance(
            entry.get("version", ""), str
        ):
            raise bad(f"skill {entry['name']!r} has a malformed dir or version")
    return lock


def lock_scopes(lock: Mapping[str, Any]) -> set[Scope]:
    """The scopes a lock covers: those of its entries, ``{"workspace"}`` for an empty lock."""
    scopes: set[Scope] = set()
    for entry in lock.get("skills", []):
        if entry.get("scope") in ("user", "workspace"):
            scopes.add(entry["scope"])
    return scopes or {"workspace"}


FileStatus = Literal["added", "removed", "changed"]


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file that differs from the lock: ``status`` and its ``path`` relative to the skill."""

    status: FileStatus
    path: str


@dataclass(frozen=True, slots=True)
class SkillDrift:
    """One skill that differs from the lock (SPEC §25.3).

    Attributes:
        name: The skill's name.
        status: ``added`` (not in the lock), ``removed`` (locked, not found) or ``changed``.
        dir: Its directory as the lock writes it (current one when present).
        files: For ``changed``: every added, removed and changed file, sorted by path.
        moved_from: For ``changed``: the locked ``dir`` when the skill now lives elsewhere.
    """

    name: str
    status: FileStatus
    dir: str
    files: tuple[FileChange, ...] = ()
    moved_from: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON shape: ``{name, status, dir, files: [{status, path}], moved_from}``."""
        return {
            "name": self.name,
            "status": self.status,
            "dir": self.dir,
            "files": [{"status": f.status, "path": f.path} for f in self.files],
            "moved_from": self.moved_from,
        }


def verify_lock(lock: Mapping[str, Any], current: Mapping[str, Any]) -> list[SkillDrift]:
    """Compare a lock with a freshly computed one (SPEC §25.3). Pure.

    Args:
        lock: The committed lock (from :func:`read_lock`).
        current: :func:`lock_skills` of the same scopes now.

    Returns:
        Every drifted skill directory sorted by ``(casefold, name)`` then ``dir``; empty when
        nothing changed. Entries are matched by ``dir``; a name whose one locked copy is gone and
        which has one new copy is ``changed`` with ``moved_from``. Only listed files count
        (hidden and other unlisted files are no part of a digest).
    """
    # Entries are keyed by dir (one per locked copy, SPEC §25.3); a copy whose dir changed is
    # the one locked copy of its name that vanished paired with the one new copy of that name.
    old = {str(e.get("dir", "")): e for e in lock.get("skills", [])}
    new = {str(e.get("dir", "")): e for e in current.get("skills", [])}
    pairs: list[tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]] = [
        (old[d], new[d]) for d in old.keys() & new.keys()
    ]
    gone = [old[d] for d in old.keys() - new.keys()]
    came = [new[d] for d in new.keys() - old.keys()]
    for name in {e["name"] for e in gone}:
        was = [e for e in gone if e["name"] == name]
        now = [e for e in came if e["name"] == name]
        if len(was) == 1 and len(now) == 1:
            pairs.append((was[0], now[0]))
            gone.remove(was[0])
            came.remove(now[0])
    pairs.extend((e, None) for e in gone)
    pairs.extend((None, e) for e in came)
    drift: list[SkillDrift] = []
    for before, after in pairs:
        if after is None:
            assert before is not None
            drift.append(SkillDrift(before["name"], "removed", str(before.get("dir", ""))))
            continue
        if before is None:
            drift.append(SkillDrift(after["name"], "added", str(after.get("dir", ""))))
            continue
        old_files = {f["path"]: (f["size"], f["sha256"]) for f in before.get("files", [])}
        new_files = {f["path"]: (f["size"], f["sha256"]) for f in after.get("files", [])}
        changes: list[FileChange] = []
        for rel in sorted(old_files.keys() | new_files.keys()):
            if rel not in new_files:
                changes.append(FileChange("removed", rel))
            elif rel not in old_files:
                changes.append(FileChange("added", rel))
            elif old_files[rel] != new_files[rel]:
                changes.append(FileChange("changed", rel))
        moved = before.get("dir") != after.get("dir")
        if changes or moved or before.get("digest") != after.get("digest"):
            drift.append(
                SkillDrift(
                    after["name"],
                    "changed",
                    str(after.get("dir", "")),
                    tuple(changes),
                    str(before.get("dir")) if moved else None,
                )
            )
    drift.sort(key=lambda d: (sort_key(d.name), d.dir))
    return drift
