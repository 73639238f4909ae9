"""Tiles of the double-six set: ids, pip masks, parsing and printing.

Tile ids run 0..27 in triangular order: the tile ``a:b`` with ``a >= b`` has
id ``a*(a+1)//2 + b`` (``0:0`` = 0, ``1:0`` = 1, ``1:1`` = 2, ..., ``6:6`` =
27). A set of tiles (a hand) is an ``int64`` bit mask with bit ``id`` set for
every tile held. See ``docs/conventions.md``.

>>> Tile.parse("4:6")
Tile('6:4')
>>> Tile.parse("6:4").pips
10
>>> str(TileSet.from_tiles(["6:6", "0:0"]))
'{6:6 0:0}'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

__all__ = [
    "N_TILES",
    "MAX_PIP",
    "N_PIPS",
    "Tile",
    "TileSet",
    "tile_id",
    "TILE_HIGH",
    "TILE_LOW",
    "TILE_PIPS",
    "TILE_IS_DOUBLE",
    "TILE_PIP_SET",
    "PIP_MASK",
    "PIP_SET_MASK",
    "DOUBLES_MASK",
    "FULL_MASK",
    "TOP_DOUBLE",
    "HEAVY_ORDER",
    "HEAVY_RANK",
    "parse_tile",
]

#: the highest pip of the set (double-six); pips run 0..MAX_PIP
MAX_PIP = 6
#: how many pip values there are (0..MAX_PIP)
N_PIPS = MAX_PIP + 1
#: how many tiles the set holds: one per pair of pips, doubles included
N_TILES = N_PIPS * (N_PIPS + 1) // 2


def tile_id(a: int, b: int) -> int:
    """Id of the tile ``a:b`` (either order). Raises ``ValueError`` off the set."""
    if not (0 <= a <= MAX_PIP and 0 <= b <= MAX_PIP):
        raise ValueError(f"{a}:{b} is not a double-six tile (pips are 0..{MAX_PIP})")
    hi, lo = (a, b) if a >= b else (b, a)
    return hi * (hi + 1) // 2 + lo


def _tables():
    high = np.zeros(N_TILES, np.int64)
    low = np.zeros(N_TILES, np.int64)
    for a in range(MAX_PIP + 1):
        for b in range(a + 1):
            t = tile_id(a, b)
            high[t], low[t] = a, b
    pips = high + low
    is_double = (high == low).astype(np.int64)
    pip_mask = np.zeros(N_PIPS, np.int64)
    for t in range(N_TILES):
        pip_mask[high[t]] |= np.int64(1) << t
        pip_mask[low[t]] |= np.int64(1) << t
    doubles = np.int64(0)
    for t in range(N_TILES):
        if is_double[t]:
            doubles |= np.int64(1) << t
    pip_set = (np.int64(1) << high) | (np.int64(1) << low)
    pip_set_mask = np.zeros(1 << N_PIPS, np.int64)
    for v in range(1 << N_PIPS):
        for p in range(N_PIPS):
            if v >> p & 1:
                pip_set_mask[v] |= pip_mask[p]
    # Heaviest first: most pips, then higher half (6:3 before 5:4).
    order = np.array(sorted(range(N_TILES), key=lambda t: (-(high[t] + low[t]), -high[t])), np.int64)
    rank = np.zeros(N_TILES, np.int64)
    rank[order] = np.arange(N_TILES - 1, -1, -1)
    return high, low, pips, is_double, pip_set, pip_mask, pip_set_mask, doubles, order, rank


(
    TILE_HIGH,
    TILE_LOW,
    TILE_PIPS,
    TILE_IS_DOUBLE,
    TILE_PIP_SET,
    PIP_MASK,
    PIP_SET_MASK,
    DOUBLES_MASK,
    HEAVY_ORDER,
    HEAVY_RANK,
) = _tables()
"""Per tile ``t`` (int64, shape (N_TILES,)): ``TILE_HIGH[t]``, ``TILE_LOW[t]``
the halves; ``TILE_PIPS`` the pip count; ``TILE_IS_DOUBLE`` 0/1;
``TILE_PIP_SET`` the pips it shows as a bit set (bit p = pip p).
Per pip ``p``: ``PIP_MASK[p]`` the mask of the tiles showing ``p`` (shape
(N_PIPS,)). Per pip set ``v`` (bit p = pip p): ``PIP_SET_MASK[v]`` the mask
of the tiles showing any pip of ``v`` (shape (2 ** N_PIPS,); ``PIP_SET_MASK[0]``
is 0). ``DOUBLES_MASK``: the doubles, one per pip. ``HEAVY_ORDER``: tile ids
heaviest first (pips, then higher half); ``HEAVY_RANK[t]``: the tile's place
in that order counted from the lightest (0 for ``0:0``, ``N_TILES - 1`` for the
top double), so that comparing ranks compares weights."""

#: the mask of every tile of the set (bits 0..N_TILES-1)
FULL_MASK = (1 << N_TILES) - 1
#: the id of the heaviest tile, the top double ``MAX_PIP:MAX_PIP`` (N_TILES - 1)
TOP_DOUBLE = tile_id(MAX_PIP, MAX_PIP)


def parse_tile(text: str) -> int:
    """Tile id of ``"a:b"`` (either order, spaces allowed).

    :raises ValueError: not of the form ``a:b`` or a pip outside 0..6.
    """
    if not isinstance(text, str):
        raise ValueError(f"a tile is written 'a:b', got {text!r}")
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"{text!r} is not a tile; write it as 'a:b', e.g. '6:4'")
    a, b = int(parts[0]), int(parts[1])
    if a > MAX_PIP or b > MAX_PIP:
        raise ValueError(f"{text!r} is not a double-six tile (pips are 0..{MAX_PIP})")
    return tile_id(a, b)


@dataclass(frozen=True, order=True)
class Tile:
    """One tile of the double-six set, by id (0..27, see module docstring).

    >>> Tile.parse("3:5"), Tile(27)
    (Tile('5:3'), Tile('6:6'))
    """

    id: int

    def __post_init__(self):
        if not isinstance(self.id, (int, np.integer)) or not 0 <= int(self.id) < N_TILES:
            raise ValueError(f"tile id must be 0..{N_TILES - 1}, got {self.id!r}")
        object.__setattr__(self, "id", int(self.id))

    @classmethod
    def parse(cls, text: "str | Tile | int") -> "Tile":
        """A tile from ``"a:b"`` (either order), a ``Tile`` or an id."""
        if isinstance(text, Tile):
            return text
        if isinstance(text, (int, np.integer)):
            return cls(int(text))
        return cls(parse_tile(text))

    @property
    def high(self) -> int:
        """The higher half (pips)."""
        return int(TILE_HIGH[self.id])

    @property
    def low(self) -> int:
        """The lower half (pips)."""
        return int(TILE_LOW[self.id])

    @property
    def pips(self) -> int:
        """Pip count: the sum of both halves (6:6 = 12)."""
        return self.high + self.low

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    def __str__(self) -> str:
        return f"{self.high}:{self.low}"

    def __repr__(self) -> str:
        return f"Tile('{self}')"


class TileSet:
    """An immutable set of tiles over an ``int64``-compatible bit mask.

    Iterates in id order; prints heaviest first, e.g. ``{6:6 5:2 0:0}``.
    """

    __slots__ = ("mask",)

    def __init__(self, mask: int = 0):
        mask = int(mask)
        if mask < 0 or mask > FULL_MASK:
            raise ValueError(f"tile mask out of range: {mask}")
        object.__setattr__(self, "mask", mask)

    def __setattr__(self, name, value):
        raise AttributeError("TileSet is immutable")

    @classmethod
    def from_tiles(cls, tiles: Iterable["str | int | Tile"]) -> "TileSet":
        """From tiles as ``"a:b"`` strings, ids or ``Tile``; a repeat raises ``ValueError``."""
        mask = 0
        for t in tiles:
            tid = Tile.parse(t).id
            if mask >> tid & 1:
                raise ValueError(f"tile {Tile(tid)} appears twice")
            mask |= 1 << tid
        return cls(mask)

    def __iter__(self) -> Iterator[Tile]:
        m = self.mask
        while m:
            low = m & -m
            yield Tile(low.bit_length() - 1)
            m ^= low

    def __len__(self) -> int:
        return bin(self.mask).count("1")

    def __contains__(self, tile) -> bool:
        return bool(self.mask >> Tile.parse(tile).id & 1)

    def __eq__(self, other) -> bool:
        return isinstance(other, TileSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    @property
    def pips(self) -> int:
        """Total pips of the tiles."""
        return sum(t.pips for t in self)

    def __str__(self) -> str:
        tiles = sorted(self, key=lambda t: (-t.pips, -t.high))
        return "{" + " ".join(str(t) for t in tiles) + "}"

    def __repr__(self) -> str:
        return f"TileSet({self})"
