"""Fast random playouts: the hot loop of simulations and rollouts.

``playout_fast`` plays the current hand of a state to its end with uniformly
random legal moves, like :func:`kernels.playout_random`, but in one fused
loop that keeps the open-end mask in a register and checks for a block only
when a seat cannot play. It draws from the RNG in exactly the same order as
``playout_random`` (one ``rng_below(n_legal)`` per decision over the
``legal_moves`` order), so both give identical hands for the same seed; the
tests check that. It shares the line-laying, end-scoring and hand-end code
with :mod:`kernels`, and logs no events.
"""

import numpy as np
from numba import njit

from .kernels import (
    _advance, _finish_hand, _lay, _score_ends, apply_move, bone_left, end_classes, side_of,
    deal_perm, lowest_tile, new_match, nth_tile, popcount, rng_below, start_hand,
)
from .layout import (
    ENDS_NONE, MAX_EVENTS, MOVE_REPLACE, R_DRAWING, R_END_SCORING, R_INSTANT, R_MAX_REPL,
    R_HAND_SIZE, R_PLAYERS, S_CARRY, S_HAND_NO, S_MATCH_OVER, S_MATCH_WINNER, R_RESERVE, R_SPINNER, R_TARGET, S_BONE, S_LEAD_TILE, S_PLAYED, S_SCORE, SPIN_NONE,
    S_BONE_END, S_BONE_POS, S_CUR, S_END_KIND, S_END_PIP, S_HAND, S_LAST, S_LOG, S_MUST, S_NPLAYED, S_POINTS,
    S_REPL, S_SIZE, S_STATUS, S_WINNER, ST_BLOCKED, ST_CUT, ST_DOMINO,
)
from ..tiles import PIP_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW

_PM = PIP_MASK.copy()
_HI = TILE_HIGH.copy()
_LO = TILE_LOW.copy()
_DB = TILE_IS_DOUBLE.copy()
_ONE = np.int64(1)


@njit(cache=True)
def _open_mask(st):
    m = np.int64(0)
    for k in range(4):
        p = st[S_END_PIP + k]
        if p >= 0:
            m |= _PM[p]
    return m


@njit(cache=True)
def _next_seat(st, rv, cur, om, drawing, reserve):
    """After ``cur`` laid a tile (not its last): the next seat that will decide,
    doing the forced draws on the way (a drawn tile that fits becomes
    ``S_MUST``; seats that cannot play pass, unlogged); -1 if the hand is
    blocked. ``om``: mask of the tiles that fit an open end."""
    n = rv[R_PLAYERS]
    nxt = cur
    bpos = st[S_BONE_POS]
    bend = st[S_BONE_END] - reserve
    for _ in range(n):
        nxt = nxt + 1 if nxt + 1 < n else 0
        if st[S_HAND + nxt] & om:
            return nxt
        if drawing and bpos < bend:
            h = st[S_HAND + nxt]
            while bpos < bend:
                d = st[S_BONE + bpos]
                bpos += 1
                h |= _ONE << d
                if (om >> d) & 1:
                    st[S_HAND + nxt] = h
                    st[S_BONE_POS] = bpos
                    st[S_MUST] = d
                    return nxt
            st[S_HAND + nxt] = h
            st[S_BONE_POS] = bpos
    return -1


@njit(cache=True)
def _playout_line(st, rv, rs, ev):
    """playout_fast for a two-ended line (no spinner/base, no replacement):
    the ends and counters live in registers and are written back at the end."""
    n = rv[R_PLAYERS]
    drawing = rv[R_DRAWING] != 0
    reserve = rv[R_RESERVE]
    scoring = rv[R_END_SCORING] != ENDS_NONE
    moves = 0
    cur = st[S_CUR]
    if cur < 0:
        return 0
    lp = st[S_END_PIP]
    rp = st[S_END_PIP + 1]
    lk = st[S_END_KIND]
    rk = st[S_END_KIND + 1]
    nplayed = st[S_NPLAYED]
    played = st[S_PLAYED]
    last = st[S_LAST]
    bend = st[S_BONE_END] - reserve
    must = st[S_MUST]
    status = 0
    while True:
        hand = st[S_HAND + cur]
        tiles = hand if must < 0 else (hand & (_ONE << must))
        moves += 1
        if nplayed == 0:
            # the lead: any of its tiles, higher pip on the left
            t = nth_tile(tiles, rng_below(rs, popcount(tiles)))
            lp = _HI[t]
            rp = _LO[t]
            lk = _DB[t]
            rk = lk
            st[S_LEAD_TILE] = t
        else:
            ml = tiles & _PM[lp]
            if rp == lp and (not scoring or rk == lk):
                mr = np.int64(0)
            else:
                mr = tiles & _PM[rp]
            cl = popcount(ml)
            x = rng_below(rs, cl + popcount(mr))
            if x < cl:
                t = nth_tile(ml, x)
                lp = _HI[t] + _LO[t] - lp
                lk = _DB[t]
            else:
                t = nth_tile(mr, x - cl)
                rp = _HI[t] + _LO[t] - rp
                rk = _DB[t]
        must = -1
        hand &= ~(_ONE << t)
        st[S_HAND + cur] = hand
        last = cur
        played |= _ONE << t
        nplayed += 1
        if scoring:
            if nplayed == 1:
                c = lp + rp
            else:
                c = lp * (1 + lk) + rp * (1 + rk)
            if c > 0 and c % 5 == 0:
                sd = side_of(rv, cur)
                st[S_POINTS + sd] += c
                if rv[R_INSTANT] and st[S_SCORE + sd] + st[S_POINTS + sd] >= rv[R_TARGET]:
                    status = ST_CUT
                    break
        if hand == 0:
            status = ST_DOMINO
            break
        om = _PM[lp] | _PM[rp]
        if not drawing or st[S_BONE_POS] >= bend:
            nxt = cur
            for _ in range(n):
                nxt = nxt + 1 if nxt + 1 < n else 0
                if st[S_HAND + nxt] & om:
                    break
            if not st[S_HAND + nxt] & om:
                status = ST_BLOCKED
                break
        else:
            st[S_MUST] = -1
            nxt = _next_seat(st, rv, cur, om, drawing, reserve)
            must = st[S_MUST]
            if nxt < 0:
                status = ST_BLOCKED
                break
        cur = nxt
    st[S_END_PIP] = lp
    st[S_END_PIP + 1] = rp
    st[S_END_KIND] = lk
    st[S_END_KIND + 1] = rk
    st[S_NPLAYED] = nplayed
    st[S_PLAYED] = played
    st[S_LAST] = last
    st[S_MUST] = -1
    st[S_CUR] = cur
    _finish_hand(st, rv, status)
    return moves


