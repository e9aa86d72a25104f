"""Every byte the command line writes is safe (SPEC §20.8-§20.9, §30.5): JSON output is valid
UTF-8 whatever the names and whatever ``PYTHONIOENCODING`` says (an undecodable byte written
``\\xNN``), and text output holds no control character a skill supplied (C0 and C1, in
descriptions, names and paths, catalog formats included), whatever the stream's encoding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import make_skill

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "darwin", reason="APFS refuses non-UTF-8 names"),
]

ENCODINGS = ["", "ascii", "latin-1", "utf-16"]
CONTROLS = [chr(c) for c in [*range(0, 9), *range(11, 32), *range(0x7F, 0xA0)]]

# Descriptions with terminal controls: CSI colours, a C1 CSI that clears the screen, OSC
# retitling, a bell, a backspace, a carriage return that rewrites a line.
DESCRIPTION = (
    "Esc \\e[31mRED\\e[0m, C1 \\x9b2J, OSC \\e]0;pwned\\a, bell \\a, back \\b, CR \\r"
    "forged, DEL \\x7f, NEL \\x85 and é"
)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("output") / "skills"
    odd = make_skill(
        base,
        os.fsdecode(b"odd\xff"),
        raw=f'---\nname: odd\ndescription: "{DESCRIPTION}"\n---\nBody \x1b[2J here.\n'.encode(),
    )
    (odd / "references").mkdir()
    (odd / "references" / os.fsdecode(b"r\xfe.md")).write_text("x")
    (odd / "references" / "ctl\x1b[31m.md").write_text("x")
    make_skill(
        base, "plain", raw="---\nname: plain\ndescription: Fine é ü 漢\n---\nBody\n".encode()
    )
    return base


def _run(root: Path, encoding: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONIOENCODING"}
    if encoding:
        env["PYTHONIOENCODING"] = encoding
    return subprocess.run(
        [sys.executable, "-m", "agent_skills", *args, "--preset", "none", "--root", str(root)],
        capture_output=True,
        env=env,
        timeout=60,
    )


JSON_COMMANDS = [
    ["list", "--json"],
    ["show", "odd", "--json"],
    ["resources", "odd", "--json"],
    ["report", "--json"],
    ["catalog", "--format", "json"],
    ["catalog", "--json", "--all"],
    ["catalog", "--format", "json", "--max-chars", "400"],
    ["path", "odd", "SKILL.md", "--json"],
]


def _strings(value: Any) -> list[str]:
    out: list[str] = []
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return out


@pytest.mark.parametrize("encoding", ["", "ascii", "utf-16"])
@pytest.mark.parametrize("args", JSON_COMMANDS, ids=" ".join)
def test_json_output_is_utf8_whatever_the_encoding(
    root: Path, encoding: str, args: list[str]
) -> None:
    done = _run(root, encoding, *args)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout.decode("utf-8"))  # strict UTF-8, valid JSON
    texts = _strings(document)
    assert not any("\udc80" <= c <= "\udcff" for t in texts for c in t)
    if args[0] != "catalog" or "--all" in args or "--max-chars" not in args:
        assert any("odd\\xff" in t for t in texts), texts  # the byte written \xNN
    if args[0] in ("list", "show"):
        assert any("é" in t for t in texts)  # non-ASCII text kept as UTF-8, not escaped
    text_errors = "--json" not in args and args[0] != "report"
    warnings = done.stderr.decode((encoding or "utf-8") if text_errors else "utf-8").strip()
    if args[0] == "report":  # the report holds its diagnostics itself
        assert warnings == ""
    elif "--json" in args:  # under --json, stderr holds one JSON object too
        assert [w["code"] for w in json.loads(warnings)["warnings"]] == ["name_mismatch"]
    else:
        assert warnings.startswith("warning: name_mismatch: ") and "odd\\xff" in warnings


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_json_errors_on_stderr_are_utf8(root: Path, encoding: str) -> None:
    done = _run(root, encoding, "read", "odd", "references/missing\udcfe.md", "--json")
    assert done.returncode != 0
    error = json.loads(done.stderr.decode("utf-8").strip().splitlines()[-1])
    assert error["error"]["code"] in ("not_found", "usage_error", "error")


TEXT_COMMANDS = [
    ["list"],
    ["show", "odd"],
    ["resources", "odd"],
    ["report"],
    ["catalog"],
    ["catalog", "--format", "xml"],
    ["catalog", "--format", "markdown", "--all"],
    ["catalog", "--format", "xml", "--max-chars", "2000"],
    ["catalog", "--max-chars", "300"],
]


@pytest.mark.parametrize("encoding", ["", "ascii"])
@pytest.mark.parametrize("args", TEXT_COMMANDS, ids=" ".join)
def test_text_output_holds_no_skill_supplied_control(
    root: Path, encoding: str, args: list[str]
) -> None:
    done = _run(root, encoding, *args)
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        text = stream.decode("utf-8")  # these encodings write UTF-8 or ASCII
        found = sorted({f"{ord(c):#x}" for c in text if c in CONTROLS})
        assert found == [], found
    if args[0] in ("list", "show", "catalog") and "--max-chars" not in args:
        shown = done.stdout.decode("utf-8")
        assert "[31mRED" in shown  # shown, not acted on
        assert ("\\x1b[31mRED" in shown) == ("xml" not in args)  # XML: U+FFFD, its own rule


@pytest.mark.parametrize("encoding", ["utf-16"])
def test_text_output_in_any_encoding_never_fails(root: Path, encoding: str) -> None:
    for args in TEXT_COMMANDS:
        done = _run(root, encoding, *args)
        assert done.returncode == 0, (args, done.stderr)
        text = done.stdout.decode(encoding)
        assert not any(c in CONTROLS for c in text), args
