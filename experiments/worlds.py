#!/usr/bin/env python
"""Strength against time: insane vs hard from 25 to 1,600 worlds (issue 11's
strength-versus-time table).

For each preset and each number of worlds ``W`` in ``--worlds``, one
tournament ``insane:worlds=W`` (plus ``--insane`` parameters) against
``hard`` on ``--deals`` duplicate deals, each in every seat rotation
(:func:`dominoai.run_tournament`; the same seed, so every ``W`` plays the
same deals). Reported: insane's points per hand minus hard's with the paired
95% t interval over deals, its hand win rate, and its median ms per
decision (the tournament's clock: the median over hand rows of time / moves,
so decisions with one legal move, which are not searched, count too).

Output under ``--out`` (default ``results/worlds/``): a resumable results
file per run, ``summary.csv`` and ``report.md``.

Usage::

    python experiments/worlds.py --presets block,draw --deals 1000
    python experiments/worlds.py --presets block --worlds 25,200 --deals 10 --out /tmp/w   # smoke
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", default="block,draw,all_fives")
    ap.add_argument("--worlds", default="25,50,100,200,400,800,1600")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--insane", default="", help="extra insane parameters, e.g. rollout_policy=random")
    ap.add_argument("--opponent", default="hard")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default="results/worlds")
    args = ap.parse_args(argv)

    from dominoai.tournament import load_results, run_tournament

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for preset in [p.strip() for p in args.presets.split(",") if p.strip()]:
        for w in [int(x) for x in args.worlds.split(",") if x.strip()]:
            spec = f"insane:worlds={w}" + (f",{args.insane}" if args.insane else "")
            path = out / f"{preset}-{w}.parquet"
            if path.exists():
                res = load_results(path)
            else:
                parts = Path(str(path) + ".parts")
                res = run_tournament(preset, bots=[spec, args.opponent], hands=args.deals,
                                     seed=args.seed, out=path, jobs=args.jobs,
                                     resume=parts.exists(), progress=False)
            pr = res.pairings.iloc[0]
            sign = 1 if pr["bot_a"] == spec else -1
            lo, hi = sorted((sign * pr["diff_lo"], sign * pr["diff_hi"]))
            h = res.hands[(res.hands["bot"] == spec) & (res.hands["moves"] > 0)]
            ms = float(np.median(h["time"] / h["moves"]) * 1000)
            win = pr["win_rate"] if sign == 1 else 1 - pr["win_rate"]
            rows.append({"preset": preset, "worlds": w, "deals": int(pr["deals"]),
                         "points_diff": sign * pr["points_diff"], "diff_lo": lo, "diff_hi": hi,
                         "win_rate": float(win), "ms_per_decision": ms})
            print(pd.DataFrame(rows[-1:]).to_string(index=False), flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(out / "summary.csv", index=False)
    lines = [f"# insane vs {args.opponent} by worlds per decision", "",
             f"{args.deals:,} duplicate deals per row (each in every seat rotation), seed {args.seed}"
             + (f", insane with {args.insane}" if args.insane else "")
             + "; points per hand minus the opponent's with paired 95% intervals; median ms per "
               "decision of insane (its moves with one legal move included).", "",
             "| preset | worlds | insane − hard (points/hand) | win rate | ms/decision |",
             "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['preset']} | {r['worlds']:,} | {r['points_diff']:+.2f} "
                     f"[{r['diff_lo']:+.2f}, {r['diff_hi']:+.2f}] | {r['win_rate']:.1%} "
                     f"| {r['ms_per_decision']:.2f} |")
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"report: {out / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
