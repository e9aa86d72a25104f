"""Content digests of skill files and of whole skills (SPEC §17, §23.3, §25.3).

The one place where a digest is computed, so the MCP extension's manifests, the trust store and the
lock agree byte for byte:

- a **file digest** is ``sha256:<hex>`` of the file's exact bytes (what §17 serves);
- a **skill digest** is ``sha256:<hex>`` over the UTF-8 lines ``<sha256 hex> <size> <rel>\\n`` of
  ``SKILL.md`` and every listed resource, sorted by ``rel`` in code-point order (§23.3); a
  ``rel`` holding a newline or starting with ``"`` is written as a JSON string instead, so no
  name can stand in for another line (the text is injective), and every other name is written
  as it always was (approvals made before keep matching).

No file is opened here: reading is the caller's job (through the confined readers of
``_confine`` or an archive's), so a digest never reaches past what the skill serves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO

from ._errors import ErrorCode, SkillError

__all__ = [
    "PREFIX",
    "FileDigest",
    "digest_files",
    "digest_skill",
    "digest_stream",
    "file_digest",
    "hex_of",
    "skill_digest",
    "skill_digest_text",
]

PREFIX = "sha256:"


@dataclass(frozen=True, slots=True)
class FileDigest:
    """One file of a skill as hashed.

    Attributes:
        rel: POSIX path relative to the skill directory (``SKILL.md`` for the manifest).
        size: Length of the hashed bytes.
        sha256: ``sha256:<hex>`` of those bytes.
    """

    rel: str
    size: int
    sha256: str


def file_digest(data: bytes) -> str:
    """Return ``sha256:<hex>`` of ``data`` (SPEC §17: the digest the MCP extension serves)."""
    import hashlib  # loaded with the first digest, not with the package (SPEC §26)

    return PREFIX + hashlib.sha256(data).hexdigest()


def digest_stream(
    fh: IO[bytes], chunk_size: int = 1 << 16, limit: int | None = None
) -> tuple[int, str]:
    """Hash an open binary stream to its end without holding it in memory.

    Args:
        fh: The stream, read from where it is.
        chunk_size: Bytes read at a time.
        limit: Stop once more than this many bytes were read (a sparse or endless file): the
            size returned is then over ``limit`` and the digest of no use. ``None``: no limit.

    Returns:
        ``(size, "sha256:<hex>")``: the number of bytes read and their digest.
    """
    import hashlib

    hasher = hashlib.sha256()
    size = 0
    while chunk := fh.read(chunk_size):
        size += len(chunk)
        hasher.update(chunk)
        if limit is not None and size > limit:
            break
    return size, PREFIX + hasher.hexdigest()


def hex_of(digest: str) -> str:
    """Return the hex part of a ``sha256:<hex>`` digest (a bare hex string is returned as is)."""
    return digest[len(PREFIX) :] if digest.startswith(PREFIX) else digest


def skill_digest(files: Iterable[FileDigest]) -> str:
    """Return the digest of a whole skill (SPEC §23.3, used by the trust store and the lock §25.3).

    Args:
        files: One record per file: ``SKILL.md`` and every listed resource, in any order.

    Returns:
        ``sha256:<hex>`` of :func:`skill_digest_text`.
    """
    import hashlib

    return PREFIX + hashlib.sha256(skill_digest_text(files)).hexdigest()


def skill_digest_text(files: Iterable[FileDigest]) -> bytes:
    """The text a skill digest hashes (SPEC §23.3): the lines ``<sha256 hex> <size> <rel>\\n``
    sorted by ``rel`` in code-point order, each file's ``rel`` written by :func:`_rel_text`.

    Two different sets of files (a name, a size or a content differing, a file more or less)
    never give the same text: every line ends at its one newline, the hex has 64 characters
    and the size no space, and the name is written injectively. A name that is not valid UTF-8
    (surrogate-escaped bytes) is written as its original bytes.
    """
    return b"".join(
        f"{hex_of(record.sha256)} {record.size} {_rel_text(record.rel)}\n".encode(
            "utf-8", "surrogateescape"
        )
        for record in sorted(files, key=lambda f: f.rel)
    )


def _rel_text(rel: str) -> str:
    """``rel`` as a digest line writes it: as it is, or, when it holds a newline or starts
    with ``"`` (which a plain name then never does), as a JSON string (ASCII, so a lone
    surrogate is written ``\\udcXX``), which holds no newline."""
    if "\n" not in rel and not rel.startswith('"'):
        return rel
    import json

    return json.dumps(rel, ensure_ascii=True)


def digest_files(
    rels: Iterable[str],
    read: Callable[[str], bytes | IO[bytes]],
    *,
    max_bytes: int | None = None,
    where: str = "",
) -> tuple[FileDigest, ...]:
    """Hash the files named by ``rels``: the one way a skill's files are hashed (trust, locks,
    archives; SPEC §23.3, §25.3).

    Args:
        rels: Relative paths to hash (``SKILL.md`` and the listed resources, SPEC §9).
        read: Returns the bytes of one ``rel``, or a binary stream of them that is hashed to its
            end without being held in memory and then closed (a confined reader: the pinned
            directory's, an archive's); its errors propagate.
        max_bytes: The most bytes hashed in all, ``None`` for no cap: a sparse or endless file
            is read no further than that (SPEC §30.3).
        where: The skill directory named by the ``too_large`` error.

    Returns:
        One :class:`FileDigest` per ``rel``, sorted by ``rel`` in code-point order (the order
        :func:`skill_digest` hashes them in); sizes are the lengths of the bytes hashed.

    Raises:
        SkillError: ``too_large`` ``{path, max_bytes}`` once more than ``max_bytes`` were read.
    """
    out: list[FileDigest] = []
    left = max_bytes
    for rel in rels:
        got = read(rel)
        if isinstance(got, bytes):
            size, digest = len(got), file_digest(got)
        else:
            with got as fh:
                size, digest = digest_stream(fh, limit=left)
        if left is not None:
            left -= size
            if left < 0:
                raise SkillError(
                    ErrorCode.TOO_LARGE,
                    f"{where} holds more than {max_bytes} bytes",
                    {"path": where, "max_bytes": max_bytes},
                )
        out.append(FileDigest(rel, size, digest))
    out.sort(key=lambda f: f.rel)
    return tuple(out)


def digest_skill(
    rels: Iterable[str], read: Callable[[str], bytes | IO[bytes]]
) -> tuple[str, tuple[FileDigest, ...]]:
    """The skill digest of the files named by ``rels`` and their records: :func:`digest_files`,
    then :func:`skill_digest` (SPEC §23.3).

    Returns:
        ``(sha256:<hex>, files sorted by rel)``.
    """
    files = digest_files(rels, read)
    return skill_digest(files), files
