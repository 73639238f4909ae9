#!/usr/bin/env python
"""What a call costs in numba: arrays passed one by one, or grouped in a
NamedTuple.

The search calls a few kernels once per world or once per move per world
(the world's weight, its scoring, a rollout) with a dozen or more work
arrays. This script times, in one process, a non-inlined ``@njit`` callee
that touches one element of each of ``--arrays`` arrays, called ``--calls``
times from an ``@njit`` loop, the arrays passed

- ``separate``: as that many arguments;
- ``tuple``: as one NamedTuple of the arrays;
- ``tuple_inline``: the same, the callee ``inline="always"``;
- ``tuple_two``: as one NamedTuple, of which the callee reads only two;
- ``separate_two``: as that many arguments, of which the callee reads two;
- ``nested``: as a NamedTuple of three NamedTuples (settings-like scalars,
  a scratch tuple, a table tuple), the callee unpacking them;

- ``big_separate`` / ``big_tuple``: a callee with a loop and nine calls of
  a kernel too large for LLVM to inline, taking the arrays one by one or
  as the NamedTuple (the shape of a world's scoring), read where used
  (``big_tuple``) or bound to names once at the callee's top
  (``big_tuple_once``);

plus ``scalars``: the callee takes only two scalars (the call's floor).
It reports the median over ``--repeats`` runs of ns per call, and each
variant's ratio to ``separate``. It is a script, not a test.

Usage::

    python benchmarks/bench_tuple_args.py --arrays 18 --calls 2000000
"""

from __future__ import annotations

import argparse
import time
from typing import NamedTuple

import numpy as np
from numba import njit


class Scalars(NamedTuple):
    rollouts: int
    policy: int
    weight: float


class Eighteen(NamedTuple):
    a0: np.ndarray
    a1: np.ndarray
    a2: np.ndarray
    a3: np.ndarray
    a4: np.ndarray
    a5: np.ndarray
    a6: np.ndarray
    a7: np.ndarray
    a8: np.ndarray
    a9: np.ndarray
    a10: np.ndarray
    a11: np.ndarray
    a12: np.ndarray
    a13: np.ndarray
    a14: np.ndarray
    a15: np.ndarray
    a16: np.ndarray
    a17: np.ndarray


class Six(NamedTuple):
    b0: np.ndarray
    b1: np.ndarray
    b2: np.ndarray
    b3: np.ndarray
    b4: np.ndarray
    b5: np.ndarray


class Context(NamedTuple):
    settings: Scalars
    scratch: Eighteen
    tables: Six


@njit(cache=True)
def _sep(i, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17):
    return (a0[i & 7] + a1[i & 7] + a2[i & 7] + a3[i & 7] + a4[i & 7] + a5[i & 7] + a6[i & 7]
            + a7[i & 7] + a8[i & 7] + a9[i & 7] + a10[i & 7] + a11[i & 7] + a12[i & 7]
            + a13[i & 7] + a14[i & 7] + a15[i & 7] + a16[i & 7] + a17[i & 7])


@njit(cache=True)
def _tup(i, t):
    return (t.a0[i & 7] + t.a1[i & 7] + t.a2[i & 7] + t.a3[i & 7] + t.a4[i & 7] + t.a5[i & 7]
            + t.a6[i & 7] + t.a7[i & 7] + t.a8[i & 7] + t.a9[i & 7] + t.a10[i & 7]
            + t.a11[i & 7] + t.a12[i & 7] + t.a13[i & 7] + t.a14[i & 7] + t.a15[i & 7]
            + t.a16[i & 7] + t.a17[i & 7])


@njit(cache=True, inline="always")
def _tup_inline(i, t):
    return (t.a0[i & 7] + t.a1[i & 7] + t.a2[i & 7] + t.a3[i & 7] + t.a4[i & 7] + t.a5[i & 7]
            + t.a6[i & 7] + t.a7[i & 7] + t.a8[i & 7] + t.a9[i & 7] + t.a10[i & 7]
            + t.a11[i & 7] + t.a12[i & 7] + t.a13[i & 7] + t.a14[i & 7] + t.a15[i & 7]
            + t.a16[i & 7] + t.a17[i & 7])


@njit(cache=True)
def _tup_two(i, t):
    return t.a0[i & 7] + t.a17[i & 7]


@njit(cache=True)
def _nested(i, c):
    t = c.scratch
    s = (t.a0[i & 7] + t.a1[i & 7] + t.a2[i & 7] + t.a3[i & 7] + t.a4[i & 7] + t.a5[i & 7]
         + t.a6[i & 7] + t.a7[i & 7] + t.a8[i & 7] + t.a9[i & 7] + t.a10[i & 7]
         + t.a11[i & 7] + t.a12[i & 7] + t.a13[i & 7] + t.a14[i & 7] + t.a15[i & 7]
         + t.a16[i & 7] + t.a17[i & 7])
    return s + c.tables.b0[i & 7] + c.settings.rollouts


@njit(cache=True)
def _sep_two(i, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16,
             a17):
    return a0[i & 7] + a17[i & 7]


@njit(cache=True)
def _big(i, a0, a1, a17):
    # too large for LLVM to inline into the loop: a real call
    s = 0.0
    for k in range(8):
        if a0[k] > a1[(k + i) & 7]:
            s += a0[k] * a17[(k * 3 + i) & 7]
        elif a1[k] > 3.5:
            s -= a1[k] / (1.0 + a17[k])
        else:
            s += np.sqrt(a0[k] + a1[k] + a17[k])
    return s


