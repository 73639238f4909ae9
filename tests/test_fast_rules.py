"""The fused playouts agree with the kernels, and with the reference, under every valid rule set.

``engine/fast.py`` holds hand-fused copies of the random playout for some
shapes of rules and falls back to the kernels' own loop for the rest
(:func:`dominoai.engine.fast.playout_path`). These tests check that the
dispatch is right over every combination of ``Rules`` fields that
validation accepts, not only over the presets:

- a hypothesis property test draws a preset and overrides of any fields
  (from ``DOMAINS``), keeps those ``get_rules`` accepts, and checks that
  ``fast.simulate_fast`` gives the same statistics as ``kernels.simulate``
  (wins per side, ends, points per side, moves) for the same seed, and that
  ``fast.playout_fast`` ends states reached mid-match exactly as
  ``kernels.playout_random`` does;
- a second property test plays the same random hands in
  ``tests/reference.py`` (the independent plain-Python rules), driven by a
  plain-Python copy of the kernels' generator (SplitMix64) and move order,
  and checks the statistics of both engines against it, over the overrides
  the reference knows (players, hand size, target, partnerships, first lead);
- ``test_enumeration_quick`` runs the product of the fields that shape a
  playout (``ENUM_DOMAINS``) on every preset, 100 hands each;
  ``test_enumeration`` (slow) 2,000 hands and 20 mid-match playouts each.

``python tests/test_fast_rules.py [hands]`` runs the enumeration and prints
how many valid rule sets disagree.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("side")  # the compiled kernels it needs (conftest.WARM_GROUPS)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as hs

from dominoai.engine import fast as F
from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.rules import Rules, get_rules, preset_names

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference as ref  # noqa: E402

PRESETS = preset_names()

# Values the property test draws for each field of Rules (the preset's own
# value is kept when a field is not drawn). Choice fields list every value
# validation accepts (checked by test_domains_cover_rules); integer fields a
# few values around the presets' ones.
DOMAINS = {
    "players": [2, 3, 4],
    "hand_size": [1, 3, 5, 6, 7],
    "partnerships": [False, True],
    "drawing": [False, True],
    "boneyard_reserve": [0, 1, 3],
    "spinner": ["none", "first_double", "base_double"],
    "end_scoring": ["none", "points", "strikes"],
    "zero_lead_strikes": [0, 1, 3],
    "first_lead": ["lot", "highest_double", "tile", "seat0"],
    "first_lead_tile": ["1:1", "0:0", "6:6", "5:3"],
    "next_lead": ["winner", "last_layer", "after_leader"],
    "hand_scoring": ["others_minus_own", "others", "losers_record", "strikes"],
    "round_to": [1, 2, 5],
    "blocked_tie": ["nobody", "leader_order"],
    "winner_by": ["domino_or_lightest", "lightest"],
    "score_own_pair": [False, True],
    "alone_00": [0, 25],
    "target": [1, 5, 20, 61, 150],
    "target_mode": ["reach_wins", "reach_loses"],
    "instant_target": [False, True],
    "match_hands": [0, 1],
    "max_replacements": [0, 1, 4],
    "free_replacements": [0, 1, 4],
}

# The enumeration: the fields that shape a playout, on every preset.
ENUM_DOMAINS = {
    "spinner": ["none", "first_double", "base_double"],
    "end_scoring": ["none", "points", "strikes"],
    "hand_scoring": ["others_minus_own", "others", "losers_record", "strikes"],
    "drawing": [False, True],
    "max_replacements": [0, 4],
    "free_replacements": [0, 1],
    "boneyard_reserve": [0, 1],
    "round_to": [1, 5],
}


def rules_or_none(preset: str, overrides: dict) -> Rules | None:
    """``get_rules(preset, **overrides)``, or None when validation refuses it."""
    try:
        return get_rules(preset, **overrides)
    except ValueError:
        return None


# ---------------------------------------------------------------- fast vs kernels
def simulate_both(rv: np.ndarray, seed: int, hands: int) -> tuple[list, list]:
    """The ``stats`` of ``kernels.simulate`` and of ``fast.simulate_fast``."""
    a = np.zeros(16, np.int64)
    b = np.zeros(16, np.int64)
    K.simulate(rv, seed, hands, a)
    F.simulate_fast(rv, seed, hands, b)
    return a.tolist(), b.tolist()


def mid_match_states(rules: Rules, seed: int, n: int, max_hands: int = 6) -> list[np.ndarray]:
    """``n`` states with a seat to decide, reached by random kernel moves in
    matches of up to ``max_hands`` hands (so later hands, carried scores and
    replacements used earlier are covered too)."""
    rv = rules.vector()
    rng = np.random.default_rng(seed)
    st = np.zeros(L.S_SIZE, np.int64)
    ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    rs = np.array([seed], np.uint64)
    out: list[np.ndarray] = []
    hands = max_hands
    while len(out) < n:
        if st[L.S_MATCH_OVER] or hands >= max_hands:
            K.new_match(st, rv)
            st[L.S_LOG] = 0
            hands = 0
        perm = rng.permutation(28).astype(np.int64)
        assert K.start_hand(st, rv, perm, int(rng.integers(rules.players))) >= 0
        hands += 1
        for _ in range(int(rng.integers(0, 16))):
            if st[L.S_CUR] < 0:
                break
            nm = K.legal_moves(st, rv, buf)
            K.apply_move(st, rv, ev, buf[int(rng.integers(nm))])
        if st[L.S_CUR] >= 0:
            out.append(st.copy())
            K.playout_random(st, rv, ev, rs, buf)
    return out


def playout_mismatch(rules: Rules, seed: int, n_states: int) -> str | None:
    """Play ``n_states`` mid-match states out with ``kernels.playout_random``
    and ``fast.playout_fast`` from the same generator state; a description
    of the first difference, or None."""
    rv = rules.vector()
    ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    for i, s in enumerate(mid_match_states(rules, seed, n_states)):
        s1, s2 = s.copy(), s.copy()
        r1 = np.array([seed + i], np.uint64)
        r2 = r1.copy()
        n1 = K.playout_random(s1, rv, ev, r1, buf)
        n2 = F.playout_fast(s2, rv, r2, ev)
        # the fused playouts log nothing and keep no public deductions
        for x in (s1, s2):
            x[L.S_NEVENTS] = 0
            x[L.S_VOID:L.S_VOID + 4] = 0
        if n1 != n2 or r1[0] != r2[0] or s1.tolist() != s2.tolist():
            diff = [j for j in range(L.S_SIZE) if s1[j] != s2[j]]
            return f"state {i}: moves {n1} vs {n2}, rng equal {r1[0] == r2[0]}, state offsets {diff}"
    return None


def disagreement(rules: Rules, seed: int, hands: int, n_states: int) -> str | None:
    """Why ``fast`` and ``kernels`` disagree under ``rules``, or None."""
    a, b = simulate_both(rules.vector(), seed, hands)
    if a != b:
        return f"simulate: kernels {a}, fast {b}"
    if n_states:
        return playout_mismatch(rules, seed, n_states)
    return None


# ---------------------------------------------------------------- reference
_M64 = (1 << 64) - 1


class SplitMix64:
    """The kernels' generator (``kernels.rng_next`` / ``rng_below``) in plain Python."""

    def __init__(self, seed: int):
        self.s = seed & _M64

    def below(self, n: int) -> int:
        self.s = (self.s + 0x9E3779B97F4A7C15) & _M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        z ^= z >> 31
        return ((z >> 33) * n) >> 31


