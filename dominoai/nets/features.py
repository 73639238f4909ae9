"""Per-action features for a policy network: what each legal move does, as kernels.

The observation vector (:mod:`dominoai.engine.encode`) shows the open ends'
pips as plain numbers; what a move scores in All Fives (the count of the
ends after it, when a multiple of 5) is a sum modulo 5 of them that a small
network learns poorly. A policy model may therefore add, to each legal
action's logit, a learned weighting of that action's **features**: the
values ``hard`` weighs (:data:`dominoai.nets.hardeval.FEATURE_TABLE`) and what
the seat's own next tile could score after it, each computed by laying the
tile on a copy of the line seen by the deciding seat.
:data:`ACTION_FEATURES` names them, in the order of the feature axis:

============  ================================================================
``heavy``     pips shed (the hand's end count before minus after the move)
``double``    1 for a double
``follow``    own tiles left that fit the ends after the move
``spread``    distinct numbers among the own tiles left
``void``      share of the ends an opponent is known to lack (weighted)
``lock``      mean ``1/(1+unseen tiles)`` of the end numbers, signed
``partner``   chance the partner can follow minus the next opponent's
``points``    points made now by the count of the ends (a strike is 5)
``reply``     minus the next seat's expected best points with one tile
``own_next``  the best points the seat itself could make next with one of
              the tiles it keeps, laid on the ends the move leaves (as if
              nothing were played in between; a strike is 5)
============  ================================================================

The first nine are ``hard``'s (:func:`dominoai.nets.hardeval.hard_eval_into`
computes them); ``own_next`` is the block's own. Units are points, pips
and counts; the Dominoball replacement (action ``MOVE_REPLACE``) has all features 0. The block's layout is
:data:`ACTION_FEATURES_VERSION` (1); a model records the names and the
version (:mod:`dominoai.nets.model`) and is refused under another.

The features are read from the observation only (the observation array, or
the observation vector, which :func:`dominoai.learn.features.decode_into`
turns back into the array: the encoding keeps every field), so they cannot
see a hidden tile. The same kernel, :func:`action_features_into`, serves
the ``neural`` bot's forward pass (:func:`policy_pick_features`), the
search's play model (:mod:`dominoai.bots.pimc.playnet`) and the training
data (:func:`dominoai.learn.features.dataset_features`).

Kernels are ``@njit(cache=True)``; numpy types only.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import kernels as K
from ..engine import layout as L
from ..engine.encode import encode_into
from ..engine.observe import O_HAND, O_SEAT, state_from_observation
from ..tiles import TILE_HIGH, TILE_LOW
from .forward import forward_into, masked_argmax, widest
from .hardeval import DEFAULT_WEIGHTS, FEATURES, N_FEATURES, WORK_FLOAT, WORK_INT, hard_eval_into

__all__ = ["ACTION_FEATURES", "ACTION_FEATURES_VERSION", "N_ACTION_FEATURES", "FeatureScratch",
           "feature_scratch", "action_features_into", "action_features", "add_feature_term",
           "forward_features_batch", "policy_pick_features"]

#: the names of the feature axis, in order (``tuple`` of ``str``: ``hard``'s
#: features, then ``own_next``); a policy's header lists them
ACTION_FEATURES = tuple(FEATURES) + ("own_next",)
#: the length of the feature axis (``int``, 10): the last axis of every
#: features array (``(MAX_MOVES, N_ACTION_FEATURES)`` per decision)
N_ACTION_FEATURES = len(ACTION_FEATURES)
#: the index of ``own_next`` on the feature axis (``int``)
F_OWN_NEXT = N_FEATURES
#: the version of the block's layout and meaning (``int``); a model records it
#: and is refused under another
ACTION_FEATURES_VERSION = 1

_W = DEFAULT_WEIGHTS.copy()
_HIGH = TILE_HIGH.copy()
_LOW = TILE_LOW.copy()
_ONE = np.int64(1)


@njit(cache=True)
def feature_scratch():
    """Fresh scratch for :func:`action_features_into`: ``(st, feats, vals,
    wi, wf)``, ``int64`` ``(3 * S_SIZE,)``, ``float64`` ``(MAX_MOVES,
    N_FEATURES)``, ``float64`` ``(MAX_MOVES,)``, ``int64`` ``(WORK_INT,)``
    and ``float64`` ``(WORK_FLOAT,)`` (the last four ``hard``'s); kernels
    that compute features in a loop allocate it once."""
    return (np.zeros(3 * L.S_SIZE, np.int64), np.empty((L.MAX_MOVES, N_FEATURES), np.float64),
            np.empty(L.MAX_MOVES, np.float64), np.empty(WORK_INT, np.int64),
            np.empty(WORK_FLOAT, np.float64))


class FeatureScratch:
    """Scratch arrays for :func:`action_features_into`, allocated once:
    ``st`` (``int64``, ``(3 * S_SIZE,)``), ``feats`` (``float64``,
    ``(MAX_MOVES, N_FEATURES)``), ``vals``, ``wi``, ``wf`` (``hard``'s)."""

    def __init__(self):
        self.st, self.feats, self.vals, self.wi, self.wf = feature_scratch()

    def args(self) -> tuple:
        return self.st, self.feats, self.vals, self.wi, self.wf


@njit(cache=True)
def action_features_into(a, rv, players, codes, n, st, feats, vals, wi, wf, out):
    """The features of the legal actions ``codes[:n]`` (``int64``) of the
    seat that decides in the observation array ``a`` (``int64``,
    ``(O_SIZE,)``) under the rules vector ``rv`` (``players`` seats): writes
    ``out[i, f]`` (``float32``, at least ``(n, N_ACTION_FEATURES)``) for the
    i-th listed action, in the order of :data:`ACTION_FEATURES`. ``st``,
    ``feats``, ``vals``, ``wi``, ``wf``: :class:`FeatureScratch`'s arrays."""
    S = L.S_SIZE
    s0 = st[:S]
    s1 = st[S:2 * S]
    s2 = st[2 * S:3 * S]
    for q in range(S):
        s0[q] = 0
    state_from_observation(a, players, s0)
    # a writable copy of the weights: a global is read-only in a kernel, and
    # hard_eval_into would compile once more for it
    hard_eval_into(s0, rv, a, codes, n, _W.copy(), feats, vals, wi, wf)
    seat = a[O_SEAT]
    side = K.side_of(rv, seat)
    per_pt = 5 if rv[L.R_END_SCORING] == L.ENDS_STRIKES else 1
    scoring = rv[L.R_END_SCORING] != L.ENDS_NONE
    for i in range(n):
        for f in range(N_FEATURES):
            v = feats[i, f]
            out[i, f] = v if np.isfinite(v) else 0.0
        code = codes[i]
        best = 0
        if scoring and code != L.MOVE_REPLACE:
            t = code >> 2
            for q in range(S):
                s1[q] = s0[q]
            K.lay(s1, rv, t, code & 3)
            m = a[O_HAND] & ~(_ONE << t)
            while m:
                u = K.lowest_tile(m)
                m &= m - 1
                for k in range(4):
                    e = s1[L.S_END_PIP + k]
                    if e < 0 or (_HIGH[u] != e and _LOW[u] != e):
                        continue
                    for q in range(S):
                        s2[q] = s1[q]
                    before = s2[L.S_POINTS + side]
                    K.lay_and_score(s2, rv, seat, u, k)
                    got = s2[L.S_POINTS + side] - before
                    if got > best:
                        best = got
        out[i, F_OWN_NEXT] = best * per_pt


def action_features(observation) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, features)`` of an :class:`~dominoai.observation.Observation`
    whose seat is to move: the legal action ids (``int64``, ``(n,)``) and
    their features (``float32``, ``(n, N_ACTION_FEATURES)``, rows in the
    order of ``codes``).

    :raises ValueError: the seat is not to move (it has no legal action).
    """
    codes = np.ascontiguousarray(observation.legal_codes(), np.int64)
    if len(codes) == 0:
        raise ValueError(f"seat {observation.seat} has no move to make")
    out = np.zeros((len(codes), N_ACTION_FEATURES), np.float32)
    rules = observation.rules
    action_features_into(observation.array.copy(), rules.vector(), rules.players,
                         codes, len(codes), *FeatureScratch().args(), out)
    return codes, out


# ------------------------------------------------------------------ the forward pass with the block
@njit(cache=True)
def _last_hidden(shapes, h0, h1):
    """Which scratch vector :func:`~dominoai.nets.forward.forward_into`
    left the last hidden layer in (the network has one at least)."""
    return h1 if shapes.shape[0] % 2 == 0 else h0


@njit(cache=True)
def add_feature_term(h, fw, fb, ids, fe, n, wv, logits):
    """Add the block's term to the logits (``float32``, ``(N_ACTIONS,)``) of
    the actions ``ids[:n]``: ``wv = fb + h @ fw`` (``h`` the last hidden
    layer, ``float32``; ``wv`` scratch of ``fb``'s length), then
    ``logits[ids[i]] += wv . fe[i]`` (``fe`` ``float32``, ``(>= n, >= len(fb))``).
    Ids below 0 are skipped (padding)."""
    nf = fb.shape[0]
    nh = fw.shape[0]
    for f in range(nf):
        wv[f] = fb[f]
    for j in range(nh):
        v = h[j]
        if v != 0.0:
            for f in range(nf):
                wv[f] += v * fw[j, f]
    for i in range(n):
        c = ids[i]
        if c < 0:
            continue
        t = np.float32(0.0)
        for f in range(nf):
            t += wv[f] * fe[i, f]
        logits[c] += t


@njit(cache=True)
def forward_features_batch(xs, scale, weights, shapes, fw, fb, ids, fe, out):
    """The logits of a policy with the block for every row of ``xs``
    (``float32``, ``(n, OBS_SIZE)``) into ``out`` (``float32``, ``(n,
    N_ACTIONS)``): the network's, plus the block's term for the actions
    ``ids[r]`` (``int64``, ``(n, k)``, -1 pads) with features ``fe[r]``
    (``float32``, ``(n, k, F)``)."""
    w = widest(shapes)
    h0 = np.empty(w, np.float32)
    h1 = np.empty(w, np.float32)
    wv = np.empty(fb.shape[0], np.float32)
    for r in range(xs.shape[0]):
        forward_into(xs[r], scale, weights, shapes, h0, h1, out[r])
        add_feature_term(_last_hidden(shapes, h0, h1), fw, fb, ids[r], fe[r], ids.shape[1], wv, out[r])


@njit(cache=True)
def policy_pick_features(a, codes, n, scale, weights, shapes, fw, fb, rv, players, x, h0, h1, wv, logits, fe,
                         st, feats, vals, wi, wf):
    """A policy with the block: its greedy choice for the observation array
    ``a`` (``int64``, ``(O_SIZE,)``) among the legal ids ``codes[:n]``
    (``int64``, n >= 1). Encodes ``a`` into ``x``, runs the network into
    ``logits`` (``float32``, ``(N_ACTIONS,)``), computes the actions'
    features into ``fe`` (``float32``, ``(MAX_MOVES, N_ACTION_FEATURES)``)
    with :func:`action_features_into` (``st`` .. ``wf``: its scratch), adds
    the block's term (``wv``: scratch) and returns the legal id with the
    highest logit."""
    encode_into(a, x)
    forward_into(x, scale, weights, shapes, h0, h1, logits)
    action_features_into(a, rv, players, codes, n, st, feats, vals, wi, wf, fe)
    add_feature_term(_last_hidden(shapes, h0, h1), fw, fb, codes, fe, n, wv, logits)
    return masked_argmax(logits, codes, n)
