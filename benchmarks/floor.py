"""The floor of discovery: what any loader must at least do (SPEC §26).

``os.scandir`` of the root, reading each ``SKILL.md``, and ``yaml.CSafeLoader`` on its frontmatter.
Imported by ``run.py``; run as a script it is the floor's *whole process* (``python floor.py ROOT``:
the same work, then the name and description of each skill as JSON on stdout, as
``agent-skills list --json`` prints its list).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import yaml


def floor_discovery(root: str | os.PathLike[str]) -> list[Any]:
    """List the root, read each ``SKILL.md``, parse its frontmatter with C YAML."""
    out = []
    with os.scandir(root) as it:
        for entry in it:
            if not entry.is_dir():
                continue
            with open(os.path.join(entry.path, "SKILL.md"), "rb") as fh:
                text = fh.read().decode("utf-8")
            end = text.find("\n---", 3)
            out.append(yaml.load(text[4 : end + 1], Loader=yaml.CSafeLoader))
    return out


def main(argv: list[str]) -> int:
    """``floor.py ROOT``: the floor, then its result as JSON on stdout."""
    import json

    found = floor_discovery(argv[0])
    rows = [{"name": fm.get("name"), "description": fm.get("description")} for fm in found]
    sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
