"""Hand-made tests of the presets `all_fives` (docs/rules.md, `all_fives`, from
"How to play Dominoes" (Bulgarian)) and `fives` (docs/rules.md, `fives`, from
"How to play Domino" (Russian)).

Deals are written by hand; every expected value (the count of the ends after
each tile, points, rounding) is worked out by hand from docs/rules.md and
docs/conventions.md, with the arithmetic in the comments.
"""

import pytest

from dominoai import IllegalMoveError, Match, get_rules

from handmade import rest, legal, play


def ends(h):
    return sorted(h.ends)


def lead_kw(m):
    """``leader=0`` for a first hand led by lot; nothing otherwise."""
    return {"leader": 0} if m.rules.first_lead == "lot" and not m.hands else {}


# ---------------------------------------------------------------------------
# Scripted hands shared by several tests.  "s0"/"s1" are the roles; `swap`
# gives seat 1 the role of s0.
#
# A: a closed line on 6 in 11 tiles, led and closed by the leader:
#   6:6 | L: 6:5 5:3 3:6 6:1 1:0 0:6 | R: 6:4 4:1 1:2 2:6
# count after each tile (the 6:6 counts 12 while it is an end; in All Fives it
# opens after tile 4 and its unplayed sides count 0; Fives has no spinner):
#   1: 12   2: 5+12=17   3: 3+12=15 (leader +15)   4: 3+4=7   5: 6+4=10 (leader +10)
#   6: 6+1=7   7: 1+1=2   8: 1+2=3   9: 0+2=2   10: 0+6=6   11: 6+6=12
# -> the leader makes 25 points during play; then the other seat draws all 14
#    (no 6 is left) and the hand is blocked.
# Non-line tiles hold 168 - 80 = 88 pips; the leader keeps its filler f, the
# other seat ends with 88 - f.
A_MOVES = ["6:6", "6:5 left", "5:3 left", "6:4 right", "6:3 left", "4:1 right",
           "6:1 left", "2:1 right", "1:0 left", "6:2 right", "6:0 left"]


def a_hand(m, f0, swap=False):
    s0 = ["6:6", "5:3", "6:3", "6:1", "1:0", "6:0", f0]
    s1 = ["6:5", "6:4", "4:1", "2:1", "6:2", "5:5", "4:4"]
    deal = [s1, s0] if swap else [s0, s1]
    h = m.new_hand(deal=deal, boneyard=rest(s0, s1), **lead_kw(m))
    play(h, A_MOVES)
    return h


# B: a closed line on 6 in 10 tiles, closed by the other seat:
#   6:6 | L: 6:5 5:3 3:6 6:1 1:0 0:6 | R: 6:4 4:2 2:6
# counts: 1: 12  2: 17  3: 15 (leader +15)  4: 3+4=7  5: 6+4=10 (leader +10)
#   6: 6+2=8  7: 1+2=3  8: 1+6=7  9: 0+6=6  10: 6+6=12
# -> leader 25 during play; the leader then draws all 14 and the hand is
# blocked.  Non-line tiles hold 168 - 78 = 90 pips.
B_MOVES = ["6:6", "6:5 left", "5:3 left", "6:4 right", "6:3 left", "4:2 right",
           "6:1 left", "6:2 right", "1:0 left", "6:0 left"]


def b_hand(m, swap=False):
    lead = ["6:6", "5:3", "6:3", "6:1", "1:0", "5:5", "4:4"]
    other = ["6:5", "6:4", "4:2", "6:2", "6:0", "0:0", "1:1"]  # other keeps 0+2 = 2
    deal = [other, lead] if swap else [lead, other]
    h = m.new_hand(deal=deal, boneyard=rest(lead, other), **lead_kw(m))
    play(h, B_MOVES)
    return h


# C (All Fives) / D (Fives): the leader lays seven doubles, the other seat the
# links, everything on the left; the 6:6 stays the right end (12) all hand.
C_MOVES = ["6:6", "6:5 left", "5:5 left", "5:4 left", "4:4 left", "4:3 left",
           "3:3 left", "3:2 left", "2:2 left", "2:1 left", "1:1 left", "1:0 left",
           "0:0 left"]
