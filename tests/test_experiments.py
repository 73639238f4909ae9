"""The experiment scripts' own checks: bad input is refused in one line with
exit code 2 before anything is written (experiments/against_hard.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # every test runs an experiment script in another process

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "against_hard.py"


def _run(args, out, timeout=300):
    return subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)


@pytest.mark.parametrize("args,word", [
    (["--preset", "nosuch", "--candidates", "insane:worlds=50"], "unknown preset"),
    (["--preset", "block", "--candidates", "insanee"], "unknown bot"),
    (["--preset", "block", "--candidates", "insane:hard_prior=1.5"], "hard_prior must be <= 1"),
    (["--preset", "block", "--candidates", "insane:worlds=200"], "listed twice"),
    (["--preset", "block", "--candidates", ";"], "give at least one spec"),
    (["--preset", "block", "--candidates", "insane:worlds=50", "--deals", "0"], "--deals"),
])
def test_against_hard_refuses_bad_input(tmp_path, args, word):
    r = _run(args, tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert word in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


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
