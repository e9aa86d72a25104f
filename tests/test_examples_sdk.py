"""The SDK examples run offline against their recorded transcripts (SPEC §22.5-§22.6).

Each runs in a subprocess with no API key in its environment, from an unrelated directory; the
replay checks every request against the SDK's own request types, so a wrong tool or message
shape fails here.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import REPO, run_example

# The examples run against the SDKs in subprocesses.
pytestmark = [pytest.mark.slow]

EXAMPLES = REPO / "examples"


def _run(tmp_path: Path, script: str, *args: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return run_example(EXAMPLES / script, *args, cwd=tmp_path, env=env)


def test_anthropic_messages_example(tmp_path: Path) -> None:
    pytest.importorskip("anthropic")
    lines = _run(tmp_path, "anthropic_messages.py")
    assert lines[0] == "(no ANTHROPIC_API_KEY: replaying anthropic_messages.json)"
    assert lines[1] == "tools: activate_skill, read_skill_resource"
    tools = [line for line in lines if line.startswith("tool ")]
    assert [line.split(" -> ")[0] for line in tools] == [
        "tool activate_skill(name='api-review')",
        "tool read_skill_resource(name='api-review', path='references/checklist.md')",
        "tool read_skill_resource(name='api-review', path='references/status-codes.md')",
    ]
    assert all(line.endswith(" characters") for line in tools)
    assert lines[-1] == "active skills: api-review"
    assert "1. (blocker) `/getOrder` names an action" in "\n".join(lines)


def test_openai_responses_example(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    lines = _run(tmp_path, "openai_responses.py")
    assert lines[0] == "(no OPENAI_API_KEY: replaying openai_responses.json)"
    used, budget = lines[1].removeprefix("catalog: ").removesuffix(" characters").split(" of ")
    assert int(used) <= int(budget) == 1200
    assert lines[2] == (
        "listed: api-review, commit-message; not listed: csv-profiler, incident-report, "
        "release-notes"
    )
    assert lines[3] == "tools: activate_skill, read_skill_resource, search_skills"
    tools = [line.split(" -> ")[0] for line in lines if line.startswith("tool ")]
    assert tools == [
        'tool search_skills({"query": "release notes changelog", "limit": null})',
        'tool activate_skill({"name": "release-notes"})',
        'tool read_skill_resource({"name": "release-notes", "path": "references/style.md"})',
    ]
    # The skill the catalog left out is the first search result.
    search = next(i for i, line in enumerate(lines) if line.startswith("tool search"))
    assert lines[search + 1] == (
        "    | release-notes: Drafts user-facing release notes from the git history between two "
        "refs (tag"
    )
    assert lines[-1] == "active skills: release-notes"


def test_replay_refuses_a_request_of_the_wrong_shape(tmp_path: Path) -> None:
    pytest.importorskip("anthropic")
    pydantic = pytest.importorskip("pydantic")
    sys.path.insert(0, str(EXAMPLES))
    try:
        from _replay import Transcript
        from anthropic_messages import ReplayClient
    finally:
        sys.path.remove(str(EXAMPLES))
    client = ReplayClient(Transcript(EXAMPLES / "transcripts" / "anthropic_messages.json"))
    with pytest.raises(pydantic.ValidationError):
        client.messages.create(tools=[{"description": "no name"}], messages=[])
    path = tmp_path / "short.json"
    path.write_text(json.dumps({"api": "x", "model": "m", "task": "t", "responses": []}))
    with pytest.raises(RuntimeError, match="went past its recording"):
        Transcript(path).next_response()
