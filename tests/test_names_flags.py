"""SPEC §21.5-§21.7: loadable names (Unicode, NFKC), a missing name, and fail-closed flags.

These tests pin every accepted and rejected spelling and the exact diagnostics, so that any other
implementation of the frontmatter check (the hot path of SPEC §26) keeps the same rules.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import ErrorCode, SkillError, create_agent_skills, parse_skill
from agent_skills._schema import (
    BAD_NAME_CASE,
    BAD_NAME_CHARS,
    DOTS_NAME,
    EMPTY_NAME,
    coerce_flag,
    name_problem,
)
from agent_skills.catalog import (
    render_available_skills_xml,
    render_catalog_json,
    render_skill_catalog,
)
from agent_skills.validate import validate_skill
from conftest import make_skill

WHERE = "/r/my-skill/SKILL.md"


def manifest(**keys: Any) -> str:
    body = yaml.safe_dump(keys, sort_keys=False, allow_unicode=True) if keys else ""
    return "---\n" + body + "---\nBody.\n"


def raw_manifest(lines: str) -> str:
    return "---\n" + lines + "---\nBody.\n"


# --- §21.5 names --------------------------------------------------------------------------------

ACCEPTED_NAMES = [
    "a",
    "pdf-tools",
    "A.b_c-1",  # what §6 accepted: ASCII upper case, '.', '_'
    "MyTool",
    ".hidden",
    "a..b",
    "-x",
    "_",
    "1",
    "007",
    "café",  # Unicode lower-case letters (Agent Skills specification)
    "naïve-2",
    "名前",  # letters without case
    "данные",
    "ß",
    "Café",  # an ASCII upper-case letter next to a Unicode lower-case one
    "\uff46\uff4f\uff4f",  # full-width "foo": NFKC gives "foo"
    "cafe\u0301",  # decomposed é: NFKC composes it
    "x\u00b2",  # superscript two: NFKC gives "x2"
]


@pytest.mark.parametrize("name", ACCEPTED_NAMES)
def test_accepted_names_load_as_written(name: str) -> None:
    assert name_problem(name) is None
    for strict in (False, True):
        parsed = parse_skill(manifest(name=name, description="D."), strict=strict)
        assert parsed.model.name == name
        assert parsed.frontmatter["name"] == name
        assert parsed.diagnostics == ()


REJECTED_NAMES = [
    ("", EMPTY_NAME),
    ("   ", EMPTY_NAME),
    (".", DOTS_NAME),
    ("..", DOTS_NAME),
    ("...", DOTS_NAME),
    ("\u2024\u2024", DOTS_NAME),  # one-dot leaders: NFKC gives ".."
    ("a/b", BAD_NAME_CHARS),
    ("a\\b", BAD_NAME_CHARS),
    ("a:b", BAD_NAME_CHARS),
    ("stitch::react", BAD_NAME_CHARS),
    ("a b", BAD_NAME_CHARS),
    ("a\tb", BAD_NAME_CHARS),
    ("a\u00a0b", BAD_NAME_CHARS),  # no-break space: NFKC gives a space
    ("a\u3000b", BAD_NAME_CHARS),  # ideographic space
    ("a\x00b", BAD_NAME_CHARS),
    ("a\x07b", BAD_NAME_CHARS),
    ("a\u200bb", BAD_NAME_CHARS),  # zero-width space
    ("a\u202eb", BAD_NAME_CHARS),  # right-to-left override
    ("a\uff0fb", BAD_NAME_CHARS),  # full-width solidus: NFKC gives "/"
    ("a\u2215b", BAD_NAME_CHARS),  # division slash
    ("a\ufe55b", BAD_NAME_CHARS),  # small colon: NFKC gives ":"
    ("a@b", BAD_NAME_CHARS),
    ("a+b", BAD_NAME_CHARS),
    ("a'b", BAD_NAME_CHARS),
    ("😀", BAD_NAME_CHARS),
    ("É", BAD_NAME_CASE),
    ("cafÉ", BAD_NAME_CASE),
    ("Ωmega", BAD_NAME_CASE),
    ("\u1f88", BAD_NAME_CASE),  # a title-case letter NFKC keeps
]


@pytest.mark.parametrize(("name", "message"), REJECTED_NAMES)
def test_rejected_names_are_invalid_skill(name: str, message: str) -> None:
    assert name_problem(name) == message
    for strict in (False, True):
        with pytest.raises(SkillError) as info:
            parse_skill(manifest(name=name, description="D."), strict=strict, path=WHERE)
        assert info.value.code == ErrorCode.INVALID_SKILL
        assert info.value.fields == {"path": WHERE, "at": "name"}
        assert info.value.message == f"invalid frontmatter 'name': {message}"


def test_name_messages_are_pinned() -> None:
    assert EMPTY_NAME == "name is required"
    assert DOTS_NAME == "name must not consist only of dots"
    assert BAD_NAME_CHARS == "name must only contain letters, digits, '.', '_' and '-'"
    assert BAD_NAME_CASE == "name must not hold upper-case letters outside ASCII"


def test_names_are_trimmed_before_the_check() -> None:
    parsed = parse_skill(raw_manifest("name: '  café  '\ndescription: D.\n"))
    assert parsed.model.name == "café"


def _spec_name_chars() -> st.SearchStrategy[str]:
    """Characters the Agent Skills specification allows: lower-case letters, digits, '-'."""
    return st.characters(
        categories=("Ll", "Lo", "Lm", "Nd", "Nl", "No"), exclude_characters="\x00"
    ) | st.just("-")


@settings(max_examples=300, deadline=None)
@given(st.text(_spec_name_chars(), min_size=1, max_size=20))
def test_whatever_validate_accepts_the_loader_loads(name: str) -> None:
    """§21.5: every name ``validate`` accepts loads; checked on the validator's own rule."""
    from agent_skills.validate import check_frontmatter

    problems = check_frontmatter({"name": name, "description": "d"})
    if not [p for p in problems if p.severity == "error"]:
        assert name_problem(name) is None


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_accepted_names_never_hold_path_or_space_characters(name: str) -> None:
    if name_problem(name) is None:
        normal = unicodedata.normalize("NFKC", name.strip())
        assert not any(c in "/\\:" or c.isspace() or not c.isprintable() for c in normal)
        assert normal.strip(".")


