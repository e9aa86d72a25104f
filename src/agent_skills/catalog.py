"""Catalog and prompt formats: the first tier of progressive disclosure (SPEC §13, §22.1).

Renderers render exactly the skills they are given (callers filter), sorted by
``(name.casefold(), name)``, with whitespace runs in descriptions collapsed to one space. No I/O.
:func:`fit_catalog` renders the same formats within a budget of characters and reports what it
shortened and what it left out (SPEC §22.1).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from html import escape as _html_escape
from typing import Literal

from ._args import coerce_int
from ._errors import invalid_input
from ._model import SkillInfo

__all__ = [
    "DEFAULT_MAX_DESCRIPTION_CHARS",
    "MIN_DESCRIPTION_CHARS",
    "CatalogFit",
    "CatalogFormat",
    "fit_catalog",
    "render_available_skills_xml",
    "render_catalog_json",
    "render_skill_catalog",
    "shorten_description",
]

CatalogFormat = Literal["xml", "markdown", "json"]

DEFAULT_MAX_DESCRIPTION_CHARS = 1536
"""Longest description :func:`fit_catalog` keeps, in characters (Claude Code's cap; §22.1)."""

MIN_DESCRIPTION_CHARS = 80
""":func:`fit_catalog` never shortens a description below this many characters (SPEC §22.1)."""

ELLIPSIS = "…"
_ALL_NAMES_CHECKED = 16  # up to this many omitted names, a note naming them all may be shortest
DEFAULT_HEADING = "# Available skills"

_WS_RE = re.compile(r"\s+")
# Characters XML 1.0 cannot carry even escaped (C0 controls but tab/LF/CR, surrogates, U+FFFE/F).
_NON_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """Escape ``&``, ``<``, ``>`` and replace characters XML cannot carry with U+FFFD."""
    # html.escape, not xml.sax.saxutils.escape (the same three entities): the latter imports
    # urllib.request and with it http and email (SPEC §26).
    return _html_escape(_NON_XML_RE.sub("\ufffd", text), quote=False)


def _ordered(skills: Iterable[SkillInfo]) -> list[SkillInfo]:
    """``skills`` sorted by ``(name.casefold(), name)`` (SPEC §8).

    The keys are built by ``map``/``zip`` and compared as tuples, with no Python call per skill:
    at 10 000 skills that is a third of :func:`fit_catalog`'s time otherwise.
    """
    listed = list(skills)
    names = [s.name for s in listed]
    keyed = sorted(zip(map(str.casefold, names), names, range(len(listed)), strict=True))
    return [listed[i] for _, _, i in keyed]


def _one_line(text: str) -> str:
    return _WS_RE.sub(" ", text).strip()


def shorten_description(text: str, max_chars: int) -> str:
    """Cut ``text`` to at most ``max_chars`` characters at a word boundary, ending with ``…``.

    Text that fits is returned as it is. Otherwise the result is the longest run of whole words
    that leaves room for ``…`` (trailing spaces dropped), plus ``…``; when that would leave fewer
    than 80 characters (half of ``max_chars`` when that is below 80), as with one very long
    word, the text is cut inside the word instead. So with ``max_chars >= 80`` a cut
    description has between 80 and ``max_chars`` characters, ``…`` included (SPEC §22.1,
    §22.9).

    Args:
        text: One line of text (see the renderers: whitespace runs are collapsed first).
        max_chars: The largest length, at least 1.

    Returns:
        The text or its shortened form.
    """
    if len(text) <= max_chars:
        return text
    room = max_chars - 1
    floor = MIN_DESCRIPTION_CHARS if max_chars >= MIN_DESCRIPTION_CHARS else (max_chars + 1) // 2
    head = text[:room]
    if text[room] != " ":
        cut = head.rfind(" ")
        if cut >= 0:
            head = head[:cut]
    head = head.rstrip()
    if len(head) + 1 < floor:
        head = text[:room]
    return head + ELLIPSIS


# -- one entry per skill, shared by the renderers and fit_catalog ---------------------------------


def _markdown_entry(info: SkillInfo, description: str, include_location: bool) -> str:
    return f"- **{info.name}** — {description}\n"


def _xml_entry(info: SkillInfo, description: str, include_location: bool) -> str:
    location = (
        f"    <location>{_xml_text(str(info.path.absolute()))}</location>\n"
        if include_location
        else ""
    )
    return (
        f"  <skill>\n    <name>{_xml_text(info.name)}</name>\n"
        f"    <description>{_xml_text(description)}</description>\n{location}  </skill>\n"
    )


def _json_item(info: SkillInfo, description: str) -> dict[str, str]:
    return {
        "name": info.name,
        "description": description,
        "location": str(info.path.absolute()),
        "scope": info.scope,
        "source": info.source,
    }


def _json_element(value: object) -> str:
    """``value`` as ``json.dumps([value, ...], indent=2)`` writes one element of a list."""
    return "  " + json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")


def _json_entry(info: SkillInfo, description: str, include_location: bool) -> str:
    return _json_element(_json_item(info, description))


def _json_text_length(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False))


