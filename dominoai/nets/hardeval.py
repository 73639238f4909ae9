"""The ``hard`` evaluation as kernels: each legal move's features and weighted value.

Every legal move is laid on a copy of the engine state (``kernels.lay``) and
scored as ``sum(weight * feature)``; the best wins (ties: the heavier tile,
then the first listed). :data:`FEATURE_TABLE` names the features, their
default weights and help; :mod:`dominoai.bots.hard` describes each one and
makes them the ``hard`` bot's parameters. The same kernel,
:func:`hard_eval_into`, serves the ``hard`` bot, the search bots' rollouts
and play model (:mod:`dominoai.bots.pimc`), the learned policies' move
features (:mod:`dominoai.nets.features`) and the opponents inside the
learning environment's kernels.

The evaluation takes the engine state (``Observation.engine_state()``,
``int64``, ``(S_SIZE,)``), on which each move is laid, and the compact
observation array of the seat to move (``Observation.array``, ``int64``,
``(O_SIZE,)``), from which its hand and what it knows of the others are read.

Adding a feature is one table entry and one block in one kernel:

1. append ``(name, default weight, help)`` to ``FEATURE_TABLE`` (the bot's
   parameter, ``FEATURES``, ``N_FEATURES``, ``DEFAULT_WEIGHTS``, ``weights``
   and ``explain`` follow from it), with its column constant
   ``F_NAME = FEATURES.index("name")`` beside the others;
2. compute it in the move loop of :func:`hard_eval_into` (after the move
   is laid on ``tmp``, beside the other features) and write
   ``feats[i, F_NAME]``; what it needs once per decision goes before the
   loop. (The blocks stay in the one kernel rather than one inlined kernel
   each: numba then counts a reference per array argument per move, which
   made ``insane``'s Block decisions, which evaluate hard per world, about
   15% slower.)

Add a row to the table of :mod:`dominoai.bots.hard`, and keep the default
weight 0 until it is tuned: a new feature at weight 0 changes no move.
A new feature also lengthens the learned policies' action features
(:data:`dominoai.nets.features.ACTION_FEATURES`): raise their version.

Kernels are ``@njit(cache=True)``; numpy types only.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import kernels as K
from ..engine import layout as L
from ..engine.observe import O_BONE, O_HAND, O_POINTS, O_REPL, O_SCORE, O_SEAT, O_SIZES, O_UNSEEN, O_VOID
from ..tiles import (HEAVY_RANK, N_PIPS, N_TILES, PIP_MASK, PIP_SET_MASK, TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW,
                     TILE_PIP_SET, TOP_DOUBLE)

__all__ = ["FEATURES", "FEATURE_TABLE", "REPLACE_PARAM", "DEFAULT_WEIGHTS", "N_FEATURES", "N_WEIGHTS",
           "WORK_INT", "WORK_FLOAT", "hard_eval", "hard_eval_into", "hard_pick", "hard_scratch"]

#: The features, one entry each: ``(name, default weight, help)``, in the
#: order of the weight vector. A feature's value is computed in
#: the move loop of :func:`hard_eval_into`, which writes ``feats[i, F_<NAME>]``.
FEATURE_TABLE = (
    ("heavy", 0.25, "per pip shed (the hand's end count before minus after the move)"),
    ("double", 3.0, "for playing a double"),
    ("follow", 0.5, "per own tile left that fits the ends after the move"),
    ("spread", 0.75, "per distinct number among the own tiles left"),
    ("void", 6.0, "per share of the ends an opponent is known to lack (next seat 1, "
                  "others 0.5, x2 when it holds 1-2 tiles)"),
    ("lock", 4.0, "mean 1/(1+unseen tiles of each end number), + when lighter, - when heavier"),
    ("partner", 6.0, "chance the partner can follow the ends minus the next opponent's "
                     "(x3 when the partner holds 1-2 tiles)"),
    ("points", 1.0, "per point made now (a strike is 5)"),
    ("reply", 1.6, "per point of the next seat's expected best reply (subtracted)"),
)
#: the replacement threshold: the weight vector's last slot (not a feature)
REPLACE_PARAM = ("replace", -0.5, "Dominoball threshold: replace when the expected strikes "
                 "gained at once, net of the strike it costs, exceed this")

#: the features' names, in the order of the weight vector (``tuple`` of ``str``)
FEATURES = tuple(name for name, _, _ in FEATURE_TABLE)
#: the number of features (``int``, 9): the columns of ``feats``
N_FEATURES = len(FEATURES)
W_REPLACE = N_FEATURES
#: the length of the weight vector (``int``): the features, then ``replace``
N_WEIGHTS = N_FEATURES + 1
#: the default weights (``float64``, ``(N_WEIGHTS,)``, order of ``FEATURES``
#: then ``replace``); do not change it in place, copy it
DEFAULT_WEIGHTS = np.array([d for _, d, _ in FEATURE_TABLE] + [REPLACE_PARAM[1]], np.float64)
# the column of each feature in ``feats`` and ``w`` (compile-time constants)
F_HEAVY = FEATURES.index("heavy")
F_DOUBLE = FEATURES.index("double")
F_FOLLOW = FEATURES.index("follow")
F_SPREAD = FEATURES.index("spread")
F_VOID = FEATURES.index("void")
F_LOCK = FEATURES.index("lock")
F_PARTNER = FEATURES.index("partner")
F_POINTS = FEATURES.index("points")
F_REPLY = FEATURES.index("reply")

WIN_BONUS = 1000.0
REPLY_WIN = 100.0

_HIGH = TILE_HIGH.copy()
_LOW = TILE_LOW.copy()
_DBL = TILE_IS_DOUBLE.copy()
_PIPMASK = PIP_MASK.copy()
# _VOID_TILES[v]: the tiles showing any pip of the bit set v
_VOID_TILES = PIP_SET_MASK.copy()
# _PIPBITS[t]: bit set of the pips on tile t
_PIPBITS = TILE_PIP_SET.copy()
_HEAVY = HEAVY_RANK.copy()
_ONE = np.int64(1)
_LONE_TOP_DOUBLE = _ONE << TOP_DOUBLE


# ---------------------------------------------------------------- helpers
@njit(cache=True)
def hand_cost(rv, mask):
    """What a hand left at the end counts against its side, in pips: the rules'
    count (Kozel's lone 0:0 = 25); in strike scoring a lone top double (6:6)
    costs 50 and a lone 0:0 25 (the 10 and 5 strikes going out against them
    earns)."""
    if mask == 0:
        return 0
    if rv[L.R_HAND_SCORING] == L.HS_STRIKES:
        if mask == _LONE_TOP_DOUBLE:
            return 50
        if mask == 1:
            return 25
        return K.mask_pips(mask)
    return K.counted_pips(rv, mask)


@njit(cache=True)
def _pip_set(mask):
    b = 0
    while mask:
        t = K.lowest_tile(mask)
        mask &= mask - 1
        b |= _PIPBITS[t]
    return b


@njit(cache=True)
def p_any(c, f, s):
    """Chance that ``s`` tiles drawn without replacement from ``c`` tiles, ``f`` of
    them marked, include a marked one."""
    if f <= 0 or s <= 0 or c <= 0:
        return 0.0
    if s >= c or f > c - s:
        return 1.0
    q = 1.0
    for i in range(s):
        q *= (c - f - i) / (c - i)
    return 1.0 - q


@njit(cache=True)
def _contrib(pip, kind):
    if pip < 0 or kind == 2:
        return 0
    if kind == 1:
        return 2 * pip
    return pip


@njit(cache=True)
def reply_points(tmp, cand, s, threat, vals):
    """Expected best count (points) a seat holding ``s`` tiles, each drawn from
    the mask ``cand``, scores with one tile on the ends of the line ``tmp``
    (at least one tile on it). ``threat``: points at which that side reaches an
    instant target (a larger number when none); such a reply counts
    ``REPLY_WIN`` more. ``vals``: float64 scratch of at least ``N_TILES``."""
    c = K.popcount(cand)
    if c == 0 or s <= 0:
        return 0.0
    p = s / c
    if p > 1.0:
        p = 1.0
    base = 0
    for k in range(4):
        base += _contrib(tmp[L.S_END_PIP + k], tmp[L.S_END_KIND + k])
    nv = 0
    m = cand & K.open_mask(tmp)
    while m:
        u = K.lowest_tile(m)
        m &= m - 1
        best = 0
        for k in range(4):
            e = tmp[L.S_END_PIP + k]
            if e < 0 or (_HIGH[u] != e and _LOW[u] != e):
                continue
            outer = _HIGH[u] + _LOW[u] - e
            cnt = base - _contrib(e, tmp[L.S_END_KIND + k]) + (2 * outer if _DBL[u] else outer)
            if cnt > 0 and cnt % 5 == 0 and cnt > best:
                best = cnt
        if best > 0:
            v = float(best)
            if best >= threat:
                v += REPLY_WIN
            # insertion, descending
            j = nv
            while j > 0 and vals[j - 1] < v:
                vals[j] = vals[j - 1]
                j -= 1
            vals[j] = v
            nv += 1
    e = 0.0
    miss = 1.0
    for i in range(nv):
        e += vals[i] * p * miss
        miss *= 1.0 - p
    return e


@njit(cache=True)
def _est_pips(a, rv, unseen, j):
    """Expected pips in seat j's hand: its size times the mean pips of the
    unseen tiles it may hold."""
    cand = unseen & ~_VOID_TILES[a[O_VOID + j]]
    c = K.popcount(cand)
    if c == 0:
        cand = unseen
        c = K.popcount(cand)
    if c == 0:
        return 0.0
    return a[O_SIZES + j] * K.mask_pips(cand) / c


# ---------------------------------------------------------------- the kernel
#: the length of :func:`hard_eval_into`'s ``int64`` scratch ``wi``
WORK_INT = 2 * L.S_SIZE + N_PIPS
#: the length of :func:`hard_eval_into`'s ``float64`` scratch ``wf``
WORK_FLOAT = 4 + N_TILES


@njit(cache=True)
def hard_scratch():
    """Scratch for :func:`hard_eval_into` over up to ``MAX_MOVES`` moves:
    ``(feats, vals, wi, wf)``, allocated once by callers that evaluate often."""
    return (np.empty((L.MAX_MOVES, N_FEATURES), np.float64), np.empty(L.MAX_MOVES, np.float64),
            np.empty(WORK_INT, np.int64), np.empty(WORK_FLOAT, np.float64))


@njit(cache=True)
def hard_eval(st, rv, a, codes, n, w, feats, vals):
    """Evaluate the moves ``codes[:n]`` of the seat to move (see
    :func:`hard_eval_into`, which this calls with fresh scratch)."""
    return hard_eval_into(st, rv, a, codes, n, w, feats, vals,
                          np.empty(WORK_INT, np.int64), np.empty(WORK_FLOAT, np.float64))


@njit(cache=True)
def hard_eval_into(st, rv, a, codes, n, w, feats, vals, wi, wf):
    """Evaluate the moves ``codes[:n]`` of the seat to move.

    ``st``: ``Observation.engine_state()``; ``a``: ``Observation.array``;
    ``w``: float64 weights (``N_WEIGHTS``, order of ``FEATURES`` then the
    replacement threshold). Fills ``feats[i, :N_FEATURES]`` and ``vals[i]``
    (the replacement gets ``-inf`` features; its value is the best move's
    value when taken, else ``-inf``). Returns the index of the chosen move.
    ``wi`` (int64, ``WORK_INT``) and ``wf`` (float64, ``WORK_FLOAT``) are
    scratch, so that rollouts calling this at every decision allocate nothing.
    """
    seat = a[O_SEAT]
    npl = rv[L.R_PLAYERS]
    side = K.side_of(rv, seat)
    hand = a[O_HAND]
    unseen = a[O_UNSEEN]
    partner = (seat + 2) % 4 if rv[L.R_PARTNERS] else -1
    nxt = (seat + 1) % npl
    mode = rv[L.R_END_SCORING]
    per_pt = 5 if mode == L.ENDS_STRIKES else 1   # count units per point made
    instant = rv[L.R_INSTANT] != 0 and not K.low_is_good(rv)
    target = rv[L.R_TARGET]
    drawing = rv[L.R_DRAWING] != 0 and a[O_BONE] > rv[L.R_RESERVE]

    # unseen tiles per pip, and estimated pips per side
    tmp = wi[:L.S_SIZE]
    uc = wi[2 * L.S_SIZE:2 * L.S_SIZE + N_PIPS]
    est = wf[:4]
    rvals = wf[4:4 + N_TILES]
    for p in range(N_PIPS):
        uc[p] = K.popcount(unseen & _PIPMASK[p])
    for j in range(4):
        est[j] = 0.0
    for j in range(npl):
        if j != seat:
            est[j] = _est_pips(a, rv, unseen, j)
    other_best = 1e18   # the lightest other side (estimated)
    if rv[L.R_PARTNERS]:
        other_best = est[(seat + 1) % 4] + est[(seat + 3) % 4]
    else:
        for j in range(npl):
            if j != seat and est[j] < other_best:
                other_best = est[j]

    # the reply: next seat's candidate tiles and its instant-target threshold
    reply_cand = np.int64(0)
    reply_s = 0
    threat = 1 << 30
    if mode != L.ENDS_NONE and K.side_of(rv, nxt) != side:
        reply_cand = unseen & ~_VOID_TILES[a[O_VOID + nxt]]
        reply_s = a[O_SIZES + nxt]
        if instant:
            os_ = K.side_of(rv, nxt)
            threat = (target - a[O_SCORE + os_] - a[O_POINTS + os_]) * per_pt
    partner_cand = np.int64(0)
    partner_s = 0
    opp_cand = np.int64(0)
    opp_s = 0
    if partner >= 0:
        partner_cand = unseen & ~_VOID_TILES[a[O_VOID + partner]]
        partner_s = a[O_SIZES + partner]
        opp_cand = unseen & ~_VOID_TILES[a[O_VOID + nxt]]
        opp_s = a[O_SIZES + nxt]

    cost0 = hand_cost(rv, hand)
    best = -1
    bval = -np.inf
    bkey = -1
    max_pts = np.int64(0)  # typed: a literal 0 would compile replace_gain once more
    irep = -1
    for i in range(n):
        code = codes[i]
        if code == L.MOVE_REPLACE:
            irep = i
            for f in range(N_FEATURES):
                feats[i, f] = -np.inf
            vals[i] = -np.inf
            continue
        t = code >> 2
        tmp[:] = st
        before = tmp[L.S_POINTS + side]
        K.lay_and_score(tmp, rv, seat, t, code & 3)
        pts = tmp[L.S_POINTS + side] - before
        if pts > max_pts:
            max_pts = pts
        hand2 = hand & ~(_ONE << t)
        om = K.open_mask(tmp)
        rep = K.end_classes(tmp, rv)

        cost2 = hand_cost(rv, hand2)
        feats[i, F_HEAVY] = cost0 - cost2
        feats[i, F_DOUBLE] = _DBL[t]
        feats[i, F_FOLLOW] = K.popcount(hand2 & om)
        feats[i, F_SPREAD] = K.popcount(_pip_set(hand2))

        ncls = 0
        lock = 0.0
        for k in range(4):
            if (rep >> k) & 1:
                ncls += 1
                lock += 1.0 / (1.0 + uc[tmp[L.S_END_PIP + k]])
        fv = 0.0
        if ncls > 0:
            lock /= ncls
            for j in range(npl):
                if j == seat or K.side_of(rv, j) == side:
                    continue
                vm = a[O_VOID + j]
                cnt = 0
                for k in range(4):
                    if (rep >> k) & 1 and (vm >> tmp[L.S_END_PIP + k]) & 1:
                        cnt += 1
                cw = 1.0 if j == nxt else 0.5
                if a[O_SIZES + j] <= 2:
                    cw *= 2.0
                fv += cw * cnt / ncls
        feats[i, F_VOID] = fv
        mine = cost2 + (est[partner] if partner >= 0 else 0.0)
        sign = 1.0 if (drawing or mine < other_best) else -1.0
        feats[i, F_LOCK] = sign * lock

        fp = 0.0
        if partner_s > 0:
            fp = p_any(K.popcount(partner_cand), K.popcount(partner_cand & om), partner_s)
            fp -= p_any(K.popcount(opp_cand), K.popcount(opp_cand & om), opp_s)
            if partner_s <= 2:
                fp *= 3.0
        feats[i, F_PARTNER] = fp

        feats[i, F_POINTS] = pts * per_pt
        wins = instant and pts > 0 and a[O_SCORE + side] + tmp[L.S_POINTS + side] >= target
        fr = 0.0
        if reply_s > 0 and hand2 != 0 and not wins:
            fr = -reply_points(tmp, reply_cand, reply_s, threat, rvals)
        feats[i, F_REPLY] = fr

        v = 0.0
        for f in range(N_FEATURES):
            v += w[f] * feats[i, f]
        if wins:
            v += WIN_BONUS
        vals[i] = v
        key = _HEAVY[t]
        if best < 0 or v > bval or (v == bval and key > bkey):
            best = i
            bval = v
            bkey = key

    if irep >= 0 and best >= 0:
        if replace_gain(st, rv, a, max_pts, wi[L.S_SIZE:2 * L.S_SIZE]) > w[W_REPLACE]:
            vals[irep] = bval
            return irep
    if best < 0:
        best = irep if irep >= 0 else 0
    return best


@njit(cache=True)
def replace_gain(st, rv, a, best_pts, tmp):
    """Expected strikes (points made) one replacement tile adds over
    ``best_pts``, minus its cost: ``E[max(0, pts(u) - best_pts)] - cost`` over
    the tile u it may draw. Tiles the opponent cannot hold (its voids) are in
    the boneyard for sure; the others are there with the boneyard's share of
    the rest. ``tmp``: int64 scratch of ``S_SIZE``."""
    seat = a[O_SEAT]
    side = K.side_of(rv, seat)
    unseen = a[O_UNSEEN]
    nb = a[O_BONE]
    if nb <= 0:
        return -1e18
    surely = np.int64(0)
    for j in range(rv[L.R_PLAYERS]):
        if j != seat:
            surely |= unseen & _VOID_TILES[a[O_VOID + j]]
    rest = unseen & ~surely
    ns = K.popcount(surely)
    nr = K.popcount(rest)
    p_rest = 0.0
    if nr > 0:
        p_rest = (nb - ns) / nr
        if p_rest < 0.0:
            p_rest = 0.0
        if p_rest > 1.0:
            p_rest = 1.0
    gain = 0.0
    m = unseen & K.open_mask(st)
    while m:
        u = K.lowest_tile(m)
        m &= m - 1
        pb = 1.0 if (surely >> u) & 1 else p_rest
        if pb <= 0.0:
            continue
        bu = 0
        for k in range(4 if st[L.S_NPLAYED] > 0 else 1):
            if st[L.S_NPLAYED] > 0:
                e = st[L.S_END_PIP + k]
                if e < 0 or (_HIGH[u] != e and _LOW[u] != e):
                    continue
            tmp[:] = st
            before = tmp[L.S_POINTS + side]
            K.lay_and_score(tmp, rv, seat, u, k)
            got = tmp[L.S_POINTS + side] - before
            if got > bu:
                bu = got
        if bu > best_pts:
            gain += pb / nb * (bu - best_pts)
    cost = 0
    if a[O_REPL + seat] >= rv[L.R_FREE_REPL] and a[O_POINTS + side] > 0:
        cost = 1
    return gain - cost


@njit(cache=True)
def hard_pick(st, rv, a, codes, n, w):
    """Index in ``codes[:n]`` of the hard bot's move (see :func:`hard_eval`)."""
    feats = np.empty((n, N_FEATURES), np.float64)
    vals = np.empty(n, np.float64)
    return hard_eval(st, rv, a, codes, n, w, feats, vals)
