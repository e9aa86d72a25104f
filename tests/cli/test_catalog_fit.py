"""``agent-skills catalog --max-chars N`` (SPEC §22.1 through the CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from agent_skills import create_agent_skills
from agent_skills.catalog import fit_catalog
from agent_skills.cli import cli
from conftest import make_skill


def _root(tmp_path: Path, count: int) -> Path:
    root = tmp_path / "skills"
    for i in range(count):
        make_skill(
            root,
            f"skill-{i:02d}",
            frontmatter={"name": f"skill-{i:02d}", "description": "Does one thing well."},
        )
    return root


def _invoke(tmp_path: Path, root: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli,
        ["catalog", "--preset", "none", "--root", str(root), *args],
        env={"HOME": str(tmp_path)},
        catch_exceptions=False,
    )
    return result.exit_code, result.stdout, result.stderr


def test_max_chars_prints_the_fitted_catalog_and_a_report(tmp_path: Path) -> None:
    root = _root(tmp_path, 30)
    code, out, err = _invoke(tmp_path, root, "--max-chars", "300")
    fit = fit_catalog(create_agent_skills([root]).list_skills(), max_chars=300, format="markdown")
    assert code == 0
    assert out == fit.text and len(out) <= 300
    omitted = ", ".join(fit.omitted[:20])
    assert err == (
        f"note: {len(fit.included)} of 30 skills listed in {len(fit.text)} of 300 characters; "
        f"omitted: {omitted} … and {len(fit.omitted) - 20} more\n"
    )


def test_max_chars_json_is_valid_json(tmp_path: Path) -> None:
    root = _root(tmp_path, 8)
    code, out, err = _invoke(tmp_path, root, "--max-chars", "700", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert "also_available" in data[-1]
    assert len(out.rstrip("\n")) <= 700
    assert err.startswith(f"note: {len(data) - 1} of 8 skills listed")


def test_max_chars_that_fits_everything(tmp_path: Path) -> None:
    root = _root(tmp_path, 2)
    code, out, err = _invoke(tmp_path, root, "--max-chars", "10000", "--format", "xml")
    assert (code, err) == (0, f"note: 2 of 2 skills listed in {len(out)} of 10000 characters\n")


def test_max_chars_must_be_a_count(tmp_path: Path) -> None:
    code, _, err = _invoke(tmp_path, _root(tmp_path, 1), "--max-chars", "-1")
    assert code == 2
    assert "--max-chars" in err


def test_max_chars_holds_after_control_characters_are_escaped(tmp_path: Path) -> None:
    """Escaping what a terminal would act on lengthens a description (one character becomes
    four): the printed catalog still fits the budget, in every format (SPEC §22.1, §20.9)."""
    root = tmp_path / "skills"
    for i in range(12):
        make_skill(
            root,
            f"ctl-{i:02d}",
            frontmatter={
                "name": f"ctl-{i:02d}",
                "description": "Bell\x07 and escape\x1b[31m and C1\x9b here " * 3,
            },
        )
    for fmt in ("markdown", "xml", "json"):
        for budget in (150, 400, 900, 2000):
            code, out, err = _invoke(tmp_path, root, "--max-chars", str(budget), "--format", fmt)
            printed = out[:-1] if fmt == "json" and out else out
            assert code == 0, err
            assert len(printed) <= budget, (fmt, budget, len(printed))
            assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
            assert f"listed in {len(printed)} of {budget} characters" in err
            if fmt == "json" and printed:
                json.loads(printed)


def test_under_json_stderr_holds_no_note(run: Any, tmp_path: Path) -> None:
    # SPEC §21.11: under --json stderr holds at most one JSON object; the fit's report and the
    # empty catalog's hint are notes for a person, left out there (the output says it).
    root = _root(tmp_path, 8)
    empty = tmp_path / "empty"
    empty.mkdir()
    for args in (
        ["--json", "--max-chars", "300"],
        ["--json", "--max-chars", "10000"],
        ["--max-chars", "300", "--json"],
    ):
        result = run("catalog", "--preset", "none", "--root", str(root), *args)
        assert (result.exit_code, result.stderr) == (0, ""), args
        assert isinstance(json.loads(result.stdout), list)
    # A budget too small for even the note: "" (SPEC §22.1), and still no note on stderr.
    result = run("catalog", "--json", "--max-chars", "0", "--preset", "none", "--root", str(root))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    result = run("catalog", "--json", "--preset", "none", "--root", str(empty))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "[]\n", "")
    # With a warning to give, stderr is that one object.
    result = run(
        "catalog",
        "--json",
        "--max-chars",
        "300",
        "--preset",
        "none",
        "--root",
        str(root),
        "--root",
        str(tmp_path / "missing"),
    )
    assert result.exit_code == 0
    assert [w["code"] for w in json.loads(result.stderr)["warnings"]] == ["root_missing"]
