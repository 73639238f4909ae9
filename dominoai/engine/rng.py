"""The package's random generator: SplitMix64, once.

Every kernel that draws (deals, leads by lot, random moves, the batched
environment's games, the search's worlds) draws from a SplitMix64 state
that the caller passes explicitly, in one of two forms:

- an array ``rs`` (``uint64``, shape ``(1,)``): :func:`rng_next`,
  :func:`rng_below` (re-exported by :mod:`dominoai.engine.kernels`);
- a state held in a local variable (``uint64``): :func:`split_next`,
  :func:`below`, which return the next state with the number, for loops
  that keep the whole hand in registers (:mod:`dominoai.engine.block2`).

Both forms give the same numbers from the same state. :func:`mix64` is the
generator's finaliser alone (a 64-bit mixing function), which the search
also uses as a hash (:mod:`dominoai.bots.pimc.fusion`).
"""
import numpy as np
from numba import njit

__all__ = ["GOLDEN", "mix64", "split_next", "below", "rng_next", "rng_below"]

#: SplitMix64's increment (2**64 divided by the golden ratio, odd)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_U30, _U27, _U31, _U33 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(33)


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64's finaliser of ``z`` (``uint64``): a ``uint64`` whose bits
    each depend on every bit of ``z``."""
    z = (z ^ (z >> _U30)) * _C1
    z = (z ^ (z >> _U27)) * _C2
    return z ^ (z >> _U31)


@njit(cache=True, inline="always")
def split_next(s):
    """One step of the generator whose state ``s`` (``uint64``) is held in a
    local: ``(next state, 64-bit output)``."""
    x = s + GOLDEN
    return x, mix64(x)


@njit(cache=True, inline="always")
def below(s, n):
    """A uniform integer in ``[0, n)`` (``n`` >= 1, int64) from the state
    ``s`` held in a local: ``(next state, the integer)``, the same numbers
    as :func:`rng_below` on an array holding ``s``."""
    x, z = split_next(s)
    return x, (np.int64(z >> _U33) * n) >> 31  # 31 random bits, scaled


@njit(cache=True, inline="always")
def rng_next(rs):
    """Next 64-bit output of the generator whose state is ``rs[0]`` (``uint64``)."""
    x, z = split_next(rs[0])
    rs[0] = x
    return z


@njit(cache=True, inline="always")
def rng_below(rs, n):
    """Uniform integer in ``[0, n)`` (n >= 1, int64) from the state ``rs[0]``."""
    x, r = below(rs[0], n)
    rs[0] = x
    return r
