"""Where a tournament's batches run: joblib's local process pool, a Dask
cluster (through joblib's backend switch) or a Ray cluster (as Ray tasks).

:func:`check_backend` checks a backend and a scheduler address before any
work; :func:`local_jobs` caps the local pool at the machine's cores;
:func:`cluster_session` keeps one connection to a cluster open for several
tournaments (a study's trials play inside one, :func:`dominoai.tune.tune`);
:func:`execute` runs the batch calls and yields their results as they
finish. The cluster libraries are imported only when their backend is used.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import socket
import sys
from typing import Iterable

from ..errors import InputError

__all__ = ["LOCAL_BACKENDS", "RAY_LOCAL", "check_backend", "local_jobs", "cluster_session", "execute"]

#: the backends that run on this machine (None: joblib's default, loky)
LOCAL_BACKENDS = (None, "loky", "multiprocessing", "threading")

#: how a local Ray cluster is started (no dashboard, no usage report, a small
#: object store: the batches' tables are small)
RAY_LOCAL = dict(include_dashboard=False, object_store_memory=80 * 2**20, log_to_driver=False)


def _dask_client(scheduler: str | None, jobs: int):
    """``(client, own)``: the current Dask client when it talks to
    ``scheduler`` (or any, without one), else a new one (``own`` True) to
    ``scheduler``, or to a local cluster of ``jobs`` worker processes."""
    try:
        from dask.distributed import Client, get_client
    except ImportError:
        raise ValueError("backend 'dask' needs dask[distributed]: pip install 'dominoai[dask]'") from None
    try:
        client = get_client()
        if not scheduler or getattr(client.scheduler, "address", None) == scheduler:
            return client, False
    except ValueError:
        pass
    if scheduler:
        try:
            return Client(scheduler), True
        except OSError as e:  # distributed's connect timeout is an OSError
            raise ValueError(f"no Dask scheduler answered at {scheduler} (--scheduler): {e}") from None
    return Client(processes=True, n_workers=jobs if jobs > 0 else None, threads_per_worker=1,
                  dashboard_address=None), True


#: seconds to wait for a Ray cluster's port to answer before refusing it
RAY_CONNECT_TIMEOUT = 10.0


def _ray_reachable(scheduler: str) -> None:
    """Refuse a Ray address (``HOST:PORT`` or ``ray://HOST:PORT``) where
    nothing accepts a connection: ``ray.init`` keeps retrying such an address
    for good. ``auto`` and ``local`` are left to Ray.

    :raises ValueError: no port given, or nothing answers within
        :data:`RAY_CONNECT_TIMEOUT` seconds.
    """
    if scheduler in ("auto", "local"):
        return
    where = scheduler.split("://", 1)[-1]
    host, _, port = where.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--scheduler {scheduler}: give a Ray cluster's address as HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_TIMEOUT).close()
    except OSError as e:
        reason = e.strerror or str(e) or type(e).__name__
        raise ValueError(f"no Ray cluster answered at {scheduler} (--scheduler): {reason}") from None


def _ray_init(scheduler: str | None, jobs: int) -> bool:
    """Connect to Ray (``scheduler``: a cluster's address, else a local
    cluster of ``jobs`` CPUs, :data:`RAY_LOCAL`) unless connected; return
    whether this call connected. Ray's usage report is off unless the
    environment turns it on."""
    try:
        import ray
    except ImportError:
        raise ValueError("backend 'ray' needs ray: pip install 'dominoai[ray]'") from None
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if scheduler:
        _ray_reachable(scheduler)
        try:
            ray.init(address=scheduler, log_to_driver=False)
        except ConnectionError as e:
            raise ValueError(f"no Ray cluster answered at {scheduler} (--scheduler): {e}") from None
    else:
        ray.init(num_cpus=jobs if jobs > 0 else None, **RAY_LOCAL)
    return True


@contextlib.contextmanager
def cluster_session(backend: str | None, scheduler: str | None = None, jobs: int = -1):
    """Keep one connection to the cluster of ``backend`` (``"dask"`` or
    ``"ray"``; anything else: nothing) open for several tournaments, so
    that each does not connect again (:func:`~dominoai.tune.tune` plays
    every chunk of every trial inside one).

    :raises ValueError: the backend's library is missing, or no cluster answers
        at ``scheduler``.
    """
    if backend == "dask":
        client, own = _dask_client(scheduler, jobs)
        try:
            yield
        finally:
            if own:
                client.close()
        return
    if backend == "ray":
        started = _ray_init(scheduler, jobs)
        try:
            yield
        finally:
            if started:
                import ray
                ray.shutdown()
        return
    yield


@contextlib.contextmanager
def _backend(backend: str | None, scheduler: str | None, jobs: int):
    """joblib's backend switch: the local pool, or a Dask cluster (an open
    :func:`cluster_session` is used)."""
    import joblib
    if backend in LOCAL_BACKENDS:
        if scheduler:
            raise ValueError("a scheduler address needs backend 'dask' or 'ray'")
        with joblib.parallel_config(backend=backend or "loky"):
            yield
        return
    if backend != "dask":   # Ray runs its own tasks (_execute_ray)
        raise ValueError(f"unknown backend {backend!r}; backends are loky (local), dask, ray")
    with cluster_session(backend, scheduler, jobs):
        with joblib.parallel_config(backend=backend):
            yield


def execute(calls: list, jobs: int, backend: str | None, scheduler: str | None) -> Iterable:
    """Run ``calls`` (``(function, args)`` pairs) with ``jobs`` workers on
    ``backend`` (None: joblib's local process pool, or this process when
    ``jobs`` is 1; ``"dask"``, ``"ray"``: a cluster, at ``scheduler`` if
    given), yielding each call's result as it finishes (in any order).

    :raises ValueError: an unknown backend, a scheduler without a cluster
        backend, a cluster library missing, or no cluster answering.
    :raises Exception: whatever a call raises.
    """
    if not calls:
        return
    if backend is None and jobs == 1:
        for f, args in calls:
            yield f(*args)
        return
    if backend == "ray":
        yield from _execute_ray(calls, jobs, scheduler)
        return
    from joblib import Parallel, delayed
    n_jobs = jobs if backend is None or jobs not in (None, 1) else -1
    with _backend(backend, scheduler, jobs):
        try:
            par = Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1)
            yield from par(delayed(f)(*args) for f, args in calls)
        except ValueError as e:
            if "return_as" not in str(e):
                raise
            # a backend without result generators: run in waves, parts still written as they finish
            par = Parallel(n_jobs=n_jobs, batch_size=1)
            wave = max(2, 4 * par._effective_n_jobs())
            for i in range(0, len(calls), wave):
                yield from par(delayed(f)(*args) for f, args in calls[i:i + wave])


def _call(f, args):
    return f(*args)


def _execute_ray(calls: list, jobs: int, scheduler: str | None) -> Iterable[dict]:
    """The batch calls as Ray tasks (one CPU each), yielding each result as
    it finishes. Ray keeps its worker processes from one tournament to the
    next (joblib's Ray backend starts new ones for each), so the kernels
    load once per worker."""
    with cluster_session("ray", scheduler, jobs):
        import ray
        task = ray.remote(num_cpus=1)(_call)
        pending = [task.remote(f, args) for f, args in calls]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        finally:
            for ref in pending:     # a failure or an interrupt: the rest is not needed
                ray.cancel(ref, force=True)


def local_jobs(jobs: int, backend: str | None = None) -> int:
    """``jobs`` for the local process pool (``backend`` None, ``"loky"``,
    ``"multiprocessing"`` or ``"threading"``), at most the machine's cores
    (:func:`os.cpu_count`): more workers than cores only share them. When
    it caps, one note on stderr says so. ``-1`` (every core) and the
    cluster backends (Dask, Ray: their workers are elsewhere) pass as given.

    >>> local_jobs(1), local_jobs(-1), local_jobs(10_000, "dask")
    (1, -1, 10000)
    """
    cores = os.cpu_count() or 1
    if backend in LOCAL_BACKENDS and jobs > cores:
        sys.stderr.write(f"dominoai: note: {jobs} worker processes asked for (--jobs), but this "
                         f"machine has {cores} cores: running {cores}\n")
        return cores
    return jobs


def check_backend(backend: str | None, scheduler: str | None) -> None:
    """Check ``backend`` (one of :data:`LOCAL_BACKENDS`, ``"dask"`` or
    ``"ray"``) and ``scheduler`` (a cluster's address, for the cluster
    backends only) before any work, without connecting to anything.

    :raises ValueError: an unknown backend, or one whose library is missing
        (naming the extra to install).
    :raises InputError: a scheduler address without a cluster backend.
    """
    if backend not in (*LOCAL_BACKENDS, "dask", "ray"):
        raise ValueError(f"unknown backend {backend!r}; backends are loky (local), dask, ray")
    need = {"dask": ("dask.distributed", "dask[distributed]: pip install 'dominoai[dask]'"),
            "ray": ("ray", "ray: pip install 'dominoai[ray]'")}.get(backend)
    if need is not None:
        try:
            importlib.import_module(need[0])
        except ImportError:
            raise ValueError(f"backend {backend!r} needs {need[1]}") from None
    if scheduler and backend not in ("dask", "ray"):
        raise InputError("scheduler", scheduler, "a $scheduler address needs backend 'dask' or 'ray'")
