"""The learned-model format (dominoai.nets.model): the numba forward pass
against the JAX definition and against a plain numpy reference, save and
load, refusals of mismatched headers."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("learning")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai.engine.encode import ENCODING_VERSION, N_ACTIONS, OBS_SIZE, encode
from dominoai.nets import forward as F
from dominoai.nets.model import Model, ModelError, input_scale, load_model, new_model


def _numpy_forward(model, x):
    """An independent reference: the network in plain numpy, float64."""
    h = x.astype(np.float64) * model.scale
    for i, (w, b) in enumerate(model.params):
        h = h @ w.astype(np.float64) + b
        if i < len(model.params) - 1:
            h = np.maximum(h, 0.0)
    return h


def _random_model(kind="policy", hidden=(32, 16), seed=1):
    """Random weights and nonzero biases (a fresh model's biases are 0)."""
    rng = np.random.default_rng(seed)
    m = new_model(kind, "block", hidden=hidden, seed=seed)
    params = [(rng.normal(0, 0.3, w.shape).astype(np.float32), rng.normal(0, 0.3, b.shape).astype(np.float32))
              for w, b in m.params]
    return Model.from_params(params, kind, "block")


def _random_inputs(n, seed=2):
    """Observation-like vectors: 0/1 tile sets and small plain numbers."""
    rng = np.random.default_rng(seed)
    x = (rng.random((n, OBS_SIZE)) < 0.3).astype(np.float32)
    x[:, 112:] = rng.integers(-1, 40, (n, OBS_SIZE - 112))
    return x


@pytest.mark.parametrize("kind", ["policy", "value"])
def test_numba_forward_equals_numpy_reference(kind):
    m = _random_model(kind)
    x = _random_inputs(50)
    got = m.forward(x)
    assert got.shape == (50, N_ACTIONS if kind == "policy" else 1) and got.dtype == np.float32
    np.testing.assert_allclose(got, _numpy_forward(m, x), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(m.forward(x[3]), got[3])   # one input = the same row of a batch


def test_numba_forward_equals_jax():
    jnp = pytest.importorskip("jax.numpy", reason="the JAX network needs the [learn] extra (jax)")
    from dominoai.learn import jaxnet
    for seed in (1, 2, 3):
        m = _random_model(hidden=(24, 24, 8), seed=seed)
        x = _random_inputs(40, seed=seed + 10)
        want = np.asarray(jaxnet.apply(jaxnet.params_of(m), jnp.asarray(m.scale), jnp.asarray(x)))
        np.testing.assert_allclose(m.forward(x), want, rtol=1e-5, atol=1e-5)


def test_a_hand_computed_network():
    """1 hidden unit: relu(0.1 * pips * 2 + 1) then * 3 - 1, every other weight 0."""
    w0 = np.zeros((OBS_SIZE, 1), np.float32)
    w0[120, 0] = 2.0
    b0 = np.array([1.0], np.float32)
    w1 = np.zeros((1, 1), np.float32)
    w1[0, 0] = 3.0
    m = Model.from_params([(w0, b0), (w1, np.array([-1.0], np.float32))], "value", "block")
    x = np.zeros((2, OBS_SIZE), np.float32)
    x[0, 120] = 5.0          # 0.1 * 5 * 2 + 1 = 2 -> 2 * 3 - 1 = 5
    x[1, 120] = -10.0        # 0.1 * -10 * 2 + 1 = -1 -> relu 0 -> -1
    np.testing.assert_allclose(m.forward(x)[:, 0], [5.0, -1.0], rtol=1e-6)
    assert input_scale()[120] == np.float32(0.1) and input_scale()[0] == 1.0


def test_masked_argmax_and_policy_pick():
    m = _random_model()
    x = _random_inputs(1)[0]
    z = m.forward(x)
    codes = np.array([7, 40, 3, 90], np.int64)
    want = codes[np.argmax(z[codes])]
    assert F.masked_argmax(z, codes, 4) == want
    assert F.masked_argmax(z, codes, 1) == 7


def test_save_load_round_trip(tmp_path):
    m = _random_model()
    p = m.save(tmp_path / "mine.npz", training_command="dominoai train", data={"deals": 3})
    back = load_model(p)
    assert back.name == "mine" and back.kind == "policy" and back.preset == "block"
    assert back.layers == (OBS_SIZE, 32, 16, N_ACTIONS)
    assert back.header["encoding_version"] == ENCODING_VERSION
    assert back.header["training_command"] == "dominoai train" and back.header["data"] == {"deals": 3}
    assert len(back.header["code_hash"]) == 16 and back.header["created"].endswith("Z")
    for (w, b), (w2, b2) in zip(m.params, back.params):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert back.sha256 == m.sha256 and back.ident == f"mine@{m.sha256[:12]}"
    x = _random_inputs(30)
    assert np.array_equal(back.forward(x), m.forward(x))
    codes = np.arange(0, N_ACTIONS, 3, dtype=np.int64)
    for row in x:
        assert F.masked_argmax(back.forward(row), codes, len(codes)) == \
            F.masked_argmax(m.forward(row), codes, len(codes))
    assert list(tmp_path.iterdir()) == [p]          # no temporary file left


def test_the_hash_follows_the_weights_only(tmp_path):
    a = _random_model(seed=1)
    b = _random_model(seed=1)
    b.header["name"] = "other"
    assert a.sha256 == b.sha256
    c = _random_model(seed=1)
    c.params[0][0][5, 3] += 1e-3
    c._packed = c._sha = None
    assert c.sha256 != a.sha256


def _tamper(tmp_path, **header):
    m = _random_model()
    p = m.save(tmp_path / "m.npz")
    with np.load(p) as z:
        arrays = {k: z[k] for k in z.files}
    h = json.loads(str(arrays["header"][()]))
    h.update(header)
    arrays["header"] = np.array(json.dumps(h))
    q = tmp_path / "bad.npz"
    np.savez(q, **arrays)
    return q


@pytest.mark.parametrize("header, words", [
    ({"encoding_version": ENCODING_VERSION + 1}, "encoding version"),
    ({"format": "other"}, "not a dominoai model"),
    ({"format_version": 99}, "format version 99"),
    ({"layers": [OBS_SIZE, 32, 17, N_ACTIONS]}, "do not fit"),
    ({"kind": "value"}, "do not fit"),
])
def test_a_mismatched_header_is_refused(tmp_path, header, words):
    with pytest.raises(ModelError, match=words) as e:
        load_model(_tamper(tmp_path, **header))
    assert "\n" not in str(e.value)


def test_kind_preset_and_name_are_checked(tmp_path):
    p = _random_model().save(tmp_path / "m.npz")
    assert load_model(p, preset="block", kind="policy").name == "m"
    with pytest.raises(ModelError, match="trained for block, not for draw"):
        load_model(p, preset="draw")
    with pytest.raises(ModelError, match="a policy model, not a value model"):
        load_model(p, kind="value")
    with pytest.raises(ModelError, match="unknown model 'no-such-model'"):
        load_model("no-such-model")
    with pytest.raises(ModelError, match="no model file"):
        load_model(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ModelError, match="not a dominoai model"):
        load_model(junk)
    assert issubclass(ModelError, ValueError)


# ---------------------------------------------------------------- the dataset and training
def _medium_games(n_deals, seed=5):
    """Block hands of medium against itself, played here; returns the
    records and, per decision, (observation vector, chosen id, seat) as the
    game saw them, and the margin of each hand per seat."""
    from dominoai import Match
    from dominoai.bots import make_bot
    from dominoai.records import record_from_match
    from dominoai.rules import margins
    bot = make_bot("medium")
    recs, seen = [], []
    for d in range(n_deals):
        m = Match("block", seed=seed + d)
        h = m.new_hand()
        rows = []
        while not h.over:
            obs = h.observe()
            mv = bot.act(obs)
            rows.append((encode(obs.array), mv.code, obs.seat))
            h.play(mv)
        mg = margins(m.rules, h.points)
        seen += [(x, c, s, mg[s]) for x, c, s in rows]
        recs.append(record_from_match(m, ["medium", "medium"]))
    return recs, seen


def test_decisions_replay_what_the_game_saw():
    from dominoai.learn.imitation import decisions
    recs, seen = _medium_games(4)
    d = decisions(recs)
    assert len(d["action"]) == len(seen) > 20
    for i, (x, code, seat, margin) in enumerate(seen):
        assert np.array_equal(d["obs"][i], x)
        assert d["action"][i] == code and d["seat"][i] == seat and d["margin"][i] == margin
        assert d["mask"][i, code]
    assert d["hand"][0] == 0 and d["hand"][-1] == 3 and np.all(np.diff(d["hand"]) >= 0)
    # block, two seats: the margins of one hand are +m and -m
    first = d["hand"] == 0
    assert set(np.abs(d["margin"][first]).tolist()) == {abs(float(d["margin"][0]))}


def test_dataset_round_trip_and_split(tmp_path):
    from dominoai.learn.imitation import decisions, load_dataset, save_dataset, split_hands
    recs, _ = _medium_games(3)
    d = decisions(recs)
    p = save_dataset(tmp_path / "d.npz", d, preset="block", teacher="medium")
    back, meta = load_dataset(p)
    assert meta["rows"] == len(d["action"]) and meta["hands"] == 3 and meta["preset"] == "block"
    for k in d:     # equal_nan: the values of a teacher without analysis are NaN
        assert np.array_equal(back[k], d[k], equal_nan=k == "values") and back[k].dtype == d[k].dtype
    tr, te = split_hands(d["hand"], 0.34, seed=1)
    assert len(np.unique(d["hand"][te])) == 1 and not set(d["hand"][tr]) & set(d["hand"][te])
    assert sorted(np.concatenate([tr, te]).tolist()) == list(range(len(d["hand"])))


def test_training_loss_falls_and_resumes(tmp_path):
    pytest.importorskip("optax", reason="training needs the [learn] extra (jax, optax)")
    from dominoai.learn.imitation import decisions, train_policy
    recs, _ = _medium_games(12)
    d = decisions(recs)
    kw = dict(hidden=(32,), batch=32, learning_rate=3e-3, held_out=0.2, seed=3)
    full = train_policy(d, "block", epochs=4, **kw)
    losses = [e["train_loss"] for e in full.log]
    assert losses[-1] < 0.6 * losses[0], losses
    assert full.log[-1]["train_accuracy"] > full.log[0]["train_accuracy"]
    assert 0 < full.log[-1]["held_accuracy"] <= 1
    # a run stopped after 2 epochs and resumed ends where the straight run ends
    train_policy(d, "block", epochs=2, checkpoint_dir=tmp_path, **kw)
    again = train_policy(d, "block", epochs=4, checkpoint_dir=tmp_path, resume=True, **kw)
    assert [e["epoch"] for e in again.log] == [1, 2, 3, 4]
    np.testing.assert_allclose([e["train_loss"] for e in again.log], losses, rtol=1e-5)
    x = d["obs"][:20]
    np.testing.assert_allclose(again.model.forward(x), full.model.forward(x), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="other settings"):
        train_policy(d, "block", epochs=4, checkpoint_dir=tmp_path, resume=True, **{**kw, "batch": 64})


def test_generation_resumes_from_its_parts(tmp_path):
    from dominoai.learn.imitation import generate, load_dataset, save_dataset
    full = generate("block", 2, teacher="easy", chunk=1, parts_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part-0000000.npz", "part-0000001.npz"]
    # a part on disk is read, not played again: mark its rows and they come back marked
    d, meta = load_dataset(tmp_path / "part-0000001.npz")
    assert (meta["seed"], meta["deals"], meta["teacher"]) == (1, 1, "easy")
    n1 = len(d["action"])
    save_dataset(tmp_path / "part-0000001.npz", {**d, "margin": d["margin"] + 100},
                 **{k: meta[k] for k in ("preset", "teacher", "seed", "deals", "analysis")})
    again = generate("block", 2, teacher="easy", chunk=1, parts_dir=tmp_path)
    np.testing.assert_array_equal(again["margin"][-n1:], full["margin"][-n1:] + 100)
    np.testing.assert_array_equal(again["margin"][:-n1], full["margin"][:-n1])
    np.testing.assert_array_equal(again["hand"], full["hand"])
    # the same rows as a generation without parts
    plain = generate("block", 2, teacher="easy", chunk=1)
    np.testing.assert_array_equal(plain["action"], full["action"])


# ---------------------------------------------------------------- corrupt files, players, constants' docs
def test_a_corrupt_model_file_is_refused_in_one_line(tmp_path):
    from dominoai.errors import InputError
    text = tmp_path / "notes.npz"
    text.write_text("these are my notes, not a model\n")
    with pytest.raises(InputError, match=r"^not a dominoai model file: .*notes\.npz \(it is not an \.npz archive\)$"):
        load_model(text)
    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(3))
    with pytest.raises(ModelError, match=r"^not a dominoai model file: .*other\.npz \(it has no 'header' array\)$"):
        load_model(other)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(_random_model().save(tmp_path / "whole.npz").read_bytes()[:2000])
    with pytest.raises(ModelError, match=r"^not a dominoai model file: .*cut\.npz \("):
        load_model(cut)
    for f in (text, other, cut):
        with pytest.raises(ModelError) as e:
            load_model(f)
        assert "\n" not in str(e.value) and "pickle" not in str(e.value)


@pytest.mark.parametrize("where, value", [("w1", np.nan), ("b0", np.inf), ("scale", -np.inf)])
def test_non_finite_weights_are_refused(tmp_path, where, value):
    m = _random_model()
    if where == "scale":
        m.scale[3] = value
    else:
        i, j = int(where[1]), 0 if where[0] == "w" else 1
        m.params[i][j].flat[5] = value
    p = m.save(tmp_path / "nan.npz")
    with pytest.raises(ModelError, match=rf"^non-finite weights in .*nan\.npz: {where} hold NaN or infinite"):
        load_model(p)


def test_the_players_a_model_was_trained_for(tmp_path):
    from dominoai.nets.model import check_players
    m = _random_model()
    assert m.header["players"] == 2 and m.players == 2
    p = _tamper(tmp_path)
    with np.load(p) as z:                      # a header written before the players were recorded
        arrays = {k: z[k] for k in z.files}
    h = json.loads(str(arrays["header"][()]))
    del h["players"]
    arrays["header"] = np.array(json.dumps(h))
    np.savez(tmp_path / "old.npz", **arrays)
    assert load_model(tmp_path / "old.npz").players == 2
    assert load_model("kozel-policy").players == 4              # Kozel is played by four
    assert load_model("kozel-policy", players=4).preset == "kozel"
    with pytest.raises(ModelError, match="^model 'block-policy' was trained on 2-player hands of block, "
                                         "not 3-player ones; dominoai train --players 3 trains one for them$"):
        load_model("block-policy", players=3)
    check_players(m, 2)
    with pytest.raises(ModelError, match="not a dominoai model file: .*its players 5 are not 2, 3 or 4"):
        load_model(_tamper(tmp_path, players=5))


def test_public_constants_have_a_doc_comment():
    """Every public constant of these modules has a ``#:`` comment right
    above it (the API pages show it)."""
    import ast
    import importlib
    import inspect
    for name in ("dominoai.learn.features", "dominoai.nets.features", "dominoai.nets.hardeval", "dominoai.nets.model",
                 "dominoai.nets.value_model", "dominoai.learn.ppo"):
        mod = importlib.import_module(name)
        src = inspect.getsource(mod).splitlines()
        for node in ast.parse("\n".join(src)).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                var = node.targets[0].id
                if var in mod.__all__:
                    assert src[node.lineno - 2].lstrip().startswith("#:"), f"{name}.{var} has no #: comment"
