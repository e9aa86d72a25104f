"""Full-text search over a catalog: BM25 with SQLite FTS5 from the standard library (SPEC §22.2).

One in-memory FTS5 table per index, one row per skill with three columns: the name, the
description and the category (the POSIX path of the skill's parent below its root, SPEC §21.4).
Text is split by FTS5's ``unicode61`` tokenizer (letters and digits, so ``pdf-tools`` is ``pdf``
and ``tools``; diacritics folded) and stemmed by ``porter`` (``reviews`` finds ``review``). The
ranking is FTS5's ``bm25()`` with the name weighted above the category and the category above the
description, ties in SPEC §8 order. No I/O: the index lives in memory and is built from values.

Why FTS5 and not a BM25 package: it ships with Python (no dependency, no import of numpy or
scipy), and ``benchmarks/run.py`` measures it against ``bm25s`` when that is installed (the
figures are in ``docs/performance.md``).
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Sequence

from ._errors import ErrorCode, SkillError
from ._model import SkillInfo

__all__ = ["MAX_QUERY_TERMS", "SkillSearchIndex", "query_terms"]

MAX_QUERY_TERMS = 32
"""Words of a query that are searched; the rest are ignored (keeps every query cheap)."""

# Words too common to tell skills apart: left out of a query that has other words, so a query
# such as "profile a csv file" does not score every skill that says "a".
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "for",
        "from",
        "how",
        "i",
        "in",
        "into",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "use",
        "using",
        "when",
        "with",
        "you",
        "your",
    ]
)
# bm25() weights of the columns name, description, category.
_WEIGHTS = (8.0, 1.0, 2.0)
_WORD_RE = re.compile(r"\w+")


def query_terms(query: str) -> list[str]:
    """The words of ``query`` that are searched: runs of letters, digits and ``_``, casefolded,
    each once, at most :data:`MAX_QUERY_TERMS`; common English words (``a``, ``the``, ``for``,
    ...) are left out unless the query has no other word."""
    seen: dict[str, None] = {}
    for match in _WORD_RE.finditer(query.casefold()):
        seen.setdefault(match.group(), None)
        if len(seen) == 4 * MAX_QUERY_TERMS:
            break
    words = [w for w in seen if w not in _STOPWORDS] or list(seen)
    return words[:MAX_QUERY_TERMS]


def _category(info: SkillInfo) -> str:
    # SkillInfo.category (SPEC §21.4): the parent's path below the root, "" at depth 1.
    return info.category.replace("/", " ")


def _quoted(term: str) -> str:
    return '"' + term + '"'


class SkillSearchIndex:
    """A BM25 index of skills over name, description and category (SPEC §22.2).

    Thread-safe: queries are serialised on one in-memory SQLite connection.

    Args:
        skills: The skills to index, in the order ties are broken (SPEC §8 order).

    Raises:
        SkillError: ``io_error`` ``{reason}`` when this Python's SQLite has no FTS5.
    """

    def __init__(self, skills: Sequence[SkillInfo]) -> None:
        self._skills = tuple(skills)
        self._lock = threading.Lock()
        try:
            db = sqlite3.connect(":memory:", check_same_thread=False)
            db.execute(
                "CREATE VIRTUAL TABLE skills USING fts5(name, description, category, "
                "tokenize = 'porter unicode61 remove_diacritics 2')"
            )
        except sqlite3.Error as exc:
            raise SkillError(
                ErrorCode.IO_ERROR,
                f"skill search needs SQLite with FTS5: {exc}",
                {"reason": str(exc)},
            ) from None
        with db:
            db.executemany(
                "INSERT INTO skills(rowid, name, description, category) VALUES (?, ?, ?, ?)",
                (
                    (i, info.name, info.description, _category(info))
                    for i, info in enumerate(self._skills)
                ),
            )
        self._db = db

    def __len__(self) -> int:
        return len(self._skills)

    def _useful(self, terms: list[str]) -> tuple[list[str], list[str]]:
        """``(found, rare)``: the terms found in at least one skill, and those of them found in
        at most half of the skills (all of them when none is that rare).

        A term in more than half of the skills has a BM25 weight of about zero (FTS5 floors its
        negative IDF), yet ranking every skill it matches is most of a query's time: the rare
        terms are ranked first, and all found terms only when the rare ones match fewer skills
        than asked for.
        """
        if len(terms) == 1:
            return terms, terms
        counts = [
            self._db.execute("SELECT count(*) FROM skills(?)", (_quoted(term),)).fetchone()[0]
            for term in terms
        ]
        found = [(term, count) for term, count in zip(terms, counts, strict=True) if count]
        rare = [term for term, count in found if 2 * count <= len(self._skills)]
        names = [term for term, _ in found]
        return names, rare or names

    def search(self, query: str, limit: int) -> list[SkillInfo]:
        """Return the skills that best match ``query``, best first, at most ``limit``.

        Any word of the query may match (OR); BM25 ranks skills that match more, and rarer,
        words higher. Words found in more than half of the skills (whose BM25 weight is about
        zero) are ranked by only when the rarer words match fewer than ``limit`` skills.

        Args:
            query: Free text; only its words count (see :func:`query_terms`).
            limit: The most results, at least 1.

        Returns:
            A new list; empty when no skill matches or the query has no word.
        """
        terms = query_terms(query)
        if not terms or limit < 1:
            return []
        weights = ", ".join(str(w) for w in _WEIGHTS)
        sql = (
            f"SELECT rowid FROM skills WHERE skills MATCH ? "
            f"ORDER BY bm25(skills, {weights}), rowid LIMIT ?"
        )
        with self._lock:
            try:
                found, rare = self._useful(terms)
                rows: list[tuple[int]] = []
                # Each term quoted: FTS5 operators (AND, OR, NEAR, *, ^, :) are plain words here.
                for chosen in (rare, found):
                    if chosen and (not rows or len(rows) < limit):
                        match = " OR ".join(_quoted(term) for term in chosen)
                        rows = self._db.execute(sql, (match, limit)).fetchall()
                    if len(rows) >= limit or chosen == found:
                        break
            except sqlite3.Error:  # a term the tokenizer cannot take: nothing matches it
                return []
        return [self._skills[row[0]] for row in rows]
