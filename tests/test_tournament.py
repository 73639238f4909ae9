"""The tournament harness: schedule, duplicate deals, determinism across jobs,
kill-and-resume, bot failures, statistics, provenance, analyses in the records,
Dask and the notebook (the plots: tests/test_plots.py)."""
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai import Match, get_rules
from dominoai.bots import BaseBot, make_bot, register_bot
from dominoai.records import load_record, replay
from dominoai.tournament import (BotError, BotFailure, bradley_terry, load_results, make_schedule,
                                 paired_ci, pairing_stats, pairings, ratings, reproduce, rotations,
                                 run_tournament, seating, wilson)
from dominoai.tournament.schedule import deal_seed
from notebook_runner import has_figure, run_notebook, text_of

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- test bots
SLEEP = [0.0]


@register_bot("sleepy")
class SleepyBot(BaseBot):
    """easy, but slow when SLEEP[0] > 0 (the same moves either way)."""

    name = "sleepy"

    def act(self, obs):
        if SLEEP[0]:
            time.sleep(SLEEP[0])
        return _easy_move(self, obs)


def _easy_move(bot, obs):
    codes = obs.legal_codes()
    from dominoai import Move
    return Move.from_code(codes[bot.rng.integers(len(codes))])


@register_bot("flaky")
class FlakyBot(BaseBot):
    """Plays like easy; raises on its 3rd decision."""

    name = "flaky"

    def __init__(self, seed=None, **params):
        super().__init__(seed, **params)
        self.decisions = 0

    def act(self, obs):
        self.decisions += 1
        if self.decisions == 3:
            raise RuntimeError("flaky bot gives up\non purpose")
        return _easy_move(self, obs)


SEEN_STATES = []


@register_bot("peeker")
class PeekerBot(BaseBot):
    """An 'omniscient'-style bot: it declares ``needs_state``, so the harness
    must hand it the true state."""

    name = "peeker"
    needs_state = True

    def act(self, obs):  # pragma: no cover - must not be called
        raise AssertionError("act_with_state should have been used")

    def act_with_state(self, obs, st):
        from dominoai.engine import layout as L
        from dominoai.observation import O_HAND
        SEEN_STATES.append((int(obs.array[O_HAND]), int(st[L.S_HAND + obs.seat]),
                            int(st[L.S_HAND + 1 - obs.seat])))
        return _easy_move(self, obs)


def _no_time(df):
    return df.drop(columns="time")


# ---------------------------------------------------------------- schedule
def test_pairings_two_players():
    r = get_rules("draw")
    bots = ["easy", "medium", "hard", "insane"]
    ps = pairings(bots, r)
    assert len(ps) == 6 and len(set(ps)) == 6
    assert all(a != b for a, b in ps)
    assert rotations(r) == 2
    assert [seating(("a", "b"), k, r) for k in range(2)] == [("a", "b"), ("b", "a")]


def test_pairings_three_and_four_players():
    r3 = get_rules("draw", players=3)
    assert pairings(["a", "b", "c", "d"], r3) == [("a", "b", "c"), ("a", "b", "d"), ("a", "c", "d"),
                                                 ("b", "c", "d")]
    assert pairings(["a", "b"], r3) == [("a", "a", "b"), ("a", "b", "b")]
    assert rotations(r3) == 3
    r4 = get_rules("block", players=4)
    assert pairings(["a", "b", "c", "d"], r4) == [("a", "b", "c", "d")]
    assert len(pairings(list("abcde"), r4)) == 5
    assert all(Counter(t) for t in pairings(["a", "b", "c"], r4))
    assert pairings(["a", "b", "c"], r4) == [("a", "a", "b", "c"), ("a", "b", "b", "c"), ("a", "b", "c", "c")]
    # every bot sits in every seat exactly once over the rotations
    for r, lineup in ((r3, ("a", "b", "c")), (r4, ("a", "b", "c", "d"))):
        seats = [seating(lineup, k, r) for k in range(rotations(r))]
        for s in range(r.players):
            assert sorted(x[s] for x in seats) == sorted(lineup)


def test_pairings_partnerships():
    r = get_rules("kozel")
    assert rotations(r) == 2
    ps = pairings(["easy", "medium", ("hard", "easy")], r)
    assert ps == [(("easy", "easy"), ("medium", "medium")), (("easy", "easy"), ("hard", "easy")),
                  (("medium", "medium"), ("hard", "easy"))]
    lineup = (("a1", "a2"), ("b1", "b2"))
    assert seating(lineup, 0, r) == ("a1", "b1", "a2", "b2")
    assert seating(lineup, 1, r) == ("b1", "a1", "b2", "a2")   # the pairs swapped
    assert pairings(["x", "y"], get_rules("openspiel_team")) == [(("x", "x"), ("y", "y"))]


def test_schedule_errors():
    r = get_rules("draw")
    with pytest.raises(ValueError, match="listed twice"):
        pairings(["easy", "easy"], r)
    with pytest.raises(ValueError, match="partnership"):
        pairings([("easy", "medium"), "hard"], r)
    with pytest.raises(ValueError, match="positive"):
        make_schedule(r, ["easy", "medium"], 0)
    with pytest.raises(ValueError, match="unknown bot"):
        run_tournament("draw", ["easy", "nosuchbot"], hands=2, progress=False)
    with pytest.raises(ValueError, match="parquet or .csv"):
        run_tournament("draw", ["easy", "medium"], hands=2, progress=False, out="x.txt")


def test_schedule_seeds_and_batches():
    r = get_rules("draw")
    s = make_schedule(r, ["a", "b", "c"], 50, seed=7, batch_units=4)
    units = [u for b in s.batches() for u in range(b.start, b.stop)]
    assert units == list(range(s.units)) and s.units == 150
    assert s.games == 300
    seeds = [s.deal_seed(d) for d in range(50)]
    assert len(set(seeds)) == 50 and all(0 <= x < 2 ** 63 for x in seeds)
    assert seeds == [deal_seed(7, d) for d in range(50)]
    assert deal_seed(8, 0) != seeds[0]
    ids = {s.game_id(t, d, k) for t in range(3) for d in range(50) for k in range(2)}
    assert ids == set(range(300))
    # the tournament id does not depend on anything but the configuration
    assert s.ident() == make_schedule(r, ["a", "b", "c"], 50, seed=7, batch_units=4).ident()
    assert s.ident() != make_schedule(r, ["a", "b", "c"], 50, seed=8, batch_units=4).ident()


