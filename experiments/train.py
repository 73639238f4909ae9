#!/usr/bin/env python
"""Train the shipped policy models again and rate each against ``hard``.

For each preset of ``RUNS`` (the data sizes and settings of the shipped
models, fixed here) it runs ``dominoai train`` in ``--out/train-PRESET``
(:func:`dominoai.learn.imitation.train_run`: insane's self-play decisions,
then the policy network), copies the model to
``dominoai/nets/models/PRESET-policy.npz`` when ``--ship`` is given, and
plays ``neural:model=FILE``, ``insane`` and ``hard`` against each other
on the same duplicate deals (``--deals``, seed 0, every deal in every
seat rotation), reporting points per hand with the paired 95% interval
and each bot's median ms per decision (CPU time) in the same run.
The training deals come from seed 10000 on, so they are not those of the
evaluation.

Writes ``train-summary.json`` and ``train-summary.md`` under ``--out`` (default
``results``); every step resumes where it stopped.

    python experiments/train.py --only block --ship --jobs 2     # the shipped Block model
    python experiments/train.py --only block --deals 20 --smoke    # a quick check of the pipeline
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

#: the shipped models' settings: deals of insane's self-play, epochs, hidden layers, and the
#: options of :func:`~dominoai.learn.imitation.train_run` (the action-feature block, early stopping,
#: what it imitates: insane's choice, or the softmax of its move values over a temperature in points)
RUNS = {
    "block": {"deals": 10_000, "epochs": 15, "hidden": (128, 128)},
    "draw": {"deals": 500, "epochs": 30, "hidden": (128, 128), "action_features": True, "keep_best": True},
    "all_fives": {"deals": 3_500, "epochs": 30, "hidden": (128, 128), "action_features": True, "keep_best": True,
                  "imitate": "values", "temperature": 2.0},
    "kozel": {"deals": 4_000, "epochs": 30, "hidden": (128, 128), "action_features": True, "keep_best": True,
              "imitate": "values", "temperature": 4.0},
}


def pair(res, a: str, b: str) -> dict:
    """The pairing of ``a`` and ``b`` in ``res``, from ``a``'s side: deals,
    points per hand a minus b with its paired 95% interval, a's win rate."""
    pr = res.pairings
    row = pr[((pr.bot_a == a) & (pr.bot_b == b)) | ((pr.bot_a == b) & (pr.bot_b == a))].iloc[0]
    sign = 1 if row["bot_a"] == a else -1
    lo, hi = sorted((sign * row["diff_lo"], sign * row["diff_hi"]))
    return {"deals": int(row["deals"]), "points_diff": float(sign * row["points_diff"]), "diff_lo": float(lo),
            "diff_hi": float(hi), "win_rate": float(row["win_rate"] if sign == 1 else 1 - row["win_rate"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help=f"comma-separated presets of: {', '.join(RUNS)}")
    ap.add_argument("--deals", type=int, default=600, help="evaluation deals per pairing (default 600)")
    ap.add_argument("--insane-deals", type=int, default=None,
                    help="deals of the pairings with insane (default --deals: one tournament of the three bots; "
                         "fewer: neural - hard on --deals, and the three bots on the first N deals in a "
                         "tournament of their own, whose ms per decision are then the same run's)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--ship", action="store_true", help="copy each model into dominoai/nets/models/")
    ap.add_argument("--smoke", action="store_true", help="tiny data and one epoch (checks the pipeline)")
    ap.add_argument("--no-eval", action="store_true", help="train only")
    args = ap.parse_args(argv)
    only = [p.strip() for p in args.only.split(",") if p.strip()] or list(RUNS)
    bad = [p for p in only if p not in RUNS]
    if bad:
        print(f"train.py: unknown preset {bad[0]!r}; choose from {', '.join(RUNS)}", file=sys.stderr)
        return 2
    if args.insane_deals is None:
        args.insane_deals = args.deals
    if args.deals < 1 or args.jobs == 0 or args.jobs < -1 or not 0 <= args.insane_deals <= args.deals:
        print("train.py: --deals must be positive, --insane-deals 0 to --deals and --jobs positive or -1",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import median_ms, run_or_load

    from dominoai.learn.imitation import train_run
    from dominoai.nets.model import MODELS_DIR, load_model

    args.out.mkdir(parents=True, exist_ok=True)
    summary_path = args.out / "train-summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    for preset in only:
        cfg = dict(RUNS[preset])
        if args.smoke:
            cfg.update(deals=20, epochs=1)
        run = args.out / f"train-{preset}"
        t0 = time.perf_counter()
        if not (run / "model.npz").exists():
            extra = {k: cfg[k] for k in ("action_features", "weight_decay", "keep_best", "imitate", "temperature")
                     if k in cfg}
            train_run(run, preset, cfg["deals"], epochs=cfg["epochs"], hidden=cfg["hidden"], jobs=args.jobs,
                      resume=True, progress=True, **extra)
        model = load_model(run / "model.npz")
        if args.ship and not args.smoke:
            MODELS_DIR.mkdir(exist_ok=True)
            shutil.copyfile(run / "model.npz", MODELS_DIR / f"{preset}-policy.npz")
        entry = {"model": model.ident, "size_bytes": (run / "model.npz").stat().st_size,
                 "layers": list(model.layers), "data": model.header["data"],
                 "training_command": model.header["training_command"],
                 "wall_seconds_this_call": round(time.perf_counter() - t0, 1)}
        if not args.no_eval:
            shipped = MODELS_DIR / f"{preset}-policy.npz"
            # the shipped model plays as plain `neural`; another one by its file
            spec = ("neural" if shipped.exists() and load_model(shipped).sha256 == model.sha256
                    else f"neural:model={run / 'model.npz'}")
            if args.insane_deals == args.deals:
                res = run_or_load(run / "eval.parquet", preset, [spec, "insane", "hard"], args.deals, 0,
                                  args.jobs, progress=True)
                duel = res
            else:
                duel = run_or_load(run / f"eval-hard-{args.deals}.parquet", preset, [spec, "hard"], args.deals, 0,
                                   args.jobs, progress=True)
                res = (run_or_load(run / f"eval-insane-{args.insane_deals}.parquet", preset,
                                   [spec, "insane", "hard"], args.insane_deals, 0, args.jobs, progress=True)
                       if args.insane_deals > 0 else None)
            entry["neural_vs_hard"] = pair(duel, spec, "hard")
            if res is not None:
                for a, b in (("insane", "hard"), (spec, "insane")):
                    entry[f"{'neural' if a == spec else a}_vs_{b}"] = pair(res, a, b)
                if res is not duel:
                    entry["neural_vs_hard_same_run"] = pair(res, spec, "hard")
                ms = median_ms(res.hands)
                entry["ms_per_decision"] = {"neural": ms.get(spec), "insane": ms.get("insane"),
                                            "hard": ms.get("hard")}
            ms = median_ms(duel.hands)
            entry["ms_per_decision_vs_hard"] = {"neural": ms.get(spec), "hard": ms.get("hard")}
        summary[preset] = entry
        summary_path.write_text(json.dumps(summary, indent=1))
        print(json.dumps({preset: entry}, indent=1))

    def fmt(r):
        return f"{r['points_diff']:+.2f} [{r['diff_lo']:+.2f}, {r['diff_hi']:+.2f}]" if r else ""
    lines = ["| preset | model | decisions | deals | neural - hard | deals with insane | insane - hard "
             "| neural - insane | ms neural | ms insane |", "|---|---|---|---|---|---|---|---|---|---|"]
    for p, e in summary.items():
        ms = e.get("ms_per_decision", {})
        lines.append(f"| {p} | {e['model']} | {e['data'].get('rows')} | "
                     f"{e.get('neural_vs_hard', {}).get('deals', '')} | {fmt(e.get('neural_vs_hard'))} | "
                     f"{e.get('insane_vs_hard', {}).get('deals', '')} | "
                     f"{fmt(e.get('insane_vs_hard'))} | {fmt(e.get('neural_vs_insane'))} | "
                     f"{ms.get('neural') or float('nan'):.3f} | {ms.get('insane') or float('nan'):.3f} |")
    (args.out / "train-summary.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
