"""The ``dominoai`` command line, in-process through ``main`` and as a user
runs it (``python -m dominoai`` in a subprocess): every reference case
(tests/data/cases), every kind of bad input (exit code 2, one
``dominoai: error:`` line, no traceback), and ``simulate``.

Every case and every bad record goes through ``main``, which is all that
``python -m dominoai`` runs; a subprocess costs a second or two of start-up,
so the process itself (its exit status, its two streams, the console
script) is checked on a few of each kind."""

from __future__ import annotations

import copy
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from dominoai import Match, __version__
from dominoai.cli import main
from dominoai.records import record_from_match
from shared_cases import BLOCK, case_files, subset


# The session fixtures below run dozens of subprocesses; on one worker they
# run once (under --dist loadgroup), not once per worker.
pytestmark = [pytest.mark.xdist_group("cli_runs"), pytest.mark.kernels("search", "side")]

CASES = case_files()
CASE_IDS = [f"{p.parent.name}/{p.stem}" for p in CASES]


def run_cli(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``python -m dominoai ARGS`` as a user runs it."""
    return subprocess.run([sys.executable, "-m", "dominoai", *map(str, args)], input=stdin,
                          capture_output=True, text=True, timeout=600)


def run_many(argvs: list) -> list:
    """Run several CLI invocations at once (each pays the interpreter start-up).
    Call it only once the kernels they use are in the cache (the ``warm``
    fixture): several processes compiling at once would each compile the same
    kernels, which on a busy machine takes minutes."""
    with ThreadPoolExecutor(max_workers=max(2, min(6, (os.cpu_count() or 2) + 1))) as ex:
        return list(ex.map(lambda a: run_cli(*a), argvs))


@pytest.fixture(scope="session")
def warm():
    """Compile (or load) the kernels of ``replay`` and ``simulate`` once, in
    this process, so that the subprocesses of the tests only load them from
    the cache (the same directory: the same code and ``NUMBA_CACHE_DIR``)."""
    import io

    from dominoai._compile import warm_up_simulation
    from dominoai.records import load_record, replay
    from dominoai.rules import get_rules

    for source in [copy.deepcopy(BLOCK), *CASES]:
        try:
            replay(load_record(source))
        except Exception:  # a case that is refused on purpose
            pass
    warm_up_simulation(get_rules("all_fives"), progress=False, stream=io.StringIO())


def run_main(capsys, *args) -> subprocess.CompletedProcess:
    """``main(ARGS)`` in this process, with its exit code and two streams in
    the shape :func:`run_cli` returns."""
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out, err)


def assert_refused(proc: subprocess.CompletedProcess, pattern: str = ""):
    """Exit code 2, nothing on stdout, exactly one ``dominoai: error:`` line."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and proc.stderr.endswith("\n"), proc.stderr
    assert lines[0].startswith("dominoai: error: "), lines[0]
    assert re.search(pattern, lines[0]), lines[0]


# ------------------------------------------------------------- reference cases
#: the cases also run in a subprocess: one replayed, one refused
CLI_CASES = [p for p in CASES if p.stem == "block_pass_after_lead"] + \
    [p for p in CASES if p.stem == "bad_duplicate_tile"]


@pytest.fixture(scope="session")
def case_runs(warm):
    procs = run_many([("replay", p, "--json") for p in CLI_CASES])
    return dict(zip(CLI_CASES, procs))


@pytest.mark.e2e
@pytest.mark.parametrize("path", CLI_CASES, ids=[p.stem for p in CLI_CASES])
def test_case_via_cli(path, case_runs):
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    proc = case_runs[path]
    if expected == {"exit": 2}:
        assert_refused(proc, re.escape(str(path)) + r": ")
        return
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.count("\n") == 1  # one JSON object, one line
    out = json.loads(proc.stdout)
    assert subset(expected, out), f"\nexpected {expected}\n     got {out}"


def test_the_subprocess_cases_are_one_replayed_and_one_refused():
    refused = [json.loads(p.with_name(p.stem + ".expected.json").read_text()) == {"exit": 2} for p in CLI_CASES]
    assert refused == [False, True]


@pytest.mark.parametrize("path", CASES, ids=CASE_IDS)
def test_case_in_process(path, capsys):
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    code = main(["replay", str(path), "--json"])
    out, err = capsys.readouterr()
    if expected == {"exit": 2}:
        assert code == 2 and out == "" and len(err.splitlines()) == 1
        assert err.startswith("dominoai: error: ")
        return
    assert code == 0 and err == ""
    assert subset(expected, json.loads(out))
    # the readable summary: every hand, its result, the final scores
    assert main(["replay", str(path)]) == 0
    text, err = capsys.readouterr()
    assert err == ""
    assert text.count("\nHand ") == len(expected["hands"])
    assert text.count("  result: ") == len(expected["hands"])
    assert "\nScores: " in text


# ---------------------------------------------------------------- bad input


def _bad_records() -> dict:
    """name -> (record dict, raw text or a function that makes the record,
    pattern the error line must match)."""
    out = {}

    def rec(name, pattern, edit):
        r = copy.deepcopy(BLOCK)
        edit(r)
        out[name] = (r, pattern)

    h = lambda r: r["hands"][0]  # noqa: E731
    out["invalid_json"] = ('{"format": "dominoai.record/1", "rules": ', r"invalid JSON: ")
    out["not_utf8"] = (b"\xff\xfe{}", r"not UTF-8 text")
    rec("unknown_tile", r"hand 1, deal: seat 1's hand: '7:1' is not a double-six tile",
        lambda r: h(r)["deal"][1].__setitem__(6, "7:1"))
    rec("tile_twice", r"hand 1, deal: tile 6:6 appears twice",
        lambda r: h(r)["deal"][1].__setitem__(6, "6:6"))
    rec("wrong_hand_size", r"hand 1, deal: seat 1 was dealt 6 tiles; the rules deal 7",
        lambda r: h(r)["boneyard"].append(h(r)["deal"][1].pop()))
    rec("move_after_end", r"hand 1, move 9: the hand is over",
        lambda r: h(r)["moves"].append({"tile": "6:3"}))
    rec("no_such_end", r"hand 1, move 3: the end \"middle\" does not exist",
        lambda r: h(r)["moves"][2].__setitem__("end", "middle"))
    rec("closed_end", r"hand 1, move 3: 6:5 up: there is no open up end",
        lambda r: h(r)["moves"][2].__setitem__("end", "up"))
    rec("pass_while_able",
        r"hand 1, move 4: pass while able to play \(seat 1 holds 5:0 for the right end\)$",
        lambda r: h(r)["moves"].__setitem__(slice(3, None), [{"pass": True}]))
    rec("unknown_preset", r"rules: unknown preset 'dominos'",
        lambda r: r.__setitem__("rules", "dominos"))
    rec("unknown_field", r"rules: block: unknown rules field 'speed'",
        lambda r: r.__setitem__("rules", {"preset": "block", "speed": 3}))
    rec("target_beyond_int64", r"rules: block: target must be at most 1,000,000,000 in size "
        r"\(got 9223372036854775808\)$",
        lambda r: r.__setitem__("rules", {"preset": "block", "target": 2 ** 63}))
    rec("no_leader", r"hand 1, leader: these rules \(block\) leave the first lead to lot",
        lambda r: h(r).pop("leader"))
    rec("lead_up", r"hand 1, move 1: 6:6: the lead takes no up end",
        lambda r: h(r)["moves"][0].__setitem__("end", "up"))

    def unfinished(r):
        second = copy.deepcopy(h(r))
        second.pop("leader")
        h(r)["moves"] = h(r)["moves"][:5]
        r["hands"].append(second)
    rec("earlier_hand_unfinished", r"hand 1, move 6: moves missing: the hand is not over", unfinished)

    def finished_then_more():
        m = Match("openspiel_block", seed=3)
        hand = m.new_hand()
        while not hand.over:
            hand.play(hand.legal_moves()[0])
        finished = record_from_match(m)
        finished["hands"].append(copy.deepcopy(finished["hands"][0]))
        return finished
    # played when the test runs: a hand played while the tests are collected
    # would compile the engine on every worker before the warm-up
    out["hand_after_match_end"] = (finished_then_more, r"hand 2: the match finished with hand 1")
    out["not_a_record"] = ([1, 2, 3], r"a record is a JSON object, not list")
    return out


BAD = _bad_records()


def _write_bad(folder, name):
    content = BAD[name][0]
    if callable(content):
        content = content()
    p = folder / f"{name}.json"
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content if isinstance(content, str) else json.dumps(content))
    return p


