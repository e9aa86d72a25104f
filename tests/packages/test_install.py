"""Installs that prove what they touch (SPEC §25.4, §29.7, §30): never through a linked root,
never over what the lock does not show was installed, never losing local edits in silence, the
tree and the lock changed together under one lock, whole or not at all when killed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import SkillError
from agent_skills import packages as pkg
from agent_skills._config import SkillRoot
from conftest import make_skill

pytestmark = [pytest.mark.slow]


def hello(
    root: Path,
    name: str = "hello",
    body: str = "Hello.",
    version: str | None = None,
    script: bytes = b"echo hi\n",
) -> Path:
    extra = f"version: '{version}'\n" if version is not None else ""
    manifest = f"---\nname: {name}\ndescription: Says hello.\n{extra}---\n{body}\n"
    if (root / name).exists():
        shutil.rmtree(root / name)
    return make_skill(root, name, raw=manifest.encode(), files={"scripts/hi.sh": script})


@pytest.fixture
def env(env: dict[str, Path]) -> dict[str, Path]:
    """The package tests' home and workspace, and ``src``: where sources are made."""
    return {**env, "src": env["tmp"] / "vendor"}


def tree(root: Path) -> dict[str, Any]:
    """Everything below ``root``: files by bytes, links by target, hidden entries included."""
    out: dict[str, Any] = {}
    if not root.exists():
        return out
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_file():
            out[rel] = path.read_bytes()
    return out


