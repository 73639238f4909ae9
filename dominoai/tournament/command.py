"""The ``dominoai tournament`` and ``dominoai summary`` subcommands: bots
against bots on duplicate deals (:func:`dominoai.tournament.run_tournament`),
and a saved tournament's table again (:func:`dominoai.tournament.load_results`).

Every input is checked, each refusal one line, before any kernel is
compiled or any file written. Importing this module loads neither numba nor
pandas: they are imported when a command runs, so that ``dominoai --help``
stays light.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .._cli_support import PROG, UsageError, int_at_least, presets_help, usage_error
from .._files import nearest_existing

__all__ = ["add_parser", "cmd_tournament", "cmd_summary", "holds_run"]


def add_parser(sub) -> None:
    """Add the ``tournament`` and ``summary`` subcommands to ``sub`` (the command's subparsers)."""
    t = sub.add_parser("tournament", help="bots against bots on duplicate deals, in parallel",
                       description="Play every pairing of the bots on the same deals, each deal in "
                                   "every seat rotation; print win rates, points per hand with "
                                   "paired intervals and ratings; write the hands table.")
    t.add_argument("--variant", default="draw", metavar="NAME",
                   help=f"a preset (default draw): {presets_help()}")
    t.add_argument("--players", type=int_at_least(2), metavar="N",
                   help="number of players (default: the preset's)")
    t.add_argument("--bots", default="easy,medium,hard", metavar="SPECS",
                   help="comma-separated bot specs, a bot's parameters after ':' joined by ',' or '+' "
                        "(easy,insane:worlds=400,exact=0; default easy,medium,hard)")
    mode = t.add_mutually_exclusive_group()
    mode.add_argument("--hands", type=int_at_least(1), metavar="N",
                      help="deals per pairing, each played as one hand in every seat rotation (default 200)")
    mode.add_argument("--matches", type=int_at_least(1), metavar="N",
                      help="whole matches to the target per pairing instead of single hands")
    t.add_argument("--target", type=int_at_least(1), metavar="N",
                   help="match target instead of the preset's (with --matches)")
    t.add_argument("--pairs", action="store_true", help="four players in two pairs (e.g. express)")
    t.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="worker processes (-1: every core; at most the cores, with a note; "
                        "default 1)")
    t.add_argument("--seed", type=int_at_least(0), default=0, metavar="S",
                   help="root seed of every deal and bot (default 0)")
    t.add_argument("--out", metavar="FILE",
                   help="results file, .parquet or .csv (parts are written beside it as they "
                        "finish); an existing file is refused unless --overwrite or --resume")
    t.add_argument("--overwrite", action="store_true",
                   help="replace an existing --out file (and its .matches table) when the run ends")
    t.add_argument("--records", metavar="DIR", help="also write the JSON record of every match here")
    t.add_argument("--analysis", action="store_true",
                   help="with --records: store each searched decision's move values (insane) in the records")
    t.add_argument("--resume", action="store_true", help="continue an interrupted run of the same --out")
    t.add_argument("--backend", choices=("dask", "ray"), help="run on a cluster through joblib")
    t.add_argument("--scheduler", metavar="ADDRESS", help="the cluster scheduler (tcp://host:8786)")
    t.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                   help="progress bar on stderr (default on)")
    t.set_defaults(func=cmd_tournament)

    sm = sub.add_parser("summary", help="print a saved tournament's pairings and ratings again",
                        description="Print the pairings (win rates, points per hand with paired "
                                    "intervals) and ratings of a results file written by 'dominoai "
                                    "tournament --out', as the tournament printed them at its end.")
    sm.add_argument("results", metavar="RESULTS", help="a results file (.parquet or .csv)")
    sm.set_defaults(func=cmd_summary)


