"""Skill packages: pack, lock, verify, add, update and remove (SPEC §25.2-§25.5).

- :func:`pack_skill` writes a ``.skill`` zip whose bytes depend only on the files packed.
- :func:`lock_skills` records, per skill, the same per-file ``sha256:`` digests the MCP extension
  serves (``_digest``), recomputable from the installed tree; :func:`verify_lock` names every
  added, removed and changed skill and file.
- :func:`install_skills` copies skills from a local directory, an archive or a git repository into
  a root: validated first, written into a temporary sibling directory, then renamed into place, so
  an interrupted install leaves the old copy or the new one whole.

Every file copied or packed is read through the confined readers (``_confine``, ``_archive``): a
link leading outside its skill is never copied as a link and never followed.

The wing's modules: ``_sources`` (what a source holds), ``_pack``, ``_lock`` and ``_install``.
"""

from ._install import Installed, install_skills, remove_skill
from ._lock import (
    LOCK_NAME,
    LOCK_VERSION,
    FileChange,
    SkillDrift,
    lock_entry,
    lock_path,
    lock_scopes,
    lock_skills,
    merge_lock,
    read_lock,
    scoped_skills,
    verify_lock,
    write_lock,
)
from ._pack import pack_skill
from ._sources import Source, parse_source

__all__ = [
    "LOCK_NAME",
    "LOCK_VERSION",
    "FileChange",
    "Installed",
    "SkillDrift",
    "Source",
    "install_skills",
    "lock_entry",
    "lock_path",
    "lock_scopes",
    "lock_skills",
    "merge_lock",
    "pack_skill",
    "parse_source",
    "read_lock",
    "remove_skill",
    "scoped_skills",
    "verify_lock",
    "write_lock",
]
