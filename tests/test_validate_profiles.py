"""check_frontmatter and the validation profiles (SPEC §15, §27): one home for frontmatter rules."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_skills import SkillError, create_agent_skills, parse_skill
from agent_skills.cli import cli
from agent_skills.validate import (
    PROFILES,
    Problem,
    ProblemCode,
    Severity,
    check_frontmatter,
    has_errors,
    validate_skill,
)
from conftest import make_skill

E, W = Severity.ERROR, Severity.WARNING


def found(problems: list[Problem]) -> list[tuple[str, str, str | None]]:
    return [(p.severity.value, p.code.value, p.field) for p in problems]


def test_profiles_are_the_three_named() -> None:
    assert PROFILES == ("spec", "portable", "anthropic")


def test_check_frontmatter_is_pure_and_line_free() -> None:
    data: dict[str, Any] = {"name": "Bad_Name", "description": "", "extra": 1}
    before = json.dumps(data)
    problems = check_frontmatter(data)
    assert json.dumps(data) == before
    assert found(problems) == [
        ("error", "name_uppercase", "name"),
        ("error", "name_invalid_chars", "name"),
        ("error", "description_empty", "description"),
        ("warning", "unknown_key", "extra"),
    ]
    assert all(p.line is None for p in problems)
    assert all(isinstance(p.code, ProblemCode) for p in problems)


def test_check_frontmatter_refuses_a_non_mapping() -> None:
    assert found(check_frontmatter(["name"])) == [("error", "frontmatter_not_mapping", None)]
    assert check_frontmatter(None)[0].message == (
        "frontmatter must be a mapping of keys to values, not null"
    )


def test_dir_name_is_compared_in_nfkc() -> None:
    assert check_frontmatter({"name": "ｆｏｏ", "description": "d"}, dir_name="foo") == []
    assert found(check_frontmatter({"name": "foo", "description": "d"}, dir_name="bar")) == [
        ("error", "name_dir_mismatch", "name")
    ]


@pytest.mark.parametrize("name", ["café", "名前", "données-2"])
def test_unicode_names_pass_spec_and_warn_when_portable(name: str) -> None:
    data = {"name": name, "description": "d"}
    assert check_frontmatter(data, profile="spec") == []
    for profile in ("portable", "anthropic"):
        problems = check_frontmatter(data, profile=profile)  # type: ignore[arg-type]
        assert found(problems) == [("warning", "name_not_portable", "name")]
        assert problems[0].message == (
            f"name '{name}' holds characters outside a-z, 0-9 and '-'; MCP hosts and the "
            "TypeScript skills client accept only those"
        )


def test_portable_adds_nothing_to_a_name_that_already_fails() -> None:
    assert found(check_frontmatter({"name": "Café", "description": "d"}, profile="portable")) == [
        ("error", "name_uppercase", "name")
    ]


def test_portable_flags_a_name_valid_only_after_nfkc() -> None:
    # Full-width letters are 'foo' after NFKC (spec: fine) but hosts compare the raw text.
    problems = check_frontmatter({"name": "ｆｏｏ", "description": "d"}, profile="portable")
    assert found(problems) == [("warning", "name_not_portable", "name")]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"name": "claude-helper", "description": "d"}, [("error", "name_reserved", "name")]),
        ({"name": "my-anthropic", "description": "d"}, [("error", "name_reserved", "name")]),
        (
            {"name": "tags", "description": "Wraps <b>bold</b> text"},
            [("error", "description_angle_brackets", "description")],
        ),
        (
            {"name": "arrow", "description": "a -> b"},
            [("error", "description_angle_brackets", "description")],
        ),
        ({"name": "plain", "description": "Nothing to see."}, []),
    ],
)
def test_anthropic_upload_rules(data: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert found(check_frontmatter(data, profile="anthropic")) == expected
    assert check_frontmatter(data, profile="portable") == []
    assert check_frontmatter(data) == []


def test_reserved_word_message_names_the_word() -> None:
    (problem,) = check_frontmatter({"name": "claude-x", "description": "d"}, profile="anthropic")
    assert problem.message == "name 'claude-x' contains the reserved word 'claude'"


@pytest.mark.parametrize("profile", ["", "SPEC", "strict", None, 1])
def test_unknown_profile_is_invalid_input(profile: object) -> None:
    with pytest.raises(SkillError) as info:
        check_frontmatter({}, profile=profile)  # type: ignore[arg-type]
    assert info.value.code == "invalid_input"
    assert info.value.fields == {"profile": repr(profile), "choices": list(PROFILES)}


def test_validate_skill_takes_a_profile_and_adds_lines(tmp_path: Path) -> None:
    d = make_skill(
        tmp_path, "claude-café", raw="---\nname: claude-café\ndescription: <x>\n---\nB\n"
    )
    assert validate_skill(d) == []
    assert [(p.code.value, p.line) for p in validate_skill(d, profile="anthropic")] == [
        ("name_not_portable", 2),
        ("name_reserved", 2),
        ("description_angle_brackets", 3),
    ]
    with pytest.raises(SkillError) as info:
        validate_skill(d, profile="lax")  # type: ignore[arg-type]
    assert info.value.code == "invalid_input"


def test_validate_skill_refuses_a_non_path(tmp_path: Path) -> None:
    with pytest.raises(SkillError) as info:
        validate_skill(42)  # type: ignore[arg-type]
    assert (info.value.code, info.value.fields) == ("invalid_input", {"type": "int"})


def test_cli_validate_profile(tmp_path: Path) -> None:
    d = make_skill(tmp_path, "café", frontmatter={"name": "café", "description": "d"})
    runner = CliRunner()
    spec = runner.invoke(cli, ["validate", "--json", str(d)])
    assert spec.exit_code == 0
    assert json.loads(spec.stdout) == [{"path": str(d), "problems": []}]
    portable = runner.invoke(cli, ["validate", "--json", "--profile", "portable", str(d)])
    assert portable.exit_code == 0  # warnings alone pass
    (entry,) = json.loads(portable.stdout)
    assert [p["code"] for p in entry["problems"]] == ["name_not_portable"]
    strict = runner.invoke(
        cli, ["validate", "--profile", "portable", "--warnings-as-errors", str(d)]
    )
    assert strict.exit_code == 1
    bad = runner.invoke(cli, ["validate", "--profile", "nope", str(d)])
    assert bad.exit_code == 2


def test_mcp_publishes_what_validate_passes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The MCP publication rules are check_frontmatter's: a Unicode name validate passes is
    published; a skill validate fails is not, with the problem's code as the reason."""
    publish = pytest.importorskip("agent_skills.mcp._publish")
    root = tmp_path / "skills"
    make_skill(root, "café", frontmatter={"name": "café", "description": "Accented."})
    make_skill(root, "名前", frontmatter={"name": "名前", "description": "Japanese."})
    make_skill(root, "plain", frontmatter={"name": "plain", "description": "ASCII."})
    make_skill(root, "tools", raw="---\nname: tools\ndescription: d\nallowed-tools: 5\n---\nB\n")
    for d in ("café", "名前", "plain"):
        assert validate_skill(root / d) == []
    assert [p.code for p in validate_skill(root / "tools")] == ["allowed_tools_type"]
    skills = create_agent_skills([root])
    with caplog.at_level(logging.WARNING, logger="agent_skills"):
        catalog = publish.build_catalog(skills)
    assert [s.uri for s in catalog.skills] == [
        "skill://caf%C3%A9/SKILL.md",
        "skill://plain/SKILL.md",
        "skill://%E5%90%8D%E5%89%8D/SKILL.md",
    ]
    reasons = [r.getMessage() for r in caplog.records if "not published" in r.getMessage()]
    assert reasons == [
        "skill 'tools' is not published through the MCP Skills extension: allowed_tools_type: "
        "allowed-tools must be a space-separated string, not a number (line 4) (it stays "
        "available through the tools)"
    ]


