"""The learned play model: a policy network's probability of each tabled play.

With ``play_model=neural`` the play model (:mod:`~dominoai.bots.pimc.likelihood`)
weights a world by the probability the policy network (``policy_model``,
:mod:`dominoai.nets.forward`'s packed MLP over the observation vector of
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
(:func:`dominoai.nets.forward.forward_into` on the whole vector) up to
float32 rounding. Its loops read each weight row through a slice (a view
of that row), which lets LLVM vectorise them: measured with a loop of
200,000 calls of the (128, 128) layer, 7.0 to 7.5 µs with indices
``off + i * fan_out + j`` into the flat array against 2.1 to 3.1 µs with
the row's slice (whose index ``j`` is known not to be negative).

A policy with the action-feature block (the shipped Draw, All Fives and
Kozel policies, :mod:`dominoai.nets.features`) adds to each legal move's
logit ``(fb + h_last @ fw) . features(move)``, ``h_last`` the last hidden
layer (:func:`net_log_prob_block`): the features are read from the row's
observation with the world's hand then, by the ``neural`` bot's kernels
(:func:`~dominoai.nets.features.action_features_into`,
:func:`~dominoai.nets.features.add_feature_term`), so the play model
gives each play the probability the ``neural`` bot gives it from that
observation. The features cost a lay and ``hard``'s evaluation per legal
move, per row and world (the row cache keeps each hand's factor).

Kernels only (``@njit(cache=True)``), numpy types in and out.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.encode import F_HAND, F_UNSEEN, encode_into
from ...engine.layout import R_PLAYERS
from ...engine.observe import O_HAND, O_LINE, O_UNSEEN
from ...nets.features import action_features_into, add_feature_term
from ...tiles import FULL_MASK, N_TILES

__all__ = ["PLAY_MODELS", "PLAY_HARD", "PLAY_NEURAL", "new_first_layer", "first_layer_into",
           "hand_delta_into", "net_logits_into", "net_log_prob", "net_log_prob_block", "log_softmax_pick",
           "NO_BLOCK"]

#: the play models by id (the index): ``hard`` (a softmax of hard's move
#: values at ``policy_weight``) and ``neural`` (the policy network's softmax)
PLAY_MODELS = ("hard", "neural")
PLAY_HARD = 0
PLAY_NEURAL = 1

#: the action-feature block ``(fw, fb)`` of a policy without one (no feature)
NO_BLOCK = (np.zeros((1, 0), np.float32), np.zeros(0, np.float32))


@njit(cache=True)
def new_first_layer(n_rows, net, on):
    """Empty first-layer tables ``(pre, delta)`` for ``n_rows`` tabled rows
    of the network ``net`` (``(scale, weights, shapes)``): ``pre``
    (``float32``, ``(n_rows, fan_out)``) and ``delta`` (``float32``, ``(N_TILES,
    fan_out)``), ``fan_out`` the first layer's outputs; ``(1, 1)`` each
    when not ``on``."""
    if not on:
        return np.zeros((1, 1), np.float32), np.zeros((N_TILES, 1), np.float32)
    fo = net[2][0, 1]
    return np.zeros((max(n_rows, 1), fo), np.float32), np.zeros((N_TILES, fo), np.float32)


@njit(cache=True)
def hand_delta_into(net, delta):
    """``delta[t]`` (``float32``, ``(N_TILES, fan_out)``, out) = the first layer's
    weights of the input "the seat holds tile ``t``" minus those of "tile
    ``t`` is unseen", each times its input scale: what holding ``t`` adds to
    the first layer of an observation where ``t`` was unseen."""
    scale, weights, shapes = net
    fo = shapes[0, 1]
    for t in range(N_TILES):
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
    a[O_UNSEEN] = FULL_MASK & ~a[O_LINE]
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
def net_logits_into(pre, delta, h, buf, n, net, h0, h1, logits):
    """The logits of the legal moves ``buf[:n]`` (``int64`` action ids;
    ``n >= 1``) under the network ``net`` (``(scale, weights, shapes)``),
    written at their ids into ``logits`` (``float32``, ``(N_ACTIONS,)``;
    the other entries are left as they were). The observation is a tabled
    row's: ``pre`` (``float32``, ``(fan_out,)``) its first layer with an
    empty hand (:func:`first_layer_into`), ``h`` the seat's hand (a tile
    set, added through ``delta``, :func:`hand_delta_into`). ``h0``, ``h1``:
    ``float32`` scratch of the widest layer. Returns the last hidden layer
    after its ReLU (one of ``h0``, ``h1``; of a network without a hidden
    layer, scratch of no meaning), which the action-feature block reads
    (:func:`~dominoai.nets.features.add_feature_term`)."""
    scale, weights, shapes = net
    n_layers = shapes.shape[0]
    fo = shapes[0, 1]
    src = h0
    for j in range(fo):
        src[j] = pre[j]
    for t in range(N_TILES):
        if (h >> t) & 1:
            dt = delta[t]
            for j in range(fo):
                src[j] += dt[j]
    off = shapes[0, 0] * fo + fo
    if n_layers == 1:
        # the first layer is the last: its outputs are the logits
        for c in range(n):
            logits[buf[c]] = src[buf[c]]
        return h1
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
            # the logits of the legal moves only
            for c in range(n):
                m = buf[c]
                z = weights[b + m]
                for i in range(fi):
                    v = src[i]
                    if v != 0.0:
                        z += v * w2[i, m]
                logits[m] = z
            return src
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
    return src


@njit(cache=True)
def net_log_prob(pre, delta, h, buf, n, k, net, h0, h1, logits):
    """The log probability the network ``net`` (``(scale, weights,
    shapes)``) gives to the move ``buf[k]`` among the legal moves
    ``buf[:n]`` (``int64`` action ids; ``n >= 1``): the log of the softmax
    of their logits (:func:`net_logits_into`, whose arguments these are;
    ``logits``: ``float32`` scratch of ``N_ACTIONS``). Returns a ``float``
    (``<= 0``)."""
    net_logits_into(pre, delta, h, buf, n, net, h0, h1, logits)
    return log_softmax_pick(logits, buf, n, k)


@njit(cache=True)
def net_log_prob_block(pre, delta, h, buf, n, k, net, h0, h1, logits, block, a, rv, fscratch,
                       inv_temp=1.0):
    """:func:`net_log_prob` of a policy with the action-feature block
    (:mod:`dominoai.nets.features`): each legal move's logit also gets
    ``(fb + h_last @ fw) . features(move)``, the features read from the
    seat's observation array ``a`` (``int64``, ``(O_SIZE,)``; its hand and
    unseen tiles are set here from ``h``) by
    :func:`~dominoai.nets.features.action_features_into` and added by
    :func:`~dominoai.nets.features.add_feature_term`, the kernels of the
    ``neural`` bot. ``block = (fw, fb)`` (``float32``, ``(last hidden,
    F)`` and ``(F,)``; ``F = 0``: no block, as :func:`net_log_prob`);
    ``fscratch = (st, feats, vals, wi, wf, fe, wv)``: the feature kernel's
    scratch (:class:`~dominoai.nets.features.FeatureScratch`'s arrays), the
    features (``float32``, ``(MAX_MOVES, N_ACTION_FEATURES)``) and ``wv``
    (``float32``, at least ``F``). ``inv_temp``: the logits are multiplied
    by it before the softmax (one over the play model's temperature,
    ``play_temperature``; 1.0: the policy's own probabilities)."""
    hl = net_logits_into(pre, delta, h, buf, n, net, h0, h1, logits)
    fw, fb = block
    if fb.shape[0] > 0:
        st, feats, vals, wi, wf, fe, wv = fscratch
        a[O_HAND] = h
        a[O_UNSEEN] = FULL_MASK & ~a[O_LINE] & ~h
        action_features_into(a, rv, rv[R_PLAYERS], buf, n, st, feats, vals, wi, wf, fe)
        add_feature_term(hl, fw, fb, buf, fe, n, wv, logits)
    if inv_temp != 1.0:
        for c in range(n):
            logits[buf[c]] = np.float32(logits[buf[c]] * inv_temp)
    return log_softmax_pick(logits, buf, n, k)


@njit(cache=True)
def log_softmax_pick(logits, buf, n, k):
    """The log softmax of ``logits[buf[k]]`` among ``logits[buf[:n]]``."""
    mx = logits[buf[0]]
    for c in range(1, n):
        if logits[buf[c]] > mx:
            mx = logits[buf[c]]
    s = 0.0
    for c in range(n):
        s += np.exp(np.float64(logits[buf[c]]) - mx)
    return np.float64(logits[buf[k]]) - mx - np.log(s)
