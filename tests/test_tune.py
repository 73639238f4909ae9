"""The tuner: the space from the bots' declarations, a planted
optimum, resume after SIGKILL, determinism over jobs, every bad input.

Sizes are tiny: insane in Block against easy, where 200 worlds beat one
world by about 3.7 points per hand on 100 duplicate deals (seed 0:
+4.99 [3.78, 6.20] against +1.28 [0.06, 2.49]), far outside the noise.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai.bots.base import bot_params
from dominoai.cli import main
from dominoai.tune import make_space, spec_of, tune
from dominoai.tune.objective import SEARCH, VALIDATE, stage_seed
from notebook_runner import has_figure, run_notebook, text_of

ROOT = Path(__file__).resolve().parents[1]
# one searched dimension, worlds 1 or 200: the others frozen at their defaults
PLANT = dict(variant="block", bot="insane", opponents=["easy"], space="worlds=1|200",
             fix="rollouts=1,exact=0,policy_weight=4,rollout_policy=random,hard_plies=0,"
                 "hard_prior=0,sharp_weight=0.3,resample=1", seed=0)
PLANT_ARGS = ["--variant", "block", "--bot", "insane", "--opponents", "easy", "--space", "worlds=1|200",
              "--fix", "rollouts=1,exact=0,policy_weight=4,rollout_policy=random,hard_plies=0,"
              "hard_prior=0,sharp_weight=0.3,resample=1",
              "--seed", "0"]


# ---------------------------------------------------------------- the space
def test_space_from_declarations():
    p = bot_params("insane")["worlds"]
    assert (p.low, p.high, p.log, p.range_text()) == (25, 1600, True, "25..1600:log")
    dims, fixed = make_space("insane", "", "")
    # the declared ranges; the hard_<name> weights only when asked for
    assert list(dims) == ["worlds", "rollouts", "rollout_policy", "exact", "policy_weight"]
    # declared but searched only when named, like the hard_<name> weights
    named, _ = make_space("insane", "hard_prior=0..0.5,resample", "")
    assert named["hard_prior"].text() == "0.0..0.5" and named["resample"].text() == "1..8"
    named, _ = make_space("insane", "hard_void,sharp_weight", "")    # bare: the declared range
    assert named["hard_void"].text() == "0.0..18.0" and named["sharp_weight"].text() == "0.1..1.0:log"
    named, _ = make_space("insane", "hard_plies", "")    # idle but with hard rollouts
    assert named["hard_plies"].text() == "0..12"
    named, _ = make_space("insane", "value_plies", "")   # the value network's leaf
    assert named["value_plies"].text() == "0..8"
    named, _ = make_space("insane", "fusion,halving", "")    # a bare switch: both values
    assert named["fusion"].text() == named["halving"].text() == "True|False"
    with pytest.raises(ValueError, match="no declared range"):
        make_space("insane", "max_nodes", "")
    # neural rollouts only when named: a policy network exists for some presets only
    assert dims["rollout_policy"].choices == ("random", "medium", "hard", "auto")
    named, _ = make_space("insane", "rollout_policy=random|neural", "")
    assert named["rollout_policy"].choices == ("random", "neural")
    dims, fixed = make_space("insane", "worlds=50..800:log,hard_void=0..12", ["rollouts=2", "exact=4"])
    assert dims["worlds"].text() == "50..800:log" and dims["hard_void"].text() == "0.0..12.0"
    assert fixed == {"rollouts": 2, "exact": 4} and "rollouts" not in dims
    assert list(make_space("hard", "", "")[0]) == list(bot_params("hard"))
    # defaults drop out, except where a preset has its own default (worlds in draw)
    assert spec_of("insane", {"worlds": 200, "rollouts": 2, "hard_void": 6.0}) == "insane:worlds=200,rollouts=2"
    assert spec_of("insane", {"inference": True, "hard_void": 6.0}) == "insane"
    # Kozel has a policy_weight of its own, so a policy_weight given stays
    assert spec_of("insane", {"policy_weight": 4.0, "hard_void": 6.0}) == "insane:policy_weight=4.0"
    assert spec_of("insane", {"hard_void": 3.5}) == "insane:hard_void=3.5"


def test_insane_hard_weights_reach_its_rollouts():
    from dominoai.bots import make_bot
    from dominoai.bots.hard import HardBot
    b = make_bot("insane:hard_void=1.5,hard_replace=2")
    w = HardBot(void=1.5, replace=2).weight_vector
    assert b.hard_weights.tolist() == w.tolist()
    assert make_bot("insane").hard_weights.tolist() == HardBot().weight_vector.tolist()


def test_stage_seeds_are_distinct():
    seeds = {stage_seed(0, s, k) for s in (SEARCH, VALIDATE) for k in range(50)}
    assert len(seeds) == 100


def test_bots_command(capsys):
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    assert {"easy", "medium", "hard", "insane", "omniscient"} <= {ln.split()[0] for ln in out.splitlines()}
    assert main(["bots", "insane"]) == 0
    table, _, per_preset = capsys.readouterr().out.partition("\n\n")
    # a row starts at the line's first column; wrapped descriptions are indented
    rows = {ln.split()[0]: ln.split() for ln in table.splitlines()[1:] if ln and not ln[0].isspace()}
    assert rows["worlds"][1:5] == ["int", "200", ">=1", "25..1600:log"]
    assert rows["hard_void"][1:6] == ["float", "6.0", "any", "0.0..18.0", "(on"]
    # what a spec may set, beside the tune range: bounds the bot checks itself too
    assert rows["hard_prior"][3:5] == ["0.0..1.0", "0.0..0.9"]
    assert rows["policy_weight"][3] == "0|>=0.1" and rows["fusion"][3] == "true|false"
    from dominoai.bots.pimc.bots import TUNED_DEFAULTS
    listed = dict(ln.strip().split(": ", 1) for ln in per_preset.splitlines()[1:])
    assert {p: v for p, v in listed.items() if p != "draw"} == {
        p: ",".join(f"{k}={v}" for k, v in d.items()) for p, d in TUNED_DEFAULTS.items()
        if p != "draw"}
    # a switch as a spec writes it (lower case)
    assert listed["draw"] == "worlds=378,rollouts=2,rollout_policy=random,exact=12,draw_weight=true"
    assert main(["bots", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    # the listing names the peer bots too, which load on first use
    assert "insane" in err and "ismcts" in err and "pydominoes-pab" in err
    assert main(["bots", "insane:exact=-3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give a bot's name" in err and "'insane'" in err


# ---------------------------------------------------------------- a planted optimum
@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    path = tmp_path_factory.mktemp("plant") / "plant.db"
    res = tune(**PLANT, trials=4, hands=100, chunk=50, study=path, top=1, validate_hands=20,
               progress=False)
    return path, res


def test_planted_optimum_ranks_first(planted):
    path, res = planted
    df = res.trials
    assert set(df["state"]) == {"COMPLETE"} and len(df) == 4
    # the parameters some preset gives its own default (worlds, rollouts, exact in
    # draw, policy_weight in kozel) stay in the spec when set
    w200 = "insane:worlds=200,rollouts=1,rollout_policy=random,exact=0,policy_weight=4.0"
    w1 = "insane:worlds=1,rollouts=1,rollout_policy=random,exact=0,policy_weight=4.0"
    assert set(df["spec"]) == {w200, w1}
    assert res.best_spec == w200
    v = df.groupby("spec")["value"].agg(["min", "max"])
    # common random numbers: the same setting on the same deals scores the same,
    # so a repeat takes the earlier trial's result without playing
    assert (v["min"] == v["max"]).all()
    rep = df[df["repeat_of"] >= 0]
    assert len(rep) == 2 and (rep["seconds"] == 0).all()
    first = df.set_index("number")
    for _, r in rep.iterrows():
        assert first.loc[r["repeat_of"], "spec"] == r["spec"]
        assert first.loc[r["repeat_of"], "repeat_of"] == -1
        assert r["value"] == first.loc[r["repeat_of"], "value"]
    assert v.loc[w200, "min"] > v.loc[w1, "max"] + 2
    assert (df["deals"] == 100).all() and (df["ms_per_decision"] > 0).all()
    assert Path(res.trials_path).exists()
    assert res.verdict is not None and res.verdict.deals == 20
    assert res.verdict.line.startswith(w200 + " vs defaults: ")


def test_plots_and_notebook_api(planted, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from dominoai.tune.plots import plot_study
    fig = plot_study(planted[0], tmp_path / "study.png")
    assert len(fig.axes) == 3 and (tmp_path / "study.png").stat().st_size > 1000


# ---------------------------------------------------------------- bad input
def _bytes(p: Path):
    return p.read_bytes() if p.exists() else None


BAD = [
    (["--bot", "nosuch"], "unknown bot"),
    (["--bot", "insane:worlds=50"], "--bot takes a bot's name ('insane'); freeze its parameters with --fix "
                                    "('worlds=50') or search them with --space"),
    (["--space", "speed=1..2"], "no parameter 'speed'"),
    (["--fix", "speed=3"], "no parameter 'speed'"),
    (["--space", "wolds=50..100"], "no parameter 'wolds' (did you mean 'worlds'?)"),
    (["--fix", "wolds=3"], "no parameter 'wolds' (did you mean 'worlds'?)"),
    (["--space", "worlds=50..50"], "empty or inverted"),
    (["--space", "worlds=800..50"], "empty or inverted"),
    (["--space", "worlds=0..50"], "worlds must be >= 1"),
    (["--space", "policy_weight=0.01..1"], "outside what the bot accepts"),
    (["--space", "rollout_policy=random"], "empty"),
    (["--trials", "0"], "--trials must be"),
    (["--max-ms", "0.000000001"], "no setting can meet it"),
    (["--out", "trials.txt"], "must end in .csv or .parquet"),
]


def _tune_args(study, extra=()):
    args = ["tune", *PLANT_ARGS, "--trials", "4", "--hands", "100", "--chunk", "50",
            "--study", str(study), "--no-progress"]
    if "--bot" in extra:  # the planted space names insane's parameters
        args = args[:1] + ["--variant", "block", "--opponents", "easy"] + args[args.index("--trials"):]
    if "--space" in extra:  # a parameter given a range is not also fixed
        name = extra[extra.index("--space") + 1].split("=")[0]
        i = args.index("--fix") + 1
        args[i] = ",".join(x for x in args[i].split(",") if not x.startswith(name + "="))
    return [*args, *extra]


@pytest.mark.parametrize("extra,needle", BAD, ids=[b[1] for b in BAD])
def test_bad_input_one_line_exit_2_study_unchanged(planted, tmp_path, capsys, extra, needle):
    fresh = tmp_path / "new.db"
    assert main(_tune_args(fresh, extra)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err, err
    assert not fresh.exists()
    # the same against the existing study: refused, the file byte-identical
    path = planted[0]
    before = _bytes(path)
    assert main(_tune_args(path, extra)) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert _bytes(path) == before


@pytest.mark.parametrize("change", [["--variant", "draw"], ["--opponents", "medium"], ["--hands", "60"]])
def test_study_for_another_setting_is_refused(planted, capsys, change):
    path = planted[0]
    before = _bytes(path)
    args = ["tune", *PLANT_ARGS, "--trials", "4", "--hands", "100", "--chunk", "50",
            "--study", str(path), "--no-progress"]
    i = args.index(change[0])
    args[i + 1] = change[1]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a study for another setting" in err, err
    assert _bytes(path) == before


def test_another_bot_and_unwritable_paths_are_refused(planted, tmp_path, capsys):
    path = planted[0]
    before = _bytes(path)
    assert main(["tune", "--variant", "block", "--bot", "hard", "--opponents", "easy", "--seed", "0",
                 "--trials", "4", "--hands", "100", "--chunk", "50", "--study", str(path)]) == 2
    assert "a study for another setting" in capsys.readouterr().err
    assert _bytes(path) == before
    afile = tmp_path / "afile"
    afile.write_text("x")
    for bad in (afile / "s.db", tmp_path):
        assert main(["tune", *PLANT_ARGS, "--trials", "1", "--hands", "4", "--study", str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--study" in err
    assert afile.read_text() == "x"
    notdb = tmp_path / "notes.db"
    notdb.write_text("x")
    assert main(["tune", *PLANT_ARGS, "--trials", "1", "--hands", "4", "--study", str(notdb)]) == 2
    assert "not a dominoai tune study" in capsys.readouterr().err
    assert notdb.read_text() == "x"
    # a study file that is not named as SQLite, and a trials table that cannot be
    # written, are refused before any trial is played (nothing is created)
    for extra, needle in ((["--study", str(tmp_path / "s.txt")], "end it in .db"),
                          (["--study", str(tmp_path / "t.db"), "--out", str(afile / "t.csv")], "--out")):
        assert main(["tune", *PLANT_ARGS, "--trials", "1", "--hands", "4", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
    assert not (tmp_path / "s.txt").exists() and not (tmp_path / "t.db").exists()


# ---------------------------------------------------------------- determinism
def _key(res):
    cols = ["number", "state", "value", "lo", "hi", "deals", "spec"]
    v = res.verdict
    return res.trials[cols].to_dict("records"), res.best_spec, (v.spec, v.mean, v.lo, v.hi, v.accepted)


def test_jobs_1_and_2_give_the_same_study(tmp_path):
    kw = dict(variant="block", bot="insane", opponents=["easy"], space="worlds=2..40:log",
              fix="rollouts=1,exact=0,policy_weight=4,rollout_policy=random", seed=3, trials=7,
              hands=24, chunk=8, top=2, validate_hands=16, progress=False)
    one = tune(jobs=1, study=tmp_path / "one.db", **kw)
    two = tune(jobs=2, study=tmp_path / "two.db", **kw)
    assert _key(one) == _key(two)
    # pruning (MedianPruner after 5 trials) happens the same way; every trial played the same chunk seeds
    from dominoai.tune import load_study
    study, _ = load_study(tmp_path / "one.db")
    for t in study.trials:
        r = t.user_attrs["result"]
        assert r["chunks"] == [stage_seed(3, SEARCH, k) for k in range(r["deals"] // 8)]


# ---------------------------------------------------------------- resume
def _finished(path: Path) -> int:
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            return con.execute("SELECT COUNT(*) FROM trials WHERE state IN ('COMPLETE', 'PRUNED')").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


# `python -m dominoai ARGS` whose optuna study, once two trials are finished and the
# third is asked for, writes the barrier file and waits there: the test kills it then
WAIT_AT_THE_THIRD_TRIAL = """
import pathlib, runpy, sys, time
import optuna
from optuna.trial import TrialState
barrier, ask = pathlib.Path(sys.argv[1]), optuna.study.Study.ask
def ask_then_wait(self, *a, **k):
    trial = ask(self, *a, **k)
    if len(self.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))) >= 2:
        barrier.write_text("two trials finished, the third asked for")
        time.sleep(3600)
    return trial
