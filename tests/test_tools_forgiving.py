"""SPEC §29.5: forgiving resource names in ``read_skill_resource``, through the one executor
(``_tools.read_skill_resource``) for both fronts: a :class:`SkillSession` (its dispatcher and
``read_resource``) and the MCP tool. ``resource_path`` stays exact.

A bare file name that is not a file at the top of the skill reads the one listed file of that
name; an ambiguous or unknown one is ``not_found`` naming up to five listed files closest to it;
hidden and unlisted files are never reached that way.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import AgentSkills, SkillError, create_agent_skills
from agent_skills._tools import read_skill_resource
from agent_skills.agent import SkillSession, ToolResult
from conftest import make_skill

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
FILES: dict[str, str | bytes] = {
    "README.md": "top readme\n",
    "references/guide.md": "references guide\n",
    "assets/guide.md": "assets guide\n",
    "references/checklist.md": "checklist\n",
    "scripts/run.py": "print('run')\n",
    "assets/logo.png": PNG,
    "notes.md/keep.txt": "a directory named like a file\n",
    "sub/notes.md": "sub notes\n",
    ".hidden/secret.md": "SECRET\n",
    ".env": "TOKEN=1\n",
    "node_modules/dep/index.md": "ignored\n",
}
LISTED = [
    "SKILL.md",
    "assets/guide.md",
    "assets/logo.png",
    "notes.md/keep.txt",
    "README.md",
    "references/checklist.md",
    "references/guide.md",
    "scripts/run.py",
    "sub/notes.md",
]


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> AgentSkills:
    root = tmp_path_factory.mktemp("forgiving") / "skills"
    make_skill(root, "docs", files=FILES)
    make_skill(root, "other", files={"references/other.md": "other\n"})
    make_skill(
        root,
        "users-only",
        frontmatter={"name": "users-only", "description": "x", "disable-model-invocation": True},
        files={"references/u.md": "u\n"},
    )
    return create_agent_skills([root])


def test_the_listing_is_what_the_cases_assume(skills: AgentSkills) -> None:
    content = skills.load_skill("docs")
    assert [content.path.name, *(r.rel for r in content.resources)] == LISTED


# (path asked for, the file read) for the forgiven and exact reads; the same on both fronts.
READS = [
    ("checklist.md", "references/checklist.md"),
    ("run.py", "scripts/run.py"),
    ("README.md", "README.md"),  # a file at the top is read as it is
    ("notes.md", "sub/notes.md"),  # a directory at the top is not a file
    ("references/guide.md", "references/guide.md"),
    ("keep.txt", "notes.md/keep.txt"),
]
# (path asked for, suggestions) for the misses; the same on both fronts.
MISSES = [
    ("guide.md", ["assets/guide.md", "references/guide.md"]),  # two files of that name
    ("gide.md", ["assets/guide.md", "references/guide.md", "README.md"]),
    ("CHECKLIST.md", ["references/checklist.md"]),  # a file name matches exactly
    ("references/guide", ["references/guide.md", "assets/guide.md", "references/checklist.md"]),
    ("refs/checklist.md", ["references/checklist.md"]),  # only a bare name is forgiven
    ("nothing-like-this.xyz", []),
    ("secret.md", []),  # hidden: never listed, never reached, never suggested
    ("index.md", ["assets/guide.md", "references/guide.md", "sub/notes.md"]),  # node_modules
]


def _session(skills: AgentSkills) -> SkillSession:
    session = SkillSession(skills)
    session.activate("docs")
    return session


@pytest.mark.parametrize(("path", "rel"), READS)
def test_the_session_reads_a_forgiven_name(skills: AgentSkills, path: str, rel: str) -> None:
    session = _session(skills)
    expected = FILES[rel]
    assert session.read_resource("docs", path) == expected.encode()  # type: ignore[union-attr]
    result = session.handle_tool_call("read_skill_resource", {"name": "docs", "path": path})
    assert result == ToolResult(str(expected), False)
    read = read_skill_resource(skills, "docs", path, max_bytes=1000, active=None)
    assert read.rel == rel  # the MCP policy: the listed path


def test_a_forgiven_binary_file_is_named_by_its_listed_path(skills: AgentSkills) -> None:
    result = _session(skills).handle_tool_call(
        "read_skill_resource", {"name": "docs", "path": "logo.png"}
    )
    assert result == ToolResult(
        f"'assets/logo.png' in skill 'docs' is a binary file ({len(PNG)} bytes, image/png); it "
        "cannot be shown as text.",
        False,
    )


@pytest.mark.parametrize(("path", "suggestions"), MISSES)
def test_the_session_names_the_closest_files_on_a_miss(
    skills: AgentSkills, path: str, suggestions: list[str]
) -> None:
    session = _session(skills)
    with pytest.raises(SkillError) as caught:
        session.read_resource("docs", path)
    err = caught.value
    assert (err.code.value, err.fields) == (
        "not_found",
        {"name": "docs", "rel": path, "suggestions": suggestions},
    )
    hint = f" (did you mean {', '.join(suggestions)}?)" if suggestions else ""
    assert err.message == f"No such resource '{path}' in skill 'docs'{hint}"
    result = session.handle_tool_call("read_skill_resource", {"name": "docs", "path": path})
    assert result == ToolResult(f"not_found: {err.message}", True)
    assert "SECRET" not in result.text and "TOKEN" not in result.text


def test_the_session_before_activation_and_for_unknown_skills(skills: AgentSkills) -> None:
    session = SkillSession(skills)
    inactive = session.handle_tool_call("read_skill_resource", {"name": "docs", "path": "run.py"})
    assert inactive == ToolResult(
        "access_denied: Skill 'docs' is not active in this conversation; call activate_skill first",
        True,
    )
    unknown = session.handle_tool_call("read_skill_resource", {"name": "dosc", "path": "run.py"})
    assert unknown == ToolResult("not_found: No such skill: dosc (did you mean docs?)", True)
    hidden = session.handle_tool_call("read_skill_resource", {"name": "users-only", "path": "u.md"})
    assert hidden == ToolResult("not_found: No such skill: users-only", True)


def test_resource_path_stays_exact(skills: AgentSkills) -> None:
    with pytest.raises(SkillError) as caught:
        skills.resource_path("docs", "checklist.md")
    assert (caught.value.code.value, caught.value.fields) == (
        "not_found",
        {"name": "docs", "rel": "checklist.md"},
    )
    with pytest.raises(SkillError) as caught:
        skills.read_resource("docs", "checklist.md")
    assert caught.value.code.value == "not_found"


# -- the MCP tool -------------------------------------------------------------------------------


def _mcp(skills: AgentSkills, body: Callable[[Any], Awaitable[None]]) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    from agent_skills.mcp import build_server

    async def go() -> None:
        async with Client(build_server(skills), mode="legacy", cache=None) as client:
            await body(client)

    anyio.run(go)


def _text(result: Any) -> str:
    (block,) = result.content
    return str(block.text)


def test_the_mcp_tool_forgives_and_suggests_as_the_session_does(skills: AgentSkills) -> None:
    async def body(client: Any) -> None:
        async def call(name: str, path: str) -> Any:
            return await client.call_tool("read_skill_resource", {"name": name, "path": path})

        for path, rel in READS:
            result = await call("docs", path)
            assert (path, result.is_error, _text(result)) == (path, False, FILES[rel])
        image = await call("docs", "logo.png")
        (block,) = image.content
        assert (block.type, block.mime_type, base64.b64decode(block.data)) == (
            "image",
            "image/png",
            PNG,
        )
        for path, suggestions in MISSES:
            result = await call("docs", path)
            hint = f" (did you mean {', '.join(suggestions)}?)" if suggestions else ""
            assert (path, result.is_error, _text(result)) == (
                path,
                True,
                f"not_found: No such resource '{path}' in skill 'docs'{hint}",
            )
        # The server reads any skill without activation; users-only skills too.
        users = await call("users-only", "u.md")
        assert (users.is_error, _text(users)) == (False, "u\n")
        unknown = await call("dosc", "run.py")
        assert _text(unknown) == "not_found: No such skill: dosc (did you mean docs?)"

    _mcp(skills, body)


# -- properties: a forgiven name never leads past the listing ------------------------------------

_NAMES = st.one_of(
    st.sampled_from(
        [
            "secret.md",
            ".env",
            "index.md",
            "keep.txt",
            "notes.md",
            "guide.md",
            "..",
            ".",
            "",
            "SKILL.md",
            "other.md",
            "u.md",
        ]
    ),
    st.text(alphabet="abcdegilmnorstu.-_/\\", max_size=20),
)


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(path=_NAMES)
def test_a_read_is_the_file_asked_for_or_a_listed_one(skills: AgentSkills, path: str) -> None:
    served = skills.served("docs")
    assert served is not None
    # The MCP policy (None) reads listed files only; a session's reads any file of an active
    # skill by its exact path (SPEC §10), and a forgiven name only ever leads to a listed one.
    for active in (None, {"docs": served.pin}):
        try:
            read = read_skill_resource(skills, "docs", path, max_bytes=1000, active=active)
        except SkillError as err:
            assert err.code.value in {"not_found", "not_a_file", "invalid_input", "path_escape"}
            assert "SECRET" not in err.message and "TOKEN" not in err.message
            assert set(err.fields.get("suggestions", [])) <= set(LISTED)
            continue
        if active is None or read.rel != path:
            assert read.rel in LISTED
            assert read.data == (skills.read_resource("docs", read.rel))
            assert read.data not in (b"SECRET\n", b"TOKEN=1\n", b"ignored\n")
