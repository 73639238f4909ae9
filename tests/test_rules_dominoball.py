"""Hand-made tests of the preset `dominoball` (docs/rules.md, `dominoball`, from
"Rules of the game: Dominoball" (Russian)).

Deals are written by hand; every expected value (counts of the ends, strikes,
goals) is worked out by hand from docs/rules.md and
docs/conventions.md, with the arithmetic in the comments.
"""

import pytest

from dominoai import IllegalMoveError, Match, get_rules
from dominoai.engine.kernels import goals_for

from handmade import rest, legal, play


def new(s0, s1, bone=None, leader=0):
    m = Match("dominoball")
    h = m.new_hand(deal=[s0, s1], boneyard=bone if bone is not None else rest(s0, s1),
                   leader=leader)
    return m, h


# ---------------------------------------------------------------- the deal


def test_dominoball_two_players_deal_7_boneyard_14_reserve_1():
    """dominoball: "2 players, deal 7, boneyard 14 of which 13 may be drawn:
    boneyard_reserve is 1"."""
    r = get_rules("dominoball")
    assert (r.players, r.hand_size, r.drawing, r.boneyard_reserve) == (2, 7, True, 1)
    assert r.boneyard_size == 14
    with pytest.raises(ValueError, match="players"):
        get_rules("dominoball", players=3)
    h = Match("dominoball", seed=2).new_hand(leader=0)
    assert h.hand_sizes == (7, 7) and h.boneyard_size == 14


def test_dominoball_first_lead_any_tile_by_lot():
    """dominoball: "First lead: any tile (leader by lot)"."""
    s0 = ["6:6", "3:3", "6:2", "0:0", "1:1", "4:0", "5:0"]
    s1 = ["6:3", "3:1", "3:2", "2:2", "4:4", "5:5", "1:0"]
    _, h = new(s0, s1, leader=1)
    assert h.seat == 1
    # seven leads (one per tile) plus the replacement
    assert legal(h) == sorted([f"{t} left" for t in s1] + ["replace"])


# --------------------------------------------------------- base and strikes


def test_dominoball_base_is_first_double_with_tiles_on_both_long_sides():
    """dominoball: "Base double. The first double that gets tiles on both its
    long sides becomes the base: from it the line can also grow up and down";
    "Strikes: sum of the open ends a positive multiple of 5 after their tile:
    one strike per 5"."""
    s0 = ["6:6", "3:3", "6:2", "0:0", "1:1", "4:0", "5:0"]
    s1 = ["6:3", "3:1", "3:2", "2:2", "4:4", "5:5", "1:0"]
    _, h = new(s0, s1)
    h.play("6:6")  # 12: no strike
    assert h.points == (0, 0) and h.spinner is None
    h.play("6:3 right")  # 6:6 (an end, 12) + 3 = 15 -> seat 1: 3 strikes
    assert h.count == 15 and h.points == (0, 3)
    h.play("3:3 right")  # 12 + 6 = 18
    assert h.count == 18 and h.spinner is None and len(h.ends) == 2
    h.play("3:1 right")
    # 3:3 now has tiles on both long sides: the base (6:6 has only one side)
    # 12 + 1 + 0 + 0 = 13
    assert str(h.spinner) == "3:3" and h.count == 13
    assert sorted(h.ends) == [(0, 6, 1), (1, 1, 0), (2, 3, 2), (3, 3, 2)]
    h.play("6:2 left")
    # 6:6 gets its second side but opens nothing: 2 + 1 + 0 + 0 = 3
    assert str(h.spinner) == "3:3" and len(h.ends) == 4 and h.count == 3
    h.play("3:2 up")  # 2 + 1 + 2 + 0 = 5 -> seat 1: 1 strike
    assert h.count == 5 and h.points == (0, 4)


@pytest.mark.parametrize("lead,strikes", [
    ("0:0", 1),  # leading 0:0: 1 strike (the ends count 0)
    ("5:5", 2),  # 10 -> 2 strikes (the ends rule, not both)
    ("6:4", 2),  # 10 -> 2
    ("5:0", 1),  # 5 -> 1
    ("6:3", 0),  # 9 -> none
])
def test_dominoball_lead_strikes(lead, strikes):
    """dominoball: "leading 0:0 as the very first tile: 1 strike; leading 5:5: 2
    strikes (the ends rule above, not both)"; one strike per 5."""
    s0 = ["0:0", "5:5", "6:4", "5:0", "6:3", "1:0", "2:1"]
    s1 = ["6:6", "6:5", "5:4", "4:4", "3:3", "2:2", "1:1"]
    _, h = new(s0, s1)
    h.play(lead)
    assert h.points == (strikes, 0)


