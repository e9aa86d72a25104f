"""``agent-skills where`` (SPEC §29.3): each client's folders, the skills found there, the
folders no client reads, and the ``agent_skills`` import-name clash."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from agent_skills._presets import CLIENT_LAYOUTS, client_skill_roots
from agent_skills.cli import where as where_module
from conftest import invoke_cli, make_skill
from terminal_support import run_in_terminal


@pytest.fixture
def machine(tmp_path: Path) -> dict[str, Path]:
    """A temporary home with skills in a folder Claude Code reads, in one no client reads
    (``~/.myagent/skills``), an empty unknown folder, and a git project with a project skill and
    an opencode single-file skill."""
    home, ws = tmp_path / "home", tmp_path / "project"
    (ws / ".git").mkdir(parents=True)
    make_skill(home / ".claude" / "skills", "deploy")
    make_skill(home / ".codex" / "skills", "broken", raw="---\nname: [\n---\nBody.\n")
    make_skill(home / ".myagent" / "skills", "orphan")
    make_skill(home / ".myagent" / "skills", "stray")
    (home / ".empty" / "skills").mkdir(parents=True)
    (home / ".notes").mkdir()
    make_skill(ws / ".agents" / "skills", "project-checks")
    make_skill(ws / ".vendor-tool" / "skills", "vendored")
    single = ws / ".opencode" / "skills"
    single.mkdir(parents=True)
    (single / "review.md").write_text("---\nname: review\ndescription: Review.\n---\nBody.\n")
    return {"home": home, "ws": ws}


def invoke(machine: dict[str, Path], *args: str) -> Result:
    return invoke_cli(["where", *args], cwd=machine["ws"], home=machine["home"])


def test_where_json_on_a_temporary_home(
    machine: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(where_module, "import_clash", list)  # no clash here (tested below)
    result = invoke(machine, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    data: dict[str, Any] = json.loads(result.stdout)
    home, ws = machine["home"], machine["ws"]
    assert (data["home"], data["workspace"]) == (str(home), str(ws))
    assert [c["client"] for c in data["clients"]] == list(CLIENT_LAYOUTS)
    for client in data["clients"]:
        roots = client_skill_roots(client["client"], workspace=ws, home=home)
        assert [(f["path"], f["scope"], f["source"]) for f in client["folders"]] == [
            (str(r.path), r.scope, r.source) for r in roots
        ]
    by_client = {c["client"]: c["folders"] for c in data["clients"]}
    assert by_client["claude"] == [
        {
            "path": str(ws / ".claude/skills"),
            "scope": "workspace",
            "source": "claude",
            "exists": False,
            "skills": [],
            "invalid": 0,
        },
        {
            "path": str(home / ".claude/skills"),
            "scope": "user",
            "source": "claude",
            "exists": True,
            "skills": ["deploy"],
            "invalid": 0,
        },
    ]
    # A folder whose only skill does not load: no skills, and one invalid (SPEC §7).
    codex_user = next(f for f in by_client["codex"] if f["path"] == str(home / ".codex/skills"))
    assert (codex_user["skills"], codex_user["invalid"]) == ([], 1)
    assert by_client["opencode"][-1]["skills"] == ["review"]
    assert by_client["agents"][1]["skills"] == ["project-checks"]
    assert data["unread"] == [
        {
            "path": str(home / ".myagent/skills"),
            "scope": "user",
            "source": "myagent",
            "exists": True,
            "skills": ["orphan", "stray"],
            "invalid": 0,
        },
        {
            "path": str(ws / ".vendor-tool/skills"),
            "scope": "workspace",
            "source": "vendor-tool",
            "exists": True,
            "skills": ["vendored"],
            "invalid": 0,
        },
    ]
    assert data["import_clash"] == []


def test_an_import_clash_is_named_with_what_to_do(
    machine: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import metadata

    monkeypatch.setattr(
        metadata,
        "packages_distributions",
        lambda: {"agent_skills": ["clarvis_agent_skills", "agent-skills"], "yaml": ["PyYAML"]},
    )
    real_version = metadata.version
    monkeypatch.setattr(
        metadata, "version", lambda name: "1.0.2" if name == "agent-skills" else real_version(name)
    )
    assert where_module.import_clash() == [{"distribution": "agent-skills", "version": "1.0.2"}]
    result = invoke(machine, "--json")
    assert json.loads(result.stdout)["import_clash"] == [
        {"distribution": "agent-skills", "version": "1.0.2"}
    ]
    assert json.loads(result.stderr) == {
        "warnings": [
            {
                "code": "import_clash",
                "message": "agent-skills 1.0.2 also provides the import package agent_skills "
                "(a different project); `import agent_skills` may load it instead of "
                "clarvis-agent-skills: uninstall it (pip uninstall agent-skills)",
            }
        ]
    }
    monkeypatch.setattr(metadata, "packages_distributions", lambda: {"agent_skills": ["x"]})
    monkeypatch.setattr(metadata, "version", lambda name: (_ for _ in ()).throw(ValueError()))
    assert where_module.import_clash() == [{"distribution": "x", "version": "?"}]


def test_a_real_installed_clash_is_found(tmp_path: Path) -> None:
    """A distribution installed beside this one that ships ``agent_skills`` (as PyPI's
    ``agent-skills`` does) is found from its metadata alone, in a fresh interpreter."""
    import subprocess
    import sys

    site = tmp_path / "site"
    info = site / "agent_skills-1.0.2.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: agent-skills\nVersion: 1.0.2\n")
    (info / "top_level.txt").write_text("agent_skills\n")
    code = (
        "import json, sys; sys.path.append(sys.argv[1]);"
        "from agent_skills.cli import where; print(json.dumps(where.import_clash()))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(site)], capture_output=True, text=True, timeout=60
    )
    assert (out.returncode, out.stderr) == (0, "")
    assert json.loads(out.stdout) == [{"distribution": "agent-skills", "version": "1.0.2"}]
    clean = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "empty")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(clean.stdout) == []


def test_where_reads_at_80_columns(machine: dict[str, Path]) -> None:
    env = {**os.environ, "HOME": str(machine["home"]), "COLUMNS": "80"}
    out = run_in_terminal(["where"], env, machine["ws"], 80)
    lines = out.splitlines()
    # The first two lines name the home and the workspace whole (a path is never folded); every
    # line after them fits the terminal, whatever those paths are.
    assert all(len(line) <= 80 for line in lines[2:]), [
        line for line in lines[2:] if len(line) > 80
    ]
    assert lines[:4] == [
        f"~ is {machine['home']}",
        f"<ws> is {machine['ws']}",
        "",
        "CLIENT       FOLDER                      SCOPE      SKILLS",
    ]
    assert "claude       <ws>/.claude/skills         workspace  missing" in lines
    assert "             ~/.claude/skills            user       1 skill: deploy" in lines
    at = next(i for i, line in enumerate(lines) if line.startswith("codex        ~/.codex/"))
    assert " ".join(line.strip() for line in lines[at : at + 3]).endswith(
        "user       no skills (1 invalid: `agent-skills report` says why)"
    )
    tail = lines[
        lines.index("Skills in folders no client reads (move or link them into one above):") :
    ]
    assert tail[1:3] == [
        "  ~/.myagent/skills (user): 2 skills: orphan, stray",
        "  <ws>/.vendor-tool/skills (workspace): 1 skill: vendored",
    ]
