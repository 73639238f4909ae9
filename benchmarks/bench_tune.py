"""Tuner throughput and overhead: trials per hour with one job and with
two, and the share of the wall time spent outside the tournaments.

Runs the same small study (in memory, no validation) with ``--jobs 1`` and
``--jobs 2`` after a warm-up that loads the numba kernels. Each trial's
``tournament_seconds`` is the time inside ``run_tournament``; the rest of
the wall time (sampling, pruning, storage, the per-deal statistics) is the
tuner's overhead. Goal: overhead under 5% of wall time at the
default sizes (``--trials 60 --hands 400`` against ``hard`` in Draw).
Writes JSON to ``benchmarks/results/tune.json``.

    python benchmarks/bench_tune.py                       # default sizes: hours
    python benchmarks/bench_tune.py --trials 6 --hands 40 # a quick check
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

TARGET_OVERHEAD = 0.05


def _study(args, jobs: int, folder: Path) -> dict:
    from dominoai.tune import tune

    t = time.perf_counter()
    res = tune(args.variant, args.bot, args.opponents, trials=args.trials, hands=args.hands,
               jobs=jobs, seed=args.seed, study=folder / f"bench-{jobs}.db", validate_hands=0,
               progress=False)
    wall = time.perf_counter() - t
    df = res.trials
    inside = float(df["tournament_seconds"].sum())
    return {"jobs": jobs, "trials": int(len(df)), "pruned": int((df["state"] == "PRUNED").sum()),
            "wall_s": wall, "tournament_s": inside, "trials_per_hour": len(df) / wall * 3600,
            "overhead": 1 - inside / wall}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="draw")
    ap.add_argument("--bot", default="insane")
    ap.add_argument("--opponents", default="hard")
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", default="1,2", help="job counts to measure (default 1,2)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "tune.json"))
    args = ap.parse_args(argv)

    from dominoai.tournament import run_tournament
    run_tournament(args.variant, [args.bot, args.opponents.split(",")[0]], hands=2, progress=False)  # warm-up
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for jobs in [int(j) for j in args.jobs.split(",")]:
            r = _study(args, jobs, Path(tmp))
            rows.append(r)
            print(f"jobs {jobs}: {r['trials']} trials ({r['pruned']} pruned) in {r['wall_s']:.1f} s: "
                  f"{r['trials_per_hour']:.0f} trials/hour; tuner overhead {r['overhead']:.1%} of wall time "
                  f"(goal < {TARGET_OVERHEAD:.0%})")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"config": vars(args), "results": rows}, indent=2) + "\n")
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
