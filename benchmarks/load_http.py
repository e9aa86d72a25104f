"""Load test of one ``agent-skills serve --http --stateless`` replica, on loopback (SPEC §24.4).

Starts the server as a child process on ``127.0.0.1`` (never another interface) over a generated
skill tree, waits for ``GET /healthz``, then keeps ``--clients`` connections busy with a mix of
MCP requests for ``--duration`` seconds (capped at 600) and stops everything by itself:

- ``skills/list`` (the extension's first page), ``tools/list``;
- ``resources/read`` of a ``SKILL.md`` and of a bundled file;
- ``tools/call`` of ``read_skill_resource`` and ``activate_skill``.

It reports requests per second, latency percentiles (p50, p90, p99, max), errors (HTTP status
other than 200, or a JSON-RPC error, or a tool result with ``isError``) and the server's resident
memory (``VmRSS``, sampled every second: first, peak, last). ``--smoke`` runs 3 seconds with 4
clients and exits 1 on any error (``scripts/test.sh`` runs it). ``--json`` prints the result as one
JSON object.

    python benchmarks/load_http.py --duration 300 --clients 16 --skills 200
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from skilltree import generate  # noqa: E402

MAX_DURATION = 600.0
HOST = "127.0.0.1"
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}


@dataclass
class Totals:
    """What every client thread recorded."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    by_method: dict[str, list[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _rss_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _requests(names: list[str], files: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """One round of the request mix, spread over the skills."""
    mix: list[tuple[str, dict[str, Any]]] = []
    for i, name in enumerate(names[:20]):
        mix.append(("skills/list", {}))
        mix.append(("tools/list", {}))
        mix.append(("resources/read", {"uri": f"skill://{name}/SKILL.md"}))
        if name in files:
            rel = files[name]
            mix.append(("resources/read", {"uri": f"skill://{name}/{rel}"}))
            mix.append(
                (
                    "tools/call",
                    {"name": "read_skill_resource", "arguments": {"name": name, "path": rel}},
                )
            )
        if i % 2 == 0:
            mix.append(("tools/call", {"name": "activate_skill", "arguments": {"name": name}}))
    return mix


def _result(data: bytes) -> dict[str, Any]:
    """The JSON-RPC message of a JSON or one-event SSE response."""
    text = data.decode("utf-8")
    if text.lstrip().startswith("{"):
        return dict(json.loads(text))
    for line in text.splitlines():
        if line.startswith("data:"):
            return dict(json.loads(line[5:]))
    raise ValueError("no JSON-RPC message in the response")


def _client(
    port: int, mix: list[tuple[str, dict[str, Any]]], offset: int, stop: float, totals: Totals
) -> None:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    latencies: list[float] = []
    errors: list[str] = []
    per_method: dict[str, list[float]] = {}
    i = offset
    while time.monotonic() < stop:
        method, params = mix[i % len(mix)]
        i += 1
        body = json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        started = time.perf_counter()
        try:
            conn.request("POST", "/mcp", body, HEADERS)
            response = conn.getresponse()
            data = response.read()
            elapsed = time.perf_counter() - started
            message = _result(data) if response.status == 200 else {}
            if response.status != 200:
                errors.append(f"{method}: HTTP {response.status}")
            elif "error" in message:
                errors.append(f"{method}: {message['error']}")
            elif method == "tools/call" and message["result"].get("isError"):
                errors.append(f"{method}: {message['result']['content'][0]['text'][:100]}")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            elapsed = time.perf_counter() - started
            errors.append(f"{method}: {type(exc).__name__}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=30)
        latencies.append(elapsed)
        per_method.setdefault(method, []).append(elapsed)
    conn.close()
    with totals.lock:
        totals.latencies.extend(latencies)
        totals.errors += len(errors)
        totals.error_samples.extend(errors[: 5 - len(totals.error_samples)])
        for method, values in per_method.items():
            totals.by_method.setdefault(method, []).extend(values)


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))
    return sorted_values[index]


def run(duration: float, clients: int, skills: int, workdir: Path) -> dict[str, Any]:
    """Run one bounded load test; return the measurements."""
    duration = min(duration, MAX_DURATION)
    tree = generate(workdir, skills)
    root = workdir / "skills"
    names = sorted(p.name for p in root.iterdir() if (p / "SKILL.md").is_file())
    files: dict[str, str] = {}
    for name in names:
        for path in sorted((root / name).rglob("*")):
            if path.is_file() and not path.is_symlink() and path.name != "SKILL.md":
                rel = path.relative_to(root / name).as_posix()
                if " " not in rel and not any(p.startswith(".") for p in rel.split("/")):
                    files[name] = rel
                    break
    port = _free_port()
    command = [sys.executable, "-m", "agent_skills", "serve", "--http", "--stateless"]
    command += ["--host", HOST, "--port", str(port), "--preset", "none", "--root", str(root)]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        healthz: dict[str, Any] = {}
        while True:
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=2)
                conn.request("GET", "/healthz")
                healthz = json.loads(conn.getresponse().read())
                conn.close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.05)
        mix = _requests(names, files)
        totals = Totals()
        rss: list[int] = []
        start = time.monotonic()
        stop = start + duration
        threads = [
            threading.Thread(target=_client, args=(port, mix, k * 7, stop, totals), daemon=True)
            for k in range(clients)
        ]
        for thread in threads:
            thread.start()
        while time.monotonic() < stop:
            sample = _rss_kib(server.pid)
            if sample is not None:
                rss.append(sample)
            time.sleep(min(1.0, max(0.0, stop - time.monotonic())))
        for thread in threads:
            thread.join(60)
        elapsed = time.monotonic() - start
        sample = _rss_kib(server.pid)
        if sample is not None:
            rss.append(sample)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    latencies = sorted(totals.latencies)
    return {
        "duration_s": round(elapsed, 1),
        "clients": clients,
        "skills": healthz.get("skills"),
        "tree_skills": tree.n,
        "requests": len(latencies),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "latency_ms": {
            "p50": round(_percentile(latencies, 0.50) * 1000, 2),
            "p90": round(_percentile(latencies, 0.90) * 1000, 2),
            "p99": round(_percentile(latencies, 0.99) * 1000, 2),
            "max": round((latencies[-1] if latencies else float("nan")) * 1000, 2),
            "mean": round(statistics.fmean(latencies) * 1000, 2) if latencies else None,
        },
        "errors": totals.errors,
        "error_samples": totals.error_samples,
        "by_method": {
            method: {
                "requests": len(values),
                "p50_ms": round(statistics.median(values) * 1000, 2),
            }
            for method, values in sorted(totals.by_method.items())
        },
        "rss_mib": {
            "first": round(rss[0] / 1024, 1) if rss else None,
            "peak": round(max(rss) / 1024, 1) if rss else None,
            "last": round(rss[-1] / 1024, 1) if rss else None,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds (at most 600)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent connections")
    parser.add_argument("--skills", type=int, default=200, help="skills in the generated tree")
    parser.add_argument("--smoke", action="store_true", help="3 s, 4 clients; exit 1 on errors")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.smoke:
        args.duration, args.clients, args.skills = 3.0, 4, 50
    with tempfile.TemporaryDirectory(prefix="agent-skills-load-") as tmp:
        result = run(args.duration, args.clients, args.skills, Path(tmp))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        lat = result["latency_ms"]
        rss = result["rss_mib"]
        print(
            f"{result['requests']} requests in {result['duration_s']} s from {result['clients']} "
            f"clients over {result['skills']} skills: {result['requests_per_s']} requests/s; "
            f"latency p50 {lat['p50']} ms, p90 {lat['p90']} ms, p99 {lat['p99']} ms, "
            f"max {lat['max']} ms; errors {result['errors']}; server RSS {rss['first']} MiB "
            f"first, {rss['peak']} MiB peak, {rss['last']} MiB last"
        )
        for sample in result["error_samples"]:
            print(f"  error: {sample}")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
