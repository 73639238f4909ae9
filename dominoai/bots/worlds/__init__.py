"""Worlds: what the insane bot may believe, and exact samplers of it.

The model is docs/worlds.md, the design note. The deck is a uniformly
random order of the 28 tiles; the deal takes the first tiles and every draw
the next ones. Plays are treated as uninformative (their likelihood is 1 when
legal); draws and passes are forced. So the posterior over deck orders is
uniform over the orders that reproduce the public history, and a *world*
(every other seat's hidden hand, plus the boneyard in draw order) is worth
the number of deck orders that lead to it.

Four modules, in the order the data flows:

- :mod:`.evidence`: reading the history. Per other seat, its slots (deal
  positions, draws, replacements), its void events (what it could not hold,
  and when) and the tiles it played from an unknown slot, from the
  observation's public event log (:func:`read_evidence`).
- :mod:`.counting`: ``N_j``, the ways to put a seat's tiles into its slots
  (:func:`count_assignments`, :func:`holder_count`), and the tables the
  sampler draws from (:func:`tile_classes`, :func:`proposal_table`, all of
  it in one :class:`Parts` by :func:`build_parts`).
- :mod:`.sampling`: drawing worlds (:func:`draw_world`, :func:`sample_many`),
  their weights ``prod_j N_j`` (:func:`drawn_world_weight`,
  :func:`world_weight`), and :class:`Belief`, the object a bot uses.
- :mod:`.slots`: given a world, one of its deck orders: which of a seat's
  tiles it was dealt and which it drew when, uniformly among the ``N_j``
  (:func:`sample_slots_into`), for the play model where tiles are drawn.

A consistency checker written apart from all this (its own reading of the
log, a per-tile per-slot check and a bipartite matching) lives in the tests,
``tests/world_checker.py``, so the tests can pit one against the other.

All kernels are ``@njit(cache=True)`` over ``int64``/``float64`` arrays.
Everything the other layers import is re-exported here.
"""

from .counting import (
    HSIZE, MAXC, Parts, build_parts, count_assignments, holder_count, proposal_table,
    tile_classes,
)
from .evidence import MAXG, MAXP, MAXR, MAXV, better_leads, pips_to_tiles, read_evidence
from .sampling import (
    Belief, draw_world, drawn_world_weight, sample_many, slot_counts, world_weight,
    world_weight_of,
)
from .slots import MAX_STATES, acquired_after_into, sample_slots_into

__all__ = [
    "Belief", "Parts", "build_parts", "count_assignments", "holder_count", "tile_classes",
    "proposal_table", "read_evidence", "pips_to_tiles", "better_leads", "draw_world",
    "drawn_world_weight", "sample_many", "world_weight", "world_weight_of", "slot_counts",
    "MAXG", "MAXV", "MAXP", "MAXR", "MAXC", "HSIZE", "sample_slots_into",
    "acquired_after_into", "MAX_STATES",
]
