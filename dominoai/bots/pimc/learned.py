"""The learned parts of the search: rollouts played by a policy network, and
leaf values from a value network.

Both networks come packed as :mod:`dominoai.nets.forward` takes them, in
the search's settings (:class:`~dominoai.bots.pimc.settings.SearchSettings`:
``policy_net`` and ``value_net``, each ``(scale, weights, shapes)``), and
run in the search's scratch vectors (``nx``, ``nh0``, ``nh1``, ``nout`` of
:data:`~dominoai.bots.pimc.settings.Scratch`), so a rollout allocates
nothing.

- ``rollout_policy=neural``: every seat plays the policy network's greedy
  legal move from its own observation of the world (:func:`neural_move`).
- ``value_plies = N > 0``: a rollout stops after ``N`` plies, the searched
  move included (1: right after it), and the world is worth the points
  made so far plus the value network's estimate of the rest of the hand,
  from the searching seat's side (:func:`leaf_value`). A hand that ends
  before is worth its points.

:func:`learned_rollout` plays such a rollout; the search calls it (from
:func:`~dominoai.bots.pimc.score.score_world`) instead of
:func:`~dominoai.bots.pimc.rollouts.rollout` when either is on.
"""
from __future__ import annotations

from numba import njit

from ...engine import fast as F
from ...engine import kernels as K
from ...engine import layout as L
from ...engine.observe import observe_into
from ...nets.forward import forward_into, policy_pick
from ...nets.hardeval import hard_eval_into
from ...nets.world_encode import encode_world_into
from .rollouts import POLICIES, medium_move
from .value import hand_value

__all__ = ["NEURAL", "neural_move", "leaf_value", "learned_rollout"]

#: the kernel id of the ``neural`` rollout policy (its index in ``POLICIES``)
NEURAL = POLICIES.index("neural")
_MEDIUM = POLICIES.index("medium")
_HARD = POLICIES.index("hard")


@njit(cache=True)
def neural_move(st, rv, buf, n, aux, net, nx, nh0, nh1, nout):
    """The policy network ``net`` (``(scale, weights, shapes)``)'s greedy
    choice among ``buf[:n]`` for the seat to move in ``st``, read from that
    seat's observation (written into ``aux``, ``int64``, at least
    ``O_SIZE``); ``nx``, ``nh0``, ``nh1``, ``nout`` are ``float32`` scratch
    (``OBS_SIZE``, the widest layer twice, ``N_ACTIONS``). Returns the move
    code."""
    if n == 1:
        return buf[0]
    observe_into(st, rv, st[L.S_CUR], aux)
    return policy_pick(aux, buf, n, net[0], net[1], net[2], nx, nh0, nh1, nout)


@njit(cache=True)
def leaf_value(st, rv, seat, net, nx, nh0, nh1, nout):
    """The value network ``net``'s estimate (points, ``float``) of what the
    rest of the hand in ``st`` is worth to ``seat``: its side's points from
    now on minus the other sides', sign turned where points are bad
    (:func:`~dominoai.bots.pimc.value.hand_value`'s units); 0 once the hand
    is over. ``nx`` (``WORLD_SIZE``), ``nh0``, ``nh1``, ``nout``:
    ``float32`` scratch."""
    if st[L.S_CUR] < 0:
        return 0.0
    encode_world_into(st, rv, seat, nx)
    forward_into(nx, net[0], net[1], net[2], nh0, nh1, nout)
    return float(nout[0])


@njit(cache=True)
def learned_rollout(st, rv, rs, seat, p0, cfg, ws, path):
    """Play the world ``st`` (``int64``, ``(S_SIZE,)``, after the searched
    move; changed in place) with the rollout policy ``cfg.rollout_policy``
    and return its value to ``seat`` against the points ``p0`` (a
    ``float``): to the end of the hand when ``cfg.value_plies`` is 0, else
    for ``value_plies - 1`` more plies and then the points so far plus
    :func:`leaf_value` (``cfg.value_net``). Random numbers from ``rs``
    (``uint64``, ``(1,)``); ``ws``: the search's
    :data:`~dominoai.bots.pimc.settings.Scratch`; ``path``:
    ``fast.playout_path(rv)``."""
    ev, buf, aux = ws.ev, ws.buf, ws.aux
    nx, nh0, nh1, nout = ws.nx, ws.nh0, ws.nh1, ws.nout
    policy, plies = cfg.rollout_policy, cfg.value_plies
    hard_weights, hard_plies = cfg.hard_weights, cfg.hard_plies
    moves = 1
    while st[L.S_CUR] >= 0:
        if plies > 0 and moves >= plies:
            return hand_value(st, rv, seat, p0) + leaf_value(st, rv, seat, cfg.value_net,
                                                             nx, nh0, nh1, nout)
        if policy == 0 and plies == 0:
            F.playout_on(st, rv, rs, ev, path)
            break
        n = K.legal_moves(st, rv, buf)
        if policy == NEURAL:
            m = neural_move(st, rv, buf, n, aux, cfg.policy_net, nx, nh0, nh1, nout)
        elif policy == _MEDIUM:
            m = medium_move(st, rv, buf, n, aux)
        elif policy == _HARD and n > 1 and (hard_plies == 0 or moves - 1 < hard_plies):
            observe_into(st, rv, st[L.S_CUR], aux)
            m = buf[hard_eval_into(st, rv, aux, buf, n, hard_weights, ws.feats, ws.hvals,
                                   ws.wi, ws.wf)]
        else:
            m = buf[K.rng_below(rs, n)]
        K.apply_move(st, rv, ev, m)
        moves += 1
    return float(hand_value(st, rv, seat, p0))
