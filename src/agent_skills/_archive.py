"""Archives read in place: ``.zip``, ``.skill`` and ``.tar.gz``/``.tgz`` (SPEC §25.1).

An archive is never extracted to disk. :func:`read_index` opens it once, checks every member name
and the size limits *before* anything is served, and returns an :class:`ArchiveIndex`: the regular
files it may serve and the skills they form. Later reads (:func:`read_member`) reopen the archive
and compare its identity with the pin taken by the index, so a replaced archive is never read
through a stale index; they reach the member where the index found it (a zip member by its local
header's offset, a ``.tar.gz`` member from the stream kept in memory or from the nearest
resumption point), so reading every member costs about one pass over the archive.

Rules (SPEC §25.1, §25.5), each an ``invalid_archive`` :class:`SkillError` ``{path, reason}`` that
makes the archive contribute nothing:

- member names that are absolute, start with a drive letter, hold a ``..`` component, a backslash
  or NUL; a name given twice; two names equal after NFC and case folding;
- a member under a non-directory member (a file *through* a link, or through a file);
- more than :data:`MAX_MEMBERS` members, more than :data:`MAX_TOTAL_BYTES` uncompressed, a member
  compressed more than :data:`MAX_RATIO` times (for ``.tar.gz``, the whole stream);
- a zip central directory of more than :data:`MAX_MEMBERS` records or :data:`MAX_CENTRAL_BYTES`,
  told from its end record and a count of its records before ``zipfile`` parses it (SPEC §30.3);
- a ``.tar.gz`` header ``tarfile`` would spend unbounded time or memory on, refused before it
  acts on it: a negative size, an extended header (pax records, GNU long names) larger than
  :data:`MAX_EXTENDED_BYTES` or more than :data:`MAX_EXTENDED_CHAIN` of them in a row, pax
  records that are malformed or hold more than :data:`MAX_PAX_DIGITS` digits in a row, a sparse
  member;
- a file that is not a readable archive of its kind.

Symlink, hard-link and device members are never served: each gives one ``archive_link``
diagnostic. Members named ``.`` or ``./`` (the archive's own root) are ignored.
"""

from __future__ import annotations

import bisect
import errno
import io
import os
import stat
import struct
import threading
import unicodedata
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, cast

from ._args import shown_text
from ._config import (
    DEFAULT_MAX_MANIFEST_BYTES,
    ArchiveKind,
    SkillRoot,
    archive_kind,
    is_archive_root,
)
from ._confine import has_drive, lexical_rel, real_path
from ._diagnostics import Diagnostic, DiagnosticKind, RootNote, RootStatus
from ._digest import FileDigest, digest_skill
from ._errors import ErrorCode, SkillError, fs_error, unreachable
from ._fs import READ_FLAGS, read_capped
from ._members import (
    MAX_EXTENDED_BYTES,
    MAX_EXTENDED_CHAIN,
    MAX_MEMBERS,
    MAX_PAX_DIGITS,
    MAX_RATIO,
    MAX_TOTAL_BYTES,
    Inflated,
    Member,
    Point,
    invalid_archive,
    start_points,
    tar_members,
)
from ._model import (
    MANIFEST_NAME,
    RESOURCE_KINDS,
    ResourceKind,
    SkillResource,
    choose_manifest,
    is_manifest_name,
    is_skipped,
    sort_key,
)
from ._resources import MAX_DIRECTORY_DEPTH, ResourceListing
from ._scan import Candidate

if TYPE_CHECKING:
    import tarfile
    import zipfile

# zipfile, tarfile and gzip (with shutil, bz2 and lzma behind them) load with the first archive
# read, not with ``import agent_skills``: most stores hold no archive (SPEC §26, light core).

__all__ = [
    "MAX_CENTRAL_BYTES",
    "MAX_EXTENDED_BYTES",
    "MAX_EXTENDED_CHAIN",
    "MAX_MEMBERS",
    "MAX_PAX_DIGITS",
    "MAX_RATIO",
    "MAX_TOTAL_BYTES",
    "ArchiveChanged",
    "ArchiveFile",
    "ArchiveIndex",
    "ArchiveSkill",
    "ArchivedSkill",
    "archive_kind",
    "archived_digest",
    "archived_listing",
    "archived_path_error",
    "check_pin",
    "invalid_archive",
    "is_archive_root",
    "locate",
    "member_rel",
    "open_archived",
    "open_member",
    "read_index",
    "read_member",
    "scan_archive",
]


Pin = tuple[int, int, int, int]

_TAR_CACHE_BUDGET = 128 * 1024 * 1024
_tar_cache: OrderedDict[tuple[str, Pin], bytes] = OrderedDict()
_tar_cache_lock = threading.Lock()


