"""The on-disk index of parsed manifests (SPEC §26).

A cache, never a source of truth: discovery with an index gives exactly what discovery without one
gives. An entry holds the outcome of parsing one skill directory's manifest (the catalog facts,
the frontmatter, the body and the parse diagnostics, or the error) and is used only while the
directory and the manifest still have the ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)``
they had when the manifest was read. A change the timestamps cannot show (a rewrite within the
same clock tick as the stat) is caught the way git's index catches it: an entry whose manifest or
directory changed within :data:`RACY_WINDOW_NS` before the scan that read it is marked *racy* and
read again next time.

Only plain cases are cached: a directory whose manifest variants (``SKILL.md`` in any letter case)
are all regular files, not links, and whose manifest was read. Everything else goes through the
normal scan every time. A valid entry of a directory listed in its root costs two ``lstat`` calls
and nothing opened: the directory's stamp shows that its listing (hence which manifest it holds)
is as it was, the manifest's that its bytes are. A large file is read (and checksummed) on a
second thread while the scan takes those stats (:class:`_Reader`, :meth:`ManifestIndex.prefetch`).

File layout (format 8): the line :data:`MAGIC`, a line ``<header bytes> <rest bytes> <bodies
bytes> <CRC-32 of header and rest but the bodies, hex> <CRC-32 of the bodies, hex>``
(accidental damage: a file whose checksum does not match is ignored whole), the header (JSON:
the settings, the entries by directory, the sizes of the next three sections), the stamps (ten
little-endian 64-bit integers per entry: the directory's stamp then the manifest's), the
frontmatters' key layouts and the frontmatters (two JSON arrays, see :class:`Nodes`: each
mapping or list of a frontmatter is a layout number and a row of values, the key layouts stored
once, so that decoding at the first hit makes the read-only mappings without a Python call per
mapping), then the bodies (UTF-8, concatenated; entries hold offsets; the last ``<bodies
bytes>`` of the rest). The bodies are read from the file the scan opened (:class:`_Bodies`)
when the first entry is restored, and checked against their own checksum then (a mismatch is
damage, as any other); the buffer they are read into is what the skills hold: an ASCII body is
decoded when first read (see :class:`~agent_skills._model.ResolvedSkill`), any other when its
entry is restored, so that bytes that are not UTF-8 are damage found then; the rest is dropped
once decoded. The file is replaced atomically (written to a temporary file in the same
directory, then renamed over the old one). A file that is not an index, or is damaged, is
ignored with an ``index_ignored`` diagnostic and rewritten; an index written by another library
version, format or for other settings is rebuilt without one.

A process remembers the last index file a scan left as it was (:class:`_Memo`): while that file
keeps its path, stamp and settings (and did not change within the racy window), the next scan
takes its entries without reading the file, validates each by its two stats as always, and
reuses the read-only candidates and results built from it before when built from the same
inputs.

The index is a cache under its owner's control: whoever can write it can change what discovery
reports (not what is read from disk: resources are always read from the pinned skill directories).
Keep it where only those trusted to write the skills can write; it is written readable by its
owner only, and it holds what that user could read when it was written.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import struct
import threading
import time
import weakref
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import TYPE_CHECKING, Any

from ._diagnostics import Diagnostic, DiagnosticKind
from ._errors import SkillError
from ._frozen import FrozenMapping
from ._fs import CLOEXEC, READ_FLAGS
from ._index_format import (
    DAMAGE,
    KIND,
    LINKED,
    MAGIC,
    MANIFEST,
    PAYLOAD,
    RACY,
    RECORD,
    SCAN_DIAGS,
    STAMPS,
    Nodes,
    StatKey,
    decode_nodes,
    diag_rows,
    diags,
    facts,
    short_entry,
    stat_key,
)
from ._model import MANIFEST_NAME
from ._schema import tools_key
from ._version import __version__

if TYPE_CHECKING:
    from ._manifest import ManifestResult
    from ._model import SkillInfo

__all__ = ["RACY_WINDOW_NS", "CachedSkill", "ManifestIndex"]

#: An entry changed this close to (or after) the start of the scan that read it is racy.
RACY_WINDOW_NS = 2_000_000_000
#: Larger index files are not read (a damaged or hostile file must not exhaust memory).
MAX_INDEX_BYTES = 1 << 31
# From this size on, an index file is read and checksummed on a second thread (see _Reader).
_THREADED_READ_BYTES = 1 << 18
# The sizes line is at most this long (five numbers); a longer one is damage.
_MAX_SIZES_LINE = 96

_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | CLOEXEC

# The manifest name prefetch stats in each directory (another letter case is stated at lookup).
_PREFETCHED = MANIFEST_NAME
# No stat prefetched for a directory.
_UNSEEN: Any = object()
_NO_BODY = memoryview(b"")


class CachedSkill:
    """A valid entry: what the scan and the parser found when the manifest was last read.

    Attributes:
        manifest_name: The manifest's file name in the skill directory.
        scan_diagnostics: What finding the manifest reported (``manifest_case``).
        diagnostics: The parser's diagnostics.
        error: The parser's error (then the other fields below are empty), or ``None``.
        facts: The catalog facts taken from the validated values: ``(name, description,
            allowed tools or None, user_invocable, model_invocable)``; the allowed tools are
            the frontmatter's tuple when equal to it.
        metadata: The frontmatter, read-only as ``freeze`` makes it.
        body: The markdown body: an ASCII one as the index holds it, a view of the bodies
            read from the file (decoded when the skill's body is first read), any other as
            text (decoded when restored, so that damage is found then).
        candidate: The scan's last candidate built from this entry, with its inputs.
        result: The registry's last result built from that candidate, with it.
    """

    __slots__ = (
        "body",
        "candidate",
        "diagnostics",
        "error",
        "facts",
        "manifest_name",
        "metadata",
        "result",
        "scan_diagnostics",
    )

    def __init__(
        self,
        manifest_name: str,
        scan_diagnostics: tuple[Diagnostic, ...],
        diagnostics: tuple[Diagnostic, ...],
        error: SkillError | None,
        facts: tuple[str, str, tuple[str, ...] | None, bool, bool] | None = None,
        metadata: Mapping[str, Any] | None = None,
        body: memoryview | str = _NO_BODY,
    ) -> None:
        self.manifest_name = manifest_name
        self.scan_diagnostics = scan_diagnostics
        self.diagnostics = diagnostics
        self.error = error
        self.facts = facts
        self.metadata = metadata
        self.body = body
        # What the scan and the registry last built from this entry, with what they built it
        # from: ``(inputs, candidate)`` and ``(candidate, result)``. Both are read-only values,
        # reused when a later scan in this process would build equal ones (see _Memo).
        self.candidate: tuple[tuple[Any, ...], Any] | None = None
        self.result: tuple[Any, Any] | None = None


class _Memo:
    """What a scan of this process learnt from one index file that it left as it was.

    A later scan that finds the file with the same path, settings and stamp (not racy: the file
    changed at least :data:`RACY_WINDOW_NS` before that scan began) takes the entries from here
    instead of reading and decoding the file again. Each entry is still validated by its two
    stats; only the decoding is saved. One file is remembered per process (the last one).
    """

    __slots__ = ("cached", "entries", "key", "settings", "source", "stamps")

    def __init__(
        self,
        key: tuple[str, StatKey],
        settings: Mapping[str, Any],
        entries: Mapping[str, list[Any]],
        stamps: memoryview,
        cached: dict[str, CachedSkill],
        source: ManifestIndex,
    ) -> None:
        self.key = key
        self.settings = settings
        self.entries = entries
        self.stamps = stamps
        self.cached = cached
        # The index that read the file: it holds the entries in full and the bodies.
        self.source = source


_memo: _Memo | None = None


def _occupied(target: str) -> bool:
    """Whether ``target`` exists as anything but a regular file (a link counts: the rename would
    replace the link itself)."""
    try:
        return not stat.S_ISREG(os.lstat(target).st_mode)
    except (OSError, ValueError):
        return False


def _usable_manifest(entry: list[Any], linked: bool) -> str | None:
    """The manifest name of a stored entry that may answer for a directory whose root entry is
    ``linked`` or not; ``None`` for a racy entry or one of the other kind.

    Raises:
        ValueError: The stored name is not one file name (damage).
    """
    if entry[RACY] or entry[LINKED] is not linked:
        return None
    manifest = entry[MANIFEST]
    if type(manifest) is not str or "/" in manifest or "\0" in manifest:
        raise ValueError(manifest)
    return manifest


class _Corrupt(Exception):
    """The index file is damaged or foreign."""


class _BodiesDamaged(ValueError):
    """The bodies section does not match its checksum, or cannot be read whole."""


def _damage(exc: BaseException, dir_text: str) -> str:
    """What :meth:`ManifestIndex._ignore` says of damage met restoring the entry of
    ``dir_text``."""
    return (
        "checksum mismatch" if isinstance(exc, _BodiesDamaged) else f"damaged entry for {dir_text}"
    )


class _Bodies:
    """The bodies section of an index file, read when first asked for (:meth:`read`) from the
    descriptor the scan opened (then closed; closed too when this is collected unread): the
    bytes of the file that was read, even if it was replaced since. Thread-safe."""

    __slots__ = ("__weakref__", "_at", "_close", "_crc", "_data", "_fd", "_lock", "_size")

    def __init__(self, fd: int, at: int, size: int, crc: int) -> None:
        self._fd, self._at, self._size, self._crc = fd, at, size, crc
        self._data: bytes | None = None
        self._lock = threading.Lock()
        self._close = weakref.finalize(self, os.close, fd)
        self._close.atexit = False

    def read(self) -> bytes:
        """The bodies' bytes, checked against their checksum.

        Raises:
            _BodiesDamaged: The section cannot be read whole, or does not match its checksum.
        """
        with self._lock:
            if self._data is None:
                if not self._close.alive:
                    raise _BodiesDamaged("bodies")
                try:
                    data = _read_at(self._fd, self._size, self._at)
                finally:
                    self._close()
                if len(data) != self._size or zlib.crc32(data) != self._crc:
                    raise _BodiesDamaged("bodies")
                self._data = data
            return self._data


def _read_at(fd: int, size: int, at: int) -> bytes:
    """``size`` bytes of ``fd`` from offset ``at`` (fewer at the end of the file); ``b""`` when
    it cannot be read."""
    parts: list[bytes] = []
    got = 0
    try:
        while got < size:
            part = os.pread(fd, size - got, at + got)
            if not part:
                break
            parts.append(part)
            got += len(part)
    except OSError:
        return b""
    return parts[0] if len(parts) == 1 else b"".join(parts)


class _Reader:
    """Reads an index file, open as ``fd`` (``size`` bytes by its ``fstat``), and the CRC-32 of
    what follows its sizes line but the bodies; the descriptor is closed once read, unless the
    bodies keep it.

    Of a file of this format ``data`` is what follows the sizes line up to the bodies (their
    size is on the sizes line); the bodies are left to ``bodies`` (a :class:`_Bodies`, which
    then owns the descriptor), read when first needed. Of any other file only as many bytes as
    :data:`MAGIC` holds are read into ``data``, what tells another version of the format
    (``sizes`` is ``None``; ``problem`` says what is wrong with a sizes line of this format
    that cannot be used). Every read is sized by the ``fstat`` of the open descriptor (at most
    :data:`MAX_INDEX_BYTES`, SPEC §30.3).

    A large file (:data:`_THREADED_READ_BYTES` and more) is read and checksummed on a second
    thread: both let go of the interpreter lock, so the scan takes the stats of its entries
    meanwhile (:meth:`ManifestIndex.prefetch`) and the read costs it nothing where a second
    core is free (SPEC §26). Without a thread to be had it is read in place.
    """

    __slots__ = (
        "_fd",
        "_size",
        "_thread",
        "bodies",
        "crc",
        "data",
        "done",
        "error",
        "problem",
        "sizes",
    )

    def __init__(self, fd: int, size: int) -> None:
        self._fd = fd
        self._size = size
        self.data = b""
        self.bodies: _Bodies | None = None
        self.sizes: tuple[int, int, int, int, int] | None = None
        self.problem: str | None = None
        self.crc: int | None = None
        self.error: str | None = None
        self.done = False
        self._thread: threading.Thread | None = None
        if size >= _THREADED_READ_BYTES:
            thread = threading.Thread(target=self._run, name="agent-skills-index-read", daemon=True)
            with contextlib.suppress(RuntimeError):  # (no thread to be had: read below)
                thread.start()
                self._thread = thread
        if self._thread is None:
            self._run()

    def _run(self) -> None:
        try:
            with os.fdopen(self._fd, "rb", closefd=False) as fh:
                self._read(fh)
        except OSError as exc:
            self.error = exc.strerror or str(exc)
        except Exception as exc:  # (MemoryError and the like: this thread must not die loud)
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            if self.bodies is None:
                os.close(self._fd)
            self.done = True

    def _read(self, fh: Any) -> None:
        lead = fh.read(len(MAGIC))
        if lead != MAGIC:
            self.data = lead  # (what tells another version of the format: nothing more is read)
            return
        line = fh.readline(_MAX_SIZES_LINE)
        try:
            head_text, rest_text, bodies_text, check_text, bodies_check = line.rstrip(b"\n").split(
                b" "
            )
            sizes = (
                int(head_text),
                int(rest_text),
                int(bodies_text),
                int(check_text, 16),
                int(bodies_check, 16),
            )
        except ValueError:
            sizes = None
        if sizes is None or not line.endswith(b"\n"):
            self.problem = "damaged sizes line"
            return
        head_len, rest_len, bodies_len, _, bodies_crc = sizes
        data_end = len(MAGIC) + len(line) + head_len + rest_len - bodies_len
        if min(sizes) < 0 or bodies_len > rest_len or data_end + bodies_len != self._size:
            self.problem = "truncated or damaged"
            return
        data = fh.read(head_len + rest_len - bodies_len)
        if len(data) != head_len + rest_len - bodies_len:  # (changed meanwhile)
            self.problem = "truncated or damaged"
            return
        self.crc = zlib.crc32(data)
        self.data, self.sizes = data, sizes
        self.bodies = _Bodies(self._fd, data_end, bodies_len, bodies_crc)

    def wait(self) -> None:
        """Return once the file is read (at once when it was read in place)."""
        if self._thread is not None:
            self._thread.join()


class ManifestIndex:
    """One index file, loaded at the start of a scan and saved at its end (SPEC §26).

    Args:
        path: The index file (need not exist).
        settings: What parsing depends on (strictness, links, limits); an index written with
            other settings is rebuilt.

    Nothing here raises: problems become :attr:`diagnostics`.
    """

    def __init__(self, path: Path, settings: Mapping[str, Any]) -> None:
        self.path = path
        self._settings = {"library": __version__, **settings}
        self._started_ns = time.time_ns()
        # The entries by directory, short (see _index_format.short_entry); in full, decoded
        # from _full_text when first needed (or the _Memo's source's).
        self._old: Mapping[str, list[Any]] = {}
        self._full_text = memoryview(b"")
        self._full: dict[str, Any] | None = None
        self._stamps = memoryview(b"")
        self._meta_text = (memoryview(b""), memoryview(b""))
        # The decoded frontmatter nodes (see Nodes): the mappings, and each node's layout.
        self._meta: tuple[list[Any], list[Any]] | None = None
        # The bodies' buffer; None until read from _bodies (at the first entry restored).
        self._blob: memoryview | None = memoryview(b"")
        self._bodies: _Bodies | None = None
        # Whether the bodies' buffer (``_blob``) is all ASCII: then every body is valid UTF-8.
        self._ascii = True
        # The entries restored so far (all of them, when taken from a _Memo).
        self._cached: dict[str, CachedSkill] = {}
        self._file: tuple[str, StatKey] | None = None  # the index file's path and stamp
        self._remembered = False  # whether the entries came from a _Memo
        # When remembered, the index that read the file (see _Memo): its entries in full and
        # its bodies are the ones used.
        self._source: ManifestIndex | None = None
        self._keep_out = False  # the path holds something that is not an index: never write
        # New entries: (entry, stamps record, frontmatter, body); a hit has no record and its
        # CachedSkill in place of the frontmatter.
        # (A hit's entry is None until it is written: the stored one.)
        self._new: dict[
            str, tuple[list[Any] | None, bytes | None, Any, bytes | memoryview | None]
        ] = {}
        self._dirty = False
        self._hits = 0
        self._diagnostics: list[Diagnostic] = []
        # The file being read (see _Reader), and the stats prefetch took meanwhile: by listed
        # directory, its stamp and its SKILL.md's (None: not a directory, or no such file).
        self._reader: _Reader | None = None
        self._prestat: dict[str, tuple[int, ...] | None] = {}
        self._load()

    # --- reading ------------------------------------------------------------------------------

    def _ignore(self, why: str, *, rewrite: bool = True) -> None:
        then = "it will be rewritten" if rewrite else "it is left as it is"
        self._diagnostics.append(
            Diagnostic(
                DiagnosticKind.INDEX_IGNORED,
                f"ignoring the index {self.path}: {why}; {then}",
                self.path,
            )
        )
        self._keep_out = not rewrite
        self._old = {}
        self._full_text = memoryview(b"")
        self._full = None
        self._stamps = self._blob = memoryview(b"")
        self._bodies = None
        self._ascii = True
        self._meta_text = (self._stamps, self._stamps)
        self._meta = None
        self._cached = {}
        self._file = None
        self._remembered = False
        self._source = None
        self._new = {k: v for k, v in self._new.items() if v[1] is not None}  # drop old hits
        self._dirty = True

    def _load(self) -> None:
        try:
            fd = os.open(os.fspath(self.path), READ_FLAGS)
        except FileNotFoundError:
            self._dirty = True
            return
        except (OSError, ValueError) as exc:
            self._ignore(f"cannot be opened ({getattr(exc, 'strerror', None) or exc})")
            return
        try:
            st = os.fstat(fd)
        except OSError as exc:
            os.close(fd)
            self._ignore(f"cannot be read ({exc.strerror or exc})")
            return
        if not stat.S_ISREG(st.st_mode):
            # A FIFO, a device or a directory named as the index is never replaced.
            os.close(fd)
            self._ignore("not a regular file", rewrite=False)
            return
        if st.st_size > MAX_INDEX_BYTES:
            os.close(fd)
            self._ignore(f"larger than {MAX_INDEX_BYTES} bytes")
            return
        if max(st.st_mtime_ns, st.st_ctime_ns) < self._started_ns - RACY_WINDOW_NS:
            self._file = (os.fspath(self.path), stat_key(st))
            memo = _memo
            if memo is not None and memo.key == self._file and memo.settings == self._settings:
                os.close(fd)
                self._old, self._stamps, self._cached = memo.entries, memo.stamps, memo.cached
                self._source = memo.source
                self._remembered = True
                return
        self._reader = _Reader(fd, st.st_size)  # (it closes fd)
        if self._reader.done:  # read in place
            self._ready()

    def _ready(self) -> None:
        """Decode what the reader read (waiting for it if it is still reading): the first use
        of the entries, and :attr:`diagnostics`, come through here."""
        reader = self._reader
        if reader is None:
            return
        self._reader = None
        reader.wait()
        if reader.error is not None:
            self._ignore(f"cannot be read ({reader.error})")
            return
        try:
            self._parse(reader)
        except _Corrupt as exc:
            self._ignore(str(exc))

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """What reading and decoding the file found (``index_ignored``); decoded first if it
        was still being read."""
        if self._reader is not None:
            self._ready()
        return self._diagnostics

    def _parse(self, read: _Reader) -> None:
        if read.sizes is None:
            if read.problem is not None:
                raise _Corrupt(read.problem)
            if read.data.startswith(MAGIC[:-3]):
                self._dirty = True  # another format version of ours: rebuilt, no note
                return
            raise _Corrupt("not an agent-skills index")
        head_len, rest_len, bodies_len, checksum, _ = read.sizes
        if read.crc != checksum:
            raise _Corrupt("checksum mismatch")
        data = read.data  # the header, the stamps, the frontmatters
        try:
            header = json.loads(data[:head_len])
        except (ValueError, RecursionError, MemoryError):
            header = None
        if not isinstance(header, dict) or not isinstance(header.get("entries"), dict):
            raise _Corrupt("damaged header")
        if header.get("settings") != self._settings:
            self._dirty = True  # another library version or other settings: rebuilt, no note
            return
        sections = header.get("sections")
        if (
            type(sections) is not list
            or len(sections) != 4
            or not all(type(n) is int and n >= 0 for n in sections)
            or sections[0] % STAMPS.size
            or sum(sections) != rest_len - bodies_len
        ):
            raise _Corrupt("damaged header")
        rest = memoryview(data)[head_len:]
        stamps_end = sections[0]
        layouts_end = stamps_end + sections[1]
        frontmatters_end = layouts_end + sections[2]
        self._old = header["entries"]
        self._full_text = rest[frontmatters_end : frontmatters_end + sections[3]]
        self._stamps = rest[:stamps_end]
        self._meta_text = (rest[stamps_end:layouts_end], rest[layouts_end:frontmatters_end])
        self._bodies = read.bodies
        self._blob = None  # (read with the first entry restored)

    def _frontmatter(self, position: int) -> FrozenMapping:
        """The frontmatter that is node ``position`` (see :class:`Nodes`); all of them are
        decoded at the first hit that needs one."""
        meta = self._meta
        if meta is None:
            try:
                layouts = json.loads(bytes(self._meta_text[0]))
                nodes = json.loads(bytes(self._meta_text[1]))
            except (ValueError, RecursionError, MemoryError):
                raise ValueError("frontmatters") from None
            meta = self._meta = decode_nodes(layouts, nodes)
        if type(position) is not int or position < 0:
            raise TypeError(position)
        if type(meta[1][position]) is not dict:  # a list node
            raise TypeError(position)
        found: FrozenMapping = meta[0][position]
        return found

    def _entry(self, dir_text: str) -> list[Any]:
        """The entry of ``dir_text`` in full (all of them decoded at the first call).

        Raises:
            ValueError: The section of full entries is damaged, or holds none for it.
        """
        if self._source is not None:
            return self._source._entry(dir_text)
        full = self._full
        if full is None:
            try:
                full = json.loads(bytes(self._full_text))
            except (ValueError, RecursionError, MemoryError):
                raise ValueError("entries") from None
            if type(full) is not dict:
                raise ValueError("entries")
            self._full = full
        entry = full.get(dir_text)
        if type(entry) is not list:
            raise ValueError(dir_text)
        return entry

    def prefetch(self, parent_fd: int, entries: Sequence[os.DirEntry[str]]) -> None:
        """While the file is still being read on its thread, take the stats :meth:`check_child`
        takes of the listed directories ``entries`` (below the directory open as
        ``parent_fd``) and of the ``SKILL.md`` in each, in order, for as many as it takes: the
        reading and these system calls overlap (SPEC §26). What a stat found decides as it
        would have at the lookup: a directory changed after it is seen by the next scan, as
        one changed after the lookup's own stats is.

        Args:
            parent_fd: The directory the entries are listed in, open.
            entries: Its listed entries; links and entries that are not directories are left.
        """
        reader = self._reader
        if reader is None:
            return
        taken = self._prestat
        for entry in entries:
            if reader.done:
                break
            try:
                if not entry.is_dir(follow_symlinks=False):  # (a link is not)
                    continue
                name = entry.name
                dst = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
                mst = os.stat(f"{name}/{_PREFETCHED}", dir_fd=parent_fd, follow_symlinks=False)
            except OSError:
                taken[entry.path] = None
                continue
            taken[entry.path] = (
                (
                    dst.st_dev,
                    dst.st_ino,
                    dst.st_size,
                    dst.st_mtime_ns,
                    dst.st_ctime_ns,
                    mst.st_dev,
                    mst.st_ino,
                    mst.st_size,
                    mst.st_mtime_ns,
                    mst.st_ctime_ns,
                )
                if S_ISDIR(dst.st_mode) and S_ISREG(mst.st_mode)
                else None
            )

    def check_child(
        self, dir_text: str, parent_fd: int, name: str
    ) -> tuple[list[Any], int, int] | None:
        """Validate the stored entry of the plain (not linked) directory ``name`` below the
        directory open as ``parent_fd``; count it as a hit when valid.

        Two stats and nothing opened: the directory by ``lstat`` relative to ``parent_fd`` (a
        directory, not a link, with the stored stamp: its listing, hence which manifest it
        holds, is as it was), then the manifest below it (a regular file with the stored
        stamp); both taken here or, for a ``SKILL.md``, by :meth:`prefetch`. The directory's
        identity is what the scan pins (SPEC §20.1). Nothing is restored: that is
        :meth:`restore_child`'s, when the skill is first built.

        Args:
            dir_text: The directory as listed in its root (``root/name``): the entry's key.
            parent_fd: The root's directory, open.
            name: The directory's name in it (one component).

        Returns:
            ``(entry, st_dev, st_ino)`` (the stored entry, the directory's identity), or
            ``None`` (no entry, racy, changed, damaged, or a link: the caller then scans the
            directory as without an index).
        """
        if self._reader is not None:
            self._ready()
        short = self._old.get(dir_text)
        pre = self._prestat.pop(dir_text, _UNSEEN) if self._prestat else _UNSEEN
        if short is None:
            return None
        try:
            manifest: str | None = _PREFETCHED
            if len(short) >= 2:  # a plain entry (see short_entry): its manifest is SKILL.md
                record = short[0]
            else:
                entry = self._entry(dir_text)
                manifest = _usable_manifest(entry, False)
                if manifest is None:
                    return None
                record = entry[RECORD]
            if type(record) is not int or record < 0:
                raise ValueError(record)
            stored = STAMPS.unpack_from(self._stamps, record * STAMPS.size)
            if pre is not _UNSEEN and manifest == _PREFETCHED:
                if pre != stored:  # (None: not a directory, no regular SKILL.md, an error)
                    return None
                self._hits += 1
                self._new[dir_text] = (None, None, None, None)  # (the stored entry)
                return short, stored[0], stored[1]
            # The stamps compared field by field (what stat_key would give), inode first.
            dev, ino, size, mtime, ctime, mdev, mino, msize, mmtime, mctime = stored
            try:
                dst = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
                if (
                    dst.st_ino != ino
                    or dst.st_ctime_ns != ctime
                    or dst.st_mtime_ns != mtime
                    or dst.st_size != size
                    or dst.st_dev != dev
                    or not S_ISDIR(dst.st_mode)
                ):
                    return None
                mst = os.stat(f"{name}/{manifest}", dir_fd=parent_fd, follow_symlinks=False)
            except OSError:
                return None
            if (
                mst.st_ino != mino
                or mst.st_ctime_ns != mctime
                or mst.st_mtime_ns != mmtime
                or mst.st_size != msize
                or mst.st_dev != mdev
                or not S_ISREG(mst.st_mode)
            ):
                return None
        except DAMAGE as exc:
            self._ignore(_damage(exc, dir_text))
            return None
        self._hits += 1
        self._new[dir_text] = (None, None, None, None)  # (the stored entry)
        return short, dev, ino

    def restore_child(self, dir_text: str) -> CachedSkill | None:
        """The :class:`CachedSkill` of an entry :meth:`check_child` found valid (restored once),
        or ``None`` when the entry turns out damaged (then an ``index_ignored`` diagnostic is
        added to :attr:`diagnostics` and the caller scans the directory)."""
        hit = self._cached.get(dir_text)
        if hit is not None:
            return hit
        if not self._old:  # (ignored since it was checked: damage already reported)
            return None
        try:
            entry = self._entry(dir_text)
            if short_entry(entry) != self._old.get(dir_text):  # (the header's, as checked)
                raise ValueError(dir_text)
            hit = self._cached[dir_text] = (self._source or self)._restore(entry, entry[MANIFEST])
        except DAMAGE as exc:
            self._ignore(_damage(exc, dir_text))
            return None
        return hit

    def lookup(self, dir_text: str, linked: bool, dir_fd: int) -> CachedSkill | None:
        """Return the stored outcome for the skill directory open as ``dir_fd`` if it is still
        valid: the directory's stamp by ``fstat``, the manifest's relative to it.

        Args:
            dir_text: The directory as listed in its root (``root/entry``).
            linked: Whether the root's entry is a symlink (its target is what is open).
            dir_fd: The directory open (the scan's pinned descriptor).

        Returns:
            A :class:`CachedSkill`, or ``None`` (no entry, racy, changed, or damaged).
        """
        if self._reader is not None:
            self._ready()
        if dir_text not in self._old:
            return None
        try:
            entry = self._entry(dir_text)
            manifest = _usable_manifest(entry, linked)
            if manifest is None:
                return None
            key = self._stamp(entry[RECORD])
            try:
                dst = os.fstat(dir_fd)
                mst = os.lstat(manifest, dir_fd=dir_fd)
            except OSError:
                return None
            if stat_key(dst) + stat_key(mst) != key or not stat.S_ISREG(mst.st_mode):
                return None
            return self._take(dir_text, entry, manifest)
        except DAMAGE as exc:
            self._ignore(_damage(exc, dir_text))
            return None

    def _stamp(self, record: int) -> tuple[int, ...]:
        """The stamps record ``record``: the directory's stamp, then the manifest's."""
        if type(record) is not int or record < 0:
            raise ValueError(record)
        return STAMPS.unpack_from(self._stamps, record * STAMPS.size)

    def _take(self, dir_text: str, entry: list[Any], manifest: str) -> CachedSkill | None:
        """The valid entry's :class:`CachedSkill` (restored once), counted as a hit; ``None`` for
        an entry a remembered index did not keep (read again)."""
        hit = self._cached.get(dir_text)
        if hit is None:
            hit = self._cached[dir_text] = (self._source or self)._restore(entry, manifest)
        self._hits += 1
        self._new[dir_text] = (entry, None, hit, None)
        return hit

    def _restore(self, entry: list[Any], name: str) -> CachedSkill:
        if entry[KIND] == "err":
            scan_rows, _, _, code, message, fields, rows = entry[SCAN_DIAGS:]
            if type(message) is not str or type(fields) is not dict:
                raise TypeError(message)
            error = SkillError(code, message, fields)
            return CachedSkill(
                name, diags(scan_rows) if scan_rows else (), diags(rows) if rows else (), error
            )
        # One unpacking of the whole entry: a wrong length is a ValueError, as damage is.
        (
            _,
            _,
            _,
            scan_rows,
            _,
            kind,
            position,
            rows,
            skill_name,
            description,
            allowed,
            user_invocable,
            model_invocable,
            offset,
            length,
        ) = entry
        if kind != "ok":
            raise ValueError(kind)
        blob = self._blob
        if blob is None:
            bodies = self._bodies
            if bodies is None:
                raise ValueError("bodies")
            data = bodies.read()  # (ValueError: damaged)
            blob = self._blob = memoryview(data)
            self._ascii = data.isascii()  # (one pass in C; most stores' bodies are)
        metadata = self._frontmatter(position)
        values, layout = metadata._values, metadata._layout  # (lookups without a call each)
        if skill_name is None:  # the common case: as in the frontmatter
            skill_name = values[layout["name"]]
        if description is None:
            description = values[layout["description"]]
        if (
            type(skill_name) is not str
            or type(description) is not str
            or type(user_invocable) is not bool
            or type(model_invocable) is not bool
            or not 0 <= offset <= offset + length <= len(blob)
        ):
            raise TypeError(skill_name)
        if allowed is True:
            # The frontmatter's own tuple, as discovery without the index keeps it (one tuple).
            allowed = values[layout[tools_key(layout)]]
            if type(allowed) is not tuple or not set(map(type, allowed)) <= {str}:
                raise TypeError(allowed)
        elif allowed is not None:
            if type(allowed) is not list or not set(map(type, allowed)) <= {str}:
                raise TypeError(allowed)
            allowed = tuple(allowed)
        view = blob[offset : offset + length]
        body: memoryview | str = view  # valid UTF-8 if ASCII: decoded when first read
        if not self._ascii and not view.tobytes().isascii():
            # Not ASCII: decoded here, so that bytes that are not UTF-8 are damage found now.
            body = str(view, "utf-8", "surrogatepass")
        return CachedSkill(
            name,
            diags(scan_rows) if scan_rows else (),
            diags(rows) if rows else (),
            None,
            (skill_name, description, allowed, user_invocable, model_invocable),
            metadata,
            body,
        )

    # --- recording and writing ----------------------------------------------------------------

    def record(
        self,
        dir_text: str,
        stamp: tuple[bool, os.stat_result, os.stat_result],
        manifest_name: str,
        scan_diagnostics: tuple[Diagnostic, ...],
        result: ManifestResult,
        info: SkillInfo | None = None,
    ) -> None:
        """Store the outcome of reading and parsing one manifest (a miss of a lookup).

        ``stamp`` is whether the root's entry is a link, then the directory's and the manifest's
        ``os.stat_result``, taken *before* the manifest was read, so that a change during the
        read shows next time. ``info`` is the skill built from a parsed manifest (its catalog
        facts are stored); ``None`` for an error.
        """
        self._dirty = True
        linked, dkey, mkey = stamp[0], stat_key(stamp[1]), stat_key(stamp[2])
        limit = self._started_ns - RACY_WINDOW_NS
        racy = max(dkey[3], dkey[4], mkey[3], mkey[4]) >= limit
        entry: list[Any] = [linked, -1, manifest_name, diag_rows(scan_diagnostics), racy]
        if racy:
            self._new[dir_text] = (entry, b"", None, None)
            return
        try:
            record = STAMPS.pack(*dkey, *mkey)
        except struct.error:  # a value outside 64 bits: kept out of the index
            return
        error, parsed = result.error, result.parsed
        if error is not None:
            entry += ["err", error.code.value, error.message, dict(error.fields)]
            entry.append(diag_rows(result.diagnostics))
            self._new[dir_text] = (entry, record, None, None)
            return
        assert parsed is not None and info is not None
        entry += ["ok", 0, diag_rows(parsed.diagnostics), *facts(info, parsed.frontmatter), 0, 0]
        body = parsed.body.encode("utf-8", "surrogatepass")
        self._new[dir_text] = (entry, record, parsed.frontmatter, body)

    def save(self) -> list[Diagnostic]:
        """Rewrite the index atomically when anything changed; return any diagnostics.

        An index left as it was is remembered for the next scan of this process (see
        :class:`_Memo`).
        """
        global _memo
        if self._reader is not None:
            self._ready()
        self._prestat = {}
        if not self._dirty and self._hits == len(self._old):
            if self._file is not None and not self._remembered:
                kept = memoryview(bytes(self._stamps))  # not a view of the whole file
                _memo = _Memo(
                    self._file,
                    self._settings,
                    self._old,
                    kept,
                    self._cached,
                    self._source or self,
                )
            return []
        for key, (entry, record, held, _) in list(self._new.items()):
            # Hits checked but not restored yet: restored now (a damaged one drops the old file).
            if record is None and entry is None:
                try:
                    entry = self._entry(key)
                    self._new[key] = (entry, None, held, None)
                    if held is None and entry[KIND] == "ok" and self.restore_child(key) is None:
                        break
                except DAMAGE as exc:
                    self._ignore(_damage(exc, key))
                    break
        records: list[bytes] = []
        nodes = Nodes()
        parts: list[bytes | memoryview] = []
        offset = 0
        entries: dict[str, list[Any]] = {}
        try:
            for key, (stored, record, frontmatter, body) in self._new.items():
                if stored is None:  # (a hit left out after damage was found: not written)
                    continue
                entry = stored
                if entry[RACY]:
                    entries[key] = entry
                    continue
                hit = None
                if record is None:  # a hit: its record is in the old file
                    at = entry[RECORD] * STAMPS.size
                    record = bytes(self._stamps[at : at + STAMPS.size])
                    hit = frontmatter if frontmatter is not None else self._cached.get(key)
                entry = [*entry]
                entry[RECORD] = len(records)
                records.append(record)
                if entry[KIND] == "ok":
                    if isinstance(hit, CachedSkill):
                        frontmatter = hit.metadata
                        held = hit.body
                        body = (
                            held.encode("utf-8", "surrogatepass") if isinstance(held, str) else held
                        )
                    assert body is not None
                    entry[PAYLOAD] = nodes.add(frontmatter)
                    entry[PAYLOAD + 7 :] = [offset, len(body)]
                    parts.append(body)
                    offset += len(body)
                entries[key] = entry
            stamps = b"".join(records)
            sections = [
                json.dumps(section, separators=(",", ":")).encode("ascii")
                for section in (*nodes.sections(), entries)
            ]
            header = {
                "settings": self._settings,
                "written_ns": time.time_ns(),
                "sections": [len(stamps), *map(len, sections)],
                "entries": {key: short_entry(entry) for key, entry in entries.items()},
            }
            head = json.dumps(header, separators=(",", ":")).encode("ascii")
        except (TypeError, ValueError, RecursionError) as exc:  # a value JSON cannot hold
            return [self._write_failed(f"cannot be encoded ({exc})")]
        rest = len(stamps) + sum(map(len, sections)) + offset
        checksum = bodies_checksum = 0
        for part in (head, stamps, *sections):
            checksum = zlib.crc32(part, checksum)
        for body_part in parts:
            bodies_checksum = zlib.crc32(body_part, bodies_checksum)
        size_line = f"{len(head)} {rest} {offset} {checksum:08x} {bodies_checksum:08x}\n".encode()
        data = b"".join([MAGIC, size_line, head, stamps, *sections, *parts])
        return self._write(data)

    def _write_failed(self, why: str) -> Diagnostic:
        return Diagnostic(
            DiagnosticKind.INDEX_IGNORED, f"the index {self.path} was not written: {why}", self.path
        )

    def _write(self, data: bytes) -> list[Diagnostic]:
        target = os.fspath(self.path)
        if self._keep_out or _occupied(target):
            # Something that is not a regular file holds the path (a FIFO, a device such as
            # /dev/null, a directory, a link): the rename would replace it. Leave it.
            return [] if self._keep_out else [self._write_failed("the path is not a regular file")]
        parent = os.path.dirname(target) or "."
        tmp = os.path.join(
            parent, f".{os.path.basename(target)}.{os.getpid()}.{time.monotonic_ns()}.tmp"
        )
        try:
            os.makedirs(parent, exist_ok=True)
            fd = os.open(tmp, _WRITE_FLAGS, 0o600)
            try:
                with os.fdopen(fd, "wb", closefd=False) as fh:
                    fh.write(data)
            finally:
                os.close(fd)
            os.replace(tmp, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            return [self._write_failed(exc.strerror or str(exc))]
        return []
