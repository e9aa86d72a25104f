"""SPEC §21.1, §21.2, §21.13: client_skill_roots for every client, auto, the git-root workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_skills import (
    SkillRoot,
    StartupError,
    clarvis_skill_roots,
    client_skill_roots,
    create_agent_skills,
    standard_skill_roots,
)
from agent_skills._presets import CLIENT_LAYOUTS, CLIENTS, preset_workspace
from conftest import make_skill

KW = {"workspace": "/ws", "cwd": "/ws/a/b", "home": "/h"}

EXPECTED: dict[str, list[tuple[str, str, str]]] = {
    "agents": [
        ("/h/.agents/skills", "user", "agents"),
        ("/ws/.agents/skills", "workspace", "agents"),
    ],
    "claude": [
        ("/ws/.claude/skills", "workspace", "claude"),
        ("/h/.claude/skills", "user", "claude"),
    ],
    "codex": [
        ("/h/.codex/skills", "user", "codex"),
        ("/h/.agents/skills", "user", "agents"),
        ("/ws/.codex/skills", "workspace", "codex"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/ws/a/.agents/skills", "workspace", "agents"),
        ("/ws/a/b/.agents/skills", "workspace", "agents"),
    ],
    "gemini": [
        ("/h/.gemini/skills", "user", "gemini"),
        ("/h/.agents/skills", "user", "agents"),
        ("/ws/.gemini/skills", "workspace", "gemini"),
        ("/ws/.agents/skills", "workspace", "agents"),
    ],
    "copilot": [
        ("/h/.copilot/skills", "user", "copilot"),
        ("/h/.agents/skills", "user", "agents"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/ws/.claude/skills", "workspace", "claude"),
        ("/ws/.github/skills", "workspace", "github"),
    ],
    "cursor": [
        ("/h/.cursor/skills", "user", "cursor"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/ws/.claude/skills", "workspace", "claude"),
        ("/ws/.codex/skills", "workspace", "codex"),
        ("/ws/.cursor/skills", "workspace", "cursor"),
    ],
    "opencode": [
        ("/h/.agents/skills", "user", "agents"),
        ("/h/.claude/skills", "user", "claude"),
        ("/h/.config/opencode/skills", "user", "opencode"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/ws/.claude/skills", "workspace", "claude"),
        ("/ws/.opencode/skills", "workspace", "opencode"),
    ],
    "goose": [
        ("/h/.claude/skills", "user", "claude"),
        ("/h/.config/agents/skills", "user", "agents"),
        ("/h/.config/goose/skills", "user", "goose"),
        ("/ws/.claude/skills", "workspace", "claude"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/ws/.goose/skills", "workspace", "goose"),
    ],
    "antigravity": [
        ("/h/.gemini/config/skills", "user", "antigravity"),
        ("/h/.gemini/skills", "user", "gemini"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/ws/.agent/skills", "workspace", "antigravity"),
    ],
    "windsurf": [
        ("/h/.codeium/windsurf/skills", "user", "windsurf"),
        ("/ws/.windsurf/skills", "workspace", "windsurf"),
    ],
    "clarvis": [
        ("/h/.agents/skills", "user", "agents"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/h/.clarvis/skills", "user", "clarvis"),
        ("/ws/.clarvis/skills", "workspace", "clarvis"),
    ],
    "auto": [
        ("/h/.agents/skills", "user", "agents"),
        ("/h/.claude/skills", "user", "claude"),
        ("/h/.codex/skills", "user", "codex"),
        ("/h/.gemini/skills", "user", "gemini"),
        ("/h/.copilot/skills", "user", "copilot"),
        ("/h/.cursor/skills", "user", "cursor"),
        ("/h/.config/opencode/skills", "user", "opencode"),
        ("/h/.config/agents/skills", "user", "agents"),
        ("/h/.config/goose/skills", "user", "goose"),
        ("/h/.gemini/config/skills", "user", "antigravity"),
        ("/h/.codeium/windsurf/skills", "user", "windsurf"),
        ("/h/.clarvis/skills", "user", "clarvis"),
        ("/ws/.agents/skills", "workspace", "agents"),
        ("/ws/.claude/skills", "workspace", "claude"),
        ("/ws/.codex/skills", "workspace", "codex"),
        ("/ws/.gemini/skills", "workspace", "gemini"),
        ("/ws/.github/skills", "workspace", "github"),
        ("/ws/.cursor/skills", "workspace", "cursor"),
        ("/ws/.opencode/skills", "workspace", "opencode"),
        ("/ws/.goose/skills", "workspace", "goose"),
        ("/ws/.agent/skills", "workspace", "antigravity"),
        ("/ws/.windsurf/skills", "workspace", "windsurf"),
        ("/ws/.clarvis/skills", "workspace", "clarvis"),
        ("/ws/a/.agents/skills", "workspace", "agents"),
        ("/ws/a/b/.agents/skills", "workspace", "agents"),
    ],
}


def triples(roots: list[SkillRoot]) -> list[tuple[str, str, str]]:
    return [(str(r.path), r.scope, r.source) for r in roots]


def test_every_client_is_covered() -> None:
    assert CLIENTS == (
        "agents",
        "claude",
        "codex",
        "gemini",
        "copilot",
        "cursor",
        "opencode",
        "goose",
        "antigravity",
        "windsurf",
        "clarvis",
        "auto",
    )
    assert set(EXPECTED) == set(CLIENTS)


@pytest.mark.parametrize("client", CLIENTS)
def test_client_roots_in_order_with_scope_and_source(client: str) -> None:
    assert triples(client_skill_roots(client, **KW)) == EXPECTED[client]


def test_clarvis_is_the_section_3_preset() -> None:
    assert client_skill_roots("clarvis", **KW) == clarvis_skill_roots(**KW)
    assert client_skill_roots("clarvis", **KW) == standard_skill_roots("clarvis", **KW)


def test_codex_chain_at_the_workspace_is_one_link_and_auto_adds_none() -> None:
    kw = {"workspace": "/ws", "cwd": "/ws", "home": "/h"}
    assert triples(client_skill_roots("codex", **kw))[3:] == [
        ("/ws/.agents/skills", "workspace", "agents")
    ]
    auto = triples(client_skill_roots("auto", **kw))
    assert auto == EXPECTED["auto"][:-2]


def test_codex_chain_when_cwd_is_outside_the_workspace() -> None:
    roots = triples(client_skill_roots("codex", workspace="/ws", cwd="/elsewhere/x", home="/h"))
    assert roots[3:] == [("/ws/.agents/skills", "workspace", "agents")]
    auto = triples(client_skill_roots("auto", workspace="/ws", cwd="/elsewhere/x", home="/h"))
    assert auto[-1] == ("/ws/.clarvis/skills", "workspace", "clarvis")


def test_workspace_equal_to_home_gives_no_duplicates() -> None:
    kw = {"workspace": "/h", "cwd": "/h", "home": "/h"}
    auto = triples(client_skill_roots("auto", **kw))
    paths = [p for p, _, _ in auto]
    assert len(paths) == len(set(paths))
    # Each path keeps the scope of its first place: the user group comes first.
    assert auto[:12] == [(p.replace("/ws", "/h"), s, src) for p, s, src in EXPECTED["auto"][:12]]
    assert auto[12:] == [
        ("/h/.github/skills", "workspace", "github"),
        ("/h/.opencode/skills", "workspace", "opencode"),
        ("/h/.goose/skills", "workspace", "goose"),
        ("/h/.agent/skills", "workspace", "antigravity"),
        ("/h/.windsurf/skills", "workspace", "windsurf"),
    ]
    assert triples(client_skill_roots("claude", **kw)) == [
        ("/h/.claude/skills", "workspace", "claude")
    ]


def test_a_workspace_inside_home_stays_workspace() -> None:
    roots = client_skill_roots("agents", workspace="/h/proj", cwd="/h/proj", home="/h")
    assert triples(roots) == [
        ("/h/.agents/skills", "user", "agents"),
        ("/h/proj/.agents/skills", "workspace", "agents"),
    ]


@pytest.mark.parametrize("client", ["none", "Claude", "", "vscode", "clarvis ", 3, None])
def test_unknown_client_is_a_startup_error_listing_the_known_ones(client: object) -> None:
    with pytest.raises(StartupError) as info:
        client_skill_roots(client, **KW)  # type: ignore[arg-type]
    assert str(info.value) == (
        f"unknown client {client!r}: expected one of agents, claude, codex, gemini, copilot, "
        "cursor, opencode, goose, antigravity, windsurf, clarvis, auto"
    )


def test_path_arguments_of_the_wrong_type_are_startup_errors() -> None:
    with pytest.raises(StartupError):
        client_skill_roots("claude", home=3)  # type: ignore[arg-type]
    with pytest.raises(StartupError):
        client_skill_roots("claude", cwd=b"/x")  # type: ignore[arg-type]


def test_layout_table_sources_follow_the_folder() -> None:
    expected_source = {
        ".agents/skills": "agents",
        ".config/agents/skills": "agents",
        ".claude/skills": "claude",
        ".codex/skills": "codex",
        ".gemini/skills": "gemini",
        ".copilot/skills": "copilot",
        ".github/skills": "github",
        ".cursor/skills": "cursor",
        ".config/opencode/skills": "opencode",
        ".opencode/skills": "opencode",
        ".config/goose/skills": "goose",
        ".goose/skills": "goose",
        ".gemini/config/skills": "antigravity",
        ".agent/skills": "antigravity",
        ".codeium/windsurf/skills": "windsurf",
        ".windsurf/skills": "windsurf",
        ".clarvis/skills": "clarvis",
    }
    for layout in CLIENT_LAYOUTS.values():
        for item in layout:
            assert expected_source[item.rel] == item.source


# --- §21.2 the workspace at the git root ---------------------------------------------------------


def test_workspace_is_the_nearest_git_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()
    home = tmp_path / "home"
    assert preset_workspace(cwd=sub, home=home) == str(repo)
    assert preset_workspace(cwd=repo, home=home) == str(repo)
    roots = client_skill_roots("codex", cwd=sub, home=home)
    assert [str(r.path) for r in roots][2:] == [
        f"{repo}/.codex/skills",
        f"{repo}/.agents/skills",
        f"{repo}/src/.agents/skills",
        f"{repo}/src/pkg/.agents/skills",
    ]
    assert standard_skill_roots("x", cwd=sub, home=home)[1].path == repo / ".agents/skills"
    assert clarvis_skill_roots(cwd=sub, home=home)[3].path == repo / ".clarvis/skills"


def test_a_git_file_marks_a_worktree_root(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    inner = outer / "nested"
    (inner / "deep").mkdir(parents=True)
    (outer / ".git").mkdir()
    (inner / ".git").write_text("gitdir: ../.git/worktrees/nested\n")
    assert preset_workspace(cwd=inner / "deep") == str(inner)


def test_without_git_the_workspace_is_cwd(tmp_path: Path) -> None:
    here = tmp_path / "plain"
    here.mkdir()
    if any((p / ".git").exists() for p in here.parents):
        pytest.skip("a .git above the temporary directory")
    assert preset_workspace(cwd=here) == str(here)


def test_explicit_workspace_is_used_as_given(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "a"
    sub.mkdir()
    assert preset_workspace("other", cwd=sub, home="/h") == str(sub / "other")
    assert preset_workspace("~/w", cwd=sub, home="/h") == "/h/w"


def test_project_skills_are_found_from_a_subdirectory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    make_skill(repo / ".claude" / "skills", "lint")
    sub = repo / "src" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    skills = create_agent_skills(client_skill_roots("auto", home=tmp_path / "home"))
    assert [(s.name, s.scope, s.source) for s in skills.list_skills()] == [
        ("lint", "workspace", "claude")
    ]


def test_presets_look_only_for_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The only filesystem access of a preset is looking for ``.git`` (SPEC §21.2)."""
    seen: list[str] = []
    real = os.path.lexists

    def spy(path: str) -> bool:
        seen.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(os.path, "lexists", spy)
    for name in ("stat", "listdir", "scandir", "open"):
        monkeypatch.setattr(os, name, lambda *_a, **_k: pytest.fail("filesystem touched"))
    client_skill_roots("auto", cwd="/no/such/dir", home="/h")
    assert seen == ["/no/such/dir/.git", "/no/such/.git", "/no/.git", "/.git"]
    seen.clear()
    client_skill_roots("auto", workspace="/w", cwd="/no/such/dir", home="/h")
    assert seen == []


