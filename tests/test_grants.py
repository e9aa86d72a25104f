"""SPEC §28.1-§28.2, §28.5: the grants of a snapshot and of a session, rendered for every host.

Every format is parsed back with the parser its host uses (json, tomllib, shlex, a CSV reader for
docker's --mount, the OpenAI Agents SDK's own ``SandboxPathGrant`` type) and compared whole.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_skills import (
    DiagnosticKind,
    Grant,
    GrantSet,
    SkillError,
    SkillRoot,
    TrustStore,
    create_agent_skills,
)
from agent_skills._diagnostics import Diagnostic, set_diagnostic_sink
from agent_skills.agent import Activation, SkillSession
from agent_skills.grants import HOSTS, render_grants
from conftest import make_skill, symlink

# -- a user-level skill linked from a shared store, next to a plain one ---------------------------


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """``home/.agents/skills/pdf -> store/pdf`` (a linked store skill) and ``home/.agents/skills/
    notes`` (a plain one); a workspace with a git marker."""
    store = tmp_path / "store"
    root = tmp_path / "home" / ".agents" / "skills"
    make_skill(store, "pdf", files={"references/guide.md": "Read me.\n"})
    symlink(root / "pdf", store / "pdf")
    make_skill(root, "notes", files={"references/n.md": "n\n"})
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    return {"store": store, "root": root, "ws": ws, "tmp": tmp_path}


def _grants(tree: dict[str, Path]) -> GrantSet:
    skills = create_agent_skills([SkillRoot(tree["root"], "user", "agents")])
    return skills.grants()


def test_grants_are_the_discovered_path_and_the_pinned_real_directory(
    tree: dict[str, Path],
) -> None:
    grants = _grants(tree)
    assert list(grants) == [
        Grant("notes", tree["root"] / "notes", tree["root"] / "notes"),
        Grant("pdf", tree["root"] / "pdf", tree["store"] / "pdf"),
    ]
    assert grants.left_out == ()
    assert grants.roots == (tree["root"],)
    assert len(grants) == 2 and grants[1].skill == "pdf" and grants[0] in grants
    assert grants[1].paths() == (tree["store"] / "pdf", tree["root"] / "pdf")
    assert grants[0].paths() == (tree["root"] / "notes",)
    assert grants.to_dict() == {
        "grants": [
            {
                "skill": "notes",
                "path": str(tree["root"] / "notes"),
                "real_path": str(tree["root"] / "notes"),
            },
            {
                "skill": "pdf",
                "path": str(tree["root"] / "pdf"),
                "real_path": str(tree["store"] / "pdf"),
            },
        ],
        "left_out": [],
        "roots": [str(tree["root"])],
    }


def test_public_names_belong_to_the_package() -> None:
    assert (Grant.__module__, GrantSet.__module__) == ("agent_skills", "agent_skills")


def test_named_grants_come_sorted_and_unknown_names_are_not_found(tree: dict[str, Path]) -> None:
    skills = create_agent_skills([tree["root"]])
    assert [g.skill for g in skills.grants(["pdf", "notes", "pdf"])] == ["notes", "pdf"]
    assert [g.skill for g in skills.grants(["pdf"])] == ["pdf"]
    with pytest.raises(SkillError) as err:
        skills.grants(["pfd"])
    assert (err.value.code, err.value.fields["name"]) == ("not_found", "pfd")
    assert "pdf" in err.value.message  # did you mean
    with pytest.raises(SkillError) as bad:
        skills.grants("pdf")
    assert bad.value.code == "invalid_input"
    with pytest.raises(SkillError) as bad:
        skills.grants([3])  # type: ignore[list-item]
    assert bad.value.code == "invalid_input"


def test_a_store_entry_repointed_after_discovery_is_left_out_stale(
    tree: dict[str, Path],
) -> None:
    skills = create_agent_skills([tree["root"]])
    make_skill(tree["tmp"] / "other", "pdf")
    os.unlink(tree["root"] / "pdf")
    symlink(tree["root"] / "pdf", tree["tmp"] / "other" / "pdf")
    grants = skills.grants()
    assert [g.skill for g in grants] == ["notes"]
    assert grants.left_out == (("pdf", "stale_skill"),)
    # A refresh pins the new directory, which is then granted.
    skills.refresh()
    assert skills.grants()[1] == Grant("pdf", tree["root"] / "pdf", tree["tmp"] / "other" / "pdf")


def test_a_skill_whose_directory_was_replaced_is_left_out(tree: dict[str, Path]) -> None:
    skills = create_agent_skills([tree["root"]])
    os.rename(tree["root"] / "notes", tree["tmp"] / "old-notes")
    make_skill(tree["root"], "notes")  # same path, another directory
    assert skills.grants().left_out == (("notes", "stale_skill"),)


def test_an_archived_skill_is_left_out(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        zf.writestr("zipped/SKILL.md", "---\nname: zipped\ndescription: d\n---\nbody\n")
    make_skill(tmp_path / "plain", "plain")
    skills = create_agent_skills([bundle, tmp_path / "plain"])
    grants = skills.grants()
    assert [g.skill for g in grants] == ["plain"]
    assert grants.left_out == (("zipped", "archived_skill"),)


def test_untrusted_and_disabled_skills_are_never_granted(tmp_path: Path) -> None:
    user = tmp_path / "home" / ".agents" / "skills"
    repo = tmp_path / "repo" / ".agents" / "skills"
    make_skill(user, "mine")
    make_skill(user, "off")
    approved = make_skill(repo, "approved", files={"references/a.md": "A\n"})
    make_skill(repo, "stranger")
    store = TrustStore(tmp_path / "trust.json")
    store.approve(approved)
    roots = [SkillRoot(user, "user"), SkillRoot(repo, "workspace")]
    skills = create_agent_skills(roots, trust=store, disabled=["off"])
    grants = skills.grants()
    assert [g.skill for g in grants] == ["approved", "mine"]
    assert grants.left_out == ()  # not merged: neither granted nor listed
    for name in ("stranger", "off"):
        with pytest.raises(SkillError) as err:
            skills.grants([name])
        assert err.value.code == "not_found"
    # A gated skill whose files changed since approval is left out, named or not.
    (approved / "references" / "a.md").write_text("changed\n")
    assert skills.grants().left_out == (("approved", "untrusted"),)
    assert [g.skill for g in skills.grants()] == ["mine"]
    assert skills.grants(["approved"]).left_out == (("approved", "untrusted"),)


# -- sessions (SPEC §28.5) ------------------------------------------------------------------------


def test_session_grants_follow_activation_order(tree: dict[str, Path]) -> None:
    skills = create_agent_skills([tree["root"]])
    session = SkillSession(skills, project_root=tree["ws"])
    assert session.grants() == GrantSet((), (), (tree["root"],))
    first = session.activate("pdf")
    assert first.grants == (Grant("pdf", tree["root"] / "pdf", tree["store"] / "pdf"),)
    again = session.activate("pdf")
    assert (again.already_active, again.grants) == (True, ())
    session.activate("notes")
    assert [(g.skill, g.path, g.real_path) for g in session.grants()] == [
        ("pdf", tree["root"] / "pdf", tree["store"] / "pdf"),
        ("notes", tree["root"] / "notes", tree["root"] / "notes"),
    ]
    # Grants take no part in an activation's equality (they follow from its directory).
    assert first == Activation(first.name, first.content, first.skill_dir, False)
    os.rename(tree["root"] / "notes", tree["tmp"] / "old-notes")
    make_skill(tree["root"], "notes")  # same path, another directory
    assert session.grants().left_out == (("notes", "stale_skill"),)


def test_session_with_a_host_writes_each_activation_grant(tree: dict[str, Path]) -> None:
    skills = create_agent_skills([tree["root"]])
    session = SkillSession(skills, project_root=tree["ws"], host="claude")
    assert session.host == "claude"
    settings = tree["ws"] / ".claude" / "settings.local.json"
    assert not settings.exists()
    session.activate("pdf")
    assert json.loads(settings.read_text()) == {
        "permissions": {
            "allow": [
                f"Read(/{tree['store']}/pdf/**)",
                f"Read(/{tree['root']}/pdf/**)",
            ]
        }
    }
    before = settings.read_bytes()
    session.activate("pdf")  # already active: nothing written
    assert settings.read_bytes() == before
    session.activate("notes")
    assert json.loads(settings.read_text())["permissions"]["allow"][-1] == (
        f"Read(/{tree['root']}/notes/**)"
    )


def _broken_settings(settings: Path, kind: str, tmp: Path) -> None:
    settings.parent.mkdir(exist_ok=True)
    if kind == "array":
        settings.write_text("[1, 2]\n")
    elif kind == "not-json":
        settings.write_text("{ // a comment\n}\n")
    elif kind == "deep":
        settings.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "nan":
        settings.write_text('{"permissions": NaN}')
    elif kind == "link":
        target = tmp / "elsewhere.json"
        target.write_text("{}")
        settings.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(settings)
    else:
        settings.mkdir()


@pytest.mark.parametrize("kind", ["array", "not-json", "deep", "nan", "link", "fifo", "folder"])
def test_session_host_write_failure_keeps_the_file_and_still_activates(
    tree: dict[str, Path], kind: str, warn_messages: list[str]
) -> None:
    skills = create_agent_skills([tree["root"]])
    settings = tree["ws"] / ".claude" / "settings.local.json"
    _broken_settings(settings, kind, tree["tmp"])
    before = settings.read_bytes() if settings.is_file() and not settings.is_symlink() else None
    session = SkillSession(skills, project_root=tree["ws"], host="claude")
    activation = session.activate("pdf")
    assert activation.already_active is False
    assert "<skill_content" in activation.content
    assert session.active_skills() == ["pdf"]
    assert activation.grant_error is not None
    assert activation.grant_error.code in ("invalid_input", "not_a_file", "too_large")
    assert [m for m in warn_messages if "was not written into the claude settings" in m] != []
    if before is not None:
        assert settings.read_bytes() == before  # the user's file, left as it was
    assert settings.is_symlink() == (kind == "link")
    result = session.handle_tool_call("activate_skill", {"name": "notes"})
    assert not result.is_error and "<skill_content" in result.text
    assert session.active_skills() == ["pdf", "notes"]


def test_session_host_grant_written_once_the_file_is_fixed(tree: dict[str, Path]) -> None:
    skills = create_agent_skills([tree["root"]])
    settings = tree["ws"] / ".claude" / "settings.local.json"
    _broken_settings(settings, "array", tree["tmp"])
    session = SkillSession(skills, project_root=tree["ws"], host="claude")
    assert session.activate("pdf").grant_error is not None
    settings.write_text("{}")
    activation = session.activate("notes")
    assert activation.grant_error is None
    assert json.loads(settings.read_text())["permissions"]["allow"] == [
        f"Read(/{tree['root']}/notes/**)"
    ]


@pytest.mark.parametrize(
    ("host", "code", "message"),
    [
        ("codex", "invalid_input", "print and paste: codex has no workspace settings file"),
        ("vim", "invalid_input", "unknown host 'vim'; known hosts: " + ", ".join(HOSTS)),
    ],
)
def test_session_host_must_have_a_settings_file(
    tree: dict[str, Path], host: str, code: str, message: str
) -> None:
    skills = create_agent_skills([tree["root"]])
    with pytest.raises(SkillError) as err:
        SkillSession(skills, host=host)
    assert (err.value.code, err.value.message) == (code, message)


# -- every host's format (SPEC §28.2) -------------------------------------------------------------


def _seatbelt_paths(text: str) -> list[str]:
    pattern = re.compile(r'\(allow file-read\* \(subpath "((?:[^"\\]|\\.)*)"\)\)')
    paths = []
    for line in text.splitlines():
        match = pattern.fullmatch(line)
        assert match is not None, line
        paths.append(re.sub(r"\\(.)", r"\1", match.group(1)))
    return paths


def _docker_mounts(text: str) -> list[dict[str, str]]:
    words = shlex.split(text)
    assert words[::2] == ["--mount"] * (len(words) // 2)
    mounts = []
    for value in words[1::2]:
        fields = next(csv.reader([value]))
        assert fields[0] == "type=bind" and fields[-1] == "readonly"
        mounts.append(dict(field.split("=", 1) for field in fields[1:-1]))
    return mounts


def _bwrap_binds(text: str) -> list[tuple[str, str]]:
    words = shlex.split(text)
    assert words[::3] == ["--ro-bind"] * (len(words) // 3)
    return list(zip(words[1::3], words[2::3], strict=True))


def _parsed(host: str, text: str) -> Any:
    """Each format read back by its host's own parser."""
    if host == "codex":
        lines = text.splitlines()
        assert lines[:2] == [
            "# Paste into ~/.codex/config.toml and set, above its first table:",
            '#   default_permissions = "agent-skills"',
        ]
        return tomllib.loads(text)
    if host == "seatbelt":
        return _seatbelt_paths(text)
    if host == "bwrap":
        return _bwrap_binds(text)
    if host == "docker":
        return _docker_mounts(text)
    return json.loads(text)


