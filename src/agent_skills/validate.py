"""Author-facing validation of a skill directory against the Agent Skills specification (SPEC §15).

Discovery is lenient (SPEC §5-§7): it repairs YAML, trims values and loads skills that some hosts
would reject. :func:`validate_skill` is the other side: it tells a skill's author, before they
publish, whether every host that follows the Agent Skills specification will accept the skill. The
YAML is parsed strictly (no repair) with the same YAML 1.2 loader as discovery.

Problem codes (stable; ``field`` is the frontmatter key concerned, ``line`` is 1-based in the
manifest file when the source has one):

Errors (the skill is not portable; ``agent-skills validate`` exits 1):

=========================== ====================================================================
``path_not_found``          the path does not exist
``not_a_directory``         the path is not a directory
``manifest_missing``        no ``SKILL.md`` (in any letter case) in the directory
``manifest_unreadable``     the manifest could not be read (the message names the OS error, or
                            says it is not a regular file: a FIFO or device is never opened to
                            block)
``manifest_too_large``      the manifest is larger than 1 MiB (``max_manifest_bytes``): discovery
                            skips it; it is never read past that cap
``invalid_encoding``        the manifest is not valid UTF-8 (``line`` of the first bad byte)
``frontmatter_missing``     the manifest does not open with a ``---`` line
``frontmatter_unterminated`` no closing ``---`` line (``line`` of the opening fence)
``yaml_error``              the frontmatter is not valid YAML 1.2, duplicate keys included;
                            parsed strictly, without the lenient repair (``line`` when known)
``frontmatter_not_mapping`` the frontmatter is a scalar or a list, not a mapping
``name_missing``            no ``name`` key
``name_type``               ``name`` is not a string
``name_empty``              ``name`` is empty
``name_too_long``           ``name`` is longer than 64 characters (after NFKC)
``name_uppercase``          ``name`` holds an upper- or title-case letter
``name_invalid_chars``      ``name`` holds a character that is neither a Unicode letter or digit
                            nor a hyphen (spaces, ``_``, ``.`` ...)
``name_hyphen_edge``        ``name`` starts or ends with ``-``
``name_double_hyphen``      ``name`` contains ``--``
``name_dir_mismatch``       ``name`` differs from the directory name (both NFKC-normalised)
``description_missing``     no ``description`` key
``description_type``        ``description`` is not a string
``description_empty``       ``description`` is empty after trimming
``description_too_long``    ``description`` is over 1024 characters after trimming
``compatibility_type``      ``compatibility`` is present but not a string
``compatibility_empty``     ``compatibility`` is empty after trimming
``compatibility_too_long``  ``compatibility`` is over 500 characters after trimming
``license_type``            ``license`` is present but not a string
``metadata_type``           ``metadata`` is not a mapping
``metadata_value_type``     a ``metadata`` value is not a string (``field`` ``metadata.<key>``;
                            quote it: ``version: "1.0"``)
``allowed_tools_type``      ``allowed-tools`` is neither a string nor a list of strings
=========================== ====================================================================

Warnings (the skill loads, but some hosts or readers may stumble):

=========================== ====================================================================
``manifest_case``           the manifest is not named exactly ``SKILL.md`` (it only loads on
                            case-insensitive filesystems for hosts that look for ``SKILL.md``)
``manifest_bom``            the manifest starts with a UTF-8 byte order mark
``unknown_key``             a top-level key outside the specification's set (``name``,
                            ``description``, ``license``, ``compatibility``, ``metadata``,
                            ``allowed-tools``)
``allowed_tools_list``      ``allowed-tools`` is a list; the specification says a space-separated
                            string
``body_too_long``           the body is over 500 lines (``line`` of the 501st body line)
``broken_reference``        a relative file reference in the body names nothing in the skill
``reference_escape``        a relative file reference in the body climbs out of the skill
``unlisted_file``           a file of the skill is never listed or served: no resource path
                            names it (a ``\\`` in its name, or a top-level name starting with
                            a drive, ``C:``), as when a Windows archive was unpacked with
                            backslashes kept in its names
=========================== ====================================================================

Profile ``portable`` (what MCP hosts and the official TypeScript skills client accept, SPEC §17,
§20.3, §20.8, §24.2; the MCP server publishes exactly the skills it passes): ``manifest_case``
and ``manifest_bom`` are errors, and these are added (errors but the first):

=========================== ====================================================================
``name_not_portable``       (warning) ``name`` holds characters outside ASCII ``a-z``, ``0-9``,
                            ``-``
``manifest_outside``        the manifest is a link leading outside the skill directory
``non_utf8_path``           the directory's name or a file's path is not valid UTF-8
``path_collision``          two file paths are one file when case and Unicode form are ignored
``frontmatter_not_first``   the manifest does not open with ``---`` on its first line
``value_not_json``          a frontmatter value JSON cannot carry (``.inf``, ``.nan``)
``frontmatter_too_deep``    the frontmatter nests deeper than 32 levels
``yaml_subset``             a YAML construct the TypeScript client does not read: anchors and
                            aliases, tags, block indentation indicators, a mapping in a flow
                            collection, a key that is not a string, a quoted scalar over several
                            lines (``line`` of the first)
=========================== ====================================================================

Sources: the Agent Skills specification (``SKILL.md`` format, frontmatter fields, "keep
``SKILL.md`` under 500 lines", file references relative to the skill root), SPEC §15 and, for
``portable``, SPEC §17 and §24.2.
"""

from __future__ import annotations

import json
import os
import re
import stat
import unicodedata
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal, TypeAlias

import yaml

