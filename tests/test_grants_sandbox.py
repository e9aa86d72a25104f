"""SPEC §28.4: the sandbox, for real, on this machine's kernel; and the seed scenario end to end.

Every sandboxed run is a subprocess (``python -m agent_skills sandbox ... -- python -c CHILD``):
Landlock cannot be lifted, so the test process itself is never restricted. The child reports
what each attempt did as JSON on stdout. The system temporary directory of those runs is a folder
of the test's own (``TMPDIR``), so the skills' store, which lies in the test's temporary folder
too, is outside it (Landlock grants a path the rights of every rule above it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pathspec
import pytest

from agent_skills import Grant, SkillError
from agent_skills.grants import (
    SandboxRule,
    landlock_abi,
    restrict_current_process,
    sandbox_rules,
)
from conftest import make_skill, symlink

ABI, WHY_NOT = landlock_abi()
needs_landlock = pytest.mark.skipif(ABI == 0, reason=f"Landlock is not available here: {WHY_NOT}")

# The Landlock sandbox for real, in subprocesses.
pytestmark = [pytest.mark.slow]

# What the sandboxed child tries; each attempt is reported as "ok", the text read, or the name
# of the exception raised.
CHILD = r"""
import json, os, subprocess, sys, tempfile

def attempt(fn):
    try:
        result = fn()
    except OSError as exc:
        return type(exc).__name__
    return "ok" if result is None else result

def read(path):
    with open(path) as fh:
        return fh.read()

def write(path):
    with open(path, "w") as fh:
        fh.write("x")

link, real, other, project, home = sys.argv[1:6]
report = {
    "link": attempt(lambda: read(link + "/references/guide.md")),
    "real": attempt(lambda: read(real + "/references/guide.md")),
    "listing": attempt(lambda: sorted(os.listdir(link))),
    "link_out_of_skill": attempt(lambda: read(real + "/references/key")),
    "left_out_skill": attempt(lambda: read(other + "/SKILL.md")),
    "ssh_key": attempt(lambda: read(home + "/.ssh/id_rsa")),
    "home_listing": attempt(lambda: os.listdir(home)),
    "write_skill_real": attempt(lambda: write(real + "/new.md")),
    "write_skill_link": attempt(lambda: write(link + "/references/guide.md")),
    "remove_skill_file": attempt(lambda: os.unlink(real + "/references/guide.md")),
}

def project_round_trip():
    os.makedirs(project + "/out/deep")
    write(project + "/out/deep/file.txt")
    os.rename(project + "/out/deep/file.txt", project + "/out/moved.txt")
    text = read(project + "/out/moved.txt")
    os.unlink(project + "/out/moved.txt")
    os.rmdir(project + "/out/deep")
    os.rmdir(project + "/out")
    return text

def temp_round_trip():
    fd, name = tempfile.mkstemp()
    os.write(fd, b"t")
    os.close(fd)
    text = read(name)
    os.unlink(name)
    return [tempfile.gettempdir(), text]

report["project"] = attempt(project_round_trip)
report["temp"] = attempt(temp_round_trip)
report["devnull"] = attempt(lambda: write(os.devnull))
key = home + "/.ssh/id_rsa"
grandchild = subprocess.run(
    [sys.executable, "-I", "-S", "-c", "import sys; open(sys.argv[1]).read()", key],
    capture_output=True, text=True,
)
report["grandchild_python"] = grandchild.stderr.strip().splitlines()[-1]
shell = subprocess.run(["sh", "-c", 'cat "$1"; echo "rc=$?"', "sh", home + "/.ssh/id_rsa"],
                       capture_output=True, text=True)
report["grandchild_shell"] = [shell.stdout.strip(), "Permission denied" in shell.stderr]
print(json.dumps(report))
sys.exit(7)
"""


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """A home with a fake SSH key and a user-level skill linked from a store, a second skill, a
    project and a temporary folder of its own."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN FAKE KEY-----\n")
    store = tmp_path / "store"
    make_skill(store, "pdf", files={"references/guide.md": "Read me.\n"})
    symlink(store / "pdf" / "references" / "key", home / ".ssh" / "id_rsa")
    root = home / ".agents" / "skills"
    symlink(root / "pdf", store / "pdf")
    make_skill(root, "secret-notes", files={"references/x.md": "x\n"})
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    systmp = tmp_path / "systmp"
    systmp.mkdir()
    return {"home": home, "store": store, "root": root, "project": project, "tmp": systmp}


