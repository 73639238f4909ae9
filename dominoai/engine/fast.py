"""Fast random playouts: the hot loop of simulations and rollouts.

``playout_fast`` plays the current hand of a state to its end with uniformly
random legal moves, like :func:`kernels.playout_random`, and ``simulate_fast``
is :func:`kernels.simulate` with it. For the shapes of rules they were written
for, fused loops keep the open ends in registers and check for a block only
when a seat cannot play; every other rules vector falls back to the kernels'
own loop. Either way the RNG is drawn in exactly the same order as
``playout_random`` (one ``rng_below(n_legal)`` per decision over the
``legal_moves`` order), so both give identical hands for the same seed
(``tests/test_fast.py``, ``tests/test_fast_rules.py``: every valid ``Rules``).

The shapes (``playout_path`` picks the first that holds; the rules vector
``rv`` is ``Rules.vector()``, fields as in :mod:`.layout`):

===============  ===========================================================
``PATH_BLOCK2``  ``R_PLAYERS`` 2 (so no partnerships), ``R_DRAWING`` 0 (so
                 no boneyard reserve, no replacements), ``R_SPINNER``
                 ``SPIN_NONE``, ``R_END_SCORING`` ``ENDS_NONE``,
                 ``R_MAX_REPL`` 0. Block, Express, OpenSpiel's block game.
``PATH_LINE``    ``R_PLAYERS`` 2..4, ``R_PARTNERS`` 0 or 1, ``R_DRAWING`` 0
                 or 1 with any ``R_RESERVE`` >= 0, ``R_SPINNER``
                 ``SPIN_NONE``, ``R_END_SCORING`` any of ``ENDS_NONE`` /
                 ``ENDS_POINTS`` / ``ENDS_STRIKES`` (with ``R_ZERO_LEAD``,
                 ``R_INSTANT`` / ``R_TARGET``), ``R_MAX_REPL`` 0. Draw,
                 Fives, Kozel, OpenSpiel's team game, Block/Express with more
                 seats.
``PATH_SPINNER`` as ``PATH_LINE``, and ``R_SPINNER`` any of ``SPIN_NONE`` /
                 ``SPIN_FIRST_DOUBLE`` / ``SPIN_BASE_DOUBLE``, ``R_MAX_REPL``
                 >= 0 with ``R_FREE_REPL`` >= 0. All Fives, Dominoball.
``PATH_KERNELS`` anything else: ``kernels.playout_random`` /
                 ``kernels.simulate``.
===============  ===========================================================

``simulate_fast`` (random first hands, the statistics of
:func:`kernels.simulate`) has one more loop, for the *pair shape*
(``in_pair_shape``: ``PATH_BLOCK2`` with the lead by lot, seat 0 or the
highest double and Block's or Express's hand scoring): deal, lead, moves,
hand end and statistics all in registers, the generator's state too, with
the same draws in the same order. ``simulate_lanes`` plays several seeds'
hands at once, interleaved in the pair shape, each seed's hands those it
plays alone.

The two-seat loops (``PATH_BLOCK2`` and the pair loops) are built from the
register kernels of :mod:`.block2` (a hand, its moves, its lay, the pair's
deal, turn and score), which the batched environment's fused step
(:mod:`dominoai.learn.kernels`) shares.

The fields the loops leave to shared kernel code take any value in every
shape: the hand's end (winner, ``R_HAND_SCORING``, ``R_ROUND``,
``R_BLOCKED_TIE``, ``R_WINNER_BY``, ``R_SCORE_OWN_PAIR``, ``R_ALONE_00``, the
match fields) is :func:`kernels.finish_hand`; the count of the ends and what
it scores are :func:`kernels.end_value`, :func:`kernels.lead_count`,
:func:`kernels.count_score` and :func:`kernels.credit_ends`; a replacement
is :func:`kernels.replace_tile`; the deal and lead (``R_HAND_SIZE``,
``R_FIRST_LEAD``, ``R_NEXT_LEAD``) are :func:`kernels.start_hand`. The
fused loops log no events and keep no public deductions (``S_VOID``).
"""