# ---------------------------------------------------------------- playing
def test_hands_table_and_duplicate_deals(tmp_path):
    res = run_tournament("draw", ["easy", "medium"], hands=6, seed=3, progress=False, records=tmp_path)
    h = res.hands
    assert len(h) == 6 * 2 * 2
    assert list(h.columns[:6]) == ["tournament", "table", "pairing", "deal", "rotation", "match"]
    assert not h.duplicated(["match", "hand", "seat"]).any()
    # per hand: exactly one row per seat; the side points sum as the result says
    for (m, _), g in h.groupby(["match", "hand"]):
        assert sorted(g["seat"]) == [0, 1]
        assert g["won"].sum() <= 1
        assert np.isclose(g["margin"].sum(), 0)
    # the same deal in both rotations, the bots swapped
    files = sorted(tmp_path.glob("match-*.json"))
    assert len(files) == 12
    recs = [json.loads(f.read_text()) for f in files]
    by_deal = {}
    for rec in recs:
        t = rec["tournament"]
        by_deal.setdefault(t["deal"], []).append((t["rotation"], rec["seats"], rec["hands"][0]["deal"],
                                                  rec["hands"][0]["boneyard"], rec["hands"][0]["leader"]))
        # every record replays to the table's points
        out = replay(rec).to_dict()
        rows = h[h["match"] == t["match"]].sort_values("seat")
        assert out["hands"][0]["points"] == [int(rows[rows["side"] == s]["points"].iloc[0]) for s in range(2)]
    for d, games in by_deal.items():
        (r0, s0, deal0, bone0, lead0), (r1, s1, deal1, bone1, lead1) = sorted(games)
        assert deal0 == deal1 and bone0 == bone1 and lead0 == lead1
        assert [x.split(":")[0] for x in s0] == ["easy", "medium"]
        assert [x.split(":")[0] for x in s1] == ["medium", "easy"]
        # and Match(rules, seed=deal_seed) deals it again
        seed = int(h[h["deal"] == d]["deal_seed"].iloc[0])
        hand = Match("draw", seed=seed).new_hand()
        assert [[str(t) for t in hand.dealt(s)] for s in range(2)] == deal0


def test_jobs_1_and_2_identical():
    kw = dict(variant="draw", bots=["easy", "medium", "sleepy"], hands=24, seed=11, progress=False,
              batch_units=5)
    a = run_tournament(jobs=1, **kw)
    b = run_tournament(jobs=2, **kw)
    assert len(a.hands) == 3 * 24 * 2 * 2
    pdt.assert_frame_equal(_no_time(a.hands), _no_time(b.hands))
    # nor does the batching change anything
    c = run_tournament(jobs=1, **dict(kw, batch_units=7))
    pdt.assert_frame_equal(_no_time(a.hands), _no_time(c.hands))
    # matches too
    kw = dict(variant="block", bots=["easy", "medium"], matches=3, seed=2, progress=False, batch_units=1)
    a, b = run_tournament(jobs=1, **kw), run_tournament(jobs=2, **kw)
    pdt.assert_frame_equal(_no_time(a.hands), _no_time(b.hands))
    pdt.assert_frame_equal(a.matches, b.matches)


def test_matches_mode_and_files(tmp_path):
    out = tmp_path / "res" / "m.csv"
    res = run_tournament("block", ["easy", "medium"], players=3, matches=2, seed=1, progress=False,
                         out=out)
    m, h = res.matches, res.hands
    assert out.exists() and (tmp_path / "res" / "m.matches.csv").exists()
    assert not (tmp_path / "res" / "m.csv.parts").exists()
    assert len(m) == 2 * 2 * 3 * 3           # tables x matches x rotations x seats
    assert m["finished"].all()
    assert (m.groupby("match")["won"].sum() <= 1).all()
    hands_per_match = h.groupby("match")["hand"].nunique()
    assert (m.groupby("match")["hands"].first() == hands_per_match).all()
    # the final score of a match is the last hand's cumulative score
    last = h.sort_values("hand").groupby(["match", "seat"]).tail(1).set_index(["match", "seat"])["score"]
    assert (m.set_index(["match", "seat"])["score"] == last.loc[m.set_index(["match", "seat"]).index]).all()
    back = load_results(out)
    pdt.assert_frame_equal(back.hands, res.hands, check_dtype=False)
    pdt.assert_frame_equal(back.matches, res.matches, check_dtype=False)
    # resuming a finished run reads it back
    again = run_tournament("block", ["easy", "medium"], players=3, matches=2, seed=1, progress=False,
                           out=out, resume=True)
    assert again.played == 0 and len(again.hands) == len(h)
    assert "Pairings" in res.summary() and "Ratings" in res.summary()


def test_partnerships_run(capsys):
    res = run_tournament("openspiel_team", ["easy", "medium"], hands=10, progress=True)
    err = capsys.readouterr().err
    assert "20/20" in err and "hand/s" in err   # the progress bar
    h = res.hands
    assert len(h) == 10 * 2 * 4
    for (_, _), g in h.groupby(["match", "hand"]):
        g = g.sort_values("seat")
        assert list(g["bot"])[0] == list(g["bot"])[2] and list(g["bot"])[1] == list(g["bot"])[3]
        assert list(g["side"]) == [0, 1, 0, 1]
    p = res.pairings
    assert len(p) == 1 and p["games"].iloc[0] == 20
    # the summary's rate: whole hands/s, one decimal below 10 (a cold cache is slow)
    res.played, res.elapsed = 24, 69.0
    assert "24 played in 69.0 s (0.3 hands/s)" in res.summary()
    res.played, res.elapsed = 2000, 4.0
    assert "2000 played in 4.0 s (500 hands/s)" in res.summary()
    res.played, res.elapsed = 80, 0.043     # a fast run: two significant digits, not "0.0 s"
    assert "80 played in 0.043 s (1860 hands/s)" in res.summary()