# C counts: 12, 5+12=17, 10+12=22, 4+12=16, 8+12=20 (leader +20), 3+12=15 (other
# +15), 18, 14, 16, 13, 14, 12, 12.
D_MOVES = ["6:6", "6:5 left", "5:5 left", "5:3 left", "3:3 left", "3:2 left",
           "2:2 left", "2:1 left", "1:1 left", "1:0 left", "0:0 left", "4:0 left",
           "4:4 left"]
# D counts: 12, 17, 22, 3+12=15 (other +15), 18, 14, 16, 13, 14, 12, 12,
# 4+12=16, 8+12=20 (leader +20, on the leader's last tile).


def d_hand(m, leftover):
    s0 = ["6:6", "5:5", "3:3", "2:2", "1:1", "0:0", "4:4"]
    s1 = ["6:5", "5:3", "3:2", "2:1", "1:0", "4:0", leftover]
    return m.new_hand(deal=[s0, s1], boneyard=rest(s0, s1), **lead_kw(m))


# ================================================================ all_fives


@pytest.mark.parametrize("players,size", [(2, 7), (3, 5), (4, 5)])
def test_all_fives_deal_and_target(players, size):
    """all_fives: "2-4 players. Deal 7 with two players, 5 with three or four.
    Drawing as in draw"; "Target 150"."""
    r = get_rules("all_fives", players=players)
    assert (r.hand_size, r.drawing, r.target) == (size, True, 150)
    h = Match("all_fives", seed=9, players=players).new_hand(leader=0)
    assert h.hand_sizes == (size,) * players and h.boneyard_size == 28 - players * size


@pytest.mark.parametrize("lead,count,points", [
    ("5:5", 10, (10, 0)),  # 5 + 5 = 10: a multiple of 5, scored at once
    ("6:4", 10, (10, 0)),  # 6 + 4 = 10
    ("6:3", 9, (0, 0)),    # 9: not a multiple of 5
    ("0:0", 0, (0, 0)),    # 0: not a *positive* multiple
])
def test_all_fives_lone_lead_counts_both_halves(lead, count, points):
    """all_fives: "A lone first tile counts both halves (5:5 -> 10, 6:4 -> 10)";
    "If that sum is a positive multiple of 5, the player who laid the tile
    scores it at once"."""
    s0 = ["5:5", "6:4", "6:3", "0:0", "1:0", "2:1", "3:2"]
    s1 = ["6:6", "6:5", "5:4", "4:4", "3:3", "2:2", "1:1"]
    h = Match("all_fives").new_hand(deal=[s0, s1], boneyard=rest(s0, s1), leader=0)
    h.play(lead)
    assert h.count == count and h.points == points


def test_all_fives_spinner_first_double_opens_after_both_long_sides():
    """all_fives: "The first double played is the spinner. Once tiles have been
    played on both of its long sides, its two short sides open too ... Later
    doubles are laid crosswise but open nothing"; counting: "the spinner counts
    both halves while it is itself an end ...; a side of the spinner with no
    tile on it counts nothing"."""
    s0 = ["6:6", "3:3", "6:4", "0:0", "1:0", "2:0", "4:4"]
    s1 = ["6:3", "3:1", "6:0", "5:5", "5:2", "3:2", "2:2"]
    h = Match("all_fives").new_hand(deal=[s0, s1], boneyard=rest(s0, s1), leader=0)
    h.play("6:6")
    assert str(h.spinner) == "6:6" and h.count == 12  # lone lead 6 + 6
    h.play("6:3 right")
    # the spinner is still an end (left side empty): 12 + 3 = 15 -> seat 1 +15
    assert ends(h) == [(0, 6, 1), (1, 3, 0)] and h.count == 15 and h.points == (0, 15)
    h.play("3:3 right")  # a later double: counts 6 at its end, opens nothing
    assert h.count == 18 and len(h.ends) == 2  # 12 + 6
    h.play("3:1 right")
    assert h.count == 13 and len(h.ends) == 2 and str(h.spinner) == "6:6"  # 12 + 1
    h.play("6:4 left")
    # both long sides played: up/down open (show 6, count 0): 4 + 1 + 0 + 0 = 5
    assert ends(h) == [(0, 4, 0), (1, 1, 0), (2, 6, 2), (3, 6, 2)]
    assert h.count == 5 and h.points == (5, 15)
    # seat 1's 6:0 fits up and down, equivalent (both unplayed short sides): one move
    assert legal(h) == ["6:0 up"]
    h.play("6:0 up")
    # 4 + 1 + 0 (the 0 of 6:0 up) + 0 (down still empty) = 5 -> seat 1 +5
    assert h.count == 5 and h.points == (5, 20)


