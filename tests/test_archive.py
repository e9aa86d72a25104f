"""Archives read in place: member rules, limits, links, layouts (SPEC §25.1)."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tarfile
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import SkillError
from agent_skills import _archive as arc
from agent_skills._archive import ArchiveChanged, read_index, read_member

MANIFEST = b"---\nname: hello\ndescription: Says hello.\n---\nBody.\n"


def make_zip(path: Path, members: list[tuple[str, bytes] | tuple[str, bytes, int]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are written on purpose
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for item in members:
                name, data = item[0], item[1]
                info = zipfile.ZipInfo(name)
                info.create_system = 3
                info.external_attr = (item[2] if len(item) == 3 else stat.S_IFREG | 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, data)
    return path


def make_tgz(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for item in members:
            if isinstance(item, tarfile.TarInfo):
                tf.addfile(item)
            else:
                info = tarfile.TarInfo(item[0])
                info.size = len(item[1])
                info.mode = 0o644
                tf.addfile(info, io.BytesIO(item[1]))
    return path


def tar_member(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def refused(path: Path) -> str:
    with pytest.raises(SkillError) as info:
        read_index(path)
    assert info.value.code == "invalid_archive"
    assert info.value.fields["path"] == str(path)
    return str(info.value.fields["reason"])


def test_limits_are_the_spec_values() -> None:
    assert (arc.MAX_MEMBERS, arc.MAX_TOTAL_BYTES, arc.MAX_RATIO) == (10_000, 512 * 1024**2, 200)


def test_zip_with_top_folders(tmp_path: Path) -> None:
    path = make_zip(
        tmp_path / "a.zip",
        [
            ("hello/SKILL.md", MANIFEST),
            ("hello/scripts/run.sh", b"#!/bin/sh\n", stat.S_IFREG | 0o755),
            ("hello/.hidden", b"x"),
            ("hello/node_modules/m.js", b"x"),
            ("other/skill.md", MANIFEST),
            ("nothing/readme.md", b"x"),
            ("top.txt", b"x"),
        ],
    )
    index = read_index(path)
    assert index.kind == "zip"
    assert index.tops == ("hello", "nothing", "other")
    assert [(s.top, s.manifest) for s in index.skills] == [
        ("hello", "hello/SKILL.md"),
        ("other", "other/skill.md"),
    ]
    st = os.stat(path)
    assert index.pin == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    assert [rel for rel, _ in index.resources(index.skills[0])] == ["scripts/run.sh"]
    assert index.files["hello/scripts/run.sh"].executable is True
    assert index.files["hello/SKILL.md"].executable is False
    assert read_member(index, "hello/SKILL.md") == MANIFEST


def test_root_manifest_is_one_skill(tmp_path: Path) -> None:
    path = make_tgz(
        tmp_path / "a.tgz",
        [("./SKILL.md", MANIFEST), ("./references/r.md", b"R"), ("./sub/SKILL.md", MANIFEST)],
    )
    index = read_index(path)
    assert index.kind == "tar.gz"
    assert [(s.top, s.manifest) for s in index.skills] == [("", "SKILL.md")]
    assert [rel for rel, _ in index.resources(index.skills[0])] == [
        "references/r.md",
        "sub/SKILL.md",
    ]
    assert read_member(index, "references/r.md") == b"R"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("/etc/passwd", "is absolute"),
        ("C:/x/SKILL.md", "starts with a drive letter"),
        ("c:evil", "starts with a drive letter"),
        ("hello/../../x", "holds a '..' component"),
        ("..", "holds a '..' component"),
        ("hello\\SKILL.md", "holds a backslash"),
    ],
)
def test_bad_member_names_in_zip(tmp_path: Path, name: str, reason: str) -> None:
    path = make_zip(tmp_path / "a.zip", [("hello/SKILL.md", MANIFEST), (name, b"x")])
    assert refused(path) == f"member name {name!r} {reason}"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("/abs", "is absolute"),
        ("../up", "holds a '..' component"),
        ("a\\b", "holds a backslash"),
        ("D:x", "starts with a drive letter"),
    ],
)
def test_bad_member_names_in_tar(tmp_path: Path, name: str, reason: str) -> None:
    path = make_tgz(tmp_path / "a.tgz", [("hello/SKILL.md", MANIFEST), (name, b"x")])
    assert refused(path) == f"member name {name!r} {reason}"


def test_nul_in_a_zip_member_name(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "a.zip", [("hello/SKILL.md", MANIFEST), ("hello/aXb", b"x")])
    raw = path.read_bytes()
    assert raw.count(b"hello/aXb") == 2  # local header and central directory
    path.write_bytes(raw.replace(b"hello/aXb", b"hello/a\0b"))
    assert refused(path) == "member name 'hello/a\\x00b' holds NUL"


def test_duplicate_and_colliding_names(tmp_path: Path) -> None:
    twice = make_zip(tmp_path / "d.zip", [("hello/SKILL.md", MANIFEST), ("hello/SKILL.md", b"2")])
    assert refused(twice) == "member name 'hello/SKILL.md' appears twice"
    case = make_zip(tmp_path / "c.zip", [("Hello/SKILL.md", MANIFEST), ("hello/SKILL.md", b"")])
    assert refused(case) == (
        "member names 'Hello/SKILL.md' and 'hello/SKILL.md' collide after NFC and case folding"
    )
    nfc = make_zip(
        tmp_path / "n.zip", [("caf\u00e9/SKILL.md", MANIFEST), ("cafe\u0301/SKILL.md", b"")]
    )
    assert "collide after NFC and case folding" in refused(nfc)
    tar_twice = make_tgz(tmp_path / "t.tgz", [("a/SKILL.md", MANIFEST), ("a/SKILL.md", b"")])
    assert refused(tar_twice) == "member name 'a/SKILL.md' appears twice"


def test_link_and_device_members_are_not_served(tmp_path: Path) -> None:
    path = make_tgz(
        tmp_path / "l.tgz",
        [
            ("hello/SKILL.md", MANIFEST),
            tar_member("hello/sym", tarfile.SYMTYPE, "/etc/passwd"),
            tar_member("hello/hard", tarfile.LNKTYPE, "hello/SKILL.md"),
            tar_member("hello/dev", tarfile.CHRTYPE),
            tar_member("hello/fifo", tarfile.FIFOTYPE),
        ],
    )
    index = read_index(path)
    assert sorted(index.files) == ["hello/SKILL.md"]
    assert [(d.kind, d.message) for d in index.diagnostics] == [
        ("archive_link", f"not serving link member 'hello/sym' of {path}"),
        ("archive_link", f"not serving link member 'hello/hard' of {path}"),
        ("archive_link", f"not serving special file member 'hello/dev' of {path}"),
        ("archive_link", f"not serving special file member 'hello/fifo' of {path}"),
    ]
    zpath = make_zip(
        tmp_path / "l.zip",
        [("hello/SKILL.md", MANIFEST), ("hello/sym", b"../../etc", stat.S_IFLNK | 0o777)],
    )
    zindex = read_index(zpath)
    assert sorted(zindex.files) == ["hello/SKILL.md"]
    assert [d.kind for d in zindex.diagnostics] == ["archive_link"]


def test_a_file_through_a_link_member_is_invalid(tmp_path: Path) -> None:
    path = make_tgz(
        tmp_path / "t.tgz",
        [
            ("hello/SKILL.md", MANIFEST),
            tar_member("hello/dir", tarfile.SYMTYPE, "/etc"),
            ("hello/dir/passwd", b"x"),
        ],
    )
    assert refused(path) == "member 'hello/dir/passwd' lies under the link 'hello/dir'"
    through_file = make_zip(
        tmp_path / "f.zip", [("hello/SKILL.md", MANIFEST), ("hello/SKILL.md/x", b"")]
    )
    assert refused(through_file) == "member 'hello/SKILL.md/x' lies under the file 'hello/SKILL.md'"


def test_decompression_bomb_member_is_refused_and_small_on_disk(tmp_path: Path) -> None:
    path = make_zip(
        tmp_path / "bomb.zip", [("hello/SKILL.md", MANIFEST), ("hello/z", bytes(5_000_000))]
    )
    assert path.stat().st_size < 20_000
    assert refused(path) == "member 'hello/z' is compressed more than 200 times"
    tgz = make_tgz(
        tmp_path / "bomb.tgz", [("hello/SKILL.md", MANIFEST), ("hello/z", bytes(5_000_000))]
    )
    assert tgz.stat().st_size < 20_000
    assert refused(tgz) == "the stream is compressed more than 200 times"


def test_ratio_at_the_limit_is_accepted(tmp_path: Path) -> None:
    data = os.urandom(2000)  # incompressible: ratio about 1
    path = make_zip(tmp_path / "ok.zip", [("hello/SKILL.md", MANIFEST), ("hello/r", data)])
    assert read_member(read_index(path), "hello/r") == data


def test_too_many_members(tmp_path: Path) -> None:
    members: list[tuple[str, bytes] | tuple[str, bytes, int]] = [("hello/SKILL.md", MANIFEST)]
    members += [(f"hello/f{i}", b"") for i in range(arc.MAX_MEMBERS)]
    path = make_zip(tmp_path / "many.zip", members)
    assert refused(path) == "more than 10000 members"
    path = make_zip(tmp_path / "enough.zip", members[:-1])
    assert len(read_index(path).files) == arc.MAX_MEMBERS


def test_too_many_bytes_in_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arc, "MAX_TOTAL_BYTES", 3000)
    members: list[tuple[str, bytes] | tuple[str, bytes, int]] = [("hello/SKILL.md", MANIFEST)]
    members += [(f"hello/r{i}", os.urandom(1000)) for i in range(3)]
    assert refused(make_zip(tmp_path / "big.zip", members)) == "more than 3000 bytes uncompressed"


def test_not_an_archive(tmp_path: Path) -> None:
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK not really")
    assert refused(junk).startswith("not a readable zip")
    bad_gz = tmp_path / "junk.tgz"
    bad_gz.write_bytes(b"\x1f\x8b garbage")
    assert refused(bad_gz).startswith("not a readable .tar.gz")
    with pytest.raises(SkillError) as info:
        read_index(tmp_path / "missing.zip")
    assert info.value.code == "not_found"


def test_a_fifo_named_like_an_archive_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.zip"
    os.mkfifo(fifo)
    with pytest.raises(SkillError) as info:
        read_index(fifo)
    assert info.value.code == "io_error"


def test_a_replaced_archive_is_never_read_through_the_old_index(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "a.zip", [("hello/SKILL.md", MANIFEST)])
    index = read_index(path)
    make_zip(tmp_path / "b.zip", [("hello/SKILL.md", b"---\nname: evil\n---\n")])
    os.replace(tmp_path / "b.zip", path)
    with pytest.raises(ArchiveChanged):
        read_member(index, "hello/SKILL.md")
    path.unlink()
    with pytest.raises(ArchiveChanged):
        read_member(index, "hello/SKILL.md")


def test_read_member_is_capped(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "a.zip", [("hello/SKILL.md", MANIFEST)])
    index = read_index(path)
    # The one capped read (SPEC §30.3): whole under the cap, a coded refusal past it.
    assert read_member(index, "hello/SKILL.md", max_bytes=len(MANIFEST)) == MANIFEST
    assert read_member(index, "hello/SKILL.md") == MANIFEST
    with pytest.raises(SkillError) as info:
        read_member(index, "hello/SKILL.md", max_bytes=4)
    assert (info.value.code.value, info.value.fields) == (
        "too_large",
        {"path": str(path / "hello/SKILL.md"), "size": len(MANIFEST), "max_bytes": 4},
    )


def test_deep_names_are_checked_in_one_pass(tmp_path: Path) -> None:
    deep = "/".join(["d"] * 2000)
    members: list[tuple[str, bytes] | tuple[str, bytes, int]] = [("hello/SKILL.md", MANIFEST)]
    members += [(f"hello/{i}/{deep}/f", b"") for i in range(50)]
    index = read_index(make_zip(tmp_path / "deep.zip", members))
    assert len(index.files) == 51
    members.append((f"hello/0/{deep}", b"x"))  # a file where a directory of others lies
    assert refused(make_zip(tmp_path / "deeper.zip", members)) == (
        f"member 'hello/0/{deep}/f' lies under the file 'hello/0/{deep}'"
    )


_NAME_PART = st.sampled_from(["a", "A", "..", ".", "", "b\\c", "C:", "\u00e9", "e\u0301", "/"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_NAME_PART, min_size=1, max_size=4).map("/".join), max_size=6))
def test_any_member_names_are_refused_or_safe(names: list[str]) -> None:
    import tempfile

    from agent_skills import packages as pkg

    with tempfile.TemporaryDirectory() as work:
        base = Path(work)
        members: list[tuple[str, bytes] | tuple[str, bytes, int]] = [("s/SKILL.md", MANIFEST)]
        members += [(f"s/{n}", b"x") for n in names]
        path = make_zip(base / "a.zip", members)
        try:
            index = read_index(path)
        except SkillError as err:
            assert err.code == "invalid_archive"
            return
        for name in index.files:
            parts = name.split("/")
            assert "\\" not in name and ":" not in parts[0]
            assert not name.startswith("/") and ".." not in parts and "" not in parts
        root = base / "root"
        before = sorted(p.name for p in base.iterdir())
        with contextlib.suppress(SkillError):
            pkg.install_skills(pkg.Source("archive", str(path)), root)
        assert sorted(p.name for p in base.iterdir()) == sorted({*before, "root"})
        for found in root.rglob("*"):
            assert os.path.realpath(found).startswith(os.path.realpath(root) + os.sep)
            assert not found.is_symlink()


def test_tgz_members_read_the_same_with_and_without_the_cache(tmp_path: Path) -> None:
    data = {f"hello/f{i}.txt": os.urandom(300 + i) for i in range(40)}
    path = make_tgz(tmp_path / "many.tgz", [("hello/SKILL.md", MANIFEST), *data.items()])
    index = read_index(path)
    assert {n: read_member(index, n) for n in data} == data
    arc._tar_cache.clear()  # evicted: the member is found by scanning the stream again
    assert read_member(index, "hello/f7.txt") == data["hello/f7.txt"]
    with arc.open_member(index, "hello/f39.txt") as fh:
        assert fh.read() == data["hello/f39.txt"]


def test_compiled_python_members_are_not_resources(tmp_path: Path) -> None:
    """SPEC §29.6: an archived skill lists no ``*.pyc``/``*.pyo``, as a folder does."""
    path = make_zip(
        tmp_path / "c.zip",
        [
            ("c/SKILL.md", MANIFEST),
            ("c/scripts/run.py", b"print(1)\n"),
            ("c/scripts/__cache.pyc", b"\x00"),
            ("c/scripts/old.PYO", b"\x00"),
        ],
    )
    index = read_index(path)
    assert [rel for rel, _ in index.resources(index.skills[0])] == ["scripts/run.py"]
