"""Terminal output of the command line: the table layout and the printing of rich renderables
(SPEC §21.12).

The layout (:func:`columns`) is pure: rows in, lines out, at a width given. Every fixed column
keeps its cells whole at any width; the last column flexes, moves under its row, or folds. Only
:func:`print_out` and :func:`terminal_width` touch the terminal. ``rich`` loads with the first
table or text printed, never for ``--json`` output (SPEC §26).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from ._app import safe

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text as RichText

__all__ = [
    "columns",
    "console",
    "ellipsis",
    "fold",
    "print_out",
    "terminal_width",
    "text",
]


def console() -> Console:
    """A console on the current stdout; no wrapping or highlighting when not a terminal."""
    from rich.console import Console

    out = sys.stdout
    tty = out.isatty()
    return Console(
        file=out,
        highlight=False,
        soft_wrap=not tty,
        width=None if tty else 400,
    )


def print_out(*renderables: Any) -> None:
    """Print rich renderables to stdout without the trailing padding of table cells."""
    from rich.text import Text

    out = console()
    with out.capture() as capture:
        for renderable in renderables:
            # Lines laid out by columns() are never wrapped or cropped by rich (SPEC §21.12).
            out.print(renderable, soft_wrap=isinstance(renderable, Text) or None)
    lines = capture.get().split("\n")
    click.echo("\n".join(line.rstrip() for line in lines), nl=False)


def text(value: object) -> RichText:
    """``value`` as one line of text, safe to print (``None`` as empty)."""
    from rich.text import Text

    return Text(safe("" if value is None else str(value)))


def terminal_width() -> int | None:
    """The terminal's width in columns, or ``None`` when stdout is not a terminal."""
    if not sys.stdout.isatty():
        return None
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


#: Below this many columns a flexible cell (a description, a note) goes on its own line.
_MIN_FLEX = 24


_GAP = "  "


def columns(
    headers: list[str],
    rows: list[list[str]],
    *,
    width: int | None,
    styles: list[str] | None = None,
    cut: bool = True,
    movable: int | None = None,
    hang: bool = False,
) -> list[RichText]:
    """Lay out a table whose last column is flexible (SPEC §21.12).

    Every other column is as wide as its widest cell and never cut, so names and paths stay
    whole at any width. The last column takes what is left of ``width``. When fewer than
    :data:`_MIN_FLEX` columns are left, it goes on a second line under its row, indented by
    four; when even the other columns do not fit, those from index ``movable`` on move to that
    second line too (aligned there), so every column still shows; when the columns before
    ``movable`` do not fit either (a 64-character name), every column but the first moves. When
    the moved columns do not fit on one line, each goes on a line of its own, folded at the
    width; a first cell wider than the terminal is folded too: no line is wider than ``width``
    and no name or path loses a character. With ``cut`` the flexible text
    is shortened with an ellipsis to fit (descriptions); without, it is shown whole, wrapped at
    the terminal's width (notes that hold paths); with ``hang`` too, a flexible text that fits
    its column but for its length is folded in place instead, its next lines starting under
    the column (lists of names). With ``width=None`` (not a terminal) nothing is cut or moved.
    Cells are shown through ``safe`` (control characters escaped); ``styles``
    colours the first cell of each row.
    """
    from rich.cells import cell_len, set_cell_size
    from rich.text import Text

    table = [[safe(c) for c in row] for row in [headers, *rows]]
    fixed = len(headers) - 1
    widths = [max(cell_len(r[i]) for r in table) for i in range(fixed)]
    gap = len(_GAP)
    keep = fixed
    if width is not None:
        first = movable if movable is not None else fixed
        while keep > max(first, 1) and sum(widths[:keep]) + gap * (keep - 1) > width:
            keep -= 1
        while keep > 1 and sum(widths[:keep]) + gap * (keep - 1) > width:
            keep -= 1  # the preferred columns alone are too wide: all but the first move
    room = None if width is None else width - sum(widths[:keep]) - gap * keep
    stacked = keep < fixed or (room is not None and room < _MIN_FLEX)
    moved_width = sum(widths[keep:fixed]) + gap * (fixed - keep)
    if width is not None and stacked and keep < fixed and 4 + moved_width + 8 > width:
        return _records(table, keep, width, styles, cut)
    out: list[Text] = []
    for n, row in enumerate(table):
        head = n == 0
        if width is not None and keep == 1 and cell_len(row[0]) > width:
            style = "bold" if head else (styles[n - 1] if styles else "")
            pieces = fold(row[0], width)
            out.extend(Text(piece, style=style) for piece in pieces[:-1])
            row = [pieces[-1], *row[1:]]
        line = Text(no_wrap=True, overflow="ignore")
        for i in range(keep):
            style = "bold" if head else (styles[n - 1] if styles and i == 0 else "")
            line.append(set_cell_size(row[i], widths[i]), style=style)
            line.append(_GAP)
        flex = row[fixed]
        if hang and not cut and not head and not stacked and room is not None:
            pieces = fold(flex, room)
            line.append(pieces[0])
            out.append(line)
            indent = " " * (sum(widths[:keep]) + gap * keep)  # where the column starts
            out.extend(Text(indent + piece) for piece in pieces[1:])
            continue
        inline = not stacked and (cut or room is None or cell_len(flex) <= room)
        if inline:
            if room is not None:
                flex = ellipsis(flex, room)
            line.append(flex, style="bold" if head else "")
            out.append(line)
            continue
        line.rstrip()
        out.append(line)
        assert width is not None
        second = Text("    ", style="bold" if head else "")
        for i in range(keep, fixed):
            second.append(set_cell_size(row[i], widths[i]) + _GAP)
        avail = max(width - 4 - (moved_width if stacked else 0), 8)
        if keep == fixed and not head and not flex:
            continue
        if cut or head:
            second.append(ellipsis(flex, avail))
            second.rstrip()
            out.append(second)
        else:
            parts = fold(flex, avail)
            second.append(parts[0])
            out.append(second)
            pad = " " * (4 + (moved_width if stacked else 0))
            out.extend(Text(pad + part) for part in parts[1:])
    return out


