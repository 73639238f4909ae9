"""The network of :mod:`dominoai.learn.model` in JAX, for training (needs the
``[learn]`` extra).

The same function as the numba kernels of :mod:`dominoai.learn.forward`:
inputs times ``scale``, then ``x @ w + b`` per layer, ReLU after every layer
but the last. Parameters are a list of ``{"w": (fan_in, fan_out), "b":
(fan_out,)}`` dicts (a JAX pytree), :meth:`Model.from_params
<dominoai.learn.model.Model.from_params>` turns them back into a model.
"""
from __future__ import annotations

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("dominoai.learn.jaxnet needs jax: pip install 'dominoai[learn]'") from e

__all__ = ["params_of", "apply", "masked_log_softmax"]


def params_of(model) -> list:
    """A model's layers as the JAX pytree :func:`apply` takes (``float32``)."""
    return [{"w": jnp.asarray(w), "b": jnp.asarray(b)} for w, b in model.params]


def apply(params, scale, x):
    """The network's outputs ``(..., n_out)`` for inputs ``x`` ``(...,
    OBS_SIZE)`` (``float32``)."""
    h = x * scale
    for layer in params[:-1]:
        h = jax.nn.relu(h @ layer["w"] + layer["b"])
    return h @ params[-1]["w"] + params[-1]["b"]


def masked_log_softmax(logits, mask):
    """Log-probabilities over the legal ids only (``mask`` ``bool``, same
    shape as ``logits``); illegal ids get a very negative number, not -inf,
    so gradients stay finite."""
    z = jnp.where(mask, logits, -1e9)
    return jax.nn.log_softmax(z, axis=-1)
