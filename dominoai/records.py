"""Game records (``dominoai.record/1``): read, check, replay and write.

A record is how a user saves a game, reproduces a bug or checks a rule
(format: ``docs/records.md``). :func:`load_record` reads one and
checks its form (rules, seats, deals, tiles, move shapes); :func:`replay`
plays it through the engine, checking every move against the rules, and
returns the result that ``dominoai replay FILE --json`` prints;
:func:`record_from_match` and :func:`save_record` write one from a played
:class:`~dominoai.game.Match`.

A tile move or a replacement may carry a bot's analysis of that decision,
``"analysis": [{"move": "6:4 right", "value": 3.5, "n": 200}, ...]`` (the
values the deciding bot gave each candidate; docs/render.md). The replay
checks its shape (:func:`parse_analysis`) and otherwise ignores it; a
:class:`RecordMove` keeps it, so a record reads back as it was written.

Every problem raises :class:`RecordError`, whose message is one line that
names the hand and the move (both 1-based; moves count the record's own
entries, forced events included) and the reason.

>>> rec = {"format": "dominoai.record/1", "rules": "block",
...        "hands": [{"deal": [["6:6", "6:5", "6:4", "6:3", "6:2", "6:1", "6:0"],
...                            ["5:5", "5:4", "5:3", "5:2", "5:1", "5:0", "4:4"]],
...                   "leader": 0,
...                   "moves": [{"tile": "6:6"}, {"tile": "6:5", "end": "right"},
...                             {"pass": True}]}]}
>>> replay(rec)
Traceback (most recent call last):
...
dominoai.records.RecordError: hand 1, move 3: pass while able to play (seat 1 holds 5:0 for the right end)
>>> rec["hands"][0]["moves"][2:] = [{"tile": "5:5", "end": "right"}]
>>> replay(rec).to_dict()["hands"][0]["end"] is None   # the record stops mid-hand
True
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .engine import kernels as K
from .game import Hand, Match
from .moves import END_NAMES, IllegalMoveError, Move
from .rules import Rules
from .tiles import N_TILES, Tile, parse_tile

__all__ = [
    "FORMAT",
    "SEAT_KINDS",
    "RecordError",
    "RecordMove",
    "parse_analysis",
    "HandRecord",
    "Record",
    "ReplayResult",
    "load_record",
    "parse_record",
    "replay",
    "match_outcome",
    "match_from_record",
    "record_from_match",
    "save_record",
    "dumps_record",
]

FORMAT = "dominoai.record/1"
#: who may sit in a seat (a record's ``seat_kinds``): a person, by the name
#: they gave, or a bot, by its spec
SEAT_KINDS = ("person", "bot")

_HAND_KEYS = ("deal", "boneyard", "leader", "moves")
_MOVE_SHAPES = "a move is {tile, end}, {draw: k}, {pass: true} or {replace: true}"


class RecordError(ValueError):
    """A record that cannot be read or replayed. ``str(err)`` is one line:
    ``"hand H, move M: reason"`` (or ``"hand H, deal: ..."``, or just the
    reason for problems of the whole record). ``hand`` and ``move`` are the
    1-based positions (None when they do not apply); ``reason`` the why."""

    def __init__(self, reason: str, hand: int | None = None, move: "int | str | None" = None):
        self.reason = " ".join(str(reason).split())
        self.hand = hand
        self.move = move
        where = ""
        if hand is not None:
            where = f"hand {hand}"
            if isinstance(move, int):
                where += f", move {move}"
            elif move:
                where += f", {move}"
            where += ": "
        super().__init__(where + self.reason)


# ---------------------------------------------------------------- the record
@dataclass(frozen=True)
class RecordMove:
    """One entry of a hand's ``moves``: ``kind`` is ``play`` (``tile``, ``end``
    or None, and ``text``: the tile as written, whose first pip is the left
    end when it is the lead), ``draw`` (``count``), ``pass`` or ``replace``.
    ``analysis``: a play's or replacement's stored move values (a tuple of
    dicts, :func:`parse_analysis`), None when the record gives none."""

    kind: str
    tile: Tile | None = None
    end: int | None = None
    text: str | None = None
    count: int = 0
    analysis: tuple | None = field(default=None, compare=False)

    def to_dict(self) -> dict:
        if self.kind == "play":
            d: dict[str, Any] = {"tile": self.text or str(self.tile)}
            if self.end is not None:
                d["end"] = END_NAMES[self.end]
        elif self.kind == "draw":
            return {"draw": self.count}
        else:
            d = {self.kind: True}
        if self.analysis is not None:
            d["analysis"] = [dict(e) for e in self.analysis]
        return d


@dataclass(frozen=True)
class HandRecord:
    """One hand of a record: the deal (one tuple of tiles per seat), the
    boneyard in draw order (None: left out, allowed where nothing is drawn),
    the leader (None: decided by the rules) and the moves."""

    deal: tuple
    boneyard: tuple | None
    leader: int | None
    moves: tuple

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"deal": [[str(t) for t in seat] for seat in self.deal]}
        if self.boneyard is not None:
            d["boneyard"] = [str(t) for t in self.boneyard]
        if self.leader is not None:
            d["leader"] = self.leader
        d["moves"] = [m.to_dict() for m in self.moves]
        return d


@dataclass(frozen=True)
class Record:
    """A record whose form has been checked (see :func:`load_record`).

    ``seats``: one name per seat (a person's name or a bot's spec), or None;
    ``seat_kinds``: one of :data:`SEAT_KINDS` per seat (``"person"`` or
    ``"bot"``), or None where the record does not say who sat there."""

    rules: Rules
    hands: tuple
    seats: tuple | None = None
    extra: dict = field(default_factory=dict, compare=False)
    seat_kinds: tuple | None = None

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"format": FORMAT, "rules": self.rules.to_record()}
        if self.seats is not None:
            d["seats"] = list(self.seats)
        if self.seat_kinds is not None:
            d["seat_kinds"] = list(self.seat_kinds)
        d.update(self.extra)
        d["hands"] = [h.to_dict() for h in self.hands]
        return d


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _parse_rules(v) -> Rules:
    if v is None:
        raise RecordError("the record gives no rules (a preset name or {\"preset\": ..., overrides})")
    try:
        return Rules.from_record(v)
    except ValueError as e:
        raise RecordError(str(e)) from None


def _parse_tiles(v, what: str, hand: int, where: str) -> tuple:
    if not isinstance(v, list):
        raise RecordError(f"{what} must be a list of tiles like \"6:4\"", hand, where)
    out = []
    for x in v:
        try:
            out.append(Tile(parse_tile(x)))
        except ValueError as e:
            raise RecordError(f"{what}: {e}", hand, where) from None
    return tuple(out)


_ANALYSIS_SHAPE = 'a list of {"move": "6:4 right", "value": 1.5, "n": 200} ("n" optional)'


def parse_analysis(a, hand: int | None = None, move: int | None = None) -> tuple:
    """Check a move's ``analysis``: a list of objects, each with ``move`` (a
    move as :class:`~dominoai.moves.Move` prints it: ``"6:4 right"``,
    ``"6:4"``, ``"replace"``), ``value`` (a finite number, the bot's value
    in its own units) and optionally ``n`` (the samples behind it, an
    integer >= 0), no other key. Returns it as a tuple of dicts.

    >>> parse_analysis([{"move": "6:4 right", "value": 3.5, "n": 200}])
    ({'move': '6:4 right', 'value': 3.5, 'n': 200},)
    >>> parse_analysis([{"move": "6:4", "value": "high"}], 1, 3)
    Traceback (most recent call last):
    ...
    dominoai.records.RecordError: hand 1, move 3: "analysis" entry 1: value must be a finite number, not "high"; the analysis is a list of {"move": "6:4 right", "value": 1.5, "n": 200} ("n" optional)

    :raises RecordError: any other shape (one line naming the hand, the
        move and the entry).
    """
    if not isinstance(a, list):
        raise RecordError(f'"analysis" must be {_ANALYSIS_SHAPE}, not {json.dumps(a)[:60]}', hand, move)
    out = []
    for k, e in enumerate(a, 1):
        def bad(why):
            return RecordError(f'"analysis" entry {k}: {why}; the analysis is {_ANALYSIS_SHAPE}', hand, move)
        if not isinstance(e, dict):
            raise bad(f"an entry is an object, not {json.dumps(e)[:40]}")
        extra = sorted(set(e) - {"move", "value", "n"})
        if extra:
            raise bad(f"unknown key {extra[0]!r}")
        m = e.get("move")
        if not isinstance(m, str):
            raise bad(f'move must be a move like "6:4 right", not {json.dumps(m)}')
        try:
            Move.parse(m)
        except ValueError as err:
            raise bad(f"move {json.dumps(m)}: {err}") from None
        v = e.get("value")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise bad(f"value must be a finite number, not {json.dumps(v)}")
        if "n" in e and (not _is_int(e["n"]) or e["n"] < 0):
            raise bad(f"n must be a whole number of samples (0 or more), not {json.dumps(e['n'])}")
        out.append(dict(e))
    return tuple(out)


def _parse_move(mv, hand: int, i: int) -> RecordMove:
    if not isinstance(mv, dict) or not mv:
        raise RecordError(f"{json.dumps(mv)} is not a move; {_MOVE_SHAPES}", hand, i)
    analysis = None
    if "analysis" in mv:
        if not ("tile" in mv or "replace" in mv):
            raise RecordError('only a tile move or a replacement may carry an "analysis"', hand, i)
        analysis = parse_analysis(mv["analysis"], hand, i)
        mv = {k: v for k, v in mv.items() if k != "analysis"}
    keys = set(mv)
    if "tile" in keys:
        extra = keys - {"tile", "end"}
        if extra:
            raise RecordError(f"unexpected {', '.join(sorted(extra))} in a tile move; {_MOVE_SHAPES}", hand, i)
        text = mv["tile"]
        try:
            tile = Tile(parse_tile(text))
        except ValueError as e:
            raise RecordError(str(e), hand, i) from None
        end = mv.get("end")
        if end is not None:
            if not isinstance(end, str) or end.strip().lower() not in END_NAMES:
                raise RecordError(f"the end {json.dumps(end)} does not exist; ends are left, right, up, down",
                                  hand, i)
            end = END_NAMES.index(end.strip().lower())
        return RecordMove("play", tile, end, "".join(text.split()), analysis=analysis)
    if len(keys) != 1:
        raise RecordError(f"{json.dumps(mv)} mixes {' and '.join(sorted(keys))}; {_MOVE_SHAPES}", hand, i)
    (kind,) = keys
    v = mv[kind]
    if kind == "draw":
        if not _is_int(v) or v < 1:
            raise RecordError(f"a draw gives the number of tiles drawn (1 or more), not {json.dumps(v)}", hand, i)
        return RecordMove("draw", count=v)
    if kind in ("pass", "replace"):
        if v is not True:
            raise RecordError(f"write {{\"{kind}\": true}}, not {json.dumps(mv)}", hand, i)
        return RecordMove(kind, analysis=analysis)
    raise RecordError(f"unknown move key {kind!r}; {_MOVE_SHAPES}", hand, i)


def _parse_hand(h, hi: int, rules: Rules) -> HandRecord:
    if not isinstance(h, dict):
        raise RecordError("a hand is an object with deal, boneyard, leader and moves", hi)
    extra = [k for k in h if k not in _HAND_KEYS]
    if extra:
        raise RecordError(f"unknown key {extra[0]!r} (a hand has {', '.join(_HAND_KEYS)})", hi)
    if "deal" not in h:
        raise RecordError("the hand has no deal", hi)
    deal = h["deal"]
    if not isinstance(deal, list):
        raise RecordError("the deal must be a list with one list of tiles per seat", hi, "deal")
    if len(deal) != rules.players:
        raise RecordError(f"the deal has {len(deal)} hands; these rules ({rules.preset}) have "
                          f"{rules.players} players", hi, "deal")
    hands = tuple(_parse_tiles(d, f"seat {s}'s hand", hi, "deal") for s, d in enumerate(deal))
    for s, tiles in enumerate(hands):
        if len(tiles) != rules.hand_size:
            raise RecordError(f"seat {s} was dealt {len(tiles)} tiles; the rules deal {rules.hand_size}",
                              hi, "deal")
    bone = None
    if "boneyard" in h:
        bone = _parse_tiles(h["boneyard"], "the boneyard", hi, "boneyard")
    elif rules.drawing:
        raise RecordError(f"these rules ({rules.preset}) draw from the boneyard: the record must give it "
                          f"in draw order", hi, "boneyard")
    seen: set[int] = set()
    for t in [t for seat in hands for t in seat] + list(bone or ()):
        if t.id in seen:
            raise RecordError(f"tile {t} appears twice", hi, "deal")
        seen.add(t.id)
    if bone is not None and len(seen) != N_TILES:
        missing = " ".join(str(Tile(t)) for t in range(N_TILES) if t not in seen)
        raise RecordError(f"the deal and boneyard miss {missing}; they must be the whole set", hi, "boneyard")
    leader = h.get("leader")
    if leader is not None and (not _is_int(leader) or not 0 <= leader < rules.players):
        raise RecordError(f"the leader must be a seat 0..{rules.players - 1}, not {json.dumps(leader)}",
                          hi, "leader")
    moves = h.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError("moves must be a list", hi, "moves")
    return HandRecord(hands, bone, leader, tuple(_parse_move(m, hi, i) for i, m in enumerate(moves, 1)))


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value) -> str | None:
    """The first lone surrogate (a code point of U+D800..U+DFFF, which is
    not a character and has no UTF-8 form) in any string of ``value``
    (parsed JSON: strings, numbers, lists and dicts, their keys included, at
    any depth); None if there is none."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            m = _SURROGATE.search(v)
            if m is not None:
                return m.group()
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return None


