"""``python -m agent_skills.mcp [OPTIONS]``: the same as ``agent-skills serve [OPTIONS]``.

The one place the MCP wing hands over to the command line (SPEC §16, §17).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..cli import main as cli_main

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agent_skills.mcp [OPTIONS]``: the same as ``agent-skills serve [OPTIONS]``.

    Returns:
        The exit code of ``agent-skills serve`` (SPEC §16).
    """
    return cli_main(["serve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
