"""Environments for agents that learn (docs/learning.md).

- :class:`VectorEnv`: ``num_envs`` games of any preset stepped together by
  numba kernels, the learner in one seat against ``easy``/``medium``/``hard``
  played inside the kernels, or every seat in self-play;
- :mod:`dominoai.learn.gym`: Gymnasium adapters (a vector env with
  next-step autoreset, and a one-game env for Gymnasium's checker);
- :mod:`dominoai.learn.model`: learned networks as ``.npz`` files
  (:func:`load_model`, shipped models by name), their forward pass in numba
  (:mod:`dominoai.learn.forward`) and in JAX for training
  (:mod:`dominoai.learn.jaxnet`).

The observation vector and the action ids are :mod:`dominoai.engine.encode`'s,
the ones the OpenSpiel and PettingZoo wrappers use.
"""
from __future__ import annotations

from .env import OPPONENTS, VectorEnv
from .model import Model, ModelError, load_model

__all__ = ["VectorEnv", "OPPONENTS", "Model", "ModelError", "load_model"]
