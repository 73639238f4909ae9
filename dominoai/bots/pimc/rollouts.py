"""Rollout policies: how every seat plays a world out to the end of the hand.

A policy is a kernel ``playout_<name>(st, rv, rs, ev, buf, aux, hard_weights)`` that
plays the engine state ``st`` (``int64``, ``(S_SIZE,)``, changed in place)
to the end of the hand under the rules vector ``rv``, drawing its random
numbers from ``rs`` (``uint64``, shape ``(1,)``), with the work arrays of the
search's :data:`~dominoai.bots.pimc.settings.Scratch` (``ev`` an event log,
``buf`` a move buffer, ``aux`` an ``int64`` state / observation scratch) and
the ``hard`` weights ``hard_weights`` (``SearchSettings.hard_weights``; a policy may ignore
them); ``random`` also takes the fused loop's ``path``
(``fast.playout_path(rv)``, decided once per search). The value is read
from the state's points afterwards.

The policies are registered in one place, :data:`POLICIES` and
:func:`rollout`. To add one (docs/insane.md walks through it):

1. write ``playout_<name>`` here, ``@njit(cache=True)``, allocating nothing
   per move (use ``ev``, ``buf``, ``aux``);
2. append ``"<name>"`` to :data:`POLICIES` and one branch to :func:`rollout`
   calling it with the id of its place in :data:`POLICIES`.

The bots' ``rollout_policy`` parameter then accepts the name.

``neural`` (every seat plays a policy network's greedy move) is listed here
but played by :func:`~dominoai.bots.pimc.learned.learned_rollout`, which
holds the networks; :func:`rollout` never sees its id.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import fast as F
from ...engine import kernels as K
from ...engine import layout as L
from ...engine.observe import observe_into
from ...tiles import HEAVY_RANK, N_TILES
from ...nets.hardeval import hard_eval_into, hard_scratch

__all__ = ["POLICIES", "rollout", "rollout_policy_id", "playout_random", "playout_medium",
           "playout_hard", "medium_move"]

#: the rollout policies by kernel id (the index): see :func:`rollout`
POLICIES = ("random", "medium", "hard", "neural")
_POLICY_ID = {name: i for i, name in enumerate(POLICIES)}


def rollout_policy_id(name: str, rv: np.ndarray) -> int:
    """The rollout policy's kernel id (its index in :data:`POLICIES`) for the
    rules vector ``rv``: ``auto`` is ``hard`` where the rules allow
    replacements (docs/rules.md, `dominoball`) and ``random`` elsewhere. Random
    rollouts misjudge a replacement: an extra tile pays off only for a player
    who looks for scoring ends, which a random player does not, so in
    Dominoball they made insane lose to ``hard`` (-1.6 strikes per hand; with
    ``hard`` rollouts +4.23 at 200 worlds, docs/insane.md).

    :raises KeyError: an unknown policy name.
    """
    if name == "auto":
        name = "hard" if rv[L.R_MAX_REPL] > 0 else "random"
    return _POLICY_ID[name]


@njit(cache=True)
def medium_move(st, rv, buf, n, scratch):
    """``medium``'s choice among ``buf[:n]`` (best immediate points, then most
    pips, then the higher half; never a replacement), without allocating:
    ``scratch`` is an ``int64`` state of ``(S_SIZE,)``. Returns the move code.
    The same choice as :func:`dominoai.bots.simple.medium_pick`, kept here
    in the rollout's own loop on purpose: calling the shared kernel per
    decision made the medium rollouts 10-15% slower (tests/test_golden.py,
    ``test_medium_rollout_moves_are_medium_pick``, holds both to the same
    moves)."""
    best = -1
    bkey = -1
    scoring = rv[L.R_END_SCORING] != L.ENDS_NONE
    seat = st[L.S_CUR]
    sd = K.side_of(rv, seat)
    for i in range(n):
        c = buf[i]
        if c == L.MOVE_REPLACE:
            continue
        t = c >> 2
        pts = 0
        if scoring:
            for q in range(L.S_SIZE):
                scratch[q] = st[q]
            before = scratch[L.S_POINTS + sd]
            K.lay_and_score(scratch, rv, seat, t, c & 3)
            pts = scratch[L.S_POINTS + sd] - before
        key = pts * N_TILES + HEAVY_RANK[t]
        if key > bkey:
            bkey = key
            best = i
    return buf[best if best >= 0 else 0]


@njit(cache=True, inline="always")
def playout_random(st, rv, rs, ev, buf, aux, hard_weights, path):
    """Uniformly random legal moves for every seat (the fused playout,
    :func:`dominoai.engine.fast.playout_on`): ``path`` is
    ``fast.playout_path(rv)``, decided once per search, not per rollout."""
    F.playout_on(st, rv, rs, ev, path)


@njit(cache=True)
def playout_medium(st, rv, rs, ev, buf, aux, hard_weights):
    """Every seat plays ``medium`` (:func:`medium_move`; no randomness).
    Returns the moves made."""
    moves = 0
    while st[L.S_CUR] >= 0:
        n = K.legal_moves(st, rv, buf)
        K.apply_move(st, rv, ev, medium_move(st, rv, buf, n, aux))
        moves += 1
    return moves


@njit(cache=True)
def playout_hard(st, rv, rs, ev, buf, aux, hard_weights, hard_plies, path):
    """Every seat plays ``hard`` with the weights ``hard_weights`` (no
    randomness; much slower than ``random``) for the first ``hard_plies``
    moves of the rollout
    (0: to the end of the hand), then uniformly random legal moves from
    ``rs`` (:func:`playout_random`, ``path`` its fused loop). Returns the
    moves ``hard`` made."""
    moves = 0
    feats, vals, wi, wf = hard_scratch()   # once per rollout rather than per decision
    while st[L.S_CUR] >= 0:
        if hard_plies > 0 and moves >= hard_plies:
            F.playout_on(st, rv, rs, ev, path)
            break
        n = K.legal_moves(st, rv, buf)
        i = 0
        if n > 1:
            observe_into(st, rv, st[L.S_CUR], aux)
            i = hard_eval_into(st, rv, aux, buf, n, hard_weights, feats, vals, wi, wf)
        K.apply_move(st, rv, ev, buf[i])
        moves += 1
    return moves


@njit(cache=True, inline="always")
def rollout(st, rv, rs, ev, buf, aux, rollout_policy, hard_plies, hard_weights, path):
    """Play ``st`` to the end of the hand with the policy ``rollout_policy``
    (an index into :data:`POLICIES`, ``SearchSettings.rollout_policy``); a
    hand already over is left as it is. ``hard_plies``:
    ``SearchSettings.hard_plies``, with ``hard``
    the moves it plays before the rest is random (0: all). ``path``:
    ``fast.playout_path(rv)`` (the random policy's fused loop), computed once
    by the caller."""
    if st[L.S_CUR] < 0:
        return
    if rollout_policy == 1:
        playout_medium(st, rv, rs, ev, buf, aux, hard_weights)
    elif rollout_policy == 2:
        playout_hard(st, rv, rs, ev, buf, aux, hard_weights, hard_plies, path)
    else:
        playout_random(st, rv, rs, ev, buf, aux, hard_weights, path)
