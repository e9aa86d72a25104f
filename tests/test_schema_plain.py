"""SPEC §6, §21, §26: the plain-check validation of discovery agrees with the pydantic model.

Discovery validates frontmatter without pydantic (``check_frontmatter_values``); the model
``SkillFrontmatter`` is built only when a caller asks. The oracle below is the model-driven
validation the plain checks replace: for every generated frontmatter both must accept the same
values with the same notes, or fail on the same key with the same message.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from agent_skills import SkillError, SkillFrontmatter, parse_skill
from agent_skills._frontmatter import build_model
from agent_skills._schema import (
    FLAG_KEYS,
    FRONTMATTER_KEYS,
    OPTIONAL_KEYS,
    FieldNote,
    check_frontmatter_values,
    coerce_flag,
    name_problem,
)


def _message(err: Any) -> str:
    kind = err.get("type", "")
    if kind == "missing":
        return "required key is missing"
    if kind == "value_error":
        ctx = err.get("ctx") or {}
        if "error" in ctx:
            return str(ctx["error"])
    return str(err.get("msg", "invalid value"))


def _first_key(exc: ValidationError) -> tuple[str, str]:
    found: dict[str, str] = {}
    for err in exc.errors(include_url=False, include_input=False):
        loc = err.get("loc", ())
        found.setdefault(str(loc[0]) if loc else "", _message(err))
    key = next(k for k in FRONTMATTER_KEYS if k in found)
    return key, found[key]


def _oracle(
    data: dict[str, Any], strict: bool, dir_name: str | None
) -> tuple[SkillFrontmatter, list[FieldNote]]:
    """Validation driven by the pydantic model, as discovery did it before SPEC §26."""
    candidate = dict(data)
    notes: list[FieldNote] = []
    if not strict:
        if "name" not in candidate and dir_name is not None and name_problem(dir_name) is None:
            candidate["name"] = dir_name
            detail = f"using the directory name '{dir_name}'"
            notes.append(FieldNote("name_missing", "name", "missing frontmatter key", detail))
        for key, closed in FLAG_KEYS.items():
            if key not in candidate:
                continue
            value = coerce_flag(candidate[key])
            if value is None:
                # The message is the plain path's: compare only which keys got a note.
                notes.append(FieldNote("invalid_field", key, "invalid frontmatter key", "*"))
                value = closed
            candidate[key] = value
    while True:
        try:
            model = SkillFrontmatter.model_validate(candidate, by_alias=True, by_name=False)
            notes.sort(key=lambda note: FRONTMATTER_KEYS.index(note.key))
            return model, notes
        except ValidationError as exc:
            key, message = _first_key(exc)
            if strict or key not in OPTIONAL_KEYS:
                raise SkillError(
                    "invalid_skill", f"invalid frontmatter '{key}': {message}", {"at": key}
                ) from None
            notes.append(
                FieldNote("invalid_field", key, "ignoring invalid frontmatter key", message)
            )
            del candidate[key]


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.floats(allow_nan=False),
    st.sampled_from(["", " ", "ok", " padded ", "yes", "No", "1", "0", "a b", "..", "Ünï", "É"]),
    st.text(max_size=8),
)
_values = st.one_of(
    _scalars,
    st.lists(_scalars, max_size=3),
    st.dictionaries(st.one_of(st.text(max_size=4), st.integers(0, 3)), _scalars, max_size=3),
)
_any_keys = st.dictionaries(
    st.sampled_from([*FRONTMATTER_KEYS, "user_invocable", "extra"]), _values, max_size=8
)
_optional_keys = st.dictionaries(
    st.sampled_from([*FRONTMATTER_KEYS[2:], "user_invocable", "extra"]), _values, max_size=8
)
_valid_required = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["a", " skill-one ", "x.y_z", "ünï"]),
        "description": st.sampled_from(["d", " does things "]),
    }
)
# Mostly valid required keys, so that the optional keys' rules are reached.
_frontmatter = st.one_of(
    _any_keys, st.builds(lambda req, opt: {**req, **opt}, _valid_required, _optional_keys)
)


@settings(max_examples=400, deadline=None)
@given(
    _frontmatter,
    st.booleans(),
    st.sampled_from([None, "dir-name", "Bad Name", "ok_dir"]),
)
def test_plain_checks_agree_with_the_model(
    data: dict[str, Any], strict: bool, dir_name: str | None
) -> None:
    try:
        expected_model, expected_notes = _oracle(data, strict, dir_name)
    except SkillError as expected:
        try:
            check_frontmatter_values(data, strict=strict, dir_name=dir_name)
        except SkillError as err:
            assert (err.code, err.message, err.fields) == (
                expected.code,
                expected.message,
                expected.fields,
            )
        else:
            raise AssertionError(f"accepted what the model rejects: {expected.message}")
        return
    values, notes = check_frontmatter_values(data, strict=strict, dir_name=dir_name)
    assert build_model(values) == expected_model
    assert [(n.kind, n.key, n.lead) for n in notes] == [
        (n.kind, n.key, n.lead) for n in expected_notes
    ]
    for got, want in zip(notes, expected_notes, strict=True):
        if want.detail != "*":
            assert got.detail == want.detail
    assert values["name"] == expected_model.name
    assert values["description"] == expected_model.description


def test_parse_skill_builds_the_model_only_when_asked() -> None:
    code = (
        "import sys, agent_skills\n"
        "p = agent_skills.parse_skill('---\\nname: a\\ndescription: b\\nversion: 1\\n---\\n')\n"
        "before = 'pydantic' in sys.modules\n"
        "m = p.model\n"
        "print(before, 'pydantic' in sys.modules, m.name, m.version, p.values['name'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "a", "None", "a"]


def test_parsed_values_hold_the_normalised_fields() -> None:
    parsed = parse_skill(
        "---\nname: ' a '\ndescription: ' d '\nuser-invocable: 'no'\nversion: 2\n"
        "tools: [Read]\n---\nbody\n"
    )
    assert parsed.values == {
        "name": "a",
        "description": "d",
        "user-invocable": False,
        "tools": ["Read"],
    }
    assert parsed.frontmatter["version"] == 2  # the raw value stays in the frontmatter
    assert parsed.model.user_invocable is False and parsed.model.version is None
