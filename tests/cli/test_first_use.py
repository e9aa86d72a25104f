"""What a new user meets on a first run of the command line: one finding of a trial per test,
each through click's runner or a subprocess, asserting the exact output and exit code."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agent_skills.cli import cli
from conftest import make_skill


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def run(home: Path, tmp_path: Path) -> Any:
    """Invoke the CLI with an isolated home directory and working directory."""
    work = tmp_path / "work"
    work.mkdir()

    def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
        old = os.getcwd()
        os.chdir(work)
        try:
            return CliRunner().invoke(
                cli, list(args), env={"HOME": str(home), **(env or {})}, catch_exceptions=False
            )
        finally:
            os.chdir(old)

    invoke.work = work  # type: ignore[attr-defined]
    return invoke


# --- a shadowed skill is ordinary precedence -------------------------------------------------


@pytest.fixture
def shadowing(tmp_path: Path) -> list[str]:
    """A user copy of ``csv-profiler`` overridden by a project copy, as roots of a command."""
    low, high = tmp_path / "user", tmp_path / "project"
    make_skill(low, "csv-profiler", frontmatter={"name": "csv-profiler", "description": "Old."})
    make_skill(high, "csv-profiler", frontmatter={"name": "csv-profiler", "description": "New."})
    return ["--preset", "none", "--root", str(low), "--root", str(high)]


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["list", "--json"],
        ["show", "csv-profiler"],
        ["show", "csv-profiler", "--json"],
        ["catalog"],
        ["grants"],
        ["report", "--json"],
    ],
)
def test_a_shadowed_copy_prints_nothing_on_stderr(
    run: Any, shadowing: list[str], args: list[str]
) -> None:
    result = run(*args, *shadowing)
    assert (result.exit_code, result.stderr) == (0, "")


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
