"""Rules: one frozen configuration type, and the presets of docs/rules.md as data.

Every difference between variants is a field of :class:`Rules`; the engine
never branches on a preset's name. ``get_rules(name, **overrides)`` returns
a validated preset.

>>> r = get_rules("draw", players=3)
>>> r.hand_size, r.target
(7, 61)
>>> get_rules("block", players=4).hand_size
5
>>> get_rules("fives", players=3)
Traceback (most recent call last):
...
ValueError: fives: players must be 2 (got 3)
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from .engine import layout as L
from .tiles import N_TILES, Tile

__all__ = ["Rules", "PRESETS", "get_rules", "preset_names", "margins"]

_SPINNER = {"none": L.SPIN_NONE, "first_double": L.SPIN_FIRST_DOUBLE, "base_double": L.SPIN_BASE_DOUBLE}
_END_SCORING = {"none": L.ENDS_NONE, "points": L.ENDS_POINTS, "strikes": L.ENDS_STRIKES}
_FIRST_LEAD = {"lot": L.LEAD_LOT, "highest_double": L.LEAD_HIGHEST_DOUBLE, "tile": L.LEAD_TILE, "seat0": L.LEAD_SEAT0}
_NEXT_LEAD = {"winner": L.NEXT_WINNER, "last_layer": L.NEXT_LAST_LAYER, "after_leader": L.NEXT_AFTER_LEADER}
_HAND_SCORING = {
    "others_minus_own": L.HS_OTHERS_MINUS_OWN,
    "others": L.HS_OTHERS,
    "losers_record": L.HS_LOSERS_RECORD,
    "strikes": L.HS_STRIKES,
}
_BLOCKED_TIE = {"nobody": L.TIE_NOBODY, "leader_order": L.TIE_LEADER_ORDER}
_WINNER_BY = {"domino_or_lightest": L.WIN_DOMINO_OR_LIGHTEST, "lightest": L.WIN_LIGHTEST}
_TARGET_MODE = {"reach_wins": L.TARGET_REACH_WINS, "reach_loses": L.TARGET_REACH_LOSES}

# hand_scoring -> the unit of points and scores (Rules.points_unit)
_POINTS_UNITS = {"losers_record": "recorded points", "strikes": "strikes"}

_CHOICES = {
    "spinner": _SPINNER,
    "end_scoring": _END_SCORING,
    "first_lead": _FIRST_LEAD,
    "next_lead": _NEXT_LEAD,
    "hand_scoring": _HAND_SCORING,
    "blocked_tie": _BLOCKED_TIE,
    "winner_by": _WINNER_BY,
    "target_mode": _TARGET_MODE,
}


@dataclass(frozen=True)
class Rules:
    """A complete, validated rules configuration (build it with :func:`get_rules`).

    Fields (the specification is ``docs/rules.md``, which names each preset's source):

    - ``preset``: the preset it came from (informational only; never read by
      the engine).
    - ``players`` (2..4), ``hand_size`` (tiles dealt to each seat),
      ``partnerships`` (four players, seats 0+2 vs 1+3).
    - ``drawing``: a seat that cannot play draws until a tile fits;
      ``boneyard_reserve``: tiles that can never be drawn (Dominoball: 1).
    - ``spinner``: ``"none"``; ``"first_double"`` (All Fives: the first double
      played opens four ways once both long sides have tiles);
      ``"base_double"`` (Dominoball: the first double to get tiles on both
      long sides).
    - ``end_scoring``: ``"none"``; ``"points"`` (the count of the ends, when a
      positive multiple of 5, is scored at once); ``"strikes"`` (one strike
      per 5). ``zero_lead_strikes``: strikes for leading 0:0 (Dominoball 1).
    - ``first_lead``: ``"lot"`` (the leader is given or drawn at random, any
      tile), ``"highest_double"`` (its holder leads it; no double: the
      heaviest tile), ``"tile"`` (the holder of ``first_lead_tile`` leads
      it), ``"seat0"`` (seat 0, any tile).
    - ``next_lead``: ``"winner"`` (the previous winner, any tile; no winner:
      the seat after the previous leader), ``"last_layer"`` (who went out or
      laid the blocking tile), ``"after_leader"`` (the seat after the
      previous leader).
    - ``hand_scoring``: ``"others_minus_own"`` (draw, block, fives),
      ``"others"`` (all fives, express, OpenSpiel), ``"losers_record"``
      (kozel), ``"strikes"`` (dominoball). ``round_to``: hand-end points
      rounded once to the nearest multiple (5 in All Fives and Fives).
      ``blocked_tie``: ``"nobody"`` or ``"leader_order"`` (Express).
      ``winner_by``: ``"domino_or_lightest"`` or ``"lightest"`` (OpenSpiel:
      pip totals decide even after a domino). ``score_own_pair``: a winning
      pair also scores its own pips (Express in pairs). ``alone_00``: what a
      hand holding only 0:0 counts (Kozel: 25; 0 = its pips).
    - ``target`` (points), ``target_mode``: ``"reach_wins"`` (after a hand
      in which someone reached it, the highest wins; a tie for first plays
      another hand) or ``"reach_loses"`` (Kozel). ``instant_target``: reaching
      it ends the match at once (Fives). ``match_hands``: 0 = hands until the
      target, 1 = the match is one hand (Dominoball, OpenSpiel).
    - ``max_replacements``, ``free_replacements``: Dominoball replacements
      per seat per match, and how many of them cost no strike.
    """

    preset: str
    players: int
    hand_size: int
    partnerships: bool = False
    drawing: bool = False
    boneyard_reserve: int = 0
    spinner: str = "none"
    end_scoring: str = "none"
    zero_lead_strikes: int = 0
    first_lead: str = "lot"
    first_lead_tile: str = "1:1"
    next_lead: str = "winner"
    hand_scoring: str = "others_minus_own"
    round_to: int = 1
    blocked_tie: str = "nobody"
    winner_by: str = "domino_or_lightest"
    score_own_pair: bool = False
    alone_00: int = 0
    target: int = 100
    target_mode: str = "reach_wins"
    instant_target: bool = False
    match_hands: int = 0
    max_replacements: int = 0
    free_replacements: int = 0

    @property
    def sides(self) -> int:
        """Number of scoring sides: 2 in partnerships, else ``players``."""
        return 2 if self.partnerships else self.players

    @property
    def boneyard_size(self) -> int:
        """Tiles left undealt (the boneyard at the deal)."""
        return N_TILES - self.players * self.hand_size

    @property
    def low_is_good(self) -> bool:
        """Whether a side wants to score less than the others: the match
        ``target`` is one to avoid (``target_mode="reach_loses"``; Kozel,
        "How to play Domino": the first pair to record 101 loses the match). Every
        harness turns its signs by this one property: a margin, a value or
        a "more points" comparison is then "better" in every variant.

        >>> get_rules("kozel").low_is_good, get_rules("draw").low_is_good
        (True, False)
        """
        return self.target_mode == "reach_loses"

    @property
    def points_unit(self) -> str:
        """What the numbers in ``points`` and ``scores`` count, as a plural
        noun for labels: ``"strikes"`` where hands score strikes
        (``hand_scoring="strikes"``; Dominoball: a strike per 5,
        net of replacement costs), ``"recorded points"`` where the losers of
        a hand record its points (``hand_scoring="losers_record"``; Kozel,
        Kozel), else ``"points"`` (every other preset).
        :attr:`points_unit_one` is its singular.

        >>> [get_rules(p).points_unit for p in ("draw", "kozel", "dominoball")]
        ['points', 'recorded points', 'strikes']
        """
        return _POINTS_UNITS.get(self.hand_scoring, "points")

    @property
    def points_unit_one(self) -> str:
        """The singular of :attr:`points_unit` (``"point"``, ``"recorded
        point"``, ``"strike"``), for a count of one.

        >>> get_rules("dominoball").points_unit_one
        'strike'
        """
        return self.points_unit[:-1]

    def side_of(self, seat: int) -> int:
        """The side (seat, or pair ``seat % 2``) a seat scores for."""
        return seat % 2 if self.partnerships else seat

    def vector(self) -> np.ndarray:
        """The rules as an ``int64`` array of shape ``(R_SIZE,)`` for the kernels."""
        v = np.zeros(L.R_SIZE, np.int64)
        v[L.R_PLAYERS] = self.players
        v[L.R_HAND_SIZE] = self.hand_size
        v[L.R_PARTNERS] = int(self.partnerships)
        v[L.R_DRAWING] = int(self.drawing)
        v[L.R_RESERVE] = self.boneyard_reserve
        v[L.R_SPINNER] = _SPINNER[self.spinner]
        v[L.R_END_SCORING] = _END_SCORING[self.end_scoring]
        v[L.R_ZERO_LEAD] = self.zero_lead_strikes
        v[L.R_FIRST_LEAD] = _FIRST_LEAD[self.first_lead]
        v[L.R_FIRST_LEAD_TILE] = Tile.parse(self.first_lead_tile).id
        v[L.R_NEXT_LEAD] = _NEXT_LEAD[self.next_lead]
        v[L.R_HAND_SCORING] = _HAND_SCORING[self.hand_scoring]
        v[L.R_ROUND] = self.round_to
        v[L.R_BLOCKED_TIE] = _BLOCKED_TIE[self.blocked_tie]
        v[L.R_WINNER_BY] = _WINNER_BY[self.winner_by]
        v[L.R_SCORE_OWN_PAIR] = int(self.score_own_pair)
        v[L.R_ALONE_00] = self.alone_00
        v[L.R_TARGET] = self.target
        v[L.R_TARGET_MODE] = _TARGET_MODE[self.target_mode]
        v[L.R_INSTANT] = int(self.instant_target)
        v[L.R_MATCH_HANDS] = self.match_hands
        v[L.R_MAX_REPL] = self.max_replacements
        v[L.R_FREE_REPL] = self.free_replacements
        return v

    def to_record(self) -> dict:
        """The record form: ``{"preset": name, "players": n, <fields that
        differ from the preset's for n players>}``; :meth:`from_record` reads
        it back.

        >>> get_rules("draw", players=4, partnerships=True, target=150).to_record()
        {'preset': 'draw', 'players': 4, 'partnerships': True, 'target': 150}
        """
        base = _build(self.preset, {"players": self.players})
        out: dict[str, Any] = {"preset": self.preset, "players": self.players}
        for f in dataclasses.fields(self):
            if f.name in ("preset", "players"):
                continue
            if getattr(self, f.name) != getattr(base, f.name):
                out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def from_record(cls, record: "dict | str") -> "Rules":
        """The rules a record gives: the inverse of :meth:`to_record`
        (``Rules.from_record(r.to_record()) == r``). ``record`` is an object
        ``{"preset": name, <field>: value, ...}`` (a field left out keeps
        the preset's value), or a preset name alone; validated as
        :func:`get_rules` does.

        >>> Rules.from_record({"preset": "block", "players": 3, "target": 4}).hand_size
        5

        :raises ValueError: not an object or a preset name, no ``"preset"``,
            an unknown preset or field, or a value :func:`get_rules` refuses;
            the one-line message begins with ``rules`` and names the field.
        """
        if isinstance(record, str):
            name, overrides = record, {}
        elif isinstance(record, dict):
            name = record.get("preset")
            if not isinstance(name, str):
                raise ValueError('rules: an object needs "preset": a preset name'
                                 + ("" if name is None else f" (got {_shown(name)})"))
            overrides = {k: v for k, v in record.items() if k != "preset"}
            for key in overrides:
                if not isinstance(key, str):
                    raise ValueError(f"rules: a field name must be a string (got {_shown(key)})")
        else:
            raise ValueError(f"rules must be a preset name or an object, not {_shown(record)}")
        try:
            return get_rules(name, **overrides)
        except (ValueError, TypeError) as e:
            raise ValueError(f"rules: {' '.join(str(e).split())}") from None


def _shown(value) -> str:
    """``value`` as JSON writes it (its ``repr`` when JSON cannot), on one line."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return " ".join(repr(value).split())


def margins(rules: Rules, points: tuple) -> list[float]:
    """Each side's ``points`` minus the mean of the other sides', the sign
    turned where low is good (:attr:`Rules.low_is_good`), so more is always
    better: the tournament's ``margin`` column, and the learners' reward, a
    float per side.

    >>> margins(get_rules("draw", players=3), (12, 0, 3))
    [10.5, -7.5, -3.0]
    >>> margins(get_rules("kozel"), (0, 25))
    [25.0, -25.0]

    :raises ZeroDivisionError: ``points`` of a single side.
    """
    sign = -1 if rules.low_is_good else 1
    g = [sign * p for p in points]
    tot, n = sum(g), len(g)
    return [x - (tot - x) / (n - 1) for x in g]


def _draw(players: int) -> dict:
    return dict(players=players, hand_size=6 if players == 4 else 7, drawing=True,
                target=100 if players == 2 else 61)


def _block(players: int) -> dict:
    return dict(players=players, hand_size=7 if players == 2 else 5,
                target=100 if players == 2 else 61)


def _all_fives(players: int) -> dict:
    return dict(players=players, hand_size=7 if players == 2 else 5, drawing=True,
                spinner="first_double", end_scoring="points", hand_scoring="others",
                round_to=5, target=150)


def _fives(players: int) -> dict:
    return dict(players=players, hand_size=7, drawing=True, end_scoring="points",
                first_lead="highest_double", round_to=5, target=150, instant_target=True)


def _kozel(players: int) -> dict:
    return dict(players=players, hand_size=7, partnerships=True, first_lead="tile",
                first_lead_tile="1:1", next_lead="last_layer", hand_scoring="losers_record",
                alone_00=25, target=101, target_mode="reach_loses")


def _express(players: int) -> dict:
    return dict(players=players, hand_size=7, first_lead="highest_double",
                next_lead="after_leader", hand_scoring="others", blocked_tie="leader_order",
                score_own_pair=True, target=100)


def _dominoball(players: int) -> dict:
    return dict(players=players, hand_size=7, drawing=True, boneyard_reserve=1,
                spinner="base_double", end_scoring="strikes", zero_lead_strikes=1,
                hand_scoring="strikes", target=5, match_hands=1, max_replacements=4,
                free_replacements=1)


def _openspiel_block(players: int) -> dict:
    return dict(players=players, hand_size=7, first_lead="seat0", hand_scoring="others",
                winner_by="lightest", match_hands=1, target=1)


def _openspiel_team(players: int) -> dict:
    return dict(players=players, hand_size=7, partnerships=True, first_lead="seat0",
                hand_scoring="others", winner_by="lightest", match_hands=1, target=1)


def _pydominoes(players: int) -> dict:
    # dominoes 6.1 (PyPI), dominoes/game.py Game.make_move and dominoes/series.py:
    # the pair that goes out, or the lighter pair of a blocked game, scores every
    # pip left (its own included); a blocked tie scores nothing; the 6:6 leads the
    # first hand; a series is played to 200. Its next-hand lead (the blocker if
    # its pair won, the previous leader on a tie, else the seat after the
    # blocker) has no Rules field: "winner" is the nearest (docs/interop.md).
    return dict(players=players, hand_size=7, partnerships=True, first_lead="tile",
                first_lead_tile="6:6", next_lead="winner", hand_scoring="others",
                score_own_pair=True, blocked_tie="nobody", target=200)


# name -> (builder, default players, allowed players, source document)
PRESETS: dict[str, tuple] = {
    "draw": (_draw, 2, (2, 4), "How to play Dominoes (Bulgarian): Draw"),
    "block": (_block, 2, (2, 4), "How to play Dominoes (Bulgarian): Block"),
    "all_fives": (_all_fives, 2, (2, 4), "How to play Dominoes (Bulgarian): All Fives"),
    "fives": (_fives, 2, (2, 2), "How to play Domino (Russian): Пятёрки"),
    "kozel": (_kozel, 4, (4, 4), "How to play Domino (Russian): Козёл"),
    "express": (_express, 2, (2, 4), "Rules of Domino-Express (Russian)"),
    "dominoball": (_dominoball, 2, (2, 2), "Rules of the game: Dominoball (Russian): Доминбол"),
    "openspiel_block": (_openspiel_block, 2, (2, 2), "OpenSpiel python_block_dominoes"),
    "openspiel_team": (_openspiel_team, 4, (4, 4), "OpenSpiel python_team_dominoes"),
    "pydominoes": (_pydominoes, 4, (4, 4), "the dominoes package 6.1 (PyPI)"),
}


def preset_names() -> list[str]:
    """Names of all presets, in the order of docs/rules.md."""
    return list(PRESETS)


_FIELDS = {f.name: f for f in dataclasses.fields(Rules)}


def _build(name: str, overrides: dict) -> Rules:
    builder, default_players, (lo, hi), _ = PRESETS[name]
    players = overrides.get("players", default_players)
    if not isinstance(players, (int, np.integer)) or isinstance(players, bool):
        raise ValueError(f"{name}: players must be an integer (got {players!r})")
    if not lo <= players <= hi:
        allowed = str(lo) if lo == hi else f"{lo}..{hi}"
        raise ValueError(f"{name}: players must be {allowed} (got {players})")
    fields = builder(int(players))
    fields.update(overrides)
    return Rules(preset=name, **fields)


def get_rules(name: str = "draw", **overrides) -> Rules:
    """The preset ``name`` of docs/rules.md, with any field overridden, validated.

    ``players`` changes the per-player-count defaults (hand size, target) of
    the preset before the other overrides apply.

    :raises ValueError: unknown preset or field, a value of the wrong type or
        out of range, more tiles dealt than the set holds, or fields that
        contradict each other; the message names the field and why.
    """
    if isinstance(name, Rules):
        return dataclasses.replace(name, **overrides) if overrides else name
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; presets are: {', '.join(PRESETS)}")
    for key in overrides:
        if key not in _FIELDS or key == "preset":
            valid = ", ".join(k for k in _FIELDS if k != "preset")
            raise ValueError(f"{name}: unknown rules field {key!r}; fields are: {valid}")
    rules = _build(name, overrides)
    validate(rules)
    return rules


#: the largest size of an integer field: the kernels hold the rules and the
#: points in int64, and a target or a count beyond this is no game
MAX_FIELD = 1_000_000_000


def validate(r: Rules) -> None:
    """Check a :class:`Rules` for range errors and contradictions.

    :raises ValueError: naming the field and the reason.
    """
    p = r.preset

    def bad(field, why):
        raise ValueError(f"{p}: {field} {why}")

    for f in dataclasses.fields(r):
        v = getattr(r, f.name)
        if f.name in _CHOICES:
            if not isinstance(v, str) or v not in _CHOICES[f.name]:
                bad(f.name, f"must be one of {', '.join(_CHOICES[f.name])} (got {v!r})")
        elif f.type in ("int", int):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                bad(f.name, f"must be an integer (got {v!r})")
            size = abs(int(v))
            if size > MAX_FIELD:   # a number too long to print is told by its bits
                shown = v if size.bit_length() <= 64 else f"an integer of {size.bit_length()} bits"
                bad(f.name, f"must be at most {MAX_FIELD:,} in size (got {shown})")
        elif f.type in ("bool", bool):
            if not isinstance(v, (bool, np.bool_)):
                bad(f.name, f"must be true or false (got {v!r})")
    if not 2 <= r.players <= 4:
        bad("players", f"must be 2..4 (got {r.players})")
    if r.hand_size < 1:
        bad("hand_size", f"must be at least 1 (got {r.hand_size})")
    if r.boneyard_reserve < 0:
        bad("boneyard_reserve", f"must be >= 0 (got {r.boneyard_reserve})")
    dealt = r.players * r.hand_size
    if dealt + r.boneyard_reserve > N_TILES:
        bad("hand_size", f"{r.hand_size} x {r.players} players"
            f"{' + reserve ' + str(r.boneyard_reserve) if r.boneyard_reserve else ''}"
            f" needs {dealt + r.boneyard_reserve} tiles; the set holds {N_TILES}")
    if r.partnerships and r.players != 4:
        bad("partnerships", f"needs 4 players (got {r.players})")
    if r.hand_scoring == "losers_record" and not r.partnerships:
        bad("hand_scoring", "'losers_record' (Kozel) needs partnerships")
    if r.target_mode == "reach_loses" and not r.partnerships:
        bad("target_mode", "'reach_loses' needs two sides (partnerships)")
    if r.hand_scoring == "strikes" and r.end_scoring not in ("strikes", "none"):
        bad("end_scoring", "must be 'strikes' or 'none' when hand_scoring is 'strikes'")
    if r.end_scoring == "strikes" and r.hand_scoring != "strikes":
        bad("hand_scoring", "must be 'strikes' when the ends score strikes")
    if r.hand_scoring == "strikes" and r.sides != 2:
        bad("players", "strike scoring (Dominoball) is for two sides")
    if r.boneyard_reserve and not r.drawing:
        bad("boneyard_reserve", "only makes sense when drawing is on")
    if r.max_replacements < 0 or r.free_replacements < 0:
        bad("max_replacements", "must be >= 0")
    if r.max_replacements and not r.drawing:
        bad("max_replacements", "replacements draw from the boneyard: needs drawing")
    if r.free_replacements > r.max_replacements:
        bad("free_replacements", f"cannot exceed max_replacements ({r.max_replacements})")
    if r.round_to < 1:
        bad("round_to", f"must be >= 1 (got {r.round_to})")
    if r.target < 1:
        bad("target", f"must be >= 1 (got {r.target})")
    if r.match_hands not in (0, 1):
        bad("match_hands", f"must be 0 (until the target) or 1 (got {r.match_hands})")
    if r.alone_00 < 0 or r.zero_lead_strikes < 0:
        bad("alone_00", "must be >= 0")
    try:
        Tile.parse(r.first_lead_tile)
    except ValueError as e:
        bad("first_lead_tile", str(e))
    if r.first_lead == "tile" and dealt < N_TILES:
        bad("first_lead", f"'tile' needs every tile dealt (the {r.first_lead_tile} could be "
            f"in the boneyard); deal {N_TILES // r.players} each")
    if r.instant_target and r.match_hands == 1:
        bad("instant_target", "a one-hand match has no target to reach")
