"""Hostile archives are refused before they are parsed whole, and reads never parse them again
(SPEC §25.1, §30.3).

- A zip that is nothing but a huge central directory is refused from its end record and a count
  of its records, before ``zipfile`` parses it (declared counts true or false, zip64 or not).
- ``.tar.gz`` headers are checked before ``tarfile`` acts on them: pax records of digits
  (``tarfile``'s patterns are quadratic in them in the Python versions supported), oversized or
  malformed extended headers, long chains of them (``tarfile`` recurses per header), negative
  sizes (``tarfile`` walks backwards), sparse members.
- Reading every member of an archive costs about one pass over it: a zip member is reached by
  its offset (the directory is parsed once, by the index), a ``.tar.gz`` member from the kept
  stream or the nearest resumption point.

Each through the library (``read_index``, discovery of an archive root), ``add`` and the CLI,
with time bounded against a hang and memory measured.
"""

from __future__ import annotations

import gzip
import io
import os
import random
import struct
import tarfile
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_skills import SkillError, create_agent_skills
from agent_skills import _archive as arc
from agent_skills import _members as members
from agent_skills import packages as pkg
from agent_skills._archive import MAX_MEMBERS, read_index, read_member
from agent_skills.cli import cli
from conftest import ends_within

MANIFEST = b"---\nname: hello\ndescription: Says hello.\n---\nBody.\n"
HANG = 60.0
MEMORY = 64 * 1024 * 1024


def _ends(fn: Callable[[], Any]) -> Any:
    """``fn()`` or the SkillError it raised, failing on a hang or any other exception."""
    return ends_within(fn, HANG, returned=SkillError)


def _refusal(path: Path) -> tuple[str, int]:
    """``read_index``'s refusal reason and its peak of Python allocations."""
    tracemalloc.start()
    try:
        err = _ends(lambda: read_index(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(err, SkillError), f"{path.name} was accepted"
    assert err.code == "invalid_archive" and err.fields["path"] == str(path)
    return str(err.fields["reason"]), peak


# -- zip: the central directory is bounded before it is parsed ---------------------------------

_RECORD = struct.Struct("<4s6H3L5H2L")
_END = struct.Struct("<4s4H2LH")


def _directory_only_zip(path: Path, records: int, *, declared: int, zip64: bool) -> Path:
    """A zip holding nothing but ``records`` central directory records (no data at all)."""
    one = _RECORD.pack(b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0) + b"a"
    directory = one * records
    with open(path, "wb") as fh:
        fh.write(directory)
        if zip64:
            at = len(directory)
            fh.write(
                struct.pack(
                    "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, declared, declared,
                    len(directory), 0,
                )
            )  # fmt: skip
            fh.write(struct.pack("<4sLQL", b"PK\x06\x07", 0, at, 1))
            fh.write(_END.pack(b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 2**32 - 1, 2**32 - 1, 0))
        else:
            count = min(declared, 0xFFFF)
            fh.write(_END.pack(b"PK\x05\x06", 0, 0, count, count, len(directory), 0, 0))
    return path


@pytest.mark.parametrize(
    ("records", "declared", "zip64", "reason"),
    [
        (300_000, 300_000, False, f"more than {MAX_MEMBERS} members"),
        (300_000, 5, False, f"more than {MAX_MEMBERS} members"),  # a false count
        (300_000, 300_000, True, f"more than {MAX_MEMBERS} members"),
        (300_000, 5, True, f"more than {MAX_MEMBERS} members"),
        (400_000, 5, True, "its central directory is larger than 16777216 bytes"),
        (10_001, 10_001, False, f"more than {MAX_MEMBERS} members"),
        (20_000, 1, False, f"more than {MAX_MEMBERS} members"),
    ],
)
def test_a_huge_central_directory_is_refused_before_it_is_parsed(
    tmp_path: Path, records: int, declared: int, zip64: bool, reason: str, monkeypatch: Any
) -> None:
    parsed: list[int] = []
    real_init = zipfile.ZipFile.__init__

    def counting(self: zipfile.ZipFile, *args: Any, **kwargs: Any) -> None:
        parsed.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "__init__", counting)
    path = _directory_only_zip(tmp_path / "dir.zip", records, declared=declared, zip64=zip64)
    got, peak = _refusal(path)
    assert got == reason
    assert parsed == []  # zipfile never saw it
    assert peak < 2 * arc.MAX_CENTRAL_BYTES


def test_a_huge_central_directory_is_refused_by_discovery_add_and_the_cli(tmp_path: Path) -> None:
    path = _directory_only_zip(tmp_path / "dir.skill", 300_000, declared=5, zip64=False)
    skills = _ends(lambda: create_agent_skills([path]))
    assert skills.list_skills() == []
    assert [(d.kind.value, d.path) for d in skills.diagnostics] == [("invalid_archive", path)]
    err = _ends(lambda: pkg.install_skills(pkg.Source("archive", str(path)), tmp_path / "root"))
    assert (err.code.value, err.fields["reason"]) == (
        "invalid_archive",
        f"more than {MAX_MEMBERS} members",
    )
    result = CliRunner().invoke(
        cli, ["list", "--json", "--preset", "none", "--root", str(path)], catch_exceptions=False
    )
    assert (result.exit_code, result.stdout.strip()) == (0, "[]")
    assert "more than 10000 members" in result.stderr


# -- .tar.gz: headers checked before tarfile acts on them ---------------------------------------

_DIGITS = random.Random(7)


def _digits(n: int) -> bytes:
    return "".join(_DIGITS.choice("0123456789") for _ in range(n)).encode()


def _header(name: str, size: int, kind: bytes) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = size
    info.type = kind
    return info.tobuf(format=tarfile.GNU_FORMAT)


def _pad(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 512)


def _pax(records: bytes) -> bytes:
    return _header("././@PaxHeader", len(records), tarfile.XHDTYPE) + _pad(records)


def _record(keyword: bytes, value: bytes) -> bytes:
    body = b" " + keyword + b"=" + value + b"\n"
    length = len(body) + 1
    while len(str(length)) + len(body) != length:
        length += 1
    return str(length).encode() + body


MANIFEST_BLOCKS = _header("hello/SKILL.md", len(MANIFEST), tarfile.REGTYPE) + _pad(MANIFEST)
NOISE = random.Random(3).randbytes(300_000)  # (keeps a stream under the ratio bound)
NOISE_BLOCKS = _header("hello/noise.bin", len(NOISE), tarfile.REGTYPE) + _pad(NOISE)


def _tgz(path: Path, *blocks: bytes) -> Path:
    with gzip.open(path, "wb") as fh:
        for block in (*blocks, MANIFEST_BLOCKS, NOISE_BLOCKS, b"\0" * 1024):
            fh.write(block)
    return path


def _negative_size_header(name: str) -> bytes:
    block = bytearray(_header(name, 0, tarfile.REGTYPE))
    block[124:136] = b"\xff" * 12  # base-256: -1
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block)


