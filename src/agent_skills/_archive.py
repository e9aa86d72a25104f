"""Archives read in place: ``.zip``, ``.skill`` and ``.tar.gz``/``.tgz`` (SPEC §25.1).

An archive is never extracted to disk. :func:`read_index` opens it once, checks every member name
and the size limits *before* anything is served, and returns an :class:`ArchiveIndex`: the regular
files it may serve and the skills they form. Later reads (:func:`read_member`) reopen the archive
and compare its identity with the pin taken by the index, so a replaced archive is never read
through a stale index.

Rules (SPEC §25.1, §25.5), each an ``invalid_archive`` :class:`SkillError` ``{path, reason}`` that
makes the archive contribute nothing:

- member names that are absolute, start with a drive letter, hold a ``..`` component, a backslash
  or NUL; a name given twice; two names equal after NFC and case folding;
- a member under a non-directory member (a file *through* a link, or through a file);
- more than :data:`MAX_MEMBERS` members, more than :data:`MAX_TOTAL_BYTES` uncompressed, a member
  compressed more than :data:`MAX_RATIO` times (for ``.tar.gz``, the whole stream);
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
from ._confine import has_drive, lexical_rel
from ._diagnostics import Diagnostic, DiagnosticKind, RootNote, RootStatus
from ._digest import FileDigest, digest_skill
from ._errors import ErrorCode, SkillError, fs_error, unreachable
from ._fs import READ_FLAGS, read_upto
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
    "MAX_MEMBERS",
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

MAX_MEMBERS = 10_000
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_RATIO = 200

Pin = tuple[int, int, int, int]

_CHUNK = 1 << 16
# A .tar.gz has no random access: streams up to this size are kept in memory (at most
# _TAR_CACHE_BUDGET bytes in all, least recently used dropped first), so reading N members costs
# one decompression, not N.
_TAR_CACHE_LIMIT = 64 * 1024 * 1024
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
    """

    path: Path
    real_path: Path
    kind: ArchiveKind
    pin: Pin
    files: dict[str, ArchiveFile]
    tops: tuple[str, ...]
    skills: tuple[ArchiveSkill, ...]
    diagnostics: tuple[Diagnostic, ...]

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


def invalid_archive(path: str | os.PathLike[str], reason: str) -> SkillError:
    """The ``invalid_archive`` error ``{path, reason}`` (SPEC §11, §25.1)."""
    return SkillError(
        ErrorCode.INVALID_ARCHIVE,
        f"invalid archive {os.fspath(path)}: {reason}",
        {"path": os.fspath(path), "reason": reason},
    )


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


@dataclass(slots=True)
class _Member:
    name: str
    kind: Literal["file", "dir", "link", "special"]
    size: int
    executable: bool
    offset: int = -1


def _zip_members(path: str, fh: IO[bytes]) -> Iterator[tuple[str, _Member]]:
    import zipfile

    try:
        with zipfile.ZipFile(fh) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
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
        yield raw, _Member(raw, kind, info.file_size, bool(mode & 0o111))


