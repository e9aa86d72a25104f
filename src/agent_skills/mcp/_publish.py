"""What the MCP server publishes through the Skills extension, and the manifests it publishes
(SPEC §17, §24.2, §29.1). Imports no part of the MCP SDK: testable without it.

Owns the extension's own limits (a whole listing, the file count, the total size), the
``skills/list`` entry of a skill (its files, sizes and digests, read through the facade) and the
discovery index ``skill://index.json`` of the same skills, which clients of the extension's
earlier draft read. What hosts accept of a skill is ``validate``'s ``portable`` profile, applied
here by the same function (``check_manifest``): the server publishes exactly what ``validate
--profile portable`` passes. Digests are ``_digest``'s, media types ``_tools``'.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .._core import AgentSkills
from .._diagnostics import Diagnostic, DiagnosticKind, emit
from .._digest import file_digest
from .._errors import ErrorCode, SkillError
from .._tools import media_type
from ..validate import Problem, Severity, check_manifest, check_skill_files

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
    "discovery_index",
    "file_uri",
    "is_utf8",
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


def _publish(skills: AgentSkills, name: str) -> PublishedSkill:
    """Hash one skill's files and build its extension entry.

    A skill is published when it keeps the extension's limits (its listing whole, at most
    :data:`MAX_SKILL_FILES` files and :data:`MAX_SKILL_BYTES` bytes) and passes ``validate``'s
    ``portable`` profile on what is served (SPEC §17, §24.2): the same rules, by the same
    function, as ``agent-skills validate --profile portable``.

    Raises:
        Unpublishable: when hosts could not accept the skill, naming the reason.
    """
    served = skills.served(name)  # one snapshot for every answer below
    if served is None or served.withheld:
        raise Unpublishable("the skill disappeared")
    content = served.content()
    if content.resources_truncated:
        raise Unpublishable("its resource listing was truncated (max_resources)")
    rels = [content.path.name, *(resource.rel for resource in content.resources)]
    if len(rels) > MAX_SKILL_FILES:
        raise Unpublishable(f"it has {len(rels)} files, more than {MAX_SKILL_FILES}")
    if sum(resource.size for resource in content.resources) > MAX_SKILL_BYTES:
        raise Unpublishable(f"its files total more than {MAX_SKILL_BYTES} bytes")
    facts: dict[str, Any] = {
        "profile": "portable",
        "dir_name": os.path.basename(content.dir),
        "manifest_name": content.path.name,
        "files": rels,
        "manifest_outside": served.manifest_outside,
    }
    _refuse(check_skill_files(**facts))
    files: list[PublishedFile] = []
    frontmatter: dict[str, Any] | None = None
    budget = MAX_SKILL_BYTES
    for rel in rels:
        try:
            data = served.read(rel, max_bytes=budget)
        except SkillError as err:
            if err.code == ErrorCode.TOO_LARGE:
                raise Unpublishable(f"its files total more than {MAX_SKILL_BYTES} bytes") from None
            raise Unpublishable(f"{rel} cannot be read: {err.code}: {err}") from None
        budget -= len(data)
        if frontmatter is None:  # the manifest, read first
            check = check_manifest(data, **facts)
            _refuse(check.problems)
            frontmatter = check.frontmatter
            assert frontmatter is not None  # (a frontmatter that is not a mapping is an error)
        files.append(
            PublishedFile(
                uri=file_uri(name, rel),
                rel=rel,
                size=len(data),
                digest=file_digest(data),
                mime_type=media_type(rel, is_utf8(data)),
            )
        )
    assert frontmatter is not None
    uri = files[0].uri
    entry = {
        "uri": uri,
        "frontmatter": frontmatter,
        "resources": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in files],
    }
    return PublishedSkill(name, uri, frontmatter["description"], tuple(files), entry)


def _refuse(problems: Sequence[Problem]) -> None:
    """Raise :class:`Unpublishable` for the first error of ``problems``, as ``code: message``
    with its line (``validate``'s words)."""
    for problem in problems:
        if problem.severity == Severity.ERROR:
            where = f" (line {problem.line})" if problem.line is not None else ""
            raise Unpublishable(f"{problem.code}: {problem.message}{where}")


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
