"""Plots of tournament results (matplotlib only).

Each function takes a hands table of :func:`~dominoai.tournament.run_tournament`
(``result.hands``, or a results file read with
:func:`~dominoai.tournament.load_results`), draws on ``ax`` (a new figure's
axes when None) and returns the axes. The win-rate matrix and the ratings
also accept the tables of ``result.pairings`` and ``result.ratings``.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from dominoai.tournament import run_tournament
>>> res = run_tournament("block", ["easy", "medium"], hands=20, progress=False)
>>> ax = win_rate_matrix(res.hands)
>>> ax.get_title()
'Win rate (row v column), 95% Wilson interval'
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["win_rate_matrix", "ratings", "points_distribution", "plot_results"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    _, ax = plt.subplots()
    return ax


def _pairings(df: pd.DataFrame, matches: pd.DataFrame | None = None) -> pd.DataFrame:
    if "bot_a" in df.columns:
        return df
    from .tournament.stats import pairing_stats
    return pairing_stats(df, matches)


def win_rate_matrix(df: pd.DataFrame, ax=None, matches: pd.DataFrame | None = None,
                    annotate: bool = True):
    """Heat map of each bot's win rate against each other bot (draws count
    half), every cell annotated with the rate and its 95% Wilson interval.
    ``df``: a hands table (``matches``: its matches table, to rate whole
    matches) or a pairings table."""
    from .tournament.stats import win_matrix
    ax = _axes(ax)
    rate, lo, hi = win_matrix(_pairings(df, matches))
    names = list(rate.index)
    im = ax.imshow(rate.to_numpy(float), vmin=0, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    if annotate:
        for i in range(len(names)):
            for j in range(len(names)):
                v = rate.iat[i, j]
                if np.isnan(v):
                    continue
                ax.text(j, i, f"{v:.2f}\n[{lo.iat[i, j]:.2f}, {hi.iat[i, j]:.2f}]", ha="center",
                        va="center", fontsize=8, color="white" if abs(v - 0.5) > 0.3 else "black")
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="win rate")
    ax.set_title("Win rate (row v column), 95% Wilson interval")
    return ax


def ratings(df: pd.DataFrame, ax=None, n_boot: int = 200, seed: int = 0):
    """Bradley–Terry ratings (Elo scale, mean 0) with bootstrap 95% intervals,
    best on top. ``df``: a hands (or matches) table, or a ratings table."""
    ax = _axes(ax)
    if "rating" not in df.columns:
        from .tournament.stats import ratings as _ratings
        df = _ratings(df, n_boot=n_boot, seed=seed)
    r = df.sort_values("rating")
    y = np.arange(len(r))
    err = np.vstack([r["rating"] - r["lo"], r["hi"] - r["rating"]]).clip(min=0)
    ax.errorbar(r["rating"], y, xerr=err, fmt="o", capsize=4)
    ax.set_yticks(y, list(r["bot"]))
    ax.set_ylim(-0.6, len(r) - 0.4)
    ax.axvline(0, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("rating (Elo scale)")
    ax.set_title("Ratings, 95% bootstrap interval")
    return ax


def _unit_and_sign(df: pd.DataFrame) -> tuple[str, bool]:
    """The unit of the points (:attr:`Rules.points_unit
    <dominoai.rules.Rules.points_unit>`) and whether low is good
    (:attr:`Rules.low_is_good <dominoai.rules.Rules.low_is_good>`) of the
    preset in the table's ``variant`` column; ``("points", False)`` when the
    table holds no single known preset."""
    from .rules import PRESETS, get_rules
    variants = pd.unique(df["variant"]) if "variant" in df.columns else []
    if len(variants) != 1 or variants[0] not in PRESETS:
        return "points", False
    players = int(df["players"].iloc[0]) if "players" in df.columns else None
    try:
        rules = get_rules(variants[0], **({"players": players} if players is not None else {}))
    except ValueError:
        rules = get_rules(variants[0])
    return rules.points_unit, rules.low_is_good


def points_distribution(df: pd.DataFrame, ax=None, column: str = "margin"):
    """Distribution of points per hand for each bot (default ``margin``: its
    side's points minus the other sides' mean, the sign turned where low is
    good, so higher is better) as box plots with the mean marked. The axis
    names the preset's unit (points, recorded points, strikes: read from
    the ``variant`` column)."""
    ax = _axes(ax)
    names = [str(b) for b in pd.unique(df["bot"])]
    data = [df.loc[df["bot"] == b, column].to_numpy(float) for b in names]
    ax.boxplot(data, showmeans=True, showfliers=False)
    ax.set_xticks(range(1, len(names) + 1), names, rotation=30, ha="right")
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    unit, low_is_good = _unit_and_sign(df)
    how = ""
    if column == "margin":
        how = " (others minus own)" if low_is_good else " (own minus others)"
    ax.set_ylabel(f"{unit} per hand{how}")
    ax.set_title(f"{unit.capitalize()} per hand")
    return ax


def plot_results(results, out=None):
    """One figure with the win-rate matrix, the ratings and the points per
    hand of a results file (path), a :class:`TournamentResult` or a hands
    table; saved to ``out`` when given (``.png``, ``.pdf``, ``.svg``).
    Returns the figure."""
    import matplotlib.pyplot as plt
    from .tournament.storage import TournamentResult, load_results
    matches = None
    if isinstance(results, (str, Path)):
        results = load_results(results)
    if isinstance(results, TournamentResult):
        hands, matches = results.hands, results.matches
    else:
        hands = results
    fig, axes = plt.subplots(1, 3, figsize=(18, 5.5))
    win_rate_matrix(hands, axes[0], matches=matches)
    ratings(matches if matches is not None else hands, axes[1])
    points_distribution(hands, axes[2])
    fig.tight_layout()
    if out is not None:
        fig.savefig(out, dpi=120)
    return fig