def _env(world: dict[str, Path]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HOME=str(world["home"]), TMPDIR=str(world["tmp"]))
    return env


def _sandbox(world: dict[str, Path], *options: str, child: list[str]) -> Any:
    args = [sys.executable, "-m", "agent_skills", "sandbox", "--preset", "none"]
    args += ["--root", str(world["root"]), "--project", str(world["project"]), *options]
    return subprocess.run(
        [*args, "--", *child],
        capture_output=True,
        text=True,
        env=_env(world),
        cwd=world["project"],
        timeout=120,
    )


@needs_landlock
def test_the_sandbox_for_real(world: dict[str, Path]) -> None:
    link = world["root"] / "pdf"
    real = world["store"] / "pdf"
    other = world["root"] / "secret-notes"
    child = [sys.executable, "-I", "-S", "-c", CHILD, str(link), str(real), str(other)]
    child += [str(world["project"]), str(world["home"])]
    done = _sandbox(world, "--skill", "pdf", child=child)
    assert done.returncode == 7, done.stderr  # the child's exit status
    report = json.loads(done.stdout)
    assert report == {
        "link": "Read me.\n",
        "real": "Read me.\n",
        "listing": ["SKILL.md", "references"],
        "link_out_of_skill": "PermissionError",  # a link inside the skill to ~/.ssh
        "left_out_skill": "PermissionError",
        "ssh_key": "PermissionError",
        "home_listing": "PermissionError",
        "write_skill_real": "PermissionError",
        "write_skill_link": "PermissionError",
        "remove_skill_file": "PermissionError",
        "project": "x",
        "temp": [str(world["tmp"]), "t"],
        "devnull": "ok",
        "grandchild_python": (
            f"PermissionError: [Errno 13] Permission denied: '{world['home']}/.ssh/id_rsa'"
        ),
        "grandchild_shell": ["rc=1", True],
    }
    # Nothing was written where it was refused.
    assert sorted(os.listdir(real)) == ["SKILL.md", "references"]
    assert (real / "references" / "guide.md").read_text() == "Read me.\n"
    assert sorted(os.listdir(world["project"])) == [".git"]


@needs_landlock
def test_every_skill_is_readable_by_default_and_none_with_no_skills(
    world: dict[str, Path],
) -> None:
    code = (
        "import sys\n"
        "for p in sys.argv[1:]:\n"
        "    try:\n"
        "        open(p).read(); print('ok')\n"
        "    except PermissionError:\n"
        "        print('denied')\n"
    )
    paths = [
        str(world["root"] / "pdf" / "references" / "guide.md"),
        str(world["root"] / "secret-notes" / "references" / "x.md"),
    ]
    child = [sys.executable, "-I", "-S", "-c", code, *paths]
    assert _sandbox(world, child=child).stdout.split() == ["ok", "ok"]
    assert _sandbox(world, "--no-skills", child=child).stdout.split() == ["denied", "denied"]


@needs_landlock
def test_read_and_write_options(world: dict[str, Path], tmp_path: Path) -> None:
    extra_read = tmp_path / "docs"
    extra_read.mkdir()
    (extra_read / "a.txt").write_text("doc")
    state = tmp_path / "state"
    state.mkdir()
    code = (
        "import sys, os\n"
        "print(open(sys.argv[1] + '/a.txt').read())\n"
        "open(sys.argv[2] + '/session.json', 'w').write('{}')\n"
        "os.mkdir(sys.argv[2] + '/sub')\n"
        "try:\n"
        "    open(sys.argv[1] + '/b.txt', 'w')\n"
        "except PermissionError:\n"
        "    print('read-only')\n"
    )
    child = [sys.executable, "-I", "-S", "-c", code, str(extra_read), str(state)]
    done = _sandbox(world, "--read", str(extra_read), "--write", str(state), child=child)
    assert (done.returncode, done.stdout.split()) == (0, ["doc", "read-only"])
    assert sorted(os.listdir(state)) == ["session.json", "sub"]


