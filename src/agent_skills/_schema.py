"""The frontmatter schema and tool-list normalisation (SPEC §6). Pure: values in, values out.

A leaf of the pipeline: it imports nothing from the other stages but the errors. Discovery validates
with the plain checks of :func:`check_frontmatter_values`, which import nothing (SPEC §26; the
measurements that chose them are in docs/performance.md). The pydantic model
``SkillFrontmatter`` lives in ``_frontmatter`` and is built only when a caller asks for it; a
property test holds the two to the same rules and messages.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, NamedTuple

from ._errors import ErrorCode, SkillError, invalid_input

__all__ = [
    "CORE_SCALARS",
    "FLAG_KEYS",
    "FRONTMATTER_KEYS",
    "MAX_DESCRIPTION_LENGTH",
    "OPTIONAL_KEYS",
    "FieldNote",
    "check_frontmatter_values",
    "coerce_flag",
    "name_key",
    "name_problem",
    "normalize_tools",
    "plain_scalar_tag",
    "skill_version",
    "tools_key",
    "yaml_kind",
]

#: Longest ``description``, in characters after trimming (Agent Skills specification:
#: description). A longer one loads, with a ``description_too_long`` note (SPEC §29.6).
MAX_DESCRIPTION_LENGTH = 1024

#: Known keys in the order they are checked (SPEC §6); the first failure is reported as ``at``.
FRONTMATTER_KEYS = (
    "name",
    "description",
    "version",
    "license",
    "compatibility",
    "argument-hint",
    "allowed-tools",
    "tools",
    "user-invocable",
    "disable-model-invocation",
    "metadata",
)
OPTIONAL_KEYS = frozenset(FRONTMATTER_KEYS[2:])

#: The invocation flags and the value each fails closed to (SPEC §21.7): an unrecognisable
#: ``disable-model-invocation`` disables model invocation, an unrecognisable ``user-invocable``
#: makes the skill not user-invocable.
FLAG_KEYS: Mapping[str, bool] = {"user-invocable": False, "disable-model-invocation": True}

# The spellings a lenient load accepts for a flag, compared case-insensitively (SPEC §21.7).
_FLAG_WORDS = {
    "true": True,
    "yes": True,
    "on": True,
    "1": True,
    "false": False,
    "no": False,
    "off": False,
    "0": False,
}

# Beyond Unicode letters and digits, the characters a loadable name may hold (SPEC §21.5).
_NAME_PUNCTUATION = frozenset("-._")
# The same rule for an ASCII name, as one linear-time match (discovery's hot path, SPEC §26).
_ASCII_NAME_RE = re.compile(r"[A-Za-z0-9._-]+")

#: Message of a name holding a character that is neither a letter, a digit nor ``-._``.
BAD_NAME_CHARS = "name must only contain letters, digits, '.', '_' and '-'"
#: Message of a name holding a non-ASCII upper- or title-case letter.
BAD_NAME_CASE = "name must not hold upper-case letters outside ASCII"
#: Message of a name made only of dots.
DOTS_NAME = "name must not consist only of dots"
#: Message of an empty (or blank) name.
EMPTY_NAME = "name is required"


class FieldNote(NamedTuple):
    """A lenient-mode note about one key, turned into a diagnostic by the parser (SPEC §6, §21).

    The diagnostic's message is ``f"{lead} '{key}' in {manifest}: {detail}"``.

    Attributes:
        kind: ``"invalid_field"`` (an optional key was dropped, or a flag failed closed),
            ``"name_missing"`` (the directory name stands in for a missing ``name``) or
            ``"description_too_long"`` (SPEC §29.6).
        key: The frontmatter key concerned.
        lead: ``"ignoring invalid frontmatter key"``, ``"invalid frontmatter key"`` (a flag that
            failed closed), ``"missing frontmatter key"`` or ``"long frontmatter key"``.
        detail: What was wrong and what the loader did.
    """

    kind: str
    key: str
    lead: str
    detail: str


def name_key(name: str) -> str:
    """The form names are compared in: NFKC (Agent Skills specification: name; SPEC §21.5)."""
    return unicodedata.normalize("NFKC", name)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a skill's name when loading, or ``None`` when it can (SPEC §21.5).

    The rule, checked on the NFKC form of the trimmed name: not empty; not only dots; every
    character a Unicode letter or digit that is not upper- or title-case (what the Agent Skills
    specification accepts), an ASCII upper-case letter, or one of ``-``, ``.``, ``_`` (what SPEC §6
    accepted). So ``/``, ``\\``, ``:``, whitespace and control characters are rejected, also when
    NFKC produces them (a full-width solidus). The specification's other rules (length, hyphen
    placement, lower case) are author-facing checks of ``agent_skills.validate``.

    Args:
        name: The name as written (it is trimmed here).

    Returns:
        ``None``, or one of the messages :data:`EMPTY_NAME`, :data:`DOTS_NAME`,
        :data:`BAD_NAME_CHARS`, :data:`BAD_NAME_CASE` (checked in that order).
    """
    text = name_key(name.strip())
    if not text:
        return EMPTY_NAME
    if not text.strip("."):
        return DOTS_NAME
    if text.isascii():
        return None if _ASCII_NAME_RE.fullmatch(text) else BAD_NAME_CHARS
    upper = False
    for c in text:
        if c in _NAME_PUNCTUATION or (c.isascii() and c.isalnum()):
            continue
        if not c.isalnum():
            return BAD_NAME_CHARS
        if c != c.lower():
            upper = True
    return BAD_NAME_CASE if upper else None


