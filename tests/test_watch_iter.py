"""``for changes in skills.watch(): ...`` (SPEC §23.1): a watcher yields what each refresh
changed, in order, on the thread that iterates; stopping it ends the loop and leaving the loop
stops it. ``examples/watch_skills.py`` runs as a user runs it and stops cleanly on Ctrl-C. Every
wait is bounded; every test ends with no watcher thread left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("watchfiles")

import agent_skills
from agent_skills import SkillChanges, create_agent_skills
from agent_skills.agent import SkillSession
from conftest import make_skill

REPO = Path(agent_skills.__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "watch_skills.py"
WAIT = 15.0  # seconds: the most a test waits for one event (the machine is shared)


def _watch_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "agent-skills-watch" and t.is_alive()]


@pytest.fixture(autouse=True)
def no_thread_left() -> Iterator[None]:
    yield
    deadline = time.monotonic() + WAIT
    while _watch_threads() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _watch_threads() == []


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    make_skill(root, "alpha", files={"references/guide.md": "one\n"})
    return root


def test_a_loop_yields_each_change_in_order_and_break_stops_the_watcher(
    root: Path, tmp_path: Path
) -> None:
    skills = create_agent_skills([root])
    watcher = skills.watch(debounce_ms=50)
    staging = tmp_path / "staging"
    make_skill(staging, "beta")
    seen: list[SkillChanges] = []
    started = time.monotonic()
    os.rename(staging / "beta", root / "beta")
    for changes in watcher:
        seen.append(changes)
        if len(seen) == 1:
            (root / "alpha" / "references" / "guide.md").write_text("two\n")
        else:
            break
        assert time.monotonic() - started < 2 * WAIT
    assert seen == [SkillChanges(added=("beta",)), SkillChanges(changed=("alpha",))]
    assert watcher.running is False
    assert [info.name for info in skills.list_skills()] == ["alpha", "beta"]


def test_stop_from_another_thread_ends_the_loop(root: Path) -> None:
    watcher = create_agent_skills([root]).watch(debounce_ms=50)
    stopper = threading.Timer(0.3, watcher.stop)
    stopper.start()
    started = time.monotonic()
    assert list(watcher) == []
    assert time.monotonic() - started < WAIT
    assert watcher.running is False
    # A stopped watcher yields nothing more and ends at once.
    assert list(watcher) == []


def test_an_exception_in_the_loop_stops_the_watcher(root: Path) -> None:
    watcher = create_agent_skills([root]).watch(debounce_ms=50)
    (root / "alpha" / "SKILL.md").write_text("---\nname: alpha\ndescription: New.\n---\nB.\n")
    with pytest.raises(KeyboardInterrupt):
        for _changes in watcher:
            raise KeyboardInterrupt  # what Ctrl-C raises in the loop's body
    assert watcher.running is False


def test_the_callback_and_the_loop_both_see_the_changes(root: Path) -> None:
    got: list[SkillChanges] = []
    skills = create_agent_skills([root])
    with skills.watch(got.append, debounce_ms=50) as watcher:
        iterator = iter(watcher)  # from the first iteration on, changes are kept for the loop
        (root / "alpha" / "references" / "guide.md").write_text("two\n")
        assert next(iterator) == SkillChanges(changed=("alpha",))
        assert got == [SkillChanges(changed=("alpha",))]
        iterator.close()  # leaving the loop
        assert watcher.running is False


def _example(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(EXAMPLE), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    result: list[str] = []
    reader = threading.Thread(target=lambda: result.append(proc.stdout.readline()))  # type: ignore[union-attr]
    reader.start()
    reader.join(WAIT * 2)
    assert result, "no output in time"
    return result[0]


@pytest.mark.slow
def test_the_example_reports_a_change_and_stops_after_count(root: Path, tmp_path: Path) -> None:
    proc = _example("--root", str(root), "--count", "1")
    try:
        assert _line(proc) == f"watching 1 skills in {root}; Ctrl-C stops\n"
        make_skill(tmp_path / "staging", "beta")
        os.rename(tmp_path / "staging" / "beta", root / "beta")
        assert _line(proc) == "added ['beta'], removed [], changed []; now 2 skills\n"
        catalog = SkillSession(create_agent_skills([root])).catalog_prompt()
        assert _line(proc) == (
            f"catalog: {len(catalog)} characters; tools: ['activate_skill', "
            "'read_skill_resource']\n"
        )
        assert proc.wait(WAIT) == 0
        assert proc.stderr is not None and proc.stderr.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow
def test_the_example_stops_cleanly_on_ctrl_c(root: Path) -> None:
    proc = _example("--root", str(root))
    try:
        assert _line(proc).startswith("watching 1 skills in ")
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(WAIT) == 130
        assert time.monotonic() - sent < 2.0
        assert proc.stderr is not None and proc.stderr.read() == "stopped\n"
    finally:
        if proc.poll() is None:
            proc.kill()
