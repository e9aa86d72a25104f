"""Hidden files stay hidden through links (SPEC §9, §30.2).

A link inside a skill whose real target is a hidden file, or lies inside a hidden or skipped
directory of the same skill (``references/config -> ../.git/config``), is no resource: it is
not listed, so neither published over MCP, hashed (trust, lock), packed nor copied by ``add``.
Every consumer inherits the one listing rule (``_model.is_skipped_path`` in
``_resources``); each is checked here with the same tree.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_skills import TrustStore, create_agent_skills
from agent_skills import packages as pkg
from agent_skills._model import is_skipped_path
from agent_skills.cli import cli
from conftest import make_skill, symlink

TOKEN = b"[remote]\n\turl = https://user:ghp_token@example.com/x.git\n"

# link -> target (relative to the link), every one leading to something hidden or skipped.
HIDDEN_LINKS = {
    "references/config": "../.git/config",  # a file in a hidden directory
    "refs": ".git/config",
    "env.txt": ".env",  # a hidden file
    "notes.txt": "references/.secret",  # a hidden file below a listed directory
    "hooks": ".git",  # a directory link to a hidden directory
    "objects": ".git/objects",  # a directory link into one
    "mods.js": "node_modules/pkg/index.js",  # a file in a skipped directory
    "cache": "__pycache__",  # a directory link to a skipped directory
    "deps": "node_modules/pkg",  # a directory link into one
    "chain": "references/config",  # a link to such a link
    "assets/up": "../.git",  # through ``..`` from a listed directory
}
LISTED = ["assets/logo.svg", "ok.md", "references/guide.md", "scripts/run.sh"]


def _skill(root: Path, name: str = "hello") -> Path:
    skill = make_skill(
        root,
        name,
        frontmatter={"name": name, "description": "Says hello."},
        files={
            "references/guide.md": "# Guide\n",
            "scripts/run.sh": "echo hi\n",
            "assets/logo.svg": "<svg/>",
            "references/.secret": "SECRET=1\n",
            ".env": "TOKEN=2\n",
            "node_modules/pkg/index.js": "module.exports = 1\n",
            "__pycache__/m.cpython-311.pyc": "\0",
        },
    )
    (skill / ".git" / "objects").mkdir(parents=True)
    (skill / ".git" / "config").write_bytes(TOKEN)
    (skill / ".git" / "objects" / "ab").write_bytes(TOKEN)
    for link, target in HIDDEN_LINKS.items():
        symlink(skill / link, target)
    symlink(skill / "ok.md", "references/guide.md")  # a link to a listed file stays listed
    return skill


def test_the_rule_for_a_path() -> None:
    assert is_skipped_path((".git", "config"), directory=False)
    assert is_skipped_path((".env",), directory=False)
    assert is_skipped_path(("node_modules", "pkg", "index.js"), directory=False)
    assert is_skipped_path(("a", "__pycache__"), directory=True)
    assert is_skipped_path(("a", ".hidden"), directory=True)
    # A regular file named like a skipped directory is a file (SPEC §9 skips directories).
    assert not is_skipped_path(("node_modules",), directory=False)
    assert not is_skipped_path(("references", "guide.md"), directory=False)
    assert not is_skipped_path((), directory=True)


def test_links_to_hidden_or_skipped_targets_are_not_listed(tmp_path: Path) -> None:
    _skill(tmp_path / "skills")
    skills = create_agent_skills([tmp_path / "skills"])
    content = skills.load_skill("hello")
    assert content is not None
    assert [r.rel for r in content.resources] == LISTED
    assert content.diagnostics == ()
    # Asked for by name, a link is still served as a hidden file is (SPEC §10): not listed is
    # the rule, not unreadable.
    assert skills.read_resource("hello", "env.txt") == b"TOKEN=2\n"


def test_the_cli_lists_none_of_them(tmp_path: Path) -> None:
    _skill(tmp_path / "skills")
    result = CliRunner().invoke(
        cli,
        ["resources", "hello", "--json", "--preset", "none", "--root", str(tmp_path / "skills")],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert [r["rel"] for r in json.loads(result.output)["resources"]] == LISTED


def test_digests_of_trust_and_lock_leave_them_out(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    skill = _skill(ws / ".agents" / "skills")
    store = TrustStore(tmp_path / "trust.json")
    store.approve(skill)
    stored = json.loads((tmp_path / "trust.json").read_text())
    [approval] = stored["approvals"].values()
    assert sorted(approval["files"]) == ["SKILL.md", *LISTED]
    # The hidden target changes: no digest changes.
    digest = store.approved()[skill]
    (skill / ".git" / "config").write_bytes(TOKEN + b"more")
    assert store.approve(skill) == digest
    skills = create_agent_skills([ws / ".agents" / "skills"])
    lock = pkg.lock_skills(skills, workspace=ws)
    [entry] = lock["skills"]
    assert [f["path"] for f in entry["files"]] == ["SKILL.md", *LISTED]
    assert entry["digest"] == digest


def test_pack_leaves_them_out(tmp_path: Path) -> None:
    skill = _skill(tmp_path / "src")
    out = pkg.pack_skill(skill, tmp_path / "hello.skill")
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        assert names == [f"hello/{rel}" for rel in sorted(["SKILL.md", *LISTED])]
        assert all(TOKEN not in zf.read(n) for n in names)


@pytest.mark.parametrize("kind", ["directory", "archive"])
def test_add_copies_none_of_them(tmp_path: Path, kind: str) -> None:
    skill = _skill(tmp_path / "src")
    location = skill
    if kind == "archive":
        location = pkg.pack_skill(skill, tmp_path / "hello.skill")
    target = tmp_path / "installed"
    [installed] = pkg.install_skills(pkg.parse_source(str(location)), target)
    copied = sorted(
        str(p.relative_to(installed.dir)) for p in installed.dir.rglob("*") if not p.is_dir()
    )
    assert copied == sorted(["SKILL.md", *LISTED])
    assert all(TOKEN not in p.read_bytes() for p in installed.dir.rglob("*") if p.is_file())
    assert not any(p.is_symlink() for p in installed.dir.rglob("*"))


def test_mcp_publishes_none_of_them(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client
    from pydantic import BaseModel, ConfigDict

    from agent_skills.mcp import build_server
    from mcp_support import GetParams, GetSkill, error_of

    class Raw(BaseModel):
        model_config = ConfigDict(extra="allow")

    _skill(tmp_path / "skills")
    server = build_server(create_agent_skills([tmp_path / "skills"]))

    async def go() -> tuple[list[str], list[tuple[int, str]]]:
        async with Client(server, mode="legacy", cache=None) as client:
            request = GetSkill(params=GetParams(uri="skill://hello/SKILL.md"))
            entry = (await client.session.send_request(request, Raw)).model_dump()
            refused = [
                await error_of(client.read_resource(f"skill://hello/{link}"))
                for link in ("env.txt", "refs", "chain", "mods.js")
            ]
            return [r["uri"] for r in entry["skill"]["resources"]], refused

    uris, refused = anyio.run(go)
    assert uris == [f"skill://hello/{rel}" for rel in ["SKILL.md", *LISTED]]
    unpublished = ("env.txt", "refs", "chain", "mods.js")
    assert [message for _, message in refused] == [
        f"unknown resource 'skill://hello/{link}'" for link in unpublished
    ]


def test_a_dir_link_inside_a_skipped_directory_is_not_walked_into(tmp_path: Path) -> None:
    """A link into a skipped directory is left out however it is reached: through another
    link to a directory, or a chain ending inside one."""
    skill = make_skill(tmp_path / "skills", "s", files={"node_modules/a/b.js": "b", "x.md": "x"})
    symlink(skill / "lib", "node_modules/a")
    symlink(skill / "via", "lib")
    symlink(skill / "file", "via/b.js")
    (skill / "sub").mkdir()
    symlink(skill / "sub" / "deep", "../via")
    content = create_agent_skills([tmp_path / "skills"]).load_skill("s")
    assert content is not None
    assert [r.rel for r in content.resources] == ["x.md"]


def test_links_named_as_listed_files_to_visible_targets_stay(tmp_path: Path) -> None:
    """The target's path is judged as well as the link's name, not instead of it: a link to a
    visible file is listed, a link with a hidden name stays out by its own name."""
    skill = make_skill(tmp_path / "skills", "s", files={"gitlike/config": "c", "a.md": "a"})
    symlink(skill / "git-config", "gitlike/config")
    symlink(skill / ".alias", "a.md")
    content = create_agent_skills([tmp_path / "skills"]).load_skill("s")
    assert content is not None
    assert [r.rel for r in content.resources] == ["a.md", "git-config", "gitlike/config"]


def test_a_checkout_source_leaves_the_link_to_its_git_config_out(tmp_path: Path) -> None:
    """A directory source read through ``add`` (as a git checkout is): ``refs -> ../.git/config``
    of a nested skill never goes with the copy."""
    repo = tmp_path / "repo"
    skill = make_skill(repo / "skills", "tool", files={"references/a.md": "A"})
    (repo / ".git").mkdir()
    (repo / ".git" / "config").write_bytes(TOKEN)
    (skill / ".git").mkdir()
    (skill / ".git" / "config").write_bytes(TOKEN)
    symlink(skill / "references" / "refs", "../.git/config")
    symlink(skill / "up", "../../.git/config")  # outside the skill: escaping, left out too
    [installed] = pkg.install_skills(pkg.parse_source(str(repo)), tmp_path / "out")
    files = sorted(str(p.relative_to(installed.dir)) for p in installed.dir.rglob("*"))
    assert files == ["SKILL.md", "references", "references/a.md"]
    assert os.path.exists(skill / "references" / "refs")


def test_an_activation_lists_none_of_them(tmp_path: Path) -> None:
    from agent_skills.agent import SkillSession

    skill = _skill(tmp_path / "skills")
    session = SkillSession(create_agent_skills([tmp_path / "skills"]))
    content = session.activate("hello").content
    listed = [line.strip()[6:-7] for line in content.splitlines() if "<file>" in line]
    assert listed == LISTED
    assert str(skill / ".git") not in content