def not_an_object(data) -> RecordError:
    """The error for JSON ``data`` that is not an object: ``a record is a
    JSON object, not list`` (JSON's ``null`` named as such)."""
    kind = "null" if data is None else type(data).__name__
    return RecordError(f"a record is a JSON object, not {kind}")


def parse_record(data) -> Record:
    """Check the form of a record given as a ``dict`` (parsed JSON).

    :raises RecordError: not a ``dominoai.record/1`` object, bad or unknown
        rules, a string holding a lone surrogate, seats or seat kinds of
        the wrong length, a kind other than
        ``"person"`` or ``"bot"``, a deal that is not the set (wrong
        hand sizes, unknown or repeated tiles), a missing boneyard in a
        preset that draws, a bad leader or a move of no known shape.
    """
    if isinstance(data, Record):
        return data
    if not isinstance(data, dict):
        raise not_an_object(data)
    if data.get("format") != FORMAT:
        got = data.get("format")
        raise RecordError(f"not a {FORMAT} record (format is {json.dumps(got)})" if got is not None
                          else f"not a {FORMAT} record (no \"format\" key)")
    bad = lone_surrogate(data)
    if bad is not None:
        raise RecordError(f"a string of the record holds a lone surrogate (U+{ord(bad):04X}), which is not a "
                          "character and cannot be written as UTF-8")
    rules = _parse_rules(data.get("rules"))
    seats = data.get("seats")
    if seats is not None:
        if not isinstance(seats, list) or len(seats) != rules.players \
                or not all(isinstance(s, str) for s in seats):
            raise RecordError(f"seats must be a list of {rules.players} names (one per seat)")
        seats = tuple(seats)
    kinds = _parse_seat_kinds(data.get("seat_kinds"), seats, rules.players)
    hands = data.get("hands")
    if not isinstance(hands, list):
        raise RecordError("the record needs \"hands\": a list of hands")
    extra = {k: v for k, v in data.items() if k not in ("format", "rules", "seats", "seat_kinds", "hands")}
    return Record(rules, tuple(_parse_hand(h, i, rules) for i, h in enumerate(hands, 1)), seats, extra,
                  kinds)


