"""Identity, precedence, duplicates, merge and the discovery report (SPEC §7)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import agent_skills
from agent_skills import (
    AgentSkills,
    DiagnosticKind,
    EntryStatus,
    ReportEntry,
    ResolvedSkill,
    ShadowedSkill,
    SkillError,
    SkillInfo,
    SkillRoot,
    create_agent_skills,
    discover_skills,
    merge_skills,
    resolve_config,
)
from conftest import make_skill, symlink

UNTERMINATED = "unterminated frontmatter: no closing '---' line"
UNTERMINATED_REASON = UNTERMINATED + " (line 1)"


def build(*roots: Any, **kw: Any) -> AgentSkills:
    return create_agent_skills(list(roots), **kw)


def fm(name: str, description: str = "D.") -> dict[str, str]:
    return {"name": name, "description": description}


# -- identity ------------------------------------------------------------------------------


def test_identity_is_the_case_sensitive_frontmatter_name(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "deploy", frontmatter=fm("deploy", "lower"))
    make_skill(root, "Deploy2", frontmatter=fm("Deploy", "upper"))
    skills = build(root)
    assert [(s.name, s.description) for s in skills.list_skills()] == [
        ("Deploy", "upper"),
        ("deploy", "lower"),
    ]
    assert "deploy" in skills and "Deploy" in skills and "DEPLOY" not in skills


def test_name_mismatch_loads_under_frontmatter_name(
    tmp_path: Path, warn_messages: list[str]
) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "react-best-practices", frontmatter=fm("vendor-react"))
    skills = build(root)
    assert [s.name for s in skills.list_skills()] == ["vendor-react"]
    assert skills.load_skill("react-best-practices") is None
    [diag] = skills.diagnostics
    assert (diag.kind, diag.path, diag.severity) == (
        DiagnosticKind.NAME_MISMATCH,
        d / "SKILL.md",
        "warning",
    )
    assert diag.message == (
        f"skill name 'vendor-react' does not match directory 'react-best-practices' "
        f"({d / 'SKILL.md'})"
    )
    assert warn_messages == [diag.message]
    assert skills.report().entries == (
        ReportEntry(root, d, EntryStatus.LOADED, "vendor-react", "", None),
    )


# -- duplicates within a root --------------------------------------------------------------


def test_duplicate_within_root_keeps_first_in_scan_order(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    x2 = make_skill(root, "x2", frontmatter=fm("dup", "second"))
    x1 = make_skill(root, "X1", frontmatter=fm("dup", "first"))
    x3 = make_skill(root, "x3", frontmatter=fm("dup", "third"))
    skills = build(root)
    [info] = skills.list_skills()
    assert (info.dir, info.description, info.shadowed) == (x1, "first", ())
    assert skills.report().entries == (
        ReportEntry(root, x1, EntryStatus.LOADED, "dup", "", None),
        ReportEntry(root, x2, EntryStatus.DUPLICATE, "dup", f"duplicate of {x1} in the same root"),
        ReportEntry(root, x3, EntryStatus.DUPLICATE, "dup", f"duplicate of {x1} in the same root"),
    )
    assert [(d.kind, d.path) for d in skills.diagnostics] == [
        (DiagnosticKind.NAME_MISMATCH, x1 / "SKILL.md"),
        (DiagnosticKind.NAME_MISMATCH, x2 / "SKILL.md"),
        (DiagnosticKind.DUPLICATE_SKILL, x2),
        (DiagnosticKind.NAME_MISMATCH, x3 / "SKILL.md"),
        (DiagnosticKind.DUPLICATE_SKILL, x3),
    ]
    dup = next(d for d in skills.diagnostics if d.kind == "duplicate_skill")
    assert str(x1) in dup.message and str(x2) in dup.message


def test_duplicate_within_root_strict_raises(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    x1 = make_skill(root, "x1", frontmatter=fm("dup"))
    x2 = make_skill(root, "x2", frontmatter=fm("dup"))
    with pytest.raises(SkillError) as info:
        build(root, strict=True)
    err = info.value
    assert err.code == "duplicate_skill"
    assert err.fields == {"name": "dup", "paths": [str(x1), str(x2)]}
    assert str(x1) in str(err) and str(x2) in str(err)


def test_same_directory_linked_twice_is_a_duplicate(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    real = make_skill(root, "tool")
    symlink(root / "tool-alias", real)
    skills = build(root)
    assert [e.status.value for e in skills.report().entries] == ["loaded", "duplicate"]


# -- precedence across roots ---------------------------------------------------------------


def test_later_root_wins_never_an_error_even_strict(tmp_path: Path) -> None:
    low, high = tmp_path / "low", tmp_path / "high"
    make_skill(low, "deploy", frontmatter=fm("deploy", "low"))
    d_high = make_skill(high, "deploy", frontmatter=fm("deploy", "high"))
    for strict in (False, True):
        skills = build(low, high, strict=strict)
        [info] = skills.list_skills()
        assert (info.description, info.dir) == ("high", d_high)


def test_shadowed_nearest_first_for_three_roots(tmp_path: Path) -> None:
    r1, r2, r3 = tmp_path / "r1", tmp_path / "r2", tmp_path / "r3"
    d1 = make_skill(r1, "deploy")
    d2 = make_skill(r2, "deploy")
    d3 = make_skill(r3, "deploy")
    roots = [
        SkillRoot(r1, "user", "agents"),
        {"path": r2, "scope": "workspace", "source": "agents"},
        SkillRoot(r3, "user", "clarvis"),
    ]
    skills = create_agent_skills(roots)
    [info] = skills.list_skills()
    assert (info.dir, info.scope, info.source, info.root) == (d3, "user", "clarvis", r3)
    assert info.shadowed == (
        ShadowedSkill("workspace", "agents", r2, d2),
        ShadowedSkill("user", "agents", r1, d1),
    )
    assert skills.report().entries == (
        ReportEntry(
            r1, d1, EntryStatus.SHADOWED, "deploy", f"overridden by {d3} (user, clarvis)", d3
        ),
        ReportEntry(
            r2, d2, EntryStatus.SHADOWED, "deploy", f"overridden by {d3} (user, clarvis)", d3
        ),
        ReportEntry(r3, d3, EntryStatus.LOADED, "deploy", "", None),
    )
    assert [(d.kind, d.path, d.severity) for d in skills.diagnostics] == [
        (DiagnosticKind.SHADOWED, d1, "warning"),
        (DiagnosticKind.SHADOWED, d2, "warning"),
    ]
    assert skills.diagnostics[0].message == (
        f"skill 'deploy' in {d1} is overridden by {d3} (user, clarvis)"
    )


def test_shadowed_is_a_warning_logged_and_sent_to_the_sink(
    tmp_path: Path, warn_messages: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    """SPEC §21.8 (amends §7.3): the Agent Skills client guide asks for a warning."""
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    d1 = make_skill(r1, "deploy")
    d2 = make_skill(r2, "deploy")
    with caplog.at_level(logging.INFO, logger="agent_skills"):
        build(r1, r2)
    message = f"skill 'deploy' in {d1} is overridden by {d2} (workspace, -)"
    assert warn_messages == [message]
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("agent_skills", logging.WARNING, message)
    ]


def test_a_shadowed_name_in_one_root_does_not_hide_others(tmp_path: Path) -> None:
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    make_skill(r1, "a")
    make_skill(r1, "b")
    make_skill(r2, "b")
    make_skill(r2, "c")
    skills = build(r1, r2)
    assert [(s.name, s.root) for s in skills.list_skills()] == [("a", r1), ("b", r2), ("c", r2)]


# -- report statuses -------------------------------------------------------------------------


def test_report_every_status(tmp_path: Path) -> None:
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    shadowed = make_skill(r1, "deploy")
    winner = make_skill(r2, "deploy")
    loaded = make_skill(r2, "alpha")
    dup = make_skill(r2, "beta", frontmatter=fm("alpha"))
    bad = make_skill(r2, "broken", raw="---\nname: broken\n")
    nomanifest = r2 / "empty"
    nomanifest.mkdir()
    skills = build(r1, r2)
    assert skills.report().entries == (
        ReportEntry(
            r1,
            shadowed,
            EntryStatus.SHADOWED,
            "deploy",
            f"overridden by {winner} (workspace, -)",
            winner,
        ),
        ReportEntry(r2, loaded, EntryStatus.LOADED, "alpha", "", None),
        ReportEntry(
            r2, dup, EntryStatus.DUPLICATE, "alpha", f"duplicate of {loaded} in the same root"
        ),
        ReportEntry(r2, bad, EntryStatus.INVALID, None, UNTERMINATED_REASON, None),
        ReportEntry(r2, winner, EntryStatus.LOADED, "deploy", "", None),
        ReportEntry(r2, nomanifest, EntryStatus.SKIPPED, None, "no SKILL.md in directory", None),
    )
    report = skills.report()
    assert [e.path for e in report.by_status("loaded")] == [loaded, winner]
    assert report.entries[0].to_dict() == {
        "root": str(r1),
        "path": str(shadowed),
        "status": "shadowed",
        "name": "deploy",
        "reason": f"overridden by {winner} (workspace, -)",
        "shadowed_by": str(winner),
    }
    assert [n.root for n in report.roots] == [r1, r2]
    assert report.diagnostics == skills.diagnostics


# -- strict mode ------------------------------------------------------------------------------


def test_strict_does_not_raise_for_other_kinds(tmp_path: Path) -> None:
    root, later = tmp_path / "skills", tmp_path / "later"
    make_skill(root, "dir-name", frontmatter=fm("other-name"))  # name_mismatch
    make_skill(root, "fmt", manifest="skill.md")  # manifest_case
    symlink(root / "gone", tmp_path / "nowhere")  # dangling_symlink
    (root / "empty").mkdir()  # skipped
    make_skill(root, "bin", raw=b"---\nname: bin\ndescription: caf\xe9\n---\n")  # invalid_utf8
    make_skill(root, "res", files={"x": "x"})
    symlink(root / "res" / "out", tmp_path)  # escaping_symlink (on load)
    make_skill(later, "fmt")  # shadowed
    skills = build(root, later, strict=True)
    assert [s.name for s in skills.list_skills()] == ["bin", "fmt", "other-name", "res"]
    assert [d.kind.value for d in skills.diagnostics] == [
        "invalid_utf8",
        "name_mismatch",
        "manifest_case",
        "dangling_symlink",
        "shadowed",
    ]
    content = skills.load_skill("res")
    assert content is not None
    assert [d.kind.value for d in content.diagnostics] == ["escaping_symlink"]


@pytest.mark.parametrize(
    ("raw", "at"),
    [
        ("---\nname: x\n", None),  # fence
        ("---\nname: [x\n---\n", None),  # YAML
        ("---\nname: x\n---\n", "description"),  # schema
        ("---\nname: x\ndescription: d\nlicense: true\n---\n", "license"),  # optional key
        ("---\nname: x\ndescription: a: b\n---\n", None),  # no repair in strict mode
    ],
)
def test_strict_raises_invalid_skill(tmp_path: Path, raw: str, at: str | None) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "x", raw=raw)
    lenient = build(root)
    assert [e.status.value for e in lenient.report().entries] == (
        ["loaded"] if at == "license" or "a: b" in raw else ["invalid"]
    )
    with pytest.raises(SkillError) as info:
        build(root, strict=True)
    assert info.value.code == "invalid_skill"
    assert info.value.fields["path"] == str(d / "SKILL.md")
    if at is not None:
        assert info.value.fields["at"] == at


def test_invalid_skill_lenient_diagnostic(tmp_path: Path, warn_messages: list[str]) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "x", raw="---\nname: x\n")
    make_skill(root, "y")
    skills = build(root)
    assert [s.name for s in skills.list_skills()] == ["y"]
    [diag] = skills.diagnostics
    assert (diag.kind, diag.path) == (DiagnosticKind.INVALID_SKILL, d / "SKILL.md")
    assert diag.message == f"skipping {d / 'SKILL.md'}: {UNTERMINATED_REASON}"
    assert warn_messages == [diag.message]


def test_warnings_are_logged_and_sent_to_sink(
    tmp_path: Path, warn_messages: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "skills"
    make_skill(root, "a", frontmatter=fm("b"))
    symlink(root / "z", tmp_path / "none")
    with caplog.at_level(logging.INFO, logger="agent_skills"):
        skills = build(root)
    messages = [d.message for d in skills.diagnostics]
    assert len(messages) == 2
    assert warn_messages == messages
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, m) for m in messages
    ]


# -- merge_skills -----------------------------------------------------------------------------


def _resolved(name: str, root: Path, entry: str, body: str = "") -> ResolvedSkill:
    info = SkillInfo(
        name=name,
        description="d",
        metadata={},
        allowed_tools=None,
        user_invocable=True,
        model_invocable=True,
        scope="workspace",
        source="",
        root=root,
        dir=root / entry,
        path=root / entry / "SKILL.md",
    )
    return ResolvedSkill(info, body)


def test_merge_skills_last_wins_sorted_and_pure(tmp_path: Path) -> None:
    r1, r2 = tmp_path / "r1", tmp_path / "r2"
    a1 = _resolved("a", r1, "a", "a1")
    b1 = _resolved("B", r1, "b", "b1")
    a1_again = _resolved("a", r1, "a-copy", "a1bis")
    a2 = _resolved("a", r2, "a", "a2")
    c2 = _resolved("c", r2, "c", "c2")
    groups = [[a1, b1, a1_again], [c2, a2]]
    before = [list(g) for g in groups]
    merged = merge_skills(groups)
    assert [(s.name, s.body) for s in merged] == [("a", "a2"), ("B", "b1"), ("c", "c2")]
    assert merged[0].info.shadowed == (
        ShadowedSkill("workspace", "", r1, r1 / "a-copy"),
        ShadowedSkill("workspace", "", r1, r1 / "a"),
    )
    # inputs untouched, and merging again gives equal results
    assert groups == before
    assert a2.info.shadowed == () and a1_again.info.shadowed == ()
    assert merge_skills(groups) == merged
    assert merge_skills([]) == []
    assert merge_skills([[a1], []]) == [a1]


def test_discover_skills_registry(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    d = make_skill(root, "one", files={"a.md": "A"})
    registry = discover_skills(resolve_config([root]))
    assert len(registry) == 1
    assert [i.name for i in registry.list()] == ["one"]
    content = registry.get("one")
    assert content is not None and [r.rel for r in content.resources] == ["a.md"]
    assert registry.get("two") is None
    assert registry.resource("one", "a.md") == d / "a.md"
    with pytest.raises(SkillError) as info:
        registry.resource("two", "a.md")
    assert (info.value.code, info.value.fields) == (
        "not_found",
        {"name": "two", "suggestions": []},
    )


def test_root_listed_twice_does_not_shadow_itself(tmp_path: Path) -> None:
    """With the workspace equal to home, the preset lists ``~/.agents/skills`` twice."""
    home = tmp_path / "home"
    d = make_skill(home / ".agents" / "skills", "notes")
    skills = create_agent_skills(agent_skills.clarvis_skill_roots(cwd=home, home=home))
    [info] = skills.list_skills()
    assert (info.dir, info.scope, info.shadowed) == (d, "workspace", ())
    root = home / ".agents" / "skills"
    assert skills.report().entries == (
        ReportEntry(
            root,
            d,
            EntryStatus.SHADOWED,
            "notes",
            f"same directory as the winner {d} (its root is listed again)",
            d,
        ),
        ReportEntry(root, d, EntryStatus.LOADED, "notes", "", None),
    )
    assert skills.diagnostics == ()


def test_root_listed_twice_around_another_root(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    da = make_skill(a, "x")
    db = make_skill(b, "x")
    skills = build(a, b, a)
    [info] = skills.list_skills()
    assert info.dir == da
    assert info.shadowed == (ShadowedSkill("workspace", "", b, db),)
    assert [(e.path, e.status.value) for e in skills.report().entries] == [
        (da, "shadowed"),
        (db, "shadowed"),
        (da, "loaded"),
    ]
    assert [(x.kind.value, x.path) for x in skills.diagnostics] == [("shadowed", db)]


def test_invalid_skill_reason_and_diagnostic_give_the_line_of_a_yaml_error(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "bad", raw="---\nname: bad\ndescription: [unclosed\n---\nBody\n")
    make_skill(root, "fence", raw="---\nname: fence\ndescription: d\n")
    make_skill(root, "schema", frontmatter={"name": "schema"})
    skills = build(root)
    reasons = {e.path.name: e.reason for e in skills.report().entries}
    manifest = root / "bad" / "SKILL.md"
    bad = next(d for d in skills.diagnostics if d.path == manifest)
    assert bad.kind == "invalid_skill"
    assert reasons["bad"].startswith("invalid YAML frontmatter: ")
    assert reasons["bad"].endswith("(line 4, column 1)")
    assert bad.message == f"skipping {manifest}: {reasons['bad']}"
    # A fence error has a line only; a schema error has no position at all.
    assert reasons["fence"] == "unterminated frontmatter: no closing '---' line (line 1)"
    assert reasons["schema"] == "invalid frontmatter 'description': required key is missing"


def test_strict_invalid_skill_message_names_the_manifest_and_the_line(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "bad", raw="---\nname: bad\ndescription: [unclosed\n---\nBody\n")
    manifest = root / "bad" / "SKILL.md"
    with pytest.raises(SkillError) as info:
        build(root, strict=True)
    err = info.value
    assert err.code == "invalid_skill"
    assert err.fields == {"path": str(manifest), "line": 4, "column": 1}
    assert str(err).startswith(f"{manifest}: invalid YAML frontmatter: ")
    assert str(err).endswith("(line 4, column 1)")


# -- explicit per-candidate results ------------------------------------------------------------


def test_load_candidate_returns_one_result_per_fate(tmp_path: Path) -> None:
    from agent_skills._config import SkillRoot
    from agent_skills._discover import load_candidate
    from agent_skills._scan import scan_root

    root = tmp_path / "skills"
    make_skill(root, "good", frontmatter={"name": "good", "description": "Fine."})
    make_skill(root, "bad", raw="---\nname: bad\n---\n")
    (root / "empty").mkdir()
    _, cands = scan_root(SkillRoot(root), follow_symlinks=True)
    results = {c.entry_name: load_candidate(c, strict=False, pool={}) for c in cands}
    good, bad, empty = results["good"], results["bad"], results["empty"]
    assert (good.status, good.name, good.reason, good.diagnostics) == ("loaded", "good", "", ())
    assert good.skill is not None and good.skill.info.dir == root / "good"
    assert (bad.status, bad.skill, bad.name) == ("invalid", None, None)
    assert [d.kind for d in bad.diagnostics] == ["invalid_skill"]
    assert (empty.status, empty.skill, empty.reason, empty.diagnostics) == (
        "skipped",
        None,
        "no SKILL.md in directory",
        (),
    )
    # The candidates are values: loading them again gives equal results.
    assert (
        load_candidate(cands[0], strict=False, pool={}).status
        == results[cands[0].entry_name].status
    )
    with pytest.raises(AttributeError):
        cands[0].skip_reason = "x"  # type: ignore[misc]


def test_a_scan_leaves_the_hosts_collector_as_it_is(tmp_path: Path) -> None:
    # The library never switches a host's collector (process-wide state): not during a scan, on
    # any thread, and a collector the host disabled stays disabled.
    import gc
    import threading

    from agent_skills import _discover

    make_skill(tmp_path / "skills", "a")
    seen: list[bool] = []
    real = _discover.load_candidate

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_discover, "load_candidate", spy)
        agent_skills.create_agent_skills([tmp_path / "skills"])
        assert seen == [True]
        barrier = threading.Barrier(4)

        def scan() -> None:
            barrier.wait()
            for _ in range(5):
                agent_skills.create_agent_skills([tmp_path / "skills"])

        threads = [threading.Thread(target=scan) for _ in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=30)
        assert len(seen) == 21 and all(seen)
        assert gc.isenabled()
        gc.disable()
        try:
            seen.clear()
            agent_skills.create_agent_skills([tmp_path / "skills"])
            assert seen == [False] and not gc.isenabled()
        finally:
            gc.enable()


def test_a_scan_moves_nothing_to_the_oldest_generation(tmp_path: Path) -> None:
    # What a scan builds is collected by the host's collector as it runs: nothing is frozen or
    # promoted by the library (that is the command-line program's choice alone).
    import gc

    for i in range(30):
        make_skill(tmp_path / "skills", f"s{i}")
    gc.collect()
    assert gc.get_freeze_count() == 0
    skills = agent_skills.create_agent_skills([tmp_path / "skills"])
    assert gc.get_freeze_count() == 0
    info = next(s for s in skills.list_skills() if s.name == "s7")
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(info) not in oldest  # young until the host's own collections age it


def test_a_hosts_frozen_objects_stay_frozen_across_a_scan(tmp_path: Path) -> None:
    import gc

    make_skill(tmp_path / "skills", "a")
    # A first scan first: what it imports may replace objects of the import system's own.
    agent_skills.create_agent_skills([tmp_path / "skills"])
    held = [object() for _ in range(3)]
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        agent_skills.create_agent_skills([tmp_path / "skills"])
        assert gc.get_freeze_count() == frozen
        assert gc.isenabled()
    finally:
        gc.unfreeze()
    assert held


def test_cycles_made_before_a_scan_are_still_collected(tmp_path: Path) -> None:
    import gc
    import weakref

    class Node:
        other: object

    make_skill(tmp_path / "skills", "a")
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    agent_skills.create_agent_skills([tmp_path / "skills"])
    assert gone() is not None  # a cycle: reference counting cannot free it
    gc.collect()
    assert gone() is None


def test_warning_sinks_run_with_the_collector_as_the_host_left_it(tmp_path: Path) -> None:
    import gc

    root = tmp_path / "skills"
    (root / "broken").mkdir(parents=True)
    (root / "broken" / "SKILL.md").write_text("no frontmatter\n")
    seen: list[bool] = []
    agent_skills.set_warn_sink(lambda message: seen.append(gc.isenabled()))
    try:
        agent_skills.create_agent_skills([root])
    finally:
        agent_skills.set_warn_sink(None)
    assert seen and all(seen)


def test_a_scan_holds_one_manifests_bytes_at_a_time(tmp_path: Path) -> None:
    """Each manifest's bytes are dropped once its skill is loaded: the peak memory of a scan is
    its results (bodies included) plus about one manifest, not every manifest read twice over."""
    import tracemalloc

    root = tmp_path / "skills"
    count, body_size = 40, 100_000
    for i in range(count):
        d = root / f"s{i:02d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: s{i:02d}\ndescription: d\n---\n" + "x" * body_size)
    agent_skills.create_agent_skills([root])  # warm-up: imports, caches
    tracemalloc.start()
    try:
        skills = agent_skills.create_agent_skills([root])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(skills.list_skills()) == count
    bodies = count * body_size
    # Bodies are kept (SPEC §8 snapshot); the manifests' bytes must not all be alive at once.
    assert peak < bodies * 1.5, (peak, bodies)


def test_resolving_a_root_leaves_the_report_its_candidates_without_bytes(tmp_path: Path) -> None:
    from agent_skills._config import resolve_config
    from agent_skills._discover import _resolve_root
    from agent_skills._scan import Candidate, IndexHit
    from agent_skills._walk import plain_candidates, walk_root

    for name in ("a", "b", "a-copy"):
        make_skill(tmp_path / "skills", name)
    (tmp_path / "skills" / "a-copy" / "SKILL.md").write_text("---\nname: a\ndescription: d\n---\n")
    config = resolve_config([tmp_path / "skills"])
    cands = plain_candidates(walk_root(config.roots[0], follow_symlinks=True, max_depth=1))
    before = [(c.entry_name, c.dir, c.manifest, c.location, c.pin) for c in cands]
    assert all(c.data for c in cands)
    items: list[Candidate | IndexHit] = [*cands]
    results = _resolve_root(items, config, {})
    assert [r.status for r in results] == ["loaded", "duplicate", "loaded"]
    lights = [c for c in items if isinstance(c, Candidate)]
    assert len(lights) == 3 and all(c.data is None for c in lights)
    assert all(r.cand.data is None and r.cand is c for r, c in zip(results, lights, strict=True))
    assert [(c.entry_name, c.dir, c.manifest, c.location, c.pin) for c in lights] == before


def test_skill_info_fields_in_order(tmp_path: Path) -> None:
    """Discovery builds SkillInfo positionally: every field lands where its name says."""
    import dataclasses

    assert [f.name for f in dataclasses.fields(agent_skills.SkillInfo)] == [
        "name",
        "description",
        "metadata",
        "allowed_tools",
        "user_invocable",
        "model_invocable",
        "scope",
        "source",
        "root",
        "dir",
        "path",
        "shadowed",
        "category",
        "real_dir",
        "version",
    ]
    skill = make_skill(tmp_path / "skills", "a")
    (skill / "SKILL.md").write_text(
        "---\nname: a\ndescription: d\nallowed-tools: Read\nuser-invocable: false\n"
        "version: '1.2'\n---\nbody\n"
    )
    [info] = agent_skills.create_agent_skills(
        [agent_skills.SkillRoot(tmp_path / "skills", "user", "src")]
    ).list_skills()
    assert (info.name, info.description, info.allowed_tools) == ("a", "d", ("Read",))
    assert (info.user_invocable, info.model_invocable) == (False, True)
    assert (info.scope, info.source, info.root) == ("user", "src", tmp_path / "skills")
    assert (info.dir, info.path, info.shadowed) == (skill, skill / "SKILL.md", ())
    assert (info.category, info.real_dir, info.version) == ("", skill.resolve(), "1.2")
    assert info.metadata["allowed-tools"] == "Read"
