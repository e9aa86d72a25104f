"""Whole-process measurements (SPEC §26): the first discovery call, the CLI and the MCP server.

Each sample is a fresh interpreter. Contenders are interleaved sample by sample (ours, the floor,
ours, the floor, ...) so that background load on a shared machine hits both, and the medians of
the samples are compared.

* **First call.** A child imports ``agent_skills`` and times its first ``create_agent_skills``
  (every import that call triggers included), then a second, warm one; the floor's child imports
  ``yaml`` and times its first and second floor runs the same way.
* **CLI.** The wall time of the whole process ``agent-skills list --json --preset none --root R``
  against the floor's whole process ``python floor.py R`` (the floor of SPEC §26, no output).
* **Warm index.** A child times ``import agent_skills`` plus its first ``create_agent_skills``
  with a warm on-disk index (what a new process meets); the floor's child times ``import yaml``
  plus its first floor run.
* **The original.** The whole process of the original TypeScript library (``original.py``)
  against ``agent-skills list --json``.
* **Server.** From process start to the answer of ``initialize`` on stdio: ``agent-skills serve``
  on the example skills against ``minimal_server.py``, a server on the same ``mcp`` SDK that
  serves nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "skills"
_PYCACHE = Path(tempfile.gettempdir()) / "agent-skills-bench" / "pycache"


def child_env() -> dict[str, str]:
    """The environment of every child: bytecode cached (in a private prefix), as for an installed
    package. Without it (``PYTHONDONTWRITEBYTECODE`` set and sources newer than their ``.pyc``)
    each child would compile every changed module again, which no user's process does."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
    return env


_OURS_FIRST = """
import sys, time
t0 = time.perf_counter()
import agent_skills
t1 = time.perf_counter()
agent_skills.create_agent_skills([sys.argv[1]])
t2 = time.perf_counter()
agent_skills.create_agent_skills([sys.argv[1]])
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""

_FLOOR_FIRST = """
import sys, time
sys.path.insert(0, sys.argv[2])
t0 = time.perf_counter()
import yaml, floor
t1 = time.perf_counter()
floor.floor_discovery(sys.argv[1])
t2 = time.perf_counter()
floor.floor_discovery(sys.argv[1])
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


_OURS_INDEX = """
import sys, time
t0 = time.perf_counter()
import agent_skills
agent_skills.create_agent_skills([sys.argv[1]], index=sys.argv[2])
print(time.perf_counter() - t0)
"""

_FLOOR_IMPORT_FIRST = """
import sys, time
sys.path.insert(0, sys.argv[2])
t0 = time.perf_counter()
import yaml, floor
floor.floor_discovery(sys.argv[1])
print(time.perf_counter() - t0)
"""


def _numbers(args: list[str]) -> list[float]:
    out = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        env=child_env(),
    )
    return [float(x) for x in out.stdout.split()]


def first_call(root: Path, samples: int) -> dict[str, float]:
    """Medians (seconds) of the import, first and second discovery, ours and the floor's."""
    ours: list[list[float]] = []
    floor: list[list[float]] = []
    _numbers(["-c", _OURS_FIRST, str(root)])  # untimed: bytecode written, page cache warm
    _numbers(["-c", _FLOOR_FIRST, str(root), str(HERE)])
    for _ in range(samples):
        ours.append(_numbers(["-c", _OURS_FIRST, str(root)]))
        floor.append(_numbers(["-c", _FLOOR_FIRST, str(root), str(HERE)]))
    med = [statistics.median(col) for col in zip(*ours, strict=True)]
    fmed = [statistics.median(col) for col in zip(*floor, strict=True)]
    return {
        "import": med[0],
        "first": med[1],
        "warm": med[2],
        "floor_import": fmed[0],
        "floor_first": fmed[1],
        "floor_warm": fmed[2],
    }


def warm_index(root: Path, index: Path, samples: int) -> dict[str, float]:
    """Medians (seconds) of import plus first discovery with a warm index, and the floor's.

    The index file is written (and the page cache warmed) by an untimed first run.
    """
    _numbers(["-c", _OURS_INDEX, str(root), str(index)])
    _numbers(["-c", _OURS_INDEX, str(root), str(index)])
    _numbers(["-c", _FLOOR_IMPORT_FIRST, str(root), str(HERE)])
    ours, floor = [], []
    for _ in range(samples):
        ours.append(_numbers(["-c", _OURS_INDEX, str(root), str(index)])[0])
        floor.append(_numbers(["-c", _FLOOR_IMPORT_FIRST, str(root), str(HERE)])[0])
    return {"index": statistics.median(ours), "floor": statistics.median(floor)}


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("agent-skills")
    if script.exists():
        return [str(script)]
    found = shutil.which("agent-skills")
    return [found] if found else [sys.executable, "-m", "agent_skills"]


def _wall(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
        env=child_env() if env is None else env,
    )
    return time.perf_counter() - start


def list_command(root: Path, *extra: str) -> list[str]:
    """``agent-skills list --json`` of ``root`` alone (no preset)."""
    return [*_cli(), "list", "--json", "--preset", "none", "--root", str(root), *extra]


def cli_process(root: Path, samples: int, extra: tuple[str, ...] = ()) -> dict[str, float]:
    """Medians (seconds) of the whole ``list --json`` process and of the floor's whole process."""
    ours_cmd = list_command(root, *extra)
    floor_cmd = [sys.executable, str(HERE / "floor.py"), str(root)]
    _wall(ours_cmd)  # one untimed run of each: the page cache and .pyc files are warm
    _wall(floor_cmd)
    ours, floor = [], []
    for _ in range(samples):
        ours.append(_wall(ours_cmd))
        floor.append(_wall(floor_cmd))
    return {"cli": statistics.median(ours), "floor": statistics.median(floor)}


def versus(root: Path, other: list[str], samples: int) -> dict[str, float]:
    """Medians (seconds) of ``agent-skills list --json`` and of another whole process, ``other``
    (run in this environment), interleaved after an untimed run of each."""
    ours_cmd = list_command(root)
    env = dict(os.environ)
    _wall(ours_cmd)
    _wall(other, env)
    ours, theirs = [], []
    for _ in range(samples):
        ours.append(_wall(ours_cmd))
        theirs.append(_wall(other, env))
    return {"cli": statistics.median(ours), "other": statistics.median(theirs)}


_INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    + "\n"
).encode()


def _until_initialized(cmd: list[str]) -> float:
    """Seconds from process start to the first line the server writes (the ``initialize`` reply)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_INITIALIZE)
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if b'"id":1' not in line.replace(b" ", b""):
        raise RuntimeError(f"no initialize answer from {cmd[0]}: {line[:200]!r}")
    return elapsed


def serve_startup(samples: int, root: Path = EXAMPLES) -> dict[str, float]:
    """Medians (seconds) to the ``initialize`` reply: ``agent-skills serve`` and the minimal one."""
    ours_cmd = [*_cli(), "serve", "--preset", "none", "--root", str(root)]
    floor_cmd = [sys.executable, str(HERE / "minimal_server.py")]
    _until_initialized(ours_cmd)
    _until_initialized(floor_cmd)
    ours, floor = [], []
    for _ in range(samples):
        ours.append(_until_initialized(ours_cmd))
        floor.append(_until_initialized(floor_cmd))
    return {"serve": statistics.median(ours), "minimal": statistics.median(floor)}


if __name__ == "__main__":  # a quick look by hand: python benchmarks/processes.py ROOT
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLES
    print("first call", first_call(target, 5))
    print("cli", cli_process(target, 5))
    print("serve", serve_startup(3))
    os._exit(0)
