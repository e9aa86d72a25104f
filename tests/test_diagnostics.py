"""SPEC §7.4-§7.6: Diagnostic records, the logger and the warn sink."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import agent_skills
from agent_skills import (
    Diagnostic,
    DiagnosticKind,
    DiscoveryReport,
    create_agent_skills,
    set_warn_sink,
)
from agent_skills._diagnostics import emit
from conftest import make_skill

KINDS = [
    "invalid_skill",
    "io_error",
    "duplicate_skill",
    "name_mismatch",
    "manifest_case",
    "dangling_symlink",
    "escaping_symlink",
    "invalid_utf8",
    "yaml_repaired",
    "invalid_field",
    "resources_truncated",
    "shadowed",
    "name_missing",
    "scan_truncated",
    "archive_link",
    "invalid_archive",
    "index_ignored",  # SPEC §26: a damaged or foreign index file, or one that was not written
    "not_published",  # SPEC §17, §23.5: a skill the MCP extension leaves out, with its reason
    "manifest_outside",
    "not_a_file",
    "too_large",
    "path_left_out",  # SPEC §28.2: a granted path a host's format cannot carry
    "description_too_long",  # SPEC §29.6
    "unknown_name",  # SPEC §29.6: a name in only or disabled that matches no skill
    "grant_not_written",  # SPEC §28.5: a host's settings file that could not take a grant
]


@pytest.fixture(autouse=True)
def _reset_sink() -> object:
    yield None
    set_warn_sink(None)


def test_kinds_are_the_spec_kinds() -> None:
    assert [k.value for k in DiagnosticKind] == KINDS
    assert DiagnosticKind("shadowed") == "shadowed"


def test_diagnostic_fields_and_dict() -> None:
    d = Diagnostic(DiagnosticKind.NAME_MISMATCH, "m", Path("/p"))
    assert (d.kind, d.message, d.path, d.severity) == ("name_mismatch", "m", Path("/p"), "warning")
    assert d.to_dict() == {
        "kind": "name_mismatch",
        "message": "m",
        "path": "/p",
        "severity": "warning",
    }
    assert Diagnostic(DiagnosticKind.SHADOWED, "s", None, "info").to_dict()["path"] is None


def test_emit_logs_warnings_and_info(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[str] = []
    set_warn_sink(seen.append)
    caplog.set_level(logging.DEBUG, logger="agent_skills")
    emit(
        [
            Diagnostic(DiagnosticKind.YAML_REPAIRED, "repaired one"),
            Diagnostic(DiagnosticKind.SHADOWED, "shadowed one", None, "info"),
        ]
    )
    records = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert records == [
        ("agent_skills", logging.WARNING, "repaired one"),
        ("agent_skills", logging.INFO, "shadowed one"),
    ]
    assert seen == ["repaired one"]


def test_set_warn_sink_none_resets() -> None:
    seen: list[str] = []
    set_warn_sink(seen.append)
    set_warn_sink(None)
    emit([Diagnostic(DiagnosticKind.YAML_REPAIRED, "x")])
    assert seen == []


def test_replacing_the_sink(tmp_path: Path) -> None:
    first: list[str] = []
    second: list[str] = []
    set_warn_sink(first.append)
    set_warn_sink(second.append)
    emit([Diagnostic(DiagnosticKind.NAME_MISMATCH, "y")])
    assert (first, second) == ([], ["y"])


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    make_skill(a, "same")
    make_skill(b, "same")
    make_skill(b, "broken", raw="---\nname: broken\n")
    make_skill(b, "other-dir", frontmatter={"name": "renamed", "description": "d"})
    return a, b


def test_discovery_logs_and_sinks(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    a, b = _tree(tmp_path)
    seen: list[str] = []
    set_warn_sink(seen.append)
    caplog.set_level(logging.INFO, logger="agent_skills")
    skills = create_agent_skills([a, b], cwd=tmp_path, home=tmp_path)
    diags = skills.diagnostics
    assert sorted((d.kind.value, d.severity) for d in diags) == [
        ("invalid_skill", "warning"),
        ("name_mismatch", "warning"),
        ("shadowed", "warning"),  # SPEC §21.8: a shadowed copy is a warning
    ]
    warnings = [d.message for d in diags if d.severity == "warning"]
    infos = [d.message for d in diags if d.severity == "info"]
    assert seen == warnings
    logged = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "agent_skills"]
    assert sorted(logged) == sorted(
        [(logging.WARNING, m) for m in warnings] + [(logging.INFO, m) for m in infos]
    )
    report = skills.report()
    assert isinstance(report, DiscoveryReport)
    assert report.diagnostics == diags


def test_faulty_sink_does_not_break_discovery(tmp_path: Path) -> None:
    a, b = _tree(tmp_path)
    calls: list[str] = []

    def bad_sink(message: str) -> None:
        calls.append(message)
        raise RuntimeError("sink failure")

    set_warn_sink(bad_sink)
    skills = create_agent_skills([a, b], cwd=tmp_path, home=tmp_path)
    assert [s.name for s in skills.list_skills()] == ["renamed", "same"]
    assert len(calls) == 3
    skills.refresh()
    assert len(calls) == 6


def test_without_sink_warnings_reach_the_logger(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = _tree(tmp_path)
    caplog.set_level(logging.WARNING, logger="agent_skills")
    create_agent_skills([a, b], cwd=tmp_path, home=tmp_path)
    assert [r.levelno for r in caplog.records if r.name == "agent_skills"] == [logging.WARNING] * 3


def test_warn_messages_fixture_captures(tmp_path: Path, warn_messages: list[str]) -> None:
    make_skill(tmp_path / "r", "x", raw="---\nname: x\ndescription: a: b\n---\n")
    create_agent_skills([tmp_path / "r"], cwd=tmp_path, home=tmp_path)
    assert len(warn_messages) == 1
    assert "repaired (line 3)" in warn_messages[0]


def test_severity_and_root_status_are_enums_and_accept_their_words(tmp_path: Path) -> None:
    from agent_skills._diagnostics import DiagnosticSeverity, RootStatus

    d = Diagnostic(DiagnosticKind.SHADOWED, "m", None, "info")  # type: ignore[arg-type]
    assert d.severity is DiagnosticSeverity.INFO and d.severity == "info"
    assert Diagnostic("io_error", "m").kind is DiagnosticKind.IO_ERROR  # type: ignore[arg-type]
    assert Diagnostic(DiagnosticKind.IO_ERROR, "m").severity is DiagnosticSeverity.WARNING
    assert d.to_dict() == {"kind": "shadowed", "message": "m", "path": None, "severity": "info"}
    with pytest.raises(ValueError):
        Diagnostic(DiagnosticKind.IO_ERROR, "m", None, "error")  # type: ignore[arg-type]
    assert [s.value for s in RootStatus] == [
        "ok",
        "missing",
        "not_a_directory",
        "unreadable",
        "invalid_archive",  # an archive root refused whole (SPEC §25.1)
    ]
    skills = agent_skills.create_agent_skills([tmp_path / "absent"])
    (note,) = skills.report().roots
    assert note.status is RootStatus.MISSING
    assert note.to_dict()["status"] == "missing"


def test_a_logged_diagnostic_holds_no_lone_surrogate(caplog: pytest.LogCaptureFixture) -> None:
    """A name that is not UTF-8 reaches the log escaped: a UTF-8 handler can write the record."""
    from agent_skills._diagnostics import Diagnostic, DiagnosticKind, emit

    message = "skill folder b'\\xff' skipped: /skills/\udcff"
    with caplog.at_level("INFO", logger="agent_skills"):
        emit([Diagnostic(DiagnosticKind.INVALID_SKILL, message)])
    logged = [record.getMessage() for record in caplog.records]
    assert logged == ["skill folder b'\\xff' skipped: /skills/\\udcff"]
    assert all(text.encode("utf-8") for text in logged)


def test_a_library_user_gets_log_records_never_bare_stderr_lines(tmp_path: Path) -> None:
    """Issue friction: without logging configured nothing reaches stderr; with it, every
    warning is a record of the ``agent_skills`` logger (SPEC §7.6)."""
    import subprocess
    import sys

    from conftest import make_skill

    make_skill(tmp_path / "r", "broken", raw="---\nname: broken\n---\n")
    make_skill(tmp_path / "r", "ok")
    code = (
        "import sys, agent_skills\n"
        "if sys.argv[1] == 'logging':\n"
        "    import logging; logging.basicConfig(format='%(levelname)s %(name)s: %(message)s')\n"
        "s = agent_skills.create_agent_skills([sys.argv[2]])\n"
        "print(len(s))\n"
    )
    root = str(tmp_path / "r")
    plain = subprocess.run(
        [sys.executable, "-c", code, "plain", root], capture_output=True, text=True, timeout=60
    )
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, "1\n", "")
    logged = subprocess.run(
        [sys.executable, "-c", code, "logging", root], capture_output=True, text=True, timeout=60
    )
    assert logged.stderr == (
        f"WARNING agent_skills: skipping {tmp_path / 'r' / 'broken' / 'SKILL.md'}: invalid "
        "frontmatter 'description': required key is missing\n"
    )
