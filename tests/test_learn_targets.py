"""The policy's training targets (dominoai.learn.imitation): the teacher's
move values read from the records' analysis, the soft target built from
them, its loss against a numpy reference, and datasets written before the
values were kept."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dominoai.engine.encode import N_ACTIONS, OBS_SIZE
from dominoai.learn.imitation import DATA_FIELDS, load_dataset, policy_targets, save_dataset


def _analysed_record():
    """A Block hand of medium against itself, as a record dict, with an
    analysis written on its first two plays: the first (the lead) values
    two of the legal ids, the second every legal id. Returns the record
    and the analyses as ``[(move index, {move text: value})]``."""
    from dominoai import Match
    from dominoai.bots import make_bot
    from dominoai.moves import Move
    from dominoai.records import record_from_match
    bot = make_bot("medium")
    m = Match("block", seed=11)
    h = m.new_hand()
    legal_of = []
    while not h.over:
        obs = h.observe()
        legal_of.append([int(c) for c in obs.legal_codes()])
        h.play(bot.act(obs))
    rec = record_from_match(m, ["medium", "medium"])
    d = json.loads(json.dumps(rec))
    moves = d["hands"][0]["moves"]
    plays = [i for i, mv in enumerate(moves) if "tile" in mv]
    given = []
    for k, (i, legal) in enumerate(zip(plays[:2], legal_of[:2])):
        texts = [str(Move.from_code(c)) for c in legal]
        chosen = texts if k else texts[:2]
        vals = {t: round(1.5 - 0.75 * j, 4) for j, t in enumerate(chosen)}
        moves[i]["analysis"] = [{"move": t, "value": v, "n": 10} for t, v in vals.items()]
        given.append((k, dict(zip(texts, legal)), vals))
    return d, given


def test_decisions_keep_the_analysed_values():
    from dominoai.learn.imitation import decisions
    rec, given = _analysed_record()
    d = decisions([rec])
    assert d["values"].shape == (len(d["action"]), N_ACTIONS) and d["values"].dtype == np.float32
    for row, ids, vals in given:
        want = np.full(N_ACTIONS, np.nan, np.float32)
        for text, v in vals.items():
            want[ids[text]] = v
        np.testing.assert_array_equal(d["values"][row], want)
    assert np.isnan(d["values"][len(given):]).all()          # the moves without analysis


def test_soft_targets_by_hand():
    mask = np.zeros((3, N_ACTIONS), bool)
    mask[:, [4, 9, 30]] = True
    values = np.full((3, N_ACTIONS), np.nan, np.float32)
    values[0, [4, 9, 30]] = [2.0, 1.0, -1.0]
    values[1, [4, 9]] = [0.5, 0.5]                      # id 30 legal but not valued: weight 0
    data = {"mask": mask, "values": values, "action": np.array([4, 9, 30], np.int16)}
    t = policy_targets(data, "values", temperature=2.0)
    e = [math.exp(1.0), math.exp(0.5), math.exp(-0.5)]
    np.testing.assert_allclose(t[0, [4, 9, 30]], np.array(e) / sum(e), rtol=1e-6)
    np.testing.assert_allclose(t[1, [4, 9, 30]], [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(t[2, [4, 9, 30]], [0.0, 0.0, 1.0])      # no values: the choice
    assert t.sum(axis=1).tolist() == pytest.approx([1.0, 1.0, 1.0]) and t[:, ~mask[0]].max() == 0
    np.testing.assert_array_equal(policy_targets(data, "choice")[:, [4, 9, 30]], np.eye(3))
    from dominoai.errors import InputError
    with pytest.raises(InputError, match="temperature must be a positive number"):
        policy_targets(data, "values", temperature=0.0)
    with pytest.raises(InputError, match="imitate must be one of choice, values"):
        policy_targets(data, "value")


def _tiny_dataset(n=40, seed=4):
    """Random observation-like rows, 2 to 6 legal ids each, values on the
    legal ids of most rows (NaN on every fifth: a forced move), 8 hands."""
    rng = np.random.default_rng(seed)
    obs = (rng.random((n, OBS_SIZE)) < 0.3).astype(np.float32)
    obs[:, 112:] = rng.integers(0, 20, (n, OBS_SIZE - 112))
    mask = np.zeros((n, N_ACTIONS), bool)
    values = np.full((n, N_ACTIONS), np.nan, np.float32)
    action = np.zeros(n, np.int16)
    for r in range(n):
        ids = rng.choice(N_ACTIONS, size=int(rng.integers(2, 7)), replace=False)
        mask[r, ids] = True
        action[r] = ids[0]
        if r % 5:
            values[r, ids] = rng.normal(0, 3, len(ids))
    return {"obs": obs, "mask": mask, "action": action, "values": values, "seat": np.zeros(n, np.int8),
            "margin": np.zeros(n, np.float32), "hand": np.repeat(np.arange(8), n // 8).astype(np.int32)}


def _reference_loss(model, d, temperature):
    """The mean soft cross-entropy, in float64 numpy with explicit loops over
    the rows: the network's logits, a softmax over the legal ids, the target
    a softmax of the values (or the chosen id where there are none)."""
    h = d["obs"].astype(np.float64) * model.scale
    for i, (w, b) in enumerate(model.params):
        h = h @ w.astype(np.float64) + b
        if i < len(model.params) - 1:
            h = np.maximum(h, 0.0)
    total = 0.0
    for r in range(len(h)):
        ids = np.flatnonzero(d["mask"][r])
        z = h[r, ids]
        logp = z - z.max() - math.log(np.exp(z - z.max()).sum())
        v = d["values"][r, ids].astype(np.float64)
        if np.isfinite(v).any():
            q = np.exp((v - np.nanmax(v)) / temperature)
            q[~np.isfinite(v)] = 0.0
            q /= q.sum()
        else:
            q = (ids == d["action"][r]).astype(np.float64)
        total -= float((q * logp).sum())
    return total / len(h)


def test_the_soft_target_loss_equals_a_numpy_reference():
    pytest.importorskip("optax", reason="training needs the [learn] extra (jax, optax)")
    from dominoai.learn.imitation import train_policy
    from dominoai.nets.model import new_model
    d = _tiny_dataset()
    # a step too small to move the weights: the logged loss is the fresh network's
    res = train_policy(d, "block", hidden=(16,), epochs=1, batch=64, learning_rate=1e-12, held_out=0.0, seed=7,
                       imitate="values", temperature=1.5)
    want = _reference_loss(new_model("policy", "block", hidden=(16,), seed=7), d, 1.5)
    assert res.log[0]["train_loss"] == pytest.approx(want, rel=1e-4)
    assert want > 0.5


def test_a_dataset_without_values_still_loads(tmp_path):
    from dominoai.errors import InputError
    from dominoai.learn.training import save_arrays
    d = _tiny_dataset()
    old_fields = {k: v for k, v in DATA_FIELDS.items() if k != "values"}
    save_arrays(tmp_path / "old.npz", d, old_fields, {"encoding_version": 1, "rows": len(d["action"])})
    back, meta = load_dataset(tmp_path / "old.npz")
    assert set(back) == set(DATA_FIELDS) and "analysis" not in meta
    assert back["values"].shape == (len(d["action"]), N_ACTIONS) and np.isnan(back["values"]).all()
    for k in old_fields:
        np.testing.assert_array_equal(back[k], d[k])
    # and one with them round-trips them
    save_dataset(tmp_path / "new.npz", d, preset="block", analysis=True)
    again, meta = load_dataset(tmp_path / "new.npz")
    np.testing.assert_array_equal(again["values"], d["values"])
    assert meta["analysis"] is True
    pytest.importorskip("optax", reason="training needs the [learn] extra (jax, optax)")
    from dominoai.learn.imitation import train_policy
    with pytest.raises(InputError, match="no move values"):
        train_policy(back, "block", hidden=(8,), epochs=1, imitate="values")


def test_a_resumed_run_names_the_changed_temperature(tmp_path):
    """A checkpoint trained at one temperature is not resumed at another:
    the refusal names the temperature (the command: --temperature) and the
    value it was trained with; a checkpoint written when what it imitated
    was kept as ``target``, or as [target, temperature], resumes at its own
    settings."""
    pytest.importorskip("optax", reason="training needs the [learn] extra (jax, optax)")
    import json

    from dominoai.cli import _train_usage
    from dominoai.errors import InputError
    from dominoai.learn.imitation import train_policy
    d = _tiny_dataset()
    kw = dict(hidden=(8,), epochs=1, batch=64, held_out=0.0, seed=3, imitate="values", checkpoint_dir=tmp_path)
    first = train_policy(d, "block", temperature=1.5, **kw)
    with pytest.raises(InputError) as e:
        train_policy(d, "block", temperature=2.0, resume=True, **kw)
    assert e.value.fields == ("temperature",)
    assert str(e.value) == (f"{tmp_path / 'checkpoint.npz'} was made with other settings (temperature 1.5); "
                            "resume with the same settings, or train in another folder")
    assert "(--temperature 1.5)" in str(_train_usage(e.value))
    with pytest.raises(InputError, match=r"other settings \(imitate values, temperature 1.5\)") as e:
        train_policy(d, "block", **{**kw, "imitate": "choice"}, resume=True)
    assert "(--imitate values, --temperature 1.5)" in str(_train_usage(e.value))
    # the settings as earlier versions wrote them: "target" for what was imitated, at first with
    # the temperature in one list, no players, nothing for the choice, weight decay and keep-best
    # only when set
    ckpt = tmp_path / "checkpoint.npz"
    with np.load(ckpt) as z:
        arrays = {k: z[k] for k in z.files}
    state = json.loads(str(arrays["state"][()]))
    st = state["settings"]
    del st["imitate"]
    for old in ({"target": "values"}, {"target": ["values", 1.5]}):
        if isinstance(old["target"], list):
            for k in ("players", "temperature", "weight_decay", "keep_best", "action_features"):
                del st[k]
        st.update(old)
        arrays["state"] = np.array(json.dumps(state))
        np.savez(ckpt, **arrays)
        again = train_policy(d, "block", temperature=1.5, resume=True, **kw)
        assert again.model.sha256 == first.model.sha256 and len(again.log) == 1


def test_one_definition_of_a_bot_that_gives_move_values(monkeypatch, tmp_path):
    """dominoai.decide.gives_analysis decides both whether the tournament
    stores a bot's analysis and whether a teacher can give the values target."""
    from types import SimpleNamespace

    from dominoai.bots import make_bot
    from dominoai.errors import InputError
    from dominoai.learn.imitation import train_run
    import dominoai.decide as loop
    insane = make_bot("insane")
    assert loop.gives_analysis(insane)
    assert not loop.gives_analysis(make_bot("hard")) and not loop.gives_analysis(make_bot("neural"))
    insane.last = SimpleNamespace(moves=[101], values=[2.5], worlds=4)
    assert loop.analysis_of(insane) == [{"move": "6:4 right", "value": 2.5, "n": 4}]
    monkeypatch.setattr(loop, "gives_analysis", lambda bot: False)
    assert loop.analysis_of(insane) is None
    with pytest.raises(InputError, match="^imitate 'values' learns the teacher's move values: 'insane' gives none"):
        train_run(tmp_path / "run", "block", 1, teacher="insane", imitate="values")
    assert not (tmp_path / "run").exists()
