"""Configuration: roots, home and workspace resolution (SPEC §2).

Pure path arithmetic plus one check (the workspace must exist when given). The user's home and the
working directory are the only ambient inputs, and both can be passed explicitly; no environment
variable is read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias, cast, runtime_checkable

from ._args import coerce_bool, coerce_int, coerce_path, coerce_str
from ._errors import SkillError, StartupError

__all__ = [
    "DEFAULT_FOLLOW_SYMLINKS",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_MANIFEST_BYTES",
    "DEFAULT_MAX_RESOURCES",
    "DEFAULT_MAX_RESOURCE_BYTES",
    "DEFAULT_STRICT",
    "MAX_SEARCH_DEPTH",
    "ArchiveKind",
    "RootInput",
    "Scope",
    "SkillConfig",
    "SkillRoot",
    "TrustPolicy",
    "archive_kind",
    "expand_home",
    "is_archive_root",
    "is_path_entry",
    "resolve_against",
    "resolve_config",
    "resolve_workspace_dir",
]

DEFAULT_STRICT = False
DEFAULT_FOLLOW_SYMLINKS = True
DEFAULT_MAX_RESOURCES = 5000
#: The default ``max_depth``: the immediate children of each root (SPEC §4, §21.4).
DEFAULT_MAX_DEPTH = 1
#: The largest ``max_depth`` (SPEC §21.4).
MAX_SEARCH_DEPTH = 6
DEFAULT_MAX_MANIFEST_BYTES = 1_048_576
"""Largest ``SKILL.md`` read at discovery, in bytes (1 MiB; SPEC §20.5)."""
DEFAULT_MAX_RESOURCE_BYTES = 67_108_864
"""Cap of ``read_resource(max_bytes=None)`` and of every MCP read, in bytes (64 MiB; SPEC §20.5)."""

Scope: TypeAlias = Literal["user", "workspace"]
_SCOPES = ("user", "workspace")

ArchiveKind: TypeAlias = Literal["zip", "tar.gz"]


def archive_kind(path: str | os.PathLike[str]) -> ArchiveKind | None:
    """The archive kind named by ``path``'s suffix (case-insensitive), or ``None`` (SPEC §25.1)."""
    name = os.fspath(path).lower()
    if name.endswith((".zip", ".skill")):
        return "zip"
    if name.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    return None


def is_archive_root(path: str | os.PathLike[str]) -> bool:
    """Whether a root is read as an archive: an archive name that is not a directory (SPEC §25.1).

    A name test first: a root that is a plain folder costs no ``stat`` and loads no archive code.
    """
    return archive_kind(path) is not None and not os.path.isdir(path)


@runtime_checkable
class TrustPolicy(Protocol):
    """What discovery and every read ask of a trust store (SPEC §23.3).

    :class:`~agent_skills.TrustStore` is the one the library ships; the configuration holds it by
    this shape, so that configuring trust does not load it. ``approval`` is what
    :meth:`verdict` returned for a skill, ``pin`` its pin (SPEC §20.1), ``archived`` how it lives
    in an archive root (SPEC §25.1): values this module only passes on.
    """

    def verdict(
        self,
        pin: Any,
        skill_dir: str | os.PathLike[str],
        manifest: tuple[str, bytes] | None,
        *,
        name: str = "",
        follow_symlinks: bool,
        max_resources: int,
        archived: Any = None,
    ) -> tuple[Any, str]:
        """``(approval, "")`` when a workspace-scope skill may be served, else ``(None, why)``."""
        ...

    def admits(self, approval: Any) -> bool:
        """Whether a skill served under ``approval`` may still be served (no I/O)."""
        ...

    def still_approved(
        self,
        approval: Any,
        pin: Any,
        skill_dir: str | os.PathLike[str],
        manifest_rel: str,
        *,
        name: str,
        follow_symlinks: bool,
        max_resources: int,
    ) -> bool:
        """Whether the gated skill, hashed now through its pin, still matches ``approval``."""
        ...

    def refusal(self, name: str, rel: str | None = None) -> SkillError:
        """The ``access_denied`` error of a gated skill that is not admitted."""
        ...

    def check_read(self, approval: Any, name: str, rel: str, data: bytes) -> None:
        """Refuse bytes of an approved skill that its approval does not cover."""
        ...


