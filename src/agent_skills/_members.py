"""Archive members (SPEC §25.1, §30.3): the bounds every archive is held to, the member record,
the ``invalid_archive`` error, and the ``.tar.gz`` stream: one decompression, resumable from
points kept along it, its headers bounded before ``tarfile`` acts on them. :mod:`._archive`
builds the index and serves members on top of it.
"""

from __future__ import annotations

import errno
import io
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Literal, NamedTuple, Self, cast

from ._errors import ErrorCode, SkillError

if TYPE_CHECKING:
    import tarfile

# zipfile, tarfile and gzip (with shutil, bz2 and lzma behind them) load with the first archive
# read, not with ``import agent_skills``: most stores hold no archive (SPEC §26, light core).

__all__ = [
    "CHUNK",
    "MAX_EXTENDED_BYTES",
    "MAX_EXTENDED_CHAIN",
    "MAX_MEMBERS",
    "MAX_PAX_DIGITS",
    "MAX_RATIO",
    "MAX_TOTAL_BYTES",
    "TAR_CACHE_LIMIT",
    "Inflated",
    "Member",
    "Point",
    "invalid_archive",
    "start_points",
    "tar_members",
]

#: Most members of an archive.
MAX_MEMBERS = 10_000
#: Most bytes of an archive uncompressed.
MAX_TOTAL_BYTES = 512 * 1024 * 1024
#: Most a member (for ``.tar.gz``, the whole stream) may be compressed.
MAX_RATIO = 200

CHUNK = 1 << 16


# A .tar.gz has no random access: streams up to this size are kept in memory (within the cache
# budget of ._archive, least recently used dropped first), so reading N members costs one
# decompression, not N.
TAR_CACHE_LIMIT = 64 * 1024 * 1024


def invalid_archive(path: str | os.PathLike[str], reason: str) -> SkillError:
    """The ``invalid_archive`` error ``{path, reason}`` (SPEC §11, §25.1)."""
    return SkillError(
        ErrorCode.INVALID_ARCHIVE,
        f"invalid archive {os.fspath(path)}: {reason}",
        {"path": os.fspath(path), "reason": reason},
    )


@dataclass(slots=True)
class Member:
    name: str
    kind: Literal["file", "dir", "link", "special"]
    size: int
    executable: bool
    offset: int = -1
    entry: Any = None


# -- .tar.gz: one decompression, resumable, and headers bounded before tarfile parses them ------

#: Most bytes decompressed to reach any member of a stream too large to keep in memory: a
#: resumption point is kept every so many bytes of the uncompressed stream.
_POINT_EVERY = 4 * 1024 * 1024
_RAW_CHUNK = 16 * 1024  # compressed bytes fed at a time (and the most output asked per call)
#: The largest extended header (pax records, GNU long names) read before a member.
MAX_EXTENDED_BYTES = 1024 * 1024
#: Most extended headers in a row before a member (GNU tar writes at most three).
MAX_EXTENDED_CHAIN = 8
#: Longest run of digits in a pax record: ``tarfile``'s patterns are quadratic in it.
MAX_PAX_DIGITS = 64


class Point(NamedTuple):
    """Where the uncompressed stream of a ``.tar.gz`` can be resumed: the compressed offset
    whose bytes come next, the uncompressed offset reached, a copy of the decompressor's state
    there (its window included), and the compressed bytes read but not yet fed to it (at most
    one chunk)."""

    raw: int
    out: int
    state: Any
    tail: bytes = b""


class _Refused(Exception):
    """An archive refused while ``tarfile`` reads it (raised through it, never caught by it)."""