import numpy as np
from numba import njit

from .kernels import (
    count_score, credit_ends, deal_perm, end_value, finish_hand, inline_into_batch_loops,
    lead_count, new_match, nth_tile, playout_random, popcount, replace_tile, rng_below,
    simulate, start_hand, tally,
)
from ..tiles import N_TILES, PIP_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW
from . import block2 as B
from .layout import (
    ENDS_NONE, ENDS_POINTS, ENDS_STRIKES, HS_OTHERS, HS_OTHERS_MINUS_OWN,
    LEAD_HIGHEST_DOUBLE, LEAD_LOT, LEAD_SEAT0, MAX_EVENTS, MAX_MOVES,
    R_DRAWING, R_END_SCORING, R_FIRST_LEAD, R_FREE_REPL, R_HAND_SCORING, R_HAND_SIZE, R_MAX_REPL,
    R_PARTNERS, R_PLAYERS, R_RESERVE, R_SPINNER, R_ZERO_LEAD,
    S_BONE, S_BONE_END, S_BONE_POS, S_CAND, S_CARRY, S_CUR, S_END_KIND, S_END_PIP, S_HAND,
    S_HAND_NO, S_LAST, S_LEAD_TILE, S_LOG, S_MATCH_OVER, S_MATCH_WINNER, S_MUST, S_NPLAYED,
    S_PLAYED, S_REPL, S_SCORE, S_SIZE, S_SPIN, S_SPIN_TILE, SPIN_BASE_DOUBLE, SPIN_FIRST_DOUBLE,
    SPIN_NONE, ST_BLOCKED, ST_CUT, ST_DOMINO,
)

#: ``playout_path`` values: which loop plays a rules vector
PATH_KERNELS, PATH_BLOCK2, PATH_LINE, PATH_SPINNER = 0, 1, 2, 3

_ONE = np.int64(1)


# ---------------------------------------------------------------- shapes
@njit(cache=True, inline="always")
def _seats_and_scoring_known(rv):
    """The fields every fused loop reads, at values they were written for:
    2..4 seats (pairs only with 4), drawing 0 or 1 with a reserve >= 0, end
    scoring none, points or strikes."""
    n = rv[R_PLAYERS]
    return (2 <= n <= 4 and (rv[R_PARTNERS] == 0 or (rv[R_PARTNERS] == 1 and n == 4))
            and (rv[R_DRAWING] == 0 or rv[R_DRAWING] == 1) and rv[R_RESERVE] >= 0
            and (rv[R_END_SCORING] == ENDS_NONE or rv[R_END_SCORING] == ENDS_POINTS
                 or rv[R_END_SCORING] == ENDS_STRIKES))


@njit(cache=True, inline="always")
def in_line_shape(rv):
    """True when ``rv`` (int64 rules vector, shape ``(R_SIZE,)``) is in the
    shape of ``PATH_LINE``: 2..4 seats (pairs only with 4), drawing 0 or 1
    with a reserve >= 0, any end scoring (none, points, strikes), no
    spinner, no replacements. Other fields: any (see the module docstring)."""
    return _seats_and_scoring_known(rv) and rv[R_SPINNER] == SPIN_NONE and rv[R_MAX_REPL] == 0


@njit(cache=True, inline="always")
def in_block2_shape(rv):
    """True when ``rv`` is in the shape of ``PATH_BLOCK2``: the line shape
    with two seats, no drawing and no end scoring."""
    return (in_line_shape(rv) and rv[R_PLAYERS] == 2 and rv[R_DRAWING] == 0
            and rv[R_END_SCORING] == ENDS_NONE)


@njit(cache=True, inline="always")
def in_spinner_shape(rv):
    """True when ``rv`` is in the shape of ``PATH_SPINNER``: as the line
    shape, but any spinner (none, first double, base double) and any number
    of replacements (``R_MAX_REPL`` >= 0, ``R_FREE_REPL`` >= 0)."""
    sp = rv[R_SPINNER]
    return (_seats_and_scoring_known(rv)
            and (sp == SPIN_NONE or sp == SPIN_FIRST_DOUBLE or sp == SPIN_BASE_DOUBLE)
            and rv[R_MAX_REPL] >= 0 and rv[R_FREE_REPL] >= 0)


