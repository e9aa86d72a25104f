"""The ``trust`` command and ``--trust-store`` (SPEC §23.4), through the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agent_skills import TrustStore
from agent_skills.cli import cli
from conftest import make_skill


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
        old = os.getcwd()
        os.chdir(env["repo"])
        try:
            return CliRunner().invoke(
                cli, list(args), env={"HOME": str(env["home"])}, catch_exceptions=False
            )
        finally:
            os.chdir(old)

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
    approved = run("trust", str(shared), "--store", str(env["store"]), *_preset(env))
    assert approved.exit_code == 0, approved.stderr
    digest = TrustStore(env["store"]).approved()[shared.resolve()]
    assert approved.stdout == f"approved shared {digest} {shared.resolve()}\n"
    assert _served(run, env, *store) == {"shared": "workspace"}

    # Approve the whole workspace (no PATH), JSON output.
    everything = run("trust", "--json", "--store", str(env["store"]), *_preset(env))
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
    result = run("trust", "--store", str(env["store"]), *_preset(env))
    assert result.exit_code == 1
    assert sorted(line.split()[1] for line in result.stdout.splitlines()) == ["lint", "shared"]
    assert result.stderr.splitlines()[-1].startswith("path_escape: cannot approve linked: ")
    assert sorted(p.name for p in TrustStore(env["store"]).approved()) == ["lint", "shared"]
