"""A policy by imitation: a teacher's decisions as a dataset, and an MLP
trained to predict them (training needs the ``[learn]`` extra: jax, optax).

1. :func:`generate` plays the teacher (``insane`` by default) against
   itself through :func:`~dominoai.tournament.run.play_records` (the
   tournament's backends, ``jobs`` processes) and :func:`decisions` turns
   each of its records into one row per decision, replayed through the
   engine: the deciding seat's observation vector, its legal ids, the id it
   chose, the seat, and that hand's final margin for the seat's side (the
   tournament's ``margin``: more is better, in points; the target of a
   value network). :func:`save_dataset` / :func:`load_dataset` keep it as
   one ``.npz``.
2. :func:`train_policy` fits a policy :class:`~dominoai.learn.model.Model`
   by cross-entropy over the legal ids (the illegal ones masked out), in
   shuffled minibatches with Adam, on all but a held-out share of the
   hands; after each epoch it logs the loss and the accuracy (the share of
   decisions where the model's top legal id is the teacher's) on both
   parts, and saves a checkpoint (weights, optimizer state, log) from
   which ``resume=True`` goes on.

The rows of one hand stay on the same side of the split, so the held-out
figures measure hands the model never saw.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from ..engine.encode import ENCODING_VERSION, N_ACTIONS, OBS_SIZE, encode
from ..errors import InputError, check_int, check_number

__all__ = ["DATA_FIELDS", "decisions", "generate", "save_dataset", "load_dataset", "split_hands",
           "train_policy", "TrainResult", "write_curve", "train_run"]

#: the dataset's arrays: name -> (dtype, shape after the row axis, meaning)
DATA_FIELDS = {
    "obs": ("float32", (OBS_SIZE,), "the deciding seat's observation vector"),
    "mask": ("bool", (N_ACTIONS,), "its legal action ids"),
    "action": ("int16", (), "the id the teacher chose"),
    "seat": ("int8", (), "the deciding seat"),
    "margin": ("float32", (), "the hand's final margin for the seat's side, in points"),
    "hand": ("int32", (), "the hand's number in the dataset (rows of a hand are contiguous)"),
}


def _empty():
    return {k: [] for k in DATA_FIELDS}


def decisions(records) -> dict:
    """The teacher's decisions of ``records`` (:class:`~dominoai.records.Record`
    or anything :func:`~dominoai.records.load_record` takes), one row per
    play or replacement, as arrays (:data:`DATA_FIELDS`); forced draws and
    passes are not decisions. Each hand is replayed through the engine, so
    the observation is the one the seat saw.

    :raises RecordError: a record that does not replay.
    """
    from ..game import Match
    from ..moves import Move
    from ..records import RecordError, load_record
    from ..tournament.loop import margins

    out = _empty()
    n_hand = 0
    for rec in records:
        rec = load_record(rec)
        match = Match(rec.rules, seed=0)
        rules = rec.rules
        for hi, hr in enumerate(rec.hands, 1):
            hand = match.new_hand([[t.id for t in s] for s in hr.deal],
                                  None if hr.boneyard is None else [t.id for t in hr.boneyard], hr.leader)
            rows = []
            for mv in hr.moves:
                if mv.kind in ("draw", "pass"):
                    continue
                if hand.over:
                    raise RecordError("a move after the hand's end", hi)
                seat = hand.seat
                obs = hand.observe(seat)
                legal = obs.legal_codes()
                orientation = 0
                if mv.kind == "replace":
                    move = Move.replacement()
                    code = move.code
                elif not hand.ends:
                    move = Move(mv.tile)
                    code = mv.tile.id * 4
                    a, b = ((int(x) for x in mv.text.split(":")) if mv.text else (mv.tile.high, mv.tile.low))
                    orientation = 1 if a < b else 0
                else:
                    move = Move(mv.tile, mv.end)
                    code = move.code
                if code not in legal:   # an end equivalent to the listed one: the tile's listed id
                    same = [c for c in legal if c >> 2 == code >> 2 and c != 112]
                    code = same[0] if same else code
                mask = np.zeros(N_ACTIONS, bool)
                mask[legal] = True
                rows.append((encode(obs.array), mask, code, seat))
                hand.play(move, orientation=orientation)
            if not hand.over:
                continue        # a hand that stops mid-way has no margin: left out
            m = margins(rules, hand.points)
            for x, mask, code, seat in rows:
                out["obs"].append(x)
                out["mask"].append(mask)
                out["action"].append(code)
                out["seat"].append(seat)
                out["margin"].append(m[rules.side_of(seat)])
                out["hand"].append(n_hand)
            n_hand += 1
    return _stack(out)


def _stack(cols: dict) -> dict:
    res = {}
    for k, (dt, shape, _) in DATA_FIELDS.items():
        res[k] = (np.stack(cols[k]).astype(dt) if cols[k] and shape
                  else np.asarray(cols[k], dt).reshape((len(cols[k]),) + shape))
    return res


def generate(preset: str, deals: int, teacher: str = "insane", jobs: int = 1, seed: int = 0,
             backend: str | None = None, progress: bool = False, chunk: int = 500) -> dict:
    """The decisions of ``teacher`` playing itself on ``deals`` duplicate
    deals of ``preset`` (each deal in every rotation of the seats), played by
    the tournament (``jobs`` processes on ``backend``) ``chunk`` deals at a
    time, replayed by :func:`decisions`. The same arguments give the same
    rows for any ``jobs`` and backend.

    :raises InputError: a bad count, as :func:`~dominoai.tournament.run.play_records`.
    :raises ValueError: an unknown preset, bot or backend.
    """
    from ..tournament.run import play_records
    deals = check_int("deals", deals, 1)
    chunk = check_int("chunk", chunk, 1)
    parts = []
    n_hands = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=deals, desc=f"{teacher} on {preset}", unit="deal")
    for start in range(0, deals, chunk):
        n = min(chunk, deals - start)
        recs = play_records(preset, [teacher], hands=n, jobs=jobs, seed=seed + start, backend=backend)
        d = decisions(recs)
        d["hand"] = d["hand"] + n_hands
        n_hands = int(d["hand"].max()) + 1 if len(d["hand"]) else n_hands
        parts.append(d)
        if bar is not None:
            bar.update(n)
    if bar is not None:
        bar.close()
    return {k: np.concatenate([p[k] for p in parts]) for k in DATA_FIELDS}


def save_dataset(path, data: dict, **meta) -> Path:
    """Write a dataset (:data:`DATA_FIELDS`) to ``path`` (``.npz``) whole or
    not at all, with ``meta`` (JSON-compatible: preset, teacher, deals,
    command) and the encoding version as a JSON ``meta`` entry.

    :raises OSError: the folder cannot be written.
    """
    from .._files import atomic_write
    meta = {"encoding_version": ENCODING_VERSION, "rows": int(len(data["action"])),
            "hands": int(data["hand"].max()) + 1 if len(data["hand"]) else 0, **meta}

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez_compressed(f, meta=np.array(json.dumps(meta, sort_keys=True)),
                                **{k: data[k] for k in DATA_FIELDS})
    return atomic_write(Path(path), write)


def load_dataset(path) -> tuple[dict, dict]:
    """``(data, meta)`` of a dataset file written by :func:`save_dataset`.

    :raises ValueError: not a dataset, or another encoding version.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"][()]))
            data = {k: z[k] for k in DATA_FIELDS}
    except Exception as e:  # noqa: BLE001 - any failure to read is "not a dataset"
        raise ValueError(f"{Path(path).name} is not a dominoai dataset ({type(e).__name__})") from None
    if meta.get("encoding_version") != ENCODING_VERSION:
        raise ValueError(f"{Path(path).name} was encoded with version {meta.get('encoding_version')}; "
                         f"this dominoai encodes version {ENCODING_VERSION}")
    return data, meta


