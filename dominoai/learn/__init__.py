"""Environments for agents that learn (docs/learning.md).

- :class:`VectorEnv`: ``num_envs`` games of any preset stepped together by
  numba kernels, the learner in one seat against ``easy``/``medium``/``hard``
  played inside the kernels, or every seat in self-play;
- :mod:`dominoai.learn.gym`: Gymnasium adapters (a vector env with
  next-step autoreset, and a one-game env for Gymnasium's checker);
- training: imitation (:mod:`dominoai.learn.imitation`), PPO
  (:mod:`dominoai.learn.ppo`) and value networks (:mod:`dominoai.learn.value`),
  with the network in JAX (:mod:`dominoai.learn.jaxnet`).

The learned networks as files (:func:`load_model`, shipped models by name)
and their forward pass in numba are :mod:`dominoai.nets`'s, the models the
bots play with; :class:`Model`, :class:`ModelError` and :func:`load_model`
are importable from here too.

The observation vector and the action ids are :mod:`dominoai.engine.encode`'s,
the ones the OpenSpiel and PettingZoo wrappers use.

The names below are imported from their module on first use, so that
``dominoai --help`` (which reads the ``dominoai train`` command,
:mod:`.command`) loads no numba.
"""
from __future__ import annotations

from .._lazy import lazy_names as _lazy_names

# public name -> its module: one of this package, or "..nets.model", dominoai's own
_WHERE = {"VectorEnv": "env", "OPPONENTS": "env",
          "Model": "..nets.model", "ModelError": "..nets.model", "load_model": "..nets.model"}

__all__ = ["VectorEnv", "OPPONENTS", "Model", "ModelError", "load_model"]


__getattr__, __dir__ = _lazy_names(__name__, _WHERE, globals(), __all__)
