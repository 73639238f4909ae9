"""The exact solver: alpha-beta over one world, every seat playing perfectly.

Used by the world search (:func:`~dominoai.bots.pimc.search.score_world`)
when ``exact`` is set and few enough tiles are left
(:func:`~dominoai.bots.pimc.value.tiles_left`).
"""

from __future__ import annotations

from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from ...tiles import TILE_PIPS
from .value import hand_value

__all__ = ["solve", "solve_into", "order_moves"]

_PIPS = TILE_PIPS.copy()
_BIG = 1 << 40


@njit(cache=True)
def order_moves(buf, n):
    """Sort the move codes ``buf[:n]`` in place, heaviest tile first and the
    replacement last: good moves early, more cut-offs (stable)."""
    for i in range(1, n):
        c = buf[i]
        kc = -1 if c == L.MOVE_REPLACE else _PIPS[c >> 2]
        j = i - 1
        while j >= 0 and (-1 if buf[j] == L.MOVE_REPLACE else _PIPS[buf[j] >> 2]) < kc:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = c


@njit(cache=True)
def solve(ws, rv, seat):
    """:func:`solve_into` on the scratch ``ws``
    (:data:`~dominoai.bots.pimc.settings.Scratch`): the hand in
    ``ws.stack[0]``, points before in ``ws.p0``, the node counters
    ``ws.nodes``; see there."""
    return solve_into(ws.stack, ws.bufs, ws.meta, rv, ws.ev, seat, ws.p0, ws.nodes)


@njit(cache=True)
def solve_into(stack, bufs, meta, rv, ev, seat, p0, nodes):
    """Exact value (:func:`~dominoai.bots.pimc.value.hand_value` for ``seat``,
    against the points ``p0``) of the hand in ``stack[0]`` with every seat
    playing perfectly on this world: alpha-beta, the seat's side maximising
    and every other side minimising (exact for two sides, the "paranoid"
    value for three or four). Iterative, on an explicit stack (the
    ``Scratch`` arrays: ``stack`` states ``(MAX_DEPTH, S_SIZE)``, ``bufs``
    moves, ``meta`` int64 ``(6, MAX_DEPTH)`` bookkeeping, ``ev`` an event
    log). ``nodes[0]`` counts nodes; past ``nodes[1]`` (or deeper than the
    stack) the search gives up, sets ``nodes[2] = 1`` and returns 0."""
    depth = stack.shape[0]
    nm = meta[0]
    idx = meta[1]
    alpha = meta[2]
    beta = meta[3]
    best = meta[4]
    maxi = meta[5]
    alpha[0] = -_BIG
    beta[0] = _BIG
    d = 0
    v = 0
    descend = True
    while True:
        if descend:
            st = stack[d]
            if st[L.S_CUR] < 0:
                v = hand_value(st, rv, seat, p0)
                descend = False
                continue
            nodes[0] += 1
            if nodes[0] > nodes[1] or d + 1 >= depth:
                nodes[2] = 1
                return 0
            n = K.legal_moves(st, rv, bufs[d])
            order_moves(bufs[d], n)
            nm[d] = n
            mx = K.side_of(rv, st[L.S_CUR]) == K.side_of(rv, seat)
            maxi[d] = 1 if mx else 0
            best[d] = -_BIG if mx else _BIG
            idx[d] = 0
        else:
            # v is the value of node d: hand it to the parent
            if d == 0:
                return v
            d -= 1
            if maxi[d]:
                if v > best[d]:
                    best[d] = v
                if v > alpha[d]:
                    alpha[d] = v
            else:
                if v < best[d]:
                    best[d] = v
                if v < beta[d]:
                    beta[d] = v
            if alpha[d] >= beta[d] or idx[d] >= nm[d]:
                v = best[d]
                continue
        # the next child of node d
        child = stack[d + 1]
        st = stack[d]
        for q in range(L.S_SIZE):
            child[q] = st[q]
        K.apply_move(child, rv, ev, bufs[d, idx[d]])
        idx[d] += 1
        alpha[d + 1] = alpha[d]
        beta[d + 1] = beta[d]
        d += 1
        descend = True
