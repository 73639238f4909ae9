"""The exact solver: alpha-beta against plain minimax, and the plain-line
solver against the general one (exact endgames within 2 ms per
decision).

``solve_into`` plays through the engine's ``apply_move`` on whole states;
``solve_line_into`` keeps only the hands, the two ends and the seat to move.
Plain minimax here is written on the engine's public kernels, without
pruning, as the reference for both.
"""

from __future__ import annotations

import numpy as np
import pytest

from dominoai import get_rules
from dominoai.bots.pimc import hand_value, new_scratch
from dominoai.bots.pimc.solver import plain_line, solve_into, solve_line_into
from dominoai.bots.pimc.value import tiles_left
from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.tournament import decision_positions

LINES = [("block", {}), ("block", {"players": 3}), ("block", {"players": 4}),
         ("block", {"players": 4, "partnerships": True}), ("kozel", {})]


def _positions(rules, n, max_left, seed):
    """``(state, legal codes)`` at decisions with two or more moves and at
    most ``max_left`` tiles left to play, from hands of ``hard`` bots."""
    found = decision_positions(rules, n, "hard", seed,
                               keep=lambda obs, st: tiles_left(st, obs.rules_vector) <= max_left)
    return [(st, np.asarray(obs.legal_codes(), np.int64)) for obs, st in found[:n]]


def _minimax(st, rv, seat, p0, ev):
    """Plain minimax (no pruning) through the engine: the seat's side
    maximises ``hand_value``, every other side minimises it."""
    if st[L.S_CUR] < 0:
        return int(hand_value(st, rv, seat, p0))
    buf = np.zeros(L.MAX_MOVES, np.int64)
    n = K.legal_moves(st, rv, buf)
    mx = K.side_of(rv, st[L.S_CUR]) == K.side_of(rv, seat)
    vals = []
    for c in buf[:n]:
        child = st.copy()
        K.apply_move(child, rv, ev, c)
        vals.append(_minimax(child, rv, seat, p0, ev))
    return max(vals) if mx else min(vals)


def _solve(fn, st, code, rv, ws, budget):
    seat = st[L.S_CUR]
    p0 = st[L.S_POINTS:L.S_POINTS + 4].copy()
    ws.stack[0][:] = st
    K.apply_move(ws.stack[0], rv, ws.ev, code)
    ws.nodes[0], ws.nodes[1], ws.nodes[2] = 0, budget, 0
    if fn is solve_into:
        v = solve_into(ws.stack, ws.bufs, ws.meta, rv, ws.ev, seat, p0, ws.nodes)
    else:
        v = solve_line_into(ws.stack, ws.bufs, ws.meta, rv, seat, p0, ws.nodes)
    return int(v), int(ws.nodes[0]), int(ws.nodes[2])


@pytest.mark.parametrize("preset,kw", LINES + [("draw", {}), ("all_fives", {})])
def test_alpha_beta_equals_plain_minimax(preset, kw):
    rules = get_rules(preset, **kw)
    rv = rules.vector()
    ws = new_scratch(16, 10**9)
    solvers = [solve_into] + ([solve_line_into] if plain_line(rv) else [])
    checked = set()
    for st, codes in _positions(rules, 12, 7, seed=5):
        p0 = st[L.S_POINTS:L.S_POINTS + 4].copy()
        for c in codes:
            child = st.copy()
            K.apply_move(child, rv, ws.ev, c)
            want = _minimax(child, rv, st[L.S_CUR], p0, ws.ev)
            for fn in solvers:
                v, _, gave_up = _solve(fn, st, c, rv, ws, 10**9)
                assert not gave_up and v == want, (preset, fn.__name__)
            checked.add(want)
    assert len(checked) > 3     # positions of different values


@pytest.mark.parametrize("preset,kw", LINES)
def test_line_solver_visits_the_same_nodes_as_the_general_one(preset, kw):
    """Same value and node count on every root move, and under a small node
    budget the same give-up: the search's results do not depend on which of
    the two solved."""
    rules = get_rules(preset, **kw)
    rv = rules.vector()
    assert plain_line(rv)
    ws = new_scratch(16, 10**9)
    gave_up = 0
    for st, codes in _positions(rules, 25, 13, seed=6):
        for c in codes:
            a = _solve(solve_into, st, c, rv, ws, 10**9)
            b = _solve(solve_line_into, st, c, rv, ws, 10**9)
            assert a == b
            a = _solve(solve_into, st, c, rv, ws, 40)
            b = _solve(solve_line_into, st, c, rv, ws, 40)
            assert a[2] == b[2] and (a[2] or a == b)
            gave_up += a[2]
    assert gave_up > 0


def test_plain_line_is_the_presets_without_drawing_scoring_ends_spinner_or_replacements():
    assert plain_line(get_rules("block").vector()) and plain_line(get_rules("kozel").vector())
    for preset in ("draw", "all_fives", "fives", "dominoball"):
        assert not plain_line(get_rules(preset).vector()), preset
