"""The facade: Hand and Match objects over the numba engine.

A :class:`Match` owns the flat engine state; :meth:`Match.new_hand` deals the
next hand and returns a :class:`Hand`, on which ``legal_moves()`` and
``play(move)`` drive the game. Forced draws and passes happen by themselves
(they are never a choice: docs/rules.md, "What every preset shares"), so a
hand always waits on a seat with a real choice, or is over.
:meth:`Hand.observe` gives a seat's :class:`~dominoai.observation.Observation`.
The small values (``Move``, ``Event``, ``IllegalMoveError``, ``END_NAMES``,
``parse_end``) live in :mod:`dominoai.moves` and are re-exported here.

>>> from dominoai import Match
>>> m = Match("block", seed=7)
>>> h = m.new_hand(leader=0)
>>> h.seat
0
>>> while not h.over:
...     h.play(h.legal_moves()[0])
>>> h.result.end in ("domino", "blocked")
True
>>> h.result is not None and m.scores == tuple(h.result.points)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .engine import kernels as K
from .engine import layout as L
from .moves import END_NAMES, Event, IllegalMoveError, Move, events_from_rows, parse_end
from .observation import O_SIZE, Observation, observe_into
from .render import Position, svg
from .rules import Rules, get_rules
from .tiles import N_TILES, TILE_HIGH, TILE_LOW, Tile, TileSet

__all__ = [
    "END_NAMES",
    "Move",
    "Event",
    "HandResult",
    "MatchResult",
    "IllegalMoveError",
    "Hand",
    "Match",
    "parse_end",
    "events_from_rows",
]

_STATUS = {L.ST_PLAYING: None, L.ST_DOMINO: "domino", L.ST_BLOCKED: "blocked", L.ST_CUT: None}


@dataclass(frozen=True)
class HandResult:
    """How a hand ended. ``end``: ``"domino"``, ``"blocked"``, or None when the
    match target cut it short (Fives). ``winner``: the winning side (a seat,
    or a pair in partnership presets), None when nobody won. ``points``: what
    each side scored in the hand, never negative (Kozel: what each pair
    records; Dominoball: strikes net of replacement costs). ``pips``: the
    real pips left in each seat's hand."""

    end: str | None
    winner: int | None
    points: tuple
    pips: tuple

    def to_dict(self) -> dict:
        return {"end": self.end, "winner": self.winner, "points": list(self.points),
                "pips": list(self.pips)}


@dataclass(frozen=True)
class MatchResult:
    """The match so far: ``scores`` per side, ``winner`` (side or None: not
    decided yet, or a drawn Dominoball/OpenSpiel match), ``finished``.
    ``dry_goat`` (Kozel) and ``goals`` (Dominoball) are set only there."""

    scores: tuple
    winner: int | None
    finished: bool
    dry_goat: bool | None = None
    goals: tuple | None = None

    def to_dict(self) -> dict:
        d = {"scores": list(self.scores), "winner": self.winner, "finished": self.finished}
        if self.dry_goat is not None:
            d["dry_goat"] = self.dry_goat
        if self.goals is not None:
            d["goals"] = list(self.goals)
        return d



def _tile_ids(tiles: Iterable, what: str) -> list[int]:
    out = []
    for t in tiles:
        try:
            out.append(Tile.parse(t).id)
        except ValueError as e:
            raise ValueError(f"{what}: {e}") from None
    return out


