"""SPEC §14: ``agent_skills.agent.SkillSession`` and ``AgentSkills.allowed_read_roots``.

One test (or a few) per statement of §14, with exact values.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_skills import AgentSkills, SkillError, create_agent_skills
from agent_skills.agent import (
    ACTIVATE_TOOL_NAME,
    DEFAULT_MAX_READ_BYTES,
    READ_TOOL_NAME,
    Activation,
    SkillSession,
)
from agent_skills.catalog import render_available_skills_xml, render_skill_catalog
from conftest import caught_code_and_fields as _err
from conftest import make_skill, symlink

INSTRUCTIONS = (
    "Skills are folders of instructions, scripts and reference files for specific tasks. "
    "Each skill below is listed with a description of when to use it. When a task matches a "
    "skill's description, call the activate_skill tool with the skill's name before you "
    "start, then follow the instructions it returns. Paths in a skill's instructions are relative "
    "to its skill directory, which the activation result names together with the skill's files; "
    "read those files with read_skill_resource or with your file tools once the skill is active."
)
ACTIVATE_DESCRIPTION = (
    "Activate a skill: returns its instructions, its skill directory and the list of its bundled "
    "files. Call it when a task matches a skill's description, before starting the task."
)
READ_DESCRIPTION = (
    "Read one file bundled with an activated skill, by the skill's name and the file's path "
    "relative to the skill directory (for example 'references/guide.md')."
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``skills/`` with three model-invocable skills, one hidden from the model; ``project/``."""
    root = tmp_path / "skills"
    make_skill(
        root,
        "beta",
        frontmatter={"name": "beta", "description": "Beta   does\n  things."},
        body="# Beta\n\nRead references/guide.md first.\n\n\n",
        files={
            "references/guide.md": "GUIDE-TEXT\n",
            "scripts/run.py": "print('run')\n",
            "assets/logo.svg": "<svg/>",
            "notes.txt": "n",
        },
    )
    make_skill(root, "Alpha", frontmatter={"name": "Alpha", "description": "Alpha skill."})
    make_skill(root, "gamma", body="Gamma body.")
    make_skill(
        root,
        "hidden",
        frontmatter={
            "name": "hidden",
            "description": "Hidden skill.",
            "disable-model-invocation": True,
        },
        files={"references/h.md": "H"},
    )
    (tmp_path / "project" / "src").mkdir(parents=True)
    (tmp_path / "project" / "src" / "x.py").write_text("x = 1\n")
    return tmp_path


@pytest.fixture
def skills(tree: Path) -> AgentSkills:
    return create_agent_skills([tree / "skills"])


@pytest.fixture
def session(skills: AgentSkills, tree: Path) -> SkillSession:
    return SkillSession(skills, project_root=tree / "project")


def _only_hidden(tmp_path: Path) -> AgentSkills:
    make_skill(
        tmp_path / "only",
        "secret",
        frontmatter={"name": "secret", "description": "S.", "disable-model-invocation": True},
    )
    return create_agent_skills([tmp_path / "only"])


# -- construction -------------------------------------------------------------------------------


def test_defaults(skills: AgentSkills) -> None:
    session = SkillSession(skills)
    assert (session.skills, session.project_root, session.max_read_bytes) == (
        skills,
        None,
        1_048_576,
    )
    assert DEFAULT_MAX_READ_BYTES == 1_048_576
    assert (ACTIVATE_TOOL_NAME, READ_TOOL_NAME) == ("activate_skill", "read_skill_resource")
    assert session.active_skills() == []
    assert session.allowed_read_roots() == []


@pytest.mark.parametrize(
    ("kwargs", "fields"),
    [
        ({"max_read_bytes": -1}, {"max_read_bytes": "-1"}),
        ({"max_read_bytes": True}, {"max_read_bytes": "True"}),
        ({"max_read_bytes": "10"}, {"max_read_bytes": "'10'"}),
        ({"max_read_bytes": 1.5}, {"max_read_bytes": "1.5"}),
        ({"project_root": 3}, {"type": "int"}),
        ({"project_root": b"/tmp"}, {"type": "bytes"}),
        ({"project_root": ""}, {"path": ""}),
        ({"project_root": "a\x00b"}, {"path": "a\x00b"}),
    ],
)
def test_bad_arguments_are_invalid_input(
    skills: AgentSkills, kwargs: dict[str, Any], fields: dict[str, Any]
) -> None:
    with pytest.raises(SkillError) as exc:
        SkillSession(skills, **kwargs)
    assert _err(exc) == ("invalid_input", fields)


