"""The batched environment's kernels: many games stepped in one call.

Every function is ``@njit(cache=True)`` and works on flat arrays, one row
per game ``g``, grouped in three named tuples (the Python side is
:class:`dominoai.learn.VectorEnv`):

- :class:`Games`, the games and how they are played: ``st`` the engine
  states (``int64``, ``(N, S_SIZE)``, :mod:`dominoai.engine.layout`); ``rs``
  one SplitMix64 state per game (``uint64``, ``(N,)``, keyed by the seed and
  the game's global index, :func:`game_key`; deals, leads by lot, ``easy``'s
  choices and the penalty mode's moves draw from it); ``meta`` per-game
  bookkeeping (``int64``, ``(N, M_SIZE)``, the ``M_*`` offsets); ``hist``
  the optional history (``int64``, ``(N, 2, H)``: slot 0 the game in play,
  slot 1 the last finished one, deals, leaders and every choice; ``H`` = 0
  keeps none); ``rv`` the rules vector; ``cfg`` the settings (``int64``,
  ``(C_SIZE,)``, the ``C_*`` offsets); ``hw`` ``hard``'s weights
  (``float64``, ``(N_WEIGHTS,)``);
- :class:`Outputs`: ``obs`` (``float32``, ``(N, OBS_SIZE)``), ``mask``
  (``bool``, ``(N, N_ACTIONS)``), ``reward`` (``float32``, ``(N, R)``: R = 1
  with a learner seat, the player count in self-play), ``done`` (``bool``,
  ``(N,)``), ``res`` the result of each game finished in the last call
  (``float64``, ``(N, RES_SIZE)``, the ``RES_*`` offsets) and ``final`` its
  last observation (``float32``, ``(N, OBS_SIZE)``);
- :class:`Scratch`: work arrays allocated once per env (:func:`new_scratch`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..bots.pimc.rollouts import medium_move
from ..engine import block2 as B
from ..engine import kernels as K
from ..engine import layout as L
from ..engine import observe as O
from ..engine.encode import F_HAND, F_LINE, F_RAW, F_UNSEEN, F_VOID, N_ACTIONS, OBS_SIZE, RAW_FIELDS, encode_into
from ..engine.observe import O_SIZE, observe_into, state_from_observation
from ..engine.rng import GOLDEN
from ..nets.hardeval import hard_eval_into, hard_scratch
from ..tiles import FULL_MASK, N_PIPS, N_TILES, PIP_MASK

class Games(NamedTuple):
    """The games of a batch and their settings (module docstring)."""
    st: np.ndarray
    rs: np.ndarray
    meta: np.ndarray
    hist: np.ndarray
    rv: np.ndarray
    cfg: np.ndarray
    hw: np.ndarray
    carry: np.ndarray


class Outputs(NamedTuple):
    """What a call writes (module docstring)."""
    obs: np.ndarray
    mask: np.ndarray
    reward: np.ndarray
    done: np.ndarray
    res: np.ndarray
    final: np.ndarray


class Scratch(NamedTuple):
    """Work arrays: a move buffer, an observation array, a state, ``hard``'s
    scratch (``feats``, ``vals``, ``wi``, ``wf``), margins, a deal, a reward
    accumulator and an unused event log (the states log no events)."""
    buf: np.ndarray
    a: np.ndarray
    tmp: np.ndarray
    feats: np.ndarray
    vals: np.ndarray
    wi: np.ndarray
    wf: np.ndarray
    marg: np.ndarray
    perm: np.ndarray
    acc: np.ndarray
    ev: np.ndarray


# ---- cfg offsets
C_PLAYERS = 0
C_MATCH = 1       # 1: a game is a match, 0: a hand
C_SEAT = 2        # the learner's seat, -1: rotating, -2: self-play
C_OPP = 3         # OPP_EASY / OPP_MEDIUM / OPP_HARD
C_ILLEGAL = 4     # 0: an illegal action rejects the step; 1: penalty mode
C_SIGN = 5        # -1 where low is good (Kozel), else 1
C_SCALE = 6       # 0: reward in points; 1: the sign of the margin (-1, 0, 1)
C_BLOCK2 = 7      # 1: the rules are in engine.fast's block2 shape (apply_block2 plays moves)
C_FUSED = 8       # 1: block2 shape, easy or hard opponents, a learner seat: the fused Block step
C_SIZE = 9
OPP_EASY, OPP_MEDIUM, OPP_HARD = 0, 1, 2

# ---- meta offsets
M_SEAT = 0        # the learner's seat in the game in play
M_INDEX = 1       # the env's global index
M_GAMES = 2       # games finished in this env since reset
M_DECIDED = 3     # learner decisions in the game in play
M_SKIPPED = 4     # games finished in the last call with no learner decision
M_SIZE = 8

# ---- res offsets
RES_MARGIN = 0    # the learner side's margin over the game (points, sign turned)
RES_POINTS = 1    # points per side (4): the hand's points, or the match scores
RES_WINNER = 5    # the winning side (the hand's, or the match's), -1 none
RES_SEAT = 6      # the learner's seat in that game
RES_HANDS = 7     # hands played
RES_STATUS = 8    # the last hand's status (1 domino, 2 blocked, 3 cut short)
RES_SIZE = 9

# ---- history layout (per slot)
MAX_HANDS = 64    # hands a history keeps (match mode)
MAX_CHOICES = 48  # choices a history keeps per hand (plays and replacements)
H_NHANDS = 0
H_OVER = 1        # 1 when the history overflowed (no record then)
H_LEADER = 2                        # MAX_HANDS leaders
H_NMOVES = H_LEADER + MAX_HANDS     # MAX_HANDS counts
H_PERM = H_NMOVES + MAX_HANDS       # MAX_HANDS x N_TILES tile ids
H_MOVES = H_PERM + MAX_HANDS * N_TILES  # MAX_HANDS x MAX_CHOICES codes
H_SIZE = H_MOVES + MAX_HANDS * MAX_CHOICES
H_SIZE_HAND = H_MOVES + MAX_CHOICES  # enough for hand mode (one hand)

_ONE = np.int64(1)

#: :func:`dominoai.engine.kernels.apply_move` for rules in the block2 shape
#: on a state that logs no events (the general path's moves when
#: ``C_BLOCK2``): :func:`dominoai.engine.block2.apply`
apply_block2 = B.apply


@njit(cache=True, inline="always")
def _apply(G, x, s, move):
    """Make a legal move in the state ``s`` of a game of ``G``."""
    if G.cfg[C_BLOCK2]:
        B.apply(s, G.rv, move)
    else:
        K.apply_move(s, G.rv, x.ev, move)


@njit(cache=True)
def game_key(seed, index):
    """The RNG state of the game with global index ``index`` (int64 >= 0)
    under ``seed`` (int64): two SplitMix64 mixes of both, so that every
    (seed, index) pair starts its own stream. Returns a ``uint64``."""
    rs = np.zeros(1, np.uint64)
    rs[0] = np.uint64(seed) * GOLDEN
    K.rng_next(rs)
    rs[0] = K.rng_next(rs) ^ (np.uint64(index) * np.uint64(0xD1B54A32D192ED03))
    return K.rng_next(rs)


@njit(cache=True, inline="always")
def _hist_hand(hist, g, perm, leader):
    """Start a new hand in game g's history (slot 0)."""
    if hist.shape[2] == 0:
        return
    h = hist[g, 0]
    i = h[H_NHANDS]
    if i >= MAX_HANDS or H_MOVES + i * MAX_CHOICES + MAX_CHOICES > h.shape[0]:
        h[H_OVER] = 1
        return
    h[H_LEADER + i] = leader
    h[H_NMOVES + i] = 0
    for j in range(N_TILES):
        h[H_PERM + i * N_TILES + j] = perm[j]
    h[H_NHANDS] = i + 1


