"""Settings shared by the whole suite.

Hypothesis runs derandomized (its examples follow from the test's code, not
from a clock or a saved database), so a failure shows up on every run and
every machine alike; a test may still ask for more examples in its own
``@settings``. ``HYPOTHESIS_PROFILE=explore`` draws fresh examples instead.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

try:
    from hypothesis import settings
except ImportError:  # pragma: no cover - hypothesis comes with the test extra
    settings = None

if settings is not None:
    settings.register_profile("dominoai", derandomize=True, database=None, deadline=None)
    settings.register_profile("explore", derandomize=False, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dominoai"))


# ------------------------------------------------------------- compiling once
# The suite runs on pytest-xdist workers (pyproject's addopts). On an empty
# numba cache each worker would compile the big kernels it meets (insane's
# search, the fused simulation, the batched env) on its own, so two workers
# compiled the same ones twice. Instead, at the start of a session on two
# workers or more, the workers share these warm-up groups out, compile them
# side by side into the one cache, and wait for each other; every test then
# loads those kernels from the cache. A group runs only when a test that
# needs it was collected; on one worker nothing runs ahead.

def _warm_search(rules) -> None:
    """The engine, hard, then insane and omniscient: one hand each."""
    from dominoai import _compile
    for _, call in _compile.tournament_steps(rules, ["hard", "insane", "omniscient"]):
        call()


def _warm_side(rules) -> None:
    """insane's belief kernels and the fused playouts (the warm-up's side
    steps, compiled while the other worker compiles the engine and hard)."""
    from dominoai import _compile
    for step in _compile.SIDE_STEPS.values():
        step(rules)


def _warm_simulation(rules) -> None:
    """``dominoai simulate``'s batch kernel and the engine's reference loop."""
    import numpy as np

    from dominoai.engine import fast, kernels
    fast.simulate_fast(rules.vector(), 0, 0, np.zeros(16, np.int64))
    kernels.simulate(rules.vector(), 0, 1, np.zeros(16, np.int64))


def _warm_learning(rules) -> None:
    """The batched env's kernels, with every opponent level."""
    import numpy as np

    from dominoai.learn import VectorEnv
    for level in ("easy", "medium", "hard"):
        env = VectorEnv(rules.preset, 2, opponents=level, seed=0, history=True)
        obs, mask = env.reset()
        for _ in range(3):
            obs, mask, *_ = env.step(np.argmax(mask, axis=1))


#: groups of warm-up steps, each ``(test files that need it, steps)``; worker
#: ``i`` of ``n`` runs the groups ``i, i + n, ...``. The two groups take
#: about the same CPU time on an empty cache.
WARM_GROUPS = [
    ({"test_golden.py", "test_bots.py", "test_insane.py", "test_cli_tournament.py", "test_tournament.py",
      "test_tune.py", "test_worlds.py"}, [_warm_search]),
    ({"test_golden.py", "test_bots.py", "test_insane.py", "test_worlds.py", "test_fast.py", "test_cli.py",
      "test_learn_env.py", "test_learn_gym.py", "test_interop_pettingzoo.py"},
     [_warm_side, _warm_simulation, _warm_learning]),
]


@pytest.fixture(scope="session", autouse=True)
def _compile_once_across_workers(request, tmp_path_factory):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if count < 2 or not worker.startswith("gw"):
        yield
        return
    index = int(worker[2:])
    files = {Path(str(item.fspath)).name for item in request.session.items}
    from dominoai.rules import get_rules
    rules = get_rules("draw")
    seconds = {}
    for g in range(index, len(WARM_GROUPS), count):
        needed_by, steps = WARM_GROUPS[g]
        if needed_by & files:
            for step in steps:
                t0 = time.perf_counter()
                try:
                    step(rules)
                except Exception:   # the tests that need the step report the error in their own words
                    pass
                seconds[step.__name__] = round(time.perf_counter() - t0, 1)
    shared = tmp_path_factory.getbasetemp().parent
    (shared / f"warm-done-{worker}").write_text(repr(seconds))   # the steps' seconds, for a look
    deadline = time.monotonic() + 1200
    while len(list(shared.glob("warm-done-gw*"))) < count and time.monotonic() < deadline:
        time.sleep(0.5)
    yield
