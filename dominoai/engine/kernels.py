"""The rules of every preset, once, as numba kernels over flat int64 state.

Contract: every function here is ``@njit(cache=True)``, takes and returns
numpy integers/arrays only, imports nothing from the facade, and draws
randomness only from an explicit RNG state ``rs`` (``uint64`` array of shape
``(1,)``, see :func:`rng_next`). The layouts of the rules vector ``rv``, the
state ``st`` and the event log ``ev`` are in :mod:`dominoai.engine.layout`;
encodings (tile ids, ends, end kinds, move equivalence) in
``docs/conventions.md``. The rules themselves are ``docs/rules.md``.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .._numba_cache import ensure_fresh
from .._numba_inline import install as _cheaper_inlining
from ..tiles import (
    FULL_MASK, HEAVY_ORDER, MAX_PIP, N_TILES, PIP_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS, TOP_DOUBLE,
)
from .layout import (
    ENDS_NONE, ENDS_POINTS, ENDS_STRIKES, ERR_BAD_END, ERR_END_CLOSED, ERR_HAND_OVER,
    ERR_MUST_PLAY, ERR_NO_MATCH, ERR_NO_REPLACE, ERR_NOT_HELD, ERR_OK, EV_DRAW, EV_PASS,
    EV_PLAY, EV_REPLACE, HS_LOSERS_RECORD, HS_OTHERS, HS_OTHERS_MINUS_OWN, HS_STRIKES,
    LEAD_LOT, LEAD_SEAT0, LEAD_TILE, MAX_EVENTS, MAX_MOVES,
    MOVE_REPLACE, NEXT_LAST_LAYER, NEXT_WINNER, R_ALONE_00,
    R_BLOCKED_TIE, R_DRAWING, R_END_SCORING, R_FIRST_LEAD, R_FIRST_LEAD_TILE, R_FREE_REPL,
    R_HAND_SCORING, R_HAND_SIZE, R_INSTANT, R_MATCH_HANDS, R_MAX_REPL, R_NEXT_LEAD,
    R_PARTNERS, R_PLAYERS, R_RESERVE, R_ROUND, R_SCORE_OWN_PAIR, R_SPINNER, R_TARGET,
    R_TARGET_MODE, R_WINNER_BY, R_ZERO_LEAD, S_BONE, S_BONE_END, S_BONE_POS, S_CAND,
    S_CARRY, S_CUR, S_END_KIND, S_END_PIP, S_HAND, S_HAND_NO, S_LAST, S_LEAD_TILE,
    S_LEADER, S_LOG, S_MATCH_OVER, S_MATCH_WINNER, S_MUST, S_NEVENTS, S_NPLAYED,
    S_PLAYED, S_PLAYERS, S_POINTS, S_REPL, S_SCORE, S_SIZE, S_SPIN, S_SPIN_TILE,
    S_STATUS, S_VOID, S_WIN_SEAT, S_WINNER, SPIN_BASE_DOUBLE, SPIN_FIRST_DOUBLE, SPIN_NONE,
    ST_BLOCKED, ST_CUT, ST_DOMINO, ST_PLAYING, TARGET_REACH_LOSES, TIE_LEADER_ORDER,
    WIN_LIGHTEST,
)
from .rng import rng_below, rng_next  # the generator (SplitMix64), re-exported

# numba checks only a kernel's own file: remove the package's cached kernels when
# any of its sources changed, before a kernel is compiled or loaded
ensure_fresh()
# inline the package's helpers without rebuilding and deep-copying them per
# call site (the same IR, compiled in less time: see _numba_inline)
_cheaper_inlining()

_ONE = np.int64(1)
# Typed (np.int64) copies of constants passed as call arguments: a Python int
# constant reaches a callee as a literal type, which numba compiles a copy of
# the callee for (one per value); these keep one compiled copy.
_ZERO = np.int64(0)
_EV_PLAY, _EV_DRAW, _EV_PASS, _EV_REPLACE = (np.int64(x) for x in (EV_PLAY, EV_DRAW, EV_PASS, EV_REPLACE))
_PLAYING, _DOMINO, _BLOCKED, _CUT = (np.int64(x) for x in (ST_PLAYING, ST_DOMINO, ST_BLOCKED, ST_CUT))


# ---------------------------------------------------------------- bits, RNG
@intrinsic
def _ctpop(typingctx, x):
    """LLVM's ``ctpop`` on an int64: one ``popcnt`` instruction where the CPU has it."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(context.cast(builder, args[0], x, types.int64))
    return types.int64(x), codegen