@njit(cache=True)
def _big_sep(i, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17):
    s = _big(i, a0, a1, a17)
    for k in range(8):
        s += _big(i + k, a0, a1, a17) * (a2[k] + a9[k])
    return s


@njit(cache=True)
def _big_tup(i, t):
    s = _big(i, t.a0, t.a1, t.a17)
    for k in range(8):
        s += _big(i + k, t.a0, t.a1, t.a17) * (t.a2[k] + t.a9[k])
    return s


@njit(cache=True)
def _big_tup_once(i, t):
    a0, a1, a2, a9, a17 = t.a0, t.a1, t.a2, t.a9, t.a17
    s = _big(i, a0, a1, a17)
    for k in range(8):
        s += _big(i + k, a0, a1, a17) * (a2[k] + a9[k])
    return s


@njit(cache=True)
def loop_big_tup_once(n, t):
    s = 0.0
    for i in range(n):
        s += _big_tup_once(i, t)
    return s


@njit(cache=True)
def loop_big_sep(n, t):
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = t.a0, t.a1, t.a2, t.a3, t.a4, t.a5, t.a6, t.a7, t.a8
    a9, a10, a11, a12, a13, a14, a15, a16, a17 = (t.a9, t.a10, t.a11, t.a12, t.a13, t.a14, t.a15,
                                                  t.a16, t.a17)
    s = 0.0
    for i in range(n):
        s += _big_sep(i, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15,
                      a16, a17)
    return s


@njit(cache=True)
def loop_big_tup(n, t):
    s = 0.0
    for i in range(n):
        s += _big_tup(i, t)
    return s


@njit(cache=True)
def loop_sep_two(n, t):
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = t.a0, t.a1, t.a2, t.a3, t.a4, t.a5, t.a6, t.a7, t.a8
    a9, a10, a11, a12, a13, a14, a15, a16, a17 = (t.a9, t.a10, t.a11, t.a12, t.a13, t.a14, t.a15,
                                                  t.a16, t.a17)
    s = 0.0
    for i in range(n):
        s += _sep_two(i, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15,
                      a16, a17)
    return s


@njit(cache=True)
def _scalars(i, x):
    return float(i & 7) + x


@njit(cache=True)
def loop_sep(n, t):
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = t.a0, t.a1, t.a2, t.a3, t.a4, t.a5, t.a6, t.a7, t.a8
    a9, a10, a11, a12, a13, a14, a15, a16, a17 = (t.a9, t.a10, t.a11, t.a12, t.a13, t.a14, t.a15,
                                                  t.a16, t.a17)
    s = 0.0
    for i in range(n):
        s += _sep(i, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16,
                  a17)
    return s


@njit(cache=True)
def loop_tup(n, t):
    s = 0.0
    for i in range(n):
        s += _tup(i, t)
    return s


@njit(cache=True)
def loop_tup_inline(n, t):
    s = 0.0
    for i in range(n):
        s += _tup_inline(i, t)
    return s


@njit(cache=True)
def loop_tup_two(n, t):
    s = 0.0
    for i in range(n):
        s += _tup_two(i, t)
    return s


@njit(cache=True)
def loop_nested(n, c):
    s = 0.0
    for i in range(n):
        s += _nested(i, c)
    return s


@njit(cache=True)
def loop_scalars(n, t):
    s = 0.0
    for i in range(n):
        s += _scalars(i, 1.0)
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=2_000_000)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args(argv)
    arrays = Eighteen(*[np.arange(8, dtype=np.float64) + k for k in range(18)])
    tables = Six(*[np.arange(8, dtype=np.int64) for _ in range(6)])
    ctx = Context(Scalars(1, 0, 0.5), arrays, tables)
    variants = {"separate": (loop_sep, arrays), "tuple": (loop_tup, arrays),
                "tuple_inline": (loop_tup_inline, arrays), "tuple_two": (loop_tup_two, arrays),
                "nested": (loop_nested, ctx), "separate_two": (loop_sep_two, arrays),
                "big_separate": (loop_big_sep, arrays), "big_tuple": (loop_big_tup, arrays),
                "big_tuple_once": (loop_big_tup_once, arrays),
                "scalars": (loop_scalars, arrays)}
    want = loop_sep(1000, arrays)
    for name, (fn, x) in variants.items():
        got = fn(1000, x)  # compile (or load the cache)
        if name in ("tuple", "tuple_inline") and got != want:
            raise SystemExit(f"{name}: {got} != {want}")
    if loop_big_sep(1000, arrays) != loop_big_tup(1000, arrays):
        raise SystemExit("big_tuple differs from big_separate")
    times = {k: [] for k in variants}
    for _ in range(args.repeats):   # interleaved: load changes hit every variant alike
        for name, (fn, x) in variants.items():
            t = time.perf_counter()
            fn(args.calls, x)
            times[name].append((time.perf_counter() - t) / args.calls * 1e9)
    base = float(np.median(times["separate"]))
    print(f"{args.calls} calls x {args.repeats} repeats, median ns per call (ratio to separate)")
    for name, ts in times.items():
        m = float(np.median(ts))
        print(f"{name:13s} {m:8.2f} ns  {m / base:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