HOSTILE_TARS: dict[str, tuple[tuple[bytes, ...], str]] = {
    "a pax header of 64 KiB of digits": (
        (_pax(_digits(65_536)),),
        "a pax header holds more than 64 digits in a row",
    ),
    "a pax header of 1 MB of digits": (
        (_pax(_digits(1_000_000)),),
        "a pax header holds more than 64 digits in a row",
    ),
    "a well formed pax record with a long number": (
        (_pax(_record(b"comment", _digits(60_000))),),
        "a pax header holds more than 64 digits in a row",
    ),
    "digits then a keyword": (
        (_pax(_digits(5_000) + b" hdrcharset=BINARY\n"),),
        "a pax header holds more than 64 digits in a row",
    ),
    "a record shorter than its length": (
        (_pax(b"99 path=x\n"),),
        "a pax record does not end where its length says",
    ),
    "a record without a keyword": ((_pax(b"8 =abcd\n"),), "a pax record holds no keyword"),
    "a record without a length": (
        (_pax(b"path=x\n"),),
        "a pax record does not start with its length",
    ),
    "a negative pax size": ((_pax(_record(b"size", b"-50")),), "a pax size is not a number"),
    "a sparse pax header": (
        (_pax(_record(b"GNU.sparse.size", b"100")),),
        "a pax header describes a sparse file",
    ),
    "an extended header of 2 MB": (
        (_header("././@PaxHeader", 2_000_000, tarfile.XHDTYPE) + _pad(os.urandom(2_000_000)),),
        "an extended header larger than 1048576 bytes",
    ),
    "3 000 pax headers in a row": (
        (_pax(_record(b"path", b"hello/x")),) * 3_000,
        "more than 8 extended headers in a row",
    ),
    "3 000 long names in a row": (
        (_header("././@LongLink", 9, tarfile.GNUTYPE_LONGNAME) + _pad(b"hello/xy\0"),) * 3_000,
        "more than 8 extended headers in a row",
    ),
    "a global header chain": (
        (_header("g", len(_record(b"path", b"hello/g")), tarfile.XGLTYPE)
         + _pad(_record(b"path", b"hello/g")),) * 20,
        "more than 8 extended headers in a row",
    ),
    "a negative size": (
        (_negative_size_header("hello/neg"),),
        "member 'hello/neg' has a negative size",
    ),
    "a sparse member": (
        (_header("hello/sparse", 10, tarfile.GNUTYPE_SPARSE) + _pad(b"x" * 10),),
        "member 'hello/sparse' is a sparse file",
    ),
}  # fmt: skip


@pytest.mark.parametrize("shape", sorted(HOSTILE_TARS))
def test_hostile_tar_headers_are_refused_before_tarfile_acts_on_them(
    tmp_path: Path, shape: str
) -> None:
    blocks, reason = HOSTILE_TARS[shape]
    path = _tgz(tmp_path / "hostile.tgz", *blocks)
    got, peak = _refusal(path)
    assert got == reason
    assert peak < MEMORY


