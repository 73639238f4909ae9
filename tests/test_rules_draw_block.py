"""Hand-made tests of the presets `draw` and `block` (docs/rules.md, `draw` and
`block`, from "How to play Dominoes" (Bulgarian)) and of "How to play Domino"
(Russian)'s Draw and Block (`first_lead="highest_double"`; docs/rules.md, "The
same source's Draw and Block").

Deals are written by hand; every expected value is worked out by hand from
docs/rules.md, with the arithmetic in the comments.
"""

import pytest

from dominoai import Match, get_rules

from handmade import rest, legal, play


# ---------------------------------------------------------------------------
# A closed line on 6 in 11 tiles (the leader, seat 0, lays the last one):
#   6:6 | L: 6:5 5:3 3:6 6:1 1:0 0:6 | R: 6:4 4:1 1:2 2:6
# After the 11th tile both ends show 6 and all seven 6s are on the line.
A11_MOVES = ["6:6", "6:5 left", "5:3 left", "6:4 right", "6:3 left", "4:1 right",
             "6:1 left", "2:1 right", "1:0 left", "6:2 right", "6:0 left"]
A11_S0 = ["6:6", "5:3", "6:3", "6:1", "1:0", "6:0", "1:1"]  # filler 1:1 (2 pips)
A11_S1 = ["6:5", "6:4", "4:1", "2:1", "6:2", "5:5", "4:4"]  # fillers 5:5, 4:4
# Boneyard (rest, no 6 in it): 0:0 2:0 2:2 3:0 3:1 3:2 3:3 4:0 4:2 4:3 5:0 5:1 5:2 5:4
#   pips 0+2+4+3+4+5+6+4+6+7+5+6+7+9 = 68.
# After the closing tile seat 1 cannot play: it draws all 14 (none fits) and the
# hand is blocked.  s0 holds 1:1 = 2; s1 holds 10 + 8 + 68 = 86.


def a11_hand(m):
    h = m.new_hand(deal=[A11_S0, A11_S1], boneyard=rest(A11_S0, A11_S1),
                   **({"leader": 0} if m.rules.first_lead == "lot" and not m.hands else {}))
    play(h, A11_MOVES)
    return h


# The same closed line, but seat 0 is forced to draw 6 tiles before its 1:0 so
# that the pips split equally at the end (44 / 44).
AEQ_S0 = ["6:6", "5:3", "6:3", "6:1", "6:0", "5:5", "4:4"]
AEQ_S1 = ["6:5", "6:4", "4:1", "2:1", "6:2", "3:0", "5:0"]
AEQ_BONE = ["0:0", "3:3", "4:0", "4:3", "5:4", "1:0",
            "1:1", "2:0", "2:2", "3:1", "3:2", "4:2", "5:1", "5:2"]


# ===================================================================== draw


@pytest.mark.parametrize("players,size,target", [(2, 7, 100), (3, 7, 61), (4, 6, 61)])
def test_draw_deal_size_and_target(players, size, target):
    """draw: "2-4 players ... Deal 7, or 6 when four play" and "Target 100 with
    two players, 61 with three or four"."""
    r = get_rules("draw", players=players)
    assert (r.hand_size, r.target, r.drawing, r.partnerships) == (size, target, True, False)
    h = Match("draw", seed=5, players=players).new_hand(leader=0)
    assert h.hand_sizes == (size,) * players
    assert h.boneyard_size == 28 - players * size  # 14, 7, 4


def test_draw_first_leader_by_lot_may_lead_any_tile():
    """draw: "First hand: the leader is chosen by lot and may lead any tile"."""
    h = Match("draw").new_hand(deal=[A11_S0, A11_S1], boneyard=rest(A11_S0, A11_S1), leader=1)
    assert h.seat == 1
    assert legal(h) == sorted(f"{t} left" for t in A11_S1)  # 7 tiles, one move each
    h2 = Match("draw", seed=1).new_hand()  # no leader given: drawn at random
    assert h2.seat in (0, 1) and len(h2.legal_moves()) == 7


