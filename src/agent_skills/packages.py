"""Skill packages: pack, lock, verify, add, update and remove (SPEC §25.2-§25.5).

- :func:`pack_skill` writes a ``.skill`` zip whose bytes depend only on the files packed.
- :func:`lock_skills` records, per skill, the same per-file ``sha256:`` digests the MCP extension
  serves (``_digest``), recomputable from the installed tree; :func:`verify_lock` names every
  added, removed and changed skill and file.
- :func:`install_skills` copies skills from a local directory, an archive or a git repository into
  a root: validated first, written into a temporary sibling directory, then renamed into place, so
  an interrupted install leaves the old copy or the new one whole.

Every file copied or packed is read through the confined readers (``_confine``, ``_archive``): a
link leading outside its skill is never copied as a link and never followed.
"""

from __future__ import annotations

import io
import os
import re
import secrets
import shutil
import stat
import subprocess
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Literal

from ._archive import (
    MAX_MEMBERS,
    MAX_TOTAL_BYTES,
    ArchiveChanged,
    ArchiveIndex,
    archive_kind,
    read_index,
    read_member,
)
from ._args import coerce_path, shown_text
from ._config import DEFAULT_MAX_MANIFEST_BYTES, Scope, SkillRoot
from ._confine import open_confined, read_whole, resolve_resource_path
from ._core import AgentSkills
from ._diagnostics import Diagnostic
from ._digest import FileDigest, digest_stream, skill_digest
from ._errors import ErrorCode, SkillError, fs_error
from ._jsonfile import read_json_file
from ._manifest import parse_skill
from ._model import is_skipped, sort_key
from ._registry import suggest_names
from ._resources import list_resources
from ._schema import name_problem
from ._terminal import json_text, undecodable_text
from .validate import Severity, find_manifest, validate_skill

__all__ = [
    "LOCK_NAME",
    "LOCK_VERSION",
    "FileChange",
    "Installed",
    "SkillDrift",
    "Source",
    "install_skills",
    "lock_entry",
    "lock_skills",
    "merge_lock",
    "pack_skill",
    "parse_source",
    "read_lock",
    "remove_skill",
    "scoped_skills",
    "verify_lock",
    "write_lock",
]

LOCK_NAME = "skills.lock.json"
LOCK_VERSION = 1
# Fixed member timestamp of packed archives: the earliest a zip can hold (SPEC §25.2).
_EPOCH = (1980, 1, 1, 0, 0, 0)
# Members compressed more than this are stored instead, so a packed skill is always a valid
# archive root (SPEC §25.1 refuses a compression ratio over 200).
_MAX_PACK_RATIO = 150
_CHUNK = 1 << 16
_TMP_PREFIX = ".agent-skills-tmp-"
_OLD_PREFIX = ".agent-skills-old-"
_OLD_RE = re.compile(r"^\.agent-skills-old-[0-9a-f]{8}-(.+)$")
# Where a repository usually keeps skills; a search below a source stops at this depth.
_SEARCH_DEPTH = 3
_GIT_TIMEOUT_S = 600
_SCP_RE = re.compile(r"^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:")


def _invalid_input(message: str, **fields: Any) -> SkillError:
    return SkillError(ErrorCode.INVALID_INPUT, message, fields)


# ---------------------------------------------------------------------------------------------
# What a skill's files are: one list for packing, locking and copying


@dataclass(frozen=True, slots=True)
class _SourceFile:
    """One file of a skill to copy or pack: its ``rel`` and how to open it."""

    rel: str
    open: Callable[[], IO[bytes]]
    executable: bool | None = None  # None: the execute bits of the opened file decide