def _cache_put(key: tuple[str, Pin], data: bytes) -> None:
    with _tar_cache_lock:
        _tar_cache[key] = data
        _tar_cache.move_to_end(key)
        total = sum(len(v) for v in _tar_cache.values())
        while total > _TAR_CACHE_BUDGET and len(_tar_cache) > 1:
            _, dropped = _tar_cache.popitem(last=False)
            total -= len(dropped)


def _cache_get(key: tuple[str, Pin]) -> bytes | None:
    with _tar_cache_lock:
        data = _tar_cache.get(key)
        if data is not None:
            _tar_cache.move_to_end(key)
        return data


class ArchiveChanged(Exception):
    """The archive on disk is no longer the file the index was read from (SPEC §25.1 pin)."""


@dataclass(frozen=True, slots=True)
class ArchiveFile:
    """A regular file member that may be served.

    Attributes:
        name: The member's checked POSIX name (no leading ``./``, no trailing ``/``).
        size: Uncompressed size in bytes, as the archive declares it.
        executable: Whether any execute bit is set in the member's mode.
    """

    name: str
    size: int
    executable: bool
    offset: int = -1  # .tar.gz: where the data starts in the uncompressed stream
    entry: Any = None  # .zip: its ``zipfile.ZipInfo`` (the member is reached by its offset)


@dataclass(frozen=True, slots=True)
class ArchiveSkill:
    """One skill of an archive.

    Attributes:
        top: The top-level folder holding the manifest; ``""`` for an archive whose top level
            holds ``SKILL.md``.
        manifest: The manifest's member name (exact ``SKILL.md`` preferred over case variants).
    """

    top: str
    manifest: str

    def rel_of(self, name: str) -> str:
        """The path of member ``name`` relative to this skill."""
        return name[len(self.top) + 1 :] if self.top else name

    def member_of(self, rel: str) -> str:
        """The member name of ``rel`` inside this skill."""
        return f"{self.top}/{rel}" if self.top else rel


@dataclass(frozen=True, slots=True)
class ArchiveIndex:
    """What :func:`read_index` found in one archive.

    Attributes:
        path: The archive path as given.
        real_path: Its real path (symlinks resolved).
        kind: ``"zip"`` (``.zip``, ``.skill``) or ``"tar.gz"`` (``.tar.gz``, ``.tgz``).
        pin: ``(st_dev, st_ino, st_size, st_mtime_ns)`` of the file read.
        files: Servable regular files by member name.
        tops: Every top-level directory name, sorted by ``(casefold, name)``.
        skills: The skills found, sorted by ``top`` the same way.
        diagnostics: One ``archive_link`` per link or device member left out.
        points: For a ``.tar.gz``, where its stream may be resumed (:class:`Point`, by
            offset) when it is not kept in memory: any member is read by decompressing at most
            :data:`_POINT_EVERY` bytes before it, never the whole stream again.
    """

    path: Path
    real_path: Path
    kind: ArchiveKind
    pin: Pin
    files: dict[str, ArchiveFile]
    tops: tuple[str, ...]
    skills: tuple[ArchiveSkill, ...]
    diagnostics: tuple[Diagnostic, ...]
    points: tuple[Point, ...] = ()

    def skill_files(self, skill: ArchiveSkill) -> Iterator[tuple[str, ArchiveFile]]:
        """Yield ``(rel, file)`` for every file member of ``skill`` (manifest included)."""
        prefix = f"{skill.top}/" if skill.top else ""
        for name, member in self.files.items():
            if name.startswith(prefix):
                yield name[len(prefix) :], member

    def resources(self, skill: ArchiveSkill) -> list[tuple[str, ArchiveFile]]:
        """The listed resources of ``skill`` as SPEC §9 lists a directory's, sorted the same way.

        Left out: the top-level manifest (every case variant), any path with a component that
        starts with ``.``, anything under ``__pycache__`` or ``node_modules``, and paths more than
        :data:`MAX_DIRECTORY_DEPTH` directories deep (SPEC §20.6).
        """
        out: list[tuple[str, ArchiveFile]] = []
        for rel, member in self.skill_files(skill):
            parts = rel.split("/")
            if len(parts) == 1 and is_manifest_name(rel):
                continue
            if len(parts) > MAX_DIRECTORY_DEPTH + 1 or any(is_skipped(p) for p in parts):
                continue
            out.append((rel, member))
        out.sort(key=lambda item: sort_key(item[0]))
        return out


class _NotRegular(OSError):
    """The archive's path leads to something other than a regular file (``EISDIR`` for a
    directory, ``EINVAL`` otherwise, so that ``fs_error`` names it)."""