def test_all_fives_first_double_played_is_spinner_even_if_not_lead():
    """all_fives: "The first double played is the spinner" (here the second
    tile); later doubles open nothing; up/down count 0 until played."""
    s0 = ["5:4", "4:0", "4:1", "3:3", "2:2", "6:1", "6:2"]
    s1 = ["4:4", "5:5", "6:6", "6:5", "3:1", "2:1", "1:1"]
    h = Match("all_fives").new_hand(deal=[s0, s1], boneyard=rest(s0, s1), leader=0)
    h.play("5:4")  # 5 | 4: 9
    assert h.spinner is None and h.count == 9
    h.play("4:4 right")  # first double: the spinner, an end: 5 + 8 = 13
    assert str(h.spinner) == "4:4" and h.count == 13
    h.play("4:0 right")  # opens: 5 + 0 + 0 + 0 = 5 -> seat 0 +5
    assert ends(h) == [(0, 5, 0), (1, 0, 0), (2, 4, 2), (3, 4, 2)] and h.points == (5, 0)
    h.play("5:5 left")  # later double at the left end: 10 + 0 = 10 -> seat 1 +10
    assert h.count == 10 and h.points == (5, 10)
    assert len(h.ends) == 4 and str(h.spinner) == "4:4"
    assert legal(h) == ["4:1 up"]  # up and down are one move
    h.play("4:1 down")
    assert h.count == 11  # 10 + 0 + 0 + 1


@pytest.mark.parametrize("leftovers,pips,end_points", [
    (["5:3", "5:0"], 13, 15),  # 8 + 5 = 13 -> 15
    (["5:3", "4:0"], 12, 10),  # 8 + 4 = 12 -> 10
])
def test_all_fives_domino_rounds_others_pips_once(leftovers, pips, end_points):
    """all_fives: "Hand end: the winner (as in draw) scores the sum of the other
    players' pips, rounded once to the nearest multiple of 5 (12 -> 10,
    13 -> 15)"; drawing as in draw."""
    s0 = ["6:6", "5:5", "4:4", "3:3", "2:2", "1:1", "0:0"]
    s1 = ["6:5", "5:4", "4:3", "3:2", "2:1"] + leftovers
    bone = ["1:0"] + rest(s0, s1, ["1:0"])
    h = Match("all_fives").new_hand(deal=[s0, s1], boneyard=bone, leader=0)
    play(h, C_MOVES[:11])
    assert h.points == (20, 15)  # 4:4 -> 8 + 12 = 20; 4:3 -> 3 + 12 = 15
    # seat 1 holds only its leftovers (no 1, no 6): draws 1:0, which fits
    assert (h.events[-1].kind, h.events[-1].count, str(h.must_play)) == ("draw", 1, "1:0")
    play(h, C_MOVES[11:])
    r = h.result
    assert (r.end, r.winner, r.pips) == ("domino", 0, (0, pips))
    assert r.points == (20 + end_points, 15)


def test_all_fives_blocked_winner_scores_others_rounded_nothing_subtracted():
    """all_fives: "the winner ... scores the sum of the other players' pips,
    rounded once ... Nothing is subtracted"; blocked as in draw, no pass."""
    h = a_hand(Match("all_fives"), f0="3:3")
    assert [e.kind for e in h.events] == ["play"] * 11 + ["draw"]
    # s0 keeps 3:3 = 6, s1 88 - 6 = 82: s0 scores round(82) = 80 (not 82 - 6 = 76 -> 75)
    r = h.result
    assert (r.end, r.winner, r.pips) == ("blocked", 0, (6, 82))
    assert r.points == (25 + 80, 0)


