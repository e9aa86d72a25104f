"""The MCP server and hostile skill folders (SPEC §20.3, §20.8, §17): a skill with a name that is
not UTF-8 or a manifest link leading outside is left out of the extension with its reason, the
server still builds, and reads of a repointed skill are refused (stale_skill)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from agent_skills import SkillError, create_agent_skills
from agent_skills.mcp import SkillServer
from conftest import make_skill, symlink

not_on_apfs = pytest.mark.skipif(sys.platform == "darwin", reason="APFS refuses non-UTF-8 names")


def _reasons(server: SkillServer) -> dict[str, str]:
    out: dict[str, str] = {}
    for diag in server.diagnostics:
        assert diag.kind == "not_published" and diag.path is not None
        out[diag.path.parent.name] = diag.message
    return out


@not_on_apfs
@pytest.mark.parametrize("where", ["directory", "resource", "nested"])
def test_names_that_are_not_utf8_are_left_out_with_a_reason(tmp_path: Path, where: str) -> None:
    root = tmp_path / "skills"
    odd = os.fsdecode(b"odd\xff")
    dirname = odd if where == "directory" else "plain"
    skill = make_skill(root, dirname, frontmatter={"name": "plain", "description": "d"})
    if where == "resource":
        (skill / odd).write_text("x")
    elif where == "nested":
        (skill / odd).mkdir()
        (skill / odd / "x.md").write_text("x")
    make_skill(root, "fine")
    skills = create_agent_skills([root])
    server = SkillServer(skills)  # builds: no name stops the server
    assert server.published() == ["fine"]
    [(_, reason)] = _reasons(server).items()
    assert "non_utf8_path" in reason
    assert skills.load_skill("plain") is not None  # still served through the tools


def test_manifest_link_leading_outside_is_not_published(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(tmp_path / "elsewhere", "outer")
    skill = root / "outer"
    skill.mkdir(parents=True)
    symlink(skill / "SKILL.md", tmp_path / "elsewhere" / "outer" / "SKILL.md")
    make_skill(root, "fine")
    skills = create_agent_skills([root])
    assert [s.name for s in skills.list_skills()] == ["fine", "outer"]
    server = SkillServer(skills)
    assert server.published() == ["fine"]
    assert "manifest_outside" in _reasons(server)["outer"]


def test_published_files_of_a_repointed_skill_are_not_served(tmp_path: Path) -> None:
    store = tmp_path / "store"
    real = make_skill(store, "s", files={"a.md": "A"})
    symlink(tmp_path / "root" / "s", real)
    outside = make_skill(tmp_path / "outside", "s", files={"a.md": "SECRET"})
    skills = create_agent_skills([tmp_path / "root"])
    server = SkillServer(skills)
    assert server.published() == ["s"]
    shutil.move(real, tmp_path / "s.old")
    symlink(real, outside)
    with pytest.raises(SkillError) as info:
        skills.read_resource("s", "a.md", max_bytes=1024)
    assert info.value.code == "stale_skill"
