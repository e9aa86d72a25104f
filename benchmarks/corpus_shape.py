"""The shape of real skills: what the realistic benchmark tree imitates (SPEC §26).

For each valid skill of the shared corpus (``../shared/corpus`` beside the repository, or
``$AGENT_SKILLS_CORPUS``) one record keeps numbers and structure only, never text:

* ``fm``: the frontmatter's YAML node tree. A scalar is ``["s", style, tag, length, lines]``
  (``style`` one of ``""``, ``'"'``, ``"'"``, ``">"``, ``"|"``; ``tag`` ``str``, ``bool``,
  ``int``, ``float`` or ``null``; ``length`` in characters; ``lines`` the source lines it
  spans); a sequence ``["q", flow, [item, ...]]``; a mapping ``["m", flow, [[key, value], ...]]``
  (keys are the field names as written: ``description``, ``metadata``, ``allowed-tools``, ...).
* ``fm_lines`` and ``fm_bytes``: the frontmatter's size between its fences.
* ``body``: the body's size in bytes (after the closing fence's line).
* ``res``: each bundled file as ``[dir, ext, bytes]``, ``dir`` relative to the skill directory
  with every component renamed (``scripts``, ``references``, ``assets`` and ``examples`` kept,
  other top-level directories ``docs0``, ``docs1``, ..., deeper ones ``d0``, ``d1``, ...), so the
  layout and sizes are kept and no name is.

Valid means what the benchmark needs of every skill: a frontmatter that parses to a mapping
with a ``name`` and a ``description``. The records are committed in ``corpus_shape.json``
(``python benchmarks/corpus_shape.py --write`` refreshes it), so the realistic tree keeps its
shape where the corpus is absent (CI). Run without ``--write`` it prints the distribution.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import yaml

__all__ = ["SUMMARY", "Shape", "corpus_dir", "digest", "load", "measure", "stats"]

HERE = Path(__file__).resolve().parent
SUMMARY = HERE / "corpus_shape.json"

#: One skill's record (see the module docstring).
Shape = dict[str, Any]

_KINDS = ("scripts", "references", "assets", "examples")
_MANIFEST_NAMES = ("SKILL.md", "skill.md")


def corpus_dir() -> Path | None:
    """The shared corpus: ``$AGENT_SKILLS_CORPUS``, else ``../shared/corpus``; None when absent."""
    env = os.environ.get("AGENT_SKILLS_CORPUS")
    candidates = [Path(env)] if env else []
    candidates.append(HERE.parent.parent / "shared" / "corpus")
    for path in candidates:
        if path.is_dir():
            return path
    return None


def _node(node: yaml.Node) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return ["m", bool(node.flow_style), [[k.value, _node(v)] for k, v in node.value]]
    if isinstance(node, yaml.SequenceNode):
        return ["q", bool(node.flow_style), [_node(v) for v in node.value]]
    assert isinstance(node, yaml.ScalarNode)
    span = node.end_mark.line - node.start_mark.line
    style = node.style or ""
    # A block scalar's node ends at the start of the line after its last line.
    lines = max(1, span - (node.end_mark.column == 0)) if style in (">", "|") else span + 1
    tag = node.tag.rsplit(":", 1)[-1]
    return ["s", style, tag, len(node.value), lines]


def _split(text: str) -> tuple[str, str] | None:
    """The frontmatter and the body of a manifest's text, or None without a frontmatter."""
    text = text.lstrip("\ufeff")
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    if end < 0:
        return None
    after = text.find("\n", end + 4)
    return text[4 : end + 1], ("" if after < 0 else text[after + 1 :])


def _manifest_record(path: Path) -> Shape | None:
    parts = _split(path.read_bytes().decode("utf-8", "replace"))
    if parts is None:
        return None
    fm, body = parts
    try:
        node = yaml.compose(fm, Loader=yaml.SafeLoader)
        data = yaml.safe_load(fm)
    except yaml.YAMLError:
        return None
    if not isinstance(node, yaml.MappingNode) or not isinstance(data, dict):
        return None
    if not isinstance(data.get("name"), str) or not isinstance(data.get("description"), str):
        return None
    return {
        "fm": _node(node),
        "fm_lines": fm.count("\n"),
        "fm_bytes": len(fm.encode()),
        "body": len(body.encode()),
        "res": [],
    }


def _files(corpus: Path) -> list[tuple[str, int]]:
    """Every file of the corpus as (path relative to it, bytes).

    ``MANIFEST.tsv`` lists the files left out of the corpus too (code, fonts, images), with
    their sizes: they are part of a real skill's layout, so they count when it is there.
    """
    listing = corpus / "MANIFEST.tsv"
    if listing.is_file():
        with listing.open(encoding="utf-8", newline="") as fh:
            return [
                (f"{row['repo'].replace('/', '__')}/{row['path']}", max(0, int(row["bytes"])))
                for row in csv.DictReader(fh, delimiter="\t")
            ]
    out = []
    for dirpath, _dirs, names in os.walk(corpus):
        for name in names:
            full = os.path.join(dirpath, name)
            if not os.path.islink(full):
                out.append((os.path.relpath(full, corpus), os.path.getsize(full)))
    return out


