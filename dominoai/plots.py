"""Plots of tournament results (matplotlib only), each one readable on its own.

Each function takes a :class:`~dominoai.tournament.TournamentResult` (what
:func:`~dominoai.tournament.run_tournament` returns, or a results file read
with :func:`~dominoai.tournament.load_results`) or its hands table
(``result.hands``), draws on ``ax`` (a new figure's axes when None) and
returns the axes. Every figure carries:

- a title naming the variant, the players, the deals (or matches) per
  pairing and the seed (:func:`describe`, from the result's provenance;
  from the table's columns when only a table is given, the seed then
  "not recorded");
- its sample sizes: games per cell of the win-rate matrix, games per bot
  in the ratings, duplicate deals per pairing in the points differences;
- a legend for every marker.

Points per hand are shown as each pairing's mean difference with its paired
95% interval (forest-style, :func:`points_differences`), the numbers of
``result.pairings`` (``points_diff``, ``diff_lo``, ``diff_hi``): the raw
per-hand distributions (whiskers of tens of points) would hide the few
points that separate two bots.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from dominoai.tournament import run_tournament
>>> res = run_tournament("block", ["easy", "medium"], hands=20, progress=False)
>>> ax = win_rate_matrix(res)
>>> print(ax.get_title())
block, 2 players · 20 deals per pairing, every seat rotation · seed 0
Win rate (row v column), 95% Wilson interval; n = games per pairing
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .rules import PRESETS, get_rules

__all__ = ["win_rate_matrix", "ratings", "points_differences", "plot_results", "describe"]


def _axes(ax):
    """``ax``, or the axes of a new figure (8.5 x 5.5 inches) whose
    constrained layout keeps every label, tick label and legend inside the
    image."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    _, ax = plt.subplots(figsize=(8.5, 5.5), layout="constrained")
    return ax


def _split(results, matches=None, provenance=None):
    """``(table, matches, provenance)`` from a TournamentResult, a path or a table."""
    from .tournament.storage import TournamentResult, load_results
    if isinstance(results, (str, Path)):
        results = load_results(results)
    if isinstance(results, TournamentResult):
        return (results.hands, matches if matches is not None else results.matches,
                provenance if provenance is not None else results.provenance)
    return results, matches, provenance or {}


def _pairings(df: pd.DataFrame, matches: pd.DataFrame | None = None) -> pd.DataFrame:
    if "bot_a" in df.columns:
        return df
    from .tournament.stats import pairing_stats
    return pairing_stats(df, matches)


def describe(table: pd.DataFrame | None = None, provenance: dict | None = None) -> str:
    """The line every figure's title starts with: ``"draw, 2 players · 1000
    deals per pairing, every seat rotation · seed 0"`` (``"... · 50 matches
    per pairing ..."`` for whole matches). Read from ``provenance`` (a
    result's ``provenance``: ``variant``, ``players``, ``mode``, ``deals``,
    ``seed``), else from a hands table's ``variant``, ``players`` and
    ``deal`` columns (the seed is then "not recorded"); what neither gives is
    left out.

    >>> describe(provenance={"variant": "draw", "players": 2, "mode": "hands", "deals": 1000, "seed": 0})
    'draw, 2 players · 1000 deals per pairing, every seat rotation · seed 0'
    >>> describe(pd.DataFrame({"variant": ["kozel"] * 2, "players": [4, 4], "deal": [0, 1]}))
    'kozel, 4 players · 2 deals per pairing, every seat rotation · seed not recorded'
    """
    prov = provenance or {}
    cols = table.columns if isinstance(table, pd.DataFrame) else ()
    variant = prov.get("variant")
    if variant is None and "variant" in cols and len(table):
        variant = "/".join(map(str, pd.unique(table["variant"])))
    players = prov.get("players")
    if players is None and "players" in cols and len(table):
        players = int(table["players"].iloc[0])
    parts = []
    if variant is not None:
        parts.append(f"{variant}, {players} players" if players is not None else str(variant))
    deals, mode = prov.get("deals"), prov.get("mode")
    if deals is None and "deal" in cols:
        deals = int(table["deal"].nunique())
        mode = "matches" if "finished" in cols else "hands"
    if deals is not None:
        what = "matches" if mode == "matches" else "deals"
        parts.append(f"{deals} {what} per pairing, every seat rotation")
    seed = prov.get("seed")
    parts.append(f"seed {seed}" if seed is not None else "seed not recorded")
    return " · ".join(parts)


def _points(size) -> float:
    """A font size (points, or a name such as ``"medium"``) in points."""
    from matplotlib.font_manager import FontProperties
    return FontProperties(size=size).get_size_in_points()


