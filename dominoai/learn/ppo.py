"""Reinforcement of a learned policy by PPO on the batched env (needs the
``[learn]`` extra: jax, optax).

PPO (proximal policy optimisation, clipped objective) starts from a policy
model (:mod:`dominoai.nets.model`; by default the preset's shipped
imitation policy) and trains it further by play, so the result is a policy
model of the same layers and format that the ``neural`` bot plays.

- **The actor** is the starting policy's network. **The critic** is a
  separate network of the same hidden sizes over the same observation vector
  with one output: the learner side's expected margin of the hand, divided
  by ``reward_scale``. It starts from fresh weights and is trained alone for
  the first ``value_warmup`` iterations, so the first policy steps see
  advantages of a critic that already predicts something.
- **Opponents: a league.** A share ``hard_share`` of the ``num_envs``
  games is played against ``opponents`` (``hard``) inside the env's
  kernels (the learner's seat rotates). The other games are self-play
  games (:class:`~dominoai.learn.env.VectorEnv` with ``opponents=None``):
  the learner plays one seat (alternating game by game) with the current
  parameters, the other seats are played greedily by a frozen member of the
  league (the starting policy and snapshots of the learner taken every
  ``snapshot_every`` iterations; at most ``league_size``, the oldest
  snapshot leaves first, the starting policy stays), drawn anew for each
  game. Their forward pass runs in the numba kernels of
  :mod:`dominoai.nets.forward`.
- **Advantages: GAE** with ``gamma = 1`` and ``gae_lambda`` over the
  learner's own decisions of a hand (a hand's only reward is its margin at
  the end), normalised over each iteration's batch. Decisions of a hand
  that has not ended when an iteration's ``steps`` run out are left out;
  where no hand has ended by then (``steps`` shorter than a hand), the
  games play on until one has, so every iteration learns from finished
  hands and its losses are numbers, never NaN.
- **The loss**: the clipped surrogate (``clip``), plus ``kl`` times the KL
  divergence of the new policy from the starting one on the batch's states
  (a leash that keeps the imitation start from being destroyed at once),
  minus ``entropy`` times the policy's entropy, plus ``value_coef`` times
  the critic's squared error; Adam over ``epochs`` passes of shuffled
  minibatches of ``batch`` decisions per iteration.

Every iteration deals fresh games from a seed of ``(seed, iteration)``, so a
run resumed from its checkpoint (written every ``checkpoint_every``
iterations and at the end) gives the same parameters as one that was never
stopped. :func:`train_run` writes a run's folder: ``checkpoint.npz``,
``model.npz``, ``log.parquet`` (one row per iteration) and ``curve.png``.
"""
from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from tqdm.auto import tqdm

from .._files import atomic_write
from ..errors import InputError
from ..nets.forward import forward_batch
from ..nets.model import Model, ModelError, check_players, default_model_name, input_scale, load_model, new_model
from ..rules import Rules
from ..tiles import N_TILES
from .env import VectorEnv
from .runs import PPO_DEFAULTS, PPORunSpec, RunFolder, command_of
from .training import check_options, checkpoint_state, other_settings, read_npz, run_rules

__all__ = ["DEFAULTS", "clipped_surrogate", "PPOBatch", "PPOCoefs", "ppo_loss", "gae", "evaluate", "PPOResult",
           "train_ppo", "fit_ppo", "train_run", "run_ppo", "write_curve", "canonical_command"]

#: the settings of :func:`train_ppo` and their defaults; ``dominoai train
#: --kind ppo`` takes ``players``, ``iterations``, ``num_envs``, ``steps``,
#: ``hard_share``, ``epochs``, ``batch``, ``learning_rate``, ``clip``, ``kl``
#: and ``seed`` as options of the same names (``--num-envs``, ...);
#: ``players`` None is the preset's count
DEFAULTS = PPO_DEFAULTS

_CKPT = "checkpoint.npz"
_EVAL_SEED = 987_654_321   # the evaluation deals: the same at every evaluation of every run


def _jax():
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise ImportError("PPO training needs jax and optax: pip install 'dominoai[learn]'") from e
    return jax, jnp, optax


# ------------------------------------------------------------------ the objective
def clipped_surrogate(logp_new, logp_old, advantage, clip):
    """PPO's clipped objective per decision (to be maximised): ``min(r * A,
    clip(r, 1 - clip, 1 + clip) * A)`` with ``r = exp(logp_new -
    logp_old)``. Arrays of one shape (JAX or numpy), ``float32``."""
    _, jnp, _ = _jax()
    r = jnp.exp(logp_new - logp_old)
    return jnp.minimum(r * advantage, jnp.clip(r, 1.0 - clip, 1.0 + clip) * advantage)


