"""The ``neural`` bot and ``dominoai train``: the bot plays its network's
best legal id (checked against a numpy reference), samples at a
temperature with its seeded generator, refuses a model of another preset,
and names its model by name and hash in a tournament's provenance; the
command refuses bad input in one line and resumes a run."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

import dominoai
from dominoai import Match
from dominoai.bots import make_bot
from dominoai.cli import main
from dominoai.engine.encode import encode
from dominoai.nets.model import Model, ModelError, load_model, new_model


def _reference_logits(model, obs):
    """The network in numpy, float64, from the observation's array."""
    h = encode(obs.array).astype(np.float64) * model.scale
    for i, (w, b) in enumerate(model.params):
        h = h @ w.astype(np.float64) + b
        if i < len(model.params) - 1:
            h = np.maximum(h, 0.0)
    return h


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    rng = np.random.default_rng(7)
    m = new_model("policy", "block", hidden=(48, 24), seed=7)
    params = [(rng.normal(0, 0.4, w.shape).astype(np.float32), rng.normal(0, 0.4, b.shape).astype(np.float32))
              for w, b in m.params]
    return Model.from_params(params, "policy", "block").save(tmp_path_factory.mktemp("models") / "tiny.npz")


def _positions(preset="block", deals=6):
    """Every decision of a few hands of medium against itself."""
    bot = make_bot("medium")
    out = []
    for d in range(deals):
        h = Match(preset, seed=100 + d).new_hand()
        while not h.over:
            obs = h.observe()
            out.append(obs)
            h.play(bot.act(obs))
    return out


def test_neural_plays_the_best_legal_logit(model_file):
    model = load_model(model_file)
    bot = make_bot(f"neural:model={model_file}")
    assert bot.uses_seed is False and bot.model_ident == f"tiny@{model.sha256[:12]}"
    moves_differ = 0
    for obs in _positions():
        codes = obs.legal_codes()
        z = _reference_logits(model, obs)
        want = int(codes[np.argmax(z[codes])])
        assert bot.act(obs).code == want
        moves_differ += want != int(codes[0])
    assert moves_differ > 0       # not merely the first listed move


def test_temperature_samples_the_softmax(model_file):
    model = load_model(model_file)
    obs = next(o for o in _positions() if len(o.legal_codes()) >= 3)
    codes = obs.legal_codes()
    z = _reference_logits(model, obs)[codes] / 2.0
    p = np.exp(z - z.max())
    p /= p.sum()
    bot = make_bot(f"neural:model={model_file},temperature=2,seed=9")
    assert bot.uses_seed
    n = 1500
    got = np.array([bot.act(obs).code for _ in range(n)])
    freq = np.array([(got == c).mean() for c in codes])
    sd = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) <= 4.5 * sd + 1e-9), (freq, p)
    again = make_bot(f"neural:model={model_file},temperature=2,seed=9")
    assert [again.act(obs).code for _ in range(50)] == got[:50].tolist()


def test_a_model_of_another_preset_is_refused(model_file):
    bot = make_bot(f"neural:model={model_file}")
    obs = Match("draw", seed=1).new_hand().observe()
    with pytest.raises(ModelError, match="trained for block, not for draw"):
        bot.act(obs)
    with pytest.raises(ValueError, match="unknown policy model 'nothing-such'; shipped policy models: "):
        make_bot("neural:model=nothing-such")
    with pytest.raises(ValueError, match="temperature must be >= 0.0"):
        make_bot("neural:temperature=-1")


def test_a_table_of_another_size_is_refused(model_file):
    bot = make_bot(f"neural:model={model_file}")
    for players in (3, 4):
        obs = Match("block", players=players, seed=1).new_hand().observe()
        with pytest.raises(ModelError, match="^model 'tiny' was trained on 2-player hands of block, "
                                             f"not {players}-player ones; dominoai train --players {players} "
                                             "trains one for them$"):
            bot.act(obs)
    assert bot.act(Match("block", seed=1).new_hand().observe()).code >= 0     # its own size still plays
    # the shipped Kozel policy (a header from before the players were recorded) takes Kozel's four
    # seats (test_bots.py's conformance plays it there)
    kozel = make_bot("neural")
    kozel.use_rules(dominoai.get_rules("kozel"))
    assert kozel.model_ident.startswith("kozel-policy@") and dominoai.get_rules("kozel").players == 4


