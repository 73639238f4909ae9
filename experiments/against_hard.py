#!/usr/bin/env python
"""Does a candidate raise insane's margin over ``hard``?

The gap study (``gap.py``) measures insane's share of the bound by its
margin over ``hard`` head to head. A candidate setting can beat the defaults
head to head and not that margin, or the other way round. This script plays
one round robin per preset (:func:`dominoai.run_tournament`, duplicate
deals, each in every seat rotation) of ``hard``, ``insane`` (the defaults)
and the candidates, and reports per candidate, paired over the deals with
a 95% t interval:

- ``gain vs hard``: (candidate - hard) - (insane - hard), each the mean over
  the deal's rotations of the two bots' head-to-head points per hand;
- ``head to head``: candidate - insane at their own table;
- the median CPU ms per decision of both.

Output under ``--out`` (default ``results/against_hard/``), in a folder per
preset and seed: the resumable results file ``hands.parquet`` (a finished
one is read back, one with parts on disk continues), ``summary.csv`` and
``report.md``.

Bad input (an unknown preset or bot, a bad parameter, a bot listed twice,
a results folder holding another run) gets one line on stderr and exit
code 2, before anything is written.

Usage::

    python experiments/against_hard.py --preset block --candidates "insane:hard_prior=0.5" \\
        --deals 1000 --seed 198 --jobs 2
    python experiments/against_hard.py --preset all_fives \\
        --candidates "insane:draw_weight=true,hard_prior=0.5;insane:worlds=85" --deals 20 --out /tmp/ah
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--preset", required=True, default=argparse.SUPPRESS,
                    help="the preset (block, all_fives, kozel, ...)")
    ap.add_argument("--candidates", required=True, default=argparse.SUPPRESS,
                    help="insane specs separated by ';' (a spec's own parameters by ',' or '+')")
    ap.add_argument("--deals", type=int, default=1000, help="deals (each in every rotation)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (-1: every core)")
    ap.add_argument("--seed", type=int, default=198, help="root seed of the deals and bots")
    ap.add_argument("--out", default="results/against_hard",
                    help="folder of the runs (one subfolder per preset and seed)")
    args = ap.parse_args(argv)

    import pandas as pd

    from _common import interval, median_ms, run_or_load, write_report
    from gap import deal_diffs

    from dominoai.tournament.stats import paired_ci

    from dominoai.bots.spec import join_spec_params

    cands = [join_spec_params(c.strip()) for c in args.candidates.split(";") if c.strip()]
    if not cands:
        ap.error("--candidates: give at least one spec")
    if args.deals < 1:
        ap.error(f"--deals must be at least 1 (got {args.deals})")
    bots = ["hard", "insane", *cands]
    try:
        from dominoai.bots import make_bot
        from dominoai.rules import get_rules
        from dominoai.tournament.schedule import check_bots

        for b in cands:
            make_bot(b)                                # an unknown bot or a bad parameter
        check_bots(bots, get_rules(args.preset))   # an unknown preset, a bot listed twice
    except ValueError as e:
        print(f"against_hard.py: error: {e}", file=sys.stderr)
        return 2
    out = Path(args.out) / f"{args.preset}-seed{args.seed}"
    path = out / "hands.parquet"
    if path.exists():
        from dominoai.tournament import load_results
        from dominoai.tournament.schedule import bot_identity
        old = load_results(path).hands
        have = sorted(set(old["bot"]))
        # a candidate spelled otherwise than in the run (fusion=True, a default
        # written out) is the run's bot: read under the run's name
        rules = get_rules(args.preset)
        named = {bot_identity(b, rules): b for b in have}
        given = cands
        cands = [named.get(bot_identity(c, rules), c) for c in cands]
        respelt = [f"{g} as {c}" for g, c in zip(given, cands) if g != c]
        bots = ["hard", "insane", *cands]
        if have != sorted(bots) or old["deal"].nunique() != args.deals:
            print(f"against_hard.py: error: {path} holds another run ({', '.join(have)} on "
                  f"{old['deal'].nunique():,} deals): give another --out or remove it",
                  file=sys.stderr)
            return 2
        print(f"against_hard.py: {path} holds this run: reading it back"
              + (f" ({', '.join(respelt)})" if respelt else ""), file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    res = run_or_load(path, args.preset, bots, args.deals, args.seed, args.jobs, progress=True)
    h = res.hands
    n_deals = int(h["deal"].nunique())
    base = deal_diffs(h, "insane", "hard")
    ms = median_ms(h)
    rows = []
    for c in cands:
        d = deal_diffs(h, c, "hard")
        common = d.index.intersection(base.index)
        g, g_lo, g_hi = paired_ci((d.loc[common] - base.loc[common]).to_numpy())
        v, v_lo, v_hi = paired_ci(deal_diffs(h, c, "insane").to_numpy())
        rows.append({"preset": args.preset, "candidate": c, "seed": args.seed,
                     "deals": len(common), "insane_minus_hard": float(base.mean()),
                     "gain_vs_hard": g, "gain_lo": g_lo, "gain_hi": g_hi,
                     "head_to_head": v, "h2h_lo": v_lo, "h2h_hi": v_hi,
                     "ms": ms.get(c, float("nan")), "insane_ms": ms.get("insane", float("nan"))})
    print(pd.DataFrame(rows).to_string(index=False), flush=True)
    report = write_report(
        out, rows, f"candidates against hard, {args.preset} (seed {args.seed})",
        f"Round robin of hard, insane and the candidates on {n_deals:,} duplicate deals "
        f"(seed {args.seed}); gain vs hard = (candidate − hard) − (insane − hard) per deal, "
        "head to head = candidate − insane; paired 95% t intervals over deals; median CPU ms "
        "per decision.",
        ["preset", "candidate", "deals", "insane − hard", "gain vs hard", "head to head",
         "ms candidate / insane"],
        lambda r: [r["preset"], f"`{r['candidate']}`", f"{r['deals']:,}",
                   f"{r['insane_minus_hard']:+.2f}",
                   interval(r["gain_vs_hard"], r["gain_lo"], r["gain_hi"]),
                   interval(r["head_to_head"], r["h2h_lo"], r["h2h_hi"]),
                   f"{r['ms']:.2f} / {r['insane_ms']:.2f}"])
    print(f"report: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
