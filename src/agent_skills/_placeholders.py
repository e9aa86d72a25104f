"""Placeholders in a body: the arguments of user-invoked skills (SPEC §22.8) and the skill
directory at activation (SPEC §29.4).

A client that runs a skill as a slash command (``/review openapi.yaml strict``) substitutes the
arguments into the body. Two dialects exist: Claude Code counts ``$N`` from 0 and knows
``${CLAUDE_SKILL_DIR}``; OpenCode counts from 1. Prose is protected where clients are known to
damage it: ``$0.06`` is a price, not an argument, and code (fenced blocks, inline spans) keeps
``$ARGUMENTS`` and ``$1`` as they are, since shell snippets use them. ``${SKILL_DIR}`` is replaced
everywhere: commands that need the skill directory sit in code blocks.

A skill handed to a model (an activation) has no arguments: only the directory placeholders are
replaced (:func:`expand_skill_dir`), in the dialect the body is written in (:func:`dialect_of`).

Pure and linear in the length of the body: one pass to find code, one regular-expression pass
(no backtracking over unbounded text) per piece.
"""

from __future__ import annotations

import os
import re
import shlex
from bisect import bisect_right
from collections.abc import Sequence
from typing import Literal

from ._args import coerce_choice, coerce_int, coerce_path, coerce_str
from ._errors import ErrorCode, SkillError, invalid_input
from ._model import SkillInfo

__all__ = [
    "DEFAULT_MAX_RENDERED_CHARS",
    "DIALECTS",
    "OPENCODE_SOURCE",
    "Dialect",
    "dialect_of",
    "expand_skill_dir",
    "render_skill",
    "split_arguments",
]

#: Most characters :func:`render_skill` and :func:`expand_skill_dir` build: a body full of
#: ``$0`` with a long argument, or of ``${SKILL_DIR}`` in a deep directory, would otherwise build
#: gigabytes before anything could refuse it (SPEC §30.6).
DEFAULT_MAX_RENDERED_CHARS = 16 * 1024 * 1024

Dialect = Literal["claude", "opencode"]
#: The dialects, in the order the documentation lists them.
DIALECTS: tuple[Dialect, ...] = ("claude", "opencode")

# In prose: an escaped dollar, $ARGUMENTS[N], $ARGUMENTS, $N (not a price such as $0.06), and the
# directory placeholders. In code only the directory placeholders.
_PROSE_RE = re.compile(
    r"\\\$"
    r"|\$ARGUMENTS\[(?P<index>\d+)\]"
    r"|\$ARGUMENTS(?![A-Za-z0-9_])"
    r"|\$(?P<number>\d++)(?!\.\d)"
    r"|\$\{(?P<dir>SKILL_DIR|CLAUDE_SKILL_DIR)\}"
)
_CODE_RE = re.compile(r"\$\{(?P<dir>SKILL_DIR|CLAUDE_SKILL_DIR)\}")
# At activation: the directory placeholders, and in prose the same escaped (``\${SKILL_DIR}``).
_DIR_PROSE_RE = re.compile(r"\\?\$\{(?P<dir>SKILL_DIR|CLAUDE_SKILL_DIR)\}")

# What expand_skill_dir adds to a body, as its too_large message says.
_DIRECTORY = "its skill directory"

#: The ``source`` of the roots only opencode reads (``.opencode/skills``,
#: ``~/.config/opencode/skills``): their bodies are in the ``opencode`` dialect.
OPENCODE_SOURCE = "opencode"
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})")
_BACKTICKS_RE = re.compile(r"`+")
_BLANK_LINE_RE = re.compile(r"\n[ \t]*\n")


def _too_long(max_chars: int, what: str = "its arguments") -> SkillError:
    return SkillError(
        ErrorCode.TOO_LARGE,
        f"the skill's text with {what} would be longer than {max_chars} characters",
        {"max_chars": max_chars},
    )


def split_arguments(arguments: str | Sequence[str]) -> list[str]:
    """Split arguments as a POSIX shell would (``shlex``); an unbalanced quote falls back to
    splitting on whitespace. A sequence of strings is taken as it is.

    Raises:
        SkillError: ``invalid_input`` ``{type}`` for anything else, or a sequence holding a
            non-``str``.
    """
    if isinstance(arguments, str):
        try:
            return shlex.split(arguments)
        except ValueError:  # "No closing quotation"
            return arguments.split()
    if isinstance(arguments, bytes | bytearray) or not isinstance(arguments, Sequence):
        raise invalid_input(
            f"arguments must be a str or a sequence of str, got {type(arguments).__name__}",
            {"type": type(arguments).__name__},
        )
    values = list(arguments)
    for value in values:
        if not isinstance(value, str):
            raise invalid_input(
                f"arguments must be strings, got {type(value).__name__}",
                {"type": type(value).__name__},
            )
    return values


