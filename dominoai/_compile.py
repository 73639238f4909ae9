"""Compiling the kernels with a message: a first run says what it is doing.

numba compiles a kernel the first time it is called and keeps the machine
code in its on-disk cache (dropped when the code changes:
:mod:`dominoai._numba_cache`). On a
fresh install, or after any change to the code, the first tournament or
simulation therefore spends a while compiling. :func:`compile_once` runs the
*warm-up steps* of a job (each a call that compiles, or loads from the cache,
the kernels of one part: the engine, a bot, the batch simulation); when a
step has never completed for this version of the code it first writes one
line to standard error::

    dominoai: compiling the engine and the bots' kernels once for this version, about 65 s (later runs load it from the cache)

(on a busy machine the time is a range read from the load average:
:func:`estimate_text`) and shows a progress bar over the steps, naming the kernel being compiled.
A step that completes leaves a marker file ``warm-<step>.json`` (holding its
CPU seconds, ``cpu_seconds``: a run paused or starved on a busy machine does
not inflate the next estimate) in the version's folder of the user cache
(:func:`dominoai._numba_cache.cache_dir`), so later runs are silent.

The estimate of a step is the seconds it took for the previous version of
the code on this machine, else :data:`TYPICAL_SECONDS` (CPU seconds
measured on a quiet 2-core machine).

Where two cores are free, a tournament's warm-up also starts one second
process that compiles *side steps* (:data:`SIDE_STEPS`: the insane bot's
belief kernels and the search's rollout) into the same cache while this
process compiles the engine and the simpler bots; the search bots' step then
finds those kernels cached. The two sets share only small callees, and
numba writes each function's cache files whole (replaced atomically), so a
function compiled by both is merely compiled twice.

This module imports neither numba nor the kernels until a step runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Callable, Sequence

from ._numba_cache import cache_base, cache_dir

__all__ = ["SIDE_STEPS", "TYPICAL_SECONDS", "compile_once", "is_warm", "mark_warm", "side_steps",
           "tournament_steps", "warm_up_tournament", "warm_up_simulation"]

#: Seconds a cold step typically takes (compile CPU seconds, numba 0.68,
#: ``benchmarks/bench_startup.py --cold``; the search bots' with the side
#: steps compiled beside them; insane's as recorded by the README's main job
#: on an empty cache, quiet 2-core machine, 2026-12-02, after the slot
#: sampler and fusion kernels were added: engine 7, hard 7, insane 51; a busy
#: machine takes more); used when no earlier version left its own figure.
TYPICAL_SECONDS = {"engine": 7.0, "bot-easy": 0.5, "bot-medium": 0.5, "bot-hard": 7.0,
                   "bot-insane": 51.0, "bot-omniscient": 10.0, "simulate": 20.0}
_DEFAULT_SECONDS = 5.0


def _marker(step: str):
    return cache_dir() / f"warm-{step}.json"


def is_warm(step: str) -> bool:
    """Whether ``step`` has completed once for this version of the code."""
    return _marker(step).is_file()


def mark_warm(step: str, seconds: float, compiled: bool = True) -> None:
    """Record that ``step`` completed (in ``seconds`` of this process's CPU
    time; ``compiled``: whether numba compiled anything in it, rather than
    loading every kernel from its cache); silently skipped when the cache
    directory is not writable."""
    path = _marker(step)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"step": step, "cpu_seconds": round(seconds, 2), "compiled": compiled}))


def _estimate(step: str) -> float:
    """The CPU seconds ``step`` took when it last compiled here (the most
    recent other version of the code whose step compiled, not one that only
    loaded its kernels from numba's cache), else :data:`TYPICAL_SECONDS`."""
    found = []
    with contextlib.suppress(OSError):
        for f in cache_base().glob(f"numba-*/warm-{step}.json"):
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError, AttributeError):
                d = json.loads(f.read_text())
                if d.get("compiled") is True:   # a marker of wall seconds only is not read
                    found.append((f.stat().st_mtime, float(d["cpu_seconds"])))
    if found:
        return max(found)[1]
    return TYPICAL_SECONDS.get(step, _DEFAULT_SECONDS)


class _KernelNames:
    """A numba event listener counting the package's kernels compiled
    (``count``) and showing the one being compiled on ``bar`` (or None)."""

    def __init__(self, bar=None):
        from numba.core import event
        self._event = event
        self.bar = bar
        self.count = 0
        self.listener = type("L", (event.Listener,), {
            "on_start": lambda s, ev: self._show(ev), "on_end": lambda s, ev: None})()

    def _show(self, ev):
        fn = getattr(ev.data.get("dispatcher"), "py_func", None)
        if fn is not None and fn.__module__.startswith("dominoai"):
            self.count += 1
            if self.bar is not None:
                self.bar.set_postfix_str(f"{fn.__module__.removeprefix('dominoai.')}.{fn.__name__}",
                                         refresh=True)

    def __enter__(self):
        self._event.register("numba:compile", self.listener)
        return self

    def __exit__(self, *exc):
        self._event.unregister("numba:compile", self.listener)