def test_skills_must_be_agent_skills() -> None:
    with pytest.raises(SkillError) as exc:
        SkillSession([])  # type: ignore[arg-type]
    assert _err(exc) == ("invalid_input", {"type": "list"})


def test_project_root_is_real_and_relative_to_cwd(
    tree: Path, skills: AgentSkills, monkeypatch: pytest.MonkeyPatch
) -> None:
    symlink(tree / "link-to-project", tree / "project")
    assert SkillSession(skills, project_root=tree / "link-to-project").project_root == (
        tree / "project"
    )
    monkeypatch.chdir(tree)
    assert SkillSession(skills, project_root="project").project_root == tree / "project"
    zero = SkillSession(skills, max_read_bytes=0)
    assert zero.max_read_bytes == 0


# -- catalog_prompt -----------------------------------------------------------------------------


def test_catalog_prompt_xml_exact(session: SkillSession) -> None:
    assert session.catalog_prompt() == session.catalog_prompt("xml")
    assert session.catalog_prompt("xml") == (
        INSTRUCTIONS + "\n\n"
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>Alpha</name>\n"
        "    <description>Alpha skill.</description>\n"
        "  </skill>\n"
        "  <skill>\n"
        "    <name>beta</name>\n"
        "    <description>Beta does things.</description>\n"
        "  </skill>\n"
        "  <skill>\n"
        "    <name>gamma</name>\n"
        "    <description>The gamma skill.</description>\n"
        "  </skill>\n"
        "</available_skills>\n"
    )


def test_catalog_prompt_markdown_exact(session: SkillSession) -> None:
    assert session.catalog_prompt("markdown") == (
        INSTRUCTIONS + "\n\n"
        "## Available skills\n\n"
        "- **Alpha** — Alpha skill.\n"
        "- **beta** — Beta does things.\n"
        "- **gamma** — The gamma skill.\n"
    )


def test_catalog_prompt_is_the_section_13_catalog(session: SkillSession) -> None:
    visible = [s for s in session.skills.list_skills() if s.name != "hidden"]
    assert session.model_invocable() == visible
    assert session.catalog_prompt("xml") == INSTRUCTIONS + "\n\n" + render_available_skills_xml(
        visible, include_location=False
    )
    assert session.catalog_prompt("markdown") == INSTRUCTIONS + "\n\n" + render_skill_catalog(
        visible, heading="## Available skills"
    )


def test_catalog_prompt_empty(tmp_path: Path) -> None:
    empty = SkillSession(create_agent_skills([tmp_path / "none"]))
    hidden_only = SkillSession(_only_hidden(tmp_path))
    for session in (empty, hidden_only):
        assert (session.catalog_prompt("xml"), session.catalog_prompt("markdown")) == ("", "")
        assert session.model_invocable() == []


@pytest.mark.parametrize("fmt", ["html", "XML", "", None, 1])
def test_catalog_prompt_bad_format(session: SkillSession, fmt: Any) -> None:
    with pytest.raises(SkillError) as exc:
        session.catalog_prompt(fmt)
    assert _err(exc) == ("invalid_input", {"format": repr(fmt)})


# -- tools ------------------------------------------------------------------------------------

ACTIVATE_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "enum": ["Alpha", "beta", "gamma"],
            "description": "The name of the skill to activate.",
        }
    },
    "required": ["name"],
    "additionalProperties": False,
}
READ_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "enum": ["Alpha", "beta", "gamma"],
            "description": "The name of an activated skill.",
        },
        "path": {
            "type": "string",
            "description": "The file's path relative to the skill directory.",
        },
    },
    "required": ["name", "path"],
    "additionalProperties": False,
}


