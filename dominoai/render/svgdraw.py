"""The SVG picture of a position (``dominoai.render.svg``).

One picture: a header (variant, hand, the seat to play, scores and target,
boneyard, the count of the ends), the table with the line as
:func:`~dominoai.render.layout.line_layout` places it (the last tile
outlined in gold), and each seat's hand around the table: seat 0 at the
bottom, then clockwise (two players: seat 1 at the top; four: 1 left,
2 top, 3 right), face up, or face down where the view hides it. Each seat's
label gives its tiles in hand and the pips it has publicly shown it lacks.

Elements carry classes for tools and tests: ``tile line`` (a tile on the
line, with ``data-tile`` and ``data-order``), ``last``, ``tile hand``
(a face-up tile in a hand), ``tile back`` (face down), ``seat`` labels
with ``data-seat``.
"""

from __future__ import annotations

import math
from html import escape

from .layout import TABLE_HEIGHT, TABLE_WIDTH, line_layout
from .position import Position, position_of

__all__ = ["svg", "svg_of_position", "PX_PER_UNIT", "STYLE", "DEFS"]

PX_PER_UNIT = 22  # pixels per layout unit (a tile is 2 units long)

_O = 0.24
_PIPS = {
    0: (),
    1: ((0, 0),),
    2: ((-_O, -_O), (_O, _O)),
    3: ((-_O, -_O), (0, 0), (_O, _O)),
    4: ((-_O, -_O), (_O, -_O), (-_O, _O), (_O, _O)),
    5: ((-_O, -_O), (_O, -_O), (0, 0), (-_O, _O), (_O, _O)),
    6: ((-_O, -_O), (-_O, 0), (-_O, _O), (_O, -_O), (_O, 0), (_O, _O)),
}

# the pip faces (one per number, in a 1 x 1 half centred on 0) and a tile's
# blank face (2 x 1, centred on 0), referenced by every tile drawn
DEFS = ("<defs>" + "".join(
    f'<g id="dai-p{n}" fill="#1b1b1b">' + "".join(f'<circle cx="{x}" cy="{y}" r="0.085"/>' for x, y in pts)
    + "</g>" for n, pts in _PIPS.items())
    + '<g id="dai-face"><rect x="-1" y="-0.5" width="2" height="1" rx="0.14" fill="#fbf8ef" stroke="#333" '
      'stroke-width="0.05"/><line x1="0" y1="-0.4" x2="0" y2="0.4" stroke="#555" stroke-width="0.04"/></g>'
    + "</defs>")

STYLE = ("<style>"
         ".dai text{font-family:sans-serif;fill:#f4f1e8}"
         ".dai .back rect{fill:#7a2e2e;stroke:#2b1010;stroke-width:0.05}"
         "</style>")

_MARK = ('<rect x="-1" y="-0.5" width="2" height="1" rx="0.14" fill="none" stroke="#e0a800" '
         'stroke-width="0.14"/>')


