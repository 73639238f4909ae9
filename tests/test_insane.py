"""The insane bot (PIMC over consistent worlds) and omniscient.

Legal moves in every preset (played by the harness's ``play_hand``),
determinism with a seed, the time budget (with a fake clock: no test here
reads the wall clock; the real budget is timed by ``benchmarks/bench_insane.py
--budget``), the value of a rollout, omniscient's explicit state, the play
model against the public API, and strength: insane beats easy on duplicate
Block deals by a clear margin.
"""
from __future__ import annotations

import numpy as np
import pytest

# the compiled kernels it needs (conftest.WARM_GROUPS); its own kernels compile on one worker
pytestmark = [pytest.mark.kernels("search", "side", "likelihood"), pytest.mark.xdist_group("insane")]

from dominoai import Match, preset_names
from dominoai.bots import make_bot
from dominoai.bots.pimc import (HARD_WEIGHTS, InsaneBot, hand_value, new_scratch, play_likelihood,
                                rollout_policy_id)
from dominoai.bots.pimc.likelihood import NO_FIRST
from dominoai.engine import layout as L
from dominoai.game import Move
from dominoai.tournament import play_hand


@pytest.mark.parametrize("preset", preset_names())
@pytest.mark.parametrize("spec", ["insane:worlds=20,seed=1",
                                  "insane:worlds=10,rollout_policy=medium,inference=false,seed=2",
                                  "omniscient:worlds=5,seed=3"])
def test_plays_legal_moves_in_every_preset(preset, spec):
    for k in range(2):
        m = Match(preset, seed=k)
        bots = [make_bot(spec, seed=i) for i in range(m.rules.players)]
        h = play_hand(m, bots)
        assert h.over and h.result is not None


def test_same_seed_same_moves():
    def moves(seed):
        m = Match("draw", seed=4)
        bots = [make_bot(f"insane:worlds=30,seed={seed}"), make_bot("medium")]
        h = play_hand(m, bots, leader=0)
        return [str(e) for e in h.events]

    assert moves(5) == moves(5)
    a = InsaneBot(seed=9, worlds=40)
    b = InsaneBot(seed=9, worlds=40)
    h = Match("all_fives", seed=2).new_hand(leader=0)
    ra, rb = a.analyze(h.observe()), b.analyze(h.observe())
    assert np.array_equal(ra.values, rb.values) and ra.move == rb.move


class FakeClock:
    """A clock that advances ``step`` seconds each time it is read."""

    def __init__(self, step):
        self.step, self.now, self.reads = step, 0.0, 0

    def __call__(self):
        self.reads += 1
        self.now += self.step
        return self.now


def test_time_budget_stops_between_chunks_by_the_bots_clock():
    """Budget 5 ticks, a clock advancing one tick (1/64 s, exact in binary)
    per read, 10**7 worlds asked. By hand: the start reads t0 = 1; chunk 8
    -> elapsed 1, per world 1/8, next chunk int(4 / (1/8) / 10) = 3 -> 11
    worlds at elapsed 2, next int(3 / (2/11) / 10) = int(1.65) = 1 -> 12 at
    3, 13 at 4, 14 at 5 >= budget: stop. 14 worlds; 7 reads (start, 5 in the
    loop, one for ``seconds``), so ``seconds`` = 6 ticks."""
    tick = 1 / 64
    h = Match("block", seed=1).new_hand(leader=0)
    bot = InsaneBot(seed=1, worlds=10**7, time_budget=5 * tick)
    bot.clock = FakeClock(tick)
    res = bot.analyze(h.observe())
    assert res.worlds == 14 and res.proposals == 14
    assert bot.clock.reads == 7
    assert res.seconds == 6 * tick
    # no budget: one chunk of every world, the clock read twice only
    bot = InsaneBot(seed=1, worlds=30)
    bot.clock = FakeClock(100.0)
    res = bot.analyze(h.observe())
    assert res.worlds == 30 and bot.clock.reads == 2 and res.seconds == pytest.approx(100.0)


def test_the_budgeted_search_is_the_same_search_in_chunks():
    """A budget that never runs out (a stopped clock) searches all the worlds,
    chunk by chunk, drawing the same worlds as one call: same values."""
    h = Match("draw", seed=2).new_hand(leader=0)
    plain = InsaneBot(seed=3, worlds=40).analyze(h.observe())
    bot = InsaneBot(seed=3, worlds=40, time_budget=1.0)
    bot.clock = lambda: 0.0
    chunked = bot.analyze(h.observe())
    assert chunked.worlds == 40
    assert np.array_equal(chunked.values, plain.values)


def test_search_result_and_single_moves():
    h = Match("block", seed=3).new_hand(leader=0)
    bot = InsaneBot(seed=1, worlds=50)
    res = bot.analyze(h.observe())
    assert res.worlds == 50 and res.proposals == 50
    assert len(res.values) == len(h.legal_moves()) == len(res.table())
    assert res.table()[0][0].code == res.move
    assert bot.spec == "insane:worlds=50,seed=1"


