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

from ...engine import fast as F
from ...engine import kernels as K
from ...engine import layout as L
from ..worlds import MAXG, acquired_after_into, draw_world, drawn_world_weight, sample_slots_into
from .fusion import file_world, fused_values_into, fused_world, new_fusion
from .likelihood import (T_KNOWN, T_SEAT, T_TIME, new_play_tables, new_row_cache,
                         play_tables_into, tabled_likelihood)
from .rollouts import rollout
from .settings import new_scratch
from .solver import plain_line, solve_into, solve_line_into
from .value import hand_value, tiles_left

__all__ = ["BELIEFS", "BELIEF_CONSISTENT", "BELIEF_PLAY_MODEL", "world_weight", "score_world",
           "search_worlds", "search_fixed", "shuffle_boneyard", "resample_counts"]

#: the belief models by id (the index): how a world drawn from the
#: consistent-world sampler is weighted (see :func:`world_weight`)
BELIEFS = ("consistent", "play_model")
BELIEF_CONSISTENT = 0   #: every world consistent with the history, weight = its count
BELIEF_PLAY_MODEL = 1   #: the same, times the play model's likelihood (rules without replacements)


@njit(cache=True, inline="always")
def world_weight(w, wst, rv, belief, tau, hw, nd, meta, states, obs, buf, feats, hvals, wi, wf,
                 ckey, cval, mix, tau_sharp, lsum):
    """The weight of the world ``wst`` under the belief model ``belief``
    (``SearchSettings.belief``), given its sampler's weight ``w`` (``> 0``):
    ``w`` for ``consistent``; for ``play_model``, ``w`` times the play
    model's likelihood at temperature ``tau`` with the ``hard`` weights
    ``hw`` (:func:`~dominoai.bots.pimc.likelihood.tabled_likelihood` on
    the hand's ``nd`` tabled events ``meta, states, obs`` and the row cache
    ``ckey, cval``, mixed with the sharp model at ``tau_sharp`` by ``mix``
    with the scratch ``lsum``;
    0 for every world when the log could not be tabled, ``nd < 0``). The other
    arguments are members of the search's ``Scratch``, passed one by one:
    this runs once per world, and numba counts a reference per member of a
    tuple on each call."""
    if belief == BELIEF_PLAY_MODEL:
        if nd < 0:
            return 0.0    # the log did not replay (never for a real hand's log)
        return w * tabled_likelihood(wst, nd, meta, states, obs, rv, tau, hw, buf, feats, hvals,
                                     wi, wf, ckey, cval, mix, tau_sharp, lsum)
    return w


@njit(cache=True)
def history_rows(nd, meta, hseat, G, gtime, rowh, rowg):
    """For each of the ``nd`` rows of play tables made with ``history=1``:
    the holder of its seat (``rowh``, the index into ``hseat``) and its seat's
    first slot group after it (``rowg``: a draw after the row; ``G[h]``:
    none), both ``int64`` ``(nd,)``, out."""
    for d in range(nd):
        s = meta[d, T_SEAT]
        h = 0
        for q in range(hseat.shape[0]):
            if hseat[q] == s:
                h = q
        rowh[d] = h
        g = G[h]
        for q in range(G[h]):
            if gtime[h, q] > meta[d, T_TIME]:
                g = q
                break
        rowg[d] = g


