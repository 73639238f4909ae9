"""The ``dominoai plot`` subcommand: the figures of a tournament's results
(:func:`dominoai.plots.plot_results`) or of a tuning study
(:func:`dominoai.tune.plots.plot_study`).

Importing this module loads neither pandas nor matplotlib: they are
imported when the command runs, so that ``dominoai --help`` stays light.
"""

from __future__ import annotations

import os
import shutil

from ._cli_support import UsageError

__all__ = ["add_parser", "cmd_plot"]


def add_parser(sub) -> None:
    """Add the ``plot`` subcommand to ``sub`` (the command's subparsers)."""
    pl = sub.add_parser("plot", help="plot a tournament's results or a tuning study",
                        description="Win-rate matrix, ratings and points per hand of a results file; "
                                    "for a study (.db) of 'dominoai tune': optimisation history, "
                                    "parameter importance, strength against time per decision.")
    pl.add_argument("results", metavar="RESULTS",
                    help="a results file written by 'dominoai tournament', or a study .db of 'dominoai tune'")
    pl.add_argument("--out", required=True, metavar="FIG", help="the figure (.png, .pdf or .svg)")
    pl.set_defaults(func=cmd_plot)


def cmd_plot(args) -> int:
    """``dominoai plot RESULTS --out FIG``: write the figure; a folder the
    command made for it is removed again when the plot fails."""
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
