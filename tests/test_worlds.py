"""Worlds (docs/worlds.md): the checker, the counting and the samplers.

The gold standard here is the engine itself: ``replay_count`` rebuilds every
deck order that could have led to a world (each other seat's deal and draw
positions filled with its tiles in every way) and replays the public moves
through the kernels, keeping the orders that reproduce the event log exactly.
Against it:

- the consistency checker (``is_consistent``, ``tests/world_checker.py``,
  written apart from the sampler) on tiny positions;
- the sampler's counting (``prod N_j``), and the DP behind it against brute
  force over all bijections;
- the sampled distribution against exact enumeration (chi-square), in block
  games (exact sampler) and drawing games (weighted: accepted with
  probability ``w / w_max``, which gives exact posterior samples);
- 100,000 sampled worlds across presets, every one accepted by the checker;
- inference off: sizes and seen tiles only; and no hidden state read.
"""
from __future__ import annotations

import math
from itertools import combinations, permutations, product

import numpy as np
import pytest

# the compiled kernels it needs (conftest.WARM_GROUPS); its own kernels compile on one worker
pytestmark = [pytest.mark.kernels("search", "side"), pytest.mark.xdist_group("worlds")]
from numba import njit
from scipy.stats import chisquare

from dominoai import Match
from dominoai.bots import worlds as W
from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.tiles import TileSet
from world_checker import Checker, _chk_world, is_consistent

VARIANTS = [
    ("block", {}), ("draw", {}), ("all_fives", {}), ("fives", {}), ("kozel", {}),
    ("express", {}), ("dominoball", {}), ("openspiel_block", {}), ("openspiel_team", {}),
    ("draw", {"players": 3}), ("draw", {"players": 4}), ("block", {"players": 4}),
    ("all_fives", {"players": 3}), ("express", {"players": 4, "partnerships": True}),
]
IDS = [p + "".join(f"-{k}{v}" for k, v in o.items()) for p, o in VARIANTS]


# ---------------------------------------------------------------- helpers
def decisions(preset, seed, over=None, easy=False):
    """Yield (match, hand, observation) at every decision of random first
    hands (random moves; replacements rarer unless ``easy``)."""
    rng = np.random.default_rng(seed)
    while True:
        m = Match(preset, seed=int(rng.integers(1 << 30)), **(over or {}))
        h = m.new_hand()
        while not h.over:
            yield m, h, h.observe()
            moves = h.legal_moves()
            if not easy and len(moves) > 1 and moves[-1].replace and rng.random() < 0.7:
                moves = moves[:-1]
            h.play(moves[int(rng.integers(len(moves)))])


def tiles_of(mask):
    return [t.id for t in TileSet(int(mask))]


def _positions(rules, ev):
    """Boneyard positions each seat drew (in log order), and how many were drawn."""
    pos = 0
    drawpos = {j: [] for j in range(rules.players)}
    for kind, seat, a, _ in ev.tolist():
        if kind == L.EV_DRAW:
            drawpos[seat] += list(range(pos, pos + a))
            pos += a
        elif kind == L.EV_REPLACE:
            drawpos[seat].append(pos)
            pos += 1
    return drawpos, pos


def enumeration_size(hand, obs, world):
    rules = hand.rules
    hs = rules.hand_size
    drawpos, _ = _positions(rules, obs.event_array)
    total = 1
    for j in range(rules.players):
        if j == obs.seat:
            continue
        r = bin(int(world[L.S_HAND + j])).count("1") + sum(
            1 for e in obs.event_array.tolist() if e[0] == L.EV_PLAY and e[1] == j)
        if r != hs + len(drawpos[j]):
            return 0
        total *= math.comb(r, hs) * math.factorial(r - hs)
    return total


@njit(cache=True)
def _replay_rows(rv, perms, leader, ev, ok):
    """ok[r] = 1 when the deck order ``perms[r]`` replays the public moves of
    ``ev`` to exactly the log ``ev`` (the kernels do the forced draws and passes)."""
    st = np.zeros(L.S_SIZE, np.int64)
    out = np.zeros((L.MAX_EVENTS, 4), np.int64)
    for r in range(perms.shape[0]):
        ok[r] = 0
        K.new_match(st, rv)
        if K.start_hand(st, rv, perms[r], leader) < 0:
            continue
        good = True
        for e in range(ev.shape[0]):
            kind = ev[e, 0]
            if kind != L.EV_PLAY and kind != L.EV_REPLACE:
                continue
            if st[L.S_CUR] != ev[e, 1]:
                good = False
                break
            code = ev[e, 2] * 4 + ev[e, 3] if kind == L.EV_PLAY else L.MOVE_REPLACE
            if K.check_move(st, rv, code) != L.ERR_OK:
                good = False
                break
            K.apply_move(st, rv, out, code)
        if not good or st[L.S_NEVENTS] != ev.shape[0]:
            continue
        for e in range(ev.shape[0]):
            for c in range(4):
                if out[e, c] != ev[e, c]:
                    good = False
        if good:
            ok[r] = 1


