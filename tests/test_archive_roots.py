"""Archives as roots: discovery, loading, reads, the session, MCP and the CLI (SPEC §25.1)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_skills import SkillError, create_agent_skills
from agent_skills import packages as pkg
from agent_skills.agent import SkillSession
from agent_skills.cli import cli
from conftest import make_skill

MANIFEST = b"---\nname: hello\ndescription: Says hello.\n---\nRun scripts/hi.sh.\n"
SCRIPT = b"#!/bin/sh\necho hi\n"


def make_zip(path: Path, members: list[tuple[str, bytes] | tuple[str, bytes, int]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for item in members:
            info = zipfile.ZipInfo(item[0])
            info.create_system = 3
            info.external_attr = (item[2] if len(item) == 3 else stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, item[1])
    return path


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return make_zip(
        tmp_path / "bundle.zip",
        [
            ("hello/SKILL.md", MANIFEST),
            ("hello/scripts/hi.sh", SCRIPT, stat.S_IFREG | 0o755),
            ("hello/references/Guide.md", b"Guide"),
            ("hello/.env", b"SECRET=1"),
            ("hello/link", b"/etc/passwd", stat.S_IFLNK | 0o777),
            ("other/SKILL.md", MANIFEST.replace(b"hello", b"other", 1)),
            ("docs/readme.md", b"not a skill"),
        ],
    )


def test_skills_of_an_archive_list_and_load(archive: Path) -> None:
    skills = create_agent_skills([archive])
    infos = skills.list_skills()
    assert [(i.name, i.root, i.dir, i.path) for i in infos] == [
        ("hello", archive, archive / "hello", archive / "hello" / "SKILL.md"),
        ("other", archive, archive / "other", archive / "other" / "SKILL.md"),
    ]
    content = skills.load_skill("hello")
    assert content is not None
    assert content.body == "Run scripts/hi.sh."
    assert [(r.kind, r.rel, r.path, r.size) for r in content.resources] == [
        ("references", "references/Guide.md", archive / "hello" / "references" / "Guide.md", 5),
        ("scripts", "scripts/hi.sh", archive / "hello" / "scripts" / "hi.sh", len(SCRIPT)),
    ]
    report = skills.report()
    assert [(e.path.name, e.status.value, e.reason) for e in report.entries] == [
        ("docs", "skipped", "no SKILL.md in directory"),
        ("hello", "loaded", ""),
        ("other", "loaded", ""),
    ]
    assert [(d.kind.value, d.message) for d in report.diagnostics] == [
        ("archive_link", f"not serving link member 'hello/link' of {archive}")
    ]
    assert [n.to_dict() for n in report.roots] == [
        {"root": str(archive), "status": "ok", "message": ""}
    ]


def test_reads_of_an_archived_skill(archive: Path) -> None:
    skills = create_agent_skills([archive])
    assert skills.read_resource("hello", "scripts/hi.sh") == SCRIPT
    assert skills.read_resource("hello", "SKILL.md") == MANIFEST
    assert skills.read_resource("hello", "scripts\\hi.sh") == SCRIPT
    assert skills.read_resource("hello", "scripts/../SKILL.md") == MANIFEST
    assert skills.read_resource("hello", ".env") == b"SECRET=1"  # served when asked by name
    with skills.open_resource("hello", "references/Guide.md") as fh:
        assert fh.read() == b"Guide"
    cases = {
        "../other/SKILL.md": ("path_escape", {"rel": "../other/SKILL.md", "name": "hello"}),
        "/etc/passwd": ("invalid_input", {"rel": "/etc/passwd", "name": "hello"}),
        "link": ("not_found", {"name": "hello", "rel": "link"}),
        "missing.md": ("not_found", {"name": "hello", "rel": "missing.md"}),
        "scripts": ("not_a_file", {"name": "hello", "rel": "scripts"}),
    }
    for rel, (code, fields) in cases.items():
        with pytest.raises(SkillError) as info:
            skills.read_resource("hello", rel)
        assert (info.value.code, dict(info.value.fields)) == (code, fields), rel
    with pytest.raises(SkillError) as info:
        skills.read_resource("hello", "SKILL.md", max_bytes=10)
    assert info.value.code == "too_large"
    assert info.value.fields["size"] == len(MANIFEST)


def test_paths_of_an_archived_skill_are_refused(archive: Path) -> None:
    skills = create_agent_skills([archive])
    with pytest.raises(SkillError) as info:
        skills.resource_path("hello", "scripts/hi.sh")
    assert info.value.code == "not_a_file"
    assert dict(info.value.fields) == {
        "name": "hello",
        "rel": "scripts/hi.sh",
        "archive": str(archive),
    }
    # What to do instead, for a library user and for one of the command line.
    assert info.value.message.endswith(
        "has no path on disk; read it with read_resource (`agent-skills read` on the command line)"
    )
    assert skills.allowed_read_roots() == []


def test_a_changed_archive_is_stale_until_refresh(archive: Path, tmp_path: Path) -> None:
    skills = create_agent_skills([archive])
    new = make_zip(tmp_path / "new.zip", [("hello/SKILL.md", MANIFEST.replace(b"Says", b"Now"))])
    os.replace(new, archive)
    real_dir = str(Path(os.path.realpath(archive)) / "hello")
    for call in (
        lambda: skills.load_skill("hello"),
        lambda: skills.read_resource("hello", "SKILL.md"),
        lambda: skills.read_resource("hello", "nothing"),
    ):
        with pytest.raises(SkillError) as info:
            call()
        assert info.value.code == "stale_skill"
        assert dict(info.value.fields) == {"name": "hello", "dir": real_dir}
    skills.refresh()
    assert [(i.name, i.description) for i in skills.list_skills()] == [("hello", "Now hello.")]


def test_a_rewritten_archive_of_the_same_size_is_stale(archive: Path) -> None:
    skills = create_agent_skills([archive])
    st = archive.stat()
    os.utime(archive, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    with pytest.raises(SkillError) as info:
        skills.read_resource("hello", "SKILL.md")
    assert info.value.code == "stale_skill"


def test_an_invalid_archive_contributes_nothing_and_others_load(tmp_path: Path) -> None:
    bad = make_zip(tmp_path / "bad.zip", [("x/SKILL.md", MANIFEST), ("../evil", b"x")])
    good = make_skill(tmp_path / "dirroot", "plain")
    skills = create_agent_skills([bad, good.parent])
    assert [i.name for i in skills.list_skills()] == ["plain"]
    report = skills.report()
    reason = f"invalid archive {bad}: member name '../evil' holds a '..' component"
    assert report.roots[0].to_dict() == {
        "root": str(bad),
        "status": "invalid_archive",
        "message": reason,
    }
    assert [(d.kind.value, d.message, d.path) for d in report.diagnostics] == [
        ("invalid_archive", reason, bad)
    ]


def test_a_tgz_with_a_root_manifest_is_one_skill_named_by_its_frontmatter(tmp_path: Path) -> None:
    path = tmp_path / "whatever-1.0.tgz"
    with tarfile.open(path, "w:gz") as tf:
        for name, data in [("./SKILL.md", MANIFEST), ("./scripts/hi.sh", SCRIPT)]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    skills = create_agent_skills([path])
    [info] = skills.list_skills()
    assert (info.name, info.dir, info.path) == (
        "hello",
        path / "hello",
        path / "hello" / "SKILL.md",
    )
    assert skills.read_resource("hello", "scripts/hi.sh") == SCRIPT
    assert not any(d.kind == "name_mismatch" for d in skills.diagnostics)


def test_a_later_archive_root_overrides_a_directory(archive: Path, tmp_path: Path) -> None:
    make_skill(tmp_path / "dirroot", "hello", frontmatter={"name": "hello", "description": "Disk."})
    skills = create_agent_skills([tmp_path / "dirroot", archive])
    info = next(i for i in skills.list_skills() if i.name == "hello")
    assert (info.dir, info.description) == (archive / "hello", "Says hello.")
    assert [s.dir for s in info.shadowed] == [tmp_path / "dirroot" / "hello"]
    skills = create_agent_skills([archive, tmp_path / "dirroot"])
    assert skills.read_resource("hello", "SKILL.md").startswith(
        b"---\nname: hello\ndescription: Disk."
    )


def test_a_packed_skill_is_a_root_that_serves_the_same_bytes(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "src", "hello", raw=MANIFEST, files={"scripts/hi.sh": SCRIPT})
    packed = pkg.pack_skill(skill, tmp_path / "hello.skill")
    on_disk = create_agent_skills([skill.parent])
    archived = create_agent_skills([packed])
    assert [r.rel for r in archived.load_skill("hello").resources] == ["scripts/hi.sh"]  # type: ignore[union-attr]
    disk_lock = pkg.lock_skills(on_disk, workspace=tmp_path)
    zip_lock = pkg.lock_skills(archived, workspace=tmp_path)
    assert disk_lock["skills"][0]["digest"] == zip_lock["skills"][0]["digest"]
    assert zip_lock["skills"][0]["dir"] == "hello.skill/hello"
    assert zip_lock["skills"][0]["files"] == [
        {
            "path": "SKILL.md",
            "size": len(MANIFEST),
            "sha256": "sha256:" + hashlib.sha256(MANIFEST).hexdigest(),
        },
        {
            "path": "scripts/hi.sh",
            "size": len(SCRIPT),
            "sha256": "sha256:" + hashlib.sha256(SCRIPT).hexdigest(),
        },
    ]


def test_session_activates_and_reads_an_archived_skill(archive: Path, tmp_path: Path) -> None:
    skills = create_agent_skills([archive])
    project = tmp_path / "project"
    project.mkdir()
    session = SkillSession(skills, project_root=project)
    activation = session.activate("hello")
    assert activation.skill_dir == archive / "hello"
    assert "<file>scripts/hi.sh</file>" in activation.content
    assert session.read_resource("hello", "scripts/hi.sh") == SCRIPT
    with pytest.raises(SkillError) as info:
        session.check_read(archive / "hello" / "scripts" / "hi.sh")
    assert info.value.code == "not_a_file"
    assert dict(info.value.fields) == {
        "name": "hello",
        "rel": "scripts/hi.sh",
        "archive": str(archive),
    }
    assert session.allowed_read_roots() == [Path(os.path.realpath(project))]


def test_mcp_serves_an_archived_skill(archive: Path) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    from agent_skills.mcp import build_server

    server = build_server(create_agent_skills([archive]))

    async def go() -> None:
        async with Client(server, mode="legacy", cache=None) as client:
            listed = await client.list_resources()
            assert [str(r.uri) for r in listed.resources] == [
                "skill://hello/SKILL.md",
                "skill://other/SKILL.md",
                "skill://index.json",
            ]
            read = await client.read_resource("skill://hello/scripts/hi.sh")
            assert read.contents[0].text == SCRIPT.decode()  # type: ignore[union-attr]
            result = await client.call_tool(
                "read_skill_resource", {"name": "hello", "path": "references/Guide.md"}
            )
            assert result.is_error is not True
            assert result.content[0].text == "Guide"  # type: ignore[union-attr]
            escape = await client.call_tool(
                "read_skill_resource", {"name": "hello", "path": "../other/SKILL.md"}
            )
            assert escape.is_error is True
            assert escape.content[0].text.startswith("path_escape")  # type: ignore[union-attr]

    anyio.run(go)


def test_cli_lists_and_reads_an_archive_root(archive: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"HOME": str(tmp_path)}
    listed = runner.invoke(
        cli, ["list", "--preset", "none", "--root", str(archive), "--json"], env=env
    )
    assert listed.exit_code == 0, listed.output
    assert [s["name"] for s in json.loads(listed.stdout)] == ["hello", "other"]
    read = runner.invoke(
        cli, ["read", "hello", "scripts/hi.sh", "--preset", "none", "--root", str(archive)], env=env
    )
    assert read.exit_code == 0
    assert read.stdout_bytes == SCRIPT
    path = runner.invoke(
        cli, ["path", "hello", "SKILL.md", "--preset", "none", "--root", str(archive)], env=env
    )
    assert path.exit_code == 1
    assert path.stderr.splitlines()[-1].startswith("not_a_file: ")


def test_an_archived_workspace_skill_is_trusted_only_as_approved(
    archive: Path, tmp_path: Path
) -> None:
    from agent_skills import TrustStore

    store = TrustStore(tmp_path / "trust.json")
    assert create_agent_skills([archive], trust=store).list_skills() == []
    digest = store.approve(archive / "hello")
    lock = pkg.lock_skills(create_agent_skills([archive]), workspace=tmp_path)
    assert digest == next(e["digest"] for e in lock["skills"] if e["name"] == "hello")
    skills = create_agent_skills([archive], trust=store)
    assert [i.name for i in skills.list_skills()] == ["hello"]
    assert skills.read_resource("hello", "scripts/hi.sh") == SCRIPT
    with pytest.raises(SkillError) as info:
        skills.read_resource("hello", ".env")  # not covered by the approval
    assert info.value.code == "access_denied"
    make_zip(tmp_path / "new.zip", [("hello/SKILL.md", MANIFEST + b"more\n")])
    os.replace(tmp_path / "new.zip", archive)
    skills.refresh()
    entry = next(e for e in skills.report().entries if e.name == "hello")
    assert (entry.status.value, entry.reason) == ("untrusted", "changed since approval")


def test_a_linked_archive_has_its_real_path_as_real_dir(archive: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.skill"
    link.symlink_to(archive)
    skills = create_agent_skills([link])
    info = next(i for i in skills.list_skills() if i.name == "hello")
    assert (info.dir, info.real_dir) == (link / "hello", archive.resolve() / "hello")


def test_an_archived_manifest_over_the_limit_is_skipped(tmp_path: Path) -> None:
    big = MANIFEST + b"x" * 2000
    path = make_zip(
        tmp_path / "big.zip",
        [("hello/SKILL.md", big), ("small/SKILL.md", MANIFEST.replace(b"hello", b"small", 1))],
    )
    skills = create_agent_skills([path], max_manifest_bytes=1000)
    assert [i.name for i in skills.list_skills()] == ["small"]
    entry = next(e for e in skills.report().entries if e.path == path / "hello")
    manifest = path / "hello" / "SKILL.md"
    assert (entry.status.value, entry.reason) == (
        "skipped",
        f"{manifest} is larger than 1000 bytes",
    )
    assert [(d.kind.value, d.message) for d in skills.diagnostics] == [
        ("too_large", f"skipping {manifest}: {manifest} is larger than 1000 bytes")
    ]
    with pytest.raises(SkillError) as info:
        create_agent_skills([path], max_manifest_bytes=1000, strict=True)
    assert info.value.code == "too_large"


def test_watch_reports_a_rewritten_archive_as_changed(tmp_path: Path) -> None:
    pytest.importorskip("watchfiles")
    import time

    path = tmp_path / "a.zip"

    def write(description: str) -> None:
        manifest = f"---\nname: hello\ndescription: {description}\n---\nBody.\n".encode()
        make_zip(tmp_path / "next.zip", [("hello/SKILL.md", manifest)])
        os.replace(tmp_path / "next.zip", path)

    write("One.")
    skills = create_agent_skills([path])
    seen: list[object] = []
    with skills.watch(seen.append, debounce_ms=50):
        time.sleep(0.3)
        write("Two.")
        deadline = time.monotonic() + 20
        while not seen and time.monotonic() < deadline:
            time.sleep(0.05)
    assert [(c.added, c.removed, c.changed) for c in seen] == [((), (), ("hello",))]  # type: ignore[attr-defined]
    assert [i.description for i in skills.list_skills()] == ["Two."]


def test_a_member_lying_about_its_size_is_never_served_past_it(tmp_path: Path) -> None:
    import struct

    path = make_zip(
        tmp_path / "lie.zip", [("hello/SKILL.md", MANIFEST), ("hello/big", bytes(100_000))]
    )
    raw = bytearray(path.read_bytes())
    # (signature, offset of the name length, of the name, of the uncompressed size)
    headers = ((b"PK\x01\x02", 28, 46, 24), (b"PK\x03\x04", 26, 30, 22))
    for signature, length_at, name_at, size_at in headers:
        start = 0
        while (i := raw.find(signature, start)) >= 0:
            length = struct.unpack_from("<H", raw, i + length_at)[0]
            if raw[i + name_at : i + name_at + length] == b"hello/big":
                struct.pack_into("<I", raw, i + size_at, 150)  # declares 150 bytes
            start = i + 4
    path.write_bytes(bytes(raw))
    skills = create_agent_skills([path])
    assert [(r.rel, r.size) for r in skills.load_skill("hello").resources] == [("big", 150)]  # type: ignore[union-attr]
    with pytest.raises(SkillError) as info:
        skills.read_resource("hello", "big")
    assert info.value.code == "io_error"
    assert "Bad CRC-32" in info.value.message
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.Source("archive", str(path)), tmp_path / "root")
    assert info.value.code == "invalid_archive"
    assert list((tmp_path / "root").iterdir()) == []
