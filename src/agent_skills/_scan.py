"""Listing roots and finding manifests (SPEC §4). The only place that lists roots.

The scan is lenient by construction: a missing, unreadable or non-directory root contributes
nothing, and every child entry that is a directory or a symlink yields exactly one
:class:`Candidate` saying what it is, so that the discovery report can account for all of them.
The search below a root's children is ``_walk``'s; parsing is ``_manifest``'s, the manifest rule
``_model``'s.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any, NamedTuple

from ._config import DEFAULT_MAX_MANIFEST_BYTES, SkillRoot
from ._confine import (
    Pin,
    absolute,
    open_child_dir,
    open_file,
    open_real_dir,
    pin_directory,
    pin_file,
    pin_of,
    reach,
    real_path,
    resolve,
)
from ._diagnostics import Diagnostic, DiagnosticKind, RootNote, RootStatus
from ._errors import ErrorCode, SkillError, fs_error, gone_or_link
from ._fs import FILE_FLAGS, LIST_FLAGS, child_path, read_limited
from ._model import (
    MANIFEST_NAME,
    accepts_single_files,
    choose_manifest,
    install_work,
    single_file_id,
    sort_text,
)

if TYPE_CHECKING:
    from ._index import CachedSkill, ManifestIndex

__all__ = [
    "INSTALL_WORK",
    "NOT_A_SKILL_FILE",
    "NO_MANIFEST",
    "Candidate",
    "IndexHit",
    "ManifestLookup",
    "dir_like",
    "find_manifest",
    "hit_candidate",
    "install_work_skipped",
    "list_root",
    "scan_entry",
    "scan_root",
    "scan_single_file",
]

_MANIFEST_LOWER = MANIFEST_NAME.lower()  # (is_manifest_name, inline in the hot loop)

#: The skip reason of a directory that holds no manifest: a nested walk searches below it.
NO_MANIFEST = f"no {MANIFEST_NAME} in directory"

#: The skip reason of a root's entry that is an install's work (:func:`~._model.install_work`).
INSTALL_WORK = (
    "the work of an add, update or remove, running or left unfinished "
    "(the next one finishes or undoes it)"
)


class Candidate(NamedTuple):
    """One directory-or-symlink child of a root and what the scan found in it (read-only).

    A named tuple: the scan makes one per entry, and a tuple is the cheapest read-only record
    to make (SPEC §26; docs/performance.md).

    Attributes:
        root: The configured root.
        entry_name: The child's name in the root.
        dir: ``root.path / category / entry_name`` (the link path for a linked skill).
        manifest: The manifest path (``dir / <on-disk name>``) or ``None``.
        location: ``str(manifest)`` (``""`` without one), built from the listing's own strings:
            I/O goes through it so that the snapshot's paths do not each cache their text.
        data: The manifest bytes, when read.
        error: The ``fs_error`` of a failed manifest read.
        skip_reason: Why the entry is not a skill candidate (``None`` when it is one).
        diagnostics: Problems found for this entry.
        cached: The parse outcome the on-disk index holds for this directory (then ``data`` is
            ``None``: the manifest was not read), SPEC §26.
        stamp: For the index, what a miss recorded: whether the entry is a link, then the
            directory's and the manifest's ``os.stat_result``, taken before the manifest was read;
            ``None`` when the directory cannot be kept in the index.
        category: The POSIX path of the entry's parent relative to the root (``""`` at depth 1,
            SPEC §21.4).
        pin: The directory's real path and identity, taken when it was opened (SPEC §20.1).
        note: A remark for the report entry of a loaded skill (``manifest_outside``).
    """

    root: SkillRoot
    entry_name: str
    dir: Path
    manifest: Path | None = None
    location: str = ""
    data: bytes | None = None
    error: SkillError | None = None
    skip_reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    cached: CachedSkill | None = None
    stamp: tuple[bool, os.stat_result, os.stat_result] | None = None
    category: str = ""
    pin: Pin | None = None
    note: str = ""

    def with_skip_reason(self, skip_reason: str) -> Candidate:
        """A copy of this candidate with another ``skip_reason``."""
        return self._replace(skip_reason=skip_reason)


class IndexHit(NamedTuple):
    """A plain skill directory the on-disk index vouches for (SPEC §26): its stamps were checked
    by the scan, its candidate is built when first needed (:func:`hit_candidate`).

    Attributes:
        root: The configured root.
        entry: The root's listed entry (a directory, not a link); its ``path`` is the index
            entry's key.
        real_parent: The real path of the directory ``entry`` is listed in.
        hops: Links followed to reach it (see :func:`~._confine.pin_of`).
        dev: The directory's ``st_dev`` as checked.
        ino: The directory's ``st_ino`` as checked.
        record: The index entry, as the header holds it (see ``_index_format.short_entry``).
    """

    root: SkillRoot
    entry: os.DirEntry[str]
    real_parent: str
    hops: int
    dev: int
    ino: int
    record: list[Any]


def hit_candidate(
    hit: IndexHit, index: ManifestIndex, *, follow_symlinks: bool, cap: int
) -> Candidate:
    """The :class:`Candidate` of ``hit``, built from its index entry as a scan of the directory
    would have built it (SPEC §26); a candidate equal to one an earlier scan of this process
    built from the same inputs is that one (a read-only value). An entry that turns out damaged
    is dropped from the index (``index_ignored``) and the directory is scanned now instead."""
    root, entry = hit.root, hit.entry
    cached = index.restore_child(entry.path)
    if cached is None:
        return scan_entry(root, entry, False, follow_symlinks, index, cap=cap)
    inputs = (root, entry.path, hit.real_parent, hit.hops, hit.dev, hit.ino)
    last = cached.candidate
    if last is not None and last[0] == inputs:
        cand: Candidate = last[1]
        return cand
    name = cached.manifest_name
    path = child_path(root.path, entry.name)
    # Every field in order, made as the tuple it is (no keyword to match, no Python call).
    cand = _new_candidate(
        Candidate,
        (
            root,
            entry.name,
            path,
            child_path(path, name),
            f"{entry.path}/{name}",  # os.path.join's result: a listed path never ends with "/"
            None,
            None,
            None,
            cached.scan_diagnostics,
            cached,
            None,
            "",
            pin_of(hit.real_parent, hit.dev, hit.ino, hit.hops, entry.name),
            "",
        ),
    )
    cached.candidate = (inputs, cand)
    return cand


def list_root(root: SkillRoot) -> tuple[RootNote, list[os.DirEntry[str]]]:
    """The root's :class:`RootNote` and its entries in ``(casefold, name)`` order; nothing is
    raised (a missing, unreadable or non-directory root has none)."""
    path = os.fspath(root.path)
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except FileNotFoundError:
        return RootNote(root.path, RootStatus.MISSING, "root does not exist"), []
    except NotADirectoryError:
        return RootNote(root.path, RootStatus.NOT_A_DIRECTORY, "root is not a directory"), []
    except OSError as exc:
        return RootNote(root.path, RootStatus.UNREADABLE, fs_error(exc, path).message), []
    except ValueError as exc:  # NUL in a configured path
        return RootNote(root.path, RootStatus.UNREADABLE, str(exc)), []
    entries.sort(key=lambda e: sort_text(e.name))  # (file names: no NUL)
    return RootNote(root.path, RootStatus.OK), entries


def _too_large(where: Path, size: int, cap: int) -> SkillError:
    return SkillError(
        ErrorCode.TOO_LARGE,
        f"manifest {where} is larger than {cap} bytes ({size} bytes; max_manifest_bytes)",
        {"path": str(where), "size": size, "max_bytes": cap},
    )


class ManifestLookup(NamedTuple):
    """What :func:`find_manifest` found in one directory.

    Attributes:
        name: The chosen manifest's on-disk name, or ``None`` when there is none.
        path: ``os.path.join(dir, name)`` as text (``""`` without a manifest).
        skip_reason: Why there is no manifest (``None`` when ``name`` is set).
        diagnostics: ``io_error`` (directory unreadable), ``dangling_symlink`` (a variant that is
            a dangling link), ``manifest_case`` (the chosen name is not exactly ``SKILL.md``).
        linked: Whether a variant is a symlink: what it leads to can change while the directory
            does not, so the on-disk index does not keep such a directory (SPEC §26).
        outside: For a manifest that is a link leading outside the skill directory (SPEC
            §20.3), the link's real target; else ``None``.
    """

    name: str | None
    path: str = ""
    skip_reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    linked: bool = False
    outside: str | None = None


def find_manifest(
    dir: str | os.PathLike[str],
    *,
    follow_symlinks: bool,
    dir_fd: int | None = None,
    pin: Pin | None = None,
) -> ManifestLookup:
    """Find a skill's manifest by listing the directory, never by ``exists()`` (SPEC §4, §20).

    The one rule for every caller (discovery, ``validate``, the CLI): an entry whose lower-cased
    name is ``skill.md`` and which is a regular file, or with ``follow_symlinks`` a symlink to
    one (resolved as resource links are, SPEC §10; one leading outside the skill is used and
    named in ``outside``, SPEC §20.3). Exact ``SKILL.md`` wins; otherwise the first variant in
    ``(casefold, name)`` order. A variant that is a FIFO, socket or device (or a link to one) is
    never used and gets a ``not_a_file`` diagnostic (SPEC §20.4).

    Args:
        dir: The directory to look in (text or path-like).
        follow_symlinks: Whether a manifest that is a symlink (to a regular file) is used.
        dir_fd: A descriptor of ``dir`` to list through (discovery's pinned descriptor); ``None``
            opens ``dir`` now.
        pin: ``dir``'s pin when ``dir_fd`` is given.

    Returns:
        A :class:`ManifestLookup`. Nothing is raised: an unlistable directory is a skip reason
        with an ``io_error`` diagnostic.
    """
    dir_text = os.fspath(dir)
    own = dir_fd is None or pin is None
    try:
        if dir_fd is None or pin is None:
            dir_fd = os.open(dir_text, LIST_FLAGS)
            try:
                real = real_path(absolute(dir_text))
                if real is None:  # its links changed, or cannot be resolved within the budget
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
                pin = pin_directory(real, dir_fd)
            except OSError:
                os.close(dir_fd)
                raise
    except (OSError, ValueError) as exc:
        where = Path(dir_text)
        message = fs_error(exc, where).message if isinstance(exc, OSError) else str(exc)
        diag = Diagnostic(DiagnosticKind.IO_ERROR, f"skipping {where}: {message}", where)
        return ManifestLookup(
            None, skip_reason=f"directory unreadable: {message}", diagnostics=(diag,)
        )
    try:
        return _lookup(dir_text, dir_fd, pin, follow_symlinks)
    finally:
        if own:
            os.close(dir_fd)


def _lookup(dir_text: str, fd: int, pin: Pin, follow_symlinks: bool) -> ManifestLookup:
    diags: list[Diagnostic] = []
    try:
        with os.scandir(fd) as it:
            # is_manifest_name, inline: it runs for every entry of every skill (SPEC §26).
            variants = [e for e in it if e.name.lower() == _MANIFEST_LOWER]
    except OSError as exc:
        where = Path(dir_text)
        message = fs_error(exc, where).message
        diag = Diagnostic(DiagnosticKind.IO_ERROR, f"skipping {where}: {message}", where)
        return ManifestLookup(
            None, skip_reason=f"directory unreadable: {message}", diagnostics=(diag,)
        )
    if len(variants) == 1 and variants[0].name == MANIFEST_NAME:
        try:
            plain = variants[0].is_file(follow_symlinks=False)  # a regular file, not a link
        except OSError:
            plain = False
        if plain:  # the common case, as the loop below decides it
            joined = (
                f"{dir_text}/{MANIFEST_NAME}"  # os.path.join's result, without its generic steps
                if dir_text and not dir_text.endswith("/")
                else os.path.join(dir_text, MANIFEST_NAME)
            )
            return ManifestLookup(MANIFEST_NAME, joined)
    usable: list[str] = []
    outside: dict[str, str] = {}
    unfollowed: list[str] = []
    dangling: list[str] = []
    special: list[str] = []
    linked = False
    if len(variants) > 1:
        variants.sort(key=_entry_key)
    for entry in variants:
        try:
            if entry.is_symlink():
                linked = True
                if not follow_symlinks:
                    unfollowed.append(entry.name)
                    continue
                kind, target = _classify_link(fd, pin, entry.name)
                if kind == "ok":
                    usable.append(entry.name)
                elif kind == "outside":
                    usable.append(entry.name)
                    outside[entry.name] = target
                elif kind == "special":
                    special.append(entry.name)
                elif kind == "dangling":
                    dangling.append(entry.name)
                    link = os.path.join(dir_text, entry.name)
                    diags.append(
                        Diagnostic(
                            DiagnosticKind.DANGLING_SYMLINK,
                            f"skipping dangling symlink {link}",
                            Path(link),
                        )
                    )
            elif entry.is_file(follow_symlinks=False):
                usable.append(entry.name)
            elif not entry.is_dir(follow_symlinks=False):
                special.append(entry.name)
        except OSError:
            continue
    for name in special:
        path = os.path.join(dir_text, name)
        diags.append(
            Diagnostic(
                DiagnosticKind.NOT_A_FILE,
                f"ignoring {path}: not a regular file (a FIFO, socket or device)",
                Path(path),
            )
        )
    if not usable:
        if unfollowed:
            reason = f"manifest {unfollowed[0]} is a symlink, not followed (follow_symlinks=False)"
        elif dangling:
            reason = f"manifest {dangling[0]} is a dangling symlink"
        elif special:
            reason = f"manifest {special[0]} is not a regular file"
        else:
            reason = NO_MANIFEST
        return ManifestLookup(None, skip_reason=reason, diagnostics=tuple(diags), linked=linked)
    chosen = choose_manifest(usable)
    assert chosen is not None
    path = os.path.join(dir_text, chosen)
    if chosen != MANIFEST_NAME:
        diags.append(
            Diagnostic(
                DiagnosticKind.MANIFEST_CASE,
                f"using {path} as the manifest of {dir_text} (expected {MANIFEST_NAME})",
                Path(path),
            )
        )
    return ManifestLookup(chosen, path, None, tuple(diags), linked, outside.get(chosen))


def _classify_link(fd: int, pin: Pin, name: str) -> tuple[str, str]:
    """What the manifest link ``name`` leads to: ``("ok" | "outside" | "special" | "dangling" |
    "other", real target of an outside link)``."""
    try:
        hit = reach(pin, "", name, name, base_fd=fd)
    except SkillError as err:
        if err.code == ErrorCode.PATH_ESCAPE:
            target = resolve(os.path.join(pin.real_dir, name), strict=True)
            if target is None:
                return "dangling", ""
            try:
                mode = os.stat(target[0]).st_mode
            except OSError:
                return "dangling", ""
            if stat.S_ISREG(mode):
                return "outside", target[0]
            return ("other", "") if stat.S_ISDIR(mode) else ("special", "")
        if err.code == ErrorCode.NOT_FOUND:
            return "dangling", ""
        return "other", ""
    if stat.S_ISREG(hit.st.st_mode):
        return "ok", ""
    return ("other", "") if stat.S_ISDIR(hit.st.st_mode) else ("special", "")


def _entry_key(entry: os.DirEntry[str]) -> str:
    return sort_text(entry.name)  # (file names: no NUL)


class _Read(NamedTuple):
    """What reading the chosen manifest gave (see :func:`_read_manifest`)."""

    data: bytes | None = None
    error: SkillError | None = None
    stat: os.stat_result | None = None
    skip_reason: str | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    pin: Pin | None = None
    note: str = ""


def _open_listed(name: str, dir_fd: int) -> int:
    """Open the regular file ``name`` just listed in the directory open as ``dir_fd``: one
    component, never following a final link, without blocking (SPEC §20.4)."""
    return os.open(name, FILE_FLAGS, dir_fd=dir_fd)


def _read_manifest(lookup: ManifestLookup, fd: int, pin: Pin, cap: int, manifest: Path) -> _Read:
    """Read the manifest ``lookup`` chose through the directory descriptor ``fd`` (SPEC §20.4-5):
    opened without following a final link and without blocking, read only when ``fstat`` says it
    is a regular file, never more than ``cap`` bytes. A link leading outside (SPEC §20.3) is
    read from its real target, whose identity is pinned."""
    assert lookup.name is not None
    name = lookup.name
    mfd = -1
    try:
        if lookup.outside is not None:
            mfd = open_file(lookup.outside)
        else:
            # The name is one component from the listing (no "/", never ".."), so opening it below
            # the pinned descriptor with O_NOFOLLOW cannot leave the directory. Anything else than
            # a plain open (it became a link, vanished, ...) takes the confined walk, whose errors
            # are exact.
            try:
                mfd = _open_listed(name, fd)
            except OSError:
                try:
                    mfd = reach(pin, "", name, name, want="file", base_fd=fd).fd
                except SkillError as err:
                    if err.code != ErrorCode.NOT_A_FILE:
                        return _Read(
                            error=SkillError(err.code, err.message, {"path": str(manifest)})
                        )
                    raise OSError(0, "not a regular file") from None
        st = os.fstat(mfd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, "not a regular file")
        data = read_limited(mfd, cap, st.st_size)
        if data is None:
            return _Read(error=_too_large(manifest, os.fstat(mfd).st_size, cap))
        if lookup.outside is None:
            return _Read(data, None, st, None, (), pin)
        diag = Diagnostic(
            DiagnosticKind.MANIFEST_OUTSIDE,
            f"manifest {manifest} is a link to {lookup.outside}, outside the skill directory "
            "(loaded; not published over MCP)",
            manifest,
        )
        return _Read(
            data,
            stat=st,
            diagnostics=(diag,),
            pin=pin.with_manifest((lookup.outside, st.st_dev, st.st_ino)),
            note=f"manifest is a link to {lookup.outside}, outside the skill directory",
        )
    except OSError as exc:
        if exc.errno == 0:  # swapped for a FIFO, socket or device after it was listed
            diag = Diagnostic(
                DiagnosticKind.NOT_A_FILE,
                f"skipping {manifest.parent}: its manifest {name} is not a regular file",
                manifest,
            )
            return _Read(skip_reason=f"manifest {name} is not a regular file", diagnostics=(diag,))
        return _Read(error=fs_error(exc, manifest))
    finally:
        if mfd >= 0:
            os.close(mfd)


def scan_root(
    root: SkillRoot,
    *,
    follow_symlinks: bool,
    index: ManifestIndex | None = None,
    max_manifest_bytes: int = DEFAULT_MAX_MANIFEST_BYTES,
) -> tuple[RootNote, list[Candidate | IndexHit]]:
    """Scan one root for skill candidates (SPEC §4).

    Args:
        root: The root to list; a root path that is a symlink is followed.
        follow_symlinks: Whether symlinked child directories and manifests are used.
        index: The on-disk index (SPEC §26): a plain directory it holds a valid entry for is
            neither opened, listed nor read, and becomes an :class:`IndexHit`; the others
            carry a ``stamp``.

    Returns:
        ``(note, candidates)``: the root's :class:`RootNote` and one :class:`Candidate` (or,
        with an index, :class:`IndexHit`) per child directory or symlink, in ``(casefold,
        name)`` order, and, in a root that accepts single-file skills, one per ``*.md`` file
        (:func:`scan_single_file`). Other regular files and other entries are ignored. Nothing
        is raised.
    """
    note, entries = list_root(root)
    out: list[Candidate | IndexHit] = []
    # The root's real directory is walked to from / once; each child that is a directory is then
    # opened below it with O_NOFOLLOW, instead of walking from / again for each (SPEC §20.1, §26).
    parent = _open_parent(os.fspath(root.path)) if entries else None
    try:
        if index is not None and parent is not None:
            index.prefetch(parent[1], entries)  # while the index file is read (SPEC §26)
        single = accepts_single_files(root.path)  # SPEC §29.2: opencode's own folders
        work = install_work(entry.name for entry in entries)  # SPEC §25.4
        for entry in entries:
            if single:
                found = scan_single_file(
                    root, entry, follow_symlinks=follow_symlinks, cap=max_manifest_bytes
                )
                if found is not None:
                    out.append(found)
                    continue
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not (is_link or is_dir):
                continue
            if work and entry.name in work:
                out.append(install_work_skipped(root, entry.name))
                continue
            if index is not None and is_dir and parent is not None:
                checked = index.check_child(entry.path, parent[1], entry.name)
                if checked is not None:
                    record, dev, ino = checked
                    out.append(
                        IndexHit(
                            root,
                            entry,
                            parent[0],
                            parent[2],
                            dev,
                            ino,
                            record,
                        )
                    )
                    continue
            out.append(
                scan_entry(
                    root,
                    entry,
                    is_link,
                    follow_symlinks,
                    index,
                    cap=max_manifest_bytes,
                    parent_dir=None if is_link else parent,
                )
            )
    finally:
        if parent is not None:
            os.close(parent[1])
    return note, out


def install_work_skipped(root: SkillRoot, name: str) -> Candidate:
    """The skipped candidate of a root's entry that is an install's work (SPEC §4, §25.4;
    :func:`~._model.install_work`)."""
    return Candidate(root, name, child_path(root.path, name), skip_reason=INSTALL_WORK)


def _open_parent(dir_text: str) -> tuple[str, int, int] | None:
    """``(real path, descriptor, links followed)`` of a directory whose children are pinned,
    reached from / as :func:`_open_pinned_candidate` reaches one; ``None`` when it cannot be."""
    try:
        resolved = resolve(absolute(dir_text), strict=True)
        fd = open_real_dir(resolved[0], load=False) if resolved is not None else None
    except (OSError, ValueError):
        return None
    if resolved is None or fd is None:
        return None
    return resolved[0], fd, resolved[1]


def scan_entry(
    root: SkillRoot,
    entry: os.DirEntry[str],
    is_link: bool,
    follow_symlinks: bool,
    index: ManifestIndex | None = None,
    parent: Path | None = None,
    category: str = "",
    cap: int = DEFAULT_MAX_MANIFEST_BYTES,
    parent_dir: tuple[str, int, int] | None = None,
) -> Candidate:
    """What one directory-or-symlink entry holds (SPEC §4, §20); ``parent`` defaults to the
    root. ``cap`` is ``max_manifest_bytes`` (SPEC §20.5). ``parent_dir`` is the real path,
    descriptor and links followed of the directory listing ``entry`` (a non-link entry is then
    opened below it)."""
    if parent_dir is not None and not is_link:
        plain = _plain_child(root, entry, parent, category, parent_dir, cap, index is not None)
        if plain is not None:
            return plain
    path = child_path(root.path if parent is None else parent, entry.name)
    if is_link:
        if not follow_symlinks:
            return Candidate(
                root,
                entry.name,
                path,
                skip_reason="symlink not followed (follow_symlinks=False)",
                category=category,
            )
        try:
            target = os.stat(entry.path)
        except OSError:
            diag = Diagnostic(
                DiagnosticKind.DANGLING_SYMLINK, f"skipping dangling symlink {path}", path
            )
            return Candidate(
                root,
                entry.name,
                path,
                skip_reason="dangling symlink",
                diagnostics=(diag,),
                category=category,
            )
        if not stat.S_ISDIR(target.st_mode):
            return Candidate(
                root,
                entry.name,
                path,
                skip_reason="symlink to a file, not a directory",
                category=category,
            )
    opened: tuple[int, Pin] | tuple[int, Pin, os.stat_result] | None
    try:
        if parent_dir is None:
            opened = _open_pinned_candidate(entry.path)
        else:
            opened = _open_pinned_child(parent_dir, entry.name)
    except OSError as exc:
        message = fs_error(exc, path).message
        diag = Diagnostic(DiagnosticKind.IO_ERROR, f"skipping {path}: {message}", path)
        return Candidate(
            root,
            entry.name,
            path,
            skip_reason=f"directory unreadable: {message}",
            diagnostics=(diag,),
            category=category,
        )
    if opened is None:
        return Candidate(
            root,
            entry.name,
            path,
            skip_reason="directory changed during the scan",
            category=category,
        )
    fd, pin = opened[0], opened[1]
    try:
        return _read_candidate(
            root, entry, is_link, follow_symlinks, index, path, category, fd, pin, cap
        )
    finally:
        os.close(fd)


_new_candidate = tuple.__new__


def _plain_child(
    root: SkillRoot,
    entry: os.DirEntry[str],
    parent: Path | None,
    category: str,
    parent_dir: tuple[str, int, int],
    cap: int,
    stamped: bool,
) -> Candidate | None:
    """The candidate of a plain skill directory, the common case, in the fewest steps; ``None``
    when the directory is not plain (the general path then decides it, listing it again).

    Plain: the directory, opened below its parent with ``O_NOFOLLOW`` and pinned by ``fstat``
    (SPEC §20.1), lists exactly one letter-case variant of the manifest's name, the exact one,
    as a regular file (found by listing, SPEC §4); it opens below the directory without
    following a link and without blocking as a regular file of at most ``cap`` bytes (SPEC
    §20.4-5), read whole. Anything else met after the listing is :func:`_read_manifest`'s, as
    for the general path. The candidate is the general path's. ``stamped``: it carries the
    stamp the on-disk index records (SPEC §26).
    """
    name = entry.name
    try:
        opened = _open_pinned_child(parent_dir, name)
    except OSError:
        return None
    if opened is None:
        return None
    fd, pin, dir_stat = opened
    try:
        try:
            with os.scandir(fd) as it:
                # The manifest rule (is_manifest_name), inline: a name whose lower-case form is
                # "skill.md" has its length (SPEC §26: this runs for every entry of every skill).
                found = [e for e in it if len(e.name) == 8 and e.name.lower() == _MANIFEST_LOWER]
            if len(found) != 1 or found[0].name != MANIFEST_NAME:
                return None
            if not found[0].is_file(follow_symlinks=False):  # a regular file, not a link
                return None
        except OSError:
            return None
        path = child_path(root.path if parent is None else parent, name)
        location = f"{entry.path}/{MANIFEST_NAME}"  # os.path.join's result (a listed path)
        data = manifest_stat = None
        try:
            mfd = _open_listed(MANIFEST_NAME, fd)
        except OSError:
            mfd = -1
        if mfd >= 0:
            try:
                manifest_stat = os.fstat(mfd)
                if S_ISREG(manifest_stat.st_mode):
                    data = read_limited(mfd, cap, manifest_stat.st_size)
            except OSError:
                data = None
            finally:
                os.close(mfd)
        if data is None or manifest_stat is None:
            # Changed since the listing, over the cap, unreadable: as the general path reads it.
            lookup = ManifestLookup(MANIFEST_NAME, location)
            stat_then = dir_stat if stamped else None
            return _read_found(root, name, False, path, category, fd, pin, cap, lookup, stat_then)
    finally:
        os.close(fd)
    return _new_candidate(  # every field in order (see hit_candidate)
        Candidate,
        (
            root,
            name,
            path,
            child_path(path, MANIFEST_NAME),
            location,
            data,
            None,
            None,
            (),
            None,
            (False, dir_stat, manifest_stat) if stamped else None,
            category,
            pin,
            "",
        ),
    )


_PLAIN_VARIANTS = [MANIFEST_NAME]


def _open_pinned_child(
    parent_dir: tuple[str, int, int], name: str
) -> tuple[int, Pin, os.stat_result] | None:
    """Open and pin the directory ``name`` below a parent opened by :func:`_open_parent`: its
    descriptor, its pin and the ``fstat`` the pin was taken from."""
    real_parent, parent_fd, hops = parent_dir
    fd = open_child_dir(parent_fd, name)  # OSError (EACCES, EMFILE): the caller reports it
    if fd is None:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    return fd, pin_of(real_parent, st.st_dev, st.st_ino, hops, name), st


def _open_pinned_candidate(dir_text: str) -> tuple[int, Pin] | None:
    """Open a candidate directory by walking its real path from ``/`` with ``O_NOFOLLOW`` and pin
    it with one ``fstat`` (SPEC §20.1); ``None`` when it changed under the scan.

    Raises:
        OSError: An error other than "nothing there" while opening it.
    """
    resolved = resolve(absolute(dir_text), strict=True)
    if resolved is None:
        return None
    fd = open_real_dir(resolved[0], load=False)  # OSError (EACCES, EMFILE): the caller reports it
    if fd is None:
        return None
    try:
        return fd, pin_directory(resolved[0], fd, resolved[1])
    except OSError:
        os.close(fd)
        return None


def _read_candidate(
    root: SkillRoot,
    entry: os.DirEntry[str],
    is_link: bool,
    follow_symlinks: bool,
    index: ManifestIndex | None,
    path: Path,
    category: str,
    fd: int,
    pin: Pin,
    cap: int,
) -> Candidate:
    """Find and read the manifest of the pinned candidate directory open as ``fd``."""
    dir_stat = None
    if index is not None:
        hit = index.lookup(entry.path, is_link, fd)
        if hit is not None:
            location = os.path.join(entry.path, hit.manifest_name)
            return Candidate(
                root,
                entry.name,
                path,
                path / hit.manifest_name,
                location,
                diagnostics=hit.scan_diagnostics,
                cached=hit,
                category=category,
                pin=pin,
            )
        try:
            dir_stat = os.fstat(fd)
        except OSError:
            dir_stat = None
    lookup = find_manifest(entry.path, follow_symlinks=follow_symlinks, dir_fd=fd, pin=pin)
    if lookup.name is None:
        return Candidate(
            root,
            entry.name,
            path,
            skip_reason=lookup.skip_reason,
            diagnostics=lookup.diagnostics,
            category=category,
            pin=pin,
        )
    return _read_found(root, entry.name, is_link, path, category, fd, pin, cap, lookup, dir_stat)


def _read_found(
    root: SkillRoot,
    name: str,
    is_link: bool,
    path: Path,
    category: str,
    fd: int,
    pin: Pin,
    cap: int,
    lookup: ManifestLookup,
    dir_stat: os.stat_result | None,
) -> Candidate:
    """The candidate of the pinned directory open as ``fd`` once its listing chose a manifest
    (``lookup``): the manifest read by :func:`_read_manifest`."""
    assert lookup.name is not None
    manifest = child_path(path, lookup.name)
    read = _read_manifest(lookup, fd, pin, cap, manifest)
    diagnostics = lookup.diagnostics + read.diagnostics
    if read.skip_reason is not None:
        return Candidate(
            root,
            name,
            path,
            skip_reason=read.skip_reason,
            diagnostics=diagnostics,
            category=category,
            pin=pin,
        )
    stamp = None
    if dir_stat is not None and read.stat is not None and not lookup.linked:
        stamp = (is_link, dir_stat, read.stat)
    return Candidate(  # every field in order: keywords cost more to match (SPEC §26)
        root,
        name,
        path,
        manifest,
        lookup.path,
        read.data,
        read.error,
        None,
        diagnostics,
        None,
        stamp,
        category,
        read.pin or pin,
        read.note,
    )


#: The skip reason of a root-level ``*.md`` file that does not open with a frontmatter fence:
#: a note next to the skills, not a single-file skill (SPEC §29.2).
NOT_A_SKILL_FILE = "no frontmatter: not a single-file skill"


def scan_single_file(
    root: SkillRoot,
    entry: os.DirEntry[str],
    *,
    follow_symlinks: bool,
    cap: int = DEFAULT_MAX_MANIFEST_BYTES,
) -> Candidate | None:
    """The candidate of a single-file skill ``<root>/<id>.md`` (SPEC §29.2), or ``None`` when
    ``entry`` is not one (the caller then treats it as any other entry).

    Only for a root that :func:`~._model.accepts_single_files`. The file (or, with
    ``follow_symlinks``, the regular file a link leads to) is reached from ``/`` without
    following a link, opened without blocking, read up to ``cap`` bytes and pinned as a file
    (:func:`~._confine.pin_file`): the skill has no directory, so nothing next to it is ever
    reached through it. Its ``dir`` and ``manifest`` are the same path. A file that does not
    open with ``---`` is skipped as :data:`NOT_A_SKILL_FILE`, without a diagnostic.
    """
    if single_file_id(entry.name) is None:
        return None
    try:
        is_link = entry.is_symlink()
        if not is_link and not entry.is_file(follow_symlinks=False):
            return None  # a directory, or a FIFO, socket or device: never opened
    except OSError:
        return None
    path = child_path(root.path, entry.name)
    if is_link:
        try:
            target = os.stat(entry.path)
        except (OSError, ValueError):
            target = None
        if target is not None and stat.S_ISDIR(target.st_mode):
            return None  # a link to a directory: a skill directory's candidate
        if not follow_symlinks:
            return Candidate(
                root, entry.name, path, skip_reason="symlink not followed (follow_symlinks=False)"
            )
        if target is None:
            diag = Diagnostic(
                DiagnosticKind.DANGLING_SYMLINK, f"skipping dangling symlink {path}", path
            )
            return Candidate(
                root, entry.name, path, skip_reason="dangling symlink", diagnostics=(diag,)
            )
    resolved = resolve(absolute(entry.path), strict=True)
    if resolved is None:
        return Candidate(root, entry.name, path, skip_reason="file changed during the scan")
    real, hops = resolved
    fd = -1
    try:
        fd = _open_single(real)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            diag = Diagnostic(
                DiagnosticKind.NOT_A_FILE,
                f"ignoring {path}: not a regular file (a FIFO, socket or device)",
                path,
            )
            return Candidate(
                root, entry.name, path, skip_reason="not a regular file", diagnostics=(diag,)
            )
        data = read_limited(fd, cap, st.st_size)
    except OSError as exc:
        if exc.errno == 0:
            return Candidate(root, entry.name, path, skip_reason="file changed during the scan")
        return Candidate(root, entry.name, path, path, entry.path, error=fs_error(exc, path))
    finally:
        if fd >= 0:
            os.close(fd)
    if data is None:
        error = _too_large(path, st.st_size, cap)
        return Candidate(root, entry.name, path, path, entry.path, error=error)
    if not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"---"):
        return Candidate(root, entry.name, path, skip_reason=NOT_A_SKILL_FILE)
    return Candidate(
        root,
        entry.name,
        path,
        path,  # the manifest is the skill (SPEC §29.2): dir and manifest are one path
        entry.path,
        data,
        None,
        None,
        (),
        None,
        None,
        "",
        pin_file(real, st, hops),
        "",
    )


def _open_single(real: str) -> int:
    """Open the regular file at the real path ``real``: its directory walked from ``/`` with
    ``O_NOFOLLOW``, the file opened without following a link and without blocking.

    Raises:
        OSError: ``errno`` 0 when a component changed (gone, or became a link).
    """
    parent, leaf = os.path.split(real)
    dir_fd = open_real_dir(parent, load=False)
    if dir_fd is None:
        raise OSError(0, "changed during the scan")
    try:
        try:
            return open_file(leaf, dir_fd)
        except OSError as exc:
            if gone_or_link(exc):
                raise OSError(0, "changed during the scan") from None
            raise
    finally:
        os.close(dir_fd)


def dir_like(entry: os.DirEntry[str]) -> bool | None:
    """``True`` for a symlink, ``False`` for a real directory, ``None`` for anything else."""
    try:
        if entry.is_symlink():
            return True
        return False if entry.is_dir(follow_symlinks=False) else None
    except OSError:
        return None