def replay_count(hand, obs, world):
    """Deck orders (other seats' deal positions as sets) that reproduce the
    public history and lead to ``world``, by replaying them in the engine."""
    rules = hand.rules
    rv = rules.vector()
    n, hs, s = rules.players, rules.hand_size, obs.seat
    ev = np.asarray(obs.event_array)
    drawpos, used = _positions(rules, ev)
    nb0 = rules.boneyard_size
    true_bone = [t.id for t in hand.boneyard]
    rest = [int(world[L.S_BONE + q]) for q in range(int(world[L.S_BONE_POS]), int(world[L.S_BONE_END]))]
    if len(rest) != nb0 - used:
        return 0
    others = [j for j in range(n) if j != s]
    options = []
    for j in others:
        played = [e[2] for e in ev.tolist() if e[0] == L.EV_PLAY and e[1] == j]
        R = tiles_of(world[L.S_HAND + j]) + played
        if len(R) != hs + len(drawpos[j]):
            return 0
        opts = []
        for D in combinations(R, hs):
            left = [x for x in R if x not in D]
            for P in permutations(left):
                opts.append((D, P))
        options.append(opts)
    leader = hand.leader if rules.first_lead == "lot" else -1
    mine = [t.id for t in hand.dealt(s)]
    rows = []
    for combo in product(*options):
        deal = [None] * n
        bone = [None] * nb0
        deal[s] = mine
        for q in drawpos[s]:
            bone[q] = true_bone[q]
        for j, (D, P) in zip(others, combo):
            deal[j] = list(D)
            for q, x in zip(drawpos[j], P):
                bone[q] = x
        bone[used:] = rest
        rows.append([x for d in deal for x in d] + bone)
    perms = np.array(rows, np.int64).reshape(-1, 28)
    ok = np.zeros(len(perms), np.int64)
    _replay_rows(rv, perms, leader, np.ascontiguousarray(ev, np.int64), ok)
    return int(ok.sum())


def random_world(obs, rng):
    """A world that respects only the sizes and the seen tiles."""
    a = obs.array
    st = obs.engine_state()
    u = tiles_of(a[37])
    rng.shuffle(u)
    i = 0
    for j in range(obs.rules.players):
        if j == obs.seat:
            continue
        k = obs.hand_sizes[j]
        st[L.S_HAND + j] = sum(1 << x for x in u[i:i + k])
        i += k
    rest = u[i:]
    st[L.S_BONE:L.S_BONE + 28] = -1
    st[L.S_BONE:L.S_BONE + len(rest)] = rest
    st[L.S_BONE_POS] = 0
    st[L.S_BONE_END] = len(rest)
    return st


def all_worlds(obs):
    """Every assignment of the unseen tiles to the other hands (sizes kept);
    the rest is the boneyard (in id order). Yields (key, world)."""
    u = tiles_of(obs.array[37])
    others = [j for j in range(obs.rules.players) if j != obs.seat]

    def rec(i, left, hands):
        if i == len(others):
            st = obs.engine_state()
            for j, hmask in zip(others, hands):
                st[L.S_HAND + j] = hmask
            st[L.S_BONE:L.S_BONE + 28] = -1
            st[L.S_BONE:L.S_BONE + len(left)] = left
            st[L.S_BONE_POS] = 0
            st[L.S_BONE_END] = len(left)
            yield tuple(hands), st
            return
        for c in combinations(left, obs.hand_sizes[others[i]]):
            rest = [x for x in left if x not in c]
            yield from rec(i + 1, rest, hands + [sum(1 << x for x in c)])

    yield from rec(0, u, [])


def n_worlds(obs):
    """How many assignments :func:`all_worlds` yields."""
    left = bin(int(obs.array[37])).count("1")
    total = 1
    for j in range(obs.rules.players):
        if j != obs.seat:
            total *= math.comb(left, obs.hand_sizes[j])
            left -= obs.hand_sizes[j]
    return total


