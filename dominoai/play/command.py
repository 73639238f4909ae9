"""The ``dominoai play`` subcommand: a match against the bots in the
terminal (the game loop is :func:`dominoai.play.play_game`).

Importing this module loads no numba: the game is imported when the
command runs, so that ``dominoai --help`` stays light.
"""

from __future__ import annotations

from .._cli_support import UsageError, int_at_least, presets_help, usage_error
from .._files import user_data_path

__all__ = ["add_parser", "cmd_play"]


def add_parser(sub) -> None:
    """Add the ``play`` subcommand to ``sub`` (the command's subparsers)."""
    g = sub.add_parser("play", help="play a match against the bots in the terminal",
                       description="Play a match against the bots: the table is shown before each of "
                                   "your moves; answer with a move's number or a tile like 6:4 (help "
                                   "lists the commands). The match is saved after every move; "
                                   "--continue resumes it. Statistics per variant and opponent level "
                                   "are kept in the user data directory ($DOMINOAI_DATA_DIR overrides).")
    g.add_argument("--variant", metavar="NAME",
                   help=f"a preset (default draw): {presets_help()}")
    g.add_argument("--players", type=int_at_least(2), metavar="N",
                   help="number of players (default: the preset's)")
    g.add_argument("--opponents", metavar="LEVEL",
                   help="the bots' level: easy, medium, hard, insane, or any bot spec "
                        "(default medium); in pairs your partner plays at least hard")
    g.add_argument("--seat", type=int_at_least(0), metavar="N",
                   help="your seat (default 0)")
    g.add_argument("--seed", type=int_at_least(0), metavar="S",
                   help="random seed for the deals and the bots (default: fresh)")
    g.add_argument("--target", type=int_at_least(1), metavar="N",
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
    g.set_defaults(func=cmd_play)


def cmd_play(args) -> int:
    """``dominoai play``: play the match (or, with ``--stats``, print the
    statistics); return the game loop's exit code."""
    from .errors import PlayError
    from .session import play_game
    from .stats import format_stats, load_stats

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
        raise usage_error(e, resume="--continue") from None