def _open_file(path: str) -> tuple[IO[bytes], os.stat_result]:
    """Open ``path`` (a symlinked archive is followed) without blocking on a FIFO.

    Raises:
        OSError: As ``os.open``; :class:`_NotRegular` for anything but a regular file.
    """
    fd = os.open(path, READ_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _NotRegular(errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL, path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st
    except BaseException:
        os.close(fd)
        raise


def _pin_of(st: os.stat_result) -> Pin:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _check_name(path: str, raw: str) -> str | None:
    """Return the member's normalised name, ``None`` for the archive's own root entry."""
    if "\x00" in raw:
        raise invalid_archive(path, f"member name {raw!r} holds NUL")
    if "\\" in raw:
        raise invalid_archive(path, f"member name {raw!r} holds a backslash")
    if raw.startswith("/"):
        raise invalid_archive(path, f"member name {raw!r} is absolute")
    if has_drive(raw):
        raise invalid_archive(path, f"member name {raw!r} starts with a drive letter")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise invalid_archive(path, f"member name {raw!r} holds a '..' component")
    return "/".join(parts) if parts else None


# The central directory of a zip: its records are counted (and their size bounded) before
# ``zipfile`` parses one, so a file that is nothing but a huge directory is refused at once.
_EOCD = struct.Struct("<4s4H2LH")  # signature, disks, entries here, entries, size, offset, comment
_EOCD64_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")  # ..., entries here, entries, size, offset
_CENTRAL = struct.Struct("<4s24x3H")  # signature, then the name, extra and comment lengths at 28
_CENTRAL_FIXED = 46
#: The largest zip central directory read (10 000 records of 1.6 KiB each on average).
MAX_CENTRAL_BYTES = 16 * 1024 * 1024


def _check_central_directory(path: str, fh: IO[bytes], size: int) -> None:
    """Refuse a zip whose central directory is larger than :data:`MAX_CENTRAL_BYTES` or holds
    more than :data:`MAX_MEMBERS` records, from its end record and a count of its records
    (one ``struct`` read each), before ``zipfile`` parses the whole of it (SPEC §25.1).

    Where the end record cannot be found or read, nothing is decided here: ``zipfile`` then
    refuses the file with its own reason.

    Raises:
        SkillError: ``invalid_archive`` ``{path, reason}``.
        OSError: From the reads.
    """
    tail_size = min(size, _EOCD.size + 0xFFFF)
    fh.seek(size - tail_size)
    tail = fh.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or at + _EOCD.size > len(tail):
        return
    _, _, _, _, entries, cd_size, _, _ = _EOCD.unpack_from(tail, at)
    end = size - tail_size + at  # where the central directory ends (the end record starts)
    locator = at - _EOCD64_LOCATOR.size
    if locator >= 0 and tail[locator : locator + 4] == b"PK\x06\x07":
        record = end - _EOCD64_LOCATOR.size - _EOCD64.size
        if record >= 0:
            fh.seek(record)
            raw = fh.read(_EOCD64.size)
            if len(raw) == _EOCD64.size and raw[:4] == b"PK\x06\x06":
                _, _, _, _, _, _, _, entries, cd_size, _ = _EOCD64.unpack(raw)
                end = record
    if entries > MAX_MEMBERS:
        raise invalid_archive(path, f"more than {MAX_MEMBERS} members")
    if cd_size > MAX_CENTRAL_BYTES:
        raise invalid_archive(
            path, f"its central directory is larger than {MAX_CENTRAL_BYTES} bytes"
        )
    if cd_size > end:
        return  # (zipfile says what is wrong)
    fh.seek(end - cd_size)
    directory = fh.read(cd_size)
    pos = count = 0
    while pos + _CENTRAL_FIXED <= len(directory):
        signature, name_len, extra_len, comment_len = _CENTRAL.unpack_from(directory, pos)
        if signature != b"PK\x01\x02":
            return
        count += 1
        if count > MAX_MEMBERS:
            raise invalid_archive(path, f"more than {MAX_MEMBERS} members")
        pos += _CENTRAL_FIXED + name_len + extra_len + comment_len


def _zip_members(path: str, fh: IO[bytes], size: int) -> Iterator[tuple[str, Member]]:
    import zipfile

    try:
        _check_central_directory(path, fh, size)
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            infos = zf.infolist()
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        EOFError,
        ValueError,
        NotImplementedError,  # ("zip file version 23.5" of a directory record)
    ) as exc:
        raise invalid_archive(path, f"not a readable zip ({exc})") from None
    if len(infos) > MAX_MEMBERS:
        raise invalid_archive(path, f"more than {MAX_MEMBERS} members")
    for info in infos:
        raw = info.orig_filename
        mode = (info.external_attr >> 16) & 0xFFFF if info.create_system == 3 else 0
        fmt = stat.S_IFMT(mode)
        kind: Literal["file", "dir", "link", "special"]
        if raw.endswith("/") or fmt == stat.S_IFDIR:
            kind = "dir"
        elif fmt == stat.S_IFLNK:
            kind = "link"
        elif fmt in (0, stat.S_IFREG):
            kind = "file"
        else:
            kind = "special"
        if kind == "file":
            ratio_base = max(info.compress_size, 1)
            if info.file_size > MAX_RATIO * ratio_base:
                raise invalid_archive(
                    path, f"member {raw!r} is compressed more than {MAX_RATIO} times"
                )
        yield raw, Member(raw, kind, info.file_size, bool(mode & 0o111), -1, info)


def read_index(path: str | os.PathLike[str]) -> ArchiveIndex:
    """Open an archive root and check it whole before anything is served (SPEC §25.1).

    Args:
        path: The archive file (``.zip``, ``.skill``, ``.tar.gz``, ``.tgz``; symlinks followed).

    Returns:
        The :class:`ArchiveIndex`.

    Raises:
        SkillError: ``invalid_archive`` ``{path, reason}`` for any rule of the module docstring;
            ``fs_error`` codes (``not_found``, ``not_a_file``, ``io_error``) when it cannot be
            opened.
    """
    text = os.fspath(path)
    kind = archive_kind(text)
    if kind is None:
        raise invalid_archive(text, "not a .zip, .skill, .tar.gz or .tgz file")
    try:
        fh, st = _open_file(text)
        real = real_path(text)
        if real is None:  # its links changed since the open (SPEC §30.6)
            fh.close()
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    except OSError as exc:
        raise fs_error(exc, text) from None
    with fh:
        kept: list[bytes] = []
        points: list[Point] = []
        source = (
            _zip_members(text, fh, st.st_size)
            if kind == "zip"
            else tar_members(text, fh, st.st_size, kept, points)
        )
        members: dict[str, Member] = {}
        folded: dict[str, str] = {}
        total = 0
        for raw, member in source:
            name = _check_name(text, raw)
            if name is None:
                continue
            key = unicodedata.normalize("NFC", name).casefold()
            other = folded.get(key)
            if other is not None:
                if other == name:
                    raise invalid_archive(text, f"member name {name!r} appears twice")
                raise invalid_archive(
                    text, f"member names {other!r} and {name!r} collide after NFC and case folding"
                )
            folded[key] = name
            member.name = name
            members[name] = member
            if member.kind == "file":
                total += member.size
                if total > MAX_TOTAL_BYTES:
                    raise invalid_archive(text, f"more than {MAX_TOTAL_BYTES} bytes uncompressed")
    if kept:
        _cache_put((real, _pin_of(st)), kept[0])
    return _build_index(Path(text), Path(real), kind, _pin_of(st), members, tuple(points))


def _build_index(
    path: Path,
    real: Path,
    kind: ArchiveKind,
    pin: Pin,
    members: dict[str, Member],
    points: tuple[Point, ...] = (),
) -> ArchiveIndex:
    text = os.fspath(path)
    # A member under a non-directory member: found by one binary search per non-directory in
    # the sorted names, so the cost stays O(n log n) however deep the names are.
    ordered = sorted(members)
    for blocker, member in members.items():
        if member.kind == "dir":
            continue
        below = bisect.bisect_left(ordered, blocker + "/")
        if below < len(ordered) and ordered[below].startswith(blocker + "/"):
            what = "link" if member.kind in ("link", "special") else "file"
            raise invalid_archive(
                text, f"member {ordered[below]!r} lies under the {what} {blocker!r}"
            )
    diags: list[Diagnostic] = []
    tops: set[str] = set()
    for name, member in members.items():
        top, slash, _ = name.partition("/")
        if slash or member.kind == "dir":
            tops.add(top)
        if member.kind in ("link", "special"):
            what = "link" if member.kind == "link" else "special file"
            diags.append(
                Diagnostic(
                    DiagnosticKind.ARCHIVE_LINK,
                    f"not serving {what} member {name!r} of {text}",
                    path / name,
                )
            )
    files = {
        n: ArchiveFile(n, m.size, m.executable, m.offset, m.entry)
        for n, m in sorted(members.items(), key=lambda item: sort_key(item[0]))
        if m.kind == "file"
    }
    skills: list[ArchiveSkill] = []
    root_manifest = _manifest_in(files, "")
    if root_manifest is not None:
        skills.append(ArchiveSkill("", root_manifest))
    else:
        for top in sorted(tops, key=sort_key):
            manifest = _manifest_in(files, top)
            if manifest is not None:
                skills.append(ArchiveSkill(top, manifest))
    return ArchiveIndex(
        path,
        real,
        kind,
        pin,
        files,
        tuple(sorted(tops, key=sort_key)),
        tuple(skills),
        tuple(diags),
        points,
    )


def _manifest_in(files: dict[str, ArchiveFile], top: str) -> str | None:
    """The manifest of folder ``top`` (``""``: the top level), SPEC §4's choice of variant."""
    prefix = f"{top}/" if top else ""
    chosen = choose_manifest(n[len(prefix) :] for n in files if n.startswith(prefix))
    return None if chosen is None else prefix + chosen


def read_member(index: ArchiveIndex, name: str, max_bytes: int | None = None) -> bytes:
    """Read one file member of the archive ``index`` was built from, through the one capped
    read (``_fs.read_capped``): never more than the cap plus one byte (SPEC §30.3).

    Args:
        index: From :func:`read_index`.
        name: A key of ``index.files``.
        max_bytes: The most bytes accepted; ``None``: the member's declared size.

    Returns:
        The bytes.

    Raises:
        ArchiveChanged: The file at ``index.real_path`` is not the pinned one any more.
        SkillError: ``too_large`` ``{path, size, max_bytes}`` (``path`` the member's,
            ``<archive>/<name>``) past the cap; ``invalid_archive`` when the member cannot be
            decompressed or holds another number of bytes than it declares; ``fs_error`` codes
            when the archive cannot be opened.
    """
    member = index.files[name]
    cap = member.size if max_bytes is None else max_bytes
    data = None
    if member.size <= cap:
        with open_member(index, name) as src:
            try:
                data = read_capped(src, member.size, cap)
            except OSError as exc:
                raise invalid_archive(
                    index.path, f"member {name!r} cannot be read ({exc})"
                ) from None
    if data is not None and len(data) != member.size:
        # A member whose stream ends before (or runs past) its declared size is not what the
        # index listed: never served short.
        raise invalid_archive(
            index.path, f"member {name!r} holds {len(data)} bytes, not the {member.size} declared"
        )
    if data is None:
        where = os.fspath(index.path / name)
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{where} is larger than {cap} bytes",
            {"path": where, "size": max(member.size, cap + 1), "max_bytes": cap},
        )
    return data