def test_hand_value_sides():
    """Own side's points minus the others'; in Kozel (recorded points are bad)
    the sign turns, and the partner is on the bot's side."""
    from dominoai import get_rules
    st = np.zeros(L.S_SIZE, np.int64)
    p0 = np.zeros(4, np.int64)
    rv = get_rules("draw", players=3).vector()
    st[L.S_POINTS:L.S_POINTS + 3] = [10, 0, 4]
    assert hand_value(st, rv, 0, p0) == 6
    assert hand_value(st, rv, 2, p0) == -6
    rv = get_rules("kozel").vector()
    st[L.S_POINTS:L.S_POINTS + 4] = [0, 20, 0, 0]
    assert hand_value(st, rv, 0, p0) == 20 and hand_value(st, rv, 2, p0) == 20
    assert hand_value(st, rv, 1, p0) == -20


def test_omniscient_needs_the_state():
    h = Match("draw", seed=1).new_hand(leader=0)
    bot = make_bot("omniscient:worlds=10,seed=1")
    with pytest.raises(TypeError, match="act_with_state"):
        bot.act(h.observe())
    with pytest.raises(ValueError, match="does not match"):
        bot.act_with_state(h.observe(), np.zeros(L.S_SIZE, np.int64))
    st = h.match.state_copy()
    mv = bot.act_with_state(h.observe(), st)
    assert mv in h.legal_moves()
    assert np.array_equal(st, h.match.state_copy())  # the state is not changed


def test_insane_beats_easy_on_duplicate_block_deals():
    """200 Block deals, each played twice with the seats swapped: insane's
    points per hand minus easy's, mean well above 0."""
    rng = np.random.default_rng(2024)
    diffs = []
    for d in range(200):
        perm = rng.permutation(28)
        deal = [[int(x) for x in perm[:7]], [int(x) for x in perm[7:14]]]
        tot = 0
        for swap in (0, 1):
            ins = make_bot(f"insane:worlds=60,seed={d}")
            easy = make_bot(f"easy:seed={d}")
            bots = [easy, ins] if swap else [ins, easy]
            h = play_hand(Match("block"), bots, deal=deal, leader=0)
            pts = h.result.points
            tot += (pts[swap] - pts[1 - swap])
        diffs.append(tot / 2)
    diffs = np.array(diffs, float)
    mean = diffs.mean()
    se = diffs.std(ddof=1) / np.sqrt(len(diffs))
    assert mean - 3 * se > 0, (mean, se)
    assert mean > 3, mean  # medium beats easy by about 2.4 points per hand here


def test_auto_rollouts_are_hard_in_dominoball_and_random_elsewhere():
    from dominoai.rules import get_rules

    assert rollout_policy_id("auto", get_rules("dominoball").vector()) == 2        # hard
    assert rollout_policy_id("auto", get_rules("dominoball", max_replacements=0, free_replacements=0).vector()) == 0
    assert rollout_policy_id("auto", get_rules("draw").vector()) == 0              # random
    assert rollout_policy_id("medium", get_rules("dominoball").vector()) == 1

    def values(preset, **params):
        h = Match(preset, seed=3).new_hand(leader=0)
        while len(h.legal_moves()) < 2:
            h.play(h.legal_moves()[0])
        return InsaneBot(seed=4, worlds=30, **params).analyze(h.observe()).values

    # the default searches exactly as the named policy does, same seed
    assert np.array_equal(values("dominoball"), values("dominoball", rollout_policy="hard"))
    assert np.array_equal(values("draw"), values("draw", rollout_policy="random"))
    assert not np.array_equal(values("dominoball"), values("dominoball", rollout_policy="random"))


@pytest.mark.parametrize("preset", ["all_fives", "block", "kozel"])
def test_hard_plies_plays_hard_for_that_many_moves_then_random(preset):
    """``playout_hard`` with ``plies=k`` is ``k`` moves of ``hard`` (its
    evaluation on each mover's observation, as in the bot) followed by the
    random playout on the same random numbers; ``plies=0`` is hard to the
    end, which differs."""
    from dominoai.bots.hard import hard_eval_into, hard_scratch
    from dominoai.bots.pimc.rollouts import playout_hard
    from dominoai.engine import fast as F
    from dominoai.engine import kernels as K
    from dominoai.engine.observe import observe_into

    k = 3
    differs = 0
    for obs, st in _mid_hand_states(preset, 6, seed=11):
        rv = obs.rules_vector
        ws = new_scratch(8, 100)
        path = F.playout_path(rv)
        got = st.copy()
        playout_hard(got, rv, np.array([77], np.uint64), ws.ev, ws.buf, ws.aux, HARD_WEIGHTS, k,
                     path)
        want = st.copy()
        feats, vals, wi, wf = hard_scratch()
        for _ in range(k):
            if want[L.S_CUR] < 0:
                break
            n = K.legal_moves(want, rv, ws.buf)
            i = 0
            if n > 1:
                observe_into(want, rv, want[L.S_CUR], ws.aux)
                i = hard_eval_into(want, rv, ws.aux, ws.buf, n, HARD_WEIGHTS, feats, vals, wi, wf)
            K.apply_move(want, rv, ws.ev, ws.buf[i])
        if want[L.S_CUR] >= 0:
            F.playout_on(want, rv, np.array([77], np.uint64), ws.ev, path)
        assert np.array_equal(got, want)
        full = st.copy()
        playout_hard(full, rv, np.array([77], np.uint64), ws.ev, ws.buf, ws.aux, HARD_WEIGHTS, 0,
                     path)
        assert full[L.S_CUR] < 0
        differs += not np.array_equal(full, got)
    assert differs > 0


