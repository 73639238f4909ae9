#!/usr/bin/env python
"""Time per decision of the ``insane`` bot versus ``worlds``, on one core.

For each preset (``--presets``, default Block 2p, Draw 2p, All Fives 2p) it
collects ``--positions`` decisions from games between two ``medium`` bots
(seeded; only decisions with at least two legal moves, where the bot really
searches), then for each number of worlds (``--worlds``, default 50 100 200
400 800) times ``InsaneBot.act(observation)`` on every position: wall clock,
sampler, inference and rollouts included (the Belief is built per decision,
as in play). One warm-up pass first, so numba compilation (or cache loading)
is not timed. The process pins itself to one core (the least busy, or
``--core``).

Target: median at most 1 ms per decision at 200 worlds
with one rollout, checked (``met``/``MISSED``) for the default random rollout
policy; ``--policy medium`` or ``hard`` are stronger and slower (reported
without a target).

It prints a table (median, 95th percentile, mean per decision in ms; worlds
and proposals per decision; cpu share = process CPU time / wall time, well
below 1 means another process shared the core) and writes everything to
``--out`` as JSON (default ``benchmarks/results/insane.json``). It is a
script, not a test.

``--defaults`` times insane at its per-preset defaults instead (Draw,
Block, All Fives, Kozel by default: ``TUNED_DEFAULTS``, exact endgame and
play model included), one bot per preset, reporting the median and the mean
ms per decision (a few decisions that solve or roll out long hands weigh in
the mean: Draw's mean is about three times its median). With ``--compare
SRC`` it times two versions of the package in one run: this one and the
source tree ``SRC`` (a checkout, its ``dominoai`` package imported from
there), each in a worker process of its own pinned to the same core, in
``--rounds`` interleaved rounds (the order alternating), on the same
positions; it reports each version's median and mean and their ratios
(this / ``SRC``), on the wall clock and in CPU time (the thread's: on a
shared machine the steadier of the two), and checks that both chose the
same moves.

``--budget S`` adds a check of the time budget on the wall clock (the tests
check its logic with a fake clock only): ``insane:time_budget=S`` with
unlimited worlds on the same positions, reporting the median, 95th
percentile and maximum seconds per decision against ``S`` and the worlds
searched per decision.

Usage::

    python benchmarks/bench_insane.py --budget 0.05
    python benchmarks/bench_insane.py --presets block --worlds 200 --positions 500
    python benchmarks/bench_insane.py --policy medium --rollouts 2
    python benchmarks/bench_insane.py --defaults --positions 200
    python benchmarks/bench_insane.py --defaults --compare ../dominoai-old --rounds 5
"""

from __future__ import annotations

import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))  # benchmarks/_common.py
from _common import args_record, pin_one_core, write_json  # noqa: E402

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "insane.json"
TARGET_MS = 1.0          # median per decision at TARGET_WORLDS worlds, one rollout
TARGET_WORLDS = 200






def positions(preset: str, n: int, seed: int) -> list:
    """``n`` observations at decisions with two or more legal moves, from
    medium-vs-medium games (first hands of fresh matches)."""
    from dominoai.tournament import decision_positions

    rng = np.random.default_rng(seed)
    out = [obs for obs, _ in decision_positions(preset, n, "medium", rng)]
    idx = rng.choice(len(out), n, replace=False)
    return [out[i] for i in sorted(idx)]