# ---------------------------------------------------------------------------------------------
# Archive roots in discovery (SPEC §25.1)


@dataclass(frozen=True, slots=True)
class ArchivedSkill:
    """How a discovered skill lives in its archive: the index read at discovery and its folder.

    ``dir`` is the skill's ``SkillInfo.dir`` (``<archive path>/<top folder>``), a name only.
    """

    index: ArchiveIndex
    skill: ArchiveSkill
    dir: Path

    @property
    def real_dir(self) -> Path:
        """``<real archive path>/<top folder>`` (SPEC §25.1)."""
        return self.index.real_path / self.dir.name

    def member(self, rel: str) -> str:
        """The member name of ``rel``, a POSIX path already checked by the caller."""
        return self.skill.member_of(rel)


def scan_archive(
    root: SkillRoot, *, max_manifest_bytes: int = DEFAULT_MAX_MANIFEST_BYTES
) -> tuple[RootNote, list[Candidate], list[Diagnostic], dict[Path, ArchivedSkill]]:
    """Scan an archive root: one candidate per top-level folder (SPEC §25.1 amends §4).

    Returns:
        ``(note, candidates, diagnostics, archived)``: the root's note; one :class:`Candidate`
        per top-level directory (or one for an archive whose top level holds ``SKILL.md``, its
        ``entry_name`` the frontmatter name), manifest bytes read; root-level diagnostics (an
        ``invalid_archive`` that makes the archive contribute nothing); and, per candidate
        ``dir``, the :class:`ArchivedSkill` to read it through. Nothing is raised.
    """
    try:
        index = read_index(root.path)
    except SkillError as err:
        if err.code != ErrorCode.INVALID_ARCHIVE:
            missing = err.code == ErrorCode.NOT_FOUND
            status = RootStatus.MISSING if missing else RootStatus.UNREADABLE
            return RootNote(root.path, status, err.message), [], [], {}
        diag = Diagnostic(DiagnosticKind.INVALID_ARCHIVE, err.message, root.path)
        return RootNote(root.path, RootStatus.INVALID_ARCHIVE, err.message), [], [diag], {}
    by_top = {s.top: s for s in index.skills}
    cands: list[Candidate] = []
    archived: dict[Path, ArchivedSkill] = {}
    tops = [""] if "" in by_top else list(index.tops)
    for top in tops:
        skill = by_top.get(top)
        entry = top or _root_skill_name(index, skill)
        skill_dir = root.path / entry
        if skill is None:
            cands.append(
                Candidate(root, entry, skill_dir, skip_reason=f"no {MANIFEST_NAME} in directory")
            )
            continue
        manifest = skill_dir / skill.rel_of(skill.manifest)
        diags: list[Diagnostic] = []
        if skill.manifest.rsplit("/", 1)[-1] != MANIFEST_NAME:
            diags.append(
                Diagnostic(
                    DiagnosticKind.MANIFEST_CASE,
                    f"using {manifest} as the manifest of {skill_dir} (expected {MANIFEST_NAME})",
                    manifest,
                )
            )
        prefix = f"{top}/" if top else ""
        diags.extend(
            d for d in index.diagnostics if d.path is not None and _under(d.path, root.path, prefix)
        )
        data: bytes | None = None
        error: SkillError | None = None
        try:
            data = read_member(index, skill.manifest, max_manifest_bytes)
        except ArchiveChanged:
            error = SkillError(
                ErrorCode.IO_ERROR,
                f"{root.path} changed while it was read",
                {"path": str(manifest)},
            )
        except SkillError as err:
            error = err
            if err.code == ErrorCode.TOO_LARGE:
                error = SkillError(
                    ErrorCode.TOO_LARGE,
                    f"{manifest} is larger than {max_manifest_bytes} bytes",
                    {
                        "path": str(manifest),
                        "size": index.files[skill.manifest].size,
                        "max_bytes": max_manifest_bytes,
                    },
                )
        cands.append(
            Candidate(
                root,
                entry,
                skill_dir,
                manifest=manifest,
                location=os.fspath(manifest),
                data=data,
                error=error,
                diagnostics=tuple(diags),
            )
        )
        archived[skill_dir] = ArchivedSkill(index, skill, skill_dir)
    return RootNote(root.path, RootStatus.OK), cands, [], archived


