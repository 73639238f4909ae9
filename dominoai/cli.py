"""The ``dominoai`` command line: a thin argparse front end over the library.

Subcommands::

    dominoai replay FILE [--json]
    dominoai simulate --variant NAME [--players N] [--hands N] [--seed S]
    dominoai play --variant NAME --opponents LEVEL [--continue]
    dominoai tournament --variant NAME --bots A,B,... [--hands N | --matches N] [--jobs N] [--out F]
    dominoai summary RESULTS
    dominoai plot RESULTS --out FIG
    dominoai render RECORD --hand H --move M --out SVG [--seat N]
    dominoai view RECORD|DIR --out HTML [--seat N]
    dominoai tune --variant NAME --bot NAME --opponents A,B --trials N --hands N --study F.db
                  [--storage URL --study NAME] [--backend dask|ray --scheduler ADDRESS]
    dominoai bots [NAME]
    dominoai train --variant NAME [--players N] [--kind policy|value] --deals N --epochs E --out DIR
                   [--name NAME] [--jobs N] [--resume]
    dominoai train --variant NAME [--players N] --kind ppo [--init MODEL] --iterations N --out DIR
                   [--name NAME] [--resume]
    dominoai play [--variant NAME] [--players N] [--opponents LEVEL] [--seat N]
                  [--seed S] [--target N] [--pairs] [--continue] [--stats]
    dominoai serve [--host 127.0.0.1] [--port 8000] [--db PATH] [--export DIR]
                   [--origin URL] [--trusted-proxy ADDR]
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

from .errors import InputError

__all__ = ["main", "build_parser"]

PROG = "dominoai"
#: names that moved to the library, still importable from here (loaded on first use)
_MOVED = {"split_bot_specs": "bots.spec", "join_spec_params": "bots.spec", "run_simulation": "simulate",
          "SIM_CHUNK": "simulate"}


def __getattr__(name: str):
    if name in _MOVED:
        from importlib import import_module
        return getattr(import_module(f".{_MOVED[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UsageError(Exception):
    """Bad input: reported as one ``dominoai: error:`` line, exit code 2."""


def _flag(field: str) -> str:
    """The option of a library argument: ``max_ms`` -> ``--max-ms``."""
    return "--" + field.replace("_", "-")


def _usage(e: Exception, **flags: str) -> UsageError:
    """The one-line error of a library exception; an :class:`InputError`
    names its argument as the option (``flags``: options not named after
    the argument, e.g. ``resume="--continue"``)."""
    if isinstance(e, InputError):
        return UsageError(e.worded(lambda f: flags.get(f) or _flag(f)))
    return UsageError(str(e))


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


def _int_at_least(lo: int, hi: int | None = None):
    """An argparse type: an integer of at least ``lo`` (and at most ``hi``
    when given; argparse names the option: ``argument --hands: must be at
    least 1 (got -3)``)."""
    def conv(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer (got {text!r})") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo} (got {v})")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi} (got {v})")
        return v
    return conv


def _presets() -> str:
    """The preset names, for the help (the rules load numpy: not on import)."""
    from .rules import preset_names
    return ", ".join(preset_names())


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dominoai`` command."""
    p = _Parser(prog=PROG, description="dominoai: imperfect-information dominoes toolkit.")
    p.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in (_add_replay, _add_render, _add_view, _add_simulate, _add_play, _add_serve, _add_tournament,
                _add_summary, _add_plot, _add_tune, _add_bots, _add_train):
        add(sub)
    return p


def _add_replay(sub) -> None:
    """The ``replay`` subcommand."""
    r = sub.add_parser("replay", help="check a game record against the rules and show its result",
                       description="Replay a dominoai.record/1 file, checking every move; "
                                   "'-' reads the record from standard input.")
    r.add_argument("file", metavar="FILE", help="record file (JSON), or - for standard input")
    r.add_argument("--json", action="store_true",
                   help="print the result as one JSON object (docs/records.md) instead of a summary")
    r.set_defaults(func=_cmd_replay)


def _add_render(sub) -> None:
    """The ``render`` subcommand."""
    rd = sub.add_parser("render", help="draw one position of a record as SVG",
                        description="Draw hand H of a record after its first M moves as SVG. Hands and "
                                    "moves count from 1, as the replay numbers them (move 0: the deal).")
    rd.add_argument("file", metavar="RECORD")
    rd.add_argument("--hand", type=_int_at_least(1), default=1, help="hand number, 1-based (default 1)")
    rd.add_argument("--move", type=_int_at_least(0), default=0,
                    help="record moves played, 1-based as the replay counts them; 0 = the deal (default)")
    rd.add_argument("--seat", type=_int_at_least(0), help="that seat's view (default: all face up)")
    rd.add_argument("--out", required=True, metavar="SVG")
    rd.set_defaults(func=_cmd_render)


def _add_view(sub) -> None:
    """The ``view`` subcommand."""
    vw = sub.add_parser("view", help="write a self-contained HTML replay viewer of a record or a folder",
                        description="Write a self-contained HTML page stepping through a record; for a "
                                    "folder, one page per *.json record beside OUT and OUT as their index.")
    vw.add_argument("path", metavar="RECORD_OR_DIR")
    vw.add_argument("--seat", type=_int_at_least(0), help="that seat's view (default: all face up)")
    vw.add_argument("--out", required=True, metavar="HTML")
    vw.set_defaults(func=_cmd_view)