def bench(obs_list: list, worlds: int, rollouts: int, policy: str, seed: int) -> dict:
    from dominoai.bots.pimc import InsaneBot

    # every search setting explicit (exact=0 too): the per-preset defaults
    # (TUNED_DEFAULTS: Draw, Block, All Fives, Kozel) would otherwise change
    # what is timed from preset to preset; the play model's temperature is
    # the preset's default
    bot = InsaneBot(seed=seed, worlds=worlds, rollouts=rollouts, rollout_policy=policy, exact=0)
    for obs in obs_list[: min(20, len(obs_list))]:
        bot.act(obs)  # warm up (compilation, caches)
    times, nworlds, props = [], [], []
    c0 = time.process_time()
    w0 = time.perf_counter()
    for obs in obs_list:
        t = time.perf_counter()
        bot.act(obs)
        times.append(time.perf_counter() - t)
        nworlds.append(bot.last.worlds)
        props.append(bot.last.proposals)
    wall = time.perf_counter() - w0
    cpu = time.process_time() - c0
    ms = np.array(times) * 1e3
    return {
        "worlds": worlds,
        "median_ms": float(np.median(ms)),
        "p95_ms": float(np.percentile(ms, 95)),
        "mean_ms": float(ms.mean()),
        "max_ms": float(ms.max()),
        "worlds_per_decision": float(np.mean(nworlds)),
        "proposals_per_decision": float(np.mean(props)),
        "cpu_share": cpu / wall if wall > 0 else None,
        "decisions": len(obs_list),
    }


def bench_budget(obs_list: list, budget: float, seed: int) -> dict:
    """Wall-clock seconds per decision of ``insane:time_budget=budget`` with
    (practically) unlimited worlds: the budget is honoured when the maximum
    stays near it (the clock is read between chunks of worlds only)."""
    from dominoai.bots.pimc import InsaneBot

    bot = InsaneBot(seed=seed, worlds=10**7, time_budget=budget, rollouts=1, rollout_policy="random",
                    exact=0)
    for obs in obs_list[: min(5, len(obs_list))]:
        bot.act(obs)  # warm up
    secs, worlds = [], []
    for obs in obs_list:
        t = time.perf_counter()
        bot.act(obs)
        secs.append(time.perf_counter() - t)
        worlds.append(bot.last.worlds)
    s = np.array(secs)
    return {"budget_s": budget, "median_s": float(np.median(s)),
            "p95_s": float(np.percentile(s, 95)), "max_s": float(s.max()),
            "worlds_per_decision": float(np.mean(worlds)), "decisions": len(obs_list)}


DEFAULT_PRESETS = ("draw", "block", "all_fives", "kozel")


def time_defaults(obs_list: list, seed: int) -> tuple:
    """ms per decision of insane at its preset's defaults on ``obs_list``
    (one bot, seed ``seed``, a warm-up pass over the first 20 first), on
    the wall clock and in the thread's CPU time, and the moves it chose."""
    from dominoai.bots.pimc import InsaneBot

    bot = InsaneBot(seed=seed)
    for obs in obs_list[: min(20, len(obs_list))]:
        bot.act(obs)
    bot = InsaneBot(seed=seed)
    times, cpu, moves = [], [], []
    for obs in obs_list:
        t = time.perf_counter()
        c = time.thread_time()
        mv = bot.act(obs)
        cpu.append((time.thread_time() - c) * 1e3)
        times.append((time.perf_counter() - t) * 1e3)
        moves.append(str(mv))
    return times, cpu, moves


def worker() -> int:
    """The ``--worker`` loop of ``--compare``: read one JSON request per line
    (``preset``, ``positions``, ``seed``), answer with the ms per decision
    (wall and CPU), the moves and the process CPU seconds it took."""
    cache = {}
    for line in sys.stdin:
        req = json.loads(line)
        key = (req["preset"], req["positions"], req["seed"])
        if key not in cache:
            cache[key] = positions(*key)
        c0 = time.process_time()
        times, cpu_ms, moves = time_defaults(cache[key], req["seed"])
        print(json.dumps({"ms": times, "cpu_ms": cpu_ms, "moves": moves,
                          "cpu": time.process_time() - c0}), flush=True)
    return 0


def _summary(ms: list) -> dict:
    a = np.array(ms)
    return {"median_ms": float(np.median(a)), "mean_ms": float(a.mean()),
            "p95_ms": float(np.percentile(a, 95)), "decisions": len(a)}