@njit(cache=True, inline="always")
def _hist_move(hist, g, code):
    if hist.shape[2] == 0:
        return
    h = hist[g, 0]
    i = h[H_NHANDS] - 1
    if h[H_OVER] or i < 0:
        return
    n = h[H_NMOVES + i]
    if n >= MAX_CHOICES:
        h[H_OVER] = 1
        return
    h[H_MOVES + i * MAX_CHOICES + n] = code
    h[H_NMOVES + i] = n + 1


# ---- the fused Block step (C_FUSED): block2-shaped rules, easy or hard
# opponents, a learner seat. The hand lives in registers (a block2.Hand2) from
# the learner's move until the learner decides again or the hand ends; the
# observation and mask are written straight from the state row. Same games,
# states and outputs as the general path (legal_moves, _opponent, apply_block2,
# observe_into, encode_into), choice for choice and draw for draw.
@njit(cache=True, inline="always")
def _fused_scratch(G, x):
    """The arrays ``hard`` needs on the fused path, as one plain tuple:
    the move buffer, an observation array, a state, the weights and
    ``hard``'s scratch."""
    return (x.buf, x.a, x.tmp, G.hw, x.feats, x.vals, x.wi, x.wf)


@njit(cache=True)
def _b2_hard(st, rv, g, F):
    """``hard``'s move for the seat to move in state row g, as
    :func:`_opponent` plays it (the seat's observation only); ``F`` is
    :func:`_fused_scratch`'s tuple."""
    buf, a, tmp, hw, feats, vals, wi, wf = F
    s = st[g]
    n = K.legal_moves(s, rv, buf)
    observe_into(s, rv, s[L.S_CUR], a)
    for q in range(L.S_SIZE):
        tmp[q] = 0
    state_from_observation(a, 2, tmp)
    return buf[hard_eval_into(tmp, rv, a, buf, n, hw, feats, vals, wi, wf)]