def test_hard_plies_is_a_declared_parameter_that_reaches_the_search():
    h = Match("all_fives", seed=5).new_hand(leader=0)
    while len(h.legal_moves()) < 2:
        h.play(h.legal_moves()[0])
    obs = h.observe()

    def values(**params):
        return InsaneBot(seed=6, worlds=40, rollout_policy="hard", exact=0,
                         **params).analyze(obs).values

    assert np.array_equal(values(), values(hard_plies=0))
    assert np.array_equal(values(), values(hard_plies=60))      # longer than any hand
    assert not np.array_equal(values(), values(hard_plies=1))
    with pytest.raises(ValueError, match="hard_plies"):
        InsaneBot(hard_plies=-1)


def _facade_likelihood(preset, seed, n_moves, me, tau):
    """The likelihood computed through the public API only: replay the hand
    from its deal on a fresh Match; at each decision of a seat other than
    ``me`` with more than one legal move, softmax of HardBot.explain's values."""
    m = Match(preset, seed=seed)
    h = m.new_hand(leader=0) if m.rules.first_lead == "lot" else m.new_hand()
    rng = np.random.default_rng(seed)
    for _ in range(n_moves):
        moves = h.legal_moves()
        h.play(moves[int(rng.integers(len(moves)))])
    deal = [list(h.dealt(s)) for s in range(m.rules.players)]
    played = [(e.seat, e.tile, e.end) for e in h.events if e.kind == "play"]
    want = _facade_weight(preset, deal, list(h.boneyard), int(m.state_copy()[L.S_LEADER]),
                          played, me, tau)
    return m, want


def _facade_weight(preset, deal, boneyard, leader, played, me, tau, seat_logs=None):
    """The play model's likelihood of the plays ``played`` (``(seat, Tile,
    end)``) from the deal ``deal`` (tiles per seat), by the public API only:
    a fresh Match replays them; at each decision of a seat other than ``me``
    with more than one legal move, the softmax of HardBot.explain's values.
    0.0 if the plays do not replay (a seat out of turn). ``seat_logs`` (a
    dict), when given, receives each seat's own log likelihood."""
    import math

    from dominoai.bots.hard import HardBot

    m2 = Match(preset, seed=0)
    h2 = m2.new_hand(deal=deal, boneyard=boneyard, leader=leader)
    hard = HardBot()
    logp = 0.0
    for k, (s, tile, end) in enumerate(played):
        if h2.seat != s:
            return 0.0
        obs = h2.observe()
        if s != me and len(obs.legal_moves()) > 1:
            rows = hard.explain(obs)
            vals = {r["code"]: r["value"] for r in rows}
            vmax = max(vals.values())
            z = sum(math.exp((v - vmax) / tau) for v in vals.values() if v > -math.inf)
            code = tile.id * 4 + (0 if k == 0 else end)
            if code not in vals:   # an end equivalent to a listed one
                code = next(c for c in vals if c >> 2 == tile.id)
            logp += (vals[code] - vmax) / tau - math.log(z)
            if seat_logs is not None:
                seat_logs[s] = seat_logs.get(s, 0.0) + (vals[code] - vmax) / tau - math.log(z)
        h2.play(Move(tile, 0 if k == 0 else end), orientation=end if k == 0 else 0)
    return math.exp(logp)


def _world_deal(w, players, played):
    """The deal and boneyard a world ``w`` implies: each seat's hand now
    plus the tiles it has played (``played``: ``(seat, Tile, end)``), and
    the undrawn boneyard in order (lists of Tile)."""
    from dominoai.tiles import Tile

    deal = []
    for s in range(players):
        mask = int(w[L.S_HAND + s])
        deal.append([Tile(t) for t in range(28) if mask >> t & 1]
                    + [tile for (q, tile, _) in played if q == s])
    bone = [Tile(int(t)) for t in w[L.S_BONE + w[L.S_BONE_POS]:L.S_BONE + w[L.S_BONE_END]]]
    return deal, bone


def _tabled(preset, seed, n_moves, n_worlds):
    """A hand of ``n_moves`` random moves (:func:`_facade_likelihood`'s),
    the observer's ``n_worlds`` sampled worlds and the search's play tables
    of it: a namespace of ``m, obs, worlds, evs, rv, ws, meta, states, tobs,
    nd`` and ``played`` (``(seat, Tile, end)``)."""
    from types import SimpleNamespace

    from dominoai.bots.pimc import new_play_tables, play_tables_into
    from dominoai.bots.worlds import Belief

    m, _ = _facade_likelihood(preset, seed, n_moves, me=-1, tau=1.0)
    obs = m.current.observe()
    belief = Belief(obs)
    worlds, _ = belief.sample(n_worlds, seed=seed)
    evs = _hand_events(m)
    rv = m.rules.vector()
    ws = _likelihood_scratch()
    meta, states, tobs = new_play_tables(len(evs))
    nd = play_tables_into(belief.base, evs, len(evs), rv, obs.seat, meta, states, tobs, ws.tmp, 0)
    played = [(e.seat, e.tile, e.end) for e in m.current.events if e.kind == "play"]
    return SimpleNamespace(m=m, obs=obs, worlds=worlds, evs=evs, rv=rv, ws=ws, meta=meta,
                           states=states, tobs=tobs, nd=nd, played=played)


def _hand_events(match):
    """The hand's events (int64, ``(n, 4)``) as the search reads them: the
    public history (every seat sees the same plays)."""
    obs = match.current.observe(0)
    return np.ascontiguousarray(obs.event_array, np.int64).reshape(-1, 4).copy()