def _add_simulate(sub) -> None:
    """The ``simulate`` subcommand."""
    s = sub.add_parser("simulate", help="random playouts: outcome statistics of a variant",
                       description="Play random first hands (random deals, random legal moves) "
                                   "with the numba engine and print outcome statistics.")
    s.add_argument("--variant", required=True, metavar="NAME",
                   help=f"a preset: {_presets()}")
    s.add_argument("--players", type=_int_at_least(2), metavar="N",
                   help="number of players (default: the preset's)")
    s.add_argument("--hands", type=_int_at_least(1), default=100_000, metavar="N",
                   help="hands to play (default 100000)")
    s.add_argument("--seed", type=_int_at_least(0), metavar="S",
                   help="random seed (default: fresh entropy, printed)")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: for long runs on a terminal)")
    s.set_defaults(func=_cmd_simulate)


def _add_play(sub) -> None:
    """The ``play`` subcommand."""
    g = sub.add_parser("play", help="play a match against the bots in the terminal",
                       description="Play a match against the bots: the table is shown before each of "
                                   "your moves; answer with a move's number or a tile like 6:4 (help "
                                   "lists the commands). The match is saved after every move; "
                                   "--continue resumes it. Statistics per variant and opponent level "
                                   "are kept in the user data directory ($DOMINOAI_DATA_DIR overrides).")
    g.add_argument("--variant", metavar="NAME",
                   help=f"a preset (default draw): {_presets()}")
    g.add_argument("--players", type=_int_at_least(2), metavar="N",
                   help="number of players (default: the preset's)")
    g.add_argument("--opponents", metavar="LEVEL",
                   help="the bots' level: easy, medium, hard, insane, or any bot spec "
                        "(default medium); in pairs your partner plays at least hard")
    g.add_argument("--seat", type=_int_at_least(0), metavar="N",
                   help="your seat (default 0)")
    g.add_argument("--seed", type=_int_at_least(0), metavar="S",
                   help="random seed for the deals and the bots (default: fresh)")
    g.add_argument("--target", type=_int_at_least(1), metavar="N",
                   help="play to N points instead of the preset's target")
    g.add_argument("--pairs", action="store_true",
                   help="four players in two pairs (e.g. express); kozel always is")
    g.add_argument("--continue", dest="resume", action="store_true",
                   help="continue the saved match (its settings are kept)")
    g.add_argument("--stats", action="store_true",
                   help="show your statistics and exit")
    g.add_argument("--analysis", action="store_true",
                   help="store the bots' move values of each decision (insane) in the saved match; "
                        "the finished match is kept for 'dominoai view'")
    g.set_defaults(func=_cmd_play)


def _add_serve(sub) -> None:
    """The ``serve`` subcommand."""
    g = sub.add_parser(
        "serve", help="serve tables for friends and bots over websockets (needs dominoai[serve])",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Serve tables of dominoes: guests open tables for friends (by code or in the lobby), "
                    "fill empty seats with bots, or play alone against bots. Every finished hand is kept "
                    "as a dominoai.record/1 record in the database; --export writes them out.",
        epilog="Friends on your network: the server listens on 127.0.0.1 (this computer only) unless\n"
               "--host says otherwise. Start it with --host 0.0.0.0 (every interface) and give your\n"
               "friends http://YOUR-IP:PORT/ (your address on the network, e.g. from `ip addr` or\n"
               "`ipconfig`); allow the port in your firewall. Anyone who can reach the port can open\n"
               "tables; a table is joined by its code.")
    g.add_argument("--host", default="127.0.0.1", metavar="HOST",
                   help="address to listen on (default 127.0.0.1: this computer only; 0.0.0.0: every interface)")
    g.add_argument("--port", type=_int_at_least(0, 65535), default=8000, metavar="N",
                   help="port to listen on (default 8000; 0: a free port, printed)")
    g.add_argument("--db", metavar="PATH",
                   help="the SQLite database of tables, records and stats (default: serve.sqlite3 in the "
                        "user data directory; $DOMINOAI_DATA_DIR overrides)")
    g.add_argument("--export", metavar="DIR",
                   help="write the records of the finished hands to DIR (one file per table, for "
                        "'dominoai replay' and 'dominoai view') and exit")
    g.add_argument("--workers", type=_int_at_least(1), metavar="N",
                   help="processes the bots think in (default: the CPU count)")
    g.add_argument("--origin", action="append", default=[], metavar="URL",
                   help="an origin besides the server's own whose pages may open a websocket, e.g. "
                        "https://dominoes.example.org when a proxy serves the page there (repeatable)")
    g.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                   help="the address or network of a proxy in front of the server: its X-Forwarded-For "
                        "names the client (default: none, the header is ignored; repeatable)")
    g.set_defaults(func=_cmd_serve)


