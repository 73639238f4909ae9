"""PPO on the batched env (dominoai.learn.ppo) and `dominoai train --kind ppo`:
the clipped objective and the whole loss against numpy, GAE by hand, a
resumed run's parameters, the command's bad input."""
import json

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("learning")  # the compiled kernels it needs (conftest.WARM_GROUPS)

pytest.importorskip("optax", reason="PPO needs the [learn] extra (jax, optax)")


# ---------------------------------------------------------------- the objective
def test_clipped_surrogate_by_hand():
    from dominoai.learn.ppo import clipped_surrogate
    # ratios 1.5, 0.5, 1.0, 0.9 with advantages +1, -1, +2, -3 and clip 0.2:
    # min(1.5, 1.2) = 1.2; min(-0.5, -0.8) = -0.8; 2; min(-2.7, -2.7) = -2.7
    ratio = np.array([1.5, 0.5, 1.0, 0.9], np.float32)
    logp_old = np.array([-1.0, -0.3, -2.0, -0.7], np.float32)
    got = np.asarray(clipped_surrogate(logp_old + np.log(ratio), logp_old,
                                       np.array([1.0, -1.0, 2.0, -3.0], np.float32), 0.2))
    np.testing.assert_allclose(got, [1.2, -0.8, 2.0, -2.7], rtol=1e-6)


def _np_forward(layers, scale, x):
    h = x.astype(np.float64) * scale
    for w, b in layers[:-1]:
        h = np.maximum(h @ w + b, 0.0)
    return h @ layers[-1][0] + layers[-1][1]


def _np_log_softmax(z, mask):
    z = np.where(mask, z, -1e9)
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def test_ppo_loss_equals_a_numpy_reference():
    import jax.numpy as jnp

    from dominoai.engine.encode import N_ACTIONS, OBS_SIZE
    from dominoai.learn import jaxnet
    from dominoai.nets.model import new_model
    from dominoai.learn.ppo import PPOBatch, PPOCoefs, ppo_loss
    rng = np.random.default_rng(3)
    pi, pi0, v = (new_model(k, "block", hidden=(6,), seed=s) for k, s in (("policy", 1), ("policy", 2),
                                                                           ("value", 3)))
    for m in (pi, pi0):      # logits of a useful size (the fresh head is 100 times smaller)
        m.params[-1] = (m.params[-1][0] * 100, m.params[-1][1])
    n = 7
    obs = rng.integers(0, 2, (n, OBS_SIZE)).astype(np.float32)
    mask = np.zeros((n, N_ACTIONS), bool)
    for i in range(n):
        mask[i, rng.choice(N_ACTIONS, size=1 + i % 4, replace=False)] = True
    act = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int32)
    logp_old = np.log(rng.uniform(0.2, 1.0, n)).astype(np.float32)
    adv = rng.normal(0, 1, n).astype(np.float32)
    tgt = rng.normal(0, 1, n).astype(np.float32)
    weight = np.array([1, 1, 1, 0, 1, 1, 1], np.float32)     # row 3: padding
    clip, kl, ent_c, vc = 0.2, 0.05, 0.01, 0.5

    scale = pi.scale.astype(np.float64)
    lp_all = _np_log_softmax(_np_forward(pi.params, scale, obs), mask)
    lp = lp_all[np.arange(n), act]
    r = np.exp(lp - logp_old)
    surr = np.minimum(r * adv, np.clip(r, 1 - clip, 1 + clip) * adv)
    p = np.exp(lp_all)
    ent = -np.where(mask, p * lp_all, 0).sum(1)
    lp0 = _np_log_softmax(_np_forward(pi0.params, scale, obs), mask)
    kl0 = np.where(mask, p * (lp_all - lp0), 0).sum(1)
    val = _np_forward(v.params, scale, obs)[:, 0]

    def mean(x):
        return (weight * x).sum() / weight.sum()
    want = -mean(surr) + kl * mean(kl0) - ent_c * mean(ent) + vc * mean((val - tgt) ** 2)

    params = {"pi": jaxnet.params_of(pi), "v": jaxnet.params_of(v)}
    loss, parts = ppo_loss(params, jaxnet.params_of(pi0), jnp.asarray(pi.scale),
                           PPOBatch(obs, mask, act, logp_old, adv, tgt), PPOCoefs(clip, kl, ent_c, vc), 1.0, weight)
    assert float(loss) == pytest.approx(want, rel=1e-4, abs=1e-5)
    assert float(parts["policy_loss"]) == pytest.approx(-mean(surr), rel=1e-4, abs=1e-5)
    assert float(parts["kl_init"]) == pytest.approx(mean(kl0), rel=1e-3, abs=1e-5)
    assert float(parts["clip_fraction"]) == pytest.approx(mean(np.abs(r - 1) > clip), abs=1e-6)
    # the critic alone (pi_coef 0)
    loss_v, _ = ppo_loss(params, jaxnet.params_of(pi0), jnp.asarray(pi.scale),
                         PPOBatch(obs, mask, act, logp_old, adv, tgt), PPOCoefs(clip, kl, ent_c, vc), 0.0, weight)
    assert float(loss_v) == pytest.approx(vc * mean((val - tgt) ** 2), rel=1e-4)
    # a minibatch of padding only (every weight 0) and a row without a legal id: numbers, not NaN
    mask[2] = False
    zero, zparts = ppo_loss(params, jaxnet.params_of(pi0), jnp.asarray(pi.scale),
                            PPOBatch(obs, mask, act, logp_old, adv, tgt), PPOCoefs(clip, kl, ent_c, vc), 1.0,
                            np.zeros(n, np.float32))
    assert float(zero) == 0.0 and all(float(v) == 0.0 for v in zparts.values())
    some, sparts = ppo_loss(params, jaxnet.params_of(pi0), jnp.asarray(pi.scale),
                            PPOBatch(obs, mask, act, logp_old, adv, tgt), PPOCoefs(clip, kl, ent_c, vc), 1.0, weight)
    assert np.isfinite(float(some)) and all(np.isfinite(float(v)) for v in sparts.values())


