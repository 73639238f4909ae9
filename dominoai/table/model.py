"""The table: a match, its seats (people and bots), its moves and its record.

:class:`Table` is what ``dominoai play`` and ``dominoai serve`` both drive.
Its ``meta`` is the ``"play"`` entry of a saved match (format
``dominoai.play/1``):

============  ================================================================
``seat``      the first person's seat (the terminal's human)
``bots``      one entry per seat: a bot spec, or None where a person sits
``names``     one entry per seat: the person's name or the bot spec (optional;
              a save without it names people ``"you"``)
``opponents`` the bots' level as asked (a spec); ``level``: as the stats count it
``partner``   the spec of a person's partner bot in pairs (Kozel rule), or None
``variant``   the variant as the stats count it (:func:`variant_key`)
``seed``      seeds the deals and the bots; ``analysis``: bots' analyses kept
============  ================================================================

Terminal saves written before ``names`` existed load unchanged.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ..bots import make_bot
from ..bots.spec import join_spec_params, parse_spec
from ..decide import add_analysis, analysis_of, decide
from ..game import Hand, Match, Move
from ..moves import END_NAMES, IllegalMoveError
from ..records import RecordError, load_record, match_from_record, record_from_match
from ..rules import PRESETS, Rules, get_rules

__all__ = ["Table", "TableError", "PLAY_FORMAT", "LEVELS", "STAT_FIELDS", "partner_spec", "seat_specs",
           "bot_seeds", "fresh_seed", "decision_seed", "add_match", "hands_won", "outcome_of", "level_name", "variant_key",
           "meta_problem"]

PLAY_FORMAT = "dominoai.play/1"
#: the bot levels, weakest first
LEVELS = ("easy", "medium", "hard", "insane")
#: the counts kept per variant and level
STAT_FIELDS = ("matches", "wins", "losses", "draws", "hands", "hands_won")


class TableError(ValueError):
    """A move or an action the table refuses; nothing changed. ``code`` names
    the kind (``"not_your_turn"``, ``"illegal_move"``, ``"hand_over"``),
    the message says why in one line."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------- seats and bots
def partner_spec(opponents: str) -> str:
    """A person's partner in partnership presets: at least ``hard`` ("How to
    play Domino" (Russian): the partner plays at least "Сложный"); the
    opponents' level when it is stronger.

    >>> partner_spec("easy"), partner_spec("medium:seed=3"), partner_spec("insane")
    ('hard', 'hard', 'insane')
    """
    name, _ = parse_spec(opponents)
    return "hard" if name in ("easy", "medium") else opponents


def seat_specs(rules: Rules, people: Iterable[int], opponents: str) -> list:
    """The bot spec of every seat (None where a person sits): ``opponents``,
    except a person's partner in pairs, who plays :func:`partner_spec`.

    >>> seat_specs(get_rules("kozel"), [0], "easy")
    [None, 'easy', 'hard', 'easy']
    >>> seat_specs(get_rules("kozel"), [0, 1], "medium")
    [None, None, 'hard', 'hard']
    """
    people = {int(s) for s in people}
    out: list = []
    for s in range(rules.players):
        if s in people:
            out.append(None)
        elif rules.partnerships and (s + 2) % 4 in people:
            out.append(partner_spec(opponents))
        else:
            out.append(opponents)
    return out


def fresh_seed() -> int:
    """A seed from fresh entropy: a non-negative 63-bit ``int``."""
    return int(np.random.SeedSequence().entropy % (1 << 63))


def bot_seeds(seed: int, players: int) -> list[int]:
    """One non-negative 63-bit seed per seat, spawned from ``seed``."""
    return [int(c.generate_state(1, np.uint64)[0] & np.uint64(0x7FFFFFFFFFFFFFFF))
            for c in np.random.SeedSequence(seed).spawn(players)]


def decision_seed(seed: int, hand: int, step: int, seat: int) -> int:
    """The seed of one bot decision (hand ``hand``, event ``step`` of it, at
    ``seat``): a bot built for each decision plays the same after a restart.

    >>> decision_seed(5, 0, 3, 1) == decision_seed(5, 0, 3, 1) != decision_seed(5, 0, 4, 1)
    True
    """
    ss = np.random.SeedSequence([int(seed) & (2**63 - 1), hand, step, seat])
    return int(ss.generate_state(1, np.uint64)[0] & np.uint64(0x7FFFFFFFFFFFFFFF))


