"""``list --json`` run without click (SPEC §16, §26): every command line ``cli._fast`` accepts is
read as click reads it and gives the same bytes on stdout and stderr and the same exit code;
every other one is click's.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent_skills import AgentSkills
from agent_skills.cli import _run, _run_click
from agent_skills.cli._fast import list_json_options
from conftest import make_skill


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A root with a good skill, one whose text needs escapes, one with warnings, one invalid;
    HOME and the current directory inside ``tmp_path`` so that presets read only it."""
    root = tmp_path / "skills"
    make_skill(root, "alpha", frontmatter={"name": "alpha", "description": "First."})
    make_skill(
        root,
        "beta",
        frontmatter={
            "name": "beta",
            "description": 'Quotes " and \\ back, tab\t, é, 日本, C1 \x85, DEL \x7f',
            "allowed-tools": ["Read", "Bash(git *)"],
            "metadata": {"version": "1.2"},
        },
    )
    make_skill(root, "gamma", raw="---\nname: gamma\ndescription: " + "x" * 1100 + "\n---\nb\n")
    make_skill(root, "broken", raw="---\nname: [\n---\n")
    home = tmp_path / "home"
    make_skill(
        home / ".claude" / "skills", "alpha", frontmatter={"name": "alpha", "description": "U"}
    )
    (tmp_path / "a-file").write_text("not a root")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("_AGENT_SKILLS_COMPLETE", raising=False)
    monkeypatch.chdir(tmp_path)
    yield root


def _bytes_of(run: Callable[[list[str]], int], args: list[str]) -> tuple[int, bytes, bytes]:
    """Exit code, stdout and stderr bytes of ``run(args)`` with both streams captured."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", write_through=True),
    )
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = streams
    try:
        rc = run(args)
        for stream in streams:
            stream.flush()
        return rc, out.getvalue(), err.getvalue()
    finally:
        sys.stdout, sys.stderr = saved


def _click_params(args: list[str]) -> dict[str, object]:
    """The parameters click's ``list`` command gets from ``args`` (after ``list``)."""
    from agent_skills.cli.discover import list_command

    ctx = list_command.make_context("list", list(args[1:]))
    return dict(ctx.params)


def test_list_json_runs_without_click_with_click_s_options_and_bytes(tree: Path) -> None:
    args = ["list", "--json", "--preset", "none", "--root", str(tree)]
    options = list_json_options(args)
    assert options is not None
    assert {**options, "as_json": True} == _click_params(args)
    rc, out, err = _bytes_of(_run, args)
    assert (rc, out, err) == _bytes_of(_run_click, args)
    assert rc == 0
    assert b'"name": "alpha"' in out and b'"name": "beta"' in out
    assert b"C1 \\u0085, DEL \\u007f" in out  # JSON escapes, as click's path writes them
    assert err.startswith(b'{"warnings": [') and b"description_too_long" in err


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--preset", "none", "--root", "R"],  # no --json: a table, click's
        ["list", "--json", "--root=R"],
        ["list", "--json", "--strict", "--root", "R"],
        ["list", "--json", "--root", "-R"],
        ["list", "--json", "--root", ""],
        ["list", "--json", "--root"],
        ["list", "--json", "--preset", "nope"],
        ["list", "--json", "--preset", "None"],
        ["list", "--json", "--root", "MISSING"],  # click's path type stats it
        ["list", "--json", "--", "--root", "R"],
        ["list", "--json", "-h"],
        ["list", "--json", "--help"],
        ["list", "--JSON"],
        ["show", "--json", "alpha"],
        ["--json", "list"],
        [],
    ],
)
def test_other_command_lines_are_click_s(tree: Path, args: list[str]) -> None:
    args = [
        str(tree) if a == "R" else str(tree.parent / "missing") if a == "MISSING" else a
        for a in args
    ]
    assert list_json_options(args) is None


def test_shell_completion_is_click_s(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_AGENT_SKILLS_COMPLETE", "bash_complete")
    assert list_json_options(["list", "--json", "--root", str(tree)]) is None


def test_ctrl_c_during_list_json_ends_as_click_ends_it(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(self: AgentSkills) -> list[object]:
        raise KeyboardInterrupt

    monkeypatch.setattr(AgentSkills, "list_skills", interrupted)
    args = ["list", "--json", "--preset", "none", "--root", str(tree)]
    assert list_json_options(args) is not None
    fast = _bytes_of(_run, args)
    assert fast == _bytes_of(_run_click, args)
    assert fast == (130, b"", b"\naborted: interrupted\n")


def test_a_failure_inside_list_json_is_reported_as_click_reports_it(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: AgentSkills) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(AgentSkills, "list_skills", broken)
    args = ["list", "--json", "--preset", "none", "--root", str(tree)]
    fast = _bytes_of(_run, args)
    assert fast == _bytes_of(_run_click, args)
    assert fast[0] == 1 and b'"code": "internal_error"' in fast[2] and b"boom" in fast[2]


_TOKENS = st.sampled_from(
    [
        "--json",
        "--preset",
        "--root",
        "ROOT",
        "MISSING",
        "FILE",
        "none",
        "auto",
        "claude",
        "agents",
        "nope",
        "",
        "-x",
        "--strict",
        "--root=ROOT",
        "--",
        "--max-depth",
        "2",
        "-h",
    ]
)


# Command lines of the accepted shape, an odd value or token among them now and then.
_WELL_FORMED = st.lists(
    st.just(["--json"])
    | st.tuples(st.just("--preset"), st.sampled_from(["none", "auto", "claude", "nope"])).map(list)
    | st.tuples(st.just("--root"), st.sampled_from(["ROOT", "ROOT", "FILE", "MISSING", "-x"])).map(
        list
    )
    | st.just(["--strict"]),
    max_size=5,
).map(lambda groups: [token for group in groups for token in group])


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(_TOKENS, max_size=7) | _WELL_FORMED,
    st.sampled_from(["list", "list", "show", "--json"]),
)
def test_any_command_line_gives_click_s_bytes_and_exit_code(
    tree: Path, tokens: list[str], command: str
) -> None:
    paths = {"ROOT": str(tree), "MISSING": str(tree.parent / "missing"), "FILE": "a-file"}
    args = [command, *(paths.get(t, t) for t in tokens)]
    options = list_json_options(args)
    event("without click" if options is not None else "click's")
    if options is not None:
        assert {**options, "as_json": True} == _click_params(args)
    assert _bytes_of(_run, args) == _bytes_of(_run_click, args)
