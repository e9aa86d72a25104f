"""SPEC §21.2, §21.3, §21.9-§21.12: the CLI finds the skills of every client, explains what it
searched, and keeps its tables whole in a real terminal (a pseudo-terminal here)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import REPO, invoke_cli, make_skill
from terminal_support import run_in_terminal

# Where each client keeps skills (SPEC §21.1): home folders, then project folders.
HOME_FOLDERS = {
    ".agents/skills": ("shared-agents-skill", "agents"),
    ".claude/skills": ("personal-claude-helper", "claude"),
    ".codex/skills": ("codex-release-notes", "codex"),
    ".gemini/skills": ("gemini-research", "gemini"),
    ".copilot/skills": ("copilot-pr-review", "copilot"),
    ".cursor/skills": ("cursor-refactor-guide", "cursor"),
    ".config/opencode/skills": ("opencode-deploy", "opencode"),
    ".config/agents/skills": ("xdg-agents-notes", "agents"),
    ".config/goose/skills": ("goose-summarize", "goose"),
    ".clarvis/skills": ("clarvis-tool", "clarvis"),
}
PROJECT_FOLDERS = {
    ".agents/skills": ("project-agents-checks", "agents"),
    ".claude/skills": ("project-claude-lint", "claude"),
    ".codex/skills": ("project-codex-tests", "codex"),
    ".gemini/skills": ("project-gemini-docs", "gemini"),
    ".github/skills": ("github-ci-triage", "github"),
    ".cursor/skills": ("project-cursor-style", "cursor"),
    ".opencode/skills": ("project-opencode-run", "opencode"),
    ".goose/skills": ("project-goose-plan", "goose"),
    ".clarvis/skills": ("project-clarvis-x", "clarvis"),
    "src/.agents/skills": ("nested-src-agents", "agents"),  # the codex chain below the git root
}
DESCRIPTION = "Does something useful for you when asked about its topic, in a few sentences."


@pytest.fixture
def machine(tmp_path: Path) -> dict[str, Path]:
    """A fresh HOME with a skill in every client's folder, and a git project with the same."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "src" / "deep").mkdir(parents=True)
    for base, folders in ((home, HOME_FOLDERS), (project, PROJECT_FOLDERS)):
        for rel, (name, _) in folders.items():
            make_skill(base / rel, name, frontmatter={"name": name, "description": DESCRIPTION})
    return {"home": home, "project": project, "cwd": project / "src" / "deep"}


def invoke(machine: dict[str, Path], *args: str, cwd: Path | None = None) -> Result:
    return invoke_cli(args, cwd=cwd or machine["cwd"], home=machine["home"])


def expected_all() -> list[tuple[str, str, str]]:
    rows = [(n, "user", src) for n, src in HOME_FOLDERS.values()]
    rows += [(n, "workspace", src) for n, src in PROJECT_FOLDERS.values()]
    return sorted(rows, key=lambda r: (r[0].casefold(), r[0]))


def test_list_with_no_option_finds_every_client_folder(machine: dict[str, Path]) -> None:
    result = invoke(machine, "list", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [(d["name"], d["scope"], d["source"]) for d in data] == expected_all()
    assert len(data) == 20


def test_table_labels_every_skill_with_scope_and_source(machine: dict[str, Path]) -> None:
    result = invoke(machine, "list")
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "SCOPE", "SOURCE", "INVOCATION", "SHADOWS", "DESCRIPTION"]
    assert [line.split()[:3] for line in lines[1:]] == [list(r) for r in expected_all()]