def test_omniscient_bot_gets_the_true_state():
    SEEN_STATES.clear()
    run_tournament("block", ["peeker", "easy"], hands=2, progress=False)
    assert SEEN_STATES
    for own_obs, own_st, other in SEEN_STATES:
        assert own_obs == own_st and other != 0


class _Plain:
    """A bot with an ``act_with_state`` method but no ``needs_state``: the
    method alone does not make the harness hand it the state."""

    def __init__(self):
        self.calls = []

    def act(self, obs):
        self.calls.append("act")
        return obs.legal_moves()[0]

    def act_with_state(self, obs, st):  # pragma: no cover - must not be called
        self.calls.append("act_with_state")
        return obs.legal_moves()[0]


def test_needs_state_is_the_one_signal():
    from dominoai.tournament import decide
    m = Match("block", seed=1)
    h = m.new_hand()
    plain = _Plain()
    decide(plain, h.observe(h.seat), m)
    assert plain.calls == ["act"]
    plain.needs_state = True
    decide(plain, h.observe(h.seat), m)
    assert plain.calls == ["act", "act_with_state"]


def test_margins_turn_the_sign_where_low_is_good():
    from dominoai.rules import margins
    # two sides: own minus other; three seats: own minus the mean of the others
    assert margins(get_rules("draw"), (14, 0)) == [14.0, -14.0]
    assert margins(get_rules("draw", players=3), (0, 9, 3)) == [-6.0, 7.5, -1.5]
    # Kozel: the pair that recorded 25 is 25 worse off
    assert margins(get_rules("kozel"), (25, 0)) == [-25.0, 25.0]
    # the sign follows the target, not what a hand scores
    assert margins(get_rules("kozel", target_mode="reach_wins"), (25, 0)) == [25.0, -25.0]


def test_kozel_margin_is_better_for_the_pair_that_recorded_less():
    res = run_tournament("kozel", ["easy", "medium"], hands=3, seed=2, progress=False)
    for _, g in res.hands.groupby(["match", "hand"]):
        pts = g.groupby("side")["points"].first()
        marg = g.groupby("side")["margin"].first()
        assert marg[0] == pts[1] - pts[0] and marg[1] == pts[0] - pts[1]


def test_the_package_exports_the_split_modules_names():
    import dominoai.tournament as T
    from dominoai.tournament import loop, run, storage
    assert len(T.__all__) == len(set(T.__all__))
    assert all(hasattr(T, n) for n in T.__all__)
    assert T.decide is loop.decide and T.play_hand is loop.play_hand and T.BotFailure is loop.BotFailure
    assert T.load_results is storage.load_results and T.TournamentResult is storage.TournamentResult
    assert T.run_tournament is run.run_tournament and T.reproduce is run.reproduce


# ---------------------------------------------------------------- provenance
def _expected_rules(rules) -> dict:
    import dataclasses
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}


@pytest.mark.parametrize("name", ["r.parquet", "r.csv"])
def test_results_files_carry_their_provenance(tmp_path, name):
    from dominoai import __version__
    from dominoai._numba_cache import source_hash
    out = tmp_path / name
    res = run_tournament("block", ["easy", "medium"], players=3, hands=3, seed=17, progress=False, out=out)
    back = load_results(out)
    p = back.provenance
    assert p == res.provenance and p  # read back as written
    assert p["format"] == "dominoai.provenance/1"
    assert p["command"] == (f"run_tournament(variant='block', bots=['easy', 'medium'], players=3, "
                            f"hands=3, seed=17, out={str(out)!r}, progress=False)")
    assert p["seed"] == 17 and p["dominoai"] == __version__ and p["code_hash"] == source_hash()
    assert p["rules"] == _expected_rules(get_rules("block", players=3))
    assert p["variant"] == "block" and p["players"] == 3 and p["mode"] == "hands" and p["deals"] == 3
    assert p["bots"] == ["easy", "medium"] and p["tournament"] == res.hands["tournament"].iloc[0]
    if name.endswith(".csv"):
        side = json.loads((tmp_path / "r.provenance.json").read_text())
        assert side == p
    else:
        meta = pq.read_schema(out).metadata
        assert json.loads(meta[b"dominoai.provenance"]) == p
    # the tables are what they were
    pdt.assert_frame_equal(back.hands, res.hands, check_dtype=False)


def test_matches_file_carries_the_provenance_too(tmp_path):
    from dominoai.tournament import read_provenance
    out = tmp_path / "m.parquet"
    res = run_tournament("block", ["easy", "medium"], matches=1, target=20, seed=2, progress=False, out=out)
    assert read_provenance(tmp_path / "m.matches.parquet") == res.provenance
    assert res.provenance["mode"] == "matches" and res.provenance["rules"]["target"] == 20
    assert "target=20" in res.provenance["command"]


def test_a_results_file_without_provenance_reads_as_empty(tmp_path):
    from dominoai.tournament import read_provenance
    res = run_tournament("block", ["easy", "medium"], hands=2, progress=False)
    res.hands.to_parquet(tmp_path / "old.parquet", index=False)
    res.hands.to_csv(tmp_path / "old.csv", index=False)
    assert load_results(tmp_path / "old.parquet").provenance == {}
    assert read_provenance(tmp_path / "old.csv") == {}
    (tmp_path / "old.provenance.json").write_text("{broken")
    with pytest.raises(ValueError, match="old.provenance.json: the provenance is not valid JSON"):
        load_results(tmp_path / "old.csv")


