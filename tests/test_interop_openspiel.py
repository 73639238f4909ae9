"""dominoai presets as OpenSpiel games, the resampler, and the ismcts/mcts
peer bots (issue 12; dominoai/interop/openspiel.py).

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

from dominoai import Match, preset_names  # noqa: E402
from dominoai.bots import make_bot  # noqa: E402
from dominoai.interop import openspiel as DO  # noqa: E402
from dominoai.rules import PRESETS  # noqa: E402
from dominoai.tiles import N_TILES, TILE_HIGH, TILE_LOW  # noqa: E402

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


@pytest.mark.parametrize("preset", ["block", "draw", "dominoball", "kozel"])
def test_resample_keeps_the_information_state(preset):
    """A resampled state has the player's information state string and tensor,
    the same legal actions, and the same tiles unseen by the player split
    among the others and the boneyard."""
    game = DO.load_game(preset)
    rng = random.Random(7)
    for _ in range(5):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice(s.chance_outcomes())[0])
                continue
            p = s.current_player()
            r = s.resample_from_infostate(p, seed=rng.randrange(10**9))
            assert r.information_state_string(p) == s.information_state_string(p)
            assert np.array_equal(r.information_state_tensor(p), s.information_state_tensor(p))
            assert r.legal_actions() == s.legal_actions()
            # play goes on from the resampled world to the end
            t = r.clone()
            while not t.is_terminal():
                t.apply_action(rng.choice([a for a, _ in t.chance_outcomes()] if t.is_chance_node()
                                          else t.legal_actions()))
            s.apply_action(rng.choice(s.legal_actions()))


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