def _parse_seat_kinds(kinds, seats, players: int) -> tuple | None:
    if kinds is None:
        return None
    shape = f"seat_kinds must be a list of {players} kinds, \"person\" or \"bot\" (one per seat)"
    if not isinstance(kinds, list) or len(kinds) != players:
        raise RecordError(f"{shape}, not {json.dumps(kinds)[:60]}")
    for k in kinds:
        if k not in SEAT_KINDS:
            raise RecordError(f"{shape}; {json.dumps(k)[:40]} is not a kind")
    if seats is None:
        raise RecordError("seat_kinds needs seats: the names of the people and the specs of the bots")
    return tuple(kinds)


def load_record(source) -> Record:
    """A record from a JSON file (path), a parsed ``dict`` or a :class:`Record`,
    with its form checked (:func:`parse_record`); :func:`replay` checks the play.

    :raises RecordError: the file cannot be read or is not JSON, or the form
        is wrong.
    """
    if isinstance(source, (Record, dict)):
        return parse_record(source)
    if not isinstance(source, (str, os.PathLike)):
        raise RecordError(f"a record is a path, a dict or a Record, not {type(source).__name__}")
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError as e:
        raise RecordError(f"{os.fspath(source)}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{os.fspath(source)}: not UTF-8 text") from None
    return parse_record(_loads(text))


