"""The search with the options ``resample``, ``fusion`` and ``draw_history``.

These options did not win their trials against the defaults (docs/insane.md,
"Candidates"), so the default search (:func:`~dominoai.bots.pimc.search.search_worlds`)
does not run through them: it hands the whole search to
:func:`search_options` once per call when any of them is on
(:func:`uses_options`), and its own loop stays free of them.

- ``resample = k > 1``: draw and weigh up to ``k * n_worlds`` worlds (a
  pool; ``cfg.max_tries * k * n_worlds`` proposals), then score
  ``n_worlds`` drawn from the pool in proportion to their weights
  (:func:`resample_counts`), each of weight ``W / n_worlds`` (``W`` the
  pool's total weight). Where the weights are skewed (a sharp play model)
  the rollouts go to the likely worlds instead of worlds of almost no
  weight.
- ``fusion`` (with ``exact``): in a world solved exactly, the seat's next
  move is chosen once per information set (:mod:`~dominoai.bots.pimc.fusion`).
- ``draw_history`` (with the play model where tiles are drawn): every play
  counts, each world drawing which tiles its seats drew when
  (:func:`history_weight`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ...engine import fast as F
from ...engine import kernels as K
from ...engine import layout as L
from ..worlds import MAXG, acquired_after_into, draw_world, drawn_world_weight, sample_slots_into
from .fusion import file_world, fused_values_into, fused_world, new_fusion
from .likelihood import T_KNOWN, T_SEAT, T_TIME, tabled_likelihood
from .score import BELIEF_CONSISTENT, BELIEF_PLAY_MODEL, score_world, world_weight
from .value import tiles_left

__all__ = ["uses_options", "search_options", "HistoryTables", "new_history", "history_rows",
           "history_weight", "fuse_or_score", "resample_counts"]

#: ``draw_history``'s tables, all ``int64``: ``rowh`` and ``rowg`` (one per
#: tabled row, :func:`history_rows`), ``acq`` (``(MAXG,)``), ``suf``
#: (``(H, MAXG + 1)``) and ``drop`` (one per row), scratch of
#: :func:`history_weight`
HistoryTables = namedtuple("HistoryTables", ["rowh", "rowg", "acq", "suf", "drop"])


@njit(cache=True)
def uses_options(cfg):
    """True when the search ``cfg`` (:class:`~dominoai.bots.pimc.settings.SearchSettings`)
    needs :func:`search_options`: ``resample > 1``, ``fusion`` with
    ``exact``, or ``draw_history`` with the play model."""
    return (cfg.resample > 1 or (cfg.fusion > 0 and cfg.exact > 0)
            or (cfg.draw_history > 0 and cfg.belief == BELIEF_PLAY_MODEL))


@njit(cache=True)
def new_history(n_rows, holders):
    """Empty :data:`HistoryTables` for ``n_rows`` tabled rows (at least 1)
    and ``holders`` seats that hold hidden tiles."""
    n = max(n_rows, 1)
    return HistoryTables(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(MAXG, np.int64),
                         np.zeros((max(holders, 1), MAXG + 1), np.int64), np.zeros(n, np.int64))


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
def history_weight(w, wst, rv, cfg, model, ws, p, hist, rs):
    """The play model's weight of the world ``wst`` where tiles are drawn and
    every play counts (``SearchSettings.draw_history``): for each other seat
    that drew, one assignment of its tiles to its deal and draws, uniform
    among the ``N_j`` of the world
    (:func:`~dominoai.bots.worlds.slots.sample_slots_into` on the sampler's
    tables ``p``, the generator ``rs``), gives its hand at each tabled row
    (``drop``: the tiles it drew after the row, with those it played at
    once after a draw); then ``w`` times :func:`tabled_likelihood` with it
    (the tables ``model``, made with ``history=1``; the settings ``cfg``,
    the work arrays ``ws``). ``w * L`` is an unbiased estimate of the
    world's weight summed over its deck orders (each deck order as likely).
    A seat whose count table is too large to draw from
    (:data:`~dominoai.bots.worlds.slots.MAX_STATES`) has only its rows after
    its last draw counted. ``hist``: :data:`HistoryTables` (``rowh``,
    ``rowg`` from :func:`history_rows`; the others scratch)."""
    hseat, G, gsize, cls, cls_a, npl = p.hseat, p.G, p.gsize, p.cls, p.cls_a, p.npl
    pa, pb, ptile = p.pa, p.pb, p.ptile
    rowh, rowg, acq, suf, drop = hist
    nd = model.rows
    meta = model.tables[0]
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
    return w * tabled_likelihood(wst, nd, model.tables, rv, cfg, ws, model.cache, drop,
                                 model.first)


@njit(cache=True)
def fuse_or_score(wst, w, rv, codes, rs, seat, acc, cfg, ws, path, fusion, rollouts):
    """In a world that is solved exactly (at most ``cfg.exact`` tiles left),
    the world's values filed for fusion
    (:func:`~dominoai.bots.pimc.fusion.fused_world`, ``file_world``;
    ``fusion = (tables, st2)``, :func:`~dominoai.bots.pimc.fusion.new_fusion`
    and a state of scratch), added to ``acc`` only at the end of the search
    (``fused_values_into``); else, or where a solve gives up, the world is
    scored as without fusion (:func:`~dominoai.bots.pimc.score.score_world`,
    rolled out)."""
    exact = cfg.exact
    if tiles_left(wst, rv) <= exact:
        tables, st2 = fusion
        if fused_world(wst, rv, codes, seat, ws, st2, tables):
            file_world(w * rollouts, tables)
            return
        exact = 0
    score_world(wst, w, rv, codes, rs, seat, acc, cfg, ws, path, rollouts, exact)


@njit(cache=True)
def search_options(p, base, rv, codes, n_worlds, rs, acc, cfg, ws, model):
    """:func:`~dominoai.bots.pimc.search.search_worlds` with ``resample``,
    ``fusion`` or ``draw_history`` on (the module's text); the same
    arguments (``ws`` the work arrays with ``ws.p0`` set, ``model`` the
    play model's tables). Returns the worlds found (``n_worlds`` when
    resampling a pool that is not empty), the proposals and the total
    weight times the rollouts."""
    tiles, allow, caps, hseat, dp, rad = p.tiles, p.allow, p.caps, p.hseat, p.dp, p.rad
    wneed, cls, crad, hkey, hval = p.wneed, p.cls, p.crad, p.hkey, p.hval
    wst, bone, miss = ws.wst, ws.bone, ws.miss
    rollouts, exact, belief, k = cfg.rollouts, cfg.exact, cfg.belief, cfg.resample
    path = F.playout_path(rv)
    seat = base[L.S_CUR]
    nd = model.rows
    # draw_history: each row's holder and first slot group after it, and scratch
    hist = belief == BELIEF_PLAY_MODEL and cfg.draw_history > 0
    htab = new_history(nd if hist else 1, hseat.shape[0])
    if hist and nd > 0:
        history_rows(nd, model.tables[0], hseat, p.G, p.gtime, htab.rowh, htab.rowg)
    # fusion: the solved worlds' values by key of the next own decision (fusion.py)
    fuse = cfg.fusion > 0 and exact > 0
    fusion = (new_fusion(codes.shape[0] if fuse else 1, k * n_worlds if fuse else 1),
              np.zeros(L.S_SIZE, np.int64))
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
            w = history_weight(w, wst, rv, cfg, model, ws, p, htab, rs)
        elif w > 0.0 and belief != BELIEF_CONSISTENT:
            w = world_weight(w, wst, rv, cfg, model, ws)
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
            fuse_or_score(wst, w, rv, codes, rs, seat, acc, cfg, ws, path, fusion, rollouts)
        else:
            score_world(wst, w, rv, codes, rs, seat, acc, cfg, ws, path, rollouts, exact)
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
                fuse_or_score(pool[i], step, rv, codes, rs, seat, acc, cfg, ws, path, fusion,
                              rollouts * counts[i])
            elif counts[i] > 0:
                score_world(pool[i], step, rv, codes, rs, seat, acc, cfg, ws, path,
                            rollouts * counts[i], exact)
        got = n_worlds
    if fuse:
        fused_values_into(acc, fusion[0])
    return got, props, wsum


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


