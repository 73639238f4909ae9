"""Tournament statistics: win rates with Wilson intervals, the paired
(duplicate) interval of the points-per-hand difference, and Bradley–Terry
ratings on the Elo scale with bootstrap intervals.

The input is a hands table (or a matches table) of
:func:`~dominoai.tournament.run.run_tournament`; the columns used are
``match`` (and ``hand``: one game per hand, else one per match), ``table``
and ``deal`` (a duplicate group: one deal in all its seat rotations),
``bot``, ``side``, ``won`` and ``margin``.

Pairwise outcomes: in each game, every two different bots meet once when
no side holds both (a bot in several seats counts once, its sides pooled;
with mixed pairs, ``hard+easy`` against ``easy``, hard and easy do not meet).
A bot whose side won beats the other; when neither side won (a blocked hand
with no winner, or a third side won) it is a draw, counted as half a win
each.

>>> lo, hi = wilson(7, 10)
>>> round(lo, 4), round(hi, 4)
(0.3968, 0.8922)
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import special as _sc   # the quantiles only: scipy.stats takes a second to import

__all__ = ["wilson", "paired_ci", "outcomes", "pairing_stats", "win_matrix", "bradley_terry",
           "ratings", "format_summary"]


def wilson(k, n, confidence: float = 0.95):
    """Wilson score interval ``(lo, hi)`` of a proportion ``k / n`` (arrays
    broadcast; ``k`` may be fractional, e.g. draws as halves). ``n == 0``
    gives ``(nan, nan)``."""
    k = np.asarray(k, float)
    n = np.asarray(n, float)
    z = _sc.ndtri(0.5 + confidence / 2)                 # the normal quantile
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
        lo, hi = mid - half, mid + half
    lo = np.where(n > 0, np.where(k <= 0, 0.0, np.clip(lo, 0, 1)), np.nan)
    hi = np.where(n > 0, np.where(k >= n, 1.0, np.clip(hi, 0, 1)), np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def paired_ci(diffs, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: the t interval of the mean of per-deal differences
    (one value per duplicate group, so the luck of the deal has cancelled
    inside each). Fewer than two values give nan bounds."""
    d = np.asarray(diffs, float)
    d = d[~np.isnan(d)]
    n = len(d)
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(d.mean())
    if n < 2:
        return m, float("nan"), float("nan")
    half = float(_sc.stdtrit(n - 1, 0.5 + confidence / 2) * d.std(ddof=1) / math.sqrt(n))  # Student's t quantile
    return m, m - half, m + half


def _bot_order(df: pd.DataFrame, bots: Sequence[str] | None) -> list[str]:
    present = [str(b) for b in pd.unique(df["bot"])]
    if bots is None:
        return present
    return [b for b in bots if b in set(present)] + [b for b in present if b not in set(bots)]