class PPOBatch(NamedTuple):
    """A batch of decisions for :func:`ppo_loss`: ``obs`` ``float32`` ``(n,
    OBS_SIZE)``; ``mask`` ``bool`` ``(n, N_ACTIONS)``; ``action`` ``int32``
    ``(n,)``; ``logp_old``, ``advantage`` and ``target`` (the critic's
    target, the GAE return) ``float32`` ``(n,)``."""

    obs: Any
    mask: Any
    action: Any
    logp_old: Any
    advantage: Any
    target: Any


class PPOCoefs(NamedTuple):
    """The weights of :func:`ppo_loss`'s parts: the ratio's ``clip`` range,
    the ``kl`` leash, the ``entropy`` bonus and the critic's ``value_coef``."""

    clip: float
    kl: float
    entropy: float
    value_coef: float


def ppo_loss(params, init_pi, scale, batch: PPOBatch, coefs: PPOCoefs, pi_coef=1.0, weight=None):
    """The PPO loss of a batch and its parts.

    :param params: ``{"pi": actor layers, "v": critic layers}`` (the pytrees
        of :func:`dominoai.learn.jaxnet.params_of`); ``init_pi``: the
        starting actor's layers (the KL leash's reference).
    :param batch: the decisions (:class:`PPOBatch`).
    :param coefs: the parts' weights (:class:`PPOCoefs`).
    :param pi_coef: 1, or 0 while only the critic learns.
    :param weight: ``float32`` ``(n,)``, each row's weight in the means
        (None: all 1; padding rows of a fixed-size minibatch have 0).
    :returns: ``(loss, parts)``: ``parts`` a dict of scalars
        ``policy_loss`` (minus the mean clipped objective), ``value_loss``
        (mean squared error), ``entropy`` (mean, nats), ``kl_init`` (mean
        KL of the policy from the starting one, nats), ``approx_kl`` (mean
        ``logp_old - logp_new`` of the chosen ids), ``clip_fraction`` (the
        share of ratios outside the clip range).
    """
    obs, mask, action, logp_old, advantage, target = batch
    clip, kl, entropy, value_coef = coefs
    from . import jaxnet
    jax, jnp, _ = _jax()
    w = jnp.ones(action.shape, jnp.float32) if weight is None else weight
    tot = jnp.maximum(jnp.sum(w), 1e-9)

    def mean(x):
        return jnp.sum(w * x) / tot
    lp_all = jaxnet.masked_log_softmax(jaxnet.apply(params["pi"], scale, obs), mask)
    lp = jnp.take_along_axis(lp_all, action[:, None], axis=1)[:, 0]
    policy_loss = -mean(clipped_surrogate(lp, logp_old, advantage, clip))
    p = jnp.exp(lp_all)
    ent = mean(-jnp.sum(jnp.where(mask, p * lp_all, 0.0), axis=1))
    lp0 = jaxnet.masked_log_softmax(jaxnet.apply(init_pi, scale, obs), mask)
    kl_init = mean(jnp.sum(jnp.where(mask, p * (lp_all - lp0), 0.0), axis=1))
    v = jaxnet.apply(params["v"], scale, obs)[:, 0]
    value_loss = mean((v - target) ** 2)
    loss = pi_coef * (policy_loss + kl * kl_init - entropy * ent) + value_coef * value_loss
    parts = {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": ent, "kl_init": kl_init,
             "approx_kl": mean(logp_old - lp),
             "clip_fraction": mean((jnp.abs(jnp.exp(lp - logp_old) - 1.0) > clip).astype(jnp.float32))}
    return loss, parts


def gae(reward, value, done, learner, gae_lambda):
    """Advantages and returns of a rollout by GAE with ``gamma = 1``, over
    the learner's decisions only.

    :param reward: ``float32`` ``(T, n)``: the learner side's reward of
        step ``t`` of game slot ``n`` (non-zero where a hand ended).
    :param value: ``float32`` ``(T, n)``: the critic's value of the state
        the step was decided in.
    :param done: ``bool`` ``(T, n)``: the hand ended with step ``t``.
    :param learner: ``bool`` ``(T, n)``: the learner decided step ``t``.
    :returns: ``(advantage, target, valid)``, ``(T, n)`` each:
        ``float32``, ``float32`` (advantage + value) and ``bool`` (a learner
        decision of a hand that ended within the rollout).
    """
    T, n = reward.shape
    adv = np.zeros((T, n), np.float32)
    valid = np.zeros((T, n), bool)
    run = np.zeros(n, np.float32)       # the GAE carried back from the learner's next decision
    next_v = np.zeros(n, np.float32)    # the value of the learner's next decision (0 after the hand)
    pend = np.zeros(n, np.float32)      # reward since that decision
    ended = np.zeros(n, bool)
    for t in range(T - 1, -1, -1):
        d = done[t]
        run[d] = 0.0
        next_v[d] = 0.0
        pend[d] = 0.0
        ended |= d
        pend += reward[t]
        L = learner[t]
        g = pend + next_v - value[t] + gae_lambda * run
        adv[t] = np.where(L, g, 0.0)
        valid[t] = L & ended
        run = np.where(L, g, run)
        next_v = np.where(L, value[t], next_v)
        pend = np.where(L, 0.0, pend).astype(np.float32)
    return adv, adv + np.where(learner, value, 0.0).astype(np.float32), valid


