"""The data model and the skill layout rules: what discovery hands out (SPEC §1, §4, §6-§9, §20.1).

Frozen dataclasses with their JSON shapes, the one order of names used everywhere
(:func:`sort_key`), and the rules of a skill folder's layout that every stage applies: what the
manifest is called and which of its case variants wins (:data:`MANIFEST_NAME`,
:func:`choose_manifest`, :func:`is_manifest_name`), which names are hidden or skipped
(:func:`is_hidden`, :func:`is_skipped`). Pure: no filesystem, no logging. Every later stage builds
or reads these types; none defines its own. The read-only frontmatter (``freeze``) and the fast
constructors are ``_frozen``'s; finding a manifest on disk is ``_scan``'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, overload

from ._config import Scope
from ._diagnostics import Diagnostic
from ._frozen import frozen_builder, thaw

if TYPE_CHECKING:
    from ._confine import Pin

__all__ = [
    "COMPILED_SUFFIXES",
    "INSTALL_ASIDE_PREFIX",
    "INSTALL_JOURNAL_PREFIXES",
    "INSTALL_JOURNAL_RE",
    "INSTALL_STAGING_PREFIX",
    "MANIFEST_NAME",
    "RESOURCE_KINDS",
    "SINGLE_FILE_FOLDERS",
    "SKIPPED_DIRS",
    "Grant",
    "GrantSet",
    "ResolvedSkill",
    "ResourceKind",
    "ShadowedSkill",
    "SkillContent",
    "SkillInfo",
    "SkillResource",
    "accepts_single_files",
    "choose_manifest",
    "install_work",
    "is_compiled",
    "is_hidden",
    "is_manifest_name",
    "is_skipped",
    "is_skipped_path",
    "make_resolved",
    "make_skill_info",
    "single_file_id",
    "sort_key",
    "sort_text",
]

ResourceKind: TypeAlias = Literal["scripts", "references", "assets", "examples", "other"]
RESOURCE_KINDS: tuple[ResourceKind, ...] = ("scripts", "references", "assets", "examples")


#: Directories that are never a skill's files and never searched for skills (SPEC §9, §21.4).
SKIPPED_DIRS: frozenset[str] = frozenset({"__pycache__", "node_modules"})


def is_hidden(name: str) -> bool:
    """Whether a file or directory name is hidden (starts with ``.``): not listed as a resource,
    not searched for skills, not watched (SPEC §9, §21.4); a hidden file is still served when
    asked for by name (SPEC §10)."""
    return name.startswith(".")


#: What ``add``, ``update`` and ``remove`` make in a root while they work (SPEC §25.4), each name
#: holding the transaction's token: the staging folder of new copies (``<prefix><token>``), each
#: skill set aside until the change is committed or undone (``<prefix><token>-<name>``), and
#: the transaction's journal (``<prefix><token>.json``, then marked done).
INSTALL_STAGING_PREFIX = ".agent-skills-tmp-"
INSTALL_ASIDE_PREFIX = ".agent-skills-old-"
INSTALL_JOURNAL_PREFIXES: tuple[str, str] = (".agent-skills-txn-", ".agent-skills-done-")
#: A journal's name: ``(txn|done, token)``; the only journals recovery reads (SPEC §25.4).
INSTALL_JOURNAL_RE = re.compile(r"^\.agent-skills-(txn|done)-([0-9a-f]{16})\.json$")
_INSTALL_MARK = ".agent-skills-"


def install_work(names: Iterable[str]) -> frozenset[str]:
    """The names among a root's entries ``names`` that are an install's work, never a skill of
    their own: each staging folder, and each folder set aside by a transaction whose journal is
    among ``names`` too. A folder named like a set-aside copy that no journal names (one a
    repository brought) is an ordinary entry. Discovery reports the work as skipped (SPEC §4:
    one report entry per child), so neither a running install nor one a kill left unfinished
    shows a second copy of a skill, or shadows the installed one (SPEC §25.4).
    """
    marked = [name for name in names if name.startswith(_INSTALL_MARK)]
    if not marked:
        return frozenset()
    # Only a journal recovery reads vouches for a set-aside copy: the next add, update, remove
    # or lock finishes or undoes it, so nothing stays passed over for good.
    journaled = {m.group(2) for name in marked if (m := INSTALL_JOURNAL_RE.match(name))}
    return frozenset(
        name
        for name in marked
        if name.startswith(INSTALL_STAGING_PREFIX)
        or (
            name.startswith(INSTALL_ASIDE_PREFIX)
            and name[len(INSTALL_ASIDE_PREFIX) :].partition("-")[0] in journaled
        )
    )


#: Suffixes of compiled Python files, never a skill's files (SPEC §29.6).
COMPILED_SUFFIXES: tuple[str, ...] = (".pyc", ".pyo")


def is_compiled(name: str) -> bool:
    """Whether a file name is a compiled Python file (``*.pyc``, ``*.pyo``, any letter case):
    not listed as a resource, published, hashed, packed or watched (SPEC §29.6)."""
    return name.lower().endswith(COMPILED_SUFFIXES)


def is_skipped(name: str) -> bool:
    """Whether a path component keeps what is below it out of a skill's files and out of the
    search for skills: a hidden name, one of :data:`SKIPPED_DIRS` or a compiled Python file's
    name (SPEC §9, §21.4, §29.6)."""
    return is_hidden(name) or name in SKIPPED_DIRS or is_compiled(name)


#: The manifest's name (Agent Skills specification); letter-case variants are found too (SPEC §4).
MANIFEST_NAME = "SKILL.md"
_MANIFEST_LOWER = MANIFEST_NAME.lower()


def is_skipped_path(parts: Sequence[str], *, directory: bool) -> bool:
    """Whether the path ``parts`` (components below a skill's directory) is kept out of the
    skill's files: a hidden or compiled (SPEC §29.6) last component, or any directory on the
    way hidden or one of :data:`SKIPPED_DIRS` (the last too when it is a ``directory``). The
    rule for a name, applied to a whole path: a link's real target inside the skill is judged by
    it as well as the link's own name, so ``refs -> ../.git/config`` is no resource (SPEC §9,
    §30.2)."""
    if not parts:
        return False
    *above, last = parts
    if any(is_skipped(part) for part in above):
        return True
    return is_skipped(last) if directory else is_hidden(last) or is_compiled(last)


def is_manifest_name(name: str) -> bool:
    """Whether ``name`` is a letter-case variant of ``SKILL.md`` (SPEC §4, §9)."""
    return name.lower() == _MANIFEST_LOWER


def choose_manifest(names: Iterable[str]) -> str | None:
    """Which of a directory's usable manifest names is the manifest (SPEC §4): exactly
    ``SKILL.md`` when present, else the first case variant in ``(casefold, name)`` order.

    Args:
        names: Entry names in any order; those that are not a case variant of ``SKILL.md`` are
            passed over.

    Returns:
        The chosen name, or ``None`` for no names.
    """
    usable = [n for n in names if is_manifest_name(n)]
    if MANIFEST_NAME in usable:
        return MANIFEST_NAME  # the module's one string: each skill's path keeps it
    return min(usable, key=sort_key) if usable else None


#: The folders whose root-level ``*.md`` files are single-file skills (opencode's own skill
#: folders, SPEC §29.2): a root whose path ends with one of these.
SINGLE_FILE_FOLDERS: tuple[tuple[str, ...], ...] = (
    (".opencode", "skills"),
    (".config", "opencode", "skills"),
)


def accepts_single_files(root: Path) -> bool:
    """Whether ``*.md`` files directly in ``root`` are single-file skills (SPEC §29.2): the root
    is one of opencode's own folders (:data:`SINGLE_FILE_FOLDERS`). The folders opencode shares
    with other clients (``.claude/skills``, ``.agents/skills``) do not: no other client reading
    them loads a single file. Pure (the path's last components)."""
    parts = root.parts
    return any(parts[-len(tail) :] == tail for tail in SINGLE_FILE_FOLDERS)


def single_file_id(name: str) -> str | None:
    """The id of a single-file skill named ``name`` in a root that accepts them (SPEC §29.2):
    the name without its ``.md`` suffix (any letter case); ``None`` for any other name (not
    Markdown, hidden, a case variant of ``SKILL.md``, or nothing before the suffix)."""
    if len(name) <= 3 or not name.lower().endswith(".md"):
        return None
    if is_hidden(name) or is_manifest_name(name):
        return None
    return name[:-3]


def sort_key(name: str) -> tuple[str, str]:
    """The order of names everywhere in the library: ``(name.casefold(), name)`` (SPEC §4, §8)."""
    return (name.casefold(), name)


def sort_text(name: str) -> str:
    """:func:`sort_key` as one string, for a name that holds no NUL (every file name): ordering
    by it is ordering by ``sort_key``, since ``"\\0"`` sorts before every other character (a
    case-folded name that begins another still comes first), and one string comparison does
    the work of a tuple's two (a scan sorts each root's listing by it; SPEC §26)."""
    return name.casefold() + "\0" + name


@dataclass(frozen=True, slots=True)
class SkillResource:
    """One file bundled with a skill (SPEC §9; progressive disclosure tier 3).

    Attributes:
        kind: ``scripts``, ``references``, ``assets`` or ``examples`` when that is the first
            segment of ``rel`` (case-sensitive), else ``other``.
        rel: POSIX path relative to the skill directory.
        path: ``skill.dir / rel``.
        size: Size in bytes at enumeration time.
    """

    kind: ResourceKind
    rel: str
    path: Path
    size: int

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"kind", "rel", "path", "size"}`` for JSON output."""
        return {"kind": self.kind, "rel": self.rel, "path": str(self.path), "size": self.size}


@dataclass(frozen=True, slots=True)
class ShadowedSkill:
    """A copy of a skill displaced by a later root (SPEC §7.3).

    Attributes:
        scope: The displaced copy's root scope.
        source: The displaced copy's root source label.
        root: The displaced copy's root path.
        dir: The displaced copy's directory.
    """

    scope: Scope
    source: str
    root: Path
    dir: Path

    def to_dict(self) -> dict[str, str]:
        """Return a JSON-ready mapping."""
        return {
            "scope": self.scope,
            "source": self.source,
            "root": str(self.root),
            "dir": str(self.dir),
        }


@dataclass(frozen=True, slots=True)
class SkillInfo:
    """Catalog-level facts about one skill (SPEC §6; progressive disclosure tier 1).

    Attributes:
        name: The frontmatter ``name`` (the skill's identity, case-sensitive).
        description: The trimmed frontmatter ``description``.
        metadata: The whole validated frontmatter, unknown keys included; read-only (nested
            mappings are read-only too, lists are tuples).
        allowed_tools: From ``allowed-tools``, else ``tools`` (see ``normalize_tools``); ``None``
            when neither is declared (or valid).
        user_invocable: ``user-invocable``, default True.
        model_invocable: ``not disable-model-invocation``, default True.
        scope: The root's scope (``"user"`` or ``"workspace"``).
        source: The root's source label.
        root: The configured root path.
        dir: ``root / entry_name`` (the link path for a linked skill).
        path: ``dir / <manifest's on-disk name>``.
        shadowed: Copies displaced by this one from earlier roots, nearest first.
        category: The POSIX path of the skill directory's parent relative to its root: ``""``
            for a skill directly in its root, ``"ios"`` for ``<root>/ios/swiftui`` (SPEC §21.4).
        real_dir: The skill directory's real path, pinned at discovery with its identity: every
            later access works from it (SPEC §20.1). ``None`` only for an info built by hand.
        version: The top-level ``version``, else ``metadata.version``, when a string; else
            ``None`` (SPEC §29.7).

    A single-file skill (``<root>/<id>.md``, SPEC §29.2) has ``dir`` equal to ``path`` (the file)
    and ``real_dir`` the file's real path: it has no directory and no resources.
    """

    name: str
    description: str
    metadata: Mapping[str, Any]
    allowed_tools: tuple[str, ...] | None
    user_invocable: bool
    model_invocable: bool
    scope: Scope
    source: str
    root: Path
    dir: Path
    path: Path
    shadowed: tuple[ShadowedSkill, ...] = ()
    category: str = ""
    real_dir: Path | None = None
    version: str | None = None

    @property
    def single_file(self) -> bool:
        """Whether this is a single-file skill (SPEC §29.2): its ``dir`` is its ``path``."""
        return self.dir is self.path or self.dir == self.path

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape used by the CLI (SPEC §16, §21.4, §29.7): paths as strings."""
        return {
            "name": self.name,
            "description": self.description,
            "scope": self.scope,
            "source": self.source,
            "root": str(self.root),
            "dir": str(self.dir),
            "path": str(self.path),
            "allowed_tools": list(self.allowed_tools) if self.allowed_tools is not None else None,
            "user_invocable": self.user_invocable,
            "model_invocable": self.model_invocable,
            "shadowed": [s.to_dict() for s in self.shadowed],
            "category": self.category,
            "version": self.version,
        }


make_skill_info: Callable[..., SkillInfo] = frozen_builder(SkillInfo)
"""``SkillInfo(...)`` of the same positional fields, made by :func:`~._frozen.frozen_builder`:
discovery makes one per skill (SPEC §26)."""


@dataclass(frozen=True, slots=True)
class SkillContent(SkillInfo):
    """A loaded skill (SPEC §8; tiers 2 and 3): :class:`SkillInfo` plus body and resources.

    Attributes:
        body: The markdown body, as read at discovery.
        resources: The skill's files (SPEC §9), enumerated at load time.
        resources_truncated: True when the listing was capped at ``max_resources``.
        diagnostics: Problems found while enumerating the resources.
    """

    body: str = ""
    resources: tuple[SkillResource, ...] = ()
    resources_truncated: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the ``show --json`` shape: the :class:`SkillInfo` keys plus ``body``,
        ``resources``, ``resources_truncated`` and ``metadata``."""
        out = SkillInfo.to_dict(self)
        out["metadata"] = thaw(self.metadata)
        out["body"] = self.body
        out["resources"] = [r.to_dict() for r in self.resources]
        out["resources_truncated"] = self.resources_truncated
        return out


def stored_text(stored: memoryview) -> str:
    """The text of UTF-8 bytes a body snapshot is kept as (see :class:`_StoredBody`): decoded as
    the on-disk index encoded it (``surrogatepass``). The index hands only bodies it checked
    (ASCII); any other bytes that are not UTF-8 are decoded with replacement characters, never
    an error."""
    try:
        return str(stored, "utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return str(stored, "utf-8", "replace")


_set = object.__setattr__
_get = object.__getattribute__


class _StoredBody:
    """Base of :class:`ResolvedSkill`: a body taken from the on-disk index is kept as the
    index's UTF-8 bytes (a view of the buffer its file was read into) and becomes ``body`` when
    first read. It is still the snapshot taken at discovery (SPEC §8): the bytes are in memory,
    read with the rest of the index. Discovery then copies no body text (SPEC §26: fresh memory
    for each copy costs a page fault per 4 KiB)."""

    __slots__ = ("_body_bytes",)

    def __getattr__(self, name: str) -> Any:
        # Only reached when ``name`` is not set: ``body`` of a skill whose body is stored bytes.
        if name == "body":
            try:
                stored = _get(self, "_body_bytes")
            except AttributeError:
                pass
            else:
                text = stored_text(stored)
                _set(self, "body", text)  # (two threads at once store equal texts)
                return text
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


@dataclass(frozen=True, slots=True)
class ResolvedSkill(_StoredBody):
    """A skill found in one root, before or after merging: its info and body (SPEC §1).

    ``pin`` is the skill directory's real path and identity taken at discovery (SPEC §20.1);
    ``None`` for a skill built by hand, which the registry then pins by name when it is used.
    """

    info: SkillInfo
    body: str
    pin: Pin | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.info.name


_resolved_text = frozen_builder(ResolvedSkill, ("info", "body", "pin"), unset=("_body_bytes",))
_resolved_bytes = frozen_builder(ResolvedSkill, ("info", "_body_bytes", "pin"), unset=("body",))


def make_resolved(info: SkillInfo, body: str | memoryview, pin: Pin | None) -> ResolvedSkill:
    """``ResolvedSkill(info, body, pin)``, made by :func:`~._frozen.frozen_builder`: discovery
    makes one per skill (SPEC §26). A ``memoryview`` body is the UTF-8 bytes the on-disk index
    holds, decoded by :func:`stored_text` when first read."""
    if type(body) is str:
        return _resolved_text(info, body, pin)
    return _resolved_bytes(info, body, pin)


@dataclass(frozen=True, slots=True)
class Grant:
    """Read access to one skill's directory, for a host's own sandbox or permissions (SPEC §28.1).

    Read-only by construction: nothing grants write access to a skill.

    Attributes:
        skill: The skill's name.
        path: The skill's directory as discovered, under its root, absolute: a directory that is
            a symlink into a shared store stays the link path (what the model is shown).
        real_path: The pinned real directory (SPEC §20.1): no symlink in it.
    """

    __module__ = "agent_skills"

    skill: str
    path: Path
    real_path: Path

    def paths(self) -> tuple[Path, ...]:
        """``(real_path,)``, then ``path`` when it differs: every spelling a host must grant,
        since hosts match either the path the model names or the resolved one (SPEC §28.2)."""
        return (self.real_path,) if self.path == self.real_path else (self.real_path, self.path)

    def to_dict(self) -> dict[str, str]:
        """Return ``{"skill", "path", "real_path"}`` (paths as strings): the ``json`` format."""
        return {"skill": self.skill, "path": str(self.path), "real_path": str(self.real_path)}


@dataclass(frozen=True, slots=True)
class GrantSet(Sequence[Grant]):
    """The grants of a snapshot: a sequence of :class:`Grant` with what was left out (SPEC §28.1).

    Iterates, indexes and measures as its ``grants`` tuple does (``len``, ``[i]``, ``in``).

    Attributes:
        grants: The grants, sorted as SPEC §8 (every merged skill, or the named ones).
        left_out: ``(skill, reason)`` pairs, in the same order, for the skills that could not be
            granted: ``reason`` is ``"stale_skill"`` (the pinned directory or the link path no
            longer leads to the directory discovered), ``"archived_skill"`` (an archived skill
            has no directory, SPEC §25.1), ``"single_file_skill"`` (nor has a single-file
            skill, SPEC §29.2) or ``"untrusted"`` (a skill gated by the trust store
            whose files no longer match its approval, SPEC §23.3). Untrusted and disabled skills
            are never merged, so they are never granted nor listed here.
        roots: The configured skill roots (lowest precedence first), as paths: the pruning of
            settings files uses them (SPEC §28.3).
    """

    __module__ = "agent_skills"

    grants: tuple[Grant, ...] = ()
    left_out: tuple[tuple[str, str], ...] = ()
    roots: tuple[Path, ...] = ()

    def __len__(self) -> int:
        return len(self.grants)

    @overload
    def __getitem__(self, index: int) -> Grant: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Grant, ...]: ...

    def __getitem__(self, index: int | slice) -> Grant | tuple[Grant, ...]:
        return self.grants[index]

    def __iter__(self) -> Iterator[Grant]:
        return iter(self.grants)

    def __contains__(self, value: object) -> bool:
        return value in self.grants

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"grants": [...], "left_out": [{"skill", "reason"}], "roots": [...]}``."""
        return {
            "grants": [g.to_dict() for g in self.grants],
            "left_out": [{"skill": s, "reason": r} for s, r in self.left_out],
            "roots": [str(r) for r in self.roots],
        }
