"""The world search: sample worlds, weigh them, score every move in each.

:func:`search_worlds` draws worlds from the sampler of a
:class:`~dominoai.bots.worlds.Belief` (its ``parts``), weights each by the
belief model ``cfg.belief`` (:func:`world_weight`), and scores every legal
move in it (:func:`score_world`: a rollout per move with the rollout policy
``cfg.rollout_policy``, :mod:`~dominoai.bots.pimc.rollouts`, or the exact
solver). :func:`search_fixed` scores the moves on one known world instead
(the true state: omniscient). Every move is rolled out with the same random
numbers in a world (common random numbers), so their comparison is not
blurred by the rollout's luck.

The options ``resample``, ``fusion`` and ``draw_history`` run the search of
:mod:`~dominoai.bots.pimc.options` instead, chosen once per search call
(:func:`search_worlds`): the loop here knows none of them.

The kernels take the search's state as a few tuples: ``cfg``
(:class:`~dominoai.bots.pimc.settings.SearchSettings`), ``ws`` (the work
arrays, :data:`~dominoai.bots.pimc.settings.Scratch`) and ``model`` (the
play model's tables, :class:`~dominoai.bots.pimc.likelihood.PlayModel`),
each binding the members it uses once at its top.

A world's weight and its scoring (:func:`world_weight`,
:func:`score_world`, the belief models :data:`BELIEFS`) live in
:mod:`~dominoai.bots.pimc.score`, shared with the options' search.
"""

from __future__ import annotations

from numba import njit

from ...engine import fast as F
from ...engine import kernels as K
from ...engine import layout as L
from ..worlds import draw_world, drawn_world_weight
from .likelihood import new_play_model
from .options import resample_counts, search_options, uses_options
from .score import BELIEF_CONSISTENT, BELIEF_PLAY_MODEL, BELIEFS, score_world, world_weight
from .settings import new_scratch

__all__ = ["BELIEFS", "BELIEF_CONSISTENT", "BELIEF_PLAY_MODEL", "world_weight", "score_world",
           "search_worlds", "search_fixed", "shuffle_boneyard", "resample_counts"]

@njit(cache=True)
def search_worlds(p, base, rv, codes, n_worlds, rs, acc, stats, evs, cfg):
    """Sample up to ``n_worlds`` worlds of positive weight (at most
    ``cfg.max_tries * n_worlds`` proposals) and add ``weight * value`` of every
    move in each to ``acc`` (:func:`score_world`). Returns the worlds found.
    With ``cfg.resample > 1``, ``cfg.fusion`` (and ``cfg.exact``) or
    ``cfg.draw_history`` it runs
    :func:`~dominoai.bots.pimc.options.search_options` instead.

    - ``p``: the sampler's tables, :attr:`Belief.parts
      <dominoai.bots.worlds.Belief>`; ``base``: the observing seat's view as
      a state (``Belief.base``, ``int64`` ``(S_SIZE,)``), its seat to move.
    - ``rv``: the rules vector; ``codes``: the legal moves (``int64``, ``(n,)``);
      ``acc``: ``float64`` ``(n,)``, added to.
    - ``rs``: ``uint64`` ``(1,)``, the RNG state (advanced).
    - ``stats``: ``float64`` ``[worlds, proposals, total weight x rollouts]``
      (added to).
    - ``evs``: the hand's events (``int64`` ``(m, 4)``, ``Observation.event_array``),
      read by the ``play_model`` belief (rules without replacements only;
      the caller checks).
    - ``cfg``: :class:`~dominoai.bots.pimc.settings.SearchSettings`.
    """
    ws = new_scratch(codes.shape[0], cfg.max_nodes)
    seat = base[L.S_CUR]
    for s in range(4):
        ws.p0[s] = base[L.S_POINTS + s]
    model = new_play_model(base, evs, rv, cfg, ws, cfg.belief == BELIEF_PLAY_MODEL, n_worlds)
    if uses_options(cfg):
        got, props, wsum = search_options(p, base, rv, codes, n_worlds, rs, acc, cfg, ws, model)
    else:
        got, props, wsum = _sample_and_score(p, base, rv, codes, n_worlds, rs, acc, cfg, ws,
                                             model)
    stats[0] += got
    stats[1] += props
    stats[2] += wsum
    return got


