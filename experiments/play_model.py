#!/usr/bin/env python
"""insane with the policy network as its play model, against insane as it is, in Block.

Two parts:

1. **Cost.** On ``--positions`` decisions of ``hard`` self-play in Block
   (seat to move with two or more moves), the median CPU ms per decision
   (``time.process_time``) of insane at its Block defaults with the play
   model off (``policy_weight=0``), with today's ``hard`` play model, and
   with ``play_model=neural`` (the shipped ``block-policy``), all at the
   same worlds; the differences say what weighing the worlds costs. The
   worlds of the neural model that match the default's median ms are
   calibrated there too (two rounds of scaling ``worlds`` by the ratio).
2. **Strength.** Head to head on ``--deals`` duplicate deals (each in both
   seatings): ``insane:play_model=neural`` against ``insane`` at the same
   worlds, and at the calibrated worlds (equal median ms); the candidate's
   points per hand minus insane's with the paired 95% interval, and both
   bots' median ms per decision in the run (the tournament's own CPU clock).

Output under ``--out`` (default ``results/play-model/``): ``cost.csv``, a
resumable results file per duel, ``summary.csv`` and ``report.md``.

Usage::

    python experiments/play_model.py --deals 600
    python experiments/play_model.py --deals 4 --positions 10 --out /tmp/pm   # a smoke run
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from _common import head_to_head, interval, write_report
from value_duel import median_ms, positions

#: the specs of the cost table: the play model off, hard's, the network's
COST_SPECS = {"off": "insane:policy_weight=0", "hard": "insane",
              "neural": "insane:play_model=neural"}


def cost(obs: list) -> dict:
    """Median CPU ms per decision of each of :data:`COST_SPECS` on ``obs``."""
    return {k: median_ms(spec, obs) for k, spec in COST_SPECS.items()}


def calibrate(obs: list, base_ms: float, worlds: int) -> tuple[int, float]:
    """The worlds at which ``play_model=neural`` takes ``base_ms`` per
    decision on ``obs`` (two rounds of scaling by the ratio), and its median
    ms there."""
    w = worlds
    for _ in range(2):
        ms = median_ms(f"insane:play_model=neural,worlds={w}", obs)
        w = max(4, int(round(w * base_ms / ms)))
    return w, median_ms(f"insane:play_model=neural,worlds={w}", obs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=600)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=0,
                    help="the equal-time candidate's worlds (0: calibrated on the positions)")
    ap.add_argument("--skip", default="", help="duels to leave out: same, equal (comma-separated)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--out", default="results/play-model")
    a = ap.parse_args(argv)
    if a.deals < 1 or a.positions < 2:
        ap.error("--deals must be at least 1 and --positions at least 2")
    skip = {s.strip() for s in a.skip.split(",") if s.strip()}
    if skip - {"same", "equal"}:
        ap.error(f"--skip: unknown duel {sorted(skip - {'same', 'equal'})[0]!r} (same, equal)")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    from dominoai.bots import make_bot
    from dominoai.rules import get_rules
    base = make_bot("insane")
    base.use_rules(get_rules("block"))
    worlds = int(base.worlds)
    obs = positions("block", a.positions, 7)
    ms = cost(obs)
    row = {"positions": len(obs), "worlds": worlds, **{f"{k}_ms": v for k, v in ms.items()}}
    if a.worlds:
        w_eq, ms_eq = a.worlds, median_ms(f"insane:play_model=neural,worlds={a.worlds}", obs)
    else:
        w_eq, ms_eq = calibrate(obs, ms["hard"], worlds)
    row.update(equal_worlds=w_eq, equal_ms=ms_eq)
    pd.DataFrame([row]).to_csv(out / "cost.csv", index=False)
    print(f"cost on {len(obs)} positions at {worlds} worlds: off {ms['off']:.2f} ms, hard "
          f"{ms['hard']:.2f} ms, neural {ms['neural']:.2f} ms; neural at {w_eq} worlds "
          f"{ms_eq:.2f} ms", flush=True)
    rows = []
    duels = [("same", "insane:play_model=neural"),
             ("equal", f"insane:play_model=neural,worlds={w_eq}")]
    for name, spec in duels:
        if name in skip:
            continue
        r = head_to_head(out / f"{name}-d{a.deals}.csv", "block", spec, "insane", a.deals, a.seed,
                         a.jobs)
        r.update(duel=name, spec=spec)
        print(f"{name}: {spec}: {interval(r['gain'], r['lo'], r['hi'])} over {r['deals']} "
              f"deals, {r['a_ms']:.2f} / {r['b_ms']:.2f} ms", flush=True)
        rows.append(r)
    write_report(out, rows, "insane with the neural play model against insane, Block",
                 "Points per hand of the candidate minus insane at its Block defaults, paired "
                 "95% interval over duplicate deals; median CPU ms per decision in the run.",
                 ["duel", "candidate", "deals", "gain [95%]", "ms candidate / insane"],
                 lambda r: [r["duel"], f"`{r['spec']}`", str(r["deals"]),
                            interval(r["gain"], r["lo"], r["hi"]),
                            f"{r['a_ms']:.2f} / {r['b_ms']:.2f}"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
