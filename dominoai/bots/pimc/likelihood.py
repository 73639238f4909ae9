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
from ...engine.observe import observe_into
from ..hard import hard_eval_into

__all__ = ["rewind_hand", "play_likelihood", "likelihood_into"]


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
    (:data:`~dominoai.bots.pimc.settings.Scratch`; ``tmp``, ``ev``, ``buf``,
    ``aux`` and hard's scratch are overwritten)."""
    return likelihood_into(wst, evs, nev, rv, me, tau, hw, ws.tmp, ws.ev, ws.buf, ws.aux,
                       ws.feats, ws.hvals, ws.wi, ws.wf)


@njit(cache=True)
def likelihood_into(wst, evs, nev, rv, me, tau, hw, rst, ev, buf, a, feats, vals, wi, wf):
    """:func:`play_likelihood` with the work arrays passed one by one (as the
    search's per-world loop does): ``rst`` a state, ``ev`` an event log,
    ``buf`` a move buffer, ``a`` an observation array, and hard's scratch
    ``feats, vals, wi, wf`` (:func:`~dominoai.bots.hard.hard_scratch`)."""
    first_tile = rewind_hand(wst, evs, nev, rst)
    if rst[L.S_HAND_NO] == 1 and first_tile >= 0 and (
            rv[L.R_FIRST_LEAD] == L.LEAD_TILE or rv[L.R_FIRST_LEAD] == L.LEAD_HIGHEST_DOUBLE):
        rst[L.S_MUST] = first_tile
    kinds = K.track_kinds(rv)
    logw = 0.0
    for i in range(nev):
        if evs[i, 0] != L.EV_PLAY:
            continue
        s = evs[i, 1]
        t = evs[i, 2]
        e = evs[i, 3]
        if rst[L.S_CUR] != s:
            return 0.0
        lead = rst[L.S_NPLAYED] == 0
        if s != me:
            n = K.legal_moves(rst, rv, buf)
            if n > 1:
                j = -1
                for c in range(n):
                    bc = buf[c]
                    if bc == L.MOVE_REPLACE or (bc >> 2) != t:
                        continue
                    ke = bc & 3
                    if lead or ke == e or (
                            rst[L.S_END_PIP + ke] == rst[L.S_END_PIP + e]
                            and (not kinds or rst[L.S_END_KIND + ke] == rst[L.S_END_KIND + e])):
                        j = c
                        break
                if j < 0:
                    return 0.0
                observe_into(rst, rv, rst[L.S_CUR], a)
                hard_eval_into(rst, rv, a, buf, n, hw, feats, vals, wi, wf)
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
        K.apply_move(rst, rv, ev, t * 4 + e)
    return np.exp(logw)
