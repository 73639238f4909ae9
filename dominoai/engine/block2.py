"""Two seats of Block's shape in registers: the engine of the fast paths.

The rules this module plays are those of :func:`dominoai.engine.fast.in_block2_shape`:
two seats, no drawing (so no boneyard to draw from, no replacement), no
spinner, no end scoring. Block, Express and OpenSpiel's block game with two
players are in it. Three loops play such hands with these kernels, each
giving the same moves, states and draws as the general kernels
(:mod:`dominoai.engine.kernels`) for the same generator state:

- the random playout :func:`dominoai.engine.fast.playout_fast` (the
  search's rollouts) and the array form :func:`apply`;
- the batched environment's fused step (:mod:`dominoai.learn.kernels`);
- the pair loops of :func:`dominoai.engine.fast.simulate_fast` and
  ``simulate_lanes`` (``dominoai simulate``).

A hand in play is a :class:`Hand2` record of fourteen ``int64`` fields,
held in registers: :func:`load` reads it from a state row, :func:`lay`
lays a move on it, :func:`store` writes it back. The pair loops keep less
(the two hands as "the hand that laid last" and "the other", and the two
open pips: :func:`turn_pair`), as the statistics of a hand need no more;
:func:`score_pair` scores their hand end and :func:`count_hand` adds it to a
:class:`PairCounts` record.

Moves are the engine's codes (``tile * 4 + end``, :mod:`.layout`) in
:func:`~dominoai.engine.kernels.legal_moves`'s order: the lead's tiles by
id, else the left end's tiles by id, then the right end's (a double end
open on both sides offers its tiles once, on the left). Every kernel here is
``@njit(cache=True, inline="always")``: they are parts of loops. Those of
a turn (:func:`playable` to :func:`lay`, the pair kernels) take and return
plain integers and records of them only: an array passed to a kernel, even
an inlined one, is a reference counted (an atomic operation) at each call,
which in the batched environment's step cost a quarter of its steps per
CPU second (docs/reports/2026-12-07-one-engine.md).
"""
from typing import NamedTuple

import numpy as np
from numba import njit

from ..tiles import HEAVY_ORDER, MAX_PIP, N_TILES, PIP_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS
from . import kernels as K
from .layout import (
    HS_OTHERS_MINUS_OWN, LEAD_HIGHEST_DOUBLE, LEAD_SEAT0, R_ALONE_00, R_BLOCKED_TIE, R_HAND_SCORING,
    R_ROUND, R_WINNER_BY, S_CUR, S_END_KIND, S_END_PIP, S_HAND, S_LAST, S_LEAD_TILE, S_MUST, S_NPLAYED,
    S_PLAYED, S_VOID, ST_BLOCKED, ST_DOMINO, TIE_LEADER_ORDER, WIN_LIGHTEST,
)
from .rng import below

__all__ = ["Hand2", "load", "store", "playable", "n_moves", "nth_move", "easy_move", "lay", "apply",
           "PairRules", "PairCounts", "pair_rules", "deal_pair", "lead_pair", "start_pair", "turn_pair",
           "turn_pair_flat", "score_pair", "count_hand", "add_pair_stats"]

_ONE = np.int64(1)
_ZERO = np.int64(0)
_DOMINO = np.int64(ST_DOMINO)
_BLOCKED = np.int64(ST_BLOCKED)