@njit(cache=True, inline="always")
def playout_path(rv):
    """Which loop plays the rules vector ``rv`` (int64, shape ``(R_SIZE,)``):
    ``PATH_BLOCK2``, ``PATH_LINE`` or ``PATH_SPINNER`` when ``rv`` is in that
    fused loop's shape (the first that holds, in this order), else
    ``PATH_KERNELS`` (``kernels.playout_random``)."""
    if in_block2_shape(rv):
        return PATH_BLOCK2
    if in_line_shape(rv):
        return PATH_LINE
    if in_spinner_shape(rv):
        return PATH_SPINNER
    return PATH_KERNELS


@njit(cache=True, inline="always")
def _next_seat(st, n, cur, om, drawing, reserve):
    """After ``cur`` laid a tile (not its last): the next seat that will decide,
    doing the forced draws on the way (a drawn tile that fits becomes
    ``S_MUST``; seats that cannot play pass, unlogged); -1 if the hand is
    blocked. ``n``: seats; ``om``: mask of the tiles that fit an open end."""
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


@njit(cache=True, inline=inline_into_batch_loops)
def _playout_block2(st, rs):
    """playout_fast in the shape ``in_block2_shape`` (two seats, no drawing,
    no end scoring, no spinner: Block, Express and OpenSpiel's block game
    with two players), from a state with a seat to decide: the hand is a
    :class:`~.block2.Hand2` in registers, the generator state too, and
    every move is a uniform draw over ``legal_moves``' list (one draw even
    for a single move). Returns (moves, status); the caller ends the hand."""
    h = B.load(st, ())
    r = rs[0]
    moves = 0
    while True:
        r, t, end = B.random_tile_end(r, B.playable(h), h.npl, h.e0, h.e1)
        h, status = B.lay_on(h, t, end)
        moves += 1
        if status:
            break
    B.store(st, (), h, False)
    rs[0] = r
    return moves, status


@njit(cache=True)
def _playout_line(st, rv, rs, ev, emode):
    """playout_fast in the shape ``in_line_shape`` (a two-ended line: no
    spinner or base, no replacement): the ends and counters live in
    registers and are written back at the end. ``emode`` is the rules'
    ``R_END_SCORING``: ``_simulate_fused`` passes it as a constant where the
    presets use one; ``playout_on`` passes the rules' value (it calls this
    loop: :data:`kernels.INLINE_INTO`)."""
    n = rv[R_PLAYERS]
    drawing = rv[R_DRAWING] != 0
    reserve = rv[R_RESERVE]
    scoring = emode != ENDS_NONE
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
    status = np.int64(0)  # typed, not a literal: one compiled finish_hand
    while True:
        hand = st[S_HAND + cur]
        tiles = hand if must < 0 else (hand & (_ONE << must))
        moves += 1
        if nplayed == 0:
            # the lead: any of its tiles, higher pip on the left
            t = nth_tile(tiles, rng_below(rs, popcount(tiles)))
            lp = TILE_HIGH[t]
            rp = TILE_LOW[t]
            lk = TILE_IS_DOUBLE[t]
            rk = lk
            st[S_LEAD_TILE] = t
        else:
            ml = tiles & PIP_MASK[lp]
            if rp == lp and (not scoring or rk == lk):
                mr = np.int64(0)
            else:
                mr = tiles & PIP_MASK[rp]
            cl = popcount(ml)
            x = rng_below(rs, cl + popcount(mr))
            if x < cl:
                t = nth_tile(ml, x)
                lp = TILE_HIGH[t] + TILE_LOW[t] - lp
                lk = TILE_IS_DOUBLE[t]
            else:
                t = nth_tile(mr, x - cl)
                rp = TILE_HIGH[t] + TILE_LOW[t] - rp
                rk = TILE_IS_DOUBLE[t]
        must = -1
        hand &= ~(_ONE << t)
        st[S_HAND + cur] = hand
        last = cur
        played |= _ONE << t
        nplayed += 1
        if scoring:
            if nplayed == 1:
                c = lead_count(t)
                zl = rv[R_ZERO_LEAD] if t == 0 else 0
            else:
                c = end_value(lp, lk) + end_value(rp, rk)
                zl = 0
            if credit_ends(st, rv, cur, count_score(emode, c, zl)):
                status = ST_CUT
                break
        if hand == 0:
            status = ST_DOMINO
            break
        om = PIP_MASK[lp] | PIP_MASK[rp]
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
            nxt = _next_seat(st, n, cur, om, drawing, reserve)
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
    finish_hand(st, rv, status)
    return moves