def test_dominoball_strikes_per_five_in_play():
    """dominoball: "one strike per 5 (5 -> 1, 10 -> 2, 15 -> 3 ...)"."""
    s0 = ["5:5", "5:1", "6:6", "6:5", "6:4", "4:4", "3:3"]
    s1 = ["5:0", "1:0", "2:2", "2:1", "3:2", "4:3", "6:3"]
    _, h = new(s0, s1)
    h.play("5:5")        # 10 -> 2 strikes
    h.play("5:0 right")  # 5:5 at the left end (10) + 0 = 10 -> 2 strikes
    assert h.points == (2, 2)
    h.play("5:1 left")   # 5:5 becomes the base: 1 + 0 + 0 + 0 = 1
    assert h.count == 1 and h.points == (2, 2)


# ----------------------------------------------------------------- domino

# 13 tiles on the left of the lead 5:5 (the right end stays 5:5, 10):
#   5:5 5:4 4:4 4:3 3:3 3:2 2:2 2:1 1:1 1:0 0:2 2:6 6:1
# 4:4 is the base after 4:3 (its up/down count 0).  Counts, 10 + left end:
#   10 (s0: 2), 14, 18, 13, 16, 12, 14, 11, 12, 10 (s1: 2), 12, 16, 11
CHAIN_MOVES = ["5:5", "5:4 left", "4:4 left", "4:3 left", "3:3 left", "3:2 left",
               "2:2 left", "2:1 left", "1:1 left", "1:0 left", "2:0 left", "6:2 left",
               "6:1 left"]
CHAIN_S0 = ["5:5", "4:4", "3:3", "2:2", "1:1", "2:0", "6:1"]
CHAIN_S1 = ["5:4", "4:3", "3:2", "2:1", "1:0", "6:2"]


@pytest.mark.parametrize("leftover,domino_strikes,goals,winner", [
    ("3:0", 1, (0, 0), None),   # 3 pips -> 1; s0 2 + 1 = 3, s1 2: goals 0 / 0: a draw
    ("5:2", 1, (0, 0), None),   # 7 -> 1
    ("5:3", 2, (0, 0), None),   # 8 -> 2; s0 4 strikes: still 0 goals
    ("6:5", 2, (0, 0), None),   # 11 -> 2
    ("6:6", 10, (2, 0), 0),     # only 6:6: 10 instead of 2; s0 12 -> 1 + (12-5)//4 = 2 goals
    ("0:0", 5, (1, 0), 0),      # only 0:0: 5 instead of 0; s0 7 -> 1 + (7-5)//4 = 1 goal
])
def test_dominoball_domino_strikes_and_one_hand_match(leftover, domino_strikes, goals, winner):
    """dominoball: "dominoing: with the opponent holding 3-7 pips 1 strike, plus
    one more per further 5 pips (8-12 -> 2 ...). If the opponent holds only the
    6:6: 10 strikes instead; only the 0:0: 5 strikes instead"; "The match is one
    hand. More goals wins; equal goals is a draw"."""
    m, h = new(CHAIN_S0, CHAIN_S1 + [leftover])
    play(h, CHAIN_MOVES)
    r = h.result
    assert (r.end, r.winner) == ("domino", 0)
    assert r.points == (2 + domino_strikes, 2)
    assert m.finished and m.scores == r.points
    assert m.result.goals == goals and m.winner == winner
    with pytest.raises(ValueError):
        m.new_hand()  # one hand only


