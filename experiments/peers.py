#!/usr/bin/env python
"""insane against published bots: OpenSpiel's ISMCTS and the
``dominoes`` package's strongest fair player.

Every comparison goes through :func:`dominoai.run_tournament` on duplicate
deals (every deal played in every seat rotation) and is reported from
insane's side: the points-per-hand difference with its paired 95% interval
(t interval over deals, :func:`dominoai.tournament.stats.paired_ci`), the
hand win rate, and each bot's median milliseconds per decision (the median
over hand rows of ``time / moves``, the tournament's own clock; hands where
a bot made no decision are left out).

Two modes:

- ``--sweep-uct C1,C2,...``: ISMCTS's exploration constant first.
  ``insane`` vs ``ismcts:sims=S,uct_c=C`` on ``openspiel_block`` for each C
  (S is ``--sims``' first count, 1,000 by default), all on the same
  ``--deals`` (200 by default, seed ``--seed``), so each pair of constants
  is also compared deal by deal. The constant best for ISMCTS is the one
  where insane's margin is smallest. Writes ``sweep-uct.csv``.
- Otherwise, the comparison at ``--uct-c`` (default: the ``ismcts`` bot's
  own default):

  1. ``insane`` vs ``ismcts:sims=S,uct_c=C`` on ``openspiel_block`` for S
     in ``--sims`` (100, 1,000, 10,000), then at equal time: ``insane``
     given a ``time_budget`` equal to the median decision time of ISMCTS
     at the largest S (and worlds enough that the budget, not the worlds,
     stops it), counted in CPU time (``budget_clock=cpu``) as the
     tournament's medians are, so a loaded machine does not shrink
     insane's share.
  2. ``insane`` vs ``pydominoes-pab:sample_size=K`` on ``pydominoes`` (the
     package's ``probabilistic_alphabeta``: its strongest player that does
     not see the other hands; ``omniscient`` cheats and is left out).

``--deals`` fixes the sample before the run (600 by default); the results
file's name carries it, with the simulation count and the constant. Each
run is resumable: a finished file is read back, a run with parts on disk
continues (``resume=True``), so a long run is restarted with the same
command. ``summary.csv`` collects the rows.

Usage::

    python experiments/peers.py --small                          # a smoke run
    python experiments/peers.py --sweep-uct 2,5,10,20,40 --jobs 1  # the constant
    python experiments/peers.py --deals 600 --jobs 1             # the comparison (days)
    python experiments/peers.py --deals 600 --equal-ms 2345      # equal time alone, at a known median
    python experiments/peers.py --deals 600 --batch-units 8 ...  # smaller parts: less lost if stopped
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from _common import interval, median_ms, pairing_from, per_deal_margin, run_or_load


def run(name: str, variant: str, bots: list[str], deals: int, seed: int, out: Path, jobs: int,
        extra: dict | None = None, batch_units: int | None = None):
    """One tournament, resumable (read back if finished, resumed if parts
    exist), reported from the first bot's side; returns ``(row, per-deal
    margins)``."""
    res = run_or_load(out / f"{name}.parquet", variant, bots, deals, seed, jobs, batch_units=batch_units)
    a, b = bots
    pr = pairing_from(res, a)
    ms = median_ms(res.hands)
    row = {"comparison": name, **(extra or {}), "variant": variant, "a": a, "b": b,
           "deals": pr["deals"], "games": pr["games"], "points_diff": pr["points_diff"],
           "diff_lo": pr["diff_lo"], "diff_hi": pr["diff_hi"], "a_win_rate": pr["win_rate"],
           "a_ms": ms.get(a, float("nan")), "b_ms": ms.get(b, float("nan"))}
    return row, per_deal_margin(res, a)


def ismcts_default_uct_c() -> float:
    """The ``ismcts`` bot's declared default exploration constant."""
    from dominoai.interop.openspiel import IsmctsBot
    return float(IsmctsBot.PARAMS["uct_c"].default)


def parse_list(ap, flag: str, text: str, kind):
    """``"2,5,10"`` -> ``[2, 5, 10]`` of ``kind``; a bad item is refused
    through ``ap.error`` (one line, exit code 2)."""
    try:
        vals = [kind(s) for s in text.split(",") if s.strip()]
    except ValueError:
        ap.error(f"{flag}: a comma-separated list of numbers, got {text!r}")
    if not vals or any(v < 0 for v in vals):
        ap.error(f"{flag}: a comma-separated list of non-negative numbers, got {text!r}")
    return vals


