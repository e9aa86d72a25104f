"""What a new user meets on a first run of the command line: one finding of a trial per test,
each through click's runner or a subprocess, asserting the exact output and exit code."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest

from agent_skills import SkillError
from agent_skills.cli import COMMANDS
from agent_skills.grants import HOST_ALIASES, HOSTS, SETTINGS_FILES, host_name
from agent_skills.packages._sources import opened_source, parse_source
from conftest import git, make_skill, needs_git
from terminal_support import run_in_terminal

# --- a shadowed skill is ordinary precedence -------------------------------------------------


@pytest.fixture
def shadowing(tmp_path: Path) -> list[str]:
    """A user copy of ``csv-profiler`` overridden by a project copy, as roots of a command."""
    low, high = tmp_path / "user", tmp_path / "project"
    make_skill(low, "csv-profiler", frontmatter={"name": "csv-profiler", "description": "Old."})
    make_skill(high, "csv-profiler", frontmatter={"name": "csv-profiler", "description": "New."})
    return ["--preset", "none", "--root", str(low), "--root", str(high)]


@pytest.mark.parametrize("args", [["list"], ["show", "csv-profiler"], ["catalog"], ["grants"]])
def test_a_shadowed_copy_prints_nothing_on_stderr_for_a_person(
    run: Any, shadowing: list[str], args: list[str]
) -> None:
    result = run(*args, *shadowing)
    assert (result.exit_code, result.stderr) == (0, "")


@pytest.mark.parametrize("args", [["list", "--json"], ["show", "csv-profiler", "--json"]])
def test_a_shadowed_copy_stays_a_warning_in_the_json_protocol(
    run: Any, shadowing: list[str], args: list[str]
) -> None:
    result = run(*args, *shadowing)
    assert result.exit_code == 0
    assert [w["code"] for w in json.loads(result.stderr)["warnings"]] == ["shadowed"]


def test_a_shadowed_copy_is_shown_by_list_and_report(
    run: Any, shadowing: list[str], tmp_path: Path
) -> None:
    listed = json.loads(run("list", "--json", *shadowing).stdout)
    assert [(s["name"], [d["dir"] for d in s["shadowed"]]) for s in listed] == [
        ("csv-profiler", [str(tmp_path / "user" / "csv-profiler")])
    ]
    table = run("list", *shadowing).stdout.splitlines()
    assert table[0].split()[4] == "SHADOWS"
    assert table[1].split()[:5] == ["csv-profiler", "workspace", "-", "user,", "model"]
    assert table[1].split()[5] == "1"
    report = json.loads(run("report", "--json", *shadowing).stdout)
    assert [(d["kind"], d["severity"]) for d in report["diagnostics"]] == [("shadowed", "warning")]
    assert [e["status"] for e in report["entries"]] == ["shadowed", "loaded"]


# --- git failures say what git said ------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository on branch ``master`` holding one skill."""
    src = tmp_path / "gitsrc"
    make_skill(src, "commit-message")
    git("init", "-q", "-b", "master", cwd=src)
    git("add", "-A", cwd=src)
    git("commit", "-q", "-m", "init", cwd=src)
    return src


@needs_git
def test_add_of_a_missing_repository_keeps_gits_reason(run: Any, tmp_path: Path) -> None:
    missing = tmp_path / "nosuchrepo"
    result = run("add", f"file://{missing}")
    assert result.exit_code == 1
    assert result.stderr == (
        f"io_error: git fetch failed: fatal: '{missing}' does not appear to be a git "
        "repository; fatal: Could not read from remote repository.\n"
    )


@needs_git
@pytest.mark.parametrize("form", ["path", "url"])
def test_add_of_an_unknown_ref_names_the_ref(run: Any, repo: Path, form: str) -> None:
    source = f"{repo}#main" if form == "path" else f"file://{repo}#main"
    shown = str(repo) if form == "path" else f"file://{repo}"
    result = run("add", source)
    assert result.exit_code == 1
    assert result.stderr == (
        f"not_found: unknown ref 'main' in {shown}: not a branch, tag or commit of the repository\n"
    )
    assert not (run.work / ".agents" / "skills" / "commit-message").exists()


@needs_git
def test_an_unknown_ref_has_the_ref_in_its_fields(repo: Path) -> None:
    with pytest.raises(SkillError) as info, opened_source(parse_source(f"{repo}#nosuch")):
        pass
    assert (info.value.code, dict(info.value.fields)) == (
        "not_found",
        {"ref": "nosuch", "source": str(repo)},
    )