@njit(cache=True, inline="always")
def _b2_pick(h, r, hard):
    """The opponent's move in a game whose hand in play is the
    :class:`~dominoai.engine.block2.Hand2` ``h``: the only one, or
    ``easy``'s uniform draw from the RNG state ``r`` (``uint64``, in a
    local); -1 when ``hard`` decides (more than one move: the caller
    stores the hand and calls :func:`_b2_hard`). Returns the next RNG
    state and the move. Integers only: an array passed to a kernel, even
    an inlined one, is a reference counted at every reply."""
    tiles = B.playable(h)
    if hard and B.n_moves(tiles, h.npl, h.e0, h.e1) > 1:
        return r, -_ONE
    return B.easy_move(r, tiles, h.npl, h.e0, h.e1)


@njit(cache=True)
def _b2_run(st, rs, hist, rv, g, seat, v, hard, F):
    """Game g (block2 shape, ``easy`` opponents or ``hard`` ones when
    ``hard``, the learner in ``seat``): the seat to move plays ``v`` (a
    legal code; -1: nothing yet), then the opponent picks and plays until
    the learner can decide or the hand ends (then
    :func:`~dominoai.engine.kernels.finish_hand` scores it and ``st[g,
    S_CUR]`` is -1). With ``easy`` the state row is read once and written
    once; ``hard`` reads it before each of its choices. One game per call:
    :func:`b2_step` plays the batch with the same kernels."""
    if v < 0 and st[g, L.S_CUR] == seat:
        return
    h = B.load(st, (g,))
    r = rs[g]
    if v < 0:  # the opponent decides first (a fresh deal)
        r, v = _b2_pick(h, r, hard)
        if v < 0:
            B.store(st, (g,), h, True)
            v = _b2_hard(st, rv, g, F)
        _hist_move(hist, g, v)
    while True:
        h, status = B.lay(h, v)
        if status or h.cur == seat:
            break
        r, v = _b2_pick(h, r, hard)
        if v < 0:
            B.store(st, (g,), h, True)
            v = _b2_hard(st, rv, g, F)
        _hist_move(hist, g, v)
    B.store(st, (g,), h, True)
    rs[g] = r
    if status:
        K.finish_hand(st[g], rv, status)


def _raw_at(off):
    """Where the observation array's offset ``off`` sits in the vector."""
    return F_RAW + int(np.flatnonzero(RAW_FIELDS == off)[0])


_F_END_PIP, _F_END_KIND, _F_CAND = _raw_at(O.O_END_PIP), _raw_at(O.O_END_KIND), _raw_at(O.O_CAND)
_F_SPIN, _F_SPIN_TILE, _F_LEAD_TILE = _raw_at(O.O_SPIN), _raw_at(O.O_SPIN_TILE), _raw_at(O.O_LEAD_TILE)
_F_NPLAYED, _F_MUST, _F_CUR = _raw_at(O.O_NPLAYED), _raw_at(O.O_MUST), _raw_at(O.O_CUR)
_F_LEADER, _F_SIZES, _F_BONE = _raw_at(O.O_LEADER), _raw_at(O.O_SIZES), _raw_at(O.O_BONE)
_F_SCORE, _F_POINTS, _F_REPL = _raw_at(O.O_SCORE), _raw_at(O.O_POINTS), _raw_at(O.O_REPL)
_F_HAND_NO, _F_CARRY, _F_STATUS = _raw_at(O.O_HAND_NO), _raw_at(O.O_CARRY), _raw_at(O.O_STATUS)
# the fields in between are each one wide and in array order, as b2_outputs assumes
assert _raw_at(O.O_SEAT) == F_RAW and _F_SCORE + 4 == _F_POINTS and _F_POINTS + 4 == _F_REPL
assert _F_STATUS == _F_REPL + 6 and _F_SIZES + 4 == _F_BONE and _F_BONE + 1 == _F_SCORE


