"""Tests for agent_skills.validate (SPEC §15): every rule, with exact codes, fields and lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_skills.validate import Problem, Severity, has_errors, validate_skill
from conftest import make_skill

E, W = Severity.ERROR, Severity.WARNING


def write(root: Path, dirname: str, text: str, **kw: object) -> Path:
    """A skill whose manifest is exactly ``text``."""
    return make_skill(root, dirname, raw=text, **kw)  # type: ignore[arg-type]


def codes(problems: list[Problem]) -> list[tuple[str, str, str | None, int | None]]:
    return [(p.severity.value, p.code, p.field, p.line) for p in problems]


def fm(name: str = "demo", extra: str = "", body: str = "Body.\n") -> str:
    return f"---\nname: {name}\ndescription: Does things.\n{extra}---\n{body}"


def test_clean_skill_has_no_problems(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", fm(extra="license: MIT\ncompatibility: Needs git\n"))
    assert validate_skill(d) == []
    assert has_errors([]) is False


def test_problem_is_frozen_and_serialises(tmp_path: Path) -> None:
    p = Problem(E, "name_empty", "name must not be empty", "name", 2)
    with pytest.raises(AttributeError):
        p.code = "x"  # type: ignore[misc]
    assert p.to_dict() == {
        "severity": "error",
        "code": "name_empty",
        "message": "name must not be empty",
        "field": "name",
        "line": 2,
    }
    assert Severity.ERROR == "error"
    assert has_errors([p]) is True
    assert has_errors([Problem(W, "unknown_key", "x")]) is False


# --- path and manifest ----------------------------------------------------------------------


def test_missing_path(tmp_path: Path) -> None:
    assert codes(validate_skill(tmp_path / "nope")) == [("error", "path_not_found", None, None)]


def test_path_is_a_file(tmp_path: Path) -> None:
    f = tmp_path / "f.md"
    f.write_text("x")
    assert codes(validate_skill(f)) == [("error", "not_a_directory", None, None)]


def test_no_manifest(tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()
    assert codes(validate_skill(tmp_path / "demo")) == [("error", "manifest_missing", None, None)]


def test_manifest_case_is_a_warning(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", fm(), manifest="skill.md")
    assert codes(validate_skill(d)) == [("warning", "manifest_case", None, None)]


def test_exact_manifest_wins_over_variant(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", fm())
    (d / "skill.MD").write_text("garbage")
    assert validate_skill(d) == []


def test_invalid_utf8_is_an_error_with_line(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", b"---\nname: demo\ndescription: caf\xe9\n---\n")
    assert codes(validate_skill(d)) == [("error", "invalid_encoding", None, 3)]


def test_bom_is_a_warning(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "\ufeff" + fm())
    assert codes(validate_skill(d)) == [("warning", "manifest_bom", None, None)]


def test_crlf_is_fine(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", fm().replace("\n", "\r\n"))
    assert validate_skill(d) == []


# --- frontmatter structure ------------------------------------------------------------------


def test_no_frontmatter(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "# Title\n")
    assert codes(validate_skill(d)) == [("error", "frontmatter_missing", None, 1)]


def test_unterminated_frontmatter(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "\n---\nname: demo\n")
    assert codes(validate_skill(d)) == [("error", "frontmatter_unterminated", None, 2)]


def test_yaml_error_has_line_and_no_repair(tmp_path: Path) -> None:
    # Discovery repairs the unquoted ': '; validation must not.
    d = write(tmp_path, "demo", "---\nname: demo\ndescription: Use when: x\n---\n")
    assert codes(validate_skill(d)) == [("error", "yaml_error", None, 3)]


def test_duplicate_key_is_a_yaml_error(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "---\nname: demo\nname: demo\ndescription: d\n---\n")
    assert codes(validate_skill(d)) == [("error", "yaml_error", None, 3)]


def test_frontmatter_not_mapping(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "---\n- a\n- b\n---\n")
    assert codes(validate_skill(d)) == [("error", "frontmatter_not_mapping", None, 2)]


def test_empty_frontmatter_misses_both_required_keys(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "---\n---\nBody\n")
    assert codes(validate_skill(d)) == [
        ("error", "name_missing", "name", None),
        ("error", "description_missing", "description", None),
    ]


# --- name -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dirname", "name", "expected"),
    [
        ("x", "123", [("error", "name_type", "name", 2)]),
        ("x", "''", [("error", "name_empty", "name", 2)]),
        ("Demo", "Demo", [("error", "name_uppercase", "name", 2)]),
        ("a_b", "a_b", [("error", "name_invalid_chars", "name", 2)]),
        ("a.b", "a.b", [("error", "name_invalid_chars", "name", 2)]),
        ("-ab", "-ab", [("error", "name_hyphen_edge", "name", 2)]),
        ("ab-", "ab-", [("error", "name_hyphen_edge", "name", 2)]),
        ("a--b", "a--b", [("error", "name_double_hyphen", "name", 2)]),
        ("other", "demo", [("error", "name_dir_mismatch", "name", 2)]),
        ("a" * 65, "a" * 65, [("error", "name_too_long", "name", 2)]),
    ],
)
def test_name_rules(tmp_path: Path, dirname: str, name: str, expected: list[object]) -> None:
    d = write(tmp_path, dirname, fm(name=name))
    assert codes(validate_skill(d)) == expected


def test_name_at_limit_and_unicode_lowercase_pass(tmp_path: Path) -> None:
    assert validate_skill(write(tmp_path, "a" * 64, fm(name="a" * 64))) == []
    assert validate_skill(write(tmp_path, "café-2", fm(name="café-2"))) == []
    assert validate_skill(write(tmp_path, "技能", fm(name="技能"))) == []


def test_name_uppercase_unicode(tmp_path: Path) -> None:
    d = write(tmp_path, "Ωmega", fm(name="Ωmega"))
    assert codes(validate_skill(d)) == [("error", "name_uppercase", "name", 2)]


def test_name_and_directory_compared_after_nfkc(tmp_path: Path) -> None:
    # Decomposed e + combining acute in the directory, composed é in the name.
    d = write(tmp_path, "cafe\u0301", fm(name="caf\u00e9"))
    assert validate_skill(d) == []
    # The fullwidth digit normalises to 1 under NFKC.
    d2 = write(tmp_path, "v1", fm(name="v\uff11"))
    assert validate_skill(d2) == []


def test_name_with_several_faults_reports_each(tmp_path: Path) -> None:
    d = write(tmp_path, "x", fm(name="-Bad_"))
    assert [p.code for p in validate_skill(d)] == [
        "name_uppercase",
        "name_invalid_chars",
        "name_hyphen_edge",
        "name_dir_mismatch",
    ]


def test_dot_directory_uses_real_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = write(tmp_path, "demo", fm())
    monkeypatch.chdir(d)
    assert validate_skill(".") == []


# --- description, compatibility, license ----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("description: 42", [("error", "description_type", "description", 3)]),
        ("description:", [("error", "description_type", "description", 3)]),
        ('description: "   "', [("error", "description_empty", "description", 3)]),
        ("description: " + "d" * 1025, [("error", "description_too_long", "description", 3)]),
        ("description: " + "d" * 1024, []),
        ('description: "  ' + "d" * 1024 + '  "', []),
    ],
)
def test_description_rules(tmp_path: Path, line: str, expected: list[object]) -> None:
    d = write(tmp_path, "demo", f"---\nname: demo\n{line}\n---\n")
    assert codes(validate_skill(d)) == expected


def test_description_missing(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "---\nname: demo\n---\n")
    assert codes(validate_skill(d)) == [("error", "description_missing", "description", None)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("compatibility: [a]", [("error", "compatibility_type", "compatibility", 4)]),
        ("compatibility:", [("error", "compatibility_type", "compatibility", 4)]),
        ("compatibility: ''", [("error", "compatibility_empty", "compatibility", 4)]),
        ("compatibility: " + "c" * 501, [("error", "compatibility_too_long", "compatibility", 4)]),
        ("compatibility: " + "c" * 500, []),
        ("license: 2", [("error", "license_type", "license", 4)]),
        ("license: Apache-2.0", []),
    ],
)
def test_optional_text_rules(tmp_path: Path, line: str, expected: list[object]) -> None:
    d = write(tmp_path, "demo", fm(extra=line + "\n"))
    assert codes(validate_skill(d)) == expected


# --- metadata and allowed-tools -------------------------------------------------------------


def test_metadata_must_be_a_mapping(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", fm(extra="metadata: [a, b]\n"))
    assert codes(validate_skill(d)) == [("error", "metadata_type", "metadata", 4)]


def test_metadata_values_must_be_strings(tmp_path: Path) -> None:
    extra = "metadata:\n  author: me\n  version: 1.0\n  'tags':\n    - a\n  ok: 'yes'\n"
    d = write(tmp_path, "demo", fm(extra=extra))
    problems = validate_skill(d)
    assert codes(problems) == [
        ("error", "metadata_value_type", "metadata.version", 6),
        ("error", "metadata_value_type", "metadata.tags", 7),
    ]
    assert (
        problems[0].message == "metadata value 'version' must be a string, not a number (quote it)"
    )
    assert problems[1].message == "metadata value 'tags' must be a string, not a list"


def test_metadata_flow_mapping_value_falls_back_to_metadata_line(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", fm(extra="metadata: {n: 1}\n"))
    assert codes(validate_skill(d)) == [("error", "metadata_value_type", "metadata.n", 4)]


def test_allowed_tools_string_is_fine(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", fm(extra="allowed-tools: Bash(git:*) Read\n"))
    assert validate_skill(d) == []


def test_allowed_tools_list_is_a_warning(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", fm(extra="allowed-tools:\n  - Read\n  - Grep\n"))
    assert codes(validate_skill(d)) == [("warning", "allowed_tools_list", "allowed-tools", 4)]


@pytest.mark.parametrize("value", ["3", "[Read, 3]", "{a: b}", ""])
def test_allowed_tools_bad_type(tmp_path: Path, value: str) -> None:
    d = write(tmp_path, "demo", fm(extra=f"allowed-tools: {value}\n"))
    assert codes(validate_skill(d)) == [("error", "allowed_tools_type", "allowed-tools", 4)]


def test_unknown_keys_are_warnings_in_file_order(tmp_path: Path) -> None:
    extra = "version: '1'\n\"user-invocable\": false\nlicense: MIT\n"
    d = write(tmp_path, "demo", fm(extra=extra))
    assert codes(validate_skill(d)) == [
        ("warning", "unknown_key", "version", 4),
        ("warning", "unknown_key", "user-invocable", 5),
    ]


def test_frontmatter_problems_in_key_order(tmp_path: Path) -> None:
    text = (
        "---\nzzz: 1\nallowed-tools: 5\nmetadata: x\ncompatibility: ''\nlicense: 1\n"
        "description: ''\nname: Demo\n---\n"
    )
    d = write(tmp_path, "demo", text)
    assert codes(validate_skill(d)) == [
        ("error", "name_uppercase", "name", 8),
        ("error", "name_dir_mismatch", "name", 8),
        ("error", "description_empty", "description", 7),
        ("error", "license_type", "license", 6),
        ("error", "compatibility_empty", "compatibility", 5),
        ("error", "metadata_type", "metadata", 4),
        ("error", "allowed_tools_type", "allowed-tools", 3),
        ("warning", "unknown_key", "zzz", 2),
    ]


# --- body -----------------------------------------------------------------------------------


def test_body_over_500_lines(tmp_path: Path) -> None:
    body = "\n" + "".join(f"line {i}\n" for i in range(1, 502)) + "\n\n"
    d = write(tmp_path, "demo", fm(body=body))
    # Fence at line 4, one blank line, then body line 1 at file line 6: line 501 is file line 506.
    assert codes(validate_skill(d)) == [("warning", "body_too_long", None, 506)]


def test_body_of_500_lines_passes(tmp_path: Path) -> None:
    body = "".join(f"line {i}\n" for i in range(500)) + "\n\n\n"
    assert validate_skill(write(tmp_path, "demo", fm(body=body))) == []


def test_references_checked_with_lines(tmp_path: Path) -> None:
    body = (
        "# Demo\n"  # line 5
        "See [guide](references/guide.md) and [gone](references/gone.md#part).\n"  # 6
        '![logo](assets/logo%20big.png) ![missing](assets/none.png "title")\n'  # 7
        "Run `python scripts/run.py --x` then scripts/missing.sh.\n"  # 8
        "Web [x](https://example.com/a.md), [top](#top), [mail](mailto:a@b.c), [abs](/etc/x)\n"  # 9
        "Outside [up](../other/SKILL.md) and [deep](references/../../x.md).\n"  # 10
        "Placeholders: scripts/*.py, references/<topic>.md, [t]({baseDir}/references/x.md)\n"  # 11
        "Nested skills/foo/scripts/x.py and https://h/scripts/y.py are not ours.\n"  # 12
        "Directory [refs](references/) and scripts/run.py:15 are fine.\n"  # 13
    )
    d = write(
        tmp_path,
        "demo",
        fm(body=body),
        files={
            "references/guide.md": "g",
            "assets/logo big.png": "p",
            "scripts/run.py": "r",
        },
    )
    assert [(p.code, p.line, p.message) for p in validate_skill(d)] == [
        ("broken_reference", 6, "link 'references/gone.md' does not exist in the skill"),
        ("broken_reference", 7, "link 'assets/none.png' does not exist in the skill"),
        ("broken_reference", 8, "path 'scripts/missing.sh' does not exist in the skill"),
        (
            "reference_escape",
            10,
            "link '../other/SKILL.md' leads outside the skill directory; hosts serve only the "
            "skill's own files",
        ),
        (
            "reference_escape",
            10,
            "link 'references/../../x.md' leads outside the skill directory; hosts serve only the "
            "skill's own files",
        ),
    ]
    assert all(p.severity == W and p.field is None for p in validate_skill(d))


def test_links_in_code_blocks_are_examples_but_paths_count(tmp_path: Path) -> None:
    body = "```md\n[example](nowhere.md)\npython scripts/gone.py\n```\n[real](nowhere.md)\n"
    d = write(tmp_path, "demo", fm(body=body))
    assert [(p.code, p.line) for p in validate_skill(d)] == [
        ("broken_reference", 7),
        ("broken_reference", 9),
    ]


def test_symlink_reference_leaving_the_skill_escapes(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("o")
    d = write(tmp_path / "root", "demo", fm(body="[x](references/link.md)\n"))
    (d / "references").mkdir()
    os.symlink(outside, d / "references" / "link.md")
    assert [(p.code, p.line) for p in validate_skill(d)] == [("reference_escape", 5)]


def test_references_checked_even_when_yaml_fails(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "---\nname: [\n---\n[x](gone.md)\n")
    assert codes(validate_skill(d)) == [
        ("error", "yaml_error", None, 3),
        ("warning", "broken_reference", None, 4),
    ]


def test_every_problem_in_one_run_past_a_yaml_error(tmp_path: Path) -> None:
    """Issue friction: the YAML error with its line and column, and the rest checked on what
    discovery's lenient repair reads, instead of four more problems after the first fix."""
    d = write(
        tmp_path,
        "demo",
        "---\nname: Bad_Name\ndescription: Use when: x happens\ncompatibility: 3\nfoo: bar\n---\n"
        "See [x](references/missing.md)\n",
    )
    problems = validate_skill(d)
    assert codes(problems) == [
        ("error", "yaml_error", None, 3),
        ("error", "name_uppercase", "name", 2),
        ("error", "name_invalid_chars", "name", 2),
        ("error", "name_dir_mismatch", "name", 2),
        ("error", "compatibility_type", "compatibility", 4),
        ("warning", "unknown_key", "foo", 5),
        ("warning", "broken_reference", None, 7),
    ]
    assert problems[0].message == (
        "invalid YAML frontmatter: mapping values are not allowed in this context, at column 22"
    )
    # Fixed as the repair reads it, only the YAML error goes away.
    fixed = write(
        tmp_path,
        "demo2",
        '---\nname: Bad_Name\ndescription: "Use when: x happens"\ncompatibility: 3\nfoo: bar\n'
        "---\nSee [x](references/missing.md)\n",
    )
    assert [p.code for p in validate_skill(fixed)] == [p.code for p in problems[1:]]


