"""The observation kernel: one seat's view of an engine state, as a flat array.

Kernels only (``@njit(cache=True)``, numpy types in and out, nothing from the
facade). :class:`dominoai.observation.Observation` wraps the array this
module fills; the search bots call the same kernel on their rollout states,
so an observation is built in exactly one place. The layout (``O_*``
offsets) is documented in :mod:`dominoai.observation`.
"""
from __future__ import annotations

from numba import njit

from . import kernels as K
from . import layout as L
from ..tiles import FULL_MASK, N_TILES

__all__ = ["observe_into", "state_from_observation", "O_SIZE"]

O_SEAT = 0
O_HAND = 1
O_LINE = 2
O_END_PIP = 3
O_END_KIND = 7
O_CAND = 11
O_SPIN = 13
O_SPIN_TILE = 14
O_LEAD_TILE = 15
O_NPLAYED = 16
O_MUST = 17
O_CUR = 18
O_LEADER = 19
O_SIZES = 20
O_BONE = 24
O_SCORE = 25
O_POINTS = 29
O_VOID = 33
O_UNSEEN = 37
O_REPL = 38
O_HAND_NO = 42
O_CARRY = 43
O_STATUS = 44
O_SIZE = 48

@njit(cache=True)
def observe_into(st, rv, seat, a):
    """Write into ``a`` (``int64``, shape ``(O_SIZE,)``) what ``seat`` may know
    of the engine state ``st`` (``int64``, ``(S_SIZE,)``) under the rules
    vector ``rv``: its own tiles, the line, the ends, every hand size, the
    boneyard size, scores and points, the public voids (``S_VOID``) and the
    tiles it has not seen. The tile that must be played (``O_MUST``) is shown
    only to the seat to move. Hidden tiles never reach ``a``."""
    for i in range(O_SIZE):
        a[i] = 0
    own = st[L.S_HAND + seat]
    cur = st[L.S_CUR]
    a[O_SEAT] = seat
    a[O_HAND] = own
    a[O_LINE] = st[L.S_PLAYED]
    for k in range(4):
        a[O_END_PIP + k] = st[L.S_END_PIP + k]
        a[O_END_KIND + k] = st[L.S_END_KIND + k]
        a[O_SCORE + k] = st[L.S_SCORE + k]
        a[O_POINTS + k] = st[L.S_POINTS + k]
    a[O_CAND] = st[L.S_CAND]
    a[O_CAND + 1] = st[L.S_CAND + 1]
    a[O_SPIN] = st[L.S_SPIN]
    a[O_SPIN_TILE] = st[L.S_SPIN_TILE]
    a[O_LEAD_TILE] = st[L.S_LEAD_TILE]
    a[O_NPLAYED] = st[L.S_NPLAYED]
    a[O_MUST] = st[L.S_MUST] if cur == seat else -1
    a[O_CUR] = cur
    a[O_LEADER] = st[L.S_LEADER]
    for i in range(rv[L.R_PLAYERS]):
        a[O_SIZES + i] = K.popcount(st[L.S_HAND + i])
        a[O_VOID + i] = st[L.S_VOID + i]
        a[O_REPL + i] = st[L.S_REPL + i]
    a[O_BONE] = K.bone_left(st)
    a[O_UNSEEN] = FULL_MASK & ~own & ~st[L.S_PLAYED]
    a[O_HAND_NO] = st[L.S_HAND_NO]
    a[O_CARRY] = st[L.S_CARRY]
    a[O_STATUS] = st[L.S_STATUS]


@njit(cache=True)
def state_from_observation(a, players, st):
    """Write what an observation array ``a`` knows into an engine state ``st``
    (the inverse of :func:`observe_into` as far as it goes): other hands stay
    empty and the boneyard holds unknown (-1) tiles. Enough for legal moves
    and for scoring a move on the line, never for playing on."""
    st[L.S_PLAYERS] = players
    st[L.S_HAND + a[O_SEAT]] = a[O_HAND]
    st[L.S_CUR] = a[O_CUR]
    st[L.S_LEADER] = a[O_LEADER]
    st[L.S_NPLAYED] = a[O_NPLAYED]
    st[L.S_BONE_POS] = 0
    st[L.S_BONE_END] = a[O_BONE]
    for j in range(N_TILES):
        st[L.S_BONE + j] = -1
    for k in range(4):
        st[L.S_END_PIP + k] = a[O_END_PIP + k]
        st[L.S_END_KIND + k] = a[O_END_KIND + k]
        st[L.S_SCORE + k] = a[O_SCORE + k]
        st[L.S_POINTS + k] = a[O_POINTS + k]
        st[L.S_REPL + k] = a[O_REPL + k]
        st[L.S_VOID + k] = a[O_VOID + k]
    st[L.S_CAND] = a[O_CAND]
    st[L.S_CAND + 1] = a[O_CAND + 1]
    st[L.S_SPIN] = a[O_SPIN]
    st[L.S_SPIN_TILE] = a[O_SPIN_TILE]
    st[L.S_MUST] = a[O_MUST]
    st[L.S_PLAYED] = a[O_LINE]
    st[L.S_LEAD_TILE] = a[O_LEAD_TILE]
    st[L.S_CARRY] = a[O_CARRY]
    st[L.S_HAND_NO] = a[O_HAND_NO]
    st[L.S_STATUS] = a[O_STATUS]
