"""Behaviour pinned before the issue-10 restructuring: with the same seeds,
every bot at its defaults plays the same events, and a small tournament gives
identical tables.

The digests in ``tests/data/golden.json`` were written by this module
(``python tests/test_golden.py --write``) on the code before the
restructuring; a refactor that changes what any bot plays, or what the
tournament reports, fails here. Regenerate only for an intended change of
behaviour, and say so in the commit.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from dominoai import Match, preset_names
from dominoai.bots import make_bot
from dominoai.tournament import play_hand, run_tournament

GOLDEN = Path(__file__).with_name("data") / "golden.json"
BOTS = ("easy", "medium", "hard", "insane", "omniscient")
HANDS = 200          # hands per preset and bot
TOURNAMENT = dict(variant="draw", bots=["easy", "hard", "insane"], hands=12, seed=7)


def _digest(lines) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()[:20]


def bot_events(preset: str, bot: str, hands: int = HANDS) -> str:
    """Digest of the events of ``hands`` hands of ``preset``: ``bot`` at its
    defaults in seat 0 (seed 11), ``hard`` in the other seats; each hand the
    first of a match seeded with its index."""
    lines = []
    for k in range(hands):
        m = Match(preset, seed=1000 + k)
        bots = [make_bot(bot if s == 0 else "hard", seed=11 + s) for s in range(m.rules.players)]
        h = play_hand(m, bots)
        lines.append(";".join(str(e) for e in h.events))
        lines.append(repr(h.result.points))
    return _digest(lines)


def tournament_tables() -> dict:
    res = run_tournament(**TOURNAMENT, jobs=1, progress=False)
    hands = res.hands.drop(columns=["time"]).sort_values(["deal", "rotation", "seat"])
    pairings = res.pairings.round(9)
    return {"hands": _digest(hands.to_csv(index=False).splitlines()),
            "pairings": _digest(pairings.to_csv(index=False).splitlines())}


def compute() -> dict:
    return {"events": {f"{p}/{b}": bot_events(p, b) for p in preset_names() for b in BOTS},
            "tournament": tournament_tables()}


def _golden() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.fixture(autouse=True)
def _declared_defaults(monkeypatch):
    """The digests pin the bots at their declared defaults. The per-preset
    defaults that tuning added later (issue 11, ``TUNED_DEFAULTS``) are a
    deliberate change of what insane plays in those presets, tested in
    tests/test_insane.py; here they are switched off, so that everything
    else the code does is still held to the digests."""
    from dominoai.bots.pimc import InsaneBot, OmniscientBot
    monkeypatch.setattr(InsaneBot, "PRESET_DEFAULTS", {})
    monkeypatch.setattr(OmniscientBot, "PRESET_DEFAULTS", {})


@pytest.mark.parametrize("preset", preset_names())
def test_every_bot_plays_the_same_events(preset):
    want = _golden()["events"]
    if not any(k.startswith(f"{preset}/") for k in want):  # never regenerate the digests
        pytest.skip(f"{preset}: a preset added after the golden digests were written")
    got = {b: bot_events(preset, b) for b in BOTS}
    assert got == {b: want[f"{preset}/{b}"] for b in BOTS}


def test_small_tournament_gives_identical_tables():
    assert tournament_tables() == _golden()["tournament"]


if __name__ == "__main__":
    if "--write" in sys.argv:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN}")
