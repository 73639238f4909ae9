"""The objective of a trial: points per hand against the opponent pool,
played by :func:`~dominoai.tournament.run_tournament` (no other game loop).

A trial plays its deals in *chunks*. Chunk ``k`` of stage ``s`` is a
tournament with the seed :func:`stage_seed` ``(seed, s, k)``; the tournament
seeds deal ``d`` from its own seed and ``d`` (see
:mod:`dominoai.tournament.schedule`), so chunk ``k`` deals the same hands
to every trial (common random numbers) and different chunks deal different
hands. Stage :data:`SEARCH` is the search, :data:`VALIDATE` the validation
(fresh deals), :data:`PROBE` the time-limit probe.

The value is the mean, over every deal played against every opponent, of
the candidate's points per hand minus the opponent's (the tournament's
``margin``, so more is better in Kozel too; each deal played in every seat
rotation and averaged: one value per duplicate group), with the paired t
interval of :func:`~dominoai.tournament.paired_ci`. The time per decision
of a hand is the candidate's ``time / moves`` in that hand (ms); a trial's
ms per decision is the median over its hands.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..bots.base import make_bot

__all__ = ["OBJECTIVE", "SEARCH", "VALIDATE", "PROBE", "stage_seed", "canonical", "play_chunk",
           "Evaluation"]

#: the objective's name, stored in the study (a study for another is refused)
OBJECTIVE = "points_per_hand_vs_pool"
SEARCH, VALIDATE, PROBE = 0, 1, 2


def stage_seed(seed: int, stage: int, chunk: int) -> int:
    """The tournament seed (a 32-bit int) of chunk ``chunk`` of ``stage``
    (``numpy.random.SeedSequence(seed, spawn_key=(stage, chunk))``)."""
    w = np.random.SeedSequence(int(seed), spawn_key=(int(stage), int(chunk))).generate_state(1, np.uint32)
    return int(w[0])


def canonical(spec: str) -> str:
    """The spec a bot gives itself (defaults dropped, seed kept out)."""
    return make_bot(spec).spec


def play_chunk(variant, players, spec: str, opponent: str, deals: int, seed: int, jobs: int = 1,
               progress: bool = False, backend: str | None = None, scheduler: str | None = None):
    """Play ``spec`` against ``opponent`` on ``deals`` duplicate deals of the
    tournament seeded ``seed`` (on ``backend``: local processes, Dask or
    Ray, as :func:`~dominoai.tournament.run_tournament`; the same numbers on
    every backend).

    :returns: ``(diffs, ms, seconds, opponent_ms)``: per-deal points per
        hand of ``spec`` minus ``opponent`` (float64, shape ``(deals x
        tables,)``; zeros when both are the same bot: it then plays itself,
        for its time), the ms per decision of ``spec`` in each hand it
        played (float64), the seconds the tournament took, and the
        opponent's ms per decision per hand.
    :raises ValueError: from :func:`run_tournament` (bad variant or spec).
    """
    from ..tournament import outcomes, run_tournament

    same = canonical(spec) == canonical(opponent)
    bots = [spec] if same else [spec, opponent]
    t0 = time.perf_counter()
    res = run_tournament(variant, bots, players=players, hands=deals, jobs=jobs, seed=seed,
                         progress=progress, backend=backend, scheduler=scheduler)
    seconds = time.perf_counter() - t0
    h = res.hands
    ms, opp_ms = _ms(h, spec), _ms(h, opponent)
    if same:
        diffs = np.zeros(deals * max(1, h["table"].nunique()), np.float64)
    else:
        o = outcomes(h, [spec, opponent])
        o = o[(o["a"] == 0) & (o["b"] == 1)]
        diffs = o.groupby(["table", "deal"])["diff"].mean().to_numpy(np.float64)
    return diffs, ms, seconds, opp_ms


def _ms(h, spec) -> np.ndarray:
    rows = h[h["bot"] == spec]
    moves = rows["moves"].to_numpy(np.int64)
    return rows["time"].to_numpy(np.float64)[moves > 0] / moves[moves > 0] * 1e3


@dataclass
class Evaluation:
    """What a trial has played so far: per-deal differences, ms per
    decision of each hand, tournament seconds, deals and chunks played."""

    diffs: list = field(default_factory=list)
    ms: list = field(default_factory=list)
    seconds: float = 0.0
    deals: int = 0
    chunks: list = field(default_factory=list)

    def add(self, diffs, ms, seconds, deals):
        self.diffs.append(np.asarray(diffs, np.float64))
        self.ms.append(np.asarray(ms, np.float64))
        self.seconds += seconds
        self.deals += deals

    @property
    def value(self) -> float:
        d = np.concatenate(self.diffs) if self.diffs else np.zeros(0)
        return float(d.mean()) if len(d) else float("nan")

    def interval(self, confidence: float = 0.95) -> tuple[float, float, float]:
        from ..tournament import paired_ci
        return paired_ci(np.concatenate(self.diffs) if self.diffs else [], confidence)

    @property
    def ms_per_decision(self) -> float:
        m = np.concatenate(self.ms) if self.ms else np.zeros(0)
        return float(np.median(m)) if len(m) else float("nan")