def test_every_host_format_for_a_linked_store_skill(tree: dict[str, Path]) -> None:
    grants = _grants(tree)
    notes, pdf_link, pdf_real = (
        str(tree["root"] / "notes"),
        str(tree["root"] / "pdf"),
        str(tree["store"] / "pdf"),
    )
    paths = [notes, pdf_real, pdf_link]
    expected: dict[str, Any] = {
        "json": [
            {"skill": "notes", "path": notes, "real_path": notes},
            {"skill": "pdf", "path": pdf_link, "real_path": pdf_real},
        ],
        "claude": {"permissions": {"allow": [f"Read(/{p}/**)" for p in paths]}},
        "codex": {
            "permissions": {
                "agent-skills": {
                    "extends": ":workspace",
                    "filesystem": dict.fromkeys(paths, "read"),
                }
            }
        },
        "gemini": {"context": {"includeDirectories": paths}},
        "opencode": {"permission": {"external_directory": {f"{p}/**": "allow" for p in paths}}},
        "openai-agents": [
            {
                "path": notes,
                "host_path": notes,
                "read_only": True,
                "description": "Agent Skill 'notes': its files, read-only",
            },
            {
                "path": pdf_link,
                "host_path": pdf_real,
                "read_only": True,
                "description": "Agent Skill 'pdf': its files, read-only",
            },
        ],
        "bwrap": [(notes, notes), (pdf_real, pdf_real), (pdf_real, pdf_link)],
        "docker": [
            {"source": notes, "target": notes},
            {"source": pdf_real, "target": pdf_real},
            {"source": pdf_real, "target": pdf_link},
        ],
        "seatbelt": paths,
    }
    assert sorted(expected) == sorted(HOSTS)
    for host in HOSTS:
        text = render_grants(grants, host)
        assert not text.endswith("\n"), host
        assert _parsed(host, text) == expected[host], host
    assert render_grants(grants, "gemini", args=True) == (
        f"--include-directories {notes},{pdf_real},{pdf_link}"
    )
    assert shlex.split(render_grants(grants, "gemini", args=True)) == [
        "--include-directories",
        ",".join(paths),
    ]


