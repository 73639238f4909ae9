"""The ``dominoai simulate`` subcommand: random playouts of a variant and
their outcome statistics (the work is :func:`dominoai.simulate.run_simulation`).

Importing this module loads no numba: the engine is imported when the
command runs, so that ``dominoai --help`` stays light.
"""

from __future__ import annotations

import argparse
import sys

from ._cli_support import UsageError, int_at_least, presets_help

__all__ = ["add_parser", "cmd_simulate"]


def add_parser(sub) -> None:
    """Add the ``simulate`` subcommand to ``sub`` (the command's subparsers)."""
    s = sub.add_parser("simulate", help="random playouts: outcome statistics of a variant",
                       description="Play random first hands (random deals, random legal moves) "
                                   "with the numba engine and print outcome statistics.")
    s.add_argument("--variant", required=True, metavar="NAME",
                   help=f"a preset: {presets_help()}")
    s.add_argument("--players", type=int_at_least(2), metavar="N",
                   help="number of players (default: the preset's)")
    s.add_argument("--hands", type=int_at_least(1), default=100_000, metavar="N",
                   help="hands to play (default 100000)")
    s.add_argument("--seed", type=int_at_least(0), metavar="S",
                   help="random seed (default: fresh entropy, printed)")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: for long runs on a terminal)")
    s.set_defaults(func=cmd_simulate)


def cmd_simulate(args) -> int:
    """``dominoai simulate``: play the random hands and print, per side, the
    wins and mean points, how the hands ended, and the speed."""
    import numpy as np

    from .rules import get_rules
    from .simulate import SIM_CHUNK, run_simulation

    overrides = {} if args.players is None else {"players": args.players}
    try:
        rules = get_rules(args.variant, **overrides)
    except (ValueError, TypeError) as e:
        raise UsageError(str(e)) from None
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (1 << 63))
    progress = args.progress
    if progress is None:
        progress = args.hands > SIM_CHUNK and sys.stderr.isatty()
    st = run_simulation(rules, args.hands, seed, progress)
    n = st["hands"]
    unit = rules.points_unit + (" (low is good)" if rules.low_is_good else "")

    def pct(x):
        return f"{100.0 * x / n:5.1f}%"

    pairs = ", pairs 0+2 v 1+3" if rules.partnerships else ""
    print(f"simulate {rules.preset}: {rules.players} players{pairs}, {n} random hands, seed {seed}")
    print(f"  {'side':<20}{'wins':>10}{'share':>9}   mean {unit}")
    for s in range(rules.sides):
        name = f"pair {s} (seats {s}+{s + 2})" if rules.partnerships else f"seat {s}"
        print(f"  {name:<20}{st['wins'][s]:>10}{pct(st['wins'][s]):>9}   {st['points'][s] / n:.2f}")
    print(f"  {'no winner':<20}{st['no_winner']:>10}{pct(st['no_winner']):>9}")
    print(f"  domino {pct(st['domino']).strip()}   blocked {pct(st['blocked']).strip()}   "
          f"cut short {pct(st['cut']).strip()}")
    print(f"  mean moves per hand: {st['moves'] / n:.2f}")
    rate = n / st["seconds"] if st["seconds"] > 0 else float("inf")
    print(f"  speed: {rate:,.0f} hands/s ({st['seconds']:.2f} s)")
    return 0
