"""Where packages come from: the files of a source skill, sources named on a command line, git
clones and the search for skills below a source (SPEC §25.4-§25.5).

Owns what a source is and which files of a source skill are copied or packed (its manifest and
its listed resources, read confined). It decides no rule of skills: the manifest rule, the
listing and the validation are the library's.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from .._archive import (
    MAX_MEMBERS,
    MAX_TOTAL_BYTES,
    ArchiveChanged,
    ArchiveIndex,
    archive_kind,
    read_index,
    read_member,
)
from .._args import coerce_path
from .._config import DEFAULT_MAX_MANIFEST_BYTES, SkillRoot
from .._confine import contains, open_confined, read_whole, resolve_resource_path
from .._diagnostics import Diagnostic
from .._errors import ErrorCode, SkillError, invalid_input
from .._manifest import parse_skill
from .._model import is_skipped
from .._resources import list_resources
from .._schema import name_problem
from .._walk import HELD_DEPTH, walk_root
from ..validate import find_manifest

__all__ = [
    "ReadBudget",
    "Source",
    "SourceFile",
    "SourceSkill",
    "dir_skill",
    "is_executable",
    "name_of",
    "opened_source",
    "parse_source",
    "source_skills",
]


_GIT_TIMEOUT_S = 600


_SCP_RE = re.compile(r"^[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of a skill to copy or pack: its ``rel`` and how to open it."""

    rel: str
    open: Callable[[], IO[bytes]]
    executable: bool | None = None  # None: the execute bits of the opened file decide


@dataclass(frozen=True, slots=True)
class SourceSkill:
    """A skill found in a source: its name, where it was found and its files."""

    name: str
    where: str
    files: tuple[SourceFile, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


def is_executable(source: SourceFile, fh: IO[bytes]) -> bool:
    if source.executable is not None:
        return source.executable
    return bool(os.fstat(fh.fileno()).st_mode & 0o111)


def dir_skill(skill_dir: Path) -> SourceSkill:
    """The manifest and listed resources (SPEC §9) of a skill directory, read confined.

    Raises:
        SkillError: ``invalid_skill`` when the directory has no manifest or no usable ``name``.
    """
    manifest = find_manifest(skill_dir)
    if manifest is None:
        raise SkillError(
            ErrorCode.INVALID_SKILL, f"no SKILL.md in {skill_dir}", {"path": str(skill_dir)}
        )
    with open_confined(skill_dir, manifest.name) as fh:
        data = read_whole(fh, DEFAULT_MAX_MANIFEST_BYTES, skill_dir / manifest.name)
    name = name_of(data, manifest)
    # A skill is packed or copied whole or not at all: a listing cut at a cap would drop files.
    listing = list_resources(skill_dir, max_resources=MAX_MEMBERS)
    if listing.truncated:
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{skill_dir} has more than {MAX_MEMBERS} files",
            {"path": str(skill_dir), "max_files": MAX_MEMBERS},
        )
    rels = [manifest.name, *(r.rel for r in listing.resources)]

    def opener(rel: str) -> Callable[[], IO[bytes]]:
        return lambda: open_confined(skill_dir, rel)

    files = tuple(SourceFile(rel, opener(rel)) for rel in rels)
    return SourceSkill(name, str(skill_dir), files, listing.diagnostics)


def name_of(data: bytes, where: Path | str) -> str:
    try:
        parsed = parse_skill(data, path=str(where))
    except SkillError as err:
        raise SkillError(
            ErrorCode.INVALID_SKILL, f"{where}: {err.message}", {"path": str(where)}
        ) from None
    name = parsed.frontmatter.get("name")
    # The name becomes a directory name; the loader's name rule (SPEC §21.5) is what makes it
    # one (no separators, NUL or dots-only), so it is asked, not restated.
    if not isinstance(name, str) or name_problem(name) is not None:
        raise SkillError(ErrorCode.INVALID_SKILL, f"{where}: no usable name", {"path": str(where)})
    return name


def _read_archived(index: ArchiveIndex, member: str) -> bytes:
    try:
        return read_member(index, member)
    except ArchiveChanged:
        raise SkillError(
            ErrorCode.IO_ERROR,
            f"{index.path} changed while it was being read",
            {"path": str(index.path)},
        ) from None


