"""Grants in every host's format, merged into host settings, and the sandbox (SPEC §28.2-§28.4).

A host that enforces file access itself (Claude Code, Codex, Gemini CLI, opencode, the OpenAI
Agents SDK's sandbox, a container, macOS Seatbelt) blocks a user-level skill from reading its own
``references/`` unless it is told the skill's directory may be read. This module tells it:

- :func:`render_grants` writes the grants of :meth:`AgentSkills.grants
  <agent_skills.AgentSkills.grants>` in one host's format (:data:`HOSTS`);
- :func:`write_grants` merges them into the workspace settings file of the hosts that read one
  (:data:`SETTINGS_FILES`), keeping everything else in it;
- :func:`sandbox_rules` and :func:`restrict_current_process` run a process under Linux Landlock
  with the project and the skills readable and nothing else of the user's files (the optional
  ``sandbox`` extra, ``landlockpy``).

Not owned here: which skills are granted and whether their pins hold (``AgentSkills.grants``,
``_grant``), the JSON reader and its caps (``_jsonfile``), containment (``_confine``), the one
manifest rule (``_scan.find_manifest``), discovery (the sandbox runs after it, outside).
"""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import json
import os
import re
import secrets
import shlex
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._args import coerce_bool, coerce_path, coerce_str
from ._confine import contains, real_path
from ._diagnostics import Diagnostic, DiagnosticKind, emit
from ._errors import ErrorCode, SkillError, fs_error
from ._fs import CLOEXEC, DIR_FLAGS, LIST_FLAGS, NOFOLLOW, READ_FLAGS
from ._grant import grant_list
from ._jsonfile import read_json_file
from ._model import Grant, GrantSet
from ._sandbox import (
    ACCESS,
    SandboxRule,
    SandboxRules,
    landlock_abi,
    restrict_current_process,
    sandbox_rules,
)
from ._terminal import safe_text

if TYPE_CHECKING:
    pass

__all__ = [
    "ACCESS",
    "HOSTS",
    "HOST_ALIASES",
    "MAX_SETTINGS_BYTES",
    "SETTINGS_FILES",
    "GrantWrite",
    "SandboxRule",
    "SandboxRules",
    "host_name",
    "landlock_abi",
    "render_grants",
    "restrict_current_process",
    "sandbox_rules",
    "settings_host",
    "write_grants",
]

#: The hosts :func:`render_grants` writes for, in the order of SPEC §28.2's table.
HOSTS: tuple[str, ...] = (
    "json",
    "claude",
    "codex",
    "gemini",
    "opencode",
    "openai-agents",
    "bwrap",
    "docker",
    "seatbelt",
)

#: Other names of the hosts, as people and other tools write them: each maps to its name in
#: :data:`HOSTS`. Every function taking a host accepts them.
HOST_ALIASES: dict[str, str] = {
    "claude-code": "claude",
    "gemini-cli": "gemini",
    "codex-cli": "codex",
    "openai": "openai-agents",
}

#: The workspace settings file of each host that reads one, relative to the workspace (§28.3).
SETTINGS_FILES: dict[str, str] = {
    "claude": ".claude/settings.local.json",
    "gemini": ".gemini/settings.json",
    "opencode": "opencode.json",
}

#: The largest settings file :func:`write_grants` reads, in bytes (SPEC §30.3).
MAX_SETTINGS_BYTES = 8 * 1024 * 1024

#: The Codex permission profile the ``codex`` format defines (SPEC §28.2).
CODEX_PROFILE = "agent-skills"

# A character no format carries: C0 and C1 controls (newline and NUL among them), DEL, and the
# lone surrogates that stand for bytes of a file name that are not UTF-8.
_UNCARRIED = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# Characters with a meaning in a host's path patterns, which would widen or break the rule:
# Claude Code's Read() rules follow gitignore (and the rule's own parentheses), opencode's
# patterns are wildcards.
_PATTERN_CHARS = {
    "claude": frozenset("*?[]\\()"),
    "opencode": frozenset("*?"),
}


# -- what a format can carry ---------------------------------------------------------------------


