"""What the MCP server publishes through the Skills extension, and the manifests it publishes
(SPEC §17, §20.8, §24.2, §29.1). Imports no part of the MCP SDK: testable without it.

Owns the transport's own limits (file count, total size, UTF-8 names, paths that collide), the
``skills/list`` entry of a skill (its files, sizes and digests, read through the facade) and the
discovery index ``skill://index.json`` that clients of the extension's earlier draft read. The
Agent Skills frontmatter rules are ``validate``'s; digests are ``_digest``'s.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn
from urllib.parse import quote

import yaml

from .._core import AgentSkills
from .._diagnostics import Diagnostic, DiagnosticKind, emit
from .._digest import file_digest
from .._errors import ErrorCode, SkillError
from .._manifest import load_frontmatter_yaml, plain_scalar_tag, split_frontmatter
from .._model import MANIFEST_NAME
from .._tools import media_type
from ..validate import Severity, check_frontmatter

__all__ = [
    "INDEX_NAME",
    "INDEX_SCHEMA",
    "INDEX_URI",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "SCHEME",
    "Catalog",
    "PublishedFile",
    "PublishedSkill",
    "Unpublishable",
    "build_catalog",
    "check_published_frontmatter",
    "discovery_index",
    "file_uri",
    "is_utf8",
    "strict_frontmatter",
]

#: Most files (``SKILL.md`` included) of a published skill (MCP Skills extension limit).
MAX_SKILL_FILES = 512
#: Most bytes, summed over a published skill's files (MCP Skills extension limit: 16 MiB).
MAX_SKILL_BYTES = 16 * 1024 * 1024
#: The scheme of every published URI.
SCHEME = "skill://"
#: The discovery index of the published skills (SPEC §29.1). Skill names hold no ``.``, so no
#: skill's URI can ever be this one.
INDEX_URI = SCHEME + "index.json"
#: The index's ``$schema``: the Agent Skills discovery index, v0.2.0.
INDEX_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
#: The index's name in ``resources/list``.
INDEX_NAME = "skills-index"
# The reference TypeScript client refuses frontmatter nested deeper than this.
_MAX_DEPTH = 32


class Unpublishable(Exception):
    """A skill hosts could not accept over the extension; the message is the reason."""


@dataclass(frozen=True, slots=True)
class PublishedFile:
    """One file of a published skill, as hashed when the server was built."""

    uri: str
    rel: str
    size: int
    digest: str
    mime_type: str


@dataclass(frozen=True, slots=True)
class PublishedSkill:
    """A published skill: its ``skills/list`` entry and the files behind it."""

    name: str
    uri: str
    description: str
    files: tuple[PublishedFile, ...]
    entry: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every published skill (sorted as ``list_skills``), a map of file URIs, and the discovery
    index of the same skills (:func:`discovery_index`)."""

    skills: tuple[PublishedSkill, ...]
    by_skill_uri: dict[str, PublishedSkill]
    by_file_uri: dict[str, tuple[PublishedSkill, PublishedFile]]
    diagnostics: tuple[Diagnostic, ...] = ()
    index: str = ""


def file_uri(name: str, rel: str) -> str:
    """``skill://<name>/<rel>`` with every segment percent-encoded (MCP Skills extension)."""
    return SCHEME + "/".join(quote(segment, safe="") for segment in [name, *rel.split("/")])


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _is_utf8_name(text: str) -> bool:
    """False for a name holding undecodable bytes (lone surrogates from ``surrogateescape``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def strict_frontmatter(data: bytes) -> dict[str, Any]:
    """The strict YAML 1.2 parse of a served ``SKILL.md``, as hosts parse it (SPEC §17).

    The bytes must be UTF-8 and open with a ``---`` line at their very first byte (no BOM, no
    leading blank lines); the YAML is loaded without repair and without trimming any value.

    Raises:
        Unpublishable: naming the first problem.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unpublishable("SKILL.md is not valid UTF-8") from None
    first_line = text.split("\n", 1)[0].rstrip("\r")
    if first_line.rstrip(" \t") != "---":
        raise Unpublishable("SKILL.md does not start with a '---' frontmatter line")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        yaml_text, _body, first_yaml_line = split_frontmatter(text)
        value = load_frontmatter_yaml(yaml_text or "", first_line=first_yaml_line)
    except SkillError as err:
        where = f" (line {err.fields['line']})" if "line" in err.fields else ""
        raise Unpublishable(f"frontmatter does not parse without repair{where}: {err}") from None
    if not isinstance(value, dict):
        raise Unpublishable("frontmatter is not a mapping")
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        raise Unpublishable("frontmatter holds a value JSON cannot carry (.inf or .nan)") from None
    if _depth(value) > _MAX_DEPTH:
        raise Unpublishable(f"frontmatter nests deeper than {_MAX_DEPTH} levels")
    _check_yaml_subset(yaml_text or "", first_yaml_line)
    return value


_EventLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_BLOCK_INDICATOR_RE = re.compile(r"[|>](?:[+-]?[1-9]|[1-9][+-]?)")


def _check_yaml_subset(yaml_text: str, first_line: int) -> None:
    """Refuse YAML the official TypeScript skills client does not read (SPEC §24.2).

    That client reads a subset of YAML: no anchors or aliases, no tags, no block scalar
    indentation indicators (``|2``), no mapping inside a flow collection, no multi-line quoted
    scalars, and only string keys.

    Raises:
        Unpublishable: ``yaml_subset: <what> (line N)`` for the first construct outside it.
    """

    def refuse(what: str, mark: Any) -> NoReturn:
        line = f" (line {mark.line + first_line})" if mark is not None else ""
        raise Unpublishable(f"yaml_subset: {what}{line}")

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
            refuse("anchors and aliases are not accepted", mark)
        if isinstance(event, yaml.ScalarEvent):
            if event.tag is not None and not any(event.implicit):
                refuse("tags are not accepted", mark)
            plain = not event.style  # ('' from the C parser, None from Python's)
            if is_key and plain and plain_scalar_tag(event.value) != "tag:yaml.org,2002:str":
                refuse(f"the key {event.value!r} is not a string", mark)
            if event.style in ("|", ">"):
                start = getattr(mark, "index", 0)
                if _BLOCK_INDICATOR_RE.match(yaml_text, start):
                    refuse("block scalar indentation indicators are not accepted", mark)
            end = event.end_mark
            multi_line = mark is not None and end is not None and mark.line != end.line
            if event.style in ('"', "'") and multi_line:
                refuse("quoted scalars over several lines are not accepted", mark)
        elif isinstance(event, yaml.CollectionStartEvent):
            if event.tag is not None and not event.implicit:
                refuse("tags are not accepted", mark)
            if is_key:
                refuse("a key that is a collection is not accepted", mark)
            if isinstance(event, yaml.MappingStartEvent) and open_ and open_[-1][0]:
                refuse("a mapping inside a flow collection is not accepted", mark)
            open_.append([bool(event.flow_style), isinstance(event, yaml.MappingStartEvent), 0])


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def check_published_frontmatter(frontmatter: dict[str, Any]) -> None:
    """Apply the Agent Skills rules to the verbatim frontmatter (SPEC §17), as ``validate`` does.

    The rules are :func:`agent_skills.validate.check_frontmatter`'s (profile ``spec``): a skill
    that ``validate`` passes is published, whatever its name's script.

    Raises:
        Unpublishable: naming the first error as ``<code>: <message>``.
    """
    for problem in check_frontmatter(frontmatter):
        if problem.severity == Severity.ERROR:
            raise Unpublishable(f"{problem.code}: {problem.message}")


def _check_collisions(rels: Sequence[str]) -> None:
    """Refuse file paths that become one file on a case-insensitive or normalising filesystem."""
    seen: dict[str, str] = {}
    for rel in rels:
        key = unicodedata.normalize("NFC", rel).casefold()
        if key in seen:
            raise Unpublishable(
                f"file paths {seen[key]!r} and {rel!r} collide when case and Unicode form "
                "are ignored"
            )
        seen[key] = rel


