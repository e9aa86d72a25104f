"""Skill packages: pack, lock, verify, add, update and remove (SPEC §25.2-§25.5).

- :func:`pack_skill` writes a ``.skill`` zip whose bytes depend only on the files packed.
- :func:`lock_skills` records, per skill, the same per-file ``sha256:`` digests the MCP extension
  serves (``_digest``), recomputable from the installed tree; :func:`verify_lock` names every
  added, removed and changed skill and file.
- :func:`install_skills`, :func:`update_skills` and :func:`remove_skill` change a root and its
  scope's lock together, under one file lock, in one transaction a kill cannot leave half done
  (:func:`recover_root` finishes or undoes it); they never act through a linked root, never
  replace or delete what the lock does not show they installed unless forced, and never keep a
  credential of a source (SPEC §25.4, §30.1).

Every file copied or packed is read through the pin of its source directory (``_confine``) or
the archive's reader (``_archive``): a link leading outside its skill is never copied as a link
and never followed, and a directory swapped mid-copy is ``stale_skill``.

The wing's modules: ``_sources`` (what a source holds), ``_pack``, ``_lock`` and ``_install``.
"""

from ._install import (
    MAX_JOURNALS,
    Installed,
    install_skills,
    pending_journals,
    recover_root,
    recover_roots,
    remove_skill,
    update_skills,
)
from ._lock import (
    LOCK_NAME,
    LOCK_VERSION,
    FileChange,
    SkillDrift,
    lock_entry,
    lock_held,
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
from ._sources import Source, is_url, parse_source, redact

__all__ = [
    "LOCK_NAME",
    "LOCK_VERSION",
    "MAX_JOURNALS",
    "FileChange",
    "Installed",
    "SkillDrift",
    "Source",
    "install_skills",
    "is_url",
    "lock_entry",
    "lock_held",
    "lock_path",
    "lock_scopes",
    "lock_skills",
    "merge_lock",
    "pack_skill",
    "parse_source",
    "pending_journals",
    "read_lock",
    "recover_root",
    "recover_roots",
    "redact",
    "remove_skill",
    "scoped_skills",
    "update_skills",
    "verify_lock",
    "write_lock",
]
