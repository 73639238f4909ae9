#!/usr/bin/env python
"""A/B speed of two source trees of dominoai, on one machine, in one run.

It starts one worker process per tree (this script with ``--worker``, its
``PYTHONPATH`` the tree, so ``import dominoai`` loads that tree's code and
its numba cache), each pinned to the same core as the driver (the least busy
one, or ``--core``). Each worker builds every workload once and runs it
until it is compiled and warm; then the driver asks the two workers in turn
to time a burst of each workload, ``--rounds`` rounds, the order of the two
alternating from round to round (before first in even rounds, after first
in odd ones). A worker answers with the work done and its own
``time.process_time()`` for the burst, so its rate is work per CPU second,
and a load that changes during the run moves both sides of a round's ratio
alike.

Workloads (``--workloads``, default all; Block for two players unless a
``--env-preset`` or ``--insane-preset`` says otherwise):

==============  ============================================================
``simulate``    the loop of ``dominoai simulate --variant block``:
                ``dominoai.simulate.run_simulation`` (or, in a tree without
                it, ``engine.fast.simulate_lanes`` / ``simulate_fast``) with a
                fixed hand count and seed per burst; unit: hands.
``env_step``    ``dominoai.learn.VectorEnv(--env-preset, --num-envs,
                opponents="easy", seat=0, players=2).step`` with numpy's random masked
                pick (``(rng.random(mask.shape) * mask).argmax(1)``), a fixed
                number of steps per burst; unit: agent steps.
``playout``     Block's random playout as the search's rollouts call it:
                ``engine.fast.playout_on`` (or ``playout_fast``) on a copy of
                one dealt state, again and again from one generator, in a
                loop compiled in the worker; unit: playouts.
``insane``      insane at its per-preset defaults (``InsaneBot(seed=2024)``)
                deciding 150 fixed positions of ``--insane-preset`` in
                turn (``bench_insane.positions``), the same sequence in
                both trees; unit: decisions.
==============  ============================================================

Every burst of a workload does the same work in both trees: the same seeds,
and the golden tests keep the same moves. Its size is fixed for the whole
run: ``--size NAME=N``, or else measured on the before tree's warm-up so that
a burst takes about ``--seconds`` of CPU.

For each workload it prints every round's rates and ratio, then the median
of the per-round ratios after / before of the rates (above 1: after is
faster) with its quartiles and extremes, checked against the goal: a median
of at least 0.95 (``met`` / ``MISSED``). The load average at the start and at
the end and each side's cpu share (CPU / wall time of its bursts: well below
1 means another process shared the core) go with them. JSON: ``--out``
(default ``benchmarks/results/ab.json``). It is a script, not a test.

Usage::

    python benchmarks/bench_ab.py --before ../dominoai-old --rounds 15
    python benchmarks/bench_ab.py --before OLD --after NEW --workloads playout --rounds 30
    python benchmarks/bench_ab.py --before OLD --rounds 2 --seconds 0.05     # a quick check
"""
from __future__ import annotations

import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))  # benchmarks/_common.py
from _common import args_record, pin_one_core, print_table, write_json  # noqa: E402

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
DEFAULT_OUT = HERE / "results" / "ab.json"
WORKLOADS = ("simulate", "env_step", "playout", "insane")
UNITS = {"simulate": "hands", "env_step": "agent steps", "playout": "playouts", "insane": "decisions"}
#: the size of the first warm-up burst, from which the run's size is scaled
PROBE = {"simulate": 80_000, "env_step": 20, "playout": 20_000, "insane": 50}
#: the goal: after keeps at least this share of before's rate (median of the rounds)
GOAL_RATIO = 0.95


