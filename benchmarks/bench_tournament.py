"""Tournament throughput: hands per second with one job and with two.

Plays the same small tournament (``insane`` at its defaults against
``hard``, on duplicate Draw deals) with ``--jobs 1`` and ``--jobs 2`` in one
run, after a warm-up that loads the numba kernels, and prints hands/s of
each and their ratio. The harness's targets: at least 300 hands/s with two
jobs, and two jobs at least 1.8 times one job on a quiet machine. The rate
is mostly insane's thinking time: with its per-preset defaults (Draw: 378
worlds, two rollouts, the exact endgame) it is far below the rate target,
which was set for insane at 200 worlds and one rollout; ``--bots hard,medium``
measures the harness itself. Writes JSON to
``benchmarks/results/tournament.json``.

    python benchmarks/bench_tournament.py [--variant draw] [--bots insane,hard] [--hands 300]
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

TARGET_RATE = 300.0
TARGET_RATIO = 1.8


def _run(variant, bots, hands, jobs, seed):
    from dominoai.tournament import run_tournament

    t = time.perf_counter()
    res = run_tournament(variant, bots, hands=hands, jobs=jobs, seed=seed, progress=False)
    dt = time.perf_counter() - t
    n = len(res.hands) // res.hands["seat"].nunique()
    return n, dt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="draw")
    ap.add_argument("--bots", default="insane,hard")
    ap.add_argument("--hands", type=int, default=300, help="deals per pairing (each played twice)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "tournament.json"))
    args = ap.parse_args(argv)
    bots = args.bots.split(",")
    warm = max(64, args.hands // 4)
    _run(args.variant, bots, warm, 1, args.seed + 1)       # warm-up: load kernels here
    _run(args.variant, bots, warm, 2, args.seed + 1)       # and in both workers
    rows = {}
    for jobs in (1, 2):
        n, dt = _run(args.variant, bots, args.hands, jobs, args.seed)
        rows[jobs] = {"hands": n, "seconds": dt, "hands_per_s": n / dt}
        print(f"jobs {jobs}: {n} hands in {dt:.2f} s = {n / dt:,.0f} hands/s")
    ratio = rows[2]["hands_per_s"] / rows[1]["hands_per_s"]
    print(f"two jobs / one job: {ratio:.2f} (target >= {TARGET_RATIO}); "
          f"two jobs {rows[2]['hands_per_s']:,.0f} hands/s (target >= {TARGET_RATE:.0f})")
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    out = {"variant": args.variant, "bots": bots, "deals": args.hands, "cpus": os.cpu_count(),
           "load_average": load, "runs": rows, "ratio": ratio,
           "targets": {"hands_per_s_two_jobs": TARGET_RATE, "ratio": TARGET_RATIO},
           "met": {"rate": rows[2]["hands_per_s"] >= TARGET_RATE, "ratio": ratio >= TARGET_RATIO}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
