"""SPEC §2: resolve_config, roots, home and workspace resolution."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, MutableMapping
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from agent_skills import (
    DEFAULT_FOLLOW_SYMLINKS,
    DEFAULT_MAX_RESOURCES,
    DEFAULT_STRICT,
    SkillConfig,
    SkillError,
    SkillRoot,
    StartupError,
    create_agent_skills,
    expand_home,
    resolve_against,
    resolve_config,
    resolve_workspace_dir,
)
from conftest import make_skill


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


HOME = "/home/tester"


def roots_of(cfg: SkillConfig) -> list[tuple[str, str, str]]:
    return [(str(r.path), r.scope, r.source) for r in cfg.roots]


def test_defaults() -> None:
    assert (DEFAULT_STRICT, DEFAULT_FOLLOW_SYMLINKS, DEFAULT_MAX_RESOURCES) == (False, True, 5000)


def test_root_forms(ws: Path) -> None:
    cfg = resolve_config(
        [
            "plain",
            PurePosixPath("pathlike"),
            SkillRoot(Path("root-obj"), "user", "src1"),
            {"path": "mapped"},
            {"path": Path("mapped2"), "scope": "user", "source": "src2"},
            {"path": "mapped3", "source": "src3"},
        ],
        cwd=ws,
        home=HOME,
    )
    assert roots_of(cfg) == [
        (f"{ws}/plain", "workspace", ""),
        (f"{ws}/pathlike", "workspace", ""),
        (f"{ws}/root-obj", "user", "src1"),
        (f"{ws}/mapped", "workspace", ""),
        (f"{ws}/mapped2", "user", "src2"),
        (f"{ws}/mapped3", "workspace", "src3"),
    ]
    assert all(isinstance(r, SkillRoot) and isinstance(r.path, Path) for r in cfg.roots)


def test_roots_keep_order_and_repeats(ws: Path) -> None:
    cfg = resolve_config(["b", "a", "b", str(ws / "b")], cwd=ws, home=HOME)
    assert [str(r.path) for r in cfg.roots] == [f"{ws}/b", f"{ws}/a", f"{ws}/b", f"{ws}/b"]


@pytest.mark.parametrize(
    "bad",
    [
        {"path": "x", "scope": "global"},
        {"path": "x", "scope": "User"},
        {"path": "x", "scope": None},
        {"path": "x", "scope": ""},
        SkillRoot(Path("x"), "system", ""),  # type: ignore[arg-type]
    ],
)
def test_bad_scope_is_startup_error(ws: Path, bad: Any) -> None:
    with pytest.raises(StartupError) as info:
        resolve_config([bad], cwd=ws, home=HOME)
    assert "scope" in str(info.value)


@pytest.mark.parametrize("bad", [{"scope": "user"}, {"path": 5}, 5, None, b"bytes"])
def test_bad_root_items_are_startup_errors(ws: Path, bad: Any) -> None:
    with pytest.raises(StartupError):
        resolve_config([bad], cwd=ws, home=HOME)


def test_source_must_be_a_string(ws: Path) -> None:
    with pytest.raises(StartupError):
        resolve_config([{"path": "x", "source": 1}], cwd=ws, home=HOME)


def test_scope_and_source_are_provenance_only(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    make_skill(a, "s", frontmatter={"name": "s", "description": "from a"})
    make_skill(b, "s", frontmatter={"name": "s", "description": "from b"})
    # A "user" root listed later still wins over a "workspace" root listed earlier.
    skills = create_agent_skills(
        [{"path": a, "scope": "workspace", "source": "z"}, {"path": b, "scope": "user"}],
        cwd=tmp_path,
        home=tmp_path,
    )
    (info,) = skills.list_skills()
    assert (info.description, info.scope, info.source) == ("from b", "user", "")


def test_startup_error_is_not_a_skill_error() -> None:
    assert not issubclass(StartupError, SkillError)
    assert not issubclass(SkillError, StartupError)


def test_empty_roots(ws: Path) -> None:
    with pytest.raises(StartupError):
        resolve_config([], cwd=ws, home=HOME)
    with pytest.raises(StartupError):
        resolve_config((), cwd=ws, home=HOME)


def test_home_expansion(ws: Path) -> None:
    cfg = resolve_config(["~", "~/x", "~/x/y/", "~user/x", "~user", "a/~/b"], cwd=ws, home=HOME)
    assert [str(r.path) for r in cfg.roots] == [
        HOME,
        f"{HOME}/x",
        f"{HOME}/x/y",
        f"{ws}/~user/x",
        f"{ws}/~user",
        f"{ws}/a/~/b",
    ]
    assert cfg.home == Path(HOME)


def test_expand_home_function() -> None:
    assert expand_home("~", HOME) == HOME
    assert expand_home("~/", HOME) == HOME
    assert expand_home("~/skills", HOME) == f"{HOME}/skills"
    assert expand_home(Path("~/skills"), Path(HOME)) == f"{HOME}/skills"
    assert expand_home("~bob/skills", HOME) == "~bob/skills"
    assert expand_home("skills/~", HOME) == "skills/~"
    assert expand_home("/abs", HOME) == "/abs"


def test_relative_roots_resolve_against_workspace_dir(ws: Path, tmp_path: Path) -> None:
    cfg = resolve_config(["skills", "./a/../b", "../up"], workspace=ws, cwd=tmp_path, home=HOME)
    assert [str(r.path) for r in cfg.roots] == [f"{ws}/skills", f"{ws}/b", f"{tmp_path}/up"]


def test_relative_roots_resolve_against_cwd_without_workspace(ws: Path) -> None:
    cfg = resolve_config(["skills"], cwd=ws, home=HOME)
    assert cfg.workspace_dir == ws
    assert str(cfg.roots[0].path) == f"{ws}/skills"


def test_absolute_roots_are_kept_as_given(ws: Path) -> None:
    cfg = resolve_config(["/x/../y/./z", "/a//b"], cwd=ws, home=HOME)
    assert [str(r.path) for r in cfg.roots] == ["/x/../y/z", "/a/b"]
    # pathlib itself folds '//' and '.', but '..' stays: the path is not normalised or resolved.
    assert os.fspath(cfg.roots[0].path) == os.fspath(Path("/x/../y/./z"))


def test_roots_are_never_checked(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    cfg = resolve_config(["missing", "file", "missing"], cwd=tmp_path, home=HOME)
    assert len(cfg.roots) == 3
    skills = create_agent_skills(["missing", "file"], cwd=tmp_path, home=tmp_path)
    assert skills.list_skills() == []
    assert skills.diagnostics == ()


def test_workspace_resolved_against_cwd(tmp_path: Path, ws: Path) -> None:
    cfg = resolve_config(["r"], workspace="ws", cwd=tmp_path, home=HOME)
    assert cfg.workspace_dir == ws


def test_workspace_tilde_expands_against_home(tmp_path: Path, ws: Path) -> None:
    cfg = resolve_config(["r"], workspace="~/ws", cwd="/", home=tmp_path)
    assert cfg.workspace_dir == ws
    assert cfg.roots[0].path == ws / "r"


def test_workspace_must_exist(tmp_path: Path) -> None:
    with pytest.raises(StartupError) as info:
        resolve_config(["r"], workspace="nope", cwd=tmp_path, home=HOME)
    assert "does not exist" in str(info.value)
    assert str(tmp_path / "nope") in str(info.value)


def test_workspace_must_be_a_directory(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(StartupError) as info:
        resolve_config(["r"], workspace="f", cwd=tmp_path, home=HOME)
    assert "not a directory" in str(info.value)


def test_workspace_symlinks_are_followed(tmp_path: Path, ws: Path) -> None:
    os.symlink(ws, tmp_path / "link")
    os.symlink(tmp_path / "missing", tmp_path / "dangling")
    (tmp_path / "f").write_text("x")
    os.symlink(tmp_path / "f", tmp_path / "flink")
    cfg = resolve_config(["r"], workspace="link", cwd=tmp_path, home=HOME)
    assert cfg.workspace_dir == tmp_path / "link"
    with pytest.raises(StartupError, match="does not exist"):
        resolve_config(["r"], workspace="dangling", cwd=tmp_path, home=HOME)
    with pytest.raises(StartupError, match="not a directory"):
        resolve_config(["r"], workspace="flink", cwd=tmp_path, home=HOME)


def test_workspace_check_runs_before_empty_roots_check(tmp_path: Path) -> None:
    with pytest.raises(StartupError, match="does not exist"):
        resolve_config([], workspace="nope", cwd=tmp_path, home=HOME)


def test_absent_workspace_is_cwd_unchecked(tmp_path: Path) -> None:
    cfg = resolve_config(["r"], cwd=tmp_path / "not-there", home=HOME)
    assert cfg.workspace_dir == tmp_path / "not-there"


def test_home_and_cwd_default_to_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = resolve_config(["r"])
    assert cfg.home == Path(os.path.expanduser("~"))
    assert cfg.workspace_dir == Path(os.getcwd())
    assert cfg.roots[0].path == Path(os.getcwd()) / "r"


def test_config_fields_and_options(ws: Path) -> None:
    cfg = resolve_config(
        ["r"], cwd=ws, home=HOME, strict=True, follow_symlinks=False, max_resources=7
    )
    assert cfg == SkillConfig(
        home=Path(HOME),
        workspace_dir=ws,
        roots=(SkillRoot(ws / "r", "workspace", ""),),
        strict=True,
        follow_symlinks=False,
        max_resources=7,
    )
    assert isinstance(cfg.roots, tuple)


@pytest.mark.parametrize(
    "kwargs",
    [{"strict": 1}, {"follow_symlinks": "yes"}, {"max_resources": 0}, {"max_resources": True}],
)
def test_bad_options_are_startup_errors(ws: Path, kwargs: dict[str, Any]) -> None:
    with pytest.raises(StartupError):
        resolve_config(["r"], cwd=ws, home=HOME, **kwargs)


def test_single_root_is_a_sequence_of_one(ws: Path) -> None:
    # SPEC §29.6 (0.2 refused it): one root alone is that root; a non-root still fails.
    assert resolve_config("skills", cwd=ws, home=HOME).roots == (SkillRoot(ws / "skills"),)
    with pytest.raises(StartupError):
        resolve_config(7, cwd=ws, home=HOME)  # type: ignore[arg-type]


def test_config_is_immutable(ws: Path) -> None:
    cfg = resolve_config(["r"], cwd=ws, home=HOME)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.strict = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.roots[0].scope = "user"  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.roots[0] = SkillRoot(Path("/x"))  # type: ignore[index]


def test_input_list_mutation_does_not_change_config(ws: Path) -> None:
    roots: list[Any] = ["a"]
    cfg = resolve_config(roots, cwd=ws, home=HOME)
    roots.append("b")
    assert len(cfg.roots) == 1


def test_resolve_against_and_workspace_dir(tmp_path: Path) -> None:
    assert resolve_against("/base", "x/../y", HOME) == "/base/y"
    assert resolve_against("/base", "/abs/../k", HOME) == "/abs/../k"
    assert resolve_against("/base", "~/k", HOME) == f"{HOME}/k"
    assert resolve_workspace_dir(None, "/c", HOME) == "/c"
    assert resolve_workspace_dir("w", "/c", HOME) == "/c/w"
    assert resolve_workspace_dir("~/w", "/c", HOME) == f"{HOME}/w"
    assert resolve_workspace_dir("/nope/w", "/c", HOME) == "/nope/w"


class _RecordingEnviron(MutableMapping[str, str]):
    """Wraps ``os.environ`` and records every key read."""

    def __init__(self, inner: MutableMapping[str, str]) -> None:
        self.inner = inner
        self.read: list[str] = []

    def __getitem__(self, key: str) -> str:
        self.read.append(key)
        return self.inner[key]

    def __setitem__(self, key: str, value: str) -> None:
        self.inner[key] = value

    def __delitem__(self, key: str) -> None:
        del self.inner[key]

    def __iter__(self) -> Iterator[str]:
        self.read.append("*")
        return iter(self.inner)

    def __len__(self) -> int:
        return len(self.inner)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.append(key)
        return key in self.inner


def test_no_environment_variable_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_skill(tmp_path / "ws" / "skills", "s")
    rec = _RecordingEnviron(os.environ)
    monkeypatch.setattr(os, "environ", rec)
    for var in ("AGENT_SKILLS_ROOTS", "AGENT_SKILLS_STRICT", "SKILLS_DIR"):
        rec.inner[var] = "/elsewhere"
    try:
        skills = create_agent_skills(
            ["skills"], workspace=tmp_path / "ws", cwd=tmp_path, home=tmp_path
        )
        assert [s.name for s in skills.list_skills()] == ["s"]
        assert rec.read == []
        # Without an explicit home, the OS home (``~``) is the only ambient input.
        resolve_config(["r"], cwd=tmp_path)
        assert set(rec.read) <= {"HOME"}
    finally:
        for var in ("AGENT_SKILLS_ROOTS", "AGENT_SKILLS_STRICT", "SKILLS_DIR"):
            del rec.inner[var]


@pytest.mark.parametrize(
    "call",
    [
        lambda: expand_home(5, HOME),  # type: ignore[arg-type]
        lambda: expand_home("~", None),  # type: ignore[arg-type]
        lambda: resolve_against(None, "x", HOME),  # type: ignore[arg-type]
        lambda: resolve_workspace_dir(3, "/c", HOME),  # type: ignore[arg-type]
        lambda: resolve_workspace_dir("w", b"/c", HOME),  # type: ignore[arg-type]
        lambda: resolve_config(["r"], cwd=5, home=HOME),  # type: ignore[arg-type]
        lambda: resolve_config(["r"], cwd="/", home=5),  # type: ignore[arg-type]
        lambda: resolve_config(["r"], workspace=5, cwd="/", home=HOME),  # type: ignore[arg-type]
    ],
)
def test_non_path_arguments_are_startup_errors(call: Any) -> None:
    with pytest.raises(StartupError):
        call()


def test_one_root_alone_stands_for_a_sequence_of_it(tmp_path: Path) -> None:
    """SPEC §29.6: ``create_agent_skills(root)`` and ``resolve_config(root)`` take one root."""
    make_skill(tmp_path / "skills", "one")
    root = tmp_path / "skills"
    for given in (
        str(root),
        root,
        SkillRoot(root, "user", "mine"),
        {"path": str(root), "scope": "user", "source": "mine"},
    ):
        config = resolve_config(given, cwd=tmp_path)  # type: ignore[arg-type]
        assert config.roots == resolve_config([given], cwd=tmp_path).roots  # type: ignore[list-item]
        skills = create_agent_skills(given, cwd=tmp_path)  # type: ignore[arg-type]
        assert [(s.name, s.root) for s in skills.list_skills()] == [("one", root)]
    assert resolve_config("skills", cwd=tmp_path).roots[0].path == root
