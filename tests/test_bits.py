"""The bit kernels every rule and bot leans on, against plain Python ints."""

import random

import numpy as np

from dominoai.engine.kernels import lowest_tile, nth_tile, popcount, tiles_into

FULL = (1 << 28) - 1


def _masks():
    rng = random.Random(7)
    edge = [1, 1 << 27, FULL, 0b1010, (1 << 27) | 1, 0x0AAAAAAA, 0x05555555]
    return edge + [rng.getrandbits(28) | (1 << rng.randrange(28)) for _ in range(300)]


def test_popcount_lowest_and_nth_tile():
    for mask in _masks():
        bits = [b for b in range(28) if mask >> b & 1]
        m = np.int64(mask)
        assert popcount(m) == len(bits), mask
        assert lowest_tile(m) == bits[0], mask
        assert [nth_tile(m, np.int64(i)) for i in range(len(bits))] == bits, mask
        out = np.full(28, -1, np.int64)
        assert tiles_into(m, out) == len(bits) and out[:len(bits)].tolist() == bits, mask
        assert (out[len(bits):] == -1).all(), mask


def test_popcount_of_empty_and_wide_masks():
    assert popcount(np.int64(0)) == 0
    # wider than a tile mask: the whole int64 is counted (the old 32-bit trick was not)
    assert popcount(np.int64((1 << 40) | (1 << 33) | 1)) == 3
    assert lowest_tile(np.int64(1 << 40)) == 40
