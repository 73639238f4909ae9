"""Lock-step cross-check of the ``openspiel_block`` / ``openspiel_team`` presets
against OpenSpiel's own python games (``python_block_dominoes`` and
``python_team_dominoes``).

Every game: one random deal is given to both engines (ours through
``Match.new_hand(deal=...)``, OpenSpiel's through its chance actions); then at
every step both must agree on the seat to move, on the set of legal plays and
on the open end pips; a seeded random play is applied to both; at the end both
must be terminal together and agree on the returns and on the tiles left in
every hand.

How the two encodings meet (facts about OpenSpiel's games, checked in their
source): OpenSpiel's tile is a ``(low, high)`` float tuple and a chance outcome
is the tile's index in ``_DECK``; block deals 7 to player 0 then 7 to player 1,
team deals round-robin 0,1,2,3,0,...; player 0 leads any tile (action edge
``None``); a play names the end it covers by its *pip*, not its side, so a tile
fitting both ends is two actions when the ends show different pips and one when
they show the same pip -- exactly our "equivalent ends" rule, so a move
``(tile, end)`` maps to ``(tile, pip shown at end)`` and the two move lists
must be equal as sets. OpenSpiel has no pass action: a seat with no play is
skipped (``current_player()`` jumps), as our auto-advance does. Returns: the
lighter side (pip total of the seat, or of the pair) wins the heavier side's
total, an equal total is 0 for everyone, even when the side that went out is
the heavier one. OpenSpiel does not validate actions (a bad id silently
corrupts its state), so only ids taken from ``legal_actions()`` are applied.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

pytest.importorskip("open_spiel")

import pyspiel  # noqa: E402
from open_spiel.python import games  # noqa: E402,F401  (registers the python games)
from open_spiel.python.games import block_dominoes as os_block  # noqa: E402
from open_spiel.python.games import team_dominoes as os_team  # noqa: E402

from dominoai import Match, get_rules  # noqa: E402
from dominoai.tiles import N_TILES, TILE_HIGH, TILE_LOW  # noqa: E402

GAMES = 2_000
SLOW_GAMES = 20_000

_SETUP = {
    # preset: (OpenSpiel game, its module, players)
    "openspiel_block": ("python_block_dominoes", os_block, 2),
    "openspiel_team": ("python_team_dominoes", os_team, 4),
}

# our tile id -> OpenSpiel's (low, high) float tuple, and its chance outcome id
_OS_TILE = [(float(TILE_LOW[t]), float(TILE_HIGH[t])) for t in range(N_TILES)]
_OS_TILE_ID = {tile: t for t, tile in enumerate(_OS_TILE)}
_CHANCE = [os_block._DECK.index(_OS_TILE[t]) for t in range(N_TILES)]
assert os_block._DECK == os_team._DECK


class _OpenSpielSide:
    """OpenSpiel's state for one game, with its actions decoded once."""

    def __init__(self, game_name: str, module, players: int):
        self.game = pyspiel.load_game(game_name)
        self.players = players
        # action id -> (player, our tile id, covered pip or None for the lead)
        self.decode = [
            (a.player, _OS_TILE_ID[a.tile], None if a.edge is None else int(a.edge))
            for a in module._ACTIONS
        ]

    def deal(self, hands: list[list[int]]):
        """A fresh state with ``hands`` (our tile ids per seat) dealt."""
        if self.players == 2:
            order = hands[0] + hands[1]
        else:
            order = [hands[p][i] for i in range(len(hands[0])) for p in range(self.players)]
        state = self.game.new_initial_state()
        for t in order:
            assert state.is_chance_node()
            state.apply_action(_CHANCE[t])
        assert not state.is_chance_node()
        for p in range(self.players):  # the deal landed where we meant it
            assert sorted(_OS_TILE_ID[x] for x in state.hands[p]) == sorted(hands[p])
        return state

    def legal(self, state) -> dict:
        """``(tile id, covered pip or None) -> action id`` for the player to move."""
        p = state.current_player()
        out = {}
        for a in state.legal_actions():
            player, tile, pip = self.decode[a]
            assert player == p
            out[(tile, pip)] = a
        return out


def _our_legal(hand) -> dict:
    """``(tile id, covered pip or None) -> Move`` for the seat to move."""
    ends = {k: pip for k, pip, _kind in hand.ends}
    out = {}
    for m in hand.legal_moves():
        assert not m.replace
        key = (m.tile.id, ends[m.end] if ends else None)
        assert key not in out, f"two moves cover the same (tile, pip) {key}: {hand.legal_moves()}"
        out[key] = m
    return out


