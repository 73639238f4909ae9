"""A PettingZoo AEC environment for every preset (docs/interop.md).

``env(variant="block", players=2)`` plays one hand of the preset, the same
episode as the OpenSpiel game ``python_dominoai_<variant>``
(:mod:`dominoai.interop.openspiel`), on the engine's kernels (no pyspiel):
the environment deals with its own generator, keyed by the seed
(``reset(seed=...)``) as :class:`dominoai.learn.VectorEnv` keys a game;
agents ``player_0`` ... take turns as the rules say (forced draws and
passes happen by themselves), and at the end every agent is rewarded its
return in points (its side's points minus the other sides'; negated in
Kozel, where points are bad).

- action space: ``Discrete(113)``, our move codes (``tile * 4 + end``; the
  lead uses end 0; 112 is Dominoball's replacement);
- observation: a dict of ``"observation"`` (``float32``, shape
  ``(OBS_SIZE,)``: the core encoding, :mod:`dominoai.engine.encode`, of the
  engine's observation of the agent's seat) and ``"action_mask"``
  (``int8``, shape ``(113,)``, 1 for the agent's legal moves now).

An illegal action raises ``ValueError`` (one line naming the legal ones).
:meth:`DominoEnv.record` gives the hand as a ``dominoai.record/1`` dict.
"""

from __future__ import annotations

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("dominoai.interop.pettingzoo needs pettingzoo and gymnasium: "
                      "pip install 'dominoai[interop]'") from e

from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.engine.encode import N_ACTIONS, OBS_SIZE, encode_into
from dominoai.engine.observe import O_SIZE, observe_into
from dominoai.game import Match
from dominoai.learn.kernels import game_key
from dominoai.moves import Move, events_from_rows
from dominoai.records import record_from_match
from dominoai.rules import PRESETS, get_rules
from dominoai.tiles import N_TILES, Tile

__all__ = ["env", "DominoEnv"]

_HIGH = 1000.0  # bound of any observation field (tile ids, counts, points of one hand)


def env(variant: str = "block", players: int | None = None, render_mode: str | None = None) -> "DominoEnv":
    """The AEC environment of preset ``variant`` with ``players`` seats
    (the preset's default when None).

    :raises ValueError: an unknown preset or a player count it does not allow.
    """
    return DominoEnv(variant, players, render_mode)


class DominoEnv(AECEnv):
    """One hand of a dominoai preset as a PettingZoo AEC environment (see the module)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "dominoai_v0", "is_parallelizable": False}

    def __init__(self, variant: str = "block", players: int | None = None, render_mode: str | None = None):
        super().__init__()
        if variant not in PRESETS:
            raise ValueError(f"unknown preset {variant!r}; presets are: {', '.join(PRESETS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {', '.join(self.metadata['render_modes'])} "
                             f"(got {render_mode!r})")
        rules = get_rules(variant) if players is None else get_rules(variant, players=players)
        self.rules = rules
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(rules.players)]
        obs = spaces.Dict({
            "observation": spaces.Box(-1.0, _HIGH, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._rv = rules.vector()
        self._sign = -1 if rules.hand_scoring == "losers_record" else 1
        self._st = np.zeros(L.S_SIZE, np.int64)
        self._ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
        self._buf = np.zeros(L.MAX_MOVES, np.int64)
        self._a = np.zeros(O_SIZE, np.int64)
        self._perm = np.zeros(N_TILES, np.int64)
        self._rs = np.zeros(1, np.uint64)
        self._rs[0] = np.random.default_rng().integers(2**63)
        self._moves: list[int] = []
        self._leader = -1

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rs[0] = game_key(np.int64(seed), np.int64(0))
        st = self._st
        K.new_match(st, self._rv)
        K.deal_perm(self._rs, self._perm, N_TILES)
        leader = K.rng_below(self._rs, self.rules.players)
        self._leader = int(K.start_hand(st, self._rv, self._perm, leader))
        self._moves = []
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self):
        cur = int(self._st[L.S_CUR])
        if cur >= 0:
            self.agent_selection = self.possible_agents[cur]

    def _legal(self) -> list[int]:
        n = K.legal_moves(self._st, self._rv, self._buf)
        return self._buf[:n].tolist()

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        st = self._st
        mask = np.zeros(N_ACTIONS, np.int8)
        if int(st[L.S_CUR]) == seat:
            mask[self._legal()] = 1
        observe_into(st, self._rv, seat, self._a)
        vec = np.empty(OBS_SIZE, np.float32)
        encode_into(self._a, vec)
        return {"observation": vec, "action_mask": mask}

    def returns(self) -> list[float]:
        """Each seat's return of the finished hand: its side's points minus
        the other sides' (Kozel: negated); zeros while the hand is on."""
        st, r = self._st, self.rules
        if int(st[L.S_CUR]) >= 0:
            return [0.0] * r.players
        pts = [float(st[L.S_POINTS + s]) for s in range(r.sides)]
        total = sum(pts)
        return [self._sign * (2 * pts[r.side_of(p)] - total) for p in range(r.players)]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self._legal()
        if action is None or int(action) not in legal:
            raise ValueError(f"illegal action {action} for {agent}; legal actions are {legal}")
        self._cumulative_rewards[agent] = 0.0
        K.apply_move(self._st, self._rv, self._ev, int(action))
        self._moves.append(int(action))
        if int(self._st[L.S_CUR]) < 0:
            ret = self.returns()
            for i, a in enumerate(self.agents):
                self.rewards[a] = float(ret[i])
                self.terminations[a] = True
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
            self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def record(self) -> dict:
        """The hand so far as a ``dominoai.record/1`` dict (deal, boneyard,
        leader and every choice), which ``dominoai replay`` accepts."""
        r = self.rules
        perm = self._perm.tolist()
        hs, n = r.hand_size, r.players
        m = Match(r, seed=0)
        h = m.new_hand([perm[s * hs:(s + 1) * hs] for s in range(n)], perm[n * hs:], self._leader)
        for c in self._moves:
            h.play(Move.from_code(c))
        return record_from_match(m, seats=self.possible_agents)

    def render(self):
        st = self._st
        hands = " | ".join(" ".join(str(Tile(t)) for t in range(N_TILES) if int(st[L.S_HAND + s]) >> t & 1) or "-"
                           for s in range(self.rules.players))
        events = [str(e) for e in events_from_rows(self._ev[:int(st[L.S_NEVENTS])])]
        text = f"hands {hands}; events {events}"
        if self.render_mode == "human":
            print(text)
        return text

    def close(self):
        pass
