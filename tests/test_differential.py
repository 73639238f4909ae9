"""Differential test: the engine facade against the pure-Python reference.

Random hands are played in lock-step by :class:`dominoai.Match` /
:class:`dominoai.Hand` and by ``tests/reference.py``'s ``RefMatch`` (written
independently from ``docs/rules.md``): the same deal (a permutation of the 28 tiles
from a seeded ``numpy.random.Generator``), the same leader, and at every
decision the same seat and the same set of legal moves; one move is picked
uniformly at random and applied to both (the lead sometimes laid with its
lower pip on the left). At the end of each hand the events and the hand
results must agree; a share of the runs plays whole matches (the rules
choosing the later leaders) and compares the match results too.

Every run has its own seed ``(BASE_SEED, preset index, run)``, printed in a
failure message together with a ready-to-paste line that replays just that
run (see :func:`run_one`).

The default suite plays ``HANDS`` hands per preset (``VARIANT_HANDS`` per
player-count variant); ``-m slow`` plays ``SLOW_HANDS`` (``SLOW_VARIANT_HANDS``).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import dominoai
from dominoai import Match

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference as ref  # noqa: E402

BASE_SEED = 20240611
HANDS = 3_000            # random hands per preset (default suite): each situation of
                         # REQUIRED is reached 6 times or more in these hands
VARIANT_HANDS = 1_000    # per player-count / lead variant: each of VARIANT_REQUIRED 20 times or more
SLOW_HANDS = 200_000     # -m slow: per preset
SLOW_VARIANT_HANDS = 80_000  # -m slow: per variant
MATCH_SHARE = 8          # one run in MATCH_SHARE plays a whole match
MAX_MATCH_HANDS = 500    # a match longer than this is a failure

PRESETS = dominoai.preset_names()
VARIANTS = [
    ("draw", {"players": 3}),
    ("draw", {"players": 4}),
    ("block", {"players": 3}),
    ("block", {"players": 4}),
    ("all_fives", {"players": 3}),
    ("all_fives", {"players": 4}),
    ("express", {"players": 3}),
    ("express", {"players": 4}),
    ("express", {"players": 4, "partnerships": True}),
    ("draw", {"first_lead": "highest_double"}),
    ("block", {"first_lead": "highest_double"}),
]


def _vid(v):
    preset, ov = v
    return preset + "".join(f"-{k}={val}" for k, val in ov.items())


class Mismatch(AssertionError):
    pass


def _eng_event(e) -> tuple:
    """An engine Event in the reference's tuple form."""
    if e.kind == "play":
        return ("play", e.seat, e.tile.id, e.end)
    if e.kind == "draw":
        return ("draw", e.seat, e.count)
    return (e.kind, e.seat)


def _ref_events(r, lead_orientation: int) -> list:
    """The reference's events, with the lead's end carrying its orientation.

    The engine's lead event names end 1 when the lead was laid lower pip on
    the left (the kernel's move code, kept so records can write the lead the
    way it lies); the reference always says end 0. A double has no
    orientation: end 0 in both."""
    evs = list(r.events)
    i = next((i for i, e in enumerate(evs) if e[0] == "play"), None)  # replacements may come first
    if i is not None and lead_orientation and not ref.is_double(evs[i][2]):
        evs[i] = evs[i][:3] + (1,)
    return evs


def _ref_hand_result(r) -> dict | None:
    res = r.hand_result()
    if res is None:
        return None
    return {"end": res["end"], "winner": res["winner"], "points": list(res["points"]),
            "pips": list(res["pips"])}