class Match:
    """A match under ``rules`` (a :class:`Rules` or a preset name).

    ``seed`` (int, ``numpy.random.Generator`` or None) drives random deals and
    leads by lot. Scores are per side (a seat, or a pair in partnerships).
    """

    def __init__(self, rules: "Rules | str" = "draw", seed=None, **overrides):
        self.rules: Rules = get_rules(rules, **overrides)
        self._rv = self.rules.vector()
        self._st = np.zeros(L.S_SIZE, np.int64)
        self._ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
        self._buf = np.zeros(L.MAX_MOVES, np.int64)
        self._rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        K.new_match(self._st, self._rv)
        self.hands: list[Hand] = []

    # -- match state
    def state_copy(self) -> np.ndarray:
        """A copy of the true engine state: ``int64``, shape ``(S_SIZE,)``
        (``engine.layout``), hidden tiles and boneyard order included. For
        harnesses that hand it to a named cheat (``omniscient``); never give
        it to a bot that plays fair."""
        return self._st.copy()

    @property
    def rules_vector(self) -> np.ndarray:
        """The rules as the kernels take them: ``int64``, shape ``(R_SIZE,)``."""
        return self._rv

    @property
    def finished(self) -> bool:
        return bool(self._st[L.S_MATCH_OVER])

    @property
    def scores(self) -> tuple:
        """Match score of each side (points; Kozel: recorded, low is good;
        Dominoball: strikes), including what the hand in play has made so far."""
        st = self._st
        sides = self.rules.sides
        s = st[L.S_SCORE:L.S_SCORE + sides]
        if st[L.S_CUR] >= 0:  # a hand in play: its points are not added yet
            s = s + st[L.S_POINTS:L.S_POINTS + sides]
        return tuple(int(x) for x in s)

    @property
    def winner(self) -> int | None:
        """The winning side once finished; None before, or on a drawn match."""
        w = int(self._st[L.S_MATCH_WINNER])
        return w if self.finished and w >= 0 else None

    @property
    def goals(self) -> tuple:
        """Goals per side (Dominoball): 0 below 5 strikes, then one per 4 more."""
        return tuple(int(K.goals_for(s)) for s in self.scores)

    @property
    def result(self) -> MatchResult:
        r = self.rules
        dry = None
        if r.hand_scoring == "losers_record":
            w = self.winner
            dry = bool(self.finished and w is not None and self.scores[w] == 0)
        goals = self.goals if r.hand_scoring == "strikes" else None
        return MatchResult(self.scores, self.winner, self.finished, dry, goals)

    @property
    def current(self) -> "Hand | None":
        return self.hands[-1] if self.hands else None

    def position(self, perspective: int | None = None) -> Position:
        """The current hand's :meth:`Hand.position`.

        :raises ValueError: no hand dealt yet, or a seat not at the table.
        """
        if self.current is None:
            raise ValueError("the match has no hand dealt yet: nothing to draw")
        return self.current.position(perspective)

    def new_hand(self, deal: Sequence[Iterable] | None = None, boneyard: Iterable | None = None,
                 leader: int | None = None) -> "Hand":
        """Deal the next hand and return it.

        :param deal: one list of tiles (``"a:b"``, ids or :class:`Tile`) per
            seat, ``hand_size`` each; None for a random deal.
        :param boneyard: the undealt tiles in draw order; may be omitted in
            presets that never draw (then the rest, in id order).
        :param leader: the seat that leads, required by no one but allowed
            where the rules leave the first lead to lot (None: drawn at
            random); elsewhere, if given, it must be the seat the rules name.
        :raises ValueError: the match is over, the previous hand is not, a
            malformed deal (wrong sizes, unknown or repeated tiles, tiles
            missing), or a leader that contradicts the rules.
        """
        if self.finished:
            raise ValueError("the match is over; start a new Match")
        if self.hands and not self.hands[-1].over:
            raise ValueError("the current hand is not over yet")
        perm = self._perm(deal, boneyard)
        r = self.rules
        first = not self.hands
        lot = first and r.first_lead == "lot"
        if leader is not None:
            if isinstance(leader, bool) or not isinstance(leader, (int, np.integer)) \
                    or not 0 <= leader < r.players:
                raise ValueError(f"leader must be a seat 0..{r.players - 1} (got {leader!r})")
        if lot:
            lead_arg = int(self._rng.integers(r.players)) if leader is None else int(leader)
        else:
            lead_arg = -1
        snapshot = self._st.copy()
        got = int(K.start_hand(self._st, self._rv, perm, lead_arg))
        if got < 0:
            self._st[:] = snapshot
            raise ValueError("could not decide the leader of the hand")
        if leader is not None and not lot and got != leader:
            self._st[:] = snapshot
            raise ValueError(f"leader {leader} given, but the rules ({r.first_lead if first else r.next_lead}) "
                             f"make seat {got} lead this hand")
        hand = Hand(self, len(self.hands))
        self.hands.append(hand)
        return hand

    def _perm(self, deal, boneyard) -> np.ndarray:
        r = self.rules
        if deal is None:
            if boneyard is not None:
                raise ValueError("a boneyard needs a deal")
            perm = self._rng.permutation(N_TILES).astype(np.int64)
            return perm
        deal = list(deal)
        if len(deal) != r.players:
            raise ValueError(f"the deal has {len(deal)} hands; {r.preset} here has {r.players} players")
        ids: list[int] = []
        for seat, tiles in enumerate(deal):
            h = _tile_ids(tiles, f"seat {seat}'s hand")
            if len(h) != r.hand_size:
                raise ValueError(f"seat {seat} was dealt {len(h)} tiles; the rules deal {r.hand_size}")
            ids += h
        if boneyard is None:
            if r.drawing:
                raise ValueError(f"{r.preset} draws from the boneyard: the record must give its order")
            held = set(ids)
            bone = [t for t in range(N_TILES) if t not in held]
        else:
            bone = _tile_ids(boneyard, "boneyard")
        allt = ids + bone
        seen = set()
        for t in allt:
            if t in seen:
                raise ValueError(f"tile {Tile(t)} appears twice in the deal")
            seen.add(t)
        if len(allt) != N_TILES:
            missing = [str(Tile(t)) for t in range(N_TILES) if t not in seen]
            raise ValueError(f"the deal and boneyard miss {', '.join(missing)}; they must be the whole set")
        return np.array(allt, np.int64)

    def play_hand(self, policy, **deal) -> "Hand":
        """Deal a hand and play it to its end, ``policy(hand) -> Move`` deciding."""
        h = self.new_hand(**deal)
        while not h.over:
            h.play(policy(h))
        return h


