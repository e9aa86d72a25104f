"""Discovery and serving benchmarks against the floor and a peer (SPEC §26, which amends §18).

Usage::

    python benchmarks/run.py            # N = 100, 1 000 and 10 000 (a few minutes)
    python benchmarks/run.py --quick    # N = 100 only (well under a minute; run by CI)
    python benchmarks/run.py --sizes 1000 --json out.json

For each N the runner generates (or reuses) a deterministic tree in the temp dir
(``benchmarks/skilltree.py``), reads every file once to warm the page cache, then times, as the
median of several repeats:

* the **floor**: ``os.scandir`` of the root + reading each ``SKILL.md`` + ``yaml.CSafeLoader`` on
  its frontmatter, i.e. what any loader must at least do;
* ``create_agent_skills`` (discovery) without an index, with a warm on-disk index and with a cold
  one (no index file: discovery writes it), interleaved with the floor repeat by repeat;
* ``list_skills``, ``load_skill`` of every skill,
  ``resource_path`` and ``read_resource`` per call, and the three renderers of
  ``agent_skills.catalog``;
* context economy (SPEC §22): ``fit_catalog`` into 8 000 characters in each format, a budgeted
  ``SkillSession``, the search index, ``search_skills`` and ``handle_tool_call`` per call, and
  the same search with ``bm25s`` for comparison when it is installed;
* the same tree through the peer ``skills-ref`` (``read_properties`` of every skill directory and
  ``to_prompt``), when it is installed.

Fresh subprocesses (``benchmarks/processes.py``) measure the first discovery call of a process
against the floor's first call, the whole ``agent-skills list --json`` process against the floor's
whole process, and ``agent-skills serve`` up to its ``initialize`` answer against a minimal server
on the same SDK; others measure ``import agent_skills`` (median) and memory: the bytes retained per
skill beyond the body text (``tracemalloc``) and the peak RSS (``resource.getrusage``).

Targets (SPEC §26) are shown next to the numbers; a missed target is reported, never an error:
the exit status is 0 whenever the measurements ran.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import linear
import processes
import yaml
from floor import floor_discovery
from skilltree import TreeInfo, cached_tree

import agent_skills
import agent_skills._index as index_mod
from agent_skills import catalog

MS = 1e-3
US = 1e-6

# The trees hold escaping and dangling links on purpose: keep their warnings off the terminal.
logging.getLogger("agent_skills").addHandler(logging.NullHandler())


@dataclass
class Row:
    """One measured line of the results table.

    Attributes:
        n: Tree size (number of skills), or 0 for measurements that do not depend on it.
        label: What was measured.
        median: Median seconds of one repeat.
        items: Operations in one repeat (skills, calls), for the per-item column.
        per: ``"skill"`` or ``"call"``: what ``items`` counts.
        ratio: ``median`` divided by the floor's median at the same N, or None.
        target: The SPEC §18 target in words, or ``""``.
        ok: Whether the target holds (None when there is none).
        repeats: How many repeats the median is over.
    """

    n: int
    label: str
    median: float
    items: int
    per: str
    ratio: float | None = None
    target: str = ""
    ok: bool | None = None
    repeats: int = 0


def _fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= MS:
        return f"{seconds / MS:.2f} ms"
    if seconds >= US:
        return f"{seconds / US:.1f} µs"
    return f"{seconds / 1e-9:.0f} ns"


def _median_time(fn: Callable[[], object], repeats: int, *, warmup: bool = True) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs, after one untimed warm-up run."""
    if warmup:
        fn()
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _paired_medians(
    fns: list[Callable[[], object]],
    repeats: int,
    setups: dict[int, Callable[[], object]] | None = None,
) -> list[float]:
    """Median wall time of each function, the runs interleaved round-robin.

    Interleaving exposes every function to the same background load, so their ratio stays
    meaningful on a busy machine. Each function runs once untimed first. ``setups`` maps a
    function's position to what runs, untimed, before each of its runs.
    """
    setups = setups or {}
    for i, fn in enumerate(fns):
        setups.get(i, _nothing)()
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for i, (fn, out) in enumerate(zip(fns, times, strict=True)):
            setups.get(i, _nothing)()
            gc.collect()
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def _nothing() -> None:
    return None


