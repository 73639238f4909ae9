"""A world's weight under the belief model, and the scoring of every move in it.

Shared by the search's loop (:mod:`~dominoai.bots.pimc.search`) and the
options' (:mod:`~dominoai.bots.pimc.options`). The kernels take the
search's state as a few tuples: ``cfg``
(:class:`~dominoai.bots.pimc.settings.SearchSettings`), ``ws`` (the work
arrays, :data:`~dominoai.bots.pimc.settings.Scratch`) and ``model`` (the
play model's tables, :class:`~dominoai.bots.pimc.likelihood.PlayModel`),
each binding the members it uses once at its top.

Belief models are registered in one place, :data:`BELIEFS` and
:func:`world_weight`. To add one: write its weight kernel (a world's
likelihood given the public history, ``>= 0``), append its name to
:data:`BELIEFS` and add one branch to :func:`world_weight` calling it.
"""

from __future__ import annotations

from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from .learned import NEURAL, learned_rollout
from .likelihood import tabled_likelihood
from .rollouts import rollout
from .solver import plain_line, solve_into, solve_line_into
from .value import hand_value, tiles_left

__all__ = ["BELIEFS", "BELIEF_CONSISTENT", "BELIEF_PLAY_MODEL", "world_weight", "score_world"]

#: the belief models by id (the index): how a world drawn from the
#: consistent-world sampler is weighted (see :func:`world_weight`)
BELIEFS = ("consistent", "play_model")
BELIEF_CONSISTENT = 0   #: every world consistent with the history, weight = its count
BELIEF_PLAY_MODEL = 1   #: the same, times the play model's likelihood (rules without replacements)


@njit(cache=True, inline="always")
def world_weight(w, wst, rv, cfg, model, ws):
    """The weight of the world ``wst`` under the belief model ``cfg.belief``
    given its sampler's weight ``w`` (``> 0``): ``w`` for ``consistent``;
    for ``play_model``, ``w`` times the play model's likelihood
    (:func:`~dominoai.bots.pimc.likelihood.tabled_likelihood` on the
    hand's tables ``model``, with the work arrays ``ws``); 0 for every
    world when the log could not be tabled (``model.rows < 0``)."""
    if cfg.belief == BELIEF_PLAY_MODEL:
        if model.rows < 0:
            return 0.0    # the log did not replay (never for a real hand's log)
        return w * tabled_likelihood(wst, model.rows, model.tables, rv, cfg, ws, model.cache,
                                     None, model.first)
    return w


# inlined: it runs once per world, and a call passes every array of cfg and ws
# (insane in Kozel, 600 worlds a decision: docs/reports/2026-12-07-compile-and-suite.md)
@njit(cache=True, inline="always")
def score_world(wst, w, rv, codes, rs, seat, acc, cfg, ws, path, rollouts, exact):
    """Add ``w * rollouts * value`` of every move ``codes[i]`` in the world
    ``wst`` to ``acc[i]`` (``float64``), values for ``seat`` against the
    points ``ws.p0``: solved exactly
    (:func:`~dominoai.bots.pimc.solver.solve_into` on the work arrays
    ``ws``, full window: values, not only the best; on a plain line
    :func:`~dominoai.bots.pimc.solver.solve_line_into`, the same values
    faster) when ``exact > 0``, at most ``exact`` tiles can still be played
    and no move's solve passes ``ws.nodes[1]`` nodes; else the sum of
    ``rollouts`` rollouts per move with the policy ``cfg.rollout_policy``
    (with ``hard``, ``cfg.hard_plies`` moves of it before random ones; 0:
    all), all moves of a rollout with the same random numbers (drawn from
    ``rs``; ``path`` is ``fast.playout_path(rv)``, the random policy's
    fused loop). With ``cfg.value_plies > 0`` or the ``neural`` rollout
    policy a rollout is :func:`~dominoai.bots.pimc.learned.learned_rollout`
    (its value: a float; at ``value_plies=1`` one stands for all
    ``rollouts``, which would be equal). ``rollouts`` and ``exact`` are passed apart from ``cfg``:
    a resampled world counts its draws in its rollouts, and a world fusion
    could not solve is rolled out."""
    p0, tmp, ev, buf, aux, rs2 = ws.p0, ws.tmp, ws.ev, ws.buf, ws.aux, ws.rs2
    stack, bufs, meta, nodes, vals = ws.stack, ws.bufs, ws.meta, ws.nodes, ws.vals
    nc = codes.shape[0]
    if exact > 0 and tiles_left(wst, rv) <= exact:
        solved = True
        st0 = stack[0]
        line = plain_line(rv)
        for mi in range(nc):
            for q in range(L.S_SIZE):
                st0[q] = wst[q]
            K.apply_move(st0, rv, ev, codes[mi])
            nodes[0] = 0
            nodes[2] = 0
            if line:
                v = solve_line_into(stack, bufs, meta, rv, seat, p0, nodes)
            else:
                v = solve_into(stack, bufs, meta, rv, ev, seat, p0, nodes)
            if nodes[2]:
                solved = False
                break
            vals[mi] = v
        if solved:
            for mi in range(nc):
                acc[mi] += w * rollouts * vals[mi]
            return
    rollout_policy, hard_plies, hard_weights = cfg.rollout_policy, cfg.hard_plies, cfg.hard_weights
    if cfg.value_plies > 0 or rollout_policy == NEURAL:
        # at value_plies=1 the leaf follows the move at once: every rollout
        # of the world has the same value, so one stands for all of them
        reps = 1 if cfg.value_plies == 1 else rollouts
        for r in range(reps):
            sub = K.rng_next(rs)
            for mi in range(nc):
                for q in range(L.S_SIZE):
                    tmp[q] = wst[q]
                K.apply_move(tmp, rv, ev, codes[mi])
                rs2[0] = sub
                v = learned_rollout(tmp, rv, rs2, seat, p0, cfg, ws, path)
                acc[mi] += w * v * (rollouts // reps)
        return
    for r in range(rollouts):
        sub = K.rng_next(rs)
        for mi in range(nc):
            for q in range(L.S_SIZE):
                tmp[q] = wst[q]
            K.apply_move(tmp, rv, ev, codes[mi])
            rs2[0] = sub
            rollout(tmp, rv, rs2, ev, buf, aux, rollout_policy, hard_plies, hard_weights, path)
            acc[mi] += w * hand_value(tmp, rv, seat, p0)