def test_a_git_failure_keeps_its_fatal_lines_with_credentials_redacted(
    run: Any, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = init ]; then mkdir -p "$4"; exit 0; fi\n'  # (made; its fetch fails)
        "echo \"Cloning into 'x'...\" >&2\n"
        'echo "remote: Invalid username or password." >&2\n'
        "echo \"fatal: Authentication failed for 'https://bob:s3cret@example.com/r.git/'\" >&2\n"
        'echo "fatal: could not read from https://bob:s3cret@example.com/r.git?token=abc" >&2\n'
        "echo >&2\n"
        'echo "Please make sure you have the correct access rights" >&2\n'
        "exit 128\n"
    )
    fake.chmod(0o755)
    result = run(
        "add", "https://bob:s3cret@example.com/r.git", env={"PATH": f"{bin_dir}:{os.defpath}"}
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "io_error: git fetch failed: fatal: Authentication failed for "
        "'https://***@example.com/r.git/'; fatal: could not read from "
        "https://***@example.com/r.git?***\n"
    )
    assert "s3cret" not in result.stderr


# --- no arguments -----------------------------------------------------------------------------


def test_no_arguments_shows_the_help_as_help_does(run: Any) -> None:
    bare, helped = run(), run("--help")
    assert (bare.exit_code, bare.stderr) == (0, "")
    assert bare.stdout == helped.stdout
    assert bare.stdout.startswith("Usage: cli [OPTIONS] COMMAND [ARGS]...\n")  # runner's name


def test_no_arguments_as_a_program_exits_0() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent_skills"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Usage: agent-skills [OPTIONS] COMMAND [ARGS]...\n")


# --- add of a folder holding only an invalid skill ---------------------------------------------


def test_add_of_a_folder_of_invalid_skills_leads_with_their_code(run: Any, tmp_path: Path) -> None:
    vendor = tmp_path / "vendor2"
    bad = make_skill(vendor, "bad", raw="---\nname: bad\n---\nBody\n")
    worse = make_skill(vendor, "worse", raw="---\nname: [\n---\nBody\n")
    result = run("add", str(vendor))
    assert result.exit_code == 1
    first, second = result.stderr.rstrip("\n").split("; invalid_skill: ")
    assert first == (
        f"invalid_skill: no valid skill in {vendor}: {bad / 'SKILL.md'}: invalid frontmatter "
        "'description': required key is missing"
    )
    assert second.startswith(f"{worse / 'SKILL.md'}: ")


def test_add_of_a_folder_with_a_valid_skill_still_names_the_missing_one(
    run: Any, tmp_path: Path
) -> None:
    vendor = tmp_path / "vendor"
    make_skill(vendor, "good")
    bad = make_skill(vendor, "bad", raw="---\nname: bad\n---\nBody\n")
    result = run("add", str(vendor), "--skill", "goood")
    assert result.exit_code == 1
    assert result.stderr == (
        f"not_found: no skill named goood in {vendor} (did you mean good?); invalid_skill: "
        f"{bad / 'SKILL.md'}: invalid frontmatter 'description': required key is missing\n"
    )


# --- pack -o into a missing folder -------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"