def _likelihood_scratch():
    """play_likelihood's work arrays: the search's allocator."""
    return new_scratch(1, 1)


def _model(policy_weight, hard_prior=0.0, sharp_weight=0.3):
    """The play model's settings: temperature, mixture, hard's default weights."""
    from dominoai.bots.pimc import SearchSettings

    return SearchSettings.make(policy_weight=policy_weight, hard_weights=HARD_WEIGHTS,
                               hard_prior=hard_prior, sharp_weight=sharp_weight)


@pytest.mark.parametrize("preset,seed,n_moves", [("block", 1, 6), ("block", 2, 9), ("kozel", 3, 10),
                                                 ("express", 4, 7), ("openspiel_team", 5, 11)])
def test_play_likelihood_of_the_true_world_matches_the_facade(preset, seed, n_moves):
    tau = 2.0
    m, want = _facade_likelihood(preset, seed, n_moves, me=-1, tau=tau)
    st = m.state_copy()
    me = int(st[L.S_CUR])
    _, want_me = _facade_likelihood(preset, seed, n_moves, me=me, tau=tau)
    evs = _hand_events(m)
    out = []
    for seat in (-1, me):
        w = play_likelihood(st, evs, len(evs), m.rules.vector(), seat, _model(tau),
                            _likelihood_scratch())
        out.append(w)
    assert 0.0 < want < 1.0
    assert out[0] == pytest.approx(want, rel=1e-9)
    assert out[1] == pytest.approx(want_me, rel=1e-9) and out[1] >= out[0]


def test_play_likelihood_zero_for_a_world_that_cannot_replay():
    m = Match("block", seed=7)
    h = m.new_hand(leader=0)
    for _ in range(4):
        h.play(h.legal_moves()[0])
    st = m.state_copy()
    evs = _hand_events(m)
    evs[1, 1] = 0   # the second play claimed by the leader again: seat 0 cannot move twice
    assert play_likelihood(st, evs, len(evs), m.rules.vector(), -1, _model(1.0),
                           _likelihood_scratch()) == 0.0


@pytest.mark.parametrize("preset,seed,n_moves", [("block", 11, 8), ("kozel", 12, 13),
                                                 ("openspiel_team", 13, 9)])
def test_tables_of_one_world_weigh_every_sampled_world_as_the_facade_does(preset, seed, n_moves):
    """The search tables the hand from the observer's public view and weighs
    every world with those tables: each weight equals the public-API replay
    of that world's own deal (its hands now plus the tiles each seat has
    played)."""
    from dominoai.bots.pimc import tabled_likelihood
    from dominoai.bots.pimc.likelihood import new_row_cache

    tau = 2.0
    t = _tabled(preset, seed, n_moves, 8)
    m, me, worlds, rv, ws, played = t.m, t.obs.seat, t.worlds, t.rv, t.ws, t.played
    meta, states, tobs, nd = t.meta, t.states, t.tobs, t.nd
    assert nd > 0
    got = []
    for w in worlds:
        deal, bone = _world_deal(w, m.rules.players, played)
        want = _facade_weight(preset, deal, bone, int(w[L.S_LEADER]), played, me, tau)
        v = tabled_likelihood(w, nd, (meta, states, tobs), rv, _model(tau), ws, new_row_cache(0),
                              None, NO_FIRST)
        assert v == pytest.approx(want, rel=1e-9)
        got.append(v)
    assert len(set(got)) > 1    # the worlds differ, and so do their weights


@pytest.mark.parametrize("preset,seed,n_moves", [("kozel", 31, 12), ("block", 32, 8)])
def test_mixture_play_model_is_a_per_seat_mixture_of_the_two_softmaxes(preset, seed, n_moves):
    """hard_prior's model: a world's weight is the product over the other
    seats of ``mix * L_sharp + (1 - mix) * L_tau``, each seat's ``L`` the
    product of its own decisions' softmax probabilities at that temperature
    (the public API's replay, per seat); mix 0 is the plain model and mix 1
    the sharp one, and the row cache (storing both factors) changes
    nothing."""
    import math

    from dominoai.bots.pimc import tabled_likelihood
    from dominoai.bots.pimc.likelihood import new_row_cache

    tau, sharp, mix = 3.0, 0.3, 0.4
    t = _tabled(preset, seed, n_moves, 6)
    m, me, worlds, rv, ws, played = t.m, t.obs.seat, t.worlds, t.rv, t.ws, t.played
    meta, states, tobs, nd = t.meta, t.states, t.tobs, t.nd
    tables = (meta, states, tobs)
    cache = new_row_cache(len(worlds) * nd)
    got = []
    for w in worlds:
        deal, bone = _world_deal(w, m.rules.players, played)
        broad, sharp_logs = {}, {}
        _facade_weight(preset, deal, bone, int(w[L.S_LEADER]), played, me, tau, broad)
        _facade_weight(preset, deal, bone, int(w[L.S_LEADER]), played, me, sharp, sharp_logs)
        assert set(broad) == set(sharp_logs) and len(broad) >= min(2, m.rules.players - 1)
        want = math.prod(mix * math.exp(sharp_logs[s]) + (1 - mix) * math.exp(broad[s])
                         for s in broad)
        v = tabled_likelihood(w, nd, tables, rv, _model(tau, mix, sharp), ws, new_row_cache(0),
                              None, NO_FIRST)
        vc = tabled_likelihood(w, nd, tables, rv, _model(tau, mix, sharp), ws, cache, None, NO_FIRST)
        assert v == pytest.approx(want, rel=1e-9) and vc == v
        plain = tabled_likelihood(w, nd, tables, rv, _model(tau), ws, new_row_cache(0), None, NO_FIRST)
        assert tabled_likelihood(w, nd, tables, rv, _model(tau, 0.0, sharp), ws,
                                 new_row_cache(0), None, NO_FIRST) == plain
        assert plain == pytest.approx(math.exp(sum(broad.values())), rel=1e-9)
        only_sharp = tabled_likelihood(w, nd, tables, rv, _model(tau, 1.0, sharp), ws,
                                       new_row_cache(0), None, NO_FIRST)
        assert only_sharp == pytest.approx(math.exp(sum(sharp_logs.values())), rel=1e-9)
        got.append(v)
    assert len(set(got)) > 1


