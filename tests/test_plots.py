"""Figures that stand alone: every plot names the variant, players, deals
and seed, shows its sample sizes and has a legend for every marker; points
per hand are mean differences with their paired intervals, the numbers of
the pairings table (and, on a table made by hand, of a t interval worked
out by hand)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from dominoai import plots  # noqa: E402
from dominoai.tournament import load_results, run_tournament  # noqa: E402

HEAD = "block, 2 players · 12 deals per pairing, every seat rotation · seed 5"


@pytest.fixture(scope="module")
def result():
    return run_tournament("block", ["easy", "medium", "hard"], hands=12, seed=5, progress=False)


def legend(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_every_title_names_variant_players_deals_and_seed(result):
    for f in (plots.win_rate_matrix, plots.ratings, plots.points_differences):
        ax = f(result)
        assert isinstance(ax, Axes)
        assert ax.get_title().splitlines()[0] == HEAD, f.__name__
    fig = plots.plot_results(result)
    assert fig._suptitle.get_text() == HEAD


def test_title_from_a_results_file_and_from_a_bare_table(result, tmp_path):
    out = tmp_path / "r.csv"
    res = run_tournament("block", ["easy", "medium"], hands=3, seed=9, progress=False, out=out)
    ax = plots.points_differences(load_results(out))
    assert ax.get_title().splitlines()[0] == \
        "block, 2 players · 3 deals per pairing, every seat rotation · seed 9"
    # a table alone does not know its seed, and says so
    ax = plots.points_differences(res.hands)
    assert ax.get_title().splitlines()[0] == \
        "block, 2 players · 3 deals per pairing, every seat rotation · seed not recorded"


def test_legends_name_every_marker(result):
    assert legend(plots.points_differences(result)) == [
        "paired 95% interval (t over the deals)", "mean difference (first bot minus second)",
        "no difference"]
    assert legend(plots.ratings(result)) == [
        "mean of the ratings (0)", "rating, 95% bootstrap interval (200 resamples of the deals)"]
    assert legend(plots.win_rate_matrix(result)) == ["cell: win rate [95% Wilson interval], n = games"]


def test_sample_sizes_are_shown(result):
    ax = plots.win_rate_matrix(result)
    cells = [t.get_text() for t in ax.texts]
    # 3 pairings x 2 cells each; 12 deals x 2 rotations = 24 hands per pairing
    assert len(cells) == 6 and all(c.endswith("\nn=24") for c in cells)
    ax = plots.ratings(result)
    # every bot meets two others in 24 hands each
    assert sorted(t.get_text() for t in ax.get_yticklabels()) == [
        "easy (n=48)", "hard (n=48)", "medium (n=48)"]
    ax = plots.points_differences(result)
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "easy − medium (n=12 deals)", "easy − hard (n=12 deals)", "medium − hard (n=12 deals)"]


def _drawn_intervals(ax):
    mean_line = next(l for l in ax.get_lines() if l.get_label().startswith("mean difference"))
    segs = ax.collections[0].get_segments()
    # rows from the top: the first pairing has the highest y
    order = np.argsort(-np.asarray(mean_line.get_ydata()))
    means = np.asarray(mean_line.get_xdata(), float)[order]
    ys = [s[0][1] for s in segs]
    seg_order = np.argsort(-np.asarray(ys))
    lo = np.array([segs[i][0][0] for i in seg_order])
    hi = np.array([segs[i][1][0] for i in seg_order])
    return means, lo, hi


def test_plotted_intervals_are_the_pairings(result):
    means, lo, hi = _drawn_intervals(plots.points_differences(result))
    p = result.pairings
    np.testing.assert_allclose(means, p["points_diff"].to_numpy(float))
    np.testing.assert_allclose(lo, p["diff_lo"].to_numpy(float))
    np.testing.assert_allclose(hi, p["diff_hi"].to_numpy(float))
    assert (lo < means).all() and (means < hi).all()


def test_plotted_interval_of_a_table_made_by_hand():
    """Two bots, three deals, each in both seat rotations. A's margin is 2, 4
    and 9 points in the three deals (in both rotations): the per-deal
    differences A minus B are 2, 4, 9 (margin difference 2m, times 1/2 for
    two sides). Mean 5; sample sd sqrt(((2-5)^2 + (4-5)^2 + (9-5)^2) / 2) =
    sqrt(13); t(0.975, 2 df) = 4.302653; half width 4.302653 * sqrt(13) /
    sqrt(3) = 8.956686."""
    rows = []
    game = 0
    for deal, m in enumerate((2.0, 4.0, 9.0)):
        for rot in range(2):
            for seat in range(2):
                bot = "A" if (seat + rot) % 2 == 0 else "B"
                margin = m if bot == "A" else -m
                rows.append(dict(tournament="t", table=0, pairing="A v B", deal=deal, rotation=rot,
                                 match=game, hand=0, variant="draw", players=2, seat=seat, side=seat,
                                 bot=bot, points=int(max(margin, 0)), margin=margin, won=margin > 0))
            game += 1
    ax = plots.points_differences(pd.DataFrame(rows))
    means, lo, hi = _drawn_intervals(ax)
    assert means == pytest.approx([5.0])
    assert lo == pytest.approx([5.0 - 8.956686], abs=1e-5)
    assert hi == pytest.approx([5.0 + 8.956686], abs=1e-5)
    assert ax.get_xlabel() == "points per hand, first bot minus second"


def test_axis_names_the_unit_and_the_sign():
    def table(variant, players):
        return pd.DataFrame({"variant": variant, "players": players, "bot": ["A", "B"] * 2,
                             "match": [0, 0, 1, 1], "hand": 0, "table": 0, "deal": [0, 0, 1, 1],
                             "side": [0, 1, 0, 1], "won": [True, False, True, False],
                             "points": [5, 2, 4, 0], "margin": [3.0, -3.0, 4.0, -4.0]})
    ax = plots.points_differences(table("kozel", 4))
    assert ax.get_xlabel() == "recorded points per hand, first bot minus second (others minus own: low is good)"
    assert ax.get_title().splitlines()[1] == "Recorded points per hand: mean difference, paired 95% interval"
    assert plots.points_differences(table("dominoball", 2)).get_xlabel() == \
        "strikes per hand, first bot minus second"


def test_plot_results_writes_a_figure(tmp_path):
    out = tmp_path / "r.parquet"
    run_tournament("draw", ["easy", "medium"], hands=5, progress=False, out=out)
    fig = plots.plot_results(out, tmp_path / "fig.png")
    assert fig._suptitle.get_text() == "draw, 2 players · 5 deals per pairing, every seat rotation · seed 0"
    assert (tmp_path / "fig.png").stat().st_size > 1000
    res = run_tournament("block", ["easy", "medium"], matches=2, target=20, seed=1, progress=False)
    fig = plots.plot_results(res)
    assert fig._suptitle.get_text() == "block, 2 players · 2 matches per pairing, every seat rotation · seed 1"
    assert fig.axes[1].get_title() == "Bradley–Terry ratings from the matches, 95% bootstrap interval"
