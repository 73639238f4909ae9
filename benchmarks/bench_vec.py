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
with the ratios and writes everything to ``--out`` as JSON. ``--rounds N``
also alternates short bursts of Block with ``easy``, OpenSpiel's game and
the yardstick, N rounds, and gives the ratios round by round: on a shared
machine those are the steadier figures.

Usage::

    python benchmarks/bench_vec.py --prototype PATH/TO/vec.py
    python benchmarks/bench_vec.py --seconds 5 --presets block draw all_fives
    python benchmarks/bench_vec.py --presets block --opponents easy --rounds 10 --prototype PATH/TO/vec.py
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
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def vector_env_runner(preset: str, opponents: str, num_envs: int, fast_moves: bool = True):
    """A function ``burst(seconds) -> rates`` stepping one compiled, warm
    :class:`~dominoai.learn.VectorEnv` with numpy's random masked pick."""
    from dominoai.learn import VectorEnv
    env = VectorEnv(preset, num_envs, opponents=opponents, seat=0, fast_moves=fast_moves)
    obs, mask = env.reset(1)
    rng = np.random.default_rng(0)
    for _ in range(3):  # compiled and warm
        obs, mask, *_ = env.step((rng.random(mask.shape, dtype=np.float32) * mask).argmax(1))

    def burst(seconds: float) -> dict:
        n = 0
        t0, c0 = time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < seconds:
            env.step((rng.random(mask.shape, dtype=np.float32) * mask).argmax(1))
            n += num_envs
        return _rates(n, t0, c0)
    return burst


def bench_vector_env(preset: str, opponents: str, num_envs: int, seconds: float,
                     fast_moves: bool = True) -> dict:
    return vector_env_runner(preset, opponents, num_envs, fast_moves)(seconds)


def _rates(n: int, t0: float, c0: float) -> dict:
    """Steps per wall-clock second and per CPU second of this process."""
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"steps": n, "wall": n / wall, "cpu": n / max(cpu, 1e-9)}


def openspiel_runner():
    """``burst(seconds) -> rates`` of OpenSpiel's ``python_block_dominoes``
    (random legal actions, chance outcomes sampled, no observation built),
    or None without ``open_spiel``."""
    try:
        import pyspiel
        from open_spiel.python import games  # noqa: F401  (registers the python games)
    except ImportError:
        return None
    game = pyspiel.load_game("python_block_dominoes")
    rnd = random.Random(0)

    def burst(seconds: float) -> dict:
        n = 0
        t0, c0 = time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < seconds:
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    outs, probs = zip(*s.chance_outcomes())
                    s.apply_action(rnd.choices(outs, probs)[0])
                else:
                    s.apply_action(rnd.choice(s.legal_actions()))
                    n += 1
        return _rates(n, t0, c0)
    return burst


def bench_openspiel(seconds: float) -> dict | None:
    burst = openspiel_runner()
    return None if burst is None else burst(seconds)


def bench_pettingzoo(seconds: float) -> dict | None:
    try:
        from dominoai.interop.pettingzoo import env as pz_env
    except ImportError:
        return None
    e = pz_env("block", players=2)
    rng = np.random.default_rng(0)
    e.reset(seed=10**6)  # compiled and warm before the clock starts
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    n = 0
    seed = 0
    t0, c0 = time.perf_counter(), time.process_time()
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
    return _rates(n, t0, c0)


def prototype_runner(path: Path, num_envs: int):
    """``burst(seconds) -> rates`` of the yardstick script at ``path`` (numpy
    picking the actions as for the env), compiled and warm."""
    # imported from a private copy, under a module name of its own: numba then
    # compiles and caches it there, apart from any cache beside the original
    tmp = Path(tempfile.mkdtemp(prefix="bench_vec_"))
    shutil.copy(path, tmp / "vec_yardstick.py")
    spec = importlib.util.spec_from_file_location("vec_yardstick", tmp / "vec_yardstick.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["vec_yardstick"] = mod
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

    def burst(seconds: float) -> dict:
        n = 0
        t0, c0 = time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < seconds:
            act = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)
            mod.step_all(st, act, obs, mask, rew, done, mod.A, mod.B, mod.PIPMASK)
            n += N
        return _rates(n, t0, c0)
    return burst


def bench_prototype(path: Path, num_envs: int, seconds: float) -> dict:
    return prototype_runner(path, num_envs)(seconds)


