"""Installing and removing skills in a root (SPEC §25.4-§25.5): validated first, written into a
temporary sibling, renamed into place; an interrupted install leaves the old copy or the new one
whole, and nothing but what the library itself made is ever deleted.

Owns the atomic swap, the root's lock against concurrent installs and the leftovers of an
interrupted one. What a source holds is ``_sources``'.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._args import coerce_path, shown_text
from .._errors import ErrorCode, SkillError, fs_error, invalid_input
from .._model import sort_key
from .._registry import suggest_names
from .._schema import name_problem
from ._pack import CHUNK, refuse_invalid
from ._sources import (
    ReadBudget,
    Source,
    SourceFile,
    SourceSkill,
    is_executable,
    opened_source,
)

__all__ = ["Installed", "install_skills", "remove_skill"]

_TMP_PREFIX = ".agent-skills-tmp-"


_OLD_PREFIX = ".agent-skills-old-"


_OLD_RE = re.compile(r"^\.agent-skills-old-[0-9a-f]{8}-(.+)$")


@dataclass(frozen=True, slots=True)
class Installed:
    """One skill installed (or removed) by :func:`install_skills` / :func:`remove_skill`.

    Attributes:
        name: The skill's name.
        dir: Its directory in the target root.
        replaced: Whether an existing copy was replaced.
        origin: ``{source, ref, commit}`` as recorded in the lock.
        warnings: ``(code, message)`` pairs about files left out (links leading outside, link
            members); the code is the diagnostic's kind (``escaping_symlink``, ...).
    """

    name: str
    dir: Path
    replaced: bool
    origin: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[tuple[str, str], ...] = ()


@contextmanager
def _root_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the root directory itself, so two installs into one root
    never clean up each other's temporary copies (POSIX; elsewhere no lock)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise fs_error(exc, root) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _clean_leftovers(root: Path) -> None:
    """Finish what an interrupted install left in ``root`` (SPEC §25.4).

    A temporary copy is deleted; an old copy is put back when its skill is missing (the install
    stopped between the two renames), else deleted.
    """
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        path = root / entry.name
        if entry.name.startswith(_TMP_PREFIX):
            shutil.rmtree(path, ignore_errors=True)
            continue
        match = _OLD_RE.match(entry.name)
        if match is None:
            continue
        home = root / match.group(1)
        if not os.path.lexists(home):
            try:
                os.rename(path, home)
                continue
            except OSError:
                pass
        shutil.rmtree(path, ignore_errors=True)


def _copy_file(source: SourceFile, dest_dir: Path, budget: ReadBudget | None = None) -> None:
    """Copy one file into the staged skill: confined read, exclusive create, exec bit kept."""
    parts = source.rel.split("/")
    if any(p in ("", ".", "..") for p in parts) or "\\" in source.rel or "\x00" in source.rel:
        raise invalid_input(f"refusing file name {source.rel!r}", {"rel": source.rel})
    parent = dest_dir
    for part in parts[:-1]:
        parent = parent / part
        try:
            os.mkdir(parent, 0o755)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(parent).st_mode):
                raise invalid_input(
                    f"{source.rel!r} lies under a file", {"rel": source.rel}
                ) from None
    target = parent / parts[-1]
    with source.open() as src:
        mode = 0o755 if is_executable(source, src) else 0o644
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags, mode)
        with os.fdopen(fd, "wb") as out:
            while chunk := src.read(CHUNK):
                if budget is not None:
                    budget.take(len(chunk))
                out.write(chunk)
    os.chmod(target, mode)


def _install_one(skill: SourceSkill, root: Path, force: bool) -> bool:
    """Stage ``skill`` in a temporary sibling, validate it, then rename it into place.

    Returns:
        Whether an existing copy was replaced.
    """
    target = root / skill.name
    existed = os.path.lexists(target)
    if existed and not force:
        raise SkillError(
            ErrorCode.DUPLICATE_SKILL,
            f"skill '{skill.name}' is already installed in {root} (use --force to replace it)",
            {"name": skill.name, "paths": [str(target)]},
        )
    tmp = Path(tempfile.mkdtemp(prefix=_TMP_PREFIX, dir=root))
    try:
        staged = tmp / skill.name
        os.mkdir(staged, 0o755)
        budget = ReadBudget(Path(skill.where))
        for source in skill.files:
            try:
                _copy_file(source, staged, budget)
            except OSError as exc:
                raise fs_error(exc, staged / source.rel) from None
        refuse_invalid(staged, skill.name)
        old: Path | None = None
        if os.path.lexists(target):
            old = root / f"{_OLD_PREFIX}{secrets.token_hex(4)}-{skill.name}"
            os.rename(target, old)
        try:
            os.rename(staged, target)
        except OSError:
            if old is not None:
                os.rename(old, target)
            raise
        if old is not None:
            _remove_tree(old)
        return existed
    except OSError as exc:
        raise fs_error(exc, target) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _remove_tree(path: Path) -> None:
    if os.path.islink(path) or not os.path.isdir(path):
        os.unlink(path)
    else:
        shutil.rmtree(path)


def install_skills(
    source: Source,
    root: str | os.PathLike[str],
    *,
    names: Sequence[str] = (),
    force: bool = False,
) -> list[Installed]:
    """Install the skills of ``source`` (all, or those ``names``) into ``root`` (SPEC §25.4).

    Each skill is copied (manifest and listed resources, execute bits kept; a link leading
    outside the skill is left out) into a temporary sibling directory of ``root``, validated
    (SPEC §15: errors refuse it), then renamed into place; an existing copy is first renamed to a
    second sibling and deleted after. Leftovers of an interrupted install are cleaned up first.

    Args:
        source: From :func:`parse_source`.
        root: The target root (created when missing).
        names: Install only these skills (SPEC §25.5: ``--skill`` is repeatable).
        force: Replace skills already installed.

    Returns:
        One :class:`Installed` per skill, in ``(casefold, name)`` order.

    Raises:
        SkillError: ``not_found`` ``{names, source, suggestions}`` for names not in the source
            (``suggestions`` from ``suggest_names``, SPEC §21.10), or when it holds no
            skill; ``duplicate_skill`` ``{name, paths}`` for an installed name without ``force``
            (nothing is changed); ``invalid_skill`` when a skill does not validate;
            ``too_large`` for a skill over 10 000 files or 512 MiB; ``invalid_archive``;
            ``io_error`` when ``git`` fails (or is not on ``PATH``); ``path_escape`` for a
            ``//SUBDIR`` leading outside the clone; ``fs_error`` codes.
    """
    root_path = Path(os.path.abspath(coerce_path(root, "root")))
    try:
        root_path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fs_error(exc, root_path) from None
    with _root_lock(root_path), opened_source(source) as (found, problems, commit):
        _clean_leftovers(root_path)
        by_name: dict[str, SourceSkill] = {}
        for skill in found:
            by_name.setdefault(skill.name, skill)
        wanted = list(names) or sorted(by_name, key=sort_key)
        missing = [n for n in wanted if n not in by_name]
        if missing or not wanted:
            detail = f"; {'; '.join(problems)}" if problems else ""
            what = f"no skill named {', '.join(missing)}" if missing else "no skill"
            # The one suggestion rule of the project (SPEC §21.10), as for any unknown name.
            suggestions = list(
                dict.fromkeys(s for n in missing for s in suggest_names(n, list(by_name)))
            )
            hint = f" (did you mean {', '.join(suggestions)}?)" if suggestions else ""
            raise SkillError(
                ErrorCode.NOT_FOUND,
                f"{what} in {source.origin_source}{hint}{detail}",
                {"names": missing, "source": source.origin_source, "suggestions": suggestions},
            )
        chosen = [by_name[n] for n in dict.fromkeys(wanted)]
        if not force:
            taken = [s.name for s in chosen if os.path.lexists(root_path / s.name)]
            if taken:
                raise SkillError(
                    ErrorCode.DUPLICATE_SKILL,
                    f"already installed in {root_path}: {', '.join(taken)} "
                    "(use --force to replace)",
                    {"name": taken[0], "paths": [str(root_path / n) for n in taken]},
                )
        origin = {"source": source.origin_source, "ref": source.ref, "commit": commit}
        out: list[Installed] = []
        for skill in chosen:
            replaced = _install_one(skill, root_path, force)
            warnings = tuple((d.kind.value, d.message) for d in skill.diagnostics)
            out.append(Installed(skill.name, root_path / skill.name, replaced, origin, warnings))
    return out


def remove_skill(root: str | os.PathLike[str], name: str) -> Installed:
    """Remove the installed skill ``name`` from ``root`` (SPEC §25.4).

    The directory is first renamed to a hidden sibling, so it vanishes at once, then deleted.

    Raises:
        SkillError: ``invalid_input`` for a name holding a separator or made of dots;
            ``not_found`` ``{name}`` when it is not installed there; ``fs_error`` codes.
    """
    if not isinstance(name, str) or name_problem(name) is not None:
        raise invalid_input(f"not a skill name: {name!r}", {"name": shown_text(name)})
    root_path = Path(os.path.abspath(coerce_path(root, "root")))
    target = root_path / name
    if not os.path.lexists(target):
        raise SkillError(
            ErrorCode.NOT_FOUND, f"skill '{name}' is not installed in {root_path}", {"name": name}
        )
    # A removal interrupted between the two steps is finished by the next install's clean-up.
    old = root_path / f"{_TMP_PREFIX}{secrets.token_hex(4)}"
    try:
        with _root_lock(root_path):
            os.rename(target, old)
            _remove_tree(old)
    except OSError as exc:
        raise fs_error(exc, target) from None
    return Installed(name, target, True)
