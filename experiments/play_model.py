#!/usr/bin/env python
"""insane with the policy network as its play model, against insane as it is, in any preset.

Two parts, on ``--preset`` (default ``block``):

1. **Cost.** On ``--positions`` decisions of ``hard`` self-play (seat to
   move with two or more moves), the median CPU ms per decision
   (``time.process_time``) of insane at the preset's defaults with the play
   model off (``policy_weight=0``), at its defaults (``hard``'s play model
   where it is on there), and with the candidate's settings (``--candidate``,
   default ``play_model=neural``: the shipped ``PRESET-policy``, with its
   action-feature block where it has one), all at the same worlds; the
   differences say what weighing the worlds costs. The candidate's worlds
   that match the default's median ms are calibrated there too (two rounds
   of scaling ``worlds`` by the ratio), unless ``--worlds`` gives them.
2. **Strength.** Head to head on ``--deals`` duplicate deals (each in every
   seat rotation): the candidate against ``insane`` at the same worlds, and
   at the calibrated worlds (equal median ms); the candidate's points per
   hand minus insane's with the paired 95% interval, and both bots' median
   ms per decision in the run (the tournament's own CPU clock).

Where tiles are drawn, insane's play model acts only with ``draw_weight=true``
(the Draw default has it, All Fives' does not): give it in ``--candidate``
there (``play_model=neural,draw_weight=true``). Output under ``--out``
(default ``results/play-model/PRESET/``, one folder per ``--label``):
``cost.csv``, a resumable results file per duel, ``summary.csv`` and
``report.md``.

Usage::

    python experiments/play_model.py --deals 600
    python experiments/play_model.py --preset draw --deals 2000 --jobs 2
    python experiments/play_model.py --preset all_fives --candidate play_model=neural,draw_weight=true
    python experiments/play_model.py --preset kozel --candidate play_model=neural,value_plies=4 --label leaf
    python experiments/play_model.py --deals 4 --positions 10 --out /tmp/pm   # a smoke run
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from _common import head_to_head, interval, write_report
from value_duel import median_ms, positions


def cost_specs(candidate: str) -> dict:
    """The specs of the cost table: the play model off, insane's defaults,
    the candidate (at the defaults' worlds)."""
    return {"off": "insane:policy_weight=0", "default": "insane", "candidate": f"insane:{candidate}"}


def cost(obs: list, candidate: str) -> dict:
    """Median CPU ms per decision of each of :func:`cost_specs` on ``obs``."""
    return {k: median_ms(spec, obs) for k, spec in cost_specs(candidate).items()}


def calibrate(obs: list, candidate: str, base_ms: float, worlds: int) -> tuple[int, float]:
    """The worlds at which the candidate takes ``base_ms`` per decision on
    ``obs`` (two rounds of scaling by the ratio), and its median ms there."""
    w = worlds
    for _ in range(2):
        ms = median_ms(f"insane:{candidate},worlds={w}", obs)
        w = max(4, int(round(w * base_ms / ms)))
    return w, median_ms(f"insane:{candidate},worlds={w}", obs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="block")
    ap.add_argument("--candidate", default="play_model=neural",
                    help="insane's parameters of the candidate (comma-separated k=v, no worlds)")
    ap.add_argument("--label", default="neural", help="the candidate's folder under the preset's")
    ap.add_argument("--deals", type=int, default=600)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=0,
                    help="the equal-time candidate's worlds (0: calibrated on the positions)")
    ap.add_argument("--skip", default="", help="duels to leave out: same, equal (comma-separated)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--out", default="", help="default results/play-model/PRESET/LABEL")
    a = ap.parse_args(argv)
    from dominoai.bots import make_bot
    from dominoai.rules import get_rules, preset_names
    if a.preset not in preset_names():
        ap.error(f"--preset: unknown preset {a.preset!r}")
    if a.deals < 1 or a.positions < 2:
        ap.error("--deals must be at least 1 and --positions at least 2")
    skip = {s.strip() for s in a.skip.split(",") if s.strip()}
    if skip - {"same", "equal"}:
        ap.error(f"--skip: unknown duel {sorted(skip - {'same', 'equal'})[0]!r} (same, equal)")
    if "worlds=" in a.candidate:
        ap.error("--candidate: leave worlds out (the duels set them)")
    try:
        cand = make_bot(f"insane:{a.candidate}")
    except ValueError as e:
        ap.error(f"--candidate: {e}")
    out = Path(a.out or f"results/play-model/{a.preset}/{a.label}")
    out.mkdir(parents=True, exist_ok=True)
    base = make_bot("insane")
    rules = get_rules(a.preset)
    base.use_rules(rules)
    cand.use_rules(rules)
    worlds = int(cand.worlds)
    obs = positions(a.preset, a.positions, 7)
    ms = cost(obs, a.candidate)
    row = {"preset": a.preset, "candidate": a.candidate, "positions": len(obs), "worlds": worlds,
           **{f"{k}_ms": v for k, v in ms.items()}}
    if a.worlds:
        w_eq = a.worlds
        ms_eq = median_ms(f"insane:{a.candidate},worlds={w_eq}", obs)
    else:
        w_eq, ms_eq = calibrate(obs, a.candidate, ms["default"], worlds)
    row.update(equal_worlds=w_eq, equal_ms=ms_eq)
    pd.DataFrame([row]).to_csv(out / "cost.csv", index=False)
    print(f"{a.preset}: cost on {len(obs)} positions at {worlds} worlds: off {ms['off']:.2f} ms, "
          f"default {ms['default']:.2f} ms, {a.candidate} {ms['candidate']:.2f} ms; at {w_eq} "
          f"worlds {ms_eq:.2f} ms", flush=True)
    rows = []
    duels = [("same", f"insane:{a.candidate}"), ("equal", f"insane:{a.candidate},worlds={w_eq}")]
    for name, spec in duels:
        if name in skip:
            continue
        r = head_to_head(out / f"{name}-s{a.seed}-d{a.deals}.csv", a.preset, spec, "insane",
                         a.deals, a.seed, a.jobs)
        r.update(duel=name, spec=spec, preset=a.preset, seed=a.seed)
        print(f"{a.preset} {name}: {spec}: {interval(r['gain'], r['lo'], r['hi'])} over "
              f"{r['deals']} deals, {r['a_ms']:.2f} / {r['b_ms']:.2f} ms", flush=True)
        rows.append(r)
    write_report(out, rows, f"insane with the play model {a.candidate} against insane, {a.preset}",
                 "Points per hand of the candidate minus insane at the preset's defaults, paired "
                 "95% interval over duplicate deals; median CPU ms per decision in the run.",
                 ["duel", "candidate", "deals", "gain [95%]", "ms candidate / insane"],
                 lambda r: [r["duel"], f"`{r['spec']}`", str(r["deals"]),
                            interval(r["gain"], r["lo"], r["hi"]),
                            f"{r['a_ms']:.2f} / {r['b_ms']:.2f}"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