def _below_x_label(ax) -> float:
    """Points from the bottom of ``ax`` to below its x label: the ticks, the
    tick labels (rotated ones by their longest text), the label's lines
    and their pads, estimated from the font sizes without drawing, so that
    it stays the same while a layout resizes the axes."""
    import matplotlib as mpl
    tick = mpl.rcParams["xtick.major.size"] + mpl.rcParams["xtick.major.pad"]
    labels = [t for t in ax.get_xticklabels() if t.get_text()] or ax.get_xticklabels()[:1]
    high = 0.0
    for t in labels:
        size, rot = t.get_fontsize(), math.radians(t.get_rotation())
        wide = 0.6 * size * len(t.get_text())
        high = max(high, 1.2 * size * abs(math.cos(rot)) + wide * abs(math.sin(rot)))
    lines = ax.get_xlabel().count("\n") + 1 if ax.get_xlabel() else 0
    label = lines * 1.2 * _points(mpl.rcParams["axes.labelsize"]) + mpl.rcParams["axes.labelpad"]
    return tick + high + label + 6.0


def _legend_below(ax, **kw) -> None:
    """The legend under the axes, below the x label (at a fixed distance in
    points, :func:`_below_x_label`), where it hides no marker."""
    from matplotlib.transforms import offset_copy
    at = offset_copy(ax.transAxes, fig=ax.figure, y=-_below_x_label(ax), units="points")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=at, fontsize=7, **kw)


def _title(ax, head: str, what: str) -> None:
    ax.set_title(f"{head}\n{what}" if head else what, fontsize=10)


def win_rate_matrix(df, ax=None, matches: pd.DataFrame | None = None, annotate: bool = True,
                    provenance: dict | None = None, context: bool = True):
    """Heat map of each bot's win rate against each other bot (draws count
    half), every cell annotated with the rate, its 95% Wilson interval and
    ``n``, the games behind it. ``df``: a result, a hands table
    (``matches``: its matches table, to rate whole matches) or a pairings
    table. ``context``: start the title with :func:`describe`."""
    from matplotlib.patches import Patch

    from .tournament.stats import win_matrix
    table, matches, provenance = _split(df, matches, provenance)
    ax = _axes(ax)
    pairs = _pairings(table, matches)
    rate, lo, hi = win_matrix(pairs)
    games = pd.DataFrame(np.nan, index=rate.index, columns=rate.columns)
    for r in pairs.itertuples():
        games.loc[r.bot_a, r.bot_b] = games.loc[r.bot_b, r.bot_a] = r.games
    names = list(rate.index)
    im = ax.imshow(rate.to_numpy(float), vmin=0, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("column bot (opponent)")
    ax.set_ylabel("row bot")
    if annotate:
        for i in range(len(names)):
            for j in range(len(names)):
                v = rate.iat[i, j]
                if np.isnan(v):
                    continue
                ax.text(j, i, f"{v:.2f}\n[{lo.iat[i, j]:.2f}, {hi.iat[i, j]:.2f}]\nn={int(games.iat[i, j])}",
                        ha="center", va="center", fontsize=7,
                        color="white" if abs(v - 0.5) > 0.3 else "black")
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="row bot's win rate")
    _legend_below(ax, handles=[Patch(facecolor="none", edgecolor="none",
                                     label="cell: win rate [95% Wilson interval], n = games")],
                  frameon=False)
    head = describe(table if "bot_a" not in table.columns else None, provenance) if context else ""
    _title(ax, head, "Win rate (row v column), 95% Wilson interval; n = games per pairing")
    return ax


def ratings(df, ax=None, n_boot: int = 200, seed: int = 0, provenance: dict | None = None,
            context: bool = True):
    """Bradley–Terry ratings (Elo scale, mean 0) with bootstrap 95% intervals,
    best on top, each bot labelled with the games behind its rating.
    ``df``: a result, a hands (or matches) table, or a ratings table."""
    table, matches, provenance = _split(df, None, provenance)
    source = matches if matches is not None and "rating" not in table.columns else table
    ax = _axes(ax)
    if "rating" not in source.columns:
        from .tournament.stats import ratings as _ratings
        r = _ratings(source, n_boot=n_boot, seed=seed)
    else:
        r = source
    r = r.sort_values("rating")
    y = np.arange(len(r))
    err = np.vstack([r["rating"] - r["lo"], r["hi"] - r["rating"]]).clip(min=0)
    ax.errorbar(r["rating"], y, xerr=err, fmt="o", capsize=4,
                label=f"rating, 95% bootstrap interval ({n_boot} resamples of the deals)"
                if "rating" not in source.columns else "rating, 95% bootstrap interval")
    ax.set_yticks(y, [f"{b} (n={g})" for b, g in zip(r["bot"], r["games"])])
    ax.set_ylim(-0.6, len(r) - 0.4)
    ax.axvline(0, color="grey", lw=0.8, ls=":", label="mean of the ratings (0)")
    ax.set_xlabel("rating (Elo scale); n = games of the bot")
    _legend_below(ax)
    head = describe(table if "rating" not in table.columns else None, provenance) if context else ""
    what = "matches" if "finished" in source.columns or "finished" in r.columns else "hands"
    _title(ax, head, f"Bradley–Terry ratings from the {what}, 95% bootstrap interval")
    return ax


