"""experiments/peers.py: the per-deal margins its sweep compares, and its
refusals of bad input (one line, exit code 2, nothing written)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ROOT / "experiments"


def _hands(rows):
    """A two-seat hands table: ``rows`` of (match, deal, bot, side, margin)."""
    return pd.DataFrame([{"match": m, "hand": 0, "table": 0, "deal": d, "bot": b, "side": s,
                          "won": mg > 0, "margin": float(mg)} for m, d, b, s, mg in rows])


def test_per_deal_margin_is_the_mean_over_the_deals_rotations():
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        from _common import per_deal_margin
    finally:
        sys.path.remove(str(EXPERIMENTS))
    # deal 0: A wins 10 in one rotation and loses 4 in the other -> A's margin
    # per hand (10 + -4) / 2 = 3; deal 1: A loses 6, wins 2 -> -2. B is listed
    # first, so A is the second bot of the pairing.
    res = SimpleNamespace(hands=_hands([
        (0, 0, "B", 0, -10), (0, 0, "A", 1, 10),
        (1, 0, "A", 0, -4), (1, 0, "B", 1, 4),
        (2, 1, "B", 0, 6), (2, 1, "A", 1, -6),
        (3, 1, "A", 0, 2), (3, 1, "B", 1, -2),
    ]))
    a = per_deal_margin(res, "A")
    assert a.to_dict() == {(0, 0): 3.0, (0, 1): -2.0}
    assert per_deal_margin(res, "B").to_dict() == {(0, 0): -3.0, (0, 1): 2.0}


BAD = [
    (["--deals", "0"], "--deals: at least 1"),
    (["--sweep-uct", "2,x"], "--sweep-uct: a comma-separated list of numbers"),
    (["--sweep-uct", "5,5"], "listed twice"),
    (["--uct-c", "-1"], "--uct-c: non-negative"),
    (["--sims", "100,1000", "--equal-at", "7"], "--equal-at 7 is not one of --sims"),
    (["--batch-units", "0"], "--batch-units: at least 1"),
    (["--jobs", "0"], "--jobs: a positive number of processes or -1"),
    (["--jobs", "-5"], "--jobs: a positive number of processes or -1"),
    (["--pab-deals", "0"], "--pab-deals: at least 1"),
    (["--sample-size", "0"], "--sample-size: at least 1"),
    (["--deals-at", "10000=0"], "--deals-at: at least 1 deal"),
    (["--equal-ms", "0"], "--equal-ms: a positive number of milliseconds"),
    (["--equal-ms", "5", "--sweep-uct", "2,5"], "--equal-ms: not with --sweep-uct"),
]


@pytest.mark.e2e
@pytest.mark.parametrize("args,words", BAD, ids=[w for _, w in BAD])
def test_peers_refuses_bad_input_in_one_line(tmp_path, args, words):
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, str(EXPERIMENTS / "peers.py"), *args, "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [p.stderr.strip()] and words in p.stderr
    assert not out.exists()


def test_the_documented_exploration_constant_is_the_bots_default():
    """docs/interop.md's table states the ``uct_c`` default of ``ismcts``,
    which ``mcts`` shares (the same UCT formula on the same returns)."""
    pytest.importorskip("pyspiel", reason="the ismcts and mcts bots need open_spiel")
    import re

    from dominoai.interop.openspiel import IsmctsBot, MctsBot
    row = next(line for line in (ROOT / "docs" / "interop.md").read_text().splitlines()
               if line.startswith("| `ismcts` |"))
    stated = float(re.search(r"`uct_c` \(([0-9.]+)", row).group(1))
    assert IsmctsBot.PARAMS["uct_c"].default == stated == 10.0
    assert MctsBot.PARAMS["uct_c"].default == stated
