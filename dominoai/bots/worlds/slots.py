"""Slots: which of a seat's tiles it held from the deal, and which it drew when.

Given a world (each other seat's hidden hand), the deck orders that lead to
it differ in where each seat's tiles sat: its deal positions or one of its
draws (docs/worlds.md, "Slots"). They are equally likely, and there are ``N_j``
of them for seat ``j`` (:func:`~.counting.holder_count`). The play model
where tiles are drawn needs one of them: the hand a seat held at each of its
past decisions is its tiles acquired by then and not yet played.

:func:`sample_slots_into` draws one assignment of a seat's tiles to its slot
groups uniformly among the ``N_j`` (forward counts over the slot groups,
then a backward draw; the same dynamic program as
:func:`~.counting.count_assignments`, whose count it returns). The tiles of
a group with one allowed interval are exchangeable, so they are dealt out to
the chosen counts after a uniform shuffle. Rules with replacements
(Dominoball) are not supported: their counts need inclusion-exclusion
(the caller checks). Kernels are ``@njit(cache=True)``; the random state is
a ``uint64`` array of one element, passed explicitly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import kernels as K
from .counting import _BINOM, _FACT, next_take
from .evidence import MAXG
from .sampling import _rand01

__all__ = ["sample_slots_into", "acquired_after_into", "MAX_STATES"]

_ONE = np.int64(1)
#: the largest count table (states of the remaining tiles per group) drawn from
MAX_STATES = 1 << 17


@njit(cache=True, inline="always")
def _active_into(g, ng, lo, hi, act):
    """The tile groups whose allowed interval ``lo <= g < hi`` holds slot
    group ``g``, into ``act``; returns how many."""
    na = np.int64(0)
    for k in range(ng):
        if lo[k] <= g < hi[k]:
            act[na] = k
            na += 1
    return na


@njit(cache=True)
def _step_weight(code, g, c, na, act, rad, mm, take):
    """Weight ``c! * prod C(rem_k, take_k)`` of taking ``take[j]`` tiles of
    the active groups ``act[j]`` into slot group ``g`` (``c`` slots) from the
    state ``code`` (remaining counts, mixed radix ``rad`` over ``mm + 1``),
    and the state after it (returned as ``(weight, next code)``)."""
    w = _FACT[c]
    nc = code
    for j in range(na):
        k = act[j]
        rem = (code // rad[k]) % (mm[k] + 1)
        w *= _BINOM[rem, take[j]]
        nc -= take[j] * rad[k]
    return w, nc


@njit(cache=True)
def sample_slots_into(h, hand, G, gsize, cls, cls_a, npl, pa, pb, ptile, rs, acq):
    """Draw, uniformly among the ways the deck could have dealt them, the slot
    group of each tile of holder ``h``: its hidden ``hand`` (``int64`` tile
    mask, as in the world) and the tiles it played from an unknown slot.

    ``G`` .. ``ptile``: the :class:`~.counting.Parts` fields of those names
    (slot groups in time order, group 0 the deal; each hidden tile's class
    and the class's first allowed group; each played tile's allowed groups
    ``pa <= g < pb``). ``rs``: the generator (``uint64``, ``(1,)``,
    advanced). ``acq``: out, ``int64`` ``(MAXG,)``: ``acq[g]`` the mask of
    the tiles put in slot group ``g`` (the others 0).

    :returns: ``N_j`` (``float64``), the number of assignments drawn from;
        0.0 when there is none (``acq`` is then all 0); -1.0 when the count
        table would exceed :data:`MAX_STATES` states (not drawn).
    """
    Gh = G[h]
    for g in range(MAXG):
        acq[g] = 0
    n_hidden = K.popcount(hand)
    nt = max(n_hidden + npl[h], 1)    # at most one tile group per tile
    lo = np.zeros(nt, np.int64)
    hi = np.zeros(nt, np.int64)
    mm = np.zeros(nt, np.int64)
    mem = np.zeros((nt, nt), np.int64)
    ng = 0
    m = hand
    for i in range(n_hidden + npl[h]):
        if i < n_hidden:
            x = K.lowest_tile(m)
            m &= m - 1
            c = cls[h, x]
            if c < 0:
                return 0.0
            a, b = cls_a[h, c], Gh
        else:
            q = i - n_hidden
            x = ptile[h, q]
            a, b = pa[h, q], pb[h, q]
        if a >= b:
            return 0.0
        f = -1
        for k in range(ng):
            if lo[k] == a and hi[k] == b:
                f = k
                break
        if f < 0:
            f = ng
            lo[f] = a
            hi[f] = b
            ng += 1
        mem[f, mm[f]] = x
        mm[f] += 1
    ns = 0
    for g in range(Gh):
        ns += gsize[h, g]
    if ns != n_hidden + npl[h]:
        return 0.0
    rad = np.zeros(max(ng, 1), np.int64)
    P = 1
    for k in range(ng):
        rad[k] = P
        P *= mm[k] + 1
        if P > MAX_STATES:
            return -1.0
    # forward: F[g, code] = ways to fill slot groups 0..g-1 leaving ``code``
    F = np.zeros((Gh + 1, P), np.float64)
    F[0, P - 1] = 1.0
    act = np.zeros(max(ng, 1), np.int64)
    take = np.zeros(max(ng, 1), np.int64)
    cap = np.zeros(max(ng, 1), np.int64)
    keep = np.zeros(max(ng, 1), np.int64)
    groups = (act, rad, mm, take, cap, keep)
    for g in range(Gh):
        c = gsize[h, g]
        na = _active_into(g, ng, lo, hi, act)
        for code in range(P):
            v = F[g, code]
            if v == 0.0:
                continue
            ok = True
            for k in range(ng):
                if hi[k] <= g and (code // rad[k]) % (mm[k] + 1) > 0:
                    ok = False
                    break
            if not ok:
                continue
            if c == 0:
                F[g + 1, code] += v
                continue
            if na == 0:
                continue
            for j in range(na):
                cap[j] = min(c, (code // rad[act[j]]) % (mm[act[j]] + 1))
            _each_take(code, g, c, na, groups, F, v, True, 0.0)
    n_ways = F[Gh, 0]
    if n_ways <= 0.0:
        return 0.0
    # backward: from the empty state, a predecessor in proportion to its ways;
    # their total is the state's count F[g + 1, code] (exact: integers below 2**53)
    tk = np.zeros((Gh, max(ng, 1)), np.int64)
    code = np.int64(0)
    for g in range(Gh - 1, -1, -1):
        c = gsize[h, g]
        if c == 0:
            continue
        na = _active_into(g, ng, lo, hi, act)
        for j in range(na):
            k = act[j]
            cap[j] = min(c, mm[k] - (code // rad[k]) % (mm[k] + 1))
        u = _rand01(rs) * F[g + 1, code]
        _each_take(code, g, c, na, groups, F, 0.0, False, u)
        for j in range(na):
            tk[g, act[j]] = take[j]
            code += take[j] * rad[act[j]]
    # the tiles: a uniform shuffle of each group, dealt out in slot order
    for k in range(ng):
        for i in range(mm[k] - 1, 0, -1):
            j = K.rng_below(rs, i + 1)
            t = mem[k, i]
            mem[k, i] = mem[k, j]
            mem[k, j] = t
    pos = np.zeros(max(ng, 1), np.int64)
    for g in range(Gh):
        for k in range(ng):
            for _ in range(tk[g, k]):
                acq[g] |= _ONE << mem[k, pos[k]]
                pos[k] += 1
    return n_ways


@njit(cache=True)
def _each_take(code, g, c, na, groups, F, v, forward, u):
    """Enumerate the take vectors ``take[:na]`` (``0 <= take[j] <= cap[j]``,
    summing to ``c``) of slot group ``g``; ``groups`` is the tuple ``(act,
    rad, mm, take, cap, keep)`` of :func:`sample_slots_into`'s tile groups.

    - ``forward``: add ``v * weight`` to ``F[g + 1, next]`` for each (``code``
      the state before the group).
    - else (``code`` the state after the group): leave in ``take`` the
      predecessor ``prev`` at which the running total of ``F[g, prev] *
      weight`` first exceeds ``u`` (the last one of positive weight if
      rounding runs past the end; ``keep`` is scratch)."""
    act, rad, mm, take, cap, keep = groups
    for j in range(na):
        take[j] = 0
    total = 0.0
    seen = False
    while True:
        s = 0
        for j in range(na - 1):
            s += take[j]
        rest = c - s
        if 0 <= rest <= cap[na - 1]:
            take[na - 1] = rest
            if forward:
                w, nc = _step_weight(code, g, c, na, act, rad, mm, take)
                F[g + 1, nc] += v * w
            else:
                prev = code
                for j in range(na):
                    prev += take[j] * rad[act[j]]
                w, _ = _step_weight(prev, g, c, na, act, rad, mm, take)
                x = F[g, prev] * w
                if x > 0.0:
                    total += x
                    seen = True
                    for j in range(na):
                        keep[j] = take[j]
                    if total > u:
                        return
        if not next_take(take, cap, na, s, c):
            break
    if not forward and seen:
        for j in range(na):
            take[j] = keep[j]


@njit(cache=True)
def acquired_after_into(acq, Gh, suf):
    """``suf[g]`` = the tiles of slot groups ``g`` and later (``acq``: the
    masks of :func:`sample_slots_into`, ``Gh`` groups; ``suf``: out,
    ``int64`` ``(MAXG + 1,)``, ``suf[Gh] = 0``)."""
    suf[Gh] = 0
    for g in range(Gh - 1, -1, -1):
        suf[g] = suf[g + 1] | acq[g]
