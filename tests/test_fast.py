"""The fast playout draws the same random moves as the generic kernels.

``fast.playout_fast`` runs fused copies of the hot loop for the rule shapes
they cover (``fast.playout_path``); these tests pin it to
``kernels.playout_random`` (the engine the facade and the differential tests
use): same seed, same hands, same final state, on every preset. Every other
valid rule set is checked in ``tests/test_fast_rules.py``.
"""
import numpy as np
import pytest

pytestmark = pytest.mark.kernels("side")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai import Match, get_rules, preset_names
from dominoai.engine import fast as F
from dominoai.engine import kernels as K
from dominoai.engine import layout as L

VARIANTS = [(p, {}) for p in preset_names()] + [
    ("draw", {"players": 3}), ("draw", {"players": 4}), ("all_fives", {"players": 3}),
    ("all_fives", {"players": 4}), ("block", {"players": 4}), ("express", {"players": 3}),
    ("express", {"players": 4, "partnerships": True}),
]
IDS = [p + "".join(f"-{k}{v}" for k, v in o.items()) for p, o in VARIANTS]


@pytest.mark.parametrize("preset,over", VARIANTS, ids=IDS)
def test_simulate_fast_equals_simulate(preset, over):
    rv = get_rules(preset, **over).vector()
    a = np.zeros(16, np.int64)
    b = np.zeros(16, np.int64)
    K.simulate(rv, 123, 3000, a)
    F.simulate_fast(rv, 123, 3000, b)
    assert a.tolist() == b.tolist()
    assert a[4] + a[5] + a[6] == 3000  # every hand ended one way


@pytest.mark.parametrize("preset,over", VARIANTS, ids=IDS)
def test_playout_from_mid_hand_states(preset, over):
    """From states reached by random play, both playouts end identically."""
    rng = np.random.default_rng(5)
    ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    for i in range(300):
        m = Match(preset, seed=int(rng.integers(1 << 30)), **over)
        h = m.new_hand()
        for _ in range(int(rng.integers(0, 12))):
            if h.over:
                break
            moves = h.legal_moves()
            h.play(moves[int(rng.integers(len(moves)))])
        if h.over:
            continue
        s1 = m._st.copy()
        s2 = m._st.copy()
        r1 = np.array([i + 1], np.uint64)
        r2 = np.array([i + 1], np.uint64)
        s1[L.S_LOG] = s2[L.S_LOG] = 0
        n1 = K.playout_random(s1, m._rv, ev, r1, buf)
        n2 = F.playout_fast(s2, m._rv, r2, ev)
        assert n1 == n2
        assert r1[0] == r2[0]
        s1[L.S_NEVENTS] = s2[L.S_NEVENTS] = 0
        # rollouts keep no public deductions (S_VOID): compare the rest
        s1[L.S_VOID:L.S_VOID + 4] = s2[L.S_VOID:L.S_VOID + 4] = 0
        assert s1.tolist() == s2.tolist(), f"{preset} {over} state {i}"
