"""The frontmatter schema and tool-list normalisation (SPEC §6). Pure: values in, values out.

A leaf of the pipeline: it imports nothing from the other stages but the errors. The pydantic model
:class:`SkillFrontmatter` lives in ``_frontmatter`` and is imported on the first validation (or the
first access to ``SkillFrontmatter``), so that ``import agent_skills`` does not pay for pydantic
(SPEC §18).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._errors import ErrorCode, SkillError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from ._frontmatter import SkillFrontmatter

__all__ = [
    "FRONTMATTER_KEYS",
    "OPTIONAL_KEYS",
    "SkillFrontmatter",
    "normalize_tools",
    "validate_frontmatter",
]

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


def __getattr__(name: str) -> Any:
    # ``_schema.SkillFrontmatter`` stays importable; the model (and pydantic) load on first use.
    if name == "SkillFrontmatter":
        from ._frontmatter import SkillFrontmatter

        return SkillFrontmatter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _message(err: Any) -> str:
    """A plain message for one pydantic error: our own text for our checks, no prefixes."""
    kind = err.get("type", "")
    if kind == "missing":
        return "required key is missing"
    if kind == "value_error":
        ctx = err.get("ctx") or {}
        if "error" in ctx:
            return str(ctx["error"])
    return str(err.get("msg", "invalid value"))


def _first_key(exc: ValidationError) -> tuple[str, str]:
    """Return ``(key, message)`` of the first failing key in table order."""
    found: dict[str, str] = {}
    for err in exc.errors(include_url=False, include_input=False):
        loc = err.get("loc", ())
        key = str(loc[0]) if loc else ""
        found.setdefault(key, _message(err))
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
    from pydantic import ValidationError

    from ._frontmatter import SkillFrontmatter

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


# Text whose parentheses are balanced and never nested, and the tokens of such text: runs of
# characters other than separators, where a parenthesised group may hold separators.
_FLAT_PARENS_RE = re.compile(r"[^()]*(?:\([^()]*\)[^()]*)*")
_TOOL_TOKEN_RE = re.compile(r"(?:[^,\s()]+|\([^()]*\))+")


def _split_tools(text: str) -> list[str]:
    if _FLAT_PARENS_RE.fullmatch(text):
        return _TOOL_TOKEN_RE.findall(text)
    return _split_tools_nested(text)


def _split_tools_nested(text: str) -> list[str]:
    """Character walk for nested or unbalanced parentheses (depth counted, SPEC §6)."""
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