# ---------------------------------------------------------------- the worker's workloads
def simulate_workload(seed: int = 3):
    """``(burst, what)``: ``burst(n)`` plays ``n`` random first hands of Block
    for two with the loop of ``dominoai simulate`` and returns ``n``."""
    from dominoai import get_rules

    rules = get_rules("block")
    try:
        from dominoai.simulate import run_simulation
    except ImportError:
        run_simulation = None
    if run_simulation is not None:
        def burst(n: int) -> int:
            return run_simulation(rules, n, seed)["hands"]
        return burst, "dominoai.simulate.run_simulation"

    from dominoai.engine import fast as F

    rv = rules.vector()
    stats = np.zeros(16, np.int64)
    if hasattr(F, "simulate_lanes"):
        def burst(n: int) -> int:
            F.simulate_lanes(rv, np.array([seed], np.uint64), np.array([n], np.int64), stats)
            return n
        return burst, "dominoai.engine.fast.simulate_lanes"

    def burst(n: int) -> int:
        F.simulate_fast(rv, seed, n, stats)
        return n
    return burst, "dominoai.engine.fast.simulate_fast"


def env_step_workload(num_envs: int, preset: str = "block"):
    """``(burst, what)``: ``burst(n)`` takes ``n`` steps of a
    :class:`~dominoai.learn.VectorEnv` of ``preset`` for two against
    ``easy`` (the learner in seat 0, numpy's random masked pick) and
    returns the agent steps taken."""
    from dominoai.learn import VectorEnv

    env = VectorEnv(preset, num_envs, opponents="easy", seat=0, players=2)
    state = {"mask": env.reset(1)[1]}
    rng = np.random.default_rng(0)

    def burst(n: int) -> int:
        mask = state["mask"]
        for _ in range(n):
            _, mask, *_ = env.step((rng.random(mask.shape, dtype=np.float32) * mask).argmax(1))
        state["mask"] = mask
        return n * num_envs
    return burst, "dominoai.learn.VectorEnv.step"


def playout_workload(seed: int = 11):
    """``(burst, what)``: ``burst(n)`` plays ``n`` random playouts of one
    dealt Block hand for two, each from a fresh copy of the dealt state,
    all drawing from one generator state (the search's rollouts, without
    the world sampling), and returns ``n``."""
    from numba import njit

    from dominoai import Match
    from dominoai.engine import fast as F
    from dominoai.engine import layout as L

    m = Match("block", seed=seed)
    m.new_hand()
    st0 = m.state_copy()
    rv = m.rules_vector
    ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
    rs = np.array([seed], np.uint64)
    if hasattr(F, "playout_on"):
        play, what = F.playout_on, "dominoai.engine.fast.playout_on"
        path = np.int64(F.playout_path(rv))
    else:
        fast, what = F.playout_fast, "dominoai.engine.fast.playout_fast"
        path = np.int64(0)

        @njit
        def play(st, rv, rs, ev, path):
            return fast(st, rv, rs, ev)

    @njit
    def playouts(st0, rv, rs, ev, path, n):
        st = np.empty_like(st0)
        moves = 0
        for _ in range(n):
            st[:] = st0
            moves += play(st, rv, rs, ev, path)
        return moves

    def burst(n: int) -> int:
        playouts(st0, rv, rs, ev, path, n)
        return n
    return burst, what


def insane_workload(preset: str, seed: int = 2024, n_positions: int = 150):
    """``(burst, what)``: ``burst(n)`` has insane at its preset's defaults
    decide the next ``n`` of ``n_positions`` fixed positions of ``preset``
    (``bench_insane.positions``: medium-vs-medium first hands, decisions
    with two or more legal moves), going round them, and returns ``n``."""
    from bench_insane import positions

    from dominoai.bots.pimc import InsaneBot

    obs = positions(preset, n_positions, seed)
    bot = InsaneBot(seed=seed)
    at = {"i": 0}

    def burst(n: int) -> int:
        for _ in range(n):
            bot.act(obs[at["i"] % len(obs)])
            at["i"] += 1
        return n
    return burst, "dominoai.bots.pimc.InsaneBot.act"


