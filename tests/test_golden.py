"""Behaviour pinned by digests: with the same seeds, every bot at its
declared defaults plays the same events, insane at its per-preset defaults
too, the search decides the same on the golden positions with each of its
options on, and a small tournament gives identical tables.

The digests in ``tests/data/golden.json`` are written by this module
(``python tests/test_golden.py --write``; ``--write-search`` writes the
``tuned`` and ``search`` sections and the events of a preset that has
none). A refactor that changes what any bot plays, what the search values,
or what the tournament reports, fails here.
Regenerate only for an intended change of behaviour, and say so in the
commit.

- ``events``: each bot at its declared defaults (insane's and omniscient's
  per-preset defaults switched off), :func:`bot_events`; the pairs of
  :data:`SLOW_EVENTS` run only with ``-m slow``, and ``events_short`` pins
  their first :data:`SHORT_HANDS` hands in every suite.
- ``tuned``: insane at its per-preset defaults (``TUNED_DEFAULTS``: Draw,
  Block, All Fives, Kozel), :func:`bot_events` over :data:`TUNED_HANDS`
  hands.
- ``search``: for each entry of :data:`SEARCH_CASES`, the moves, values
  (their exact ``repr``), worlds and proposals of insane's (or
  omniscient's) search on the golden positions of each of its presets
  (:func:`golden_positions`), :func:`search_digest`.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("search", "side")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai import Match, preset_names
from dominoai.bots import make_bot
from dominoai.tournament import play_hand, run_tournament

GOLDEN = Path(__file__).with_name("data") / "golden.json"
BOTS = ("easy", "medium", "hard", "insane", "omniscient")
HANDS = 200          # hands per preset and bot
TUNED_HANDS = 100    # hands per preset of insane at its per-preset defaults
#: (preset, bot) whose HANDS-hand digest runs only with ``-m slow`` (they roll
#: out with ``hard``: over a minute each); their first SHORT_HANDS hands, pinned
#: in ``events_short``, run in every suite
SLOW_EVENTS = (("dominoball", "insane"), ("dominoball", "omniscient"))
SHORT_HANDS = 40
POSITIONS = 16       # golden positions per preset
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


def golden_positions(preset: str, n: int = POSITIONS) -> list:
    """The first ``n`` decisions with two or more legal moves of
    medium-vs-medium first hands (seed 5): ``(observation, state)``."""
    from dominoai.tournament import decision_positions

    return decision_positions(preset, n, "medium", seed=5)[:n]


#: name -> (bot, presets, parameters): the search with each kept option on,
#: on top of the preset's defaults (``defaults``: none; ``worlds=50`` keeps
#: the slow options cheap)
SEARCH_CASES = {
    "defaults": ("insane", ("draw", "block", "all_fives", "fives", "kozel", "express",
                            "dominoball", "openspiel_team"), {}),
    "omniscient": ("omniscient", ("draw", "block", "kozel"), {}),
    "omniscient_hidden": ("omniscient", ("draw", "all_fives"), {"boneyard": "hidden"}),
    "no_inference": ("insane", ("draw", "block"), {"inference": False, "worlds": 50}),
    "policy_weight": ("insane", ("block", "kozel"), {"policy_weight": 1.0, "worlds": 50}),
    "policy_weight_off": ("insane", ("block", "kozel"), {"policy_weight": 0.0, "worlds": 50}),
    "draw_weight": ("insane", ("all_fives", "fives"), {"draw_weight": True, "worlds": 50}),
    "draw_history": ("insane", ("draw", "all_fives"),
                     {"draw_weight": True, "draw_history": True, "worlds": 50}),
    "hard_prior": ("insane", ("block", "kozel", "draw"), {"hard_prior": 0.5, "worlds": 50}),
    "sharp_weight": ("insane", ("block", "draw"),
                     {"hard_prior": 0.3, "sharp_weight": 1.0, "worlds": 50}),
    "resample": ("insane", ("block", "draw", "kozel"), {"resample": 4, "worlds": 50}),
    "resample_consistent": ("insane", ("block", "all_fives"),
                            {"resample": 3, "policy_weight": 0.0, "worlds": 50}),
    "exact": ("insane", ("all_fives", "fives", "express"), {"exact": 10, "worlds": 50}),
    "exact_nodes": ("insane", ("block", "draw"), {"exact": 14, "max_nodes": 300, "worlds": 50}),
    "fusion": ("insane", ("block", "draw", "kozel"), {"exact": 12, "fusion": True, "worlds": 50}),
    "fusion_resample": ("insane", ("block", "draw"),
                        {"exact": 12, "fusion": True, "resample": 2, "worlds": 40}),
    "rollout_medium": ("insane", ("block", "all_fives", "kozel"),
                       {"rollout_policy": "medium", "exact": 0, "worlds": 50}),
    "rollout_hard": ("insane", ("block", "draw"),
                     {"rollout_policy": "hard", "exact": 0, "worlds": 30}),
    "hard_plies": ("insane", ("all_fives", "draw"),
                   {"rollout_policy": "hard", "hard_plies": 3, "exact": 0, "worlds": 30}),
    "hard_weights": ("insane", ("dominoball", "block"), {"hard_void": 2.0, "worlds": 30}),
    "rollouts": ("insane", ("block", "fives"), {"rollouts": 3, "exact": 0, "worlds": 40}),
    "halving": ("insane", ("block", "draw"), {"halving": True, "worlds": 50}),
}


def search_digest(case: str, preset: str) -> str:
    """Digest of the search of :data:`SEARCH_CASES` ``case`` on the golden
    positions of ``preset``: one bot (seed 3) decides them in order."""
    from dominoai.bots.pimc import InsaneBot, OmniscientBot

    bot_name, _, params = SEARCH_CASES[case]
    lines = []
    if bot_name == "omniscient":
        bot = OmniscientBot(seed=3, **params)
        for obs, st in golden_positions(preset):
            r = bot.analyze_with_state(obs, st)
            lines.append(f"{r.move} {r.moves.tolist()} {[repr(float(v)) for v in r.values]} "
                         f"{r.worlds} {r.proposals}")
    else:
        bot = InsaneBot(seed=3, **params)
        for obs, _ in golden_positions(preset):
            r = bot.analyze(obs)
            lines.append(f"{r.move} {r.moves.tolist()} {[repr(float(v)) for v in r.values]} "
                         f"{r.worlds} {r.proposals}")
    return _digest(lines)


def compute_search() -> dict:
    """The ``tuned`` and ``search`` sections (insane's own defaults on)."""
    from dominoai.bots.pimc.bots import TUNED_DEFAULTS

    return {"tuned": {p: bot_events(p, "insane", TUNED_HANDS) for p in TUNED_DEFAULTS},
            "search": {f"{c}/{p}": search_digest(c, p)
                       for c, (_, presets, _) in SEARCH_CASES.items() for p in presets}}


def tournament_tables() -> dict:
    res = run_tournament(**TOURNAMENT, jobs=1, progress=False)
    hands = res.hands.drop(columns=["time"]).sort_values(["deal", "rotation", "seat"])
    pairings = res.pairings.round(9)
    return {"hands": _digest(hands.to_csv(index=False).splitlines()),
            "pairings": _digest(pairings.to_csv(index=False).splitlines())}


def compute() -> dict:
    with _no_preset_defaults():
        out = {"events": {f"{p}/{b}": bot_events(p, b) for p in preset_names() for b in BOTS},
               "events_short": {f"{p}/{b}": bot_events(p, b, SHORT_HANDS) for p, b in SLOW_EVENTS},
               "tournament": tournament_tables()}
    return {**out, **compute_search()}


def _golden() -> dict:
    return json.loads(GOLDEN.read_text())


@contextlib.contextmanager
def _no_preset_defaults():
    """insane and omniscient at their declared defaults: their per-preset
    defaults (``TUNED_DEFAULTS``) switched off."""
    from dominoai.bots.pimc import InsaneBot, OmniscientBot
    saved = InsaneBot.PRESET_DEFAULTS, OmniscientBot.PRESET_DEFAULTS
    InsaneBot.PRESET_DEFAULTS, OmniscientBot.PRESET_DEFAULTS = {}, {}
    try:
        yield
    finally:
        InsaneBot.PRESET_DEFAULTS, OmniscientBot.PRESET_DEFAULTS = saved


@pytest.fixture
def declared_defaults():
    """The ``events`` and ``tournament`` digests pin the bots at their
    declared defaults; insane's per-preset defaults are pinned apart
    (``tuned``, ``search``)."""
    with _no_preset_defaults():
        yield


@pytest.mark.parametrize("preset,bot", [
    pytest.param(p, b, id=f"{p}-{b}", marks=[pytest.mark.slow] if (p, b) in SLOW_EVENTS else [])
    for p in preset_names() for b in BOTS])
def test_every_bot_plays_the_same_events(preset, bot, declared_defaults):
    if preset == "pydominoes":   # the preset of the dominoes package: run where it is installed
        pytest.importorskip("dominoes")
    assert bot_events(preset, bot) == _golden()["events"][f"{preset}/{bot}"]


@pytest.mark.parametrize("preset,bot", SLOW_EVENTS, ids=[f"{p}-{b}" for p, b in SLOW_EVENTS])
def test_the_slow_bots_play_the_same_first_events(preset, bot, declared_defaults):
    assert bot_events(preset, bot, SHORT_HANDS) == _golden()["events_short"][f"{preset}/{bot}"]


def test_small_tournament_gives_identical_tables(declared_defaults):
    assert tournament_tables() == _golden()["tournament"]


@pytest.mark.parametrize("preset", ["draw", "block", "all_fives", "kozel"])
def test_insane_at_its_preset_defaults_plays_the_same_events(preset):
    from dominoai.bots.pimc.bots import TUNED_DEFAULTS

    assert set(_golden()["tuned"]) == set(TUNED_DEFAULTS)
    assert bot_events(preset, "insane", TUNED_HANDS) == _golden()["tuned"][preset]


@pytest.mark.parametrize("case", list(SEARCH_CASES))
def test_search_decides_the_same_with_each_option(case):
    want = _golden()["search"]
    presets = SEARCH_CASES[case][1]
    got = {p: search_digest(case, p) for p in presets}
    assert got == {p: want[f"{case}/{p}"] for p in presets}


def test_medium_rollout_moves_are_medium_pick():
    """The medium rollout's own choice (``rollouts.medium_move``) is the
    medium bot's (``simple.medium_pick``) at every decision of hands played
    out by it, in every preset (replacements included: both skip them)."""
    from dominoai.bots.pimc.rollouts import medium_move
    from dominoai.bots.simple import medium_pick
    from dominoai.engine import kernels as K
    from dominoai.engine import layout as L

    decisions = 0
    for preset in preset_names():
        for k in range(6):
            m = Match(preset, seed=500 + k)
            m.new_hand()
            st = m.state_copy()
            st[L.S_LOG] = 0
            rv = m.rules.vector()
            ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
            buf = np.zeros(L.MAX_MOVES, np.int64)
            scratch = np.zeros(L.S_SIZE, np.int64)
            while st[L.S_CUR] >= 0:
                n = K.legal_moves(st, rv, buf)
                got = medium_move(st, rv, buf, n, scratch)
                i = medium_pick(st, rv, buf, n)
                assert got == buf[i if i >= 0 else 0], (preset, k, buf[:n].tolist())
                decisions += n > 1
                K.apply_move(st, rv, ev, got)
    assert decisions > 300


if __name__ == "__main__":
    if "--write-search" in sys.argv:
        old = _golden()
        with _no_preset_defaults():   # a preset without digests yet (pydominoes)
            for p in preset_names():
                for b in BOTS:
                    old["events"].setdefault(f"{p}/{b}", bot_events(p, b))
            old.setdefault("events_short", {f"{p}/{b}": bot_events(p, b, SHORT_HANDS)
                                            for p, b in SLOW_EVENTS})
        GOLDEN.write_text(json.dumps({**old, **compute_search()}, indent=1, sort_keys=True)
                          + "\n")
        print(f"wrote {GOLDEN} (missing events, tuned, search)")
    elif "--write" in sys.argv:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN}")
