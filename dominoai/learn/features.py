"""The action features of a dataset, for training a policy with the action-feature block.

A policy may add to each legal action's logit a learned weighting of that
action's features (:mod:`dominoai.nets.features`, which computes them at
play time from the observation array). A dataset keeps observation
*vectors* (:data:`dominoai.learn.imitation.DATA_FIELDS`), so
:func:`decode_into` turns each one back into the observation array (the
encoding keeps every field) and :func:`dataset_features` computes the
features of every row's legal actions with the same kernel,
:func:`~dominoai.nets.features.action_features_into`. :data:`START_WEIGHTS`
is the block's bias before training.

Kernels are ``@njit(cache=True)``; numpy types only.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.encode import F_HAND, F_LINE, F_RAW, F_UNSEEN, F_VOID, N_ACTIONS, OBS_SIZE, RAW_FIELDS
from ..engine.observe import O_HAND, O_LINE, O_SIZE, O_UNSEEN, O_VOID
from ..nets.features import N_ACTION_FEATURES, action_features_into, feature_scratch
from ..nets.hardeval import DEFAULT_WEIGHTS, N_FEATURES
from ..rules import get_rules
from ..tiles import N_PIPS, N_TILES

__all__ = ["START_WEIGHTS", "decode_into", "dataset_features"]

#: the block's starting bias ``fb`` (``float32``, ``(N_ACTION_FEATURES,)``):
#: the weight of each feature in a legal action's logit before training,
#: ``hard``'s weights (:data:`dominoai.nets.hardeval.DEFAULT_WEIGHTS`), 0 for
#: ``own_next``; a policy trained with the block starts from it (and from
#: ``fw`` = 0), near ``hard``'s weighting of its moves
START_WEIGHTS = np.concatenate([DEFAULT_WEIGHTS[:N_FEATURES], np.zeros(N_ACTION_FEATURES - N_FEATURES)]
                               ).astype(np.float32)


@njit(cache=True)
def decode_into(x, a):
    """Write the observation array (``int64``, ``(O_SIZE,)``) that the
    observation vector ``x`` (``float32``, ``(OBS_SIZE,)``, written by
    :func:`~dominoai.engine.encode.encode_into`) encodes into ``a``: the
    inverse of the encoding, every field included."""
    for i in range(O_SIZE):
        a[i] = 0
    hand = np.int64(0)
    line = np.int64(0)
    unseen = np.int64(0)
    one = np.int64(1)
    for t in range(N_TILES):
        if x[F_HAND + t] != 0.0:
            hand |= one << t
        if x[F_LINE + t] != 0.0:
            line |= one << t
        if x[F_UNSEEN + t] != 0.0:
            unseen |= one << t
    a[O_HAND] = hand
    a[O_LINE] = line
    a[O_UNSEEN] = unseen
    for i in range(4):
        v = np.int64(0)
        for p in range(N_PIPS):
            if x[F_VOID + N_PIPS * i + p] != 0.0:
                v |= one << p
        a[O_VOID + i] = v
    for j in range(RAW_FIELDS.shape[0]):
        a[RAW_FIELDS[j]] = np.int64(np.round(x[F_RAW + j]))


@njit(cache=True)
def _dataset_features(obs, mask, rv, players, ids, fe, count):
    st, feats, vals, wi, wf = feature_scratch()
    a = np.zeros(O_SIZE, np.int64)
    codes = np.empty(N_ACTIONS, np.int64)
    buf = np.empty((N_ACTIONS, N_ACTION_FEATURES), np.float32)
    for r in range(obs.shape[0]):
        n = 0
        for c in range(N_ACTIONS):
            if mask[r, c]:
                codes[n] = c
                n += 1
        count[r] = n
        if n == 0:
            continue
        decode_into(obs[r], a)
        action_features_into(a, rv, players, codes, n, st, feats, vals, wi, wf, buf)
        for i in range(n):
            ids[r, i] = codes[i]
            for f in range(N_ACTION_FEATURES):
                fe[r, i, f] = buf[i, f]


def dataset_features(obs: np.ndarray, mask: np.ndarray, preset,
                     players: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The action features of every row of a dataset
    (:data:`dominoai.learn.imitation.DATA_FIELDS`' ``obs`` and ``mask``),
    played at tables of ``players`` (None: the preset's count; ``preset``
    may be the resolved :class:`~dominoai.rules.Rules`, ``players`` then None),
    compactly: ``(ids, features)``, ``int64`` ``(n, k)`` (the legal ids of
    each row in ascending order, padded with -1) and ``float32`` ``(n, k,
    N_ACTION_FEATURES)`` (0 in the padding), ``k`` the most legal ids of
    any row.

    :raises ValueError: arrays of the wrong shape, an unknown preset, or
        players the preset is not played by.
    """
    if isinstance(preset, str):
        rules = get_rules(preset) if players is None else get_rules(preset, players=players)
    else:
        rules = preset
    obs = np.ascontiguousarray(obs, np.float32)
    mask = np.ascontiguousarray(mask, np.bool_)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE or mask.shape != (len(obs), N_ACTIONS):
        raise ValueError(f"obs must be (n, {OBS_SIZE}) and mask (n, {N_ACTIONS})")
    k = max(1, int(mask.sum(axis=1).max())) if len(mask) else 1
    ids = np.full((len(obs), k), -1, np.int64)
    fe = np.zeros((len(obs), k, N_ACTION_FEATURES), np.float32)
    count = np.zeros(len(obs), np.int64)
    _dataset_features(obs, mask, rules.vector(), rules.players, ids, fe, count)
    return ids, fe
