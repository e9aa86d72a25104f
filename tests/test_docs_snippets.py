"""Code of the docs that a reader runs or copies: ``docs/grants.md``'s "From Python" runs as
written on the bundled examples, and every name of ``docs/agents.md``'s loop skeleton that the
page does not define is one it tells the reader to fill."""

from __future__ import annotations

import ast
import builtins
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import agent_skills

REPO = Path(agent_skills.__file__).resolve().parents[2]


def python_blocks(page: Path, section: str) -> list[str]:
    """The ```python blocks of the ``## section`` of ``page``, up to the next ``## ``."""
    text = page.read_text(encoding="utf-8")
    start = text.index(f"## {section}\n")
    end = text.find("\n## ", start + 1)
    part = text[start : end if end != -1 else len(text)]
    return re.findall(r"```python\n(.*?)```", part, flags=re.DOTALL)


def test_the_grants_page_from_python_runs_on_the_bundled_examples(tmp_path: Path) -> None:
    shutil.copytree(REPO / "examples" / "skills", tmp_path / "examples" / "skills")
    code = "\n".join(python_blocks(REPO / "docs" / "grants.md", "From Python"))
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path / "home")},
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, "")
    names = sorted(p.name for p in (tmp_path / "examples" / "skills").iterdir())
    skills = (tmp_path / "examples" / "skills").resolve()
    assert [line.split(" = ")[0] for line in done.stdout.splitlines() if " = " in line][2:] == [
        f'"{skills / name}"' for name in names
    ]
    settings = json.loads((tmp_path / ".claude" / "settings.local.json").read_text())
    assert settings["permissions"]["allow"] == [f"Read(/{skills / name}/**)" for name in names]


def _undefined(code: str) -> set[str]:
    """The names ``code`` reads that it never binds (nor are built in)."""
    tree = ast.parse(code)
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return read - bound - set(dir(builtins))


def test_the_loop_skeleton_names_what_is_the_readers_to_fill() -> None:
    [code] = python_blocks(REPO / "docs" / "agents.md", "The whole loop in a dozen lines")
    marked = re.search(r"# Yours to fill: (.*?) \(", code)
    assert marked is not None
    assert _undefined(code) == {"MY_INSTRUCTIONS", "client", "MODEL", "messages"}
    assert set(marked.group(1).split(", ")) == _undefined(code)
