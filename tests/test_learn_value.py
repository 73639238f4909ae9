"""The value network over whole worlds and the learned parts of insane: the
world vector on a hand-built state, the value model's forward pass against
JAX, its file, the value leaf and the neural rollouts inside the search."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai import Match
from dominoai.bots import make_bot
from dominoai.engine import layout as L
from dominoai.learn.imitation import split_hands
from dominoai.learn.value import ValueModel, load_value_model, new_value_model, positions, value_targets
from dominoai.moves import Move
from dominoai.nets.model import ModelError, new_model
from dominoai.nets.world_encode import (W_BONE, W_CUR, W_ENDS, W_HANDS, W_LINE, W_MUST, W_RAW,
                                        W_SPIN, WORLD_SIZE, encode_world)
from dominoai.tiles import Tile

SEAT0 = ["6:6", "6:5", "5:5", "4:0", "3:1", "2:2", "1:0"]
SEAT1 = ["6:4", "6:3", "5:4", "4:4", "3:3", "2:0", "0:0"]


def _ids(texts):
    return [Tile.parse(t).id for t in texts]


def _draw_after_lead():
    """Draw, seat 0 led 6:6; seat 1 to move. Returns the match and its hand."""
    m = Match("draw", seed=0)
    bone = [t for t in range(28) if t not in _ids(SEAT0 + SEAT1)]
    h = m.new_hand([_ids(SEAT0), _ids(SEAT1)], bone, 0)
    h.play(Move(Tile.parse("6:6")))
    return m, h, bone


def test_world_vector_of_a_hand_built_state():
    m, h, bone = _draw_after_lead()
    rv = m.rules.vector()
    x = encode_world(m.state_copy(), rv, 0)
    assert x.shape == (WORLD_SIZE,) == (253,) and x.dtype == np.float32
    want = np.zeros(WORLD_SIZE, np.float32)
    for t in _ids(SEAT0[1:]):                 # seat 0 (relative 0) without 6:6
        want[W_HANDS + t] = 1
    for t in _ids(SEAT1):                     # seat 1 (relative 1)
        want[W_HANDS + 28 + t] = 1
    want[W_LINE + 27] = 1                     # 6:6 on the line
    for t in bone:                            # 14 tiles not drawn yet
        want[W_BONE + t] = 1
    want[W_ENDS + 6] = want[W_ENDS + 7 + 6] = 1   # both ends show 6
    want[196:204] = x[196:204]                # end kinds: checked below
    want[W_CUR + 1] = 1                       # seat 1 to move: relative seat 1
    want[W_SPIN + 0] = 1                      # no spinner
    want[W_RAW:W_RAW + 5] = [6, 7, 0, 0, 14]  # hand sizes, drawable tiles
    want[W_RAW + 9] = 100                     # Draw's target
    np.testing.assert_array_equal(x, want)
    assert x[196:204].sum() <= 2              # at most the double's two ends
    # seen from seat 1: the hands swap places and seat 1 is to move (relative 0)
    y = encode_world(m.state_copy(), rv, 1)
    np.testing.assert_array_equal(y[W_HANDS:W_HANDS + 28], x[W_HANDS + 28:W_HANDS + 56])
    np.testing.assert_array_equal(y[W_HANDS + 28:W_HANDS + 56], x[W_HANDS:W_HANDS + 28])
    assert y[W_CUR] == 1 and y[W_CUR + 1] == 0
    assert list(y[W_RAW:W_RAW + 2]) == [7, 6]
    assert y[W_MUST:W_MUST + 28].sum() == 0
    with pytest.raises(ValueError, match="seat must be 0..1"):
        encode_world(m.state_copy(), rv, 2)


def _constant_value_model(preset, c, path):
    """A value model whose output is ``c`` for every world (zero weights)."""
    m = new_value_model(preset, hidden=(4,))
    params = [(np.zeros_like(w), np.zeros_like(b)) for w, b in m.params]
    params[-1] = (params[-1][0], np.array([c], np.float32))
    ValueModel.from_params(params, "value", preset).save(path)
    return path


def test_value_forward_equals_jax_and_reloads(tmp_path):
    jnp = pytest.importorskip("jax.numpy", reason="the JAX network needs the [learn] extra (jax)")
    from dominoai.learn import jaxnet
    rng = np.random.default_rng(3)
    m0 = new_value_model("kozel", hidden=(16, 8), seed=3)
    m = ValueModel.from_params([(rng.normal(0, 0.3, w.shape), rng.normal(0, 0.3, b.shape))
                                for w, b in m0.params], "value", "kozel")
    x = (rng.random((30, WORLD_SIZE)) < 0.2).astype(np.float32)
    x[:, W_RAW:] = rng.integers(0, 30, (30, WORLD_SIZE - W_RAW))
    want = np.asarray(jaxnet.apply(jaxnet.params_of(m), jnp.asarray(m.scale), jnp.asarray(x)))
    np.testing.assert_allclose(m.forward(x), want, rtol=1e-4, atol=1e-4)
    m.save(tmp_path / "v.npz")
    back = load_value_model(tmp_path / "v.npz", "kozel")
    assert back.sha256 == m.sha256 and back.name == "v"
    np.testing.assert_array_equal(back.forward(x), m.forward(x))
    with pytest.raises(ModelError, match="trained for kozel, not for draw"):
        load_value_model(tmp_path / "v.npz", "draw")
    new_model("policy", "kozel", hidden=(8,)).save(tmp_path / "p.npz")
    with pytest.raises(ModelError, match="not a value model over the world vector"):
        load_value_model(tmp_path / "p.npz")
    with pytest.raises(ModelError, match="no model file"):
        load_value_model(tmp_path / "none.npz")


def _all_fives_midhand():
    """All Fives after a few plays by ``medium``, the seat to move holding
    two or more moves, none of which ends the hand."""
    bot = make_bot("medium")
    for seed in range(40):
        m = Match("all_fives", seed=seed)
        h = m.new_hand(leader=0)
        for _ in range(4):
            if h.over:
                break
            h.play(bot.act(h.observe(h.seat)))
        if h.over:
            continue
        codes = h.observe(h.seat).legal_codes()
        if len(codes) >= 2 and bin(int(m.state_copy()[L.S_HAND + h.seat])).count("1") > 1:
            return m, h
    raise AssertionError("no position found")


def test_value_leaf_is_points_so_far_plus_the_network(tmp_path):
    """At value_plies=1 a move is worth what it scores at once plus the
    network's output (a constant here), in every world."""
    from dominoai.engine import kernels as K
    m, h = _all_fives_midhand()
    seat = h.seat
    rv = m.rules.vector()
    st = m.state_copy()
    c = 2.5
    path = _constant_value_model("all_fives", c, tmp_path / "c.npz")
    bot = make_bot(f"insane:worlds=5,value_plies=1,value_model={path},seed=1")
    res = bot.analyze(h.observe(seat))
    side = m.rules.side_of(seat)
    ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
    for code, v in zip(res.moves, res.values):
        s2 = st.copy()
        s2[L.S_LOG] = 0
        before = s2[L.S_POINTS:L.S_POINTS + 2].copy()
        K.apply_move(s2, rv, ev, int(code))
        got = s2[L.S_POINTS:L.S_POINTS + 2] - before
        assert s2[L.S_CUR] >= 0
        assert v == pytest.approx(got[side] - got[1 - side] + c, abs=1e-6)


