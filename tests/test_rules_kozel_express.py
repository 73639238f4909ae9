"""Hand-made tests of the presets `kozel` (docs/rules.md, `kozel`, from "How to
play Domino" (Russian)) and `express` (docs/rules.md, `express`, from "Rules of
Domino-Express" (Russian)).

Deals are written by hand; every expected value is worked out by hand from
docs/rules.md, with the arithmetic in the comments.
"""

import pytest

from dominoai import Match, get_rules

from handmade import SET, norm, legal, play


def seat_deal(roles, r):
    """Deal with role k's tiles at seat (r + k) % 4."""
    deal = [None] * 4
    for k, tiles in enumerate(roles):
        deal[(r + k) % 4] = tiles
    return deal


def check_deal(deal):
    assert sorted(norm(t) for h in deal for t in h) == sorted(SET)


# ---------------------------------------------------------------------------
# FISH: a closed line on 1 in 10 tiles, four players in turn from role 0:
#   1:1 | L: 1:0 0:2 2:1 1:3 3:4 4:1 | R: 1:5 5:6 6:1
# role 1 lays the 10th tile (makes the fish); all seven 1s are then on the line.
FISH_LINE = [["1:1", "3:1", "6:5"], ["1:0", "4:3", "6:1"], ["2:0", "4:1"], ["2:1", "5:1"]]
FISH_MOVES = ["1:1", "1:0 left", "2:0 left", "2:1 left", "3:1 left", "4:3 left",
              "4:1 left", "5:1 right", "6:5 right", "6:1 right"]
# the 18 other tiles, split into fillers (4, 4, 5, 5 tiles for roles 0..3):
LIGHT0 = ["0:0", "3:0", "2:2", "4:0"]            # 0+3+4+4 = 11
LIGHT2 = ["3:2", "5:0", "3:3", "4:2", "6:0"]     # 5+5+6+6+6 = 28   (39 together)
HEAVY1 = ["5:2", "4:4", "5:3", "6:2"]            # 7+8+8+8 = 31
HEAVY3 = ["5:4", "6:3", "5:5", "6:4", "6:6"]     # 9+9+10+10+12 = 50 (81 together)
EQ0 = ["6:6", "6:4", "5:5", "6:3"]               # 12+10+10+9 = 41
EQ2 = ["0:0", "3:0", "2:2", "4:0", "4:4"]        # 0+3+4+4+8 = 19   (60)
EQ1 = ["3:2", "5:0", "3:3", "4:2"]               # 5+5+6+6 = 22
EQ3 = ["6:0", "5:2", "5:3", "6:2", "5:4"]        # 6+7+8+8+9 = 38   (60)


def fish_deal(r, f0, f1, f2, f3):
    roles = [FISH_LINE[0] + f0, FISH_LINE[1] + f1, FISH_LINE[2] + f2, FISH_LINE[3] + f3]
    deal = seat_deal(roles, r)
    check_deal(deal)
    return deal


# SNAKE: 25 tiles, all on the left of the lead 1:1, four players in turn; role 0
# lays tiles 1, 5, ..., 25 and goes out.
SNAKE = ["1:1", "1:0", "0:2", "2:2", "2:1", "1:3", "3:3", "3:0", "0:4", "4:4", "4:1",
         "1:5", "5:5", "5:0", "0:6", "6:6", "6:2", "2:3", "3:4", "4:2", "2:5", "5:3",
         "3:6", "6:4", "4:5"]
SNAKE_MOVES = [SNAKE[0]] + [f"{t} left" for t in SNAKE[1:]]
# unused: 0:0, 6:1, 6:5 (one left over for each of roles 1..3)


def snake_deal(r, lo1, lo2, lo3):
    roles = [SNAKE[k::4] for k in range(4)]
    roles[1] = roles[1] + [lo1]
    roles[2] = roles[2] + [lo2]
    roles[3] = roles[3] + [lo3]
    deal = seat_deal(roles, r)
    check_deal(deal)
    return deal