class Inflated(io.RawIOBase):
    """The uncompressed stream of a gzip file, readable from any offset.

    A read resumes at the nearest :class:`Point` at or before its offset (a copy of the
    decompressor saved there), so reaching any offset decompresses at most
    :data:`_POINT_EVERY` bytes of stream more than a sequential read would. Streams of several
    gzip members and zero padding after the last are read as ``gzip`` reads them. With
    ``record``, a point is added every :data:`_POINT_EVERY` bytes read from the start.
    """

    def __init__(self, fh: IO[bytes], points: list[Point], *, record: bool = False) -> None:
        super().__init__()
        self._fh = fh
        self._points = points
        self._record = record
        self._pos = 0
        self._tail = b""
        self._pending = b""  # output produced and not yet handed out
        self._done = False
        self._dec: Any = None
        self._resume(0)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = offset if whence == io.SEEK_SET else self._pos + offset
        if whence == io.SEEK_END or target < 0:
            raise OSError(errno.EINVAL, "only seeks from the start or the position")
        later = [p for p in self._points if p.out <= target]
        nearest = later[-1] if later else self._points[0]
        if target < self._pos or nearest.out > self._pos + _POINT_EVERY:
            self._resume(target)
        while self._pos < target:  # decompress forward, handing nothing out
            if not self._pending:
                if self._done:
                    break
                self._pending = self._inflate()
            skipped = self._pending[: target - self._pos]
            self._pending = self._pending[len(skipped) :]
            self._pos += len(skipped)
        return self._pos

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._produce(len(view))
        view[: len(data)] = data
        return len(data)

    def _resume(self, target: int) -> None:
        point = self._points[0]
        for candidate in self._points:
            if candidate.out > target:
                break
            point = candidate
        self._fh.seek(point.raw)
        self._dec = point.state.copy()
        self._pos, self._tail, self._pending, self._done = point.out, point.tail, b"", False

    def _produce(self, limit: int) -> bytes:
        """``limit`` bytes of the stream from the position on, fewer only at its end: a read
        is whole, as ``tarfile`` expects of the file it parses."""
        parts: list[bytes] = []
        got = 0
        while got < limit:
            if not self._pending:
                if self._done:
                    break
                self._pending = self._inflate()
                continue
            part = self._pending[: limit - got]
            self._pending = self._pending[len(part) :]
            parts.append(part)
            got += len(part)
            self._pos += len(part)  # (up to date whenever a point may be taken)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _inflate(self) -> bytes:
        dec = self._dec
        if dec.eof:
            rest = dec.unused_data + self._tail
            self._tail = b""
            while not rest.strip(b"\0"):  # zero padding after a member, or the end
                more = self._fh.read(_RAW_CHUNK)
                if not more:
                    self._done = True
                    return b""
                rest = more
            rest = rest.lstrip(b"\0")
            if not rest.startswith(b"\x1f\x8b"):
                raise OSError(errno.EIO, "not a gzip stream after a member")
            self._dec = dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
            self._tail = rest
        if self._record and self._pos >= self._points[-1].out + _POINT_EVERY:
            # (every call hands out at most one chunk: points are at most that much further
            # apart than _POINT_EVERY, whatever the compression ratio)
            self._points.append(Point(self._fh.tell(), self._pos, dec.copy(), self._tail))
        if not self._tail:
            self._tail = self._fh.read(_RAW_CHUNK)
            if not self._tail:
                raise OSError(errno.EIO, "the compressed stream ends early")
        data = dec.decompress(self._tail, _RAW_CHUNK)
        self._tail = dec.unconsumed_tail
        return bytes(data)


def start_points() -> list[Point]:
    return [Point(0, 0, zlib.decompressobj(16 + zlib.MAX_WBITS))]


class _Guard(io.RawIOBase):
    """The stream ``tarfile`` parses, checking each header before ``tarfile`` acts on it
    (:meth:`header`) and the records of a pax header before ``tarfile`` reads them (the next
    read after such a header): no negative or oversized size, no long chain of extended
    headers, no sparse member, and pax records that are well formed, with no run of more than
    :data:`MAX_PAX_DIGITS` digits (``tarfile``'s patterns backtrack over them, quadratic in
    the Python versions supported)."""

    def __init__(self, inner: IO[bytes]) -> None:
        super().__init__()
        self._inner = inner
        self._chain = 0
        self._pax = -1  # size of the pax records the next read holds, or -1

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._inner.tell()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._inner.seek(offset, whence)

    def read(self, size: int | None = -1) -> bytes:
        data = self._inner.read(-1 if size is None else size)
        if self._pax >= 0:
            records, self._pax = data[: self._pax], -1
            reason = _pax_problem(records)
            if reason is not None:
                raise _Refused(reason)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def header(self, info: tarfile.TarInfo) -> None:
        import tarfile

        if info.size < 0:
            raise _Refused(f"member {info.name!r} has a negative size")
        if info.type in (tarfile.GNUTYPE_SPARSE,):
            raise _Refused(f"member {info.name!r} is a sparse file")
        extended = info.type in _EXTENDED_TYPES
        if not extended:
            self._chain = 0
            return
        self._chain += 1
        if self._chain > MAX_EXTENDED_CHAIN:
            raise _Refused(f"more than {MAX_EXTENDED_CHAIN} extended headers in a row")
        if info.size > MAX_EXTENDED_BYTES:
            raise _Refused(f"an extended header larger than {MAX_EXTENDED_BYTES} bytes")
        if info.type in _PAX_TYPES:
            self._pax = info.size


