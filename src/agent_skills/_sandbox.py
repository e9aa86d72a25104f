"""The sandbox: a process under Linux Landlock with the project and the skills readable and
nothing else of the user's files (SPEC §28.4). Public through :mod:`agent_skills.grants`.

:func:`sandbox_rules` says which paths get which rights; :func:`restrict_current_process` applies
them to the calling process through ``landlockpy`` (the optional ``sandbox`` extra), one way.

Not owned here: which skills are granted (``AgentSkills.grants``, ``_grant``), containment
(``_confine``), the host formats of grants (``grants``).
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._args import coerce_path, coerce_str
from ._confine import contains, real_path
from ._errors import ErrorCode, SkillError, fs_error, missing_extra
from ._fs import PATH_FLAGS
from ._grant import grant_list
from ._model import Grant

if TYPE_CHECKING:
    from landlockpy import AccessFS

__all__ = [
    "ACCESS",
    "SandboxRule",
    "SandboxRules",
    "landlock_abi",
    "restrict_current_process",
    "sandbox_rules",
]

#: The rights a rule may give, each a set of Landlock filesystem rights (see ``_LANDLOCK``).
ACCESS: tuple[str, ...] = ("read", "execute", "write", "create", "remove", "ioctl")

_SYSTEM_DIRS = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
    "/run",
    "/var/lib",
)
_READ_EXECUTE = ("read", "execute")
_READ_WRITE = ("read", "write", "create", "remove")
_DEVICES = ("read", "write", "ioctl")


@dataclass(frozen=True, slots=True)
class SandboxRule:
    """One path of the sandbox and what may be done under it (SPEC §28.4).

    Attributes:
        path: The directory (or file) the rule covers with everything below it: a real path, as
            Landlock applies rules to the file hierarchy, not to a spelling.
        access: The rights, in :data:`ACCESS` order: ``read`` (files and directory listings),
            ``execute``, ``write`` (and truncate), ``create`` (files, folders, links, and moving
            them in), ``remove`` (and moving out), ``ioctl`` (on devices).
        reasons: Why the path is there, in order: ``system``, ``devices``, ``project``,
            ``temp``, ``skill:NAME``, ``read``, ``write``, ``command``.
    """

    path: Path
    access: tuple[str, ...]
    reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"path", "access", "reasons"}``."""
        return {"path": str(self.path), "access": list(self.access), "reasons": list(self.reasons)}