def _add_tournament(sub) -> None:
    """The ``tournament`` subcommand."""
    t = sub.add_parser("tournament", help="bots against bots on duplicate deals, in parallel",
                       description="Play every pairing of the bots on the same deals, each deal in "
                                   "every seat rotation; print win rates, points per hand with "
                                   "paired intervals and ratings; write the hands table.")
    t.add_argument("--variant", default="draw", metavar="NAME",
                   help=f"a preset (default draw): {_presets()}")
    t.add_argument("--players", type=_int_at_least(2), metavar="N",
                   help="number of players (default: the preset's)")
    t.add_argument("--bots", default="easy,medium,hard", metavar="SPECS",
                   help="comma-separated bot specs, a bot's parameters after ':' joined by ',' or '+' "
                        "(easy,insane:worlds=400,exact=0; default easy,medium,hard)")
    mode = t.add_mutually_exclusive_group()
    mode.add_argument("--hands", type=_int_at_least(1), metavar="N",
                      help="deals per pairing, each played as one hand in every seat rotation (default 200)")
    mode.add_argument("--matches", type=_int_at_least(1), metavar="N",
                      help="whole matches to the target per pairing instead of single hands")
    t.add_argument("--target", type=_int_at_least(1), metavar="N",
                   help="match target instead of the preset's (with --matches)")
    t.add_argument("--pairs", action="store_true", help="four players in two pairs (e.g. express)")
    t.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="worker processes (-1: every core; at most the cores, with a note; "
                        "default 1)")
    t.add_argument("--seed", type=_int_at_least(0), default=0, metavar="S",
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
    t.set_defaults(func=_cmd_tournament)


def _add_summary(sub) -> None:
    """The ``summary`` subcommand."""
    sm = sub.add_parser("summary", help="print a saved tournament's pairings and ratings again",
                        description="Print the pairings (win rates, points per hand with paired "
                                    "intervals) and ratings of a results file written by 'dominoai "
                                    "tournament --out', as the tournament printed them at its end.")
    sm.add_argument("results", metavar="RESULTS", help="a results file (.parquet or .csv)")
    sm.set_defaults(func=_cmd_summary)


def _add_plot(sub) -> None:
    """The ``plot`` subcommand."""
    pl = sub.add_parser("plot", help="plot a tournament's results or a tuning study",
                        description="Win-rate matrix, ratings and points per hand of a results file; "
                                    "for a study (.db) of 'dominoai tune': optimisation history, "
                                    "parameter importance, strength against time per decision.")
    pl.add_argument("results", metavar="RESULTS",
                    help="a results file written by 'dominoai tournament', or a study .db of 'dominoai tune'")
    pl.add_argument("--out", required=True, metavar="FIG", help="the figure (.png, .pdf or .svg)")
    pl.set_defaults(func=_cmd_plot)


def _add_tune(sub) -> None:
    """The ``tune`` subcommand."""
    tu = sub.add_parser("tune", help="tune a bot's parameters against a pool (Optuna study, resumable)",
                        description="Search a bot's declared parameter ranges for the setting that "
                                    "scores most points per hand against the opponents, then "
                                    "validate the best against the defaults on fresh deals.")
    tu.add_argument("--variant", default="draw", help="the preset (default draw)")
    tu.add_argument("--players", type=_int_at_least(2), help="players (default: the preset's)")
    tu.add_argument("--bot", default="insane", help="the bot to tune (default insane)")
    tu.add_argument("--opponents", default="hard", help="the opponent pool, comma-separated specs (default hard)")
    tu.add_argument("--trials", type=int, default=60, help="trials to finish in the study (default 60)")
    tu.add_argument("--hands", type=int, default=400, help="deals per trial and opponent (default 400)")
    tu.add_argument("--chunk", type=int, help="deals per pruning step (default: hands/4)")
    tu.add_argument("--jobs", type=int, default=1, help="worker processes per tournament (-1: every "
                                                       "core; at most the cores, with a note)")
    tu.add_argument("--seed", type=int, default=0, help="the root seed of deals and sampler (default 0)")
    tu.add_argument("--study", help="the study file (SQLite, .db); with --storage, the study's name in it "
                                    "(default dominoai-tune); rerun the command to resume")
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
    tu.add_argument("--space", default="", help="ranges that narrow or override the declared ones, "
                                               "e.g. 'worlds=50..1600:log, rollouts=1..4, "
                                               "rollout_policy=random|hard'; a bare name (hard_prior, "
                                               "hard_void) adds a parameter searched only when named, "
                                               "with its declared range")
    tu.add_argument("--fix", action="append", default=[], metavar="NAME=VALUE",
                    help="freeze a parameter (repeat, or comma-separate)")
    tu.add_argument("--max-ms", type=float, help="median CPU ms per decision above which a setting is infeasible")
    tu.add_argument("--top", type=int, default=3, help="best trials replayed against the defaults (default 3)")
    tu.add_argument("--validate-hands", type=int, default=None,
                    help="fresh deals of the validation per candidate (default: 10 x --hands, at most "
                         "4000; 0 skips it)")
    tu.add_argument("--out", help="the trials table (.csv or .parquet; default beside the study)")
    tu.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                    help="progress bar on stderr (default on)")
    tu.set_defaults(func=_cmd_tune)


def _add_bots(sub) -> None:
    """The ``bots`` subcommand."""
    bo = sub.add_parser("bots", help="list the bots, or one bot's parameters",
                        description="Every registered bot, or a bot's parameters with default, "
                                    "tunable range and meaning.")
    bo.add_argument("name", nargs="?", help="a bot name")
    bo.set_defaults(func=_cmd_bots)


def _cmd_tune(args) -> int:
    from .tune.command import cmd_tune
    try:
        return cmd_tune(args)
    except ValueError as e:
        raise _usage(e) from None


def _cmd_bots(args) -> int:
    from .tune.command import cmd_bots
    try:
        return cmd_bots(args)
    except ValueError as e:
        raise _usage(e) from None