# ---------------------------------------------------------------- analysis in the records
def test_records_carry_insane_analysis(tmp_path):
    """A real insane bot: every searched decision's move values are in the
    record beside the move it chose, the record replays, and the viewer's
    frames show the values."""
    from dominoai.viewer import record_frames
    rec_dir = tmp_path / "rec"
    res = run_tournament("draw", ["hard", "insane:worlds=12"], hands=2, seed=6, progress=False,
                         records=rec_dir, analysis=True)
    files = sorted(rec_dir.glob("match-*.json"))
    assert len(files) == 4
    seen = 0
    for f in files:
        rec = json.loads(f.read_text())
        out = replay(f).to_dict()              # the analysis does not stop the replay
        rows = res.hands[res.hands["match"] == rec["tournament"]["match"]].sort_values("side")
        assert out["hands"][0]["points"] == list(rows["points"])
        insane_seat = next(i for i, s in enumerate(rec["seats"]) if s.startswith("insane"))
        # which seat made each move: replay the events
        hand = replay(f).match.hands[0]
        for ev, mv in zip(hand.events, rec["hands"][0]["moves"]):
            if "analysis" not in mv:
                continue
            seen += 1
            assert ev.seat == insane_seat and ev.kind == "play"
            a = mv["analysis"]
            assert all(e["n"] == 12 for e in a)
            assert all(round(e["value"], 4) == e["value"] for e in a)
            assert len({e["move"] for e in a}) == len(a) >= 2   # forced moves carry none
            if "end" in mv:  # not the lead: the move played is the best valued (first of ties)
                best = a[int(np.argmax([e["value"] for e in a]))]
                assert best["move"] == f"{mv['tile']} {mv['end']}"
        frames = record_frames(f)["frames"]
        assert sum(fr["analysis"] is not None for fr in frames) == \
            sum("analysis" in mv for mv in rec["hands"][0]["moves"])
    assert seen > 0
    # without analysis=True the records carry none
    plain = tmp_path / "plain"
    run_tournament("draw", ["hard", "insane:worlds=12"], hands=1, seed=6, progress=False, records=plain)
    assert not any("analysis" in f.read_text() for f in plain.glob("*.json"))


def test_analysis_needs_records():
    with pytest.raises(ValueError, match="give a records directory"):
        run_tournament("draw", ["easy", "medium"], hands=1, progress=False, analysis=True)


def test_analysis_of_is_duck_typed():
    from dominoai.tournament import analysis_of

    class Searched:
        moves = np.array([101, 4 * 27 + 1], np.int64)   # 6:4 right, 6:6 right
        values = np.array([2.123456, float("nan")])
        worlds = 7

    class Bot:
        last = Searched()
    assert analysis_of(Bot()) == [{"move": "6:4 right", "value": 2.1235, "n": 7}]
    Bot.last = None
    assert analysis_of(Bot()) is None
    assert analysis_of(object()) is None
    Bot.last = object()                            # no moves/values/worlds
    assert analysis_of(Bot()) is None


# ---------------------------------------------------------------- resume
SCRIPT = """
import pathlib, time
from dominoai.bots import BaseBot, register_bot
from dominoai import Move

PARTS, BARRIER = pathlib.Path({out!r} + ".parts"), pathlib.Path({barrier!r})

@register_bot("sleepy")
class SleepyBot(BaseBot):
    name = "sleepy"
    def act(self, obs):
        if not BARRIER.exists() and any(PARTS.glob("hands-*.parquet")):
            BARRIER.write_text("a batch is written")   # the test kills the run here, mid-batch
            time.sleep(3600)
        codes = obs.legal_codes()
        return Move.from_code(codes[self.rng.integers(len(codes))])

from dominoai.tournament import run_tournament
run_tournament("draw", ["sleepy", "medium"], hands=40, seed=5, out={out!r}, batch_units=2, progress=False)
"""


@pytest.mark.e2e
def test_kill_and_resume(tmp_path):
    out = tmp_path / "r.parquet"
    parts = tmp_path / "r.parquet.parts"
    script = tmp_path / "run.py"
    barrier = tmp_path / "barrier"
    script.write_text(SCRIPT.format(out=str(out), barrier=str(barrier)))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # the child writes the barrier once a batch is on disk, then waits in the next batch
        while not barrier.exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    done = list(parts.glob("hands-*.parquet"))
    assert 1 <= len(done) < 20 and not out.exists()
    for f in done:
        assert pq.read_table(f).num_rows == 2 * 2 * 2      # written whole
    kw = dict(variant="draw", bots=["sleepy", "medium"], hands=40, seed=5, batch_units=2, progress=False)
    with pytest.raises(ValueError, match="resume"):
        run_tournament(out=out, **kw)
    with pytest.raises(ValueError, match="different tournament"):
        run_tournament(out=out, resume=True, **dict(kw, seed=6))
    resumed = run_tournament(out=out, resume=True, **kw)
    assert resumed.played == 40 * 2 - 4 * len(done)
    assert out.exists() and not parts.exists()
    full = run_tournament(**kw)
    h = resumed.hands
    assert len(h) == 40 * 2 * 2 and not h.duplicated(["match", "hand", "seat"]).any()
    pdt.assert_frame_equal(_no_time(h), _no_time(full.hands))
    pdt.assert_frame_equal(_no_time(load_results(out).hands), _no_time(full.hands))


