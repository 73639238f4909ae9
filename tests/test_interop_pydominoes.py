"""The ``pydominoes`` preset against the ``dominoes`` package (6.1) it
copies, and the package's players as dominoai bots.

Lock-step: one random deal is given to both; the package's game is started
as its ``Game.new(starting_domino=6:6)`` does (the holder of 6:6 plays it,
then the turn passes to the next seat that can play); at every step both must
agree on the seat to move and on the legal plays, written ``(tile, pip it
covers)`` since the package names an end by its side (``left``) and lists a
tile once when both ends show the same pip, as we do; a seeded random play
is applied to both; at the end both must be over together, with the same
hands left and the same team points (the package's ``Result.points``: >= 0
for the pair 0+2, < 0 for the pair 1+3, 0 on a blocked tie).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

dominoes = pytest.importorskip("dominoes")

from dominoai import Match, get_rules  # noqa: E402
from dominoai.tiles import N_TILES, TILE_HIGH, TILE_LOW  # noqa: E402

GAMES = 2_000


def _d(t):
    return dominoes.Domino(int(TILE_HIGH[t]), int(TILE_LOW[t]))


def _tid(d):
    hi, lo = max(d.first, d.second), min(d.first, d.second)
    return hi * (hi + 1) // 2 + lo


def _package_game(hands):
    """The package's game as ``Game.new(starting_domino=Domino(6, 6))`` builds
    it, with our deal instead of its shuffle."""
    hs = [dominoes.Hand([_d(t) for t in h]) for h in hands]
    d66 = dominoes.Domino(6, 6)
    sp = next(i for i, h in enumerate(hs) if d66 in h)
    g = dominoes.Game(dominoes.Board(), hs, [], sp, ((d66, True),), sp, None)
    return g, sp


def _theirs(g):
    left, right = g.board.left_end(), g.board.right_end()
    return {(_tid(d), left if is_left else right): (d, is_left) for d, is_left in g.valid_moves}


def _ours(hand):
    ends = {k: pip for k, pip, _ in hand.ends}
    out = {}
    for m in hand.legal_moves():
        key = (m.tile.id, ends[m.end])
        assert key not in out
        out[key] = m
    return out


def play_lockstep(n_games: int, seed: int) -> Counter:
    rng = random.Random(seed)
    tiles = list(range(N_TILES))
    seen: Counter = Counter()
    for gi in range(n_games):
        rng.shuffle(tiles)
        hands = [tiles[7 * s:7 * s + 7] for s in range(4)]
        where = f"game {gi} (seed {seed}), deal {hands}"
        hand = Match("pydominoes").new_hand(deal=hands)
        g, sp = _package_game(hands)
        # the lead: the holder of 6:6, which is its only move
        assert hand.seat == sp, where
        assert [str(m.tile) for m in hand.legal_moves()] == ["6:6"], where
        hand.play(hand.legal_moves()[0])
        g.make_move(*g.valid_moves[0])
        history = ["6:6"]
        while not hand.over:
            assert g.result is None, f"{where}: the package ended first after {history}"
            assert hand.seat == g.turn, f"{where}: seat {hand.seat} vs {g.turn} after {history}"
            ours, theirs = _ours(hand), _theirs(g)
            assert set(ours) == set(theirs), f"{where}: legal {sorted(ours)} vs {sorted(theirs)} after {history}"
            key = sorted(ours)[rng.randrange(len(ours))]
            history.append(key)
            hand.play(ours[key])
            g.make_move(*theirs[key])
        assert g.result is not None, f"{where}: ours ended, the package's did not, after {history}"
        left = [sorted(t.id for t in hand.tiles(s)) for s in range(4)]
        assert left == [sorted(_tid(d) for d in g.hands[s]) for s in range(4)], where
        p = g.result.points
        want = (p, 0) if p > 0 else (0, -p) if p < 0 else (0, 0)
        assert tuple(hand.result.points) == want, f"{where}: ours {hand.result} vs {g.result}"
        seen[hand.result.end] += 1
        seen["tie"] += p == 0
        seen["won by 1+3"] += p < 0
    return seen


def test_lockstep_against_the_package():
    seen = play_lockstep(GAMES, seed=612)
    assert seen["domino"] + seen["blocked"] == GAMES
    for what in ("domino", "blocked", "tie", "won by 1+3"):
        assert seen[what] > 0, f"{GAMES} games never covered {what!r}: {dict(seen)}"


def test_the_preset_is_the_packages_rules():
    """By hand from the package's docstring and game.py: 4 players in pairs,
    7 tiles each (all 28 dealt), the 6:6 leads, others' pips plus the
    winning pair's own, a blocked tie scores nothing."""
    r = get_rules("pydominoes")
    assert (r.players, r.hand_size, r.partnerships, r.boneyard_size) == (4, 7, True, 0)
    assert (r.first_lead, r.first_lead_tile, r.blocked_tie) == ("tile", "6:6", "nobody")
    assert (r.hand_scoring, r.score_own_pair, r.target) == ("others", True, 200)


