"""dominoai presets as OpenSpiel games, the resampler, and the ismcts/mcts
peer bots (dominoai/interop/openspiel.py).

The lock-step plays our game ``python_dominoai_openspiel_block`` /
``..._team`` against OpenSpiel's own ``python_block_dominoes`` /
``python_team_dominoes``: one random deal is given to both (ours through
its chance nodes, tile ids seat by seat; theirs as tests/test_openspiel.py
deals it), then at each step the same player to move, the same legal plays
written ``(tile, pip covered)`` (their action decodes to a pip, ours is
``tile*4+end`` and the pip shown at that end), a seeded random play applied
to both, and at the end the same returns.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import games  # noqa: E402,F401  (registers OpenSpiel's python games)
from open_spiel.python.games import block_dominoes as os_block  # noqa: E402
from open_spiel.python.games import team_dominoes as os_team  # noqa: E402

from dominoai import Match, get_rules, preset_names  # noqa: E402
from dominoai.bots import make_bot  # noqa: E402
from dominoai.interop import openspiel as DO  # noqa: E402
from dominoai.rules import PRESETS  # noqa: E402
from dominoai.engine import layout as L  # noqa: E402
from dominoai.engine.observe import O_UNSEEN  # noqa: E402
from dominoai.tiles import N_TILES, TILE_HIGH, TILE_LOW, Tile  # noqa: E402

DO.register()

_OS_TILE = [(float(TILE_LOW[t]), float(TILE_HIGH[t])) for t in range(N_TILES)]
_OS_ID = {tile: t for t, tile in enumerate(_OS_TILE)}
_CHANCE = [os_block._DECK.index(_OS_TILE[t]) for t in range(N_TILES)]


def _counts():
    for p, (_, _, (lo, hi), _) in PRESETS.items():
        for n in range(lo, hi + 1):
            yield p, n


@pytest.mark.parametrize("preset,players", list(_counts()))
def test_every_preset_passes_openspiels_random_sim_test(preset, players):
    game = pyspiel.load_game(f"python_dominoai_{preset}(players={players})")
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_load_game_string_with_players():
    g = pyspiel.load_game("python_dominoai_draw(players=3)")
    assert g.num_players() == 3 and g.get_type().short_name == "python_dominoai_draw"
    assert DO.register() == [DO.game_name(p) for p in preset_names()]


@pytest.mark.parametrize("spec,msg", [
    ("nosuch", "unknown dominoai preset 'nosuch'"),
    ("draw(speed=3)", "unknown parameter 'speed=3'"),
    ("fives(players=3)", "fives: players must be 2 (got 3)"),
    ("draw(players=x)", "players must be an integer"),
])
def test_bad_game_strings_get_one_line_errors(spec, msg):
    with pytest.raises(ValueError, match=re.escape(msg)) as e:
        DO.load_game(spec)
    assert "\n" not in str(e.value)


def test_illegal_action_is_a_one_line_error():
    s = DO.load_game("block").new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    legal = s.legal_actions()
    bad = next(a for a in range(DO.N_ACTIONS) if a not in legal)
    with pytest.raises(ValueError, match=f"illegal action {bad} for seat 0") as e:
        s.apply_action(bad)
    assert "\n" not in str(e.value)


def test_deal_chance_nodes_and_draw_chance_nodes():
    """draw, 2 players: 14 deal outcomes (28, then 27, ... tiles), a lot for
    the leader (2 outcomes), and a draw is a chance node over the 14 tiles
    of the boneyard when it comes."""
    s = DO.load_game("draw").new_initial_state()
    for k in range(14):
        outs = s.chance_outcomes()
        assert len(outs) == 28 - k and abs(sum(p for _, p in outs) - 1) < 1e-12
        s.apply_action(outs[-1][0])  # deal the heaviest tiles first: 6:6, 6:5, ...
    assert [a for a, _ in s.chance_outcomes()] == [0, 1]  # the lead by lot
    s.apply_action(0)
    # seat 0 holds the 14 heaviest tiles minus seat 1's: tiles 27..21, seat 1 20..14
    assert s.current_player() == 0
    drew = 0
    rng = random.Random(1)
    while not s.is_terminal():
        if s.is_chance_node():
            outs = s.chance_outcomes()
            assert len(outs) == 14 - drew  # the tiles 0..13 not yet drawn
            s.apply_action(rng.choice(outs)[0])
            drew += 1
        else:
            s.apply_action(rng.choice(s.legal_actions()))
    assert drew > 0


def test_returns_are_points_per_hand():
    """block, 2 players, a hand-made deal: seat 0 holds 0:0 .. 3:0 style light
    tiles; we check the returns equal the engine's points, side minus side."""
    game = DO.load_game("openspiel_block")
    rng = random.Random(5)
    for _ in range(50):
        s = game.new_initial_state()
        deal = list(range(N_TILES))
        rng.shuffle(deal)
        for t in deal[:14]:
            s.apply_action(t)
        m = Match("openspiel_block")
        h = m.new_hand(deal=[deal[:7], deal[7:14]])
        while not s.is_terminal():
            a = rng.choice(s.legal_actions())
            s.apply_action(a)
            from dominoai.moves import Move
            h.play(Move.from_code(a))
        p = h.result.points
        assert s.returns() == [p[0] - p[1], p[1] - p[0]]