def _xml_text_length(text: str) -> int:
    return len(_xml_text(text))


def render_skill_catalog(skills: Iterable[SkillInfo], *, heading: str = DEFAULT_HEADING) -> str:
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
    lines = [_markdown_entry(s, _one_line(s.description), False) for s in ordered]
    return heading + "\n\n" + "".join(lines)


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
    entries = [_xml_entry(s, _one_line(s.description), include_location) for s in ordered]
    return "<available_skills>\n" + "".join(entries) + "</available_skills>\n"


def render_catalog_json(skills: Iterable[SkillInfo]) -> str:
    """Render a JSON array of ``{name, description, location, scope, source}`` (SPEC §13).

    ``location`` is the absolute path of the ``SKILL.md``. Returns ``"[]"`` for no skills.
    """
    items = [_json_item(s, _one_line(s.description)) for s in _ordered(skills)]
    return json.dumps(items, ensure_ascii=False, indent=2)


# -- fit_catalog ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CatalogFit:
    """What :func:`fit_catalog` rendered and what it left out (SPEC §22.1).

    Attributes:
        text: The catalog, never longer than the budget: the SPEC §13 rendering of the included
            skills, then (when skills were omitted) the note naming them; ``""`` when nothing
            fits or there is nothing to render.
        included: Names of the skills listed in ``text``, sorted as SPEC §8.
        shortened: Names of the included skills whose description was cut, sorted as SPEC §8.
        omitted: Names of the skills left out of the listing, sorted as SPEC §8. Every input
            skill is in exactly one of ``included`` and ``omitted``.
    """

    text: str
    included: tuple[str, ...]
    shortened: tuple[str, ...]
    omitted: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Layout:
    """The pieces of one format: wrapper, per-entry builder and escaped-length function."""

    entry: Callable[[SkillInfo, str, bool], str]
    text_length: Callable[[str], int]
    open: str
    close: str
    separator: str  # between entries (JSON's ``,\n``)

    def wrap(self, entries: Sequence[str]) -> str:
        return self.open + self.separator.join(entries) + self.close


def _layout(format: str, heading: str) -> _Layout:
    if format == "xml":
        return _Layout(
            _xml_entry, _xml_text_length, "<available_skills>\n", "</available_skills>\n", ""
        )
    if format == "markdown":
        return _Layout(_markdown_entry, len, heading + "\n\n", "", "")
    return _Layout(_json_entry, _json_text_length, "[\n", "\n]", ",\n")


