"""Bots thinking in worker processes for ``dominoai serve``.

No engine kernel releases the GIL, so a bot thinking in a thread would stop
the server. Each decision is sent to a
:class:`concurrent.futures.ProcessPoolExecutor` as plain data
(:func:`request`): the bot's spec and the decision's seed, the rules as a
record writes them, and the seat's observation (its compact array and event
log); the worker builds the bot and the observation and returns the move's
code (:func:`think`). A bot that declares ``needs_state`` is not seated by
the server (only the four levels are), so the true state never leaves it.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ..bots import make_bot
from ..game import Match
from ..observation import Observation
from ..rules import Rules

__all__ = ["request", "think", "make_pool", "warm"]


def request(table, seed: int) -> tuple:
    """The data a worker needs for the decision of the bot to move at ``table``
    (a :class:`~dominoai.table.Table`): ``(spec, seed, rules, array, events)``."""
    h = table.hand
    seat = h.seat
    obs = h.observe(seat)
    return (table.meta["bots"][seat], int(seed), table.rules.to_record(), obs.array.tolist(),
            obs.event_array.tolist())


def think(spec: str, seed: int, rules: dict, array: list, events: list) -> int:
    """In a worker: the move code the bot ``spec`` (seeded with ``seed``)
    chooses for the observation ``array``/``events`` under ``rules``.

    :raises ValueError: a spec that does not build, or rules that do not
        (:meth:`Rules.from_record <dominoai.rules.Rules.from_record>`).
    """
    r = _rules(rules)
    obs = Observation(r, np.array(array, np.int64), np.array(events, np.int64).reshape(-1, 4))
    bot = make_bot(spec, seed=seed)
    return int(bot.act(obs).code)


_RULES_CACHE: dict = {}


def _rules(d: dict):
    key = repr(sorted(d.items()))
    r = _RULES_CACHE.get(key)
    if r is None:
        r = _RULES_CACHE[key] = Rules.from_record(d)
    return r


def warm() -> int:
    """In a worker: import the bots and let ``easy`` decide once, so that the
    first real decision does not wait for the engine's kernels to load (the
    stronger levels load theirs on first use). Returns the process id."""
    h = Match("block", seed=1).new_hand()
    make_bot("easy", seed=1).act(h.observe(h.seat))
    return os.getpid()


def make_pool(workers: int | None = None) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (default: the CPU count), started with
    ``spawn`` (a fork of a server running threads is not safe). A worker
    ends by itself within a second of the server's end, however the server
    ended (killed too: :func:`_follow_parent`)."""
    n = workers or os.cpu_count() or 1
    return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_follow_parent, initargs=(os.getpid(),))


def _follow_parent(parent: int) -> None:
    """In a worker: end this process as soon as ``parent`` (the server) is no
    longer its parent, checked each second by a daemon thread: a killed
    server's workers would otherwise live on."""
    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)
    threading.Thread(target=watch, name="follow-parent", daemon=True).start()
