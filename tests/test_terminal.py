"""Terminal safety and valid UTF-8 output (SPEC §20.8-§20.9).

Skill-supplied text (names, descriptions, bodies, paths) never reaches the terminal as control
characters: escape sequences are shown as ``\\xNN``, a newline in a name or path as ``\\n``;
undecodable bytes of file names as ``\\xNN``; ``--json`` is valid UTF-8 and ``read`` is exact.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills._terminal import (
    json_safe,
    json_text,
    safe_text,
    undecodable_bytes,
    undecodable_text,
)
from conftest import make_skill

ESC_DESCRIPTION = "Title\x1b]0;pwned\x07 and \x1b[2J\x1b[31mred\x9b"


def _cli(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HOME": str(home), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "agent_skills", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "skills"
    make_skill(
        root,
        "esc",
        frontmatter={"name": "esc", "description": ESC_DESCRIPTION},
        body="Body \x1b[1mbold\x1b[0m\nline two\x07",
        files={"references/a\x1bb.md": "A"},
    )
    if sys.platform != "darwin":
        make_skill(
            root,
            os.fsdecode(b"odd\xff"),
            frontmatter={"name": "odd", "description": "Undecodable directory name."},
        )
    home = tmp_path / "home"
    home.mkdir()
    return root, home


def _no_controls(out: bytes) -> None:
    text = out.decode("utf-8")  # valid UTF-8
    bad = [c for c in text if (ord(c) < 0x20 and c not in "\n") or 0x7F <= ord(c) <= 0x9F]
    assert bad == []


@pytest.mark.parametrize(
    "command",
    [["list"], ["show", "esc"], ["resources", "esc"], ["report"]],
    ids=lambda c: c[0],
)
def test_human_output_has_no_control_characters(
    hostile: tuple[Path, Path], command: list[str]
) -> None:
    root, home = hostile
    done = _cli(*command, "--preset", "none", "--root", str(root), cwd=root.parent, home=home)
    assert done.returncode == 0, done.stderr
    _no_controls(done.stdout)
    _no_controls(done.stderr)
    if command[0] in ("list", "show"):
        assert b"Title\\x1b]0;pwned\\x07" in done.stdout
    if command[0] == "show":
        assert b"Body \\x1b[1mbold\\x1b[0m\nline two\\x07" in done.stdout  # newlines kept
    if command[0] == "resources":
        assert b"references/a\\x1bb.md" in done.stdout
    if command[0] == "report" and sys.platform != "darwin":
        assert b"odd\\xff" in done.stdout


def test_json_is_valid_utf8_with_undecodable_bytes_as_escapes(hostile: tuple[Path, Path]) -> None:
    root, home = hostile
    done = _cli(
        "list", "--json", "--preset", "none", "--root", str(root), cwd=root.parent, home=home
    )
    assert done.returncode == 0, done.stderr
    skills = json.loads(done.stdout.decode("utf-8"))
    by_name = {s["name"]: s for s in skills}
    assert by_name["esc"]["description"] == ESC_DESCRIPTION  # --json is exact
    if sys.platform != "darwin":
        assert by_name["odd"]["dir"] == str(root / "odd") + "\\xff"


def test_read_is_exact(hostile: tuple[Path, Path]) -> None:
    root, home = hostile
    done = _cli(
        "read",
        "esc",
        "SKILL.md",
        "--preset",
        "none",
        "--root",
        str(root),
        cwd=root.parent,
        home=home,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (root / "esc" / "SKILL.md").read_bytes()


def test_a_newline_in_a_name_cannot_forge_a_line(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "fake\nloaded  evil", frontmatter={"name": "n", "description": "d"})
    home = tmp_path / "home"
    home.mkdir()
    done = _cli("report", "--preset", "none", "--root", str(root), cwd=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert not any(line.startswith("loaded  evil") for line in lines)
    assert any("fake\\nloaded  evil" in line for line in lines)


def test_safe_text_examples() -> None:
    assert safe_text("a\x1b[31mb\x07c\x9bd\x7f") == "a\\x1b[31mb\\x07c\\x9bd\\x7f"
    assert safe_text("one\ntwo\tthree") == "one\ntwo\tthree"
    assert safe_text("one\ntwo\tthree", inline=True) == "one\\ntwo\\tthree"
    assert safe_text(os.fsdecode(b"caf\xe9")) == "caf\\xe9"
    assert safe_text("naïve — 日本") == "naïve — 日本"
    assert json.loads(json_text({"p": os.fsdecode(b"x\xff")})) == {"p": "x\\xff"}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=[])), st.booleans())
def test_safe_text_leaves_nothing_a_terminal_acts_on(text: str, inline: bool) -> None:
    out = safe_text(text, inline=inline)
    out.encode("utf-8")  # no lone surrogate is left
    allowed = "" if inline else "\n\t"
    assert not any((ord(c) < 0x20 and c not in allowed) or 0x7F <= ord(c) <= 0x9F for c in out)
    if not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert out == text  # ordinary text is untouched


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.recursive(st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_json_text_is_always_valid_utf8(value: object) -> None:
    text = json_text(value)
    text.encode("utf-8")
    json.loads(text)


def _c1_escaped(text: str) -> str:
    """The oracle: DEL and C1 controls, which JSON leaves raw and a terminal acts on, as their
    ``\\u00NN`` escapes (SPEC §20.9)."""
    return re.sub("[\x7f-\x9f]", lambda m: f"\\u{ord(m.group()):04x}", text)


_JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(alphabet=st.characters(codec="utf-8"))
)
_JSON_KEYS = st.text(alphabet=st.characters(codec="utf-8")) | st.integers() | st.booleans()


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        _JSON_SCALARS,
        lambda inner: (
            st.lists(inner, max_size=5)
            | st.lists(inner, max_size=5).map(tuple)
            | st.dictionaries(_JSON_KEYS, inner, max_size=5)
        ),
        max_leaves=30,
    ),
    st.sampled_from([None, 0, 1, 2, 4]),
)
def test_json_text_writes_what_json_dumps_writes(value: object, indent: int | None) -> None:
    # Text is json.dumps's to the byte, DEL and C1 controls written as JSON escapes.
    expected = _c1_escaped(json.dumps(value, ensure_ascii=False, indent=indent, default=str))
    text = json_text(value, indent=indent)
    assert text == expected
    # It reads back as the same JSON value (compared as text: NaN is not equal to itself).
    assert json.dumps(json.loads(text)) == json.dumps(json.loads(expected))


def test_json_text_writes_objects_and_read_only_mappings_as_json_dumps_does() -> None:
    from types import MappingProxyType

    value = [
        {"path": Path("/a/b"), "kinds": ("x", Path("y")), "empty": [], "none": {}, "n": 1.5},
        {"nested": [{"deep": [[], [{}], [1, [2, {"k": "v"}]]]}], "proxy": MappingProxyType({})},
        Path("top"),
    ]
    for indent in (None, 2):
        expected = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
        assert json_text(value, indent=indent) == expected
    assert json_text(Path("p")) == '"p"'
    assert json_text([]) == "[]" and json_text({}) == "{}"


_ODD_SCALARS = st.sampled_from(
    [float("nan"), float("inf"), -float("inf"), -0.0, 1e16, 2**70, -(2**64), Path("/p/q"), b"x"]
)
_ALL_KEYS = _JSON_KEYS | st.floats() | st.none()


@settings(max_examples=150, deadline=None)
@given(
    st.recursive(
        _JSON_SCALARS | _ODD_SCALARS,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.lists(inner, max_size=4).map(tuple)
            | st.dictionaries(_ALL_KEYS, inner, max_size=4)
        ),
        max_leaves=25,
    ),
    st.sampled_from([0, 1, 2, 3]),
)
def test_json_text_lays_out_every_kind_of_value_as_json_dumps(value: object, indent: int) -> None:
    """The indented layout is the project's, the text must be json.dumps's: special floats, big
    ints, float/None/bool keys, objects written with str, empty and nested containers."""
    expected = _c1_escaped(json.dumps(value, ensure_ascii=False, indent=indent, default=str))
    assert json_text(value, indent=indent) == expected


def test_json_text_subclasses_cycles_and_bad_keys_as_json_dumps() -> None:
    from enum import IntEnum, StrEnum

    class Kind(StrEnum):
        A = "a"

    class Level(IntEnum):
        ONE = 1

    class Ratio(float):
        pass

    value = {Kind.A: [Kind.A, Level.ONE, Ratio(0.5)], Level.ONE: {True: None, None: False}}
    assert json_text(value) == json.dumps(value, ensure_ascii=False, indent=2, default=str)
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        json_text(loop)
    with pytest.raises(TypeError, match="keys must be str, int, float, bool or None, not tuple"):
        json_text({(1, 2): "v"})


def test_json_text_escapes_del_and_c1_controls_keeping_the_value() -> None:
    value = {"description": "CSI\x9b[31m DEL\x7f NEL\x85 ok é", "\x9bkey": ["\x80", "\x9f"]}
    text = json_text(value, indent=None)
    assert text == (
        '{"description": "CSI\\u009b[31m DEL\\u007f NEL\\u0085 ok é", '
        '"\\u009bkey": ["\\u0080", "\\u009f"]}'
    )
    assert not any(0x7F <= ord(c) <= 0x9F for c in text)
    assert json.loads(text) == value


_ANY_TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=[]), max_size=12)
_TOOLS = st.none() | st.lists(_ANY_TEXT, max_size=3)
_SHADOWED = st.lists(
    st.fixed_dictionaries({"scope": _ANY_TEXT, "source": _ANY_TEXT, "root": _ANY_TEXT}),
    max_size=2,
)
_METADATA = st.recursive(
    _JSON_SCALARS | _ANY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ANY_TEXT, inner, max_size=3),
    max_leaves=8,
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "name": _ANY_TEXT,
                "description": _ANY_TEXT,
                "allowed_tools": _TOOLS,
                "user_invocable": st.booleans(),
                "shadowed": _SHADOWED,
                "version": st.none() | _ANY_TEXT,
            },
            optional={"metadata": st.dictionaries(_ANY_TEXT, _METADATA, max_size=3)},
        ),
        max_size=4,
    ),
    st.sampled_from([None, 0, 2]),
)
def test_json_text_of_skill_records_is_json_dumps_made_safe(
    value: list[dict[str, object]], indent: int | None
) -> None:
    """The shape ``list --json`` and ``show --json`` write (SPEC §16): any text, quotes,
    backslashes, control characters and undecodable bytes included, nested metadata, gives the
    text of ``json.dumps`` with the safety of ``json_safe`` and nothing else."""
    expected = json_safe(json.dumps(value, ensure_ascii=False, indent=indent, default=str))
    assert json_text(value, indent=indent) == expected


@given(st.binary(max_size=40).filter(lambda b: b"\\" not in b))
def test_undecodable_bytes_reads_back_what_undecodable_text_wrote(raw: bytes) -> None:
    # SPEC §20.8: a file name's byte that is not UTF-8 is shown as \xNN; a client sending the
    # name back as shown names that file again (a name holding no backslash: none is listed).
    name = os.fsdecode(raw)
    shown = undecodable_text(name)
    assert undecodable_bytes(shown) == name
    assert shown.encode("utf-8").decode("utf-8") == shown  # what was shown is valid UTF-8


def test_undecodable_bytes_takes_only_bytes_a_name_cannot_decode() -> None:
    assert undecodable_bytes("r\\xfe.md") == os.fsdecode(b"r\xfe.md")
    assert undecodable_bytes("a\\x80\\xFFb") == os.fsdecode(b"a\x80\xffb")
    # ASCII and control bytes are never written \xNN for a name's undecodable byte: kept.
    assert undecodable_bytes("a\\x41\\x7f\\x0a") == "a\\x41\\x7f\\x0a"
    assert undecodable_bytes("\\xf") == "\\xf"
    assert undecodable_bytes("plain/path.md") == "plain/path.md"
