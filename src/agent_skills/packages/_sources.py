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
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
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
from .._args import coerce_path, shown_text
from .._config import DEFAULT_MAX_MANIFEST_BYTES, SkillRoot
from .._confine import (
    Pin,
    contains,
    open_in,
    open_pinned,
    pin_by_name,
    resolve_resource_path,
)
from .._diagnostics import Diagnostic
from .._errors import ErrorCode, SkillError, invalid_input
from .._fs import read_whole
from .._manifest import parse_skill
from .._model import is_skipped
from .._resources import MAX_DIRECTORY_DEPTH, list_resources
from .._scan import find_manifest as find_manifest_in
from .._schema import name_problem, skill_version
from .._walk import HELD_DEPTH, plain_candidates, walk_root
from ..validate import find_manifest

__all__ = [
    "ReadBudget",
    "Source",
    "SourceFile",
    "SourceSkill",
    "dir_skill",
    "git_problem",
    "is_executable",
    "is_url",
    "manifest_facts",
    "name_of",
    "opened_source",
    "parse_source",
    "redact",
    "source_skills",
]


_GIT_TIMEOUT_S = 600


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of a skill to copy or pack: its ``rel`` and how to open it."""

    rel: str
    open: Callable[[], IO[bytes]]
    executable: bool | None = None  # None: the execute bits of the opened file decide


@dataclass(frozen=True, slots=True)
class SourceSkill:
    """A skill found in a source: its name, version, where it was found and its files.

    Attributes:
        name: The frontmatter ``name``.
        where: Where it was found, for messages (a directory, ``<archive>/<top>``).
        files: The manifest and the listed resources, each opened from the pinned source.
        diagnostics: Files left out (links leading outside, link members).
        version: The skill's version (SPEC §29.7: ``_schema.skill_version``), or ``None``.
    """

    name: str
    where: str
    files: tuple[SourceFile, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    version: str | None = None


def is_executable(source: SourceFile, fh: IO[bytes]) -> bool:
    if source.executable is not None:
        return source.executable
    return bool(os.fstat(fh.fileno()).st_mode & 0o111)


def _no_manifest(skill_dir: Path) -> SkillError:
    return SkillError(
        ErrorCode.INVALID_SKILL, f"no SKILL.md in {skill_dir}", {"path": str(skill_dir)}
    )


def _pinned_manifest(pin: Pin, skill_dir: Path) -> str:
    """The on-disk name of the manifest of the pinned directory (the one manifest rule,
    ``_scan.find_manifest``, listed through the pin)."""
    fd = open_pinned(pin, skill_dir.name)
    try:
        lookup = find_manifest_in(skill_dir, follow_symlinks=True, dir_fd=fd, pin=pin)
    finally:
        os.close(fd)
    if lookup.name is None:
        raise _no_manifest(skill_dir)
    return lookup.name


def dir_skill(skill_dir: Path, pin: Pin | None = None) -> SourceSkill:
    """The manifest and listed resources (SPEC §9) of a skill directory, read from its pin.

    The directory is pinned once (its real path and identity, SPEC §20.1; or ``pin``, taken by
    the caller); the manifest is found, the resources listed and every file opened through that
    pin, so a directory swapped while a skill is packed or copied is ``stale_skill``, never a
    source of another directory's files. The manifest is read no further than
    ``DEFAULT_MAX_MANIFEST_BYTES`` (SPEC §30.3).

    Raises:
        SkillError: ``invalid_skill`` when the directory has no manifest or no usable ``name``;
            ``too_large`` for a manifest over the cap, more than ``MAX_MEMBERS`` files
            (``{path, max_files}``) or a directory more than ``MAX_DIRECTORY_DEPTH`` levels
            down (``{path, max_depth}``);
            ``not_found`` when it is not a directory; ``path_escape`` for a manifest that links
            outside it; ``stale_skill`` when it is swapped while read.
    """
    if pin is None:
        pin = pin_by_name(skill_dir, skill_dir.name)
    base = os.path.abspath(skill_dir)
    label = skill_dir.name
    manifest = _pinned_manifest(pin, skill_dir)
    where = skill_dir / manifest
    with open_in(pin, label, base, manifest) as fh:
        data = read_whole(fh, DEFAULT_MAX_MANIFEST_BYTES, where)
    name, version = manifest_facts(data, where)
    # A skill is packed or copied whole or not at all: a listing cut at a cap would drop files.
    listing = list_resources(skill_dir, max_resources=MAX_MEMBERS, pin=pin, name=label)
    if listing.too_deep:
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{skill_dir} has directories more than {MAX_DIRECTORY_DEPTH} levels deep",
            {"path": str(skill_dir), "max_depth": MAX_DIRECTORY_DEPTH},
        )
    if listing.truncated:
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{skill_dir} has more than {MAX_MEMBERS} files",
            {"path": str(skill_dir), "max_files": MAX_MEMBERS},
        )
    rels = [manifest, *(r.rel for r in listing.resources)]

    def opener(rel: str) -> Callable[[], IO[bytes]]:
        return lambda: open_in(pin, label, base, rel)

    files = tuple(SourceFile(rel, opener(rel)) for rel in rels)
    return SourceSkill(name, str(skill_dir), files, listing.diagnostics, version)


def manifest_facts(data: bytes, where: Path | str) -> tuple[str, str | None]:
    """The ``name`` and version (``_schema.skill_version``, SPEC §29.7) of a source skill's
    manifest bytes.

    Raises:
        SkillError: ``invalid_skill`` ``{path}`` when it does not parse or has no usable name.
    """
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
    return name, skill_version(parsed.frontmatter)


def name_of(data: bytes, where: Path | str) -> str:
    """The ``name`` of a source skill's manifest bytes (see :func:`manifest_facts`)."""
    return manifest_facts(data, where)[0]