# --- docs/clients.md is the table above, for users -----------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs" / "clients.md"


def _doc_rows(heading: str) -> list[list[str]]:
    text = DOCS.read_text(encoding="utf-8").split(heading, 1)[1]
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif rows and not line.startswith("|"):
            break
    return rows[1:]  # without the header


def _doc_path(root: SkillRoot) -> str:
    text = str(root.path)
    return "~" + text[2:] if text.startswith("/h/") else text.replace("/ws", "<ws>", 1)


def test_docs_glance_table_matches_the_layouts() -> None:
    rows = {row[0].split("`")[1]: row[1] for row in _doc_rows("## The layouts at a glance")}
    assert set(rows) == {*CLIENTS, "none"}
    kw = {"workspace": "/ws", "cwd": "/ws", "home": "/h"}
    for client in CLIENTS:
        if client in ("auto", "codex"):
            continue
        documented = [cell.strip().strip("`") for cell in rows[client].split(",")]
        assert documented == [_doc_path(r) for r in client_skill_roots(client, **kw)], client
    codex = [_doc_path(r) for r in client_skill_roots("codex", **kw)]
    assert rows["codex"].startswith(", ".join(f"`{p}`" for p in codex[:3]) + ", then `.agents")


def test_docs_auto_table_matches_auto() -> None:
    rows = _doc_rows("### `auto` in full")
    roots = client_skill_roots("auto", workspace="/ws", cwd="/ws/a/b", home="/h")
    assert [(r[1].strip("`"), r[2], r[3]) for r in rows] == [
        (_doc_path(r), r.scope, r.source) for r in roots
    ]
