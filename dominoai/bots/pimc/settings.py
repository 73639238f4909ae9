"""The search's settings (one value) and its work arrays (one allocator).

:class:`SearchSettings` is a NamedTuple, so the kernels take it whole (numba
types it as a tuple of an int64 per count, a float64 per temperature and the
weight array). :func:`new_scratch` allocates every work array a search
needs, once per search call, as one :data:`Scratch` value; the kernels of
this package take it instead of a dozen arrays each.

A kernel that takes such a tuple binds the members it uses to local names
once, at its top, never inside its loops: measured with
``benchmarks/bench_tuple_args.py``, a callee reading its tuple's members
where they are used in a loop cost about twice the time of one taking the
arrays one by one, while one binding them once at its top cost the same
(within 3%).
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np
from numba import njit

from ...engine import layout as L
from ...engine.encode import N_ACTIONS, OBS_SIZE
from ...engine.observe import O_SIZE
from ...nets.features import N_ACTION_FEATURES
from ...nets.hardeval import DEFAULT_WEIGHTS, hard_scratch
from ...nets.world_encode import WORLD_SIZE
from ..worlds.sampling import BONE_SCRATCH
from .playnet import NO_BLOCK

__all__ = ["SearchSettings", "Scratch", "new_scratch", "MAX_DEPTH", "NET_WIDTH", "NET_INPUT",
           "NO_NET"]

#: depth of the exact solver's explicit stack (plies; a hand has fewer)
MAX_DEPTH = 72
#: the widest layer a network may have inside the search (the length of the
#: scratch vectors ``nh0``, ``nh1``)
NET_WIDTH = 512
#: the longest network input inside the search: the observation vector or
#: the world vector (:mod:`dominoai.nets.world_encode`, 253 entries)
NET_INPUT = max(OBS_SIZE, WORLD_SIZE)
#: the packed network of a search that uses none: ``(scale, weights,
#: shapes)`` of one empty layer (the kernels' types, never run)
NO_NET = (np.zeros(1, np.float32), np.zeros(1, np.float32), np.zeros((1, 2), np.int64))


class SearchSettings(NamedTuple):
    """What one search does, for the kernels (build it with :meth:`make`,
    which fixes the types so that every search runs the same compiled code).
    The fields carry the bots' parameter names (see
    :class:`~dominoai.bots.pimc.InsaneBot`).

    - ``rollouts``: rollouts per move per world (``>= 1``).
    - ``rollout_policy``: the rollout policy's id, an index into
      :data:`~dominoai.bots.pimc.rollouts.POLICIES`.
    - ``belief``: how a sampled world is weighted, an index into
      :data:`~dominoai.bots.pimc.search.BELIEFS`.
    - ``policy_weight``: the ``hard`` play model's temperature (value units,
      ``> 0`` where ``belief`` is the play model).
    - ``play_model``: the play model's id, an index into
      :data:`~dominoai.bots.pimc.playnet.PLAY_MODELS`: 0 ``hard`` (a softmax
      of hard's values at ``policy_weight``), 1 ``neural`` (the policy
      network ``policy_net``'s softmax, :mod:`~dominoai.bots.pimc.playnet`).
    - ``exact``: solve a world by alpha-beta once at most this many tiles can
      still be played (0: never).
    - ``max_nodes``: alpha-beta nodes per move and world before the world is
      rolled out instead.
    - ``max_tries``: proposals per world asked for, at most.
    - ``hard_weights``: ``float64``, shape ``(N_WEIGHTS,)``: the ``hard``
      weights of the ``hard`` rollouts and of the play model (the bot's
      ``hard_<name>``).
    - ``hard_plies``: with the ``hard`` rollout policy, the moves of each
      rollout that ``hard`` plays before the rest are uniformly random
      (0: the whole rollout).
    - ``hard_prior``: the play model's prior share of the sharp model of
      each seat (0 to 1; 0: the plain softmax at ``policy_weight``).
    - ``sharp_weight``: the sharp model's temperature (``> 0``).
    - ``resample``: weigh this many worlds per world scored and score a
      sample of them drawn in proportion to their weights (1: score every
      world drawn, by its weight).
    - ``fusion``: 1 to choose the seat's next move per information set in
      the worlds solved exactly (:mod:`~dominoai.bots.pimc.fusion`); 0: off.
    - ``draw_history``: 1 where tiles are drawn: the play model counts every
      play, each world drawing which tiles its seats drew when
      (:func:`~dominoai.bots.pimc.options.history_weight`); 0: only the
      plays since a seat's last draw.
    - ``value_plies``: stop each rollout after this many plies, the searched
      move included, and add the value network's estimate of the rest
      (:mod:`~dominoai.bots.pimc.learned`); 0: play to the end.
    - ``value_net``, ``policy_net``: the value network (of
      ``value_plies``) and the policy network (of the ``neural`` rollout
      policy and the ``neural`` play model), packed: ``(scale, weights, shapes)``, ``float32``,
      ``float32`` and ``int64`` ``(n_layers, 2)``
      (:meth:`Model.packed <dominoai.nets.model.Model.packed>`);
      :data:`NO_NET` when unused.
    - ``policy_block``: the ``neural`` play model's action-feature block
      ``(fw, fb)`` (``float32``, ``(last hidden layer, F)`` and ``(F,)``,
      :attr:`Model.action <dominoai.nets.model.Model.action>`), added to
      each legal move's logit as the ``neural`` bot adds it;
      :data:`~dominoai.bots.pimc.playnet.NO_BLOCK` (``F = 0``) for a
      policy without one.
    - ``play_temperature``: the ``neural`` play model's temperature: its
      softmax is over the policy's logits divided by it (``> 0``; 1: the
      policy's own probabilities, as the ``neural`` bot samples them).
    """

    rollouts: int = 1
    rollout_policy: int = 0
    belief: int = 0
    policy_weight: float = 0.0
    exact: int = 0
    max_nodes: int = 20000
    max_tries: int = 50
    hard_weights: np.ndarray = None
    hard_plies: int = 0
    hard_prior: float = 0.0
    sharp_weight: float = 0.3
    resample: int = 1
    fusion: int = 0
    draw_history: int = 0
    value_plies: int = 0
    value_net: tuple = None
    policy_net: tuple = None
    play_model: int = 0
    policy_block: tuple = None
    play_temperature: float = 1.0

    @classmethod
    def make(cls, **fields) -> "SearchSettings":
        """Settings with the kernels' types (int, float, a contiguous float64
        array) from keyword ``fields`` (the others at their defaults above).
        ``hard_weights`` defaults to the ``hard`` bot's defaults.

        :raises TypeError: an unknown field.
        ``value_net`` and ``policy_net`` default to :data:`NO_NET`,
        ``policy_block`` to :data:`~dominoai.bots.pimc.playnet.NO_BLOCK`.

        :raises ValueError: ``rollouts``, ``max_nodes`` or ``resample``
            below 1, ``hard_plies`` or ``value_plies`` below 0,
            ``hard_prior`` outside 0 to 1, ``sharp_weight`` or
            ``play_temperature`` not above 0,
            ``hard_weights`` not of shape ``(N_WEIGHTS,)``, ``value_plies``
            above 0 without a ``value_net``, ``play_model`` not 0 or 1 or 1
            without a ``policy_net``, or a network wider than
            :data:`NET_WIDTH` or with more inputs than :data:`NET_INPUT`,
            or a ``policy_block`` that does not fit ``policy_net``'s last
            hidden layer or has more than ``N_ACTION_FEATURES`` features.
        """
        unknown = set(fields) - set(cls._fields)
        if unknown:
            raise TypeError(f"SearchSettings has no field {sorted(unknown)[0]!r}")
        f = {**cls._field_defaults, **fields}
        w = f["hard_weights"]
        w = DEFAULT_WEIGHTS.copy() if w is None else np.ascontiguousarray(w, np.float64)
        if w.shape != DEFAULT_WEIGHTS.shape:
            raise ValueError(f"hard_weights must have shape {DEFAULT_WEIGHTS.shape}, "
                             f"got {w.shape}")
        if int(f["rollouts"]) < 1 or int(f["max_nodes"]) < 1:
            raise ValueError("rollouts and max_nodes must be at least 1")
        if int(f["hard_plies"]) < 0:
            raise ValueError("hard_plies must be at least 0")
        if not 0.0 <= float(f["hard_prior"]) <= 1.0:
            raise ValueError(f"hard_prior must be between 0 and 1, got {f['hard_prior']}")
        if not float(f["sharp_weight"]) > 0.0:
            raise ValueError(f"sharp_weight must be above 0, got {f['sharp_weight']}")
        if int(f["resample"]) < 1:
            raise ValueError("resample must be at least 1")
        if int(f["value_plies"]) < 0:
            raise ValueError("value_plies must be at least 0")
        if int(f["value_plies"]) > 0 and f["value_net"] is None:
            raise ValueError("value_plies above 0 needs a value_net")
        if int(f["play_model"]) not in (0, 1):
            raise ValueError(f"play_model must be 0 (hard) or 1 (neural), got {f['play_model']}")
        if not float(f["play_temperature"]) > 0.0:
            raise ValueError(f"play_temperature must be above 0, got {f['play_temperature']}")
        if int(f["play_model"]) == 1 and f["policy_net"] is None:
            raise ValueError("play_model 1 (neural) needs a policy_net")
        nets = {k: _packed(k, f[k]) for k in ("value_net", "policy_net")}
        nets["policy_block"] = _block(f["policy_block"], nets["policy_net"])
        typed = {k: (w if k == "hard_weights" else nets[k] if k in nets
                     else float(v) if isinstance(cls._field_defaults[k], float)
                     else int(bool(v)) if k in ("fusion", "draw_history") else int(v))
                 for k, v in f.items()}
        return cls(**typed)


def _packed(name: str, net) -> tuple:
    """``net`` (``(scale, weights, shapes)`` or None) with the kernels' types."""
    if net is None:
        return NO_NET
    scale, weights, shapes = net
    shapes = np.ascontiguousarray(shapes, np.int64)
    if shapes.ndim != 2 or shapes.shape[1] != 2 or shapes[:, 1].max() > NET_WIDTH \
            or shapes[0, 0] > NET_INPUT:
        raise ValueError(f"{name}: layers of at most {NET_WIDTH} and at most {NET_INPUT} inputs")
    return (np.ascontiguousarray(scale, np.float32), np.ascontiguousarray(weights, np.float32),
            shapes)


