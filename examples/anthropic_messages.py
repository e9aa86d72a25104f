"""An agent loop on the Anthropic Messages API that uses skills through ``SkillSession``.

The whole integration is three calls: ``session.catalog_prompt()`` for the system prompt,
``session.tools("anthropic")`` for the tools, and ``session.handle_tool_call(name, input)`` for
every ``tool_use`` block, whose result goes back as a ``tool_result`` block with ``is_error``.

It needs the ``anthropic`` SDK either way (``pip install '.[examples]'`` in a checkout): offline,
every request is still checked against the SDK's own types. With ``ANTHROPIC_API_KEY`` set it talks
to the API; without it, it replays ``transcripts/anthropic_messages.json``, the API's responses to
this task recorded
in order, so it runs offline and prints the same transcript every time::

    python examples/anthropic_messages.py
    ANTHROPIC_API_KEY=... python examples/anthropic_messages.py --record /tmp/new.json
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

try:
    import anthropic
    from anthropic.types import Message, MessageParam, ToolParam
except ImportError:  # pragma: no cover - shown to a user without the SDK
    sys.exit("this example needs the anthropic SDK: pip install '.[examples]'")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _replay import SKILLS, TRANSCRIPTS, Recorder, Transcript, check_request, example_main

from agent_skills import create_agent_skills
from agent_skills.agent import SkillSession

TRANSCRIPT = TRANSCRIPTS / "anthropic_messages.json"
MAX_TURNS = 8


class ReplayMessages:
    """Stands in for ``client.messages``: checks each request, returns the recorded reply."""

    def __init__(self, transcript: Transcript) -> None:
        self._transcript = transcript

    def create(self, **request: Any) -> Message:
        check_request(list[ToolParam], request["tools"])
        check_request(list[MessageParam], request["messages"])
        return Message.model_validate(self._transcript.next_response())


class ReplayClient:
    """An object with the ``messages.create`` of ``anthropic.Anthropic``, offline."""

    def __init__(self, transcript: Transcript) -> None:
        self.messages = ReplayMessages(transcript)


def run(client: Any, model: str, task: str, recorder: Recorder | None = None) -> int:
    """Run the loop on ``task`` and print the transcript. Returns the exit status."""
    session = SkillSession(create_agent_skills([SKILLS]))
    system = "You are a careful engineering assistant.\n\n" + session.catalog_prompt()
    tools = session.tools("anthropic")
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    print(f"tools: {', '.join(tool['name'] for tool in tools)}")
    print(f"user: {task}")
    for _turn in range(MAX_TURNS):
        reply = client.messages.create(
            model=model, max_tokens=2048, system=system, tools=tools, messages=messages
        )
        if recorder is not None:
            recorder.add(reply)
        messages.append(
            {
                "role": "assistant",
                "content": [b.model_dump(exclude_none=True) for b in reply.content],
            }
        )
        results: list[dict[str, Any]] = []
        for block in reply.content:
            if block.type == "text" and block.text.strip():
                print(f"assistant: {block.text.strip()}")
            elif block.type == "tool_use":
                result = session.handle_tool_call(block.name, block.input)
                status = "error" if result.is_error else f"{len(result.text)} characters"
                print(f"tool {block.name}({_args(block.input)}) -> {status}")
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": block.id,
                        "content": result.text,
                        "is_error": result.is_error,
                    }
                )
        if reply.stop_reason != "tool_use":
            print(f"active skills: {', '.join(session.active_skills()) or '-'}")
            return 0
        messages.append({"role": "user", "content": results})
    print(f"stopped after {MAX_TURNS} turns")
    return 1


def _args(arguments: Any) -> str:
    if isinstance(arguments, dict):
        return ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    return repr(arguments)


def main(argv: list[str] | None = None) -> int:
    return example_main(
        argv,
        doc=__doc__ or "",
        key="ANTHROPIC_API_KEY",
        transcript=TRANSCRIPT,
        client=anthropic.Anthropic,
        replay=ReplayClient,
        run=run,
    )


if __name__ == "__main__":
    sys.exit(main())
