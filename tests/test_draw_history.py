"""The play model where tiles are drawn, with every play counted
(``insane:draw_weight=true,draw_history=true``): the slot sampler
(dominoai/bots/worlds/slots.py) and the hands it gives the play model's rows.

References: a brute-force enumeration of the assignments of tiles to slot
groups (docs/worlds.md, "Slots"), the sampler's own count (``world_weight_of``),
and the observations the seats really had, replayed through the public API
(``HardBot.explain`` for the likelihood).
"""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

# the compiled kernels it needs (conftest.WARM_GROUPS); its own kernels compile on one worker
pytestmark = [pytest.mark.kernels("search"), pytest.mark.xdist_group("draw_history")]
from scipy.stats import chisquare

from dominoai import Match
from dominoai.bots import make_bot
from dominoai.bots.hard import HardBot
from dominoai.bots.pimc import HARD_WEIGHTS, InsaneBot, SearchSettings, new_scratch
from dominoai.bots.pimc.likelihood import (NO_FIRST, T_EVENT, T_KIND, T_KNOWN, T_LATER, T_SEAT,
                                           PlayModel, new_play_tables, new_row_cache,
                                           play_tables_into, tabled_likelihood)
from dominoai.bots.pimc.options import HistoryTables, history_rows, history_weight
from dominoai.bots.worlds import Belief
from dominoai.bots.worlds.evidence import MAXG
from dominoai.bots.worlds.sampling import world_weight_of
from dominoai.bots.worlds.slots import sample_slots_into
from dominoai.engine import layout as L
from dominoai.engine.observe import O_HAND


def _model(policy_weight):
    """The play model's settings at ``policy_weight`` with hard's default weights."""
    return SearchSettings.make(policy_weight=policy_weight, hard_weights=HARD_WEIGHTS)


def _slots(p, h, hand, rs):
    acq = np.zeros(MAXG, np.int64)
    n = sample_slots_into(h, hand, p.G, p.gsize, p.cls, p.cls_a, p.npl, p.pa, p.pb, p.ptile, rs,
                          acq)
    return n, acq


def _intervals(p, h, hand):
    """Each tile of holder h (hidden, then played from an unknown slot) with
    its allowed slot groups [lo, hi), read from the parts."""
    out = {}
    for t in range(28):
        if hand >> t & 1:
            out[t] = (int(p.cls_a[h, p.cls[h, t]]), int(p.G[h]))
    for q in range(int(p.npl[h])):
        out[int(p.ptile[h, q])] = (int(p.pa[h, q]), int(p.pb[h, q]))
    return out


def _mappings(p, h, hand):
    """Every map of the tiles to slot groups that fills each group's free
    slots and keeps each tile in its interval (brute force over the ways to
    choose each group's tiles)."""
    iv = _intervals(p, h, hand)
    G = int(p.G[h])
    sizes = [int(p.gsize[h, g]) for g in range(G)]
    out = []

    def fill(g, left, got):
        if g == G:
            if not left:
                out.append(dict(got))
            return
        for pick in itertools.combinations(sorted(left), sizes[g]):
            if all(iv[t][0] <= g < iv[t][1] for t in pick):
                fill(g + 1, left - set(pick), got + [(t, g) for t in pick])

    fill(0, set(iv), [])
    return out


