"""The action-feature block of a policy: the features of hand-built positions
(All Fives' points by hand), the observation vector decoded back to the
array, the numba forward pass with the block equal to JAX's and to a numpy
reference, the format (hash, refusal of another block) and the ``neural``
bot playing a block model; the shipped Block policy loads unchanged."""

from __future__ import annotations

import numpy as np
import pytest

# the compiled kernels it needs (conftest.WARM_GROUPS); its own kernels compile on one worker
pytestmark = [pytest.mark.kernels("search"), pytest.mark.xdist_group("learn_features")]

from dominoai import Match
from dominoai.bots import make_bot
from dominoai.bots.hard import DEFAULT_WEIGHTS
from dominoai.engine.encode import N_ACTIONS, encode
from dominoai.engine.observe import O_SIZE
from dominoai.learn.features import dataset_features, decode_into
from dominoai.moves import Move
from dominoai.nets.features import ACTION_FEATURES, N_ACTION_FEATURES, action_features
from dominoai.nets.model import Model, ModelError, load_model, new_model
from dominoai.tiles import Tile

F = {name: i for i, name in enumerate(ACTION_FEATURES)}


def _ids(texts):
    return [Tile.parse(t).id for t in texts]


def _all_fives_after_5_5():
    """All Fives, two players: seat 1 led 5:5 (the spinner, a lone lead
    counting 10); seat 0 to move."""
    seat0 = ["5:0", "5:4", "6:1", "3:2", "2:2", "6:6", "0:0"]
    seat1 = ["5:5", "6:4", "6:3", "4:4", "3:3", "2:0", "1:1"]
    bone = [t for t in range(28) if t not in _ids(seat0 + seat1)]
    h = Match("all_fives", seed=0).new_hand([_ids(seat0), _ids(seat1)], bone, 1)
    h.play(Move(Tile.parse("5:5")))
    return h


def test_all_fives_features_by_hand():
    obs = _all_fives_after_5_5().observe(0)
    codes, fe = action_features(obs)
    assert fe.shape == (len(codes), N_ACTION_FEATURES) and fe.dtype == np.float32
    by_tile = {str(Tile.parse(int(c) >> 2)): fe[i] for i, c in enumerate(codes)}
    assert sorted(by_tile) == ["5:0", "5:4"]      # the two fives; both long sides are one move
    f50, f54 = by_tile["5:0"], by_tile["5:4"]
    # 5:0 on a long side: the spinner still counts both halves (10) + 0 = 10, a multiple of 5
    assert f50[F["points"]] == 10
    # 5:4: 10 + 4 = 14 scores nothing
    assert f54[F["points"]] == 0
    assert (f50[F["heavy"]], f54[F["heavy"]]) == (5, 9)          # pips shed
    assert (f50[F["double"]], f54[F["double"]]) == (0, 0)
    assert (f50[F["follow"]], f54[F["follow"]]) == (2, 1)        # 5:4 fits the 5, 0:0 the 0 / 5:0 the 5
    assert (f50[F["spread"]], f54[F["spread"]]) == (7, 6)        # {6,5,4,3,2,1,0} / {6,5,3,2,1,0}
    # next, after 5:0: 0:0 on the 0 end counts 0 + the spinner's 10 = 10; after 5:4 the only fit
    # is 5:0 on the spinner's other long side, which closes its count: 4 + 0 = 4 scores nothing
    assert (f50[F["own_next"]], f54[F["own_next"]]) == (10, 0)
    assert f50[F["reply"]] <= 0 and f54[F["reply"]] <= 0
    assert f50[F["partner"]] == 0                                # no partners in two-player All Fives


def test_draw_scores_no_points_and_a_double_is_marked():
    h = Match("draw", seed=3).new_hand()
    for _ in range(4):
        h.play(h.legal_moves()[0])
    obs = h.observe()
    codes, fe = action_features(obs)
    assert np.all(fe[:, F["points"]] == 0) and np.all(fe[:, F["reply"]] == 0) and np.all(fe[:, F["own_next"]] == 0)
    dbl = np.array([Tile.parse(int(c) >> 2).is_double for c in codes], float)
    np.testing.assert_array_equal(fe[:, F["double"]], dbl)


def _positions(preset, deals=3, seed=40):
    bot = make_bot("medium")
    out = []
    for d in range(deals):
        h = Match(preset, seed=seed + d).new_hand()
        while not h.over:
            obs = h.observe()
            out.append(obs)
            h.play(bot.act(obs))
    return out


@pytest.mark.parametrize("preset", ["all_fives", "kozel", "draw"])
def test_the_vector_decodes_to_the_array_and_the_dataset_features_match(preset):
    obs = _positions(preset, deals=2)
    a = np.empty(O_SIZE, np.int64)
    for o in obs:
        decode_into(encode(o.array), a)
        np.testing.assert_array_equal(a, o.array)
    x = np.stack([encode(o.array) for o in obs])
    mask = np.zeros((len(obs), N_ACTIONS), bool)
    for i, o in enumerate(obs):
        mask[i, o.legal_codes()] = True
    ids, fe = dataset_features(x, mask, preset)
    for i, o in enumerate(obs):
        codes, want = action_features(o)
        order = np.argsort(codes)
        n = len(codes)
        np.testing.assert_array_equal(ids[i, :n], codes[order])
        assert np.all(ids[i, n:] == -1) and np.all(fe[i, n:] == 0)
        np.testing.assert_array_equal(fe[i, :n], want[order])


