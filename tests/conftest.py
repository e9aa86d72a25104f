"""Shared fixtures: one small builder for skill trees, the location of the shared corpus, the
command line run in a folder with its own home, and git."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml

import agent_skills
from agent_skills import SkillError

if TYPE_CHECKING:
    from click.testing import Result

#: The repository's top folder.
REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
#: The folder the imported ``agent_skills`` package stands in.
SRC = Path(agent_skills.__file__).resolve().parents[1]

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not on PATH")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def core_loaded(text: str) -> Any:
    """``text`` read by the library's YAML 1.2 loader (``_yaml12.Core12Loader``): what the simple
    frontmatter reading must equal."""
    from agent_skills._yaml12 import Core12Loader

    loader = Core12Loader(text)
    try:
        return loader.load_single()
    finally:
        loader.dispose()


def make_skill(
    root: Path,
    dirname: str,
    *,
    frontmatter: Mapping[str, Any] | None = None,
    body: str = "Instructions.",
    files: Mapping[str, str | bytes] | None = None,
    raw: str | bytes | None = None,
    manifest: str = "SKILL.md",
) -> Path:
    """Create ``root/dirname`` holding a manifest and files; return the skill directory.

    Args:
        root: The root directory (created if missing).
        dirname: The skill's directory name.
        frontmatter: Mapping dumped as YAML; defaults to ``name=dirname`` and a description.
        body: Markdown after the frontmatter.
        files: ``{rel: content}`` extra files (parents created).
        raw: Exact manifest content, used instead of ``frontmatter`` and ``body``.
        manifest: The manifest's file name.
    """
    skill_dir = root / dirname
    skill_dir.mkdir(parents=True, exist_ok=True)
    if raw is None:
        fm = (
            dict(frontmatter)
            if frontmatter is not None
            else {"name": dirname, "description": f"The {dirname} skill."}
        )
        text = "---\n" + yaml.safe_dump(fm, sort_keys=False, allow_unicode=True) + "---\n" + body
        raw = text
    target = skill_dir / manifest
    if isinstance(raw, bytes):
        target.write_bytes(raw)
    else:
        target.write_text(raw, encoding="utf-8", newline="")
    for rel, content in (files or {}).items():
        path = skill_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return skill_dir


def symlink(link: Path, target: str | os.PathLike[str]) -> Path:
    """Create ``link -> target`` (parents created); return ``link``."""
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)
    return link


def skill_error(fn: Callable[..., object], *args: Any) -> SkillError:
    """The SkillError ``fn(*args)`` must raise."""
    with pytest.raises(SkillError) as info:
        fn(*args)
    return info.value


def code_and_fields(call: Callable[[], object]) -> tuple[str, dict[str, Any]]:
    """The ``(code, fields)`` of the SkillError ``call()`` must raise."""
    error = skill_error(call)
    return error.code.value, error.fields


def caught_code_and_fields(info: pytest.ExceptionInfo[SkillError]) -> tuple[str, dict[str, Any]]:
    """The ``(code, fields)`` of a SkillError caught by ``pytest.raises``."""
    return info.value.code.value, info.value.fields


def run_example(
    script: Path, *args: str, cwd: Path, env: Mapping[str, str] | None = None
) -> list[str]:
    """Run an example ``script`` with ``args`` in ``cwd`` (``env`` as its whole environment,
    or this one); it must exit 0 with nothing on stderr. Returns its output lines."""
    proc = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    return proc.stdout.splitlines()


def src_on_path() -> dict[str, str]:
    """``PYTHONPATH`` for a child process: ``SRC`` first, then the current ``PYTHONPATH``."""
    return {"PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}


def ends_within(
    fn: Callable[[], Any],
    seconds: float,
    *,
    returned: type[BaseException] | tuple[type[BaseException], ...] = (),
) -> Any:
    """Run ``fn`` on a thread; return its value, or the exception of a ``returned`` type it
    raised. Any other exception is raised again; a ``fn`` still running after ``seconds``
    fails the test instead of hanging the suite."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = fn()
        except returned as err:
            out["value"] = err
        except BaseException as exc:  # handed back to the test
            out["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def invoke_cli(
    args: Sequence[str], *, cwd: Path, home: Path, env: Mapping[str, str] | None = None
) -> Result:
    """Run the CLI through click's runner in ``cwd``, with ``HOME`` set to ``home`` and ``env``
    added; exceptions propagate. The working directory is restored afterwards."""
    from click.testing import CliRunner

    from agent_skills.cli import cli

    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(
            cli, list(args), env={"HOME": str(home), **(env or {})}, catch_exceptions=False
        )
    finally:
        os.chdir(old)


def git(*args: str, cwd: Path) -> str:
    """Run git in ``cwd`` with a fixed author; return its stripped standard output."""
    done = subprocess.run(
        [GIT or "git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def warn_messages() -> Iterator[list[str]]:
    """Capture warn-sink messages for the duration of a test."""
    seen: list[str] = []
    agent_skills.set_warn_sink(seen.append)
    try:
        yield seen
    finally:
        agent_skills.set_warn_sink(None)


@pytest.fixture
def corpus() -> Path:
    """The shared corpus directory; the test is skipped when it is absent."""
    if not (CORPUS / "ROOTS.txt").is_file():
        pytest.skip("shared corpus not available")
    return CORPUS
