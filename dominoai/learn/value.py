"""A value network over whole worlds: data, training, loading (training needs
the ``[learn]`` extra: jax, optax).

The network estimates what a world is worth to one seat from now to the end
of the hand: the points its side will still make minus what the other sides
will make (:func:`~dominoai.bots.pimc.value.hand_value`, sign turned where
recorded points are bad, Kozel), from the world vector of
:mod:`dominoai.nets.world_encode`. ``insane`` reads it at the leaves of its
rollouts (``value_plies``, :mod:`dominoai.bots.pimc.learned`).

1. :func:`positions` replays self-play records (e.g. of
   :func:`~dominoai.tournament.run.play_records`) and keeps the world after
   every play, seen from the seat that made it;
   :func:`value_targets` labels each with the exact solver's value where
   it solves (at most ``exact`` tiles left, within ``max_nodes`` nodes per
   world), else the mean of ``rollouts`` rollouts with a rollout policy;
   :func:`generate` does both and returns the dataset (:data:`DATA_FIELDS`).
2. :func:`train_value` fits a :class:`ValueModel` by mean squared error in
   the loop of :func:`dominoai.learn.training.fit` (shuffled minibatches
   with Adam, on all but a held-out share of the hands), logs both losses
   per epoch and saves a checkpoint after each,
   from which ``resume=True`` goes on. :func:`write_log` writes the log as
   parquet and the learning curve as a PNG.
3. A :class:`~dominoai.nets.value_model.ValueModel` is saved in the model
   format of :mod:`dominoai.nets.model` (:mod:`dominoai.nets.value_model`:
   ``kind`` ``"value"``, ``input`` ``"world"``, ``world_encoding_version``);
   :func:`~dominoai.nets.value_model.load_value_model` reads one by name
   (shipped: ``PRESET-value``) or file.
4. :func:`value_run` (``dominoai train --kind value``) does all of it in
   one folder, resumable: the dataset, the checkpoints, the model, its log
   and learning curve.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from numba import njit

from ..bots.pimc.rollouts import POLICIES, rollout
from ..bots.pimc.settings import new_scratch
from ..bots.pimc.solver import plain_line, solve_into, solve_line_into
from ..bots.pimc.value import hand_value, tiles_left
from ..engine import fast as F
from ..engine import layout as L
from ..errors import InputError, check_int
from ..game import Match
from ..moves import Move
from ..nets.hardeval import DEFAULT_WEIGHTS
from ..nets.value_model import MAX_WIDTH, ValueModel, load_value_model, new_value_model
from ..nets.world_encode import WORLD_ENCODING_VERSION, WORLD_SIZE, encode_world_into
from ..records import load_record
from ..rules import get_rules
from .runs import ROLLOUT_POLICY, RunFolder, ValueRunSpec, command_of
from .training import (Objective, fit, load_arrays, refuse_unknown_options, require_jax, run_rules, save_arrays,
                       write_curve, write_log as _write_log)

__all__ = ["DATA_FIELDS", "ValueModel", "new_value_model", "load_value_model", "positions",
           "value_targets", "generate", "encode_worlds", "train_value",
           "ValueTrainResult", "write_log", "MAX_WIDTH", "ROLLOUT_POLICY", "save_dataset", "load_dataset",
           "fit_value", "value_run", "run_value"]

#: the dataset's arrays: name -> (dtype, shape after the row axis, meaning)
DATA_FIELDS = {
    "world": ("float32", (WORLD_SIZE,), "the world vector after the play, from the seat that made it"),
    "target": ("float32", (), "the world's value to that seat from now on, points"),
    "solved": ("bool", (), "True where the target is the exact solver's value"),
    "seat": ("int8", (), "the seat that made the play"),
    "hand": ("int32", (), "the hand's number in the dataset (rows of a hand are contiguous)"),
}


# ------------------------------------------------------------------ data
def positions(records) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The worlds of ``records`` (:class:`~dominoai.records.Record` or
    anything :func:`~dominoai.records.load_record` takes) after every play
    or replacement that leaves the hand going (forced draws and passes that
    follow it included): ``(states, seats, hands)``, the engine states
    (``int64``, ``(n, S_SIZE)``), the seat that made the play (``int8``)
    and the hand's number (``int32``, counting from 0 over the records).

    :raises RecordError: a record that does not replay.
    """
    states, seats, hands = [], [], []
    n_hand = 0
    for rec in records:
        rec = load_record(rec)
        match = Match(rec.rules, seed=0)
        for hr in rec.hands:
            hand = match.new_hand([[t.id for t in s] for s in hr.deal],
                                  None if hr.boneyard is None else [t.id for t in hr.boneyard],
                                  hr.leader)
            for mv in hr.moves:
                if mv.kind in ("draw", "pass") or hand.over:
                    continue
                seat = hand.seat
                if mv.kind == "replace":
                    hand.play(Move.replacement())
                elif not hand.ends:
                    a, b = ((int(x) for x in mv.text.split(":")) if mv.text
                            else (mv.tile.high, mv.tile.low))
                    hand.play(Move(mv.tile), orientation=1 if a < b else 0)
                else:
                    hand.play(Move(mv.tile, mv.end))
                if not hand.over:
                    states.append(match.state_copy())
                    seats.append(seat)
                    hands.append(n_hand)
            n_hand += 1
    st = np.array(states, np.int64).reshape(-1, L.S_SIZE)
    return st, np.array(seats, np.int8), np.array(hands, np.int32)


