"""OpenSpiel games for every preset, a resampler backed by our sampler, and
OpenSpiel's search bots as dominoai bots (docs/interop.md).

:func:`register` registers each preset of :mod:`dominoai.rules` as the
Python game ``python_dominoai_<preset>``; its one parameter is ``players``
(the preset's allowed counts), so ``pyspiel.load_game("python_dominoai_draw(players=3)")``
works. One OpenSpiel episode is **one hand** (the first hand of a match):

- chance nodes deal the tiles one by one (seat 0 gets the first
  ``hand_size``, then seat 1, ...; outcome = our tile id, uniform over the
  tiles not yet dealt), then, where the rules lead by lot, pick the leader
  (outcome = seat), and during play every tile drawn from the boneyard
  (a draw or a Dominoball replacement) is a chance node over the tiles not
  yet drawn;
- a player action is our kernel move code (``tile * 4 + end``, the lead uses
  end 0, ``112`` is Dominoball's replacement), so ``num_distinct_actions`` is
  113; forced draws and passes are not actions (the engine's auto-advance);
- returns are points per hand: a seat gets its side's points minus the other
  sides' points (in Kozel, where a recorded point is bad, the negation);
- observation and information-state tensors (``float32``) and strings, from
  the engine's observation kernel (:func:`dominoai.engine.observe.observe_into`);
  the observation tensor is the core encoding
  (:mod:`dominoai.engine.encode`, shared with :mod:`dominoai.learn` and the
  PettingZoo environment), the information-state tensor appends the event log.

``DominoState.resample_from_infostate(player, sampler)`` draws a world the
player may believe from :class:`dominoai.bots.worlds.Belief` (importance
resampled by the world weights in drawing games), so OpenSpiel's ISMCTS runs
on every preset. ``ismcts`` and ``mcts`` are registered as dominoai bots.
"""

from __future__ import annotations

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("dominoai.interop.openspiel needs open_spiel: pip install 'dominoai[interop]'") from e

from dominoai.bots.base import BaseBot, Param, register_bot
from dominoai.bots.worlds import Belief
from dominoai.engine import kernels as K
from dominoai.engine import layout as L
from dominoai.engine.encode import N_ACTIONS, OBS_SIZE, encode_into
from dominoai.engine.observe import O_HAND, O_SIZE, observe_into
from dominoai.moves import Move, events_from_rows
from dominoai.observation import Observation
from dominoai.rules import PRESETS, get_rules
from dominoai.tiles import N_TILES, Tile

__all__ = ["register", "game_name", "load_game", "DominoGame", "DominoState",
           "state_from_observation", "IsmctsBot", "MctsBot", "N_ACTIONS"]

_PREFIX = "python_dominoai_"
_EV_FEATS = 10  # kind one-hot (4), seat one-hot (4), tile id or count, end or pip mask
INFO_SIZE = OBS_SIZE + L.MAX_EVENTS * _EV_FEATS
_UTIL = 1000.0  # a generous bound of |points| in one hand, every preset


def game_name(preset: str) -> str:
    """The OpenSpiel short name of a preset: ``python_dominoai_<preset>``."""
    return _PREFIX + preset


def _game_type(preset: str) -> pyspiel.GameType:
    _, default, (lo, hi), _src = PRESETS[preset]
    two_sides = {p: get_rules(preset, players=p).sides == 2 for p in range(lo, hi + 1)}
    return pyspiel.GameType(
        short_name=game_name(preset),
        long_name=f"dominoai {preset}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.ZERO_SUM if all(two_sides.values())
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": default},
    )


class _Shared:
    """What every state of one game shares (not copied with a state)."""

    def __init__(self, game, rules, sign):
        self.game, self.rules, self.rv, self.sign = game, rules, rules.vector(), sign

    def __deepcopy__(self, memo):
        return self


