#!/usr/bin/env python
"""Train the value networks insane reads at its rollouts' leaves (``value_plies``).

For each preset: ``hard`` plays itself on ``--deals`` duplicate deals
(:func:`dominoai.tournament.run.play_records`); every world after a play,
seen from the seat that made it, is labelled with the exact solver's value
where at most 12 tiles are left and the solve stays within 20,000 nodes,
else the mean of ``--rollouts`` rollouts with insane's rollout policy in
that preset (:func:`dominoai.learn.value.generate`). A value network is
trained on it (:func:`dominoai.learn.value.train_value`, 10% of the hands
held out) and saved as the shipped model ``PRESET-value``
(``dominoai/nets/models/``), with its dataset, log (parquet) and learning
curve (PNG) under ``--out/PRESET``. Each preset is one
:func:`dominoai.learn.value.value_run`, the run of ``dominoai train --kind
value``; the model's header records that command.

Usage::

    python experiments/value.py    # the shipped models: 10,000 deals, (64, 32), 20 epochs
    python experiments/value.py --presets draw --deals 10 --epochs 2 --out results/value-smoke --no-ship   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np

from dominoai.learn.value import ROLLOUT_POLICY, load_dataset, value_run
from dominoai.nets.model import MODELS_DIR


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", nargs="+", default=["draw", "all_fives", "kozel"])
    ap.add_argument("--deals", type=int, default=10000)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--hidden", default="64,32")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/value")
    ap.add_argument("--resume", action="store_true", help="go on from the runs in --out")
    ap.add_argument("--no-ship", action="store_true", help="save the models under --out only")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    hidden = tuple(int(h) for h in a.hidden.split(","))
    for preset in a.presets:
        run = out / preset
        # the run records its `dominoai train --kind value` command in the model's header
        res = value_run(run, preset, a.deals, teacher="hard", rollouts=a.rollouts,
                        rollout_policy=ROLLOUT_POLICY.get(preset, "random"), epochs=a.epochs, hidden=hidden,
                        seed=a.seed, jobs=a.jobs, resume=a.resume, progress=True, name=f"{preset}-value")
        data, meta = load_dataset(run / "data.npz")
        dest = run / "model.npz"
        if not a.no_ship:
            MODELS_DIR.mkdir(exist_ok=True)
            dest = Path(shutil.copyfile(run / "model.npz", MODELS_DIR / f"{preset}-value.npz"))
        last = res.log[-1]
        summary = {"preset": preset, "deals": a.deals, "worlds": int(len(data["target"])),
                   "solved_share": float(np.mean(data["solved"])),
                   "target_var": float(np.var(data["target"])), "train_mse": last["train_mse"],
                   "held_mse": last["held_mse"], "data_seconds": meta.get("generation_seconds"),
                   "train_seconds": round(last["seconds"], 1), "model": res.model.ident,
                   "command": res.model.header["training_command"], "bytes": dest.stat().st_size}
        print(json.dumps(summary))
        with open(out / "summary.jsonl", "a") as f:
            f.write(json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