@njit(cache=True)
def b2_outputs(st, meta, obs, mask, active, lo, hi, masks):
    """For every ``active`` game g in ``[lo, hi)``: the observation vector
    of its learner seat ``meta[g, M_SEAT]`` into ``obs[g]`` and, when
    ``masks``, the mask of the seat to move into ``mask[g]``, written from
    the state row as ``observe_into`` + ``encode_into`` and ``legal_moves``
    would, for two seats and no replacements. The loop holds the arrays:
    a call per game, or a view of a row, costs reference counting."""
    for g in range(lo, hi):
        if not active[g]:
            continue
        seat = meta[g, M_SEAT]
        own = st[g, L.S_HAND + seat]
        line = st[g, L.S_PLAYED]
        unseen = FULL_MASK & ~own & ~line
        for t in range(N_TILES):
            obs[g, F_HAND + t] = (own >> t) & 1
            obs[g, F_LINE + t] = (line >> t) & 1
            obs[g, F_UNSEEN + t] = (unseen >> t) & 1
        for i in range(2):
            vd = st[g, L.S_VOID + i]
            for p in range(N_PIPS):
                obs[g, F_VOID + N_PIPS * i + p] = (vd >> p) & 1
        for j in range(F_VOID + 2 * N_PIPS, F_RAW):
            obs[g, j] = 0
        cur = st[g, L.S_CUR]
        obs[g, F_RAW] = seat
        for k in range(4):
            obs[g, _F_END_PIP + k] = st[g, L.S_END_PIP + k]
            obs[g, _F_END_KIND + k] = st[g, L.S_END_KIND + k]
            obs[g, _F_SCORE + k] = st[g, L.S_SCORE + k]
            obs[g, _F_POINTS + k] = st[g, L.S_POINTS + k]
        obs[g, _F_CAND] = st[g, L.S_CAND]
        obs[g, _F_CAND + 1] = st[g, L.S_CAND + 1]
        obs[g, _F_SPIN] = st[g, L.S_SPIN]
        obs[g, _F_SPIN_TILE] = st[g, L.S_SPIN_TILE]
        obs[g, _F_LEAD_TILE] = st[g, L.S_LEAD_TILE]
        obs[g, _F_NPLAYED] = st[g, L.S_NPLAYED]
        obs[g, _F_MUST] = st[g, L.S_MUST] if cur == seat else -1
        obs[g, _F_CUR] = cur
        obs[g, _F_LEADER] = st[g, L.S_LEADER]
        obs[g, _F_SIZES] = K.popcount(st[g, L.S_HAND])
        obs[g, _F_SIZES + 1] = K.popcount(st[g, L.S_HAND + 1])
        obs[g, _F_SIZES + 2] = 0
        obs[g, _F_SIZES + 3] = 0
        obs[g, _F_BONE] = st[g, L.S_BONE_END] - st[g, L.S_BONE_POS]
        obs[g, _F_REPL] = st[g, L.S_REPL]
        obs[g, _F_REPL + 1] = st[g, L.S_REPL + 1]
        obs[g, _F_REPL + 2] = 0
        obs[g, _F_REPL + 3] = 0
        obs[g, _F_HAND_NO] = st[g, L.S_HAND_NO]
        obs[g, _F_CARRY] = st[g, L.S_CARRY]
        obs[g, _F_STATUS] = st[g, L.S_STATUS]
        for j in range(_F_STATUS + 1, OBS_SIZE):
            obs[g, j] = 0
        if not masks:
            continue
        for i in range(N_ACTIONS):
            mask[g, i] = False
        if cur < 0:
            continue
        tiles = st[g, L.S_HAND + cur]
        if st[g, L.S_MUST] >= 0:
            tiles &= _ONE << st[g, L.S_MUST]
        if st[g, L.S_NPLAYED] == 0:
            while tiles:
                mask[g, K.lowest_tile(tiles) * 4] = True
                tiles &= tiles - 1
            continue
        e0 = st[g, L.S_END_PIP]
        e1 = st[g, L.S_END_PIP + 1]
        t0 = tiles & PIP_MASK[e0]
        while t0:
            mask[g, K.lowest_tile(t0) * 4] = True
            t0 &= t0 - 1
        if e1 != e0:
            t1 = tiles & PIP_MASK[e1]
            while t1:
                mask[g, K.lowest_tile(t1) * 4 + 1] = True
                t1 &= t1 - 1


@njit(cache=True)
def new_scratch(n_reward):
    """A :class:`Scratch` for rewards of ``n_reward`` columns."""
    feats, vals, wi, wf = hard_scratch()
    return Scratch(np.zeros(L.MAX_MOVES, np.int64), np.zeros(O_SIZE, np.int64),
                   np.zeros(L.S_SIZE, np.int64), feats, vals, wi, wf, np.zeros(4, np.float64),
                   np.zeros(N_TILES, np.int64), np.zeros(n_reward, np.float64), np.zeros((1, 4), np.int64))