def test_activation_tool_flavors(session: SkillSession) -> None:
    assert session.activation_tool() == session.activation_tool("openai")
    assert session.activation_tool("openai") == {
        "type": "function",
        "function": {
            "name": "activate_skill",
            "description": ACTIVATE_DESCRIPTION,
            "parameters": ACTIVATE_SCHEMA,
            "strict": True,
        },
    }
    assert session.activation_tool("anthropic") == {
        "name": "activate_skill",
        "description": ACTIVATE_DESCRIPTION,
        "input_schema": ACTIVATE_SCHEMA,
    }
    assert session.activation_tool("json_schema") == {
        "name": "activate_skill",
        "description": ACTIVATE_DESCRIPTION,
        "parameters": ACTIVATE_SCHEMA,
    }


def test_read_tool_flavors(session: SkillSession) -> None:
    assert session.read_tool() == session.read_tool("openai")
    assert session.read_tool("openai") == {
        "type": "function",
        "function": {
            "name": "read_skill_resource",
            "description": READ_DESCRIPTION,
            "parameters": READ_SCHEMA,
            "strict": True,
        },
    }
    assert session.read_tool("anthropic") == {
        "name": "read_skill_resource",
        "description": READ_DESCRIPTION,
        "input_schema": READ_SCHEMA,
    }
    assert session.read_tool("json_schema") == {
        "name": "read_skill_resource",
        "description": READ_DESCRIPTION,
        "parameters": READ_SCHEMA,
    }


def test_tools_are_fresh_dicts(session: SkillSession) -> None:
    tool = session.activation_tool("anthropic")
    assert tool is not None
    tool["input_schema"]["properties"]["name"]["enum"].append("evil")
    again = session.activation_tool("anthropic")
    assert again is not None
    assert again["input_schema"]["properties"]["name"]["enum"] == ["Alpha", "beta", "gamma"]


def test_tools_none_without_model_invocable_skills(tmp_path: Path) -> None:
    for skills in (create_agent_skills([tmp_path / "none"]), _only_hidden(tmp_path)):
        session = SkillSession(skills)
        for flavor in ("openai", "anthropic", "json_schema"):
            assert session.activation_tool(flavor) is None  # type: ignore[arg-type]
            assert session.read_tool(flavor) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("flavor", ["OpenAI", "MCP", "openai-responses", "", None])
def test_tools_bad_flavor(session: SkillSession, flavor: Any) -> None:
    for make in (session.activation_tool, session.read_tool):
        with pytest.raises(SkillError) as exc:
            make(flavor)
        assert _err(exc) == ("invalid_input", {"flavor": repr(flavor)})


def test_bad_flavor_is_invalid_input_even_without_skills(tmp_path: Path) -> None:
    session = SkillSession(create_agent_skills([tmp_path / "none"]))
    with pytest.raises(SkillError) as exc:
        session.activation_tool("nope")  # type: ignore[arg-type]
    assert _err(exc) == ("invalid_input", {"flavor": "'nope'"})


# -- activate -----------------------------------------------------------------------------------


def test_activate_content_exact(session: SkillSession, tree: Path) -> None:
    skill_dir = tree / "skills" / "beta"
    result = session.activate("beta")
    assert result == Activation(
        name="beta",
        content=(
            '<skill_content name="beta">\n'
            "# Beta\n"
            "\n"
            "Read references/guide.md first.\n"
            "\n"
            f"Skill directory: {skill_dir}\n"
            "Relative paths in this skill resolve against the skill directory.\n"
            "\n"
            "<skill_resources>\n"
            "<file>assets/logo.svg</file>\n"
            "<file>notes.txt</file>\n"
            "<file>references/guide.md</file>\n"
            "<file>scripts/run.py</file>\n"
            "</skill_resources>\n"
            "</skill_content>"
        ),
        skill_dir=skill_dir,
        already_active=False,
    )
    # Resources are listed, never read.
    assert "GUIDE-TEXT" not in result.content
    assert "print('run')" not in result.content


