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


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt
    yield
    plt.close("all")


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
    mean_line = next(l for l in ax.get_lines() if l.get_label().startswith("mean "))
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
    assert ax.get_xlabel() == ("margin per hand: second bot's recorded points minus first's\n"
                               "(fewer is better: right of 0 favours the first bot)")
    assert ax.get_title().splitlines()[1] == "Margin in recorded points per hand: mean, paired 95% interval"
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


def _kozel_table(recorded):
    """A hands table of Kozel (4 seats, pairs 0+2 and 1+3) as the tournament
    writes it: bots A and B, each deal in two seat rotations (rotation 0: A
    in seats 0 and 2; rotation 1: B there). ``recorded[deal][rotation]`` is
    ``(A's side, B's side)``: the points each side recorded in the hand
    (low is good); ``margin`` is the other side's points minus the side's
    own (the sign turned), as :func:`~dominoai.rules.margins`."""
    rows, game = [], 0
    for deal, rots in enumerate(recorded):
        for rot, (pa, pb) in enumerate(rots):
            for seat in range(4):
                bot = "A" if (seat % 2 == 0) == (rot == 0) else "B"
                own, other = (pa, pb) if bot == "A" else (pb, pa)
                rows.append(dict(tournament="t", table=0, pairing="A v B", deal=deal, rotation=rot,
                                 match=game, hand=0, variant="kozel", players=4, seat=seat,
                                 side=seat % 2, bot=bot, points=own, score=own,
                                 margin=float(other - own), won=own < other))
            game += 1
    return pd.DataFrame(rows)


def test_kozel_plot_shows_the_margin_and_its_label_says_so():
    """Deal 0: A's side records 0 and 6 in the two rotations, B's 12 and 0;
    deal 1: A 20 and 0, B 0 and 8. Per hand, B's recorded points minus A's:
    (12 - 6) / 2 = 3 in deal 0 and (8 - 20) / 2 = -6 in deal 1, mean -1.5:
    A recorded 1.5 points per hand more, so it is left of 0. A's mean margin
    per deal is the same: (12 - 6) / 2 = 3, (-20 + 8) / 2 = -6. t(0.975, 1
    df) = 12.706205, sd of (3, -6) = 9 / sqrt(2), half width 12.706205 *
    4.5 = 57.178."""
    df = _kozel_table([[(0, 12), (6, 0)], [(20, 0), (0, 8)]])
    ax = plots.points_differences(df)
    means, lo, hi = _drawn_intervals(ax)
    # the recorded points, read from the table without its margin column
    a = df[df["bot"] == "A"].groupby("deal")["points"].sum() / 4   # 2 seats x 2 hands
    b = df[df["bot"] == "B"].groupby("deal")["points"].sum() / 4
    assert list(b - a) == [3.0, -6.0]
    assert means == pytest.approx([(b - a).mean()]) and means == pytest.approx([-1.5])
    # ... and the margin column: A's mean margin per deal
    margin = df[df["bot"] == "A"].groupby("deal")["margin"].mean()
    assert means == pytest.approx([margin.mean()])
    assert lo == pytest.approx([-1.5 - 57.178], abs=1e-3) and hi == pytest.approx([-1.5 + 57.178], abs=1e-3)
    assert ax.get_xlabel().startswith("margin per hand: second bot's recorded points minus first's")
    assert "right of 0 favours the first bot" in ax.get_xlabel()
    assert legend(ax)[1] == "mean margin (second bot's recorded points minus first's)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A v B (n=2 deals)"]


def _outside(fig) -> list[str]:
    """The texts and legends of ``fig`` (titles, axis labels, tick labels
    in view, legends) whose drawn box leaves the image, and the pairs of a
    legend and an x label that overlap."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    box = fig.bbox
    bad = []
    texts = [fig._suptitle] if fig._suptitle is not None else []
    for ax in fig.axes:
        lo, hi = sorted(ax.get_xlim())
        ylo, yhi = sorted(ax.get_ylim())
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label]
        texts += [t for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
        texts += [t for t in ax.get_yticklabels() if ylo <= t.get_position()[1] <= yhi]
        leg = ax.get_legend()
        if leg is not None:
            e = leg.get_window_extent(r)
            if e.x0 < box.x0 or e.y0 < box.y0 or e.x1 > box.x1 or e.y1 > box.y1:
                bad.append(f"legend of {ax.get_title()!r}")
            if ax.get_xlabel() and e.overlaps(ax.xaxis.label.get_window_extent(r)):
                bad.append(f"legend on the x label {ax.get_xlabel()!r}")
    for t in texts:
        if not t.get_text():
            continue
        e = t.get_window_extent(r)
        if e.x0 < box.x0 or e.y0 < box.y0 or e.x1 > box.x1 or e.y1 > box.y1:
            bad.append(t.get_text())
    return bad


def test_labels_and_legends_stay_inside_the_image(result):
    import matplotlib.pyplot as plt
    kozel = _kozel_table([[(0, 12), (6, 0)], [(20, 0), (0, 8)]])
    figs = [plots.points_differences(kozel).figure, plots.plot_results(kozel)]
    figs += [f(result).figure for f in (plots.win_rate_matrix, plots.ratings, plots.points_differences)]
    figs.append(plots.plot_results(result))
    try:
        for fig in figs:
            assert _outside(fig) == [], fig.axes[0].get_title()
    finally:
        for fig in figs:
            plt.close(fig)