@njit(cache=True)
def _deal_hand(st, rs, hist, rv, perm, g):
    """Deal the next hand of game g's match from its RNG and start it
    (``perm``: ``int64`` scratch of ``N_TILES``)."""
    r = rs[g:g + 1]
    n = rv[L.R_PLAYERS]
    # only the dealt tiles need a random order where nobody draws
    K.deal_perm(r, perm, N_TILES if rv[L.R_DRAWING] else n * rv[L.R_HAND_SIZE])
    leader = K.rng_below(r, n)
    got = K.start_hand(st[g], rv, perm, leader)
    _hist_hand(hist, g, perm, got)


@njit(cache=True)
def _fresh_game(st, rs, meta, hist, rv, cfg, perm, g):
    """A fresh match in game g: the learner's seat, then the first hand."""
    K.new_match(st[g], rv)
    st[g, L.S_LOG] = 0
    seat = cfg[C_SEAT]
    if seat == -1:
        seat = (meta[g, M_INDEX] + meta[g, M_GAMES]) % cfg[C_PLAYERS]
    meta[g, M_SEAT] = seat
    meta[g, M_DECIDED] = 0
    if hist.shape[2] > 0:
        hist[g, 0, H_NHANDS] = 0
        hist[g, 0, H_OVER] = 0
    _deal_hand(st, rs, hist, rv, perm, g)


# The general path calls these on the arrays themselves: inlined helpers
# that reached the arrays through the named tuples timed several times the
# engine kernels they call (docs/reports/2026-12-02-learning.md).
@njit(cache=True, inline="always")
def _new_hand(G, x, g):
    _deal_hand(G.st, G.rs, G.hist, G.rv, x.perm, g)


@njit(cache=True, inline="always")
def _new_game(G, x, g):
    for p in range(G.carry.shape[1]):
        G.carry[g, p] = 0.0
    _fresh_game(G.st, G.rs, G.meta, G.hist, G.rv, G.cfg, x.perm, g)


@njit(cache=True, inline="always")
def _take_carry(G, out, g):
    """Add game g's carried reward (hands of its match that ended before
    the learner's first decision) to this step's reward, the step of that
    decision, and clear it."""
    for p in range(G.carry.shape[1]):
        out.reward[g, p] += G.carry[g, p]
        G.carry[g, p] = 0.0


@njit(cache=True, inline="always")
def margins_into(st, rv, sign, pts_off, out):
    """Each side's margin (``float64`` into ``out[:sides]``): its points
    (``st[pts_off + s]``, sign turned by ``sign``) minus the mean of the
    other sides' (the tournament table's ``margin``)."""
    ns = K.n_sides(rv)
    tot = 0.0
    for s in range(ns):
        tot += sign * st[pts_off + s]
    for s in range(ns):
        v = sign * st[pts_off + s]
        out[s] = v - (tot - v) / (ns - 1)


@njit(cache=True, inline="always")
def _scale(v, mode):
    if mode == 1:
        if v > 0:
            return 1.0
        if v < 0:
            return -1.0
        return 0.0
    return v


@njit(cache=True, inline="always")
def _hand_over(G, x, g):
    """Add the hand just finished in game g to ``x.acc``: the learner
    side's margin, or every seat's in self-play."""
    cfg = G.cfg
    margins_into(G.st[g], G.rv, cfg[C_SIGN], L.S_POINTS, x.marg)
    if cfg[C_SEAT] == -2:
        for p in range(cfg[C_PLAYERS]):
            x.acc[p] += _scale(x.marg[K.side_of(G.rv, p)], cfg[C_SCALE])
    else:
        x.acc[0] += _scale(x.marg[K.side_of(G.rv, G.meta[g, M_SEAT])], cfg[C_SCALE])


@njit(cache=True)
def _result(st, meta, hist, rv, cfg, res, final, marg, a, g):
    """Write game g's result into ``res[g]`` and its learner seat's last
    observation into ``final[g]`` (seat 0 in self-play), and keep its
    history."""
    s = st[g]
    seat = meta[g, M_SEAT]
    side = K.side_of(rv, seat) if seat >= 0 else 0
    match = cfg[C_MATCH] == 1
    off = L.S_SCORE if match else L.S_POINTS
    margins_into(s, rv, cfg[C_SIGN], off, marg)
    ns = K.n_sides(rv)
    res[g, RES_MARGIN] = _scale(marg[side], cfg[C_SCALE])
    for k in range(4):
        res[g, RES_POINTS + k] = s[off + k] if k < ns else 0
    res[g, RES_WINNER] = s[L.S_MATCH_WINNER] if match else s[L.S_WINNER]
    res[g, RES_SEAT] = seat
    res[g, RES_HANDS] = s[L.S_HAND_NO]
    res[g, RES_STATUS] = s[L.S_STATUS]
    for j in range(hist.shape[2]):
        hist[g, 1, j] = hist[g, 0, j]
    observe_into(s, rv, seat if seat >= 0 else 0, a)
    encode_into(a, final[g])