# ---------------------------------------------------------------- stats
def level_name(spec: str) -> str:
    """The opponent level a bot spec counts under in the stats: the spec
    without its seed, parameters sorted.

    >>> level_name("insane:seed=4,worlds=50"), level_name(" hard ")
    ('insane:worlds=50', 'hard')
    """
    name, params = parse_spec(spec)
    params.pop("seed", None)
    return name + (":" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) if params else "")


def variant_key(rules: Rules) -> str:
    """The variant a match counts under in the stats: the preset, with the
    number of players when it is not the preset's default, and ``-pairs``
    for partnerships the preset does not have by default.

    >>> variant_key(get_rules("draw")), variant_key(get_rules("draw", players=3))
    ('draw', 'draw-3p')
    >>> variant_key(get_rules("express", players=4, partnerships=True))
    'express-4p-pairs'
    """
    key = rules.preset
    default_players = PRESETS[rules.preset][1]
    if rules.players != default_players:
        key += f"-{rules.players}p"
    if rules.partnerships and not get_rules(rules.preset, players=rules.players).partnerships:
        key += "-pairs"
    return key


def hands_won(match: Match) -> list[int]:
    """Hands each side of ``match`` won (a hand without a winner counts for none)."""
    won = [0] * match.rules.sides
    for h in match.hands:
        res = h.result
        if res is not None and res.winner is not None:
            won[res.winner] += 1
    return won


def outcome_of(match: Match, seat: int) -> str:
    """How a finished match ended for ``seat``: ``"wins"``, ``"losses"`` or ``"draws"``."""
    w = match.winner
    if w is None:
        return "draws"
    return "wins" if w == match.rules.side_of(seat) else "losses"


def add_match(stats: dict, variant: str, level: str, outcome: str, hands: int, won: int) -> dict:
    """Count one finished match in ``stats`` (``{variant: {level: {matches,
    wins, losses, draws, hands, hands_won}}}``, changed in place and
    returned). ``outcome``: ``"wins"``, ``"losses"`` or ``"draws"``.

    >>> add_match({}, "draw", "easy", "wins", 3, 2)["draw"]["easy"]
    {'matches': 1, 'wins': 1, 'losses': 0, 'draws': 0, 'hands': 3, 'hands_won': 2}
    """
    if outcome not in ("wins", "losses", "draws"):
        raise ValueError(f"outcome must be wins, losses or draws (got {outcome!r})")
    e = stats.setdefault(variant, {}).setdefault(level, {k: 0 for k in STAT_FIELDS})
    e["matches"] += 1
    e[outcome] += 1
    e["hands"] += int(hands)
    e["hands_won"] += int(won)
    return stats


def meta_problem(meta, players: int, one_person: bool = False) -> str | None:
    """What is wrong with a ``"play"`` entry for ``players`` seats (None: nothing).
    ``one_person``: exactly one seat must be a person's (the terminal game)."""
    if not isinstance(meta, dict):
        return "no \"play\" entry"
    bots = meta.get("bots")
    if not isinstance(bots, list) or len(bots) != players \
            or not all(b is None or isinstance(b, str) for b in bots):
        return "\"bots\" must give a spec or null for each seat"
    people = [s for s, b in enumerate(bots) if b is None]
    seat = meta.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in people:
        return "\"seat\" must be a seat where a person sits"
    if one_person and len(people) != 1:
        return "one seat must be the person's"
    names = meta.get("names")
    if names is not None and (not isinstance(names, list) or len(names) != players
                              or not all(isinstance(n, str) for n in names)):
        return "\"names\" must give a name for each seat"
    if not isinstance(meta.get("variant"), str) or not isinstance(meta.get("level"), str):
        return "\"variant\" and \"level\" must be strings"
    return None