def test_activate_without_resources(session: SkillSession, tree: Path) -> None:
    assert session.activate("gamma").content == (
        '<skill_content name="gamma">\n'
        "Gamma body.\n"
        "\n"
        f"Skill directory: {tree / 'skills' / 'gamma'}\n"
        "Relative paths in this skill resolve against the skill directory.\n"
        "\n"
        "<skill_resources>\n"
        "</skill_resources>\n"
        "</skill_content>"
    )


def test_activate_escapes_values(tmp_path: Path) -> None:
    root = tmp_path / "a&b <c>"
    make_skill(root, "esc", body="Body with <tags> & stays verbatim.", files={"r&d/<x>.md": "x"})
    session = SkillSession(create_agent_skills([root]))
    content = session.activate("esc").content
    assert content.splitlines() == [
        '<skill_content name="esc">',
        "Body with <tags> & stays verbatim.",
        "",
        f"Skill directory: {tmp_path}/a&amp;b &lt;c&gt;/esc",
        "Relative paths in this skill resolve against the skill directory.",
        "",
        "<skill_resources>",
        "<file>r&amp;d/&lt;x&gt;.md</file>",
        "</skill_resources>",
        "</skill_content>",
    ]


def test_activate_twice_is_a_notice(session: SkillSession, tree: Path) -> None:
    first = session.activate("beta")
    second = session.activate("beta")
    assert second == Activation(
        name="beta",
        content=(
            "Skill 'beta' is already active in this conversation; "
            "follow the instructions it returned earlier."
        ),
        skill_dir=tree / "skills" / "beta",
        already_active=True,
    )
    assert "\n" not in second.content
    assert first.already_active is False
    assert session.active_skills() == ["beta"]
    # Another session starts fresh.
    assert SkillSession(session.skills).activate("beta") == first


def test_activate_adds_real_dir_to_allowlist(session: SkillSession, tree: Path) -> None:
    session.activate("gamma")
    session.activate("beta")
    session.activate("gamma")
    assert session.active_skills() == ["gamma", "beta"]
    assert session.allowed_read_roots() == [
        tree / "project",
        tree / "skills" / "gamma",
        tree / "skills" / "beta",
    ]


@pytest.mark.parametrize(
    ("name", "suggestions"),
    # Suggestions name only skills the model may activate: never "hidden" (SPEC §21.10).
    [("hidden", []), ("nope", []), ("BETA", ["beta"]), ("", []), ("beta ", ["beta"])],
)
def test_activate_not_found(session: SkillSession, name: str, suggestions: list[str]) -> None:
    with pytest.raises(SkillError) as exc:
        session.activate(name)
    assert _err(exc) == ("not_found", {"name": name, "suggestions": suggestions})
    assert session.active_skills() == []


@pytest.mark.parametrize(
    ("name", "type_name"), [(None, "NoneType"), (3, "int"), (b"beta", "bytes")]
)
def test_activate_bad_name(session: SkillSession, name: Any, type_name: str) -> None:
    with pytest.raises(SkillError) as exc:
        session.activate(name)
    assert _err(exc) == ("invalid_input", {"type": type_name})


def test_concurrent_activation_counts_once(session: SkillSession) -> None:
    results: list[Activation] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def work() -> None:
        barrier.wait()
        activation = session.activate("beta")
        with lock:
            results.append(activation)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.already_active for r in results) == [False] + [True] * 7
    assert session.active_skills() == ["beta"]


# -- read_resource ------------------------------------------------------------------------------


def test_read_resource_needs_activation(session: SkillSession) -> None:
    with pytest.raises(SkillError) as exc:
        session.read_resource("beta", "references/guide.md")
    assert _err(exc) == ("access_denied", {"name": "beta", "rel": "references/guide.md"})
    session.activate("beta")
    assert session.read_resource("beta", "references/guide.md") == b"GUIDE-TEXT\n"
    assert session.read_resource("beta", Path("references/guide.md")) == b"GUIDE-TEXT\n"
    assert session.read_resource("beta", "SKILL.md").startswith(b"---\nname: beta\n")