def _priorities(
    ordered: Sequence[SkillInfo], priority: Callable[[SkillInfo], float] | None
) -> list[int]:
    """Indices of ``ordered`` from the skill kept first to the one omitted first."""
    if priority is None:
        return list(range(len(ordered)))
    scores: list[float] = []
    for info in ordered:
        try:
            score = priority(info)
        except Exception as exc:  # a host's callback: report, never crash
            raise invalid_input(
                f"priority({info.name!r}) failed: {type(exc).__name__}: {exc}",
                {"name": info.name},
            ) from None
        if (
            not isinstance(score, int | float)
            or isinstance(score, bool)
            or (isinstance(score, float) and math.isnan(score))
        ):
            raise invalid_input(
                f"priority({info.name!r}) must return a number, got {score!r}",
                {"name": info.name, "priority": repr(score)},
            )
        scores.append(score)
    return sorted(range(len(ordered)), key=lambda i: (-scores[i], i))


def _note_line(names: Sequence[str], more: int) -> str:
    """The plain-text note of SPEC §22.1 naming the omitted skills (without its newline)."""
    if not names:
        plural = "" if more == 1 else "s"
        return (
            f"Also available: {more} more skill{plural} not listed here; "
            "search for them by name or keyword."
        )
    listed = "Also available: " + ", ".join(names)
    return listed + (f" … and {more} more" if more else "")


def _note_text(names: Sequence[str], more: int) -> str:
    return _note_line(names, more) + "\n"


def _note_element(names: Sequence[str], more: int) -> str:
    return _json_element({"also_available": list(names), "more": more})


