"""The forward pass of a learned network (:mod:`dominoai.nets.model`), as kernels.

A network is a multilayer perceptron packed into three arrays, so a kernel
walks every layer without a Python object:

- ``scale`` (``float32``, ``(n_in,)``): each input is multiplied by its
  entry before the first layer;
- ``weights`` (``float32``, flat): layer by layer, the weight matrix
  ``(fan_in, fan_out)`` row-major, then the bias ``(fan_out,)``;
- ``shapes`` (``int64``, ``(n_layers, 2)``): each layer's ``fan_in, fan_out``.

Every layer but the last is followed by ReLU; the last is linear (the
logits of a policy, or a value). Sums accumulate in ``float32``.

Kernels only (``@njit(cache=True)``); numpy types only; no JAX.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.encode import encode_into

__all__ = ["widest", "forward_into", "forward_batch", "masked_argmax", "policy_pick"]


@njit(cache=True)
def widest(shapes):
    """The widest layer output of ``shapes`` (``int64``, ``(n_layers, 2)``):
    the length each of the two scratch vectors of :func:`forward_into` needs."""
    w = 0
    for l in range(shapes.shape[0]):
        if shapes[l, 1] > w:
            w = shapes[l, 1]
    return w


@njit(cache=True)
def forward_into(x, scale, weights, shapes, h0, h1, out):
    """One input ``x`` (``float32``, ``(n_in,)``) through the network: writes
    the ``shapes[-1, 1]`` outputs into ``out`` (``float32``). ``h0`` and
    ``h1`` are ``float32`` scratch of at least :func:`widest` entries.
    Inputs that are 0 after scaling cost nothing (the 0/1 tile sets are
    mostly 0)."""
    n_layers = shapes.shape[0]
    off = 0
    src = h0
    dst = h1
    for l in range(n_layers):
        fi = shapes[l, 0]
        fo = shapes[l, 1]
        b = off + fi * fo
        tgt = out if l == n_layers - 1 else dst
        for j in range(fo):
            tgt[j] = weights[b + j]
        for i in range(fi):
            v = x[i] * scale[i] if l == 0 else src[i]
            if v != 0.0:
                row = off + i * fo
                for j in range(fo):
                    tgt[j] += v * weights[row + j]
        off = b + fo
        if l < n_layers - 1:
            for j in range(fo):
                if tgt[j] < 0.0:
                    tgt[j] = 0.0
            src, dst = dst, src


@njit(cache=True)
def forward_batch(xs, scale, weights, shapes, out):
    """Every row of ``xs`` (``float32``, ``(n, n_in)``) through the network
    into ``out`` (``float32``, ``(n, n_out)``)."""
    w = widest(shapes)
    h0 = np.empty(w, np.float32)
    h1 = np.empty(w, np.float32)
    for r in range(xs.shape[0]):
        forward_into(xs[r], scale, weights, shapes, h0, h1, out[r])


@njit(cache=True)
def masked_argmax(logits, codes, n):
    """The id among ``codes[:n]`` (``int64``) with the highest logit; the
    first listed on ties. ``n`` must be at least 1."""
    best = codes[0]
    bz = logits[best]
    for k in range(1, n):
        c = codes[k]
        if logits[c] > bz:
            bz = logits[c]
            best = c
    return best


@njit(cache=True)
def policy_pick(a, codes, n, scale, weights, shapes, x, h0, h1, logits):
    """A policy's greedy choice for the observation array ``a`` (``int64``,
    ``(O_SIZE,)``): encodes it into ``x`` (``float32``, ``(OBS_SIZE,)``),
    writes the logits (``float32``, ``(N_ACTIONS,)``) and returns the legal
    id of ``codes[:n]`` with the highest logit."""
    encode_into(a, x)
    forward_into(x, scale, weights, shapes, h0, h1, logits)
    return masked_argmax(logits, codes, n)
