"""``python -m agent_skills.mcp`` and ``agent-skills serve`` as a user runs them, with and without
the MCP extra: an answer and an exit status, never a traceback; without the SDK, the command to
run names this very interpreter (``sys.executable``: in a virtual environment that is not
activated, ``python3`` is another one).

"Without the extra" is real: the interpreter runs without its site (``-S``) on a copy of this
environment's packages made of links to every one of them but the SDK (``mcp``, ``mcp_types``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import SRC, make_skill

pytestmark = pytest.mark.slow  # every test starts an interpreter

HINT = (
    f"install it with: {sys.executable} -m pip install 'mcp>=2.3,<3' "
    "(or, from a checkout: pip install '.[mcp]')"
)


@pytest.fixture(scope="module")
def without_sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of links to every installed package but the MCP SDK."""
    site = Path(sysconfig.get_paths()["purelib"])
    folder = tmp_path_factory.mktemp("site-without-mcp")
    for entry in site.iterdir():
        name = entry.name
        if name.split(".")[0].split("-")[0] in ("mcp", "mcp_types") or name.endswith(".pth"):
            continue
        (folder / name).symlink_to(entry)
    return folder


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    skills = tmp_path_factory.mktemp("program") / "skills"
    make_skill(skills, "alpha")
    return skills


def _run(
    args: list[str], path: list[Path], *, site: bool = True
) -> subprocess.CompletedProcess[str]:
    flags = [] if site else ["-S"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in path)}
    return subprocess.run(
        [sys.executable, *flags, *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def test_the_copy_really_lacks_the_sdk(without_sdk: Path) -> None:
    proc = _run(["-c", "import mcp"], [without_sdk, SRC], site=False)
    assert proc.returncode == 1
    assert "ModuleNotFoundError: No module named 'mcp'" in proc.stderr
    ok = _run(["-c", "import click, yaml, pydantic, agent_skills"], [without_sdk, SRC], site=False)
    assert (ok.returncode, ok.stderr) == (0, "")


@pytest.mark.parametrize(
    "program", [["-m", "agent_skills.mcp"], ["-m", "agent_skills", "serve"]], ids=["mcp", "serve"]
)
def test_without_the_sdk_it_says_what_to_install(
    without_sdk: Path, root: Path, program: list[str]
) -> None:
    proc = _run([*program, "--preset", "none", "--root", str(root)], [without_sdk, SRC], site=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"mcp_unavailable: the MCP server needs the 'mcp' extra; {HINT}\n"


def test_without_the_sdk_help_and_bad_arguments_still_answer(without_sdk: Path) -> None:
    path = [without_sdk, SRC]
    helped = _run(["-m", "agent_skills.mcp", "--help"], path, site=False)
    assert (helped.returncode, helped.stderr) == (0, "")
    assert helped.stdout.startswith("Usage: agent-skills serve [OPTIONS]\n")
    bad = _run(["-m", "agent_skills.mcp", "--no-such-option"], path, site=False)
    assert bad.returncode == 2
    assert bad.stderr.endswith("Error: No such option '--no-such-option'.\n")
    assert "Traceback" not in bad.stderr
    # A library user taking a name of the server gets an ImportError that names the SDK.
    library = _run(["-c", "from agent_skills.mcp import SkillServer"], path, site=False)
    assert library.returncode == 1
    assert re.fullmatch(
        r"ModuleNotFoundError: No module named 'mcp(_types)?'", library.stderr.splitlines()[-1]
    )


@pytest.mark.parametrize(
    ("args", "status", "stderr_end"),
    [
        (["--no-such-option"], 2, "Error: No such option '--no-such-option'.\n"),
        (["--port", "0"], 2, "is not in the range 1<=x<=65535.\n"),
        (["--stateless"], 2, "usage_error: --stateless and --host apply to --http only\n"),
        (["--workspace", "/no/such"], 2, "startup_error: Workspace does not exist: /no/such\n"),
        (
            ["--root", "/no/such", "--strict"],
            2,
            "usage_error: --root /no/such: root does not exist\n",
        ),
    ],
)
def test_with_the_sdk_bad_arguments_are_answered(
    root: Path, args: list[str], status: int, stderr_end: str
) -> None:
    pytest.importorskip("mcp")
    proc = _run(["-m", "agent_skills.mcp", "--preset", "none", "--root", str(root), *args], [SRC])
    assert (proc.returncode, proc.stdout) == (status, "")
    assert proc.stderr.endswith(stderr_end), proc.stderr
    assert "Traceback" not in proc.stderr
    assert "RuntimeWarning" not in proc.stderr  # runpy's: __main__ imported twice


def test_with_the_sdk_it_serves(root: Path) -> None:
    pytest.importorskip("mcp")
    # stdin is /dev/null: the client has gone before it asked anything; the server ends cleanly.
    proc = _run(["-m", "agent_skills.mcp", "--preset", "none", "--root", str(root)], [SRC])
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