# ---------------------------------------------------------------- a hand in registers
class Hand2(NamedTuple):
    """A two-seat hand in play, every field an ``int64`` (the state fields
    of :mod:`.layout` it mirrors in brackets): the seat to move or, once
    the hand is over, the seat that laid last (``S_CUR``); both hands as
    tile masks (``S_HAND``, ``S_HAND + 1``); tiles on the line
    (``S_NPLAYED``); the left and right ends' pips and kinds (``S_END_PIP``,
    ``S_END_KIND``, two each); the mask of tiles on the line (``S_PLAYED``);
    the lead tile (``S_LEAD_TILE``); the tile that must be played, -1
    (``S_MUST``); the seat that laid last (``S_LAST``); each seat's known
    voids as pip bits (``S_VOID``, ``S_VOID + 1``)."""
    cur: np.int64
    h0: np.int64
    h1: np.int64
    npl: np.int64
    e0: np.int64
    e1: np.int64
    k0: np.int64
    k1: np.int64
    played: np.int64
    lead: np.int64
    must: np.int64
    last: np.int64
    v0: np.int64
    v1: np.int64


@njit(cache=True, inline="always")
def load(st, at):
    """The :class:`Hand2` of the state row ``st[at]`` (``int64``,
    ``(S_SIZE,)``). ``at`` is the row's index as a tuple: ``()`` when
    ``st`` is the row itself, ``(g,)`` for row ``g`` of a batch of states
    (``(N, S_SIZE)``). An index rather than a view of the row: a view
    counts a reference to the array, an atomic operation per game and
    step in the batched environment."""
    return Hand2(st[at + (S_CUR,)], st[at + (S_HAND,)], st[at + (S_HAND + 1,)], st[at + (S_NPLAYED,)],
                 st[at + (S_END_PIP,)], st[at + (S_END_PIP + 1,)], st[at + (S_END_KIND,)],
                 st[at + (S_END_KIND + 1,)], st[at + (S_PLAYED,)], st[at + (S_LEAD_TILE,)], st[at + (S_MUST,)],
                 st[at + (S_LAST,)], st[at + (S_VOID,)], st[at + (S_VOID + 1,)])


@njit(cache=True, inline="always")
def store(st, at, h, voids):
    """Write the :class:`Hand2` ``h`` into the state row ``st[at]`` (as
    :func:`load`); the voids only when ``voids`` (a constant of the caller:
    the random playouts keep no public deductions, as the other fused
    loops)."""
    st[at + (S_CUR,)] = h.cur
    st[at + (S_HAND,)] = h.h0
    st[at + (S_HAND + 1,)] = h.h1
    st[at + (S_NPLAYED,)] = h.npl
    st[at + (S_END_PIP,)] = h.e0
    st[at + (S_END_PIP + 1,)] = h.e1
    st[at + (S_END_KIND,)] = h.k0
    st[at + (S_END_KIND + 1,)] = h.k1
    st[at + (S_PLAYED,)] = h.played
    st[at + (S_LEAD_TILE,)] = h.lead
    st[at + (S_MUST,)] = h.must
    st[at + (S_LAST,)] = h.last
    if voids:
        st[at + (S_VOID,)] = h.v0
        st[at + (S_VOID + 1,)] = h.v1


@njit(cache=True, inline="always")
def playable(h):
    """The tiles the seat to move of ``h`` may lay: its hand, or only the
    tile it must play."""
    hand = h.h0 if h.cur == 0 else h.h1
    return hand & (_ONE << h.must) if h.must >= 0 else hand


@njit(cache=True, inline="always")
def end_masks(tiles, npl, e0, e1):
    """The playable ``tiles`` that ``legal_moves`` lists on the left end and
    on the right end, in its order: the lead (``npl`` 0) all on the left;
    with two ends of one pip, each tile once, on the left."""
    if npl == 0:
        return tiles, _ZERO
    return tiles & PIP_MASK[e0], (tiles & PIP_MASK[e1] if e1 != e0 else _ZERO)


@njit(cache=True, inline="always")
def _nth_tile_end(m0, m1, i):
    """The ``i``-th move of the lists ``m0`` (left end) then ``m1`` (right
    end) of :func:`end_masks`, as ``(tile, end)``."""
    c0 = K.popcount(m0)
    if i < c0:
        return K.nth_tile(m0, i), _ZERO
    return K.nth_tile(m1, i - c0), _ONE