# ---------------------------------------------------------------- the table
class Table:
    """A match with its seats: people (by name) and bots (by spec).

    ``meta`` is the ``"play"`` entry (module docstring); ``bots`` maps each
    bot's seat to a bot built from its spec and :func:`bot_seeds` (for
    callers that keep bots between decisions, as the terminal does);
    ``analyses`` holds the bots' analyses of their decisions (``(hand,
    move, entries)``, 0-based) when ``meta["analysis"]`` is true.

    :raises TableError: a spec in ``meta`` that does not build a bot
        (``code`` ``"bad_bot"``).
    """

    def __init__(self, match: Match, meta: dict, analyses: list | None = None, build_bots: bool = True):
        self.match = match
        self.rules = match.rules
        self.meta = meta
        self.analyses = list(analyses or [])
        base = meta.get("seed") if isinstance(meta.get("seed"), int) else 0
        seeds = bot_seeds(base, self.rules.players)
        self.bots: dict = {}
        if build_bots:
            try:
                self.bots = {s: make_bot(spec, seed=seeds[s]) for s, spec in enumerate(meta["bots"])
                             if spec is not None}
            except ValueError as e:
                raise TableError("bad_bot", f"a seat names a bot that cannot be built: {e}") from None

    # -- building
    @classmethod
    def new(cls, variant: str, players: int | None, opponents: str, people: Sequence[int], seed: int,
            overrides: dict | None = None, analysis: bool = False, names: Sequence[str] | None = None,
            build_bots: bool = True) -> "Table":
        """A table for a new match of ``variant`` (a preset) with ``players``
        seats (None: the preset's), people in the seats ``people`` (their
        ``names``, in that order; default ``"you"``) and ``opponents`` (a bot
        spec) in the others, a person's partner by :func:`partner_spec`.

        :raises ValueError: unknown rules or overrides, a seat that is not at
            the table, a bot spec that does not build.
        """
        overrides = dict(overrides or {})
        if players is not None:
            overrides = {"players": players, **overrides}
        rules = get_rules(variant, **overrides)
        opponents = join_spec_params(str(opponents).strip())
        people = [int(s) for s in people]
        if not people or any(not 0 <= s < rules.players for s in people) or len(set(people)) != len(people):
            raise ValueError(f"people must sit in distinct seats 0..{rules.players - 1} (got {people!r})")
        specs = seat_specs(rules, people, opponents)
        for spec in set(s for s in specs if s is not None):
            bot = make_bot(spec)  # check the spec now, and that it can play these rules (its model loads)
            if hasattr(bot, "use_rules"):
                bot.use_rules(rules)
            getattr(bot, "model_ident", None)   # loads its learned models, as a tournament's provenance does
        given = list(names) if names is not None else ["you"] * len(people)
        seat_names = [spec for spec in specs]
        for s, n in zip(people, given):
            seat_names[s] = str(n)
        meta = {"format": PLAY_FORMAT, "seat": people[0], "opponents": opponents, "level": level_name(opponents),
                "partner": partner_spec(opponents) if rules.partnerships else None, "bots": specs,
                "variant": variant_key(rules), "seed": int(seed), "analysis": bool(analysis)}
        if names is not None:
            meta["names"] = seat_names
        return cls(Match(rules, seed=int(seed)), meta, build_bots=build_bots)

    @classmethod
    def from_record(cls, record, seed: int | None = None, one_person: bool = False,
                    build_bots: bool = True) -> "Table":
        """The table a record with a ``"play"`` entry describes, its match
        replayed to its last move. Future deals are seeded from ``seed``
        (else the entry's ``seed``), the number of hands and of moves.

        :raises TableError: an unreadable record (``code`` ``"bad_record"``), a
            record without a valid ``"play"`` entry or one that does not replay.
        """
        try:
            rec = load_record(record)
        except RecordError as e:
            raise TableError("bad_record", f"the saved match cannot be read: {e}") from None
        meta = rec.extra.get("play")
        why = meta_problem(meta, rec.rules.players, one_person)
        if why is not None:
            raise TableError("bad_record", f"not a saved table ({why})")
        base = meta.get("seed") if isinstance(meta.get("seed"), int) else fresh_seed()
        if seed is not None:
            base = int(seed)
        moves = sum(len(h.moves) for h in rec.hands)
        try:
            match = match_from_record(rec, seed=[base, len(rec.hands), moves])
        except RecordError as e:
            raise TableError("bad_record", f"the saved match cannot be replayed: {e}") from None
        analyses = [(h, m, [dict(e) for e in mv.analysis]) for h, hr in enumerate(rec.hands)
                    for m, mv in enumerate(hr.moves) if mv.analysis is not None]
        return cls(match, meta, analyses, build_bots=build_bots)

    # -- who sits where
    @property
    def people(self) -> list[int]:
        """The seats where people sit."""
        return [s for s, b in enumerate(self.meta["bots"]) if b is None]

    def is_bot(self, seat: int) -> bool:
        return self.meta["bots"][seat] is not None

    def names(self) -> list[str]:
        """Each seat's name: a person's name (``"you"`` in terminal saves) or a bot spec."""
        given = self.meta.get("names")
        if isinstance(given, list):
            return list(given)
        return ["you" if b is None else b for b in self.meta["bots"]]

    # -- the match
    @property
    def hand(self) -> Hand | None:
        return self.match.current

    @property
    def to_move(self) -> int | None:
        """The seat to decide now; None between hands or once the match is over."""
        h = self.match.current
        return None if h is None or h.over else h.seat

    @property
    def step(self) -> int:
        """Events of the current hand so far (0 before the first hand)."""
        h = self.match.current
        return 0 if h is None else len(h.events)

    def start_hand(self) -> Hand:
        """Deal the next hand.

        :raises TableError: the match is over or the hand in play is not
            (``code`` ``"hand_over"``/``"not_over"``).
        """
        if self.match.finished:
            raise TableError("match_over", "the match is over")
        h = self.match.current
        if h is not None and not h.over:
            raise TableError("not_over", "the hand in play is not over")
        return self.match.new_hand()

    def play(self, seat: int, move: "Move | str") -> Move:
        """Play ``move`` (a :class:`Move` or text: ``"6:4"``, ``"6:4 left"``,
        ``"replace"``) for ``seat``, then let forced draws and passes happen.
        Returns the move as played (its end filled in).

        :raises TableError: not ``seat``'s turn (``"not_your_turn"``, also
            between hands: ``"hand_over"``) or a move the rules refuse
            (``"illegal_move"``, the reason of :meth:`Hand.explain`; a tile
            given without an end that fits none: "6:4 does not fit any open
            end (open: left 3, right 5)"); nothing changes.
        """
        h = self.match.current
        if h is None or h.over:
            raise TableError("hand_over", "no hand is in play")
        if seat != h.seat:
            raise TableError("not_your_turn", f"it is seat {h.seat}'s turn, not seat {seat}'s")
        try:
            m = Move.parse(move)
        except ValueError as e:
            raise TableError("illegal_move", str(e)) from None
        why = h.explain(m)
        if why is not None:
            if m.end is None and "does not fit" in why:
                ends = ", ".join(f"{END_NAMES[k]} {p}" for k, p, _ in h.ends)
                why = f"{m.tile} does not fit any open end (open: {ends})"
            raise TableError("illegal_move", why)
        if not m.replace and m.end is None:   # explain() found one end class: the one it fits
            fits = [x for x in h.legal_moves() if not x.replace and x.tile == m.tile]
            m = fits[0] if fits and h.ends else Move(m.tile, 0)
        try:
            h.play(m)
        except IllegalMoveError as e:  # explain() said yes: not expected, but nothing changed
            raise TableError("illegal_move", str(e)) from None
        return m

    def bot_decide(self) -> tuple:
        """The move of the bot to move, by its kept bot
        (:func:`~dominoai.decide.decide`), and its analysis entries
        (None unless ``meta["analysis"]``). The move is not played."""
        seat = self.to_move
        bot = self.bots[seat]
        move = decide(bot, self.match.current.observe(seat), self.match)
        return move, (analysis_of(bot) if self.meta.get("analysis") else None)

    def play_bot(self, move: Move, entries: list | None = None) -> None:
        """Play a bot's ``move`` (keeping its analysis ``entries``).

        :raises IllegalMoveError: an illegal move; nothing changes.
        """
        h = self.match.current
        at = len(h.events)
        h.play(move)
        if entries is not None:
            self.analyses.append((h.index, at, entries))

    def seat_kinds(self) -> list[str]:
        """Each seat's kind: ``"person"`` or ``"bot"`` (a record's ``seat_kinds``)."""
        return ["person" if b is None else "bot" for b in self.meta["bots"]]

    def record(self) -> dict:
        """The match so far as a ``dominoai.record/1`` record (a ``dict``): the
        seats' names or bot specs with their kinds (``seat_kinds``: who sat
        there, a person or a bot), the analyses kept, ``meta`` as ``"play"``."""
        rec = record_from_match(self.match, self.names(), self.seat_kinds())
        if self.analyses:
            add_analysis(rec, self.analyses)
        rec["play"] = self.meta
        return rec