def bench_defaults(args, presets: list, core) -> dict:
    """``--defaults``: this version alone, or against ``--compare``."""
    srcs = {"this": str(Path(__file__).resolve().parents[1])}
    if args.compare is not None:
        srcs["compare"] = str(args.compare.resolve())
    workers = {}
    for name, src in srcs.items():
        env = dict(os.environ, PYTHONPATH=src)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker"]
        if core is not None:
            cmd = ["taskset", "-c", str(core)] + cmd
        workers[name] = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True)
    ms = {(n, p): [] for n in srcs for p in presets}
    cms = {(n, p): [] for n in srcs for p in presets}
    cpu = {n: 0.0 for n in srcs}
    wall = {n: 0.0 for n in srcs}
    moves = {}
    try:
        for r in range(args.rounds):
            for p in presets:
                order = list(srcs) if r % 2 == 0 else list(srcs)[::-1]
                for n in order:
                    w = workers[n]
                    t = time.perf_counter()
                    w.stdin.write(json.dumps({"preset": p, "positions": args.positions,
                                              "seed": args.seed}) + "\n")
                    w.stdin.flush()
                    ans = json.loads(w.stdout.readline())
                    if r > 0 or args.rounds == 1:   # round 0 also compiles or loads the caches
                        ms[(n, p)] += ans["ms"]
                        cms[(n, p)] += ans["cpu_ms"]
                        cpu[n] += ans["cpu"]
                        wall[n] += time.perf_counter() - t
                    moves.setdefault(p, {})[n] = ans["moves"]
                    print(f"round {r} {p:10s} {n:8s} median {np.median(ans['ms']):7.3f} ms  "
                          f"mean {np.mean(ans['ms']):7.3f} ms  (CPU: median "
                          f"{np.median(ans['cpu_ms']):7.3f}, mean {np.mean(ans['cpu_ms']):7.3f})",
                          flush=True)
    finally:
        for w in workers.values():
            w.stdin.close()
            w.wait()
    rows = []
    for clock, table in (("wall", ms), ("cpu", cms)):
        print(f"\ninsane at its per-preset defaults, ms per decision on the {clock} clock "
              f"({args.positions} decisions per preset x {max(args.rounds - 1, 1)} timed rounds)")
        print(f"{'preset':10s} {'version':8s} {'median':>8s} {'mean':>8s} {'p95':>8s}"
              + ("  ratio median  ratio mean  same moves" if "compare" in srcs else ""))
        for p in presets:
            for n in srcs:
                r = {"preset": p, "version": n, "clock": clock, "source": srcs[n],
                     **_summary(table[(n, p)])}
                line = (f"{p:10s} {n:8s} {r['median_ms']:8.3f} {r['mean_ms']:8.3f} "
                        f"{r['p95_ms']:8.3f}")
                if n == "this" and "compare" in srcs:
                    o = _summary(table[("compare", p)])
                    r["ratio_median"] = r["median_ms"] / o["median_ms"]
                    r["ratio_mean"] = r["mean_ms"] / o["mean_ms"]
                    r["same_moves"] = moves[p]["this"] == moves[p]["compare"]
                    line += (f"  {r['ratio_median']:12.3f}  {r['ratio_mean']:10.3f}  "
                             f"{'yes' if r['same_moves'] else 'NO'}")
                rows.append(r)
                print(line)
    share = {n: cpu[n] / wall[n] if wall[n] > 0 else None for n in srcs}
    print("cpu share (process CPU / wall):", ", ".join(f"{n} {v:.2f}" for n, v in share.items()
                                                       if v is not None))
    return {"defaults": rows, "cpu_share": share}


