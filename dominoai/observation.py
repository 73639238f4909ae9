"""Observation: everything one seat may know, and nothing else.

A bot is given an :class:`Observation` (an information set), never the
state. It holds the seat's own tiles, the line, every seat's hand size, the
boneyard size, scores and target, the rules, and the public event history of
the hand (plays with seat, tile and end; draws with seat and count only;
passes; replacements), plus the public deductions every player can make:
the pips each seat is known not to hold *now* and the tiles unseen from the
seat. Hidden tiles (other hands, the boneyard and its order) are not in it,
so two states that differ only there give equal observations (docs/rules.md,
"What every preset shares"; docs/concepts.md).

Time-aware voids (drawing presets): a seat that passed or started drawing on
open pips V holds none of V at that moment, and neither do the tiles it drew
in that same draw before the one that fit. Tiles it draws in a later turn
are not covered: a draw that kept new tiles resets the seat's void to the
pips of that draw; a replacement (Dominoball) resets it to nothing. The
tile a seat has just drawn and must play at once is not covered.

Compact form (``Observation.array``, ``int64``, shape ``(O_SIZE,)``):

==============  ===========================================================
``O_SEAT``      the observing seat
``O_HAND``      its tiles (mask)
``O_LINE``      tiles on the line (mask)
``O_END_PIP+k`` open pip of end k (0 left, 1 right, 2 up, 3 down), -1 closed
``O_END_KIND+k`` 0 plain, 1 double, 2 unplayed spinner side
``O_CAND+k``    spinner/base candidate double at end k < 2, -1
``O_SPIN``      0 none, 1 spinner chosen, 2 open; ``O_SPIN_TILE`` its tile
``O_LEAD_TILE`` the lead, -1; ``O_NPLAYED`` tiles on the line
``O_MUST``      tile the seat to move must play, -1 (only if it is this seat)
``O_CUR``       seat to move, -1 when the hand is over; ``O_LEADER``
``O_SIZES+i``   tiles in seat i's hand
``O_BONE``      tiles in the boneyard
``O_SCORE+s``   match score of side s before this hand; ``O_POINTS+s`` made in it
``O_VOID+i``    pips seat i is known not to hold now (bit p = pip p)
``O_UNSEEN``    tiles this seat has not seen (mask): other hands + boneyard
``O_REPL+i``    replacements seat i has used this match
``O_HAND_NO``   hands started in the match (1 in the first)
``O_CARRY``     Kozel eggs carried; ``O_STATUS`` 0 playing, 1 domino, 2 blocked, 3 cut
==============  ===========================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .engine import kernels as K
from .engine import layout as L
from .moves import END_NAMES, Event, Move, events_from_rows
from .render import Position, svg
from .rules import Rules
from .tiles import N_PIPS, Tile, TileSet

if TYPE_CHECKING:  # game.py imports this module; no import back at run time
    from .game import Hand

__all__ = ["Observation", "observe"]

from .engine.observe import (  # noqa: E402,F401  (the layout, re-exported)
    O_SEAT, O_HAND, O_LINE, O_END_PIP, O_END_KIND, O_CAND, O_SPIN, O_SPIN_TILE, O_LEAD_TILE, O_NPLAYED, O_MUST, O_CUR, O_LEADER, O_SIZES, O_BONE, O_SCORE, O_POINTS, O_VOID, O_UNSEEN, O_REPL, O_HAND_NO, O_CARRY, O_STATUS, O_SIZE,
    observe_into, state_from_observation)

#: a hand's status (``O_STATUS``) in the words of a picture
_STATUS_WORDS = {L.ST_PLAYING: "", L.ST_DOMINO: "domino", L.ST_BLOCKED: "blocked", L.ST_CUT: "cut short"}


class Observation:
    """What seat ``seat`` may know about a hand (see the module docstring).

    Immutable; equal when the rules, the compact array and the public event
    log are equal. Build it with :func:`observe` or :meth:`Hand.observe`.
    """

    __slots__ = ("rules", "_a", "_ev", "_rv")

    def __init__(self, rules: Rules, array: np.ndarray, events: np.ndarray, rv: np.ndarray | None = None):
        a = np.array(array, np.int64)
        e = np.array(events, np.int64).reshape(-1, 4)
        a.setflags(write=False)
        e.setflags(write=False)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "_a", a)
        object.__setattr__(self, "_ev", e)
        object.__setattr__(self, "_rv", rules.vector() if rv is None else rv)

    def __setattr__(self, name, value):
        raise AttributeError("Observation is immutable")

    def __eq__(self, other) -> bool:
        return (isinstance(other, Observation) and self.rules == other.rules
                and np.array_equal(self._a, other._a) and np.array_equal(self._ev, other._ev))

    def __hash__(self) -> int:
        return hash((self._a.tobytes(), self._ev.tobytes()))

    # -- compact forms
    @property
    def array(self) -> np.ndarray:
        """The compact form: read-only ``int64`` array of shape ``(O_SIZE,)``."""
        return self._a

    @property
    def event_array(self) -> np.ndarray:
        """The public event log: read-only ``int64`` array of shape ``(n, 4)``,
        rows ``(kind, seat, tile|count, end|pips)`` (see engine.layout)."""
        return self._ev

    @property
    def rules_vector(self) -> np.ndarray:
        """The rules as the kernels take them: ``int64``, shape ``(R_SIZE,)``
        (:meth:`Rules.vector`; shared, do not write to it)."""
        return self._rv

    def engine_state(self) -> np.ndarray:
        """An engine state (``int64``, ``(S_SIZE,)``) holding only what this seat
        knows: its own tiles, the line, counts. Other hands are empty and the
        boneyard holds unknown (-1) tiles; enough for legal moves and for
        scoring a move on the line, never for playing on."""
        st = np.zeros(L.S_SIZE, np.int64)
        # a writable copy: the kernels are compiled for writable arrays only
        # (a read-only one would compile them once more)
        state_from_observation(self._a.copy(), self.rules.players, st)
        return st

    # -- the seat and its choices
    @property
    def seat(self) -> int:
        return int(self._a[O_SEAT])

    @property
    def to_move(self) -> int | None:
        """The seat to decide now (None once the hand is over)."""
        c = int(self._a[O_CUR])
        return None if c < 0 else c

    @property
    def my_turn(self) -> bool:
        return int(self._a[O_CUR]) == self.seat

    def legal_codes(self) -> np.ndarray:
        """Legal move codes (``int64``; ``tile*4+end`` or ``MOVE_REPLACE``) of this
        seat now; empty when it is not this seat's turn."""
        if not self.my_turn:
            return np.zeros(0, np.int64)
        buf = np.zeros(L.MAX_MOVES, np.int64)
        n = K.legal_moves(self.engine_state(), self._rv, buf)
        return buf[:n]

    def legal_moves(self) -> list[Move]:
        """Legal moves of this seat now (equivalent ends listed once)."""
        return [Move.from_code(c) for c in self.legal_codes().tolist()]

    # -- what is on the table
    @property
    def hand(self) -> TileSet:
        """This seat's own tiles."""
        return TileSet(int(self._a[O_HAND]))

    @property
    def line(self) -> TileSet:
        return TileSet(int(self._a[O_LINE]))

    @property
    def ends(self) -> tuple:
        """Open ends as ``(end, pip, kind)``; empty before the lead."""
        a = self._a
        if a[O_NPLAYED] == 0:
            return ()
        return tuple((k, int(a[O_END_PIP + k]), int(a[O_END_KIND + k]))
                     for k in range(4) if a[O_END_PIP + k] >= 0)

    @property
    def spinner(self) -> Tile | None:
        t = int(self._a[O_SPIN_TILE])
        return Tile(t) if t >= 0 else None

    @property
    def spinner_open(self) -> bool:
        return int(self._a[O_SPIN]) == 2

    @property
    def must_play(self) -> Tile | None:
        t = int(self._a[O_MUST])
        return Tile(t) if t >= 0 else None

    @property
    def hand_sizes(self) -> tuple:
        """Tiles in each seat's hand (every seat, always)."""
        return tuple(int(x) for x in self._a[O_SIZES:O_SIZES + self.rules.players])

    @property
    def boneyard_size(self) -> int:
        return int(self._a[O_BONE])

    @property
    def scores(self) -> tuple:
        """Match score of each side, including the points of a hand in play
        (the array keeps them apart: ``O_SCORE`` before the hand, ``O_POINTS``)."""
        a = self._a
        n = self.rules.sides
        s = a[O_SCORE:O_SCORE + n]
        if a[O_CUR] >= 0:
            s = s + a[O_POINTS:O_POINTS + n]
        return tuple(int(x) for x in s)

    @property
    def points(self) -> tuple:
        """Points (strikes) each side made in this hand so far."""
        return tuple(int(x) for x in self._a[O_POINTS:O_POINTS + self.rules.sides])

    @property
    def target(self) -> int:
        return self.rules.target

    @property
    def leader(self) -> int:
        return int(self._a[O_LEADER])

    @property
    def count(self) -> int:
        """The count of the ends (pips), as scored in the ends-scoring presets."""
        return int(K.end_count(self.engine_state()))

    @property
    def replacements_used(self) -> tuple:
        return tuple(int(x) for x in self._a[O_REPL:O_REPL + self.rules.players])

    # -- deductions
    def void_mask(self, seat: int) -> int:
        """Pips ``seat`` is known not to hold now, as a bit set (bit p = pip p)."""
        return int(self._a[O_VOID + seat])

    def void(self, seat: int) -> tuple:
        """Pips ``seat`` is known not to hold now, e.g. ``(3, 5)``."""
        m = self.void_mask(seat)
        return tuple(p for p in range(N_PIPS) if m >> p & 1)

    @property
    def unseen(self) -> TileSet:
        """Tiles this seat has not seen: in other hands or the boneyard."""
        return TileSet(int(self._a[O_UNSEEN]))

    @property
    def events(self) -> list[Event]:
        """The public events of the hand, in order."""
        return events_from_rows(self._ev)

    def partner(self) -> int | None:
        """The partner's seat in partnership presets, else None."""
        return (self.seat + 2) % 4 if self.rules.partnerships else None

    def position(self, perspective: int | None = None) -> Position:
        """This seat's view as :mod:`dominoai.render` draws it (a
        :class:`~dominoai.render.position.Position`): its own tiles face
        up, the others face down.

        :raises ValueError: ``perspective`` another seat than this one
            (None is this seat).
        """
        if perspective is not None and perspective != self.seat:
            raise ValueError(f"an observation of seat {self.seat} shows only seat {self.seat}'s tiles "
                             f"(perspective {perspective} asked)")
        r = self.rules
        hands = tuple(tuple(self.hand) if i == self.seat else None for i in range(r.players))
        status = _STATUS_WORDS[int(self._a[O_STATUS])]
        return Position(r, hands, tuple(self.hand_sizes), tuple(self.events), self.spinner,
                        tuple(self.void(i) for i in range(r.players)), tuple(self.scores), self.target,
                        self.boneyard_size, self.count, self.to_move, status, int(self._a[O_HAND_NO]),
                        self.seat)

    def _repr_svg_(self) -> str:
        """This seat's view as SVG, so a notebook shows it (``dominoai.render.svg``)."""
        return svg(self)

    def __repr__(self) -> str:
        return f"<Observation seat {self.seat} of {self.rules.preset}>"

    def __str__(self) -> str:
        r = self.rules
        ends = " ".join(f"{END_NAMES[k]}={p}" + ("d" if kind == 1 else "") for k, p, kind in self.ends) or "(empty)"
        lines = [
            f"{r.preset}, seat {self.seat}" + (" to move" if self.my_turn else
                                               f", seat {self.to_move} to move" if self.to_move is not None else ", hand over"),
            f"  hand:   {self.hand}",
            f"  ends:   {ends}" + (f"  spinner {self.spinner}" if self.spinner else ""),
            f"  sizes:  {list(self.hand_sizes)}  boneyard {self.boneyard_size}",
            f"  score:  {list(self.scores)} (this hand {list(self.points)}), target {self.target}",
        ]
        voids = [f"{i}: no {'/'.join(map(str, self.void(i)))}" for i in range(r.players)
                 if i != self.seat and self.void_mask(i)]
        if voids:
            lines.append("  known:  " + ", ".join(voids))
        return "\n".join(lines)


def observe(hand: "Hand", seat: int) -> Observation:
    """The observation of ``seat`` in ``hand`` now (a :class:`~dominoai.game.Hand`
    of a Match): :meth:`Hand.observe` with the seat required.

    :raises ValueError: a seat that is not at the table.
    """
    if seat is None:
        raise ValueError(f"seat must be 0..{hand.rules.players - 1} (got None)")
    return hand.observe(seat)
