"""The pydantic model of the frontmatter, :class:`SkillFrontmatter` (SPEC §6), and its builders.

Loaded only when a caller asks for the model (``ParsedSkill.model``, :func:`validate_frontmatter`,
the name ``agent_skills.SkillFrontmatter``): discovery validates with the plain checks of
``_schema``, which keep the same rules and messages, so neither ``import agent_skills`` nor a first
discovery imports pydantic (SPEC §26). The rules themselves are ``_schema``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from ._schema import FieldNote, check_frontmatter_values, name_problem

__all__ = ["SkillFrontmatter", "build_model", "validate_frontmatter"]


def _check_name(value: str) -> str:
    problem = name_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value.strip()


def _check_description(value: str) -> str:
    trimmed = value.strip()
    if not trimmed:
        raise ValueError("description is required")
    return trimmed


class SkillFrontmatter(BaseModel):
    """Validated frontmatter of a ``SKILL.md`` (SPEC §6; keys from the Agent Skills specification
    plus the common client extensions).

    Types are strict (``version: 1.0`` is not a string; ``user-invocable: "yes"`` is not a bool:
    the lenient spellings of the flags are read by ``check_frontmatter_values`` before the model)
    and an explicit ``null`` for an optional key is an error. Unknown keys are kept as parsed
    (``model_extra``). Field names are snake_case; the YAML keys are their aliases
    (``allowed_tools`` is ``allowed-tools``). Manifests are validated by alias only, so a
    snake_case key such as ``user_invocable`` in a ``SKILL.md`` is an unknown key.

    Attributes:
        name: Trimmed and accepted by ``name_problem`` (SPEC §21.5: Unicode letters and digits
            that are not upper-case, ASCII upper-case, ``-``, ``.``, ``_``; not only dots; after
            NFKC). Kept as written, not normalised.
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


def validate_frontmatter(
    data: Mapping[str, Any], *, strict: bool, dir_name: str | None = None
) -> tuple[SkillFrontmatter, list[FieldNote]]:
    """Validate parsed frontmatter and build the pydantic model (SPEC §6, amended by §21.5-§21.7).

    ``_schema.check_frontmatter_values``, then :class:`SkillFrontmatter` built from its values
    (this imports pydantic). Discovery uses the former and builds the model only when asked
    (``ParsedSkill.model``).

    Args:
        data, strict, dir_name: As ``_schema.check_frontmatter_values``.

    Returns:
        ``(model, notes)``: the model (optional keys that failed are absent from it) and the notes
        of ``_schema.check_frontmatter_values``.

    Raises:
        SkillError: As ``_schema.check_frontmatter_values``.
    """
    values, notes = check_frontmatter_values(data, strict=strict, dir_name=dir_name)
    return build_model(values), notes


def build_model(values: Mapping[str, Any]) -> SkillFrontmatter:
    """Build :class:`SkillFrontmatter` from the ``values`` of
    ``_schema.check_frontmatter_values``."""
    # By alias only: ``user_invocable`` in a manifest is an unknown key, not the field.
    return SkillFrontmatter.model_validate(values, by_alias=True, by_name=False)