def test_dry_run_prints_the_rule_set(world: dict[str, Path], tmp_path: Path) -> None:
    bindir = tmp_path / "tools" / "bin"
    bindir.mkdir(parents=True)
    tool = bindir / "agent"
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(0o755)
    env = _env(world)
    env["PATH"] = f"{bindir}:/usr/bin:/bin"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_skills",
            "sandbox",
            "--preset",
            "none",
            "--root",
            str(world["root"]),
            "--project",
            str(world["project"]),
            "--write",
            str(tmp_path / "tools"),
            "--dry-run",
            "--",
            "agent",
            "--flag",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["command"] == str(tool)
    assert shown["argv"] == ["agent", "--flag"]
    assert shown["network"] == "not restricted"
    assert shown["landlock"] == {"abi": ABI, "available": ABI > 0, "reason": WHY_NOT}
    rules = {r["path"]: (r["access"], r["reasons"]) for r in shown["rules"]}
    rw = ["read", "write", "create", "remove"]
    assert rules[str(world["project"])] == (rw, ["project"])
    assert rules[str(world["tmp"])] == (rw, ["temp"])
    assert rules[str(world["store"] / "pdf")] == (["read", "execute"], ["skill:pdf"])
    assert rules[str(world["root"] / "secret-notes")] == (
        ["read", "execute"],
        ["skill:secret-notes"],
    )
    assert rules[str(tmp_path / "tools")] == (
        ["read", "execute", "write", "create", "remove"],
        ["write", "command"],
    )
    assert rules["/dev"] == (["read", "write", "ioctl"], ["devices"])
    assert rules["/etc"] == (["read", "execute"], ["system"])
    assert rules[os.path.realpath(sys.base_prefix)][0] == ["read", "execute"]
    assert str(world["home"]) not in rules
    assert not any(path.startswith(str(world["home"] / ".ssh")) for path in rules)


def test_sandbox_rules_exactly(world: dict[str, Path], tmp_path: Path) -> None:
    prefix = tmp_path / "opt" / "agent"
    (prefix / "bin").mkdir(parents=True)
    exe = prefix / "bin" / "agent"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    linkdir = tmp_path / "links"
    linkdir.mkdir()
    symlink(linkdir / "agent", exe)  # the prefix is taken from the link's target
    grants = [Grant("pdf", world["root"] / "pdf", world["store"] / "pdf")]
    rules = sandbox_rules(
        grants,
        project=world["project"],
        read=[str(world["home"] / ".ssh" / "id_rsa")],
        command="agent",
        path_env=f"{linkdir}:relative/dir:/usr/bin",
    )
    assert rules.command == linkdir / "agent"
    by_path = {rule.path: rule for rule in rules.rules}
    assert by_path[prefix] == SandboxRule(prefix, ("read", "execute"), ("command",))
    # (a folder on PATH; where a link to the command is found is no prefix of it)
    assert by_path[linkdir] == SandboxRule(linkdir, ("read", "execute"), ("system",))
    assert by_path[world["home"] / ".ssh" / "id_rsa"].reasons == ("read",)
    assert by_path[world["store"] / "pdf"].access == ("read", "execute")
    assert Path("relative/dir") not in by_path
    assert Path("/usr/bin") not in by_path  # inside /usr, which gives it every right already
    assert [rule.reasons[0] for rule in rules.rules][:1] == ["system"]
    assert rules.to_dict()["rules"][0] == {
        "path": "/usr",
        "access": ["read", "execute"],
        "reasons": ["system"],
    }
    missing = sandbox_rules(project=world["project"], command="no-such-command-here")
    assert missing.command is None
    # A command given as a path is taken as it is, not searched on PATH.
    assert sandbox_rules(project=world["project"], command=str(exe)).command == exe
    assert sandbox_rules(project=world["project"], command=str(prefix)).command is None
    with pytest.raises(SkillError) as err:
        sandbox_rules(project=world["project"], write=[tmp_path / "nope"])
    assert (err.value.code, err.value.fields) == ("not_found", {"path": str(tmp_path / "nope")})
    with pytest.raises(SkillError) as err:
        sandbox_rules(project=tmp_path / "missing")
    assert err.value.code == "not_found"


