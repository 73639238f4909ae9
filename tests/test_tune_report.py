"""What ``dominoai tune`` tells its user: the summary (a named top of the
trials, the best by search and the validated winner told apart), the
figures of a study (title, tick labels, the importance caveat), the resume
hint after Ctrl-C, the cap on worker processes and the time limit
(``max_ms``).

The games are replaced by a planted objective (``play_chunk``): a setting
with ``worlds=w`` scores ``w / 100`` points per hand on every deal of the
search and takes ``w / 100`` ms per decision, so every number the tuner
reports is known by hand and nothing depends on the machine's speed.
"""
from __future__ import annotations

import re
import shlex

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import dominoai.tune.study as study_mod  # noqa: E402
import dominoai.tune.validation as validation_mod  # noqa: E402
from dominoai.cli import main  # noqa: E402
from dominoai.tune import load_study, tune  # noqa: E402
from dominoai.tune.objective import PROBE, SEARCH, VALIDATE, stage_seed  # noqa: E402

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

FIX = ("rollouts=1,exact=0,policy_weight=4,rollout_policy=random,hard_plies=0,hard_prior=0,"
       "sharp_weight=0.3,resample=1")
KW = dict(variant="block", bot="insane", opponents=["easy"], space="worlds=1..400", fix=FIX)
ARGS = ["--variant", "block", "--bot", "insane", "--opponents", "easy", "--space", "worlds=1..400",
        "--fix", FIX]


def worlds(spec: str) -> int:
    m = re.search(r"worlds=(\d+)", spec)
    return int(m.group(1)) if m else 0


class Planted:
    """A stand-in for :func:`~dominoai.tune.objective.play_chunk`: in the
    search, ``w / 100`` points per hand on every deal (2 hands per deal) and
    ``w / 100`` ms per decision; in the validation, the ``i``-th candidate
    replayed gets ``validation[i]`` (per-deal differences, cycled).
    ``interrupt_at``: raise KeyboardInterrupt at that search call (1-based)."""

    def __init__(self, validation=(), interrupt_at=None, seed=0):
        self.seed = seed
        self.calls = []
        self.validation = list(validation)
        self.interrupt_at = interrupt_at
        self.search_calls = 0

    def __call__(self, variant, players, spec, opponent, deals, seed, jobs=1, progress=False):
        stage = ("probe" if seed == stage_seed(self.seed, PROBE, 0) else
                 "validate" if seed == stage_seed(self.seed, VALIDATE, 0) else "search")
        assert stage != "search" or seed in [stage_seed(self.seed, SEARCH, k) for k in range(10)]
        self.calls.append((stage, spec, deals, jobs))
        w = worlds(spec)
        ms = np.full(2 * deals, w / 100)
        if stage == "validate":
            i = sum(1 for c in self.calls if c[0] == "validate") - 1
            d = np.resize(np.asarray(self.validation[i], float), deals)
            return d, ms, 0.0, np.full(2 * deals, 0.5)
        if stage == "search":
            self.search_calls += 1
            if self.search_calls == self.interrupt_at:
                raise KeyboardInterrupt
        return np.full(deals, w / 100), ms, 0.0, np.full(2 * deals, 0.5)


@pytest.fixture
def planted(monkeypatch):
    def plant(**kw):
        p = Planted(**kw)
        monkeypatch.setattr(study_mod, "play_chunk", p)
        monkeypatch.setattr(validation_mod, "play_chunk", p)
        return p
    return plant