class DominoGame(pyspiel.Game):
    """One hand of a dominoai preset as an OpenSpiel game (module docstring).

    :raises ValueError: a player count the preset does not allow (one line,
        from :func:`dominoai.rules.get_rules`).
    """

    preset = "draw"

    def __init__(self, params=None):
        params = dict(params or {})
        players = int(params.get("players", PRESETS[self.preset][1]))
        self.rules = get_rules(self.preset, players=players)
        self.rv = self.rules.vector()
        self.sides = self.rules.sides
        self.sign = -1 if self.rules.hand_scoring == "losers_record" else 1
        zero_sum = _game_type(self.preset).utility == pyspiel.GameType.Utility.ZERO_SUM
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=N_TILES,
            num_players=players,
            min_utility=-_UTIL,
            max_utility=_UTIL,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=N_TILES + L.MAX_EVENTS,
        )
        super().__init__(_game_type(self.preset), info, params or {"players": players})
        self.shared = _Shared(self, self.rules, self.sign)

    def new_initial_state(self):
        return DominoState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(perfect)


class _Observer:
    """OpenSpiel's observer: ``tensor`` (float32) and ``dict``; strings."""

    def __init__(self, perfect_recall: bool):
        self.perfect = perfect_recall
        self.tensor = np.zeros(INFO_SIZE if perfect_recall else OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor[:OBS_SIZE]}
        if perfect_recall:
            self.dict["events"] = self.tensor[OBS_SIZE:].reshape(L.MAX_EVENTS, _EV_FEATS)

    def set_from(self, state, player):
        self.tensor.fill(0)
        encode_into(state.observation_array(player), self.tensor[:OBS_SIZE])
        if self.perfect:
            ev = self.dict["events"]
            for i, (kind, seat, x, y) in enumerate(state.event_rows().tolist()):
                ev[i, kind] = 1
                ev[i, 4 + seat] = 1
                ev[i, 8] = x
                ev[i, 9] = y

    def string_from(self, state, player):
        return state.info_string(player) if self.perfect else state.obs_string(player)