def compile_once(steps: Sequence[tuple[str, Callable[[], object]]], what: str = "the engine",
                 progress: bool = True, stream=None, side=None) -> list[str]:
    """Run the warm-up ``steps`` in order, saying so when they compile.

    :param steps: ``(name, call)`` pairs; ``call()`` compiles (or loads) the
        kernels of one part. A step that raises is skipped (its marker is not
        written): the job itself then reports the error in its own words.
    :param what: what is compiled, for the message.
    :param progress: a progress bar over the cold steps (on ``stream``).
    :param stream: where the message goes (default ``sys.stderr``).
    :param side: ``(rules, names)``: :data:`SIDE_STEPS` that a second process
        compiles into the same cache while ``steps`` run here, when some step
        is cold and this process may use two cores or more (see
        :func:`side_steps`); it is waited for before this returns. None: no
        second process.
    :returns: the names of the steps that were cold (an empty list when every
        step had completed before for this version: nothing is printed then).
    """
    stream = sys.stderr if stream is None else stream
    cold = [name for name, _ in steps if not is_warm(name)]
    if cold:
        est = max(1.0, sum(_estimate(name) for name in cold))   # never "about 0 s"
        stream.write(f"dominoai: compiling {what} once for this version, {estimate_text(est)} "
                     f"(later runs load it from the cache)\n")
        stream.flush()
    helper = None
    if cold and side is not None and side[1] and _usable_cores() >= 2:
        helper = _SideProcess(*side)
    bar = None
    if cold and progress:
        from tqdm import tqdm
        bar = tqdm(total=len(cold), desc="compiling", unit="step", file=stream, leave=False,
                   dynamic_ncols=True, bar_format="{desc} {n}/{total} [{elapsed}]{postfix}")
    try:
        with (_KernelNames(bar) if cold else contextlib.nullcontext()) as kernels:
            for name, call in steps:
                if bar is not None and name in cold:
                    bar.set_description(f"compiling {name}")
                t0 = time.process_time()
                before = kernels.count if kernels is not None else 0
                try:
                    call()
                except Exception:
                    continue
                if name in cold:
                    mark_warm(name, time.process_time() - t0, compiled=kernels.count > before)
                    if bar is not None:
                        bar.update(1)
        if helper is not None:
            helper.wait()
    finally:
        if helper is not None:
            helper.stop()
        if bar is not None:
            bar.close()
    return cold


def _load() -> float:
    """The machine's load: the 1-minute load average (0.0 where the OS has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # not Unix
        return 0.0


def _seconds_text(s: float) -> str:
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.0f} min"


def estimate_text(cpu_seconds: float) -> str:
    """How long compiling ``cpu_seconds`` of CPU should take here, in words.

    On a quiet machine (a 1-minute load average that leaves this process a
    core) it is ``"about 65 s"``. On a busy one a core is shared by about
    ``(load + 1) / cores`` processes, so the wall time is given as a range
    from ``load / cores`` to ``(load + 2) / cores`` times the CPU seconds,
    with the load it was read from: ``"about 65 s of CPU, 4 to 5 min at this
    machine's load of 8.0 on 2 cores"``.
    """
    cores = max(1, _usable_cores())
    load = _load()
    if (load + 1) / cores <= 1.25:
        return f"about {_seconds_text(cpu_seconds)}"
    low = cpu_seconds * max(1.0, load / cores)
    high = cpu_seconds * (load + 2) / cores
    lo, hi = _seconds_text(low), _seconds_text(high)
    if lo.endswith(" min") and hi.endswith(" min"):
        lo = lo.removesuffix(" min")
    elif lo.endswith(" s") and hi.endswith(" s"):
        lo = lo.removesuffix(" s")
    span = hi if lo == hi.split(" ")[0] else f"{lo} to {hi}"
    return (f"about {_seconds_text(cpu_seconds)} of CPU, {span} at this machine's load of {load:.1f} "
            f"on {cores} core{'s' if cores != 1 else ''}")


def _usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class _SideProcess:
    """A second Python process running :func:`_side_main` on ``(rules,
    names)``: it compiles those kernels into this version's cache (numba
    writes one index and data file per function, replaced atomically, so two
    processes may fill one cache). Silent; its failures only mean that this
    process compiles those kernels itself, later."""

    def __init__(self, rules, names):
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[1])  # the folder holding this package
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        code = "import sys; from dominoai._compile import _side_main; _side_main(sys.stdin.buffer.read())"
        self.proc = None
        with contextlib.suppress(OSError, pickle.PicklingError):
            self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            try:
                self.proc.stdin.write(pickle.dumps((rules, list(names))))
                self.proc.stdin.close()
            except (OSError, pickle.PicklingError):
                self.stop()

    def wait(self) -> None:
        if self.proc is not None:
            self.proc.wait()

    def stop(self) -> None:
        """End the process if it still runs (an interrupted warm-up)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _side_main(payload: bytes) -> None:
    """The second process of :class:`_SideProcess`: run the side steps."""
    rules, names = pickle.loads(payload)
    for name in names:
        with contextlib.suppress(Exception):
            SIDE_STEPS[name](rules)