from . import _scan
from ._args import coerce_choice, coerce_path
from ._config import DEFAULT_MAX_MANIFEST_BYTES
from ._confine import resolve_resource_path
from ._errors import ErrorCode, SkillError
from ._fs import read_file_capped
from ._manifest import load_frontmatter_yaml, load_repaired_yaml, split_frontmatter
from ._model import MANIFEST_NAME, is_manifest_name, is_skipped_path
from ._schema import MAX_DESCRIPTION_LENGTH, name_key, plain_scalar_tag, yaml_kind

__all__ = [
    "MAX_BODY_LINES",
    "MAX_COMPATIBILITY_LENGTH",
    "MAX_DESCRIPTION_LENGTH",
    "MAX_NAME_LENGTH",
    "MAX_PORTABLE_DEPTH",
    "PROFILES",
    "RESERVED_NAME_WORDS",
    "SPEC_KEYS",
    "ManifestCheck",
    "Problem",
    "ProblemCode",
    "Profile",
    "Severity",
    "check_frontmatter",
    "check_manifest",
    "check_skill_files",
    "find_manifest",
    "has_errors",
    "validate_skill",
]

#: Longest ``name``, in characters after NFKC (Agent Skills spec: name).
MAX_NAME_LENGTH = 64
#: Longest ``compatibility``, in characters after trimming (Agent Skills spec: compatibility).
MAX_COMPATIBILITY_LENGTH = 500
#: Longest body, in lines (Agent Skills spec: "keep SKILL.md under 500 lines").
MAX_BODY_LINES = 500
#: The top-level frontmatter keys the Agent Skills specification defines.
SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
#: Deepest frontmatter nesting the official TypeScript skills client reads (profile ``portable``).
MAX_PORTABLE_DEPTH = 32


class Severity(StrEnum):
    """How bad a :class:`Problem` is. A ``str`` enum, so ``p.severity == "error"`` holds."""

    ERROR = "error"
    WARNING = "warning"


class ProblemCode(StrEnum):
    """The stable codes of :class:`Problem` (the table in this module's docstring).

    A ``str`` enum, so ``p.code == "name_empty"`` holds and JSON output is the plain word.
    """

    PATH_NOT_FOUND = "path_not_found"
    NOT_A_DIRECTORY = "not_a_directory"
    MANIFEST_MISSING = "manifest_missing"
    MANIFEST_UNREADABLE = "manifest_unreadable"
    MANIFEST_TOO_LARGE = "manifest_too_large"
    INVALID_ENCODING = "invalid_encoding"
    FRONTMATTER_MISSING = "frontmatter_missing"
    FRONTMATTER_UNTERMINATED = "frontmatter_unterminated"
    YAML_ERROR = "yaml_error"
    FRONTMATTER_NOT_MAPPING = "frontmatter_not_mapping"
    NAME_MISSING = "name_missing"
    NAME_TYPE = "name_type"
    NAME_EMPTY = "name_empty"
    NAME_TOO_LONG = "name_too_long"
    NAME_UPPERCASE = "name_uppercase"
    NAME_INVALID_CHARS = "name_invalid_chars"
    NAME_HYPHEN_EDGE = "name_hyphen_edge"
    NAME_DOUBLE_HYPHEN = "name_double_hyphen"
    NAME_DIR_MISMATCH = "name_dir_mismatch"
    NAME_NOT_PORTABLE = "name_not_portable"
    NAME_RESERVED = "name_reserved"
    DESCRIPTION_MISSING = "description_missing"
    DESCRIPTION_TYPE = "description_type"
    DESCRIPTION_EMPTY = "description_empty"
    DESCRIPTION_TOO_LONG = "description_too_long"
    DESCRIPTION_ANGLE_BRACKETS = "description_angle_brackets"
    COMPATIBILITY_TYPE = "compatibility_type"
    COMPATIBILITY_EMPTY = "compatibility_empty"
    COMPATIBILITY_TOO_LONG = "compatibility_too_long"
    LICENSE_TYPE = "license_type"
    METADATA_TYPE = "metadata_type"
    METADATA_VALUE_TYPE = "metadata_value_type"
    ALLOWED_TOOLS_TYPE = "allowed_tools_type"
    MANIFEST_CASE = "manifest_case"
    MANIFEST_BOM = "manifest_bom"
    UNKNOWN_KEY = "unknown_key"
    ALLOWED_TOOLS_LIST = "allowed_tools_list"
    BODY_TOO_LONG = "body_too_long"
    BROKEN_REFERENCE = "broken_reference"
    REFERENCE_ESCAPE = "reference_escape"
    UNLISTED_FILE = "unlisted_file"
    MANIFEST_OUTSIDE = "manifest_outside"
    NON_UTF8_PATH = "non_utf8_path"
    PATH_COLLISION = "path_collision"
    FRONTMATTER_NOT_FIRST = "frontmatter_not_first"
    VALUE_NOT_JSON = "value_not_json"
    FRONTMATTER_TOO_DEEP = "frontmatter_too_deep"
    YAML_SUBSET = "yaml_subset"


#: The validation profiles, each adding to the one before it (``validate --profile``).
Profile: TypeAlias = Literal["spec", "portable", "anthropic"]
PROFILES: tuple[Profile, ...] = ("spec", "portable", "anthropic")
#: Words the Anthropic upload refuses inside a ``name`` (profile ``anthropic``).
RESERVED_NAME_WORDS = ("anthropic", "claude")


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding of :func:`validate_skill` (SPEC §15).

    Attributes:
        severity: :class:`Severity` ``error`` (hosts may reject the skill) or ``warning``.
        code: A stable code from the table in this module's docstring.
        message: Human-readable text; never the file's contents beyond the offending value.
        field: The frontmatter key concerned (``metadata.<key>`` for a metadata value), or
            ``None`` for problems of the file or the body.
        line: 1-based line in the manifest file (the YAML key's line, the body line of a
            reference), or ``None`` when the problem has no position.
    """

    severity: Severity
    code: ProblemCode
    message: str
    field: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"severity", "code", "message", "field", "line"}`` for JSON output."""
        return {
            "severity": self.severity.value,
            "code": str(self.code),
            "message": self.message,
            "field": self.field,
            "line": self.line,
        }


