"""What the experiment scripts share: a resumable tournament, a pairing read
from one bot's side, the median ms per decision, and a markdown report.

Run the scripts from the project root (``python experiments/gap.py``): Python
puts ``experiments/`` on the path, so ``from _common import ...`` works.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def run_or_load(path: Path, variant: str, bots: list, deals: int, seed: int, jobs: int,
                progress: bool = False, batch_units: int | None = None):
    """The tournament whose results file is ``path``: read back when it is
    finished, continued when its parts are on disk (``<path>.parts/``),
    else played (:func:`dominoai.run_tournament`, duplicate deals;
    ``batch_units`` deals per part, default the tournament's)."""
    from dominoai.tournament import load_results, run_tournament
    path = Path(path)
    if path.exists():
        return load_results(path)
    parts = Path(str(path) + ".parts")
    return run_tournament(variant, bots=bots, hands=deals, seed=seed, out=path, jobs=jobs,
                          resume=parts.exists(), progress=progress, batch_units=batch_units)


def median_ms(hands: pd.DataFrame, bot: str | None = None):
    """Median ms per decision (over hand rows with decisions, ``time / moves``;
    ``time`` is CPU time): of ``bot``, or a dict for every bot
    (:func:`dominoai.tournament.stats.median_ms_per_decision`)."""
    from dominoai.tournament.stats import median_ms_per_decision
    per = median_ms_per_decision(hands)
    return per if bot is None else per.get(bot, float("nan"))


def pairing_from(res, a: str) -> dict:
    """The first pairing of ``res`` from bot ``a``'s side: ``deals``,
    ``games``, ``points_diff`` (a minus the other, points per hand) with its
    paired 95% interval ``diff_lo``, ``diff_hi``, and ``win_rate`` (a's,
    draws as halves)."""
    pr = res.pairings.iloc[0]
    sign = 1 if pr["bot_a"] == a else -1
    lo, hi = sorted((sign * pr["diff_lo"], sign * pr["diff_hi"]))
    return {"deals": int(pr["deals"]), "games": int(pr["games"]),
            "points_diff": float(sign * pr["points_diff"]), "diff_lo": float(lo),
            "diff_hi": float(hi),
            "win_rate": float(pr["win_rate"] if sign == 1 else 1 - pr["win_rate"])}


def row_args(doc: str, deals: int, out: str, presets, argv=None, seed: int | None = None):
    """The command line of a script that plays one tournament per row of a
    table: ``--deals``, ``--only`` (some of the rows' ``presets``; another
    name is refused with exit code 2), ``--jobs``, ``--out`` (made if
    missing) and, with a default ``seed``, ``--seed``. Returns ``(args,
    only, out)``: the parsed arguments, the set of presets asked for (empty:
    all) and the output folder as a Path."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=deals)
    ap.add_argument("--only", default="", help="presets to run (comma-separated; default all rows)")
    ap.add_argument("--jobs", type=int, default=1)
    if seed is not None:
        ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--out", default=out)
    args = ap.parse_args(argv)
    only = {p.strip() for p in args.only.split(",") if p.strip()}
    if only - set(presets):
        import sys
        print(f"{ap.prog}: error: --only: no rows for {', '.join(sorted(only - set(presets)))}; "
              f"the rows' presets are {', '.join(sorted(set(presets)))}", file=sys.stderr)
        raise SystemExit(2)
    path = Path(args.out)
    path.mkdir(parents=True, exist_ok=True)
    return args, only, path


def head_to_head(path: Path, variant: str, a: str, b: str, deals: int, seed: int,
                 jobs: int) -> dict:
    """Bot ``a`` against bot ``b`` (:func:`run_or_load` of ``path``): ``deals``,
    ``gain`` (a minus b, points per hand) with its paired 95% interval ``lo``,
    ``hi``, and the median CPU ms per decision ``a_ms`` and ``b_ms`` (the
    results file's other bot, whatever its name there)."""
    res = run_or_load(path, variant, [a, b], deals, seed, jobs)
    pr = pairing_from(res, a)
    ms = median_ms(res.hands)
    return {"deals": pr["deals"], "gain": pr["points_diff"], "lo": pr["diff_lo"],
            "hi": pr["diff_hi"], "a_ms": ms[a], "b_ms": next(v for k, v in ms.items() if k != a)}


def interval(m: float, lo: float, hi: float) -> str:
    """``+1.23 [+0.45, +2.01]``."""
    return f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def write_report(out: Path, rows: list[dict], title: str, intro: str, header: list[str], line) -> Path:
    """``summary.csv`` (the rows) and ``report.md`` (a title, an intro
    paragraph and a table whose row ``r`` is ``line(r)``, a list of cells)
    under ``out``; returns the report's path."""
    out = Path(out)
    pd.DataFrame(rows).to_csv(out / "summary.csv", index=False)
    lines = [f"# {title}", "", intro, "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(line(r)) + " |" for r in rows]
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def per_deal_margin(res, a: str) -> pd.Series:
    """Bot ``a``'s points per hand minus the other bot's, one value per
    duplicate group (the mean over the deal's seat rotations), indexed by
    ``(table, deal)``: the values :func:`pairing_from`'s interval is taken
    over. Two runs on the same seed and deal count share the index, so a
    paired interval between them is the t interval of the difference."""
    from dominoai.tournament.stats import outcomes
    o = outcomes(res.hands)
    order = o.attrs["bots"]
    ia = order.index(a)
    sign = np.where(o["a"].to_numpy() == ia, 1.0, -1.0)
    d = pd.DataFrame({"table": o["table"], "deal": o["deal"], "diff": sign * o["diff"].to_numpy()})
    return d.groupby(["table", "deal"])["diff"].mean()