def test_draw_blocked_lowest_scores_others_minus_own_no_pass():
    """draw: blocked hand winner "the player with the lowest pip total"; "Winner
    scores (sum of the other players' pips) - (own pips)"; a blocked hand ends
    with no pass."""
    h = a11_hand(Match("draw"))
    # after the 11th tile seat 1 draws the whole boneyard (14, none fits): blocked
    assert [e.kind for e in h.events] == ["play"] * 11 + ["draw"]
    assert (h.events[-1].seat, h.events[-1].count) == (1, 14)
    r = h.result
    # s0 = 1:1 = 2, s1 = 86: s0 lowest, scores 86 - 2 = 84
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", 0, (2, 86), (84, 0))


def test_draw_domino_scores_others_minus_own():
    """draw: "Hand winner: the player who dominoed"; scores others - own (0)."""
    # s0 lays the doubles, s1 the links, all on the left:
    # 6:6 6:5 5:5 5:4 4:4 4:3 3:3 3:2 2:2 2:1 1:1 1:0 0:0 -> s0 goes out
    s0 = ["6:6", "5:5", "4:4", "3:3", "2:2", "1:1", "0:0"]
    s1 = ["6:5", "5:4", "4:3", "3:2", "2:1", "1:0", "6:4"]
    h = Match("draw").new_hand(deal=[s0, s1], boneyard=rest(s0, s1), leader=0)
    play(h, ["6:6", "6:5 left", "5:5 left", "5:4 left", "4:4 left", "4:3 left", "3:3 left",
             "3:2 left", "2:2 left", "2:1 left", "1:1 left", "1:0 left", "0:0 left"])
    r = h.result
    # s1 keeps 6:4 = 10: s0 scores 10 - 0 = 10
    assert (r.end, r.winner, r.pips, r.points) == ("domino", 0, (0, 10), (10, 0))
    assert h.events[-1].kind == "play"


def test_draw_blocked_tie_nobody_scores_lead_passes_to_seat_after_leader():
    """draw: "a tie for the lowest means nobody scores"; "after a blocked hand
    with no single winner, the lead passes to the seat after the previous
    leader"."""
    m = Match("draw")
    h = m.new_hand(deal=[AEQ_S0, AEQ_S1], boneyard=AEQ_BONE, leader=0)
    play(h, A11_MOVES[:8])
    # s0 holds 6:0 5:5 4:4; ends 1 | 2: draws 0:0 3:3 4:0 4:3 5:4 then 1:0 (fits)
    assert (h.events[-1].kind, h.events[-1].count, str(h.must_play)) == ("draw", 6, "1:0")
    play(h, A11_MOVES[8:])
    # s1 draws the remaining 8 (no 6 among them): blocked.
    # s0 = 5:5 4:4 0:0 3:3 4:0 4:3 5:4 = 10+8+0+6+4+7+9 = 44
    # s1 = 3:0 5:0 + 1:1 2:0 2:2 3:1 3:2 4:2 5:1 5:2 = 3+5+2+2+4+4+5+6+6+7 = 44
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", None, (44, 44), (0, 0))
    assert m.scores == (0, 0)
    with pytest.raises(ValueError):
        m.new_hand(leader=0)  # seat 0 led; the lead passes to seat 1
    h2 = m.new_hand()
    assert h2.seat == 1 and len(h2.legal_moves()) == 7  # any tile


