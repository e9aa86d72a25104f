"""SPEC §22.2 and §22.5: tool definitions in every flavor, checked against the real SDKs' types.

The OpenAI and Anthropic SDKs and the MCP SDK are dev dependencies: their own request types
(TypedDicts validated with pydantic, the MCP ``Tool`` model) and OpenAI's strict-tool check for
``parse`` judge our definitions, offline. Every schema is also checked as JSON Schema 2020-12.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_skills import SkillError, create_agent_skills
from agent_skills.agent import (
    ENUM_MAX_LONG_VALUES,
    ENUM_MAX_TOTAL_CHARS,
    ENUM_MAX_VALUES,
    SkillSession,
    enum_fits_strict_mode,
    tool_definition,
)
from conftest import make_skill

jsonschema = pytest.importorskip("jsonschema")
openai_chat = pytest.importorskip("openai.types.chat")
openai_responses = pytest.importorskip("openai.types.responses")
anthropic_types = pytest.importorskip("anthropic.types")
pydantic = pytest.importorskip("pydantic")

FLAVORS = ("openai", "openai_responses", "anthropic", "json_schema", "mcp")
TOOLS = ("activate_skill", "read_skill_resource", "search_skills")


def _schema(tool: dict[str, Any], flavor: str) -> dict[str, Any]:
    key = {"anthropic": "input_schema", "mcp": "inputSchema"}.get(flavor, "parameters")
    inner = tool["function"] if flavor == "openai" else tool
    schema: dict[str, Any] = inner[key]
    return schema


def _check_typed_dict(td: Any, value: dict[str, Any]) -> None:
    """Validate ``value`` as the SDK's TypedDict and refuse keys it does not declare."""
    pydantic.TypeAdapter(td).validate_python(value)
    declared = set(td.__annotations__)
    assert set(value) <= declared, set(value) - declared


@pytest.fixture
def session(tmp_path: Path) -> SkillSession:
    root = tmp_path / "skills"
    for name in ("alpha", "beta"):
        make_skill(root, name)
    return SkillSession(create_agent_skills([root]))


def test_flavor_shapes_exact() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "enum": ["a", "b"],
                "description": "The name of the skill to activate.",
            }
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    tool = tool_definition("activate_skill", "openai", names=["a", "b"])
    description = tool["function"]["description"]
    assert tool == {
        "type": "function",
        "function": {
            "name": "activate_skill",
            "description": description,
            "parameters": schema,
            "strict": True,
        },
    }
    assert tool_definition("activate_skill", "openai_responses", names=["a", "b"]) == {
        "type": "function",
        "name": "activate_skill",
        "description": description,
        "parameters": schema,
        "strict": True,
    }
    assert tool_definition("activate_skill", "anthropic", names=["a", "b"]) == {
        "name": "activate_skill",
        "description": description,
        "input_schema": schema,
    }
    assert tool_definition("activate_skill", "json_schema", names=["a", "b"]) == {
        "name": "activate_skill",
        "description": description,
        "parameters": schema,
    }
    assert tool_definition("activate_skill", "mcp", names=["a", "b"]) == {
        "name": "activate_skill",
        "description": description,
        "inputSchema": schema,
    }


def test_search_tool_schema_exact() -> None:
    tool = tool_definition("search_skills", "json_schema", names=["ignored"])
    assert tool["parameters"] == {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Words describing the task, for example 'review an OpenAPI spec'.",
            },
            "limit": {
                "type": ["integer", "null"],
                "description": "Most skills to return, 1 to 50; null for 10.",
            },
        },
        "required": ["query", "limit"],
        "additionalProperties": False,
    }


def test_read_tool_for_any_skill() -> None:
    tool = tool_definition("read_skill_resource", "mcp", needs_activation=False)
    assert tool["description"] == (
        "Read one file bundled with a skill, by the skill's name and the file's path "
        "relative to the skill directory (for example 'references/guide.md')."
    )
    assert tool["inputSchema"]["properties"]["name"] == {
        "type": "string",
        "description": "The skill's name.",
    }


@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("tool", TOOLS)
def test_every_schema_is_strict_and_json_schema_2020_12(flavor: str, tool: str) -> None:
    for names in (None, ["a", "b-c"]):
        schema = _schema(tool_definition(tool, flavor, names=names), flavor)  # type: ignore[arg-type]
        jsonschema.Draft202012Validator.check_schema(schema)
        # OpenAI strict mode: closed objects, every property required.
        assert schema["additionalProperties"] is False
        assert schema["required"] == list(schema["properties"])


def test_schemas_accept_and_refuse_arguments() -> None:
    validator = jsonschema.Draft202012Validator
    activate = _schema(tool_definition("activate_skill", "mcp", names=["a"]), "mcp")
    assert validator(activate).is_valid({"name": "a"})
    assert not validator(activate).is_valid({"name": "z"})
    assert not validator(activate).is_valid({"name": "a", "extra": 1})
    assert not validator(activate).is_valid({})
    search = _schema(tool_definition("search_skills", "mcp"), "mcp")
    assert validator(search).is_valid({"query": "pdf", "limit": None})
    assert validator(search).is_valid({"query": "pdf", "limit": 3})
    assert not validator(search).is_valid({"query": "pdf", "limit": "3"})
    assert not validator(search).is_valid({"query": "pdf"})