@njit(cache=True)
def playout_fast(st, rv, rs, ev):
    """Play the hand in ``st`` (int64, shape ``(S_SIZE,)``) to its end with
    uniformly random legal moves under the rules vector ``rv`` (int64, shape
    ``(R_SIZE,)``), drawing from the RNG state ``rs`` (uint64, shape
    ``(1,)``); return the number of decisions (0 when the hand is over).

    The same moves, final state and RNG state as
    :func:`kernels.playout_random`, except that no events are logged (the
    ``S_LOG`` flag is ignored) and the fused loops do not update ``S_VOID``:
    ``ev`` (any ``(MAX_EVENTS, 4)`` int64 array) is scratch space, its first
    rows overwritten. The loop is the fused one of ``playout_path(rv)``, or
    ``kernels.playout_random`` (logging switched off for the call) outside
    the fused shapes: :func:`playout_on` with that path."""
    return playout_on(st, rv, rs, ev, playout_path(rv))


@njit(cache=True)
def playout_on(st, rv, rs, ev, path):
    """:func:`playout_fast` with its loop chosen by the caller: ``path`` must
    be ``playout_path(rv)``. A search that plays many rollouts under one
    rules vector decides the path once (it cost about 4% of a Block
    rollout). Block's loop is inlined here, the others are called
    (``kernels.INLINE_INTO``)."""
    if st[S_CUR] < 0:
        return 0
    if path == PATH_BLOCK2:
        moves, status = _playout_block2(st, rs)
        finish_hand(st, rv, status)
        return moves
    if path == PATH_LINE:
        return _playout_line(st, rv, rs, ev, rv[R_END_SCORING])
    if path == PATH_SPINNER:
        return _playout_general(st, rv, rs, ev, rv[R_PLAYERS], rv[R_DRAWING] != 0, rv[R_RESERVE],
                                rv[R_MAX_REPL], rv[R_SPINNER], rv[R_END_SCORING])
    return _playout_kernels(st, rv, rs, ev)


@njit(cache=True)
def _playout_kernels(st, rv, rs, ev):
    """The fallback of :func:`playout_on` outside the fused shapes:
    ``kernels.playout_random`` with logging switched off for the call (a
    kernel of its own, so that its move buffer's allocation stays out of
    the fused loops' code)."""
    log = st[S_LOG]
    st[S_LOG] = 0
    moves = playout_random(st, rv, ev, rs, np.empty(MAX_MOVES, np.int64))
    st[S_LOG] = log
    return moves