def _add_train(sub) -> None:
    """The ``train`` subcommand."""
    tr = sub.add_parser("train", help="train a policy or value network, or improve a policy by PPO "
                                      "(needs dominoai[learn])",
                        description="--kind policy: play the teacher against itself on --deals deals (each in "
                                    "every seat rotation), keep each decision (observation vector, legal ids, "
                                    "the chosen id, the hand's margin) as DIR/data.npz, then train a policy "
                                    "network to predict the teacher's move. --kind value: keep every world "
                                    "after a play of the teacher's games, valued by the exact solver where it "
                                    "solves and by rollouts elsewhere, as DIR/data.npz, then train a value "
                                    "network on it. --kind ppo: start from the policy --init and improve it "
                                    "by PPO on the batched env against a league (hard, the start and earlier "
                                    "checkpoints). Each writes DIR/model.npz (for neural:model=DIR/model.npz "
                                    "or insane's value_model), DIR/log.parquet and DIR/curve.png.")
    tr.add_argument("--variant", required=True, metavar="NAME", help=f"a preset: {_presets()}")
    tr.add_argument("--players", type=_int_at_least(2), metavar="N",
                    help="number of players (default: the preset's)")
    tr.add_argument("--kind", choices=tuple(_TRAIN_OPTIONS), default="policy",
                    help="policy: imitate --teacher's moves (default); value: a world's value; "
                         "ppo: improve the policy --init by PPO")
    tr.add_argument("--deals", type=_int_at_least(1), metavar="N",
                    help="policy, value: deals the teacher plays (default 2000)")
    tr.add_argument("--teacher", metavar="SPEC",
                    help="policy, value: the bot that plays the games (default: insane for a policy, "
                         "hard for a value)")
    tr.add_argument("--epochs", type=_int_at_least(1), metavar="E",
                    help="passes over the training rows (policy, value: in all, default 20, so a resumed run "
                         "trains those its checkpoint lacks; ppo: over each iteration's, default 4)")
    tr.add_argument("--hidden", metavar="SIZES",
                    help="policy, value: hidden layer sizes, comma-separated (default 128,128 for a policy, "
                         "64,32 for a value)")
    tr.add_argument("--batch", type=_int_at_least(1), metavar="N",
                    help="rows per training step (default: policy 512, value 256, ppo 1024)")
    tr.add_argument("--learning-rate", type=float, metavar="LR",
                    help="the optimizer's step (Adam, or AdamW with --weight-decay; default: policy and "
                         "value 0.001, ppo 0.0003)")
    tr.add_argument("--held-out", type=float, metavar="SHARE",
                    help="policy, value: share of the hands kept out of training to measure it (default 0.1)")
    tr.add_argument("--seed", type=_int_at_least(0), default=0, metavar="S",
                    help="seed of the deals (a policy's offset by 10000), the split and the weights; ppo: of "
                         "each iteration's games and the critic's start (default 0)")
    pol = tr.add_argument_group("policy")
    pol.add_argument("--action-features", action="store_true", default=None,
                     help="add the action-feature block: a learned weighting of what each legal move scores, "
                          "sheds and leaves to the next seat (hard's features)")
    pol.add_argument("--weight-decay", type=float, metavar="WD",
                     help="AdamW's weight decay (default 0: plain Adam)")
    pol.add_argument("--keep-best", action="store_true", default=None,
                     help="keep the weights of the epoch with the lowest held-out loss (needs --held-out above 0)")
    pol.add_argument("--imitate", choices=("choice", "values"),
                     help="what the network learns: choice, the id the teacher chose (default); values, "
                          "the softmax of the teacher's move values over --temperature")
    pol.add_argument("--temperature", type=float, metavar="T",
                     help="--imitate values: the softmax's temperature, in the values' unit (points; default 1)")
    val = tr.add_argument_group("value")
    val.add_argument("--rollouts", type=_int_at_least(1), metavar="N",
                     help="rollouts per world not solved exactly (default 8)")
    val.add_argument("--rollout-policy", choices=("random", "medium", "hard"),
                     help="the rollouts' policy (default: insane's in the preset)")
    val.add_argument("--exact", type=_int_at_least(0), metavar="N",
                     help="solve exactly when at most N tiles can still be played (default 12; 0: never)")
    val.add_argument("--max-nodes", type=_int_at_least(1), metavar="N",
                     help="the exact solve's node budget per world (default 20000; needs --exact above 0)")
    ppo = tr.add_argument_group("ppo")
    ppo.add_argument("--init", metavar="MODEL",
                     help="the policy to start from, a shipped name or a .npz file (default: the "
                          "preset's shipped policy)")
    ppo.add_argument("--iterations", type=_int_at_least(1), metavar="N",
                     help="rounds of play and update, in all (default 200; the first 5 train the critic "
                          "only)")
    ppo.add_argument("--num-envs", type=_int_at_least(1), metavar="N",
                     help="games played at once (default 256)")
    ppo.add_argument("--steps", type=_int_at_least(1), metavar="N",
                     help="the learner's decisions per game slot per iteration, and more until a hand has ended "
                          "(default 32)")
    ppo.add_argument("--hard-share", type=float, metavar="SHARE",
                     help="share of the games against hard; the rest against the start and earlier "
                          "checkpoints (default 0.5)")
    ppo.add_argument("--clip", type=float, metavar="EPS", help="the ratio's clip range (default 0.1)")
    ppo.add_argument("--kl", type=float, metavar="COEF",
                     help="weight of the KL divergence from the starting policy in the loss (default 0.02)")
    tr.add_argument("--jobs", type=int, metavar="N",
                    help="policy, value: processes playing the teacher (-1: every core; at most the cores, "
                         "with a note; default 1)")
    tr.add_argument("--backend", choices=("dask", "ray"),
                    help="policy, value: play the teacher on a cluster through joblib")
    tr.add_argument("--out", required=True, metavar="DIR", help="the run's folder")
    tr.add_argument("--name", metavar="NAME",
                    help="the model's name, as results record it beside its hash: letters, digits, '.', '_', "
                         "'+' and '-' (default: the --out folder's name)")
    tr.add_argument("--resume", action="store_true",
                    help="go on in DIR: reuse its dataset (policy, value) and continue from its checkpoint "
                         "(the same settings; a changed one is refused, named)")
    tr.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                    help="progress bars on stderr and, for policy and value, one line per epoch on stdout "
                         "(default on; --no-progress: only the closing line; the log is in DIR/log.parquet)")
    tr.set_defaults(func=_cmd_train)


