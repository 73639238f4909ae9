"""The world vector: a whole world (every hand known) as a value network's input.

Inside the search a world is fully known, so the value network of
:mod:`dominoai.learn.value` reads the engine state itself, not an
observation: every seat's hand, the line and its ends, the boneyard, the
seat to move and the points, all seen from one seat (the *viewpoint*, the
seat whose value is wanted). Seats are numbered relative to it (relative
seat ``k`` is seat ``(viewpoint + k) % players``), so one network serves
every seat.

The vector (``float32``, shape ``(WORLD_SIZE,)`` = 253), field by field:

=============  =====  ========================================================
slice          width  content
=============  =====  ========================================================
``0:112``      4 x 28 hands: ``28*k + t`` is 1 when relative seat ``k``
                      holds tile ``t`` (seats past the player count are 0)
``112:140``    28     the line: 1 for every tile already played
``140:168``    28     the boneyard: 1 for every tile not drawn yet
``168:196``    4 x 7  ends: ``168 + 7*k + p`` is 1 when end ``k`` (left,
                      right, up, down) is open on pip ``p``
``196:204``    4 x 2  end kinds: ``196 + 2*k`` 1 for a double at end ``k``,
                      ``197 + 2*k`` 1 for an unplayed spinner side
``204:208``    4      the seat to move, relative (all 0 once the hand is over)
``208:236``    28     the tile that must be played now (a drawn or forced
                      lead tile), 1 at its id
``236:239``    3      the spinner: none yet, chosen (closed), open
``239:253``    14     plain numbers (:data:`WORLD_RAW_NAMES`): the hand
                      sizes (relative seats 0..3), the tiles that can still
                      be drawn, the points of the viewpoint's side and of
                      the other sides in this hand, the match scores of the
                      viewpoint's side and of the best other side, the
                      target, the replacements used (relative seats 0..3)
=============  =====  ========================================================

:func:`world_scale` gives each entry's fixed input factor (1 for the 0/1
entries, 0.1 for counts of tiles, 0.01 for points). The layout's version is
:data:`WORLD_ENCODING_VERSION`; a value model records it and is refused under
another one.

Kernels only (``@njit(cache=True)``); numpy types only.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import kernels as K
from ..engine import layout as L
from ..tiles import N_PIPS, N_TILES

__all__ = ["WORLD_SIZE", "WORLD_ENCODING_VERSION", "WORLD_RAW_NAMES", "W_HANDS", "W_LINE",
           "W_BONE", "W_ENDS", "W_KINDS", "W_CUR", "W_MUST", "W_SPIN", "W_RAW",
           "encode_world_into", "encode_world", "world_scale"]

#: the version of the world vector's layout; any change to the table raises it
WORLD_ENCODING_VERSION = 1
#: where each block of the vector starts (the table above): four seats'
#: hands of N_TILES each, the line and the boneyard, four ends of N_PIPS
#: pips and two kinds, four seats to move, the tile to play, three spinner
#: states
W_HANDS = 0
W_LINE = W_HANDS + 4 * N_TILES
W_BONE = W_LINE + N_TILES
W_ENDS = W_BONE + N_TILES
W_KINDS = W_ENDS + 4 * N_PIPS
W_CUR = W_KINDS + 4 * 2
W_MUST = W_CUR + 4
W_SPIN = W_MUST + N_TILES
W_RAW = W_SPIN + 3
#: the names of the plain numbers (vector entries ``W_RAW`` on)
WORLD_RAW_NAMES = ("size[0]", "size[1]", "size[2]", "size[3]", "drawable", "points_own",
                   "points_other", "score_own", "score_other", "target", "repl[0]", "repl[1]",
                   "repl[2]", "repl[3]")
WORLD_SIZE = W_RAW + len(WORLD_RAW_NAMES)


def world_scale() -> np.ndarray:
    """The factor each world vector entry is multiplied by before the first
    layer (``float32``, ``(WORLD_SIZE,)``): 1 for the 0/1 entries and the
    replacements, 0.1 for the hand sizes and the drawable tiles, 0.01 for
    points, scores and the target."""
    s = np.ones(WORLD_SIZE, np.float32)
    s[W_RAW:W_RAW + 5] = 0.1
    s[W_RAW + 5:W_RAW + 10] = 0.01
    return s


@njit(cache=True)
def encode_world_into(st, rv, seat, out):
    """Write the world vector of the engine state ``st`` (``int64``,
    ``(S_SIZE,)``) under the rules vector ``rv``, seen from ``seat``, into
    ``out`` (``float32``, at least ``WORLD_SIZE`` long; the first
    ``WORLD_SIZE`` entries are all written). The layout is the module's
    table. Allocates nothing."""
    for i in range(WORLD_SIZE):
        out[i] = 0.0
    n = rv[L.R_PLAYERS]
    for k in range(n):
        h = st[L.S_HAND + (seat + k) % n]
        for t in range(N_TILES):
            if (h >> t) & 1:
                out[W_HANDS + N_TILES * k + t] = 1.0
        out[W_RAW + k] = K.popcount(h)
        out[W_RAW + 10 + k] = st[L.S_REPL + (seat + k) % n]
    line = st[L.S_PLAYED]
    for t in range(N_TILES):
        if (line >> t) & 1:
            out[W_LINE + t] = 1.0
    for j in range(st[L.S_BONE_POS], st[L.S_BONE_END]):
        out[W_BONE + st[L.S_BONE + j]] = 1.0
    for k in range(4):
        p = st[L.S_END_PIP + k]
        if p >= 0:
            out[W_ENDS + N_PIPS * k + p] = 1.0
        kind = st[L.S_END_KIND + k]
        if kind == 1:
            out[W_KINDS + 2 * k] = 1.0
        elif kind == 2:
            out[W_KINDS + 2 * k + 1] = 1.0
    cur = st[L.S_CUR]
    if cur >= 0:
        out[W_CUR + (cur - seat + n) % n] = 1.0
    must = st[L.S_MUST]
    if must >= 0:
        out[W_MUST + must] = 1.0
    spin = st[L.S_SPIN]
    if 0 <= spin <= 2:
        out[W_SPIN + spin] = 1.0
    if rv[L.R_DRAWING]:
        d = K.bone_left(st) - rv[L.R_RESERVE]
        if d > 0:
            out[W_RAW + 4] = d
    own = K.side_of(rv, seat)
    other_pts = 0
    other_score = 0
    first = True
    for s in range(K.n_sides(rv)):
        if s == own:
            out[W_RAW + 5] = st[L.S_POINTS + s]
            out[W_RAW + 7] = st[L.S_SCORE + s]
        else:
            other_pts += st[L.S_POINTS + s]
            if first or st[L.S_SCORE + s] > other_score:
                other_score = st[L.S_SCORE + s]
            first = False
    out[W_RAW + 6] = other_pts
    out[W_RAW + 8] = other_score
    out[W_RAW + 9] = rv[L.R_TARGET]


def encode_world(st: np.ndarray, rv: np.ndarray, seat: int) -> np.ndarray:
    """The world vector (``float32``, ``(WORLD_SIZE,)``) of one engine state
    ``st`` (``int64``, ``(S_SIZE,)``, e.g. ``Match.state_copy()``) under the
    rules vector ``rv`` (``Rules.vector()``), seen from ``seat``.

    :raises ValueError: ``st`` or ``rv`` of the wrong shape, or ``seat``
        not a seat of the rules.
    """
    st = np.ascontiguousarray(st, np.int64)
    rv = np.ascontiguousarray(rv, np.int64)
    if st.shape != (L.S_SIZE,) or rv.shape != (L.R_SIZE,):
        raise ValueError(f"a state has shape ({L.S_SIZE},) and a rules vector ({L.R_SIZE},) "
                         f"(got {st.shape} and {rv.shape})")
    if not 0 <= int(seat) < int(rv[L.R_PLAYERS]):
        raise ValueError(f"seat must be 0..{int(rv[L.R_PLAYERS]) - 1} (got {seat})")
    out = np.empty(WORLD_SIZE, np.float32)
    encode_world_into(st, rv, int(seat), out)
    return out
