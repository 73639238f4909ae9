"""The ``dominoai`` command line: a thin argparse front end over the library.

Each package owns its subcommand: the package's command module declares
it (``add_parser(sub)`` adds the subparser and the function that runs it)
and holds the command's work. This module only builds the parser from
them (:func:`build_parser`) and dispatches (:func:`main`); the helpers the
command modules share are :mod:`dominoai._cli_support`'s.

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
import os
import shlex
import signal
import sys
from importlib import import_module
from pathlib import Path

from . import __version__, bots_command, plots_command, records_command, simulate_command, viewer_command
from ._cli_support import PROG, UsageError
from .learn import command as learn_command
from .play import command as play_command
from .serve import command as serve_command
from .tournament import command as tournament_command
from .tune import command as tune_command

__all__ = ["main", "build_parser"]

#: names that moved to the library or to a subcommand's module, still
#: importable from here (loaded on first use)
_MOVED = {"split_bot_specs": "bots.spec", "join_spec_params": "bots.spec", "run_simulation": "simulate",
          "SIM_CHUNK": "simulate", "_note_idle": "tournament.command", "_tournament_rules": "tournament.command",
          "_TRAIN_OPTIONS": "learn.command", "_train_usage": "learn.command", "_model_name": "learn.command"}


def __getattr__(name: str):
    """A name of :data:`_MOVED`, imported on first use."""
    if name in _MOVED:
        return getattr(import_module(f".{_MOVED[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dominoai`` command: each subcommand is
    added by the command module of the package that owns it. Each of them
    is light: a command loads the library (numba, pandas, ...) when it runs."""
    p = _Parser(prog=PROG, description="dominoai: imperfect-information dominoes toolkit.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # in the order --help lists them
    for module in (records_command, viewer_command, simulate_command, play_command, serve_command,
                   tournament_command, plots_command, tune_command, bots_command, learn_command):
        module.add_parser(sub)
    return p


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
    if name is not None:
        return (Path(out) / name).is_file()
    return tournament_command.holds_run(out)


def main(argv=None) -> int:
    """Run the ``dominoai`` command with ``argv`` (default: ``sys.argv[1:]``);
    return the exit code: 0 done, 2 bad input (one line on stderr)."""
    parser = build_parser()

    def _term(signum, frame):  # `kill`: stop like Ctrl-C, so worker pools shut down
        raise KeyboardInterrupt
    try:
        old_term = signal.signal(signal.SIGTERM, _term)
    except (ValueError, OSError):  # not the main thread
        old_term = None
    try:
        args = parser.parse_args(argv)
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
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