def worker() -> int:
    """The ``--worker`` loop: read one JSON request per line and answer each
    with one JSON line. ``{"build": [names], "num_envs": N}`` builds the
    workloads and answers what each one calls and where ``dominoai`` was
    imported from; ``{"burst": name, "n": N}`` times one burst and answers
    ``work``, ``cpu`` (this process's CPU seconds) and ``wall``."""
    bursts = {}
    for line in sys.stdin:
        req = json.loads(line)
        if "build" in req:
            import dominoai

            what = {}
            for name in req["build"]:
                if name == "simulate":
                    bursts[name], what[name] = simulate_workload()
                elif name == "env_step":
                    bursts[name], what[name] = env_step_workload(req["num_envs"], req["env_preset"])
                elif name == "insane":
                    bursts[name], what[name] = insane_workload(req["insane_preset"])
                else:
                    bursts[name], what[name] = playout_workload()
            print(json.dumps({"what": what, "dominoai": str(Path(dominoai.__file__).parent.parent)}),
                  flush=True)
            continue
        c0, w0 = time.process_time(), time.perf_counter()
        work = bursts[req["burst"]](req["n"])
        print(json.dumps({"work": work, "cpu": time.process_time() - c0,
                          "wall": time.perf_counter() - w0}), flush=True)
    return 0


# ---------------------------------------------------------------- the driver
class Worker:
    """A worker process for one source tree, talking JSON lines."""

    def __init__(self, tree: Path):
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"],
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(self, req: dict) -> None:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"bench_ab: a worker stopped (exit code {self.proc.wait()})")
        return json.loads(line)

    def ask(self, req: dict) -> dict:
        self.send(req)
        return self.receive()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def is_tree(path: Path) -> bool:
    """True when ``path`` holds a ``dominoai`` package."""
    return (path / "dominoai" / "__init__.py").is_file()


def parse_sizes(items: list[str]) -> dict:
    """``["playout=2000000", ...]`` as ``{"playout": 2000000}``."""
    out = {}
    for item in items:
        name, _, n = item.partition("=")
        if name not in WORKLOADS or not n.isdigit() or int(n) < 1:
            raise SystemExit(f"bench_ab: --size {item}: expected NAME=N with NAME one of {WORKLOADS}")
        out[name] = int(n)
    return out


def burst_size(probe: int, cpu: float, seconds: float) -> int:
    """A size for bursts of about ``seconds`` of CPU, from a probe of ``probe``
    units that took ``cpu`` seconds: rounded to two significant digits."""
    n = max(1, round(probe * seconds / max(cpu, 1e-6)))
    scale = 10 ** max(len(str(n)) - 2, 0)
    return max(1, round(n / scale) * scale)


def quartiles(xs: list) -> dict:
    """Median, quartiles and extremes of ``xs``."""
    a = np.array(xs, float)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    return {"median": float(med), "q1": float(q1), "q3": float(q3),
            "min": float(a.min()), "max": float(a.max())}


def rate_text(x: float) -> str:
    return f"{x / 1e6:.3f}M" if x >= 1e6 else f"{x / 1e3:.1f}k"


def load_average():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def run(args, trees: dict) -> dict:
    """Build the workers, size and warm the bursts, time the rounds; the
    results by workload."""
    sizes = parse_sizes(args.size)
    workers = {side: Worker(tree) for side, tree in trees.items()}
    try:
        build = {"build": args.workloads, "num_envs": args.num_envs, "env_preset": args.env_preset,
                 "insane_preset": args.insane_preset}
        for w in workers.values():
            w.send(build)   # both build (compile or load their caches) at once
        built = {side: w.receive() for side, w in workers.items()}
        for side in trees:
            print(f"{side:6s} {built[side]['dominoai']}: "
                  + ", ".join(f"{k} -> {v}" for k, v in built[side]["what"].items()))
        for name in args.workloads:
            if name not in sizes:
                probe = workers["before"].ask({"burst": name, "n": PROBE[name]})
                workers["after"].ask({"burst": name, "n": PROBE[name]})
                probe = workers["before"].ask({"burst": name, "n": PROBE[name]})
                sizes[name] = burst_size(PROBE[name], probe["cpu"], args.seconds)
            else:
                for w in workers.values():
                    w.ask({"burst": name, "n": sizes[name]})
        print("burst sizes: " + ", ".join(f"{k} {sizes[k]:,}" for k in args.workloads))

        rates = {(name, side): [] for name in args.workloads for side in trees}
        cpu = {(name, side): 0.0 for name in args.workloads for side in trees}
        wall = {(name, side): 0.0 for name in args.workloads for side in trees}
        ratios = {name: [] for name in args.workloads}
        for r in range(args.rounds):
            order = ("before", "after") if r % 2 == 0 else ("after", "before")
            for name in args.workloads:
                for side in order:
                    ans = workers[side].ask({"burst": name, "n": sizes[name]})
                    rates[(name, side)].append(ans["work"] / ans["cpu"])
                    cpu[(name, side)] += ans["cpu"]
                    wall[(name, side)] += ans["wall"]
                b, a = rates[(name, "before")][-1], rates[(name, "after")][-1]
                ratios[name].append(a / b)
                print(f"round {r:3d} {name:9s} before {rate_text(b):>9s}/s  after "
                      f"{rate_text(a):>9s}/s  after/before {a / b:6.3f}", flush=True)
    finally:
        for w in workers.values():
            w.close()

    results = {}
    for name in args.workloads:
        results[name] = {
            "unit": UNITS[name], "burst": sizes[name], "rounds": args.rounds,
            "what": {side: built[side]["what"][name] for side in trees},
            "ratio": quartiles(ratios[name]), "ratios": ratios[name],
            "goal_ratio": GOAL_RATIO, "met": quartiles(ratios[name])["median"] >= GOAL_RATIO,
            **{f"rate_{side}": rates[(name, side)] for side in trees},
            **{f"median_rate_{side}": float(np.median(rates[(name, side)])) for side in trees},
            "cpu_share": {side: cpu[(name, side)] / wall[(name, side)] for side in trees},
        }
    return results


