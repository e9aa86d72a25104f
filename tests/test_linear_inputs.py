"""Inputs that made the library quadratic now end, with the outcome they deserve (SPEC §20.7).

Each shape was measured to take seconds to minutes at the sizes used here (the JSON reader of the
lock and the trust store backtracked over escaped quotes: 28 s for 64 KiB; ``validate_skill``
located each wrong metadata value with a scan of its own, and scanned a line of escaped brackets
or of links once per opener). The times themselves are measured by ``benchmarks/linear.py``;
these tests check the outcome at 1 MiB (where the old code would run for hours), bounded only
against a hang, through the library, the trust store, the lock and the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_skills import SkillError, TrustStore
from agent_skills import packages as pkg
from agent_skills._jsonfile import json_depth, read_json_file
from agent_skills.cli import cli
from agent_skills.validate import validate_skill
from conftest import ends_within

MIB = 1024 * 1024
HANG = 60.0  # seconds: only a hang fails here; speed is benchmarks/linear.py's


def _ends(fn: Callable[[], Any]) -> Any:
    """``fn()`` (or the SkillError it raised), failing if it has not ended after ``HANG`` s."""
    return ends_within(fn, HANG, returned=SkillError)


def _fill(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


# -- the JSON reader of the lock and the trust store -------------------------------------------

JSON_SHAPES = {
    "escaped quotes": _fill('\\"', MIB),
    "an open string of escaped quotes": '"' + _fill('\\"', MIB),
    "open strings": _fill('"\\', MIB),
    "quote, escape, quote": _fill('"\\"', MIB),
    "backslashes": _fill("\\\\", MIB),
    "a string then escaped quotes": '["x", ' + _fill('\\"', MIB),
    "brackets in an open string": '"' + _fill("[{", MIB),
}


@pytest.mark.parametrize("shape", sorted(JSON_SHAPES))
def test_hostile_json_is_refused_by_every_reader(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "doc.json"
    path.write_text(JSON_SHAPES[shape])
    err = _ends(lambda: read_json_file(str(path), max_bytes=64 * MIB, what="skills lock"))
    assert err.code == "invalid_input"
    assert err.fields["path"] == str(path)
    assert err.fields["reason"].startswith("invalid JSON")
    lock_err = _ends(lambda: pkg.read_lock(path))
    assert (lock_err.code.value, lock_err.fields["path"]) == ("invalid_input", str(path))
    store_err = _ends(lambda: TrustStore(path).approved())
    assert (store_err.code.value, store_err.fields["path"]) == ("invalid_input", str(path))


def test_the_cli_verify_ends_on_a_hostile_lock(tmp_path: Path) -> None:
    lock = tmp_path / "skills.lock.json"
    lock.write_text(JSON_SHAPES["an open string of escaped quotes"])
    result = _ends(
        lambda: CliRunner().invoke(
            cli,
            ["verify", "--lock", str(lock), "--json", "--preset", "none", "--root", str(tmp_path)],
            catch_exceptions=False,
        )
    )
    assert result.exit_code != 0
    assert json.loads(result.output)["error"]["code"] == "invalid_input"


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('{"a": ["[", "]]]", "\\"[["]}', 2),
        ('[[["\\\\"]]]', 3),
        ('"[[[', 0),  # an open string hides what follows; the decoder refuses the text
        ('["\\', 1),
        ("[]" * 1000, 1),
        ("[" * 65 + "]" * 65, 65),
    ],
)
def test_json_depth_skips_strings_exactly(text: str, depth: int) -> None:
    assert json_depth(text) == depth


# -- validate_skill ------------------------------------------------------------------------------

HEAD = "---\nname: shape\ndescription: a hostile shape\n"


def _skill(tmp_path: Path, text: str) -> Path:
    skill = tmp_path / "shape"
    skill.mkdir()
    (skill / "SKILL.md").write_text(text)
    return skill


def test_every_wrong_metadata_value_is_located_in_one_pass(tmp_path: Path) -> None:
    keys = 40_000  # 80 000 nodes: within the budget (SPEC §20.6)
    text = HEAD + "metadata:\n" + "".join(f"  k{i}: {i}\n" for i in range(keys)) + "---\nb\n"
    problems = _ends(lambda: validate_skill(_skill(tmp_path, text)))
    assert len(problems) == keys
    assert {p.code.value for p in problems} == {"metadata_value_type"}
    # Each located at its own line: the metadata key is line 4, k0 line 5.
    assert [(p.field, p.line) for p in problems[:2]] == [("metadata.k0", 5), ("metadata.k1", 6)]
    assert (problems[-1].field, problems[-1].line) == (f"metadata.k{keys - 1}", keys + 4)


@pytest.mark.parametrize(
    ("body", "codes"),
    [
        (_fill("[\\", MIB - 200), []),  # escaped brackets: no link opens
        (_fill("[a", MIB - 200), []),
        (_fill("[x](references/a.md) ", MIB - 200), ["broken_reference"]),  # one per line
        (_fill("[a](b(c", MIB - 200), ["broken_reference"]),  # "b", once per line
        (_fill("![](", MIB - 200), ["broken_reference"]),
        ("scripts/" + _fill("a", MIB - 200), ["broken_reference"]),
        ("scripts/a" + _fill(":1", MIB - 200) + "x", ["broken_reference"]),
    ],
    ids=["escaped-brackets", "open-brackets", "links", "parens", "images", "bare", "colons"],
)
def test_long_body_lines_are_checked_in_linear_time(
    tmp_path: Path, body: str, codes: list[str]
) -> None:
    problems = _ends(lambda: validate_skill(_skill(tmp_path, HEAD + "---\n" + body + "\n")))
    assert [p.code.value for p in problems] == codes


def test_escaped_brackets_open_no_link_but_plain_ones_do(tmp_path: Path) -> None:
    body = "\\[a](docs/none.md) and [b](docs/missing.md)\n"
    problems = validate_skill(_skill(tmp_path, HEAD + "---\n" + body))
    assert [p.message for p in problems] == ["link 'docs/missing.md' does not exist in the skill"]


def test_the_cli_validate_ends_on_hostile_shapes(tmp_path: Path) -> None:
    skill = _skill(tmp_path, HEAD + "---\n" + _fill("[\\", MIB - 200) + "\n")
    result = _ends(
        lambda: CliRunner().invoke(cli, ["validate", str(skill), "--json"], catch_exceptions=False)
    )
    assert result.exit_code == 0
    [report] = json.loads(result.output)
    assert report["problems"] == []
