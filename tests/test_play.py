"""``dominoai play``: whole matches driven through standard input, in-process
(:func:`dominoai.play.play_game` with ``io.StringIO`` streams) and as a user
runs it (``python -m dominoai play`` in a subprocess): bad answers get a
message and the prompt again, end of input saves and exits 0, ``--continue``
resumes to the end, the stats file is kept, and there is never a traceback."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai.cli import main
from dominoai.play import (MATCH_FILE, STATS_FILE, PlayError, format_stats, load_stats, partner_spec,
                           play_game, user_data_path, variant_key)
from dominoai.records import load_record, match_from_record, record_from_match, replay
from dominoai.rules import get_rules
from dominoai.tiles import Tile

ONES = "1\n" * 3000   # answering "1" always picks the first listed move (or goes on)


def run_game(tmp_path, stdin, **kw) -> tuple[int, str]:
    out = io.StringIO()
    kw.setdefault("opponents", "easy")
    code = play_game(data_dir=tmp_path, stdin=stdin if not isinstance(stdin, str) else io.StringIO(stdin),
                     stdout=out, **kw)
    return code, out.getvalue()


def stats_of(tmp_path) -> dict:
    return json.loads((tmp_path / STATS_FILE).read_text())


def no_traceback(*texts):
    for t in texts:
        assert "Traceback" not in t, t


class Responder:
    """A stdin whose answers depend on the prompt just written and on the
    saved match: ``decide(prompt, hand, seat)`` returns the line to give
    (None: end of input)."""

    def __init__(self, out: io.StringIO, data: Path, decide):
        self.out, self.data, self.decide = out, data, decide
        self.prompts = 0

    def isatty(self):
        return False

    def readline(self) -> str:
        self.prompts += 1
        assert self.prompts < 20000, "the game keeps asking"
        prompt = self.out.getvalue().rsplit("\n", 1)[-1]
        rec = load_record(self.data / MATCH_FILE)
        match = match_from_record(rec, seed=0)
        ans = self.decide(prompt, match.current, rec.extra["play"]["seat"])
        return "" if ans is None else ans + "\n"


# ---------------------------------------------------------------- whole matches
def test_draw_match_vs_easy_answering_1(tmp_path, capsys):
    code, out = run_game(tmp_path, ONES, variant="draw", players=2, seed=11, target=20)
    assert code == 0
    assert "=== Match over:" in out
    assert "Your tiles:" in out and "Your moves:" in out and "boneyard" in out
    assert "target 20" in out and "Seat 1 " in out
    assert re.search(r"Hand \d+ over \((domino|blocked)", out)
    assert not (tmp_path / MATCH_FILE).exists(), "a finished match is not kept as the current one"
    st = stats_of(tmp_path)["games"]["draw"]["easy"]
    assert st["matches"] == 1 and st["wins"] + st["losses"] + st["draws"] == 1
    assert st["hands"] >= 1 and 0 <= st["hands_won"] <= st["hands"]
    assert "Your statistics for draw:" in out
    err = capsys.readouterr().err
    assert err == ""
    no_traceback(out)


def test_same_seed_same_game(tmp_path):
    a = run_game(tmp_path / "a", ONES, variant="draw", seed=4, target=15)
    b = run_game(tmp_path / "b", ONES, variant="draw", seed=4, target=15)
    assert a == b


def test_kozel_match_partner_is_hard(tmp_path, capsys):
    code, out = run_game(tmp_path, ONES, variant="kozel", seed=3, target=25, opponents="easy")
    assert code == 0
    assert "your partner is seat 2 (hard)" in out
    assert "opponents: seat 1 (easy), seat 3 (easy)" in out
    assert "Recorded:" in out and "low is good" in out
    assert "=== Match over:" in out
    st = stats_of(tmp_path)["games"]["kozel"]["easy"]
    assert st["matches"] == 1 and st["hands"] >= 1
    assert capsys.readouterr().err == ""
    no_traceback(out)


@pytest.mark.parametrize("variant,kw", [
    ("fives", {"target": 30}),
    ("all_fives", {"target": 30}),
    ("dominoball", {}),
    ("block", {"players": 3, "seat": 2, "target": 15}),
    ("express", {"players": 4, "partnerships": True, "target": 25}),
])
def test_other_variants_play_through(tmp_path, variant, kw):
    code, out = run_game(tmp_path, ONES, variant=variant, seed=2, opponents="medium", **kw)
    assert code == 0 and "=== Match over:" in out
    key = variant_key(get_rules(variant, **{k: v for k, v in kw.items() if k != "seat"}))
    assert stats_of(tmp_path)["games"][key]["medium"]["matches"] == 1
    no_traceback(out)


from dominoai.bots import BaseBot, register_bot  # noqa: E402

SEEN = []


@register_bot("play_peeker")
class PlayPeeker(BaseBot):
    """A bot that declares ``needs_state``: the game must hand it the true
    state, as the tournament does (``act`` alone refuses, like omniscient)."""

    name = "play_peeker"
    needs_state = True

    def act(self, obs):  # pragma: no cover - must not be called
        raise TypeError("play_peeker needs the state")

    def act_with_state(self, obs, st):
        from dominoai.engine import layout as L
        from dominoai.observation import O_HAND
        SEEN.append((int(obs.array[O_HAND]), int(st[L.S_HAND + obs.seat])))
        return obs.legal_moves()[0]


def test_a_bot_that_needs_the_state_gets_it(tmp_path):
    SEEN.clear()
    code, out = run_game(tmp_path, ONES, variant="block", seed=3, target=10, opponents="play_peeker")
    assert code == 0 and "=== Match over:" in out and "failed" not in out
    assert SEEN and all(own_obs == own_st for own_obs, own_st in SEEN)


@pytest.mark.parametrize("variant, line", [
    ("kozel", "Recorded: your pair 0 · their pair 0   (low is good: the first pair to 101 loses)"),
    ("dominoball", "Strikes: you 0 · seat 1 0   goals 0 : 0"),
    ("draw", "Score: you 0 · seat 1 0   (target 100, checked after each hand)"),
])
def test_score_line_names_the_unit(tmp_path, variant, line):
    code, out = run_game(tmp_path, "", variant=variant, seed=1, opponents="easy")
    assert code == 0 and line in out


def test_partner_levels():
    assert partner_spec("easy") == "hard"
    assert partner_spec("medium") == "hard"
    assert partner_spec("hard") == "hard"
    assert partner_spec("insane") == "insane"
    assert partner_spec("insane:seed=3") == "insane:seed=3"


def test_partner_seat_follows_the_human(tmp_path):
    code, out = run_game(tmp_path, "", variant="kozel", seat=1, seed=5, opponents="medium")
    assert code == 0 and "End of input" in out
    meta = load_record(tmp_path / MATCH_FILE).extra["play"]
    assert meta["seat"] == 1 and meta["bots"] == ["medium", None, "medium", "hard"]
    assert "your partner is seat 3 (hard)" in out


# ---------------------------------------------------------------- the line, drawn as on the table
LINE_REC = {
    "format": "dominoai.record/1", "rules": "block",
    "hands": [{"deal": [["6:6", "6:5", "5:4", "4:3", "6:0", "6:1", "6:2"],
                        ["5:5", "4:4", "3:3", "5:0", "5:1", "5:2", "4:0"]],
               "leader": 0,
               "moves": [{"tile": "6:6"}, {"pass": True}, {"tile": "6:5", "end": "right"},
                         {"tile": "5:5", "end": "right"}, {"tile": "5:4", "end": "right"},
                         {"tile": "4:4", "end": "right"}, {"tile": "4:3", "end": "right"},
                         {"tile": "3:3", "end": "right"}]}]}


def test_the_line_is_the_snake_of_the_pictures():
    """Worked out by hand from the layout (docs/render.md) on the terminal's
    table, 18 units wide (9 each side of the lead): the lead 6:6 stands
    crosswise at the centre; 6:5, 5:5 (crosswise), 5:4 and 4:4 (crosswise)
    reach 6.5 units to the right; 4:3 would pass 8 units, so it turns the
    row, laid across (4 on top); 3:3 comes back leftwards below, in braces
    as the tile laid last. 4 columns per unit."""
    from dominoai.play.display import TABLE_WIDTH, TableView
    from dominoai.render.layout import line_layout
    from dominoai.render.textdraw import line_text
    match = match_from_record(LINE_REC)
    hand = match.current
    out = io.StringIO()
    view = TableView(match, 0, out)
    want = [
        "[6]         [5]         [4]",
        "[6] [ 6|5 ] [5] [ 5|4 ] [4] [4]",
        "                            [3]",
        "                        { 3|3 }",
    ]
    assert view.line_text(hand) == want
    assert line_text(line_layout(hand.events, hand.spinner, width=TABLE_WIDTH)) == want
    view.show_table(hand)
    shown = out.getvalue().splitlines()
    i = shown.index("Line:   (7 tiles; the last one laid in braces)")
    assert shown[i + 1:i + 5] == ["    " + row for row in want]
    assert shown[i + 5] == "Ends:   left 6 (double) · right 3 (double)"


def test_the_line_before_the_lead():
    from dominoai import Match
    from dominoai.play.display import TableView
    match = Match("block", seed=2)
    out = io.StringIO()
    view = TableView(match, 0, out)
    hand = match.new_hand()
    assert view.line_text(hand) == ["(empty: the first tile leads)"]
    view.show_table(hand)
    assert "Line:   (empty: the first tile leads)\nEnds:   none yet\n" in out.getvalue()


def test_all_fives_line_shows_the_spinner_arms():
    """All Fives: 5:5 leads and is the spinner, standing at the centre;
    5:0 goes right, 5:3 left (its 5 against the spinner), which opens the
    spinner's sides; 5:4 up starts from the spinner's top, standing, its 5
    against the spinner and the 4 above (braces: laid last)."""
    from dominoai.play.display import TableView
    rec = {"format": "dominoai.record/1", "rules": "all_fives",
           "hands": [{"deal": [["5:5", "5:3", "6:6", "6:4", "6:3", "6:2", "6:1"],
                               ["5:0", "5:4", "4:4", "4:3", "4:2", "4:1", "4:0"]],
                      "boneyard": ["6:5", "6:0", "5:2", "5:1", "3:3", "3:2", "3:1", "3:0", "2:2",
                                   "2:1", "2:0", "1:1", "1:0", "0:0"],
                      "leader": 0,
                      "moves": [{"tile": "5:5"}, {"tile": "5:0", "end": "right"},
                                {"tile": "5:3", "end": "left"}, {"tile": "5:4", "end": "up"}]}]}
    match = match_from_record(rec)
    assert TableView(match, 0, io.StringIO()).line_text(match.current) == [
        "        {4}",
        "        {5}",
        "        [5]",
        "[ 3|5 ] [5] [ 5|0 ]",
    ]


def test_a_new_match_keeps_the_unfinished_one_it_replaces(tmp_path):
    from dominoai.play import REPLACED_MATCH_FILE
    code, _ = run_game(tmp_path, "1\n" * 3, variant="draw", seed=5, target=10)
    assert code == 0
    unfinished = (tmp_path / MATCH_FILE).read_bytes()
    code, out = run_game(tmp_path, "1\n" * 3, variant="block", seed=6)
    assert code == 0
    kept = tmp_path / REPLACED_MATCH_FILE
    assert kept.read_bytes() == unfinished                       # the old match, as it was saved
    assert f"The unfinished match saved before is kept in {kept}" in out
    assert load_record(tmp_path / MATCH_FILE).rules.preset == "block"   # the new one is current
    code, out = run_game(tmp_path, ONES, resume=True)             # and it is what --continue resumes
    assert "continuing the saved block match" in out


def test_a_second_replaced_match_does_not_overwrite_the_first(tmp_path):
    from dominoai.play import REPLACED_MATCH_FILE
    saved = []
    for variant, seed in (("draw", 5), ("block", 6), ("draw", 7)):
        if (tmp_path / MATCH_FILE).exists():
            saved.append((tmp_path / MATCH_FILE).read_bytes())
        code, out = run_game(tmp_path, "1\n" * 3, variant=variant, seed=seed, target=100)
        assert code == 0
    first, second = tmp_path / REPLACED_MATCH_FILE, tmp_path / "replaced_match-2.json"
    assert first.read_bytes() == saved[0] and second.read_bytes() == saved[1]
    assert f"The unfinished match saved before is kept in {second}" in out


# ---------------------------------------------------------------- the bots' analyses
def test_analysis_of_a_real_insane_opponent_is_saved(tmp_path):
    from dominoai.play import LAST_MATCH_FILE
    from dominoai.viewer import record_frames
    code, out = run_game(tmp_path, ONES, variant="draw", seed=5, target=10,
                         opponents="insane:worlds=10", analysis=True)
    assert code == 0 and "=== Match over:" in out
    path = tmp_path / LAST_MATCH_FILE
    assert f"The match, with the bots' analyses, is in {path}" in out
    rec = json.loads(path.read_text())
    res = replay(path)                       # replays, the analyses notwithstanding
    assert res.finished
    n = 0
    for played, hr in zip(res.match.hands, rec["hands"]):
        for ev, mv in zip(played.events, hr["moves"]):
            if "analysis" in mv:
                n += 1
                assert ev.seat == 1 and ev.kind == "play"      # only the bot's decisions
                assert all(e["n"] == 10 for e in mv["analysis"]) and len(mv["analysis"]) >= 2
    assert n > 0
    frames = record_frames(path)["frames"]
    assert sum(f["analysis"] is not None for f in frames) == n


def test_analysis_survives_a_resume(tmp_path):
    code, _ = run_game(tmp_path, "1\n" * 3, variant="draw", seed=5, target=10,
                       opponents="insane:worlds=10", analysis=True)
    saved = load_record(tmp_path / MATCH_FILE)
    assert saved.extra["play"]["analysis"] is True
    before = sum(mv.analysis is not None for h in saved.hands for mv in h.moves)
    code, out = run_game(tmp_path, ONES, resume=True)
    assert code == 0 and "=== Match over:" in out
    from dominoai.play import LAST_MATCH_FILE
    after = load_record(tmp_path / LAST_MATCH_FILE)
    kept = [(h, m) for h, hr in enumerate(saved.hands) for m, mv in enumerate(hr.moves) if mv.analysis]
    assert all(after.hands[h].moves[m].analysis == saved.hands[h].moves[m].analysis for h, m in kept)
    assert sum(mv.analysis is not None for h in after.hands for mv in h.moves) >= before


def test_no_analysis_by_default(tmp_path):
    code, out = run_game(tmp_path, "1\n" * 3, variant="draw", seed=5, target=10, opponents="insane:worlds=10")
    assert "analysis" not in (tmp_path / MATCH_FILE).read_text().replace('"analysis": false', "")


# ---------------------------------------------------------------- bad answers
def _bad_answers_decider(log: list):
    """Give every kind of bad answer once, where the position allows it, then
    a legal move; record what was given and what it should say."""
    done: set = set()
    pending: list = []

    def decide(prompt, hand, seat):
        if pending:
            return pending.pop(0)
        if prompt.startswith("Your move"):
            mine = list(hand.tiles(seat))
            moves = hand.legal_moves()
            fitting = {m.tile for m in moves if not m.replace}
            for kind, answer, expect in (
                ("unknown", "7:1", "'7:1' is not a double-six tile"),
                ("garbage", "hello there", "I do not understand 'hello there'"),
                ("empty", "", "Type the number of a move"),
                ("number", "99", "There is no move 99"),
                ("help", "help", 'Commands at "Your move"'),
            ):
                if kind not in done:
                    done.add(kind)
                    log.append((answer, expect))
                    return answer
            if "not held" not in done:
                other = next(t for t in (Tile(i) for i in range(28))
                             if t not in mine and t not in hand.line)
                done.add("not held")
                # written low pip first: either order names the tile
                log.append((f"{other.low}:{other.high}", f"You do not hold {other}."))
                return f"{other.low}:{other.high}"
            if hand.ends and "no fit" not in done:
                misfit = [t for t in mine if t not in fitting]
                if misfit and hand.must_play is None:
                    done.add("no fit")
                    log.append((str(misfit[0]), f"{misfit[0]} does not fit any open end"))
                    return str(misfit[0])
            if hand.ends and "bad end" not in done and not any(k == 2 for k, _, _ in hand.ends):
                done.add("bad end")
                t = moves[0].tile
                log.append((f"{t} up", "There is no open up end"))
                return f"{t} up"
            if hand.ends and "end word" not in done:
                done.add("end word")
                t = moves[0].tile
                log.append((f"{t} sideways", "There is no end 'sideways'"))
                return f"{t} sideways"
            if "which end" not in done:
                by_tile: dict = {}
                for m in moves:
                    if not m.replace:
                        by_tile.setdefault(m.tile, []).append(m.end)
                two = [t for t, ends in by_tile.items() if len(ends) > 1]
                if two and hand.ends:
                    done.add("which end")
                    t = two[0]
                    log.append((str(t), f"{t} fits "))
                    log.append(("middle", "There is no end 'middle'"))
                    pending.extend(["middle", "left"])
                    return str(t)
            return "1"
        return "1"

    decide.done = done
    return decide


def test_bad_answers_get_a_message_and_the_prompt_again(tmp_path, capsys):
    out = io.StringIO()
    log: list = []
    decide = _bad_answers_decider(log)
    code = play_game("draw", opponents="easy", seed=8, target=40, data_dir=tmp_path,
                     stdin=Responder(out, tmp_path, decide), stdout=out)
    text = out.getvalue()
    assert code == 0 and "=== Match over:" in text
    assert {"unknown", "garbage", "empty", "number", "help", "not held", "no fit", "bad end",
            "end word", "which end"} <= decide.done
    for answer, expect in log:
        assert expect in text, (answer, expect)
    # every rejected answer is followed by its message, then the same prompt
    for answer in ("7:1", "hello there", "99"):
        assert re.search(rf"Your move: {re.escape(answer)}\n[^\n]+\nYour move: ", text), answer
    assert re.search(r"Which end\? \[[a-z/]+, Enter to choose again\]: middle\n"
                     r"There is no end 'middle'[^\n]*\nWhich end\?", text)
    assert capsys.readouterr().err == ""
    no_traceback(text)


def test_lead_with_an_end_that_does_not_exist(tmp_path):
    state = {}

    def decide(prompt, hand, seat):
        if not prompt.startswith("Your move"):
            return "1"
        if state.get("asked") or hand.ends:
            return None   # stop: after the answer and its message, or not a lead
        state["asked"] = True
        return f"{hand.legal_moves()[0].tile} down"

    for seed in range(30):  # draw's first lead is by lot: find a deal where the human leads
        out = io.StringIO()
        d = tmp_path / str(seed)
        assert play_game("draw", opponents="easy", seed=seed, data_dir=d,
                         stdin=Responder(out, d, decide), stdout=out) == 0
        if state.get("asked"):
            break
    assert state.get("asked")
    assert re.search(r"Your move: \d:\d down\nThere is no down end yet: the line is empty\. "
                     r"Type \d:\d to lead it\.\nYour move: ", out.getvalue())


# ---------------------------------------------------------------- saving and resuming
def test_eof_mid_match_saves_and_continue_finishes(tmp_path):
    code, out = run_game(tmp_path, "1\n" * 4, variant="draw", seed=21, target=30)
    assert code == 0
    assert "End of input: the match is saved; `dominoai play --continue` resumes it." in out
    path = tmp_path / MATCH_FILE
    assert path.exists() and not (tmp_path / STATS_FILE).exists()
    rec = load_record(path)
    res = replay(rec)                          # a valid record of the match so far
    assert not res.finished
    assert rec.extra["play"]["seat"] == 0 and rec.extra["play"]["bots"] == [None, "easy"]
    assert rec.seats == ("you", "easy")
    # the resumed match is the saved one, move for move
    m = match_from_record(rec)
    assert record_from_match(m)["hands"] == json.loads(path.read_text())["hands"]

    code, out2 = run_game(tmp_path, ONES, resume=True)
    assert code == 0
    assert "continuing the saved draw match" in out2
    assert "=== Match over:" in out2
    assert not path.exists()
    assert stats_of(tmp_path)["games"]["draw"]["easy"]["matches"] == 1
    no_traceback(out, out2)


def test_quit_and_eof_between_hands(tmp_path):
    # quit at a move prompt
    code, out = run_game(tmp_path, "1\nquit\n", variant="draw", seed=6, target=100)
    assert code == 0 and "Stopped: the match is saved" in out
    # end of input at "next hand": the finished hand is kept, the next is dealt on --continue
    out = io.StringIO()

    def decide(prompt, hand, seat):
        return None if prompt.startswith("Press Enter") else "1"

    code = play_game(resume=True, data_dir=tmp_path, stdin=Responder(out, tmp_path, decide), stdout=out)
    text = out.getvalue()
    assert code == 0 and "Press Enter for the next hand" in text and "End of input" in text
    rec = load_record(tmp_path / MATCH_FILE)
    n_hands = len(rec.hands)
    assert replay(rec).hands[-1]["end"] is not None   # saved with the hand over
    code, out2 = run_game(tmp_path, ONES, resume=True)
    assert code == 0
    assert re.search(rf"Hand {n_hands} over", out2) and f"=== Hand {n_hands + 1} ===" in out2
    assert "=== Match over:" in out2
    no_traceback(text, out2)


def test_continue_without_a_saved_match(tmp_path):
    with pytest.raises(PlayError, match="no saved match to continue"):
        run_game(tmp_path, ONES, resume=True)


def test_continue_with_a_broken_save(tmp_path):
    (tmp_path / MATCH_FILE).write_text("{not json")
    with pytest.raises(PlayError, match="the saved match cannot be read"):
        run_game(tmp_path, ONES, resume=True)
    (tmp_path / MATCH_FILE).write_text(json.dumps({"format": "dominoai.record/1", "rules": "draw",
                                                   "hands": []}))
    with pytest.raises(PlayError, match="not a match saved by `dominoai play`"):
        run_game(tmp_path, ONES, resume=True)


def test_a_match_saved_before_its_first_move_resumes_in_words(tmp_path):
    """Draw with seed 1: the human leads, and the input ends at once. The
    resumed match says where it stands instead of an empty list of moves."""
    run_game(tmp_path, "", variant="draw", seed=1)
    code, out = run_game(tmp_path, "", resume=True)
    assert code == 0
    assert "Resuming hand 1, before its first move." in out
    assert "the latest moves" not in out


def test_an_unreadable_save_is_named_once(tmp_path):
    save = tmp_path / MATCH_FILE
    save.write_bytes(b"\xff\xfe{}")
    with pytest.raises(PlayError) as e:
        run_game(tmp_path, ONES, resume=True)
    assert str(e.value) == f"the saved match cannot be read: {save}: not UTF-8 text"


def test_bad_options(tmp_path):
    with pytest.raises(PlayError, match="unknown preset"):
        run_game(tmp_path, ONES, variant="nope")
    with pytest.raises(PlayError, match="unknown bot 'nobot'"):
        run_game(tmp_path, ONES, opponents="nobot")
    with pytest.raises(PlayError, match="seat must be a seat 0..1"):
        run_game(tmp_path, ONES, seat=2)
    with pytest.raises(PlayError, match=r"kozel: players must be 4 \(got 2\)"):
        run_game(tmp_path, ONES, variant="kozel", players=2)


# ---------------------------------------------------------------- stats
def test_stats_accumulate_per_variant_and_level(tmp_path):
    for seed in (1, 2):
        assert run_game(tmp_path, ONES, variant="draw", seed=seed, target=10)[0] == 0
    assert run_game(tmp_path, ONES, variant="draw", seed=3, target=10, opponents="medium")[0] == 0
    games = stats_of(tmp_path)["games"]
    assert games["draw"]["easy"]["matches"] == 2 and games["draw"]["medium"]["matches"] == 1
    stats = load_stats(tmp_path)
    assert stats == games
    table = format_stats(stats, "draw", "medium")
    assert re.search(r"\* medium +1 ", table) and re.search(r"  easy +2 ", table)


def test_stats_count_the_matches_and_hands_as_played(tmp_path):
    """Five draw matches to 40 against easy, one data folder: the stats equal
    the counts read off the printed results (each hand's "... win(s) the
    hand" line, each match's "Match over" line), so wins, losses and
    hands_won cannot be swapped: the five matches give distinct counts."""
    want = dict(matches=0, wins=0, losses=0, draws=0, hands=0, hands_won=0)
    for seed in range(1, 6):
        code, out = run_game(tmp_path, ONES, variant="draw", seed=seed, target=40)
        assert code == 0
        hands = re.findall(r"^Hand \d+ over \(.*\); (you win|seat 1 wins|nobody wins) the hand\.$", out, re.M)
        assert hands and len(hands) == len(re.findall(r"^=== Hand \d+ ===", out, re.M))
        end = re.search(r"^=== Match over: (you win!|seat 1 wins\.|a draw\.) ===$", out, re.M).group(1)
        want["matches"] += 1
        want[{"you win!": "wins", "seat 1 wins.": "losses", "a draw.": "draws"}[end]] += 1
        want["hands"] += len(hands)
        want["hands_won"] += hands.count("you win")
    got = stats_of(tmp_path)["games"]["draw"]["easy"]
    assert got == want
    # the check can tell the fields apart: no two of them are equal here
    assert len({want[k] for k in ("wins", "losses", "hands", "hands_won")}) == 4, want


def test_broken_stats_file_is_set_aside_and_started_afresh(tmp_path):
    (tmp_path / STATS_FILE).write_text("garbage")
    (tmp_path / "stats-unreadable.json").write_text("set aside before")
    code, out = run_game(tmp_path, ONES, variant="draw", seed=1, target=10)
    kept = tmp_path / "stats-unreadable-2.json"
    assert code == 0 and f"it is kept as {kept} and started afresh" in out
    assert kept.read_text() == "garbage" and (tmp_path / "stats-unreadable.json").read_text() == "set aside before"
    assert stats_of(tmp_path)["games"]["draw"]["easy"]["matches"] == 1


def test_data_dir_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINOAI_DATA_DIR", str(tmp_path / "d"))
    assert user_data_path() == tmp_path / "d"
    assert user_data_path(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv("DOMINOAI_DATA_DIR")
    assert user_data_path().name.lower() == "dominoai"


# ---------------------------------------------------------------- the command line
def run_cli(tmp_path, *args, stdin="", text=True) -> subprocess.CompletedProcess:
    env = dict(os.environ, DOMINOAI_DATA_DIR=str(tmp_path))
    return subprocess.run([sys.executable, "-m", "dominoai", *map(str, args)], input=stdin,
                          capture_output=True, text=text, timeout=600, env=env)


@pytest.mark.e2e
def test_cli_whole_match_then_stats(tmp_path):
    """A whole match through the command, garbage bytes first (an answer
    asked again, not a crash), then ``--stats`` in another run."""
    p = run_cli(tmp_path, "play", "--variant", "draw", "--players", "2", "--opponents", "easy",
                "--target", "20", "--seed", "7", stdin=b"\xff\xfe\x00garbage\n" + ONES.encode(), text=False)
    out, err = p.stdout.decode(), p.stderr.decode()
    assert p.returncode == 0, err
    assert err == ""
    assert "I do not understand" in out
    assert "=== Match over:" in out and "Your statistics for draw:" in out
    assert not (tmp_path / MATCH_FILE).exists()
    s = run_cli(tmp_path, "play", "--stats")
    assert s.returncode == 0 and "Your statistics for draw:" in s.stdout and "easy" in s.stdout


@pytest.mark.e2e
def test_cli_eof_then_continue(tmp_path):
    p = run_cli(tmp_path, "play", "--opponents", "easy", "--target", "20", "--seed", "9", stdin="1\n1\n")
    assert p.returncode == 0 and p.stderr == ""
    assert "`dominoai play --continue` resumes it" in p.stdout
    assert (tmp_path / MATCH_FILE).exists()
    q = run_cli(tmp_path, "play", "--continue", stdin=ONES)
    assert q.returncode == 0 and q.stderr == ""
    assert "=== Match over:" in q.stdout
    assert json.loads((tmp_path / STATS_FILE).read_text())["games"]["draw"]["easy"]["matches"] == 1


@pytest.mark.e2e
def test_cli_play_analysis(tmp_path):
    p = run_cli(tmp_path, "play", "--opponents", "insane:worlds=6", "--target", "5", "--seed", "3",
                "--analysis", stdin=ONES)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    last = tmp_path / "last_match.json"
    assert f"The match, with the bots' analyses, is in {last}" in p.stdout
    moves = [m for h in json.loads(last.read_text())["hands"] for m in h["moves"]]
    assert any(m.get("analysis") for m in moves)
    assert all(e["n"] == 6 for m in moves for e in m.get("analysis", []))


@pytest.mark.parametrize("args,pattern", [
    (["play", "--continue"], "no saved match to continue"),
    (["play", "--opponents", "nobot"], "unknown bot 'nobot'"),
    (["play", "--variant", "nope"], "unknown preset 'nope'"),
    (["play", "--seat", "3"], "--seat must be a seat 0..1"),
    (["play", "--target", "0"], "argument --target: must be at least 1"),
])
def test_cli_bad_options(tmp_path, capsys, monkeypatch, args, pattern):
    monkeypatch.setenv("DOMINOAI_DATA_DIR", str(tmp_path))
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dominoai: error:") and pattern in lines[0], err
