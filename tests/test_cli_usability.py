"""The CLI as a new user meets it: install hints that work, parsable stderr under ``--json``,
coded warnings, validate on a project, serve's address and verify without a lock (SPEC §16,
§21.11, §21.12)."""

from __future__ import annotations

import os
import re
import select
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import make_skill

REPO = Path(__file__).resolve().parent.parent

# The package is installed from a checkout or from git (README "Install"): a bare distribution
# name, which pip would look up on an index where it is not published, is never suggested.
BARE_INSTALL = re.compile(r"pip install '?clarvis-agent-skills")


def test_install_hints_never_name_a_published_package() -> None:
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    files += sorted((REPO / "src" / "agent_skills").glob("*.py"))
    offenders = [
        f"{path.relative_to(REPO)}: {line.strip()}"
        for path in files
        for line in path.read_text(encoding="utf-8").splitlines()
        if (BARE_INSTALL.search(line) and "@ git+" not in line)
        or "install clarvis-agent-skills[" in line
    ]
    assert offenders == []


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