@pytest.mark.parametrize("name", list(BAD))
def test_bad_record_refused(name, tmp_path, capsys):
    path = _write_bad(tmp_path, name)
    assert_refused(run_main(capsys, "replay", path, "--json"),
                   "^dominoai: error: " + re.escape(str(path)) + ":.* " + BAD[name][1])
    assert sorted(tmp_path.iterdir()) == [path]  # nothing written beside it


def test_missing_file_and_directory(tmp_path, capsys):
    path = tmp_path / "missing.json"
    assert_refused(run_main(capsys, "replay", path), re.escape(str(path)) + r": No such file or directory$")
    assert_refused(run_main(capsys, "replay", tmp_path), re.escape(str(tmp_path)) + r": ")


@pytest.mark.e2e
def test_bad_records_via_cli(tmp_path, warm):
    """A refused record and a missing file, from the process: status 2 and
    one line on stderr."""
    bad = _write_bad(tmp_path, "pass_while_able")
    missing = tmp_path / "missing.json"
    procs = run_many([("replay", bad, "--json"), ("replay", missing)])
    assert_refused(procs[0], "^dominoai: error: " + re.escape(str(bad)) + ":.* " + BAD["pass_while_able"][1])
    assert_refused(procs[1], re.escape(str(missing)) + r": No such file or directory$")


