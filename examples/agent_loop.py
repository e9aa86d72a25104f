"""A complete agent loop that uses skills through ``agent_skills.agent.SkillSession``.

The model is a scripted stand-in (no network, no API key), so the loop runs anywhere and prints the
same transcript every time. Swap ``ScriptedModel`` for a real chat-completions client and the rest
stays as it is: the loop puts the skill catalog in the system prompt, offers the ``activate_skill``
and ``read_skill_resource`` tools plus the host's own ``read_file`` tool, and answers every tool
call. ``read_file`` is sandboxed: it opens a path only when ``SkillSession.check_read`` allows it,
that is inside the project or inside a skill activated in this conversation.

Run it::

    python examples/agent_loop.py                      # the skills shipped in examples/skills
    python examples/agent_loop.py --skills DIR --task "Review the API in openapi.yaml"

The project directory is a temporary one holding ``openapi.yaml``, the file the task is about.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import unescape

try:
    from agent_skills import SkillError, create_agent_skills
    from agent_skills.agent import SkillSession
except ImportError:  # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from agent_skills import SkillError, create_agent_skills
    from agent_skills.agent import SkillSession

EXAMPLE_SKILLS = Path(__file__).resolve().parent / "skills"
DEFAULT_TASK = "Review the HTTP API described in openapi.yaml before we publish it."
MAX_TURNS = 12
PREVIEW_LINES = 6

OPENAPI = """\
openapi: 3.1.0
info: {title: Orders, version: "1.0"}
paths:
  /getOrder:
    get:
      parameters: [{name: id, in: query, required: true, schema: {type: string}}]
      responses: {"200": {description: The order}}
  /orders:
    post:
      responses: {"200": {description: Created}}
