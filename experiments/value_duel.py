#!/usr/bin/env python
"""insane with the value network's leaf against insane as it is, at equal time.

For each preset: the candidate is insane at its preset defaults with
``value_plies`` (the shipped value model ``PRESET-value``); its ``worlds``
are set so that its median CPU ms per decision matches the baseline's,
measured on the same positions (the decisions of ``hard`` self-play,
:func:`calibrate`), or given (``--worlds``, e.g. after a run whose own
medians differed by more than 10%). Then a head-to-head tournament on ``--deals``
duplicate deals (each in both seatings): the candidate's points per hand
minus the baseline's with the paired 95% interval, and both bots' median
ms per decision in that run.

Output under ``--out`` (default ``results/value-duel/``): a resumable
results file per preset, ``summary.csv`` and ``report.md``.

Usage::

    python experiments/value_duel.py --presets draw all_fives kozel --deals 300
    python experiments/value_duel.py --presets draw --deals 4 --out /tmp/vd    # a smoke run
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from _common import head_to_head, interval, write_report


def positions(preset: str, n: int, seed: int) -> list:
    """``n`` observations where the seat to move has two or more moves, from
    ``hard`` playing itself on fresh deals of ``preset``."""
    from dominoai import Match
    from dominoai.bots import make_bot
    bot = make_bot("hard")
    out = []
    m = Match(preset, seed=seed)
    while len(out) < n:
        if m.finished or (m.current is not None and not m.current.over):
            m = Match(preset, seed=seed + len(out) + 1)
        h = m.new_hand()
        while not h.over and len(out) < n:
            obs = h.observe(h.seat)
            if len(obs.legal_codes()) > 1:
                out.append(obs)
            h.play(bot.act(obs))
    return out


def median_ms(spec: str, obs: list) -> float:
    """Median CPU ms per decision of ``spec`` over the observations ``obs``
    (one warm-up decision first)."""
    from dominoai.bots import make_bot
    bot = make_bot(spec)
    bot.act(obs[0])
    ts = []
    for o in obs:
        t = time.process_time()
        bot.act(o)
        ts.append(time.process_time() - t)
    return float(np.median(ts) * 1000)


def calibrate(preset: str, plies: int, n: int = 60, seed: int = 7) -> tuple[str, float, float]:
    """The candidate spec whose median ms per decision matches insane's at its
    defaults in ``preset`` (two rounds of scaling ``worlds`` by the ratio),
    with both medians measured last."""
    from dominoai.bots import make_bot
    from dominoai.rules import get_rules
    obs = positions(preset, n, seed)
    base = make_bot("insane")
    base.use_rules(get_rules(preset))
    worlds = int(base.worlds)
    ms_base = median_ms("insane", obs)
    # at value_plies=1 a world's rollouts are equal: one is enough
    extra = ",rollouts=1" if plies == 1 else ""
    w = worlds
    for _ in range(2):
        ms = median_ms(f"insane:value_plies={plies}{extra},worlds={w}", obs)
        w = max(8, int(round(w * ms_base / ms)))
    spec = f"insane:value_plies={plies}{extra},worlds={w}"
    return spec, median_ms(spec, obs), ms_base


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", nargs="+", default=["draw", "all_fives", "kozel"])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--plies", type=int, default=1, help="the candidate's value_plies")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--worlds", type=int, default=0,
                    help="the candidate's worlds (0: calibrated on the probe positions)")
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--out", default="results/value-duel")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for preset in a.presets:
        if a.worlds:
            extra = ",rollouts=1" if a.plies == 1 else ""
            spec, ms_c, ms_b = f"insane:value_plies={a.plies}{extra},worlds={a.worlds}", 0.0, 0.0
        else:
            spec, ms_c, ms_b = calibrate(preset, a.plies)
        print(f"{preset}: {spec} at {ms_c:.2f} ms against insane at {ms_b:.2f} ms", flush=True)
        r = head_to_head(out / f"{preset}.csv", preset, spec, "insane", a.deals, a.seed, a.jobs)
        r.update(preset=preset, spec=spec, probe_ms=ms_c, probe_base_ms=ms_b)
        print(f"{preset}: {interval(r['gain'], r['lo'], r['hi'])} over {r['deals']} deals, "
              f"{r['a_ms']:.2f} / {r['b_ms']:.2f} ms", flush=True)
        rows.append(r)
    write_report(out, rows, "insane with the value leaf against insane",
                 "Points per hand of the candidate minus insane at its defaults, paired 95% "
                 "interval over duplicate deals; median CPU ms per decision in the run.",
                 ["preset", "candidate", "deals", "gain [95%]", "ms candidate / insane"],
                 lambda r: [r["preset"], f"`{r['spec']}`", str(r["deals"]),
                            interval(r["gain"], r["lo"], r["hi"]),
                            f"{r['a_ms']:.2f} / {r['b_ms']:.2f}"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