def test_resume_refuses_a_file_of_another_tournament_or_no_results_file(tmp_path):
    """--resume on a finished file of another tournament, or on a file that is
    not a results table, is refused by name and leaves the file as it was."""
    out = tmp_path / "a.csv"
    kw = dict(variant="block", hands=2, seed=3, progress=False)
    run_tournament(bots=["easy", "medium"], out=out, **kw)
    before = out.read_bytes()
    # each names what the file's run was played with where this one differs
    with pytest.raises(ValueError, match=r"holds another tournament \(played with bots easy,medium\), not this one"):
        run_tournament(bots=["easy", "hard"], out=out, resume=True, **kw)
    with pytest.raises(ValueError, match=r"holds another tournament \(played with seed 3\), not this one"):
        run_tournament(bots=["easy", "medium"], out=out, resume=True, **dict(kw, seed=4))
    with pytest.raises(ValueError, match=r"\(played with players 2, other rules, deals 2\)"):
        run_tournament(bots=["easy", "medium"], out=out, resume=True, **dict(kw, hands=3, players=4))
    assert out.read_bytes() == before
    again = run_tournament(bots=["easy", "medium"], out=out, resume=True, **kw)   # this one
    assert again.played == 0 and out.read_bytes() == before
    for name, text in (("empty.csv", ""), ("other.csv", "x,y\n1,2\n")):
        f = tmp_path / name
        f.write_text(text)
        with pytest.raises(ValueError, match="is not a dominoai results file") as ei:
            run_tournament(bots=["easy", "medium"], out=f, resume=True, **kw)
        assert "\n" not in str(ei.value) and f.read_text() == text
    with pytest.raises(ValueError, match="lacks the columns tournament, table"):
        load_results(tmp_path / "other.csv")


# ---------------------------------------------------------------- bot failure
def test_bot_that_raises(tmp_path):
    out = tmp_path / "f.parquet"
    with pytest.raises(BotError) as ei:
        run_tournament("draw", ["easy", "medium", "flaky"], hands=3, seed=2, out=out, batch_units=1,
                       progress=False)
    err = ei.value
    msg = str(err)
    assert "\n" not in msg
    assert "flaky" in msg and str(deal_seed(2, 0)) in msg and str(err.record) in msg
    assert "RuntimeError: flaky bot gives up on purpose" in msg
    assert err.bot == "flaky" and err.deal_seed == deal_seed(2, 0)
    # the record is valid and reproduces the failure
    rec = load_record(err.record)
    assert rec.seats[err.seat].startswith("flaky:seed=")
    res = replay(err.record)
    assert res.hands[-1]["end"] is None
    with pytest.raises(BotFailure) as fi:
        reproduce(err.record)
    assert fi.value.seat == err.seat and isinstance(fi.value.error, RuntimeError)
    assert err.record.parent == tmp_path and err.record.name.startswith("f.parquet.failure-flaky-")
    # what was written before stays readable: batch 0 is easy v medium, deal 0
    parts = tmp_path / "f.parquet.parts"
    t = pq.read_table(parts / "hands-000000.parquet").to_pandas()
    assert len(t) == 4 and set(t["bot"]) == {"easy", "medium"}
    assert json.loads((parts / "manifest.json").read_text())["done"] == [0]


def test_a_damaged_part_is_refused_before_any_batch_is_played(tmp_path):
    out = tmp_path / "f.parquet"
    kw = dict(variant="draw", bots=["easy", "medium", "flaky"], hands=3, seed=2, out=out, batch_units=1,
              progress=False)
    with pytest.raises(BotError):
        run_tournament(**kw)
    parts = tmp_path / "f.parquet.parts"
    (parts / "hands-000000.parquet").write_bytes(b"not parquet at all")
    before = {f.name: f.read_bytes() for f in parts.iterdir()}
    with pytest.raises(ValueError) as e:
        run_tournament(resume=True, **kw)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{parts / 'hands-000000.parquet'}: not a readable part (")
    assert msg.endswith(f"); delete it and resume (batch 0 is played again), or delete {parts} to start over")
    assert {f.name: f.read_bytes() for f in parts.iterdir()} == before


# ---------------------------------------------------------------- statistics
def test_wilson_hand_computed():
    lo, hi = wilson(7, 10)
    z = 1.959963984540054
    p, n = 0.7, 10
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert lo == pytest.approx(c - h) and hi == pytest.approx(c + h)
    assert (round(lo, 4), round(hi, 4)) == (0.3968, 0.8922)
    lo0, hi0 = wilson(0, 10)
    assert lo0 == 0 and hi0 == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10)[1] == 1
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_paired_ci_hand_computed():
    m, lo, hi = paired_ci([1.0, 2.0, 3.0, 6.0])
    # mean 3, sd = sqrt(((−2)²+(−1)²+0+3²)/3) = sqrt(14/3), t(0.975, 3) = 3.182446305284263
    half = 3.182446305284263 * math.sqrt(14 / 3) / 2
    assert m == 3 and lo == pytest.approx(3 - half) and hi == pytest.approx(3 + half)
    assert math.isnan(paired_ci([1.0])[1])


def _tiny_table():
    """Two bots, three deals, two rotations; points (own side) per hand."""
    rows = []
    # deal: [(rotation0: A pts, B pts), (rotation1: A pts, B pts)]; A in seat r
    deals = {0: [(10, 0), (0, 4)], 1: [(0, 6), (0, 2)], 2: [(8, 0), (5, 0)]}
    match = 0
    for d, games in deals.items():
        for r, (pa, pb) in enumerate(games):
            seats = {r: ("A", pa), 1 - r: ("B", pb)}
            winner = "A" if pa > pb else "B" if pb > pa else None
            for s in range(2):
                bot, pts = seats[s]
                other = pb if bot == "A" else pa
                rows.append(dict(table=0, deal=d, rotation=r, match=match, hand=0, seat=s, side=s, bot=bot,
                                 points=pts, margin=float(pts - other), won=winner == bot))
            match += 1
    return pd.DataFrame(rows)


def test_pairing_stats_tiny_table():
    df = _tiny_table()
    p = pairing_stats(df)
    assert len(p) == 1
    row = p.iloc[0]
    assert (row.bot_a, row.bot_b, row.games, row.wins_a, row.wins_b, row.draws) == ("A", "B", 6, 3, 3, 0)
    assert row.win_rate == 0.5
    lo, hi = wilson(3, 6)
    assert row.win_lo == pytest.approx(lo) and row.win_hi == pytest.approx(hi)
    # per-deal mean of A-B: deal0 (10 + -4)/2 = 3, deal1 (-6 + -2)/2 = -4, deal2 (8 + 5)/2 = 6.5
    m, dlo, dhi = paired_ci([3, -4, 6.5])
    assert row.deals == 3
    assert row.points_diff == pytest.approx(m) and row.diff_lo == pytest.approx(dlo)
    assert row.diff_hi == pytest.approx(dhi)


