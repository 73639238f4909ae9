"""The ``dominoai bots`` subcommand's parser: the registered bots, or one
bot's parameters.

Importing :mod:`dominoai.bots` registers every bot and loads the engine's
kernels (numba), which ``dominoai --help`` must not; so the bots package's
subcommand is declared here, beside it, and its work,
:mod:`dominoai.bots.command`, is imported when the command runs.
"""

from __future__ import annotations

__all__ = ["add_parser"]


def add_parser(sub) -> None:
    """Add the ``bots`` subcommand to ``sub`` (the command's subparsers)."""
    bo = sub.add_parser("bots", help="list the bots, or one bot's parameters",
                        description="Every registered bot, or a bot's parameters with default, "
                                    "tunable range and meaning.")
    bo.add_argument("name", nargs="?", help="a bot name")
    bo.set_defaults(func=_cmd_bots)


def _cmd_bots(args) -> int:
    """Run :func:`dominoai.bots.command.cmd_bots`."""
    from .bots.command import cmd_bots
    return cmd_bots(args)
