"""Observation: what a seat may know, and nothing else.

- It never depends on hidden tiles: two states that differ only in other
  hands or the boneyard order give equal observations.
- Its deductions are sound: a seat never holds a pip it is "known" to lack.
- Every seat's hand size is right in every preset (one engine leaves two of
  four seats at zero).
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from dominoai import Match, Observation, TileSet, observe, preset_names
from dominoai.engine import layout as L
from dominoai.observation import O_SIZE
from dominoai.tiles import PIP_MASK

PRESETS = preset_names()


def _random_hand(preset, seed, steps, **over):
    rng = np.random.default_rng(seed)
    m = Match(preset, seed=seed, **over)
    h = m.new_hand()
    for _ in range(steps):
        if h.over:
            break
        moves = h.legal_moves()
        h.play(moves[int(rng.integers(len(moves)))])
    return m, h, rng


def _pip_mask(bits):
    m = 0
    for p in range(7):
        if bits >> p & 1:
            m |= int(PIP_MASK[p])
    return m


@pytest.mark.parametrize("preset", PRESETS)
@settings(max_examples=60, deadline=None)
@given(seed=hs.integers(0, 2**31 - 1), steps=hs.integers(0, 30))
def test_hidden_tiles_do_not_change_the_observation(preset, seed, steps):
    m, h, rng = _random_hand(preset, seed, steps)
    n = m.rules.players
    for seat in range(n):
        before = observe(h, seat)
        st = m._st
        saved = st.copy()
        # shuffle the undrawn boneyard, and swap tiles between two other hands
        pos, end = int(st[L.S_BONE_POS]), int(st[L.S_BONE_END])
        rest = st[L.S_BONE + pos:L.S_BONE + end].copy()
        rng.shuffle(rest)
        st[L.S_BONE + pos:L.S_BONE + end] = rest
        others = [i for i in range(n) if i != seat and st[L.S_HAND + i]]
        if len(others) >= 2:
            a, b = others[:2]
            ta = [t.id for t in TileSet(int(st[L.S_HAND + a]))]
            tb = [t.id for t in TileSet(int(st[L.S_HAND + b]))]
            k = min(len(ta), len(tb))
            pool = ta[:k] + tb[:k]
            rng.shuffle(pool)
            na = sum(1 << t for t in pool[:k] + ta[k:])
            nb = sum(1 << t for t in pool[k:] + tb[k:])
            st[L.S_HAND + a], st[L.S_HAND + b] = na, nb
        elif len(others) == 1 and end > pos:
            # swap one hidden tile between the other hand and the boneyard
            a = others[0]
            ta = [t.id for t in TileSet(int(st[L.S_HAND + a]))]
            x, y = ta[0], int(st[L.S_BONE + pos])
            st[L.S_HAND + a] = (int(st[L.S_HAND + a]) & ~(1 << x)) | (1 << y)
            st[L.S_BONE + pos] = x
        after = observe(h, seat)
        m._st[:] = saved
        assert after == before, f"{preset} seed {seed}: the observation of seat {seat} saw hidden tiles"


def test_the_observers_own_tiles_do_change_it():
    """The equality above is not vacuous."""
    m, h, _ = _random_hand("draw", 3, 2)
    seat = h.seat
    before = h.observe(seat)
    other = (seat + 1) % 2
    saved = m._st.copy()
    a, b = int(m._st[L.S_HAND + seat]), int(m._st[L.S_HAND + other])
    m._st[L.S_HAND + seat], m._st[L.S_HAND + other] = b, a
    assert h.observe(seat) != before
    m._st[:] = saved


@pytest.mark.parametrize("preset", PRESETS)
def test_deductions_are_sound_and_sizes_right(preset):
    """Over random play: no seat holds a pip it is known to lack; every seat's
    size is its real hand size; unseen = all tiles minus own hand minus line."""
    voids_seen = 0
    for seed in range(150):
        rng = np.random.default_rng(seed)
        m = Match(preset, seed=seed)
        while not m.finished:
            h = m.new_hand()
            while True:
                for seat in range(m.rules.players):
                    o = h.observe(seat)
                    real = [len(h.tiles(i)) for i in range(m.rules.players)]
                    assert list(o.hand_sizes) == real
                    assert o.hand == h.tiles(seat)
                    assert o.unseen.mask == ((1 << 28) - 1) & ~h.tiles(seat).mask & ~h.line.mask
                    for i in range(m.rules.players):
                        v = o.void_mask(i)
                        voids_seen += v != 0
                        held = h.tiles(i).mask
                        if i == h.seat and h.must_play is not None:
                            held &= ~(1 << h.must_play.id)  # drawn, fits, played at once
                        assert held & _pip_mask(v) == 0, (preset, seed, i, o.void(i))
                if h.over:
                    break
                moves = h.legal_moves()
                h.play(moves[int(rng.integers(len(moves)))])
            if len(m.hands) > 3:
                break
    if m.rules.drawing or preset in ("block", "express", "kozel", "openspiel_block", "openspiel_team"):
        assert voids_seen > 0


def test_voids_are_time_aware():
    """Draw: a seat that drew on 3/5 lacks 3 and 5; after a later draw on 6
    that kept new tiles, only 6 is certain (new tiles may hold a 3 or a 5)."""
    # seat 0 leads 5:3, seat 1 holds nothing with 5 or 3 and draws.
    deal = [["5:3", "6:6", "6:5", "4:4", "2:2", "1:1", "0:0"],
            ["6:4", "6:2", "6:1", "6:0", "4:2", "4:1", "2:1"]]
    # boneyard in draw order: 4:0 (no 3/5: kept), 2:0 (kept), 5:5 (fits 5: played)
    bone = ["4:0", "2:0", "5:5", "3:3", "5:4", "3:2", "3:1", "5:1", "3:0", "5:0", "1:0", "4:3", "6:3", "5:2"]
    m = Match("draw")
    h = m.new_hand(deal, bone, leader=0)
    h.play("5:3")                # ends 5 | 3; seat 1 draws 4:0, 2:0, 5:5
    assert h.seat == 1 and h.must_play.id == 20  # 5:5
    o = h.observe(0)
    assert o.void(1) == (3, 5)
    assert [(e.kind, e.seat, e.count, e.on) for e in o.events][-1] == ("draw", 1, 3, (3, 5))
    h.play("5:5 left")           # ends 5(5:5) | 3
    assert h.observe(0).void(1) == (3, 5)
    # seat 0 plays 3:3? it has none; it holds 6:6 6:5 4:4 2:2 1:1 0:0: 6:5 fits the 5
    h.play("6:5 left")           # ends 6 | 3
    assert h.seat == 1
    h.play("6:4 left")           # seat 1 plays; ends 4 | 3
    o = h.observe(1)
    # seat 0 holds 6:6 4:4 2:2 1:1 0:0: 4:4 fits
    assert o.void(0) == ()
    h.play("4:4 left")           # ends 4(4:4) | 3
    h.play("4:2 left")           # ends 2 | 3
    # seat 0: 6:6 2:2 1:1 0:0 -> 2:2
    h.play("2:2 left")           # ends 2(2:2) | 3
    # seat 1: 6:2 6:1 6:0 4:1 2:1 4:0 2:0 -> plays 6:2
    h.play("6:2 left")           # ends 6 | 3
    # seat 0: 6:6 1:1 0:0 -> 6:6
    h.play("6:6 left")           # ends 6(6:6) | 3
    # seat 1: 6:1 6:0 4:1 2:1 4:0 2:0 -> 6:1
    h.play("6:1 left")           # ends 1 | 3
    # seat 0: 1:1 0:0 -> 1:1
    h.play("1:1 left")           # ends 1(1:1) | 3; seat 1 holds 6:0 4:1 2:1 4:0 2:0
    h.play("4:1 left")           # ends 4 | 3; seat 0 holds 0:0: draws 3:3 (fits 3) at once
    o = h.observe(1)
    assert o.void(0) == (3, 4)   # a one-tile draw keeps nothing new: void grows
    h.play("3:3 right")          # ends 4 | 3(3:3)
    # seat 1: 6:0 2:1 4:0 2:0 -> 4:0
    h.play("4:0 left")           # ends 0 | 3; seat 0 holds 0:0 -> plays it
    h.play("0:0 left")           # seat 0 went out
    assert h.result.end == "domino" and h.result.winner == 0


def test_compact_form_and_text():
    m, h, _ = _random_hand("all_fives", 11, 5)
    o = h.observe()
    assert isinstance(o, Observation)
    assert o.array.shape == (O_SIZE,) and o.array.dtype == np.int64
    assert not o.array.flags.writeable
    assert str(o.hand) in str(o)
    assert [str(x) for x in o.legal_moves()] == [str(x) for x in h.legal_moves()]
    other = h.observe((h.seat + 1) % 3)
    assert other.legal_moves() == [] and other.must_play is None
    with pytest.raises(ValueError):
        observe(h, 3)


def test_observation_does_not_import_the_facade():
    """No import loop: observation.py imports nothing from game.py at run time
    (only under ``TYPE_CHECKING``, for the annotation), and game.py imports it."""
    import ast
    from pathlib import Path

    import dominoai.game
    import dominoai.observation

    def runtime_imports(path):
        tree = ast.parse(Path(path).read_text())
        out = set()
        for node in tree.body:   # module level; an ``if TYPE_CHECKING:`` block is skipped
            if isinstance(node, ast.ImportFrom):
                out.add(node.module)
        return out

    assert "game" not in runtime_imports(dominoai.observation.__file__)
    assert "moves" in runtime_imports(dominoai.observation.__file__)
    assert "observation" in runtime_imports(dominoai.game.__file__)


def test_observe_and_hand_observe_agree():
    m, h, _ = _random_hand("draw", 5, 6)
    for seat in range(2):
        assert observe(h, seat) == h.observe(seat)
        assert observe(h, seat).events == h.events
    assert h.observe() == observe(h, h.seat)
    with pytest.raises(ValueError, match="seat must be"):
        observe(h, None)
    with pytest.raises(ValueError, match="seat must be"):
        h.observe(True)
