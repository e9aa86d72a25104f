"""Single-file skills (SPEC §29.2): ``<root>/<id>.md`` in opencode's own folders loads as a skill
named by its frontmatter, with no resources; nothing next to the file is ever served, through
any door: ``read_resource``, ``resource_path``, ``open_resource``, ``load_skill``, the session
tool, the session's file access, the grants and the MCP server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import (
    AgentSkills,
    ErrorCode,
    SkillError,
    SkillRoot,
    TrustStore,
    client_skill_roots,
    create_agent_skills,
)
from agent_skills._model import accepts_single_files, single_file_id
from agent_skills.agent import SkillSession
from conftest import make_skill, symlink

SECRET = b"neighbour secret: never served\n"
REVIEW = "---\nname: review\ndescription: Review a change.\n---\nRead the diff. ${SKILL_DIR}\n"


def _opencode_root(base: Path) -> Path:
    """``base/.opencode/skills`` holding the single-file skill ``review.md`` and hostile
    neighbours: a secret file, a directory skill's lookalike without a manifest, a hidden
    file, a note without frontmatter."""
    root = base / ".opencode" / "skills"
    root.mkdir(parents=True)
    (root / "review.md").write_text(REVIEW, encoding="utf-8")
    (root / "secret.txt").write_bytes(SECRET)
    (root / "nested").mkdir()
    (root / "nested" / "secret.txt").write_bytes(SECRET)
    (root / ".hidden.md").write_text(REVIEW.replace("review", "hidden"), encoding="utf-8")
    (root / "README.md").write_text("# My skills\n\nNotes.\n", encoding="utf-8")
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return _opencode_root(tmp_path / "ws")


@pytest.fixture
def skills(root: Path) -> AgentSkills:
    return create_agent_skills([root])


def test_which_roots_accept_single_files() -> None:
    assert accepts_single_files(Path("/ws/.opencode/skills"))
    assert accepts_single_files(Path("/h/.config/opencode/skills"))
    for other in (
        "/ws/.claude/skills",
        "/ws/.agents/skills",
        "/h/.config/agents/skills",
        "/ws/opencode/skills",
        "/ws/.opencode/skills/sub",
        "/skills",
    ):
        assert not accepts_single_files(Path(other)), other
    assert [
        single_file_id(n) for n in ("a.md", "B.MD", ".a.md", "SKILL.md", "skill.MD", ".md")
    ] == [
        "a",
        "B",
        None,
        None,
        None,
        None,
    ]
    assert single_file_id("notes.txt") is None


def test_a_single_file_skill_loads_named_by_its_frontmatter(
    skills: AgentSkills, root: Path
) -> None:
    [info] = skills.list_skills()
    path = root / "review.md"
    assert (info.name, info.description, info.path, info.dir) == (
        "review",
        "Review a change.",
        path,
        path,
    )
    assert info.single_file is True
    assert info.real_dir == Path(os.path.realpath(path))
    content = skills.load_skill("review")
    assert content is not None
    assert content.body == "Read the diff. ${SKILL_DIR}"
    assert (content.resources, content.resources_truncated) == ((), False)
    statuses = [(e.path.name, e.status.value, e.name, e.reason) for e in skills.report().entries]
    assert statuses == [
        ("nested", "skipped", None, "no SKILL.md in directory"),
        ("README.md", "skipped", None, "no frontmatter: not a single-file skill"),
        ("review.md", "loaded", "review", ""),
    ]
    # A note without frontmatter is no warning; nothing else is said about the root.
    assert [d.kind.value for d in skills.diagnostics] == []


def test_name_missing_takes_the_file_id_and_a_mismatch_names_the_file(tmp_path: Path) -> None:
    root = tmp_path / ".config" / "opencode" / "skills"
    root.mkdir(parents=True)
    (root / "lint.md").write_text("---\ndescription: Lint.\n---\nLint it.\n")
    (root / "fmt.md").write_text("---\nname: format\ndescription: Format.\n---\nFormat it.\n")
    skills = create_agent_skills([root])
    assert [s.name for s in skills.list_skills()] == ["format", "lint"]
    kinds = sorted((d.kind.value, d.message) for d in skills.diagnostics)
    assert kinds == [
        (
            "name_mismatch",
            f"skill name 'format' does not match file 'fmt' ({root / 'fmt.md'})",
        ),
        (
            "name_missing",
            f"missing frontmatter key 'name' in {root / 'lint.md'}: using the file name 'lint'",
        ),
    ]


def test_other_roots_never_load_a_markdown_file(tmp_path: Path) -> None:
    for folder in (".claude/skills", ".agents/skills", "plain"):
        root = tmp_path / folder
        root.mkdir(parents=True)
        (root / "review.md").write_text(REVIEW)
        skills = create_agent_skills([root])
        assert skills.list_skills() == []
        assert skills.report().entries == ()


def test_every_read_of_a_neighbour_is_refused(skills: AgentSkills) -> None:
    """A resource read is not_found; a path climbing out is path_escape; none returns bytes."""
    cases = {
        "secret.txt": ErrorCode.NOT_FOUND,
        "nested/secret.txt": ErrorCode.NOT_FOUND,
        "review.md": ErrorCode.NOT_FOUND,
        "SKILL.md": ErrorCode.NOT_FOUND,
        ".": ErrorCode.NOT_FOUND,
        "../secret.txt": ErrorCode.PATH_ESCAPE,
        "../.opencode/skills/secret.txt": ErrorCode.PATH_ESCAPE,
    }
    for rel, code in cases.items():
        for call in (skills.read_resource, skills.resource_path, skills.open_resource):
            with pytest.raises(SkillError) as info:
                call("review", rel)
            assert info.value.code == code, (call, rel)
            if code == ErrorCode.NOT_FOUND:
                assert info.value.fields == {"name": "review", "rel": rel}
    with pytest.raises(SkillError) as info:
        skills.read_listed_file("review", "secret.txt")
    assert info.value.code == ErrorCode.NOT_FOUND


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rel=st.one_of(
        st.text(max_size=40),
        st.sampled_from(
            ["secret.txt", "nested/secret.txt", "./secret.txt", "nested/../secret.txt"]
        ),
        st.lists(st.sampled_from(["..", ".", "secret.txt", "nested", "review.md"]), max_size=5).map(
            "/".join
        ),
    )
)
def test_no_path_ever_reads_a_byte(skills: AgentSkills, rel: str) -> None:
    for call in (skills.read_resource, skills.open_resource, skills.resource_path):
        with pytest.raises(SkillError) as info:
            call("review", rel)
        assert info.value.code in (
            ErrorCode.NOT_FOUND,
            ErrorCode.PATH_ESCAPE,
            ErrorCode.INVALID_INPUT,
        )


def test_activation_serves_the_body_and_nothing_next_to_it(skills: AgentSkills, root: Path) -> None:
    session = SkillSession(skills, project_root=None)
    activation = session.activate("review")
    assert "Read the diff." in activation.content
    assert activation.grants == ()
    assert session.grants().left_out == (("review", "single_file_skill"),)
    assert session.allowed_read_roots() == []
    for rel in ("secret.txt", "nested/secret.txt", "review.md"):
        result = session.handle_tool_call("read_skill_resource", {"name": "review", "path": rel})
        assert result.is_error, rel
        assert result.text.startswith("not_found: "), result.text
        assert SECRET.decode() not in result.text
    for path in (root / "secret.txt", root / "nested" / "secret.txt", root):
        with pytest.raises(SkillError) as info:
            session.check_read(path)
        assert info.value.code == ErrorCode.ACCESS_DENIED


def test_grants_and_read_roots_leave_it_out(skills: AgentSkills) -> None:
    grants = skills.grants()
    assert (grants.grants, grants.left_out) == ((), (("review", "single_file_skill"),))
    assert skills.allowed_read_roots() == []


def test_a_file_swapped_after_discovery_is_stale(skills: AgentSkills, root: Path) -> None:
    skill = root / "review.md"
    secret = root / "secret.txt"
    skill.unlink()
    symlink(skill, secret)
    for call in (skills.current_body, skills.activation):
        with pytest.raises(SkillError) as info:
            call("review")
        assert info.value.code == ErrorCode.STALE_SKILL
    skills.refresh()
    assert skills.list_skills() == []  # a link to a note without frontmatter: not a skill


def test_a_linked_single_file_is_its_target_pinned(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "review.md").write_text(REVIEW)
    (store / "secret.txt").write_bytes(SECRET)
    root = tmp_path / ".opencode" / "skills"
    symlink(root / "review.md", store / "review.md")
    skills = create_agent_skills([root])
    [info] = skills.list_skills()
    assert (info.dir, info.real_dir) == (root / "review.md", store / "review.md")
    assert skills.current_body("review") == "Read the diff. ${SKILL_DIR}"
    with pytest.raises(SkillError) as info_err:
        skills.read_resource("review", "secret.txt")
    assert info_err.value.code == ErrorCode.NOT_FOUND
    unfollowed = create_agent_skills([root], follow_symlinks=False)
    assert unfollowed.list_skills() == []


def test_the_opencode_preset_and_nested_walks_find_them(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    _opencode_root(ws)
    user = home / ".config" / "opencode" / "skills"
    user.mkdir(parents=True)
    (user / "mine.md").write_text("---\nname: mine\ndescription: Mine.\n---\nBody.\n")
    roots = client_skill_roots("opencode", workspace=ws, home=home)
    for depth in (1, 3):
        skills = create_agent_skills(roots, max_depth=depth)
        assert [(s.name, s.scope, s.single_file) for s in skills.list_skills()] == [
            ("mine", "user", True),
            ("review", "workspace", True),
        ]


def test_a_directory_skill_beside_single_files_keeps_its_resources(root: Path) -> None:
    make_skill(root, "dirskill", files={"references/a.md": "a\n"})
    skills = create_agent_skills([SkillRoot(root, "workspace", "opencode")])
    content = skills.load_skill("dirskill")
    assert content is not None and [r.rel for r in content.resources] == ["references/a.md"]
    assert not content.single_file


def test_trust_gates_and_approves_a_single_file(tmp_path: Path, root: Path) -> None:
    store = TrustStore(tmp_path / "trust.json")
    gated = create_agent_skills([root], trust=store)
    assert gated.list_skills() == []
    assert [(e.status.value, e.reason) for e in gated.report().entries][-1] == (
        "untrusted",
        "not approved",
    )
    digest = store.approve(root / "review.md")
    served = create_agent_skills([root], trust=store)
    assert [s.name for s in served.list_skills()] == ["review"]
    assert store.approved() == {Path(os.path.realpath(root / "review.md")): digest}
    assert served.current_body("review") == "Read the diff. ${SKILL_DIR}"
    (root / "review.md").write_text(REVIEW + "More.\n")
    changed = create_agent_skills([root], trust=store)
    assert changed.list_skills() == []
    assert changed.report().entries[-1].reason == "changed since approval"


def test_the_cli_shows_it_with_no_resources(tmp_path: Path, root: Path) -> None:
    from click.testing import CliRunner

    from agent_skills.cli import cli

    runner = CliRunner()
    args = ["--preset", "none", "--root", str(root)]
    listed = json.loads(runner.invoke(cli, ["list", "--json", *args]).stdout)
    assert [(d["name"], d["dir"], d["path"]) for d in listed] == [
        ("review", str(root / "review.md"), str(root / "review.md"))
    ]
    shown = runner.invoke(cli, ["resources", "review", *args])
    assert shown.stdout == "review has no resources.\n"
    read = runner.invoke(cli, ["read", "review", "secret.txt", *args])
    assert read.exit_code == 1
    assert read.stdout == ""
    assert read.stderr.splitlines()[-1] == (
        "not_found: No such resource 'secret.txt' in skill 'review' (a single-file skill has no "
        "resources)"
    )


def test_the_mcp_server_serves_the_body_and_nothing_next_to_it(
    skills: AgentSkills, root: Path
) -> None:
    """In process, through the official SDK's client: ``activate_skill`` gives the body; every
    read of a neighbour, by tool or by URI, fails; no listing names a neighbour; the skill is
    left out of the Skills extension (its manifest is not ``SKILL.md``) with a reason."""
    pytest.importorskip("mcp")
    import anyio
    import mcp_types as types
    from mcp import Client
    from pydantic import BaseModel, ConfigDict

    from agent_skills.mcp import build_server
    from mcp_support import ListSkills, error_of

    class Raw(BaseModel):
        model_config = ConfigDict(extra="allow")

    def text(result: types.CallToolResult) -> str:
        [block] = result.content
        assert isinstance(block, types.TextContent)
        return block.text

    async def body(client: Client) -> None:
        activated = await client.call_tool("activate_skill", {"name": "review"})
        assert not activated.is_error
        assert "Read the diff." in text(activated)
        for rel in ("secret.txt", "nested/secret.txt", "../secret.txt", "review.md"):
            read = await client.call_tool("read_skill_resource", {"name": "review", "path": rel})
            assert read.is_error, rel
            assert text(read).split(":")[0] in ("not_found", "path_escape"), text(read)
            assert SECRET.decode() not in text(read)
        listed = await client.list_resources()
        uris = [str(r.uri) for r in listed.resources]
        assert not [u for u in uris if "secret" in u or "review" in u], uris
        for uri in ("skill://review/secret.txt", "skill://review/review.md"):
            code, _ = await error_of(client.read_resource(uri))
            assert code == -32602
        request = ListSkills(params=types.PaginatedRequestParams(cursor=None))
        page = (await client.session.send_request(request, Raw)).model_dump()
        assert page["skills"] == []

    async def go() -> None:
        async with Client(build_server(skills), mode="auto", cache=None) as client:
            await body(client)

    anyio.run(go)


def test_the_watcher_reports_a_single_file_added_changed_and_removed(root: Path) -> None:
    pytest.importorskip("watchfiles")
    import queue

    from agent_skills import SkillChanges

    events: queue.Queue[SkillChanges] = queue.Queue()
    skills = create_agent_skills([root])

    def next_change() -> SkillChanges:
        try:
            return events.get(timeout=15.0)
        except queue.Empty:
            raise AssertionError("no change reported within 15 s") from None

    with skills.watch(events.put, debounce_ms=50):
        (root / "plan.md").write_text("---\nname: plan\ndescription: Plan.\n---\nPlan.\n")
        assert next_change() == SkillChanges(added=("plan",))
        (root / "review.md").write_text(REVIEW + "Changed.\n")
        assert next_change() == SkillChanges(changed=("review",))
        (root / "plan.md").unlink()
        assert next_change() == SkillChanges(removed=("plan",))


def test_hostile_entries_named_like_single_files(tmp_path: Path) -> None:
    """A FIFO is never opened (no hang), a link to a FIFO is refused, a huge file is capped, a
    link to a directory named ``x.md`` is a directory candidate, an undecodable name is fine."""
    root = tmp_path / ".opencode" / "skills"
    root.mkdir(parents=True)
    os.mkfifo(root / "fifo.md")
    symlink(root / "to-fifo.md", root / "fifo.md")
    (root / "huge.md").write_bytes(b"---\nname: huge\ndescription: H.\n---\n" + b"x" * 4096)
    make_skill(tmp_path / "store", "dirlike", frontmatter={"name": "dirlike", "description": "D."})
    symlink(root / "dirlike.md", tmp_path / "store" / "dirlike")
    odd = os.fsdecode(b"\xff-odd.md")
    (root / odd).write_text("---\ndescription: Odd.\n---\nBody.\n")
    (root / "ok.md").write_text(REVIEW.replace("review", "ok"))
    skills = create_agent_skills([root], max_manifest_bytes=1024)
    assert [s.name for s in skills.list_skills()] == ["dirlike", "ok"]
    entries = {e.path.name: (e.status.value, e.reason) for e in skills.report().entries}
    assert entries["to-fifo.md"] == ("skipped", "not a regular file")
    assert entries["huge.md"][0] == "skipped"
    assert "larger than 1024 bytes" in entries["huge.md"][1]
    assert entries["dirlike.md"] == ("loaded", "")
    assert entries[odd][0] == "invalid"  # the id cannot be a name: the skill is left out
    assert "fifo.md" not in entries
    kinds = sorted({d.kind.value for d in skills.diagnostics})
    assert kinds == ["invalid_skill", "name_mismatch", "not_a_file", "too_large"]
    content = skills.load_skill("dirlike")
    assert content is not None and not content.single_file
