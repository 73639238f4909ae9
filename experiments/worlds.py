#!/usr/bin/env python
"""Strength against time: insane vs hard from 25 to 1,600 worlds (the
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
file per run, ``summary.csv`` and ``report.md`` (the committed copy:
docs/reports/2026-12-01-strength-against-worlds.md).

Usage::

    python experiments/worlds.py --presets block,draw --deals 1000
    python experiments/worlds.py --presets block --worlds 25,200 --deals 10 --out /tmp/w   # smoke
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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

    from _common import interval, median_ms, pairing_from, run_or_load, write_report

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for preset in [p.strip() for p in args.presets.split(",") if p.strip()]:
        for w in [int(x) for x in args.worlds.split(",") if x.strip()]:
            spec = f"insane:worlds={w}" + (f",{args.insane}" if args.insane else "")
            res = run_or_load(out / f"{preset}-{w}.parquet", preset, [spec, args.opponent],
                              args.deals, args.seed, args.jobs)
            rows.append({"preset": preset, "worlds": w, **pairing_from(res, spec),
                         "ms_per_decision": median_ms(res.hands, spec)})
            print(pd.DataFrame(rows[-1:]).to_string(index=False), flush=True)
    report = write_report(
        out, rows, f"insane vs {args.opponent} by worlds per decision",
        f"{args.deals:,} duplicate deals per row (each in every seat rotation), seed {args.seed}"
        + (f", insane with {args.insane}" if args.insane else "")
        + " (and its per-preset defaults for the other parameters); points per hand minus the "
          "opponent's with paired 95% intervals; median CPU ms per decision of insane (its moves "
          "with one legal move included).",
        ["preset", "worlds", f"insane − {args.opponent} (points/hand)", "win rate", "ms/decision"],
        lambda r: [r["preset"], f"{r['worlds']:,}", interval(r["points_diff"], r["diff_lo"], r["diff_hi"]),
                   f"{r['win_rate']:.1%}", f"{r['ms_per_decision']:.2f}"])
    print(f"report: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
