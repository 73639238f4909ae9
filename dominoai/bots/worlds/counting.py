"""Counting: how many deck orders lead to a world, and the sampler's tables.

``N_j`` is the number of ways to put ``R_j`` (seat ``j``'s hidden hand plus
the tiles ``j`` played from an unknown slot) into ``j``'s free slots, each
tile in an allowed slot (docs/worlds.md, "Counting"): a dynamic program over slot
groups (time order) with tiles grouped by their allowed interval of slot
groups (:func:`count_assignments`). A world is consistent iff the sizes match
and every ``N_j > 0``; its posterior weight is proportional to
``prod_j N_j`` (the boneyard order is uniform).

Dominoball: a replacement is legal only when the seat could play. That
precondition (the seat held a tile fitting the ends then) is counted exactly
by inclusion-exclusion over the seat's replacements, each excluded case being
one more void event at that moment (:func:`holder_count`).

The tables the sampler draws from are built here too, once per observation
(:func:`build_parts`): each unseen tile's allowed holders, the tile classes
that key the ``N_j`` cache, and the proposal's completion counts
(:func:`proposal_table`). Kernels are ``@njit(cache=True)`` over
``int64``/``float64`` arrays.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine.observe import O_BONE, O_SIZES, O_UNSEEN
from ...tiles import N_TILES
from .evidence import MAXP, MAXR, read_evidence

__all__ = ["MAXC", "HSIZE", "Parts", "count_assignments", "holder_count", "tile_classes",
           "proposal_table", "build_parts"]

_ONE = np.int64(1)

MAXC = 64      # tile classes per seat (suffix start x replacement bits)
HSIZE = 1024   # N_j cache entries per seat (open addressing)

# n! and C(n, k) for every count of tiles n, k <= N_TILES
_FACT = np.ones(N_TILES + 1, np.float64)
for _i in range(1, N_TILES + 1):
    _FACT[_i] = _FACT[_i - 1] * _i
_BINOM = np.zeros((N_TILES + 1, N_TILES + 1), np.float64)
for _n in range(N_TILES + 1):
    _BINOM[_n, 0] = 1.0
    for _k in range(1, _n + 1):
        _BINOM[_n, _k] = _BINOM[_n - 1, _k - 1] + (_BINOM[_n - 1, _k] if _k < _n else 0.0)


@njit(cache=True)
def _first_after(gt, G, t):
    """First slot group index whose time is after ``t`` (``G`` if none)."""
    for g in range(G):
        if gt[g] > t:
            return g
    return G


@njit(cache=True)
def tile_classes(a, evidence):
    """Allowed holders of every unseen tile, tile classes for the N_j cache,
    and the allowed intervals of the played tiles, from the observation's
    compact form ``a`` and the ``evidence`` of
    :func:`~.evidence.read_evidence` (the tuple it returns).

    A tile may go to holder ``h`` when ``h`` has a slot group after the last
    void event of ``h`` that forbids it (docs/worlds.md, "Sampling"); the boneyard
    may hold any unseen tile.

    :returns: ``(tiles, allow, cls, ncls, cls_a, cls_vb, cls_n, ra, pa, pb,
        pvb)``, ``int64``: the ``T`` unseen ``tiles`` (ids, ascending) and
        their allowed holders ``allow`` (``(T,)``, bit h = holder h, bit H =
        the boneyard); per holder the class of each tile id ``cls``
        (``(H, N_TILES)``, -1: not allowed), ``ncls`` classes with first allowed
        slot group ``cls_a``, replacement bits ``cls_vb`` (bit r: the tile
        fitted at replacement r) and ``cls_n`` tiles each (``(H, MAXC)``);
        ``ra`` the first slot group after each replacement (``(H, MAXR)``);
        and each played tile's allowed slot groups ``pa <= g < pb`` with
        replacement bits ``pvb`` (``(H, MAXP)``)."""
    hseat, G, gtime, _, nv, vtime, vmask, nr, rtime, rmask, npl, ptile, ptime, _ = evidence
    H = hseat.shape[0]
    U = a[O_UNSEEN]
    T = K.popcount(U)
    tiles = np.zeros(T, np.int64)
    K.tiles_into(U, tiles)
    allow = np.zeros(T, np.int64)
    cls = np.full((max(H, 1), N_TILES), -1, np.int64)
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
            last = np.int64(-1)  # typed: a literal -1 compiles _first_after once more
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
            last = np.int64(-1)  # typed: a literal -1 compiles _first_after once more
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
def proposal_table(T, H, allow, caps):
    """The proposal's completion counts: ``dp[i, code]`` is the number of
    assignments of tiles ``i..T-1`` to holders respecting ``allow``
    (``int64``, ``(T,)``, bits as in :func:`tile_classes`) when the holders'
    remaining capacities are ``code``, a mixed radix over ``caps[:H] + 1``
    (``caps``: ``int64``, ``(H + 1,)``, the sizes; the boneyard, ``caps[H]``,
    takes the rest).

    :returns: ``(dp, rad)``: ``float64`` ``(T + 1, prod(caps[:H] + 1))`` and
        the radix ``int64`` ``(max(H, 1),)``."""
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


@njit(cache=True, inline="always")
def next_take(take, cap, na, s, c):
    """Step the odometer over ``take[:na - 1]`` (``int64``; each at most
    ``cap[j]``, their sum ``s`` at most ``c``) to the next vector, the last
    active group taking the remainder; False when every vector was seen."""
    j = 0
    while j < na - 1:
        if take[j] < cap[j] and s < c:
            take[j] += 1
            return True
        s -= take[j]
        take[j] = 0
        j += 1
    return False


@njit(cache=True)
def count_assignments(G, gsize, glo, ghi, gm, K_):
    """Number of bijections from tiles to slots where slot group ``g < G`` has
    ``gsize[g]`` distinct slots (time order) and tile group ``k < K_`` holds
    ``gm[k]`` tiles, each allowed in the slot groups ``glo[k] <= g < ghi[k]``
    (all ``int64`` arrays; ``gsize`` of length at least ``G``, the others at
    least ``K_``). 0 when the tiles and slots differ in number.

    A dynamic program over slot groups whose state is how many tiles of each
    tile group are still unplaced (docs/worlds.md, "Counting"); the result is a
    ``float64`` (exact up to 2**53)."""
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
    cap = np.zeros(K, np.int64)
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
                cap[j] = rem[act[j]]
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
                if not next_take(take, cap, na, s, c):
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


@njit(cache=True, inline="always")
def _raised_low(lo, vb, S, nrh, ra, h):
    """The first slot group a tile group may take under the set ``S`` of
    holder ``h``'s replacements: ``lo``, raised to ``ra[h, r]`` for every
    replacement ``r`` in ``S`` whose bit is in the group's ``vb``."""
    for r in range(nrh):
        if (S >> r) & 1 and (vb >> r) & 1 and ra[h, r] > lo:
            lo = ra[h, r]
    return lo


