"""The ``hard`` bot ("Сложный" of "How to play Domino" (Russian)): a weighted evaluation of each move.

Every legal move is laid on a copy of the engine state (``kernels.lay``) and
scored as ``sum(weight * feature)``; the best wins (ties: the heavier tile,
then the first listed). The features follow the strategy tips of "How to play Domino" (Russian), one
named weight each (the bot's parameters, e.g. ``hard:void=0,reply=1.5``).
The unit is one pip; a feature that counts something else says how it
converts.

==========  ========================================================================
weight      feature of a move (after it is made)
==========  ========================================================================
``heavy``   pips shed: what the hand counts for at the end, before minus after.
            The count is the rules' (Kozel: a lone 0:0 counts 25; Dominoball:
            a lone 6:6 or 0:0 costs the 10 or 5 strikes the opponent would
            get, as 50 or 25 pips), so keeping a lone 0:0 for last is heavy.
``double``  1 when the tile is a double (a double fits one number only).
``follow``  own tiles left that fit the ends after the move: an answer next turn.
``spread``  distinct numbers (pips) among the own tiles left: can answer any end.
``void``    ends showing a number an opponent is known to lack (it passed or
            drew on it): for each opponent the share of the end classes it
            cannot answer (1: it must draw or pass), times 1 for the seat
            that plays next and 0.5 for the others, doubled for an opponent
            holding 1 or 2 tiles.
``lock``    counting the numbers seen (a number is on 7 tiles): the mean over
            the end classes of ``1 / (1 + u)``, u = tiles of that number not
            seen (not on the line, not held); 1 when nobody else can follow.
            Signed: + when the own side is lighter than every other side
            (estimated pips of the unseen hands) or the others would have to
            draw, - when heavier (a locked line then loses the fish).
``partner`` partnership presets: the chance that the partner can follow the
            ends minus the chance that the next seat (an opponent) can, each
            holding its hand size of the unseen tiles it is not known to lack
            (hypergeometric); tripled when the partner holds 1 or 2 tiles
            (let it go out). A number the partner passed on, left on the
            ends, closes the line to it ("How to play Domino" (Russian): do not close the numbers
            the partner lacks).
``points``  presets that score the ends: points made now (strikes count 5).
``reply``   presets that score the ends: minus the expected best points the
            next seat (an opponent) makes with one tile: every unseen tile it
            may hold (not excluded by its voids) is scored on the new ends
            (end sums one tile turns into a multiple of 5), and the expected
            maximum is taken with each tile held with probability
            size / candidates. A reply that would reach an instant target
            (Fives) counts 100 more.
``replace`` Dominoball only, a threshold in strikes (not a weight): replace
            (draw instead of playing) when the expected gain of one more tile,
            ``E[max(0, best strikes with the new tile - best strikes now)]``
            over the tiles it may draw (those the opponent cannot hold are
            in the boneyard for sure), minus its cost (1 strike after the
            free one, when there is a strike to lose) exceeds ``replace``.
            The default is negative: a tile is worth more than the score it
            makes at once (it is another answer later), and measured against
            ``medium`` taking every free replacement wins far more often.
==========  ========================================================================

Fixed rule (not a weight): a move whose points reach an instant target (Fives)
wins the match: +1000, and no reply is counted after it. (Going out needs no
rule: with one tile left every move goes out.)

The defaults were tuned against ``medium`` over every preset, seats swapped
(``experiments/duel.py``); ``explain(observation)`` lists every move with its
value and features.

The evaluation is one numba kernel (:func:`~dominoai.nets.hardeval.hard_eval`,
in :mod:`dominoai.nets.hardeval`, which also holds :data:`FEATURE_TABLE`
and explains how to add a feature) over the engine state
(``Observation.engine_state()``) and the compact observation array
(``Observation.array``); ``act`` only builds the move list and calls it.
Add a row to the table above for a new feature, and keep its default
weight 0 until it is tuned: a new feature at weight 0 changes no move.

>>> from dominoai import Match
>>> from dominoai.bots import make_bot
>>> bot = make_bot("hard:void=0,reply=2")
>>> bot.weights["void"], bot.weights["reply"], bot.spec
(0.0, 2.0, 'hard:void=0.0,reply=2.0')
>>> h = Match("block", seed=1).new_hand(leader=0)
>>> bot.act(h.observe()) in h.legal_moves()
True
"""