def _read_archived(index: ArchiveIndex, member: str, cap: int | None = None) -> bytes:
    """The bytes of one member (at most ``cap``: ``too_large`` past it)."""
    try:
        data = read_member(index, member, cap)
    except ArchiveChanged:
        raise SkillError(
            ErrorCode.IO_ERROR,
            f"{index.path} changed while it was being read",
            {"path": str(index.path)},
        ) from None
    if cap is not None and len(data) > cap:
        where = f"{index.path}/{member}"
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{where} is larger than {cap} bytes",
            {"path": where, "max_bytes": cap},
        )
    return data


def _archive_skills(index: ArchiveIndex) -> list[SourceSkill]:
    out: list[SourceSkill] = []
    for skill in index.skills:
        where = f"{index.path}/{skill.top}" if skill.top else str(index.path)
        data = _read_archived(index, skill.manifest, DEFAULT_MAX_MANIFEST_BYTES)
        name, version = manifest_facts(data, f"{index.path}/{skill.manifest}")
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
        out.append(SourceSkill(name, where, files, diags, version))
    return out


@dataclass(frozen=True, slots=True)
class Source:
    """A parsed SOURCE of ``add`` (SPEC §25.4), credentials held apart (SPEC §30.1).

    Attributes:
        kind: ``directory``, ``archive`` or ``git``.
        location: The directory or archive path (absolute), or the git URL without credentials
            (no user information of an ``http``/``https``/``ftp`` URL, no password of any other,
            no query): what the lock records and messages name.
        subdir: ``//SUBDIR`` of a git source (POSIX, relative), or ``None``.
        ref: ``#REF`` of a git source, or ``None`` (the default branch).
        fetch_url: The URL as given, credentials included, when it held any: handed to ``git``
            alone, never shown (not in ``repr``, not compared).
    """

    kind: Literal["directory", "archive", "git"]
    location: str
    subdir: str | None = None
    ref: str | None = None
    fetch_url: str | None = field(default=None, repr=False, compare=False)

    @property
    def origin_source(self) -> str:
        """The ``origin.source`` recorded in the lock: location and ``//SUBDIR``, no ``#REF``,
        no credentials."""
        return f"{self.location}//{self.subdir}" if self.subdir else self.location

    @property
    def shown(self) -> str:
        """The source as messages name it: :attr:`origin_source`, with ``***`` where the URL
        given held credentials (``https://***@host/...``, ``?***``)."""
        if self.fetch_url is None:
            return self.origin_source
        shown = redact(self.fetch_url)
        return f"{shown}//{self.subdir}" if self.subdir else shown

    @property
    def url(self) -> str:
        """What ``git`` is given: the URL with its credentials, else :attr:`location`."""
        return self.fetch_url if self.fetch_url is not None else self.location