_NAME_CHARS = st.characters(categories=("Ll", "Lo", "Nd"), include_characters="-")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(name="0", description="d", metadata={})
@example(name="0e0", description="d", metadata={})
@example(name="0", description="0E0", metadata={})
@given(
    name=st.text(_NAME_CHARS, min_size=1, max_size=20),
    # Printable text: YAML itself folds C0/C1 line breaks such as U+0085 when it round-trips.
    description=st.text(
        st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=0, max_size=40
    ),
    metadata=st.dictionaries(st.text(min_size=1, max_size=5), st.text(max_size=5), max_size=2),
)
def test_what_validate_accepts_the_loader_loads(
    name: str, description: str, metadata: dict[str, str]
) -> None:
    """SPEC §21.5: check_frontmatter (the validate rules) and the loader agree where they
    overlap: a frontmatter with no spec error loads under the same name."""
    data: dict[str, Any] = {"name": name, "description": description, "metadata": metadata}
    if any(p.severity == E for p in check_frontmatter(data)):
        return
    # Every scalar double-quoted: PyYAML's dumper resolves YAML 1.1, so it leaves strings such as
    # ``0e0`` plain, which the YAML 1.2 core schema of the loader reads as numbers.
    dumped = yaml.safe_dump(data, allow_unicode=True, default_style='"')
    text = "---\n" + dumped + "---\nBody\n"
    parsed = parse_skill(text, strict=True)
    assert parsed.frontmatter["name"] == name
    assert parsed.frontmatter["description"] == description.strip()


