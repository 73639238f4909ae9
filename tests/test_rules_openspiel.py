"""Hand-made tests of the presets `openspiel_block` and `openspiel_team`
(OpenSpiel's python_block_dominoes / python_team_dominoes, as configured in
dominoai/rules.py; docs/rules.md, `openspiel_block` and `openspiel_team`):
seat 0 leads any tile, block play, one hand;
the lighter side (player or pair) wins the heavier side's pip total, even when
the seat that went out is on the heavier side; equal totals score 0.

Deals are written by hand; expected values are worked out by hand, with the
arithmetic in the comments.
"""

import pytest

from dominoai import Match, get_rules

from handmade import SET, norm, legal, play


def check_deal(deal):
    assert sorted(norm(t) for h in deal for t in h) == sorted(SET)


# ============================================================ openspiel_block


def test_openspiel_block_two_players_7_each_block_play_one_hand():
    """openspiel_block: 2 players, 7 tiles each, no drawing, one hand."""
    r = get_rules("openspiel_block")
    assert (r.players, r.hand_size, r.drawing, r.match_hands) == (2, 7, False, 1)
    h = Match("openspiel_block", seed=1).new_hand()
    assert h.hand_sizes == (7, 7) and h.seat == 0


def test_openspiel_block_seat_0_leads_any_tile():
    """openspiel: seat 0 leads, any tile (not the highest double)."""
    s0 = ["5:4", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"]
    s1 = ["6:6", "5:5", "5:3", "4:4", "5:2", "4:3", "5:1"]  # holds 6:6
    m = Match("openspiel_block")
    with pytest.raises(ValueError):
        m.new_hand(deal=[s0, s1], leader=1)
    h = m.new_hand(deal=[s0, s1])
    assert h.seat == 0 and h.must_play is None
    assert legal(h) == sorted(f"{t} left" for t in s0)


def test_openspiel_block_domino_scores_opponent_total():
    """openspiel_block: the lighter player (here the one who went out, 0 pips)
    wins the heavier player's total; the match is that one hand."""
    s0 = ["6:6", "5:5", "4:4", "3:3", "2:2", "1:1", "0:0"]
    s1 = ["6:5", "5:4", "4:3", "3:2", "2:1", "1:0", "6:4"]
    m = Match("openspiel_block")
    h = m.new_hand(deal=[s0, s1])
    play(h, ["6:6", "6:5 left", "5:5 left", "5:4 left", "4:4 left", "4:3 left", "3:3 left",
             "3:2 left", "2:2 left", "2:1 left", "1:1 left", "1:0 left", "0:0 left"])
    # seat 1 keeps 6:4 = 10: seat 0 wins 10
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("domino", 0, (0, 10), (10, 0))
    assert m.finished and m.winner == 0 and m.scores == (10, 0)
    with pytest.raises(ValueError):
        m.new_hand()


def test_openspiel_block_blocked_lighter_wins_heavier_total():
    """openspiel_block: blocked, the lighter player wins the heavier's total
    (not the difference)."""
    s0 = ["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"]
    s1 = ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]
    m = Match("openspiel_block")
    h = m.new_hand(deal=[s0, s1])
    h.play("6:6")  # no other 6 held: blocked
    # s0: 0+1+2+2+3+4 = 12, s1: 10+9+8+8+7+7+6 = 55 -> seat 0 wins 55
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", 0, (12, 55), (55, 0))
    assert m.finished and m.winner == 0


def test_openspiel_block_equal_totals_score_0_drawn_match():
    """openspiel_block: equal totals: nobody wins, 0 points; the one-hand match
    is finished with no winner."""
    s0 = ["6:6", "5:5", "5:4", "4:4", "0:0", "1:0", "2:2"]  # after 6:6: 10+9+8+0+1+4 = 32
    s1 = ["3:0", "3:1", "4:0", "3:2", "4:1", "5:0", "4:2"]  # 3+4+4+5+5+5+6 = 32
    m = Match("openspiel_block")
    h = m.new_hand(deal=[s0, s1])
    h.play("6:6")
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", None, (32, 32), (0, 0))
    assert m.finished and m.winner is None and m.scores == (0, 0)


# ============================================================= openspiel_team

# 25 tiles on the left of 1:1, seats in turn from seat 0, which lays its 7th
# (the 25th tile) and goes out; 0:0, 6:1 and 6:5 are left over.
SNAKE = ["1:1", "1:0", "0:2", "2:2", "2:1", "1:3", "3:3", "3:0", "0:4", "4:4", "4:1",
         "1:5", "5:5", "5:0", "0:6", "6:6", "6:2", "2:3", "3:4", "4:2", "2:5", "5:3",
         "3:6", "6:4", "4:5"]