def _under(path: Path, archive: Path, prefix: str) -> bool:
    name = os.fspath(path)[len(os.fspath(archive)) + 1 :]
    return name.startswith(prefix)


def _root_skill_name(index: ArchiveIndex, skill: ArchiveSkill | None) -> str:
    """The entry name of an archive whose top level holds the manifest: its frontmatter name."""
    stem = index.path.name.split(".", 1)[0] or index.path.name
    if skill is None:
        return stem
    try:
        data = read_member(index, skill.manifest, DEFAULT_MAX_MANIFEST_BYTES)
        from ._manifest import parse_skill

        name = parse_skill(data).frontmatter.get("name")
    except (SkillError, ArchiveChanged):
        return stem
    return name if isinstance(name, str) and name and "/" not in name else stem


def member_rel(rel: object) -> str:
    """Check a resource path asked of an archived skill and return its POSIX form (SPEC §10).

    The lexical rules of the resolver (``_confine.lexical_rel``): backslashes are separators; a
    non-text, empty, NUL-holding or absolute path is ``invalid_input``; one that climbs out of
    the skill is ``path_escape`` ``{rel}``; the skill itself is ``not_a_file`` ``{rel}``. There
    is no filesystem to canonicalise: members are names.
    """
    inner, text = lexical_rel(rel)
    if not inner:
        raise SkillError(ErrorCode.NOT_A_FILE, f"not a file: {text}", {"rel": text})
    return inner


