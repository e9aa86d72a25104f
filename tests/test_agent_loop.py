"""``examples/agent_loop.py`` runs end to end and its transcript shows the SPEC §14 flow.

The script runs in a subprocess, from an unrelated working directory, on the skills shipped in
``examples/skills``. Expected values (catalog, content lengths, roots) come from the library.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agent_skills import create_agent_skills
from agent_skills.agent import SkillSession
from conftest import REPO, run_example

SCRIPT = REPO / "examples" / "agent_loop.py"
SKILLS = REPO / "examples" / "skills"


def _run(tmp_path: Path, *args: str) -> list[str]:
    return run_example(SCRIPT, *args, cwd=tmp_path)


@pytest.fixture(scope="module")
def session() -> SkillSession:
    return SkillSession(create_agent_skills([SKILLS]))


def _project_root(lines: list[str]) -> str:
    (line,) = [ln for ln in lines if ln.startswith("project root: ")]
    return line.removeprefix("project root: ")


def test_transcript_api_review(tmp_path: Path, session: SkillSession) -> None:
    lines = _run(tmp_path)
    project = _project_root(lines)
    skill = SKILLS / "api-review"
    activation = session.activate("api-review")
    checklist = (skill / "references" / "checklist.md").read_text(encoding="utf-8")
    codes = (skill / "references" / "status-codes.md").read_text(encoding="utf-8")

    # The catalog is the system prompt, exactly as the session renders it.
    system = "You are a careful engineering assistant.\n\n" + session.catalog_prompt("xml")
    assert lines[0] == "=== system prompt ==="
    assert lines[1 : 1 + len(system.rstrip().splitlines())] == system.rstrip().splitlines()
    assert [ln for ln in lines if ln.startswith("    <name>")] == [
        "    <name>api-review</name>",
        "    <name>commit-message</name>",
        "    <name>csv-profiler</name>",
        "    <name>incident-report</name>",
        "    <name>release-notes</name>",
    ]
    assert "=== tools: activate_skill, read_skill_resource, read_file ===" in lines
    assert f"allowed read roots: {project}" in lines
    assert "user: Review the HTTP API described in openapi.yaml before we publish it." in lines

    calls = [ln for ln in lines if ln.startswith(("assistant -> ", "tool "))]
    guessed = f"{SKILLS}/commit-message/SKILL.md"
    climbed = f"{skill}/../csv-profiler/SKILL.md"
    assert calls == [
        'assistant -> activate_skill {"name": "api-review"}',
        f"tool activate_skill: ok, {len(activation.content)} characters",
        f'assistant -> read_file {{"path": "{skill}/references/checklist.md"}}',
        f"tool read_file: ok, {len(checklist)} characters",
        'assistant -> read_file {"path": "openapi.yaml"}',
        "tool read_file: ok, 285 characters",
        'assistant -> read_skill_resource {"name": "api-review", '
        '"path": "references/status-codes.md"}',
        f"tool read_skill_resource: ok, {len(codes)} characters",
        f'assistant -> read_file {{"path": "{guessed}"}}',
        f"tool read_file: REFUSED access_denied: Access denied: {guessed} is outside the "
        "readable roots",
        f'assistant -> read_file {{"path": "{climbed}"}}',
        f"tool read_file: REFUSED access_denied: Access denied: {climbed} is outside the "
        "readable roots",
        'assistant -> read_file {"path": "/etc/passwd"}',
        "tool read_file: REFUSED access_denied: Access denied: /etc/passwd is outside the "
        "readable roots",
        'assistant -> read_skill_resource {"name": "commit-message", "path": "SKILL.md"}',
        "tool read_skill_resource: REFUSED access_denied: Skill 'commit-message' is not active "
        "in this conversation; call activate_skill first",
        'assistant -> read_skill_resource {"name": "api-review", "path": "../../secret"}',
        "tool read_skill_resource: REFUSED path_escape: resource path escapes the skill "
        "directory: ../../secret",
    ]

    # The activation result is the §14 wrapper; previews show its first lines.
    start = lines.index(f"tool activate_skill: ok, {len(activation.content)} characters")
    assert lines[start + 1 : start + 3] == [
        '    | <skill_content name="api-review">',
        "    | # API design review",
    ]
    assert lines[-4:] == [
        "    2. (major) `POST /orders` returns 200; creating a resource returns 201 with a "
        "Location header.",
        "=== allowed read roots at the end ===",
        f"  {project}",
        f"  {skill}",
    ]
    assert "assistant: Done with skill 'api-review'." in lines


def test_transcript_other_task(tmp_path: Path) -> None:
    lines = _run(tmp_path, "--task", "Draft the release notes since the last tag")
    skill = SKILLS / "release-notes"
    calls = [ln for ln in lines if ln.startswith("assistant -> ")]
    assert calls[:2] == [
        'assistant -> activate_skill {"name": "release-notes"}',
        f'assistant -> read_file {{"path": "{skill}/references/style.md"}}',
    ]
    refused = [ln.split(": ")[0] for ln in lines if "REFUSED" in ln]
    assert refused == ["tool read_file"] * 3 + ["tool read_skill_resource"] * 2
    assert lines[-3:] == [
        "=== allowed read roots at the end ===",
        f"  {_project_root(lines)}",
        f"  {skill}",
    ]


def test_transcript_custom_root(tmp_path: Path) -> None:
    root = tmp_path / "my skills #2"
    for name, description in [
        ("api-review", "Review an HTTP API design."),
        ("notes", "Take meeting notes."),
    ]:
        (root / name / "references").mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\nBody.\n", encoding="utf-8"
        )
        (root / name / "references" / "a.md").write_text("A\n", encoding="utf-8")
    lines = _run(tmp_path, "--skills", str(root))
    assert 'assistant -> activate_skill {"name": "api-review"}' in lines
    assert f'assistant -> read_file {{"path": "{root}/api-review/references/a.md"}}' in lines
    assert "tool read_file: ok, 2 characters" in lines
    assert lines[-1] == f"  {root / 'api-review'}"


def test_transcript_single_skill(tmp_path: Path) -> None:
    root = tmp_path / "one"
    (root / "solo").mkdir(parents=True)
    (root / "solo" / "SKILL.md").write_text(
        "---\nname: solo\ndescription: Review anything.\n---\nBody.\n", encoding="utf-8"
    )
    lines = _run(tmp_path, "--skills", str(root))
    assert [ln for ln in lines if ln.startswith("assistant -> ")] == [
        'assistant -> activate_skill {"name": "solo"}',
        f'assistant -> read_file {{"path": "{root}/solo/SKILL.md"}}',
        'assistant -> read_file {"path": "openapi.yaml"}',
        'assistant -> read_file {"path": "/etc/passwd"}',
        'assistant -> read_skill_resource {"name": "solo", "path": "../../secret"}',
    ]
    assert lines[-1] == f"  {root / 'solo'}"


def test_the_host_s_read_file_answers_what_is_not_a_readable_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The example's sandboxed read_file tool: a missing file, a directory, a FIFO, a link at the
    # last step and a file over the cap are answers to the model, never exceptions.
    import importlib.util

    spec = importlib.util.spec_from_file_location("agent_loop_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # (its dataclasses look it up)
    spec.loader.exec_module(module)
    read = module._read_text
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "small.txt").write_text("ok\n")
    (tmp_path / "big.txt").write_text("x" * 11)
    (tmp_path / "link").symlink_to(tmp_path / "small.txt")
    assert read(tmp_path / "small.txt", 10) == (True, "ok\n")
    assert read(tmp_path / "missing", 10) == (False, f"not_found: no such file: {tmp_path}/missing")
    assert read(tmp_path / "dir", 10) == (False, f"not_a_file: {tmp_path}/dir")
    assert read(tmp_path / "pipe", 10) == (False, f"not_a_file: {tmp_path}/pipe")
    assert read(tmp_path / "big.txt", 10) == (
        False,
        f"too_large: {tmp_path}/big.txt is larger than 10 bytes",
    )
    ok, text = read(tmp_path / "link", 10)
    assert (ok, text.split(":")[0]) == (False, "io_error")