# ------------------------------------------------------------------ jitted pieces
@functools.lru_cache(maxsize=None)
def _fns(learning_rate, clip, kl, entropy, value_coef):
    """The jitted functions of one setting: ``act`` (sample ids, their
    log-probabilities and the values), ``greedy`` (the best legal id),
    ``update`` (one Adam step on a minibatch) and the optimizer."""
    jax, jnp, optax = _jax()
    from . import jaxnet
    opt = optax.adam(learning_rate)

    @jax.jit
    def act(params, scale, obs, mask, key):
        lp = jaxnet.masked_log_softmax(jaxnet.apply(params["pi"], scale, obs), mask)
        a = jax.random.categorical(key, lp)
        v = jaxnet.apply(params["v"], scale, obs)[:, 0]
        return a, jnp.take_along_axis(lp, a[:, None], axis=1)[:, 0], v

    @jax.jit
    def greedy(pi, scale, obs, mask):
        return jnp.argmax(jnp.where(mask, jaxnet.apply(pi, scale, obs), -jnp.inf), axis=1)

    @jax.jit
    def update(params, opt_state, init_pi, scale, obs, mask, action, logp_old, advantage, target, pi_coef,
               weight):
        def f(p):
            return ppo_loss(p, init_pi, scale, PPOBatch(obs, mask, action, logp_old, advantage, target),
                            PPOCoefs(clip, kl, entropy, value_coef), pi_coef, weight)
        (_, parts), g = jax.value_and_grad(f, has_aux=True)(params)
        upd, opt_state = opt.update(g, opt_state, params)
        return optax.apply_updates(params, upd), opt_state, parts

    return act, greedy, update, opt


# ------------------------------------------------------------------ the league's frozen players
def _packed(pi) -> tuple:
    """Actor layers (a pytree of ``w``, ``b``) as the numba forward pass takes them."""
    ws = [(np.asarray(q["w"], np.float32), np.asarray(q["b"], np.float32)) for q in pi]
    flat = np.concatenate([np.concatenate([w.ravel(), b]) for w, b in ws])
    return (input_scale(), np.ascontiguousarray(flat, np.float32),
            np.array([w.shape for w, _ in ws], np.int64))


def _frozen_greedy(packed, obs, mask) -> np.ndarray:
    """The best legal id (``int64``, ``(n,)``) of a frozen policy for rows
    ``obs``, ``mask`` (numba forward pass)."""
    out = np.empty((obs.shape[0], mask.shape[1]), np.float32)
    forward_batch(np.ascontiguousarray(obs), *packed, out)
    return np.argmax(np.where(mask, out, -np.inf), axis=1).astype(np.int64)


# ------------------------------------------------------------------ training
class PPOResult:
    """What :func:`train_ppo` returns: ``model`` (the trained policy
    :class:`~dominoai.nets.model.Model`), ``log`` (a list of dicts, one per
    iteration, see :func:`train_ppo`), ``params`` (the actor and critic as
    JAX pytrees) and ``seconds`` (wall-clock time of this call)."""

    def __init__(self, model, log, params, seconds):
        self.model, self.log, self.params, self.seconds = model, log, params, seconds


def _save_checkpoint(path: Path, params, opt_state, league, log, settings) -> None:
    jax, _, _ = _jax()
    leaves = jax.tree_util.tree_leaves((params, opt_state))
    arrays = {f"leaf{i}": np.asarray(x) for i, x in enumerate(leaves)}
    for j, pi in enumerate(league):
        for i, q in enumerate(pi):
            arrays[f"league{j}_w{i}"] = np.asarray(q["w"])
            arrays[f"league{j}_b{i}"] = np.asarray(q["b"])
    state = {"log": log, "settings": settings, "league": len(league), "layers": len(league[0])}

    def write(tmp):
        with open(tmp, "wb") as f:
            np.savez(f, state=np.array(json.dumps(state)), **arrays)
    atomic_write(path, write)


