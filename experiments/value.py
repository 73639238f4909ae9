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
(``dominoai/learn/models/``), with its log (parquet) and learning curve
(PNG) under ``--out``.

Usage::

    python experiments/value.py    # the shipped models: 10,000 deals, (64, 32), 20 epochs
    python experiments/value.py --presets draw --deals 10 --epochs 2 --out /tmp/v --no-ship   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from dominoai.learn.model import MODELS_DIR
from dominoai.learn.value import generate, train_value, write_log

#: insane's rollout policy per preset (its defaults): the rollouts' policy of the targets
POLICY = {"draw": "random", "block": "random", "all_fives": "hard", "kozel": "random"}


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
    ap.add_argument("--resume", action="store_true", help="go on from the checkpoints in --out")
    ap.add_argument("--no-ship", action="store_true", help="save the models under --out only")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    hidden = tuple(int(h) for h in a.hidden.split(","))
    for preset in a.presets:
        data_file = out / f"{preset}-data.npz"
        t0 = time.perf_counter()
        if a.resume and data_file.exists():
            with np.load(data_file) as z:
                data = {k: z[k] for k in z.files}
        else:
            data = generate(preset, a.deals, teacher="hard", jobs=a.jobs, seed=a.seed,
                            rollouts=a.rollouts, rollout_policy=POLICY.get(preset, "random"))
            np.savez_compressed(data_file, **data)
        t_data = time.perf_counter() - t0
        # the command as a model records it: without --out (a path of the machine)
        args = [f"--presets {preset}", f"--deals {a.deals}", f"--rollouts {a.rollouts}",
                f"--epochs {a.epochs}", f"--hidden {a.hidden}", f"--seed {a.seed}"]
        cmd = " ".join(["python", "experiments/value.py", *args])
        res = train_value(data, preset, hidden=hidden, epochs=a.epochs, seed=a.seed,
                          checkpoint_dir=out / preset, resume=a.resume, progress=True,
                          training_command=cmd, name=f"{preset}-value")
        write_log(res.log, out, f"{preset}-value")
        dest = (out if a.no_ship else MODELS_DIR) / f"{preset}-value.npz"
        dest.parent.mkdir(parents=True, exist_ok=True)
        res.model.save(dest)
        last = res.log[-1]
        summary = {"preset": preset, "deals": a.deals, "worlds": int(len(data["target"])),
                   "solved_share": float(np.mean(data["solved"])),
                   "target_var": float(np.var(data["target"])), "train_mse": last["train_mse"],
                   "held_mse": last["held_mse"], "data_seconds": round(t_data, 1),
                   "train_seconds": round(last["seconds"], 1), "model": res.model.ident,
                   "bytes": dest.stat().st_size}
        print(json.dumps(summary))
        with open(out / "summary.jsonl", "a") as f:
            f.write(json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
