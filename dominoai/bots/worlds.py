"""Worlds: what the insane bot may believe, and exact samplers of it.

The model is WORLDS.md, the shared design note (summarised here). The deck is a
uniformly random order of the 28 tiles; the deal takes the first tiles and
every draw the next ones. Plays are treated as uninformative (their
likelihood is 1 when legal); draws and passes are forced. So the posterior
over deck orders is uniform over the orders that reproduce the public
history, and a *world* (every other seat's hidden hand, plus the boneyard in
draw order) is worth the number of deck orders that lead to it.

Slots and allowed tiles
    From the observing seat, each other seat ``j`` received its tiles in
    *slots*: its deal positions, and the positions of each of its draws. At a
    draw of ``c`` tiles the first ``c-1`` did not fit and the ``c``-th was
    played at once (public, its slot is known), or all ``c`` did not fit and
    ``j`` passed. A *void event* of ``j`` (a pass, or the start of a draw, on
    open pips ``V``) says every tile ``j`` held then, and every non-final tile
    it drew then, shows no pip of ``V``. On the first hand of a
    ``highest_double`` preset the lead adds one more void event at the deal:
    nobody was dealt a double above the lead (or, when the lead is not a
    double, any double or heavier tile). A tile in a slot is *allowed* when
    no void event between the slot and the moment the tile left ``j``'s hand
    (its play, or now) forbids it.

Counting
    ``N_j`` is the number of ways to put ``R_j`` (``j``'s hidden hand plus
    the tiles ``j`` played from an unknown slot) into ``j``'s free slots, each
    tile in an allowed slot: a dynamic program over slot groups (time order)
    with tiles grouped by their allowed interval of slot groups. A world is
    consistent iff the sizes match and every ``N_j > 0``; its posterior weight
    is proportional to ``prod_j N_j`` (the boneyard order is uniform).

    Dominoball: a replacement is legal only when the seat could play. That
    precondition (the seat held a tile fitting the ends then) is counted
    exactly by inclusion-exclusion over the seat's replacements, each
    excluded case being one more void event at that moment.

Sampling (:class:`Belief`)
    A tile may go to holder ``j`` when ``j`` has a slot after the last void
    event of ``j`` that forbids it; the boneyard may hold any unseen tile.
    The proposal is *uniform over assignments of the unseen tiles to holders
    that respect these allowed holders and the hand sizes*: a dynamic program
    over tiles and the holders' remaining capacities counts the completions,
    and each tile's holder is drawn with probability proportional to them (no
    rejection). The boneyard order is a uniform shuffle.

    - Games without drawing (block, kozel, express): every ``N_j`` is equal on
      the proposal's support, so the proposal *is* the posterior; weights are 1.
    - Drawing games: a world's weight is ``prod_j N_j`` (0 when inconsistent).
      ``E_q[w f] / E_q[w]`` is the posterior mean of ``f``; :meth:`Belief.sample`
      returns only worlds of positive weight, with their weights, after at
      most ``max_tries`` proposals per world asked for.
    - Without inference (``inference=False``) every unseen tile may go to any
      other seat or the boneyard, constrained only by the sizes; weights are 1.

The sampler reads the observation only (its :meth:`Observation.engine_state`
has no hidden tile), so a world never carries the true boneyard order.

The consistency checker :func:`is_consistent` is written separately from the
sampler (its own reading of the event log, a per-tile per-slot check by
walking the seat's events, and a bipartite matching), so the tests can pit
one against the other.

All kernels are ``@njit(cache=True)`` over ``int64``/``float64`` arrays; times
on a seat's timeline are ``0`` for the deal and ``2e+2`` for the event of
index ``e`` (a replacement's tile arrives at ``2e+3``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..engine import kernels as K
from ..engine import layout as L
from ..observation import (
    O_BONE, O_CUR, O_HAND, O_HAND_NO, O_LINE, O_SEAT, O_SIZES, O_UNSEEN,
)
from ..tiles import HEAVY_ORDER, PIP_MASK, TILE_HIGH, TILE_IS_DOUBLE

__all__ = [
    "Belief", "Checker", "is_consistent", "slot_counts", "count_assignments", "draw_world",
    "sample_many", "world_weight", "Parts",
]

_PM = PIP_MASK.copy()
_HIGH = TILE_HIGH.copy()
_DBL = TILE_IS_DOUBLE.copy()
_HEAVY = HEAVY_ORDER.copy()
_ONE = np.int64(1)

MAXG = 32      # slot groups per seat (deal + draws + replacements)
MAXV = 256     # void events per seat
MAXP = 28      # tiles a seat played from an unknown slot
MAXR = 8       # replacements per seat in a hand
MAXC = 64      # tile classes per seat (suffix start x replacement bits)
HSIZE = 1024   # N_j cache entries per seat (open addressing)

_FACT = np.ones(32, np.float64)
for _i in range(1, 32):
    _FACT[_i] = _FACT[_i - 1] * _i
_BINOM = np.zeros((32, 32), np.float64)
for _n in range(32):
    _BINOM[_n, 0] = 1.0
    for _k in range(1, _n + 1):
        _BINOM[_n, _k] = _BINOM[_n - 1, _k - 1] + (_BINOM[_n - 1, _k] if _k < _n else 0.0)


# ---------------------------------------------------------------- helpers
@njit(cache=True)
def pips_to_tiles(bits):
    """Mask of the tiles showing any pip of the bit set ``bits`` (bit p = pip p)."""
    m = np.int64(0)
    for p in range(7):
        if (bits >> p) & 1:
            m |= _PM[p]
    return m


@njit(cache=True)
def better_leads(t):
    """Tiles that would have led instead of ``t`` under ``highest_double``: the
    higher doubles if ``t`` is a double, else every double and every tile
    heavier than ``t``."""
    m = np.int64(0)
    if _DBL[t]:
        for d in range(_HIGH[t] + 1, 7):
            m |= _ONE << (d * (d + 1) // 2 + d)
        return m
    for d in range(7):
        m |= _ONE << (d * (d + 1) // 2 + d)
    for j in range(28):
        u = _HEAVY[j]
        if u == t:
            break
        m |= _ONE << u
    return m


@njit(cache=True)
def _new_line(rv):
    """A scratch state holding an empty line (for replaying the plays)."""
    st = np.zeros(L.S_SIZE, np.int64)
    st[L.S_PLAYERS] = rv[L.R_PLAYERS]
    for k in range(4):
        st[L.S_END_PIP + k] = -1
    st[L.S_CAND] = -1
    st[L.S_CAND + 1] = -1
    st[L.S_SPIN_TILE] = -1
    st[L.S_LEAD_TILE] = -1
    return st


@njit(cache=True)
def _rand01(rs):
    return np.float64(K.rng_next(rs) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# ---------------------------------------------------------------- evidence
@njit(cache=True)
def _evidence(a, ev, rv, inference):
    """Read the public history from seat ``a[O_SEAT]``: per other seat (a
    *holder* ``h``, seat ``hseat[h]``; holder ``H`` is the boneyard) its slot
    groups, void events, replacements and tiles played from unknown slots.
    Returns a tuple of arrays (see :class:`Belief`); ``status`` 1 means the
    log ends in another seat's draw whose fitting tile is not played yet."""
    n = rv[L.R_PLAYERS]
    s = a[O_SEAT]
    H = n - 1
    hs = rv[L.R_HAND_SIZE]
    hseat = np.zeros(H, np.int64)
    hof = np.full(4, -1, np.int64)
    for h in range(H):
        hseat[h] = (s + 1 + h) % n
        hof[hseat[h]] = h
    G = np.ones(H, np.int64)
    gtime = np.zeros((H, MAXG), np.int64)
    gsize = np.zeros((H, MAXG), np.int64)
    for h in range(H):
        gsize[h, 0] = hs
    nv = np.zeros(H, np.int64)
    vtime = np.zeros((H, MAXV), np.int64)
    vmask = np.zeros((H, MAXV), np.int64)
    nr = np.zeros(H, np.int64)
    rtime = np.zeros((H, MAXR), np.int64)
    rmask = np.zeros((H, MAXR), np.int64)
    npl = np.zeros(H, np.int64)
    ptile = np.zeros((H, MAXP), np.int64)
    ptime = np.zeros((H, MAXP), np.int64)
    status = 0
    nev = ev.shape[0]
    if rv[L.R_FIRST_LEAD] == L.LEAD_HIGHEST_DOUBLE and a[O_HAND_NO] == 1 and nev > 0 \
            and ev[0, 0] == L.EV_PLAY:
        f = better_leads(ev[0, 2])
        if f != 0:
            for h in range(H):
                vtime[h, nv[h]] = 0
                vmask[h, nv[h]] = f
                nv[h] += 1
    line = _new_line(rv)
    for e in range(nev):
        kind = ev[e, 0]
        seat = ev[e, 1]
        t = 2 * e + 2
        h = hof[seat]
        if kind == L.EV_PLAY:
            if h >= 0 and not (e > 0 and ev[e - 1, 0] == L.EV_DRAW and ev[e - 1, 1] == seat):
                ptile[h, npl[h]] = ev[e, 2]
                ptime[h, npl[h]] = t
                npl[h] += 1
            K.lay(line, rv, ev[e, 2], ev[e, 3])
            continue
        if h < 0:
            continue
        if kind == L.EV_DRAW:
            vtime[h, nv[h]] = t
            vmask[h, nv[h]] = pips_to_tiles(ev[e, 3])
            nv[h] += 1
            fit = e + 1 < nev and ev[e + 1, 0] == L.EV_PLAY and ev[e + 1, 1] == seat
            if e + 1 == nev and a[O_CUR] == seat:
                status = 1
                fit = True
            free = ev[e, 2] - 1 if fit else ev[e, 2]
            if free > 0:
                gtime[h, G[h]] = t
                gsize[h, G[h]] = free
                G[h] += 1
        elif kind == L.EV_PASS:
            vtime[h, nv[h]] = t
            vmask[h, nv[h]] = pips_to_tiles(ev[e, 3])
            nv[h] += 1
        elif kind == L.EV_REPLACE:
            gtime[h, G[h]] = t + 1
            gsize[h, G[h]] = 1
            G[h] += 1
            if line[L.S_NPLAYED] > 0:
                rtime[h, nr[h]] = t
                rmask[h, nr[h]] = K.open_mask(line)
                nr[h] += 1
    if not inference:
        nv[:] = 0
        nr[:] = 0
    return hseat, G, gtime, gsize, nv, vtime, vmask, nr, rtime, rmask, npl, ptile, ptime, status