def _play(preset, seed, moves_left=0):
    """A hand of ``hard`` (and some random moves), stopped ``moves_left``
    moves before the end; returns the match, hand, the observation each seat
    had at each of its plays (by event index) and the tiles each seat drew
    at each draw event (by event index)."""
    def start():
        m = Match(preset, seed=seed)
        return m, (m.new_hand(leader=0) if m.rules.first_lead == "lot" else m.new_hand())

    m, h = start()
    hard = HardBot()
    rng = np.random.default_rng(seed)
    moves = []
    while not h.over:
        obs = h.observe()
        legal = obs.legal_moves()
        moves.append(legal[int(rng.integers(len(legal)))] if rng.random() < 0.3 else hard.act(obs))
        h.play(moves[-1])
    m, h = start()
    hard = HardBot()
    seen, drawn = {}, {}
    for move in moves[:len(moves) - moves_left]:
        obs = h.observe()
        before = m.state_copy()
        n0 = len(h.events)
        h.play(move)
        after = m.state_copy()
        for i in range(n0, len(h.events)):
            e = h.events[i]
            if e.kind == "draw":
                s = e.seat
                played = 0
                if i + 1 < len(h.events) and h.events[i + 1].kind == "play":
                    played = 1 << h.events[i + 1].tile.id
                drawn[i] = int((after[L.S_HAND + s] | played) & ~before[L.S_HAND + s])
            if e.kind == "play" and not any(x.kind == "play" for x in h.events[n0:i]):
                seen[i] = (e.seat, obs.array.copy(), hard.explain(obs), move.code)
    return m, h, seen, drawn


def _events(h):
    return np.ascontiguousarray(h.observe(0).event_array, np.int64).reshape(-1, 4).copy()


# ---------------------------------------------------------------- the sampler
def test_slot_sampler_is_uniform_over_the_assignments_on_a_small_case():
    """Four tiles into slot groups of 2, 1, 1 slots (the deal and two
    draws): tiles 0 and 1 allowed anywhere, tile 2 only from the first draw
    on, tile 3 (played before the second draw) only before it. By hand the
    maps are the 5 below, each with 2!1!1! slot orders: N = 10, and each map
    is drawn with probability 1/5."""
    G = np.array([3])
    gsize = np.zeros((1, MAXG), np.int64)
    gsize[0, :3] = [2, 1, 1]
    cls = np.full((1, 28), -1, np.int64)
    cls[0, 0] = cls[0, 1] = 0
    cls[0, 2] = 1
    cls_a = np.zeros((1, 64), np.int64)
    cls_a[0, 1] = 1
    npl = np.array([1])
    pa, pb, ptile = (np.zeros((1, 28), np.int64) for _ in range(3))
    pb[0, 0], ptile[0, 0] = 2, 3
    want = {(0, 0, 2, 1), (0, 1, 2, 0), (0, 2, 1, 0), (1, 0, 2, 0), (2, 0, 1, 0)}
    rs = np.array([7], np.uint64)
    acq = np.zeros(MAXG, np.int64)
    cnt = collections.Counter()
    for _ in range(20000):
        n = sample_slots_into(0, 0b111, G, gsize, cls, cls_a, npl, pa, pb, ptile, rs, acq)
        assert n == 10.0
        cnt[tuple(next(g for g in range(3) if acq[g] >> t & 1) for t in range(4))] += 1
    assert set(cnt) == want
    assert chisquare([cnt[k] for k in sorted(want)]).pvalue > 1e-4


