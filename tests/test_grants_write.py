"""SPEC §28.3: grants merged into Claude Code, Gemini CLI and opencode workspace settings.

Every shape of settings file a user has, other keys and order kept, idempotence by bytes,
``--prune``, files that are not a JSON object left untouched, atomic replacement with the mode
kept, concurrent writers, and the ``grants --write`` command.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import Grant, GrantSet, SkillError, SkillRoot, create_agent_skills
from agent_skills.cli import cli
from agent_skills.grants import MAX_SETTINGS_BYTES, SETTINGS_FILES, write_grants
from conftest import make_skill, symlink


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    store = tmp_path / "store"
    root = tmp_path / "home" / ".agents" / "skills"
    make_skill(store, "pdf", files={"references/guide.md": "Read me.\n"})
    symlink(root / "pdf", store / "pdf")
    make_skill(root, "notes")
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    return {"store": store, "root": root, "ws": ws, "tmp": tmp_path}


def _grants(tree: dict[str, Path]) -> GrantSet:
    return create_agent_skills([SkillRoot(tree["root"], "user", "agents")]).grants()


def _rules(tree: dict[str, Path]) -> list[str]:
    return [
        f"Read(/{tree['root']}/notes/**)",
        f"Read(/{tree['store']}/pdf/**)",
        f"Read(/{tree['root']}/pdf/**)",
    ]


def _paths(tree: dict[str, Path]) -> list[str]:
    return [str(tree["root"] / "notes"), str(tree["store"] / "pdf"), str(tree["root"] / "pdf")]


def _settings(tree: dict[str, Path], host: str) -> Path:
    return tree["ws"] / SETTINGS_FILES[host]


def _write_file(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


# -- Claude Code ----------------------------------------------------------------------------------


def test_claude_creates_the_folder_and_file(tree: dict[str, Path]) -> None:
    result = write_grants(_grants(tree), "claude", workspace=tree["ws"])
    target = tree["ws"] / ".claude" / "settings.local.json"
    assert result.path == target
    assert (result.added, result.removed, result.kept) == (tuple(_rules(tree)), (), ())
    assert result.changed is True
    assert (
        target.read_text() == json.dumps({"permissions": {"allow": _rules(tree)}}, indent=2) + "\n"
    )
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in target.parent.iterdir()) == ["settings.local.json"]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({}, "RULES"),
        (
            {"permissions": {"allow": ["Bash(npm run test)"], "deny": ["Read(./.env)"]}},
            {"permissions": {"allow": ["Bash(npm run test)", "RULES"], "deny": ["Read(./.env)"]}},
        ),
        (
            {
                "model": "opus",
                "permissions": {
                    "deny": ["Read(//etc/shadow)"],
                    "additionalDirectories": ["../docs"],
                    "defaultMode": "acceptEdits",
                },
                "env": {"A": "1"},
            },
            {
                "model": "opus",
                "permissions": {
                    "deny": ["Read(//etc/shadow)"],
                    "additionalDirectories": ["../docs"],
                    "defaultMode": "acceptEdits",
                    "allow": ["RULES"],
                },
                "env": {"A": "1"},
            },
        ),
        (
            {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]}, "permissions": {}},
            {
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]},
                "permissions": {"allow": ["RULES"]},
            },
        ),
    ],
    ids=["empty", "other-rules-and-deny", "other-keys", "empty-permissions"],
)
def test_claude_merges_into_every_shape(
    tree: dict[str, Path], before: dict[str, Any], after: Any
) -> None:
    target = _settings(tree, "claude")
    _write_file(target, json.dumps(before, indent=2) + "\n")
    write_grants(_grants(tree), "claude", workspace=tree["ws"])
    if after == "RULES":
        expected = {"permissions": {"allow": _rules(tree)}}
    else:
        rules = json.dumps(_rules(tree))[1:-1]
        expected = json.loads(json.dumps(after).replace('"RULES"', rules))
    text = target.read_text()
    assert json.loads(text) == expected
    # Key order too: the text is what json writes for the expected document, in its order.
    assert text == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"


def test_a_second_run_leaves_the_bytes_and_the_file_unchanged(tree: dict[str, Path]) -> None:
    target = _settings(tree, "claude")
    _write_file(target, '{"permissions":{"allow":["Bash(ls)"]},   "x": [1,2]}')
    first = write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert first.added == tuple(_rules(tree))
    data, st1 = target.read_bytes(), target.stat()
    second = write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert (second.added, second.removed, second.kept) == ((), (), tuple(_rules(tree)))
    assert second.changed is False
    st2 = target.stat()
    assert target.read_bytes() == data
    assert (st2.st_ino, st2.st_mtime_ns) == (st1.st_ino, st1.st_mtime_ns)


def test_a_file_already_holding_every_rule_is_not_rewritten(tree: dict[str, Path]) -> None:
    target = _settings(tree, "claude")
    odd = '{ "permissions" : { "allow" : ' + json.dumps(_rules(tree)) + " } }"
    _write_file(target, odd)
    write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert target.read_text() == odd  # the user's own layout, untouched


def test_mode_and_indentation_are_kept(tree: dict[str, Path]) -> None:
    target = _settings(tree, "claude")
    _write_file(target, json.dumps({"a": {"b": 1}}, indent=4) + "\n")
    target.chmod(0o600)
    write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    doc = {"a": {"b": 1}, "permissions": {"allow": _rules(tree)}}
    assert target.read_text() == json.dumps(doc, indent=4) + "\n"
    tabbed = _settings(tree, "gemini")
    _write_file(tabbed, '{\n\t"theme": "dark"\n}\n')
    write_grants(_grants(tree), "gemini", workspace=tree["ws"])
    assert (
        tabbed.read_text()
        == json.dumps(
            {"theme": "dark", "context": {"includeDirectories": _paths(tree)}}, indent="\t"
        )
        + "\n"
    )


def test_non_ascii_text_stays_readable_and_escaped_surrogates_survive(
    tree: dict[str, Path],
) -> None:
    target = _settings(tree, "claude")
    _write_file(target, '{"note": "café ☕", "odd": "\\ud800"}')
    write_grants(_grants(tree), "claude", workspace=tree["ws"])
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert (doc["note"], doc["odd"]) == ("café ☕", "\ud800")


# -- Gemini CLI and opencode ----------------------------------------------------------------------


def test_gemini_keeps_user_directories_and_other_keys(tree: dict[str, Path]) -> None:
    target = _settings(tree, "gemini")
    before = {
        "theme": "GitHub",
        "context": {"fileName": "GEMINI.md", "includeDirectories": ["../shared", "~/notes"]},
        "mcpServers": {},
    }
    _write_file(target, json.dumps(before))
    result = write_grants(_grants(tree), "gemini", workspace=tree["ws"])
    assert result.added == tuple(_paths(tree))
    assert json.loads(target.read_text()) == {
        "theme": "GitHub",
        "context": {
            "fileName": "GEMINI.md",
            "includeDirectories": ["../shared", "~/notes", *_paths(tree)],
        },
        "mcpServers": {},
    }


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({}, {"permission": {"external_directory": "PATTERNS"}}),
        (
            {"$schema": "https://opencode.ai/config.json", "permission": {"bash": {"*": "ask"}}},
            {
                "$schema": "https://opencode.ai/config.json",
                "permission": {"bash": {"*": "ask"}, "external_directory": "PATTERNS"},
            },
        ),
        (
            {"permission": {"external_directory": "ask", "edit": "deny"}},
            {"permission": {"external_directory": {"*": "ask", "P": 0}, "edit": "deny"}},
        ),
        ({"permission": "ask"}, {"permission": {"*": "ask", "external_directory": "PATTERNS"}}),
        (
            {"permission": {"external_directory": {"~/work/**": "allow", "/tmp/**": "deny"}}},
            {
                "permission": {
                    "external_directory": {"~/work/**": "allow", "/tmp/**": "deny", "P": 0}
                }
            },
        ),
    ],
    ids=["empty", "other-permissions", "one-action", "permission-string", "user-patterns"],
)
def test_opencode_merges_into_every_shape(
    tree: dict[str, Path], before: dict[str, Any], after: dict[str, Any]
) -> None:
    target = _settings(tree, "opencode")
    assert target == tree["ws"] / "opencode.json"
    _write_file(target, json.dumps(before))
    write_grants(_grants(tree), "opencode", workspace=tree["ws"])
    patterns = {f"{p}/**": "allow" for p in _paths(tree)}
    rules = after["permission"]
    if rules.get("external_directory") == "PATTERNS":
        rules["external_directory"] = patterns
    elif "P" in rules["external_directory"]:
        del rules["external_directory"]["P"]
        rules["external_directory"].update(patterns)
    text = target.read_text()
    assert text == json.dumps(after, indent=2) + "\n"


def test_an_opencode_entry_the_user_set_otherwise_stays(tree: dict[str, Path]) -> None:
    target = _settings(tree, "opencode")
    denied = f"{tree['root']}/notes/**"
    _write_file(target, json.dumps({"permission": {"external_directory": {denied: "deny"}}}))
    result = write_grants(_grants(tree), "opencode", workspace=tree["ws"])
    assert denied in result.kept and denied not in result.added
    assert json.loads(target.read_text())["permission"]["external_directory"][denied] == "deny"


# -- prune ----------------------------------------------------------------------------------------


def test_prune_after_a_skill_is_removed(tree: dict[str, Path]) -> None:
    target = _settings(tree, "claude")
    other = tree["tmp"] / "elsewhere"
    other.mkdir()
    gone = tree["tmp"] / "gone"
    user_rules = [
        f"Read(/{other}/**)",  # the user's own rule for another folder that exists
        "Read(~/gone/**)",  # not of the form written here
        "Read(./.env)",
        f"Read(/{tree['root']}/**)",  # the root itself holds no SKILL.md, and is kept
    ]
    _write_file(target, json.dumps({"permissions": {"allow": user_rules}}))
    write_grants(_grants(tree), "claude", workspace=tree["ws"])
    # The linked skill is removed (its link), and a plain folder without a manifest appears.
    os.unlink(tree["root"] / "pdf")
    (tree["root"] / "notes" / "SKILL.md").unlink()
    skills = create_agent_skills([SkillRoot(tree["root"], "user", "agents")])
    assert list(skills.grants()) == []
    with_gone = json.loads(target.read_text())
    with_gone["permissions"]["allow"].append(f"Read(/{gone}/**)")
    target.write_text(json.dumps(with_gone))
    not_pruned = write_grants(skills.grants(), "claude", workspace=tree["ws"])
    assert (not_pruned.added, not_pruned.removed) == ((), ())
    result = write_grants(skills.grants(), "claude", workspace=tree["ws"], prune=True)
    assert result.removed == (
        f"Read(/{tree['root']}/notes/**)",  # inside the root, no SKILL.md any more
        f"Read(/{tree['root']}/pdf/**)",  # no longer exists
        f"Read(/{gone}/**)",  # no longer exists
    )
    # The store's copy still exists outside every root: its rule stays.
    assert json.loads(target.read_text())["permissions"]["allow"] == [
        *user_rules,
        f"Read(/{tree['store']}/pdf/**)",
    ]
    again = write_grants(skills.grants(), "claude", workspace=tree["ws"], prune=True)
    assert (again.added, again.removed) == ((), ())


def test_prune_for_gemini_and_opencode(tree: dict[str, Path]) -> None:
    for host in ("gemini", "opencode"):
        write_grants(_grants(tree), host, workspace=tree["ws"])
    os.unlink(tree["root"] / "pdf")
    grants = create_agent_skills([tree["root"]]).grants()
    gemini = write_grants(grants, "gemini", workspace=tree["ws"], prune=True)
    assert gemini.removed == (str(tree["root"] / "pdf"),)
    assert gemini.kept == (str(tree["root"] / "notes"),)
    opencode = write_grants(grants, "opencode", workspace=tree["ws"], prune=True)
    assert opencode.removed == (f"{tree['root']}/pdf/**",)
    assert json.loads(_settings(tree, "opencode").read_text()) == {
        "permission": {
            "external_directory": {
                f"{tree['root']}/notes/**": "allow",
                f"{tree['store']}/pdf/**": "allow",
            }
        }
    }


def test_prune_uses_the_roots_of_a_grant_set_only(tree: dict[str, Path]) -> None:
    write_grants(_grants(tree), "claude", workspace=tree["ws"])
    (tree["root"] / "notes" / "SKILL.md").unlink()
    plain = [g for g in _grants(tree) if g.skill != "notes"]
    assert write_grants(plain, "claude", workspace=tree["ws"], prune=True).removed == ()
    grants = create_agent_skills([tree["root"]]).grants()
    assert write_grants(grants, "claude", workspace=tree["ws"], prune=True).removed == (
        f"Read(/{tree['root']}/notes/**)",
    )


# -- files left untouched -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("[]", "not a JSON object"),
        ('"text"', "not a JSON object"),
        ("null", "not a JSON object"),
        ('{"permissions": [1]}', "permissions is not an object"),
        ('{"permissions": {"allow": "Read(x)"}}', "permissions.allow is not an array"),
        ("{\n  // a comment\n}", None),
        ('{"a": 1,}', None),
        (b'{"a": "\xff"}', None),
        ("[" * 100 + "]" * 100, None),
        ('{"a": NaN}', "it holds a number JSON cannot write (NaN or Infinity)"),
    ],
    ids=[
        "array",
        "string",
        "null",
        "bad-permissions",
        "bad-allow",
        "comment",
        "trailing-comma",
        "not-utf8",
        "too-deep",
        "nan",
    ],
)
def test_a_file_that_is_not_a_json_object_is_left_untouched(
    tree: dict[str, Path], content: str | bytes, reason: str | None
) -> None:
    target = _settings(tree, "claude")
    _write_file(target, content)
    before = target.read_bytes()
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert err.value.code == "invalid_input"
    assert err.value.fields["path"] == str(target)
    if reason is not None:
        assert err.value.fields["reason"] == reason
    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["settings.local.json"]


def test_links_are_never_followed(tree: dict[str, Path]) -> None:
    elsewhere = tree["tmp"] / "elsewhere.json"
    elsewhere.write_text("{}")
    target = _settings(tree, "claude")
    target.parent.mkdir()
    target.symlink_to(elsewhere)
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert (err.value.code, err.value.fields["reason"]) == (
        "invalid_input",
        "a symbolic link, not followed",
    )
    assert elsewhere.read_text() == "{}" and target.is_symlink()
    # A settings folder that is a link (a cloned repository's .gemini -> ~/.ssh).
    secret = tree["tmp"] / "secret"
    secret.mkdir()
    (tree["ws"] / ".gemini").symlink_to(secret)
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "gemini", workspace=tree["ws"])
    assert err.value.fields == {
        "path": str(tree["ws"] / ".gemini"),
        "reason": "a symbolic link, not followed",
    }
    assert list(secret.iterdir()) == []


def test_a_fifo_or_a_huge_file_is_refused_without_reading_it(tree: dict[str, Path]) -> None:
    target = _settings(tree, "claude")
    target.parent.mkdir()
    os.mkfifo(target)
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert err.value.code == "not_a_file"
    target.unlink()
    with open(target, "wb") as fh:
        fh.truncate(MAX_SETTINGS_BYTES + 1)  # sparse: nothing is allocated
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert (err.value.code, err.value.fields["max_bytes"]) == ("too_large", MAX_SETTINGS_BYTES)
    assert target.stat().st_size == MAX_SETTINGS_BYTES + 1


def test_a_failed_write_leaves_the_file_as_it_was(
    tree: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _settings(tree, "claude")
    _write_file(target, '{"keep": true}')

    def broken(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert err.value.code == "io_error" and "ENOSPC" in err.value.message
    assert target.read_text() == '{"keep": true}'
    assert sorted(p.name for p in target.parent.iterdir()) == ["settings.local.json"]


def test_hosts_without_a_settings_file_and_bad_arguments(tree: dict[str, Path]) -> None:
    for host in ("codex", "bwrap", "json", "openai-agents"):
        with pytest.raises(SkillError) as err:
            write_grants(_grants(tree), host, workspace=tree["ws"])
        assert (err.value.code, err.value.message, err.value.fields) == (
            "invalid_input",
            f"print and paste: {host} has no workspace settings file",
            {"host": host},
        )
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "claude", workspace=tree["tmp"] / "missing")
    assert err.value.code == "not_found"
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "claude", workspace=tree["ws"], prune=1)  # type: ignore[arg-type]
    assert err.value.code == "invalid_input"
    assert not (tree["ws"] / ".claude").exists()


# -- concurrency and properties -------------------------------------------------------------------


def test_concurrent_writers_lose_no_entry(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    folders = []
    for i in range(24):
        folder = tmp_path / "skills" / f"s{i:02d}"
        folder.mkdir(parents=True)
        folders.append(folder)
    errors: list[BaseException] = []

    def write(folder: Path) -> None:
        try:
            write_grants([Grant(folder.name, folder, folder)], "claude", workspace=ws)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(f,)) for f in folders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    allowed = json.loads((ws / ".claude" / "settings.local.json").read_text())["permissions"][
        "allow"
    ]
    assert sorted(allowed) == sorted(f"Read(/{f}/**)" for f in folders)
    assert sorted(p.name for p in (ws / ".claude").iterdir()) == ["settings.local.json"]


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    other=st.dictionaries(st.text(max_size=8).filter(lambda k: k != "context"), _JSON, max_size=5)
)
def test_every_other_key_survives_and_a_second_run_is_a_no_op(
    tmp_path_factory: pytest.TempPathFactory, other: dict[str, Any]
) -> None:
    ws = tmp_path_factory.mktemp("ws")
    skill = tmp_path_factory.mktemp("skill")
    target = ws / ".gemini" / "settings.json"
    target.parent.mkdir()
    target.write_text(json.dumps(other))
    write_grants([Grant("s", skill, skill)], "gemini", workspace=ws)
    doc = json.loads(target.read_text())
    assert list(doc) == [*other, "context"]
    assert {k: doc[k] for k in other} == other
    assert doc["context"] == {"includeDirectories": [str(skill)]}
    data = target.read_bytes()
    assert write_grants([Grant("s", skill, skill)], "gemini", workspace=ws).added == ()
    assert target.read_bytes() == data


# -- the command ----------------------------------------------------------------------------------


def _cli(tree: dict[str, Path], *args: str) -> Any:
    base = ["--preset", "none", "--root", str(tree["root"]), "--workspace", str(tree["ws"])]
    return CliRunner().invoke(cli, [*args, *base], env={"HOME": str(tree["tmp"] / "home")})


def test_grants_write_prints_what_it_added_and_removed(tree: dict[str, Path]) -> None:
    target = _settings(tree, "claude")
    result = _cli(tree, "grants", "--for", "claude", "--write")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"{target}: 3 grant entries added",
        *(f"  + {rule}" for rule in _rules(tree)),
    ]
    again = _cli(tree, "grants", "--for", "claude", "--write")
    assert again.stdout.splitlines() == [f"{target}: unchanged (3 grant entries already there)"]
    os.unlink(tree["root"] / "pdf")
    pruned = _cli(tree, "grants", "--for", "claude", "--write", "--prune")
    assert pruned.exit_code == 0
    assert pruned.stdout.splitlines() == [
        f"{target}: 1 grant entry pruned (folder gone), 1 already there",
        f"  - Read(/{tree['root']}/pdf/**)",
    ]


def test_grants_command_errors(tree: dict[str, Path]) -> None:
    codex = _cli(tree, "grants", "--for", "codex", "--write")
    assert codex.exit_code == 1
    assert codex.stderr == "invalid_input: print and paste: codex has no workspace settings file\n"
    unknown = _cli(tree, "grants", "--for", "vscode")
    assert unknown.exit_code == 2 and "'vscode' is not one of 'json', 'claude'" in unknown.stderr
    assert _cli(tree, "grants", "--prune").exit_code == 2
    assert (
        _cli(tree, "grants", "--args").stderr
        == "usage_error: --args applies to --for gemini only\n"
    )
    missing = _cli(tree, "grants", "--skill", "pfd")
    assert (missing.exit_code, missing.stderr.split(":")[0]) == (1, "not_found")
    target = _settings(tree, "claude")
    _write_file(target, "[]")
    bad = _cli(tree, "grants", "--for", "claude", "--write")
    assert bad.exit_code == 1
    assert bad.stderr == f"invalid_input: {target}: not a JSON object; left untouched\n"
    assert target.read_text() == "[]"


def test_grants_command_prints_each_format(tree: dict[str, Path]) -> None:
    out = _cli(tree, "grants")
    assert out.exit_code == 0
    assert [g["skill"] for g in json.loads(out.stdout)] == ["notes", "pdf"]
    only = _cli(tree, "grants", "--for", "gemini", "--args", "--skill", "pdf")
    assert only.stdout == f"--include-directories {tree['store']}/pdf,{tree['root']}/pdf\n"
    empty = _cli(tree, "grants", "--for", "bwrap", "--skill", "notes", "--no-follow-symlinks")
    assert empty.stdout == f"--ro-bind {tree['root']}/notes {tree['root']}/notes\n"


def test_grants_command_warns_about_skills_left_out(tree: dict[str, Path]) -> None:
    import zipfile

    with zipfile.ZipFile(tree["root"] / "bundle.zip", "w") as zf:
        zf.writestr("zipped/SKILL.md", "---\nname: zipped\ndescription: d\n---\nbody\n")
    result = CliRunner().invoke(
        cli,
        [
            "grants",
            "--preset",
            "none",
            "--root",
            str(tree["root"]),
            "--root",
            str(tree["root"] / "bundle.zip"),
        ],
    )
    assert result.exit_code == 0
    assert (
        "warning: archived_skill: skill 'zipped' left out of the grants: "
        "an archived skill has no directory to grant\n" in result.stderr
    )
    assert [g["skill"] for g in json.loads(result.stdout)] == ["notes", "pdf"]


def test_a_writer_killed_mid_write_leaves_the_file_whole(tree: dict[str, Path]) -> None:
    import signal
    import subprocess
    import sys

    target = _settings(tree, "claude")
    _write_file(target, '{"keep": true}\n')
    # The writer stops for good just before its rename (the temporary file written and synced),
    # and is killed there.
    code = (
        "import os, sys, time\n"
        "from agent_skills import Grant\n"
        "from agent_skills.grants import write_grants\n"
        "def stuck(*a, **k):\n"
        "    print('renaming', flush=True)\n"
        "    time.sleep(600)\n"
        "os.rename = stuck\n"
        "g = Grant('s', sys.argv[2], sys.argv[2])\n"
        "write_grants([g], 'claude', workspace=sys.argv[1])\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(tree["ws"]), str(tree["root"] / "notes")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "renaming\n"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert target.read_text() == '{"keep": true}\n'
    leftovers = sorted(p.name for p in target.parent.iterdir())
    assert leftovers[-1] == "settings.local.json" and len(leftovers) == 2
    assert leftovers[0].startswith(".settings.local.json.") and leftovers[0].endswith(".tmp")
    # The next run is not disturbed by the leftover.
    assert write_grants(_grants(tree), "claude", workspace=tree["ws"]).added == tuple(_rules(tree))


def test_prune_touches_only_the_exact_written_form(tree: dict[str, Path]) -> None:
    target = _settings(tree, "gemini")
    gone = str(tree["tmp"] / "gone")
    user = ["../shared", "~/notes", "/", f"{gone}/", f"{tree['tmp']}/./gone", 5, None, gone]
    _write_file(target, json.dumps({"context": {"includeDirectories": user}}))
    result = write_grants([], "gemini", workspace=tree["ws"], prune=True)
    # Only the absolute, normalised path of a folder that is gone is of the written form.
    assert result.removed == (gone,)
    assert json.loads(target.read_text())["context"]["includeDirectories"] == user[:-1]
    assert result.to_dict() == {"path": str(target), "added": [], "removed": [gone], "kept": []}
    opencode = _settings(tree, "opencode")
    rules = {f"{gone}/**": "deny", f"{gone}/*": "allow", "/tmp/**": "allow", f"{gone}/**x": "allow"}
    _write_file(opencode, json.dumps({"permission": {"external_directory": rules}}))
    assert write_grants([], "opencode", workspace=tree["ws"], prune=True).removed == ()


def test_a_workspace_that_cannot_be_written_is_an_io_error(
    tree: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "mkdir", refused)  # as a folder the user cannot write into does
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "gemini", workspace=tree["ws"])
    assert (err.value.code, err.value.fields) == ("io_error", {"path": str(tree["ws"] / ".gemini")})
    assert err.value.message.startswith("EACCES: Permission denied")


def test_a_settings_folder_that_is_a_file_is_refused(tree: dict[str, Path]) -> None:
    (tree["ws"] / ".claude").write_text("not a folder")
    with pytest.raises(SkillError) as err:
        write_grants(_grants(tree), "claude", workspace=tree["ws"])
    assert err.value.code == "not_a_file"
    assert (tree["ws"] / ".claude").read_text() == "not a folder"
