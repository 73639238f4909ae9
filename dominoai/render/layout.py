"""Where each tile of the line goes: one layout for the SVG and the text views.

The line is laid as on a table ("How to play Domino", "the line starts in the middle and
snakes across the table, turning at its edges"): tiles end to end, doubles
crosswise, a row that would pass the table's edge turns with one tile laid
across the turn, and goes back the other way. Coordinates are in *units*:
a tile is 2 units long and 1 unit wide; x grows to the right, y downwards;
(0, 0) is the centre of the *root* tile, which is the spinner (All Fives) or
base (Dominoball) once there is one, else the lead.

- Without a spinner the line has two arms: the left one folds upwards at
  the table's left edge, the right one downwards at its right edge, so the
  two never meet.
- With a spinner the four arms turn like a pinwheel, each into its own
  quarter: right folds up, up folds left, left folds down, down folds right.

The layout only places the tiles the events say were played (their order
and ends come from the public event list); it decides no rule.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Placement", "line_layout", "TABLE_WIDTH", "TABLE_HEIGHT"]

TABLE_WIDTH = 26.0   # units: the table's width (a tile is 2 units long)
TABLE_HEIGHT = 16.0  # units: the height the spinner's up and down arms may use


@dataclass(frozen=True)
class Placement:
    """One tile on the line.

    ``a`` and ``b`` are its two halves' pips, ``a`` at the centre
    ``(x - dx/2, y - dy/2)`` and ``b`` at ``(x + dx/2, y + dy/2)``: ``(x, y)``
    is the tile's centre in units, ``(dx, dy)`` the unit vector along its
    length (``(1, 0)`` lies horizontally, ``(0, 1)`` upright). ``arm`` is
    ``"root"``, ``"left"``, ``"right"``, ``"up"``, ``"down"`` or ``"lead"`` (the
    lead, when the spinner is the root and the lead lies on one of its
    arms); ``order`` the
    play it came from (0 = the lead); ``last`` marks the tile laid last.
    """

    tile: object
    a: int
    b: int
    x: float
    y: float
    dx: int
    dy: int
    arm: str
    order: int
    last: bool = False

    @property
    def box(self) -> tuple:
        """``(x0, y0, x1, y1)``: the rectangle it covers, in units."""
        hw = 1.0 if self.dx else 0.5
        hh = 1.0 if self.dy else 0.5
        return (self.x - hw, self.y - hh, self.x + hw, self.y + hh)


def _chains(events, spinner):
    """The line from the play events: the lead as ``(tile, left pip, right
    pip)`` and per end (0 left, 1 right, 2 up, 3 down) the tiles outwards as
    ``(tile, near pip, far pip, order)``. The up and down arms start from
    the spinner's pip."""
    lead = None
    chains = ([], [], [], [])
    sp = None if spinner is None else spinner.high
    ends = [None, None, sp, sp]
    order = 0
    for ev in events:
        if ev.kind != "play":
            continue
        t = ev.tile
        if lead is None:
            a, b = (t.low, t.high) if ev.end == 1 else (t.high, t.low)
            lead = (t, a, b)
            ends[0], ends[1] = a, b
        else:
            near = ends[ev.end]
            if near not in (t.high, t.low):  # not a legal line; draw it as written
                near = t.high
            far = t.low if near == t.high else t.high
            chains[ev.end].append((t, near, far, order))
            ends[ev.end] = far
        order += 1
    return lead, chains