def coerce_flag(value: object) -> bool | None:
    """Read an invocation flag leniently (SPEC §21.7).

    Args:
        value: The parsed YAML value.

    Returns:
        ``True``/``False`` for a YAML boolean, the integers ``1``/``0``, or one of the strings
        ``true/false/yes/no/on/off/1/0`` in any case (no surrounding whitespace); ``None`` for
        anything else (``null`` included), which the caller fails closed.
    """
    if value is True or value is False:
        return value
    if type(value) is int and value in (0, 1):
        return value == 1
    if isinstance(value, str):
        return _FLAG_WORDS.get(value.lower())
    return None


# The messages of a value of the wrong type: the words pydantic uses for the model's types, so that
# diagnostics read the same whether a caller asked for the model or not (SPEC §6).
_NOT_A_STRING = "Input should be a valid string"
_NOT_A_BOOL = "Input should be a valid boolean"
_NOT_A_MAPPING = "Input should be a valid dictionary"
_MISSING = "required key is missing"
_NULL = "must not be null"


def _string_problem(value: object) -> str | None:
    return None if isinstance(value, str) else _NOT_A_STRING


def _tools_problem(value: object) -> str | None:
    # ``str | list[str]``: a string, or a list holding only strings.
    if isinstance(value, str):
        return None
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return None
    return _NOT_A_STRING


def _flag_problem(value: object) -> str | None:
    return None if value is True or value is False else _NOT_A_BOOL


def _mapping_problem(value: object) -> str | None:
    if not isinstance(value, dict):
        return _NOT_A_MAPPING
    return None if all(isinstance(key, str) for key in value) else _NOT_A_STRING


#: The check of each optional key's type, in table order (SPEC §6).
_OPTIONAL_CHECKS = (
    ("version", _string_problem),
    ("license", _string_problem),
    ("compatibility", _string_problem),
    ("argument-hint", _string_problem),
    ("allowed-tools", _tools_problem),
    ("tools", _tools_problem),
    ("user-invocable", _flag_problem),
    ("disable-model-invocation", _flag_problem),
    ("metadata", _mapping_problem),
)


def _invalid(key: str, message: str) -> SkillError:
    return SkillError(
        ErrorCode.INVALID_SKILL, f"invalid frontmatter '{key}': {message}", {"at": key}
    )


