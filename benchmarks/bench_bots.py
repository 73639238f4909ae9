#!/usr/bin/env python
"""Decisions per second of every registered bot, per preset, on one core.

For every preset (``dominoai.preset_names()``, or ``--presets``) it builds
``--positions`` observations from random matches (the seat to move at each
decision; moves a mix of uniformly random and ``medium``, so scores, draws,
passes, voids and replacements occur), then times ``bot.act(observation)``
over all of them: one untimed warm-up pass (numba compilation or cache
loading), then ``--repeats`` timed passes; the best pass counts. Time is
``time.process_time()`` (CPU time of this process: other jobs on a shared
machine do not inflate it), and the process pins itself to one core with
``os.sched_setaffinity`` where available. Building the observation is not
timed: it is what the harness hands the bot.

Search bots (``insane``, ``omniscient``) are timed on ``--search-positions``
observations per preset with one repeat; ``omniscient`` is called through
``act_with_state`` with the true state, as the tournament does.

Targets (decisions/s, one core, over all presets): ``easy`` and ``medium``
50,000, ``hard`` 10,000; the other bots have none and are reported only.

It prints a table and writes JSON to ``--out`` (default
``benchmarks/results/bots.json``)::

    python benchmarks/bench_bots.py
    python benchmarks/bench_bots.py --bots easy,medium,hard --positions 5000 --repeats 5
"""

from __future__ import annotations

import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))  # benchmarks/_common.py
from _common import args_record, pin_one_core, print_table as print_rows, write_json  # noqa: E402

import argparse
import datetime as _dt
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "bots.json"
TARGETS = {"easy": 50_000, "medium": 50_000, "hard": 10_000}
SEARCH_BOTS = ("insane", "omniscient")


# ---------------------------------------------------------------- setup




def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def build_positions(preset: str, n: int, seed: int) -> list:
    """``n`` decision points of random matches: ``(observation, true state)``."""
    from dominoai import Match
    from dominoai.bots import make_bot

    rng = np.random.default_rng(seed)
    mid = make_bot("medium")
    out = []
    while len(out) < n:
        m = Match(preset, seed=int(rng.integers(2**31)))
        while not m.finished and len(out) < n:
            h = m.new_hand()
            while not h.over and len(out) < n:
                obs = h.observe()
                out.append((obs, m.state_copy()))
                if rng.random() < 0.6:
                    moves = h.legal_moves()
                    h.play(moves[int(rng.integers(len(moves)))])
                else:
                    h.play(mid.act(obs))
    return out


# ---------------------------------------------------------------- timing
def time_bot(spec: str, positions: list, repeats: int) -> dict:
    from dominoai.bots import make_bot

    bot = make_bot(spec, seed=1)
    if getattr(bot, "needs_state", False):
        call = lambda o, s: bot.act_with_state(o, s)  # noqa: E731
    else:
        call = lambda o, s: bot.act(o)  # noqa: E731
    for o, s in positions:  # warm-up: compile / load the numba cache
        call(o, s)
    cpu, wall = [], []
    for _ in range(repeats):
        c0 = time.process_time()
        t0 = time.perf_counter()
        for o, s in positions:
            call(o, s)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
    best = min(cpu)
    n = len(positions)
    return {"decisions": n, "cpu_seconds": cpu, "wall_seconds": wall,
            "decisions_per_s": n / best if best > 0 else float("inf"),
            "us_per_decision": 1e6 * best / n}


# ---------------------------------------------------------------- output
def _rate(x) -> str:
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def print_table(rows: list[dict], presets: list[str]) -> None:
    head = ["bot", "all dec/s", "us/dec", "target", "ratio", "met?"] + [p[:12] for p in presets]
    body = []
    for r in rows:
        t = r["target"]
        body.append([r["bot"], _rate(r["decisions_per_s"]), f"{r['us_per_decision']:.1f}",
                     _rate(t), "-" if t is None else f"{r['decisions_per_s'] / t:.1f}x",
                     "-" if t is None else ("yes" if r["target_met"] else "NO")]
                    + [_rate(r["presets"][p]["decisions_per_s"] if r["presets"].get(p) else None)
                       for p in presets])
    print_rows(head, body)


def main(argv=None) -> int:
    import dominoai
    from dominoai.bots import bot_names

    names = dominoai.preset_names()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bots", default=None,
                    help=f"comma-separated bot specs (default: every registered bot: {', '.join(bot_names())})")
    ap.add_argument("--presets", default=None, help="comma-separated presets (default: all)")
    ap.add_argument("--positions", type=int, default=2000, help="observations per preset (default 2000)")
    ap.add_argument("--search-positions", type=int, default=10,
                    help="observations per preset for the search bots (default 10)")
    ap.add_argument("--repeats", type=int, default=5, help="timed passes; the best counts (default 5)")
    ap.add_argument("--core", type=int, default=None, help="CPU to pin to (default: the least busy)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON path (default benchmarks/results/bots.json)")
    args = ap.parse_args(argv)

    presets = names if not args.presets else [p for p in args.presets.split(",") if p]
    bad = [p for p in presets if p not in names]
    if bad:
        ap.error(f"unknown preset(s) {', '.join(bad)}; presets are: {', '.join(names)}")
    specs = bot_names() if not args.bots else [b.strip() for b in args.bots.split(",") if b.strip()]
    if args.positions < 1 or args.repeats < 1:
        ap.error("--positions and --repeats must be >= 1")

    core = pin_one_core(args.core)
    print(f"pinned to core: {core if core is not None else 'not supported here'};  cpu: {cpu_name()}")
    print(f"{args.positions} positions per preset ({args.search_positions} for search bots), "
          f"best of {args.repeats} (process CPU time)\n", flush=True)
    positions = {p: build_positions(p, args.positions, args.seed + i) for i, p in enumerate(presets)}

    from dominoai.nets.model import ModelError
    rows = []
    for spec in specs:
        name = spec.split(":")[0]
        search = name in SEARCH_BOTS
        per = {}
        tot_n = 0
        tot_t = 0.0
        for p in presets:
            pos = positions[p][: args.search_positions] if search else positions[p]
            try:
                r = time_bot(spec, pos, 1 if search else args.repeats)
            except ModelError:      # neural under a preset without a shipped model
                per[p] = None
                continue
            per[p] = r
            tot_n += r["decisions"]
            tot_t += min(r["cpu_seconds"])
        rate = tot_n / tot_t if tot_t > 0 else float("inf")
        target = TARGETS.get(spec)
        rows.append({"bot": spec, "decisions": tot_n, "decisions_per_s": rate,
                     "us_per_decision": 1e6 * tot_t / tot_n, "target": target,
                     "ratio": None if target is None else rate / target,
                     "target_met": None if target is None else rate >= target, "presets": per})
        print(f"  {spec}: {_rate(rate)} decisions/s ({1e6 * tot_t / tot_n:.1f} us each)", flush=True)
    print()
    print_table(rows, presets)
    judged = [r for r in rows if r["target"] is not None]
    met = sum(bool(r["target_met"]) for r in judged)
    print(f"\n{met}/{len(judged)} bots with a target meet it")

    import numba
    result = {
        "benchmark": "bot decisions per second (bot.act on pre-built observations), one core",
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "pinned_core": core,
        "cpu": cpu_name(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "dominoai": dominoai.__version__,
        "timer": "time.process_time, best of repeats",
        "args": args_record(args),
        "targets": TARGETS,
        "all_targets_met": met == len(judged),
        "results": rows,
    }
    write_json(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