def _uncarried(text: str, host: str, args: bool) -> str | None:
    """Why ``text`` (an absolute path) cannot be written in ``host``'s format, or ``None``."""
    bad = _UNCARRIED.search(text)
    if bad is not None:
        char = bad.group()
        if "\ud800" <= char <= "\udfff":
            return "a byte that is not UTF-8"
        return "a newline" if char == "\n" else f"the control character U+{ord(char):04X}"
    special = _PATTERN_CHARS.get(host, frozenset())
    found = sorted(set(text) & special)
    if found:
        return f"{' '.join(found)}, a pattern character in {host}'s rules"
    if host == "gemini" and args and "," in text:
        return "a comma, the separator of --include-directories"
    return None


def _carried(grants: Iterable[Grant], host: str, *, args: bool = False) -> list[tuple[Grant, bool]]:
    """Each grant with whether its ``path`` can be written too (its ``real_path`` can): the
    grants whose ``real_path`` cannot are left out, each path left out with a warning."""
    kept: list[tuple[Grant, bool]] = []
    left: list[Diagnostic] = []
    for grant in grants:
        real = _uncarried(str(grant.real_path), host, args)
        if real is not None:
            left.append(_left_out(host, grant, grant.real_path, real))
            continue
        both = grant.path != grant.real_path
        reason = _uncarried(str(grant.path), host, args) if both else None
        if reason is not None:
            left.append(_left_out(host, grant, grant.path, reason))
        kept.append((grant, both and reason is None))
    emit(left)
    return kept


def _left_out(host: str, grant: Grant, path: Path, reason: str) -> Diagnostic:
    return Diagnostic(
        DiagnosticKind.PATH_LEFT_OUT,
        f"{host}: left out {safe_text(str(path), inline=True)} of skill "
        f"'{safe_text(grant.skill, inline=True)}': it holds {reason}, which the format "
        "cannot carry",
        path,
    )


def _paths(carried: Iterable[tuple[Grant, bool]]) -> list[str]:
    """The absolute paths to grant, each once: every ``real_path``, then its ``path`` where it
    differs (SPEC §28.2)."""
    seen: dict[str, None] = {}
    for grant, with_path in carried:
        seen.setdefault(str(grant.real_path))
        if with_path:
            seen.setdefault(str(grant.path))
    return list(seen)


def host_name(host: object) -> str:
    """The name in :data:`HOSTS` of ``host``, an alias (:data:`HOST_ALIASES`) resolved.

    Raises:
        SkillError: ``invalid_input`` ``{host, hosts}`` for an unknown host (the message lists
            the known ones), ``{type}`` for a host that is not a string.
    """
    return _host(host)


def _host(host: object) -> str:
    text = coerce_str(host, "host")
    text = HOST_ALIASES.get(text, text)
    if text not in HOSTS:
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            f"unknown host {text!r}; known hosts: {', '.join(HOSTS)}",
            {"host": text, "hosts": list(HOSTS)},
        )
    return text


def settings_host(host: object) -> str:
    """``host`` when it is a host with a workspace settings file (:data:`SETTINGS_FILES`).

    Raises:
        SkillError: ``invalid_input`` ``{host}`` ("print and paste: HOST has no workspace
            settings file") for another known host, ``{host, hosts}`` for an unknown one.
    """
    name = _host(host)
    if name not in SETTINGS_FILES:
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            f"print and paste: {name} has no workspace settings file",
            {"host": name},
        )
    return name


# -- rendering (SPEC §28.2) ----------------------------------------------------------------------


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def claude_rule(path: str) -> str:
    """The Claude Code permission rule reading everything under the absolute ``path``:
    ``Read(//<path without its leading slash>/**)`` (``//`` marks an absolute path)."""
    return f"Read(/{path}/**)"


def opencode_pattern(path: str) -> str:
    """The opencode ``external_directory`` pattern of everything under the absolute ``path``."""
    return f"{path}/**"


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _seatbelt_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _docker_mount(source: str, target: str) -> str:
    # --mount takes one CSV record: a field holding a comma or a quote is quoted, its quotes
    # doubled (docker reads it with a CSV reader).
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(
        ["type=bind", f"source={source}", f"target={target}", "readonly"]
    )
    return out.getvalue()


