"""The world search: sample worlds, weigh them, score every move in each.

:func:`search_worlds` draws worlds from the sampler of a
:class:`~dominoai.bots.worlds.Belief` (its ``parts``), weights each by the
belief model ``cfg.belief`` (:func:`world_weight`), and scores every legal
move in it (:func:`score_world`: a rollout per move with the rollout policy
``cfg.policy``, :mod:`~dominoai.bots.pimc.rollouts`, or the exact solver).
:func:`search_fixed` scores the moves on one known world instead (the true
state: omniscient). Every move is rolled out with the same random numbers in
a world (common random numbers), so their comparison is not blurred by the
rollout's luck.

Belief models are registered in one place, :data:`BELIEFS` and
:func:`world_weight`. To add one: write its weight kernel (a world's
likelihood given the public history, ``>= 0``), append its name to
:data:`BELIEFS` and add one branch to :func:`world_weight` calling it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from ..worlds import draw_world, drawn_world_weight
from .likelihood import play_likelihood
from .rollouts import rollout
from .settings import new_scratch
from .solver import solve
from .value import hand_value, tiles_left

__all__ = ["BELIEFS", "BELIEF_CONSISTENT", "BELIEF_PLAY_MODEL", "world_weight", "score_world",
           "search_worlds", "search_fixed"]

#: the belief models by id (the index): how a world drawn from the
#: consistent-world sampler is weighted (see :func:`world_weight`)
BELIEFS = ("consistent", "play_model")
BELIEF_CONSISTENT = 0   #: every world consistent with the history, weight = its count
BELIEF_PLAY_MODEL = 1   #: the same, times the play model's likelihood (rules without drawing)


@njit(cache=True, inline="always")
def world_weight(w, wst, evs, rv, seat, cfg, ws):
    """The weight of the world ``wst`` under the belief model ``cfg.belief``,
    given its sampler's weight ``w`` (``> 0``) and the hand's events ``evs``
    (``int64`` ``(n, 4)``): ``w`` for ``consistent``; ``w`` times
    :func:`~dominoai.bots.pimc.likelihood.play_likelihood` at temperature
    ``cfg.tau`` for ``play_model``."""
    if cfg.belief == BELIEF_PLAY_MODEL:
        return w * play_likelihood(wst, evs, evs.shape[0], rv, seat, cfg.tau, cfg.weights, ws)
    return w


@njit(cache=True, inline="always")
def score_world(wst, w, rv, codes, rs, seat, acc, cfg, ws):
    """Add ``w * rollouts * value`` of every move ``codes[i]`` in the world
    ``wst`` to ``acc[i]`` (``float64``): solved exactly
    (:func:`~dominoai.bots.pimc.solver.solve`, full window: values, not only
    the best) when ``cfg.exact > 0`` and at most ``cfg.exact`` tiles can still
    be played and no move's solve passes ``cfg.max_nodes`` nodes; else the sum
    of ``cfg.rollouts`` rollouts per move, all moves of a rollout with the same
    random numbers (drawn from ``rs``). Values against the points ``ws.p0``."""
    nc = codes.shape[0]
    exact = cfg.exact
    rollouts = cfg.rollouts
    if exact > 0 and tiles_left(wst, rv) <= exact:
        solved = True
        st0 = ws.stack[0]
        nodes = ws.nodes
        vals = ws.vals
        for mi in range(nc):
            for q in range(L.S_SIZE):
                st0[q] = wst[q]
            K.apply_move(st0, rv, ws.ev, codes[mi])
            nodes[0] = 0
            nodes[2] = 0
            v = solve(ws, rv, seat)
            if nodes[2]:
                solved = False
                break
            vals[mi] = v
        if solved:
            for mi in range(nc):
                acc[mi] += w * rollouts * vals[mi]
            return
    tmp = ws.tmp
    rs2 = ws.rs2
    for r in range(rollouts):
        sub = K.rng_next(rs)
        for mi in range(nc):
            for q in range(L.S_SIZE):
                tmp[q] = wst[q]
            K.apply_move(tmp, rv, ws.ev, codes[mi])
            rs2[0] = sub
            rollout(tmp, rv, rs2, ws, cfg)
            acc[mi] += w * hand_value(tmp, rv, seat, ws.p0)


@njit(cache=True)
def search_worlds(p, base, rv, codes, n_worlds, rs, acc, stats, evs, cfg):
    """Sample up to ``n_worlds`` worlds of positive weight (at most
    ``cfg.max_tries * n_worlds`` proposals) and add ``weight * value`` of every
    move in each to ``acc`` (:func:`score_world`). Returns the worlds found.

    - ``p``: the sampler's tables, :attr:`Belief.parts
      <dominoai.bots.worlds.Belief>`; ``base``: the observing seat's view as
      a state (``Belief.base``, ``int64`` ``(S_SIZE,)``), its seat to move.
    - ``rv``: the rules vector; ``codes``: the legal moves (``int64``, ``(n,)``);
      ``acc``: ``float64`` ``(n,)``, added to.
    - ``rs``: ``uint64`` ``(1,)``, the RNG state (advanced).
    - ``stats``: ``float64`` ``[worlds, proposals, total weight x rollouts]``
      (added to).
    - ``evs``: the hand's events (``int64`` ``(m, 4)``, ``Observation.event_array``),
      read by the ``play_model`` belief (rules without drawing only; the
      caller checks).
    - ``cfg``: :class:`~dominoai.bots.pimc.settings.SearchSettings`.
    """
    # the parts' arrays are bound once here: no reference count per member per world
    tiles, allow, caps, hseat, dp, rad = p.tiles, p.allow, p.caps, p.hseat, p.dp, p.rad
    wneed, cls, crad, hkey, hval = p.wneed, p.cls, p.crad, p.hkey, p.hval
    seat = base[L.S_CUR]
    ws = new_scratch(codes.shape[0], cfg.max_nodes)
    wst, bone, miss, p0 = ws.wst, ws.bone, ws.miss, ws.p0
    for s in range(4):
        p0[s] = base[L.S_POINTS + s]
    max_props = cfg.max_tries * n_worlds
    rollouts = cfg.rollouts
    got = 0
    props = 0
    wsum = 0.0
    while got < n_worlds and props < max_props:
        props += 1
        draw_world(tiles, allow, caps, hseat, dp, rad, base, rs, wst, bone)
        w = drawn_world_weight(p, wst, hseat, wneed, cls, crad, hkey, hval, miss)
        if w > 0.0:
            w = world_weight(w, wst, evs, rv, seat, cfg, ws)
        if w <= 0.0:
            continue
        got += 1
        wsum += w * rollouts
        score_world(wst, w, rv, codes, rs, seat, acc, cfg, ws)
    stats[0] += got
    stats[1] += props
    stats[2] += wsum
    return got


@njit(cache=True)
def search_fixed(st, rv, codes, n_worlds, rs, acc, stats, cfg):
    """:func:`search_worlds` on one known world ``st`` (``int64``
    ``(S_SIZE,)``, the true state: omniscient), scored ``n_worlds`` times,
    each of weight 1."""
    ws = new_scratch(codes.shape[0], cfg.max_nodes)
    wst, p0 = ws.wst, ws.p0
    seat = st[L.S_CUR]
    for s in range(4):
        p0[s] = st[L.S_POINTS + s]
    for q in range(L.S_SIZE):
        wst[q] = st[q]
    wst[L.S_LOG] = 0
    for _ in range(n_worlds):
        score_world(wst, 1.0, rv, codes, rs, seat, acc, cfg, ws)
    stats[0] += n_worlds
    stats[1] += n_worlds
    stats[2] += n_worlds * cfg.rollouts
    return n_worlds