def lock_entries(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["skills"] if path.exists() else []


# ---------------------------------------------------------------------------------------------
# a linked install root (the cloned repository whose .agents/skills is ~/.agents/skills)


def _user_skill(env: dict[str, Path]) -> Path:
    user_root = env["home"] / ".agents" / "skills"
    return hello(user_root, "mine", body="MY OWN SKILL")


LINKS = {
    ".agents/skills": lambda env: env["home"] / ".agents" / "skills",
    ".agents": lambda env: env["home"] / ".agents",
}


@pytest.mark.parametrize("link", sorted(LINKS))
@pytest.mark.parametrize("command", ["update", "add", "remove", "update-all"])
def test_a_linked_project_root_is_refused_and_the_users_skill_is_untouched(
    run: Callable[..., Result], env: dict[str, Path], link: str, command: str
) -> None:
    mine = _user_skill(env)
    before = tree(env["home"])
    attacker = hello(env["tmp"] / "attacker", "mine", body="ATTACKER")
    (env["ws"] / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(LINKS[link](env), env["ws"] / link)
    entry = {
        "name": "mine",
        "scope": "workspace",
        "source": "agents",
        "dir": ".agents/skills/mine",
        "digest": "sha256:00",
        "files": [],
        "origin": {"source": str(attacker.parent), "ref": None, "commit": None},
    }
    (env["ws"] / "skills.lock.json").write_text(json.dumps({"version": 1, "skills": [entry]}))
    args = {
        "update": ["update", "mine"],
        "update-all": ["update", "--force"],
        "add": ["add", str(attacker.parent), "--force"],
        "remove": ["remove", "mine", "--force"],
    }[command]
    result = run(*args)
    assert result.exit_code == 1
    assert result.output.startswith("path_escape: "), result.output
    assert "link" in result.output
    assert tree(env["home"]) == before
    assert (mine / "SKILL.md").read_text().endswith("MY OWN SKILL\n")


def test_a_linked_client_root_and_user_root_are_refused(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    hello(env["src"])
    elsewhere = env["tmp"] / "elsewhere"
    elsewhere.mkdir()
    (env["ws"] / ".claude").mkdir()
    os.symlink(elsewhere, env["ws"] / ".claude" / "skills")
    result = run("add", str(env["src"]), "--client", "claude")
    assert result.exit_code == 1 and result.output.startswith("path_escape: ")
    os.symlink(elsewhere, env["home"] / ".claude")
    result = run("add", str(env["src"]), "--client", "claude", "--to", "user")
    assert result.exit_code == 1 and result.output.startswith("path_escape: ")
    (env["home"] / ".agents").mkdir()
    os.symlink(elsewhere, env["home"] / ".agents" / "skills")
    for args in (["add", str(env["src"]), "--to", "user"], ["remove", "hello", "--to", "user"]):
        result = run(*args)
        assert result.exit_code == 1 and result.output.startswith("path_escape: ")
    assert list(elsewhere.iterdir()) == []


def test_a_linked_lock_is_refused(run: Callable[..., Result], env: dict[str, Path]) -> None:
    hello(env["src"])
    user_lock = env["home"] / ".agents" / "skills.lock.json"
    user_lock.parent.mkdir(parents=True)
    user_lock.write_text('{"version": 1, "skills": []}\n')
    os.symlink(user_lock, env["ws"] / "skills.lock.json")
    result = run("add", str(env["src"]))
    assert result.exit_code == 1 and result.output.startswith("path_escape: ")
    assert user_lock.read_text() == '{"version": 1, "skills": []}\n'
    assert not (env["ws"] / ".agents" / "skills" / "hello").exists()


def test_the_library_refuses_a_linked_root_below_its_base(env: dict[str, Path]) -> None:
    hello(env["src"])
    target = env["tmp"] / "target"
    target.mkdir()
    os.symlink(target, env["ws"] / "skills")
    source = pkg.Source("directory", str(env["src"]))
    calls: list[Callable[[], object]] = [
        lambda: pkg.install_skills(source, env["ws"] / "skills" / "inner", workspace=env["ws"]),
        lambda: pkg.install_skills(source, env["ws"] / "skills"),  # the root itself
        lambda: pkg.remove_skill(env["ws"] / "skills", "hello", force=True),
        lambda: pkg.update_skills(
            env["ws"] / "skills", lock=env["ws"] / "skills.lock.json", workspace=env["ws"]
        ),
    ]
    for call in calls:
        with pytest.raises(SkillError) as info:
            call()
        assert info.value.code == "path_escape"
        assert info.value.fields["link"] == str(env["ws"] / "skills")
    assert list(target.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# nothing is deleted or replaced that the lock does not show was installed


def test_remove_refuses_what_no_lock_shows_was_installed(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    root = env["ws"] / ".agents" / "skills"
    hand = hello(root, "hand", body="WRITTEN BY HAND")
    outside = hello(env["tmp"] / "outside", "linked", body="NOT OURS")
    os.symlink(outside, root / "linked")
    hello(root, "locked")
    assert run("lock").exit_code == 0  # an entry without an origin: not an install
    for name in ("hand", "linked", "locked"):
        result = run("remove", name)
        assert result.exit_code == 1, name
        assert result.output.startswith("access_denied: "), result.output
        assert "--force" in result.output
    assert (hand / "SKILL.md").is_file() and (root / "linked").is_symlink()
    assert (root / "locked" / "SKILL.md").is_file()
    result = run("remove", "linked", "--force")
    assert result.exit_code == 0, result.output
    assert not os.path.lexists(root / "linked")
    assert (outside / "SKILL.md").read_text().endswith("NOT OURS\n")  # never followed
    assert run("remove", "hand", "--force").exit_code == 0
    assert not hand.exists()
    assert [e["name"] for e in lock_entries(env["ws"] / "skills.lock.json")] == ["locked"]


def test_remove_without_a_lock_proves_nothing_and_refuses(env: dict[str, Path]) -> None:
    root = env["tmp"] / "root"
    hello(env["src"])
    pkg.install_skills(pkg.Source("directory", str(env["src"])), root)
    with pytest.raises(SkillError) as info:
        pkg.remove_skill(root, "hello")
    assert info.value.code == "access_denied"
    assert info.value.fields == {
        "name": "hello",
        "path": str(root / "hello"),
        "reason": "not_installed",
    }
    assert pkg.remove_skill(root, "hello", force=True).name == "hello"
    assert not (root / "hello").exists()


EDITS: dict[str, Callable[[Path], None]] = {
    "changed": lambda d: (d / "scripts" / "hi.sh").write_bytes(b"echo edited\n"),
    "added": lambda d: (d / "scripts" / "new.sh").write_bytes(b"echo new\n"),
    "hidden": lambda d: (d / ".env").write_text("MY_TOKEN=1"),
    "link": lambda d: os.symlink("/etc/hostname", d / "scripts" / "l"),
    "nested": lambda d: (
        (d / "a" / "b").mkdir(parents=True) or (d / "a" / "b" / "n.md").write_text("x")
    ),
}
EXPECTED = {
    "changed": [{"status": "changed", "path": "scripts/hi.sh"}],
    "added": [{"status": "added", "path": "scripts/new.sh"}],
    "hidden": [{"status": "added", "path": ".env"}],
    "link": [{"status": "added", "path": "scripts/l"}],
    "nested": [{"status": "added", "path": "a/b/n.md"}],
}


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("command", ["update", "remove"])
def test_local_edits_are_named_and_kept_unless_forced(
    run: Callable[..., Result], env: dict[str, Path], edit: str, command: str
) -> None:
    hello(env["src"], script=b"echo v1\n")
    assert run("add", str(env["src"])).exit_code == 0
    installed = env["ws"] / ".agents" / "skills" / "hello"
    hello(env["src"], script=b"echo v2\n")
    EDITS[edit](installed)
    before, lock_before = tree(installed), (env["ws"] / "skills.lock.json").read_bytes()
    result = run(command, "hello")
    assert result.exit_code == 1
    assert result.output.startswith("access_denied: ") and "--force" in result.output
    assert EXPECTED[edit][0]["path"] in result.output
    assert tree(installed) == before
    assert (env["ws"] / "skills.lock.json").read_bytes() == lock_before
    lock = env["ws"] / "skills.lock.json"
    call = (
        (lambda: pkg.update_skills(installed.parent, ["hello"], lock=lock))
        if command == "update"
        else (lambda: pkg.remove_skill(installed.parent, "hello", lock=lock))
    )
    with pytest.raises(SkillError) as info:
        call()
    assert info.value.code == "access_denied"
    assert info.value.fields["reason"] == "local_changes"
    assert info.value.fields["files"] == EXPECTED[edit]
    result = run(command, "hello", "--force")
    assert result.exit_code == 0, result.output
    if command == "update":
        assert (installed / "scripts" / "hi.sh").read_bytes() == b"echo v2\n"
        assert sorted(tree(installed)) == ["SKILL.md", "scripts/hi.sh"]
    else:
        assert not installed.exists()


def test_a_file_deleted_locally_loses_nothing_and_update_restores_it(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    hello(env["src"])
    assert run("add", str(env["src"])).exit_code == 0
    installed = env["ws"] / ".agents" / "skills" / "hello"
    (installed / "scripts" / "hi.sh").unlink()
    result = run("update", "hello")
    assert result.exit_code == 0, result.output
    assert (installed / "scripts" / "hi.sh").is_file()


def test_update_touches_only_the_installs_its_lock_shows_in_its_root(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    mine = _user_skill(env)
    attacker = hello(env["tmp"] / "attacker", "mine", body="ATTACKER")
    entry = {
        "name": "mine",
        "scope": "workspace",
        "source": "agents",
        "dir": str(mine),  # another root's folder
        "digest": "sha256:00",
        "files": [],
        "origin": {"source": str(attacker.parent), "ref": None, "commit": None},
    }
    (env["ws"] / "skills.lock.json").write_text(json.dumps({"version": 1, "skills": [entry]}))
    before = tree(env["home"])
    result = run("update", "mine")
    assert result.exit_code == 1
    assert result.output.startswith("not_found: ")
    result = run("update")
    assert result.exit_code == 0
    assert result.output.startswith("nothing to update: ")
    assert tree(env["home"]) == before
    assert not (env["ws"] / ".agents" / "skills" / "mine").exists()


def test_remove_of_a_folder_already_gone_drops_its_entry(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    hello(env["src"])
    hello(env["src"], "other")
    assert run("add", str(env["src"])).exit_code == 0
    shutil.rmtree(env["ws"] / ".agents" / "skills" / "hello")
    result = run("remove", "hello")
    assert result.exit_code == 0, result.output
    assert [e["name"] for e in lock_entries(env["ws"] / "skills.lock.json")] == ["other"]
    assert run("remove", "hello").output.startswith("not_found: ")


# ---------------------------------------------------------------------------------------------
# versions (SPEC §29.7)


def test_update_prints_versions_and_refuses_a_downgrade(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    lock = env["ws"] / "skills.lock.json"
    hello(env["src"], version="1.0")
    assert run("add", str(env["src"])).exit_code == 0
    assert lock_entries(lock)[0]["version"] == "1.0"
    installed = env["ws"] / ".agents" / "skills" / "hello"
    hello(env["src"], version="1.1", body="Newer.")
    result = run("update")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"updated hello (1.0 -> 1.1) in {installed}",
        f"lock: {lock}",
    ]
    assert lock_entries(lock)[0]["version"] == "1.1"
    hello(env["src"], version="0.9", body="Older.")
    lock_before = lock.read_bytes()
    result = run("update", "hello")
    assert result.exit_code == 1
    assert result.output == (
        "access_denied: hello 1.1 -> 0.9 is a downgrade (use --allow-downgrade to install it)\n"
    )
    assert lock.read_bytes() == lock_before
    assert "Newer." in (installed / "SKILL.md").read_text()
    with pytest.raises(SkillError) as info:
        pkg.update_skills(installed.parent, lock=lock, workspace=env["ws"])
    assert info.value.fields == {
        "name": "hello",
        "version": "1.1",
        "available": "0.9",
        "reason": "downgrade",
    }
    result = run("update", "--allow-downgrade")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"updated hello (1.1 -> 0.9) in {installed}"
    assert lock_entries(lock)[0]["version"] == "0.9"


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        ("banana", "apple", "(banana -> apple)"),  # not PEP 440: not compared
        ("2.0", "weird-1", "(2.0 -> weird-1)"),
        (None, "1.0", "(unversioned -> 1.0)"),
        ("1.0", None, "(1.0 -> unversioned)"),
        ("1.0rc1", "1.0", "(1.0rc1 -> 1.0)"),
    ],
)
def test_versions_that_do_not_compare_are_not_refused(
    run: Callable[..., Result], env: dict[str, Path], old: str | None, new: str | None, shown: str
) -> None:
    hello(env["src"], version=old)
    assert run("add", str(env["src"])).exit_code == 0
    hello(env["src"], version=new, body="Other.")
    result = run("update", "hello")
    assert result.exit_code == 0, result.output
    assert (
        result.output.splitlines()[0]
        == f"updated hello {shown} in {env['ws'] / '.agents' / 'skills' / 'hello'}"
    )


def test_the_version_of_metadata_and_of_an_old_lock_entry(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    lock = env["ws"] / "skills.lock.json"
    make_skill(
        env["src"],
        "meta",
        raw=b"---\nname: meta\ndescription: d\nmetadata:\n  version: '2.0'\n---\nBody.\n",
    )
    assert run("add", str(env["src"])).exit_code == 0
    data = json.loads(lock.read_text())
    assert data["skills"][0]["version"] == "2.0"
    del data["skills"][0]["version"]  # a lock written before versions were recorded
    lock.write_text(json.dumps(data))
    shutil.rmtree(env["src"] / "meta")
    make_skill(
        env["src"],
        "meta",
        raw=b"---\nname: meta\ndescription: d\nmetadata:\n  version: '1.5'\n---\nBody.\n",
    )
    result = run("update", "meta")
    assert result.exit_code == 1  # the installed manifest says 2.0
    assert "2.0 -> 1.5 is a downgrade" in result.output


# ---------------------------------------------------------------------------------------------
# one lock for the tree and the lock; a kill leaves the previous install whole


def test_six_concurrent_add_processes_leave_six_entries(env: dict[str, Path]) -> None:
    names = [f"s{i}" for i in range(6)]
    for name in names:
        hello(env["src"], name)
    command = [sys.executable, "-m", "agent_skills", "add", str(env["src"]), "--skill"]
    run_env = {**os.environ, "HOME": str(env["home"])}
    procs = [
        subprocess.Popen(
            [*command, name],
            cwd=env["ws"],
            env=run_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in names
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, outputs
    entries = lock_entries(env["ws"] / "skills.lock.json")
    assert [e["name"] for e in entries] == names
    root = env["ws"] / ".agents" / "skills"
    assert sorted(p.name for p in root.iterdir()) == names
    assert sorted(p.name for p in env["ws"].iterdir()) == [".agents", ".git", "skills.lock.json"]


def _state(env: dict[str, Path]) -> tuple[dict[str, Any], bytes | None]:
    lock = env["ws"] / "skills.lock.json"
    return tree(env["ws"] / ".agents" / "skills"), lock.read_bytes() if lock.exists() else None


_MUTATIONS = ("rename", "replace", "mkdir", "unlink", "rmdir", "chmod")


def _run_killed_at(n: int, action: Callable[[], object]) -> bool:
    """Run ``action`` in a forked process that SIGKILLs itself at its ``n``-th change of the
    file system; True when it ran to its end first."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            count = [0]

            def tick() -> None:
                count[0] += 1
                if count[0] == n:
                    os.kill(os.getpid(), signal.SIGKILL)

            def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
                def inner(*args: Any, **kwargs: Any) -> Any:
                    tick()
                    return fn(*args, **kwargs)

                return inner

            for name in _MUTATIONS:
                setattr(os, name, wrap(getattr(os, name)))
            real_open = os.open

            def opening(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
                if flags & os.O_CREAT:
                    tick()
                return real_open(path, flags, *args, **kwargs)

            os.open = opening  # type: ignore[assignment]
            action()
            os._exit(0)
        except BaseException:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return False
    assert os.WEXITSTATUS(status) == 0
    return True


def _leftovers(env: dict[str, Path]) -> list[str]:
    root = env["ws"] / ".agents" / "skills"
    found = [p.name for p in root.iterdir() if p.name.startswith(".") or "agent-skills" in p.name]
    found += [p.name for p in env["ws"].iterdir() if p.name.endswith(".tmp")]
    return found


SCENARIOS = ["add", "add-force", "update", "remove"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_kill_at_any_point_leaves_the_previous_install_or_the_new_one(
    env: dict[str, Path], scenario: str
) -> None:
    root = SkillRoot(env["ws"] / ".agents" / "skills", "workspace", "agents")
    lock = env["ws"] / "skills.lock.json"
    source = pkg.Source("directory", str(env["src"]))
    hello(env["src"], "keep")
    hello(env["src"], version="1.0", script=b"echo v1\n")
    if scenario != "add":
        pkg.install_skills(source, root, lock=lock, workspace=env["ws"])
    else:
        pkg.install_skills(source, root, names=["keep"], lock=lock, workspace=env["ws"])
    hello(env["src"], version="2.0", script=b"echo v2\n")
    actions: dict[str, Callable[[], object]] = {
        "add": lambda: pkg.install_skills(source, root, names=["hello"], lock=lock),
        "add-force": lambda: pkg.install_skills(
            source, root, names=["hello"], lock=lock, force=True
        ),
        "update": lambda: pkg.update_skills(root, ["hello"], lock=lock),
        "remove": lambda: pkg.remove_skill(root, "hello", lock=lock),
    }
    old = _state(env)
    snapshot = env["tmp"] / "snapshot"
    shutil.copytree(env["ws"], snapshot, symlinks=True)
    seen: list[tuple[dict[str, Any], bytes | None]] = []
    completed = False
    started = time.monotonic()
    for n in range(1, 200):
        assert time.monotonic() - started < 120
        completed = _run_killed_at(n, actions[scenario])
        killed = _state(env)
        # Before any recovery the lock is the old one or the new one, never a mix.
        seen.append(killed)
        # The next command finishes or undoes it (here: a removal of a name never installed).
        with pytest.raises(SkillError) as info:
            pkg.remove_skill(root, "never-installed", lock=lock)
        assert info.value.code == "not_found"
        seen[-1] = _state(env)
        assert _leftovers(env) == []
        if completed:
            break
        shutil.rmtree(env["ws"])
        shutil.copytree(snapshot, env["ws"], symlinks=True)
    assert completed, "the action never ran to its end"
    new = seen[-1]
    assert new != old
    assert seen[0] == old  # killed at its first change: nothing happened
    for state in seen:
        assert state in (old, new)
    assert len(seen) > 5  # killed at many points
    # The lock always describes the tree it sits beside.
    assert ("hello/SKILL.md" in new[0]) == (scenario != "remove")


# `agent-skills add SRC --skill hello --force` in a process that SIGKILLs itself at its
# KILL_AT-th rename or replace.
_KILLED_ADD = (
    "import os, signal, sys\n"
    "n = int(os.environ['KILL_AT']); count = [0]\n"
    "def wrap(fn):\n"
    "    def inner(*a, **k):\n"
    "        count[0] += 1\n"
    "        if count[0] == n: os.kill(os.getpid(), signal.SIGKILL)\n"
    "        return fn(*a, **k)\n"
    "    return inner\n"
    "for name in ('rename', 'replace'): setattr(os, name, wrap(getattr(os, name)))\n"
    "from agent_skills.cli import main\n"
    "sys.argv = ['agent-skills', 'add', sys.argv[1], '--skill', 'hello', '--force']\n"
    "main()\n"
)


def _add_killed_at(
    n: int, env: dict[str, Path], run_env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    """:data:`_KILLED_ADD` of ``env["src"]`` run in the workspace, killed at its ``n``-th
    rename or replace."""
    return subprocess.run(
        [sys.executable, "-c", _KILLED_ADD, str(env["src"])],
        cwd=env["ws"],
        env={**run_env, "KILL_AT": str(n)},
        capture_output=True,
        timeout=60,
    )


def test_a_killed_cli_add_is_undone_by_the_next_command(env: dict[str, Path]) -> None:
    # A real process of the command line, killed at a few points of its install.
    hello(env["src"], "keep")
    hello(env["src"], script=b"echo v1\n")
    run_env = {**os.environ, "HOME": str(env["home"])}
    base = [sys.executable, "-m", "agent_skills"]
    done = subprocess.run(
        [*base, "add", str(env["src"]), "--skill", "hello"],
        cwd=env["ws"],
        env=run_env,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    hello(env["src"], script=b"echo v2\n")
    old = _state(env)
    snapshot = env["tmp"] / "snapshot"
    shutil.copytree(env["ws"], snapshot, symlinks=True)
    outcomes = []
    for n in (1, 2, 3, 4):
        shutil.rmtree(env["ws"])
        shutil.copytree(snapshot, env["ws"], symlinks=True)
        killed = _add_killed_at(n, env, run_env)
        after = subprocess.run(
            [*base, "remove", "never-installed"], cwd=env["ws"], env=run_env, capture_output=True
        )
        assert after.returncode == 1 and after.stderr.startswith(b"not_found: ")
        outcomes.append((killed.returncode, _state(env)))
        assert _leftovers(env) == []
    assert outcomes[0] == (-signal.SIGKILL, old)  # the journal's own rename: nothing changed yet
    new_tree = dict(old[0])
    new_tree["hello/scripts/hi.sh"] = b"echo v2\n"
    for code, (files, lock_bytes) in outcomes:
        assert code == -signal.SIGKILL
        assert (files, lock_bytes) == old or files == new_tree


def test_lock_after_a_killed_add_records_the_install_finished_or_undone(
    env: dict[str, Path],
) -> None:
    # SPEC §25.3-§25.4: `lock` finishes or undoes what a killed add left before it records the
    # tree, so the lock it writes is the one the next command keeps: nothing is undone later
    # against it, and `verify` agrees with it. `verify` before it warns and changes nothing.
    hello(env["src"], "keep")
    hello(env["src"], script=b"echo v1\n")
    run_env = {**os.environ, "HOME": str(env["home"])}
    base = [sys.executable, "-m", "agent_skills"]

    def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*base, *args], cwd=env["ws"], env=run_env, capture_output=True)

    assert cli("add", str(env["src"]), "--skill", "hello").returncode == 0
    hello(env["src"], script=b"echo v2\n")
    old_tree = _state(env)[0]
    new_tree = {**old_tree, "hello/scripts/hi.sh": b"echo v2\n"}
    hello_dir = env["ws"] / ".agents" / "skills" / "hello"
    snapshot = env["tmp"] / "snapshot"
    shutil.copytree(env["ws"], snapshot, symlinks=True)
    unfinished = 0
    for n in (2, 3, 4):
        shutil.rmtree(env["ws"])
        shutil.copytree(snapshot, env["ws"], symlinks=True)
        killed = _add_killed_at(n, env, run_env)
        assert killed.returncode == -signal.SIGKILL
        if _leftovers(env):
            unfinished += 1
            before = _state(env)
            checked = cli("verify")
            assert b"warning: unfinished_install: " in checked.stderr
            assert _state(env) == before  # verify only reads
        listed = cli("list", "--json")  # before any recovery: the installed copy or none
        assert listed.returncode == 0, listed.stderr
        assert [s["dir"] for s in json.loads(listed.stdout)] in ([], [str(hello_dir)])
        locked = cli("lock")
        assert locked.returncode == 0, locked.stderr
        # What it records is what it warns about: nothing of the install's work is a skill.
        assert b"warning:" not in locked.stderr, locked.stderr
        assert _leftovers(env) == []
        files, lock_bytes = _state(env)
        assert files in (old_tree, new_tree)
        assert lock_bytes is not None
        entry = {e["name"]: e for e in json.loads(lock_bytes)["skills"]}["hello"]
        assert entry["origin"]["source"] == str(env["src"])  # the install's origin kept
        assert cli("verify").returncode == 0
        assert cli("remove", "never-installed").returncode == 1  # (it recovers first)
        assert _state(env) == (files, lock_bytes)
    assert unfinished >= 1  # (a kill point left a transaction for `lock` to settle)


def test_a_planted_journal_never_takes_out_a_directory_it_did_not_stage(
    env: dict[str, Path], run: Callable[..., Result]
) -> None:
    # A journal comes with a repository: naming a hand-written skill's inode (with or without
    # a proof it cannot know) makes no recovery take the folder out, `lock`'s included.
    root = env["ws"] / ".agents" / "skills"
    mine = make_skill(root, "notes", body="mine")
    before = tree(root)
    ino = os.lstat(mine).st_ino
    for n, proof in enumerate([None, "0" * 64]):
        journal = root / f".agent-skills-txn-{n:016x}.json"
        items = [{"name": "notes", "staged": ino, "proof": proof}]
        journal.write_text(json.dumps({"version": 1, "skills": items, "lock": None}))
        result = run("lock")
        assert result.exit_code == 0, result.output
        assert "left " in result.output and "notes as it is" in result.output
        assert tree(root) == before  # the journal gone, the folder untouched
    assert json.loads((env["ws"] / "skills.lock.json").read_text())["skills"][0]["name"] == "notes"


def test_a_kept_name_already_taken_never_blocks_recovery(
    env: dict[str, Path], run: Callable[..., Result]
) -> None:
    # Undoing, a set-aside copy whose place is taken is kept beside it; a folder (planted with
    # the journal, or left by an earlier recovery) already holding that name never makes every
    # later command fail: the copy is kept under another name.
    root = env["ws"] / ".agents" / "skills"
    token = "00000000000000bb"
    make_skill(root, "alpha", body="in place")
    make_skill(root, f".agent-skills-old-{token}-alpha", body="set aside")
    make_skill(root, f"alpha.agent-skills-kept-{token}", body="planted")
    items = [{"name": "alpha", "staged": None, "proof": None}]
    (root / f".agent-skills-txn-{token}.json").write_text(
        json.dumps({"version": 1, "skills": items, "lock": None})
    )
    result = run("lock")
    assert result.exit_code == 0, result.output
    bodies = {
        p.name: (p / "SKILL.md").read_text().split("---\n")[-1].strip()
        for p in root.iterdir()
        if (p / "SKILL.md").is_file()
    }
    assert bodies.pop("alpha") == "in place"
    assert bodies.pop(f"alpha.agent-skills-kept-{token}") == "planted"
    assert list(bodies.values()) == ["set aside"]
    assert next(iter(bodies)).startswith(f"alpha.agent-skills-kept-{token}-")
    assert pkg.pending_journals(root) == []


def test_an_edited_copy_of_an_unfinished_install_is_left_as_it_is(
    env: dict[str, Path],
) -> None:
    # SPEC §25.4, nothing lost in silence: a copy renamed into place by an install killed
    # before its commit, then edited, stays as it is when the install is undone; the copy it
    # replaced is kept beside it.
    hello(env["src"], script=b"echo v1\n")
    run_env = {**os.environ, "HOME": str(env["home"])}
    base = [sys.executable, "-m", "agent_skills"]
    assert (
        subprocess.run(
            [*base, "add", str(env["src"]), "--skill", "hello"], cwd=env["ws"], env=run_env
        ).returncode
        == 0
    )
    hello(env["src"], script=b"echo v2\n")
    root = env["ws"] / ".agents" / "skills"
    for n in (2, 3, 4):
        killed = _add_killed_at(n, env, run_env)
        assert killed.returncode == -signal.SIGKILL
        script = root / "hello" / "scripts" / "hi.sh"
        if script.is_file() and script.read_bytes() == b"echo v2\n" and _leftovers(env):
            break  # the new copy is in place, its transaction unfinished
        subprocess.run([*base, "lock"], cwd=env["ws"], env=run_env, check=True)
    else:
        pytest.fail("no kill point left the new copy in place unfinished")
    (root / "hello" / "notes.md").write_text("hours of work")
    edited = tree(root / "hello")
    locked = subprocess.run([*base, "lock"], cwd=env["ws"], env=run_env, capture_output=True)
    assert locked.returncode == 0, locked.stderr
    assert b"as it is" in locked.stderr
    assert tree(root / "hello") == edited
    kept = [p.name for p in root.iterdir() if ".agent-skills-kept-" in p.name]
    assert len(kept) == 1 and kept[0].startswith("hello.agent-skills-kept-")
    assert (root / kept[0] / "scripts" / "hi.sh").read_bytes() == b"echo v1\n"


def test_verify_waits_for_an_install_in_progress(env: dict[str, Path]) -> None:
    # A reader's lock: verify never compares half of an add, update or remove with the lock.
    hello(env["src"])
    run_env = {**os.environ, "HOME": str(env["home"])}
    base = [sys.executable, "-m", "agent_skills"]
    subprocess.run([*base, "add", str(env["src"])], cwd=env["ws"], env=run_env, check=True)
    with pkg.lock_held(env["ws"] / "skills.lock.json"):  # what an install holds
        verify = subprocess.Popen(
            [*base, "verify"], cwd=env["ws"], env=run_env, stdout=subprocess.PIPE
        )
        time.sleep(1.0)
        assert verify.poll() is None  # still waiting
    out, _ = verify.communicate(timeout=60)
    assert verify.returncode == 0 and b"1 skill matches the lock" in out


def test_at_home_the_project_scope_is_the_user_scope(env: dict[str, Path]) -> None:
    # SPEC §21.13: a workspace equal to home gives each path once, with the user's scope. An
    # add run there (a repository of the home folder, or no repository at all) installs for
    # the user, so what is installed is what discovery, `verify` and `update` see.
    from conftest import invoke_cli

    home = env["ws"]  # (it holds .git: a repository of the home folder)
    hello(env["src"], "beta")

    def cli(*args: str) -> Result:
        return invoke_cli(args, cwd=home, home=home)

    added = cli("add", str(env["src"]), "--skill", "beta")
    assert added.exit_code == 0, added.output
    user_lock = home / ".agents" / "skills.lock.json"
    entries = json.loads(user_lock.read_text())["skills"]
    assert [(e["name"], e["scope"], e["dir"]) for e in entries] == [
        ("beta", "user", ".agents/skills/beta")  # (inside the workspace: relative to it)
    ]
    assert not (home / "skills.lock.json").exists()
    checked = cli("verify", "--lock", str(user_lock))
    assert checked.exit_code == 0 and "1 skill matches the lock" in checked.output
    listed = json.loads(cli("list", "--json").stdout)
    assert [(s["name"], s["scope"]) for s in listed] == [("beta", "user")]
    hello(env["src"], "beta", body="Hello again.")
    assert cli("update", "beta").exit_code == 0
    assert "Hello again." in (home / ".agents" / "skills" / "beta" / "SKILL.md").read_text()
    assert cli("remove", "beta").exit_code == 0
    assert json.loads(user_lock.read_text())["skills"] == []


def test_a_lock_that_cannot_be_taken_is_a_coded_error_for_a_writer_and_no_bar_to_a_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # flock refused (ENOLCK on some network filesystems): a writer gets fs_error's code and
    # changes nothing; a reader (verify) reads unlocked; the descriptor is closed either way.
    import errno
    import fcntl

    from agent_skills.packages import _lock

    def refuse(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", refuse)
    opened_before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(SkillError) as caught, _lock.held_directory(tmp_path / "w"):
        pytest.fail("a writer ran without its lock")
    assert caught.value.code.value == "io_error"
    assert caught.value.fields["path"] == str(tmp_path / "w")
    ran = []
    with _lock.held_directory(tmp_path / "r", shared=True):  # (missing: read unlocked)
        ran.append("missing")
    with _lock.held_directory(tmp_path, shared=True):
        ran.append("refused")
    assert ran == ["missing", "refused"]
    assert len(os.listdir("/proc/self/fd")) == opened_before


def test_lock_to_another_file_recovers_nothing_and_warns(
    env: dict[str, Path], run: Callable[..., Result]
) -> None:
    # Only the project's own lock settles the project's transactions; written elsewhere, the
    # lock names each root left mid-change instead, and the journal stays for the next command.
    root = env["ws"] / ".agents" / "skills"
    make_skill(root, "notes")
    journal = root / ".agent-skills-txn-00000000000000aa.json"
    journal.write_text("not yet read")
    result = run("lock", "--output", str(env["tmp"] / "other.json"))
    assert result.exit_code == 0, result.output
    assert f"warning: unfinished_install: {root} holds 1 unfinished" in result.output
    assert journal.read_text() == "not yet read"


def test_lock_keeps_an_install_that_ended_while_it_waited_for_the_lock(
    env: dict[str, Path], run: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command's own discovery runs before it holds the lock; what it records is read again
    # under the lock, so an add that committed in between is in the lock it writes, with its
    # origin (SPEC §25.3: an entry is never lost).
    from collections.abc import Iterator
    from contextlib import contextmanager

    from agent_skills.cli import packages as cli_packages

    hello(env["src"], "first")
    assert run("add", str(env["src"]), "--skill", "first").exit_code == 0
    hello(env["src"], "second")
    real = cli_packages.lock_held

    @contextmanager
    def after_an_add(path: Path) -> Iterator[None]:
        pkg.install_skills(
            pkg.parse_source(str(env["src"])),
            SkillRoot(env["ws"] / ".agents" / "skills", "workspace", "agents"),
            names=["second"],
            lock=env["ws"] / "skills.lock.json",
            workspace=env["ws"],
        )
        with real(path):
            yield

    monkeypatch.setattr(cli_packages, "lock_held", after_an_add)
    result = run("lock")
    assert result.exit_code == 0, result.output
    written = json.loads((env["ws"] / "skills.lock.json").read_text())
    entries = {e["name"]: e for e in written["skills"]}
    assert sorted(entries) == ["first", "second"]
    assert entries["second"]["origin"]["source"] == str(env["src"])
    monkeypatch.setattr(cli_packages, "lock_held", real)
    assert run("verify").exit_code == 0


def test_recover_roots_acts_only_on_roots_reached_without_a_link(env: dict[str, Path]) -> None:
    # A journal in a root reached through a link, or outside the workspace, is another
    # tree's: recover_roots leaves it (and its transaction) as it is.
    lock = env["ws"] / "skills.lock.json"
    elsewhere = env["tmp"] / "store"
    (elsewhere / "skills").mkdir(parents=True)
    (env["ws"] / ".claude").mkdir()
    (env["ws"] / ".claude" / "skills").symlink_to(elsewhere / "skills")
    outside = env["tmp"] / "outside"
    outside.mkdir()
    planted = []
    for root in (elsewhere / "skills", outside):
        journal = root / ".agent-skills-txn-0123456789abcdef.json"
        journal.write_text("not a journal")
        planted.append(journal)
    inside = env["ws"] / ".agents" / "skills"
    inside.mkdir(parents=True)
    (inside / ".agent-skills-txn-0123456789abcdef.json").write_text("not a journal")
    notes = pkg.recover_roots(
        [env["ws"] / ".claude" / "skills", outside, inside, env["ws"] / "missing"],
        lock=lock,
        workspace=env["ws"],
    )
    assert [p.read_text() for p in planted] == ["not a journal"] * 2  # untouched
    assert pkg.pending_journals(inside) == []  # set aside: it was not one
    assert len(notes) == 1 and "set aside the recovery journal" in notes[0].message
    assert pkg.pending_journals(outside) == [planted[1].name]


# ---------------------------------------------------------------------------------------------
# names read from a lock are skill names before anything is joined to the root (SPEC §25.4)

_BAD_NAMES = st.one_of(
    st.builds(
        lambda ups, word: "../" * ups + word,
        st.integers(1, 6),
        st.sampled_from(["victim", "etc", "home/u/.ssh", ""]),
    ),
    st.builds(lambda word: "/" + word, st.sampled_from(["victim", "etc/passwd", "tmp"])),
    st.builds(lambda a, b: f"{a}\x00{b}", st.sampled_from(["a", ""]), st.sampled_from(["b", ""])),
    st.sampled_from(["..", ".", "", "a/b", "a\\b", "C:x", " ../x", "a\nb", "\uff0fetc"]),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bad=_BAD_NAMES)
def test_update_refuses_a_lock_entry_whose_name_is_not_a_skill_name(bad: str) -> None:
    import tempfile

    from agent_skills.packages import _install

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        ws = base / "ws"
        (ws / ".git").mkdir(parents=True)
        victim = base / "victim"
        victim.mkdir()
        (victim / "id_rsa_secret").write_bytes(b"SECRET")
        good = hello(base / "src")
        entries = [
            {
                "name": bad,
                "dir": str(victim),
                "files": [],
                "origin": {"source": str(good.parent), "ref": None, "commit": None},
            }
        ]
        lock = ws / "skills.lock.json"
        lock.write_text(json.dumps({"version": 1, "skills": entries}))
        before = lock.read_bytes()
        hashed: list[str] = []
        real = _install.digest_stream

        def spy(fh: Any, *args: Any, **kwargs: Any) -> Any:
            hashed.append(str(getattr(fh, "name", "?")))
            return real(fh, *args, **kwargs)

        _install.digest_stream = spy  # type: ignore[assignment]
        try:
            for force in (False, True):
                with pytest.raises(SkillError) as caught:
                    pkg.update_skills(
                        ws / ".agents" / "skills", lock=lock, workspace=ws, force=force
                    )
                assert caught.value.code == "invalid_input"
                assert caught.value.fields["lock"] == str(lock)
                with pytest.raises(SkillError) as named:
                    pkg.update_skills(ws / ".agents" / "skills", [bad], lock=lock, workspace=ws)
                assert named.value.code == "invalid_input"
                assert "lock" not in named.value.fields
        finally:
            _install.digest_stream = real  # type: ignore[assignment]
        assert hashed == []
        assert lock.read_bytes() == before
        assert sorted(p.name for p in victim.iterdir()) == ["id_rsa_secret"]
        assert "SECRET" not in str(caught.value) and "id_rsa" not in str(caught.value)


def test_cli_update_names_the_bad_lock_entry_and_touches_nothing(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    victim = env["tmp"] / "victim"
    victim.mkdir()
    (victim / "id_rsa_secret").write_text("k\n")
    entry = {
        "name": "../../../victim",
        "dir": str(victim),
        "files": [],
        "origin": {"source": str(env["ws"]), "ref": None, "commit": None},
    }
    (env["ws"] / "skills.lock.json").write_text(json.dumps({"version": 1, "skills": [entry]}))
    for args in (("update",), ("update", "--force")):
        result = run(*args)
        assert result.exit_code == 1
        assert result.output.startswith("invalid_input: "), result.output
        assert "not a skill name" in result.output and "id_rsa_secret" not in result.output
    assert run("remove", "../../../victim").output.startswith("invalid_input: ")
    assert (victim / "id_rsa_secret").read_text() == "k\n"


# ---------------------------------------------------------------------------------------------
# recovery journals are untrusted input (a project's install root comes with its repository)

_TOKEN = st.text("0123456789abcdef", min_size=16, max_size=16)


def _deep(depth: int, shape: str) -> bytes:
    if shape == "list":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


_MALFORMED = st.one_of(
    st.builds(_deep, st.integers(65, 200_000), st.sampled_from(["list", "dict"])),
    st.sampled_from(
        [
            b"",
            b"{not json",
            b"\xff\xfe\x00garbage",
            b"[]",
            b"42",
            b'"text"',
            b'{"version":1,"skills":"x"}',
            b'{"version":1,"skills":[{"name":5}]}',
            b'{"version":1,"skills":[{"name":"a","staged":"x"}]}',
            b'{"version":1,"skills":[],"lock":"x"}',
            b'{"version":1,"skills":[],"lock":{"path":5}}',
            b'{"version":1,"skills":[],"lock":{"path":"rel/skills.lock.json","before":"a","after":"b"}}',
        ]
    ),
    st.builds(
        lambda path: json.dumps(
            {"version": 1, "skills": [], "lock": {"path": path, "before": "a", "after": "b"}}
        ).encode(),
        st.sampled_from(
            ["/dev/urandom", "/dev/zero", "/etc/passwd", "/tmp/skills.lock.json", "/x\x00y"]
        ),
    ),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    journals=st.lists(
        st.tuples(_TOKEN, _MALFORMED), min_size=1, max_size=4, unique_by=lambda t: t[0]
    )
)
def test_malformed_or_foreign_journals_are_set_aside_and_never_block(
    journals: list[tuple[str, bytes]],
) -> None:
    import tempfile

    from agent_skills.packages import _install

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        ws = base / "ws"
        (ws / ".git").mkdir(parents=True)
        root = ws / ".agents" / "skills"
        root.mkdir(parents=True)
        lock = ws / "skills.lock.json"
        src = base / "src"
        hello(src)
        for token, data in journals:
            (root / f".agent-skills-txn-{token}.json").write_bytes(data)
        read: list[str] = []
        real = _install._file_sha

        def spy(path: Path) -> str | None:
            read.append(str(path))
            return real(path)

        _install._file_sha = spy  # type: ignore[assignment]
        try:
            installed = pkg.install_skills(pkg.Source("directory", str(src)), root, lock=lock)
            assert [i.name for i in installed] == ["hello"]
            assert pkg.remove_skill(root, "hello", lock=lock).name == "hello"
        finally:
            _install._file_sha = real  # type: ignore[assignment]
        assert all(p == str(lock) for p in read), read  # nothing but the root's own lock read
        left = sorted(p.name for p in root.iterdir())
        assert not [n for n in left if n.startswith(".agent-skills-txn-")]
        assert len([n for n in left if n.startswith(".agent-skills-bad-")]) == len(journals)
        assert pkg.recover_root(root, lock=lock) == []  # set aside once, never read again


@pytest.mark.parametrize("kind", ["fifo", "link-to-urandom", "directory", "dangling-link"])
def test_a_journal_that_is_no_regular_file_is_set_aside_unread(
    env: dict[str, Path], kind: str
) -> None:
    root = env["ws"] / ".agents" / "skills"
    root.mkdir(parents=True)
    journal = root / ".agent-skills-txn-0123456789abcdef.json"
    if kind == "fifo":
        os.mkfifo(journal)
    elif kind == "link-to-urandom":
        journal.symlink_to("/dev/urandom")
    elif kind == "directory":
        journal.mkdir()
    else:
        journal.symlink_to(env["tmp"] / "nowhere")
    started = time.monotonic()
    notes = pkg.recover_root(root, lock=env["ws"] / "skills.lock.json")
    assert time.monotonic() - started < 10
    assert [n.kind.value for n in notes] == ["io_error"]
    assert not os.path.lexists(journal)
    assert [p.name.startswith(".agent-skills-bad-0123456789abcdef-") for p in root.iterdir()] == [
        True
    ]


def test_a_set_aside_journal_puts_back_the_copies_its_transaction_set_aside(
    env: dict[str, Path],
) -> None:
    root = env["ws"] / ".agents" / "skills"
    hello(root, "kept")
    aside = root / ".agent-skills-old-0123456789abcdef-kept"
    (root / "kept").rename(aside)
    (root / ".agent-skills-txn-0123456789abcdef.json").write_bytes(b"[" * 100_000)
    notes = pkg.recover_root(root, lock=env["ws"] / "skills.lock.json")
    assert [n.kind.value for n in notes] == ["io_error"]
    assert "nested deeper than 64 levels" in notes[0].message
    assert (root / "kept" / "SKILL.md").is_file() and not aside.exists()


def test_at_most_max_journals_are_read_per_call_oldest_first(env: dict[str, Path]) -> None:
    root = env["ws"] / ".agents" / "skills"
    root.mkdir(parents=True)
    lock = env["ws"] / "skills.lock.json"
    record = {"version": 1, "skills": [], "lock": {"path": str(lock), "before": "a", "after": "b"}}
    total = pkg.MAX_JOURNALS + 36
    for i in range(total):
        path = root / f".agent-skills-txn-{i:016x}.json"
        path.write_text(json.dumps(record))
        os.utime(path, ns=(10**18 + (total - i) * 10**9,) * 2)  # the last written is the oldest
    notes = pkg.recover_root(root, lock=lock)
    assert [n.kind.value for n in notes] == ["scan_truncated"]
    assert f"{total} recovery journals" in notes[0].message
    left = sorted(p.name for p in root.iterdir())
    assert left == [f".agent-skills-txn-{i:016x}.json" for i in range(36)]  # the newest wait
    assert pkg.recover_root(root, lock=lock) == []
    assert list(root.iterdir()) == []


def test_the_cli_reports_a_planted_nested_journal_and_goes_on(
    run: Callable[..., Result], env: dict[str, Path]
) -> None:
    hello(env["src"])
    root = env["ws"] / ".agents" / "skills"
    root.mkdir(parents=True)
    (root / ".agent-skills-txn-0123456789abcdef.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    result = run("add", str(env["src"]))
    assert result.exit_code == 0, result.output
    assert "RecursionError" not in result.output and "internal_error" not in result.output
    assert "set aside the recovery journal" in result.output
    assert run("remove", "hello").exit_code == 0


def test_recover_root_raises_only_skill_errors(tmp_path: Path) -> None:
    for bad in (5, None, b"/tmp", "a\x00b"):
        with pytest.raises(SkillError) as caught:
            pkg.recover_root(bad)  # type: ignore[arg-type]
        assert caught.value.code == "invalid_input"
    assert pkg.recover_root(tmp_path / "missing") == []