@njit(cache=True, inline="always")
def n_moves(tiles, npl, e0, e1):
    """How many moves ``legal_moves`` lists for the playable ``tiles`` (the
    lead when ``npl`` is 0, else on the ends ``e0``, ``e1``)."""
    m0, m1 = end_masks(tiles, npl, e0, e1)
    return K.popcount(m0) + K.popcount(m1)


@njit(cache=True, inline="always")
def nth_move(tiles, npl, e0, e1, i):
    """The ``i``-th move code of ``legal_moves``'s list (0-based, ``i`` below
    :func:`n_moves`) for the playable ``tiles``."""
    m0, m1 = end_masks(tiles, npl, e0, e1)
    t, end = _nth_tile_end(m0, m1, i)
    return t * 4 + end


@njit(cache=True, inline="always")
def random_tile_end(r, tiles, npl, e0, e1):
    """A uniform draw over ``legal_moves``' list for the playable ``tiles``
    (one draw even for a single move), the ends' masks computed once:
    ``(next state, tile, end)``."""
    m0, m1 = end_masks(tiles, npl, e0, e1)
    r, i = below(r, K.popcount(m0) + K.popcount(m1))
    t, end = _nth_tile_end(m0, m1, i)
    return r, t, end


@njit(cache=True, inline="always")
def easy_move(r, tiles, npl, e0, e1):
    """``easy``'s move among the playable ``tiles``: the only one, or a
    uniform draw from the generator state ``r`` (``uint64``, held in a
    local). Returns the next state and the move code."""
    n = n_moves(tiles, npl, e0, e1)
    i = _ZERO
    if n > 1:
        r, i = below(r, n)
    return r, nth_move(tiles, npl, e0, e1, i)


@njit(cache=True, inline="always")
def lay(h, v):
    """:func:`lay_on` for the legal move code ``v`` (tile ``v >> 2``, end
    ``v & 3``)."""
    return lay_on(h, v >> 2, v & 3)


@njit(cache=True, inline="always")
def lay_on(h, t, end):
    """The seat ``h.cur`` lays the tile ``t`` on the end ``end`` (0 left,
    1 right; for the lead, 1 turns the tile round), a legal move, on the
    hand ``h``:
    returns ``(the hand afterwards, status)``. Status 0: the hand goes on,
    ``cur`` the seat to move (the other one, or the same after a forced
    pass, which marks the other's voids); ``ST_DOMINO`` or ``ST_BLOCKED``:
    the hand is over, ``cur`` the seat that laid, as
    :func:`~dominoai.engine.kernels.finish_hand` expects. ``must`` is
    cleared and ``last`` is the seat that laid: the fields of
    :func:`~dominoai.engine.kernels.apply_move` for a state that logs no
    events."""
    cur = h.cur
    h0 = h.h0
    h1 = h.h1
    bit = _ONE << t
    if cur == 0:
        h0 &= ~bit
        hc, ho = h0, h1
    else:
        h1 &= ~bit
        hc, ho = h1, h0
    e0, e1, k0, k1, lead = h.e0, h.e1, h.k0, h.k1, h.lead
    hi = TILE_HIGH[t]
    lo = TILE_LOW[t]
    kind = TILE_IS_DOUBLE[t]
    if h.npl == 0:
        if end == 1:
            hi, lo = lo, hi
        e0 = hi
        e1 = lo
        k0 = kind
        k1 = kind
        lead = t
    elif end == 0:
        e0 = hi + lo - e0
        k0 = kind
    else:
        e1 = hi + lo - e1
        k1 = kind
    v0, v1 = h.v0, h.v1
    status = _ZERO
    nxt = cur
    if hc == 0:
        status = _DOMINO
    else:
        om = PIP_MASK[e0] | PIP_MASK[e1]
        if ho & om:
            nxt = 1 - cur
        elif hc & om:  # a forced pass: the other seat holds neither pip
            if cur == 0:
                v1 |= (_ONE << e0) | (_ONE << e1)
            else:
                v0 |= (_ONE << e0) | (_ONE << e1)
        else:
            status = _BLOCKED
    return Hand2(nxt, h0, h1, h.npl + 1, e0, e1, k0, k1, h.played | bit, lead, -_ONE, cur, v0, v1), status