def play_hand_lockstep(m: Match, r: ref.RefMatch, rng: np.random.Generator, first: bool,
                       trace: list) -> None:
    """Deal one hand to both and play it to its end in lock-step; raise
    :class:`Mismatch` at the first difference. ``trace`` collects the deal
    and the moves (for the failure message)."""
    rules = m.rules
    n, hs = rules.players, rules.hand_size
    perm = rng.permutation(28).tolist()
    deal = [perm[s * hs:(s + 1) * hs] for s in range(n)]
    bone = perm[n * hs:]
    leader = int(rng.integers(n)) if first and rules.first_lead == "lot" else None
    trace.append(("deal", deal, bone, leader))
    h = m.new_hand(deal, bone, leader=leader)
    r.new_hand(deal, bone, leader=leader)
    if h.leader != r.leader:
        raise Mismatch(f"leader: engine {h.leader}, reference {r.leader}")
    lead_o = 0
    while True:
        over = h.over
        if over != r.hand_over():
            raise Mismatch(f"hand over: engine {over}, reference {r.hand_over()}")
        if over:
            break
        if h.seat != r.seat:
            raise Mismatch(f"seat to play: engine {h.seat}, reference {r.seat}")
        moves = {("replace",) if mv.replace else ("play", mv.tile.id, mv.end): mv
                 for mv in h.legal_moves()}
        rmoves = r.legal_moves()
        if moves.keys() != rmoves:
            raise Mismatch(f"legal moves of seat {h.seat}: engine-only "
                           f"{sorted(moves.keys() - rmoves)}, reference-only "
                           f"{sorted(rmoves - moves.keys())}")
        keys = sorted(moves)
        mv = keys[int(rng.integers(len(keys)))]
        orient = 0
        if not r.ends and mv[0] == "play":
            orient = int(rng.integers(2))
            lead_o = orient
        trace.append((mv, orient))
        h.play(moves[mv], orientation=orient)
        r.play(mv, orientation=orient)
        if h.hand_sizes != tuple(len(x) for x in r.hands):
            raise Mismatch(f"hand sizes after {mv}: engine {h.hand_sizes}, "
                           f"reference {tuple(len(x) for x in r.hands)}")
        if h.boneyard_size != len(r.boneyard):
            raise Mismatch(f"boneyard after {mv}: engine {h.boneyard_size}, "
                           f"reference {len(r.boneyard)}")
        if not r.hand_over():
            ends = tuple((k, p, kind) for k, (p, kind) in enumerate(r.ends))
            if h.ends != ends:
                raise Mismatch(f"ends after {mv}: engine {h.ends}, reference {ends}")
    ev = [_eng_event(e) for e in h.events]
    rev = _ref_events(r, lead_o)
    if ev != rev:
        i = next((i for i, (a, b) in enumerate(zip(ev, rev)) if a != b), min(len(ev), len(rev)))
        raise Mismatch(f"events differ from #{i}: engine {ev[i:i + 3]}, reference {rev[i:i + 3]}")
    er = h.result.to_dict() if h.result is not None else None
    rr = _ref_hand_result(r)
    if er != rr:
        raise Mismatch(f"hand result: engine {er}, reference {rr}")


def _match_dict(m: Match) -> dict:
    return m.result.to_dict()


def _features(r: ref.RefMatch, whole_match: bool, seen) -> None:
    """Count the rare situations a finished hand of the reference reached, so
    the suite can check that random play really exercises them."""
    c = r.cfg
    res = r.hand_result()
    kinds = {e[0] for e in r.events}
    seen.update(f"ev-{k}" for k in kinds)
    seen[res["end"] or "cut"] += 1
    if res["end"] and res["winner"] is None:
        seen["no-winner"] += 1
    if len(r.ends) == 4:
        seen["spinner-open"] += 1
    if any(h == {ref.ZERO_ZERO} for h in r.hands):
        seen["alone-00"] += 1
    if any(h == {ref.SIX_SIX} for h in r.hands) and res["end"] == "domino":
        seen["alone-66"] += 1
    if r.egg_carry:
        seen["egg-carried"] += 1
    if res["end"] == "blocked":
        pips = res["pips"]
        sides = [sum(pips[s] for s in range(c.players) if c.side(s) == d) for d in range(c.n_sides)]
        if sides.count(min(sides)) > 1:
            seen["blocked-tie"] += 1
    mr = r.match_result()
    if whole_match:
        if mr["finished"]:
            seen["match-over"] += 1
        elif c.target and max(mr["scores"]) >= c.target:
            seen["tie-for-first-continued"] += 1
    if mr["finished"] and mr["winner"] is None:
        seen["match-drawn"] += 1
    if mr.get("dry_goat"):
        seen["dry-goat"] += 1