def test_insane_with_the_learned_parts_plays_legal_moves_the_same_way(tmp_path):
    vpath = tmp_path / "v.npz"
    rng = np.random.default_rng(5)
    m0 = new_value_model("draw", hidden=(8,), seed=5)
    ValueModel.from_params([(rng.normal(0, 0.5, w.shape), rng.normal(0, 0.5, b.shape))
                            for w, b in m0.params], "value", "draw").save(vpath)
    ppath = tmp_path / "p.npz"
    new_model("policy", "draw", hidden=(8,), seed=6).save(ppath)
    specs = [f"insane:worlds=12,value_plies=3,value_model={vpath},seed=4",
             f"insane:worlds=12,rollout_policy=neural,policy_model={ppath},seed=4",
             f"insane:worlds=12,rollout_policy=neural,policy_model={ppath},value_plies=2,"
             f"value_model={vpath},seed=4"]
    for spec in specs:
        a, b = make_bot(spec), make_bot(spec)
        m = Match("draw", seed=11)
        h = m.new_hand(leader=0)
        moves = 0
        while not h.over and moves < 6:
            obs = h.observe(h.seat)
            mv = a.act(obs)
            assert mv in obs.legal_moves()
            assert b.act(obs) == mv
            h.play(mv)
            moves += 1
    # a policy file where a value model is wanted is refused in one line
    bad = make_bot(f"insane:worlds=5,value_plies=2,value_model={ppath}")
    m = Match("draw", seed=1)
    h = m.new_hand(leader=0)
    with pytest.raises(ModelError, match="not a value model"):
        bad.analyze(h.observe(h.seat))