@njit(cache=True, inline="always")
def _opponent(G, x, g, n):
    """The move of the built-in level ``cfg[C_OPP]`` for the seat to move
    among ``x.buf[:n]``: ``easy`` uniformly at random from the game's RNG,
    ``medium`` (:func:`~dominoai.bots.pimc.rollouts.medium_move`, the same
    choice as :func:`~dominoai.bots.simple.medium_pick`), ``hard`` with the
    weights ``hw`` on the seat's observation only, as
    :class:`~dominoai.bots.hard.HardBot` plays."""
    buf = x.buf
    if n == 1:
        return buf[0]
    opp = G.cfg[C_OPP]
    s = G.st[g]
    if opp == OPP_EASY:
        return buf[K.rng_below(G.rs[g:g + 1], n)]
    if opp == OPP_MEDIUM:
        return medium_move(s, G.rv, buf, n, x.tmp)
    observe_into(s, G.rv, s[L.S_CUR], x.a)
    tmp = x.tmp
    for q in range(L.S_SIZE):
        tmp[q] = 0
    state_from_observation(x.a, G.rv[L.R_PLAYERS], tmp)
    return buf[hard_eval_into(tmp, G.rv, x.a, buf, n, G.hw, x.feats, x.vals, x.wi, x.wf)]


@njit(cache=True, inline="always")
def _run(G, x, g):
    """Play game g's other seats until the learner decides (returns 0) or the
    game ends (returns 1). Hand ends add to ``x.acc``; in match mode the
    next hand is dealt."""
    selfplay = G.cfg[C_SEAT] == -2
    while True:
        s = G.st[g]
        cur = s[L.S_CUR]
        if cur < 0:
            _hand_over(G, x, g)
            if G.cfg[C_MATCH] == 0 or s[L.S_MATCH_OVER]:
                return 1
            _new_hand(G, x, g)
            continue
        if selfplay or cur == G.meta[g, M_SEAT]:
            return 0
        if G.cfg[C_FUSED]:
            _b2_run(G.st, G.rs, G.hist, G.rv, g, G.meta[g, M_SEAT], -1, G.cfg[C_OPP] == OPP_HARD,
                    _fused_scratch(G, x))
            continue
        n = K.legal_moves(s, G.rv, x.buf)
        code = _opponent(G, x, g, n)
        _hist_move(G.hist, g, code)
        _apply(G, x, s, code)


@njit(cache=True, inline="always")
def _write(G, out, x, g):
    """Observation and mask of the seat that decides next in game g."""
    s = G.st[g]
    seat = s[L.S_CUR] if G.cfg[C_SEAT] == -2 else G.meta[g, M_SEAT]
    observe_into(s, G.rv, seat, x.a)
    encode_into(x.a, out.obs[g])
    mask = out.mask
    for i in range(N_ACTIONS):
        mask[g, i] = False
    n = K.legal_moves(s, G.rv, x.buf)
    for i in range(n):
        mask[g, x.buf[i]] = True


@njit(cache=True, inline="always")
def _settle(G, out, x, g):
    """Run game g to its learner's next decision. A game that ends is
    finished (``out.done[g]``, its result in ``out.res[g]``, its last
    observation in ``out.final[g]``) and replaced by a fresh one, run in
    turn. A fresh game that ends before the learner's first decision is no
    episode: it counts in ``meta[g, M_SKIPPED]`` and its reward is dropped."""
    meta = G.meta
    acc = x.acc
    while True:
        for p in range(acc.shape[0]):
            acc[p] = 0.0
        ended = _run(G, x, g)
        if ended and meta[g, M_DECIDED] == 0 and G.cfg[C_SEAT] != -2:
            meta[g, M_SKIPPED] += 1
            meta[g, M_GAMES] += 1
        elif not ended and meta[g, M_DECIDED] == 0:
            # hands of a fresh match that ended before the learner's first
            # decision: carried to the reward of that decision's step
            for p in range(acc.shape[0]):
                G.carry[g, p] += acc[p]
            return
        else:
            for p in range(acc.shape[0]):
                out.reward[g, p] += acc[p] + G.carry[g, p]
                G.carry[g, p] = 0.0
            if not ended:
                return
            out.done[g] = True
            _result(G.st, meta, G.hist, G.rv, G.cfg, out.res, out.final, x.marg, x.a, g)
            meta[g, M_GAMES] += 1
        _new_game(G, x, g)


