"""What a rolled-out or solved world is worth to the searching seat.

The value is the points the searching seat's side made in the rest of the
hand minus the points the other sides made (ends scored during play
included; the partner is on the seat's side). Where recorded points are bad
(Kozel, ``target_mode = reach_loses``; docs/rules.md, `kozel`) the sign is turned, so that
higher is always better for the seat.
"""

from __future__ import annotations

from numba import njit

from ...engine import kernels as K
from ...engine import layout as L

__all__ = ["hand_value", "tiles_left"]


@njit(cache=True)
def hand_value(st, rv, seat, p0):
    """Points the side of ``seat`` made since ``p0`` (``int64``, points per
    side before, shape ``(4,)``) minus what the other sides made, in the
    rules' points (strikes in Dominoball); negated where recorded points are
    bad (Kozel). ``st``: an engine state (``int64``, ``(S_SIZE,)``)."""
    own = K.side_of(rv, seat)
    v = 0
    for s in range(K.n_sides(rv)):
        d = st[L.S_POINTS + s] - p0[s]
        if s == own:
            v += d
        else:
            v -= d
    if K.low_is_good(rv):
        v = -v
    return v


@njit(cache=True)
def tiles_left(st, rv):
    """Tiles that can still reach the line: every hand, plus the boneyard above
    its reserve in presets that draw (a count of tiles)."""
    n = 0
    for i in range(rv[L.R_PLAYERS]):
        n += K.popcount(st[L.S_HAND + i])
    if rv[L.R_DRAWING]:
        b = K.bone_left(st) - rv[L.R_RESERVE]
        if b > 0:
            n += b
    return n
