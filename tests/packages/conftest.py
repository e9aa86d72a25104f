"""Fixtures of the package tests: a home and a workspace, and the command line run in it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from conftest import invoke_cli


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Path]:
    """``home`` (``~``), ``ws`` (a workspace: the nearest ``.git``, SPEC §21.2) and ``tmp``."""
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    home.mkdir()
    (ws / ".git").mkdir(parents=True)
    return {"home": home, "ws": ws, "tmp": tmp_path}


@pytest.fixture
def run(env: dict[str, Path]) -> Callable[..., Result]:
    """Invoke the CLI in ``ws`` (or ``cwd``) with ``env["home"]`` as the home, ``extra_env``
    added."""

    def invoke(
        *args: str, cwd: Path | None = None, extra_env: dict[str, str] | None = None
    ) -> Result:
        return invoke_cli(args, cwd=cwd or env["ws"], home=env["home"], env=extra_env)

    return invoke
