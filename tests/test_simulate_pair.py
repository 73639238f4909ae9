"""The pair loop of ``dominoai simulate`` plays the hands of the general path.

``fast.simulate_fast`` plays rules of Block's shape for two seats with a loop
of its own (``fast.in_pair_shape``), and ``fast.simulate_lanes`` plays several
seeds' hands interleaved. Both must give, for the same seeds, the hands of
``kernels.simulate`` (the engine's general loop) and of ``fast``'s fused
playout loop: the same winner, end, points and moves, hand by hand.
"""
import numpy as np
import pytest

pytestmark = pytest.mark.kernels("side")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai import get_rules
from dominoai.engine import fast as F
from dominoai.engine import kernels as K
from dominoai.simulate import SIM_CHUNK, run_simulation

# Block, Express and OpenSpiel's block game, and overrides of every field the
# pair loop reads: hand size, first lead, hand scoring, rounding, ties, winner
# by lightest, a lone 0:0's count
PAIR_RULES = [
    ("block", {}), ("express", {}), ("openspiel_block", {}),
    ("block", {"hand_size": 14}), ("block", {"hand_size": 1}), ("express", {"hand_size": 3}),
    ("block", {"first_lead": "seat0"}), ("block", {"first_lead": "highest_double", "hand_size": 4}),
    ("block", {"hand_scoring": "others"}),
    ("block", {"round_to": 5}), ("block", {"blocked_tie": "leader_order"}),
    ("block", {"winner_by": "lightest"}), ("block", {"alone_00": 25, "hand_size": 2}),
]
IDS = [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o in PAIR_RULES]


def _one_hand(sim, rv, seed, *extra):
    stats = np.zeros(16, np.int64)
    sim(rv, seed, 1, stats, *extra)
    return stats.tolist()


@pytest.mark.parametrize("preset,over", PAIR_RULES, ids=IDS)
def test_pair_loop_plays_the_general_hands(preset, over):
    rv = get_rules(preset, **over).vector()
    assert F.in_pair_shape(rv)
    path = F.playout_path(rv)
    assert path == F.PATH_BLOCK2
    # hand by hand: one hand per seed, its winner, end, points and moves
    for seed in range(40):
        want = _one_hand(K.simulate, rv, seed)
        assert _one_hand(F.simulate_fast, rv, seed) == want, seed
        assert _one_hand(F._simulate_fused, rv, seed, path) == want, seed
    # a run of hands from one seed: the generator carries over from hand to hand
    a = np.zeros(16, np.int64)
    b = np.zeros(16, np.int64)
    K.simulate(rv, 99, 500, a)
    F.simulate_fast(rv, 99, 500, b)
    assert a.tolist() == b.tolist()
    assert a[4] + a[5] == 500 and a[6] == 0  # every hand went out or blocked


def test_one_block_hand_by_hand():
    """Block with one tile each, seed 5, worked out with SplitMix64 by hand:
    the deal draws 10 of 28 and 20 of 27, so seat 0 holds 4:0 (tile 10) and
    seat 1 6:0 (tile 21); the lot draws seat 0, which leads 4:0, goes out
    in one move and scores seat 1's 6 pips."""
    rv = get_rules("block", hand_size=1).vector()
    want = [1, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0]
    assert _one_hand(K.simulate, rv, 5) == want
    assert _one_hand(F.simulate_fast, rv, 5) == want
    lanes = np.zeros(16, np.int64)
    F.simulate_lanes(rv, np.array([5], np.uint64), np.array([1], np.int64), lanes)
    assert lanes.tolist() == want


@pytest.mark.parametrize("preset", ["block", "express", "draw"])
def test_lanes_play_each_seed_as_alone(preset):
    """simulate_lanes = simulate_fast per lane, with lanes of unequal lengths
    (one empty), in the pair shape (interleaved) and outside it (in turn)."""
    rv = get_rules(preset).vector()
    seeds = np.array([3, 1 << 40, 7, 12345, 0], np.uint64)
    counts = np.array([300, 17, 0, 250, 1], np.int64)
    want = np.zeros(16, np.int64)
    for s, c in zip(seeds, counts):
        F.simulate_fast(rv, int(s), int(c), want)
    got = np.zeros(16, np.int64)
    F.simulate_lanes(rv, seeds, counts, got)
    assert got.tolist() == want.tolist()
    assert got[4] + got[5] + got[6] == counts.sum()


def test_run_simulation_is_the_chunks_in_turn():
    """The statistics of ``run_simulation`` are those of its chunks played
    one after the other, each from its ``SeedSequence`` child."""
    rules = get_rules("block")
    n = 3 * SIM_CHUNK + 123
    got = run_simulation(rules, n, seed=8)
    rv = rules.vector()
    stats = np.zeros(16, np.int64)
    left = n
    for child in np.random.SeedSequence(8).spawn(-(-n // SIM_CHUNK)):
        s = int(child.generate_state(1, np.uint64)[0] & np.uint64(0x7FFFFFFFFFFFFFFF))
        K.simulate(rv, s, min(SIM_CHUNK, left), stats)
        left -= SIM_CHUNK
    assert got["wins"] == stats[0:2].tolist() and got["no_winner"] == stats[7]
    assert (got["domino"], got["blocked"], got["cut"]) == (stats[4], stats[5], stats[6])
    assert got["points"] == stats[8:10].tolist() and got["moves"] == stats[12]
    assert got["hands"] == n


def test_lanes_refuse_bad_counts():
    rv = get_rules("block").vector()
    stats = np.zeros(16, np.int64)
    with pytest.raises(ValueError, match="differ in length"):
        F.simulate_lanes(rv, np.zeros(2, np.uint64), np.ones(3, np.int64), stats)
    with pytest.raises(ValueError, match="negative"):
        F.simulate_lanes(rv, np.zeros(2, np.uint64), np.array([5, -1], np.int64), stats)
    assert stats.tolist() == [0] * 16