def _block_model(preset="all_fives", hidden=(24, 16), seed=5, scale_w=0.3):
    rng = np.random.default_rng(seed)
    base = new_model("policy", preset, hidden=hidden, seed=seed)
    params = [(rng.normal(0, scale_w, w.shape).astype(np.float32), rng.normal(0, scale_w, b.shape).astype(np.float32))
              for w, b in base.params]
    fw = rng.normal(0, 0.2, (hidden[-1], N_ACTION_FEATURES)).astype(np.float32)
    fb = rng.normal(0, 0.5, N_ACTION_FEATURES).astype(np.float32)
    return Model.from_params(params, "policy", preset, action=(fw, fb))


def _numpy_logits(model, x, ids, fe):
    """The network with the block in numpy, float64."""
    h = x.astype(np.float64) * model.scale
    for w, b in model.params[:-1]:
        h = np.maximum(h @ w.astype(np.float64) + b, 0.0)
    w, b = model.params[-1]
    z = h @ w.astype(np.float64) + b
    fw, fb = model.action
    wv = h @ fw.astype(np.float64) + fb                       # (n, F)
    for r in range(len(x)):
        for k, c in enumerate(ids[r]):
            if c >= 0:
                z[r, c] += fe[r, k].astype(np.float64) @ wv[r]
    return z


def _batch(preset="all_fives"):
    obs = _positions(preset)
    x = np.stack([encode(o.array) for o in obs])
    mask = np.zeros((len(obs), N_ACTIONS), bool)
    for i, o in enumerate(obs):
        mask[i, o.legal_codes()] = True
    ids, fe = dataset_features(x, mask, preset)
    return obs, x, ids, fe


def test_forward_with_the_block_equals_numpy_and_jax():
    model = _block_model()
    obs, x, ids, fe = _batch()
    got = model.forward(x, ids, fe)
    want = _numpy_logits(model, x, ids, fe)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    with pytest.raises(ValueError, match="give ids and feats"):
        model.forward(x)
    # a forward pass that does not add the block (insane's neural rollouts) refuses the model
    with pytest.raises(ModelError, match="adds action features to its logits"):
        model.packed()
    jnp = pytest.importorskip("jax.numpy", reason="the JAX network needs the [learn] extra (jax)")
    from dominoai.learn import jaxnet
    z = jaxnet.apply_features(jaxnet.params_of(model), jaxnet.action_params_of(model), jnp.asarray(model.scale),
                              jnp.asarray(x), jnp.asarray(ids), jnp.asarray(fe))
    np.testing.assert_allclose(np.asarray(z), got, rtol=1e-4, atol=1e-3)


def test_the_block_is_saved_hashed_and_checked(tmp_path):
    model = _block_model()
    path = model.save(tmp_path / "af.npz")
    back = load_model(path, preset="all_fives", kind="policy")
    assert back.has_action_features and back.header["format_version"] == 2
    assert back.header["action_features"] == list(ACTION_FEATURES)
    assert back.sha256 == model.sha256
    np.testing.assert_array_equal(back.action[0], model.action[0])
    # the block's weights are part of the hash
    other = Model.from_params(model.params, "policy", "all_fives", action=(model.action[0], model.action[1] + 1))
    assert other.sha256 != model.sha256
    plain = Model.from_params(model.params, "policy", "all_fives")
    assert plain.sha256 != model.sha256 and plain.header["format_version"] == 1
    # another block version is refused with one line
    import json
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    head = json.loads(str(arrays["header"][()]))
    head["action_features_version"] = 99
    arrays["header"] = np.array(json.dumps(head))
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(ModelError, match="of version 99") as e:
        load_model(bad)
    assert "\n" not in str(e.value)


def test_the_shipped_block_policy_loads_unchanged():
    m = load_model("block-policy")
    assert not m.has_action_features and m.header["format_version"] == 1
    assert m.sha256 == "ec68b38f5eda426e2b00a854387eda3c9bd2f1cc709b3123d27fac4768d8651a"


def test_neural_plays_the_block_model(tmp_path):
    model = _block_model()
    path = model.save(tmp_path / "af.npz")
    bot = make_bot(f"neural:model={path}")
    obs, x, ids, fe = _batch()
    z = _numpy_logits(model, x, ids, fe)
    differ = 0
    for i, o in enumerate(obs):
        codes = o.legal_codes()
        want = int(codes[np.argmax(z[i, codes])])
        assert bot.act(o).code == want
        differ += want != int(codes[0])
    assert differ > 0


def test_a_zero_network_with_hards_weights_plays_hards_values():
    """With the head at zero and the block's bias at its start (hard's
    weights, 0 for own_next), each logit is hard's value of the move."""
    from dominoai.bots.hard import N_FEATURES
    from dominoai.learn.features import START_WEIGHTS
    np.testing.assert_array_equal(START_WEIGHTS, np.append(DEFAULT_WEIGHTS[:N_FEATURES], 0).astype(np.float32))
    base = new_model("policy", "all_fives", hidden=(8,), seed=1)
    params = [(w, b) for w, b in base.params[:-1]] + [(np.zeros_like(base.params[-1][0]),
                                                      np.zeros_like(base.params[-1][1]))]
    model = Model.from_params(params, "policy", "all_fives",
                              action=(np.zeros((8, N_ACTION_FEATURES), np.float32), START_WEIGHTS))
    obs, x, ids, fe = _batch()
    z = model.forward(x, ids, fe)
    for i, o in enumerate(obs):
        codes, f = action_features(o)
        hard_vals = f[:, :N_FEATURES].astype(np.float64) @ DEFAULT_WEIGHTS[:N_FEATURES]
        np.testing.assert_allclose(z[i, codes], hard_vals, rtol=1e-5, atol=1e-4)