def json_error_text(e: Exception) -> str:
    """What was wrong with JSON text that ``json.loads`` refused with ``e``
    (a ``ValueError`` or ``RecursionError``), in one line: the decoder's
    message, or, for a number too long for Python to convert, that limit in
    words of its own (Python's names a function to call)."""
    if isinstance(e, RecursionError):
        return "arrays and objects nest too deep"
    text = str(e)
    if "integer string conversion" in text:
        limit = re.search(r"\((\d+) digits\)", text)
        return f"a number has more than {limit.group(1) if limit else 'the allowed'} digits"
    return text


def _loads(text: str):
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
        raise RecordError(f"invalid JSON: {json_error_text(e)}") from None


# ---------------------------------------------------------------- replay
@dataclass
class ReplayResult:
    """What ``dominoai replay FILE --json`` prints (docs/records.md): per hand
    ``end``, ``winner``, ``points``, ``pips``; ``scores``, ``winner``,
    ``finished``; ``dry_goat`` (Kozel) and ``goals`` (Dominoball) where they
    apply. ``match`` is the replayed :class:`Match` (hands, events);
    ``notes[h]`` maps an event index of hand ``h`` to the points each side
    made by that move, where it made any before the hand ended."""

    hands: list
    scores: list
    winner: int | None
    finished: bool
    dry_goat: bool | None = None
    goals: list | None = None
    match: Match | None = field(default=None, repr=False, compare=False)
    record: Record | None = field(default=None, repr=False, compare=False)
    notes: list = field(default_factory=list, repr=False, compare=False)

    def to_dict(self) -> dict:
        d = {"hands": [dict(h) for h in self.hands], "scores": list(self.scores),
             "winner": self.winner, "finished": self.finished}
        if self.dry_goat is not None:
            d["dry_goat"] = self.dry_goat
        if self.goals is not None:
            d["goals"] = list(self.goals)
        return d

    def summary(self) -> str:
        """A readable hand-by-hand account: deal, moves, result; final scores."""
        return _summary(self)


