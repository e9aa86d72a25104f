"""Tests for the agent-skills command line (SPEC §16): every command, option and exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from agent_skills.cli import main
from conftest import REPO, make_skill, symlink

EXAMPLES = REPO / "examples" / "skills"
COMMANDS = ["list", "show", "resources", "path", "read", "catalog", "report", "validate", "serve"]
INFO_KEYS = [
    "name",
    "description",
    "scope",
    "source",
    "root",
    "dir",
    "path",
    "allowed_tools",
    "user_invocable",
    "model_invocable",
    "shadowed",
    "category",
    "version",
]


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """Two roots: ``low`` and ``high``; ``shared`` is in both, ``broken`` is invalid."""
    low, high = tmp_path / "low", tmp_path / "high"
    make_skill(low, "shared", frontmatter={"name": "shared", "description": "Low copy."})
    make_skill(
        low,
        "alpha",
        frontmatter={
            "name": "alpha",
            "description": "Alpha   skill\nwith spaces.",
            "allowed-tools": "Read Grep",
        },
        body="# Alpha\n\nDo alpha.",
        files={"references/guide.md": "guide\n", "scripts/run.py": "print(1)\n"},
    )
    make_skill(
        high,
        "shared",
        frontmatter={"name": "shared", "description": "High copy.", "user-invocable": False},
    )
    make_skill(
        high,
        "hidden",
        frontmatter={
            "name": "hidden",
            "description": "Not for the model.",
            "disable-model-invocation": True,
        },
    )
    make_skill(high, "broken", raw="---\nname: broken\n---\n")
    (high / "empty-dir").mkdir()
    (low / "alpha" / "assets").mkdir()
    (low / "alpha" / "assets" / "blob.bin").write_bytes(bytes(range(256)))
    return {"low": low, "high": high}


def last_error(result: Result) -> str:
    """The last stderr line (discovery warnings about ``broken`` come first)."""
    return result.stderr.splitlines()[-1]


def roots(tree: dict[str, Path]) -> list[str]:
    return ["--preset", "none", "--root", str(tree["low"]), "--root", str(tree["high"])]


# --- list -----------------------------------------------------------------------------------


def test_list_json_shape_and_precedence(run: Any, tree: dict[str, Path]) -> None:
    result = run("list", "--json", *roots(tree))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [d["name"] for d in data] == ["alpha", "hidden", "shared"]
    assert all(list(d) == INFO_KEYS for d in data)
    shared = data[2]
    assert shared["description"] == "High copy."
    assert shared["dir"] == str(tree["high"] / "shared")
    assert shared["path"] == str(tree["high"] / "shared" / "SKILL.md")
    assert shared["user_invocable"] is False
    assert shared["shadowed"] == [
        {
            "scope": "workspace",
            "source": "",
            "root": str(tree["low"]),
            "dir": str(tree["low"] / "shared"),
        }
    ]
    assert data[0]["allowed_tools"] == ["Read", "Grep"]
    assert data[1]["model_invocable"] is False
    # Discovery warnings go to stderr as one JSON object, never into the JSON on stdout.
    warnings = json.loads(result.stderr)["warnings"]
    assert [w["code"] for w in warnings] == ["invalid_skill", "shadowed"]
    assert "broken" in warnings[0]["message"]


def test_list_table(run: Any, tree: dict[str, Path]) -> None:
    result = run("list", *roots(tree))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "SCOPE", "SOURCE", "INVOCATION", "SHADOWS", "DESCRIPTION"]
    assert lines[1].split()[:4] == ["alpha", "workspace", "-", "user,"]
    assert "Alpha skill with spaces." in lines[1]
    assert lines[3].split()[:5] == ["shared", "workspace", "-", "model", "1"]
    assert all(line == line.rstrip() for line in lines)


def test_list_shows_versions_when_any_skill_has_one(run: Any, tmp_path: Path) -> None:
    """SPEC §29.7: the top-level ``version``, else ``metadata.version`` (strings); a VERSION
    column after the name in the table when any skill has one, ``version`` in ``--json``."""
    root = tmp_path / "versions"
    make_skill(root, "top", frontmatter={"name": "top", "description": "T.", "version": "2.1.0"})
    make_skill(
        root,
        "nested",
        frontmatter={"name": "nested", "description": "N.", "metadata": {"version": "0.3"}},
    )
    make_skill(
        root,
        "both",
        frontmatter={
            "name": "both",
            "description": "B.",
            "version": "1.0",
            "metadata": {"version": "9.9"},
        },
    )
    make_skill(
        root, "numeric", raw="---\nname: numeric\ndescription: X.\nmetadata:\n  version: 1.5\n---\n"
    )
    make_skill(root, "plain", frontmatter={"name": "plain", "description": "P."})
    args = ["--preset", "none", "--root", str(root)]
    data = json.loads(run("list", "--json", *args).stdout)
    assert [(d["name"], d["version"]) for d in data] == [
        ("both", "1.0"),
        ("nested", "0.3"),
        ("numeric", None),
        ("plain", None),
        ("top", "2.1.0"),
    ]
    lines = run("list", *args).stdout.splitlines()
    assert lines[0].split()[:3] == ["NAME", "VERSION", "SCOPE"]
    assert [line.split()[:2] for line in lines[1:]] == [
        ["both", "1.0"],
        ["nested", "0.3"],
        ["numeric", "-"],
        ["plain", "-"],
        ["top", "2.1.0"],
    ]
    unversioned = tmp_path / "plain-only"
    make_skill(unversioned, "plain")
    header = run("list", "--preset", "none", "--root", str(unversioned)).stdout.splitlines()[0]
    assert "VERSION" not in header


def test_list_empty(run: Any, tmp_path: Path) -> None:
    result = run("list", "--preset", "none", "--root", str(tmp_path / "nothing"))
    assert result.exit_code == 0
    assert result.stdout == "No skills found in 1 root (see `agent-skills report`).\n"
    assert result.stderr == (
        f"warning: root_missing: --root {tmp_path / 'nothing'}: root does not exist\n"
    )
    assert json.loads(run("list", "--json", "--preset", "none", "--root", "x").stdout) == []


def test_root_that_is_a_file_is_named_on_stderr(run: Any, tmp_path: Path) -> None:
    f = tmp_path / "README.md"
    f.write_text("x")
    result = run("list", "--preset", "none", "--root", str(f), "--root", str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout == "No skills found in 2 roots (see `agent-skills report`).\n"
    assert result.stderr == f"warning: root_not_a_directory: --root {f}: root is not a directory\n"


def test_catalog_with_no_skills_says_so_on_stderr(run: Any, tmp_path: Path) -> None:
    result = run("catalog", "--format", "xml", "--preset", "none", "--root", str(tmp_path))
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "note: no skills to list (see `agent-skills report`)\n"


def test_preset_clarvis_uses_home_and_workspace(run: Any, home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    make_skill(home / ".agents" / "skills", "s", frontmatter={"name": "s", "description": "ua"})
    make_skill(ws / ".agents" / "skills", "s", frontmatter={"name": "s", "description": "wa"})
    make_skill(home / ".clarvis" / "skills", "s", frontmatter={"name": "s", "description": "uc"})
    make_skill(ws / ".clarvis" / "skills", "s", frontmatter={"name": "s", "description": "wc"})
    data = json.loads(run("list", "--json", "--preset", "clarvis", "--workspace", str(ws)).stdout)
    assert [(d["description"], d["scope"], d["source"]) for d in data] == [
        ("wc", "workspace", "clarvis")
    ]
    assert [(s["scope"], s["source"]) for s in data[0]["shadowed"]] == [
        ("user", "clarvis"),
        ("workspace", "agents"),
        ("user", "agents"),
    ]
    agents = json.loads(run("list", "--json", "--preset", "agents", "--workspace", str(ws)).stdout)
    assert [(d["description"], d["source"]) for d in agents] == [("wa", "agents")]
    assert len(agents[0]["shadowed"]) == 1


def test_preset_workspace_defaults_to_cwd(run: Any) -> None:
    make_skill(run.work / ".agents" / "skills", "here")
    data = json.loads(run("list", "--json", "--preset", "agents").stdout)
    assert [(d["name"], d["scope"]) for d in data] == [("here", "workspace")]


def test_extra_roots_come_after_the_preset(run: Any, home: Path, tmp_path: Path) -> None:
    make_skill(home / ".clarvis" / "skills", "s", frontmatter={"name": "s", "description": "h"})
    make_skill(tmp_path / "extra", "s", frontmatter={"name": "s", "description": "extra"})
    data = json.loads(run("list", "--json", "--root", str(tmp_path / "extra")).stdout)
    assert [d["description"] for d in data] == ["extra"]


def test_relative_root_is_taken_against_cwd(run: Any) -> None:
    make_skill(run.work / "rel", "r")
    data = json.loads(run("list", "--json", "--preset", "none", "--root", "rel").stdout)
    assert [d["dir"] for d in data] == [str(run.work / "rel" / "r")]


def test_no_roots_is_a_startup_error(run: Any) -> None:
    result = run("list", "--preset", "none")
    assert result.exit_code == 2
    assert result.stderr == "startup_error: no skill roots: use a preset or pass --root PATH\n"
    assert result.stdout == ""


def test_missing_workspace_is_a_startup_error(run: Any, tmp_path: Path) -> None:
    result = run("list", "--workspace", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert result.stderr.startswith("startup_error: ")
    assert "does not exist" in result.stderr


def test_strict_fails_on_invalid_skill(run: Any, tree: dict[str, Path]) -> None:
    result = run("list", "--strict", *roots(tree))
    assert result.exit_code == 1
    assert result.stderr.startswith("invalid_skill: ")
    assert "Traceback" not in result.stderr


def test_no_follow_symlinks(run: Any, tree: dict[str, Path], tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    make_skill(tmp_path / "store", "linked")
    symlink(linked / "linked", tmp_path / "store" / "linked")
    args = ["list", "--json", "--preset", "none", "--root", str(linked)]
    assert [d["name"] for d in json.loads(run(*args).stdout)] == ["linked"]
    assert json.loads(run(*args, "--no-follow-symlinks").stdout) == []


# --- show, resources, path, read ------------------------------------------------------------


def test_show_json(run: Any, tree: dict[str, Path]) -> None:
    result = run("show", "alpha", "--json", *roots(tree))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["body"] == "# Alpha\n\nDo alpha."
    assert [r["rel"] for r in data["resources"]] == [
        "assets/blob.bin",
        "references/guide.md",
        "scripts/run.py",
    ]
    assert data["resources"][0] == {
        "kind": "assets",
        "rel": "assets/blob.bin",
        "path": str(tree["low"] / "alpha" / "assets" / "blob.bin"),
        "size": 256,
    }
    assert data["resources_truncated"] is False
    assert data["metadata"]["allowed-tools"] == "Read Grep"
    assert set(INFO_KEYS) <= set(data)


def test_show_human(run: Any, tree: dict[str, Path]) -> None:
    out = run("show", "shared", *roots(tree)).stdout
    lines = out.splitlines()
    assert lines[0].split() == ["name", "shared"]
    assert lines[1].split() == ["description", "High", "copy."]
    assert lines[2].split() == ["version", "-"]  # SPEC §29.7: none declared
    assert ["user-invocable", "no"] in [line.split() for line in lines]
    assert ["shadows", str(tree["low"] / "shared")] in [line.split() for line in lines]
    assert "resources: 0" in lines
    assert lines[-1] == "Instructions."


def test_show_unknown_is_not_found(run: Any, tree: dict[str, Path]) -> None:
    result = run("show", "nope", *roots(tree))
    assert result.exit_code == 1
    assert result.stderr.endswith("not_found: No such skill: nope\n")
    assert result.stdout == ""


def test_resources(run: Any, tree: dict[str, Path]) -> None:
    result = run("resources", "alpha", *roots(tree))
    assert result.exit_code == 0
    assert [line.split() for line in result.stdout.splitlines()] == [
        ["KIND", "SIZE", "PATH"],
        ["assets", "256", "assets/blob.bin"],
        ["references", "6", "references/guide.md"],
        ["scripts", "9", "scripts/run.py"],
    ]
    data = json.loads(run("resources", "alpha", "--json", *roots(tree)).stdout)
    assert list(data) == ["name", "dir", "resources", "resources_truncated"]
    assert data["dir"] == str(tree["low"] / "alpha")
    assert len(data["resources"]) == 3
    assert run("resources", "shared", *roots(tree)).stdout == "shared has no resources.\n"
    assert run("resources", "zzz", *roots(tree)).exit_code == 1


def test_path(run: Any, tree: dict[str, Path]) -> None:
    result = run("path", "alpha", "references/guide.md", *roots(tree))
    assert result.exit_code == 0
    assert result.stdout == str(tree["low"] / "alpha" / "references" / "guide.md") + "\n"
    data = json.loads(run("path", "alpha", "SKILL.md", "--json", *roots(tree)).stdout)
    assert data == {
        "name": "alpha",
        "rel": "SKILL.md",
        "path": str(tree["low"] / "alpha" / "SKILL.md"),
    }


@pytest.mark.parametrize(
    ("rel", "code"),
    [
        ("../shared/SKILL.md", "path_escape"),
        ("/etc/passwd", "invalid_input"),
        ("references/none.md", "not_found"),
        ("references", "not_a_file"),
    ],
)
def test_path_errors(run: Any, tree: dict[str, Path], rel: str, code: str) -> None:
    result = run("path", "alpha", rel, *roots(tree))
    assert result.exit_code == 1
    assert last_error(result).startswith(f"{code}: ")
    assert result.stdout == ""


def test_read_writes_exact_bytes(run: Any, tree: dict[str, Path]) -> None:
    result = run("read", "alpha", "assets/blob.bin", *roots(tree))
    assert result.exit_code == 0
    assert result.stdout_bytes == bytes(range(256))


def test_read_max_bytes(run: Any, tree: dict[str, Path]) -> None:
    ok = run("read", "alpha", "scripts/run.py", "--max-bytes", "9", *roots(tree))
    assert ok.stdout_bytes == b"print(1)\n"
    big = run("read", "alpha", "scripts/run.py", "--max-bytes", "8", *roots(tree))
    assert big.exit_code == 1
    assert (
        last_error(big)
        == "too_large: Resource 'scripts/run.py' in skill 'alpha' is larger than 8 bytes"
    )
    assert run("read", "alpha", "x", "--max-bytes", "-1", *roots(tree)).exit_code == 2
    escape = run("read", "alpha", "../shared/SKILL.md", *roots(tree))
    assert (escape.exit_code, last_error(escape).split(":")[0]) == (1, "path_escape")


# --- catalog and report ---------------------------------------------------------------------


def test_catalog_markdown_leaves_out_hidden(run: Any, tree: dict[str, Path]) -> None:
    result = run("catalog", *roots(tree))
    assert result.exit_code == 0
    assert result.stdout == (
        "# Available skills\n\n- **alpha** — Alpha skill with spaces.\n- **shared** — High copy.\n"
    )
    with_all = run("catalog", "--all", *roots(tree)).stdout
    assert "- **hidden** — Not for the model.\n" in with_all


def test_catalog_xml_and_json(run: Any, tree: dict[str, Path]) -> None:
    xml = run("catalog", "--format", "xml", *roots(tree)).stdout
    assert xml.startswith("<available_skills>\n  <skill>\n    <name>alpha</name>")
    assert f"<location>{tree['low'] / 'alpha' / 'SKILL.md'}</location>" in xml
    data = json.loads(run("catalog", "--format", "json", *roots(tree)).stdout)
    assert [d["name"] for d in data] == ["alpha", "shared"]
    assert list(data[0]) == ["name", "description", "location", "scope", "source"]
    assert run("catalog", "--format", "yaml", *roots(tree)).exit_code == 2


def test_catalog_empty(run: Any, tmp_path: Path) -> None:
    result = run("catalog", "--preset", "none", "--root", str(tmp_path))
    assert (result.exit_code, result.stdout) == (0, "")


def test_report_json(run: Any, tree: dict[str, Path]) -> None:
    result = run("report", "--json", *roots(tree))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert list(data) == ["roots", "entries", "diagnostics", "not_searched"]
    assert [(e["name"], e["status"]) for e in data["entries"]] == [
        ("alpha", "loaded"),
        ("shared", "shadowed"),
        (None, "invalid"),
        (None, "skipped"),
        ("hidden", "loaded"),
        ("shared", "loaded"),
    ]
    shadowed = data["entries"][1]
    assert shadowed["shadowed_by"] == str(tree["high"] / "shared")
    assert data["entries"][3]["reason"] == "no SKILL.md in directory"
    kinds = [d["kind"] for d in data["diagnostics"]]
    assert kinds == ["invalid_skill", "shadowed"]
    # The report carries the diagnostics itself; nothing is repeated on stderr.
    assert result.stderr == ""


def test_report_table(run: Any, tree: dict[str, Path], tmp_path: Path) -> None:
    result = run("report", *roots(tree), "--root", str(tmp_path / "missing"))
    assert result.exit_code == 0
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0] == ["STATUS", "NAME", "PATH", "DETAIL"]
    assert rows[2][:3] == ["shadowed", "shared", str(tree["low"] / "shared")]
    assert rows[2][3:] == ["shadowed", "by", str(tree["high"] / "shared")]
    assert rows[3][:3] == ["invalid", "-", str(tree["high"] / "broken")]
    assert rows[4][:3] == ["skipped", "-", str(tree["high"] / "empty-dir")]
    missing = [
        str(tmp_path / "missing"),
        "workspace",
        "-",
        "missing",
        "root",
        "does",
        "not",
        "exist",
    ]
    assert missing in rows
    assert any(line.startswith("warning: invalid_skill: ") for line in result.stdout.splitlines())
    assert result.stdout.splitlines()[-1] == (
        "3 loaded, 1 shadowed, 0 duplicate, 1 invalid, 1 skipped"
    )


# --- validate -------------------------------------------------------------------------------


def _bad_skill(root: Path) -> Path:
    return make_skill(
        root,
        "Bad",
        raw="---\nname: Bad\ndescription: d\nextra: 1\n---\nSee [x](references/none.md)\n",
    )


def test_validate_clean_examples(run: Any) -> None:
    result = run("validate", str(EXAMPLES))
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "5 skill(s) checked: 0 error(s), 0 warning(s)\n"


def test_validate_lint_lines_and_exit_1(run: Any, tmp_path: Path) -> None:
    d = _bad_skill(tmp_path / "skills")
    result = run("validate", str(d))
    assert result.exit_code == 1
    manifest = d / "SKILL.md"
    assert result.stdout.splitlines() == [
        f"{manifest}:2: error name_uppercase name 'Bad' must be lowercase",
        f"{manifest}:4: warning unknown_key 'extra' is not a frontmatter key of the Agent Skills "
        "specification; strict hosts reject it (put custom data under 'metadata')",
        f"{manifest}:6: warning broken_reference link 'references/none.md' does not exist in "
        "the skill",
    ]
    assert result.stderr == "1 skill(s) checked: 1 error(s), 2 warning(s)\n"


def test_validate_warnings_pass_unless_asked(run: Any, tmp_path: Path) -> None:
    d = make_skill(tmp_path, "ok", raw="---\nname: ok\ndescription: d\nx: 1\n---\n")
    assert run("validate", str(d)).exit_code == 0
    assert run("validate", str(d), "--warnings-as-errors").exit_code == 1


def test_validate_json_root_and_manifest_paths(run: Any, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "good")
    bad = _bad_skill(root)
    (root / "not-a-skill").mkdir()
    result = run("validate", "--json", str(root), str(bad / "SKILL.md"))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [d["path"] for d in data] == [str(bad), str(root / "good")]
    assert [p["code"] for p in data[0]["problems"]] == [
        "name_uppercase",
        "unknown_key",
        "broken_reference",
    ]
    assert data[0]["problems"][0] == {
        "severity": "error",
        "code": "name_uppercase",
        "message": "name 'Bad' must be lowercase",
        "field": "name",
        "line": 2,
    }
    assert data[1]["problems"] == []
    assert result.stderr == ""


def test_validate_missing_path_and_empty_root(run: Any, tmp_path: Path) -> None:
    result = run("validate", str(tmp_path / "nope"))
    assert result.exit_code == 1
    assert (
        result.stdout
        == f"{tmp_path / 'nope'}: error path_not_found {tmp_path / 'nope'} does not exist\n"
    )
    (tmp_path / "empty").mkdir()
    empty = run("validate", "--json", str(tmp_path / "empty"))
    assert empty.exit_code == 1
    assert [p["code"] for p in json.loads(empty.stdout)[0]["problems"]] == ["manifest_missing"]


def test_validate_needs_a_path(run: Any) -> None:
    result = run("validate")
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr


# --- serve ----------------------------------------------------------------------------------


def test_serve_without_mcp_package(
    run: Any, tree: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "agent_skills.mcp", None)
    result = run("serve", *roots(tree))
    assert result.exit_code == 2  # a missing extra is a matter of installation, as for any extra
    # The SDK is installed here, its import made to fail: the message says so (the exact form
    # without the SDK is tests/mcp/test_program.py's).
    assert last_error(result).startswith(
        "mcp_unavailable: the MCP server needs the 'mcp' extra ('mcp' is installed but does not "
        "import: "
    )
    assert last_error(result).endswith(
        f"; install it with: {sys.executable} -m pip install 'mcp>=2.3,<3' (or, from a checkout: "
        "pip install '.[mcp]')"
    )


def test_serve_calls_the_mcp_module(
    run: Any, tree: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, Any, dict[str, Any]]] = []
    fake = types.ModuleType("agent_skills.mcp")
    fake.run_stdio = lambda skills, **kw: calls.append(("stdio", skills, kw))  # type: ignore[attr-defined]

    def run_http(skills: Any, ready: Any, **kw: Any) -> None:
        ready(f"http://{kw['host']}:{kw['port']}/mcp")  # the CLI says where it listens
        calls.append(("http", skills, kw))

    fake.run_http = run_http  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agent_skills.mcp", fake)
    assert run("serve", *roots(tree)).exit_code == 0
    assert run("serve", "--watch", *roots(tree)).exit_code == 0
    assert run("serve", "--http", "--port", "8765", *roots(tree)).exit_code == 0
    assert run("serve", "--http", *roots(tree)).exit_code == 0
    assert (
        run("serve", "--http", "--stateless", "--host", "0.0.0.0", "--watch", *roots(tree))
    ).exit_code == 0
    assert (
        run(
            "serve",
            "--http",
            "--host",
            "::",
            "--allow-host",
            "a.lan",
            "--allow-host",
            "b.lan",
            *roots(tree),
        )
    ).exit_code == 0
    http = {"host": "127.0.0.1", "stateless": False, "watch": False, "allow_hosts": ()}
    assert [(c[0], c[2]) for c in calls] == [
        ("stdio", {"watch": False}),
        ("stdio", {"watch": True}),
        ("http", {**http, "port": 8765}),
        ("http", {**http, "port": 8000}),
        (
            "http",
            {"host": "0.0.0.0", "port": 8000, "stateless": True, "watch": True, "allow_hosts": ()},
        ),
        ("http", {**http, "host": "::", "port": 8000, "allow_hosts": ("a.lan", "b.lan")}),
    ]
    assert [i.name for i in calls[0][1].list_skills()] == ["alpha", "hidden", "shared"]
    assert run("serve", "--port", "0", *roots(tree)).exit_code == 2
    for args in (["--stateless"], ["--host", "0.0.0.0"]):
        refused = run("serve", *args, *roots(tree))
        assert refused.exit_code == 2
        assert last_error(refused) == "usage_error: --stateless and --host apply to --http only"
    refused = run("serve", "--allow-host", "a.lan", *roots(tree))
    assert refused.exit_code == 2
    assert last_error(refused) == "usage_error: --allow-host applies to --http only"
    assert len(calls) == 6


# --- errors, help, entry points -------------------------------------------------------------


def test_usage_errors_exit_2(run: Any) -> None:
    assert run("nope").exit_code == 2
    assert run("list", "--bogus").exit_code == 2
    assert run("list", "--preset", "other").exit_code == 2
    assert run("show").exit_code == 2


def test_internal_error_is_one_line(
    run: Any, tree: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    import agent_skills.catalog  # the catalog command imports it when it runs (SPEC §26)

    monkeypatch.setattr(agent_skills.catalog, "render_skill_catalog", boom)
    result = run("catalog", *roots(tree))
    assert result.exit_code == 1
    assert last_error(result) == "internal_error: RuntimeError: boom"
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_examples(run: Any, command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout
    assert f"agent-skills {command}" in result.stdout


def test_group_help_and_version(run: Any) -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert all(c in result.stdout for c in COMMANDS)
    version = run("--version")
    assert (version.exit_code, version.stdout) == (0, "agent-skills, version 0.2.0\n")


def test_main_returns_exit_codes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["validate", str(EXAMPLES)]) == 0
    assert main(["list", "--preset", "none"]) == 2
    assert main(["show", "x", "--preset", "none", "--root", str(EXAMPLES)]) == 1
    assert main(["frobnicate"]) == 2
    assert main(["--help"]) == 0
    err = capsys.readouterr().err
    assert "startup_error: no skill roots" in err
    assert "not_found: No such skill: x" in err
    assert "No such command 'frobnicate'" in err


# --- real processes -------------------------------------------------------------------------


def _exe() -> Path:
    exe = Path(sys.executable).parent / "agent-skills"
    if not exe.exists():
        pytest.skip("agent-skills console script not installed in this environment")
    return exe


def _proc(args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(args, capture_output=True, env=env, cwd=cwd, timeout=120, check=False)


def test_console_script_list_json(home: Path, tmp_path: Path) -> None:
    proc = _proc(
        [str(_exe()), "list", "--json", "--preset", "none", "--root", str(EXAMPLES)], home, tmp_path
    )
    assert proc.returncode == 0
    names = [d["name"] for d in json.loads(proc.stdout)]
    assert names == [
        "api-review",
        "commit-message",
        "csv-profiler",
        "incident-report",
        "release-notes",
    ]
    assert proc.stderr == b""


def test_console_script_read_and_errors(home: Path, tmp_path: Path) -> None:
    exe = str(_exe())
    base = ["--preset", "none", "--root", str(EXAMPLES)]
    read = _proc([exe, "read", "csv-profiler", "examples/sample.csv", *base], home, tmp_path)
    assert read.returncode == 0
    assert read.stdout == (EXAMPLES / "csv-profiler" / "examples" / "sample.csv").read_bytes()
    escape = _proc([exe, "read", "csv-profiler", "../api-review/SKILL.md", *base], home, tmp_path)
    assert escape.returncode == 1
    assert escape.stderr.startswith(b"path_escape: ")
    assert b"Traceback" not in escape.stderr
    startup = _proc([exe, "list", "--workspace", str(tmp_path / "none")], home, tmp_path)
    assert startup.returncode == 2
    assert startup.stderr.startswith(b"startup_error: ")


def test_console_script_validate_tree(home: Path, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "fine")
    _bad_skill(root)
    proc = _proc([str(_exe()), "validate", str(root)], home, tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines()[0] == (
        f"{root / 'Bad' / 'SKILL.md'}:2: error name_uppercase name 'Bad' must be lowercase"
    )
    assert proc.stderr == b"2 skill(s) checked: 1 error(s), 2 warning(s)\n"


def test_python_dash_m(home: Path, tmp_path: Path) -> None:
    proc = _proc([sys.executable, "-m", "agent_skills", "validate", str(EXAMPLES)], home, tmp_path)
    assert proc.returncode == 0
    report = _proc(
        [sys.executable, "-m", "agent_skills", "report", "--json", "--preset", "agents"],
        home,
        tmp_path,
    )
    assert report.returncode == 0
    data = json.loads(report.stdout)
    assert [r["status"] for r in data["roots"]] == ["missing", "missing"]


def test_import_stays_light(tmp_path: Path) -> None:
    code = (
        "import sys, agent_skills, agent_skills.validate; "
        "print(sorted(m for m in ('click', 'rich', 'mcp') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert proc.stdout.strip() == "[]"


def test_list_says_how_many_skills_were_held_back(run: Any, tree: dict[str, Path]) -> None:
    """Issue friction: a trust store, --disable or --only never shortens the list silently."""
    from agent_skills import TrustStore

    store = tree["low"].parent / "trust.json"
    TrustStore(store)  # an empty store: every workspace skill is unapproved
    gated = run("list", "--json", "--trust-store", str(store), *roots(tree))
    assert json.loads(gated.stdout) == []
    held = [w for w in json.loads(gated.stderr)["warnings"] if w["code"] == "held_back"]
    assert held == [
        {
            "code": "held_back",
            "message": "3 skills not listed: 3 not approved in the trust store (see "
            "`agent-skills trust`); see `agent-skills report`",
        }
    ]
    disabled = run(
        "list", "--disable", "alpha", "--only", "alpha", "--only", "shared", *roots(tree)
    )
    assert [line.split()[0] for line in disabled.stdout.splitlines()[1:]] == ["shared"]
    assert disabled.stderr.splitlines()[-1] == (
        "warning: held_back: 2 skills not listed: 2 disabled (--disable, --only); see "
        "`agent-skills report`"
    )
    plain = run("list", *roots(tree))
    assert "held_back" not in plain.stderr


def test_each_warning_is_shown_once_per_run(run: Any, tree: dict[str, Path]) -> None:
    """The same root given twice scans the broken skill twice: its warning is printed once."""
    twice = ["--root", str(tree["high"]), "--root", str(tree["high"])]
    result = run("list", "--preset", "none", *twice)
    broken = [line for line in result.stderr.splitlines() if "broken" in line]
    assert len(broken) == 1 and broken[0].startswith("warning: invalid_skill: skipping ")
    again = run("list", "--preset", "none", *twice)  # a new run shows it again, once
    assert [line for line in again.stderr.splitlines() if "broken" in line] == broken


def test_report_says_when_skipped_folders_hold_skills_one_level_down(
    run: Any, tmp_path: Path
) -> None:
    # A catalog of category folders (ios/swiftui) finds nothing at the default depth of 1:
    # report names the folders whose subfolders hold skills and the option that finds them.
    root = tmp_path / "catalog"
    make_skill(root / "ios", "swiftui")
    make_skill(root / "ios", "uikit")
    make_skill(root / "web" / "react", "hooks")  # two levels down: not named
    make_skill(root, "top")
    (root / "empty" / "deeper").mkdir(parents=True)
    result = run("report", "--preset", "none", "--root", str(root))
    assert result.exit_code == 0, result.output
    hint = "1 skipped folder (ios) holds skills one level down: search it with --max-depth 2."
    assert hint in result.stdout.splitlines()
    make_skill(root / "android", "compose")
    result = run("report", "--preset", "none", "--root", str(root))
    hint = (
        "2 skipped folders (android, ios) hold skills one level down: search them with "
        "--max-depth 2."
    )
    assert hint in result.stdout.splitlines()
    for deeper in (["--max-depth", "2"], ["--json"]):  # found there; no person's note in JSON
        result = run("report", "--preset", "none", "--root", str(root), *deeper)
        assert "one level down" not in result.stdout + result.stderr
    # Folders a search of depth 2 does not search are never named (SPEC §21.4).
    other = tmp_path / "other"
    make_skill(other / "node_modules", "pkg")
    make_skill(other / ".hidden", "secret")
    make_skill(other / "ignored", "gone")
    (other / ".gitignore").write_text("ignored/\n")
    make_skill(other / "__pycache__", "cached")
    result = run("report", "--preset", "none", "--root", str(other))
    assert result.exit_code == 0, result.output
    assert "one level down" not in result.stdout
    make_skill(other / "tools", "lint")
    result = run("report", "--preset", "none", "--root", str(other))
    hint = "1 skipped folder (tools) holds skills one level down: search it with --max-depth 2."
    assert hint in result.stdout.splitlines()