# ==================================================================== kozel


def test_kozel_four_players_in_pairs_whole_set_dealt():
    """kozel: "Seats 0 and 2 play against 1 and 3. All 28 tiles are dealt, 7
    each; no boneyard"."""
    r = get_rules("kozel")
    assert (r.players, r.hand_size, r.partnerships, r.drawing, r.sides) == (4, 7, True, False, 2)
    with pytest.raises(ValueError, match="players"):
        get_rules("kozel", players=2)
    h = Match("kozel", seed=6).new_hand()
    assert h.hand_sizes == (7, 7, 7, 7) and h.boneyard_size == 0


def test_kozel_first_hand_holder_of_1_1_leads_it():
    """kozel: "First hand: the holder of 1:1 leads it"."""
    deal = fish_deal(2, LIGHT0, HEAVY1, LIGHT2, HEAVY3)  # role 0 (1:1) at seat 2
    m = Match("kozel")
    with pytest.raises(ValueError):
        m.new_hand(deal=deal, leader=0)
    h = m.new_hand(deal=deal)
    assert h.seat == 2 and str(h.must_play) == "1:1" and legal(h) == ["1:1 left"]


def test_kozel_cannot_play_passes():
    """kozel: "a player who cannot play passes"."""
    deal = [["1:1", "0:0", "2:2", "3:3", "4:4", "5:5", "6:6"],
            ["2:0", "3:0", "3:2", "4:0", "4:2", "4:3", "5:0"],   # no 1
            ["1:0", "2:1", "3:1", "4:1", "5:1", "6:1", "5:2"],
            ["5:3", "5:4", "6:0", "6:2", "6:3", "6:4", "6:5"]]
    check_deal(deal)
    h = Match("kozel").new_hand(deal=deal)
    h.play("1:1")
    assert [(e.kind, e.seat) for e in h.events] == [("play", 0), ("pass", 1)]
    assert h.seat == 2


def test_kozel_domino_other_pair_records_both_hands():
    """kozel: "Domino: the partner pair of the player who went out wins; the
    other pair records the pips left in both its players' hands"."""
    deal = snake_deal(0, "6:5", "0:0", "6:1")
    h = Match("kozel").new_hand(deal=deal)
    play(h, SNAKE_MOVES)
    # pair 1: seat 1 6:5 = 11, seat 3 6:1 = 7 -> 18; seat 2 (partner) holds 0:0
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("domino", 0, (0, 11, 0, 7), (0, 18))


def test_kozel_domino_lone_0_0_counts_25_but_pips_report_0():
    """kozel: "A hand holding only the 0:0 counts 25 instead of 0 (in the
    record; the hand's reported pips stay the real pip count, 0)"."""
    deal = snake_deal(0, "0:0", "6:1", "6:5")
    h = Match("kozel").new_hand(deal=deal)
    play(h, SNAKE_MOVES)
    # pair 1: seat 1 holds only 0:0 -> 25, seat 3 6:5 = 11 -> 36
    r = h.result
    assert r.pips == (0, 0, 7, 11)
    assert (r.winner, r.points) == (0, (0, 36))


def test_kozel_fish_lighter_pair_wins_heavier_records_own_sum():
    """kozel: "Fish (blocked): each pair adds its pips; the lighter pair wins,
    the heavier records its own sum"; next lead: who "laid the tile that
    blocked the line"."""
    m = Match("kozel")
    h = m.new_hand(deal=fish_deal(0, LIGHT0, HEAVY1, LIGHT2, HEAVY3))
    play(h, FISH_MOVES)
    assert [e.kind for e in h.events] == ["play"] * 10  # blocked at once, no pass
    # pair 0: 11 + 28 = 39; pair 1: 31 + 50 = 81 -> pair 1 records 81
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", 0, (11, 31, 28, 50), (0, 81))
    assert m.scores == (0, 81) and not m.finished
    # seat 1 laid the 10th tile (made the fish): it leads next, any tile
    with pytest.raises(ValueError):
        m.new_hand(deal=fish_deal(1, LIGHT0, HEAVY1, LIGHT2, HEAVY3), leader=0)
    h2 = m.new_hand(deal=fish_deal(2, LIGHT0, HEAVY1, LIGHT2, HEAVY3))
    assert h2.seat == 1 and h2.must_play is None and len(h2.legal_moves()) == 7