# A URL: a scheme and "://" (RFC 3986), as git reads one.
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


# git's remote-helper form "<transport>::<address>" (ext:: runs a command): never a source.
_HELPER_RE = re.compile(r"^[A-Za-z0-9+.-]+::")


# Schemes whose user information is a credential, whatever its form: a token may be written as
# the user name alone (https://TOKEN@host/...).
_SECRET_USER_SCHEMES = frozenset({"http", "https", "ftp", "ftps"})


# User information and queries of URLs inside any text (a message of git's, an exception).
_USERINFO_IN_TEXT = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]*@")
_QUERY_IN_TEXT = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^\s?#]*)\?[^\s#'\"]*")
# User information with a password anywhere in a text, URL or not (git's scp-like
# ``user:password@host:path``, a mistyped scheme ``https//u:p@host``, ``https:/u:p@host``): a run
# of characters without a slash, blank, quote or ``@`` that holds a ``:``, then ``@``.
_PASSWORD_IN_TEXT = re.compile(r"(?P<user>[^\s@/:'\"]*):[^\s@/'\"]*@")
# User information right after ``//`` or ``:/`` (a token written as the user name), URL or not.
_TOKEN_IN_TEXT = re.compile(r"(?<=[/:]/)[^\s@/'\"]+@")


def is_url(text: str) -> bool:
    """Whether ``text`` is written as a URL, by its syntax alone (SPEC §25.5, §30.1): a scheme
    and ``://``, or git's scp-like form ``[user@]host:path`` (a ``:`` with no ``/`` before it,
    and more than one character before it, so ``C:`` stays a path)."""
    if _SCHEME_RE.match(text):
        return True
    colon = text.find(":")
    return colon > 1 and "/" not in text[:colon]


def redact(text: str) -> str:
    """``text`` with the user information of every URL written ``***`` and every query ``?***``
    (SPEC §30.1): ``https://user:token@host/r?t=x`` becomes ``https://***@host/r?***``. Text that
    only looks like user information is written ``***`` too, whether or not the text is a URL:
    ``user:password@`` anywhere (``u:t@host:org/r``, ``https//u:t@host/r``,
    ``https:/u:t@host/r``) and ``token@`` right after ``//`` or ``:/``. For messages,
    diagnostics and errors; what is recorded drops them instead (:class:`Source`)."""
    text = _TOKEN_IN_TEXT.sub("***@", _PASSWORD_IN_TEXT.sub("***@", text))
    return _QUERY_IN_TEXT.sub(r"\1?***", _USERINFO_IN_TEXT.sub(r"\1***@", text))


def _public_url(url: str) -> str:
    """``url`` without credentials (see :attr:`Source.location`); a URL holding none is returned
    as it is, character for character."""
    match = _SCHEME_RE.match(url)
    if match is None:  # scp-like: user:password@host:path keeps the user, wherever it stands;
        # a token after ``:/`` or ``//`` (``https:/TOKEN@host/r``) is dropped
        return _TOKEN_IN_TEXT.sub("", _PASSWORD_IN_TEXT.sub(lambda m: f"{m.group('user')}@", url))
    start = match.end()
    scheme = url[: start - 3].lower()
    end = len(url)
    for stop in "/?":
        found = url.find(stop, start)
        if found != -1:
            end = min(end, found)
    netloc, path = url[start:end], url[end:]
    user, at, host = netloc.rpartition("@")
    if at and (scheme in _SECRET_USER_SCHEMES or ":" in user):
        netloc = host if scheme in _SECRET_USER_SCHEMES else f"{user.split(':', 1)[0]}@{host}"
    query = path.find("?")
    if query != -1:
        path = path[:query]
    return url[:start] + netloc + path


# What git's rules for a ref name (``git check-ref-format``) refuse, and what would make a REF
# a refspec (``+``, ``:``) or a revision expression (``~``, ``^``, ``@{``) rather than a name.
_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|^[./+]|[/.]$|\.lock$|^@$")
# A commit id, whole or abbreviated: the only REF looked for beyond the remote's refs.
_COMMIT_ID = re.compile(r"[0-9a-fA-F]{4,40}")