class Hand:
    """One hand of a :class:`Match` (get it from :meth:`Match.new_hand`).

    While it is the match's current hand it can be played; afterwards it
    keeps its result and events.
    """

    def __init__(self, match: Match, index: int):
        self.match = match
        self.index = index
        self.rules = match.rules
        self.leader = int(match._st[L.S_LEADER])
        self._deal_masks = tuple(int(x) for x in match._st[L.S_HAND:L.S_HAND + self.rules.players])
        nb = int(match._st[L.S_BONE_END])
        self._boneyard = tuple(int(x) for x in match._st[L.S_BONE:L.S_BONE + nb])
        self._final: dict | None = None

    @classmethod
    def deal(cls, rules: "Rules | str" = "draw", seed=None, deal=None, boneyard=None,
             leader=None, **overrides) -> "Hand":
        """The first hand of a new match (convenience)."""
        return Match(rules, seed=seed, **overrides).new_hand(deal, boneyard, leader)

    # -- internals
    @property
    def _live(self) -> bool:
        return self._final is None and self.match.current is self

    def _st(self) -> np.ndarray:
        if self._final is not None:
            return self._final["st"]
        return self.match._st

    def _freeze_if_over(self):
        st = self.match._st
        if st[L.S_CUR] < 0 and self._final is None:
            n = int(st[L.S_NEVENTS])
            self._final = {"st": st.copy(), "ev": self.match._ev[:n].copy()}

    def _rows(self) -> np.ndarray:
        """The hand's public event log so far (a view: do not write to it)."""
        if self._final is not None:
            return self._final["ev"]
        return self.match._ev[: int(self.match._st[L.S_NEVENTS])]

    # -- public state
    @property
    def over(self) -> bool:
        return int(self._st()[L.S_CUR]) < 0

    @property
    def seat(self) -> int | None:
        """The seat to decide now, None once the hand is over."""
        c = int(self._st()[L.S_CUR])
        return None if c < 0 else c

    def tiles(self, seat: int) -> TileSet:
        """The tiles seat ``seat`` holds now (hidden information: bots get an
        Observation instead)."""
        return TileSet(int(self._st()[L.S_HAND + seat]))

    def dealt(self, seat: int) -> TileSet:
        """The tiles dealt to ``seat`` at the start of the hand."""
        return TileSet(self._deal_masks[seat])

    @property
    def boneyard(self) -> tuple:
        """The boneyard at the deal, in draw order (tuple of Tile)."""
        return tuple(Tile(t) for t in self._boneyard)

    @property
    def hand_sizes(self) -> tuple:
        st = self._st()
        return tuple(bin(int(st[L.S_HAND + i])).count("1") for i in range(self.rules.players))

    @property
    def boneyard_size(self) -> int:
        """Tiles still in the boneyard (the reserve included)."""
        return int(K.bone_left(self._st()))

    @property
    def ends(self) -> tuple:
        """Open ends as ``(end, pip, kind)`` tuples (kind: 0 plain, 1 double,
        2 unplayed spinner side; conventions.md). Empty before the lead."""
        st = self._st()
        if st[L.S_NPLAYED] == 0:
            return ()
        return tuple((k, int(st[L.S_END_PIP + k]), int(st[L.S_END_KIND + k]))
                     for k in range(4) if st[L.S_END_PIP + k] >= 0)

    @property
    def count(self) -> int:
        """The count of the ends (pips), as scored in All Fives/Fives/Dominoball."""
        return int(K.end_count(self._st()))

    @property
    def spinner(self) -> Tile | None:
        """The spinner (All Fives) or base double (Dominoball), once there is one."""
        t = int(self._st()[L.S_SPIN_TILE])
        return Tile(t) if t >= 0 else None

    @property
    def must_play(self) -> Tile | None:
        """The tile the seat must play (a forced lead, or the tile just drawn)."""
        t = int(self._st()[L.S_MUST])
        return Tile(t) if t >= 0 else None

    @property
    def line(self) -> TileSet:
        """Tiles on the line."""
        return TileSet(int(self._st()[L.S_PLAYED]))

    @property
    def points(self) -> tuple:
        """Points (strikes) each side has made in this hand so far."""
        return tuple(int(x) for x in self._st()[L.S_POINTS:L.S_POINTS + self.rules.sides])

    @property
    def events(self) -> list[Event]:
        """The public events of the hand so far, in order."""
        return events_from_rows(self._rows())

    @property
    def result(self) -> HandResult | None:
        """The result once the hand is over; None while it is being played."""
        if not self.over:
            return None
        st = self._st()
        r = self.rules
        w = int(st[L.S_WINNER])
        return HandResult(
            _STATUS[int(st[L.S_STATUS])],
            w if w >= 0 else None,
            tuple(int(x) for x in st[L.S_POINTS:L.S_POINTS + r.sides]),
            tuple(int(K.mask_pips(st[L.S_HAND + i])) for i in range(r.players)),
        )

    def observe(self, seat: int | None = None) -> Observation:
        """The :class:`~dominoai.observation.Observation` of ``seat`` (default:
        the seat to move): what that seat may know, and nothing else (built
        by the one observation kernel, ``engine.observe.observe_into``).

        :raises ValueError: a seat that is not at the table (or no seat given
            once the hand is over).
        """
        if seat is None:
            seat = self.seat
        n = self.rules.players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} (got {seat!r})")
        rv = self.match._rv
        a = np.zeros(O_SIZE, np.int64)
        observe_into(self._st(), rv, seat, a)
        return Observation(self.rules, a, self._rows(), rv)

    # -- moves
    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to decide (empty once the hand is over).
        A tile that fits equivalent ends is listed once (conventions.md)."""
        if not self._live:
            return []
        n = K.legal_moves(self.match._st, self.match._rv, self.match._buf)
        return [Move.from_code(c) for c in self.match._buf[:n].tolist()]

    def _resolve(self, move: Move) -> Move:
        """Fill in a missing end: the only end class the tile fits."""
        if move.replace or move.end is not None:
            return move
        st = self.match._st
        if st[L.S_NPLAYED] == 0:
            return Move(move.tile, 0)
        fits = [m for m in self.legal_moves() if not m.replace and m.tile == move.tile]
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1:
            names = " and ".join(END_NAMES[m.end] for m in fits)
            raise IllegalMoveError(f"seat {self.seat}: {move.tile} fits {names}; name the end")
        return Move(move.tile, 0)  # let check_move explain why it does not fit

    def explain(self, move: "Move | str") -> str | None:
        """Why ``move`` is illegal now (one line), or None if it is legal."""
        try:
            move = self._resolve(Move.parse(move))
        except IllegalMoveError as e:
            return str(e)
        if not self._live:
            return "the hand is over"
        st = self.match._st
        if not move.replace and st[L.S_NPLAYED] == 0 and move.end not in (0, 1):
            first = self.explain(Move(move.tile, 0))      # a tile not held (or not allowed) says so first
            return first if first is not None else f"the lead takes no end ({END_NAMES[move.end]} given)"
        err = int(K.check_move(st, self.match._rv, move.code))
        if err == L.ERR_OK:
            return None
        seat = int(st[L.S_CUR])
        who = f"seat {seat}"
        if err == L.ERR_HAND_OVER:
            return "the hand is over"
        if err == L.ERR_NO_REPLACE:
            if self.rules.max_replacements == 0:
                return f"{self.rules.preset} has no replacements (a Dominoball rule)"
            return f"{who} cannot replace now (needs a playable tile, replacements left, " \
                   f"a boneyard above its reserve, and no tile it must play)"
        if err == L.ERR_NOT_HELD:
            return f"{who} does not hold {move.tile}"
        if err == L.ERR_MUST_PLAY:
            return f"{who} must play {Tile(int(st[L.S_MUST]))}"
        if err == L.ERR_END_CLOSED:
            return f"there is no open {END_NAMES[move.end]} end"
        if err == L.ERR_NO_MATCH:
            return f"{move.tile} does not fit the {END_NAMES[move.end]} end " \
                   f"(it shows {int(st[L.S_END_PIP + move.end])})"
        return f"{move} is not a move here"

    def play(self, move: "Move | str", orientation: int = 0) -> None:
        """Make ``move`` for the seat to decide, then let forced draws and passes
        happen. ``orientation`` matters only for the lead: 1 lays it with its
        lower pip on the left (records keep the written order).

        :raises IllegalMoveError: naming the move and the reason; nothing changes.
        """
        if not self._live:
            raise IllegalMoveError("the hand is over" if self.over else
                                   "this hand is no longer the match's current hand")
        st = self.match._st
        m = move
        if not (isinstance(move, Move) and (move.replace or move.end is not None)):
            try:
                m = self._resolve(Move.parse(move))
            except ValueError as e:
                raise IllegalMoveError(str(e)) from None
        code = m.code
        if not m.replace and st[L.S_NPLAYED] == 0:
            if m.end not in (0, 1):
                raise IllegalMoveError(f"{m}: {self.explain(m)}")
            code = m.tile.id * 4 + (1 if orientation and TILE_HIGH[m.tile.id] != TILE_LOW[m.tile.id] else 0)
        if K.try_move(st, self.match._rv, self.match._ev, code) != L.ERR_OK:
            raise IllegalMoveError(f"{m}: {self.explain(m)}")
        self._freeze_if_over()

    def position(self, perspective: int | None = None) -> Position:
        """This hand's position as :mod:`dominoai.render` draws it (a
        :class:`~dominoai.render.position.Position`): ``perspective`` the
        seat whose tiles are face up, the others face down; None shows every
        seat face up.

        :raises ValueError: a seat not at the table.
        """
        r = self.rules
        if perspective is not None and (isinstance(perspective, bool) or not isinstance(perspective, int)
                                        or not 0 <= perspective < r.players):
            raise ValueError(f"perspective must be a seat 0..{r.players - 1} or None (got {perspective!r})")
        hands = tuple(tuple(self.tiles(i)) if perspective in (None, i) else None for i in range(r.players))
        public = self.observe(0)   # the voids and scores every seat sees
        res = self.result
        status = "" if res is None else (res.end or "cut short")   # no end: the target cut it short
        return Position(r, hands, tuple(self.hand_sizes), tuple(self.events), self.spinner,
                        tuple(public.void(i) for i in range(r.players)), tuple(public.scores), r.target,
                        self.boneyard_size, self.count, self.seat, status, self.index + 1, perspective)

    def _repr_svg_(self) -> str:
        """The position as SVG, so a notebook shows it (``dominoai.render.svg``)."""
        return svg(self)

    def __repr__(self) -> str:
        state = "over" if self.over else f"seat {self.seat} to play"
        return f"<Hand {self.index} of {self.rules.preset}: {state}>"