# The portability drift of 0.2: this skill passed `validate --profile portable` and was then not
# published. The server's rules are the portable profile's now, by the same function.
ANCHOR_EXAMPLE = (
    "---\nname: demo\ndescription: &d A demo skill that shows anchors.\nmetadata:\n"
    "  summary: *d\n---\nBody.\n"
)


def test_the_anchor_example_fails_the_portable_profile_and_is_not_published(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("mcp")
    from agent_skills.mcp import SkillServer

    skill = make_skill(tmp_path / "skills", "demo", raw=ANCHOR_EXAMPLE)
    result = CliRunner().invoke(cli, ["validate", "--json", "--profile", "portable", str(skill)])
    assert result.exit_code == 1
    (entry,) = json.loads(result.stdout)
    assert entry["problems"] == [
        {
            "severity": "error",
            "code": "yaml_subset",
            "message": "anchors and aliases are not accepted",
            "field": None,
            "line": 3,
        }
    ]
    assert validate_skill(skill) == []  # the specification itself allows anchors
    server = SkillServer(create_agent_skills([tmp_path / "skills"]))
    assert server.published() == []
    [diag] = server.diagnostics
    assert diag.message == (
        "skill 'demo' is not published through the MCP Skills extension: yaml_subset: anchors "
        "and aliases are not accepted (line 3) (it stays available through the tools)"
    )


def test_the_server_publishes_exactly_what_validate_portable_passes(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from agent_skills.mcp import SkillServer

    root = tmp_path / "skills"
    make_skill(root, "plain", files={"references/a.md": "a"})
    make_skill(root, "café", frontmatter={"name": "café", "description": "A warning only."})
    make_skill(root, "anchors", raw=ANCHOR_EXAMPLE.replace("demo", "anchors"))
    make_skill(root, "bom", raw=b"\xef\xbb\xbf---\nname: bom\ndescription: d\n---\n")
    make_skill(root, "lower", manifest="skill.md")
    make_skill(root, "other-dir", frontmatter={"name": "renamed", "description": "d"})
    make_skill(root, "clash", files={"r/A.md": "1", "r/a.md": "2"})
    make_skill(root, "tabs", raw="---\nname: tabs\ndescription: d\nextra: [{a: b}]\n---\n")
    make_skill(root, "inf", raw="---\nname: inf\ndescription: d\nweight: .nan\n---\n")
    passing = {
        d.name
        for d in sorted(root.iterdir())
        if not has_errors(validate_skill(d, profile="portable"))
    }
    assert passing == {"plain", "café"}
    published = SkillServer(create_agent_skills([root])).published()
    assert sorted(published) == sorted(passing)


@pytest.mark.parametrize(
    "bomb",
    [
        'big: &a "' + "x" * 60_000 + '"\nlist: [' + ", ".join(["*a"] * 40) + "]\n",
        "a: &a "
        + "y" * 20_000
        + "\nb: &b ["
        + ", ".join(["*a"] * 10)
        + "]\nc: ["
        + ", ".join(["*b"] * 12)
        + "]\n",
        "m: &m {k: "
        + "z" * 30_000
        + "}\nitems:\n"
        + "".join(f"  - {{<<: *m, n: {i}}}\n" for i in range(80)),
    ],
    ids=["wide-scalar", "nested-lists", "merged-mappings"],
)
def test_an_alias_bomb_is_refused_by_show_json_validate_and_every_profile(
    tmp_path: Path, bomb: str
) -> None:
    root = tmp_path / "root"
    make_skill(root, "bomb", raw=f"---\nname: bomb\ndescription: d\n{bomb}---\nbody\n".encode())
    for profile in ("spec", "portable", "anthropic"):
        problems = validate_skill(root / "bomb", profile=profile)  # type: ignore[arg-type]
        assert [(p.code.value, p.severity.value) for p in problems] == [("yaml_error", "error")]
        assert "characters beyond its text through aliases" in problems[0].message
    result = CliRunner().invoke(
        cli, ["show", "bomb", "--json", "--preset", "none", "--root", str(root)]
    )
    answer = json.loads(result.output)
    assert answer["error"]["code"] == "not_found"
    assert [w["code"] for w in answer["warnings"]] == ["invalid_skill"]
    assert "through aliases" in answer["warnings"][0]["message"]
    assert len(result.output) < 10_000
    skills = create_agent_skills([root])
    assert skills.list_skills() == []
    assert [d.kind.value for d in skills.diagnostics] == ["invalid_skill"]
