"""The tournament and plot commands: the main job from the command line."""
import os
import subprocess
import sys

import pandas as pd
import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai.cli import main, split_bot_specs


def test_split_bot_specs():
    assert split_bot_specs("easy,insane:worlds=400,seed=3,hard") == [
        "easy", "insane:worlds=400,seed=3", "hard"]
    assert split_bot_specs("hard:w_heavy=1+w_spread=0, medium") == ["hard:w_heavy=1,w_spread=0", "medium"]
    # a '+' inside a number is not a parameter break
    assert split_bot_specs("hard,insane:policy_weight=1e+1+worlds=50") == [
        "hard", "insane:policy_weight=1e+1,worlds=50"]


def test_tournament_writes_results_and_plot(tmp_path, capsys):
    out = tmp_path / "r.parquet"
    code = main(["tournament", "--variant", "block", "--bots", "easy,medium", "--hands", "30",
                 "--seed", "4", "--out", str(out), "--no-progress", "--records", str(tmp_path / "rec")])
    assert code == 0
    text = capsys.readouterr().out
    assert "easy v medium" in text and "Ratings" in text
    df = pd.read_parquet(out)
    # 30 deals x 2 seat rotations x 2 seats = 120 rows, every deal played both ways
    assert len(df) == 120
    assert df.groupby("deal")["rotation"].nunique().eq(2).all()
    assert not (tmp_path / "r.parquet.parts").exists()
    assert len(os.listdir(tmp_path / "rec")) == 60
    fig = tmp_path / "fig.png"
    assert main(["plot", str(out), "--out", str(fig)]) == 0
    assert fig.stat().st_size > 1000