@pytest.mark.parametrize("preset", ["draw", "all_fives", "fives"])
def test_slot_sampler_counts_as_the_sampler_and_respects_every_interval(preset):
    """On real positions (each other seat that drew, in the true world): the
    sampler's count is ``N_j`` (world_weight_of), every draw fills each slot
    group's free slots with tiles of their allowed intervals, and where there
    are few assignments every one of them (brute force) is drawn, none else,
    in about equal shares."""
    rs = np.array([11], np.uint64)
    checked = small = 0
    hard = make_bot("hard")
    for seed in range(30):
        m = Match(preset, seed=seed)
        h = m.new_hand(leader=0) if m.rules.first_lead == "lot" else m.new_hand()
        k = 0
        while not h.over:
            obs = h.observe()
            k += 1
            if k % 2 == 0:
                try:
                    p = Belief(obs).parts
                except ValueError:
                    p = None
                st = m.state_copy()
                for hh in range(len(p.hseat) if p is not None else 0):
                    if p.G[hh] <= 1:
                        continue
                    hand = int(st[L.S_HAND + p.hseat[hh]])
                    iv = _intervals(p, hh, hand)
                    n, acq = _slots(p, hh, hand, rs)
                    assert n == pytest.approx(world_weight_of(p, hh, st), rel=1e-12)
                    for g in range(int(p.G[hh])):
                        assert bin(int(acq[g])).count("1") == p.gsize[hh, g]
                    for t, (lo, hi) in iv.items():
                        g = [g for g in range(MAXG) if acq[g] >> t & 1]
                        assert len(g) == 1 and lo <= g[0] < hi
                    checked += 1
                    if len(iv) <= 12 and small < 3:
                        maps = _mappings(p, hh, hand)
                        if 2 <= len(maps) <= 40:
                            small += 1
                            key = [tuple(sorted(mp.items())) for mp in maps]
                            cnt = collections.Counter()
                            for _ in range(300 * len(maps)):
                                _, acq = _slots(p, hh, hand, rs)
                                cnt[tuple(sorted(
                                    (t, next(g for g in range(MAXG) if acq[g] >> t & 1))
                                    for t in iv))] += 1
                            assert set(cnt) == set(key)
                            assert chisquare([cnt[x] for x in key]).pvalue > 1e-4
            h.play(hard.act(obs))
    assert checked >= 20
    assert small >= 1


# ---------------------------------------------------------------- the rows
@pytest.mark.parametrize("preset,seed", [("draw", 31), ("all_fives", 32), ("fives", 33),
                                         ("all_fives", 36), ("draw", 34),
                                         ("fives", 41), ("all_fives", 41)])
def test_history_rows_hold_the_hands_the_seats_had(preset, seed):
    """With ``history=1`` every play and pass of the other seats is tabled
    (not the play of a tile just drawn), and with the true draws as the
    world's slot assignment the hand of each play row is the hand the seat
    really held (its observation then); the likelihood of the true world is
    then the product over rows of the softmax probability of the move played
    under hard's values of the seat's true observation (HardBot.explain)."""
    m, h, seen, drawn = _play(preset, seed, moves_left=2)
    st = m.state_copy()
    me = int(st[L.S_CUR])
    evs = _events(h)
    kinds = [e.kind for e in h.events]
    rv = m.rules.vector()
    ws = new_scratch(1, 1)
    meta, states, tobs = new_play_tables(len(evs))
    nd = play_tables_into(h.observe().engine_state(), evs, len(evs), rv, me, meta, states, tobs,
                          ws.tmp, 1)
    want_rows = [i for i, e in enumerate(h.events) if e.seat != me and e.kind in ("play", "pass")
                 and not (i > 0 and kinds[i - 1] == "draw" and h.events[i - 1].seat == e.seat)]
    assert [int(meta[r, T_EVENT]) for r in range(nd)] == want_rows
    # rows before a later draw of their seat: the ones the old model left out
    assert any(kinds[j] == "draw" and h.events[j].seat == int(meta[r, T_SEAT])
               for r in range(nd) for j in range(int(meta[r, T_EVENT]) + 1, len(kinds)))
    # the true slot assignment: each draw's tiles (but a tile played at once) in its group
    p = Belief(h.observe()).parts
    rowh, rowg = np.zeros(nd, np.int64), np.zeros(nd, np.int64)
    history_rows(nd, meta, p.hseat, p.G, p.gtime, rowh, rowg)
    suf = np.zeros((len(p.hseat), MAXG + 1), np.int64)
    for hh in range(len(p.hseat)):
        for g in range(int(p.G[hh]) - 1, 0, -1):
            e = (int(p.gtime[hh, g]) - 2) // 2
            assert kinds[e] == "draw" and h.events[e].seat == p.hseat[hh]
            free = drawn[e]
            if e + 1 < len(kinds) and kinds[e + 1] == "play" and h.events[e + 1].seat == p.hseat[hh]:
                free &= ~(1 << h.events[e + 1].tile.id)
            suf[hh, g] = suf[hh, g + 1] | free
    drop = np.array([meta[d, T_KNOWN] | suf[rowh[d], rowg[d]] for d in range(nd)], np.int64)
    tau = 2.0
    ref = 0.0
    plays = 0
    for d in range(nd):
        if meta[d, T_KIND] != 0:
            continue
        seat, a, rows, code = seen[int(meta[d, T_EVENT])]
        assert int(meta[d, T_SEAT]) == seat
        held = int((st[L.S_HAND + seat] | meta[d, T_LATER]) & ~drop[d])
        assert held == a[O_HAND], (preset, int(meta[d, T_EVENT]))
        plays += 1
        # the reference factor: the softmax of hard's values of the true observation
        if len(rows) < 2:
            continue
        vals = np.array([r["value"] for r in rows if np.isfinite(r["value"])])
        if h.events[int(meta[d, T_EVENT])].lead:   # a lead's end is its orientation
            v = {r["value"] for r in rows if r["code"] >> 2 == code >> 2}
            assert len(v) == 1
            v = v.pop()
        else:
            v = next(r["value"] for r in rows if r["code"] == code)
        vmax = vals.max()
        ref += (v - vmax) / tau - np.log(np.exp((vals - vmax) / tau).sum())
    assert plays > 0
    got = tabled_likelihood(st, nd, (meta, states, tobs), rv, _model(tau), ws, new_row_cache(0),
                            drop, NO_FIRST)
    assert got > 0.0
    assert np.log(got) == pytest.approx(ref, abs=1e-9)