def _load_checkpoint(path: Path, params, opt_state):
    jax, _, _ = _jax()

    def read(z):
        state = json.loads(str(z["state"][()]))
        leaves = [z[f"leaf{i}"] for i in range(sum(1 for k in z.files if k.startswith("leaf")))]
        league = [[{"w": np.asarray(z[f"league{j}_w{i}"]), "b": np.asarray(z[f"league{j}_b{i}"])}
                   for i in range(state["layers"])] for j in range(state["league"])]
        return state, leaves, league
    state, leaves, league = read_npz(path, "checkpoint", read)
    treedef = jax.tree_util.tree_structure((params, opt_state))
    if treedef.num_leaves != len(leaves):
        raise ValueError(f"{path.name} does not fit this network (its layers differ)")
    params, opt_state = jax.tree_util.tree_unflatten(treedef, [jax.numpy.asarray(x) for x in leaves])
    return params, opt_state, league, state["log"], state["settings"]


def _buffers(steps: int, n: int, obs, mask) -> tuple:
    """A rollout's arrays, ``(steps, n, ...)``: observations, masks, actions,
    log-probabilities, values, rewards and hand ends."""
    return (np.empty((steps, n, obs.shape[1]), np.float32), np.empty((steps, n, mask.shape[1]), bool),
            np.empty((steps, n), np.int32), np.empty((steps, n), np.float32), np.empty((steps, n), np.float32),
            np.zeros((steps, n), np.float32), np.zeros((steps, n), bool))


def _grown(bufs: tuple) -> tuple:
    """The rollout's arrays of :func:`_buffers` with room for twice the steps."""
    return tuple(np.concatenate([b, np.zeros_like(b)]) for b in bufs)


def _rollout_hard(env, params, scale, act, steps, key):
    """``steps`` learner decisions in every game of ``env`` (opponents in
    the kernels), and more until a hand has ended in one of them: the
    arrays of :func:`gae` and the batch rows (``T >= steps`` rows each)."""
    jax, jnp, _ = _jax()
    n = env.num_envs
    obs, mask = env.obs, env.mask
    bufs = _buffers(steps, n, obs, mask)
    t = 0
    while t < steps or not bufs[6][:t].any():
        if t == len(bufs[0]):
            bufs = _grown(bufs)
        O, M, A, LP, V, R, D = bufs
        O[t] = obs
        M[t] = mask
        a, lp, v = act(params, scale, obs, mask, jax.random.fold_in(key, t))
        A[t], LP[t], V[t] = np.asarray(a), np.asarray(lp), np.asarray(v)
        obs, mask, r, d, _ = env.step(A[t].astype(np.int64))
        R[t] = r
        D[t] = d
        t += 1
    return (*(b[:t] for b in bufs), np.ones((t, n), bool))


def _rollout_league(env, params, scale, act, steps, key, league_packed, rng):
    """``steps`` decisions of every game of the self-play ``env``, and more
    until a hand in which the learner decided has ended: the learner's seat
    alternates game by game, the other seats play a league member drawn for
    each game."""
    jax, jnp, _ = _jax()
    n, players = env.num_envs, env.players
    lseat = (np.arange(n) % players).astype(np.int64)
    member = rng.integers(len(league_packed), size=n)
    obs, mask = env.obs, env.mask
    bufs = _buffers(steps, n, obs, mask) + (np.zeros((steps, n), bool),)
    rows = np.arange(n)
    decided = np.zeros(n, bool)     # the learner has decided in the slot's hand in play
    sample = False                  # a hand with a learner decision has ended
    t = 0
    while t < steps or not sample:
        if t == len(bufs[0]):
            bufs = _grown(bufs)
        O, M, A, LP, V, R, D, Lr = bufs
        to_move = env.learner_seat
        mine = to_move == lseat
        O[t] = obs
        M[t] = mask
        Lr[t] = mine
        decided |= mine
        a, lp, v = act(params, scale, obs, mask, jax.random.fold_in(key, t))
        a = np.asarray(a).astype(np.int64)
        LP[t], V[t] = np.asarray(lp), np.asarray(v)
        for k in np.unique(member[~mine]):
            sel = (~mine) & (member == k)
            a[sel] = _frozen_greedy(league_packed[k], obs[sel], mask[sel])
        A[t] = a
        obs, mask, r, d, _ = env.step(a)
        R[t] = r[rows, lseat]
        D[t] = d
        t += 1
        if d.any():
            sample |= bool((d & decided).any())
            decided[d] = False
            lseat[d] = (lseat[d] + 1) % players
            member[d] = rng.integers(len(league_packed), size=int(d.sum()))
    return tuple(b[:t] for b in bufs)


