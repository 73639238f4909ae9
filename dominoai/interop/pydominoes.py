"""The ``dominoes`` package's players (version 6.1, PyPI) as dominoai bots
(docs/interop.md).

They play the preset ``pydominoes`` (that package's rules, see
:mod:`dominoai.rules`): each decision rebuilds the package's ``Game`` from
the observation (the board from the public plays, its move list with the
passes, the seat's own hand) and asks the player to order
``game.valid_moves``; the first is played. The other hands, which a fair
player never reads (the package's ``random_possible_hands`` pools them and
re-deals them itself), are filled from a world drawn by our sampler, so no
hidden tile reaches a fair player. ``pydominoes-omniscient`` is the
package's named cheat: it is given the true hands (``needs_state``).

Bots (registered when this module is imported):

- ``pydominoes-pab``: ``probabilistic_alphabeta`` with ``sample_size``
  worlds (0: every possible world, the package's default; slow);
- ``pydominoes-omniscient``: ``omniscient`` (alpha-beta on the true hands);
- ``pydominoes-bota-gorda``: ``bota_gorda`` (heaviest tile first);
- ``pydominoes-counter``: ``counter`` around ``identity`` (the first valid move);
- ``pydominoes-random``: ``random``.

The package draws from Python's global :mod:`random`; each bot keeps its own
state of it (seeded from the bot's seed) and restores the global state after
deciding. A bot given another preset raises a one-line ValueError.
"""

from __future__ import annotations

import random as _random

import numpy as np

try:
    import dominoes as _dom
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("dominoai.interop.pydominoes needs the dominoes package: "
                      "pip install 'dominoai[interop]'") from e

from dominoai.bots.base import BaseBot, Param, register_bot
from dominoai.bots.worlds import Belief
from dominoai.engine import layout as L
from dominoai.engine.observe import O_HAND
from dominoai.rules import get_rules
from dominoai.tiles import N_TILES, TILE_HIGH, TILE_LOW

__all__ = ["PRESET", "game_from_observation", "PyDominoesBot"]

PRESET = "pydominoes"
_RULES = get_rules(PRESET)


def _domino(t: int, low_first: bool = False):
    a, b = int(TILE_HIGH[t]), int(TILE_LOW[t])
    return _dom.Domino(b, a) if low_first else _dom.Domino(a, b)


def _tile_id(d) -> int:
    hi, lo = max(d.first, d.second), min(d.first, d.second)
    return hi * (hi + 1) // 2 + lo


def _mask_tiles(mask: int) -> list[int]:
    return [t for t in range(N_TILES) if int(mask) >> t & 1]


def check_rules(rules, bot: str) -> None:
    """:raises ValueError: (one line) ``rules`` are not the package's."""
    if rules != _RULES:
        raise ValueError(f"bot {bot!r} plays only the preset {PRESET!r} (the dominoes package's "
                         f"rules); got {rules.preset}")


def game_from_observation(obs, hands: list[int]):
    """The package's ``Game`` at the observation's decision, with ``hands``
    (one tile mask per seat; the seat's own from ``obs``) as its hands.

    :raises ValueError: ``obs`` is not of the preset ``pydominoes``, or it is
        not the seat's turn.
    """
    check_rules(obs.rules, "pydominoes")
    if not obs.my_turn:
        raise ValueError("the package's players decide only at their own turn")
    board = _dom.Board()
    moves = []
    starting = None
    for kind, seat, a, b in obs.event_array.tolist():
        if kind == L.EV_PLAY:
            if starting is None:
                starting = seat
                d = _domino(a, low_first=(b == 1))
                left = True
            else:
                d = _domino(a)
                left = b == 0
            board.add(d, left)
            moves.append((d, left))
        elif kind == L.EV_PASS:
            moves.append(None)
    seat = obs.seat
    hs = [_dom.Hand([_domino(t) for t in _mask_tiles(m)]) for m in hands]
    game = _dom.Game(board, hs, moves, seat, (), seat if starting is None else starting, None)
    if starting is None:  # the lead: the package plays the 6:6 itself
        game.valid_moves = tuple((d, True) for d in hs[seat])
    else:
        game._update_valid_moves()
    return game


