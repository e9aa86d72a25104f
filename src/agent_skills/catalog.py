"""Catalog and prompt formats: the first tier of progressive disclosure (SPEC §13).

Renderers render exactly the skills they are given (callers filter), sorted by
``(name.casefold(), name)``, with whitespace runs in descriptions collapsed to one space. No I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from html import escape as _html_escape

from ._model import SkillInfo, sort_key

__all__ = ["render_available_skills_xml", "render_catalog_json", "render_skill_catalog"]

_WS_RE = re.compile(r"\s+")
# Characters XML 1.0 cannot carry even escaped (C0 controls but tab/LF/CR, surrogates, U+FFFE/F).
_NON_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """Escape ``&``, ``<``, ``>`` and replace characters XML cannot carry with U+FFFD."""
    # html.escape, not xml.sax.saxutils.escape (the same three entities): the latter imports
    # urllib.request and with it http and email, tens of milliseconds (SPEC §26).
    return _html_escape(_NON_XML_RE.sub("\ufffd", text), quote=False)


def _ordered(skills: Iterable[SkillInfo]) -> list[SkillInfo]:
    return sorted(skills, key=lambda s: sort_key(s.name))


def _one_line(text: str) -> str:
    return _WS_RE.sub(" ", text).strip()


def render_skill_catalog(
    skills: Iterable[SkillInfo], *, heading: str = "# Available skills"
) -> str:
    """Render a markdown catalog (SPEC §13).

    Args:
        skills: The skills to list.
        heading: First line, used verbatim.

    Returns:
        ``""`` for no skills; else ``heading``, a blank line, one ``- **<name>** — <description>``
        line per skill, and a trailing newline.
    """
    ordered = _ordered(skills)
    if not ordered:
        return ""
    lines = [f"- **{s.name}** — {_one_line(s.description)}" for s in ordered]
    return heading + "\n\n" + "\n".join(lines) + "\n"


def render_available_skills_xml(
    skills: Iterable[SkillInfo], *, include_location: bool = True
) -> str:
    """Render the ``<available_skills>`` block of the Agent Skills integration guide (SPEC §13).

    Args:
        skills: The skills to list.
        include_location: Add ``<location>``: the plain absolute path of the ``SKILL.md`` (never a
            URL, never percent-encoded), so the model can read it with a file tool.

    Returns:
        ``""`` for no skills; else the XML-escaped block ending with a newline. Characters that
        XML 1.0 cannot carry (C0 controls other than tab/LF/CR) become U+FFFD.
    """
    ordered = _ordered(skills)
    if not ordered:
        return ""
    out = ["<available_skills>"]
    for s in ordered:
        out.append("  <skill>")
        out.append(f"    <name>{_xml_text(s.name)}</name>")
        out.append(f"    <description>{_xml_text(_one_line(s.description))}</description>")
        if include_location:
            out.append(f"    <location>{_xml_text(str(s.path.absolute()))}</location>")
        out.append("  </skill>")
    out.append("</available_skills>")
    return "\n".join(out) + "\n"


def render_catalog_json(skills: Iterable[SkillInfo]) -> str:
    """Render a JSON array of ``{name, description, location, scope, source}`` (SPEC §13).

    ``location`` is the absolute path of the ``SKILL.md``. Returns ``"[]"`` for no skills.
    """
    items = [
        {
            "name": s.name,
            "description": _one_line(s.description),
            "location": str(s.path.absolute()),
            "scope": s.scope,
            "source": s.source,
        }
        for s in _ordered(skills)
    ]
    return json.dumps(items, ensure_ascii=False, indent=2)
