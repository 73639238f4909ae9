#!/usr/bin/env python
"""How much of perfect information does insane use?

For each preset, one round-robin tournament (:func:`dominoai.run_tournament`,
duplicate deals: every table plays the same deals, each in every seat
rotation) of

- ``hard``;
- ``insane`` (``--insane``: its spec, default the defaults);
- ``omniscient:boneyard=hidden``: sees every hand but not the boneyard's
  order, the bound on what perfect inference could give (in presets without
  drawing it plays exactly as ``omniscient``);
- ``omniscient``: sees every hand and the draw order (clairvoyance).

Reported per preset, from the hands table: each bot's points per hand minus
``hard``'s at their table with the paired 95% t interval over deals, and
insane's **share** of the bound's margin over ``hard``,
``mean(insane - hard) / mean(bound - hard)`` over the same deals, with a 95%
bootstrap interval over deals (``scipy.stats.bootstrap``, paired: a deal's
two differences are resampled together, BCa), and each bot's median ms per
decision (the tournament's clock).

Both omniscient bots get the extra parameters ``--omniscient`` (default
none: their defaults, the same worlds and rollouts as insane's defaults).

Output under ``--out`` (default ``results/gap/``): one resumable results
file per preset (a finished one is read back, one with parts on disk
continues), ``summary.csv`` and ``report.md``.

Usage::

    python experiments/gap.py --deals 1000 --jobs -1
    python experiments/gap.py --presets block --deals 20 --out /tmp/gap   # a smoke run
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

PRESETS = ("draw", "block", "all_fives", "kozel")


def _with(spec: str, extra: str) -> str:
    """``spec`` with the parameters ``extra`` appended (``"a=1,b=2"``)."""
    if not extra:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}{extra}"


def deal_diffs(hands: pd.DataFrame, a: str, b: str) -> pd.Series:
    """Per deal, ``a``'s points per hand minus ``b``'s at their table (the
    mean over the deal's rotations), indexed by deal."""
    from dominoai.tournament.stats import outcomes
    order = list(dict.fromkeys(hands["bot"]))
    oc = outcomes(hands, order)
    ia, ib = order.index(a), order.index(b)
    lo, hi = min(ia, ib), max(ia, ib)
    sign = 1.0 if ia == lo else -1.0
    g = oc[(oc["a"] == lo) & (oc["b"] == hi)]
    return sign * g.groupby("deal")["diff"].mean()


def share_interval(x: np.ndarray, y: np.ndarray, seed: int, n: int = 4000):
    """``mean(x) / mean(y)`` and its 95% paired bootstrap interval (BCa)
    over the deals, ``x`` and ``y`` aligned per deal."""
    from scipy import stats

    def ratio(xs, ys, axis=-1):
        return np.mean(xs, axis=axis) / np.mean(ys, axis=axis)

    res = stats.bootstrap((x, y), ratio, paired=True, vectorized=True, n_resamples=n,
                          confidence_level=0.95, method="BCa", random_state=seed)
    return float(ratio(x, y)), float(res.confidence_interval.low), float(res.confidence_interval.high)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--deals", type=int, default=1000, help="deals per preset (each in every rotation)")
    ap.add_argument("--insane", default="insane", help="the insane spec")
    ap.add_argument("--omniscient", default="", help="extra parameters of both omniscient bots")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--out", default="results/gap")
    args = ap.parse_args(argv)

    from _common import interval, median_ms, run_or_load, write_report
    from dominoai.tournament.stats import paired_ci

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    hard, insane = "hard", args.insane
    bound = _with("omniscient:boneyard=hidden", args.omniscient)
    omni = _with("omniscient", args.omniscient)
    rows = []
    for preset in [p.strip() for p in args.presets.split(",") if p.strip()]:
        res = run_or_load(out / f"gap-{preset}.parquet", preset, [hard, insane, bound, omni],
                          args.deals, args.seed, args.jobs, progress=True)
        h = res.hands
        d_ins, d_bnd, d_omn = (deal_diffs(h, b, hard) for b in (insane, bound, omni))
        common = d_ins.index.intersection(d_bnd.index)
        x, y = d_ins.loc[common].to_numpy(), d_bnd.loc[common].to_numpy()
        share, s_lo, s_hi = share_interval(x, y, args.seed)
        ms = median_ms(h)
        row = {"preset": preset, "deals": len(common)}
        for name, d in (("insane", d_ins), ("bound", d_bnd), ("omniscient", d_omn)):
            m, lo, hi = paired_ci(d.to_numpy())
            row.update({f"{name}_minus_hard": m, f"{name}_lo": lo, f"{name}_hi": hi})
        row.update({"share": share, "share_lo": s_lo, "share_hi": s_hi,
                    "insane_ms": ms.get(insane, float("nan")), "bound_ms": ms.get(bound, float("nan"))})
        rows.append(row)
        print(pd.DataFrame([row]).to_string(index=False), flush=True)
    report = write_report(
        out, rows, f"insane's share of the perfect-inference bound (`{insane}`)",
        f"Round robin of hard, {insane}, {bound} and {omni} on {args.deals:,} duplicate deals "
        f"per preset (seed {args.seed}); points per hand minus hard's with paired 95% "
        "intervals; the share with a 95% paired bootstrap (BCa) interval over deals; median CPU "
        "ms per decision.",
        ["preset", "deals", "insane − hard", "bound − hard", "omniscient − hard",
         "share of the bound", "ms insane / bound"],
        lambda r: [r["preset"], f"{r['deals']:,}"]
        + [interval(r[k + "_minus_hard"], r[k + "_lo"], r[k + "_hi"]) for k in ("insane", "bound", "omniscient")]
        + [f"{r['share']:.0%} [{r['share_lo']:.0%}, {r['share_hi']:.0%}]",
           f"{r['insane_ms']:.2f} / {r['bound_ms']:.2f}"])
    print(f"report: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
