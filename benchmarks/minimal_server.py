"""A minimal MCP server on stdio with the same SDK, no skills: the floor of ``serve`` (SPEC §26).

It answers ``initialize`` and nothing else of interest; ``benchmarks/processes.py`` times how long
it takes from process start to that answer, next to ``agent-skills serve``.
"""

from __future__ import annotations

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def _serve() -> None:
    server: Server[object] = Server("minimal")
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