def test_openai_agents_entries_are_sandbox_path_grants(tree: dict[str, Path]) -> None:
    sandbox = pytest.importorskip(
        "agents.sandbox", reason="the OpenAI Agents SDK (openai-agents) is not installed"
    )
    entries = json.loads(render_grants(_grants(tree), "openai-agents"))
    made = [sandbox.SandboxPathGrant(**entry) for entry in entries]
    assert [(g.path, g.host_path, g.read_only) for g in made] == [
        (str(tree["root"] / "notes"), str(tree["root"] / "notes"), True),
        (str(tree["root"] / "pdf"), str(tree["store"] / "pdf"), True),
    ]
    assert [g.model_dump(exclude_none=True) for g in made] == entries
    manifest = sandbox.Manifest(extra_path_grants=tuple(made))  # where the SDK takes them
    assert manifest.extra_path_grants == tuple(made)


def test_no_grants_render_empty_shapes() -> None:
    empty = GrantSet()
    assert json.loads(render_grants(empty, "json")) == []
    assert json.loads(render_grants(empty, "claude")) == {"permissions": {"allow": []}}
    assert tomllib.loads(render_grants(empty, "codex")) == {
        "permissions": {"agent-skills": {"extends": ":workspace", "filesystem": {}}}
    }
    assert render_grants(empty, "gemini", args=True) == ""
    assert render_grants([], "bwrap") == render_grants([], "docker") == ""
    assert render_grants((), "seatbelt") == ""