def test_all_fives_target_150_checked_after_each_hand():
    """all_fives: "Target 150, checked after each hand; highest wins"."""
    m = Match("all_fives")
    a_hand(m, f0="0:0")  # 25 + round(88) = 25 + 90 = 115
    assert m.scores == (115, 0) and not m.finished
    b_hand(m)  # seat 0 leads (won): +25; seat 1 wins round(88) = 90
    assert m.scores == (140, 90) and not m.finished
    # hand 3: seat 1 (the winner) leads the doubles, seat 0 lays the links
    s1 = ["6:6", "5:5", "4:4", "3:3", "2:2", "1:1", "0:0"]
    s0 = ["6:5", "5:4", "4:3", "3:2", "2:1", "1:0", "2:0"]
    h = m.new_hand(deal=[s0, s1], boneyard=rest(s0, s1))
    assert h.seat == 1
    play(h, C_MOVES[:6])
    # seat 1 +20 (4:4), seat 0 +15 (4:3): seat 0 has 140 + 15 = 155 >= 150 mid-hand
    assert h.points == (15, 20)
    assert not h.over and not m.finished  # the hand goes on
    play(h, C_MOVES[6:])
    # seat 1 goes out; seat 0 keeps 2:0 = 2 -> round(2) = 0
    assert h.result.points == (15, 20)
    assert m.scores == (155, 110) and m.finished and m.winner == 0


def test_all_fives_tie_for_first_plays_another_hand():
    """all_fives: "a tie for first plays another hand" (target set to 100 so the
    tie is reachable in two scripted hands; the rule does not depend on it)."""
    m = Match("all_fives", target=100)
    b_hand(m)  # seat 0 +25; seat 1 wins round(90 - 2) = 90
    assert m.scores == (25, 90) and not m.finished
    b_hand(m, swap=True)  # seat 1 (winner) leads: seat 1 +25, seat 0 +90
    assert m.scores == (115, 115)  # both >= 100, tied for first
    assert not m.finished and m.winner is None
    a_hand(m, f0="3:3")  # seat 0 (winner of hand 2) leads: 25 + 80 = 105
    assert m.scores == (220, 115) and m.finished and m.winner == 0


# ==================================================================== fives


def test_fives_two_players_deal_7_drawing():
    """fives: "2 players, deal 7, drawing as in draw"; target 150."""
    r = get_rules("fives")
    assert (r.players, r.hand_size, r.drawing, r.target, r.spinner) == (2, 7, True, 150, "none")
    with pytest.raises(ValueError, match="players"):
        get_rules("fives", players=3)
    h = Match("fives", seed=4).new_hand()
    assert h.hand_sizes == (7, 7) and h.boneyard_size == 14


def test_fives_no_spinner_double_at_end_counts_both_halves():
    """fives: "No spinner: a line with two ends ... doubles at an end count both
    halves; the lead counts both of its halves"."""
    s0 = ["6:6", "6:1", "1:1", "0:0", "2:0", "3:0", "3:2"]
    s1 = ["6:4", "4:4", "6:5", "5:5", "5:3", "3:3", "2:2"]
    h = Match("fives").new_hand(deal=[s0, s1], boneyard=rest(s0, s1))
    assert h.seat == 0  # highest double 6:6
    h.play("6:6")
    assert h.count == 12  # 6 + 6
    h.play("6:4 right")
    assert h.count == 16  # 6:6 at the left end: 12, plus 4
    h.play("6:1 left")
    # 1 + 4 = 5 -> seat 0 +5; both sides of 6:6 taken, but nothing opens
    assert h.count == 5 and h.points == (5, 0)
    assert len(h.ends) == 2 and h.spinner is None
    assert legal(h) == ["4:4 right"]  # 6:5 has nowhere to go
    h.play("4:4 right")
    assert h.count == 9  # 1 + 8
    h.play("1:1 left")
    assert h.count == 10 and h.points == (15, 0)  # 2 + 8 = 10 -> seat 0 +10