from __future__ import annotations

import numpy as np

from ..engine import kernels as K
from ..engine import layout as L
from ..game import Move
# the evaluator's public names, documented with this bot, stay importable from here
from ..nets.hardeval import (
    DEFAULT_WEIGHTS, FEATURE_TABLE, FEATURES, N_FEATURES, N_WEIGHTS, REPLACE_PARAM, hard_eval, hard_eval_into,
    hard_pick, hard_scratch,
)
from ..observation import Observation
from .base import BaseBot, Param, register_bot

__all__ = ["HardBot", "FEATURES", "FEATURE_TABLE", "DEFAULT_WEIGHTS", "N_FEATURES", "N_WEIGHTS",
           "hard_eval", "hard_eval_into", "hard_pick", "hard_scratch"]


# ---------------------------------------------------------------- the bot
def _w(default: float, help: str, low: float = 0.0, high: float | None = None) -> Param:
    """A weight: tunable over ``low .. high`` (default ``0 .. 3 x default``)."""
    return Param(float, default, help, low=low, high=high if high is not None else round(3.0 * default, 6))


@register_bot("hard")
class HardBot(BaseBot):
    """A weighted evaluation of each move (see the module docstring); the
    weights are its parameters."""

    name = "hard"
    uses_seed = False   # deterministic: ties go to the heavier tile
    PARAMS = {**{name: _w(default, help) for name, default, help in FEATURE_TABLE},
              REPLACE_PARAM[0]: _w(REPLACE_PARAM[1], REPLACE_PARAM[2], low=-3.0, high=3.0)}

    def __init__(self, seed: int | None = None, **params):
        super().__init__(seed, **params)
        self._w = np.array([float(self.params[k]) for k in (*FEATURES, REPLACE_PARAM[0])], np.float64)
        self._buf = np.zeros(L.MAX_MOVES, np.int64)

    @property
    def weights(self) -> dict:
        """The weights by name (the replacement threshold included)."""
        return dict(zip((*FEATURES, REPLACE_PARAM[0]), self._w.tolist()))

    @property
    def weight_vector(self) -> np.ndarray:
        """The weights as the kernels take them: ``float64``, shape
        ``(N_WEIGHTS,)``, in the order of ``FEATURES`` then ``replace``
        (a copy)."""
        return self._w.copy()

    def act(self, observation: Observation) -> Move:
        st = observation.engine_state()
        buf = self._buf
        n = K.legal_moves(st, observation.rules_vector, buf)
        if n == 0:
            raise ValueError(f"seat {observation.seat} has no move to make")
        if n == 1:
            return Move.from_code(buf[0])
        # a writable copy of the (read-only) compact array: the kernels then have one
        # compiled copy, shared with the rollouts of the search bots
        a = observation.array.copy()
        return Move.from_code(buf[hard_pick(st, observation.rules_vector, a, buf, n, self._w)])

    def explain(self, observation: Observation) -> list[dict]:
        """Every legal move with its value and features, best first (the
        chosen move is first; the replacement's features are None)."""
        st = observation.engine_state()
        buf = np.zeros(L.MAX_MOVES, np.int64)
        n = K.legal_moves(st, observation.rules_vector, buf)
        if n == 0:
            return []
        feats = np.zeros((n, N_FEATURES), np.float64)
        vals = np.zeros(n, np.float64)
        i = hard_eval(st, observation.rules_vector, observation.array.copy(), buf, n, self._w, feats, vals)
        rows = []
        for j in range(n):
            code = int(buf[j])
            rows.append({
                "move": str(Move.from_code(code)) if code != L.MOVE_REPLACE else "replace",
                "code": code,
                "chosen": j == i,
                "value": float(vals[j]),
                "features": None if code == L.MOVE_REPLACE else dict(zip(FEATURES, feats[j].tolist())),
            })
        rows.sort(key=lambda r: (not r["chosen"], -r["value"]))
        return rows