def test_bradley_terry_two_bots():
    r = bradley_terry(np.array([[0.0, 30.0], [10.0, 0.0]]))
    assert r[0] - r[1] == pytest.approx(400 * math.log10(30.5 / 10.5))
    assert r.sum() == pytest.approx(0)
    # three bots, consistent strengths: the fit recovers them (no prior)
    p = np.array([1.0, 2.0, 4.0])
    w = np.array([[0 if i == j else 1000 * p[i] / (p[i] + p[j]) for j in range(3)] for i in range(3)])
    rr = bradley_terry(w, prior=0)
    expect = 400 * np.log10(p)
    assert rr == pytest.approx(expect - expect.mean(), abs=1e-6)


def test_ratings_from_table():
    df = _tiny_table()
    r = ratings(df, n_boot=50, seed=1)
    assert list(r.columns) == ["bot", "rating", "lo", "hi", "games"]
    assert r["rating"].abs().max() == pytest.approx(0, abs=1e-9)   # 3-3
    assert (r["lo"] <= r["rating"]).all() and (r["rating"] <= r["hi"]).all()
    # a clear winner rates higher, with an interval above the loser's
    res = run_tournament("block", ["easy", "medium"], hands=150, seed=0, progress=False)
    rr = res.ratings.set_index("bot")
    assert rr.loc["medium", "rating"] > rr.loc["easy", "rating"]
    assert rr.loc["medium", "games"] == 300


def test_rating_interval_is_the_bootstrap_worked_by_hand():
    """The tiny table's three duplicate deals give A 1-1, 0-2 and 2-0. A
    bootstrap resample takes the deals with counts (c0, c1, c2), c0+c1+c2 = 3,
    with multinomial chance 3!/(c0! c1! c2!)/27; A then has c0 + 2 c2 wins of
    6, and with two bots the rating is half the difference,
    200 log10((w_A + 0.5) / (w_B + 0.5)). Its exact distribution puts 1/27
    (3.7%, above 2.5%) on each extreme, +-200 log10(6.5 / 0.5), so the 95%
    percentile interval is exactly those extremes, for both bots."""
    dist = {}
    for c0 in range(4):
        for c1 in range(4 - c0):
            c2 = 3 - c0 - c1
            wa, wb = c0 + 2 * c2, c0 + 2 * c1
            r = round(200 * math.log10((wa + 0.5) / (wb + 0.5)), 9)
            dist[r] = dist.get(r, 0) + math.factorial(3) // (math.factorial(c0) * math.factorial(c1)
                                                              * math.factorial(c2))
    assert sum(dist.values()) == 27
    low = min(dist)
    assert dist[low] == 1 and low == pytest.approx(-222.78867, abs=1e-5)   # 200 log10(1/13)
    r = ratings(_tiny_table(), n_boot=3000, seed=4).set_index("bot")
    for bot in ("A", "B"):
        assert r.loc[bot, "rating"] == pytest.approx(0, abs=1e-9)
        assert r.loc[bot, "lo"] == pytest.approx(low, abs=1e-6)
        assert r.loc[bot, "hi"] == pytest.approx(-low, abs=1e-6)
        assert r.loc[bot, "games"] == 6



def test_a_rating_the_bootstrap_cannot_vary_has_no_bounds():
    """With one deal, or deals that all ended alike, every bootstrap
    resample gives one rating: no interval (nan bounds, printed as "-"),
    though the rating is there. Deal 2: A won both games,
    200 log10((2 + 0.5) / 0.5) = +139.79 with the prior of 0.5; deals 1
    and 2 differ, so they give bounds."""
    from dominoai.tournament.stats import format_summary
    df = _tiny_table()
    for deals in ([2], [2, 2]):
        one = pd.concat([df[df["deal"] == d].assign(deal=i, match=lambda t, i=i: t["match"] + 100 * i)
                         for i, d in enumerate(deals)])
        r = ratings(one, n_boot=50, seed=1).set_index("bot")
        assert r.loc["A", "rating"] == pytest.approx(200 * math.log10((2 * len(deals) + 0.5) / 0.5))
        assert r[["lo", "hi"]].isna().all().all()
    assert "+140 [-, -]" in format_summary(pairing_stats(df[df["deal"] == 2]),
                                           ratings(df[df["deal"] == 2], n_boot=50).reset_index())
    two = ratings(df[df["deal"] >= 1], n_boot=50, seed=1)
    assert two[["lo", "hi"]].notna().all().all() and (two["lo"] < two["hi"]).all()

# ---------------------------------------------------------------- plots
# (tests/test_plots.py)


# ---------------------------------------------------------------- notebook
@pytest.mark.e2e
def test_notebook_runs(tmp_path):
    # small sizes, and only the simple bots (the notebook's own default is the whole ladder)
    outs = run_notebook("win_rates.ipynb", tmp_path, after="HANDS =", cell='BOTS = ["easy", "medium"]\nHANDS = 20')
    assert "Ratings" in text_of(outs)
    assert has_figure(outs)


def test_hand_wins_count_points_not_who_went_out():
    """In ends-scoring presets the side that went out may have scored less in
    the hand: the pairing counts the points (docs/tournaments.md: points made
    during play count). Hand 1: A went out ("won") but B made 25 to A's 10 ->
    B's game; hand 2: equal points -> a draw; hand 3: A 15, B 5 -> A's."""
    rows = []
    for g, (pa, pb, a_out) in enumerate([(10, 25, True), (5, 5, False), (15, 5, True)]):
        for s, (bot, pts, other, won) in enumerate([("A", pa, pb, a_out), ("B", pb, pa, not a_out)]):
            rows.append(dict(table=0, deal=g, rotation=0, match=g, hand=0, seat=s, side=s, bot=bot,
                             points=pts, margin=float(pts - other), won=won))
    p = pairing_stats(pd.DataFrame(rows)).iloc[0]
    assert (p.wins_a, p.wins_b, p.draws) == (1, 1, 1)