def key_of(obs, world):
    return tuple(int(world[L.S_HAND + j]) for j in range(obs.rules.players) if j != obs.seat)


def tiny_positions(preset, over, seed, count, limit=3000, want_draws=True):
    """Late-hand decisions whose true world enumerates in at most ``limit``."""
    out = []
    for m, h, obs in decisions(preset, seed, over):
        if obs.array[16] < 4:
            continue
        ev = obs.event_array.tolist()
        # some other seat drew a tile that is not the one it then played (a free slot)
        drew = any(e[1] != obs.seat and (e[0] == L.EV_REPLACE or (e[0] == L.EV_DRAW and (
            e[2] > 1 or i + 1 == len(ev) or ev[i + 1][0] != L.EV_PLAY))) for i, e in enumerate(ev))
        if want_draws and m.rules.drawing and not drew:
            continue
        true = m.state_copy()
        if 0 < enumeration_size(h, obs, true) <= limit:
            out.append((m, h, obs, true))
            if len(out) == count:
                return out


# ---------------------------------------------------------------- counting
def _brute_assignments(gsize, groups):
    slots = [g for g, c in enumerate(gsize) for _ in range(c)]
    tiles = [(lo, hi) for lo, hi, m in groups for _ in range(m)]
    if len(slots) != len(tiles):
        return 0
    return sum(all(lo <= slots[p[i]] < hi for i, (lo, hi) in enumerate(tiles))
               for p in permutations(range(len(slots))))


def test_count_assignments_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(300):
        G = int(rng.integers(1, 4))
        gsize = [int(rng.integers(1, 3)) for _ in range(G)]
        total = sum(gsize)
        groups = []
        left = total
        while left > 0:
            m = int(rng.integers(1, left + 1))
            lo = int(rng.integers(0, G))
            hi = int(rng.integers(lo, G + 1)) if rng.random() < 0.8 else G
            groups.append((lo, hi, m))
            left -= m
        got = W.count_assignments(G, np.array(gsize, np.int64), np.array([g[0] for g in groups], np.int64),
                                  np.array([g[1] for g in groups], np.int64),
                                  np.array([g[2] for g in groups], np.int64), len(groups))
        assert got == _brute_assignments(gsize, groups), (gsize, groups)


@pytest.mark.parametrize("preset,over", [("draw", {}), ("draw", {"players": 3}), ("all_fives", {}),
                                         ("fives", {}), ("dominoball", {})],
                         ids=["draw", "draw3", "all_fives", "fives", "dominoball"])
def test_checker_and_counting_agree_with_engine_replay(preset, over):
    """On tiny late-hand positions: for the true world, sampled worlds and
    random worlds, ``is_consistent`` is true exactly when some deck order
    replays to the observed log, and the sampler's ``prod N_j`` is that
    number of deck orders times ``hand_size!`` per seat that drew."""
    rng = np.random.default_rng(1)
    hs_fact = math.factorial(Match(preset, **over).rules.hand_size)
    seen_bad = seen_weighted = 0
    for m, h, obs, true in tiny_positions(preset, over, 11, 5, limit=800):
        checker = Checker(obs)
        belief = W.Belief(obs)
        worlds = [true] + list(belief.sample(4, seed=3)[0])
        worlds += [random_world(obs, rng) for _ in range(8)]
        assert checker.check(true)
        for world in worlds:
            size = enumeration_size(h, obs, world)
            if size > 1500:
                continue
            cnt = replay_count(h, obs, world)
            assert checker.check(world) == (cnt > 0)
            assert is_consistent(obs, world) == (cnt > 0)
            wneed = sum(1 for x in belief.parts.wneed[:len(belief.parts.hseat)] if x)
            assert belief.weight(world) == pytest.approx(cnt * hs_fact ** wneed, rel=1e-12, abs=0)
            if cnt > 0:  # the per-seat counts (uncached) multiply to the same number
                assert math.prod(W.slot_counts(obs, world).values()) == pytest.approx(
                    cnt * hs_fact ** wneed, rel=1e-12, abs=0)
            seen_bad += cnt == 0
            seen_weighted += cnt > 1
    assert seen_bad > 0 and seen_weighted > 0


