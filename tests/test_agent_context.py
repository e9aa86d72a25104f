"""SPEC §22.2-§22.7 and §22.9: the budgeted catalog, search, the bounded listing, the body read
at activation, the one dispatcher, and surviving compaction."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import AgentSkills, SkillError, create_agent_skills
from agent_skills.agent import (
    DEFAULT_MAX_LISTED_RESOURCES,
    SkillSession,
    ToolResult,
    current_body,
)
from agent_skills.catalog import CatalogFit
from conftest import make_skill
from test_agent import INSTRUCTIONS

SEARCH_SENTENCE = (
    " Not every skill is listed: when none of the listed skills fits the task, call "
    "search_skills with a few words describing it and activate the best match."
)


def _store(root: Path, count: int) -> AgentSkills:
    for i in range(count):
        make_skill(
            root,
            f"skill-{i:04d}",
            frontmatter={
                "name": f"skill-{i:04d}",
                "description": f"Handles the task called topic{i} and nothing else.",
            },
        )
    return create_agent_skills([root])


@pytest.fixture
def mixed(tmp_path: Path) -> AgentSkills:
    root = tmp_path / "skills"
    make_skill(
        root,
        "pdf-tools",
        frontmatter={"name": "pdf-tools", "description": "Extract text and tables from PDF files."},
        files={"references/forms.md": "FORMS\n", "assets/logo.png": b"\x89PNG\r\n\x1a\n\xff\x00"},
    )
    make_skill(
        root,
        "api-review",
        frontmatter={"name": "api-review", "description": "Review an HTTP API design (OpenAPI)."},
    )
    make_skill(
        root,
        "release-notes",
        frontmatter={"name": "release-notes", "description": "Draft release notes from commits."},
    )
    make_skill(
        root,
        "secret-pdf",
        frontmatter={
            "name": "secret-pdf",
            "description": "PDF things the model must not see.",
            "disable-model-invocation": True,
        },
    )
    return create_agent_skills([root])


# -- catalog_budget (§22.1-§22.2, §22.9) ---------------------------------------------------------


def test_no_budget_is_unchanged(mixed: AgentSkills) -> None:
    session = SkillSession(mixed)
    assert session.catalog_budget is None
    assert session.offers_search is False
    fit = session.catalog_fit()
    assert fit.included == ("api-review", "pdf-tools", "release-notes")
    assert (fit.shortened, fit.omitted) == ((), ())
    assert session.catalog_prompt() == INSTRUCTIONS + "\n\n" + fit.text


def test_budget_that_fits_everything_offers_no_search(mixed: AgentSkills) -> None:
    whole = SkillSession(mixed).catalog_prompt("xml")
    session = SkillSession(mixed, catalog_budget=len(whole))
    assert session.catalog_prompt("xml") == whole
    assert session.catalog_prompt("markdown") == SkillSession(mixed).catalog_prompt("markdown")
    assert session.offers_search is False
    # Search is decided on the xml catalog, the longer one.
    assert SkillSession(mixed, catalog_budget=len(whole) - 1).offers_search is True
    assert [t["name"] for t in session.tools("anthropic")] == [
        "activate_skill",
        "read_skill_resource",
    ]


def test_budget_bounds_the_whole_prompt_and_offers_search(tmp_path: Path) -> None:
    skills = _store(tmp_path / "skills", 60)
    session = SkillSession(skills, catalog_budget=1500)
    assert session.offers_search is True
    for fmt in ("xml", "markdown"):
        prompt = session.catalog_prompt(fmt)  # type: ignore[arg-type]
        assert len(prompt) <= 1500
        assert prompt.startswith(INSTRUCTIONS + SEARCH_SENTENCE + "\n\n")
        fit = session.catalog_fit(fmt)  # type: ignore[arg-type]
        assert prompt == INSTRUCTIONS + SEARCH_SENTENCE + "\n\n" + fit.text
        assert len(fit.included) + len(fit.omitted) == 60
        assert fit.omitted and fit.text.rstrip("\n").splitlines()[-1].startswith("Also available: ")
    assert [t["name"] for t in session.tools("mcp")] == [
        "activate_skill",
        "read_skill_resource",
        "search_skills",
    ]
    # An omitted skill still activates.
    omitted = session.catalog_fit().omitted[-1]
    assert session.activate(omitted).already_active is False


def test_budget_too_small_for_the_instructions(mixed: AgentSkills) -> None:
    session = SkillSession(mixed, catalog_budget=100)
    assert session.catalog_prompt() == ""
    assert session.catalog_fit() == CatalogFit(
        "", (), (), ("api-review", "pdf-tools", "release-notes")
    )
    assert session.offers_search is True


def test_search_offer_is_decided_when_built(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skills = _store(root, 2)
    session = SkillSession(skills, catalog_budget=1000)
    assert session.offers_search is False
    for i in range(2, 40):
        make_skill(root, f"more-{i}")
    skills.refresh()
    assert session.offers_search is False
    assert len(session.catalog_prompt()) <= 1000
    assert session.handle_tool_call("search_skills", {"query": "x", "limit": None}) == ToolResult(
        "invalid_input: unknown tool 'search_skills'; the tools are activate_skill, "
        "read_skill_resource",
        True,
    )


@pytest.mark.parametrize(
    ("kwargs", "fields"),
    [
        ({"catalog_budget": -1}, {"catalog_budget": "-1"}),
        ({"catalog_budget": "8000"}, {"catalog_budget": "'8000'"}),
        ({"max_listed_resources": -1}, {"max_listed_resources": "-1"}),
        ({"max_listed_resources": 1.5}, {"max_listed_resources": "1.5"}),
    ],
)
def test_bad_settings(mixed: AgentSkills, kwargs: dict[str, Any], fields: dict[str, Any]) -> None:
    with pytest.raises(SkillError) as exc:
        SkillSession(mixed, **kwargs)
    assert (exc.value.code, exc.value.fields) == ("invalid_input", fields)


def test_a_big_store_fits_and_every_skill_is_found(tmp_path: Path) -> None:
    skills = _store(tmp_path / "skills", 400)
    session = SkillSession(skills, catalog_budget=8000)
    prompt = session.catalog_prompt()
    assert len(prompt) <= 8000
    fit = session.catalog_fit()
    assert len(fit.omitted) > 300
    for name in fit.omitted[::37]:
        topic = "topic" + str(int(name.split("-")[1]))
        found = session.handle_tool_call("search_skills", {"query": f"the {topic} task"})
        assert found.text.splitlines()[0] == (
            f"{name}: Handles the task called {topic} and nothing else."
        )
        assert not session.handle_tool_call("activate_skill", {"name": name}).is_error


# -- search_skills (§22.2) ---------------------------------------------------------------------


def test_search_ranks_by_bm25(mixed: AgentSkills) -> None:
    session = SkillSession(mixed)
    assert [i.name for i in session.search_skills("tables in a PDF")] == ["pdf-tools"]
    # Stemming: "reviews" finds "Review"; the name counts ("release").
    assert [i.name for i in session.search_skills("reviews")] == ["api-review"]
    assert [i.name for i in session.search_skills("release")] == ["release-notes"]
    # Any word may match; more matching words rank higher.
    names = [i.name for i in session.search_skills("draft notes for the api")]
    assert names == ["release-notes", "api-review"]


def test_search_leaves_out_skills_hidden_from_the_model(mixed: AgentSkills) -> None:
    session = SkillSession(mixed)
    assert [i.name for i in session.search_skills("pdf")] == ["pdf-tools"]


def test_search_limit(tmp_path: Path) -> None:
    session = SkillSession(_store(tmp_path / "skills", 30))
    assert len(session.search_skills("handles task")) == 10
    assert len(session.search_skills("handles task", 3)) == 3
    assert len(session.search_skills("handles task", 50)) == 30
    assert [i.name for i in session.search_skills("topic7")] == ["skill-0007"]


@pytest.mark.parametrize("limit", [0, 51, -1, True, 2.5, "3"])
def test_search_bad_limit(mixed: AgentSkills, limit: Any) -> None:
    with pytest.raises(SkillError) as exc:
        SkillSession(mixed).search_skills("pdf", limit)
    assert (exc.value.code, exc.value.fields) == ("invalid_input", {"limit": repr(limit)})


@pytest.mark.parametrize("query", ["", "   ", "!!! ---", "*"])
def test_search_query_without_words(mixed: AgentSkills, query: str) -> None:
    with pytest.raises(SkillError) as exc:
        SkillSession(mixed).search_skills(query)
    assert (exc.value.code, exc.value.fields) == ("invalid_input", {"query": query})


def test_search_operators_are_plain_words(mixed: AgentSkills) -> None:
    session = SkillSession(mixed)
    for query in ('pdf AND NOT "x', "NEAR(pdf tables)", "pdf* OR ^text", "name:pdf", "pdf)"):
        assert [i.name for i in session.search_skills(query)] == ["pdf-tools"], query


def test_search_sees_a_refresh(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skills = _store(root, 3)
    session = SkillSession(skills)
    assert session.search_skills("kubernetes") == []
    make_skill(root, "k8s", frontmatter={"name": "k8s", "description": "Deploy to Kubernetes."})
    skills.refresh()
    assert [i.name for i in session.search_skills("kubernetes")] == ["k8s"]


# -- bounded listing (§22.3) ---------------------------------------------------------------------


def _files(count: int) -> dict[str, str]:
    return {f"references/r{i:03d}.md": f"R{i}" for i in range(count)}


def test_listing_bounded_at_100(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "big", files=_files(101))
    make_skill(root, "exact", files=_files(100))
    session = SkillSession(create_agent_skills([root]))
    assert DEFAULT_MAX_LISTED_RESOURCES == session.max_listed_resources == 100
    text = session.activate("big").content
    listed = [line for line in text.splitlines() if line.startswith("<file>")]
    assert listed == [f"<file>references/r{i:03d}.md</file>" for i in range(100)]
    assert '<truncated total="101"/>\n</skill_resources>' in text
    # Every file stays readable.
    assert session.read_resource("big", "references/r100.md") == b"R100"
    exact = session.activate("exact").content
    assert "<truncated" not in exact
    assert exact.count("<file>") == 100


def test_listing_bound_is_a_setting(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "big", files=_files(3))
    session = SkillSession(create_agent_skills([root]), max_listed_resources=0)
    text = session.activate("big").content
    assert text.endswith(
        '<skill_resources>\n<truncated total="3"/>\n</skill_resources>\n</skill_content>'
    )


# -- the body read at activation (§22.4) -------------------------------------------------------


def test_activation_returns_the_current_body(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill_dir = make_skill(root, "live", body="Old body.")
    skills = create_agent_skills([root])
    make_skill(root, "live", body="New body, edited after discovery.")
    assert current_body(skills, "live") == "New body, edited after discovery."
    text = SkillSession(skills).activate("live").content
    assert text.startswith('<skill_content name="live">\nNew body, edited after discovery.\n\n')
    assert skills.load_skill("live") is not None
    assert skill_dir.is_dir()


def test_activation_of_a_manifest_that_no_longer_parses(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill_dir = make_skill(root, "broken", body="Fine.")
    skills = create_agent_skills([root])
    (skill_dir / "SKILL.md").write_text("no frontmatter at all\n", encoding="utf-8")
    session = SkillSession(skills)
    with pytest.raises(SkillError) as exc:
        session.activate("broken")
    assert exc.value.code == "invalid_skill"
    assert exc.value.fields == {"name": "broken", "path": str(skill_dir / "SKILL.md")}
    assert exc.value.message.startswith("Skill 'broken' no longer parses: ")
    # Not activated, and the catalog keeps the skill until a refresh.
    assert session.active_skills() == []
    assert "broken" in session.catalog_prompt()
    result = session.handle_tool_call("activate_skill", {"name": "broken"})
    assert result.is_error and result.text.startswith("invalid_skill: Skill 'broken' no longer")
    skills.refresh()
    assert "broken" not in skills


def test_activation_of_a_deleted_manifest(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill_dir = make_skill(root, "gone")
    skills = create_agent_skills([root])
    (skill_dir / "SKILL.md").unlink()
    result = SkillSession(skills).handle_tool_call("activate_skill", {"name": "gone"})
    assert result.is_error
    assert result.text.split(":")[0] in ("not_found", "stale_skill")


def test_current_body_unknown(mixed: AgentSkills) -> None:
    with pytest.raises(SkillError) as exc:
        current_body(mixed, "nope")
    assert (exc.value.code, exc.value.fields) == ("not_found", {"name": "nope", "suggestions": []})


# -- handle_tool_call (§22.6, §22.9) ------------------------------------------------------------


def test_dispatch_activate_and_read(mixed: AgentSkills) -> None:
    session = SkillSession(mixed)
    denied = session.handle_tool_call(
        "read_skill_resource", {"name": "pdf-tools", "path": "references/forms.md"}
    )
    assert denied == ToolResult(
        "access_denied: Skill 'pdf-tools' is not active in this conversation; call "
        "activate_skill first",
        True,
    )
    first = session.handle_tool_call("activate_skill", '{"name": "pdf-tools"}')
    assert first == ToolResult(session_content(mixed, "pdf-tools"), False)
    again = session.handle_tool_call("activate_skill", {"name": "pdf-tools"})
    assert again == ToolResult(
        "Skill 'pdf-tools' is already active in this conversation; "
        "follow the instructions it returned earlier.",
        False,
    )
    read = session.handle_tool_call(
        "read_skill_resource", json.dumps({"name": "pdf-tools", "path": "references/forms.md"})
    )
    assert read == ToolResult("FORMS\n", False)
    binary = session.handle_tool_call(
        "read_skill_resource", {"name": "pdf-tools", "path": "assets/logo.png"}
    )
    assert binary == ToolResult(
        "'assets/logo.png' in skill 'pdf-tools' is a binary file (10 bytes, image/png); "
        "it cannot be shown as text.",
        False,
    )
    escape = session.handle_tool_call(
        "read_skill_resource", {"name": "pdf-tools", "path": "../api-review/SKILL.md"}
    )
    assert escape.is_error and escape.text.startswith("path_escape: ")


def session_content(skills: AgentSkills, name: str) -> str:
    return SkillSession(skills).activate(name).content


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        (
            "run_script",
            {},
            "invalid_input: unknown tool 'run_script'; the tools are activate_skill, "
            "read_skill_resource",
        ),
        (42, {}, "invalid_input: tool name must be a string, got int"),
        ("activate_skill", "[1, 2]", "invalid_input: arguments must be a JSON object, got list"),
        ("activate_skill", 7, "invalid_input: arguments must be a JSON object, got int"),
        ("activate_skill", None, "invalid_input: missing argument(s) for activate_skill: name"),
        ("activate_skill", {}, "invalid_input: missing argument(s) for activate_skill: name"),
        (
            "activate_skill",
            {"name": "pdf-tools", "force": True},
            "invalid_input: unexpected argument(s) for activate_skill: force",
        ),
        ("activate_skill", {"name": 3}, "invalid_input: skill name must be a str, got int"),
        ("activate_skill", {"name": "nope"}, "not_found: No such skill: nope"),
        ("activate_skill", {"name": "secret-pdf"}, "not_found: No such skill: secret-pdf"),
        (
            "read_skill_resource",
            {"name": "pdf-tools"},
            "invalid_input: missing argument(s) for read_skill_resource: path",
        ),
        (
            "read_skill_resource",
            {"name": "pdf-tools", "path": ["a"]},
            "invalid_input: path must be a str, got list",
        ),
    ],
)
def test_dispatch_mistakes(mixed: AgentSkills, tool: Any, arguments: Any, text: str) -> None:
    assert SkillSession(mixed).handle_tool_call(tool, arguments) == ToolResult(text, True)


def test_dispatch_bad_json(mixed: AgentSkills) -> None:
    result = SkillSession(mixed).handle_tool_call("activate_skill", '{"name": ')
    assert result.is_error
    assert result.text.startswith("invalid_input: arguments are not valid JSON: ")


def test_dispatch_search(tmp_path: Path) -> None:
    session = SkillSession(_store(tmp_path / "skills", 50), catalog_budget=1200)
    assert session.offers_search
    result = session.handle_tool_call("search_skills", '{"query": "topic42", "limit": null}')
    assert result == ToolResult("skill-0042: Handles the task called topic42 and nothing else.")
    # A missing limit is null, not a mistake.
    assert session.handle_tool_call("search_skills", {"query": "topic42"}) == result
    many = session.handle_tool_call("search_skills", {"query": "handles", "limit": 4})
    assert len(many.text.splitlines()) == 4
    none = session.handle_tool_call("search_skills", {"query": "kubernetes", "limit": None})
    assert none == ToolResult("No skill matches 'kubernetes'.")
    bad = session.handle_tool_call("search_skills", {"query": "x", "limit": 0})
    assert bad == ToolResult("invalid_input: limit must be an integer from 1 to 50, or null", True)


def test_dispatch_search_cuts_long_descriptions(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    long = "Kubernetes " + "deployment " * 60
    make_skill(root, "k8s", frontmatter={"name": "k8s", "description": long})
    for i in range(40):
        make_skill(root, f"filler-{i}")
    session = SkillSession(create_agent_skills([root]), catalog_budget=900)
    text = session.handle_tool_call("search_skills", {"query": "kubernetes"}).text
    assert text.startswith("k8s: Kubernetes deployment")
    assert text.endswith("…") and len(text) <= len("k8s: ") + 200


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["name", "path", "query", "limit", "x"]), children, max_size=4
        )
    ),
    max_leaves=12,
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tool=st.sampled_from(["activate_skill", "read_skill_resource", "search_skills", "other"]),
    arguments=JSON_VALUES,
    as_text=st.booleans(),
)
def test_dispatch_never_raises(tmp_path: Path, tool: str, arguments: Any, as_text: bool) -> None:
    session = _shared_session(tmp_path)
    payload = json.dumps(arguments) if as_text else arguments
    result = session.handle_tool_call(tool, payload)
    assert isinstance(result, ToolResult)
    assert isinstance(result.text, str) and result.text
    if result.is_error:
        assert result.text.split(":")[0] in {
            "invalid_input",
            "not_found",
            "access_denied",
            "path_escape",
            "not_a_file",
            "too_large",
            "io_error",
        }


_SESSIONS: dict[str, SkillSession] = {}


def _shared_session(tmp_path: Path) -> SkillSession:
    """One session over a store that needs search, shared by every example of the property."""
    key = "store"
    if key not in _SESSIONS:
        root = tmp_path / "skills"
        for i in range(30):
            make_skill(root, f"s{i}", files={"references/a.md": "A"})
        _SESSIONS[key] = SkillSession(create_agent_skills([root]), catalog_budget=900)
        _SESSIONS[key].activate("s1")
    return _SESSIONS[key]


def test_dispatch_deeply_nested_json(mixed: AgentSkills) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    result = SkillSession(mixed).handle_tool_call("activate_skill", deep)
    assert result.is_error and result.text.startswith("invalid_input: arguments")


# -- context_summary, to_state, from_state (§22.7) ------------------------------------------------


def test_context_summary(mixed: AgentSkills) -> None:
    session = SkillSession(mixed)
    assert session.context_summary() == ""
    session.activate("pdf-tools")
    session.activate("api-review")
    pdf = mixed.load_skill("pdf-tools")
    api = mixed.load_skill("api-review")
    assert pdf is not None and api is not None
    assert session.context_summary() == (
        "<active_skills>\n"
        "These skills were activated earlier in this conversation; keep following their "
        "instructions. Relative paths in a skill resolve against its skill directory, shown here. "
        "If a skill's instructions are no longer in view, read its manifest again with "
        "read_skill_resource.\n"
        f'<skill name="pdf-tools" manifest="SKILL.md">{pdf.dir}</skill>\n'
        f'<skill name="api-review" manifest="SKILL.md">{api.dir}</skill>\n'
        "</active_skills>"
    )
    # The manifest it points to is readable by the named tool.
    assert session.handle_tool_call(
        "read_skill_resource", {"name": "pdf-tools", "path": "SKILL.md"}
    ).text.startswith("---\nname: pdf-tools")


def test_state_round_trip(mixed: AgentSkills, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    session = SkillSession(mixed, project_root=project, catalog_budget=5000, max_listed_resources=7)
    session.activate("pdf-tools")
    session.activate("api-review")
    state = json.loads(json.dumps(session.to_state()))
    pdf = mixed.load_skill("pdf-tools")
    api = mixed.load_skill("api-review")
    assert pdf is not None and api is not None
    assert state == {
        "version": 1,
        "active": [
            {"name": "pdf-tools", "dir": os.path.realpath(pdf.dir)},
            {"name": "api-review", "dir": os.path.realpath(api.dir)},
        ],
        "project_root": os.path.realpath(project),
        "max_read_bytes": 1_048_576,
        "catalog_budget": 5000,
        "max_listed_resources": 7,
    }
    fresh = create_agent_skills([pdf.root])  # "another process"
    restored = SkillSession.from_state(fresh, state)
    assert restored.active_skills() == ["pdf-tools", "api-review"]
    assert restored.dropped == ()
    assert (restored.catalog_budget, restored.max_listed_resources) == (5000, 7)
    assert restored.project_root == Path(os.path.realpath(project))
    assert restored.allowed_read_roots() == session.allowed_read_roots()
    # Readable at once, and a second activation is a notice.
    assert restored.read_resource("pdf-tools", "references/forms.md") == b"FORMS\n"
    assert restored.activate("pdf-tools").already_active is True
    assert restored.context_summary() == session.context_summary()
    # Overrides win.
    assert SkillSession.from_state(fresh, state, max_listed_resources=3).max_listed_resources == 3


def test_from_state_drops_vanished_and_moved_skills(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("a", "b", "c"):
        make_skill(root, name)
    skills = create_agent_skills([root])
    session = SkillSession(skills)
    for name in ("a", "b", "c"):
        session.activate(name)
    state = session.to_state()
    (root / "b" / "SKILL.md").unlink()
    other = tmp_path / "other"
    make_skill(other, "c")
    moved = create_agent_skills([root, other])
    restored = SkillSession.from_state(moved, state)
    assert restored.active_skills() == ["a"]
    assert restored.dropped == ("b", "c")


@pytest.mark.parametrize(
    "state",
    [
        None,
        [],
        {},
        {"version": 2, "active": []},
        {"version": 1},
        {"version": 1, "active": [["a", "/x"]]},
        {"version": 1, "active": [{"name": "a"}]},
        {"version": 1, "active": [{"name": 1, "dir": "/x"}]},
    ],
)
def test_from_state_bad_state(mixed: AgentSkills, state: Any) -> None:
    with pytest.raises(SkillError) as exc:
        SkillSession.from_state(mixed, state)
    assert (exc.value.code, exc.value.fields) == ("invalid_input", {"state": "invalid"})


def test_query_terms() -> None:
    from agent_skills._search import MAX_QUERY_TERMS, query_terms

    assert query_terms("Profile a CSV file, a CSV!") == ["profile", "csv", "file"]
    # A query of common words only keeps them.
    assert query_terms("the a") == ["the", "a"]
    assert query_terms("über-Straße") == ["über", "strasse"]
    assert len(query_terms(" ".join(f"w{i}" for i in range(100)))) == MAX_QUERY_TERMS


def test_search_index_is_shared_per_snapshot(tmp_path: Path) -> None:
    from agent_skills.agent import _search_index

    root = tmp_path / "skills"
    skills = _store(root, 3)
    first = _search_index(skills)
    SkillSession(skills).search_skills("topic1")
    assert _search_index(skills) is first
    skills.refresh()
    assert _search_index(skills) is not first


def test_search_without_fts5(mixed: AgentSkills, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from agent_skills import _search

    class NoFts5:
        def execute(self, sql: str) -> None:
            raise sqlite3.OperationalError("no such module: fts5")

    monkeypatch.setattr(_search.sqlite3, "connect", lambda *a, **k: NoFts5())
    session = SkillSession(mixed)
    with pytest.raises(SkillError) as exc:
        session.search_skills("pdf")
    assert (exc.value.code, exc.value.fields) == (
        "io_error",
        {"reason": "no such module: fts5"},
    )
    assert session.handle_tool_call("activate_skill", {"name": "pdf-tools"}).is_error is False


def test_search_index_edge_cases(mixed: AgentSkills) -> None:
    from agent_skills._search import SkillSearchIndex

    index = SkillSearchIndex(mixed.list_skills())
    assert len(index) == 4
    assert index.search("pdf", 0) == []
    assert index.search("", 5) == []


def test_outside_manifest_is_read_at_its_pinned_target(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "linked").mkdir(parents=True)
    store = tmp_path / "store"
    store.mkdir()
    target = store / "SKILL.md"
    target.write_text("---\nname: linked\ndescription: Linked.\n---\nFirst body.\n")
    os.symlink(target, root / "linked" / "SKILL.md")
    skills = create_agent_skills([root])
    assert "linked" in skills
    # Edited in place: the same file, so the new body is served.
    with open(target, "r+", encoding="utf-8") as fh:
        fh.seek(0)
        fh.write("---\nname: linked\ndescription: Linked.\n---\nSecond body\n")
    assert current_body(skills, "linked") == "Second body"
    # Replaced by another file: stale, nothing from the new file is served.
    other = store / "other.md"
    other.write_text("---\nname: linked\ndescription: Evil.\n---\nEvil body.\n")
    os.replace(other, target)
    with pytest.raises(SkillError) as exc:
        current_body(skills, "linked")
    assert exc.value.code == "stale_skill"
    result = SkillSession(skills).handle_tool_call("activate_skill", {"name": "linked"})
    assert result.is_error and result.text.startswith("stale_skill: ")
    assert "Evil" not in result.text


def test_activation_of_a_replaced_skill_directory_is_stale(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill_dir = make_skill(root, "moved", body="Original.")
    skills = create_agent_skills([root])
    os.rename(skill_dir, tmp_path / "elsewhere")
    make_skill(root, "moved", body="Impostor.")
    result = SkillSession(skills).handle_tool_call("activate_skill", {"name": "moved"})
    assert result.is_error
    assert result.text.startswith("stale_skill: ")
    assert "Impostor" not in result.text


def test_search_ranks_by_category(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(
        root / "devops" / "cloud",
        "deploy",
        frontmatter={"name": "deploy", "description": "Ship it."},
    )
    make_skill(
        root / "writing",
        "notes",
        frontmatter={"name": "notes", "description": "Write cloud notes."},
    )
    skills = create_agent_skills([root], max_depth=3)
    assert {i.name: i.category for i in skills.list_skills()} == {
        "deploy": "devops/cloud",
        "notes": "writing",
    }
    session = SkillSession(skills)
    assert [i.name for i in session.search_skills("devops")] == ["deploy"]
    # The category weighs more than the description.
    assert [i.name for i in session.search_skills("cloud")] == ["deploy", "notes"]


def test_search_common_words_rank_only_when_needed(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name, description in (
        ("one", "Common words and a zebra."),
        ("two", "Common words only."),
        ("three", "Common words again."),
        ("four", "Nothing alike."),
    ):
        make_skill(root, name, frontmatter={"name": name, "description": description})
    session = SkillSession(create_agent_skills([root]))
    # "common" is in three skills of four: the rare word decides, the common one fills up.
    assert [i.name for i in session.search_skills("common zebra", 1)] == ["one"]
    assert [i.name for i in session.search_skills("common zebra", 10)] == [
        "one",
        "three",
        "two",
    ]
    # Only common words: they rank.
    assert sorted(i.name for i in session.search_skills("common missingword")) == [
        "one",
        "three",
        "two",
    ]
