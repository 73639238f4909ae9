"""A policy by imitation: a teacher's decisions as a dataset, and an MLP
trained to predict them (training needs the ``[learn]`` extra: jax, optax).

1. :func:`generate` plays the teacher (``insane`` by default) against
   itself through :func:`~dominoai.tournament.run.play_records` (the
   tournament's backends, ``jobs`` processes) and :func:`decisions` turns
   each of its records into one row per decision, replayed through the
   engine: the deciding seat's observation vector, its legal ids, the id it
   chose, the teacher's value of each legal id where its search gave one
   (the records' ``analysis``), the seat, and that hand's final margin for
   the seat's side (the tournament's ``margin``: more is better, in points;
   the target of a value network). :func:`save_dataset` /
   :func:`load_dataset` keep it as one ``.npz``.
2. :func:`train_policy` fits a policy :class:`~dominoai.nets.model.Model`
   by cross-entropy over the legal ids (the illegal ones masked out)
   against a target per decision (:func:`policy_targets`): the id the
   teacher chose (``imitate="choice"``), or a softmax of its move values
   divided by a ``temperature`` (``imitate="values"``), in
   the loop of :func:`dominoai.learn.training.fit`: shuffled minibatches
   with Adam (AdamW with ``weight_decay``), on all but a held-out share of
   the hands; after each epoch it logs the loss and the accuracy (the share
   of decisions where the model's top legal id is the teacher's) on both
   parts, and saves a checkpoint (weights, optimizer state, log) from
   which ``resume=True`` goes on. With ``action_features`` the model adds
   the action-feature block (:mod:`dominoai.nets.features`: what each
   legal move scores, sheds, leaves to the next seat, ...) to its logits.

The rows of one hand stay on the same side of the split, so the held-out
figures measure hands the model never saw.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from .. import decide
from ..bots import make_bot
from ..engine.encode import ENCODING_VERSION, N_ACTIONS, OBS_SIZE, encode
from ..engine.layout import MOVE_REPLACE
from ..errors import InputError, check_int, check_number
from ..game import Match
from ..moves import Move
from ..nets.features import ACTION_FEATURES, ACTION_FEATURES_VERSION, N_ACTION_FEATURES
from ..nets.model import Model, new_model
from ..records import RecordError, load_record
from ..rules import margins
from .features import START_WEIGHTS, dataset_features
from .runs import IMITATE, PolicyRunSpec, RunFolder, command_of
from .training import (Objective, fit, load_arrays, require_jax, run_players, save_arrays, split_hands,
                       write_curve as _write_curve)

__all__ = ["DATA_FIELDS", "IMITATE", "decisions", "policy_targets", "soft_cross_entropy", "generate", "save_dataset",
           "load_dataset", "split_hands", "train_policy", "fit_policy", "TrainResult", "write_curve", "train_run",
           "run_policy", "CURVE_PANELS"]

#: the dataset's arrays: name -> (dtype, shape after the row axis, meaning)
DATA_FIELDS = {
    "obs": ("float32", (OBS_SIZE,), "the deciding seat's observation vector"),
    "mask": ("bool", (N_ACTIONS,), "its legal action ids"),
    "action": ("int16", (), "the id the teacher chose"),
    "values": ("float32", (N_ACTIONS,), "the teacher's value of each legal id (insane: the mean points of "
               "the hand for the seat's side over its worlds), NaN where it gave none (a forced move, an "
               "illegal id, a dataset made without analysis)"),
    "seat": ("int8", (), "the deciding seat"),
    "margin": ("float32", (), "the hand's final margin for the seat's side, in points"),
    "hand": ("int32", (), "the hand's number in the dataset (rows of a hand are contiguous)"),
}


#: the fields a dataset file may lack (written before they were added): name -> fill(rows)
_OPTIONAL = {"values": lambda n: np.full((n, N_ACTIONS), np.nan, np.float32)}



def _values_row(analysis, legal) -> np.ndarray:
    """The ``(N_ACTIONS,)`` ``float32`` row of a record move's ``analysis``
    (NaN where it gives no value), its moves matched to the legal ids by
    their text, else by their tile."""
    row = np.full(N_ACTIONS, np.nan, np.float32)
    if not analysis:
        return row
    by_text = {str(Move.from_code(c)): c for c in legal}
    for e in analysis:
        code = by_text.get(e["move"])
        if code is None:
            try:
                mv = Move.parse(e["move"])
            except ValueError:
                continue
            same = [c for c in legal if c != MOVE_REPLACE and mv.tile is not None and c >> 2 == mv.tile.id]
            code = same[0] if len(same) == 1 else None
        if code is not None:
            row[code] = e["value"]
    return row


def _empty():
    return {k: [] for k in DATA_FIELDS}


def decisions(records) -> dict:
    """The teacher's decisions of ``records`` (:class:`~dominoai.records.Record`
    or anything :func:`~dominoai.records.load_record` takes), one row per
    play or replacement, as arrays (:data:`DATA_FIELDS`); forced draws and
    passes are not decisions. Each hand is replayed through the engine, so
    the observation is the one the seat saw. A move's ``analysis`` (the
    records of a tournament run with ``analysis``) fills ``values``.

    :raises RecordError: a record that does not replay.
    """
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
                    same = [c for c in legal if c >> 2 == code >> 2 and c != MOVE_REPLACE]
                    code = same[0] if same else code
                mask = np.zeros(N_ACTIONS, bool)
                mask[legal] = True
                rows.append((encode(obs.array), mask, code, _values_row(mv.analysis, legal), seat))
                hand.play(move, orientation=orientation)
            if not hand.over:
                continue        # a hand that stops mid-way has no margin: left out
            m = margins(rules, hand.points)
            for x, mask, code, values, seat in rows:
                out["obs"].append(x)
                out["mask"].append(mask)
                out["action"].append(code)
                out["values"].append(values)
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
             backend: str | None = None, progress: bool = False, chunk: int = 500, parts_dir=None,
             analysis: bool = True, players: int | None = None) -> dict:
    """The decisions of ``teacher`` playing itself on ``deals`` duplicate
    deals of ``preset`` at tables of ``players`` (None: the preset's count;
    each deal in every rotation of the seats), played by
    the tournament (``jobs`` processes on ``backend``) ``chunk`` deals at a
    time, replayed by :func:`decisions`. The same arguments give the same
    rows for any ``jobs`` and backend; ``analysis`` (the default) keeps the
    teacher's move values (``values``; the games are the same without).

    ``parts_dir``: each chunk's rows are also saved there as
    ``part-START.npz`` (:func:`save_dataset`, START its first deal, with
    its ``generation_seconds``), and a
    chunk whose part is there (made with the same preset, players, teacher,
    seed and size, and with the values when ``analysis`` is asked; a part
    that does not record its players was made at the preset's count) is read instead
    of played: an interrupted generation goes on where it stopped.

    :raises InputError: a bad count, as :func:`~dominoai.tournament.run.play_records`,
        or players the preset is not played by.
    :raises ValueError: an unknown preset, bot or backend.
    """
    from ..tournament.run import play_records
    deals = check_int("deals", deals, 1)
    chunk = check_int("chunk", chunk, 1)
    players = run_players(preset, players)
    base = None         # the preset's own count: what a part that does not record its players was made at
    parts = []
    n_hands = 0
    bar = None
    if progress:
        bar = tqdm(total=deals, desc=f"{teacher} on {preset}", unit="deal")
    for start in range(0, deals, chunk):
        n = min(chunk, deals - start)
        want = {"preset": preset, "players": players, "teacher": teacher, "seed": seed + start, "deals": n}
        part = Path(parts_dir) / f"part-{start:07d}.npz" if parts_dir is not None else None
        d = None
        if part is not None and part.exists():
            try:
                d, meta = load_dataset(part)
                if "players" not in meta:
                    base = run_players(preset) if base is None else base
                meta = {"players": base, **meta}
            except ValueError:
                d = None
            if d is not None and (any(meta.get(k) != v for k, v in want.items())
                                  or (analysis and not meta.get("analysis"))):
                d = None
        if d is None:
            t0 = time.perf_counter()
            recs = play_records(preset, [teacher], hands=n, players=players, jobs=jobs, seed=seed + start,
                                backend=backend, analysis=analysis)
            d = decisions(recs)
            if part is not None:
                part.parent.mkdir(parents=True, exist_ok=True)
                save_dataset(part, d, generation_seconds=round(time.perf_counter() - t0, 1), analysis=analysis,
                             **want)
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
    meta = {"encoding_version": ENCODING_VERSION, "rows": int(len(data["action"])),
            "hands": int(data["hand"].max()) + 1 if len(data["hand"]) else 0, **meta}
    return save_arrays(path, data, DATA_FIELDS, meta)


def load_dataset(path) -> tuple[dict, dict]:
    """``(data, meta)`` of a dataset file written by :func:`save_dataset`.
    A dataset written before ``values`` was a field loads with them all NaN
    (its ``meta`` has no ``analysis``).

    :raises ValueError: not a dataset, or another encoding version.
    """
    return load_arrays(path, DATA_FIELDS, "dataset", "encoding_version", ENCODING_VERSION, _OPTIONAL)


class TrainResult:
    """What :func:`train_policy` returns: ``model`` (the trained
    :class:`~dominoai.nets.model.Model`), ``log`` (a list of dicts, one per
    epoch: ``epoch``, ``train_loss``, ``train_accuracy``, ``held_loss``,
    ``held_accuracy``, ``seconds`` (the training's total so far)),
    ``seconds`` (the time of this call) and ``best_epoch`` (the epoch the
    model's weights come from: the last, or with ``keep_best`` the one of
    the lowest held-out loss)."""

    def __init__(self, model, log, seconds, best_epoch=None):
        self.model, self.log, self.seconds = model, log, seconds
        self.best_epoch = len(log) if best_epoch is None else best_epoch


_CKPT = "checkpoint.npz"


def _check_imitate(imitate: str, temperature: float) -> float:
    """``temperature`` as a float, once ``imitate`` and it are checked.

    :raises InputError: an unknown ``imitate`` or a temperature that is not positive.
    """
    if imitate not in IMITATE:
        raise InputError("imitate", imitate, f"$imitate must be one of {', '.join(IMITATE)} (got {imitate!r})")
    return check_number("temperature", temperature, positive=True)


def policy_targets(data: dict, imitate: str = "choice", temperature: float = 1.0) -> np.ndarray:
    """The training target of each decision of ``data`` (:data:`DATA_FIELDS`),
    a distribution over the action ids: ``(n, N_ACTIONS)`` ``float32``,
    each row summing to 1. ``imitate`` says what of the teacher's:

    - ``"choice"``: 1 on the id the teacher chose.
    - ``"values"``: ``softmax(values / temperature)`` over the legal ids the
      teacher valued (``values`` finite), 0 elsewhere; a row without any
      value (a forced move) gets the choice. ``temperature`` is in the
      values' unit (points for insane): at 1, a move 1 point worse gets
      ``1/e`` the weight of the best; towards 0 it becomes the best value's id.

    :raises InputError: an unknown ``imitate`` or a temperature that is not positive.
    """
    temperature = _check_imitate(imitate, temperature)
    n = len(data["action"])
    out = np.zeros((n, N_ACTIONS), np.float32)
    out[np.arange(n), data["action"].astype(np.int64)] = 1.0
    if imitate == "values":
        v = np.where(data["mask"], data["values"], np.nan).astype(np.float64)
        has = np.isfinite(v)
        rows = has.any(axis=1)
        z = np.where(has, v, -np.inf)[rows] / temperature
        e = np.exp(z - z.max(axis=1, keepdims=True))
        out[rows] = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def soft_cross_entropy(logits, mask, targets):
    """The cross-entropy ``-sum_a targets[r, a] * log p[r, a]`` of each row
    ``(n,)``, ``p`` the softmax of ``logits`` ``(n, N_ACTIONS)`` over the
    legal ids (``mask``); ``targets`` ``(n, N_ACTIONS)`` are 0 off the legal
    ids (:func:`policy_targets`). JAX arrays in and out (needs jax)."""
    import jax.numpy as jnp

    from .jaxnet import masked_log_softmax
    lp = masked_log_softmax(logits, mask)
    return -jnp.sum(jnp.where(targets > 0, targets * lp, 0.0), axis=1)


def train_policy(data: dict, preset: str, hidden=(128, 128), epochs: int = 10, batch: int = 512,
                 learning_rate: float = 1e-3, held_out: float = 0.1, seed: int = 0,
                 checkpoint_dir=None, resume: bool = False, progress: bool = False,
                 action_features: bool = False, weight_decay: float = 0.0, keep_best: bool = False,
                 imitate: str = "choice", temperature: float = 1.0, players: int | None = None,
                 **header) -> TrainResult:
    """Train a policy on ``data`` (:data:`DATA_FIELDS`) for ``preset``, by
    :func:`dominoai.learn.training.fit`: the keyword form of
    :func:`fit_policy`, whose :class:`~dominoai.learn.runs.PolicyRunSpec`
    it builds from its arguments.

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
    :param action_features: add the action-feature block
        (:mod:`dominoai.learn.features`, computed for every row first); its
        bias starts at ``hard``'s weights (0 for ``own_next``), so the
        untrained block values moves as ``hard`` does.
    :param weight_decay: AdamW's decay (0: plain Adam).
    :param keep_best: keep the weights of the epoch with the lowest
        held-out loss (early stopping).
    :param imitate: what the network learns (:func:`policy_targets`):
        ``"choice"``, the teacher's chosen id (the loss is its negative
        log-probability), or ``"values"``, the softmax of the teacher's move
        values over ``temperature`` (the loss is the cross-entropy against
        it; rows without values keep the choice). The logged accuracy is
        agreement with the chosen id either way.
    :param temperature: the softmax's temperature of ``imitate="values"``,
        in the values' unit (points).
    :param players: the player count of the tables ``data`` was played at
        (None: the preset's), recorded in the model's header: the
        ``neural`` bot refuses the model at tables of another size.
    :param header: model header fields (``training_command``, ``data``, ``name``).
    :raises InputError: a bad number, an unknown ``imitate``, an empty dataset,
        ``imitate="values"`` on a dataset without values, players the preset
        is not played by, or a checkpoint of other settings or of more
        epochs than ``epochs``.
    :raises ImportError: jax or optax is missing (``pip install 'dominoai[learn]'``).
    """
    spec = PolicyRunSpec(preset=preset, hidden=hidden, epochs=epochs, batch=batch, learning_rate=learning_rate,
                         held_out=held_out, seed=seed, action_features=action_features,
                         weight_decay=weight_decay, keep_best=keep_best, imitate=imitate,
                         temperature=temperature, players=players)
    return fit_policy(data, spec, checkpoint_dir=checkpoint_dir, resume=resume, progress=progress, header=header)


def fit_policy(data: dict, spec, checkpoint_dir=None, resume: bool = False, progress: bool = False,
               header: dict | None = None) -> TrainResult:
    """Train the policy of ``spec`` (a :class:`~dominoai.learn.runs.PolicyRunSpec`:
    its rules, layers, loop and target; its deals, teacher, jobs and name
    are the run's, unused here) on ``data`` (:data:`DATA_FIELDS`), by
    :func:`dominoai.learn.training.fit`: what :func:`train_policy` does,
    given a spec.

    :param checkpoint_dir: where ``checkpoint.npz`` is written after each
        epoch (None: nowhere).
    :param resume: go on from ``checkpoint_dir``'s checkpoint (which must
        have the same settings); without one, start afresh.
    :param progress: a tqdm bar of minibatches per epoch.
    :param header: model header fields (``training_command``, ``data``, ``name``).
    :raises InputError: an empty dataset, ``imitate="values"`` on a dataset
        without values, or a checkpoint of other settings or of more epochs
        than the spec's.
    :raises ImportError: jax or optax is missing (``pip install 'dominoai[learn]'``).
    """
    jnp = require_jax()
    from . import jaxnet

    preset, players, hidden, imitate = spec.preset, spec.players, spec.hidden, spec.imitate
    if len(data["action"]) == 0:
        raise InputError("data", 0, "the dataset has no decisions")
    targets = policy_targets(data, imitate, spec.temperature)
    if imitate == "values" and not np.isfinite(data["values"]).any():
        raise InputError("imitate", imitate, "the dataset has no move values (made without analysis); "
                         "generate it again or train on the choice")
    settings = {"kind": "policy", "preset": preset, "players": players, "hidden": [int(h) for h in hidden],
                "batch": spec.batch, "learning_rate": spec.learning_rate, "held_out": spec.held_out,
                "seed": spec.seed, "rows": int(len(data["action"])), "imitate": imitate,
                "temperature": spec.temperature if imitate == "values" else None, "action_features": False}

    def upgrade(old: dict) -> dict:
        """A checkpoint's settings as they are written now: one written
        before the players were kept was trained at the preset's count;
        what it imitated was kept as ``target``, earlier as
        ``[target, temperature]``, or absent for the choice; its
        action-feature block was absent when off."""
        old = {"players": spec.preset_players, "temperature": None, "action_features": False, **old}
        if "imitate" not in old:
            old["imitate"] = old.pop("target", "choice")
        if isinstance(old["imitate"], list):
            old["imitate"], old["temperature"] = old["imitate"]
        return old

    model0 = new_model("policy", preset, hidden=hidden, seed=spec.seed)
    params = jaxnet.params_of(model0)
    scale = jnp.asarray(model0.scale)
    arrays = {"x": jnp.asarray(data["obs"]), "m": jnp.asarray(data["mask"]),
              "a": jnp.asarray(data["action"].astype(np.int32))}
    if imitate == "values":
        arrays["t"] = jnp.asarray(targets)
    del targets
    if spec.action_features:
        settings["action_features"] = [list(ACTION_FEATURES), ACTION_FEATURES_VERSION]
        ids, fe = dataset_features(data["obs"], data["mask"], spec.rules)
        arrays.update(ids=jnp.asarray(ids.astype(np.int32)), fe=jnp.asarray(fe))
        params = {"net": params, "action": {
            "fw": jnp.zeros((int(hidden[-1]), N_ACTION_FEATURES), jnp.float32),
            "fb": jnp.asarray(START_WEIGHTS, jnp.float32)}}

        def logits_of(p, d, idx):
            return jaxnet.apply_features(p["net"], p["action"], scale, d["x"][idx], d["ids"][idx], d["fe"][idx])
    else:
        def logits_of(p, d, idx):
            return jaxnet.apply(p, scale, d["x"][idx])

    def nll_acc(p, d, idx):
        logits = logits_of(p, d, idx)
        lp = jaxnet.masked_log_softmax(logits, d["m"][idx])
        if imitate == "values":
            nll = soft_cross_entropy(logits, d["m"][idx], d["t"][idx])
        else:
            nll = -jnp.take_along_axis(lp, d["a"][idx][:, None], axis=1)[:, 0]
        return nll, jnp.argmax(lp, axis=1) == d["a"][idx]

    def loss(p, d, idx):
        return nll_acc(p, d, idx)[0].mean()

    def sums(p, d, idx):
        nll, acc = nll_acc(p, d, idx)
        return nll.sum(), acc.sum()

    res = fit(params, Objective(loss, sums, ("loss", "accuracy")), arrays, data["hand"], spec.loop, settings,
              upgrade=upgrade, checkpoint=Path(checkpoint_dir) / _CKPT if checkpoint_dir is not None else None,
              resume=resume, progress="batches" if progress else None)
    head = {"data": {"rows": len(data["action"]), "train_rows": int(len(res.train_rows)),
                     "held_rows": int(len(res.held_rows))}, "players": players, **(header or {})}
    net = res.params["net"] if spec.action_features else res.params
    action = ({k: np.asarray(v) for k, v in res.params["action"].items()} if spec.action_features else None)
    model = Model.from_params([(np.asarray(q["w"]), np.asarray(q["b"])) for q in net], "policy", preset,
                              scale=model0.scale, action=action, **head)
    return TrainResult(model, res.log, res.seconds, res.best_epoch)


# ------------------------------------------------------------------ one training run in a folder
#: the panels of a policy's learning curve: (log metric, axis label)
CURVE_PANELS = (("loss", "cross-entropy (nats)"), ("accuracy", "top-1 agreement with the teacher"))


def write_curve(log: list, path, title: str = "") -> Path:
    """The learning curve of a training log (:class:`TrainResult`'s ``log``)
    as a figure: loss and accuracy per epoch, training rows and held-out
    hands (:func:`dominoai.learn.training.write_curve`). Written whole or
    not at all.

    :raises OSError: the folder cannot be written.
    """
    return _write_curve(log, path, CURVE_PANELS, title)


def _parts_seconds(parts: Path) -> float:
    """The wall-clock seconds the parts in ``parts`` took to generate, summed."""
    total = 0.0
    for p in sorted(parts.glob("part-*.npz")) if parts.is_dir() else []:
        try:
            total += float(load_dataset(p)[1].get("generation_seconds") or 0.0)
        except ValueError:
            pass
    return total


def train_run(out, preset: str, deals: int, epochs: int = 20, teacher: str = "insane", hidden=(128, 128),
              batch: int = 512, learning_rate: float = 1e-3, held_out: float = 0.1, seed: int = 0,
              jobs: int = 1, backend: str | None = None, resume: bool = False, progress: bool = False,
              name: str | None = None, action_features: bool = False, weight_decay: float = 0.0,
              keep_best: bool = False, imitate: str = "choice", temperature: float = 1.0,
              players: int | None = None) -> TrainResult:
    """A whole training run in the folder ``out`` (the keyword form of
    :func:`run_policy`, whose :class:`~dominoai.learn.runs.PolicyRunSpec` it
    builds from its arguments): the teacher's dataset
    (``data.npz``, :func:`generate` with the data seed ``seed + 10_000``, so
    the deals differ from a tournament's of seed 0..9999; its chunks stay
    in ``data-parts/``, from which a run of more deals in another folder
    can start), the checkpoint
    (``checkpoint.npz``, after every epoch), then ``model.npz`` (the model,
    named ``name``, default ``PRESET-policy``), ``log.parquet`` (one row per
    epoch: :class:`TrainResult`'s log) and ``curve.png``.
    ``players``: the teacher plays at tables of that many (None: the
    preset's count), and the model records it (:func:`train_policy`).
    ``action_features``, ``weight_decay``, ``keep_best``, ``imitate`` and
    ``temperature`` are :func:`train_policy`'s; the dataset keeps the
    teacher's move values (``analysis``) either way.

    ``resume``: reuse ``data.npz`` when it was made with the same preset,
    players, teacher, deals and seed (and with the values, for
    ``imitate="values"``), and go on from the checkpoint (``epochs`` above
    the checkpoint's go on training it). Without it, a
    folder that already holds a dataset, checkpoint or model is refused.

    :raises InputError: a bad number, players the preset is not played by,
        a teacher that gives no move values for ``imitate="values"``, or a
        dataset or checkpoint of other settings (naming each setting that
        differs, :func:`~dominoai.learn.training.other_settings`).
    :raises ValueError: an unknown preset or teacher, or a folder in use
        (one line each).
    """
    spec = PolicyRunSpec(preset=preset, deals=deals, teacher=teacher, epochs=epochs, hidden=hidden, batch=batch,
                         learning_rate=learning_rate, held_out=held_out, seed=seed,
                         action_features=action_features, weight_decay=weight_decay, keep_best=keep_best,
                         imitate=imitate, temperature=temperature, players=players, jobs=jobs, backend=backend,
                         name=name)
    return run_policy(spec, out, resume=resume, progress=progress)


def run_policy(spec, out, resume: bool = False, progress: bool = False) -> TrainResult:
    """The run of ``spec`` (a :class:`~dominoai.learn.runs.PolicyRunSpec`) in
    the folder ``out`` (a :class:`~dominoai.learn.runs.RunFolder`): what
    :func:`train_run` does, given a spec; ``resume`` and ``progress`` as there.

    :raises InputError: a teacher that gives no move values for
        ``imitate="values"``, or a dataset or checkpoint of other settings.
    :raises ValueError: an unknown teacher, or a folder in use (one line each).
    """
    folder = RunFolder(out, "policy", ("data.npz", _CKPT, "model.npz"), resume)
    if spec.imitate == "values":
        if not decide.gives_analysis(make_bot(spec.teacher)):
            raise InputError("imitate", spec.imitate, f"$imitate 'values' learns the teacher's move values: "
                             f"{spec.teacher!r} gives none (a search bot such as insane does)", "teacher")
    want = spec.dataset_settings()
    data, meta = folder.reuse_dataset(load_dataset, want, spec.preset_players, {**want, "seed": spec.seed})
    if meta is not None and spec.imitate == "values" and not meta.get("analysis"):
        raise ValueError(f"{folder.data_path} holds no move values (made without analysis); "
                         "give another --out for --imitate values")
    folder.out.mkdir(parents=True, exist_ok=True)
    if data is None:
        parts = folder.out / "data-parts"
        data = generate(spec.preset, spec.deals, teacher=spec.teacher, jobs=spec.jobs, seed=spec.data_seed,
                        backend=spec.backend, progress=progress, parts_dir=parts, players=spec.players)
        meta = folder.save_dataset(save_dataset, load_dataset, data,
                                   generation_seconds=round(_parts_seconds(parts), 1), analysis=True, **want)
    res = fit_policy(data, spec, checkpoint_dir=folder.out, resume=resume, progress=progress,
                     header={"training_command": command_of(spec), "teacher": spec.teacher,
                             "name": spec.model_name})
    res.model.header["data"].update({"deals": spec.deals, "hands": int(meta["hands"]),
                                     "generation_seconds": meta.get("generation_seconds"),
                                     "training_seconds": round(res.log[-1]["seconds"], 1)})
    if spec.keep_best:
        res.model.header["data"]["epoch"] = res.best_epoch
    title = f"{spec.preset}: imitating {spec.teacher} ({meta['rows']} decisions of {meta['hands']} hands)"
    folder.finish(res.model, res.log, lambda log, path: write_curve(log, path, title))
    return res
