"""A tournament's results file from the command line: ``dominoai summary``
prints it again, a rerun never replaces it by accident (``--overwrite``),
and ``--jobs`` above the cores is capped with one note."""
from __future__ import annotations

import os

import pytest

from dominoai.cli import main

BASE = ["tournament", "--variant", "block", "--bots", "easy,medium", "--hands", "3", "--seed", "2",
        "--no-progress"]


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dominoai: error: "), err
    return err


@pytest.fixture
def results(tmp_path, monkeypatch, capsys):
    """A finished run's results file, ``r.csv`` in the current folder, and
    what the tournament printed at its end."""
    monkeypatch.chdir(tmp_path)
    assert main([*BASE, "--out", "r.csv"]) == 0
    printed = capsys.readouterr().out
    return tmp_path / "r.csv", printed


# ---------------------------------------------------------------- summary
def test_summary_prints_the_tournaments_table_again(results, capsys):
    path, printed = results
    assert main(["summary", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    # the tournament's table without the speed of the run (a file has none), then its command
    table = printed.splitlines()
    assert table[0].startswith("block, 2 players: 6 hands; 6 played in ")
    assert out[0] == "block, 2 players: 6 hands"
    assert out[1:-1] == table[1:-1]                    # every pairing and rating line
    assert table[-1] == "results: r.csv"
    assert out[-1] == "made by: dominoai " + " ".join([*BASE, "--out", "r.csv"])
    assert any("easy v medium" in x for x in out) and any("Ratings" in x for x in out)


def test_summary_of_a_parquet_file_with_matches(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["tournament", "--variant", "block", "--bots", "easy,medium", "--matches", "2",
            "--target", "20", "--no-progress", "--out", "m.parquet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert main(["summary", "m.parquet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("block, 2 players: 4 matches, ") and printed[0].startswith(out[0] + "; ")
    assert out[1:-1] == printed[1:-1]


@pytest.mark.parametrize("name,content,needle", [
    ("missing.csv", None, "no such results file: missing.csv"),
    ("notes.txt", "x", "notes.txt is not a dominoai results file (the results file must end in .parquet or .csv)"),
    ("empty.csv", "", "empty.csv is not a dominoai results file"),
    ("other.csv", "a,b\n1,2\n", "other.csv is not a dominoai results file: it lacks the columns"),
    ("garbage.parquet", "not parquet at all", "garbage.parquet is not a dominoai results file"),
    ("folder.csv", "DIR", "folder.csv is a folder, not a results file"),
])
def test_summary_of_bad_input_is_one_line_exit_2(tmp_path, monkeypatch, capsys, name, content, needle):
    monkeypatch.chdir(tmp_path)
    if content == "DIR":
        os.mkdir(name)
    elif content is not None:
        (tmp_path / name).write_text(content)
    before = sorted(os.listdir(tmp_path))
    assert main(["summary", name]) == 2
    err = _one_error(capsys)
    assert needle in err and err.count(name) == 1, err
    assert sorted(os.listdir(tmp_path)) == before


def test_summary_of_a_table_with_the_columns_but_no_hands(results, capsys):
    path, _ = results
    header = path.read_text().splitlines()[0]
    (path.parent / "head.csv").write_text(header + "\n")
    assert main(["summary", "head.csv"]) == 2
    assert "head.csv holds no hands" in _one_error(capsys)


def test_summary_of_the_matches_table_says_which_file_to_give(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "--bots", "easy,medium", "--matches", "1", "--target", "30",
                 "--no-progress", "--out", "m.csv"]) == 0
    capsys.readouterr()
    assert main(["summary", "m.matches.csv"]) == 2
    assert "not its .matches table" in _one_error(capsys)


# ---------------------------------------------------------------- --overwrite
def test_an_existing_results_file_is_refused_without_overwrite(results, capsys):
    path, _ = results
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    side = path.with_name("r.provenance.json").read_bytes()
    assert main([*BASE, "--seed", "7", "--out", "r.csv"]) == 2
    err = _one_error(capsys)
    assert err == ("dominoai: error: --out r.csv: r.csv exists; give --overwrite to replace it, "
                   "--resume to continue its run, or another --out\n")
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stamp
    assert path.with_name("r.provenance.json").read_bytes() == side
    assert sorted(os.listdir(path.parent)) == ["r.csv", "r.provenance.json"]


def test_a_folder_named_as_the_results_file_is_refused_as_a_folder(tmp_path, monkeypatch, capsys):
    """Not "exists; give --overwrite", which --overwrite would not cure."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.csv").mkdir()
    for extra in ([], ["--overwrite"]):
        assert main([*BASE, "--out", "d.csv", *extra]) == 2
        assert _one_error(capsys) == ("dominoai: error: d.csv is a directory; --out names the results file "
                                      "(.parquet or .csv)\n")
    assert os.listdir(tmp_path) == ["d.csv"] and os.listdir(tmp_path / "d.csv") == []


def test_resume_and_overwrite_together_are_refused(results, capsys):
    path, _ = results
    before = path.read_bytes()
    assert main([*BASE, "--out", "r.csv", "--resume", "--overwrite"]) == 2
    assert _one_error(capsys) == ("dominoai: error: --resume continues the run of --out and --overwrite "
                                  "replaces it: give one of them\n")
    assert path.read_bytes() == before


def test_overwrite_replaces_the_results_file(results, capsys):
    from dominoai.tournament import load_results
    path, _ = results
    assert load_results(path).provenance["seed"] == 2
    argv = [*BASE, "--seed", "7", "--out", "r.csv", "--overwrite"]
    assert main(argv) == 0
    capsys.readouterr()
    res = load_results(path)
    assert res.provenance["seed"] == 7 and res.provenance["command"] == "dominoai " + " ".join(argv)
    assert len(res.hands) == 12      # 3 deals x 2 rotations x 2 seats


def test_the_matches_table_beside_it_is_protected_too(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.matches.csv").write_text("kept\n")
    argv = ["tournament", "--bots", "easy,medium", "--matches", "1", "--target", "30",
            "--no-progress", "--out", "m.csv"]
    assert main(argv) == 2
    assert "m.matches.csv exists; give --overwrite" in _one_error(capsys)
    assert (tmp_path / "m.matches.csv").read_text() == "kept\n"
    assert main([*argv, "--overwrite"]) == 0
    capsys.readouterr()
    assert (tmp_path / "m.matches.csv").read_text() != "kept\n"


def test_resume_of_a_finished_run_reads_it_back_without_overwrite(results, capsys):
    path, _ = results
    before = path.read_bytes()
    assert main([*BASE, "--out", "r.csv", "--resume"]) == 0
    assert "easy v medium" in capsys.readouterr().out
    assert path.read_bytes() == before


# ---------------------------------------------------------------- --jobs
def test_jobs_above_the_cores_are_capped_with_one_note(tmp_path, monkeypatch, capsys):
    import dominoai.tournament.run as run
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    seen = []
    execute = run.execute

    def spy(calls, jobs, backend, scheduler):
        seen.append(jobs)
        return execute(calls, 1, backend, scheduler)   # play here: the count is what is checked

    monkeypatch.setattr(run, "execute", spy)
    assert main([*BASE, "--jobs", "16"]) == 0
    err = capsys.readouterr().err
    assert err == ("dominoai: note: 16 worker processes asked for (--jobs), but this machine has "
                   "2 cores: running 2\n")
    assert seen == [2]
    for jobs in (2, -1):
        assert main([*BASE, "--jobs", str(jobs)]) == 0
        assert capsys.readouterr().err == ""
    assert seen == [2, 2, -1]
    # a bad input is still one line, with no note before it
    assert main([*BASE, "--jobs", "16", "--bots", "easy,nosuch"]) == 2
    _one_error(capsys)
