"""The play model: how likely the other seats' plays of this hand were in a world.

Each other seat is modelled as choosing by a softmax of the ``hard`` bot's
move values at a temperature ``tau``: ``P(move) = exp(v(move) / tau) /
sum exp(v / tau)`` over its decisions with more than one legal move. Only for
rules without drawing: a seat's past hands are then its hand now plus the
tiles it has played since (docs/insane.md, "Weighting worlds by the plays").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from ...engine.observe import O_HAND, O_SIZE, O_UNSEEN, observe_into
from ..hard import hard_eval_into

__all__ = ["rewind_hand", "play_likelihood", "new_play_tables",
           "play_tables_into", "tabled_likelihood"]


@njit(cache=True)
def rewind_hand(wst, evs, nev, rst):
    """Into ``rst`` (``int64``, ``(S_SIZE,)``): the world ``wst`` as it was when
    its hand was dealt, for rules without drawing (each seat's hand now plus
    the tiles it has played in the events ``evs[:nev]``, ``int64`` ``(n, 4)``;
    the line, the hand's points and voids reset; the leader to move). The
    match fields are kept: they do not change during a hand. Returns the
    first tile played in the hand (-1 if none), so that the caller can force
    the lead where the rules force it."""
    for q in range(L.S_SIZE):
        rst[q] = wst[q]
    first_tile = -1
    for i in range(nev):
        if evs[i, 0] == L.EV_PLAY:
            rst[L.S_HAND + evs[i, 1]] |= np.int64(1) << evs[i, 2]
            if first_tile < 0:
                first_tile = evs[i, 2]
    K.clear_line(rst)
    rst[L.S_LOG] = 0
    rst[L.S_CUR] = rst[L.S_LEADER]
    return first_tile


@njit(cache=True)
def play_likelihood(wst, evs, nev, rv, me, tau, hw, ws):
    """How likely the other seats' plays of this hand (the events
    ``evs[:nev]``, ``int64`` ``(n, 4)``) were in the world ``wst`` if each
    chose by a softmax of ``hard``'s move values (weights ``hw``, ``float64``
    ``(N_WEIGHTS,)``) at temperature ``tau`` (value units, > 0; smaller =
    closer to always playing hard's best move): the product over their
    decisions with more than one legal move; the plays of seat ``me`` (-1:
    none) are not counted. Rules without drawing only (the caller checks).
    0.0 if the events do not replay in the world. ``ws``: the work arrays
    (:data:`~dominoai.bots.pimc.settings.Scratch`; ``tmp``, ``ev``, ``buf``
    and hard's scratch are overwritten). The hand is tabled in ``wst``
    itself (:func:`play_tables_into`), then weighed
    (:func:`tabled_likelihood`); the search tables it once for all worlds."""
    meta, states, obs = new_play_tables(nev)
    nd = play_tables_into(wst, evs, nev, rv, me, meta, states, obs, ws.tmp, ws.ev)
    if nd < 0:
        return 0.0
    return tabled_likelihood(wst, nd, meta, states, obs, rv, tau, hw, ws.buf, ws.feats,
                             ws.hvals, ws.wi, ws.wf)


# the columns of the play tables' ``meta`` (one row per tabled event)
T_KIND, T_SEAT, T_TILE, T_END, T_LEAD, T_LATER = range(6)
_T_PLAY, _T_PASS = 0, 1
_FULL = np.int64((1 << 28) - 1)


@njit(cache=True)
def new_play_tables(n_events):
    """Empty play tables for a hand of ``n_events`` events: ``meta``
    (``int64``, ``(n, 6)``: kind, seat, tile, end, lead, the tiles the seat
    plays from that event on), ``states`` (``int64``, ``(n, S_SIZE)``) and
    ``obs`` (``int64``, ``(n, O_SIZE)``)."""
    n = max(n_events, 1)
    return (np.zeros((n, 6), np.int64), np.zeros((n, L.S_SIZE), np.int64),
            np.zeros((n, O_SIZE), np.int64))


@njit(cache=True)
def play_tables_into(wst, evs, nev, rv, me, meta, states, obs, rst, ev):
    """Table the hand's events ``evs[:nev]`` (``int64`` ``(n, 4)``) for
    :func:`tabled_likelihood`, by replaying them once in the world ``wst``
    (any world that replays; rules without drawing): a row for every play
    and every pass of a seat other than ``me``, with the state and that
    seat's observation at that moment (the public parts are the same in
    every world that replays; the seat's hand is filled in per world).
    ``rst`` (a state) and ``ev`` (an event log) are scratch. Returns the
    number of rows, or -1 when the events do not replay in ``wst``."""
    first_tile = rewind_hand(wst, evs, nev, rst)
    if rst[L.S_HAND_NO] == 1 and first_tile >= 0 and (
            rv[L.R_FIRST_LEAD] == L.LEAD_TILE or rv[L.R_FIRST_LEAD] == L.LEAD_HIGHEST_DOUBLE):
        rst[L.S_MUST] = first_tile
    nd = 0
    for i in range(nev):
        kind = evs[i, 0]
        s = evs[i, 1]
        if kind != L.EV_PLAY and kind != L.EV_PASS:
            continue
        if kind == L.EV_PLAY and rst[L.S_CUR] != s:
            return -1
        if s != me:
            later = np.int64(0)
            for j in range(i, nev):
                if evs[j, 0] == L.EV_PLAY and evs[j, 1] == s:
                    later |= np.int64(1) << evs[j, 2]
            row = states[nd]
            for q in range(L.S_SIZE):
                row[q] = rst[q]
            row[L.S_CUR] = s
            observe_into(row, rv, s, obs[nd])
            meta[nd, T_KIND] = _T_PLAY if kind == L.EV_PLAY else _T_PASS
            meta[nd, T_SEAT] = s
            meta[nd, T_TILE] = evs[i, 2]
            meta[nd, T_END] = evs[i, 3]
            meta[nd, T_LEAD] = 1 if rst[L.S_NPLAYED] == 0 else 0
            meta[nd, T_LATER] = later
            nd += 1
        if kind == L.EV_PLAY:
            K.apply_move(rst, rv, ev, evs[i, 2] * 4 + evs[i, 3])
    return nd


@njit(cache=True)
def tabled_likelihood(wst, nd, meta, states, obs, rv, tau, hw, buf, feats, vals, wi, wf):
    """:func:`play_likelihood` of the world ``wst`` from the play tables
    (``nd`` rows of ``meta, states, obs``, :func:`play_tables_into`, made
    for the same events and seat ``me``): the same value on every world the
    events replay in. 0.0 when a seat's hand then could not have made its
    play, or could have played where it passed. ``buf`` a move buffer and
    hard's scratch ``feats, vals, wi, wf`` are overwritten, and so are the
    tabled hands (each world writes its own)."""
    kinds = K.track_kinds(rv)
    logw = 0.0
    for d in range(nd):
        s = meta[d, T_SEAT]
        h = wst[L.S_HAND + s] | meta[d, T_LATER]
        st = states[d]
        st[L.S_HAND + s] = h
        n = K.legal_moves(st, rv, buf)
        if meta[d, T_KIND] == _T_PASS:
            if n > 0:
                return 0.0
            continue
        if n > 1:
            t = meta[d, T_TILE]
            e = meta[d, T_END]
            lead = meta[d, T_LEAD] != 0
            j = -1
            for c in range(n):
                bc = buf[c]
                if bc == L.MOVE_REPLACE or (bc >> 2) != t:
                    continue
                ke = bc & 3
                if lead or ke == e or (
                        st[L.S_END_PIP + ke] == st[L.S_END_PIP + e]
                        and (not kinds or st[L.S_END_KIND + ke] == st[L.S_END_KIND + e])):
                    j = c
                    break
            if j < 0:
                return 0.0
            a = obs[d]
            a[O_HAND] = h
            a[O_UNSEEN] = _FULL & ~h & ~st[L.S_PLAYED]
            hard_eval_into(st, rv, a, buf, n, hw, feats, vals, wi, wf)
            vmax = -np.inf
            for c in range(n):
                if vals[c] > vmax:
                    vmax = vals[c]
            z = 0.0
            for c in range(n):
                if vals[c] > -np.inf:
                    z += np.exp((vals[c] - vmax) / tau)
            if not vals[j] > -np.inf:
                return 0.0
            logw += (vals[j] - vmax) / tau - np.log(z)
    return np.exp(logw)