@dataclass(frozen=True, slots=True)
class _SourceSkill:
    """A skill found in a source: its name, where it was found and its files."""

    name: str
    where: str
    files: tuple[_SourceFile, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


def _is_executable(source: _SourceFile, fh: IO[bytes]) -> bool:
    if source.executable is not None:
        return source.executable
    return bool(os.fstat(fh.fileno()).st_mode & 0o111)


def _dir_skill(skill_dir: Path) -> _SourceSkill:
    """The manifest and listed resources (SPEC §9) of a skill directory, read confined.

    Raises:
        SkillError: ``invalid_skill`` when the directory has no manifest or no usable ``name``.
    """
    manifest = find_manifest(skill_dir)
    if manifest is None:
        raise SkillError(
            ErrorCode.INVALID_SKILL, f"no SKILL.md in {skill_dir}", {"path": str(skill_dir)}
        )
    with open_confined(skill_dir, manifest.name) as fh:
        data = read_whole(fh, DEFAULT_MAX_MANIFEST_BYTES, skill_dir / manifest.name)
    name = _name_of(data, manifest)
    # A skill is packed or copied whole or not at all: a listing cut at a cap would drop files.
    listing = list_resources(skill_dir, max_resources=MAX_MEMBERS)
    if listing.truncated:
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{skill_dir} has more than {MAX_MEMBERS} files",
            {"path": str(skill_dir), "max_files": MAX_MEMBERS},
        )
    rels = [manifest.name, *(r.rel for r in listing.resources)]

    def opener(rel: str) -> Callable[[], IO[bytes]]:
        return lambda: open_confined(skill_dir, rel)

    files = tuple(_SourceFile(rel, opener(rel)) for rel in rels)
    return _SourceSkill(name, str(skill_dir), files, listing.diagnostics)


def _name_of(data: bytes, where: Path | str) -> str:
    try:
        parsed = parse_skill(data, path=str(where))
    except SkillError as err:
        raise SkillError(
            ErrorCode.INVALID_SKILL, f"{where}: {err.message}", {"path": str(where)}
        ) from None
    name = parsed.frontmatter.get("name")
    # The name becomes a directory name; the loader's name rule (SPEC §21.5) is what makes it
    # one (no separators, NUL or dots-only), so it is asked, not restated.
    if not isinstance(name, str) or name_problem(name) is not None:
        raise SkillError(ErrorCode.INVALID_SKILL, f"{where}: no usable name", {"path": str(where)})
    return name


def _read_archived(index: ArchiveIndex, member: str) -> bytes:
    try:
        return read_member(index, member)
    except ArchiveChanged:
        raise SkillError(
            ErrorCode.IO_ERROR,
            f"{index.path} changed while it was being read",
            {"path": str(index.path)},
        ) from None


def _archive_skills(index: ArchiveIndex) -> list[_SourceSkill]:
    out: list[_SourceSkill] = []
    for skill in index.skills:
        where = f"{index.path}/{skill.top}" if skill.top else str(index.path)
        data = _read_archived(index, skill.manifest)
        name = _name_of(data, f"{index.path}/{skill.manifest}")
        members = [(skill.rel_of(skill.manifest), index.files[skill.manifest])]
        members.extend(index.resources(skill))

        def opener(member: str) -> Callable[[], IO[bytes]]:
            return lambda: io.BytesIO(_read_archived(index, member))

        files = tuple(
            _SourceFile(rel, opener(skill.member_of(rel)), f.executable) for rel, f in members
        )
        prefix = f"{index.path}/{skill.top}/" if skill.top else ""
        diags = tuple(d for d in index.diagnostics if str(d.path).startswith(prefix))
        out.append(_SourceSkill(name, where, files, diags))
    return out


# ---------------------------------------------------------------------------------------------
# Packing (SPEC §25.2)


def _refuse_invalid(skill_dir: Path, name: str | None = None) -> None:
    problems = [p for p in validate_skill(skill_dir) if p.severity == Severity.ERROR]
    if problems:
        listed = "; ".join(f"{p.code}: {p.message}" for p in problems)
        raise SkillError(
            ErrorCode.INVALID_SKILL,
            f"{name or skill_dir} does not validate: {listed}",
            {"path": str(skill_dir), "problems": [p.to_dict() for p in problems]},
        )