def match_outcome(match: Match) -> dict:
    """The replay result of a match as it stands (the ``--json`` object).

    A hand still being played reports ``end``/``winner`` None, its points so
    far and the pips now; its points count in ``scores`` already.
    """
    r = match.rules
    hands = []
    for h in match.hands:
        res = h.result
        if res is None:
            hands.append({"end": None, "winner": None, "points": list(h.points),
                          "pips": [h.tiles(s).pips for s in range(r.players)]})
        else:
            hands.append(res.to_dict())
    scores = list(match.scores)  # includes the points of a hand in play
    mr = match.result
    out = {"hands": hands, "scores": scores, "winner": mr.winner, "finished": mr.finished}
    if r.hand_scoring == "losers_record":
        out["dry_goat"] = bool(mr.dry_goat)
    if r.hand_scoring == "strikes":
        out["goals"] = [int(K.goals_for(s)) for s in scores]
    return out


def _can_play_note(hand: Hand) -> str:
    s = hand.seat
    if not hand.ends:
        return f"seat {s} is to lead"
    if hand.must_play is not None:
        return f"seat {s} must play {hand.must_play}, the tile it drew"
    for m in hand.legal_moves():
        if not m.replace:
            return f"seat {s} holds {m.tile} for the {END_NAMES[m.end]} end"
    return f"seat {s} can play"  # pragma: no cover - the engine waits only on a seat that can


def _over_note(hand: Hand, ended_at: int | None) -> str:
    res = hand.result
    how = {"domino": "domino", "blocked": "blocked"}.get(res.end, "cut short: the match target was reached")
    when = f" at move {ended_at}" if ended_at else ""
    return f"the hand is over (it ended{when}, {how}); nothing may follow"