# ---------------------------------------------------------------- the jobs' steps
def _play_one_hand(rules, spec: str) -> None:
    """Play one hand of ``rules`` with ``spec`` in every seat as a tournament
    worker does, each move through :func:`~dominoai.decide.decide` (its
    result and the match scores read too)."""
    from .bots import make_bot
    from .decide import decide
    from .game import Match

    match = Match(rules, seed=0)
    bots = [make_bot(spec, 0) for _ in range(rules.players)]
    hand = match.new_hand()
    while not hand.over:
        hand.play(decide(bots[hand.seat], hand.observe(hand.seat), match))
    res = hand.result
    (res.points, res.pips, res.winner, res.end, match.scores)


def tournament_steps(rules, specs: Sequence[str]) -> list[tuple[str, Callable[[], object]]]:
    """The warm-up steps of a tournament of ``specs`` under ``rules``: the
    engine (a hand of ``easy``), then one hand per bot level (a level's
    parameters change no kernel types, so one step per bot name)."""
    from .bots import parse_spec

    steps = [("engine", partial(_play_one_hand, rules, "easy"))]
    seen = {"engine"}
    for spec in specs:
        try:
            name = f"bot-{parse_spec(spec)[0]}"
        except Exception:
            continue  # a bad spec: the tournament reports it
        if name == "bot-easy" or name in seen:
            continue
        seen.add(name)
        steps.append((name, partial(_play_one_hand, rules, spec)))
    return steps


# ---------------------------------------------------------------- side steps (a second process)
def _compile_worlds(rules) -> None:
    """The belief's kernels (reading the history, counting, sampling) as
    the insane bot calls them: a Belief at the start of a hand, two worlds
    drawn and weighed. They call only a few small engine kernels, so they
    compile beside the engine's."""
    from .bots.worlds import Belief
    from .game import Match

    hand = Match(rules, seed=0).new_hand(leader=0)
    belief = Belief(hand.observe(0))
    worlds, _ = belief.sample(2, seed=0)
    belief.weight(worlds[0])


def _compile_fused(rules) -> None:
    """The search's rollout, :func:`dominoai.engine.fast.playout_on` (the
    fused playout loops inlined), for the argument types of the search's
    rollouts (compiled, not run)."""
    from numba import types

    from .engine import fast as F

    i1 = types.Array(types.int64, 1, "C")
    i2 = types.Array(types.int64, 2, "C")
    u1 = types.Array(types.uint64, 1, "C")
    F.playout_on.compile((i1, i1, u1, i2, types.int64))


#: Warm-up work a second process may do while the steps run (see
#: :func:`compile_once`): name -> ``call(rules)``. Each compiles kernels that
#: the steps compile late (the search bots') and that share few callees with
#: the steps compiled first (the engine, hard), so the two processes rarely
#: compile the same function.
SIDE_STEPS = {"worlds": _compile_worlds, "fused": _compile_fused}


def side_steps(specs: Sequence[str]) -> list[str]:
    """The :data:`SIDE_STEPS` worth doing beside the warm-up of a tournament
    of ``specs`` whose search bots (``insane``, ``omniscient``) are not warm
    yet: ``worlds`` for ``insane``, ``fused`` for both."""
    from .bots import parse_spec

    names = set()
    for spec in specs:
        with contextlib.suppress(Exception):
            bot = parse_spec(spec)[0]
            if bot in ("insane", "omniscient") and not is_warm(f"bot-{bot}"):
                names.add("fused")
                if bot == "insane":
                    names.add("worlds")
    return [n for n in SIDE_STEPS if n in names]


def warm_up_tournament(rules, specs: Sequence[str], progress: bool = True, stream=None) -> list[str]:
    """Compile (or load) every kernel a tournament of ``specs`` under
    ``rules`` (a :class:`~dominoai.rules.Rules`) uses, in this process and
    before any worker starts, so the workers load them from the cache; say
    so when it compiles (:func:`compile_once`). With two cores or more, a
    second process compiles the search bots' belief and playout kernels
    meanwhile (:func:`side_steps`). Returns the cold steps."""
    return compile_once(tournament_steps(rules, specs), "the engine and the bots' kernels",
                        progress=progress, stream=stream, side=(rules, side_steps(specs)))


def _simulate_zero(rules) -> None:
    import numpy as np

    from .engine import fast as F
    F.simulate_lanes(rules.vector(), np.zeros(1, np.uint64), np.zeros(1, np.int64), np.zeros(16, np.int64))


def warm_up_simulation(rules, progress: bool = True, stream=None) -> list[str]:
    """Compile (or load) the batch simulation kernel (``dominoai simulate``)."""
    return compile_once([("simulate", partial(_simulate_zero, rules))], "the batch simulation",
                        progress=progress, stream=stream)