@njit(cache=True)
def _sample_and_score(p, base, rv, codes, n_worlds, rs, acc, cfg, ws, model):
    """The loop of :func:`search_worlds` without options: returns the worlds
    found, the proposals and the total weight times the rollouts."""
    # the parts' and the scratch's arrays the loop uses, bound once
    tiles, allow, caps, hseat, dp, rad = p.tiles, p.allow, p.caps, p.hseat, p.dp, p.rad
    wneed, cls, crad, hkey, hval = p.wneed, p.cls, p.crad, p.hkey, p.hval
    wst, bone, miss = ws.wst, ws.bone, ws.miss
    rollouts, exact, consistent = cfg.rollouts, cfg.exact, cfg.belief == BELIEF_CONSISTENT
    path = F.playout_path(rv)
    seat = base[L.S_CUR]
    max_props = cfg.max_tries * n_worlds
    got = 0
    props = 0
    wsum = 0.0
    while got < n_worlds and props < max_props:
        props += 1
        draw_world(tiles, allow, caps, hseat, dp, rad, base, rs, wst, bone)
        w = drawn_world_weight(p, wst, hseat, wneed, cls, crad, hkey, hval, miss)
        if w > 0.0 and not consistent:
            w = world_weight(w, wst, rv, cfg, model, ws)
        if w <= 0.0:
            continue
        wsum += w * rollouts
        got += 1
        score_world(wst, w, rv, codes, rs, seat, acc, cfg, ws, path, rollouts, exact)
    return got, props, wsum


@njit(cache=True)
def shuffle_boneyard(wst, rs):
    """Reshuffle the tiles still to be drawn, ``wst[S_BONE + S_BONE_POS:
    S_BONE + S_BONE_END]``, in place (Fisher-Yates with ``rs``, ``uint64``
    ``(1,)``): the world a seat that sees every hand, but not the boneyard's
    order, may believe. The tiles drawn so far stay. The undrawn tiles are
    sorted first, so the result depends on their set and ``rs`` only, never
    on the true order."""
    lo = L.S_BONE + wst[L.S_BONE_POS]
    n = wst[L.S_BONE_END] - wst[L.S_BONE_POS]
    for i in range(1, n):           # insertion sort: at most N_TILES tiles
        t = wst[lo + i]
        j = i - 1
        while j >= 0 and wst[lo + j] > t:
            wst[lo + j + 1] = wst[lo + j]
            j -= 1
        wst[lo + j + 1] = t
    for i in range(n - 1, 0, -1):
        j = K.rng_below(rs, i + 1)
        t = wst[lo + i]
        wst[lo + i] = wst[lo + j]
        wst[lo + j] = t


@njit(cache=True)
def search_fixed(st, rv, codes, n_worlds, rs, acc, stats, cfg, hide_boneyard=False):
    """:func:`search_worlds` on one known world ``st`` (``int64``
    ``(S_SIZE,)``, the true state: omniscient), scored ``n_worlds`` times,
    each of weight 1. With ``hide_boneyard`` every world first reshuffles
    the boneyard's undrawn tiles (:func:`shuffle_boneyard`): the hands are
    known, the draw order is not."""
    ws = new_scratch(codes.shape[0], cfg.max_nodes)
    wst, p0 = ws.wst, ws.p0
    rollouts, exact = cfg.rollouts, cfg.exact
    path = F.playout_path(rv)
    seat = st[L.S_CUR]
    for s in range(4):
        p0[s] = st[L.S_POINTS + s]
    for q in range(L.S_SIZE):
        wst[q] = st[q]
    wst[L.S_LOG] = 0
    for _ in range(n_worlds):
        if hide_boneyard:
            shuffle_boneyard(wst, rs)
        score_world(wst, 1.0, rv, codes, rs, seat, acc, cfg, ws, path, rollouts, exact)
    stats[0] += n_worlds
    stats[1] += n_worlds
    stats[2] += n_worlds * rollouts
    return n_worlds