def _block(block, net) -> tuple:
    """``block`` (``(fw, fb)`` or None) with the kernels' types, checked
    against the packed policy ``net``."""
    if block is None:
        return NO_BLOCK
    fw = np.ascontiguousarray(block[0], np.float32)
    fb = np.ascontiguousarray(block[1], np.float32)
    shapes = net[2]
    hidden = int(shapes[-1, 0]) if shapes.shape[0] > 1 else -1
    if fb.ndim != 1 or fb.shape[0] > N_ACTION_FEATURES or fw.shape != (hidden, fb.shape[0]):
        raise ValueError(f"policy_block: (fw, fb) must be ({hidden}, F) and (F,), F at most "
                         f"{N_ACTION_FEATURES}; got {fw.shape} and {fb.shape}")
    return fw, fb


#: The work arrays of one search (all ``int64`` unless said):
#: ``wst`` the world searched, ``tmp`` a rollout's (or the play model's) state,
#: ``aux`` an observation array / state scratch of the rollout policies,
#: ``ev`` an event log ``(MAX_EVENTS, 4)``, ``buf`` a move buffer, ``rs2``
#: (``uint64``, 1) the rollouts' RNG, ``p0`` points per side before the move
#: (4), ``bone`` (``BONE_SCRATCH``) and ``miss`` (2) the sampler's scratch; the exact
#: solver's ``stack`` ``(MAX_DEPTH, S_SIZE)``, ``bufs`` ``(MAX_DEPTH,
#: MAX_MOVES)``, ``meta`` ``(6, MAX_DEPTH)``, ``nodes`` (3: count, budget,
#: gave up) and ``vals`` (one per move); the play model's ``hard`` scratch
#: ``feats``, ``hvals``, ``wi``, ``wf`` (:func:`~dominoai.nets.hardeval.hard_scratch`)
#: and ``lsum`` (``float64``, (8,): its mixture's per-seat sums); the
#: networks' ``float32`` vectors (:mod:`~dominoai.bots.pimc.learned`):
#: ``nx`` the input (:data:`NET_INPUT`), ``nh0`` and ``nh1`` the hidden
#: layers (:data:`NET_WIDTH`), ``nout`` the output (``N_ACTIONS``); the
#: action-feature block's (:mod:`dominoai.nets.features`): ``fst`` (``(3 *
#: S_SIZE,)``), ``fe`` (``float32``, ``(MAX_MOVES, N_ACTION_FEATURES)``)
#: and ``wv`` (``float32``, ``(N_ACTION_FEATURES,)``).
Scratch = namedtuple("Scratch", [
    "wst", "tmp", "aux", "ev", "buf", "rs2", "p0", "bone", "miss",
    "stack", "bufs", "meta", "nodes", "vals",
    "feats", "hvals", "wi", "wf", "lsum", "nx", "nh0", "nh1", "nout", "fst", "fe", "wv",
])