_TEACHING = {"deals": 2000, "epochs": 20, "learning_rate": 1e-3, "held_out": 0.1, "jobs": 1, "backend": None}
#: each kind's own ``train`` options and their defaults (an option of another kind is refused)
_TRAIN_OPTIONS = {
    "policy": {**_TEACHING, "teacher": "insane", "hidden": "128,128", "batch": 512,
               "action_features": False, "weight_decay": 0.0, "keep_best": False, "imitate": "choice",
               "temperature": 1.0},
    "value": {**_TEACHING, "teacher": "hard", "hidden": "64,32", "batch": 256,
              "rollouts": 8, "rollout_policy": None, "exact": 12, "max_nodes": 20000},
    "ppo": {"init": None, "iterations": 200, "num_envs": 256, "steps": 32, "hard_share": 0.5, "epochs": 4,
            "batch": 1024, "learning_rate": 3e-4, "clip": 0.1, "kl": 0.02},
}


#: options of ``train`` that need another to act: (option, its condition on
#: the arguments, the refusal); checked on the options as given, before the
#: defaults are filled in
_TRAIN_NEEDS = (
    ("keep_best", lambda a: a.held_out is None or not a.held_out <= 0,
     "--keep-best picks the epoch by its held-out loss: it needs --held-out above 0"),
    ("max_nodes", lambda a: a.exact is None or a.exact > 0,
     "--max-nodes is the exact solve's budget: it needs --exact above 0"),
    ("temperature", lambda a: a.imitate == "values",
     "--temperature applies to --imitate values only; add --imitate values or drop --temperature"),
)

#: the characters of a model's name (results record it beside the hash)
_MODEL_NAME = r"[A-Za-z0-9][A-Za-z0-9._+-]*"


def _model_name(args) -> str:
    """The trained model's name: ``--name``, else the ``--out`` folder's
    name; a note on stderr when a shipped model has it (``neural:model=NAME``
    names the shipped one; a trained model is given by its file)."""
    import os
    import re

    given = args.name is not None
    name = args.name if given else os.path.basename(os.path.abspath(args.out))
    if not re.fullmatch(_MODEL_NAME, name):
        where = f"--name {name!r}" if given else f"the --out folder's name {name!r}"
        raise UsageError(f"{where} cannot name a model: use letters, digits, '.', '_', '+' and '-'"
                         + ("" if given else " (or give --name)"))
    from .nets.model import shipped_models
    if name in shipped_models():
        print(f"dominoai: note: a shipped model is also named {name!r}; results tell the two apart by their "
              f"hash only (give another --name to tell them apart by name)", file=sys.stderr)
    return name


def _train_usage(e: Exception) -> UsageError:
    """The one-line error of a ``train`` library exception, each setting it
    names written as its option (``preset`` as ``--variant``; a setting the
    command has no option for, as the library names it)."""
    options = {k for opts in _TRAIN_OPTIONS.values() for k in opts} | {"players", "seed", "name", "out"}
    flags = {"preset": "--variant", "rows": "the dataset's rows"}
    if isinstance(e, InputError):
        return UsageError(e.worded(lambda f: flags.get(f) or (_flag(f) if f in options else f)))
    return UsageError(str(e))


def _cmd_train(args) -> int:
    from .rules import get_rules, preset_names
    if args.variant not in preset_names():
        raise UsageError(f"unknown preset {args.variant!r}; presets are: {', '.join(preset_names())}")
    try:       # the tables' size, as the tournament takes it (the preset's count by default)
        args.players = get_rules(args.variant, **({} if args.players is None else {"players": args.players})).players
    except ValueError as e:
        raise UsageError(str(e)) from None
    if not args.out.strip():
        raise UsageError("--out must name the run's folder (got an empty name)")
    own = _TRAIN_OPTIONS[args.kind]
    for k in dict.fromkeys(k for opts in _TRAIN_OPTIONS.values() for k in opts):
        if k not in own and getattr(args, k) is not None:
            kinds = " or ".join(kind for kind, opts in _TRAIN_OPTIONS.items() if k in opts)
            raise UsageError(f"--{k.replace('_', '-')} is an option of --kind {kinds}, not of --kind {args.kind}")
    for k, ok, refusal in _TRAIN_NEEDS:
        if k in own and getattr(args, k) and not ok(args):
            raise UsageError(refusal)
    for k, v in own.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    with _cleared_if_empty(args.out):
        if args.kind == "ppo":
            return _cmd_train_ppo(args)
        return _cmd_train_teaching(args)


def _cleared_if_empty(out):
    """A context: when the body fails or is interrupted (Ctrl-C), remove the
    folders of ``out``'s path it made, if no file was written in them. A
    folder that existed before is never removed."""
    import contextlib
    import os
    import shutil
    from pathlib import Path

    from ._files import nearest_existing
    have = nearest_existing(out)
    target = Path(os.path.abspath(out))
    top = None          # the first folder of the path that does not exist yet
    if have != target:
        top = target
        while top.parent != have:
            top = top.parent

    @contextlib.contextmanager
    def ctx():
        try:
            yield
        except BaseException:
            if top is not None and top.is_dir() and all(p.is_dir() for p in top.rglob("*")):
                shutil.rmtree(top, ignore_errors=True)
            raise
    return ctx()