def test_a_bot_listed_twice_is_judged_under_the_presets_own_defaults():
    """Two specs are one bot when they play alike under the rules: Block's
    insane has exact=12 of its own, Kozel's 600 worlds, Draw's exact=12;
    in Fives none of these is a default of its own."""
    from dominoai import get_rules
    from dominoai.tournament.schedule import check_bots

    for preset, twin in (("block", "insane:exact=12"), ("kozel", "insane:worlds=600"),
                         ("draw", "insane:exact=12"), ("fives", "insane:exact=0")):
        with pytest.raises(ValueError, match=r"listed twice \(the same bot as \(?'insane'"):
            check_bots(["insane", twin], get_rules(preset))     # Kozel: as a pair
    assert check_bots(["insane", "insane:exact=0"], get_rules("draw")) == ["insane", "insane:exact=0"]
    # parameters idle under the rules: the play model is off in Fives, hard_plies
    # needs hard rollouts (All Fives has them, Block not); Draw's play model
    # where tiles are drawn is a default of its own
    for preset, twin in (("fives", "insane:hard_prior=0.5"), ("fives", "insane:policy_weight=1"),
                         ("draw", "insane:draw_weight=true"),
                         ("block", "insane:hard_plies=3"), ("block", "insane:sharp_weight=0.2"),
                         ("block", "insane:draw_weight=true"),
                         ("dominoball", "insane:draw_weight=true,hard_prior=0.5")):
        with pytest.raises(ValueError, match="listed twice"):
            check_bots(["insane", twin], get_rules(preset))
    for preset, other in (("block", "insane:hard_prior=0.5"), ("all_fives", "insane:hard_plies=3"),
                          ("fives", "insane:draw_weight=true"),
                          ("draw", "insane:draw_weight=false"),
                          ("draw", "insane:hard_prior=0.5"),
                          ("draw", "insane:draw_weight=true,hard_prior=0.5"),
                          ("block", "insane:hard_prior=0.5,sharp_weight=0.2")):
        assert check_bots(["insane", other], get_rules(preset)) == ["insane", other]
    assert check_bots(["insane:hard_prior=0.5", "insane:hard_prior=0.5,sharp_weight=0.2"],
                       get_rules("block")) == ["insane:hard_prior=0.5",
                                               "insane:hard_prior=0.5,sharp_weight=0.2"]
    assert check_bots(["insane", "insane:exact=12"], get_rules("fives")) == ["insane",
                                                                              "insane:exact=12"]
    # a seed changes only a bot that draws random numbers: hard and medium draw none
    for twin in ("hard:seed=3", "medium:seed=3"):
        with pytest.raises(ValueError, match="listed twice"):
            check_bots([twin.split(":")[0], twin], get_rules("block"))
    assert check_bots(["easy", "easy:seed=3"], get_rules("block")) == ["easy", "easy:seed=3"]
    assert check_bots(["insane", "insane:seed=3"], get_rules("block")) == ["insane", "insane:seed=3"]


def test_median_ms_per_decision_by_hand():
    """Per bot, the median of time / moves over its rows with moves, in ms:
    bot a has 2 ms, 4 ms and 10 ms per move (median 4), b 1 ms; a row
    without moves is left out."""
    import pandas as pd

    from dominoai.tournament.stats import format_summary, median_ms_per_decision

    h = pd.DataFrame({"bot": ["a", "a", "a", "b", "b"],
                      "time": [0.004, 0.012, 0.010, 0.003, 5.0],
                      "moves": [2, 3, 1, 3, 0]})
    assert median_ms_per_decision(h) == pytest.approx({"a": 4.0, "b": 1.0})
    assert median_ms_per_decision(h.drop(columns="time")) == {}
    pairings = pd.DataFrame(columns=["bot_a", "bot_b", "games", "wins_a", "wins_b", "draws",
                                     "win_rate", "win_lo", "win_hi", "points_diff", "diff_lo",
                                     "diff_hi"])
    ratings = pd.DataFrame({"bot": ["a", "b"], "rating": [10.0, -10.0], "lo": [0.0, -20.0],
                            "hi": [20.0, 0.0], "games": [3, 3]})
    text = format_summary(pairings, ratings, median_ms_per_decision(h))
    assert "ms/decision" in text and " 4\n" in text + "\n" and " 1" in text
    fast = format_summary(pairings, ratings, {"a": 0.00412, "b": 12.345})
    assert "0.00412" in fast and "12.3" in fast    # three significant digits, a fast bot not 0.00


def test_decision_positions():
    """Positions from bot games: every one a decision with two or more legal
    moves whose state is the true state behind the observation (seat to
    move, its hand), the filter applied, at least n from whole hands, the
    same for the same seed, and a caller's generator carried on."""
    import numpy as np

    from dominoai.engine import layout as L
    from dominoai.tournament import decision_positions

    got = decision_positions("block", 15, "hard", 3)
    assert len(got) >= 15
    for obs, st in got:
        assert len(obs.legal_codes()) > 1
        assert int(st[L.S_CUR]) == obs.seat and int(st[L.S_HAND + obs.seat]) == int(obs.array[1])
    again = decision_positions("block", 15, "hard", 3)
    assert [st.tolist() for _, st in again] == [st.tolist() for _, st in got]
    late = decision_positions("kozel", 5, "medium", 4,
                              keep=lambda obs, st: bin(int(st[L.S_HAND + obs.seat])).count("1") <= 3)
    assert len(late) >= 5 and all(bin(int(st[L.S_HAND + o.seat])).count("1") <= 3 for o, st in late)
    rng = np.random.default_rng(5)
    decision_positions("block", 3, "medium", rng)
    fresh = np.random.default_rng(5)
    decision_positions("block", 3, "medium", fresh)
    assert rng.integers(1 << 30) == fresh.integers(1 << 30)   # both carried on alike
    with pytest.raises(ValueError):
        decision_positions("nosuch", 1)