def test_kozel_fish_lone_0_0_counts_25():
    """kozel: "a hand of only 0:0 still counts 25 (decision)" in a fish; next
    lead by the seat that made the fish."""
    # 24 tiles on the left of 1:1, ending on 1: both ends 1, all seven 1s played.
    line = SNAKE[:23] + ["6:1"]
    roles = [line[k::4] for k in range(4)]  # six tiles each
    roles[0] += ["6:5"]   # 11
    roles[1] += ["0:0"]   # alone at the end: counts 25
    roles[2] += ["6:4"]   # 10
    roles[3] += ["5:4"]   # 9
    check_deal(roles)
    m = Match("kozel")
    h = m.new_hand(deal=roles)
    play(h, [line[0]] + [f"{t} left" for t in line[1:]])
    # pair 0: 11 + 10 = 21; pair 1: 25 + 9 = 34 -> pair 0 lighter, pair 1 records 34
    # (with 0:0 counted as 0, pair 1 would be 9 and win instead)
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", 0, (11, 0, 10, 9), (0, 34))
    assert m.new_hand().seat == 3  # seat 3 laid the 24th tile


def test_kozel_eggs_accumulate_then_dry_goat():
    """kozel: "Equal sums ('eggs'): nobody records; that amount is added to what
    the losers record in the next hand, and accumulates over consecutive eggs
    (the amount carried is one pair's total)"; "The first pair whose record
    reaches 101 loses ... A loss while the winners still have 0 is a 'dry
    goat'"."""
    m = Match("kozel")
    h1 = m.new_hand(deal=fish_deal(0, EQ0, EQ1, EQ2, EQ3))
    play(h1, FISH_MOVES)
    # 41 + 19 = 60 against 22 + 38 = 60: eggs, carry 60
    assert (h1.result.end, h1.result.winner, h1.result.points) == ("blocked", None, (0, 0))
    h2 = m.new_hand(deal=fish_deal(1, EQ0, EQ1, EQ2, EQ3))  # seat 1 made the fish
    assert h2.seat == 1
    play(h2, FISH_MOVES)
    assert (h2.result.winner, h2.result.points) == (None, (0, 0))  # carry 60 + 60 = 120
    assert m.scores == (0, 0) and not m.finished
    h3 = m.new_hand(deal=snake_deal(2, "6:5", "6:1", "0:0"))  # seat 2 made the fish
    assert h3.seat == 2
    play(h3, SNAKE_MOVES)
    # seat 2 goes out: pair 1 = seat 3 (role 1: 6:5 = 11) + seat 1 (role 3: 0:0 -> 25)
    # records 36 + 120 = 156 >= 101: pair 1 are the goats, pair 0 still has 0
    assert h3.result.points == (0, 156)
    assert m.scores == (0, 156) and m.finished and m.winner == 0
    assert m.result.dry_goat is True