class DominoState(pyspiel.State):
    """A state of :class:`DominoGame`: the engine state (``int64``,
    ``(S_SIZE,)``), the event log, and the chance bookkeeping (tiles dealt,
    boneyard positions already drawn by chance)."""

    def __init__(self, game: DominoGame, world: np.ndarray | None = None,
                 events: np.ndarray | None = None):
        super().__init__(game)
        self.g = game.shared
        self.rv = game.rv
        self.players = game.rules.players
        self.st = np.zeros(L.S_SIZE, np.int64)
        self.ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
        self.dealt: list[int] = []
        self.lot = game.rules.first_lead == "lot"
        self.started = False
        self.revealed = 0  # boneyard positions fixed by chance
        self.pending = -1  # a move waiting for the tile it draws
        if world is None:
            K.new_match(self.st, self.rv)
        else:  # a resampled world: play goes on from it
            self.st[:] = world
            n = len(events)
            self.ev[:n] = events  # a sampled world logs no events: the public log goes on
            self.st[L.S_NEVENTS] = n
            self.st[L.S_LOG] = 1
            self.dealt = list(range(game.rules.players * game.rules.hand_size))
            self.started = True
            self.revealed = int(world[L.S_BONE_POS])

    # -- OpenSpiel API
    def current_player(self):
        if not self.started or self.pending >= 0:
            return pyspiel.PlayerId.CHANCE
        cur = int(self.st[L.S_CUR])
        return pyspiel.PlayerId.TERMINAL if cur < 0 else cur

    def _need_deal(self) -> int:
        return self.g.rules.players * self.g.rules.hand_size - len(self.dealt)

    def chance_outcomes(self):
        if self.started:  # a draw: any tile not yet drawn
            lo, hi = L.S_BONE + self.revealed, L.S_BONE + int(self.st[L.S_BONE_END])
            tiles = sorted(int(t) for t in self.st[lo:hi])
        elif self._need_deal() > 0:
            held = set(self.dealt)
            tiles = [t for t in range(N_TILES) if t not in held]
        else:  # the lead by lot
            tiles = list(range(self.players))
        p = 1.0 / len(tiles)
        return [(t, p) for t in tiles]

    def _legal_actions(self, player):
        if player != self.current_player():
            return []
        buf = np.zeros(L.MAX_MOVES, np.int64)
        n = K.legal_moves(self.st, self.rv, buf)
        return sorted(buf[:n].tolist())

    def _apply_action(self, action):
        action = int(action)
        if self.is_chance_node():
            legal = [a for a, _ in self.chance_outcomes()]
            if action not in legal:
                raise ValueError(f"chance outcome {action} is not possible here; outcomes are {legal}")
            if self.started:
                self._draw_chance(action)
            elif self._need_deal() > 0:
                self.dealt.append(action)
                if self._need_deal() == 0 and not self.lot:
                    self._start(-1)
            else:
                self._start(action)
            return
        legal = self._legal_actions(self.current_player())
        if action not in legal:
            raise ValueError(f"illegal action {action} for seat {self.current_player()}; "
                             f"legal actions are {legal}")
        self._move(action)

    def _start(self, leader: int):
        held = set(self.dealt)
        perm = np.array(self.dealt + [t for t in range(N_TILES) if t not in held], np.int64)
        if int(K.start_hand(self.st, self.rv, perm, leader)) < 0:  # pragma: no cover
            raise RuntimeError("the engine could not start the hand")
        self.started = True

    def _move(self, code: int):
        drawing = self.g.rules.drawing
        snap = (self.st.copy(), self.ev.copy()) if drawing else None
        K.apply_move(self.st, self.rv, self.ev, code)
        if drawing and int(self.st[L.S_BONE_POS]) > self.revealed:
            self.st[:], self.ev[:] = snap  # the move draws a tile chance has not chosen yet
            self.pending = code

    def _draw_chance(self, tile: int):
        lo = L.S_BONE + self.revealed
        hi = L.S_BONE + int(self.st[L.S_BONE_END])
        j = lo + int(np.nonzero(self.st[lo:hi] == tile)[0][0])
        self.st[lo], self.st[j] = self.st[j], self.st[lo]
        self.revealed += 1
        code, self.pending = self.pending, -1
        self._move(code)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            if not self.started and self._need_deal() == 0:
                return f"lead by lot: seat {action}"
            return f"{'draw' if self.started else 'deal'} {Tile(int(action))}"
        if action == L.MOVE_REPLACE:
            return "replace"
        if int(self.st[L.S_NPLAYED]) == 0 and not self.is_terminal():
            return f"lead {Tile(action >> 2)}"
        return str(Move.from_code(action))

    def is_terminal(self):
        return self.started and self.pending < 0 and int(self.st[L.S_CUR]) < 0

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self.players
        r = self.g.rules
        pts = [float(self.st[L.S_POINTS + s]) for s in range(r.sides)]
        total = sum(pts)
        return [self.g.sign * (2 * pts[r.side_of(p)] - total) for p in range(self.players)]

    def __str__(self):
        if not self.started:
            return f"dealing: {len(self.dealt)} tiles dealt"
        hands = " | ".join(str(_tiles(self.st[L.S_HAND + s])) for s in range(self.players))
        return f"hands {hands}; events {[str(e) for e in events_from_rows(self.event_rows())]}"

    # -- observations
    def event_rows(self) -> np.ndarray:
        """The public event log: ``int64``, ``(n, 4)`` (engine.layout)."""
        return self.ev[:int(self.st[L.S_NEVENTS])] if self.started else self.ev[:0]

    def observation_array(self, player: int) -> np.ndarray:
        """The engine's observation of ``player`` (``int64``, ``(O_SIZE,)``);
        during the deal only the seat's own tiles so far."""
        a = np.zeros(O_SIZE, np.int64)
        if self.started:
            observe_into(self.st, self.rv, player, a)
        else:
            a[O_HAND] = self._dealt_to(player)
        return a

    def _dealt_to(self, player: int) -> int:
        hs = self.g.rules.hand_size
        m = 0
        for t in self.dealt[player * hs:(player + 1) * hs]:
            m |= 1 << t
        return m

    def obs_string(self, player: int) -> str:
        a = self.observation_array(player)
        return f"p{player} " + " ".join(str(int(x)) for x in a)

    def info_string(self, player: int) -> str:
        if not self.started:
            return f"p{player} dealing {len(self.dealt)} hand {_tiles(self._dealt_to(player))}"
        rows = ";".join(",".join(str(x) for x in r) for r in self.event_rows().tolist())
        a = self.observation_array(player)
        return f"p{player} hand {_tiles(a[O_HAND])} lead {int(self.st[L.S_LEADER])} events {rows}" \
               + (" chance" if self.pending >= 0 else "")

    def resample_from_infostate(self, player_id, probability_sampler=None, seed=None, cache=None):
        """A state ``player_id`` cannot tell from this one, drawn from our
        consistent-world sampler (:class:`dominoai.bots.worlds.Belief`, with
        inference). In drawing games, where worlds are weighted, a batch of
        64 is importance-resampled by weight to 16 worlds. ``cache`` (a dict
        the caller owns, e.g. one search's) keeps the belief and the unused
        worlds of a batch per information state, so repeated calls at one
        root build the belief once; without it each call draws afresh.
        ``probability_sampler`` (OpenSpiel's) is accepted for the API and not
        used; ``seed`` seeds the batch (None: fresh entropy).

        :raises ValueError: the deal is not complete (nothing to resample yet).
        """
        if not self.started or self.pending >= 0:
            raise ValueError("resample_from_infostate: only after the deal, at a player's turn")
        key = (self.g.rules, self.info_string(player_id))
        keep = cache is not None
        if not keep:
            cache = {}
        ent = cache.get(key)
        if ent is None:
            if len(cache) >= 256:
                cache.clear()
            obs = Observation(self.g.rules, self.observation_array(player_id), self.event_rows(), self.rv)
            ent = cache[key] = [Belief(obs, inference=True), []]
        belief, buf = ent
        if not buf:
            if seed is None:
                seed = int(np.random.default_rng().integers(2**62))
            n = 64 if keep else 1 if belief.unweighted else 16
            worlds, w = belief.sample(n, seed=seed)
            if not belief.unweighted:
                pick = np.random.default_rng(seed).choice(len(w), size=16 if keep else 1, p=w / w.sum())
                worlds = worlds[pick]
            buf.extend(worlds)
        return DominoState(self.g.game, buf.pop(), self.event_rows())


