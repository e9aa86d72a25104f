"""Deterministic skill trees for the benchmarks (SPEC §18).

``generate(dest, n)`` writes ``n`` skill directories under ``dest/skills`` plus a sibling
``dest/outside`` directory that escaping symlinks point into. Skill ``i`` depends only on ``i`` and
the generator version, so the tree of 100 skills is a prefix of the tree of 1 000.

Each skill has:

* a ``SKILL.md`` of 2-8 KB: frontmatter with ``name``, ``description``, ``license``, ``version``,
  ``allowed-tools`` (a string or a list), ``metadata`` (author, tags, category, ...) and sometimes
  ``compatibility``, ``user-invocable`` or ``argument-hint``; then a markdown body;
* 0-12 resources across ``scripts/``, ``references/``, ``assets/``, ``examples/`` and top-level
  files (``other``), one directory level deep;
* now and then a symlink: inside the skill (every 50th skill), escaping it (every 200th) or
  dangling (every 300th).

Run ``python benchmarks/skilltree.py N DEST`` to write a tree by hand.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GENERATOR_VERSION", "TreeInfo", "cached_tree", "generate"]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


#: Bump when the output changes, so cached trees are rebuilt.
GENERATOR_VERSION = 1

_WORDS = _words(
    """
    archive audit batch build bundle cache chart check client cluster commit config convert
    cursor data debug deploy diff docker document draft email export fetch filter format
    graph image index invoice issue json kernel label lint log merge metric migrate model
    monitor notebook parse patch pdf pipeline plan preview profile publish query queue rebase
    record refactor release render report request review route scan schema search secret
    server sheet slide snapshot spec sql stream summary table template test ticket trace
    translate upload validate vector video webhook workflow yaml
    """
)
_VERBS = _words(
    """
    analyse build check clean collect compare convert create debug deploy draft explain
    export extract fill format generate inspect list merge migrate monitor plan prepare
    profile publish read rename render repair review scan sign split summarise test trace
    update upload verify
    """
)
_TOOLS = (
    "Read",
    "Write",
    "Edit",
    "Grep",
    "Glob",
    "WebFetch",
    "Bash(git status:*)",
    "Bash(git diff:*)",
    "Bash(python3:*)",
    "Bash(npm run test:*)",
    "Bash(jq:*)",
    "Bash(pdftotext:*)",
)
_LICENSES = ("MIT", "Apache-2.0", "BSD-3-Clause", "Proprietary. LICENSE.txt has complete terms")
_KINDS = (
    ("scripts", (".py", ".sh", ".js")),
    ("references", (".md", ".txt")),
    ("assets", (".json", ".svg", ".csv", ".html")),
    ("examples", (".md", ".yaml", ".py")),
)


@dataclass(frozen=True)
class TreeInfo:
    """What :func:`generate` wrote.

    Attributes:
        root: The skills root (``dest/skills``), the one to pass as a root.
        n: The number of skill directories.
        manifest_bytes: Total size of every ``SKILL.md``, in bytes.
        body_bytes: Total size of the bodies (after the closing fence), in bytes.
        resources: Number of regular resource files (symlinks not counted).
        symlinks: Number of symlinks written (inside, escaping and dangling).
    """

    root: Path
    n: int
    manifest_bytes: int
    body_bytes: int
    resources: int
    symlinks: int


def _sentence(rng: random.Random, lo: int, hi: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(_sentence(rng, 6, 16) for _ in range(sentences))


def skill_name(i: int) -> str:
    """The directory and frontmatter name of skill ``i``."""
    rng = random.Random(f"name-{i}")
    return f"{rng.choice(_VERBS)}-{rng.choice(_WORDS)}-{i:05d}"


def _frontmatter(i: int, rng: random.Random, name: str) -> str:
    verb, noun = name.split("-")[:2]
    desc = (
        f"{verb.capitalize()} {noun} files and {rng.choice(_WORDS)} data. "
        + " ".join(_sentence(rng, 8, 18) for _ in range(rng.randint(1, 4)))
        + f" Use when the user asks to {verb} a {noun} or mentions {rng.choice(_WORDS)}."
    )
    lines = [
        "---",
        f"name: {name}",
        f"description: {desc}",
        f"license: {rng.choice(_LICENSES)}",
        f'version: "{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"',
    ]
    tools = rng.sample(_TOOLS, rng.randint(1, 6))
    if i % 3 == 0:
        lines.append("allowed-tools:")
        lines.extend(f'  - "{t}"' for t in tools)
    else:
        lines.append(f"allowed-tools: {' '.join(tools)}")
    if i % 4 == 0:
        lines.append(f"compatibility: Requires python3 and {rng.choice(_WORDS)} on PATH")
    if i % 5 == 0:
        lines.append("user-invocable: false" if i % 10 == 0 else "user-invocable: true")
    if i % 7 == 0:
        lines.append(f'argument-hint: "[{rng.choice(_WORDS)}] [--{rng.choice(_WORDS)}]"')
    lines.append("metadata:")
    lines.append(f"  author: team-{rng.choice(_WORDS)}")
    lines.append(f'  version: "{rng.randint(1, 9)}.{rng.randint(0, 9)}"')
    lines.append(f"  category: {rng.choice(_WORDS)}")
    lines.append(f"  tags: {', '.join(rng.sample(_WORDS, rng.randint(2, 6)))}")
    if i % 2 == 0:
        lines.append(f"  homepage: https://example.invalid/{name}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def _body(rng: random.Random, name: str, target: int, rels: list[str]) -> str:
    parts = [f"# {name}\n", _paragraph(rng, 3) + "\n"]
    section = 0
    while sum(len(p) + 1 for p in parts) < target:
        section += 1
        parts.append(f"## Step {section}: {rng.choice(_VERBS)} the {rng.choice(_WORDS)}\n")
        roll = rng.random()
        if roll < 0.25:
            parts.append(
                "```bash\n"
                + "\n".join(
                    f"{rng.choice(_VERBS)} --{rng.choice(_WORDS)} {rng.choice(_WORDS)}.txt"
                    for _ in range(rng.randint(2, 6))
                )
                + "\n```\n"
            )
        elif roll < 0.5:
            parts.append("\n".join(f"- {_sentence(rng, 4, 12)}" for _ in range(rng.randint(3, 7))))
            parts.append("")
        elif roll < 0.6 and rels:
            rel = rng.choice(rels)
            parts.append(f"See [{rel}]({rel}) for details. {_sentence(rng, 5, 10)}\n")
        else:
            parts.append(_paragraph(rng, rng.randint(2, 5)) + "\n")
    return "\n".join(parts)


def _resource_text(rng: random.Random, rel: str) -> str:
    size = rng.randint(80, 2500)
    out: list[str] = []
    while sum(len(s) + 1 for s in out) < size:
        out.append(_sentence(rng, 5, 14))
    return f"{rel}\n" + "\n".join(out) + "\n"


def _write_skill(root: Path, outside: Path, i: int) -> tuple[int, int, int, int]:
    rng = random.Random(f"skill-{GENERATOR_VERSION}-{i}")
    name = skill_name(i)
    sdir = root / name
    sdir.mkdir()
    rels: list[str] = []
    for j in range(rng.randint(0, 12)):
        kind, exts = rng.choice(_KINDS) if rng.random() < 0.9 else ("", (".txt",))
        stem = f"{rng.choice(_WORDS)}-{j}{rng.choice(exts)}"
        rels.append(f"{kind}/{stem}" if kind else stem.upper())
    fm = _frontmatter(i, rng, name)
    body = _body(rng, name, rng.randint(2048, 8192) - len(fm) - 2, rels)
    manifest = f"{fm}\n{body}"
    data = manifest.encode()
    (sdir / "SKILL.md").write_bytes(data)
    for rel in rels:
        path = sdir / rel
        path.parent.mkdir(exist_ok=True)
        path.write_text(_resource_text(rng, rel))
    links = 0
    if i % 50 == 7:  # a link to a file inside the skill
        (sdir / "references").mkdir(exist_ok=True)
        (sdir / "references" / "guide.md").write_text(_resource_text(rng, "guide"))
        rels.append("references/guide.md")
        os.symlink("guide.md", sdir / "references" / "latest.md")
        links += 1
    if i % 200 == 13:  # a link escaping the skill
        (sdir / "assets").mkdir(exist_ok=True)
        os.symlink(os.path.relpath(outside / "shared.txt", sdir / "assets"), sdir / "assets" / "x")
        links += 1
    if i % 300 == 17:  # a dangling link
        (sdir / "scripts").mkdir(exist_ok=True)
        os.symlink("does-not-exist.sh", sdir / "scripts" / "gone.sh")
        links += 1
    return len(data), len(body.strip().encode()), len(rels), links


def generate(dest: Path, n: int) -> TreeInfo:
    """Write a tree of ``n`` skills under ``dest`` (which must not exist or be empty).

    Args:
        dest: Directory to create; the skills root is ``dest/skills``.
        n: Number of skills.

    Returns:
        A :class:`TreeInfo` describing what was written.
    """
    root = dest / "skills"
    outside = dest / "outside"
    root.mkdir(parents=True)
    outside.mkdir()
    (outside / "shared.txt").write_text("outside every skill\n")
    totals: list[int] = [0, 0, 0, 0]
    for i in range(n):
        for k, v in enumerate(_write_skill(root, outside, i)):
            totals[k] += v
    info = TreeInfo(root, n, *totals)
    (dest / "TREE").write_text(
        f"{GENERATOR_VERSION} {n} {info.manifest_bytes} {info.body_bytes} "
        f"{info.resources} {info.symlinks}\n"
    )
    return info


def cached_tree(n: int, base: Path | None = None, *, fresh: bool = False) -> TreeInfo:
    """Return the tree of ``n`` skills under the temp dir, generating it when missing or stale.

    Args:
        n: Number of skills.
        base: Parent directory (default: ``<tempdir>/agent-skills-bench``).
        fresh: Regenerate even when a complete tree is cached.

    Returns:
        The :class:`TreeInfo`.
    """
    base = base or Path(tempfile.gettempdir()) / "agent-skills-bench"
    dest = base / f"v{GENERATOR_VERSION}-n{n}"
    marker = dest / "TREE"
    if not fresh and marker.is_file():
        fields = marker.read_text().split()
        if len(fields) == 6 and int(fields[0]) == GENERATOR_VERSION and int(fields[1]) == n:
            nums = [int(x) for x in fields[2:]]
            return TreeInfo(dest / "skills", n, *nums)
    if dest.exists():
        shutil.rmtree(dest)
    return generate(dest, n)


def main(argv: list[str]) -> int:
    """``skilltree.py N DEST``: write a tree of N skills under DEST."""
    if len(argv) != 2:
        print("usage: python benchmarks/skilltree.py N DEST", file=sys.stderr)
        return 2
    info = generate(Path(argv[1]), int(argv[0]))
    print(info)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
