#!/usr/bin/env python
"""Agent steps per second of the batched environment, against baselines, in one run.

On one core (pinned), for each preset and opponent level, it measures
:class:`dominoai.learn.VectorEnv` (``--num-envs`` games, the learner in
seat 0) with random masked actions picked by numpy as a user's loop would
(``(rng.random(mask.shape) * mask).argmax(1)``), and, in the same run:

- OpenSpiel's ``python_block_dominoes`` game object (random legal actions,
  chance outcomes sampled, no observation built): player steps/s, when
  ``open_spiel`` is installed;
- the PettingZoo environment (:mod:`dominoai.interop.pettingzoo`, Block,
  random masked agents): agent steps/s;
- a yardstick given by path (``--prototype FILE``): a standalone batched
  Block 2p script exposing ``reset_all``/``step_all`` and its tile tables
  ``A``, ``B``, ``PIPMASK`` (the learner against a random opponent, numpy
  picking the actions the same way). Nothing of it is part of dominoai.

Goals (on one core; docs/learning.md): Block 2p with ``easy`` at least half
the yardstick's steps/s and 50 times OpenSpiel's; Draw and All Fives at
least 300,000; Block with ``hard`` at least 200,000. It prints a table
with the ratios and writes everything to ``--out`` as JSON.

Usage::

    python benchmarks/bench_vec.py --prototype PATH/TO/vec.py
    python benchmarks/bench_vec.py --seconds 5 --presets block draw all_fives
"""
from __future__ import annotations

import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))  # benchmarks/_common.py
from _common import args_record, pin_one_core, print_table, write_json  # noqa: E402

import argparse
import importlib.util
import platform
import random
import time
from pathlib import Path

import numpy as np


def bench_vector_env(preset: str, opponents: str, num_envs: int, seconds: float) -> float:
    from dominoai.learn import VectorEnv
    env = VectorEnv(preset, num_envs, opponents=opponents, seat=0)
    obs, mask = env.reset(1)
    rng = np.random.default_rng(0)
    for _ in range(3):  # compiled and warm
        obs, mask, *_ = env.step((rng.random(mask.shape, dtype=np.float32) * mask).argmax(1))
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, mask, *_ = env.step((rng.random(mask.shape, dtype=np.float32) * mask).argmax(1))
        n += num_envs
    return n / (time.perf_counter() - t0)


def bench_openspiel(seconds: float) -> float | None:
    try:
        import pyspiel
        from open_spiel.python import games  # noqa: F401  (registers the python games)
    except ImportError:
        return None
    game = pyspiel.load_game("python_block_dominoes")
    rnd = random.Random(0)
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outs, probs = zip(*s.chance_outcomes())
                s.apply_action(rnd.choices(outs, probs)[0])
            else:
                s.apply_action(rnd.choice(s.legal_actions()))
                n += 1
    return n / (time.perf_counter() - t0)


def bench_pettingzoo(seconds: float) -> float | None:
    try:
        from dominoai.interop.pettingzoo import env as pz_env
    except ImportError:
        return None
    e = pz_env("block", players=2)
    rng = np.random.default_rng(0)
    n = 0
    seed = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        e.reset(seed=seed)
        seed += 1
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
    return n / (time.perf_counter() - t0)


def bench_prototype(path: Path, num_envs: int, seconds: float) -> float:
    spec = importlib.util.spec_from_file_location("vec_yardstick", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    N = num_envs
    st = np.zeros((N, 8), np.int64)
    obs = np.zeros((N, 72), np.float32)
    mask = np.zeros((N, 56), np.bool_)
    rew = np.zeros(N, np.float32)
    done = np.zeros(N, np.bool_)
    mod.reset_all(st, obs, mask, rew, done, 1, mod.A, mod.B, mod.PIPMASK)
    rng = np.random.default_rng(0)
    for _ in range(3):
        mod.step_all(st, (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1),
                     obs, mask, rew, done, mod.A, mod.B, mod.PIPMASK)
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        act = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)
        mod.step_all(st, act, obs, mask, rew, done, mod.A, mod.B, mod.PIPMASK)
        n += N
    return n / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", nargs="+", default=["block", "draw", "all_fives"])
    ap.add_argument("--opponents", nargs="+", default=["easy", "hard"])
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=3.0, help="timed seconds per measurement")
    ap.add_argument("--prototype", type=Path, default=None, help="the yardstick script (optional)")
    ap.add_argument("--core", type=int, default=None, help="the core to pin to (default: the least busy)")
    ap.add_argument("--out", type=Path, default=Path("results/bench_vec.json"))
    args = ap.parse_args(argv)
    if args.num_envs < 1 or args.seconds <= 0:
        ap.error("--num-envs and --seconds must be positive")
    if args.prototype is not None and not args.prototype.is_file():
        ap.error(f"--prototype {args.prototype}: no such file")
    core = pin_one_core(args.core)
    rows, out = [], {"args": args_record(args), "core": core, "python": platform.python_version(),
                     "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "results": {}}
    res = out["results"]
    if args.prototype is not None:
        res["yardstick"] = bench_prototype(args.prototype, args.num_envs, args.seconds)
    res["openspiel_block"] = bench_openspiel(args.seconds)
    res["pettingzoo_block"] = bench_pettingzoo(args.seconds)
    for preset in args.presets:
        for opp in args.opponents:
            res[f"vec_{preset}_{opp}"] = bench_vector_env(preset, opp, args.num_envs, args.seconds)
    base_os, base_pz, base_y = res["openspiel_block"], res["pettingzoo_block"], res.get("yardstick")

    def ratio(x, b):
        return f"{x / b:,.1f}x" if b else "-"
    for k, v in res.items():
        if v is None:
            continue
        rows.append([k, f"{v:,.0f}", ratio(v, base_os), ratio(v, base_pz),
                     f"{v / base_y:.2f}x" if base_y else "-"])
    print(f"agent steps/s on core {core}, {args.num_envs} envs, {args.seconds:g} s each")
    print_table(["env", "steps/s", "vs openspiel", "vs pettingzoo", "vs yardstick"], rows)
    write_json(args.out, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
