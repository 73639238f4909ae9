"""The consistency checker of worlds (docs/worlds.md), for the tests only.

Whether the public history seen by an observation could have happened with
a given world (every seat's hand now, and the boneyard in draw order). It is
written apart from the sampler in :mod:`dominoai.bots.worlds`: its own
reading of the event log, a tile-by-slot check that walks the seat's events,
and a bipartite matching by augmenting paths (breadth-first and iterative:
numba's cache mishandles recursion), with a witness enumeration for
Dominoball's replacements; so ``tests/test_worlds.py`` can pit one against
the other, and both against engine replay. It imports the engine's kernels
(to lay tiles on a scratch line) but nothing of the sampler.

Event times here are event indices (the deal is -1); a slot that arrives at
``e`` is covered by a void at ``v`` when ``arrive <= v < leave``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.observation import (
    O_BONE, O_HAND, O_HAND_NO, O_LINE, O_SEAT, O_SIZES, O_UNSEEN,
)
from dominoai.tiles import HEAVY_ORDER, PIP_MASK, TILE_HIGH, TILE_IS_DOUBLE

__all__ = ["Checker", "is_consistent"]

_PM = PIP_MASK.copy()
_HIGH = TILE_HIGH.copy()
_DBL = TILE_IS_DOUBLE.copy()
_HEAVY = HEAVY_ORDER.copy()
_ONE = np.int64(1)


@njit(cache=True)
def _chk_events(a, ev, rv):
    """Per seat: slot arrivals, void events and replacement preconditions
    (times as in the module docstring)."""
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
    line = K.empty_line(rv)
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
    nt = K.tiles_into(R, tl)
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
