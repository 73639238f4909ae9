"""The ``easy`` and ``medium`` bots ("Лёгкий" and "Средний" of "How to play Domino").

- ``easy``: a uniformly random legal move.
- ``medium``: sheds its heaviest playable tile; in presets that score the
  ends (All Fives, Fives, Dominoball) it takes the best immediate score, the
  heaviest tile on ties. It never replaces (Dominoball).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import kernels as K
from ..engine import layout as L
from ..game import Move
from ..observation import Observation
from ..tiles import HEAVY_RANK, N_TILES
from .base import BaseBot, register_bot



@njit(cache=True)
def immediate_points(st, rv, code):
    """Points (or strikes) the seat to move scores at once by ``code``: the
    count of the ends after laying the tile (0 in presets that do not score
    the ends). ``st`` is not changed."""
    if code == L.MOVE_REPLACE or rv[L.R_END_SCORING] == L.ENDS_NONE:
        return 0
    tmp = st.copy()
    seat = tmp[L.S_CUR]
    s = K.side_of(rv, seat)
    before = tmp[L.S_POINTS + s]
    K.lay_and_score(tmp, rv, seat, code >> 2, code & 3)
    return tmp[L.S_POINTS + s] - before


@njit(cache=True)
def medium_pick(st, rv, codes, n):
    """Index of medium's choice among ``codes[:n]``: best immediate points,
    then most pips, then the higher half; the first listed on full ties."""
    best = -1
    bkey = -1
    for i in range(n):
        c = codes[i]
        if c == L.MOVE_REPLACE:
            continue
        t = c >> 2
        key = immediate_points(st, rv, c) * N_TILES + HEAVY_RANK[t]
        if key > bkey:
            bkey = key
            best = i
    return best


@register_bot("easy")
class EasyBot(BaseBot):
    """Any legal move, uniformly at random (replacement included)."""

    name = "easy"

    def act(self, observation: Observation) -> Move:
        codes = observation.legal_codes()
        if len(codes) == 0:
            raise ValueError(f"seat {observation.seat} has no move to make")
        return Move.from_code(codes[self.rng.integers(len(codes))])


@register_bot("medium")
class MediumBot(BaseBot):
    """Heaviest playable tile; in ends-scoring presets the best immediate score,
    heaviest on ties."""

    name = "medium"
    uses_seed = False   # deterministic

    def act(self, observation: Observation) -> Move:
        st = observation.engine_state()
        buf = np.zeros(L.MAX_MOVES, np.int64)
        n = K.legal_moves(st, observation.rules_vector, buf)
        if n == 0:
            raise ValueError(f"seat {observation.seat} has no move to make")
        i = medium_pick(st, observation.rules_vector, buf, n)
        return Move.from_code(buf[i if i >= 0 else 0])
