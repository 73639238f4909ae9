"""Fusion at the next own decision: one move for every world that looks the same.

PIMC scores a move in each world as if the searching seat would know that
world from then on: the exact solver plays every later move of the seat
with every hand in view, a different move in each world if that pays
(*strategy fusion*, Frank & Basin 1998; Long et al. 2010). With ``fusion``
the search corrects this one decision deep, in the worlds it solves exactly
(``exact``):

1. play the root move ``m`` in the world, then let the other seats move as
   the solver would on that world (each seat's best move by exact value;
   the searching seat's side maximising, the others minimising, as in
   :func:`~dominoai.bots.pimc.solver.solve_into`) until the searching seat
   is to move again or the hand is over;
2. there, solve every legal move ``m2`` of the seat, giving ``V_w(m, m2)``,
   and file the values under the seat's *information* at that decision
   (:func:`info_key`: its hand, the line, every hand's size, the boneyard's
   size, the points: what it sees, not the other hands);
3. the value of ``m`` is then ``sum over keys of max over m2 of
   sum over the key's worlds of weight_w * V_w(m, m2)``: one ``m2`` per
   information set, where PIMC takes ``sum over worlds of weight_w * max
   over m2 of V_w(m, m2)``.

Step 1's replies are each world's own best (the opponents are assumed to
see every hand, as in alpha-mu, Cazenave & Ventos 2019), so with every world
in a key of its own the fused value equals PIMC's, and it is never above it.
Worlds whose solve gives up (``max_nodes``) are rolled out as without
fusion. The key merges histories that end in the same view (a pass that
leaves the same hands and line); it is a 64-bit hash, so two different
views could in principle share a key (never observed; the chance is about
``keys**2 / 2**64``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from ...engine.rng import GOLDEN, mix64
from ...tiles import N_TILES
from .solver import plain_line, solve_into, solve_line_into
from .value import hand_value

__all__ = ["MAX_FUSED_MOVES", "FusionTables", "info_key", "new_fusion", "fused_world",
           "file_world", "fused_values_into"]

#: the most moves at the next own decision that are fused; a world with more
#: there is filed under a key of its own (PIMC's value for it)
MAX_FUSED_MOVES = 32

# a power of two above any hand size (0..N_TILES): the base in which
# info_key writes every seat's hand size as one number
_SIZE_BASE = 1 << N_TILES.bit_length()

#: The tables of a fused search (:func:`new_fusion`): the filed values
#: (``fkey``, ``frow``, ``fval``, ``fn``, ``fmove``, ``used``) and one
#: world's before they are filed (``vals2``, ``keys``, ``nn``)
FusionTables = namedtuple("FusionTables", ["fkey", "frow", "fval", "fn", "fmove", "used",
                                           "vals2", "keys", "nn"])


@njit(cache=True, inline="always")
def _mix(h, x):
    """One step of a 64-bit hash: SplitMix64's finaliser on ``(h ^ x)``
    times the generator's increment."""
    return mix64((h ^ np.uint64(x)) * GOLDEN)


@njit(cache=True)
def info_key(st, rv, seat):
    """A 64-bit key (``int64``, never 0) of what ``seat`` sees in the engine
    state ``st`` (``int64``, ``(S_SIZE,)``): its hand, the seat to move, the
    tiles on the table and the line's ends (pips and kinds, the spinner),
    the tile that must be played, every hand's size, the boneyard's size
    and the points. Two worlds of the same search with equal keys give the
    seat the same legal moves in the same order."""
    h = np.uint64(0x243F6A8885A308D3)
    h = _mix(h, st[L.S_HAND + seat])
    h = _mix(h, st[L.S_CUR] + 8)
    h = _mix(h, st[L.S_PLAYED])
    h = _mix(h, st[L.S_NPLAYED])
    for k in range(4):
        h = _mix(h, (st[L.S_END_PIP + k] + 16) * 64 + st[L.S_END_KIND + k] + 16)
    h = _mix(h, st[L.S_SPIN] + 16)
    h = _mix(h, st[L.S_MUST] + 256)
    n = 0
    for s in range(rv[L.R_PLAYERS]):
        n = n * _SIZE_BASE + K.popcount(st[L.S_HAND + s])
    h = _mix(h, n)
    h = _mix(h, K.bone_left(st))
    for s in range(4):
        h = _mix(h, st[L.S_POINTS + s] + 4096)
    k = np.int64(h >> np.uint64(1))
    return k if k != 0 else 1


