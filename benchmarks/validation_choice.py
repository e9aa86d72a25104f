"""How discovery validates frontmatter: the measurement behind the choice (SPEC §26).

Candidates, each given the parsed frontmatter of the benchmark tree's manifests:

* **plain checks**: ``agent_skills._schema.check_frontmatter_values`` (what discovery uses);
* **pydantic model**: ``SkillFrontmatter.model_validate`` (what 0.1 used on every manifest);
* **pydantic-core**: the model's compiled ``SchemaValidator`` called directly;
* **msgspec**: ``msgspec.convert`` into an equivalent ``Struct`` (when msgspec is installed; it is
  not a dependency).

For each: the cost of the first use in a fresh interpreter (import and schema build, what the
first discovery call of a process pays) and the time per manifest once warm. Usage::

    python benchmarks/validation_choice.py [N]      # N manifests of the benchmark tree (1000)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from processes import child_env
from skilltree import cached_tree

from agent_skills._manifest import load_frontmatter_yaml, split_frontmatter

try:
    import msgspec
except ImportError:  # not a dependency: its row is left out
    msgspec = None

_FIRST_USE = {
    "plain checks": "from agent_skills._schema import check_frontmatter_values as f\n"
    "f({'name': 'a', 'description': 'b'}, strict=False)",
    "pydantic model": "from agent_skills._frontmatter import SkillFrontmatter as M\n"
    "M.model_validate({'name': 'a', 'description': 'b'}, by_alias=True, by_name=False)",
    "pydantic-core": "from agent_skills._frontmatter import SkillFrontmatter as M\n"
    "M.__pydantic_validator__.validate_python({'name': 'a', 'description': 'b'})",
    "msgspec": "import msgspec\n"
    "class F(msgspec.Struct, forbid_unknown_fields=False):\n"
    "    name: str\n    description: str\n"
    "msgspec.convert({'name': 'a', 'description': 'b'}, F)",
}


def _first_use(code: str, samples: int = 5) -> float | None:
    """Median seconds of ``code`` in a fresh interpreter that imported ``agent_skills``."""
    script = (
        "import time, agent_skills\nt = time.perf_counter()\n"
        + code
        + "\nprint(time.perf_counter() - t)\n"
    )
    times = []
    for _ in range(samples + 1):
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=child_env()
        )
        if out.returncode != 0:
            return None
        times.append(float(out.stdout.split()[-1]))
    return statistics.median(times[1:])


def _frontmatters(n: int) -> list[dict[str, Any]]:
    root = cached_tree(max(n, 100)).root
    out = []
    for d in sorted(root.iterdir())[:n]:
        text = (d / "SKILL.md").read_text()
        yaml_text, _body, first = split_frontmatter(text)
        assert yaml_text is not None
        out.append(load_frontmatter_yaml(yaml_text, first_line=first))
    return out


def _msgspec_validator() -> Any | None:
    if msgspec is None:
        return None

    class Frontmatter(msgspec.Struct, forbid_unknown_fields=False):
        name: str
        description: str
        version: str | msgspec.UnsetType = msgspec.UNSET
        license: str | msgspec.UnsetType = msgspec.UNSET
        compatibility: str | msgspec.UnsetType = msgspec.UNSET
        argument_hint: str | msgspec.UnsetType = msgspec.field(
            default=msgspec.UNSET, name="argument-hint"
        )
        allowed_tools: str | list[str] | msgspec.UnsetType = msgspec.field(
            default=msgspec.UNSET, name="allowed-tools"
        )
        tools: str | list[str] | msgspec.UnsetType = msgspec.UNSET
        user_invocable: bool | msgspec.UnsetType = msgspec.field(
            default=msgspec.UNSET, name="user-invocable"
        )
        disable_model_invocation: bool | msgspec.UnsetType = msgspec.field(
            default=msgspec.UNSET, name="disable-model-invocation"
        )
        metadata: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET

    return lambda data: msgspec.convert(data, Frontmatter, strict=True)


def main(argv: list[str]) -> int:
    """Print the first-use cost and the per-manifest time of each candidate."""
    n = int(argv[0]) if argv else 1000
    data = _frontmatters(n)
    from agent_skills._frontmatter import SkillFrontmatter
    from agent_skills._schema import check_frontmatter_values

    core = SkillFrontmatter.__pydantic_validator__
    candidates: dict[str, Any] = {
        "plain checks": lambda d: check_frontmatter_values(d, strict=False),
        "pydantic model": lambda d: SkillFrontmatter.model_validate(
            d, by_alias=True, by_name=False
        ),
        "pydantic-core": lambda d: core.validate_python(d, by_alias=True, by_name=False),
    }
    ms = _msgspec_validator()
    if ms is not None:
        candidates["msgspec"] = ms
    times: dict[str, list[float]] = {k: [] for k in candidates}
    for _ in range(7):  # interleaved repeats
        for name, fn in candidates.items():
            start = time.perf_counter()
            for d in data:
                fn(d)
            times[name].append(time.perf_counter() - start)
    print(f"| validator | first use in a fresh process | per manifest (N = {n}) |")
    print("|---|---:|---:|")
    for name in candidates:
        first = _first_use(_FIRST_USE[name])
        per = statistics.median(times[name]) / n
        first_text = f"{first * 1e3:.1f} ms" if first is not None else "—"
        print(f"| {name} | {first_text} | {per * 1e6:.2f} µs |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