def _archive_skills(index: ArchiveIndex) -> list[SourceSkill]:
    out: list[SourceSkill] = []
    for skill in index.skills:
        where = f"{index.path}/{skill.top}" if skill.top else str(index.path)
        data = _read_archived(index, skill.manifest)
        name = name_of(data, f"{index.path}/{skill.manifest}")
        members = [(skill.rel_of(skill.manifest), index.files[skill.manifest])]
        members.extend(index.resources(skill))

        def opener(member: str) -> Callable[[], IO[bytes]]:
            return lambda: io.BytesIO(_read_archived(index, member))

        files = tuple(
            SourceFile(rel, opener(skill.member_of(rel)), f.executable) for rel, f in members
        )
        top = f"{index.path}/{skill.top}"
        diags = tuple(
            d
            for d in index.diagnostics
            if not skill.top or (d.path is not None and contains(top, os.fspath(d.path)))
        )
        out.append(SourceSkill(name, where, files, diags))
    return out


@dataclass(frozen=True, slots=True)
class Source:
    """A parsed SOURCE of ``add`` (SPEC §25.4).

    Attributes:
        kind: ``directory``, ``archive`` or ``git``.
        location: The directory or archive path (absolute), or the git URL.
        subdir: ``//SUBDIR`` of a git source (POSIX, relative), or ``None``.
        ref: ``#REF`` of a git source, or ``None`` (the default branch).
    """

    kind: Literal["directory", "archive", "git"]
    location: str
    subdir: str | None = None
    ref: str | None = None

    @property
    def origin_source(self) -> str:
        """The ``origin.source`` recorded in the lock: location and ``//SUBDIR``, no ``#REF``."""
        return f"{self.location}//{self.subdir}" if self.subdir else self.location


def parse_source(text: str, *, cwd: str | os.PathLike[str] | None = None) -> Source:
    """Parse a SOURCE: a local directory, an archive, or ``URL[//SUBDIR][#REF]`` (SPEC §25.5).

    An existing local path is a directory or an archive source; anything else is a git source,
    where ``#REF`` ends the text and ``//SUBDIR`` is the last ``//`` after the URL's ``://``.

    Raises:
        SkillError: ``invalid_input`` ``{source}`` for a SOURCE or REF starting with ``-``, an
            empty part, a local file that is no archive, or a path that does not exist and is no
            git URL.
    """
    if not isinstance(text, str) or not text:
        raise invalid_input("SOURCE must be a non-empty string", {"source": str(text)})
    if text.startswith("-"):
        raise invalid_input(f"SOURCE must not start with '-': {text!r}", {"source": text})
    base = coerce_path(cwd, "cwd") if cwd is not None else os.getcwd()
    local = os.path.join(base, text)
    if "\x00" not in text and os.path.exists(local):
        absolute = os.path.abspath(local)
        if os.path.isdir(absolute):
            return Source("directory", absolute)
        if archive_kind(absolute) is not None:
            return Source("archive", absolute)
        raise invalid_input(
            f"{text} is neither a directory nor a .zip, .skill, .tar.gz or .tgz archive",
            {"source": text},
        )
    body, hash_sign, ref = text.partition("#")
    if hash_sign and not ref:
        raise invalid_input(f"empty #REF in {text!r}", {"source": text})
    if ref.startswith("-"):
        raise invalid_input(f"REF must not start with '-': {ref!r}", {"source": text})
    scheme = body.find("://")
    start = scheme + 3 if scheme >= 0 else 0
    cut = body.rfind("//", start)
    url, subdir = (
        (body[:cut], body[cut + 2 :].strip("/")) if cut >= start and cut > 0 else (body, None)
    )
    if subdir == "":
        raise invalid_input(f"empty //SUBDIR in {text!r}", {"source": text})
    if not url or url.startswith("-"):
        raise invalid_input(f"no URL in {text!r}", {"source": text})
    if scheme <= 0 and _SCP_RE.match(url) is None:
        local_url = os.path.join(base, url)
        if not os.path.isdir(local_url):
            raise invalid_input(f"{text} does not exist and is not a git URL", {"source": text})
        url = os.path.abspath(local_url)
    return Source("git", url, subdir, ref or None)


