"""The exact solver: alpha-beta over one world, every seat playing perfectly.

Used by the world search (:func:`~dominoai.bots.pimc.search.score_world`)
when ``exact`` is set and few enough tiles are left
(:func:`~dominoai.bots.pimc.value.tiles_left`). :func:`solve_into` runs on
full engine states and serves every rule set; :func:`solve_line_into`
serves the plain line (:func:`plain_line`: no drawing, no scoring ends, no
spinner, no replacements: Block, Kozel and the like) on the hands, the two
ends and the seat to move only, and visits the same nodes in the same
order, so it returns the same value and gives up at the same node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from ...tiles import PIP_MASK, TILE_HIGH, TILE_LOW, TILE_PIPS
from .value import hand_value

__all__ = ["solve", "solve_into", "solve_line_into", "plain_line", "order_moves"]

_BIG = 1 << 40


@njit(cache=True)
def order_moves(buf, n):
    """Sort the move codes ``buf[:n]`` in place, heaviest tile first and the
    replacement last: good moves early, more cut-offs (stable)."""
    for i in range(1, n):
        c = buf[i]
        kc = -1 if c == L.MOVE_REPLACE else TILE_PIPS[c >> 2]
        j = i - 1
        while j >= 0 and (-1 if buf[j] == L.MOVE_REPLACE else TILE_PIPS[buf[j] >> 2]) < kc:
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


@njit(cache=True)
def plain_line(rv):
    """True when the rules vector ``rv`` plays a plain line: nothing is
    drawn, the ends never score, no spinner, no replacements (Block, Kozel,
    Express without drawing, the OpenSpiel presets: docs/rules.md). There a
    position is the hands, the two open pips and the seat to move, which is
    all :func:`solve_line_into` keeps."""
    return (rv[L.R_DRAWING] == 0 and rv[L.R_END_SCORING] == L.ENDS_NONE
            and rv[L.R_SPINNER] == L.SPIN_NONE and rv[L.R_MAX_REPL] == 0)


@njit(cache=True)
def _line_moves(st, out):
    """The legal moves at the line position ``st`` (its hands, ``S_CUR`` and
    the two end pips), in the order of ``kernels.legal_moves``: end 0's
    tiles by id, then end 1's unless it shows the same pip."""
    hand = st[L.S_HAND + st[L.S_CUR]]
    n = 0
    e0 = st[L.S_END_PIP]
    e1 = st[L.S_END_PIP + 1]
    m = hand & PIP_MASK[e0]
    while m:
        out[n] = K.lowest_tile(m) * 4
        m &= m - 1
        n += 1
    if e1 != e0:
        m = hand & PIP_MASK[e1]
        while m:
            out[n] = K.lowest_tile(m) * 4 + 1
            m &= m - 1
            n += 1
    return n


@njit(cache=True)
def solve_line_into(stack, bufs, meta, rv, seat, p0, nodes):
    """:func:`solve_into` for a plain line (:func:`plain_line` of ``rv``):
    the same value, node count and give-up, on the same arguments (the hand
    in ``stack[0]``, a full engine state). Below the root a position is
    only its hands, ``S_CUR`` and the two end pips (seven numbers copied
    per node, not a whole state); a hand that ends is scored by the
    engine's own ``kernels.finish_hand`` on a copy of ``stack[0]`` in the
    last row of ``stack``, so the rules of the hand end stay in one place.
    The plays, passes and the end of the hand follow ``kernels.apply_move``
    with no drawing: the seat that empties its hand dominoes; a line no
    seat can play on is blocked; else the next seat that can play moves."""
    depth = stack.shape[0] - 1
    leaf = stack[depth]
    root = stack[0]
    npl = rv[L.R_PLAYERS]
    if root[L.S_CUR] < 0:
        return hand_value(root, rv, seat, p0)
    own = K.side_of(rv, seat)
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
            nodes[0] += 1
            if nodes[0] > nodes[1] or d + 1 >= depth:
                nodes[2] = 1
                return 0
            n = _line_moves(st, bufs[d])
            order_moves(bufs[d], n)
            nm[d] = n
            mx = K.side_of(rv, st[L.S_CUR]) == own
            maxi[d] = 1 if mx else 0
            best[d] = -_BIG if mx else _BIG
            idx[d] = 0
        else:
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
        st = stack[d]
        child = stack[d + 1]
        code = bufs[d, idx[d]]
        idx[d] += 1
        cur = st[L.S_CUR]
        for i in range(npl):
            child[L.S_HAND + i] = st[L.S_HAND + i]
        t = code >> 2
        k = code & 3
        child[L.S_END_PIP + k] = TILE_HIGH[t] + TILE_LOW[t] - st[L.S_END_PIP + k]
        child[L.S_END_PIP + 1 - k] = st[L.S_END_PIP + 1 - k]
        child[L.S_HAND + cur] &= ~(np.int64(1) << t)
        alpha[d + 1] = alpha[d]
        beta[d + 1] = beta[d]
        d += 1
        status = 0
        if child[L.S_HAND + cur] == 0:
            status = L.ST_DOMINO
        else:
            om = PIP_MASK[child[L.S_END_PIP]] | PIP_MASK[child[L.S_END_PIP + 1]]
            nxt = -1
            for j in range(1, npl + 1):
                s2 = cur + j
                if s2 >= npl:
                    s2 -= npl
                if child[L.S_HAND + s2] & om:
                    nxt = s2
                    break
            if nxt < 0:
                status = L.ST_BLOCKED
            else:
                child[L.S_CUR] = nxt
        if status != 0:
            for q in range(L.S_SIZE):
                leaf[q] = root[q]
            for i in range(npl):
                leaf[L.S_HAND + i] = child[L.S_HAND + i]
            leaf[L.S_CUR] = cur
            K.finish_hand(leaf, rv, status)
            v = hand_value(leaf, rv, seat, p0)
            descend = False
        else:
            descend = True