def test_read_resource_other_skills_denied(session: SkillSession) -> None:
    session.activate("beta")
    with pytest.raises(SkillError) as exc:
        session.read_resource("gamma", "SKILL.md")
    assert _err(exc) == ("access_denied", {"name": "gamma", "rel": "SKILL.md"})
    assert str(exc.value) == (
        "Skill 'gamma' is not active in this conversation; call activate_skill first"
    )


@pytest.mark.parametrize(
    ("name", "suggestions"), [("hidden", []), ("nope", []), ("Gamma", ["gamma"]), ("bta", ["beta"])]
)
def test_read_resource_of_a_skill_the_model_cannot_activate_is_not_found(
    session: SkillSession, name: str, suggestions: list[str]
) -> None:
    # SPEC §29.5: an unknown skill (or one hidden from the model) is not_found, as activate says.
    session.activate("beta")
    with pytest.raises(SkillError) as exc:
        session.read_resource(name, "SKILL.md")
    assert _err(exc) == ("not_found", {"name": name, "suggestions": suggestions})


@pytest.mark.parametrize(
    ("rel", "code", "fields"),
    [
        ("../gamma/SKILL.md", "path_escape", {"rel": "../gamma/SKILL.md", "name": "beta"}),
        ("/etc/passwd", "invalid_input", {"rel": "/etc/passwd"}),
        ("", "invalid_input", {"rel": ""}),
        (
            "references/missing.md",
            "not_found",
            {
                "name": "beta",
                "rel": "references/missing.md",
                "suggestions": ["references/guide.md"],
            },
        ),
        ("references", "not_a_file", {"name": "beta", "rel": "references"}),
    ],
)
def test_read_resource_confined(
    session: SkillSession, rel: str, code: str, fields: dict[str, Any]
) -> None:
    session.activate("beta")
    with pytest.raises(SkillError) as exc:
        session.read_resource("beta", rel)
    assert _err(exc) == (code, fields)


def test_read_resource_too_large(skills: AgentSkills) -> None:
    session = SkillSession(skills, max_read_bytes=11)
    session.activate("beta")
    assert session.read_resource("beta", "references/guide.md") == b"GUIDE-TEXT\n"  # 11 bytes
    small = SkillSession(skills, max_read_bytes=10)
    small.activate("beta")
    with pytest.raises(SkillError) as exc:
        small.read_resource("beta", "references/guide.md")
    assert _err(exc) == (
        "too_large",
        {"name": "beta", "rel": "references/guide.md", "size": 11, "max_bytes": 10},
    )


def test_read_resource_bad_name(session: SkillSession) -> None:
    with pytest.raises(SkillError) as exc:
        session.read_resource(7, "x")  # type: ignore[arg-type]
    assert _err(exc) == ("invalid_input", {"type": "int"})


def test_read_resource_after_refresh_moves_the_skill(tmp_path: Path) -> None:
    low, high = tmp_path / "low", tmp_path / "high"
    make_skill(low, "doc", files={"references/a.md": "LOW"})
    skills = create_agent_skills([low, high])
    session = SkillSession(skills)
    session.activate("doc")
    assert session.read_resource("doc", "references/a.md") == b"LOW"
    make_skill(high, "doc", files={"references/a.md": "HIGH"})
    skills.refresh()
    with pytest.raises(SkillError) as exc:
        session.read_resource("doc", "references/a.md")
    assert _err(exc) == ("access_denied", {"name": "doc", "rel": "references/a.md"})
    # Activating again is a new activation: full content, the new directory replaces the old.
    again = session.activate("doc")
    assert (again.already_active, again.skill_dir) == (False, high / "doc")
    assert again.content.startswith('<skill_content name="doc">\nInstructions.\n')
    assert session.allowed_read_roots() == [high / "doc"]
    assert session.read_resource("doc", "references/a.md") == b"HIGH"
    assert session.activate("doc").already_active is True
    assert session.active_skills() == ["doc"]


# -- check_read ---------------------------------------------------------------------------------


