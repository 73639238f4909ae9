"""Fusion at the next own decision (``insane:fusion``, dominoai/bots/pimc/fusion.py).

The kernels are checked against a reference written here in Python: the
other seats' replies picked by the exact solver's values, the worlds grouped
by a tuple of what the seat sees, the best move's sum per group. The solver
itself is checked in tests/test_solver.py.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai.bots import make_bot
from dominoai.bots.pimc import hand_value, new_scratch
from dominoai.bots.pimc.fusion import (MAX_FUSED_MOVES, file_world, fused_values_into,
                                       fused_world, new_fusion)
from dominoai.bots.pimc.solver import solve
from dominoai.bots.worlds import Belief
from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.rules import get_rules
from dominoai.tournament import decision_positions


def _left(obs, st):
    rv = obs.rules.vector()
    return sum(bin(int(st[L.S_HAND + s])).count("1") for s in range(rv[L.R_PLAYERS]))


def _positions(preset, n, most, seed):
    return decision_positions(preset, n, seed=seed,
                              keep=lambda obs, st: 4 <= _left(obs, st) <= most)[:n]


def _value(ws, rv, seat, st):
    """The solver's exact value of ``st`` for ``seat`` (the oracle)."""
    ws.stack[0][:] = st
    ws.nodes[0] = 0
    v = solve(ws, rv, seat)
    assert ws.nodes[2] == 0
    return float(v)


def _children(ws, rv, seat, st, buf):
    """The oracle's value of every legal move at ``st``, in the engine's order."""
    vals = []
    for j in range(K.legal_moves(st, rv, buf)):
        ch = st.copy()
        K.apply_move(ch, rv, ws.ev, buf[j])
        vals.append(_value(ws, rv, seat, ch))
    return vals


def _view(st, rv, seat):
    """What ``seat`` sees in ``st``, as a tuple (the reference's key)."""
    return (int(st[L.S_HAND + seat]), int(st[L.S_CUR]), int(st[L.S_PLAYED]),
            int(st[L.S_NPLAYED]), tuple(int(x) for x in st[L.S_END_PIP:L.S_END_PIP + 4]),
            tuple(int(x) for x in st[L.S_END_KIND:L.S_END_KIND + 4]), int(st[L.S_SPIN]),
            int(st[L.S_MUST]),
            tuple(bin(int(st[L.S_HAND + s])).count("1") for s in range(rv[L.R_PLAYERS])),
            int(K.bone_left(st)), tuple(int(x) for x in st[L.S_POINTS:L.S_POINTS + 4]))


def _reference(worlds, weights, codes, rv, seat, ws):
    """Fused and PIMC values of every root move, in Python."""
    own = K.side_of(rv, seat)
    p0 = ws.p0
    fused, pimc = [], []
    buf = np.zeros(L.MAX_MOVES, np.int64)
    for c in codes:
        groups = {}
        plain = 0.0
        for wst, w in zip(worlds, weights):
            st = wst.copy()
            K.apply_move(st, rv, ws.ev, c)
            plain += w * _value(ws, rv, seat, st)
            while st[L.S_CUR] >= 0 and st[L.S_CUR] != seat:
                vals = _children(ws, rv, seat, st, buf)
                pick = (int(np.argmax(vals)) if K.side_of(rv, st[L.S_CUR]) == own
                        else int(np.argmin(vals)))
                K.apply_move(st, rv, ws.ev, buf[pick])
            if st[L.S_CUR] < 0:
                key, vals = "over", [float(hand_value(st, rv, seat, p0))]
            else:
                key = _view(st, rv, seat)
                vals = _children(ws, rv, seat, st, buf)
            g = groups.setdefault(key, np.zeros(len(vals)))
            assert len(g) == len(vals)    # one view, the same moves
            g += w * np.array(vals)
        fused.append(sum(g.max() for g in groups.values()))
        pimc.append(plain)
    return np.array(fused), np.array(pimc)


def _kernel(worlds, weights, codes, rv, seat, ws):
    nc = len(codes)
    tables = new_fusion(nc, len(worlds))
    st2 = np.zeros(L.S_SIZE, np.int64)
    for wst, w in zip(worlds, weights):
        ok = fused_world(wst, rv, codes, seat, ws, st2, tables)
        assert ok
        file_world(w, tables)
    acc = np.zeros(nc)
    fused_values_into(acc, tables)
    return acc


@pytest.mark.parametrize("preset,most,seed", [("block", 10, 1), ("kozel", 12, 2)])
def test_fused_values_match_the_python_reference(preset, most, seed):
    rules = get_rules(preset)
    rv = rules.vector()
    below = 0
    for obs, _ in _positions(preset, 5, most, seed):
        worlds, weights = Belief(obs).sample(24, seed=seed)
        codes = np.ascontiguousarray(obs.legal_codes(), np.int64)
        ws = new_scratch(len(codes), 10 ** 7)
        seat = obs.seat
        for s in range(4):
            ws.p0[s] = worlds[0][L.S_POINTS + s]
        want, pimc = _reference(worlds, weights, codes, rv, seat, ws)
        got = _kernel(worlds, weights, codes, rv, seat, ws)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
        assert np.all(got <= pimc + 1e-9)       # one move per view is never worth more
        below += int(np.any(got < pimc - 1e-9))
        # a single world is its own information set: PIMC's value exactly
        one = _kernel(worlds[:1], weights[:1], codes, rv, seat, ws)
        _, pimc1 = _reference(worlds[:1], weights[:1], codes, rv, seat, ws)
        np.testing.assert_allclose(one, pimc1, rtol=1e-12)
    assert below > 0       # the positions do show strategy fusion


def test_insane_fusion_values_are_never_above_pimc_on_the_same_worlds():
    # where every world is solved neither search draws random numbers beyond
    # the sampler's, so both score the same worlds
    for obs, _ in _positions("block", 6, 10, 3):
        plain = make_bot("insane:worlds=60", seed=4).analyze(obs)
        fused = make_bot("insane:worlds=60,fusion=true", seed=4).analyze(obs)
        assert plain.worlds == fused.worlds == 60
        assert np.all(fused.values <= plain.values + 1e-9)


def test_fusion_is_idle_without_the_exact_solver():
    rules = get_rules("express")    # no exact endgame by default (Kozel's defaults have one)
    b = make_bot("insane:fusion=true")
    b.use_rules(rules)
    assert b.exact == 0 and "fusion" in b.idle_params(rules)
    b = make_bot("insane:fusion=true,exact=10")
    b.use_rules(rules)
    assert "fusion" not in b.idle_params(rules)
    assert MAX_FUSED_MOVES >= 14      # every Block decision of a 7-tile hand fits