SNAKE_MOVES = [SNAKE[0]] + [f"{t} left" for t in SNAKE[1:]]

# a closed line on 1 in 10 tiles (seat 1 lays the 10th):
#   1:1 | L 1:0 0:2 2:1 1:3 3:4 4:1 | R 1:5 5:6 6:1
FISH_LINE = [["1:1", "3:1", "6:5"], ["1:0", "4:3", "6:1"], ["2:0", "4:1"], ["2:1", "5:1"]]
FISH_MOVES = ["1:1", "1:0 left", "2:0 left", "2:1 left", "3:1 left", "4:3 left",
              "4:1 left", "5:1 right", "6:5 right", "6:1 right"]


def test_openspiel_team_four_players_in_pairs_seat_0_leads():
    """openspiel_team: 4 players in pairs (0+2 vs 1+3), 7 each, seat 0 leads
    any tile."""
    r = get_rules("openspiel_team")
    assert (r.players, r.hand_size, r.partnerships, r.sides) == (4, 7, True, 2)
    m = Match("openspiel_team", seed=4)
    h = m.new_hand()
    assert h.hand_sizes == (7, 7, 7, 7) and h.seat == 0 and len(h.legal_moves()) == 7


def test_openspiel_team_lighter_pair_wins_even_when_out_seat_heavier():
    """openspiel_team: the lighter pair wins the heavier pair's total, even when
    the seat that went out is in the heavier pair (no 0:0 special)."""
    roles = [SNAKE[k::4] for k in range(4)]
    roles[1] += ["0:0"]   # 0
    roles[2] += ["6:5"]   # 11
    roles[3] += ["6:1"]   # 7
    check_deal(roles)
    m = Match("openspiel_team")
    h = m.new_hand(deal=roles)
    play(h, SNAKE_MOVES)
    # seat 0 goes out; pair 0: 0 + 11 = 11; pair 1: 0 + 7 = 7 -> pair 1 wins 11
    r = h.result
    assert r.end == "domino" and r.pips == (0, 0, 11, 7)
    assert (r.winner, r.points) == (1, (0, 11))
    assert m.finished and m.winner == 1


def test_openspiel_team_blocked_lighter_pair_wins_heavier_total():
    """openspiel_team: blocked, pair totals; the lighter pair wins the heavier
    pair's total."""
    deal = [FISH_LINE[0] + ["0:0", "3:0", "2:2", "4:0"],         # 0+3+4+4 = 11
            FISH_LINE[1] + ["5:2", "4:4", "5:3", "6:2"],         # 7+8+8+8 = 31
            FISH_LINE[2] + ["3:2", "5:0", "3:3", "4:2", "6:0"],  # 5+5+6+6+6 = 28
            FISH_LINE[3] + ["5:4", "6:3", "5:5", "6:4", "6:6"]]  # 9+9+10+10+12 = 50
    check_deal(deal)
    m = Match("openspiel_team")
    h = m.new_hand(deal=deal)
    play(h, FISH_MOVES)
    # pair 0: 11 + 28 = 39; pair 1: 31 + 50 = 81 -> pair 0 wins 81
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", 0, (11, 31, 28, 50), (81, 0))
    assert m.finished and m.winner == 0


def test_openspiel_team_equal_pair_totals_score_0():
    """openspiel_team: equal pair totals: 0 points, no winner, a drawn match."""
    deal = [FISH_LINE[0] + ["6:6", "6:4", "5:5", "6:3"],         # 12+10+10+9 = 41
            FISH_LINE[1] + ["3:2", "5:0", "3:3", "4:2"],         # 5+5+6+6 = 22
            FISH_LINE[2] + ["0:0", "3:0", "2:2", "4:0", "4:4"],  # 0+3+4+4+8 = 19
            FISH_LINE[3] + ["6:0", "5:2", "5:3", "6:2", "5:4"]]  # 6+7+8+8+9 = 38
    check_deal(deal)
    m = Match("openspiel_team")
    h = m.new_hand(deal=deal)
    play(h, FISH_MOVES)
    # pair 0: 41 + 19 = 60; pair 1: 22 + 38 = 60
    r = h.result
    assert (r.end, r.winner, r.points) == ("blocked", None, (0, 0))
    assert m.finished and m.winner is None