@dataclass(frozen=True, slots=True)
class SkillRoot:
    """One configured root directory (SPEC §2).

    Attributes:
        path: The root's path (absolute once resolved by :func:`resolve_config`).
        scope: ``"user"`` or ``"workspace"``; provenance only, never affects precedence.
        source: A free label such as ``"agents"`` or ``"clarvis"``; provenance only.
    """

    path: Path
    scope: Scope = "workspace"
    source: str = ""


RootInput: TypeAlias = "str | os.PathLike[str] | SkillRoot | Mapping[str, object]"


@dataclass(frozen=True, slots=True)
class SkillConfig:
    """The resolved, immutable configuration of one :class:`AgentSkills` (SPEC §2).

    Attributes:
        home: The home directory used for ``~`` expansion.
        workspace_dir: The workspace directory relative roots resolve against.
        roots: The roots, lowest precedence first.
        strict: Raise skill-level problems instead of skipping (SPEC §7.5).
        follow_symlinks: Follow symlinked skill directories, manifests and resources.
        max_resources: Cap on the resources listed per skill (SPEC §9).
        trust: The :class:`~agent_skills.TrustStore` gating workspace-scope skills, or ``None``
            to trust every root (SPEC §23.3).
        index: The on-disk index of parsed manifests, or ``None`` for none (SPEC §26).
        max_depth: How deep each root is searched for skill directories, 1 to 6 (SPEC §21.4).
        disabled: Skills that are discovered and reported but never listed, loaded or served
            (SPEC §21.9): names, and skill directory paths (absolute, as resolved; an entry
            holding a path separator, or given as ``os.PathLike``, is a path).
        max_manifest_bytes: Largest manifest read; a larger one is skipped with a ``too_large``
            diagnostic (strict: raised). SPEC §20.5.
        max_resource_bytes: Cap of ``read_resource`` when ``max_bytes`` is ``None`` and of every
            MCP read (SPEC §20.5).
        only: When not ``None``, the names of the only skills served; every other skill is
            discovered and reported ``disabled`` (SPEC §29.6).
    """

    home: Path
    workspace_dir: Path
    roots: tuple[SkillRoot, ...]
    strict: bool = DEFAULT_STRICT
    follow_symlinks: bool = DEFAULT_FOLLOW_SYMLINKS
    max_resources: int = DEFAULT_MAX_RESOURCES
    trust: TrustPolicy | None = None
    index: Path | None = None
    max_depth: int = DEFAULT_MAX_DEPTH
    disabled: tuple[str, ...] = ()
    max_manifest_bytes: int = DEFAULT_MAX_MANIFEST_BYTES
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
    only: tuple[str, ...] | None = None


def expand_home(path: str | os.PathLike[str], home: str | os.PathLike[str]) -> str:
    """Expand a leading ``~`` against ``home`` (SPEC §2).

    Args:
        path: ``"~"`` becomes ``home``; ``"~/x"`` becomes ``home/x`` (normalised). ``"~user/x"``
            and any other path are returned unchanged.
        home: The home directory.

    Returns:
        The expanded path as a ``str``.

    Raises:
        StartupError: ``path`` or ``home`` is not a ``str`` or ``os.PathLike[str]``.
    """
    text = coerce_path(path, "path", startup=True)
    base = coerce_path(home, "home", startup=True)
    if text == "~":
        return base
    if text.startswith("~/"):
        rest = text[2:].lstrip("/")
        joined = os.path.join(base, rest) if rest else base
        return os.path.normpath(joined) if joined else joined
    return text


def resolve_against(
    base: str | os.PathLike[str], path: str | os.PathLike[str], home: str | os.PathLike[str]
) -> str:
    """Resolve ``path`` the way roots and workspaces are resolved (SPEC §2).

    Args:
        base: Directory a relative path is taken against (made absolute if relative).
        path: ``~`` forms expand against ``home``; an absolute path is kept as given; a relative
            path is joined to ``base`` and normalised.
        home: The home directory.

    Returns:
        The resolved path as a ``str``.

    Raises:
        StartupError: An argument is not a ``str`` or ``os.PathLike[str]``.
    """
    expanded = expand_home(path, home)
    if os.path.isabs(expanded):
        return expanded
    return os.path.normpath(
        os.path.join(os.path.abspath(coerce_path(base, "base", startup=True)), expanded)
    )