@njit(cache=True)
def holder_count(h, hist, p):
    """``N_j`` (``float64``) of holder ``h`` whose hidden hand has ``hist[k]``
    tiles of class ``k`` (``int64``, ``(ncls[h],)``), from the
    :class:`Parts` ``p`` (its slot groups, classes, replacements and played
    tiles): inclusion-exclusion over its replacements' preconditions, each
    term a :func:`count_assignments`."""
    G, gsize, ncls, cls_a, cls_vb, ra, nr = p.G, p.gsize, p.ncls, p.cls_a, p.cls_vb, p.ra, p.nr
    npl, pa, pb, pvb = p.npl, p.pa, p.pb, p.pvb
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
            glo[i] = _raised_low(cls_a[h, k], cls_vb[h, k], S, nrh, ra, h)
            ghi[i] = G[h]
            gm[i] = hist[k]
            i += 1
        for q in range(npl[h]):
            glo[i] = _raised_low(pa[h, q], pvb[h, q], S, nrh, ra, h)
            ghi[i] = pb[h, q]
            gm[i] = 1
            i += 1
        total += sign * count_assignments(G[h], gsize[h], glo, ghi, gm, nk)
    return total


#: Everything the sampler and the counting read, built once per observation
#: (:func:`build_parts`): the unseen ``tiles`` and the holders each may go to
#: (``allow``, bit h = other seat ``hseat[h]``, bit H = boneyard), the sizes
#: ``caps``, the proposal's completion table ``dp`` (mixed radix ``rad``),
#: the holders whose ``N_j`` varies (``wneed``), their slot groups (``G``,
#: ``gtime``, ``gsize``), the tile classes of the N_j cache (``cls``, ``cls_a``
#: suffix start, ``cls_vb`` replacement bits, ``crad`` radix), replacements
#: (``nr``, ``ra`` first slot group after each), tiles played from unknown
#: slots (``npl``, allowed groups ``pa <= g < pb``, ``pvb``; the tiles
#: themselves ``ptile``, read by :mod:`.slots`), and the cache (``hkey``,
#: ``hval``). A kernel that takes it binds the members it uses once, at its
#: top (see :mod:`dominoai.bots.pimc.settings`).
Parts = namedtuple("Parts", [
    "tiles", "allow", "caps", "hseat", "dp", "rad", "wneed",
    "G", "gtime", "gsize", "ncls", "cls", "cls_a", "cls_vb", "crad",
    "nr", "ra", "npl", "pa", "pb", "pvb", "hkey", "hval", "ptile",
])


def build_parts(a: np.ndarray, ev: np.ndarray, rv: np.ndarray, inference: bool) -> Parts:
    """Everything the sampler and the counting read for one observation.

    :param a: the observation's compact form (``int64``, ``(O_SIZE,)``).
    :param ev: its public event log (``int64``, ``(n_events, 4)``).
    :param rv: the rules vector (``int64``, ``(R_SIZE,)``).
    :param inference: False: every unseen tile may go to any other seat or
        the boneyard, only the sizes count (every weight is then 1).
    :returns: a :class:`Parts`.
    :raises ValueError: the log ends in another seat's draw whose fitting
        tile is still to be played (read worlds at the observer's decisions).
    """
    evidence = read_evidence(a, ev, rv, inference)
    hseat, G, gtime, gsize, _, _, _, nr, _, _, npl, ptile, _, status = evidence
    if status == 1:
        raise ValueError("the event log ends in another seat's draw whose tile is still to be "
                         "played; sample worlds at the observing seat's decisions")
    H = len(hseat)
    tiles, allow, cls, ncls, cls_a, cls_vb, cls_n, ra, pa, pb, pvb = tile_classes(a, evidence)
    if not inference:
        allow[:] = (1 << (H + 1)) - 1
    caps = np.zeros(H + 1, np.int64)
    for h in range(H):
        caps[h] = a[O_SIZES + hseat[h]]
    caps[H] = a[O_BONE]
    dp, rad = proposal_table(len(tiles), H, allow, caps)
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
                 cls_vb, crad, nr, ra, npl, pa, pb, pvb, hkey, hval, ptile)
