#!/usr/bin/env python
"""Head-to-head of two bot specs on one or more presets, seats swapped.

Each deal is played twice, once with bot A in the even seats (0, 2) and once
in the odd seats (1, 3): the same match seed gives the same deals. Matches
are played to their end (or until ``--hands`` hands are done), so later hands
have their real leaders and scores.

Reported per preset, from A's point of view:

- ``hand win``: share of hands A's side won (``HandResult.winner``; a hand with
  no winner counts half),
- ``pts win``: share of hands in which A's side made more points than every
  other side (Kozel: recorded fewer; equal counts half): in the presets
  that score during play this counts those points too,
- ``margin``: A's side's points minus the other side's, per hand (Kozel:
  what the other pair recorded minus what A's pair recorded, so higher is
  better for A everywhere),
- ``match win``: share of finished matches A's side won (a drawn match counts
  half),

with a 95% normal-approximation half-width on the hand win rate.

Usage::

    python experiments/duel.py hard medium --hands 2000
    python experiments/duel.py "hard:void=0" hard --presets block,kozel --hands 4000
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

import dominoai
from dominoai import Match
from dominoai.bots import make_bot


def play_pair(preset: str, spec_a: str, spec_b: str, hands: int, seed: int) -> dict:
    """Matches of A vs B on ``preset`` until ``hands`` hands per seating are done."""
    rules = dominoai.get_rules(preset)
    sides = rules.sides
    low_good = rules.hand_scoring == "losers_record"
    out = {"hands": 0, "hand_wins": 0.0, "pts_wins": 0.0, "margin": 0.0, "matches": 0, "match_wins": 0.0}
    ss = np.random.SeedSequence(seed)
    decisions = 0
    done = 0
    while done < hands:
        mseed = int(ss.spawn(1)[0].generate_state(1)[0])
        played = 0
        for a_side in (0, 1):
            bots = [make_bot(spec_a if rules.side_of(s) == a_side else spec_b, seed=mseed + s)
                    for s in range(rules.players)]
            m = Match(rules, seed=mseed)
            n = 0
            while not m.finished and done + n < hands:
                h = m.new_hand()
                while not h.over:
                    seat = h.seat
                    h.play(bots[seat].act(h.observe(seat)))
                    decisions += 1
                r = h.result
                n += 1
                out["hands"] += 1
                if r.winner is None:
                    out["hand_wins"] += 0.5
                elif r.winner == a_side:
                    out["hand_wins"] += 1
                pa = r.points[a_side]
                pb = sum(r.points[s] for s in range(sides) if s != a_side)
                d = (pb - pa) if low_good else (pa - max(r.points[s] for s in range(sides) if s != a_side))
                out["pts_wins"] += 1.0 if d > 0 else 0.5 if d == 0 else 0.0
                out["margin"] += (pb - pa) if low_good else (pa - pb)
            if m.finished:
                out["matches"] += 1
                w = m.winner
                out["match_wins"] += 0.5 if w is None else float(w == a_side)
            played = max(played, n)
        done += played
    out["decisions"] = decisions
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", help="bot spec A, e.g. hard")
    ap.add_argument("b", help="bot spec B, e.g. medium")
    ap.add_argument("--presets", default=",".join(dominoai.preset_names()),
                    help="comma-separated presets (default: all)")
    ap.add_argument("--hands", type=int, default=2000, help="hands per seating and preset")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"A = {args.a}   B = {args.b}   {args.hands} hands per seating")
    print(f"{'preset':16s} {'hands':>6s} {'hand win':>14s} {'pts win':>8s} {'margin':>8s} {'match win':>10s} "
          f"{'matches':>7s} {'sec':>6s}")
    for p in args.presets.split(","):
        t0 = time.perf_counter()
        r = play_pair(p, args.a, args.b, args.hands, args.seed)
        hw = r["hand_wins"] / r["hands"]
        ci = 1.96 * math.sqrt(hw * (1 - hw) / r["hands"])
        mw = r["match_wins"] / r["matches"] if r["matches"] else float("nan")
        print(f"{p:16s} {r['hands']:6d} {hw:8.3f}±{ci:.3f} {r['pts_wins'] / r['hands']:8.3f} {r['margin'] / r['hands']:8.2f} "
              f"{mw:10.3f} {r['matches']:7d} {time.perf_counter() - t0:6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
