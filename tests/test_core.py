"""The AgentSkills facade (SPEC §1, §8, §10 ``resource_path``, §12)."""

from __future__ import annotations

import errno
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

import agent_skills
from agent_skills import AgentSkills, SkillConfig, SkillError, create_agent_skills
from conftest import make_skill, symlink
from conftest import skill_error as raises


def build(*roots: Path, **kw: Any) -> AgentSkills:
    return create_agent_skills(list(roots), **kw)


# -- §1 facade and §8 listing ----------------------------------------------------------------


def test_facade_shape(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "a")
    skills = build(root, max_resources=7, follow_symlinks=False)
    assert isinstance(skills.config, SkillConfig)
    assert (skills.config.max_resources, skills.config.follow_symlinks) == (7, False)
    assert skills.config.roots[0].path == root
    assert isinstance(skills.report(), agent_skills.DiscoveryReport)
    assert skills.diagnostics == ()


def test_list_sorted_new_list_each_call(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for n in ["beta", "Alpha", "alpha", "_x", "Zed"]:
        make_skill(root, n)
    skills = build(root)
    first = skills.list_skills()
    assert [s.name for s in first] == ["_x", "Alpha", "alpha", "beta", "Zed"]
    first.clear()
    second = skills.list_skills()
    assert [s.name for s in second] == ["_x", "Alpha", "alpha", "beta", "Zed"]
    assert second is not skills.list_skills()
    assert len(skills) == 5
    assert "Alpha" in skills and "ALPHA" not in skills and 3 not in skills


def test_listing_touches_no_filesystem(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "a")
    make_skill(root, "b")
    skills = build(root)
    shutil.rmtree(root)
    assert [s.name for s in skills.list_skills()] == ["a", "b"]
    assert len(skills) == 2 and "a" in skills
    # a directory removed since discovery is stale: nothing is listed from it (SPEC §20.1)
    with pytest.raises(SkillError) as info:
        skills.load_skill("a")
    assert (info.value.code, info.value.fields) == (
        "stale_skill",
        {"name": "a", "dir": str(root / "a")},
    )


def test_load_skill_unknown_is_none_without_diagnostic(
    tmp_path: Path, warn_messages: list[str]
) -> None:
    root = tmp_path / "skills"
    make_skill(root, "a")
    skills = build(root)
    before = skills.diagnostics
    assert skills.load_skill("nope") is None
    assert skills.load_skill("A") is None
    assert skills.diagnostics == before == ()
    assert warn_messages == []


def test_load_skill_content(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(
        root,
        "a",
        frontmatter={"name": "a", "description": "Does A.", "allowed-tools": "Read Grep"},
        body="\n\nDo the thing.\n\n",
        files={"scripts/x.sh": "x"},
    )
    skills = build(root)
    content = skills.load_skill("a")
    assert content is not None
    assert (content.name, content.description, content.body) == ("a", "Does A.", "Do the thing.")
    assert content.allowed_tools == ("Read", "Grep")
    assert (content.dir, content.path, content.root) == (d, d / "SKILL.md", root)
    assert [r.rel for r in content.resources] == ["scripts/x.sh"]
    assert (content.resources_truncated, content.diagnostics) == (False, ())


def test_body_snapshot_resources_per_call(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "a", body="Old body.", files={"one.md": "1"})
    skills = build(root)
    make_skill(root, "a", body="New body.")
    (d / "two.md").write_text("2")
    (d / "one.md").unlink()
    content = skills.load_skill("a")
    assert content is not None
    assert content.body == "Old body."
    assert [r.rel for r in content.resources] == ["two.md"]


def test_returned_mappings_are_read_only(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(
        root,
        "a",
        frontmatter={
            "name": "a",
            "description": "d",
            "metadata": {"owner": "team", "tags": ["x"]},
            "custom": {"k": 1},
        },
    )
    skills = build(root)
    info = skills.list_skills()[0]
    with pytest.raises(TypeError):
        info.metadata["name"] = "b"  # type: ignore[index]
    with pytest.raises(TypeError):
        info.metadata["metadata"]["owner"] = "other"
    with pytest.raises(TypeError):
        info.metadata["custom"]["k"] = 2
    with pytest.raises(AttributeError):
        info.metadata["metadata"]["tags"].append("y")
    with pytest.raises(AttributeError):
        info.name = "b"  # type: ignore[misc]
    content = skills.load_skill("a")
    assert content is not None
    with pytest.raises(TypeError):
        content.metadata["description"] = "x"  # type: ignore[index]
    again = skills.list_skills()[0]
    assert again.name == "a"
    assert dict(again.metadata["metadata"]) == {"owner": "team", "tags": ("x",)}
    assert again.metadata["custom"]["k"] == 1


# -- §12 refresh ------------------------------------------------------------------------------


def test_refresh_reflects_add_edit_delete(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "keep", frontmatter={"name": "keep", "description": "v1"})
    make_skill(root, "gone")
    skills = build(root)
    make_skill(root, "keep", frontmatter={"name": "keep", "description": "v2"}, body="B2")
    shutil.rmtree(root / "gone")
    make_skill(root, "new")
    assert [s.name for s in skills.list_skills()] == ["gone", "keep"]
    skills.refresh()
    assert [(s.name, s.description) for s in skills.list_skills()] == [
        ("keep", "v2"),
        ("new", "The new skill."),
    ]
    content = skills.load_skill("keep")
    assert content is not None and content.body == "B2"
    assert skills.load_skill("gone") is None
    assert [e.path.name for e in skills.report().entries] == ["keep", "new"]


def test_strict_refresh_failure_keeps_previous_snapshot(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "a")
    skills = build(root, strict=True)
    report, listed = skills.report(), skills.list_skills()
    d = make_skill(root, "b", raw="---\nname: b\n")
    err = raises(skills.refresh)
    assert err.code == "invalid_skill"
    assert err.fields["path"] == str(d / "SKILL.md")
    assert skills.list_skills() == listed
    assert skills.report() is report
    (d / "SKILL.md").unlink()
    skills.refresh()
    assert [e.path.name for e in skills.report().entries] == ["a", "b"]


def test_construction_scans_once_and_listing_never_rescans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_skills._discover as registry_module

    calls: list[Path] = []
    real = registry_module.walk_root

    def counting(root: Any, **kw: Any) -> Any:
        calls.append(root.path)
        return real(root, **kw)

    monkeypatch.setattr(registry_module, "walk_root", counting)
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    make_skill(r1, "a")
    skills = build(r1, r2)
    assert calls == [r1, r2]
    skills.list_skills()
    skills.load_skill("a")
    skills.resource_path("a", "SKILL.md")
    skills.report()
    len(skills)
    assert calls == [r1, r2]
    skills.refresh()
    assert calls == [r1, r2, r1, r2]


def test_readers_see_whole_snapshots_during_refresh(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for i in range(20):
        make_skill(root, f"s{i:02d}")
    skills = build(root)
    names_a = [s.name for s in skills.list_skills()]
    stop = threading.Event()
    seen: list[list[str]] = []

    def reader() -> None:
        while not stop.is_set():
            seen.append([s.name for s in skills.list_skills()])

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for _ in range(10):
            skills.refresh()
    finally:
        stop.set()
        thread.join()
    assert all(names == names_a for names in seen)


def test_allowed_read_roots_are_real_dirs(tmp_path: Path) -> None:
    store = make_skill(tmp_path / "store", "linked")
    root = tmp_path / "skills"
    symlink(root / "linked", store)
    real = make_skill(root, "real")
    low = tmp_path / "low"
    make_skill(low, "real")  # shadowed: not allowed
    skills = build(low, root)
    assert skills.allowed_read_roots() == [store.resolve(), real.resolve()]


# -- §10 resource_path -------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> tuple[AgentSkills, Path]:
    root = tmp_path / "skills"
    d = make_skill(
        root,
        "s",
        files={
            "references/guide.md": "guide",
            ".env": "SECRET=1",
            "assets/.hidden/x.txt": "x",
        },
    )
    return build(root), d


def test_unknown_skill_checked_first(served: tuple[AgentSkills, Path]) -> None:
    skills, _ = served
    for rel in ["references/guide.md", "", "/etc/passwd", "../x", "a\x00b"]:
        err = raises(skills.resource_path, "nope", rel)
        assert (err.code, err.fields) == ("not_found", {"name": "nope", "suggestions": []})
        assert str(err) == "No such skill: nope"


def test_resolves_to_lexical_path(served: tuple[AgentSkills, Path]) -> None:
    skills, d = served
    assert skills.resource_path("s", "references/guide.md") == d / "references/guide.md"
    assert skills.resource_path("s", "references\\guide.md") == d / "references/guide.md"
    assert skills.resource_path("s", "./references/../references/guide.md") == (
        d / "references/guide.md"
    )
    assert skills.resource_path("s", Path("references/guide.md")) == d / "references/guide.md"


def test_manifest_and_hidden_files_resolve(served: tuple[AgentSkills, Path]) -> None:
    skills, d = served
    assert skills.resource_path("s", "SKILL.md") == d / "SKILL.md"
    assert skills.resource_path("s", ".env") == d / ".env"
    assert skills.resource_path("s", "assets/.hidden/x.txt") == d / "assets/.hidden/x.txt"
    assert skills.read_resource("s", ".env") == b"SECRET=1"


def test_manifest_variant_resolves_by_its_name(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", manifest="skill.md")
    skills = build(root)
    assert skills.resource_path("s", "skill.md") == d / "skill.md"


def test_invalid_input(served: tuple[AgentSkills, Path]) -> None:
    skills, _ = served
    for rel in ["/etc/passwd", "\\x", "C:\\x", "C:x", "//server/share", "\\\\server\\share\\x"]:
        err = raises(skills.resource_path, "s", rel)
        assert (err.code, err.fields) == ("invalid_input", {"rel": rel}), rel
    for rel in ["", "a\x00b"]:
        assert raises(skills.resource_path, "s", rel).code == "invalid_input"


def test_path_escape_has_rel_and_name(served: tuple[AgentSkills, Path]) -> None:
    skills, d = served
    (d.parent / "s-evil").mkdir()
    (d.parent / "s-evil" / "secret.md").write_text("x")
    for rel in ["../s-evil/secret.md", "..", "references/../../x", "..\\..\\secret"]:
        err = raises(skills.resource_path, "s", rel)
        assert (err.code, err.fields) == ("path_escape", {"name": "s", "rel": rel}), rel


def test_not_found_kinds(served: tuple[AgentSkills, Path]) -> None:
    skills, d = served
    symlink(d / "loop", "loop")
    symlink(d / "l1", "l2")
    symlink(d / "l2", "l1")
    symlink(d / "dangling", "missing.md")
    cases = [
        "missing.md",  # ENOENT
        "references/guide.md/x",  # ENOTDIR
        "loop",  # ELOOP
        "l1/x",  # a symlink loop on the way
        "x" * 300,  # ENAMETOOLONG (component)
        "a/" * 3000 + "b",  # ENAMETOOLONG (whole path)
        "dangling",
    ]
    for rel in cases:
        err = raises(skills.resource_path, "s", rel)
        assert (err.code, err.fields) == ("not_found", {"name": "s", "rel": rel}), rel[:20]
    assert str(raises(skills.resource_path, "s", "missing.md")) == (
        "No such resource 'missing.md' in skill 's'"
    )


def test_not_a_file(served: tuple[AgentSkills, Path]) -> None:
    skills, d = served
    os.mkfifo(d / "pipe")
    symlink(d / "dirlink", "references")
    for rel in ["references", ".", "./", "pipe", "dirlink", "references/"]:
        err = raises(skills.resource_path, "s", rel)
        assert (err.code, err.fields) == ("not_a_file", {"name": "s", "rel": rel}), rel


def test_other_os_errors_go_through_fs_error(
    served: tuple[AgentSkills, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    skills, d = served
    real_stat = os.stat
    target = str(d / "references/guide.md")

    def fake_stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        # the file is reached through its directory's descriptor: stat("guide.md", dir_fd=...)
        if path == "guide.md" and kwargs.get("dir_fd") is not None:
            raise PermissionError(errno.EACCES, "Permission denied", target)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", fake_stat)
    monkeypatch.setattr(agent_skills._fs, "_OPENAT2", [None])  # the component walk
    err = raises(skills.resource_path, "s", "references/guide.md")
    assert (err.code, err.fields) == ("io_error", {"path": target})
    assert str(err) == f"EACCES: Permission denied: {target}"


def test_follow_symlinks_does_not_change_resolver(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "s", files={"references/v2.md": "v2"})
    symlink(d / "references/latest.md", "v2.md")
    (tmp_path / "out.md").write_text("out")
    symlink(d / "out.md", tmp_path / "out.md")
    for follow in (True, False):
        skills = build(root, follow_symlinks=follow)
        assert skills.resource_path("s", "references/latest.md") == d / "references/latest.md"
        err = raises(skills.resource_path, "s", "out.md")
        assert (err.code, err.fields) == ("path_escape", {"name": "s", "rel": "out.md"})


def test_linked_skill_resolves_under_link_path(tmp_path: Path) -> None:
    store = make_skill(tmp_path / "store", "lint", files={"a.md": "a"})
    root = tmp_path / "skills"
    symlink(root / "lint", store)
    skills = build(root)
    assert skills.resource_path("lint", "a.md") == root / "lint" / "a.md"
    err = raises(skills.resource_path, "lint", "../../store/lint/a.md")
    assert err.code == "path_escape"


def test_non_string_name_is_invalid_input(served: tuple[AgentSkills, Path]) -> None:
    skills, _ = served
    err = raises(skills.resource_path, 3, "x")
    assert (err.code, err.fields) == ("invalid_input", {"type": "int"})
    err = raises(skills.load_skill, None)
    assert (err.code, err.fields) == ("invalid_input", {"type": "NoneType"})


def test_dangling_link_pointing_outside_is_path_escape(served: tuple[AgentSkills, Path]) -> None:
    skills, d = served
    symlink(d / "out", d.parent.parent / "nowhere" / "x.md")
    err = raises(skills.resource_path, "s", "out")
    assert (err.code, err.fields) == ("path_escape", {"name": "s", "rel": "out"})


def test_json_shapes_and_repr(tmp_path: Path) -> None:
    low, high = tmp_path / "low", tmp_path / "high"
    make_skill(low, "a")
    d = make_skill(
        high,
        "a",
        frontmatter={"name": "a", "description": "A.", "metadata": {"k": ["v"]}},
        files={"scripts/x.sh": "xx"},
    )
    skills = build(low, high)
    assert repr(skills) == f"AgentSkills(1 skills, roots={[str(low), str(high)]})"
    assert [i.name for i in skills] == ["a"]
    assert skills.registry.list() == skills.list_skills()
    info = skills.list_skills()[0]
    expected = {
        "name": "a",
        "description": "A.",
        "scope": "workspace",
        "source": "",
        "root": str(high),
        "dir": str(d),
        "path": str(d / "SKILL.md"),
        "allowed_tools": None,
        "user_invocable": True,
        "model_invocable": True,
        "shadowed": [{"scope": "workspace", "source": "", "root": str(low), "dir": str(low / "a")}],
        "category": "",
        "version": None,
    }
    assert info.to_dict() == expected
    content = skills.load_skill("a")
    assert content is not None
    full = content.to_dict()
    assert full == {
        **expected,
        "metadata": {"name": "a", "description": "A.", "metadata": {"k": ["v"]}},
        "body": "Instructions.",
        "resources": [
            {"kind": "scripts", "rel": "scripts/x.sh", "path": str(d / "scripts/x.sh"), "size": 2}
        ],
        "resources_truncated": False,
    }
    full["metadata"]["metadata"]["k"].append("w")
    again = skills.load_skill("a")
    assert again is not None and again.to_dict()["metadata"]["metadata"] == {"k": ["v"]}


def test_root_with_dotdot_after_a_symlink_serves_its_own_files(tmp_path: Path) -> None:
    (tmp_path / "real" / "deep").mkdir(parents=True)
    symlink(tmp_path / "link", "real/deep")
    make_skill(tmp_path / "real" / "skills", "s", files={"a.md": "REAL"})
    make_skill(tmp_path / "skills", "s", files={"a.md": "DECOY"})
    root = Path(f"{tmp_path}/link/../skills")
    skills = build(root)
    content = skills.load_skill("s")
    assert content is not None
    assert content.resources[0].path.read_bytes() == b"REAL"
    assert skills.read_resource("s", "a.md") == b"REAL"
    assert skills.resource_path("s", "a.md") == content.resources[0].path


# -- the skill as served now: one snapshot per answer ---------------------------------------------


@pytest.mark.parametrize("step", ["verify_dir", "body_now", "content"])
def test_a_refresh_during_an_activation_cannot_mix_two_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    # A refresh between the steps of an activation moves the name to a higher root: every part
    # of the activation still comes from the one snapshot it began with (the low directory).
    from agent_skills._core import ServedSkill
    from agent_skills.agent import SkillSession

    low, high = tmp_path / "low", tmp_path / "high"
    make_skill(low, "a", body="LOW body\n", files={"low.md": "x"})
    high.mkdir()
    skills = create_agent_skills([low, high])
    real = getattr(ServedSkill, step)
    moved: list[bool] = []

    def step_then_refresh(self: ServedSkill) -> object:
        answer = real(self)
        if not moved:
            make_skill(high, "a", body="HIGH body\n", files={"high.md": "y"})
            skills.refresh()
            moved.append(True)
        return answer

    monkeypatch.setattr(ServedSkill, step, step_then_refresh)
    view = skills.activation("a")
    assert moved == [True]
    assert (view.body, view.resources) == ("LOW body", ("low.md",))
    assert view.pin.real_dir == str((low / "a").resolve())
    assert view.skill_dir == low / "a"
    assert skills.load_skill("a").resources[0].rel == "high.md"  # the refresh did happen

    # The same through a session: the content names the low directory and its files only.
    shutil.rmtree(high / "a")
    skills.refresh()
    moved.clear()
    session = SkillSession(skills)
    text = session.activate("a").content
    assert moved == [True]
    assert "LOW body" in text and "<file>low.md</file>" in text
    assert "HIGH" not in text and "high.md" not in text
    assert f"Skill directory: {low / 'a'}" in text
    # The name now leads to another directory: the low one's files are no longer the session's.
    with pytest.raises(SkillError) as denied:
        session.read_resource("a", "low.md")
    assert (denied.value.code, denied.value.fields["name"]) == ("access_denied", "a")


def test_a_served_skill_answers_from_its_snapshot(tmp_path: Path) -> None:
    # What served() hands out keeps answering from the snapshot it was taken from.
    root = tmp_path / "skills"
    make_skill(root, "alpha", body="one\n", files={"r.md": "r1"})
    skills = create_agent_skills([root])
    served = skills.served("alpha")
    assert served is not None and not served.withheld and not served.gated
    assert not served.archived and served.manifest_outside is None
    assert served.read_listed("r.md") == ("r.md", b"r1")
    assert served.read_listed("./r.md") == ("r.md", b"r1")
    (root / "alpha" / ".hidden").write_text("h")
    with pytest.raises(SkillError) as info:
        served.read_listed(".hidden")  # not one of the listed files
    assert (info.value.code, dict(info.value.fields)) == (
        "not_found",
        {"name": "alpha", "rel": ".hidden"},
    )
    assert served.read(".hidden") == b"h"  # a hidden file is still served by name (SPEC §10)
    shutil.rmtree(root / "alpha")
    make_skill(root, "alpha2")
    skills.refresh()
    assert skills.served("alpha") is None and skills.served("alpha2") is not None
    with pytest.raises(SkillError) as stale:
        served.body_now()
    assert stale.value.code == "stale_skill"
    with pytest.raises(SkillError) as unknown:
        skills.activation("alpha")
    assert (unknown.value.code, unknown.value.fields["suggestions"]) == ("not_found", ["alpha2"])