def test_fives_equivalent_pips_but_double_end_are_two_moves():
    """Common ground: "in Fives they are two, because the double counts twice"
    (a 3 shown by 3:3 and a 3 shown by 5:3)."""
    s0 = ["3:3", "6:5", "3:1", "2:0", "1:0", "2:1", "0:0"]
    s1 = ["6:3", "5:3", "4:0", "4:1", "4:2", "5:0", "5:1"]
    h = Match("fives").new_hand(deal=[s0, s1], boneyard=rest(s0, s1))
    h.play("3:3")  # highest double held (3:3 > 0:0)
    # both sides of the lone 3:3 are the same (pip 3, double): one move per tile
    assert legal(h) == ["5:3 left", "6:3 left"]
    play(h, ["6:3 right", "6:5 right", "5:3 right"])
    # counts: 6+6 = 12, 6+5 = 11, 6+3 = 9: nobody scores
    assert h.points == (0, 0)
    assert ends(h) == [(0, 3, 1), (1, 3, 0)]
    # 3:1 left leaves 1 + 3 = 4, 3:1 right leaves 6 + 1 = 7: two moves
    assert legal(h) == ["3:1 left", "3:1 right"]


def test_fives_first_hand_highest_double_leads_it():
    """fives: "First hand: the player with the highest double leads it"."""
    s0 = ["6:4", "4:4", "6:5", "5:5", "5:3", "3:3", "2:2"]
    s1 = ["6:6", "6:1", "1:1", "0:0", "2:0", "3:0", "3:2"]
    m = Match("fives")
    with pytest.raises(ValueError):
        m.new_hand(deal=[s0, s1], boneyard=rest(s0, s1), leader=0)
    h = m.new_hand(deal=[s0, s1], boneyard=rest(s0, s1))
    assert h.seat == 1 and str(h.must_play) == "6:6" and legal(h) == ["6:6 left"]


def test_fives_first_hand_no_double_heaviest_tile_leads():
    """fives: "(no double: the heaviest tile)"; the lead counts both halves."""
    s0 = ["6:4", "5:3", "4:3", "5:2", "4:2", "6:2", "6:1"]  # heaviest 6:4 (10)
    s1 = ["5:4", "6:3", "2:1", "3:0", "1:0", "4:0", "3:1"]  # heaviest 6:3 (9)
    # no doubles dealt; 6:5 (11) is in the boneyard -> seat 0 leads 6:4
    h = Match("fives").new_hand(deal=[s0, s1], boneyard=rest(s0, s1))
    assert h.seat == 0 and str(h.must_play) == "6:4"
    h.play("6:4")
    assert h.count == 10 and h.points == (10, 0)  # 6 + 4 = 10


def test_fives_lone_lead_5_5_counts_10():
    """fives: "the lead counts both of its halves" (5:5 -> 10)."""
    s0 = ["5:5", "4:4", "6:4", "5:3", "4:3", "5:2", "4:2"]
    s1 = ["3:3", "6:3", "2:1", "3:0", "1:0", "4:0", "3:1"]
    h = Match("fives").new_hand(deal=[s0, s1], boneyard=rest(s0, s1))
    h.play("5:5")  # highest double held: 5:5
    assert h.count == 10 and h.points == (10, 0)


@pytest.mark.parametrize("leftover,end_points", [
    ("6:3", 10),  # 9 -> 10
    ("6:1", 5),   # 7 -> 5
    ("2:0", 0),   # 2 -> 0
])
def test_fives_domino_scores_opponent_pips_rounded(leftover, end_points):
    """fives: "the player who dominoed scores the opponent's pips ... rounded to
    the nearest multiple of 5"."""
    m = Match("fives")
    h = d_hand(m, leftover)
    play(h, D_MOVES)
    r = h.result
    # during play: seat 1 +15 (5:3), seat 0 +20 (4:4, last tile)
    assert (r.end, r.winner) == ("domino", 0)
    assert r.points == (20 + end_points, 15)