def render_grants(grants: Iterable[Grant], host: str, *, args: bool = False) -> str:
    """Write grants in one host's format (SPEC §28.2).

    Paths are absolute; where a grant's ``path`` and ``real_path`` differ both are granted
    (``real_path`` first), since hosts match either the path the model names or the resolved
    one; a path granted by two skills is written once. Formats, by ``host``:

    - ``json``: ``[{"skill", "path", "real_path"}, ...]``;
    - ``claude``: ``{"permissions": {"allow": ["Read(//<abs>/**)", ...]}}``;
    - ``codex``: comment lines saying to set ``default_permissions = "agent-skills"``, then the TOML
      tables ``[permissions.agent-skills]`` (``extends = ":workspace"``) and
      ``[permissions.agent-skills.filesystem]`` mapping each path to ``"read"``;
    - ``gemini``: ``{"context": {"includeDirectories": [...]}}``; with ``args``, one shell-quoted
      ``--include-directories`` argument holding the paths joined by commas (``""`` for none);
    - ``opencode``: ``{"permission": {"external_directory": {"<abs>/**": "allow", ...}}}``;
    - ``openai-agents``: ``[{"path", "host_path", "read_only": true, "description"}, ...]``, the
      fields of the OpenAI Agents SDK's ``SandboxPathGrant`` (``path`` the discovered path,
      ``host_path`` the real one);
    - ``bwrap``: one line of shell-quoted arguments, ``--ro-bind <real> <real>`` per grant and
      ``--ro-bind <real> <path>`` where they differ;
    - ``docker``: one line of shell-quoted arguments,
      ``--mount type=bind,source=<real>,target=<real>,readonly`` per grant and ``target=<path>``
      where they differ (the long form, CSV-quoted where a path needs it);
    - ``seatbelt``: one ``(allow file-read* (subpath "<abs>"))`` line per path, ``"`` and ``\\``
      escaped.

    JSON is indented by two spaces; no format ends with a newline. A path that cannot be written
    in the format (a control character such as a newline, a byte that is not UTF-8, a pattern
    character of Claude Code's or opencode's rules, a comma in gemini's ``--include-directories``)
    is left out with a ``path_left_out`` warning naming it (to the warn sink, SPEC §7.6); a grant
    whose ``real_path`` is left out is left out whole; the rest is rendered.

    Args:
        grants: A :class:`~agent_skills.GrantSet` or any iterable of :class:`~agent_skills.Grant`.
        host: One of :data:`HOSTS`, or an alias of one (:data:`HOST_ALIASES`).
        args: For ``gemini``: the command-line argument instead of the settings object.

    Returns:
        The text.

    Raises:
        SkillError: ``invalid_input`` ``{host, hosts}`` for an unknown host (the message lists
            the known ones); ``invalid_input`` ``{type}`` for ``grants`` that are not grants,
            ``args`` that is not a bool, or ``args`` with another host than ``gemini``.
    """
    name = _host(host)
    coerce_bool(args, "args")
    if args and name != "gemini":
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            "args applies to the gemini host only",
            {"host": name, "args": True},
        )
    carried = _carried(grant_list(grants), name, args=args)
    if name == "json":
        return _json([grant.to_dict() for grant, _ in carried])
    if name == "openai-agents":
        return _json(
            [
                {
                    "path": str(grant.path),
                    "host_path": str(grant.real_path),
                    "read_only": True,
                    "description": f"Agent Skill '{grant.skill}': its files, read-only",
                }
                for grant, with_path in carried
                if with_path or grant.path == grant.real_path
            ]
        )
    paths = _paths(carried)
    if name == "claude":
        return _json({"permissions": {"allow": [claude_rule(p) for p in paths]}})
    if name == "gemini":
        if args:
            return shlex.join(["--include-directories", ",".join(paths)]) if paths else ""
        return _json({"context": {"includeDirectories": paths}})
    if name == "opencode":
        return _json(
            {"permission": {"external_directory": {opencode_pattern(p): "allow" for p in paths}}}
        )
    if name == "codex":
        lines = [
            "# Paste into ~/.codex/config.toml and set, above its first table:",
            f'#   default_permissions = "{CODEX_PROFILE}"',
            f"[permissions.{CODEX_PROFILE}]",
            'extends = ":workspace"',
            "",
            f"[permissions.{CODEX_PROFILE}.filesystem]",
            *(f'{_toml_string(p)} = "read"' for p in paths),
        ]
        return "\n".join(lines)
    if name == "seatbelt":
        return "\n".join(f"(allow file-read* (subpath {_seatbelt_string(p)}))" for p in paths)
    words: list[str] = []
    for grant, with_path in carried:
        real = str(grant.real_path)
        targets = [real, str(grant.path)] if with_path else [real]
        for target in targets:
            if name == "bwrap":
                words += ["--ro-bind", real, target]
            else:
                words += ["--mount", _docker_mount(real, target)]
    return shlex.join(words)