# --- Unicode names through discovery, validate and the catalog ----------------------------------


@pytest.mark.parametrize("name", ["café", "名前", "данные-2", "naïve"])
def test_unicode_name_round_trips(tmp_path: Path, name: str) -> None:
    root = tmp_path / "skills"
    skill_dir = make_skill(root, name, frontmatter={"name": name, "description": "Unicode."})
    assert [p for p in validate_skill(skill_dir) if p.severity == "error"] == []
    skills = create_agent_skills([root])
    assert [s.name for s in skills.list_skills()] == [name]
    assert skills.diagnostics == ()
    assert name in skills
    content = skills.load_skill(name)
    assert content is not None and content.name == name and content.body == "Instructions."
    assert [e.name for e in skills.report().entries] == [name]
    assert f"<name>{name}</name>" in render_available_skills_xml(skills.list_skills())
    assert f"- **{name}** — Unicode." in render_skill_catalog(skills.list_skills())
    assert [i["name"] for i in json.loads(render_catalog_json(skills.list_skills()))] == [name]


def test_name_mismatch_compares_nfkc_forms(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    # The directory is written decomposed (as macOS stores names), the name composed.
    make_skill(root, "cafe\u0301", frontmatter={"name": "caf\u00e9", "description": "D."})
    make_skill(root, "other", frontmatter={"name": "caf\u00e9-2", "description": "D."})
    skills = create_agent_skills([root])
    assert [s.name for s in skills.list_skills()] == ["caf\u00e9", "caf\u00e9-2"]
    assert [(d.kind.value, d.path) for d in skills.diagnostics] == [
        ("name_mismatch", root / "other" / "SKILL.md")
    ]


# --- §21.6 a missing name -----------------------------------------------------------------------


def test_missing_name_uses_the_directory_name() -> None:
    parsed = parse_skill(manifest(description="D."), path=WHERE)
    assert parsed.model.name == "my-skill"
    assert parsed.frontmatter == {"description": "D.", "name": "my-skill"}
    [diag] = parsed.diagnostics
    assert (diag.kind.value, diag.severity, diag.path) == ("name_missing", "warning", Path(WHERE))
    assert diag.message == (
        "missing frontmatter key 'name' in /r/my-skill/SKILL.md: "
        "using the directory name 'my-skill'"
    )


def test_missing_name_in_discovery(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "Notes.v2", raw=manifest(description="Notes."))
    make_skill(root, "no name here", raw=manifest(description="Unusable directory name."))
    skills = create_agent_skills([root])
    (info,) = skills.list_skills()
    assert (info.name, info.description, info.metadata["name"]) == (
        "Notes.v2",
        "Notes.",
        "Notes.v2",
    )
    manifest_path = root / "Notes.v2" / "SKILL.md"
    assert [(d.kind.value, d.severity, d.path) for d in skills.diagnostics] == [
        ("invalid_skill", "warning", root / "no name here" / "SKILL.md"),
        ("name_missing", "warning", manifest_path),
    ]
    entries = {e.path.name: (e.status.value, e.name, e.reason) for e in skills.report().entries}
    assert entries == {
        "Notes.v2": ("loaded", "Notes.v2", ""),
        "no name here": ("invalid", None, "invalid frontmatter 'name': required key is missing"),
    }


@pytest.mark.parametrize("dir_name", ["a b", "...", "a:b", "É"])
def test_missing_name_with_an_unusable_directory_name_stays_invalid(dir_name: str) -> None:
    with pytest.raises(SkillError) as info:
        parse_skill(manifest(description="D."), path=f"/r/{dir_name}/SKILL.md")
    assert info.value.fields == {"path": f"/r/{dir_name}/SKILL.md", "at": "name"}
    assert info.value.message == "invalid frontmatter 'name': required key is missing"


def test_missing_name_strict_and_without_a_path_stay_invalid() -> None:
    with pytest.raises(SkillError) as info:
        parse_skill(manifest(description="D."), strict=True, path=WHERE)
    assert info.value.fields == {"path": WHERE, "at": "name"}
    with pytest.raises(SkillError) as info:
        parse_skill(manifest(description="D."))
    assert info.value.fields == {"at": "name"}
    with pytest.raises(SkillError):
        parse_skill(manifest(description="D."), path="SKILL.md")  # no directory name


@pytest.mark.parametrize("lines", ["name:\n", "name: null\n", "name: ''\n", "name: 3\n"])
def test_a_present_but_unusable_name_is_not_missing(lines: str) -> None:
    with pytest.raises(SkillError) as info:
        parse_skill(raw_manifest(lines + "description: D.\n"), path=WHERE)
    assert info.value.fields["at"] == "name"


def test_missing_name_strict_discovery_raises(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "x", raw=manifest(description="D."))
    with pytest.raises(SkillError) as info:
        create_agent_skills([root], strict=True)
    assert info.value.code == ErrorCode.INVALID_SKILL
    assert info.value.fields["at"] == "name"


# --- §21.7 flags --------------------------------------------------------------------------------

TRUE_SPELLINGS = ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "'1'", "1"]
FALSE_SPELLINGS = ["false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "'0'", "0"]
QUOTED = ["'yes'", '"No"', "'TRUE'", "'off'", "'tRuE'", "'oN'"]


def _flags(text: str, strict: bool = False) -> tuple[bool, bool, list[str]]:
    """(user_invocable, model_invocable, diagnostic messages) of a skill at WHERE."""
    parsed = parse_skill(raw_manifest("name: my-skill\ndescription: D.\n" + text), strict=strict)
    model = parsed.model
    user = model.user_invocable is not False
    model_inv = model.disable_model_invocation is not True
    return user, model_inv, [d.message for d in parsed.diagnostics]


@pytest.mark.parametrize("spelling", [*TRUE_SPELLINGS, "'yes'", "'TRUE'", "'oN'"])
def test_true_spellings_are_read_without_a_diagnostic(spelling: str) -> None:
    assert _flags(f"disable-model-invocation: {spelling}\n") == (True, False, [])
    assert _flags(f"user-invocable: {spelling}\n") == (True, True, [])


@pytest.mark.parametrize("spelling", [*FALSE_SPELLINGS, '"No"', "'off'"])
def test_false_spellings_are_read_without_a_diagnostic(spelling: str) -> None:
    assert _flags(f"disable-model-invocation: {spelling}\n") == (True, True, [])
    assert _flags(f"user-invocable: {spelling}\n") == (False, True, [])


@pytest.mark.parametrize(
    ("spelling", "kind"),
    [
        ("maybe", "a string"),
        ("'yes '", "a string"),  # no trimming of quoted spellings
        ("'y'", "a string"),
        ("'n'", "a string"),
        ("'enabled'", "a string"),
        ("''", "a string"),
        ("2", "a number"),
        ("-1", "a number"),
        ("1.0", "a number"),
        ("0.0", "a number"),
        ("null", "null"),
        ("~", "null"),
        ("''", "a string"),
        ("[true]", "a list"),
        ("{a: 1}", "a mapping"),
    ],
)
def test_other_values_fail_closed_with_invalid_field(spelling: str, kind: str) -> None:
    user, model_inv, messages = _flags(f"disable-model-invocation: {spelling}\n")
    assert (user, model_inv) == (True, False)
    assert messages == [
        "invalid frontmatter key 'disable-model-invocation' in manifest: expected a boolean "
        f"(true/false, yes/no, on/off, 1/0), got {kind}; the skill is treated as not "
        "model-invocable"
    ]
    user, model_inv, messages = _flags(f"user-invocable: {spelling}\n")
    assert (user, model_inv) == (False, True)
    assert messages == [
        "invalid frontmatter key 'user-invocable' in manifest: expected a boolean "
        f"(true/false, yes/no, on/off, 1/0), got {kind}; the skill is treated as not "
        "user-invocable"
    ]


def test_empty_flag_value_is_null_and_fails_closed() -> None:
    user, model_inv, messages = _flags("disable-model-invocation:\nuser-invocable:\n")
    assert (user, model_inv) == (False, False)
    assert len(messages) == 2
    assert "'user-invocable'" in messages[0]  # table order: user-invocable first
    assert "'disable-model-invocation'" in messages[1]


@pytest.mark.parametrize("spelling", ["yes", "'true'", "1", "0", "off", "maybe", "null", "2"])
@pytest.mark.parametrize("key", ["user-invocable", "disable-model-invocation"])
def test_strict_mode_rejects_every_non_boolean(key: str, spelling: str) -> None:
    with pytest.raises(SkillError) as info:
        parse_skill(raw_manifest(f"name: a\ndescription: D.\n{key}: {spelling}\n"), strict=True)
    assert info.value.code == ErrorCode.INVALID_SKILL
    assert info.value.fields == {"at": key}


@pytest.mark.parametrize("spelling", ["true", "false"])
def test_strict_mode_accepts_booleans(spelling: str) -> None:
    text = (
        f"name: a\ndescription: D.\nuser-invocable: {spelling}\n"
        f"disable-model-invocation: {spelling}\n"
    )
    model = parse_skill(raw_manifest(text), strict=True).model
    assert model.user_invocable is (spelling == "true")
    assert model.disable_model_invocation is (spelling == "true")


def test_flags_raw_values_stay_in_metadata(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(
        root,
        "s",
        raw=raw_manifest(
            "name: s\ndescription: D.\ndisable-model-invocation: yes\nuser-invocable: maybe\n"
        ),
    )
    skills = create_agent_skills([root])
    (info,) = skills.list_skills()
    assert (info.model_invocable, info.user_invocable) == (False, False)
    assert info.metadata["disable-model-invocation"] == "yes"
    assert info.metadata["user-invocable"] == "maybe"
    assert [(d.kind.value, d.severity) for d in skills.diagnostics] == [
        ("invalid_field", "warning")
    ]
    assert skills.diagnostics[0].message == (
        f"invalid frontmatter key 'user-invocable' in {root / 's' / 'SKILL.md'}: expected a "
        "boolean (true/false, yes/no, on/off, 1/0), got a string; the skill is treated as not "
        "user-invocable"
    )


def test_flag_notes_sit_in_table_order_among_other_keys() -> None:
    text = "version: 1\ndisable-model-invocation: what\nuser-invocable: 5\nmetadata: x\n"
    _, _, messages = _flags(text)
    assert [m.split("'")[1] for m in messages] == [
        "version",
        "user-invocable",
        "disable-model-invocation",
        "metadata",
    ]
    assert messages[0].startswith("ignoring invalid frontmatter key 'version' in manifest: ")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (False, False),
        (1, True),
        (0, False),
        ("YeS", True),
        ("oFF", False),
        ("1", True),
        ("0", False),
        (2, None),
        (1.0, None),
        (None, None),
        ("", None),
        (" yes", None),
        ([], None),
    ],
)
def test_coerce_flag(value: object, expected: bool | None) -> None:
    assert coerce_flag(value) is expected
