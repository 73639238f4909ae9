"""dominoai.render: the line layout, the SVG and the text pictures.

Expected placements and text are worked out by hand from the layout's
rules (docs/render.md): a tile is 2 units long and 1 wide, the root tile
sits at (0, 0), doubles lie crosswise, a row that would pass the table's
edge turns with one tile laid across."""

from __future__ import annotations

import random
import re

import pytest

from dominoai import Match
from dominoai.game import Event
from dominoai.render import line_layout, position_of, svg, text
from dominoai.render.layout import TABLE_HEIGHT, TABLE_WIDTH
from dominoai.render.textdraw import line_text
from dominoai.viewer import render_record
from dominoai.tiles import Tile
from handmade import BLOCK_REC



def play(seat, tile, end, lead=False):
    return Event("play", seat, Tile.parse(tile), end, 1, (), lead)


def tup(p):
    return (str(p.tile), p.a, p.b, p.x, p.y, p.dx, p.dy, p.arm, p.last)


def test_layout_by_hand_block_line():
    ev = [play(0, "6:6", 0, True), Event("pass", 1, None, None, 0, (6,)),
          play(0, "6:5", 1), play(1, "5:5", 1), play(0, "6:4", 0)]
    got = [tup(p) for p in line_layout(ev)]
    assert got == [
        ("6:6", 6, 6, 0.0, 0.0, 0, 1, "root", False),     # the lead, a double: crosswise
        ("6:5", 6, 5, 1.5, 0.0, 1, 0, "right", False),    # 6 touches the 6:6
        ("5:5", 5, 5, 3.0, 0.0, 0, 1, "right", False),    # crosswise, after the 6:5
        ("6:4", 6, 4, -1.5, 0.0, -1, 0, "left", True),    # leftwards, 6 towards the lead
    ]
    assert line_layout(ev[:0]) == []


def test_layout_turns_at_the_table_edge():
    # width 8: the right arm may reach x = 4; a tile must leave 1 unit for the turn
    ev = [play(0, "6:5", 0, True), play(1, "5:4", 1), play(0, "4:3", 1), play(1, "3:2", 1),
          play(0, "6:1", 0)]
    got = [tup(p) for p in line_layout(ev, None, width=8)]
    assert got == [
        ("6:5", 6, 5, 0.0, 0.0, 1, 0, "root", False),
        ("5:4", 5, 4, 2.0, 0.0, 1, 0, "right", False),
        ("4:3", 4, 3, 3.5, 0.5, 0, 1, "right", False),    # the turn: across, downwards
        ("3:2", 3, 2, 3.0, 2.0, -1, 0, "right", False),   # the row comes back leftwards
        ("6:1", 6, 1, -2.0, 0.0, -1, 0, "left", True),
    ]
    # the tile after the turn touches it: its 3 lies under the turn tile's 3
    turn, back = line_layout(ev, None, width=8)[2:4]
    assert (turn.x, turn.y + 0.5) == (back.x + 0.5, back.y - 1.0)


def test_layout_spinner_arms_pinwheel():
    # All Fives: 5:5 leads and is the spinner; both long sides, then up and down
    ev = [play(0, "5:5", 0, True), play(1, "5:3", 0), play(0, "5:2", 1), play(1, "5:1", 2),
          play(0, "5:0", 3)]
    got = {p.arm: (p.a, p.b, p.x, p.y, p.dx, p.dy) for p in line_layout(ev, Tile.parse("5:5"))}
    assert got == {
        "root": (5, 5, 0.0, 0.0, 0, 1),
        "left": (5, 3, -1.5, 0.0, -1, 0),
        "right": (5, 2, 1.5, 0.0, 1, 0),
        "up": (5, 1, 0.0, -2.0, 0, -1),
        "down": (5, 0, 0.0, 2.0, 0, 1),
    }


def test_layout_root_is_the_spinner_when_it_is_not_the_lead():
    # 6:4 leads, 4:4 is played on the right and becomes the spinner
    ev = [play(0, "6:4", 0, True), play(1, "4:4", 1), play(0, "4:2", 1), play(1, "4:1", 2)]
    got = {str(p.tile): (p.x, p.y, p.arm) for p in line_layout(ev, Tile.parse("4:4"))}
    assert got == {"4:4": (0.0, 0.0, "root"), "6:4": (-1.5, 0.0, "lead"),
                   "4:2": (1.5, 0.0, "right"), "4:1": (0.0, -2.0, "up")}


