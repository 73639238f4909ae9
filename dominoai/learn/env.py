"""The batched environment: ``num_envs`` games stepped together by numba kernels."""
from __future__ import annotations

import numpy as np

from ..bots.base import make_bot
from ..bots.spec import parse_spec
from ..engine import layout as L
from ..engine.encode import N_ACTIONS, OBS_SIZE, encode
from ..engine.fast import in_block2_shape
from ..engine.observe import O_SIZE, observe_into
from ..tiles import N_TILES
from ..errors import InputError, check_int, check_number
from ..game import Match
from ..moves import Move
from ..nets.hardeval import DEFAULT_WEIGHTS
from ..records import record_from_match
from ..rules import PRESETS, Rules, get_rules
from . import kernels as VK

__all__ = ["VectorEnv", "OPPONENTS"]

#: the levels that play the other seats inside the kernels
OPPONENTS = ("easy", "medium", "hard")


class VectorEnv:
    """``num_envs`` independent games of a preset, stepped together.

    A game is one hand (``match=False``) or a whole match (``match=True``).
    The learner plays one seat of each game (``seat``: a seat number, or
    ``"rotate"``: game ``k`` of env ``i`` puts it in seat ``(i + k) %
    players``); the other seats are played inside the kernels by
    ``opponents`` (``"easy"``, ``"medium"``, ``"hard"``, or a ``hard`` spec
    with weights such as ``"hard:void=0"``); partners too. With
    ``opponents=None`` (self-play) every decision of every seat is returned,
    with the seat to move in ``info["seat"]``, for one policy to play all
    seats.

    - ``reset(seed) -> (obs, mask)``; ``step(actions) -> (obs, mask, reward,
      done, info)``.
    - ``obs``: ``float32``, ``(num_envs, OBS_SIZE)``, the learner seat's
      observation vector (:mod:`dominoai.engine.encode`); ``mask``:
      ``bool``, ``(num_envs, N_ACTIONS)``, its legal action ids.
    - ``reward``: ``float32``, ``(num_envs,)`` (self-play: ``(num_envs,
      players)``, one column per seat): the learner side's ``margin`` of the
      hands that ended in the step, in points (strikes in Dominoball): its
      points minus the mean of the other sides', the sign turned where low
      is good (Kozel), as in the tournament table. ``reward="sign"``
      gives the sign of that margin instead (-1, 0 or 1 per hand). In match
      mode it comes at each hand's end; the hands of a match that end
      before the learner's first decision in it (its seat could not play,
      or was not reached) come with the reward of that first decision's
      step, so a match's rewards add up to the margins of its own hands.
    - ``done``: ``bool``, ``(num_envs,)``. A finished game starts again at
      once (the returned ``obs`` is the new game's); ``info`` holds the
      finished games' results (:meth:`step`).

    Each game's RNG is keyed by ``seed`` and its global index (``first_index
    + i``), so the same seed and actions give the same games however the
    batch is split. An illegal action id rejects the whole step
    (``illegal="raise"``: :class:`~dominoai.errors.InputError` naming the
    first bad game and its action, no game changed); ``illegal="penalty"``
    replaces it by a random legal move and subtracts ``penalty`` from the
    reward. ``history=True`` keeps each game's deals and moves for
    :meth:`record`. ``fast_moves`` (default True) plays the moves of rules
    in the block2 shape (two seats, no drawing, spinner, end scoring or
    replacement: Block and Express for two) with a fused copy of the
    engine's move kernel, and with ``easy`` or ``hard`` opponents and a
    learner seat fuses the whole step (the moves, the opponent's choices,
    the next deal, the observation and mask); both give the same games,
    outputs and records. False uses the engine's kernels everywhere.

    A fresh game in which the learner never decides (it cannot play at any
    of its turns before the hand ends: rare) is not an episode; it is played
    out, counted in ``info["skipped"]``, and the next one is dealt.

    :raises InputError: an unknown preset, player count, opponent, seat,
        ``num_envs`` below 1, or a bad option (one line, naming it).
    """

    def __init__(self, variant: str | Rules = "block", num_envs: int = 1024, players: int | None = None,
                 opponents: str | None = "hard", seat: int | str = 0, match: bool = False,
                 reward: str = "points", illegal: str = "raise", penalty: float = 1.0,
                 seed: int = 0, first_index: int = 0, history: bool = False, fast_moves: bool = True):
        if isinstance(variant, Rules):
            rules = variant if players is None else get_rules(variant, players=players)
        else:
            if variant not in PRESETS:
                raise InputError("variant", variant, f"unknown preset {variant!r}; presets are: {', '.join(PRESETS)}")
            try:
                rules = get_rules(variant) if players is None else get_rules(variant, players=players)
            except ValueError as e:
                raise InputError("players", players, str(e)) from None
        self.rules = rules
        self.num_envs = check_int("num_envs", num_envs, 1)
        self.first_index = check_int("first_index", first_index, 0)
        self.match = bool(match)
        n = rules.players
        self._opp_spec = opponents
        self.selfplay = opponents is None
        hw = None
        opp = 0
        if opponents is not None:
            name, params = parse_spec(str(opponents))
            if name not in OPPONENTS:
                raise InputError("opponents", opponents, f"opponents must be one of {', '.join(OPPONENTS)} "
                                 f"or None for self-play (got {opponents!r})")
            if params and name != "hard":
                raise InputError("opponents", opponents, f"opponents: {name} takes no parameters (got {opponents!r})")
            opp = OPPONENTS.index(name)
            if name == "hard":
                hw = make_bot(str(opponents)).weight_vector
        if hw is None:
            hw = DEFAULT_WEIGHTS.copy()
        if self.selfplay:
            seat_code = -2
        elif seat == "rotate":
            seat_code = -1
        else:
            seat_code = check_int("seat", seat, 0, n - 1, what=f"a seat 0..{n - 1} or 'rotate'")
        if reward not in ("points", "sign"):
            raise InputError("reward", reward, f"reward must be 'points' or 'sign' (got {reward!r})")
        if illegal not in ("raise", "penalty"):
            raise InputError("illegal", illegal, f"illegal must be 'raise' or 'penalty' (got {illegal!r})")
        self.penalty = check_number("penalty", penalty)
        self.illegal = illegal
        self.reward_mode = reward
        self.seat = seat
        cfg = np.zeros(VK.C_SIZE, np.int64)
        cfg[VK.C_PLAYERS] = n
        cfg[VK.C_MATCH] = int(self.match)
        cfg[VK.C_SEAT] = seat_code
        cfg[VK.C_OPP] = opp
        cfg[VK.C_ILLEGAL] = int(illegal == "penalty")
        cfg[VK.C_SIGN] = -1 if rules.low_is_good else 1
        cfg[VK.C_SCALE] = int(reward == "sign")
        cfg[VK.C_BLOCK2] = int(bool(fast_moves) and bool(in_block2_shape(rules.vector())))
        cfg[VK.C_FUSED] = int(cfg[VK.C_BLOCK2] == 1 and opp in (VK.OPP_EASY, VK.OPP_HARD) and not self.selfplay)
        self._cfg = cfg
        self._hw = np.ascontiguousarray(hw, np.float64)
        self._rv = rules.vector()
        N = self.num_envs
        self.players = n
        self._st = np.zeros((N, L.S_SIZE), np.int64)
        self._rs = np.zeros(N, np.uint64)
        self._meta = np.zeros((N, VK.M_SIZE), np.int64)
        self.obs = np.zeros((N, OBS_SIZE), np.float32)
        self.mask = np.zeros((N, N_ACTIONS), np.bool_)
        self._reward = np.zeros((N, n if self.selfplay else 1), np.float32)
        self.done = np.zeros(N, np.bool_)
        self._res = np.zeros((N, VK.RES_SIZE), np.float64)
        self.final_obs = np.zeros((N, OBS_SIZE), np.float32)
        hsize = (VK.H_SIZE if self.match else VK.H_SIZE_HAND) if history else 0
        self._hist = np.zeros((N, 2, hsize), np.int64)
        self._all = np.ones(N, np.bool_)
        self._carry = np.zeros((N, self._reward.shape[1]), np.float64)
        self._games = VK.Games(self._st, self._rs, self._meta, self._hist, self._rv, cfg, self._hw, self._carry)
        self._out = VK.Outputs(self.obs, self.mask, self._reward, self.done, self._res, self.final_obs)
        self._scratch = VK.new_scratch(self._reward.shape[1])
        self._seed = check_int("seed", seed, 0)
        self._next_seeds = np.random.default_rng(self._seed)
        self._resets = 0
        self._ready = False

    # ------------------------------------------------------------------ API
    @property
    def observation_size(self) -> int:
        """``OBS_SIZE`` (153): the length of one observation vector."""
        return OBS_SIZE

    @property
    def num_actions(self) -> int:
        """``N_ACTIONS`` (113): the action ids (move codes)."""
        return N_ACTIONS

    def reset(self, seed: int | None = None):
        """Start a fresh game in every env; returns ``(obs, mask)`` (views of
        the env's buffers, overwritten by the next call: copy to keep them).
        ``seed`` None: the constructor's seed at the first reset, then seeds
        drawn from a generator seeded by it, so each reset deals new games
        and a run is reproducible.

        :raises InputError: a seed that is not a non-negative integer.
        """
        if seed is None:
            seed = self._seed if self._resets == 0 else int(self._next_seeds.integers(2**62))
        seed = check_int("seed", seed, 0)
        self._resets += 1
        VK.reset_all(self._games, self._out, self._scratch, np.int64(seed), np.int64(self.first_index))
        self._ready = True
        return self.obs, self.mask

    def step(self, actions, active=None):
        """One decision in every game: ``actions`` (integers, ``(num_envs,)``)
        are action ids (move codes) legal in ``mask``. ``active`` (``bool``,
        ``(num_envs,)``, default all) leaves the other games untouched.

        Returns ``(obs, mask, reward, done, info)``; ``info`` holds arrays of
        ``(num_envs,)`` (meaningful where ``done``): ``margin`` (the finished
        game's margin for the learner side: the hand's, or the whole match's
        scores in match mode; self-play: side 0's), ``points`` (``int64``,
        ``(num_envs, 4)``: the hand's points, or the match scores, per side),
        ``winner`` (the winning side, -1 none), ``learner_seat``, ``hands``
        (hands played) and ``status`` (the last hand's: 1 domino, 2
        blocked, 3 cut short); ``skipped`` (games with no learner decision,
        every env); in self-play ``seat``, the seat to move now.

        :raises InputError: the wrong shape, or an illegal action while
            ``illegal="raise"`` (the message names the first bad game index
            and its action; no game changes).
        :raises RuntimeError: ``step`` before ``reset``.
        """
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        act = np.asarray(actions)
        if act.shape != (self.num_envs,) or not np.issubdtype(act.dtype, np.integer):
            raise InputError("actions", actions, f"actions must be {self.num_envs} integers (got shape "
                             f"{act.shape}, dtype {act.dtype})")
        given = act
        act = act.astype(np.int64, copy=False)  # an unsigned id past int64's range wraps to a negative: illegal
        on = self._all if active is None else np.ascontiguousarray(active, np.bool_)
        if on.shape != (self.num_envs,):
            raise InputError("active", active, f"active must be {self.num_envs} booleans (got shape {on.shape})")
        if self.illegal == "raise":
            g = int(VK.first_illegal(act, on, self.mask))
            if g >= 0:
                legal = np.flatnonzero(self.mask[g]).tolist()
                bad = int(given[g])  # as given, not as wrapped
                raise InputError("actions", bad, f"illegal action {bad} in game {g}; "
                                 f"its legal actions are {legal}; no game was stepped")
        VK.step_all(self._games, self._out, self._scratch, act, on, float(self.penalty))
        reward = self._reward if self.selfplay else self._reward[:, 0]
        return self.obs, self.mask, reward, self.done, self.info()

    def info(self) -> dict:
        """The ``info`` dict of the last :meth:`step` (see there)."""
        res = self._res
        d = {
            "margin": res[:, VK.RES_MARGIN].astype(np.float32),
            "points": res[:, VK.RES_POINTS:VK.RES_POINTS + 4].astype(np.int64),
            "winner": res[:, VK.RES_WINNER].astype(np.int64),
            "learner_seat": res[:, VK.RES_SEAT].astype(np.int64),
            "hands": res[:, VK.RES_HANDS].astype(np.int64),
            "status": res[:, VK.RES_STATUS].astype(np.int64),
            "skipped": self._meta[:, VK.M_SKIPPED].copy(),
        }
        if self.selfplay:
            d["seat"] = self._st[:, L.S_CUR].copy()
        return d

    @property
    def learner_seat(self) -> np.ndarray:
        """The learner's seat in each game in play (``int64``, ``(num_envs,)``;
        self-play: the seat to move)."""
        if self.selfplay:
            return self._st[:, L.S_CUR].copy()
        return self._meta[:, VK.M_SEAT].copy()

    def observe(self, i: int, seat: int) -> np.ndarray:
        """The observation vector (``float32``, ``(OBS_SIZE,)``) of ``seat``
        in game ``i`` now (any seat; for the PettingZoo environment and
        tests).

        :raises InputError: a game index or seat out of range.
        """
        i = check_int("i", i, 0, self.num_envs - 1)
        seat = check_int("seat", seat, 0, self.players - 1)
        a = np.zeros(O_SIZE, np.int64)
        observe_into(self._st[i], self._rv, seat, a)
        return encode(a)

    def _history(self, i: int, finished: bool) -> np.ndarray:
        i = check_int("i", i, 0, self.num_envs - 1)
        if self._hist.shape[2] == 0:
            raise RuntimeError("this env keeps no history: create it with history=True")
        h = self._hist[i, 1 if finished else 0]
        if int(h[VK.H_NHANDS]) == 0:
            raise RuntimeError(f"game {i} has no {'finished ' if finished else ''}game to record yet")
        if h[VK.H_OVER]:
            raise RuntimeError(f"game {i} outgrew the history ({VK.MAX_HANDS} hands of at most "
                               f"{VK.MAX_CHOICES} choices); no record")
        return h

    def choices(self, i: int, finished: bool = False) -> list:
        """The move codes chosen in game ``i`` (every seat's, forced draws
        and passes left out), one list per hand: the game in play, or with
        ``finished=True`` the last one that finished in that env.

        :raises InputError: a game index out of range.
        :raises RuntimeError: as :meth:`record`.
        """
        h = self._history(i, finished)
        return [[int(c) for c in h[VK.H_MOVES + VK.MAX_CHOICES * k:
                                   VK.H_MOVES + VK.MAX_CHOICES * k + int(h[VK.H_NMOVES + k])]]
                for k in range(int(h[VK.H_NHANDS]))]

    def deals(self, i: int, finished: bool = False) -> list:
        """The deals of game ``i``, one ``(perm, leader)`` per hand: ``perm``
        the N_TILES tile ids (seat s holds ``perm[s*hand_size:(s+1)*hand_size]``,
        the rest is the boneyard in draw order), ``leader`` the seat that
        led. Errors as :meth:`choices`."""
        h = self._history(i, finished)
        return [([int(x) for x in h[VK.H_PERM + N_TILES * k:VK.H_PERM + N_TILES * (k + 1)]], int(h[VK.H_LEADER + k]))
                for k in range(int(h[VK.H_NHANDS]))]

    def record(self, i: int, finished: bool = False) -> dict:
        """Game ``i`` as a ``dominoai.record/1`` dict (the game in play, or
        with ``finished=True`` the last one that finished in that env), which
        :func:`dominoai.records.replay` and ``dominoai replay`` accept.

        :raises InputError: a game index out of range.
        :raises RuntimeError: the env keeps no history (``history=False``),
            there is no such game yet, or it outgrew the history (more than
            64 hands, or 48 choices in a hand).
        """
        r = self.rules
        hs, n = r.hand_size, r.players
        m = Match(r, seed=0)
        for (perm, leader), codes in zip(self.deals(i, finished), self.choices(i, finished)):
            hand = m.new_hand([perm[s * hs:(s + 1) * hs] for s in range(n)], perm[n * hs:], leader)
            for c in codes:
                hand.play(Move.from_code(c))
        seat = int(self._res[i, VK.RES_SEAT]) if finished else int(self._meta[i, VK.M_SEAT])
        opp = "self-play" if self.selfplay else str(self._opp_spec)
        seats = [("learner" if s == seat else opp) for s in range(n)]
        return record_from_match(m, seats=seats)