@njit(cache=True)
def _settle_game(G, out, x, g, write):
    """:func:`_settle` game g, then (``write``) :func:`_write` its outputs:
    one compiled copy for the calls off the hot path (a reset, the fused
    path's hand ends). The general step inlines the two instead: a call
    passes every array of ``G``, ``out`` and ``x``, a reference count each
    way."""
    _settle(G, out, x, g)
    if write:
        _write(G, out, x, g)


@njit(cache=True)
def b2_step(st, rs, meta, hist, rv, cfg, mask, reward, done, res, final, buf, perm, actions, active,
            penalty, hard, F):
    """The fused step's moves and hand ends (block2 shape, ``easy`` or
    ``hard`` opponents, a learner seat): in every ``active`` game the
    learner plays ``actions[g]`` (an illegal id, in penalty mode, becomes a
    uniformly random legal move from the game's RNG and ``penalty`` is
    subtracted from the reward), then the opponent replies until the learner
    can decide or the hand ends. In one-hand games (``cfg[C_MATCH]`` 0) an
    ended hand is scored as :func:`_settle` does it (the learner side's
    margin is the reward and the result; a game with no learner decision is
    skipped and its reward dropped) and fresh games are dealt and played to
    the learner's first decision; in match games it is left with ``st[g,
    S_CUR]`` -1 for :func:`_settle`. Clears ``reward``, ``done`` and
    ``M_SKIPPED`` of every game.

    The hand lives in registers (a :class:`~dominoai.engine.block2.Hand2`)
    from the learner's move to its next decision, and the loop calls no
    function with an array in the common case (``easy``, the hand going
    on): reference counting of the arrays at each such call cost more than
    the moves themselves."""
    keep = hist.shape[2] > 0
    one_hand = cfg[C_MATCH] == 0
    sign = cfg[C_SIGN]
    scale = cfg[C_SCALE]
    dealt = 2 * rv[L.R_HAND_SIZE]
    for g in range(st.shape[0]):
        reward[g, 0] = 0.0
        done[g] = False
        meta[g, M_SKIPPED] = 0
        if not active[g]:
            continue
        v = actions[g]
        if v < 0 or v >= N_ACTIONS or not mask[g, v]:
            n = K.legal_moves(st[g], rv, buf)
            v = buf[K.rng_below(rs[g:g + 1], n)]
            reward[g, 0] -= penalty
        if keep:
            _hist_move(hist, g, v)
        meta[g, M_DECIDED] += 1
        seat = meta[g, M_SEAT]
        h = B.load(st, (g,))
        r = rs[g]
        write = True  # the hand in h is to be stored at the end
        while True:  # v is laid by h.cur
            h, status = B.lay(h, v)
            if status == 0:
                if h.cur == seat:
                    break
                r, v = _b2_pick(h, r, hard)
                if v < 0:
                    B.store(st, (g,), h, True)
                    v = _b2_hard(st, rv, g, F)
                if keep:
                    _hist_move(hist, g, v)
                continue
            # the hand is over: score it
            B.store(st, (g,), h, True)
            rs[g] = r
            K.finish_hand(st[g], rv, status)
            if not one_hand:
                write = False  # stored; _settle scores it and deals the next hand
                break
            p = sign * st[g, L.S_POINTS + seat]
            m = _scale(p - (sign * (st[g, L.S_POINTS] + st[g, L.S_POINTS + 1]) - p), scale)
            meta[g, M_GAMES] += 1
            if meta[g, M_DECIDED] == 0:
                meta[g, M_SKIPPED] += 1
            else:
                reward[g, 0] += m
                done[g] = True
                res[g, RES_MARGIN] = m
                res[g, RES_POINTS] = st[g, L.S_POINTS]
                res[g, RES_POINTS + 1] = st[g, L.S_POINTS + 1]
                res[g, RES_POINTS + 2] = 0
                res[g, RES_POINTS + 3] = 0
                res[g, RES_WINNER] = st[g, L.S_WINNER]
                res[g, RES_SEAT] = seat
                res[g, RES_HANDS] = st[g, L.S_HAND_NO]
                res[g, RES_STATUS] = st[g, L.S_STATUS]
                for j in range(hist.shape[2]):
                    hist[g, 1, j] = hist[g, 0, j]
                b2_outputs(st, meta, final, mask, active, g, g + 1, False)
            # a fresh game (as _fresh_game deals it), played to the learner's first decision
            K.new_match(st[g], rv)
            st[g, L.S_LOG] = 0
            seat = cfg[C_SEAT]
            if seat == -1:
                seat = (meta[g, M_INDEX] + meta[g, M_GAMES]) % 2
            meta[g, M_SEAT] = seat
            meta[g, M_DECIDED] = 0
            rg = rs[g:g + 1]
            K.deal_perm(rg, perm, dealt)  # only the dealt tiles need a random order: nobody draws
            got = K.start_hand(st[g], rv, perm, K.rng_below(rg, 2))
            if keep:
                hist[g, 0, H_NHANDS] = 0
                hist[g, 0, H_OVER] = 0
                _hist_hand(hist, g, perm, got)
            h = B.load(st, (g,))
            r = rs[g]
            if h.cur == seat:
                break
            r, v = _b2_pick(h, r, hard)
            if v < 0:
                B.store(st, (g,), h, True)
                v = _b2_hard(st, rv, g, F)
            if keep:
                _hist_move(hist, g, v)
        if write:
            B.store(st, (g,), h, True)
            rs[g] = r