def _overlap(a, b):
    return a[0] < b[2] - 1e-9 and b[0] < a[2] - 1e-9 and a[1] < b[3] - 1e-9 and b[1] < a[3] - 1e-9


def _random_hand(preset, seed, players=None, stop=None):
    kw = {} if players is None else {"players": players}
    m = Match(preset, seed=seed, **kw)
    h = m.new_hand()
    rng = random.Random(seed)
    n = 0
    while not h.over and (stop is None or n < stop):
        h.play(rng.choice(h.legal_moves()))
        n += 1
    return h


@pytest.mark.parametrize("preset,players", [("block", 2), ("draw", 2), ("all_fives", 2),
                                            ("all_fives", 4), ("kozel", 4), ("dominoball", 2)])
def test_layout_tiles_never_overlap_and_count_the_plays(preset, players):
    for seed in range(40):
        h = _random_hand(preset, seed, players)
        places = line_layout(h.events, h.spinner)
        plays = [e for e in h.events if e.kind == "play"]
        assert len(places) == len(plays) == len(h.line)
        assert {p.tile for p in places} == set(h.line)
        assert sum(p.last for p in places) == 1 and places[-1].tile == plays[-1].tile
        for i, a in enumerate(places):
            for b in places[:i]:
                assert not _overlap(a.box, b.box), (seed, a, b)
        # horizontal arms stay on the table (one unit of slack for a turn)
        assert all(abs(p.x) <= TABLE_WIDTH / 2 + 1 for p in places if p.arm in ("left", "right"))


def _halves(p):
    return [((p.x - p.dx / 2, p.y - p.dy / 2), p.a), ((p.x + p.dx / 2, p.y + p.dy / 2), p.b)]


@pytest.mark.parametrize("preset", ["all_fives", "block", "dominoball"])
def test_layout_pips_touch_along_the_line(preset):
    # every tile but the root has its near half (a) beside a half of another
    # tile showing the same pip: 1 unit apart end to end, 1.12 beside a double
    for seed in range(30):
        h = _random_hand(preset, seed)
        places = line_layout(h.events, h.spinner)
        for p in places:
            if p.arm == "root":
                continue
            (ax, ay), pip = _halves(p)[0]
            near = [q for q in places if q is not p for (qx, qy), qp in _halves(q)
                    if qp == pip and ((qx - ax) ** 2 + (qy - ay) ** 2) ** 0.5 <= 1.12]
            assert near, (preset, seed, p)


def test_svg_counts_tiles_of_a_known_record():
    # after record move M, the line holds the tiles played so far (hand-counted)
    for move, on_line in [(0, 0), (1, 1), (2, 1), (3, 2), (4, 3), (5, 4), (6, 5)]:
        s = render_record(BLOCK_REC, 1, move)
        assert len(re.findall(r'class="tile line', s)) == on_line
        assert s.count('class="tile line last"') == (1 if on_line else 0)
    s = render_record(BLOCK_REC, 1, 6)
    assert re.findall(r'data-tile="([0-9:]+)" data-order', s) == ["6:6", "6:5", "5:5", "6:4", "4:4"]
    # face up: 7+7 dealt, 3 played by seat 0 and 2 by seat 1
    assert s.count('class="tile hand"') == 4 + 5
    assert s.count('class="tile back"') == 0
    assert "block, 2 players" in s and "target 100" in s


def test_svg_perspective_and_observation_hide_the_others():
    h = _random_hand("draw", 3, stop=4)
    sizes = h.hand_sizes
    s0 = svg(h, perspective=0)
    assert s0.count('class="tile hand"') == sizes[0]
    assert s0.count('class="tile back"') == sizes[1]
    obs = h.observe(1)
    s1 = obs._repr_svg_()
    assert s1.count('class="tile hand"') == sizes[1]
    assert s1.count('class="tile back"') == sizes[0]
    assert f"boneyard {h.boneyard_size}" in s1
    assert h._repr_svg_() == svg(h) and svg(h.match) == svg(h)
    with pytest.raises(ValueError, match="shows only seat 1"):
        svg(obs, perspective=0)
    with pytest.raises(ValueError, match="perspective must be a seat"):
        svg(h, perspective=5)
    with pytest.raises(TypeError):
        svg("6:4")
    with pytest.raises(ValueError, match="no hand dealt"):
        svg(Match("block"))