def test_play_refuses_a_table_the_model_was_not_trained_for(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DOMINOAI_DATA_DIR", str(tmp_path / "data"))
    assert main(["play", "--variant", "block", "--players", "3", "--opponents", "neural", "--seed", "1"]) == 2
    assert capsys.readouterr().err == ("dominoai: error: model 'block-policy' was trained on 2-player hands "
                                       "of block, not 3-player ones; dominoai train --players 3 trains one for them\n")
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())
    with pytest.raises(ModelError, match="^unknown policy model 'block-value'; shipped policy models: "
                                         "all_fives-policy, block-policy, block-ppo, draw-policy, kozel-policy "):
        make_bot("neural:model=block-value")


def test_insane_refuses_a_play_model_of_another_table_size(tmp_path, monkeypatch, capsys):
    """insane's policy network obeys the same rule as the neural bot's: in
    a tournament, in play, and when it plays in a preset with no model."""
    monkeypatch.setenv("DOMINOAI_DATA_DIR", str(tmp_path / "data"))
    bot = make_bot("insane:play_model=neural")
    bot.use_rules(dominoai.get_rules("draw", players=3))
    with pytest.raises(ModelError, match="^model 'draw-policy' was trained on 2-player hands of draw, "
                                         "not 3-player ones; dominoai train --players 3 trains one for them$"):
        bot.model_ident
    bot.use_rules(dominoai.get_rules("draw"))
    assert bot.model_ident.startswith("draw-policy@")
    assert main(["play", "--variant", "draw", "--players", "3", "--opponents", "insane:play_model=neural",
                 "--seed", "1"]) == 2
    assert capsys.readouterr().err == ("dominoai: error: model 'draw-policy' was trained on 2-player hands "
                                       "of draw, not 3-player ones; dominoai train --players 3 trains one for them\n")
    assert main(["play", "--variant", "fives", "--opponents", "insane:play_model=neural", "--seed", "1"]) == 2
    assert capsys.readouterr().err == ("dominoai: error: no policy model is shipped for fives; presets with one: "
                                       "all_fives, block, draw, kozel\n")
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def test_insane_refuses_a_value_model_of_another_table_size():
    """The value leaf obeys the same rule: the shipped Draw value model was
    trained on 2-player hands, so a 3-player table refuses it."""
    bot = make_bot("insane:value_plies=2")
    bot.use_rules(dominoai.get_rules("draw", players=3))
    with pytest.raises(ModelError, match="^model 'draw-value' was trained on 2-player hands of draw, "
                                         "not 3-player ones; dominoai train --players 3 trains one for them$"):
        bot.model_ident
    bot.use_rules(dominoai.get_rules("draw"))
    assert bot.model_ident.startswith("draw-value@")