def _pieces(body: str) -> list[tuple[str, bool]]:
    """Split ``body`` into ``(text, is_code)`` pieces: fenced code blocks, inline code spans.

    Fences follow CommonMark: a line of three or more backticks or tildes, indented by at most
    three spaces, closed by a line of the same character at least as long (or the end of the
    body). A code span opens with a run of backticks and closes with the next run of the same
    length within the paragraph; an unmatched run is plain text.
    """
    pieces: list[tuple[str, bool]] = []
    prose: list[str] = []
    fence: str | None = None
    code: list[str] = []
    for line in body.splitlines(keepends=True):
        if fence is None:
            match = _FENCE_RE.match(line)
            if match and not (match.group(1)[0] == "`" and "`" in line[match.end() :]):
                if prose:
                    pieces.extend(_spans("".join(prose)))
                    prose = []
                fence = match.group(1)
                code = [line]
            else:
                prose.append(line)
            continue
        code.append(line)
        match = _FENCE_RE.match(line)
        if (
            match
            and match.group(1)[0] == fence[0]
            and len(match.group(1)) >= len(fence)
            and not line[match.end() :].strip()
        ):
            pieces.append(("".join(code), True))
            fence, code = None, []
    if fence is not None:
        pieces.append(("".join(code), True))
    if prose:
        pieces.extend(_spans("".join(prose)))
    return pieces


