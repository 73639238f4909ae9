#!/usr/bin/env python
"""The exact solver's speed: the plain-line solver against the general one.

For each preset (``--presets``, default Block 2p and Kozel) it collects
``--positions`` decisions with two or more legal moves and at most
``--tiles`` tiles left to play, from hands of ``hard`` bots (seeded), and
solves every legal move of each on the true state with both solvers:
``solve_into`` (whole engine states, through ``kernels.apply_move``) and
``solve_line_into`` (the hands, the two ends and the seat to move). Both
visit the same nodes (the tests check it; this script checks it too, and
stops if not), so the figure is nodes per second of each and their ratio,
in one run on one pinned core. ``--repeat`` passes each, interleaved, the
best counted. A script, not a test; it writes ``--out`` as JSON (default
``benchmarks/results/solver.json``).

Usage::

    python benchmarks/bench_solver.py
    python benchmarks/bench_solver.py --presets block --tiles 14 --positions 200
"""

from __future__ import annotations

import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))  # benchmarks/_common.py
from _common import args_record, pin_one_core, write_json  # noqa: E402

import argparse  # noqa: E402
import datetime as _dt  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "solver.json"


def positions(preset: str, n: int, tiles: int, seed: int):
    """``(states, codes, rules vector)``: ``n`` true states at decisions with
    two or more moves and at most ``tiles`` tiles left (``int64`` ``(n,
    S_SIZE)``), the legal moves of each, padded with -1 (``(n, MAX_MOVES)``)."""
    from dominoai.bots.pimc.value import tiles_left
    from dominoai.engine import layout as L
    from dominoai.tournament import decision_positions

    found = decision_positions(preset, n, "hard", seed,
                               keep=lambda obs, st: tiles_left(st, obs.rules_vector) <= tiles)[:n]
    codes = np.full((len(found), L.MAX_MOVES), -1, np.int64)
    for i, (obs, _) in enumerate(found):
        c = obs.legal_codes()
        codes[i, :len(c)] = c
    return np.array([st for _, st in found]), codes, found[0][0].rules_vector


def _kernel():
    from numba import njit

    from dominoai.bots.pimc.solver import solve_into, solve_line_into
    from dominoai.engine import kernels as K
    from dominoai.engine import layout as L

    @njit
    def run(states, codes, rv, stack, bufs, meta, ev, nodes, line, out):
        total = 0
        for i in range(states.shape[0]):
            st = states[i]
            p0 = st[L.S_POINTS:L.S_POINTS + 4].copy()
            for j in range(codes.shape[1]):
                c = codes[i, j]
                if c < 0:
                    break
                for q in range(L.S_SIZE):
                    stack[0, q] = st[q]
                K.apply_move(stack[0], rv, ev, c)
                nodes[0] = 0
                nodes[2] = 0
                if line:
                    v = solve_line_into(stack, bufs, meta, rv, st[L.S_CUR], p0, nodes)
                else:
                    v = solve_into(stack, bufs, meta, rv, ev, st[L.S_CUR], p0, nodes)
                out[i, j] = v
                total += nodes[0]
        return total

    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--presets", nargs="+", default=["block", "kozel"],
                    help="plain-line presets (default: block kozel)")
    ap.add_argument("--positions", type=int, default=300, help="decisions per preset")
    ap.add_argument("--tiles", type=int, default=12, help="at most this many tiles left")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes of each solver; best counts")
    ap.add_argument("--seed", type=int, default=2024, help="seed of the hands")
    ap.add_argument("--core", type=int, default=None, help="pin to this core (default: least busy)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    args = ap.parse_args(argv)
    core = pin_one_core(args.core)

    from dominoai.bots.pimc import new_scratch
    from dominoai.bots.pimc.solver import plain_line

    run = _kernel()
    print(f"exact solver, one core ({core}), {args.positions} positions with at most "
          f"{args.tiles} tiles left, best of {args.repeat}")
    print(f"{'preset':8s} {'nodes':>10s} {'general M/s':>12s} {'line M/s':>10s} {'ratio':>6s}")
    results = []
    for preset in args.presets:
        states, codes, rv = positions(preset, args.positions, args.tiles, args.seed)
        if not plain_line(rv):
            raise SystemExit(f"{preset}: not a plain line (drawing, scoring ends, spinner or "
                             "replacements); solve_line_into does not apply")
        ws = new_scratch(codes.shape[1], 1 << 62)
        outs = [np.zeros(codes.shape, np.int64) for _ in range(2)]
        best = [np.inf, np.inf]
        counts = [0, 0]
        for _ in range(args.repeat + 1):        # the first pass compiles and warms
            for k in (0, 1):
                t = time.process_time()
                counts[k] = run(states, codes, rv, ws.stack, ws.bufs, ws.meta, ws.ev, ws.nodes,
                                k == 1, outs[k])
                best[k] = min(best[k], time.process_time() - t) if _ else best[k]
        if counts[0] != counts[1] or not np.array_equal(outs[0], outs[1]):
            raise SystemExit(f"{preset}: the two solvers disagree (nodes {counts[0]} / {counts[1]})")
        print(f"{preset:8s} both solvers agree: the same value for all "
              f"{int((codes >= 0).sum())} moves, {counts[0]} nodes each", flush=True)
        r = {"preset": preset, "nodes": int(counts[0]), "general_s": best[0], "line_s": best[1],
             "general_mnodes_per_s": counts[0] / best[0] / 1e6,
             "line_mnodes_per_s": counts[1] / best[1] / 1e6, "ratio": best[0] / best[1]}
        results.append(r)
        print(f"{preset:8s} {r['nodes']:10d} {r['general_mnodes_per_s']:12.2f} "
              f"{r['line_mnodes_per_s']:10.2f} {r['ratio']:6.2f}", flush=True)
    out = {"date": _dt.datetime.now().isoformat(timespec="seconds"), "pinned_core": core,
           "args": args_record(args),
           "results": results}
    write_json(args.out, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
