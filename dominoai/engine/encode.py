"""The observation vector and the action ids that agents learn from, as kernels.

One encoding serves the batched environment (:mod:`dominoai.learn`), the
PettingZoo environment and the OpenSpiel games (:mod:`dominoai.interop`).
It reads only an observation array (``int64``, ``(O_SIZE,)``, filled by
:func:`dominoai.engine.observe.observe_into`), so it cannot see a hidden tile.

The vector (``float32``, shape ``(OBS_SIZE,)`` = 153), field by field:

=============  =====  ========================================================
slice          width  content
=============  =====  ========================================================
``0:28``       28     own tiles: 1 at tile id t when the seat holds tile t
``28:56``      28     the line: 1 for every tile already played
``56:84``      28     unseen tiles: neither held nor played (other hands and
                      the boneyard together)
``84:112``     4 x 7  voids: ``84 + 7*i + p`` is 1 when seat i is publicly
                      known not to hold pip p now (seats past the player
                      count are 0)
``112:153``    41     the other observation fields as plain numbers, in the
                      order of :data:`RAW_FIELDS` (e.g. ``112`` the observing
                      seat, ``113:117`` the pip of each end, -1 closed)
=============  =====  ========================================================

The layout's version is :data:`ENCODING_VERSION` (1).

Action ids are the engine's move codes, ``N_ACTIONS`` = 113 of them:
``tile * 4 + end`` (end 0 left, 1 right, 2 up, 3 down; the lead is listed
with end 0) and ``112`` for Dominoball's replacement. The legal ids of a
state are :func:`dominoai.engine.kernels.legal_moves`'s list, where a tile
that fits two equivalent ends is listed once, at the lower end.

Kernels only (``@njit(cache=True)``), nothing from the facade.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import kernels as K
from . import layout as L
from . import observe as O
from ..tiles import N_PIPS, N_TILES
from .observe import O_HAND, O_LINE, O_SIZE, O_UNSEEN, O_VOID

__all__ = ["OBS_SIZE", "N_ACTIONS", "ENCODING_VERSION", "RAW_FIELDS", "RAW_NAMES", "encode_into", "encode",
           "mask_into"]

N_ACTIONS = L.MAX_MOVES
#: the observation array's offsets written as plain numbers, in vector order
RAW_FIELDS = np.array([i for i in range(O_SIZE)
                       if i not in (O_HAND, O_LINE, O_UNSEEN) and not O_VOID <= i < O_VOID + 4],
                      np.int64)
#: where each block of the vector starts: a tile block is N_TILES wide, the
#: voids one row of N_PIPS per seat (four seats)
F_HAND = 0
F_LINE = F_HAND + N_TILES
F_UNSEEN = F_LINE + N_TILES
F_VOID = F_UNSEEN + N_TILES
F_RAW = F_VOID + 4 * N_PIPS
OBS_SIZE = F_RAW + len(RAW_FIELDS)
#: the version of this vector's layout and of the action ids. A learned
#: model records the version it was trained on (:mod:`dominoai.nets.model`)
#: and is refused under another one; any change to the table above, to
#: :data:`RAW_FIELDS` or to the meaning of an action id raises it.
ENCODING_VERSION = 1


def _raw_names() -> tuple:
    names = {}
    for k, v in vars(O).items():
        if k.startswith("O_") and k != "O_SIZE":
            names.setdefault(v, k[2:].lower())
    width = {"end_pip": 4, "end_kind": 4, "cand": 2, "sizes": 4, "score": 4, "points": 4,
             "repl": 4}
    out = {}
    for off, name in sorted(names.items()):
        for j in range(width.get(name, 1)):
            out[off + j] = f"{name}[{j}]" if name in width else name
    return tuple(out.get(int(i), "reserved (0)") for i in RAW_FIELDS)


#: the name of each raw field (``RAW_NAMES[j]`` is vector entry ``112 + j``)
RAW_NAMES = _raw_names()


@njit(cache=True)
def encode_into(a, out):
    """Write the observation vector of the observation array ``a`` (``int64``,
    ``(O_SIZE,)``) into ``out`` (``float32``, ``(OBS_SIZE,)``): the layout is
    the module's table. Every entry of ``out`` is written."""
    hand = a[O_HAND]
    line = a[O_LINE]
    unseen = a[O_UNSEEN]
    for t in range(N_TILES):
        out[F_HAND + t] = (hand >> t) & 1
        out[F_LINE + t] = (line >> t) & 1
        out[F_UNSEEN + t] = (unseen >> t) & 1
    for i in range(4):
        v = a[O_VOID + i]
        for p in range(N_PIPS):
            out[F_VOID + N_PIPS * i + p] = (v >> p) & 1
    for j in range(RAW_FIELDS.shape[0]):
        out[F_RAW + j] = a[RAW_FIELDS[j]]


@njit(cache=True)
def mask_into(st, rv, buf, mask):
    """Write the legal action ids of the seat to move in the state ``st``
    (``int64``, ``(S_SIZE,)``) into ``mask`` (``bool``, ``(N_ACTIONS,)``;
    all False once the hand is over); ``buf`` is ``int64`` scratch of
    ``MAX_MOVES``. Returns the number of legal actions."""
    for i in range(N_ACTIONS):
        mask[i] = False
    n = K.legal_moves(st, rv, buf)
    for i in range(n):
        mask[buf[i]] = True
    return n


def encode(a: np.ndarray) -> np.ndarray:
    """The observation vector (``float32``, ``(OBS_SIZE,)``) of one
    observation array (``int64``, ``(O_SIZE,)``, e.g. ``Observation.array``).

    :raises ValueError: ``a`` is not of shape ``(O_SIZE,)``.
    """
    a = np.ascontiguousarray(a, np.int64)
    if a.shape != (O_SIZE,):
        raise ValueError(f"an observation array has shape ({O_SIZE},) (got {a.shape})")
    out = np.empty(OBS_SIZE, np.float32)
    encode_into(a, out)
    return out
