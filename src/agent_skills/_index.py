"""The on-disk index of parsed manifests (SPEC §26).

A cache, never a source of truth: discovery with an index gives exactly what discovery without one
gives. An entry holds the outcome of parsing one skill directory's manifest (the frontmatter, the
body and the parse diagnostics, or the error) and is used only while the directory and the manifest
still have the ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)`` they had when the manifest
was read. A change the timestamps cannot show (a rewrite within the same clock tick as the stat) is
caught the way git's index catches it: an entry whose manifest or directory changed within
:data:`RACY_WINDOW_NS` before the scan that read it is marked *racy* and read again next time.

Only plain cases are cached: a directory whose manifest variants (``SKILL.md`` in any letter case)
are all regular files, not links, and whose manifest was read. Everything else goes through the
normal scan every time.

File layout: the line :data:`MAGIC`, a line ``<header bytes> <body bytes>``, the header (JSON), then
the bodies (UTF-8, concatenated; entries hold offsets). The file is replaced atomically (written
to a temporary file in the same directory, then renamed over the old one). A file that is not an
index, or is damaged, is ignored with an ``index_ignored`` diagnostic and rewritten; an index
written by another library version or for other settings is rebuilt without one.

The index is a cache under its owner's control: whoever can write it can change what discovery
reports (not what is read from disk: resources are always read from the pinned skill directories).
Keep it where only those trusted to write the skills can write.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._diagnostics import Diagnostic, DiagnosticKind
from ._errors import SkillError
from ._manifest import ManifestResult, ParsedSkill

__all__ = ["MAGIC", "RACY_WINDOW_NS", "IndexHit", "ManifestIndex", "stat_key"]

#: First line of every index file; the trailing digit is the format version.
MAGIC = b"agent-skills manifest index 1\n"
#: An entry changed this close to (or after) the start of the scan that read it is racy.
RACY_WINDOW_NS = 2_000_000_000
#: Larger index files are not read (a damaged or hostile file must not exhaust memory).
MAX_INDEX_BYTES = 1 << 31

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC

# Positions in an entry's list (the JSON stays compact and cheap to load).
_LINKED, _DIR_STAT, _MANIFEST, _MANIFEST_STAT, _RACY, _SCAN_DIAGS, _KIND = range(7)
# After _KIND: "ok": frontmatter, diagnostics, validated values (null: the frontmatter itself),
# body offset, body length;
# "err": code, message, fields, diagnostics.
_PAYLOAD = 7

StatKey = list[int]


def stat_key(st: os.stat_result) -> StatKey:
    """The identity and change stamp of a file or directory, as the index stores it (SPEC §26)."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _same(st: os.stat_result, key: list[int]) -> bool:
    """Whether ``st`` has the stamp ``key`` of :func:`stat_key` (the likeliest change first)."""
    return (
        st.st_ctime_ns == key[4]
        and st.st_mtime_ns == key[3]
        and st.st_size == key[2]
        and st.st_ino == key[1]
        and st.st_dev == key[0]
    )


class IndexHit:
    """A valid entry: what the scan and the parser found when the manifest was last read.

    Attributes:
        manifest_name: The manifest's file name in the skill directory.
        scan_diagnostics: What finding the manifest reported (``manifest_case``).
        result: The :class:`ManifestResult` the parser gave.
    """

    __slots__ = ("manifest_name", "result", "scan_diagnostics")

    def __init__(
        self, manifest_name: str, scan_diagnostics: tuple[Diagnostic, ...], result: ManifestResult
    ) -> None:
        self.manifest_name = manifest_name
        self.scan_diagnostics = scan_diagnostics
        self.result = result


class _Corrupt(Exception):
    """The index file is damaged or foreign."""


def _diag_rows(diagnostics: tuple[Diagnostic, ...]) -> list[list[Any]]:
    return [
        [d.kind.value, d.message, os.fspath(d.path) if d.path else None, d.severity]
        for d in diagnostics
    ]


def _diags(rows: list[list[Any]]) -> tuple[Diagnostic, ...]:
    out = []
    for kind, message, path, severity in rows:
        if type(message) is not str or severity not in ("warning", "info"):
            raise ValueError("diagnostic")
        out.append(
            Diagnostic(DiagnosticKind(kind), message, Path(path) if path else None, severity)
        )
    return tuple(out)