# ---------------------------------------------------------------- the summary
def test_summary_names_its_top_the_best_by_search_and_the_validated_winner(planted, tmp_path):
    """The best candidate by search fails its validation (differences of
    +-2 around 0.1), the second passes (+1 +- 0.1 on every deal): the
    winner is the second, and the summary says which is which."""
    planted(validation=[[2.1, -1.9], [1.1, 0.9]])
    res = tune(**KW, seed=0, trials=8, hands=8, chunk=8, top=2, validate_hands=20,
               study=tmp_path / "s.db", progress=False)
    df = res.trials
    complete = df[df["state"] == "COMPLETE"].sort_values(["value", "number"], ascending=[False, True])
    assert len(complete) == 8 and len(set(complete["spec"])) >= 2
    cands = list(dict.fromkeys(complete["spec"]))[:2]
    assert res.best_spec == cands[0] and res.verdict.spec == cands[1] and res.verdict.accepted
    first = {s: int(n) for n, s in zip(complete["number"][::-1], complete["spec"][::-1])}
    lines = res.summary().splitlines()
    assert lines[0] == "8 trials finished (0 pruned, 0 failed)"
    assert lines[1] == ("top 5 of 8 complete trials, best first, by points per hand vs the pool on "
                        "the search's deals:")
    assert [int(x.split()[0][1:]) for x in lines[2:7]] == list(complete["number"][:5])
    assert [float(x.split()[1]) for x in lines[2:7]] == [worlds(s) / 100 for s in complete["spec"][:5]]
    best = worlds(cands[0]) / 100
    assert lines[7] == f"best by search: #{first[cands[0]]} {cands[0]} ({best:+.3f} points/hand vs the pool)"
    assert lines[8] == f"validated winner: {cands[1]} (#{first[cands[1]]} of the search, not its best)"
    assert lines[9] == f"validation: {res.verdict.line}"
    assert res.verdict.line.startswith(f"{cands[1]} vs defaults: +1.00 [")
    assert len(lines) == 10


def test_summary_when_the_best_validates_or_nothing_is_validated(planted, tmp_path):
    planted(validation=[[1.1, 0.9]])
    res = tune(**KW, seed=0, trials=3, hands=8, chunk=8, top=1, validate_hands=20, progress=False)
    lines = res.summary().splitlines()
    assert lines[1] == ("all 3 complete trials, best first, by points per hand vs the pool on the "
                        "search's deals:")
    assert lines[-2] == f"validated winner: {res.best_spec} (the best by search)"
    planted()
    res = tune(**KW, seed=0, trials=3, hands=8, chunk=8, top=1, validate_hands=0, progress=False)
    assert res.summary().splitlines()[-1] == "validated winner: none (not validated)"
    planted(validation=[[2.1, -1.9]])
    res = tune(**KW, seed=0, trials=3, hands=8, chunk=8, top=1, validate_hands=20, progress=False)
    assert res.summary().splitlines()[-2:] == ["validated winner: none: keep the defaults",
                                               f"validation: {res.verdict.line}"]
    assert "not significantly better: keep the defaults" in res.verdict.line


# ---------------------------------------------------------------- the time limit
def test_a_setting_over_max_ms_is_infeasible_and_far_over_stops_early(planted, tmp_path):
    """``max_ms=1``, worlds from 50 to 200: ``w / 100`` ms per decision is
    feasible up to w = 100;
    over it the trial is played to the end but infeasible; over 1.5 ms
    (w > 150) it stops after its first chunk, ``stopped == "too slow"``.
    The constraint stored for the sampler is ``ms - max_ms``. The best
    feasible setting wins although slower ones score more."""
    p = planted()
    res = tune(**dict(KW, space="worlds=50..200"), seed=0, trials=5, hands=12, chunk=4, max_ms=1.0,
               top=1, validate_hands=0, study=tmp_path / "t.db", progress=False)
    # the time-limit probe played the cheapest setting (50 worlds) on 4 deals, first
    assert p.calls[0] == ("probe", "insane:worlds=50,rollouts=1,rollout_policy=random,exact=0,"
                          "policy_weight=4.0", 4, 1)
    df = res.trials
    assert set(df["state"]) == {"COMPLETE"} and len(df) == 5
    w = df["spec"].map(worlds)
    kinds = {"feasible": w <= 100, "over": (w > 100) & (w <= 150), "far over": w > 150}
    assert all(k.any() for k in kinds.values()), sorted(w)   # the seed samples all three
    np.testing.assert_allclose(df["ms_per_decision"], w / 100)
    assert (df["feasible"] == kinds["feasible"]).all()
    far = kinds["far over"]
    assert (df.loc[far, "stopped"] == "too slow").all() and (df.loc[far, "deals"] == 4).all()
    assert (df.loc[~far, "stopped"] == "").all() and (df.loc[~far, "deals"] == 12).all()
    study, _ = load_study(tmp_path / "t.db")
    for t in study.trials:
        ms = worlds(t.user_attrs["start"]["spec"]) / 100
        assert t.user_attrs["constraint"] == pytest.approx([ms - 1.0])
    fastest_best = df[kinds["feasible"]].sort_values("value", ascending=False)["spec"].iloc[0]
    assert res.best_spec == fastest_best and worlds(res.best_spec) == w[kinds["feasible"]].max()
    assert res.trials["value"].max() > worlds(res.best_spec) / 100
    # the history marks the trials over the limit, and the best so far is the feasible best
    import matplotlib.pyplot as plt

    from dominoai.tune.plots import plot_history
    ax = plot_history(df, plt.figure().gca())
    lines = {x.get_label(): x for x in ax.get_lines()}
    slow = lines["too slow (over the time limit)"]
    assert sorted(slow.get_xdata()) == sorted(df.loc[~df["feasible"], "number"])
    step = lines["best so far (within the time limit)"]
    assert max(step.get_ydata()) == pytest.approx(worlds(res.best_spec) / 100)
    assert max(step.get_xdata()) == 4                       # drawn on to the last trial
    plt.close("all")
    # the summary lists the feasible trials only, and says how many were too slow
    lines = res.summary().splitlines()
    assert lines[1] == ("all 3 complete trials within the time limit (2 more too slow), best first, "
                        "by points per hand vs the pool on the search's deals:")
    assert [worlds(x.split()[-1]) for x in lines[2:5]] == sorted(w[kinds["feasible"]], reverse=True)
    assert lines[5].startswith(f"best by search: #") and lines[5].split()[4] == res.best_spec


