"""The experiment scripts' own checks: bad input is refused in one line with
exit code 2 before anything is written (experiments/against_hard.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# every test runs an experiment script in another process
pytestmark = [pytest.mark.e2e, pytest.mark.kernels("search")]

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "against_hard.py"


def _run(args, out, timeout=300):
    return subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)


BAD = [
    (["--preset", "nosuch", "--candidates", "insane:worlds=50"], "unknown preset"),
    (["--preset", "block", "--candidates", "insanee"], "unknown bot"),
    (["--preset", "block", "--candidates", "insane:hard_prior=1.5"], "hard_prior must be <= 1"),
    (["--preset", "block", "--candidates", "insane:worlds=200"], "listed twice"),
    (["--preset", "block", "--candidates", ";"], "give at least one spec"),
    (["--preset", "block", "--candidates", "insane:worlds=50", "--deals", "0"], "--deals"),
]

# The script's main(argv) as `python experiments/against_hard.py ARGS` runs it
# (its folder first on sys.path, SystemExit as the exit code), once per argument
# list read from stdin, in one interpreter: the exit code and stderr of each.
DRIVER = """
import contextlib, io, json, sys, traceback
sys.path.insert(0, sys.argv[1])
import against_hard
out = []
for argv in json.loads(sys.stdin.read()):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = against_hard.main(argv)
        except SystemExit as e:
            code = e.code
        except BaseException:
            traceback.print_exc()
            code = 1
    out.append({"code": code, "stderr": err.getvalue()})
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def bad_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    argvs = [[*args, "--out", str(d / f"out{i}")] for i, (args, _) in enumerate(BAD)]
    p = subprocess.run([sys.executable, "-c", DRIVER, str(SCRIPT.parent)], input=json.dumps(argvs),
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr
    return d, json.loads(p.stdout.splitlines()[-1])


@pytest.mark.parametrize("i", range(len(BAD)), ids=[w for _, w in BAD])
def test_against_hard_refuses_bad_input(bad_runs, i):
    d, runs = bad_runs
    r, word = runs[i], BAD[i][1]
    assert r["code"] == 2, r["stderr"]
    assert word in r["stderr"] and "Traceback" not in r["stderr"]
    assert not (d / f"out{i}").exists()


def test_against_hard_refuses_a_folder_of_another_run(tmp_path):
    """A finished run is read back only for the same bots and deals; another
    candidate or another number of deals in its folder is refused."""
    import pandas as pd

    out = tmp_path / "out"
    folder = out / "block-seed198"
    # one process, which may compile the kernels on a cold cache: a long timeout
    r0 = _run(["--preset", "block", "--candidates", "insane:worlds=30", "--deals", "2"], out,
              timeout=1200)
    assert r0.returncode == 0, r0.stderr
    summary = pd.read_csv(folder / "summary.csv")
    assert summary["deals"].tolist() == [2] and summary["candidate"].tolist() == ["insane:worlds=30"]
    r = _run(["--preset", "block", "--candidates", "insane:worlds=40", "--deals", "2"], out)
    assert r.returncode == 2 and "holds another run" in r.stderr
    r = _run(["--preset", "block", "--candidates", "insane:worlds=30", "--deals", "3"], out)
    assert r.returncode == 2 and "holds another run" in r.stderr
    # the same bot spelled otherwise (Block's own default rollouts=3 written out) is the
    # run's bot: read back under the run's name
    r = _run(["--preset", "block", "--candidates", "insane:worlds=30+rollouts=3", "--deals", "2"],
             out)
    assert r.returncode == 0, r.stderr
    assert "holds this run: reading it back" in r.stderr
    assert pd.read_csv(folder / "summary.csv")["candidate"].tolist() == ["insane:worlds=30"]