def sweep(args, out: Path, sims: int, consts: list[float], report) -> pd.DataFrame:
    """insane vs ISMCTS at ``sims`` simulations for each constant in
    ``consts`` (in that order: a partial sweep has the first ones), on the
    same deals; the table sorted by constant, with each constant's margin
    compared deal by deal to the best constant's (``vs_best``, its
    interval ``vs_best_lo``, ``vs_best_hi``: insane's margin here minus
    there)."""
    from dominoai.tournament.stats import paired_ci

    rows, margins = [], {}
    for c in consts:
        row, m = run(f"ismcts-{sims}-c{c:g}-d{args.deals}", "openspiel_block",
                     [args.insane, f"ismcts:sims={sims},uct_c={c:g}"], args.deals, args.seed, out,
                     args.jobs, extra={"uct_c": c, "sims": sims}, batch_units=args.batch_units)
        rows.append(row)
        margins[c] = m
        report(row)
    table = pd.DataFrame(rows).sort_values("uct_c").reset_index(drop=True)
    best = float(table.loc[table["points_diff"].idxmin(), "uct_c"])
    vs = [paired_ci((margins[c] - margins[best]).dropna().to_numpy()) if c != best
          else (0.0, float("nan"), float("nan")) for c in table["uct_c"]]
    table["vs_best"], table["vs_best_lo"], table["vs_best_hi"] = zip(*vs)
    table["best"] = table["uct_c"] == best
    return table


