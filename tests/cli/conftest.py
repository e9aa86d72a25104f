"""Fixtures of the command-line tests: an isolated home, and the CLI run in a work folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from conftest import invoke_cli


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def run(home: Path, tmp_path: Path) -> Any:
    """Invoke the CLI with an isolated home directory and working directory (``run.work``),
    ``env`` added to the environment."""
    work = tmp_path / "work"
    work.mkdir()

    def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
        return invoke_cli(args, cwd=work, home=home, env=env)

    invoke.work = work  # type: ignore[attr-defined]
    return invoke
