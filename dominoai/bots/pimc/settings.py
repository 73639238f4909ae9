"""The search's settings (one value) and its work arrays (one allocator).

:class:`SearchSettings` is a NamedTuple, so the kernels take it whole (numba
types it as a tuple of an int64 per count, a float64 per temperature and the
weight array). :func:`new_scratch` allocates every work array a search
needs, once per search call, as one :data:`Scratch` value; the kernels of
this package take it instead of a dozen arrays each.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np
from numba import njit

from ...engine import layout as L
from ...engine.observe import O_SIZE
from ..hard import DEFAULT_WEIGHTS, hard_scratch

__all__ = ["SearchSettings", "Scratch", "new_scratch", "MAX_DEPTH"]

#: depth of the exact solver's explicit stack (plies; a hand has fewer)
MAX_DEPTH = 72


class SearchSettings(NamedTuple):
    """What one search does, for the kernels (build it with :meth:`make`,
    which fixes the types so that every search runs the same compiled code).

    - ``rollouts``: rollouts per move per world (``>= 1``).
    - ``policy``: the rollout policy's id, an index into
      :data:`~dominoai.bots.pimc.rollouts.POLICIES`.
    - ``belief``: how a sampled world is weighted, an index into
      :data:`~dominoai.bots.pimc.search.BELIEFS`.
    - ``tau``: the play model's temperature (value units, ``> 0`` where
      ``belief`` is the play model).
    - ``exact``: solve a world by alpha-beta once at most this many tiles can
      still be played (0: never).
    - ``max_nodes``: alpha-beta nodes per move and world before the world is
      rolled out instead.
    - ``max_tries``: proposals per world asked for, at most.
    - ``hard_plies``: with the ``hard`` rollout policy, the moves of each
      rollout that ``hard`` plays before the rest are uniformly random
      (0: the whole rollout).
    - ``weights``: ``float64``, shape ``(N_WEIGHTS,)``: the ``hard`` weights
      of the ``hard`` rollouts and of the play model.
    - ``mix``: the play model's prior share of the sharp model of each seat
      (0 to 1; 0: the plain softmax at ``tau``).
    - ``tau_sharp``: the sharp model's temperature (``> 0``).
    - ``resample``: weigh this many worlds per world scored and score a
      sample of them drawn in proportion to their weights (1: score every
      world drawn, by its weight).
    - ``fusion``: 1 to choose the seat's next move per information set in
      the worlds solved exactly (:mod:`~dominoai.bots.pimc.fusion`); 0: off.
    - ``history``: 1 where tiles are drawn: the play model counts every
      play, each world drawing which tiles its seats drew when
      (:func:`~dominoai.bots.pimc.search.history_weight`); 0: only the plays
      since a seat's last draw.
    """

    rollouts: int
    policy: int
    belief: int
    tau: float
    exact: int
    max_nodes: int
    max_tries: int
    weights: np.ndarray
    hard_plies: int
    mix: float
    tau_sharp: float
    resample: int
    fusion: int
    history: int = 0

    @classmethod
    def make(cls, rollouts=1, policy=0, belief=0, tau=0.0, exact=0, max_nodes=20000,
             max_tries=50, weights=None, hard_plies=0, mix=0.0, tau_sharp=0.3,
             resample=1, fusion=0, history=0) -> "SearchSettings":
        """Settings with the kernels' types (int, float, a contiguous float64
        array). ``weights`` defaults to the ``hard`` bot's defaults.

        :raises ValueError: ``rollouts``, ``max_nodes`` or ``resample``
            below 1, ``hard_plies`` below 0, ``mix`` outside 0 to 1,
            ``tau_sharp`` not above 0, or ``weights`` not of shape
            ``(N_WEIGHTS,)``.
        """
        w = DEFAULT_WEIGHTS.copy() if weights is None else np.ascontiguousarray(weights, np.float64)
        if w.shape != DEFAULT_WEIGHTS.shape:
            raise ValueError(f"weights must have shape {DEFAULT_WEIGHTS.shape}, got {w.shape}")
        if int(rollouts) < 1 or int(max_nodes) < 1:
            raise ValueError("rollouts and max_nodes must be at least 1")
        if int(hard_plies) < 0:
            raise ValueError("hard_plies must be at least 0")
        if not 0.0 <= float(mix) <= 1.0:
            raise ValueError(f"mix must be between 0 and 1, got {mix}")
        if not float(tau_sharp) > 0.0:
            raise ValueError(f"tau_sharp must be above 0, got {tau_sharp}")
        if int(resample) < 1:
            raise ValueError("resample must be at least 1")
        return cls(int(rollouts), int(policy), int(belief), float(tau), int(exact),
                   int(max_nodes), int(max_tries), w, int(hard_plies), float(mix),
                   float(tau_sharp), int(resample), int(bool(fusion)), int(bool(history)))


#: The work arrays of one search (all ``int64`` unless said):
#: ``wst`` the world searched, ``tmp`` a rollout's (or the play model's) state,
#: ``aux`` an observation array / state scratch of the rollout policies,
#: ``ev`` an event log ``(MAX_EVENTS, 4)``, ``buf`` a move buffer, ``rs2``
#: (``uint64``, 1) the rollouts' RNG, ``p0`` points per side before the move
#: (4), ``bone`` (32) and ``miss`` (2) the sampler's scratch; the exact
#: solver's ``stack`` ``(MAX_DEPTH, S_SIZE)``, ``bufs`` ``(MAX_DEPTH,
#: MAX_MOVES)``, ``meta`` ``(6, MAX_DEPTH)``, ``nodes`` (3: count, budget,
#: gave up) and ``vals`` (one per move); the play model's ``hard`` scratch
#: ``feats``, ``hvals``, ``wi``, ``wf`` (:func:`~dominoai.bots.hard.hard_scratch`).
Scratch = namedtuple("Scratch", [
    "wst", "tmp", "aux", "ev", "buf", "rs2", "p0", "bone", "miss",
    "stack", "bufs", "meta", "nodes", "vals",
    "feats", "hvals", "wi", "wf",
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
                   np.zeros(1, np.uint64), np.zeros(4, np.int64), np.zeros(32, np.int64),
                   np.zeros(2, np.int64),
                   np.zeros((MAX_DEPTH, L.S_SIZE), np.int64),
                   np.zeros((MAX_DEPTH, L.MAX_MOVES), np.int64),
                   np.zeros((6, MAX_DEPTH), np.int64), nodes, np.zeros(max(n_moves, 1), np.int64),
                   feats, hvals, wi, wf)