class PyDominoesBot(BaseBot):
    """A player of the ``dominoes`` package deciding through ``act``."""

    name = "pydominoes"
    PARAMS: dict = {}
    cheat = False

    def __init__(self, seed=None, **params):
        super().__init__(seed=seed, **params)
        self._pystate = _random.Random(int(self.rng.integers(2**62))).getstate()
        self._player = self._make()

    def _make(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _decide(self, obs, hands):
        check_rules(obs.rules, self.name)
        legal = obs.legal_moves()
        if len(legal) == 1:
            return legal[0]
        game = game_from_observation(obs, hands)
        board_ends = (game.board.left_end(), game.board.right_end()) if len(game.board) else None
        saved = _random.getstate()
        _random.setstate(self._pystate)
        try:
            self._player(game)
        finally:
            self._pystate = _random.getstate()
            _random.setstate(saved)
        d, left = game.valid_moves[0]
        t = _tile_id(d)
        fits = [m for m in legal if m.tile.id == t]
        if board_ends is None or len(fits) == 1:
            return fits[0]
        pip = board_ends[0] if left else board_ends[1]
        ends = {k: p for k, p, _kind in obs.ends}
        return next(m for m in fits if ends[m.end] == pip)

    def act(self, observation):
        check_rules(observation.rules, self.name)
        hands = [0] * observation.rules.players
        hands[observation.seat] = int(observation.array[O_HAND])
        if observation.my_turn and len(observation.legal_codes()) > 1:
            world = Belief(observation).sample(1, seed=int(self.rng.integers(2**62)))[0][0]
            for s in range(observation.rules.players):
                if s != observation.seat:
                    hands[s] = int(world[L.S_HAND + s])
        return self._decide(observation, hands)


def _register(name, make, params=None, doc="", cheat=False):
    attrs = {"name": name, "PARAMS": params or {}, "_make": make, "__doc__": doc,
             "__module__": __name__}
    cls = type("Bot_" + name.replace("-", "_"), (PyDominoesBot,), attrs)
    if cheat:
        def act(self, observation):
            raise TypeError(f"{name} cheats by design: it needs the true state, "
                            f"call act_with_state(observation, state)")

        def act_with_state(self, observation, state):
            st = np.asarray(state, np.int64)
            if st.shape != (L.S_SIZE,):
                raise ValueError(f"state must be an int64 engine state of shape ({L.S_SIZE},)")
            return self._decide(observation, [int(st[L.S_HAND + s]) for s in range(observation.rules.players)])

        cls.act, cls.act_with_state, cls.needs_state = act, act_with_state, True
    globals()[cls.__name__] = cls
    register_bot(name, cls)
    return cls


_register("pydominoes-pab",
          lambda self: _dom.players.probabilistic_alphabeta(
              sample_size=float("inf") if self.sample_size == 0 else self.sample_size),
          {"sample_size": Param(int, 10, "worlds searched per decision (0: every possible world)", min=0)},
          "The package's probabilistic_alphabeta: alpha-beta on sample_size re-dealt worlds, "
          "the move most often optimal.")
_register("pydominoes-omniscient", lambda self: _dom.players.omniscient(),
          doc="The package's omniscient: alpha-beta on the true hands (a named cheat).", cheat=True)
_register("pydominoes-bota-gorda", lambda self: _dom.players.bota_gorda,
          doc="The package's bota_gorda: the heaviest playable tile.")
_register("pydominoes-counter", lambda self: _dom.players.counter(),
          doc="The package's counter around identity: the first valid move, counting calls.")
_register("pydominoes-random", lambda self: _dom.players.random,
          doc="The package's random: a uniformly random valid move.")