def test_draw_four_players_blocked_tie_nobody_scores():
    """draw: four players, 6 each; "in a blocked hand the player with the lowest
    pip total; a tie for the lowest means nobody scores"; next lead: the seat
    after the previous leader."""
    deal = [["6:6", "6:3", "1:0", "0:0", "2:2", "3:3"],
            ["6:5", "4:2", "6:0", "2:1", "3:0", "3:1"],
            ["5:3", "6:1", "4:1", "4:3", "4:4", "5:0"],
            ["6:4", "6:2", "1:1", "2:0", "4:0", "3:2"]]
    bone = ["5:1", "5:2", "5:4", "5:5"]
    m = Match("draw", players=4)
    h = m.new_hand(deal=deal, boneyard=bone, leader=0)
    # closed line on 6: 6:6 | L 6:5 5:3 3:6 6:1 1:0 0:6 | R 6:4 4:2 2:6
    play(h, ["6:6", "6:5 left", "5:3 left", "6:4 right", "6:3 left", "4:2 right",
             "6:1 left", "6:2 right", "1:0 left", "6:0 left"])
    # seat 2 draws the 4 boneyard tiles (no 6): blocked, no pass
    assert (h.events[-1].kind, h.events[-1].seat, h.events[-1].count) == ("draw", 2, 4)
    # s0 0:0 2:2 3:3 = 0+4+6 = 10; s1 2:1 3:0 3:1 = 3+3+4 = 10;
    # s2 4:1 4:3 4:4 5:0 + 5:1 5:2 5:4 5:5 = 5+7+8+5+6+7+9+10 = 57; s3 1:1 2:0 4:0 3:2 = 13
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", None, (10, 10, 57, 13), (0, 0, 0, 0))
    assert m.new_hand().seat == 1


def test_draw_next_hand_winner_leads_any_tile():
    """draw: "Next hands: the winner of the previous hand leads any tile"."""
    m = Match("draw", seed=2)
    a11_hand(m)  # seat 0 led and won
    with pytest.raises(ValueError):
        m.new_hand(leader=1)
    h = m.new_hand()
    assert h.seat == 0 and len(h.legal_moves()) == 7


def test_draw_match_ends_after_hand_reaching_100():
    """draw: "Target 100 with two players ... The match ends after a hand in
    which someone reached the target; the highest score wins"."""
    m = Match("draw")
    a11_hand(m)
    assert m.scores == (84, 0) and not m.finished and m.winner is None  # 84 < 100
    a11_hand(m)  # seat 0 won, leads again
    assert m.scores == (168, 0) and m.finished and m.winner == 0  # 84 + 84 = 168 >= 100
    with pytest.raises(ValueError):
        m.new_hand()


# ==================================================================== block


@pytest.mark.parametrize("players,size,target", [(2, 7, 100), (3, 5, 61), (4, 5, 61)])
def test_block_deal_size_and_target(players, size, target):
    """block: "As draw, but nobody draws ... Deal 7 with two players, 5 with
    three or four"."""
    r = get_rules("block", players=players)
    assert (r.hand_size, r.target, r.drawing) == (size, target, False)
    h = Match("block", seed=5, players=players).new_hand(leader=0)
    assert h.hand_sizes == (size,) * players