@njit(cache=True)
def playout_fast(st, rv, rs, ev):
    """Play the hand in ``st`` to its end with random legal moves; return the
    number of moves. ``ev`` is only used for the rare replacement move (pass
    any (MAX_EVENTS, 4) int64 array); events are not logged."""
    if rv[R_SPINNER] == SPIN_NONE and rv[R_MAX_REPL] == 0:
        return _playout_line(st, rv, rs, ev)
    return _playout_general(st, rv, rs, ev)


@njit(cache=True)
def _playout_general(st, rv, rs, ev):
    """playout_fast for any line (spinner, base, replacement)."""
    n = rv[R_PLAYERS]
    drawing = rv[R_DRAWING] != 0
    reserve = rv[R_RESERVE]
    max_repl = rv[R_MAX_REPL]
    st[S_LOG] = 0
    moves = 0
    cur = st[S_CUR]
    while cur >= 0:
        hand = st[S_HAND + cur]
        must = st[S_MUST]
        tiles = hand if must < 0 else (hand & (_ONE << must))
        ra = 0
        if max_repl > 0 and must < 0 and st[S_REPL + cur] < max_repl and \
                st[S_BONE_POS] < st[S_BONE_END] - reserve:
            ra = 1
        if st[S_NPLAYED] == 0:
            c = popcount(tiles)
            r = rng_below(rs, c + ra)
            if r == c:
                apply_move(st, rv, ev, MOVE_REPLACE)
                moves += 1
                cur = st[S_CUR]
                continue
            t = nth_tile(tiles, r)
            k = 0
        else:
            rep = end_classes(st, rv)
            total = 0
            for kk in range(4):
                if (rep >> kk) & 1:
                    total += popcount(tiles & _PM[st[S_END_PIP + kk]])
            r = rng_below(rs, total + ra)
            if r == total:
                apply_move(st, rv, ev, MOVE_REPLACE)
                moves += 1
                cur = st[S_CUR]
                continue
            k = 0
            t = 0
            for kk in range(4):
                if (rep >> kk) & 1:
                    m = tiles & _PM[st[S_END_PIP + kk]]
                    c = popcount(m)
                    if r < c:
                        k = kk
                        t = nth_tile(m, r)
                        break
                    r -= c
        moves += 1
        # lay the tile
        hand &= ~(_ONE << t)
        st[S_HAND + cur] = hand
        _lay(st, rv, t, k)
        st[S_MUST] = -1
        st[S_LAST] = cur
        if _score_ends(st, rv, cur):
            _finish_hand(st, rv, ST_CUT)
            break
        if hand == 0:
            _finish_hand(st, rv, ST_DOMINO)
            break
        nxt = _next_seat(st, rv, cur, _open_mask(st), drawing, reserve)
        if nxt < 0:
            _finish_hand(st, rv, ST_BLOCKED)
            break
        st[S_CUR] = nxt
        cur = nxt
    return moves


@njit(cache=True)
def simulate_fast(rv, seed, n_hands, stats):
    """As :func:`kernels.simulate` (same ``stats`` layout), with fast playouts."""
    st = np.zeros(S_SIZE, np.int64)
    ev = np.zeros((MAX_EVENTS, 4), np.int64)
    perm = np.zeros(28, np.int64)
    rs = np.zeros(1, np.uint64)
    rs[0] = np.uint64(seed)
    n = rv[R_PLAYERS]
    k = 28 if rv[R_DRAWING] else n * rv[R_HAND_SIZE]
    new_match(st, rv)
    st[S_LOG] = 0
    for _ in range(n_hands):
        # a fresh match: only the match fields need resetting (start_hand does the rest)
        for s in range(4):
            st[S_SCORE + s] = 0
            st[S_REPL + s] = 0
        st[S_HAND_NO] = 0
        st[S_CARRY] = 0
        st[S_MATCH_OVER] = 0
        st[S_MATCH_WINNER] = -1
        deal_perm(rs, perm, k)
        start_hand(st, rv, perm, rng_below(rs, n))
        stats[12] += playout_fast(st, rv, rs, ev)
        w = st[S_WINNER]
        if w >= 0:
            stats[w] += 1
        else:
            stats[7] += 1
        stats[3 + st[S_STATUS]] += 1
        for s in range(4):
            stats[8 + s] += st[S_POINTS + s]
