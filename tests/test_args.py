"""_args: the one set of argument coercions used by every public entry point."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills import SkillError, StartupError, create_agent_skills, resolve_config
from agent_skills._args import (
    coerce_bool,
    coerce_byte_limit,
    coerce_choice,
    coerce_int,
    coerce_name,
    coerce_optional_int,
    coerce_path,
    coerce_str,
    path_text,
    shown_text,
)
from conftest import make_skill


class _RaisingPath:
    def __fspath__(self) -> str:
        raise RuntimeError("boom")


class _BytesPath:
    def __fspath__(self) -> bytes:
        return b"/x"


def test_path_text_accepts_text_and_text_path_likes_only() -> None:
    assert path_text("a/b") == "a/b"
    assert path_text(Path("a/b")) == "a/b"
    assert path_text(PurePosixPath("/x")) == "/x"
    for bad in (b"/x", None, 3, _RaisingPath(), _BytesPath()):
        assert path_text(bad) is None


def test_coerce_path_errors_are_coded() -> None:
    with pytest.raises(SkillError) as info:
        coerce_path(b"/x", "path")
    assert (info.value.code, info.value.message, info.value.fields) == (
        "invalid_input",
        "path must be a str or os.PathLike[str], got bytes",
        {"type": "bytes"},
    )
    assert coerce_path("", "path") == ""
    for bad, message in [("", "path must not be empty"), ("a\0b", "path must not contain NUL")]:
        with pytest.raises(SkillError) as info:
            coerce_path(bad, "path", usable=True)
        assert (info.value.message, info.value.fields) == (message, {"path": bad})
    with pytest.raises(StartupError, match=r"^home must be a str or os\.PathLike"):
        coerce_path(_RaisingPath(), "home", startup=True)


def test_shown_names_any_argument() -> None:
    assert (shown_text("a/b"), shown_text(Path("x")), shown_text(b"x"), shown_text(3)) == (
        "a/b",
        "x",
        "b'x'",
        "3",
    )
    assert shown_text(_RaisingPath()).startswith("<")


def test_coerce_str_and_name() -> None:
    assert coerce_str("q", "query") == "q"
    assert coerce_name("") == ""
    with pytest.raises(SkillError) as info:
        coerce_name(3)
    assert (info.value.message, info.value.fields) == (
        "skill name must be a str, got int",
        {"type": "int"},
    )


def test_coerce_bool_refuses_truthy_values() -> None:
    assert coerce_bool(True, "strict") is True
    for bad in (1, 0, "yes", None):
        with pytest.raises(StartupError, match=r"^strict must be a bool$"):
            coerce_bool(bad, "strict", startup=True)


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({}, -1, "n must be a non-negative int"),
        ({"minimum": 1}, 0, "n must be a positive int"),
        ({"minimum": 5}, 4, "n must be an int of at least 5"),
        ({"minimum": 1, "maximum": 50}, 51, "n must be an integer from 1 to 50"),
        (
            {"minimum": 1, "maximum": 50, "none": "null"},
            True,
            "n must be an integer from 1 to 50, or null",
        ),
        ({}, 1.0, "n must be a non-negative int"),
        ({}, None, "n must be a non-negative int"),
    ],
)
def test_coerce_int_messages(kwargs: dict[str, object], value: object, message: str) -> None:
    with pytest.raises(SkillError) as info:
        coerce_int(value, "n", **kwargs)  # type: ignore[arg-type]
    assert (info.value.code, info.value.message, info.value.fields) == (
        "invalid_input",
        message,
        {"n": repr(value)},
    )


def test_coerce_int_and_byte_limit_accept_their_range() -> None:
    assert coerce_int(0, "n") == 0
    assert coerce_int(50, "n", minimum=1, maximum=50) == 50
    assert coerce_optional_int(None, "n", none="None") is None
    assert coerce_optional_int(7, "n", none="null", maximum=7) == 7
    assert coerce_byte_limit(None) is None
    assert coerce_byte_limit(0) == 0
    with pytest.raises(SkillError) as info:
        coerce_byte_limit(-1)
    assert info.value.message == "max_bytes must be a non-negative int, or None"


def test_coerce_choice() -> None:
    assert coerce_choice("spec", ("spec", "portable"), "profile") == "spec"
    with pytest.raises(SkillError) as info:
        coerce_choice("Spec", ("spec", "portable"), "profile")
    assert info.value.fields == {"profile": "'Spec'", "choices": ["spec", "portable"]}


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True),
        st.text(),
        st.binary(),
        st.lists(st.integers(), max_size=3),
    )
)
def test_coercions_raise_only_coded_errors(value: object) -> None:
    calls = [
        lambda: coerce_path(value, "p", usable=True),
        lambda: coerce_str(value, "s"),
        lambda: coerce_bool(value, "b"),
        lambda: coerce_optional_int(value, "n", none="None", minimum=1, maximum=9),
        lambda: coerce_byte_limit(value),
        lambda: coerce_choice(value, ("a", "b"), "c"),
    ]
    for call in calls:
        try:
            call()
        except SkillError as err:
            assert err.code == "invalid_input"


def test_entry_points_share_the_rules(tmp_path: Path) -> None:
    """The same bad argument gets the same message from every entry point."""
    make_skill(tmp_path / "skills", "a")
    skills = create_agent_skills([tmp_path / "skills"])
    with pytest.raises(SkillError) as via_core:
        skills.load_skill(3)  # type: ignore[arg-type]
    with pytest.raises(SkillError) as via_registry:
        skills.resource_path(3, "x")  # type: ignore[arg-type]
    assert (
        via_core.value.message == via_registry.value.message == "skill name must be a str, got int"
    )
    with pytest.raises(SkillError) as limit:
        skills.read_resource("a", "SKILL.md", max_bytes=True)  # type: ignore[arg-type]
    assert limit.value.message == "max_bytes must be a non-negative int, or None"
    for kwargs, message in [
        ({"max_resources": 0}, "max_resources must be a positive int"),
        ({"strict": 1}, "strict must be a bool"),
        ({"cwd": 3}, "cwd must be a str or os.PathLike[str], got int"),
    ]:
        with pytest.raises(StartupError) as startup:
            resolve_config([os.fspath(tmp_path)], **kwargs)  # type: ignore[arg-type]
        assert str(startup.value) == message