def parse_source(text: str, *, cwd: str | os.PathLike[str] | None = None) -> Source:
    """Parse a SOURCE by its syntax alone (SPEC §25.5, §30.1): what exists on disk never turns a
    URL into a path or a path into a URL.

    - A URL (a scheme and ``://``, or git's ``[user@]host:path``) is a git source
      ``URL[//SUBDIR][#REF]``: ``#REF`` ends the text and ``//SUBDIR`` is the last ``//`` after
      the URL's ``://``. Its credentials are parsed out here, the one place a source is read:
      :attr:`Source.location` holds none, :attr:`Source.fetch_url` keeps them for ``git``.
    - Any other text is a path relative to ``cwd``: with ``#REF``, a local git repository
      (``PATH[//SUBDIR]#REF``); else an archive when its name ends in ``.zip``, ``.skill``,
      ``.tar.gz`` or ``.tgz``, a directory otherwise.

    Raises:
        SkillError: ``invalid_input`` ``{source}`` (credentials written ``***``) for a SOURCE or
            REF starting with ``-``, an empty part, NUL, a git remote-helper address
            (``ext::...``), a path that does not exist, a directory source that is a file, or
            a git repository path that is not a directory.
    """
    if not isinstance(text, str) or not text:
        raise invalid_input("SOURCE must be a non-empty string", {"source": shown_text(text)})
    shown = redact(text)
    if text.startswith("-"):
        raise invalid_input(f"SOURCE must not start with '-': {shown!r}", {"source": shown})
    if "\x00" in text:
        raise invalid_input(f"SOURCE holds a NUL character: {shown!r}", {"source": shown})
    if _HELPER_RE.match(text):
        raise invalid_input(
            f"SOURCE names a git remote helper (<transport>::<address>), never used: {shown!r}",
            {"source": shown},
        )
    base = coerce_path(cwd, "cwd") if cwd is not None else os.getcwd()
    url = is_url(text)
    if not url and "#" not in text:
        local = os.path.abspath(os.path.join(base, text))
        if not os.path.lexists(local):
            raise invalid_input(f"{shown} does not exist and is not a URL", {"source": shown})
        if archive_kind(local) is not None:
            return Source("archive", local)
        if not os.path.isdir(local):
            raise invalid_input(
                f"{shown} is neither a directory nor a .zip, .skill, .tar.gz or .tgz archive",
                {"source": shown},
            )
        return Source("directory", local)
    body, hash_sign, ref = text.partition("#")
    if hash_sign and not ref:
        raise invalid_input(f"empty #REF in {shown!r}", {"source": shown})
    if ref.startswith("-"):
        raise invalid_input(f"REF must not start with '-': {shown!r}", {"source": shown})
    if ref and _BAD_REF.search(ref):
        raise invalid_input(
            f"REF is not a branch, tag or commit name (git's rules for ref names): {shown!r}",
            {"source": shown},
        )
    scheme = body.find("://") if url else -1
    start = scheme + 3 if scheme >= 0 else 0
    cut = body.rfind("//", start)
    location, subdir = (
        (body[:cut], body[cut + 2 :].strip("/")) if cut >= start and cut > 0 else (body, None)
    )
    if subdir == "":
        raise invalid_input(f"empty //SUBDIR in {shown!r}", {"source": shown})
    if not location or location.startswith("-"):
        raise invalid_input(f"no URL in {shown!r}", {"source": shown})
    if not url:
        local = os.path.join(base, location)
        if not os.path.isdir(local):
            raise invalid_input(
                f"{redact(location)} is not a directory holding a git repository",
                {"source": shown},
            )
        return Source("git", os.path.abspath(local), subdir, ref or None)
    public = _public_url(location)
    return Source("git", public, subdir, ref or None, None if public == location else location)


# How many of git's error lines a message keeps, and how long it may grow.
_GIT_PROBLEM_LINES = 4
_GIT_PROBLEM_CHARS = 600


