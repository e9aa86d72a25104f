"""The frontmatter schema and tool-list normalisation (SPEC §6). Pure: values in, values out.

A leaf of the pipeline: it imports nothing from the other stages but the errors.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from ._errors import ErrorCode, SkillError

__all__ = [
    "FRONTMATTER_KEYS",
    "OPTIONAL_KEYS",
    "SkillFrontmatter",
    "normalize_tools",
    "validate_frontmatter",
]

_NAME_RE = re.compile(r"^[A-Za-z0-9._-]+$")

#: Known keys in the order they are checked (SPEC §6); the first failure is reported as ``at``.
FRONTMATTER_KEYS = (
    "name",
    "description",
    "version",
    "license",
    "compatibility",
    "argument-hint",
    "allowed-tools",
    "tools",
    "user-invocable",
    "disable-model-invocation",
    "metadata",
)
OPTIONAL_KEYS = frozenset(FRONTMATTER_KEYS[2:])


def _check_name(value: str) -> str:
    trimmed = value.strip()
    if not trimmed:
        raise ValueError("name is required")
    if not _NAME_RE.fullmatch(trimmed):
        raise ValueError("name must only contain letters, digits, '.', '_' and '-'")
    if set(trimmed) == {"."}:
        raise ValueError("name must not consist only of dots")
    return trimmed


def _check_description(value: str) -> str:
    trimmed = value.strip()
    if not trimmed:
        raise ValueError("description is required")
    return trimmed


class SkillFrontmatter(BaseModel):
    """Validated frontmatter of a ``SKILL.md`` (SPEC §6; keys from the Agent Skills specification
    plus the common client extensions).

    Types are strict (``version: 1.0`` is not a string; ``user-invocable: "yes"`` is not a bool)
    and an explicit ``null`` for an optional key is an error. Unknown keys are kept as parsed
    (``model_extra``). Field names are snake_case; the YAML keys are their aliases
    (``allowed_tools`` is ``allowed-tools``). Manifests are validated by alias only, so a
    snake_case key such as ``user_invocable`` in a ``SKILL.md`` is an unknown key.

    Attributes:
        name: Trimmed, non-empty, ``^[A-Za-z0-9._-]+$``, not only dots.
        description: Trimmed, non-empty.
        version, license, compatibility, argument_hint: Optional strings, kept as written.
        allowed_tools, tools: Optional string or list of strings (see :func:`normalize_tools`).
        user_invocable, disable_model_invocation: Optional bools.
        metadata: Optional mapping with string keys.
    """

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True, frozen=True)

    name: Annotated[str, AfterValidator(_check_name)]
    description: Annotated[str, AfterValidator(_check_description)]
    version: str | None = None
    license: str | None = None
    compatibility: str | None = None
    argument_hint: str | None = Field(default=None, alias="argument-hint")
    allowed_tools: str | list[str] | None = Field(default=None, alias="allowed-tools")
    tools: str | list[str] | None = None
    user_invocable: bool | None = Field(default=None, alias="user-invocable")
    disable_model_invocation: bool | None = Field(default=None, alias="disable-model-invocation")
    metadata: dict[str, Any] | None = None

    @field_validator(
        "version",
        "license",
        "compatibility",
        "argument_hint",
        "allowed_tools",
        "tools",
        "user_invocable",
        "disable_model_invocation",
        "metadata",
        mode="before",
    )
    @classmethod
    def _not_null(cls, value: object) -> object:
        # Optional means "may be absent", not "may be null" (SPEC §6).
        if value is None:
            raise ValueError("must not be null")
        return value


def _first_key(exc: ValidationError) -> tuple[str, str]:
    """Return ``(key, message)`` of the first failing key in table order."""
    found: dict[str, str] = {}
    for err in exc.errors(include_url=False, include_input=False):
        loc = err.get("loc", ())
        key = str(loc[0]) if loc else ""
        found.setdefault(key, str(err.get("msg", "invalid value")))
    for key in FRONTMATTER_KEYS:
        if key in found:
            return key, found[key]
    key = next(iter(found), "")
    return key, found.get(key, "invalid frontmatter")


def validate_frontmatter(
    data: Mapping[str, Any], *, strict: bool
) -> tuple[SkillFrontmatter, list[tuple[str, str]]]:
    """Validate parsed frontmatter (SPEC §6).

    Args:
        data: The YAML mapping (string keys).
        strict: When True any failing key raises; when False a failing optional key is dropped
            from the model (the raw value stays in the caller's mapping) and reported.

    Returns:
        ``(model, dropped)`` where ``dropped`` lists ``(key, message)`` for each optional key that
        failed (always empty in strict mode), in table order.

    Raises:
        SkillError: ``invalid_skill`` with ``fields={"at": key}`` for a required-key failure, or
            for any failure in strict mode.
    """
    candidate = dict(data)
    dropped: list[tuple[str, str]] = []
    while True:
        try:
            # By alias only: ``user_invocable`` in a manifest is an unknown key, not the field.
            model = SkillFrontmatter.model_validate(candidate, by_alias=True, by_name=False)
            return model, dropped
        except ValidationError as exc:
            key, message = _first_key(exc)
            if strict or key not in OPTIONAL_KEYS:
                raise SkillError(
                    ErrorCode.INVALID_SKILL, f"invalid frontmatter '{key}': {message}", {"at": key}
                ) from None
            dropped.append((key, message))
            del candidate[key]


def normalize_tools(value: object) -> list[str]:
    """Normalise an ``allowed-tools``/``tools`` value to a list of tool patterns (SPEC §6).

    Args:
        value: ``None`` (gives ``[]``); a string, split on commas and on whitespace outside
            parentheses (``"Bash(git status:*) Read, Grep"`` gives
            ``["Bash(git status:*)", "Read", "Grep"]``); or a list of strings, each trimmed, blanks
            dropped, never split.

    Returns:
        A new list of non-empty strings.

    Raises:
        SkillError: ``invalid_input`` for any other type or a list item that is not a string.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return _split_tools(value)
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            if not isinstance(item, str):
                raise SkillError(
                    ErrorCode.INVALID_INPUT,
                    f"tool list items must be strings, got {type(item).__name__}",
                    {"value": type(item).__name__},
                )
            trimmed = item.strip()
            if trimmed:
                out.append(trimmed)
        return out
    raise SkillError(
        ErrorCode.INVALID_INPUT,
        f"tools must be a string or a list of strings, got {type(value).__name__}",
        {"value": type(value).__name__},
    )


def _split_tools(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        if depth == 0 and (ch == "," or ch.isspace()):
            if current:
                out.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        out.append("".join(current))
    return [item for item in (part.strip() for part in out) if item]