def test_a_skill_inside_the_project_is_writable_as_part_of_it(world: dict[str, Path]) -> None:
    inside = make_skill(world["project"] / ".agents" / "skills", "local")
    rules = sandbox_rules([Grant("local", inside, inside)], project=world["project"])
    by_path = {rule.path: rule for rule in rules.rules}
    # The skill's own rule reads and executes; the project's above it writes (documented limit).
    assert by_path[inside].access == ("read", "execute")
    assert by_path[world["project"]].access == ("read", "write", "create", "remove")


def test_sandbox_unavailable_runs_nothing(world: dict[str, Path]) -> None:
    marker = world["project"] / "ran"
    code = (
        "import sys\n"
        "sys.modules['landlockpy'] = None  # the extra is not installed\n"
        "from agent_skills.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "sandbox",
            "--preset",
            "none",
            "--root",
            str(world["root"]),
            "--project",
            str(world["project"]),
            "--",
            "touch",
            str(marker),
        ],
        capture_output=True,
        text=True,
        env=_env(world),
        timeout=120,
    )
    assert done.returncode == 2
    if sys.platform.startswith("linux"):
        assert done.stderr.splitlines()[-1] == (
            "sandbox_unavailable: the sandbox is not available here: it needs the 'sandbox' "
            f"extra; install it with: {sys.executable} -m pip install 'landlockpy>=0.2' (or, "
            "from a checkout: pip install '.[sandbox]')"
        )
    assert not marker.exists()


@needs_landlock
def test_a_folder_swapped_for_a_link_after_the_rules_grants_nothing(
    world: dict[str, Path],
) -> None:
    # The store's folder becomes a link to ~/.ssh between the rule set and its application: the
    # rules are refused whole, nothing is applied, and the process stays as it was.
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from agent_skills import Grant, SkillError\n"
        "from agent_skills.grants import restrict_current_process, sandbox_rules\n"
        "store, project, ssh = sys.argv[1:4]\n"
        "real = Path(store) / 'pdf'\n"
        "rules = sandbox_rules([Grant('pdf', real, real)], project=project)\n"
        "os.rename(real, store + '/pdf-moved')\n"
        "os.symlink(ssh, real)\n"
        "try:\n"
        "    restrict_current_process(rules)\n"
        "except SkillError as err:\n"
        "    print(err.code.value, err.fields['path'] == str(real))\n"
        "print(open(ssh + '/id_rsa').read().strip())\n"
    )
    args = [str(world["store"]), str(world["project"]), str(world["home"] / ".ssh")]
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.splitlines() == ["not_found True", "-----BEGIN FAKE KEY-----"], done.stderr


def test_restrict_current_process_refuses_without_landlock(
    monkeypatch: pytest.MonkeyPatch, world: dict[str, Path]
) -> None:
    import agent_skills._sandbox as sandbox_module

    monkeypatch.setattr(sandbox_module, "landlock_abi", lambda: (0, "the kernel has no Landlock"))
    with pytest.raises(SkillError) as err:
        restrict_current_process(sandbox_rules(project=world["project"]))
    assert (err.value.code, err.value.fields) == (
        "sandbox_unavailable",
        {"reason": "the kernel has no Landlock"},
    )
    assert (world["home"] / ".ssh" / "id_rsa").read_text()  # this process is not restricted
    with pytest.raises(SkillError) as err:
        restrict_current_process({"rules": []})  # type: ignore[arg-type]
    assert err.value.code == "invalid_input"