def test_a_refused_model_gets_one_line_and_no_note(capsys, tmp_path):
    """A learned part with no model for the preset: the refusal alone, before
    the note on its idle parameter, and nothing played."""
    out = tmp_path / "r.parquet"
    assert main(["tournament", "--variant", "fives", "--bots", "insane:play_model=neural,hard", "--hands", "2",
                 "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == ("dominoai: error: no policy model is shipped for fives; presets with one: "
                   "all_fives, block, draw, kozel\n")
    assert not out.exists()
    assert main(["tournament", "--variant", "draw", "--players", "3", "--bots", "neural,hard", "--hands", "2",
                 "--no-progress"]) == 2
    assert capsys.readouterr().err == ("dominoai: error: model 'draw-policy' was trained on 2-player hands "
                                       "of draw, not 3-player ones; dominoai train --players 3 trains one for them\n")


def test_a_corrupt_model_is_one_line_in_a_command(tmp_path, capsys):
    bad = tmp_path / "notes.npz"
    bad.write_text("not a model")
    for bots in (f"neural:model={bad},hard", f"insane:rollout_policy=neural,policy_model={bad},hard"):
        assert main(["tournament", "--variant", "block", "--bots", bots, "--hands", "2", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"not a dominoai model file: {bad} (it is not an .npz archive)" in err


def test_the_provenance_names_the_model_by_hash(model_file, tmp_path):
    from dominoai.tournament import run_tournament
    spec = f"neural:model={model_file}"
    res = run_tournament("block", [spec, "medium"], hands=2, progress=False, out=tmp_path / "r.parquet")
    ident = load_model(model_file).ident
    assert res.provenance["models"] == {spec: ident}
    from dominoai.tournament import read_provenance
    assert read_provenance(tmp_path / "r.parquet")["models"] == {spec: ident}


# ---------------------------------------------------------------- dominoai train
@pytest.mark.parametrize("args, words", [
    (["--variant", "nope"], "unknown preset 'nope'"),
    (["--variant", "block", "--hidden", "64,0"], "--hidden must be positive integers"),
    (["--variant", "block", "--held-out", "0.95"], "--held-out must be between 0 and 0.9"),
    (["--variant", "block", "--learning-rate", "-1"], "--learning-rate must be a positive finite number"),
    (["--variant", "block", "--teacher", "genius"], "unknown bot 'genius'"),
    (["--variant", "block", "--jobs", "0"], "--jobs must be a positive number of processes"),
    (["--variant", "block", "--deals", "0"], "--deals: must be at least 1"),
    (["--variant", "block", "--players", "5"], "block: players must be 2..4 (got 5)"),
    (["--variant", "kozel", "--players", "2", "--kind", "value"], "kozel: players must be 4 (got 2)"),
    (["--variant", "block", "--players", "1"], "--players: must be at least 2 (got 1)"),
])
def test_train_refuses_bad_input(tmp_path, capsys, args, words):
    out = tmp_path / "run"
    assert main(["train", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and err.startswith("dominoai: error: ")
    assert not out.exists()


def test_train_writes_a_run_and_resumes(tmp_path, capsys):
    pytest.importorskip("optax", reason="dominoai train needs the [learn] extra (jax, optax)")
    import pandas as pd
    out = tmp_path / "run"
    args = ["train", "--variant", "block", "--teacher", "medium", "--deals", "3", "--epochs", "2",
            "--hidden", "16", "--batch", "16", "--out", str(out), "--no-progress"]
    assert main([*args, "--resume"]) == 0                     # nothing to resume: a new run, with a note
    first = capsys.readouterr()
    # (after it, on an empty cache, the notice of what is compiled first)
    assert first.err.startswith(f"dominoai: note: nothing to resume at --out {out} (no such folder): "
                                "training a new run\n")
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint.npz", "curve.png", "data-parts", "data.npz",
                                                      "log.parquet", "model.npz"]
    assert [p.name for p in (out / "data-parts").iterdir()] == ["part-0000000.npz"]    # 3 deals: one chunk
    m = load_model(out / "model.npz", preset="block", kind="policy")
    assert m.layers == (153, 16, 113) and m.header["teacher"] == "medium"
    assert m.name == "run" and m.players == 2             # named after its folder, not the shipped model
    assert m.header["training_command"].startswith("dominoai train --variant block --kind policy --deals 3 ")
    assert str(tmp_path) not in str(m.header)
    assert m.header["data"]["deals"] == 3 and m.header["data"]["hands"] == 6
    log = pd.read_parquet(out / "log.parquet")
    assert log["epoch"].tolist() == [1, 2] and set(log.columns) >= {"train_loss", "held_accuracy", "seconds"}
    assert f"({m.ident})" in first.out
    assert main(args) == 2                                     # the folder is in use
    assert "add --resume" in capsys.readouterr().err
    assert main([*args, "--resume"]) == 0                      # nothing left to train: the same model
    assert load_model(out / "model.npz").sha256 == m.sha256
    assert main([*args[:-3], "--deals", "4", "--out", str(out), "--resume", "--no-progress"]) == 2
    assert capsys.readouterr().err == (f"dominoai: error: {out / 'data.npz'} was made with other settings "
                                       "(--deals 3); give another --out\n")
    # fewer epochs than the checkpoint has trained: refused, naming the option; more go on training it
    fewer = [*args[:-3], "--epochs", "1", "--out", str(out), "--resume", "--no-progress"]
    assert main(fewer) == 2
    assert capsys.readouterr().err == (f"dominoai: error: {out / 'checkpoint.npz'} has trained 2 epochs, more than the "
                                       "1 of --epochs; give --epochs 2 or more (more go on training from it)\n")
    assert load_model(out / "model.npz").sha256 == m.sha256
    assert main([*args[:-3], "--epochs", "3", "--out", str(out), "--resume", "--no-progress"]) == 0
    assert pd.read_parquet(out / "log.parquet")["epoch"].tolist() == [1, 2, 3]
    assert load_model(out / "model.npz").sha256 != m.sha256
    assert "after 3 epochs" in capsys.readouterr().out
    # every setting of the checkpoint is named by its option, with the value it was trained with
    assert main([*args[:-3], "--epochs", "3", "--hidden", "8", "--learning-rate", "0.01", "--out", str(out),
                 "--resume", "--no-progress"]) == 2
    assert capsys.readouterr().err == (f"dominoai: error: {out / 'checkpoint.npz'} was made with other settings "
                                       "(--hidden 16, --learning-rate 0.001); resume with the same settings, or "
                                       "train in another folder\n")


def test_train_at_tables_of_three(tmp_path, capsys):
    """--players: the teacher plays at tables of three, the model records
    it, neural refuses it at a table of two and plays it at three, and a
    run resumed with another --players is refused naming the option."""
    pytest.importorskip("optax", reason="dominoai train needs the [learn] extra (jax, optax)")
    out = tmp_path / "three"
    args = ["train", "--variant", "block", "--players", "3", "--teacher", "medium", "--deals", "2", "--epochs", "1",
            "--hidden", "8", "--batch", "16", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    m = load_model(out / "model.npz", preset="block", kind="policy", players=3)
    assert m.players == 3 and m.header["data"]["hands"] == 6        # 2 deals x 3 rotations
    assert m.header["training_command"].startswith("dominoai train --variant block --players 3 --kind policy ")
    bot = make_bot(f"neural:model={out / 'model.npz'}")
    with pytest.raises(ModelError, match="^model 'three' was trained on 3-player hands of block, not 2-player "
                                         "ones; dominoai train --players 2 trains one for them$"):
        bot.act(Match("block", seed=1).new_hand().observe())
    obs = Match("block", players=3, seed=1).new_hand().observe()
    assert bot.act(obs).code in obs.legal_codes()
    capsys.readouterr()
    assert main([a for a in args if a not in ("--players", "3")] + ["--resume"]) == 2
    assert capsys.readouterr().err == (f"dominoai: error: {out / 'data.npz'} was made with other settings "
                                       "(--players 3); give another --out\n")
    assert main([*args, "--resume"]) == 0             # the same settings: nothing left to train
    assert load_model(out / "model.npz").sha256 == m.sha256


def test_train_a_value_network_at_tables_of_three(tmp_path, capsys):
    pytest.importorskip("optax", reason="dominoai train needs the [learn] extra (jax, optax)")
    from dominoai.learn.value import load_value_model
    out = tmp_path / "value3"
    assert main(["train", "--variant", "draw", "--players", "3", "--kind", "value", "--deals", "1", "--rollouts", "1",
                 "--epochs", "1", "--hidden", "8", "--out", str(out), "--no-progress"]) == 0
    said = capsys.readouterr()
    assert said.out.endswith(" after 1 epoch\n") and said.out.count("\n") == 1    # --no-progress: the closing line
    m = load_value_model(out / "model.npz", preset="draw")
    assert m.players == 3 and m.header["data"]["hands"] == 3
    assert m.header["training_command"].startswith("dominoai train --variant draw --players 3 --kind value ")


def test_a_changed_setting_is_named_by_its_option():
    """The refusal of a resumed run names each setting by the option that
    sets it; a setting without an option keeps the library's name."""
    from dominoai.cli import _train_usage
    from dominoai.learn.training import other_settings
    old = {"preset": "block", "players": 2, "rows": 40, "hidden": [16, 8], "temperature": 1.0,
           "keep_best": False, "value_warmup": 5}
    new = {"preset": "draw", "players": 3, "rows": 41, "hidden": [8], "temperature": 2.0, "keep_best": True,
           "value_warmup": 6}
    e = other_settings("the checkpoint in run", old, new, "resume with the same settings")
    assert str(_train_usage(e)) == ("the checkpoint in run was made with other settings (--variant block, "
                                    "--players 2, the dataset's rows 40, --hidden 16,8, --temperature 1, "
                                    "--keep-best off, value_warmup 5); resume with the same settings")
    assert str(e).startswith("the checkpoint in run was made with other settings (preset block, players 2, rows 40,")
    # a setting the file had no value for is left out while another is named
    e = other_settings("x", {"imitate": "choice", "temperature": None}, {"imitate": "values", "temperature": 2.0}, "h")
    assert str(_train_usage(e)) == "x was made with other settings (--imitate choice); h"


@pytest.mark.parametrize("args, words", [
    (["--variant", "draw", "--kind", "value", "--action-features"], "--action-features is an option of --kind policy, not of --kind value"),
    (["--variant", "draw", "--kind", "value", "--keep-best"], "--keep-best is an option of --kind policy, not of --kind value"),
    (["--variant", "draw", "--kind", "value", "--rollouts", "0"], "--rollouts: must be at least 1"),
    (["--variant", "draw", "--kind", "value", "--rollout-policy", "insane"], "invalid choice: 'insane'"),
    (["--variant", "draw", "--kind", "value", "--hidden", "8,x"], "--hidden must be positive integers"),
    (["--variant", "draw", "--kind", "critic"], "invalid choice: 'critic'"),
    (["--variant", "block", "--weight-decay", "-0.1"], "--weight-decay must be 0 or a positive number"),
    (["--variant", "block", "--held-out", "0", "--keep-best"],
     "--keep-best picks the epoch by its held-out loss: it needs --held-out above 0"),
    (["--variant", "draw", "--kind", "value", "--exact", "0", "--max-nodes", "500"],
     "--max-nodes is the exact solve's budget: it needs --exact above 0"),
    (["--variant", "block", "--name", "my model"], "--name 'my model' cannot name a model"),
    (["--variant", "block", "--name", "mine@2"], "--name 'mine@2' cannot name a model"),
    (["--variant", "block", "--imitate", "values", "--temperature", "0"], "--temperature must be a positive finite number"),
    (["--variant", "block", "--imitate", "value"], "invalid choice: 'value'"),
    (["--variant", "block", "--teacher", "hard", "--imitate", "values"],
     "--imitate 'values' learns the teacher's move values: 'hard' gives none (a search bot such as insane does)"),
    (["--variant", "block", "--temperature", "2"], "--temperature applies to --imitate values only"),
    (["--variant", "draw", "--kind", "value", "--imitate", "values"], "--imitate is an option of --kind policy"),
    # --target is the match's target (play, tournament), not an option of train
    (["--variant", "block", "--target", "values"], "unrecognized arguments: --target values"),
])
def test_train_kinds_refuse_bad_input(tmp_path, capsys, args, words):
    out = tmp_path / "run"
    assert main(["train", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.strip().count("\n") == 0
    assert not out.exists()


def test_train_a_value_network_on_tiny_data(tmp_path, capsys):
    pytest.importorskip("optax", reason="dominoai train needs the [learn] extra (jax, optax)")
    import pandas as pd

    from dominoai.learn.value import load_value_model
    out = tmp_path / "value"
    args = ["train", "--variant", "draw", "--kind", "value", "--deals", "2", "--rollouts", "2", "--epochs", "2",
            "--hidden", "8", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    assert sorted(p.name for p in out.iterdir()) == ["curve.png", "data.npz", "log.parquet", "model.npz",
                                                      "value-checkpoint.npz"]
    m = load_value_model(out / "model.npz", preset="draw")
    assert m.header["training_command"] == (
        "dominoai train --variant draw --kind value --deals 2 --teacher hard --rollouts 2 --rollout-policy random "
        "--exact 12 --max-nodes 20000 --epochs 2 --hidden 8 --batch 256 --learning-rate 0.001 --held-out 0.1 "
        "--seed 0")
    assert m.header["data"]["deals"] == 2 and m.header["data"]["hands"] == 4 and m.header["data"]["rows"] > 20
    log = pd.read_parquet(out / "log.parquet")
    assert log["epoch"].tolist() == [1, 2] and {"train_mse", "held_mse"} <= set(log.columns)
    assert f"({m.ident})" in capsys.readouterr().out
    assert main([*args, "--resume"]) == 0                      # nothing left to train: the same model
    assert load_value_model(out / "model.npz").sha256 == m.sha256
    assert main([*args[:-3], "--rollouts", "3", "--out", str(out), "--resume", "--no-progress"]) == 2
    assert capsys.readouterr().err == (f"dominoai: error: {out / 'data.npz'} was made with other settings "
                                       "(--rollouts 2); give another --out\n")


def test_the_model_name_and_a_shipped_one(tmp_path, capsys):
    """A trained model is named by --name or its folder; a shipped model's
    name is allowed (neural:model=NAME always names the shipped model, a
    trained one is given by its file) with a note."""
    import argparse

    from dominoai.cli import _model_name
    assert _model_name(argparse.Namespace(name=None, out=str(tmp_path / "runs" / "b-1"))) == "b-1"
    assert _model_name(argparse.Namespace(name="mine.v2", out=str(tmp_path))) == "mine.v2"
    assert capsys.readouterr().err == ""
    assert _model_name(argparse.Namespace(name=None, out=str(tmp_path / "block-policy"))) == "block-policy"
    assert capsys.readouterr().err.startswith("dominoai: note: a shipped model is also named 'block-policy'")
    assert make_bot("neural:model=block-policy").model_ident == load_model("block-policy").ident


def _interrupted(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize("made, kept", [(None, False), ("empty", True), ("earlier", True)])
def test_an_interrupted_run_leaves_no_empty_folder(tmp_path, capsys, monkeypatch, made, kept):
    """Ctrl-C before the first file: the folders the run made go; a folder
    the user made, or one holding an earlier run's files, stays as it was."""
    pytest.importorskip("optax", reason="dominoai train needs the [learn] extra (jax, optax)")
    import dominoai.learn.imitation as imitation
    monkeypatch.setattr(imitation, "generate", _interrupted)
    out = tmp_path / "runs" / "block" if made is None else tmp_path / "run"
    if made:
        out.mkdir()
    if made == "earlier":
        (out / "data-parts").mkdir()
        (out / "data-parts" / "part-0000000.npz").write_bytes(b"an earlier chunk")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert main(["train", "--variant", "block", "--teacher", "medium", "--deals", "3", "--out", str(out),
                 "--resume", "--no-progress"]) == 130
    err = capsys.readouterr().err
    # with nothing to resume in --out, a note says a new run is trained
    where = {None: "no such folder", "empty": "an empty folder"}.get(made)
    note = f"dominoai: note: nothing to resume at --out {out} ({where}): training a new run\n" if where else ""
    assert err.startswith(note + "dominoai: interrupted")
    # --resume is suggested only where an earlier run left something to resume
    assert ("--resume to continue" in err) == (made == "earlier")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert out.exists() == kept


def test_an_interrupted_run_beside_a_model_says_when_the_model_is_written(tmp_path, capsys, monkeypatch):
    """Ctrl-C in a folder that holds an earlier run's model: the model and
    the log there are not this run's yet, and the message says so."""
    pytest.importorskip("optax", reason="dominoai train needs the [learn] extra (jax, optax)")
    import dominoai.learn.imitation as imitation
    monkeypatch.setattr(imitation, "generate", _interrupted)
    out = tmp_path / "run"
    (out / "data-parts").mkdir(parents=True)
    (out / "data-parts" / "part-0000000.npz").write_bytes(b"an earlier chunk")
    (out / "model.npz").write_bytes(b"an earlier model")
    assert main(["train", "--variant", "block", "--teacher", "medium", "--deals", "3", "--out", str(out),
                 "--resume", "--no-progress"]) == 130
    assert capsys.readouterr().err == ("dominoai: interrupted (run the same command with --resume to continue; "
                                       "model.npz and log.parquet are written when it ends)\n")
    assert (out / "model.npz").read_bytes() == b"an earlier model"


def test_each_shipped_models_training_command_is_a_command_of_today():
    """A shipped model trained by ``dominoai train`` names a command that
    parses as ``train`` does now, for the model's own preset and kind (an
    option renamed since would be refused)."""
    import json
    import shlex

    from dominoai.cli import build_parser
    from dominoai.nets.model import shipped_models
    trained = {}
    for name, path in shipped_models().items():
        with np.load(path) as z:
            header = json.loads(str(z["header"][()]))
        words = shlex.split(header["training_command"])
        if words[:2] == ["dominoai", "train"]:
            trained[name] = header, words[2:]
    assert {"block-policy", "block-ppo", "draw-policy", "all_fives-policy", "kozel-policy"} <= set(trained)
    for name, (header, words) in trained.items():
        args = build_parser().parse_args(["train", *words, "--out", "run"])   # the command leaves --out out
        assert args.variant == header["preset"], name
        assert args.kind == ("ppo" if name.endswith("-ppo") else header["kind"]), name