@intrinsic
def _cttz(typingctx, x):
    """LLVM's ``cttz`` on an int64 (a zero input gives 64): ``tzcnt``/``bsf``."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(context.cast(builder, args[0], x, types.int64), ir.Constant(ir.IntType(1), 0))
    return types.int64(x), codegen


@njit(cache=True)
def lowest_tile(mask):
    """Id of the lowest set bit of a non-zero tile mask (int64)."""
    return _cttz(mask)


@njit(cache=True)
def popcount(mask):
    """Number of tiles in a tile mask (int64)."""
    return _ctpop(mask)


@njit(cache=True)
def tiles_into(mask, out):
    """Write the tile ids of ``mask`` into ``out`` (``int64``, at least
    ``popcount(mask)`` long), lowest first; return how many."""
    n = 0
    while mask:
        out[n] = lowest_tile(mask)
        mask &= mask - 1
        n += 1
    return n


@njit(cache=True)
def nth_tile(mask, i):
    """Id of the i-th lowest tile (0-based) of a mask holding more than i tiles."""
    for _ in range(i):
        mask &= mask - 1
    return lowest_tile(mask)


@njit(cache=True)
def shuffle_tiles(rs, perm):
    """Fill ``perm`` (int64, shape (N_TILES,)) with a uniformly random order of the tiles."""
    for i in range(N_TILES):
        perm[i] = i
    for i in range(N_TILES - 1, 0, -1):
        j = rng_below(rs, i + 1)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t


@njit(cache=True, inline="always")
def deal_perm(rs, perm, k):
    """Shuffle so that ``perm[:k]`` is a uniform random sample of the
    ``N_TILES`` tiles in random order (partial Fisher-Yates; ``k =
    N_TILES`` shuffles all)."""
    for i in range(N_TILES):
        perm[i] = i
    for i in range(min(k, N_TILES - 1)):
        j = i + rng_below(rs, N_TILES - i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t


# ---------------------------------------------------------------- queries
@njit(cache=True, inline="always")
def side_of(rv, seat):
    """Scoring side of a seat: its pair (seat % 2) in partnerships, else the seat."""
    if rv[R_PARTNERS]:
        return seat % 2
    return seat


@njit(cache=True)
def n_sides(rv):
    if rv[R_PARTNERS]:
        return 2
    return rv[R_PLAYERS]


# a tile mask in four chunks of N_TILES // 4 bits: _PIPS7[c, x] the pips of chunk c's tiles x
_CHUNK = N_TILES // 4
_CHUNK_MASK = (1 << _CHUNK) - 1
assert 4 * _CHUNK == N_TILES
_PIPS7 = np.zeros((4, _CHUNK_MASK + 1), np.int64)
for _c in range(4):
    for _x in range(_CHUNK_MASK + 1):
        _PIPS7[_c, _x] = sum(int(TILE_PIPS[_CHUNK * _c + _b]) for _b in range(_CHUNK) if _x >> _b & 1)


@njit(cache=True, inline="always")
def mask_pips(mask):
    """Total pips of the tiles in a mask (four table look-ups, a quarter of the set each)."""
    return (_PIPS7[0, mask & _CHUNK_MASK] + _PIPS7[1, (mask >> _CHUNK) & _CHUNK_MASK]
            + _PIPS7[2, (mask >> 2 * _CHUNK) & _CHUNK_MASK] + _PIPS7[3, (mask >> 3 * _CHUNK) & _CHUNK_MASK])


@njit(cache=True, inline="always")
def counted_pips(rv, mask):
    """Pips a hand counts for at the end: ``alone_00`` for a lone 0:0 (Kozel)."""
    if rv[R_ALONE_00] > 0 and mask == 1:
        return rv[R_ALONE_00]
    return mask_pips(mask)


@njit(cache=True)
def open_mask(st):
    """Mask of every tile that fits some open end (the lead: every tile)."""
    if st[S_NPLAYED] == 0:
        return np.int64(FULL_MASK)
    m = np.int64(0)
    for k in range(4):
        p = st[S_END_PIP + k]
        if p >= 0:
            m |= PIP_MASK[p]
    return m


@njit(cache=True)
def open_pips(st):
    """Bit set of the pips shown by the open ends (bit p = pip p)."""
    b = 0
    for k in range(4):
        p = st[S_END_PIP + k]
        if p >= 0:
            b |= 1 << p
    return b


@njit(cache=True)
def bone_left(st):
    """Tiles still in the boneyard."""
    return st[S_BONE_END] - st[S_BONE_POS]


@njit(cache=True)
def can_draw(st, rv):
    return rv[R_DRAWING] != 0 and bone_left(st) > rv[R_RESERVE]


@njit(cache=True)
def is_blocked(st, rv):
    """Nobody can play and nobody can draw."""
    if can_draw(st, rv):
        return False
    om = open_mask(st)
    for i in range(rv[R_PLAYERS]):
        if st[S_HAND + i] & om:
            return False
    return True


@njit(cache=True, inline="always")
def end_value(pip, kind):
    """What one end adds to the count of the ends (docs/rules.md, All Fives): its
    pip (``kind`` 0, plain), twice its pip (``kind`` 1, a double laid across),
    nothing for an unplayed spinner side (``kind`` 2) or a closed end
    (``pip`` -1). int64 in and out."""
    if pip < 0 or kind == 2:
        return 0
    if kind == 1:
        return 2 * pip
    return pip


@njit(cache=True, inline="always")
def lead_count(t):
    """The count of the ends when the lead ``t`` (tile id) is the only tile
    on the line: its pips, a double counted once (5:5 counts 10)."""
    return TILE_PIPS[t]


@njit(cache=True)
def end_count(st):
    """The count of the ends (pips, see conventions): the lone lead counts its pips."""
    if st[S_NPLAYED] == 0:
        return 0
    if st[S_NPLAYED] == 1:
        return lead_count(st[S_LEAD_TILE])
    s = 0
    for k in range(4):
        s += end_value(st[S_END_PIP + k], st[S_END_KIND + k])
    return s


@njit(cache=True, inline="always")
def count_score(mode, count, zero_lead):
    """What the count of the ends scores for the seat that laid the tile.

    ``mode``: the rules' ``R_END_SCORING`` (``ENDS_NONE``: nothing;
    ``ENDS_POINTS``: the count itself when a positive multiple of 5, All
    Fives and Fives; ``ENDS_STRIKES``: one strike per 5,
    Dominoball). ``count``: the count of the ends (:func:`end_count`).
    ``zero_lead``: strikes for leading 0:0 as the first tile (the rules'
    ``R_ZERO_LEAD`` when the line is that lone 0:0, else 0; counted in
    strike scoring only). Returns points or strikes (int64, >= 0)."""
    if mode == ENDS_NONE:
        return 0
    got = 0
    if count > 0 and count % 5 == 0:
        got = count if mode == ENDS_POINTS else count // 5
    if mode == ENDS_STRIKES:
        got += zero_lead
    return got


@njit(cache=True, inline="always")
def credit_ends(st, rv, seat, got):
    """Add ``got`` points (strikes) from the ends to the side of ``seat`` in
    this hand; return True when that reaches an instant target (Fives, seed
    002: the hand is cut short)."""
    if got == 0:
        return False
    s = side_of(rv, seat)
    st[S_POINTS + s] += got
    return rv[R_INSTANT] != 0 and st[S_SCORE + s] + st[S_POINTS + s] >= rv[R_TARGET]


@njit(cache=True)
def replace_allowed(st, rv):
    """Dominoball replacement: the seat could play, has replacements left, the
    boneyard is above its reserve, and no tile is forced."""
    cur = st[S_CUR]
    if cur < 0 or rv[R_MAX_REPL] == 0 or st[S_MUST] >= 0:
        return False
    if st[S_REPL + cur] >= rv[R_MAX_REPL] or bone_left(st) <= rv[R_RESERVE]:
        return False
    return (st[S_HAND + cur] & open_mask(st)) != 0


@njit(cache=True)
def track_kinds(rv):
    """True when an end's kind (plain, double, spinner side) matters under the
    rules vector ``rv``: a spinner, or ends that score."""
    return rv[R_SPINNER] != SPIN_NONE or rv[R_END_SCORING] != ENDS_NONE


@njit(cache=True)
def end_classes(st, rv):
    """Bit k set when open end k is the lowest-numbered end of its equivalence
    class (same pip, and same kind in presets that score the ends or have a
    spinner): the ends a move may name in the legal-move list."""
    kinds = track_kinds(rv)
    rep = 0
    for k in range(4):
        p = st[S_END_PIP + k]
        if p < 0:
            continue
        dup = False
        for j in range(k):
            if (rep >> j) & 1 and st[S_END_PIP + j] == p and (
                    not kinds or st[S_END_KIND + j] == st[S_END_KIND + k]):
                dup = True
        if not dup:
            rep |= 1 << k
    return rep


@njit(cache=True)
def legal_moves(st, rv, out):
    """Write the legal moves of the seat to decide into ``out`` (int64, at least
    ``MAX_MOVES`` long); return how many. Equivalent ends are listed once, by
    the lowest end index (conventions.md). Order: the lead's tiles by id; else
    by end, then tile id; the replacement last. 0 when the hand is over."""
    cur = st[S_CUR]
    if cur < 0:
        return 0
    hand = st[S_HAND + cur]
    tiles = hand
    if st[S_MUST] >= 0:
        tiles = hand & (_ONE << st[S_MUST])
    n = 0
    if st[S_NPLAYED] == 0:
        m = tiles
        while m:
            t = lowest_tile(m)
            m &= m - 1
            out[n] = t * 4
            n += 1
    else:
        rep = end_classes(st, rv)
        for k in range(4):
            if (rep >> k) & 1:
                m = tiles & PIP_MASK[st[S_END_PIP + k]]
                while m:
                    out[n] = lowest_tile(m) * 4 + k
                    m &= m - 1
                    n += 1
    if replace_allowed(st, rv):
        out[n] = MOVE_REPLACE
        n += 1
    return n


@njit(cache=True)
def check_move(st, rv, move):
    """0 (ERR_OK) if ``move`` is legal now at the end it names, else an ERR_ code."""
    cur = st[S_CUR]
    if cur < 0:
        return ERR_HAND_OVER
    if move == MOVE_REPLACE:
        return ERR_OK if replace_allowed(st, rv) else ERR_NO_REPLACE
    if move < 0 or move >= MOVE_REPLACE:
        return ERR_BAD_END
    t = move >> 2
    k = move & 3
    if not (st[S_HAND + cur] >> t) & 1:
        return ERR_NOT_HELD
    if st[S_MUST] >= 0 and t != st[S_MUST]:
        return ERR_MUST_PLAY
    if st[S_NPLAYED] == 0:
        return ERR_BAD_END if k > 1 else ERR_OK
    p = st[S_END_PIP + k]
    if p < 0:
        return ERR_END_CLOSED
    if TILE_HIGH[t] != p and TILE_LOW[t] != p:
        return ERR_NO_MATCH
    return ERR_OK


# ---------------------------------------------------------------- events
@njit(cache=True)
def _log(st, ev, kind, seat, a, b):
    if st[S_LOG]:
        i = st[S_NEVENTS]
        if i < MAX_EVENTS:
            ev[i, 0] = kind
            ev[i, 1] = seat
            ev[i, 2] = a
            ev[i, 3] = b
            st[S_NEVENTS] = i + 1


# ---------------------------------------------------------------- match
@njit(cache=True)
def new_match(st, rv):
    """Reset ``st`` (int64, shape (S_SIZE,)) to a match with no hand played."""
    for i in range(S_SIZE):
        st[i] = 0
    st[S_PLAYERS] = rv[R_PLAYERS]
    st[S_CUR] = -1
    st[S_LEADER] = -1
    st[S_LAST] = -1
    st[S_WIN_SEAT] = -1
    st[S_WINNER] = -1
    st[S_MATCH_WINNER] = -1
    st[S_LOG] = 1
    st[S_STATUS] = ST_PLAYING


@njit(cache=True)
def _holder(st, rv, t):
    for i in range(rv[R_PLAYERS]):
        if (st[S_HAND + i] >> t) & 1:
            return i
    return -1


@njit(cache=True, inline="always")
def clear_line(st):
    """The hand-level fields of ``st`` as at a deal: no tile on the line, no
    ends, no spinner, nothing forced or logged, no points, voids or winner
    yet. Hands, boneyard, seat to move and the match fields are untouched."""
    for i in range(4):
        st[S_POINTS + i] = 0
        st[S_VOID + i] = 0
        st[S_END_PIP + i] = -1
        st[S_END_KIND + i] = 0
    st[S_NPLAYED] = 0
    st[S_CAND] = -1
    st[S_CAND + 1] = -1
    st[S_SPIN] = 0
    st[S_SPIN_TILE] = -1
    st[S_MUST] = -1
    st[S_LAST] = -1
    st[S_STATUS] = ST_PLAYING
    st[S_WINNER] = -1
    st[S_WIN_SEAT] = -1
    st[S_PLAYED] = 0
    st[S_LEAD_TILE] = -1
    st[S_NEVENTS] = 0


@njit(cache=True)
def empty_line(rv):
    """A new scratch state (``int64``, ``(S_SIZE,)``) for ``rv``'s players with
    nothing on the line (:func:`clear_line`), for replaying public plays
    with :func:`lay`."""
    st = np.zeros(S_SIZE, np.int64)
    st[S_PLAYERS] = rv[R_PLAYERS]
    clear_line(st)
    return st


@njit(cache=True)
def start_hand(st, rv, perm, leader):
    """Deal the next hand of the match from ``perm`` (int64, shape (N_TILES,): seat i
    gets ``perm[i*hand_size:(i+1)*hand_size]``, the rest is the boneyard in
    draw order) and set its leader by the rules.

    ``leader`` is used when the rules leave the lead to lot (first hand of a
    ``lot`` preset) and must then be a seat; otherwise pass -1. Returns the
    leader, or -1 when a leader was needed and not given, -2 when the match
    is already over.
    """
    if st[S_MATCH_OVER]:
        return -2
    n = rv[R_PLAYERS]
    hs = rv[R_HAND_SIZE]
    first = st[S_HAND_NO] == 0
    prev_leader = st[S_LEADER]
    prev_win = st[S_WIN_SEAT]
    prev_last = st[S_LAST]
    for i in range(4):
        st[S_HAND + i] = 0
    for i in range(n):
        m = np.int64(0)
        for j in range(hs):
            m |= _ONE << perm[i * hs + j]
        st[S_HAND + i] = m
    nb = N_TILES - n * hs
    for j in range(N_TILES):
        st[S_BONE + j] = perm[n * hs + j] if j < nb else -1
    st[S_BONE_POS] = 0
    st[S_BONE_END] = nb
    clear_line(st)
    lead = -1
    must = -1
    if first:
        rule = rv[R_FIRST_LEAD]
        if rule == LEAD_LOT:
            lead = leader
        elif rule == LEAD_SEAT0:
            lead = 0
        elif rule == LEAD_TILE:
            must = rv[R_FIRST_LEAD_TILE]
            lead = _holder(st, rv, must)
        else:  # LEAD_HIGHEST_DOUBLE
            for d in range(MAX_PIP, -1, -1):
                t = d * (d + 1) // 2 + d
                h = _holder(st, rv, t)
                if h >= 0:
                    lead = h
                    must = t
                    break
            if lead < 0:
                for j in range(N_TILES):
                    t = HEAVY_ORDER[j]
                    h = _holder(st, rv, t)
                    if h >= 0:
                        lead = h
                        must = t
                        break
    else:
        rule = rv[R_NEXT_LEAD]
        if rule == NEXT_WINNER:
            lead = prev_win if prev_win >= 0 else (prev_leader + 1) % n
        elif rule == NEXT_LAST_LAYER:
            lead = prev_last if prev_last >= 0 else (prev_leader + 1) % n
        else:
            lead = (prev_leader + 1) % n
    if lead < 0 or lead >= n:
        st[S_CUR] = -1
        return -1
    st[S_HAND_NO] += 1
    st[S_LEADER] = lead
    st[S_CUR] = lead
    st[S_MUST] = must
    return lead


@njit(cache=True)
def _strikes_for(pips):
    """Dominoball strikes for going out against ``pips`` left (the Dominoball rules, 8.2)."""
    if pips < 3:
        return 0
    return 1 + (pips - 3) // 5


@njit(cache=True, inline="always")
def goals_for(strikes):
    """Dominoball goals: 0 below 5 strikes, then one per further 4 (the Dominoball rules, 7)."""
    if strikes < 5:
        return 0
    return 1 + (strikes - 5) // 4


@njit(cache=True)
def _round(x, r):
    if r <= 1:
        return x
    return (x + r // 2) // r * r


#: The kernels (by function name) into which :func:`finish_hand` and
#: Block's two-seat playout loop of :mod:`.fast` are inlined:
#: ``playout_on`` (``playout_fast``), the rollout of the search. A Block
#: rollout is short (about 0.3 us), so a call per rollout shows: 0.943 of
#: the playouts per CPU second when called (bench_ab, 20 rounds). The line
#: and spinner loops are called from there: inlined too, they made
#: ``playout_on`` take 42 s of CPU to compile instead of 14, while called,
#: insane decides at 0.990 (Draw) and 0.978 (All Fives) of the rate with
#: them inlined (bench_ab, 20 rounds each, within that run's noise;
#: docs/reports/2026-12-07-compile-and-suite.md). Everywhere else they are
#: called, so each is compiled once rather than once per caller; the
#: batch loop of ``simulate_fast`` calls them too (inlined there, they
#: gained at most 3% of its hands per second for 2.9 times its compile
#: time: ``fast._simulate_fused``).
INLINE_INTO = frozenset({"playout_on"})


def inline_into_batch_loops(expr, caller_ir, callee_ir) -> bool:
    """numba's inlining choice for ``njit(inline=...)``: True (inline this
    call) when the calling kernel is one of :data:`INLINE_INTO`."""
    return caller_ir.func_id.func_name in INLINE_INTO


@njit(cache=True, inline=inline_into_batch_loops)
def finish_hand(st, rv, status):
    """End the hand with ``status`` (``ST_DOMINO``, ``ST_BLOCKED`` or
    ``ST_CUT``; the hand's last tile is laid and ``st[S_CUR]`` is the seat
    that laid it): the winner, the hand-end points by ``R_HAND_SCORING``
    (rounded by ``R_ROUND``), the match scores and the match end. The one
    hand-end scoring of the engine; ``fast`` calls it too."""
    n = rv[R_PLAYERS]
    ns = n_sides(rv)
    cur = st[S_CUR]
    st[S_STATUS] = status
    st[S_CUR] = -1
    st[S_MUST] = -1
    c0 = counted_pips(rv, st[S_HAND])
    c1 = counted_pips(rv, st[S_HAND + 1])
    c2 = counted_pips(rv, st[S_HAND + 2]) if n > 2 else 0
    c3 = counted_pips(rv, st[S_HAND + 3]) if n > 3 else 0
    if rv[R_PARTNERS]:
        tot = (c0 + c2, c1 + c3, 0, 0)
    else:
        tot = (c0, c1, c2, c3)
    wside = -1
    wseat = -1
    if status == ST_CUT:
        pass
    else:
        hsm = rv[R_HAND_SCORING]
        if status == ST_DOMINO and rv[R_WINNER_BY] != WIN_LIGHTEST:
            wside = side_of(rv, cur)
            wseat = cur
        else:
            best = tot[0]
            for s in range(1, ns):
                if tot[s] < best:
                    best = tot[s]
            ntied = 0
            for s in range(ns):
                if tot[s] == best:
                    ntied += 1
                    wside = s
            if ntied > 1:
                wside = -1
                if rv[R_BLOCKED_TIE] == TIE_LEADER_ORDER and hsm != HS_LOSERS_RECORD:
                    seat = st[S_LEADER]
                    for j in range(n):
                        if tot[side_of(rv, seat)] == best:
                            wside = side_of(rv, seat)
                            break
                        seat = seat + 1 if seat + 1 < n else 0
            if wside >= 0:
                # the lightest seat of the winning side, first after the leader on ties
                bp = 1 << 30
                seat = st[S_LEADER]
                for j in range(n):
                    if side_of(rv, seat) == wside:
                        p = mask_pips(st[S_HAND + seat])
                        if p < bp:
                            bp = p
                            wseat = seat
                    seat = seat + 1 if seat + 1 < n else 0
        if hsm == HS_OTHERS_MINUS_OWN or hsm == HS_OTHERS:
            if wside >= 0:
                others = 0
                for s in range(ns):
                    if s != wside:
                        others += tot[s]
                if hsm == HS_OTHERS_MINUS_OWN:
                    pts = others - tot[wside]
                else:
                    pts = others
                    if rv[R_SCORE_OWN_PAIR] and rv[R_PARTNERS]:
                        pts += tot[wside]
                pts = _round(pts, rv[R_ROUND])
                if pts < 0:
                    pts = 0
                st[S_POINTS + wside] += pts
        elif hsm == HS_LOSERS_RECORD:
            if wside >= 0:
                lside = 1 - wside
                st[S_POINTS + lside] += tot[lside] + st[S_CARRY]
                st[S_CARRY] = 0
            else:
                st[S_CARRY] += tot[0]
        else:  # HS_STRIKES (two sides)
            if wside >= 0:
                if status == ST_DOMINO:
                    opp = st[S_HAND + (1 - wseat)] if n == 2 else 0
                    if opp == (_ONE << TOP_DOUBLE):  # a lone top double
                        s = 10
                    elif opp == 1:
                        s = 5
                    else:
                        s = _strikes_for(mask_pips(opp))
                else:
                    s = _strikes_for(tot[0] + tot[1])
                st[S_POINTS + wside] += s
    st[S_WINNER] = wside
    st[S_WIN_SEAT] = wseat
    for s in range(ns):
        st[S_SCORE + s] += st[S_POINTS + s]
    _check_match_end(st, rv)


_finish_hand = finish_hand  # the former private name


@njit(cache=True, inline="always")
def match_value(st, rv, s):
    """What decides the match for side s: goals in strike scoring, else the score."""
    if rv[R_HAND_SCORING] == HS_STRIKES:
        return goals_for(st[S_SCORE + s])
    return st[S_SCORE + s]


@njit(cache=True, inline="always")
def low_is_good(rv):
    """The kernels' twin of :attr:`dominoai.rules.Rules.low_is_good`: True when
    reaching the target loses the match (Kozel), so a side wants to
    score less than the others."""
    return rv[R_TARGET_MODE] == TARGET_REACH_LOSES


@njit(cache=True, inline="always")
def _check_match_end(st, rv):
    ns = n_sides(rv)
    if st[S_STATUS] == ST_CUT:
        # the target was reached by the ends of the last tile: its layer's side wins
        st[S_MATCH_OVER] = 1
        st[S_MATCH_WINNER] = side_of(rv, st[S_LAST])
        return
    if low_is_good(rv):
        for s in range(ns):
            if st[S_SCORE + s] >= rv[R_TARGET]:
                st[S_MATCH_OVER] = 1
                st[S_MATCH_WINNER] = 1 - s
                return
        return
    best = -1
    reached = False
    for s in range(ns):
        v = match_value(st, rv, s)
        if v > best:
            best = v
        if st[S_SCORE + s] >= rv[R_TARGET]:
            reached = True
    if rv[R_MATCH_HANDS] == 1 or reached:
        ntied = 0
        w = -1
        for s in range(ns):
            if match_value(st, rv, s) == best:
                ntied += 1
                w = s
        if ntied == 1:
            st[S_MATCH_OVER] = 1
            st[S_MATCH_WINNER] = w
        elif rv[R_MATCH_HANDS] == 1:
            st[S_MATCH_OVER] = 1
            st[S_MATCH_WINNER] = -1


# ---------------------------------------------------------------- playing
@njit(cache=True)
def _advance(st, rv, ev):
    """Forced draws and passes from the seat ``st[S_CUR]`` until a seat has a
    choice or the hand ends (conventions.md, auto-advance)."""
    n = rv[R_PLAYERS]
    while True:
        cur = st[S_CUR]
        om = open_mask(st)
        if st[S_HAND + cur] & om:
            return
        if can_draw(st, rv):
            c = 0
            fit = False
            t = -1
            while bone_left(st) > rv[R_RESERVE]:
                t = st[S_BONE + st[S_BONE_POS]]
                st[S_BONE_POS] += 1
                st[S_HAND + cur] |= _ONE << t
                c += 1
                if (om >> t) & 1:
                    fit = True
                    break
            pips = open_pips(st)
            _log(st, ev, _EV_DRAW, cur, c, pips)
            if c > 1 or not fit:
                st[S_VOID + cur] = pips  # kept new tiles may hold older void pips
            else:
                st[S_VOID + cur] |= pips
            if fit:
                st[S_MUST] = t
                return
            if is_blocked(st, rv):
                finish_hand(st, rv, _BLOCKED)
                return
        pips = open_pips(st)
        st[S_VOID + cur] |= pips
        _log(st, ev, _EV_PASS, cur, _ZERO, pips)
        st[S_CUR] = (cur + 1) % n


@njit(cache=True)
def score_ends(st, rv, seat):
    """Points or strikes from the count of the ends after ``seat`` laid a tile
    (:func:`count_score`, :func:`credit_ends`). Returns True when that
    reaches an instant target (the hand is cut short)."""
    mode = rv[R_END_SCORING]
    if mode == ENDS_NONE:
        return False
    zl = rv[R_ZERO_LEAD] if st[S_NPLAYED] == 1 and st[S_LEAD_TILE] == 0 else 0
    return credit_ends(st, rv, seat, count_score(mode, end_count(st), zl))


@njit(cache=True)
def lay(st, rv, t, k):
    """Put tile t on the line at end k (k = 0/1 orientation for the lead)."""
    mode = rv[R_SPINNER]
    dbl = TILE_IS_DOUBLE[t] != 0
    if st[S_NPLAYED] == 0:
        hi = TILE_HIGH[t]
        lo = TILE_LOW[t]
        if k == 1:
            hi, lo = lo, hi
        st[S_END_PIP] = hi
        st[S_END_PIP + 1] = lo
        kind = 1 if dbl else 0
        st[S_END_KIND] = kind
        st[S_END_KIND + 1] = kind
        st[S_LEAD_TILE] = t
        if dbl and mode != SPIN_NONE:
            st[S_CAND] = t
            st[S_CAND + 1] = t
            if mode == SPIN_FIRST_DOUBLE:
                st[S_SPIN] = 1
                st[S_SPIN_TILE] = t
    else:
        p = st[S_END_PIP + k]
        outer = TILE_HIGH[t] + TILE_LOW[t] - p
        if k < 2 and st[S_CAND + k] >= 0:
            c = st[S_CAND + k]
            st[S_CAND + k] = -1
            if st[S_CAND + 1 - k] != c and st[S_SPIN] < 2:
                # c now has tiles on both long sides
                if mode == SPIN_BASE_DOUBLE or (mode == SPIN_FIRST_DOUBLE and c == st[S_SPIN_TILE]):
                    st[S_SPIN] = 2
                    st[S_SPIN_TILE] = c
                    st[S_CAND] = -1
                    st[S_CAND + 1] = -1
                    st[S_END_PIP + 2] = TILE_HIGH[c]
                    st[S_END_PIP + 3] = TILE_HIGH[c]
                    st[S_END_KIND + 2] = 2
                    st[S_END_KIND + 3] = 2
        st[S_END_PIP + k] = outer
        st[S_END_KIND + k] = 1 if dbl else 0
        if dbl and k < 2:
            if mode == SPIN_FIRST_DOUBLE and st[S_SPIN] == 0:
                st[S_SPIN] = 1
                st[S_SPIN_TILE] = t
                st[S_CAND + k] = t
            elif mode == SPIN_BASE_DOUBLE and st[S_SPIN] < 2:
                st[S_CAND + k] = t
    st[S_NPLAYED] += 1
    st[S_PLAYED] |= _ONE << t


@njit(cache=True, inline="always")
def lay_and_score(st, rv, seat, t, k):
    """Lay tile ``t`` at end ``k`` (:func:`lay`) for ``seat`` and score the new
    count of the ends (:func:`score_ends`); no turn is passed, no event logged.
    Bots use it on a copy of a state to value a move. Returns True when the
    points reach an instant target (Fives). Inlined: as a call of
    its own it cost insane's play model (hard's values at every past
    decision) a call and two reference counts per move valued."""
    lay(st, rv, t, k)
    return score_ends(st, rv, seat)


@njit(cache=True, inline="always")
def replace_tile(st, rv, seat):
    """The Dominoball replacement by ``seat``, unlogged: it takes
    the next boneyard tile, counts one more replacement this match, and
    costs one strike of this hand's (never below 0) once past
    ``R_FREE_REPL``. The caller has checked :func:`replace_allowed`."""
    t = st[S_BONE + st[S_BONE_POS]]
    st[S_BONE_POS] += 1
    st[S_HAND + seat] |= _ONE << t
    st[S_REPL + seat] += 1
    if st[S_REPL + seat] > rv[R_FREE_REPL]:
        s = side_of(rv, seat)
        if st[S_POINTS + s] > 0:
            st[S_POINTS + s] -= 1
    st[S_VOID + seat] = 0  # the replacement tile may be anything


@njit(cache=True)
def apply_move(st, rv, ev, move):
    """Make a move the caller has checked (:func:`check_move`), then auto-advance.

    ``move`` is ``tile*4 + end`` or ``MOVE_REPLACE``. Updates the hand, and at
    its end the match fields of ``st``.
    """
    cur = st[S_CUR]
    n = rv[R_PLAYERS]
    if move == MOVE_REPLACE:
        replace_tile(st, rv, cur)
        _log(st, ev, _EV_REPLACE, cur, _ONE, -_ONE)
        return
    t = move >> 2
    k = move & 3
    st[S_HAND + cur] &= ~(_ONE << t)
    lay(st, rv, t, k)
    st[S_MUST] = -1
    st[S_LAST] = cur
    _log(st, ev, _EV_PLAY, cur, t, k)
    # one call of finish_hand with a typed (not literal) status: one compiled copy
    status = _PLAYING
    if score_ends(st, rv, cur):
        status = _CUT
    elif st[S_HAND + cur] == 0:
        status = _DOMINO
    elif is_blocked(st, rv):
        status = _BLOCKED
    if status != _PLAYING:
        finish_hand(st, rv, status)
        return
    st[S_CUR] = (cur + 1) % n
    _advance(st, rv, ev)


@njit(cache=True)
def try_move(st, rv, ev, move):
    """:func:`check_move`, then :func:`apply_move` if it is legal; returns the
    check's ERR_ code (the state is unchanged unless it is ERR_OK). One call
    instead of two from Python."""
    err = check_move(st, rv, move)
    if err == ERR_OK:
        apply_move(st, rv, ev, move)
    return err


# ---------------------------------------------------------------- playouts
@njit(cache=True)
def playout_random(st, rv, ev, rs, buf):
    """Play the current hand to its end with uniformly random legal moves.
    ``buf``: int64 scratch of at least MAX_MOVES. Returns the number of moves."""
    moves = 0
    while st[S_CUR] >= 0:
        nm = legal_moves(st, rv, buf)
        apply_move(st, rv, ev, buf[rng_below(rs, nm)])
        moves += 1
    return moves


@njit(cache=True)
def simulate(rv, seed, n_hands, stats):
    """Random first hands of fresh matches: deal, lead (by lot: a random seat),
    random legal moves to the end. Accumulates into ``stats`` (int64, shape
    (16,)): [0:4] hand wins per side, [4] domino, [5] blocked, [6] cut short,
    [7] no winner, [8:12] points per side, [12] moves. Returns nothing."""
    st = np.zeros(S_SIZE, np.int64)
    ev = np.zeros((MAX_EVENTS, 4), np.int64)
    perm = np.zeros(N_TILES, np.int64)
    buf = np.zeros(MAX_MOVES, np.int64)
    rs = np.zeros(1, np.uint64)
    rs[0] = np.uint64(seed)
    n = rv[R_PLAYERS]
    k = N_TILES if rv[R_DRAWING] else n * rv[R_HAND_SIZE]
    for _ in range(n_hands):
        new_match(st, rv)
        st[S_LOG] = 0
        deal_perm(rs, perm, k)
        start_hand(st, rv, perm, rng_below(rs, n))
        stats[12] += playout_random(st, rv, ev, rs, buf)
        tally(st, stats)


@njit(cache=True, inline="always")
def tally(st, stats):
    """Add a finished hand to simulation ``stats`` (int64, shape (16,)):
    [0:4] hand wins per side, [4] domino, [5] blocked, [6] cut short,
    [7] no winner, [8:12] points per side ([12] moves: the caller's)."""
    w = st[S_WINNER]
    if w >= 0:
        stats[w] += 1
    else:
        stats[7] += 1
    stats[3 + st[S_STATUS]] += 1
    for s in range(4):
        stats[8 + s] += st[S_POINTS + s]