def test_block_cannot_play_passes_never_draws():
    """block: "nobody draws: a player who cannot play passes"."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0"],
            ["5:5", "5:4", "5:3", "4:4", "4:3"],
            ["3:3", "3:2", "3:1", "3:0", "2:2"],
            ["6:1", "2:1", "4:0", "4:1", "4:2"]]
    h = Match("block", players=4).new_hand(deal=deal, leader=0)
    h.play("6:6")
    # seats 1 and 2 hold no 6: they pass; seat 3 (6:1) is to play
    assert [(e.kind, e.seat) for e in h.events] == [("play", 0), ("pass", 1), ("pass", 2)]
    assert h.seat == 3 and h.hand_sizes == (4, 5, 5, 5) and h.boneyard_size == 8


def test_block_blocked_lowest_scores_others_minus_own():
    """block: blocked, "the player with the lowest pip total" wins; "Winner scores
    (sum of the other players' pips) - (own pips)"."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    h.play("6:6")  # no other 6 in either hand: blocked at once
    # s0: 0+1+2+2+3+4 = 12; s1: 10+9+8+8+7+7+6 = 55; s0 scores 55 - 12 = 43
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", 0, (12, 55), (43, 0))


def test_block_three_players_blocked_winner_scores_sum_of_others_minus_own():
    """block: "Winner scores (sum of the other players' pips) - (own pips)" with
    three players."""
    deal = [["0:0", "1:0", "1:1", "5:5", "5:0"],   # 0+1+2+10+5 = 18
            ["2:1", "3:0", "2:2", "3:1", "2:0"],   # 3+3+4+4+2 = 16
            ["6:6", "5:4", "4:4", "5:3", "4:3"]]   # after the lead 9+8+8+7 = 32
    h = Match("block", players=3).new_hand(deal=deal, leader=2)
    h.play("6:6")
    # s1 lowest (16): scores (18 + 32) - 16 = 34
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", 1, (18, 16, 32), (0, 34, 0))


def test_block_two_players_blocked_tie_nobody_scores_next_lead_other_seat():
    """block: "a tie for the lowest means nobody scores"; the lead passes to the
    seat after the previous leader."""
    deal = [["6:6", "5:5", "5:4", "4:4", "0:0", "1:0", "2:2"],  # 10+9+8+0+1+4 = 32
            ["3:0", "3:1", "4:0", "3:2", "4:1", "5:0", "4:2"]]  # 3+4+4+5+5+5+6 = 32
    m = Match("block")
    h = m.new_hand(deal=deal, leader=0)
    h.play("6:6")
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", None, (32, 32), (0, 0))
    assert m.new_hand().seat == 1


def test_block_three_players_tie_next_lead_wraps_to_seat_0():
    """block: blocked tie -> nobody scores; next lead: the seat after the
    previous leader (seat 2 -> seat 0)."""
    deal = [["0:0", "1:0", "1:1", "5:5", "5:0"],   # 0+1+2+10+5 = 18
            ["2:1", "3:0", "2:2", "3:1", "4:0"],   # 3+3+4+4+4 = 18
            ["6:6", "5:4", "4:4", "5:3", "4:3"]]   # 32 after the lead
    m = Match("block", players=3)
    h = m.new_hand(deal=deal, leader=2)
    h.play("6:6")
    assert (h.result.winner, h.result.points) == (None, (0, 0, 0))
    h2 = m.new_hand()
    assert h2.seat == 0 and len(h2.legal_moves()) == 5


B5 = [["6:6", "6:5", "5:5", "5:4", "4:4"],
      ["0:0", "1:0", "1:1", "2:0", "2:1"],   # 0+1+2+2+3 = 8
      ["2:2", "3:0", "3:1", "3:2", "3:3"]]   # 4+3+4+5+6 = 22
B5_MOVES = ["6:6", "6:5 left", "5:5 left", "5:4 left", "4:4 left"]


def test_block_three_players_domino_scores_sum_of_others():
    """block: domino; "Winner scores (sum of the other players' pips) - (own
    pips)"."""
    h = Match("block", players=3).new_hand(deal=B5, leader=0)
    play(h, B5_MOVES)  # seats 1 and 2 never hold a 6, 5 or 4: they pass
    assert [e.kind for e in h.events] == ["play", "pass", "pass"] * 4 + ["play"]
    # s0 scores (8 + 22) - 0 = 30
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("domino", 0, (0, 8, 22), (30, 0, 0))


def test_block_three_players_target_61():
    """block: "Target ... 61 with three or four. The match ends after a hand in
    which someone reached the target; the highest score wins"."""
    m = Match("block", players=3)
    for i, expected in enumerate([(30, 0, 0), (60, 0, 0), (90, 0, 0)]):
        h = m.new_hand(deal=B5, **({"leader": 0} if i == 0 else {}))
        assert h.seat == 0  # the winner (seat 0) leads again
        play(h, B5_MOVES)
        assert m.scores == expected
        # 30 and 60 are below 61; 90 reaches it
        assert m.finished == (i == 2)
    assert m.winner == 0


def test_block_two_players_target_100():
    """block: "Target 100 with two players"; the match ends after the hand that
    reaches it."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]]
    m = Match("block")
    for i in range(3):
        h = m.new_hand(deal=deal, **({"leader": 0} if i == 0 else {}))
        h.play("6:6")  # 43 each time (55 - 12)
    # 43, 86 (< 100: not over), 129 (>= 100)
    assert m.scores == (129, 0) and m.finished and m.winner == 0
    assert [hh.result.points for hh in m.hands] == [(43, 0)] * 3


# ============================== "How to play Domino" (Russian): Draw and Block


@pytest.mark.parametrize("preset", ["draw", "block"])
def test_two_player_highest_double_holder_leads_it(preset):
    """docs/rules.md, "The same source's Draw and Block": with
    `first_lead="highest_double"` the holder of the highest double leads it."""
    s0 = ["5:5", "4:4", "0:0", "1:0", "2:0", "2:1", "3:0"]
    s1 = ["6:6", "6:5", "6:4", "5:4", "5:3", "4:3", "3:1"]
    m = Match(preset, players=2, first_lead="highest_double")
    with pytest.raises(ValueError):
        m.new_hand(deal=[s0, s1], boneyard=rest(s0, s1), leader=0)
    h = m.new_hand(deal=[s0, s1], boneyard=rest(s0, s1))
    # doubles held: 5:5, 4:4, 0:0 (seat 0) and 6:6 (seat 1): 6:6 is highest
    assert h.seat == 1 and str(h.must_play) == "6:6"
    assert legal(h) == ["6:6 left"]


@pytest.mark.parametrize("preset", ["draw", "block"])
def test_two_player_no_double_heaviest_tile_leads(preset):
    """docs/rules.md, "The same source's Draw and Block": the holder of the highest
    double leads it, "or else the heaviest tile" (6:3 before 5:4)."""
    s0 = ["5:4", "5:3", "4:3", "5:2", "4:2", "6:2", "6:1"]  # heaviest 5:4 (9)
    s1 = ["6:3", "2:1", "3:0", "1:0", "4:0", "3:1", "2:0"]  # heaviest 6:3 (9)
    # no doubles dealt; 6:5 (11) and 6:4 (10) are in the boneyard.
    # 6:3 and 5:4 both have 9 pips; 6:3 has the higher half -> seat 1 leads it
    h = Match(preset, players=2, first_lead="highest_double").new_hand(
        deal=[s0, s1], boneyard=rest(s0, s1))
    assert h.seat == 1 and str(h.must_play) == "6:3"
    assert legal(h) == ["6:3 left"]


def test_two_player_block_score_is_the_difference():
    """docs/rules.md, "The same source's Draw and Block": the scores equal those
    of "How to play Dominoes" (Bulgarian), because with two players "the
    others' pips minus one's own" is the difference of the two hands."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]]
    h = Match("block", first_lead="highest_double").new_hand(deal=deal)
    assert h.seat == 0  # 6:6 is the highest double
    h.play("6:6")
    # 55 - 12 = 43
    assert (h.result.winner, h.result.points) == (0, (43, 0))


def test_two_player_draw_score_is_the_difference():
    """docs/rules.md, "The same source's Draw and Block": Draw with
    `first_lead="highest_double"` scores the difference."""
    m = Match("draw", first_lead="highest_double")
    h = a11_hand(m)  # seat 0 holds 6:6 (seat 1: 5:5, 4:4) and leads it
    # 86 - 2 = 84
    assert (h.result.winner, h.result.points) == (0, (84, 0))


def test_two_player_next_hand_winner_leads_any_tile():
    """docs/rules.md, "The same source's Draw and Block": next hands as in
    `draw`: the previous winner leads any tile."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]]
    m = Match("block", first_lead="highest_double")
    m.new_hand(deal=deal).play("6:6")  # seat 0 wins
    # hand 2: seat 1 holds 6:6, but the winner (seat 0) leads, any tile
    h = m.new_hand(deal=[deal[1], deal[0]])
    assert h.seat == 0 and h.must_play is None
    assert len(h.legal_moves()) == 7