@njit(cache=True)
def new_fusion(n_moves, cap):
    """The tables of a fused search over ``n_moves`` root moves and at most
    ``cap`` worlds, a :data:`FusionTables`: ``fkey`` (``int64``, ``(n_moves, T)``, 0 = empty) and
    ``frow`` (``int64``, the row of each key), an open-addressed table per
    root move (``T`` the power of two at least ``2 * cap``); ``fval``
    (``float64``, ``(n_moves * cap + 1, MAX_FUSED_MOVES)``) the summed
    weighted values per key and next move; ``fn`` (``int64``) each row's
    count of next moves and ``fmove`` (``int64``) its root move; ``used``
    (``int64``, ``(1,)``) the rows taken.
    Also ``vals2`` (``float64``, ``(n_moves, MAX_FUSED_MOVES)``), ``keys``
    and ``nn`` (``int64``, ``(n_moves,)``): one world's values before they
    are filed."""
    t = 2
    while t < 2 * cap:
        t *= 2
    rows = n_moves * cap + 1
    return FusionTables(np.zeros((n_moves, t), np.int64), np.zeros((n_moves, t), np.int64),
                        np.empty((rows, MAX_FUSED_MOVES), np.float64), np.zeros(rows, np.int64),
                        np.zeros(rows, np.int64), np.zeros(1, np.int64),
                        np.empty((n_moves, MAX_FUSED_MOVES), np.float64),
                        np.zeros(n_moves, np.int64), np.zeros(n_moves, np.int64))


@njit(cache=True, inline="always")
def _solve_after(src, code, st2, stack, bufs, meta, rv, ev, seat, p0, nodes, line):
    """The exact value for ``seat`` of the position ``src`` after the move
    ``code`` (played on ``st2``, then copied into ``stack[0]``);
    ``nodes[2]`` is set when the solver gave up."""
    for q in range(L.S_SIZE):
        st2[q] = src[q]
    K.apply_move(st2, rv, ev, code)
    st0 = stack[0]
    for q in range(L.S_SIZE):
        st0[q] = st2[q]
    nodes[0] = 0
    if line:
        return solve_line_into(stack, bufs, meta, rv, seat, p0, nodes)
    return solve_into(stack, bufs, meta, rv, ev, seat, p0, nodes)


