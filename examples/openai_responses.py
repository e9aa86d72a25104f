"""An agent loop on the OpenAI Responses API, with a catalog budget and skill search.

The session is built with ``catalog_budget``: the catalog in the instructions lists what fits and
names the rest, and the session offers a third tool, ``search_skills``, so the model finds the
skills that were left out. Tools come from ``session.tools("openai_responses")`` (strict
function tools); every ``function_call`` item is answered with ``session.handle_tool_call(name,
arguments)`` (the arguments are the JSON text the API sends) as a ``function_call_output`` item.

It needs the ``openai`` SDK either way (``pip install '.[examples]'`` in a checkout): offline,
every request is still checked against the SDK's own types. With ``OPENAI_API_KEY`` set it talks to
the API; without it, it replays ``transcripts/openai_responses.json``, the API's responses to this
task recorded in order::

    python examples/openai_responses.py
    OPENAI_API_KEY=... python examples/openai_responses.py --record /tmp/new.json
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

try:
    import openai
    from openai.types.responses import FunctionToolParam, Response, ResponseInputParam
except ImportError:  # pragma: no cover - shown to a user without the SDK
    sys.exit("this example needs the openai SDK: pip install '.[examples]'")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _replay import SKILLS, TRANSCRIPTS, Recorder, Transcript, check_request, example_main

from agent_skills import create_agent_skills
from agent_skills.agent import SkillSession

TRANSCRIPT = TRANSCRIPTS / "openai_responses.json"
CATALOG_BUDGET = 1200  # characters: too small for the five example skills, so search is offered
MAX_TURNS = 8


class ReplayResponses:
    """Stands in for ``client.responses``: checks each request, returns the recorded reply."""

    def __init__(self, transcript: Transcript) -> None:
        self._transcript = transcript

    def create(self, **request: Any) -> Response:
        check_request(list[FunctionToolParam], request["tools"])
        check_request(ResponseInputParam, request["input"])
        return Response.model_validate(self._transcript.next_response())


class ReplayClient:
    """An object with the ``responses.create`` of ``openai.OpenAI``, offline."""

    def __init__(self, transcript: Transcript) -> None:
        self.responses = ReplayResponses(transcript)


def run(client: Any, model: str, task: str, recorder: Recorder | None = None) -> int:
    """Run the loop on ``task`` and print the transcript. Returns the exit status."""
    session = SkillSession(create_agent_skills([SKILLS]), catalog_budget=CATALOG_BUDGET)
    instructions = "You are a careful engineering assistant.\n\n" + session.catalog_prompt()
    fit = session.catalog_fit()
    tools = session.tools("openai_responses")
    items: list[dict[str, Any]] = [{"role": "user", "content": task}]
    print(f"catalog: {len(session.catalog_prompt())} of {CATALOG_BUDGET} characters")
    print(f"listed: {', '.join(fit.included)}; not listed: {', '.join(fit.omitted)}")
    print(f"tools: {', '.join(tool['name'] for tool in tools)}")
    print(f"user: {task}")
    for _turn in range(MAX_TURNS):
        reply = client.responses.create(
            model=model, instructions=instructions, tools=tools, input=items
        )
        if recorder is not None:
            recorder.add(reply)
        calls = [item for item in reply.output if item.type == "function_call"]
        items.extend(item.model_dump(exclude_none=True) for item in reply.output)
        for call in calls:
            result = session.handle_tool_call(call.name, call.arguments)
            status = "error" if result.is_error else f"{len(result.text)} characters"
            print(f"tool {call.name}({call.arguments}) -> {status}")
            if call.name == "search_skills":
                for line in result.text.splitlines():
                    print(f"    | {line[:90]}")
            items.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": result.text}
            )
        if not calls:
            print(f"assistant: {reply.output_text.strip()}")
            print(f"active skills: {', '.join(session.active_skills()) or '-'}")
            return 0
    print(f"stopped after {MAX_TURNS} turns")
    return 1


def main(argv: list[str] | None = None) -> int:
    return example_main(
        argv,
        doc=__doc__ or "",
        key="OPENAI_API_KEY",
        transcript=TRANSCRIPT,
        client=openai.OpenAI,
        replay=ReplayClient,
        run=run,
    )


if __name__ == "__main__":
    sys.exit(main())