@pytest.mark.parametrize("leftovers,domino_strikes", [
    (["6:6", "0:0"], 2),  # 12 pips -> 2: 6:6 is not held alone, no special
    (["6:6", "3:0"], 3),  # 15 -> 1 + (15 - 3) // 5 = 3
    (["6:6", "6:0"], 4),  # 18 -> 1 + (18 - 3) // 5 = 4
])
def test_dominoball_domino_strikes_two_tiles_left(leftovers, domino_strikes):
    """dominoball: "with the opponent holding 3-7 pips 1 strike, plus one more per
    further 5 pips (8-12 -> 2, 13-17 -> 3 ...)"; the 6:6 special needs the
    opponent to hold "only the 6:6"."""
    # as CHAIN_MOVES, but 1:0 starts the boneyard: at the 10th tile seat 1 holds
    # 6:2 and its two leftovers (no 1, 4 or 5) on ends 1 | 5 | 4 | 4 and must draw it
    s1 = ["5:4", "4:3", "3:2", "2:1", "6:2"] + leftovers
    bone = ["1:0"] + rest(CHAIN_S0, s1, ["1:0"])
    m, h = new(CHAIN_S0, s1, bone)
    play(h, CHAIN_MOVES[:9])
    assert (h.events[-1].kind, h.events[-1].count, str(h.must_play)) == ("draw", 1, "1:0")
    play(h, CHAIN_MOVES[9:])
    r = h.result
    assert (r.end, r.winner) == ("domino", 0)
    assert r.points == (2 + domino_strikes, 2)


def test_dominoball_winner_went_out_even_with_0_strikes():
    """dominoball: "The hand's winner is the player who went out ... even when
    that earns 0 strikes" (opponent holds 0-2 pips: none)."""
    s0 = ["6:6", "5:5", "4:4", "3:3", "2:2", "1:1", "0:0"]
    s1 = ["6:5", "5:4", "4:3", "3:2", "2:1", "1:0", "2:0"]
    m, h = new(s0, s1)
    play(h, ["6:6", "6:5 left", "5:5 left", "5:4 left", "4:4 left", "4:3 left", "3:3 left",
             "3:2 left", "2:2 left", "2:1 left", "1:1 left", "1:0 left", "0:0 left"])
    # counts (12 + left end): 12, 17, 22, 16, 20 (s0: 4), 15 (s1: 3), 18, 14, 16, 13, 14,
    # 12, 12; s1 keeps 2:0 = 2 pips: 0 strikes for going out
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("domino", 0, (0, 2), (4, 3))
    assert m.result.goals == (0, 0) and m.finished and m.winner is None


# -------------------------------------------------------------------- fish


def test_dominoball_fish_lighter_scores_as_if_opponent_held_both_totals():
    """dominoball: "blocked ('fish'): the lighter player scores as if they had
    dominoed with the opponent holding both players' pips added together";
    drawing stops at the reserve; no pass after the block."""
    s0 = ["6:6", "5:3", "6:3", "6:1", "1:0", "6:0", "1:1"]
    s1 = ["6:5", "6:4", "4:1", "2:1", "6:2", "5:5", "4:4"]
    bone = rest(s0, s1)  # 0:0 2:0 2:2 3:0 3:1 3:2 3:3 4:0 4:2 4:3 5:0 5:1 5:2 5:4
    assert bone[-1] == "5:4"
    m, h = new(s0, s1, bone)
    # closed line on 6: 6:6 | L 6:5 5:3 3:6 6:1 1:0 0:6 | R 6:4 4:1 1:2 2:6
    play(h, ["6:6", "6:5 left", "5:3 left", "6:4 right", "6:3 left", "4:1 right",
             "6:1 left", "2:1 right", "1:0 left", "6:2 right", "6:0 left"])
    # counts: 12, 17, 15 (s0: 3), 7, 10 (s0: 2), 7, 2, 3, 2, 6, 12 -> s0 5 strikes
    # seat 1 draws 13 (none fits) and the last tile (5:4) stays: blocked
    assert [e.kind for e in h.events][-2:] == ["play", "draw"]
    assert (h.events[-1].seat, h.events[-1].count, h.boneyard_size) == (1, 13, 1)
    # s0 = 1:1 = 2; s1 = 5:5 + 4:4 + 68 - 9 (5:4 stays) = 10 + 8 + 59 = 77
    # s0 lighter: as if the opponent held 2 + 77 = 79 -> 1 + (79 - 3) // 5 = 16
    r = h.result
    assert (r.end, r.winner, r.pips) == ("blocked", 0, (2, 77))
    assert r.points == (5 + 16, 0)
    # 21 strikes -> 1 + (21 - 5) // 4 = 5 goals
    assert m.result.goals == (5, 0) and m.winner == 0


# ------------------------------------------------------------------- goals


@pytest.mark.parametrize("strikes,goals", [
    (0, 0), (4, 0), (5, 1), (8, 1), (9, 2), (12, 2), (13, 3), (21, 5),
])
def test_dominoball_goals_formula(strikes, goals):
    """dominoball: "goals = 0 below 5 strikes, else 1 + (strikes - 5) // 4"."""
    # e.g. 13: 1 + 8 // 4 = 3; 12: 1 + 7 // 4 = 2
    assert int(goals_for(strikes)) == goals


