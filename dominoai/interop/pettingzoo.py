"""A PettingZoo AEC environment for every preset (docs/interop.md).

``env(variant="block", players=2)`` plays one hand of the preset, the same
episode as the OpenSpiel game ``python_dominoai_<variant>``
(:mod:`dominoai.interop.openspiel`): the environment deals and draws with
its own seeded generator (``reset(seed=...)``), agents ``player_0`` ...
take turns as the rules say (forced draws and passes happen by
themselves), and at the end every agent is rewarded its return in points
(its side's points minus the other sides'; negated in Kozel, where points
are bad).

- action space: ``Discrete(113)``, our move codes (``tile * 4 + end``; the
  lead uses end 0; 112 is Dominoball's replacement);
- observation: a dict of ``"observation"`` (``float32``, shape
  ``(OBS_SIZE,)``: :func:`dominoai.interop.openspiel.observation_vector` of
  the engine's observation of the agent's seat) and ``"action_mask"``
  (``int8``, shape ``(113,)``, 1 for the agent's legal moves now).

An illegal action raises ``ValueError`` (one line naming the legal ones).
"""

from __future__ import annotations

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("dominoai.interop.pettingzoo needs pettingzoo and gymnasium: "
                      "pip install 'dominoai[interop]'") from e

from dominoai.interop import openspiel as OS
from dominoai.rules import PRESETS, get_rules

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
        self.game = OS.load_game(f"{variant}(players={rules.players})")
        self.rules = rules
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(rules.players)]
        obs = spaces.Dict({
            "observation": spaces.Box(-1.0, _HIGH, (OS.OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (OS.N_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(OS.N_ACTIONS) for a in self.possible_agents}
        self.state_ = None
        self._rng = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _chance(self):
        s = self.state_
        while s.is_chance_node():
            outs = s.chance_outcomes()
            s.apply_action(outs[int(self._rng.integers(len(outs)))][0])

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state_ = self.game.new_initial_state()
        self._chance()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self):
        s = self.state_
        if not s.is_terminal():
            self.agent_selection = self.possible_agents[s.current_player()]

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        s = self.state_
        mask = np.zeros(OS.N_ACTIONS, np.int8)
        if not s.is_terminal() and s.current_player() == seat:
            mask[s.legal_actions()] = 1
        return {"observation": OS.observation_vector(s.observation_array(seat)), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state_
        legal = s.legal_actions()
        if action is None or int(action) not in legal:
            raise ValueError(f"illegal action {action} for {agent}; legal actions are {legal}")
        self._cumulative_rewards[agent] = 0.0
        s.apply_action(int(action))
        self._chance()
        if s.is_terminal():
            ret = s.returns()
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

    def render(self):
        text = str(self.state_)
        if self.render_mode == "human":
            print(text)
        return text

    def close(self):
        pass
