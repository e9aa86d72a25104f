"""Installing, updating and removing skills in a root (SPEC §25.4-§25.5, §29.7, §30.1).

Owns the install transaction, and what it proves before it touches a user's files:

- **where**: the install root is reached from its base (the workspace, the home folder) through
  real directories only, and the lock is a regular file, never a link, so a repository whose
  ``.agents/skills`` is a link to ``~/.agents/skills`` cannot make a command write there;
- **what**: nothing is replaced or deleted that the lock does not show was installed, with its
  digest, unless the caller forces it; local edits are named, never discarded in silence;
- **when**: the tree and the lock change under one file lock (``_lock.lock_held``), in one
  transaction whose journal lets the next command finish it or undo it: a process killed at any
  point leaves the previous install and the previous lock, or (past the lock's replacement,
  the commit point) the new ones.

What a source holds is ``_sources``'; the lock's format is ``_lock``'s.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .._args import coerce_bool, coerce_path, shown_text
from .._config import Scope, SkillRoot
from .._diagnostics import Diagnostic, DiagnosticKind, emit
from .._digest import digest_stream
from .._errors import ErrorCode, SkillError, fs_error, invalid_input
from .._fs import CLOEXEC, FILE_FLAGS, NOFOLLOW, read_limited
from .._jsonfile import decode_json
from .._model import (
    INSTALL_ASIDE_PREFIX,
    INSTALL_JOURNAL_PREFIXES,
    INSTALL_JOURNAL_RE,
    INSTALL_STAGING_PREFIX,
    sort_key,
)
from .._registry import suggest_names
from .._schema import name_problem
from .._terminal import undecodable_text
from ._lock import (
    LOCK_NAME,
    MAX_LOCK_BYTES,
    FileChange,
    held_directory,
    lock_bytes,
    lock_dir_of,
    lock_entry,
    merge_lock,
    read_lock,
)
from ._pack import CHUNK, fsync_dir, refuse_invalid, unlink, write_atomic
from ._sources import (
    ReadBudget,
    Source,
    SourceFile,
    SourceSkill,
    dir_skill,
    is_executable,
    opened_source,
    parse_source,
)

__all__ = [
    "MAX_JOURNALS",
    "MAX_OWNED_FILES",
    "Installed",
    "install_skills",
    "pending_journals",
    "recover_root",
    "recover_roots",
    "remove_skill",
    "update_skills",
]

# The names of a transaction's work, which discovery knows too (SPEC §25.4).
_TMP_PREFIX, _OLD_PREFIX = INSTALL_STAGING_PREFIX, INSTALL_ASIDE_PREFIX
_JOURNAL_PREFIX, _DONE_PREFIX = INSTALL_JOURNAL_PREFIXES
_JOURNAL_RE = INSTALL_JOURNAL_RE
_OLD_RE = re.compile(rf"^{re.escape(_OLD_PREFIX)}([0-9a-f]{{8}}|[0-9a-f]{{16}})-(.+)$")

#: Most entries of an installed skill directory looked at before it is replaced or removed.
MAX_OWNED_FILES = 10_000

# The largest journal read back, in bytes.
_MAX_JOURNAL_BYTES = 1 << 20

#: Most recovery journals one command reads (oldest first); the others wait for the next one.
MAX_JOURNALS = 64

# A journal that cannot be read or trusted is renamed to this, kept for inspection, never read.
_SET_ASIDE_PREFIX = ".agent-skills-bad-"


@dataclass(frozen=True, slots=True)
class Installed:
    """One skill installed, updated or removed.

    Attributes:
        name: The skill's name.
        dir: Its directory in the target root.
        replaced: Whether an existing copy was replaced (or, for a removal, removed).
        origin: ``{source, ref, commit}`` as recorded in the lock (credentials never in it).
        warnings: ``(code, message)`` pairs about files left out (links leading outside, link
            members); the code is the diagnostic's kind (``escaping_symlink``, ...).
        version: The version installed (SPEC §29.7), or ``None``.
        previous_version: The version replaced, or ``None``.
        unchanged: For an update: the copy installed has the digest the lock recorded before
            (the source holds the same files; only the recorded commit may have moved).
    """

    name: str
    dir: Path
    replaced: bool
    origin: Mapping[str, Any] | None = None
    warnings: tuple[tuple[str, str], ...] = ()
    version: str | None = None
    previous_version: str | None = None
    unchanged: bool = False


# -- where: the root and the lock, proved ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Place:
    """An install root and its lock, checked (see :func:`_place`)."""

    root: Path
    scope: Scope
    label: str
    lock: Path | None
    workspace: Path

    @property
    def guard(self) -> Path:
        """The directory whose ``flock`` guards the tree and the lock."""
        return self.lock.parent if self.lock is not None else self.root


def _linked(link: Path, what: str, where: Path) -> SkillError:
    return SkillError(
        ErrorCode.PATH_ESCAPE,
        f"{what} {where} is reached through the link {link}: agent-skills never installs, "
        "updates or removes through a link",
        {"path": str(where), "link": str(link)},
    )


def _place(
    root: str | os.PathLike[str] | SkillRoot,
    lock: str | os.PathLike[str] | None,
    workspace: str | os.PathLike[str] | None,
    base: str | os.PathLike[str] | None,
) -> _Place:
    """The install root and lock, created when missing, proved to be where they claim.

    Every component of the root below ``base`` (and the root itself) must be a real directory,
    not a link; the lock must not be a link. ``base`` defaults to the workspace when the root is
    inside it, else to the root's parent.

    Raises:
        SkillError: ``path_escape`` ``{path, link}`` for a link on the way; ``invalid_input``
            for bad arguments; ``fs_error`` codes.
    """
    if isinstance(root, SkillRoot):
        scope, label, given = root.scope, root.source, os.fspath(root.path)
    else:
        scope, label, given = "workspace", "", coerce_path(root, "root", usable=True)
    root_path = Path(os.path.abspath(given))
    lock_path = None if lock is None else Path(os.path.abspath(coerce_path(lock, "lock")))
    if workspace is not None:
        ws = Path(os.path.abspath(coerce_path(workspace, "workspace")))
    else:
        ws = lock_path.parent if lock_path is not None else root_path.parent
    if base is not None:
        top = Path(os.path.abspath(coerce_path(base, "base")))
    else:
        top = ws if root_path.is_relative_to(ws) and root_path != ws else root_path.parent
    parts = root_path.relative_to(top).parts if root_path.is_relative_to(top) else ()
    here = top if parts else root_path.parent
    try:
        os.makedirs(here, exist_ok=True)
    except OSError as exc:
        raise fs_error(exc, here) from None
    for part in parts or (root_path.name,):
        here = here / part
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            try:
                os.mkdir(here, 0o755)
            except FileExistsError:
                pass
            except OSError as exc:
                raise fs_error(exc, here) from None
            st = os.lstat(here)
        except OSError as exc:
            raise fs_error(exc, here) from None
        if stat.S_ISLNK(st.st_mode):
            raise _linked(here, "the install root", root_path)
        if not stat.S_ISDIR(st.st_mode):
            raise SkillError(ErrorCode.NOT_A_FILE, f"not a directory: {here}", {"path": str(here)})
    if lock_path is not None and os.path.islink(lock_path):
        raise _linked(lock_path, "the lock", lock_path)
    return _Place(root_path, scope, label, lock_path, ws)


def _skill_name(name: object, lock: Path | None = None) -> str:
    """``name`` when it may be joined to an install root: a skill name by the loader's rule
    (``_schema.name_problem``: no separator, no NUL or other control character, not made of
    dots), so ``<root>/<name>`` is a child of the root (SPEC §25.4).

    Args:
        name: A name given by the caller, or read from ``lock`` (a lock comes with a cloned
            repository: its author chooses it).
        lock: The lock the name was read from, for the message.

    Raises:
        SkillError: ``invalid_input`` ``{name}`` (and ``lock``) for anything else.
    """
    if isinstance(name, str) and name_problem(name) is None:
        return name
    if lock is None:
        raise invalid_input(f"not a skill name: {name!r}", {"name": shown_text(name)})
    raise invalid_input(
        f"{lock} has an entry whose name is not a skill name: {shown_text(name)!r}; "
        "nothing was changed",
        {"name": shown_text(name), "lock": str(lock)},
    )


def _read_place_lock(place: _Place) -> dict[str, Any]:
    """The lock of ``place`` as it is now (``{}`` when there is none)."""
    if place.lock is None or not os.path.lexists(place.lock):
        return {}
    return read_lock(place.lock)


def _owned(lock: Mapping[str, Any], place: _Place, name: str) -> dict[str, Any] | None:
    """The lock entry showing ``name`` was installed into this root: the entry whose ``dir`` is
    ``<root>/<name>`` and which records an ``origin``; ``None`` when there is none."""
    where = lock_dir_of(place.root / name, place.workspace)
    for entry in lock.get("skills", []):
        if entry.get("dir") == where and entry.get("name") == name and "origin" in entry:
            return dict(entry)
    return None


# -- what: the copy a lock shows, compared with the tree -------------------------------------


def _on_disk(target: Path) -> dict[str, tuple[int, str]] | None:
    """Every entry below ``target`` as ``{rel: (size, sha256)}``, links and special files with
    size ``-1``; nothing is followed. ``None`` past :data:`MAX_OWNED_FILES` entries."""
    found: dict[str, tuple[int, str]] = {}
    todo: list[tuple[Path, str]] = [(target, "")]
    while todo:
        directory, prefix = todo.pop()
        with os.scandir(directory) as it:
            entries = list(it)
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            if len(found) >= MAX_OWNED_FILES:
                return None
            if entry.is_dir(follow_symlinks=False):
                todo.append((Path(entry.path), rel + "/"))
                continue
            if not entry.is_file(follow_symlinks=False):
                found[undecodable_text(rel)] = (-1, "")
                continue
            fd = os.open(entry.path, FILE_FLAGS)
            with os.fdopen(fd, "rb") as fh:
                found[undecodable_text(rel)] = digest_stream(fh)
    return found


def _tree_proof(target: Path) -> str | None:
    """A sha256 of everything below ``target`` (:func:`_on_disk`: names, sizes and contents,
    hidden files and links included); ``None`` past :data:`MAX_OWNED_FILES` entries or when it
    cannot be read whole. Two trees with the same proof hold the same entries."""
    try:
        disk = _on_disk(target)
    except OSError:
        return None
    if disk is None:
        return None
    return _sha(json.dumps(sorted(disk.items())).encode("utf-8", "surrogatepass"))


def _lost_edits(target: Path, entry: Mapping[str, Any]) -> list[FileChange]:
    """What replacing or deleting ``target`` would lose against the lock ``entry``: every file
    changed since it was installed and every entry added (hidden files and links included),
    sorted by path. A file the lock lists that is gone loses nothing and is not named."""
    try:
        disk = _on_disk(target)
    except OSError as exc:
        raise fs_error(exc, target) from None
    if disk is None:
        return [FileChange("added", f"(more than {MAX_OWNED_FILES} entries)")]
    locked = {f["path"]: (f["size"], f["sha256"]) for f in entry.get("files", [])}
    changes: list[FileChange] = []
    for rel in sorted(disk):
        if rel not in locked:
            changes.append(FileChange("added", rel))
        elif disk[rel] != locked[rel]:
            changes.append(FileChange("changed", rel))
    return changes


def _refuse_unowned(
    place: _Place, name: str, entry: Mapping[str, Any] | None, verb: str, flag: str
) -> None:
    """Refuse to replace or delete ``<root>/<name>`` unless the lock shows it was installed
    there and nothing in it changed since (SPEC §25.4: nothing is lost in silence).

    Raises:
        SkillError: ``access_denied`` ``{name, path, reason}`` with ``reason``
            ``not_installed`` (no lock entry with an origin names it), ``not_a_directory`` (a
            link or a file stands there) or ``local_changes`` (and ``files``: ``[{status,
            path}]``).
    """
    target = place.root / name
    where = place.lock if place.lock is not None else "no lock"
    if entry is None:
        raise SkillError(
            ErrorCode.ACCESS_DENIED,
            f"{target} was not installed by agent-skills ({where} records no install of "
            f"'{name}' there); {verb} it with {flag}",
            {"name": name, "path": str(target), "reason": "not_installed"},
        )
    if os.path.islink(target) or not os.path.isdir(target):
        raise SkillError(
            ErrorCode.ACCESS_DENIED,
            f"{target} is not the directory agent-skills installed (a link or a file stands "
            f"there); {verb} it with {flag}",
            {"name": name, "path": str(target), "reason": "not_a_directory"},
        )
    lost = _lost_edits(target, entry)
    if lost:
        shown = ", ".join(f"{c.path} ({c.status})" for c in lost[:10])
        more = f" and {len(lost) - 10} more" if len(lost) > 10 else ""
        raise SkillError(
            ErrorCode.ACCESS_DENIED,
            f"{target} has local edits that would be lost: {shown}{more}; {verb} it with {flag}",
            {
                "name": name,
                "path": str(target),
                "reason": "local_changes",
                "files": [{"status": c.status, "path": c.path} for c in lost],
            },
        )


# -- when: the transaction and its recovery --------------------------------------------------


def _remove_tree(path: Path) -> None:
    """Delete what the library itself made or moved aside: a link is unlinked, never followed."""
    if os.path.islink(path) or not os.path.isdir(path):
        os.unlink(path)
    else:
        shutil.rmtree(path)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_sha(path: Path) -> str | None:
    """The sha256 of the regular file ``path`` (a link not followed), at most
    :data:`MAX_LOCK_BYTES` read; ``None`` for anything else (missing, a link, a device, a FIFO,
    larger)."""
    try:
        fd = os.open(path, FILE_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        data = read_limited(fd, MAX_LOCK_BYTES, st.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if data is None else _sha(data)


def _journal_path(root: Path, token: str, done: bool = False) -> Path:
    return root / f"{_DONE_PREFIX if done else _JOURNAL_PREFIX}{token}.json"


def _lock_tmp(lock: Path, token: str) -> Path:
    return lock.parent / f".{lock.name}.{token}.tmp"


def _commit(
    place: _Place,
    token: str,
    staged: Mapping[str, Path | None],
    lock_after: Mapping[str, Any] | None,
) -> None:
    """Swap the staged copies in (``None``: remove the name) and replace the lock, as one.

    The journal is written first (the names, each staged copy's inode, the lock's digest
    before and after); then each present copy is renamed aside and the staged one renamed in;
    then the lock is replaced: the commit point. :func:`recover_root` undoes what a kill left
    before it and finishes what it left after it.
    """
    root = place.root
    record: dict[str, Any] = {"version": 1, "skills": [], "lock": None}
    for name, staged_dir in staged.items():
        ino = os.lstat(staged_dir).st_ino if staged_dir is not None else None
        proof = _tree_proof(staged_dir) if staged_dir is not None else None
        record["skills"].append({"name": name, "staged": ino, "proof": proof})
    lock_tmp: Path | None = None
    data = b""
    if place.lock is not None and lock_after is not None:
        data = lock_bytes(lock_after)
        before = _file_sha(place.lock) if os.path.lexists(place.lock) else None
        record["lock"] = {"path": str(place.lock), "before": before, "after": _sha(data)}
        lock_tmp = _lock_tmp(place.lock, token)
    journal = json.dumps(record).encode("utf-8")

    def write_journal(out: IO[bytes]) -> None:
        out.write(journal)

    write_atomic(_journal_path(root, token), write_journal)
    if lock_tmp is not None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC
        with os.fdopen(os.open(lock_tmp, flags, 0o644), "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
    for name, staged_dir in staged.items():
        target = root / name
        if os.path.lexists(target):
            os.rename(target, root / f"{_OLD_PREFIX}{token}-{name}")
        if staged_dir is not None:
            os.rename(staged_dir, target)
    fsync_dir(root)
    if lock_tmp is not None and place.lock is not None:
        os.replace(lock_tmp, place.lock)
        fsync_dir(place.lock.parent)
    # The commit point of an unchanged lock (or none): the journal marked done.
    os.rename(_journal_path(root, token), _journal_path(root, token, done=True))
    fsync_dir(root)
    _finish(root, token, committed=True, record=record)


def _finish(
    root: Path,
    token: str,
    *,
    committed: bool,
    record: Mapping[str, Any],
    notes: list[Diagnostic] | None = None,
) -> None:
    """Finish a transaction: forward (delete what was set aside) or back (take the new copies
    out, put the set-aside ones back). A set-aside copy whose place was taken meanwhile is
    kept beside it as ``<name>.agent-skills-kept-<token>``: recovery never deletes a copy it
    cannot put back. Going back, a new copy is taken out only when it is the staged one (its
    inode) and holds exactly what was staged (the journal's proof, :func:`_tree_proof`); any
    other directory standing there (edited since, or never staged: a journal comes with a
    repository) is left where it is, said in ``notes``, and the set-aside copy is kept beside
    it."""
    back = root / f"{_TMP_PREFIX}{token}"
    if not committed:
        for item in record.get("skills", []):
            name, staged_ino = item.get("name"), item.get("staged")
            if not isinstance(name, str) or name_problem(name) is not None or staged_ino is None:
                continue
            target = root / name
            try:
                st = os.lstat(target)
            except FileNotFoundError:
                continue
            if st.st_ino != staged_ino or not stat.S_ISDIR(st.st_mode):
                continue
            proof = item.get("proof")
            if isinstance(proof, str) and _tree_proof(target) == proof:
                # The new copy made it in, as staged: it goes back with the other staged ones.
                os.makedirs(back, exist_ok=True)
                os.rename(target, back / f"back-{secrets.token_hex(4)}")
                continue
            if notes is not None:
                notes.append(
                    Diagnostic(
                        DiagnosticKind.IO_ERROR,
                        f"left {target} as it is: an unfinished install was undone, and this "
                        "directory is not the copy it staged (edited since, or never "
                        "installed by it)",
                        target,
                    )
                )
        for entry in sorted(os.listdir(root)):
            if not entry.startswith(f"{_OLD_PREFIX}{token}-"):
                continue
            name = entry[len(f"{_OLD_PREFIX}{token}-") :]
            home = root / name
            kept = home if not os.path.lexists(home) else root / f"{name}.agent-skills-kept-{token}"
            if os.path.lexists(kept):  # (taken too, a journal comes with a repository)
                kept = root / f"{name}.agent-skills-kept-{token}-{secrets.token_hex(4)}"
            os.rename(root / entry, kept)
        lock = record.get("lock")
        if isinstance(lock, dict) and isinstance(lock.get("path"), str):
            unlink(_lock_tmp(Path(lock["path"]), token))
    for entry in os.listdir(root):
        if entry.startswith(f"{_OLD_PREFIX}{token}-") or entry == back.name:
            _remove_tree(root / entry)
    fsync_dir(root)
    unlink(_journal_path(root, token))
    unlink(_journal_path(root, token, done=True))


def _committed(done: bool, record: Mapping[str, Any]) -> bool:
    if done:
        return True
    lock = record.get("lock")
    if not isinstance(lock, dict) or lock.get("before") == lock.get("after"):
        return False  # the journal marked done is the commit point
    return _file_sha(Path(lock["path"])) == lock.get("after")


def _journal_problem(record: object, root: Path, lock: Path | None) -> str | None:
    """Why a decoded journal cannot be acted on, or ``None``: its shape is the one
    :func:`_commit` writes, and the lock it names is ``lock`` (or, when the caller names none, a
    ``skills.lock.json`` in a folder holding ``root``): a journal never makes recovery read a
    path of its choosing."""
    if not isinstance(record, dict):
        return "not a journal"
    skills = record.get("skills", [])
    if not isinstance(skills, list) or not all(
        isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and (item.get("staged") is None or type(item.get("staged")) is int)
        and isinstance(item.get("proof"), str | None)
        for item in skills
    ):
        return "not a journal"
    named = record.get("lock")
    if named is None:
        return None
    if not isinstance(named, dict) or not all(
        isinstance(named.get(k), str | None) for k in ("before", "after")
    ):
        return "not a journal"
    path = named.get("path")
    if not isinstance(path, str) or "\0" in path or not os.path.isabs(path):
        return "it names no lock file"
    where = Path(os.path.normpath(path))
    if lock is not None:
        if where != Path(os.path.abspath(lock)):
            return f"it names {shown_text(path)!r}, not this root's lock"
    elif where.name != LOCK_NAME or not root.is_relative_to(where.parent):
        return f"it names {shown_text(path)!r}, which is no lock of this root"
    return None


def _set_aside(root: Path, entry: str, token: str, reason: str) -> Diagnostic:
    """Rename the journal ``entry`` out of recovery's way (kept for inspection) and undo its
    transaction as far as the tree shows it: every copy it set aside is put back (beside the
    skill when its place is taken), never deleted."""
    aside = root / f"{_SET_ASIDE_PREFIX}{token}-{secrets.token_hex(4)}.json"
    try:
        os.rename(root / entry, aside)
    except OSError as exc:
        return Diagnostic(
            DiagnosticKind.IO_ERROR,
            f"left the recovery journal {root / entry} ({reason}): it cannot be renamed aside "
            f"({exc.strerror})",
            root / entry,
        )
    _finish(root, token, committed=False, record={})
    return Diagnostic(
        DiagnosticKind.IO_ERROR,
        f"set aside the recovery journal {root / entry} ({reason}) as {aside.name}; its "
        "transaction was undone as far as the tree shows it (nothing deleted)",
        root / entry,
    )


def _read_journal(root: Path, entry: str) -> tuple[dict[str, Any] | None, str]:
    """The decoded journal ``entry`` of ``root``, or ``(None, why)``: read only as a regular
    file (no link followed, no FIFO or device opened for reading), at most
    ``_MAX_JOURNAL_BYTES``, its nesting bounded (``_jsonfile.decode_json``)."""
    try:
        fd = os.open(root / entry, FILE_FLAGS)
    except OSError as exc:
        return None, f"cannot be opened: {exc.strerror}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file"
        data = read_limited(fd, _MAX_JOURNAL_BYTES, st.st_size)
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror}"
    finally:
        os.close(fd)
    if data is None:
        return None, f"larger than {_MAX_JOURNAL_BYTES} bytes"
    try:
        record = decode_json(data)
    except ValueError as exc:
        return None, f"not valid JSON: {exc}"
    if not isinstance(record, dict):
        return None, "not a journal"
    return record, ""


def recover_root(
    root: str | os.PathLike[str], *, lock: str | os.PathLike[str] | None = None
) -> list[Diagnostic]:
    """Finish or undo what an interrupted ``add``, ``update`` or ``remove`` left in ``root``
    (SPEC §25.4). Run by each of them under the lock before it changes anything.

    A transaction whose lock was replaced (or whose journal was marked done) is finished: the
    copies it set aside are deleted. Any other is undone: its new copies are taken out and the
    copies it set aside put back, and the lock (never replaced) is as it was. Temporary copies
    are deleted; a set-aside copy of an older version of the library (no journal) is put back
    when its skill is missing, else deleted.

    Journals are untrusted input (a project's install root comes with its repository): at most
    :data:`MAX_JOURNALS` are read per call, oldest first (the others are left, with a warning,
    for the next call); each is read only as a regular file of at most 1 MiB, nested at most 64
    levels; one that is malformed, or names a lock other than ``lock`` (or, without ``lock``, a
    ``skills.lock.json`` outside the folders holding ``root``), is renamed aside
    (``.agent-skills-bad-<token>-<random>.json``) with a warning, and its transaction undone as
    far as the tree shows it (nothing deleted).

    Args:
        root: The install root.
        lock: The lock of the scope whose root this is; the only lock a journal may name.

    Returns:
        The warnings (also emitted to the warn sink, SPEC §7.6): journals set aside, journals
        left for the next call.

    Raises:
        SkillError: ``invalid_input`` for an argument that is not a path; ``fs_error``'s codes
            ``{path}`` from the renames and deletions. Never another exception.
    """
    root_path = Path(os.path.abspath(coerce_path(root, "root", usable=True)))
    lock_path = (
        None if lock is None else Path(os.path.abspath(coerce_path(lock, "lock", usable=True)))
    )
    try:
        notes = _recover(root_path, lock_path)
    except OSError as exc:
        raise fs_error(exc, root_path) from None
    emit(notes)
    return notes


def recover_roots(
    roots: Iterable[str | os.PathLike[str]],
    *,
    lock: str | os.PathLike[str],
    workspace: str | os.PathLike[str],
) -> list[Diagnostic]:
    """:func:`recover_root` of each of ``roots`` that an install keeping ``lock`` may have left
    mid-change: a directory inside ``workspace`` reached from it through real directories only
    (installs never act through a link, SPEC §25.4). The others (outside it, linked, missing)
    are left as they are. The caller holds :func:`~._lock.lock_held` of ``lock``, as an
    install does.

    Args:
        roots: Candidate install roots (the workspace-scope roots of a configuration).
        lock: The lock those installs keep (``<workspace>/skills.lock.json`` for the project).
        workspace: The folder below which no link may lead to a root.

    Returns:
        The warnings of the recoveries (also emitted, as :func:`recover_root` does).

    Raises:
        SkillError: As :func:`recover_root`; ``invalid_input`` for an argument that is not a
            path.
    """
    top = Path(os.path.abspath(coerce_path(workspace, "workspace", usable=True)))
    notes: list[Diagnostic] = []
    for root in roots:
        path = Path(os.path.abspath(coerce_path(root, "root", usable=True)))
        if path != top and path.is_relative_to(top) and _real_dirs_below(top, path):
            notes.extend(recover_root(path, lock=lock))
    return notes


def _real_dirs_below(top: Path, path: Path) -> bool:
    """Whether every component of ``path`` below ``top`` (``path`` included) is a directory
    that is not a link, now."""
    here = top
    for part in path.relative_to(top).parts:
        here = here / part
        try:
            if not stat.S_ISDIR(os.lstat(here).st_mode):
                return False
        except OSError:
            return False
    return True


def pending_journals(root: str | os.PathLike[str]) -> list[str]:
    """The names of the recovery journals in ``root``: transactions of ``add``, ``update`` or
    ``remove`` that a kill left unfinished (:func:`recover_root` finishes or undoes them), in
    name order; ``[]`` when there are none or ``root`` cannot be listed. Reads nothing else
    and changes nothing."""
    try:
        names = os.listdir(os.fspath(root))
    except (OSError, ValueError):
        return []
    return sorted(name for name in names if _JOURNAL_RE.match(name))


def _recover(root_path: Path, lock: Path | None) -> list[Diagnostic]:
    notes: list[Diagnostic] = []
    try:
        names = sorted(os.listdir(root_path))
    except OSError:
        return notes
    journals: list[tuple[int, str, re.Match[str]]] = []
    for entry in names:
        match = _JOURNAL_RE.match(entry)
        if match is None:
            continue
        try:
            age = os.lstat(root_path / entry).st_mtime_ns
        except OSError:
            continue
        journals.append((age, entry, match))
    journals.sort()
    if len(journals) > MAX_JOURNALS:
        notes.append(
            Diagnostic(
                DiagnosticKind.SCAN_TRUNCATED,
                f"{root_path} holds {len(journals)} recovery journals: the {MAX_JOURNALS} "
                f"oldest were read, the other {len(journals) - MAX_JOURNALS} are left for the "
                "next command",
                root_path,
            )
        )
        del journals[MAX_JOURNALS:]
    for _, entry, match in journals:
        token = match.group(2)
        record, why = _read_journal(root_path, entry)
        problem = why if record is None else _journal_problem(record, root_path, lock)
        if record is None or problem is not None:
            notes.append(_set_aside(root_path, entry, token, problem or why))
            continue
        done = match.group(1) == "done"
        _finish(root_path, token, committed=_committed(done, record), record=record, notes=notes)
    for entry in sorted(os.listdir(root_path)):
        path = root_path / entry
        if entry.startswith(_TMP_PREFIX):
            shutil.rmtree(path, ignore_errors=True)
            continue
        if entry.startswith(f".{_JOURNAL_PREFIX}") and entry.endswith(".tmp"):
            unlink(path)  # a journal whose writing was cut: its transaction had not begun
            continue
        match = _OLD_RE.match(entry)
        if match is None:
            continue
        home = root_path / match.group(2)
        if not os.path.lexists(home):
            os.rename(path, home)
        else:
            _remove_tree(path)
    return notes


# -- staging ---------------------------------------------------------------------------------


def _copy_file(source: SourceFile, dest_dir: Path, budget: ReadBudget | None = None) -> None:
    """Copy one file into the staged skill: confined read, exclusive create, exec bit kept."""
    parts = source.rel.split("/")
    if any(p in ("", ".", "..") for p in parts) or "\\" in source.rel or "\x00" in source.rel:
        raise invalid_input(f"refusing file name {source.rel!r}", {"rel": source.rel})
    parent = dest_dir
    for part in parts[:-1]:
        parent = parent / part
        try:
            os.mkdir(parent, 0o755)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(parent).st_mode):
                raise invalid_input(
                    f"{source.rel!r} lies under a file", {"rel": source.rel}
                ) from None
    target = parent / parts[-1]
    with source.open() as src:
        mode = 0o755 if is_executable(source, src) else 0o644
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC
        fd = os.open(target, flags, mode)
        with os.fdopen(fd, "wb") as out:
            while chunk := src.read(CHUNK):
                if budget is not None:
                    budget.take(len(chunk))
                out.write(chunk)
    os.chmod(target, mode)


def _stage(skill: SourceSkill, tmp: Path) -> Path:
    """Copy ``skill`` into ``tmp/<name>`` and validate the copy (SPEC §15: errors refuse it)."""
    staged = tmp / skill.name
    try:
        os.mkdir(staged, 0o755)
    except OSError as exc:
        raise fs_error(exc, staged) from None
    budget = ReadBudget(Path(skill.where))
    for source in skill.files:
        try:
            _copy_file(source, staged, budget)
        except OSError as exc:
            raise fs_error(exc, staged / source.rel) from None
    refuse_invalid(staged, skill.name)
    return staged


def _compare_versions(old: str | None, new: str | None) -> int | None:
    """``-1``, ``0`` or ``1`` as ``new`` is lower, equal or higher than ``old`` by PEP 440, or
    ``None`` when either is missing or not a PEP 440 version (then they are not compared,
    SPEC §29.7)."""
    if old is None or new is None:
        return None
    from packaging.version import InvalidVersion, Version

    try:
        before, after = Version(old), Version(new)
    except InvalidVersion:
        return None
    return (after > before) - (after < before)


@dataclass(frozen=True, slots=True)
class _Change:
    """One skill of a transaction: what goes in (``None`` for a removal) and its lock entry."""

    name: str
    skill: SourceSkill | None
    origin: Mapping[str, Any] | None
    previous_version: str | None = None


def _transact(place: _Place, lock: Mapping[str, Any], changes: Sequence[_Change]) -> dict[str, str]:
    """Stage every change, then commit them and the lock together (see :func:`_commit`);
    return the digest of each copy put in (by name; none without a lock)."""
    token = secrets.token_hex(8)
    tmp = place.root / f"{_TMP_PREFIX}{token}"
    try:
        os.mkdir(tmp, 0o700)
    except OSError as exc:
        raise fs_error(exc, tmp) from None
    try:
        staged: dict[str, Path | None] = {}
        put: list[dict[str, Any]] = []
        drop: list[Path] = []
        for change in changes:
            if change.skill is None:
                staged[change.name] = None
                drop.append(place.root / change.name)
                continue
            copy = _stage(change.skill, tmp)
            staged[change.name] = copy
            if place.lock is not None:
                put.append(
                    lock_entry(
                        copy,
                        scope=place.scope,
                        source=place.label,
                        workspace=place.workspace,
                        origin=change.origin,
                        at=place.root / change.name,
                    )
                )
        after = (
            merge_lock(lock, put, drop, workspace=place.workspace)
            if place.lock is not None
            else None
        )
        _commit(place, token, staged, after)
        return {str(entry["name"]): str(entry["digest"]) for entry in put}
    except OSError as exc:
        raise fs_error(exc, place.root) from None
    finally:
        if os.path.lexists(tmp):
            # Nothing was committed (or the commit left its copies): undo what was started.
            try:
                recover_root(place.root, lock=place.lock)
            except SkillError:
                shutil.rmtree(tmp, ignore_errors=True)


def _with_recovery(place: _Place) -> None:
    recover_root(place.root, lock=place.lock)


def _not_found(
    missing: Sequence[str], available: Sequence[str], source: str, problems: Sequence[SkillError]
) -> SkillError:
    """``not_found`` for the skills asked of a source; when the source holds no valid skill at
    all but skill folders that failed, the first failure's own code leads (``invalid_skill``:
    the reason, not the absence), the others follow in its message."""
    shown = [f"{err.code.value}: {err.message}" for err in problems]
    if problems and not available:
        first = problems[0]
        rest = f"; {'; '.join(shown[1:])}" if shown[1:] else ""
        return SkillError(
            first.code,
            f"no valid skill in {source}: {first.message}{rest}",
            {**first.fields, "names": list(missing), "source": source},
        )
    detail = f"; {'; '.join(shown)}" if shown else ""
    what = f"no skill named {', '.join(missing)}" if missing else "no skill"
    # The one suggestion rule of the project (SPEC §21.10), as for any unknown name.
    suggestions = list(dict.fromkeys(s for n in missing for s in suggest_names(n, available)))
    hint = f" (did you mean {', '.join(suggestions)}?)" if suggestions else ""
    return SkillError(
        ErrorCode.NOT_FOUND,
        f"{what} in {source}{hint}{detail}",
        {"names": list(missing), "source": source, "suggestions": suggestions},
    )


# -- the commands ----------------------------------------------------------------------------


def install_skills(
    source: Source,
    root: str | os.PathLike[str] | SkillRoot,
    *,
    names: Sequence[str] = (),
    force: bool = False,
    lock: str | os.PathLike[str] | None = None,
    workspace: str | os.PathLike[str] | None = None,
    base: str | os.PathLike[str] | None = None,
) -> list[Installed]:
    """Install the skills of ``source`` (all, or those ``names``) into ``root`` (SPEC §25.4).

    Each skill is copied from its pinned source directory (manifest and listed resources,
    execute bits kept; a link leading outside the skill is left out) into a temporary sibling
    directory of ``root`` and validated (SPEC §15: errors refuse it). Then, in one transaction
    under the lock of ``lock``'s directory, every copy is renamed into place (an existing one
    first renamed aside and deleted after) and ``lock`` gets their entries (digest, version,
    ``origin`` without credentials): a kill at any point leaves the previous install and lock,
    finished or undone by the next command (:func:`recover_root`).

    Args:
        source: From :func:`parse_source`.
        root: The target root (a :class:`SkillRoot` gives the entries' ``scope`` and ``source``;
            created when missing). Reached from ``base`` through real directories only.
        names: Install only these skills (SPEC §25.5: ``--skill`` is repeatable).
        force: Replace skills already installed, whatever stands there.
        lock: The scope's lock file (``None``: no lock is kept).
        workspace: Lock entries' ``dir`` is written relative to it (default: ``lock``'s
            directory).
        base: No link may lie between it and ``root`` (default: the workspace when ``root`` is
            inside it, else ``root``'s parent).

    Returns:
        One :class:`Installed` per skill, in ``(casefold, name)`` order.

    Raises:
        SkillError: ``not_found`` ``{names, source, suggestions}`` for names not in the source
            (``suggestions`` from ``suggest_names``, SPEC §21.10), or when it holds no
            skill; when it holds no valid skill but skill folders that fail, the first one's
            code (``invalid_skill`` ``{path, ..., names, source}``); ``duplicate_skill``
            ``{name, paths}`` for an installed name without ``force``
            (nothing is changed); ``path_escape`` ``{path, link}`` for a root or lock reached
            through a link, or a ``//SUBDIR`` leading outside the clone; ``invalid_skill`` when
            a skill does not validate; ``too_large`` for a skill over 10 000 files or 512 MiB;
            ``invalid_archive``; ``stale_skill`` when a source directory is swapped while it is
            copied; ``io_error`` when ``git`` fails (or is not on ``PATH``); ``invalid_input``
            for a malformed lock; ``fs_error`` codes.
    """
    if not isinstance(source, Source):
        raise invalid_input("source must be a Source (see parse_source)", {"source": "?"})
    force = coerce_bool(force, "force")
    wanted_names = [n for n in names]
    place = _place(root, lock, workspace, base)
    with ExitStack() as stack:
        stack.enter_context(held_directory(place.guard))
        found, problems, commit = stack.enter_context(opened_source(source))
        _with_recovery(place)
        by_name: dict[str, SourceSkill] = {}
        for skill in found:
            by_name.setdefault(skill.name, skill)
        wanted = wanted_names or sorted(by_name, key=sort_key)
        missing = [n for n in wanted if n not in by_name]
        if missing or not wanted:
            raise _not_found(missing, list(by_name), source.shown, problems)
        chosen = [by_name[n] for n in dict.fromkeys(wanted)]
        taken = [s.name for s in chosen if os.path.lexists(place.root / s.name)]
        if taken and not force:
            raise SkillError(
                ErrorCode.DUPLICATE_SKILL,
                f"already installed in {place.root}: {', '.join(taken)} (use --force to replace)",
                {"name": taken[0], "paths": [str(place.root / n) for n in taken]},
            )
        lock_now = _read_place_lock(place)
        origin = {"source": source.origin_source, "ref": source.ref, "commit": commit}
        previous = {s.name: _installed_version(place, lock_now, s.name) for s in chosen}
        _transact(place, lock_now, [_Change(s.name, s, origin) for s in chosen])
    return [
        Installed(
            s.name,
            place.root / s.name,
            s.name in taken,
            origin,
            tuple((d.kind.value, d.message) for d in s.diagnostics),
            s.version,
            previous[s.name],
        )
        for s in chosen
    ]


def _installed_version(place: _Place, lock: Mapping[str, Any], name: str) -> str | None:
    """The version of ``<root>/<name>``: its lock entry's, else its manifest's, else ``None``."""
    where = lock_dir_of(place.root / name, place.workspace)
    for entry in lock.get("skills", []):
        if entry.get("dir") == where and isinstance(entry.get("version"), str):
            return str(entry["version"])
    target = place.root / name
    if os.path.islink(target) or not os.path.isdir(target):
        return None
    try:
        return dir_skill(target).version
    except SkillError:
        return None


def update_skills(
    root: str | os.PathLike[str] | SkillRoot,
    names: Sequence[str] = (),
    *,
    lock: str | os.PathLike[str],
    workspace: str | os.PathLike[str] | None = None,
    base: str | os.PathLike[str] | None = None,
    force: bool = False,
    allow_downgrade: bool = False,
) -> list[Installed]:
    """Re-install skills of ``root`` from the origins ``lock`` records (SPEC §25.4, §29.7).

    Only skills the lock shows were installed into ``root`` (an entry whose ``dir`` is
    ``<root>/<name>``, with an ``origin``) are updated. A git origin is fetched with the
    credentials ``git`` finds itself (its credential helpers, the environment; SPEC §30.1):
    the lock holds none. Everything is checked before anything changes, then all of it is
    committed with the lock as one transaction (see :func:`install_skills`).

    Args:
        root: The install root (see :func:`install_skills`).
        names: The skills to update; empty for every one the lock shows in ``root``.
        lock: The scope's lock file.
        workspace: As for :func:`install_skills`.
        base: As for :func:`install_skills`.
        force: Discard local edits (files changed or added since the install).
        allow_downgrade: Install a lower version than the one installed.

    Returns:
        One :class:`Installed` per skill, with ``previous_version``, ``version`` and
        ``unchanged`` (the same files as the lock recorded).

    Raises:
        SkillError: ``invalid_input`` ``{name}`` for a name in ``names`` that is not a skill
            name, ``{name, lock}`` for such a name in the lock (``../x``, ``/abs``, a NUL),
            refused before anything is read below the root; ``not_found`` ``{names}`` for a
            name the lock shows no install of in ``root`` (or a missing lock);
            ``access_denied`` ``{name, path, reason, files}`` for local edits without
            ``force`` (``reason`` ``local_changes``, or ``not_a_directory`` for a link or file
            in its place), and ``{name, version, available, reason: "downgrade"}`` for a lower
            version (PEP 440, compared only when both parse) without ``allow_downgrade``; the
            errors of :func:`install_skills`.
    """
    force = coerce_bool(force, "force")
    allow_downgrade = coerce_bool(allow_downgrade, "allow_downgrade")
    names = [_skill_name(n) for n in names]
    place = _place(root, lock, workspace, base)
    assert place.lock is not None
    with held_directory(place.guard):
        _with_recovery(place)
        lock_now = read_lock(place.lock)
        # Every name is checked before any is joined to the root (nothing outside is looked at).
        lock_names = [_skill_name(item["name"], place.lock) for item in lock_now["skills"]]
        owned: dict[str, dict[str, Any]] = {}
        for lock_name in lock_names:
            entry = _owned(lock_now, place, lock_name)
            if entry is not None:
                owned[entry["name"]] = entry
        wanted = list(dict.fromkeys(names)) or sorted(owned, key=sort_key)
        missing = [n for n in wanted if n not in owned]
        if missing:
            raise SkillError(
                ErrorCode.NOT_FOUND,
                f"{place.lock} records no install of {', '.join(missing)} in {place.root} "
                "with an origin",
                {"names": missing, "lock": str(place.lock), "root": str(place.root)},
            )
        for name in wanted:
            target = place.root / name
            if not force and os.path.lexists(target):
                _refuse_unowned(place, name, owned[name], "update", "--force")
        changes: list[_Change] = []
        with ExitStack() as stack:
            opened: dict[str, tuple[Source, list[SourceSkill], list[SkillError], str | None]] = {}
            for name in wanted:
                origin = owned[name]["origin"]
                text = str(origin["source"])
                if origin.get("ref"):
                    text = f"{text}#{origin['ref']}"
                if text not in opened:  # one fetch per origin, however many skills it holds
                    parsed = parse_source(text)
                    opened[text] = (parsed, *stack.enter_context(opened_source(parsed)))
                parsed, found, problems, commit = opened[text]
                skill = next((s for s in found if s.name == name), None)
                if skill is None:
                    raise _not_found([name], [s.name for s in found], parsed.shown, problems)
                previous = _installed_version(place, lock_now, name)
                if not allow_downgrade and _compare_versions(previous, skill.version) == -1:
                    raise SkillError(
                        ErrorCode.ACCESS_DENIED,
                        f"{name} {previous} -> {skill.version} is a downgrade (use "
                        "--allow-downgrade to install it)",
                        {
                            "name": name,
                            "version": previous,
                            "available": skill.version,
                            "reason": "downgrade",
                        },
                    )
                record = {"source": parsed.origin_source, "ref": parsed.ref, "commit": commit}
                changes.append(_Change(name, skill, record, previous))
            digests = _transact(place, lock_now, changes)
    return [
        Installed(
            c.name,
            place.root / c.name,
            True,
            c.origin,
            tuple((d.kind.value, d.message) for d in c.skill.diagnostics) if c.skill else (),
            c.skill.version if c.skill else None,
            c.previous_version,
            unchanged=owned[c.name].get("digest") == digests.get(c.name),
        )
        for c in changes
    ]


def remove_skill(
    root: str | os.PathLike[str] | SkillRoot,
    name: str,
    *,
    lock: str | os.PathLike[str] | None = None,
    workspace: str | os.PathLike[str] | None = None,
    base: str | os.PathLike[str] | None = None,
    force: bool = False,
) -> Installed:
    """Remove the installed skill ``name`` from ``root`` and its entry from ``lock`` (SPEC §25.4).

    Only what the lock shows was installed there is deleted: an entry whose ``dir`` is
    ``<root>/<name>`` with an ``origin``, and a directory holding nothing changed or added
    since. A hand-written folder, a link or a copy with local edits is refused unless
    ``force`` (a link is then unlinked, never followed). The directory is renamed aside, the
    lock replaced, then the directory deleted, as one transaction (see :func:`install_skills`).
    A name the lock shows whose directory is already gone leaves the lock.

    Raises:
        SkillError: ``invalid_input`` for a name holding a separator or made of dots;
            ``not_found`` ``{name}`` when it is neither there nor in the lock;
            ``access_denied`` ``{name, path, reason}`` (``not_installed``,
            ``not_a_directory``, ``local_changes`` with ``files``) without ``force``;
            ``path_escape`` for a root or lock reached through a link; ``fs_error`` codes.
    """
    name = _skill_name(name)
    force = coerce_bool(force, "force")
    place = _place(root, lock, workspace, base)
    target = place.root / name
    with held_directory(place.guard):
        _with_recovery(place)
        lock_now = _read_place_lock(place)
        entry = _owned(lock_now, place, name)
        if not os.path.lexists(target):
            listed = place.lock is not None and any(
                e.get("dir") == lock_dir_of(target, place.workspace)
                for e in lock_now.get("skills", [])
            )
            if not listed:
                raise SkillError(
                    ErrorCode.NOT_FOUND,
                    f"skill '{name}' is not installed in {place.root}",
                    {"name": name},
                )
        elif not force:
            _refuse_unowned(place, name, entry, "remove", "--force")
        _transact(place, lock_now, [_Change(name, None, None)])
    return Installed(name, target, True, entry.get("origin") if entry else None)