def test_a_path_granted_by_two_skills_is_written_once(tmp_path: Path) -> None:
    shared = tmp_path / "store" / "s"
    grants = [Grant("a", tmp_path / "r" / "a", shared), Grant("b", tmp_path / "r" / "b", shared)]
    allowed = json.loads(render_grants(grants, "claude"))["permissions"]["allow"]
    assert allowed == [
        f"Read(/{shared}/**)",
        f"Read(/{tmp_path}/r/a/**)",
        f"Read(/{tmp_path}/r/b/**)",
    ]


@pytest.fixture
def sink() -> Any:
    seen: list[Diagnostic] = []
    set_diagnostic_sink(seen.append)
    yield seen
    set_diagnostic_sink(None)


def test_a_quote_is_escaped_where_the_format_can_escape_it(tmp_path: Path, sink: Any) -> None:
    quoted = tmp_path / 'say "hi" \\ there'
    grants = [Grant("q", quoted, quoted)]
    text = str(quoted)
    assert json.loads(render_grants(grants, "json"))[0]["path"] == text
    assert json.loads(render_grants(grants, "claude"))["permissions"]["allow"] == []  # \ is a
    # gitignore escape in Claude Code's rules: left out (below); the quote alone is carried:
    only_quotes = tmp_path / 'say "hi"'
    assert json.loads(render_grants([Grant("q", only_quotes, only_quotes)], "claude")) == {
        "permissions": {"allow": [f"Read(/{only_quotes}/**)"]}
    }
    assert tomllib.loads(render_grants(grants, "codex"))["permissions"]["agent-skills"][
        "filesystem"
    ] == {text: "read"}
    assert json.loads(render_grants(grants, "gemini")) == {
        "context": {"includeDirectories": [text]}
    }
    assert json.loads(render_grants(grants, "opencode"))["permission"]["external_directory"] == {
        f"{text}/**": "allow"
    }
    assert _bwrap_binds(render_grants(grants, "bwrap")) == [(text, text)]
    assert _docker_mounts(render_grants(grants, "docker")) == [{"source": text, "target": text}]
    assert _seatbelt_paths(render_grants(grants, "seatbelt")) == [text]
    assert shlex.split(render_grants(grants, "gemini", args=True)) == [
        "--include-directories",
        text,
    ]
    assert [(d.kind, d.path) for d in sink] == [(DiagnosticKind.PATH_LEFT_OUT, quoted)]
    assert sink[0].message == (
        f"claude: left out {quoted} of skill 'q': it holds \\, a pattern character in "
        "claude's rules, which the format cannot carry"
    )


