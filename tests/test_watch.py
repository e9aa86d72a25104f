"""Watching skill roots (SPEC §23.1), driven by real file changes with bounded waits."""

from __future__ import annotations

import os
import queue
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("watchfiles")

from agent_skills import (
    AgentSkills,
    SkillChanges,
    SkillRoot,
    StartupError,
    TrustStore,
    create_agent_skills,
)
from agent_skills._watch import _ignored
from conftest import make_skill

# Watchers wait for real file system events.
pytestmark = [pytest.mark.slow]

WAIT = 15.0  # seconds: the most any test waits for one event (the machine is shared and noisy)


class Recorder:
    """Collects ``SkillChanges`` from the watcher thread."""

    def __init__(self) -> None:
        self.events: queue.Queue[SkillChanges] = queue.Queue()

    def __call__(self, changes: SkillChanges) -> None:
        self.events.put(changes)

    def next(self) -> SkillChanges:
        try:
            return self.events.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no change reported within {WAIT} s") from None

    def empty(self) -> bool:
        return self.events.empty()


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {WAIT} s")
        time.sleep(0.02)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    make_skill(root, "alpha", files={"references/guide.md": "one\n"})
    make_skill(root, "beta")
    return root


@pytest.fixture
def watched(root: Path) -> Iterator[tuple[AgentSkills, Recorder]]:
    skills = create_agent_skills([root])
    recorder = Recorder()
    with skills.watch(recorder, debounce_ms=50):
        yield skills, recorder


def test_editing_a_listed_file_is_a_change(
    root: Path, watched: tuple[AgentSkills, Recorder]
) -> None:
    skills, recorder = watched
    (root / "alpha" / "references" / "guide.md").write_text("two\n")
    assert recorder.next() == SkillChanges(changed=("alpha",))
    # The manifest's bytes count too, and the refreshed snapshot serves the new body.
    (root / "beta" / "SKILL.md").write_text("---\nname: beta\ndescription: New.\n---\nNew body.\n")
    assert recorder.next() == SkillChanges(changed=("beta",))
    assert skills.load_skill("beta").body == "New body."  # type: ignore[union-attr]


def test_adding_and_removing_skills(root: Path, watched: tuple[AgentSkills, Recorder]) -> None:
    skills, recorder = watched
    staging = root.parent / "staging"
    make_skill(staging, "Gamma")
    os.rename(staging / "Gamma", root / "Gamma")
    assert recorder.next() == SkillChanges(added=("Gamma",))
    assert [i.name for i in skills.list_skills()] == ["alpha", "beta", "Gamma"]
    shutil.rmtree(root / "alpha")
    assert recorder.next() == SkillChanges(removed=("alpha",))
    assert "alpha" not in skills


def test_a_new_file_in_a_skill_is_a_change(
    root: Path, watched: tuple[AgentSkills, Recorder]
) -> None:
    _, recorder = watched
    (root / "beta" / "scripts").mkdir()
    (root / "beta" / "scripts" / "run.sh").write_text("echo\n")
    assert recorder.next() == SkillChanges(changed=("beta",))


def test_unlisted_files_call_nothing(root: Path, watched: tuple[AgentSkills, Recorder]) -> None:
    skills, recorder = watched
    (root / "alpha" / ".env").write_text("secret\n")
    (root / "alpha" / "node_modules").mkdir()
    (root / "alpha" / "node_modules" / "x.js").write_text("x\n")
    (root / "alpha" / "__pycache__").mkdir()
    (root / "alpha" / "__pycache__" / "m.pyc").write_bytes(b"\0")
    # A file outside any skill is relevant to discovery (it is refreshed) but changes no skill.
    (root / "README.md").write_text("not a skill\n")
    # Then a real change: the first report must be exactly this one.
    (root / "beta" / "extra.md").write_text("more\n")
    assert recorder.next() == SkillChanges(changed=("beta",))
    assert recorder.empty()
    assert skills.load_skill("alpha") is not None


def test_touching_without_changing_bytes_calls_nothing(root: Path) -> None:
    skills = create_agent_skills([root])
    recorder = Recorder()
    with skills.watch(recorder, debounce_ms=50) as watcher:
        guide = root / "alpha" / "references" / "guide.md"
        guide.write_text("one\n")  # same bytes
        _until(lambda: watcher.refreshes >= 1)
        assert recorder.empty()
        guide.write_text("changed\n")
        assert recorder.next() == SkillChanges(changed=("alpha",))


