"""The tournament's play loop: one hand, one match, one batch of games.

:func:`play_hand` is the whole evaluation loop (OpenSpiel's
``evaluate_bots`` in spirit): deal, ask the bot to move
(:func:`dominoai.decide.decide`), play, until the hand is over.
:func:`run_batch` plays one batch of a :class:`~dominoai.tournament.schedule.Schedule`
in a worker and returns the rows of the hands and matches tables as plain
column lists; :mod:`~dominoai.tournament.storage` turns them into files and
DataFrames, :mod:`~dominoai.tournament.run` schedules the batches.

A bot's analysis of a decision (:func:`dominoai.decide.analysis_of`) can
be stored in the records, beside the move it chose (``"analysis"``,
docs/render.md). The margin of a hand is :func:`dominoai.rules.margins`.

This module imports neither pandas nor pyarrow.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from ..bots.base import BOTS, make_bot
from ..decide import add_analysis, analysis_of, decide
from ..game import Hand, Match
from ..records import record_from_match
from ..rules import margins
from .schedule import Batch, Schedule

__all__ = ["BotFailure", "decision_positions", "play_hand", "play_match", "run_batch", "HAND_COLUMNS",
           "MATCH_COLUMNS", "MAX_HANDS"]

MAX_HANDS = 1000  # a match longer than this is taken as a runaway


class BotFailure(Exception):
    """A bot raised (or chose an illegal move) in :func:`play_hand`.
    ``seat``: the seat to move; ``error``: the original exception."""

    def __init__(self, seat: int, error: BaseException):
        super().__init__(seat, error)
        self.seat = seat
        self.error = error

    def __str__(self) -> str:
        return f"seat {self.seat}: {type(self.error).__name__}: {self.error}"


def play_hand(match: Match, bots: Sequence, clock: np.ndarray | None = None,
              analyses: list | None = None, **deal) -> Hand:
    """Deal the next hand of ``match`` (``deal``: :meth:`Match.new_hand`'s
    arguments) and play it out, ``bots[seat]`` deciding. ``clock``, a float
    array of shape ``(players, 2)``, gets each seat's decisions and seconds
    (CPU seconds of this process, ``time.process_time``: another busy
    process on the machine does not inflate them, as it would wall-clock
    time, so ``--max-ms`` limits and ms-per-decision figures mean the same
    on a loaded machine).
    ``analyses``, a list, gets ``(hand index, event index, entries)`` for
    every decision a bot analysed (:func:`~dominoai.decide.analysis_of`); the event index is
    the chosen move's place in ``hand.events``, and so in the record's moves.

    :raises BotFailure: a bot raised or chose an illegal move.
    """
    hand = match.new_hand(**deal)
    while not hand.over:
        seat = hand.seat
        obs = hand.observe(seat)
        try:
            t = time.process_time()
            move = decide(bots[seat], obs, match)
            if clock is not None:
                clock[seat] += (1.0, time.process_time() - t)
            at = len(hand.events) if analyses is not None else 0  # (events are built on demand)
            hand.play(move)
        except Exception as e:
            raise BotFailure(seat, e) from e
        if analyses is not None:
            entries = analysis_of(bots[seat])
            if entries is not None:
                analyses.append((hand.index, at, entries))
    return hand


def play_match(match: Match, bots: Sequence) -> Match:
    """Play hands until the match is over (see :func:`play_hand`)."""
    while not match.finished:
        play_hand(match, bots)
    return match


# ------------------------------------------------------------------ one batch (in a worker)
#: the columns of the hands table, in order (described in :mod:`~dominoai.tournament.run`)
HAND_COLUMNS = ["tournament", "table", "pairing", "deal", "rotation", "match", "hand", "deal_seed",
                "variant", "players", "seat", "side", "bot", "points", "score", "margin", "won",
                "end", "pips", "moves", "time"]
#: the columns of the matches table, in order
MATCH_COLUMNS = ["tournament", "table", "pairing", "deal", "rotation", "match", "deal_seed",
                 "variant", "players", "seat", "side", "bot", "score", "won", "hands", "finished"]


def _seated_spec(bot, spec: str, seed: int) -> str:
    """A spec that rebuilds this very bot, seed included."""
    s = getattr(bot, "spec", None)
    if isinstance(s, str) and "seed=" in s:
        return s
    if "seed=" in spec:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"


def run_batch(sched: Schedule, batch: Batch, ident: str, want_records: bool, factories: dict) -> dict:
    """Play the games of one batch of ``sched`` (units ``batch.start`` to
    ``batch.stop``, every rotation) and return a dict: ``batch`` (its index),
    ``failure`` (None, or the failing bot, seat, seeds, error and the record
    that reproduces it), ``hands`` and ``matches`` (the tables' columns as
    lists, ``HAND_COLUMNS`` / ``MATCH_COLUMNS``; ``matches`` None in hands
    mode), ``records`` (``(file name, record)`` pairs when ``want_records``;
    with ``want_records == "analysis"`` the records carry the bots'
    analyses, :func:`~dominoai.decide.analysis_of`),
    ``n_hands`` and ``n_games``. Runs in a worker process: ``factories``
    (bot name -> class) re-registers the parent's bots, those registered at
    run time included; ``ident`` fills the ``tournament`` column.

    :raises RuntimeError: a match still not over after ``MAX_HANDS`` hands.
    """
    for name, f in factories.items():
        BOTS[name] = f  # the parent's registry, bots registered at run time included
    rules = sched.rules
    n, mode = rules.players, sched.mode
    H = {c: [] for c in HAND_COLUMNS}
    M = {c: [] for c in MATCH_COLUMNS}
    records = []
    n_hands = 0
    for u in range(batch.start, batch.stop):
        t, d = sched.unit(u)
        dseed = sched.deal_seed(d)
        label = sched.tables[t].label
        for r in range(sched.rotations):
            specs = sched.seating(t, r)
            seeds = [sched.bot_seed(t, d, r, s) for s in range(n)]
            gid = sched.game_id(t, d, r)
            match = Match(rules, seed=dseed)
            analyses = [] if want_records == "analysis" else None
            bots = []
            try:
                bots = [make_bot(sp, sd) for sp, sd in zip(specs, seeds)]
                while True:
                    clock = np.zeros((n, 2))
                    hand = play_hand(match, bots, clock, analyses)
                    n_hands += 1
                    res = hand.result
                    marg = margins(rules, res.points)
                    scores = match.scores
                    for s in range(n):
                        side = rules.side_of(s)
                        row = (ident, t, label, d, r, gid, hand.index, dseed, rules.preset, n, s, side,
                               specs[s], res.points[side], scores[side], marg[side], res.winner == side,
                               res.end or "cut", res.pips[s], int(clock[s, 0]), float(clock[s, 1]))
                        for c, v in zip(HAND_COLUMNS, row):
                            H[c].append(v)
                    if mode == "hands" or match.finished:
                        break
                    if len(match.hands) >= MAX_HANDS:
                        raise RuntimeError(f"match {gid} ({label}, deal seed {dseed}) is not over "
                                           f"after {MAX_HANDS} hands")
            except BotFailure as e:
                seated = [_seated_spec(b, sp, sd) for b, sp, sd in zip(bots, specs, seeds)]
                rec = record_from_match(match, seated)
                info = {"bot": specs[e.seat], "seat": e.seat, "bot_seed": seated[e.seat],
                        "deal_seed": dseed, "table": t, "deal": d, "rotation": r,
                        "hand": len(match.hands) - 1, "error": f"{type(e.error).__name__}: {e.error}"}
                rec["failure"] = info
                return {"batch": batch.index, "failure": dict(info, record=rec)}
            if mode == "matches":
                mres = match.result
                for s in range(n):
                    side = rules.side_of(s)
                    row = (ident, t, label, d, r, gid, dseed, rules.preset, n, s, side, specs[s],
                           mres.scores[side], mres.winner == side, len(match.hands), mres.finished)
                    for c, v in zip(MATCH_COLUMNS, row):
                        M[c].append(v)
            if want_records:
                seated = [_seated_spec(b, sp, sd) for b, sp, sd in zip(bots, specs, seeds)]
                rec = record_from_match(match, seated)
                if analyses:
                    add_analysis(rec, analyses)
                rec["tournament"] = {"id": ident, "table": t, "pairing": label, "deal": d,
                                     "rotation": r, "match": gid, "deal_seed": dseed}
                records.append((f"match-{gid:08d}.json", rec))
    return {"batch": batch.index, "failure": None, "hands": H, "matches": M if mode == "matches" else None,
            "records": records, "n_hands": n_hands, "n_games": (batch.stop - batch.start) * sched.rotations}


def decision_positions(rules, n: int, bot: str = "hard", seed=0, keep=None) -> list:
    """Positions to study or time a search on: ``(observation, state)`` at
    every decision with two or more legal moves (``keep(observation,
    state)`` true, when given) of first hands of fresh matches of ``rules``
    (a preset name or :class:`~dominoai.rules.Rules`), every seat played by ``bot``, until
    at least ``n`` are found. Whole hands are played, so the list may hold
    a few more than ``n``: slice or sample it. ``state`` is the true engine
    state (``int64``, ``(S_SIZE,)``, a copy). ``seed``: an int or a
    ``numpy.random.Generator`` (each match's seed is drawn from it, so a
    caller's generator carries on from there).

    :raises ValueError: an unknown preset or bot.
    """
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        m = Match(rules, seed=int(rng.integers(1 << 30)))
        h = m.new_hand()
        bots = [make_bot(bot) for _ in range(m.rules.players)]
        while not h.over:
            obs = h.observe()
            if len(obs.legal_codes()) > 1:
                st = m.state_copy()
                if keep is None or keep(obs, st):
                    out.append((obs, st))
            h.play(bots[h.seat].act(obs))
    return out
