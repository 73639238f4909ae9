"""A value network over whole worlds: data, training, loading (training needs
the ``[learn]`` extra: jax, optax).

The network estimates what a world is worth to one seat from now to the end
of the hand: the points its side will still make minus what the other sides
will make (:func:`~dominoai.bots.pimc.value.hand_value`, sign turned where
recorded points are bad, Kozel), from the world vector of
:mod:`dominoai.learn.world_encode`. ``insane`` reads it at the leaves of its
rollouts (``value_plies``, :mod:`dominoai.bots.pimc.learned`).

1. :func:`positions` replays self-play records (e.g. of
   :func:`~dominoai.tournament.run.play_records`) and keeps the world after
   every play, seen from the seat that made it;
   :func:`value_targets` labels each with the exact solver's value where
   it solves (at most ``exact`` tiles left, within ``max_nodes`` nodes per
   world), else the mean of ``rollouts`` rollouts with a rollout policy;
   :func:`generate` does both and returns the dataset (:data:`DATA_FIELDS`).
2. :func:`train_value` fits a :class:`ValueModel` by mean squared error in
   shuffled minibatches with Adam, on all but a held-out share of the
   hands (:func:`~dominoai.learn.imitation.split_hands`, the checkpoints
   of :mod:`~dominoai.learn.imitation`), logs both losses per epoch and saves a checkpoint after each,
   from which ``resume=True`` goes on. :func:`write_log` writes the log as
   parquet and the learning curve as a PNG.
3. A :class:`~dominoai.learn.value_model.ValueModel` is saved in the model
   format of :mod:`dominoai.learn.model` (:mod:`dominoai.learn.value_model`:
   ``kind`` ``"value"``, ``input`` ``"world"``, ``world_encoding_version``);
   :func:`~dominoai.learn.value_model.load_value_model` reads one by name
   (shipped: ``PRESET-value``) or file.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from numba import njit

from ..bots.hard import DEFAULT_WEIGHTS
from ..bots.pimc.rollouts import rollout
from ..bots.pimc.settings import new_scratch
from ..bots.pimc.solver import plain_line, solve_into, solve_line_into
from ..bots.pimc.value import hand_value, tiles_left
from ..engine import fast as F
from ..engine import layout as L
from ..errors import InputError, check_int, check_number
from .imitation import _load_checkpoint, _save_checkpoint, split_hands
from .value_model import MAX_WIDTH, ValueModel, load_value_model, new_value_model
from .world_encode import WORLD_SIZE, encode_world_into

__all__ = ["DATA_FIELDS", "ValueModel", "new_value_model", "load_value_model", "positions",
           "value_targets", "generate", "encode_worlds", "train_value",
           "ValueTrainResult", "write_log", "MAX_WIDTH"]

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
    from ..game import Match
    from ..moves import Move
    from ..records import load_record

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
    from ..bots.pimc.rollouts import POLICIES
    from ..rules import get_rules
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
    from ..rules import get_rules
    rules = get_rules(rules) if isinstance(rules, str) else rules
    st = np.ascontiguousarray(states, np.int64).reshape(-1, L.S_SIZE)
    out = np.empty((len(st), WORLD_SIZE), np.float32)
    _encode_many(st, np.ascontiguousarray(seats, np.int64), rules.vector(), out)
    return out


def generate(preset: str, deals: int, teacher: str = "hard", jobs: int = 1, seed: int = 0,
             backend: str | None = None, exact: int = 12, max_nodes: int = 20000,
             rollouts: int = 8, rollout_policy: str = "random", progress: bool = False) -> dict:
    """A value dataset (:data:`DATA_FIELDS`): ``teacher`` plays itself on
    ``deals`` duplicate deals of ``preset`` through
    :func:`~dominoai.tournament.run.play_records` (``jobs`` processes on
    ``backend``), every world after a play (:func:`positions`) labelled by
    :func:`value_targets` (``exact``, ``max_nodes``, ``rollouts``,
    ``rollout_policy``, ``seed``).

    :raises InputError: a bad count.
    :raises ValueError: an unknown preset, bot, backend or rollout policy.
    """
    from ..rules import get_rules
    from ..tournament.run import play_records
    deals = check_int("deals", deals, 1)
    recs = play_records(preset, [teacher], hands=deals, jobs=jobs, seed=seed, backend=backend,
                        progress=progress)
    states, seats, hands = positions(recs)
    rules = get_rules(preset)
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
                **header) -> ValueTrainResult:
    """Train a :class:`ValueModel` for ``preset`` on ``data``
    (:data:`DATA_FIELDS`) by mean squared error (points squared).

    :param epochs: passes over the training rows in all (a resumed run
        trains the epochs its checkpoint lacks).
    :param batch: rows per step.
    :param held_out: the share of hands kept out of training (0 to 0.9).
    :param checkpoint_dir: where ``value-checkpoint.npz`` is written after
        each epoch (None: nowhere).
    :param resume: go on from ``checkpoint_dir``'s checkpoint (which must
        have the same settings); without one, start afresh.
    :param progress: a tqdm bar of the epochs.
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

    epochs = check_int("epochs", epochs, 1)
    batch = check_int("batch", batch, 1)
    learning_rate = check_number("learning_rate", learning_rate, positive=True)
    held_out = check_number("held_out", held_out)
    if not 0.0 <= held_out <= 0.9:
        raise InputError("held_out", held_out, f"$held_out must be between 0 and 0.9 (got {held_out!r})")
    if len(data["target"]) == 0:
        raise InputError("data", 0, "the dataset has no worlds")
    settings = {"preset": preset, "hidden": [int(h) for h in hidden], "batch": batch,
                "learning_rate": learning_rate, "held_out": held_out, "seed": seed,
                "rows": int(len(data["target"]))}
    t_call = time.perf_counter()
    model0 = new_value_model(preset, hidden=hidden, seed=seed)
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
                             f"settings ({', '.join(diff)}); train afresh without resume")
    tr, te = split_hands(data["hand"], held_out, seed)
    X = jnp.asarray(data["world"])
    Y = jnp.asarray(data["target"], jnp.float32)

    def sq(p, idx):
        return (jaxnet.apply(p, scale, X[idx])[:, 0] - Y[idx]) ** 2

    @jax.jit
    def step(p, s, idx):
        lv, g = jax.value_and_grad(lambda q: sq(q, idx).mean())(p)
        upd, s = opt.update(g, s, p)
        return optax.apply_updates(p, upd), s, lv

    @jax.jit
    def sse(p, idx):
        return sq(p, idx).sum()

    def mse(p, rows):
        if len(rows) == 0:
            return float("nan")
        return sum(float(sse(p, jnp.asarray(rows[i:i + 8192])))
                   for i in range(0, len(rows), 8192)) / len(rows)

    spent = log[-1]["seconds"] if log else 0.0
    t0 = time.perf_counter()
    eps = range(len(log), epochs)
    if progress:
        from tqdm.auto import tqdm
        eps = tqdm(eps, desc=f"value {preset}", unit="epoch", initial=len(log), total=epochs)
    for ep in eps:
        order = tr[np.random.default_rng([seed, ep]).permutation(len(tr))]
        for i in range(0, len(order), batch):
            params, opt_state, _ = step(params, opt_state, jnp.asarray(order[i:i + batch]))
        log.append({"epoch": ep + 1, "train_mse": mse(params, tr), "held_mse": mse(params, te),
                    "seconds": spent + time.perf_counter() - t0})
        if ckpt is not None:
            _save_checkpoint(ckpt, params, opt_state, log, settings)
    head = {"data": {"rows": int(len(data["target"])), "train_rows": int(len(tr)),
                     "held_rows": int(len(te)), "solved": int(np.sum(data["solved"]))}, **header}
    model = ValueModel.from_params([(np.asarray(q["w"]), np.asarray(q["b"])) for q in params],
                                   "value", preset, scale=model0.scale, **head)
    return ValueTrainResult(model, log, time.perf_counter() - t_call)


def write_log(log: list, folder, name: str = "value") -> tuple[Path, Path]:
    """Write a training log (:attr:`ValueTrainResult.log`) as
    ``NAME-log.parquet`` and its learning curve (mean squared error per
    epoch, training and held-out) as ``NAME-curve.png`` into ``folder``;
    returns both paths.

    :raises OSError: the folder cannot be written.
    """
    import pandas as pd

    from matplotlib.figure import Figure
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    df = pd.DataFrame(log)
    pq = folder / f"{name}-log.parquet"
    df.to_parquet(pq, index=False)
    fig = Figure(figsize=(5, 3.2))
    ax = fig.subplots()
    ax.plot(df["epoch"], df["train_mse"], label="training")
    if df["held_mse"].notna().any():
        ax.plot(df["epoch"], df["held_mse"], label="held out")
    ax.set_xlabel("epoch")
    ax.set_ylabel("mean squared error (points²)")
    ax.legend()
    fig.tight_layout()
    png = folder / f"{name}-curve.png"
    fig.savefig(png, dpi=100)
    return pq, png