def test_check_read_project_paths(session: SkillSession, tree: Path) -> None:
    project = tree / "project"
    assert session.check_read("src/x.py") == project / "src" / "x.py"
    assert session.check_read(Path("src/x.py")) == project / "src" / "x.py"
    assert session.check_read(project / "src" / "x.py") == project / "src" / "x.py"
    assert session.check_read(str(project)) == project
    assert session.check_read(".") == project
    assert session.check_read("src/../src/./x.py") == project / "src" / "x.py"
    # Not required to exist: the policy decides, the open reports absence.
    assert session.check_read("new/file.txt") == project / "new" / "file.txt"


def test_check_read_tilde_is_not_expanded(session: SkillSession, tree: Path) -> None:
    assert session.check_read("~/x") == tree / "project" / "~" / "x"
    assert session.check_read("~") == tree / "project" / "~"
    no_root = SkillSession(session.skills)
    with pytest.raises(SkillError) as exc:
        no_root.check_read("~/.ssh/id_rsa")
    assert _err(exc) == ("access_denied", {"path": "~/.ssh/id_rsa"})


@pytest.mark.parametrize(
    "path",
    [
        "../skills/beta/SKILL.md",
        "..",
        "src/../../skills/gamma/SKILL.md",
        "/etc/passwd",
        "/",
    ],
)
def test_check_read_outside_denied(session: SkillSession, path: str) -> None:
    with pytest.raises(SkillError) as exc:
        session.check_read(path)
    assert _err(exc) == ("access_denied", {"path": path})


def test_check_read_sibling_prefix(skills: AgentSkills, tree: Path) -> None:
    (tree / "project-evil").mkdir()
    (tree / "project-evil" / "x").write_text("x")
    session = SkillSession(skills, project_root=tree / "project")
    path = str(tree / "project-evil" / "x")
    with pytest.raises(SkillError) as exc:
        session.check_read(path)
    assert _err(exc) == ("access_denied", {"path": path})


def test_check_read_relative_without_project_root(skills: AgentSkills, tree: Path) -> None:
    session = SkillSession(skills)
    session.activate("beta")
    for path in ("src/x.py", "references/guide.md", "."):
        with pytest.raises(SkillError) as exc:
            session.check_read(path)
        assert _err(exc) == ("access_denied", {"path": path})
    guide = tree / "skills" / "beta" / "references" / "guide.md"
    assert session.check_read(guide) == guide


def test_check_read_skill_dirs(session: SkillSession, tree: Path) -> None:
    beta = tree / "skills" / "beta"
    guide = beta / "references" / "guide.md"
    with pytest.raises(SkillError) as exc:
        session.check_read(guide)
    assert _err(exc) == ("access_denied", {"path": str(guide)})
    session.activate("beta")
    assert session.check_read(guide) == guide
    assert session.check_read(str(beta)) == beta
    # `..` from the activated skill into a sibling skill is resolved before deciding.
    sneaky = f"{beta}/../gamma/SKILL.md"
    with pytest.raises(SkillError) as exc:
        session.check_read(sneaky)
    assert _err(exc) == ("access_denied", {"path": sneaky})


def test_check_read_symlinks_resolved(session: SkillSession, tree: Path) -> None:
    project = tree / "project"
    (tree / "outside").mkdir()
    (tree / "outside" / "secret.txt").write_text("secret")
    symlink(project / "leak", tree / "outside")
    symlink(project / "leak.txt", tree / "outside" / "secret.txt")
    symlink(project / "inner", project / "src")
    for path in ("leak/secret.txt", "leak.txt", "leak"):
        with pytest.raises(SkillError) as exc:
            session.check_read(path)
        assert _err(exc) == ("access_denied", {"path": path})
    assert session.check_read("inner/x.py") == project / "src" / "x.py"


def _link_chain(where: Path, length: int, final: Path, prefix: str = "c") -> Path:
    """``where/<prefix>0 -> <prefix>1 -> ... -> final``: ``length`` links; return the first."""
    for i in range(length - 1, -1, -1):
        target = final if i == length - 1 else where / f"{prefix}{i + 1}"
        symlink(where / f"{prefix}{i}", os.path.relpath(target, where))
    return where / f"{prefix}0"