def _records(
    table: list[list[str]], keep: int, width: int, styles: list[str] | None, cut: bool
) -> list[RichText]:
    """The layout of :func:`_columns` when even the moved columns overflow one line: the first
    ``keep`` cells on the row's line, then each other non-empty cell on a line of its own,
    indented by four and folded at ``width`` (a flexible cell with ``cut`` is shortened)."""
    from rich.cells import cell_len, set_cell_size
    from rich.text import Text

    widths = [max(cell_len(r[i]) for r in table) for i in range(keep)]
    last = len(table[0]) - 1
    out: list[Text] = []
    for n, row in enumerate(table):
        head = n == 0
        style = "bold" if head else (styles[n - 1] if styles else "")
        first = _GAP.join(set_cell_size(row[i], widths[i]) for i in range(keep)).rstrip()
        pieces = fold(first, width)
        out.append(Text(pieces[0], style=style))
        out.extend(Text(piece, style=style) for piece in pieces[1:])
        for i in range(keep, last + 1):
            cell = row[i]
            if not cell:
                continue
            if cut and i == last and not head:
                out.append(Text("    " + ellipsis(cell, width - 4)))
                continue
            out.extend(
                Text("    " + piece, style="bold" if head else "")
                for piece in fold(cell, width - 4)
            )
    return out


def fold(text: str, room: int) -> list[str]:
    """``text`` in lines of at most ``room`` cells, broken at spaces where it can be."""
    from rich.cells import cell_len

    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if cell_len(candidate) <= room:
            current = candidate
            continue
        if current:
            lines.append(current)
        while cell_len(word) > room:  # a path longer than the line: folded, nothing dropped
            cut = 0
            while cell_len(word[: cut + 1]) <= room:
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if current or not lines:
        lines.append(current)
    return lines


def ellipsis(text: str, room: int) -> str:
    """``text`` cut to ``room`` terminal cells with a final ``…`` when it is longer."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= room:
        return text
    return set_cell_size(text, max(room - 1, 0)) + "…"