# -- writing into a host's settings (SPEC §28.3) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class GrantWrite:
    """What :func:`write_grants` did to a host's settings file (SPEC §28.3).

    Attributes:
        path: The settings file.
        added: The entries written now, in order (Claude Code rules, Gemini CLI directories or
            opencode patterns).
        removed: The entries pruned.
        kept: The entries of these grants that were there already.
    """

    path: Path
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether the file was written (something was added or removed)."""
        return bool(self.added or self.removed)

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"path", "added", "removed", "kept"}`` for JSON output."""
        return {
            "path": str(self.path),
            "added": list(self.added),
            "removed": list(self.removed),
            "kept": list(self.kept),
        }


def _settings_error(path: str, reason: str) -> SkillError:
    return SkillError(
        ErrorCode.INVALID_INPUT,
        f"{path}: {reason}; left untouched",
        {"path": path, "reason": reason},
    )


_OWN_FORMS = {
    "claude": re.compile(r"Read\(/(/.+)/\*\*\)", re.DOTALL),
    "opencode": re.compile(r"(/.+)/\*\*", re.DOTALL),
}


def _own_dir(host: str, entry: object) -> str | None:
    """The directory of an entry of the exact form :func:`write_grants` writes, else ``None``."""
    if not isinstance(entry, str):
        return None
    if host == "gemini":
        path = entry
    else:
        match = _OWN_FORMS[host].fullmatch(entry)
        if match is None:
            return None
        path = match.group(1)
    if not path.startswith("/") or os.path.normpath(path) != path or path == "/":
        return None
    if _uncarried(path, host, False) is not None:
        return None
    return path


def _prunable(path: str, roots: Sequence[Path]) -> bool:
    """Whether a granted directory is gone: it no longer exists, or it lies inside a configured
    skill root and no longer holds a manifest (SPEC §28.3)."""
    if not os.path.exists(path):
        return True
    for root in roots:
        real_root = real_path(os.path.abspath(root))
        spellings = {os.path.abspath(root)} | ({real_root} if real_root is not None else set())
        if any(contains(r, path) and os.path.normpath(r) != path for r in spellings):
            from ._scan import find_manifest

            return find_manifest(path, follow_symlinks=True).name is None
    return False


def _container(parent: dict[str, Any], key: str, kind: type, where: str, path: str) -> Any:
    """``parent[key]`` made to exist as ``kind`` (a new one at the end when missing)."""
    value = parent.get(key)
    if value is None and key not in parent:
        value = kind()
        parent[key] = value
    if not isinstance(value, kind):
        wanted = "an object" if kind is dict else "an array"
        raise _settings_error(path, f"{where} is not {wanted}")
    return value


def _merge(
    doc: dict[str, Any],
    host: str,
    entries: list[str],
    prune: bool,
    roots: Sequence[Path],
    path: str,
) -> tuple[dict[str, Any], list[str], list[str], list[str]]:
    """The settings ``doc`` (a copy) with ``entries`` merged in and, with ``prune``, the entries
    of gone directories removed; and the lists added, removed, kept."""
    doc = copy.deepcopy(doc)
    added: list[str] = []
    kept: list[str] = []
    removed: list[str] = []
    wanted = set(entries)
    if host == "opencode":
        permission = doc.get("permission")
        if isinstance(permission, str):  # one action for every permission: "*" says the same
            doc["permission"] = {"*": permission}
        permission = _container(doc, "permission", dict, "permission", path)
        external = permission.get("external_directory")
        if isinstance(external, str):
            permission["external_directory"] = {"*": external}
        rules = _container(
            permission, "external_directory", dict, "permission.external_directory", path
        )
        for entry in entries:
            if entry in rules:
                kept.append(entry)
            else:
                rules[entry] = "allow"
                added.append(entry)
        if prune:
            for key, value in list(rules.items()):
                own = _own_dir(host, key)
                if value == "allow" and key not in wanted and own and _prunable(own, roots):
                    del rules[key]
                    removed.append(key)
        return doc, added, removed, kept
    if host == "claude":
        outer = _container(doc, "permissions", dict, "permissions", path)
        items = _container(outer, "allow", list, "permissions.allow", path)
    else:
        outer = _container(doc, "context", dict, "context", path)
        items = _container(outer, "includeDirectories", list, "context.includeDirectories", path)
    present = {item for item in items if isinstance(item, str)}
    for entry in entries:
        if entry in present:
            kept.append(entry)
        else:
            items.append(entry)
            present.add(entry)
            added.append(entry)
    if prune:
        for item in list(items):
            own = _own_dir(host, item)
            if item not in wanted and own is not None and _prunable(own, roots):
                items.remove(item)
                removed.append(item)
    return doc, added, removed, kept


