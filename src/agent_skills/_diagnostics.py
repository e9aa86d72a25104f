"""Diagnostics, the discovery report, the logger and the warn sink (SPEC §7.4-§7.6).

Skill-level problems found while scanning are data: a :class:`Diagnostic` is collected on the
snapshot, logged on the ``agent_skills`` logger, and (for warnings) passed to the process-wide warn
sink. Nothing here raises.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

__all__ = [
    "Diagnostic",
    "DiagnosticKind",
    "DiagnosticSeverity",
    "DiscoveryReport",
    "EntryStatus",
    "ReportEntry",
    "RootNote",
    "RootStatus",
    "emit",
    "get_logger",
    "quiet_logger",
    "set_diagnostic_sink",
    "set_warn_sink",
]

LOGGER_NAME = "agent_skills"
_handled = False


def get_logger() -> logging.Logger:
    """The ``agent_skills`` logger (SPEC §7.6). ``logging`` loads with the first call, not with
    the package: a scan that finds nothing to report never imports it (SPEC §26).

    As a library should, it gets a ``logging.NullHandler`` on first use: a program that
    configures no logging sees no bare lines on stderr from Python's last-resort handler; one
    that does (``logging.basicConfig()``, its own handlers) gets every diagnostic as a record,
    propagated as usual.
    """
    import logging

    global _handled
    logger = logging.getLogger(LOGGER_NAME)
    if not _handled:
        _handled = True
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
    return logger


def quiet_logger() -> None:
    """Make sure the ``agent_skills`` logger prints nothing by itself (its ``NullHandler``, see
    :func:`get_logger`): for a program that shows the warnings through a sink (the CLI)."""
    if "logging" in sys.modules:
        get_logger()


class DiagnosticSeverity(StrEnum):
    """How much a :class:`Diagnostic` matters (SPEC §7.4-§7.6): ``warning`` is logged at WARNING
    and passed to the warn sink, ``info`` is logged at INFO only. A ``str`` enum, so
    ``d.severity == "warning"`` holds. (Validation problems have their own scale,
    ``agent_skills.validate.Severity``: error or warning.)"""

    WARNING = "warning"
    INFO = "info"


#: Former name of :class:`DiagnosticSeverity`.
Severity = DiagnosticSeverity


class DiagnosticKind(StrEnum):
    """Kinds of diagnostic (SPEC §7.5, §21, §27). All are warnings; ``shadowed`` is a warning
    too, except for an alias of the winner (the same real directory), which is info (§21.8)."""

    INVALID_SKILL = "invalid_skill"
    IO_ERROR = "io_error"
    DUPLICATE_SKILL = "duplicate_skill"
    NAME_MISMATCH = "name_mismatch"
    MANIFEST_CASE = "manifest_case"
    DANGLING_SYMLINK = "dangling_symlink"
    ESCAPING_SYMLINK = "escaping_symlink"
    INVALID_UTF8 = "invalid_utf8"
    YAML_REPAIRED = "yaml_repaired"
    INVALID_FIELD = "invalid_field"
    RESOURCES_TRUNCATED = "resources_truncated"
    SHADOWED = "shadowed"
    NAME_MISSING = "name_missing"
    SCAN_TRUNCATED = "scan_truncated"
    ARCHIVE_LINK = "archive_link"
    INVALID_ARCHIVE = "invalid_archive"
    INDEX_IGNORED = "index_ignored"
    NOT_PUBLISHED = "not_published"
    MANIFEST_OUTSIDE = "manifest_outside"
    NOT_A_FILE = "not_a_file"
    TOO_LARGE = "too_large"
    #: A granted path a host's format cannot carry, left out of that rendering (SPEC §28.2).
    PATH_LEFT_OUT = "path_left_out"
    #: A description over 1 024 characters, loaded whole (SPEC §29.6).
    DESCRIPTION_TOO_LONG = "description_too_long"
    #: A name in ``only`` or ``disabled`` that matches no skill (SPEC §29.6).
    UNKNOWN_NAME = "unknown_name"
    #: An activation's grant a host's settings file could not take (SPEC §28.5): the skill is
    #: active, the file left as it was.
    GRANT_NOT_WRITTEN = "grant_not_written"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem or note found during discovery or enumeration (SPEC §7.4).

    Attributes:
        kind: A :class:`DiagnosticKind` value (a ``str``).
        message: Human-readable text naming the path involved; never file contents.
        path: The file or directory concerned, or ``None``.
        severity: A :class:`DiagnosticSeverity` (``"warning"`` or ``"info"`` are accepted and
            stored as members).
    """

    kind: DiagnosticKind
    message: str
    path: Path | None = None
    severity: DiagnosticSeverity = DiagnosticSeverity.WARNING

    def __post_init__(self) -> None:
        # Plain strings are accepted for both enums; the stored values are always members.
        if type(self.kind) is not DiagnosticKind:
            object.__setattr__(self, "kind", DiagnosticKind(self.kind))
        if type(self.severity) is not DiagnosticSeverity:
            object.__setattr__(self, "severity", DiagnosticSeverity(self.severity))

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready ``{"kind", "message", "path", "severity"}``."""
        return {
            "kind": self.kind.value,
            "message": self.message,
            "path": str(self.path) if self.path is not None else None,
            "severity": self.severity.value,
        }


class EntryStatus(StrEnum):
    """What became of one candidate entry of a root (SPEC §7.4)."""

    LOADED = "loaded"
    SHADOWED = "shadowed"
    DUPLICATE = "duplicate"
    INVALID = "invalid"
    SKIPPED = "skipped"
    DISABLED = "disabled"
    UNTRUSTED = "untrusted"


@dataclass(frozen=True, slots=True)
class ReportEntry:
    """One candidate entry (a directory or symlink child of a root) and its fate (SPEC §7.4).

    Attributes:
        root: The configured root path.
        path: ``root / entry_name`` (the link path for a linked entry).
        status: An :class:`EntryStatus`.
        name: The frontmatter name when known, else ``None``.
        reason: Why it was not loaded (empty for ``loaded``).
        shadowed_by: The winning skill's directory when ``status`` is ``shadowed``.
    """

    root: Path
    path: Path
    status: EntryStatus
    name: str | None = None
    reason: str = ""
    shadowed_by: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready mapping of the entry."""
        return {
            "root": str(self.root),
            "path": str(self.path),
            "status": self.status.value,
            "name": self.name,
            "reason": self.reason,
            "shadowed_by": str(self.shadowed_by) if self.shadowed_by is not None else None,
        }