def evaluate(pi, preset: str, deals: int, opponent="hard", seed: int = _EVAL_SEED,
             players: int | None = None) -> float:
    """The mean margin (points per hand) of the actor ``pi`` (layers as a
    pytree or ``(w, b)`` pairs) playing greedily on ``deals`` duplicate
    hands of ``preset`` (a preset's name, or the resolved
    :class:`~dominoai.rules.Rules`) at tables of ``players`` (None: the
    preset's count; with Rules, their own;
    deals of ``seed``, each played once with the actor
    in every seat) against ``opponent``: an opponent level played in the
    env's kernels (``"hard"``), or another actor's layers (played greedily
    by the numba forward pass).

    :raises InputError: an unknown preset or opponent level (as
        :class:`~dominoai.learn.env.VectorEnv`).
    """

    def layers(p):
        return [q if isinstance(q, dict) else {"w": q[0], "b": q[1]} for q in p]
    mine = _packed(layers(pi))
    other = None if isinstance(opponent, str) else _packed(layers(opponent))
    rules = preset if isinstance(preset, Rules) else run_rules(preset, players)
    players = rules.players
    total, count = 0.0, 0
    for seat in range(players):
        if other is None:
            env = VectorEnv(rules, deals, opponents=opponent, seat=seat, seed=seed)
        else:
            env = VectorEnv(rules, deals, opponents=None, seed=seed)
        obs, mask = env.reset()
        n = env.num_envs
        margin = np.zeros(n)
        live = np.ones(n, bool)
        for _ in range(4 * N_TILES * 4):
            if other is None:
                a = _frozen_greedy(mine, obs, mask)
            else:
                me = env.learner_seat == seat
                a = np.empty(n, np.int64)
                a[me] = _frozen_greedy(mine, obs[me], mask[me])
                a[~me] = _frozen_greedy(other, obs[~me], mask[~me])
            obs, mask, r, d, _ = env.step(a, active=live)
            fin = d & live
            if fin.any():
                margin[fin] = r[fin] if other is None else r[fin, seat]
                live &= ~fin
            if not live.any():
                break
        total += float(margin[~live].sum())
        count += int((~live).sum())
    return total / max(count, 1)


def train_ppo(preset: str = "block", init=None, checkpoint_dir=None, resume: bool = False,
              progress: bool = False, **settings) -> PPOResult:
    """Train a policy by PPO (see the module) from the policy model ``init``
    (a :class:`~dominoai.nets.model.Model`, a shipped name or a file;
    None: the shipped policy of ``preset``).

    :param settings: any of :data:`DEFAULTS`: ``players`` (the tables'
        size, None: the preset's; ``init`` must have been trained at it, and
        the model records it), ``iterations`` (in all: a
        resumed run trains those its checkpoint lacks), ``num_envs`` (game
        slots), ``steps`` (decisions per slot per iteration, or more until
        a hand has ended; the self-play slots take twice as many steps, so
        the learner decides about as often there), ``hard_share``, ``opponents``, ``epochs``, ``batch``,
        ``learning_rate``, ``clip``, ``kl``, ``entropy``, ``value_coef``,
        ``gae_lambda``, ``reward_scale``, ``value_warmup``,
        ``snapshot_every``, ``league_size``, ``eval_every`` (0: no
        evaluation), ``eval_deals``, ``checkpoint_every``, ``seed``. The
        first ``value_warmup`` iterations train the critic only: a run of
        no more iterations returns the starting policy's weights.
    :param checkpoint_dir: where ``checkpoint.npz`` is written (None: nowhere).
    :param resume: go on from ``checkpoint_dir``'s checkpoint (which must
        have the same settings but ``iterations``); without one, start afresh.
    :returns: a :class:`PPOResult`; its ``log`` has one dict per iteration:
        ``iteration``, ``decisions`` and ``hands`` (the learner's, in all so
        far), ``margin_hard`` and ``margin_league`` (the mean margin in
        points of the iteration's finished hands against each part of the
        league, sampled play; NaN for a part without games), ``policy_loss``, ``value_loss``,
        ``entropy``, ``kl_init``, ``approx_kl``, ``clip_fraction`` (means
        over the iteration's minibatches), ``eval_hard`` and ``eval_init``
        (the greedy policy's mean margin on :func:`evaluate`'s fixed deals
        against ``opponents`` and against the starting policy; NaN between
        evaluations), ``seconds`` and ``cpu_seconds`` (wall clock and this
        process's CPU time, in all so far).
    :raises InputError: a bad setting, an option not named here (naming
        the valid ones), a checkpoint of other settings (naming each that
        differs, :func:`~dominoai.learn.training.other_settings`) or of
        more iterations than ``iterations``.
    :raises ModelError: ``init`` is not a policy for ``preset`` at tables
        of ``players``, or it has the action-feature block.
    :raises ImportError: jax or optax is missing.
    """
    check_options("train_ppo", settings, ["preset", "init", "checkpoint_dir", "resume", "progress", *DEFAULTS])
    spec = PPORunSpec(preset=preset, init=init, **settings)
    return fit_ppo(spec, spec.init, checkpoint_dir=checkpoint_dir, resume=resume, progress=progress)