# ------------------------------------------------------------ replacement


def test_dominoball_replacement_costs_and_limit():
    """dominoball: "Each player, up to 4 times per match, may instead of playing
    draw one tile ... whenever they could play, the lead included ...; each
    player's first replacement is free, every later one costs that player 1
    strike (nothing when they have 0; no debt). After a replacement the same
    player continues the turn"."""
    s0 = ["5:5", "5:1", "6:6", "6:5", "6:4", "4:4", "3:3"]
    s1 = ["5:0", "1:0", "2:2", "2:1", "3:2", "4:3", "6:3"]
    _, h = new(s0, s1)  # boneyard in id order: 0:0 1:1 2:0 3:0 3:1 4:0 ...
    assert "replace" in legal(h)  # the lead included
    h.play("replace")  # 1st: free
    e = h.events[-1]
    assert (e.kind, e.seat, e.tile) == ("replace", 0, None)
    assert h.seat == 0 and h.points == (0, 0)
    assert h.hand_sizes == (8, 7) and h.boneyard_size == 13
    h.play("replace")  # 2nd: costs 1, but seat 0 has 0: stays 0, no debt
    assert h.seat == 0 and h.points == (0, 0) and h.hand_sizes == (9, 7)
    h.play("5:5")  # 10 -> 2 strikes (not 1: no debt)
    h.play("5:0 right")  # 10 + 0 = 10 -> seat 1: 2 strikes
    assert h.points == (2, 2)
    h.play("replace")  # 3rd: 2 - 1 = 1
    assert h.points == (1, 2) and h.seat == 0
    h.play("replace")  # 4th: 1 - 1 = 0
    assert h.points == (0, 2) and h.seat == 0
    assert "replace" not in legal(h)  # 4 used
    with pytest.raises(IllegalMoveError):
        h.play("replace")
    h.play("5:1 left")  # base 5:5: 1 + 0 = 1
    assert h.seat == 1
    h.play("replace")  # seat 1's 1st: free
    assert h.points == (0, 2) and h.seat == 1
    h.play("replace")  # seat 1's 2nd: 2 - 1 = 1
    assert h.points == (0, 1) and h.seat == 1
    assert h.boneyard_size == 14 - 6


def test_dominoball_no_replacement_after_forced_draw_or_when_unable():
    """dominoball: replacement "whenever they could play"; "Not right after
    forced draws: the tile that was drawn and fits must be played"."""
    s0 = ["6:6", "6:5", "6:4", "5:5", "4:4", "3:3", "2:2"]
    s1 = ["5:4", "5:3", "4:3", "5:2", "4:2", "3:2", "5:1"]  # no 6
    bone = ["0:0", "1:1", "6:1"] + rest(s0, s1, ["0:0", "1:1", "6:1"])
    _, h = new(s0, s1, bone)
    h.play("6:6")
    # seat 1 cannot play: forced draw (no replacement offered), 3 tiles to 6:1
    assert [(e.kind, e.seat, e.count) for e in h.events] == [("play", 0, 1), ("draw", 1, 3)]
    assert str(h.must_play) == "6:1" and legal(h) == ["6:1 left"]
    with pytest.raises(IllegalMoveError):
        h.play("replace")
    h.play("6:1 left")
    assert h.seat == 0 and "replace" in legal(h)  # seat 0 can play: offered again


def test_dominoball_pass_at_reserve_and_no_replacement_there():
    """dominoball: drawing stops when the boneyard is down to the reserve of 1,
    then the seat passes; replacement needs "the boneyard ... above its
    reserve"."""
    s0 = ["6:6", "6:5", "6:4", "6:3", "6:2", "6:1", "6:0"]  # every 6
    s1 = ["5:5", "5:4", "5:3", "5:2", "5:1", "5:0", "4:4"]
    _, h = new(s0, s1)
    h.play("6:6")
    # 13 drawn (none has a 6), 1 left: pass
    assert [(e.kind, e.seat, e.count) for e in h.events] == [
        ("play", 0, 1), ("draw", 1, 13), ("pass", 1, 0)]
    assert h.boneyard_size == 1 and h.hand_sizes == (6, 20) and h.seat == 0
    assert legal(h) == sorted(f"6:{k} left" for k in range(6))  # no "replace"
    with pytest.raises(IllegalMoveError):
        h.play("replace")