def has_errors(problems: list[Problem]) -> bool:
    """Return True when any problem is an error (warnings alone pass, SPEC §16)."""
    return any(p.severity == Severity.ERROR for p in problems)


def _error(
    code: ProblemCode, message: str, field: str | None = None, line: int | None = None
) -> Problem:
    return Problem(Severity.ERROR, code, message, field, line)


def _warning(
    code: ProblemCode, message: str, field: str | None = None, line: int | None = None
) -> Problem:
    return Problem(Severity.WARNING, code, message, field, line)


def find_manifest(skill_dir: str | os.PathLike[str]) -> Path | None:
    """Find a skill's manifest as discovery does, symlinks followed (SPEC §4).

    Args:
        skill_dir: The skill directory.

    Returns:
        ``skill_dir / <on-disk name>`` of the manifest ``_scan.find_manifest`` picks (exact
        ``SKILL.md`` first, else the first case variant in ``(casefold, name)`` order), or
        ``None`` (also when the directory cannot be listed).
    """
    lookup = _scan.find_manifest(skill_dir, follow_symlinks=True)
    return None if lookup.name is None else Path(os.fspath(skill_dir)) / lookup.name


def validate_skill(path: str | os.PathLike[str], *, profile: Profile = "spec") -> list[Problem]:
    """Check one skill directory strictly against the Agent Skills specification (SPEC §15).

    Args:
        path: The skill directory (the one holding ``SKILL.md``).
        profile: ``"spec"``, ``"portable"`` or ``"anthropic"``: the frontmatter rules of
            :func:`check_frontmatter` to apply.

    Returns:
        Every problem found, in this order: file problems, frontmatter problems in key order
        (``name``, ``description``, ``license``, ``compatibility``, ``metadata``,
        ``allowed-tools``, then unknown keys in file order), then body problems by line. An empty
        list means the skill is valid and clean. Codes are listed in the module docstring.
        Nothing is raised for a bad skill or a bad path: those are problems too.

    Raises:
        SkillError: ``invalid_input`` for a ``path`` that is not text or path-like, or an unknown
            ``profile``.
    """
    skill_dir = Path(coerce_path(path, "path"))
    profile = coerce_choice(profile, PROFILES, "profile")
    try:
        st = os.stat(skill_dir)
    except FileNotFoundError:
        return [_error(ProblemCode.PATH_NOT_FOUND, f"{skill_dir} does not exist")]
    except (OSError, ValueError) as exc:
        return [_error(ProblemCode.NOT_A_DIRECTORY, f"{skill_dir} cannot be examined: {exc}")]
    if not stat.S_ISDIR(st.st_mode):
        return [_error(ProblemCode.NOT_A_DIRECTORY, f"{skill_dir} is not a directory")]
    lookup = _scan.find_manifest(skill_dir, follow_symlinks=True)
    if lookup.name is None:
        return [_error(ProblemCode.MANIFEST_MISSING, f"no {MANIFEST_NAME} in {skill_dir}")]
    manifest = skill_dir / lookup.name
    found = [_manifest_case(lookup.name, profile)] if lookup.name != MANIFEST_NAME else []
    try:
        data = read_file_capped(os.fspath(manifest), DEFAULT_MAX_MANIFEST_BYTES, what="manifest")
    except SkillError as err:  # SPEC §30.3: opened without blocking, a regular file, capped
        found.append(
            _error(ProblemCode.MANIFEST_UNREADABLE, f"cannot read {manifest}: {err.message}")
        )
        return found
    if data is None:
        found.append(
            _error(
                ProblemCode.MANIFEST_TOO_LARGE,
                f"manifest is larger than {DEFAULT_MAX_MANIFEST_BYTES} bytes; discovery skips it",
            )
        )
        return found
    from ._resources import list_resources

    # The paths a host is given: the manifest and the files listed (SPEC §9).
    listing = list_resources(skill_dir, follow_symlinks=True)
    listed = [lookup.name, *(resource.rel for resource in listing.resources)]
    files = listed if profile != "spec" else None
    unlisted = [] if listing.truncated else _unlisted(skill_dir, set(listed))
    check = check_manifest(
        data,
        profile=profile,
        dir_name=Path(os.path.abspath(skill_dir)).name,  # as given: a link names its skill
        manifest_name=lookup.name,
        files=files,
        manifest_outside=lookup.outside,
    )
    problems = list(check.problems)
    if check.text is not None:
        problems.extend(_check_body(check.text, check.body_line, skill_dir))
    problems.extend(unlisted)
    return problems


#: Most entries of a skill looked at for ``unlisted_file`` (a bound on the walk).
_MAX_UNLISTED_LOOKS = 20_000


def _unlisted(skill_dir: Path, listed: set[str]) -> list[Problem]:
    """``unlisted_file`` for each regular file of the skill (links not followed) that the
    listing leaves out although its path is neither hidden nor skipped (SPEC §9, §30.2): one no
    resource path can name. The listing decides what is listed; this only finds what it left."""
    out: list[Problem] = []
    looked = 0
    for top, dirs, names in os.walk(skill_dir):
        base = os.path.relpath(top, skill_dir)
        parts = () if base == "." else tuple(base.split(os.sep))
        dirs[:] = [d for d in dirs if not is_skipped_path((*parts, d), directory=True)]
        for name in names:
            looked += 1
            if looked > _MAX_UNLISTED_LOOKS:
                return out
            rel_parts = (*parts, name)
            rel = "/".join(rel_parts)
            if rel in listed or is_manifest_name(rel):
                continue
            where = os.path.join(top, name)
            if is_skipped_path(rel_parts, directory=False) or os.path.islink(where):
                continue
            if not os.path.isfile(where):
                continue
            out.append(
                _warning(
                    ProblemCode.UNLISTED_FILE,
                    f"{rel} is never listed or served: no resource path names it (a backslash "
                    "in its name, or a drive such as C: at its start)",
                )
            )
    return out