# ---------------------------------------------------------------- Ctrl-C
def test_ctrl_c_prints_the_command_that_resumes(planted, tmp_path, capsys):
    path = tmp_path / "r.db"
    argv = ["tune", *ARGS, "--seed", "0", "--trials", "4", "--hands", "8", "--chunk", "4",
            "--validate-hands", "0", "--study", str(path), "--no-progress"]
    p = planted(interrupt_at=5)   # two trials of two chunks each, then Ctrl-C in the third
    assert main(argv) == 130
    out, err = capsys.readouterr()
    command = "dominoai " + shlex.join(argv)
    assert err == f"dominoai: interrupted; resume the study {path} with: {command}\n"
    assert out == ""
    _, df = load_study(path)
    assert list(df["state"]) == ["COMPLETE", "COMPLETE", "FAIL"]
    # the command it names resumes the study: the two finished trials are kept
    p.interrupt_at = None
    words = shlex.split(err.split(" with: ", 1)[1])
    assert words[0] == "dominoai" and main(words[1:]) == 0
    _, df = load_study(path)
    assert list(df["state"]) == ["COMPLETE", "COMPLETE", "FAIL", "COMPLETE", "COMPLETE"]
    assert list(df["run"]) == [1, 1, 1, 2, 2]
    # without a study file there is nothing to resume, and it says so
    planted(interrupt_at=1)
    argv = [a for a in argv if a not in ("--study", str(path))]
    assert main(argv) == 130
    assert capsys.readouterr().err == ("dominoai: interrupted; the study was kept in memory "
                                       "(no --study), so there is nothing to resume\n")


# ---------------------------------------------------------------- workers
def test_jobs_above_the_cores_are_capped_with_one_note(planted, monkeypatch, capsys):
    import os
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    argv = ["tune", *ARGS, "--seed", "0", "--trials", "2", "--hands", "4", "--validate-hands", "0",
            "--no-progress"]
    p = planted()
    assert main([*argv, "--jobs", "16"]) == 0
    err = capsys.readouterr().err
    assert err == ("dominoai: note: 16 worker processes asked for (--jobs), but this machine has "
                   "2 cores: running 2\n")
    assert {c[3] for c in p.calls if c[0] == "search"} == {2}
    for jobs in ("2", "-1"):
        p = planted()
        assert main([*argv, "--jobs", jobs]) == 0
        assert capsys.readouterr().err == ""
        assert {c[3] for c in p.calls if c[0] == "search"} == {int(jobs)}


# ---------------------------------------------------------------- figures
@pytest.fixture
def study_file(planted, tmp_path):
    planted(validation=[[1.1, 0.9]])
    path = tmp_path / "fig.db"
    res = tune(**KW, seed=0, trials=6, hands=8, chunk=4, top=1, validate_hands=20, study=path,
               progress=False)
    return path, res