def git_problem(stderr: str) -> str:
    """What a failed ``git`` said, as one line: its ``fatal:``/``error:`` lines when it wrote
    any (the advice after them, "Please make sure you have the correct access rights", left
    out), else every line; at most :data:`_GIT_PROBLEM_LINES` lines joined by ``"; "``, cut at
    :data:`_GIT_PROBLEM_CHARS` characters. ``""`` when git wrote nothing. Credentials are the
    caller's to redact."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    keyed = [line for line in lines if line.startswith(("fatal:", "error:"))]
    text = "; ".join((keyed or lines)[:_GIT_PROBLEM_LINES])
    return text if len(text) <= _GIT_PROBLEM_CHARS else text[: _GIT_PROBLEM_CHARS - 3] + "..."


def _git(args: Sequence[str], cwd: str | None = None, *, source: Source | None = None) -> str:
    """Run ``git`` without a terminal prompt; its output, or ``io_error`` with what it said
    (:func:`git_problem`), credentials redacted (SPEC §30.1). ``git`` finds credentials as it
    always does (its credential helpers, the environment): none are ever read from a lock."""
    git = shutil.which("git")
    if git is None:
        raise SkillError(ErrorCode.IO_ERROR, "git is not on PATH", {"command": "git"})
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}

    def hidden(text: str) -> str:
        if source is not None and source.fetch_url is not None:
            text = text.replace(source.fetch_url, redact(source.fetch_url))
        return redact(text)

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
    except subprocess.TimeoutExpired:
        raise SkillError(
            ErrorCode.IO_ERROR,
            f"git did not finish within {_GIT_TIMEOUT_S} seconds",
            {"command": "git"},
        ) from None
    except OSError as exc:
        raise SkillError(
            ErrorCode.IO_ERROR, f"git failed: {hidden(str(exc))}", {"command": "git"}
        ) from None
    if done.returncode != 0:
        detail = git_problem(done.stderr.decode("utf-8", "replace"))
        message = hidden(detail) if detail else f"exit status {done.returncode}"
        command = next(
            a for i, a in enumerate(args) if a != "-c" and (i == 0 or args[i - 1] != "-c")
        )
        raise SkillError(
            ErrorCode.IO_ERROR, f"git {command} failed: {message}", {"command": f"git {command}"}
        )
    return done.stdout.decode("utf-8", "replace").strip()


def _clone(source: Source, dest: str) -> str:
    """Fetch ``source`` into a new repository at ``dest`` and check out its ref; return the
    commit checked out.

    The repository is made by ``git init`` and filled by ``git fetch`` of the URL itself, never
    by ``git clone``: the URL, credentials included, is not written to the repository's
    configuration (``FETCH_HEAD`` keeps it without them), so a command killed while it fetches
    leaves no credential on disk (SPEC §30.1). A shallow fetch is tried first; a server that
    refuses it (or a ref that is a commit) is fetched whole.

    Raises:
        SkillError: ``not_found`` ``{ref, source}`` for a ref that is no branch, tag or commit
            of the repository; ``io_error`` ``{command}`` when git fails (its message kept).
    """
    # ext:: runs a command; it is refused whatever the user's git configuration allows.
    base = [
        "-c",
        "protocol.ext.allow=never",
        "-c",
        "core.symlinks=true",
        "-c",
        "advice.detachedHead=false",
    ]
    _git(["init", "--quiet", "--", dest])

    def fetch(*refspecs: str, shallow: bool) -> None:
        depth = ["--depth", "1"] if shallow else []
        args = [*base, "fetch", "--quiet", "--no-tags", *depth, "--", source.url, *refspecs]
        _git(args, cwd=dest, source=source)

    # The remote's HEAD, or the ref as a branch or tag name (a commit id where the server
    # lets one be fetched by itself).
    wanted = () if source.ref is None else (source.ref,)
    target = "FETCH_HEAD"
    try:
        fetch(*wanted, shallow=True)
    except SkillError:
        try:
            fetch(*wanted, shallow=False)  # a server without shallow fetches
        except SkillError:
            if source.ref is None:
                raise
            # Not a branch or tag: a commit, found among every branch and tag (a remote that
            # cannot be reached fails here, with git's own words).
            everything = ("+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*")
            fetch(*everything, shallow=False)
            if not _COMMIT_ID.fullmatch(source.ref):
                raise _unknown_ref(source) from None  # (never a name the fetch made here)
            target = source.ref
    # The commit is resolved first, so what reaches checkout is a hex id, never an option.
    try:
        commit = _git(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{target}^{{commit}}"],
            cwd=dest,
        )
    except SkillError:
        raise _unknown_ref(source) from None
    _git([*base, "checkout", "--quiet", "--detach", commit, "--"], cwd=dest)
    return _git(["rev-parse", "HEAD"], cwd=dest)


def _unknown_ref(source: Source) -> SkillError:
    """``not_found`` ``{ref, source}``: the REF is no branch, tag or commit of the repository."""
    return SkillError(
        ErrorCode.NOT_FOUND,
        f"unknown ref {source.ref!r} in {source.shown}: "
        "not a branch, tag or commit of the repository",
        {"ref": source.ref, "source": source.shown},
    )


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
        for cand in plain_candidates(found)
        if cand.manifest is not None and not is_skipped(cand.entry_name)
    ]


def source_skills(tree: Path) -> tuple[list[SourceSkill], list[SkillError]]:
    """The skills of a source tree, and the error of each skill folder that is not one (an
    ``invalid_skill`` manifest, an unreadable file)."""
    skills: list[SourceSkill] = []
    problems: list[SkillError] = []
    for skill_dir in _find_skill_dirs(tree):
        try:
            skills.append(dir_skill(skill_dir))
        except SkillError as err:
            problems.append(err)
    return skills, problems


#: The prefix of the temporary folder a git source is fetched into.
GIT_WORK_PREFIX = "agent-skills-git-"
# The name ``tempfile.mkdtemp`` gives it: the prefix and eight of its random characters.
_GIT_WORK_RE = re.compile(rf"^{re.escape(GIT_WORK_PREFIX)}[a-z0-9_]{{8}}$")
# A folder is swept only once untouched this long (a folder being made is not yet locked).
_GRACE_S = 60.0


@contextmanager
def _git_work() -> Iterator[str]:
    """A new temporary folder (mode 0700) to fetch a git source into, removed at the end, held
    under an exclusive ``flock`` of its ``.lock`` file while in use; first, the folders a
    killed ``add`` or ``update`` left (their lock free: no process holds them) are removed, so
    a kill leaves no clone behind for long."""
    _sweep_git_work(tempfile.gettempdir())
    work = tempfile.mkdtemp(prefix=GIT_WORK_PREFIX)
    try:
        fd = os.open(os.path.join(work, ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            _flock(fd, blocking=True)
            yield work
        finally:
            os.close(fd)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _flock(fd: int, *, blocking: bool) -> bool:
    """Take an exclusive ``flock`` of ``fd``: whether it was taken (``True`` where there is no
    ``flock``: nothing to wait for)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError:
        return blocking  # a filesystem without locks: never taken from another process
    return True