@njit(cache=True)
def _playout_general(st, rv, rs, ev, n, drawing, reserve, max_repl, mode, emode):
    """playout_fast in the shape ``in_spinner_shape`` (any line: spinner,
    base, replacements): the four ends live in a small local array, the
    spinner state in registers.

    ``n``, ``drawing``, ``reserve``, ``max_repl``, ``mode``, ``emode`` are the
    rules fields ``R_PLAYERS``, ``R_DRAWING != 0``, ``R_RESERVE``,
    ``R_MAX_REPL``, ``R_SPINNER`` and ``R_END_SCORING`` of ``rv``
    (``_simulate_fused`` passes Dominoball's as constants); ``playout_on``
    calls the loop (:data:`kernels.INLINE_INTO`)."""
    kinds = mode != SPIN_NONE or emode != ENDS_NONE
    st[S_LOG] = 0
    moves = 0
    cur = st[S_CUR]
    if cur < 0:
        return 0
    ep = ev[0]  # the four ends' pips and kinds: scratch rows of the (unused) event log
    ek = ev[1]
    status = np.int64(0)  # typed, not a literal: one compiled finish_hand
    # the line in registers
    for q in range(4):
        ep[q] = st[S_END_PIP + q]
        ek[q] = st[S_END_KIND + q]
    c0 = st[S_CAND]
    c1 = st[S_CAND + 1]
    spin = st[S_SPIN]
    spin_tile = st[S_SPIN_TILE]
    nplayed = st[S_NPLAYED]
    played = st[S_PLAYED]
    last = st[S_LAST]
    must = st[S_MUST]
    while True:
        hand = st[S_HAND + cur]
        tiles = hand if must < 0 else (hand & (_ONE << must))
        ra = 0
        if max_repl > 0 and must < 0 and st[S_REPL + cur] < max_repl and \
                st[S_BONE_POS] < st[S_BONE_END] - reserve:
            ra = 1
        moves += 1
        if nplayed == 0:
            c = popcount(tiles)
            r = rng_below(rs, c + ra)
            if r == c:
                replace_tile(st, rv, cur)
                continue
            t = nth_tile(tiles, r)
            k = 0
        else:
            # the ends a move may name: the first of each class (pip, and kind
            # where kinds count), as kernels.end_classes; ``seen``: bit 3*pip+kind
            rep = 0
            total = 0
            seen = 0
            for q in range(4):
                p = ep[q]
                if p < 0:
                    continue
                key = _ONE << (3 * p + ek[q] if kinds else p)
                if not (seen & key):
                    seen |= key
                    rep |= 1 << q
                    total += popcount(tiles & PIP_MASK[p])
            r = rng_below(rs, total + ra)
            if r == total:
                replace_tile(st, rv, cur)
                continue
            k = 0
            t = 0
            for q in range(4):
                if (rep >> q) & 1:
                    m = tiles & PIP_MASK[ep[q]]
                    c = popcount(m)
                    if r < c:
                        k = q
                        t = nth_tile(m, r)
                        break
                    r -= c
        # lay t at k (same logic as kernels.lay)
        dbl = TILE_IS_DOUBLE[t] != 0
        if nplayed == 0:
            ep[0] = TILE_HIGH[t]
            ep[1] = TILE_LOW[t]
            ek[0] = 1 if dbl else 0
            ek[1] = ek[0]
            st[S_LEAD_TILE] = t
            if dbl and mode != SPIN_NONE:
                c0 = t
                c1 = t
                if mode == SPIN_FIRST_DOUBLE:
                    spin = 1
                    spin_tile = t
        else:
            outer = TILE_HIGH[t] + TILE_LOW[t] - ep[k]
            if k < 2:
                cand = c0 if k == 0 else c1
                if cand >= 0:
                    other = c1 if k == 0 else c0
                    if k == 0:
                        c0 = -1
                    else:
                        c1 = -1
                    if other != cand and spin < 2 and (
                            mode == SPIN_BASE_DOUBLE or cand == spin_tile):
                        spin = 2
                        spin_tile = cand
                        c0 = -1
                        c1 = -1
                        ep[2] = TILE_HIGH[cand]
                        ep[3] = TILE_HIGH[cand]
                        ek[2] = 2
                        ek[3] = 2
            ep[k] = outer
            ek[k] = 1 if dbl else 0
            if dbl and k < 2:
                if mode == SPIN_FIRST_DOUBLE and spin == 0:
                    spin = 1
                    spin_tile = t
                    if k == 0:
                        c0 = t
                    else:
                        c1 = t
                elif mode == SPIN_BASE_DOUBLE and spin < 2:
                    if k == 0:
                        c0 = t
                    else:
                        c1 = t
        nplayed += 1
        played |= _ONE << t
        must = -1
        hand &= ~(_ONE << t)
        st[S_HAND + cur] = hand
        last = cur
        # the count of the ends
        if emode != ENDS_NONE:
            if nplayed == 1:
                cnt = lead_count(t)
                zl = rv[R_ZERO_LEAD] if t == 0 else 0
            else:
                cnt = 0
                for q in range(4):
                    cnt += end_value(ep[q], ek[q])
                zl = 0
            if credit_ends(st, rv, cur, count_score(emode, cnt, zl)):
                status = ST_CUT
                break
        if hand == 0:
            status = ST_DOMINO
            break
        om = np.int64(0)
        for q in range(4):
            if ep[q] >= 0:
                om |= PIP_MASK[ep[q]]
        st[S_MUST] = -1
        nxt = _next_seat(st, n, cur, om, drawing, reserve)
        must = st[S_MUST]
        if nxt < 0:
            status = ST_BLOCKED
            break
        cur = nxt
    # write the line back
    for q in range(4):
        st[S_END_PIP + q] = ep[q]
        st[S_END_KIND + q] = ek[q]
    st[S_CAND] = c0
    st[S_CAND + 1] = c1
    st[S_SPIN] = spin
    st[S_SPIN_TILE] = spin_tile
    st[S_NPLAYED] = nplayed
    st[S_PLAYED] = played
    st[S_LAST] = last
    st[S_MUST] = must
    st[S_CUR] = cur
    st[S_MUST] = -1
    finish_hand(st, rv, status)
    return moves