@njit(cache=True, inline="always")
def apply(s, rv, move):
    """:func:`~dominoai.engine.kernels.apply_move` for rules in the block2
    shape on a state row ``s`` that logs no events: the same state
    afterwards, field by field (the hand's end by ``finish_hand``).
    ``move`` is a legal move code."""
    h, status = lay(load(s, ()), move)
    store(s, (), h, True)
    if status:
        K.finish_hand(s, rv, status)


# ---------------------------------------------------------------- the pair loops
# simulate_fast's hands of two seats: deal, lead, moves, hand end and
# statistics in registers, the generator's state too, with the draws of
# kernels.simulate in the same order (so the same hands for a seed).
class PairRules(NamedTuple):
    """The rules fields a pair loop's hand end reads (``int64`` each):
    ``R_HAND_SCORING``; ``R_ROUND``; ``R_BLOCKED_TIE == TIE_LEADER_ORDER``;
    ``R_WINNER_BY == WIN_LIGHTEST``; ``R_ALONE_00``."""
    hsm: np.int64
    rnd: np.int64
    tie_leader: np.int64
    lightest: np.int64
    alone: np.int64


class PairCounts(NamedTuple):
    """A pair loop's statistics so far (``int64`` each): hands won by seat
    0 and seat 1, hands nobody won, hands ended by a domino, points of seat
    0 and seat 1."""
    w0: np.int64
    w1: np.int64
    nobody: np.int64
    domino: np.int64
    p0: np.int64
    p1: np.int64


@njit(cache=True, inline="always")
def pair_rules(rv):
    """The :class:`PairRules` of the rules vector ``rv``."""
    return PairRules(rv[R_HAND_SCORING], rv[R_ROUND], np.int64(rv[R_BLOCKED_TIE] == TIE_LEADER_ORDER),
                     np.int64(rv[R_WINNER_BY] == WIN_LIGHTEST), rv[R_ALONE_00])


def _select_table():
    """``[k, b]``: the position of the k-th lowest set bit of the byte ``b`` (0 if none)."""
    out = np.zeros((8, 256), np.uint8)
    for b in range(256):
        bits = [i for i in range(8) if b >> i & 1]
        for k, i in enumerate(bits):
            out[k, b] = i
    return out


_SEL8 = _select_table()
_M32 = np.int64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _select_bit(m, k):
    """Position of the ``k``-th lowest set bit (0-based) of ``m`` (int64,
    more than ``k`` bits set): :func:`kernels.nth_tile` without a loop, so
    without a branch the CPU would mispredict; three halvings by popcount
    down to a byte, then a table."""
    c = K.popcount(m & _M32)
    up = k >= c
    m = m >> 32 if up else m
    k = k - c if up else k
    base = 32 if up else 0
    c = K.popcount(m & 0xFFFF)
    up = k >= c
    m = m >> 16 if up else m
    k = k - c if up else k
    base += 16 if up else 0
    c = K.popcount(m & 0xFF)
    up = k >= c
    m = m >> 8 if up else m
    k = k - c if up else k
    base += 8 if up else 0
    return base + np.int64(_SEL8[k, m & 0xFF])


