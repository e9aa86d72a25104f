"""SPEC §3: standard_skill_roots and clarvis_skill_roots."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent_skills import (
    SkillRoot,
    StartupError,
    clarvis_skill_roots,
    create_agent_skills,
    standard_skill_roots,
)
from conftest import make_skill


def test_standard_roots_order_scopes_and_sources() -> None:
    roots = standard_skill_roots("codex", workspace="/ws", cwd="/c", home="/h")
    assert roots == [
        SkillRoot(Path("/h/.agents/skills"), "user", "agents"),
        SkillRoot(Path("/ws/.agents/skills"), "workspace", "agents"),
        SkillRoot(Path("/h/.codex/skills"), "user", "codex"),
        SkillRoot(Path("/ws/.codex/skills"), "workspace", "codex"),
    ]


def test_workspace_is_resolved_like_resolve_workspace_dir() -> None:
    rel = standard_skill_roots("x", workspace="proj", cwd="/c", home="/h")
    assert rel[1].path == Path("/c/proj/.agents/skills")
    tilde = standard_skill_roots("x", workspace="~/proj", cwd="/c", home="/h")
    assert tilde[3].path == Path("/h/proj/.x/skills")
    none = standard_skill_roots("x", cwd="/c", home="/h")
    assert none[1].path == Path("/c/.agents/skills")


def test_clarvis_roots_are_the_clarvis_standard_roots() -> None:
    kw: dict[str, Any] = {"workspace": "/ws", "cwd": "/c", "home": "/h"}
    assert clarvis_skill_roots(**kw) == standard_skill_roots("clarvis", **kw)
    assert [(str(r.path), r.scope, r.source) for r in clarvis_skill_roots(**kw)] == [
        ("/h/.agents/skills", "user", "agents"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/h/.clarvis/skills", "user", "clarvis"),
        ("/ws/.clarvis/skills", "workspace", "clarvis"),
    ]


def test_defaults_use_process_home_and_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    roots = clarvis_skill_roots()
    home = Path(os.path.expanduser("~"))
    assert [r.path for r in roots] == [
        home / ".agents/skills",
        Path(os.getcwd()) / ".agents/skills",
        home / ".clarvis/skills",
        Path(os.getcwd()) / ".clarvis/skills",
    ]


def test_presets_never_touch_the_filesystem(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a: object, **_k: object) -> object:
        raise AssertionError("filesystem touched")

    for name in ("stat", "lstat", "listdir", "scandir", "open"):
        monkeypatch.setattr(os, name, boom)
    monkeypatch.setattr(os.path, "exists", boom)
    monkeypatch.setattr(os.path, "isdir", boom)
    monkeypatch.setattr(os.path, "realpath", boom)
    roots = clarvis_skill_roots(workspace="/no/such/ws", cwd="/no/such/cwd", home="/no/home")
    assert roots[1].path == Path("/no/such/ws/.agents/skills")
    assert len(standard_skill_roots("a", workspace="rel", cwd="/c", home="/h")) == 4


def test_presets_do_not_raise_for_missing_dirs() -> None:
    roots = standard_skill_roots("x", workspace="/definitely/missing", home="/also/missing")
    assert roots[0].path == Path("/also/missing/.agents/skills")


@pytest.mark.parametrize(
    "kwargs",
    [{"workspace": 5}, {"cwd": 1.5}, {"home": ["h"]}],
)
def test_presets_reject_non_path_arguments_as_startup_error(kwargs: dict[str, Any]) -> None:
    with pytest.raises(StartupError):
        standard_skill_roots("x", **{"cwd": "/c", "home": "/h", **kwargs})


@pytest.mark.parametrize("client", [5, None, ""])
def test_presets_reject_bad_client(client: Any) -> None:
    with pytest.raises(StartupError):
        standard_skill_roots(client, cwd="/c", home="/h")


def _desc(root: Path, where: str) -> None:
    make_skill(root, "deploy", frontmatter={"name": "deploy", "description": f"from {where}"})


def test_precedence_with_real_directories(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    _desc(home / ".agents/skills", "user agents")
    _desc(ws / ".agents/skills", "ws agents")
    _desc(home / ".clarvis/skills", "user clarvis")
    make_skill(home / ".agents/skills", "only-agents")
    make_skill(ws / ".agents/skills", "ws-agents")
    skills = create_agent_skills(clarvis_skill_roots(workspace=ws, home=home), home=home)
    by_name = {s.name: s for s in skills.list_skills()}
    assert sorted(by_name) == ["deploy", "only-agents", "ws-agents"]
    # Any .clarvis skill beats any .agents skill of the same name, even a workspace one.
    deploy = by_name["deploy"]
    assert (deploy.description, deploy.scope, deploy.source) == (
        "from user clarvis",
        "user",
        "clarvis",
    )
    assert [(s.scope, s.source) for s in deploy.shadowed] == [
        ("workspace", "agents"),
        ("user", "agents"),
    ]
    assert (by_name["only-agents"].scope, by_name["only-agents"].source) == ("user", "agents")

    # Within one source, the workspace copy beats the user copy.
    _desc(ws / ".clarvis/skills", "ws clarvis")
    skills.refresh()
    deploy = {s.name: s for s in skills.list_skills()}["deploy"]
    assert (deploy.description, deploy.scope, deploy.source) == (
        "from ws clarvis",
        "workspace",
        "clarvis",
    )
    assert [(s.scope, s.source) for s in deploy.shadowed] == [
        ("user", "clarvis"),
        ("workspace", "agents"),
        ("user", "agents"),
    ]


def test_missing_preset_roots_are_silent(tmp_path: Path) -> None:
    skills = create_agent_skills(clarvis_skill_roots(workspace=tmp_path, home=tmp_path))
    assert skills.list_skills() == []
    assert skills.diagnostics == ()