def test_ignored_paths() -> None:
    roots = ["/r/skills"]
    assert _ignored("/r/skills/a/.git/HEAD", roots)
    assert _ignored("/r/skills/a/node_modules/x", roots)
    assert _ignored("/r/skills/a/__pycache__/x.pyc", roots)
    assert _ignored("/r/skills/.hidden/SKILL.md", roots)
    assert not _ignored("/r/skills/a/SKILL.md", roots)
    assert not _ignored("/r/skills/a/references/b.md", roots)
    assert not _ignored("/r/skills", roots)
    # Hidden names above the root do not matter.
    assert not _ignored("/r/.config/skills/a/SKILL.md", ["/r/.config/skills"])


def test_a_root_that_does_not_exist_yet_is_awaited(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    root = workspace / ".agents" / "skills"
    skills = create_agent_skills([root])
    assert len(skills) == 0
    recorder = Recorder()
    with skills.watch(recorder, debounce_ms=50):
        staging = tmp_path / "staging"
        make_skill(staging / "skills", "late")
        os.rename(staging, workspace / ".agents")
        assert recorder.next() == SkillChanges(added=("late",))
        # Now the root itself is watched, recursively.
        (root / "late" / "notes.md").write_text("n\n")
        assert recorder.next() == SkillChanges(changed=("late",))


def test_a_later_root_shadowing_a_skill_is_a_change(tmp_path: Path) -> None:
    low, high = tmp_path / "low", tmp_path / "high"
    make_skill(low, "tool", body="low")
    high.mkdir()
    skills = create_agent_skills([low, high])
    recorder = Recorder()
    with skills.watch(recorder, debounce_ms=50):
        staging = tmp_path / "staging"
        make_skill(staging, "tool", body="high")
        os.rename(staging / "tool", high / "tool")
        assert recorder.next() == SkillChanges(changed=("tool",))
        assert skills.load_skill("tool").body == "high"  # type: ignore[union-attr]


def test_trust_follows_changes(tmp_path: Path) -> None:
    user, repo = tmp_path / "user", tmp_path / "repo"
    make_skill(user, "tool", body="user")
    cloned = make_skill(repo, "tool", body="repo", files={"a.md": "a\n"})
    store = TrustStore(tmp_path / "trust.json")
    store.approve(cloned)
    skills = create_agent_skills(
        [SkillRoot(user, "user"), SkillRoot(repo, "workspace")], trust=store
    )
    assert skills.load_skill("tool").body == "repo"  # type: ignore[union-attr]
    recorder = Recorder()
    with skills.watch(recorder, debounce_ms=50):
        (cloned / "a.md").write_text("tampered\n")
        assert recorder.next() == SkillChanges(changed=("tool",))
        assert skills.load_skill("tool").body == "user"  # type: ignore[union-attr]


def test_stop_and_context_manager(root: Path) -> None:
    skills = create_agent_skills([root])
    watcher = skills.watch()
    assert watcher.running
    watcher.stop()
    assert not watcher.running
    with skills.watch() as second:
        assert second.running
    assert not second.running


def test_an_on_change_that_raises_does_not_stop_the_watcher(root: Path) -> None:
    skills = create_agent_skills([root])
    recorder = Recorder()

    def flaky(changes: SkillChanges) -> None:
        recorder(changes)
        raise RuntimeError("callback bug")

    with skills.watch(flaky, debounce_ms=50) as watcher:
        (root / "alpha" / "x.md").write_text("1\n")
        assert recorder.next() == SkillChanges(changed=("alpha",))
        (root / "beta" / "x.md").write_text("1\n")
        assert recorder.next() == SkillChanges(changed=("beta",))
        assert watcher.running


def test_strict_refresh_failure_keeps_the_snapshot(root: Path) -> None:
    skills = create_agent_skills([root], strict=True)
    with skills.watch(debounce_ms=50) as watcher:
        (root / "beta" / "SKILL.md").write_text("---\nname: beta\n")  # invalid in strict mode
        _until(lambda: watcher.refreshes >= 1)
        assert [i.name for i in skills.list_skills()] == ["alpha", "beta"]
        assert watcher.running


def test_bad_arguments_and_missing_extra(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skills = create_agent_skills([root])
    for bad in (0, -5, 1.5, True):
        with pytest.raises(StartupError, match="debounce_ms must be a positive int"):
            skills.watch(debounce_ms=bad)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "watchfiles._rust_notify", None)
    with pytest.raises(StartupError) as caught:
        skills.watch()
    # The package is not published under its distribution name: the hint gives forms that work.
    message = str(caught.value)
    assert "python -m pip install 'watchfiles>=0.21'" in message
    assert "pip install '.[watch]'" in message
    assert "clarvis-agent-skills[watch]" not in message


def test_changes_are_falsy_when_empty() -> None:
    assert not SkillChanges()
    assert SkillChanges(removed=("a",))


def test_a_fault_while_watching_does_not_end_it(root: Path) -> None:
    skills = create_agent_skills([root])
    recorder = Recorder()
    with skills.watch(recorder, debounce_ms=50) as watcher:
        original = watcher._refresh
        calls: list[set[str]] = []

        def flaky(paths: set[str]) -> None:
            calls.append(paths)
            if len(calls) == 1:
                raise RuntimeError("simulated fault")
            original(paths)

        watcher._refresh = flaky  # type: ignore[method-assign]
        (root / "alpha" / "x.md").write_text("1\n")
        _until(lambda: len(calls) >= 1)
        (root / "beta" / "x.md").write_text("1\n")
        # The paths of the failed round stay pending: alpha's change is not lost.
        assert recorder.next() == SkillChanges(changed=("alpha", "beta"))
        assert watcher.running


def test_a_root_that_cannot_be_watched_is_a_startup_error(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Refusing:
        def __init__(self, *args: object) -> None:
            raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr("watchfiles._rust_notify.RustNotify", Refusing)
    skills = create_agent_skills([root])
    with pytest.raises(StartupError, match=r"cannot watch the skill roots: .*inotify watch limit"):
        skills.watch()


def _naive_touched(infos: list[Any], paths: set[str]) -> set[Path]:
    """The definition: a path at or below a skill's directory, or its root itself."""
    touched = [Path(p) for p in paths]
    return {
        info.dir
        for info in infos
        if any(p in (info.dir, info.root) or info.dir in p.parents for p in touched)
    }


def test_events_are_matched_to_skills_by_directory(tmp_path: Path) -> None:
    """The batch's skills are found by walking each event path's parents up to a skill (and
    roots by name): the same skills the definition gives, nested skills and roots included,
    for random batches."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from agent_skills._watch import _touched_dirs

    roots = [tmp_path / "r1", tmp_path / "r2"]
    for i in range(30):
        make_skill(roots[i % 2], f"s{i}", files={"references/a.md": "a"})
    make_skill(roots[0] / "s0" / "nested", "inner")  # a skill below another skill
    skills = create_agent_skills([*roots, SkillRoot(roots[0] / "s0" / "nested", "user")])
    infos = skills.list_skills()
    components = ["r1", "r2", "s1", "s2", "s0", "nested", "inner", "references", "a.md", "x"]

    @settings(max_examples=300, deadline=None)
    @given(st.sets(st.lists(st.sampled_from(components), max_size=5).map(tuple), max_size=20))
    def check(batch: set[tuple[str, ...]]) -> None:
        paths = {str(tmp_path.joinpath(*parts)) for parts in batch}
        assert _touched_dirs(infos, paths) == _naive_touched(list(infos), paths)

    check()


def test_a_burst_of_new_files_in_one_skill_among_many_is_one_change(tmp_path: Path) -> None:
    """6 000 files appear in one skill of 400: one change of that skill is reported (the batch is
    matched to skills by directory, not every skill against every path)."""
    root = tmp_path / "skills"
    for i in range(400):
        make_skill(root, f"s{i:03}")
    skills = create_agent_skills([root])
    recorder = Recorder()
    with skills.watch(recorder, debounce_ms=200):
        burst = root / "s007" / "references"
        burst.mkdir()
        for i in range(6_000):
            (burst / f"f{i}.md").write_text("x")
        changes = recorder.next()
    assert changes == SkillChanges(changed=("s007",))
    content = skills.load_skill("s007")
    assert content is not None and len(content.resources) == 5_000  # max_resources
    assert content.resources_truncated
