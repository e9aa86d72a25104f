"""SPEC §11: SkillError, ErrorCode, StartupError and fs_error."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from agent_skills import ErrorCode, SkillError, StartupError, fs_error

CODES = [
    "invalid_skill",
    "duplicate_skill",
    "not_found",
    "not_a_file",
    "path_escape",
    "invalid_input",
    "io_error",
    "too_large",
    "access_denied",
    "stale_skill",
    "invalid_archive",
    "sandbox_unavailable",  # SPEC §28.4: Landlock cannot be applied here
]


def test_codes_are_exactly_the_spec_codes() -> None:
    assert [c.value for c in ErrorCode] == CODES


@pytest.mark.parametrize("code", CODES)
def test_code_is_a_str_enum(code: str) -> None:
    member = ErrorCode(code)
    assert member == code
    assert isinstance(member, str)
    err = SkillError(code, "m")
    assert err.code is member
    assert err.code == code
    assert json.dumps({"c": err.code}) == json.dumps({"c": code})


def test_fields_message_and_str() -> None:
    fields = {"name": "x", "rel": "a/b"}
    err = SkillError(ErrorCode.PATH_ESCAPE, "Path escapes skill 'x'", fields)
    assert err.message == "Path escapes skill 'x'"
    assert err.fields == {"name": "x", "rel": "a/b"}
    fields["name"] = "changed"
    assert err.fields["name"] == "x"
    assert "Path escapes skill 'x'" in str(err)
    assert err.to_dict() == {
        "code": "path_escape",
        "message": "Path escapes skill 'x'",
        "fields": {"name": "x", "rel": "a/b"},
    }
    assert isinstance(err, Exception)


def test_fields_default_to_empty_dict() -> None:
    assert SkillError("not_found", "m").fields == {}
    assert SkillError("not_found", "m", None).fields == {}


def test_unknown_code_is_rejected() -> None:
    with pytest.raises(ValueError):
        SkillError("nope", "m")


def test_startup_error_is_separate() -> None:
    assert not issubclass(StartupError, SkillError)
    assert "bad" in str(StartupError("bad"))


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (FileNotFoundError(errno.ENOENT, "No such file or directory"), "not_found"),
        (OSError(errno.ENOENT, "No such file or directory"), "not_found"),
        (IsADirectoryError(errno.EISDIR, "Is a directory"), "not_a_file"),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory"), "not_a_file"),
        (PermissionError(errno.EACCES, "Permission denied"), "io_error"),
        (OSError(errno.ELOOP, "Too many levels of symbolic links"), "io_error"),
        (OSError("no errno at all"), "io_error"),
        (OSError(), "io_error"),
    ],
)
@pytest.mark.parametrize("path", ["/s/x/SKILL.md", Path("/s/x/SKILL.md")])
def test_fs_error_mapping(exc: OSError, code: str, path: str | Path) -> None:
    err = fs_error(exc, path)
    assert isinstance(err, SkillError)
    assert err.code == code
    assert err.fields == {"path": "/s/x/SKILL.md"}
    assert "/s/x/SKILL.md" in err.message


def test_fs_error_io_message_names_the_errno() -> None:
    err = fs_error(PermissionError(errno.EACCES, "Permission denied"), "/p")
    assert err.message == "EACCES: Permission denied: /p"
    err = fs_error(OSError(errno.EIO, "Input/output error"), "/p")
    assert err.message.startswith("EIO: ")


def test_fs_error_without_errno_says_eio() -> None:
    err = fs_error(OSError("weird"), "/p")
    assert err.code == ErrorCode.IO_ERROR
    assert err.message == "EIO: weird: /p"


def test_fs_error_from_a_real_failure(tmp_path: Path) -> None:
    try:
        os.open(tmp_path / "missing", os.O_RDONLY)
    except OSError as exc:
        err = fs_error(exc, tmp_path / "missing")
    assert err.code == "not_found"
    assert err.fields == {"path": str(tmp_path / "missing")}


def test_skill_error_pickles_and_copies() -> None:
    import copy
    import pickle

    err = SkillError(ErrorCode.TOO_LARGE, "too big", {"size": 3, "max_bytes": 1})
    for clone in (pickle.loads(pickle.dumps(err)), copy.copy(err), copy.deepcopy(err)):
        assert isinstance(clone, SkillError)
        assert (clone.code, clone.message, clone.fields) == (err.code, err.message, err.fields)


# -- immutability: an error raised is the error caught ---------------------------------------


def test_error_attributes_cannot_be_reassigned() -> None:
    err = SkillError("not_found", "No such skill: x", {"name": "x"})
    for attr, value in [("code", "io_error"), ("message", "m"), ("fields", {}), ("args", ())]:
        with pytest.raises(AttributeError, match="read-only"):
            setattr(err, attr, value)
        with pytest.raises(AttributeError):
            delattr(err, attr)
    assert (err.code, err.message, err.fields, err.args) == (
        "not_found",
        "No such skill: x",
        {"name": "x"},
        ("No such skill: x",),
    )


def test_error_fields_are_a_read_only_dict() -> None:
    err = SkillError("not_found", "m", {"name": "x"})
    attempts = [
        lambda f: f.__setitem__("rel", "a"),
        lambda f: f.__delitem__("name"),
        lambda f: f.update(rel="a"),
        lambda f: f.setdefault("rel", "a"),
        lambda f: f.pop("name"),
        lambda f: f.popitem(),
        lambda f: f.clear(),
    ]
    for attempt in attempts:
        with pytest.raises(TypeError, match="read-only"):
            attempt(err.fields)
    assert err.fields == {"name": "x"}
    assert isinstance(err.fields, dict)
    assert json.dumps(err.fields) == '{"name": "x"}'
    copy = dict(err.fields)
    copy["rel"] = "a"
    assert err.fields == {"name": "x"}
    assert type(err.to_dict()["fields"]) is dict


def test_with_fields_returns_a_new_error() -> None:
    err = SkillError("path_escape", "Path escapes", {"rel": "../x"})
    named = err.with_fields({"name": "s"})
    assert named is not err
    assert (named.code, named.message, named.fields) == (
        "path_escape",
        "Path escapes",
        {"rel": "../x", "name": "s"},
    )
    assert err.fields == {"rel": "../x"}
    renamed = err.with_fields(message="Path escapes skill 's'")
    assert (renamed.message, str(renamed), renamed.fields) == (
        "Path escapes skill 's'",
        "Path escapes skill 's'",
        {"rel": "../x"},
    )
    assert err.with_fields({"rel": "y"}).fields == {"rel": "y"}


def test_errors_still_take_notes_and_causes() -> None:
    err = SkillError("io_error", "m")
    err.add_note("while scanning")
    assert err.__notes__ == ["while scanning"]
    with pytest.raises(SkillError) as info:
        try:
            raise OSError(errno.EIO, "x")
        except OSError as exc:
            raise err from exc
    assert isinstance(info.value.__cause__, OSError)