optuna.study.Study.ask = ask_then_wait
sys.argv = ["dominoai", *sys.argv[2:]]
runpy.run_module("dominoai", run_name="__main__", alter_sys=True)
"""


#: how long the first run may take to finish its two trials (its kernels come from
#: the cache): generous, it only turns a run that hangs into a failure
BARRIER_SECONDS = 1200


@pytest.mark.e2e
def test_resume_after_sigkill(tmp_path):
    path = tmp_path / "kill.db"
    barrier = tmp_path / "barrier"
    cmd = [sys.executable, "-m", "dominoai", "tune", "--variant", "block", "--bot", "insane",
           "--opponents", "easy", "--space", "worlds=10..40", "--fix", PLANT["fix"], "--seed", "0",
           "--trials", "6", "--hands", "40", "--chunk", "20", "--validate-hands", "0",
           "--study", str(path), "--no-progress"]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # compile here, once: the subprocesses then load every kernel from the cache
    from dominoai import get_rules
    from dominoai._compile import warm_up_tournament
    warm_up_tournament(get_rules("block"), ["insane", "easy"], progress=False)
    log = tmp_path / "first.log"
    with open(log, "w") as err:         # a file, not a pipe: a full pipe would stall the process
        proc = subprocess.Popen([sys.executable, "-c", WAIT_AT_THE_THIRD_TRIAL, str(barrier), *cmd[3:]],
                                env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + BARRIER_SECONDS
        while not barrier.exists():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, \
                f"two trials not finished in {BARRIER_SECONDS} s: {log.read_text()[-2000:]}"
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    first = _finished(path)
    assert first == 2                       # the third trial was asked for, not finished
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    from dominoai.tune import load_study
    study, df = load_study(path)
    fin = df[df["state"].isin(["COMPLETE", "PRUNED"])]
    assert len(fin) == 6 and df["number"].is_unique
    run1, run2 = df[df["run"] == 1], df[df["run"] == 2]
    # the first run's finished trials are kept, not replayed; the one in progress (if any) failed
    assert len(fin[fin["run"] == 1]) == first and len(fin[fin["run"] == 2]) == 6 - first
    assert set(run1["state"]) <= {"COMPLETE", "PRUNED", "FAIL"} and (run1["state"] == "FAIL").sum() <= 1
    assert set(df[df["state"] == "FAIL"]["run"]) <= {1} and (run2["state"] != "FAIL").all()
    assert run2["number"].min() > run1["number"].max()
    # a rerun of the finished study plays nothing more
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert len(load_study(path)[1]) == len(df)


# ---------------------------------------------------------------- notebook
@pytest.mark.e2e
def test_tuning_notebook_runs(tmp_path):
    outs = run_notebook("tuning.ipynb", tmp_path)
    text = text_of(outs)
    assert "6 trials finished" in text
    # the study went to a temporary folder, not beside the notebook
    study = Path(text.split("study: ", 1)[1].split("\n", 1)[0])
    assert study.name == "tuning-example.db"
    assert study.parent.name.startswith("dominoai-tuning-")
    assert study.parent.parent.resolve() == Path(tempfile.gettempdir()).resolve()
    assert list(tmp_path.iterdir()) == []
    assert has_figure(outs)


def test_a_trials_spec_drops_parameters_idle_under_the_rules():
    """A trial's spec is the bot it plays: hard_plies without hard rollouts,
    or fusion without the exact endgame, is left out; where it acts it stays."""
    from dominoai.rules import get_rules
    from dominoai.tune.space import spec_of

    block = get_rules("block")
    assert spec_of("insane", {"worlds": 86, "rollout_policy": "random", "hard_plies": 7,
                              "exact": 4}, block) == "insane:worlds=86,rollout_policy=random,exact=4"
    assert spec_of("insane", {"worlds": 86, "rollout_policy": "hard", "hard_plies": 7},
                   block) == "insane:worlds=86,rollout_policy=hard,hard_plies=7"
    assert spec_of("insane", {"fusion": True, "exact": 0}, block) == "insane:exact=0"
    assert spec_of("insane", {"worlds": 86, "hard_plies": 7}) == "insane:worlds=86,hard_plies=7"


def test_verdict_line_says_worse_when_the_interval_is_below_zero():
    from dominoai.tune.validation import _line

    worse = _line("insane:worlds=25", -1.11, -2.12, -0.11, 1000, False, 1, 0.95)
    assert worse.endswith("fresh deals: significantly worse: keep the defaults")
    even = _line("insane:worlds=25", -0.2, -1.1, 0.7, 1000, False, 1, 0.95)
    assert even.endswith(": not significantly better: keep the defaults")
    assert _line("insane:worlds=400", 0.9, 0.2, 1.6, 1000, True, 1, 0.95).endswith(": better")


# ---------------------------------------------------------------- the settings as one value
def test_study_spec_is_checked_once_and_frozen(tmp_path):
    import dataclasses

    from dominoai.errors import InputError
    from dominoai.tune import StudySpec

    spec = StudySpec(**PLANT, trials=2, hands=10)
    assert spec.opponents == ("easy",) and spec.chunk == 2 and list(spec.dims) == ["worlds"]
    assert spec.ident["hands"] == 10 and spec.ident["opponents"] == ["easy"]
    assert StudySpec(opponents="easy, hard:seed=3").opponents == ("easy", "hard:seed=3")
    # the validation's deals default to ten times the trial's, at most 4,000, as on the command line
    assert spec.validate_hands == 100 and StudySpec(**PLANT, hands=1000).validate_hands == 4000
    assert StudySpec(**PLANT, hands=10, validate_hands=0).validate_hands == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.trials = 3
    with pytest.raises(TypeError, match="give no other argument"):
        tune(spec, trials=3)
    bad = [(dict(trials=0), "trials", "trials must be an integer of at least 1 (got 0)"),
           (dict(hands=True), "hands", "hands must be an integer of at least 2 (got True)"),
           (dict(validate_hands=-1), "validate_hands", "validate_hands must be an integer of at least 0"),
           (dict(jobs=-2), "jobs", "jobs must be a positive number of processes or -1 (got -2)"),
           (dict(hands=8, chunk=9), "chunk", "chunk must be between 1 and hands (8) (got 9)"),
           (dict(max_ms=0), "max_ms", "max_ms must be a positive number of milliseconds (got 0)"),
           (dict(opponents=""), "opponents", "opponents needs at least one bot spec"),
           (dict(opponents="easy,easy"), "opponents", "opponents lists a bot twice (easy, easy)"),
           (dict(out="t.txt"), "out", "out t.txt: the trials table must end in .csv or .parquet"),
           (dict(study="s.txt"), "study", "study s.txt: the study is an SQLite file: end it in .db"),
           (dict(space="worlds=9..3"), "space", "space worlds=9..3: the range is empty or inverted"),
           (dict(fix="worlds"), "fix", "fix worlds: write NAME=VALUE")]
    for kw, field, text in bad:
        with pytest.raises(InputError) as e:
            StudySpec(**{**PLANT, "space": "", "fix": "", **kw})
        assert e.value.field == field and str(e.value).startswith(text), (kw, str(e.value))
    # the command line names the option instead
    assert e.value.worded(lambda f: "--" + f) == "--fix worlds: write NAME=VALUE"