@pytest.mark.parametrize("preset,seed,n_moves", [("kozel", 21, 14), ("block", 22, 6),
                                                 ("kozel", 23, 20)])
def test_row_cache_gives_the_same_weights_to_the_bit(preset, seed, n_moves):
    """Weighing many worlds with one shared row cache gives every world the
    weight it gets without the cache, exactly; the cache is used (fewer
    rows are stored than the worlds' play rows), and a full table (every
    probe taken) only falls back to computing."""
    from dominoai.bots.pimc import tabled_likelihood
    from dominoai.bots.pimc.likelihood import T_KIND, new_row_cache

    tau = 4.0
    t = _tabled(preset, seed, n_moves, 400)
    worlds, rv, ws = t.worlds, t.rv, t.ws
    meta, states, tobs, nd = t.meta, t.states, t.tobs, t.nd
    plays = int((meta[:nd, T_KIND] == 0).sum())
    assert plays > 0
    args = (nd, (meta, states, tobs), rv, _model(tau), ws)
    ckey, cval = new_row_cache(len(worlds) * nd)
    tiny = new_row_cache(1)                  # 64 entries: soon full
    plain = np.array([tabled_likelihood(w, *args, new_row_cache(0), None, NO_FIRST) for w in worlds])
    cached = np.array([tabled_likelihood(w, *args, (ckey, cval), None, NO_FIRST) for w in worlds])
    full = np.array([tabled_likelihood(w, *args, tiny, None, NO_FIRST) for w in worlds])
    assert np.array_equal(plain, cached) and np.array_equal(plain, full)
    assert (plain > 0).sum() > 10 and len(set(plain.tolist())) > 5
    stored = int((ckey != 0).sum())
    assert 0 < stored < nd * len(worlds)      # plays and passes share the cache
    assert int((tiny[0] != 0).sum()) == 64


def test_tabled_likelihood_zero_where_a_pass_could_have_been_a_play():
    """A world in which a seat that passed held a tile fitting the ends then
    does not replay (the engine would have played it): weight 0."""
    from dominoai.bots.pimc import new_play_tables, play_tables_into, tabled_likelihood
    from dominoai.bots.pimc.likelihood import T_KIND, T_SEAT, new_row_cache
    from dominoai.engine import kernels as K

    for seed in range(200):
        m = Match("block", seed=seed)
        h = m.new_hand(leader=0)
        while not h.over and not any(e.kind == "pass" for e in h.events):
            h.play(h.legal_moves()[0])
        if h.over:
            continue
        st = m.state_copy()
        evs = _hand_events(m)
        rv = m.rules.vector()
        ws = _likelihood_scratch()
        meta, states, tobs = new_play_tables(len(evs))
        nd = play_tables_into(st, evs, len(evs), rv, -1, meta, states, tobs, ws.tmp, 0)
        args = (rv, _model(1.0), ws, new_row_cache(0), None, NO_FIRST)
        assert tabled_likelihood(st, nd, (meta, states, tobs), *args) > 0.0
        r = next(r for r in range(nd) if meta[r, T_KIND] == 1)    # the first pass
        passer = int(meta[r, T_SEAT])
        fits = int(K.open_mask(states[r]))
        # a tile another seat holds now and that fitted the ends at the pass
        found = [(q, t) for q in range(m.rules.players) if q != passer
                 for t in range(28) if (int(st[L.S_HAND + q]) & fits) >> t & 1]
        if not found:
            continue
        q, t = found[0]
        bad = st.copy()
        bad[L.S_HAND + q] &= ~(1 << t)
        bad[L.S_HAND + passer] |= 1 << t
        assert tabled_likelihood(bad, nd, (meta, states, tobs), *args) == 0.0
        return
    pytest.fail("no Block hand with a pass and a fitting tile in 200 seeds")


@pytest.mark.parametrize("preset,seed", [("draw", 21), ("all_fives", 22), ("fives", 23),
                                         ("block", 24), ("kozel", 25), ("all_fives", 26)])