class _Fitter:
    """One run of :func:`fit_catalog`: the ordered skills, their descriptions and lengths."""

    def __init__(
        self,
        ordered: list[SkillInfo],
        layout: _Layout,
        format: str,
        max_chars: int,
        max_description_chars: int,
        include_location: bool,
    ) -> None:
        self.ordered = ordered
        self.layout = layout
        self.format = format
        self.max_chars = max_chars
        self.limit = max_description_chars
        self.include_location = include_location
        self._lines: dict[int, str] = {}

    def line(self, i: int) -> str:
        """Skill ``i``'s description on one line (cached)."""
        text = self._lines.get(i)
        if text is None:
            text = self._lines[i] = _one_line(self.ordered[i].description)
        return text

    def entry(self, i: int, cap: int) -> tuple[str, bool]:
        """Skill ``i``'s entry with its description cut to ``cap``; and whether it was cut."""
        line = self.line(i)
        short = shorten_description(line, cap)
        return self.layout.entry(self.ordered[i], short, self.include_location), short != line

    def _lazy_names(self, omitted: Sequence[int]) -> Iterator[str]:
        # One at a time: of 10 000 omitted names only the few that fit are ever escaped.
        xml = self.format == "xml"
        for i in omitted:
            name = self.ordered[i].name
            yield _xml_text(name) if xml else name

    def _note_names(self, omitted: Sequence[int]) -> list[str]:
        names = [self.ordered[i].name for i in omitted]
        return [_xml_text(n) for n in names] if self.format == "xml" else names

    def _build_note(self, names: Sequence[str], more: int) -> str:
        return _note_element(names, more) if self.format == "json" else _note_text(names, more)

    def shortest_note(self, order: Sequence[int], start: int) -> int:
        """The length of the shortest note for ``order[start:]`` (0 when that is empty)."""
        total = len(order) - start
        if total <= 0:
            return 0
        extra = len(self.layout.separator)  # the JSON note is one more array element
        first = self._note_names(order[start : start + 1])
        sizes = [len(self._build_note([], total)), len(self._build_note(first, total - 1))]
        if total <= _ALL_NAMES_CHECKED:
            sizes.append(len(self._build_note(self._note_names(order[start:]), 0)))
        return min(sizes) + extra

    def note(self, omitted: Sequence[int], room: int) -> str:
        """The note for ``omitted`` (keep order) in at most ``room`` characters, or ``""``.

        As many names as fit, in keep order; else the count.
        """
        total = len(omitted)
        if self.format == "json":
            # One name more costs its JSON string, 6 spaces of indent and ",\n".
            size = len(_note_element([], total)) + 4
            costs = (_json_text_length(n) + 8 for n in self._lazy_names(omitted))
        else:
            size = len("Also available: \n") - 2
            costs = (len(n) + 2 for n in self._lazy_names(omitted))
        best = 0
        for j, cost in enumerate(costs, 1):
            size += cost
            if size > room:  # the names alone no longer fit: nor will more of them
                break
            more = total - j
            # The suffix " … and N more" (the JSON "more" is always there); an upper bound.
            if self.format == "json" or size + (len(f" … and {more} more") if more else 0) <= room:
                best = j
        names = self._note_names(omitted[:best])
        while best > 0:
            text = self._build_note(names[:best], total - best)
            if len(text) <= room:
                return text
            best -= 1
        text = self._build_note([], total)
        return text if len(text) <= room else ""

    def fit(self, order: list[int]) -> tuple[str, list[int], list[int]]:
        """Fit the skills: returns ``(text, included indices, shortened indices)``."""
        n = len(self.ordered)
        layout = self.layout
        wrapper = len(layout.open) + len(layout.close)
        floor = min(MIN_DESCRIPTION_CHARS, self.limit)
        # A lower bound of the whole listing, from names alone: when even that is over budget,
        # skills must be omitted, and only the ones that fit are ever rendered.
        bound = wrapper
        empty = ""
        for i in range(n):
            bound += len(layout.entry(self.ordered[i], empty, False)) + len(layout.separator)
            if bound > self.max_chars:
                return self._omit(order, floor)
        entries = [self.entry(i, self.limit) for i in range(n)]
        total = wrapper + sum(len(e) for e, _ in entries) + len(layout.separator) * (n - 1)
        if total <= self.max_chars:
            return (
                layout.wrap([e for e, _ in entries]),
                list(range(n)),
                [i for i, (_, cut) in enumerate(entries) if cut],
            )
        if self.limit <= floor:
            return self._omit(order, floor)
        return self._shorten(entries, total, floor, order)

    def _shorten(
        self, entries: list[tuple[str, bool]], total: int, floor: int, order: list[int]
    ) -> tuple[str, list[int], list[int]]:
        """Cut the longest descriptions to one cap, the largest that fits (water filling)."""
        long = [i for i in range(len(entries)) if len(self.line(i)) > floor]
        base = total - sum(len(entries[i][0]) for i in long)

        def size(cap: int) -> int:
            return base + sum(len(self.entry(i, cap)[0]) for i in long)

        if size(floor) > self.max_chars:
            return self._omit(order, floor)
        low, high = floor, self.limit  # size(low) fits, size(high) does not
        while high - low > 1:
            mid = (low + high) // 2
            if size(mid) <= self.max_chars:
                low = mid
            else:
                high = mid
        for i in long:
            entries[i] = self.entry(i, low)
        text = self.layout.wrap([e for e, _ in entries])
        return text, list(range(len(entries))), [i for i, (_, cut) in enumerate(entries) if cut]

    def _omit(self, order: list[int], floor: int) -> tuple[str, list[int], list[int]]:
        """Every description at its shortest; keep skills in ``order`` while they fit."""
        layout = self.layout
        kept: list[tuple[int, str, bool]] = []
        used = len(layout.open) + len(layout.close)  # with at least one entry
        for k, i in enumerate(order):
            entry, cut = self.entry(i, floor)
            extra = len(entry) + (len(layout.separator) if kept else 0)
            # Room for the note, at least in its shortest form, must remain.
            if used + extra > self.max_chars:
                break
            need = self.shortest_note(order, k + 1)
            if used + extra + need > self.max_chars:
                break
            used += extra
            kept.append((i, entry, cut))
        omitted = order[len(kept) :]
        if kept:
            kept.sort()
            listing = [entry for _, entry, _ in kept]
            if self.format == "json":
                room = self.max_chars - used - len(layout.separator)
                note = self.note(omitted, room)
                text = layout.wrap([*listing, note]) if note else layout.wrap(listing)
            else:
                note = self.note(omitted, self.max_chars - used)
                text = layout.wrap(listing) + note
        elif self.format == "json":
            note = self.note(omitted, self.max_chars - len(layout.open) - len(layout.close))
            text = layout.wrap([note]) if note else ""
        else:
            text = self.note(omitted, self.max_chars)
        return text, [i for i, _, _ in kept], [i for i, _, cut in kept if cut]


