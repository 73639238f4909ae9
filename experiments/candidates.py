#!/usr/bin/env python
"""Candidates for insane's defaults: each against insane as it is.

For every row of :data:`CANDIDATES` (preset, what it tries, the candidate
spec, the baseline, the seed of its deals and, for some, how many), one
tournament of the candidate against the baseline: insane as it was when the
row was measured (plain ``insane``, its defaults in that preset with
``TUNED_DEFAULTS``, or those defaults spelled out where they have changed
since), on the row's deals (else ``--deals``) duplicate deals, each in
every seat rotation (:func:`dominoai.run_tournament`). Reported: the candidate's points per hand
minus insane's with the paired 95% t interval over deals, and the median CPU
ms per decision of each (the time limit is 2 ms, Dominoball 12).

A candidate that wins significantly within the limit may enter the defaults;
it is then an ablation row (``experiments/ablation.py``) with the old value
as "off".

Output under ``--out`` (default ``results/candidates/``): a resumable results
file per row, ``summary.csv`` and ``report.md``.

Usage::

    python experiments/candidates.py --deals 1000
    python experiments/candidates.py --only block --deals 10 --out /tmp/cand    # a smoke run
"""

from __future__ import annotations

import sys

import pandas as pd

#: (preset, what the candidate tries, its spec, the baseline, the seed of its
#: deals[, its deals: default ``--deals``]). The baseline is insane's defaults when the row was measured: All
#: Fives had 40 worlds and Kozel 200 before these rows moved them to 100 and
#: 400 (our results files name that baseline plain "insane"). Block had no
#: exact endgame before the rows of seeds 49-52 gave it ``exact=12``: those
#: rows spell their baseline out (``insane:exact=0``); Block's earlier rows
#: (seeds 33-46) leave ``exact`` unset in both specs, so a rerun from scratch
#: would now play them with Block's exact endgame on both sides. Kozel's
#: rows before seed 57 were measured at 400 worlds and ``policy_weight=4``;
#: the rows that moved it to 600 worlds at 3 (seeds 53, 56) spell that
#: baseline out, the others leave it to the defaults of their time.
CANDIDATES = (
    ("draw", "the play model where tiles are drawn", "insane:draw_weight=true", "insane", 31),
    ("fives", "the play model where tiles are drawn", "insane:draw_weight=true", "insane", 31),
    ("all_fives", "100 worlds instead of 40", "insane:worlds=100", "insane:worlds=40", 33),
    ("block", "440 worlds instead of 200", "insane:worlds=440", "insane", 33),
    ("draw", "600 worlds instead of 378", "insane:worlds=600", "insane", 33),
    ("kozel", "300 worlds instead of 200", "insane:worlds=300", "insane:worlds=200", 33),
    ("block", "800 worlds instead of 200", "insane:worlds=800", "insane", 34),
    ("kozel", "450 worlds instead of 200", "insane:worlds=450", "insane:worlds=200", 34),
    ("kozel", "400 worlds instead of 200", "insane:worlds=400", "insane:worlds=200", 35),
    ("all_fives", "the play model where tiles are drawn (at 100 worlds)",
     "insane:draw_weight=true", "insane", 36),
    ("all_fives", "random rollouts at 800 worlds instead of hard at 100 (equal time)",
     "insane:rollout_policy=random,worlds=800", "insane", 37),
    ("block", "hard rollouts at 60 worlds instead of random at 200", "insane:rollout_policy=hard,worlds=60",
     "insane", 38),
    ("block", "medium rollouts instead of random", "insane:rollout_policy=medium", "insane", 38),
    ("kozel", "hard rollouts at 80 worlds instead of random at 400",
     "insane:rollout_policy=hard,worlds=80", "insane", 38),
    ("all_fives", "two rollouts per move at 50 worlds instead of one at 100",
     "insane:rollouts=2,worlds=50", "insane", 38),
    ("block", "a sharper play model (policy_weight=1 instead of 4)", "insane:policy_weight=1.0",
     "insane", 39),
    ("block", "policy_weight=1 at 600 worlds", "insane:policy_weight=1.0,worlds=600", "insane", 39),
    ("block", "policy_weight=1 at 850 worlds", "insane:policy_weight=1.0,worlds=850", "insane", 40),
    ("block", "policy_weight=0.5 at 850 worlds", "insane:policy_weight=0.5,worlds=850", "insane", 40),
    ("block", "policy_weight=1 at 600 worlds, again on fresh deals", "insane:policy_weight=1.0,worlds=600",
     "insane", 41),
    ("all_fives", "sequential halving over the moves", "insane:halving=true", "insane", 42),
    ("kozel", "sequential halving over the moves", "insane:halving=true", "insane", 42),
    ("block", "sequential halving over the moves", "insane:halving=true", "insane", 42),
    ("draw", "sequential halving over the moves", "insane:halving=true", "insane", 42),
    ("all_fives", "sequential halving over the moves, again on fresh deals", "insane:halving=true",
     "insane", 43, 1500),
    ("kozel", "no play model (policy_weight=0), same worlds", "insane:policy_weight=0", "insane", 44),
    ("kozel", "no play model at 1,000 worlds (about the same time)",
     "insane:policy_weight=0,worlds=1000", "insane", 44),
    ("all_fives", "medium rollouts at 150 worlds instead of hard at 100 (about the same time)",
     "insane:rollout_policy=medium,worlds=150", "insane", 44),
    ("all_fives", "hard for the first 4 moves of a rollout, then random, at 180 worlds",
     "insane:hard_plies=4,worlds=180", "insane", 45),
    ("all_fives", "hard for the first 2 moves of a rollout, then random, at 250 worlds",
     "insane:hard_plies=2,worlds=250", "insane", 45),
    ("kozel", "a sharper play model (policy_weight=2 instead of 4)", "insane:policy_weight=2.0",
     "insane", 45),
    # diagnostics over the 2 ms limit: what a sharper belief or more worlds could give at all
    ("block", "diagnostic, over the limit: policy_weight=0.5 at 5,000 worlds",
     "insane:policy_weight=0.5,worlds=5000", "insane", 46),
    ("block", "diagnostic, over the limit: policy_weight=1 at 5,000 worlds",
     "insane:policy_weight=1.0,worlds=5000", "insane", 46),
    ("kozel", "diagnostic, over the limit: 2,000 worlds", "insane:worlds=2000", "insane", 46),
    # with the play model's row cache (Kozel's weighting about 40% cheaper)
    ("kozel", "600 worlds instead of 400 (row cache)", "insane:worlds=600", "insane", 47),
    ("kozel", "750 worlds instead of 400 (row cache)", "insane:worlds=750", "insane", 47),
    ("all_fives", "exact endgame (exact=10)", "insane:exact=10", "insane", 48),
    ("all_fives", "exact endgame (exact=6)", "insane:exact=6", "insane", 48),
    ("all_fives", "exact endgame (exact=10), again on fresh deals", "insane:exact=10", "insane", 49,
     1500),
    ("all_fives", "exact endgame (exact=14)", "insane:exact=14", "insane", 49),
    ("block", "exact endgame (exact=12)", "insane:exact=12", "insane:exact=0", 49),
    ("kozel", "exact endgame (exact=12)", "insane:exact=12", "insane", 49),
    ("kozel", "exact endgame (exact=16)", "insane:exact=16", "insane", 49),
    ("kozel", "exact endgame (exact=12), again on fresh deals", "insane:exact=12", "insane", 50,
     1500),
    ("kozel", "exact endgame (exact=14)", "insane:exact=14", "insane", 50),
    ("block", "exact endgame (exact=8)", "insane:exact=8", "insane:exact=0", 50),
    ("block", "exact endgame (exact=10)", "insane:exact=10", "insane:exact=0", 50),
    ("block", "exact endgame (exact=12) at 2,000 nodes", "insane:exact=12,max_nodes=2000", "insane:exact=0",
     50),
    ("block", "exact endgame (exact=12) at 80 worlds", "insane:exact=12,worlds=80", "insane:exact=0", 51),
    ("block", "exact solving from the lead (exact=14) at 40 worlds", "insane:exact=14,worlds=40",
     "insane:exact=0", 51),
    ("kozel", "exact endgame (exact=14), again on fresh deals", "insane:exact=14", "insane", 51,
     2000),
    # with the plain-line solver (the same values, about 5x faster)
    ("block", "exact endgame (exact=12), plain-line solver, on fresh deals", "insane:exact=12",
     "insane:exact=0", 52, 1500),
    ("block", "exact endgame (exact=13), plain-line solver", "insane:exact=13", "insane:exact=0", 52),
    ("kozel", "a sharper play model with more worlds (policy_weight=2, 700 worlds)",
     "insane:policy_weight=2.0,worlds=700", "insane", 53),
    ("kozel", "policy_weight=3 at 600 worlds", "insane:policy_weight=3.0,worlds=600",
     "insane:policy_weight=4.0,worlds=400", 53),
    ("all_fives", "the play model where tiles are drawn (at 100 worlds), again on fresh deals",
     "insane:draw_weight=true", "insane", 54, 2000),
    # Block against its new defaults (exact=12)
    ("block", "300 worlds with the exact endgame", "insane:worlds=300", "insane", 55),
    ("block", "exact solving from the lead (exact=14)", "insane:exact=14", "insane", 55),
    ("kozel", "policy_weight=3 at 600 worlds, again on fresh deals",
     "insane:policy_weight=3.0,worlds=600", "insane:policy_weight=4.0,worlds=400", 56, 2000),
    ("kozel", "policy_weight=3 at 400 worlds (against the former defaults)",
     "insane:policy_weight=3.0,worlds=400", "insane:policy_weight=4.0,worlds=400", 57, 2000),
    ("kozel", "policy_weight=3 at 600 worlds, a third time on fresh deals",
     "insane:policy_weight=3.0,worlds=600", "insane:policy_weight=4.0,worlds=400", 58, 2000),
    ("all_fives", "the play model where tiles are drawn, sharper (policy_weight=2)",
     "insane:draw_weight=true,policy_weight=2.0", "insane", 59, 2000),
    ("all_fives", "the play model where tiles are drawn (at 100 worlds), a third time",
     "insane:draw_weight=true", "insane", 60, 2000),
)