def _f(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _tile(x, y, dx, dy, a, b, cls, attrs="") -> str:
    """A tile face up at centre (x, y), its ``a`` half towards ``-(dx, dy)``;
    a ``last`` tile is outlined in gold."""
    ang = math.degrees(math.atan2(dy, dx))
    mark = _MARK if "last" in cls.split() else ""
    return (f'<g class="{cls}"{attrs} transform="translate({_f(x)} {_f(y)}) rotate({_f(ang)})">'
            f'<use href="#dai-face"/><use href="#dai-p{a}" x="-0.5"/><use href="#dai-p{b}" x="0.5"/>'
            f"{mark}</g>")


def _back(x, y, upright: bool) -> str:
    w, h = (1, 2) if upright else (2, 1)
    return (f'<g class="tile back"><rect x="{_f(x - w / 2)}" y="{_f(y - h / 2)}" width="{w}" height="{h}" '
            f'rx="0.14"/></g>')


def _text(x, y, s, size=0.6, anchor="start", cls="", attrs="", bold=False) -> str:
    c = f' class="{cls}"' if cls else ""
    w = ' font-weight="bold"' if bold else ""
    return (f'<text{c}{attrs} x="{_f(x)}" y="{_f(y)}" font-size="{size}" text-anchor="{anchor}"{w}>'
            f"{escape(s)}</text>")


def _side_word(pos: Position) -> str:
    r = pos.rules
    if r.partnerships:
        return "pairs (0+2, 1+3)"
    return "seats"


def _header(pos: Position) -> str:
    r = pos.rules
    if pos.status:
        state = f"hand over: {pos.status}"
    elif pos.to_move is not None:
        state = f"seat {pos.to_move} to play"
    else:
        state = ""
    sc = " – ".join(str(s) for s in pos.scores)
    unit = "recorded" if r.hand_scoring == "losers_record" else \
        "strikes" if r.hand_scoring == "strikes" else "points"
    first = [f"{r.preset}, {r.players} players", f"hand {pos.hand_no}", state]
    second = [f"score {sc} {unit} ({_side_word(pos)}), target {pos.target}"]
    if r.drawing or r.max_replacements:
        second.append(f"boneyard {pos.boneyard}")
    if r.end_scoring != "none":
        second.append(f"ends count {pos.count}")
    return " · ".join(p for p in first if p), " · ".join(second)


def _seat_places(n: int) -> list:
    return {2: ["bottom", "top"], 3: ["bottom", "left", "top"],
            4: ["bottom", "left", "top", "right"]}.get(n, ["bottom", "left", "top", "right"][:n])


def _seat_label(pos: Position, i: int) -> str:
    s = f"seat {i}"
    if pos.rules.partnerships:
        s += f" (pair {i % 2})"
    s += f" · {pos.sizes[i]} tile{'s' if pos.sizes[i] != 1 else ''}"
    if pos.voids[i]:
        s += " · no " + "/".join(str(p) for p in pos.voids[i])
    if pos.to_move == i:
        s = "▶ " + s
    return s


def svg_of_position(pos: Position, width: float = TABLE_WIDTH, standalone: bool = True) -> str:
    """The SVG (a complete ``<svg>`` element, as ``str``) of a :class:`Position`.
    ``width``: the table's width in layout units (a tile is 2 units long).
    ``standalone=False`` leaves out the style and the pip definitions
    (``STYLE`` and ``DEFS``), for a page that holds them once."""
    places = line_layout(pos.events, pos.spinner, width, TABLE_HEIGHT)
    n = pos.players
    where = _seat_places(n)
    side = 4.0 if ("left" in where or "right" in where) else 0.0
    # the line's extent, centred on the table
    if places:
        x0 = min(p.box[0] for p in places)
        y0 = min(p.box[1] for p in places)
        x1 = max(p.box[2] for p in places)
        y1 = max(p.box[3] for p in places)
    else:
        x0 = y0 = x1 = y1 = 0.0
    # the table is centred on the root tile (the line starts in the middle)
    tw = max(width + 2.0, 2 * max(-x0, x1) + 2.0)
    side_need = max(pos.sizes) * 1.2 + 3.0 if side else 0.0
    th = max(8.0, 2 * max(-y0, y1) + 2.0, side_need)
    head = 2.0
    band = 3.2
    W = side * 2 + tw
    H = head + band * 2 + th
    tx0, ty0 = side, head + band
    ox = tx0 + tw / 2
    oy = ty0 + th / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="dai" viewBox="0 0 {_f(W)} {_f(H)}" '
           f'width="{round(W * PX_PER_UNIT)}" height="{round(H * PX_PER_UNIT)}">',
           STYLE if standalone else "", DEFS if standalone else "",
           f'<rect x="0" y="0" width="{_f(W)}" height="{_f(H)}" fill="#1d3b2a"/>',
           f'<rect x="{_f(tx0)}" y="{_f(ty0)}" width="{_f(tw)}" height="{_f(th)}" rx="0.4" fill="#2f6b45"/>',
           _text(0.4, 0.85, _header(pos)[0], 0.62, cls="header", bold=True),
           _text(0.4, 1.65, _header(pos)[1], 0.55, cls="header")]
    for p in places:
        cls = "tile line" + (" last" if p.last else "")
        attrs = f' data-tile="{p.tile}" data-order="{p.order}" data-arm="{p.arm}"'
        out.append(_tile(ox + p.x, oy + p.y, p.dx, p.dy, p.a, p.b, cls, attrs))
    if not places:
        out.append(_text(tx0 + tw / 2, ty0 + th / 2, "no tile on the line yet", 0.6, "middle"))
    for i in range(n):
        out.append(_hand(pos, i, where[i], W, H, head, band, side, ty0, th))
    out.append("</svg>")
    return "".join(out)


def _hand(pos, i, place, W, H, head, band, side, ty0, th) -> str:
    tiles = pos.hands[i]
    k = pos.sizes[i]
    hi = pos.to_move == i
    lab_cls = "seat" + (" to-move" if hi else "")
    lab_attrs = f' data-seat="{i}"' + (' fill="#ffd54a"' if hi else "")
    parts = []
    if place in ("bottom", "top"):
        if place == "bottom":
            y_lab, y_t = ty0 + th + 0.75, ty0 + th + 1.95
        else:
            y_lab, y_t = head + 0.55, head + 1.8
        span = k * 1.2
        xs = W / 2 - span / 2 + 0.6
        parts.append(_text(W / 2, y_lab, _seat_label(pos, i), 0.55, "middle", lab_cls, lab_attrs))
        for j in range(k):
            x = xs + j * 1.2
            if tiles is None:
                parts.append(_back(x, y_t, True))
            else:
                t = tiles[j]
                parts.append(_tile(x, y_t, 0, 1, t.high, t.low, "tile hand", f' data-tile="{t}"'))
    else:
        xc = side / 2 if place == "left" else W - side / 2
        head_s = ("▶ " if hi else "") + f"seat {i}" + (f" (pair {i % 2})" if pos.rules.partnerships else "")
        parts.append(_text(xc, ty0 + 0.6, head_s, 0.5, "middle", lab_cls, lab_attrs))
        parts.append(_text(xc, ty0 + 1.2, f"{k} tile{'s' if k != 1 else ''}", 0.45, "middle"))
        if pos.voids[i]:
            parts.append(_text(xc, ty0 + 1.8, "no " + "/".join(str(p) for p in pos.voids[i]), 0.45, "middle"))
        for j in range(k):
            y = ty0 + 2.8 + j * 1.2
            if tiles is None:
                parts.append(_back(xc, y, False))
            else:
                t = tiles[j]
                parts.append(_tile(xc, y, 1, 0, t.high, t.low, "tile hand", f' data-tile="{t}"'))
    return "".join(parts)


def svg(x, perspective: int | None = None) -> str:
    """The picture of a position as SVG text (one ``<svg>`` element).

    :param x: a ``Hand``, a ``Match`` (its current hand), an
        ``Observation`` (only its own seat's tiles face up) or a
        :class:`~dominoai.render.position.Position`.
    :param perspective: the seat whose tiles are face up (the others face
        down); None shows every hand face up.
    :returns: ``str``, a standalone SVG document's root element; sizes in
        pixels (``PX_PER_UNIT`` per layout unit; a tile is 44 × 22 px).
    :raises ValueError, TypeError: as :func:`~dominoai.render.position.position_of`.
    """
    return svg_of_position(position_of(x, perspective))