def outcomes(df: pd.DataFrame, bots: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per game and pair of bots that met in it: ``table``, ``deal``,
    ``game`` (row number of the game), ``a``, ``b`` (indices into the bot
    order, ``a < b``), ``score`` (1: a won, 0: b won, 0.5: draw) and
    ``diff``: a's points per hand minus b's (from ``margin``; NaN without
    that column). The bot order is ``bots`` or first appearance; it is in
    ``result.attrs["bots"]``.

    Who won between a and b: in a hands table (one row per hand, with
    ``margin``) the bot whose side scored more points in the hand (points
    made during play included; Kozel: recorded less), equal points a draw;
    in a matches table the bot whose side won the match."""
    order = _bot_order(df, bots)
    idx = {b: i for i, b in enumerate(order)}
    key = ["match", "hand"] if "hand" in df.columns else ["match"]
    d = pd.DataFrame({
        "g": df.groupby(key, sort=True).ngroup().to_numpy(),
        "bot": df["bot"].map(idx).to_numpy(),
        "side": df["side"].to_numpy(),
        "won": df["won"].to_numpy(bool),
        "margin": df["margin"].to_numpy(float) if "margin" in df.columns else np.full(len(df), np.nan),
        "table": df["table"].to_numpy(),
        "deal": df["deal"].to_numpy(),
    })
    n_games, k = int(d["g"].max()) + 1 if len(d) else 0, len(order)
    by_points = "hand" in df.columns and "margin" in df.columns and bool(d["margin"].notna().all())
    # sides per game (for the margin -> difference scale)
    nsides = d.drop_duplicates(["g", "side"]).groupby("g").size().reindex(range(n_games)).to_numpy()
    per = d.groupby(["g", "bot"]).agg(won=("won", "max"), margin=("margin", "mean"))
    sm = d.drop_duplicates(["g", "bot", "side"]).assign(m=lambda x: np.left_shift(1, x["side"]))
    per["sides"] = sm.groupby(["g", "bot"])["m"].sum()
    W = np.zeros((n_games, k), bool)
    P = np.zeros((n_games, k), bool)
    MG = np.full((n_games, k), np.nan)
    S = np.zeros((n_games, k), np.int64)
    gi = per.index.get_level_values(0).to_numpy()
    bi = per.index.get_level_values(1).to_numpy()
    P[gi, bi] = True
    W[gi, bi] = per["won"].to_numpy(bool)
    MG[gi, bi] = per["margin"].to_numpy(float)
    S[gi, bi] = per["sides"].to_numpy()
    first = d.drop_duplicates("g").set_index("g").reindex(range(n_games))
    tables, deals = first["table"].to_numpy(), first["deal"].to_numpy()
    scale = (nsides - 1) / nsides
    rows = []
    for a in range(k):
        for b in range(a + 1, k):
            m = P[:, a] & P[:, b] & ((S[:, a] & S[:, b]) == 0)
            g = np.flatnonzero(m)
            if len(g) == 0:
                continue
            if by_points:
                # hands: who scored more in the hand (points during play count,
                # and in a 3-4 player hand a third bot's win is no draw)
                score = np.where(MG[g, a] > MG[g, b], 1.0, np.where(MG[g, a] < MG[g, b], 0.0, 0.5))
            else:
                score = np.where(W[g, a], 1.0, np.where(W[g, b], 0.0, 0.5))
            diff = (MG[g, a] - MG[g, b]) * scale[g]
            rows.append(pd.DataFrame({"table": tables[g], "deal": deals[g], "game": g, "a": a, "b": b,
                                      "score": score, "diff": diff}))
    out = (pd.concat(rows, ignore_index=True) if rows else
           pd.DataFrame({c: pd.Series(dtype=t) for c, t in
                         (("table", "int64"), ("deal", "int64"), ("game", "int64"), ("a", "int64"),
                          ("b", "int64"), ("score", "float64"), ("diff", "float64"))}))
    out.attrs["bots"] = order
    return out


def pairing_stats(hands: pd.DataFrame, matches: pd.DataFrame | None = None,
                  bots: Sequence[str] | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """Per pair of bots that met: ``games`` (hands, or matches when
    ``matches`` is given), ``wins_a``, ``wins_b``, ``draws``, ``win_rate``
    (a's, draws as halves) with its Wilson interval ``win_lo``, ``win_hi``;
    ``deals`` (duplicate groups), ``points_diff``: a's points per hand minus
    b's, with the paired interval ``diff_lo``, ``diff_hi`` (t interval over
    the per-deal means, each deal played in every rotation)."""
    order = _bot_order(hands, bots)
    oh = outcomes(hands, order)
    ow = outcomes(matches, order) if matches is not None else oh
    rows = []
    for (a, b), grp in ow.groupby(["a", "b"], sort=True):
        wa = int((grp["score"] == 1).sum())
        wb = int((grp["score"] == 0).sum())
        dr = int((grp["score"] == 0.5).sum())
        n = len(grp)
        rate = (wa + dr / 2) / n
        lo, hi = wilson(wa + dr / 2, n, confidence)
        h = oh[(oh["a"] == a) & (oh["b"] == b)]
        per_deal = h.groupby(["table", "deal"])["diff"].mean()
        mean, dlo, dhi = paired_ci(per_deal.to_numpy(), confidence)
        rows.append({"bot_a": order[a], "bot_b": order[b], "games": n, "wins_a": wa, "wins_b": wb,
                     "draws": dr, "win_rate": rate, "win_lo": lo, "win_hi": hi, "deals": len(per_deal),
                     "points_diff": mean, "diff_lo": dlo, "diff_hi": dhi})
    cols = ["bot_a", "bot_b", "games", "wins_a", "wins_b", "draws", "win_rate", "win_lo", "win_hi",
            "deals", "points_diff", "diff_lo", "diff_hi"]
    return pd.DataFrame(rows, columns=cols)


def win_matrix(pairings: pd.DataFrame, bots: Sequence[str] | None = None):
    """``(rate, lo, hi)``: square DataFrames, row bot's win rate against the
    column bot (NaN where they did not meet), from :func:`pairing_stats`."""
    names = list(bots) if bots is not None else list(dict.fromkeys(
        [x for ab in zip(pairings["bot_a"], pairings["bot_b"]) for x in ab]))
    rate, lo, hi = (pd.DataFrame(np.nan, index=names, columns=names) for _ in range(3))
    for r in pairings.itertuples():
        rate.loc[r.bot_a, r.bot_b], rate.loc[r.bot_b, r.bot_a] = r.win_rate, 1 - r.win_rate
        lo.loc[r.bot_a, r.bot_b], lo.loc[r.bot_b, r.bot_a] = r.win_lo, 1 - r.win_hi
        hi.loc[r.bot_a, r.bot_b], hi.loc[r.bot_b, r.bot_a] = r.win_hi, 1 - r.win_lo
    return rate, lo, hi


def bradley_terry(wins: np.ndarray, prior: float = 0.5, tol: float = 1e-10, max_iter: int = 10000) -> np.ndarray:
    """Bradley–Terry ratings on the Elo scale (``400 log10`` of the strength,
    mean 0) from ``wins[i, j]``: wins of ``i`` over ``j`` (draws as halves).
    ``prior`` adds that many wins each way to every pair, which keeps a bot
    that never won (or never lost) finite. Fitted by the MM algorithm
    (Hunter 2004). With two bots the difference is
    ``400 log10((w_ab + prior) / (w_ba + prior))``."""
    w = np.array(wins, float)
    k = len(w)
    w = w + prior * (1 - np.eye(k))
    n = w + w.T
    total = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(max_iter):
        den = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(den > 0, total / np.where(den > 0, den, 1), p)
        new = new / np.exp(np.mean(np.log(np.maximum(new, 1e-300))))
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    r = 400 * np.log10(np.maximum(p, 1e-300))
    return r - r.mean()


def ratings(df: pd.DataFrame, bots: Sequence[str] | None = None, n_boot: int = 200, seed: int = 0,
            confidence: float = 0.95, prior: float = 0.5) -> pd.DataFrame:
    """Bradley–Terry ratings (Elo scale, mean 0) of all bots together, from
    the pairwise outcomes of a hands (or matches) table, with percentile
    bootstrap intervals: the duplicate groups (deal x table, all rotations)
    are resampled with replacement ``n_boot`` times. Columns ``bot``,
    ``rating``, ``lo``, ``hi``, ``games``; best first. A bot whose
    resamples all give one rating (one duplicate group, or groups that all
    ended alike, such as a bot that won every game) gets nan bounds: the
    bootstrap cannot tell its uncertainty, and an interval of width 0
    would claim certainty."""
    o = outcomes(df, bots)
    order = o.attrs["bots"]
    k = len(order)
    grp = o.groupby(["table", "deal"]).ngroup().to_numpy() if len(o) else np.zeros(0, int)
    G = int(grp.max()) + 1 if len(grp) else 0
    C = np.zeros((G, k, k))
    a, b, s = o["a"].to_numpy(), o["b"].to_numpy(), o["score"].to_numpy()
    np.add.at(C, (grp, a, b), s)
    np.add.at(C, (grp, b, a), 1 - s)
    total = C.sum(axis=0)
    est = bradley_terry(total, prior)
    boots = np.empty((n_boot, k))
    rng = np.random.default_rng(seed)
    flat = C.reshape(G, k * k)
    chunk = max(1, min(n_boot, 2_000_000 // max(G, 1)))  # resamples per matrix product (~16 MB)
    for i0 in range(0, n_boot, chunk):
        n = min(chunk, n_boot - i0)
        wts = np.stack([np.bincount(rng.integers(G, size=G), minlength=G) for _ in range(n)]) if G \
            else np.zeros((n, 0))
        sums = wts.astype(float) @ flat
        for j in range(n):
            boots[i0 + j] = bradley_terry(sums[j].reshape(k, k), prior)
    q = (1 - confidence) / 2
    lo = np.quantile(boots, q, axis=0) if n_boot else np.full(k, np.nan)
    hi = np.quantile(boots, 1 - q, axis=0) if n_boot else np.full(k, np.nan)
    alike = np.ptp(boots, axis=0) == 0 if n_boot else np.ones(k, bool)
    lo[alike] = hi[alike] = np.nan
    games = np.zeros(k, int)
    np.add.at(games, a, 1)
    np.add.at(games, b, 1)
    out = pd.DataFrame({"bot": order, "rating": est, "lo": lo, "hi": hi, "games": games})
    return out.sort_values("rating", ascending=False, ignore_index=True)


def median_ms_per_decision(hands: pd.DataFrame) -> dict:
    """Per bot, the median over its hand rows with decisions of ``time /
    moves`` (the CPU seconds it spent in the hand per move it made), in
    milliseconds; ``{}`` without a ``time`` column."""
    if "time" not in hands.columns or "moves" not in hands.columns:
        return {}
    h = hands[hands["moves"] > 0]
    return {str(b): float(np.median(g["time"] / g["moves"]) * 1000) for b, g in h.groupby("bot")}


def format_summary(pairings: pd.DataFrame, ratings_df: pd.DataFrame, ms: dict | None = None) -> str:
    """The pairings and the ratings as aligned text tables; ``ms`` (bot ->
    median ms per decision, :func:`median_ms_per_decision`) adds a column to
    the ratings."""
    def num(x, f="{:.3f}"):
        return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f.format(x)

    p = pd.DataFrame({
        "pairing": [f"{a} v {b}" for a, b in zip(pairings["bot_a"], pairings["bot_b"])],
        "games": pairings["games"],
        "W-L-D": [f"{a}-{b}-{d}" for a, b, d in zip(pairings["wins_a"], pairings["wins_b"], pairings["draws"])],
        "win rate [95%]": [f"{num(r)} [{num(lo)}, {num(hi)}]" for r, lo, hi in
                           zip(pairings["win_rate"], pairings["win_lo"], pairings["win_hi"])],
        "points/hand diff [95%]": [f"{num(m, '{:+.2f}')} [{num(lo, '{:+.2f}')}, {num(hi, '{:+.2f}')}]"
                                   for m, lo, hi in zip(pairings["points_diff"], pairings["diff_lo"],
                                                        pairings["diff_hi"])],
    })
    r = pd.DataFrame({
        "bot": ratings_df["bot"],
        "rating [95%]": [f"{num(x, '{:+.0f}')} [{num(lo, '{:+.0f}')}, {num(hi, '{:+.0f}')}]"
                         for x, lo, hi in zip(ratings_df["rating"], ratings_df["lo"], ratings_df["hi"])],
        "games": ratings_df["games"],
    })
    if ms:
        r["ms/decision"] = [num(ms.get(str(b)), "{:.3g}") for b in ratings_df["bot"]]
    return ("Pairings (win rate of the first bot; draws count half)\n"
            + (p.to_string(index=False) if len(p) else "(no pairings)")
            + "\n\nRatings (Bradley-Terry, Elo scale, mean 0)\n"
            + (r.to_string(index=False) if len(r) else "(no ratings)"))