def test_kozel_eggs_added_once_next_lead_who_went_out():
    """kozel: the eggs are added to the next hand's losers, once; next lead: "the
    player who dominoed"; 101 loses (96 does not)."""
    m = Match("kozel")
    play(m.new_hand(deal=fish_deal(0, EQ0, EQ1, EQ2, EQ3)), FISH_MOVES)  # eggs: 60
    deal = snake_deal(1, "6:5", "0:0", "6:1")
    # seat 1 goes out; pair 0 = seat 2 (role 1: 6:5 = 11) + seat 0 (role 3: 6:1 = 7)
    h = m.new_hand(deal=deal)
    play(h, SNAKE_MOVES)
    assert h.result.points == (18 + 60, 0) and m.scores == (78, 0)
    h = m.new_hand(deal=deal)
    assert h.seat == 1  # seat 1 went out
    play(h, SNAKE_MOVES)
    assert h.result.points == (18, 0)  # the eggs are gone
    assert m.scores == (96, 0) and not m.finished  # 78 + 18 = 96 < 101
    play(m.new_hand(deal=deal), SNAKE_MOVES)
    assert m.scores == (114, 0) and m.finished and m.winner == 1  # 96 + 18 = 114
    assert m.result.dry_goat is True


def test_kozel_goat_not_dry_when_winners_have_points():
    """kozel: "The first pair whose record reaches 101 loses ... A loss while the
    winners still have 0 is a 'dry goat'; report it" (here: not dry)."""
    m = Match("kozel")
    play(m.new_hand(deal=fish_deal(0, LIGHT0, HEAVY1, LIGHT2, HEAVY3)), FISH_MOVES)
    assert m.scores == (0, 81)
    play(m.new_hand(deal=snake_deal(1, "6:5", "0:0", "6:1")), SNAKE_MOVES)
    assert m.scores == (18, 81) and not m.finished  # pair 0: 11 + 7
    # seat 1 leads a fish in which its own pair (seats 1, 3) is heavy: 31 + 50 = 81
    h = m.new_hand(deal=fish_deal(1, HEAVY1, LIGHT0, HEAVY3, LIGHT2))
    play(h, FISH_MOVES)
    assert h.result.points == (0, 81)
    assert m.scores == (18, 162) and m.finished and m.winner == 0  # 81 + 81 >= 101
    assert m.result.dry_goat is False


# ================================================================== express


@pytest.mark.parametrize("players,pairs", [(2, False), (3, False), (4, False), (4, True)])
def test_express_players_deal_7_block_play(players, pairs):
    """express: "Block play (no drawing). 2, 3 or 4 players, or 4 in two pairs.
    Deal 7 each (with 4 players the whole set is dealt)"; target default 100."""
    r = get_rules("express", players=players, partnerships=pairs)
    assert (r.hand_size, r.drawing, r.target) == (7, False, 100)
    h = Match("express", seed=3, players=players, partnerships=pairs).new_hand()
    assert h.hand_sizes == (7,) * players
    assert h.boneyard_size == 28 - 7 * players  # 14, 7, 0


def test_express_target_is_a_table_setting():
    """express: "Target: a table setting, default 100 (decision)"."""
    assert get_rules("express").target == 100
    m = Match("express", target=50)
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]]
    m.new_hand(deal=deal).play("6:6")  # blocked: seat 0 scores 55 >= 50
    assert m.scores == (55, 0) and m.finished and m.winner == 0


def test_express_first_hand_highest_double_leads_it():
    """express: "First hand: the player with the highest double leads it"."""
    s0 = ["4:4", "0:0", "1:0", "2:1", "3:0", "3:1", "4:0"]
    s1 = ["5:5", "5:4", "5:3", "4:3", "5:2", "4:2", "6:5"]
    m = Match("express")
    with pytest.raises(ValueError):
        m.new_hand(deal=[s0, s1], leader=0)
    h = m.new_hand(deal=[s0, s1])  # 6:6 sleeps; 5:5 > 4:4 > 0:0
    assert h.seat == 1 and str(h.must_play) == "5:5" and legal(h) == ["5:5 left"]


def test_express_four_players_6_6_leads():
    """express: "with four players that is always 6:6"."""
    deal = snake_deal(2, "6:5", "0:0", "6:1")  # 6:6 is role 3's: seat (2 + 3) % 4 = 1
    holder = next(s for s in range(4) if "6:6" in deal[s])
    assert holder == 1
    h = Match("express", players=4).new_hand(deal=deal)
    assert h.seat == 1 and str(h.must_play) == "6:6"