def _median_per_call(fn: Callable[[], object], calls: int, repeats: int) -> float:
    """Median over ``repeats`` samples of the mean time of one call within ``calls`` calls."""
    return _median_time(lambda: [fn() for _ in range(calls)], repeats) / calls


def warm_cache(root: Path) -> int:
    """Read every file under ``root`` once (links not followed); return the bytes read."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as fh:
                total += len(fh.read())
    return total


def _peer() -> Any | None:
    try:
        import skills_ref  # type: ignore[import-untyped]
    except ImportError:
        return None
    return skills_ref


def bench_tree(tree: TreeInfo, repeats: int, peer_repeats: int) -> list[Row]:
    """Time every in-process measurement on one tree."""
    n = tree.n
    root = tree.root
    warm_cache(root.parent)
    rows: list[Row] = []

    def discover() -> agent_skills.AgentSkills:
        return agent_skills.create_agent_skills([root])

    with tempfile.TemporaryDirectory(prefix="agent-skills-index-") as tmp:
        warm_index = Path(tmp) / "warm"
        cold_index = Path(tmp) / "cold"

        def discover_warm() -> agent_skills.AgentSkills:
            return agent_skills.create_agent_skills([root], index=warm_index)

        def discover_warm_file() -> agent_skills.AgentSkills:
            # What a new process meets: the index read and decoded from its file.
            return agent_skills.create_agent_skills([root], index=warm_index)

        def forget_index() -> None:
            # The process remembers the last index file it left unchanged: forget it, untimed
            # (a new process has nothing to forget, so freeing it is not part of its cost).
            index_mod._memo = None

        def discover_cold() -> agent_skills.AgentSkills:
            cold_index.unlink(missing_ok=True)
            return agent_skills.create_agent_skills([root], index=cold_index)

        fns = [
            lambda: floor_discovery(root),
            discover,
            discover_warm_file,
            discover_warm,
            discover_cold,
        ]
        floor, t, t_file, t_warm, t_cold = _paired_medians(fns, repeats, {2: forget_index})
        forget_index()
        from_file = _view(discover_warm_file())  # read from the file, then remembered:
        same = from_file == _view(discover_warm()) == _view(discover())
    rows.append(Row(n, "floor: scandir + read + CSafeLoader", floor, n, "skill", 1.0))
    ratio = t / floor
    rows.append(
        Row(
            n,
            "create_agent_skills (warm calls)",
            t,
            n,
            "skill",
            ratio,
            "≤ 1.25× floor",
            ratio <= 1.25,
        )
    )
    ratio = t_file / floor
    target = "≤ 0.25× floor" if n >= 10_000 else ""
    rows.append(
        Row(
            n,
            "create_agent_skills, warm index read from its file",
            t_file,
            n,
            "skill",
            ratio,
            target + ("" if same else " (results DIFFER)"),
            (ratio <= 0.25 and same) if target else (None if same else False),
        )
    )
    rows.append(
        Row(
            n,
            "create_agent_skills, warm index remembered by the process",
            t_warm,
            n,
            "skill",
            t_warm / floor,
            "" if same else "(results DIFFER)",
            None if same else False,
        )
    )
    rows.append(
        Row(n, "create_agent_skills, cold index (writes it)", t_cold, n, "skill", t_cold / floor)
    )
    skills = discover()
    assert len(skills) == n, (len(skills), n)

    calls = max(10, 20_000 // n)
    t = _median_per_call(skills.list_skills, calls, repeats)
    target = "< 1 ms" if n == 1000 else ""
    rows.append(Row(n, "list_skills", t, n, "skill", t / floor, target, t < MS if target else None))

    names = [s.name for s in skills.list_skills()]
    load_repeats = max(1, repeats // 2)
    t = _median_time(lambda: [skills.load_skill(nm) for nm in names], load_repeats)
    rows.append(Row(n, "load_skill (every skill)", t, n, "skill", t / floor))

    pairs: list[tuple[str, str]] = []
    for nm in names:
        content = skills.load_skill(nm)
        assert content is not None
        pairs.extend((nm, r.rel) for r in content.resources)
        if len(pairs) >= 2000:
            break
    # (A sample is a few tens of milliseconds: at least 15 of them, whatever N.)
    path_repeats = max(repeats, 15)
    t = _median_time(lambda: [skills.resource_path(nm, rel) for nm, rel in pairs], path_repeats)
    per_call = t / len(pairs)
    target, ok = "< 50 µs/call", per_call < 50 * US
    rows.append(Row(n, "resource_path", t, len(pairs), "call", None, target, ok, path_repeats))
    t = _median_time(lambda: [skills.read_resource(nm, rel) for nm, rel in pairs], repeats)
    rows.append(Row(n, "read_resource", t, len(pairs), "call"))

    infos = skills.list_skills()
    for label, render in (
        ("catalog: markdown", catalog.render_skill_catalog),
        ("catalog: xml", catalog.render_available_skills_xml),
        ("catalog: json", catalog.render_catalog_json),
    ):
        t = _median_time(lambda render=render: render(infos), repeats)  # type: ignore[misc]
        rows.append(Row(n, label, t, n, "skill", t / floor))

    ref = _peer()
    if ref is not None and peer_repeats > 0:
        dirs = sorted(p for p in root.iterdir() if p.is_dir())

        def peer_discover() -> list[Any]:
            return [ref.read_properties(d) for d in dirs]

        t = _median_time(peer_discover, peer_repeats, warmup=False)
        rows.append(Row(n, "peer skills-ref: read_properties", t, n, "skill", t / floor))
        t = _median_time(lambda: ref.to_prompt(dirs), peer_repeats, warmup=False)
        rows.append(Row(n, "peer skills-ref: to_prompt (xml)", t, n, "skill", t / floor))
    for row in rows:
        row.repeats = row.repeats or repeats
    return rows


def _view(skills: agent_skills.AgentSkills) -> Any:
    """What discovery reports, to check that the index changes nothing."""
    return (
        [s.to_dict() for s in skills.list_skills()],
        [s.body for s in skills.registry.skills],
        skills.report().to_dict()["entries"],
        [d.to_dict() for d in skills.diagnostics if d.kind != "index_ignored"],
    )


# --- context economy (SPEC §22, §26) -------------------------------------------------------------

CONTEXT_BUDGET = 8000  # characters: Codex's catalog budget
CONTEXT_QUERIES = (
    "review an openapi spec",
    "extract tables from pdf files",
    "write release notes",
    "deploy kubernetes cluster",
    "profile a csv file",
)


def _bm25s_rows(n: int, infos: list[Any], repeats: int) -> list[Row]:
    """The same search with ``bm25s`` (when installed), to compare with SQLite FTS5."""
    try:
        import bm25s
    except ImportError:
        return []
    corpus = [f"{i.name} {i.description} {i.category}" for i in infos]

    def build() -> Any:
        retriever = bm25s.BM25()
        retriever.index(
            bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False
        )
        return retriever

    retriever = build()
    t_build = _median_time(build, max(1, repeats // 2))

    def query() -> None:
        for q in CONTEXT_QUERIES:
            tokens = bm25s.tokenize([q], stopwords="en", show_progress=False)
            retriever.retrieve(tokens, k=10, show_progress=False)

    t_query = _median_time(query, repeats) / len(CONTEXT_QUERIES)
    return [
        Row(n, "search: bm25s index build (comparison)", t_build, n, "skill"),
        Row(n, "search: bm25s query (comparison)", t_query, 1, "call"),
    ]


def bench_context(tree: TreeInfo, repeats: int) -> list[Row]:
    """fit_catalog, search_skills and handle_tool_call on one tree (SPEC §22, §26)."""
    from agent_skills._search import SkillSearchIndex
    from agent_skills.agent import SkillSession

    n = tree.n
    skills = agent_skills.create_agent_skills([tree.root])
    infos = skills.list_skills()
    target = "< 50 ms/call"
    rows: list[Row] = []
    for fmt in ("xml", "markdown", "json"):
        t = _median_time(
            lambda fmt=fmt: catalog.fit_catalog(infos, max_chars=CONTEXT_BUDGET, format=fmt),
            repeats,
        )
        rows.append(
            Row(
                n,
                f"fit_catalog: {fmt}, {CONTEXT_BUDGET:,} chars",
                t,
                1,
                "call",
                None,
                target,
                t < 0.05,
            )
        )
    fit = catalog.fit_catalog(infos, max_chars=CONTEXT_BUDGET)
    print(
        f"N = {n:,}: fit_catalog at {CONTEXT_BUDGET:,} characters lists {len(fit.included):,}, "
        f"omits {len(fit.omitted):,} (text {len(fit.text):,} characters)",
        file=sys.stderr,
        flush=True,
    )
    t = _median_time(lambda: SkillSession(skills, catalog_budget=CONTEXT_BUDGET), repeats)
    rows.append(Row(n, "SkillSession(catalog_budget=8 000)", t, 1, "call"))
    t = _median_time(lambda: SkillSearchIndex(infos), max(1, repeats // 2))
    rows.append(Row(n, "search: FTS5 index build", t, n, "skill"))
    session = SkillSession(skills, catalog_budget=CONTEXT_BUDGET)
    session.search_skills("warm up")  # builds the index once

    def queries() -> None:
        for q in CONTEXT_QUERIES:
            session.search_skills(q)

    t = _median_time(queries, repeats) / len(CONTEXT_QUERIES)
    rows.append(
        Row(n, "search_skills (FTS5 BM25, 10 results)", t, 1, "call", None, target, t < 0.05)
    )
    rows.extend(_bm25s_rows(n, infos, repeats))

    def dispatch_search() -> None:
        for q in CONTEXT_QUERIES:
            session.handle_tool_call("search_skills", {"query": q, "limit": None})

    t = _median_time(dispatch_search, repeats) / len(CONTEXT_QUERIES)
    rows.append(Row(n, "handle_tool_call: search_skills", t, 1, "call", None, target, t < 0.05))
    names = [i.name for i in infos[:: max(1, n // 50)]]

    def dispatch_activate() -> None:
        fresh = SkillSession(skills)
        for name in names:
            fresh.handle_tool_call("activate_skill", {"name": name})

    t = _median_time(dispatch_activate, max(1, repeats // 2)) / len(names)
    rows.append(Row(n, "handle_tool_call: activate_skill", t, 1, "call", None, target, t < 0.05))
    for row in rows:
        row.repeats = repeats
    return rows


# --- subprocess measurements -------------------------------------------------------------------


def bench_processes(
    tree: TreeInfo, samples: int, index_dir: Path, *, with_index: bool = True
) -> list[Row]:
    """First call and whole CLI process against the floor's, in fresh interpreters (SPEC §26)."""
    n = tree.n
    rows: list[Row] = []
    fc = processes.first_call(tree.root, samples)
    ratio = fc["first"] / fc["floor_first"]
    rows.append(
        Row(
            n, "process: floor's first call (after import yaml)", fc["floor_first"], n, "skill", 1.0
        )
    )
    rows.append(
        Row(
            n,
            "process: first create_agent_skills (its imports included)",
            fc["first"],
            n,
            "skill",
            ratio,
            "≤ 1.25× floor's first",
            ratio <= 1.25,
        )
    )
    rows.append(
        Row(
            n,
            "process: second create_agent_skills",
            fc["warm"],
            n,
            "skill",
            fc["warm"] / fc["floor_warm"],
        )
    )
    cli = processes.cli_process(tree.root, samples)
    ratio = cli["cli"] / cli["floor"]
    target = "≤ 1.5× floor's process" if n == 1000 else ""
    rows.append(Row(n, "process: floor.py ROOT (whole process)", cli["floor"], n, "skill", 1.0))
    rows.append(
        Row(
            n,
            "process: agent-skills list --json (whole process)",
            cli["cli"],
            n,
            "skill",
            ratio,
            target,
            ratio <= 1.5 if target else None,
        )
    )
    if with_index:
        index = index_dir / f"cli-{n}.idx"
        warm = processes.cli_process(tree.root, samples, ("--index", str(index)))
        rows.append(
            Row(
                n,
                "process: agent-skills list --json --index (warm, whole process)",
                warm["cli"],
                n,
                "skill",
                warm["cli"] / warm["floor"],
            )
        )
    for row in rows:
        row.repeats = samples
    return rows


