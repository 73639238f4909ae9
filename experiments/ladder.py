"""The level ladder on every preset: results tables, figures and a summary.

For each preset (at its default player count, or the counts given), plays a
tournament of the bot levels (easy, medium, hard, insane: those registered)
on duplicate deals and writes, under ``--out``:

- ``<preset>-<players>p.parquet``: the hands table (and the parts while it
  runs: a killed run continues with ``--resume``);
- ``<preset>-<players>p.png``: win-rate matrix, ratings, points per hand;
- ``summary.md``: the pairing and rating tables of every preset.

Every results file carries its provenance (this command line, the seed, the
version and code hash, the rules, the bots), and every figure's title names
the preset, the players, the deals and the seed.

Examples::

    python experiments/ladder.py --hands 2000 --jobs -1 --out results/ladder
    python experiments/ladder.py --presets draw --hands 1000 --jobs 2   # one preset: the README's figure
    python experiments/ladder.py --presets draw,block --players 2,4 --hands 200
    python experiments/ladder.py --bots easy,medium --hands 50 --out /tmp/ladder   # quick check
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

LEVELS = ("easy", "medium", "hard", "insane")


def _csv(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def main(argv=None) -> int:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dominoai import preset_names
    from dominoai.bots import bot_names
    from dominoai.plots import plot_results
    from dominoai.rules import PRESETS
    from dominoai.tournament import run_tournament

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", type=_csv, default=preset_names(),
                    help="comma-separated, e.g. draw for one preset (default: all)")
    ap.add_argument("--players", type=lambda s: [int(x) for x in _csv(s)], default=None,
                    help="player counts to try per preset, where allowed (default: each preset's default)")
    ap.add_argument("--bots", type=_csv, default=None,
                    help="bot specs (default: the registered levels among easy,medium,hard,insane)")
    ap.add_argument("--hands", type=int, default=500, help="deals per pairing (each in every rotation)")
    ap.add_argument("--jobs", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("results/ladder"))
    ap.add_argument("--resume", action="store_true", help="continue killed runs")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    command = "python experiments/ladder.py " + shlex.join(sys.argv[1:] if argv is None else list(argv))
    unknown = [p for p in a.presets if p not in PRESETS]
    if unknown:
        ap.error(f"unknown preset {unknown[0]!r}; presets are {', '.join(preset_names())}")

    bots = a.bots or [b for b in LEVELS if b in bot_names()]
    a.out.mkdir(parents=True, exist_ok=True)
    summary = [f"# Level ladder\n\nbots: {', '.join(bots)}; {a.hands} deals per pairing, "
               f"every seat rotation; seed {a.seed}\n"]
    for preset in a.presets:
        _, default, (lo, hi), source = PRESETS[preset]
        counts = [p for p in (a.players or [default]) if lo <= p <= hi] or [default]
        for players in counts:
            name = f"{preset}-{players}p"
            t0 = time.perf_counter()
            res = run_tournament(preset, bots, players=players, hands=a.hands, jobs=a.jobs, seed=a.seed,
                                 out=a.out / f"{name}.parquet", resume=a.resume,
                                 progress=not a.no_progress, command=command)
            fig = plot_results(res, a.out / f"{name}.png")
            plt.close(fig)
            took = time.perf_counter() - t0
            print(f"\n== {name} ({source}) {took:.1f} s\n{res.summary()}", flush=True)
            summary.append(f"\n## {name} ({source})\n\n![{name}]({name}.png)\n\n```\n{res.summary()}\n```\n")
    (a.out / "summary.md").write_text("".join(summary), encoding="utf-8")
    print(f"\nwrote {a.out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