def _publish(skills: AgentSkills, name: str) -> PublishedSkill:
    """Hash one skill's files and build its extension entry.

    Raises:
        Unpublishable: when hosts could not accept the skill (SPEC §17), naming the reason.
    """
    served = skills.served(name)  # one snapshot for every answer below
    if served is None or served.withheld:
        raise Unpublishable("the skill disappeared")
    content = served.content()
    if not all(_is_utf8_name(t) for t in (str(content.dir), *(r.rel for r in content.resources))):
        # SPEC §20.8: skill:// URIs and hosts need UTF-8 names
        raise Unpublishable("non_utf8_path: a file or directory name is not valid UTF-8")
    outside = served.manifest_outside
    if outside is not None:  # SPEC §20.3: a manifest link leading out of the skill (case C5)
        raise Unpublishable(
            f"manifest_outside: {content.path.name} is a link to {outside}, outside the skill"
        )
    if content.path.name != MANIFEST_NAME:
        raise Unpublishable(f"its manifest is named {content.path.name!r}, not {MANIFEST_NAME!r}")
    if content.resources_truncated:
        raise Unpublishable("its resource listing was truncated (max_resources)")
    rels = [MANIFEST_NAME, *(resource.rel for resource in content.resources)]
    if len(rels) > MAX_SKILL_FILES:
        raise Unpublishable(f"it has {len(rels)} files, more than {MAX_SKILL_FILES}")
    if sum(resource.size for resource in content.resources) > MAX_SKILL_BYTES:
        raise Unpublishable(f"its files total more than {MAX_SKILL_BYTES} bytes")
    _check_collisions(rels)
    files: list[PublishedFile] = []
    frontmatter: dict[str, Any] = {}
    budget = MAX_SKILL_BYTES
    for rel in rels:
        try:
            data = served.read(rel, max_bytes=budget)
        except SkillError as err:
            if err.code == ErrorCode.TOO_LARGE:
                raise Unpublishable(f"its files total more than {MAX_SKILL_BYTES} bytes") from None
            raise Unpublishable(f"{rel} cannot be read: {err.code}: {err}") from None
        budget -= len(data)
        if rel == MANIFEST_NAME:
            frontmatter = strict_frontmatter(data)
            check_published_frontmatter(frontmatter)
        files.append(
            PublishedFile(
                uri=file_uri(name, rel),
                rel=rel,
                size=len(data),
                digest=file_digest(data),
                mime_type=media_type(rel, is_utf8(data)),
            )
        )
    uri = files[0].uri
    entry = {
        "uri": uri,
        "frontmatter": frontmatter,
        "resources": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in files],
    }
    return PublishedSkill(name, uri, frontmatter["description"], tuple(files), entry)


def discovery_index(published: Sequence[PublishedSkill]) -> str:
    """The discovery index of ``published``, as JSON text (SPEC §29.1).

    The Agent Skills discovery index, v0.2.0, as the clients of the MCP Skills extension's
    earlier draft read it at ``skill://index.json`` (Microsoft Agent Framework's
    ``MCPSkillsSource``, mcpc)::

        {"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
         "skills": [{"name": "api-review", "type": "skill-md", "description": "...",
                     "url": "skill://api-review/SKILL.md", "digest": "sha256:<hex>"}]}

    One entry per skill, in the order given (the order of ``skills/list``); ``description`` is
    the frontmatter's, ``digest`` the manifest digest of the ``SKILL.md`` bytes served.
    """
    entries = [
        {
            "name": skill.name,
            "type": "skill-md",
            "description": skill.description,
            "url": skill.uri,
            "digest": skill.files[0].digest,
        }
        for skill in published
    ]
    return json.dumps({"$schema": INDEX_SCHEMA, "skills": entries}, ensure_ascii=False)


def build_catalog(skills: AgentSkills) -> Catalog:
    """Publish every skill hosts can accept; a ``not_published`` warning names each other one."""
    served: list[PublishedSkill] = []
    diagnostics: list[Diagnostic] = []
    for info in skills.list_skills():
        try:
            served.append(_publish(skills, info.name))
        except Unpublishable as why:
            reason = str(why)
        except Exception as exc:  # a fault while reading one skill never stops the server
            reason = f"internal_error: {type(exc).__name__}: {exc}"
        else:
            continue
        message = (
            f"skill '{info.name}' is not published through the MCP Skills extension: {reason} "
            "(it stays available through the tools)"
        )
        diagnostics.append(Diagnostic(DiagnosticKind.NOT_PUBLISHED, message, info.path))
    emit(diagnostics)
    by_file_uri = {f.uri: (skill, f) for skill in served for f in skill.files}
    return Catalog(
        tuple(served),
        {s.uri: s for s in served},
        by_file_uri,
        tuple(diagnostics),
        discovery_index(served),
    )