class _MemberStream(io.RawIOBase):
    """A member being read: decompresses on demand, closes the archive file with it."""

    def __init__(
        self,
        closers: list[IO[bytes] | zipfile.ZipFile | tarfile.TarFile],
        src: IO[bytes],
        size: int,
    ):
        super().__init__()
        self._closers = closers
        self._src = src
        self.size = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        import tarfile
        import zipfile

        view = memoryview(buffer).cast("B")
        try:
            data = self._src.read(len(view))
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error) as exc:
            raise OSError(errno.EIO, f"archive member cannot be read: {exc}") from None
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            for item in (self._src, *reversed(self._closers)):
                with suppress(Exception):
                    item.close()
        super().close()


class _Window(io.RawIOBase):
    """At most ``size`` bytes of ``inner`` from its position on."""

    def __init__(self, inner: io.RawIOBase, size: int) -> None:
        super().__init__()
        self._inner = inner
        self._left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        n = self._inner.readinto(view[: min(len(view), self._left)]) or 0
        self._left -= n
        return n


_LOCAL_HEADER = struct.Struct("<4s22x2H")  # signature, then the name and extra lengths at 26


def _open_zip_entry(fh: IO[bytes], info: Any) -> IO[bytes]:
    """The member ``info`` (a ``zipfile.ZipInfo`` of the index) read from its local header on,
    with ``zipfile``'s own decompressor and checks (size, CRC): what ``ZipFile.open`` does,
    without parsing the central directory again.

    Raises:
        zipfile.BadZipFile: A local header that is not the one the directory names.
        RuntimeError: An encrypted member (never served).
        NotImplementedError: A compression method ``zipfile`` cannot read.
    """
    import zipfile

    if info.flag_bits & 0x1:
        raise RuntimeError("the member is encrypted")
    fh.seek(info.header_offset)
    header = fh.read(_LOCAL_HEADER.size)
    if len(header) != _LOCAL_HEADER.size:
        raise zipfile.BadZipFile("truncated local header")
    signature, name_len, extra_len = _LOCAL_HEADER.unpack(header)
    if signature != b"PK\x03\x04":
        raise zipfile.BadZipFile("bad local header signature")
    encoding = "utf-8" if info.flag_bits & 0x800 else "cp437"
    if fh.read(name_len).decode(encoding) != info.orig_filename:
        raise zipfile.BadZipFile("the local header names another member")
    fh.seek(extra_len, io.SEEK_CUR)
    return cast(IO[bytes], zipfile.ZipExtFile(fh, "r", info, None, False))