def test_gae_by_hand():
    from dominoai.learn.ppo import gae
    # column 0 (self-play): the learner decides at 0, 2, 4; the hand ends with
    # the opponent's step 3 (+2 for the learner's side); the hand begun at 4
    # does not end. column 1: every step the learner's; a hand ends at 2 (-1).
    learner = np.array([[1, 1], [0, 1], [1, 1], [0, 1], [1, 1], [0, 1]], bool)
    done = np.zeros((6, 2), bool)
    done[3, 0] = done[2, 1] = True
    reward = np.zeros((6, 2), np.float32)
    reward[3, 0], reward[2, 1] = 2.0, -1.0
    value = np.array([[0.5, 0.3], [9, 0.3], [0.2, 0.3], [9, 0.3], [0.1, 0.3], [9, 0.3]], np.float32)
    adv, tgt, valid = gae(reward, value, done, learner, 0.5)
    # step 2: 2 - 0.2 = 1.8; step 0: (0 + 0.2 - 0.5) + 0.5 * 1.8 = 0.6, its target the
    # lambda-return 0.5 * 0.2 + 0.5 * 2 = 1.1
    np.testing.assert_allclose(adv[[0, 2], 0], [0.6, 1.8], rtol=1e-6)
    np.testing.assert_allclose(tgt[[0, 2], 0], [1.1, 2.0], rtol=1e-6)
    # column 1: -1.3, then 0 + 0.5 * -1.3 = -0.65, then -0.325
    np.testing.assert_allclose(adv[:3, 1], [-0.325, -0.65, -1.3], rtol=1e-6)
    np.testing.assert_array_equal(valid[:, 0], [1, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(valid[:, 1], [1, 1, 1, 0, 0, 0])


# ---------------------------------------------------------------- a tiny run
#: the tests that train: one worker under --dist loadgroup, so JAX compiles their steps once
PPO_RUNS = pytest.mark.xdist_group("ppo_runs")
TINY = dict(num_envs=8, steps=4, batch=32, epochs=2, value_warmup=1, snapshot_every=1, league_size=2,
            eval_every=0, checkpoint_every=1, learning_rate=1e-3, seed=5)


@PPO_RUNS
def test_a_resumed_run_ends_with_identical_params(tmp_path):
    from dominoai.nets.model import load_model
    from dominoai.learn.ppo import train_ppo
    full = train_ppo("block", "block-policy", iterations=3, **TINY)
    train_ppo("block", "block-policy", checkpoint_dir=tmp_path, iterations=2, **TINY)
    again = train_ppo("block", "block-policy", checkpoint_dir=tmp_path, resume=True, iterations=3, **TINY)
    for (w1, b1), (w2, b2) in zip(full.model.params, again.model.params):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    assert [e["decisions"] for e in again.log] == [e["decisions"] for e in full.log]
    assert full.log[-1]["decisions"] > 0 and full.log[-1]["hands"] > 0
    # the policy moved (the first iteration trains the critic only), and not far
    start = load_model("block-policy")
    assert full.model.sha256 != start.sha256
    assert 0.0 < full.log[-1]["kl_init"] < 0.5
    assert full.log[0]["clip_fraction"] == 0.0
    with pytest.raises(ValueError, match="other settings .*seed"):
        train_ppo("block", "block-policy", checkpoint_dir=tmp_path, resume=True, iterations=3,
                  **{**TINY, "seed": 6})


@PPO_RUNS
def test_steps_shorter_than_a_hand_still_learn_from_finished_hands():
    """One decision per game slot cannot finish a Block hand: the iteration
    plays on until hands have ended, so it has decisions to learn from and
    every loss is a number (never NaN from an empty batch)."""
    from dominoai.learn.ppo import train_ppo
    res = train_ppo("block", "block-policy", iterations=2, **{**TINY, "steps": 1, "value_warmup": 0})
    for e in res.log:
        assert e["decisions"] > 0 and e["hands"] > 0
        for k in ("margin_hard", "margin_league", "policy_loss", "value_loss", "entropy", "kl_init",
                  "approx_kl", "clip_fraction"):
            assert np.isfinite(e[k]), (k, e)
    assert res.log[1]["hands"] > res.log[0]["hands"]
    assert all(np.isfinite(w).all() for w, _ in res.model.params)


def test_unknown_options_name_the_valid_ones(tmp_path):
    from dominoai.errors import InputError
    from dominoai.learn import ppo
    from dominoai.learn.training import fit
    from dominoai.learn.value import value_run
    with pytest.raises(InputError, match=r"^train_ppo\(\) has no option 'bogus'; its options: preset, init, "
                                         r"checkpoint_dir, resume, progress, players, iterations, num_envs, ") as e:
        ppo.train_ppo("block", bogus=1)
    assert e.value.field == "bogus" and e.value.value == 1
    with pytest.raises(InputError, match=r"^train_run\(\) has no option 'iteration'; its options: out, preset, "
                                         r"init, resume, progress, name, players, iterations, "):
        ppo.train_run(tmp_path / "run", "block", iteration=3)
    with pytest.raises(InputError, match=r"^value_run\(\) has no option 'rollout'; its options: out, preset, "
                                         r"deals, teacher, rollouts, "):
        value_run(tmp_path / "v", "draw", 2, rollout=4)
    with pytest.raises(InputError, match=r"^fit\(\) has no option 'epoch'; its options: params, objective, "):
        fit(None, None, {}, np.zeros(0), None, {}, epoch=3)
    assert not (tmp_path / "run").exists() and not (tmp_path / "v").exists()


# ---------------------------------------------------------------- the command
@pytest.mark.parametrize("argv, words", [
    (["--kind", "ppo", "--init", "no-such-model"], "unknown policy model 'no-such-model'"),
    (["--kind", "ppo", "--init", "kozel-value"], "is a value model, not a policy model"),
    (["--kind", "ppo", "--variant", "fives"], "no policy model is shipped for fives"),
    (["--kind", "ppo", "--variant", "draw"], "--init draw-policy: PPO trains policies without the action-feature block; "
     "give --init a policy trained without --action-features"),
    (["--kind", "ppo", "--clip", "1"], "--clip must be above 0 and below 1"),
    (["--kind", "ppo", "--hard-share", "1.5"], "--hard-share must be between 0 and 1"),
    (["--kind", "ppo", "--kl", "nan"], "--kl must be 0 or a positive number"),
    (["--kind", "ppo", "--deals", "5"], "--deals is an option of --kind policy"),
    (["--iterations", "5"], "--iterations is an option of --kind ppo"),
    (["--kind", "ppo", "--num-envs", "0"], "--num-envs: must be at least 1"),
    (["--kind", "ppo", "--num-envs", "1", "--hard-share", "0.5"],
     "--hard-share 0.5 of --num-envs 1 gives no game against hard: use more envs"),
    (["--kind", "ppo", "--num-envs", "3", "--hard-share", "0.9"],
     "--hard-share 0.9 of --num-envs 3 gives every game against hard"),
    (["--kind", "ppo", "--players", "3"], "--init block-policy: model 'block-policy' was trained on 2-player hands "
     "of block, not 3-player ones; give --init a policy trained with --players 3"),
    (["--kind", "ppo", "--variant", "dominoball", "--players", "3"], "dominoball: players must be 2 (got 3)"),
])
def test_train_ppo_bad_input(tmp_path, capsys, argv, words):
    from dominoai.cli import main
    out = tmp_path / "run"
    args = ["train", *argv, "--out", str(out)]
    if "--variant" not in argv:
        args += ["--variant", "block"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dominoai: error: ") and words in err
    assert not out.exists()


@PPO_RUNS
def test_train_ppo_command_writes_a_neural_model(tmp_path, capsys):
    from dominoai.bots import make_bot
    from dominoai.cli import main
    from dominoai.engine.encode import ENCODING_VERSION
    from dominoai.nets.model import code_hash, load_model
    out = tmp_path / "run"
    argv = ["train", "--variant", "block", "--kind", "ppo", "--iterations", "2", "--num-envs", "8",
            "--steps", "4", "--batch", "32", "--epochs", "2", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    m = load_model(out / "model.npz", preset="block", kind="policy")
    # two iterations are all value warm-up: the policy is the start's, and the run says so
    assert m.sha256 == load_model("block-policy").sha256
    assert capsys.readouterr().err == (
        "dominoai: note: all 2 of --iterations are value warm-up (the first 5 train the critic only): the model is "
        "the starting policy block-policy unchanged; give --iterations above 5 (with --resume, the run goes on "
        "from here)\n")
    h = m.header
    assert h["name"] == "run" and h["encoding_version"] == ENCODING_VERSION and h["preset"] == "block"
    assert h["players"] == 2
    assert h["code_hash"] == code_hash() and m.layers == (153, 128, 128, 113)
    assert h["training_command"].startswith("dominoai train --variant block --kind ppo --init block-policy "
                                            "--iterations 2 --num-envs 8 --steps 4")
    assert h["data"]["iterations"] == 2 and h["data"]["hands"] > 0 and h["data"]["decisions"] > 0
    assert h["data"]["init"].startswith("block-policy@")
    assert json.loads(json.dumps(h)) == h and "--out" not in h["training_command"]
    assert {"log.parquet", "curve.png", "checkpoint.npz", "model.npz"} <= {p.name for p in out.iterdir()}
    bot = make_bot(f"neural:model={out / 'model.npz'}")
    assert bot.model_ident is not None and bot.model_ident.startswith("run@")
    # a second run in the same folder is refused without --resume; with it, nothing more is trained
    capsys.readouterr()
    assert main(argv) == 2
    assert "add --resume" in capsys.readouterr().err
    assert main(argv + ["--resume"]) == 0
    assert load_model(out / "model.npz").sha256 == m.sha256
    capsys.readouterr()
    fewer = list(argv)
    fewer[argv.index("--iterations") + 1] = "1"
    assert main([*fewer, "--resume"]) == 2
    assert capsys.readouterr().err == (f"dominoai: error: {out / 'checkpoint.npz'} has trained 2 iterations, more than "
                                       "the 1 of --iterations; give --iterations 2 or more (more go on training "
                                       "from it)\n")
    assert main([*argv, "--resume", "--kl", "0.5"]) == 2
    assert capsys.readouterr().err == (f"dominoai: error: {out / 'checkpoint.npz'} was made with other settings "
                                       "(--kl 0.02); resume with the same settings, or train in another --out\n")
    # a run of another kind is refused in this folder before any play, and writes nothing
    before = sorted(p.name for p in out.iterdir())
    capsys.readouterr()
    assert main(["train", "--variant", "block", "--deals", "2", "--teacher", "hard", "--out", str(out),
                 "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == f"dominoai: error: {out} holds a --kind ppo run; go on with --kind ppo, or give another --out\n"
    assert sorted(p.name for p in out.iterdir()) == before


@PPO_RUNS
def test_ppo_at_tables_of_three(tmp_path, capsys):
    """--players 3: PPO starts from a policy trained at tables of three,
    plays its games there, and its model records it."""
    from dominoai.bots import make_bot
    from dominoai.cli import main
    from dominoai.nets.model import load_model, new_model
    start = new_model("policy", "block", hidden=(8,), seed=3, players=3, name="start3").save(tmp_path / "start3.npz")
    out = tmp_path / "ppo3"
    assert main(["train", "--variant", "block", "--players", "3", "--kind", "ppo", "--init", str(start),
                 "--iterations", "2", "--num-envs", "6", "--steps", "3", "--batch", "32", "--epochs", "1",
                 "--out", str(out), "--no-progress"]) == 0
    m = load_model(out / "model.npz", preset="block", kind="policy", players=3)
    assert m.players == 3 and m.layers == (153, 8, 113) and m.header["data"]["hands"] > 0
    assert m.header["training_command"].startswith("dominoai train --variant block --players 3 --kind ppo "
                                                   "--init start3.npz ")
    obs = _hand_of_three()
    assert make_bot(f"neural:model={out / 'model.npz'}").act(obs).code in obs.legal_codes()
    assert "are value warm-up" in capsys.readouterr().err


def _hand_of_three():
    """The first observation of a three-player Block hand."""
    from dominoai import Match
    return Match("block", players=3, seed=2).new_hand().observe()