@njit(cache=True, inline="always")
def deal_pair(s, perm, hs):
    """``kernels.deal_perm(rs, perm, 2 * hs)`` and the two hands
    ``start_hand`` builds from it, the generator state ``s`` (``uint64``)
    in a local: ``(s, hand of seat 0, hand of seat 1)``. ``perm``: int64
    scratch of ``N_TILES``."""
    for i in range(N_TILES):
        perm[i] = i
    h0 = np.int64(0)
    h1 = np.int64(0)
    k = 2 * hs
    for i in range(hs):
        s, r = below(s, N_TILES - i)
        j = i + r
        t = perm[j]
        perm[j] = perm[i]
        h0 |= _ONE << t
    for i in range(hs, min(k, N_TILES - 1)):
        s, r = below(s, N_TILES - i)
        j = i + r
        t = perm[j]
        perm[j] = perm[i]
        h1 |= _ONE << t
    if k == N_TILES:
        h1 |= _ONE << perm[N_TILES - 1]
    return s, h0, h1


@njit(cache=True, inline="always")
def lead_pair(s, h0, h1, lot, first_lead):
    """The first hand's lead (``start_hand`` and the first move of the
    playout): the seat by ``first_lead`` (``lot`` is the seat drawn by lot),
    then the tile: a random one, or the forced highest double (or heaviest
    tile), whose one-move choice still draws. Returns ``(s, hand of the
    leader after the lead, the other hand, the leader, left pip, right
    pip)``."""
    seat = lot
    must = -1
    if first_lead == LEAD_SEAT0:
        seat = 0
    elif first_lead == LEAD_HIGHEST_DOUBLE:
        held = h0 | h1
        for d in range(MAX_PIP, -1, -1):
            t = d * (d + 1) // 2 + d
            if (held >> t) & 1:
                must = t
                break
        if must < 0:
            for j in range(N_TILES):
                t = HEAVY_ORDER[j]
                if (held >> t) & 1:
                    must = t
                    break
        seat = 0 if (h0 >> must) & 1 else 1
    hc = h1 if seat else h0
    ho = h0 if seat else h1
    if must >= 0:
        s, _ = below(s, 1)  # the one-move choice: a draw, always 0
        t = must
    else:
        s, x = below(s, K.popcount(hc))
        t = K.nth_tile(hc, x)
    return s, hc & ~(_ONE << t), ho, seat, TILE_HIGH[t], TILE_LOW[t]


@njit(cache=True, inline="always")
def start_pair(s, perm, hs, fl):
    """A fresh match's first hand to its lead (``kernels.simulate``'s deal,
    lot and lead): ``(s, hand that led, other hand, leader, left pip, right
    pip)``."""
    s, h0, h1 = deal_pair(s, perm, hs)
    s, lot = below(s, 2)
    return lead_pair(s, h0, h1, lot, fl)


@njit(cache=True, inline="always")
def turn_pair(s, hc, ho, side, lp, rp):
    """One turn after a tile was laid from ``hc`` (the hand of seat ``side``;
    ``ho`` the other's; ``lp``, ``rp`` the open ends): the hand ends
    (``ST_DOMINO``: ``hc`` is empty; ``ST_BLOCKED``: neither hand fits), or
    the next seat to fit (the other, else the same) lays a random legal
    tile (``legal_moves`` order). Returns ``(s, hc, ho, side, lp, rp,
    status)``, ``hc`` the hand that laid last, status 0 while the hand
    goes on. With branches, which one hand at a time runs fastest; the
    lanes use :func:`turn_pair_flat`."""
    if hc == 0:
        return s, hc, ho, side, lp, rp, _DOMINO
    om = PIP_MASK[lp] | PIP_MASK[rp]
    if ho & om:
        hc, ho = ho, hc
        side ^= 1
    elif not (hc & om):
        return s, hc, ho, side, lp, rp, _BLOCKED
    # both ends' moves in one mask: the left end's tiles at bits 0.., the right's from bit N_TILES
    mv = hc & PIP_MASK[lp]
    if rp != lp:  # (a double end open on both sides offers its moves once, on the left)
        mv |= (hc & PIP_MASK[rp]) << N_TILES
    s, x = below(s, K.popcount(mv))
    i = K.nth_tile(mv, x)
    if i >= N_TILES:
        t = i - N_TILES
        rp = TILE_PIPS[t] - rp
    else:
        t = i
        lp = TILE_PIPS[t] - lp
    return s, hc & ~(_ONE << t), ho, side, lp, rp, _ZERO