def open_member(index: ArchiveIndex, name: str) -> IO[bytes]:
    """Open one file member for streaming reads, from the pinned archive (SPEC §25.1).

    The archive is opened once for the member and the member reached where the index found
    it: a zip member by the offset of its local header (its central directory is not parsed
    again), a ``.tar.gz`` member in the stream kept in memory, or by resuming the stream at the
    nearest point before it (``ArchiveIndex.points``), so reading every member of an archive
    costs about one pass over it, never one pass per member.

    Returns:
        A binary stream with a ``size`` attribute (the declared size); decompression errors
        surface as ``OSError`` (``EIO``). The caller closes it.

    Raises:
        ArchiveChanged: The archive is not the pinned file any more.
        SkillError: ``invalid_archive`` when the member cannot be found or opened.
    """
    import tarfile
    import zipfile

    member = index.files[name]
    text = os.fspath(index.real_path)
    try:
        fh, st = _open_file(text)
    except OSError as exc:
        if isinstance(exc, _NotRegular) or unreachable(exc):  # not the pinned file any more
            raise ArchiveChanged(text) from None
        raise fs_error(exc, text) from None
    closers: list[IO[bytes] | zipfile.ZipFile | tarfile.TarFile] = [fh]
    try:
        if _pin_of(st) != index.pin:
            raise ArchiveChanged(text)
        # Every member is reached from where the index found it: nothing is parsed or
        # decompressed again but what lies before it since the last resumption point.
        src: IO[bytes] | None = None
        if index.kind == "zip":
            src = _open_zip_entry(fh, member.entry)
        elif (cached := _cache_get((text, index.pin))) is not None and member.offset >= 0:
            src = io.BytesIO(cached[member.offset : member.offset + member.size])
        elif member.offset >= 0:
            inflated = Inflated(fh, list(index.points) or start_points())
            inflated.seek(member.offset)
            src = cast(IO[bytes], _Window(inflated, member.size))
        if src is None:
            raise invalid_archive(text, f"member {name!r} is gone")
        return cast(IO[bytes], _MemberStream(closers, src, member.size))
    except BaseException as exc:
        for item in reversed(closers):
            with suppress(Exception):
                item.close()
        if isinstance(
            exc,
            (
                zipfile.BadZipFile,
                tarfile.TarError,
                OSError,
                EOFError,
                zlib.error,
                RuntimeError,
                NotImplementedError,
                ValueError,
            ),
        ) and not isinstance(exc, ArchiveChanged):
            raise invalid_archive(text, f"member {name!r} cannot be read ({exc})") from None
        raise


def _stale(archived: ArchivedSkill, name: str) -> SkillError:
    return SkillError(
        ErrorCode.STALE_SKILL,
        f"Skill '{name}' changed since discovery: its archive {archived.index.path} was "
        "replaced or rewritten; refresh() to see it again",
        {"name": name, "dir": os.fspath(archived.real_dir)},
    )


def check_pin(archived: ArchivedSkill, name: str) -> None:
    """Raise ``stale_skill`` ``{name, dir}`` unless the archive is still the pinned file."""
    try:
        st = os.stat(archived.index.real_path)
    except OSError:
        raise _stale(archived, name) from None
    if _pin_of(st) != archived.index.pin:
        raise _stale(archived, name)


