"""Microsoft Agent Framework's ``MCPSkillsSource`` as a real client of the server (SPEC §29.1).

That client reads only ``skill://index.json`` (the discovery index of the MCP Skills extension's
earlier draft), then each ``SKILL.md`` and file by ``resources/read``, and takes a ``-32602`` as
"not found" only when its ``data`` is ``{"uri": <str>}``. The tests list and load every published
skill of ``examples/skills`` (and of the shared corpus, when present) with every file of its
manifest, and compare each with what ``skills/list`` publishes: the same names in the same order,
the same bytes (by their digests). A scripted agent, with no model behind it, goes through
``load_skill`` and ``read_skill_resource`` as a model would.

``agent-framework-core`` is pinned in the ``dev`` extra: its MCP skills source is experimental.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

pytest.importorskip("mcp")
pytest.importorskip(
    "agent_framework", reason="agent-framework-core is not installed (the dev extra pins it)"
)

import agent_framework as maf
import anyio
from mcp import Client

from agent_skills import create_agent_skills
from agent_skills.mcp import SkillServer
from conftest import SRC, make_skill
from mcp_support import digest, list_all_skills, run_client
from mcp_support import server_of as _server

# Constructing MCPSkillsSource warns that the feature is experimental.
pytestmark = [pytest.mark.filterwarnings(r"ignore:\[MCP_SKILLS\]"), pytest.mark.slow]

REPO = SRC.parent
EXAMPLES = REPO / "examples" / "skills"
CORPUS = REPO.parent / "shared" / "corpus"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


# In-process, and over stdio: a real process (SDK client and server).
TRANSPORTS = ["inprocess", pytest.param("stdio", marks=[pytest.mark.slow, pytest.mark.live])]


async def _maf_skills(client: Client) -> list[Any]:
    source = maf.MCPSkillsSource(client=client)
    context = maf.SkillsSourceContext(agent=cast(Any, None))
    return list(await source.get_skills(context))


async def _bytes_of(resource: Any) -> bytes:
    """What MAF reads for one file: text as UTF-8, a blob as is, an empty file as ``None``."""
    value = await resource.read()
    if value is None:
        return b""
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


async def _check_every_file(client: Client) -> tuple[int, int]:
    """MAF's skills against ``skills/list``; returns (skills, files) checked."""
    entries = await list_all_skills(client)
    skills = await _maf_skills(client)
    assert [s.frontmatter.name for s in skills] == [e["frontmatter"]["name"] for e in entries]
    assert [s.frontmatter.description for s in skills] == [
        e["frontmatter"]["description"] for e in entries
    ]
    files = 0
    for skill, entry in zip(skills, entries, strict=True):
        manifest = {r["uri"]: r["digest"] for r in entry["resources"]}
        content = await skill.get_content()
        assert digest(content.encode("utf-8")) == manifest[entry["uri"]], entry["uri"]
        base = entry["uri"].removesuffix("SKILL.md")
        for uri, expected in manifest.items():
            if uri == entry["uri"]:
                continue
            # MAF sends the name it is given as it is: the URI's own (encoded) spelling.
            resource = await skill.get_resource(uri.removeprefix(base))
            assert resource is not None, uri
            assert digest(await _bytes_of(resource)) == expected, uri
            files += 1
    return len(skills), files


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    "transport", ["inprocess", pytest.param("stdio", marks=[pytest.mark.slow, pytest.mark.live])]
)
def test_maf_loads_every_example_skill_and_file(transport: str, mode: str) -> None:
    expected = sorted(p.name for p in EXAMPLES.iterdir() if (p / "SKILL.md").is_file())
    counted: list[tuple[int, int]] = []

    async def body(client: Client) -> None:
        counted.append(await _check_every_file(client))

    run_client(_server([EXAMPLES], transport), mode, body)
    skills, files = counted[0]
    assert skills == len(expected) == 5
    assert files > skills


