"""Cheaper IR-level inlining for the package's own kernels.

Many helpers of the engine and the bots are ``@njit(inline="always")``: numba
copies their IR into each caller before typing, which the hot loops need
(calling them instead cost 8 to 23% of a loop's speed, see
``docs/reports/2026-12-07-compile-and-suite.md``). numba's inliner
(``numba.core.inline_closurecall.InlineWorker``) pays for that twice over:

- at every call site it runs the callee's whole untyped pipeline again, so a
  helper inlined into a helper is rebuilt once per site of its caller too;
- it deep-copies the callee's IR one block at a time, each block with a
  memo of its own, so every block drags along a full copy of the function's
  scope (all its variables): the copy grows as blocks times variables.

:func:`install` changes both, for the package's functions only (a callee
whose module is not under ``dominoai``, the user's own code included, goes
through numba's code unchanged):

- the untyped IR of a callee is built once per set of compiler flags and
  reused; numba copies it before it changes anything, and each use gets a
  fresh function identity, as numba gives each site, so the variables
  inlined at two sites stay apart;
- one IR's blocks are deep-copied with one memo, so they share one copy of
  the scope, as the blocks of the IR they were copied from do.

The IR handed to typing is the IR numba builds, up to the names of the
inlined variables (numba numbers them by the function identities it
makes, and fewer are made). Compile time, measured on an empty cache, the
warm-up groups of the suite compiled in their own processes, with and
without this module at once on the 2-core machine: the search and the play
model 278.7 to 241.9 s of CPU, the beliefs, the batch simulation and the
env 215.8 to 160.5 s. Of the 197 kernels they compile, 195 have the same
machine code byte for byte (symbol names aside); ``search_options`` and
``search_worlds``, which inlines it, lay out their stack slots and
registers otherwise (about 4% of the lines of their assembly), from the
order of those names (``docs/reports/2026-12-08-cheaper-inlining.md``).

The untyped IR is what the callee's source and its globals say at the first
compile that inlines it; like a compiled kernel, it does not follow later
changes to a module's globals.

:func:`install` runs once per process, from :mod:`dominoai.engine.kernels`,
before any kernel is compiled. Where numba's inliner is not laid out as
described (another numba version), it leaves numba as it is.
"""

from __future__ import annotations

import copy
import functools
import threading

try:
    from numba.core import inline_closurecall as _icc
except ImportError:  # pragma: no cover - another numba's layout
    _icc = None

__all__ = ["install", "installed"]

_PACKAGE = __name__.split(".")[0]
_untyped: dict[tuple, object] = {}  # (callee, flags) -> its untyped IR, never changed
_local = threading.local()           # the deep-copy memos of the inline_ir call under way
_state: dict[str, object] = {}       # "run", "inline_ir": numba's own methods, once installed


def _ours(func) -> bool:
    """Whether ``func`` (a Python function) belongs to the package."""
    module = getattr(func, "__module__", None) or ""
    return module == _PACKAGE or module.startswith(_PACKAGE + ".")


def _run_untyped_passes(self, func, enable_ssa=False):
    """``InlineWorker.run_untyped_passes``, built once per callee and flags."""
    run = _state["run"]
    if not _ours(func):
        return run(self, func, enable_ssa)
    # numba sets the caller's flag before it builds the callee (and the
    # caller's later passes read it): do the same on every use
    self.flags.enable_ssa = enable_ssa
    key = (func, repr(sorted(self.flags.values().items())))
    built = _untyped.get(key)
    if built is None:
        built = _untyped[key] = run(self, func, enable_ssa)
    out = built.copy()                      # new block objects; inline_ir deep-copies them
    out.func_id = built.func_id.derive()    # a fresh identity per site, as numba gives
    return out


def _inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=None):
    """``InlineWorker.inline_ir`` with one deep-copy memo per copied IR."""
    inline_ir = _state["inline_ir"]
    func = getattr(getattr(callee_ir, "func_id", None), "func", None)
    outer = getattr(_local, "memos", None)
    _local.memos = {} if _ours(func) else None
    try:
        return inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=arg_typs)
    finally:
        _local.memos = outer


class _Copy:
    """Stands for the ``copy`` module inside numba's inliner: a block's deep
    copy shares its memo with the other blocks of the same scope, within the
    inlining under way."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(x, memo=None):
        memos = getattr(_local, "memos", None)
        if memo is None and memos is not None:
            scope = getattr(x, "scope", None)
            if scope is not None:
                memo = memos.setdefault(id(scope), {})
        return copy.deepcopy(x, memo)


def installed() -> bool:
    """Whether :func:`install` changed numba's inliner in this process."""
    return bool(_state)


def install() -> bool:
    """Make numba's IR-level inlining of the package's functions cheaper (see
    the module's text). Idempotent; returns whether it is installed. Does
    nothing where numba's inliner lacks the methods it wraps."""
    if _state:
        return True
    worker = getattr(_icc, "InlineWorker", None)
    if (worker is None or not callable(getattr(worker, "run_untyped_passes", None))
            or not callable(getattr(worker, "inline_ir", None)) or getattr(_icc, "copy", None) is not copy):
        return False
    _state.update(run=worker.run_untyped_passes, inline_ir=worker.inline_ir)
    worker.run_untyped_passes = functools.wraps(_state["run"])(_run_untyped_passes)
    worker.inline_ir = functools.wraps(_state["inline_ir"])(_inline_ir)
    _icc.copy = _Copy()
    return True
