#!/usr/bin/env python
"""Improve the shipped Block policy by PPO and rate it against the start and hard.

Trains with :func:`dominoai.learn.ppo.train_run` in ``--out/ppo-block``
(the settings of ``RUN``, fixed here, from the shipped ``block-policy``;
resumes where it stopped), then plays ``neural:model=FILE`` (the PPO
checkpoint), ``neural:model=block-policy`` and ``hard`` against each other
on the same duplicate deals (``--deals``, seed 0, every deal in both seat
rotations): points per hand of the first minus the second with the paired
95% interval, and each bot's median ms per decision (CPU time) in that run.
``--ship`` copies the model to ``dominoai/nets/models/block-ppo.npz``.

Writes ``ppo-summary.json`` and ``ppo-summary.md`` (``ppo-summary-klVALUE.*``
with ``--kl``) under ``--out`` (default ``results``).

    python experiments/ppo.py --jobs 2                  # train, then rate on 600 deals
    python experiments/ppo.py --kl 0 --jobs 2           # the same without the KL leash
    python experiments/ppo.py --kl 0 --deals 2000 --seed 1   # rated again on fresh deals
    python experiments/ppo.py --iterations 2 --deals 4  # a quick check of the pipeline
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

#: the settings of the run (``dominoai.learn.ppo.DEFAULTS`` for the rest)
RUN = {"iterations": 1400}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=RUN["iterations"],
                    help=f"PPO iterations (default {RUN['iterations']})")
    ap.add_argument("--deals", type=int, default=600, help="evaluation deals per pairing (default 600)")
    ap.add_argument("--seed", type=int, default=0,
                    help="the evaluation's deals (default 0; another seed gives fresh deals)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--kl", type=float, default=None,
                    help="the KL leash's weight (default: dominoai.learn.ppo's, 0.02); another value trains "
                         "in ppo-block-klVALUE")
    ap.add_argument("--ship", action="store_true", help="copy the model to dominoai/nets/models/block-ppo.npz")
    args = ap.parse_args(argv)
    if args.iterations < 1 or args.deals < 1 or args.seed < 0 or args.jobs == 0 or args.jobs < -1 or (
            args.kl is not None and not args.kl >= 0):
        print("ppo.py: --iterations and --deals must be positive, --jobs positive or -1, --kl 0 or more",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import interval, median_ms, run_or_load
    from train import pair

    from dominoai.nets.model import MODELS_DIR, load_model
    from dominoai.learn.ppo import DEFAULTS, train_run

    settings = {**RUN, "iterations": args.iterations}
    run = args.out / "ppo-block"
    if args.kl is not None and args.kl != DEFAULTS["kl"]:
        settings["kl"] = args.kl
        run = args.out / f"ppo-block-kl{args.kl:g}"
    if not (run / "model.npz").exists() or load_model(run / "model.npz").header["data"]["iterations"] \
            != args.iterations:
        train_run(run, "block", init="block-policy", resume=True, progress=True, **settings)
    model = load_model(run / "model.npz")
    if args.ship:
        shutil.copyfile(run / "model.npz", MODELS_DIR / "block-ppo.npz")
    ppo, start = f"neural:model={run / 'model.npz'}", "neural:model=block-policy"
    tag = f"eval-{args.deals}" + (f"-seed{args.seed}" if args.seed else "")
    res = run_or_load(run / f"{tag}.parquet", "block", [ppo, start, "hard"], args.deals, args.seed,
                      args.jobs, progress=True)
    ms = median_ms(res.hands)
    entry = {"model": model.ident, "data": model.header["data"],
             "training_command": model.header["training_command"],
             "ppo_vs_start": pair(res, ppo, start), "ppo_vs_hard": pair(res, ppo, "hard"),
             "start_vs_hard": pair(res, start, "hard"),
             "ms_per_decision": {"ppo": ms.get(ppo), "start": ms.get(start), "hard": ms.get("hard")}}
    stem = "ppo-summary" + run.name[len("ppo-block"):] + (f"-{args.deals}-seed{args.seed}" if args.seed else "")
    (args.out / f"{stem}.json").write_text(json.dumps(entry, indent=1))

    def fmt(r):
        return interval(r["points_diff"], r["diff_lo"], r["diff_hi"])
    lines = [f"Block, {entry['ppo_vs_start']['deals']} duplicate deals of seed {args.seed}; model {model.ident}", "",
             "| pairing | points per hand, first minus second [95%] | first's win rate |", "|---|---|---|"]
    for key, name in (("ppo_vs_start", "PPO - block-policy"), ("ppo_vs_hard", "PPO - hard"),
                      ("start_vs_hard", "block-policy - hard")):
        lines.append(f"| {name} | {fmt(entry[key])} | {100 * entry[key]['win_rate']:.1f}% |")
    m = entry["ms_per_decision"]
    lines += ["", "| median CPU ms per decision | PPO | block-policy | hard |", "|---|---|---|---|",
              f"| Block | {m['ppo']:.3f} | {m['start']:.3f} | {m['hard']:.3f} |"]
    (args.out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