def pack_skill(
    skill_dir: str | os.PathLike[str], output: str | os.PathLike[str] | None = None
) -> Path:
    """Write a skill directory as a ``.skill`` zip with deterministic bytes (SPEC §25.2).

    The archive holds one top-level folder named after the skill (its frontmatter ``name``);
    members are ``SKILL.md`` and the listed resources (SPEC §9: hidden files, ``__pycache__`` and
    ``node_modules`` left out), sorted by the code points of their POSIX names, dated
    1980-01-01, with mode ``0755`` for files with an execute bit and ``0644`` otherwise. A member
    that would compress more than 150 times is stored uncompressed, so the result is always a
    valid archive root (SPEC §25.1).

    Args:
        skill_dir: The skill directory.
        output: The file to write; default ``<name>.skill`` in the current directory. Written
            atomically (temporary file in the same directory, then rename).

    Returns:
        The path written.

    Raises:
        SkillError: ``invalid_skill`` ``{path, problems}`` when ``validate_skill`` finds errors
            (SPEC §15); ``too_large`` for more than 10 000 files or 512 MiB; ``fs_error`` codes
            for unreadable files or an unwritable output.
    """
    skill_path = Path(coerce_path(skill_dir, "skill_dir"))
    _refuse_invalid(skill_path)
    skill = _dir_skill(skill_path)
    target = (
        Path(coerce_path(output, "output"))
        if output is not None
        else Path.cwd() / f"{skill.name}.skill"
    )
    members: list[tuple[str, bytes, bool]] = []
    budget = _Budget(skill_path)
    for source in skill.files:
        with source.open() as fh:
            data = fh.read(budget.left + 1)
            budget.take(len(data))
            members.append((f"{skill.name}/{source.rel}", data, _is_executable(source, fh)))
    members.sort(key=lambda m: m[0])

    def write(out: IO[bytes]) -> None:
        with zipfile.ZipFile(out, "w") as zf:
            for name, data, executable in members:
                info = zipfile.ZipInfo(name, date_time=_EPOCH)
                info.create_system = 3
                info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                compressed = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
                size = len(compressed.compress(data)) + len(compressed.flush())
                if len(data) > _MAX_PACK_RATIO * max(size, 1):
                    info.compress_type = zipfile.ZIP_STORED
                zf.writestr(info, data)

    _write_atomic(target, write)
    return target


