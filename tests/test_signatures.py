"""No function of the package takes more than 12 parameters, but the ones
listed here, each with its reason: a keyword form that only builds a spec
and passes it on (its documented parameters are the spec's fields), or a
numba kernel whose arguments are its arrays (a struct would cost there)."""
import ast
from pathlib import Path

import dominoai

LIMIT = 12

#: "module path:function" -> why it may take more than LIMIT parameters
ALLOWED = {
    # keyword forms: build a spec, pass it on
    "tournament/run.py:run_tournament": "keyword form of the tournament's settings",
    "learn/env.py:__init__": "VectorEnv's constructor: keyword form of the env's settings",
    "learn/imitation.py:train_run": "keyword form of PolicyRunSpec, run by run_policy",
    "learn/imitation.py:train_policy": "keyword form of PolicyRunSpec, trained by fit_policy",
    "learn/value.py:value_run": "keyword form of ValueRunSpec, run by run_value",
    "learn/value.py:train_value": "keyword form of ValueRunSpec, trained by fit_value",
    # numba kernels
    "nets/features.py:policy_pick_features": "numba kernel",
    "learn/kernels.py:b2_step": "numba kernel",
    "bots/pimc/likelihood.py:_row_factor": "numba kernel",
    "bots/pimc/likelihood.py:_neural_row_factor": "numba kernel",
    "bots/pimc/playnet.py:net_log_prob_block": "numba kernel",
}


def _count(fn: ast.FunctionDef) -> int:
    """The parameters of ``fn``: every named one (``self`` and ``cls`` of a
    method left out), ``*args`` and ``**kwargs`` one each."""
    a = fn.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    n = len(names) + (a.vararg is not None) + (a.kwarg is not None)
    if names and names[0].arg in ("self", "cls"):
        n -= 1
    return n


def _functions():
    root = Path(dominoai.__file__).parent
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{path.relative_to(root).as_posix()}:{node.name}", node


def test_no_function_takes_more_than_twelve_parameters():
    over = {key: _count(fn) for key, fn in _functions() if _count(fn) > LIMIT}
    unlisted = sorted(f"{k} ({n})" for k, n in over.items() if k not in ALLOWED)
    assert not unlisted, f"over {LIMIT} parameters (take a spec, or list it in ALLOWED with its reason): {unlisted}"


def test_every_allowed_function_still_needs_it():
    counts = {}
    for key, fn in _functions():
        counts[key] = max(counts.get(key, 0), _count(fn))
    stale = sorted(k for k in ALLOWED if counts.get(k, 0) <= LIMIT)
    assert not stale, f"listed in ALLOWED but no longer over {LIMIT} parameters (or gone): {stale}"