class _Theirs:
    def __init__(self, name, module):
        self.game = pyspiel.load_game(name)
        self.decode = [(a.player, _OS_ID[a.tile], None if a.edge is None else int(a.edge))
                       for a in module._ACTIONS]

    def legal(self, state):
        return {(t, pip): a for a in state.legal_actions() for _, t, pip in [self.decode[a]]}


def _ours_legal(state):
    a = state.observation_array(state.current_player())
    from dominoai.engine.observe import O_END_PIP, O_NPLAYED
    out = {}
    for code in state.legal_actions():
        t, k = code >> 2, code & 3
        out[(t, None if a[O_NPLAYED] == 0 else int(a[O_END_PIP + k]))] = code
    return out


@pytest.mark.parametrize("preset,name,module,players", [
    ("openspiel_block", "python_block_dominoes", os_block, 2),
    ("openspiel_team", "python_team_dominoes", os_team, 4),
])
def test_lockstep_against_openspiels_own_games(preset, name, module, players):
    ours_game = DO.load_game(preset)
    theirs = _Theirs(name, module)
    rng = random.Random(2026)
    tiles = list(range(N_TILES))
    for g in range(300):
        rng.shuffle(tiles)
        hands = [tiles[7 * s:7 * s + 7] for s in range(players)]
        s = ours_game.new_initial_state()
        for t in tiles[:7 * players]:
            s.apply_action(t)
        o = theirs.game.new_initial_state()
        order = hands[0] + hands[1] if players == 2 else \
            [hands[p][i] for i in range(7) for p in range(players)]
        for t in order:
            o.apply_action(_CHANCE[t])
        while not s.is_terminal():
            assert not o.is_terminal(), f"game {g}"
            assert s.current_player() == o.current_player(), f"game {g}"
            mine, their = _ours_legal(s), theirs.legal(o)
            assert set(mine) == set(their), f"game {g}: {sorted(mine, key=str)} vs {sorted(their, key=str)}"
            key = sorted(mine, key=str)[rng.randrange(len(mine))]
            s.apply_action(mine[key])
            o.apply_action(their[key])
        assert o.is_terminal(), f"game {g}"
        assert [float(x) for x in s.returns()] == [float(x) for x in o.returns()], f"game {g}"


def _hidden(st: np.ndarray, players: int, seat: int) -> int:
    """The tiles ``seat`` cannot see in the engine state ``st``: the other
    seats' hands and the boneyard not yet drawn, as a mask."""
    m = 0
    for s in range(players):
        if s != seat:
            m |= int(st[L.S_HAND + s])
    for j in range(int(st[L.S_BONE_POS]), int(st[L.S_BONE_END])):
        m |= 1 << int(st[L.S_BONE + j])
    return m


def _others(st: np.ndarray, players: int, seat: int) -> tuple:
    return tuple(int(st[L.S_HAND + s]) for s in range(players) if s != seat)


def _check_resampled(s, r, p):
    """``r`` is a world ``p`` may believe at ``s``: the same information state
    and legal actions, ``p``'s own hand, every other seat's hand size, and
    the tiles hidden from ``p`` are the same set (``p``'s unseen tiles) split
    another way among the other seats and the boneyard."""
    n = s.players
    assert r.information_state_string(p) == s.information_state_string(p)
    assert np.array_equal(r.information_state_tensor(p), s.information_state_tensor(p))
    assert r.legal_actions() == s.legal_actions()
    assert int(r.st[L.S_HAND + p]) == int(s.st[L.S_HAND + p])
    for q in range(n):
        assert bin(int(r.st[L.S_HAND + q])).count("1") == bin(int(s.st[L.S_HAND + q])).count("1")
    unseen = _hidden(s.st, n, p)
    assert _hidden(r.st, n, p) == unseen
    assert unseen == int(s.observation_array(p)[O_UNSEEN])