def main(argv=None) -> int:
    if argv is None and sys.argv[1:] == ["--worker"]:
        return worker()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True, metavar="TREE",
                    help="the source tree of the code before (a checkout holding dominoai/)")
    ap.add_argument("--after", type=Path, default=HERE.parent, metavar="TREE",
                    help="the source tree of the code after (default: the tree of this script)")
    ap.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--seconds", type=float, default=1.0,
                    help="CPU seconds a burst should take (sets the sizes not given by --size)")
    ap.add_argument("--size", action="append", default=[], metavar="NAME=N",
                    help="a fixed burst size for a workload, e.g. playout=2000000 (repeatable)")
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--env-preset", default="block",
                    help="the preset of the env_step workload, for two players (default: block)")
    ap.add_argument("--insane-preset", default="block",
                    help="the preset of the insane workload (default: block)")
    ap.add_argument("--core", type=int, default=None)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for side, tree in trees.items():
        if not is_tree(tree):
            print(f"bench_ab: --{side} {tree}: no dominoai package there", file=sys.stderr)
            return 2
    if args.rounds < 1:
        print("bench_ab: --rounds must be at least 1", file=sys.stderr)
        return 2

    core = pin_one_core(args.core)   # the workers inherit the pinning
    load_start = load_average()
    print(f"A/B on core {core}, {args.rounds} rounds, load average at the start {load_start}")
    t0 = time.perf_counter()
    results = run(args, trees)
    load_end = load_average()

    print(f"\nafter / before, rate per CPU second ({args.rounds} rounds; above 1: after is faster)")
    head = ["workload", "unit", "burst", "before/s", "after/s", "median", "q1", "q3", "min", "max",
            "cpu share b/a", f">= {GOAL_RATIO}"]
    body = []
    for name, r in results.items():
        q = r["ratio"]
        body.append([name, r["unit"], f"{r['burst']:,}", rate_text(r["median_rate_before"]),
                     rate_text(r["median_rate_after"]), f"{q['median']:.3f}", f"{q['q1']:.3f}",
                     f"{q['q3']:.3f}", f"{q['min']:.3f}", f"{q['max']:.3f}",
                     f"{r['cpu_share']['before']:.2f}/{r['cpu_share']['after']:.2f}",
                     "met" if r["met"] else "MISSED"])
    print_table(head, body)
    print(f"load average at the start {load_start}, at the end {load_end}; "
          f"{time.perf_counter() - t0:.0f} s")
    import numba

    write_json(args.out, {
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "pinned_core": core, "cpu": platform.processor() or platform.machine(),
        "load_average_start": load_start, "load_average_end": load_end,
        "python": sys.version.split()[0], "numpy": np.__version__, "numba": numba.__version__,
        "trees": {side: str(tree) for side, tree in trees.items()},
        "args": args_record(args), "results": results,
    })
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