def fit_ppo(spec, init=None, checkpoint_dir=None, resume: bool = False, progress: bool = False) -> PPOResult:
    """Train the policy of ``spec`` (a :class:`~dominoai.learn.runs.PPORunSpec`)
    by PPO from ``init`` (a :class:`~dominoai.nets.model.Model`, a shipped
    name or a file; None: the preset's shipped policy): what
    :func:`train_ppo` does, given a spec; ``checkpoint_dir``, ``resume``
    and ``progress`` as there.

    :raises InputError: a checkpoint of other settings or of more
        iterations than the spec's.
    :raises ModelError: ``init`` is not a policy for the preset at the
        spec's tables, or it has the action-feature block.
    :raises ImportError: jax or optax is missing.
    """
    jax, jnp, optax = _jax()
    from . import jaxnet

    preset = spec.preset
    s = spec.settings()
    if init is None:
        init = default_model_name(preset, "policy")
    m0 = init if isinstance(init, Model) else load_model(init, preset=preset, kind="policy")
    if m0.kind != "policy" or m0.preset != preset:
        raise ModelError(f"model {m0.name!r} is not a policy for {preset}")
    check_players(m0, s["players"])
    if m0.has_action_features:
        raise ModelError(f"model {m0.name!r} adds action features to its logits; PPO trains policies "
                         "without the action-feature block (give --init such a policy)")
    s["init"] = m0.ident
    t_call = time.perf_counter()
    scale = jnp.asarray(m0.scale)
    init_pi = jaxnet.params_of(m0)
    critic = new_model("value", preset, hidden=m0.layers[1:-1], seed=s["seed"])
    params = {"pi": jaxnet.params_of(m0), "v": jaxnet.params_of(critic)}
    act, greedy, update, opt = _fns(s["learning_rate"], s["clip"], s["kl"], s["entropy"], s["value_coef"])
    opt_state = opt.init(params)
    league = [[{"w": np.asarray(q["w"]), "b": np.asarray(q["b"])} for q in init_pi]]
    log: list = []
    key_settings = {k: v for k, v in s.items() if k != "iterations"}
    ckpt = Path(checkpoint_dir) / _CKPT if checkpoint_dir is not None else None
    if resume and ckpt is not None and ckpt.exists():
        # a checkpoint written before the players were kept: the preset's count
        state = checkpoint_state(ckpt)
        old = {"players": spec.preset_players, **state["settings"]}
        if old != key_settings:
            raise other_settings(str(ckpt), old, key_settings,
                                 "resume with the same settings, or train in another --out")
        done = len(state["log"])
        if done > s["iterations"]:
            raise InputError("iterations", s["iterations"],
                             f"{ckpt} has trained {done} iterations, "
                             f"more than the {s['iterations']} of $iterations; give $iterations {done} or more "
                             "(more go on training from it)")
        params, opt_state, league, log, _ = _load_checkpoint(ckpt, params, opt_state)

    n_hard = int(round(s["num_envs"] * s["hard_share"]))
    n_league = s["num_envs"] - n_hard
    players = s["players"]
    env_h = (VectorEnv(spec.rules, n_hard, opponents=s["opponents"], seat="rotate", seed=s["seed"])
             if n_hard else None)
    env_l = VectorEnv(spec.rules, n_league, opponents=None, seed=s["seed"]) if n_league else None
    base_key = jax.random.PRNGKey(s["seed"])
    spent = log[-1]["seconds"] if log else 0.0
    cpu_spent = log[-1]["cpu_seconds"] if log else 0.0
    decisions = log[-1]["decisions"] if log else 0
    hands = log[-1]["hands"] if log else 0
    t0, c0 = time.perf_counter(), time.process_time()
    its = range(len(log), s["iterations"])
    bar = None
    if progress and len(its):
        bar = tqdm(total=s["iterations"], initial=len(log), desc=f"PPO on {preset}", unit="it")

    def run_eval(p):
        return (evaluate(p["pi"], spec.rules, s["eval_deals"], s["opponents"]),
                evaluate(p["pi"], spec.rules, s["eval_deals"], init_pi))

    for it in its:
        rng = np.random.default_rng([s["seed"], it])
        key = jax.random.fold_in(base_key, it)
        parts = []
        margins = {}
        for name, env in (("hard", env_h), ("league", env_l)):
            if env is None:
                margins[name] = float("nan")
                continue
            env.reset(int(rng.integers(2**62)))
            if name == "hard":
                ro = _rollout_hard(env, params, scale, act, s["steps"], jax.random.fold_in(key, 0))
            else:
                packed = [_packed(pi) for pi in league]
                ro = _rollout_league(env, params, scale, act, 2 * s["steps"], jax.random.fold_in(key, 1),
                                     packed, rng)
            O, M, A, LP, V, R, D, Lr = ro
            adv, tgt, valid = gae(R / s["reward_scale"], V, D, Lr, s["gae_lambda"])
            parts.append((O[valid], M[valid], A[valid], LP[valid], adv[valid], tgt[valid]))
            fin = int(D.sum())
            margins[name] = float(R[D].mean()) if fin else float("nan")
            hands += fin
        O, M, A, LP, ADV, TGT = (np.concatenate(x) for x in zip(*parts))
        n = len(A)
        if n == 0:   # the rollouts play on until a hand has ended: never here
            raise RuntimeError(f"PPO iteration {it + 1} has no decision of a finished hand")
        decisions += n
        ADV = (ADV - ADV.mean()) / (ADV.std() + 1e-8)
        pi_coef = jnp.float32(0.0 if it < s["value_warmup"] else 1.0)
        dev = [jnp.asarray(x) for x in (O, M, A, LP, ADV, TGT)]
        bs = s["batch"]
        stats = []
        for ep in range(s["epochs"]):
            order = rng.permutation(n)
            for i in range(0, n, bs):
                # every minibatch has ``batch`` rows (the last padded with weight 0): one compilation
                part = order[i:i + bs]
                wgt = np.zeros(bs, np.float32)
                wgt[:len(part)] = 1.0
                idx = jnp.asarray(np.concatenate([part, np.zeros(bs - len(part), part.dtype)]))
                params, opt_state, pr = update(params, opt_state, init_pi, scale,
                                               *(x[idx] for x in dev), pi_coef, jnp.asarray(wgt))
                stats.append(pr)
        entry = {"iteration": it + 1, "decisions": int(decisions), "hands": int(hands),
                 "margin_hard": margins["hard"], "margin_league": margins["league"]}
        for k in ("policy_loss", "value_loss", "entropy", "kl_init", "approx_kl", "clip_fraction"):
            entry[k] = float(np.mean([float(p[k]) for p in stats]))
        last = it + 1 == s["iterations"]
        if s["eval_every"] and ((it + 1) % s["eval_every"] == 0 or last):
            entry["eval_hard"], entry["eval_init"] = run_eval(params)
        else:
            entry["eval_hard"] = entry["eval_init"] = float("nan")
        entry["seconds"] = spent + time.perf_counter() - t0
        entry["cpu_seconds"] = cpu_spent + time.process_time() - c0
        log.append(entry)
        if (it + 1) % s["snapshot_every"] == 0:
            league.append([{"w": np.asarray(q["w"]), "b": np.asarray(q["b"])} for q in params["pi"]])
            if len(league) > s["league_size"]:
                del league[1]
        if bar is not None:
            bar.update(1)
            bar.set_postfix(hard=f"{margins['hard']:+.2f}", league=f"{margins['league']:+.2f}",
                            kl=f"{entry['kl_init']:.3f}")
        if ckpt is not None and ((it + 1) % s["checkpoint_every"] == 0 or last):
            ckpt.parent.mkdir(parents=True, exist_ok=True)
            _save_checkpoint(ckpt, params, opt_state, league, log, key_settings)
    if bar is not None:
        bar.close()
    data = {"iterations": len(log), "decisions": int(decisions), "hands": int(hands),
            "init": m0.ident, "seconds": round(log[-1]["seconds"], 1) if log else 0.0,
            "cpu_seconds": round(log[-1]["cpu_seconds"], 1) if log else 0.0}
    header = {"data": data, "name": f"{preset}-ppo", "training_command": "", "players": players}
    model = Model.from_params([(np.asarray(q["w"]), np.asarray(q["b"])) for q in params["pi"]], "policy",
                              preset, scale=m0.scale, **header)
    return PPOResult(model, log, params, time.perf_counter() - t_call)


