"""Sampling: worlds drawn from what the observing seat may believe.

A tile may go to holder ``j`` when ``j`` has a slot after the last void event
of ``j`` that forbids it; the boneyard may hold any unseen tile. The proposal
is *uniform over assignments of the unseen tiles to holders that respect
these allowed holders and the hand sizes* (docs/worlds.md, "Sampling"): the
completion counts of :func:`~.counting.proposal_table` give each tile's
holder with probability proportional to them (no rejection). The boneyard
order is a uniform shuffle.

- Games without drawing (block, kozel, express): every ``N_j`` is equal on
  the proposal's support, so the proposal *is* the posterior; weights are 1.
- Drawing games: a world's weight is ``prod_j N_j`` (0 when inconsistent).
  ``E_q[w f] / E_q[w]`` is the posterior mean of ``f``; :meth:`Belief.sample`
  returns only worlds of positive weight, with their weights, after at most
  ``max_tries`` proposals per world asked for.
- Without inference (``inference=False``) every unseen tile may go to any
  other seat or the boneyard, constrained only by the sizes; weights are 1.

The sampler reads the observation only (its :meth:`Observation.engine_state`
has no hidden tile), so a world never carries the true boneyard order.
Kernels are ``@njit(cache=True)``; the random state is a ``uint64`` array of
one element (``engine.kernels.rng_next``), passed explicitly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...engine import kernels as K
from ...engine import layout as L
from ...tiles import N_TILES
from .counting import HSIZE, build_parts, holder_count

__all__ = ["Belief", "draw_world", "drawn_world_weight", "sample_many", "world_weight",
           "world_weight_of", "slot_counts", "BONE_SCRATCH"]

_ONE = np.int64(1)
#: the length of :func:`draw_world`'s scratch ``bone``: the boneyard in draw
#: order (``N_TILES`` slots), then the tiles still owed to each holder (up to 4)
BONE_SCRATCH = N_TILES + 4


@njit(cache=True)
def _rand01(rs):
    """A uniform ``float64`` in [0, 1) from 53 bits of the generator ``rs``."""
    return np.float64(K.rng_next(rs) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _hand_weight_miss(h, hand, code, slot, p):
    """Count ``N_j`` for a class histogram not in the cache, and store it."""
    hist = np.zeros(max(p.ncls[h], 1), np.int64)
    m = hand
    while m:
        hist[p.cls[h, K.lowest_tile(m)]] += 1
        m &= m - 1
    v = holder_count(h, hist, p)
    if slot >= 0:
        p.hkey[h, slot] = code
        p.hval[h, slot] = v
    return v


@njit(cache=True, inline="always")
def _cached_weight(h, hand, cls, crad, hkey, hval, miss):
    """``N_j`` of holder ``h`` holding ``hand`` from the cache (keyed by the
    class histogram); -1 on a miss, with ``miss[0], miss[1]`` = key, slot
    (slot -1: the cache is full); 0 when a tile has no allowed slot."""
    m = hand
    code = np.int64(0)
    while m:
        c = cls[h, K.lowest_tile(m)]
        m &= m - 1
        if c < 0:
            return 0.0
        code += crad[h, c]
    slot = (code * 2654435761) & (HSIZE - 1)
    miss[0] = code
    for _ in range(HSIZE):
        k = hkey[h, slot]
        if k == code:
            return hval[h, slot]
        if k < 0:
            miss[1] = slot
            return -1.0
        slot = (slot + 1) & (HSIZE - 1)
    miss[1] = -1
    return -1.0


@njit(cache=True, inline="always")
def draw_world(tiles, allow, caps, hseat, dp, rad, base, rs, wst, bone):
    """Draw the hands and the boneyard order of one world into ``wst`` (a copy
    of ``base``) from the proposal (uniform over the assignments that respect
    the allowed holders and the sizes).

    ``tiles`` .. ``rad``: the :class:`~.counting.Parts` fields of those names;
    ``base``: the observer's engine state (``int64``, ``(S_SIZE,)``,
    :meth:`Observation.engine_state`); ``rs``: the generator (``uint64``,
    ``(1,)``, advanced); ``wst``: out, ``int64`` ``(S_SIZE,)``; ``bone``:
    ``int64`` scratch of ``BONE_SCRATCH``. Inlined where called: it runs
    once per world, and a call with its ten arrays cost insane in Kozel
    (600 worlds a decision) a measurable share of its time
    (docs/reports/2026-12-07-compile-and-suite.md)."""
    T = tiles.shape[0]
    H = hseat.shape[0]
    for i in range(L.S_SIZE):
        wst[i] = base[i]
    code = 0
    for h in range(H):
        code += caps[h] * rad[h]
        wst[L.S_HAND + hseat[h]] = 0
        bone[N_TILES + h] = caps[h]
    nb = 0
    for i in range(T):
        x = tiles[i]
        al = allow[i]
        u = _rand01(rs) * dp[i, code]
        chosen = -2
        lastok = -2
        for h in range(H):
            if (al >> h) & 1 and bone[N_TILES + h] > 0:
                wgt = dp[i + 1, code - rad[h]]
                if wgt > 0.0:
                    lastok = h
                    if u < wgt:
                        chosen = h
                        break
                    u -= wgt
        if chosen == -2:
            if (al >> H) & 1 and dp[i + 1, code] > 0.0:
                chosen = -1
            else:
                chosen = lastok
        if chosen >= 0:
            wst[L.S_HAND + hseat[chosen]] |= _ONE << x
            code -= rad[chosen]
            bone[N_TILES + chosen] -= 1
        else:
            bone[nb] = x
            nb += 1
    for i in range(nb - 1, 0, -1):
        j = K.rng_below(rs, i + 1)
        t = bone[i]
        bone[i] = bone[j]
        bone[j] = t
    for j in range(N_TILES):
        wst[L.S_BONE + j] = bone[j] if j < nb else -1
    wst[L.S_BONE_POS] = 0
    wst[L.S_BONE_END] = nb


@njit(cache=True, inline="always")
def drawn_world_weight(p, wst, hseat, wneed, cls, crad, hkey, hval, miss):
    """Weight (``float64``, the product of the ``N_j`` that need counting) of
    the world just drawn into ``wst``; 0.0 as soon as one holder has no way.
    ``p`` is the :class:`~.counting.Parts` (read on a cache miss only) and
    ``hseat`` .. ``hval`` its fields of those names, bound once by the
    caller; ``miss``: ``int64`` scratch of 2."""
    w = 1.0
    for h in range(hseat.shape[0]):
        if wneed[h]:
            hand = wst[L.S_HAND + hseat[h]]
            v = _cached_weight(h, hand, cls, crad, hkey, hval, miss)
            if v < 0.0:
                v = _hand_weight_miss(h, hand, miss[0], miss[1], p)
            w *= v
            if w == 0.0:
                break
    return w


@njit(cache=True)
def sample_many(p, base, rs, n, max_props, out, wout):
    """Up to ``n`` worlds of positive weight into ``out[i]`` (``int64``,
    ``(n, S_SIZE)``) / ``wout[i]`` (``float64``, ``(n,)``) after at most
    ``max_props`` proposals, drawn with the generator ``rs`` (``uint64``,
    ``(1,)``) around the observer's state ``base``; returns ``(worlds,
    proposals)``."""
    tiles, allow, caps, hseat, dp, rad = p.tiles, p.allow, p.caps, p.hseat, p.dp, p.rad
    wneed, cls, crad, hkey, hval = p.wneed, p.cls, p.crad, p.hkey, p.hval
    bone = np.zeros(BONE_SCRATCH, np.int64)
    miss = np.zeros(2, np.int64)
    wst = np.zeros(L.S_SIZE, np.int64)
    k = 0
    props = 0
    while k < n and props < max_props:
        props += 1
        draw_world(tiles, allow, caps, hseat, dp, rad, base, rs, wst, bone)
        w = drawn_world_weight(p, wst, hseat, wneed, cls, crad, hkey, hval, miss)
        if w > 0.0:
            out[k, :] = wst
            wout[k] = w
            k += 1
    return k, props


@njit(cache=True)
def world_weight_of(p, h, wst):
    """``N_j`` (``float64``) of holder ``h`` in world ``wst`` (``int64``,
    ``(S_SIZE,)``) by the sampler's counting, uncached; 0 when a tile of its
    hand has no allowed slot."""
    hand = wst[L.S_HAND + p.hseat[h]]
    hist = np.zeros(max(p.ncls[h], 1), np.int64)
    m = hand
    while m:
        c = p.cls[h, K.lowest_tile(m)]
        m &= m - 1
        if c < 0:
            return 0.0
        hist[c] += 1
    return holder_count(h, hist, p)


@njit(cache=True)
def world_weight(p, wst):
    """``prod N_j`` (``float64``) of a world ``wst`` (``int64``, ``(S_SIZE,)``)
    under the evidence ``p`` (the sampler's counting, cached in ``p``); 0 when
    some hidden tile has no allowed holder."""
    w = 1.0
    for h in range(p.hseat.shape[0]):
        hand = wst[L.S_HAND + p.hseat[h]]
        if p.wneed[h]:
            miss = np.zeros(2, np.int64)
            v = _cached_weight(h, hand, p.cls, p.crad, p.hkey, p.hval, miss)
            if v < 0.0:
                v = _hand_weight_miss(h, hand, miss[0], miss[1], p)
            w *= v
        else:
            m = hand
            while m:
                x = K.lowest_tile(m)
                m &= m - 1
                ok = False
                for i in range(p.tiles.shape[0]):
                    if p.tiles[i] == x and (p.allow[i] >> h) & 1:
                        ok = True
                if not ok:
                    return 0.0
    return w


class Belief:
    """The worlds seat ``obs.seat`` may believe in (see the module docstring).

    :param obs: an :class:`~dominoai.observation.Observation`.
    :param inference: False: every unseen tile may be with any other seat or in
        the boneyard, only the sizes count (an ablation of inference).
    :raises ValueError: the log ends in another seat's draw whose tile is
        still to be played, or no world fits the history.

    >>> from dominoai import Match
    >>> h = Match("block", seed=1).new_hand(leader=0)
    >>> b = Belief(h.observe(0))
    >>> worlds, weights = b.sample(3, seed=7)
    >>> worlds.shape, weights.tolist()
    ((3, 80), [1.0, 1.0, 1.0])
    """

    def __init__(self, obs, inference: bool = True):
        self.obs = obs
        self.rules = obs.rules
        self.inference = bool(inference)
        self.rv = obs.rules_vector
        self.base = obs.engine_state()
        self.parts = build_parts(obs.array, obs.event_array, self.rv, self.inference)
        H = len(self.parts.hseat)
        total = float(self.parts.dp[0, int(np.dot(self.parts.caps[:H], self.parts.rad[:H]))])
        if total <= 0.0:
            raise ValueError("no world fits the public history (an inference bug?)")
        self.support = total
        self.proposals = 0

    @property
    def unweighted(self) -> bool:
        """True when every world has weight 1 (no seat drew or replaced, or no
        inference): the samples are then exact draws from the posterior."""
        return not bool(self.parts.wneed.any())

    def sample(self, n: int, seed=None, max_tries: int = 50):
        """``n`` worlds (fewer only if ``max_tries * n`` proposals found fewer of
        positive weight) as engine states, and their weights.

        :returns: ``(worlds, weights)``: ``int64`` array ``(k, S_SIZE)`` and
            ``float64`` array ``(k,)``.
        """
        rs = np.array([np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]], np.uint64)
        out = np.zeros((n, L.S_SIZE), np.int64)
        w = np.zeros(n, np.float64)
        k, props = sample_many(self.parts, self.base, rs, n, max(1, max_tries) * n, out, w)
        self.proposals += int(props)
        return out[:k], w[:k]

    def weight(self, world: np.ndarray) -> float:
        """The world's weight ``prod N_j`` as the sampler counts it (0: inconsistent)."""
        return float(world_weight(self.parts, np.asarray(world, np.int64)))


def slot_counts(obs, world) -> dict:
    """``{seat: N_j}`` for every other seat that drew or replaced, in ``world``
    (an engine state, ``int64``, ``(S_SIZE,)``) seen from ``obs``: the
    sampler's dynamic program, replacements' precondition included, uncached.
    Their product is :meth:`Belief.weight` when every hidden tile has an
    allowed holder."""
    p = Belief(obs).parts
    out = {}
    for h in range(len(p.hseat)):
        if p.wneed[h]:
            out[int(p.hseat[h])] = float(world_weight_of(p, h, np.asarray(world, np.int64)))
    return out