def test_a_position_is_plain_data_any_object_may_give():
    """render draws a Position, or asks an object for its own (duck typing):
    it never imports the game."""
    h = _random_hand("draw", 5, stop=6)
    pos = h.position(perspective=1)
    assert position_of(pos) is pos and position_of(pos, perspective=1) is pos
    assert svg(pos) == svg(h, perspective=1) and text(pos) == text(h, perspective=1)
    with pytest.raises(ValueError, match="drawn as it was made"):
        position_of(pos, perspective=0)

    class Drawn:
        def position(self, perspective=None):
            return pos
    assert svg(Drawn()) == svg(pos)
    with pytest.raises(TypeError, match="not a Position"):
        position_of(type("Odd", (), {"position": lambda self, perspective=None: 3})())
    assert h.match.position(0) == h.position(0)


@pytest.mark.parametrize("preset", ["block", "draw", "all_fives", "kozel", "dominoball"])
def test_a_hand_and_its_seats_views_show_one_public_position(preset):
    """What every seat sees (the line, sizes, voids, scores, the seat to play,
    how the hand ended) is the same in a hand's picture and in each seat's
    view; only the tiles face up differ."""
    ends = set()
    for seed in range(12):
        h = _random_hand(preset, seed, stop=None if seed % 2 else 5)
        whole = h.position()
        for seat in range(h.rules.players):
            view = h.observe(seat).position()
            assert view.perspective == seat and view.hands[seat] == whole.hands[seat]
            assert all(view.hands[i] is None for i in range(h.rules.players) if i != seat)
            assert (view.sizes, view.events, view.voids, view.scores, view.to_move, view.status,
                    view.hand_no, view.boneyard, view.count) == \
                   (whole.sizes, whole.events, whole.voids, whole.scores, whole.to_move, whole.status,
                    whole.hand_no, whole.boneyard, whole.count)
        ends.add(whole.status)
    assert "" in ends and ends - {""}


def test_a_hand_cut_short_says_so():
    """A fives hand that the target ends before anyone dominoes (its
    result's ``end`` is None) is drawn as cut short, in a hand's picture as
    in a seat's view."""
    for seed in range(200):
        h = Match("fives", seed=seed, target=10).new_hand()   # a low target: a count of 10 ends it
        rng = random.Random(seed)
        while not h.over:
            h.play(rng.choice(h.legal_moves()))
        if h.result.end is None:
            break
    assert h.result.end is None, "no hand of these seeds was cut short"
    assert h.position().status == h.observe(0).position().status == "cut short"


def test_svg_shows_voids_scores_and_the_seat_to_play():
    s = render_record(BLOCK_REC, 1, 2)  # 6:6 led, seat 1 passed: it lacks 6
    assert "seat 1 · 7 tiles · no 6" in s
    assert "▶ seat 0" in s
    pos = position_of(Match("all_fives", seed=1).new_hand())
    assert pos.scores == (0, 0) and pos.target == 150 and pos.hand_no == 1


def test_text_by_hand():
    ev = [play(0, "6:6", 0, True), play(0, "6:5", 1), play(1, "5:5", 1), play(0, "6:4", 0)]
    assert line_text(line_layout(ev)) == [
        "        [6]         [5]",
        "{ 4|6 } [6] [ 6|5 ] [5]",
    ]
    out = text(Match("block", seed=2).new_hand(), perspective=0)
    assert "seat 1 · 7 tiles: ## ## ## ## ## ## ##" in out
    assert "(no tile on the line yet)" in out


def test_text_and_svg_use_the_same_layout():
    h = _random_hand("all_fives", 11)
    places = line_layout(h.events, h.spinner, TABLE_WIDTH, TABLE_HEIGHT)
    s, t = svg(h), text(h)
    for p in places:
        assert f'data-tile="{p.tile}" data-order="{p.order}" data-arm="{p.arm}"' in s
    assert sum(row.count("[") + row.count("{") for row in line_text(places)) == \
        sum(1 if p.dy == 0 else 2 for p in places)
    assert "\n".join(line_text(places)) in "\n".join(r[4:] for r in t.splitlines())