def slug(spec: str) -> str:
    """A file name part for a spec: ``insane:worlds=100`` -> ``worlds-100``."""
    return spec.split(":", 1)[1].replace("=", "-").replace(",", "_")


def main(argv=None) -> int:
    from _common import head_to_head, interval, row_args, write_report

    args, only, out = row_args(__doc__, 1000, "results/candidates", [r[0] for r in CANDIDATES], argv)
    rows = []
    for preset, what, spec, base, seed, *deals in CANDIDATES:
        if only and preset not in only:
            continue
        r = head_to_head(out / f"{preset}-{slug(spec)}-seed{seed}.parquet", preset, spec, base,
                         deals[0] if deals else args.deals, seed, args.jobs)
        rows.append({"preset": preset, "candidate": what, "spec": spec, "baseline": base,
                     "seed": seed, **r})
        print(pd.DataFrame(rows[-1:]).to_string(index=False), flush=True)
    report = write_report(
        out, rows, "Candidates for insane's defaults, each against insane as it is",
        "Duplicate deals (each in every seat rotation), as many and with the seed given per "
        "row; the gain is the candidate's points per hand minus the baseline's (insane at its "
        "defaults of the time), with the paired 95% interval over deals; median CPU ms per "
        "decision.",
        ["preset", "candidate", "spec", "baseline", "seed", "deals", "gain (points/hand)",
         "ms candidate / baseline"],
        lambda r: [r["preset"], r["candidate"], f"`{r['spec']}`", f"`{r['baseline']}`",
                   str(r["seed"]), f"{r['deals']:,}", interval(r["gain"], r["lo"], r["hi"]),
                   f"{r['a_ms']:.2f} / {r['b_ms']:.2f}"])
    print(f"report: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
