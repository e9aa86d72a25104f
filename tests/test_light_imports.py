"""SPEC §26: what the CLI, the first discovery and the server load, checked in fresh interpreters.

Speed itself is measured by ``benchmarks/run.py``; these tests pin the causes of a slow first call:
modules that a command does not need must not be imported at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ("rich", "pydantic", "mcp", "urllib.request", "http.client", "email")


def _loaded(code: str, *args: str) -> dict[str, bool]:
    script = code + (
        "\nimport json, sys\n"
        f"seen = {{m: m in sys.modules for m in {list(HEAVY)!r}}}\n"
        "sys.stderr.write('LOADED ' + json.dumps(seen))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120
    )
    line = next(x for x in out.stderr.splitlines() if x.startswith("LOADED "))
    return dict(json.loads(line[len("LOADED ") :]))


def _skill(root: Path, name: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d {name}\n---\nbody\n")


def test_import_of_the_cli_loads_no_heavy_module() -> None:
    loaded = _loaded("import agent_skills.cli")
    assert loaded == dict.fromkeys(HEAVY, False)


def test_list_json_loads_neither_rich_nor_pydantic(tmp_path: Path) -> None:
    _skill(tmp_path, "alpha")
    code = (
        "import sys\nfrom agent_skills.cli import main\n"
        "rc = main(['list', '--json', '--preset', 'none', '--root', sys.argv[1]])\n"
        "assert rc == 0, rc\n"
    )
    loaded = _loaded(code, str(tmp_path))
    assert loaded == dict.fromkeys(HEAVY, False)


def test_list_json_loads_no_catalog_renderer(tmp_path: Path) -> None:
    _skill(tmp_path, "alpha")
    code = (
        "import sys\nfrom agent_skills.cli import main\n"
        "rc = main(['list', '--json', '--preset', 'none', '--root', sys.argv[1]])\n"
        "sys.stderr.write('CATALOG ' + str('agent_skills.catalog' in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert "CATALOG False" in out.stderr


def test_human_list_still_renders_with_rich(tmp_path: Path) -> None:
    _skill(tmp_path, "alpha")
    code = (
        "import sys\nfrom agent_skills.cli import main\n"
        "rc = main(['list', '--preset', 'none', '--root', sys.argv[1]])\n"
        "assert rc == 0, rc\n"
    )
    loaded = _loaded(code, str(tmp_path))
    assert loaded["rich"] is True
    assert loaded["pydantic"] is False


def test_import_of_the_package_loads_no_archive_digest_or_suggestion_module() -> None:
    # Archives, digests and name suggestions load when first used: a scan of plain folders
    # pays for none of them (SPEC §26).
    code = (
        "import sys, agent_skills\n"
        "mods = ('tarfile', 'zipfile', 'gzip', 'shutil', 'hashlib', 'difflib')\n"
        "print(sorted(m for m in mods if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