def test_play_tables_hold_the_observations_the_seats_had(preset, seed):
    """Every tabled row, its hand filled in from the true deal, is the
    observation the seat really had at that event (the engine's, through the
    public API); where tiles are drawn only the plays and passes after the
    seat's last draw are tabled, and the plays of a tile just drawn are not."""
    from dominoai.bots.hard import HardBot
    from dominoai.bots.pimc import new_play_tables, play_tables_into, tabled_likelihood
    from dominoai.bots.pimc.likelihood import T_EVENT, T_KIND, T_SEAT, new_row_cache
    from dominoai.engine.observe import O_HAND, O_UNSEEN

    def start():
        m = Match(preset, seed=seed)
        return m, (m.new_hand(leader=0) if m.rules.first_lead == "lot" else m.new_hand())

    # play a whole hand (hard and random moves), noting each seat's observation at its plays
    m, h = start()
    hard = HardBot()
    seen = {}    # event index -> (seat, observation array) at each play
    moves = []
    rng = np.random.default_rng(seed)
    while not h.over:
        obs = h.observe()
        legal = obs.legal_moves()
        n_before = len(h.events)
        move = legal[int(rng.integers(len(legal)))] if rng.random() < 0.5 else hard.act(obs)
        moves.append(move)
        h.play(move)
        # the play is the first "play" event logged from here on (draws come first)
        for i in range(n_before, len(h.events)):
            if h.events[i].kind == "play":
                seen[i] = (h.events[i].seat, obs.array.copy())
                break
    # the same deal and moves, stopped two moves before the end
    m, h = start()
    for move in moves[:-2]:
        h.play(move)
    st = m.state_copy()
    me = int(st[L.S_CUR])
    evs = _hand_events(m)
    kinds = [e.kind for e in h.events]
    rv = m.rules.vector()
    ws = _likelihood_scratch()
    meta, states, tobs = new_play_tables(len(evs))
    nd = play_tables_into(h.observe().engine_state(), evs, len(evs), rv, me, meta, states, tobs,
                          ws.tmp, 0)
    want_rows = []
    for i, e in enumerate(h.events):
        if e.seat == me or e.kind not in ("play", "pass"):
            continue
        if any(k == "draw" and h.events[j].seat == e.seat for j, k in enumerate(kinds) if j > i):
            continue
        if i > 0 and kinds[i - 1] == "draw" and h.events[i - 1].seat == e.seat:
            continue
        want_rows.append(i)
    assert [int(meta[r, T_EVENT]) for r in range(nd)] == want_rows
    assert nd > 0
    if m.rules.drawing:
        assert any(k == "draw" for k in kinds)
    checked = 0
    for r in range(nd):
        i = int(meta[r, T_EVENT])
        if meta[r, T_KIND] != 0:
            continue
        seat, want = seen[i]
        assert int(meta[r, T_SEAT]) == seat
        got = tobs[r].copy()
        got[O_HAND] = want[O_HAND]
        got[O_UNSEEN] = want[O_UNSEEN]
        assert np.array_equal(got, want), (preset, i)
        checked += 1
    assert checked > 0
    # and the true world replays: a positive weight
    args = (rv, _model(2.0), ws, new_row_cache(0), None, NO_FIRST)
    assert tabled_likelihood(st, nd, (meta, states, tobs), *args) > 0.0


def _first_position(preset, found, deals=200):
    """The first position, over the first ``deals`` deals (seeds 0, 1, ...)
    with hard playing every seat, for which ``found(hand)`` is true."""
    hard = make_bot("hard")
    for seed in range(deals):
        h = Match(preset, seed=seed).new_hand(leader=0)
        while not h.over:
            if found(h):
                return h
            h.play(hard.act(h.observe()))
    raise AssertionError(f"no such position in {deals} deals")   # pragma: no cover


def _after_a_draw(preset):
    """A position of seat 0 with two or more moves, in which seat 1 has
    drawn and then played from its hand."""
    def found(h):
        ev = h.events
        drew = [i for i, e in enumerate(ev) if e.kind == "draw" and e.seat == 1]
        return (h.seat == 0 and bool(drew) and len(h.legal_moves()) > 1
                and any(e.kind == "play" and e.seat == 1 for e in ev[drew[-1] + 2:]))
    return _first_position(preset, found)


def _position_with(preset, n_moves):
    """A position of the seat to move with exactly ``n_moves`` legal moves."""
    return _first_position(preset, lambda h: len(h.legal_moves()) == n_moves)


@pytest.mark.parametrize("n_moves,worlds,want", [(3, 40, 20 + 30), (4, 40, 20 + 40),
                                                 (5, 24, 8 + 13 + 20)])