@pytest.mark.parametrize("preset", ["block", "draw", "dominoball", "kozel"])
def test_resample_keeps_the_information_state(preset):
    """A resampled state has the player's information state string and tensor,
    the same legal actions, and the same tiles unseen by the player split
    among the others and the boneyard; at each hand's first decision (seven
    or more tiles in another hand) eight draws give more than one split,
    and not always the true one. Play goes on from a resampled world."""
    game = DO.load_game(preset)
    rng = random.Random(7)
    for _ in range(5):
        s = game.new_initial_state()
        first = True
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice(s.chance_outcomes())[0])
                continue
            p = s.current_player()
            r = s.resample_from_infostate(p, seed=rng.randrange(10**9))
            _check_resampled(s, r, p)
            if first:
                draws = [s.resample_from_infostate(p, seed=k) for k in range(8)]
                for d in draws:
                    _check_resampled(s, d, p)
                splits = {_others(d.st, s.players, p) for d in draws}
                assert len(splits) > 1, f"{preset}: eight draws gave one world"
                assert splits != {_others(s.st, s.players, p)}
                first = False
            # play goes on from the resampled world to the end
            t = r.clone()
            while not t.is_terminal():
                t.apply_action(rng.choice([a for a, _ in t.chance_outcomes()] if t.is_chance_node()
                                          else t.legal_actions()))
            s.apply_action(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("preset", ["block", "draw"])
def test_resample_with_a_cache_draws_a_batch_per_information_state(preset):
    """With ``cache=``, the first call at an information state builds the
    belief and a batch of worlds, and later calls take the batch's unused
    worlds one by one (a new batch when it is empty): one cache entry per
    information state, every world a consistent one, varied, and the same
    sequence for the same seeds and a fresh cache."""
    game = DO.load_game(preset)
    rng = random.Random(3)
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(rng.choice(s.chance_outcomes())[0])
    p = s.current_player()

    def run(cache, calls, start=0):
        out = []
        for k in range(start, start + calls):
            r = s.resample_from_infostate(p, seed=1000 + k, cache=cache)
            _check_resampled(s, r, p)
            out.append(_others(r.st, s.players, p))
        return out

    cache = {}
    first = run(cache, 1)
    assert len(cache) == 1
    (belief, left), = cache.values()
    batch = len(left) + 1                  # the batch the first call drew from
    assert batch > 1
    more = run(cache, batch + 3, 1)         # empties the batch, then draws the next
    assert len(cache) == 1 and len(left) == batch - 4
    worlds = first + more
    assert len(set(worlds)) > 1
    assert run({}, batch + 4) == worlds    # seeded: the same sequence again
    # another information state (after a move) gets its own entry
    s.apply_action(s.legal_actions()[0])
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    if not s.is_terminal():
        p = s.current_player()
        run(cache, 1)
        assert len(cache) == 2


def _mask(bits) -> int:
    assert set(np.unique(bits)) <= {0.0, 1.0}
    return sum(1 << i for i, b in enumerate(bits) if b)


def decode_observation_tensor(vec: np.ndarray) -> dict:
    """The observation tensor read back by its documented layout: hand,
    line and unseen masks as 28 bits each, then four void masks of 7 pips."""
    assert vec.dtype == np.float32 and vec.shape == (DO.OBS_SIZE,)
    return {"hand": _mask(vec[0:28]), "line": _mask(vec[28:56]), "unseen": _mask(vec[56:84]),
            "voids": [{pip for pip in range(7) if vec[84 + 7 * s + pip]} for s in range(4)]}


@pytest.mark.parametrize("preset", ["block", "draw", "kozel", "dominoball"])
def test_observation_tensor_decodes_to_hand_line_unseen_and_voids(preset):
    """At every decision of random hands, the observation tensor decoded by
    its layout gives the seat's true hand (engine state), the tiles played
    (the public event log), the unseen tiles (the other hands and the
    boneyard not drawn) and voids that hold: in the non-drawing presets a
    seat shown void in a pip holds no tile with that pip. Voids occur."""
    game = DO.load_game(preset)
    rng = random.Random(11)
    drawing = get_rules(preset).drawing
    voids_seen = 0
    for _ in range(6):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice(s.chance_outcomes())[0])
                continue
            for p in range(s.players):
                d = decode_observation_tensor(np.asarray(s.observation_tensor(p), np.float32))
                assert d["hand"] == int(s.st[L.S_HAND + p])
                played = 0
                for kind, _seat, tile, _end in s.event_rows().tolist():
                    if kind == L.EV_PLAY:
                        played |= 1 << tile
                assert d["line"] == played
                assert d["unseen"] == _hidden(s.st, s.players, p)
                assert d["hand"] & d["line"] == 0 and d["unseen"] & (d["hand"] | d["line"]) == 0
                for q in range(s.players):
                    voids_seen += len(d["voids"][q])
                    if not drawing:
                        held = int(s.st[L.S_HAND + q])
                        for pip in d["voids"][q]:
                            assert not any(held >> t & 1 and pip in (TILE_LOW[t], TILE_HIGH[t])
                                           for t in range(N_TILES)), f"seat {q} holds a {pip}"
                for q in range(s.players, 4):
                    assert not d["voids"][q]
            s.apply_action(rng.choice(s.legal_actions()))
    assert voids_seen > 0


