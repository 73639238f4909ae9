#!/usr/bin/env python
"""insane against published bots: OpenSpiel's ISMCTS and the
``dominoes`` package's strongest fair player.

Two comparisons, each through :func:`dominoai.run_tournament` on duplicate
deals (every deal played in every seat rotation), reported from insane's side:
the points-per-hand difference with its paired 95% interval (t interval over
deals, :func:`dominoai.tournament.stats.paired_ci`), the hand win rate, and
each bot's median milliseconds per decision (the median over hand rows of
``time / moves``, the tournament's own clock; hands where a bot made no
decision are left out).

1. ``insane`` vs ``ismcts:sims=S`` on ``openspiel_block`` for S in
   ``--sims`` (100, 1,000, 10,000), then at equal time: ``insane`` given a
   ``time_budget`` equal to the median decision time of ISMCTS at the
   largest S (and worlds enough that the budget, not the worlds, stops it).
2. ``insane`` vs ``pydominoes-pab:sample_size=K`` on ``pydominoes`` (the
   package's ``probabilistic_alphabeta``: its strongest player that does not
   see the other hands; ``omniscient`` cheats and is left out).

Output: one results file per run under ``--out`` (default
``results/peers/``), resumable: a finished file is read back, a run with
parts on disk continues (``resume=True``); ``summary.csv`` collects the rows.

Usage::

    python experiments/peers.py --small            # a few hands: shows it works
    python experiments/peers.py --hands 2000       # the full comparison (hours)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

import dominoai.interop  # noqa: F401  (registers ismcts, mcts, pydominoes-*)
from _common import median_ms, pairing_from, run_or_load


def run(name: str, variant: str, bots: list[str], hands: int, seed: int, out: Path, jobs: int):
    """One tournament, resumable (read back if finished, resumed if parts
    exist), reported from the first bot's side."""
    res = run_or_load(out / f"{name}.parquet", variant, bots, hands, seed, jobs)
    a, b = bots
    pr = pairing_from(res, a)
    ms = median_ms(res.hands)
    return {"comparison": name, "variant": variant, "a": a, "b": b, "deals": pr["deals"],
            "games": pr["games"], "points_diff": pr["points_diff"], "diff_lo": pr["diff_lo"],
            "diff_hi": pr["diff_hi"], "a_win_rate": pr["win_rate"],
            "a_ms": ms.get(a, float("nan")), "b_ms": ms.get(b, float("nan"))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=2000, help="deals per comparison")
    ap.add_argument("--sims", default="100,1000,10000", help="ISMCTS simulation counts")
    ap.add_argument("--sample-size", type=int, default=3, help="pydominoes-pab worlds per decision")
    ap.add_argument("--pab-hands", type=int, default=None, help="deals for comparison 2 (default --hands)")
    ap.add_argument("--insane", default="insane", help="the insane spec")
    ap.add_argument("--small", action="store_true", help="a few deals, sims 100 and 1000: a smoke run")
    ap.add_argument("--out", default="results/peers", help="output folder")
    ap.add_argument("--hands-at", default="",
                    help="deals for some simulation counts, e.g. 10000=40 (default --hands)")
    ap.add_argument("--equal-at", type=int, default=None,
                    help="the simulation count whose median time insane is given (default the largest)")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    if args.small:
        args.hands, args.sims, args.pab_hands = 10, "100,1000", 2
        args.out = args.out.rstrip("/") + "-small"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sims = [int(s) for s in args.sims.split(",")]
    hands_at = {int(k): int(v) for k, v in (kv.split("=") for kv in args.hands_at.split(",") if kv)}
    equal_at = args.equal_at or max(sims)
    if equal_at not in sims:
        ap.error(f"--equal-at {equal_at} is not one of --sims {args.sims}")
    rows, by_sims = [], {}

    def report(row):
        rows.append(row)
        print(pd.DataFrame([row]).to_string(index=False), flush=True)

    # cheapest first, so that a partial run already has the small counts
    for s in sorted(sims):
        by_sims[s] = run(f"ismcts-{s}", "openspiel_block", [args.insane, f"ismcts:sims={s}"],
                         hands_at.get(s, args.hands), args.seed, out, args.jobs)
        report(by_sims[s])
        if s == equal_at:
            budget = by_sims[s]["b_ms"] / 1000
            eq = f"{args.insane}:worlds=1000000,time_budget={budget:.4f}"
            report(run(f"ismcts-{s}-equal-time", "openspiel_block", [eq, f"ismcts:sims={s}"],
                       hands_at.get(s, args.hands), args.seed, out, args.jobs))
            report(run(f"pydominoes-pab-{args.sample_size}", "pydominoes",
                       [args.insane, f"pydominoes-pab:sample_size={args.sample_size}"],
                       args.pab_hands or args.hands, args.seed, out, args.jobs))
    table = pd.DataFrame(rows)
    table.to_csv(out / "summary.csv", index=False)
    with pd.option_context("display.width", 200, "display.float_format", "{:.2f}".format):
        print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