@dataclass(frozen=True, slots=True)
class ManifestCheck:
    """What :func:`check_manifest` found in a manifest's bytes.

    Attributes:
        problems: The problems, in the order of :func:`validate_skill` (its body problems
            aside).
        frontmatter: The frontmatter as parsed strictly (YAML 1.2, no repair, values not
            trimmed), or ``None`` when it does not parse to a mapping.
        text: The manifest's text (BOM dropped, LF line endings) when its body can be checked,
            else ``None``.
        body_line: The 1-based file line where the body begins (``0`` without ``text``).
    """

    problems: tuple[Problem, ...]
    frontmatter: dict[str, Any] | None = None
    text: str | None = None
    body_line: int = 0


def check_manifest(
    data: bytes,
    *,
    profile: Profile = "spec",
    dir_name: str | None = None,
    manifest_name: str = MANIFEST_NAME,
    files: Sequence[str] | None = None,
    manifest_outside: str | None = None,
) -> ManifestCheck:
    """Check a manifest's bytes, and with ``portable`` what hosts are given of the skill. Pure
    (SPEC §15, §17, §24.2): :func:`validate_skill` calls it on the file it reads, the MCP server
    on the bytes it publishes, so both apply one set of rules.

    Args:
        data: The manifest's bytes.
        profile: As :func:`check_frontmatter`; ``"portable"`` and ``"anthropic"`` add the rules
            of MCP hosts (the ``portable`` table of this module's docstring).
        dir_name: The skill directory's name; when given, ``name`` must equal it (both NFKC).
        manifest_name: The manifest's name on disk (another letter case is ``manifest_case``).
        files: With ``portable``, every path a host is given, relative to the skill directory
            (the manifest and the listed resources): their UTF-8 and collisions are checked.
        manifest_outside: The real target of a manifest that is a link leading outside the skill
            (SPEC §20.3), else ``None``.

    Returns:
        A :class:`ManifestCheck`.

    Raises:
        SkillError: ``invalid_input`` ``{profile}`` for an unknown profile.
    """
    problems = check_skill_files(
        profile=profile,
        dir_name=dir_name,
        manifest_name=manifest_name,
        files=files,
        manifest_outside=manifest_outside,
    )
    portable = profile != "spec"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        problems.append(
            _error(
                ProblemCode.INVALID_ENCODING,
                f"manifest is not valid UTF-8 (byte {exc.start})",
                None,
                line,
            )
        )
        return ManifestCheck(tuple(problems))
    if text.startswith("\ufeff"):
        problems.append(
            Problem(
                Severity.ERROR if portable else Severity.WARNING,
                ProblemCode.MANIFEST_BOM,
                "manifest starts with a byte order mark; some hosts reject it",
            )
        )
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    opening = text.split("\n", 1)[0].rstrip(" \t")
    if portable and opening != "---" and text.lstrip().startswith("---"):
        problems.append(
            _error(
                ProblemCode.FRONTMATTER_NOT_FIRST,
                "manifest must open with '---' on its first line; hosts read no blank line "
                "before it",
                None,
                1,
            )
        )
    try:
        yaml_text, _, first_line = split_frontmatter(text)
    except SkillError as err:
        at = err.fields.get("line")
        problems.append(
            _error(
                ProblemCode.FRONTMATTER_UNTERMINATED,
                "frontmatter has no closing '---' line",
                None,
                at if isinstance(at, int) else None,
            )
        )
        return ManifestCheck(tuple(problems))
    if yaml_text is None:
        problems.append(
            _error(
                ProblemCode.FRONTMATTER_MISSING,
                "manifest must open with YAML frontmatter between '---' lines",
                None,
                1,
            )
        )
        return ManifestCheck(tuple(problems))
    frontmatter: dict[str, Any] | None = None
    try:
        loaded = load_frontmatter_yaml(yaml_text, first_line=first_line)
    except SkillError as err:
        # Every problem in one run: the YAML error with its line and column, then the rest
        # checked on what the lenient loader reads after its repair, when that loads.
        at, column = err.fields.get("line"), err.fields.get("column")
        message = err.message
        if isinstance(column, int):
            message += f", at column {column}"  # (the line is the problem's own)
        repaired = load_repaired_yaml(yaml_text, first_line=first_line)
        problems.append(
            _error(ProblemCode.YAML_ERROR, message, None, at if isinstance(at, int) else None)
        )
        if repaired is not None:
            found = check_frontmatter(
                {} if repaired[0] is None else repaired[0], profile=profile, dir_name=dir_name
            )
            problems.extend(_located(found, yaml_text, first_line))
    else:
        frontmatter = loaded if isinstance(loaded, dict) else None
        if portable and frontmatter is not None:
            problems.extend(_check_portable_yaml(frontmatter, yaml_text, first_line))
        found = check_frontmatter(
            {} if loaded is None else loaded, profile=profile, dir_name=dir_name
        )
        problems.extend(_located(found, yaml_text, first_line))
    body_line = first_line + yaml_text.count("\n") + 1
    return ManifestCheck(tuple(problems), frontmatter, text, body_line)