def cmd_tournament(args) -> int:
    """``dominoai tournament``: check every input, play the tournament,
    print its summary (and where its results are)."""
    from ..bots import make_bot
    from ..bots.spec import split_bot_specs
    from .run import BotError, run_tournament

    items = [x.strip() for x in args.bots.split(",")]
    if any(not x or x.endswith(":") for x in items):
        raise UsageError(f"--bots has an empty spec or a ':' with no parameters (got {args.bots!r})")
    bots = split_bot_specs(args.bots)
    if args.target is not None and not args.matches:
        raise UsageError("--target sets the match target, so it needs --matches "
                         "(--hands plays single hands)")
    if len(bots) < 2:
        raise UsageError(f"--bots needs at least two bot specs (got {args.bots!r})")
    overrides = {}
    if args.target is not None:
        overrides["target"] = args.target
    if args.pairs:
        overrides["partnerships"] = True
    if args.scheduler and not args.backend:
        raise UsageError("--scheduler goes with --backend dask (or ray)")
    if args.analysis and not args.records:
        raise UsageError("--analysis stores the move values in the records: give --records DIR too")
    if args.records:
        # checked now, made by the run once every input has passed (a refused
        # command leaves no folder behind)
        if os.path.exists(args.records) and not os.path.isdir(args.records):
            raise UsageError(f"--records {args.records}: exists and is not a directory")
        up = nearest_existing(args.records)
        if not up.is_dir():
            raise UsageError(f"--records {args.records}: {up} is a file, not a folder")
        if not os.access(up, os.W_OK | os.X_OK):
            raise UsageError(f"--records {args.records}: cannot write in {up}")
    if args.out is not None:  # a results file is named .parquet or .csv: one line before anything
        if not args.out.strip():
            raise UsageError("--out: give the results file's name (.parquet or .csv)")

        from .storage import results_format
        try:
            results_format(Path(args.out))
        except ValueError:
            raise UsageError(f"--out {args.out}: the results file must end in .parquet or .csv "
                             "(.pq, .csv.gz)") from None
        # its folder is made later if missing; under a file it cannot be: one line now
        up = nearest_existing(os.path.dirname(os.path.abspath(args.out)))
        if not up.is_dir():
            raise UsageError(f"--out {args.out}: {up} is a file, not a folder")
        _refuse_to_replace(args)
    hands = args.hands if args.hands is not None else (None if args.matches else 200)
    for b in bots:  # an unknown bot or parameter is one line before any compiling
        try:
            make_bot(b, 0)
        except (ValueError, TypeError) as e:
            raise usage_error(e) from None
    rules = _tournament_rules(args, overrides)
    _note_idle(args, bots, rules)
    if args.resume and args.out and not holds_run(args.out):
        # a mistyped --out would otherwise start over without a word
        print(f"{PROG}: note: nothing to resume at --out {args.out} (no such file, and no "
              f"{os.path.basename(args.out)}.parts/ beside it): playing the whole tournament", file=sys.stderr)
    # run_tournament compiles the kernels (with the first-run message) once
    # every input has passed, before the workers start
    try:
        res = run_tournament(args.variant, bots, players=args.players, hands=hands or 1,
                             matches=args.matches, jobs=args.jobs, seed=args.seed, out=args.out,
                             records=args.records, resume=args.resume, backend=args.backend,
                             scheduler=args.scheduler, progress=args.progress, analysis=args.analysis,
                             command=args.command, **overrides)
    except BotError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        # name the path the user gave (the results' parts live beside --out)
        name = str(e.filename or "")
        if args.out and name and (name.startswith(str(args.out)) or str(args.out).startswith(name)):
            name = f"--out {args.out}"
        elif args.records and name.startswith(str(args.records)):
            name = f"--records {args.records}"
        raise UsageError(f"{name}: {e.strerror or e}" if name else str(e)) from None
    except (ValueError, TypeError, ImportError) as e:
        raise usage_error(e) from None
    print(res.summary())
    if args.out:
        print(f"results: {args.out}")
    return 0


def _refuse_to_replace(args) -> None:
    """Refuse (one line) a run whose ``--out`` file, or the matches table
    beside it, exists, unless ``--overwrite`` (replace it) or ``--resume``
    (continue or read back that run) is given: a rerun loses no results by
    accident."""
    from .storage import matches_path
    if args.overwrite and args.resume:
        raise UsageError("--resume continues the run of --out and --overwrite replaces it: give one of them")
    if args.overwrite or args.resume:
        return
    out = Path(args.out)
    for f in (out, matches_path(out)):
        if f.exists() and not f.is_dir():   # a folder is refused as one (TournamentSpec)
            raise UsageError(f"--out {args.out}: {f} exists; give --overwrite to replace it, "
                             "--resume to continue its run, or another --out")


def cmd_summary(args) -> int:
    """``dominoai summary RESULTS``: the table the tournament printed at its
    end (:meth:`TournamentResult.summary`), and the command that made it."""
    from .storage import load_results
    if not os.path.exists(args.results):
        raise UsageError(f"no such results file: {args.results}")
    if os.path.isdir(args.results):
        raise UsageError(f"{args.results} is a folder, not a results file (.parquet or .csv)")
    try:
        res = load_results(args.results)
        if not len(res.hands):
            raise ValueError(f"{args.results} holds no hands")
        text = res.summary()
    except OSError as e:
        raise UsageError(f"cannot read {args.results}: {e.strerror or e}") from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    except (KeyError, IndexError, TypeError) as e:   # columns there, contents not a tournament's
        raise UsageError(f"{args.results} is not a dominoai results file "
                         f"({type(e).__name__}: {e})") from None
    print(text)
    command = res.provenance.get("command")
    if command:
        print(f"made by: {command}")
    return 0


def _tournament_rules(args, overrides: dict):
    """The tournament's rules from ``--variant``, ``--players`` and the
    overrides, or None where they are bad (:func:`run_tournament` reports
    that, in one line)."""
    from ..rules import get_rules
    try:
        return get_rules(args.variant, **({} if args.players is None else {"players": args.players}),
                         **overrides)
    except (ValueError, TypeError):
        return None


def _note_idle(args, bots, rules) -> None:
    """One line on stderr per bot spec that names a parameter which cannot
    change its play under the tournament's rules (``idle_named``: e.g.
    ``insane:hard_prior=0.5`` in Draw). A note, not an error: the bot plays
    as without it. Bad rules (``rules`` None) are left to
    :func:`run_tournament`."""
    from ..bots.command import refuse_missing_model
    from .schedule import idle_named
    if rules is None:
        return
    specs = [x for b in bots for x in (b if isinstance(b, (tuple, list)) else (b,))]
    notes = []
    for spec in dict.fromkeys(specs):
        refuse_missing_model(spec, rules)
        idle = idle_named(spec, rules)
        if idle:
            why = "; ".join(f"{k} {r}" for k, r in idle.items())
            notes.append(f"dominoai: note: bot {spec!r} plays as without {', '.join(idle)} "
                         f"under {args.variant}: {why}")
    for note in notes:     # only once every bot can play: a refused run prints its refusal alone
        print(note, file=sys.stderr)


def holds_run(out: str) -> bool:
    """Whether ``out`` holds a run to resume: a file, a folder with
    something in it (``train``), or a tournament's ``<out>.parts/``."""
    from .storage import parts_dir

    path = Path(out)
    return path.is_file() or (path.is_dir() and any(path.iterdir())) or parts_dir(path).is_dir()