@njit(cache=True)
def simulate_fast(rv, seed, n_hands, stats):
    """As :func:`kernels.simulate`: ``n_hands`` random first hands of fresh
    matches under the rules vector ``rv`` (int64, shape ``(R_SIZE,)``) from
    the integer ``seed``, accumulated into ``stats`` (int64, shape (16,),
    the same layout), with the same hands for the same seed. In the pair
    shape (``in_pair_shape``: Block, Express, OpenSpiel's block game) the
    whole hand is played in registers by a loop of its own; otherwise the
    playout is the fused loop of ``playout_path(rv)``; outside the fused
    shapes this is ``kernels.simulate`` itself."""
    if in_pair_shape(rv):
        _simulate_pair(rv, seed, n_hands, stats)
        return
    path = playout_path(rv)
    if path == PATH_KERNELS:
        simulate(rv, seed, n_hands, stats)
    else:
        _simulate_fused(rv, seed, n_hands, stats, path)


@njit(cache=True)
def _simulate_fused(rv, seed, n_hands, stats, path):
    """simulate_fast's loop for a fused ``path`` (kept apart from the
    fallback so the hot loop is compiled alone). It calls the fused loops,
    with the end scoring and Dominoball's fields as constants where the
    presets use them. numba does not inline them here
    (:data:`kernels.INLINE_INTO`): inlined, they made ``simulate_fast``
    take 111 s of CPU to compile instead of 39 (a quiet 2-core machine,
    2026-12-03) for up to 3% more hands per second (the best of 8
    alternating runs of 50,000 hands on one core: Draw 2.5%, Kozel 3.4%,
    Fives 1.6%, All Fives and Dominoball under 1%, with Block, which does
    not take this loop, at 1.6%: the noise)."""
    st = np.zeros(S_SIZE, np.int64)
    ev = np.zeros((MAX_EVENTS, 4), np.int64)
    perm = np.zeros(N_TILES, np.int64)
    rs = np.zeros(1, np.uint64)
    rs[0] = np.uint64(seed)
    n = rv[R_PLAYERS]
    k = N_TILES if rv[R_DRAWING] else n * rv[R_HAND_SIZE]
    emode = rv[R_END_SCORING]
    # Dominoball's shape: two seats drawing, a base double, strikes for the ends
    ball = (path == PATH_SPINNER and n == 2 and rv[R_DRAWING] != 0
            and rv[R_SPINNER] == SPIN_BASE_DOUBLE and rv[R_END_SCORING] == ENDS_STRIKES)
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
        # the playout by its path
        if path == PATH_BLOCK2:
            moves, status = _playout_block2(st, rs)
            finish_hand(st, rv, status)
            stats[12] += moves
        elif path == PATH_LINE:
            # end scoring as a constant where the presets use it (Draw, Kozel: none; Fives: points)
            if emode == ENDS_NONE:
                stats[12] += _playout_line(st, rv, rs, ev, ENDS_NONE)
            elif emode == ENDS_POINTS:
                stats[12] += _playout_line(st, rv, rs, ev, ENDS_POINTS)
            else:
                stats[12] += _playout_line(st, rv, rs, ev, emode)
        elif ball:
            stats[12] += _playout_general(st, rv, rs, ev, 2, True, rv[R_RESERVE], rv[R_MAX_REPL],
                                          SPIN_BASE_DOUBLE, ENDS_STRIKES)
        else:
            stats[12] += _playout_general(st, rv, rs, ev, n, rv[R_DRAWING] != 0, rv[R_RESERVE],
                                          rv[R_MAX_REPL], rv[R_SPINNER], rv[R_END_SCORING])
        tally(st, stats)