def _tiles(mask) -> str:
    m = int(mask)
    return " ".join(str(Tile(t)) for t in range(N_TILES) if m >> t & 1) or "-"


_REGISTERED: dict[str, type] = {}


def register() -> list[str]:
    """Register every preset with OpenSpiel as ``python_dominoai_<preset>``
    (idempotent); returns the names."""
    for preset in PRESETS:
        name = game_name(preset)
        if name not in _REGISTERED:
            cls = type(f"DominoGame_{preset}", (DominoGame,), {"preset": preset, "__module__": __name__})
            globals()[cls.__name__] = cls  # picklable by name
            pyspiel.register_game(_game_type(preset), cls)
            _REGISTERED[name] = cls
    return list(_REGISTERED)


def load_game(spec: str):
    """``pyspiel.load_game`` for a dominoai game string (``"draw(players=3)"``
    or ``"python_dominoai_draw(players=3)"``), after :func:`register`.

    :raises ValueError: one line naming an unknown preset or parameter.
    """
    register()
    s = spec.strip()
    name, _, rest = s.partition("(")
    preset = name[len(_PREFIX):] if name.startswith(_PREFIX) else name
    if preset not in PRESETS:
        raise ValueError(f"unknown dominoai preset {preset!r} in game string {spec!r}; "
                         f"presets are: {', '.join(PRESETS)}")
    params = {}
    for item in filter(None, rest.rstrip(")").split(",")):
        k, eq, v = item.partition("=")
        if k.strip() != "players" or not eq:
            raise ValueError(f"game string {spec!r}: unknown parameter {item.strip()!r}; "
                             f"the only parameter is players")
        try:
            params["players"] = int(v)
        except ValueError:
            raise ValueError(f"game string {spec!r}: players must be an integer (got {v.strip()!r})") from None
    get_rules(preset, **params)  # one-line error for a count the preset refuses
    return pyspiel.load_game(game_name(preset), params)