def _expected_returns(rules, points) -> list[int]:
    """OpenSpiel's returns from our points per side: each seat gets its side's
    points minus the other side's (only the winner scores)."""
    n = rules.players
    return [points[rules.side_of(s)] - sum(points[x] for x in range(rules.sides) if x != rules.side_of(s))
            for s in range(n)]


def play_lockstep(preset: str, n_games: int, seed: int) -> Counter:
    """Play ``n_games`` random games in lock-step; assert agreement throughout.
    Returns counters of the situations covered (for the coverage checks)."""
    game_name, module, players = _SETUP[preset]
    rules = get_rules(preset)
    assert rules.players == players
    os_side = _OpenSpielSide(game_name, module, players)
    rng = random.Random(seed)
    tiles = list(range(N_TILES))
    seen: Counter = Counter()
    for g in range(n_games):
        rng.shuffle(tiles)
        hs = rules.hand_size
        hands = [tiles[s * hs:(s + 1) * hs] for s in range(players)]
        where = f"{preset} game {g} (seed {seed}), deal {hands}"

        match = Match(rules)
        hand = match.new_hand(deal=hands)
        state = os_side.deal(hands)
        history = []
        prev = None
        while not hand.over:
            assert not state.is_terminal(), f"{where}: OpenSpiel ended first after {history}"
            seat = hand.seat
            assert seat == state.current_player(), \
                f"{where}: seat {seat} to move here, OpenSpiel says {state.current_player()} after {history}"
            if prev is not None and seat != (prev + 1) % players:
                seen["skipped seat"] += 1
            ours = _our_legal(hand)
            theirs = os_side.legal(state)
            assert set(ours) == set(theirs), \
                f"{where}: legal plays differ after {history}: ours {sorted(ours, key=str)} " \
                f"OpenSpiel {sorted(theirs, key=str)}"
            tiles_now = Counter(t for t, _ in ours)
            if any(c > 1 for c in tiles_now.values()):
                seen["tile fits two pips"] += 1
            if hand.ends and hand.ends[0][1] == hand.ends[1][1] and any(p is not None for _, p in ours):
                seen["both ends same pip"] += 1
            key = sorted(ours)[rng.randrange(len(ours))]
            history.append(key)
            hand.play(ours[key])
            state.apply_action(theirs[key])
            prev = seat
            if not hand.over:
                assert sorted(p for _, p, _k in hand.ends) == [int(x) for x in state.open_edges], \
                    f"{where}: open ends differ after {history}"
        assert state.is_terminal(), f"{where}: our hand ended, OpenSpiel's did not, after {history}"

        res = hand.result
        left = [sorted(t.id for t in hand.tiles(s)) for s in range(players)]
        assert left == [sorted(_OS_TILE_ID[x] for x in state.hands[s]) for s in range(players)], \
            f"{where}: hands left differ after {history}"
        assert list(res.pips) == [int(sum(a + b for a, b in state.hands[s])) for s in range(players)]
        got = [int(x) for x in state.returns()]
        want = _expected_returns(rules, res.points)
        assert got == want, f"{where}: returns: OpenSpiel {got}, ours {want} from {res} after {history}"
        mres = match.result
        assert mres.finished and mres.winner == res.winner and mres.scores == tuple(res.points), \
            f"{where}: match result {mres} vs hand result {res}"

        seen[res.end] += 1
        if res.winner is None:
            seen["tie"] += 1
        elif res.end == "domino":
            out_side = rules.side_of(_last_player(hand))
            if out_side != res.winner:
                seen["went out but heavier"] += 1
    return seen


def _last_player(hand) -> int:
    plays = [e for e in hand.events if e.kind == "play"]
    return plays[-1].seat


def _check_coverage(preset: str, seen: Counter, n_games: int):
    """The random sample did reach the situations where the encodings differ."""
    assert seen["domino"] + seen["blocked"] == n_games
    wanted = ["domino", "blocked", "tie", "skipped seat", "tile fits two pips", "both ends same pip"]
    if preset == "openspiel_team":  # a seat that went out has 0 pips; its partner may not
        wanted.append("went out but heavier")
    for what in wanted:
        assert seen[what] > 0, f"{preset}: {n_games} random games never covered {what!r}: {dict(seen)}"


@pytest.mark.parametrize("preset", ["openspiel_block", "openspiel_team"])
def test_lockstep_random_games(preset):
    seen = play_lockstep(preset, GAMES, seed=20240501)
    _check_coverage(preset, seen, GAMES)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["openspiel_block", "openspiel_team"])
def test_lockstep_random_games_many(preset):
    seen = play_lockstep(preset, SLOW_GAMES, seed=777)
    _check_coverage(preset, seen, SLOW_GAMES)
