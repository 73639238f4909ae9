#!/usr/bin/env python
"""Head-to-head of two bot specs on one or more presets, seats swapped.

A thin front end over :func:`dominoai.tournament.run_tournament`, which
plays the games (duplicate deals: every deal in every seat rotation, so
with two sides each deal is played once with bot A on each side). With
``--hands N`` each of N deals is one hand (the first of a match); with
``--matches N`` N matches per seating are played to their end, so later
hands have their real leaders and scores.

Reported per preset, from A's point of view:

- ``hand win``: share of hands A's side won (the ``won`` column; a hand
  that no side won counts half), with a 95% Wilson interval,
- ``pts win``: share of hands in which A's side made more points than B's
  (points made during play count; where low is good, Kozel, fewer; equal
  counts half): :func:`~dominoai.tournament.stats.outcomes`,
- ``margin``: A's side's points minus B's per hand, the sign turned where
  low is good, so higher is better for A everywhere, with the paired 95%
  interval over deals (``points_diff`` of the pairing),
- ``match win``: share of finished matches A's side won (a drawn match
  counts half; ``--matches`` only).

Usage::

    python experiments/duel.py hard medium --hands 2000
    python experiments/duel.py "hard:void=0" hard --presets block,kozel --matches 200 --jobs 2
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import dominoai
from dominoai.tournament import outcomes, run_tournament, wilson


def duel(preset: str, spec_a: str, spec_b: str, hands: int | None = None, matches: int | None = None,
         seed: int = 1, jobs: int = 1) -> dict:
    """A against B on ``preset``: ``hands`` deals (one hand each) or
    ``matches`` whole matches per seating, through :func:`run_tournament`.
    Returns the counts and rates of the module docstring."""
    res = run_tournament(preset, [spec_a, spec_b], hands=hands or 0, matches=matches, seed=seed,
                         jobs=jobs, progress=False)
    h = res.hands
    per_hand = h.groupby(["match", "hand"])
    a_won = h.assign(a=(h["bot"] == spec_a) & h["won"]).groupby(["match", "hand"])["a"].any()
    nobody = ~per_hand["won"].any()
    hand_wins = float(a_won.sum() + 0.5 * nobody.sum())
    n = len(a_won)
    pts = outcomes(h, [spec_a, spec_b])
    p = res.pairings.iloc[0]
    sign = 1 if p.bot_a == spec_a else -1
    lo, hi = sorted((sign * p.diff_lo, sign * p.diff_hi))
    out = {"hands": n, "hand_win": hand_wins / n, "hand_win_ci": wilson(hand_wins, n),
           "pts_win": float(pts["score"].mean()), "margin": sign * float(p.points_diff),
           "margin_ci": (float(lo), float(hi)), "matches": 0, "match_win": math.nan,
           "seconds": res.elapsed}
    if res.matches is not None:
        out["matches"] = int(p.games)
        out["match_win"] = float(p.win_rate if sign == 1 else 1 - p.win_rate)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="bot spec A, e.g. hard")
    ap.add_argument("b", help="bot spec B, e.g. medium")
    ap.add_argument("--presets", default=",".join(dominoai.preset_names()),
                    help="comma-separated presets (default: all)")
    ap.add_argument("--hands", type=int, default=2000, help="deals per preset, one hand each, every seating")
    ap.add_argument("--matches", type=int, default=None, help="instead, whole matches per preset and seating")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    what = f"{args.matches} matches" if args.matches else f"{args.hands} deals"
    print(f"A = {args.a}   B = {args.b}   {what} per preset, every seating")
    print(f"{'preset':16s} {'hands':>6s} {'hand win [95%]':>20s} {'pts win':>8s} {'margin [95%]':>24s} "
          f"{'match win':>10s} {'matches':>7s} {'sec':>6s}")
    for p in args.presets.split(","):
        t0 = time.perf_counter()
        r = duel(p, args.a, args.b, hands=None if args.matches else args.hands, matches=args.matches,
                 seed=args.seed, jobs=args.jobs)
        lo, hi = r["hand_win_ci"]
        mlo, mhi = r["margin_ci"]
        print(f"{p:16s} {r['hands']:6d} {r['hand_win']:6.3f} [{lo:.3f}, {hi:.3f}] {r['pts_win']:8.3f} "
              f"{r['margin']:8.2f} [{mlo:6.2f}, {mhi:6.2f}] {r['match_win']:10.3f} {r['matches']:7d} "
              f"{time.perf_counter() - t0:6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