@pytest.mark.parametrize("tool", TOOLS)
def test_openai_chat_completions_types(tool: str) -> None:
    from openai.lib._parsing._completions import validate_input_tools

    definition = tool_definition(tool, "openai", names=["a"])  # type: ignore[arg-type]
    _check_typed_dict(openai_chat.ChatCompletionFunctionToolParam, definition)
    from openai.types.shared_params import FunctionDefinition

    _check_typed_dict(FunctionDefinition, definition["function"])
    # What ``client.chat.completions.parse`` runs first: it refuses a tool that is not strict.
    assert validate_input_tools([definition]) == [definition]


@pytest.mark.parametrize("tool", TOOLS)
def test_openai_responses_types(tool: str) -> None:
    definition = tool_definition(tool, "openai_responses", names=["a"])  # type: ignore[arg-type]
    _check_typed_dict(openai_responses.FunctionToolParam, definition)
    model = openai_responses.FunctionTool.model_validate(definition)
    assert model.strict is True
    assert model.name == tool


@pytest.mark.parametrize("tool", TOOLS)
def test_anthropic_types(tool: str) -> None:
    definition = tool_definition(tool, "anthropic", names=["a"])  # type: ignore[arg-type]
    _check_typed_dict(anthropic_types.ToolParam, definition)


@pytest.mark.parametrize("tool", TOOLS)
def test_mcp_types(tool: str) -> None:
    mcp_types = pytest.importorskip("mcp.types")
    definition = tool_definition(tool, "mcp", names=["a"])  # type: ignore[arg-type]
    model = mcp_types.Tool.model_validate(definition)
    assert model.name == tool
    assert model.input_schema == definition["inputSchema"]


def test_bad_flavor_and_tool() -> None:
    with pytest.raises(SkillError) as exc:
        tool_definition("activate_skill", "openai-chat")  # type: ignore[arg-type]
    assert (exc.value.code, exc.value.fields) == ("invalid_input", {"flavor": "'openai-chat'"})
    with pytest.raises(SkillError) as exc:
        tool_definition("run_script")  # type: ignore[arg-type]
    assert (exc.value.code, exc.value.fields) == ("invalid_input", {"tool": "'run_script'"})


# -- OpenAI strict-mode enum limits (SPEC §22.2) -------------------------------------------------


def test_enum_limits_constants() -> None:
    assert (ENUM_MAX_VALUES, ENUM_MAX_LONG_VALUES, ENUM_MAX_TOTAL_CHARS) == (250, 500, 7500)


@pytest.mark.parametrize(
    ("count", "length", "fits"),
    [
        (250, 100, True),  # 250 names of any length
        (251, 29, True),  # 251 * 29 = 7 279 characters
        (500, 15, True),  # 500 * 15 = 7 500 characters: at the limit
        (500, 16, False),  # 8 000 characters
        (300, 25, True),  # 7 500
        (300, 26, False),  # 7 800
        (501, 1, False),  # too many names, however short
    ],
)
def test_enum_fits_strict_mode(count: int, length: int, fits: bool) -> None:
    names = [f"{i:0{length}d}"[-length:] if length >= 4 else "x" * length for i in range(count)]
    assert enum_fits_strict_mode(names) is fits
    prop = tool_definition("activate_skill", "json_schema", names=names)["parameters"]
    name = prop["properties"]["name"]
    if fits:
        assert name["enum"] == names
    else:
        assert name == {"type": "string", "description": "The name of the skill to activate."}


def test_session_drops_the_enum_past_the_limits(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for i in range(251):
        make_skill(root, f"skill-{i:03d}-with-a-long-name")  # 251 * 26 = 6 526 characters
    session = SkillSession(create_agent_skills([root]))
    activate = session.activation_tool("json_schema")
    assert activate is not None
    assert len(activate["parameters"]["properties"]["name"]["enum"]) == 251
    for i in range(251, 300):  # 300 * 26 = 7 800 characters
        make_skill(root, f"skill-{i:03d}-with-a-long-name")
    session.skills.refresh()
    activate = session.activation_tool("json_schema")
    assert activate is not None
    assert "enum" not in activate["parameters"]["properties"]["name"]
    # Any model-invocable name still activates.
    assert session.activate("skill-250-with-a-long-name").already_active is False


# -- SkillSession.tools ------------------------------------------------------------------------


@pytest.mark.parametrize("flavor", FLAVORS)
def test_session_tools(session: SkillSession, flavor: str) -> None:
    tools = session.tools(flavor)  # type: ignore[arg-type]
    assert tools == [session.activation_tool(flavor), session.read_tool(flavor)]  # type: ignore[arg-type]
    for tool in tools:
        schema = _schema(tool, flavor)
        assert schema["properties"]["name"]["enum"] == ["alpha", "beta"]


def test_session_tools_empty(tmp_path: Path) -> None:
    session = SkillSession(create_agent_skills([tmp_path / "none"]))
    assert session.tools("anthropic") == []
    with pytest.raises(SkillError) as exc:
        session.tools("nope")  # type: ignore[arg-type]
    assert (exc.value.code, exc.value.fields) == ("invalid_input", {"flavor": "'nope'"})


def test_session_tools_are_new_each_call(session: SkillSession) -> None:
    first = session.tools("mcp")
    first[0]["inputSchema"]["properties"]["name"]["enum"].append("evil")
    assert session.tools("mcp")[0]["inputSchema"]["properties"]["name"]["enum"] == [
        "alpha",
        "beta",
    ]
