"""Shared cases C21-C23 (``../shared/cases/CASES.md``): sibling prefixes, Windows-style input, and
check-then-swap, through ``resource_path``, ``open_resource`` and ``read_resource`` (SPEC §10)."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_skills import AgentSkills, SkillError, _confine, _fs, create_agent_skills
from conftest import code_and_fields as _err
from conftest import make_skill, symlink

SECRET = b"the outside secret"


def _opened(skills: AgentSkills, name: str, rel: str) -> bytes:
    with skills.open_resource(name, rel) as fh:
        return fh.read()


CALLS: dict[str, Callable[[AgentSkills, str, str], object]] = {
    "resource_path": lambda s, n, r: s.resource_path(n, r),
    "open_resource": _opened,
    "read_resource": lambda s, n, r: s.read_resource(n, r),
}


# C21. Sibling prefix.


@pytest.fixture
def c21(tmp_path: Path) -> AgentSkills:
    make_skill(tmp_path / "skills", "foo", files={"references/guide.md": "guide"})
    make_skill(tmp_path / "skills", "foo-evil", files={"secret.md": "evil secret"})
    return create_agent_skills([tmp_path / "skills"])


@pytest.mark.parametrize("call", CALLS, ids=list(CALLS))
@pytest.mark.parametrize(
    ("rel", "code", "fields"),
    [
        ("../foo-evil/secret.md", "path_escape", {"name": "foo", "rel": "../foo-evil/secret.md"}),
        (
            "..\\foo-evil\\secret.md",
            "path_escape",
            {"name": "foo", "rel": "..\\foo-evil\\secret.md"},
        ),
        ("../foo-evil", "path_escape", {"name": "foo", "rel": "../foo-evil"}),
        (
            "./../foo-evil/secret.md",
            "path_escape",
            {"name": "foo", "rel": "./../foo-evil/secret.md"},
        ),
        ("", "invalid_input", {"rel": ""}),
        (".", "not_a_file", {"name": "foo", "rel": "."}),
        ("./", "not_a_file", {"name": "foo", "rel": "./"}),
        (".//.", "not_a_file", {"name": "foo", "rel": ".//."}),
        ("references/..", "not_a_file", {"name": "foo", "rel": "references/.."}),
    ],
)
def test_c21_sibling_prefix(
    c21: AgentSkills, call: str, rel: str, code: str, fields: dict[str, Any]
) -> None:
    assert _err(lambda: CALLS[call](c21, "foo", rel)) == (code, fields)


def test_c21_sibling_prefix_through_a_symlink(tmp_path: Path) -> None:
    foo = make_skill(tmp_path / "skills", "foo")
    make_skill(tmp_path / "skills", "foo-evil", files={"secret.md": "evil secret"})
    symlink(foo / "notes.md", "../foo-evil/secret.md")
    symlink(foo / "abs.md", tmp_path / "skills" / "foo-evil" / "secret.md")
    skills = create_agent_skills([tmp_path / "skills"])
    for call in CALLS:
        for rel in ("notes.md", "abs.md"):
            assert _err(lambda: CALLS[call](skills, "foo", rel)) == (  # noqa: B023
                "path_escape",
                {"name": "foo", "rel": rel},
            )


# C22. Windows-style input.


@pytest.fixture
def c22(tmp_path: Path) -> AgentSkills:
    make_skill(tmp_path / "skills", "w", files={"references/guide.md": "guide"})
    (tmp_path / "secret").write_bytes(SECRET)
    return create_agent_skills([tmp_path / "skills"])


@pytest.mark.parametrize("call", CALLS, ids=list(CALLS))
@pytest.mark.parametrize(
    "rel", ["references\\guide.md", "references/guide.md", ".\\references\\.\\guide.md"]
)
def test_c22_backslashes_resolve_like_slashes(
    tmp_path: Path, c22: AgentSkills, call: str, rel: str
) -> None:
    result = CALLS[call](c22, "w", rel)
    guide = tmp_path / "skills" / "w" / "references" / "guide.md"
    assert result == (guide if call == "resource_path" else b"guide")


@pytest.mark.parametrize("call", CALLS, ids=list(CALLS))
@pytest.mark.parametrize(
    ("rel", "code", "fields"),
    [
        ("C:references/guide.md", "invalid_input", {"rel": "C:references/guide.md"}),
        ("C:\\x", "invalid_input", {"rel": "C:\\x"}),
        ("c:/x", "invalid_input", {"rel": "c:/x"}),
        ("\\\\server\\share\\x", "invalid_input", {"rel": "\\\\server\\share\\x"}),
        ("//server/share/x", "invalid_input", {"rel": "//server/share/x"}),
        ("\\x", "invalid_input", {"rel": "\\x"}),
        ("..\\..\\secret", "path_escape", {"name": "w", "rel": "..\\..\\secret"}),
        (
            "references\\..\\..\\..\\secret",
            "path_escape",
            {"name": "w", "rel": "references\\..\\..\\..\\secret"},
        ),
        ("references/guide.md\x00", "invalid_input", {"rel": "references/guide.md\x00"}),
        ("\x00", "invalid_input", {"rel": "\x00"}),
    ],
)
def test_c22_windows_forms(
    c22: AgentSkills, call: str, rel: str, code: str, fields: dict[str, Any]
) -> None:
    assert _err(lambda: CALLS[call](c22, "w", rel)) == (code, fields)


# C23. Check, then swap.


@pytest.fixture
def c23(tmp_path: Path) -> tuple[AgentSkills, Path, Path]:
    skill = make_skill(
        tmp_path / "skills", "t", files={"references/a.md": "A", "references/deep/b.md": "B"}
    )
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "secret.txt").write_bytes(SECRET)
    (tmp_path / "out" / "a.md").write_bytes(SECRET)
    (tmp_path / "out" / "deep").mkdir()
    (tmp_path / "out" / "deep" / "b.md").write_bytes(SECRET)
    return create_agent_skills([tmp_path / "skills"]), skill, tmp_path / "out"


def _assert_refused(skills: AgentSkills, rel: str) -> None:
    """open_resource and read_resource raise path_escape and never hand out the secret."""
    for call in ("open_resource", "read_resource"):
        try:
            result = CALLS[call](skills, "t", rel)
        except SkillError as err:
            assert (err.code.value, err.fields) == ("path_escape", {"name": "t", "rel": rel})
            assert SECRET.decode() not in str(err)
        else:  # pragma: no cover - the failure being guarded against
            pytest.fail(f"{call} returned {result!r}")


def test_c23_file_swapped_for_a_symlink_after_check(
    c23: tuple[AgentSkills, Path, Path],
) -> None:
    skills, skill, out = c23
    a = skill / "references" / "a.md"
    assert skills.resource_path("t", "references/a.md") == a
    a.unlink()
    a.symlink_to(out / "secret.txt")
    _assert_refused(skills, "references/a.md")


def test_c23_intermediate_directory_swapped_for_a_symlink(
    c23: tuple[AgentSkills, Path, Path],
) -> None:
    skills, skill, out = c23
    assert skills.resource_path("t", "references/deep/b.md") == skill / "references/deep/b.md"
    shutil.rmtree(skill / "references")
    (skill / "references").symlink_to(out)
    _assert_refused(skills, "references/deep/b.md")
    _assert_refused(skills, "references/a.md")


def test_c23_relative_symlink_swapped_in(c23: tuple[AgentSkills, Path, Path]) -> None:
    skills, skill, _ = c23
    a = skill / "references" / "a.md"
    assert skills.read_resource("t", "references/a.md") == b"A"
    a.unlink()
    a.symlink_to("../../../out/secret.txt")
    _assert_refused(skills, "references/a.md")


@pytest.mark.parametrize("safe_open", [True, False], ids=["descriptor-walk", "identity-fallback"])
@pytest.mark.parametrize("swap", ["file", "directory"])
def test_c23_swap_between_the_check_and_the_open(
    c23: tuple[AgentSkills, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    safe_open: bool,
    swap: str,
) -> None:
    """The swap lands after the resolver accepted the path and before the file is opened: the
    exact race of SPEC §10. Neither the descriptor walk nor the fallback hands out the secret."""
    skills, skill, out = c23
    monkeypatch.setattr(_fs, "HAS_SAFE_OPEN", safe_open)
    real_check = _confine._check_inside

    def check_then_swap(skill_dir: str, rel: object) -> tuple[str, str]:
        checked = real_check(skill_dir, rel)
        if swap == "file":
            (skill / "references" / "a.md").unlink()
            (skill / "references" / "a.md").symlink_to(out / "secret.txt")
        else:
            shutil.rmtree(skill / "references")
            (skill / "references").symlink_to(out)
        return checked

    for call in ("open_resource", "read_resource"):
        monkeypatch.setattr(_confine, "_check_inside", check_then_swap)
        with pytest.raises(SkillError) as info:
            CALLS[call](skills, "t", "references/a.md")
        assert (info.value.code.value, info.value.fields) == (
            "path_escape",
            {"name": "t", "rel": "references/a.md"},
        )
        # restore the tree for the next call
        monkeypatch.setattr(_confine, "_check_inside", real_check)
        target = skill / "references"
        if swap == "file":
            (target / "a.md").unlink()
            (target / "a.md").write_text("A")
        else:
            target.unlink()
            (target / "deep").mkdir(parents=True)
            (target / "a.md").write_text("A")
        assert skills.read_resource("t", "references/a.md") == b"A"


def test_c23_swap_inside_the_skill_is_followed(c23: tuple[AgentSkills, Path, Path]) -> None:
    """A swap whose new link stays inside the skill is not an escape: it reads the new target."""
    skills, skill, _ = c23
    a = skill / "references" / "a.md"
    a.unlink()
    a.symlink_to("deep/b.md")
    assert skills.read_resource("t", "references/a.md") == b"B"
    assert os.path.realpath(skills.resource_path("t", "references/a.md")) == str(
        skill / "references" / "deep" / "b.md"
    )


# C23, the same kind of fault one level down: a link that changes *while* it is being resolved.
# A link that vanishes between its lstat and its readlink makes readlink fail.


def _flaky_readlink(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[int]:
    real = os.readlink
    calls = [0]

    def flaky(path: Any, *args: Any, **kwargs: Any) -> str:
        calls[0] += 1
        if calls[0] <= failures:
            raise FileNotFoundError(2, "No such file or directory", os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "readlink", flaky)
    return calls


def _alias(skill: Path) -> str:
    (skill / "references" / "alias.md").symlink_to("a.md")
    return "references/alias.md"


@pytest.mark.parametrize("call", sorted(CALLS))
def test_c23_link_changing_during_resolution_is_not_found(
    c23: tuple[AgentSkills, Path, Path], monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    skills, skill, _ = c23
    rel = _alias(skill)
    _flaky_readlink(monkeypatch, failures=10**9)
    assert _err(lambda: CALLS[call](skills, "t", rel)) == ("not_found", {"name": "t", "rel": rel})


@pytest.mark.parametrize("call", sorted(CALLS))
def test_c23_link_that_settles_is_retried(
    c23: tuple[AgentSkills, Path, Path], monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    skills, skill, _ = c23
    rel = _alias(skill)
    _flaky_readlink(monkeypatch, failures=2)
    result = CALLS[call](skills, "t", rel)
    expected = skill / "references" / "alias.md" if call == "resource_path" else b"A"
    assert result == expected


def test_c23_listing_and_allowlist_survive_a_changing_link(
    c23: tuple[AgentSkills, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link that cannot be read is left out of the listing; the rest is listed and the pinned
    directory stays approved (its check reads no link)."""
    skills, skill, _ = c23
    _alias(skill)
    _flaky_readlink(monkeypatch, failures=10**9)
    content = skills.load_skill("t")
    assert content is not None
    assert [r.rel for r in content.resources] == ["references/a.md", "references/deep/b.md"]
    assert [(d.kind, d.path) for d in content.diagnostics] == [
        ("dangling_symlink", skill / "references" / "alias.md")
    ]
    assert skills.allowed_read_roots() == [skill]


def test_c23_racing_swaps_raise_only_skill_errors_and_never_leak(
    c23: tuple[AgentSkills, Path, Path],
) -> None:
    """A thread flips a file between a regular file and a link out; readers see only the file's
    bytes or a SkillError (bounded iterations, no timing)."""
    skills, skill, out = c23
    a = skill / "references" / "a.md"
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            for step in ("link", "file"):
                a.unlink(missing_ok=True)
                if step == "link":
                    a.symlink_to(out / "secret.txt")
                else:
                    a.write_bytes(b"A")

    flipper = threading.Thread(target=flip)
    flipper.start()
    seen: set[str] = set()
    try:
        for _ in range(1500):
            for call in sorted(CALLS):
                try:
                    result = CALLS[call](skills, "t", "references/a.md")
                except SkillError as err:
                    assert SECRET.decode() not in str(err)
                    seen.add(err.code.value)
                else:
                    if call != "resource_path":
                        assert result in (b"A", b"")  # b"": caught between create and write
    finally:
        stop.set()
        flipper.join()
    assert seen <= {"not_found", "path_escape"}