@pytest.mark.parametrize(
    ("preset", "names"),
    [
        ("claude", ["personal-claude-helper", "project-claude-lint"]),
        ("agents", ["project-agents-checks", "shared-agents-skill"]),
        (
            "codex",
            [
                "codex-release-notes",
                "nested-src-agents",
                "project-agents-checks",
                "project-codex-tests",
                "shared-agents-skill",
            ],
        ),
        (
            "copilot",
            [
                "copilot-pr-review",
                "github-ci-triage",
                "project-agents-checks",
                "project-claude-lint",
                "shared-agents-skill",
            ],
        ),
        (
            "goose",
            [
                "goose-summarize",
                "personal-claude-helper",
                "project-agents-checks",
                "project-claude-lint",
                "project-goose-plan",
                "xdg-agents-notes",
            ],
        ),
    ],
)
def test_every_client_preset(machine: dict[str, Path], preset: str, names: list[str]) -> None:
    result = invoke(machine, "list", "--json", "--preset", preset)
    assert result.exit_code == 0
    assert [d["name"] for d in json.loads(result.stdout)] == names


def test_unknown_preset_is_a_usage_error(machine: dict[str, Path]) -> None:
    result = invoke(machine, "list", "--preset", "vscode")
    assert result.exit_code == 2
    assert "'vscode' is not one of" in result.stderr
    assert "'claude'" in result.stderr and "'auto'" in result.stderr


def test_tilde_roots_and_workspace_expand(machine: dict[str, Path]) -> None:
    result = invoke(machine, "list", "--json", "--preset", "none", "--root", "~/.claude/skills")
    assert [d["name"] for d in json.loads(result.stdout)] == ["personal-claude-helper"]
    assert result.stderr == ""
    elsewhere = machine["home"] / "other-project"
    make_skill(elsewhere / ".claude" / "skills", "other-lint")
    result = invoke(
        machine, "list", "--json", "--preset", "claude", "--workspace", "~/other-project"
    )
    assert [(d["name"], d["scope"]) for d in json.loads(result.stdout)] == [
        ("other-lint", "workspace"),
        ("personal-claude-helper", "user"),
    ]


def test_relative_root_is_taken_against_the_current_directory(machine: dict[str, Path]) -> None:
    make_skill(machine["cwd"] / "local", "here")
    result = invoke(
        machine, "list", "--json", "--preset", "none", "--root", "local", "--workspace", ".."
    )
    assert [d["dir"] for d in json.loads(result.stdout)] == [str(machine["cwd"] / "local" / "here")]


def test_workspace_is_the_git_root_from_a_subdirectory(machine: dict[str, Path]) -> None:
    result = invoke(machine, "list", "--json", "--preset", "claude")
    assert [d["dir"] for d in json.loads(result.stdout)] == [
        str(machine["home"] / ".claude/skills/personal-claude-helper"),
        str(machine["project"] / ".claude/skills/project-claude-lint"),
    ]