@pytest.mark.live
def test_maf_loads_every_corpus_skill_and_file() -> None:
    if not (CORPUS / "ROOTS.txt").is_file():
        pytest.skip("the shared corpus is not available")
    roots = [CORPUS / line.strip() for line in (CORPUS / "ROOTS.txt").read_text().splitlines()]
    roots = [root for root in roots if root != CORPUS]
    published = SkillServer(create_agent_skills(roots)).published()
    counted: list[tuple[int, int]] = []

    async def body(client: Client) -> None:
        counted.append(await _check_every_file(client))

    run_client(_server(roots, "stdio"), "auto", body)
    skills, files = counted[0]
    assert skills == len(published) > 100
    assert files > skills


@pytest.fixture
def alpha(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    make_skill(
        root,
        "alpha",
        raw="---\nname: alpha\ndescription: Alpha does things.\n---\n# Alpha\nSee refs.\n",
        files={
            "references/guide.md": "guide\n",
            "references/refund note.md": "spaces\n",
            "references/café.md": "accent\n",
            "assets/logo.png": PNG,
            ".env": "SECRET=1\n",
        },
    )
    make_skill(root, "beta")
    return root


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    "transport", ["inprocess", pytest.param("stdio", marks=[pytest.mark.slow, pytest.mark.live])]
)
def test_maf_reads_by_name_and_misses_are_none(alpha: Path, transport: str, mode: str) -> None:
    async def body(client: Client) -> None:
        skills = {s.frontmatter.name: s for s in await _maf_skills(client)}
        assert list(skills) == ["alpha", "beta"]
        skill = skills["alpha"]
        assert (await skill.get_content()).encode() == (alpha / "alpha" / "SKILL.md").read_bytes()

        async def read(name: str) -> Any:
            resource = await skill.get_resource(name)
            return None if resource is None else await resource.read()

        assert await read("references/guide.md") == "guide\n"
        assert await read("references/refund note.md") == "spaces\n"
        assert await read("references/café.md") == "accent\n"
        assert await read("assets/logo.png") == PNG
        # A miss is "not found" (the -32602 carries data.uri), never an error raised.
        assert await read("references/nope.md") is None
        assert await read(".env") is None  # hidden: never served
        assert await read("../beta/SKILL.md") is None  # refused by MAF before asking

    run_client(_server([alpha], transport), mode, body)


class _ScriptedModel(maf.FunctionInvocationLayer[Any], maf.BaseChatClient[Any]):  # type: ignore[misc]
    """A chat client with no model: it loads a skill, reads one of its files, then answers."""

    def __init__(self, seen: list[Any]) -> None:
        super().__init__()
        self.seen = seen

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **_: Any) -> Any:
        async def respond() -> Any:
            turn = sum(1 for m in messages if m.role == "assistant")
            results = [
                c.result for m in messages for c in m.contents if c.type == "function_result"
            ]
            self.seen.append((turn, sorted(getattr(t, "name", "") for t in options["tools"])))
            if results:
                self.seen.append(str(results[-1]))
            if turn == 0:
                call = maf.Content.from_function_call(
                    "c1", "load_skill", arguments={"skill_name": "alpha"}
                )
            elif turn == 1:
                call = maf.Content.from_function_call(
                    "c2",
                    "read_skill_resource",
                    arguments={"skill_name": "alpha", "resource_name": "references/guide.md"},
                )
            else:
                return maf.ChatResponse(messages=[maf.Message(role="assistant", contents=["done"])])
            return maf.ChatResponse(messages=[maf.Message(role="assistant", contents=[call])])

        return respond()


@pytest.mark.live
def test_a_maf_agent_loads_a_skill_and_reads_its_file(alpha: Path) -> None:
    seen: list[Any] = []

    async def go() -> None:
        async with Client(_server([alpha], "stdio"), mode="auto", cache=None) as client:
            provider = maf.SkillsProvider(
                maf.MCPSkillsSource(client=client),
                disable_load_skill_approval=True,
                disable_read_skill_resource_approval=True,
            )
            agent = maf.Agent(client=_ScriptedModel(seen), context_providers=[provider])
            reply = await agent.run("Do the alpha thing")
            seen.append(reply.text)

    anyio.run(go)
    tools = ["load_skill", "read_skill_resource", "run_skill_script"]
    manifest = (alpha / "alpha" / "SKILL.md").read_text()
    assert seen[0] == (0, tools)
    assert seen[1] == (1, tools)
    assert manifest.rstrip() in seen[2]
    assert seen[3:] == [(2, tools), "guide\n", "done"]
