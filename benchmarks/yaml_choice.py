"""Which YAML loader for frontmatter: speed and YAML 1.2 semantics (SPEC §5, §18).

Usage::

    python benchmarks/yaml_choice.py            # corpus + 500 synthetic frontmatters
    python benchmarks/yaml_choice.py --quick    # fewer repeats

Inputs: the frontmatter of every ``SKILL.md`` under ``../shared/corpus`` (split with the library's
own fence rules, so every loader sees exactly the same YAML text) and deterministic synthetic
frontmatters of 2-8 KB (nested ``metadata``, block scalars, lists, quoted strings).

Loaders timed (median of several repeats, whole input set per repeat):

* ``agent_skills`` : ``agent_skills._manifest.load_frontmatter_yaml`` (libyaml parser + our
  YAML 1.2 core resolver/constructor, duplicate-key check, alias budget);
* ``pyyaml-c``     : ``yaml.load(text, Loader=yaml.CSafeLoader)``, the floor of SPEC §18;
* ``ruamel-c``     : ``ruamel.yaml.YAML(typ="safe", pure=False).load`` (YAML 1.2 by default),
  when ``ruamel.yaml`` is installed (it is not a dependency of the project).

Semantics checked for each loader: ``yes``/``off`` stay strings, ``2024-01-01`` stays a string,
``017`` is 17 (1.2) not 15 (1.1), duplicate keys are rejected; plus how many corpus frontmatters
each fails to load and how many load to a different value than ours. Ratios are against the floor
measured in the same run. Nothing here is asserted: it prints a table.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from agent_skills._manifest import _decode, load_frontmatter_yaml, split_frontmatter

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"

Loader = Callable[[str], Any]


def _loaders() -> dict[str, Loader]:
    loaders: dict[str, Loader] = {
        "agent_skills": load_frontmatter_yaml,
        "pyyaml-c": lambda text: yaml.load(text, Loader=yaml.CSafeLoader),
    }
    try:
        from ruamel.yaml import YAML
    except ImportError:  # pragma: no cover - optional comparison
        print("ruamel.yaml not installed: skipping it", file=sys.stderr)
    else:
        ruamel = YAML(typ="safe", pure=False)
        loaders["ruamel-c"] = ruamel.load
    return loaders


def corpus_frontmatters() -> list[str]:
    """The YAML text of every ``SKILL.md`` (any case) in the corpus that has a closed fence."""
    out: list[str] = []
    for path in sorted(CORPUS.rglob("*")):
        if path.name.lower() != "skill.md" or not path.is_file():
            continue
        text, _ = _decode(path.read_bytes())
        try:
            yaml_text, _body, _line = split_frontmatter(text)
        except Exception:
            continue
        if yaml_text:
            out.append(yaml_text)
    return out


_WORDS = [
    "skill",
    "agent",
    "review",
    "deploy",
    "format",
    "parse",
    "schema",
    "token",
    "context",
    "buffer",
    "release",
    "notes",
    "python",
    "rust",
    "terraform",
    "module",
    "secure",
    "audit",
    "graph",
    "index",
    "cache",
    "render",
    "stream",
    "batch",
]


def _sentence(rng: random.Random, lo: int = 6, hi: int = 18) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))).capitalize() + "."


def synthetic_frontmatter(i: int, target: int) -> str:
    """A realistic frontmatter of about ``target`` bytes (2-8 KB)."""
    rng = random.Random(i)
    lines = [
        f"name: skill-{i:05d}",
        f"description: {_sentence(rng, 15, 40)}",
        "license: Apache-2.0",
        f'version: "1.{i % 10}.0"',
        "allowed-tools: Bash(git status:*) Read Grep",
        "user-invocable: true",
        "metadata:",
        f"  owner: team-{i % 7}",
        "  tags: [" + ", ".join(rng.sample(_WORDS, 5)) + "]",
        "  notes: |",
    ]
    k = 0
    while sum(len(x) + 1 for x in lines) < target:
        k += 1
        choice = k % 4
        if choice == 0:
            lines.append(f"    {_sentence(rng)}")
        elif choice == 1:
            lines.append(f"  key_{k}: '{_sentence(rng, 3, 8)}'")
            lines.append("  notes_" + str(k) + ": >-")
        elif choice == 2:
            lines.append(f"    {_sentence(rng)}")
        else:
            lines.append(f"  list_{k}:")
            lines.extend(f"    - {rng.choice(_WORDS)}-{j}" for j in range(4))
            lines.append(f"  notes_{k}b: |")
    lines.append(f"  end: {_sentence(rng, 2, 4)}")
    return "\n".join(lines) + "\n"


def synthetic_set(n: int) -> list[str]:
    rng = random.Random(42)
    return [synthetic_frontmatter(i, rng.randint(2048, 8192)) for i in range(n)]


def _failures(loader: Loader, texts: list[str]) -> int:
    """How many of ``texts`` the loader rejects."""
    failures = 0
    for text in texts:
        try:
            loader(text)
        except Exception:
            failures += 1
    return failures


def _one_pass(loader: Loader, texts: list[str]) -> float:
    start = time.perf_counter()
    for text in texts:
        with contextlib.suppress(Exception):
            loader(text)
    return time.perf_counter() - start


def _time_all(loaders: dict[str, Loader], texts: list[str], repeats: int) -> dict[str, float]:
    """Median seconds per pass for each loader; passes are interleaved so load on the machine
    hits every loader alike."""
    samples: dict[str, list[float]] = {name: [] for name in loaders}
    for _ in range(repeats):
        for name, loader in loaders.items():
            samples[name].append(_one_pass(loader, texts))
    return {name: statistics.median(values) for name, values in samples.items()}


def _differs(loader: Loader, texts: list[str]) -> int:
    """How many texts load to a different value than our loader (both must succeed)."""
    count = 0
    for text in texts:
        try:
            ours = load_frontmatter_yaml(text)
            theirs = loader(text)
        except Exception:
            continue
        if ours != theirs:
            count += 1
    return count


SEMANTICS: list[tuple[str, str, Callable[[Any], bool]]] = [
    ("yes/off strings", "a: yes\nb: off\n", lambda v: v == {"a": "yes", "b": "off"}),
    ("date string", "d: 2024-01-01\n", lambda v: v == {"d": "2024-01-01"}),
    ("017 is 17", "n: 017\n", lambda v: v == {"n": 17}),
    ("<< plain key", "<<: {a: 1}\n", lambda v: v == {"<<": {"a": 1}}),
]


def semantics(loader: Loader) -> dict[str, str]:
    out: dict[str, str] = {}
    for label, text, ok in SEMANTICS:
        try:
            value = loader(text)
        except Exception as exc:
            out[label] = f"error {type(exc).__name__}"
            continue
        out[label] = "ok" if ok(value) else f"NO ({value!r})"
    try:
        value = loader("k: 1\nk: 2\n")
    except Exception:
        out["duplicate keys rejected"] = "ok"
    else:
        out["duplicate keys rejected"] = f"NO ({value!r})"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and inputs")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 7
    loaders = _loaders()
    sets = {
        "corpus": corpus_frontmatters(),
        "synthetic 2-8 KB": synthetic_set(100 if args.quick else 500),
    }
    for set_name, texts in sets.items():
        size = sum(len(t.encode()) for t in texts)
        print(f"\n## {set_name}: {len(texts)} frontmatters, {size / 1024:.0f} KiB")
        timings = _time_all(loaders, texts, repeats)
        floor = timings["pyyaml-c"]
        print(
            f"{'loader':<14} {'ms/pass':>9} {'us/doc':>8} {'x floor':>8} {'fail':>5} {'differ':>7}"
        )
        for name, loader in loaders.items():
            seconds = timings[name]
            differ = 0 if name == "agent_skills" else _differs(loader, texts)
            print(
                f"{name:<14} {seconds * 1e3:9.1f} {seconds / len(texts) * 1e6:8.1f} "
                f"{seconds / floor:8.2f} {_failures(loader, texts):5d} {differ:7d}"
            )
    print("\n## semantics")
    for name, loader in loaders.items():
        print(f"{name:<14} " + "; ".join(f"{k}: {v}" for k, v in semantics(loader).items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