def alternate_rounds(num_envs: int, seconds: float, rounds: int, prototype: Path | None) -> dict:
    """``rounds`` rounds of short bursts, one after the other in each round:
    VectorEnv Block 2p with ``easy``, OpenSpiel's game and the yardstick (when
    given). Returns each one's steps per CPU second per round and the
    per-round ratios of the env to the others: a load that changes during
    the run then moves both sides of a ratio alike."""
    runners = {"vec_block_easy": vector_env_runner("block", "easy", num_envs)}
    os_burst = openspiel_runner()
    if os_burst is not None:
        runners["openspiel_block"] = os_burst
    if prototype is not None:
        runners["yardstick"] = prototype_runner(prototype, num_envs)
    per = {k: [] for k in runners}
    for _ in range(rounds):
        for k, burst in runners.items():
            per[k].append(burst(seconds)["cpu"])
    out = {"cpu": per}
    v = per["vec_block_easy"]
    for k in runners:
        if k != "vec_block_easy":
            out[f"vec_over_{k}"] = [a / b for a, b in zip(v, per[k])]
    return out


def profile_block(num_envs: int, reps: int = 200) -> dict:
    """Where a step of Block 2p against ``easy`` goes, in ns per game and
    step, each part timed alone over ``reps`` passes of the batch: numpy's
    random masked pick over the 113 action ids, the same pick over the same
    legal moves laid out as the yardstick's 56 ids (``2 * tile + end``), the
    fused path's observation and mask (``b2_outputs``), the general path's
    observation (``observe_into`` + ``encode_into``) and mask
    (``legal_moves`` into 113 booleans), one engine move (``legal_moves`` +
    a random pick + ``apply_move``, redealing finished hands), the whole
    ``step_all`` kernel with a numba pick (a few ns) instead of numpy's, and
    numpy's pick with ``step_all``."""
    from numba import njit

    from dominoai.engine import kernels as K
    from dominoai.engine import layout as L
    from dominoai.engine.encode import encode_into, mask_into
    from dominoai.engine.observe import O_SIZE, observe_into
    from dominoai.learn import VectorEnv
    from dominoai.learn import kernels as VK

    @njit(cache=True)
    def _obs(st, rv, obs, reps):
        a = np.zeros(O_SIZE, np.int64)
        for _ in range(reps):
            for g in range(st.shape[0]):
                observe_into(st[g], rv, 0, a)
                encode_into(a, obs[g])

    @njit(cache=True)
    def _mask(st, rv, mask, reps):
        buf = np.zeros(L.MAX_MOVES, np.int64)
        for _ in range(reps):
            for g in range(st.shape[0]):
                mask_into(st[g], rv, buf, mask[g])

    @njit(cache=True)
    def _fused_write(st, meta, obs, mask, active, reps):
        for _ in range(reps):
            VK.b2_outputs(st, meta, obs, mask, active, 0, st.shape[0], True)

    @njit(cache=True)
    def _move(st, rs, rv, reps):
        buf = np.zeros(L.MAX_MOVES, np.int64)
        ev = np.zeros((1, 4), np.int64)
        perm = np.zeros(28, np.int64)
        for _ in range(reps):
            for g in range(st.shape[0]):
                s = st[g]
                if s[L.S_CUR] < 0:
                    K.new_match(s, rv)
                    s[L.S_LOG] = 0
                    K.deal_perm(rs[g:g + 1], perm, 28)
                    K.start_hand(s, rv, perm, K.rng_below(rs[g:g + 1], 2))
                n = K.legal_moves(s, rv, buf)
                K.apply_move(s, rv, ev, buf[K.rng_below(rs[g:g + 1], n)])

    @njit(cache=True)
    def _numba_pick(mask, out, rs):
        for g in range(mask.shape[0]):
            n = 0
            for a in range(mask.shape[1]):
                n += mask[g, a]
            k = K.rng_below(rs, n)
            for a in range(mask.shape[1]):
                if mask[g, a]:
                    if k == 0:
                        out[g] = a
                        break
                    k -= 1

    env = VectorEnv("block", num_envs, opponents="easy")
    obs, mask = env.reset(1)
    rng = np.random.default_rng(0)
    out = {}

    def timed(name, f):
        f(1)
        t0 = time.process_time()
        f(reps)
        out[name] = (time.process_time() - t0) / reps / num_envs * 1e9

    def pick(r):
        for _ in range(r):
            (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)
    m56 = np.ascontiguousarray(mask[:, :112].reshape(num_envs, 28, 4)[:, :, :2].reshape(num_envs, 56))

    def pick56(r):
        for _ in range(r):
            (rng.random(m56.shape, dtype=np.float32) * m56).argmax(1)
    timed("numpy pick, 113 ids", pick)
    timed("numpy pick, the same moves as 56 ids", pick56)
    timed("observation + mask, fused", lambda r: _fused_write(env._st, env._meta, env.obs.copy(),
                                                               env.mask.copy(), env._all, r))
    timed("observation, general", lambda r: _obs(env._st, env._rv, env.obs.copy(), r))
    timed("mask, general", lambda r: _mask(env._st, env._rv, env.mask.copy(), r))
    st, rs = env._st.copy(), env._rs.copy()
    timed("one engine move", lambda r: _move(st, rs, env._rv, r))
    act = np.zeros(num_envs, np.int64)
    prs = np.ones(1, np.uint64)

    def kernel(r):
        for _ in range(r):
            _numba_pick(env.mask, act, prs)
            VK.step_all(env._games, env._out, env._scratch, act, env._all, 0.0)
    timed("step_all with a numba pick", kernel)

    def step(r):
        for _ in range(r):
            a = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)
            VK.step_all(env._games, env._out, env._scratch, a, env._all, 0.0)
    timed("numpy pick + step_all", step)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", nargs="+", default=["block", "draw", "all_fives"])
    ap.add_argument("--opponents", nargs="+", default=["easy", "hard"])
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=3.0, help="timed seconds per measurement")
    ap.add_argument("--prototype", type=Path, default=None, help="the yardstick script (optional)")
    ap.add_argument("--core", type=int, default=None, help="the core to pin to (default: the least busy)")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/vec.json"))
    ap.add_argument("--profile", action="store_true", help="also time the parts of a Block step")
    ap.add_argument("--rounds", type=int, default=0, metavar="N",
                    help="also alternate N rounds of short bursts (--round-seconds each) of Block with easy, "
                         "OpenSpiel's game and the yardstick, and report the per-round ratios")
    ap.add_argument("--round-seconds", type=float, default=1.0, help="seconds per burst of --rounds")
    ap.add_argument("--ab", type=int, default=0, metavar="N",
                    help="also alternate N bursts of Block with easy on the fused path and on the "
                         "general one (fast_moves=False), and report the range of their ratios")
    args = ap.parse_args(argv)
    if args.num_envs < 1 or args.seconds <= 0 or args.round_seconds <= 0 or args.ab < 0 or args.rounds < 0:
        ap.error("--num-envs, --seconds and --round-seconds must be positive, --ab and --rounds at least 0")
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
    def cpu(k):
        return res[k]["cpu"] if res.get(k) else None
    base_os, base_pz, base_y = cpu("openspiel_block"), cpu("pettingzoo_block"), cpu("yardstick")

    def ratio(x, b):
        return f"{x / b:,.1f}x" if b else "-"
    for k, v in res.items():
        if v is None:
            continue
        rows.append([k, f"{v['wall']:,.0f}", f"{v['cpu']:,.0f}", ratio(v["cpu"], base_os),
                     ratio(v["cpu"], base_pz), f"{v['cpu'] / base_y:.2f}x" if base_y else "-"])
    print(f"agent steps/s on core {core}, {args.num_envs} envs, {args.seconds:g} s each")
    print("ratios are of steps per CPU second (the process's own CPU time), steadier on a shared core")
    print_table(["env", "steps/s wall", "steps/CPU s", "vs openspiel", "vs pettingzoo", "vs yardstick"], rows)
    if args.profile:
        prof = out["profile_block_easy_ns"] = profile_block(args.num_envs)
        print("Block 2p vs easy, ns per game and step, each part alone:")
        print_table(["part", "ns"], [[k, f"{v:,.0f}"] for k, v in prof.items()])
    if args.rounds:
        alt = out["rounds_block_easy"] = alternate_rounds(args.num_envs, args.round_seconds, args.rounds,
                                                          args.prototype)
        print(f"Block 2p vs easy, {args.rounds} rounds of {args.round_seconds:g} s bursts, steps per CPU s:")
        body = []
        for k, xs in alt["cpu"].items():
            r = alt.get(f"vec_over_{k}", [])
            body.append([k, f"{min(xs):,.0f}", f"{statistics.median(xs):,.0f}", f"{max(xs):,.0f}",
                         f"{min(r):.2f}x / {statistics.median(r):.2f}x / {max(r):.2f}x" if r else "-"])
        print_table(["loop", "min", "median", "max", "env over it: min / median / max"], body)
    if args.ab:
        pairs = []
        for _ in range(args.ab):
            f = bench_vector_env("block", "easy", args.num_envs, args.seconds)["cpu"]
            g = bench_vector_env("block", "easy", args.num_envs, args.seconds, fast_moves=False)["cpu"]
            pairs.append((f, g))
        out["ab_block_easy_fused_general"] = pairs
        r = [f / g for f, g in pairs]
        print(f"Block 2p vs easy, fused / general path, steps per CPU s, {args.ab} alternating pairs: "
              f"{min(r):.2f}x to {max(r):.2f}x (fused {min(f for f, _ in pairs):,.0f} to "
              f"{max(f for f, _ in pairs):,.0f}; general {min(g for _, g in pairs):,.0f} to "
              f"{max(g for _, g in pairs):,.0f})")
    write_json(args.out, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
