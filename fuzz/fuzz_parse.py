"""Coverage-guided fuzzing of ``parse_skill`` with atheris (run by hand, not in CI).

The property is the one of ``tests/test_fuzz_manifest.py``: whatever the bytes, ``parse_skill``
returns a ``ParsedSkill`` or raises ``SkillError``; anything else is a crash that atheris reports
with the input that caused it. Seeds come from the shared corpus's manifests when present.

Usage (``pip install atheris`` into the venv first)::

    .venv/bin/python fuzz/fuzz_parse.py -atheris_runs=200000
    .venv/bin/python fuzz/fuzz_parse.py fuzz/seeds -max_total_time=600

Extra arguments go to libFuzzer (``-max_len``, ``-jobs``, a seed directory, ...).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from agent_skills import SkillError, parse_skill

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def one_input(data: bytes) -> None:
    """Parse ``data`` leniently and strictly; only ``SkillError`` may escape."""
    for strict in (False, True):
        try:
            parsed = parse_skill(data, strict=strict)
        except SkillError:
            continue
        if not isinstance(parsed.frontmatter, dict) or not isinstance(parsed.body, str):
            raise AssertionError("parse_skill returned a malformed ParsedSkill")


def _seed_dir() -> str | None:
    """A temporary directory of corpus manifests to start from, or None without a corpus."""
    manifests = sorted(CORPUS.rglob("SKILL.md")) if CORPUS.is_dir() else []
    if not manifests:
        return None
    seeds = Path(tempfile.mkdtemp(prefix="skill-seeds-"))
    for i, path in enumerate(manifests):
        (seeds / f"{i:04d}.md").write_bytes(path.read_bytes())
    return str(seeds)


def main() -> None:
    argv = list(sys.argv)
    if not any(not a.startswith("-") for a in argv[1:]):
        seeds = _seed_dir()
        if seeds is not None:
            argv.append(seeds)
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