@njit(cache=True)
def _first_after(gt, G, t):
    """First slot group index whose time is after ``t`` (``G`` if none)."""
    for g in range(G):
        if gt[g] > t:
            return g
    return G


@njit(cache=True)
def _classes(a, H, G, gtime, nv, vtime, vmask, nr, rtime, rmask, npl, ptile, ptime,
             inference):
    """Allowed holders of every unseen tile, tile classes for the N_j cache,
    and the allowed intervals of the played tiles."""
    U = a[O_UNSEEN]
    T = 0
    m = U
    while m:
        m &= m - 1
        T += 1
    tiles = np.zeros(T, np.int64)
    i = 0
    m = U
    while m:
        tiles[i] = K.lowest_tile(m)
        m &= m - 1
        i += 1
    allow = np.zeros(T, np.int64)
    cls = np.full((max(H, 1), 28), -1, np.int64)
    ncls = np.zeros(max(H, 1), np.int64)
    cls_a = np.zeros((max(H, 1), MAXC), np.int64)
    cls_vb = np.zeros((max(H, 1), MAXC), np.int64)
    cls_n = np.zeros((max(H, 1), MAXC), np.int64)
    ra = np.zeros((max(H, 1), MAXR), np.int64)
    pa = np.zeros((max(H, 1), MAXP), np.int64)
    pb = np.zeros((max(H, 1), MAXP), np.int64)
    pvb = np.zeros((max(H, 1), MAXP), np.int64)
    for h in range(H):
        for r in range(nr[h]):
            ra[h, r] = _first_after(gtime[h], G[h], rtime[h, r])
        for i in range(T):
            x = tiles[i]
            last = -1
            for k in range(nv[h]):
                if (vmask[h, k] >> x) & 1 and vtime[h, k] > last:
                    last = vtime[h, k]
            st = _first_after(gtime[h], G[h], last)
            if st >= G[h]:
                continue
            allow[i] |= _ONE << h
            vb = 0
            for r in range(nr[h]):
                if (rmask[h, r] >> x) & 1:
                    vb |= 1 << r
            c = -1
            for k in range(ncls[h]):
                if cls_a[h, k] == st and cls_vb[h, k] == vb:
                    c = k
                    break
            if c < 0:
                c = ncls[h]
                cls_a[h, c] = st
                cls_vb[h, c] = vb
                ncls[h] += 1
            cls[h, x] = c
            cls_n[h, c] += 1
        for i in range(npl[h]):
            x = ptile[h, i]
            p = ptime[h, i]
            last = -1
            for k in range(nv[h]):
                if vtime[h, k] < p and (vmask[h, k] >> x) & 1 and vtime[h, k] > last:
                    last = vtime[h, k]
            pa[h, i] = _first_after(gtime[h], G[h], last)
            b = 0
            for g in range(G[h]):
                if gtime[h, g] < p:
                    b = g + 1
            pb[h, i] = b
            vb = 0
            for r in range(nr[h]):
                if rtime[h, r] < p and (rmask[h, r] >> x) & 1:
                    vb |= 1 << r
            pvb[h, i] = vb
    for i in range(T):
        allow[i] |= _ONE << H  # the boneyard may hold any unseen tile
    return tiles, allow, cls, ncls, cls_a, cls_vb, cls_n, ra, pa, pb, pvb