def _replay_hand(hand: Hand, hr: HandRecord, hi: int) -> dict:
    """Play the record's moves on ``hand``; return notes (event index -> points)."""
    rules = hand.rules
    cursor = 0          # first event not yet matched by the record
    ended_at = None     # the record's move after which the hand ended
    notes: dict[int, tuple] = {}
    for i, mv in enumerate(hr.moves, 1):
        events = hand.events
        if mv.kind in ("draw", "pass"):
            # forced events the record left out are filled in; a given one must happen
            j = next((k for k in range(cursor, len(events)) if events[k].kind == mv.kind), None)
            if j is not None:
                ev = events[j]
                if mv.kind == "draw" and ev.count != mv.count:
                    raise RecordError(f"draw {mv.count} given, but seat {ev.seat} draws {ev.count} here "
                                      f"(a draw is the whole forced draw of the turn)", hi, i)
                cursor = j + 1
                if hand.over:  # e.g. the draw that emptied the boneyard, then blocked
                    ended_at = i
                continue
            if hand.over:
                raise RecordError(_over_note(hand, ended_at), hi, i)
            if mv.kind == "draw" and not rules.drawing:
                raise RecordError(f"a draw, but these rules ({rules.preset}) never draw", hi, i)
            raise RecordError(f"{mv.kind} while able to play ({_can_play_note(hand)})", hi, i)
        if hand.over:
            raise RecordError(_over_note(hand, ended_at), hi, i)
        before = hand.points
        n0 = len(events)
        try:
            if mv.kind == "replace":
                hand.play(Move.replacement())
            elif not hand.ends:  # the lead: no end; the first pip as written is the left end
                if mv.end in (2, 3):
                    raise IllegalMoveError(f"{mv.tile}: the lead takes no {END_NAMES[mv.end]} end "
                                           f"(left/right are accepted and ignored)")
                a, b = (int(x) for x in mv.text.split(":")) if mv.text else (mv.tile.high, mv.tile.low)
                hand.play(Move(mv.tile), orientation=1 if a < b else 0)
            else:
                hand.play(Move(mv.tile, mv.end))
        except IllegalMoveError as e:
            raise RecordError(str(e), hi, i) from None
        cursor = n0 + 1
        if hand.over:
            ended_at = i
        else:
            got = tuple(a - b for a, b in zip(hand.points, before))
            if any(got):
                notes[n0] = got
    return notes


def replay(record) -> ReplayResult:
    """Replay a record (path, ``dict`` or :class:`Record`), checking every move.

    Forced draws and passes the record leaves out are filled in; those it
    gives must be what the rules force (a ``{"draw": k}`` is the whole draw
    of that turn). The last hand may stop before its end; an earlier one
    may not.

    :raises RecordError: one line naming the hand, the move and why.
    """
    rec = load_record(record)
    match = Match(rec.rules, seed=0)
    notes = _replay_into(match, rec)
    out = match_outcome(match)
    return ReplayResult(out["hands"], out["scores"], out["winner"], out["finished"],
                        out.get("dry_goat"), out.get("goals"), match, rec, notes)


def match_from_record(record, seed=None) -> Match:
    """A live :class:`Match` holding a record's play (path, ``dict`` or
    :class:`Record`), every move checked as by :func:`replay`, ready to go
    on: a last hand that stops mid-way waits on its seat to move; after a
    finished hand the next one can be dealt with :meth:`Match.new_hand`.
    ``seed`` drives the deals of the hands still to come (None: fresh).

    :raises RecordError: as :func:`replay`.
    """
    rec = load_record(record)
    match = Match(rec.rules, seed=seed)
    _replay_into(match, rec)
    return match