def test_strict_makes_a_missing_root_exit_2(machine: dict[str, Path], tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    lenient = invoke(machine, "list", "--root", str(missing))
    assert lenient.exit_code == 0
    assert lenient.stderr == f"warning: root_missing: --root {missing}: root does not exist\n"
    strict = invoke(machine, "list", "--strict", "--root", str(missing))
    assert strict.exit_code == 2
    assert strict.stderr == f"usage_error: --root {missing}: root does not exist\n"
    # Missing preset roots never are: this machine has no ~/.copilot/skills at first.
    (machine["home"] / ".copilot" / "skills" / "copilot-pr-review" / "SKILL.md").unlink()
    assert invoke(machine, "list", "--strict").exit_code == 0
    as_json = invoke(machine, "list", "--json", "--strict", "--root", str(missing))
    assert as_json.exit_code == 2
    assert json.loads(as_json.stderr) == {
        "error": {
            "code": "usage_error",
            "message": f"--root {missing}: root does not exist",
            "fields": {},
        }
    }


def test_a_root_that_is_a_skill_gets_the_hint(machine: dict[str, Path]) -> None:
    skill = machine["home"] / ".claude/skills/personal-claude-helper"
    result = invoke(machine, "list", "--preset", "none", "--root", str(skill))
    assert (
        result.stderr
        == f"warning: root_is_skill: --root {skill}: this is a skill; use its parent as the root\n"
    )
    report = invoke(machine, "report", "--preset", "none", "--root", str(skill))
    assert [str(skill), "workspace", "-", "ok", "this", "is", "a", "skill;"] == (
        next(line.split() for line in report.stdout.splitlines() if line.startswith(str(skill)))[:8]
    )
    data = json.loads(
        invoke(machine, "report", "--json", "--preset", "none", "--root", str(skill)).stdout
    )
    assert data["roots"] == [
        {
            "root": str(skill),
            "status": "ok",
            "message": "",
            "scope": "workspace",
            "source": "",
            "hint": "this is a skill; use its parent as the root",
        }
    ]


def test_report_names_what_it_searched_and_what_it_did_not(
    machine: dict[str, Path], tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke(machine, "report", "--preset", "gemini", "--workspace", str(empty))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    roots = [line.split()[:4] for line in lines if line.startswith(("/", "ROOT"))]
    home = machine["home"]
    assert roots[0] == ["ROOT", "SCOPE", "SOURCE", "STATE"]
    assert roots[1:] == [
        [str(home / ".gemini/skills"), "user", "gemini", "ok"],
        [str(home / ".agents/skills"), "user", "agents", "ok"],
        [str(empty / ".gemini/skills"), "workspace", "gemini", "missing"],
        [str(empty / ".agents/skills"), "workspace", "agents", "missing"],
    ]
    # Something was found, so there is no list of folders left out.
    assert "not searched" not in result.stdout
    (home / ".gemini/skills/gemini-research/SKILL.md").unlink()
    (home / ".agents/skills/shared-agents-skill/SKILL.md").unlink()
    nothing = invoke(machine, "report", "--preset", "gemini", "--workspace", str(empty))
    tail = nothing.stdout.split("Skill folders on this machine not searched:\n")[1].splitlines()
    assert tail[:8] == [
        f"  {home / '.claude/skills'} (user; --preset claude or opencode or goose)",
        f"  {home / '.codex/skills'} (user; --preset codex)",
        f"  {home / '.copilot/skills'} (user; --preset copilot)",
        f"  {home / '.cursor/skills'} (user; --preset cursor)",
        f"  {home / '.config/opencode/skills'} (user; --preset opencode)",
        f"  {home / '.config/agents/skills'} (user; --preset goose)",
        f"  {home / '.config/goose/skills'} (user; --preset goose)",
        f"  {home / '.clarvis/skills'} (user; --preset clarvis)",
    ]
    data = json.loads(
        invoke(machine, "report", "--json", "--preset", "gemini", "--workspace", str(empty)).stdout
    )
    assert data["not_searched"] == [line.strip() for line in tail[:8]]


def test_disable_leaves_a_skill_out(machine: dict[str, Path]) -> None:
    result = invoke(machine, "list", "--json", "--disable", "github-ci-triage", "--disable", "x")
    names = [d["name"] for d in json.loads(result.stdout)]
    assert "github-ci-triage" not in names and len(names) == 19
    report = json.loads(invoke(machine, "report", "--json", "--disable", "github-ci-triage").stdout)
    assert [
        (e["name"], e["status"], e["reason"])
        for e in report["entries"]
        if e["name"] == "github-ci-triage"
    ] == [("github-ci-triage", "disabled", "disabled by name 'github-ci-triage'")]
    served = invoke(machine, "show", "github-ci-triage", "--disable", "github-ci-triage")
    assert served.exit_code == 1


def test_did_you_mean(machine: dict[str, Path]) -> None:
    result = invoke(machine, "show", "gemini-reserch")
    assert result.exit_code == 1
    assert (
        result.stderr
        == "not_found: No such skill: gemini-reserch (did you mean gemini-research?)\n"
    )
    result = invoke(machine, "path", "Gemini-Research", "SKILL.md", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stderr) == {
        "error": {
            "code": "not_found",
            "message": "No such skill: Gemini-Research (did you mean gemini-research?)",
            "fields": {"name": "Gemini-Research", "suggestions": ["gemini-research"]},
        }
    }


@pytest.mark.parametrize(
    ("args", "code", "exit_code"),
    [
        (["list", "--json", "--max-depth", "9"], "usage_error", 2),
        (["list", "--json", "--preset", "vscode"], "usage_error", 2),
        (["list", "--json", "--bogus"], "usage_error", 2),
        (["show", "--json"], "usage_error", 2),
        (["list", "--json", "--workspace", "/no/such/dir"], "startup_error", 2),
        (["list", "--json", "--preset", "none"], "startup_error", 2),
        (["show", "nope", "--json"], "not_found", 1),
        (["read", "gemini-research", "../x", "--json"], "usage_error", 2),
    ],
)
def test_json_errors_are_one_object_on_stderr(
    machine: dict[str, Path], args: list[str], code: str, exit_code: int
) -> None:
    result = invoke(machine, *args)
    assert result.exit_code == exit_code
    assert result.stdout == ""
    error = json.loads(result.stderr)["error"]
    assert (error["code"], sorted(error)) == (code, ["code", "fields", "message"])
    assert error["message"]


def test_catalog_json_is_format_json(machine: dict[str, Path]) -> None:
    a = invoke(machine, "catalog", "--json")
    b = invoke(machine, "catalog", "--format", "json")
    assert a.exit_code == b.exit_code == 0
    assert a.stdout == b.stdout
    assert len(json.loads(a.stdout)) == 20


def test_max_depth_option_finds_categories(machine: dict[str, Path], tmp_path: Path) -> None:
    root = tmp_path / "catalog"
    make_skill(root / "ios", "swiftui")
    flat = invoke(machine, "list", "--json", "--preset", "none", "--root", str(root))
    assert json.loads(flat.stdout) == []
    deep = invoke(
        machine, "list", "--json", "--preset", "none", "--root", str(root), "--max-depth", "2"
    )
    assert [(d["name"], d["category"]) for d in json.loads(deep.stdout)] == [("swiftui", "ios")]


# --- §21.12 tables in a real terminal ------------------------------------------------------------


def header_and_body(lines: list[str]) -> tuple[list[str], list[str]]:
    """The header's words (on one line, or two when columns moved under the row) and the rest."""
    if len(lines) > 1 and lines[1].startswith("    "):
        return lines[0].split() + lines[1].split(), lines[2:]
    return lines[0].split(), lines[1:]


@pytest.fixture
def terminal_env(machine: dict[str, Path]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["HOME"] = str(machine["home"])
    env["TERM"] = "xterm-256color"
    return env


@pytest.mark.parametrize("columns", [60, 80, 120, 200])
def test_list_in_a_terminal_keeps_every_column_and_whole_names(
    machine: dict[str, Path], terminal_env: dict[str, str], columns: int
) -> None:
    out = run_in_terminal(["list"], terminal_env, machine["cwd"], columns)
    lines = out.splitlines()
    header, body = header_and_body(lines)
    assert header == ["NAME", "SCOPE", "SOURCE", "INVOCATION", "SHADOWS", "DESCRIPTION"]
    rows = [line.split() for line in body if not line.startswith("    ")]
    assert [r[:3] for r in rows] == [list(r) for r in expected_all()]
    assert all(r[3:5] == ["user,", "model"] for r in rows)  # the INVOCATION column is there
    assert all(len(line) <= columns for line in lines)
    described = [line for line in body if "Does something" in line]
    assert len(described) == 20  # every description shows, cut with an ellipsis where needed
    if columns == 200:
        assert all(DESCRIPTION in line for line in described)  # one line per skill, whole
        assert len(lines) == 21
    else:
        assert all(line.endswith("…") for line in described)
    if columns <= 80:  # the description has a line of its own under its row
        assert len(lines) == 2 + 40


def folded_in(text: str, lines: list[str]) -> bool:
    """``text`` whole on one line, or folded over consecutive lines (a path wider than a line)."""
    pieces = [line.strip() for line in lines]
    return any(text in "".join(pieces[i : i + 4]) for i in range(len(pieces)))


@pytest.mark.parametrize("columns", [60, 80, 200])
def test_report_in_a_terminal_keeps_names_and_paths_whole(
    machine: dict[str, Path], terminal_env: dict[str, str], columns: int
) -> None:
    out = run_in_terminal(["report", "--preset", "claude"], terminal_env, machine["cwd"], columns)
    lines = out.splitlines()
    assert all(len(line) <= columns for line in lines), out  # SPEC §21.12: nothing wraps
    first = next(i for i, line in enumerate(lines) if line.startswith("loaded"))
    assert " ".join(lines[:first]).split() == ["STATUS", "NAME", "PATH", "DETAIL"]
    project = machine["project"]
    rows = [line.split()[:2] for line in lines if line.startswith(("loaded", "shadowed"))]
    assert rows == [["loaded", "project-claude-lint"], ["loaded", "personal-claude-helper"]]
    assert folded_in(str(project / ".claude/skills/project-claude-lint"), lines)
    # In a terminal, paths under the home directory are written with ~.
    assert folded_in("~/.claude/skills/personal-claude-helper", lines)
    # The root's path (folded when wider than the line), then its other columns (moved below
    # it in a narrow terminal).
    assert folded_in(str(project / ".claude/skills"), lines)
    assert any(line.split()[-3:] == ["workspace", "claude", "ok"] for line in lines)
    assert lines[-1] == "2 loaded, 0 shadowed, 0 duplicate, 0 invalid, 0 skipped"


def test_report_notes_too_long_for_the_line_go_under_it_whole(
    machine: dict[str, Path], terminal_env: dict[str, str], tmp_path: Path
) -> None:
    low = tmp_path / "a-rather-long-directory-name" / "low"
    make_skill(low, "personal-claude-helper")
    out = run_in_terminal(
        ["report", "--preset", "claude", "--root", str(low)], terminal_env, machine["cwd"], 80
    )
    lines = out.splitlines()
    winner = str(low / "personal-claude-helper")
    at = next(i for i, line in enumerate(lines) if line.startswith("shadowed"))
    assert lines[at].split()[:2] == ["shadowed", "personal-claude-helper"]
    assert folded_in("~/.claude/skills/personal-claude-helper", lines[at + 1 : at + 3])
    below = "".join(line.strip() for line in lines[at + 1 : at + 6] if line.startswith("    "))
    assert f"shadowedby{winner}" in below.replace(" ", "")
    # No line is wider than the terminal: rows led by a name or a path fold, never cut.
    assert all(len(line) <= 80 for line in lines), out


def test_piped_output_is_never_cut(machine: dict[str, Path], terminal_env: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agent_skills", "list"],
        capture_output=True,
        text=True,
        cwd=machine["cwd"],
        env={**terminal_env, "COLUMNS": "40"},
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert len(lines) == 21
    assert all(DESCRIPTION in line for line in lines[1:])


# --- the host configuration snippets of docs/mcp.md work as written -------------------------------

MCP_DOC = REPO / "docs" / "mcp.md"


def _snippet_args() -> list[list[str]]:
    import tomllib

    text = MCP_DOC.read_text(encoding="utf-8")
    found: list[list[str]] = []
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        data = json.loads(block)
        for server in (data.get("mcpServers") or data.get("servers") or {}).values():
            if "args" in server:
                found.append(server["args"])
    for block in re.findall(r"```toml\n(.*?)```", text, re.S):
        for server in tomllib.loads(block)["mcp_servers"].values():
            found.append(server["args"])
    return found


def test_docs_mcp_snippets_are_accepted_by_the_cli(machine: dict[str, Path]) -> None:
    snippets = _snippet_args()
    assert len(snippets) == 5  # Claude Desktop, Claude Code, Cursor, VS Code, Codex
    (machine["home"] / "team-skills").mkdir()
    for args in snippets:
        assert args[0] == "serve"
        # The same options, given to `list`; the documented example paths point at this machine.
        options = [
            str(machine["project"]) if a in ("${workspaceFolder}", "/home/me/src/my-project") else a
            for a in args[1:]
        ]
        result = invoke(machine, "list", "--json", *options)
        assert result.exit_code == 0, (args, result.stderr)
        assert json.loads(result.stdout), args


def test_disable_a_directory_lets_the_lower_copy_win(machine: dict[str, Path]) -> None:
    make_skill(
        machine["project"] / ".claude/skills",
        "shared-agents-skill",
        frontmatter={"name": "shared-agents-skill", "description": "The project copy."},
    )
    top = invoke(machine, "show", "shared-agents-skill", "--json")
    assert json.loads(top.stdout)["description"] == "The project copy."
    # A relative directory is taken against the current directory, like --root.
    rel = os.path.relpath(machine["project"] / ".claude/skills/shared-agents-skill", machine["cwd"])
    lower = invoke(machine, "show", "shared-agents-skill", "--json", "--disable", rel)
    data = json.loads(lower.stdout)
    assert (data["description"], data["scope"], data["category"]) == (DESCRIPTION, "user", "")
    text = invoke(machine, "show", "shared-agents-skill", "--disable", rel).stdout
    assert ["category", "-"] in [line.split() for line in text.splitlines()]


def test_strict_with_a_root_that_is_a_file_warns_only(machine: dict[str, Path]) -> None:
    f = machine["project"] / "README.md"
    f.write_text("x")
    result = invoke(machine, "list", "--json", "--strict", "--root", str(f))
    assert result.exit_code == 0  # SPEC §21.13: only a missing --root is exit 2
    assert json.loads(result.stderr) == {
        "warnings": [
            {"code": "root_not_a_directory", "message": f"--root {f}: root is not a directory"}
        ]
    }


# --- the layout itself, for any cells ------------------------------------------------------------

_cell = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    min_size=0,
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.lists(_cell, min_size=4, max_size=4), min_size=1, max_size=6),
    width=st.integers(min_value=60, max_value=220),
    cut=st.booleans(),
)
@example(rows=[["a", "b", "\x01" * 15, "d"]], width=60, cut=False)  # escaped: 60 cells, folded
def test_columns_keep_fixed_cells_whole_and_fit_the_width(
    rows: list[list[str]], width: int, cut: bool
) -> None:
    from rich.cells import cell_len

    from agent_skills.cli._app import safe as _safe
    from agent_skills.cli._table import columns as _columns

    headers = ["NAME", "SCOPE", "SOURCE", "DESCRIPTION"]
    lines = [t.plain for t in _columns(headers, rows, width=width, cut=cut, movable=1)]
    text = "\n".join(lines)
    folded_text = "".join(line.strip() for line in lines)
    for row in rows:
        for cell in row[:3]:
            safe = _safe(cell).strip()
            if cell_len(safe) <= width - 4:
                assert safe in text  # names and paths are never cut
            else:
                # wider than a line even when moved under the row: folded, never cut
                assert safe.replace(" ", "") in folded_text.replace(" ", "")
    fixed = [max(cell_len(_safe(r[i])) for r in [headers, *rows]) for i in range(3)]
    if sum(fixed) + 4 + 4 <= width:  # when the fixed columns fit, so does every line
        assert all(cell_len(line) <= width for line in lines)
    if cut:
        for row in rows:
            flex = _safe(row[3])
            assert flex.strip() in text or "…" in text
    else:
        squeezed = text.replace("\n", "").replace(" ", "")
        for row in rows:
            assert _safe(row[3]).replace(" ", "") in squeezed  # notes are never cut


def test_only_serves_the_named_skills(machine: dict[str, Path]) -> None:
    """SPEC §29.6: --only NAME (repeatable); others disabled; an unknown name is a warning."""
    result = invoke(machine, "list", "--json", "--only", "github-ci-triage", "--only", "nope")
    assert result.exit_code == 0
    assert [d["name"] for d in json.loads(result.stdout)] == ["github-ci-triage"]
    warnings = json.loads(result.stderr)["warnings"]
    assert {"code": "unknown_name", "message": "'nope' in only matches no skill found"} in warnings
