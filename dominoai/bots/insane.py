"""The ``insane`` bot (PIMC over consistent worlds) and its cheating twin ``omniscient``.

``insane`` remembers every play, draw and pass of the hand, works out what
each other seat cannot hold (:mod:`dominoai.bots.worlds`), samples worlds
consistent with all of it, plays every legal move out to the end of the hand
in each world, and picks the move with the best weighted mean result.

The value of a rollout is the points the bot's side made in the rest of the
hand minus the points the other sides made (ends scored during play
included; in Kozel, where recorded points are bad, the sign is turned so
that higher is still better for the bot; the partner is on the bot's side).

The search is one numba kernel: for each world, for each candidate move,
copy the world, apply the move (:func:`kernels.apply_move`, no logging) and
roll out (:func:`fast.playout_fast`, or the ``medium`` or ``hard`` policy;
by default ``hard`` in Dominoball and random elsewhere).
Every move is
rolled out with the same random numbers in a world (common random numbers),
so their comparison is not blurred by the rollout's luck. With a
``time_budget`` the kernel runs in chunks of worlds and the clock is read
between chunks only.

``omniscient`` runs the same search on the true state, handed to it by the
tournament through :meth:`OmniscientBot.act_with_state`: a named cheat, for
upper-bound studies only.

>>> from dominoai import Match
>>> from dominoai.bots import make_bot
>>> h = Match("block", seed=2).new_hand(leader=0)
>>> bot = make_bot("insane:worlds=50,seed=1")
>>> h.observe(0).legal_moves().count(bot.act(h.observe(0)))
1
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..engine import fast as F
from ..engine import kernels as K
from ..engine import layout as L
from ..game import Move
from ..engine.observe import O_SIZE, observe_into
from ..observation import Observation
from ..tiles import FULL_MASK, TILE_HIGH, TILE_PIPS
from .base import BaseBot, Param, register_bot
from .hard import HardBot, hard_eval_into, hard_scratch
from .worlds import Belief, draw_world, drawn_world_weight

__all__ = ["InsaneBot", "OmniscientBot", "SearchResult", "POLICIES"]

POLICIES = ("random", "medium", "hard")
_POLICY_ID = {name: i for i, name in enumerate(POLICIES)}


def rollout_policy_id(name: str, rv: np.ndarray) -> int:
    """The rollout policy's kernel id for the rules vector ``rv``: ``auto`` is
    ``hard`` where the rules allow replacements (Dominoball, seed 003) and
    ``random`` elsewhere. Random rollouts misjudge a replacement: an extra
    tile pays off only for a player who looks for scoring ends, which a random
    player does not, so in Dominoball they made insane lose to ``hard``
    (-1.6 strikes per hand; with ``hard`` rollouts +4.0, docs/insane.md)."""
    if name == "auto":
        name = "hard" if rv[L.R_MAX_REPL] > 0 else "random"
    return _POLICY_ID[name]
_PIPS = TILE_PIPS.copy()
_HIGH = TILE_HIGH.copy()
_FULL = np.int64(FULL_MASK)
#: weights of the ``hard`` rollout policy: the hard bot's defaults
HARD_WEIGHTS = HardBot().weight_vector
_HARD_NAMES = tuple(HardBot().weights)   # the order of the weight vector
#: ``hard_<name>``: the hard weights insane's rollouts (policy ``hard``) and
#: its play model use; the defaults and ranges are hard's own; searched only
#: when named (``--space hard_void=0..18``), to keep the default space small
HARD_PARAMS = {"hard_" + k: Param(float, p.default, f"hard's {k} weight in the rollouts and play model",
                                  low=p.low, high=p.high, searched=False)
               for k, p in HardBot.PARAMS.items()}


# ---------------------------------------------------------------- rollouts
@njit(cache=True)
def _medium_move(st, rv, buf, n, scratch):
    """medium's choice among ``buf[:n]`` (best immediate points, then most
    pips, then the higher half; never a replacement), without allocating."""
    best = -1
    bkey = -1
    scoring = rv[L.R_END_SCORING] != L.ENDS_NONE
    seat = st[L.S_CUR]
    sd = K.side_of(rv, seat)
    for i in range(n):
        c = buf[i]
        if c == L.MOVE_REPLACE:
            continue
        t = c >> 2
        pts = 0
        if scoring:
            for q in range(L.S_SIZE):
                scratch[q] = st[q]
            before = scratch[L.S_POINTS + sd]
            K.lay_and_score(scratch, rv, seat, t, c & 3)
            pts = scratch[L.S_POINTS + sd] - before
        key = (pts * 16 + _PIPS[t]) * 8 + _HIGH[t]
        if key > bkey:
            bkey = key
            best = i
    return buf[best if best >= 0 else 0]


@njit(cache=True)
def playout_medium(st, rv, ev, buf, scratch):
    """Play the hand to its end with every seat following ``medium``."""
    moves = 0
    while st[L.S_CUR] >= 0:
        n = K.legal_moves(st, rv, buf)
        K.apply_move(st, rv, ev, _medium_move(st, rv, buf, n, scratch))
        moves += 1
    return moves


@njit(cache=True)
def playout_hard(st, rv, ev, buf, a, w):
    """Play the hand to its end with every seat following ``hard`` (weights ``w``)."""
    moves = 0
    feats, vals, wi, wf = hard_scratch()   # once per rollout rather than per decision
    while st[L.S_CUR] >= 0:
        n = K.legal_moves(st, rv, buf)
        i = 0
        if n > 1:
            observe_into(st, rv, st[L.S_CUR], a)
            i = hard_eval_into(st, rv, a, buf, n, w, feats, vals, wi, wf)
        K.apply_move(st, rv, ev, buf[i])
        moves += 1
    return moves


@njit(cache=True, inline="always")
def _rollout(st, rv, rs, ev, buf, scratch, policy, hw):
    if st[L.S_CUR] < 0:
        return
    if policy == 1:
        playout_medium(st, rv, ev, buf, scratch)
    elif policy == 2:
        playout_hard(st, rv, ev, buf, scratch, hw)
    else:
        F.playout_fast(st, rv, rs, ev)


@njit(cache=True)
def hand_value(st, rv, seat, p0):
    """Points the side of ``seat`` made since ``p0`` (points per side before)
    minus what the other sides made; negated where recorded points are bad
    (Kozel)."""
    own = K.side_of(rv, seat)
    v = 0
    for s in range(K.n_sides(rv)):
        d = st[L.S_POINTS + s] - p0[s]
        if s == own:
            v += d
        else:
            v -= d
    if rv[L.R_TARGET_MODE] == L.TARGET_REACH_LOSES:
        v = -v
    return v


_BIG = 1 << 40
MAX_DEPTH = 72


@njit(cache=True)
def _order_moves(buf, n):
    """Heaviest tile first, the replacement last: good moves early, more cut-offs."""
    for i in range(1, n):
        c = buf[i]
        kc = -1 if c == L.MOVE_REPLACE else _PIPS[c >> 2]
        j = i - 1
        while j >= 0 and (-1 if buf[j] == L.MOVE_REPLACE else _PIPS[buf[j] >> 2]) < kc:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = c


@njit(cache=True)
def solve(stack, bufs, meta, rv, ev, seat, p0, nodes):
    """Exact value (:func:`hand_value` for ``seat``) of the hand in ``stack[0]``
    with every seat playing perfectly on this world: alpha-beta, the seat's
    side maximising and every other side minimising (exact for two sides, the
    "paranoid" value for three or four). Iterative (an explicit stack:
    ``stack`` states, ``bufs`` moves, ``meta`` int64 ``(6, depth)`` scratch).
    ``nodes[0]`` counts nodes; past ``nodes[1]`` the search gives up, sets
    ``nodes[2] = 1`` and returns 0."""
    depth = stack.shape[0]
    nm = meta[0]
    idx = meta[1]
    alpha = meta[2]
    beta = meta[3]
    best = meta[4]
    maxi = meta[5]
    alpha[0] = -_BIG
    beta[0] = _BIG
    d = 0
    v = 0
    descend = True
    while True:
        if descend:
            st = stack[d]
            if st[L.S_CUR] < 0:
                v = hand_value(st, rv, seat, p0)
                descend = False
                continue
            nodes[0] += 1
            if nodes[0] > nodes[1] or d + 1 >= depth:
                nodes[2] = 1
                return 0
            n = K.legal_moves(st, rv, bufs[d])
            _order_moves(bufs[d], n)
            nm[d] = n
            mx = K.side_of(rv, st[L.S_CUR]) == K.side_of(rv, seat)
            maxi[d] = 1 if mx else 0
            best[d] = -_BIG if mx else _BIG
            idx[d] = 0
        else:
            # v is the value of node d: hand it to the parent
            if d == 0:
                return v
            d -= 1
            if maxi[d]:
                if v > best[d]:
                    best[d] = v
                if v > alpha[d]:
                    alpha[d] = v
            else:
                if v < best[d]:
                    best[d] = v
                if v < beta[d]:
                    beta[d] = v
            if alpha[d] >= beta[d] or idx[d] >= nm[d]:
                v = best[d]
                continue
        # the next child of node d
        child = stack[d + 1]
        st = stack[d]
        for q in range(L.S_SIZE):
            child[q] = st[q]
        K.apply_move(child, rv, ev, bufs[d, idx[d]])
        idx[d] += 1
        alpha[d + 1] = alpha[d]
        beta[d + 1] = beta[d]
        d += 1
        descend = True


@njit(cache=True)
def tiles_left(st, rv):
    """Tiles that can still reach the line: every hand, plus the boneyard above
    its reserve in presets that draw."""
    n = 0
    for i in range(rv[L.R_PLAYERS]):
        n += K.popcount(st[L.S_HAND + i])
    if rv[L.R_DRAWING]:
        b = K.bone_left(st) - rv[L.R_RESERVE]
        if b > 0:
            n += b
    return n


@njit(cache=True, inline="always")
def _score_world(wst, w, rv, codes, nc, rollouts, policy, rs, seat, p0, acc, tmp, ev, buf,
                 scratch, rs2, exact, stack, bufs, meta, nodes, vals, hw):
    if exact > 0 and tiles_left(wst, rv) <= exact:
        # solve this world exactly, move by move (full window: values, not just the best)
        solved = True
        for mi in range(nc):
            st0 = stack[0]
            for q in range(L.S_SIZE):
                st0[q] = wst[q]
            K.apply_move(st0, rv, ev, codes[mi])
            nodes[0] = 0
            nodes[2] = 0
            v = solve(stack, bufs, meta, rv, ev, seat, p0, nodes)
            if nodes[2]:
                solved = False
                break
            vals[mi] = v
        if solved:
            for mi in range(nc):
                acc[mi] += w * rollouts * vals[mi]
            return
    for r in range(rollouts):
        sub = K.rng_next(rs)
        for mi in range(nc):
            for q in range(L.S_SIZE):
                tmp[q] = wst[q]
            K.apply_move(tmp, rv, ev, codes[mi])
            rs2[0] = sub
            _rollout(tmp, rv, rs2, ev, buf, scratch, policy, hw)
            acc[mi] += w * hand_value(tmp, rv, seat, p0)


@njit(cache=True)
def rewind_hand(wst, evs, nev, rst):
    """Into ``rst``: the world ``wst`` as it was when its hand was dealt, for
    rules without drawing (each seat's hand now plus the tiles it has played
    in the events ``evs[:nev]``; the line, the hand's points and voids reset;
    the leader to move, with the lead tile forced where the rules force it).
    The match fields are kept: they do not change during a hand."""
    for q in range(L.S_SIZE):
        rst[q] = wst[q]
    first_tile = -1
    for i in range(nev):
        if evs[i, 0] == L.EV_PLAY:
            rst[L.S_HAND + evs[i, 1]] |= np.int64(1) << evs[i, 2]
            if first_tile < 0:
                first_tile = evs[i, 2]
    K.clear_line(rst)
    rst[L.S_LOG] = 0
    rst[L.S_CUR] = rst[L.S_LEADER]
    return first_tile


@njit(cache=True)
def play_likelihood(wst, evs, nev, rv, me, tau, hw, rst, ev, buf, a, feats, vals, wi, wf):
    """How likely the other seats' plays of this hand were in the world
    ``wst`` if each chose by a softmax of ``hard``'s move values (weights
    ``hw``) at temperature ``tau`` (value units; smaller = closer to always
    playing hard's best move): the product over their decisions with more
    than one legal move. Rules without drawing only (a seat's past hands are
    then its hand now plus the tiles it played since). 0.0 if the events do
    not replay in the world."""
    first_tile = rewind_hand(wst, evs, nev, rst)
    if rst[L.S_HAND_NO] == 1 and first_tile >= 0 and (
            rv[L.R_FIRST_LEAD] == L.LEAD_TILE or rv[L.R_FIRST_LEAD] == L.LEAD_HIGHEST_DOUBLE):
        rst[L.S_MUST] = first_tile
    kinds = K.track_kinds(rv)
    logw = 0.0
    for i in range(nev):
        if evs[i, 0] != L.EV_PLAY:
            continue
        s = evs[i, 1]
        t = evs[i, 2]
        e = evs[i, 3]
        if rst[L.S_CUR] != s:
            return 0.0
        lead = rst[L.S_NPLAYED] == 0
        if s != me:
            n = K.legal_moves(rst, rv, buf)
            if n > 1:
                j = -1
                for c in range(n):
                    bc = buf[c]
                    if bc == L.MOVE_REPLACE or (bc >> 2) != t:
                        continue
                    ke = bc & 3
                    if lead or ke == e or (
                            rst[L.S_END_PIP + ke] == rst[L.S_END_PIP + e]
                            and (not kinds or rst[L.S_END_KIND + ke] == rst[L.S_END_KIND + e])):
                        j = c
                        break
                if j < 0:
                    return 0.0
                observe_into(rst, rv, rst[L.S_CUR], a)
                hard_eval_into(rst, rv, a, buf, n, hw, feats, vals, wi, wf)
                vmax = -np.inf
                for c in range(n):
                    if vals[c] > vmax:
                        vmax = vals[c]
                z = 0.0
                for c in range(n):
                    if vals[c] > -np.inf:
                        z += np.exp((vals[c] - vmax) / tau)
                if not vals[j] > -np.inf:
                    return 0.0
                logw += (vals[j] - vmax) / tau - np.log(z)
        K.apply_move(rst, rv, ev, t * 4 + e)
    return np.exp(logw)


@njit(cache=True)
def _scratch(nc, max_nodes):
    """Work arrays of a search: two states, an event log, a move buffer, a
    second RNG, the exact solver's stack, move buffers, bookkeeping, node
    counters (``nodes[1]`` the budget) and per-move values."""
    nodes = np.zeros(3, np.int64)
    nodes[1] = max_nodes
    return (np.zeros(L.S_SIZE, np.int64), np.zeros(L.S_SIZE, np.int64),
            np.zeros((L.MAX_EVENTS, 4), np.int64), np.zeros(L.MAX_MOVES, np.int64),
            np.zeros(1, np.uint64), np.zeros((MAX_DEPTH, L.S_SIZE), np.int64),
            np.zeros((MAX_DEPTH, L.MAX_MOVES), np.int64), np.zeros((6, MAX_DEPTH), np.int64),
            nodes, np.zeros(max(nc, 1), np.int64))


@njit(cache=True)
def search_worlds(p, base, rv, codes, nc, n_worlds, max_props, rollouts, policy, rs, acc, stats,
                  exact, max_nodes, hw, evs, tau):
    """Sample up to ``n_worlds`` worlds of positive weight (at most ``max_props``
    proposals) and add ``weight * value`` of every move in each to ``acc``.
    ``stats``: float64 [worlds, proposals, total weight x rollouts] (added to).
    ``exact``: solve a world exactly (:func:`solve`) instead of rolling out
    when at most this many tiles can still be played (:func:`tiles_left`;
    0: never); a world whose
    solve passes ``max_nodes`` nodes for a move is rolled out instead.
    ``policy``: 0 random, 1 medium, 2 hard (weights ``hw``). ``tau`` > 0: each
    world's weight is also multiplied by :func:`play_likelihood` of the hand's
    events ``evs`` (int64, ``(n, 4)``) at that temperature (rules without
    drawing only; the caller checks)."""
    tiles, allow, caps, hseat, dp, rad = p.tiles, p.allow, p.caps, p.hseat, p.dp, p.rad
    wneed, cls, crad, hkey, hval = p.wneed, p.cls, p.crad, p.hkey, p.hval
    seat = base[L.S_CUR]
    p0 = np.zeros(4, np.int64)
    for s in range(4):
        p0[s] = base[L.S_POINTS + s]
    wst = np.zeros(L.S_SIZE, np.int64)
    bone = np.zeros(32, np.int64)
    miss = np.zeros(2, np.int64)
    tmp, scratch, ev, buf, rs2, stack, bufs, meta, nodes, vals = _scratch(nc, max_nodes)
    nev = evs.shape[0]
    lfeats, lvals, wi, wf = hard_scratch()
    got = 0
    props = 0
    wsum = 0.0
    while got < n_worlds and props < max_props:
        props += 1
        draw_world(tiles, allow, caps, hseat, dp, rad, base, rs, wst, bone)
        w = drawn_world_weight(p, wst, hseat, wneed, cls, crad, hkey, hval, miss)
        if w > 0.0 and tau > 0.0:
            w *= play_likelihood(wst, evs, nev, rv, seat, tau, hw, tmp, ev, buf, scratch,
                                 lfeats, lvals, wi, wf)
        if w <= 0.0:
            continue
        got += 1
        wsum += w * rollouts
        _score_world(wst, w, rv, codes, nc, rollouts, policy, rs, seat, p0, acc, tmp, ev, buf,
                     scratch, rs2, exact, stack, bufs, meta, nodes, vals, hw)
    stats[0] += got
    stats[1] += props
    stats[2] += wsum
    return got


@njit(cache=True)
def search_fixed(st, rv, codes, nc, n_worlds, rollouts, policy, rs, acc, stats, exact,
                 max_nodes, hw):
    """:func:`search_worlds` on one known world ``st`` (omniscient), repeated
    ``n_worlds`` times."""
    seat = st[L.S_CUR]
    p0 = np.zeros(4, np.int64)
    for s in range(4):
        p0[s] = st[L.S_POINTS + s]
    wst = st.copy()
    wst[L.S_LOG] = 0
    tmp, scratch, ev, buf, rs2, stack, bufs, meta, nodes, vals = _scratch(nc, max_nodes)
    for _ in range(n_worlds):
        _score_world(wst, 1.0, rv, codes, nc, rollouts, policy, rs, seat, p0, acc, tmp, ev, buf,
                     scratch, rs2, exact, stack, bufs, meta, nodes, vals, hw)
    stats[0] += n_worlds
    stats[1] += n_worlds
    stats[2] += n_worlds * rollouts
    return n_worlds


# ---------------------------------------------------------------- the bots
class SearchResult:
    """What one decision found: ``moves`` (codes), ``values`` (weighted mean
    value per move, points), ``worlds`` searched, ``proposals`` sampled,
    ``seconds`` spent, and the chosen ``move``."""

    __slots__ = ("moves", "values", "worlds", "proposals", "seconds", "move")

    def __init__(self, moves, values, worlds, proposals, seconds, move):
        self.moves, self.values, self.worlds = moves, values, worlds
        self.proposals, self.seconds, self.move = proposals, seconds, move

    def table(self) -> list:
        """``[(Move, value), ...]`` best first."""
        order = np.argsort(-self.values, kind="stable")
        return [(Move.from_code(int(self.moves[i])), float(self.values[i])) for i in order]

    def __repr__(self) -> str:
        return (f"<SearchResult {Move.from_code(self.move)} over {self.worlds} worlds "
                f"({self.proposals} proposals) in {self.seconds * 1e3:.2f} ms>")


_COMMON = {
    "worlds": Param(int, 200, "worlds sampled per decision", min=1, low=25, high=1600, log=True),
    "rollouts": Param(int, 1, "rollouts per move per world", min=1, low=1, high=4),
    "rollout_policy": Param(str, "auto", "policy of every seat in the rollouts: "
                            "random (uniform legal moves), medium (heaviest tile / best "
                            "immediate score), hard (the hard bot's evaluation with the "
                            "weights hard_<name>; much slower) or auto (hard where the rules allow "
                            "replacements, i.e. Dominoball; random elsewhere)",
                            choices=POLICIES + ("auto",)),
    "time_budget": Param(float, 0.0, "seconds per decision, 0 = no limit; anytime: the "
                         "search stops between worlds once the budget is spent", min=0.0),
    "exact": Param(int, 0, "solve a world exactly (alpha-beta, instead of rollouts) once "
                   "at most this many tiles can still be played (hands plus drawable "
                   "boneyard); 0 = never", min=0, low=0, high=12),
    "max_nodes": Param(int, 20000, "alpha-beta nodes per move and world before falling back "
                       "to rollouts", min=1),
}


class _SearchBot(BaseBot):
    """Shared parameters and the chunked, time-budgeted search loop."""

    PARAMS = dict(_COMMON)
    #: proposals per requested world at most (drawing games reject worlds of weight 0)
    MAX_TRIES = 50

    def __init__(self, seed=None, **params):
        super().__init__(seed=seed, **params)
        self.last: SearchResult | None = None

    def _codes(self, obs: Observation) -> np.ndarray:
        codes = obs.legal_codes()
        if len(codes) == 0:
            raise ValueError(f"seat {obs.seat} has no move to make")
        return np.ascontiguousarray(codes, np.int64)

    def _run(self, codes, chunk_fn) -> SearchResult:
        """Call ``chunk_fn(n_worlds, rs, acc, stats)`` until ``worlds`` worlds are
        done or the time budget is spent (checked between chunks)."""
        t0 = time.perf_counter()
        nc = len(codes)
        acc = np.zeros(nc, np.float64)
        stats = np.zeros(3, np.float64)
        rs = np.array([self.rng.integers(1, 2**63, dtype=np.int64)], np.uint64)
        target = self.worlds
        budget = self.time_budget
        if budget <= 0:
            chunk_fn(target, rs, acc, stats)
        else:
            chunk = 8
            done = 0
            while done < target:
                n = min(chunk, target - done)
                got = chunk_fn(n, rs, acc, stats)
                done += n
                if got == 0 and stats[1] >= self.MAX_TRIES * target:
                    break
                el = time.perf_counter() - t0
                if el >= budget:
                    break
                per = el / max(done, 1)
                # aim to read the clock about ten more times within the budget
                chunk = int(max(1, min(target - done, (budget - el) / per / 10 if per > 0 else 64)))
        values = acc / stats[2] if stats[2] > 0 else acc
        best = int(np.argmax(values)) if stats[2] > 0 else 0
        res = SearchResult(codes.copy(), values, int(stats[0]), int(stats[1]),
                           time.perf_counter() - t0, int(codes[best]))
        self.last = res
        return res


@register_bot("insane")
class InsaneBot(_SearchBot):
    """PIMC over consistent worlds: every legal move (Dominoball's replacement
    included) rolled out to the end of the hand in every sampled world.

    Parameters (defaults): ``worlds`` (200), ``rollouts`` per move per world
    (1), ``rollout_policy`` (``auto``: ``hard`` in Dominoball, ``random``
    elsewhere; or ``random``, ``medium``, ``hard`` everywhere),
    ``time_budget`` seconds per decision (0: no limit), ``inference`` (true;
    false: worlds respect only the hand sizes and the seen tiles),
    ``policy_weight`` (4.0: weight each world by the likelihood of the other
    seats' plays under a softmax of ``hard``'s values at that temperature,
    where no tile is drawn; 0 = off, else at least 0.1), ``exact``
    (0: never; else solve a world by alpha-beta instead of rolling out once at
    most that many tiles can still be played, hands and drawable boneyard),
    ``max_nodes`` (20000: alpha-beta nodes per move and world before falling
    back to rollouts), ``hard_<name>`` (the ``hard`` weights its rollouts
    and play model use, e.g. ``hard_void``; defaults: hard's own), ``seed``.
    """

    name = "insane"
    PARAMS = dict(_COMMON, inference=Param(bool, True, "use what the public history says each "
                                                          "seat cannot hold"),
                  policy_weight=Param(float, 4.0, "weight each world by how likely the other "
                                      "seats' plays were under a softmax of hard's move values "
                                      "at this temperature (value units; smaller trusts the "
                                      "model more); 0 = off, else at least 0.1; ignored where "
                                      "tiles are drawn",
                                      min=0.0, low=0.25, high=16.0, log=True),
                  **HARD_PARAMS)

    def __init__(self, seed=None, **params):
        super().__init__(seed=seed, **params)
        if 0.0 < self.policy_weight < 0.1:
            # exp(value / tau) underflows: most worlds would get weight 0
            raise ValueError(f"bot 'insane': parameter policy_weight must be 0 (off) or at "
                             f"least 0.1 (got {self.policy_weight})")
        #: decisions searched without inference because no world of positive
        #: weight was found with it (should stay 0; a safety net for tournaments)
        self.fallbacks = 0
        #: the hard weights of the rollouts and the play model (``hard_<name>``)
        self.hard_weights = np.array([float(self.params["hard_" + k]) for k in _HARD_NAMES], np.float64)

    def analyze(self, obs: Observation) -> SearchResult:
        """Search ``obs`` and return the per-move values (see :class:`SearchResult`)."""
        codes = self._codes(obs)
        try:
            belief = Belief(obs, self.inference)
        except ValueError:
            if not self.inference:
                raise
            belief = None
        res = self._search(belief, codes) if belief is not None else None
        if res is None or res.worlds == 0:
            if not self.inference:
                return res
            self.fallbacks += 1
            res = self._search(Belief(obs, False), codes)
        return res

    def _search(self, belief: Belief, codes: np.ndarray) -> SearchResult:
        p, base, rv = belief.parts, belief.base, belief.rv
        policy = rollout_policy_id(self.rollout_policy, rv)
        rollouts = self.rollouts
        tries = self.MAX_TRIES
        exact, max_nodes = self.exact, self.max_nodes

        tau = self.policy_weight
        if tau > 0 and (rv[L.R_DRAWING] or rv[L.R_MAX_REPL]):
            tau = 0.0   # a past hand is not known from the hand now where tiles are drawn
        evs = np.ascontiguousarray(belief.obs.event_array, np.int64).reshape(-1, 4)
        hw = self.hard_weights

        def chunk(n, rs, acc, stats):
            return search_worlds(p, base, rv, codes, len(codes), n, tries * n, rollouts, policy,
                                 rs, acc, stats, exact, max_nodes, hw, evs, float(tau))

        return self._run(codes, chunk)

    def act(self, observation: Observation) -> Move:
        codes = self._codes(observation)
        if len(codes) == 1:
            self.last = None
            return Move.from_code(int(codes[0]))
        return Move.from_code(self.analyze(observation).move)


@register_bot("omniscient")
class OmniscientBot(_SearchBot):
    """The insane search on the true world: a named cheat for upper-bound
    studies. The tournament hands it the state with
    :meth:`act_with_state`; ``act`` alone refuses. ``worlds`` x ``rollouts``
    rollouts per move, all on the true world (with ``rollout_policy=medium``
    they are all equal: use ``worlds=1``)."""

    name = "omniscient"
    PARAMS = dict(_COMMON)
    #: the harness must call ``act_with_state(observation, state)``
    needs_state = True

    def act(self, observation: Observation) -> Move:
        raise TypeError("omniscient cheats by design: it needs the true state, "
                        "call act_with_state(observation, state)")

    def analyze_with_state(self, obs: Observation, state: np.ndarray) -> SearchResult:
        st = np.array(state, np.int64).copy()
        if st.shape != (L.S_SIZE,):
            raise ValueError(f"state must be an int64 engine state of shape ({L.S_SIZE},)")
        if int(st[L.S_CUR]) != obs.seat or int(st[L.S_HAND + obs.seat]) != int(obs.array[1]):
            raise ValueError("the state does not match the observation (seat to move or its hand)")
        st[L.S_LOG] = 0
        codes = self._codes(obs)
        rv = obs.rules_vector
        policy = rollout_policy_id(self.rollout_policy, rv)
        rollouts = self.rollouts

        exact, max_nodes = self.exact, self.max_nodes

        def chunk(n, rs, acc, stats):
            return search_fixed(st, rv, codes, len(codes), n, rollouts, policy, rs, acc, stats,
                                exact, max_nodes, HARD_WEIGHTS)

        return self._run(codes, chunk)

    def act_with_state(self, observation: Observation, state: np.ndarray) -> Move:
        """The move for ``observation`` given the true engine ``state`` (int64,
        ``(S_SIZE,)``, e.g. ``match.state_copy()``; it is copied, never changed)."""
        codes = self._codes(observation)
        if len(codes) == 1:
            self.last = None
            return Move.from_code(int(codes[0]))
        return Move.from_code(self.analyze_with_state(observation, state).move)