def _replay_into(match: Match, rec: Record) -> list:
    """Deal and play every hand of ``rec`` on the fresh ``match``; return the
    per-hand notes (see :class:`ReplayResult`)."""
    rules = rec.rules
    notes = []
    for hi, hr in enumerate(rec.hands, 1):
        prev = match.current
        if prev is not None and not prev.over:
            n = len(rec.hands[hi - 2].moves)
            raise RecordError(f"moves missing: the hand is not over (seat {prev.seat} to play) "
                              f"but hand {hi} follows", hi - 1, n + 1)
        if match.finished:
            raise RecordError(f"the match finished with hand {hi - 1}; no hand may follow", hi)
        if hi == 1 and rules.first_lead == "lot" and hr.leader is None:
            raise RecordError(f"these rules ({rules.preset}) leave the first lead to lot: "
                              f"the record must give the leader", hi, "leader")
        try:
            hand = match.new_hand([[t.id for t in s] for s in hr.deal],
                                  None if hr.boneyard is None else [t.id for t in hr.boneyard],
                                  hr.leader)
        except ValueError as e:
            what = "leader" if "leader" in str(e) else "deal"
            raise RecordError(str(e), hi, what) from None
        notes.append(_replay_hand(hand, hr, hi))
    return notes


# ---------------------------------------------------------------- writing
def record_from_match(match: Match, seats: Iterable[str] | None = None,
                      seat_kinds: Iterable[str] | None = None) -> dict:
    """The record of a match (as played so far) as a ``dict``: rules, seats,
    and per hand the deal, the boneyard in draw order, the leader and every
    move, forced draws and passes and Dominoball replacements included.
    ``replay`` of it gives the match's results.

    :param seats: one name per seat: a person's name or a bot's spec.
    :param seat_kinds: one of :data:`SEAT_KINDS` per seat (``"person"`` or
        ``"bot"``; needs ``seats``), written as the record's ``seat_kinds``.
    :raises ValueError: ``seats`` or ``seat_kinds`` of another length than
        the players, an unknown kind, kinds without seats.

    >>> rec = record_from_match(Match("block", seed=1), ["easy", "easy"], ["person", "bot"])
    >>> rec["seats"], rec["seat_kinds"]
    (['easy', 'easy'], ['person', 'bot'])
    """
    r = match.rules
    d: dict[str, Any] = {"format": FORMAT, "rules": r.to_record()}
    if seats is not None:
        seats = [str(s) for s in seats]
        if len(seats) != r.players:
            raise ValueError(f"seats: {len(seats)} names given for {r.players} players")
        d["seats"] = seats
    if seat_kinds is not None:
        kinds = list(seat_kinds)
        if seats is None:
            raise ValueError("seat_kinds: give the seats' names too")
        if len(kinds) != r.players or any(k not in SEAT_KINDS for k in kinds):
            raise ValueError(f"seat_kinds: one of {', '.join(SEAT_KINDS)} per seat ({r.players}), "
                             f"not {kinds!r}")
        d["seat_kinds"] = kinds
    hands = []
    for h in match.hands:
        moves: list[dict] = []
        lead = True
        for ev in h.events:
            if ev.kind == "play":
                if lead:  # written with its left pip first (the lead event's end 1: lower pip left)
                    lead = False
                    t = ev.tile
                    text = f"{t.low}:{t.high}" if ev.end == 1 else f"{t.high}:{t.low}"
                    moves.append({"tile": text})
                else:
                    moves.append({"tile": str(ev.tile), "end": END_NAMES[ev.end]})
            elif ev.kind == "draw":
                moves.append({"draw": ev.count})
            else:
                moves.append({ev.kind: True})
        hands.append({
            "deal": [[str(t) for t in h.dealt(s)] for s in range(r.players)],
            "boneyard": [str(t) for t in h.boneyard],
            "leader": h.leader,
            "moves": moves,
        })
    d["hands"] = hands
    return d


