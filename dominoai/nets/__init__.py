"""The learned models at play time: model files, their forward pass and their inputs.

What a bot needs to play with a learned network, and nothing of training:

- :mod:`dominoai.nets.model`: the model file format (``.npz`` with a JSON
  header), :class:`Model`, :func:`load_model`, the shipped models by name
  (:func:`shipped_models`, the files of ``dominoai/nets/models/``);
- :mod:`dominoai.nets.value_model`: value models over whole worlds
  (:class:`ValueModel`, :func:`load_value_model`);
- :mod:`dominoai.nets.forward`: the forward pass as numba kernels;
- :mod:`dominoai.nets.world_encode`: the world vector, a value model's input;
- :mod:`dominoai.nets.features`: the action features a policy may weigh,
  computed by ``hard``'s evaluation;
- :mod:`dominoai.nets.hardeval`: ``hard``'s evaluation of each legal move,
  as kernels (:func:`~dominoai.nets.hardeval.hard_eval_into`).

The bots (:mod:`dominoai.bots`) import this package; the environments and
training (:mod:`dominoai.learn`) stand above both. This package imports
the engine, the rules, the tiles and the argument errors only (numpy and
numba; no JAX).
"""
from __future__ import annotations

from .model import Model, ModelError, load_model, shipped_models
from .value_model import ValueModel, load_value_model

__all__ = ["Model", "ModelError", "load_model", "shipped_models", "ValueModel", "load_value_model"]