def test_study_figure_title_names_deals_seed_and_verdict(study_file):
    from dominoai.tune.plots import plot_study
    path, res = study_file
    fig = plot_study(path)
    title = fig._suptitle.get_text().splitlines()
    assert title[0] == ("tune insane in block, 2 players vs easy · 8 deals per trial and opponent, "
                        "every seat rotation · seed 0")
    pruned = int((res.trials["state"] == "PRUNED").sum())
    assert title[1] == f"6 trials finished ({pruned} pruned) · no time limit"
    assert " ".join(title[2:]) == f"verdict: {res.verdict.line}"
    assert res.verdict.accepted
    # the title fits in the image
    fig.canvas.draw()
    box = fig._suptitle.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.x1 and box.y1 <= fig.bbox.y1


def test_importance_of_few_trials_carries_a_caveat(study_file):
    import matplotlib.pyplot as plt
    import optuna
    from optuna.distributions import FloatDistribution
    from optuna.trial import create_trial

    from dominoai.tune.plots import FEW_TRIALS, plot_importance
    study, _ = load_study(study_file[0])
    ax = plot_importance(study, plt.figure().gca())
    n = sum(t.state.name == "COMPLETE" for t in study.trials)
    assert ax.get_title() == (f"parameter importance ({n} complete trials)\n"
                              "caveat: a rough guide; PED-ANOVA ranks reliably\n"
                              f"from about {FEW_TRIALS} trials (5 in its top 10%)")
    # from FEW_TRIALS complete trials on, no caveat: x matters, y does not
    many = optuna.create_study(direction="maximize")
    rng = np.random.default_rng(0)
    dist = {"x": FloatDistribution(0, 1), "y": FloatDistribution(0, 1)}
    for _ in range(FEW_TRIALS):
        x, y = rng.random(2)
        many.add_trial(create_trial(params={"x": x, "y": y}, distributions=dist, value=x))
    ax = plot_importance(many, plt.figure().gca())
    assert ax.get_title() == f"parameter importance ({FEW_TRIALS} complete trials)"
    bars = {t.get_text(): p.get_width() for t, p in zip(ax.get_yticklabels(), ax.patches)}
    assert bars["x"] > bars["y"]
    plt.close("all")


def _tick_labels(ax):
    """The x tick labels drawn (text and box), major and minor, in view."""
    fig = ax.figure
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    lo, hi = ax.get_xlim()
    return [(t.get_text(), t.get_window_extent(r))
            for t in ax.xaxis.get_majorticklabels() + ax.xaxis.get_minorticklabels()
            if t.get_visible() and t.get_text() and lo <= t.get_position()[0] <= hi]


@pytest.mark.parametrize("lo,hi,expect", [
    (4, 60, ["2", "5", "10", "20", "50"]),   # 2: the time limit drawn
    (0.3, 3, ["0.5", "1", "2"]),
    (0.01, 1000, None),
])
def test_log_time_axis_labels_do_not_overlap(lo, hi, expect):
    """The time axis of the strength plot, one third of the study figure:
    labels at 1, 2, 5 times a power of ten, plain numbers, none overlapping.
    (Matplotlib's default log labels, 2x10^0, 3x10^0, ... on the minor
    ticks, overlap on 4 to 60 ms.)"""
    import matplotlib.pyplot as plt

    from dominoai.tune.plots import plot_strength_time
    ms = np.geomspace(lo, hi, 6)
    trials = pd.DataFrame({"state": "COMPLETE", "ms_per_decision": ms, "value": np.arange(6.0),
                           "lo": np.arange(6.0) - 1, "hi": np.arange(6.0) + 1})
    fig, axes = plt.subplots(1, 3, figsize=(15, 5), layout="constrained")
    ax = plot_strength_time(trials, axes[2], 2.0)
    labels = _tick_labels(ax)
    text = [t for t, _ in labels]
    if expect is not None:
        assert text == expect
    assert 2 <= len(labels) <= 8
    overlaps = [(a[0], b[0]) for i, a in enumerate(labels) for b in labels[i + 1:] if a[1].overlaps(b[1])]
    assert overlaps == []
    plt.close(fig)
