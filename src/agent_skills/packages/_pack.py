"""Packing a skill into a ``.skill`` archive with reproducible bytes (SPEC §25.2), and the atomic
write every package file shares.

Owns the archive's layout (one folder named after the skill, sorted members, a fixed date, the
execute bits kept); which files a skill has, and whether it is valid, are the library's.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import IO

from .._args import coerce_path
from .._confine import pin_by_name, verify_link
from .._errors import ErrorCode, SkillError, fs_error
from .._fs import LIST_FLAGS
from ..validate import Severity, validate_skill
from ._sources import ReadBudget, dir_skill, is_executable

__all__ = ["CHUNK", "fsync_dir", "pack_skill", "refuse_invalid", "unlink", "write_atomic"]

#: Bytes read or written at a time.
CHUNK = 1 << 16

# Fixed member timestamp of packed archives: the earliest a zip can hold (SPEC §25.2).
_EPOCH = (1980, 1, 1, 0, 0, 0)


# Members compressed more than this are stored instead, so a packed skill is always a valid
# archive root (SPEC §25.1 refuses a compression ratio over 200).
_MAX_PACK_RATIO = 150


def refuse_invalid(skill_dir: Path, name: str | None = None) -> None:
    problems = [p for p in validate_skill(skill_dir) if p.severity == Severity.ERROR]
    if problems:
        listed = "; ".join(f"{p.code}: {p.message}" for p in problems)
        raise SkillError(
            ErrorCode.INVALID_SKILL,
            f"{name or skill_dir} does not validate: {listed}",
            {"path": str(skill_dir), "problems": [p.to_dict() for p in problems]},
        )


def pack_skill(
    skill_dir: str | os.PathLike[str], output: str | os.PathLike[str] | None = None
) -> Path:
    """Write a skill directory as a ``.skill`` zip with deterministic bytes (SPEC §25.2).

    The directory is pinned before it is validated and every file is read through that pin
    (SPEC §20.1), so a directory swapped meanwhile is ``stale_skill``, never packed in its
    place. The archive holds one top-level folder named after the skill (its frontmatter
    ``name``);
    members are ``SKILL.md`` and the listed resources (SPEC §9: hidden files, ``__pycache__`` and
    ``node_modules`` left out), sorted by the code points of their POSIX names, dated
    1980-01-01, with mode ``0755`` for files with an execute bit and ``0644`` otherwise. A member
    that would compress more than 150 times is stored uncompressed, so the result is always a
    valid archive root (SPEC §25.1).

    Args:
        skill_dir: The skill directory.
        output: The file to write; default ``<name>.skill`` in the current directory. Written
            atomically (temporary file in the same directory, then rename).

    Returns:
        The path written.

    Raises:
        SkillError: ``invalid_skill`` ``{path, problems}`` when ``validate_skill`` finds errors
            (SPEC §15); ``too_large`` for more than 10 000 files or 512 MiB, or a manifest over
            1 MiB; ``stale_skill`` when the directory is swapped while packed; ``fs_error``
            codes for unreadable files or an unwritable output.
    """
    skill_path = Path(coerce_path(skill_dir, "skill_dir"))
    try:
        pin = pin_by_name(skill_path, skill_path.name)
    except SkillError:
        refuse_invalid(skill_path)  # names what is wrong with the path
        raise
    refuse_invalid(skill_path)  # validate_skill reads the manifest capped (SPEC §30.3)
    verify_link(pin, skill_path.name, skill_path)  # what was validated is the directory pinned
    skill = dir_skill(skill_path, pin)  # every file read through that pin
    target = (
        Path(coerce_path(output, "output"))
        if output is not None
        else Path.cwd() / f"{skill.name}.skill"
    )
    members: list[tuple[str, bytes, bool]] = []
    budget = ReadBudget(skill_path)
    for source in skill.files:
        with source.open() as fh:
            data = fh.read(budget.left + 1)
            budget.take(len(data))
            members.append((f"{skill.name}/{source.rel}", data, is_executable(source, fh)))
    members.sort(key=lambda m: m[0])

    def write(out: IO[bytes]) -> None:
        with zipfile.ZipFile(out, "w") as zf:
            for name, data, executable in members:
                info = zipfile.ZipInfo(name, date_time=_EPOCH)
                info.create_system = 3
                info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                compressed = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
                size = len(compressed.compress(data)) + len(compressed.flush())
                if len(data) > _MAX_PACK_RATIO * max(size, 1):
                    info.compress_type = zipfile.ZIP_STORED
                zf.writestr(info, data)

    write_atomic(target, write)
    return target


def write_atomic(target: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``target`` through a temporary file in its directory (``.<name>.*.tmp``),
    ``fsync``, rename, then ``fsync`` the directory: a kill leaves the old file or the new one.

    Raises:
        SkillError: ``not_found`` ``{path}`` naming the folder when ``target``'s folder does not
            exist (the file is what would be made, not what is missing); ``fs_error`` codes of
            the folder (``not_a_file`` when it is a file) or of ``target``.
    """
    parent = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise SkillError(
                ErrorCode.NOT_FOUND,
                f"No such folder: {parent} (to write {target.name} into)",
                {"path": os.fspath(parent)},
            ) from None
        raise fs_error(exc, parent if exc.errno == errno.ENOTDIR else target) from None
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        fsync_dir(parent)
    except OSError as exc:
        unlink(tmp)
        raise fs_error(exc, target) from None
    except BaseException:
        unlink(tmp)
        raise


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """``fsync`` a directory, so the renames made in it last (where the system allows it)."""
    try:
        fd = os.open(path, LIST_FLAGS)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def unlink(path: str | os.PathLike[str]) -> None:
    with suppress(OSError):
        os.unlink(path)