def state_from_observation(game: DominoGame, obs, seed=None) -> DominoState:
    """A state of ``game`` that ``obs``'s seat cannot tell from the true one
    (a world drawn by our sampler, as :meth:`DominoState.resample_from_infostate`
    draws them), for a search bot to start from.

    :raises ValueError: the observation's rules are not the game's.
    """
    if obs.rules != game.rules:
        raise ValueError(f"the observation is of {obs.rules.preset}, the game of {game.rules.preset}")
    b = Belief(obs, inference=True)
    worlds, w = b.sample(1 if b.unweighted else 16, seed=seed)
    k = 0
    if len(worlds) > 1:
        k = int(np.random.default_rng(seed).choice(len(w), p=w / w.sum()))
    return DominoState(game, worlds[k], np.asarray(obs.event_array))


# ---------------------------------------------------------------- peer bots
class _OpenSpielBot(BaseBot):
    """A bot that searches an OpenSpiel game of the observation's preset."""

    def _game_for(self, obs):
        r = obs.rules
        key = (r.preset, r.players, r)
        if getattr(self, "_key", None) != key:
            register()
            base = get_rules(r.preset, players=r.players)
            if r != base:
                raise ValueError(f"bot {self.name!r} plays the presets as registered with OpenSpiel; "
                                 f"{r.preset} here has changed rules fields")
            self._game = pyspiel.load_game(game_name(r.preset), {"players": r.players})
            self._key = key
            self._bot = self._make(self._game)
        return self._game

    def act(self, observation):
        game = self._game_for(observation)
        legal = observation.legal_codes().tolist()
        if len(legal) == 1:
            return Move.from_code(legal[0])
        state = state_from_observation(game, observation, seed=int(self.rng.integers(2**62)))
        a = int(self._bot.step(state))
        return Move.from_code(a)


@register_bot("ismcts")
class IsmctsBot(_OpenSpielBot):
    """OpenSpiel's ``ISMCTSBot`` (Cowling et al. 2012, as in OpenSpiel's
    ``algorithms/ismcts.py``) with our resampler and random rollouts, on the
    OpenSpiel game of the preset. Plays every preset at its registered rules.

    ``uct_c`` multiplies UCT's exploration term, and the values it is added
    to are the game's returns in points (a Block hand's margin has a
    standard deviation of about 16 points), so the constant is on that
    scale: 10 was the best of 2, 5, 10, 20 and 40 at 1,000 simulations
    against ``insane`` on ``openspiel_block``
    (``docs/reports/2026-12-03-against-ismcts.md``)."""

    name = "ismcts"
    PARAMS = {
        "sims": Param(int, 1000, "simulations per decision", min=1),
        "uct_c": Param(float, 10.0, "UCT exploration constant, on the scale of the returns "
                       "(points)", min=0.0),
        "rollouts": Param(int, 1, "random rollouts per leaf", min=1),
    }

    def _make(self, game):
        rs = np.random.RandomState(self.rng.integers(2**31))
        ev = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=rs)
        bot = ismcts.ISMCTSBot(game, ev, self.uct_c, self.sims, random_state=rs,
                               max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES)
        seeds = np.random.default_rng(self.rng.integers(2**62))
        self._cache: dict = {}
        bot.set_resampler(lambda s, p: s.resample_from_infostate(p, seed=int(seeds.integers(2**62)),
                                                                 cache=self._cache))
        return bot

    def act(self, observation):
        self._game_for(observation)
        self._bot.reset()
        self._cache.clear()  # one search's beliefs
        return super().act(observation)


@register_bot("mcts")
class MctsBot(_OpenSpielBot):
    """OpenSpiel's ``MCTSBot`` (UCT) applied to imperfect information by
    determinization: each decision searches one world drawn by our sampler
    (perfect-information Monte Carlo with one world); ``sims``, ``uct_c``,
    ``rollouts`` as for ``ismcts``, the same defaults: its UCT formula and
    its returns are those of ``ismcts``, so its constant is on the same
    scale (not swept on its own)."""

    name = "mcts"
    PARAMS = dict(IsmctsBot.PARAMS)

    def _make(self, game):
        rs = np.random.RandomState(self.rng.integers(2**31))
        ev = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=rs)
        return mcts.MCTSBot(game, self.uct_c, self.sims, ev, random_state=rs, solve=False)
