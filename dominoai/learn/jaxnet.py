"""The network of :mod:`dominoai.nets.model` in JAX, for training (needs the
``[learn]`` extra).

The same function as the numba kernels of :mod:`dominoai.nets.forward`:
inputs times ``scale``, then ``x @ w + b`` per layer, ReLU after every layer
but the last. Parameters are a list of ``{"w": (fan_in, fan_out), "b":
(fan_out,)}`` dicts (a JAX pytree), :meth:`Model.from_params
<dominoai.nets.model.Model.from_params>` turns them back into a model.
"""
from __future__ import annotations

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("dominoai.learn.jaxnet needs jax: pip install 'dominoai[learn]'") from e

__all__ = ["params_of", "apply", "masked_log_softmax", "hidden_and_apply", "apply_features", "action_params_of"]


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


def hidden_and_apply(params, scale, x):
    """``(h, out)``: the last hidden layer's activations ``(..., fan_in of the
    head)`` and the network's outputs ``(..., n_out)`` for inputs ``x``.
    The network needs one hidden layer at least."""
    h = x * scale
    for layer in params[:-1]:
        h = jax.nn.relu(h @ layer["w"] + layer["b"])
    return h, h @ params[-1]["w"] + params[-1]["b"]


def apply_features(params, action, scale, x, ids, feats):
    """A policy with the action-feature block (:mod:`dominoai.nets.features`):
    the logits ``(n, N_ACTIONS)`` of inputs ``x`` ``(n, OBS_SIZE)``, where
    each listed action ``ids[r, k]`` (``int``, ``(n, k)``; -1 pads) gets
    ``sum_f (fb[f] + (h @ fw)[f]) * feats[r, k, f]`` added (``feats``
    ``(n, k, N_ACTION_FEATURES)``, ``h`` the last hidden layer; ``action``:
    ``{"fw": (hidden, N_ACTION_FEATURES), "fb": (N_ACTION_FEATURES,)}``)."""
    h, logits = hidden_and_apply(params, scale, x)
    wv = h @ action["fw"] + action["fb"]                      # (n, F)
    term = jnp.einsum("nkf,nf->nk", feats, wv)
    valid = ids >= 0
    rows = jnp.arange(x.shape[0])[:, None]
    return logits.at[rows, jnp.where(valid, ids, 0)].add(jnp.where(valid, term, 0.0))


def action_params_of(model) -> dict:
    """A policy's action-feature weights as the pytree :func:`apply_features`
    takes: ``{"fw", "fb"}`` (``float32``)."""
    fw, fb = model.action
    return {"fw": jnp.asarray(fw), "fb": jnp.asarray(fb)}