def _cmd_train_teaching(args) -> int:
    """``dominoai train --kind policy|value``: every option checked before
    anything is written."""
    import os

    policy = args.kind == "policy"
    try:
        hidden = tuple(int(x) for x in args.hidden.split(","))
        if not hidden or min(hidden) < 1:
            raise ValueError
    except ValueError:
        raise UsageError(f"--hidden must be positive integers joined by commas (got {args.hidden!r})") from None
    if not (args.learning_rate > 0 and args.learning_rate < float("inf")):
        raise UsageError(f"--learning-rate must be a positive finite number (got {args.learning_rate})")
    if not 0.0 <= args.held_out <= 0.9:
        raise UsageError(f"--held-out must be between 0 and 0.9 (got {args.held_out})")
    if policy and not (args.weight_decay >= 0 and args.weight_decay < float("inf")):
        raise UsageError(f"--weight-decay must be 0 or a positive number (got {args.weight_decay})")
    if policy and not (args.temperature > 0 and args.temperature < float("inf")):
        raise UsageError(f"--temperature must be a positive finite number (got {args.temperature})")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out} is a file, not a folder")
    from .bots import make_bot
    from .errors import check_jobs
    try:
        check_jobs(args.jobs)
        make_bot(args.teacher)
    except ValueError as e:
        raise _usage(e) from None
    from .rules import get_rules
    # e.g. a neural teacher without a model, or one trained at tables of another size
    _refuse_missing_model(args.teacher, get_rules(args.variant, players=args.players))
    try:
        import jax  # noqa: F401
        import optax  # noqa: F401
    except ImportError:
        raise UsageError("dominoai train needs jax and optax: pip install 'dominoai[learn]'") from None
    name = _model_name(args)
    common = dict(preset=args.variant, deals=args.deals, epochs=args.epochs, teacher=args.teacher, hidden=hidden,
                  batch=args.batch, learning_rate=args.learning_rate, held_out=args.held_out, seed=args.seed,
                  jobs=args.jobs, backend=args.backend, name=name, players=args.players)
    from .learn.runs import PolicyRunSpec, ValueRunSpec
    try:
        if policy:
            from .learn.imitation import run_policy as run
            spec = PolicyRunSpec(action_features=args.action_features, weight_decay=args.weight_decay,
                                 keep_best=args.keep_best, imitate=args.imitate, temperature=args.temperature,
                                 **common)
        else:
            from .learn.value import run_value as run
            spec = ValueRunSpec(rollouts=args.rollouts, rollout_policy=args.rollout_policy, exact=args.exact,
                                max_nodes=args.max_nodes, **common)
        res = run(spec, args.out, resume=args.resume, progress=args.progress)
    except ValueError as e:
        raise _train_usage(e) from None
    except OSError as e:
        raise UsageError(f"cannot write the run's files in {args.out}: {e.strerror or e}") from None
    from .play.display import plural
    last = res.log[-1]
    part = "held" if args.held_out > 0 else "train"     # without held-out hands: the training rows'
    where = "held-out" if part == "held" else "training-row"
    if policy:
        print(f"model: {os.path.join(args.out, 'model.npz')} ({res.model.ident}); "
              f"{where} accuracy {last[part + '_accuracy']:.3f}, loss {last[part + '_loss']:.3f} "
              f"after {plural(last['epoch'], 'epoch')}")
    else:
        print(f"model: {os.path.join(args.out, 'model.npz')} ({res.model.ident}); "
              f"{where} mean squared error {last[part + '_mse']:.3f} after {plural(last['epoch'], 'epoch')}")
    return 0


def _cmd_train_ppo(args) -> int:
    """``dominoai train --kind ppo``: every option checked before anything is written."""
    import math
    import os

    if not (args.learning_rate > 0 and math.isfinite(args.learning_rate)):
        raise UsageError(f"--learning-rate must be a positive finite number (got {args.learning_rate})")
    if not 0.0 <= args.hard_share <= 1.0:
        raise UsageError(f"--hard-share must be between 0 and 1 (got {args.hard_share})")
    if not 0.0 < args.clip < 1.0:
        raise UsageError(f"--clip must be above 0 and below 1 (got {args.clip})")
    if not (args.kl >= 0 and math.isfinite(args.kl)):
        raise UsageError(f"--kl must be 0 or a positive number (got {args.kl})")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out} is a file, not a folder")
    try:
        import jax  # noqa: F401
        import optax  # noqa: F401
    except ImportError:
        raise UsageError("dominoai train needs jax and optax: pip install 'dominoai[learn]'") from None
    from .nets.model import check_players, default_model_name, load_model
    from .learn.ppo import DEFAULTS
    from .learn.ppo import run_ppo as run
    from .learn.runs import PPORunSpec
    name = _model_name(args)
    try:
        init = args.init or default_model_name(args.variant, "policy")
        start = load_model(init, preset=args.variant, kind="policy")
        if start.has_action_features:
            raise UsageError(f"--init {init}: PPO trains policies without the action-feature block; "
                                 "give --init a policy trained without --action-features")
        try:
            check_players(start, args.players, hint=False)
        except ValueError as e:
            raise UsageError(f"--init {init}: {e}; give --init a policy trained with "
                             f"--players {args.players}") from None
        spec = PPORunSpec(preset=args.variant, init=init, name=name, players=args.players,
                          iterations=args.iterations, num_envs=args.num_envs, steps=args.steps,
                          hard_share=args.hard_share, epochs=args.epochs, batch=args.batch,
                          learning_rate=args.learning_rate, clip=args.clip, kl=args.kl, seed=args.seed)
        res = run(spec, args.out, resume=args.resume, progress=args.progress)
    except ValueError as e:
        raise _train_usage(e) from None
    except OSError as e:
        raise UsageError(f"cannot write the run's files in {args.out}: {e.strerror or e}") from None
    last = res.log[-1]
    evals = [e for e in res.log if e["eval_hard"] == e["eval_hard"]]
    tail = (f"; greedy margin {evals[-1]['eval_hard']:+.2f} against {'hard'}, "
            f"{evals[-1]['eval_init']:+.2f} against the start" if evals else "")
    print(f"model: {os.path.join(args.out, 'model.npz')} ({res.model.ident}); {last['iteration']} iterations, "
          f"{last['hands']} hands{tail}")
    warmup = DEFAULTS["value_warmup"]
    if args.iterations <= warmup:     # the run is kept (its critic goes on with --resume): a note, not a refusal
        print(f"dominoai: note: all {args.iterations} of --iterations are value warm-up (the first {warmup} train "
              f"the critic only): the model is the starting policy {init} unchanged; give --iterations above "
              f"{warmup} (with --resume, the run goes on from here)", file=sys.stderr)
    return 0


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


