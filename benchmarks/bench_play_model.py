#!/usr/bin/env python
"""Where the play model's time goes: the hard model against the policy network.

On ``--positions`` decisions of ``hard`` self-play in ``--preset`` (default
``block``; seat to move with two or more moves), each observer's
``--worlds`` sampled worlds are weighed by the play model's tables
(:func:`dominoai.bots.pimc.tabled_likelihood`, no row cache, so every row
of every world is evaluated; where tiles are drawn, the rows since each
seat's last draw) with

- ``hard``: a softmax of hard's move values (insane's default, ``policy_weight=4``);
- ``neural``: the preset's shipped policy (``PRESET-policy``,
  ``play_model=neural``), through its first-layer tables
  (:func:`~dominoai.bots.pimc.likelihood.net_tables`, built once per
  decision and timed apart), with its action-feature block where it has
  one;
- ``neural_noblock`` (a policy with the block only): the same network with
  the block left out, so the difference is what the features cost;
- ``neural_plain``: the same network's plain forward pass on the whole
  observation vector (:func:`dominoai.nets.forward.forward_into`) per
  row, for comparison.

It reports the tabled rows (plays and passes) per decision, the CPU
microseconds per row evaluated of each model and of the table building,
in one process (ratios in one run). It is a script, not a test.

Usage::

    python benchmarks/bench_play_model.py --positions 40 --worlds 200
    python benchmarks/bench_play_model.py --preset draw --positions 40 --worlds 200
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit

from dominoai.bots.pimc.likelihood import (NO_FIRST, T_KIND, T_LATER, T_SEAT, new_row_cache,
                                           tabled_likelihood)
from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.engine.encode import encode_into
from dominoai.engine.observe import O_HAND, O_UNSEEN
from dominoai.nets.forward import forward_into

_FULL = np.int64((1 << 28) - 1)


@njit(cache=True)
def _weigh(worlds, nd, tables, rv, cfg, ws, first):
    """Every world's play-model weight (no row cache), summed: the loop runs
    in the kernel, so no Python call is timed."""
    total = 0.0
    cache = new_row_cache(0)
    for w in range(worlds.shape[0]):
        total += tabled_likelihood(worlds[w], nd, tables, rv, cfg, ws, cache, None, first)
    return total


@njit(cache=True)
def _plain_rows(worlds, nd, meta, states, obs, rv, net, buf, x, h0, h1, out):
    """The plain forward pass of every row with more than one legal move of
    every world (hand filled in, the move's probability not taken): the
    per-row network cost without the first-layer tables. Returns the count."""
    count = 0
    for w in range(worlds.shape[0]):
        for d in range(nd):
            s = meta[d, T_SEAT]
            h = worlds[w, L.S_HAND + s] | meta[d, T_LATER]
            st = states[d]
            st[L.S_HAND + s] = h
            n = K.legal_moves(st, rv, buf)
            if n > 1 and meta[d, T_KIND] == 0:
                a = obs[d]
                a[O_HAND] = h
                a[O_UNSEEN] = _FULL & ~h & ~st[L.S_PLAYED]
                encode_into(a, x)
                forward_into(x, net[0], net[1], net[2], h0, h1, out)
                count += 1
    return count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--worlds", type=int, default=200)
    ap.add_argument("--preset", default="block")
    a = ap.parse_args(argv)
    if a.positions < 1 or a.worlds < 1:
        ap.error("--positions and --worlds must be at least 1")
    from dominoai import Match
    from dominoai.bots import make_bot
    from dominoai.bots.pimc import SearchSettings, new_play_tables, new_scratch, play_tables_into
    from dominoai.bots.pimc.likelihood import net_tables
    from dominoai.bots.worlds import Belief
    from dominoai.engine.encode import N_ACTIONS, OBS_SIZE
    from dominoai.nets.model import load_model

    model = load_model(f"{a.preset}-policy", preset=a.preset, kind="policy")
    net = model.packed(block=True)
    hard_cfg = SearchSettings.make(policy_weight=4.0)
    neural_cfg = SearchSettings.make(policy_weight=4.0, play_model=1, policy_net=net,
                                     policy_block=model.action)
    plain_cfg = SearchSettings.make(policy_weight=4.0, play_model=1, policy_net=net)
    models = {"hard": hard_cfg, "neural": neural_cfg}
    if model.action is not None:
        models["neural_noblock"] = plain_cfg
    bot = make_bot("hard")
    found, seed = [], 7
    while len(found) < a.positions:
        m = Match(a.preset, seed=seed)
        seed += 1
        h = m.new_hand()
        while not h.over and len(found) < a.positions:
            obs = h.observe(h.seat)
            if len(obs.legal_codes()) > 1 and h.events:
                found.append(obs)
            h.play(bot.act(obs))
    ws = new_scratch(1, 1)
    buf = np.zeros(128, np.int64)
    x, h0, h1, out = (np.zeros(OBS_SIZE, np.float32), np.zeros(512, np.float32),
                      np.zeros(512, np.float32), np.zeros(N_ACTIONS, np.float32))
    t = {**{k: 0.0 for k in models}, "tables": 0.0, "neural_plain": 0.0}
    rows = evaluated = plain_rows = 0
    warm = True
    for obs in [found[0]] + found:
        belief = Belief(obs)
        worlds, _ = belief.sample(a.worlds, seed=1)
        worlds = np.ascontiguousarray(worlds)
        evs = np.ascontiguousarray(obs.event_array, np.int64).reshape(-1, 4).copy()
        rv = obs.rules_vector
        meta, states, tobs = new_play_tables(len(evs))
        nd = play_tables_into(belief.base, evs, len(evs), rv, obs.seat, meta, states, tobs, ws.tmp)
        c0 = time.thread_time()
        first = net_tables(nd, tobs, neural_cfg, ws, True)
        c1 = time.thread_time()
        took = {}
        for name, cfg in models.items():
            c2 = time.thread_time()
            _weigh(worlds, nd, (meta, states, tobs), rv, cfg, ws, NO_FIRST if name == "hard" else first)
            took[name] = time.thread_time() - c2
        c3 = time.thread_time()
        k = _plain_rows(worlds, nd, meta, states, tobs, rv, net, buf, x, h0, h1, out)
        c4 = time.thread_time()
        if warm:
            warm = False
            continue
        t["tables"] += c1 - c0
        for name in models:
            t[name] += took[name]
        t["neural_plain"] += c4 - c3
        rows += nd
        evaluated += nd * len(worlds)
        plain_rows += k
    n = len(found)
    print(f"{n} {a.preset} positions, {a.worlds} worlds each: {rows / n:.1f} tabled rows per decision")
    print(f"table building (neural first layer): {t['tables'] / n * 1e3:.3f} ms per decision")
    for k in models:
        print(f"{k:>12}: {t[k] / evaluated * 1e6:.2f} us per row evaluated, "
              f"{t[k] / n * 1e3:.2f} ms per decision (no row cache)")
    print(f"neural_plain: {t['neural_plain'] / max(plain_rows, 1) * 1e6:.2f} us per forward pass "
          f"({plain_rows / n:.0f} per decision, plays with two or more moves)")
    print(f"ratio neural / hard per row: {t['neural'] / t['hard']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