def test_the_packages_players_play_a_hand_as_bots():
    """Every player (pab with a small sample) plays legal moves through the Bot
    protocol; the cheat only through act_with_state."""
    pytest.importorskip("pyspiel")
    import dominoai.interop  # noqa: F401  (registers the pydominoes-* bots)
    from dominoai.bots import make_bot
    specs = ["pydominoes-bota-gorda", "pydominoes-counter", "pydominoes-random:seed=2",
             "pydominoes-pab:sample_size=1,seed=1", "pydominoes-omniscient"]
    m = Match("pydominoes", seed=11)
    h = m.new_hand()
    bots = {s: make_bot(spec) for s, spec in zip(range(4), specs[1:])}
    bots[0] = make_bot(specs[0])
    while not h.over:
        obs = h.observe(h.seat)
        b = bots[h.seat]
        mv = b.act_with_state(obs, m.state_copy()) if getattr(b, "needs_state", False) else b.act(obs)
        assert mv in obs.legal_moves()
        h.play(mv)
    with pytest.raises(TypeError, match="cheats by design"):
        make_bot("pydominoes-omniscient").act(Match("pydominoes", seed=1).new_hand().observe(0))


def test_bota_gorda_plays_the_heaviest_tile():
    """The package's bota_gorda sorts by pips: after 6:6, the holder of 6:5
    (11 pips, the heaviest tile that fits a 6) plays it."""
    import dominoai.interop  # noqa: F401
    from dominoai.bots import make_bot
    deal = [["6:6", "0:0", "1:0", "1:1", "2:0", "2:1", "2:2"],
            ["6:5", "6:4", "6:0", "3:0", "3:1", "3:2", "3:3"],
            ["6:3", "6:2", "4:0", "4:1", "4:2", "4:3", "4:4"],
            ["6:1", "5:0", "5:1", "5:2", "5:3", "5:4", "5:5"]]
    h = Match("pydominoes").new_hand(deal=deal)
    h.play(h.legal_moves()[0])  # seat 0 leads 6:6
    assert h.seat == 1
    assert str(make_bot("pydominoes-bota-gorda").act(h.observe(1)).tile) == "6:5"


def test_a_peer_bot_refuses_another_preset_in_one_line():
    import dominoai.interop  # noqa: F401
    from dominoai.bots import make_bot
    obs = Match("kozel", seed=1).new_hand().observe(0)
    with pytest.raises(ValueError, match="plays only the preset 'pydominoes'") as e:
        make_bot("pydominoes-random").act(obs)
    assert "\n" not in str(e.value)


