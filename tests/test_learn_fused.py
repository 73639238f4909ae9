"""The fused Block step (block2-shaped rules, ``easy`` or ``hard`` opponents, a learner
seat) against the general path, in lock-step: the same games, observations,
masks, rewards, results, histories and records, array for array."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("learning")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai import get_rules
from dominoai.learn import VectorEnv
from dominoai.learn import kernels as VK


def _pair(rules, seed, opponents="easy", **kw):
    envs = [VectorEnv(rules, 8, opponents=opponents, seed=seed, history=True, fast_moves=f, **kw)
            for f in (True, False)]
    assert envs[0]._cfg[VK.C_FUSED] == 1 and envs[1]._cfg[VK.C_FUSED] == 0
    return envs


def _same(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(a, b)


def _same_env(fused, general):
    for name in ("_st", "_rs", "_meta", "_hist", "obs", "mask", "_reward", "done", "_res", "final_obs"):
        _same(getattr(fused, name), getattr(general, name))


@pytest.mark.parametrize("preset,fields,kw", [
    ("block", {}, {"seat": "rotate"}),
    ("block", {"target": 15}, {"seat": 1, "match": True, "illegal": "penalty", "penalty": 2.5}),
    ("express", {"first_lead": "highest_double"}, {"seat": 0, "reward": "sign"}),
    ("block", {}, {"seat": "rotate", "opponents": "hard"}),
    ("block", {"target": 15}, {"seat": 0, "match": True, "opponents": "hard:void=0"}),
])
def test_fused_step_is_the_general_step(preset, fields, kw):
    """Random seeds and actions (in penalty mode a tenth of them illegal):
    after every reset and step both paths hold the same state, RNG, history
    and outputs, return the same info, and give the same records."""
    rules = get_rules(preset, players=2, **fields)
    rng = np.random.default_rng(11)
    for seed in rng.integers(0, 2**40, size=2):
        fused, general = _pair(rules, int(seed), **kw)
        outs = [e.reset() for e in (fused, general)]
        _same_env(fused, general)
        finished = 0
        for _ in range(50):
            acts = (rng.random(outs[0][1].shape) * outs[0][1]).argmax(1)
            if kw.get("illegal") == "penalty":
                bad = rng.random(acts.shape) < 0.1
                acts[bad] = rng.integers(0, 113, size=int(bad.sum()))
            outs = [e.step(acts) for e in (fused, general)]
            _same_env(fused, general)
            for a, b in zip(outs[0][:4], outs[1][:4]):
                _same(a, b)
            assert outs[0][4].keys() == outs[1][4].keys()
            for k in outs[0][4]:
                _same(outs[0][4][k], outs[1][4][k])
            for g in np.flatnonzero(outs[0][3]):
                assert fused.record(g, finished=True) == general.record(g, finished=True)
                finished += 1
        assert finished >= 8
        for g in range(fused.num_envs):
            assert fused.record(g) == general.record(g)


@pytest.mark.parametrize("opponents", ["easy", "hard"])
def test_fused_step_with_inactive_games(opponents):
    """Stepping a random subset of the games (``active``): the fused path
    leaves the others as the general path does (state, RNG, outputs), reward
    0 and done False, and plays the active ones alike."""
    rules = get_rules("block", players=2)
    rng = np.random.default_rng(5)
    fused, general = _pair(rules, 77, opponents=opponents, seat="rotate")
    outs = [e.reset() for e in (fused, general)]
    stepped = 0
    for _ in range(40):
        on = rng.random(fused.num_envs) < 0.5
        acts = (rng.random(outs[0][1].shape) * outs[0][1]).argmax(1)
        before = fused._st.copy()
        outs = [e.step(acts, active=on) for e in (fused, general)]
        _same_env(fused, general)
        assert np.array_equal(fused._st[~on], before[~on])
        assert not outs[0][2][~on].any() and not outs[0][3][~on].any()
        stepped += int(on.sum())
    assert stepped > 100


def test_fused_path_only_where_it_applies():
    """medium, self-play, more seats or drawing keep the general path."""
    assert VectorEnv("block", 2, players=2, opponents="easy")._cfg[VK.C_FUSED] == 1
    assert VectorEnv("block", 2, players=2, opponents="hard")._cfg[VK.C_FUSED] == 1
    assert VectorEnv("block", 2, players=2, opponents="medium")._cfg[VK.C_FUSED] == 0
    assert VectorEnv("block", 2, players=2, opponents=None)._cfg[VK.C_FUSED] == 0
    assert VectorEnv("block", 2, players=3, opponents="easy")._cfg[VK.C_FUSED] == 0
    assert VectorEnv("draw", 2, players=2, opponents="easy")._cfg[VK.C_FUSED] == 0
    assert VectorEnv("block", 2, players=2, opponents="easy", fast_moves=False)._cfg[VK.C_FUSED] == 0
