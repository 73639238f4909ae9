"""The PettingZoo AEC environment of every preset
(dominoai/interop/pettingzoo.py): PettingZoo's own api_test, masks, rewards
in points, and one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("learning")  # the compiled kernels it needs (conftest.WARM_GROUPS)

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

from dominoai import Match  # noqa: E402
from dominoai.interop.pettingzoo import env  # noqa: E402
from dominoai.moves import Move  # noqa: E402
from dominoai.rules import PRESETS  # noqa: E402


def _counts():
    for p, (_, _, (lo, hi), _) in PRESETS.items():
        for n in sorted({lo, hi}):
            yield p, n


@pytest.mark.parametrize("preset,players", list(_counts()))
def test_api_test_every_preset(preset, players):
    api_test(env(preset, players=players), num_cycles=200)


def _random_masked_hand(e, seed):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total


def test_rewards_are_the_hands_points_replayed_in_the_engine():
    """Replay the environment's moves in a Match with the same deal: each
    agent's reward is its side's points minus the other side's."""
    for seed in range(20):
        rewards, p, _ = _replayed_rewards("openspiel_block", None, seed)
        assert rewards == {"player_0": p[0] - p[1], "player_1": p[1] - p[0]}


def test_mask_is_the_legal_moves():
    e = env("draw", players=3)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    legal = [m.code for m in _hand_of(e).legal_moves()]
    assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(legal)
    assert obs["observation"].dtype == np.float32
    other = next(a for a in e.possible_agents if a != e.agent_selection)
    assert e.observe(other)["action_mask"].sum() == 0


def _hand_of(e):
    """The environment's hand so far, rebuilt in a :class:`Match` from its record."""
    from dominoai.records import match_from_record
    return match_from_record(e.record()).current


def _replayed_rewards(preset, players, seed):
    """Play one hand of the environment with random masked actions, then
    replay its deal, boneyard order, leader and actions in a :class:`Match`:
    returns the environment's rewards, the replayed hand's side points and
    the rules."""
    e = env(preset, players=players)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = {a: 0.0 for a in e.possible_agents}
    actions = []
    for agent in e.agent_iter():
        obs, r, term, trunc, _ = e.last()
        rewards[agent] += r
        if term or trunc:
            e.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(a)
        e.step(a)
    rules = e.rules
    hand = e.record()["hands"][0]
    h = Match(preset, players=rules.players).new_hand(deal=hand["deal"], boneyard=hand["boneyard"],
                                                      leader=hand["leader"])
    for a in actions:
        assert Move.from_code(a) in h.legal_moves(), f"{preset} seed {seed}: action {a}"
        h.play(Move.from_code(a))
    assert h.over, f"{preset} seed {seed}: the replay is not over"
    return rewards, h.result.points, rules


@pytest.mark.parametrize("preset,players", list(_counts()))
def test_rewards_are_the_side_points_in_every_preset(preset, players):
    """Every preset and player count, five seeds: each agent's total reward is
    its side's points minus the other sides' points in the replayed hand
    (Kozel, where a recorded point is bad: the negation), so two sides sum to
    zero and in Kozel the pair that recorded more gets the negative reward."""
    for seed in range(5):
        rewards, points, rules = _replayed_rewards(preset, players, seed)
        sign = -1 if preset == "kozel" else 1
        for p in range(rules.players):
            own = points[rules.side_of(p)]
            others = sum(points) - own
            assert rewards[f"player_{p}"] == sign * (own - others), \
                f"{preset} players={players} seed {seed}: {rewards} vs points {points}"
        if rules.sides == 2:
            assert sum(rewards.values()) == 0.0
        if preset == "kozel" and rules.sides == 2 and points[0] != points[1]:
            worse = int(np.argmax(points))          # the pair that recorded more
            assert rewards[f"player_{worse}"] < 0 < rewards[f"player_{1 - worse}"]


def test_illegal_action_and_bad_preset_are_one_line_errors():
    e = env("block")
    e.reset(seed=0)
    with pytest.raises(ValueError, match=f"illegal action 111 for {e.agent_selection}") as err:
        e.step(111 if not e.observe(e.agent_selection)["action_mask"][111] else 0)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="unknown preset 'blok'"):
        env("blok")
    with pytest.raises(ValueError, match="fives: players must be 2"):
        env("fives", players=4)


def test_the_docs_examples_run():
    """docs/interop.md's python blocks run as one session (the random masked
    agents example included)."""
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "interop.md").read_text()
    blocks = re.findall(r"```python\n(.+?)```", text, re.S)
    assert len(blocks) == 2
    exec(compile("\n".join(blocks), "docs/interop.md", "exec"), {})