class RootStatus(StrEnum):
    """What the scan found at one configured root (SPEC §4, §7.4)."""

    OK = "ok"
    MISSING = "missing"
    NOT_A_DIRECTORY = "not_a_directory"
    UNREADABLE = "unreadable"
    INVALID_ARCHIVE = "invalid_archive"


@dataclass(frozen=True, slots=True)
class RootNote:
    """Per-root state found by the scan: ``ok``, ``missing``, ``not_a_directory``, ``unreadable``
    or ``invalid_archive`` (an archive root refused whole, SPEC §25.1).

    Attributes:
        root: The configured root path.
        status: A :class:`RootStatus` (one of the words above; a plain word is accepted).
        message: Detail for anything but ``ok``.
    """

    root: Path
    status: RootStatus
    message: str = ""

    def __post_init__(self) -> None:
        if type(self.status) is not RootStatus:
            object.__setattr__(self, "status", RootStatus(self.status))

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready mapping of the note."""
        return {"root": str(self.root), "status": self.status.value, "message": self.message}


@dataclass(frozen=True, slots=True)
class DiscoveryReport:
    """The fate of every candidate directory of every root (SPEC §7.4).

    Attributes:
        entries: One :class:`ReportEntry` per candidate, roots in config order, each root's
            entries in scan order ``(name.casefold(), name)``.
        roots: One :class:`RootNote` per configured root, in config order.
        diagnostics: The scan's diagnostics, in the order they were found.
    """

    entries: tuple[ReportEntry, ...] = ()
    roots: tuple[RootNote, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    def by_status(self, status: EntryStatus | str) -> list[ReportEntry]:
        """Return the entries with ``status``, in report order."""
        return [e for e in self.entries if e.status == status]

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"roots", "entries", "diagnostics"}`` ready for ``json.dumps``."""
        return {
            "roots": [r.to_dict() for r in self.roots],
            "entries": [e.to_dict() for e in self.entries],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


_sink_lock = threading.Lock()
_warn_sink: Callable[[str], object] | None = None


def set_warn_sink(fn: Callable[[str], object] | None) -> None:
    """Set the process-wide warn sink (SPEC §7.6).

    Args:
        fn: A callable taking one message ``str`` per warning-level diagnostic, or ``None`` to
            reset to the default (no sink: warnings then reach only the ``agent_skills`` logger).
            Exceptions raised by the sink are swallowed so that discovery never fails because of it.
    """
    global _warn_sink
    with _sink_lock:
        _warn_sink = fn


_diagnostic_sink: Callable[[Diagnostic], object] | None = None


def set_diagnostic_sink(fn: Callable[[Diagnostic], object] | None) -> None:
    """Like :func:`set_warn_sink`, but ``fn`` receives each warning-level :class:`Diagnostic`
    whole (its ``kind`` is the code the CLI prints with it); ``None`` resets. Exceptions raised
    by the sink are swallowed."""
    global _diagnostic_sink
    with _sink_lock:
        _diagnostic_sink = fn


def _loggable(text: str) -> str:
    """``text`` as a log handler can write it: a name that is not UTF-8 (its bytes kept as lone
    surrogates) shown with ``\\udcXX`` escapes, so no UTF-8 handler fails on the record."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def emit(diagnostics: Iterable[Diagnostic]) -> None:
    """Log each diagnostic and pass warnings to the sinks (SPEC §7.6)."""
    sink = _warn_sink
    whole = _diagnostic_sink
    logger: logging.Logger | None = None
    for diag in diagnostics:
        if logger is None:
            logger = get_logger()
        if diag.severity is DiagnosticSeverity.WARNING:
            logger.warning("%s", _loggable(diag.message))
            if whole is not None:
                try:
                    whole(diag)
                except Exception:
                    logger.debug("diagnostic sink raised", exc_info=True)
            if sink is not None:
                try:
                    sink(diag.message)
                except Exception:
                    logger.debug("warn sink raised", exc_info=True)
        else:
            logger.info("%s", _loggable(diag.message))