def dumps_record(record) -> str:
    """JSON text of a record, laid out for reading: one line per deal hand,
    the boneyard on one line, one move per line."""
    d = record.to_dict() if isinstance(record, Record) else record
    def j(v):
        return json.dumps(v, ensure_ascii=False)

    lines = ["{"]
    for k in d:
        if k != "hands":
            lines.append(f"  {j(k)}: {j(d[k])},")
    lines.append('  "hands": [')
    for hi, h in enumerate(d.get("hands", [])):
        lines.append("    {")
        parts = []
        for k, v in h.items():
            if k == "deal":
                inner = ",\n".join(f"      {j(seat)}" for seat in v)
                parts.append(f'    "deal": [\n{inner}\n    ]')
            elif k == "moves":
                inner = ",\n".join(f"      {j(m)}" for m in v)
                parts.append(f'    "moves": [\n{inner}\n    ]' if v else '    "moves": []')
            else:
                parts.append(f"    {j(k)}: {j(v)}")
        lines.append(",\n".join(parts))
        lines.append("    }" + ("," if hi < len(d["hands"]) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def save_record(record, path, seats: Iterable[str] | None = None) -> Path:
    """Write a record (a :class:`Match`, a :class:`Record` or a record
    ``dict``) as JSON to ``path``; return the path. A ``dict`` is checked
    (:func:`parse_record`) before anything is written.

    :raises RecordError: a ``dict`` that is not a valid record.
    """
    if isinstance(record, Match):
        d = record_from_match(record, seats)
    else:
        if seats is not None:
            raise ValueError("seats can be given only with a Match")
        rec = parse_record(record)
        d = record if isinstance(record, dict) else rec.to_dict()
    path = Path(path)
    path.write_text(dumps_record(d), encoding="utf-8")
    return path


# ---------------------------------------------------------------- summary
def _side_name(rules: Rules, side: int) -> str:
    if rules.partnerships:
        return f"pair {side} (seats {side}+{side + 2})"
    return f"seat {side}"


def _summary(res: ReplayResult) -> str:
    match, rec = res.match, res.record
    r = match.rules
    unit = r.points_unit  # points, recorded points or strikes
    seats = ""
    if rec is not None and rec.seats:
        kinds = rec.seat_kinds or (None,) * len(rec.seats)
        seats = " (" + ", ".join(f"{i}: {s}" + (f" [{k}]" if k else "") for i, (s, k)
                                 in enumerate(zip(rec.seats, kinds))) + ")"
    pairs = ", pairs 0+2 v 1+3" if r.partnerships else ""
    out = [f"{r.preset}: {r.players} players{pairs}{seats}; target {r.target}"]
    for hi, (h, hres) in enumerate(zip(match.hands, res.hands)):
        out.append("")
        out.append(f"Hand {hi + 1}: seat {h.leader} leads")
        for s in range(r.players):
            out.append(f"  seat {s} dealt {h.dealt(s)}")
        if h.boneyard:
            out.append(f"  boneyard ({len(h.boneyard)}): {' '.join(str(t) for t in h.boneyard)}")
        notes = res.notes[hi] if hi < len(res.notes) else {}
        lead = True
        for k, ev in enumerate(h.events):
            if ev.kind == "play" and lead:
                t = ev.tile
                text = f"{t.low}:{t.high}" if ev.end == 1 else f"{t.high}:{t.low}"
                line = f"seat {ev.seat} leads {text}"
                lead = False
            else:
                line = str(ev)
            if k in notes:
                got = ", ".join(f"{_side_name(r, s)} {'+' if v > 0 else ''}{v}"
                                for s, v in enumerate(notes[k]) if v)
                line += f"  [{got} {unit}]"
            out.append(f"  {k + 1:3d}. {line}")
        end = hres["end"]
        if end is None:
            how = ("cut short (the match target was reached)" if h.over
                   else f"unfinished (the record stops here; seat {h.seat} to play)")
        else:
            how = end
        w = hres["winner"]
        won = f"; {_side_name(r, w)} wins" if w is not None else ("; nobody wins" if h.over else "")
        out.append(f"  result: {how}{won}")
        out.append(f"  {unit}: " + "  ".join(f"{_side_name(r, s)} {p}" for s, p in enumerate(hres["points"])))
        out.append("  pips left: " + "  ".join(f"seat {s} {p}" for s, p in enumerate(hres["pips"])))
    out.append("")
    out.append("Scores: " + "  ".join(f"{_side_name(r, s)} {p}" for s, p in enumerate(res.scores)))
    if res.goals is not None:
        out.append("Goals: " + "  ".join(f"{_side_name(r, s)} {g}" for s, g in enumerate(res.goals)))
    if res.finished:
        if res.winner is None:
            out.append("Match finished: drawn")
        else:
            goat = " (a dry goat)" if res.dry_goat else ""
            out.append(f"Match finished: {_side_name(r, res.winner)} wins{goat}")
    else:
        out.append("Match not finished")
    return "\n".join(out)