def bench_linear(repeats: int) -> list[Row]:
    """Time per byte at 1 MiB against 64 KiB (256 against 16 KiB for ``validate_skill``,
    within the YAML node budget) on hostile shapes of text (SPEC §20.7)."""
    rows = []
    for r in linear.measure(repeats):
        ok = r["ratio"] <= 2.0
        rows.append(
            Row(
                0,
                f"linear, {r['shape']}: {r['large_bytes'] // 1024} KiB in "
                f"({r['small_bytes'] // 1024} KiB: {_fmt_time(r['small'])})",
                r["large"],
                1,
                "call",
                r["ratio"],
                "≤ 2× the time per byte at 64 KiB",
                ok,
                repeats,
            )
        )
        if r["shape"] == "parse: body after a small frontmatter":
            rows.append(
                Row(
                    0,
                    "parse_skill of 1 MiB, small frontmatter, the rest body",
                    r["large"],
                    1,
                    "call",
                    None,
                    "< 50 ms",
                    r["large"] < 50 * MS,
                    repeats,
                )
            )
    return rows


def bench_serve(samples: int) -> list[Row]:
    """``agent-skills serve`` until it answers ``initialize``, against a minimal server (§26)."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("mcp is not installed: the server rows are left out", flush=True)
        return []
    out = processes.serve_startup(samples)
    ratio = out["serve"] / out["minimal"]
    return [
        Row(
            0,
            "minimal stdio server on the mcp SDK: start to initialize",
            out["minimal"],
            1,
            "call",
            1.0,
            "",
            None,
            samples,
        ),
        Row(
            0,
            "agent-skills serve (examples): start to initialize",
            out["serve"],
            1,
            "call",
            ratio,
            "≤ 1.25× minimal",
            ratio <= 1.25,
            samples,
        ),
    ]


_IMPORT_SNIPPET = (
    "import time; t = time.perf_counter(); import agent_skills; print(time.perf_counter() - t)"
)
_IMPORT_FIRST_USE_SNIPPET = (
    "import sys, time; t = time.perf_counter(); import agent_skills; "
    "agent_skills.create_agent_skills([sys.argv[1]]); print(time.perf_counter() - t)"
)


def _child(args: list[str]) -> str:
    proc = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        env=processes.child_env(),
    )
    return proc.stdout.strip().splitlines()[-1]


def bench_import(repeats: int, small_root: Path) -> list[Row]:
    """``import agent_skills`` in fresh interpreters, and import plus a first small discovery."""
    _child(["-c", _IMPORT_FIRST_USE_SNIPPET, str(small_root)])  # untimed: bytecode written
    plain = [float(_child(["-c", _IMPORT_SNIPPET])) for _ in range(repeats)]
    first = [
        float(_child(["-c", _IMPORT_FIRST_USE_SNIPPET, str(small_root)])) for _ in range(repeats)
    ]
    t = statistics.median(plain)
    t2 = statistics.median(first)
    return [
        Row(0, "import agent_skills", t, 1, "call", None, "< 150 ms", t < 150 * MS, repeats),
        Row(
            0, "import + first create_agent_skills (N=100)", t2, 1, "call", None, "", None, repeats
        ),
    ]


def child_memory(root: str) -> None:
    """Child mode: print ``{n, retained, after_catalog, bodies, rss_before, rss_peak}`` as JSON.

    Lazy imports are warmed on a one-skill root first, so only the skills' own objects count.
    """
    import resource
    import tempfile
    import tracemalloc

    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one"
        one.mkdir()
        (one / "SKILL.md").write_text("---\nname: one\ndescription: warm-up\n---\nbody\n")
        warm = agent_skills.create_agent_skills([tmp])
        warm.load_skill("one")
        del warm
    gc.collect()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    skills = agent_skills.create_agent_skills([root])
    rss_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    del skills
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    skills = agent_skills.create_agent_skills([root])
    gc.collect()
    retained = tracemalloc.get_traced_memory()[0] - base
    # pathlib caches a Path's text on first use: rendering the catalog adds each SKILL.md path's.
    catalog.render_available_skills_xml(skills.list_skills())
    gc.collect()
    after_catalog = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    bodies = sum(sys.getsizeof(s.body) for s in skills.registry.skills)
    print(
        json.dumps(
            {
                "n": len(skills),
                "retained": retained,
                "after_catalog": after_catalog,
                "bodies": bodies,
                "rss_before": rss_before,
                "rss_peak": rss_peak,
            }
        )
    )


def bench_memory(tree: TreeInfo) -> list[Row]:
    """Retained bytes per skill beyond the body text, and peak RSS, in a fresh subprocess."""
    out = json.loads(_child([__file__, "--child-memory", str(tree.root)]))
    n = out["n"]
    beyond = (out["retained"] - out["bodies"]) / n
    rss = out["rss_peak"]
    return [
        Row(
            tree.n,
            "memory: retained beyond body text, per skill",
            beyond,
            1,
            "skill",
            None,
            "< 2 KiB/skill" if tree.n >= 1000 else "",
            beyond < 2048 if tree.n >= 1000 else None,
            1,
        ),
        Row(
            tree.n,
            "memory: the same after rendering the XML catalog, per skill",
            (out["after_catalog"] - out["bodies"]) / n,
            1,
            "skill",
            None,
            "",
            None,
            1,
        ),
        Row(tree.n, "memory: peak RSS of the process", rss, 1, "skill", None, "", None, 1),
        Row(
            tree.n,
            "memory: peak RSS growth during discovery, per skill",
            (rss - out["rss_before"]) / n,
            1,
            "skill",
            None,
            "",
            None,
            1,
        ),
    ]


# --- output --------------------------------------------------------------------------------------


def _machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "pyyaml": f"{yaml.__version__} (libyaml: {yaml.__with_libyaml__})",
        "agent_skills": agent_skills.__version__,
    }


def render(rows: list[Row], trees: list[TreeInfo]) -> str:
    """The results as markdown tables: timings per N, memory, import, and cost per skill."""
    lines: list[str] = []
    timing = [r for r in rows if r.n and not r.label.startswith("memory")]
    lines.append("| N | measurement | median | per skill / call | × floor | target | |")
    lines.append("|---:|---|---:|---:|---:|---|---|")
    for r in timing:
        ratio = f"{r.ratio:.2f}" if r.ratio is not None else "—"
        status = "" if r.ok is None else ("ok" if r.ok else "MISSED")
        lines.append(
            f"| {r.n:,} | {r.label} | {_fmt_time(r.median)} | "
            f"{_fmt_time(r.median / r.items)}/{r.per} | {ratio} | {r.target} | {status} |"
        )
    lines.append("")
    lines.append("| N | memory | value | target | |")
    lines.append("|---:|---|---:|---|---|")
    for r in rows:
        if r.label.startswith("memory"):
            status = "" if r.ok is None else ("ok" if r.ok else "MISSED")
            value = (
                f"{r.median / 1024:,.2f} KiB"
                if "per skill" in r.label or "beyond" in r.label
                else (f"{r.median / 2**20:,.1f} MiB")
            )
            lines.append(
                f"| {r.n:,} | {r.label.split(': ', 1)[1]} | {value} | {r.target} | {status} |"
            )
    lines.append("")
    lines.append("| measurement | median | × its floor | target | |")
    lines.append("|---|---:|---:|---|---|")
    for r in rows:
        if r.n == 0:
            status = "" if r.ok is None else ("ok" if r.ok else "MISSED")
            ratio = f"{r.ratio:.2f}" if r.ratio is not None else "—"
            lines.append(
                f"| {r.label} (median of {r.repeats}) | {_fmt_time(r.median)} | {ratio} | "
                f"{r.target} | {status} |"
            )
    lines.append("")
    lines.append("Cost per skill as N grows (µs per skill; linear growth keeps a row flat):")
    lines.append("")
    ns = [t.n for t in trees]
    lines.append("| measurement | " + " | ".join(f"N = {n:,}" for n in ns) + " |")
    lines.append("|---|" + "---:|" * len(ns))
    labels = [r.label for r in timing if r.n == ns[0] and r.per == "skill"]
    for label in labels:
        cells = []
        for n in ns:
            match = [r for r in timing if r.n == n and r.label == label]
            cells.append(f"{match[0].median / n / US:.1f}" if match else "—")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        "Trees: "
        + "; ".join(
            f"N = {t.n:,}: {t.manifest_bytes / t.n / 1024:.1f} KiB per SKILL.md, "
            f"{t.resources / t.n:.1f} resources per skill, {t.symlinks} symlinks"
            for t in trees
        )
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks and print the tables; return 0 whenever they ran."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="N = 100 only, fewer repeats")
    parser.add_argument("--sizes", type=int, nargs="+", help="tree sizes (default 100 1000 10000)")
    parser.add_argument("--repeats", type=int, help="repeats per measurement")
    parser.add_argument("--no-peer", action="store_true", help="skip skills-ref")
    parser.add_argument("--fresh", action="store_true", help="regenerate the trees")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--child-memory", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_memory:
        child_memory(args.child_memory)
        return 0

    sizes = args.sizes or ([100] if args.quick else [100, 1000, 10_000])
    machine = _machine()
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()), flush=True)
    if _peer() is None and not args.no_peer:
        print("peer skills-ref is not installed: its rows are left out", flush=True)
    rows: list[Row] = []
    trees: list[TreeInfo] = []
    # Memory first: on Linux a child starts with its parent's peak RSS (ru_maxrss survives fork and
    # exec), so the children must run while this process is still small.
    memory: dict[int, list[Row]] = {}
    for n in sizes:
        tree = cached_tree(n, fresh=args.fresh)
        trees.append(tree)
        memory[n] = bench_memory(tree)
    for tree in trees:
        n = tree.n
        start = time.perf_counter()
        repeats = args.repeats or (5 if args.quick else {100: 15, 1000: 9}.get(n, 7))
        peer_repeats = 0 if args.no_peer else (3 if n <= 1000 else 1)
        rows.extend(bench_tree(tree, repeats, peer_repeats))
        # Fresh interpreters vary most (start-up on a shared machine): more samples, same medians.
        samples = 3 if args.quick else {100: 15, 1000: 11}.get(n, 7)
        with tempfile.TemporaryDirectory(prefix="agent-skills-cli-index-") as tmp:
            rows.extend(bench_processes(tree, samples, Path(tmp), with_index=not args.quick))
        rows.extend(bench_context(tree, repeats))
        rows.extend(memory[n])
        print(f"N = {n:,} done in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    small = cached_tree(100).root
    rows.extend(bench_import(5 if args.quick else 11, small))
    rows.extend(bench_serve(2 if args.quick else 7))
    rows.extend(bench_linear(1 if args.quick else 5))
    print()
    print(render(rows, trees))
    if args.json:
        args.json.write_text(
            json.dumps({"machine": machine, "rows": [asdict(r) for r in rows]}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