# ---------------------------------------------------------------- render, view
def _cmd_render(args) -> int:
    from .records import RecordError
    from .render.commands import render_command
    try:
        path = render_command(args.file, args.hand, args.move, args.out, args.seat)
    except (RecordError, InputError) as e:
        raise _usage(e) from None
    print(f"picture: {path}")
    return 0


def _cmd_view(args) -> int:
    from .records import RecordError
    from .render.commands import view_command
    try:
        paths = view_command(args.path, args.out, args.seat)
    except (RecordError, InputError) as e:
        raise _usage(e) from None
    more = len(paths) - 1
    print(f"page: {paths[-1]}" + (f" (the index of {more} record page{'s' if more != 1 else ''})" if more else ""))
    return 0


# ---------------------------------------------------------------- simulate
def _cmd_simulate(args) -> int:
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


# ---------------------------------------------------------------- play
def _cmd_play(args) -> int:
    from .play import PlayError, format_stats, load_stats, play_game, user_data_path

    if args.stats:
        try:
            stats = load_stats(user_data_path())
        except ValueError as e:
            raise UsageError(f"the stats file cannot be read: {e}") from None
        print("\n\n".join(format_stats(stats, v) for v in sorted(stats)) or "No statistics yet.")
        return 0
    overrides = {}
    if args.target is not None:
        overrides["target"] = args.target
    if args.pairs:
        overrides["partnerships"] = True
    try:
        return play_game(args.variant, args.players, args.opponents, seat=args.seat, seed=args.seed,
                         resume=args.resume, analysis=args.analysis, **overrides)
    except PlayError as e:
        raise _usage(e, resume="--continue") from None


