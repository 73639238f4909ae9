"""The ``dominoai`` command line: a thin argparse front end over the library.

Subcommands::

    dominoai replay FILE [--json]
    dominoai simulate --variant NAME [--players N] [--hands N] [--seed S]
    dominoai --version

Bad input of any kind (a missing or unreadable file, invalid JSON, a record
that breaks the rules, an unknown preset, a bad option) gives exit code 2 and
exactly one line on stderr, ``dominoai: error: ...``; never a traceback.
Importing this module does nothing else.

>>> main(["replay"])
2
"""

from __future__ import annotations

import argparse
import json
import sys
import time

__all__ = ["main", "build_parser", "run_simulation"]

PROG = "dominoai"
SIM_CHUNK = 20_000  # hands per kernel call; the progress bar advances by chunks


class UsageError(Exception):
    """Bad input: reported as one ``dominoai: error:`` line, exit code 2."""


class _ParserExit(Exception):
    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so ``main`` can
    return the exit code and print a single-line error."""

    def error(self, message):
        raise UsageError(message)

    def exit(self, status=0, message=None):
        if message:
            sys.stderr.write(message)
        raise _ParserExit(status)


def _version() -> str:
    from . import __version__
    return __version__


def _int_at_least(lo: int, what: str):
    def conv(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be an integer (got {text!r})") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"{what} must be at least {lo} (got {v})")
        return v
    return conv


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dominoai`` command."""
    p = _Parser(prog=PROG, description="dominoai: imperfect-information dominoes toolkit.")
    p.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    r = sub.add_parser("replay", help="check a game record against the rules and show its result",
                       description="Replay a dominoai.record/1 file, checking every move; "
                                   "'-' reads the record from standard input.")
    r.add_argument("file", metavar="FILE", help="record file (JSON), or - for standard input")
    r.add_argument("--json", action="store_true",
                   help="print the result as one JSON object (DESIGN.md) instead of a summary")
    r.set_defaults(func=_cmd_replay)

    s = sub.add_parser("simulate", help="random playouts: outcome statistics of a variant",
                       description="Play random first hands (random deals, random legal moves) "
                                   "with the numba engine and print outcome statistics.")
    from .rules import preset_names
    s.add_argument("--variant", required=True, metavar="NAME",
                   help=f"a preset: {', '.join(preset_names())}")
    s.add_argument("--players", type=_int_at_least(2, "--players"), metavar="N",
                   help="number of players (default: the preset's)")
    s.add_argument("--hands", type=_int_at_least(1, "--hands"), default=100_000, metavar="N",
                   help="hands to play (default 100000)")
    s.add_argument("--seed", type=_int_at_least(0, "--seed"), metavar="S",
                   help="random seed (default: fresh entropy, printed)")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: for long runs on a terminal)")
    s.set_defaults(func=_cmd_simulate)
    return p


# ---------------------------------------------------------------- replay
def _cmd_replay(args) -> int:
    from .records import RecordError, _loads, load_record, replay

    name = "<stdin>" if args.file == "-" else args.file
    try:
        if args.file == "-":
            rec = load_record(_loads(sys.stdin.read()))
        else:
            rec = load_record(args.file)
        res = replay(rec)
    except RecordError as e:
        msg = str(e)
        raise UsageError(msg if msg.startswith(f"{name}: ") else f"{name}: {msg}") from None
    if args.json:
        print(json.dumps(res.to_dict()))
    else:
        print(res.summary())
    return 0


# ---------------------------------------------------------------- simulate
def run_simulation(rules, n_hands: int, seed: int, progress: bool = False) -> dict:
    """Play ``n_hands`` random first hands under ``rules`` with the engine's
    :func:`~dominoai.engine.fast.simulate_fast` (the same hands as ``kernels.simulate``), in chunks of ``SIM_CHUNK``
    (chunk ``i`` seeded from ``numpy.random.SeedSequence(seed)``'s ``i``-th
    child, so a seed gives the same numbers on every run). Returns counts:
    ``wins`` per side, ``no_winner``, ``domino``, ``blocked``, ``cut``,
    ``points`` per side, ``moves``, ``hands`` and ``seconds`` (play time,
    compilation excluded)."""
    import numpy as np

    from .engine import fast as F

    rv = rules.vector()
    stats = np.zeros(16, np.int64)
    F.simulate_fast(rv, 0, 0, stats)  # compile / load the cached kernel outside the clock
    n_chunks = -(-n_hands // SIM_CHUNK)
    children = np.random.SeedSequence(seed).spawn(n_chunks)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n_hands, unit="hand", unit_scale=True, file=sys.stderr,
                   desc=f"simulate {rules.preset}", leave=False)
    t0 = time.perf_counter()
    try:
        left = n_hands
        for child in children:
            k = min(SIM_CHUNK, left)
            s = int(child.generate_state(1, np.uint64)[0] & np.uint64(0x7FFFFFFFFFFFFFFF))
            F.simulate_fast(rv, s, k, stats)
            left -= k
            if bar is not None:
                bar.update(k)
    finally:
        if bar is not None:
            bar.close()
    dt = time.perf_counter() - t0
    ns = rules.sides
    return {
        "hands": n_hands, "seconds": dt,
        "wins": [int(x) for x in stats[0:ns]], "no_winner": int(stats[7]),
        "domino": int(stats[4]), "blocked": int(stats[5]), "cut": int(stats[6]),
        "points": [int(x) for x in stats[8:8 + ns]], "moves": int(stats[12]),
    }


def _cmd_simulate(args) -> int:
    import numpy as np

    from .rules import get_rules

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
    unit = {"strikes": "strikes", "losers_record": "recorded (low is good)"}.get(rules.hand_scoring, "points")

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


# ---------------------------------------------------------------- main
def _fail(message: str) -> int:
    msg = " ".join(str(message).split())
    sys.stderr.write(f"{PROG}: error: {msg}\n")
    return 2


def main(argv=None) -> int:
    """Run the ``dominoai`` command with ``argv`` (default: ``sys.argv[1:]``);
    return the exit code: 0 done, 2 bad input (one line on stderr)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args)
    except _ParserExit as e:
        return e.status
    except UsageError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `dominoai replay x | head`): stop quietly
        try:
            sys.stdout = open(__import__("os").devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