def test_replacement_precondition_is_counted():
    """Dominoball: a world where the replacing seat held no fitting tile at its
    replacement is inconsistent (no deck order replays to it), for the checker
    and the counting alike, though every void and draw would allow it."""
    rng = np.random.default_rng(0)
    bites = 0
    for m, h, obs in decisions("dominoball", 5, easy=True):
        evs = obs.event_array.tolist()
        if not any(e[0] == L.EV_REPLACE and e[1] != obs.seat and i > 0 for i, e in enumerate(evs)):
            continue
        checker, belief = Checker(obs), W.Belief(obs)
        ctx = list(checker.ctx)
        ctx[5] = np.zeros(4, np.int64)   # the same checker without replacement preconditions
        ctx = tuple(ctx)
        for _ in range(30):
            world = random_world(obs, rng)
            if checker.check(world) or not _chk_world(checker.a, checker.rv, ctx, world, True):
                continue
            if enumeration_size(h, obs, world) > 20000:
                continue
            assert replay_count(h, obs, world) == 0
            assert belief.weight(world) == 0.0
            bites += 1
        if bites >= 3:
            break


# ---------------------------------------------------------------- sampling
def _chi2(obs, target, draws):
    keys = sorted(target)
    exp = np.array([target[k] for k in keys], float)
    exp = exp / exp.sum() * len(draws)
    counts = {k: 0 for k in keys}
    for k in draws:
        assert k in counts, "sampled a world of zero posterior weight"
        counts[k] += 1
    f = np.array([counts[k] for k in keys], float)
    # pool the rare cells so every expected count is at least 5
    order = np.argsort(exp)
    fo, fe, acc_o, acc_e = [], [], 0.0, 0.0
    for i in order:
        acc_o += f[i]
        acc_e += exp[i]
        if acc_e >= 5:
            fo.append(acc_o)
            fe.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0:
        fo[-1] += acc_o
        fe[-1] += acc_e
    return chisquare(fo, fe).pvalue, len(keys)


@pytest.mark.parametrize("preset,over", [("block", {}), ("block", {"players": 4}), ("kozel", {}),
                                         ("express", {"players": 3})],
                         ids=["block", "block4", "kozel", "express3"])
def test_block_sampler_matches_exact_enumeration(preset, over):
    """Games without drawing: the sampler is exact (uniform over consistent
    worlds; consistency by engine replay)."""
    found = 0
    for m, h, obs in decisions(preset, 21, over):
        if obs.array[16] < 6:
            continue
        n_all = n_worlds(obs)
        if n_all > 3000:
            continue
        target = {key: 1.0 for key, world in all_worlds(obs) if replay_count(h, obs, world) > 0}
        if len(target) < 3 or len(target) == n_all:
            continue  # too big, trivial, or nothing to infer
        worlds, weights = W.Belief(obs).sample(max(4000, 40 * len(target)), seed=found)
        assert np.all(weights == 1.0)
        p, k = _chi2(obs, target, [key_of(obs, w) for w in worlds])
        assert p > 1e-3, (p, k)
        found += 1
        if found == 2:
            break
    assert found == 2


@pytest.mark.parametrize("preset,over", [("draw", {}), ("all_fives", {}), ("fives", {})],
                         ids=["draw", "all_fives", "fives"])
def test_drawing_sampler_matches_exact_enumeration(preset, over):
    """Drawing games: proposals weighted by ``prod N_j``; accepting each with
    probability ``w / w_max`` must give the exact posterior (weights from
    engine replay counts)."""
    found = 0
    hs_fact = math.factorial(Match(preset, **over).rules.hand_size)
    for m, h, obs, true in tiny_positions(preset, over, 31, 60, limit=2000):
        if n_worlds(obs) > 400 or enumeration_size(h, obs, true) > 2000:
            continue
        target = {}
        for key, world in all_worlds(obs):
            c = replay_count(h, obs, world)
            if c:
                target[key] = float(c)
        if len(target) < 3 or len(set(target.values())) < 2:
            continue  # too big, or the weights are all equal (not a weighting test)
        belief = W.Belief(obs)
        wneed = sum(1 for x in belief.parts.wneed[:len(belief.parts.hseat)] if x)
        wmax = max(target.values()) * hs_fact ** wneed
        worlds, weights = belief.sample(30 * max(2000, 30 * len(target)), seed=found)
        rng = np.random.default_rng(found)
        keep = rng.random(len(weights)) < weights / wmax
        assert np.all(weights <= wmax * (1 + 1e-9))
        draws = [key_of(obs, w) for w in worlds[keep]]
        assert len(draws) > 1000
        p, k = _chi2(obs, target, draws)
        assert p > 1e-3, (p, k, len(draws))
        found += 1
        if found == 2:
            break
    assert found == 2