def line_layout(events, spinner=None, width: float = TABLE_WIDTH,
                height: float = TABLE_HEIGHT) -> list:
    """Place the line of a hand: one :class:`Placement` per tile played.

    :param events: the hand's public events in order (``Event`` objects, as
        ``Hand.events`` or ``Observation.events`` give them); only the plays
        are used: the first is the lead (its ``end`` its orientation), each
        later one names the end it was laid on.
    :param spinner: the spinner/base :class:`~dominoai.tiles.Tile`, or None.
    :param width: the table's width in units (a tile is 2 units long).
    :param height: the room for the spinner's up and down arms, in units.
    :returns: placements in play order (the lead first); empty before the lead.
    """
    lead, chains = _chains(events, spinner)
    if lead is None:
        return []
    # the horizontal line, left to right, each as (tile, left pip, right pip, order, arm)
    row = [(t, far, near, o, "left") for t, near, far, o in reversed(chains[0])]
    row.append((lead[0], lead[1], lead[2], 0, "lead"))
    row += [(t, near, far, o, "right") for t, near, far, o in chains[1]]
    root_i = len(chains[0])
    if spinner is not None:
        root_i = next((i for i, e in enumerate(row) if e[0] == spinner), root_i)
    root = row[root_i]
    east = [(t, lp, rp, o) for t, lp, rp, o, _ in row[root_i + 1:]]
    west = [(t, rp, lp, o) for t, lp, rp, o, _ in reversed(row[:root_i])]
    arm_of = {e[3]: e[4] for e in row}
    arm_of[root[3]] = "root"
    out = []
    t, lp, rp, o, _ = root
    hw = width / 2.0
    if t.is_double:
        out.append(Placement(t, lp, rp, 0.0, 0.0, 0, 1, "root", o))
        e_start, w_start = 0.5, -0.5
    else:
        out.append(Placement(t, lp, rp, 0.0, 0.0, 1, 0, "root", o))
        e_start, w_start = 1.0, -1.0
    if spinner is None:
        out += _walk(east, (e_start, 0.0), (1, 0), (0, 1), -hw, hw, arm_of)
        out += _walk(west, (w_start, 0.0), (-1, 0), (0, -1), -hw, hw, arm_of)
    else:
        hh = height / 2.0
        # a row that comes back stops 1.5 units from the spinner's column,
        # clear of the doubles laid crosswise on the up and down arms
        out += _walk(east, (e_start, 0.0), (1, 0), (0, -1), 1.5, hw, arm_of)
        out += _walk(west, (w_start, 0.0), (-1, 0), (0, 1), -hw, -1.5, arm_of)
        up, down = chains[2], chains[3]
        arm_of.update({e[3]: "up" for e in up})
        arm_of.update({e[3]: "down" for e in down})
        out += _walk(up, (0.0, -1.0), (0, -1), (-1, 0), -hh, -1.5, arm_of)
        out += _walk(down, (0.0, 1.0), (0, 1), (1, 0), 1.5, hh, arm_of)
    out.sort(key=lambda p: p.order)
    if out:
        last = out[-1]
        out[-1] = Placement(last.tile, last.a, last.b, last.x, last.y, last.dx, last.dy,
                            last.arm, last.order, True)
    return out


def _walk(chain, start, d, f, lo, hi, arm_of):
    """Lay ``chain`` (tiles outwards: ``(tile, near, far, order)``) from
    ``start`` (the centre of the free edge it joins) in direction ``d``;
    a tile that would pass ``lo``/``hi`` (along ``d``'s axis, leaving room
    for the turn) turns the row towards ``f`` and the row comes back."""
    out = []
    px, py = start
    dx, dy = d
    fx, fy = f
    in_row = 0
    after_turn = False

    def along(x, y):  # signed coordinate along the current direction
        return x * dx + y * dy

    for t, near, far, o in chain:
        arm = arm_of.get(o, "")
        cross = t.is_double and not after_turn
        length = 1.0 if cross else 2.0
        limit = hi if (dx + dy) > 0 else -lo
        if in_row and along(px, py) + length > limit - 1.0 + 1e-9:
            # the turn: one tile across, its near half beside the row's end
            cx, cy = px + 0.5 * dx + 0.5 * fx, py + 0.5 * dy + 0.5 * fy
            out.append(Placement(t, near, far, cx, cy, fx, fy, arm, o))
            px, py = px + dx + 2 * fx, py + dy + 2 * fy
            dx, dy = -dx, -dy
            in_row = 0
            after_turn = True
            continue
        if cross:
            cx, cy = px + 0.5 * dx, py + 0.5 * dy
            # crosswise: the length runs along the fold direction
            out.append(Placement(t, near, far, cx, cy, abs(fx), abs(fy), arm, o))
        else:
            cx, cy = px + dx, py + dy
            out.append(Placement(t, near, far, cx, cy, dx, dy, arm, o))
        px, py = px + length * dx, py + length * dy
        in_row += 1
        after_turn = False
    return out
