"""SPEC §21.8 (shadowing severity), §21.9 (disabled=), §21.10 (suggestions)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_skills import (
    ErrorCode,
    SkillError,
    StartupError,
    create_agent_skills,
    resolve_config,
)
from agent_skills._registry import suggest_names, unknown_skill
from conftest import make_skill

# --- §21.9 disabled ------------------------------------------------------------------------------


@pytest.fixture
def two_roots(tmp_path: Path) -> tuple[Path, Path]:
    low, high = tmp_path / "low", tmp_path / "high"
    make_skill(low, "deploy", frontmatter={"name": "deploy", "description": "Low copy."})
    make_skill(high, "deploy", frontmatter={"name": "deploy", "description": "High copy."})
    make_skill(high, "lint")
    return low, high


def test_disabled_by_name_hides_every_copy(two_roots: tuple[Path, Path]) -> None:
    low, high = two_roots
    skills = create_agent_skills([low, high], disabled=["deploy"])
    assert [s.name for s in skills.list_skills()] == ["lint"]
    assert "deploy" not in skills
    assert skills.load_skill("deploy") is None
    with pytest.raises(SkillError) as info:
        skills.resource_path("deploy", "SKILL.md")
    assert info.value.code == ErrorCode.NOT_FOUND
    entries = [(e.path, e.status.value, e.name, e.reason) for e in skills.report().entries]
    assert entries == [
        (low / "deploy", "disabled", "deploy", "disabled by name 'deploy'"),
        (high / "deploy", "disabled", "deploy", "disabled by name 'deploy'"),
        (high / "lint", "loaded", "lint", ""),
    ]
    assert skills.config.disabled == ("deploy",)
    assert skills.diagnostics == ()


def test_disabled_by_path_lets_a_lower_copy_win(two_roots: tuple[Path, Path]) -> None:
    low, high = two_roots
    skills = create_agent_skills([low, high], disabled=[high / "deploy"])
    [deploy, lint] = skills.list_skills()
    assert (deploy.name, deploy.description, deploy.dir, deploy.shadowed) == (
        "deploy",
        "Low copy.",
        low / "deploy",
        (),
    )
    assert lint.name == "lint"
    entries = [(e.path, e.status.value, e.reason) for e in skills.report().entries]
    assert entries == [
        (low / "deploy", "loaded", ""),
        (high / "deploy", "disabled", f"disabled by path {high / 'deploy'}"),
        (high / "lint", "loaded", ""),
    ]
    # No shadowing happened: the disabled copy takes no part in precedence.
    assert [d.kind.value for d in skills.diagnostics] == []


def test_disabled_path_forms(tmp_path: Path) -> None:
    root = tmp_path / "ws" / "skills"
    real = make_skill(tmp_path / "store", "tool")
    root.mkdir(parents=True)
    os.symlink(real, root / "tool")
    make_skill(root, "other")
    home = tmp_path / "home"
    # Relative to the workspace, the link's target, and with ~.
    for entry in ("skills/tool", str(real), "~/../ws/skills/tool"):
        skills = create_agent_skills([root], workspace=tmp_path / "ws", home=home, disabled=[entry])
        assert [s.name for s in skills.list_skills()] == ["other"], entry
    skills = create_agent_skills([root], disabled=[Path("nowhere/tool")], cwd=tmp_path)
    assert [s.name for s in skills.list_skills()] == ["other", "tool"]


def test_disabled_config_is_normalised(tmp_path: Path) -> None:
    config = resolve_config(
        [tmp_path], cwd=tmp_path, home="/h", disabled=[" a ", "a", "x/../y", Path("p"), "~/s"]
    )
    assert config.disabled == ("a", f"{tmp_path}/y", f"{tmp_path}/p", "/h/s")


@pytest.mark.parametrize("bad", ["deploy", b"x", 3, [""], ["  "], [None], [3]])
def test_disabled_must_be_a_sequence_of_names_or_paths(tmp_path: Path, bad: object) -> None:
    with pytest.raises(StartupError):
        resolve_config([tmp_path], disabled=bad)  # type: ignore[arg-type]


def test_disabled_duplicate_in_one_root_lets_the_other_copy_load(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root, "a", frontmatter={"name": "same", "description": "first"})
    make_skill(root, "b", frontmatter={"name": "same", "description": "second"})
    skills = create_agent_skills([root], disabled=[root / "a"])
    [info] = skills.list_skills()
    assert info.description == "second"
    assert [e.status.value for e in skills.report().entries] == ["disabled", "loaded"]


# --- §21.8 shadowing severity --------------------------------------------------------------------


def test_shadowed_copy_is_a_warning(two_roots: tuple[Path, Path], warn_messages: list[str]) -> None:
    low, high = two_roots
    skills = create_agent_skills([low, high])
    [diag] = skills.diagnostics
    assert (diag.kind.value, diag.severity, diag.path) == ("shadowed", "warning", low / "deploy")
    assert diag.message == (
        f"skill 'deploy' in {low / 'deploy'} is overridden by {high / 'deploy'} (workspace, -)"
    )
    assert warn_messages == [diag.message]
    [entry] = skills.report().by_status("shadowed")
    assert entry.reason == f"overridden by {high / 'deploy'} (workspace, -)"


def test_an_alias_of_the_winner_stays_info(tmp_path: Path, warn_messages: list[str]) -> None:
    store = make_skill(tmp_path / "store", "shared")
    claude, agents = tmp_path / "claude", tmp_path / "agents"
    claude.mkdir()
    agents.mkdir()
    os.symlink(store, claude / "shared")
    os.symlink(store, agents / "shared")
    skills = create_agent_skills([claude, agents])
    [info] = skills.list_skills()
    assert info.dir == agents / "shared"
    [diag] = skills.diagnostics
    assert (diag.kind.value, diag.severity) == ("shadowed", "info")
    assert diag.message == (
        f"skill 'shared' in {claude / 'shared'} is the same skill as {agents / 'shared'} (alias)"
    )
    assert warn_messages == []
    [entry] = skills.report().by_status("shadowed")
    assert (entry.path, entry.reason, entry.shadowed_by) == (
        claude / "shared",
        "same skill (alias)",
        agents / "shared",
    )


def test_the_same_root_listed_twice_is_not_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "r"
    make_skill(root, "x")
    skills = create_agent_skills([root, root])
    assert skills.diagnostics == ()
    assert [e.status.value for e in skills.report().entries] == ["shadowed", "loaded"]


# --- §21.10 suggestions --------------------------------------------------------------------------

KNOWN = ["pdf-tools", "PDF-Tools", "pdf-tool", "csv-profiler", "deploy", "deploy-prod", "Lint"]


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        ("pdf-tools", ["PDF-Tools", "pdf-tool"]),  # case-insensitive first, never itself
        ("Pdf-Tools", ["PDF-Tools", "pdf-tools", "pdf-tool"]),
        ("pdftools", ["PDF-Tools", "pdf-tools", "pdf-tool"]),
        ("lint", ["Lint"]),
        ("deplo", ["deploy", "deploy-prod"]),
        ("csv", []),  # ratio 0.46
        ("zzz", []),
        ("", []),
    ],
)
def test_suggest_names(asked: str, expected: list[str]) -> None:
    assert suggest_names(asked, KNOWN) == expected


def test_at_most_three() -> None:
    assert suggest_names("ab", ["abc", "abd", "abe", "abf"]) == ["abc", "abd", "abe"]


def test_unknown_skill_error_shape() -> None:
    err = unknown_skill("deplo", KNOWN)
    assert (err.code, err.message, dict(err.fields)) == (
        ErrorCode.NOT_FOUND,
        "No such skill: deplo (did you mean deploy, deploy-prod?)",
        {"name": "deplo", "suggestions": ["deploy", "deploy-prod"]},
    )
    err = unknown_skill("zzz", KNOWN)
    assert (err.message, dict(err.fields)) == (
        "No such skill: zzz",
        {"name": "zzz", "suggestions": []},
    )


def test_registry_errors_carry_suggestions(two_roots: tuple[Path, Path]) -> None:
    skills = create_agent_skills(list(two_roots))
    for call in (skills.resource_path, skills.open_resource, skills.read_resource):
        with pytest.raises(SkillError) as info:
            call("deplyo", "SKILL.md")
        assert dict(info.value.fields) == {"name": "deplyo", "suggestions": ["deploy"]}


def test_disabled_names_are_never_suggested(two_roots: tuple[Path, Path]) -> None:
    skills = create_agent_skills(list(two_roots), disabled=["deploy"])
    with pytest.raises(SkillError) as info:
        skills.resource_path("deplyo", "SKILL.md")
    assert info.value.fields["suggestions"] == []


# --- §29.6 only= and unknown_name ----------------------------------------------------------------


def _report(skills: object) -> list[tuple[str, str | None, str]]:
    return [(e.status.value, e.name, e.reason) for e in skills.report().entries]  # type: ignore[attr-defined]


def test_only_serves_the_named_skills_and_disables_the_others(
    two_roots: tuple[Path, Path],
) -> None:
    low, high = two_roots
    skills = create_agent_skills([low, high], only=["lint"])
    assert [s.name for s in skills.list_skills()] == ["lint"]
    assert skills.load_skill("deploy") is None
    assert _report(skills) == [
        ("disabled", "deploy", "not named in only"),
        ("disabled", "deploy", "not named in only"),
        ("loaded", "lint", ""),
    ]
    assert not [d for d in skills.diagnostics if d.kind == "unknown_name"]
    # only and disabled together: disabled wins for a name in both.
    both = create_agent_skills([low, high], only=["lint", "deploy"], disabled=["deploy"])
    assert [s.name for s in both.list_skills()] == ["lint"]
    assert _report(both)[0] == ("disabled", "deploy", "disabled by name 'deploy'")
    # An empty only serves nothing; None (the default) serves everything.
    assert create_agent_skills([low, high], only=[]).list_skills() == []
    assert len(create_agent_skills([low, high], only=None)) == 2
    assert resolve_config([low], only=[" lint ", "lint"]).only == ("lint",)


def test_a_name_that_matches_no_skill_is_an_unknown_name_warning(
    two_roots: tuple[Path, Path], warn_messages: list[str]
) -> None:
    low, high = two_roots
    skills = create_agent_skills([low, high], only=["lint", "deplyo"], disabled=["nope", "/x/y"])
    unknown = [(d.kind, d.message, d.path) for d in skills.diagnostics if d.kind == "unknown_name"]
    assert unknown == [
        ("unknown_name", "'nope' in disabled matches no skill found", None),
        ("unknown_name", "'deplyo' in only matches no skill found (did you mean deploy?)", None),
    ]
    assert [m for m in warn_messages if "matches no skill" in m] == [u[1] for u in unknown]
    # A disabled skill is still a skill found: its name is not unknown.
    quiet = create_agent_skills([low, high], disabled=["deploy"])
    assert not [d for d in quiet.diagnostics if d.kind == "unknown_name"]


@pytest.mark.parametrize("bad", ["lint", b"lint", 3, [""], [None]])
def test_only_must_be_a_sequence_of_names(tmp_path: Path, bad: object) -> None:
    with pytest.raises(StartupError):
        create_agent_skills([tmp_path], only=bad)  # type: ignore[arg-type]