def test_history_weight_averages_the_likelihood_over_the_deck_orders():
    """``history_weight`` draws one slot assignment per world; its mean over
    many draws is the play likelihood averaged over every assignment
    (brute force, each with as many deck orders), the world's weight
    summed over its deck orders up to the count: an unbiased estimate."""
    hard = make_bot("hard")
    tau = 1.0
    for seed in range(60):
        m = Match("draw", seed=seed)
        h = m.new_hand(leader=0)
        while not h.over:
            obs = h.observe()
            if obs.seat == 0 and len(h.events) > 12:
                p = Belief(obs).parts
                st = m.state_copy()
                hh = 0
                hand = int(st[L.S_HAND + p.hseat[hh]])
                maps = _mappings(p, hh, hand) if p.G[hh] > 2 else []
                if 3 <= len(maps) <= 60:
                    break
            h.play(hard.act(obs))
        else:
            continue
        evs = _events(h)
        rv = m.rules.vector()
        ws = new_scratch(1, 1)
        meta, states, tobs = new_play_tables(len(evs))
        nd = play_tables_into(obs.engine_state(), evs, len(evs), rv, 0, meta, states, tobs,
                              ws.tmp, 1)
        rowh, rowg = np.zeros(nd, np.int64), np.zeros(nd, np.int64)
        history_rows(nd, meta, p.hseat, p.G, p.gtime, rowh, rowg)
        # the reference: every assignment's likelihood
        liks = []
        for mp in maps:
            acq = np.zeros(MAXG + 1, np.int64)
            for t, g in mp.items():
                acq[g] |= 1 << t
            suf = np.zeros(MAXG + 1, np.int64)
            for g in range(int(p.G[hh]) - 1, -1, -1):
                suf[g] = suf[g + 1] | acq[g]
            drop = np.array([meta[d, T_KNOWN] | suf[rowg[d]] for d in range(nd)], np.int64)
            liks.append(tabled_likelihood(st, nd, (meta, states, tobs), rv, _model(tau), ws,
                                          new_row_cache(0), drop, NO_FIRST))
        if len(set(liks)) < 2:
            continue
        ref = float(np.mean(liks))
        rs = np.array([3], np.uint64)
        est = []
        acq = np.zeros(MAXG, np.int64)
        suf = np.zeros((len(p.hseat), MAXG + 1), np.int64)
        drop = np.zeros(nd, np.int64)
        model = PlayModel(nd, (meta, states, tobs), new_row_cache(0))
        hist = HistoryTables(rowh, rowg, acq, suf, drop)
        for _ in range(4000):
            est.append(history_weight(1.0, st, rv, _model(tau), model, ws, p, hist, rs))
        est = np.array(est)
        assert set(np.round(est / ref, 12)) <= set(np.round(np.array(liks) / ref, 12))
        se = est.std() / np.sqrt(len(est))
        assert abs(est.mean() - ref) < 5 * se
        return
    pytest.fail("no Draw position with 3 to 60 slot assignments and distinct likelihoods")