def test_a_comma_is_quoted_for_docker_and_left_out_of_gemini_args(
    tmp_path: Path, sink: Any
) -> None:
    path = tmp_path / "a,b"
    grants = [Grant("c", path, path)]
    assert _docker_mounts(render_grants(grants, "docker")) == [
        {"source": str(path), "target": str(path)}
    ]
    assert '"source=' in shlex.split(render_grants(grants, "docker"))[1]
    assert json.loads(render_grants(grants, "gemini")) == {
        "context": {"includeDirectories": [str(path)]}
    }
    assert sink == []
    assert render_grants(grants, "gemini", args=True) == ""
    assert [d.message for d in sink] == [
        f"gemini: left out {path} of skill 'c': it holds a comma, the separator of "
        "--include-directories, which the format cannot carry"
    ]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("new\nline", "a newline"),
        ("tab\there", "the control character U+0009"),
        ("caf\udce9", "a byte that is not UTF-8"),
    ],
)
def test_a_path_no_format_can_carry_is_left_out_with_a_warning(
    tmp_path: Path, sink: Any, name: str, reason: str
) -> None:
    good = tmp_path / "good"
    bad = tmp_path / name
    grants = [Grant("bad", bad, bad), Grant("good", good, good)]
    for host in HOSTS:
        sink.clear()
        text = render_grants(grants, host)
        assert str(bad) not in text
        assert str(good) in text
        assert [(d.kind, d.path) for d in sink] == [(DiagnosticKind.PATH_LEFT_OUT, bad)], host
        assert f"it holds {reason}, which the format cannot carry" in sink[0].message
        assert "\n" not in sink[0].message and "\udce9" not in sink[0].message