@njit(cache=True)
def _proposal_table(T, H, allow, caps):
    """``dp[i, code]``: assignments of tiles ``i..T-1`` to holders respecting
    ``allow`` when the holders' remaining capacities are ``code`` (mixed radix
    over ``caps[:H] + 1``; the boneyard takes the rest)."""
    rad = np.zeros(max(H, 1), np.int64)
    P = 1
    for h in range(H):
        rad[h] = P
        P *= caps[h] + 1
    dp = np.zeros((T + 1, P), np.float64)
    dp[T, 0] = 1.0
    rem = np.zeros(max(H, 1), np.int64)
    for i in range(T - 1, -1, -1):
        for code in range(P):
            c = code
            tot = 0
            for h in range(H):
                rem[h] = (c // rad[h]) % (caps[h] + 1)
                tot += rem[h]
            brem = (T - i) - tot
            if brem < 0 or brem > caps[H]:
                continue
            v = 0.0
            al = allow[i]
            for h in range(H):
                if (al >> h) & 1 and rem[h] > 0:
                    v += dp[i + 1, code - rad[h]]
            if (al >> H) & 1 and brem > 0:
                v += dp[i + 1, code]
            dp[i, code] = v
    return dp, rad


# ---------------------------------------------------------------- counting
@njit(cache=True)
def count_assignments(G, gsize, glo, ghi, gm, K_):
    """Number of bijections from tiles to slots where slot group ``g`` has
    ``gsize[g]`` distinct slots (time order) and tile group ``k`` holds
    ``gm[k]`` tiles, each allowed in the slot groups ``glo[k] <= g < ghi[k]``.

    A dynamic program over slot groups whose state is how many tiles of each
    tile group are still unplaced (float64 result)."""
    # merge equal intervals
    lo = np.zeros(K_, np.int64)
    hi = np.zeros(K_, np.int64)
    mm = np.zeros(K_, np.int64)
    K = 0
    tot = 0
    for k in range(K_):
        if gm[k] == 0:
            continue
        if glo[k] >= ghi[k]:
            return 0.0
        tot += gm[k]
        f = -1
        for j in range(K):
            if lo[j] == glo[k] and hi[j] == ghi[k]:
                f = j
                break
        if f < 0:
            lo[K] = glo[k]
            hi[K] = ghi[k]
            mm[K] = gm[k]
            K += 1
        else:
            mm[f] += gm[k]
    ns = 0
    for g in range(G):
        ns += gsize[g]
    if ns != tot:
        return 0.0
    if K == 0:
        return 1.0
    rad = np.zeros(K, np.int64)
    P = 1
    for k in range(K):
        rad[k] = P
        P *= mm[k] + 1
    cur = np.zeros(P, np.float64)
    nxt = np.zeros(P, np.float64)
    live = np.zeros(P, np.int64)
    nlive = 1
    full = P - 1
    cur[full] = 1.0
    live[0] = full
    mark = np.zeros(P, np.uint8)
    nlive2 = 0
    live2 = np.zeros(P, np.int64)
    rem = np.zeros(K, np.int64)
    act = np.zeros(K, np.int64)
    take = np.zeros(K, np.int64)
    for g in range(G):
        c = gsize[g]
        na = 0
        for k in range(K):
            if lo[k] <= g < hi[k]:
                act[na] = k
                na += 1
        nlive2 = 0
        for li in range(nlive):
            code = live[li]
            val = cur[code]
            cur[code] = 0.0
            if val == 0.0:
                continue
            # expired groups must be empty
            ok = True
            for k in range(K):
                rem[k] = (code // rad[k]) % (mm[k] + 1)
                if hi[k] <= g and rem[k] > 0:
                    ok = False
            if not ok:
                continue
            if c == 0:
                if mark[code] == 0:
                    mark[code] = 1
                    live2[nlive2] = code
                    nlive2 += 1
                nxt[code] += val
                continue
            if na == 0:
                continue
            # enumerate take[0..na-1], sum c, take[j] <= rem[act[j]]
            for j in range(na):
                take[j] = 0
            while True:
                # the last active group takes the remainder
                s = 0
                for j in range(na - 1):
                    s += take[j]
                last = c - s
                if 0 <= last <= rem[act[na - 1]]:
                    take[na - 1] = last
                    w = _FACT[c]
                    nc = code
                    for j in range(na):
                        k = act[j]
                        w *= _BINOM[rem[k], take[j]]
                        nc -= take[j] * rad[k]
                    if mark[nc] == 0:
                        mark[nc] = 1
                        live2[nlive2] = nc
                        nlive2 += 1
                    nxt[nc] += val * w
                # odometer over take[0..na-2]
                j = 0
                while j < na - 1:
                    if take[j] < rem[act[j]] and s < c:
                        take[j] += 1
                        break
                    s -= take[j]
                    take[j] = 0
                    j += 1
                if j >= na - 1:
                    break
        # swap
        for li in range(nlive2):
            code = live2[li]
            mark[code] = 0
            cur[code] = nxt[code]
            nxt[code] = 0.0
            live[li] = code
        nlive = nlive2
    return cur[0]


@njit(cache=True)
def _holder_count(h, hist, G, gtime, gsize, ncls, cls_a, cls_vb, ra, nr, npl, pa, pb, pvb):
    """``N_j`` of holder ``h`` whose hidden hand has ``hist[k]`` tiles of class
    ``k``: inclusion-exclusion over its replacements' preconditions."""
    nk = ncls[h] + npl[h]
    glo = np.zeros(nk, np.int64)
    ghi = np.zeros(nk, np.int64)
    gm = np.zeros(nk, np.int64)
    total = 0.0
    nrh = nr[h]
    for S in range(1 << nrh):
        sign = 1.0
        for r in range(nrh):
            if (S >> r) & 1:
                sign = -sign
        i = 0
        for k in range(ncls[h]):
            lo = cls_a[h, k]
            for r in range(nrh):
                if (S >> r) & 1 and (cls_vb[h, k] >> r) & 1 and ra[h, r] > lo:
                    lo = ra[h, r]
            glo[i] = lo
            ghi[i] = G[h]
            gm[i] = hist[k]
            i += 1
        for q in range(npl[h]):
            lo = pa[h, q]
            for r in range(nrh):
                if (S >> r) & 1 and (pvb[h, q] >> r) & 1 and ra[h, r] > lo:
                    lo = ra[h, r]
            glo[i] = lo
            ghi[i] = pb[h, q]
            gm[i] = 1
            i += 1
        total += sign * count_assignments(G[h], gsize[h], glo, ghi, gm, nk)
    return total


# ---------------------------------------------------------------- sampling
#: Everything the sampler and the counting read, built once per observation
#: (:func:`_build_parts`): the unseen ``tiles`` and the holders each may go to
#: (``allow``, bit h = other seat ``hseat[h]``, bit H = boneyard), the sizes
#: ``caps``, the proposal's completion table ``dp`` (mixed radix ``rad``),
#: the holders whose ``N_j`` varies (``wneed``), their slot groups (``G``,
#: ``gtime``, ``gsize``), the tile classes of the N_j cache (``cls``, ``cls_a``
#: suffix start, ``cls_vb`` replacement bits, ``crad`` radix), replacements
#: (``nr``, ``ra`` first slot group after each), tiles played from unknown
#: slots (``npl``, allowed groups ``pa <= g < pb``, ``pvb``), and the cache
#: (``hkey``, ``hval``). Pass it whole to kernels called once per search, never
#: to a kernel called per world: numba counts a reference per member on each call.
Parts = namedtuple("Parts", [
    "tiles", "allow", "caps", "hseat", "dp", "rad", "wneed",
    "G", "gtime", "gsize", "ncls", "cls", "cls_a", "cls_vb", "crad",
    "nr", "ra", "npl", "pa", "pb", "pvb", "hkey", "hval",
])


@njit(cache=True)
def _hand_weight_miss(h, hand, code, slot, p):
    """Count ``N_j`` for a class histogram not in the cache, and store it."""
    hist = np.zeros(max(p.ncls[h], 1), np.int64)
    m = hand
    while m:
        hist[p.cls[h, K.lowest_tile(m)]] += 1
        m &= m - 1
    v = _holder_count(h, hist, p.G, p.gtime, p.gsize, p.ncls, p.cls_a, p.cls_vb, p.ra, p.nr,
                      p.npl, p.pa, p.pb, p.pvb)
    if slot >= 0:
        p.hkey[h, slot] = code
        p.hval[h, slot] = v
    return v


@njit(cache=True, inline="always")
def _cached_weight(h, hand, cls, crad, hkey, hval, miss):
    """``N_j`` of holder ``h`` holding ``hand`` from the cache (keyed by the
    class histogram); -1 on a miss, with ``miss[0], miss[1]`` = key, slot
    (slot -1: the cache is full); 0 when a tile has no allowed slot."""
    m = hand
    code = np.int64(0)
    while m:
        c = cls[h, K.lowest_tile(m)]
        m &= m - 1
        if c < 0:
            return 0.0
        code += crad[h, c]
    slot = (code * 2654435761) & (HSIZE - 1)
    miss[0] = code
    for _ in range(HSIZE):
        k = hkey[h, slot]
        if k == code:
            return hval[h, slot]
        if k < 0:
            miss[1] = slot
            return -1.0
        slot = (slot + 1) & (HSIZE - 1)
    miss[1] = -1
    return -1.0


@njit(cache=True, inline="always")
def draw_world(tiles, allow, caps, hseat, dp, rad, base, rs, wst, bone):
    """Draw the hands and the boneyard order of one world into ``wst`` (a copy
    of ``base``) from the proposal (uniform over the assignments that respect
    the allowed holders and the sizes). ``bone``: int64 scratch of 32."""
    T = tiles.shape[0]
    H = hseat.shape[0]
    for i in range(L.S_SIZE):
        wst[i] = base[i]
    code = 0
    for h in range(H):
        code += caps[h] * rad[h]
        wst[L.S_HAND + hseat[h]] = 0
        bone[28 + h] = caps[h]
    nb = 0
    for i in range(T):
        x = tiles[i]
        al = allow[i]
        u = _rand01(rs) * dp[i, code]
        chosen = -2
        lastok = -2
        for h in range(H):
            if (al >> h) & 1 and bone[28 + h] > 0:
                wgt = dp[i + 1, code - rad[h]]
                if wgt > 0.0:
                    lastok = h
                    if u < wgt:
                        chosen = h
                        break
                    u -= wgt
        if chosen == -2:
            if (al >> H) & 1 and dp[i + 1, code] > 0.0:
                chosen = -1
            else:
                chosen = lastok
        if chosen >= 0:
            wst[L.S_HAND + hseat[chosen]] |= _ONE << x
            code -= rad[chosen]
            bone[28 + chosen] -= 1
        else:
            bone[nb] = x
            nb += 1
    for i in range(nb - 1, 0, -1):
        j = K.rng_below(rs, i + 1)
        t = bone[i]
        bone[i] = bone[j]
        bone[j] = t
    for j in range(28):
        wst[L.S_BONE + j] = bone[j] if j < nb else -1
    wst[L.S_BONE_POS] = 0
    wst[L.S_BONE_END] = nb


@njit(cache=True, inline="always")
def drawn_world_weight(p, wst, hseat, wneed, cls, crad, hkey, hval, miss):
    """Weight (product of the ``N_j`` that need counting) of the world just drawn
    into ``wst``; 0.0 as soon as one holder has no way (the parts' arrays are
    passed unpacked: inlined, so no reference counts per world)."""
    w = 1.0
    for h in range(hseat.shape[0]):
        if wneed[h]:
            hand = wst[L.S_HAND + hseat[h]]
            v = _cached_weight(h, hand, cls, crad, hkey, hval, miss)
            if v < 0.0:
                v = _hand_weight_miss(h, hand, miss[0], miss[1], p)
            w *= v
            if w == 0.0:
                break
    return w


@njit(cache=True)
def sample_many(p, base, rs, n, max_props, out, wout):
    """Up to ``n`` worlds of positive weight into ``out[i]`` / ``wout[i]`` after
    at most ``max_props`` proposals; returns (worlds, proposals).

    (The parts' arrays are bound once here: handing the whole tuple to a
    function per world costs a reference count per member.)"""
    tiles, allow, caps, hseat, dp, rad = p.tiles, p.allow, p.caps, p.hseat, p.dp, p.rad
    wneed, cls, crad, hkey, hval = p.wneed, p.cls, p.crad, p.hkey, p.hval
    bone = np.zeros(32, np.int64)
    miss = np.zeros(2, np.int64)
    wst = np.zeros(L.S_SIZE, np.int64)
    k = 0
    props = 0
    while k < n and props < max_props:
        props += 1
        draw_world(tiles, allow, caps, hseat, dp, rad, base, rs, wst, bone)
        w = drawn_world_weight(p, wst, hseat, wneed, cls, crad, hkey, hval, miss)
        if w > 0.0:
            out[k, :] = wst
            wout[k] = w
            k += 1
    return k, props


@njit(cache=True)
def world_weight_of(p, h, wst):
    """``N_j`` of holder ``h`` in world ``wst`` (sampler's counting, uncached)."""
    hand = wst[L.S_HAND + p.hseat[h]]
    hist = np.zeros(max(p.ncls[h], 1), np.int64)
    m = hand
    while m:
        c = p.cls[h, K.lowest_tile(m)]
        m &= m - 1
        if c < 0:
            return 0.0
        hist[c] += 1
    return _holder_count(h, hist, p.G, p.gtime, p.gsize, p.ncls, p.cls_a, p.cls_vb, p.ra, p.nr,
                         p.npl, p.pa, p.pb, p.pvb)


@njit(cache=True)
def world_weight(p, wst):
    """``prod N_j`` of a world under this evidence (the sampler's counting);
    0 when some hidden tile has no allowed slot."""
    w = 1.0
    for h in range(p.hseat.shape[0]):
        hand = wst[L.S_HAND + p.hseat[h]]
        if p.wneed[h]:
            miss = np.zeros(2, np.int64)
            v = _cached_weight(h, hand, p.cls, p.crad, p.hkey, p.hval, miss)
            if v < 0.0:
                v = _hand_weight_miss(h, hand, miss[0], miss[1], p)
            w *= v
        else:
            m = hand
            while m:
                x = K.lowest_tile(m)
                m &= m - 1
                ok = False
                for i in range(p.tiles.shape[0]):
                    if p.tiles[i] == x and (p.allow[i] >> h) & 1:
                        ok = True
                if not ok:
                    return 0.0
    return w


def _build_parts(a: np.ndarray, ev: np.ndarray, rv: np.ndarray, inference: bool) -> tuple:
    (hseat, G, gtime, gsize, nv, vtime, vmask, nr, rtime, rmask, npl, ptile, ptime,
     status) = _evidence(a, ev, rv, inference)
    if status == 1:
        raise ValueError("the event log ends in another seat's draw whose tile is still to be "
                         "played; sample worlds at the observing seat's decisions")
    H = len(hseat)
    tiles, allow, cls, ncls, cls_a, cls_vb, cls_n, ra, pa, pb, pvb = _classes(
        a, H, G, gtime, nv, vtime, vmask, nr, rtime, rmask, npl, ptile, ptime, inference)
    if not inference:
        allow[:] = (1 << (H + 1)) - 1
    caps = np.zeros(H + 1, np.int64)
    for h in range(H):
        caps[h] = a[O_SIZES + hseat[h]]
    caps[H] = a[O_BONE]
    dp, rad = _proposal_table(len(tiles), H, allow, caps)
    wneed = np.zeros(max(H, 1), np.int64)
    crad = np.zeros((max(H, 1), MAXC), np.int64)
    for h in range(H):
        if inference and G[h] > 1:
            wneed[h] = 1
        r = 1
        for c in range(int(ncls[h])):
            crad[h, c] = r
            r *= min(int(caps[h]), int(cls_n[h, c])) + 1
    hkey = np.full((max(H, 1), HSIZE), -1, np.int64)
    hval = np.zeros((max(H, 1), HSIZE), np.float64)
    return Parts(tiles, allow, caps, hseat, dp, rad, wneed, G, gtime, gsize, ncls, cls, cls_a,
                 cls_vb, crad, nr, ra, npl, pa, pb, pvb, hkey, hval)


class Belief:
    """The worlds seat ``obs.seat`` may believe in (see the module docstring).

    :param obs: an :class:`~dominoai.observation.Observation`.
    :param inference: False: every unseen tile may be with any other seat or in
        the boneyard, only the sizes count (the ablation of the insane issue).

    >>> from dominoai import Match
    >>> h = Match("block", seed=1).new_hand(leader=0)
    >>> b = Belief(h.observe(0))
    >>> worlds, weights = b.sample(3, seed=7)
    >>> worlds.shape, weights.tolist()
    ((3, 80), [1.0, 1.0, 1.0])
    """

    def __init__(self, obs, inference: bool = True):
        self.obs = obs
        self.rules = obs.rules
        self.inference = bool(inference)
        self.rv = obs.rules_vector
        self.base = obs.engine_state()
        self.parts = _build_parts(obs.array, obs.event_array, self.rv, self.inference)
        H = len(self.parts.hseat)
        total = float(self.parts.dp[0, int(np.dot(self.parts.caps[:H], self.parts.rad[:H]))])
        if total <= 0.0:
            raise ValueError("no world fits the public history (an inference bug?)")
        self.support = total
        self.proposals = 0

    @property
    def unweighted(self) -> bool:
        """True when every world has weight 1 (no seat drew or replaced, or no
        inference): the samples are then exact draws from the posterior."""
        return not bool(self.parts.wneed.any())

    def sample(self, n: int, seed=None, max_tries: int = 50):
        """``n`` worlds (fewer only if ``max_tries * n`` proposals found fewer of
        positive weight) as engine states, and their weights.

        :returns: ``(worlds, weights)``: ``int64`` array ``(k, S_SIZE)`` and
            ``float64`` array ``(k,)``.
        """
        rs = np.array([np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]], np.uint64)
        out = np.zeros((n, L.S_SIZE), np.int64)
        w = np.zeros(n, np.float64)
        k, props = sample_many(self.parts, self.base, rs, n, max(1, max_tries) * n, out, w)
        self.proposals += int(props)
        return out[:k], w[:k]

    def weight(self, world: np.ndarray) -> float:
        """The world's weight ``prod N_j`` as the sampler counts it (0: inconsistent)."""
        return float(world_weight(self.parts, np.asarray(world, np.int64)))


def slot_counts(obs, world) -> dict:
    """``{seat: N_j}`` for every other seat that drew or replaced (by the
    sampler's dynamic program, replacements' precondition included)."""
    p = Belief(obs).parts
    out = {}
    for h in range(len(p.hseat)):
        if p.wneed[h]:
            out[int(p.hseat[h])] = float(world_weight_of(p, h, np.asarray(world, np.int64)))
    return out



# ---------------------------------------------------------------- checker
# Written apart from the sampler: its own reading of the log, a tile-by-slot
# check that walks the seat's events, and a bipartite matching by augmenting
# paths (breadth-first, iterative: numba's cache mishandles recursion).

@njit(cache=True)
def _chk_events(a, ev, rv):
    """Per seat: slot arrivals, void events and replacement preconditions.

    Event times here are event indices (the deal is -1); a slot that arrives
    at ``e`` is covered by a void at ``v`` when ``arrive <= v < leave``."""
    n = rv[L.R_PLAYERS]
    nev = ev.shape[0]
    hs = rv[L.R_HAND_SIZE]
    nslot = np.zeros(4, np.int64)
    arrive = np.zeros((4, 64), np.int64)
    nvoid = np.zeros(4, np.int64)
    vat = np.zeros((4, 300), np.int64)
    vtiles = np.zeros((4, 300), np.int64)
    nrep = np.zeros(4, np.int64)
    rat = np.zeros((4, 8), np.int64)
    rfit = np.zeros((4, 8), np.int64)
    final = np.zeros(4, np.int64)   # tiles each seat played straight from a draw
    played = np.zeros(4, np.int64)
    leave = np.full(28, 1 << 20, np.int64)
    for j in range(n):
        for q in range(hs):
            arrive[j, nslot[j]] = -1
            nslot[j] += 1
    if rv[L.R_FIRST_LEAD] == L.LEAD_HIGHEST_DOUBLE and a[O_HAND_NO] == 1 and nev > 0 \
            and ev[0, 0] == L.EV_PLAY:
        # the holder of the best tile leads it: nobody was dealt a better one
        t = ev[0, 2]
        bad = np.int64(0)
        for u in range(28):
            if u == t:
                continue
            if _DBL[u] and (not _DBL[t] or _HIGH[u] > _HIGH[t]):
                bad |= _ONE << u
        if not _DBL[t]:
            for q in range(28):
                u = _HEAVY[q]
                if u == t:
                    break
                bad |= _ONE << u
        for j in range(n):
            vat[j, nvoid[j]] = -1
            vtiles[j, nvoid[j]] = bad
            nvoid[j] += 1
    line = _new_line(rv)
    for e in range(nev):
        kind = ev[e, 0]
        j = ev[e, 1]
        if kind == L.EV_PLAY:
            x = ev[e, 2]
            played[j] |= _ONE << x
            leave[x] = e
            if e > 0 and ev[e - 1, 0] == L.EV_DRAW and ev[e - 1, 1] == j:
                final[j] |= _ONE << x
            K.lay(line, rv, x, ev[e, 3])
        elif kind == L.EV_PASS or kind == L.EV_DRAW:
            bits = ev[e, 3]
            tm = np.int64(0)
            for pp in range(7):
                if (bits >> pp) & 1:
                    tm |= _PM[pp]
            vat[j, nvoid[j]] = e
            vtiles[j, nvoid[j]] = tm
            nvoid[j] += 1
            if kind == L.EV_DRAW:
                c = ev[e, 2]
                if e + 1 < nev and ev[e + 1, 0] == L.EV_PLAY and ev[e + 1, 1] == j:
                    c -= 1   # the last one fitted: its slot holds the tile played next
                for q in range(c):
                    arrive[j, nslot[j]] = e
                    nslot[j] += 1
        elif kind == L.EV_REPLACE:
            arrive[j, nslot[j]] = e
            nslot[j] += 1
            if line[L.S_NPLAYED] > 0:
                rat[j, nrep[j]] = e
                rfit[j, nrep[j]] = K.open_mask(line)
                nrep[j] += 1
    return nslot, arrive, nvoid, vat, vtiles, nrep, rat, rfit, final, played, leave


@njit(cache=True)
def _chk_matching(adj, nt, ns):
    """Whether the bipartite graph ``adj`` (tiles x slots) has a perfect
    matching: augmenting paths found by breadth-first search (iterative)."""
    if nt != ns:
        return False
    slot_of = np.full(nt, -1, np.int64)    # tile -> slot
    tile_in = np.full(ns, -1, np.int64)    # slot -> tile
    prev = np.zeros(ns, np.int64)          # slot -> the tile that reached it
    queue = np.zeros(nt, np.int64)
    for x in range(nt):
        seen = np.zeros(ns, np.uint8)
        head = 0
        tail = 0
        queue[tail] = x
        tail += 1
        end = -1
        while head < tail and end < 0:
            t = queue[head]
            head += 1
            for q in range(ns):
                if adj[t, q] and not seen[q]:
                    seen[q] = 1
                    prev[q] = t
                    if tile_in[q] < 0:
                        end = q
                        break
                    queue[tail] = tile_in[q]
                    tail += 1
        if end < 0:
            return False
        q = end
        while True:   # flip the path back to x
            t = prev[q]
            nq = slot_of[t]
            slot_of[t] = q
            tile_in[q] = t
            if t == x:
                break
            q = nq
    return True


@njit(cache=True)
def _chk_seat(j, hand, nslot, arrive, nvoid, vat, vtiles, nrep, rat, rfit, final, played, leave,
              inference):
    """Can seat ``j``'s tiles (``hand`` now plus what it played from unknown
    slots) fill its slots, every tile where no event of ``j`` forbids it, with
    a fitting tile in hand at each replacement?"""
    R = hand | (played[j] & ~final[j])
    tl = np.zeros(28, np.int64)
    nt = 0
    m = R
    while m:
        tl[nt] = K.lowest_tile(m)
        m &= m - 1
        nt += 1
    ns = nslot[j]
    if nt != ns:
        return False
    adj = np.zeros((nt, ns), np.uint8)
    for i in range(nt):
        x = tl[i]
        lv = leave[x] if (played[j] >> x) & 1 else (1 << 20)
        for q in range(ns):
            ar = arrive[j, q]
            if ar >= lv:
                continue
            ok = True
            if inference:
                for k in range(nvoid[j]):
                    v = vat[j, k]
                    if ar <= v < lv and (vtiles[j, k] >> x) & 1:
                        ok = False
                        break
            if ok:
                adj[i, q] = 1
    nr = nrep[j] if inference else 0
    if nr == 0:
        return _chk_matching(adj, nt, ns)
    # a witness per replacement: a fitting tile held at that moment
    cand = np.zeros((nr, 28), np.int64)
    ncand = np.zeros(nr, np.int64)
    for r in range(nr):
        for i in range(nt):
            x = tl[i]
            lv = leave[x] if (played[j] >> x) & 1 else (1 << 20)
            if (rfit[j, r] >> x) & 1 and lv > rat[j, r]:
                cand[r, ncand[r]] = i
                ncand[r] += 1
        if ncand[r] == 0:
            return False
    pick = np.zeros(nr, np.int64)
    adj2 = np.zeros((nt, ns), np.uint8)
    while True:
        adj2[:, :] = adj
        for r in range(nr):
            i = cand[r, pick[r]]
            for q in range(ns):
                if arrive[j, q] >= rat[j, r]:
                    adj2[i, q] = 0
        if _chk_matching(adj2, nt, ns):
            return True
        r = 0
        while r < nr:
            pick[r] += 1
            if pick[r] < ncand[r]:
                break
            pick[r] = 0
            r += 1
        if r == nr:
            return False


@njit(cache=True)
def _chk_world(a, rv, ctx, world, inference):
    nslot, arrive, nvoid, vat, vtiles, nrep, rat, rfit, final, played, leave = ctx
    n = rv[L.R_PLAYERS]
    s = a[O_SEAT]
    if world[L.S_HAND + s] != a[O_HAND] or world[L.S_PLAYED] != a[O_LINE]:
        return False
    seen = a[O_HAND] | a[O_LINE]
    for j in range(n):
        if j == s:
            continue
        hnd = world[L.S_HAND + j]
        if hnd & seen or hnd & ~a[O_UNSEEN]:
            return False
        if K.popcount(hnd) != a[O_SIZES + j]:
            return False
        seen |= hnd
    nb = world[L.S_BONE_END] - world[L.S_BONE_POS]
    if nb != a[O_BONE]:
        return False
    for q in range(world[L.S_BONE_POS], world[L.S_BONE_END]):
        x = world[L.S_BONE + q]
        if x < 0 or x > 27 or (seen >> x) & 1:
            return False
        seen |= _ONE << x
    if seen != (1 << 28) - 1:
        return False
    for j in range(n):
        if j == s:
            continue
        if not _chk_seat(j, world[L.S_HAND + j], nslot, arrive, nvoid, vat, vtiles, nrep, rat,
                         rfit, final, played, leave, inference):
            return False
    return True


@njit(cache=True)
def _chk_many(a, rv, ctx, worlds, inference, out):
    bad = 0
    for i in range(worlds.shape[0]):
        ok = _chk_world(a, rv, ctx, worlds[i], inference)
        out[i] = 1 if ok else 0
        if not ok:
            bad += 1
    return bad


class Checker:
    """The consistency checker for one observation: :meth:`check` one world,
    :meth:`check_many` a batch. ``inference=False`` checks only the sizes and
    the seen tiles."""

    def __init__(self, obs_or_parts, inference: bool = True):
        a, ev, rv = _parts_of(obs_or_parts)
        self.a, self.rv, self.inference = a, rv, bool(inference)
        self.ctx = _chk_events(a, ev, rv)

    def check(self, world) -> bool:
        return bool(_chk_world(self.a, self.rv, self.ctx, np.asarray(world, np.int64), self.inference))

    def check_many(self, worlds) -> np.ndarray:
        """Boolean array: which worlds (rows) are consistent."""
        w = np.asarray(worlds, np.int64).reshape(-1, L.S_SIZE)
        out = np.zeros(len(w), np.int64)
        _chk_many(self.a, self.rv, self.ctx, w, self.inference, out)
        return out.astype(bool)


def _parts_of(obs_or_parts):
    if isinstance(obs_or_parts, tuple):
        a, ev, rv = obs_or_parts
        if hasattr(rv, "vector"):
            rv = rv.vector()
        return (np.asarray(a, np.int64), np.asarray(ev, np.int64).reshape(-1, 4),
                np.asarray(rv, np.int64))
    return obs_or_parts.array, obs_or_parts.event_array, obs_or_parts.rules_vector


def is_consistent(obs_or_parts, world, inference: bool = True) -> bool:
    """Whether the public history seen by ``obs_or_parts`` could have happened
    with ``world``: an engine state (``int64``, ``(S_SIZE,)``) holding every
    seat's hand now and the boneyard in draw order.

    ``obs_or_parts``: an Observation, or ``(observation array, event array,
    rules or rules vector)``. Consistent means: the observing seat's tiles and
    the line are as observed, every hand has its observed size, the hands and
    the boneyard partition the unseen tiles, and (with ``inference``) every
    other seat's tiles can be placed in its deal and draw slots so that
    nobody held a tile of a number it passed or drew on at that moment, every
    draw stopped at the first tile that fitted, the first-hand lead under
    ``highest_double`` was the best tile dealt, and every Dominoball
    replacement was made holding a tile that fitted.
    """
    return Checker(obs_or_parts, inference).check(world)
