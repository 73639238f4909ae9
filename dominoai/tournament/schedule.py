"""The schedule of a tournament: tables (pairings), seat rotations, seeds, batches.

Everything here is pure bookkeeping: no game is played. A tournament is a
list of *tables* (which bots sit together), each played on the same *deals*;
every deal is played once per *seat rotation* of the table (duplicate
deals), so the luck of the deal cancels between the bots.

Tables (:func:`pairings`):

- two players: every pair of bots, ``A v B``;
- three or four players (no partnerships): every set of ``players``
  different bots; with fewer bots than seats, every line-up that seats each
  bot at least once (two bots, three players: ``A A B`` and ``A B B``);
- partnerships: pair against pair. A bot given as a string partners itself
  (``hard`` = ``hard`` in seats 0 and 2); a ``(x, y)`` tuple is a mixed pair.

Rotations (:func:`rotations`, :func:`seating`): ``players`` cyclic rotations
of the seats (two players: seats swapped; three: three rotations), or in
partnership presets the two pairs swapped. The deal stays with the seats;
the bots move round the table.

Seeds come from one :class:`numpy.random.SeedSequence` entropy, the
tournament ``seed``, addressed by spawn keys so any unit can be found without
the others (so results do not depend on the number of jobs or the batches):
deal ``d`` has the seed ``(0, d)`` (the same deals at every table), the bot
in seat ``s`` of table ``t``, deal ``d``, rotation ``r`` has ``(1, t, d, r, s)``.

>>> from dominoai import get_rules
>>> pairings(["easy", "medium", "hard"], get_rules("draw"))
[('easy', 'medium'), ('easy', 'hard'), ('medium', 'hard')]
>>> [seating(("a", "b", "c"), r, get_rules("draw", players=3)) for r in range(3)]
[('a', 'b', 'c'), ('c', 'a', 'b'), ('b', 'c', 'a')]
>>> kozel = get_rules("kozel")
>>> pairings(["easy", ("hard", "medium")], kozel)
[(('easy', 'easy'), ('hard', 'medium'))]
>>> [seating((("e", "e"), ("h", "m")), r, kozel) for r in range(2)]
[('e', 'h', 'e', 'm'), ('h', 'e', 'm', 'e')]
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..bots import make_bot
from ..bots.spec import parse_spec
from ..rules import Rules

__all__ = [
    "Table", "Batch", "Schedule", "pairings", "rotations", "seating", "table_label",
    "deal_seed", "bot_seed", "make_schedule", "check_bots", "idle_named", "bot_identity",
]


def check_bots(bots, rules: Rules) -> list:
    """The entries of a tournament of ``bots`` under ``rules``: a spec string
    per bot, or a pair ``(seat a, seat a+2)`` of specs in partnership
    presets (a single spec there plays both seats of its side).

    :raises ValueError: no bots, an entry that is not a spec (or a pair of
        them), a pair outside a partnership preset, or a bot listed twice
        (two specs that are the same bot under ``rules``, see
        :func:`bot_identity`).
    """
    out = []
    for b in bots:
        if isinstance(b, (tuple, list)):
            if not rules.partnerships:
                raise ValueError(f"{tuple(b)!r}: a pair of bots is only for partnership presets")
            if len(b) != 2 or not all(isinstance(x, str) and x.strip() for x in b):
                raise ValueError(f"a pair of bots is two bot specs, not {tuple(b)!r}")
            out.append(tuple(x.strip() for x in b))
        elif isinstance(b, str) and b.strip():
            s = b.strip()
            out.append((s, s) if rules.partnerships else s)
        else:
            raise ValueError(f"a bot is a spec string like 'hard' or 'insane:worlds=400', not {b!r}")
    if not out:
        raise ValueError("no bots given")
    seen = {}
    for b in out:
        key = tuple(bot_identity(x, rules) for x in b) if isinstance(b, tuple) else bot_identity(b, rules)
        if key in seen:
            same = "" if seen[key] == b else (
                f" (the same bot as {_label(seen[key])} under {rules.preset}: the preset's "
                "defaults, parameters with no effect there and the seed of a bot that "
                "draws no random numbers do not make another bot)")
            raise ValueError(f"bot {_label(b)} is listed twice{same}")
        seen[key] = b
    return out


def _label(entry) -> str:
    """An entry as the user wrote it: ``'insane'`` for a spec, or for a pair
    of the same spec in both seats; ``('a', 'b')`` for a pair of two."""
    if isinstance(entry, tuple) and len(set(entry)) == 1:
        entry = entry[0]
    return repr(entry)


def idle_named(spec: str, rules: Rules) -> dict[str, str]:
    """The parameters that the bot spec ``spec`` names and that cannot change
    its play under ``rules``, each with the reason (the bot's
    ``idle_reasons``: for example ``hard_prior`` in Draw, where insane's
    play model is off, or ``fusion`` without ``exact``), in the spec's
    order; ``{}`` for a spec that does not build."""
    try:
        _, named = parse_spec(spec)
        bot = make_bot(spec)
    except Exception:
        return {}
    if not hasattr(bot, "idle_reasons") or not hasattr(bot, "use_rules"):
        return {}
    bot.use_rules(rules)
    idle = bot.idle_reasons(rules)
    return {k: idle[k] for k in named if k in idle}


def bot_identity(spec: str, rules: Rules):
    """What makes a bot the bot it is under ``rules``: its name, seed and
    every parameter's value once the preset's own defaults apply
    (``insane`` and ``insane:exact=12`` are one bot in Block), but for the
    parameters the bot calls idle under ``rules`` (``idle_params``:
    ``insane:hard_prior=0.5`` is ``insane`` in Draw, where the play model is
    off), and but for the seed of a bot that draws no random numbers
    (``uses_seed`` False: ``hard:seed=3`` is ``hard``); for a bot without
    parameters the spec it gives itself; the spec as given when it does not
    build."""
    try:
        bot = make_bot(spec)
    except Exception:
        return spec
    seed = bot.seed if getattr(bot, "uses_seed", True) else None
    if not getattr(bot, "PARAMS", None) or not hasattr(bot, "use_rules"):
        return bot.spec if seed is not None else (bot.name, None)
    bot.use_rules(rules)
    idle = bot.idle_params(rules) if hasattr(bot, "idle_params") else set()
    return (bot.name, seed,
            tuple((k, None if k in idle else getattr(bot, k)) for k in bot.PARAMS))


def pairings(bots: Sequence, rules: Rules) -> list[tuple]:
    """The line-ups (tables) of a tournament of ``bots`` under ``rules``, each
    a tuple with one entry per seat (per pair in partnership presets, where
    an entry is a ``(seat a, seat a+2)`` tuple), in the order the bots are
    given. See the module docstring.

    :raises ValueError: no bots, a bot listed twice, or a pair outside a
        partnership preset.
    """
    entries = check_bots(bots, rules)
    n = 2 if rules.partnerships else rules.players
    if len(entries) == 1:
        return [tuple(entries * n)]
    if len(entries) >= n:
        return list(itertools.combinations(entries, n))
    # fewer bots than places: every multiset that seats each bot at least once
    return [c for c in itertools.combinations_with_replacement(entries, n) if len(set(c)) == len(entries)]


def rotations(rules: Rules) -> int:
    """Seat rotations per deal: 2 in partnership presets, else ``players``."""
    return 2 if rules.partnerships else rules.players


def seating(lineup: tuple, rotation: int, rules: Rules) -> tuple:
    """The bot spec in each seat for ``rotation`` of a table's line-up: entry
    ``e`` sits in seat ``(e + rotation) % n``; in partnership presets pair
    ``p`` sits in seats ``(p + rotation) % 2`` and that plus 2."""
    if rules.partnerships:
        out = [None] * 4
        for p, (a, b) in enumerate(lineup):
            s = (p + rotation) % 2
            out[s], out[s + 2] = a, b
        return tuple(out)
    n = len(lineup)
    return tuple(lineup[(s - rotation) % n] for s in range(n))


def table_label(lineup: tuple) -> str:
    """``"easy v medium"``; pairs as ``"hard+medium"`` (a bot with itself: its name)."""
    def one(e):
        if isinstance(e, tuple):
            return e[0] if e[0] == e[1] else f"{e[0]}+{e[1]}"
        return e
    return " v ".join(one(e) for e in lineup)


def _int_from(ss: np.random.SeedSequence, bits: int) -> int:
    words = ss.generate_state(2, np.uint32)
    v = (int(words[0]) << 32) | int(words[1])
    return v & ((1 << bits) - 1)


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal ``deal`` (a 63-bit int): ``Match(rules, seed=it)``
    deals the same hands (and draws the same lead by lot) as the tournament."""
    return _int_from(np.random.SeedSequence(seed, spawn_key=(0, deal)), 63)


