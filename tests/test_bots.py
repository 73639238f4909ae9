"""Bots: conformance of every registered bot on every preset, spec strings,
and hand-made positions with the expected choice.

Conformance (every bot of ``dominoai.bots.bot_names()``, the peer bots of
the interop extra included, every preset of ``dominoai.preset_names()`` plus
player-count variants): over random positions (``POSITIONS`` per bot in all,
spread over the tables; fewer for the search bots in ``SLOW_BOTS`` and the
peer bots in ``PEER_COUNTS``, whose decisions cost milliseconds) the bot

- returns a legal move (checked against the full engine state of that moment
  with ``kernels.check_move``, so any end the tile fits is accepted),
- never changes what it was given (``Observation.array`` and
  ``.event_array`` are equal before and after),
- is deterministic: two bots built with the same seed make the same moves
  over the same positions.

The positions come from whole matches played by a mix of ``easy`` and
``medium`` moves (so later hands, scores, draws, passes, voids and
Dominoball replacements all occur), each decision of each seat.

The peer bots (``ismcts``, ``mcts``, ``pydominoes-*``) play only the tables
their library plays (OpenSpiel: the presets as registered; the ``dominoes``
package: its own preset), at a cheap setting (``PEER_SPECS``); each is
skipped, with the reason, where its library is not installed.

Hand-made positions are built directly as the observation's compact array
(:func:`position`): own tiles, the line, the open ends, hand sizes, the
boneyard, voids and scores; the tiles not held and not on the line are the
unseen ones. ``medium`` is checked on heaviest / higher half / best score /
heaviest on equal score / never replacing; ``hard`` on one position per
weight, with every other weight set to 0 through the spec so that the
weight under test decides (with all weights 0 ``hard`` plays the heaviest
tile, so each expected move differs from that).
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.kernels("search", "side")  # the compiled kernels it needs (conftest.WARM_GROUPS)

import dominoai
import dominoai.interop  # noqa: F401  (registers the peer bots whose library is installed)
from dominoai import Match, Move, Observation, Tile, get_rules
from dominoai.bots import BOTS, BaseBot, Param, bot_names, make_bot, parse_spec, plugins
from dominoai.bots.hard import FEATURES, HardBot
from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.observation import (
    O_BONE, O_CAND, O_CUR, O_END_KIND, O_END_PIP, O_HAND, O_HAND_NO, O_LEAD_TILE, O_LEADER,
    O_LINE, O_MUST, O_NPLAYED, O_POINTS, O_REPL, O_SCORE, O_SEAT, O_SIZE, O_SIZES, O_SPIN,
    O_SPIN_TILE, O_UNSEEN, O_VOID,
)
from dominoai.tiles import FULL_MASK

POSITIONS = 10_000          # random positions per bot, across all tables (default suite)
SLOW_FACTOR = 5             # -m slow: this many times more
SLOW_BOTS = {"insane": 120, "omniscient": 120}   # search bots: positions in all
SEED = 20261129

TABLES = [(p, {}) for p in dominoai.preset_names()] + [
    ("draw", {"players": 3}), ("draw", {"players": 4}),
    ("block", {"players": 3}), ("block", {"players": 4}),
    ("all_fives", {"players": 3}), ("all_fives", {"players": 4}),
    ("express", {"players": 3}), ("express", {"players": 4}),
    ("express", {"players": 4, "partnerships": True}),
]


# the peer bots: dominoai's own plug-ins (its interop extra's entry points)
PEER_BOTS = tuple(sorted(n for n, target in plugins().items() if target.startswith("dominoai.interop")))

# the peer bots: a cheap setting, and positions in all (the -m slow run: SLOW_FACTOR times more)
PEER_SPECS = {"ismcts": "ismcts:sims=4", "mcts": "mcts:sims=4", "pydominoes-pab": "pydominoes-pab:sample_size=1"}
PEER_COUNTS = {"ismcts": 300, "mcts": 500, "pydominoes-pab": 120, "pydominoes-omniscient": 120,
               "pydominoes-bota-gorda": 3_000, "pydominoes-counter": 3_000, "pydominoes-random": 3_000}
# the package's alpha-beta players search the whole remaining hand (seconds at a hand's first
# moves): they are checked on the positions with at least this many tiles on the line
PEER_MIN_PLAYED = {"pydominoes-pab": 6, "pydominoes-omniscient": 6}


def package_bots() -> list[str]:
    """The registered bots that dominoai itself provides, peer bots left out
    (the test doubles other test modules register, such as a bot that raises
    on purpose, are left out too, whatever order the modules were collected in)."""
    from dominoai.bots.base import BOTS
    return [n for n in bot_names() if getattr(BOTS[n], "__module__", "").startswith("dominoai.")
            and n not in PEER_BOTS]


def peer_bots() -> list:
    """Every peer bot as a parameter, skipped with the reason where its
    library is not installed."""
    out = []
    for n in PEER_BOTS:
        lib = "open_spiel" if n in ("ismcts", "mcts") else "the dominoes package (dominoes==6.1)"
        out.append(pytest.param(n, marks=pytest.mark.skipif(
            n not in BOTS, reason=f"{n} needs {lib}: pip install -e '.[interop]'")))
    return out


def peer_tables(name: str) -> list:
    """The tables a peer bot plays: the ``dominoes`` package's preset, or
    (OpenSpiel) every table whose rules are a registered preset's."""
    if name.startswith("pydominoes-"):
        return [t for t in TABLES if t[0] == "pydominoes"]
    return [t for t in TABLES if get_rules(t[0], **t[1]) == get_rules(t[0], players=get_rules(t[0], **t[1]).players)]

