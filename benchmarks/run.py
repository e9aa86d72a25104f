"""Discovery and serving benchmarks against the floor and the original library (SPEC §26, §18).

Usage::

    python benchmarks/run.py            # both trees at N = 100, 1 000 and 10 000
    python benchmarks/run.py --quick    # both trees at N = 100, fewer repeats (run by CI)
    python benchmarks/run.py --sizes 1000 --trees realistic --json out.json

Two trees at each N (``benchmarks/skilltree.py``), generated once in the temp dir and reused:
the **synthetic** one (2-8 KiB manifests, 12 frontmatter lines each, six files per skill) and
the **realistic** one, whose skills take the shape of real ones (``benchmarks/corpus_shape.py``:
frontmatter structure and sizes, body sizes, bundled files, sampled from the shared corpus or
its committed summary). Every file of a tree is read once first to warm the page cache; then,
as medians of several repeats:

* the **floor** exactly as SPEC §26 words it: ``os.scandir`` of the root, reading each
  ``SKILL.md`` and ``yaml.CSafeLoader`` on its frontmatter, nothing printed (``floor.py``);
* ``create_agent_skills`` without an index, with a warm on-disk index and with a cold one,
  interleaved with the floor repeat by repeat;
* **loading every skill** (``load_skill`` of each name: body and resources) interleaved with a
  plain walk of the same tree (``os.walk`` of each skill directory and a read of its
  ``SKILL.md``);
* ``list_skills``, ``resource_path`` and ``read_resource`` per call, the catalog renderers, the
  context economy (SPEC §22), and the peer ``skills-ref`` when it is installed.

Fresh processes (``benchmarks/processes.py``, bytecode cached as an installed package has it)
measure the first discovery call against the floor's, the whole ``agent-skills list --json``
process against the floor's whole process, a warm index as a new process meets it (``import
agent_skills`` included) against the floor's import and first call, and ``serve`` up to its
``initialize`` answer against a minimal server. Where Node is present, the original TypeScript
library (``benchmarks/original.py``) is measured on the same trees: its whole process against
``list --json``, its load loop against ours.

Every target is printed with its margin (limit over measured: at least 1 when met) for each tree
and N, then a table of the misses. A miss is reported, never an error: the exit status is 0
whenever the measurements ran.
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

import corpus_shape
import linear
import original
import processes
import yaml
from floor import floor_discovery, plain_walk
from skilltree import TreeInfo, cached_tree

import agent_skills
import agent_skills._index as index_mod
from agent_skills import catalog

MS = 1e-3
US = 1e-6
TREES = ("synthetic", "realistic")

# The trees hold escaping and dangling links on purpose: keep their warnings off the terminal.
logging.getLogger("agent_skills").addHandler(logging.NullHandler())
logging.getLogger("agent_skills").propagate = False


@dataclass
class Row:
    """One measured line of the results.

    Attributes:
        n: Tree size (number of skills), or 0 for measurements that do not depend on it.
        label: What was measured.
        median: Median seconds of one repeat.
        items: Operations in one repeat (skills, calls), for the per-item column.
        per: ``"skill"`` or ``"call"``: what ``items`` counts.
        ratio: ``median`` over its reference's median (the floor unless the label names
            another), or None.
        target: The target in words, or ``""``.
        ok: Whether the target holds (None when there is none).
        repeats: How many repeats (or process pairs) the median is over.
        tree: ``"synthetic"``, ``"realistic"``, or ``""`` for measurements without a tree.
        limit: The target's bound on ``measured`` (a ratio, or seconds), or None.
        measured: What the target bounds: ``ratio``, or seconds per call, or bytes.
        unit: ``"×"`` (a ratio), ``"s"`` or ``"B"``: what ``measured`` and ``limit`` count.
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
    tree: str = ""
    limit: float | None = None
    measured: float | None = None
    unit: str = ""

    @property
    def margin(self) -> float | None:
        """``limit / measured``: at least 1 when the target is met, the headroom above 1."""
        if self.limit is None or not self.measured:
            return None
        return self.limit / self.measured


def _target(
    row: Row, target: str, limit: float, measured: float | None = None, unit: str = "s"
) -> Row:
    """``row`` with an upper-bound target: ``measured`` (default: its ratio) ≤ ``limit``."""
    value = row.ratio if measured is None else measured
    assert value is not None
    row.target, row.limit, row.measured = target, limit, value
    row.unit = "×" if measured is None else unit
    row.ok = value <= limit
    return row


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