def check_frontmatter_values(
    data: Mapping[str, Any],
    *,
    strict: bool,
    dir_name: str | None = None,
    named_by: str = "directory",
) -> tuple[dict[str, Any], list[FieldNote]]:
    """Validate parsed frontmatter with plain checks: the hot path of discovery (SPEC §6, §21, §26).

    The rules and messages of :class:`SkillFrontmatter`, without building it (or importing
    pydantic): ``name`` and ``description`` are strings, trimmed, accepted by
    :func:`name_problem` and non-blank; the optional keys are strings (``version``, ``license``,
    ``compatibility``, ``argument-hint``), a string or a list of strings (``allowed-tools``,
    ``tools``), booleans (the flags) or a mapping with string keys (``metadata``), and never
    ``null``. Unknown keys are kept as parsed. Keys are checked in table order.

    Args:
        data: The YAML mapping (string keys).
        strict: When True any failing key raises; when False a failing optional key is dropped
            and reported, a flag that is not a boolean is read leniently or fails closed, and a
            missing ``name`` is taken from ``dir_name``.
        dir_name: The skill directory's name, used for a missing ``name`` in lenient mode when
            :func:`name_problem` accepts it.
        named_by: What ``dir_name`` is the name of, for the note: ``"directory"``, or
            ``"file"`` for a single-file skill's id (SPEC §29.2).

    Returns:
        ``(values, notes)``: ``values`` is a new ``dict`` of every key of ``data`` but the dropped
        ones, with ``name`` and ``description`` trimmed and the flags read as booleans (what
        ``SkillFrontmatter.model_validate`` accepts as it is); ``notes`` lists a
        :class:`FieldNote` per key that needed one, in table order: ``name_missing`` for the
        directory-name fallback, ``description_too_long`` for a description over
        :data:`MAX_DESCRIPTION_LENGTH` characters (in strict mode too: it loads, SPEC §29.6),
        ``invalid_field`` for each optional key dropped and each flag failed closed (the only
        note strict mode can give is ``description_too_long``). A flag read leniently (``yes``,
        ``0``, ...) gets no note.

    Raises:
        SkillError: ``invalid_skill`` with ``fields={"at": key}`` for a required-key failure, or
            for any failure in strict mode.
    """
    values = dict(data)
    notes: list[FieldNote] = []
    if "name" not in values:
        if strict or dir_name is None or name_problem(dir_name) is not None:
            raise _invalid("name", _MISSING)
        values["name"] = dir_name
        detail = f"using the {named_by} name '{dir_name}'"
        notes.append(FieldNote("name_missing", "name", "missing frontmatter key", detail))
    name = values["name"]
    if not isinstance(name, str):
        raise _invalid("name", _NOT_A_STRING)
    problem = name_problem(name)
    if problem is not None:
        raise _invalid("name", problem)
    values["name"] = name.strip()
    if "description" not in values:
        raise _invalid("description", _MISSING)
    description = values["description"]
    if not isinstance(description, str):
        raise _invalid("description", _NOT_A_STRING)
    description = description.strip()
    if not description:
        raise _invalid("description", "description is required")
    values["description"] = description
    if len(description) > MAX_DESCRIPTION_LENGTH:
        detail = (
            f"{len(description)} characters, more than the {MAX_DESCRIPTION_LENGTH} the Agent "
            "Skills specification allows (loaded whole; some hosts cut it)"
        )
        notes.append(
            FieldNote("description_too_long", "description", "long frontmatter key", detail)
        )
    for key, check in _OPTIONAL_CHECKS:
        if key not in values:
            continue
        value = values[key]
        if not strict and key in FLAG_KEYS:
            flag = coerce_flag(value)
            if flag is None:
                lead = "invalid frontmatter key"
                notes.append(FieldNote("invalid_field", key, lead, _flag_message(key, value)))
                flag = FLAG_KEYS[key]
            values[key] = flag
            continue
        problem = _NULL if value is None else check(value)
        if problem is None:
            continue
        if strict:
            raise _invalid(key, problem)
        notes.append(FieldNote("invalid_field", key, "ignoring invalid frontmatter key", problem))
        del values[key]
    return values, notes


def _flag_message(key: str, value: object) -> str:
    effect = "not user-invocable" if key == "user-invocable" else "not model-invocable"
    return (
        f"expected a boolean (true/false, yes/no, on/off, 1/0), got {yaml_kind(value)}; "
        f"the skill is treated as {effect}"
    )