def test_halving_spends_the_rollouts_in_rounds_and_drops_the_worse_half(n_moves, worlds, want):
    """Sequential halving: R = ceil(log2 n) rounds, a round over k moves
    searches worlds * n // (R * k) worlds; its first round is the plain search
    over that many worlds with the same random numbers, and the move it drops
    keeps the value it had then."""
    h = _position_with("block", n_moves)
    obs = h.observe()
    res = InsaneBot(seed=5, worlds=worlds, halving=True).analyze(obs)
    assert res.worlds == want            # Block: every proposal is a world
    rounds = int(np.ceil(np.log2(n_moves)))
    first = InsaneBot(seed=5, worlds=worlds * n_moves // (rounds * n_moves)).analyze(obs)
    keep = (n_moves + 1) // 2
    dropped = np.argsort(-first.values, kind="stable")[keep:]
    assert np.array_equal(res.values[dropped], first.values[dropped])
    assert res.move not in set(res.moves[dropped].tolist())
    # two moves: one round, the plain search
    h2 = _position_with("block", 2)
    a = InsaneBot(seed=5, worlds=30, halving=True).analyze(h2.observe())
    b = InsaneBot(seed=5, worlds=30).analyze(h2.observe())
    assert np.array_equal(a.values, b.values) and a.worlds == b.worlds == 30


def test_draw_weight_weights_drawing_worlds_only_when_asked():
    h = _after_a_draw("all_fives")

    def values(**kw):
        return InsaneBot(seed=2, worlds=60, **kw).analyze(h.observe()).values

    assert InsaneBot().draw_weight is False
    assert np.array_equal(values(), values(draw_weight=False))
    assert not np.allclose(values(), values(draw_weight=True))
    assert np.array_equal(values(draw_weight=True, policy_weight=0.0), values())
    # no draws in Block: the same as without it
    b = Match("block", seed=6).new_hand(leader=0)
    for _ in range(5):
        b.play(b.legal_moves()[0])
    while len(b.legal_moves()) < 2:
        b.play(b.legal_moves()[0])
    assert np.array_equal(InsaneBot(seed=2, worlds=60, draw_weight=True).analyze(b.observe()).values,
                          InsaneBot(seed=2, worlds=60).analyze(b.observe()).values)


def test_policy_weight_changes_block_worlds_and_is_ignored_where_tiles_are_drawn():
    def values(preset, pw, **kw):
        h = Match(preset, seed=6).new_hand(leader=0)
        hard = make_bot("hard")
        for _ in range(4):
            h.play(hard.act(h.observe()))
        while len(h.legal_moves()) < 2:
            h.play(h.legal_moves()[0])
        return InsaneBot(seed=2, worlds=60, policy_weight=pw, **kw).analyze(h.observe()).values

    assert InsaneBot().policy_weight == 4.0
    # draw without draw_weight: the hand now does not tell the past hands, so
    # the weighting is off
    assert np.array_equal(values("draw", 4.0, draw_weight=False),
                          values("draw", 0.0, draw_weight=False))
    # Draw's defaults have draw_weight: there the plays weigh the worlds
    assert not np.allclose(values("draw", 4.0), values("draw", 0.0))
    # block: same worlds drawn (same seed), re-weighted by the plays' likelihood
    assert not np.allclose(values("block", 4.0), values("block", 0.0))


def test_settings_are_one_typed_value_and_the_weights_are_hards():
    from dominoai.bots.hard import HardBot
    from dominoai.bots.pimc import POLICIES, SearchSettings

    assert np.array_equal(HARD_WEIGHTS, HardBot().weight_vector)
    cfg = SearchSettings.make(rollouts=2.0, rollout_policy=POLICIES.index("medium"),
                              policy_weight=4)
    assert (cfg.rollouts, cfg.rollout_policy, cfg.policy_weight) == (2, 1, 4.0)
    assert type(cfg.rollouts) is int and type(cfg.policy_weight) is float
    assert (np.array_equal(cfg.hard_weights, HARD_WEIGHTS)
            and cfg.hard_weights is not HARD_WEIGHTS)
    with pytest.raises(ValueError, match="shape"):
        SearchSettings.make(hard_weights=np.zeros(3))
    with pytest.raises(ValueError, match="at least 1"):
        SearchSettings.make(rollouts=0)
    ws = new_scratch(5, 123)
    assert ws.nodes.tolist() == [0, 123, 0] and ws.vals.shape == (5,)
    assert ws.stack.shape == (72, L.S_SIZE) and ws.rs2.dtype == np.uint64


def _mid_hand_states(preset, n, seed):
    """``(observation, true state)`` at decisions with two or more moves,
    from medium-vs-medium hands of ``preset``."""
    from dominoai.tournament import decision_positions
    return decision_positions(preset, n, "medium", seed)[:n]


def test_shuffle_boneyard_permutes_only_the_undrawn_tiles_uniformly():
    from dominoai.bots.pimc.search import shuffle_boneyard
    st = np.zeros(L.S_SIZE, np.int64)
    st[L.S_BONE:L.S_BONE + 6] = [9, 8, 7, 1, 2, 3]
    st[L.S_BONE_POS], st[L.S_BONE_END] = 3, 6      # 9, 8, 7 were drawn
    rs = np.array([12345], np.uint64)
    counts = {}
    n = 12000
    for _ in range(n):
        w = st.copy()
        shuffle_boneyard(w, rs)
        assert list(w[L.S_BONE:L.S_BONE + 3]) == [9, 8, 7]
        assert np.array_equal(np.delete(w, range(L.S_BONE + 3, L.S_BONE + 6)),
                              np.delete(st, range(L.S_BONE + 3, L.S_BONE + 6)))
        key = tuple(w[L.S_BONE + 3:L.S_BONE + 6])
        assert sorted(key) == [1, 2, 3]
        counts[key] = counts.get(key, 0) + 1
    # all 3! = 6 orders, each 1/6: sd of a count is sqrt(n/6*5/6) = 40.8; 5 sd
    assert len(counts) == 6
    assert all(abs(c - n / 6) < 5 * 40.8 for c in counts.values()), counts


def test_omniscient_hidden_boneyard_equals_known_where_nothing_is_drawn():
    for obs, st in _mid_hand_states("block", 25, 4):
        a = make_bot("omniscient:worlds=20,seed=5").analyze_with_state(obs, st)
        b = make_bot("omniscient:worlds=20,seed=5,boneyard=hidden").analyze_with_state(obs, st)
        assert np.array_equal(a.values, b.values)


def test_omniscient_hidden_boneyard_does_not_read_the_draw_order():
    """In Draw, ``boneyard=known`` searches the true draw order, so reversing
    the undrawn tiles changes its values on some decision; ``hidden`` gives
    exactly the same values whatever their order (its shuffle starts from
    the sorted set)."""
    changed_known = tried = 0
    for obs, st in _mid_hand_states("draw", 12, 8):
        lo, hi = L.S_BONE + st[L.S_BONE_POS], L.S_BONE + st[L.S_BONE_END]
        if hi - lo < 3:
            continue
        tried += 1
        st2 = st.copy()
        st2[lo:hi] = st2[lo:hi][::-1]
        known = [make_bot("omniscient:worlds=30,seed=2").analyze_with_state(obs, s).values
                 for s in (st, st2)]
        hidden = [make_bot("omniscient:worlds=30,seed=2,boneyard=hidden").analyze_with_state(obs, s).values
                  for s in (st, st2)]
        changed_known += not np.array_equal(known[0], known[1])
        assert np.array_equal(hidden[0], hidden[1])
    assert tried >= 6 and changed_known >= 1


def test_per_preset_defaults_apply_to_parameters_the_spec_leaves_unset():
    from dominoai.bots.pimc.bots import TUNED_DEFAULTS
    draw, fives = Match("draw", seed=1).rules, Match("fives", seed=1).rules
    assert "fives" not in TUNED_DEFAULTS
    bot = make_bot("insane:worlds=50")
    bot.use_rules(draw)
    want = dict(TUNED_DEFAULTS["draw"], worlds=50)           # the spec's worlds win
    assert {k: getattr(bot, k) for k in want} == want
    assert bot.spec == "insane:worlds=50"                     # the spec is kept as given
    bot.use_rules(fives)                                      # no fives entry: declared defaults
    assert (bot.worlds, bot.rollouts, bot.rollout_policy, bot.exact) == (50, 1, "auto", 0)
    bot.use_rules(draw)
    assert bot.rollouts == TUNED_DEFAULTS["draw"]["rollouts"]


def test_insane_at_its_defaults_plays_the_tuned_setting_in_draw():
    from dominoai.bots.pimc.bots import TUNED_DEFAULTS
    explicit = "insane:" + ",".join(f"{k}={v}" for k, v in TUNED_DEFAULTS["draw"].items())
    for obs, _ in _mid_hand_states("draw", 4, 21):
        a = make_bot("insane", seed=9).analyze(obs)
        b = make_bot(explicit, seed=9).analyze(obs)
        assert a.worlds == b.worlds == TUNED_DEFAULTS["draw"]["worlds"]
        assert np.array_equal(a.values, b.values) and a.move == b.move


def test_resample_counts_by_hand():
    """Systematic resampling of the weights 1, 3, 0, 4 into 4 draws: the
    points (u + j) * 2 against the cumulative weights 1, 4, 4, 8."""
    from dominoai.bots.pimc import resample_counts

    w = np.array([1.0, 3.0, 0.0, 4.0])
    c = np.zeros(4, np.int64)
    resample_counts(w, 4, 0.5, c)          # points 1, 3, 5, 7
    assert c.tolist() == [0, 2, 0, 2]
    resample_counts(w, 4, 0.0, c)          # points 0, 2, 4, 6
    assert c.tolist() == [1, 1, 0, 2]
    draws = []
    for u in np.arange(1000) / 1000:
        resample_counts(w, 4, u, c)
        assert c.sum() == 4
        draws.append(c.copy())
    mean = np.mean(draws, 0)
    assert mean == pytest.approx([0.5, 1.5, 0.0, 2.0])   # n * w / W on average
    resample_counts(np.array([0.0, 2.0, 0.0]), 5, 0.999999, c[:3])
    assert c[:3].tolist() == [0, 5, 0]


def test_resampled_search_estimates_the_same_values():
    """``resample=3`` scores 3,000 worlds drawn from 9,000 weighed ones; its
    move values estimate the same weighted means as scoring 3,000 weighted
    worlds (a skewed play model, policy_weight=1): over six seeds the means
    agree within four standard errors, and the stats count the worlds
    scored and the proposals weighed."""
    m = Match("block", seed=5)
    h = m.new_hand(leader=0)
    hard = make_bot("hard")
    for _ in range(5):
        h.play(hard.act(h.observe()))
    obs = h.observe()
    assert len(obs.legal_moves()) == 3
    out = {}
    for k in (1, 3):
        vals = []
        for seed in range(6):
            b = make_bot(f"insane:policy_weight=1,exact=0,worlds=3000,resample={k}", seed=seed)
            r = b.analyze(obs)
            assert r.worlds == 3000 and r.proposals >= 3000 * k
            vals.append(r.values)
        vals = np.array(vals)
        out[k] = (vals.mean(0), vals.std(0, ddof=1) / np.sqrt(len(vals)))
    (m1, s1), (m3, s3) = out[1], out[3]
    assert np.all(np.abs(m1 - m3) < 4 * np.hypot(s1, s3))
    assert np.argmax(m1) == np.argmax(m3)


def test_hard_prior_and_resample_bounds():
    """hard_prior is a probability, sharp_weight a positive temperature,
    resample a count of at least 1: each refused with its name outside."""
    for spec, word in [("insane:hard_prior=1.5", "hard_prior"), ("insane:hard_prior=-0.1", "hard_prior"),
                       ("insane:sharp_weight=0.01", "sharp_weight"), ("insane:resample=0", "resample")]:
        with pytest.raises(ValueError, match=word):
            make_bot(spec)
    b = make_bot("insane:hard_prior=1,resample=2")
    assert (b.hard_prior, b.resample, b.sharp_weight) == (1.0, 2, 0.3)
