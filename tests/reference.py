"""Independent, slow, plain-Python reference implementation of the dominoai rules.

This module is used only by the test-suite to cross-check the fast engine. It
is written from ``docs/rules.md``, ``docs/records.md`` (the replay output) and
``docs/conventions.md`` alone and imports nothing from :mod:`dominoai`
(independence is the point). Clear over fast; standard library only.

Encodings (``docs/conventions.md``):

- tile ``a:b`` with ``a >= b`` has id ``a*(a+1)//2 + b`` (``0:0`` = 0 ... ``6:6`` = 27);
- end indices ``0`` left, ``1`` right, ``2`` up, ``3`` down;
- end kinds ``0`` plain, ``1`` double (counts both halves), ``2`` unplayed short
  side of an open spinner/base (counts 0);
- the lead is a move on end 0; ``orientation=0`` lays its higher pip on the left,
  ``orientation=1`` its lower pip on the left.

Sides are seats, or pairs in partnership presets (pair 0 = seats 0 and 2).

Decisions this reference takes where the brief leaves a choice:

- ``new_hand(..., leader=...)``: when the rules leave the first lead to lot the
  leader is required; when the rules decide the leader, ``leader`` may be
  ``None`` or the seat the rules pick; any other seat raises ``ValueError``
  (a disagreement is worth a loud failure in a cross-check).
- ``new_hand`` checks the deal: ``players`` hands of ``hand_size`` distinct valid
  tiles; the boneyard must complete the set when the preset draws (it may be
  empty, or else must complete the set, when the preset never draws).
- A Fives hand cut short by the target is over: ``hand_over()`` is True,
  ``seat`` is None, ``legal_moves()`` is empty and ``hand_result()`` gives
  ``end`` None and ``winner`` None with the points made so far.
- ``hand_summary()`` (extra) gives the result dict at any time (``end``/``winner``
  None while the hand runs), which the record replayer needs for unfinished hands.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# Tiles
# ---------------------------------------------------------------------------

TILE_HI = []  # higher pip of tile id
TILE_LO = []  # lower pip of tile id
for _a in range(7):
    for _b in range(_a + 1):
        TILE_HI.append(_a)
        TILE_LO.append(_b)
N_TILES = 28
TILE_PIPS = [TILE_HI[t] + TILE_LO[t] for t in range(N_TILES)]
TILE_MASK = [(1 << TILE_HI[t]) | (1 << TILE_LO[t]) for t in range(N_TILES)]
ZERO_ZERO = 0
ONE_ONE = 2
SIX_SIX = 27

LEFT, RIGHT, UP, DOWN = 0, 1, 2, 3
END_NAMES = ("left", "right", "up", "down")
PLAIN, DOUBLE, SHORT_SIDE = 0, 1, 2


def tile_id(a: int, b: int) -> int:
    """Id of the tile with pips ``a`` and ``b`` (either order)."""
    if not (isinstance(a, int) and isinstance(b, int)) or not (0 <= a <= 6 and 0 <= b <= 6):
        raise ValueError(f"not a double-six tile: {a}:{b}")
    if a < b:
        a, b = b, a
    return a * (a + 1) // 2 + b


def parse_tile(text: str) -> tuple[int, int, int]:
    """Parse ``"a:b"``; return ``(id, first pip as written, second pip)``."""
    if not isinstance(text, str):
        raise ValueError(f"a tile must be a string 'a:b', got {text!r}")
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"not a tile: {text!r}")
    a, b = int(parts[0]), int(parts[1])
    return tile_id(a, b), a, b


def tile_str(t: int) -> str:
    return f"{TILE_HI[t]}:{TILE_LO[t]}"


def is_double(t: int) -> bool:
    return TILE_HI[t] == TILE_LO[t]


def heaviness(t: int) -> tuple[int, int]:
    """Sort key: most pips first, then the higher half (6:3 before 5:4)."""
    return (TILE_PIPS[t], TILE_HI[t])


def round5(x: int) -> int:
    """Round to the nearest multiple of 5 (12 -> 10, 13 -> 15)."""
    return 5 * ((x + 2) // 5)


# ---------------------------------------------------------------------------
# Presets
# ---------------------------------------------------------------------------

PRESETS = (
    "draw", "block", "all_fives", "fives", "kozel", "express", "dominoball",
    "openspiel_block", "openspiel_team", "pydominoes",
)
_ALLOWED_OVERRIDES = {"players", "hand_size", "target", "partnerships", "first_lead"}


class _Config:
    """The resolved rules of one match (plain attributes)."""

    def __init__(self, preset: str, overrides: dict):
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}")
        unknown = set(overrides) - _ALLOWED_OVERRIDES
        if unknown:
            raise ValueError(f"unknown rules override(s) {sorted(unknown)} for {preset!r}")
        self.preset = preset
        p = preset
        allowed_players = {
            "draw": (2, 3, 4), "block": (2, 3, 4), "all_fives": (2, 3, 4), "fives": (2,),
            "kozel": (4,), "express": (2, 3, 4), "dominoball": (2,),
            "openspiel_block": (2,), "openspiel_team": (4,), "pydominoes": (4,),
        }[p]
        default_players = {"kozel": 4, "openspiel_team": 4, "pydominoes": 4}.get(p, 2)
        n = overrides.get("players", default_players)
        if not isinstance(n, int) or isinstance(n, bool) or n not in allowed_players:
            raise ValueError(f"{p}: players must be one of {allowed_players}, got {n!r}")
        self.players = n

        inherent_pairs = p in ("kozel", "openspiel_team", "pydominoes")
        pairs = overrides.get("partnerships", inherent_pairs)
        if not isinstance(pairs, bool):
            raise ValueError(f"{p}: partnerships must be true/false, got {pairs!r}")
        if p == "express":
            if pairs and n != 4:
                raise ValueError("express: partnerships need four players")
        elif pairs != inherent_pairs:
            raise ValueError(f"{p}: partnerships cannot be {pairs}")
        self.pairs = pairs
        self.n_sides = 2 if pairs else n

        if p == "draw":
            hs = 6 if n == 4 else 7
        elif p in ("block", "all_fives"):
            hs = 7 if n == 2 else 5
        else:
            hs = 7
        hs = overrides.get("hand_size", hs)
        self.draws = p in ("draw", "all_fives", "fives", "dominoball")
        self.reserve = 1 if p == "dominoball" else 0
        if not isinstance(hs, int) or isinstance(hs, bool) or hs < 1:
            raise ValueError(f"{p}: bad hand_size {hs!r}")
        if n * hs + self.reserve > N_TILES:
            raise ValueError(f"{p}: {n} hands of {hs} plus a reserve of {self.reserve} exceed the set")
        self.hand_size = hs

        if p in ("draw", "block"):
            tg = 100 if n == 2 else 61
        elif p in ("all_fives", "fives"):
            tg = 150
        elif p == "kozel":
            tg = 101
        elif p == "express":
            tg = 100
        elif p == "pydominoes":
            tg = 200  # dominoes 6.1, series.py: Series(target_score=200)
        else:
            tg = None  # one-hand matches
        if "target" in overrides:
            tg = overrides["target"]
            if not isinstance(tg, int) or isinstance(tg, bool) or tg < 1:
                raise ValueError(f"{p}: bad target {tg!r}")
        self.target = tg

        # first lead: 'lot' (leader given, any tile), 'highest_double' (holder leads it),
        # 'one_one' (holder of 1:1 leads it), 'seat0' (seat 0, any tile)
        first = {"fives": "highest_double", "express": "highest_double", "kozel": "one_one",
                 "openspiel_block": "seat0", "openspiel_team": "seat0",
                 "pydominoes": "six_six"}.get(p, "lot")
        if "first_lead" in overrides:
            fl = overrides["first_lead"]
            if p not in ("draw", "block", "all_fives", "fives") or fl not in ("lot", "highest_double"):
                raise ValueError(f"{p}: first_lead {fl!r} not supported")
            first = fl
        self.first_lead = first
        # next hands: 'winner' (previous winner, else seat after previous leader),
        # 'after_leader', 'last_player' (kozel), None (one-hand match)
        self.next_lead = {"draw": "winner", "block": "winner", "all_fives": "winner", "fives": "winner",
                          "kozel": "last_player", "express": "after_leader",
                          "pydominoes": "winner"}.get(p)
        self.one_hand = p in ("dominoball", "openspiel_block", "openspiel_team")
        self.ends_scoring = p in ("all_fives", "fives", "dominoball")
        self.spinner = {"all_fives": "first_double", "dominoball": "base"}.get(p)
        # equivalence of ends: same pip, or same pip and kind in scoring/spinner presets
        self.kind_matters = self.ends_scoring or self.spinner is not None

    def side(self, seat: int) -> int:
        return seat % 2 if self.pairs else seat


# ---------------------------------------------------------------------------
# The match
# ---------------------------------------------------------------------------


class RefMatch:
    """A match of one preset, played hand by hand with explicit deals.

    Attributes: ``seat`` (seat to decide, None when the hand is over),
    ``events`` (this hand's events), ``hands`` (list of sets of tile ids),
    ``boneyard`` (remaining tiles in draw order), ``ends`` (list of
    ``(pip, kind)`` per open end index; empty before the lead), ``scores``
    (per side), ``leader`` (this hand's leader).
    """

    def __init__(self, preset: str, **overrides):
        self.cfg = _Config(preset, overrides)
        c = self.cfg
        self.scores = [0] * c.n_sides
        self.finished = False
        self.match_winner = None
        self.n_hands = 0
        self.egg_carry = 0  # kozel
        self.replacements = [0] * c.players  # dominoball, per match
        self.prev_leader = None
        self.prev_winner = None
        self.prev_last_player = None
        # hand state
        self.seat = None
        self.events = []
        self.hands = [set() for _ in range(c.players)]
        self.boneyard = []
        self.ends = []
        self._end_tile = []
        self._in_hand = False
        self._over = True
        self._result = None
        self.leader = None

    # ---- hand setup ------------------------------------------------------

    def new_hand(self, deal, boneyard, leader=None) -> None:
        c = self.cfg
        if self.finished:
            raise ValueError("the match is finished")
        if self._in_hand and not self._over:
            raise ValueError("the current hand is not over")
        if c.one_hand and self.n_hands >= 1:
            raise ValueError("this preset's match is one hand")
        deal = [list(h) for h in deal]
        boneyard = list(boneyard)
        if len(deal) != c.players:
            raise ValueError(f"deal has {len(deal)} hands, expected {c.players}")
        seen = set()
        for h in deal + [boneyard]:
            for t in h:
                if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t < N_TILES:
                    raise ValueError(f"not a tile id: {t!r}")
                if t in seen:
                    raise ValueError(f"tile {tile_str(t)} appears twice")
                seen.add(t)
        for s, h in enumerate(deal):
            if len(h) != c.hand_size:
                raise ValueError(f"seat {s} is dealt {len(h)} tiles, expected {c.hand_size}")
        if (c.draws or boneyard) and len(seen) != N_TILES:
            raise ValueError("deal plus boneyard must be the whole set, each tile once")

        # who leads, and whether a given tile must be led
        forced_lead = None
        if self.n_hands == 0:
            rule = c.first_lead
        else:
            rule = {"winner": "winner", "after_leader": "after_leader",
                    "last_player": "last_player"}[c.next_lead]
        if rule == "lot":
            if leader is None:
                raise ValueError("this hand's leader is chosen by lot: give the leader")
            ruled = None
        elif rule == "seat0":
            ruled = 0
        elif rule == "one_one":
            holders = [s for s, h in enumerate(deal) if ONE_ONE in h]
            if not holders:
                raise ValueError("nobody holds 1:1")
            ruled, forced_lead = holders[0], ONE_ONE
        elif rule == "six_six":  # pydominoes: the holder of 6:6 leads it
            ruled = next(s for s, h in enumerate(deal) if SIX_SIX in h)
            forced_lead = SIX_SIX
        elif rule == "highest_double":
            best = None
            for s, h in enumerate(deal):
                for t in h:
                    key = (1, TILE_HI[t]) if is_double(t) else (0,) + heaviness(t)
                    if best is None or key > best[0]:
                        best = (key, s, t)
            ruled, forced_lead = best[1], best[2]
        elif rule == "winner":
            if self.prev_winner is not None:
                ruled = self.prev_winner
            else:
                ruled = (self.prev_leader + 1) % c.players
        elif rule == "after_leader":
            ruled = (self.prev_leader + 1) % c.players
        elif rule == "last_player":
            ruled = self.prev_last_player
        else:  # pragma: no cover
            raise AssertionError(rule)
        if ruled is None:
            if not isinstance(leader, int) or isinstance(leader, bool) or not 0 <= leader < c.players:
                raise ValueError(f"bad leader {leader!r}")
            ruled = leader
        elif leader is not None and leader != ruled:
            raise ValueError(f"the rules give the lead to seat {ruled}, not {leader}")

        self.n_hands += 1
        self.hands = [set(h) for h in deal]
        self.boneyard = boneyard
        self.leader = ruled
        self.seat = ruled
        self.events = []
        self.ends = []  # (pip, kind) per end index
        self._end_tile = []  # tile at each end (the spinner/base for short sides)
        self._covered = {}  # double -> how many of its long sides have a tile
        self._spinner = None  # all_fives: first double played; dominoball: the base once it exists
        self._line_len = 0
        self._forced_lead = forced_lead
        self._forced_tile = None  # tile just drawn that must be played
        self._hand_points = [0] * c.n_sides
        self._last_player = None
        self._in_hand = True
        self._over = False
        self._result = None
        self._advance()

    # ---- queries -------------------------------------------------------------

    def hand_over(self) -> bool:
        return self._over

    def pips(self) -> list:
        return [sum(TILE_PIPS[t] for t in h) for h in self.hands]

    def hand_result(self):
        return dict(self._result, points=list(self._result["points"]),
                    pips=list(self._result["pips"])) if self._result is not None else None

    def hand_summary(self) -> dict:
        """The hand's result dict; while the hand runs: end/winner None, points so far."""
        if self._result is not None:
            return self.hand_result()
        return {"end": None, "winner": None, "points": list(self._hand_points), "pips": self.pips()}

    def match_result(self) -> dict:
        out = {"scores": list(self.scores), "winner": self.match_winner, "finished": self.finished}
        if self.cfg.preset == "kozel":
            dry = False
            if self.finished:
                dry = self.scores[self.match_winner] == 0
            out["dry_goat"] = dry
        if self.cfg.preset == "dominoball":
            out["goals"] = [self._goals(s) for s in self.scores]
        return out

    @staticmethod
    def _goals(strikes: int) -> int:
        return 0 if strikes < 5 else 1 + (strikes - 5) // 4

    def _end_mask(self) -> int:
        m = 0
        for pip, _kind in self.ends:
            m |= 1 << pip
        return m

    def _can_play(self, seat: int) -> bool:
        if not self.ends:
            return bool(self.hands[seat])
        m = self._end_mask()
        return any(TILE_MASK[t] & m for t in self.hands[seat])

    def _fits(self, t: int) -> bool:
        return bool(TILE_MASK[t] & self._end_mask())

    def _replace_allowed(self) -> bool:
        c = self.cfg
        s = self.seat
        return (c.preset == "dominoball" and not self._over and self._forced_tile is None
                and self.replacements[s] < 4 and len(self.boneyard) > c.reserve
                and self._can_play(s))

    def _end_key(self, e: int):
        pip, kind = self.ends[e]
        return (pip, kind) if self.cfg.kind_matters else pip

    def legal_moves(self) -> set:
        if self._over:
            return set()
        s = self.seat
        moves = set()
        if not self.ends:
            tiles = [self._forced_lead] if self._forced_lead is not None else self.hands[s]
            for t in tiles:
                moves.add(("play", t, 0))
        else:
            tiles = [self._forced_tile] if self._forced_tile is not None else self.hands[s]
            classes = {}
            for e in range(len(self.ends)):
                classes.setdefault(self._end_key(e), e)  # lowest end index of each class
            for e in classes.values():
                pip = self.ends[e][0]
                for t in tiles:
                    if TILE_HI[t] == pip or TILE_LO[t] == pip:
                        moves.add(("play", t, e))
        if self._replace_allowed():
            moves.add(("replace",))
        return moves

    # ---- moves ---------------------------------------------------------------

    def play(self, move, orientation: int = 0) -> None:
        c = self.cfg
        if self._over:
            raise ValueError("the hand is over")
        if not isinstance(move, tuple) or not move:
            raise ValueError(f"not a move: {move!r}")
        s = self.seat
        if move[0] == "replace":
            if len(move) != 1 or not self._replace_allowed():
                raise ValueError("replacement not allowed now")
            t = self.boneyard.pop(0)
            self.hands[s].add(t)
            if self.replacements[s] > 0:
                side = c.side(s)
                if self.scores[side] > 0:
                    self.scores[side] -= 1
                    self._hand_points[side] -= 1
            self.replacements[s] += 1
            self.events.append(("replace", s))
            return
        if move[0] != "play" or len(move) != 3:
            raise ValueError(f"not a move: {move!r}")
        _, t, e = move
        if not isinstance(t, int) or not 0 <= t < N_TILES:
            raise ValueError(f"not a tile id: {t!r}")
        if t not in self.hands[s]:
            raise ValueError(f"seat {s} does not hold {tile_str(t)}")
        if not self.ends:
            if e != 0:
                raise ValueError("the lead is played on end 0")
            if self._forced_lead is not None and t != self._forced_lead:
                raise ValueError(f"the lead must be {tile_str(self._forced_lead)}")
            if orientation not in (0, 1):
                raise ValueError(f"bad orientation {orientation!r}")
            self._place_lead(t, orientation)
        else:
            if self._forced_tile is not None and t != self._forced_tile:
                raise ValueError(f"the tile just drawn ({tile_str(self._forced_tile)}) must be played")
            if not isinstance(e, int) or not 0 <= e < len(self.ends):
                raise ValueError(f"end {e!r} is not open")
            if self.ends[e][0] not in (TILE_HI[t], TILE_LO[t]):
                raise ValueError(f"{tile_str(t)} does not fit end {END_NAMES[e]}")
            self._place(t, e)
        first_tile = self._line_len == 1
        self.hands[s].discard(t)
        self._forced_tile = None
        self._last_player = s
        self.events.append(("play", s, t, e))

        if c.ends_scoring:
            total = self._count_ends()
            side = c.side(s)
            if c.preset == "dominoball":
                gain = total // 5 if total > 0 and total % 5 == 0 else 0
                if first_tile and t == ZERO_ZERO:
                    gain = 1
            else:
                gain = total if total > 0 and total % 5 == 0 else 0
            if gain:
                self.scores[side] += gain
                self._hand_points[side] += gain
                if c.preset == "fives" and self.scores[side] >= c.target:
                    # reaching the target wins at once: the hand is cut short
                    self._over = True
                    self.seat = None
                    self._result = {"end": None, "winner": None,
                                    "points": list(self._hand_points), "pips": self.pips()}
                    self.finished = True
                    self.match_winner = side
                    return
        if not self.hands[s]:
            self._end_hand("domino", s)
            return
        if self._blocked():
            self._end_hand("blocked", None)
            return
        self.seat = (s + 1) % c.players
        self._advance()

    def _place_lead(self, t: int, orientation: int) -> None:
        hi, lo = TILE_HI[t], TILE_LO[t]
        if is_double(t):
            self.ends = [(hi, DOUBLE), (hi, DOUBLE)]
            self._covered[t] = 0
            if self.cfg.spinner == "first_double":
                self._spinner = t
        else:
            left, right = (hi, lo) if orientation == 0 else (lo, hi)
            self.ends = [(left, PLAIN), (right, PLAIN)]
        self._end_tile = [t, t]
        self._line_len = 1

    def _place(self, t: int, e: int) -> None:
        c = self.cfg
        pip, kind = self.ends[e]
        old = self._end_tile[e]
        outer = TILE_LO[t] if TILE_HI[t] == pip else TILE_HI[t]
        self.ends[e] = (outer, DOUBLE if is_double(t) else PLAIN)
        self._end_tile[e] = t
        self._line_len += 1
        if is_double(t):
            self._covered[t] = 1
            if c.spinner == "first_double" and self._spinner is None:
                self._spinner = t
        if kind == DOUBLE:
            self._covered[old] += 1
            if self._covered[old] == 2:
                opens = False
                if c.spinner == "first_double" and old == self._spinner:
                    opens = True
                elif c.spinner == "base" and self._spinner is None:
                    self._spinner = old
                    opens = True
                if opens:
                    p = TILE_HI[old]
                    self.ends.extend([(p, SHORT_SIDE), (p, SHORT_SIDE)])
                    self._end_tile.extend([old, old])

    def _count_ends(self) -> int:
        if self._line_len == 1:
            return TILE_PIPS[self._end_tile[0]]
        total = 0
        for pip, kind in self.ends:
            if kind == PLAIN:
                total += pip
            elif kind == DOUBLE:
                total += 2 * pip
        return total

    def _blocked(self) -> bool:
        """Nobody can play and nobody can draw."""
        if self.cfg.draws and len(self.boneyard) > self.cfg.reserve:
            return False
        return not any(self._can_play(s) for s in range(self.cfg.players))

    def _advance(self) -> None:
        """Forced draws and passes until a seat has a choice or the hand ends."""
        c = self.cfg
        while not self._over:
            s = self.seat
            if self._can_play(s):
                return
            if c.draws and len(self.boneyard) > c.reserve:
                count = 0
                t = None
                while len(self.boneyard) > c.reserve:
                    t = self.boneyard.pop(0)
                    self.hands[s].add(t)
                    count += 1
                    if self._fits(t):
                        break
                self.events.append(("draw", s, count))
                if self._fits(t):
                    self._forced_tile = t
                    return
                if self._blocked():
                    self._end_hand("blocked", None)
                    return
            self.events.append(("pass", s))
            self.seat = (s + 1) % c.players

    # ---- hand end and scoring ------------------------------------------------

    def _end_hand(self, how: str, out_seat) -> None:
        c = self.cfg
        self._over = True
        self.seat = None
        pips = self.pips()
        winner, points = self._score_hand(how, out_seat, pips)
        for side in range(c.n_sides):
            self._hand_points[side] += points[side]
            self.scores[side] += points[side]
        self._result = {"end": how, "winner": winner, "points": list(self._hand_points), "pips": pips}
        self.prev_leader = self.leader
        self.prev_winner = self._win_seat if c.preset == "pydominoes" else winner
        self.prev_last_player = self._last_player
        self._check_match_end(winner)

    def _score_hand(self, how, out_seat, pips):
        """Return (winning side or None, points per side) of the hand-end count."""
        c = self.cfg
        n = c.players
        points = [0] * c.n_sides
        p = c.preset
        total = sum(pips)

        if p in ("draw", "block", "all_fives"):
            if how == "domino":
                w = out_seat
            else:
                low = min(pips)
                lows = [s for s in range(n) if pips[s] == low]
                w = lows[0] if len(lows) == 1 else None
            if w is not None:
                others = total - pips[w]
                points[w] = round5(others) if p == "all_fives" else others - pips[w]
            return w, points

        if p == "fives":
            if how == "domino":
                w = out_seat
                points[w] = round5(pips[1 - w])
            else:
                if pips[0] == pips[1]:
                    return None, points
                w = 0 if pips[0] < pips[1] else 1
                points[w] = round5(pips[1 - w] - pips[w])
            return w, points

        if p == "kozel":
            def count(s):
                return 25 if self.hands[s] == {ZERO_ZERO} else pips[s]
            pair_count = [count(0) + count(2), count(1) + count(3)]
            if how == "domino":
                w = c.side(out_seat)
            else:
                if pair_count[0] == pair_count[1]:
                    self.egg_carry += pair_count[0]
                    return None, points
                w = 0 if pair_count[0] < pair_count[1] else 1
            points[1 - w] = pair_count[1 - w] + self.egg_carry
            self.egg_carry = 0
            return w, points

        if p == "express":
            if c.pairs:
                if how == "domino":
                    w = c.side(out_seat)
                else:
                    pair = [pips[0] + pips[2], pips[1] + pips[3]]
                    if pair[0] == pair[1]:
                        w = c.side(self.leader)
                    else:
                        w = 0 if pair[0] < pair[1] else 1
                points[w] = total  # all four hands (the winner's own included when blocked)
            else:
                if how == "domino":
                    w = out_seat
                else:
                    low = min(pips)
                    w = None
                    for k in range(n):  # the leader first, then in turn order
                        s = (self.leader + k) % n
                        if pips[s] == low:
                            w = s
                            break
                points[w] = total - pips[w]
            return w, points

        if p == "dominoball":
            def strikes(opp):
                return 0 if opp < 3 else 1 + (opp - 3) // 5
            if how == "domino":
                w = out_seat
                o = 1 - w
                if self.hands[o] == {SIX_SIX}:
                    points[w] = 10
                elif self.hands[o] == {ZERO_ZERO}:
                    points[w] = 5
                else:
                    points[w] = strikes(pips[o])
            else:
                if pips[0] == pips[1]:
                    return None, points
                w = 0 if pips[0] < pips[1] else 1
                points[w] = strikes(pips[0] + pips[1])
            return w, points

        if p == "pydominoes":
            # dominoes 6.1, game.py Game.make_move: the pair that goes out, or the
            # lighter pair when blocked, scores every pip left; a tie scores nothing.
            # The next leader ("winner"): the seat that went out, or the lightest
            # seat of the winning pair (first after the leader on equal pips).
            pair = [pips[0] + pips[2], pips[1] + pips[3]]
            if how == "domino":
                w, self._win_seat = c.side(out_seat), out_seat
            elif pair[0] == pair[1]:
                self._win_seat = None
                return None, points
            else:
                w = 0 if pair[0] < pair[1] else 1
                order = [(self.leader + k) % n for k in range(n)]
                self._win_seat = min((s for s in order if c.side(s) == w), key=lambda s: pips[s])
            points[w] = total
            return w, points

        if p in ("openspiel_block", "openspiel_team"):
            side_pips = [0] * c.n_sides
            for s in range(n):
                side_pips[c.side(s)] += pips[s]
            if side_pips[0] == side_pips[1]:
                return None, points
            w = 0 if side_pips[0] < side_pips[1] else 1
            points[w] = side_pips[1 - w]
            return w, points

        raise AssertionError(p)  # pragma: no cover

    def _check_match_end(self, hand_winner) -> None:
        c = self.cfg
        p = c.preset
        if c.one_hand:
            self.finished = True
            if p == "dominoball":
                g = [self._goals(x) for x in self.scores]
                self.match_winner = None if g[0] == g[1] else (0 if g[0] > g[1] else 1)
            else:
                self.match_winner = hand_winner
            return
        if p == "kozel":
            for side in range(2):
                if self.scores[side] >= c.target:
                    self.finished = True
                    self.match_winner = 1 - side
            return
        if p == "fives":
            for side in range(2):
                if self.scores[side] >= c.target:
                    # only one side scores per hand, so at most one reaches it here
                    self.finished = True
                    self.match_winner = side
            return
        # draw, block, all_fives, express: after a hand in which someone reached the target,
        # the highest score wins; an exact tie for first plays another hand.
        top = max(self.scores)
        if top >= c.target:
            leaders = [s for s in range(c.n_sides) if self.scores[s] == top]
            if len(leaders) == 1:
                self.finished = True
                self.match_winner = leaders[0]
