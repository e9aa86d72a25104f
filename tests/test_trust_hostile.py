"""Hostile input to the trust store and the other JSON files read back (SPEC §20.4-§20.6, §23.3)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_skills import EntryStatus, SkillError, SkillRoot, TrustStore, create_agent_skills
from agent_skills._jsonfile import MAX_JSON_DEPTH, json_depth, read_json_file
from agent_skills.cli import cli
from agent_skills.packages import read_lock
from conftest import make_skill

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _bounded(fn: Any, seconds: float = 5.0) -> Any:
    """Run ``fn`` on a thread and fail (instead of hanging the suite) if it takes longer."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed back to the test
            out["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still blocked after {seconds} s"
    if "error" in out:
        raise out["error"]
    return out.get("value")


@needs_fifo
def test_a_store_that_is_a_fifo_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "trust.json"
    os.mkfifo(fifo)
    with pytest.raises(SkillError) as caught:
        _bounded(TrustStore(fifo).approved)
    assert (caught.value.code, caught.value.fields) == ("not_a_file", {"path": str(fifo)})
    repo = tmp_path / "repo"
    make_skill(repo, "s")
    skills = _bounded(
        lambda: create_agent_skills([SkillRoot(repo, "workspace")], trust=TrustStore(fifo))
    )
    assert skills.list_skills() == []
    [entry] = skills.report().entries
    assert (entry.status, entry.reason) == (
        EntryStatus.UNTRUSTED,
        "not approved (trust store unreadable: not_a_file)",
    )


@needs_fifo
def test_a_lock_that_is_a_fifo_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "skills.lock.json"
    os.mkfifo(fifo)
    with pytest.raises(SkillError) as caught:
        _bounded(lambda: read_lock(fifo))
    assert caught.value.code == "not_a_file"


@pytest.mark.parametrize("opener", ['{"a":', "[", '{"version": 1, "approvals": {"x": ['])
def test_a_deeply_nested_store_is_a_coded_error(tmp_path: Path, opener: str) -> None:
    path = tmp_path / "trust.json"
    path.write_text(opener * 100_000)
    with pytest.raises(SkillError) as caught:
        TrustStore(path).approved()
    assert caught.value.code == "invalid_input"
    assert caught.value.fields == {
        "path": str(path),
        "reason": f"nested deeper than {MAX_JSON_DEPTH} levels",
    }
    repo = tmp_path / "repo"
    make_skill(repo, "s")
    skills = create_agent_skills([SkillRoot(repo, "workspace")], trust=TrustStore(path))
    assert [e.reason for e in skills.report().entries] == [
        "not approved (trust store unreadable: invalid_input)"
    ]


def test_a_deeply_nested_lock_is_a_coded_error(tmp_path: Path) -> None:
    path = tmp_path / "skills.lock.json"
    path.write_text('{"version": 1, "skills": ' + "[" * 100_000)
    with pytest.raises(SkillError) as caught:
        read_lock(path)
    assert caught.value.code == "invalid_input"
    assert caught.value.fields["reason"] == f"nested deeper than {MAX_JSON_DEPTH} levels"


def test_the_cli_reports_a_nested_store_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    path.write_text("[" * 100_000)
    result = CliRunner().invoke(cli, ["trust", "--list", "--store", str(path)])
    assert result.exit_code != 0
    assert "internal_error" not in result.output and "RecursionError" not in result.output
    assert "invalid_input" in result.output


def test_json_depth_ignores_brackets_inside_strings() -> None:
    assert json_depth('{"a": "[[[[{{{{", "b": [1, [2]]}') == 3
    assert json_depth('"\\"[[["') == 0
    assert json_depth("[]") == 1
    assert json_depth("1") == 0


def test_a_store_over_the_size_cap_is_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"version": 1, "approvals": {}, "pad": "x" * 200}))
    with pytest.raises(SkillError) as caught:
        read_json_file(str(path), max_bytes=100, what="trust store")
    assert (caught.value.code, caught.value.fields) == (
        "too_large",
        {"path": str(path), "max_bytes": 100},
    )


@pytest.mark.parametrize("bad", [5, None, ["x"], b"/tmp", 1.5])
def test_store_arguments_that_are_not_paths_are_invalid_input(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(SkillError) as caught:
        TrustStore(bad)
    assert (caught.value.code, caught.value.fields) == (
        "invalid_input",
        {"type": type(bad).__name__},
    )
    store = TrustStore(tmp_path / "t.json")
    for method in (store.approve, store.revoke):
        with pytest.raises(SkillError) as refused:
            method(bad)
        assert (refused.value.code, refused.value.fields) == (
            "invalid_input",
            {"type": type(bad).__name__},
        )
    assert not (tmp_path / "t.json").exists()


def test_the_first_approval_creates_the_store_and_its_folder(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "repo", "s")
    store = TrustStore(tmp_path / "fresh" / "config" / "trust.json")
    digest = store.approve(skill)
    assert store.approved() == {skill.resolve(): digest}
    assert TrustStore(tmp_path / "fresh" / "config" / "trust.json").approved() == {
        skill.resolve(): digest
    }


def test_cli_trust_on_a_fresh_home_creates_the_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    make_skill(repo / ".agents" / "skills", "lint", body="lint")
    old = os.getcwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(
            cli,
            ["trust", "--store", "~/.config/agent-skills/trust.json"],
            env={"HOME": str(home)},
            catch_exceptions=False,
        )
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("approved lint sha256:")
    store = home / ".config" / "agent-skills" / "trust.json"
    real = os.path.realpath(repo / ".agents" / "skills" / "lint")
    assert list(json.loads(store.read_text())["approvals"]) == [real]
