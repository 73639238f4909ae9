#!/usr/bin/env python
"""Could insane reuse the previous decision's worlds?

At each decision of seat 0 in hands of ``hard`` bots, sample ``--worlds``
worlds from the observation's :class:`~dominoai.bots.worlds.Belief`; at
seat 0's next decision in the same hand, count the share of those worlds
whose hands still hold every tile each other seat has played since. That
share is an upper bound on the worlds a reuse could keep (a pass since
would rule out more; draws are not followed). Reported per preset: the
mean and median share over ``--decisions`` decisions.

Usage::

    python experiments/reuse.py --presets block,all_fives,kozel --decisions 200
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def shares(preset: str, decisions: int, worlds: int, seed: int) -> np.ndarray:
    from dominoai import Match
    from dominoai.bots import make_bot
    from dominoai.bots.worlds import Belief
    from dominoai.engine import layout as L

    rng = np.random.default_rng(seed)
    out = []
    while len(out) < decisions:
        m = Match(preset, seed=int(rng.integers(1 << 30)))
        h = m.new_hand()
        bots = [make_bot("hard") for _ in range(m.rules.players)]
        pending = None
        while not h.over:
            obs = h.observe()
            if h.seat == 0:
                ev = np.asarray(obs.event_array)
                if pending is not None:
                    old, n0 = pending
                    ok = np.ones(len(old), bool)
                    for e in ev[n0:]:
                        if e[0] == L.EV_PLAY and e[1] != 0:
                            ok &= ((old[:, L.S_HAND + e[1]] >> e[2]) & 1).astype(bool)
                    out.append(ok.mean())
                w, _ = Belief(obs).sample(worlds, seed=int(rng.integers(1 << 30)))
                pending = (w, len(ev))
            h.play(bots[h.seat].act(obs))
    return np.array(out[:decisions])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--presets", default="block,all_fives,kozel", help="comma-separated")
    ap.add_argument("--decisions", type=int, default=200, help="decisions per preset")
    ap.add_argument("--worlds", type=int, default=400, help="worlds sampled per decision")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    from dominoai import preset_names
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    bad = [p for p in presets if p not in preset_names()]
    if bad or args.decisions < 1 or args.worlds < 1:
        print(f"{ap.prog}: error: " + (f"unknown preset {bad[0]!r}" if bad else
                                       "--decisions and --worlds must be at least 1"),
              file=sys.stderr)
        return 2
    print(f"{'preset':10s} {'decisions':>9s} {'mean share':>10s} {'median':>7s}")
    for p in presets:
        s = shares(p, args.decisions, args.worlds, args.seed)
        print(f"{p:10s} {len(s):9d} {s.mean():10.3f} {np.median(s):7.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