def _ref_move_order(mv) -> tuple:
    # the kernels' legal_moves order: by end, then tile id; the replacement last
    return (1, 0, 0) if mv[0] == "replace" else (0, mv[2], mv[1])


def reference_simulate(preset: str, overrides: dict, seed: int, hands: int) -> list:
    """``kernels.simulate``'s ``stats`` computed by ``tests/reference.py``: the
    same deals (partial Fisher-Yates), leaders and random moves, drawn from
    :class:`SplitMix64` in the kernels' order."""
    rules = get_rules(preset, **overrides)
    n, hsz = rules.players, rules.hand_size
    k = 28 if rules.drawing else n * hsz
    rng = SplitMix64(seed)
    stats = [0] * 16
    for _ in range(hands):
        perm = list(range(28))
        for i in range(min(k, 27)):
            j = i + rng.below(28 - i)
            perm[i], perm[j] = perm[j], perm[i]
        leader = rng.below(n)
        r = ref.RefMatch(preset, **overrides)
        r.new_hand([perm[s * hsz:(s + 1) * hsz] for s in range(n)], perm[n * hsz:],
                   leader if rules.first_lead == "lot" else None)
        while not r.hand_over():
            moves = sorted(r.legal_moves(), key=_ref_move_order)
            r.play(moves[rng.below(len(moves))])
            stats[12] += 1
        res = r.hand_result()
        if res["winner"] is None:
            stats[7] += 1
        else:
            stats[res["winner"]] += 1
        stats[{"domino": 4, "blocked": 5, None: 6}[res["end"]]] += 1
        for s, p in enumerate(res["points"]):
            stats[8 + s] += p
    return stats


