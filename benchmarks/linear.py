"""Linear time on hostile shapes of text (SPEC §20.7, measured as §26 asks).

For each shape, a manifest of about 64 KiB and one of about 1 MiB are parsed (and validated) and
the time per byte of the large one is compared with the small one's: linear code keeps the ratio
near 1, a quadratic step shows as a ratio near 16 (the target is at most 2). A 1 MiB manifest
whose frontmatter is small, the rest body, must parse in under 50 ms.

Shapes: many keys; a long single value; lines the lenient repair rewrites (unquoted ``: ``);
comment lines of dashes (fence search); a tool list of nested parentheses (``normalize_tools``);
deep indentation; the author-facing ``check_frontmatter`` over many metadata keys;
``validate_skill`` over many metadata values of the wrong type (each located by its line), a
line of links, a line of escaped brackets and a reference on every line; and the bounded JSON
reader behind the lock and the trust store over escaped quotes, open strings and brackets
(SPEC §20.7, §30.6).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_skills import SkillError, normalize_tools, parse_skill
from agent_skills._jsonfile import read_json_file
from agent_skills.validate import check_frontmatter, validate_skill

SMALL = 64 * 1024
LARGE = 1024 * 1024
HEAD = "---\nname: shape\ndescription: a hostile shape\n"


def _fill(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def _many_keys(size: int) -> str:
    lines, n, i = [], 0, 0
    while n < size:
        line = f"key{i}: value number {i}\n"
        lines.append(line)
        n += len(line)
        i += 1
    return HEAD + "".join(lines) + "---\nbody\n"


def _repair(size: int) -> str:
    lines, n, i = [], 0, 0
    while n < size:
        line = f"note{i}: see: this\n"  # a plain value holding ': ' is repaired by quoting
        lines.append(line)
        n += len(line)
        i += 1
    return HEAD + "".join(lines) + "---\nbody\n"


SHAPES: dict[str, Callable[[int], str]] = {
    "many keys": _many_keys,
    "one long value": lambda size: (
        "---\nname: shape\ndescription: " + _fill("word ", size) + "\n---\nbody\n"
    ),
    "lines the repair rewrites": _repair,
    "comment lines of dashes": lambda size: HEAD + _fill("# ---- -- ---x\n", size) + "---\nbody\n",
    "deep indentation": lambda size: (
        HEAD + "metadata:\n" + _fill("  k: " + " " * 200 + "v\n", size) + "---\nbody\n"
    ),
    "body after a small frontmatter": lambda size: HEAD + "---\n" + _fill("line of body\n", size),
}


# validate_skill reads a skill directory; its shapes stay under the YAML node budget and the
# 1 MiB manifest cap, so they are measured at 16 KiB against 256 KiB.
VALIDATE_SHAPES: dict[str, Callable[[int], str]] = {
    "metadata values of the wrong type": lambda size: (
        HEAD + "metadata:\n" + "".join(f"  k{i}: {i}\n" for i in range(size // 12)) + "---\nb\n"
    ),
    "a line of links": lambda size: HEAD + "---\n" + _fill("[x](references/a.md) ", size) + "\n",
    "a line of escaped brackets": lambda size: HEAD + "---\n" + _fill("[\\", size) + "\n",
    "a missing reference on every line": lambda size: (
        HEAD + "---\n" + _fill("see [x](references/missing.md)\n", size)
    ),
}
# The JSON reader (trust store, lock): files of about 64 KiB and 1 MiB.
JSON_SHAPES: dict[str, Callable[[int], str]] = {
    "escaped quotes": lambda size: _fill('\\"', size),
    "an open string of escapes": lambda size: '"' + _fill('\\"', size),
    "open strings": lambda size: _fill('"\\', size),
    "brackets": lambda size: _fill("[", size),
}


def _validate_case(make: Callable[[int], str], work: Path) -> Callable[[int], Any]:
    """A maker of skill directories holding ``make(size)`` as their manifest."""

    def build(size: int) -> Path:
        skill = Path(tempfile.mkdtemp(dir=work)) / "shape"
        skill.mkdir()
        (skill / "SKILL.md").write_text(make(size))
        return skill

    return build


def _json_case(make: Callable[[int], str], work: Path) -> Callable[[int], Any]:
    def build(size: int) -> str:
        path = Path(tempfile.mkdtemp(dir=work)) / "doc.json"
        path.write_text(make(size))
        return str(path)

    return build


def _outcome(fn: Callable[[Any], object]) -> Callable[[Any], object]:
    """``fn`` returning its error instead of raising it: a bounded refusal is an outcome too."""

    def run(value: Any) -> object:
        try:
            return fn(value)
        except SkillError as err:
            return err

    return run


def _pair(
    make: Callable[[int], Any],
    run: Callable[[Any], object],
    repeats: int,
    sizes: tuple[int, int] = (SMALL, LARGE),
) -> tuple[float, float, int, int]:
    """Medians of the small input (four runs per repeat) and the large one, interleaved repeat
    by repeat so that both meet the same state of the machine and of the allocator."""
    small, large = make(sizes[0]), make(sizes[1])
    run(small)
    run(large)
    smalls: list[float] = []
    larges: list[float] = []
    for _ in range(repeats):
        for _ in range(4):
            start = time.perf_counter()
            run(small)
            smalls.append(time.perf_counter() - start)
        start = time.perf_counter()
        run(large)
        larges.append(time.perf_counter() - start)
    t_small, t_large = statistics.median(smalls), statistics.median(larges)
    if isinstance(small, Path):  # a skill directory: the size of its manifest
        return t_small, t_large, *(p.joinpath("SKILL.md").stat().st_size for p in (small, large))
    if isinstance(small, str) and small.endswith(".json"):  # a file: its size
        return t_small, t_large, *(Path(p).stat().st_size for p in (small, large))
    if isinstance(small, str):
        return t_small, t_large, len(small), len(large)
    return t_small, t_large, *sizes  # a parsed value: the size of text it stands for


def measure(repeats: int = 3) -> list[dict[str, Any]]:
    """One result per shape: ``{shape, small, large, small_bytes, large_bytes, ratio}``."""
    out = []
    cases: list[tuple[str, Callable[[int], Any], Callable[[Any], object]]] = [
        (f"parse: {name}", make, _outcome(parse_skill)) for name, make in SHAPES.items()
    ]
    cases.append(
        (
            "normalize_tools: nested parentheses",
            lambda size: _fill("Bash(git (log) x) Read, ", size),
            normalize_tools,
        )
    )
    cases.append(
        (
            "normalize_tools: unbalanced parentheses",
            lambda size: _fill("((Read ", size),
            normalize_tools,
        )
    )
    cases.append(
        (
            "check_frontmatter: many metadata keys",
            lambda size: {
                "name": "shape",
                "description": "d",
                "metadata": {f"k{i}": f"value {i}" for i in range(size // 16)},
            },
            check_frontmatter,
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sized: list[tuple[str, Callable[[int], Any], Callable[[Any], object], tuple[int, int]]]
        sized = [(label, make, run, (SMALL, LARGE)) for label, make, run in cases]
        sized += [
            (f"validate: {name}", _validate_case(make, work), validate_skill, (16_384, 262_144))
            for name, make in VALIDATE_SHAPES.items()
        ]
        sized += [
            (
                f"json reader: {name}",
                _json_case(make, work),
                _outcome(lambda p: read_json_file(p, max_bytes=1 << 26, what="lock")),
                (SMALL, LARGE),
            )
            for name, make in JSON_SHAPES.items()
        ]
        return _rows(sized, repeats, out)


def _rows(
    cases: list[tuple[str, Callable[[int], Any], Callable[[Any], object], tuple[int, int]]],
    repeats: int,
    out: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    for label, make, run, sizes in cases:
        t_small, t_large, n_small, n_large = _pair(make, run, repeats, sizes)
        ratio = (t_large / n_large) / (t_small / n_small)
        out.append(
            {
                "shape": label,
                "small": t_small,
                "large": t_large,
                "small_bytes": n_small,
                "large_bytes": n_large,
                "ratio": ratio,
            }
        )
    return out


if __name__ == "__main__":
    for row in measure():
        print(
            f"{row['shape']:45} {row['small'] * 1e3:8.2f} ms {row['large'] * 1e3:9.2f} ms "
            f"x{row['ratio']:.2f}"
        )