def test_a_link_path_that_cannot_be_carried_keeps_the_real_path(tmp_path: Path, sink: Any) -> None:
    real = tmp_path / "store" / "s"
    link = tmp_path / "root" / "s\nx"
    grants = [Grant("s", link, real)]
    assert json.loads(render_grants(grants, "gemini")) == {
        "context": {"includeDirectories": [str(real)]}
    }
    assert _bwrap_binds(render_grants(grants, "bwrap")) == [(str(real), str(real))]
    # The SDK's grant needs the path the sandbox sees: the whole grant is left out there.
    assert json.loads(render_grants(grants, "openai-agents")) == []
    # A real path that cannot be carried takes its grant out whole.
    assert json.loads(render_grants([Grant("t", real, tmp_path / "r\nx")], "json")) == []


def test_pattern_characters_are_left_out_of_claude_and_opencode_only(
    tmp_path: Path, sink: Any
) -> None:
    star = tmp_path / "a*b"
    grants = [Grant("s", star, star)]
    assert json.loads(render_grants(grants, "claude")) == {"permissions": {"allow": []}}
    assert json.loads(render_grants(grants, "opencode")) == {
        "permission": {"external_directory": {}}
    }
    assert json.loads(render_grants(grants, "gemini"))["context"]["includeDirectories"] == [
        str(star)
    ]
    assert [d.message.split(":")[0] for d in sink] == ["claude", "opencode"]
    paren = tmp_path / "x (copy)"
    assert json.loads(render_grants([Grant("p", paren, paren)], "opencode"))["permission"][
        "external_directory"
    ] == {f"{paren}/**": "allow"}
    assert json.loads(render_grants([Grant("p", paren, paren)], "claude")) == {
        "permissions": {"allow": []}
    }


def test_discovered_paths_with_odd_names_render(tmp_path: Path, sink: Any) -> None:
    root = tmp_path / "root"
    store = tmp_path / "store"
    make_skill(store, 'q"uote', frontmatter={"name": "quote", "description": "d"})
    symlink(root / "quote", store / 'q"uote')
    raw = os.fsencode(str(root)) + b"/caf\xe9"
    os.makedirs(raw)
    with open(raw + b"/SKILL.md", "w") as fh:
        fh.write("---\nname: cafe\ndescription: d\n---\nbody\n")
    skills = create_agent_skills([root])
    grants = skills.grants()
    assert [(g.skill, g.path.name) for g in grants] == [("cafe", "caf\udce9"), ("quote", "quote")]
    sink.clear()
    assert json.loads(render_grants(grants, "json")) == [
        {"skill": "quote", "path": str(root / "quote"), "real_path": str(store / 'q"uote')}
    ]
    assert [d.path for d in sink] == [root / "caf\udce9"]


