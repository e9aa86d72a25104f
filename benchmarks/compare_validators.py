"""Compare ``agent_skills.validate`` with the reference validator ``skills-ref`` on a corpus.

Every directory holding a ``SKILL.md`` (any letter case) under the corpus is validated by both.
A skill is *valid* for us when :func:`agent_skills.validate.validate_skill` finds no error
(warnings allowed) and for ``skills-ref`` when ``skills_ref.validator.validate`` returns no
message. The script prints the agreement count and every class of disagreement: the set of our
error codes against the set of the reference's message kinds, with the skills in each class.

Usage::

    .venv/bin/python benchmarks/compare_validators.py [CORPUS] [--json OUT.json]

``CORPUS`` defaults to ``../shared/corpus`` next to the repository. Needs ``skills-ref`` (the
``dev`` extra installs it); it is never a runtime dependency.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from agent_skills.validate import Severity, validate_skill

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

# The reference's messages, reduced to a stable kind (its values are quoted inside them).
_REFERENCE_KINDS = [
    (r"^Unexpected fields in frontmatter", "unexpected_fields"),
    (r"^Invalid YAML in frontmatter", "yaml_error"),
    (r"^SKILL\.md must start with YAML frontmatter", "frontmatter_missing"),
    (r"^SKILL\.md frontmatter not properly closed", "frontmatter_unterminated"),
    (r"^SKILL\.md frontmatter must be a YAML mapping", "frontmatter_not_mapping"),
    (r"^Missing required field in frontmatter: (\w+)", "{0}_missing"),
    (r"^Field '(\w+)' must be a non-empty string", "{0}_empty"),
    (r"^Skill name '.*' exceeds", "name_too_long"),
    (r"^Skill name '.*' must be lowercase", "name_uppercase"),
    (r"^Skill name cannot start or end with a hyphen", "name_hyphen_edge"),
    (r"^Skill name cannot contain consecutive hyphens", "name_double_hyphen"),
    (r"^Skill name '.*' contains invalid characters", "name_invalid_chars"),
    (r"^Directory name '.*' must match skill name", "name_dir_mismatch"),
    (r"^Description exceeds", "description_too_long"),
    (r"^Field 'compatibility' must be a string", "compatibility_type"),
    (r"^Compatibility exceeds", "compatibility_too_long"),
    (r"^Missing required file", "manifest_missing"),
]


def reference_kind(message: str) -> str:
    """Reduce one ``skills-ref`` message to a kind named like our codes where they match."""
    for pattern, kind in _REFERENCE_KINDS:
        m = re.match(pattern, message, re.DOTALL)
        if m:
            return kind.format(*m.groups())
    return "other: " + message.splitlines()[0][:80]


def find_skills(corpus: Path) -> list[Path]:
    """Every directory under ``corpus`` holding a ``skill.md`` in any letter case, sorted."""
    found = []
    for dirpath, _dirnames, filenames in os.walk(corpus):
        if any(name.lower() == "skill.md" for name in filenames):
            found.append(Path(dirpath))
    return sorted(found)


def omitted_files(corpus: Path) -> set[str]:
    """Corpus-relative paths that ``MANIFEST.tsv`` lists as omitted (code, binaries)."""
    manifest = corpus / "MANIFEST.tsv"
    if not manifest.is_file():
        return set()
    out = set()
    for line in manifest.read_text(encoding="utf-8").splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) >= 4 and cols[3] == "omitted":
            out.add(cols[0].replace("/", "__", 1) + "/" + cols[2])
    return out


def run_reference(skill_dir: Path) -> list[str]:
    """The reference's messages; an exception it lets escape is reported as one message."""
    from skills_ref.validator import validate

    try:
        return [str(m) for m in validate(skill_dir)]
    except Exception as exc:  # the reference raises for some inputs
        return [f"raised {type(exc).__name__}: {exc}"]


def compare(corpus: Path) -> dict[str, Any]:
    """Validate every skill with both validators and classify the outcomes."""
    rows = []
    omitted = omitted_files(corpus)
    broken = broken_omitted = 0
    for skill_dir in find_skills(corpus):
        ours = validate_skill(skill_dir)
        for p in ours:
            if p.code == "broken_reference":
                broken += 1
                target = p.message.split("'")[1]
                rel = os.path.normpath(skill_dir.relative_to(corpus) / target)
                broken_omitted += rel in omitted
        theirs = run_reference(skill_dir)
        our_errors = sorted({p.code for p in ours if p.severity == Severity.ERROR})
        our_warnings = sorted({p.code for p in ours if p.severity == Severity.WARNING})
        their_kinds = sorted({reference_kind(m) for m in theirs})
        rows.append(
            {
                "path": str(skill_dir.relative_to(corpus)),
                "ours_valid": not our_errors,
                "reference_valid": not theirs,
                "our_errors": our_errors,
                "our_warnings": our_warnings,
                "reference": their_kinds,
                "reference_messages": theirs,
            }
        )
    agree = [r for r in rows if r["ours_valid"] == r["reference_valid"]]
    classes: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r["ours_valid"] == r["reference_valid"]:
            continue
        side = "stricter" if r["reference_valid"] else "more lenient"
        key = f"{side}: ours={r['our_errors'] or '[]'} reference={r['reference'] or '[]'}"
        classes[key].append(r["path"])
    both_invalid_reasons: Counter[str] = Counter()
    for r in agree:
        if not r["ours_valid"] and set(r["our_errors"]) != set(r["reference"]):
            both_invalid_reasons[f"ours={r['our_errors']} reference={r['reference']}"] += 1
    warnings: Counter[str] = Counter(code for r in rows for code in r["our_warnings"])
    return {
        "skills": len(rows),
        "agree": len(agree),
        "both_valid": sum(r["ours_valid"] and r["reference_valid"] for r in rows),
        "both_invalid": sum(not r["ours_valid"] and not r["reference_valid"] for r in rows),
        "disagreements": {k: sorted(v) for k, v in sorted(classes.items())},
        "both_invalid_other_reasons": dict(both_invalid_reasons.most_common()),
        "our_warnings": dict(warnings.most_common()),
        "broken_references": broken,
        "broken_references_to_omitted_files": broken_omitted,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", type=Path, help="write every row and class to this file")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    result = compare(args.corpus)
    n = result["skills"]
    print(f"skills: {n}")
    print(f"agree:  {result['agree']} ({result['agree'] / max(n, 1):.1%})")
    print(f"  both valid:   {result['both_valid']}")
    print(f"  both invalid: {result['both_invalid']}")
    print(f"disagree: {n - result['agree']}")
    for key, paths in result["disagreements"].items():
        print(f"\n[{len(paths)}] {key}")
        for path in paths:
            print(f"    {path}")
    if result["both_invalid_other_reasons"]:
        print("\nboth invalid, different reasons:")
        for key, count in result["both_invalid_other_reasons"].items():
            print(f"  [{count}] {key}")
    print("\nour warnings (skills):")
    for code, count in result["our_warnings"].items():
        print(f"  {code}: {count}")
    print(
        f"\nbroken_reference problems: {result['broken_references']}, of which "
        f"{result['broken_references_to_omitted_files']} name files the corpus omitted"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