@njit(cache=True)
def history_weight(w, wst, rv, tau, hw, nd, meta, states, obs, buf, feats, hvals, wi, wf,
                   ckey, cval, mix, tau_sharp, lsum, rs, hseat, G, gsize, cls, cls_a, npl, pa,
                   pb, ptile, rowh, rowg, acq, suf, drop):
    """The play model's weight of the world ``wst`` where tiles are drawn and
    every play counts (``SearchSettings.history``): for each other seat that
    drew, one assignment of its tiles to its deal and draws, uniform among
    the ``N_j`` of the world (:func:`~dominoai.bots.worlds.slots.sample_slots_into`,
    the generator ``rs``), gives its hand at each tabled row (``drop``: the
    tiles it drew after the row, with those it played at once after a draw);
    then ``w`` times :func:`tabled_likelihood` with it. ``w * L`` is an
    unbiased estimate of the world's weight summed over its deck orders
    (each deck order as likely). A seat whose count table is too large to
    draw from (:data:`~dominoai.bots.worlds.slots.MAX_STATES`) has only its
    rows after its last draw counted. ``rowh``, ``rowg``:
    :func:`history_rows`; ``acq`` (``(MAXG,)``), ``suf`` (``(H, MAXG +
    1)``) and ``drop`` (``(nd,)``, ``int64``) are scratch."""
    big = 0
    for h in range(hseat.shape[0]):
        if G[h] <= 1:
            continue
        n = sample_slots_into(h, wst[L.S_HAND + hseat[h]], G, gsize, cls, cls_a, npl, pa, pb,
                              ptile, rs, acq)
        if n == 0.0:
            return 0.0
        if n < 0.0:
            big |= 1 << h
            continue
        acquired_after_into(acq, G[h], suf[h])
    for d in range(nd):
        h = rowh[d]
        if (big >> h) & 1:
            drop[d] = -1 if rowg[d] < G[h] else 0
        else:
            drop[d] = meta[d, T_KNOWN] | suf[h, rowg[d]]
    return w * tabled_likelihood(wst, nd, meta, states, obs, rv, tau, hw, buf, feats, hvals,
                                 wi, wf, ckey, cval, mix, tau_sharp, lsum, drop)


@njit(cache=True, inline="always")
def score_world(wst, w, rv, codes, rs, seat, acc, rollouts, policy, plies, hw, exact, p0, tmp,
                ev, buf, aux, rs2, stack, bufs, meta, nodes, vals, path):
    """Add ``w * rollouts * value`` of every move ``codes[i]`` in the world
    ``wst`` to ``acc[i]`` (``float64``), values against the points ``p0``:
    solved exactly (:func:`~dominoai.bots.pimc.solver.solve_into` on
    ``stack, bufs, meta, nodes``, full window: values, not only the best;
    ``vals`` one per move; on a plain line
    :func:`~dominoai.bots.pimc.solver.solve_line_into`, the same values
    faster) when ``exact > 0``, at most ``exact`` tiles can still be played
    and no move's solve passes ``nodes[1]`` nodes; else the sum of
    ``rollouts`` rollouts per move with the policy ``policy`` (with
    ``hard``, ``plies`` moves of it before random ones; 0: all), all moves
    of a rollout with the same random numbers (drawn from ``rs``; ``path`` is ``fast.playout_path(rv)``, the random policy's
    fused loop). The settings and the ``Scratch`` members are passed one by
    one (see :func:`world_weight`): inlined or not, a tuple argument costs a
    reference count per member per world."""
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
    for r in range(rollouts):
        sub = K.rng_next(rs)
        for mi in range(nc):
            for q in range(L.S_SIZE):
                tmp[q] = wst[q]
            K.apply_move(tmp, rv, ev, codes[mi])
            rs2[0] = sub
            rollout(tmp, rv, rs2, ev, buf, aux, policy, plies, hw, path)
            acc[mi] += w * hand_value(tmp, rv, seat, p0)


@njit(cache=True)
def score_or_fuse(wst, w, rv, codes, rs, seat, acc, rollouts, policy, plies, hw, exact, p0, tmp,
                  ev, buf, aux, rs2, stack, bufs, meta, nodes, vals, path, fuse, line, st2,
                  vals2, keys, nn, fkey, frow, fval, fn, fmove, used):
    """:func:`score_world`, or with ``fuse`` (``SearchSettings.fusion``,
    with ``exact``) in a world that is solved exactly: the world's values
    filed for fusion (:func:`~dominoai.bots.pimc.fusion.fused_world`,
    ``file_world``), added to ``acc`` only at the end of the search
    (``fused_values_into``); a world whose solve gives up is rolled out.
    Not inlined (numba does not inline a call of this many arguments), so
    the search calls it only where ``fuse`` is set."""
    if fuse and tiles_left(wst, rv) <= exact:
        if fused_world(wst, rv, codes, seat, p0, ev, buf, tmp, st2, stack, bufs, meta, nodes,
                       line, vals2, keys, nn):
            file_world(w * rollouts, vals2, keys, nn, fkey, frow, fval, fn, fmove, used)
            return
        exact = 0
    score_world(wst, w, rv, codes, rs, seat, acc, rollouts, policy, plies, hw, exact, p0, tmp,
                ev, buf, aux, rs2, stack, bufs, meta, nodes, vals, path)


