"""Random playouts of a variant: outcome statistics from the numba engine.

:func:`run_simulation` plays random first hands (random deals, random legal
moves) with :func:`~dominoai.engine.fast.simulate_lanes` and counts how they
end (``dominoai simulate`` prints them).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from tqdm import tqdm

from ._compile import warm_up_simulation
from .engine import fast as F

__all__ = ["run_simulation", "SIM_CHUNK", "SIM_LANES"]

SIM_CHUNK = 20_000  # hands per seed (a chunk)
SIM_LANES = 4  # chunks per kernel call, played interleaved; the progress bar advances by calls


def run_simulation(rules, n_hands: int, seed: int, progress: bool = False) -> dict:
    """Play ``n_hands`` random first hands under ``rules`` in chunks of
    ``SIM_CHUNK`` (chunk ``i`` seeded from ``numpy.random.SeedSequence(seed)``'s
    ``i``-th child, so a seed gives the same numbers on every run): each
    chunk's hands are those of ``kernels.simulate`` with its seed, played
    ``SIM_LANES`` chunks at a time by the engine's
    :func:`~dominoai.engine.fast.simulate_lanes` (interleaved in Block's
    shape for two seats). Returns counts:
    ``wins`` per side, ``no_winner``, ``domino``, ``blocked``, ``cut``,
    ``points`` per side, ``moves``, ``hands`` and ``seconds`` (play time,
    compilation excluded). On a cold cache one line on stderr says that the
    kernel is being compiled (:mod:`dominoai._compile`), with a progress bar
    if ``progress``.

    :param rules: a :class:`~dominoai.rules.Rules`.
    :param n_hands: hands to play (at least 1).
    :param seed: the root seed (a non-negative integer).
    :param progress: a progress bar on stderr.
    :returns: the counts above (``int``; ``seconds`` a ``float``).
    """
    rv = rules.vector()
    stats = np.zeros(16, np.int64)
    # compile (saying so on stderr the first time) or load the kernel, outside the clock
    warm_up_simulation(rules, progress=progress)
    n_chunks = -(-n_hands // SIM_CHUNK)
    seeds = np.array([int(c.generate_state(1, np.uint64)[0] & np.uint64(0x7FFFFFFFFFFFFFFF))
                      for c in np.random.SeedSequence(seed).spawn(n_chunks)], np.uint64)
    counts = np.full(n_chunks, SIM_CHUNK, np.int64)
    counts[-1] = n_hands - SIM_CHUNK * (n_chunks - 1)
    bar = None
    if progress:
        bar = tqdm(total=n_hands, unit="hand", unit_scale=True, file=sys.stderr,
                   desc=f"simulate {rules.preset}", leave=False)
    t0 = time.perf_counter()
    try:
        for i in range(0, n_chunks, SIM_LANES):
            F.simulate_lanes(rv, seeds[i:i + SIM_LANES], counts[i:i + SIM_LANES], stats)
            if bar is not None:
                bar.update(int(counts[i:i + SIM_LANES].sum()))
    finally:
        if bar is not None:
            bar.close()
    dt = time.perf_counter() - t0
    ns = rules.sides
    return {
        "hands": n_hands, "seconds": dt,
        "wins": [int(x) for x in stats[0:ns]], "no_winner": int(stats[7]),
        "domino": int(stats[4]), "blocked": int(stats[5]), "cut": int(stats[6]),
        "points": [int(x) for x in stats[8:8 + ns]], "moves": int(stats[12]),
    }
