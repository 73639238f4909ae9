"""Gymnasium adapters of :class:`dominoai.learn.VectorEnv` (needs ``gymnasium``).

- :class:`GymVectorEnv`: Gymnasium's ``VectorEnv`` API over the batched
  kernels, with Gymnasium 1.x's next-step autoreset: the step that ends a
  game returns that game's last observation with ``terminated`` True; the
  next step ignores that game's action and returns the new game's first
  observation, reward 0. In match mode, hands of the new match that end
  before the learner's first decision in it are rewarded on the step of
  that decision, so an episode's return is the sum of its own hands'
  margins.
- :class:`GymEnv`: one game as a ``gymnasium.Env`` (hand or match), for
  Gymnasium's env checker and single-game tools.

An observation is a dict: ``"observation"`` (``float32``, ``(OBS_SIZE,)``,
:mod:`dominoai.engine.encode`) and ``"action_mask"`` (``int8``,
``(N_ACTIONS,)``, 1 for the legal action ids), as in the PettingZoo
environment. The action space is ``Discrete(N_ACTIONS)``. Keyword arguments
go to :class:`~dominoai.learn.VectorEnv`. :class:`GymEnv` defaults to
``illegal="penalty"`` (an action sampled from the whole space is then
replaced by a random legal move, ``penalty`` points off), so that tools
that ignore the mask can run it.
"""
from __future__ import annotations

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("dominoai.learn.gym needs gymnasium: pip install 'dominoai[learn]'") from e

from ..engine.encode import N_ACTIONS, OBS_SIZE
from ..errors import InputError
from .env import VectorEnv

__all__ = ["GymVectorEnv", "GymEnv", "single_observation_space"]

_HIGH = 1000.0  # bound of any observation field (tile ids, counts, points and scores)


def single_observation_space() -> spaces.Dict:
    """The observation space of one game: a ``Dict`` of ``"observation"``
    (``Box(-1, 1000, (OBS_SIZE,), float32)``) and ``"action_mask"``
    (``Box(0, 1, (N_ACTIONS,), int8)``)."""
    return spaces.Dict({
        "observation": spaces.Box(-1.0, _HIGH, (OBS_SIZE,), np.float32),
        "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
    })


def _info_dict(info: dict, done: np.ndarray) -> dict:
    """Gymnasium's vector info: each key with its ``_key`` mask (the games it is valid for)."""
    out = {}
    for k, v in info.items():
        out[k] = v
        out["_" + k] = done.copy() if k != "skipped" and k != "seat" else np.ones(len(done), np.bool_)
    return out


def _no_selfplay(kwargs):
    if "opponents" in kwargs and kwargs["opponents"] is None:
        raise InputError("opponents", None, "the Gymnasium adapters play a learner seat: give opponents "
                         "(self-play is VectorEnv(opponents=None))")


class GymVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games as Gymnasium's ``VectorEnv`` (next-step autoreset;
    see the module). ``env`` is the :class:`VectorEnv` underneath.

    :raises InputError: as :class:`VectorEnv`; self-play is not offered here.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, variant="block", num_envs: int = 64, **kwargs):
        _no_selfplay(kwargs)
        self.env = VectorEnv(variant, num_envs, **kwargs)
        self.num_envs = self.env.num_envs
        self.single_observation_space = single_observation_space()
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._pending = np.zeros(self.num_envs, np.bool_)
        self.render_mode = None

    def _obs(self, vec, mask):
        return {"observation": vec.copy(), "action_mask": mask.astype(np.int8)}

    def reset(self, seed: int | None = None, options=None):
        super().reset(seed=seed)
        obs, mask = self.env.reset(seed)
        self._pending[:] = False
        return self._obs(obs, mask), {}

    def step(self, actions):
        """One decision in every game (module docstring for the autoreset).

        :raises InputError: ``actions`` not ``num_envs`` integers (a float
            action is refused, never truncated), or an illegal action id
            while ``illegal="raise"``.
        """
        active = ~self._pending
        obs, mask, reward, done, info = self.env.step(np.asarray(actions), active)
        vec = obs.copy()
        m = mask.astype(np.int8)
        vec[done] = self.env.final_obs[done]
        m[done] = 0
        self._pending = done.copy()
        term = done.copy()
        trunc = np.zeros(self.num_envs, np.bool_)
        return ({"observation": vec, "action_mask": m}, reward.astype(np.float32).copy(), term, trunc,
                _info_dict(info, done))


class GymEnv(gym.Env):
    """One game (a hand, or a match with ``match=True``) as a
    ``gymnasium.Env``: ``reset(seed) -> (obs, info)``, ``step(action) ->
    (obs, reward, terminated, truncated, info)`` (module docstring).
    ``info`` at the end holds the game's result (``margin``, ``points``,
    ``winner``, ``hands``, ``status``)."""

    metadata = {"render_modes": []}

    def __init__(self, variant="block", **kwargs):
        _no_selfplay(kwargs)
        kwargs.setdefault("illegal", "penalty")
        self.env = VectorEnv(variant, 1, **kwargs)
        self.observation_space = single_observation_space()
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._started = False
        self.render_mode = None

    def reset(self, seed: int | None = None, options=None):
        super().reset(seed=seed)
        if seed is not None or not self._started:
            if seed is None:
                seed = int(self.np_random.integers(2**62))
            self.env.reset(seed)
            self._started = True
        # else: the game that started by itself when the last one ended
        e = self.env
        return {"observation": e.obs[0].copy(), "action_mask": e.mask[0].astype(np.int8)}, {}

    def step(self, action):
        """One decision: ``action`` is an integer action id.

        :raises InputError: a non-integer action (a float is refused, never
            truncated), or an illegal id while ``illegal="raise"``.
        """
        e = self.env
        obs, mask, reward, done, info = e.step(np.array([action]))
        if done[0]:
            o = {"observation": e.final_obs[0].copy(), "action_mask": np.zeros(N_ACTIONS, np.int8)}
            inf = {k: v[0] for k, v in info.items()}
        else:
            o = {"observation": obs[0].copy(), "action_mask": mask[0].astype(np.int8)}
            inf = {}
        return o, float(reward[0]), bool(done[0]), False, inf
