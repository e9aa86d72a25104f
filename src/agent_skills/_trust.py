"""Trust for workspace skills: approvals bound to a skill's content (SPEC §23.3).

A cloned repository can carry ``.agents/skills`` (or any other workspace-scope root); with a
:class:`TrustStore` such a skill is served only once somebody approved it *as it is now*. An
approval records the skill's real directory, its digest (:func:`agent_skills._digest.skill_digest`,
the digest the lock of SPEC §25 uses too) and the per-file digests behind it; any change to the
manifest or to a listed file (added, removed, resized, rewritten) revokes it.

Data flows one way: discovery asks :meth:`TrustStore.verdict` about each workspace-scope skill it
found (``_registry``); reads of an approved skill go through :meth:`TrustStore.check_read`
(``_core``), which refuses a file the approval does not cover or whose bytes changed.

The store is a JSON file the caller names, created on the first approval and written atomically
(a temporary file in the same directory, ``fsync``, rename)::

    {"version": 1,
     "approvals": {"/real/skill/dir": {"digest": "sha256:<hex>",
                                        "files": {"SKILL.md": [size, "sha256:<hex>"], ...}}}}
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ._archive import ArchivedSkill, archived_digest, locate
from ._args import coerce_path
from ._config import DEFAULT_MAX_RESOURCE_BYTES, DEFAULT_MAX_RESOURCES
from ._confine import (
    Pin,
    absolute,
    is_file_pin,
    open_in,
    pin_by_name,
    pin_file,
    read_pinned_manifest,
    real_path,
)
from ._diagnostics import get_logger
from ._digest import FileDigest, digest_skill, file_digest
from ._errors import ErrorCode, SkillError, fs_error, invalid_input
from ._fs import read_capped
from ._jsonfile import read_json_file
from ._resources import list_resources
from ._scan import find_manifest

__all__ = [
    "CHANGED",
    "NOT_APPROVED",
    "Approval",
    "TrustStore",
    "digest_pinned",
    "digest_skill_dir",
]

logger = get_logger()

#: Report reason of a workspace skill the store holds no approval for.
NOT_APPROVED = "not approved"
#: Report reason of a workspace skill whose content differs from its approval.
CHANGED = "changed since approval"

_VERSION = 1
#: The largest trust store file read back, in bytes.
MAX_STORE_BYTES = 64 * 1024 * 1024
# The largest file hashed for an approval: the read cap of SPEC §20.5.
_MAX_FILE_BYTES = DEFAULT_MAX_RESOURCE_BYTES


@dataclass(frozen=True, slots=True)
class Approval:
    """One approved skill (SPEC §23.3).

    Attributes:
        dir: The skill's real directory.
        digest: The skill digest, ``sha256:<hex>``.
        files: ``{rel: (size, "sha256:<hex>")}`` of ``SKILL.md`` and every listed resource.
    """

    dir: Path
    digest: str
    files: Mapping[str, tuple[int, str]]


def _read_pinned(pin: Pin, name: str, base: str, rel: str) -> bytes:
    """The bytes of ``rel`` reached from the pinned directory (SPEC §20.1), at most the cap, its
    size taken from the open descriptor (SPEC §30.3); of a single-file skill (SPEC §29.2), its
    one file, checked against its pin."""
    if is_file_pin(pin):
        data = read_pinned_manifest(pin, name, _MAX_FILE_BYTES)
        if data is None:
            raise SkillError(
                ErrorCode.TOO_LARGE,
                f"{base} is larger than {_MAX_FILE_BYTES} bytes",
                {"rel": rel, "max_bytes": _MAX_FILE_BYTES},
            )
        return data
    with open_in(pin, name, base, rel) as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            data = read_capped(fh, size, _MAX_FILE_BYTES)
        except OSError as exc:
            raise fs_error(exc, Path(base, rel)) from None
    if data is None:
        raise SkillError(
            ErrorCode.TOO_LARGE,
            f"{rel} in {base} is larger than {_MAX_FILE_BYTES} bytes",
            {"rel": rel, "max_bytes": _MAX_FILE_BYTES},
        )
    return data


def digest_pinned(
    pin: Pin,
    skill_dir: str | os.PathLike[str],
    manifest: tuple[str, bytes],
    *,
    name: str = "",
    follow_symlinks: bool = True,
    max_resources: int = DEFAULT_MAX_RESOURCES,
) -> tuple[str, tuple[FileDigest, ...]]:
    """Hash a pinned skill: the manifest bytes given, the resources through the pin (SPEC §23.3).

    The one way a skill on disk is hashed for trust. The manifest is hashed from the very bytes
    the caller parsed (never read again by name, so a manifest swapped in between cannot be
    approved by the bytes of another); the resources are listed and read from the pinned
    directory's descriptor (``_resources.list_resources`` and ``_confine.open_in``), so a
    directory swapped or repointed after discovery is ``stale_skill``, never hashed.

    Args:
        pin: The skill's pin (SPEC §20.1).
        skill_dir: The skill directory as configured (resource paths are checked under it).
        manifest: ``(rel, bytes)`` of the manifest as read for parsing.
        name: The skill's name, for errors.
        follow_symlinks, max_resources: As the discovery configuration.

    Returns:
        ``(skill digest, files)`` as :func:`digest_skill_dir`.

    Raises:
        SkillError: ``stale_skill`` ``{name, dir}``; a confined read's code (``path_escape``,
            ``not_found``, ``not_a_file``, ``io_error``, ``too_large``).
    """
    base = absolute(os.fspath(skill_dir))
    manifest_rel, data = manifest

    def read(rel: str) -> bytes:
        return data if rel == manifest_rel else _read_pinned(pin, name, base, rel)

    if is_file_pin(pin):  # a single-file skill is its one file (SPEC §29.2)
        return digest_skill([manifest_rel], read)
    listing = list_resources(
        Path(base), follow_symlinks=follow_symlinks, max_resources=max_resources, pin=pin, name=name
    )
    return digest_skill([manifest_rel, *(r.rel for r in listing.resources)], read)


def digest_skill_dir(
    skill_dir: str | os.PathLike[str],
    *,
    follow_symlinks: bool = True,
    max_resources: int = DEFAULT_MAX_RESOURCES,
) -> tuple[str, tuple[FileDigest, ...]]:
    """Hash a skill directory as discovery would serve it now (SPEC §9, §23.3).

    The directory is pinned now; the files are the manifest (``SKILL.md``, or the case variant
    discovery picks) and every resource :func:`~agent_skills._resources.list_resources` lists,
    each read from the pinned directory (:func:`digest_pinned`), so no link leads the hash
    outside the skill.

    Args:
        skill_dir: The skill directory.
        follow_symlinks, max_resources: As the discovery configuration.

    Returns:
        ``(skill digest, files)``: ``sha256:<hex>`` and one :class:`FileDigest` per file, sorted
        by ``rel`` in code-point order.

    Raises:
        SkillError: ``not_found`` ``{path}`` when the directory holds no manifest; a confined
            read's code (``path_escape``, ``not_a_file``, ``io_error``, ``too_large``,
            ``stale_skill``).
    """
    base = os.fspath(skill_dir)
    archived = locate(base)
    if archived is not None:  # a skill of an archive root (SPEC §25.1)
        return archived_digest(archived, max_resources)
    if os.path.isfile(base):  # a single-file skill (SPEC §29.2): the file alone
        pin = _pin_single_file(base)
        data = _read_pinned(pin, "", base, os.path.basename(base))
        return digest_pinned(pin, base, (os.path.basename(base), data))
    lookup = find_manifest(base, follow_symlinks=follow_symlinks)
    if lookup.name is None:
        raise SkillError(
            ErrorCode.NOT_FOUND,
            f"No skill manifest in {base}: {lookup.skip_reason}",
            {"path": base},
        )
    pin = pin_by_name(base, "")
    manifest = _read_pinned(pin, "", absolute(base), lookup.name)
    return digest_pinned(
        pin,
        base,
        (lookup.name, manifest),
        follow_symlinks=follow_symlinks,
        max_resources=max_resources,
    )


def _real_dir(skill_dir: object) -> str:
    """The real directory an approval is keyed by (a link resolved, SPEC §23.3).

    Raises:
        SkillError: ``invalid_input`` ``{type}`` or ``{path}`` for an unusable argument;
            ``not_found`` ``{path}`` when its links cannot be resolved within 40 hops (SPEC §30.6).
    """
    text = os.path.abspath(coerce_path(skill_dir, "skill_dir", usable=True))
    real = real_path(text)
    if real is None:
        raise SkillError(
            ErrorCode.NOT_FOUND, f"skill directory cannot be resolved: {text}", {"path": text}
        )
    return real


def _pin_single_file(path: str) -> Pin:
    """Pin the file at ``path`` (its real path and identity, now) as a single-file skill.

    Raises:
        SkillError: ``not_found`` ``{path}`` when it is no longer a regular file.
    """
    real = _real_dir(path)
    try:
        st = os.stat(real, follow_symlinks=False)
    except OSError as exc:
        raise fs_error(exc, Path(path)) from None
    if not stat.S_ISREG(st.st_mode):
        raise SkillError(ErrorCode.NOT_FOUND, f"No skill file at {path}", {"path": path})
    return pin_file(real, st)


class TrustStore:
    """Approvals of workspace-scope skills, kept in a JSON file (SPEC §23.3).

    Pass it as ``create_agent_skills(..., trust=store)``: a skill from a root of scope
    ``workspace`` is then served only when the store holds an approval for its real directory
    whose digest equals the skill's current digest; user-scope roots stay trusted. Thread-safe;
    the file is re-read when another process changed it.

    Args:
        path: The store file (created on the first approval, with its folder); a leading
            ``~`` is the home directory.

    Raises:
        SkillError: ``invalid_input`` ``{type}`` when ``path`` is not a ``str`` or
            ``os.PathLike[str]``, ``{path}`` when it is empty or holds a NUL.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        text = coerce_path(path, "trust store path", usable=True)
        self._path = Path(os.path.abspath(os.path.expanduser(text)))
        self._lock = threading.Lock()
        self._cache_key: tuple[int, int, int] | None = None
        self._approvals: dict[str, Approval] = {}
        # Real directories whose bytes were seen to differ from their approval while serving:
        # refused until approved again, even if the file changes back.
        self._changed: set[str] = set()

    def __repr__(self) -> str:
        return f"TrustStore({str(self._path)!r})"

    @property
    def path(self) -> Path:
        """The store file."""
        return self._path

    # -- the file ----------------------------------------------------------------------------

    def _load(self) -> dict[str, Approval]:
        """The approvals on disk (cached by the file's identity); ``{}`` for no file.

        Read by :func:`~agent_skills._jsonfile.read_json_file`: a FIFO or device never blocks, a
        file over :data:`MAX_STORE_BYTES` or nested too deep is refused with a coded error.
        """
        try:
            st = os.stat(self._path)
        except FileNotFoundError:
            self._cache_key, self._approvals = None, {}
            return self._approvals
        except OSError as exc:
            raise fs_error(exc, self._path) from None
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if key == self._cache_key:
            return self._approvals
        where = os.fspath(self._path)
        raw = read_json_file(
            where, max_bytes=MAX_STORE_BYTES, what="trust store", errors="surrogateescape"
        )
        try:
            approvals = _parse(raw)
        except (ValueError, TypeError, KeyError) as exc:
            raise invalid_input(
                f"trust store {self._path} is not a valid store file: {exc}",
                {"path": where, "reason": str(exc)},
            ) from None
        self._cache_key, self._approvals = key, approvals
        return approvals

    def _write(self, approvals: Mapping[str, Approval]) -> None:
        document = {
            "version": _VERSION,
            "approvals": {
                key: {
                    "digest": approval.digest,
                    "files": {rel: [size, sha] for rel, (size, sha) in approval.files.items()},
                }
                for key, approval in sorted(approvals.items())
            },
        }
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        import tempfile

        directory = self._path.parent
        try:
            # SPEC §23.3: the store is created on the first approval, with its folder.
            directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self._path.name}.", dir=directory)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(text.encode("utf-8", "surrogateescape"))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, self._path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            raise fs_error(exc, self._path) from None
        self._cache_key = None  # read back next time

    # -- public API --------------------------------------------------------------------------

    def approve(
        self,
        skill_dir: str | os.PathLike[str],
        *,
        follow_symlinks: bool = True,
        max_resources: int = DEFAULT_MAX_RESOURCES,
    ) -> str:
        """Approve the skill in ``skill_dir`` as it is now; return its digest (SPEC §23.3).

        Replaces an earlier approval of the same real directory and clears a
        ``changed since approval`` mark.

        Args:
            skill_dir: The skill directory (a link is resolved: the approval is for its target),
                or a single-file skill's file (SPEC §29.2).
            follow_symlinks, max_resources: As the discovery configuration that will serve it.

        Returns:
            The skill digest, ``sha256:<hex>``.

        Raises:
            SkillError: As :func:`digest_skill_dir`; ``invalid_input`` ``{type}`` when
                ``skill_dir`` is not a ``str`` or ``os.PathLike[str]``; the store errors of
                :meth:`approved`; ``io_error`` when the store (or its folder) cannot be written;
                ``not_found`` ``{path}`` when the links of ``skill_dir`` cannot be resolved
                within 40 hops.
        """
        real = _real_dir(skill_dir)
        digest, files = digest_skill_dir(
            real, follow_symlinks=follow_symlinks, max_resources=max_resources
        )
        approval = Approval(
            Path(real), digest, MappingProxyType({f.rel: (f.size, f.sha256) for f in files})
        )
        with self._lock:
            approvals = dict(self._load())
            approvals[real] = approval
            self._write(approvals)
            self._changed.discard(real)
        return digest

    def revoke(self, skill_dir: str | os.PathLike[str]) -> bool:
        """Remove the approval of ``skill_dir``'s real directory (SPEC §23.3).

        Returns:
            ``True`` when there was one.

        Raises:
            SkillError: ``invalid_input`` ``{type}`` when ``skill_dir`` is not a ``str`` or
                ``os.PathLike[str]``; the store errors of :meth:`approved`; ``not_found``
                ``{path}`` when the links of ``skill_dir`` cannot be resolved within 40 hops.
        """
        real = _real_dir(skill_dir)
        with self._lock:
            approvals = dict(self._load())
            if approvals.pop(real, None) is None:
                return False
            self._write(approvals)
        return True

    def approved(self) -> dict[Path, str]:
        """Return ``{real skill directory: digest}`` of every approval (a new dict, SPEC §23.5).

        Raises:
            SkillError: ``invalid_input`` ``{path, reason}`` for a store file that is not a store
                (not UTF-8 JSON, nested deeper than 64 levels, not of this format);
                ``not_a_file`` ``{path}`` for a directory, FIFO, socket or device (never read,
                never waited on); ``too_large`` ``{path, max_bytes}`` over
                :data:`MAX_STORE_BYTES`; ``io_error``.
        """
        with self._lock:
            return {Path(key): approval.digest for key, approval in self._load().items()}

    # -- used by discovery and reads ---------------------------------------------------------

    def verdict(
        self,
        pin: Pin | None,
        skill_dir: str | os.PathLike[str],
        manifest: tuple[str, bytes] | None,
        *,
        name: str = "",
        follow_symlinks: bool,
        max_resources: int,
        archived: ArchivedSkill | None = None,
    ) -> tuple[Approval | None, str]:
        """Decide whether a workspace-scope skill may be served (SPEC §23.3).

        The digest compared with the approval is taken from what is served: the manifest bytes
        that were parsed and the resources reached through the pin (:func:`digest_pinned`).

        Args:
            pin: The skill's pin, taken when its directory was opened (SPEC §20.1); the approval
                looked up is that of ``pin.real_dir``. ``None`` (not pinned) approves nothing.
            skill_dir: The skill directory as configured.
            manifest: ``(rel, bytes)`` of the manifest as read for parsing; ``None`` when the
                bytes are not at hand (then nothing is approved).
            name: The skill's name, for errors.
            follow_symlinks, max_resources: As the discovery configuration.
            archived: For a skill of an archive root (SPEC §25.1), how it lives there: it is
                hashed from the pinned archive (``pin`` and ``manifest`` are then not used).

        Returns:
            ``(approval, "")`` when it may; ``(None, reason)`` otherwise, the reason being
            :data:`NOT_APPROVED` or :data:`CHANGED`. A store that cannot be read approves
            nothing (the reason then names the problem); a skill that cannot be hashed is
            :data:`CHANGED`.
        """
        if archived is not None:
            real = os.fspath(archived.real_dir)
        elif pin is None:
            return None, CHANGED
        else:
            real = pin.real_dir
        with self._lock:
            try:
                approval = self._load().get(real)
            except SkillError as err:
                logger.warning("%s: no workspace skill is trusted", err.message)
                return None, f"{NOT_APPROVED} (trust store unreadable: {err.code.value})"
            if approval is None:
                return None, NOT_APPROVED
            if real in self._changed:
                return None, CHANGED
        if archived is not None:
            try:
                digest = archived_digest(archived, max_resources)[0]
            except SkillError:
                return None, CHANGED
            return (approval, "") if digest == approval.digest else (None, CHANGED)
        if manifest is None or pin is None:
            return None, CHANGED
        try:
            digest, _ = digest_pinned(
                pin,
                skill_dir,
                manifest,
                name=name,
                follow_symlinks=follow_symlinks,
                max_resources=max_resources,
            )
        except SkillError:
            return None, CHANGED
        if digest != approval.digest:
            return None, CHANGED
        return approval, ""

    def admits(self, approval: Approval | None) -> bool:
        """Whether a skill served under ``approval`` may still be served (SPEC §23.3).

        The one rule every access applies (listing, loading, reads, ``check_read``,
        ``allowed_read_roots``, the MCP server): a skill without an approval (not gated) is
        admitted; a gated one is not once a read saw its bytes differ from the approval (it is
        then ``changed since approval`` until approved again). No filesystem access.
        """
        if approval is None:
            return True
        with self._lock:
            return os.fspath(approval.dir) not in self._changed

    def still_approved(
        self,
        approval: Approval,
        pin: Pin,
        skill_dir: str | os.PathLike[str],
        manifest_rel: str,
        *,
        name: str,
        follow_symlinks: bool,
        max_resources: int,
    ) -> bool:
        """Hash the gated skill now, through its pin, and compare with ``approval`` (SPEC §23.3).

        For accesses that grant a whole directory (``allowed_read_roots``): the manifest and
        every listed resource are read from the pinned directory; a digest that differs, or a
        skill that cannot be hashed, marks it ``changed since approval`` and returns ``False``.
        """
        if not self.admits(approval):
            return False
        base = absolute(os.fspath(skill_dir))
        try:
            manifest = _read_pinned(pin, name, base, manifest_rel)
            digest, _ = digest_pinned(
                pin,
                base,
                (manifest_rel, manifest),
                name=name,
                follow_symlinks=follow_symlinks,
                max_resources=max_resources,
            )
        except SkillError:
            digest = ""
        if digest == approval.digest:
            return True
        with self._lock:
            self._changed.add(os.fspath(approval.dir))
        return False

    def refusal(self, name: str, rel: str | None = None) -> SkillError:
        """The ``access_denied`` error for a gated skill that is not admitted (SPEC §23.3).

        Returns:
            ``SkillError(access_denied)`` with ``fields`` ``{name}`` (and ``rel`` when given).
        """
        fields: dict[str, object] = {"name": name}
        if rel is not None:
            fields["rel"] = rel
        return SkillError(
            ErrorCode.ACCESS_DENIED,
            f"Skill '{name}' changed since it was approved; approve it again",
            fields,
        )

    def check_read(self, approval: Approval, name: str, rel: str, data: bytes) -> None:
        """Refuse bytes of an approved skill that its approval does not cover (SPEC §23.3).

        Args:
            approval: The approval the skill was served under.
            name: The skill's name (for the error).
            rel: The file's POSIX path relative to the skill directory.
            data: The bytes about to be served.

        Raises:
            SkillError: ``access_denied`` ``{name, rel}`` when the skill was marked changed,
                ``rel`` is not one of the approved files (a hidden file asked for by name), or
                ``data`` differs from the approved size and digest; the last case marks the
                skill ``changed since approval`` until it is approved again.
        """
        key = os.fspath(approval.dir)
        fields = {"name": name, "rel": rel}
        with self._lock:
            if key in self._changed:
                raise self.refusal(name, rel)
            expected = approval.files.get(rel)
            if expected is None:
                raise SkillError(
                    ErrorCode.ACCESS_DENIED,
                    f"'{rel}' is not one of the approved files of skill '{name}'",
                    fields,
                )
            if expected != (len(data), file_digest(data)):
                self._changed.add(key)
                raise SkillError(
                    ErrorCode.ACCESS_DENIED,
                    f"'{rel}' of skill '{name}' changed since the skill was approved",
                    fields,
                )


def _parse(raw: Any) -> dict[str, Approval]:
    """Validate a decoded store file; raise ``ValueError``/``TypeError``/``KeyError``."""
    if not isinstance(raw, dict) or raw.get("version") != _VERSION:
        raise ValueError(f'expected an object with "version": {_VERSION}')
    entries = raw["approvals"]
    if not isinstance(entries, dict):
        raise TypeError("'approvals' is not an object")
    out: dict[str, Approval] = {}
    for key, entry in entries.items():
        digest, files = entry["digest"], entry["files"]
        if not isinstance(digest, str) or not isinstance(files, dict):
            raise TypeError(f"approval of {key} is malformed")
        table: dict[str, tuple[int, str]] = {}
        for rel, pair in files.items():
            size, sha = pair
            if not isinstance(size, int) or not isinstance(sha, str):
                raise TypeError(f"file {rel} of {key} is malformed")
            table[rel] = (size, sha)
        out[key] = Approval(Path(key), digest, MappingProxyType(table))
    return out