def test_command_errors(world: dict[str, Path]) -> None:
    missing = _sandbox(world, child=["no-such-command-here"])
    assert (missing.returncode, missing.stderr) == (
        127,
        "command_not_found: no-such-command-here: command not found\n",
    )
    usage = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_skills",
            "sandbox",
            "--preset",
            "none",
            "--root",
            str(world["root"]),
        ],
        capture_output=True,
        text=True,
        env=_env(world),
        timeout=120,
    )
    assert usage.returncode == 2
    assert (
        usage.stderr == "usage_error: missing COMMAND: agent-skills sandbox [OPTIONS] -- COMMAND\n"
    )
    both = _sandbox(world, "--no-skills", "--skill", "pdf", child=["true"])
    assert both.returncode == 2


@needs_landlock
def test_a_program_inside_the_project_cannot_be_executed(world: dict[str, Path]) -> None:
    script = world["project"] / "tool.sh"
    script.write_text("#!/bin/sh\necho ran\n")
    script.chmod(0o755)
    done = _sandbox(world, child=["sh", "-c", f"'{script}'; echo rc=$?; sh '{script}'"])
    assert done.returncode == 0
    assert done.stdout.splitlines() == ["rc=126", "ran"]


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A virtual environment (no pip) outside the project; its ``bin/python`` is a link."""
    where = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    assert (where / "bin" / "python").is_symlink()
    return where


def test_a_link_in_home_bin_never_grants_the_home_folder(
    world: dict[str, Path], tmp_path: Path
) -> None:
    # ~/bin/tool -> /opt/tool/bin/tool: the prefix is the target's; the folder the link sits
    # in (whose prefix would be ~ itself) is not granted, so ~/.ssh stays unreadable.
    prefix = tmp_path / "opt" / "tool"
    (prefix / "bin").mkdir(parents=True)
    exe = prefix / "bin" / "tool"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    symlink(world["home"] / "bin" / "tool", exe)
    rules = sandbox_rules(
        project=world["project"], command="tool", path_env=str(world["home"] / "bin")
    )
    by_path = {rule.path: rule for rule in rules.rules}
    assert by_path[prefix].reasons == ("command",)
    assert world["home"] not in by_path
    home = world["home"]
    assert not any(
        rule.path == home or rule.path in home.parents
        for rule in rules.rules
        if "command" in rule.reasons
    )


def test_a_virtual_environment_is_granted_with_its_pythons_target(
    world: dict[str, Path], venv: Path
) -> None:
    # Its bin/python is a link out of the environment; the interpreter reads pyvenv.cfg and
    # site-packages from the link's side, so both prefixes are the command's.
    python = venv / "bin" / "python"
    for command, path_env in (("python", f"{venv / 'bin'}:/usr/bin"), (str(python), "/usr/bin")):
        rules = sandbox_rules(project=world["project"], command=command, path_env=path_env)
        assert rules.command == python
        by_path = {rule.path: rule for rule in rules.rules}
        assert by_path[venv] == SandboxRule(venv, ("read", "execute"), ("command",))
        target_prefix = Path(os.path.realpath(python)).parent.parent
        assert "command" in by_path[target_prefix].reasons


@needs_landlock
def test_a_virtual_environments_python_runs_in_the_sandbox(
    world: dict[str, Path], venv: Path
) -> None:
    code = "import sys; print(sys.prefix)"
    python = venv / "bin" / "python"
    for command in (str(python), "python"):  # by its path, and found on PATH
        env = {**_env(world), "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
        args = [sys.executable, "-m", "agent_skills", "sandbox", "--preset", "none"]
        args += ["--root", str(world["root"]), "--project", str(world["project"])]
        args += ["--", command, "-c", code]
        done = subprocess.run(
            args, capture_output=True, text=True, env=env, cwd=world["project"], timeout=120
        )
        assert (done.returncode, done.stdout) == (0, f"{venv}\n"), done.stderr


@needs_landlock
def test_the_command_itself_runs_without_a_dash_dash(world: dict[str, Path]) -> None:
    args = [
        sys.executable,
        "-m",
        "agent_skills",
        "sandbox",
        "--preset",
        "none",
        "--root",
        str(world["root"]),
        "--project",
        str(world["project"]),
        "sh",
        "-c",
        "exit 3",
    ]
    done = subprocess.run(args, capture_output=True, text=True, env=_env(world), timeout=120)
    assert done.returncode == 3, done.stderr


# -- the seed scenario, end to end ----------------------------------------------------------------


def _claude_rule_matches(rule: str, path: Path) -> bool:
    """Claude Code's documented grammar: ``Read(<pattern>)``, a pattern starting ``//`` is an
    absolute path, and patterns follow gitignore (``**`` any depth)."""
    assert rule.startswith("Read(") and rule.endswith(")")
    pattern = rule[len("Read(") : -1]
    assert pattern.startswith("//")
    spec = pathspec.GitIgnoreSpec.from_lines([pattern[1:]])  # anchored at the filesystem root
    return spec.match_file(str(path).lstrip("/"))


def test_seed_scenario_claude_reads_a_linked_skill_references(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = tmp_path / "shared-store"
    make_skill(store, "pdf-tools", files={"references/forms.md": "Fill forms so.\n"})
    make_skill(store, "pdf-tools-evil")
    symlink(home / ".agents" / "skills" / "pdf-tools", store / "pdf-tools")
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key")
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    (ws / "src").mkdir()
    env = dict(os.environ, HOME=str(home))
    done = subprocess.run(
        [sys.executable, "-m", "agent_skills", "grants", "--for", "claude", "--write"],
        cwd=ws / "src",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    settings = ws / ".claude" / "settings.local.json"
    assert done.stdout.splitlines()[0] == f"{settings}: 2 grant entries added"
    rules = json.loads(settings.read_text())["permissions"]["allow"]
    assert rules == [
        f"Read(/{store}/pdf-tools/**)",
        f"Read(/{home}/.agents/skills/pdf-tools/**)",
    ]
    link_ref = home / ".agents" / "skills" / "pdf-tools" / "references" / "forms.md"
    real_ref = store / "pdf-tools" / "references" / "forms.md"
    # The model may name either spelling; each is matched by a rule, and nothing else is.
    assert any(_claude_rule_matches(rule, link_ref) for rule in rules)
    assert any(_claude_rule_matches(rule, real_ref) for rule in rules)
    for outside in (home / ".ssh" / "id_rsa", store / "pdf-tools-evil" / "SKILL.md", ws / "x"):
        assert not any(_claude_rule_matches(rule, outside) for rule in rules), outside
    again = subprocess.run(
        [sys.executable, "-m", "agent_skills", "grants", "--for", "claude", "--write"],
        cwd=ws,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert again.stdout.splitlines() == [f"{settings}: unchanged (2 grant entries already there)"]


def test_a_rule_holding_the_home_folder_is_a_warning(world: dict[str, Path]) -> None:
    home = world["home"]
    args = [sys.executable, "-m", "agent_skills", "sandbox", "--preset", "none", "--root"]
    args += [str(world["root"]), "--project", str(home.parent), "--read", str(home)]
    done = subprocess.run(
        [*args, "--dry-run", "--", "true"],
        capture_output=True,
        text=True,
        env=_env(world),
        timeout=120,
    )
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        f"warning: rule_holds_home: {home.parent} (project) holds your home folder: all of it "
        "is readable and writable in the sandbox",
        f"warning: rule_holds_home: {home} (read) holds your home folder: all of it is "
        "readable in the sandbox",
        # the project holds the skills too: writable as part of it
        f"warning: skill_writable: 2 skill(s) inside {home.parent} (project) are writable in "
        "the sandbox, as that folder is: pdf, secret-notes",
    ]
    quiet = _sandbox(world, "--dry-run", child=["true"])
    assert quiet.stderr == ""


@pytest.mark.parametrize("chain", [41, 60])
def test_a_path_whose_links_cannot_be_resolved_grants_nothing(
    world: dict[str, Path], tmp_path: Path, chain: int
) -> None:
    """SPEC §30.6: a chain longer than 40 links (or a loop) is refused, never granted as the
    link where resolution stopped."""
    links = tmp_path / "chain"
    links.mkdir()
    (links / "end").mkdir()
    symlink(links / f"l{chain}", links / "end")
    for i in range(chain - 1, -1, -1):
        symlink(links / f"l{i}", links / f"l{i + 1}")
    loop = tmp_path / "loop"
    symlink(loop, loop)
    for bad in (links / "l0", loop):
        with pytest.raises(SkillError) as caught:
            sandbox_rules([], project=world["project"], read=[str(bad)])
        assert caught.value.code == "invalid_input"
        assert caught.value.fields == {"path": str(bad)}
        with pytest.raises(SkillError) as caught:
            sandbox_rules([], project=world["project"], write=[str(bad)])
        assert caught.value.fields == {"path": str(bad)}
    # A skill whose real path cannot be resolved is left out of the rules, not granted lexically.
    rules = sandbox_rules([Grant("x", loop, loop)], project=world["project"])
    assert all(rule.reasons != ("skill:x",) for rule in rules.rules)
    assert loop not in {rule.path for rule in rules.rules}


# -- writable rules that give more than their name says are named (SPEC §28.4) ---------------


@pytest.mark.parametrize("temp", ["/etc", "/usr", "/", "/var/lib", "/usr/share"])
def test_a_temporary_folder_that_is_a_system_folder_is_not_made_writable(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch, temp: str
) -> None:
    if not os.path.isdir(temp):
        pytest.skip(f"{temp} does not exist here")
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", temp)
    rules = sandbox_rules(project=world["project"])
    assert [r for r in rules.rules if "temp" in r.reasons] == []
    assert not any("write" in r.access and r.path == Path(temp) for r in rules.rules)
    codes = [code for code, _ in rules.warnings]
    assert codes == ["temp_not_granted"]
    assert f"the temporary folder {temp} (TMPDIR) is not under /tmp" in rules.warnings[0][1]


def test_a_temporary_folder_under_tmp_is_writable_without_a_warning(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(world["tmp"]))
    rules = sandbox_rules(project=world["project"])
    [temp] = [r for r in rules.rules if "temp" in r.reasons]
    assert (temp.path, temp.access) == (world["tmp"], ("read", "write", "create", "remove"))
    assert rules.warnings == ()


@pytest.mark.parametrize("system", ["/etc", "/usr/lib", "/"])
def test_a_writable_system_folder_is_a_warning(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch, system: str
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(world["tmp"]))
    rules = sandbox_rules(project=world["project"], write=[system])
    assert (
        "rule_grants_system",
        f"{Path(system)} ({'system, write' if system != '/' else 'write'}) is or holds a system "
        "folder: it is writable in the sandbox",
    ) in rules.warnings


def test_project_skills_are_named_as_writable_once(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(world["tmp"]))
    skills = world["project"] / ".agents" / "skills"
    grants = [Grant(n, skills / n, make_skill(skills, n)) for n in ("beta", "alpha")]
    grants.append(Grant("pdf", world["root"] / "pdf", world["store"] / "pdf"))
    rules = sandbox_rules(grants, project=world["project"], write=[world["project"] / ".agents"])
    assert rules.warnings == (
        (
            "skill_writable",
            f"2 skill(s) inside {world['project']} (project) are writable in the sandbox, as "
            "that folder is: alpha, beta",
        ),
    )


def test_the_cli_warns_of_a_system_tmpdir_and_of_writable_project_skills(
    world: dict[str, Path],
) -> None:
    make_skill(world["project"] / ".agents" / "skills", "local")
    args = [sys.executable, "-m", "agent_skills", "sandbox", "--preset", "agents"]
    done = subprocess.run(
        [*args, "--project", str(world["project"]), "--dry-run", "--", "true"],
        capture_output=True,
        text=True,
        env={**_env(world), "TMPDIR": "/etc"},
        cwd=world["project"],
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "warning: temp_not_granted: the temporary folder /etc (TMPDIR) is not under /tmp, "
        "/var/tmp, /dev/shm or a folder of yours: it is not made writable in the sandbox "
        "(grant it as a write path to make it writable anyway)",
        f"warning: skill_writable: 1 skill(s) inside {world['project']} (project) are "
        "writable in the sandbox, as that folder is: local",
    ]
    shown = json.loads(done.stdout)
    assert not any(r["path"] == "/etc" and "write" in r["access"] for r in shown["rules"])