def test_hostile_tars_are_refused_by_discovery_and_add(tmp_path: Path) -> None:
    for i, shape in enumerate(sorted(HOSTILE_TARS)):
        blocks, reason = HOSTILE_TARS[shape]
        path = _tgz(tmp_path / f"h{i}.tar.gz", *blocks)
        skills = _ends(lambda p=path: create_agent_skills([p]))  # type: ignore[misc]
        assert skills.list_skills() == [], shape
        [diag] = skills.diagnostics
        assert (diag.kind.value, diag.message) == (
            "invalid_archive",
            f"invalid archive {path}: {reason}",
        ), shape
        err = _ends(
            lambda p=path: pkg.install_skills(pkg.Source("archive", str(p)), tmp_path / "r")
        )  # type: ignore[misc]
        assert (err.code.value, err.fields["reason"]) == ("invalid_archive", reason), shape
    assert not (tmp_path / "r" / "hello").exists()


def test_well_formed_extended_headers_still_load(tmp_path: Path) -> None:
    long_name = "hello/" + "n" * 300 + ".md"
    path = _tgz(
        tmp_path / "fine.tgz",
        _pax(_record(b"mtime", b"1700000000.123456789") + _record(b"path", long_name.encode())),
        b"".join(_header("placeholder", 2, tarfile.REGTYPE) + _pad(b"ok") for _ in range(1)),
        _header("././@LongLink", 14, tarfile.GNUTYPE_LONGNAME) + _pad(b"hello/long.md\0"),
        _header("short", 3, tarfile.REGTYPE) + _pad(b"abc"),
    )
    index = read_index(path)
    assert sorted(index.files) == sorted(
        [long_name, "hello/long.md", "hello/SKILL.md", "hello/noise.bin"]
    )
    assert read_member(index, long_name) == b"ok"
    assert read_member(index, "hello/long.md") == b"abc"


# -- reads never parse or decompress the whole archive again ------------------------------------


def test_every_zip_member_is_read_without_parsing_the_directory_again(
    tmp_path: Path, monkeypatch: Any
) -> None:
    path = tmp_path / "many.skill"
    data = {f"hello/f{i:04}.txt": os.urandom(50 + i % 7) for i in range(3_000)}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("hello/SKILL.md", MANIFEST)
        for name, content in data.items():
            zf.writestr(name, content)
    index = read_index(path)
    parsed: list[int] = []
    real_init = zipfile.ZipFile.__init__

    def counting(self: zipfile.ZipFile, *args: Any, **kwargs: Any) -> None:
        parsed.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "__init__", counting)
    assert {name: read_member(index, name) for name in data} == data
    with arc.open_member(index, "hello/f2999.txt") as fh:
        assert fh.read() == data["hello/f2999.txt"]
    assert parsed == []
    # Through the skills and add: every file read, the directory parsed once (by the index).
    skills = create_agent_skills([path])
    assert len(skills.load_skill("hello").resources) == 3_000  # type: ignore[union-attr]
    [installed] = pkg.install_skills(pkg.Source("archive", str(path)), tmp_path / "root")
    assert (installed.dir / "f1234.txt").read_bytes() == data["hello/f1234.txt"]
    assert len(parsed) == 2  # discovery's index, add's index


def test_every_tgz_member_is_read_from_the_nearest_point(tmp_path: Path, monkeypatch: Any) -> None:
    """A stream too large to keep (80 MiB) is decompressed once by the index; each member read
    afterwards decompresses at most one point's span before the member, in any order."""
    path = tmp_path / "big.tgz"
    pieces = {f"hello/f{i:03}.bin": os.urandom(2_000) * 100 for i in range(400)}  # 200 KB each
    with tarfile.open(path, "w:gz", compresslevel=1) as tf:
        info = tarfile.TarInfo("hello/SKILL.md")
        info.size = len(MANIFEST)
        tf.addfile(info, io.BytesIO(MANIFEST))
        for name, content in pieces.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tf.addfile(info, io.BytesIO(content))
    index = read_index(path)
    assert len(index.points) > 10
    assert arc._cache_get((os.fspath(index.real_path), index.pin)) is None  # not kept
    produced: list[int] = []
    real_inflate = members.Inflated._inflate

    def counting(self: Any) -> bytes:
        data: bytes = real_inflate(self)
        produced.append(len(data))
        return data

    monkeypatch.setattr(members.Inflated, "_inflate", counting)
    slack = members._POINT_EVERY + 4 * members._RAW_CHUNK
    for name in reversed(list(pieces)):
        produced.clear()
        assert read_member(index, name) == pieces[name]
        assert sum(produced) <= len(pieces[name]) + slack, name
    # add reads them all too: far less than a pass per member.
    produced.clear()
    [installed] = pkg.install_skills(pkg.Source("archive", str(path)), tmp_path / "root")
    assert (installed.dir / "f007.bin").read_bytes() == pieces["hello/f007.bin"]
    stream = sum(len(p) for p in pieces.values())
    assert sum(produced) < 3 * stream + len(pieces) * slack