def test_tournament_records_its_command_line(tmp_path, capsys):
    from dominoai.tournament import load_results
    out = tmp_path / "r.csv"
    argv = ["tournament", "--variant", "block", "--bots", "easy,medium", "--hands", "3", "--seed", "8",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    p = load_results(out).provenance
    assert p["command"] == "dominoai " + " ".join(argv)
    assert p["seed"] == 8 and p["bots"] == ["easy", "medium"] and p["rules"]["preset"] == "block"


def test_tournament_analysis_in_the_records(tmp_path, capsys):
    import json
    rec = tmp_path / "rec"
    argv = ["tournament", "--variant", "draw", "--bots", "hard,insane:worlds=8", "--hands", "1",
            "--seed", "2", "--records", str(rec), "--analysis", "--no-progress"]
    assert main(argv) == 0
    moves = [m for f in sorted(rec.glob("*.json")) for h in json.loads(f.read_text())["hands"]
             for m in h["moves"]]
    assert any("analysis" in m for m in moves)
    assert all(e["n"] == 8 for m in moves for e in m.get("analysis", []))
    page = tmp_path / "index.html"
    assert main(["view", str(rec), "--out", str(page)]) == 0


@pytest.mark.parametrize("argv,msg", [
    (["tournament", "--bots", "easy,medium", "--analysis"], "--analysis stores the move values in the records"),
    (["tournament", "--variant", "nope", "--bots", "easy,medium"], "unknown preset"),
    (["tournament", "--bots", "easy,foo"], "unknown bot 'foo'"),
    (["tournament", "--bots", "easy,insane+worlds=5"],
     "unknown bot 'insane+worlds=5'; parameters go after ':' (insane:worlds=400)"),
    (["tournament", "--bots", "easy:x=1,medium"], "no parameter 'x'"),
    (["tournament", "--bots", "easy"], "at least two"),
    (["tournament", "--bots", "easy,medium", "--hands", "0"], "at least 1"),
    (["tournament", "--bots", "easy,medium", "--out", "x.txt"], "--out x.txt: the results file must end in .parquet"),
    (["tournament", "--bots", "easy,medium", "--out", ""], "--out: give the results file's name"),
    (["tournament", "--bots", "easy,insane:draw_histroy=true"],
     "has no parameter 'draw_histroy' (did you mean 'draw_history'?)"),
    (["plot", "missing.parquet", "--out", "f.png"], "no such file: missing.parquet"),
    (["tournament", "--bots", "easy,,medium"], "empty spec"),
    (["tournament", "--bots", "easy,insane:"], "':' with no parameters"),
    (["tournament", "--bots", "easy,medium", "--hands", "2", "--target", "50"], "needs --matches"),
    # (inference has no per-preset default, so inference=true is plain insane;
    # policy_weight=4.0 is not since Kozel's is 3)
    (["tournament", "--bots", "insane:inference=true,insane,hard"],
     "bot 'insane' is listed twice (the same bot as 'insane:inference=true' under "),
    (["tournament", "--bots", "easy,insane:policy_weight=0.01"], "must be 0 (off) or at least 0.1"),
])
def test_bad_input_exits_2_with_one_line(argv, msg, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dominoai: error:") and msg in err
    assert not list(tmp_path.iterdir())  # nothing half-written


@pytest.mark.e2e
def test_tournament_subprocess_no_traceback(tmp_path):
    p = subprocess.run([sys.executable, "-m", "dominoai", "tournament", "--bots", "easy,nobot"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr


def _err(capsys):
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dominoai: error:")
    return err


def test_output_paths_named_as_given(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    base = ["tournament", "--bots", "easy,medium", "--hands", "2", "--no-progress"]
    # --out under a regular file: the error names --out, not the parts folder beside it
    assert main(base + ["--out", "afile/r.parquet"]) == 2
    err = _err(capsys)
    assert "--out afile/r.parquet:" in err and ".parts" not in err
    # a folder that cannot be made two levels down is named as --out too
    assert main(base + ["--out", "afile/sub/r.parquet"]) == 2
    assert "--out afile/sub/r.parquet:" in _err(capsys)
    assert main(base + ["--records", "afile"]) == 2
    assert "--records afile: exists and is not a directory" in _err(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]
    # a run refused for another reason leaves no folder behind
    assert main(base + ["--out", "new/r.txt"]) == 2
    assert main(["tournament", "--bots", "easy,nosuch", "--out", "new/r.csv"]) == 2
    assert main(["tournament", "--bots", "easy,nosuch", "--records", "new/recs"]) == 2
    assert main(base + ["--records", "afile/recs"]) == 2
    assert "--records afile/recs:" in capsys.readouterr().err.splitlines()[-1]
    assert not (tmp_path / "new").exists()
    # a missing folder of --out is made
    assert main(base + ["--out", "new/deeper/r.csv"]) == 0
    assert (tmp_path / "new" / "deeper" / "r.csv").exists()
    capsys.readouterr()


def test_plot_explains_the_matches_table_and_makes_its_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "--bots", "easy,medium", "--matches", "1", "--target", "30",
                 "--no-progress", "--out", "m.csv"]) == 0
    capsys.readouterr()
    assert main(["plot", "m.matches.csv", "--out", "f.png"]) == 2
    assert "not its .matches table" in _err(capsys)
    assert not (tmp_path / "f.png").exists()
    # a failed plot leaves no folder it made
    assert main(["plot", "m.matches.csv", "--out", "gone/deeper/f.png"]) == 2
    _err(capsys)
    assert not (tmp_path / "gone").exists()
    assert main(["plot", "m.csv", "--out", "figs/new/f.png"]) == 0
    assert (tmp_path / "figs" / "new" / "f.png").stat().st_size > 1000


def test_a_named_idle_parameter_gets_a_one_line_note(capsys):
    """A note on stderr, not an error: the bot plays as without it."""
    import argparse

    from dominoai.cli import _note_idle, _tournament_rules

    args = argparse.Namespace(variant="fives", players=None)
    _note_idle(args, ["hard", "insane:hard_prior=0.5,policy_weight=2", "insane:worlds=30"],
               _tournament_rules(args, {}))
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["dominoai: note: bot 'insane:hard_prior=0.5,policy_weight=2' plays as without "
                   "hard_prior, policy_weight under fives: hard_prior acts only with the play "
                   "model, off here without draw_weight=true; policy_weight acts where tiles are "
                   "drawn only with draw_weight=true"]
    bad = argparse.Namespace(variant="nosuchpreset", players=None)
    assert _tournament_rules(bad, {}) is None
    _note_idle(bad, ["insane"], None)
    assert capsys.readouterr().err == ""


def test_resume_of_another_tournament_is_refused_before_compiling(tmp_path, monkeypatch, capsys):
    """A mismatched --resume is one line and exit 2, before the kernels are
    compiled (on a cold cache that takes a minute) and before any file is
    written; the file stays as it was."""
    import dominoai.tournament.run as run

    monkeypatch.chdir(tmp_path)
    base = ["tournament", "--bots", "easy,medium", "--hands", "2", "--no-progress"]
    assert main(base + ["--out", "a.csv"]) == 0
    capsys.readouterr()
    before = (tmp_path / "a.csv").read_bytes()
    calls = []
    monkeypatch.setattr(run, "_warm_up", lambda *a: calls.append(a))
    assert main(base + ["--out", "a.csv", "--resume", "--seed", "9"]) == 2
    assert "a.csv holds another tournament" in _err(capsys)
    assert calls == [] and (tmp_path / "a.csv").read_bytes() == before
    assert main(base + ["--out", "a.csv", "--resume"]) == 0     # this one: read back
    assert calls == [] and (tmp_path / "a.csv").read_bytes() == before


def test_an_interrupted_tournament_says_how_to_resume(tmp_path, monkeypatch, capsys):
    """Ctrl-C after the first part: the parts stay under ``OUT.parts/``, the
    message suggests --resume, and the resumed run gives the same table as
    one uninterrupted run. Ctrl-C before any part suggests nothing."""
    import dominoai.tournament.run as run

    monkeypatch.chdir(tmp_path)
    base = ["tournament", "--variant", "block", "--bots", "easy,medium", "--hands", "6", "--jobs", "1",
            "--seed", "3", "--no-progress"]
    real = run.write_part

    def stop_after_one(*a, **k):
        real(*a, **k)
        raise KeyboardInterrupt

    def stop_at_once(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "_warm_up", stop_at_once)
    assert main(base + ["--out", "early.csv"]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == "dominoai: interrupted"   # after any compile message
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    schedule = run.make_schedule
    monkeypatch.setattr(run, "make_schedule", lambda *a: schedule(*a[:-1], 2))   # 2 units a part: 6 parts
    monkeypatch.setattr(run, "write_part", stop_after_one)
    assert main(base + ["--out", "a.csv"]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == ("dominoai: interrupted (run the same command with "
                                                        "--resume to continue)")
    assert len(list((tmp_path / "a.csv.parts").glob("hands-*"))) == 1 and not (tmp_path / "a.csv").exists()
    monkeypatch.setattr(run, "write_part", real)
    assert main(base + ["--out", "a.csv", "--resume"]) == 0
    assert capsys.readouterr().err == ""
    assert main(base + ["--out", "whole.csv"]) == 0
    cols = ["deal", "rotation", "seat", "bot", "points"]
    assert pd.read_csv("a.csv")[cols].equals(pd.read_csv("whole.csv")[cols])


def test_resume_with_nothing_to_resume_says_so(tmp_path, monkeypatch, capsys):
    """--resume where --out names no run (a typo, say): a one-line note,
    then the whole tournament."""
    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "--variant", "block", "--bots", "easy,medium", "--hands", "2", "--no-progress",
                 "--out", "nope.csv", "--resume"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == ("dominoai: note: nothing to resume at --out nope.csv (no "
                                                       "such file, and no nope.csv.parts/ beside it): playing the "
                                                       "whole tournament")
    assert len(pd.read_csv(tmp_path / "nope.csv")) == 2 * 2 * 2
