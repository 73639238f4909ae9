"""Moves and events: the small immutable values of the facade.

A :class:`Move` is a choice (lay a tile at an end, or Dominoball's
replacement) that parses and prints ``"6:4 right"``; an :class:`Event` is one
public event of a hand (a play, a draw, a pass, a replacement), built from
the engine's event log by :func:`events_from_rows`. :class:`IllegalMoveError`
is what a move the rules refuse raises, and ``END_NAMES`` / :func:`parse_end`
name the ends (docs/conventions.md). They depend on the tiles and the engine
layout only, so both :mod:`dominoai.game` and :mod:`dominoai.observation` use
them (and re-export them) without importing each other.

>>> Move.parse("6:4 right").code, str(Move.from_code(Move.parse("6:4 right").code))
(101, '6:4 right')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import layout as L
from .tiles import N_PIPS, N_TILES, Tile, parse_tile

__all__ = ["END_NAMES", "Move", "Event", "IllegalMoveError", "parse_end", "events_from_rows"]

END_NAMES = ("left", "right", "up", "down")
_EV_KIND = {L.EV_PLAY: "play", L.EV_DRAW: "draw", L.EV_PASS: "pass", L.EV_REPLACE: "replace"}


_TILES = tuple(Tile(i) for i in range(N_TILES))


class IllegalMoveError(ValueError):
    """A move that the rules do not allow now. The hand is left unchanged."""


def parse_end(end) -> int:
    """End index from ``0..3``, a name (``left``, ``right``, ``up``, ``down``) or
    its first letter.

    :raises ValueError: anything else.
    """
    if isinstance(end, (int, np.integer)) and not isinstance(end, bool) and 0 <= end < 4:
        return int(end)
    if isinstance(end, str):
        e = end.strip().lower()
        if e in END_NAMES:
            return END_NAMES.index(e)
        if e in ("l", "r", "u", "d"):
            return "lrud".index(e)
    raise ValueError(f"unknown end {end!r}; ends are left, right, up, down (or l, r, u, d)")


@dataclass(frozen=True)
class Move:
    """A choice: lay ``tile`` at ``end`` (0 left, 1 right, 2 up, 3 down), or the
    Dominoball replacement (``replace=True``, no tile). ``end=None`` means
    "the only end it fits" and is resolved by :meth:`Hand.play`.

    >>> Move.parse("6:4 right"), str(Move.parse("4:6")), str(Move.replacement())
    (Move(tile=Tile('6:4'), end=1, replace=False), '6:4', 'replace')
    """

    tile: Tile | None
    end: int | None = None
    replace: bool = False

    def __post_init__(self):
        if self.replace:
            if self.tile is not None or self.end is not None:
                raise ValueError("a replacement move has no tile and no end")
            return
        if not isinstance(self.tile, Tile):
            object.__setattr__(self, "tile", Tile.parse(self.tile))
        if self.end is not None:
            object.__setattr__(self, "end", parse_end(self.end))

    @classmethod
    def replacement(cls) -> "Move":
        return cls(None, None, True)

    @classmethod
    def parse(cls, text: "str | Move") -> "Move":
        """From ``"6:4"``, ``"6:4 left"``, ``"6:4@left"`` or ``"replace"``.

        :raises ValueError: not a tile, or an unknown end.
        """
        if isinstance(text, Move):
            return text
        s = str(text).strip().lower()
        if s in ("replace", "replacement", "r"):
            return cls.replacement()
        parts = s.replace("@", " ").split()
        if not parts or len(parts) > 2:
            raise ValueError(f"{text!r} is not a move; write a tile like '6:4', optionally with an end")
        tile = Tile(parse_tile(parts[0]))
        end = parse_end(parts[1]) if len(parts) == 2 else None
        return cls(tile, end)

    @classmethod
    def from_code(cls, code: int) -> "Move":
        """From the kernel's move code (``tile*4 + end`` or ``MOVE_REPLACE``)."""
        return _MOVES[int(code)]

    @property
    def code(self) -> int:
        """The kernel's move code; the end must be known."""
        if self.replace:
            return L.MOVE_REPLACE
        if self.end is None:
            raise ValueError(f"move {self} has no end")
        return self.tile.id * 4 + self.end

    def __str__(self) -> str:
        if self.replace:
            return "replace"
        if self.end is None:
            return str(self.tile)
        return f"{self.tile} {END_NAMES[self.end]}"


@dataclass(frozen=True)
class Event:
    """One public event of a hand: ``kind`` is ``play`` (seat, tile, end),
    ``draw`` (seat, count: tiles drawn, which ones is hidden), ``pass`` or
    ``replace`` (one tile drawn for replacement, hidden). ``on``: for a draw or
    a pass, the pips the open ends showed (the seat held none of them).
    ``lead``: this play is the hand's first tile; its ``end`` is then the
    orientation (0: higher pip on the left, 1: lower pip on the left;
    docs/conventions.md), not an end."""

    kind: str
    seat: int
    tile: Tile | None = None
    end: int | None = None
    count: int = 0
    on: tuple = ()
    lead: bool = False

    def __str__(self) -> str:
        if self.kind == "play":
            if self.lead:
                t = self.tile
                shown = f"{t.low}:{t.high}" if self.end == 1 else f"{t.high}:{t.low}"
                return f"seat {self.seat} leads {shown}"
            return f"seat {self.seat} plays {self.tile} {END_NAMES[self.end]}"
        on = "/".join(str(p) for p in self.on)
        if self.kind == "draw":
            return f"seat {self.seat} draws {self.count}" + (f" (no {on})" if on else "")
        if self.kind == "replace":
            return f"seat {self.seat} draws 1 for replacement"
        return f"seat {self.seat} passes" + (f" (no {on})" if on else "")


_MOVES = tuple(Move(_TILES[c >> 2], c & 3) for c in range(L.MOVE_REPLACE)) + (Move.replacement(),)


def events_from_rows(rows: np.ndarray) -> list[Event]:
    """Events from the engine's event log rows ``(kind, seat, a, b)``
    (``int64``, shape ``(n, 4)``; see ``engine.layout``) of one hand from its
    start: the first play is the lead."""
    out = []
    led = False
    for kind, seat, a, b in rows.tolist():
        k = _EV_KIND[kind]
        if k == "play":
            out.append(Event(k, seat, _TILES[a], b, 1, (), not led))
            led = True
        elif k == "replace":
            out.append(Event(k, seat, None, None, 1))
        else:
            out.append(Event(k, seat, None, None, a, tuple(p for p in range(N_PIPS) if b >> p & 1)))
    return out
