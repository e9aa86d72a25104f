"""SPEC §13: markdown, XML and JSON catalogs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import MappingProxyType

from agent_skills import SkillInfo, create_agent_skills
from agent_skills.catalog import (
    render_available_skills_xml,
    render_catalog_json,
    render_skill_catalog,
)
from conftest import make_skill


def info(
    name: str, description: str, path: str = "", scope: str = "user", source: str = ""
) -> SkillInfo:
    skill_dir = Path(path or f"/skills/{name}")
    return SkillInfo(
        name=name,
        description=description,
        metadata=MappingProxyType({"name": name, "description": description}),
        allowed_tools=None,
        user_invocable=True,
        model_invocable=True,
        scope=scope,  # type: ignore[arg-type]
        source=source,
        root=skill_dir.parent,
        dir=skill_dir,
        path=skill_dir / "SKILL.md",
    )


SKILLS = [
    info("beta", "Second\n  skill,\tsplit   over lines.", source="agents"),
    info("alpha", 'First & <best> "one".', scope="workspace", source="clarvis"),
    info("Alpha", "Capital.", source="x"),
]


def test_empty_input() -> None:
    assert render_skill_catalog([]) == ""
    assert render_available_skills_xml([]) == ""
    assert render_available_skills_xml([], include_location=False) == ""
    assert render_catalog_json([]) == "[]"


def test_markdown_exact() -> None:
    assert render_skill_catalog(SKILLS) == (
        "# Available skills\n"
        "\n"
        "- **Alpha** — Capital.\n"
        '- **alpha** — First & <best> "one".\n'
        "- **beta** — Second skill, split over lines.\n"
    )


def test_markdown_custom_heading_and_generator_input() -> None:
    out = render_skill_catalog((s for s in SKILLS[:1]), heading="## Skills")
    assert out == "## Skills\n\n- **beta** — Second skill, split over lines.\n"


def test_xml_exact() -> None:
    assert render_available_skills_xml(SKILLS) == (
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>Alpha</name>\n"
        "    <description>Capital.</description>\n"
        "    <location>/skills/Alpha/SKILL.md</location>\n"
        "  </skill>\n"
        "  <skill>\n"
        "    <name>alpha</name>\n"
        '    <description>First &amp; &lt;best&gt; "one".</description>\n'
        "    <location>/skills/alpha/SKILL.md</location>\n"
        "  </skill>\n"
        "  <skill>\n"
        "    <name>beta</name>\n"
        "    <description>Second skill, split over lines.</description>\n"
        "    <location>/skills/beta/SKILL.md</location>\n"
        "  </skill>\n"
        "</available_skills>\n"
    )


def test_xml_without_location() -> None:
    assert render_available_skills_xml(SKILLS[:1], include_location=False) == (
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>beta</name>\n"
        "    <description>Second skill, split over lines.</description>\n"
        "  </skill>\n"
        "</available_skills>\n"
    )


def test_xml_location_is_plain_escaped_path() -> None:
    odd = info("pdf", "PDF.", path="/x/toolbox.git#v1.3.0/my notes/a&b/pdf")
    out = render_available_skills_xml([odd])
    assert "<location>/x/toolbox.git#v1.3.0/my notes/a&amp;b/pdf/SKILL.md</location>" in out
    assert "%23" not in out
    assert "%20" not in out
    assert "file:" not in out


def test_json_exact() -> None:
    assert json.loads(render_catalog_json(SKILLS)) == [
        {
            "name": "Alpha",
            "description": "Capital.",
            "location": "/skills/Alpha/SKILL.md",
            "scope": "user",
            "source": "x",
        },
        {
            "name": "alpha",
            "description": 'First & <best> "one".',
            "location": "/skills/alpha/SKILL.md",
            "scope": "workspace",
            "source": "clarvis",
        },
        {
            "name": "beta",
            "description": "Second skill, split over lines.",
            "location": "/skills/beta/SKILL.md",
            "scope": "user",
            "source": "agents",
        },
    ]


def test_json_keeps_non_ascii() -> None:
    out = render_catalog_json([info("café", "Très bien ✓")])
    assert "Très bien ✓" in out
    assert json.loads(out)[0]["name"] == "café"


def test_renderers_render_exactly_what_they_are_given() -> None:
    # Filtering (e.g. on model_invocable) is the caller's job.
    hidden = dataclasses.replace(info("zeta", "Z."), model_invocable=False, user_invocable=False)
    assert render_skill_catalog([hidden]) == "# Available skills\n\n- **zeta** — Z.\n"
    assert "<name>zeta</name>" in render_available_skills_xml([hidden])
    assert json.loads(render_catalog_json([hidden]))[0]["name"] == "zeta"


def test_catalog_of_discovered_skills(tmp_path: Path) -> None:
    root = tmp_path / "my notes" / "toolbox.git#v1"
    make_skill(root, "pdf", frontmatter={"name": "pdf", "description": "Read\n\nPDFs."})
    make_skill(root, "alpha", manifest="skill.md")
    skills = create_agent_skills([root], cwd=tmp_path, home=tmp_path)
    xml = render_available_skills_xml(skills.list_skills())
    assert f"<location>{root}/alpha/skill.md</location>" in xml
    assert f"<location>{root}/pdf/SKILL.md</location>" in xml
    md = render_skill_catalog(skills.list_skills())
    assert md.endswith("- **pdf** — Read PDFs.\n")
    locations = [item["location"] for item in json.loads(render_catalog_json(skills.list_skills()))]
    assert all(Path(loc).is_file() for loc in locations)


def test_xml_replaces_characters_xml_cannot_carry() -> None:
    out = render_available_skills_xml([info("ctl", "a\x01b\x7fc\ufffed")])
    assert "<description>a\ufffdb\x7fc\ufffdd</description>" in out
    import xml.etree.ElementTree as ET

    assert ET.fromstring(out).find("skill/description") is not None