def _entries(grants: list[Grant], host: str) -> list[str]:
    paths = _paths(_carried(grants, host))
    if host == "claude":
        return [claude_rule(p) for p in paths]
    if host == "opencode":
        return [opencode_pattern(p) for p in paths]
    return paths


_INDENT = re.compile(rb"\n([ \t]+)\S")


def _style(target: str) -> str | int:
    """The indentation of the file's first indented line (a bounded prefix, for style only)."""
    with contextlib.suppress(OSError):
        fd = os.open(target, READ_FLAGS | NOFOLLOW)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                found = _INDENT.search(os.read(fd, 65_536))
                if found is not None:
                    unit = found.group(1).decode()
                    return unit if "\t" in unit else len(unit)
        finally:
            os.close(fd)
    return 2


def _dump(doc: dict[str, Any], indent: str | int, path: str) -> bytes:
    try:
        text = json.dumps(doc, indent=indent, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise _settings_error(
            path, "it holds a number JSON cannot write (NaN or Infinity)"
        ) from None
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate escaped in the file: keep it escaped
        data = json.dumps(doc, indent=indent, ensure_ascii=True).encode("ascii")
    return data + b"\n"


def _read_settings(target: str, folder: str | None, host: str) -> dict[str, Any] | None:
    """The settings document, ``None`` when the file (or its folder) does not exist."""
    for where in ([folder] if folder is not None else []) + [target]:
        try:
            st = os.lstat(where)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise fs_error(exc, where) from None
        if stat.S_ISLNK(st.st_mode):
            raise _settings_error(where, "a symbolic link, not followed")
    doc = read_json_file(target, max_bytes=MAX_SETTINGS_BYTES, what=f"{host} settings")
    if not isinstance(doc, dict):
        raise _settings_error(target, "not a JSON object")
    return doc


@contextlib.contextmanager
def _folder(workspace: str, folder: str | None) -> Iterator[int]:
    """The settings folder open (created when missing, never through a link), locked against
    other writers of this module (``flock``) while the block runs."""
    try:
        ws_fd = os.open(workspace, LIST_FLAGS)
    except OSError as exc:
        raise fs_error(exc, workspace) from None
    try:
        if folder is None:
            fd = ws_fd
        else:
            name = os.path.basename(folder)
            try:
                os.mkdir(name, 0o777, dir_fd=ws_fd)
            except FileExistsError:
                pass
            except OSError as exc:
                raise fs_error(exc, folder) from None
            try:
                fd = os.open(name, DIR_FLAGS, dir_fd=ws_fd)
            except OSError as exc:
                if os.path.islink(folder):
                    raise _settings_error(folder, "a symbolic link, not followed") from None
                raise fs_error(exc, folder) from None
            os.close(ws_fd)
        ws_fd = -1
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass  # no lock where there is none to take: the rename stays atomic
        try:
            yield fd
        finally:
            os.close(fd)
    finally:
        if ws_fd >= 0:
            os.close(ws_fd)


def _replace(dir_fd: int, name: str, data: bytes, target: str) -> None:
    """Write ``name`` in the folder ``dir_fd`` atomically: a temporary file in the same folder,
    ``fsync``, rename, ``fsync`` of the folder; the old file's mode (and owner, for root) kept."""
    try:
        old = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise fs_error(exc, target) from None
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise _settings_error(target, "not a regular file")
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC
    try:
        fd = os.open(tmp, flags, 0o666, dir_fd=dir_fd)  # the umask applies to a new file
    except OSError as exc:
        raise fs_error(exc, target) from None
    try:
        try:
            if old is not None:
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
                if os.geteuid() == 0:
                    with contextlib.suppress(OSError):
                        os.fchown(fd, old.st_uid, old.st_gid)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        if isinstance(exc, OSError):
            raise fs_error(exc, target) from None
        raise
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


def write_grants(
    grants: Iterable[Grant],
    host: str,
    *,
    workspace: str | os.PathLike[str],
    prune: bool = False,
) -> GrantWrite:
    """Merge grants into the workspace settings file of a host that reads one (SPEC §28.3).

    ``claude`` writes ``<workspace>/.claude/settings.local.json`` (personal settings, meant to
    stay out of git): a ``Read(//<abs>/**)`` rule per path in ``permissions.allow``;
    ``gemini`` writes ``<workspace>/.gemini/settings.json``: each path in
    ``context.includeDirectories``;
    ``opencode`` writes ``<workspace>/opencode.json``: ``"<abs>/**": "allow"`` in
    ``permission.external_directory`` (a ``permission`` or ``external_directory`` that is one
    action for everything, such as ``"ask"``, becomes ``{"*": "ask"}`` first, which opencode reads
    the same; an entry the user set to another action stays as it is). Paths are those of
    :func:`render_grants`, with its warnings.

    Every other key and entry is kept, with its order; only missing entries are added, at the
    end. With ``prune``, an entry of the exact form written here is removed when its directory no
    longer exists, or lies inside one of the configured roots (``grants.roots`` of a
    :class:`~agent_skills.GrantSet`) and no longer holds a ``SKILL.md``; a user's own rule for
    another folder is never removed. When nothing is added or removed the file is not written
    (its bytes stay as they are). Otherwise it is replaced atomically (a temporary file in the
    same folder, ``fsync``, rename), its mode kept, JSON indented as its first indented line was
    (two spaces for a new file); a missing file and folder are created. Concurrent writers
    through this function are serialised by a lock on the folder. The settings file and its
    folder are never followed when they are symbolic links. A file with comments is not JSON:
    it is left untouched (``invalid_input``).

    Args:
        grants: A :class:`~agent_skills.GrantSet` (its ``roots`` used by ``prune``) or any
            iterable of :class:`~agent_skills.Grant` (no roots).
        host: ``claude``, ``gemini`` or ``opencode`` (or an alias, :data:`HOST_ALIASES`).
        workspace: The project directory holding the settings (it must exist).
        prune: Also remove the entries of directories that are gone.

    Returns:
        A :class:`GrantWrite` ``(path, added, removed, kept)``.

    Raises:
        SkillError: ``invalid_input`` ``{host}`` for another host ("print and paste: HOST has
            no workspace settings file") and ``{host, hosts}`` for an unknown one;
            ``invalid_input`` ``{path, reason}`` for a settings file that is not a JSON object,
            not UTF-8 JSON, nested too deep, holds a key of the wrong type on the way
            (``permissions.allow`` not an array), or is a symbolic link (as is its folder): the
            file is left untouched; ``not_a_file`` ``{path}`` for a FIFO or device there;
            ``too_large`` ``{path, max_bytes}`` over :data:`MAX_SETTINGS_BYTES`; ``not_found``
            ``{path}`` for a missing workspace; ``io_error`` ``{path}`` for other OS errors.
    """
    name = settings_host(host)
    coerce_bool(prune, "prune")
    ws = os.path.abspath(coerce_path(workspace, "workspace", usable=True))
    items = grant_list(grants)
    roots = grants.roots if isinstance(grants, GrantSet) else ()
    rel = SETTINGS_FILES[name]
    target = os.path.join(ws, rel)
    folder = os.path.dirname(target) if "/" in rel else None
    entries = _entries(items, name)

    def plan() -> tuple[dict[str, Any], list[str], list[str], list[str]]:
        doc = _read_settings(target, folder, name)
        return _merge(doc if doc is not None else {}, name, entries, prune, roots, target)

    merged, added, removed, kept = plan()
    if added or removed:
        with _folder(ws, folder) as dir_fd:
            merged, added, removed, kept = plan()  # again, under the lock
            if added or removed:
                data = _dump(merged, _style(target), target)
                _replace(dir_fd, os.path.basename(target), data, target)
    return GrantWrite(Path(target), tuple(added), tuple(removed), tuple(kept))
