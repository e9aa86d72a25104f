"""Paths handed out under a linked skill's ``dir`` are right when returned (SPEC §20.1, §10.6).

``root/s -> store/s`` is pinned on ``store/s``. Repointing the link at ``store/evil`` (while
``store/s`` still exists, so the pin itself still holds) must not make ``resource_path``,
``SkillResource.path`` or the activation's skill directory name the attacker's directory: each
raises ``stale_skill`` ``{name, dir}`` (lists leave the skill out), while an intact link still
gets the lexical path under ``dir``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_skills import AgentSkills, SkillError, create_agent_skills
from agent_skills.agent import SkillSession
from conftest import make_skill, symlink


def _linked(tmp_path: Path) -> tuple[AgentSkills, Path, Path]:
    store = tmp_path / "store"
    real = make_skill(store, "s", files={"a.txt": "A"})
    make_skill(store, "evil", files={"a.txt": "EVIL-A"})
    link = symlink(tmp_path / "root" / "s", real)
    return create_agent_skills([tmp_path / "root"]), link, real


def _repoint(link: Path, target: Path) -> None:
    tmp = link.with_name(".tmp-link")
    os.symlink(target, tmp)
    os.replace(tmp, link)  # ln -sfn


def _stale(call: Callable[[], object], real: Path) -> None:
    with pytest.raises(SkillError) as info:
        call()
    assert info.value.code == "stale_skill"
    assert info.value.fields == {"name": "s", "dir": os.fspath(real)}


def test_intact_link_keeps_the_lexical_path(tmp_path: Path) -> None:
    skills, link, real = _linked(tmp_path)
    assert skills.resource_path("s", "a.txt") == link / "a.txt"
    content = skills.load_skill("s")
    assert content is not None
    assert [r.path for r in content.resources] == [link / "a.txt"]
    session = SkillSession(skills)
    activation = session.activate("s")
    assert activation.skill_dir == link
    assert f"Skill directory: {link}" in activation.content
    assert os.fspath(link) in session.context_summary()
    assert real != link


def test_resource_path_of_a_repointed_link_is_stale(tmp_path: Path) -> None:
    skills, link, real = _linked(tmp_path)
    _repoint(link, tmp_path / "store" / "evil")
    _stale(lambda: skills.resource_path("s", "a.txt"), real)
    assert skills.read_resource("s", "a.txt") == b"A"  # the race-free read serves the pin


def test_load_skill_of_a_repointed_link_is_stale(tmp_path: Path) -> None:
    skills, link, real = _linked(tmp_path)
    _repoint(link, tmp_path / "store" / "evil")
    _stale(lambda: skills.load_skill("s"), real)


def test_activation_of_a_repointed_link_is_stale(tmp_path: Path) -> None:
    skills, link, real = _linked(tmp_path)
    session = SkillSession(skills)
    _repoint(link, tmp_path / "store" / "evil")
    _stale(lambda: session.activate("s"), real)


def test_reactivation_and_summary_after_repoint(tmp_path: Path) -> None:
    skills, link, real = _linked(tmp_path)
    session = SkillSession(skills)
    session.activate("s")
    _repoint(link, tmp_path / "store" / "evil")
    _stale(lambda: session.activate("s"), real)  # "already active" names the dir too
    assert os.fspath(link) not in session.context_summary()  # a list leaves it out
    restored = SkillSession.from_state(skills, session.to_state())
    assert restored.context_summary() == ""


def test_link_repointed_back_is_served_again(tmp_path: Path) -> None:
    skills, link, real = _linked(tmp_path)
    _repoint(link, tmp_path / "store" / "evil")
    _stale(lambda: skills.resource_path("s", "a.txt"), real)
    _repoint(link, real)
    assert skills.resource_path("s", "a.txt") == link / "a.txt"


def test_mcp_prompt_of_a_repointed_link_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    import anyio
    from mcp import Client

    from agent_skills.mcp import build_server
    from mcp_support import error_of

    skills, link, _ = _linked(tmp_path)
    server = build_server(skills)

    async def go() -> None:
        async with Client(server, mode="legacy", cache=None) as client:
            await client.get_prompt("s")  # intact: served
            _repoint(link, tmp_path / "store" / "evil")
            _, message = await error_of(client.get_prompt("s"))
            assert "stale_skill" in message

    anyio.run(go)


def test_the_link_path_is_checked_only_when_dir_is_not_the_real_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A skill whose dir is its real path was just reached from / with no link on the way and
    # its identity compared: that is the check, and it still catches a directory replaced.
    import agent_skills._registry as registry_mod

    checked: list[str] = []
    real_verify = registry_mod.verify_link

    def counting(pin: object, name: str, skill_dir: str) -> None:
        checked.append(name)
        real_verify(pin, name, skill_dir)  # type: ignore[arg-type]

    monkeypatch.setattr(registry_mod, "verify_link", counting)
    _, link, _ = _linked(tmp_path)
    plain_root = tmp_path / "plain"
    make_skill(plain_root, "p", files={"a.txt": "P"})
    both = create_agent_skills([tmp_path / "root", plain_root])
    assert both.resource_path("p", "a.txt") == plain_root / "p" / "a.txt"
    assert checked == []
    assert both.resource_path("s", "a.txt") == link / "a.txt"
    assert checked == ["s"]
    os.rename(plain_root / "p", plain_root / "p-old")
    make_skill(plain_root, "p", files={"a.txt": "OTHER"})
    with pytest.raises(SkillError) as info:
        both.resource_path("p", "a.txt")
    assert info.value.code == "stale_skill" and checked == ["s"]