@pytest.mark.parametrize("length", [41, 42, 45, 60, 80, 200])
@pytest.mark.parametrize("inside", ["project", "skill"])
def test_check_read_refuses_chains_longer_than_40_links(
    session: SkillSession, tree: Path, length: int, inside: str
) -> None:
    """SPEC §30.6: the 41st link is never taken for the real path (the kernel would follow the
    rest from it, outside), inside the project or an activated skill, absolute or relative,
    whatever the chain's end."""
    (tree / "outside").mkdir()
    (tree / "outside" / "secret.txt").write_text("secret")
    session.activate("beta")
    where = tree / "project" if inside == "project" else tree / "skills" / "beta"
    ends = {
        "out-file": tree / "outside" / "secret.txt",
        "out-dir": tree / "outside",
        "in-file": tree / "project" / "src" / "x.py",
    }
    for n, (label, final) in enumerate(ends.items()):
        first = _link_chain(where, length, final, prefix=f"{label}-{n}-")
        asked = [str(first), str(first / "secret.txt")]
        if inside == "project":
            asked += [first.name, f"{first.name}/secret.txt", f"src/../{first.name}"]
        for path in asked:
            with pytest.raises(SkillError) as exc:
                session.check_read(path)
            assert _err(exc) == ("access_denied", {"path": path})
    # Loops of every shape are refused too, never handed out as a path holding the link.
    symlink(where / "self", "self")
    symlink(where / "ping", "pong")
    symlink(where / "pong", "ping")
    symlink(where / "up", "up/..")
    for name in ("self", "ping", "up", "self/x", "ping/../src/x.py"):
        path = str(where / name)
        with pytest.raises(SkillError) as loop:
            session.check_read(path)
        assert _err(loop) == ("access_denied", {"path": path})


@pytest.mark.parametrize("length", [0, 1, 20, 39, 40])
def test_check_read_follows_chains_of_up_to_40_links(
    session: SkillSession, tree: Path, length: int
) -> None:
    """Up to 40 links (the kernel's limit, SPEC §10), a chain inside resolves to its real path
    and one leading outside is refused."""
    project = tree / "project"
    (tree / "outside").mkdir()
    (tree / "outside" / "secret.txt").write_text("secret")
    if length == 0:
        assert session.check_read("src/x.py") == project / "src" / "x.py"
        return
    inside = _link_chain(project, length, project / "src" / "x.py", prefix="in")
    assert session.check_read(inside.name) == project / "src" / "x.py"
    assert session.check_read(str(inside)) == project / "src" / "x.py"
    out = _link_chain(project, length, tree / "outside" / "secret.txt", prefix="out")
    with pytest.raises(SkillError) as exc:
        session.check_read(out.name)
    assert _err(exc) == ("access_denied", {"path": out.name})


@pytest.mark.parametrize("length", [41, 80])
def test_a_project_root_behind_too_many_links_is_invalid_input(
    skills: AgentSkills, tree: Path, length: int
) -> None:
    """A project root whose links cannot be resolved would be granted as a path still holding
    a link (``allowed_read_roots``): refused when the session is made (SPEC §30.6)."""
    first = _link_chain(tree / "chain", length, tree / "project")
    with pytest.raises(SkillError) as exc:
        SkillSession(skills, project_root=first)
    assert _err(exc) == ("invalid_input", {"path": str(first)})
    fine = _link_chain(tree / "chain", 40, tree / "project", prefix="ok")
    assert SkillSession(skills, project_root=fine).allowed_read_roots() == [tree / "project"]


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        (None, {"type": "NoneType"}),
        (5, {"type": "int"}),
        (b"src/x.py", {"type": "bytes"}),
        ("", {"path": ""}),
        ("src/\x00x.py", {"path": "src/\x00x.py"}),
    ],
)
def test_check_read_bad_input(session: SkillSession, path: Any, fields: dict[str, Any]) -> None:
    with pytest.raises(SkillError) as exc:
        session.check_read(path)
    assert _err(exc) == ("invalid_input", fields)


# -- allowed_read_roots -------------------------------------------------------------------------


