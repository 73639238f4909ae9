"""insane's learned play model (``play_model=neural``) and its budget clock.

The play model's weight of a world is checked against a reference built
through the public API only: the world's deal replayed on a fresh Match,
each other seat's observation at each of its decisions encoded, and the
network's softmax over its legal moves computed in numpy from the model's
parameters. The budget clock is checked by counting a fake clock's reads,
never by timing.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("search", "likelihood")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai import Match
from dominoai.bots import make_bot
from dominoai.bots.pimc import InsaneBot, SearchSettings, new_scratch, play_likelihood
from dominoai.engine import layout as L
from dominoai.engine.encode import N_ACTIONS, OBS_SIZE, encode
from dominoai.game import Move
from dominoai.tournament import play_hand


def _random_net(hidden, seed):
    """A random MLP ``OBS_SIZE -> hidden... -> N_ACTIONS``: its ``params``
    (``[(w, b), ...]``, float64), ``scale`` and the packed float32 form the
    kernels take."""
    rng = np.random.default_rng(seed)
    sizes = [OBS_SIZE, *hidden, N_ACTIONS]
    params = [(rng.normal(0, 1 / math.sqrt(a), (a, b)), rng.normal(0, 0.1, b))
              for a, b in zip(sizes[:-1], sizes[1:])]
    scale = rng.uniform(0.5, 1.5, OBS_SIZE)
    flat = np.concatenate([np.concatenate([w.ravel(), b]) for w, b in params]).astype(np.float32)
    packed = (scale.astype(np.float32), flat, np.array([w.shape for w, _ in params], np.int64))
    # the reference reads the same float32 values the kernels read
    params = [(w.astype(np.float32).astype(np.float64), b.astype(np.float32).astype(np.float64))
              for w, b in params]
    return params, scale.astype(np.float32).astype(np.float64), packed


def _numpy_logits(params, scale, obs_array):
    x = encode(obs_array).astype(np.float64) * scale
    for i, (w, b) in enumerate(params):
        x = x @ w + b
        if i < len(params) - 1:
            x = np.maximum(x, 0.0)
    return x


def _reference_weight(deal, bone, leader, played, me, params, scale):
    """The play model's likelihood of the plays ``played`` (``(seat, Tile,
    end)``) from ``deal`` by the public API: at each decision of a seat
    other than ``me`` with more than one legal move, the softmax of the
    network's logits over its legal moves (numpy). 0.0 if the plays do not
    replay."""
    h = Match("block", seed=0).new_hand(deal=deal, boneyard=bone, leader=leader)
    logp = 0.0
    for k, (s, tile, end) in enumerate(played):
        if h.seat != s:
            return 0.0
        obs = h.observe()
        codes = [int(c) for c in obs.legal_codes()]
        if s != me and len(codes) > 1:
            z = _numpy_logits(params, scale, obs.array)[codes]
            code = tile.id * 4 + (0 if k == 0 else end)
            if code not in codes:           # an end equivalent to a listed one
                code = next(c for c in codes if c >> 2 == tile.id)
            zmax = z.max()
            logp += z[codes.index(code)] - zmax - math.log(np.exp(z - zmax).sum())
        h.play(Move(tile, 0 if k == 0 else end), orientation=end if k == 0 else 0)
    return math.exp(logp)


def _random_hand(seed, n_moves):
    m = Match("block", seed=seed)
    h = m.new_hand(leader=0)
    rng = np.random.default_rng(seed)
    for _ in range(n_moves):
        moves = h.legal_moves()
        h.play(moves[int(rng.integers(len(moves)))])
    return m, h


def _world_deal(w, played):
    """A world's deal (each seat's hand now plus its plays) and its sleeping
    tiles, as lists of Tile."""
    from dominoai.tiles import Tile
    deal = []
    for s in range(2):
        mask = int(w[L.S_HAND + s])
        deal.append([Tile(t) for t in range(28) if mask >> t & 1]
                    + [tile for (q, tile, _) in played if q == s])
    bone = [Tile(int(t)) for t in w[L.S_BONE + w[L.S_BONE_POS]:L.S_BONE + w[L.S_BONE_END]]]
    return deal, bone


def _neural_settings(packed):
    return SearchSettings.make(policy_weight=1.0, play_model=1, policy_net=packed)


@pytest.mark.parametrize("seed,n_moves,hidden", [(41, 9, (32,)), (42, 10, (24, 16))])
def test_neural_weights_of_sampled_worlds_equal_the_numpy_reference(seed, n_moves, hidden):
    """Every sampled world's weight under the tables of the observer's public
    view (the first layer precomputed per row, each held tile added) equals
    the public-API replay of that world's deal with the numpy network, to
    float32 rounding; the row cache changes nothing; the worlds differ."""
    from dominoai.bots.pimc import new_play_tables, play_tables_into, tabled_likelihood
    from dominoai.bots.pimc.likelihood import net_tables, new_row_cache
    from dominoai.bots.worlds import Belief

    params, scale, packed = _random_net(hidden, seed)
    m, h = _random_hand(seed, n_moves)
    obs = h.observe()
    belief = Belief(obs)
    worlds, _ = belief.sample(12, seed=seed)
    evs = np.ascontiguousarray(obs.event_array, np.int64).reshape(-1, 4).copy()
    rv = m.rules.vector()
    ws = new_scratch(1, 1)
    cfg = _neural_settings(packed)
    meta, states, tobs = new_play_tables(len(evs))
    nd = play_tables_into(belief.base, evs, len(evs), rv, obs.seat, meta, states, tobs, ws.tmp, 0)
    assert nd > 3
    first = net_tables(nd, tobs, cfg, ws, True)
    cache = new_row_cache(len(worlds) * nd)
    played = [(e.seat, e.tile, e.end) for e in h.events if e.kind == "play"]
    got = []
    for w in worlds:
        want = _reference_weight(*_world_deal(w, played), int(w[L.S_LEADER]), played, obs.seat,
                                 params, scale)
        v = tabled_likelihood(w, nd, (meta, states, tobs), rv, cfg, ws, new_row_cache(0), None,
                              first)
        vc = tabled_likelihood(w, nd, (meta, states, tobs), rv, cfg, ws, cache, None, first)
        assert 0.0 < want < 1.0
        assert v == pytest.approx(want, rel=2e-4) and vc == v
        got.append(v)
    assert len(set(got)) > 3


def test_neural_likelihood_of_the_true_world_and_the_hard_model_untouched():
    """play_likelihood of the true state with the shipped Block policy equals
    the reference over every other seat's decision (and leaves out the
    observer's own with ``me``); the same settings with ``play_model=0``
    give the hard model's weight, not the network's."""
    from dominoai.nets.model import load_model

    model = load_model("block-policy", preset="block", kind="policy")
    params = [(np.asarray(w, np.float32).astype(np.float64), np.asarray(b, np.float32).astype(np.float64))
              for w, b in model.params]
    scale = np.asarray(model.scale, np.float32).astype(np.float64)
    m, h = _random_hand(45, 9)
    st = m.state_copy()
    evs = np.ascontiguousarray(h.observe(0).event_array, np.int64).reshape(-1, 4).copy()
    played = [(e.seat, e.tile, e.end) for e in h.events if e.kind == "play"]
    deal, bone = [list(h.dealt(s)) for s in range(2)], list(h.boneyard)
    rv = m.rules.vector()
    me = int(st[L.S_CUR])
    for seat in (-1, me):
        want = _reference_weight(deal, bone, int(st[L.S_LEADER]), played, seat, params, scale)
        got = play_likelihood(st, evs, len(evs), rv, seat, _neural_settings(model.packed()),
                              new_scratch(1, 1))
        assert 0.0 < want <= 1.0 and got == pytest.approx(want, rel=2e-4)
    hard = SearchSettings.make(policy_weight=1.0, play_model=0, policy_net=model.packed())
    plain = SearchSettings.make(policy_weight=1.0)
    a = play_likelihood(st, evs, len(evs), rv, -1, hard, new_scratch(1, 1))
    assert a == play_likelihood(st, evs, len(evs), rv, -1, plain, new_scratch(1, 1))
    assert a != pytest.approx(_reference_weight(deal, bone, int(st[L.S_LEADER]), played, -1,
                                                params, scale), rel=1e-3)


def test_settings_refuse_a_neural_play_model_without_a_network():
    with pytest.raises(ValueError, match="needs a policy_net"):
        SearchSettings.make(play_model=1)
    with pytest.raises(ValueError, match="play_model must be 0"):
        SearchSettings.make(play_model=2)
    with pytest.raises(ValueError, match="play_model"):
        make_bot("insane:play_model=learned")


def test_a_policy_with_the_action_feature_block_is_refused_for_rollouts_before_any_play(tmp_path, capsys):
    # the shipped Draw policy adds action features, which the rollouts' forward pass does not
    # compute (the play model does: tests/test_pimc_playfeat.py)
    from dominoai.cli import main
    out = tmp_path / "t.parquet"
    assert main(["tournament", "--variant", "draw", "--bots", "insane:rollout_policy=neural,hard",
                 "--hands", "2", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "model 'draw-policy' adds action features to its logits" in err
    assert list(tmp_path.iterdir()) == []


def test_insane_with_the_neural_play_model_plays_legal_deterministic_hands():
    """Whole Block hands (the harness checks every move): the same seed
    plays the same hand; the network changes the search's values against
    the hard model at the same worlds; the bot names its model."""
    def events(spec):
        m = Match("block", seed=5)
        bots = [make_bot(spec), make_bot("hard")]
        h = play_hand(m, bots, leader=1)
        assert h.over and h.result is not None
        return [str(e) for e in h.events], bots[0]

    spec = "insane:worlds=16,play_model=neural,seed=3"
    a, bot = events(spec)
    b, _ = events(spec)
    assert a == b
    assert bot.model_ident.startswith("block-policy@")
    m, h = _random_hand(44, 6)
    neural = InsaneBot(seed=2, worlds=24, play_model="neural", exact=0).analyze(h.observe())
    hard = InsaneBot(seed=2, worlds=24, exact=0).analyze(h.observe())
    assert neural.worlds == hard.worlds == 24
    assert not np.allclose(neural.values, hard.values)


def test_idle_parameters_of_the_play_model():
    from dominoai.rules import get_rules

    block, dball = get_rules("block"), get_rules("dominoball")
    neural = InsaneBot(play_model="neural")
    idle = neural.idle_params(block)
    assert {"hard_prior", "sharp_weight"} <= idle and "play_model" not in idle
    assert "policy_model" not in idle
    assert "policy_model" in InsaneBot().idle_params(block)
    assert "play_model" in InsaneBot(policy_weight=0.0, play_model="neural").idle_params(block)
    assert "play_model" in neural.idle_params(dball)


class _Ticks:
    """A clock advancing one tick (1/64 s) per read, counting its reads."""

    def __init__(self):
        self.now, self.reads = 0.0, 0

    def __call__(self):
        self.reads += 1
        self.now += 1 / 64
        return self.now


@pytest.mark.parametrize("clock,reads_cpu", [("cpu", True), ("wall", False)])
def test_budget_clock_picks_the_clock_of_the_budget(monkeypatch, clock, reads_cpu):
    """budget_clock=cpu budgets by time.thread_time, wall by
    time.perf_counter: with the chosen one a fake clock (one tick a read)
    and a budget of 5 ticks, the search stops after 14 worlds (the chunk
    arithmetic of insane's budget test: 8, 3, 1, 1, 1) and the clock is
    read 7 times; the other clock is never read."""
    cpu, wall = _Ticks(), _Ticks()
    monkeypatch.setattr(time, "thread_time", cpu)
    monkeypatch.setattr(time, "perf_counter", wall)
    bot = make_bot(f"insane:worlds=10000000,time_budget={5 / 64},budget_clock={clock},seed=1")
    monkeypatch.undo()
    res = bot.analyze(Match("block", seed=1).new_hand(leader=0).observe())
    used, other = (cpu, wall) if reads_cpu else (wall, cpu)
    assert res.worlds == 14 and used.reads == 7 and other.reads == 0
    assert res.seconds == 6 / 64


def test_the_tuner_searches_the_new_choices_only_when_named():
    from dominoai.tune.space import make_space

    dims, _ = make_space("insane", "", "")
    assert "play_model" not in dims and "budget_clock" not in dims
    named, _ = make_space("insane", "play_model", "")
    assert named["play_model"].choices == ("hard", "neural")
