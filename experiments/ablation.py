#!/usr/bin/env python
"""Ablations: each technique in insane's defaults, on against off.

For every row of :data:`ABLATIONS` (preset, technique, the "off" spec), one
tournament of ``insane`` at its defaults (where the technique is on) against
the same bot with that one technique switched off, on ``--deals`` duplicate
deals, each in every seat rotation (:func:`dominoai.run_tournament`).
Reported: the points per hand of "on" minus "off" with the paired 95% t
interval over deals, and the median CPU ms per decision of each.

Output under ``--out`` (default ``results/ablation/``): a resumable results
file per row, ``summary.csv`` and ``report.md``.

Usage::

    python experiments/ablation.py --deals 2000
    python experiments/ablation.py --only draw --deals 10 --out /tmp/abl    # a smoke run
"""

from __future__ import annotations

import sys

import pandas as pd

#: (preset, technique, insane with it switched off). "on" is plain
#: ``insane``: its defaults in that preset (TUNED_DEFAULTS included).
ABLATIONS = (
    ("draw", "exact endgame (exact=12)", "insane:exact=0"),
    ("draw", "two rollouts per move (rollouts=2)", "insane:rollouts=1"),
    ("draw", "378 worlds instead of 200", "insane:worlds=200"),
    ("all_fives", "hard rollouts (rollout_policy=hard)", "insane:rollout_policy=random"),
    ("all_fives", "100 worlds instead of 40", "insane:worlds=40"),
    ("kozel", "600 worlds instead of 400", "insane:worlds=400"),
    ("kozel", "play-model temperature 3 instead of 4 (policy_weight=3)", "insane:policy_weight=4.0"),
    ("kozel", "the play model (policy_weight=3)", "insane:policy_weight=0"),
    ("block", "exact endgame (exact=12)", "insane:exact=0"),
    ("block", "play-model weighting (policy_weight=4)", "insane:policy_weight=0"),
    ("block", "inference (what a seat cannot hold)", "insane:inference=false"),
)


def main(argv=None) -> int:
    from _common import head_to_head, interval, row_args, write_report

    args, only, out = row_args(__doc__, 2000, "results/ablation", [r[0] for r in ABLATIONS], argv,
                                 seed=15)
    rows = []
    for preset, what, off in ABLATIONS:
        if only and preset not in only:
            continue
        r = head_to_head(out / f"{preset}-{off.split(':', 1)[1].replace('=', '-')}.parquet",
                         preset, "insane", off, args.deals, args.seed, args.jobs)
        rows.append({"preset": preset, "technique": what, "off": off, **r})
        print(pd.DataFrame(rows[-1:]).to_string(index=False), flush=True)
    report = write_report(
        out, rows, "Ablations: insane's defaults with one technique switched off",
        f"{args.deals:,} duplicate deals per row (each in every seat rotation), seed {args.seed}; "
        "the gain is insane's points per hand minus the ablated bot's, with the paired 95% "
        "interval over deals; median CPU ms per decision.",
        ["preset", "technique", "off", "gain (points/hand)", "ms on / off"],
        lambda r: [r["preset"], r["technique"], f"`{r['off']}`", interval(r["gain"], r["lo"], r["hi"]),
                   f"{r['a_ms']:.2f} / {r['b_ms']:.2f}"])
    print(f"report: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