def _git(args: Sequence[str], cwd: str | None = None) -> str:
    git = shutil.which("git")
    if git is None:
        raise SkillError(ErrorCode.IO_ERROR, "git is not on PATH", {"command": "git"})
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    try:
        done = subprocess.run(
            [git, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SkillError(ErrorCode.IO_ERROR, f"git failed: {exc}", {"command": "git"}) from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        message = detail[-1] if detail else f"exit status {done.returncode}"
        command = next(
            a for i, a in enumerate(args) if a != "-c" and (i == 0 or args[i - 1] != "-c")
        )
        raise SkillError(
            ErrorCode.IO_ERROR, f"git {command} failed: {message}", {"command": f"git {command}"}
        )
    return done.stdout.decode("utf-8", "replace").strip()


def _clone(source: Source, dest: str) -> str:
    """Clone ``source`` into ``dest`` at its ref; return the commit checked out."""
    # ext:: runs a command; it is refused whatever the user's git configuration allows.
    base = [
        "-c",
        "protocol.ext.allow=never",
        "-c",
        "core.symlinks=true",
        "-c",
        "advice.detachedHead=false",
    ]
    if source.ref is None:
        _git([*base, "clone", "--quiet", "--depth", "1", "--", source.location, dest])
    else:
        try:
            _git(
                [
                    *base,
                    "clone",
                    "--quiet",
                    "--depth",
                    "1",
                    "--branch",
                    source.ref,
                    "--",
                    source.location,
                    dest,
                ]
            )
        except SkillError:
            # Not a branch or tag: a commit. Clone whole, then check that commit out.
            shutil.rmtree(dest, ignore_errors=True)
            _git([*base, "clone", "--quiet", "--no-checkout", "--", source.location, dest])
            # The commit is resolved first, so what reaches checkout is a hex id, never an option.
            commit = _git(
                [
                    "rev-parse",
                    "--verify",
                    "--quiet",
                    "--end-of-options",
                    f"{source.ref}^{{commit}}",
                ],
                cwd=dest,
            )
            _git([*base, "checkout", "--quiet", "--detach", commit, "--"], cwd=dest)
    return _git(["rev-parse", "HEAD"], cwd=dest)


def _find_skill_dirs(tree: Path) -> list[Path]:
    """The skill directories in ``tree``: itself, else those the one nested search finds below
    it, at most :data:`HELD_DEPTH` levels deep (``_walk.walk_root``, SPEC §21.4).

    Hidden directories, ``node_modules``, ``__pycache__`` and what a ``.gitignore`` ignores are
    not searched, links are not followed (a repository's link leads nowhere in it), a skill
    directory is not searched further (its nested manifests are resources), and the search
    stops after ``MAX_SCAN_DIRS`` directories.
    """
    if find_manifest(tree) is not None:
        return [tree]
    found = walk_root(SkillRoot(tree), follow_symlinks=False, max_depth=HELD_DEPTH)
    return [
        cand.dir
        for cand in found.candidates
        if cand.manifest is not None and not is_skipped(cand.entry_name)
    ]


def source_skills(tree: Path) -> tuple[list[SourceSkill], list[str]]:
    skills: list[SourceSkill] = []
    problems: list[str] = []
    for skill_dir in _find_skill_dirs(tree):
        try:
            skills.append(dir_skill(skill_dir))
        except SkillError as err:
            problems.append(f"{err.code.value}: {err.message}")
    return skills, problems


@contextmanager
def opened_source(source: Source) -> Iterator[tuple[list[SourceSkill], list[str], str | None]]:
    if source.kind == "directory":
        skills, problems = source_skills(Path(source.location))
        yield skills, problems, None
        return
    if source.kind == "archive":
        index = read_index(source.location)
        yield _archive_skills(index), [], None
        return
    with tempfile.TemporaryDirectory(prefix="agent-skills-git-") as work:
        clone = os.path.join(work, "clone")
        commit = _clone(source, clone)
        tree = Path(clone)
        if source.subdir is not None:
            tree = resolve_resource_path(clone, source.subdir)
            if not tree.is_dir():
                raise SkillError(
                    ErrorCode.NOT_FOUND,
                    f"no directory {source.subdir!r} in {source.location}",
                    {"source": source.origin_source, "rel": source.subdir},
                )
        skills, problems = source_skills(tree)
        yield skills, problems, commit


class ReadBudget:
    """The bytes a skill may still copy or pack: :data:`MAX_TOTAL_BYTES` in all, as for an
    archive (SPEC §25.1), so a sparse or endless file cannot fill the disk or the memory."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self.left = MAX_TOTAL_BYTES

    def take(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise SkillError(
                ErrorCode.TOO_LARGE,
                f"{self.where} holds more than {MAX_TOTAL_BYTES} bytes",
                {"path": str(self.where), "max_bytes": MAX_TOTAL_BYTES},
            )