def _tid(table):
    preset, ov = table
    return preset + "".join(f"-{k}={v}" for k, v in ov.items())


# ---------------------------------------------------------------- random positions
_POS_CACHE: dict = {}


def random_positions(table, n: int, seed: int) -> list:
    """``n`` decision points of random matches on ``table``: a list of
    ``(observation, engine state then, rules vector)``."""
    key = (_tid(table), n, seed)
    if key in _POS_CACHE:
        return _POS_CACHE[key]
    preset, ov = table
    rng = np.random.default_rng(seed)
    mid = make_bot("medium")
    out = []
    while len(out) < n:
        m = Match(preset, seed=int(rng.integers(2**31)), **ov)
        while not m.finished and len(out) < n:
            h = m.new_hand()
            while not h.over and len(out) < n:
                obs = h.observe()
                out.append((obs, m.state_copy(), m.rules_vector))
                if rng.random() < 0.6:
                    moves = h.legal_moves()
                    mv = moves[int(rng.integers(len(moves)))]
                else:
                    mv = mid.act(obs)
                h.play(mv)
    _POS_CACHE[key] = out
    return out


def _positions_for(total: int, tables: list | None = None) -> list:
    tables = TABLES if tables is None else tables
    per = -(-total // len(tables))
    out = []
    for t in tables:
        out += random_positions(t, per, SEED + TABLES.index(t))
    return out


def _act(bot, obs, st):
    """``bot.act(obs)``; a bot that declares ``needs_state`` (the omniscient
    cheat) gets a copy of the true state through ``act_with_state``."""
    if getattr(bot, "needs_state", False):
        return bot.act_with_state(obs, st.copy())
    return bot.act(obs)


def _conformance(name: str, total: int, tables: list | None = None, spec: str | None = None,
                 min_played: int = 0):
    if min_played:
        pool = _positions_for(4 * total, tables)
        positions = [p for p in pool if p[0].array[O_NPLAYED] >= min_played][:total]
    else:
        positions = _positions_for(total, tables)
    assert len(positions) >= total
    spec = spec or name
    a = make_bot(spec, seed=11)
    b = make_bot(f"{spec}{',' if ':' in spec else ':'}seed=11")
    moves_a = []
    for obs, st, rv in positions:
        arr, ev, st0 = obs.array.copy(), obs.event_array.copy(), st.copy()
        mv = _act(a, obs, st)
        assert isinstance(mv, Move), f"{name} returned {mv!r}"
        assert np.array_equal(obs.array, arr) and np.array_equal(obs.event_array, ev), \
            f"{name} changed its observation:\n{obs}"
        assert np.array_equal(st, st0)
        code = mv.code
        err = int(K.check_move(st, rv, code))
        assert err == L.ERR_OK, f"{name} chose the illegal move {mv} (error {err}) in\n{obs}\n" \
                                f"legal: {[str(m) for m in obs.legal_moves()]}"
        moves_a.append(code)
    moves_b = [_act(b, obs, st).code for obs, st, _ in positions]
    assert moves_a == moves_b, f"{name} is not deterministic for a fixed seed"


def _bot_count(name: str, slow: bool) -> int:
    if name in SLOW_BOTS:
        return SLOW_BOTS[name] * (SLOW_FACTOR if slow else 1)
    return POSITIONS * (SLOW_FACTOR if slow else 1)


def bot_tables(name: str) -> list:
    """The tables a package bot plays: all of them, but for ``neural``
    only those of the presets with a shipped policy, at the players it was
    trained for (elsewhere it refuses, as
    :func:`test_neural_refuses_a_preset_without_a_model` and
    ``tests/test_neural.py`` check)."""
    if name == "neural":
        from dominoai.bots.neural import NeuralBot
        from dominoai.nets.model import load_model
        trained = {p: load_model(d["model"]).players for p, d in NeuralBot.PRESET_DEFAULTS.items()}
        return [t for t in TABLES if t[0] in trained
                and t[1].get("players", dominoai.get_rules(t[0]).players) == trained[t[0]]]
    return TABLES


def _package_conformance(name: str, slow: bool) -> None:
    tables = bot_tables(name)
    if not tables:
        pytest.skip(f"{name} has no table to play here (no shipped model)")
    # as many positions per table as the other bots get (the same positions)
    _conformance(name, _bot_count(name, slow) * len(tables) // len(TABLES), tables)


@pytest.mark.parametrize("name", package_bots())
def test_conformance(name):
    _package_conformance(name, False)


@pytest.mark.slow
@pytest.mark.parametrize("name", package_bots())
def test_conformance_slow(name):
    _package_conformance(name, True)


def test_neural_refuses_a_preset_without_a_model():
    from dominoai.bots.neural import NeuralBot
    from dominoai.nets.model import ModelError
    without = [p for p in dominoai.preset_names() if p not in NeuralBot.PRESET_DEFAULTS]
    assert without
    with pytest.raises(ModelError, match="presets with one: ") as e:
        _act(make_bot("neural"), Match(without[0], seed=1).new_hand().observe(), None)
    assert str(e.value).endswith(", ".join(sorted(NeuralBot.PRESET_DEFAULTS)) or "none")


@pytest.mark.parametrize("name", peer_bots())
def test_peer_conformance(name):
    tables = peer_tables(name)
    assert tables
    _conformance(name, PEER_COUNTS[name], tables, PEER_SPECS.get(name), PEER_MIN_PLAYED.get(name, 0))


@pytest.mark.slow
@pytest.mark.parametrize("name", peer_bots())
def test_peer_conformance_slow(name):
    _conformance(name, PEER_COUNTS[name] * SLOW_FACTOR, peer_tables(name), PEER_SPECS.get(name),
                 PEER_MIN_PLAYED.get(name, 0))


def test_every_peer_bot_has_a_count():
    assert set(PEER_COUNTS) == set(PEER_BOTS) and set(PEER_SPECS) <= set(PEER_BOTS)


def test_every_table_is_covered():
    assert {p for p, _ in TABLES} == set(dominoai.preset_names())
    for t in TABLES:
        get_rules(t[0], **t[1])


@pytest.mark.parametrize("name", package_bots())
def test_no_move_raises(name):
    """A bot asked when it is not its turn (or the hand is over) says so."""
    if not any(t[0] == "block" for t in bot_tables(name)):
        pytest.skip(f"{name} does not play block here (no shipped model)")
    m = Match("block", seed=3)
    h = m.new_hand(leader=0)
    obs = h.observe(1)
    with pytest.raises(ValueError):
        _act(make_bot(name, seed=1), obs, m.state_copy())


# ---------------------------------------------------------------- specs and the registry
def test_registry_lists_the_levels():
    names = bot_names()
    assert {"easy", "medium", "hard"} <= set(names)
    assert names == sorted(names)


@pytest.mark.parametrize("name", package_bots())
def test_spec_round_trip(name):
    bot = make_bot(name, seed=4)
    assert bot.name == name
    assert hasattr(bot, "act")
    if isinstance(bot, BaseBot):
        for k, p in type(bot).PARAMS.items():
            assert isinstance(p, Param) and p.help, f"{name}.{k} needs a help text"
        again = make_bot(bot.spec)
        assert again.spec == bot.spec and again.params == bot.params


BUILT_IN = ("easy", "medium", "hard", "insane", "omniscient")


def test_only_the_named_cheat_needs_the_state():
    """One signal: ``needs_state`` (False on BaseBot), and the bot that sets
    it has ``act_with_state``."""
    assert BaseBot.needs_state is False
    needs = {n for n in BUILT_IN if make_bot(n).needs_state}
    assert needs == {"omniscient"}
    assert callable(make_bot("omniscient").act_with_state)


def test_hard_features_come_from_one_table():
    from dominoai.bots.hard import DEFAULT_WEIGHTS, FEATURE_TABLE, N_FEATURES, N_WEIGHTS

    assert FEATURES == tuple(row[0] for row in FEATURE_TABLE) and N_FEATURES == len(FEATURES) == 9
    assert list(HardBot.PARAMS) == [*FEATURES, "replace"] and N_WEIGHTS == 10
    # the tuned defaults, as written in the table
    assert DEFAULT_WEIGHTS.tolist() == [0.25, 3.0, 0.5, 0.75, 6.0, 4.0, 6.0, 1.0, 1.6, -0.5]
    assert np.array_equal(HardBot().weight_vector, DEFAULT_WEIGHTS)
    assert make_bot("hard:lock=1").weight_vector[FEATURES.index("lock")] == 1.0


def test_make_bot_parses_typed_parameters():
    bot = make_bot("hard:heavy=2.5, void=0,seed=7")
    assert bot.heavy == 2.5 and bot.void == 0.0 and bot.seed == 7
    assert bot.weights["heavy"] == 2.5 and bot.weights["lock"] == HardBot.PARAMS["lock"].default
    assert bot.spec == "hard:heavy=2.5,void=0.0,seed=7"
    assert make_bot("hard").spec == "hard"
    assert make_bot("easy", seed=3).seed == 3
    assert make_bot("easy:seed=5", seed=3).seed == 5        # the spec's seed wins
    b = make_bot("medium")
    assert make_bot(b) is b                                  # a bot is passed through
    assert parse_spec(" hard : heavy = 1 , seed=2 ") == ("hard", {"heavy": "1", "seed": "2"})
    assert parse_spec("easy") == ("easy", {})


def test_unknown_bot_lists_the_valid_ones():
    with pytest.raises(ValueError) as e:
        make_bot("genius")
    msg = str(e.value)
    assert "genius" in msg
    for n in bot_names():
        assert n in msg


def test_unknown_parameter_lists_the_valid_ones():
    with pytest.raises(ValueError) as e:
        make_bot("hard:speed=3")
    msg = str(e.value)
    assert "speed" in msg and "seed" in msg
    for k in HardBot.PARAMS:
        assert k in msg
    with pytest.raises(ValueError, match="its parameters are: seed$"):
        make_bot("easy:worlds=3")


@pytest.mark.parametrize("spec, words", [
    ("hard:heavy=abc", ["heavy must be a number", "abc"]),
    ("hard:void=", ["void must be a number"]),
    ("easy:seed=x", ["seed", "int"]),
    ("medium:seed=1.5", ["seed", "int"]),
    ("hard:heavy", ["key=value"]),
    ("hard:=3", ["key=value"]),
    (":seed=1", ["empty"]),
    ("", ["empty"]),
    ("insane:draw_histroy=true", ["has no parameter 'draw_histroy' (did you mean 'draw_history'?)"]),
    ("insane:draw_history=maybe", ["draw_history must be true or false", "'maybe'"]),
])
def test_bad_specs_say_why(spec, words):
    with pytest.raises(ValueError) as e:
        make_bot(spec)
    for w in words:
        assert w in str(e.value)


def test_param_parsing():
    flag = Param(bool, False, "a flag")
    assert flag.parse("b", "x", "yes") is True and flag.parse("b", "x", "off") is False
    with pytest.raises(ValueError, match="x must be true or false"):
        flag.parse("b", "x", "maybe")
    n = Param(int, 1, "count", min=1)
    assert n.parse("b", "n", "4") == 4 and n.parse("b", "n", 3.0) == 3
    with pytest.raises(ValueError, match=">= 1"):
        n.parse("b", "n", "0")
    with pytest.raises(ValueError, match=r"^bot 'b': parameter n must be an integer \(got 2.5\)$"):
        n.parse("b", "n", 2.5)
    with pytest.raises(ValueError, match=r"^bot 'b': parameter t must be a number \(got 'abc'\)$"):
        Param(float, 1.0, "temperature").parse("b", "t", "abc")
    c = Param(str, "a", "mode", choices=("a", "b"))
    with pytest.raises(ValueError, match="one of a, b"):
        c.parse("b", "mode", "z")
    with pytest.raises(ValueError):
        make_bot(42)


def test_bot_is_not_a_bot():
    with pytest.raises(ValueError, match="not a bot spec"):
        make_bot(object())
    assert "hard" in BOTS


# ---------------------------------------------------------------- hand-made positions
def _mask(tiles) -> int:
    m = 0
    for t in tiles:
        m |= 1 << Tile.parse(t).id
    return m


def _pips(pips) -> int:
    b = 0
    for p in pips:
        b |= 1 << p
    return b


def position(preset, hand, line, ends, *, seat=0, sizes=None, bone=None, void=None,
             points=None, scores=None, repl=None, spinner=None, players=None, **over) -> Observation:
    """The observation of ``seat`` (to move) in a hand-made position.

    ``ends``: up to four ``(pip, kind)`` for left, right, up, down (kind 0
    plain, 1 double, 2 unplayed spinner side; None for a closed end).
    ``line``: the tiles on the line, the lead first. ``sizes``: every seat's
    hand size (default: each seat holds as many tiles as ``hand``).
    ``bone``: boneyard size (default: whatever keeps the tile count right).
    ``void``: ``{seat: pips}`` known voids. ``spinner``: ``(tile, state)``.
    """
    rules = get_rules(preset, **({"players": players} if players else {}), **over)
    n = rules.players
    a = np.zeros(O_SIZE, np.int64)
    own = _mask(hand)
    on_line = _mask(line)
    assert own & on_line == 0
    a[O_SEAT] = seat
    a[O_HAND] = own
    a[O_LINE] = on_line
    for k in range(4):
        e = ends[k] if k < len(ends) else None
        a[O_END_PIP + k] = -1 if e is None else e[0]
        a[O_END_KIND + k] = 0 if e is None else e[1]
    a[O_CAND] = a[O_CAND + 1] = -1
    a[O_SPIN_TILE] = -1
    if spinner is not None:
        a[O_SPIN_TILE] = Tile.parse(spinner[0]).id
        a[O_SPIN] = spinner[1]
    a[O_LEAD_TILE] = Tile.parse(line[0]).id if line else -1
    a[O_NPLAYED] = len(line)
    a[O_MUST] = -1
    a[O_CUR] = seat
    a[O_LEADER] = seat
    sizes = list(sizes) if sizes is not None else [len(hand)] * n
    assert sizes[seat] == len(hand)
    for i in range(n):
        a[O_SIZES + i] = sizes[i]
    unseen = FULL_MASK & ~own & ~on_line
    a[O_BONE] = bin(unseen).count("1") - (sum(sizes) - len(hand)) if bone is None else bone
    for i, p in (void or {}).items():
        a[O_VOID + i] = _pips(p)
    for s, v in enumerate(points or ()):
        a[O_POINTS + s] = v
    for s, v in enumerate(scores or ()):
        a[O_SCORE + s] = v
    for i, v in enumerate(repl or ()):
        a[O_REPL + i] = v
    a[O_UNSEEN] = unseen
    a[O_HAND_NO] = 1
    return Observation(rules, a, np.zeros((0, 4), np.int64))


# every weight 0; the replacement threshold, which is not a weight, at "never"
ALL_ZERO = dict({k: 0.0 for k in FEATURES}, replace=1000.0)


def hard_only(weight: str, value: float = 1.0, **more) -> str:
    """A hard spec with every weight 0 (and no replacing) but ``weight``
    (and ``more``)."""
    w = dict(ALL_ZERO, **{weight: value}, **more)
    return "hard:" + ",".join(f"{k}={v}" for k, v in w.items())


def choice(spec: str, obs: Observation) -> str:
    assert obs.legal_codes().size > 0
    return str(make_bot(spec).act(obs))


# -- medium
def test_medium_sheds_the_heaviest_playable_tile():
    # block, ends 4 | 2; 6:6 is heaviest but fits neither; 6:4 (10) > 4:3 (7) > 2:1 (3)
    obs = position("block", ["6:6", "6:4", "4:3", "2:1", "5:5"], ["4:2"], [(4, 0), (2, 0)])
    assert choice("medium", obs) == "6:4 left"


def test_medium_breaks_equal_pips_by_the_higher_half():
    # 6:3 and 5:4 both count 9 and both fit the 3 | 4 ends: 6:3 has the higher half
    obs = position("block", ["5:4", "6:3", "1:0"], ["4:3"], [(4, 0), (3, 0)])
    assert choice("medium", obs) == "6:3 right"


def test_medium_takes_the_best_score_in_fives():
    # fives, ends 6 | 3 (count 9): 6:5 (heaviest) leaves 5+3 = 8; 6:2 leaves 2+3 = 5 -> 5 points
    obs = position("fives", ["6:5", "6:2", "1:1"], ["6:3"], [(6, 0), (3, 0)], sizes=[3, 7])
    assert choice("medium", obs) == "6:2 left"


def test_medium_counts_the_spinner_in_all_fives():
    # all fives, the spinner 5:5 leads alone (ends 5d | 5d): 5:0 makes 0 + 10 = 10,
    # 6:5 makes 6 + 10 = 16, 5:1 makes 11: the 10 points win over the heavier tile
    obs = position("all_fives", ["6:5", "5:1", "5:0"], ["5:5"], [(5, 1), (5, 1)],
                   spinner=("5:5", 1))
    assert choice("medium", obs) == "5:0 left"


def test_medium_takes_the_heaviest_on_equal_scores():
    # fives, ends 0 | 5 (count 5): 5:0 on the 0 -> 5 + 5 = 10; 5:5 on the 5 -> 0 + 10 = 10;
    # 5:0 on the 5 -> 0 + 0 = 0. Two moves make 10: the heavier 5:5 (listed second)
    obs = position("fives", ["5:0", "5:5", "2:1"], ["4:0", "4:5"], [(0, 0), (5, 0)], sizes=[3, 7])
    assert [str(m) for m in obs.legal_moves()] == ["5:0 left", "5:0 right", "5:5 right"]
    assert choice("medium", obs) == "5:5 right"
    # ends 6 | 5 (count 11): 6:4 -> 4 + 5 = 9, 5:0 -> 6 + 0 = 6: no score, the heaviest
    obs = position("fives", ["5:0", "6:4", "1:0"], ["6:5"], [(6, 0), (5, 0)], sizes=[3, 7])
    assert choice("medium", obs) == "6:4 left"


def test_medium_in_real_play_and_never_replaces():
    m = Match("dominoball", seed=5)
    h = m.new_hand(leader=0)
    bot = make_bot("medium")
    seen_replace = False
    while not h.over:
        obs = h.observe()
        seen_replace |= any(mv.replace for mv in obs.legal_moves())
        mv = bot.act(obs)
        assert not mv.replace
        h.play(mv)
    assert seen_replace


# -- hard, one weight at a time
def test_hard_with_all_weights_zero_sheds_the_heaviest():
    obs = position("block", ["6:6", "6:4", "4:3", "2:1"], ["4:2"], [(4, 0), (2, 0)])
    assert choice("hard:" + ",".join(f"{k}={v}" for k, v in ALL_ZERO.items()), obs) == "6:4 left"


def test_hard_heavy_keeps_no_lone_double_blank_in_kozel():
    # kozel, ends 0 | 1; hand 0:0 and 2:1. Shedding 2:1 leaves the lone 0:0, which
    # counts 25: heavy(2:1) = 3 - 25 = -22; heavy(0:0) = 3 - 3 = 0 -> 0:0, although
    # 2:1 is heavier (and is what the tie-break alone would play)
    obs = position("kozel", ["0:0", "2:1"], ["1:0"], [(1, 0), (0, 0)], sizes=[2, 7, 7, 7])
    assert choice(hard_only("heavy"), obs) == "0:0 right"
    assert choice(hard_only("heavy", 0.0), obs) == "2:1 left"


def test_hard_heavy_in_dominoball_avoids_a_lone_blank_or_six_double():
    # dominoball: a lone 0:0 gives the opponent 5 strikes when it goes out (25 pips)
    obs = position("dominoball", ["1:0", "0:0"], ["4:0"], [(4, 0), (0, 0)], sizes=[2, 7])
    # 1:0 on 0 leaves {0:0}: 1 - 25; 0:0 leaves {1:0}: 1 - 1
    assert choice(hard_only("heavy"), obs) == "0:0 right"
    assert choice(hard_only("heavy", 0.0), obs) == "1:0 right"
    # plain pips: 6:4 (10) over 5:4 (9) over 4:0 (4), playable on the 4
    obs = position("block", ["4:0", "6:4", "5:4"], ["4:2"], [(4, 0), (2, 0)])
    assert choice(hard_only("heavy"), obs) == "6:4 left"


def test_hard_double_plays_the_double_first():
    # block, ends 5 | 3; 6:5 (11) is heavier than 3:3 (6), but the double only fits a 3
    obs = position("block", ["6:5", "3:3", "1:0"], ["5:3"], [(5, 0), (3, 0)])
    assert choice(hard_only("double"), obs) == "3:3 right"
    assert choice(hard_only("double", 0.0), obs) == "6:5 left"


def test_hard_follow_keeps_an_answer():
    # block, ends 4 | 2, hand 6:4, 4:1, 1:0.
    # 6:4 on the 4 -> ends 6 | 2: neither 4:1 nor 1:0 fits -> follow 0
    # 4:1 on the 4 -> ends 1 | 2: 1:0 fits -> follow 1
    obs = position("block", ["6:4", "4:1", "1:0"], ["4:2"], [(4, 0), (2, 0)])
    assert choice(hard_only("follow"), obs) == "4:1 left"
    assert choice(hard_only("follow", 0.0), obs) == "6:4 left"


def test_hard_spread_keeps_many_numbers():
    # block, ends 5 | 0, hand 6:5, 5:2, 2:1.
    # 6:5 leaves 5:2 2:1 -> numbers {5,2,1} = 3; 5:2 leaves 6:5 2:1 -> {6,5,2,1} = 4
    obs = position("block", ["6:5", "5:2", "2:1"], ["5:0"], [(5, 0), (0, 0)])
    assert choice(hard_only("spread"), obs) == "5:2 left"
    assert choice(hard_only("spread", 0.0), obs) == "6:5 left"


def test_hard_void_keeps_the_number_the_opponent_lacks():
    # block, ends 5 | 0; seat 1 passed on 3 (void {3}).
    # 5:3 on the 5 -> ends 3 | 0: seat 1 lacks one end class of two -> void 0.5
    # 6:5 on the 5 -> ends 6 | 0 -> void 0
    obs = position("block", ["6:5", "5:3", "2:2"], ["5:0"], [(5, 0), (0, 0)], void={1: [3]})
    assert choice(hard_only("void"), obs) == "5:3 left"
    assert choice(hard_only("void", 0.0), obs) == "6:5 left"
    # the same with the void on an opponent that does not play next counts half, but decides too
    obs = position("block", ["6:5", "5:3", "2:2"], ["5:0"], [(5, 0), (0, 0)], void={2: [3]},
                   players=3, sizes=[3, 5, 5])
    assert choice(hard_only("void"), obs) == "5:3 left"


# For the lock positions: every 4 but 6:4 is on the line; 6:4 and 6:5 are in
# hand with 0:0; the ends are 6 | 2.
_LOCK_LINE = ["4:4", "4:3", "4:2", "4:1", "4:0", "5:4", "3:2", "6:2"]


def test_hard_lock_closes_an_end_when_lighter():
    # 6:4 on the 6 -> ends 4 | 2: no 4 is unseen (u=0): lock = (1/(1+0) + 1/(1+u2)) / 2
    # 6:5 on the 6 -> ends 5 | 2: u5 = 5 (5:5 5:3 5:2 5:1 5:0) -> (1/6 + 1/(1+u2)) / 2
    # own pips after either move: 11 or 10; the opponent's 7 unseen tiles average about
    # 6 pips each (~40): lighter, so the lock counts + -> 6:4 (6:5 is heavier)
    obs = position("block", ["6:4", "6:5", "0:0"], _LOCK_LINE, [(6, 0), (2, 0)], sizes=[3, 7])
    assert choice(hard_only("lock"), obs) == "6:4 left"
    assert choice(hard_only("lock", 0.0), obs) == "6:5 left"


def test_hard_lock_opens_the_line_when_heavier():
    # now every 5 but 6:5 is on the line and the opponent holds one tile: own pips after
    # the move (10 or 11) are more than its ~5, so locking counts - : 6:5 on the 6
    # leaves the dead 5 (lock high, bad); 6:4 leaves the live 4 -> 6:4 (lighter tile)
    line = ["5:5", "5:3", "5:2", "5:1", "5:0", "5:4", "3:2", "6:2"]
    obs = position("block", ["6:4", "6:5", "0:0"], line, [(6, 0), (2, 0)], sizes=[3, 1])
    assert choice(hard_only("lock"), obs) == "6:4 left"
    assert choice(hard_only("lock", 0.0), obs) == "6:5 left"


def test_hard_partner_does_not_close_the_number_the_partner_lacks():
    # kozel, ends 5 | 0 after the lead 5:0; the partner (seat 2, 7 tiles) passed on 6,
    # so it holds 7 of the 15 unseen tiles without a 6.
    # 6:5 on the 5 -> ends 6 | 0: it follows only with 0:0 1:0 2:0 3:0 4:0 (5 of 15):
    #   1 - C(10,7)/C(15,7) = 0.9814
    # 5:3 on the 5 -> ends 3 | 0: 3:0 3:1 3:2 4:3 and 0:0 1:0 2:0 4:0 (8 of 15):
    #   1 - C(7,7)/C(15,7) = 0.99984
    # Seat 1 (next, 7 of the 20 unseen, no voids) follows 10 of 20 either way (the
    # unseen 3s and 6s are 5 each): 1 - C(10,7)/C(20,7) = 0.99845.
    # partner = P(partner) - P(seat 1): -0.0171 for 6:5, +0.0014 for 5:3 -> 5:3
    hand = ["6:5", "5:3", "6:6", "3:3", "4:1", "2:1", "4:2"]
    obs = position("kozel", hand, ["5:0"], [(5, 0), (0, 0)], sizes=[7, 7, 7, 6], void={2: [6]})
    assert choice(hard_only("partner"), obs) == "5:3 left"
    assert choice(hard_only("partner", 0.0), obs) == "6:5 left"
    f = {r["move"]: r["features"]["partner"] for r in make_bot(hard_only("partner")).explain(obs)}
    assert f["6:5 left"] == pytest.approx(-0.0171, abs=1e-4)
    assert f["5:3 left"] == pytest.approx(0.0014, abs=1e-4)


def test_hard_partner_lets_the_partner_go_out():
    # kozel, ends 6 | 1. The partner (seat 2) holds one tile and passed on every number
    # but 5: its last tile is the unseen 5:5. Seat 1 (next, 5 tiles, no voids) may hold
    # any of the 11 unseen tiles.
    # 6:6 on the 6 -> ends 6 | 1: the partner cannot follow (0); seat 1 follows with one
    #   of 6:4 6:3 4:1 3:1: 1 - C(7,5)/C(11,5) = 0.955 -> partner = 3 x (0 - 0.955) = -2.86
    # 5:1 on the 1 -> ends 6 | 5: the partner goes out (1); seat 1 surely follows (7 of
    #   11 fit, it holds 5) -> partner = 3 x (1 - 1) = 0  -> 5:1, though 6:6 is heavier
    unseen = ["5:5", "5:4", "5:3", "5:2", "5:0", "6:4", "6:3", "4:1", "3:1", "4:4", "3:0"]
    hand = ["6:6", "5:1", "2:0"]
    line = ["6:1"] + [str(Tile(t)) for t in range(28)
                      if str(Tile(t)) not in unseen + hand + ["6:1"]]
    obs = position("kozel", hand, line, [(6, 0), (1, 0)], sizes=[3, 5, 1, 5],
                   void={2: [0, 1, 2, 3, 4, 6]})
    assert choice(hard_only("partner"), obs) == "5:1 right"
    assert choice(hard_only("partner", 0.0), obs) == "6:6 left"
    f = {r["move"]: r["features"]["partner"] for r in make_bot(hard_only("partner")).explain(obs)}
    assert f["5:1 right"] == pytest.approx(0.0)
    assert f["6:6 left"] == pytest.approx(-3 * (1 - 21 / 462))


def test_hard_points_takes_the_score():
    # fives, ends 6 | 3 (count 9): 6:5 -> 5+3 = 8 (0); 6:2 -> 2+3 = 5 (5 points)
    obs = position("fives", ["6:5", "6:2", "1:1"], ["6:3"], [(6, 0), (3, 0)], sizes=[3, 7])
    assert choice(hard_only("points"), obs) == "6:2 left"
    assert choice(hard_only("points", 0.0), obs) == "6:5 left"


def test_hard_reply_leaves_no_easy_score():
    # fives, ends 4 | 3 (count 7). Seat 1 passed on 0-4, so its tiles are among the
    # unseen 5:5, 6:5, 6:6 (all three: it holds 5 tiles, so each is held).
    # 6:4 on the 4 -> ends 6 | 3 = 9: it answers 6:6 -> 12 + 3 = 15 (6:5 -> 8): reply 15.
    # 5:4 on the 4 -> ends 5 | 3 = 8: 5:5 -> 13, 6:5 -> 9: nothing scores: reply 0.
    # Neither move scores now (9, 8) -> 5:4, though 6:4 is heavier.
    obs = position("fives", ["6:4", "5:4", "1:1"], ["4:3"], [(4, 0), (3, 0)], sizes=[3, 5],
                   void={1: [0, 1, 2, 3, 4]})
    assert choice(hard_only("reply"), obs) == "5:4 left"
    assert choice(hard_only("reply", 0.0), obs) == "6:4 left"
    rows = make_bot(hard_only("reply")).explain(obs)
    assert {r["move"]: r["features"]["reply"] for r in rows} == {"6:4 left": -15.0, "5:4 left": 0.0}


# Dominoball replacement: ends 6 | 3 (count 9); the own tiles 6:1 and 3:1 score
# nothing (1 + 3 = 4, 6 + 1 = 7). Five tiles are unseen (the rest is on the
# line): seat 1 holds 2, the boneyard 3, so each is drawn with chance 3/5 x 1/3
# = 1/5. Laid on the current ends: 3:2 -> 6 + 2 = 8, 6:0 -> 0 + 3 = 3,
# 6:4 -> 4 + 3 = 7, 3:0 -> 6 + 0 = 6, 4:3 -> 6 + 4 = 10 (2 strikes). Expected
# gain of a replacement: 2 x 1/5 = 0.4 strikes.
_REPL_UNSEEN = ["3:2", "6:0", "6:4", "3:0", "4:3"]


def _replace_position(repl_used, own_points):
    keep = {Tile.parse(t).id for t in _REPL_UNSEEN + ["6:1", "3:1", "6:3"]}
    line = ["6:3"] + [str(Tile(t)) for t in range(28) if t not in keep]
    return position("dominoball", ["6:1", "3:1"], line, [(6, 0), (3, 0)], sizes=[2, 2], bone=3,
                    repl=[repl_used, 0], points=[own_points, 0])


def test_hard_replace_threshold_decides_a_replacement():
    obs = _replace_position(0, 0)
    assert any(m.replace for m in obs.legal_moves())
    assert choice(hard_only("replace", 0.3), obs) == "replace"          # 0.4 > 0.3, free
    assert choice(hard_only("replace", 0.5), obs) != "replace"          # 0.4 < 0.5
    # the second replacement costs a strike when there is one: 0.4 - 1 < 0
    obs = _replace_position(1, 2)
    assert choice(hard_only("replace", 0.3), obs) != "replace"
    assert choice(hard_only("replace", -0.7), obs) == "replace"         # -0.6 > -0.7
    # ... and nothing when the seat has no strike to lose
    obs = _replace_position(1, 0)
    assert choice(hard_only("replace", 0.3), obs) == "replace"


def test_hard_takes_a_winning_score():
    # fives at 145 points: 6:2 makes 5 and reaches 150, which wins at once, over a
    # heavier tile and whatever reply it leaves
    obs = position("fives", ["6:5", "6:2", "1:1"], ["6:3"], [(6, 0), (3, 0)], sizes=[3, 7],
                   scores=[145, 0])
    assert choice("hard:heavy=50,reply=50", obs) == "6:2 left"
    rows = {r["move"]: r for r in make_bot(hard_only("heavy", 50.0, points=1.0)).explain(obs)}
    assert rows["6:2 left"]["chosen"] and rows["6:2 left"]["features"]["reply"] == 0.0
    assert rows["6:2 left"]["value"] == 1000 + 50 * 8 + 5
    # at 140 the same 5 points do not win: the heavier 6:5 (50 x 11 > 50 x 8 + 5)
    obs = position("fives", ["6:5", "6:2", "1:1"], ["6:3"], [(6, 0), (3, 0)], sizes=[3, 7],
                   scores=[140, 0])
    assert choice("hard:heavy=50", obs) == "6:5 left"


def test_hard_explain_agrees_with_act():
    for obs, _, _ in random_positions(("all_fives", {}), 300, 5)[::7]:
        bot = make_bot("hard")
        rows = bot.explain(obs)
        assert rows[0]["chosen"] and sum(r["chosen"] for r in rows) == 1
        if len(rows) > 1:
            assert rows[0]["code"] == bot.act(obs).code
        for r in rows:
            if r["features"] is not None:
                v = sum(bot.weights[k] * r["features"][k] for k in FEATURES)
                assert r["value"] == pytest.approx(v) or r["value"] > 900  # domino / win bonus