def test_express_no_double_heaviest_tile_leads_6_3_beats_5_4():
    """express: "if nobody has a double, the player with the heaviest tile leads
    it (equal pip counts: the tile with the higher half, so 6:3 beats 5:4)"."""
    s0 = ["5:4", "5:3", "4:3", "5:2", "4:2", "6:2", "6:1"]  # heaviest 5:4 (9)
    s1 = ["6:3", "2:1", "3:0", "1:0", "4:0", "3:1", "2:0"]  # heaviest 6:3 (9)
    h = Match("express").new_hand(deal=[s0, s1])  # 6:5, 6:4 and all doubles sleep
    assert h.seat == 1 and str(h.must_play) == "6:3"


def test_express_domino_two_players_scores_opponent():
    """express: "Domino: the winner scores the pips of all opponents"."""
    s0 = ["6:6", "5:5", "4:4", "3:3", "2:2", "1:1", "0:0"]
    s1 = ["6:5", "5:4", "4:3", "3:2", "2:1", "1:0", "6:4"]
    h = Match("express").new_hand(deal=[s0, s1])
    play(h, ["6:6", "6:5 left", "5:5 left", "5:4 left", "4:4 left", "4:3 left", "3:3 left",
             "3:2 left", "2:2 left", "2:1 left", "1:1 left", "1:0 left", "0:0 left"])
    # seat 1 keeps 6:4 = 10
    assert (h.result.end, h.result.winner, h.result.points) == ("domino", 0, (10, 0))


def test_express_domino_three_players_scores_all_opponents():
    """express: "Domino: the winner scores the pips of all opponents" (three
    players)."""
    deal = [["6:6", "5:4", "3:3", "2:1", "0:0", "4:2", "3:1"],
            ["6:5", "4:4", "3:2", "1:1", "6:0", "2:0", "5:3"],
            ["5:5", "4:3", "2:2", "1:0", "6:4", "3:0", "6:2"]]
    h = Match("express", players=3).new_hand(deal=deal)
    # 19 tiles on the left of 6:6, seats in turn; seat 0 lays its 7th and goes out
    line = ["6:5", "5:5", "5:4", "4:4", "4:3", "3:3", "3:2", "2:2", "2:1", "1:1", "1:0",
            "0:0", "6:0", "6:4", "4:2", "2:0", "3:0", "3:1"]
    play(h, ["6:6"] + [f"{t} left" for t in line])
    # seat 1 keeps 5:3 = 8, seat 2 keeps 6:2 = 8: seat 0 scores 8 + 8 = 16
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("domino", 0, (0, 8, 8), (16, 0, 0))


# the SNAKE with pips 1 and 6 swapped: a 25-tile line led by 6:6
SIGMA = str.maketrans("16", "61")
SNAKE6_MOVES = [m.translate(SIGMA) for m in SNAKE_MOVES]


def snake6_deal(lo1, lo2, lo3):
    deal = [[t.translate(SIGMA) for t in hand] for hand in snake_deal(0, "6:5", "0:0", "6:1")]
    # snake_deal's leftovers (6:5, 0:0, 6:1) become 1:5, 0:0, 1:6: replace them
    los = {"1:5", "0:0", "1:6"}
    out = [[t for t in hand if t not in los] for hand in deal]
    out[1].append(lo1)
    out[2].append(lo2)
    out[3].append(lo3)
    check_deal(out)
    return out