def _paired_times(
    fns: list[Callable[[], object]],
    repeats: int,
    setups: dict[int, Callable[[], object]] | None = None,
) -> list[list[float]]:
    """Wall times of each function, the runs interleaved round-robin.

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
    return times


def _paired_medians(
    fns: list[Callable[[], object]],
    repeats: int,
    setups: dict[int, Callable[[], object]] | None = None,
) -> list[float]:
    """Median of each function's times in :func:`_paired_times`."""
    return [statistics.median(t) for t in _paired_times(fns, repeats, setups)]


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


def _forget_index() -> None:
    """Forget the index file the process remembers (a new process has nothing to forget)."""
    if hasattr(index_mod, "_memo"):
        index_mod._memo = None


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
        floor, t, t_file, t_warm, t_cold = _paired_medians(fns, repeats, {2: _forget_index})
        _forget_index()
        from_file = _view(discover_warm_file())  # read from the file, then remembered:
        same = from_file == _view(discover_warm()) == _view(discover())
    rows.append(Row(n, "floor: scandir + read + CSafeLoader", floor, n, "skill", 1.0))
    rows.append(
        _target(
            Row(n, "create_agent_skills (warm calls)", t, n, "skill", t / floor),
            "≤ 1.25× floor",
            1.25,
        )
    )
    rows.append(
        Row(
            n,
            "create_agent_skills, warm index read from its file (in process, no import)",
            t_file,
            n,
            "skill",
            t_file / floor,
            "" if same else "(results DIFFER)",
            None if same else False,
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
    row = Row(n, "list_skills", t, n, "skill", t / floor)
    rows.append(_target(row, "< 1 ms", MS, t) if n == 1000 else row)

    names = [s.name for s in skills.list_skills()]

    def load_all() -> None:
        for nm in names:
            skills.load_skill(nm)

    load_repeats = max(3, repeats // 2)
    walk, load = _paired_medians([lambda: plain_walk(root), load_all], load_repeats)
    rows.append(
        Row(n, "plain walk: scandir + os.walk + read SKILL.md", walk, n, "skill", walk / floor)
    )
    rows.append(
        _target(
            Row(n, "load_skill of every skill (× the plain walk)", load, n, "skill", load / walk),
            "≤ 3× plain walk",
            3.0,
        )
    )

    pairs: list[tuple[str, str]] = []
    for nm in names:
        content = skills.load_skill(nm)
        assert content is not None
        pairs.extend((nm, r.rel) for r in content.resources)
        if len(pairs) >= 2000:
            break
    if pairs:
        # (A sample is a few tens of milliseconds: at least 15 of them, whatever N.)
        path_repeats = max(repeats, 15)
        t = _median_time(lambda: [skills.resource_path(nm, rel) for nm, rel in pairs], path_repeats)
        per_call = t / len(pairs)
        row = Row(n, "resource_path", t, len(pairs), "call", repeats=path_repeats)
        rows.append(_target(row, "< 50 µs/call", 50 * US, per_call))
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

        def peer_read(d: Path) -> Any:
            try:
                return ref.read_properties(d)
            except Exception:  # the peer rejects some real frontmatters (flow mappings)
                return None

        def peer_discover() -> list[Any]:
            return [peer_read(d) for d in dirs]

        accepted = [d for d in dirs if peer_read(d) is not None]
        t = _median_time(peer_discover, peer_repeats, warmup=False)
        rows.append(Row(n, "peer skills-ref: read_properties", t, n, "skill", t / floor))
        t = _median_time(lambda: ref.to_prompt(accepted), peer_repeats, warmup=False)
        rows.append(
            Row(
                n,
                f"peer skills-ref: to_prompt (xml) of the {len(accepted):,} it accepts",
                t,
                len(accepted),
                "skill",
                t / floor,
            )
        )
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
        row = Row(n, f"fit_catalog: {fmt}, {CONTEXT_BUDGET:,} chars", t, 1, "call")
        rows.append(_target(row, target, 0.05, t))
    fit = catalog.fit_catalog(infos, max_chars=CONTEXT_BUDGET)
    print(
        f"{tree.kind} N = {n:,}: fit_catalog at {CONTEXT_BUDGET:,} characters lists "
        f"{len(fit.included):,}, omits {len(fit.omitted):,} (text {len(fit.text):,} characters)",
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
    row = Row(n, "search_skills (FTS5 BM25, 10 results)", t, 1, "call")
    rows.append(_target(row, target, 0.05, t))
    rows.extend(_bm25s_rows(n, infos, repeats))

    def dispatch_search() -> None:
        for q in CONTEXT_QUERIES:
            session.handle_tool_call("search_skills", {"query": q, "limit": None})

    t = _median_time(dispatch_search, repeats) / len(CONTEXT_QUERIES)
    rows.append(_target(Row(n, "handle_tool_call: search_skills", t, 1, "call"), target, 0.05, t))
    names = [i.name for i in infos[:: max(1, n // 50)]]

    def dispatch_activate() -> None:
        fresh = SkillSession(skills)
        for name in names:
            fresh.handle_tool_call("activate_skill", {"name": name})

    t = _median_time(dispatch_activate, max(1, repeats // 2)) / len(names)
    rows.append(_target(Row(n, "handle_tool_call: activate_skill", t, 1, "call"), target, 0.05, t))
    for row in rows:
        row.repeats = repeats
    return rows


# --- subprocess measurements -------------------------------------------------------------------
# --- subprocess measurements -------------------------------------------------------------------


def bench_processes(
    tree: TreeInfo, samples: int, index_dir: Path, *, with_index: bool = True
) -> list[Row]:
    """First call, whole CLI process and warm index in fresh interpreters (SPEC §26)."""
    n = tree.n
    rows: list[Row] = []
    fc = processes.first_call(tree.root, samples)
    rows.append(
        Row(
            n, "process: floor's first call (after import yaml)", fc["floor_first"], n, "skill", 1.0
        )
    )
    rows.append(
        _target(
            Row(
                n,
                "process: first create_agent_skills (its imports included)",
                fc["first"],
                n,
                "skill",
                fc["first"] / fc["floor_first"],
            ),
            "≤ 1.25× floor's first",
            1.25,
        )
    )
    rows.append(
        Row(
            n,
            "process: second create_agent_skills (× the floor's second)",
            fc["warm"],
            n,
            "skill",
            fc["warm"] / fc["floor_warm"],
        )
    )
    cli = processes.cli_process(tree.root, samples)
    rows.append(Row(n, "process: floor.py ROOT (whole process)", cli["floor"], n, "skill", 1.0))
    row = Row(
        n,
        "process: agent-skills list --json (whole process)",
        cli["cli"],
        n,
        "skill",
        cli["cli"] / cli["floor"],
    )
    rows.append(_target(row, "≤ 1.5× floor's process", 1.5) if n == 1000 else row)
    if with_index:
        index = index_dir / f"cli-{tree.kind}-{n}.idx"
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
    idx = processes.warm_index(tree.root, index_dir / f"first-{tree.kind}-{n}.idx", samples)
    rows.append(Row(n, "process: import yaml + floor's first call", idx["floor"], n, "skill", 1.0))
    row = Row(
        n,
        "process: import agent_skills + first call, warm index",
        idx["index"],
        n,
        "skill",
        idx["index"] / idx["floor"],
    )
    rows.append(_target(row, "≤ 0.25× floor (import included)", 0.25) if n >= 10_000 else row)
    for row in rows:
        row.repeats = samples
    return rows


def bench_original(
    tree: TreeInfo, built: original.Original, samples: int, rounds: int, per_round: int
) -> list[Row]:
    """The original library's whole process and load loop against ours (SPEC §26)."""
    n = tree.n
    listed = original.count_listed(built, tree.root)
    if listed != n:
        print(
            f"{tree.kind} N = {n:,}: the original lists {listed:,} of the {n:,} skills "
            "(it rejects the others' frontmatter)",
            file=sys.stderr,
            flush=True,
        )
    rows: list[Row] = []
    vs = processes.versus(tree.root, original.list_command(built, tree.root), samples)
    rows.append(
        Row(n, f"original {built.version}: whole process (list)", vs["other"], n, "skill", 1.0)
    )
    rows.append(
        _target(
            Row(
                n,
                "agent-skills list --json (× the original's whole process)",
                vs["cli"],
                n,
                "skill",
                vs["cli"] / vs["other"],
            ),
            "≥ 2× faster than the original (≤ 0.5×)",
            0.5,
        )
    )
    for row in rows:
        row.repeats = samples
    # The load loops, round by round: one Node process (an untimed loop, then ``per_round``
    # timed), then as many of ours in this process.
    skills = agent_skills.create_agent_skills([tree.root])
    names = [s.name for s in skills.list_skills()]

    def load_all() -> None:
        for nm in names:
            skills.load_skill(nm)

    load_all()
    theirs: list[float] = []
    ours: list[float] = []
    for _ in range(rounds):
        theirs.extend(original.load_loop(built, tree.root, per_round)["times"])  # type: ignore[arg-type]
        for _ in range(per_round):
            gc.collect()
            start = time.perf_counter()
            load_all()
            ours.append(time.perf_counter() - start)
    t_theirs, t_ours = statistics.median(theirs), statistics.median(ours)
    rows.append(
        Row(
            n,
            f"original {built.version}: loadSkill of every skill",
            t_theirs,
            listed,
            "skill",
            1.0,
            repeats=len(theirs),
        )
    )
    rows.append(
        _target(
            Row(
                n,
                "load_skill of every skill (× the original's, per skill)",
                t_ours,
                n,
                "skill",
                (t_ours / n) / (t_theirs / listed),
                repeats=len(ours),
            ),
            "faster than the original (< 1×)",
            1.0,
        )
    )
    return rows


def bench_linear(repeats: int) -> list[Row]:
    """Time per byte at 1 MiB against 64 KiB (256 against 16 KiB for ``validate_skill``,
    within the YAML node budget) on hostile shapes of text (SPEC §20.7)."""
    rows: list[Row] = []
    for r in linear.measure(repeats):
        row = Row(
            0,
            f"linear, {r['shape']}: {r['large_bytes'] // 1024} KiB in "
            f"({r['small_bytes'] // 1024} KiB: {_fmt_time(r['small'])})",
            r["large"],
            1,
            "call",
            r["ratio"],
            repeats=repeats,
        )
        rows.append(_target(row, "≤ 2× the time per byte at 64 KiB", 2.0))
        if r["shape"] == "parse: body after a small frontmatter":
            row = Row(
                0,
                "parse_skill of 1 MiB, small frontmatter, the rest body",
                r["large"],
                1,
                "call",
                repeats=repeats,
            )
            rows.append(_target(row, "< 50 ms", 50 * MS, r["large"]))
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
            repeats=samples,
        ),
        _target(
            Row(
                0,
                "agent-skills serve (examples): start to initialize",
                out["serve"],
                1,
                "call",
                ratio,
                repeats=samples,
            ),
            "≤ 1.25× minimal",
            1.25,
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
        _target(Row(0, "import agent_skills", t, 1, "call", repeats=repeats), "< 150 ms", 0.15, t),
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
    retained = Row(
        tree.n, "memory: retained beyond body text, per skill", beyond, 1, "skill", repeats=1
    )
    if tree.n >= 1000:
        _target(retained, "< 2 KiB/skill", 2048, beyond, "B")
    return [
        retained,
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


def _load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def _status(r: Row) -> str:
    return "" if r.ok is None else ("ok" if r.ok else "MISSED")


def _fmt_value(value: float, unit: str) -> str:
    if unit == "×":
        return f"{value:.2f}×"
    if unit == "B":
        return f"{value / 1024:,.2f} KiB"
    return _fmt_time(value)


def _margin(r: Row) -> str:
    margin = r.margin
    return "" if margin is None else f"{margin:.2f}"


def _tree_name(tree: str) -> str:
    return tree or "no tree"


def render(rows: list[Row], trees: list[TreeInfo]) -> str:
    """The results as markdown tables: per tree, memory, no tree, targets, misses, cost per N."""
    lines: list[str] = []
    for kind in TREES:
        timing = [r for r in rows if r.tree == kind and r.n and not r.label.startswith("memory")]
        if not timing:
            continue
        lines.append(f"### {kind} tree")
        lines.append("")
        lines.append("| N | measurement | median | per skill / call | ratio | target | margin | |")
        lines.append("|---:|---|---:|---:|---:|---|---:|---|")
        for r in timing:
            ratio = f"{r.ratio:.2f}" if r.ratio is not None else "—"
            lines.append(
                f"| {r.n:,} | {r.label} | {_fmt_time(r.median)} | "
                f"{_fmt_time(r.median / r.items)}/{r.per} | {ratio} | {r.target} | "
                f"{_margin(r)} | {_status(r)} |"
            )
        lines.append("")
    memory = [r for r in rows if r.label.startswith("memory")]
    if memory:
        lines.append("| tree | N | memory | value | target | margin | |")
        lines.append("|---|---:|---|---:|---|---:|---|")
        for r in memory:
            value = (
                f"{r.median / 1024:,.2f} KiB"
                if "per skill" in r.label or "beyond" in r.label
                else (f"{r.median / 2**20:,.1f} MiB")
            )
            lines.append(
                f"| {r.tree} | {r.n:,} | {r.label.split(': ', 1)[1]} | {value} | {r.target} | "
                f"{_margin(r)} | {_status(r)} |"
            )
        lines.append("")
    lines.append("| measurement | median | × its reference | target | margin | |")
    lines.append("|---|---:|---:|---|---:|---|")
    for r in rows:
        if r.n == 0:
            ratio = f"{r.ratio:.2f}" if r.ratio is not None else "—"
            lines.append(
                f"| {r.label} (median of {r.repeats}) | {_fmt_time(r.median)} | {ratio} | "
                f"{r.target} | {_margin(r)} | {_status(r)} |"
            )
    lines.append("")
    targets = [r for r in rows if r.limit is not None and r.measured is not None]
    lines.append("Targets, each with its margin (limit over measured: at least 1 when met):")
    lines.append("")
    lines.append("| tree | N | measurement | target | measured | margin | |")
    lines.append("|---|---:|---|---|---:|---:|---|")
    for r in targets:
        assert r.measured is not None
        size = f"{r.n:,}" if r.n else "—"
        lines.append(
            f"| {_tree_name(r.tree)} | {size} | {r.label} | {r.target} | "
            f"{_fmt_value(r.measured, r.unit)} | {_margin(r)} | {_status(r)} |"
        )
    lines.append("")
    misses = [r for r in rows if r.ok is False]
    if misses:
        lines.append(f"Missed: {len(misses)} of {len(targets)} targets.")
        lines.append("")
        lines.append("| tree | N | measurement | target | measured | margin |")
        lines.append("|---|---:|---|---|---:|---:|")
        for r in misses:
            size = f"{r.n:,}" if r.n else "—"
            measured = "—" if r.measured is None else _fmt_value(r.measured, r.unit)
            lines.append(
                f"| {_tree_name(r.tree)} | {size} | {r.label} | {r.target} | {measured} | "
                f"{_margin(r)} |"
            )
    else:
        lines.append(f"Missed: none of {len(targets)} targets.")
    lines.append("")
    for kind in TREES:
        ns = [t.n for t in trees if t.kind == kind]
        timing = [r for r in rows if r.tree == kind and r.n and not r.label.startswith("memory")]
        if not ns or not timing:
            continue
        lines.append(
            f"Cost per skill as N grows, {kind} tree (µs per skill; linear growth keeps a row "
            "flat):"
        )
        lines.append("")
        lines.append("| measurement | " + " | ".join(f"N = {n:,}" for n in ns) + " |")
        lines.append("|---|" + "---:|" * len(ns))
        labels = [r.label for r in timing if r.n == ns[0] and r.per == "skill"]
        for label in labels:
            cells = []
            for n in ns:
                match = [r for r in timing if r.n == n and r.label == label]
                cells.append(f"{match[0].median / match[0].items / US:.1f}" if match else "—")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(
        "Trees: "
        + "; ".join(
            f"{t.kind} N = {t.n:,}: {t.manifest_bytes / t.n / 1024:.1f} KiB per SKILL.md, "
            f"median {t.fm_lines_median:g} frontmatter lines, "
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
    parser.add_argument(
        "--trees", nargs="+", choices=TREES, default=list(TREES), help="which trees (default both)"
    )
    parser.add_argument("--repeats", type=int, help="repeats per measurement")
    parser.add_argument("--no-peer", action="store_true", help="skip skills-ref")
    parser.add_argument(
        "--no-original", action="store_true", help="skip the original TypeScript library"
    )
    parser.add_argument("--fresh", action="store_true", help="regenerate the trees")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--child-memory", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_memory:
        child_memory(args.child_memory)
        return 0

    started = time.time()
    sizes = args.sizes or ([100] if args.quick else [100, 1000, 10_000])
    machine = _machine()
    load_before = _load()
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()), flush=True)
    print(f"load average at the start: {load_before}", flush=True)
    if _peer() is None and not args.no_peer:
        print("peer skills-ref is not installed: its rows are left out", flush=True)
    built: original.Original | None = None
    if args.no_original:
        print("original: left out (--no-original)", flush=True)
    else:
        found = original.locate(allow_build=not args.quick, allow_clone=not args.quick)
        if isinstance(found, str):
            print(f"original: its rows are left out: {found}", flush=True)
        else:
            built = found
            print(f"original: @clarvis/agent-skills {built.version} in {built.home}", flush=True)
    shapes, shapes_from = corpus_shape.load()
    print(
        f"realistic tree: shapes of {len(shapes)} skills from {shapes_from} "
        f"(digest {corpus_shape.digest(shapes)})",
        flush=True,
    )
    committed = json.loads(corpus_shape.SUMMARY.read_text(encoding="utf-8"))["skills"]
    if corpus_shape.digest(committed) != corpus_shape.digest(shapes):
        print(
            f"{corpus_shape.SUMMARY.name} differs from the corpus: "
            "python benchmarks/corpus_shape.py --write refreshes it",
            flush=True,
        )
    rows: list[Row] = []
    trees: list[TreeInfo] = []
    # Memory first: on Linux a child starts with its parent's peak RSS (ru_maxrss survives fork and
    # exec), so the children must run while this process is still small.
    memory: dict[tuple[str, int], list[Row]] = {}
    for kind in args.trees:
        for n in sizes:
            tree = cached_tree(n, fresh=args.fresh, kind=kind, shapes=shapes)
            trees.append(tree)
            memory[kind, n] = bench_memory(tree)
    for tree in trees:
        n = tree.n
        start = time.perf_counter()
        repeats = args.repeats or (5 if args.quick else {100: 15, 1000: 9}.get(n, 7))
        peer_repeats = 0 if args.no_peer else (3 if n <= 1000 and not args.quick else 1)
        tree_rows = bench_tree(tree, repeats, peer_repeats)
        # Fresh interpreters vary most (start-up on a shared machine): more samples, same medians.
        samples = 3 if args.quick else {100: 15, 1000: 11}.get(n, 7)
        with tempfile.TemporaryDirectory(prefix="agent-skills-cli-index-") as tmp:
            tree_rows.extend(bench_processes(tree, samples, Path(tmp), with_index=not args.quick))
        if built is not None:
            rounds, per_round = (3, 3) if args.quick else {100: (7, 5), 1000: (5, 3)}.get(n, (3, 2))
            tree_rows.extend(bench_original(tree, built, samples, rounds, per_round))
        tree_rows.extend(bench_context(tree, repeats))
        tree_rows.extend(memory[tree.kind, n])
        for row in tree_rows:
            row.tree = tree.kind
        rows.extend(tree_rows)
        print(
            f"{tree.kind} N = {n:,} done in {time.perf_counter() - start:.1f} s "
            f"(load average {_load()})",
            file=sys.stderr,
            flush=True,
        )
    small = cached_tree(100, shapes=shapes, kind=args.trees[0]).root
    rows.extend(bench_import(5 if args.quick else 11, small))
    rows.extend(bench_serve(2 if args.quick else 7))
    rows.extend(bench_linear(1 if args.quick else 5))
    load_after = _load()
    print()
    print(render(rows, trees))
    print()
    print(
        f"Load average at the start {load_before}, at the end {load_after}; "
        f"{(time.time() - started) / 60:.1f} minutes."
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "machine": machine,
                    "load_average": {"start": load_before, "end": load_after},
                    "shapes": {"source": shapes_from, "digest": corpus_shape.digest(shapes)},
                    "original": None if built is None else built.version,
                    "rows": [asdict(r) | {"margin": r.margin} for r in rows],
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