def test_draw_history_is_idle_where_the_play_model_where_tiles_are_drawn_is_off():
    """``draw_history`` acts only with ``draw_weight=true`` (and the play
    model on) in a preset that draws and does not replace; elsewhere the
    tournament's idle note says why."""
    from dominoai import get_rules
    from dominoai.tournament.schedule import idle_named

    assert idle_named("insane:draw_weight=true,draw_history=true", get_rules("all_fives")) == {}
    got = idle_named("insane:draw_history=true", get_rules("all_fives"))
    assert got == {"draw_history": "acts only with the play model, off here without "
                                   "draw_weight=true"}
    got = idle_named("insane:draw_weight=true,draw_history=true,policy_weight=0",
                     get_rules("draw"))
    assert got["draw_history"] == "acts only with the play model, off here (policy_weight=0)"
    assert idle_named("insane:draw_history=true", get_rules("block")) == {
        "draw_history": "does nothing where no tile is drawn"}
    assert "replaced" in idle_named("insane:draw_weight=true,draw_history=true",
                                    get_rules("dominoball"))["draw_history"]


def test_draw_history_changes_the_search_only_where_tiles_are_drawn():
    """In Block (nothing drawn) ``draw_history=true`` searches exactly as
    without it; in All Fives with ``draw_weight=true`` the worlds' weights,
    so the values, differ (rows before a seat's draws now count)."""
    from dominoai.tournament import decision_positions

    rng = np.random.default_rng(3)
    for preset, same in (("block", True), ("all_fives", False)):
        obs_list = [o for o, _ in decision_positions(preset, 30, "medium", rng)]
        differ = 0
        for obs in obs_list:
            a = InsaneBot(seed=5, worlds=40, draw_weight=True).analyze(obs)
            b = InsaneBot(seed=5, worlds=40, draw_weight=True, draw_history=True).analyze(obs)
            if same:
                assert np.array_equal(a.values, b.values)
            else:
                differ += not np.array_equal(a.values, b.values)
        if not same:
            assert differ > 0


def test_a_count_table_too_large_is_not_drawn_from():
    """18 played tiles, each allowed in its own interval of 7 slot groups,
    make 2**18 states, over MAX_STATES: the sampler says so (-1.0) and
    leaves every group empty (history_weight then counts that seat's rows
    after its last draw only)."""
    from dominoai.bots.worlds import MAX_STATES

    ivs = [(a, b) for a in range(7) for b in range(a + 1, 8)][:18]
    G = np.array([7])
    gsize = np.zeros((1, MAXG), np.int64)
    gsize[0, :7] = [3, 3, 3, 3, 2, 2, 2]
    cls = np.full((1, 28), -1, np.int64)
    cls_a = np.zeros((1, 64), np.int64)
    npl = np.array([18])
    pa, pb, ptile = (np.zeros((1, 28), np.int64) for _ in range(3))
    for q, (a, b) in enumerate(ivs):
        pa[0, q], pb[0, q], ptile[0, q] = a, b, q
    assert 2 ** 18 > MAX_STATES
    acq = np.full(MAXG, 5, np.int64)
    assert sample_slots_into(0, 0, G, gsize, cls, cls_a, npl, pa, pb, ptile,
                             np.array([1], np.uint64), acq) == -1.0
    assert not acq.any()