# ------------------------------------------------------------------ one run in a folder
def canonical_command(preset: str, init: str, settings: dict) -> str:
    """The ``dominoai train --kind ppo`` command that trains this model
    again (every setting the command line takes; ``--out`` does not change
    the result): :func:`~dominoai.learn.runs.command_of` of the spec of
    ``preset`` and ``settings``, ``init`` written as the starting model.

    :raises InputError: a bad setting.
    """
    return command_of(PPORunSpec(preset=preset, **settings), init=init)


def write_curve(log: list, path, title: str = "") -> Path:
    """The learning curve of a PPO log as a figure: the mean margin per
    iteration against each part of the league (sampled play) and the greedy
    policy's evaluations; the KL from the starting policy and the clip
    fraction. Written whole or not at all.

    :raises OSError: the folder cannot be written.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    it = np.array([e["iteration"] for e in log])
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6))

    def smooth(y, k=10):
        y = np.asarray(y, float)
        if len(y) < k:
            return y
        return np.convolve(np.nan_to_num(y), np.ones(k) / k, mode="valid")

    for key, lab in (("margin_hard", "against hard (sampled)"), ("margin_league", "against the league (sampled)")):
        y = [e[key] for e in log]
        if not np.all(np.isnan(y)):
            ys = smooth(y)
            a.plot(it[len(it) - len(ys):], ys, "-", label=lab + ", mean of 10", lw=0.8)
    for key, lab, mk in (("eval_hard", "greedy against hard", "o"), ("eval_init", "greedy against the start", "s")):
        pts = [(e["iteration"], e[key]) for e in log if not np.isnan(e[key])]
        if pts:
            a.plot(*zip(*pts), mk + "--", label=lab, ms=3, lw=0.8)
    a.axhline(0.0, color="grey", lw=0.6)
    a.set_xlabel("iteration")
    a.set_ylabel("margin, points per hand")
    a.legend(fontsize=7)
    b.plot(it, [e["kl_init"] for e in log], "-", label="KL from the start (nats)")
    b.plot(it, [e["clip_fraction"] for e in log], "-", label="clip fraction")
    b.set_xlabel("iteration")
    b.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    atomic_write(path, lambda p: fig.savefig(p, format=path.suffix.lstrip(".") or "png", dpi=110))
    plt.close(fig)
    return path


def train_run(out, preset: str = "block", init=None, resume: bool = False, progress: bool = False,
              name: str | None = None, **settings) -> PPOResult:
    """A whole PPO run in the folder ``out``: ``checkpoint.npz`` (every
    ``checkpoint_every`` iterations), then ``model.npz`` (the policy, named
    ``name``, default ``PRESET-ppo``; its header records the command, the
    data sizes, the starting model and the code hash), ``log.parquet`` (one
    row per iteration, :func:`train_ppo`'s log) and ``curve.png``.

    ``init``: a shipped policy's name or a model file (None: the preset's
    shipped policy). ``resume``: go on from the checkpoint. Without it, a
    folder that already holds a checkpoint or a model is refused.

    :raises InputError: a bad setting, or an option not named here or in
        :data:`DEFAULTS`.
    :raises ModelError: ``init`` is not a policy model for ``preset`` at
        tables of ``players``.
    :raises ValueError: a folder in use, or a checkpoint of other settings
        (one line each).
    """
    check_options("train_run", settings, ["out", "preset", "init", "resume", "progress", "name", *DEFAULTS])
    return run_ppo(PPORunSpec(preset=preset, init=init, name=name, **settings), out, resume, progress)


def run_ppo(spec, out, resume: bool = False, progress: bool = False) -> PPOResult:
    """The run of ``spec`` (a :class:`~dominoai.learn.runs.PPORunSpec`) in
    the folder ``out`` (a :class:`~dominoai.learn.runs.RunFolder`): what
    :func:`train_run` does, given a spec; ``resume`` and ``progress`` as there.

    :raises ModelError: the spec's ``init`` is not a policy model for its
        preset at its tables.
    :raises ValueError: a folder in use, or a checkpoint of other settings
        (one line each).
    """
    folder = RunFolder(out, "ppo", (_CKPT, "model.npz"), resume)
    init_name = spec.init if spec.init is not None else default_model_name(spec.preset, "policy")
    m0 = load_model(init_name, preset=spec.preset, kind="policy", players=spec.players)
    res = fit_ppo(spec, m0, checkpoint_dir=folder.out, resume=resume, progress=progress)
    shown = m0.name if Path(str(init_name)).suffix != ".npz" else Path(str(init_name)).name
    res.model.header.update({"training_command": command_of(spec, init=shown), "name": spec.model_name})
    last = res.log[-1] if res.log else {"decisions": 0, "hands": 0}
    title = f"{spec.preset}: PPO from {m0.name} ({last['decisions']:,} decisions, {last['hands']:,} hands)"
    folder.finish(res.model, res.log, lambda log, path: write_curve(log, path, title))
    return res