def _sweep_git_work(temp: str) -> None:
    """Remove the fetch folders of ours in ``temp`` that no process holds: named as
    :func:`_git_work` names them (:data:`GIT_WORK_PREFIX` and ``mkdtemp``'s eight characters),
    a real directory (never a link) owned by this user, untouched for :data:`_GRACE_S`, holding
    an empty regular ``.lock`` (opened without following a link or blocking) that could be
    locked at once. Anything else is left as it is."""
    import time

    try:
        names = [n for n in os.listdir(temp) if _GIT_WORK_RE.match(n)]
    except OSError:
        return
    for name in names:
        where = os.path.join(temp, name)
        try:
            st = os.lstat(where)
        except OSError:
            continue
        age = time.time() - st.st_mtime
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or age < _GRACE_S:
            continue
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(os.path.join(where, ".lock"), flags)
        except OSError:
            continue
        try:
            lock = os.fstat(fd)
            ours = stat.S_ISREG(lock.st_mode) and lock.st_size == 0 and lock.st_uid == os.getuid()
            if ours and _flock(fd, blocking=False):
                shutil.rmtree(where, ignore_errors=True)
        except OSError:
            continue
        finally:
            os.close(fd)


@contextmanager
def opened_source(
    source: Source,
) -> Iterator[tuple[list[SourceSkill], list[SkillError], str | None]]:
    if source.kind == "directory":
        skills, problems = source_skills(Path(source.location))
        yield skills, problems, None
        return
    if source.kind == "archive":
        index = read_index(source.location)
        yield _archive_skills(index), [], None
        return
    with _git_work() as work:
        clone = os.path.join(work, "clone")
        commit = _clone(source, clone)
        tree = Path(clone)
        if source.subdir is not None:
            tree = resolve_resource_path(clone, source.subdir)
            if not tree.is_dir():
                raise SkillError(
                    ErrorCode.NOT_FOUND,
                    f"no directory {source.subdir!r} in {source.shown}",
                    {"source": source.shown, "rel": source.subdir},
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
