"""Hand-made tests of docs/rules.md, "What every preset shares", and of rules
validation.

Every deal is written out by hand and every expected value is worked out by
hand from docs/rules.md and docs/conventions.md (the arithmetic is
in the comments); nothing expected is computed with the engine.
"""

import pytest

from dominoai import IllegalMoveError, Match, Tile, TileSet, get_rules
from dominoai.tiles import HEAVY_ORDER, N_TILES

from handmade import SET, legal, rest


def kinds(h):
    return [e.kind for e in h.events]


# ---------------------------------------------------------------- the set


def test_set_has_28_distinct_tiles_seven_doubles():
    """Set: "Double-six: 28 tiles, every unordered pair of pips 0..6 once,
    seven doubles 0:0 ... 6:6"."""
    tiles = [Tile(i) for i in range(N_TILES)]
    pairs = {(t.high, t.low) for t in tiles}
    # 7 doubles + C(7,2) = 21 others = 28 unordered pairs with pips 0..6
    assert N_TILES == 28
    assert pairs == {(a, b) for a in range(7) for b in range(a + 1)}
    assert sum(t.is_double for t in tiles) == 7
    with pytest.raises(ValueError):
        Tile.parse("7:1")


def test_tile_ids_follow_documented_triangular_order():
    """Set: "Index tiles 0..27 in a fixed documented order so a hand is a
    28-bit mask" (conventions: id of a:b, a >= b, is a*(a+1)//2 + b)."""
    # 0:0 -> 0; 1:0 -> 1; 1:1 -> 2; 2:0 -> 3; 6:4 -> 21 + 4 = 25; 6:5 -> 26; 6:6 -> 27
    expected = {"0:0": 0, "1:0": 1, "1:1": 2, "2:0": 3, "6:4": 25, "6:5": 26, "6:6": 27}
    for text, tid in expected.items():
        assert Tile.parse(text).id == tid
    assert Tile.parse("4:6").id == 25  # either order parses
    # hand {6:6, 0:0} as a mask: bit 27 and bit 0
    assert TileSet.from_tiles(["6:6", "0:0"]).mask == (1 << 27) | 1
    assert TileSet.from_tiles(SET).mask == (1 << 28) - 1


def test_pip_count_is_sum_of_halves():
    """Set: "A tile's pip count (value) is the sum of its two halves (6:6 = 12)"."""
    assert Tile.parse("6:6").pips == 12
    assert Tile.parse("6:4").pips == 10  # 6 + 4
    assert Tile.parse("0:0").pips == 0
    assert TileSet.from_tiles(["6:5", "2:1"]).pips == 14  # 11 + 3


def test_heaviest_order_most_pips_then_higher_half():
    """Set: "The heaviest tile ... has the most pips; between equal pip counts,
    the one with the higher half (6:3 before 5:4)"."""
    order = [str(Tile(t)) for t in HEAVY_ORDER]
    # 12: 6:6; 11: 6:5; 10: 6:4 then 5:5; 9: 6:3 then 5:4
    assert order[:6] == ["6:6", "6:5", "6:4", "5:5", "6:3", "5:4"]
    assert order[-1] == "0:0"
    assert str(TileSet.from_tiles(["5:4", "6:3", "0:0"])) == "{6:3 5:4 0:0}"


# ------------------------------------------------------- seats and deal


def test_turn_passes_from_seat_i_to_i_plus_1_mod_n():
    """Seats and turn order: "play passes from seat i to seat (i+1) mod n"."""
    # block, 3 players, 5 each; seat 1 leads by lot. Every seat holds a 6.
    deal = [["6:0", "0:0", "1:0", "1:1", "2:0"],
            ["6:6", "5:5", "4:4", "3:3", "2:2"],
            ["6:5", "6:4", "5:4", "4:3", "3:2"]]
    h = Match("block", players=3).new_hand(deal=deal, leader=1)
    assert h.seat == 1
    h.play("6:6")
    assert h.seat == 2  # 1 -> 2
    h.play("6:5 left")
    assert h.seat == 0  # 2 -> (2+1) mod 3 = 0
    h.play("6:0 right")
    assert h.seat == 1  # 0 -> 1