@dataclass(frozen=True, slots=True)
class SandboxRules:
    """The rule set of the sandbox (SPEC §28.4), from :func:`sandbox_rules`.

    Everything not covered by a rule is denied to the restricted process and its children
    (reading, writing, creating, executing); the network is not restricted.

    Attributes:
        rules: The rules, one per real path, in the order of :attr:`SandboxRule.reasons`.
        command: The command resolved as ``execvp`` would (through ``PATH``), absolute; ``None``
            when no command was given or it was not found.
        warnings: ``(code, message)`` pairs a person should see before the command runs:
            ``temp_not_granted`` (the temporary folder is not under ``/tmp``, ``/var/tmp``,
            ``/dev/shm``, ``/run/user/UID`` nor a folder of the user's own, so it was left
            out), ``rule_grants_system`` (a writable rule is, or holds, a system folder such as
            ``/etc``), ``skill_writable`` (granted skills inside a writable rule, such as
            project skills inside the project, are writable as part of it).
    """

    rules: tuple[SandboxRule, ...]
    command: Path | None = None
    warnings: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"command", "rules": [...], "network": "not restricted"}`` (``--dry-run``)."""
        return {
            "command": str(self.command) if self.command is not None else None,
            "rules": [rule.to_dict() for rule in self.rules],
            "network": "not restricted",
        }


def _is_temp_of_user(real: str) -> bool:
    """Whether the real folder ``real`` may serve as the sandbox's writable temporary folder:
    under ``/tmp``, ``/var/tmp``, ``/dev/shm`` or ``/run/user/UID``, or owned by the user and
    no system folder."""
    if any(contains(place, real) for place in _temp_places()):
        return True
    try:
        owner = os.stat(real).st_uid
    except OSError:
        return False
    return owner == getattr(os, "getuid", lambda: -1)() and not _is_system(real)


def _temp_places() -> list[str]:
    """The folders meant for temporary files of everyone or of this user."""
    places = ["/tmp", "/var/tmp", "/dev/shm"]
    if hasattr(os, "getuid"):
        places.append(f"/run/user/{os.getuid()}")
    return places


def _is_system(real: str) -> bool:
    """Whether the real path ``real`` is ``/``, a system folder (``/etc``, ``/usr``, ...), lies
    in one or holds one; the folders of :func:`_temp_places` are not."""
    if real == os.path.sep:
        return True
    if any(contains(place, real) for place in _temp_places()):
        return False
    for system in _SYSTEM_DIRS:
        place = real_path(system)
        if place is not None and (contains(place, real) or contains(real, place)):
            return True
    return False


def _warnings(built: Sequence[SandboxRule], items: Sequence[Grant]) -> list[tuple[str, str]]:
    """What a writable rule gives beyond what its name suggests (see :class:`SandboxRules`)."""
    out: list[tuple[str, str]] = []
    named: set[str] = set()  # each skill is named once, under the first rule holding it
    for rule in built:
        if "write" not in rule.access or rule.reasons == ("devices",):
            continue
        where = f"{rule.path} ({', '.join(rule.reasons)})"
        if _is_system(os.fspath(rule.path)):
            out.append(
                (
                    "rule_grants_system",
                    f"{where} is or holds a system folder: it is writable in the sandbox",
                )
            )
        inside = sorted(
            {
                g.skill
                for g in items
                if g.skill not in named and contains(os.fspath(rule.path), os.fspath(g.real_path))
            }
        )
        named.update(inside)
        if inside:
            out.append(
                (
                    "skill_writable",
                    f"{len(inside)} skill(s) inside {where} are writable in the sandbox, as "
                    f"that folder is: {', '.join(inside)}",
                )
            )
    return out


def _prefix(executable: str) -> str:
    """The installation prefix of an executable: the parent of its folder when that folder is
    named ``bin``, else the folder."""
    folder = os.path.dirname(executable)
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder


def _resolve_command(command: str, path_env: str | None) -> str | None:
    if "/" in command:
        found = command if os.access(command, os.X_OK) and os.path.isfile(command) else None
    else:
        found = shutil.which(command, path=path_env)
    return os.path.abspath(found) if found is not None else None


def sandbox_rules(
    grants: Iterable[Grant] = (),
    *,
    project: str | os.PathLike[str],
    read: Sequence[str | os.PathLike[str]] = (),
    write: Sequence[str | os.PathLike[str]] = (),
    command: str | None = None,
    path_env: str | None = None,
) -> SandboxRules:
    """The rule set the sandbox applies, for review or for :func:`restrict_current_process`
    (SPEC §28.4).

    Exactly these rights, every path made real (a path that is a link grants its target):

    - read, write, create and remove under ``project`` and the system temporary directory
      (``tempfile.gettempdir()``) when it is under ``/tmp``, ``/var/tmp``, ``/dev/shm`` or
      ``/run/user/UID`` or is a folder of the user's own (``TMPDIR=/etc`` is left out, with the
      warning ``temp_not_granted``: grant it as a ``write`` path to make it writable anyway);
    - read and execute under the system set: ``/usr``, ``/bin``, ``/sbin``, ``/lib``,
      ``/lib32``, ``/lib64``, ``/etc``, ``/opt``, ``/proc``, ``/sys``, ``/run``, ``/var/lib``,
      ``sys.base_prefix``, each directory on ``PATH`` and the installation prefix of the
      resolved ``command`` (the parent of its folder when that folder is named ``bin``, else the
      folder; the command's link resolved first) and, for a command found in a virtual
      environment (a prefix holding ``pyvenv.cfg``: its ``python`` is a link out of it), that
      environment's, those that exist; and under each ``read`` path;
    - read, write and ``ioctl`` on ``/dev`` (a terminal, ``/dev/null``);
    - read and execute, never write, under the ``real_path`` of each grant;
    - read, write, create and remove under each ``write`` path (a host's own state folder).

    Rules on one real path are merged (their rights and reasons joined), and a system folder
    below another rule that gives it every right already is left out. Landlock grants a path
    the rights of every rule above it too: a skill inside the project, the temporary directory
    or a ``write`` path is writable as part of it (the warning ``skill_writable`` names them),
    and a writable rule that is or holds a system folder is warned of (``rule_grants_system``).

    Args:
        grants: The skills to make readable (``AgentSkills.grants()``, or none).
        project: The project directory (it must exist).
        read: More directories (or files) to make readable and executable.
        write: More directories to make readable and writable.
        command: The command to run, resolved through ``path_env`` as ``execvp`` does.
        path_env: The ``PATH`` to search (``os.environ["PATH"]`` when ``None``).

    Returns:
        :class:`SandboxRules`, with its :attr:`~SandboxRules.warnings`.

    Raises:
        SkillError: ``not_found`` ``{path}`` for a ``project``, ``read`` or ``write`` path that
            does not exist; ``invalid_input`` ``{path}`` for one whose links cannot be resolved
            within 40 hops (SPEC §30.6); ``invalid_input`` for an argument of the wrong type.
    """
    items = grant_list(grants)
    if path_env is None:
        path_env = os.environ.get("PATH", os.defpath)
    rules: dict[str, tuple[set[str], list[str]]] = {}

    def add(path: str, access: tuple[str, ...], reason: str, *, required: bool) -> None:
        real = real_path(os.path.abspath(path))
        if real is None:
            # Links that cannot be resolved within the hop limit (SPEC §30.6): nothing to grant.
            if required:
                raise SkillError(
                    ErrorCode.INVALID_INPUT,
                    f"The links of {path} cannot be resolved",
                    {"path": path},
                )
            return
        if not os.path.exists(real):
            if required:
                raise SkillError(
                    ErrorCode.NOT_FOUND, f"No such file or folder: {path}", {"path": path}
                )
            return
        rights, reasons = rules.setdefault(real, (set(), []))
        rights.update(access)
        if reason not in reasons:
            reasons.append(reason)

    for system in (*_SYSTEM_DIRS, sys.base_prefix):
        add(system, _READ_EXECUTE, "system", required=False)
    for entry in path_env.split(os.pathsep):
        if entry and os.path.isabs(entry):
            add(entry, _READ_EXECUTE, "system", required=False)
    add("/dev", _DEVICES, "devices", required=False)
    add(coerce_path(project, "project", usable=True), _READ_WRITE, "project", required=True)
    warnings: list[tuple[str, str]] = []
    temp = tempfile.gettempdir()
    real_temp = real_path(os.path.abspath(temp))
    if real_temp is not None and _is_temp_of_user(real_temp):
        add(temp, _READ_WRITE, "temp", required=False)
    elif real_temp is not None and os.path.exists(real_temp):
        warnings.append(
            (
                "temp_not_granted",
                f"the temporary folder {temp} (TMPDIR) is not under /tmp, /var/tmp, /dev/shm "
                "or a folder of yours: it is not made writable in the sandbox (grant it as a "
                "write path to make it writable anyway)",
            )
        )
    for grant in items:
        add(str(grant.real_path), _READ_EXECUTE, f"skill:{grant.skill}", required=False)
    for path in read:
        add(coerce_path(path, "read path", usable=True), _READ_EXECUTE, "read", required=True)
    for path in write:
        add(coerce_path(path, "write path", usable=True), _READ_WRITE, "write", required=True)
    resolved = None
    if command is not None:
        found = _resolve_command(coerce_str(command, "command"), path_env)
        if found is not None:
            resolved = Path(found)
            # A virtual environment's python is a link out of it, and reads its pyvenv.cfg and
            # site-packages there: the environment it was found in too (only one, never any
            # folder a link happens to be in, such as ~/bin).
            found_prefix = _prefix(found)
            if os.path.isfile(os.path.join(found_prefix, "pyvenv.cfg")):
                add(found_prefix, _READ_EXECUTE, "command", required=False)
            real_command = real_path(found)
            if real_command is not None:
                add(_prefix(real_command), _READ_EXECUTE, "command", required=False)
    # A system folder below another rule that gives it every right adds nothing (Landlock grants
    # a file the rights of every rule on its ancestors): left out, so a review reads the rest.
    built = tuple(
        SandboxRule(Path(path), tuple(a for a in ACCESS if a in rights), tuple(reasons))
        for path, (rights, reasons) in rules.items()
        if reasons != ["system"]
        or not any(
            other != path and contains(other, path) and rights <= more
            for other, (more, _) in rules.items()
        )
    )
    warnings.extend(_warnings(built, items))
    return SandboxRules(built, resolved, tuple(warnings))


def _unavailable(reason: str) -> SkillError:
    return SkillError(
        ErrorCode.SANDBOX_UNAVAILABLE,
        f"the sandbox is not available here: {reason}",
        {"reason": reason},
    )


def landlock_abi() -> tuple[int, str | None]:
    """The Landlock ABI version of the running kernel and, when it is 0, why the sandbox cannot
    run here (not Linux, no Landlock in the kernel, the ``sandbox`` extra not installed)."""
    if not sys.platform.startswith("linux"):
        return 0, f"Landlock is a Linux feature (this is {sys.platform})"
    try:
        import landlockpy
    except ImportError as exc:
        return 0, missing_extra("sandbox", "it", exc)
    try:
        abi = landlockpy.abi_version()
    except OSError as exc:
        return 0, f"the kernel refused the Landlock version query ({exc.strerror or exc})"
    if abi < 1:
        return 0, "the kernel has no Landlock (Linux 5.13 or later with landlock enabled)"
    return abi, None


def _landlock_rights(access: Iterable[str]) -> AccessFS:
    from landlockpy import AccessFS

    table = {
        "read": AccessFS.READ_FILE | AccessFS.READ_DIR,
        "execute": AccessFS.EXECUTE,
        "write": AccessFS.WRITE_FILE | AccessFS.TRUNCATE,
        "create": AccessFS.MAKE_REG
        | AccessFS.MAKE_DIR
        | AccessFS.MAKE_SYM
        | AccessFS.MAKE_FIFO
        | AccessFS.MAKE_SOCK
        | AccessFS.REFER,
        "remove": AccessFS.REMOVE_FILE | AccessFS.REMOVE_DIR | AccessFS.REFER,
        "ioctl": AccessFS.IOCTL_DEV,
    }
    rights = AccessFS.NONE
    for name in access:
        rights |= table[name]
    return rights


def restrict_current_process(rules: SandboxRules) -> int:
    """Apply ``rules`` to the calling process with Linux Landlock; one-way (SPEC §28.4).

    Every filesystem right Landlock knows on the running kernel is handled (denied unless a rule
    grants it), but connecting to UNIX sockets by path; the network and signals are not
    restricted. ``no_new_privs`` is set (a setuid program gains nothing). The restriction holds
    for every child process, which cannot lift it. On ABI 8 and later it covers every thread of
    the process; before, the calling thread and the processes it starts (so call it from the
    thread that will ``exec``, as the CLI does just before executing the command). Rights the
    kernel does not know are left out (best effort: on ABI 1 and 2, truncation is not
    restricted).

    Args:
        rules: From :func:`sandbox_rules`.

    Returns:
        The Landlock ABI version used.

    Raises:
        SkillError: ``sandbox_unavailable`` ``{reason}`` when Landlock cannot be applied (not
            Linux, a kernel without it, the ``sandbox`` extra missing, the kernel refusing the
            rule set): the process is then not restricted at all; ``not_found`` ``{path}`` for a
            rule's path that is missing now or has a symbolic link on its way (each is reached
            from ``/`` without following a link, so a folder swapped for a link to another since
            the rules were made grants nothing), ``fs_error``'s codes for other OS errors:
            nothing is applied either.
    """
    if not isinstance(rules, SandboxRules):
        raise SkillError(
            ErrorCode.INVALID_INPUT,
            f"rules must be SandboxRules, got {type(rules).__name__}",
            {"type": type(rules).__name__},
        )
    abi, reason = landlock_abi()
    if reason is not None:
        raise _unavailable(reason)
    from landlockpy import AccessFS, AccessNet, LandlockError, RestrictFlag, Ruleset, fs_for_abi

    handled = fs_for_abi(abi) & ~AccessFS.RESOLVE_UNIX
    file_rights = (
        AccessFS.EXECUTE
        | AccessFS.WRITE_FILE
        | AccessFS.READ_FILE
        | AccessFS.TRUNCATE
        | AccessFS.IOCTL_DEV
    )
    path = ""
    try:
        with Ruleset(handled_fs=handled, handled_net=AccessNet.NONE) as ruleset:
            for rule in rules.rules:
                path = str(rule.path)
                rights = _landlock_rights(rule.access) & handled
                fd = _open_rule_path(path)
                try:
                    if not stat.S_ISDIR(os.fstat(fd).st_mode):
                        rights &= file_rights  # a rule on a file takes only the rights of files
                    # The rule goes on what was reached without a link on the way: a path
                    # swapped for a link since the rules were made grants nothing it points at.
                    proc = f"/proc/self/fd/{fd}"
                    ruleset.allow_path(proc if os.path.exists(proc) else path, rights)
                finally:
                    os.close(fd)
            ruleset.restrict(RestrictFlag.TSYNC)
    except LandlockError as exc:
        detail = exc.strerror or str(exc)
        raise _unavailable(f"the kernel refused the rule set ({detail})") from None
    except OSError as exc:
        raise fs_error(exc, path) from None
    return abi


def _open_rule_path(path: str) -> int:
    """``path`` (a real path) opened without following a symbolic link anywhere on it.

    Raises:
        SkillError: ``not_found`` ``{path}`` when it is missing now or a link is on the way.
        OSError: For other errors.
    """
    from ._confine import open_real_dir

    fd = open_real_dir(path)
    if fd is not None:
        return fd
    parent, name = os.path.split(path)
    parent_fd = open_real_dir(parent) if name else None
    if parent_fd is not None:
        try:
            fd = os.open(name, PATH_FLAGS, dir_fd=parent_fd)
        except FileNotFoundError:
            fd = None
        finally:
            os.close(parent_fd)
        if fd is not None:
            if not stat.S_ISLNK(os.fstat(fd).st_mode):
                return fd
            os.close(fd)
    raise SkillError(
        ErrorCode.NOT_FOUND,
        f"{path} is missing, or a symbolic link is on its way, since the rules were made",
        {"path": path},
    )