class _Parser(argparse.ArgumentParser):
    """Refuses bad input in one line (``peers.py: error: ...``), exit code 2."""

    def error(self, message):
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv=None) -> int:
    ap = _Parser(description=__doc__.split("\n\n")[0].replace("``", ""))
    ap.add_argument("--deals", type=int, default=None,
                    help="the fixed sample: duplicate deals per comparison (600; 200 with --sweep-uct)")
    ap.add_argument("--sims", default="100,1000,10000",
                    help="ISMCTS simulation counts (--sweep-uct: the first, default 1000)")
    ap.add_argument("--uct-c", type=float, default=None,
                    help="ISMCTS's exploration constant (default: the ismcts bot's default)")
    ap.add_argument("--sweep-uct", default="",
                    help="exploration constants to compare, e.g. 2,5,10,20,40 (run in this order)")
    ap.add_argument("--sample-size", type=int, default=3, help="pydominoes-pab worlds per decision")
    ap.add_argument("--pab-deals", type=int, default=None, help="deals for comparison 2 (default --deals)")
    ap.add_argument("--insane", default="insane", help="the insane spec")
    ap.add_argument("--small", action="store_true", help="a few deals, sims 100 and 1000: a smoke run")
    ap.add_argument("--out", default="results/peers", help="output folder (default results/peers)")
    ap.add_argument("--deals-at", default="",
                    help="deals for some simulation counts, e.g. 10000=40 (default --deals)")
    ap.add_argument("--equal-at", type=int, default=None,
                    help="the simulation count whose median time insane is given (default the largest)")
    ap.add_argument("--equal-ms", type=float, default=None,
                    help="insane's budget at equal time in CPU ms per decision; given, only the "
                         "equal-time and pydominoes lines are played (default: the median of the "
                         "--equal-at line, played first)")
    ap.add_argument("--batch-units", type=int, default=None,
                    help="deals per part written (default: the tournament's, 32 for 600 deals); "
                         "smaller parts lose less when a run is stopped; without it a resumed run keeps its own")
    ap.add_argument("--seed", type=int, default=12, help="seed of the deals (default 12)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="worker processes (default 1; -1: one per core)")
    args = ap.parse_args(argv)
    sweeping = bool(args.sweep_uct)
    if args.small:
        args.deals, args.pab_deals = (3, 2) if sweeping else (10, 2)
        args.sims = "100" if sweeping else "100,1000"
        args.out = args.out.rstrip("/") + "-small"
    if args.deals is None:
        args.deals = 200 if sweeping else 600
    if args.deals < 1:
        ap.error(f"--deals: at least 1, got {args.deals}")
    sims = [int(s) for s in parse_list(ap, "--sims", args.sims, int)]
    if any(s < 1 for s in sims):
        ap.error(f"--sims: counts of at least 1, got {args.sims!r}")
    try:
        deals_at = {int(k): int(v) for k, v in (kv.split("=") for kv in args.deals_at.split(",") if kv)}
    except ValueError:
        ap.error(f"--deals-at: items SIMS=DEALS, got {args.deals_at!r}")
    if any(v < 1 for v in deals_at.values()):
        ap.error(f"--deals-at: at least 1 deal for each count, got {args.deals_at!r}")
    if args.uct_c is not None and args.uct_c < 0:
        ap.error(f"--uct-c: non-negative, got {args.uct_c:g}")
    equal_at = args.equal_at or max(sims)
    if not sweeping and equal_at not in sims:
        ap.error(f"--equal-at {equal_at} is not one of --sims {args.sims}")
    if args.equal_ms is not None and not (0 < args.equal_ms < float("inf")):
        ap.error(f"--equal-ms: a positive number of milliseconds, got {args.equal_ms:g}")
    if args.jobs == 0 or args.jobs < -1:
        ap.error(f"--jobs: a positive number of processes or -1, got {args.jobs}")
    if args.sample_size < 1:
        ap.error(f"--sample-size: at least 1, got {args.sample_size}")
    if args.pab_deals is not None and args.pab_deals < 1:
        ap.error(f"--pab-deals: at least 1, got {args.pab_deals}")
    if args.batch_units is not None and args.batch_units < 1:
        ap.error(f"--batch-units: at least 1, got {args.batch_units}")
    if args.equal_ms is not None and sweeping:
        ap.error("--equal-ms: not with --sweep-uct")
    consts = parse_list(ap, "--sweep-uct", args.sweep_uct, float) if sweeping else []
    if len(set(consts)) < len(consts):
        ap.error(f"--sweep-uct: a constant listed twice in {args.sweep_uct!r}")
    import dominoai.interop  # noqa: F401  (registers ismcts, mcts, pydominoes-*)
    uct_c = ismcts_default_uct_c() if args.uct_c is None else args.uct_c
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def report(row):
        print(pd.DataFrame([row]).to_string(index=False), flush=True)

    fmt = {"display.width": 200, "display.float_format": "{:.2f}".format}
    if sweeping:
        s = 1000 if args.sims == ap.get_default("sims") else sims[0]
        table = sweep(args, out, s, consts, report)
        table.to_csv(out / "sweep-uct.csv", index=False)
        with pd.option_context(*[x for kv in fmt.items() for x in kv]):
            print(table.to_string(index=False))
        best = table[table["best"]].iloc[0]
        print(f"best for ISMCTS at {s} simulations: uct_c={best['uct_c']:g} (insane "
              f"{interval(best['points_diff'], best['diff_lo'], best['diff_hi'])} points per hand, "
              f"{best['deals']} deals)")
        return 0

    rows = []

    def add(row):
        rows.append(row)
        report(row)

    # cheapest first, so that a partial run already has the small counts
    for s in sorted(sims):
        n = deals_at.get(s, args.deals)
        if args.equal_ms is None:
            row, _ = run(f"ismcts-{s}-c{uct_c:g}-d{n}", "openspiel_block",
                         [args.insane, f"ismcts:sims={s},uct_c={uct_c:g}"], n, args.seed, out,
                         args.jobs, extra={"uct_c": uct_c, "sims": s}, batch_units=args.batch_units)
            add(row)
        if s == equal_at:
            budget = (row["b_ms"] if args.equal_ms is None else args.equal_ms) / 1000
            # the budget counts the deciding thread's CPU time, as the
            # tournament's ms per decision count the process's: the wall
            # clock would charge insane for other work on the machine
            eq = f"{args.insane}:worlds=1000000,time_budget={budget:.4f},budget_clock=cpu"
            add(run(f"ismcts-{s}-c{uct_c:g}-d{n}-equal-cpu-time", "openspiel_block",
                    [eq, f"ismcts:sims={s},uct_c={uct_c:g}"], n, args.seed, out, args.jobs,
                    extra={"uct_c": uct_c, "sims": s}, batch_units=args.batch_units)[0])
            n_pab = args.pab_deals or args.deals
            add(run(f"pydominoes-pab-{args.sample_size}-d{n_pab}", "pydominoes",
                    [args.insane, f"pydominoes-pab:sample_size={args.sample_size}"],
                    n_pab, args.seed, out, args.jobs, batch_units=args.batch_units)[0])
    table = pd.DataFrame(rows)
    table.to_csv(out / "summary.csv", index=False)
    with pd.option_context(*[x for kv in fmt.items() for x in kv]):
        print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