@njit(cache=True)
def reset_all(G, out, x, seed, first):
    """Start a fresh game in every row: game g's RNG is :func:`game_key`
    (``seed``, ``first + g``), then it runs to the learner's first decision
    and its observation and mask are written."""
    meta = G.meta
    for g in range(G.st.shape[0]):
        meta[g, M_INDEX] = first + g
        meta[g, M_GAMES] = 0
        meta[g, M_SKIPPED] = 0
        G.rs[g] = game_key(seed, first + g)
        out.done[g] = False
        for p in range(out.reward.shape[1]):
            out.reward[g, p] = 0.0
        _new_game(G, x, g)
        _settle_game(G, out, x, g, not G.cfg[C_FUSED])
    if G.cfg[C_FUSED]:
        n = G.st.shape[0]
        b2_outputs(G.st, meta, out.obs, out.mask, np.ones(n, np.bool_), 0, n, True)


@njit(cache=True)
def first_illegal(actions, active, mask):
    """The first game index whose action (``int64``) is not a legal id in
    ``mask`` (``bool``, ``(N, N_ACTIONS)``) among the ``active`` games
    (``bool``, ``(N,)``); -1 when all are legal."""
    for g in range(actions.shape[0]):
        if active[g]:
            v = actions[g]
            if v < 0 or v >= N_ACTIONS or not mask[g, v]:
                return g
    return -1


@njit(cache=True)
def step_all(G, out, x, actions, active, penalty):
    """One decision in every ``active`` game: ``actions[g]`` (``int64``), a
    legal id of ``out.mask[g]`` (the caller checked it, or penalty mode:
    an illegal id is replaced by a uniformly random legal move from the
    game's RNG and ``penalty`` is subtracted from that seat's reward). Then
    every game runs to the learner's next decision (finished games start
    again) and the outputs are written. Inactive games are left as they
    are, with reward 0 and done False."""
    selfplay = G.cfg[C_SEAT] == -2
    fused = G.cfg[C_FUSED] == 1
    hand_end = fused and G.cfg[C_MATCH] == 0  # one-hand games: the fused hand end
    meta = G.meta
    st, rs, hist, rv, cfg = G.st, G.rs, G.hist, G.rv, G.cfg
    reward, done, res, final = out.reward, out.done, out.res, out.final
    hard = G.cfg[C_OPP] == OPP_HARD
    F = _fused_scratch(G, x)
    if fused:  # the moves and hand ends, then the outputs
        b2_step(st, rs, meta, hist, rv, cfg, out.mask, reward, done, res, final, x.buf, x.perm, actions,
                active, penalty, hard, F)
        if not hand_end:
            for g in range(st.shape[0]):
                if active[g]:
                    _take_carry(G, out, g)
                    if st[g, L.S_CUR] < 0:  # the hand is over: score it, deal the next
                        _settle_game(G, out, x, g, hand_end)  # False here (b2_outputs writes them)
        b2_outputs(st, meta, out.obs, out.mask, active, 0, st.shape[0], True)
        return
    for g in range(G.st.shape[0]):
        for p in range(out.reward.shape[1]):
            out.reward[g, p] = 0.0
        out.done[g] = False
        meta[g, M_SKIPPED] = 0
        if not active[g]:
            continue
        v = actions[g]
        if v < 0 or v >= N_ACTIONS or not out.mask[g, v]:
            s = G.st[g]
            n = K.legal_moves(s, G.rv, x.buf)
            v = x.buf[K.rng_below(G.rs[g:g + 1], n)]
            out.reward[g, s[L.S_CUR] if selfplay else 0] -= penalty
        _hist_move(G.hist, g, v)
        meta[g, M_DECIDED] += 1
        _take_carry(G, out, g)
        _apply(G, x, G.st[g], v)
        _settle(G, out, x, g)
        _write(G, out, x, g)
