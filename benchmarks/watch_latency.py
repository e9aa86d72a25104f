"""Time from editing a skill to a client seeing it, through ``agent-skills serve --watch``
(SPEC §23.2).

Starts the server over stdio with the official ``mcp`` client (handshake era), then ``--edits``
times rewrites a file of a skill and measures how long until the three ``list_changed``
notifications have arrived, and until ``skills/list`` serves the new digest. The server's quiet
period is its default (200 ms), which is part of what is measured. Every wait is bounded (20 s).

    python benchmarks/watch_latency.py --edits 10
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from pydantic import ConfigDict

REPO = Path(__file__).resolve().parents[1]
WAIT = 20.0
CHANGED = {
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
    "notifications/tools/list_changed",
}


class _ListSkills(types.Request[types.PaginatedRequestParams, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"


class _Raw(types.Result):
    model_config = ConfigDict(extra="allow")


async def _digest_of(client: Client, uri: str) -> str:
    page = await client.session.send_request(
        _ListSkills(params=types.PaginatedRequestParams()), _Raw
    )
    for entry in page.model_dump()["skills"]:
        for item in entry["resources"]:
            if item["uri"] == uri:
                return str(item["digest"])
    return ""


async def measure(edits: int, root: Path) -> dict[str, Any]:
    skill = root / "demo"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: A demo skill.\n---\nBody.\n")
    guide = skill / "references" / "guide.md"
    guide.write_text("version 0\n")
    uri = "skill://demo/references/guide.md"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_skills", "serve", "--watch", "--preset", "none", "--root", str(root)],
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )
    seen: list[str] = []
    got = anyio.Event()

    async def handler(message: Any) -> None:
        nonlocal got
        method = getattr(message, "method", None)
        if method in CHANGED:
            seen.append(method)
            if set(seen) >= CHANGED:
                got.set()

    notified: list[float] = []
    served: list[float] = []
    async with Client(params, mode="legacy", cache=None, message_handler=handler) as client:
        await _digest_of(client, uri)
        await anyio.sleep(1.0)  # let the watcher finish starting
        for n in range(1, edits + 1):
            seen.clear()
            got = anyio.Event()
            data = f"version {n}\n".encode()
            started = time.perf_counter()
            guide.write_bytes(data)
            with anyio.fail_after(WAIT):
                await got.wait()
            notified.append(time.perf_counter() - started)
            want = "sha256:" + hashlib.sha256(data).hexdigest()
            with anyio.fail_after(WAIT):
                while await _digest_of(client, uri) != want:
                    await anyio.sleep(0.01)
            served.append(time.perf_counter() - started)
            await anyio.sleep(0.3)

    def summary(values: list[float]) -> dict[str, float]:
        return {
            "median_ms": round(statistics.median(values) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1),
        }

    return {"edits": edits, "notified": summary(notified), "new_digest": summary(served)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=10)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agent-skills-watch-") as tmp:
        result = anyio.run(measure, max(1, min(args.edits, 100)), Path(tmp))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
