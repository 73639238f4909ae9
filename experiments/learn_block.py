#!/usr/bin/env python
"""Train a small JAX policy on Block against ``easy`` and rate it in a tournament.

It runs :func:`dominoai.learn.reinforce.train` (REINFORCE on the batched
environment, the learner's seat rotating), draws the learning curve (mean
margin per hand of each batch, and its running mean), then plays the
trained policy (greedy, as the bot ``pg``) against ``easy`` and ``medium``
in dominoai tournaments on duplicate deals (every deal played with the
seats swapped) and reports points per hand with the paired 95% interval.

Writes ``curve.csv``, ``curve.png``, ``params.npz`` and ``summary.json``
under ``--out`` (default ``results/learn_block``); ``--figure FILE`` also
copies the figure there (the docs use ``docs/learning-curve.png``).

    python experiments/learn_block.py                      # the full run
    python experiments/learn_block.py --iterations 20 --deals 50   # a smoke run
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=1500)
    ap.add_argument("--num-envs", type=int, default=512)
    ap.add_argument("--deals", type=int, default=2000, help="deals per evaluation pairing")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("results/learn_block"))
    ap.add_argument("--figure", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.iterations < 1 or args.num_envs < 1 or args.deals < 1:
        print("learn_block: --iterations, --num-envs and --deals must be positive", file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from dominoai.bots.base import register_bot
    from dominoai.learn.reinforce import PolicyBot, train
    from dominoai.tournament import run_tournament

    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    run = train("block", opponents="easy", iterations=args.iterations, num_envs=args.num_envs,
                seed=args.seed)
    train_s = time.perf_counter() - t0
    curve = pd.DataFrame(run.curve)
    curve.to_csv(args.out / "curve.csv", index=False)
    np.savez(args.out / "params.npz", **run.params)

    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.plot(curve["hands"], curve["margin"], lw=0.6, alpha=0.4, label=f"batch mean ({args.num_envs} hands)")
    ax.plot(curve["hands"], curve["margin"].rolling(50, min_periods=1).mean(), lw=1.8,
            label="running mean (50 batches)")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("hands played in training")
    ax.set_ylabel("margin vs easy (points per hand)")
    ax.set_title("Block, 2 players: REINFORCE policy against easy (sampled moves)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(args.out / "curve.png", dpi=110)
    if args.figure is not None:
        shutil.copy(args.out / "curve.png", args.figure)

    register_bot("pg", lambda seed=None: PolicyBot(seed, params=run.params))
    evals = {}
    for opp in ("easy", "medium"):
        res = run_tournament("block", ["pg", opp], hands=args.deals, seed=args.seed + 1, jobs=1,
                             progress=False)
        pr = res.pairings.iloc[0]
        sign = 1 if pr["bot_a"] == "pg" else -1
        lo, hi = sorted((sign * pr["diff_lo"], sign * pr["diff_hi"]))
        evals[opp] = {"deals": int(pr["deals"]), "games": int(pr["games"]),
                      "points_diff": float(sign * pr["points_diff"]), "diff_lo": float(lo),
                      "diff_hi": float(hi),
                      "win_rate": float(pr["win_rate"] if sign == 1 else 1 - pr["win_rate"])}
        print(f"pg vs {opp}: {evals[opp]}")
    summary = {"settings": run.settings, "train_seconds": train_s,
               "hands_trained": int(curve["hands"].iloc[-1]),
               "first_50_margin": float(curve["margin"].head(50).mean()),
               "last_50_margin": float(curve["margin"].tail(50).mean()),
               "evaluation": evals}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