# the overrides tests/reference.py accepts, and their values
REF_DOMAINS = {
    "players": [2, 3, 4],
    "hand_size": [1, 4, 5, 6, 7],
    "target": [1, 10, 150],
    "partnerships": [False, True],
    "first_lead": ["lot", "highest_double"],
}


def _ref_ok(preset: str, overrides: dict) -> bool:
    try:
        ref.RefMatch(preset, **overrides)
    except ValueError:
        return False
    return rules_or_none(preset, overrides) is not None


# ---------------------------------------------------------------- strategies
@hs.composite
def any_rules(draw, domains=DOMAINS):
    """(preset, overrides): each field overridden with probability 1/3."""
    preset = draw(hs.sampled_from(PRESETS))
    over = {}
    for field, values in domains.items():
        if draw(hs.integers(0, 2)) == 0:
            over[field] = draw(hs.sampled_from(values))
    return preset, over


def _check_fast(preset, over, seed):
    rules = rules_or_none(preset, over)
    assume(rules is not None)
    why = disagreement(rules, seed, hands=300, n_states=6)
    assert why is None, f"get_rules({preset!r}, **{over!r}): {why}"


_FAST_SETTINGS = dict(deadline=None, derandomize=True, database=None,
                      suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@settings(max_examples=250, **_FAST_SETTINGS)
@given(any_rules(), hs.integers(0, 2**32))
def test_fast_equals_kernels_on_any_valid_rules(case, seed):
    _check_fast(*case, seed)


@pytest.mark.slow
@settings(max_examples=3000, **dict(_FAST_SETTINGS, derandomize=False))
@given(any_rules(), hs.integers(0, 2**32))
def test_fast_equals_kernels_on_any_valid_rules_slow(case, seed):
    _check_fast(*case, seed)


def _check_reference(preset, over, seed, hands):
    assume(_ref_ok(preset, over))
    rv = get_rules(preset, **over).vector()
    want = reference_simulate(preset, over, seed, hands)
    a, b = simulate_both(rv, seed, hands)
    assert a == want, f"kernels vs reference, {preset} {over} seed {seed}"
    assert b == want, f"fast vs reference, {preset} {over} seed {seed}"


@settings(max_examples=60, **_FAST_SETTINGS)
@given(any_rules(REF_DOMAINS), hs.integers(0, 2**32))
def test_fast_and_kernels_equal_reference(case, seed):
    _check_reference(*case, seed, hands=100)


@pytest.mark.slow
@settings(max_examples=400, **dict(_FAST_SETTINGS, derandomize=False))
@given(any_rules(REF_DOMAINS), hs.integers(0, 2**32))
def test_fast_and_kernels_equal_reference_slow(case, seed):
    _check_reference(*case, seed, hands=300)


# ---------------------------------------------------------------- fixed cases
def test_domains_cover_rules():
    """Every Rules field is drawn, and every value of a choice field validation accepts."""
    fields = {f.name for f in dataclasses.fields(Rules)} - {"preset"}
    assert set(DOMAINS) == fields
    for field, values in DOMAINS.items():
        if not isinstance(values[0], str) or field == "first_lead_tile":
            continue
        with pytest.raises(ValueError) as e:
            get_rules("draw", **{field: "no such value"})
        accepted = re.search(r"must be one of (.*) \(got", str(e.value)).group(1).split(", ")
        assert sorted(values) == sorted(accepted), field


def test_simulation_matches_the_reference_on_a_preset():
    """The plain-Python driver itself: Draw, 200 hands, equal to both engines
    (so a failure of the property test above is not the driver's)."""
    want = reference_simulate("draw", {}, 7, 200)
    a, b = simulate_both(get_rules("draw").vector(), 7, 200)
    assert a == b == want
    assert want[4] + want[5] + want[6] == 200


PRESET_PATHS = {
    "draw": F.PATH_LINE, "block": F.PATH_BLOCK2, "all_fives": F.PATH_SPINNER, "fives": F.PATH_LINE,
    "kozel": F.PATH_LINE, "express": F.PATH_BLOCK2, "dominoball": F.PATH_SPINNER,
    "openspiel_block": F.PATH_BLOCK2, "openspiel_team": F.PATH_LINE, "pydominoes": F.PATH_LINE,
}


def test_presets_keep_their_fused_loops():
    assert set(PRESET_PATHS) == set(PRESETS)
    for preset, path in PRESET_PATHS.items():
        assert F.playout_path(get_rules(preset).vector()) == path, preset
    assert F.playout_path(get_rules("block", players=4).vector()) == F.PATH_LINE
    assert F.playout_path(get_rules("dominoball", spinner="none", max_replacements=0,
                                    free_replacements=0).vector()) == F.PATH_LINE


# rules vectors outside every fused shape (values no Rules gives): the kernels play them
OUTSIDE = [
    ("draw", L.R_END_SCORING, 3),        # an end scoring the fused loops do not know
    ("all_fives", L.R_SPINNER, 3),       # a spinner mode they do not know
    ("block", L.R_DRAWING, 2),           # drawing is 0 or 1
    ("express", L.R_PARTNERS, 1),        # pairs with two seats
    ("dominoball", L.R_MAX_REPL, -1),
]


@pytest.mark.parametrize("preset,field,value", OUTSIDE, ids=[f"{c[0]}-{c[1]}" for c in OUTSIDE])
def test_outside_the_shapes_the_kernels_play(preset, field, value):
    rv = get_rules(preset).vector()
    rv[field] = value
    assert F.playout_path(rv) == F.PATH_KERNELS
    a, b = simulate_both(rv, 3, 300)
    assert a == b
    assert a[4] + a[5] + a[6] == 300
    # playout_fast from a dealt hand: the kernels' moves, nothing logged
    ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    for seed in range(20):
        st = np.zeros(L.S_SIZE, np.int64)
        K.new_match(st, rv)
        perm = np.random.default_rng(seed).permutation(28).astype(np.int64)
        K.start_hand(st, rv, perm, 0)
        s1, s2 = st.copy(), st.copy()
        s1[L.S_LOG] = 0
        r1 = np.array([seed], np.uint64)
        r2 = r1.copy()
        n1 = K.playout_random(s1, rv, ev, r1, buf)
        n2 = F.playout_fast(s2, rv, r2, ev)
        assert s2[L.S_LOG] == 1 and s2[L.S_NEVENTS] == 0  # logging restored, nothing logged
        s1[L.S_LOG] = 1
        s1[L.S_VOID:L.S_VOID + 4] = s2[L.S_VOID:L.S_VOID + 4] = 0
        assert (n1, r1[0], s1.tolist()) == (n2, r2[0], s2.tolist())


STRIKE_CASES = [
    # rule sets where a fused line playout must score the end totals as strikes, not points
    ("dominoball", dict(spinner="none", max_replacements=0, free_replacements=0)),
    ("draw", dict(end_scoring="strikes", hand_scoring="strikes", drawing=False)),
    ("draw", dict(end_scoring="strikes", hand_scoring="strikes")),
    ("dominoball", dict(spinner="none", max_replacements=0, free_replacements=0,
                        zero_lead_strikes=3)),
]


@pytest.mark.parametrize("preset,over", STRIKE_CASES, ids=[f"{p}-{i}" for i, (p, _) in enumerate(STRIKE_CASES)])
def test_fused_playouts_score_strikes_as_the_kernels_do(preset, over):
    rules = get_rules(preset, **over)
    a, b = simulate_both(rules.vector(), 0, 2000)
    assert a == b
    assert playout_mismatch(rules, 11, 200) is None


HAND_CASES = [
    # (preset, overrides, lead, other seat's tile, points per side after the playout)
    # Dominoball without spinner or replacements: the lone lead 5:5 counts 10,
    # two strikes (one per 5: docs/rules.md, `dominoball`); going out against 1:0 (1 pip) adds
    # none. The fused copy scored 10.
    ("dominoball", dict(spinner="none", max_replacements=0, free_replacements=0), "5:5", "1:0", [2, 0]),
    # leading 0:0 as the first tile: zero_lead_strikes (1), the count 0 scores nothing
    ("dominoball", dict(spinner="none", max_replacements=0, free_replacements=0), "0:0", "1:0", [1, 0]),
    # Draw with strike scoring and no drawing: 5:0 counts 5, one strike; out
    # against 6:5 (11 pips): 1 + (11 - 3) // 5 = 2 strikes
    ("draw", dict(end_scoring="strikes", hand_scoring="strikes", drawing=False), "5:0", "6:5", [3, 0]),
    # the same hands scoring points: 5 for the ends, 11 for the other's pips
    ("draw", dict(end_scoring="points", drawing=False), "5:0", "6:5", [16, 0]),
]


@pytest.mark.parametrize("preset,over,lead,other,points", HAND_CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in HAND_CASES])
def test_one_tile_hands_by_hand(preset, over, lead, other, points):
    """One tile each, seat 0 leads and goes out: the points counted by hand,
    from both playouts."""
    from dominoai.tiles import Tile

    rules = get_rules(preset, hand_size=1, **over)
    rv = rules.vector()
    a, b = Tile.parse(lead).id, Tile.parse(other).id
    perm = np.array([a, b] + [t for t in range(28) if t not in (a, b)], np.int64)
    ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    for play in ("kernels", "fast"):
        st = np.zeros(L.S_SIZE, np.int64)
        K.new_match(st, rv)
        st[L.S_LOG] = 0
        assert K.start_hand(st, rv, perm, 0) == 0
        rs = np.array([1], np.uint64)
        if play == "fast":
            assert F.playout_fast(st, rv, rs, ev) == 1
        else:
            assert K.playout_random(st, rv, ev, rs, buf) == 1
        assert st[L.S_STATUS] == L.ST_DOMINO, play
        assert st[L.S_POINTS:L.S_POINTS + 2].tolist() == points, play