def split_hands(hand: np.ndarray, held_out: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(train, held_out)`` (``int64``): a ``held_out`` share of
    the hands (at least one when there are two or more), drawn with ``seed``,
    goes to the second part with all its rows."""
    hands = np.unique(hand)
    rng = np.random.default_rng(seed)
    k = int(round(held_out * len(hands)))
    if held_out > 0 and len(hands) >= 2:
        k = min(max(k, 1), len(hands) - 1)
    test = np.zeros(int(hand.max()) + 1 if len(hand) else 0, bool)
    test[rng.choice(hands, size=k, replace=False)] = True
    is_test = test[hand]
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


class TrainResult:
    """What :func:`train_policy` returns: ``model`` (the trained
    :class:`~dominoai.learn.model.Model`), ``log`` (a list of dicts, one per
    epoch: ``epoch``, ``train_loss``, ``train_accuracy``, ``held_loss``,
    ``held_accuracy``, ``seconds`` (the training's total so far)) and
    ``seconds`` (the time of this call)."""

    def __init__(self, model, log, seconds):
        self.model, self.log, self.seconds = model, log, seconds


_CKPT = "checkpoint.npz"


def _save_checkpoint(path: Path, params, opt_state, log, settings) -> None:
    import jax
    from .._files import atomic_write
    path.parent.mkdir(parents=True, exist_ok=True)
    leaves = jax.tree_util.tree_leaves((params, opt_state))
    arrays = {f"leaf{i}": np.asarray(x) for i, x in enumerate(leaves)}

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, state=np.array(json.dumps({"log": log, "settings": settings})), **arrays)
    atomic_write(path, write)


def _load_checkpoint(path: Path, params, opt_state):
    import jax
    with np.load(path, allow_pickle=False) as z:
        state = json.loads(str(z["state"][()]))
        leaves = [z[f"leaf{i}"] for i in range(sum(1 for k in z.files if k.startswith("leaf")))]
    treedef = jax.tree_util.tree_structure((params, opt_state))
    if treedef.num_leaves != len(leaves):
        raise ValueError(f"{path.name} does not fit this network (its layers differ)")
    params, opt_state = jax.tree_util.tree_unflatten(treedef, [jax.numpy.asarray(x) for x in leaves])
    return params, opt_state, state["log"], state["settings"]


def train_policy(data: dict, preset: str, hidden=(128, 128), epochs: int = 10, batch: int = 512,
                 learning_rate: float = 1e-3, held_out: float = 0.1, seed: int = 0,
                 checkpoint_dir=None, resume: bool = False, progress: bool = False,
                 **header) -> TrainResult:
    """Train a policy on ``data`` (:data:`DATA_FIELDS`) for ``preset``.

    :param epochs: passes over the training rows (in all: a resumed run
        trains the epochs its checkpoint lacks).
    :param batch: rows per step (the last, smaller minibatch of an epoch is
        used too).
    :param held_out: the share of hands kept out of training (0: none;
        the held-out columns are then NaN).
    :param checkpoint_dir: where ``checkpoint.npz`` is written after each
        epoch (None: nowhere).
    :param resume: go on from ``checkpoint_dir``'s checkpoint (which must
        have the same settings); without one, start afresh.
    :param progress: a tqdm bar of minibatches per epoch.
    :param header: model header fields (``training_command``, ``data``, ``name``).
    :raises InputError: a bad number or an empty dataset.
    :raises ValueError: a checkpoint of other settings.
    :raises ImportError: jax or optax is missing (``pip install 'dominoai[learn]'``).
    """
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise ImportError("training needs jax and optax: pip install 'dominoai[learn]'") from e
    from . import jaxnet
    from .model import Model, new_model

    epochs = check_int("epochs", epochs, 1)
    batch = check_int("batch", batch, 1)
    learning_rate = check_number("learning_rate", learning_rate, positive=True)
    held_out = check_number("held_out", held_out)
    if not 0.0 <= held_out <= 0.9:
        raise InputError("held_out", held_out, f"$held_out must be between 0 and 0.9 (got {held_out!r})")
    if len(data["action"]) == 0:
        raise InputError("data", 0, "the dataset has no decisions")
    settings = {"preset": preset, "hidden": [int(h) for h in hidden], "batch": batch,
                "learning_rate": learning_rate, "held_out": held_out, "seed": seed,
                "rows": int(len(data["action"]))}
    t_call = time.perf_counter()
    model0 = new_model("policy", preset, hidden=hidden, seed=seed)
    params = jaxnet.params_of(model0)
    scale = jnp.asarray(model0.scale)
    opt = optax.adam(learning_rate)
    opt_state = opt.init(params)
    log: list = []
    ckpt = Path(checkpoint_dir) / _CKPT if checkpoint_dir is not None else None
    if resume and ckpt is not None and ckpt.exists():
        params, opt_state, log, old = _load_checkpoint(ckpt, params, opt_state)
        if old != settings:
            diff = sorted(k for k in settings if old.get(k) != settings[k])
            raise ValueError(f"the checkpoint in {Path(checkpoint_dir).name} was trained with other "
                             f"settings ({', '.join(diff)}); train afresh without --resume")

    tr, te = split_hands(data["hand"], held_out, seed)
    X = jnp.asarray(data["obs"])
    M = jnp.asarray(data["mask"])
    A = jnp.asarray(data["action"].astype(np.int32))

    def loss_acc(p, x, m, a):
        lp = jaxnet.masked_log_softmax(jaxnet.apply(p, scale, x), m)
        nll = -jnp.take_along_axis(lp, a[:, None], axis=1)[:, 0]
        acc = (jnp.argmax(lp, axis=1) == a)
        return nll, acc

    @jax.jit
    def step(p, s, X, M, A, idx):
        def f(q):
            nll, acc = loss_acc(q, X[idx], M[idx], A[idx])
            return nll.mean(), acc.mean()
        (lv, av), g = jax.value_and_grad(f, has_aux=True)(p)
        upd, s = opt.update(g, s, p)
        return optax.apply_updates(p, upd), s, lv, av

    @jax.jit
    def evaluate(p, X, M, A, idx):
        nll, acc = loss_acc(p, X[idx], M[idx], A[idx])
        return nll.sum(), acc.sum()

    def measure(p, rows):
        if len(rows) == 0:
            return float("nan"), float("nan")
        ls = ac = 0.0
        for i in range(0, len(rows), 8192):
            idx = jnp.asarray(rows[i:i + 8192])
            l_, a_ = evaluate(p, X, M, A, idx)
            ls += float(l_)
            ac += float(a_)
        return ls / len(rows), ac / len(rows)

    spent = log[-1]["seconds"] if log else 0.0
    t0 = time.perf_counter()
    for ep in range(len(log), epochs):
        rng = np.random.default_rng([seed, ep])
        order = tr[rng.permutation(len(tr))]
        steps = range(0, len(order), batch)
        if progress:
            from tqdm.auto import tqdm
            steps = tqdm(steps, desc=f"epoch {ep + 1}/{epochs}", unit="batch", leave=False)
        for i in steps:
            params, opt_state, _, _ = step(params, opt_state, X, M, A, jnp.asarray(order[i:i + batch]))
        tl, ta = measure(params, tr)
        hl, ha = measure(params, te)
        log.append({"epoch": ep + 1, "train_loss": tl, "train_accuracy": ta, "held_loss": hl,
                    "held_accuracy": ha, "seconds": spent + time.perf_counter() - t0})
        if progress:
            from tqdm.auto import tqdm
            tqdm.write(f"epoch {ep + 1}: loss {tl:.3f} / held {hl:.3f}, accuracy {ta:.3f} / held {ha:.3f}")
        if ckpt is not None:
            _save_checkpoint(ckpt, params, opt_state, log, settings)
    head = {"data": {"rows": len(data["action"]), "train_rows": int(len(tr)), "held_rows": int(len(te))},
            **header}
    model = Model.from_params([(np.asarray(q["w"]), np.asarray(q["b"])) for q in params], "policy", preset,
                              scale=model0.scale, **head)
    return TrainResult(model, log, time.perf_counter() - t_call)


# ------------------------------------------------------------------ one training run in a folder
def _canonical_command(preset, deals, teacher, epochs, hidden, batch, learning_rate, held_out, seed) -> str:
    """The ``dominoai train`` command that trains this model again (the
    settings that change the result; ``--out`` and ``--jobs`` do not)."""
    return (f"dominoai train --variant {preset} --kind policy --deals {deals} --teacher {teacher} "
            f"--epochs {epochs} --hidden {','.join(str(h) for h in hidden)} --batch {batch} "
            f"--learning-rate {learning_rate:g} --held-out {held_out:g} --seed {seed}")


def write_curve(log: list, path, title: str = "") -> Path:
    """The learning curve of a training log (:class:`TrainResult`'s ``log``)
    as a figure: loss and accuracy per epoch, training rows and held-out
    hands. Written whole or not at all.

    :raises OSError: the folder cannot be written.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._files import atomic_write
    ep = [e["epoch"] for e in log]
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4))
    a.plot(ep, [e["train_loss"] for e in log], "o-", label="training rows")
    a.plot(ep, [e["held_loss"] for e in log], "s--", label="held-out hands")
    a.set_xlabel("epoch")
    a.set_ylabel("cross-entropy (nats)")
    a.legend()
    b.plot(ep, [e["train_accuracy"] for e in log], "o-", label="training rows")
    b.plot(ep, [e["held_accuracy"] for e in log], "s--", label="held-out hands")
    b.set_xlabel("epoch")
    b.set_ylabel("top-1 agreement with the teacher")
    b.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    atomic_write(path, lambda p: fig.savefig(p, format=path.suffix.lstrip(".") or "png", dpi=110))
    plt.close(fig)
    return path


def train_run(out, preset: str, deals: int, epochs: int = 20, teacher: str = "insane", hidden=(128, 128),
              batch: int = 512, learning_rate: float = 1e-3, held_out: float = 0.1, seed: int = 0,
              jobs: int = 1, backend: str | None = None, resume: bool = False, progress: bool = False,
              name: str | None = None) -> TrainResult:
    """A whole training run in the folder ``out``: the teacher's dataset
    (``data.npz``, :func:`generate` with the data seed ``seed + 10_000``, so
    the deals differ from a tournament's of seed 0..9999), the checkpoint
    (``checkpoint.npz``, after every epoch), then ``model.npz`` (the model,
    named ``name``, default ``PRESET-policy``), ``log.parquet`` (one row per
    epoch: :class:`TrainResult`'s log) and ``curve.png``.

    ``resume``: reuse ``data.npz`` when it was made with the same preset,
    teacher, deals and seed, and go on from the checkpoint. Without it, a
    folder that already holds a dataset, checkpoint or model is refused.

    :raises InputError: a bad number.
    :raises ValueError: an unknown preset or teacher, or a folder in use
        (one line each).
    """
    import pandas as pd

    from .._files import atomic_write
    out = Path(out)
    deals = check_int("deals", deals, 1)
    hidden = tuple(check_int("hidden", h, 1) for h in hidden)
    data_path = out / "data.npz"
    used = [p.name for p in (data_path, out / _CKPT, out / "model.npz") if p.exists()]
    if used and not resume:
        raise ValueError(f"{out} already holds {', '.join(used)}; add --resume to go on, or give another --out")
    want = {"preset": preset, "teacher": teacher, "deals": deals, "seed": seed + 10_000}
    data = None
    if resume and data_path.exists():
        data, meta = load_dataset(data_path)
        if any(meta.get(k) != v for k, v in want.items()):
            diff = ", ".join(f"{k} {meta.get(k)!r}" for k, v in want.items() if meta.get(k) != v)
            raise ValueError(f"{data_path} was made with other settings ({diff}); give another --out")
    out.mkdir(parents=True, exist_ok=True)
    if data is None:
        t0 = time.perf_counter()
        data = generate(preset, deals, teacher=teacher, jobs=jobs, seed=seed + 10_000, backend=backend,
                        progress=progress)
        save_dataset(data_path, data, generation_seconds=round(time.perf_counter() - t0, 1), **want)
        _, meta = load_dataset(data_path)
    command = _canonical_command(preset, deals, teacher, epochs, hidden, batch, learning_rate, held_out, seed)
    res = train_policy(data, preset, hidden=hidden, epochs=epochs, batch=batch, learning_rate=learning_rate,
                       held_out=held_out, seed=seed, checkpoint_dir=out, resume=resume, progress=progress,
                       training_command=command, teacher=teacher, name=name or f"{preset}-policy")
    res.model.header["data"].update({"deals": deals, "hands": int(meta["hands"]),
                                     "generation_seconds": meta.get("generation_seconds"),
                                     "training_seconds": round(res.log[-1]["seconds"], 1)})
    res.model.save(out / "model.npz")
    df = pd.DataFrame(res.log)
    atomic_write(out / "log.parquet", lambda p: df.to_parquet(p, index=False))
    write_curve(res.log, out / "curve.png",
                f"{preset}: imitating {teacher} ({meta['rows']} decisions of {meta['hands']} hands)")
    return res