def check_skill_files(
    *,
    profile: Profile = "spec",
    dir_name: str | None = None,
    manifest_name: str = MANIFEST_NAME,
    files: Sequence[str] | None = None,
    manifest_outside: str | None = None,
) -> list[Problem]:
    """The problems of a skill's files that need none of their bytes (the first ones of
    :func:`check_manifest`, which takes the same arguments): the manifest's name, and with
    ``portable`` a manifest leading outside and the paths hosts are given. Pure.

    Raises:
        SkillError: ``invalid_input`` ``{profile}`` for an unknown profile.
    """
    profile = coerce_choice(profile, PROFILES, "profile")
    problems: list[Problem] = []
    if manifest_name != MANIFEST_NAME:
        problems.append(_manifest_case(manifest_name, profile))
    if profile != "spec":
        if manifest_outside is not None:
            problems.append(
                _error(
                    ProblemCode.MANIFEST_OUTSIDE,
                    f"{manifest_name} is a link to {manifest_outside}, outside the skill; "
                    "hosts are given only the skill's own files",
                )
            )
        problems.extend(_check_paths(dir_name, files or ()))
    return problems


def _manifest_case(manifest_name: str, profile: Profile) -> Problem:
    return Problem(
        Severity.ERROR if profile != "spec" else Severity.WARNING,
        ProblemCode.MANIFEST_CASE,
        f"manifest is named {manifest_name}; hosts look for exactly {MANIFEST_NAME}",
    )


# ---------------------------------------------------------------------------------------------
# What MCP hosts accept (profile ``portable``, SPEC §17, §20.8, §24.2)


