"""The studies we use: insane tuned against hard on each preset, resumable,
and a report.

For each preset (draw, block, all_fives, kozel, dominoball by default),
runs ``dominoai.tune.tune`` with its study under ``--out``
(``tune-<preset>.db``, resumed when the command is run again: a killed run
loses at most the trial in progress), the trials table beside it
(``tune-<preset>.trials.csv``), a figure (``tune-<preset>.png``) and
``report.md``: per preset the best setting, its ms per decision, and the
validation verdict (tuned vs defaults, paired 95% interval on fresh deals).

Examples::

    python experiments/tune.py --jobs -1 --max-ms 2 --out results/tune          # hours
    python experiments/tune.py --presets block --trials 4 --hands 16 --validate-hands 16 --out /tmp/t
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

PRESETS = ("draw", "block", "all_fives", "kozel", "dominoball")


def _csv(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _per_preset(text: str, kind) -> dict:
    """``"dominoball=12,kozel=4"`` as ``{"dominoball": 12, "kozel": 4}``."""
    return {k.strip(): kind(v) for k, v in (kv.split("=", 1) for kv in _csv(text))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--bot", default="insane")
    ap.add_argument("--opponents", default="hard")
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--max-ms", type=float, default=None, help="median ms per decision limit")
    ap.add_argument("--max-ms-at", default="", help="per-preset limits, e.g. dominoball=12")
    ap.add_argument("--space", default="", help="as dominoai tune --space")
    ap.add_argument("--fix", default="", help="as dominoai tune --fix")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--validate-hands", type=int, default=4000)
    ap.add_argument("--validate-hands-at", default="", help="per-preset validation deals, e.g. dominoball=1000")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/tune")
    ap.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    args = ap.parse_args(argv)
    max_ms_at = _per_preset(args.max_ms_at, float)
    validate_at = _per_preset(args.validate_hands_at, int)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dominoai.tune import tune
    from dominoai.tune.plots import plot_study

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# Tuning {args.bot} against {args.opponents}", "",
             f"{args.trials} trials of {args.hands} deals per opponent, seed {args.seed}"
             + (f", at most {args.max_ms} ms per decision (median)" if args.max_ms else "")
             + (f" ({args.max_ms_at})" if max_ms_at else "")
             + f"; validation: the best {args.top} against the defaults on {args.validate_hands:,} "
               "fresh deals" + (f" ({args.validate_hands_at})" if validate_at else "")
             + " (paired interval, Bonferroni over the candidates).", "",
             "| preset | setting validated | ms/decision: it / defaults | limit | tuned vs defaults (points/hand) | verdict |",
             "|---|---|---|---|---|---|"]
    for preset in _csv(args.presets):
        t = time.perf_counter()
        study = out / f"tune-{preset}.db"
        res = tune(preset, args.bot, args.opponents, trials=args.trials, hands=args.hands,
                   jobs=args.jobs, seed=args.seed, study=study, space=args.space, fix=args.fix,
                   max_ms=max_ms_at.get(preset, args.max_ms), top=args.top,
                   validate_hands=validate_at.get(preset, args.validate_hands),
                   progress=args.progress)
        fig = plot_study(study, out / f"tune-{preset}.png")
        plt.close(fig)
        print(f"{preset}: {res.verdict_line} ({time.perf_counter() - t:.0f} s)", flush=True)
        v = res.verdict
        if v is not None:
            # the candidate the validation reports (the accepted one, else the best
            # by mean), which need not be the study's best trial
            spec, ms = v.spec, f"{v.ms:.2f} / {v.baseline_ms:.2f}"
            iv = f"{v.mean:+.2f} [{v.lo:.2f}, {v.hi:.2f}] on {v.deals:,} deals"
            what = "better: adopt" if v.accepted else "not significantly better: keep the defaults"
        else:
            best = res.trials[res.trials["spec"] == res.best_spec]
            spec = res.best_spec
            ms = f"{best['ms_per_decision'].iloc[0]:.2f} / -" if len(best) else "-"
            iv, what = "-", res.verdict_line
        limit = max_ms_at.get(preset, args.max_ms)
        lines.append(f"| {preset} | `{spec}` | {ms} | {limit or '-'} | {iv} | {what} |")
        (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")  # after each preset
    print(f"report: {out / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