def skill_version(frontmatter: Mapping[str, Any]) -> str | None:
    """A skill's version (SPEC §29.7): the top-level ``version`` when it is a string, else
    ``metadata.version`` when that is a string; ``None`` otherwise (a number is not a version:
    quote it in YAML). Returned as written. Pure.

    Args:
        frontmatter: The validated frontmatter (``version`` already dropped when it was not a
            string, in lenient mode).
    """
    version = frontmatter.get("version")
    if isinstance(version, str):
        return version
    metadata = frontmatter.get("metadata")
    if isinstance(metadata, Mapping):
        nested = metadata.get("version")
        if isinstance(nested, str):
            return nested
    return None


def tools_key(keys: Mapping[str, Any]) -> str:
    """The key a frontmatter declares its allowed tools under: ``allowed-tools`` when present
    (even empty or null), else its alias ``tools`` (SPEC §6)."""
    return "allowed-tools" if "allowed-tools" in keys else "tools"


def normalize_tools(value: object) -> list[str]:
    """Normalise an ``allowed-tools``/``tools`` value to a list of tool patterns (SPEC §6).

    Args:
        value: ``None`` (gives ``[]``); a string, split on commas and on whitespace outside
            parentheses (``"Bash(git status:*) Read, Grep"`` gives
            ``["Bash(git status:*)", "Read", "Grep"]``); or a list of strings, each trimmed, blanks
            dropped, never split.

    Returns:
        A new list of non-empty strings.

    Raises:
        SkillError: ``invalid_input`` for any other type or a list item that is not a string.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return _split_tools(value)
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            if not isinstance(item, str):
                raise invalid_input(
                    f"tool list items must be strings, got {type(item).__name__}",
                    {"value": type(item).__name__},
                )
            trimmed = item.strip()
            if trimmed:
                out.append(trimmed)
        return out
    raise invalid_input(
        f"tools must be a string or a list of strings, got {type(value).__name__}",
        {"value": type(value).__name__},
    )


# Text whose parentheses are balanced and never nested, and the tokens of such text: runs of
# characters other than separators, where a parenthesised group may hold separators.
_FLAT_PARENS_RE = re.compile(r"[^()]*(?:\([^()]*\)[^()]*)*")
_TOOL_TOKEN_RE = re.compile(r"(?:[^,\s()]+|\([^()]*\))+")


def _split_tools(text: str) -> list[str]:
    if _FLAT_PARENS_RE.fullmatch(text):
        return _TOOL_TOKEN_RE.findall(text)
    return _split_tools_nested(text)


def _split_tools_nested(text: str) -> list[str]:
    """Character walk for nested or unbalanced parentheses (depth counted, SPEC §6)."""
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        if depth == 0 and (ch == "," or ch.isspace()):
            if current:
                out.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        out.append("".join(current))
    return [item for item in (part.strip() for part in out) if item]


#: How the YAML 1.2 core schema types a plain (unquoted) scalar (SPEC §5): ``(tag, pattern,
#: first characters)``, tried in this order for a scalar beginning with one of those characters;
#: any other plain scalar is a string. The loader's resolver is built from this table, and the
#: simple frontmatter reading types its values with it, without importing the YAML machinery.
CORE_SCALARS: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = (
    ("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ("~", "n", "N", "")),
    (
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        tuple("tTfF"),
    ),
    (
        "tag:yaml.org,2002:int",
        re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
        tuple("-+0123456789"),
    ),
    (
        "tag:yaml.org,2002:float",
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        tuple("-+0123456789."),
    ),
)
_CORE_BY_FIRST: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
for _tag, _pattern, _firsts in CORE_SCALARS:
    for _first in _firsts:
        _CORE_BY_FIRST.setdefault(_first, []).append((_tag, _pattern))


def plain_scalar_tag(value: str) -> str:
    """The YAML 1.2 core schema tag of the plain (unquoted) scalar ``value``, as the loader
    types it: ``tag:yaml.org,2002:str``, ``...:null``, ``...:bool``, ``...:int`` or
    ``...:float`` (SPEC §5)."""
    for tag, regexp in _CORE_BY_FIRST.get(value[:1], ()):
        if regexp.match(value):
            return tag
    return "tag:yaml.org,2002:str"


def yaml_kind(value: object) -> str:
    """Name the kind of a loaded YAML value for messages: ``"null"``, ``"a boolean"``,
    ``"a number"``, ``"a list"``, ``"a mapping"``, ``"a string"`` (never the value itself,
    which is file content, SPEC §11)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__