def test_partners_sit_opposite():
    """Seats: "In partnership games partners sit opposite (seats 0+2 vs 1+3)"."""
    for preset in ("kozel", "openspiel_team"):
        r = get_rules(preset)
        assert r.partnerships and r.players == 4
        assert [r.side_of(s) for s in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize("preset,players,size", [
    ("draw", 2, 7), ("draw", 3, 7), ("draw", 4, 6),
    ("block", 2, 7), ("block", 3, 5), ("block", 4, 5),
    ("all_fives", 2, 7), ("all_fives", 3, 5), ("all_fives", 4, 5),
    ("fives", 2, 7), ("kozel", 4, 7),
    ("express", 2, 7), ("express", 3, 7), ("express", 4, 7),
    ("dominoball", 2, 7), ("openspiel_block", 2, 7), ("openspiel_team", 4, 7),
])
def test_random_deal_gives_hand_size_each_rest_is_boneyard(preset, players, size):
    """Deal: "Shuffle the 28 tiles, deal hand_size to each seat; the rest is the
    boneyard" (sizes from each preset's bullets)."""
    m = Match(preset, seed=11, players=players)
    assert m.rules.hand_size == size
    first_lead = m.rules.first_lead
    h = m.new_hand(leader=0) if first_lead == "lot" else m.new_hand()
    assert h.hand_sizes == (size,) * players
    # boneyard = 28 - players * size
    assert h.boneyard_size == 28 - players * size
    tiles = [t for s in range(players) for t in h.dealt(s)] + list(h.boneyard)
    assert sorted(t.id for t in tiles) == list(range(28))


def test_deal_must_be_the_whole_set_each_tile_once():
    """Deal: the deal is the 28 tiles of the set, hand_size to each seat."""
    m = Match("block")
    good0 = ["6:6", "6:5", "6:4", "6:3", "6:2", "6:1", "6:0"]
    with pytest.raises(ValueError):  # 6:6 twice
        m.new_hand(deal=[good0, ["6:6", "5:4", "5:3", "5:2", "5:1", "5:0", "4:4"]], leader=0)
    with pytest.raises(ValueError):  # 7:1 is not a double-six tile
        m.new_hand(deal=[good0, ["7:1", "5:4", "5:3", "5:2", "5:1", "5:0", "4:4"]], leader=0)
    with pytest.raises(ValueError):  # 6 tiles where the rules deal 7
        m.new_hand(deal=[good0, ["5:5", "5:4", "5:3", "5:2", "5:1", "5:0"]], leader=0)


# ------------------------------------------------------------- playing


def test_later_tile_must_match_an_open_end():
    """Playing: "every later tile joins an open end with the matching pip
    touching it"."""
    # block: seat 0 leads 6:6 (ends 6|6); seat 1 holds 5:5 and 6:5.
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["6:5", "5:5", "5:4", "5:3", "4:4", "4:3", "3:3"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    h.play("6:6")
    with pytest.raises(IllegalMoveError):
        h.play("5:5 left")  # 5 does not match 6
    assert len(h.events) == 1 and h.seat == 1  # nothing changed
    h.play("6:5 right")
    assert sorted((p, k) for _, p, k in h.ends) == [(5, 0), (6, 1)]


def test_a_lead_names_the_first_thing_wrong_with_it():
    """The lead takes no up or down end; a tile its seat does not hold is
    refused as not held first, whatever end is named."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["6:5", "5:5", "5:4", "5:3", "4:4", "4:3", "3:3"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    assert h.explain("6:6 up") == "the lead takes no end (up given)"
    assert h.explain("5:5 up") == h.explain("5:5") == "seat 0 does not hold 5:5"
    with pytest.raises(IllegalMoveError, match="^5:5 up: seat 0 does not hold 5:5$"):
        h.play("5:5 up")
    with pytest.raises(IllegalMoveError, match=r"^6:6 down: the lead takes no end \(down given\)$"):
        h.play("6:6 down")
    assert h.events == [] and h.seat == 0


def test_must_play_no_voluntary_pass():
    """Playing: "A player who can play must play (no voluntary pass ...)"."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["6:5", "5:5", "5:4", "5:3", "4:4", "4:3", "3:3"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    h.play("6:6")
    # seat 1 holds one 6 (6:5): its only move; there is no pass move.
    assert legal(h) == ["6:5 left"]
    with pytest.raises(IllegalMoveError):
        h.play("pass")
    assert kinds(h) == ["play"] and h.seat == 1


def test_tile_fitting_two_different_ends_is_two_moves():
    """Playing: "A tile that fits both ends is played at the end its player
    chooses; a move is therefore (tile, end)"."""
    # block: s0 leads 4:0 (left 4, right 0); s1 plays 2:0 right (right shows 2).
    # s0's 4:2 fits left (4) and right (2): playing it left leaves 2|2,
    # right leaves 4|4 -> different positions -> two moves.
    deal = [["4:0", "4:2", "6:6", "5:5", "3:3", "6:5", "5:3"],
            ["2:0", "1:1", "1:0", "6:1", "5:1", "3:1", "0:0"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    h.play("4:0")
    h.play("2:0 right")
    assert legal(h) == ["4:2 left", "4:2 right"]
    with pytest.raises(IllegalMoveError):
        h.play("4:2")  # ambiguous: the end must be named
    h.play("4:2 right")
    assert sorted(p for _, p, _ in h.ends) == [4, 4]


def test_block_equivalent_ends_3_3_and_5_3_are_one_move():
    """Playing: "Two ends are one move ... So in Block, a 3 shown by 3:3 and a 3
    shown by 5:3 are one move"."""
    # s0 leads 3:3; s1 6:3 right (3|6); s0 6:5 right (3|5); s1 5:3 right (3|3):
    # left 3 is shown by the double 3:3, right 3 by 5:3.
    deal = [["3:3", "6:5", "3:1", "2:0", "1:0", "2:1", "0:0"],
            ["6:3", "5:3", "4:0", "4:1", "4:2", "5:0", "5:1"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    for mv in ("3:3", "6:3 right", "6:5 right", "5:3 right"):
        h.play(mv)
    assert sorted((p, k) for _, p, k in h.ends) == [(3, 0), (3, 1)]
    # s0's only tile with a 3 is 3:1: one move (named at the lowest end, left)
    assert legal(h) == ["3:1 left"]
    h.play("3:1 right")  # naming the other, equivalent end is accepted


def test_lone_lead_both_sides_are_one_move():
    """Playing: equivalent ends include "both sides of a lone lead"."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["6:5", "6:4", "5:4", "5:3", "4:4", "4:3", "3:3"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    h.play("6:6")
    assert legal(h) == ["6:4 left", "6:5 left"]


def test_lead_is_one_move_per_tile_any_tile():
    """Playing: the lead starts the line (a lead by lot may be any tile: one move
    per tile)."""
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["6:5", "6:4", "5:4", "5:3", "4:4", "4:3", "3:3"]]
    h = Match("block").new_hand(deal=deal, leader=1)
    assert h.seat == 1
    assert legal(h) == sorted(f"{t} left" for t in deal[1])


# --------------------------------------------------------- cannot play


def test_cannot_play_without_drawing_passes():
    """Cannot play: "Without drawing: pass"."""
    # block: s0 leads 6:6, s1 holds no 6 -> s1 passes, s0 plays on.
    deal = [["6:6", "6:5", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["5:5", "5:4", "5:3", "4:4", "4:3", "3:3", "0:0"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    h.play("6:6")
    assert [(e.kind, e.seat) for e in h.events] == [("play", 0), ("pass", 1)]
    assert h.seat == 0 and h.hand_sizes == (6, 7)


def test_cannot_play_with_drawing_draws_until_fit_and_must_play_it():
    """Cannot play: "With drawing: draw one tile at a time until one fits, then
    play (it must be the tile just drawn)"."""
    s0 = ["6:6", "5:5", "4:4", "3:3", "2:2", "5:4", "3:2"]
    s1 = ["1:0", "2:0", "2:1", "3:0", "3:1", "4:0", "4:1"]  # no 6
    bone = ["0:0", "1:1", "6:0"] + rest(s0, s1, ["0:0", "1:1", "6:0"])
    h = Match("draw").new_hand(deal=[s0, s1], boneyard=bone, leader=0)
    h.play("6:6")
    # s1 draws 0:0 (no), 1:1 (no), 6:0 (fits): one draw event of 3 tiles
    e = h.events[-1]
    assert (e.kind, e.seat, e.count, e.tile) == ("draw", 1, 3, None)
    assert h.seat == 1 and str(h.must_play) == "6:0"
    assert legal(h) == ["6:0 left"]
    assert h.hand_sizes == (6, 10)  # 7 + 3
    assert h.boneyard_size == 11  # 14 - 3


def test_pass_only_when_boneyard_down_to_reserve_zero():
    """Cannot play: "pass only when the boneyard is down to boneyard_reserve
    tiles (0 unless stated)"."""
    s0 = ["6:6", "6:5", "6:4", "6:3", "6:2", "6:1", "6:0"]  # every 6
    s1 = ["5:5", "5:4", "5:3", "5:2", "5:1", "5:0", "4:4"]
    h = Match("draw").new_hand(deal=[s0, s1], boneyard=rest(s0, s1), leader=0)
    h.play("6:6")
    # s1 has no 6 and no 6 is left in the boneyard: draws all 14, then passes
    assert [(e.kind, e.seat, e.count) for e in h.events] == [
        ("play", 0, 1), ("draw", 1, 14), ("pass", 1, 0)]
    assert h.boneyard_size == 0 and h.hand_sizes == (6, 21) and h.seat == 0


# ------------------------------------------------------------ hand end


def test_blocked_ends_at_once_no_pass_follows():
    """Hand end: "Blocked: nobody can play and nobody can draw. The hand ends at
    that moment: no pass or other event follows it"."""
    # block: s0 leads 6:6 and holds no other 6, s1 holds no 6 -> blocked at once.
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["5:5", "5:4", "5:3", "4:4", "5:2", "4:3", "5:1"]]
    h = Match("block").new_hand(deal=deal, leader=0)
    h.play("6:6")
    assert kinds(h) == ["play"]
    assert h.over and h.seat is None and h.result.end == "blocked"
    assert h.legal_moves() == []
    with pytest.raises(IllegalMoveError):
        h.play("0:0")


def test_domino_ends_at_last_tile_no_pass_follows():
    """Hand end: "Domino: a player plays their last tile ... no pass or other
    event follows it"."""
    # block: s0 chains 6:6 6:5 6:4 5:5 4:4 5:4 4:0; s1 holds no 6, 5 or 4 and
    # passes every turn.
    s0 = ["6:6", "6:5", "6:4", "5:5", "4:4", "5:4", "4:0"]
    s1 = ["0:0", "1:0", "1:1", "2:0", "2:1", "2:2", "3:0"]
    h = Match("block").new_hand(deal=[s0, s1], leader=0)
    for mv in ("6:6", "6:5 right", "6:4 left", "5:5 right", "4:4 left", "5:4 right", "4:0 left"):
        h.play(mv)
    # 7 plays by s0, 6 passes by s1 in between, nothing after the last play
    assert kinds(h) == ["play", "pass"] * 6 + ["play"]
    assert h.result.end == "domino" and h.result.winner == 0
    # s1 pips: 0+1+2+2+3+4+3 = 15; block: 15 - 0 = 15
    assert h.result.pips == (0, 15) and h.result.points == (15, 0)


def test_unfinished_hand_result_is_none():
    """Asking a hand that has not ended for its result gives None (no made-up
    score); the match has no winner yet."""
    m = Match("draw", seed=3)
    h = m.new_hand(leader=0)
    assert h.result is None
    assert m.winner is None and not m.finished


# ------------------------------------------------------ public record


def test_events_record_who_tile_end_and_draw_counts_only():
    """Public information: "Every play (who, tile, end), every draw (who, how
    many tiles, not which), every pass ... are public"."""
    s0 = ["6:6", "5:5", "4:4", "3:3", "2:2", "5:4", "3:2"]
    s1 = ["1:0", "2:0", "2:1", "3:0", "3:1", "4:0", "4:1"]
    bone = ["0:0", "6:0"] + rest(s0, s1, ["0:0", "6:0"])
    h = Match("draw").new_hand(deal=[s0, s1], boneyard=bone, leader=0)
    h.play("6:6")
    h.play("6:0 right")
    e0, e1, e2 = h.events[:3]  # (s0 then has no 6 or 0 and draws in turn)
    assert (e0.kind, e0.seat, str(e0.tile), e0.end) == ("play", 0, "6:6", 0)
    assert (e1.kind, e1.seat, e1.tile, e1.count) == ("draw", 1, None, 2)
    assert (e2.kind, e2.seat, str(e2.tile), e2.end) == ("play", 1, "6:0", 1)


# ------------------------------------------------------ rules validation


def test_get_rules_unknown_preset():
    """get_rules: an unknown preset is refused, naming it."""
    with pytest.raises(ValueError, match="chess"):
        get_rules("chess")


@pytest.mark.parametrize("preset,players", [
    ("draw", 1), ("draw", 5), ("block", 5), ("all_fives", 1), ("fives", 3),
    ("kozel", 2), ("express", 5), ("dominoball", 4), ("openspiel_block", 4),
    ("openspiel_team", 2),
])
def test_get_rules_players_out_of_range(preset, players):
    """Presets: draw/block/all_fives 2-4, fives 2, kozel 4, express 2-4,
    dominoball 2; other counts are refused, naming the field."""
    with pytest.raises(ValueError, match="players"):
        get_rules(preset, players=players)


@pytest.mark.parametrize("preset,overrides", [
    ("draw", {"players": 4, "hand_size": 8}),    # 4 x 8 = 32 > 28
    ("express", {"players": 4, "hand_size": 8}),  # 32 > 28
    ("dominoball", {"hand_size": 14}),            # 2 x 14 + reserve 1 = 29 > 28
])
def test_get_rules_too_many_tiles_dealt(preset, overrides):
    """Deal: hands (plus reserve) larger than the 28-tile set are refused,
    naming hand_size."""
    with pytest.raises(ValueError, match="hand_size"):
        get_rules(preset, **overrides)


@pytest.mark.parametrize("preset,overrides,field", [
    ("draw", {"players": 3, "partnerships": True}, "partnerships"),  # pairs need 4
    ("block", {"boneyard_reserve": 1}, "boneyard_reserve"),         # no drawing
    ("block", {"max_replacements": 2}, "max_replacements"),         # no drawing
    ("dominoball", {"free_replacements": 5}, "free_replacements"),  # > 4
    ("draw", {"hand_size": "7"}, "hand_size"),                      # wrong type
    ("draw", {"colour": "red"}, "colour"),                          # unknown field
    ("draw", {"target": 10 ** 20}, "target must be at most 1,000,000,000"),  # beyond int64
    ("draw", {"target": 2 ** 63}, "target must be at most"),          # int64's max + 1
    ("dominoball", {"round_to": -(10 ** 10)}, "round_to must be at most"),
    ("kozel", {"alone_00": 10 ** 5000}, "alone_00 .* of 16610 bits"),  # no digits shown
])
def test_get_rules_contradictions_name_the_field(preset, overrides, field):
    """get_rules: wrong or contradictory fields are refused; the message names
    the field."""
    with pytest.raises(ValueError, match=field):
        get_rules(preset, **overrides)


def test_lead_event_reads_as_a_lead_in_its_orientation():
    # conventions.md: the lead's `end` is its orientation, not an end
    deal = [["6:4", "5:5", "2:0", "3:1", "4:4", "6:6", "1:0"],
            ["4:2", "6:5", "5:0", "3:3", "2:2", "6:1", "4:0"]]
    h = Match("block", seed=0).new_hand(deal=deal, leader=0)
    h.play("6:4", orientation=1)
    h.play(h.legal_moves()[0])
    lead, reply = h.events
    assert (lead.lead, lead.end, str(lead)) == (True, 1, "seat 0 leads 4:6")
    assert not reply.lead and str(reply).startswith("seat 1 plays ")
    h2 = Match("block", seed=0).new_hand(deal=deal, leader=0)
    h2.play("6:4")
    assert str(h2.events[0]) == "seat 0 leads 6:4"


# ---------------------------------------------------------------- derived names
# docs/rules.md: Kozel records the losers' points and the first pair to the
# target loses; Dominoball counts strikes; every other preset
# scores points that a side wants to have more of.
UNITS = {"draw": "points", "block": "points", "all_fives": "points", "fives": "points",
         "kozel": "recorded points", "express": "points", "dominoball": "strikes",
         "openspiel_block": "points", "openspiel_team": "points"}


@pytest.mark.parametrize("preset", sorted(UNITS))
def test_points_unit_and_low_is_good_per_preset(preset):
    r = get_rules(preset)
    assert r.points_unit == UNITS[preset]
    assert r.points_unit_one == {"points": "point", "recorded points": "recorded point",
                                 "strikes": "strike"}[UNITS[preset]]
    assert r.low_is_good is (preset == "kozel")


def test_low_is_good_follows_the_target_not_the_hand_scoring():
    # the match target decides who wins; the unit follows what a hand scores
    assert get_rules("kozel", target_mode="reach_wins").low_is_good is False
    assert get_rules("kozel", target_mode="reach_wins").points_unit == "recorded points"
    r = get_rules("kozel", hand_scoring="others")
    assert r.low_is_good is True and r.points_unit == "points"
    r = get_rules("dominoball", end_scoring="none")
    assert r.points_unit == "strikes" and r.low_is_good is False


@pytest.mark.parametrize("preset, overrides", [("kozel", {"target": 12}), ("draw", {"target": 12})])
def test_low_is_good_agrees_with_who_wins_the_match(preset, overrides):
    """Played to the end (first legal move each turn): where low is good the
    winner is the side below the target, else the side at or above it."""
    m = Match(preset, seed=3, **overrides)
    while not m.finished:
        h = m.new_hand()
        while not h.over:
            h.play(h.legal_moves()[0])
    w = m.winner
    assert w is not None
    s, target = m.scores, m.rules.target
    if m.rules.low_is_good:
        assert s[w] < target <= s[1 - w]
    else:
        assert s[1 - w] < target <= s[w]


# ---------------------------------------------------------------- the record form
def _player_counts():
    from dominoai.rules import PRESETS
    return [(name, n) for name, (_, _, (lo, hi), _) in PRESETS.items() for n in range(lo, hi + 1)]


@pytest.mark.parametrize("preset,players", _player_counts())
def test_from_record_reads_back_every_preset(preset, players):
    """Rules.from_record is the inverse of Rules.to_record, through JSON too."""
    import json

    from dominoai import Rules
    r = get_rules(preset, players=players)
    assert Rules.from_record(r.to_record()) == r
    assert Rules.from_record(json.loads(json.dumps(r.to_record()))) == r


@pytest.mark.parametrize("preset,overrides", [
    ("draw", {"players": 4, "partnerships": True}),               # pairs where the preset has none
    ("draw", {"target": 150, "hand_size": 5, "next_lead": "after_leader"}),
    ("block", {"players": 3, "target": 4}),
    ("all_fives", {"players": 4, "partnerships": True, "round_to": 1}),
    ("kozel", {"target_mode": "reach_wins", "hand_scoring": "others", "first_lead_tile": "6:6"}),
    ("express", {"players": 4, "score_own_pair": False, "blocked_tie": "nobody"}),
    ("dominoball", {"free_replacements": 0, "max_replacements": 2, "zero_lead_strikes": 0}),
    ("openspiel_team", {"partnerships": True, "match_hands": 0, "target": 100}),
])
def test_from_record_reads_back_overridden_rules(preset, overrides):
    from dominoai import Rules
    r = get_rules(preset, **overrides)
    rec = r.to_record()
    assert Rules.from_record(rec) == r
    assert set(rec) - {"preset", "players"} <= set(overrides)   # only what differs is written


def test_from_record_takes_a_preset_name_alone():
    from dominoai import Rules
    assert Rules.from_record("kozel") == get_rules("kozel")


@pytest.mark.parametrize("record,message", [
    (3, r"^rules must be a preset name or an object, not 3$"),
    (["block"], r'^rules must be a preset name or an object, not \["block"\]$'),
    ({"players": 2}, r'^rules: an object needs "preset": a preset name$'),
    ({"preset": 7}, r'^rules: an object needs "preset": a preset name \(got 7\)$'),
    ({"preset": "chess"}, r"^rules: unknown preset 'chess'; presets are: draw, "),
    ({"preset": "block", "colour": "red"}, r"^rules: block: unknown rules field 'colour'"),
    ({"preset": "block", 5: 1}, r"^rules: a field name must be a string \(got 5\)$"),
    ({"preset": "block", "hand_size": "7"}, r"^rules: block: hand_size must be an integer \(got '7'\)$"),
    ({"preset": "block", "players": 9}, r"^rules: block: players must be 2\.\.4 \(got 9\)$"),
    ({"preset": "block", "spinner": "four\nways"}, r"^rules: block: spinner must be one of "),
    ({"preset": "draw", "players": 3, "partnerships": True}, r"^rules: draw: partnerships needs 4 players"),
])
def test_from_record_refuses_a_malformed_record_in_one_line(record, message):
    from dominoai import Rules
    with pytest.raises(ValueError, match=message) as e:
        Rules.from_record(record)
    assert "\n" not in str(e.value)