def test_unknown_host_and_bad_arguments() -> None:
    with pytest.raises(SkillError) as err:
        render_grants([], "vscode")
    assert err.value.code == "invalid_input"
    assert err.value.fields == {"host": "vscode", "hosts": list(HOSTS)}
    assert err.value.message == "unknown host 'vscode'; known hosts: " + ", ".join(HOSTS)
    with pytest.raises(SkillError) as err:
        render_grants([], "claude", args=True)
    assert err.value.code == "invalid_input"
    with pytest.raises(SkillError) as err:
        render_grants(["/x"], "json")  # type: ignore[list-item]
    assert (err.value.code, err.value.fields) == ("invalid_input", {"type": "str"})
    with pytest.raises(SkillError) as err:
        render_grants(Grant("a", Path("/a"), Path("/a")), "json")  # type: ignore[arg-type]
    assert (err.value.code, err.value.fields) == ("invalid_input", {"type": "Grant"})
    with pytest.raises(SkillError) as err:
        render_grants([], None)  # type: ignore[arg-type]
    assert err.value.code == "invalid_input"


# -- no path can forge or break a rule (property) -------------------------------------------------

_NAME_CHARS = st.characters(
    blacklist_categories=("Cs",), blacklist_characters="/\x00"
) | st.sampled_from([*"\"\\\n\t,*?[]() '$`;#", "\udce9", "\udcff", "\x7f", "\x85"])


def _expected_paths(host: str, texts: list[str]) -> list[str]:
    """The paths a format carries (SPEC §28.2, written out): none with a control character or a
    byte that is not UTF-8, and for Claude Code's and opencode's rules none with one of their
    pattern characters."""
    never = {chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]} | {
        chr(c) for c in range(0xDC80, 0xDD00)
    }
    patterns = {"claude": set("*?[]\\()"), "opencode": set("*?")}.get(host, set())
    return [t for t in texts if not (set(t) & (never | patterns))]


def _read_back(host: str, text: str) -> list[str]:
    """The granted paths, read back from a rendering by the host's own parser."""
    if host == "json":
        return [g["real_path"] for g in json.loads(text)]
    if host == "openai-agents":
        return [g["host_path"] for g in json.loads(text)]
    if host == "claude":
        rules = json.loads(text)["permissions"]["allow"]
        assert all(r.startswith("Read(//") and r.endswith("/**)") for r in rules)
        return [r[len("Read(/") : -len("/**)")] for r in rules]
    if host == "codex":
        return list(tomllib.loads(text)["permissions"]["agent-skills"]["filesystem"])
    if host == "gemini":
        return list(json.loads(text)["context"]["includeDirectories"])
    if host == "opencode":
        patterns = json.loads(text)["permission"]["external_directory"]
        return [p[: -len("/**")] for p in patterns]
    if host == "seatbelt":
        return _seatbelt_paths(text)
    if host == "bwrap":
        return [real for real, _ in _bwrap_binds(text)]
    return [m["source"] for m in _docker_mounts(text)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.text(_NAME_CHARS, min_size=1, max_size=12), min_size=1, max_size=4))
def test_any_name_is_carried_exactly_or_left_out(names: list[str]) -> None:
    texts = list(dict.fromkeys(f"/skills/{name}" for name in names if name not in (".", "..")))
    grants = [Grant(f"s{i}", Path(t), Path(t)) for i, t in enumerate(texts)]
    seen: list[Diagnostic] = []
    set_diagnostic_sink(seen.append)
    try:
        for host in HOSTS:
            seen.clear()
            text = render_grants(grants, host)
            carried = _expected_paths(host, texts)
            assert _read_back(host, text) == carried, host
            assert len(seen) == len(texts) - len(carried), host
            assert all("\n" not in d.message for d in seen)
    finally:
        set_diagnostic_sink(None)
