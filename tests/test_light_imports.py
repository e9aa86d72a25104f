"""SPEC §26: what the CLI, the first discovery and the server load, checked in fresh interpreters.

Speed itself is measured by ``benchmarks/run.py``; these tests pin the causes of a slow first call:
modules that a command does not need must not be imported at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Each test starts fresh interpreters.
pytestmark = [pytest.mark.slow]

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


# What a discovery of plain folders must never load (SPEC §26): the optional dependencies, the
# CLI's, the archive readers, search, foreign calls, the digests and trust, the index, the
# validator, the renderers, the logging machinery while there is nothing to log, and the YAML
# loader while every frontmatter has the simple shape.
DISCOVERY_NEVER_LOADS = (
    "pydantic",
    "rich",
    "click",
    "mcp",
    "watchfiles",
    "pathspec",
    "zipfile",
    "tarfile",
    "gzip",
    "shutil",
    "sqlite3",
    "ctypes",
    "hashlib",
    "difflib",
    "json",
    "logging",
    "agent_skills._archive",
    "agent_skills._digest",
    "agent_skills._frontmatter",
    "agent_skills._index",
    "agent_skills._presets",
    "agent_skills._resources",
    "agent_skills._trust",
    "agent_skills._watch",
    "agent_skills.catalog",
    "agent_skills.validate",
    "yaml",
    "agent_skills._yaml12",
)

# What `agent-skills list --json` must never load: the same but for the CLI's json and the
# client layouts of --preset, which it needs (SPEC §16, §21.1, §26). With only --preset and
# --root it runs without click too (cli._fast).
LIST_JSON_NEVER_LOADS = tuple(
    m for m in DISCOVERY_NEVER_LOADS if m not in ("json", "agent_skills._presets")
)


def _loaded_of(code: str, modules: tuple[str, ...], *args: str) -> list[str]:
    """Which of ``modules`` a fresh interpreter has loaded after running ``code``."""
    script = (
        code + f"\nimport sys\nfound = sorted(m for m in {modules!r} if m in sys.modules)\n"
        "import json\nsys.stderr.write('LOADED ' + json.dumps(found))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120
    )
    line = next((x for x in out.stderr.splitlines() if x.startswith("LOADED ")), None)
    assert line is not None, out.stderr
    return list(json.loads(line[len("LOADED ") :]))


def test_discovery_of_plain_folders_loads_only_what_it_needs(tmp_path: Path) -> None:
    _skill(tmp_path, "alpha")
    _skill(tmp_path, "beta")
    code = (
        "import sys, agent_skills\n"
        "skills = agent_skills.create_agent_skills([sys.argv[1]])\n"
        "assert [i.name for i in skills.list_skills()] == ['alpha', 'beta']\n"
        "assert skills.diagnostics == ()\n"
    )
    assert _loaded_of(code, DISCOVERY_NEVER_LOADS, str(tmp_path)) == []


def test_list_json_loads_only_what_it_needs(tmp_path: Path) -> None:
    _skill(tmp_path, "alpha")
    code = (
        "import sys\nfrom agent_skills.cli import main\n"
        "rc = main(['list', '--json', '--preset', 'none', '--root', sys.argv[1]])\n"
        "assert rc == 0, rc\n"
    )
    assert _loaded_of(code, LIST_JSON_NEVER_LOADS, str(tmp_path)) == []


def test_list_json_with_another_option_is_click_s(tmp_path: Path) -> None:
    _skill(tmp_path, "alpha")
    code = (
        "import sys\nfrom agent_skills.cli import main\n"
        "rc = main(['list', '--json', '--strict', '--preset', 'none', '--root', sys.argv[1]])\n"
        "assert rc == 0, rc\n"
    )
    assert _loaded_of(code, ("click", "agent_skills.cli.discover"), str(tmp_path)) == [
        "agent_skills.cli.discover",
        "click",
    ]


def test_modules_left_out_of_discovery_still_load_on_first_use(tmp_path: Path) -> None:
    # A skill's resources, a diagnostic to log, an archive root and a frontmatter the simple
    # reading leaves each load their module then.
    _skill(tmp_path / "plain", "alpha")
    (tmp_path / "plain" / "beta").mkdir()
    (tmp_path / "plain" / "beta" / "SKILL.md").write_text("---\nname: [broken\n---\n")
    import zipfile

    with zipfile.ZipFile(tmp_path / "packed.zip", "w") as zf:
        zf.writestr("gamma/SKILL.md", "---\nname: gamma\ndescription: d gamma\n---\nbody\n")
    code = (
        "import sys, agent_skills\n"
        "skills = agent_skills.create_agent_skills([sys.argv[1], sys.argv[2]])\n"
        "assert [i.name for i in skills.list_skills()] == ['alpha', 'gamma']\n"
        "assert skills.load_skill('alpha').resources == ()\n"
    )
    mods = (
        "logging",
        "agent_skills._archive",
        "agent_skills._resources",
        "zipfile",
        "yaml",
        "agent_skills._yaml12",
    )
    loaded = _loaded_of(code, mods, str(tmp_path / "plain"), str(tmp_path / "packed.zip"))
    assert loaded == sorted(mods)


def test_commands_are_built_on_first_use_and_help_lists_every_one() -> None:
    import click
    from click.testing import CliRunner

    from agent_skills.cli import cli

    expected = [
        "add", "catalog", "grants", "list", "lock", "pack", "path", "read", "remove", "report",
        "resources", "sandbox", "serve", "show", "trust", "update", "validate", "verify", "where",
    ]  # fmt: skip
    code = (
        "from agent_skills.cli import main\n"
        "try:\n    main(['list', '--help'])\nexcept SystemExit:\n    pass\n"
    )
    assert _loaded_of(code, ("agent_skills.validate",)) == []
    ctx = click.Context(cli)
    assert cli.list_commands(ctx) == expected
    listed = CliRunner().invoke(cli, ["--help"]).output.split("Commands:\n", 1)[1]
    assert [line.split()[0] for line in listed.splitlines()] == expected
    assert all(isinstance(cli.get_command(ctx, name), click.Command) for name in expected)
    assert sorted(cli.commands) == expected


def test_a_discovery_warning_is_printed_once_by_a_fresh_cli(tmp_path: Path) -> None:
    # logging loads with the first diagnostic; the CLI's sink prints it, and Python's last-resort
    # handler must not print it a second time.
    _skill(tmp_path, "alpha")
    (tmp_path / "beta").mkdir()
    (tmp_path / "beta" / "SKILL.md").write_text("---\nname: [broken\n---\n")
    code = (
        "import sys\nfrom agent_skills.cli import main\n"
        "main(['list', '--preset', 'none', '--root', sys.argv[1]])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("warning: invalid_skill: skipping ")
    assert "beta" in lines[0]


def test_discovery_loads_no_ctypes_for_plain_or_linked_skills(tmp_path: Path) -> None:
    # openat2 needs ctypes (a few milliseconds to import): discovery walks components instead, for
    # a root, a linked root and a linked skill directory alike (SPEC §20.1, §26 first call).
    root = tmp_path / "root"
    _skill(root, "alpha")
    _skill(tmp_path / "store", "beta")
    (root / "beta").symlink_to(tmp_path / "store" / "beta", target_is_directory=True)
    (tmp_path / "linked-root").symlink_to(root, target_is_directory=True)
    code = (
        "import sys, agent_skills\n"
        "for r in sys.argv[1:]:\n"
        "    skills = agent_skills.create_agent_skills([r])\n"
        "    assert [i.name for i in skills.list_skills()] == ['alpha', 'beta'], r\n"
    )
    assert _loaded_of(code, ("ctypes",), str(root), str(tmp_path / "linked-root")) == []


def test_an_unknown_command_is_still_matched_against_every_command() -> None:
    # Commands are built on first use; an unknown name builds them all so that click's close
    # match (this click offers one) sees every command, not only those built so far. A fresh
    # interpreter: no command of it has been built before.
    import click

    out = subprocess.run(
        [sys.executable, "-m", "agent_skills", "lst"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2
    assert "No such command 'lst'." in out.stderr
    if hasattr(click.exceptions, "NoSuchCommand"):  # click 8.2 and later suggest a close name
        assert "Did you mean 'list'?" in out.stderr


def _run_as_program(code: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stderr.strip().splitlines()[-1]


def _serve_as_program(tmp_path: Path, prelude: str, report: str) -> str:
    """Run ``agent-skills serve`` as the program on one skill after ``prelude`` (which stands in
    for the MCP module), then write ``report`` (an f-string body; ``rc`` is main's result)."""
    _skill(tmp_path, "alpha")
    code = (
        "import gc, sys\n" + prelude + "from agent_skills.cli import main\n"
        "sys.argv = ['agent-skills', 'serve', '--preset', 'none', '--root', sys.argv[1]]\n"
        "rc = main()\n"
        f"sys.stderr.write(f{report!r})\n"
    )
    return _run_as_program(code, str(tmp_path))


def test_a_command_run_as_the_program_keeps_the_collector_paused(tmp_path: Path) -> None:
    # SPEC §26: the command exits when done; a pass over all that discovery built is not worth
    # it. Called with arguments (in a host's process, in tests) main() leaves the collector be.
    _skill(tmp_path, "alpha")
    code = (
        "import gc, sys\nfrom agent_skills.cli import main\n"
        "rc = main(['list', '--json', '--preset', 'none', '--root', sys.argv[1]])\n"
        "in_host = gc.isenabled()\n"
        "sys.argv = ['agent-skills', 'list', '--json', '--preset', 'none', '--root', sys.argv[1]]\n"
        "rc += main()\n"
        "sys.stderr.write(f'{rc} {in_host} {gc.isenabled()}')\n"
    )
    assert _run_as_program(code, str(tmp_path)) == "0 True False"


def test_a_command_run_as_the_program_leaves_what_it_made_frozen_for_the_exit(
    tmp_path: Path,
) -> None:
    # SPEC §26: the interpreter's last collection at exit would pass over all that discovery
    # built; run as the program, a command ends with it frozen (a usage error too), its output
    # written and atexit handlers still run. Called with arguments main() freezes nothing.
    _skill(tmp_path, "alpha")
    code = (
        "import atexit, gc, io, json, sys\nfrom agent_skills.cli import main\n"
        "atexit.register(lambda: sys.stderr.write(' atexit ran'))\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        "rc = main(['list', '--json', '--preset', 'none', '--root', sys.argv[1]])\n"
        "in_host = gc.get_freeze_count()\n"
        "sys.stdout = io.StringIO()\n"
        "sys.argv = ['agent-skills', 'list', '--json', '--preset', 'none', '--root', sys.argv[1]]\n"
        "rc += main()\n"
        "names = [s['name'] for s in json.loads(sys.stdout.getvalue())]\n"
        "frozen = gc.get_freeze_count()\n"
        "gc.unfreeze()\n"
        "sys.argv = ['agent-skills', 'list', '--no-such-flag']\n"
        "usage = main()\n"
        "sys.stdout = out\n"
        "again = gc.get_freeze_count() > 0\n"
        "sys.stderr.write(f'\\n{rc} {usage} {in_host} {frozen > 1000} {again} {names}')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "0 2 0 True True ['alpha'] atexit ran"


def test_serve_run_as_the_program_resumes_the_collector(tmp_path: Path) -> None:
    prelude = (
        "import types\n"
        "fake = types.ModuleType('agent_skills.mcp')\n"
        "seen = []\n"
        "fake.run_stdio = lambda skills, **kw: seen.append(gc.isenabled())\n"
        "sys.modules['agent_skills.mcp'] = fake\n"
    )
    assert _serve_as_program(tmp_path, prelude, "{rc} {seen}") == "0 [True]"


def test_serve_imports_the_mcp_sdk_with_the_collector_paused_then_resumes_it(
    tmp_path: Path,
) -> None:
    # SPEC §26 (serve start-up): the SDK's import makes many long-lived objects; it runs with
    # the collector still paused, then the collector is on for the server, what was made until
    # then moved to the oldest generation (the young ones start empty), nothing left frozen.
    prelude = (
        "import importlib.abc, importlib.util\n"
        "seen = {}\n"
        "class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'agent_skills.mcp':\n"
        "            return importlib.util.spec_from_loader(name, self)\n"
        "    def create_module(self, spec):\n"
        "        return None\n"
        "    def exec_module(self, module):\n"
        "        seen['import'] = gc.isenabled()\n"
        "        module.kept = [[i] for i in range(50000)]\n"
        "        def run_stdio(skills, **kw):\n"
        "            seen['run'] = (gc.isenabled(), gc.get_count()[1:], gc.get_freeze_count())\n"
        "        module.run_stdio = run_stdio\n"
        "sys.meta_path.insert(0, Finder())\n"
    )
    report = "{rc} {seen['import']} {seen['run']}"
    assert _serve_as_program(tmp_path, prelude, report) == "0 False (True, (0, 0), 0)"


def test_serve_leaves_a_host_s_frozen_objects_frozen(tmp_path: Path) -> None:
    prelude = (
        "import types\n"
        "held = [[i] for i in range(1000)]\n"
        "gc.freeze()\n"
        "def frozen():\n"  # (a frozen object is in no generation gc.get_objects lists)
        "    return not any(o is held for o in gc.get_objects())\n"
        "fake = types.ModuleType('agent_skills.mcp')\n"
        "seen = [frozen()]\n"
        "fake.run_stdio = lambda skills, **kw: seen.append(frozen())\n"
        "sys.modules['agent_skills.mcp'] = fake\n"
    )
    report = "{rc} {seen} {gc.isenabled()}"
    assert _serve_as_program(tmp_path, prelude, report) == "0 [True, True] True"
