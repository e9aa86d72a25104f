"""Deterministic skill trees for the benchmarks (SPEC §18, §26): synthetic and realistic.

``generate(dest, n)`` writes the **synthetic** tree: ``n`` skill directories under
``dest/skills`` plus a sibling ``dest/outside`` directory that escaping symlinks point into.
``generate_realistic(dest, n, shapes)`` writes the **realistic** one: skill ``i`` takes the
shape of one real skill (``corpus_shape.py``: its frontmatter's YAML structure, key names,
styles and value lengths, its body size, and its bundled files' layout and sizes), with
generated text. In both, skill ``i`` depends only on ``i`` (and the generator version or the
shapes), so the tree of 100 skills is a prefix of the tree of 1 000.

Each synthetic skill has:

* a ``SKILL.md`` of 2-8 KB: frontmatter with ``name``, ``description``, ``license``, ``version``,
  ``allowed-tools`` (a string or a list), ``metadata`` (author, tags, category, ...) and sometimes
  ``compatibility``, ``user-invocable`` or ``argument-hint``; then a markdown body;
* 0-12 resources across ``scripts/``, ``references/``, ``assets/``, ``examples/`` and top-level
  files (``other``), one directory level deep;
* now and then a symlink: inside the skill (every 50th skill), escaping it (every 200th) or
  dangling (every 300th).

Run ``python benchmarks/skilltree.py N DEST [synthetic|realistic]`` to write a tree by hand.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

__all__ = [
    "GENERATOR_VERSION",
    "REALISTIC_VERSION",
    "TreeInfo",
    "cached_tree",
    "generate",
    "generate_realistic",
    "realistic_frontmatter",
]


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
    """What :func:`generate` or :func:`generate_realistic` wrote.

    Attributes:
        root: The skills root (``dest/skills``), the one to pass as a root.
        n: The number of skill directories.
        manifest_bytes: Total size of every ``SKILL.md``, in bytes.
        body_bytes: Total size of the bodies (after the closing fence), in bytes.
        resources: Number of regular resource files (symlinks not counted).
        symlinks: Number of symlinks written (inside, escaping and dangling).
        kind: ``"synthetic"`` or ``"realistic"``.
        fm_lines_median: Median number of frontmatter lines between the fences.
    """

    root: Path
    n: int
    manifest_bytes: int
    body_bytes: int
    resources: int
    symlinks: int
    kind: str = "synthetic"
    fm_lines_median: float = 0.0


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


def _write_tree(
    dest: Path, n: int, write: Callable[[Path, Path, int], tuple[int, int, int, int]]
) -> tuple[int, int, int, int]:
    root = dest / "skills"
    outside = dest / "outside"
    root.mkdir(parents=True)
    outside.mkdir()
    (outside / "shared.txt").write_text("outside every skill\n")
    totals: list[int] = [0, 0, 0, 0]
    for i in range(n):
        for k, v in enumerate(write(root, outside, i)):
            totals[k] += v
    return totals[0], totals[1], totals[2], totals[3]


def generate(dest: Path, n: int) -> TreeInfo:
    """Write the synthetic tree of ``n`` skills under ``dest`` (which must not exist or be empty).

    Args:
        dest: Directory to create; the skills root is ``dest/skills``.
        n: Number of skills.

    Returns:
        A :class:`TreeInfo` describing what was written.
    """
    totals = _write_tree(dest, n, _write_skill)
    info = TreeInfo(dest / "skills", n, *totals)
    (dest / "TREE").write_text(
        f"{GENERATOR_VERSION} {n} {info.manifest_bytes} {info.body_bytes} "
        f"{info.resources} {info.symlinks}\n"
    )
    return _with_fm_lines(info)


# --- the realistic tree --------------------------------------------------------------------------

#: Bump when the realistic output changes for the same shapes.
REALISTIC_VERSION = 1

#: Plain words that YAML 1.1 resolves as something other than a string.
_RESERVED = frozenset(("y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"))


def _filler() -> str:
    """A deterministic pool of markdown (no ``---`` line) that bodies and files are cut from."""
    rng = random.Random("filler")
    parts: list[str] = []
    size = 0
    section = 0
    while size < 300_000:
        section += 1
        block = [f"## {rng.choice(_VERBS).capitalize()} the {rng.choice(_WORDS)} ({section})", ""]
        roll = rng.random()
        if roll < 0.2:
            block.append("```bash")
            block.extend(
                f"{rng.choice(_VERBS)} --{rng.choice(_WORDS)} {rng.choice(_WORDS)}.txt"
                for _ in range(rng.randint(2, 6))
            )
            block.append("```")
        elif roll < 0.45:
            block.extend(f"- {_sentence(rng, 4, 12)}" for _ in range(rng.randint(3, 7)))
        else:
            block.append(_paragraph(rng, rng.randint(2, 5)))
        block.append("")
        text = "\n".join(block) + "\n"
        parts.append(text)
        size += len(text)
    return "".join(parts)


_FILLER = ""


def _cut(rng: random.Random, size: int) -> str:
    """``size`` characters (ASCII: bytes too) of the pool, from a place chosen by ``rng``."""
    global _FILLER
    if not _FILLER:
        _FILLER = _filler()
    pool = _FILLER
    start = rng.randrange(len(pool))
    out = pool[start : start + size]
    while len(out) < size:
        out += pool[: size - len(out)]
    return out


def _text(rng: random.Random, length: int) -> str:
    """Plain words of exactly ``length`` characters (at least 1), safe as a plain YAML scalar."""
    length = max(1, length)
    words: list[str] = []
    total = -1
    while total < length:
        word = rng.choice(_WORDS)
        words.append(word)
        total += len(word) + 1
    text = " ".join(words)[:length].rstrip()
    text = text + "x" * (length - len(text))
    if text.lower() in _RESERVED or text[0] in "-?:,[]{}#&*!|>'\"%@`":
        text = "x" + text[1:]
    return text


def _split_lines(text: str, lines: int) -> list[str]:
    """``text`` cut at spaces into about ``lines`` lines (never an empty one)."""
    if lines <= 1:
        return [text]
    width = max(1, len(text) // lines)
    out: list[str] = []
    rest = text
    while rest and len(out) < lines - 1:
        cut = rest.rfind(" ", 0, width + 1)
        if cut <= 0:
            cut = rest.find(" ")
            if cut <= 0:
                break
        out.append(rest[:cut])
        rest = rest[cut + 1 :]
    if rest:
        out.append(rest)
    return out or [text]


def _scalar(rng: random.Random, node: list[Any], indent: int, name: str | None) -> list[str]:
    """A scalar as the rest of the line it starts on, then its continuation lines.

    Returns:
        The first element completes the current line (after ``key:`` or ``-``, with its leading
        space when not empty); the others are whole lines.
    """
    _, style, tag, length, lines = node
    pad = " " * (indent + 2)
    if tag == "bool":
        return [" " + rng.choice(("true", "false"))]
    if tag == "int":
        return [" " + str(rng.randint(1, 9)) + "0" * max(0, min(length, 18) - 1)]
    if tag == "float":
        return [" 1." + "5" * max(1, length - 2)]
    if tag == "null":
        return [""]
    text = name if name is not None else _text(rng, length)
    if style in (">", "|"):
        return [" " + style, *(pad + line for line in _split_lines(text, lines))]
    quote = style if style in ('"', "'") else ""
    parts = _split_lines(text, lines)
    if len(parts) == 1:
        return [f" {quote}{text}{quote}"]
    return [f" {quote}{parts[0]}", *(pad + p for p in parts[1:-1]), f"{pad}{parts[-1]}{quote}"]


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


def _key(key: str) -> str:
    """A mapping key as written: plain when it is a simple name, else double-quoted."""
    return key if _PLAIN_KEY.match(key) and key.lower() not in _RESERVED else json.dumps(key)


def _flow(rng: random.Random, node: list[Any]) -> str:
    """A node written on one line in flow style."""
    if node[0] == "s":
        return _scalar(rng, node, 0, None)[0].strip() or '""'
    if node[0] == "q":
        return "[" + ", ".join(_flow(rng, item) for item in node[2]) + "]"
    return "{" + ", ".join(f"{_key(k)}: {_flow(rng, v)}" for k, v in node[2]) + "}"


def _block(rng: random.Random, node: list[Any], indent: int, name: str | None) -> list[str]:
    """A value after ``key:``: the rest of that line, then its lines (see :func:`_scalar`)."""
    if node[0] == "s":
        return _scalar(rng, node, indent, name)
    if node[1] or not node[2]:  # flow style, or an empty collection
        return [" " + _flow(rng, node)]
    pad = " " * (indent + 2)
    out = [""]
    if node[0] == "m":
        for key, value in node[2]:
            first, *rest = _block(rng, value, indent + 2, None)
            out.append(f"{pad}{_key(key)}:{first}")
            out.extend(rest)
        return out
    for item in node[2]:
        if item[0] == "m" and not item[1] and item[2]:
            lines = _block(rng, item, indent + 2, None)[1:]
            out.append(f"{pad}- {lines[0][indent + 4 :]}")
            out.extend(lines[1:])
        else:
            first, *rest = _block(rng, item, indent + 2, None)
            out.append(f"{pad}-{first}")
            out.extend(rest)
    return out


def realistic_frontmatter(shape: dict[str, Any], name: str, seed: str) -> str:
    """The frontmatter (fences included) of one skill in the shape of a real one.

    Args:
        shape: One record of ``corpus_shape.py``.
        name: The skill's name, written as the value of its top-level ``name``.
        seed: Makes the generated text deterministic.
    """
    rng = random.Random(seed)
    lines = ["---"]
    for key, value in shape["fm"][2]:
        first, *rest = _block(rng, value, 0, name if key == "name" else None)
        lines.append(f"{_key(key)}:{first}")
        lines.extend(rest)
    # Blank and comment lines of the real one, as blank lines.
    lines.extend("" for _ in range(shape["fm_lines"] + 1 - len(lines)))
    lines.append("---")
    return "\n".join(lines) + "\n"


def _write_realistic_skill(
    root: Path, shapes: list[dict[str, Any]], i: int
) -> tuple[int, int, int, int]:
    rng = random.Random(f"real-{REALISTIC_VERSION}-{i}")
    shape = shapes[rng.randrange(len(shapes))]
    name = skill_name(i)
    sdir = root / name
    sdir.mkdir()
    fm = realistic_frontmatter(shape, name, f"fm-{REALISTIC_VERSION}-{i}")
    body = f"# {name}\n\n" + _cut(rng, max(0, shape["body"] - len(name) - 4))
    data = (fm + body).encode()
    (sdir / "SKILL.md").write_bytes(data)
    made: set[str] = set()
    for j, (rel_dir, ext, size) in enumerate(shape["res"]):
        folder = sdir / rel_dir if rel_dir else sdir
        if rel_dir and rel_dir not in made:
            folder.mkdir(parents=True, exist_ok=True)
            made.add(rel_dir)
        stem = rng.choice(_WORDS)
        (folder / f"{stem}-{j}{ext}").write_text(_cut(rng, size))
    return len(data), len(body.strip().encode()), len(shape["res"]), 0


def generate_realistic(dest: Path, n: int, shapes: list[dict[str, Any]]) -> TreeInfo:
    """Write the realistic tree of ``n`` skills under ``dest`` (which must not exist or be empty).

    Args:
        dest: Directory to create; the skills root is ``dest/skills``.
        n: Number of skills.
        shapes: The records of ``corpus_shape.py`` that skills take their shape from.

    Returns:
        A :class:`TreeInfo` describing what was written.
    """
    totals = _write_tree(dest, n, lambda root, _out, i: _write_realistic_skill(root, shapes, i))
    info = TreeInfo(dest / "skills", n, *totals, kind="realistic")
    (dest / "TREE").write_text(
        f"{REALISTIC_VERSION} {n} {info.manifest_bytes} {info.body_bytes} "
        f"{info.resources} {info.symlinks}\n"
    )
    return _with_fm_lines(info)


def _with_fm_lines(info: TreeInfo) -> TreeInfo:
    """``info`` with the median number of frontmatter lines of its manifests."""
    counts = []
    for entry in os.scandir(info.root):
        with open(os.path.join(entry.path, "SKILL.md"), "rb") as fh:
            text = fh.read()
        counts.append(text[: text.find(b"\n---", 3) + 1].count(b"\n") - 1)
    return replace(info, fm_lines_median=statistics.median(counts) if counts else 0.0)


def cached_tree(
    n: int,
    base: Path | None = None,
    *,
    fresh: bool = False,
    kind: str = "synthetic",
    shapes: list[dict[str, Any]] | None = None,
) -> TreeInfo:
    """Return a tree of ``n`` skills under the temp dir, generating it when missing or stale.

    A tree is written beside its final place and renamed into it, so a process that finds it
    finds it whole.

    Args:
        n: Number of skills.
        base: Parent directory (default: ``<tempdir>/agent-skills-bench``).
        fresh: Regenerate even when a complete tree is cached.
        kind: ``"synthetic"`` or ``"realistic"``.
        shapes: For ``"realistic"``: the records of ``corpus_shape.py`` (default: its
            :func:`corpus_shape.load`).

    Returns:
        The :class:`TreeInfo`.
    """
    base = base or Path(tempfile.gettempdir()) / "agent-skills-bench"
    if kind == "realistic":
        import corpus_shape

        if shapes is None:
            shapes = corpus_shape.load()[0]
        dest = base / f"real{REALISTIC_VERSION}-{corpus_shape.digest(shapes)}-n{n}"
        version = REALISTIC_VERSION
    elif kind == "synthetic":
        dest = base / f"v{GENERATOR_VERSION}-n{n}"
        version = GENERATOR_VERSION
    else:
        raise ValueError(f"unknown tree kind {kind!r}")
    marker = dest / "TREE"
    if not fresh and marker.is_file():
        fields = marker.read_text().split()
        if len(fields) == 6 and int(fields[0]) == version and int(fields[1]) == n:
            mb, bb, res, links = (int(x) for x in fields[2:])
            return _with_fm_lines(TreeInfo(dest / "skills", n, mb, bb, res, links, kind=kind))
    part = dest.with_name(f"{dest.name}.part-{os.getpid()}")
    if part.exists():
        shutil.rmtree(part)
    if kind == "realistic":
        assert shapes is not None
        info = generate_realistic(part, n, shapes)
    else:
        info = generate(part, n)
    if dest.exists():
        shutil.rmtree(dest)
    os.rename(part, dest)
    return replace(info, root=dest / "skills")


def main(argv: list[str]) -> int:
    """``skilltree.py N DEST [realistic]``: write a tree of N skills under DEST."""
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] not in ("synthetic", "realistic")):
        print("usage: python benchmarks/skilltree.py N DEST [synthetic|realistic]", file=sys.stderr)
        return 2
    if len(argv) == 3 and argv[2] == "realistic":
        import corpus_shape

        info = generate_realistic(Path(argv[1]), int(argv[0]), corpus_shape.load()[0])
    else:
        info = generate(Path(argv[1]), int(argv[0]))
    print(info)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
