"""The shape of the package, read from its source (docs/architecture.md, STYLE "the shape").

Each module of ``src/agent_skills`` has a place in one order: the pipeline from the vocabulary
to the wings. A module imports only modules before it, whether the import runs at import time,
inside a function or only for type checking. A private name (``_x``) is used only in the module
that defines it, and the manifest's name is written in one module, its home. The consumers ask
the facade, never the snapshot it holds (``AgentSkills.registry`` is for inspection).

Read with :mod:`ast`: nothing is imported, so the test also sees imports that a run never takes.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "agent_skills"

#: Every module in pipeline order: each may import only the modules listed before it.
ORDER = (
    # vocabulary: no I/O, no other stage
    "_version",
    "_errors",
    "_args",
    "_terminal",
    "_diagnostics",
    "_digest",
    "_collector",
    "_frozen",
    "_fs",
    # configuration
    "_config",
    "_presets",
    # confinement: the one decision (it holds no data model)
    "_confine",
    # the data model and the skill layout rules
    "_model",
    # parsing (pure)
    "_schema",
    "_frontmatter",
    "_yaml12",
    "_manifest",
    # the filesystem
    "_jsonfile",
    "_resources",
    "_index_format",
    "_index",
    "_scan",
    "_walk",
    "_members",
    "_archive",
    # rules
    "validate",
    "_trust",
    # build and hold
    "_registry",
    "_discover",
    "_grant",
    "_watch",
    "_core",
    # consumers
    "catalog",
    "_search",
    "_placeholders",
    "_access",
    "_tools",
    "_sandbox",
    "grants",
    "agent",
    # wings
    "packages._sources",
    "packages._pack",
    "packages._lock",
    "packages._install",
    "packages",
    "mcp._publish",
    "mcp._stdio",
    "mcp._http",
    "mcp._server",
    "cli._app",
    "cli._open",
    "cli._listing",
    "cli._fast",
    "cli._group",
    "cli._table",
    "cli._roots",
    "cli.discover",
    "cli.where",
    "cli.validate",
    "cli.trust",
    "cli.grants",
    "cli.packages",
    "cli",
    # the MCP server run as a program hands over to the command line, whose serve command hands
    # the skills to the server
    "mcp.__main__",
    "mcp",
    "cli.serve",
    # the faces
    "__init__",
    "__main__",
)

#: The one module that writes the manifest's name (the skill layout rules live there).
MANIFEST_HOME = "_model"

#: Modules that serve skills to an agent: they ask the facade, never its snapshot.
CONSUMERS = ("_access", "_tools", "agent", "mcp", "cli")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _package_of(name: str, path: Path) -> list[str]:
    """The package a relative import in ``name`` starts from, as dotted parts."""
    parts = [] if name == "__init__" else name.split(".")
    return parts if path.name == "__init__.py" else parts[:-1]


@dataclass(frozen=True)
class Edge:
    """One import of a module of the package by another, where it is written."""

    source: str
    target: str
    line: int

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} (line {self.line})"


def _owner(target: str, modules: dict[str, Path]) -> str | None:
    """The module ``target`` (a dotted name inside the package) is, or is defined in."""
    while target not in modules:
        if "." not in target:
            return None
        target = target.rsplit(".", 1)[0]
    return target


def _package_module(parts: list[str]) -> str:
    """The module of the package ``parts`` (its ``__init__``)."""
    return ".".join(parts) or "__init__"


def _from_base(name: str, path: Path, node: ast.ImportFrom) -> list[str] | None:
    """The dotted parts (inside the package) a ``from X import ...`` in ``name`` takes names
    from, or ``None`` for an import from outside the package."""
    if node.level:
        package = _package_of(name, path)
        base = package[: len(package) - (node.level - 1)]
        return [*base, *node.module.split(".")] if node.module else base
    if node.module is not None and node.module.split(".")[0] == "agent_skills":
        return node.module.split(".")[1:]
    return None


def _from_targets(
    name: str, path: Path, node: ast.ImportFrom, modules: dict[str, Path]
) -> list[tuple[str, str, bool]]:
    """``(alias, module, is the module itself)`` for each name of a ``from`` import of the
    package: ``from . import _scan`` binds a module, ``from ._scan import x`` a name of it."""
    base = _from_base(name, path, node)
    if base is None:
        return []
    out = []
    for alias in node.names:
        full = ".".join([*base, alias.name])
        if full in modules:
            out.append((alias.name, full, True))
        else:
            owner = _owner(".".join(base), modules) if base else None
            out.append((alias.name, owner or _package_module(base), False))
    return out


def _imported(name: str, path: Path, node: ast.AST, modules: dict[str, Path]) -> list[str]:
    """The modules of the package one import statement (or ``import_module`` call) names."""
    if isinstance(node, ast.ImportFrom):
        return [module for _, module, _ in _from_targets(name, path, node, modules)]
    if isinstance(node, ast.Import):
        return [
            _owner(a.name.split(".", 1)[1], modules) or "__init__"
            for a in node.names
            if a.name.startswith("agent_skills.")
        ]
    if (
        isinstance(node, ast.Call)
        and ast.unparse(node.func).endswith("import_module")
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and node.args[0].value.startswith("agent_skills.")
    ):
        return [_owner(node.args[0].value.split(".", 1)[1], modules) or "__init__"]
    return []


def _edges(name: str, path: Path, modules: dict[str, Path]) -> Iterator[Edge]:
    """Every import of another module of the package in ``name``, deferred and
    ``TYPE_CHECKING`` ones included, ``importlib.import_module("agent_skills.x")`` too."""
    for node in ast.walk(_tree(path)):
        for target in _imported(name, path, node, modules):
            owner = _owner(target, modules)
            if owner is not None and owner != name:
                yield Edge(name, owner, getattr(node, "lineno", 0))


def _all_edges() -> list[Edge]:
    modules = _modules()
    return [edge for name, path in modules.items() for edge in _edges(name, path, modules)]


def _rank(name: str) -> int:
    return ORDER.index(name)


def _backward() -> set[tuple[str, str]]:
    return {
        (e.source, e.target)
        for e in _all_edges()
        if e.source in ORDER and e.target in ORDER and _rank(e.target) >= _rank(e.source)
    }


def _private_uses() -> set[tuple[str, str, str]]:
    """``(module, defining module, name)`` for every private name taken from another module:
    ``from .x import _name`` and ``x._name`` on an imported module of the package."""
    modules = _modules()
    found: set[tuple[str, str, str]] = set()
    for name, path in modules.items():
        tree = _tree(path)
        bound: dict[str, str] = {}  # local name -> module of the package it is bound to
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            targets = _from_targets(name, path, node, modules)
            if not targets:
                continue
            for (alias, module, whole), item in zip(targets, node.names, strict=True):
                if whole:
                    bound[item.asname or alias] = module
                elif _is_private(alias) and module != name:
                    found.add((name, module, alias))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and _is_private(node.attr)
                and bound[node.value.id] != name
            ):
                found.add((name, bound[node.value.id], node.attr))
    return found


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _manifest_literals() -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    for name, path in _modules().items():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Constant) and node.value == "SKILL.md":
                found.add((name, node.lineno))
    return found


def _registry_uses() -> set[tuple[str, int]]:
    """``<expr>.registry`` read in a consumer (``AgentSkills.registry``)."""
    found: set[tuple[str, int]] = set()
    for name, path in _modules().items():
        if name.split(".")[0] not in CONSUMERS:
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Attribute) and node.attr == "registry":
                found.add((name, node.lineno))
    return found


# -- the shape ---------------------------------------------------------------------------------


def test_every_module_has_one_place_in_the_order() -> None:
    modules = sorted(_modules())
    assert len(set(ORDER)) == len(ORDER)
    assert sorted(ORDER) == modules


def test_no_module_imports_a_later_one() -> None:
    assert _backward() == set()


def test_no_private_name_is_taken_from_another_module() -> None:
    assert _private_uses() == set()


def test_the_manifest_name_is_written_only_in_its_home() -> None:
    assert {name for name, _ in _manifest_literals() if name != MANIFEST_HOME} == set()


def test_consumers_do_not_take_the_snapshot_apart() -> None:
    assert _registry_uses() == set()


def test_the_reader_sees_every_kind_of_import(tmp_path: Path) -> None:
    # The reader itself, on a small package: a deferred import, a TYPE_CHECKING one, an
    # import_module call and a relative import from a subpackage are all edges.
    pkg = tmp_path / "agent_skills"
    (pkg / "wing").mkdir(parents=True)
    (pkg / "__init__.py").write_text("__version__ = '0'\n")
    (pkg / "_a.py").write_text("X = 1\n_Y = 2\n")
    (pkg / "_b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ._a import X\n"
        "def f():\n    from . import __version__\n    import importlib\n"
        "    return importlib.import_module('agent_skills.wing.c')\n"
    )
    (pkg / "wing" / "__init__.py").write_text("from .._a import _Y\n")
    (pkg / "wing" / "c.py").write_text("from .. import _b\nZ = _b.f\n")
    modules = {_module_name_in(pkg, p): p for p in sorted(pkg.rglob("*.py"))}
    edges = {
        (e.source, e.target)
        for name, path in modules.items()
        for e in _edges_in(pkg, name, path, modules)
    }
    assert edges == {
        ("_b", "_a"),
        ("_b", "__init__"),
        ("_b", "wing.c"),
        ("wing", "_a"),
        ("wing.c", "_b"),
    }


def _module_name_in(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _edges_in(root: Path, name: str, path: Path, modules: dict[str, Path]) -> Iterator[Edge]:
    return _edges(name, path, modules)