def _spans(text: str) -> list[tuple[str, bool]]:
    """Split prose into text and inline code spans (CommonMark backtick runs)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(text)]
    if len(runs) < 2:
        return [(text, False)]
    blanks = [m.start() for m in _BLANK_LINE_RE.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    pieces: list[tuple[str, bool]] = []
    done = 0  # text before this offset is already in pieces
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        position = bisect_right(same, index)
        closer = same[position] if position < len(same) else None
        if closer is not None:
            close_start, close_end = runs[closer]
            # A span never crosses a blank line (the paragraph ends there).
            blank = bisect_right(blanks, start)
            if blank < len(blanks) and blanks[blank] < close_start:
                closer = None
        if closer is None:
            index += 1
            continue
        if start > done:
            pieces.append((text[done:start], False))
        pieces.append((text[start:close_end], True))
        done = close_end
        index = closer + 1
    if done < len(text):
        pieces.append((text[done:], False))
    return pieces


def render_skill(
    body: str,
    arguments: str | Sequence[str],
    *,
    skill_dir: str | os.PathLike[str],
    dialect: Dialect = "claude",
    max_chars: int = DEFAULT_MAX_RENDERED_CHARS,
) -> str:
    """Substitute a user-invoked skill's arguments into its body (SPEC §22.8).

    - ``$ARGUMENTS``: all arguments joined by one space (``""`` with none);
    - ``$ARGUMENTS[N]`` and ``$N``: argument N, counted from 0 (``claude``) or from 1
      (``opencode``); ``N`` is one or more digits not followed by ``.`` and a digit, so
      ``$0.06`` stays as it is;
    - ``${SKILL_DIR}`` (and ``${CLAUDE_SKILL_DIR}`` in the ``claude`` dialect): ``skill_dir``,
      everywhere, code included;
    - ``\\$`` gives ``$``;
    - inside fenced code blocks and inline code spans, ``$ARGUMENTS``, ``$N`` and ``\\$`` are
      left as they are;
    - a placeholder without a value (``$3`` with two arguments) is kept verbatim.

    Args:
        body: The skill's body.
        arguments: A string, split like a POSIX shell (``shlex``; an unbalanced quote falls
            back to whitespace), or a sequence of strings.
        skill_dir: The skill's directory, as it should appear in the text.
        dialect: ``"claude"`` or ``"opencode"``.
        max_chars: The most characters the result may hold (default 16 Mi).

    Returns:
        The body with the placeholders substituted.

    Raises:
        SkillError: ``invalid_input`` for a non-``str`` body or ``skill_dir``, bad
            ``arguments`` (see :func:`split_arguments`), another dialect (``{dialect}``) or a
            ``max_chars`` that is not a non-negative ``int``; ``too_large`` ``{max_chars}``
            when the result would hold more than ``max_chars`` characters, raised while it is
            built, before more than that is held (SPEC §30.6).
    """
    coerce_str(body, "body")
    dialect = coerce_choice(dialect, DIALECTS, "dialect")
    directory = coerce_path(skill_dir, "skill_dir")
    coerce_int(max_chars, "max_chars")
    values = split_arguments(arguments)
    joined = " ".join(values)
    first = 0 if dialect == "claude" else 1
    dirs = {"SKILL_DIR"} if dialect == "opencode" else {"SKILL_DIR", "CLAUDE_SKILL_DIR"}
    # The result's length is the body's plus what each substitution adds: counted as they are
    # made, so the substitution stops as soon as the result would pass the bound.
    size = [len(body)]

    def grown(text: str, replacement: str) -> str:
        size[0] += len(replacement) - len(text)
        if size[0] > max_chars:
            raise _too_long(max_chars)
        return replacement

    def prose(match: re.Match[str]) -> str:
        text = match.group()
        if text == "\\$":
            return "$"
        if match.group("dir") is not None:
            return grown(text, directory) if match.group("dir") in dirs else text
        digits = match.group("index") or match.group("number")
        if digits is None:
            return grown(text, joined)
        position = int(digits) - first if len(digits) < 8 else -1
        return grown(text, values[position]) if 0 <= position < len(values) else text

    def code(match: re.Match[str]) -> str:
        return grown(match.group(), directory) if match.group("dir") in dirs else match.group()

    if len(body) > max_chars:
        raise _too_long(max_chars)

    return "".join(
        _CODE_RE.sub(code, text) if is_code else _PROSE_RE.sub(prose, text)
        for text, is_code in _pieces(body)
    )


def dialect_of(info: SkillInfo) -> Dialect:
    """The dialect a skill's body is written in (SPEC §22.8, §29.4).

    ``"opencode"`` for a skill found in a folder only opencode reads (a root whose ``source`` is
    ``"opencode"``), where ``${CLAUDE_SKILL_DIR}`` means nothing; ``"claude"`` (a Claude-style
    body) for every other skill. Skills written for Claude Code use ``${CLAUDE_SKILL_DIR}`` for
    their directory (Claude Code 2.1.69 and later) and are installed in ``.claude/skills``, in
    plugins and in shared folders alike, so where a skill lies cannot tell more than that.
    """
    return "opencode" if info.source == OPENCODE_SOURCE else "claude"


def expand_skill_dir(
    body: str,
    skill_dir: str | os.PathLike[str],
    *,
    dialect: Dialect = "claude",
    max_chars: int = DEFAULT_MAX_RENDERED_CHARS,
) -> str:
    """Replace the skill-directory placeholders of a body, and nothing else (SPEC §29.4).

    What hosts do when they load a skill for a model: ``${SKILL_DIR}`` (and, in the ``claude``
    dialect, ``${CLAUDE_SKILL_DIR}``) becomes ``skill_dir`` everywhere, code included, as in
    :func:`render_skill`; in prose an escaped placeholder (``\\${SKILL_DIR}``) stays, without
    its backslash, as the placeholder itself. ``$ARGUMENTS``, ``$N`` and every other ``$`` are
    left as written (a model-invoked skill has no arguments).

    Args:
        body: The skill's body.
        skill_dir: The skill's directory, as it should appear in the text.
        dialect: ``"claude"`` or ``"opencode"`` (see :func:`dialect_of`).
        max_chars: The most characters the result may hold (default 16 Mi).

    Returns:
        The body with the directory placeholders replaced (``body`` itself when it has none).

    Raises:
        SkillError: ``invalid_input`` for a non-``str`` body or ``skill_dir``, another dialect
            (``{dialect}``) or a ``max_chars`` that is not a non-negative ``int``;
            ``too_large`` ``{max_chars}`` when the result would hold more than ``max_chars``
            characters, raised while it is built (SPEC §30.6).
    """
    coerce_str(body, "body")
    dialect = coerce_choice(dialect, DIALECTS, "dialect")
    directory = coerce_path(skill_dir, "skill_dir")
    coerce_int(max_chars, "max_chars")
    if len(body) > max_chars:
        raise _too_long(max_chars, _DIRECTORY)
    if "${" not in body:
        return body
    dirs = {"SKILL_DIR"} if dialect == "opencode" else {"SKILL_DIR", "CLAUDE_SKILL_DIR"}
    size = [len(body)]  # the result's length, counted as each substitution is made

    def grown(text: str) -> str:
        size[0] += len(directory) - len(text)
        if size[0] > max_chars:
            raise _too_long(max_chars, _DIRECTORY)
        return directory

    def prose(match: re.Match[str]) -> str:
        text = match.group()
        if match.group("dir") not in dirs:
            return text
        return text[1:] if text.startswith("\\") else grown(text)

    def code(match: re.Match[str]) -> str:
        return grown(match.group()) if match.group("dir") in dirs else match.group()

    return "".join(
        _CODE_RE.sub(code, text) if is_code else _DIR_PROSE_RE.sub(prose, text)
        for text, is_code in _pieces(body)
    )