@pytest.mark.parametrize("pairs,points", [
    (False, (13, 0, 0, 0)),  # 6 + 7 + 0 = 13
    (True, (13, 0)),         # all three others, partner included: 6 + 7 + 0 = 13
])
def test_express_domino_four_players_and_pairs(pairs, points):
    """express: "Domino: the winner scores the pips of all opponents; in pairs,
    the pips of all three other players including the partner"."""
    deal = snake6_deal("5:1", "6:1", "0:0")  # seat 1: 6, seat 2: 7, seat 3: 0
    h = Match("express", players=4, partnerships=pairs).new_hand(deal=deal)
    assert h.seat == 0
    play(h, SNAKE6_MOVES)
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("domino", 0, (0, 6, 7, 0), points)


def test_express_blocked_lowest_scores_all_other_pips():
    """express: "Blocked: lowest pip total ... wins"; "A single winner scores the
    pips of all other players" (nothing subtracted)."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]]
    h = Match("express").new_hand(deal=deal)
    h.play("6:6")
    # seat 0: 12, seat 1: 55 -> seat 0 scores 55 (not 55 - 12)
    assert (h.result.end, h.result.winner, h.result.points) == ("blocked", 0, (55, 0))


def test_express_blocked_tie_won_by_leader():
    """express: "a tie is won by the leader of the hand"."""
    s0 = ["3:0", "3:1", "4:0", "3:2", "4:1", "5:0", "4:2"]  # 3+4+4+5+5+5+6 = 32
    s1 = ["6:6", "5:5", "5:4", "4:4", "0:0", "1:0", "2:2"]  # after 6:6: 10+9+8+0+1+4 = 32
    h = Match("express").new_hand(deal=[s0, s1])
    assert h.seat == 1
    h.play("6:6")
    # tie 32 / 32: the leader (seat 1) wins and scores seat 0's 32
    assert (h.result.winner, h.result.pips, h.result.points) == (1, (32, 32), (0, 32))


EXPRESS3_TIE = [["1:0", "1:1", "3:1", "2:1", "3:3", "4:2", "5:1"],   # 1+2+4+3+6+6+6 = 28
                ["6:6", "5:5", "5:4", "5:3", "4:4", "5:2", "4:3"],   # after 6:6: 49
                ["2:0", "2:2", "3:0", "3:2", "4:0", "4:1", "5:0"]]   # 2+4+3+5+4+5+5 = 28


def test_express_blocked_tie_without_leader_nearest_after_leader_wins():
    """express: "or, if the leader is not among the tied, by the tied player
    nearest after the leader in turn order"."""
    h = Match("express", players=3).new_hand(deal=EXPRESS3_TIE)
    assert h.seat == 1  # 6:6
    h.play("6:6")  # nobody else holds a 6: blocked
    # seats 0 and 2 tie on 28; after leader 1 comes seat 2 -> seat 2 wins
    # and scores 28 + 49 = 77
    r = h.result
    assert (r.winner, r.pips, r.points) == (2, (28, 49, 28), (0, 0, 77))


def test_express_next_hand_seat_after_previous_leader():
    """express: "Next hands: the seat after the previous leader leads, any
    tile"."""
    m = Match("express", players=3)
    m.new_hand(deal=EXPRESS3_TIE).play("6:6")  # seat 1 led, seat 2 won
    with pytest.raises(ValueError):
        m.new_hand(deal=EXPRESS3_TIE, leader=1)
    h = m.new_hand(deal=EXPRESS3_TIE)  # seat 1 holds 6:6, yet seat 2 leads
    assert h.seat == 2 and h.must_play is None and len(h.legal_moves()) == 7


# express pairs: FISH with 1 and 6 swapped: 6:6 | L 6:0 0:2 2:6 6:3 3:4 4:6 | R 6:5 5:1 1:6
FISH6_LINE = [[t.translate(SIGMA) for t in role] for role in FISH_LINE]
FISH6_MOVES = [m.translate(SIGMA) for m in FISH_MOVES]