# ---------------------------------------------------------------- pair simulation
# ``simulate_fast`` for two seats of Block's shape: the whole hand (deal, lead,
# moves, hand end, statistics) in registers, the generator state too, with the
# draws of kernels.simulate in the same order (so the same hands for a seed);
# the hand's kernels are block2's.
@njit(cache=True, inline="always")
def in_pair_shape(rv):
    """True when ``simulate_fast`` plays ``rv`` (int64, shape ``(R_SIZE,)``)
    with its pair loop: the shape ``in_block2_shape`` (two seats, no drawing,
    no spinner, no end scoring), the first lead by lot, seat 0 or the highest
    double (``R_FIRST_LEAD`` not ``LEAD_TILE``), and hand scoring
    ``HS_OTHERS_MINUS_OWN`` or ``HS_OTHERS`` (not strikes; the losers'
    record needs pairs). Block, Express and OpenSpiel's block game are in
    it."""
    fl = rv[R_FIRST_LEAD]
    hsm = rv[R_HAND_SCORING]
    return (in_block2_shape(rv)
            and (fl == LEAD_LOT or fl == LEAD_SEAT0 or fl == LEAD_HIGHEST_DOUBLE)
            and (hsm == HS_OTHERS_MINUS_OWN or hsm == HS_OTHERS))


_NO_COUNTS = B.PairCounts(*(np.int64(0),) * 6)


@njit(cache=True)
def _simulate_pair(rv, seed, n_hands, stats):
    """``simulate_fast`` in the pair shape (``in_pair_shape``): the same
    statistics as ``kernels.simulate`` for the same seed, added to
    ``stats`` once at the end. Seven tiles a hand (every preset) is a
    constant of its own copy of the loop, so the deal's loops unroll."""
    if rv[R_HAND_SIZE] == 7:
        _pair_hands(rv, seed, n_hands, stats, 7)
    else:
        _pair_hands(rv, seed, n_hands, stats, rv[R_HAND_SIZE])


@njit(cache=True, inline="always")
def _pair_hands(rv, seed, n_hands, stats, hs):
    """The loop of ``_simulate_pair``, ``hs`` tiles a hand."""
    fl = rv[R_FIRST_LEAD]
    pr = B.pair_rules(rv)
    perm = np.empty(N_TILES, np.int64)
    s = np.uint64(seed)
    c = _NO_COUNTS
    moves = np.int64(0)
    for _ in range(n_hands):
        s, hc, ho, side, lp, rp = B.start_pair(s, perm, hs, fl)
        lead = side
        moves += 1
        while True:
            s, hc, ho, side, lp, rp, status = B.turn_pair(s, hc, ho, side, lp, rp)
            if status:
                break
            moves += 1
        c = B.count_hand(c, status, side, hc, ho, lead, pr)
    B.add_pair_stats(stats, c, n_hands, moves)


