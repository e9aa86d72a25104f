"""The floors the benchmarks measure against: what any loader must at least do (SPEC §26).

* :func:`floor_discovery`, the floor of discovery exactly as SPEC §26 words it: ``os.scandir`` of
  the root, reading each ``SKILL.md``, and ``yaml.CSafeLoader`` on its frontmatter. Run as a
  script (``python floor.py ROOT``) it is the floor's *whole process*: the interpreter, ``import
  yaml`` and that work, with no output (SPEC §26 names no output in the floor).
* :func:`plain_walk`, the floor of loading every skill: the same root listed, each ``SKILL.md``
  read and each skill directory walked with ``os.walk`` (its files listed), with no check.
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


def plain_walk(root: str | os.PathLike[str]) -> list[tuple[str, list[str]]]:
    """Each skill's ``SKILL.md`` text and the paths of its files, by ``os.walk``.

    Returns:
        ``(manifest text, [file path, ...])`` per skill directory, in listing order.
    """
    out = []
    with os.scandir(root) as it:
        for entry in it:
            if not entry.is_dir():
                continue
            with open(os.path.join(entry.path, "SKILL.md"), "rb") as fh:
                text = fh.read().decode("utf-8")
            files = [
                os.path.join(dirpath, name)
                for dirpath, _dirs, names in os.walk(entry.path)
                for name in names
            ]
            out.append((text, files))
    return out


def main(argv: list[str]) -> int:
    """``floor.py ROOT``: the floor of discovery on ROOT, nothing printed."""
    floor_discovery(argv[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