def run_one(preset: str, overrides: dict, seed, whole_match: bool, seen=None) -> int:
    """One run: a first hand, or a whole match. Returns the hands played;
    ``seen`` (a Counter) collects the situations reached.

    :raises Mismatch: with the seed and the trace of the failing hand.
    """
    rng = np.random.default_rng(seed)
    m = Match(preset, seed=0, **overrides)
    r = ref.RefMatch(preset, **overrides)
    hands = 0
    trace: list = []
    try:
        while True:
            trace = []
            play_hand_lockstep(m, r, rng, hands == 0, trace)
            em, rm = _match_dict(m), r.match_result()
            if em != rm:
                raise Mismatch(f"match result after the hand: engine {em}, reference {rm}")
            if seen is not None:
                _features(r, whole_match, seen)
            hands += 1
            if not whole_match or m.finished:
                break
            if hands >= MAX_MATCH_HANDS:
                hands -= 1
                raise Mismatch(f"match not over after {hands + 1} hands: {em}")
        if whole_match:
            with pytest.raises(ValueError):
                m.new_hand()
    except Mismatch as e:
        raise Mismatch(
            f"{preset} {overrides} seed={seed!r} whole_match={whole_match} hand #{hands + 1}: {e}\n"
            f"  replay: run_one({preset!r}, {overrides!r}, {seed!r}, {whole_match})\n"
            f"  trace of the hand (deal, boneyard, leader; then (move, orientation)): {trace}"
        ) from None
    return hands


def run_many(preset: str, overrides: dict, n_hands: int, tag: int, seen=None) -> tuple[int, int]:
    """Runs until ``n_hands`` hands were played; returns (runs, hands)."""
    hands = runs = 0
    while hands < n_hands:
        seed = (BASE_SEED, tag, runs)
        hands += run_one(preset, overrides, seed, runs % MATCH_SHARE == MATCH_SHARE - 1, seen)
        runs += 1
    return runs, hands


# Situations the random runs must reach (else the comparison proves little):
# counted by _features on the reference's side.
_COMMON = {"domino", "blocked", "blocked-tie", "ev-pass", "match-over"}
REQUIRED = {
    "draw": _COMMON | {"ev-draw", "no-winner"},
    "block": _COMMON | {"no-winner"},
    "all_fives": _COMMON | {"ev-draw", "spinner-open"},
    "fives": _COMMON | {"ev-draw", "cut"},
    "kozel": _COMMON | {"egg-carried", "dry-goat", "alone-00"},
    "express": _COMMON,
    "dominoball": _COMMON | {"ev-draw", "ev-replace", "spinner-open", "match-drawn", "alone-66",
                             "alone-00"},
    "openspiel_block": _COMMON | {"match-drawn"},
    "openspiel_team": _COMMON | {"match-drawn"},
    "pydominoes": _COMMON,
}


VARIANT_REQUIRED = {"domino", "blocked", "ev-pass", "match-over"}


def _check_reached(preset, seen, required=None):
    missing = (REQUIRED[preset] if required is None else required) - set(seen)
    assert not missing, f"{preset}: the random runs never reached {sorted(missing)} (reached: {dict(seen)})"


def _tag(preset, overrides):
    return PRESETS.index(preset) * 100 + (VARIANTS.index((preset, overrides)) + 1
                                          if overrides else 0)


@pytest.mark.parametrize("preset", PRESETS)
def test_differential(preset):
    seen = Counter()
    run_many(preset, {}, HANDS, _tag(preset, {}), seen)
    _check_reached(preset, seen)


@pytest.mark.parametrize("variant", VARIANTS, ids=[_vid(v) for v in VARIANTS])
def test_differential_variant(variant):
    preset, ov = variant
    seen = Counter()
    run_many(preset, ov, VARIANT_HANDS, _tag(preset, ov), seen)
    _check_reached(preset, seen, VARIANT_REQUIRED)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_differential_slow(preset):
    seen = Counter()
    run_many(preset, {}, SLOW_HANDS, _tag(preset, {}) + 50, seen)
    _check_reached(preset, seen)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS, ids=[_vid(v) for v in VARIANTS])
def test_differential_variant_slow(variant):
    preset, ov = variant
    seen = Counter()
    run_many(preset, ov, SLOW_VARIANT_HANDS, _tag(preset, ov) + 50, seen)
    _check_reached(preset, seen, VARIANT_REQUIRED)


if __name__ == "__main__":  # timing: python tests/test_differential.py [hands]
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for p, ov in [(p, {}) for p in PRESETS] + VARIANTS:
        t0 = time.perf_counter()
        seen = Counter()
        runs, hands = run_many(p, ov, n, _tag(p, ov), seen)
        dt = time.perf_counter() - t0
        print(f"{_vid((p, ov)):40s} {runs:6d} runs {hands:6d} hands {dt:6.2f}s "
              f"{1e6 * dt / hands:7.1f} us/hand")
        print("    ", dict(sorted(seen.items())))