def archived_listing(archived: ArchivedSkill, name: str, max_resources: int) -> ResourceListing:
    """The resources of an archived skill, listed as SPEC §9 lists a directory's.

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}`` when the archive changed since discovery.
    """
    check_pin(archived, name)
    found = archived.index.resources(archived.skill)
    diags: list[Diagnostic] = []
    truncated = len(found) > max_resources
    if truncated:
        diags.append(
            Diagnostic(
                DiagnosticKind.RESOURCES_TRUNCATED,
                f"listing of {archived.dir} truncated to {max_resources} of {len(found)} files",
                archived.dir,
            )
        )
        found = found[:max_resources]
    resources = tuple(
        SkillResource(_resource_kind(rel), rel, archived.dir / rel, member.size)
        for rel, member in found
    )
    return ResourceListing(resources, truncated, tuple(diags))


def _resource_kind(rel: str) -> ResourceKind:
    first = rel.split("/", 1)[0]
    return next((kind for kind in RESOURCE_KINDS if kind == first), "other")


def archived_path_error(archived: ArchivedSkill, name: str, rel: object) -> SkillError:
    """``not_a_file`` ``{name, rel, archive}``: an archived file has no path (SPEC §25.1)."""
    rel_text = shown_text(rel)
    return SkillError(
        ErrorCode.NOT_A_FILE,
        f"Resource '{rel_text}' of skill '{name}' lives in the archive {archived.index.path} "
        "and has no path on disk; read it with read_resource (`agent-skills read` on the command "
        "line)",
        {"name": name, "rel": rel_text, "archive": os.fspath(archived.index.path)},
    )


def open_archived(archived: ArchivedSkill, name: str, rel: object) -> IO[bytes]:
    """Open a file of an archived skill from its pinned archive (SPEC §10, §25.1).

    Raises:
        SkillError: ``invalid_input`` / ``path_escape`` ``{rel, name}`` (lexical rules);
            ``not_found`` ``{name, rel}`` for a missing member or one that is not served (links,
            devices); ``not_a_file`` ``{name, rel}`` for a directory; ``stale_skill``
            ``{name, dir}`` when the archive changed; ``invalid_archive`` when it cannot be read.
    """
    try:
        rel_text = member_rel(rel)
    except SkillError as err:
        raise err.with_fields({"name": name}) from None
    asked = os.fspath(rel)  # type: ignore[call-overload]
    member = archived.member(rel_text)
    index = archived.index
    if member not in index.files:
        check_pin(archived, name)
        prefix = member + "/"
        if any(n.startswith(prefix) for n in index.files) or rel_text in ("",):
            raise SkillError(
                ErrorCode.NOT_A_FILE,
                f"Resource '{asked}' in skill '{name}' is not a file",
                {"name": name, "rel": asked},
            )
        raise SkillError(
            ErrorCode.NOT_FOUND,
            f"No such resource '{asked}' in skill '{name}'",
            {"name": name, "rel": asked},
        )
    try:
        return open_member(index, member)
    except ArchiveChanged:
        raise _stale(archived, name) from None


def locate(skill_dir: str | os.PathLike[str]) -> ArchivedSkill | None:
    """The archived skill named by ``<archive path>/<top folder>``, or ``None`` when
    ``skill_dir`` does not name one (its parent is not an archive file).

    Raises:
        SkillError: ``invalid_archive`` or ``fs_error`` codes when the archive cannot be read.
    """
    path = Path(os.path.abspath(os.fspath(skill_dir)))
    parent = path.parent
    if archive_kind(parent) is None or not os.path.isfile(parent):
        return None
    index = read_index(parent)
    for skill in index.skills:
        entry = skill.top or _root_skill_name(index, skill)
        if entry == path.name:
            return ArchivedSkill(index, skill, path)
    raise SkillError(
        ErrorCode.NOT_FOUND, f"No skill {path.name!r} in the archive {parent}", {"path": str(path)}
    )


def archived_digest(
    archived: ArchivedSkill, max_resources: int
) -> tuple[str, tuple[FileDigest, ...]]:
    """The skill digest of an archived skill and its per-file digests: its manifest and listed
    resources (SPEC §23.3), read from the pinned archive (``_digest.digest_skill``).

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}`` when the archive changed since discovery;
            ``invalid_archive`` when a member cannot be read.
    """
    skill = archived.skill
    rels = [skill.rel_of(skill.manifest)]
    rels.extend(rel for rel, _ in archived.index.resources(skill)[:max_resources])

    reading = [""]  # the rel being hashed, for the error

    def read(rel: str) -> IO[bytes]:
        reading[0] = rel
        return open_member(archived.index, skill.member_of(rel))  # hashed as it streams

    try:
        return digest_skill(rels, read)
    except ArchiveChanged:
        raise _stale(archived, archived.dir.name) from None
    except OSError as exc:
        raise invalid_archive(archived.index.path, f"{reading[0]} cannot be read ({exc})") from None
