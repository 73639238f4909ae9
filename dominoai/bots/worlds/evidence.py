"""Reading the history: what each other seat cannot hold, and when.

From the observing seat, each other seat ``j`` received its tiles in *slots*:
its deal positions, and the positions of each of its draws. At a draw of
``c`` tiles the first ``c-1`` did not fit and the ``c``-th was played at once
(public, its slot is known), or all ``c`` did not fit and ``j`` passed. A
*void event* of ``j`` (a pass, or the start of a draw, on open pips ``V``)
says every tile ``j`` held then, and every non-final tile it drew then, shows
no pip of ``V`` (docs/worlds.md, "Slots"). On the first hand of a
``highest_double`` preset the lead adds one more void event at the deal:
nobody was dealt a double above the lead (or, when the lead is not a double,
any double or heavier tile: the lead rule of the preset, docs/rules.md). A Dominoball replacement
is legal only when the seat could play (docs/rules.md, `dominoball`), so it records
the open ends of that moment too.

Everything here is read from the observation's public event log
(:attr:`Observation.event_array`), never from hidden state.

Times on a seat's timeline are ``0`` for the deal and ``2e + 2`` for the
event of index ``e`` (a replacement's tile arrives at ``2e + 3``). Kernels
are ``@njit(cache=True)`` over ``int64`` arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from ...engine.observe import O_CUR, O_HAND_NO, O_SEAT
from ...tiles import HEAVY_ORDER, MAX_PIP, N_PIPS, N_TILES, PIP_MASK, TILE_HIGH, TILE_IS_DOUBLE

__all__ = ["MAXG", "MAXV", "MAXP", "MAXR", "pips_to_tiles", "better_leads", "read_evidence",
           "event_time"]

_ONE = np.int64(1)

MAXG = N_TILES + 1  # slot groups per seat: the deal, then at most one per tile taken from the boneyard
MAXV = 256     # void events per seat
MAXP = N_TILES  # tiles a seat played from an unknown slot
MAXR = 8       # replacements per seat in a hand


@njit(cache=True, inline="always")
def event_time(e):
    """The time on the seats' timelines of the event of index ``e``:
    ``2 * e + 2`` (the deal is 0; a replacement's tile arrives one later)."""
    return 2 * e + 2


@njit(cache=True)
def pips_to_tiles(bits):
    """Mask (``int64``, bit t = tile id t) of the tiles showing any pip of the
    bit set ``bits`` (bit p = pip p)."""
    m = np.int64(0)
    for p in range(N_PIPS):
        if (bits >> p) & 1:
            m |= PIP_MASK[p]
    return m


@njit(cache=True)
def better_leads(t):
    """Mask (``int64``) of the tiles that would have led instead of tile id
    ``t`` under ``highest_double``: the higher doubles if ``t`` is a double,
    else every double and every tile heavier than ``t``."""
    m = np.int64(0)
    if TILE_IS_DOUBLE[t]:
        for d in range(TILE_HIGH[t] + 1, MAX_PIP + 1):
            m |= _ONE << (d * (d + 1) // 2 + d)
        return m
    for d in range(N_PIPS):
        m |= _ONE << (d * (d + 1) // 2 + d)
    for j in range(N_TILES):
        u = HEAVY_ORDER[j]
        if u == t:
            break
        m |= _ONE << u
    return m


@njit(cache=True)
def read_evidence(a, ev, rv, inference):
    """Read the public history from seat ``a[O_SEAT]``.

    :param a: the observation's compact form (``int64``, ``(O_SIZE,)``).
    :param ev: its public event log (``int64``, ``(n_events, 4)``).
    :param rv: the rules vector (``int64``, ``(R_SIZE,)``).
    :param inference: False: drop every void event and replacement (the
        ablation: only the slots remain).
    :returns: ``(hseat, G, gtime, gsize, nv, vtime, vmask, nr, rtime, rmask,
        npl, ptile, ptime, status)``, all ``int64``, per *holder* ``h`` (the
        other seats in turn order after the observer, seat ``hseat[h]``;
        ``H = players - 1`` holders): ``G[h]`` slot groups at times
        ``gtime[h, :G]`` of ``gsize[h, :G]`` slots each (group 0 is the
        deal), shape ``(H, MAXG)``; ``nv[h]`` void events at ``vtime`` with
        the forbidden tiles ``vmask`` (``(H, MAXV)``); ``nr[h]``
        replacements made on a line at ``rtime`` with the tiles that fitted
        then ``rmask`` (``(H, MAXR)``); ``npl[h]`` tiles played from an
        unknown slot, ``ptile`` at ``ptime`` (``(H, MAXP)``). ``status`` 1
        means the log ends in another seat's draw whose fitting tile is not
        played yet (no world can be read there), else 0."""
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
    line = K.empty_line(rv)
    for e in range(nev):
        kind = ev[e, 0]
        seat = ev[e, 1]
        t = event_time(e)
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
