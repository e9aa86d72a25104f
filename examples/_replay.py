"""Recorded transcripts for the SDK examples: replay them offline, or record new ones.

A transcript is a JSON file ``{"api", "model", "task", "responses": [...]}`` whose responses are
the API's own response bodies, in order. Replaying hands them back one per request, after
checking each request against the SDK's own request types, so an example runs without a key or a
network and still exercises the exact shapes a real call sends and receives.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

try:
    import agent_skills  # noqa: F401
except ImportError:  # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"
SKILLS = Path(__file__).resolve().parent / "skills"


class Transcript:
    """The responses of one recorded conversation, handed out in order."""

    def __init__(self, path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        self.path = path
        self.api: str = data["api"]
        self.model: str = data["model"]
        self.task: str = data["task"]
        self._responses: list[dict[str, Any]] = list(data["responses"])

    def next_response(self) -> dict[str, Any]:
        """The next recorded response body; an error when the conversation went further."""
        if not self._responses:
            raise RuntimeError(f"{self.path.name}: the conversation went past its recording")
        return self._responses.pop(0)


class Recorder:
    """Collects real responses and writes them as a transcript."""

    def __init__(self, api: str, model: str, task: str) -> None:
        self.data: dict[str, Any] = {"api": api, "model": model, "task": task, "responses": []}

    def add(self, response: Any) -> None:
        """Keep one SDK response object (a pydantic model)."""
        self.data["responses"].append(response.model_dump(mode="json", exclude_none=True))

    def write(self, path: Path) -> None:
        """Write the transcript as indented JSON."""
        path.write_text(json.dumps(self.data, indent=2, ensure_ascii=False) + "\n", "utf-8")


def check_request(kind: Any, value: Any) -> None:
    """Validate ``value`` as the SDK's request type ``kind`` (a TypedDict or a list of them).

    Raises:
        pydantic.ValidationError: When the request does not have the SDK's shape.
    """
    TypeAdapter(kind).validate_python(value)


def example_main(
    argv: list[str] | None,
    *,
    doc: str,
    key: str,
    transcript: Path,
    client: Callable[[], Any],
    replay: Callable[[Transcript], Any],
    run: Callable[[Any, str, str, Recorder | None], int],
) -> int:
    """The command line of an SDK example: the real API when ``key`` is set, else the replay.

    Args:
        argv: The arguments (``None`` for ``sys.argv``).
        doc: The example's docstring (its first paragraph is the help text).
        key: The environment variable holding the API key (the SDK's own).
        transcript: The transcript replayed by default.
        client: Builds the SDK client.
        replay: Builds the offline stand-in from a :class:`Transcript`.
        run: The loop: ``run(client, model, task, recorder) -> exit status``.
    """
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--transcript", type=Path, default=transcript, help="replay this file")
    parser.add_argument("--record", type=Path, help="with an API key: write the responses here")
    parser.add_argument("--model", help="model name (default: the transcript's)")
    args = parser.parse_args(argv)
    recorded = Transcript(args.transcript)
    model = args.model or recorded.model
    if os.environ.get(key):
        recorder = Recorder(recorded.api, model, recorded.task) if args.record else None
        status = run(client(), model, recorded.task, recorder)
        if recorder is not None:
            recorder.write(args.record)
        return status
    print(f"(no {key}: replaying {recorded.path.name})")
    return run(replay(recorded), model, recorded.task, None)