@njit(cache=True)
def fused_world(wst, rv, codes, seat, ws, st2, tables):
    """Solve the world ``wst`` for fusion (steps 1 and 2 of the module's
    text) into ``tables`` (:data:`FusionTables`): for every root move
    ``codes[i]``, the key of the seat's next decision in ``keys[i]`` (1
    where the hand ends first, then ``nn[i] = 1`` and ``vals2[i, 0]`` the
    hand's value), its count of moves in ``nn[i]`` and their exact values
    in ``vals2[i, :nn[i]]`` (points for ``seat`` against ``ws.p0``).
    ``keys[i]`` is ``-1 - i`` (a key of its own: the world's best value in
    ``vals2[i, 0]``) where there are more than :data:`MAX_FUSED_MOVES`.
    Of the work arrays ``ws`` (:data:`~dominoai.bots.pimc.settings.Scratch`)
    it uses ``p0``, ``ev``, ``buf``, ``tmp`` and the solver's ``stack,
    bufs, meta, nodes``; ``st2`` is a state of scratch. Returns False,
    leaving the world unfiled, if a solve gave up."""
    p0, ev, buf, st1 = ws.p0, ws.ev, ws.buf, ws.tmp
    stack, bufs, meta, nodes = ws.stack, ws.bufs, ws.meta, ws.nodes
    vals2, keys, nn = tables.vals2, tables.keys, tables.nn
    line = plain_line(rv)
    own = K.side_of(rv, seat)
    nodes[2] = 0
    for mi in range(codes.shape[0]):
        for q in range(L.S_SIZE):
            st1[q] = wst[q]
        K.apply_move(st1, rv, ev, codes[mi])
        # step 1: the other seats' best moves on this world
        while st1[L.S_CUR] >= 0 and st1[L.S_CUR] != seat:
            n = K.legal_moves(st1, rv, buf)
            pick = 0
            if n > 1:
                maxi = K.side_of(rv, st1[L.S_CUR]) == own
                bv = 0
                for j in range(n):
                    v = _solve_after(st1, buf[j], st2, stack, bufs, meta, rv, ev, seat, p0,
                                     nodes, line)
                    if nodes[2]:
                        return False
                    if j == 0 or (maxi and v > bv) or (not maxi and v < bv):
                        bv = v
                        pick = j
            K.apply_move(st1, rv, ev, buf[pick])
        if st1[L.S_CUR] < 0:
            keys[mi] = 1
            nn[mi] = 1
            vals2[mi, 0] = hand_value(st1, rv, seat, p0)
            continue
        # step 2: every move of the seat's next decision, solved
        n = K.legal_moves(st1, rv, buf)
        best = 0.0
        for j in range(n):
            v = _solve_after(st1, buf[j], st2, stack, bufs, meta, rv, ev, seat, p0, nodes, line)
            if nodes[2]:
                return False
            if j < MAX_FUSED_MOVES:
                vals2[mi, j] = v
            if j == 0 or v > best:
                best = v
        if n > MAX_FUSED_MOVES:
            keys[mi] = -1 - mi
            nn[mi] = 1
            vals2[mi, 0] = best
        else:
            keys[mi] = info_key(st1, rv, seat)
            nn[mi] = n
    return True


@njit(cache=True)
def file_world(w, tables):
    """File one solved world of weight ``w`` (:func:`fused_world`'s
    ``vals2, keys, nn``) into the ``tables`` (:data:`FusionTables`): add
    ``w * vals2[i, :nn[i]]`` to the row of ``keys[i]`` under root move
    ``i`` (a new row for a new key; a key of its own, ``< 0``, always
    takes a new row)."""
    fkey, frow, fval, fn, fmove, used, vals2, keys, nn = tables
    t = fkey.shape[1]
    for mi in range(keys.shape[0]):
        key = keys[mi]
        row = -1
        if key > 0:
            h = key & (t - 1)
            while fkey[mi, h] != 0 and fkey[mi, h] != key:
                h = (h + 1) & (t - 1)
            if fkey[mi, h] == key:
                row = frow[mi, h]
            else:
                fkey[mi, h] = key
                frow[mi, h] = used[0]
        if row < 0:
            row = used[0]
            used[0] += 1
            for j in range(MAX_FUSED_MOVES):
                fval[row, j] = 0.0
            fn[row] = nn[mi]
            fmove[row] = mi
        for j in range(nn[mi]):
            fval[row, j] += w * vals2[mi, j]


@njit(cache=True)
def fused_values_into(acc, tables):
    """Add to ``acc[i]`` (``float64``, one per root move) the fused value of
    root move ``i``: the sum over its keys' rows (``tables``,
    :data:`FusionTables`) of the largest of the row's summed values (step 3
    of the module's text)."""
    fval, fn, fmove, used = tables.fval, tables.fn, tables.fmove, tables.used
    for r in range(used[0]):
        b = fval[r, 0]
        for j in range(1, fn[r]):
            if fval[r, j] > b:
                b = fval[r, j]
        acc[fmove[r]] += b
