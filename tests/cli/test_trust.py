"""The ``trust`` command and ``--trust-store`` (SPEC §23.4), through the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from agent_skills import TrustStore
from conftest import invoke_cli, make_skill


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Path]:
    """A home with a user skill, and a cloned repository with two project skills."""
    home = tmp_path / "home"
    make_skill(home / ".agents" / "skills", "shared", body="user copy")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skills = repo / ".agents" / "skills"
    make_skill(skills, "shared", body="repo copy", files={"scripts/run.sh": "echo\n"})
    make_skill(skills, "lint", body="lint")
    return {"home": home, "repo": repo, "skills": skills, "store": tmp_path / "trust.json"}


@pytest.fixture
def run(env: dict[str, Path]) -> Any:
    def invoke(*args: str) -> Result:
        return invoke_cli(args, cwd=env["repo"], home=env["home"])

    return invoke


def _preset(env: dict[str, Path]) -> list[str]:
    return ["--preset", "agents", "--workspace", str(env["repo"])]


def _served(run: Any, env: dict[str, Path], *extra: str) -> dict[str, str]:
    result = run("list", "--json", *_preset(env), *extra)
    assert result.exit_code == 0, result.stderr
    return {item["name"]: item["scope"] for item in json.loads(result.stdout)}


def test_trust_lifecycle_through_the_cli(run: Any, env: dict[str, Path]) -> None:
    store = ["--trust-store", str(env["store"])]
    # Without a store everything is trusted: the repository's copy wins.
    assert _served(run, env) == {"lint": "workspace", "shared": "workspace"}
    # With an empty store: the project skills stay out; the user's copy is served.
    assert _served(run, env, *store) == {"shared": "user"}
    report = json.loads(run("report", "--json", *_preset(env), *store).stdout)
    untrusted = {e["name"]: e["reason"] for e in report["entries"] if e["status"] == "untrusted"}
    assert untrusted == {"lint": "not approved", "shared": "not approved"}

    # Approve one skill by path.
    shared = env["skills"] / "shared"
    approved = run("trust", str(shared), "--yes", "--store", str(env["store"]), *_preset(env))
    assert approved.exit_code == 0, approved.stderr
    digest = TrustStore(env["store"]).approved()[shared.resolve()]
    assert approved.stdout == f"approved shared {digest} {shared.resolve()}\n"
    assert _served(run, env, *store) == {"shared": "workspace"}

    # Approve the whole workspace (no PATH), JSON output.
    everything = run("trust", "--json", "--yes", "--store", str(env["store"]), *_preset(env))
    assert everything.exit_code == 0, everything.stderr
    rows = json.loads(everything.stdout)
    assert sorted((r["name"], r["status"]) for r in rows) == [
        ("lint", "approved"),
        ("shared", "approved"),
    ]
    assert _served(run, env, *store) == {"lint": "workspace", "shared": "workspace"}

    # Changed: out again, the user's copy comes back.
    (shared / "scripts" / "run.sh").write_text("rm -rf /\n")
    assert _served(run, env, *store) == {"lint": "workspace", "shared": "user"}
    report = json.loads(run("report", "--json", *_preset(env), *store).stdout)
    reasons = {e["name"]: e["reason"] for e in report["entries"] if e["status"] == "untrusted"}
    assert reasons == {"shared": "changed since approval"}

    # --list shows the approvals; --revoke removes them.
    listed = run("trust", "--list", "--store", str(env["store"]), *_preset(env))
    assert sorted(listed.stdout.splitlines()) == sorted(
        f"{d}  {p}" for p, d in TrustStore(env["store"]).approved().items()
    )
    lint = env["skills"] / "lint"
    revoked = run("trust", "--revoke", str(lint), "--store", str(env["store"]), *_preset(env))
    assert revoked.stdout == f"revoked {lint.resolve()}\n"
    assert _served(run, env, *store) == {"shared": "user"}


def test_trust_needs_a_store(run: Any, env: dict[str, Path]) -> None:
    result = run("trust", *_preset(env))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "usage_error: name the trust store with --store FILE"


def test_trust_under_a_path_without_project_skills(run: Any, env: dict[str, Path]) -> None:
    elsewhere = env["home"]
    result = run("trust", str(elsewhere), "--store", str(env["store"]), *_preset(env))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == f"no project skill under {elsewhere.resolve()}"
    assert not env["store"].exists()


def test_a_skill_that_cannot_be_hashed_does_not_stop_the_others(
    run: Any, env: dict[str, Path], tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: linked\ndescription: Manifest kept elsewhere.\n---\nBody.\n")
    linked = env["skills"] / "linked"
    linked.mkdir()
    (linked / "SKILL.md").symlink_to(outside)
    result = run("trust", "--yes", "--store", str(env["store"]), *_preset(env))
    assert result.exit_code == 1
    assert sorted(line.split()[1] for line in result.stdout.splitlines()) == ["lint", "shared"]
    assert result.stderr.splitlines()[-1].startswith("path_escape: cannot approve linked: ")
    assert sorted(p.name for p in TrustStore(env["store"]).approved()) == ["lint", "shared"]
    # Under --json, stderr is one JSON object (SPEC §21.11): the failure among its warnings.
    env["store"].unlink()
    result = run("trust", "--yes", "--json", "--store", str(env["store"]), *_preset(env))
    assert result.exit_code == 1
    assert sorted(item["name"] for item in json.loads(result.stdout)) == ["lint", "shared"]
    warnings = json.loads(result.stderr)["warnings"]  # (discovery's among them)
    failures = [w["message"] for w in warnings if w["code"] == "path_escape"]
    assert len(failures) == 1 and failures[0].startswith("cannot approve linked: ")


# -- trust shows what it would approve and asks (issue: a preview and a question) -------------


def test_without_a_terminal_or_yes_trust_refuses_and_approves_nothing(
    run: Any, env: dict[str, Path]
) -> None:
    result = run("trust", "--store", str(env["store"]), *_preset(env))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        "confirmation_required: trust would approve 2 project skills (lint, shared); there is "
        "no terminal to ask on: pass --yes to approve them as they are now"
    )
    assert not env["store"].exists()
    as_json = run("trust", "--json", "--store", str(env["store"]), *_preset(env))
    assert as_json.exit_code == 2
    error = json.loads(as_json.stderr)["error"]
    assert (error["code"], error["fields"]) == ("confirmation_required", {})
    assert not env["store"].exists()


def _tmux(session: str, command: str, keys: list[str] | None, columns: int = 80) -> str:
    """Run ``command`` in a detached tmux terminal ``columns`` wide, type ``keys`` once it asks,
    and return the screen once it has ended (bounded waits)."""
    import shutil
    import subprocess
    import time

    # One name per test process, so runs of the suite side by side never share a session.
    session = f"{session}-{os.getpid()}"
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", str(columns), "-y", "40", command],
        check=True,
    )

    def screen() -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
        ).stdout

    try:
        deadline = time.monotonic() + 60
        if keys is not None:
            while "[y/N]" not in screen():
                assert time.monotonic() < deadline, screen()
                time.sleep(0.1)
            subprocess.run(["tmux", "send-keys", "-t", session, *keys], check=True)
        while "EXIT=" not in screen():
            assert time.monotonic() < deadline, screen()
            time.sleep(0.1)
        return screen()
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def _trust_command(env: dict[str, Path]) -> str:
    import shlex
    import sys

    args = ["trust", "--store", str(env["store"]), *_preset(env)]
    line = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "agent_skills", *args])
    return (
        f"cd {shlex.quote(str(env['repo']))} && HOME={shlex.quote(str(env['home']))} {line}; "
        "echo EXIT=$?; sleep 30"
    )


def test_trust_shows_each_skill_and_asks_in_a_terminal(env: dict[str, Path]) -> None:
    """Through tmux at 80 columns: name, scope, digest, folder and the user skill a project
    skill overrides; answering n approves nothing, y approves what was shown."""
    refused = _tmux("trust-no", _trust_command(env), ["n", "Enter"])
    lines = [line.rstrip() for line in refused.splitlines() if line.strip()]
    head = next(i for i, line in enumerate(lines) if line.startswith("trust would approve"))
    start = next(i for i, line in enumerate(lines) if line.startswith("  lint (workspace)")) - 1
    assert "".join(lines[head : start + 1]) == (
        f"trust would approve 2 project skills as they are now, in {env['store']}:"
    )
    assert lines[start + 1 :] == [
        "  lint (workspace) " + lines[start + 1].split()[-1],
        "    .agents/skills/lint",
        "  shared (workspace) " + lines[start + 3].split()[-1],
        "    .agents/skills/shared",
        "    overrides your user skill shared: ~/.agents/skills/shared",
        "Approve 2 project skills? [y/N]: n",
        "aborted: nothing approved",
        "EXIT=1",
    ]
    assert lines[start + 1].split()[-1].startswith("sha256:")
    assert len(lines[start + 1].split()[-1]) == len("sha256:") + 12 + 1  # 12 hex digits, "…"
    assert not env["store"].exists()

    approved = _tmux("trust-yes", _trust_command(env), ["y", "Enter"])
    assert "EXIT=0" in approved
    digests = TrustStore(env["store"]).approved()
    assert sorted(p.name for p in digests) == ["lint", "shared"]
    shown = "".join(approved.split())
    for path, digest in digests.items():
        assert f"approved{path.name}{digest}{path}" in shown
    shared = (env["skills"] / "shared").resolve()
    assert f"shared (workspace) {digests[shared][:19]}…" in approved