@njit(cache=True)
def _simulate_pair_lanes(rv, seeds, counts, stats):
    """``simulate_lanes`` in the pair shape: lane ``j`` plays ``counts[j]``
    hands from ``seeds[j]``, one turn of every unfinished lane per round, so
    that the lanes' dependency chains (generator, move choice, ends) overlap
    in the CPU; each lane's hands are those of ``_simulate_pair`` with its
    seed. Seven tiles a hand is a constant, as in ``_simulate_pair``."""
    if rv[R_HAND_SIZE] == 7:
        _pair_lanes(rv, seeds, counts, stats, 7)
    else:
        _pair_lanes(rv, seeds, counts, stats, rv[R_HAND_SIZE])


@njit(cache=True, inline="always")
def _pair_lanes(rv, seeds, counts, stats, hs):
    """The loop of ``_simulate_pair_lanes``, ``hs`` tiles a hand."""
    nl = seeds.shape[0]
    fl = rv[R_FIRST_LEAD]
    pr = B.pair_rules(rv)
    perm = np.empty(N_TILES, np.int64)
    # each lane's hand in flight: generator, the hand that laid last, the other, their seat, the leader, the ends
    ls = np.empty(nl, np.uint64)
    lhc = np.zeros(nl, np.int64)
    lho = np.zeros(nl, np.int64)
    lside = np.zeros(nl, np.int64)
    llead = np.zeros(nl, np.int64)
    llp = np.zeros(nl, np.int64)
    lrp = np.zeros(nl, np.int64)
    left = np.zeros(nl, np.int64)
    c = _NO_COUNTS
    moves = hands = np.int64(0)
    live = 0
    for j in range(nl):
        left[j] = counts[j]
        s = np.uint64(seeds[j])
        if left[j] > 0:
            s, lhc[j], lho[j], lside[j], llp[j], lrp[j] = B.start_pair(s, perm, hs, fl)
            llead[j] = lside[j]
            moves += 1
            live += 1
        ls[j] = s
    while live > 0:
        for j in range(nl):
            if left[j] == 0:
                continue
            s, hc, ho, side, lp, rp, status = B.turn_pair_flat(ls[j], lhc[j], lho[j], lside[j], llp[j], lrp[j])
            if status == 0:
                moves += 1
            else:
                c = B.count_hand(c, status, side, hc, ho, llead[j], pr)
                hands += 1
                left[j] -= 1
                if left[j] == 0:
                    live -= 1
                    continue
                s, hc, ho, side, lp, rp = B.start_pair(s, perm, hs, fl)
                llead[j] = side
                moves += 1
            ls[j] = s
            lhc[j] = hc
            lho[j] = ho
            lside[j] = side
            llp[j] = lp
            lrp[j] = rp
    B.add_pair_stats(stats, c, hands, moves)


@njit(cache=True)
def simulate_lanes(rv, seeds, counts, stats):
    """``simulate_fast(rv, seeds[j], counts[j], stats)`` for every lane
    ``j``, with the same statistics: ``seeds`` (uint64, shape ``(K,)``,
    each below 2**63) and ``counts`` (int64 >= 0, shape ``(K,)``) give each
    lane's seed and number of hands; ``stats`` (int64, shape (16,)) as
    :func:`kernels.simulate`. In the pair shape (``in_pair_shape``) the
    lanes play interleaved, one turn each in turn (four Block lanes: 1.1 to
    1.3 times the hands per CPU second of one lane through the same loop,
    ``benchmarks/bench_engine.py --prototype``); otherwise one after the
    other.

    :raises ValueError: ``counts`` and ``seeds`` differ in length, or a
        count is negative.
    """
    if counts.shape[0] != seeds.shape[0]:
        raise ValueError("simulate_lanes: seeds and counts differ in length")
    for j in range(counts.shape[0]):
        if counts[j] < 0:
            raise ValueError("simulate_lanes: a count is negative")
    if in_pair_shape(rv):
        _simulate_pair_lanes(rv, seeds, counts, stats)
        return
    for j in range(seeds.shape[0]):
        if counts[j] > 0:
            simulate_fast(rv, np.int64(seeds[j]), counts[j], stats)