def test_idle_named_lists_the_named_parameters_that_cannot_act():
    """The parameters a spec names that its bot calls idle under the rules,
    in the spec's order, each with its reason: none that act, none the spec
    leaves unset."""
    from dominoai import get_rules
    from dominoai.tournament.schedule import idle_named

    got = idle_named("insane:hard_prior=0.5,worlds=50", get_rules("fives"))
    assert list(got) == ["hard_prior"] and "draw_weight=true" in got["hard_prior"]
    assert idle_named("insane:hard_prior=0.5,worlds=50", get_rules("block")) == {}
    # Express: no exact endgame by default (Kozel has one)
    got = idle_named("insane:fusion=true,hard_plies=2", get_rules("express"))
    assert list(got) == ["fusion", "hard_plies"]
    assert got["fusion"] == "acts only with the exact endgame, exact > 0 (here exact=0)"
    assert "rollout_policy=hard" in got["hard_plies"]
    # idle by the spec's own setting, not the preset's
    assert list(idle_named("insane:fusion=true,exact=0", get_rules("block"))) == ["fusion"]
    assert idle_named("insane:fusion=true,exact=10", get_rules("express")) == {}
    assert idle_named("insane:fusion=true", get_rules("kozel")) == {}    # Kozel's exact=12
    got = idle_named("insane:sharp_weight=0.2,policy_weight=0", get_rules("block"))
    assert got == {"sharp_weight": "acts only with the play model, off here (policy_weight=0)"}
    assert "replaced" in idle_named("insane:draw_weight=true", get_rules("dominoball"))["draw_weight"]
    assert idle_named("insane", get_rules("draw")) == {}
    assert idle_named("hard", get_rules("draw")) == {}
    assert idle_named("nosuchbot:x=1", get_rules("draw")) == {}


def test_a_pair_listed_twice_is_named_as_the_user_wrote_it():
    """In a partnership preset a single spec plays both seats of its side;
    the error names the spec, not the pair."""
    from dominoai import get_rules
    from dominoai.tournament.schedule import check_bots

    with pytest.raises(ValueError) as e:
        check_bots(["insane", "insane:worlds=600"], get_rules("kozel"))
    assert str(e.value).startswith("bot 'insane:worlds=600' is listed twice (the same bot as "
                                   "'insane' under kozel: the preset's defaults,")
    with pytest.raises(ValueError) as e:
        check_bots([("hard", "insane"), ("hard", "insane:worlds=600")], get_rules("kozel"))
    assert str(e.value).startswith("bot ('hard', 'insane:worlds=600') is listed twice "
                                   "(the same bot as ('hard', 'insane') under kozel")


# ---------------------------------------------------------------- the settings as one value
def test_tournament_spec_is_checked_once_and_frozen(tmp_path):
    import dataclasses

    from dominoai.errors import InputError
    from dominoai.tournament import TournamentSpec

    (tmp_path / "d.csv").mkdir()
    spec = TournamentSpec("block", ["easy", "medium"], hands=3, seed=4, progress=False)
    assert spec.bots == ("easy", "medium") and spec.mode == "hands" and spec.deals == 3
    assert spec.rules == get_rules("block")
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.hands = 5
    by_spec = run_tournament(spec)
    by_words = run_tournament("block", ["easy", "medium"], hands=3, seed=4, progress=False)
    pdt.assert_frame_equal(by_spec.hands.drop(columns="time"), by_words.hands.drop(columns="time"))
    assert by_spec.provenance["command"] == by_words.provenance["command"] == (
        "run_tournament(variant='block', bots=['easy', 'medium'], hands=3, seed=4, progress=False)")
    with pytest.raises(TypeError, match="give no other argument"):
        run_tournament(spec, hands=4)
    # each bad argument is named by its field, worded with the argument's name
    bad = [(dict(jobs=0), "jobs", "jobs must be a positive number of processes or -1 (got 0)"),
           (dict(jobs=True), "jobs", "jobs must be a positive number of processes or -1 (got True)"),
           (dict(hands=0), "hands", "hands must be an integer of at least 1 (got 0)"),
           (dict(matches=2.0), "matches", "matches must be an integer of at least 1 (got 2.0)"),
           (dict(seed=-1), "seed", "seed must be an integer of at least 0 (got -1)"),
           (dict(resume=True), "resume", "resume needs out, the results file of the run to continue"),
           (dict(out=tmp_path / "d.csv"), "out", f"{tmp_path / 'd.csv'} is a directory; out names the results"),
           (dict(analysis=True), "analysis", "analysis is stored in the records: give a records directory"),
           (dict(scheduler="tcp://x:1"), "scheduler", "a scheduler address needs backend 'dask' or 'ray'")]
    for kw, field, text in bad:
        with pytest.raises(InputError) as e:
            TournamentSpec("block", ["easy", "medium"], **kw)
        assert e.value.field == field and str(e.value).startswith(text), (kw, str(e.value))
    with pytest.raises(ValueError, match="unknown bot 'nosuch'"):
        TournamentSpec("block", ["easy", "nosuch"])


def test_unfinished_parts_without_resume_are_refused_and_kept(tmp_path):
    """Parts left by a run (stopped, or another still running) are neither
    resumed nor replaced unless --resume is given; the error says both."""
    out = tmp_path / "a.csv"
    parts = tmp_path / "a.csv.parts"
    parts.mkdir()
    (parts / "keep").write_text("x")
    with pytest.raises(ValueError, match=r"a\.csv\.parts holds an unfinished tournament, or one still running: "
                                         r"once no run is writing it, resume it"):
        run_tournament(bots=["easy", "medium"], variant="block", hands=2, seed=3, progress=False, out=out)
    assert (parts / "keep").read_text() == "x" and not out.exists()