# ---------------------------------------------------------------- serve
def _cmd_serve(args) -> int:
    import importlib.util
    from pathlib import Path

    from .serve import default_db, export, serve
    from .serve.store import StoreError, check_store
    db = Path(args.db) if args.db else default_db()
    try:
        check_store(db)
    except ValueError as e:
        raise UsageError(f"--db: {e}") from None
    if args.export:
        if not db.is_file():
            raise UsageError(f"--db: no server database at {db}")
        out = Path(args.export)
        if out.exists() and not out.is_dir():
            raise UsageError(f"--export: {out} exists and is not a folder")
        try:
            files = export(db, out)
        except OSError as e:
            why = e.strerror or str(e)
            where = e.filename if e.filename is not None else out
            raise UsageError(f"--export: cannot write the records to {out}: {why.lower()} ({where})") from None
        except ValueError as e:
            raise UsageError(f"--export: {e}") from None
        print(f"dominoai serve: {len(files)} record{'s' if len(files) != 1 else ''} written to {out}")
        return 0
    missing = [m for m in ("starlette", "uvicorn", "websockets") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(f"serve needs {', '.join(missing)}: pip install 'dominoai[serve]'")
    if db.exists() and not db.is_file():
        raise UsageError(f"--db: {db} is not a file")
    try:
        serve(args.host, args.port, db, workers=args.workers, origins=args.origin,
              trusted_proxies=args.trusted_proxy)
    except InputError as e:
        raise _usage(e, origins="--origin", trusted_proxies="--trusted-proxy") from None
    except StoreError as e:
        raise UsageError(f"--db: {e}") from None
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    except KeyboardInterrupt:
        pass
    return 0


# ---------------------------------------------------------------- tournament
def _cmd_tournament(args) -> int:
    import os

    from ._files import nearest_existing
    from .tournament import BotError, run_tournament

    from .bots.spec import split_bot_specs

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
        from pathlib import Path

        if not args.out.strip():
            raise UsageError("--out: give the results file's name (.parquet or .csv)")

        from .tournament.storage import results_format
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
    from .bots import make_bot
    for b in bots:  # an unknown bot or parameter is one line before any compiling
        try:
            make_bot(b, 0)
        except (ValueError, TypeError) as e:
            raise _usage(e) from None
    rules = _tournament_rules(args, overrides)
    _note_idle(args, bots, rules)
    if args.resume and args.out and not _holds_run(args.out):
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
        raise _usage(e) from None
    print(res.summary())
    if args.out:
        print(f"results: {args.out}")
    return 0


def _refuse_to_replace(args) -> None:
    """Refuse (one line) a run whose ``--out`` file, or the matches table
    beside it, exists, unless ``--overwrite`` (replace it) or ``--resume``
    (continue or read back that run) is given: a rerun loses no results by
    accident."""
    from pathlib import Path

    from .tournament.storage import matches_path
    if args.overwrite or args.resume:
        return
    out = Path(args.out)
    for f in (out, matches_path(out)):
        if f.exists():
            raise UsageError(f"--out {args.out}: {f} exists; give --overwrite to replace it, "
                             "--resume to continue its run, or another --out")


def _cmd_summary(args) -> int:
    """``dominoai summary RESULTS``: the table the tournament printed at its
    end (:meth:`TournamentResult.summary`), and the command that made it."""
    import os

    from .tournament import load_results
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
    from .rules import get_rules
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
    from .tournament.schedule import idle_named
    if rules is None:
        return
    specs = [x for b in bots for x in (b if isinstance(b, (tuple, list)) else (b,))]
    notes = []
    for spec in dict.fromkeys(specs):
        _refuse_missing_model(spec, rules)
        idle = idle_named(spec, rules)
        if idle:
            why = "; ".join(f"{k} {r}" for k, r in idle.items())
            notes.append(f"dominoai: note: bot {spec!r} plays as without {', '.join(idle)} "
                         f"under {args.variant}: {why}")
    for note in notes:     # only once every bot can play: a refused run prints its refusal alone
        print(note, file=sys.stderr)


def _refuse_missing_model(spec: str, rules) -> None:
    """Refuse (one line) a bot spec whose learned model cannot be loaded
    under ``rules`` (no model shipped for the preset, one of another preset
    or players), as :func:`run_tournament` would when it names the models."""
    from .bots import make_bot
    from .nets.model import ModelError
    try:
        bot = make_bot(spec)
        if hasattr(bot, "use_rules"):
            bot.use_rules(rules)
        getattr(bot, "model_ident", None)       # loads the bot's models, as the provenance does
    except ModelError as e:
        raise _usage(e) from None
    except Exception:  # noqa: BLE001 - anything else is run_tournament's to report, as before
        return


def _cmd_plot(args) -> int:
    import os
    import shutil

    from .plots import plot_results

    if not os.path.exists(args.results):
        raise UsageError(f"no such file: {args.results} (a tournament's results or a tuning study)")
    ext = os.path.splitext(args.out)[1].lower()
    if ext not in (".png", ".pdf", ".svg"):
        raise UsageError(f"--out must end in .png, .pdf or .svg (got {args.out!r})")
    import matplotlib
    matplotlib.use("Agg")
    folder = os.path.dirname(args.out)
    made = None   # the first folder this command creates, removed again on failure
    if folder:
        top = folder
        while os.path.dirname(top) and not os.path.exists(os.path.dirname(top)):
            top = os.path.dirname(top)
        try:
            if not os.path.exists(folder):
                made = top
            os.makedirs(folder, exist_ok=True)
        except FileExistsError:
            raise UsageError(f"--out {args.out}: a part of its folder path is a file") from None
        except OSError as e:
            raise UsageError(f"--out {args.out}: cannot create its folder: {e.strerror or e}") from None
    try:
        try:
            if args.results.endswith(".db"):   # a study of 'dominoai tune'
                from .tune.plots import plot_study
                plot_study(args.results, args.out)
            else:
                plot_results(args.results, args.out)
        except BaseException:
            if made is not None:
                shutil.rmtree(made, ignore_errors=True)
            raise
    except KeyError as e:
        raise UsageError(f"cannot plot {args.results}: it has no column {e} (plot takes the hands "
                         "table, the --out file of 'dominoai tournament', not its .matches table)") from None
    except OSError as e:
        raise UsageError(f"cannot plot {args.results} to {args.out}: {e.strerror or e}") from None
    except ValueError as e:
        raise UsageError(f"cannot plot {args.results}: {e}") from None
    print(f"figure: {args.out}")
    return 0


# ---------------------------------------------------------------- main
def _fail(message: str) -> int:
    msg = " ".join(str(message).split())
    sys.stderr.write(f"{PROG}: error: {msg}\n")
    return 2


def _kept_output(words: list[str], name: str | None = None) -> bool:
    """Whether the interrupted command's ``--out`` holds something to
    resume from (a run stopped before it wrote anything leaves nothing):
    ``train``'s folder, or a tournament's ``<out>.parts/``; with ``name``,
    whether that file is in the ``--out`` folder."""
    out = None
    for i, w in enumerate(words):
        if w == "--out" and i + 1 < len(words):
            out = words[i + 1]
        elif w.startswith("--out="):
            out = w[len("--out="):]
    if out is None:
        return False
    from pathlib import Path

    if name is not None:
        return (Path(out) / name).is_file()
    return _holds_run(out)


def _holds_run(out: str) -> bool:
    """Whether ``out`` holds a run to resume: a file, a folder with
    something in it (``train``), or a tournament's ``<out>.parts/``."""
    from pathlib import Path

    from .tournament.storage import parts_dir

    path = Path(out)
    return path.is_file() or (path.is_dir() and any(path.iterdir())) or parts_dir(path).is_dir()


def main(argv=None) -> int:
    """Run the ``dominoai`` command with ``argv`` (default: ``sys.argv[1:]``);
    return the exit code: 0 done, 2 bad input (one line on stderr)."""
    parser = build_parser()
    import signal

    def _term(signum, frame):  # `kill`: stop like Ctrl-C, so worker pools shut down
        raise KeyboardInterrupt
    try:
        old_term = signal.signal(signal.SIGTERM, _term)
    except (ValueError, OSError):  # not the main thread
        old_term = None
    try:
        args = parser.parse_args(argv)
        import shlex
        args.command = "dominoai " + shlex.join(sys.argv[1:] if argv is None else list(argv))  # provenance
        return args.func(args)
    except _ParserExit as e:
        return e.status
    except UsageError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        hint = ""
        if argv is not None or len(sys.argv) > 1:
            words = list(argv if argv is not None else sys.argv[1:])
            if words and words[0] in ("tournament", "train") and _kept_output(words):
                later = ("; model.npz and log.parquet are written when it ends"
                         if words[0] == "train" and _kept_output(words, "model.npz") else "")
                hint = f" (run the same command with --resume to continue{later})"
        sys.stderr.write(f"{PROG}: interrupted{hint}\n")
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `dominoai replay x | head`): stop quietly
        try:
            sys.stdout = open(__import__("os").devnull, "w")
        except OSError:
            pass
        return 0
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