@njit(cache=True, inline="always")
def turn_pair_flat(s, hc, ho, side, lp, rp):
    """:func:`turn_pair` with selects instead of the branches the CPU
    cannot predict (who plays, which end, the loop of ``nth_tile``): slower
    for one hand alone, but it lets the CPU overlap the turns of several
    lanes (``fast.simulate_lanes``). The same moves."""
    if hc == 0:
        return s, hc, ho, side, lp, rp, _DOMINO
    om = PIP_MASK[lp] | PIP_MASK[rp]
    # the other seat plays if it can: chosen without a branch (it is a coin flip to the CPU)
    sw = (ho & om) != 0
    h = ho if sw else hc
    ho = hc if sw else ho
    hc = h
    side ^= np.int64(sw)
    if not (hc & om):
        return s, hc, ho, side, lp, rp, _BLOCKED
    # both ends' moves in one mask: the left end's tiles at bits 0.., the right's from bit N_TILES
    # (a double end open on both sides offers its moves once, on the left)
    mv = (hc & PIP_MASK[lp]) | ((hc & PIP_MASK[rp] & -np.int64(rp != lp)) << N_TILES)
    s, x = below(s, K.popcount(mv))
    i = _select_bit(mv, x)
    right = i >= N_TILES
    t = i - N_TILES if right else i
    p = TILE_PIPS[t]
    rp = p - rp if right else rp
    lp = lp if right else p - lp
    return s, hc & ~(_ONE << t), ho, side, lp, rp, _ZERO


@njit(cache=True, inline="always")
def score_pair(status, side, hc, ho, lead, pr):
    """``finish_hand``'s winner and points for two seats in the pair shape:
    ``(winning seat or -1, points)``. ``side`` laid last from ``hc``;
    ``lead`` led; ``pr`` is :func:`pair_rules`."""
    alone = pr.alone
    cm = alone if (alone > 0 and hc == 1) else K.mask_pips(hc)
    co = alone if (alone > 0 and ho == 1) else K.mask_pips(ho)
    if status == ST_DOMINO and not pr.lightest:
        w = side
    elif cm < co:
        w = side
    elif co < cm:
        w = side ^ 1
    elif pr.tie_leader:
        w = lead
    else:
        return np.int64(-1), np.int64(0)
    cw = cm if w == side else co
    cl = co if w == side else cm
    pts = cl - cw if pr.hsm == HS_OTHERS_MINUS_OWN else cl
    return w, max(K._round(pts, pr.rnd), 0)


@njit(cache=True, inline="always")
def count_hand(c, status, side, hc, ho, lead, pr):
    """The :class:`PairCounts` ``c`` with one more hand: ended with
    ``status``, ``side`` having laid last from ``hc`` (``ho`` the other
    hand), ``lead`` having led, under :func:`pair_rules` ``pr``."""
    w, pts = score_pair(status, side, hc, ho, lead, pr)
    return PairCounts(c.w0 + (w == 0), c.w1 + (w == 1), c.nobody + (w < 0), c.domino + (status == ST_DOMINO),
                      c.p0 + (pts if w == 0 else 0), c.p1 + (pts if w == 1 else 0))


@njit(cache=True, inline="always")
def add_pair_stats(stats, c, hands, moves):
    """Add a pair loop's :class:`PairCounts` ``c`` over ``hands`` hands and
    ``moves`` decisions to ``stats`` (int64, shape (16,), the layout of
    :func:`~dominoai.engine.kernels.simulate`)."""
    stats[0] += c.w0
    stats[1] += c.w1
    stats[7] += c.nobody
    stats[4] += c.domino
    stats[5] += hands - c.domino
    stats[8] += c.p0
    stats[9] += c.p1
    stats[12] += moves
