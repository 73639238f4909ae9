"""A small policy-gradient learner in JAX (needs the ``[learn]`` extra: jax, optax).

REINFORCE with a batch-mean baseline on :class:`~dominoai.learn.VectorEnv`
in hand mode: each iteration deals ``num_envs`` fresh hands, the policy
samples the learner's moves until every game has finished its hand once,
and each decision of a hand is credited with that hand's reward (the
learner side's margin in points, divided by ``reward_scale``). The policy
is a two-layer network over the observation vector with the illegal ids
masked out. :class:`PolicyBot` plays the trained weights as a dominoai bot
(greedy, numpy only), so a tournament can rate it::

    run = train("block", opponents="easy", iterations=200)
    bot = PolicyBot(params=run.params)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..bots.base import BaseBot
from ..engine.encode import N_ACTIONS, OBS_SIZE, encode
from ..tiles import N_TILES
from ..errors import check_int, check_number
from ..moves import Move
from ..nets.model import input_scale  # the learned models' input scale (one definition)
from .env import VectorEnv

__all__ = ["TrainRun", "train", "PolicyBot", "forward_numpy", "input_scale"]


def forward_numpy(params: dict, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The policy's masked logits in numpy (``float32``, ``(n, N_ACTIONS)``;
    illegal ids -inf) for observations ``(n, OBS_SIZE)`` and masks ``(n,
    N_ACTIONS)``."""
    x = obs * input_scale()
    h = np.tanh(x @ params["w1"] + params["b1"])
    z = h @ params["w2"] + params["b2"]
    return np.where(mask, z, -np.inf).astype(np.float32)


@dataclass
class TrainRun:
    """What :func:`train` returns: ``params`` (numpy arrays ``w1`` ``(OBS_SIZE,
    hidden)``, ``b1``, ``w2`` ``(hidden, N_ACTIONS)``, ``b2``), ``curve`` (one
    dict per iteration: ``iteration``, ``hands``, ``margin`` (mean reward in
    points of the iteration's hands), ``seconds``), and the settings."""

    params: dict
    curve: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)


def train(variant: str = "block", opponents: str = "easy", iterations: int = 200, num_envs: int = 512,
          hidden: int = 64, learning_rate: float = 3e-3, reward_scale: float = 10.0, seed: int = 0,
          players: int | None = None, progress=None) -> TrainRun:
    """Train a policy for the learner seat (rotating) against ``opponents``.

    :param iterations: batches of ``num_envs`` hands each.
    :param progress: None, or a callable given each iteration's curve entry.
    :raises InputError: a bad number, or as :class:`VectorEnv`.
    :raises ImportError: jax or optax is missing (``pip install 'dominoai[learn]'``).
    """
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise ImportError("dominoai.learn.reinforce needs jax and optax: pip install 'dominoai[learn]'") from e
    iterations = check_int("iterations", iterations, 1)
    hidden = check_int("hidden", hidden, 1)
    learning_rate = check_number("learning_rate", learning_rate, positive=True)
    reward_scale = check_number("reward_scale", reward_scale, positive=True)
    env = VectorEnv(variant, num_envs, players=players, opponents=opponents, seat="rotate", seed=seed)
    n = env.num_envs
    scale = jnp.asarray(input_scale())
    k1, k2, key = jax.random.split(jax.random.PRNGKey(seed), 3)
    params = {
        "w1": jax.random.normal(k1, (OBS_SIZE, hidden)) * (1.0 / np.sqrt(OBS_SIZE)),
        "b1": jnp.zeros(hidden),
        "w2": jax.random.normal(k2, (hidden, N_ACTIONS)) * 0.01,
        "b2": jnp.zeros(N_ACTIONS),
    }
    opt = optax.adam(learning_rate)
    opt_state = opt.init(params)

    def logits(p, obs, mask):
        h = jnp.tanh((obs * scale) @ p["w1"] + p["b1"])
        return jnp.where(mask, h @ p["w2"] + p["b2"], -1e9)

    @jax.jit
    def sample(p, obs, mask, k):
        return jax.random.categorical(k, logits(p, obs, mask))

    @jax.jit
    def update(p, s, obs, mask, act, adv, w):
        def loss(q):
            lp = jax.nn.log_softmax(logits(q, obs, mask))
            chosen = jnp.take_along_axis(lp, act[:, None], axis=1)[:, 0]
            return -jnp.sum(w * adv * chosen) / jnp.maximum(jnp.sum(w), 1.0)
        g = jax.grad(loss)(p)
        upd, s = opt.update(g, s, p)
        return optax.apply_updates(p, upd), s

    max_steps = 4 * N_TILES  # far more decisions than one hand of any preset holds
    run = TrainRun({}, [], dict(variant=variant, opponents=opponents, iterations=iterations,
                                num_envs=n, hidden=hidden, learning_rate=learning_rate,
                                reward_scale=reward_scale, seed=seed))
    t0 = time.perf_counter()
    for it in range(iterations):
        obs, mask = env.reset(seed * 1_000_003 + it)
        O, M, A, E = [], [], [], []
        live = np.ones(n, bool)
        ret = np.zeros(n, np.float32)
        for _ in range(max_steps):
            key, k = jax.random.split(key)
            act = np.asarray(sample(params, obs, mask, k))
            O.append(obs.copy())
            M.append(mask.copy())
            A.append(act)
            E.append(live.copy())
            obs, mask, reward, done, _ = env.step(act)
            ret[live & done] = reward[live & done]
            live &= ~done
            if not live.any():
                break
        steps = len(O)
        R = np.tile(ret / reward_scale, steps)
        w = np.concatenate(E).astype(np.float32)
        adv = (R - ret.mean() / reward_scale) / (ret.std() / reward_scale + 1e-6)
        params, opt_state = update(params, opt_state, jnp.asarray(np.concatenate(O)),
                                   jnp.asarray(np.concatenate(M)), jnp.asarray(np.concatenate(A)),
                                   jnp.asarray(adv.astype(np.float32)), jnp.asarray(w))
        entry = {"iteration": it + 1, "hands": (it + 1) * n, "margin": float(ret.mean()),
                 "seconds": time.perf_counter() - t0}
        run.curve.append(entry)
        if progress is not None:
            progress(entry)
    run.params = {k: np.asarray(v, np.float32) for k, v in params.items()}
    return run


class PolicyBot(BaseBot):
    """A trained policy as a dominoai bot: the legal move with the highest
    logit (greedy; numpy only). Build it with ``PolicyBot(params=run.params)``,
    or register it under a name for tournaments::

        register_bot("pg", lambda seed=None: PolicyBot(seed, params=run.params))
    """

    name = "pg"
    uses_seed = False

    def __init__(self, seed: int | None = None, params: dict | None = None):
        super().__init__(seed)
        if params is None:
            raise ValueError("PolicyBot needs params (TrainRun.params)")
        self._p = params

    def act(self, observation) -> Move:
        codes = observation.legal_codes()
        if len(codes) == 0:
            raise ValueError(f"seat {observation.seat} has no move to make")
        mask = np.zeros((1, N_ACTIONS), bool)
        mask[0, codes] = True
        z = forward_numpy(self._p, encode(observation.array)[None], mask)[0]
        return Move.from_code(int(np.argmax(z)))