def test_a_yaml_error_the_repair_cannot_read_checks_no_frontmatter_key(tmp_path: Path) -> None:
    d = write(tmp_path, "demo", "---\nname: demo\nlicense: [unclosed\n---\n")
    [problem] = validate_skill(d)
    assert (problem.code, problem.line) == ("yaml_error", 4)
    assert ", at column " in problem.message


@pytest.mark.parametrize("profile", ["spec", "portable"])
def test_files_no_resource_path_names_are_warned_of(tmp_path: Path, profile: str) -> None:
    # A Windows archive unpacked with its backslashes kept: `references\guide.md` is one file
    # name at the top, never listed or served (SPEC §9). The author hears of it; what is hidden,
    # skipped or listed is not named.
    skill = make_skill(
        tmp_path,
        "hello",
        files={
            "references\\guide.md": "lost\n",
            "references/a\\b.md": "lost too\n",
            "C:notes.md": "a drive\n",
            "sub/C:fine.md": "below the top: a path names it\n",
            "references/ok.md": "listed\n",
            ".env": "hidden\n",
            "node_modules/x\\y.js": "skipped\n",
            "__pycache__/m\\n.pyc": "skipped\n",
        },
    )
    os.symlink("references/ok.md", skill / "link\\name.md")  # a link: never walked into
    problems = validate_skill(skill, profile=profile)
    unlisted = sorted(p.message for p in problems if p.code == "unlisted_file")
    assert unlisted == [
        f"{rel} is never listed or served: no resource path names it (a backslash in its name, "
        "or a drive such as C: at its start)"
        for rel in ("C:notes.md", "references/a\\b.md", "references\\guide.md")
    ]
    assert all(p.severity is Severity.WARNING for p in problems if p.code == "unlisted_file")
    assert not has_errors(problems)