def _is_utf8(text: str) -> bool:
    """False for a name holding undecodable bytes (lone surrogates from ``surrogateescape``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_paths(dir_name: str | None, files: Sequence[str]) -> list[Problem]:
    """The paths a host is given: UTF-8 (``skill://`` URIs, SPEC §20.8), and no two of them one
    file on a case-insensitive or normalising filesystem."""
    out: list[Problem] = []
    names = ([] if dir_name is None else [dir_name]) + list(files)
    if not all(_is_utf8(name) for name in names):
        out.append(
            _error(
                ProblemCode.NON_UTF8_PATH,
                "a file or directory name is not valid UTF-8; skill:// URIs and hosts need it",
            )
        )
    seen: dict[str, str] = {}
    for rel in files:
        key = unicodedata.normalize("NFC", rel).casefold()
        if key in seen:
            out.append(
                _error(
                    ProblemCode.PATH_COLLISION,
                    f"file paths {seen[key]!r} and {rel!r} collide when case and Unicode form "
                    "are ignored",
                )
            )
            break
        seen[key] = rel
    return out


def _check_portable_yaml(
    frontmatter: dict[str, Any], yaml_text: str, first_line: int
) -> list[Problem]:
    """What the official TypeScript skills client reads of a frontmatter (SPEC §24.2)."""
    out: list[Problem] = []
    try:
        json.dumps(frontmatter, allow_nan=False)
    except ValueError:
        out.append(
            _error(
                ProblemCode.VALUE_NOT_JSON,
                "frontmatter holds a value JSON cannot carry (.inf or .nan)",
            )
        )
    if _depth(frontmatter) > MAX_PORTABLE_DEPTH:
        out.append(
            _error(
                ProblemCode.FRONTMATTER_TOO_DEEP,
                f"frontmatter nests deeper than {MAX_PORTABLE_DEPTH} levels",
            )
        )
    subset = _yaml_subset_problem(yaml_text, first_line)
    if subset is not None:
        out.append(subset)
    return out


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_EventLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BLOCK_INDICATOR_RE = re.compile(r"[|>](?:[+-]?[1-9]|[1-9][+-]?)")


def _yaml_subset_problem(yaml_text: str, first_line: int) -> Problem | None:
    """The first construct outside the YAML the official TypeScript skills client reads (SPEC
    §24.2): no anchors or aliases, no tags, no block scalar indentation indicators (``|2``), no
    mapping inside a flow collection, no multi-line quoted scalars, only string keys."""

    def refused(what: str, mark: Any) -> Problem:
        line = mark.line + first_line if mark is not None else None
        return _error(ProblemCode.YAML_SUBSET, what, None, line)

    # For each open collection: [is it a flow collection, is it a mapping, children seen].
    open_: list[list[Any]] = []
    for event in yaml.parse(yaml_text, Loader=_EventLoader):
        mark = event.start_mark
        if isinstance(event, yaml.CollectionEndEvent):
            open_.pop()
            continue
        is_key = bool(open_) and open_[-1][1] and open_[-1][2] % 2 == 0
        if open_:
            open_[-1][2] += 1
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            return refused("anchors and aliases are not accepted", mark)
        if isinstance(event, yaml.ScalarEvent):
            if event.tag is not None and not any(event.implicit):
                return refused("tags are not accepted", mark)
            plain = not event.style  # ('' from the C parser, None from Python's)
            if is_key and plain and plain_scalar_tag(event.value) != "tag:yaml.org,2002:str":
                return refused(f"the key {event.value!r} is not a string", mark)
            if event.style in ("|", ">"):
                start = getattr(mark, "index", 0)
                if _BLOCK_INDICATOR_RE.match(yaml_text, start):
                    return refused("block scalar indentation indicators are not accepted", mark)
            end = event.end_mark
            multi_line = mark is not None and end is not None and mark.line != end.line
            if event.style in ('"', "'") and multi_line:
                return refused("quoted scalars over several lines are not accepted", mark)
        elif isinstance(event, yaml.CollectionStartEvent):
            if event.tag is not None and not event.implicit:
                return refused("tags are not accepted", mark)
            if is_key:
                return refused("a key that is a collection is not accepted", mark)
            if isinstance(event, yaml.MappingStartEvent) and open_ and open_[-1][0]:
                return refused("a mapping inside a flow collection is not accepted", mark)
            open_.append([bool(event.flow_style), isinstance(event, yaml.MappingStartEvent), 0])
    return None


# ---------------------------------------------------------------------------------------------
# Frontmatter


def _line_key(line: str, *, nested: bool) -> str | None:
    """The block-mapping key a YAML line opens, or ``None``: ``key:``, ``"key":`` or ``'key':``
    followed by a blank or the end of the line. ``nested`` requires (and skips) leading blanks,
    otherwise the key starts the line.

    A line scanner, linear in the line's length (SPEC §20.7): no backtracking pattern sees the
    unbounded text.
    """
    n = len(line)
    i = 0
    while i < n and line[i] in " \t":
        i += 1
    if (i > 0) != nested or i >= n:
        return None
    first = line[i]
    if first == '"':
        j = i + 1
        while j < n and line[j] != '"':
            j += 2 if line[j] == "\\" else 1
        if j >= n:
            return None
        key, j = line[i + 1 : j], j + 1
    elif first == "'":
        j = i + 1
        while j < n:
            if line[j] == "'":
                if j + 1 < n and line[j + 1] == "'":
                    j += 2
                    continue
                break
            j += 1
        if j >= n:
            return None
        key, j = line[i + 1 : j].replace("''", "'"), j + 1
    else:
        if first.isspace() or first in "#'\"?:-[]{}":
            return None
        j = i
        while j < n and line[j] not in ":#":
            j += 1
        if j >= n or line[j] == "#":
            return None
        key = line[i:j].rstrip(" \t")
    while j < n and line[j] in " \t":
        j += 1
    if j >= n or line[j] != ":":
        return None
    return key if j + 1 == n or line[j + 1] in " \t" else None


def _key_lines(yaml_text: str, first_line: int) -> dict[str, int]:
    """Map each top-level block key to its 1-based file line (first occurrence).

    A line locator over the already-validated YAML, not a parser: flow mappings and complex keys
    simply get no line.
    """
    out: dict[str, int] = {}
    for i, line in enumerate(yaml_text.split("\n")):
        key = _line_key(line, nested=False)
        if key is not None:
            out.setdefault(key, first_line + i)
    return out


def _nested_key_lines(yaml_text: str, first_line: int, parent_line: int) -> dict[str, int]:
    """Map each key of the block mapping under the top-level key on ``parent_line`` to its
    1-based file line (first occurrence), in one pass over the lines below it: the locator of
    every nested problem at once, so many of them cost one scan, not one scan each (SPEC §20.7).
    """
    out: dict[str, int] = {}
    lines = yaml_text.split("\n")
    for i in range(parent_line - first_line + 1, len(lines)):
        line = lines[i]
        if line and not line[0].isspace() and not line.startswith("#"):
            break
        key = _line_key(line, nested=True)
        if key is not None:
            out.setdefault(key, first_line + i)
    return out


def _is_name_char(c: str) -> bool:
    return c == "-" or c.isalnum()


def _check_name(value: object, dir_name: str | None, profile: Profile) -> list[Problem]:
    if not isinstance(value, str):
        return [
            _error(ProblemCode.NAME_TYPE, f"name must be a string, not {yaml_kind(value)}", "name")
        ]
    if not value:
        return [_error(ProblemCode.NAME_EMPTY, "name must not be empty", "name")]
    name = name_key(value)
    out: list[Problem] = []
    if len(name) > MAX_NAME_LENGTH:
        out.append(
            _error(
                ProblemCode.NAME_TOO_LONG,
                f"name is {len(name)} characters; at most {MAX_NAME_LENGTH} are allowed",
                "name",
            )
        )
    if any(c.isalnum() and c != c.lower() for c in name):
        out.append(_error(ProblemCode.NAME_UPPERCASE, f"name '{value}' must be lowercase", "name"))
    bad = sorted({c for c in name if not _is_name_char(c)})
    if bad:
        shown = ", ".join(repr(c) for c in bad)
        out.append(
            _error(
                ProblemCode.NAME_INVALID_CHARS,
                f"name '{value}' may hold only letters, digits and hyphens (found {shown})",
                "name",
            )
        )
    if name.startswith("-") or name.endswith("-"):
        out.append(
            _error(ProblemCode.NAME_HYPHEN_EDGE, "name must not start or end with a hyphen", "name")
        )
    if "--" in name:
        out.append(_error(ProblemCode.NAME_DOUBLE_HYPHEN, "name must not contain '--'", "name"))
    if dir_name is not None and name_key(dir_name) != name:
        out.append(
            _error(
                ProblemCode.NAME_DIR_MISMATCH,
                f"name '{value}' must match the directory name '{name_key(dir_name)}'",
                "name",
            )
        )
    if profile != "spec" and not out and not _PORTABLE_NAME_RE.fullmatch(value):
        out.append(
            _warning(
                ProblemCode.NAME_NOT_PORTABLE,
                f"name '{value}' holds characters outside a-z, 0-9 and '-'; MCP hosts and the "
                "TypeScript skills client accept only those",
                "name",
            )
        )
    if profile == "anthropic":
        reserved = [w for w in RESERVED_NAME_WORDS if w in name.casefold()]
        if reserved:
            out.append(
                _error(
                    ProblemCode.NAME_RESERVED,
                    f"name '{value}' contains the reserved word '{reserved[0]}'",
                    "name",
                )
            )
    return out


# Agent Skills specification: the ASCII form of a name, as MCP hosts and the TypeScript client
# apply it (lowercase letters, digits, single inner hyphens).
_PORTABLE_NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

_TEXT_CODES: Mapping[str, tuple[ProblemCode, ProblemCode, ProblemCode]] = {
    "description": (
        ProblemCode.DESCRIPTION_TYPE,
        ProblemCode.DESCRIPTION_EMPTY,
        ProblemCode.DESCRIPTION_TOO_LONG,
    ),
    "compatibility": (
        ProblemCode.COMPATIBILITY_TYPE,
        ProblemCode.COMPATIBILITY_EMPTY,
        ProblemCode.COMPATIBILITY_TOO_LONG,
    ),
}


def _check_text(key: str, value: object, limit: int) -> list[Problem]:
    type_code, empty_code, long_code = _TEXT_CODES[key]
    if not isinstance(value, str):
        return [_error(type_code, f"{key} must be a string, not {yaml_kind(value)}", key)]
    text = value.strip()
    if not text:
        return [_error(empty_code, f"{key} must not be empty", key)]
    if len(text) > limit:
        return [
            _error(long_code, f"{key} is {len(text)} characters; at most {limit} are allowed", key)
        ]
    return []


def check_frontmatter(
    data: object, *, profile: Profile = "spec", dir_name: str | None = None
) -> list[Problem]:
    """Check parsed frontmatter against the Agent Skills specification. Pure (SPEC §15, §27).

    The one home of the specification's frontmatter rules: :func:`check_manifest` calls it, for
    the author-facing check (:func:`validate_skill`) and for what the MCP server publishes
    (profile ``portable``, SPEC §17).

    Args:
        data: The frontmatter as parsed (strict YAML 1.2, values not trimmed): normally a mapping;
            anything else is one ``frontmatter_not_mapping`` problem.
        profile: ``"spec"`` (the specification's rules), ``"portable"`` (also a
            ``name_not_portable`` warning for a name outside ASCII ``[a-z0-9-]``, which MCP hosts
            and the TypeScript client need; :func:`check_manifest` adds the rest of what hosts
            accept) or ``"anthropic"`` (portable, plus the upload rules as errors:
            ``description_angle_brackets`` for ``<`` or ``>`` in the description and
            ``name_reserved`` for a name holding ``anthropic`` or ``claude``).
        dir_name: The skill directory's name; when given, ``name`` must equal it (both NFKC).

    Returns:
        The problems in key order (``name``, ``description``, ``license``, ``compatibility``,
        ``metadata``, ``allowed-tools``, then unknown keys in mapping order); ``line`` is
        ``None`` (``validate_skill`` adds lines from the file). Codes are in the module docstring.

    Raises:
        SkillError: ``invalid_input`` ``{profile}`` for an unknown profile.
    """
    profile = coerce_choice(profile, PROFILES, "profile")
    if not isinstance(data, Mapping):
        return [
            _error(
                ProblemCode.FRONTMATTER_NOT_MAPPING,
                f"frontmatter must be a mapping of keys to values, not {yaml_kind(data)}",
            )
        ]
    out: list[Problem] = []
    if "name" not in data:
        out.append(_error(ProblemCode.NAME_MISSING, "frontmatter has no 'name'", "name"))
    else:
        out.extend(_check_name(data["name"], dir_name, profile))
    if "description" not in data:
        out.append(
            _error(
                ProblemCode.DESCRIPTION_MISSING, "frontmatter has no 'description'", "description"
            )
        )
    else:
        description = data["description"]
        out.extend(_check_text("description", description, MAX_DESCRIPTION_LENGTH))
        if (
            profile == "anthropic"
            and isinstance(description, str)
            and ("<" in description or ">" in description)
        ):
            out.append(
                _error(
                    ProblemCode.DESCRIPTION_ANGLE_BRACKETS,
                    "description must not contain '<' or '>' (the Anthropic upload refuses "
                    "XML-like text)",
                    "description",
                )
            )
    if "license" in data and not isinstance(data["license"], str):
        out.append(
            _error(
                ProblemCode.LICENSE_TYPE,
                f"license must be a string, not {yaml_kind(data['license'])}",
                "license",
            )
        )
    if "compatibility" in data:
        out.extend(_check_text("compatibility", data["compatibility"], MAX_COMPATIBILITY_LENGTH))
    if "metadata" in data:
        out.extend(_check_metadata(data["metadata"]))
    if "allowed-tools" in data:
        out.extend(_check_allowed_tools(data["allowed-tools"]))
    for key in data:
        if key not in SPEC_KEYS:
            out.append(
                _warning(
                    ProblemCode.UNKNOWN_KEY,
                    f"'{key}' is not a frontmatter key of the Agent Skills specification; "
                    "strict hosts reject it (put custom data under 'metadata')",
                    str(key),
                )
            )
    return out


def _check_metadata(value: object) -> list[Problem]:
    if not isinstance(value, Mapping):
        return [
            _error(
                ProblemCode.METADATA_TYPE,
                f"metadata must be a mapping of strings to strings, not {yaml_kind(value)}",
                "metadata",
            )
        ]
    return [
        _error(
            ProblemCode.METADATA_VALUE_TYPE,
            f"metadata value '{key}' must be a string, not {yaml_kind(item)}"
            + (" (quote it)" if not isinstance(item, list | Mapping) else ""),
            f"metadata.{key}",
        )
        for key, item in value.items()
        if not isinstance(item, str)
    ]


def _check_allowed_tools(value: object) -> list[Problem]:
    if isinstance(value, str):
        return []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [
            _warning(
                ProblemCode.ALLOWED_TOOLS_LIST,
                "allowed-tools is a list; the specification defines a space-separated string",
                "allowed-tools",
            )
        ]
    return [
        _error(
            ProblemCode.ALLOWED_TOOLS_TYPE,
            f"allowed-tools must be a space-separated string, not {yaml_kind(value)}"
            + (" holding non-strings" if isinstance(value, list) else ""),
            "allowed-tools",
        )
    ]


def _located(problems: list[Problem], yaml_text: str, first_line: int) -> list[Problem]:
    """``problems`` with the 1-based file line of the key each one names (SPEC §15)."""
    lines = _key_lines(yaml_text, first_line)
    nested_lines: dict[str, int] | None = None
    out: list[Problem] = []
    for problem in problems:
        line = lines.get(problem.field) if problem.field is not None else None
        if problem.code == ProblemCode.METADATA_VALUE_TYPE and problem.field is not None:
            parent = lines.get("metadata")
            if nested_lines is None:
                nested_lines = (
                    {} if parent is None else _nested_key_lines(yaml_text, first_line, parent)
                )
            line = nested_lines.get(problem.field.removeprefix("metadata."), parent)
        if problem.code == ProblemCode.FRONTMATTER_NOT_MAPPING:
            line = first_line
        out.append(replace(problem, line=line) if line is not None else problem)
    return out


# ---------------------------------------------------------------------------------------------
# Body


_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
# [text](target) and ![alt](target); the target may be <bracketed> and followed by a title.
# A link opens at a "[" not escaped by the character before it: an escaped "\[" is text, and a
# scan from one opener never passes the next (every "[" it meets raw ends it), so the starts
# share no text and a line costs linear time (SPEC §20.7; without it, "[\\[\\[..." was scanned
# to the end of the line from each "[": quadratic).
_LINK_RE = re.compile(
    r"(?<!\\)!?\[(?:[^\[\]\\]|\\.)*+\]\(\s*(<[^>\n]*>|[^\s()]*+(?:\([^\s()]*+\)[^\s()]*+)*+)"
)
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_BARE_RE = re.compile(
    r"(?<![\w./\\~$@-])(?:\./)?((?:scripts|references|assets)/[^\s`'\"()<>\[\]]+)"
)
_PLACEHOLDER_CHARS = frozenset("*?{}<>$|")
_TRAILING = ".,;:!?"
_LINE_SUFFIX_RE = re.compile(r"(?::\d+){1,2}$")


def _body_lines(text: str, body_line: int) -> Iterator[tuple[int, str]]:
    """Yield ``(file_line, line)`` for each line after the closing fence."""
    lines = text.split("\n")
    for i in range(body_line - 1, len(lines)):
        yield i + 1, lines[i]


def _check_body(text: str, body_line: int, skill_dir: Path) -> list[Problem]:
    out: list[Problem] = []
    all_lines = list(_body_lines(text, body_line))
    # The body as discovery sees it: surrounding blank lines trimmed.
    start = 0
    while start < len(all_lines) and not all_lines[start][1].strip():
        start += 1
    end = len(all_lines)
    while end > start and not all_lines[end - 1][1].strip():
        end -= 1
    body = all_lines[start:end]
    if len(body) > MAX_BODY_LINES:
        out.append(
            _warning(
                ProblemCode.BODY_TOO_LONG,
                f"body is {len(body)} lines; keep it under {MAX_BODY_LINES} and move detail "
                "to references/",
                None,
                body[MAX_BODY_LINES][0],
            )
        )
    out.extend(_check_references(body, skill_dir))
    return out


def _link_target(raw: str) -> str | None:
    """The path part of a markdown link target, or None when it is not a relative file path."""
    target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    target = target.strip()
    if not target or target.startswith("#") or _SCHEME_RE.match(target):
        return None
    if target.startswith(("/", "\\", "~")):
        return None
    target = re.split(r"[#?]", target, maxsplit=1)[0]
    if not target or any(c in _PLACEHOLDER_CHARS for c in target):
        return None
    return urllib.parse.unquote(target)


def _bare_target(raw: str) -> str | None:
    target = re.split(r"[#?]", raw, maxsplit=1)[0].rstrip(_TRAILING)
    target = _LINE_SUFFIX_RE.sub("", target)  # scripts/tool.py:15 names a line of a file
    if any(c in _PLACEHOLDER_CHARS for c in target) or "..." in target:
        return None
    segments = [s for s in target.split("/") if s]
    if len(segments) < 2:
        return None
    return target


def _check_references(body: list[tuple[int, str]], skill_dir: Path) -> list[Problem]:
    out: list[Problem] = []
    seen: set[tuple[int, str]] = set()
    fence: str | None = None
    for line_no, line in body:
        m = _FENCE_RE.match(line)
        if m:
            marker = m.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        refs: list[tuple[str, str]] = []
        spans: list[tuple[int, int]] = []
        if fence is None:
            for lm in _LINK_RE.finditer(line):
                spans.append(lm.span(1))
                target = _link_target(lm.group(1))
                if target is not None:
                    refs.append((target, "link"))
        link = 0  # spans are in order, and so are the bare matches: one pass over both
        for bm in _BARE_RE.finditer(line):
            start = bm.start(1)
            while link < len(spans) and spans[link][1] <= start:
                link += 1
            if link < len(spans) and spans[link][0] <= start:
                continue  # the target of a link, checked as such
            target = _bare_target(bm.group(1))
            if target is not None:
                refs.append((target, "path"))
        for target, kind in refs:
            key = (line_no, target.rstrip("/"))
            if key in seen:
                continue
            seen.add(key)
            problem = _check_reference(skill_dir, target, kind, line_no)
            if problem is not None:
                out.append(problem)
    return out


def _check_reference(skill_dir: Path, target: str, kind: str, line: int) -> Problem | None:
    what = "link" if kind == "link" else "path"
    try:
        resolved = resolve_resource_path(skill_dir, target)
    except SkillError as err:
        if err.code == ErrorCode.PATH_ESCAPE:
            return _warning(
                ProblemCode.REFERENCE_ESCAPE,
                f"{what} '{target}' leads outside the skill directory; hosts serve only the "
                "skill's own files",
                None,
                line,
            )
        return None
    if os.path.exists(resolved):
        return None
    return _warning(
        ProblemCode.BROKEN_REFERENCE,
        f"{what} '{target}' does not exist in the skill",
        None,
        line,
    )