def bot_seed(seed: int, table: int, deal: int, rotation: int, seat: int) -> int:
    """The seed given to the bot in ``seat`` (a 32-bit int); a spec that names
    its own ``seed=`` keeps it."""
    return _int_from(np.random.SeedSequence(seed, spawn_key=(1, table, deal, rotation, seat)), 32)


@dataclass(frozen=True)
class Table:
    """One line-up of bots, played on every deal in every rotation."""

    index: int
    lineup: tuple
    label: str

    def specs(self) -> list[str]:
        """The distinct bot specs at the table."""
        flat = [x for e in self.lineup for x in (e if isinstance(e, tuple) else (e,))]
        return list(dict.fromkeys(flat))


@dataclass(frozen=True)
class Batch:
    """A run of work units: unit ``u`` is deal ``u // n_tables`` at table
    ``u % n_tables`` (deal-major, so a partial run covers every table), in
    all its rotations."""

    index: int
    start: int
    stop: int


@dataclass(frozen=True)
class Schedule:
    """Tables x deals x rotations, the seeds, and the batches.

    ``mode`` is ``"hands"`` (each game is one hand: the first of a fresh
    match) or ``"matches"`` (each game is a whole match to the target, its
    deals drawn in turn from the deal seed).
    """

    rules: Rules
    tables: tuple
    deals: int
    seed: int
    mode: str
    batch_units: int

    @property
    def rotations(self) -> int:
        return rotations(self.rules)

    @property
    def units(self) -> int:
        return len(self.tables) * self.deals

    @property
    def games(self) -> int:
        """Games (hands or matches) in the whole tournament."""
        return self.units * self.rotations

    @property
    def n_batches(self) -> int:
        return math.ceil(self.units / self.batch_units)

    def batches(self) -> list[Batch]:
        b = self.batch_units
        return [Batch(i, i * b, min((i + 1) * b, self.units)) for i in range(self.n_batches)]

    def unit(self, u: int) -> tuple[int, int]:
        """``(table, deal)`` of unit ``u``."""
        return u % len(self.tables), u // len(self.tables)

    def game_id(self, table: int, deal: int, rotation: int) -> int:
        """The ``match`` number of a game: unique in the tournament, in schedule order."""
        return (deal * len(self.tables) + table) * self.rotations + rotation

    def deal_seed(self, deal: int) -> int:
        return deal_seed(self.seed, deal)

    def bot_seed(self, table: int, deal: int, rotation: int, seat: int) -> int:
        return bot_seed(self.seed, table, deal, rotation, seat)

    def seating(self, table: int, rotation: int) -> tuple:
        return seating(self.tables[table].lineup, rotation, self.rules)

    def config(self) -> dict:
        """What identifies the tournament (JSON-able): rules, tables, deals,
        seed, mode and batches; not jobs or backend, which change nothing."""
        return {
            "rules": self.rules.to_record(),
            "tables": [[list(e) if isinstance(e, tuple) else e for e in t.lineup] for t in self.tables],
            "deals": self.deals,
            "seed": self.seed,
            "mode": self.mode,
            "batch_units": self.batch_units,
        }

    def ident(self) -> str:
        """A short id of :meth:`config` without the batching (12 hex digits):
        the ``tournament`` column."""
        cfg = {k: v for k, v in self.config().items() if k != "batch_units"}
        text = json.dumps(cfg, sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:12]


def make_schedule(rules: Rules, bots: Sequence, deals: int, seed: int = 0, mode: str = "hands",
                  batch_units: int | None = None) -> Schedule:
    """The schedule of a tournament of ``bots`` on ``deals`` deals per table.

    ``batch_units``: (table, deal) units per batch; by default enough for
    about 64 hands (8 matches) per batch, and at most about 200 batches.

    :raises ValueError: bad bots (see :func:`pairings`), ``deals < 1``, a
        negative seed or an unknown mode.
    """
    if mode not in ("hands", "matches"):
        raise ValueError(f"mode must be 'hands' or 'matches' (got {mode!r})")
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"the number of deals must be a positive integer (got {deals!r})")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer (got {seed!r})")
    lineups = pairings(bots, rules)
    tables = tuple(Table(i, lu, table_label(lu)) for i, lu in enumerate(lineups))
    units = len(tables) * int(deals)
    if batch_units is None:
        per_game = 64 if mode == "hands" else 8
        batch_units = max(math.ceil(per_game / rotations(rules)), math.ceil(units / 200))
    if batch_units < 1:
        raise ValueError(f"batch_units must be at least 1 (got {batch_units})")
    return Schedule(rules, tables, int(deals), int(seed), mode, int(min(batch_units, units)))