def fit_catalog(
    skills: Iterable[SkillInfo],
    *,
    max_chars: int,
    format: CatalogFormat = "xml",
    max_description_chars: int = DEFAULT_MAX_DESCRIPTION_CHARS,
    priority: Callable[[SkillInfo], float] | None = None,
    include_location: bool = True,
    heading: str = DEFAULT_HEADING,
) -> CatalogFit:
    """Render a catalog within a budget and say what was shortened or left out (SPEC §22.1).

    The steps:

    1. every description (whitespace collapsed) is cut to ``max_description_chars`` at a word
       boundary with ``…`` (:func:`shorten_description`);
    2. if the rendering is over budget, the longest descriptions are shortened first, all to
       one cap, the largest that fits, never below 80 characters;
    3. if it is still over, skills are omitted, lowest priority first (``priority(info)``,
       higher kept; by default all equal, and then later in SPEC §8 order is omitted first),
       with every kept description at its shortest, and the text ends with one note naming the
       omitted skills (``Also available: a, b, c``, as many names as fit, then ``… and N more``),
       or when no name fits, their count and how to find them. In the ``json`` format the note
       is a last array element ``{"also_available": [names], "more": N}``, so the text stays
       valid JSON. When not even the note fits, the text is ``""``.

    Args:
        skills: The skills to render (callers filter; sorted here as SPEC §8).
        max_chars: The budget for the whole text, in characters (``len`` of the ``str``).
        format: ``"xml"`` (:func:`render_available_skills_xml`), ``"markdown"``
            (:func:`render_skill_catalog`) or ``"json"`` (:func:`render_catalog_json`).
        max_description_chars: The longest description kept, in characters, ``…`` included;
            at least 1.
        priority: ``priority(info) -> number``; higher is kept longer. ``None``: all equal.
        include_location: For ``"xml"``: add each skill's ``<location>``.
        heading: For ``"markdown"``: the first line.

    Returns:
        A :class:`CatalogFit`. An empty input gives ``""`` and empty tuples.

    Raises:
        SkillError: ``invalid_input`` for a ``max_chars`` that is not a non-negative ``int``, a
            ``max_description_chars`` below 1, an unknown ``format``, a skill that is not a
            ``SkillInfo``, or a ``priority`` that raises or returns something other than a
            number (``{name}``).
    """
    coerce_int(max_chars, "max_chars")
    coerce_int(max_description_chars, "max_description_chars", minimum=1)
    if format not in ("xml", "markdown", "json"):
        raise invalid_input(
            f"catalog format must be 'xml', 'markdown' or 'json', got {format!r}",
            {"format": repr(format)},
        )
    if not isinstance(heading, str):
        raise invalid_input("heading must be a str", {"heading": repr(heading)})
    try:
        listed = list(skills)
    except TypeError:
        raise invalid_input("skills must be an iterable of SkillInfo", {}) from None
    for info in listed:
        if not isinstance(info, SkillInfo):
            raise invalid_input(
                f"skills must hold SkillInfo, got {type(info).__name__}",
                {"type": type(info).__name__},
            )
    ordered = _ordered(listed)
    if not ordered:
        return CatalogFit("", (), (), ())
    order = _priorities(ordered, priority)
    fitter = _Fitter(
        ordered,
        _layout(format, heading),
        format,
        max_chars,
        max_description_chars,
        bool(include_location),
    )
    text, included, shortened = fitter.fit(order)
    kept = set(included)
    return CatalogFit(
        text,
        tuple(ordered[i].name for i in sorted(included)),
        tuple(ordered[i].name for i in sorted(shortened)),
        tuple(ordered[i].name for i in range(len(ordered)) if i not in kept),
    )