_PAX_TYPES = (b"x", b"g", b"X")  # extended, global, Solaris extended
_EXTENDED_TYPES = (*_PAX_TYPES, b"L", b"K")  # and GNU long name, long link name
_DIGIT_RUN = re.compile(rb"[0-9]{%d}" % (MAX_PAX_DIGITS + 1))


def _pax_problem(records: bytes) -> str | None:
    """Why the pax records ``records`` are refused, or ``None``: each must be ``<length>
    <keyword>=<value>\\n`` of exactly its stated length, one after another (zero padding
    after the last), with no sparse keyword, a ``size`` of digits, and no run of more than
    :data:`MAX_PAX_DIGITS` digits. Linear: one pass over the records, one bounded search."""
    if _DIGIT_RUN.search(records) is not None:
        return f"a pax header holds more than {MAX_PAX_DIGITS} digits in a row"
    pos, end = 0, len(records.rstrip(b"\0"))
    while pos < end:
        space = records.find(b" ", pos, min(end, pos + MAX_PAX_DIGITS + 1))
        digits = records[pos:space] if space > pos else b""
        if not digits.isdigit():
            return "a pax record does not start with its length"
        length = int(digits)
        record = records[pos : pos + length]
        if length <= len(digits) + 1 or len(record) < length or not record.endswith(b"\n"):
            return "a pax record does not end where its length says"
        keyword, equals, value = record[len(digits) + 1 : -1].partition(b"=")
        if not equals or not keyword:
            return "a pax record holds no keyword"
        if keyword.startswith(b"GNU.sparse"):
            return "a pax header describes a sparse file"
        if keyword == b"size" and not value.isdigit():
            return "a pax size is not a number"
        pos += length
    return None


def tar_members(
    path: str, fh: IO[bytes], compressed: int, kept: list[bytes], points: list[Point]
) -> Iterator[tuple[str, Member]]:
    """The members of a ``.tar.gz``. The stream is decompressed once, measured (a bomb is
    refused before ``tarfile`` parses anything), given resumption points (appended to
    ``points``) and, when small enough to cache, kept (appended to ``kept``); ``tarfile`` then
    reads the headers through a :class:`_Guard`, without reading the stream again from disk
    when it is kept."""
    import tarfile

    limit = min(MAX_RATIO * max(compressed, 1), MAX_TOTAL_BYTES + (MAX_MEMBERS + 2) * 1024)
    total = 0
    chunks: list[bytes] | None = []
    found = start_points()
    try:
        stream = Inflated(fh, found, record=True)
        while chunk := stream.read(CHUNK):
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
                if total > TAR_CACHE_LIMIT:
                    chunks = None
        points.extend(found)  # (kept too: the cache may drop the stream, the points stay)
        if chunks is not None:
            kept.append(b"".join(chunks))
            source: IO[bytes] = io.BytesIO(kept[0])
        else:
            source = cast(IO[bytes], Inflated(fh, points))
        guard = _Guard(source)

        class _Checked(tarfile.TarInfo):
            # frombuf: the documented constructor of a header, which fromtarfile calls for
            # every header it reads, extended ones and those that follow them included.
            @classmethod
            def frombuf(cls, buf: bytes | bytearray, encoding: str, errors: str) -> Self:
                info = super().frombuf(buf, encoding, errors)
                guard.header(info)
                return info

        with tarfile.open(fileobj=guard, mode="r:", tarinfo=_Checked) as tf:
            count = 0
            while (info := tf.next()) is not None:
                count += 1
                if count > MAX_MEMBERS:
                    raise invalid_archive(path, f"more than {MAX_MEMBERS} members")
                if info.size < 0:  # (a pax size is digits, so this is a header's own)
                    raise _Refused(f"member {info.name!r} has a negative size")
                kind: Literal["file", "dir", "link", "special"]
                if info.issparse():
                    kind = "special"
                elif info.isreg():
                    kind = "file"
                elif info.isdir():
                    kind = "dir"
                elif info.issym() or info.islnk():
                    kind = "link"
                else:
                    kind = "special"
                executable = bool(info.mode & 0o111)
                yield info.name, Member(info.name, kind, info.size, executable, info.offset_data)
    except _Refused as exc:
        raise invalid_archive(path, str(exc)) from None
    except (tarfile.TarError, OSError, EOFError, zlib.error, ValueError) as exc:
        raise invalid_archive(path, f"not a readable .tar.gz ({exc})") from None
