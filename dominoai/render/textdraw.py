"""The position as text, for the terminal game (``dominoai.render.text``).

The line is drawn from the same layout as the SVG
(:func:`~dominoai.render.layout.line_layout`): 4 columns and 1 row per
layout unit. A tile lying along a row reads ``[ 6|4 ]``; one standing up
(a double laid crosswise, or the tile that turns a row) is ``[6]`` over
``[4]``; the tile laid last has braces, ``{ 6|4 }`` or ``{6}``.
"""

from __future__ import annotations

import math

from .layout import TABLE_WIDTH, TABLE_HEIGHT, line_layout
from .position import Position, position_of
from .svgdraw import _header, _seat_label

__all__ = ["text", "text_of_position", "line_text"]

COLS_PER_UNIT = 4


def line_text(placements) -> list:
    """The line's rows of characters (a list of ``str``, trailing blanks
    removed) for :func:`~dominoai.render.layout.line_layout`'s placements."""
    if not placements:
        return ["(no tile on the line yet)"]
    cells = {}
    x0 = min(p.box[0] for p in placements)
    y0 = min(p.box[1] for p in placements)
    for p in placements:
        bx0, by0, bx1, by1 = p.box
        c = int(round((bx0 - x0) * COLS_PER_UNIT))
        r = int(math.floor(by0 - y0 + 0.5))
        lo, hi = ("{", "}") if p.last else ("[", "]")
        if p.dy == 0:  # lying along the row
            a, b = (p.a, p.b) if p.dx > 0 else (p.b, p.a)
            s = f"{lo} {a}|{b} {hi}"
            for j, ch in enumerate(s):
                cells[(r, c + j)] = ch
        else:
            a, b = (p.a, p.b) if p.dy > 0 else (p.b, p.a)
            for k, v in enumerate((a, b)):
                for j, ch in enumerate(f"{lo}{v}{hi}"):
                    cells[(r + k, c + j)] = ch
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    grid = [[" "] * cols for _ in range(rows)]
    for (r, c), ch in cells.items():
        grid[r][c] = ch
    return ["".join(g).rstrip() for g in grid]


def text_of_position(pos: Position, width: float = TABLE_WIDTH) -> str:
    """The text picture of a :class:`Position` (lines joined by ``\\n``)."""
    out = list(_header(pos)) + [""]
    n = pos.players
    order = [i for i in range(1, n)] + [0]  # the others first, the bottom seat last
    line = line_text(line_layout(pos.events, pos.spinner, width, TABLE_HEIGHT))
    for i in order:
        if i == 0:
            out.append("")
            out += ["    " + s for s in line]
            out.append("")
        tiles = pos.hands[i]
        shown = " ".join(f"{t}" for t in tiles) if tiles is not None else "## " * pos.sizes[i]
        out.append(f"{_seat_label(pos, i)}: {shown.strip()}")
    return "\n".join(out)


def text(x, perspective: int | None = None) -> str:
    """The position as text: header, each seat's hand (face up, or ``##``
    per face-down tile) and the line laid as on the table.

    :param x: a ``Hand``, a ``Match`` (its current hand), an ``Observation``
        or a :class:`~dominoai.render.position.Position`.
    :param perspective: as :func:`~dominoai.render.svg`.
    :returns: ``str``, lines joined by ``\\n`` (no trailing newline).
    :raises ValueError, TypeError: as :func:`~dominoai.render.position.position_of`.
    """
    return text_of_position(position_of(x, perspective))
