"""The original TypeScript library ``@clarvis/agent-skills``, measured on the same trees (SPEC §26).

It is not published on npm, so the benchmark uses a built copy in its cache:
``$AGENT_SKILLS_ORIGINAL``, else ``~/.cache/agent-skills-bench/original``.

* Built (``dist/index.js`` there): used as it is.
* Sources there but not built (``package.json``): ``npm install`` (again with
  ``--legacy-peer-deps`` if it fails), then ``npm run build``; if that fails, ``npx tsc`` with
  the project's ``tsconfig.json``, then with plain options.
* Nothing there: ``git clone`` of the public repository into the cache, then the build.

When none of that works (no Node, no network, a failed build), :func:`locate` says why and the
rows are left out. ``--quick`` never builds or clones (``allow_build=False``).

Two measurements, each against ours:

* **whole process**: ``node list.mjs ROOT`` (``createAgentSkills`` with the root, ``listSkills``,
  the list as JSON on stdout) against ``agent-skills list --json``, fresh processes interleaved;
* **load loop**: ``loadSkill`` for every name (body and resources), timed inside Node after one
  untimed loop, against ``load_skill`` for every name timed in this process, round by round.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = "https://github.com/getclarvis/agent-skills.git"
_TIMEOUT = 900  # seconds for one install or build step

#: The whole process: discovery, the list, JSON on stdout.
_LIST_SCRIPT = """\
import { createAgentSkills } from %(entry)s;
const skills = createAgentSkills({ roots: [{ path: process.argv[2] }] });
process.stdout.write(JSON.stringify(skills.listSkills(), null, 2) + "\\n");
"""

#: The load loop: after discovery and one untimed loop, each timed loop's milliseconds as JSON.
_LOAD_SCRIPT = """\
import { createAgentSkills } from %(entry)s;
const skills = createAgentSkills({ roots: [{ path: process.argv[2] }] });
const names = skills.listSkills().map((s) => s.name);
const repeats = Number(process.argv[3]);
let resources = 0;
for (const name of names) resources += skills.loadSkill(name).resources.length;
const times = [];
for (let r = 0; r < repeats; r++) {
  const start = performance.now();
  for (const name of names) skills.loadSkill(name);
  times.push(performance.now() - start);
}
process.stdout.write(JSON.stringify({ skills: names.length, resources, times }) + "\\n");
"""


@dataclass(frozen=True)
class Original:
    """A built copy of the original library.

    Attributes:
        home: Its directory (holding ``package.json`` and ``dist/``).
        entry: ``dist/index.js``.
        version: ``version`` from its ``package.json``.
        node: The ``node`` executable.
    """

    home: Path
    entry: Path
    version: str
    node: str


def cache_dir() -> Path:
    """``$AGENT_SKILLS_ORIGINAL``, else ``~/.cache/agent-skills-bench/original``."""
    env = os.environ.get("AGENT_SKILLS_ORIGINAL")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "agent-skills-bench" / "original"


def _run(cmd: list[str], cwd: Path, timeout: float = _TIMEOUT) -> str | None:
    """Run a build step; return None on success, else a one-line reason."""
    # Never wait for a password: a repository that asks for one is not the public one.
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, env=env
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{' '.join(cmd[:3])}: {exc}"
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or [""]
        said = next((x for x in lines if "error" in x.lower()), lines[-1]).strip()
        return f"{' '.join(cmd[:3])} exited {proc.returncode}: {said[:200]}"
    return None


def _build(home: Path) -> str | None:
    """Install and build the sources in ``home``; None when ``dist/index.js`` exists after."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    reason = _run([npm, "install", "--no-audit", "--no-fund"], home)
    if reason is not None:  # e.g. a development tool's peer range behind the compiler's version
        again = _run([npm, "install", "--no-audit", "--no-fund", "--legacy-peer-deps"], home)
        if again is not None:
            return f"{reason}; {again}"
    attempts: list[list[str]] = []
    scripts = json.loads((home / "package.json").read_text(encoding="utf-8")).get("scripts", {})
    if "build" in scripts:
        attempts.append([npm, "run", "build"])
    npx = shutil.which("npx") or npm
    if (home / "tsconfig.json").is_file():
        attempts.append([npx, "tsc", "-p", "tsconfig.json", "--outDir", "dist"])
    attempts.append(
        [
            npx,
            "tsc",
            "--outDir",
            "dist",
            "--rootDir",
            "src",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            "--target",
            "es2022",
            "--skipLibCheck",
            "--declaration",
            *sorted(str(p.relative_to(home)) for p in (home / "src").rglob("*.ts")),
        ]
    )
    reasons = []
    for cmd in attempts:
        reason = _run(cmd, home)
        if (home / "dist" / "index.js").is_file():
            return None
        reasons.append(reason or f"{' '.join(cmd[:3])} wrote no dist/index.js")
    return "; ".join(reasons)


def locate(*, allow_build: bool = True, allow_clone: bool = True) -> Original | str:
    """The built original, building or cloning it when allowed.

    Args:
        allow_build: Install and build sources found in the cache.
        allow_clone: Clone the public repository into an empty cache (needs ``allow_build``).

    Returns:
        The :class:`Original`, or why it cannot be measured here.
    """
    node = shutil.which("node")
    if node is None:
        return "Node is not installed"
    home = cache_dir()
    entry = home / "dist" / "index.js"
    if not entry.is_file():
        if not (home / "package.json").is_file():
            if not (allow_build and allow_clone):
                return f"no built copy in {home} (--quick neither clones nor builds)"
            git = shutil.which("git")
            if git is None:
                return f"no copy in {home} and git is not installed"
            if home.exists() and any(home.iterdir()):
                return f"{home} holds no package.json: not a copy of the original"
            home.parent.mkdir(parents=True, exist_ok=True)
            reason = _run(
                [git, "clone", "--depth", "1", REPOSITORY, str(home)], home.parent, timeout=180
            )
            if reason is not None:
                return f"no copy in {home}, and {reason}"
        if not allow_build:
            return f"{home} is not built (--quick does not build)"
        reason = _build(home)
        if reason is not None:
            return f"building {home} failed: {reason}"
    try:
        version = json.loads((home / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        version = "?"
    return Original(home, entry, str(version), node)


def _script(original: Original, template: str, name: str) -> Path:
    """Write a Node script next to the built copy (so its imports resolve there)."""
    path = original.home / f".bench-{name}.mjs"
    text = template % {"entry": json.dumps(original.entry.as_uri())}
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return path


def list_command(original: Original, root: Path) -> list[str]:
    """The original's whole process on ``root``: discovery, the list, JSON on stdout."""
    return [original.node, str(_script(original, _LIST_SCRIPT, "list")), str(root)]


def count_listed(original: Original, root: Path) -> int:
    """How many skills the original lists on ``root`` (it rejects some that we load)."""
    proc = subprocess.run(
        list_command(original, root),
        capture_output=True,
        text=True,
        check=True,
        timeout=_TIMEOUT,
    )
    return len(json.loads(proc.stdout))


def load_loop(original: Original, root: Path, repeats: int) -> dict[str, object]:
    """Run the original's load loop in one fresh Node process.

    Returns:
        ``{"skills": int, "resources": int, "times": [seconds, ...]}``.
    """
    cmd = [
        original.node,
        str(_script(original, _LOAD_SCRIPT, "load")),
        str(root),
        str(repeats),
    ]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, check=True, timeout=_TIMEOUT, cwd=tempfile.gettempdir()
    )
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["times"] = [t / 1000 for t in out["times"]]
    return dict(out)