def resolve_workspace_dir(
    workspace: str | os.PathLike[str] | None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> str:
    """Return the workspace directory without checking it (SPEC §2, §3).

    Args:
        workspace: ``None`` means ``cwd``; otherwise resolved with :func:`resolve_against`.
        cwd: Defaults to the process working directory.
        home: Defaults to the OS home directory.

    Returns:
        The workspace directory as a ``str``.

    Raises:
        StartupError: An argument is not ``None``, a ``str`` or an ``os.PathLike[str]``.
    """
    cwd_s = os.getcwd() if cwd is None else coerce_path(cwd, "cwd", startup=True)
    if workspace is None:
        return cwd_s
    home_s = os.path.expanduser("~") if home is None else coerce_path(home, "home", startup=True)
    return resolve_against(cwd_s, workspace, home_s)


def _root_from_input(item: object, workspace_dir: str, home: str) -> SkillRoot:
    scope: object = "workspace"
    source: object = ""
    if isinstance(item, SkillRoot):
        raw_path: object = item.path
        scope, source = item.scope, item.source
    elif isinstance(item, Mapping):
        mapping = cast("Mapping[str, object]", item)
        if "path" not in mapping:
            raise StartupError("a root mapping needs a 'path' key")
        raw_path = mapping["path"]
        scope = mapping.get("scope", "workspace")
        source = mapping.get("source", "")
    else:
        raw_path = item
    path = coerce_path(raw_path, "root path", startup=True)
    if scope not in _SCOPES:
        raise StartupError(f"root scope must be 'user' or 'workspace', got {scope!r}")
    source = coerce_str(source, "root source", startup=True)
    resolved = resolve_against(workspace_dir, path, home)
    return SkillRoot(Path(resolved), cast("Scope", scope), source)


def is_path_entry(entry: str) -> bool:
    """Whether a ``disabled`` entry names a directory rather than a skill (SPEC §21.9).

    A skill name never holds ``/`` or ``\\`` (SPEC §21.5), so an entry that does is a path.
    """
    return "/" in entry or "\\" in entry or entry.startswith("~") or os.sep in entry


def _disabled_entries(disabled: object, workspace_dir: str, home: str) -> tuple[str, ...]:
    if isinstance(disabled, (str, bytes, os.PathLike)):
        raise StartupError("disabled must be a sequence of names or paths, not a single one")
    try:
        items = list(disabled)  # type: ignore[call-overload]
    except TypeError:
        raise StartupError(
            f"disabled must be a sequence of names or paths, got {type(disabled).__name__}"
        ) from None
    out: list[str] = []
    for item in items:
        if isinstance(item, os.PathLike) or (isinstance(item, str) and is_path_entry(item)):
            text = coerce_path(item, "disabled path", startup=True)
            out.append(os.path.normpath(resolve_against(workspace_dir, text, home)))
        elif isinstance(item, str) and item.strip():
            out.append(item.strip())
        else:
            raise StartupError(f"disabled entries must be non-empty names or paths, got {item!r}")
    return tuple(dict.fromkeys(out))


def _only_names(only: object) -> tuple[str, ...] | None:
    """``only`` as a tuple of distinct trimmed names (SPEC §29.6), or ``None``."""
    if only is None:
        return None
    if isinstance(only, (str, bytes, os.PathLike)):
        raise StartupError("only must be a sequence of skill names, not a single one")
    try:
        items = list(only)  # type: ignore[call-overload]
    except TypeError:
        raise StartupError(
            f"only must be a sequence of skill names, got {type(only).__name__}"
        ) from None
    names: list[str] = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise StartupError(f"only entries must be non-empty skill names, got {item!r}")
        names.append(item.strip())
    return tuple(dict.fromkeys(names))


def _root_sequence(roots: object) -> list[object]:
    try:
        items: list[object] = list(roots)  # type: ignore[call-overload]
        return items
    except TypeError:
        raise StartupError(
            f"roots must be a sequence of roots, got {type(roots).__name__}"
        ) from None


def resolve_config(
    roots: RootInput | Sequence[RootInput],
    *,
    workspace: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    strict: bool = DEFAULT_STRICT,
    follow_symlinks: bool = DEFAULT_FOLLOW_SYMLINKS,
    max_resources: int = DEFAULT_MAX_RESOURCES,
    trust: TrustPolicy | None = None,
    index: str | os.PathLike[str] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    disabled: Sequence[str | os.PathLike[str]] = (),
    max_manifest_bytes: int = DEFAULT_MAX_MANIFEST_BYTES,
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    only: Sequence[str] | None = None,
) -> SkillConfig:
    """Validate and normalise a configuration (SPEC §2).

    Args:
        roots: Ordered roots, lowest precedence first: each a path (scope ``workspace``, source
            ``""``), a :class:`SkillRoot`, or a mapping with ``path`` and optional ``scope`` and
            ``source``; one such root alone stands for a sequence of it (SPEC §29.6). Roots are
            never checked on disk.
        workspace: When given, resolved against ``cwd`` and required to be an existing directory
            (symlinks followed). When ``None``, the workspace is ``cwd``, unchecked.
        cwd: Defaults to the process working directory.
        home: Defaults to the OS home directory.
        strict: See :class:`SkillConfig`.
        follow_symlinks: See :class:`SkillConfig`.
        max_resources: Positive cap on resources per skill.
        trust: A :class:`~agent_skills.TrustStore`, or ``None`` (SPEC §23.3).
        index: A file for the on-disk index of parsed manifests (SPEC §26), resolved like the
            workspace (against ``cwd``, ``~`` expanded); it need not exist (it is written at the
            end of each scan). ``None``: no index.
        max_depth: 1 (the default: the immediate children of each root, SPEC §4) to 6: how deep
            each root is searched for skill directories (SPEC §21.4).
        disabled: Names or skill directory paths to leave out (SPEC §21.9). A ``str`` holding a
            path separator, or an ``os.PathLike``, is a path: ``~`` expands and a relative path
            resolves against the workspace, as for roots. Anything else is a name.
        max_manifest_bytes: Positive cap on a manifest's size, in bytes (SPEC §20.5).
        max_resource_bytes: Positive cap on one resource read, in bytes (SPEC §20.5).
        only: Skill names: when given, only these skills are served and every other one is
            reported ``disabled`` (SPEC §29.6). ``None`` (the default) serves every skill; an
            empty sequence serves none.

    Returns:
        The immutable :class:`SkillConfig`.

    Raises:
        StartupError: Workspace missing or not a directory (checked first), empty ``roots``, a
            root that is not a path, a scope other than ``user``/``workspace``, a bad option type.
    """
    home_s = os.path.expanduser("~") if home is None else coerce_path(home, "home", startup=True)
    cwd_s = os.getcwd() if cwd is None else coerce_path(cwd, "cwd", startup=True)
    if workspace is None:
        workspace_dir = cwd_s
    else:
        workspace_dir = resolve_against(
            cwd_s, coerce_path(workspace, "workspace", startup=True), home_s
        )
        if not os.path.exists(workspace_dir):
            raise StartupError(f"Workspace does not exist: {workspace_dir}")
        if not os.path.isdir(workspace_dir):
            raise StartupError(f"Workspace is not a directory: {workspace_dir}")
    if isinstance(roots, (str, bytes, os.PathLike, Mapping, SkillRoot)):
        root_list: list[object] = [roots]  # one root (SPEC §29.6)
    else:
        root_list = _root_sequence(roots)
    if not root_list:
        raise StartupError("create_agent_skills requires at least one root in roots")
    coerce_bool(strict, "strict", startup=True)
    coerce_bool(follow_symlinks, "follow_symlinks", startup=True)
    coerce_int(max_resources, "max_resources", minimum=1, startup=True)
    if trust is not None and not isinstance(trust, TrustPolicy):
        raise StartupError(f"trust must be a TrustStore or None, got {type(trust).__name__}")
    if (
        not isinstance(max_depth, int)
        or isinstance(max_depth, bool)
        or not 1 <= max_depth <= MAX_SEARCH_DEPTH
    ):
        raise StartupError(
            f"max_depth must be an int from 1 to {MAX_SEARCH_DEPTH}, got {max_depth!r}"
        )
    disabled_t = _disabled_entries(disabled, workspace_dir, home_s)
    only_t = _only_names(only)
    coerce_int(max_manifest_bytes, "max_manifest_bytes", minimum=1, startup=True)
    coerce_int(max_resource_bytes, "max_resource_bytes", minimum=1, startup=True)
    resolved = tuple(_root_from_input(item, workspace_dir, home_s) for item in root_list)
    return SkillConfig(
        home=Path(home_s),
        workspace_dir=Path(workspace_dir),
        roots=resolved,
        strict=strict,
        follow_symlinks=follow_symlinks,
        max_resources=max_resources,
        trust=trust,
        index=None
        if index is None
        else Path(resolve_against(cwd_s, coerce_path(index, "index", startup=True), home_s)),
        max_depth=max_depth,
        disabled=disabled_t,
        max_manifest_bytes=max_manifest_bytes,
        max_resource_bytes=max_resource_bytes,
        only=only_t,
    )