def _unit_and_sign(df: pd.DataFrame, provenance: dict | None = None) -> tuple[str, bool]:
    """The unit of the points (:attr:`Rules.points_unit
    <dominoai.rules.Rules.points_unit>`) and whether low is good
    (:attr:`Rules.low_is_good <dominoai.rules.Rules.low_is_good>`) of the
    preset in the provenance, else in the table's ``variant`` column;
    ``("points", False)`` when neither names a single known preset."""
    prov = provenance or {}
    if prov.get("variant") in PRESETS:
        variants, players = [prov["variant"]], prov.get("players")
    else:
        variants = list(pd.unique(df["variant"])) if "variant" in df.columns else []
        players = int(df["players"].iloc[0]) if "players" in df.columns and len(df) else None
    if len(variants) != 1 or variants[0] not in PRESETS:
        return "points", False
    try:
        rules = get_rules(variants[0], **({"players": players} if players is not None else {}))
    except ValueError:
        rules = get_rules(variants[0])
    return rules.points_unit, rules.low_is_good


def _difference_words(unit: str, low_is_good: bool) -> dict:
    """The words of :func:`points_differences` for a preset's ``unit`` and
    sign. The value drawn is always the first bot's advantage (its margin
    over the second): where more is better, its points minus the second's;
    where low is good (Kozel), the second bot's points minus its own."""
    if low_is_good:
        return {"xlabel": f"margin per hand: second bot's {unit} minus first's\n"
                          "(fewer is better: right of 0 favours the first bot)",
                "mean": f"mean margin (second bot's {unit} minus first's)",
                "title": f"Margin in {unit} per hand: mean, paired 95% interval",
                "pair": "{a} v {b} (n={d} deals)"}
    return {"xlabel": f"{unit} per hand, first bot minus second",
            "mean": "mean difference (first bot minus second)",
            "title": f"{unit.capitalize()} per hand: mean difference, paired 95% interval",
            "pair": "{a} − {b} (n={d} deals)"}


def points_differences(df, ax=None, provenance: dict | None = None, context: bool = True):
    """Each pairing's mean difference of points per hand, the first bot's
    advantage (from the ``margin`` column, whose sign is turned where low is
    good, so right of 0 always favours the first bot: where more is better
    the first bot's points minus the second's, in Kozel the second bot's
    recorded points minus the first's, and the axis says which), with its
    paired 95% interval (a t interval over the duplicate deals, each played
    in every seat rotation), one row per pairing: ``result.pairings``'
    ``points_diff``, ``diff_lo`` and ``diff_hi``. Each row is labelled with
    its deals; the axis names the preset's unit (points, recorded points,
    strikes). ``df``: a result, a hands table or a pairings table.

    :raises KeyError: ``'margin'``, a table that is neither (e.g. a matches
        table: it has no points per hand).
    """
    table, _, provenance = _split(df, None, provenance)
    if "bot_a" not in table.columns and "margin" not in table.columns:
        raise KeyError("margin")
    ax = _axes(ax)
    pairs = _pairings(table)
    words = _difference_words(*_unit_and_sign(table, provenance))
    n = len(pairs)
    y = np.arange(n)[::-1]   # the first pairing on top
    mean = pairs["points_diff"].to_numpy(float)
    lo, hi = pairs["diff_lo"].to_numpy(float), pairs["diff_hi"].to_numpy(float)
    ax.hlines(y, lo, hi, color="C0", lw=2, label="paired 95% interval (t over the deals)")
    ax.plot(mean, y, "o", color="C0", label=words["mean"])
    ax.axvline(0, color="grey", lw=0.8, ls=":", label="no difference")
    ax.set_yticks(y, [words["pair"].format(a=a, b=b, d=d) for a, b, d in
                      zip(pairs["bot_a"], pairs["bot_b"], pairs["deals"])])
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlabel(words["xlabel"])
    _legend_below(ax)
    head = describe(table if "bot_a" not in table.columns else None, provenance) if context else ""
    _title(ax, head, words["title"])
    return ax


def plot_results(results, out=None):
    """One figure with the win-rate matrix, the ratings and the points-per-hand
    differences of a results file (path), a :class:`TournamentResult` or a
    hands table, titled with :func:`describe`; saved to ``out`` when given
    (``.png``, ``.pdf``, ``.svg``). Returns the figure.

    :raises KeyError: ``'margin'``: not a hands table (a matches table).
    """
    import matplotlib.pyplot as plt
    hands, matches, provenance = _split(results)
    if "margin" not in hands.columns:
        raise KeyError("margin")
    fig, axes = plt.subplots(1, 3, figsize=(19, 6.2), layout="constrained")
    win_rate_matrix(hands, axes[0], matches=matches, provenance=provenance, context=False)
    if matches is not None:
        ratings(matches, axes[1], provenance=provenance, context=False)
    else:
        ratings(hands, axes[1], provenance=provenance, context=False)
    points_differences(hands, axes[2], provenance=provenance, context=False)
    fig.suptitle(describe(hands, provenance))
    if out is not None:
        fig.savefig(out, dpi=120)
    return fig
