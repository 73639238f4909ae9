"""insane's ``neural`` play model with a policy that adds action features.

The shipped Draw and All Fives policies add, to each legal move's logit, a
learned weighting of what the move does (:mod:`dominoai.nets.features`).
The play model must give each tabled play the probability the ``neural``
bot itself gives it from that seat's observation: checked on hand-built
deals against the model's public forward pass
(:meth:`Model.forward <dominoai.nets.model.Model.forward>` with
:func:`~dominoai.nets.features.action_features`) and the bot's own move.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("search", "likelihood")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai import Match
from dominoai.bots import make_bot
from dominoai.bots.pimc import SearchSettings, new_scratch, play_likelihood
from dominoai.engine.encode import encode
from dominoai.game import Move
from dominoai.nets.features import action_features
from dominoai.nets.model import load_model
from dominoai.tiles import Tile

# two hands rich in 6s, 5s and 4s, so both seats keep following without drawing
_DEAL = [["6:6", "6:5", "5:5", "5:4", "4:4", "4:3", "3:3"],
         ["6:4", "6:3", "5:3", "5:2", "6:2", "4:2", "6:1"]]


def _boneyard(deal):
    held = {Tile.parse(t).id for hand in deal for t in hand}
    return [Tile(t) for t in range(28) if t not in held]


def _neural_probability(model, obs, code, temperature=1.0):
    """The ``neural`` bot's softmax probability of ``code`` among the
    legal moves of ``obs`` at ``temperature``, from the model's forward
    pass with the block, and the bot's greedy move."""
    codes, fe = action_features(obs)
    logits = model.forward(encode(obs.array), ids=codes[None], feats=fe[None]).astype(np.float64)
    z = logits[codes] / temperature
    p = np.exp(z - z.max())
    return float(p[list(codes).index(code)] / p.sum()), int(codes[np.argmax(z)])


@pytest.mark.parametrize("preset,seed", [("draw", 0), ("all_fives", 2)])
def test_play_model_gives_each_play_the_neural_bots_probability(preset, seed):
    """Seat 1 observes; after each of seat 0's plays with a choice, the
    play model's likelihood of the true state equals the product of the
    ``neural`` bot's probabilities of seat 0's plays so far (float32
    rounding); the bot's greedy move is the highest-probability one; at
    ``play_temperature=2`` it equals the product of the softmax of the
    halved logits; and without the block the likelihood differs (the
    features matter)."""
    model = load_model(f"{preset}-policy", preset=preset, kind="policy")
    assert model.has_action_features
    bot = make_bot("neural")
    m = Match(preset, seed=0)
    h = m.new_hand(deal=_DEAL, boneyard=_boneyard(_DEAL), leader=0)
    rv = m.rules.vector()
    with_block = SearchSettings.make(policy_weight=1.0, play_model=1,
                                     policy_net=model.packed(block=True), policy_block=model.action)
    flat = SearchSettings.make(policy_weight=1.0, play_model=1, policy_net=model.packed(block=True),
                               policy_block=model.action, play_temperature=2.0)
    without = SearchSettings.make(policy_weight=1.0, play_model=1, policy_net=model.packed(block=True))
    rng = np.random.default_rng(seed)
    want = want_flat = 1.0
    checked = 0
    for k in range(14):
        if h.over:
            break
        obs = h.observe()
        codes = [int(c) for c in obs.legal_codes()]
        code = codes[int(rng.integers(len(codes)))]
        if h.seat == 0 and len(codes) > 1:
            p, greedy = _neural_probability(model, obs, code)
            assert bot.act(obs).code == greedy or bot.act(obs).tile.id == greedy >> 2
            want *= p
            want_flat *= _neural_probability(model, obs, code, 2.0)[0]
        mv = Move.from_code(code)
        if k == 0:
            h.play(Move(mv.tile, 0), orientation=code & 3)
        else:
            h.play(mv)
        if any(e.kind == "draw" for e in h.events):
            break          # rows before a seat's draw do not count: stop before any
        if h.seat is None or not (h.events[-1].seat == 0 and len(codes) > 1):
            continue
        evs = np.ascontiguousarray(h.observe(1).event_array, np.int64).reshape(-1, 4).copy()
        st = m.state_copy()
        got = play_likelihood(st, evs, len(evs), rv, 1, with_block, new_scratch(1, 1))
        assert got == pytest.approx(want, rel=2e-4)
        got_flat = play_likelihood(st, evs, len(evs), rv, 1, flat, new_scratch(1, 1))
        assert got_flat == pytest.approx(want_flat, rel=2e-4) and got_flat != pytest.approx(got, rel=1e-3)
        plain = play_likelihood(st, evs, len(evs), rv, 1, without, new_scratch(1, 1))
        assert not math.isclose(plain, got, rel_tol=1e-3)
        checked += 1
    assert checked >= 3, checked
    assert 0.0 < want < 0.5, want


def test_settings_refuse_a_block_that_does_not_fit_the_network_and_a_bad_temperature():
    model = load_model("draw-policy", preset="draw", kind="policy")
    fw, fb = model.action
    with pytest.raises(ValueError, match="policy_block"):
        SearchSettings.make(play_model=1, policy_net=model.packed(block=True), policy_block=(fw[:-1], fb))
    with pytest.raises(ValueError, match="policy_block"):
        SearchSettings.make(play_model=1, policy_net=model.packed(block=True),
                            policy_block=(np.zeros((fw.shape[0], 11), np.float32), np.zeros(11, np.float32)))
    with pytest.raises(ValueError, match="play_temperature"):
        SearchSettings.make(play_temperature=0.0)
    with pytest.raises(ValueError, match="play_temperature"):
        make_bot("insane:play_temperature=0")


def test_play_temperature_is_idle_without_the_neural_play_model():
    from dominoai.bots.pimc import InsaneBot
    from dominoai.rules import get_rules

    block = get_rules("block")
    assert "play_temperature" in InsaneBot().idle_params(block)
    assert "play_temperature" in InsaneBot(play_model="neural", policy_weight=0.0).idle_params(block)
    assert "play_temperature" not in InsaneBot(play_model="neural").idle_params(block)


def test_insane_plays_draw_hands_with_the_feature_policy_as_its_play_model():
    """Whole Draw hands (the harness checks every move) with the shipped
    ``draw-policy`` as the play model: the same seed plays the same hand,
    and the bot names the model."""
    from dominoai.tournament import play_hand

    def events():
        m = Match("draw", seed=5)
        bots = [make_bot("insane:worlds=12,play_model=neural,seed=3"), make_bot("hard")]
        h = play_hand(m, bots, leader=1)
        assert h.over and h.result is not None
        return [str(e) for e in h.events], bots[0]

    a, bot = events()
    assert a == events()[0]
    assert bot.model_ident.startswith("draw-policy@")