def test_pack_into_a_missing_folder_names_the_folder(run: Any, tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    result = run("pack", str(EXAMPLES / "release-notes"), "-o", str(missing / "x.skill"))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"not_found: No such folder: {missing} (to write x.skill into)\n"
    assert not missing.exists()


def test_pack_into_a_file_as_folder_names_that_file(run: Any, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    result = run("pack", str(EXAMPLES / "release-notes"), "-o", str(afile / "x.skill"))
    assert (result.exit_code, result.stderr) == (1, f"not_a_file: Not a directory: {afile}\n")


# --- update says when nothing changed ------------------------------------------------------------


def versioned(root: Path, version: str, body: str = "Body.") -> Path:
    manifest = f"---\nname: commit-message\ndescription: Commits.\nversion: '{version}'\n---\n"
    if (root / "commit-message").exists():
        shutil.rmtree(root / "commit-message")
    return make_skill(root, "commit-message", raw=manifest + body + "\n")


def test_update_with_nothing_changed_says_unchanged(run: Any, tmp_path: Path) -> None:
    src = tmp_path / "vendor"
    versioned(src, "1.1")
    assert run("add", str(src)).exit_code == 0
    installed = run.work / ".agents" / "skills" / "commit-message"
    lock = run.work / "skills.lock.json"
    result = run("update")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        f"unchanged commit-message (1.1) in {installed}",
        f"lock: {lock}",
    ]
    versioned(src, "1.1", body="Edited, same version.")
    assert run("update").stdout.splitlines()[0] == (
        f"updated commit-message (1.1, files changed) in {installed}"
    )
    versioned(src, "1.2", body="Newer.")
    assert run("update").stdout.splitlines()[0] == (
        f"updated commit-message (1.1 -> 1.2) in {installed}"
    )
    assert run("update").stdout.splitlines()[0] == (
        f"unchanged commit-message (1.2) in {installed}"
    )


# --- grants: nothing to grant, counts, git, aliases; sandbox --dry-run ---------------------------


def test_grants_with_no_skills_says_so_on_stderr(run: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for host in ("codex", "docker", "json"):
        result = run("grants", "--for", host, "--preset", "none", "--root", str(empty))
        assert result.exit_code == 0
        assert result.stderr == "note: no skills to grant (see `agent-skills report`)\n"
    assert run("grants", "--for", "docker", "--preset", "none", "--root", str(empty)).stdout == ""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A workspace with one project skill."""
    ws = tmp_path / "proj"
    make_skill(ws / ".agents" / "skills", "release-notes")
    return ws


def grants_in(project: Path, *args: str) -> list[str]:
    return ["grants", "--preset", "agents", "--workspace", str(project), *args]


def test_grants_write_counts_say_what_they_count(run: Any, project: Path) -> None:
    settings = project / ".claude" / "settings.local.json"
    rule = f"Read(/{project}/.agents/skills/release-notes/**)"
    first = run(*grants_in(project, "--for", "claude", "--write"))
    assert (first.exit_code, first.stdout) == (0, f"{settings}: 1 grant entry added\n  + {rule}\n")
    again = run(*grants_in(project, "--for", "claude", "--write"))
    assert again.stdout == f"{settings}: unchanged (1 grant entry already there)\n"


@needs_git
def test_grants_write_creating_a_file_git_sees_hints_once(run: Any, project: Path) -> None:
    git("init", "-q", cwd=project)
    first = run(*grants_in(project, "--for", "claude", "--write"))
    assert first.exit_code == 0
    assert first.stderr == (
        "note: .claude/settings.local.json holds paths of this machine and git does not ignore "
        "it; keep it out of git: echo .claude/settings.local.json >> .git/info/exclude\n"
    )
    # The file exists now: no hint on the next runs, nor once git ignores it.
    (project / ".claude" / "settings.local.json").unlink()
    (project / ".git" / "info").mkdir(exist_ok=True)
    (project / ".git" / "info" / "exclude").write_text(".claude/settings.local.json\n")
    created = run(*grants_in(project, "--for", "claude", "--write"))
    assert (created.exit_code, created.stderr) == (0, "")


def test_grants_write_outside_git_gives_no_hint(run: Any, project: Path) -> None:
    result = run(*grants_in(project, "--for", "gemini", "--write"))
    assert (result.exit_code, result.stderr) == (0, "")


@pytest.mark.parametrize(("alias", "host"), [("claude-code", "claude"), ("gemini-cli", "gemini")])
def test_grants_for_accepts_client_names(run: Any, project: Path, alias: str, host: str) -> None:
    by_alias = run(*grants_in(project, "--for", alias))
    by_name = run(*grants_in(project, "--for", host))
    assert (by_alias.exit_code, by_alias.stderr) == (0, "")
    assert by_alias.stdout == by_name.stdout != ""
    written = run(*grants_in(project, "--for", alias, "--write"))
    assert written.stdout.startswith(f"{project / SETTINGS_FILES[host]}: 1 grant entry added\n")


def test_the_library_resolves_host_aliases(project: Path) -> None:
    assert [host_name(h) for h in ("claude-code", "gemini-cli", "codex-cli", "claude")] == [
        "claude",
        "gemini",
        "codex",
        "claude",
    ]
    assert set(HOST_ALIASES.values()) <= set(HOSTS)
    with pytest.raises(SkillError) as info:
        host_name("claude-desktop")
    assert (info.value.code, info.value.fields["host"]) == ("invalid_input", "claude-desktop")


def test_sandbox_dry_run_warns_of_a_command_not_on_path(run: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run(
        "sandbox", "--dry-run", "--no-skills", "--preset", "none", "--root", str(empty),
        "--project", str(empty), "--", "no-such-command-here",
        env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.exit_code == 0
    assert json.loads(result.stdout)["command"] is None
    # (the test's home folder lies under /tmp, so a rule_holds_home warning comes first)
    assert result.stderr.splitlines()[-1] == (
        "warning: command_not_found: no-such-command-here: command not found on PATH "
        "(a real run exits 127)"
    )
    found = run(
        "sandbox", "--dry-run", "--no-skills", "--preset", "none", "--root", str(empty),
        "--project", str(empty), "--", "sh",
        env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert found.exit_code == 0
    assert "command_not_found" not in found.stderr
    assert json.loads(found.stdout)["command"] in ("/usr/bin/sh", "/bin/sh")


# --- stderr lines wrap on a terminal, never in a pipe -----------------------------------------


def _bad_root(tmp_path: Path) -> Path:
    bad = tmp_path / "bad"
    make_skill(bad, "broken", raw="---\nname: broken\n---\nBody\n")
    return bad


def _stderr_of(args: list[str], *, tty: bool, home: Path, cwd: Path) -> str:
    """The stderr of the program run with ``args``: into a pseudo-terminal 80 columns wide, or
    into a pipe."""
    env = {**os.environ, "HOME": str(home)}
    env.pop("COLUMNS", None)
    if tty:
        return run_in_terminal(args, env, cwd, 80, stderr=True)
    argv = [sys.executable, "-m", "agent_skills", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60).stderr


def test_warnings_wrap_at_the_terminal_width_on_word_boundaries(tmp_path: Path, home: Path) -> None:
    bad = _bad_root(tmp_path)
    args = ["list", "--preset", "none", "--root", str(bad)]
    piped = _stderr_of(args, tty=False, home=home, cwd=tmp_path)
    line = (
        f"warning: invalid_skill: skipping {bad / 'broken' / 'SKILL.md'}: invalid frontmatter "
        "'description': required key is missing"
    )
    assert piped == line + "\n"  # one line for tools reading a pipe
    shown = _stderr_of(args, tty=True, home=home, cwd=tmp_path)
    rows = shown.splitlines()
    assert all(len(row) <= 80 for row in rows if " " in row.strip())
    assert rows[1:] and all(row.startswith("  ") for row in rows[1:])
    # Word boundaries only: joining the rows gives the line back, no word split.
    assert " ".join(row.strip() for row in rows) == line


# --- a missing optional extra: one shape, one exit code ----------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "args", "expected"),
    [
        (
            "mcp",
            ["serve"],
            "mcp_unavailable: the MCP server needs the 'mcp' extra; install it with: {python} -m "
            "pip install 'mcp>=2.3,<3' (or, from a checkout: pip install '.[mcp]')",
        ),
        (
            "watchfiles",
            ["serve", "--watch"],
            "startup_error: watching skills needs the 'watch' extra; install it with: {python} -m "
            "pip install 'watchfiles>=0.21' (or, from a checkout: pip install '.[watch]')",
        ),
        pytest.param(
            "landlockpy",
            ["sandbox", "--", "true"],
            "sandbox_unavailable: the sandbox is not available here: it needs the 'sandbox' "
            "extra; install it with: {python} -m pip install 'landlockpy>=0.2' (or, from a "
            "checkout: pip install '.[sandbox]')",
            marks=pytest.mark.skipif(
                not sys.platform.startswith("linux"), reason="Landlock is Linux only"
            ),
        ),
    ],
    ids=["mcp", "watch", "sandbox"],
)
def test_every_missing_extra_says_the_same_thing(
    tmp_path: Path, home: Path, module: str, args: list[str], expected: str
) -> None:
    code = (
        "import sys\n"
        f"sys.modules[{module!r}] = None  # the extra is not installed\n"
        "from agent_skills.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    root = tmp_path / "skills"
    make_skill(root, "alpha")
    done = subprocess.run(
        [sys.executable, "-c", code, *args[:1], "--preset", "none", "--root", str(root),
         *args[1:]],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)},
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
        timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == expected.format(python=sys.executable)


# --- serve on stdio says what it waits for, on a terminal only ----------------------------------

WAITING = "serving 1 skill over MCP: waiting for a client on stdin (Ctrl-C to stop)"


@pytest.mark.slow
def test_serve_on_a_terminal_says_it_waits_for_a_client(tmp_path: Path, home: Path) -> None:
    pytest.importorskip("mcp")
    root = tmp_path / "skills"
    make_skill(root, "alpha")
    main, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 80, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_skills", "serve", "--preset", "none", "--root", str(root)],
        stdin=secondary,
        stdout=subprocess.DEVNULL,
        stderr=secondary,
        env={**{k: v for k, v in os.environ.items() if k != "COLUMNS"}, "HOME": str(home)},
    )
    os.close(secondary)
    try:
        seen = b""
        deadline = time.monotonic() + 60
        while b"\n" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 1)
            if ready:
                seen += os.read(main, 4096)
        assert seen.decode().replace("\r\n", "\n") == WAITING + "\n"
        # Ctrl-C once the server answers is tests/cli/test_serve.py's (exit 130, the same line).
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)


@pytest.mark.slow
def test_serve_with_a_pipe_on_stdin_prints_nothing(tmp_path: Path, home: Path) -> None:
    pytest.importorskip("mcp")
    root = tmp_path / "skills"
    make_skill(root, "alpha")
    done = subprocess.run(
        [sys.executable, "-m", "agent_skills", "serve", "--preset", "none", "--root", str(root)],
        input="",  # a client that closes at once
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)},
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


# --- where shows every skill name at 80 columns -------------------------------------------------

NAMES = ["api-review", "code-review", "commit-message", "csv-profiler", "pdf-tools"]


def test_where_wraps_the_skill_names_at_80_columns(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "project"
    (ws / ".git").mkdir(parents=True)
    for name in NAMES:
        make_skill(home / ".agents" / "skills", name)
        make_skill(home / ".myagent" / "skills", f"{name}-unread-copy")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    out = run_in_terminal(["where"], {**env, "HOME": str(home)}, ws, 80)
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines[2:])
    at = lines.index("agents       ~/.agents/skills            user       5 skills: api-review,")
    assert lines[at + 1 : at + 3] == [
        "                                                    code-review, commit-message,",
        "                                                    csv-profiler, pdf-tools",
    ]
    tail = lines[
        lines.index("Skills in folders no client reads (move or link them into one above):") :
    ]
    assert tail[1:] == [
        "  ~/.myagent/skills (user): 5 skills: api-review-unread-copy,",
        "    code-review-unread-copy, commit-message-unread-copy,",
        "    csv-profiler-unread-copy, pdf-tools-unread-copy",
    ]


# --- --help fits 80 columns and says what each command's options do ----------------------------

ALL_COMMANDS = sorted(COMMANDS)


@pytest.mark.parametrize(
    "command", [[], *([c] for c in ALL_COMMANDS)], ids=["group", *ALL_COMMANDS]
)
def test_help_fits_80_columns(run: Any, command: list[str]) -> None:
    result = run(*command, "--help", env={"COLUMNS": "80"})
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    # click breaks words at hyphens: the program's name is never cut in two.
    assert [line for line in lines if line.rstrip().endswith("agent-")] == []


def test_the_command_summaries_are_never_cut(run: Any) -> None:
    lines = run("--help", env={"COLUMNS": "80"}).stdout.splitlines()
    summaries = lines[lines.index("Commands:") + 1 :]
    assert [line.split()[0] for line in summaries] == ALL_COMMANDS
    assert [line for line in summaries if line.endswith("...")] == []


def _option_help(run: Any, command: str) -> dict[str, str]:
    """``{option: its help, joined}`` of one command's --help at 100 columns."""
    lines = run(command, "--help", env={"COLUMNS": "100"}).stdout.splitlines()
    options: dict[str, str] = {}
    current = None
    for line in lines[lines.index("Options:") + 1 :]:
        if line.startswith("  -"):
            first, *text = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            current = first.split()[0]
            options[current] = text[0] if text else ""
        elif current is not None:
            options[current] += " " + line.strip()
    return {k: re.sub(r"\s+", " ", v).strip() for k, v in options.items()}


def test_add_update_and_remove_each_say_what_their_options_do(run: Any) -> None:
    add, update, remove = (_option_help(run, c) for c in ("add", "update", "remove"))
    assert add["--to"].startswith("Install into project: <workspace>/.agents/skills, or user:")
    assert update["--to"].startswith("Update the skills installed in project:")
    assert remove["--to"].startswith("Remove from project: <workspace>/.agents/skills, or user:")
    assert add["--client"].startswith("Install into this client's highest-precedence root")
    assert update["--client"].startswith("Update the skills installed in this client's")
    assert remove["--client"].startswith("Remove from this client's highest-precedence root")
    assert add["--force"] == "Replace skills already installed."
    assert update["--force"] == (
        "Re-install a skill even over its local edits (files changed or added since)."
    )
    assert remove["--force"] == (
        "Delete the skill even with local edits, or when the lock does not show it installed "
        "(a link is removed, never followed)."
    )