# ---------------------------------------------------------------- enumeration
def enumerate_rules(domains=ENUM_DOMAINS):
    """Every valid (preset, overrides) of the product of ``domains`` on every preset."""
    keys = list(domains)
    for preset in PRESETS:
        for vals in itertools.product(*domains.values()):
            over = dict(zip(keys, vals))
            rules = rules_or_none(preset, over)
            if rules is not None:
                yield preset, over, rules


def count_disagreements(hands: int = 2000, n_states: int = 0) -> tuple[int, list]:
    """(valid rule sets, [(preset, overrides, why), ...] of those that disagree)."""
    valid = 0
    bad = []
    for preset, over, rules in enumerate_rules():
        valid += 1
        why = disagreement(rules, 1234, hands, n_states)
        if why is not None:
            bad.append((preset, over, why))
    return valid, bad


def test_enumeration_quick():
    """The enumeration with 100 hands per rule set (about a second)."""
    valid, bad = count_disagreements(100)
    assert valid > 1000
    assert not bad, f"{len(bad)} of {valid} valid rule sets disagree, e.g. {bad[:3]}"


@pytest.mark.slow
def test_enumeration():
    valid, bad = count_disagreements(2000, n_states=20)
    assert valid > 1000
    assert not bad, f"{len(bad)} of {valid} valid rule sets disagree, e.g. {bad[:3]}"


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    valid, bad = count_disagreements(n)
    print(f"{len(bad)} of {valid} valid rule sets disagree (simulate, {n} hands each)")
    for preset, over, why in bad:
        print(f"  {preset} {over}: {why[:160]}")