@pytest.mark.e2e
def test_replay_from_stdin(warm):
    procs = [run_cli("replay", "-", "--json", stdin=json.dumps(BLOCK)),
             run_cli("replay", "-", stdin="{not json")]
    assert procs[0].returncode == 0, procs[0].stderr
    assert json.loads(procs[0].stdout)["scores"] == [0, 4]
    assert_refused(procs[1], r"^dominoai: error: <stdin>: invalid JSON")


@pytest.mark.parametrize("text, kind", [('"{path}"', "str"), ("[]", "list"), ("42", "int"), ("null", "null")],
                         ids=["a-path-in-a-string", "list", "number", "null"])
def test_replay_from_stdin_takes_only_a_json_object(text, kind, tmp_path, monkeypatch, capsys):
    """JSON on standard input that is not an object is refused in the words
    a file gets, and a JSON string is never read as the path of a record."""
    good = tmp_path / "good.json"
    good.write_text(json.dumps(BLOCK))
    data = text.replace("{path}", str(good)).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["replay", "-", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"dominoai: error: <stdin>: a record is a JSON object, not {kind}\n"


@pytest.mark.parametrize("data", [b"\xff\xfe{}", b'{"format": "dominoai.record/1", "x": "\xe9"}'],
                         ids=["binary", "latin1-in-a-string"])
def test_replay_refuses_bytes_that_are_not_utf8_on_stdin(data, monkeypatch, capsys):
    """Read from standard input, bytes that are not UTF-8 are named as such,
    as they are in a file, not as bad JSON or a lone surrogate."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["replay", "-", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "dominoai: error: <stdin>: not UTF-8 text\n"


@pytest.mark.parametrize("argv, pattern", [
    ([], r"required: COMMAND"),
    (["explode"], r"invalid choice: 'explode'"),
    (["replay"], r"required: FILE"),
    (["replay", "a.json", "--jsn"], r"unrecognized arguments: --jsn"),
    (["simulate"], r"required: --variant"),
    (["simulate", "--variant", "dominos"], r"unknown preset 'dominos'"),
    (["simulate", "--variant", "block", "--hands", "0"], r"argument --hands: must be at least 1 \(got 0\)"),
    (["simulate", "--variant", "block", "--hands", "lots"], r"argument --hands: must be an integer"),
    (["simulate", "--variant", "block", "--seed", "-1"], r"argument --seed: must be at least 0"),
    (["simulate", "--variant", "fives", "--players", "3"], r"fives: players must be 2 \(got 3\)"),
    (["simulate", "--variant", "block", "--players", "two"], r"argument --players: must be an integer"),
])
def test_bad_options_in_process(argv, pattern, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("dominoai: error: ")
    assert re.search(pattern, err), err


@pytest.mark.e2e
def test_bad_options_via_cli(warm):
    procs = run_many([("simulate", "--variant", "dominos"), (), ("simulate", "--variant", "block",
                                                                  "--hands", "-5")])
    assert_refused(procs[0], r"^dominoai: error: unknown preset 'dominos'")
    assert_refused(procs[1], r"^dominoai: error: .*COMMAND")
    assert_refused(procs[2], r"^dominoai: error: .*--hands")


# ---------------------------------------------------------------- simulate
def _stats(text: str) -> str:
    """The output without the (timing-dependent) speed line."""
    return "\n".join(line for line in text.splitlines() if "hands/s" not in line)


@pytest.mark.e2e
def test_simulate_prints_stats(warm):
    a, b, c, d = run_many([
        ("simulate", "--variant", "all_fives", "--hands", "5000", "--seed", "11"),
        ("simulate", "--variant", "all_fives", "--hands", "5000", "--seed", "11"),
        ("simulate", "--variant", "kozel", "--hands", "3000", "--seed", "2"),
        ("simulate", "--variant", "draw", "--players", "3", "--hands", "45000", "--seed", "4",
         "--progress"),
    ])
    for p in (a, b, c, d):
        assert p.returncode == 0, p.stderr
        assert "Traceback" not in p.stderr
    assert a.stderr == "" and c.stderr == ""
    out = a.stdout
    assert "simulate all_fives: 2 players, 5000 random hands, seed 11" in out
    for word in ("seat 0", "seat 1", "wins", "blocked", "cut short", "mean points", "hands/s"):
        assert word in out, word
    assert _stats(a.stdout) == _stats(b.stdout)  # a seed repeats the numbers
    wins = [int(m.group(1)) for m in re.finditer(r"^  seat \d\s+(\d+)", out, re.M)]
    nobody = int(re.search(r"^  no winner\s+(\d+)", out, re.M).group(1))
    assert len(wins) == 2 and sum(wins) + nobody == 5000
    shares = re.search(r"domino\s+([\d.]+)%\s+blocked\s+([\d.]+)%\s+cut short\s+([\d.]+)%", out)
    assert abs(sum(float(x) for x in shares.groups()) - 100.0) < 0.2
    assert "pair 0 (seats 0+2)" in c.stdout and "pair 1 (seats 1+3)" in c.stdout
    assert "recorded" in c.stdout
    assert "3 players" in d.stdout and "seat 2" in d.stdout
    assert "hand" in d.stderr  # the progress bar went to stderr


def test_simulate_in_process(capsys, warm):
    assert main(["simulate", "--variant", "dominoball", "--hands", "500", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert "strikes" in out and err == ""


# ---------------------------------------------------------------- the command itself
def test_version_and_help(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"dominoai {__version__}"
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "replay" in out and "simulate" in out


def test_every_help_fits_an_80_column_terminal(capsys, monkeypatch):
    """argparse wraps to the terminal's width (COLUMNS): no text of ours
    may be laid out by hand past it."""
    import argparse

    from dominoai.cli import build_parser
    monkeypatch.setenv("COLUMNS", "80")
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(sub.choices) >= 12
    for name in ["", *sub.choices]:
        assert main([name, "--help"] if name else ["--help"]) == 0
        long = [line for line in capsys.readouterr().out.splitlines() if len(line) > 80]
        assert long == [], (name, long)


@pytest.mark.e2e
def test_version_via_cli_and_no_import_side_effects():
    p = run_cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"dominoai {__version__}"
    q = subprocess.run([sys.executable, "-c", "import dominoai.cli, dominoai.__main__"],
                       capture_output=True, text=True, timeout=300)
    assert q.returncode == 0 and q.stdout == "" and q.stderr == ""


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("dominoai") is None, reason="the dominoai console script is not on PATH")
def test_console_script(warm):
    p = subprocess.run(["dominoai", "replay", "-", "--json"], input=json.dumps(BLOCK),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["hands"][0]["end"] == "blocked"


# ---------------------------------------------------------------- the first run
def test_compile_once_says_so_only_when_cold(tmp_path, monkeypatch):
    """One line before compiling, a marker after; a second run is silent."""
    import io

    from dominoai import _compile

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the markers' directory, not numba's
    monkeypatch.setattr(_compile, "_load", lambda: 0.0)  # a quiet machine
    calls = []

    def boom():
        raise RuntimeError("a bad bot")

    steps = [("test-a", lambda: calls.append("a")), ("test-b", boom), ("test-c", lambda: calls.append("c"))]
    out = io.StringIO()
    assert _compile.compile_once(steps, "the test kernels", progress=False, stream=out) == [
        "test-a", "test-b", "test-c"]
    # unknown steps are estimated at 5 s each
    assert out.getvalue() == ("dominoai: compiling the test kernels once for this version, about 15 s "
                              "(later runs load it from the cache)\n")
    assert calls == ["a", "c"]
    assert _compile.is_warm("test-a") and not _compile.is_warm("test-b") and _compile.is_warm("test-c")
    out = io.StringIO()
    assert _compile.compile_once(steps, progress=False, stream=out) == ["test-b"]  # b failed: still cold
    assert out.getvalue().endswith("about 5 s (later runs load it from the cache)\n")
    assert calls == ["a", "c", "a", "c"]  # warm steps still run (they load from the cache)
    out = io.StringIO()
    assert _compile.compile_once(steps[:1], progress=True, stream=out) == [] and out.getvalue() == ""
    # a step estimated below a second is still "about 1 s", never "about 0 s"
    monkeypatch.setitem(_compile.TYPICAL_SECONDS, "test-d", 0.4)
    out = io.StringIO()
    assert _compile.compile_once([("test-d", lambda: None)], progress=False, stream=out) == ["test-d"]
    assert "about 1 s (later runs" in out.getvalue()


def test_estimate_from_the_previous_version(tmp_path, monkeypatch):
    from dominoai import _compile

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert _compile._estimate("engine") == _compile.TYPICAL_SECONDS["engine"]
    old = tmp_path / "dominoai" / "numba-0123456789abcdef"
    old.mkdir(parents=True)
    (old / "warm-engine.json").write_text(json.dumps({"step": "engine", "cpu_seconds": 7.25, "compiled": True}))
    assert _compile._estimate("engine") == 7.25
    # a newer version that only loaded the kernels from numba's cache says nothing of compiling
    newer = tmp_path / "dominoai" / "numba-fedcba9876543210"
    newer.mkdir(parents=True)
    (newer / "warm-engine.json").write_text(json.dumps({"step": "engine", "cpu_seconds": 0.3, "compiled": False}))
    os.utime(newer / "warm-engine.json", (time.time() + 10, time.time() + 10))
    assert _compile._estimate("engine") == 7.25
    # a marker holding wall seconds only (a run paused for an hour wrote 5383) is not read
    wall = tmp_path / "dominoai" / "numba-00000000000000aa"
    wall.mkdir(parents=True)
    (wall / "warm-engine.json").write_text(json.dumps({"step": "engine", "seconds": 5383.54, "compiled": True}))
    os.utime(wall / "warm-engine.json", (time.time() + 20, time.time() + 20))
    assert _compile._estimate("engine") == 7.25


def test_a_step_records_its_cpu_seconds_not_the_wall_clock(tmp_path, monkeypatch):
    """A step that waits (a paused or starved run) records the CPU it used,
    so the next version's estimate is not inflated by the wait."""
    import io

    from dominoai import _compile

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    _compile.compile_once([("test-wait", lambda: time.sleep(0.5))], progress=False, stream=io.StringIO())
    d = json.loads(_compile._marker("test-wait").read_text())
    assert set(d) == {"step", "cpu_seconds", "compiled"} and d["cpu_seconds"] < 0.25


def test_the_compile_estimate_follows_the_machines_load(monkeypatch):
    """66 s of CPU on 2 cores: quiet, "about 66 s"; at a load of 8 a core is
    shared by 4 to 5 processes, so 264 to 330 s."""
    from dominoai import _compile
    monkeypatch.setattr(_compile, "_usable_cores", lambda: 2)
    monkeypatch.setattr(_compile, "_load", lambda: 0.5)
    assert _compile.estimate_text(66.0) == "about 66 s"
    monkeypatch.setattr(_compile, "_load", lambda: 8.0)
    assert _compile.estimate_text(66.0) == ("about 66 s of CPU, 4 to 6 min at this machine's load of 8.0 "
                                            "on 2 cores")
    monkeypatch.setattr(_compile, "_load", lambda: 3.0)
    assert _compile.estimate_text(15.0) == "about 15 s of CPU, 22 to 38 s at this machine's load of 3.0 on 2 cores"


def test_a_marker_says_whether_its_step_compiled(tmp_path, monkeypatch):
    from numba import njit

    from dominoai import _compile

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    kernel = njit(lambda x: x + 1)
    kernel.py_func.__module__ = "dominoai.test_kernel"   # counted as one of the package's kernels
    io_ = __import__("io").StringIO()
    _compile.compile_once([("test-new", lambda: kernel(1)), ("test-none", lambda: None)], progress=False,
                          stream=io_)
    read = {n: json.loads(_compile._marker(n).read_text()) for n in ("test-new", "test-none")}
    assert read["test-new"]["compiled"] is True and read["test-none"]["compiled"] is False


def test_tournament_steps_one_per_bot_name():
    from dominoai._compile import tournament_steps
    from dominoai.rules import get_rules

    steps = tournament_steps(get_rules("block"), ["easy", "hard:seed=3", "hard", "insane:worlds=50", ":"])
    assert [name for name, _ in steps] == ["engine", "bot-hard", "bot-insane"]


def test_simulate_on_a_cold_marker_says_so(tmp_path, monkeypatch, capsys, warm):
    """The simulate command prints the compile line when the version's marker
    is missing (here: a fresh marker directory; the kernel itself loads)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert main(["simulate", "--variant", "block", "--hands", "10", "--seed", "1", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("dominoai: compiling the batch simulation once for this version, about ")
    assert len(err.splitlines()) == 1 and "simulate block" in out
    assert main(["simulate", "--variant", "block", "--hands", "10", "--seed", "1"]) == 0
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- launcher
@pytest.mark.e2e
def test_module_run_beside_a_checkout_folder(tmp_path):
    """``python -m dominoai`` from a folder holding a ``dominoai`` folder that
    is not the package (a checkout): with an editable install (emulated: a
    finder for the package's submodules, as setuptools installs) Python takes
    the folder for a namespace package. One line, exit code 2, no traceback."""
    import dominoai

    (tmp_path / "dominoai" / "docs").mkdir(parents=True)
    (tmp_path / "dominoai" / "README.md").write_text("a checkout\n")
    pkg = os.path.dirname(dominoai.__file__)
    code = f"""
import importlib.util, os, runpy, sys
sys.path = [p for p in sys.path if p not in ('', {os.path.dirname(pkg)!r})]
sys.path.insert(0, os.getcwd())
class Editable:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.startswith("dominoai."):
            f = os.path.join({pkg!r}, *name.split(".")[1:]) + ".py"
            if os.path.isfile(f):
                return importlib.util.spec_from_file_location(name, f)
        return None
sys.meta_path.insert(0, Editable)
sys.argv = ["dominoai", "--version"]
runpy.run_module("dominoai", run_name="__main__", alter_sys=True)
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=300)
    assert_refused(p, "the folder .*dominoai is not the dominoai package but hides it")


def test_library_errors_name_the_option(tmp_path, capsys):
    """The library names its own arguments; the command line says the option."""
    assert main(["tournament", "--variant", "block", "--bots", "easy,medium", "--resume",
                 "--no-progress"]) == 2
    assert capsys.readouterr().err == ("dominoai: error: --resume needs --out, the results file of "
                                       "the run to continue\n")
    assert main(["tune", "--variant", "block", "--bot", "hard", "--opponents", "easy",
                 "--hands", "8", "--chunk", "9", "--no-progress"]) == 2
    assert capsys.readouterr().err == "dominoai: error: --chunk must be between 1 and --hands (8) (got 9)\n"
    assert main(["play", "--variant", "block", "--seat", "5"]) == 2
    assert capsys.readouterr().err == "dominoai: error: --seat must be a seat 0..1 (got 5)\n"
    assert not list(tmp_path.iterdir())
