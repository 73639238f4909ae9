"""The ``dominoai tune`` subcommand: its parser (:func:`add_parser`) and the
command (:func:`cmd_tune`), which runs :func:`~dominoai.tune.tune` and
prints the summary; bad input is one line (exit code 2).

Importing this module loads neither optuna nor the bots: the study is
imported when the command runs, so that ``dominoai --help`` stays light.
The ``dominoai bots`` command is the bots package's
(:mod:`dominoai.bots.command`); its names are still importable from here.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from .._cli_support import int_at_least, presets_help, usage_error

__all__ = ["add_parser", "cmd_tune", "resume_hint"]

#: names of the ``bots`` command, importable from here (loaded on first use)
_MOVED = {"cmd_bots": "bots.command", "bots_text": "bots.command", "bot_params_text": "bots.command"}


def __getattr__(name: str):
    """A name of the ``bots`` command, imported on first use."""
    if name in _MOVED:
        return getattr(import_module(f"..{_MOVED[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def add_parser(sub) -> None:
    """Add the ``tune`` subcommand to ``sub`` (the command's subparsers)."""
    tu = sub.add_parser("tune", help="tune a bot's parameters against a pool (Optuna study, resumable)",
                        description="Search a bot's declared parameter ranges for the setting that "
                                    "scores most points per hand against the opponents, then "
                                    "validate the best against the defaults on fresh deals.")
    tu.add_argument("--variant", default="draw", metavar="NAME", help=f"a preset (default draw): {presets_help()}")
    tu.add_argument("--players", type=int_at_least(2), metavar="N", help="players (default: the preset's)")
    tu.add_argument("--bot", default="insane", metavar="NAME", help="the bot to tune (default insane)")
    tu.add_argument("--opponents", default="hard", metavar="SPECS",
                    help="the opponent pool, comma-separated specs (default hard)")
    tu.add_argument("--trials", type=int, default=60, metavar="N", help="trials to finish in the study (default 60)")
    tu.add_argument("--hands", type=int, default=400, metavar="N", help="deals per trial and opponent (default 400)")
    tu.add_argument("--chunk", type=int, metavar="N", help="deals per pruning step (default: hands/4)")
    tu.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes per tournament (-1: every "
                                                                     "core; at most the cores, with a note; default 1)")
    tu.add_argument("--seed", type=int, default=0, metavar="S", help="the root seed of deals and sampler (default 0)")
    tu.add_argument("--study", metavar="FILE", help="the study file (SQLite, .db); with --storage, the study's name "
                                                    "in it (default dominoai-tune); rerun the command to resume. "
                                                    "Without --study or --storage the study is kept in memory: "
                                                    "nothing is saved, nothing can be resumed")
    tu.add_argument("--storage", metavar="URL",
                    help="where the study lives, shared by every worker given it: sqlite:///FILE.db, "
                         "postgresql://USER@HOST/DB or journal:FILE (docs/cluster.md)")
    tu.add_argument("--enqueue", action="append", default=[], metavar="SPEC",
                    help="a setting to try first, e.g. insane:worlds=200 (repeat; queued once per study)")
    tu.add_argument("--heartbeat", type=float, default=60.0, metavar="SECONDS",
                    help="seconds between a worker's signs of life; a trial silent for three is "
                         "failed and queued again (default 60)")
    tu.add_argument("--backend", choices=("dask", "ray"), help="play each trial's games on a cluster")
    tu.add_argument("--scheduler", metavar="ADDRESS",
                    help="the cluster's address (Dask: tcp://host:8786; Ray: host:6379)")
    tu.add_argument("--space", default="", metavar="RANGES", help="ranges that narrow or override the declared ones, "
                                               "e.g. 'worlds=50..1600:log, rollouts=1..4, "
                                               "rollout_policy=random|hard'; a bare name (hard_prior, "
                                               "hard_void) adds a parameter searched only when named, "
                                               "with its declared range")
    tu.add_argument("--fix", action="append", default=[], metavar="NAME=VALUE",
                    help="freeze a parameter (repeat, or comma-separate)")
    tu.add_argument("--max-ms", type=float, metavar="MS",
                    help="median CPU ms per decision above which a setting is infeasible")
    tu.add_argument("--top", type=int, default=3, metavar="N",
                    help="best trials replayed against the defaults (default 3)")
    tu.add_argument("--validate-hands", type=int, default=None, metavar="N",
                    help="fresh deals of the validation per candidate (default: 10 x --hands, at most "
                         "4000; 0 skips it)")
    tu.add_argument("--out", metavar="FILE", help="the trials table (.csv or .parquet; default beside the study)")
    tu.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                    help="progress bar on stderr (default on)")
    tu.set_defaults(func=cmd_tune)


def resume_hint(args) -> str:
    """The line ``dominoai tune`` prints on stderr when it is interrupted:
    the exact command that resumes the study (the same command: a rerun
    with the same ``--study`` goes on from the trials finished), or, for a
    study kept in memory, that nothing is left to resume."""
    if not args.study and not getattr(args, "storage", None):
        return ("dominoai: interrupted; the study was kept in memory (no --study), "
                "so there is nothing to resume")
    command = getattr(args, "command", None) or "the same command"
    where = args.study if not getattr(args, "storage", None) else f"{args.study or 'dominoai-tune'} in {args.storage}"
    return f"dominoai: interrupted; resume the study {where} with: {command}"


def cmd_tune(args) -> int:
    """Run :func:`~dominoai.tune.tune` from parsed arguments; print the
    summary. Ctrl-C (or SIGTERM) prints :func:`resume_hint` and returns 130.

    :raises UsageError: bad input (the library's ``ValueError``, its
        argument named as the option).
    """
    try:
        return _run(args)
    except ValueError as e:
        raise usage_error(e) from None


def _run(args) -> int:
    """The study of ``args`` and its report (:func:`cmd_tune`)."""
    from .study import tune
    try:
        res = tune(args.variant, args.bot, args.opponents, trials=args.trials, hands=args.hands,
                   chunk=args.chunk, jobs=args.jobs, seed=args.seed, study=args.study,
                   space=args.space, fix=args.fix, max_ms=args.max_ms, top=args.top,
                   validate_hands=args.validate_hands, players=args.players, out=args.out,
                   progress=args.progress, storage=args.storage, enqueue=args.enqueue,
                   heartbeat=args.heartbeat, backend=args.backend, scheduler=args.scheduler)
    except KeyboardInterrupt:
        sys.stdout.flush()
        sys.stderr.write(resume_hint(args) + "\n")
        return 130
    print(res.summary())
    if res.trials_path is not None:
        print(f"trials: {res.trials_path}")
    if getattr(args, "storage", None):
        print(f"study: {args.study or 'dominoai-tune'} in {args.storage} (optuna-dashboard can open it)")
    elif res.study_path is not None:
        print(f"study: {res.study_path} (optuna-dashboard can open it)")
    sys.stdout.flush()
    return 0
