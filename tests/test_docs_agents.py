"""The code of ``docs/agents.md`` runs as it is written there.

Blocks marked ``<!-- tested: NAME -->`` are taken from the page and run: the host's own dispatch
(``answer`` and ``read_file``) against what a model asks for (a missing project file, a
directory, a FIFO, a link, a refused path, malformed arguments), and the watch loop in a real
process that a change reaches and Ctrl-C stops.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_skills import create_agent_skills
from agent_skills.agent import SkillSession
from conftest import SRC, make_skill, src_on_path

PAGE = SRC.parent / "docs" / "agents.md"
WAIT = 15.0  # seconds: the most a test waits for one event (the machine is shared)


def blocks(name: str) -> str:
    """The Python blocks of the page marked ``<!-- tested: name -->``, joined."""
    text = PAGE.read_text(encoding="utf-8")
    found = re.findall(
        rf"<!-- tested: {re.escape(name)} -->\n```python\n(.*?)```", text, flags=re.DOTALL
    )
    assert found, f"no block marked {name!r} in {PAGE}"
    return "\n".join(found)


@pytest.fixture
def host(tmp_path: Path) -> tuple[Callable[[str, str], tuple[bool, str]], Path, Path]:
    """The page's ``answer`` with its session: the project and the skill's directory."""
    root = tmp_path / "skills"
    skill = make_skill(
        root, "docs", files={"references/checklist.md": "check\n", "assets/big.txt": "x" * 64}
    )
    make_skill(root, "other")
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "notes.md").write_text("project notes\n")
    os.mkfifo(project / "pipe")
    (project / "escape.md").symlink_to(root / "other" / "SKILL.md")
    (project / "inside.md").symlink_to(project / "notes.md")
    session = SkillSession(create_agent_skills([root]), project_root=project, max_read_bytes=32)
    namespace: dict[str, Any] = {"session": session}
    exec(compile(blocks("host-dispatch"), str(PAGE), "exec"), namespace)
    return namespace["answer"], project, skill


def _call(answer: Callable[[str, str], tuple[bool, str]], tool: str, **args: Any) -> Any:
    return answer(tool, json.dumps(args))


def test_the_page_s_dispatch_answers_every_file_the_model_asks_for(host: Any) -> None:
    answer, project, skill = host
    assert _call(answer, "read_file", path="notes.md") == (True, "project notes\n")
    assert _call(answer, "read_file", path="missing.md") == (
        False,
        "not_found: no such file: missing.md",
    )
    assert _call(answer, "read_file", path="src") == (False, "not_a_file: src")
    assert _call(answer, "read_file", path=str(project)) == (False, f"not_a_file: {project}")
    started = time.monotonic()
    assert _call(answer, "read_file", path="pipe") == (False, "not_a_file: pipe")  # no hang
    assert time.monotonic() - started < WAIT
    assert _call(answer, "read_file", path="/etc/passwd") == (
        False,
        "access_denied: Access denied: /etc/passwd is outside the readable roots",
    )
    assert _call(answer, "read_file", path="escape.md") == (
        False,
        "access_denied: Access denied: escape.md is outside the readable roots",
    )
    assert _call(answer, "read_file", path="inside.md") == (True, "project notes\n")
    assert _call(answer, "read_file", path="") == (
        False,
        "invalid_input: path must not be empty",
    )
    assert _call(answer, "read_file") == (
        False,
        "invalid_input: path must be a str or os.PathLike[str], got NoneType",
    )
    # A skill's files, once it is active.
    checklist = str(skill / "references" / "checklist.md")
    assert _call(answer, "read_file", path=checklist)[0] is False
    ok, content = _call(answer, "activate_skill", name="docs")
    assert ok and content.startswith('<skill_content name="docs">')
    assert _call(answer, "read_file", path=checklist) == (True, "check\n")
    assert _call(answer, "read_file", path=str(skill / "assets" / "big.txt")) == (
        False,
        f"too_large: {skill / 'assets' / 'big.txt'} is over 32 bytes",
    )
    assert _call(answer, "read_skill_resource", name="docs", path="checklist.md") == (
        True,
        "check\n",
    )


def test_the_page_s_dispatch_answers_malformed_calls(host: Any) -> None:
    answer = host[0]
    ok, text = answer("read_file", "{not json")
    assert (ok, text.split(":")[0]) == (False, "invalid_input")
    assert text.startswith("invalid_input: arguments are not valid JSON: ")
    assert answer("read_file", "[1, 2]") == (
        False,
        "invalid_input: arguments must be a JSON object",
    )
    assert _call(answer, "run_script", path="x") == (
        False,
        "invalid_input: unknown tool 'run_script'",
    )
    assert _call(answer, "activate_skill", name="nope") == (
        False,
        "not_found: No such skill: nope",
    )
    assert _call(answer, "read_skill_resource", name="other", path="SKILL.md") == (
        False,
        "access_denied: Skill 'other' is not active in this conversation; call activate_skill "
        "first",
    )


@pytest.mark.slow
def test_the_page_s_watch_loop_runs_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    pytest.importorskip("watchfiles")
    make_skill(tmp_path / "skills", "alpha", files={"references/guide.md": "one\n"})
    script = tmp_path / "watch.py"
    script.write_text(blocks("watch"), encoding="utf-8")
    env = {
        **os.environ,
        **src_on_path(),
        "PYTHONUNBUFFERED": "1",
    }
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    stdout = proc.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
    try:
        # The watcher starts with the script: change a file until the loop reports it.
        guide = tmp_path / "skills" / "alpha" / "references" / "guide.md"
        deadline = time.monotonic() + 3 * WAIT
        line = None
        version = 0
        while line is None and time.monotonic() < deadline:
            version += 1
            guide.write_text(f"version {version}\n")
            try:
                line = lines.get(timeout=1.0)
            except queue.Empty:
                continue
        assert line == "added () removed () changed ('alpha',)\n"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(WAIT) == 0
        assert time.monotonic() - sent < 2.0
        assert proc.stderr is not None and proc.stderr.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