def main(argv=None) -> int:
    if argv is None and sys.argv[1:] == ["--worker"]:
        return worker()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--presets", nargs="+", default=None,
                    help="default: block draw all_fives; with --defaults: draw block all_fives "
                         "kozel")
    ap.add_argument("--worlds", nargs="+", type=int, default=[50, 100, 200, 400, 800])
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--rollouts", type=int, default=1)
    ap.add_argument("--policy", default="random")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--core", type=int, default=None)
    ap.add_argument("--budget", type=float, default=0.0,
                    help="also time insane:time_budget=BUDGET (seconds) on the wall clock")
    ap.add_argument("--defaults", action="store_true",
                    help="time insane at its per-preset defaults (median and mean)")
    ap.add_argument("--compare", type=Path, default=None, metavar="SRC",
                    help="with --defaults: also time the package of the source tree SRC, "
                         "interleaved, and report the ratios")
    ap.add_argument("--rounds", type=int, default=3,
                    help="with --defaults: rounds over the presets (the first is not timed "
                         "when there are more)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    if args.presets is None:
        args.presets = list(DEFAULT_PRESETS) if args.defaults else ["block", "draw", "all_fives"]
    presets = [p for x in args.presets for p in x.split(",") if p]
    if args.compare is not None and not (args.compare / "dominoai" / "__init__.py").is_file():
        print(f"bench_insane: --compare {args.compare}: no dominoai package there",
              file=sys.stderr)
        return 2

    core = pin_one_core(args.core)
    import numba

    import dominoai

    if args.defaults:
        doc = bench_defaults(args, presets, core)
        try:
            load = os.getloadavg()
        except OSError:
            load = None
        write_json(args.out, {"date": _dt.datetime.now().isoformat(timespec="seconds"),
                              "pinned_core": core, "load_average": load,
                              "cpu": platform.processor() or platform.machine(),
                              "python": sys.version.split()[0], "numba": numba.__version__,
                              "args": args_record(args), **doc})
        return 0

    print(f"insane: time per decision, one core ({core}), {args.rollouts} rollout(s), "
          f"policy {args.policy}, {args.positions} decisions per preset")
    print(f"{'preset':10s} {'worlds':>6s} {'median ms':>10s} {'p95 ms':>8s} {'mean ms':>8s} "
          f"{'proposals':>9s} {'cpu':>5s}  target")
    results = []
    budgets = []
    for preset in presets:
        obs_list = positions(preset, args.positions, args.seed)
        if args.budget > 0:
            b = bench_budget(obs_list[: min(50, len(obs_list))], args.budget, args.seed)
            b["preset"] = preset
            budgets.append(b)
            print(f"{preset:10s} time_budget {args.budget:.3f} s: median {b['median_s']:.3f} s, "
                  f"p95 {b['p95_s']:.3f} s, max {b['max_s']:.3f} s, "
                  f"{b['worlds_per_decision']:.0f} worlds per decision", flush=True)
        for w in args.worlds:
            r = bench(obs_list, w, args.rollouts, args.policy, args.seed)
            r["preset"] = preset
            met = ""
            if w == TARGET_WORLDS and args.rollouts == 1 and args.policy == "random":
                r["target_ms"] = TARGET_MS
                r["target_met"] = r["median_ms"] <= TARGET_MS
                met = "met" if r["target_met"] else "MISSED"
            results.append(r)
            warn = "  (shared core?)" if r["cpu_share"] is not None and r["cpu_share"] < 0.9 else ""
            print(f"{preset:10s} {w:6d} {r['median_ms']:10.3f} {r['p95_ms']:8.3f} {r['mean_ms']:8.3f} "
                  f"{r['proposals_per_decision']:9.1f} {r['cpu_share']:5.2f}  {met}{warn}", flush=True)
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    out = {
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "pinned_core": core,
        "cpu": platform.processor() or platform.machine(),
        "load_average": load,
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "numba": numba.__version__,
        "dominoai": getattr(dominoai, "__version__", None),
        "args": args_record(args),
        "target": {"worlds": TARGET_WORLDS, "median_ms": TARGET_MS},
        "results": results,
        "budget": budgets,
    }
    write_json(args.out, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