@njit(cache=True)
def search_worlds(p, base, rv, codes, n_worlds, rs, acc, stats, evs, cfg):
    """Sample up to ``n_worlds`` worlds of positive weight (at most
    ``cfg.max_tries * n_worlds`` proposals) and add ``weight * value`` of every
    move in each to ``acc`` (:func:`score_world`). Returns the worlds found.

    With ``cfg.resample = k > 1`` it first draws and weighs up to ``k *
    n_worlds`` worlds (a pool; ``cfg.max_tries * k * n_worlds`` proposals),
    then scores ``n_worlds`` drawn from the pool in proportion to their
    weights (:func:`resample_counts`), each of weight ``W / n_worlds`` (``W``
    the pool's total weight); it then returns ``n_worlds`` (0 for an empty
    pool). Where the weights are skewed (a sharp play model) the rollouts go
    to the likely worlds instead of worlds of almost no weight.

    - ``p``: the sampler's tables, :attr:`Belief.parts
      <dominoai.bots.worlds.Belief>`; ``base``: the observing seat's view as
      a state (``Belief.base``, ``int64`` ``(S_SIZE,)``), its seat to move.
    - ``rv``: the rules vector; ``codes``: the legal moves (``int64``, ``(n,)``);
      ``acc``: ``float64`` ``(n,)``, added to.
    - ``rs``: ``uint64`` ``(1,)``, the RNG state (advanced).
    - ``stats``: ``float64`` ``[worlds, proposals, total weight x rollouts]``
      (added to).
    - ``evs``: the hand's events (``int64`` ``(m, 4)``, ``Observation.event_array``),
      read by the ``play_model`` belief (rules without replacements only;
      the caller checks).
    - ``cfg``: :class:`~dominoai.bots.pimc.settings.SearchSettings`.
    """
    # the parts' and the scratch's arrays are bound once here: handing a
    # tuple to a function per world costs a reference count per member
    tiles, allow, caps, hseat, dp, rad = p.tiles, p.allow, p.caps, p.hseat, p.dp, p.rad
    wneed, cls, crad, hkey, hval = p.wneed, p.cls, p.crad, p.hkey, p.hval
    ws = new_scratch(codes.shape[0], cfg.max_nodes)
    wst, bone, miss, p0 = ws.wst, ws.bone, ws.miss, ws.p0
    tmp, ev, buf, aux, rs2 = ws.tmp, ws.ev, ws.buf, ws.aux, ws.rs2
    feats, hvals, wi, wf = ws.feats, ws.hvals, ws.wi, ws.wf
    stack, bufs, meta, nodes, vals = ws.stack, ws.bufs, ws.meta, ws.nodes, ws.vals
    rollouts, policy, hw, exact = cfg.rollouts, cfg.policy, cfg.weights, cfg.exact
    plies = cfg.hard_plies
    belief, tau = cfg.belief, cfg.tau
    path = F.playout_path(rv)
    seat = base[L.S_CUR]
    for s in range(4):
        p0[s] = base[L.S_POINTS + s]
    # the play model's tables of the hand, from the public history (likelihood.py)
    pmeta, pstates, pobs = new_play_tables(evs.shape[0] if belief == BELIEF_PLAY_MODEL else 1)
    nd = 0
    hist = belief == BELIEF_PLAY_MODEL and cfg.history > 0
    if belief == BELIEF_PLAY_MODEL:
        nd = play_tables_into(base, evs, evs.shape[0], rv, seat, pmeta, pstates, pobs, tmp,
                              1 if hist else 0)
    # history: each row's holder and first slot group after it, and scratch
    H = hseat.shape[0]
    nh = max(nd, 1) if hist else 1
    rowh, rowg, drop = np.zeros(nh, np.int64), np.zeros(nh, np.int64), np.zeros(nh, np.int64)
    acq = np.zeros(MAXG, np.int64)
    suf = np.zeros((max(H, 1), MAXG + 1), np.int64)
    if hist and nd > 0:
        history_rows(nd, pmeta, hseat, p.G, p.gtime, rowh, rowg)
    # a row's factor per hand, shared by this search's worlds
    ckey, cval = new_row_cache(cfg.resample * n_worlds * nd if belief == BELIEF_PLAY_MODEL else 0)
    mix, tau_sharp, k = cfg.mix, cfg.tau_sharp, cfg.resample
    lsum = np.zeros(8, np.float64)   # the mixture's per-seat sums, once per search
    # fusion: the solved worlds' values by key of the next own decision (fusion.py)
    fuse = cfg.fusion > 0 and exact > 0
    line = plain_line(rv)
    fkey, frow, fval, fn, fmove, used, vals2, keys, nn = new_fusion(
        codes.shape[0] if fuse else 1, k * n_worlds if fuse else 1)
    st2 = np.zeros(L.S_SIZE, np.int64)
    # resample > 1: the worlds go into a pool first, scored after resampling
    target = k * n_worlds
    pool = np.empty((target if k > 1 else 1, L.S_SIZE), np.int64)
    pw = np.empty(target if k > 1 else 1, np.float64)
    max_props = cfg.max_tries * target
    got = 0
    props = 0
    wsum = 0.0
    while got < target and props < max_props:
        props += 1
        draw_world(tiles, allow, caps, hseat, dp, rad, base, rs, wst, bone)
        w = drawn_world_weight(p, wst, hseat, wneed, cls, crad, hkey, hval, miss)
        if w > 0.0 and hist and nd > 0:
            w = history_weight(w, wst, rv, tau, hw, nd, pmeta, pstates, pobs, buf, feats, hvals,
                               wi, wf, ckey, cval, mix, tau_sharp, lsum, rs, hseat, p.G,
                               p.gsize, p.cls, p.cls_a, p.npl, p.pa, p.pb, p.ptile, rowh, rowg,
                               acq, suf, drop)
        elif w > 0.0 and belief != BELIEF_CONSISTENT:
            # inlined only under this test: an inlined call's dozen array
            # arguments cost a reference count each per world, taken or not
            w = world_weight(w, wst, rv, belief, tau, hw, nd, pmeta, pstates, pobs, buf,
                             feats, hvals, wi, wf, ckey, cval, mix, tau_sharp, lsum)
        if w <= 0.0:
            continue
        wsum += w * rollouts
        if k > 1:
            for q in range(L.S_SIZE):
                pool[got, q] = wst[q]
            pw[got] = w
            got += 1
            continue
        got += 1
        if fuse:
            score_or_fuse(wst, w, rv, codes, rs, seat, acc, rollouts, policy, plies, hw, exact,
                          p0, tmp, ev, buf, aux, rs2, stack, bufs, meta, nodes, vals, path, fuse,
                          line, st2, vals2, keys, nn, fkey, frow, fval, fn, fmove, used)
        else:
            score_world(wst, w, rv, codes, rs, seat, acc, rollouts, policy, plies, hw, exact, p0,
                        tmp, ev, buf, aux, rs2, stack, bufs, meta, nodes, vals, path)
    if k > 1 and got > 0:
        # n_worlds of the pool, drawn in proportion to weight, each of weight
        # W / n_worlds (W the pool's total, so chunks combine as weighted
        # worlds do); a world drawn c times is scored once with c times the
        # rollouts (solved exactly: c times its value)
        counts = np.zeros(got, np.int64)
        u01 = np.float64(K.rng_next(rs) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        resample_counts(pw[:got], n_worlds, u01, counts)
        step = wsum / rollouts / n_worlds
        for i in range(got):
            if counts[i] > 0 and fuse:
                score_or_fuse(pool[i], step, rv, codes, rs, seat, acc, rollouts * counts[i],
                              policy, plies, hw, exact, p0, tmp, ev, buf, aux, rs2, stack, bufs,
                              meta, nodes, vals, path, fuse, line, st2, vals2, keys, nn, fkey,
                              frow, fval, fn, fmove, used)
            elif counts[i] > 0:
                score_world(pool[i], step, rv, codes, rs, seat, acc, rollouts * counts[i], policy,
                            plies, hw, exact, p0, tmp, ev, buf, aux, rs2, stack, bufs, meta,
                            nodes, vals, path)
        got = n_worlds
    if fuse:
        fused_values_into(acc, fval, fn, fmove, used)
    stats[0] += got
    stats[1] += props
    stats[2] += wsum
    return got


@njit(cache=True)
def resample_counts(w, n, u01, counts):
    """Systematic resampling: how often each of the weights ``w``
    (``float64``, ``(m,)``, ``>= 0``, sum ``W > 0``) is drawn among ``n``
    draws at the points ``(u01 + j) * W / n``, ``j < n`` (``u01`` in [0,
    1), one uniform number), into ``counts`` (``int64``, ``(m,)``). Each
    count is ``floor`` or ``ceil`` of ``n * w[i] / W`` and their mean over
    ``u01`` is exactly that; the counts sum to ``n`` (a point that rounding
    pushes past the end goes to the last positive weight)."""
    m = w.shape[0]
    total = 0.0
    for i in range(m):
        total += w[i]
        counts[i] = 0
    step = total / n
    cum = 0.0
    j = 0
    last = -1
    for i in range(m):
        if w[i] <= 0.0:
            continue
        last = i
        cum += w[i]
        while j < n and (u01 + j) * step < cum:
            counts[i] += 1
            j += 1
    if last >= 0:
        counts[last] += n - j


@njit(cache=True)
def shuffle_boneyard(wst, rs):
    """Reshuffle the tiles still to be drawn, ``wst[S_BONE + S_BONE_POS:
    S_BONE + S_BONE_END]``, in place (Fisher-Yates with ``rs``, ``uint64``
    ``(1,)``): the world a seat that sees every hand, but not the boneyard's
    order, may believe. The tiles drawn so far stay. The undrawn tiles are
    sorted first, so the result depends on their set and ``rs`` only, never
    on the true order."""
    lo = L.S_BONE + wst[L.S_BONE_POS]
    n = wst[L.S_BONE_END] - wst[L.S_BONE_POS]
    for i in range(1, n):           # insertion sort: at most 28 tiles
        t = wst[lo + i]
        j = i - 1
        while j >= 0 and wst[lo + j] > t:
            wst[lo + j + 1] = wst[lo + j]
            j -= 1
        wst[lo + j + 1] = t
    for i in range(n - 1, 0, -1):
        j = K.rng_below(rs, i + 1)
        t = wst[lo + i]
        wst[lo + i] = wst[lo + j]
        wst[lo + j] = t


@njit(cache=True)
def search_fixed(st, rv, codes, n_worlds, rs, acc, stats, cfg, hide_boneyard=False):
    """:func:`search_worlds` on one known world ``st`` (``int64``
    ``(S_SIZE,)``, the true state: omniscient), scored ``n_worlds`` times,
    each of weight 1. With ``hide_boneyard`` every world first reshuffles
    the boneyard's undrawn tiles (:func:`shuffle_boneyard`): the hands are
    known, the draw order is not."""
    ws = new_scratch(codes.shape[0], cfg.max_nodes)
    wst, p0 = ws.wst, ws.p0
    tmp, ev, buf, aux, rs2 = ws.tmp, ws.ev, ws.buf, ws.aux, ws.rs2
    stack, bufs, meta, nodes, vals = ws.stack, ws.bufs, ws.meta, ws.nodes, ws.vals
    rollouts, policy, hw, exact = cfg.rollouts, cfg.policy, cfg.weights, cfg.exact
    plies = cfg.hard_plies
    path = F.playout_path(rv)
    seat = st[L.S_CUR]
    for s in range(4):
        p0[s] = st[L.S_POINTS + s]
    for q in range(L.S_SIZE):
        wst[q] = st[q]
    wst[L.S_LOG] = 0
    for _ in range(n_worlds):
        if hide_boneyard:
            shuffle_boneyard(wst, rs)
        score_world(wst, 1.0, rv, codes, rs, seat, acc, rollouts, policy, plies, hw, exact, p0,
                    tmp, ev, buf, aux, rs2, stack, bufs, meta, nodes, vals, path)
    stats[0] += n_worlds
    stats[1] += n_worlds
    stats[2] += n_worlds * rollouts
    return n_worlds