@njit(cache=True)
def _targets(states, seats, rv, exact, max_nodes, rollouts, policy, hard_weights, seed, out, solved):
    ws = new_scratch(1, max_nodes)
    stack, bufs, meta, nodes, p0 = ws.stack, ws.bufs, ws.meta, ws.nodes, ws.p0
    tmp, ev, buf, aux, rs = ws.tmp, ws.ev, ws.buf, ws.aux, ws.rs2
    rs[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    path = F.playout_path(rv)
    line = plain_line(rv)
    for i in range(states.shape[0]):
        st = states[i]
        seat = seats[i]
        for s in range(4):
            p0[s] = st[L.S_POINTS + s]
        solved[i] = False
        if exact > 0 and tiles_left(st, rv) <= exact:
            for q in range(L.S_SIZE):
                stack[0, q] = st[q]
            stack[0, L.S_LOG] = 0
            nodes[0] = 0
            nodes[2] = 0
            if line:
                v = solve_line_into(stack, bufs, meta, rv, seat, p0, nodes)
            else:
                v = solve_into(stack, bufs, meta, rv, ev, seat, p0, nodes)
            if nodes[2] == 0:
                out[i] = v
                solved[i] = True
                continue
        acc = 0.0
        for r in range(rollouts):
            for q in range(L.S_SIZE):
                tmp[q] = st[q]
            tmp[L.S_LOG] = 0
            rollout(tmp, rv, rs, ev, buf, aux, policy, 0, hard_weights, path)
            acc += hand_value(tmp, rv, seat, p0)
        out[i] = acc / rollouts


def value_targets(states: np.ndarray, seats: np.ndarray, rules, exact: int = 12,
                  max_nodes: int = 20000, rollouts: int = 8, rollout_policy: str = "random",
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The value of each world to its seat from now to the end of the hand
    (points, as :func:`~dominoai.bots.pimc.value.hand_value`): ``(targets,
    solved)``, ``float32`` and ``bool``, ``(n,)``. Solved exactly (every
    seat playing perfectly on the world, the seat's side against the others)
    where at most ``exact`` tiles can still be played and the solve takes at
    most ``max_nodes`` nodes (0: never); else the mean of ``rollouts``
    rollouts with ``rollout_policy`` (``random``, ``medium`` or ``hard`` at
    the hard bot's weights), from the generator of ``seed``.

    :param states: engine states, ``int64`` ``(n, S_SIZE)``, hands not over.
    :param seats: ``(n,)``, the seat each value is for.
    :param rules: a :class:`~dominoai.rules.Rules` or a preset name.
    :raises InputError: a bad count.
    :raises ValueError: an unknown preset or rollout policy, or arrays of
        the wrong shape.
    """
    rules = get_rules(rules) if isinstance(rules, str) else rules
    exact = check_int("exact", exact, 0)
    max_nodes = check_int("max_nodes", max_nodes, 1)
    rollouts = check_int("rollouts", rollouts, 1)
    if rollout_policy not in ("random", "medium", "hard"):
        raise ValueError(f"rollout_policy must be random, medium or hard (got {rollout_policy!r})")
    st = np.ascontiguousarray(states, np.int64)
    if st.ndim != 2 or st.shape[1] != L.S_SIZE or len(seats) != len(st):
        raise ValueError(f"states must be (n, {L.S_SIZE}) with one seat each")
    out = np.zeros(len(st), np.float64)
    solved = np.zeros(len(st), np.bool_)
    _targets(st, np.ascontiguousarray(seats, np.int64), rules.vector(), exact, max_nodes, rollouts,
             POLICIES.index(rollout_policy), DEFAULT_WEIGHTS, int(seed) % (1 << 63), out, solved)
    return out.astype(np.float32), solved


@njit(cache=True)
def _encode_many(states, seats, rv, out):
    for i in range(states.shape[0]):
        encode_world_into(states[i], rv, seats[i], out[i])


def encode_worlds(states: np.ndarray, seats: np.ndarray, rules) -> np.ndarray:
    """The world vectors (``float32``, ``(n, WORLD_SIZE)``) of ``states``
    (``int64``, ``(n, S_SIZE)``), each seen from ``seats[i]``, under
    ``rules`` (a :class:`~dominoai.rules.Rules` or a preset name)."""
    rules = get_rules(rules) if isinstance(rules, str) else rules
    st = np.ascontiguousarray(states, np.int64).reshape(-1, L.S_SIZE)
    out = np.empty((len(st), WORLD_SIZE), np.float32)
    _encode_many(st, np.ascontiguousarray(seats, np.int64), rules.vector(), out)
    return out


def generate(preset: str, deals: int, teacher: str = "hard", jobs: int = 1, seed: int = 0,
             backend: str | None = None, exact: int = 12, max_nodes: int = 20000,
             rollouts: int = 8, rollout_policy: str = "random", progress: bool = False,
             players: int | None = None) -> dict:
    """A value dataset (:data:`DATA_FIELDS`): ``teacher`` plays itself on
    ``deals`` duplicate deals of ``preset`` at tables of ``players`` (None:
    the preset's count) through
    :func:`~dominoai.tournament.run.play_records` (``jobs`` processes on
    ``backend``), every world after a play (:func:`positions`) labelled by
    :func:`value_targets` (``exact``, ``max_nodes``, ``rollouts``,
    ``rollout_policy``, ``seed``).

    :raises InputError: a bad count, or players the preset is not played by.
    :raises ValueError: an unknown preset, bot, backend or rollout policy.
    """
    from ..tournament.run import play_records
    deals = check_int("deals", deals, 1)
    rules = run_rules(preset, players)
    players = rules.players
    recs = play_records(preset, [teacher], hands=deals, players=players, jobs=jobs, seed=seed, backend=backend,
                        progress=progress)
    states, seats, hands = positions(recs)
    target, solved = value_targets(states, seats, rules, exact, max_nodes, rollouts,
                                   rollout_policy, seed)
    return {"world": encode_worlds(states, seats, rules), "target": target, "solved": solved,
            "seat": seats, "hand": hands}


# ------------------------------------------------------------------ training
class ValueTrainResult:
    """What :func:`train_value` returns: ``model`` (the trained
    :class:`ValueModel`), ``log`` (one dict per epoch: ``epoch``,
    ``train_mse``, ``held_mse`` (points squared; NaN without held-out
    rows), ``seconds`` (the training's total so far)) and ``seconds`` (this
    call's time)."""

    def __init__(self, model, log, seconds):
        self.model, self.log, self.seconds = model, log, seconds


_CKPT = "value-checkpoint.npz"


def train_value(data: dict, preset: str, hidden=(128, 64), epochs: int = 20, batch: int = 256,
                learning_rate: float = 1e-3, held_out: float = 0.1, seed: int = 0,
                checkpoint_dir=None, resume: bool = False, progress: bool = False,
                players: int | None = None, **header) -> ValueTrainResult:
    """Train a :class:`ValueModel` for ``preset`` on ``data``
    (:data:`DATA_FIELDS`) by mean squared error (points squared), in the
    loop of :func:`dominoai.learn.training.fit`: the keyword form of
    :func:`fit_value`, whose :class:`~dominoai.learn.runs.ValueRunSpec` it
    builds from its arguments.

    :param epochs: passes over the training rows in all (a resumed run
        trains the epochs its checkpoint lacks).
    :param batch: rows per step.
    :param held_out: the share of hands kept out of training (0 to 0.9).
    :param checkpoint_dir: where ``value-checkpoint.npz`` is written after
        each epoch (None: nowhere).
    :param resume: go on from ``checkpoint_dir``'s checkpoint (which must
        have the same settings); without one, start afresh.
    :param progress: a tqdm bar of the epochs.
    :param players: the player count of the tables ``data`` was played at
        (None: the preset's), recorded in the model's header.
    :param header: model header fields (``training_command``, ``data``, ``name``).
    :raises InputError: a bad number, an empty dataset, players the preset
        is not played by, or a checkpoint of other settings or of more
        epochs than ``epochs``.
    :raises ImportError: jax or optax is missing (``pip install 'dominoai[learn]'``).
    """
    spec = ValueRunSpec(preset=preset, hidden=hidden, epochs=epochs, batch=batch, learning_rate=learning_rate,
                        held_out=held_out, seed=seed, players=players)
    return fit_value(data, spec, checkpoint_dir=checkpoint_dir, resume=resume, progress=progress, header=header)


def fit_value(data: dict, spec, checkpoint_dir=None, resume: bool = False, progress: bool = False,
              header: dict | None = None) -> ValueTrainResult:
    """Train the value network of ``spec`` (a
    :class:`~dominoai.learn.runs.ValueRunSpec`: its rules, layers and loop;
    its data settings are the run's, unused here) on ``data``
    (:data:`DATA_FIELDS`): what :func:`train_value` does, given a spec.

    :param checkpoint_dir: where ``value-checkpoint.npz`` is written after
        each epoch (None: nowhere).
    :param resume: go on from ``checkpoint_dir``'s checkpoint (which must
        have the same settings); without one, start afresh.
    :param progress: a tqdm bar of the epochs.
    :param header: model header fields (``training_command``, ``data``, ``name``).
    :raises InputError: an empty dataset, or a checkpoint of other settings
        or of more epochs than the spec's.
    :raises ImportError: jax or optax is missing (``pip install 'dominoai[learn]'``).
    """
    jnp = require_jax()
    from . import jaxnet

    if len(data["target"]) == 0:
        raise InputError("data", 0, "the dataset has no worlds")
    preset = spec.preset
    settings = {"kind": "value", "preset": preset, "players": spec.players,
                "hidden": [int(h) for h in spec.hidden], "batch": spec.batch, "learning_rate": spec.learning_rate,
                "held_out": spec.held_out, "seed": spec.seed, "rows": int(len(data["target"]))}
    model0 = new_value_model(preset, hidden=spec.hidden, seed=spec.seed)
    scale = jnp.asarray(model0.scale)
    arrays = {"x": jnp.asarray(data["world"]), "y": jnp.asarray(data["target"], jnp.float32)}

    def sq(p, d, idx):
        return (jaxnet.apply(p, scale, d["x"][idx])[:, 0] - d["y"][idx]) ** 2

    objective = Objective(lambda p, d, idx: sq(p, d, idx).mean(), lambda p, d, idx: (sq(p, d, idx).sum(),),
                          ("mse",))
    res = fit(jaxnet.params_of(model0), objective, arrays, data["hand"], spec.loop, settings,
              checkpoint=Path(checkpoint_dir) / _CKPT if checkpoint_dir is not None else None,
              resume=resume, progress="epochs" if progress else None, desc=f"value {preset}",
              upgrade=lambda old: {"players": spec.preset_players, **old})  # written before the players were kept
    head = {"data": {"rows": int(len(data["target"])), "train_rows": int(len(res.train_rows)),
                     "held_rows": int(len(res.held_rows)), "solved": int(np.sum(data["solved"]))},
            "players": spec.players, **(header or {})}
    model = ValueModel.from_params([(np.asarray(q["w"]), np.asarray(q["b"])) for q in res.params],
                                   "value", preset, scale=model0.scale, **head)
    return ValueTrainResult(model, res.log, res.seconds)


def write_log(log: list, folder, name: str = "value") -> tuple[Path, Path]:
    """Write a training log (:attr:`ValueTrainResult.log`) as
    ``NAME-log.parquet`` and its learning curve (mean squared error per
    epoch, training and held-out) as ``NAME-curve.png`` into ``folder``;
    returns both paths.

    :raises OSError: the folder cannot be written.
    """
    folder = Path(folder)
    pq = _write_log(log, folder / f"{name}-log.parquet")
    png = write_curve(log, folder / f"{name}-curve.png", (("mse", "mean squared error (points²)"),))
    return pq, png


# ------------------------------------------------------------------ one training run in a folder


def save_dataset(path, data: dict, **meta) -> Path:
    """Write a value dataset (:data:`DATA_FIELDS`) to ``path`` (``.npz``)
    whole or not at all, with ``meta`` (JSON-compatible) and the world
    encoding version as a JSON ``meta`` entry.

    :raises OSError: the folder cannot be written.
    """
    meta = {"world_encoding_version": WORLD_ENCODING_VERSION, "rows": int(len(data["target"])),
            "hands": int(data["hand"].max()) + 1 if len(data["hand"]) else 0, **meta}
    return save_arrays(path, data, DATA_FIELDS, meta)


def load_dataset(path) -> tuple[dict, dict]:
    """``(data, meta)`` of a value dataset written by :func:`save_dataset`.

    :raises ValueError: not a value dataset, or another world encoding version.
    """
    return load_arrays(path, DATA_FIELDS, "value dataset", "world_encoding_version", WORLD_ENCODING_VERSION)


@refuse_unknown_options
def value_run(out, preset: str, deals: int, teacher: str = "hard", rollouts: int = 8,
              rollout_policy: str | None = None, exact: int = 12, max_nodes: int = 20000, epochs: int = 20,
              hidden=(64, 32), batch: int = 256, learning_rate: float = 1e-3, held_out: float = 0.1,
              seed: int = 0, jobs: int = 1, backend: str | None = None, resume: bool = False,
              progress: bool = False, name: str | None = None, players: int | None = None) -> ValueTrainResult:
    """A whole value training run in the folder ``out`` (the keyword form
    of :func:`run_value`, whose :class:`~dominoai.learn.runs.ValueRunSpec`
    it builds from its arguments): the dataset
    (``data.npz``, :func:`generate` with ``seed``: the deals of seed
    ``seed`` on, the targets' rollouts from the same seed), the checkpoint
    (``value-checkpoint.npz``, after every epoch), then ``model.npz`` (named
    ``name``, default ``PRESET-value``), ``log.parquet`` and ``curve.png``.
    ``rollout_policy`` None: :data:`ROLLOUT_POLICY`'s for the preset.
    ``players``: the teacher plays at tables of that many (None: the
    preset's count), and the model records it.

    ``resume``: reuse ``data.npz`` when it was made with the same settings,
    and go on from the checkpoint (``epochs`` above the checkpoint's go on
    training it). Without it, a folder that already holds a dataset,
    checkpoint or model is refused.

    :raises InputError: a bad number, players the preset is not played by,
        or a dataset or checkpoint of other settings (naming each setting
        that differs, :func:`~dominoai.learn.training.other_settings`).
    :raises ValueError: an unknown preset, teacher or rollout policy, or a
        folder in use (one line each).
    """
    spec = ValueRunSpec(preset=preset, deals=deals, teacher=teacher, rollouts=rollouts,
                        rollout_policy=rollout_policy, exact=exact, max_nodes=max_nodes, epochs=epochs,
                        hidden=hidden, batch=batch, learning_rate=learning_rate, held_out=held_out, seed=seed,
                        players=players, jobs=jobs, backend=backend, name=name)
    return run_value(spec, out, resume=resume, progress=progress)


def run_value(spec, out, resume: bool = False, progress: bool = False) -> ValueTrainResult:
    """The run of ``spec`` (a :class:`~dominoai.learn.runs.ValueRunSpec`) in
    the folder ``out`` (a :class:`~dominoai.learn.runs.RunFolder`): what
    :func:`value_run` does, given a spec; ``resume`` and ``progress`` as there.

    :raises InputError: a dataset or checkpoint of other settings.
    :raises ValueError: an unknown teacher, or a folder in use (one line each).
    """
    folder = RunFolder(out, "value", ("data.npz", _CKPT, "model.npz"), resume)
    want = spec.dataset_settings()
    data, meta = folder.reuse_dataset(load_dataset, want, spec.preset_players)
    folder.out.mkdir(parents=True, exist_ok=True)
    if data is None:
        t0 = time.perf_counter()
        data = generate(spec.preset, spec.deals, teacher=spec.teacher, jobs=spec.jobs, seed=spec.seed,
                        backend=spec.backend, exact=spec.exact, max_nodes=spec.max_nodes, rollouts=spec.rollouts,
                        rollout_policy=spec.rollout_policy, progress=progress, players=spec.players)
        meta = folder.save_dataset(save_dataset, load_dataset, data,
                                   generation_seconds=round(time.perf_counter() - t0, 1), **want)
    res = fit_value(data, spec, checkpoint_dir=folder.out, resume=resume, progress=progress,
                    header={"training_command": command_of(spec), "name": spec.model_name})
    res.model.header["data"].update({"deals": spec.deals, "hands": int(meta["hands"]),
                                     "generation_seconds": meta.get("generation_seconds"),
                                     "training_seconds": round(res.log[-1]["seconds"], 1)})
    title = f"{spec.preset}: value of {meta['rows']} worlds of {meta['hands']} hands"
    folder.finish(res.model, res.log, lambda log, path: write_curve(
        log, path, (("mse", "mean squared error (points²)"),), title))
    return res
