"""The CLI as a new user meets it: install hints that work, parsable stderr under ``--json``,
coded warnings, validate on a project, serve's address and verify without a lock (SPEC §16,
§21.11, §21.12)."""

from __future__ import annotations

import json
import os
import re
import select
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agent_skills.cli import cli
from conftest import REPO, make_skill
from terminal_support import run_in_terminal

# The package is installed from a checkout or from git (README "Install"): a bare distribution
# name, which pip would look up on an index where it is not published, is never suggested.
BARE_INSTALL = re.compile(r"pip install '?clarvis-agent-skills")


def test_install_hints_never_name_a_published_package() -> None:
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    files += sorted((REPO / "src" / "agent_skills").rglob("*.py"))
    offenders = [
        f"{path.relative_to(REPO)}: {line.strip()}"
        for path in files
        for line in path.read_text(encoding="utf-8").splitlines()
        if (BARE_INSTALL.search(line) and "@ git+" not in line)
        or "install clarvis-agent-skills[" in line
    ]
    assert offenders == []


@pytest.mark.slow
def test_serve_http_says_where_it_listens(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    pytest.importorskip("uvicorn")
    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    make_skill(tmp_path / "skills", "alpha")
    env = {**os.environ, "HOME": str(tmp_path)}
    args = ["serve", "--http", "--port", str(port), "--preset", "none"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_skills", *args, "--root", str(tmp_path / "skills")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 30)  # bounded: never hangs
        line = proc.stderr.readline().decode() if ready else ""  # printed once it is bound
        assert line == f"listening on http://127.0.0.1:{port}/mcp\n"
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass  # and it does listen there
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# --- one format for warnings; stderr under --json is one JSON object -----------------------


@pytest.fixture
def broken_store(tmp_path: Path) -> Path:
    """A root with one good skill and four that are skipped with a warning."""
    root = tmp_path / "skills"
    make_skill(root, "pdftools-base")
    for n in range(4):
        make_skill(root, f"broken-{n}", raw=b"---\nname: [unclosed\n---\nbody\n")
    return root


def _run(*args: str, home: Path) -> Result:
    return CliRunner().invoke(cli, list(args), env={"HOME": str(home)}, catch_exceptions=False)


def test_a_failure_under_json_is_one_object_with_the_warnings(
    broken_store: Path, tmp_path: Path
) -> None:
    roots = ["--preset", "none", "--root", str(broken_store)]
    result = _run("show", "pdftools", "--json", *roots, home=tmp_path)
    assert result.exit_code == 1
    assert result.stdout == ""
    data = json.loads(result.stderr)  # the whole of stderr is one object
    assert data["error"]["code"] == "not_found"
    assert data["error"]["fields"]["suggestions"] == ["pdftools-base"]
    assert [w["code"] for w in data["warnings"]] == ["invalid_skill"] * 4
    assert all(w["message"].startswith("skipping ") for w in data["warnings"])


def test_a_success_under_json_puts_the_warnings_in_one_object(
    broken_store: Path, tmp_path: Path
) -> None:
    roots = ["--preset", "none", "--root", str(broken_store), "--root", str(tmp_path / "nope")]
    result = _run("list", "--json", *roots, home=tmp_path)
    assert result.exit_code == 0
    assert [s["name"] for s in json.loads(result.stdout)] == ["pdftools-base"]
    codes = [w["code"] for w in json.loads(result.stderr)["warnings"]]
    assert codes == ["invalid_skill"] * 4 + ["root_missing"]
    clean = _run("list", "--json", "--preset", "none", "--root", str(tmp_path / "x"), home=tmp_path)
    assert (
        clean.stderr
        == '{"warnings": [{"code": "root_missing", "message": "--root '
        + str(tmp_path / "x")
        + ': root does not exist"}]}\n'
    )


def test_warnings_carry_their_code_in_list_and_report_alike(
    broken_store: Path, tmp_path: Path
) -> None:
    roots = ["--preset", "none", "--root", str(broken_store)]
    listed = _run("list", *roots, home=tmp_path).stderr.splitlines()
    reported = [
        line
        for line in _run("report", *roots, home=tmp_path).stdout.splitlines()
        if line.startswith("warning: ")
    ]
    assert len(listed) == 4
    assert all(line.startswith("warning: invalid_skill: skipping ") for line in listed)
    assert listed == reported  # the same lines, code included, in both commands


# --- validate on a directory that holds skills ------------------------------------------------


def test_validate_a_project_checks_the_skills_it_holds(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    make_skill(project / ".agents" / "skills", "shared-checks")
    make_skill(project / ".claude" / "skills", "claude-lint")
    make_skill(project / "examples" / "skills", "example-one")  # two levels down
    make_skill(project / "node_modules" / "pkg", "not-searched")
    bad = make_skill(project / "skills", "broken-one", raw=b"---\nname: Broken_One\n---\nbody\n")
    old = os.getcwd()
    os.chdir(project)
    try:
        result = _run("validate", "--json", ".", home=tmp_path)
        text = _run("validate", ".", home=tmp_path)
    finally:
        os.chdir(old)
    checked = {Path(item["path"]).name: item["problems"] for item in json.loads(result.stdout)}
    assert sorted(checked) == ["broken-one", "claude-lint", "example-one", "shared-checks"]
    assert checked["shared-checks"] == checked["claude-lint"] == checked["example-one"] == []
    assert "name_uppercase" in {p["code"] for p in checked["broken-one"]}
    assert result.exit_code == 1  # the broken skill's errors
    assert text.stderr.startswith("4 skill(s) checked: ")
    assert str(bad.relative_to(project)) in text.stdout


def test_validate_a_directory_holding_no_skill_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "docs").mkdir(parents=True)
    result = _run("validate", str(empty), home=tmp_path)
    assert result.exit_code == 1
    assert result.stdout == (
        f"{empty}: error manifest_missing no skill found in {empty}: it has no SKILL.md, and "
        "none below it (down to 3 levels) nor in .agent/skills, .agents/skills, .clarvis/skills, "
        ".claude/skills, .codex/skills, .cursor/skills, .gemini/skills, .github/skills, "
        ".goose/skills, .opencode/skills, .windsurf/skills\n"
    )


# --- tables in a real terminal with the longest valid names (SPEC §21.12) --------------------

LONG_NAMES = ["a" * 20 + "-long-skill-name-" + "b" * 27, "c" * 30 + "-" + "d" * 33]


@pytest.fixture
def long_project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    for name in LONG_NAMES:
        make_skill(project / ".agents" / "skills", name)
    make_skill(project / ".agents" / "skills", "short")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env.update(HOME=str(tmp_path / "home"), TERM="xterm-256color")
    return project, env


def _whole(text: str, lines: list[str], columns: int) -> bool:
    """``text`` on one line, or (when longer than a line) folded over consecutive lines."""
    if any(text in line for line in lines):
        return True
    pieces = [line.strip() for line in lines]
    return any(text in "".join(pieces[i : i + 3]) for i in range(len(pieces)))


@pytest.mark.parametrize("command", ["list", "report"])
@pytest.mark.parametrize("columns", [60, 80, 120])
def test_tables_with_64_character_names_fit_the_terminal(
    long_project: tuple[Path, dict[str, str]], command: str, columns: int
) -> None:
    assert all(len(name) == 64 for name in LONG_NAMES)
    project, env = long_project
    out = run_in_terminal([command], env, project, columns)
    lines = out.splitlines()
    assert lines and all(len(line) <= columns for line in lines), out
    for name in [*LONG_NAMES, "short"]:
        assert _whole(name, lines, columns), (name, out)
        if len(name) < columns - 8:  # fits beside the status: never broken
            assert any(name in line for line in lines), (name, out)
    if command == "report":
        for name in LONG_NAMES:  # paths are whole too (folded only when wider than a line)
            assert _whole(str(project / ".agents" / "skills" / name), lines, columns), out
    else:
        header = " ".join(lines[:2]).split()
        assert [w for w in header if w.isupper()] == [
            "NAME",
            "SCOPE",
            "SOURCE",
            "INVOCATION",
            "SHADOWS",
            "DESCRIPTION",
        ]