def _anonymous_dir(rel_dir: str, names: dict[str, str]) -> str:
    parts = rel_dir.split("/") if rel_dir else []
    out = []
    for depth, part in enumerate(parts):
        key = "/".join(parts[: depth + 1])
        if key not in names:
            if depth == 0 and part in _KINDS:
                names[key] = part
            else:
                prefix = "docs" if depth == 0 else "d"
                names[key] = f"{prefix}{sum(1 for v in names.values() if v.startswith(prefix))}"
        out.append(names[key])
    return "/".join(out)


def measure(corpus: Path) -> list[Shape]:
    """One record per valid skill of ``corpus``, in path order (see the module docstring)."""
    skills: dict[str, Shape] = {}
    for dirpath, _dirs, names in sorted(os.walk(corpus)):
        for name in names:
            if name in _MANIFEST_NAMES:
                record = _manifest_record(Path(dirpath, name))
                if record is not None:
                    skills[os.path.relpath(dirpath, corpus).replace(os.sep, "/")] = record
    dir_names: dict[str, dict[str, str]] = {}
    for rel, size in sorted(_files(corpus)):
        parent, _, base = rel.rpartition("/")
        if base in _MANIFEST_NAMES and parent in skills:
            continue
        # The file belongs to the deepest skill directory above it.
        owner = parent
        while owner and owner not in skills:
            owner = owner.rpartition("/")[0]
        if not owner:
            continue
        inner = parent[len(owner) + 1 :]
        ext = os.path.splitext(base)[1][:8]
        anon = _anonymous_dir(inner, dir_names.setdefault(owner, {}))
        skills[owner]["res"].append([anon, ext, size])
    return [skills[key] for key in sorted(skills)]


def digest(shapes: list[Shape]) -> str:
    """A short hash of the records: the realistic tree is rebuilt when it changes."""
    blob = json.dumps(shapes, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:10]


def load() -> tuple[list[Shape], str]:
    """The records and where they came from: the corpus when present, else the committed file.

    Returns:
        ``(shapes, source)``, ``source`` naming the corpus directory or ``corpus_shape.json``.
    """
    corpus = corpus_dir()
    if corpus is not None:
        shapes = measure(corpus)
        if shapes:
            return shapes, str(corpus)
    data = json.loads(SUMMARY.read_text(encoding="utf-8"))
    return data["skills"], SUMMARY.name


def _quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    n = len(ordered)

    def at(p: float) -> float:
        return ordered[min(n - 1, int(p * n))]

    return {
        "p10": at(0.1),
        "median": statistics.median(ordered),
        "p90": at(0.9),
        "max": ordered[-1],
        "mean": round(statistics.fmean(ordered), 1),
    }


def stats(shapes: list[Shape]) -> dict[str, dict[str, float]]:
    """Distribution of frontmatter lines, top-level keys, metadata entries, sizes, resources."""

    def meta(shape: Shape) -> int:
        for key, value in shape["fm"][2]:
            if key == "metadata" and value[0] == "m":
                return len(value[2])
        return 0

    return {
        "frontmatter lines": _quantiles([s["fm_lines"] for s in shapes]),
        "frontmatter bytes": _quantiles([s["fm_bytes"] for s in shapes]),
        "top-level keys": _quantiles([len(s["fm"][2]) for s in shapes]),
        "metadata entries": _quantiles([meta(s) for s in shapes]),
        "body bytes": _quantiles([s["body"] for s in shapes]),
        "resources": _quantiles([len(s["res"]) for s in shapes]),
        "resource bytes": _quantiles([r[2] for s in shapes for r in s["res"]] or [0]),
    }


def main(argv: list[str]) -> int:
    """``corpus_shape.py [--write]``: print the distribution; ``--write`` refreshes the file."""
    corpus = corpus_dir()
    if corpus is None:
        shapes, source = load()
        if "--write" in argv:
            print("no corpus here: the committed summary is kept", file=sys.stderr)
            return 1
    else:
        shapes, source = measure(corpus), str(corpus)
    print(f"{len(shapes)} skills from {source} (digest {digest(shapes)})")
    for label, q in stats(shapes).items():
        print(f"  {label}: " + ", ".join(f"{k} {v:g}" for k, v in q.items()))
    if "--write" in argv:
        SUMMARY.write_text(
            json.dumps(
                {"skills": shapes},
                separators=(",", ":"),
            ).replace('{"fm"', '\n{"fm"')
            + "\n",
            encoding="utf-8",
        )
        print(f"wrote {SUMMARY}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