def _tar_members(
    path: str, fh: IO[bytes], compressed: int, kept: list[bytes]
) -> Iterator[tuple[str, _Member]]:
    """The members of a ``.tar.gz``; a stream small enough to cache is appended to ``kept``."""
    import gzip
    import tarfile

    # The whole stream is measured first, so a bomb is refused before tarfile parses anything.
    limit = min(MAX_RATIO * max(compressed, 1), MAX_TOTAL_BYTES + (MAX_MEMBERS + 2) * 1024)
    total = 0
    chunks: list[bytes] | None = []
    try:
        with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
            while chunk := gz.read(_CHUNK):
                total += len(chunk)
                if total > limit:
                    raise invalid_archive(
                        path,
                        f"the stream is compressed more than {MAX_RATIO} times"
                        if limit < MAX_TOTAL_BYTES
                        else f"more than {MAX_TOTAL_BYTES} bytes uncompressed",
                    )
                if chunks is not None:
                    chunks.append(chunk)
                    if total > _TAR_CACHE_LIMIT:
                        chunks = None
        if chunks is not None:
            kept.append(b"".join(chunks))
            source: IO[bytes] = io.BytesIO(kept[0])
            mode = "r:"
        else:
            fh.seek(0)
            source, mode = fh, "r:gz"
        with tarfile.open(fileobj=source, mode=mode) as tf:  # type: ignore[call-overload]
            count = 0
            while (info := tf.next()) is not None:
                count += 1
                if count > MAX_MEMBERS:
                    raise invalid_archive(path, f"more than {MAX_MEMBERS} members")
                kind: Literal["file", "dir", "link", "special"]
                if info.isreg():
                    kind = "file"
                elif info.isdir():
                    kind = "dir"
                elif info.issym() or info.islnk():
                    kind = "link"
                else:
                    kind = "special"
                executable = bool(info.mode & 0o111)
                yield info.name, _Member(info.name, kind, info.size, executable, info.offset_data)
    except (tarfile.TarError, OSError, EOFError, zlib.error, ValueError) as exc:
        raise invalid_archive(path, f"not a readable .tar.gz ({exc})") from None


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
        real = os.path.realpath(text)
    except OSError as exc:
        raise fs_error(exc, text) from None
    with fh:
        kept: list[bytes] = []
        source = (
            _zip_members(text, fh) if kind == "zip" else _tar_members(text, fh, st.st_size, kept)
        )
        members: dict[str, _Member] = {}
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
    return _build_index(Path(text), Path(real), kind, _pin_of(st), members)


def _build_index(
    path: Path, real: Path, kind: ArchiveKind, pin: Pin, members: dict[str, _Member]
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
        n: ArchiveFile(n, m.size, m.executable, m.offset)
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
        path, real, kind, pin, files, tuple(sorted(tops, key=sort_key)), tuple(skills), tuple(diags)
    )


def _manifest_in(files: dict[str, ArchiveFile], top: str) -> str | None:
    """The manifest of folder ``top`` (``""``: the top level), SPEC §4's choice of variant."""
    prefix = f"{top}/" if top else ""
    chosen = choose_manifest(n[len(prefix) :] for n in files if n.startswith(prefix))
    return None if chosen is None else prefix + chosen


def read_member(index: ArchiveIndex, name: str, max_bytes: int | None = None) -> bytes:
    """Read one file member of the archive ``index`` was built from.

    Args:
        index: From :func:`read_index`.
        name: A key of ``index.files``.
        max_bytes: Read at most this many bytes plus one (so the caller can tell ``too_large``);
            ``None`` reads the declared size plus one.

    Returns:
        The bytes read (never more than ``max_bytes + 1``).

    Raises:
        ArchiveChanged: The file at ``index.real_path`` is not the pinned one any more.
        SkillError: ``invalid_archive`` when the member cannot be decompressed; ``fs_error`` codes
            when the archive cannot be opened.
    """
    cap = (index.files[name].size if max_bytes is None else max_bytes) + 1
    with open_member(index, name) as src:
        try:
            return read_upto(src, cap, _CHUNK)
        except OSError as exc:
            raise invalid_archive(index.path, f"member {name!r} cannot be read ({exc})") from None


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
        if data is not None and len(data) > max_manifest_bytes:
            data, error = (
                None,
                SkillError(
                    ErrorCode.TOO_LARGE,
                    f"{manifest} is larger than {max_manifest_bytes} bytes",
                    {
                        "path": str(manifest),
                        "size": index.files[skill.manifest].size,
                        "max_bytes": max_manifest_bytes,
                    },
                ),
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


def open_member(index: ArchiveIndex, name: str) -> IO[bytes]:
    """Open one file member for streaming reads, from the pinned archive (SPEC §25.1).

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
        src: IO[bytes] | None = None
        if index.kind == "zip":
            zf = zipfile.ZipFile(fh)
            closers.append(zf)
            for info in zf.infolist():
                if _check_name(text, info.orig_filename) == name:
                    src = zf.open(info)
                    break
        elif (cached := _cache_get((text, index.pin))) is not None and member.offset >= 0:
            src = io.BytesIO(cached[member.offset : member.offset + member.size])
        else:
            tf = tarfile.open(fileobj=fh, mode="r:gz")  # noqa: SIM115 (closed with the stream)
            closers.append(tf)
            while (entry := tf.next()) is not None:
                if entry.isreg() and _check_name(text, entry.name) == name:
                    src = tf.extractfile(entry)
                    break
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
        "and has no path on disk; read it with read_resource",
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