@pytest.mark.parametrize("preset,over", VARIANTS, ids=IDS)
def test_sampled_worlds_are_all_consistent(preset, over):
    """100,000 sampled worlds across the presets (about 7,000 each), every one
    accepted by the checker; and the boneyard order is a permutation of the
    rest."""
    total = 0
    positions = 0
    for m, h, obs in decisions(preset, 41, over):
        if obs.array[16] == 0 and positions % 3:
            positions += 1
            continue
        worlds, weights = W.Belief(obs).sample(250, seed=positions)
        assert len(worlds) > 0
        assert np.all(weights > 0)
        ok = Checker(obs).check_many(worlds)
        assert ok.all(), f"{preset}: {np.count_nonzero(~ok)} inconsistent worlds at position {positions}"
        total += len(worlds)
        positions += 1
        if total >= 7200:
            break


def test_inference_off_respects_only_sizes_and_seen_tiles():
    """Without inference a seat may get tiles of a number it passed on; the
    worlds still respect the sizes and the seen tiles, and the distribution
    is uniform over all such assignments."""
    for m, h, obs in decisions("block", 3):
        voids = [obs.void_mask(j) for j in range(2) if j != obs.seat]
        if obs.array[16] >= 6 and voids[0]:
            break
    opp = 1 - obs.seat
    banned = int(W.pips_to_tiles(obs.void_mask(opp))) & int(obs.array[37])
    on, _ = W.Belief(obs, inference=True).sample(3000, seed=1)
    off, woff = W.Belief(obs, inference=False).sample(3000, seed=1)
    assert np.all(woff == 1.0)
    assert not any(int(w[L.S_HAND + opp]) & banned for w in on)
    assert sum(1 for w in off if int(w[L.S_HAND + opp]) & banned) > 100
    size_only = Checker(obs, inference=False)
    assert size_only.check_many(off).all()
    assert not Checker(obs).check_many(off).all()
    # uniform over all assignments (chi-square on the tiles the opponent holds)
    u = tiles_of(obs.array[37])
    counts = np.array([sum(1 for w in off if int(w[L.S_HAND + opp]) >> x & 1) for x in u], float)
    exp = np.full(len(u), len(off) * obs.hand_sizes[opp] / len(u))
    assert chisquare(counts, exp).pvalue > 1e-3


def test_sampler_never_reads_hidden_state():
    """Two states that differ only in hidden tiles (the undrawn boneyard
    order, the opponent's hand vs the boneyard where the history allows)
    give the same observation, hence the very same worlds; and the sampled
    boneyard orders are not the true one."""
    for m, h, obs in decisions("draw", 8):
        if obs.array[16] >= 6 and obs.boneyard_size >= 5:
            break
    st = m._st
    other = st.copy()
    pos, end = int(st[L.S_BONE_POS]), int(st[L.S_BONE_END])
    other[L.S_BONE + pos:L.S_BONE + end] = st[L.S_BONE + pos:L.S_BONE + end][::-1]
    saved = st.copy()
    st[:] = other
    obs2 = h.observe()
    st[:] = saved
    assert obs2 == obs
    b1, b2 = W.Belief(obs), W.Belief(obs2)
    for b in (b1, b2):
        others = [j for j in range(m.rules.players) if j != obs.seat]
        assert all(b.base[L.S_HAND + j] == 0 for j in others)
        assert np.all(b.base[L.S_BONE:L.S_BONE + 28] == -1)
    w1, x1 = b1.sample(2000, seed=9)
    w2, x2 = b2.sample(2000, seed=9)
    assert np.array_equal(w1, w2) and np.array_equal(x1, x2)
    true_order = list(st[L.S_BONE + pos:L.S_BONE + end])
    same = sum(1 for w in w1 if list(w[L.S_BONE:L.S_BONE + (end - pos)]) == true_order)
    assert same < 5
    first = sum(1 for w in w1 if w[L.S_BONE] == true_order[0])
    assert first < 0.5 * len(w1)


def test_belief_refuses_a_pending_forced_play_of_another_seat():
    for m, h, obs in decisions("draw", 12):
        ev = obs.event_array.tolist()
        if ev and ev[-1][0] == L.EV_DRAW and ev[-1][1] == obs.seat:
            other = h.observe(1 - obs.seat)
            with pytest.raises(ValueError, match="draw"):
                W.Belief(other)
            return