def test_express_pairs_blocked_lighter_pair_scores_all_four_hands():
    """express: "lowest pip total (player or pair) wins"; "a winning pair scores
    the pips of all four hands, its own included (decision)"."""
    roles = [FISH6_LINE[0] + ["0:0", "1:0", "1:1", "2:1"],          # 0+1+2+3 = 6
             FISH6_LINE[1] + ["3:3", "4:1", "4:2", "4:4"],          # 6+5+6+8 = 25
             FISH6_LINE[2] + ["2:2", "3:0", "3:1", "4:0", "3:2"],   # 4+3+4+4+5 = 20
             FISH6_LINE[3] + ["5:0", "5:2", "5:3", "5:4", "5:5"]]   # 5+7+8+9+10 = 39
    check_deal(roles)
    h = Match("express", players=4, partnerships=True).new_hand(deal=roles)
    play(h, FISH6_MOVES)
    # pair 0: 6 + 20 = 26; pair 1: 25 + 39 = 64 -> pair 0 scores 26 + 64 = 90
    r = h.result
    assert (r.end, r.winner, r.pips, r.points) == ("blocked", 0, (6, 25, 20, 39), (90, 0))


def _express_pair_tie_deal():
    roles = [FISH6_LINE[0] + ["5:5", "5:4", "0:0", "1:0"],          # 10+9+0+1 = 20
             FISH6_LINE[1] + ["1:1", "3:1", "3:2", "3:3"],          # 2+4+5+6 = 17
             FISH6_LINE[2] + ["5:3", "5:2", "2:2", "3:0", "2:1"],   # 8+7+4+3+3 = 25
             FISH6_LINE[3] + ["4:0", "4:1", "4:2", "4:4", "5:0"]]   # 4+5+6+8+5 = 28
    deal = seat_deal(roles, 1)  # role 0 (6:6, the leader) at seat 1
    check_deal(deal)
    return deal


def test_express_pairs_blocked_tie_won_by_leaders_pair():
    """express: "a tie is won by the leader of the hand (or the leader's pair)";
    the winning pair scores all four hands."""
    h = Match("express", players=4, partnerships=True).new_hand(deal=_express_pair_tie_deal())
    assert h.seat == 1
    play(h, FISH6_MOVES)
    # seats: 0 = role 3 (28), 1 = role 0 (20), 2 = role 1 (17), 3 = role 2 (25)
    # pair 0: 28 + 17 = 45; pair 1: 20 + 25 = 45 -> tie, leader (seat 1) pair 1 wins 90
    r = h.result
    assert (r.winner, r.pips, r.points) == (1, (28, 20, 17, 25), (0, 90))


def test_express_four_singles_blocked_lowest_scores_others():
    """express: "lowest pip total (player ...) wins"; "A single winner scores the
    pips of all other players"."""
    h = Match("express", players=4).new_hand(deal=_express_pair_tie_deal())
    play(h, FISH6_MOVES)
    # seat 2 lowest (17): scores 28 + 20 + 25 = 73
    r = h.result
    assert (r.winner, r.points) == (2, (0, 0, 73, 0))


def test_express_match_to_100_lead_rotates():
    """express: the match ends after a hand reaching the target (default 100);
    the seat after the previous leader leads the next hand."""
    m = Match("express")
    m.new_hand(deal=[["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
                     ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]]).play("6:6")
    assert m.scores == (55, 0) and not m.finished  # 55 < 100
    h = m.new_hand(deal=[["0:0", "1:0", "1:1", "2:0", "2:1", "2:2", "3:0"],
                         ["6:6", "5:5", "5:4", "5:3", "4:4", "5:2", "4:3"]])
    assert h.seat == 1  # seat 0 led hand 1 (and won), seat 1 leads hand 2
    h.play("6:6")
    # seat 0: 0+1+2+2+3+4+3 = 15, seat 1: 10+9+8+8+7+7 = 49 -> seat 0 scores 49
    assert h.result.points == (49, 0)
    assert m.scores == (104, 0) and m.finished and m.winner == 0
