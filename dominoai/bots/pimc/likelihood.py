"""The play model: how likely the other seats' plays of this hand were in a world.

Each other seat is modelled as choosing by a softmax of the ``hard`` bot's
move values at the temperature ``policy_weight``: ``P(move) = exp(v(move) /
policy_weight) / sum exp(v / policy_weight)`` over its decisions with more than one legal move
(docs/insane.md, "Weighting worlds by the plays"); or, with the play model
``neural`` (``SearchSettings.play_model``), by the policy network's
softmax over its legal moves, from its observation then
(:mod:`~dominoai.bots.pimc.playnet`).

The hand is tabled once per search from the public history alone
(:func:`play_tables_into`): at every play and every pass of another seat,
the public state and that seat's observation then, but for its hand. In a
world, a seat's hand at such a moment is its hand now plus the tiles it has
played since, provided it has drawn nothing since. So rules without drawing
table every play and pass; where tiles are drawn, only those a seat made
after its last draw (and not the play of a tile just drawn), the others
count as uninformative. Each world then only fills in the deciding seat's
hand (:func:`tabled_likelihood`): no replay or observation per world.
:func:`play_likelihood` does both for one world. Rules with replacements
(Dominoball) are not supported: the caller checks.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from ...engine.observe import O_BONE, O_HAND, O_SIZE, O_SIZES, O_UNSEEN, observe_into
from ...nets.hardeval import hard_eval_into
from ...tiles import FULL_MASK, N_TILES
from ..worlds.evidence import event_time
from .playnet import PLAY_NEURAL, first_layer_into, hand_delta_into, net_log_prob_block, new_first_layer

__all__ = ["play_likelihood", "new_play_tables", "new_row_cache",
           "play_tables_into", "tabled_likelihood", "PlayModel", "new_play_model",
           "net_tables"]

#: The play model's tables of one search: ``rows`` tabled (-1: the log did
#: not replay), ``tables`` (``(meta, states, obs)``, :func:`new_play_tables`),
#: the row ``cache`` (``(ckey, cval)``, :func:`new_row_cache`) and, for the
#: ``neural`` play model, ``first`` (``(pre, delta)``, :func:`net_tables`;
#: by default :data:`NO_FIRST`, for the ``hard`` model only)
NO_FIRST = (np.zeros((1, 1), np.float32), np.zeros((N_TILES, 1), np.float32))
PlayModel = namedtuple("PlayModel", ["rows", "tables", "cache", "first"], defaults=(NO_FIRST,))


@njit(cache=True)
def play_likelihood(wst, evs, nev, rv, me, cfg, ws):
    """How likely the other seats' plays of this hand (the events
    ``evs[:nev]``, ``int64`` ``(n, 4)``) were in the world ``wst`` if each
    chose by a softmax of ``hard``'s move values (weights
    ``cfg.hard_weights``, ``float64`` ``(N_WEIGHTS,)``) at temperature
    ``cfg.policy_weight`` (value units, > 0; smaller = closer to always
    playing hard's best move): the product over their decisions with more
    than one legal move that :func:`play_tables_into` tables (where tiles
    are drawn: those since the seat's last draw); the plays of seat ``me``
    (-1: none) are not counted. Rules without replacements only (the caller
    checks). 0.0 if the world contradicts the plays
    (:func:`tabled_likelihood`). ``cfg``: a
    :class:`~dominoai.bots.pimc.settings.SearchSettings` (its
    ``hard_prior`` and ``sharp_weight`` mix in a sharp model of each seat,
    :func:`tabled_likelihood`; ``hard_prior=0``: off). ``ws``: the work
    arrays (:data:`~dominoai.bots.pimc.settings.Scratch`; ``tmp``, ``buf``,
    ``lsum`` and hard's scratch are overwritten). The search tables the
    hand once for all its worlds instead."""
    tables = new_play_tables(nev)
    meta, states, obs = tables
    # history off as an int64, not the literal 0: numba would compile play_tables_into
    # a second time for the literal (3 to 4 s of CPU on an empty cache)
    nd = play_tables_into(wst, evs, nev, rv, me, meta, states, obs, ws.tmp, np.int64(0))
    if nd < 0:
        return 0.0
    first = net_tables(nd, obs, cfg, ws, cfg.play_model == PLAY_NEURAL)
    return tabled_likelihood(wst, nd, tables, rv, cfg, ws, new_row_cache(0), None, first)


# the columns of the play tables' ``meta`` (one row per tabled event)
T_KIND, T_SEAT, T_TILE, T_END, T_LEAD, T_LATER, T_EVENT, T_TIME, T_KNOWN = range(9)
_T_PLAY, _T_PASS = 0, 1


@njit(cache=True)
def new_play_tables(n_events):
    """Empty play tables for a hand of ``n_events`` events, the tuple
    ``(meta, states, obs)``: ``meta``
    (``int64``, ``(n, 9)``: kind (0 play, 1 pass), seat, tile, end, lead,
    the tiles the seat plays from that event on, the event's index, its time
    on the seats' timelines (:func:`~dominoai.bots.worlds.evidence.event_time`),
    and the tiles the seat draws
    later whose draw is public: those it plays at once after drawing),
    ``states`` (``int64``, ``(n, S_SIZE)``) and ``obs`` (``int64``, ``(n,
    O_SIZE)``)."""
    n = max(n_events, 1)
    return (np.zeros((n, 9), np.int64), np.zeros((n, L.S_SIZE), np.int64),
            np.zeros((n, O_SIZE), np.int64))


#: the row cache's probes per lookup before a row is computed without it
_PROBES = 16
#: the row cache's largest table (entries)
_CACHE_MAX = 1 << 15
_MIX = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def new_row_cache(n_entries):
    """An empty row cache for :func:`tabled_likelihood` with room for about
    ``n_entries`` rows' factors, the tuple ``(ckey, cval)``: ``ckey``
    (``int64``) and ``cval``
    (``float64``, ``(size, 2)``), of the power of two at least ``2 *
    n_entries`` in size (at most 32,768 entries; ``n_entries < 1``: size 1,
    no caching). A key ``(hand << 9) | (row + 1)`` (0: free) maps to the
    row's log factors at the two temperatures (the second 0.0 unless mixing)."""
    size = 1
    if n_entries > 0:
        size = 64
        while size < 2 * n_entries and size < _CACHE_MAX:
            size *= 2
    return np.zeros(size, np.int64), np.zeros((size, 2), np.float64)


@njit(cache=True)
def play_tables_into(base, evs, nev, rv, me, meta, states, obs, pub, history):
    """Table the hand's events ``evs[:nev]`` (``int64`` ``(n, 4)``, the public
    log) for :func:`tabled_likelihood`, from public information only: a row
    for every play and every pass of a seat other than ``me`` whose hand
    then is its hand now plus the tiles it has played since (no draw of that
    seat after it, and not the play of the tile it has just drawn), with the
    state and the seat's observation at that moment, its hand left to each
    world. ``base``: any state of this hand now (the observer's
    ``Belief.base`` or a world; only its match fields and boneyard count are
    read). The line is replayed with :func:`~dominoai.engine.kernels.lay`
    and :func:`~dominoai.engine.kernels.score_ends`; hand sizes, the
    boneyard count and the voids (the engine's ``S_VOID`` rule at draws and
    passes) are counted from the events. ``pub`` (a state) is scratch.
    Returns the number of rows, or -1 when the log does not replay (a seat
    out of turn).

    ``history`` 1 tables every play and pass of the other seats, also those
    before a seat's later draws (but not the play of a tile just drawn): a
    world must then say which tiles were drawn after each row
    (:mod:`~dominoai.bots.worlds.slots`; the ``drop`` of
    :func:`tabled_likelihood`)."""
    npl = rv[L.R_PLAYERS]
    for q in range(L.S_SIZE):
        pub[q] = base[q]
    for i in range(4):
        pub[L.S_HAND + i] = 0
    K.clear_line(pub)
    pub[L.S_LOG] = 0
    pub[L.S_CUR] = pub[L.S_LEADER]
    sizes = np.zeros(4, np.int64)
    last_draw = np.full(4, -1, np.int64)
    bone = K.bone_left(base)
    first_tile = -1
    for i in range(nev):
        if evs[i, 0] == L.EV_DRAW:
            last_draw[evs[i, 1]] = i
            bone += evs[i, 2]
        elif evs[i, 0] == L.EV_PLAY and first_tile < 0:
            first_tile = evs[i, 2]
    for s in range(npl):
        sizes[s] = rv[L.R_HAND_SIZE]
    if pub[L.S_HAND_NO] == 1 and first_tile >= 0 and (
            rv[L.R_FIRST_LEAD] == L.LEAD_TILE or rv[L.R_FIRST_LEAD] == L.LEAD_HIGHEST_DOUBLE):
        pub[L.S_MUST] = first_tile
    nd = 0
    for i in range(nev):
        kind = evs[i, 0]
        s = evs[i, 1]
        if kind == L.EV_PLAY or kind == L.EV_PASS or kind == L.EV_DRAW:
            if s != pub[L.S_CUR]:
                return -1       # out of turn: the log does not replay
            if kind != L.EV_DRAW:
                pub[L.S_CUR] = (s + 1) % npl
        if kind == L.EV_DRAW:
            sizes[s] += evs[i, 2]
            bone -= evs[i, 2]
            fit = i + 1 < nev and evs[i + 1, 0] == L.EV_PLAY and evs[i + 1, 1] == s
            if evs[i, 2] > 1 or not fit:
                pub[L.S_VOID + s] = evs[i, 3]   # as the engine: kept tiles may hold older pips
            else:
                pub[L.S_VOID + s] |= evs[i, 3]
            continue
        if kind != L.EV_PLAY and kind != L.EV_PASS:
            continue
        after_draw = i > 0 and evs[i - 1, 0] == L.EV_DRAW and evs[i - 1, 1] == s
        if s != me and (history or i > last_draw[s]) and not after_draw:
            later = np.int64(0)
            known = np.int64(0)
            for j in range(i, nev):
                if evs[j, 0] == L.EV_PLAY and evs[j, 1] == s:
                    later |= np.int64(1) << evs[j, 2]
                    if j > 0 and evs[j - 1, 0] == L.EV_DRAW and evs[j - 1, 1] == s:
                        known |= np.int64(1) << evs[j, 2]
            row = states[nd]
            for q in range(L.S_SIZE):
                row[q] = pub[q]
            row[L.S_CUR] = s    # pub's turn has moved on
            a = obs[nd]
            observe_into(row, rv, s, a)
            for q in range(npl):
                a[O_SIZES + q] = sizes[q]
            a[O_BONE] = bone
            meta[nd, T_KIND] = _T_PLAY if kind == L.EV_PLAY else _T_PASS
            meta[nd, T_SEAT] = s
            meta[nd, T_TILE] = evs[i, 2]
            meta[nd, T_END] = evs[i, 3]
            meta[nd, T_LEAD] = 1 if pub[L.S_NPLAYED] == 0 else 0
            meta[nd, T_LATER] = later
            meta[nd, T_EVENT] = i
            meta[nd, T_TIME] = event_time(i)
            meta[nd, T_KNOWN] = known
            nd += 1
        if kind == L.EV_PLAY:
            K.lay(pub, rv, evs[i, 2], evs[i, 3])
            K.score_ends(pub, rv, s)
            pub[L.S_MUST] = -1
            sizes[s] -= 1
        else:
            pub[L.S_VOID + s] |= evs[i, 3]
    return nd


@njit(cache=True)
def new_play_model(base, evs, rv, cfg, ws, on, n_worlds):
    """The :data:`PlayModel` of a search from the seat to move in ``base``
    (a state of the hand now, ``Belief.base``) on the events ``evs``
    (``int64`` ``(m, 4)``): when ``on``, the hand tabled
    (:func:`play_tables_into`, every play where ``cfg.draw_history``) and
    a row cache for ``cfg.resample * n_worlds`` worlds; else empty tables
    of 0 rows. ``ws.tmp`` is scratch."""
    tables = new_play_tables(evs.shape[0] if on else 1)
    meta, states, obs = tables
    nd = 0
    if on:
        nd = play_tables_into(base, evs, evs.shape[0], rv, base[L.S_CUR], meta, states, obs,
                              ws.tmp, 1 if cfg.draw_history > 0 else 0)
    first = net_tables(nd, obs, cfg, ws, on and cfg.play_model == PLAY_NEURAL)
    return PlayModel(nd, tables, new_row_cache(cfg.resample * n_worlds * nd if on else 0), first)


@njit(cache=True)
def net_tables(nd, obs, cfg, ws, on):
    """The ``neural`` play model's first-layer tables ``(pre, delta)`` of
    the ``nd`` tabled rows' observations ``obs`` (``int64``, ``(n,
    O_SIZE)``; their hands and unseen tiles are overwritten) under the
    policy network ``cfg.policy_net``: ``pre[d]`` row ``d``'s first layer
    with an empty hand, ``delta`` what each held tile adds
    (:mod:`~dominoai.bots.pimc.playnet`; ``float32``). ``(1, 1)`` arrays
    when not ``on``. ``ws.nx`` is scratch."""
    net = cfg.policy_net
    pre, delta = new_first_layer(nd, net, on)
    if on:
        hand_delta_into(net, delta)
        for d in range(nd):
            first_layer_into(obs[d], net, ws.nx, pre[d])
    return pre, delta


# inlined: it runs once per world, and a call passes every array of cfg and ws
# (insane in Kozel, 600 worlds a decision: docs/reports/2026-12-07-compile-and-suite.md)
@njit(cache=True, inline="always")
def tabled_likelihood(wst, nd, tables, rv, cfg, ws, cache, drop=None, first=None):
    """:func:`play_likelihood` of the world ``wst`` from the play tables
    (``nd`` rows of ``tables = (meta, states, obs)``,
    :func:`new_play_tables` filled by :func:`play_tables_into` for the same
    events and seat ``me``), at the temperature ``cfg.policy_weight`` with
    the weights ``cfg.hard_weights`` (``cfg`` a
    :class:`~dominoai.bots.pimc.settings.SearchSettings`). 0.0 when a
    seat's hand then could not have made its play, or could have played
    where it passed. Of the work arrays ``ws``
    (:data:`~dominoai.bots.pimc.settings.Scratch`) the move buffer ``buf``,
    hard's scratch ``feats, hvals, wi, wf`` and ``lsum`` are overwritten,
    and so are the tabled hands (each world writes its own).

    ``cfg.hard_prior`` (0 to 1; 0: off) makes the model a mixture per seat
    and hand: with that prior probability a seat plays as ``hard`` does,
    the softmax at the sharp temperature ``cfg.sharp_weight`` (> 0), else
    at ``policy_weight``. A world's likelihood is then the product over
    the seats of ``hard_prior * L_sharp(seat) + (1 - hard_prior) *
    L_broad(seat)``, each ``L`` the product of that seat's rows (so the
    plays of a seat that keeps playing hard's best move soon favour the
    sharp model, one that does not the broad one).

    A row's factor (a play's or a pass's) depends on the world only through
    the seat's hand then, so it is kept in the row cache ``cache = (ckey,
    cval)`` (:func:`new_row_cache`, shared by the worlds of one search, the
    same tables and temperatures): a world whose seat holds a hand seen
    before at that row reads the factor instead of evaluating ``hard``
    again. The factors are summed in row order either way, so the result is
    the same to the bit with or without the cache.

    ``drop`` (``int64``, ``(nd,)``; None: none) is what each row's hand then
    leaves out of the seat's hand now plus its later plays: the tiles it
    drew after that row (tables made with ``history=1``); -1 skips the row
    (it counts as uninformative).

    ``cfg.play_model`` ``neural`` (:data:`~dominoai.bots.pimc.playnet.PLAY_NEURAL`)
    takes each row's factor from the policy network ``cfg.policy_net``
    instead: the log of its softmax probability of the move played among
    the legal moves (:func:`~dominoai.bots.pimc.playnet.net_log_prob_block`),
    read through ``first = (pre, delta)`` (:func:`net_tables` of the same
    tables; None: the ``hard`` model is used whatever ``cfg`` says; a
    kernel that calls this one passes a tuple, never None, which numba
    could not leave out of an inlined call). A policy with the
    action-feature block (``cfg.policy_block``) adds each legal move's
    feature term to its logit as the ``neural`` bot does, the features
    read from the row's observation with the world's hand then; the
    softmax is taken at the temperature ``cfg.play_temperature`` (the
    logits divided by it); ``hard_prior`` does not apply. ``ws.nh0``, ``ws.nh1``, ``ws.nout``,
    ``ws.fst``, ``ws.fe`` and ``ws.wv`` are scratch."""
    # the tuples' members, bound once (not read per row: see settings.py)
    meta, states, obs = tables
    ckey, cval = cache
    policy_weight, sharp_weight, hard_prior = cfg.policy_weight, cfg.sharp_weight, cfg.hard_prior
    hw = cfg.hard_weights
    buf, feats, vals, wi, wf, seat_logs = ws.buf, ws.feats, ws.hvals, ws.wi, ws.wf, ws.lsum
    kinds = K.track_kinds(rv)
    logw = 0.0
    neural = False
    if first is not None:
        neural = cfg.play_model == PLAY_NEURAL
        pre, delta = first
        net, block, nh0, nh1, nout = cfg.policy_net, cfg.policy_block, ws.nh0, ws.nh1, ws.nout
        fscratch = (ws.fst, feats, vals, wi, wf, ws.fe, ws.wv)
        inv_temp = 1.0 / cfg.play_temperature
    mixing = hard_prior > 0.0 and not neural
    if mixing:
        for q in range(8):
            seat_logs[q] = 0.0    # per seat: the log L at policy_weight, then at sharp_weight
    cmask = ckey.shape[0] - 1     # the table's size is a power of two
    for d in range(nd):
        s = meta[d, T_SEAT]
        h = wst[L.S_HAND + s] | meta[d, T_LATER]
        if drop is not None:
            if drop[d] == -1:
                continue
            h &= ~drop[d]
        key = (h << 9) | (d + 1)
        slot = -1                    # a free slot to store the factor in, if any
        hit = False
        f = 0.0
        f2 = 0.0
        if cmask > 0 and d < 511:
            q = np.int64((np.uint64(key) * _MIX) >> np.uint64(32)) & cmask
            for _ in range(_PROBES):
                kq = ckey[q]
                if kq == key:
                    hit = True
                    break
                if kq == 0:
                    slot = q
                    break
                q = (q + 1) & cmask
            if hit:
                f = cval[q, 0]
                f2 = cval[q, 1]
        if not hit:
            done = False
            if first is not None:
                if neural:
                    f = _neural_row_factor(d, h, s, meta, states, obs, rv, buf, kinds, pre,
                                           delta, net, nh0, nh1, nout, block, fscratch,
                                           inv_temp)
                    f2 = 0.0
                    done = True
            if not done:
                f, f2 = _row_factor(d, h, s, meta, states, obs, rv, policy_weight,
                                    sharp_weight, mixing, hw, buf, feats, vals, wi, wf, kinds)
            if slot >= 0:
                ckey[slot] = key
                cval[slot, 0] = f
                cval[slot, 1] = f2
        if f == -np.inf:
            return 0.0
        if mixing:
            seat_logs[s] += f
            seat_logs[4 + s] += f2
        else:
            logw += f
    if mixing:
        for s in range(4):
            a = seat_logs[4 + s]     # sharp (finite: a row of -inf returned above)
            b = seat_logs[s]         # broad
            m = max(a, b)
            logw += m + np.log(hard_prior * np.exp(a - m) + (1.0 - hard_prior) * np.exp(b - m))
    return np.exp(logw)


@njit(cache=True, inline="always")
def _row_factor(d, h, s, meta, states, obs, rv, policy_weight, sharp_weight, mixing, hw, buf,
                feats, vals, wi, wf, kinds):
    """The log factors of row ``d`` of the play tables ``meta, states,
    obs`` with the seat ``s``'s hand then ``h``, at ``policy_weight`` and
    (when ``mixing``, else 0.0) at ``sharp_weight``: -inf where the hand
    could not have made the play (or could have played where it passed),
    0.0 for a forced move, else the log of the softmax probability of the
    move played (``hw``: the ``hard`` weights; ``buf``, ``feats``,
    ``vals``, ``wi``, ``wf``: the work arrays of ``hard``'s evaluation).

    It takes the arrays one by one, 17 parameters, where the search's other
    kernels take tuples: it runs per row of every world whose hand the row
    cache lacks, and reading the ``Scratch`` and settings tuples' members
    here made Kozel's decisions at its defaults (the play model on) about
    10% slower in CPU time (benchmarks/bench_insane.py)."""
    st = states[d]
    st[L.S_HAND + s] = h
    n = K.legal_moves(st, rv, buf)
    if meta[d, T_KIND] == _T_PASS:
        if n > 0:
            return -np.inf, -np.inf
        return 0.0, 0.0
    if n > 1:
        j = _played_index(st, meta, d, buf, n, kinds)
        if j < 0:
            return -np.inf, -np.inf
        a = obs[d]
        a[O_HAND] = h
        a[O_UNSEEN] = FULL_MASK & ~h & ~st[L.S_PLAYED]
        hard_eval_into(st, rv, a, buf, n, hw, feats, vals, wi, wf)
        vmax = -np.inf
        for c in range(n):
            if vals[c] > vmax:
                vmax = vals[c]
        if not vals[j] > -np.inf:
            return -np.inf, -np.inf
        z = 0.0
        z2 = 0.0
        for c in range(n):
            if vals[c] > -np.inf:
                z += np.exp((vals[c] - vmax) / policy_weight)
                if mixing:
                    z2 += np.exp((vals[c] - vmax) / sharp_weight)
        f2 = 0.0
        if mixing:
            f2 = (vals[j] - vmax) / sharp_weight - np.log(z2)
        return (vals[j] - vmax) / policy_weight - np.log(z), f2
    return 0.0, 0.0


@njit(cache=True, inline="always")
def _played_index(st, meta, d, buf, n, kinds):
    """The index in ``buf[:n]`` (the legal moves of the tabled state ``st``
    of row ``d``) of the move the row's seat played (the same tile on the
    same end, or on an end equivalent to it); -1 when it is not legal."""
    t = meta[d, T_TILE]
    e = meta[d, T_END]
    lead = meta[d, T_LEAD] != 0
    for c in range(n):
        bc = buf[c]
        if bc == L.MOVE_REPLACE or (bc >> 2) != t:
            continue
        ke = bc & 3
        if lead or ke == e or (
                st[L.S_END_PIP + ke] == st[L.S_END_PIP + e]
                and (not kinds or st[L.S_END_KIND + ke] == st[L.S_END_KIND + e])):
            return c
    return -1


@njit(cache=True, inline="always")
def _neural_row_factor(d, h, s, meta, states, obs, rv, buf, kinds, pre, delta, net, nh0, nh1,
                       nout, block, fscratch, inv_temp):
    """The log factor of row ``d`` with the seat ``s``'s hand then ``h``
    under the policy network ``net``: -inf where the hand could not have
    made the play (or could have played where it passed), 0.0 for a forced
    move, else the log of the network's softmax probability of the move
    played among the legal ones
    (:func:`~dominoai.bots.pimc.playnet.net_log_prob_block` on the row's
    first layer ``pre[d]`` and the tile columns ``delta``, with the
    action-feature block ``block`` read from the row's observation
    ``obs[d]``, the logits times ``inv_temp``; ``nh0``, ``nh1``, ``nout``,
    ``fscratch`` scratch)."""
    st = states[d]
    st[L.S_HAND + s] = h
    n = K.legal_moves(st, rv, buf)
    if meta[d, T_KIND] == _T_PASS:
        return -np.inf if n > 0 else 0.0
    if n <= 1:
        return 0.0
    j = _played_index(st, meta, d, buf, n, kinds)
    if j < 0:
        return -np.inf
    return net_log_prob_block(pre[d], delta, h, buf, n, j, net, nh0, nh1, nout, block, obs[d], rv,
                              fscratch, inv_temp)