"""

READ_FILE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a UTF-8 text file by path (absolute, or relative to the project).",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "The file to read."}},
            "required": ["path"],
            "additionalProperties": False,
        },
    },
}


def _find(pattern: str, text: str) -> str:
    """The first group of ``pattern`` (multiline) in ``text``, XML-unescaped."""
    match = re.search(pattern, text, re.MULTILINE)
    if match is None:
        raise ValueError(f"no match for {pattern!r}")
    return unescape(match.group(1))


# -- the model ----------------------------------------------------------------------------------


@dataclass
class ToolCall:
    """A tool call the model asks for (the shape of a chat-completions ``tool_calls`` item)."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Reply:
    """One model turn: either tool calls or a final answer."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)


class ScriptedModel:
    """A deterministic stand-in for a chat model.

    It behaves like a well-prompted model would: it picks the skill whose catalog description
    matches the task, activates it, reads the references the skill points to through the file
    tool (using the skill directory from the activation result), reads the project file, and
    also tries, as a misbehaving model might, to read files it was never given.
    """

    def __init__(self) -> None:
        self._plan: list[Callable[[list[dict[str, Any]]], Reply]] = [
            self._choose_skill,
            self._read_references,
            self._read_more,
            self._stray,
            self._answer,
        ]
        self._calls = 0

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        """Return the next turn given the conversation so far and the offered tools."""
        offered = {tool["function"]["name"] for tool in tools}
        assert {"activate_skill", "read_file"} <= offered, offered
        step = self._plan.pop(0) if self._plan else self._answer
        return step(messages)

    def _call(self, tool: str, /, **arguments: Any) -> ToolCall:
        self._calls += 1
        return ToolCall(f"call_{self._calls}", tool, arguments)

    def _choose_skill(self, messages: list[dict[str, Any]]) -> Reply:
        system, task = messages[0]["content"], messages[-1]["content"]
        names = re.findall(r"<name>(.*?)</name>", system)
        descriptions = re.findall(r"<description>(.*?)</description>", system)
        words = set(re.findall(r"[a-z]+", task.lower())) - {"the", "in", "it", "we", "before"}
        scores = [len(words & set(re.findall(r"[a-z]+", d.lower()))) for d in descriptions]
        best = names[scores.index(max(scores))]
        self.catalog_names = [unescape(n) for n in names]
        return Reply(tool_calls=[self._call("activate_skill", name=unescape(best))])

    def _read_references(self, messages: list[dict[str, Any]]) -> Reply:
        content = messages[-1]["content"]
        skill_dir = _find(r"^Skill directory: (.*)$", content)
        self.skill_name = _find(r'^<skill_content name="([^"]*)">', content)
        self.skill_dir = skill_dir
        self.references = [
            unescape(rel)
            for rel in re.findall(r"^<file>(.*)</file>$", content, re.M)
            if rel.startswith("references/")
        ]
        first = self.references[0] if self.references else "SKILL.md"
        return Reply(tool_calls=[self._call("read_file", path=f"{skill_dir}/{first}")])

    def _read_more(self, messages: list[dict[str, Any]]) -> Reply:
        calls = [self._call("read_file", path="openapi.yaml")]
        for rel in self.references[1:]:
            calls.append(self._call("read_skill_resource", name=self.skill_name, path=rel))
        return Reply(tool_calls=calls)

    def _stray(self, messages: list[dict[str, Any]]) -> Reply:
        calls: list[ToolCall] = []
        # Skills the model never activated: guess their paths next to the active one.
        others = [n for n in self.catalog_names if n != self.skill_name][:2]
        if others:
            guessed = str(Path(self.skill_dir).parent / others[0] / "SKILL.md")
            calls.append(self._call("read_file", path=guessed))
            calls.append(self._call("read_file", path=f"{self.skill_dir}/../{others[-1]}/SKILL.md"))
        calls.append(self._call("read_file", path="/etc/passwd"))
        if others:
            calls.append(self._call("read_skill_resource", name=others[0], path="SKILL.md"))
        calls.append(self._call("read_skill_resource", name=self.skill_name, path="../../secret"))
        return Reply(tool_calls=calls)

    def _answer(self, messages: list[dict[str, Any]]) -> Reply:
        text = f"Done with skill '{self.skill_name}'."
        if self.skill_name == "api-review":
            text += (
                "\nFindings for openapi.yaml:\n"
                "1. (blocker) `/getOrder` names an action; use `GET /orders/{orderId}`.\n"
                "2. (major) `POST /orders` returns 200; creating a resource returns 201 with a "
                "Location header."
            )
        return Reply(text=text)


# -- the host -----------------------------------------------------------------------------------


class Host:
    """Answers tool calls for one conversation; every file access goes through the session."""

    def __init__(self, session: SkillSession) -> None:
        self.session = session

    def tools(self) -> list[dict[str, Any]]:
        """The tool definitions offered to the model (chat-completions shape)."""
        offered = [self.session.activation_tool("openai"), self.session.read_tool("openai")]
        return [tool for tool in offered if tool is not None] + [READ_FILE_TOOL]

    def call(self, call: ToolCall) -> tuple[bool, str]:
        """Run one tool call; return ``(ok, text for the model)``.

        Errors go back to the model as text, never up the stack. Arguments are passed on as the
        model sent them: the session answers a missing or non-string one with ``invalid_input``.
        """

        def arg(key: str) -> Any:  # a JSON value, as a real client's json.loads gives it
            return call.arguments.get(key)

        try:
            if call.name == "activate_skill":
                return True, self.session.activate(arg("name")).content
            if call.name == "read_skill_resource":
                data = self.session.read_resource(arg("name"), arg("path"))
                return True, data.decode("utf-8", errors="replace")
            if call.name == "read_file":
                real = self.session.check_read(arg("path"))
                return _read_text(real, self.session.max_read_bytes)
            return False, f"invalid_input: unknown tool {call.name!r}"
        except SkillError as err:
            return False, f"{err.code.value}: {err.message}"


def _read_text(real: Path, max_bytes: int) -> tuple[bool, str]:
    """Open the checked real path: no symlink at the last step, a regular file, size capped."""
    try:
        fd = os.open(
            real, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except FileNotFoundError:
        return False, f"not_found: no such file: {real}"
    except OSError as exc:
        return False, f"io_error: {exc.strerror}: {real}"
    try:
        info = os.fstat(fd)  # before any file object: a directory cannot be one
        if not stat.S_ISREG(info.st_mode):
            return False, f"not_a_file: {real}"
        if info.st_size > max_bytes:
            return False, f"too_large: {real} is larger than {max_bytes} bytes"
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew since it was checked
        return False, f"too_large: {real} is larger than {max_bytes} bytes"
    return True, data.decode("utf-8", errors="replace")


def _preview(text: str, lines: int = PREVIEW_LINES) -> str:
    head = text.splitlines()
    shown = head[:lines] + ([f"... ({len(head) - lines} more lines)"] if len(head) > lines else [])
    return "\n".join(f"    | {line}".rstrip() for line in shown)


def run(skills_dir: Path, task: str, project: Path, out: Callable[[str], None] = print) -> int:
    """Run the loop once and print a transcript. Returns the process exit status."""
    skills = create_agent_skills([skills_dir])
    session = SkillSession(skills, project_root=project)
    host = Host(session)
    model = ScriptedModel()

    system = "You are a careful engineering assistant.\n\n" + session.catalog_prompt("xml")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": task},
    ]
    tools = host.tools()
    out("=== system prompt ===")
    out(system.rstrip())
    out("=== tools: " + ", ".join(t["function"]["name"] for t in tools) + " ===")
    out(f"project root: {session.project_root}")
    out("allowed read roots: " + ", ".join(str(p) for p in session.allowed_read_roots()))
    out(f"user: {task}")

    for _turn in range(MAX_TURNS):
        reply = model.complete(messages, tools)
        if not reply.tool_calls:
            out("assistant: " + reply.text.replace("\n", "\n    "))
            break
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in reply.tool_calls
                ],
            }
        )
        for call in reply.tool_calls:
            out(f"assistant -> {call.name} {json.dumps(call.arguments, ensure_ascii=False)}")
            ok, text = host.call(call)
            if ok:
                out(f"tool {call.name}: ok, {len(text)} characters")
                out(_preview(text))
            else:
                out(f"tool {call.name}: REFUSED {text}")
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    else:
        out(f"stopped after {MAX_TURNS} turns")
        return 1

    out("=== allowed read roots at the end ===")
    for root in session.allowed_read_roots():
        out(f"  {root}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=Path, default=EXAMPLE_SKILLS, help="a skills root")
    parser.add_argument("--task", default=DEFAULT_TASK, help="the user's request")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agent-loop-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        (project / "openapi.yaml").write_text(OPENAPI, encoding="utf-8")
        return run(args.skills.resolve(), args.task, project)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`)
        sys.stderr.close()
        sys.exit(0)
