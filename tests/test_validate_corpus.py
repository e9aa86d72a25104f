"""Pinned verdicts of validate_skill on real skills, one sample per class of docs/validation.md.

Each class is a way in which our validator and the reference validator (skills-ref) agree or
disagree on the shared corpus; ``benchmarks/compare_validators.py`` recomputes them all. The test
is skipped when the corpus is absent; the reference's verdicts are checked only when
``skills_ref`` is installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_skills.validate import Severity, validate_skill

# The real corpus, whole.
pytestmark = [pytest.mark.slow]

# (skill path in the corpus, our error codes, our warning codes, reference finds it valid)
SAMPLES = [
    # Both valid.
    ("anthropics__skills/skills/mcp-builder", [], [], True),
    # Both invalid for the same reason.
    (
        "vercel-labs__agent-skills/skills/composition-patterns",
        ["name_dir_mismatch"],
        [],
        False,
    ),
    (
        "google-labs-code__stitch-skills/plugins/stitch-design/skills/extract-design-md",
        ["name_invalid_chars", "name_dir_mismatch"],
        ["allowed_tools_list"],
        False,
    ),
    ("anthropics__skills/skills/claude-api", ["description_too_long"], ["body_too_long"], False),
    ("BuilderIO__skills/skills/efficient-frontier", ["yaml_error"], [], False),
    # Both invalid, different reasons: the reference stops at flow-style YAML.
    (
        "shawnpang__startup-founder-skills/skills/accelerator-application",
        ["description_missing"],
        ["manifest_case", "unknown_key"],
        False,
    ),
    # We are more lenient: unknown top-level keys are warnings, not errors (SPEC §15).
    ("getsentry__skills/skills/create-branch", [], ["unknown_key"], False),
    # We are more lenient: a byte order mark is a warning.
    (
        "microsoft__agent-framework/dotnet/.github/skills/verify-samples-tool",
        [],
        ["manifest_bom"],
        False,
    ),
    # The reference is wrong: flow sequences are valid YAML.
    (
        "trailofbits__skills/plugins/firebase-apk-scanner/skills/firebase-apk-scanner",
        [],
        ["unknown_key"],
        False,
    ),
    # We are stricter: metadata values must be strings; the reference coerces them.
    (
        "github__awesome-copilot/skills/nano-banana-pro-openrouter",
        ["metadata_value_type"],
        ["broken_reference"],
        True,
    ),
]


def _ordered_unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


@pytest.mark.parametrize(("rel", "errors", "warnings", "reference_valid"), SAMPLES)
def test_pinned_verdict(
    corpus: Path, rel: str, errors: list[str], warnings: list[str], reference_valid: bool
) -> None:
    skill_dir = corpus / rel
    problems = validate_skill(skill_dir)
    assert _ordered_unique([p.code for p in problems if p.severity == Severity.ERROR]) == errors
    assert _ordered_unique([p.code for p in problems if p.severity == Severity.WARNING]) == warnings


@pytest.mark.parametrize(("rel", "errors", "warnings", "reference_valid"), SAMPLES)
def test_reference_verdict(
    corpus: Path, rel: str, errors: list[str], warnings: list[str], reference_valid: bool
) -> None:
    validator = pytest.importorskip("skills_ref.validator")
    assert (validator.validate(corpus / rel) == []) is reference_valid