def test_idle_learned_parameters():
    from dominoai.rules import get_rules
    idle = make_bot("insane").idle_params(get_rules("draw"))
    assert {"value_model", "policy_model"} <= idle
    idle = make_bot("insane:value_plies=2,rollout_policy=neural").idle_params(get_rules("draw"))
    assert not {"value_model", "policy_model"} & idle


def test_value_targets_and_positions():
    """The worlds after each play of a recorded hand, labelled: near the
    end of a Block hand the exact value; the split keeps hands whole."""
    from dominoai.tournament.run import play_records
    recs = play_records("block", ["medium"], hands=1, seed=3)
    st, seats, hands = positions(recs)
    assert st.shape[1] == L.S_SIZE and len(st) == len(seats) == len(hands) > 4
    assert set(hands) == {0, 1}          # one deal in two seatings
    assert all(s[L.S_CUR] >= 0 for s in st)
    y, solved = value_targets(st, seats, "block", exact=4, rollouts=2, seed=1)
    assert y.dtype == np.float32 and solved.dtype == np.bool_
    # the last world of a hand with at most 4 tiles left has its exact value
    last = np.flatnonzero(np.r_[hands[1:] != hands[:-1], True])
    assert solved[last].all()
    # Block: the winner takes the others' pips; a value is a whole number of
    # pips where solved, within what is left in the hands
    left = [sum(bin(int(s[L.S_HAND + i])).count("1") for i in range(2)) for s in st]
    assert all(float(v).is_integer() for v in y[solved])
    assert all(abs(v) <= 12 * n for v, n in zip(y, left))
    tr, te = split_hands(hands, 0.5, seed=0)
    assert len(set(hands[tr]) & set(hands[te])) == 0 and len(tr) + len(te) == len(hands)


def test_training_lowers_the_error_and_resumes(tmp_path):
    pytest.importorskip("optax", reason="training needs the [learn] extra (jax, optax)")
    from dominoai.learn.value import encode_worlds, train_value, write_log
    from dominoai.tournament.run import play_records
    st, seats, hands = positions(play_records("draw", ["medium"], hands=3, seed=5))
    y, solved = value_targets(st, seats, "draw", exact=6, rollouts=2, seed=2)
    data = {"world": encode_worlds(st, seats, "draw"), "target": y, "solved": solved,
            "seat": seats, "hand": hands}
    kw = dict(hidden=(16,), batch=8, learning_rate=1e-2, held_out=0.2, seed=1)
    full = train_value(data, "draw", epochs=6, **kw)
    # 130 worlds whose targets vary by about 270 points squared
    assert full.log[-1]["train_mse"] < 0.85 * full.log[0]["train_mse"]
    assert full.model.kind == "value" and full.model.preset == "draw"
    part = train_value(data, "draw", epochs=3, checkpoint_dir=tmp_path, **kw)
    assert len(part.log) == 3
    rest = train_value(data, "draw", epochs=6, checkpoint_dir=tmp_path, resume=True, **kw)
    assert [e["epoch"] for e in rest.log] == [1, 2, 3, 4, 5, 6]
    np.testing.assert_allclose([e["train_mse"] for e in rest.log],
                               [e["train_mse"] for e in full.log], rtol=1e-4)
    pq, png = write_log(rest.log, tmp_path)
    assert pq.exists() and png.stat().st_size > 0


def test_provenance_names_the_learned_models(tmp_path):
    from dominoai.learn.value import load_value_model
    from dominoai.rules import get_rules
    path = _constant_value_model("kozel", 1.0, tmp_path / "k.npz")
    assert not hasattr(make_bot("insane"), "model_ident")
    bot = make_bot(f"insane:value_plies=2,value_model={path}")
    bot.use_rules(get_rules("kozel"))
    assert bot.model_ident == load_value_model(path).ident
    assert bot.model_ident.startswith("k@") and len(bot.model_ident) == 14