class ManifestIndex:
    """One index file, loaded at the start of a scan and saved at its end (SPEC §26).

    Args:
        path: The index file (need not exist).
        settings: What parsing depends on (strictness, links, limits); an index written with
            other settings is rebuilt.

    Nothing here raises: problems become :attr:`diagnostics`.
    """

    def __init__(self, path: Path, settings: Mapping[str, Any]) -> None:
        from . import __version__

        self.path = path
        self._settings = {"library": __version__, **settings}
        self._started_ns = time.time_ns()
        self._old: dict[str, list[Any]] = {}
        self._blob = memoryview(b"")
        self._new: dict[str, tuple[list[Any], bytes | None]] = {}
        self._dirty = False
        self._hits = 0
        self.diagnostics: list[Diagnostic] = []
        self._load()

    # --- reading ------------------------------------------------------------------------------

    def _ignore(self, why: str) -> None:
        self.diagnostics.append(
            Diagnostic(
                DiagnosticKind.INDEX_IGNORED,
                f"ignoring the index {self.path}: {why}; it will be rewritten",
                self.path,
            )
        )
        self._old = {}
        self._blob = memoryview(b"")
        self._dirty = True

    def _load(self) -> None:
        try:
            fd = os.open(os.fspath(self.path), _READ_FLAGS)
        except FileNotFoundError:
            self._dirty = True
            return
        except (OSError, ValueError) as exc:
            self._ignore(f"cannot be opened ({getattr(exc, 'strerror', None) or exc})")
            return
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                self._ignore("not a regular file")
                return
            if st.st_size > MAX_INDEX_BYTES:
                self._ignore(f"larger than {MAX_INDEX_BYTES} bytes")
                return
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(MAX_INDEX_BYTES + 1)
        except OSError as exc:
            self._ignore(f"cannot be read ({exc.strerror or exc})")
            return
        finally:
            os.close(fd)
        try:
            self._parse(data)
        except _Corrupt as exc:
            self._ignore(str(exc))

    def _parse(self, data: bytes) -> None:
        if not data.startswith(MAGIC):
            if data.startswith(MAGIC[:-3]):
                self._dirty = True  # another format version of ours: rebuilt, no note
                return
            raise _Corrupt("not an agent-skills index")
        size_end = data.find(b"\n", len(MAGIC))
        try:
            head_len, blob_len = (int(x) for x in data[len(MAGIC) : size_end].split(b" "))
        except ValueError:
            raise _Corrupt("damaged sizes line") from None
        start = size_end + 1
        if size_end < 0 or head_len < 0 or blob_len < 0 or start + head_len + blob_len != len(data):
            raise _Corrupt("truncated or damaged")
        try:
            header = json.loads(data[start : start + head_len])
        except (ValueError, RecursionError):
            raise _Corrupt("damaged header") from None
        if not isinstance(header, dict) or not isinstance(header.get("entries"), dict):
            raise _Corrupt("damaged header")
        if header.get("settings") != self._settings:
            self._dirty = True  # another library version or other settings: rebuilt, no note
            return
        self._old = header["entries"]
        self._blob = memoryview(data)[start + head_len :]

    def stat_dir(
        self, dir_text: str, linked: bool, dir_fd: int | None = None
    ) -> os.stat_result | None:
        """Stat a skill directory as :meth:`lookup` compares it (its target when ``linked``);
        ``dir_fd`` is the directory open (the scan's pinned descriptor), then ``fstat`` it."""
        try:
            if dir_fd is not None:
                return os.fstat(dir_fd)
            return os.stat(dir_text) if linked else os.lstat(dir_text)
        except (OSError, ValueError):
            return None

    def lookup(self, dir_text: str, linked: bool, dir_fd: int | None = None) -> IndexHit | None:
        """Return the stored outcome for the skill directory ``dir_text`` if it is still valid.

        Args:
            dir_text: The directory as listed in its root (``root/entry``).
            linked: Whether the root's entry is a symlink (its target is compared).
            dir_fd: The directory open (the scan's pinned descriptor): stamps are then taken
                through it (``fstat``, and the manifest relative to it).

        Returns:
            An :class:`IndexHit`, or ``None`` (no entry, racy, changed, or damaged).
        """
        entry = self._old.get(dir_text)
        if entry is None:
            return None
        try:
            if entry[_RACY] or entry[_LINKED] is not linked:
                return None
            dst = self.stat_dir(dir_text, linked, dir_fd)
            if dst is None or not _same(dst, entry[_DIR_STAT]):
                return None
            name = entry[_MANIFEST]
            if type(name) is not str or "/" in name or "\0" in name:
                raise ValueError(name)
            try:
                if dir_fd is not None:
                    mst = os.lstat(name, dir_fd=dir_fd)
                else:
                    mst = os.lstat(os.path.join(dir_text, name))
            except OSError:
                return None
            if not _same(mst, entry[_MANIFEST_STAT]) or not stat.S_ISREG(mst.st_mode):
                return None
            hit = self._restore(entry, dir_text, name)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, UnicodeError):
            self._ignore(f"damaged entry for {dir_text}")
            return None
        self._hits += 1
        self._new[dir_text] = (entry, None)
        return hit

    def _restore(self, entry: list[Any], dir_text: str, name: str) -> IndexHit:
        scan_rows = entry[_SCAN_DIAGS]
        scan_diags = _diags(scan_rows) if scan_rows else ()
        if entry[_KIND] == "err":
            code, message, fields, rows = entry[_PAYLOAD : _PAYLOAD + 4]
            if type(message) is not str or type(fields) is not dict:
                raise TypeError(message)
            error = SkillError(code, message, fields)
            return IndexHit(name, scan_diags, ManifestResult(None, error, _diags(rows)))
        if entry[_KIND] != "ok":
            raise ValueError(entry[_KIND])
        frontmatter, rows, values, offset, length = entry[_PAYLOAD : _PAYLOAD + 5]
        if type(frontmatter) is not dict or offset < 0 or length < 0:
            raise ValueError(offset)
        if offset + length > len(self._blob):
            raise ValueError(offset)
        if values is None:  # the common case: the validated values are the frontmatter
            values = frontmatter
        elif type(values) is not dict:
            raise ValueError(values)
        body = str(self._blob[offset : offset + length], "utf-8", "surrogatepass")
        diagnostics = _diags(rows) if rows else ()
        parsed = ParsedSkill(frontmatter, body, diagnostics, values)
        return IndexHit(name, scan_diags, ManifestResult(parsed, None, diagnostics))

    # --- recording and writing ----------------------------------------------------------------

    def record(
        self,
        dir_text: str,
        stamp: tuple[bool, os.stat_result, os.stat_result],
        manifest_name: str,
        scan_diagnostics: tuple[Diagnostic, ...],
        result: ManifestResult,
    ) -> None:
        """Store the outcome of reading and parsing one manifest (a miss of :meth:`lookup`).

        ``stamp`` is whether the root's entry is a link, then the directory's and the manifest's
        ``os.stat_result``, taken *before* the manifest was read, so that a change during the
        read shows next time.
        """
        self._dirty = True
        linked, dkey, mkey = stamp[0], stat_key(stamp[1]), stat_key(stamp[2])
        limit = self._started_ns - RACY_WINDOW_NS
        racy = max(dkey[3], dkey[4], mkey[3], mkey[4]) >= limit
        entry: list[Any] = [linked, dkey, manifest_name, mkey, racy, _diag_rows(scan_diagnostics)]
        if racy:
            self._new[dir_text] = (entry, None)
            return
        error, parsed = result.error, result.parsed
        if error is not None:
            entry += ["err", error.code.value, error.message, dict(error.fields)]
            entry.append(_diag_rows(result.diagnostics))
            self._new[dir_text] = (entry, None)
            return
        assert parsed is not None
        values = None if parsed.values == parsed.frontmatter else dict(parsed.values)
        entry += ["ok", parsed.frontmatter, _diag_rows(parsed.diagnostics), values, 0, 0]
        self._new[dir_text] = (entry, parsed.body.encode("utf-8", "surrogatepass"))

    def save(self) -> list[Diagnostic]:
        """Rewrite the index atomically when anything changed; return any diagnostics."""
        if not self._dirty and self._hits == len(self._old):
            return []
        parts: list[bytes] = []
        offset = 0
        entries: dict[str, list[Any]] = {}
        for key, (entry, body) in self._new.items():
            if not entry[_RACY] and entry[_KIND] == "ok":
                if body is None:  # a hit: its body is still in the old file
                    old_off, old_len = entry[_PAYLOAD + 3], entry[_PAYLOAD + 4]
                    body = bytes(self._blob[old_off : old_off + old_len])
                entry = [*entry[: _PAYLOAD + 3], offset, len(body)]
                parts.append(body)
                offset += len(body)
            entries[key] = entry
        header = {
            "settings": self._settings,
            "written_ns": time.time_ns(),
            "entries": entries,
        }
        try:
            head = json.dumps(header, separators=(",", ":")).encode("ascii")
        except (TypeError, ValueError) as exc:  # a value JSON cannot hold: keep no index
            return [self._write_failed(f"cannot be encoded ({exc})")]
        data = b"".join([MAGIC, f"{len(head)} {offset}\n".encode(), head, *parts])
        return self._write(data)

    def _write_failed(self, why: str) -> Diagnostic:
        return Diagnostic(
            DiagnosticKind.INDEX_IGNORED, f"the index {self.path} was not written: {why}", self.path
        )

    def _write(self, data: bytes) -> list[Diagnostic]:
        target = os.fspath(self.path)
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