@njit(cache=True)
def new_scratch(n_moves, max_nodes):
    """Every work array of a search over ``n_moves`` candidate moves whose
    exact solver may visit ``max_nodes`` nodes per move and world (stored in
    ``nodes[1]``); see :data:`Scratch`."""
    nodes = np.zeros(3, np.int64)
    nodes[1] = max_nodes
    feats, hvals, wi, wf = hard_scratch()
    return Scratch(np.zeros(L.S_SIZE, np.int64), np.zeros(L.S_SIZE, np.int64),
                   np.zeros(max(L.S_SIZE, O_SIZE), np.int64),
                   np.zeros((L.MAX_EVENTS, 4), np.int64), np.zeros(L.MAX_MOVES, np.int64),
                   np.zeros(1, np.uint64), np.zeros(4, np.int64), np.zeros(BONE_SCRATCH, np.int64),
                   np.zeros(2, np.int64),
                   np.zeros((MAX_DEPTH, L.S_SIZE), np.int64),
                   np.zeros((MAX_DEPTH, L.MAX_MOVES), np.int64),
                   np.zeros((6, MAX_DEPTH), np.int64), nodes, np.zeros(max(n_moves, 1), np.int64),
                   feats, hvals, wi, wf, np.zeros(8, np.float64),
                   np.zeros(NET_INPUT, np.float32), np.zeros(NET_WIDTH, np.float32),
                   np.zeros(NET_WIDTH, np.float32), np.zeros(N_ACTIONS, np.float32),
                   np.zeros(3 * L.S_SIZE, np.int64),
                   np.zeros((L.MAX_MOVES, N_ACTION_FEATURES), np.float32),
                   np.zeros(N_ACTION_FEATURES, np.float32))