def _same_view_two_deals(preset, seed):
    """Two hands of ``preset`` whose deals give seat 0 the same tiles (1:1
    and 6:6 among them, so that seat 0 leads whatever the first-lead rule)
    and split the rest two different ways: seat 0's first observation is the
    same in both, the hidden hands differ."""
    rules = get_rules(preset)
    hs, n = rules.hand_size, rules.players
    lead = [Tile.parse("1:1").id, Tile.parse("6:6").id]
    tiles = [t for t in range(N_TILES) if t not in lead]
    random.Random(seed).shuffle(tiles)
    mine, rest = lead + tiles[:hs - 2], tiles[hs - 2:]
    out = []
    for order in (rest, rest[::-1]):
        deal = [mine] + [order[k * hs:(k + 1) * hs] for k in range(n - 1)]
        m = Match(preset, seed=1)
        h = m.new_hand(deal=deal, boneyard=order[(n - 1) * hs:],
                       leader=0 if rules.first_lead == "lot" else None)
        out.append((m, h))
    return out


@pytest.mark.parametrize("preset", ["block", "draw", "kozel"])
def test_state_from_observation_sees_only_the_observation(preset):
    """``state_from_observation`` gives a state with the observation's own
    hand, information and legal actions, and the hidden tiles split among
    the others and the boneyard; for two deals that seat 0 cannot tell
    apart, the same seed gives the same state: no hidden tile reaches it."""
    game = DO.load_game(preset)
    (m1, h1), (m2, h2) = _same_view_two_deals(preset, 5)
    assert h1.seat == h2.seat == 0
    o1, o2 = h1.observe(0), h2.observe(0)
    assert np.array_equal(o1.array, o2.array) and np.array_equal(o1.event_array, o2.event_array)
    assert m1.state_copy()[L.S_HAND + 1] != m2.state_copy()[L.S_HAND + 1]
    a = [DO.state_from_observation(game, o1, seed=k) for k in range(6)]
    b = [DO.state_from_observation(game, o2, seed=k) for k in range(6)]
    for x, y in zip(a, b):
        assert np.array_equal(x.st, y.st)
        assert np.array_equal(x.observation_array(0), o1.array)
        assert x.legal_actions() == o1.legal_codes().tolist()
        assert _hidden(x.st, game.rules.players, 0) == int(o1.array[O_UNSEEN])
    assert len({_others(x.st, game.rules.players, 0) for x in a}) > 1
    other = DO.load_game("fives" if preset != "fives" else "block")
    with pytest.raises(ValueError, match="the observation is of"):
        DO.state_from_observation(other, o1)


def test_ismcts_and_mcts_bots_play_a_hand_and_refuse_changed_rules():
    for spec in ("ismcts:sims=30,seed=1", "mcts:sims=20,seed=2"):
        bot = make_bot(spec)
        for preset in ("openspiel_block", "draw"):
            m = Match(preset, seed=4)
            h = m.new_hand(leader=0) if preset == "draw" else m.new_hand()
            while not h.over:
                obs = h.observe(h.seat)
                mv = bot.act(obs)
                assert mv in obs.legal_moves()
                h.play(mv)
    m = Match("block", seed=1, target=50)
    h = m.new_hand(leader=0)
    with pytest.raises(ValueError, match="changed rules fields"):
        make_bot("ismcts:sims=5").act(h.observe(h.seat))


def test_ismcts_is_reproducible_with_a_seed():
    m = Match("openspiel_block", seed=9)
    h = m.new_hand()
    obs = h.observe(h.seat)
    a = [make_bot("ismcts:sims=50,seed=3").act(obs) for _ in range(2)]
    assert a[0] == a[1]
