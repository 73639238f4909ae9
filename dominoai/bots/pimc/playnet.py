"""The learned play model: a policy network's probability of each tabled play.

With ``play_model=neural`` the play model (:mod:`~dominoai.bots.pimc.likelihood`)
weights a world by the probability the policy network (``policy_model``,
:mod:`dominoai.learn.forward`'s packed MLP over the observation vector of
:mod:`dominoai.engine.encode`) gives to each other seat's observed move,
from that seat's observation at that moment in that world: the softmax of
the network's logits over the seat's legal moves then.

Across the worlds of one search a tabled row's observation differs only in
the seat's hand (the vector's entries ``0:28``) and, through it, in its
unseen tiles (``56:84``: every tile neither held nor on the line). So the
first layer is computed once per row with an empty hand
(:func:`first_layer_into`: every tile not on the line unseen), and a world
adds, for each tile ``t`` of the hand, the column difference ``delta[t]``
(the weights of "holds ``t``" minus those of "``t`` unseen",
:func:`hand_delta_into`). The last layer is computed only for the legal
moves. :func:`net_log_prob` runs the rest; it equals the plain forward pass
(:func:`dominoai.learn.forward.forward_into` on the whole vector) up to
float32 rounding. Its loops read each weight row through a slice (a view
of that row), which lets LLVM vectorise them: measured with a loop of
200,000 calls of the (128, 128) layer, 7.0 to 7.5 µs with indices
``off + i * fan_out + j`` into the flat array against 2.1 to 3.1 µs with
the row's slice (whose index ``j`` is known not to be negative).

Kernels only (``@njit(cache=True)``), numpy types in and out.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.encode import F_HAND, F_UNSEEN, encode_into
from ...engine.observe import O_HAND, O_LINE, O_UNSEEN

__all__ = ["PLAY_MODELS", "PLAY_HARD", "PLAY_NEURAL", "new_first_layer", "first_layer_into",
           "hand_delta_into", "net_log_prob"]

#: the play models by id (the index): ``hard`` (a softmax of hard's move
#: values at ``policy_weight``) and ``neural`` (the policy network's softmax)
PLAY_MODELS = ("hard", "neural")
PLAY_HARD = 0
PLAY_NEURAL = 1

_FULL = np.int64((1 << 28) - 1)


@njit(cache=True)
def new_first_layer(n_rows, net, on):
    """Empty first-layer tables ``(pre, delta)`` for ``n_rows`` tabled rows
    of the network ``net`` (``(scale, weights, shapes)``): ``pre``
    (``float32``, ``(n_rows, fan_out)``) and ``delta`` (``float32``, ``(28,
    fan_out)``), ``fan_out`` the first layer's outputs; ``(1, 1)`` each
    when not ``on``."""
    if not on:
        return np.zeros((1, 1), np.float32), np.zeros((28, 1), np.float32)
    fo = net[2][0, 1]
    return np.zeros((max(n_rows, 1), fo), np.float32), np.zeros((28, fo), np.float32)


@njit(cache=True)
def hand_delta_into(net, delta):
    """``delta[t]`` (``float32``, ``(28, fan_out)``, out) = the first layer's
    weights of the input "the seat holds tile ``t``" minus those of "tile
    ``t`` is unseen", each times its input scale: what holding ``t`` adds to
    the first layer of an observation where ``t`` was unseen."""
    scale, weights, shapes = net
    fo = shapes[0, 1]
    for t in range(28):
        ih = F_HAND + t
        iu = F_UNSEEN + t
        for j in range(fo):
            delta[t, j] = (scale[ih] * weights[ih * fo + j]
                           - scale[iu] * weights[iu * fo + j])


@njit(cache=True)
def first_layer_into(a, net, x, out):
    """The first layer's pre-activation (``float32``, ``(fan_out,)``, into
    ``out``) of the observation array ``a`` (``int64``, ``(O_SIZE,)``) with
    its hand emptied: no tile held, every tile not on the line unseen
    (``a``'s ``O_HAND`` and ``O_UNSEEN`` are overwritten). ``x``:
    ``float32`` scratch of ``OBS_SIZE``."""
    scale, weights, shapes = net
    a[O_HAND] = 0
    a[O_UNSEEN] = _FULL & ~a[O_LINE]
    encode_into(a, x)
    fi = shapes[0, 0]
    fo = shapes[0, 1]
    b = fi * fo
    for j in range(fo):
        out[j] = weights[b + j]
    for i in range(fi):
        v = x[i] * scale[i]
        if v != 0.0:
            wr = weights[i * fo:(i + 1) * fo]
            for j in range(fo):
                out[j] += v * wr[j]


@njit(cache=True)
def net_log_prob(pre, delta, h, buf, n, k, net, h0, h1):
    """The log probability the network ``net`` (``(scale, weights,
    shapes)``) gives to the move ``buf[k]`` among the legal moves
    ``buf[:n]`` (``int64`` action ids; ``n >= 1``): the log of the softmax
    of their logits. The observation is a tabled row's: ``pre``
    (``float32``, ``(fan_out,)``) its first layer with an empty hand
    (:func:`first_layer_into`), ``h`` the seat's hand (a tile set, added
    through ``delta``, :func:`hand_delta_into`). ``h0``, ``h1``:
    ``float32`` scratch of the widest layer. Returns a ``float`` (``<=
    0``)."""
    scale, weights, shapes = net
    n_layers = shapes.shape[0]
    fo = shapes[0, 1]
    src = h0
    for j in range(fo):
        src[j] = pre[j]
    for t in range(28):
        if (h >> t) & 1:
            dt = delta[t]
            for j in range(fo):
                src[j] += dt[j]
    off = shapes[0, 0] * fo + fo
    if n_layers == 1:
        # the first layer is the last: its outputs are the logits
        return _log_softmax_pick(src, buf, n, k)
    dst = h1
    for l in range(1, n_layers):
        for j in range(shapes[l - 1, 1]):
            if src[j] < 0.0:
                src[j] = 0.0
        fi = shapes[l, 0]
        fo = shapes[l, 1]
        b = off + fi * fo
        w2 = weights[off:b].reshape((fi, fo))
        if l == n_layers - 1:
            # the logits of the legal moves only, into dst[:n]
            for c in range(n):
                m = buf[c]
                z = weights[b + m]
                for i in range(fi):
                    v = src[i]
                    if v != 0.0:
                        z += v * w2[i, m]
                dst[c] = z
            mx = dst[0]
            for c in range(1, n):
                if dst[c] > mx:
                    mx = dst[c]
            s = 0.0
            for c in range(n):
                s += np.exp(np.float64(dst[c]) - mx)
            return np.float64(dst[k]) - mx - np.log(s)
        bias = weights[b:b + fo]
        for j in range(fo):
            dst[j] = bias[j]
        for i in range(fi):
            v = src[i]
            if v != 0.0:
                wr = w2[i]
                for j in range(fo):
                    dst[j] += v * wr[j]
        off = b + fo
        src, dst = dst, src
    return 0.0


@njit(cache=True)
def _log_softmax_pick(logits, buf, n, k):
    """The log softmax of ``logits[buf[k]]`` among ``logits[buf[:n]]``."""
    mx = logits[buf[0]]
    for c in range(1, n):
        if logits[buf[c]] > mx:
            mx = logits[buf[c]]
    s = 0.0
    for c in range(n):
        s += np.exp(np.float64(logits[buf[c]]) - mx)
    return np.float64(logits[buf[k]]) - mx - np.log(s)