def test_game_from_observation_is_the_position_in_the_packages_terms():
    """At every decision after the lead of random hands, the package's game
    built from the observation and the true hands has the seat to move, the
    hands given, the line (the tiles played, laid end to end, showing the
    open ends' pips) and the legal plays, written ``(tile, pip covered)``."""
    from dominoai.engine import layout as L
    from dominoai.interop.pydominoes import game_from_observation
    rng = random.Random(4)
    checked = 0
    for k in range(30):
        m = Match("pydominoes", seed=k)
        h = m.new_hand()
        h.play(h.legal_moves()[0])                          # the lead, 6:6
        while not h.over:
            obs = h.observe(h.seat)
            st = m.state_copy()
            hands = [int(st[L.S_HAND + s]) for s in range(4)]
            g = game_from_observation(obs, hands)
            assert g.turn == obs.seat
            assert [sorted(_tid(d) for d in g.hands[s]) for s in range(4)] == \
                [[t for t in range(N_TILES) if hands[s] >> t & 1] for s in range(4)]
            line = list(g.board.board)
            played = {int(t) for kind, _s, t, _e in obs.event_array.tolist() if kind == L.EV_PLAY}
            assert {_tid(d) for d in line} == played and len(line) == len(played)
            assert all(a.second == b.first for a, b in zip(line, line[1:]))
            assert sorted((g.board.left_end(), g.board.right_end())) == sorted(p for _k, p, _ in obs.ends)
            assert _theirs(g).keys() == _ours(h).keys()
            checked += 1
            h.play(h.legal_moves()[rng.randrange(len(h.legal_moves()))])
    assert checked > 300
    h = Match("pydominoes", seed=1).new_hand()
    with pytest.raises(ValueError, match="only at their own turn"):
        game_from_observation(h.observe((h.seat + 1) % 4), [0, 0, 0, 0])


def _two_deals_seat_1_cannot_tell_apart(seed):
    """Seat 0 holds 6:6 and leads it; seat 1 holds the same seven tiles (three
    with a 6) in both deals; the other 20 tiles are split two ways."""
    six = [t for t in range(N_TILES) if 6 in (TILE_HIGH[t], TILE_LOW[t]) and TILE_HIGH[t] != TILE_LOW[t]]
    d66 = next(t for t in range(N_TILES) if TILE_HIGH[t] == TILE_LOW[t] == 6)
    r = random.Random(seed)
    mine = six[:3] + r.sample([t for t in range(N_TILES) if t not in six and t != d66], 4)
    rest = [t for t in range(N_TILES) if t not in mine and t != d66]
    r.shuffle(rest)
    out = []
    for order in (rest, rest[::-1]):
        h = Match("pydominoes").new_hand(deal=[[d66] + order[:6], mine, order[6:13], order[13:]])
        h.play(h.legal_moves()[0])
        out.append(h)
    return out


@pytest.mark.parametrize("spec", ["pydominoes-pab:sample_size=1", "pydominoes-bota-gorda",
                                  "pydominoes-counter", "pydominoes-random"])
def test_no_hidden_tile_reaches_a_fair_player(spec, monkeypatch):
    """For two deals that seat 1 cannot tell apart, a fair player with the
    same seed hands the package the same game (the other seats' hands drawn
    from the observation, so not both the true ones) and plays the same move;
    the hands it gives are consistent (the seat's own, the unseen tiles split
    by hand size)."""
    pytest.importorskip("pyspiel")
    import dominoai.interop  # noqa: F401  (registers the pydominoes-* bots)
    from dominoai.bots import make_bot
    from dominoai.engine.observe import O_HAND, O_UNSEEN
    from dominoai.interop import pydominoes as P
    given = []
    real = P.game_from_observation
    monkeypatch.setattr(P, "game_from_observation", lambda obs, hands: given.append(list(hands)) or real(obs, hands))
    for seed in range(1 if spec.startswith("pydominoes-pab") else 3):  # pab searches seconds here
        h1, h2 = _two_deals_seat_1_cannot_tell_apart(seed)
        o1, o2 = h1.observe(1), h2.observe(1)
        assert h1.seat == h2.seat == 1 and len(o1.legal_moves()) > 1
        assert (o1.array == o2.array).all() and (o1.event_array == o2.event_array).all()
        del given[:]
        moves = [make_bot(spec, seed=7).act(o) for o in (o1, o2)]
        assert moves[0] == moves[1]
        assert len(given) == 2 and given[0] == given[1]
        hands = given[0]
        truth = [[sorted(t.id for t in h.tiles(s)) for s in range(4)] for h in (h1, h2)]
        assert truth[0] != truth[1]
        assert hands[1] == int(o1.array[O_HAND])
        others = 0
        for s in (0, 2, 3):
            assert bin(hands[s]).count("1") == len(truth[0][s])
            assert others & hands[s] == 0
            others |= hands[s]
        assert others == int(o1.array[O_UNSEEN])