def test_allowed_read_roots_session(session: SkillSession, tree: Path) -> None:
    assert session.allowed_read_roots() == [tree / "project"]
    roots = session.allowed_read_roots()
    roots.append(Path("/"))
    assert session.allowed_read_roots() == [tree / "project"]


def test_allowed_read_roots_listed_once(tmp_path: Path) -> None:
    project = tmp_path / "ws"
    make_skill(project / ".agents" / "skills", "inside")
    skills = create_agent_skills([project / ".agents" / "skills"])
    session = SkillSession(skills, project_root=project)
    session.activate("inside")
    assert session.allowed_read_roots() == [project, project / ".agents" / "skills" / "inside"]
    same = SkillSession(skills, project_root=project / ".agents" / "skills" / "inside")
    same.activate("inside")
    assert same.allowed_read_roots() == [project / ".agents" / "skills" / "inside"]


def test_agent_skills_allowed_read_roots(tmp_path: Path) -> None:
    low, high, store = tmp_path / "low", tmp_path / "high", tmp_path / "store"
    make_skill(low, "dup")
    make_skill(low, "b-skill")
    make_skill(high, "dup")
    make_skill(store, "linked")
    symlink(high / "linked", store / "linked")
    make_skill(
        high,
        "quiet",
        frontmatter={"name": "quiet", "description": "Q.", "disable-model-invocation": True},
    )
    skills = create_agent_skills([low, high])
    assert [s.name for s in skills.list_skills()] == ["b-skill", "dup", "linked", "quiet"]
    assert skills.allowed_read_roots() == [
        low / "b-skill",
        high / "dup",
        store / "linked",
        high / "quiet",
    ]
    assert create_agent_skills([tmp_path / "none"]).allowed_read_roots() == []


def test_linked_skill_dir_is_allowlisted_by_real_path(tmp_path: Path) -> None:
    store, root = tmp_path / "store", tmp_path / "skills"
    make_skill(store, "linked", files={"references/r.md": "R"})
    symlink(root / "linked", store / "linked")
    session = SkillSession(create_agent_skills([root]))
    activation = session.activate("linked")
    assert activation.skill_dir == root / "linked"
    assert f"Skill directory: {root / 'linked'}\n" in activation.content
    assert session.allowed_read_roots() == [store / "linked"]
    # Both the advertised path and the real one pass, and resolve to the real file.
    for path in (root / "linked" / "references" / "r.md", store / "linked" / "references" / "r.md"):
        assert session.check_read(path) == store / "linked" / "references" / "r.md"
    assert os.path.realpath(root / "linked") == str(store / "linked")


# -- odd inputs ---------------------------------------------------------------------------------


class _BrokenPath(os.PathLike[str]):
    def __fspath__(self) -> str:
        raise RuntimeError("no path")


def test_pathlike_that_fails(session: SkillSession, skills: AgentSkills) -> None:
    with pytest.raises(SkillError) as exc:
        session.check_read(_BrokenPath())
    assert _err(exc) == ("invalid_input", {"type": "_BrokenPath"})
    with pytest.raises(SkillError) as exc:
        SkillSession(skills, project_root=_BrokenPath())
    assert _err(exc) == ("invalid_input", {"type": "_BrokenPath"})


@pytest.mark.parametrize(
    ("rel", "shown"),
    [(Path("references/guide.md"), "references/guide.md"), (b"x", "b'x'"), (None, "None")],
)
def test_access_denied_names_any_rel(session: SkillSession, rel: Any, shown: str) -> None:
    with pytest.raises(SkillError) as exc:
        session.read_resource("beta", rel)
    assert _err(exc) == ("access_denied", {"name": "beta", "rel": shown})


def test_unresolvable_path_is_denied(
    session: SkillSession, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_skills._access as agent_module

    def boom(path: str) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(agent_module, "real_path", boom)
    with pytest.raises(SkillError) as exc:
        session.check_read("src/x.py")
    assert _err(exc) == ("access_denied", {"path": "src/x.py"})


def test_repr(session: SkillSession, tree: Path) -> None:
    session.activate("gamma")
    assert repr(session) == f"SkillSession(project_root={tree / 'project'}, active=['gamma'])"