def _write_atomic(target: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``target`` through a temporary file in its directory, ``fsync``, then rename."""
    parent = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise fs_error(exc, target) from None
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        _unlink(tmp)
        raise fs_error(exc, target) from None
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path: str) -> None:
    with suppress(OSError):
        os.unlink(path)


# ---------------------------------------------------------------------------------------------
# Lock and verify (SPEC §25.3)


def scoped_skills(
    skills: AgentSkills, scopes: Iterable[Scope] | None, extra_roots: Sequence[SkillRoot] = ()
) -> AgentSkills:
    """A new :class:`AgentSkills` over the roots of ``skills`` whose scope is in ``scopes``.

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
    return AgentSkills(replace(skills.config, roots=tuple(roots)))


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
    content = skills.load_skill(name)
    if content is None:
        raise SkillError(ErrorCode.NOT_FOUND, f"No such skill: {name}", {"name": name})
    rels = [content.path.name, *(r.rel for r in content.resources)]
    files: list[FileDigest] = []
    for rel in rels:
        with skills.open_resource(name, rel) as fh:
            size, digest = digest_stream(fh)
        files.append(FileDigest(rel, size, digest))
    files.sort(key=lambda f: f.rel)
    return tuple(files)


def _entry(
    *,
    name: str,
    scope: str,
    source: str,
    dir_: str,
    files: Sequence[FileDigest],
    origin: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """One lock entry. Every path is written as ``undecodable_text`` gives it (an undecodable byte
    of a file name as the four characters ``\\xNN``, SPEC §20.8), so the entry is valid UTF-8
    JSON and an entry recomputed from the same tree compares equal to the one read back."""
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
    if origin is not None:
        entry["origin"] = dict(origin)
    return entry


def _hash_dir(skill_dir: Path) -> tuple[FileDigest, ...]:
    """The file digests of the skill directory ``skill_dir``: manifest and listed resources,
    read confined (a copy that is not the one discovery serves, e.g. a shadowed one)."""
    skill = _dir_skill(skill_dir)
    files: list[FileDigest] = []
    for source in skill.files:
        with source.open() as fh:
            size, digest = digest_stream(fh)
        files.append(FileDigest(source.rel, size, digest))
    files.sort(key=lambda f: f.rel)
    return tuple(files)


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

    Raises:
        SkillError: A file listed a moment ago cannot be read (``not_found``, ``stale_skill``,
            ``io_error``, ...).
    """
    ws = Path(os.path.abspath(coerce_path(workspace, "workspace")))
    known = origins or {}
    entries: list[dict[str, Any]] = []

    def add(name: str, scope: str, source: str, path: Path, files: Sequence[FileDigest]) -> None:
        shown = _display_dir(path, ws)
        entries.append(
            _entry(
                name=name,
                scope=scope,
                source=source,
                dir_=shown,
                files=files,
                origin=known.get(undecodable_text(shown)),
            )
        )

    for info in skills.list_skills():
        add(info.name, info.scope, info.source, info.dir, _hash_skill(skills, info.name))
        for copy in info.shadowed:
            try:
                files = _hash_dir(copy.dir)
            except SkillError:
                continue  # not a readable skill directory (e.g. an archived copy)
            add(info.name, copy.scope, copy.source, copy.dir, files)
    entries.sort(key=_entry_key)
    return {"version": LOCK_VERSION, "skills": entries}


def lock_entry(
    skill_dir: str | os.PathLike[str],
    *,
    scope: Scope,
    source: str,
    workspace: str | os.PathLike[str],
    origin: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The lock entry of one installed skill directory, as :func:`lock_skills` writes it.

    It describes that directory itself (its ``dir`` and digest), whether or not discovery serves
    another copy of the name from a root of higher precedence (SPEC §25.3-§25.4).

    Raises:
        SkillError: ``invalid_skill`` when the directory has no usable manifest; ``fs_error``
            codes.
    """
    path = Path(os.path.abspath(coerce_path(skill_dir, "skill_dir")))
    ws = Path(os.path.abspath(coerce_path(workspace, "workspace")))
    files = _hash_dir(path)
    name = _dir_skill(path).name
    return _entry(
        name=name,
        scope=scope,
        source=source,
        dir_=_display_dir(path, ws),
        files=files,
        origin=origin,
    )


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
    ws = Path(os.path.abspath(coerce_path(workspace, "workspace")))
    new = [dict(e) for e in put]
    gone = {e["dir"] for e in new}
    gone.update(
        undecodable_text(_display_dir(Path(os.path.abspath(os.fspath(d))), ws)) for d in drop
    )
    kept = [dict(e) for e in lock.get("skills", []) if e.get("dir") not in gone]
    entries = sorted([*kept, *new], key=_entry_key)
    return {"version": LOCK_VERSION, "skills": entries}


def write_lock(path: str | os.PathLike[str], lock: Mapping[str, Any]) -> None:
    """Write a lock as indented JSON with a final newline, atomically (temporary file, rename).

    Raises:
        SkillError: ``fs_error`` codes when the file cannot be written.
    """
    text = json_text(lock) + "\n"
    target = Path(coerce_path(path, "path"))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fs_error(exc, target.parent) from None
    data = text.encode("utf-8")

    def write(out: IO[bytes]) -> None:
        out.write(data)

    _write_atomic(target, write)


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
        return _invalid_input(
            f"{text_path} is not a skills lock: {reason}", path=text_path, reason=reason
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
        if origin is not None and not isinstance(origin, dict):
            raise bad(f"skill {entry['name']!r} has a malformed origin")
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


# ---------------------------------------------------------------------------------------------
# Sources (SPEC §25.4-§25.5)


@dataclass(frozen=True, slots=True)
class Source:
    """A parsed SOURCE of ``add`` (SPEC §25.4).

    Attributes:
        kind: ``directory``, ``archive`` or ``git``.
        location: The directory or archive path (absolute), or the git URL.
        subdir: ``//SUBDIR`` of a git source (POSIX, relative), or ``None``.
        ref: ``#REF`` of a git source, or ``None`` (the default branch).
    """

    kind: Literal["directory", "archive", "git"]
    location: str
    subdir: str | None = None
    ref: str | None = None

    @property
    def origin_source(self) -> str:
        """The ``origin.source`` recorded in the lock: location and ``//SUBDIR``, no ``#REF``."""
        return f"{self.location}//{self.subdir}" if self.subdir else self.location


def parse_source(text: str, *, cwd: str | os.PathLike[str] | None = None) -> Source:
    """Parse a SOURCE: a local directory, an archive, or ``URL[//SUBDIR][#REF]`` (SPEC §25.5).

    An existing local path is a directory or an archive source; anything else is a git source,
    where ``#REF`` ends the text and ``//SUBDIR`` is the last ``//`` after the URL's ``://``.

    Raises:
        SkillError: ``invalid_input`` ``{source}`` for a SOURCE or REF starting with ``-``, an
            empty part, a local file that is no archive, or a path that does not exist and is no
            git URL.
    """
    if not isinstance(text, str) or not text:
        raise _invalid_input("SOURCE must be a non-empty string", source=str(text))
    if text.startswith("-"):
        raise _invalid_input(f"SOURCE must not start with '-': {text!r}", source=text)
    base = coerce_path(cwd, "cwd") if cwd is not None else os.getcwd()
    local = os.path.join(base, text)
    if "\x00" not in text and os.path.exists(local):
        absolute = os.path.abspath(local)
        if os.path.isdir(absolute):
            return Source("directory", absolute)
        if archive_kind(absolute) is not None:
            return Source("archive", absolute)
        raise _invalid_input(
            f"{text} is neither a directory nor a .zip, .skill, .tar.gz or .tgz archive",
            source=text,
        )
    body, hash_sign, ref = text.partition("#")
    if hash_sign and not ref:
        raise _invalid_input(f"empty #REF in {text!r}", source=text)
    if ref.startswith("-"):
        raise _invalid_input(f"REF must not start with '-': {ref!r}", source=text)
    scheme = body.find("://")
    start = scheme + 3 if scheme >= 0 else 0
    cut = body.rfind("//", start)
    url, subdir = (
        (body[:cut], body[cut + 2 :].strip("/")) if cut >= start and cut > 0 else (body, None)
    )
    if subdir == "":
        raise _invalid_input(f"empty //SUBDIR in {text!r}", source=text)
    if not url or url.startswith("-"):
        raise _invalid_input(f"no URL in {text!r}", source=text)
    if scheme <= 0 and _SCP_RE.match(url) is None:
        local_url = os.path.join(base, url)
        if not os.path.isdir(local_url):
            raise _invalid_input(f"{text} does not exist and is not a git URL", source=text)
        url = os.path.abspath(local_url)
    return Source("git", url, subdir, ref or None)


def _git(args: Sequence[str], cwd: str | None = None) -> str:
    git = shutil.which("git")
    if git is None:
        raise SkillError(ErrorCode.IO_ERROR, "git is not on PATH", {"command": "git"})
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    try:
        done = subprocess.run(
            [git, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SkillError(ErrorCode.IO_ERROR, f"git failed: {exc}", {"command": "git"}) from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        message = detail[-1] if detail else f"exit status {done.returncode}"
        command = next(
            a for i, a in enumerate(args) if a != "-c" and (i == 0 or args[i - 1] != "-c")
        )
        raise SkillError(
            ErrorCode.IO_ERROR, f"git {command} failed: {message}", {"command": f"git {command}"}
        )
    return done.stdout.decode("utf-8", "replace").strip()


def _clone(source: Source, dest: str) -> str:
    """Clone ``source`` into ``dest`` at its ref; return the commit checked out."""
    # ext:: runs a command; it is refused whatever the user's git configuration allows.
    base = [
        "-c",
        "protocol.ext.allow=never",
        "-c",
        "core.symlinks=true",
        "-c",
        "advice.detachedHead=false",
    ]
    if source.ref is None:
        _git([*base, "clone", "--quiet", "--depth", "1", "--", source.location, dest])
    else:
        try:
            _git(
                [
                    *base,
                    "clone",
                    "--quiet",
                    "--depth",
                    "1",
                    "--branch",
                    source.ref,
                    "--",
                    source.location,
                    dest,
                ]
            )
        except SkillError:
            # Not a branch or tag: a commit. Clone whole, then check that commit out.
            shutil.rmtree(dest, ignore_errors=True)
            _git([*base, "clone", "--quiet", "--no-checkout", "--", source.location, dest])
            # The commit is resolved first, so what reaches checkout is a hex id, never an option.
            commit = _git(
                [
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    "--end-of-options",
                    f"{source.ref}^{{commit}}",
                ],
                cwd=dest,
            )
            _git([*base, "checkout", "--quiet", "--detach", commit, "--"], cwd=dest)
    return _git(["rev-parse", "HEAD"], cwd=dest)


def _find_skill_dirs(tree: Path) -> list[Path]:
    """The skill directories in ``tree``: itself, else below it (at most three levels deep).

    Hidden directories, ``node_modules`` and ``__pycache__`` are not searched, links are not
    followed, and a skill directory is not searched further (its nested manifests are resources).
    """
    if find_manifest(tree) is not None:
        return [tree]
    found: list[Path] = []
    level = [tree]
    for _ in range(_SEARCH_DEPTH):
        below: list[Path] = []
        for parent in level:
            try:
                with os.scandir(parent) as it:
                    entries = sorted(it, key=lambda e: sort_key(e.name))
            except OSError:
                continue
            for entry in entries:
                if is_skipped(entry.name):
                    continue
                try:
                    if not entry.is_dir(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                path = parent / entry.name
                (found if find_manifest(path) is not None else below).append(path)
        level = below
    return found


def _source_skills(tree: Path) -> tuple[list[_SourceSkill], list[str]]:
    skills: list[_SourceSkill] = []
    problems: list[str] = []
    for skill_dir in _find_skill_dirs(tree):
        try:
            skills.append(_dir_skill(skill_dir))
        except SkillError as err:
            problems.append(f"{err.code.value}: {err.message}")
    return skills, problems


# ---------------------------------------------------------------------------------------------
# Installing (SPEC §25.4)


@dataclass(frozen=True, slots=True)
class Installed:
    """One skill installed (or removed) by :func:`install_skills` / :func:`remove_skill`.

    Attributes:
        name: The skill's name.
        dir: Its directory in the target root.
        replaced: Whether an existing copy was replaced.
        origin: ``{source, ref, commit}`` as recorded in the lock.
        warnings: ``(code, message)`` pairs about files left out (links leading outside, link
            members); the code is the diagnostic's kind (``escaping_symlink``, ...).
    """

    name: str
    dir: Path
    replaced: bool
    origin: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[tuple[str, str], ...] = ()


@contextmanager
def _opened_source(source: Source) -> Iterator[tuple[list[_SourceSkill], list[str], str | None]]:
    if source.kind == "directory":
        skills, problems = _source_skills(Path(source.location))
        yield skills, problems, None
        return
    if source.kind == "archive":
        index = read_index(source.location)
        yield _archive_skills(index), [], None
        return
    with tempfile.TemporaryDirectory(prefix="agent-skills-git-") as work:
        clone = os.path.join(work, "clone")
        commit = _clone(source, clone)
        tree = Path(clone)
        if source.subdir is not None:
            tree = resolve_resource_path(clone, source.subdir)
            if not tree.is_dir():
                raise SkillError(
                    ErrorCode.NOT_FOUND,
                    f"no directory {source.subdir!r} in {source.location}",
                    {"source": source.origin_source, "rel": source.subdir},
                )
        skills, problems = _source_skills(tree)
        yield skills, problems, commit


@contextmanager
def _root_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the root directory itself, so two installs into one root
    never clean up each other's temporary copies (POSIX; elsewhere no lock)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise fs_error(exc, root) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _clean_leftovers(root: Path) -> None:
    """Finish what an interrupted install left in ``root`` (SPEC §25.4).

    A temporary copy is deleted; an old copy is put back when its skill is missing (the install
    stopped between the two renames), else deleted.
    """
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        path = root / entry.name
        if entry.name.startswith(_TMP_PREFIX):
            shutil.rmtree(path, ignore_errors=True)
            continue
        match = _OLD_RE.match(entry.name)
        if match is None:
            continue
        home = root / match.group(1)
        if not os.path.lexists(home):
            try:
                os.rename(path, home)
                continue
            except OSError:
                pass
        shutil.rmtree(path, ignore_errors=True)


class _Budget:
    """The bytes a skill may still copy or pack: :data:`MAX_TOTAL_BYTES` in all, as for an
    archive (SPEC §25.1), so a sparse or endless file cannot fill the disk or the memory."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self.left = MAX_TOTAL_BYTES

    def take(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise SkillError(
                ErrorCode.TOO_LARGE,
                f"{self.where} holds more than {MAX_TOTAL_BYTES} bytes",
                {"path": str(self.where), "max_bytes": MAX_TOTAL_BYTES},
            )


def _copy_file(source: _SourceFile, dest_dir: Path, budget: _Budget | None = None) -> None:
    """Copy one file into the staged skill: confined read, exclusive create, exec bit kept."""
    parts = source.rel.split("/")
    if any(p in ("", ".", "..") for p in parts) or "\\" in source.rel or "\x00" in source.rel:
        raise _invalid_input(f"refusing file name {source.rel!r}", rel=source.rel)
    parent = dest_dir
    for part in parts[:-1]:
        parent = parent / part
        try:
            os.mkdir(parent, 0o755)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(parent).st_mode):
                raise _invalid_input(f"{source.rel!r} lies under a file", rel=source.rel) from None
    target = parent / parts[-1]
    with source.open() as src:
        mode = 0o755 if _is_executable(source, src) else 0o644
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags, mode)
        with os.fdopen(fd, "wb") as out:
            while chunk := src.read(_CHUNK):
                if budget is not None:
                    budget.take(len(chunk))
                out.write(chunk)
    os.chmod(target, mode)


def _install_one(skill: _SourceSkill, root: Path, force: bool) -> bool:
    """Stage ``skill`` in a temporary sibling, validate it, then rename it into place.

    Returns:
        Whether an existing copy was replaced.
    """
    target = root / skill.name
    existed = os.path.lexists(target)
    if existed and not force:
        raise SkillError(
            ErrorCode.DUPLICATE_SKILL,
            f"skill '{skill.name}' is already installed in {root} (use --force to replace it)",
            {"name": skill.name, "paths": [str(target)]},
        )
    tmp = Path(tempfile.mkdtemp(prefix=_TMP_PREFIX, dir=root))
    try:
        staged = tmp / skill.name
        os.mkdir(staged, 0o755)
        budget = _Budget(Path(skill.where))
        for source in skill.files:
            try:
                _copy_file(source, staged, budget)
            except OSError as exc:
                raise fs_error(exc, staged / source.rel) from None
        _refuse_invalid(staged, skill.name)
        old: Path | None = None
        if os.path.lexists(target):
            old = root / f"{_OLD_PREFIX}{secrets.token_hex(4)}-{skill.name}"
            os.rename(target, old)
        try:
            os.rename(staged, target)
        except OSError:
            if old is not None:
                os.rename(old, target)
            raise
        if old is not None:
            _remove_tree(old)
        return existed
    except OSError as exc:
        raise fs_error(exc, target) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _remove_tree(path: Path) -> None:
    if os.path.islink(path) or not os.path.isdir(path):
        os.unlink(path)
    else:
        shutil.rmtree(path)


def install_skills(
    source: Source,
    root: str | os.PathLike[str],
    *,
    names: Sequence[str] = (),
    force: bool = False,
) -> list[Installed]:
    """Install the skills of ``source`` (all, or those ``names``) into ``root`` (SPEC §25.4).

    Each skill is copied (manifest and listed resources, execute bits kept; a link leading
    outside the skill is left out) into a temporary sibling directory of ``root``, validated
    (SPEC §15: errors refuse it), then renamed into place; an existing copy is first renamed to a
    second sibling and deleted after. Leftovers of an interrupted install are cleaned up first.

    Args:
        source: From :func:`parse_source`.
        root: The target root (created when missing).
        names: Install only these skills (SPEC §25.5: ``--skill`` is repeatable).
        force: Replace skills already installed.

    Returns:
        One :class:`Installed` per skill, in ``(casefold, name)`` order.

    Raises:
        SkillError: ``not_found`` ``{names, source, suggestions}`` for names not in the source
            (``suggestions`` from ``suggest_names``, SPEC §21.10), or when it holds no
            skill; ``duplicate_skill`` ``{name, paths}`` for an installed name without ``force``
            (nothing is changed); ``invalid_skill`` when a skill does not validate;
            ``too_large`` for a skill over 10 000 files or 512 MiB; ``invalid_archive``;
            ``io_error`` when ``git`` fails (or is not on ``PATH``); ``path_escape`` for a
            ``//SUBDIR`` leading outside the clone; ``fs_error`` codes.
    """
    root_path = Path(os.path.abspath(coerce_path(root, "root")))
    try:
        root_path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fs_error(exc, root_path) from None
    with _root_lock(root_path), _opened_source(source) as (found, problems, commit):
        _clean_leftovers(root_path)
        by_name: dict[str, _SourceSkill] = {}
        for skill in found:
            by_name.setdefault(skill.name, skill)
        wanted = list(names) or sorted(by_name, key=sort_key)
        missing = [n for n in wanted if n not in by_name]
        if missing or not wanted:
            detail = f"; {'; '.join(problems)}" if problems else ""
            what = f"no skill named {', '.join(missing)}" if missing else "no skill"
            # The one suggestion rule of the project (SPEC §21.10), as for any unknown name.
            suggestions = list(
                dict.fromkeys(s for n in missing for s in suggest_names(n, list(by_name)))
            )
            hint = f" (did you mean {', '.join(suggestions)}?)" if suggestions else ""
            raise SkillError(
                ErrorCode.NOT_FOUND,
                f"{what} in {source.origin_source}{hint}{detail}",
                {"names": missing, "source": source.origin_source, "suggestions": suggestions},
            )
        chosen = [by_name[n] for n in dict.fromkeys(wanted)]
        if not force:
            taken = [s.name for s in chosen if os.path.lexists(root_path / s.name)]
            if taken:
                raise SkillError(
                    ErrorCode.DUPLICATE_SKILL,
                    f"already installed in {root_path}: {', '.join(taken)} "
                    "(use --force to replace)",
                    {"name": taken[0], "paths": [str(root_path / n) for n in taken]},
                )
        origin = {"source": source.origin_source, "ref": source.ref, "commit": commit}
        out: list[Installed] = []
        for skill in chosen:
            replaced = _install_one(skill, root_path, force)
            warnings = tuple((d.kind.value, d.message) for d in skill.diagnostics)
            out.append(Installed(skill.name, root_path / skill.name, replaced, origin, warnings))
    return out


def remove_skill(root: str | os.PathLike[str], name: str) -> Installed:
    """Remove the installed skill ``name`` from ``root`` (SPEC §25.4).

    The directory is first renamed to a hidden sibling, so it vanishes at once, then deleted.

    Raises:
        SkillError: ``invalid_input`` for a name holding a separator or made of dots;
            ``not_found`` ``{name}`` when it is not installed there; ``fs_error`` codes.
    """
    if not isinstance(name, str) or name_problem(name) is not None:
        raise _invalid_input(f"not a skill name: {name!r}", name=shown_text(name))
    root_path = Path(os.path.abspath(coerce_path(root, "root")))
    target = root_path / name
    if not os.path.lexists(target):
        raise SkillError(
            ErrorCode.NOT_FOUND, f"skill '{name}' is not installed in {root_path}", {"name": name}
        )
    # A removal interrupted between the two steps is finished by the next install's clean-up.
    old = root_path / f"{_TMP_PREFIX}{secrets.token_hex(4)}"
    try:
        with _root_lock(root_path):
            os.rename(target, old)
            _remove_tree(old)
    except OSError as exc:
        raise fs_error(exc, target) from None
    return Installed(name, target, True)