def test_fives_blocked_lighter_scores_difference_rounded():
    """fives: "in a blocked hand the lighter player scores the difference ...
    rounded to the nearest multiple of 5"."""
    h = a_hand(Match("fives"), f0="1:1")
    # s0 keeps 1:1 = 2, s1 88 - 2 = 86: difference 84 -> 85
    r = h.result
    assert (r.end, r.winner, r.pips) == ("blocked", 0, (2, 86))
    assert r.points == (25 + 85, 0)


def test_fives_blocked_equal_totals_score_nothing_other_player_leads_next():
    """fives: "equal totals score nothing"; "after a hand with no winner, the seat
    after the previous leader (the other player) leads"."""
    s0 = ["6:6", "5:3", "6:3", "6:1", "6:0", "5:5", "4:4"]
    s1 = ["6:5", "6:4", "4:1", "2:1", "6:2", "3:0", "5:0"]
    bone = ["0:0", "3:3", "4:0", "4:3", "5:4", "1:0",
            "1:1", "2:0", "2:2", "3:1", "3:2", "4:2", "5:1", "5:2"]
    m = Match("fives")
    h = m.new_hand(deal=[s0, s1], boneyard=bone)
    play(h, A_MOVES[:8])
    # seat 0 (6:0 5:5 4:4) cannot play on 1 | 2: draws 0:0 3:3 4:0 4:3 5:4, then 1:0
    assert (h.events[-1].kind, h.events[-1].count) == ("draw", 6)
    play(h, A_MOVES[8:])  # then seat 1 draws the last 8: blocked
    # s0: 10+8 + 0+6+4+7+9 = 44; s1: 3+5 + 2+2+4+4+5+6+6+7 = 44
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", None, (44, 44), (25, 0))
    h2 = m.new_hand()
    assert h2.seat == 1 and len(h2.legal_moves()) == 7


def test_fives_next_hand_winner_leads_any_tile():
    """fives: "Next hands: the previous winner leads any tile"."""
    m = Match("fives", seed=8)
    a_hand(m, f0="1:1")  # seat 0 wins
    h = m.new_hand()
    assert h.seat == 0 and h.must_play is None and len(h.legal_moves()) == 7


def _fives_to_135():
    m = Match("fives")
    a_hand(m, f0="0:0")  # 25 + round(88 - 0) = 25 + 90 = 115
    assert m.scores == (115, 0)
    h = d_hand(m, "2:0")
    play(h, D_MOVES)  # seat 0 +20 (+ round(2) = 0), seat 1 +15
    assert m.scores == (135, 15) and not m.finished
    return m


def test_fives_target_reached_mid_hand_ends_match_at_once():
    """fives: "Target 150, and reaching it wins at once, even in the middle of a
    hand"; the hand is reported as cut short (end null)."""
    m = _fives_to_135()
    s0 = ["6:6", "5:3", "6:3", "6:1", "1:0", "6:0", "0:0"]
    s1 = ["6:5", "6:4", "4:1", "2:1", "6:2", "5:5", "4:4"]
    h = m.new_hand(deal=[s0, s1], boneyard=rest(s0, s1))
    play(h, A_MOVES[:3])  # 5:3 left: 3 + 12 = 15 -> 135 + 15 = 150
    assert m.finished and m.winner == 0 and m.scores == (150, 15)
    assert h.over and h.legal_moves() == []
    assert h.result.end is None and h.result.points == (15, 0)
    with pytest.raises(IllegalMoveError):
        h.play("6:4 right")


def test_fives_target_on_last_tile_skips_hand_end_count():
    """fives: "Points come in order: the ends of a tile first, then the hand-end
    count. If the ends of a hand's last tile reach the target, the match ends
    there, the hand-end count is not added, and the hand is reported as cut
    short (end null)"."""
    m = _fives_to_135()
    h = d_hand(m, "6:4")  # seat 1 keeps 6:4 (10 -> would be 10 more)
    play(h, D_MOVES)
    # seat 1 +15 -> 30; seat 0's last tile 4:4: 8 + 12 = 20 -> 155 >= 150
    assert m.finished and m.winner == 0
    assert m.scores == (155, 30)  # not 165: the hand-end 10 is not added
    assert h.result.end is None and h.result.points == (20, 15)
