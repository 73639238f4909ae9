"""The cluster backends give the tables of the local process pool: a Dask
LocalCluster and a local Ray cluster each play a tournament, a tuning
study (search, pruning steps and validation) and self-play records
identical to joblib's with the same seed (every column but the decision
time, which is measured).

Sizes are tiny (Block; easy, medium, and hard tuned against easy, whose
kernels load fast in each worker): the point is the determinism across
backends, not the play. The local tables are those of the process pool
(``jobs=2``) for the tournament, of this process for the rest: the tables
are the same for any ``jobs`` (tests/test_tournament.py, tests/test_tune.py).
"""

from __future__ import annotations

import os

import pandas.testing as pdt
import pytest

from dominoai.records import dumps_record
from dominoai.tournament import play_records, run_tournament
from dominoai.tune import tune

TOURNAMENT = dict(variant="block", bots=["easy", "medium"], hands=6, seed=4, progress=False, batch_units=2)
TUNE = dict(variant="block", bot="hard", opponents=["easy"], fix="heavy=0.25,follow=0.5,spread=0.75",
            seed=2, trials=2, hands=4, chunk=2, top=1, validate_hands=4, progress=False)
RECORDS = dict(variant="block", bots=["easy"], hands=3, seed=9)


def _no_time(df):
    return df.drop(columns=["time"]).reset_index(drop=True)


def _tune_key(res):
    cols = ["number", "state", "value", "lo", "hi", "deals", "spec", "repeat_of"]
    v = res.verdict
    return res.trials[cols].to_dict("records"), res.best_spec, (v.spec, v.mean, v.lo, v.hi, v.deals)


@pytest.fixture(scope="module")
def local():
    """The local tables (joblib's process pool for the tournament)."""
    return (run_tournament(jobs=2, **TOURNAMENT), tune(jobs=1, **TUNE),
            [dumps_record(r) for r in play_records(jobs=1, **RECORDS)])


def _same(local, tour, tuned, records):
    pdt.assert_frame_equal(_no_time(tour.hands), _no_time(local[0].hands))
    assert _tune_key(tuned) == _tune_key(local[1])
    assert local[1].trials["spec"].nunique() == 2 and (local[1].trials["deals"] == 4).all()
    assert [dumps_record(r) for r in records] == local[2]
    assert len(local[2]) == 6 and all('"easy:seed=' in r for r in local[2])


@pytest.mark.e2e
def test_dask_local_cluster_gives_the_same_tables(local):
    distributed = pytest.importorskip("dask.distributed", reason="the dask extra is not installed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        addr = cluster.scheduler_address
        tour = run_tournament(backend="dask", scheduler=addr, **TOURNAMENT)
        tuned = tune(backend="dask", scheduler=addr, **TUNE)
        records = play_records(backend="dask", scheduler=addr, **RECORDS)
    _same(local, tour, tuned, records)


@pytest.mark.e2e
def test_local_ray_cluster_gives_the_same_tables(local, ray_in_temporary_folders):
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    from dominoai.tournament import cluster_session
    from dominoai.tournament.backends import RAY_LOCAL
    assert RAY_LOCAL["include_dashboard"] is False and RAY_LOCAL["object_store_memory"] <= 100 * 2**20
    # one local cluster of 2 CPUs for the three runs; it is shut down after them
    with cluster_session("ray", None, 2):
        assert os.environ["RAY_USAGE_STATS_ENABLED"] == "0"
        assert ray.cluster_resources()["CPU"] == 2
        tour = run_tournament(backend="ray", jobs=2, **TOURNAMENT)
        tuned = tune(backend="ray", jobs=2, **TUNE)
        records = play_records(backend="ray", jobs=2, **RECORDS)
    assert not ray.is_initialized()
    _same(local, tour, tuned, records)


def test_a_missing_backend_names_its_extra(monkeypatch):
    import builtins

    from dominoai.errors import InputError
    real = builtins.__import__

    def no_ray(name, *a, **k):
        if name == "ray" or name.startswith("ray."):
            raise ImportError("no ray here")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(ValueError, match=r"backend 'ray' needs ray: pip install 'dominoai\[ray\]'"):
        run_tournament(backend="ray", **TOURNAMENT)
    with pytest.raises(ValueError, match=r"pip install 'dominoai\[ray\]'"):
        tune(backend="ray", **TUNE)
    with pytest.raises(InputError, match="scheduler"):
        tune(scheduler="tcp://x:1", **TUNE)


def test_an_unreachable_scheduler_is_named_in_one_line(tmp_path, monkeypatch, capsys):
    """A Dask address where nothing listens: the library raises a
    ValueError naming the address and ``--scheduler``; the CLI prints one
    line, exits 2 and writes no results file."""
    pytest.importorskip("distributed", reason="backend 'dask' needs dask[distributed]")
    import socket

    import dask

    from dominoai.cli import main
    with socket.socket() as s:  # a free port, closed again: nothing answers there
        s.bind(("127.0.0.1", 0))
        addr = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(ValueError, match=rf"no Dask scheduler answered at {addr} \(--scheduler\)"):
            run_tournament(backend="dask", scheduler=addr, **TOURNAMENT)
        monkeypatch.chdir(tmp_path)
        capsys.readouterr()
        code = main(["tournament", "--variant", "block", "--bots", "easy,medium", "--hands", "2",
                     "--backend", "dask", "--scheduler", addr, "--out", "r.csv"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and addr in err[0] and "--scheduler" in err[0]
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_ray_cluster_is_refused_at_once(tmp_path, monkeypatch, capsys):
    """``ray.init`` retries an address where nothing listens for good: the
    address is tried first, and refused in one line."""
    pytest.importorskip("ray", reason="backend 'ray' needs ray")
    import socket

    from dominoai.cli import main
    with socket.socket() as s:  # a free port, closed again: nothing answers there
        s.bind(("127.0.0.1", 0))
        addr = f"127.0.0.1:{s.getsockname()[1]}"
    for given in (addr, f"ray://{addr}"):
        refused = rf"no Ray cluster answered at {given} \(--scheduler\): Connection refused"
        with pytest.raises(ValueError, match=refused):
            run_tournament(backend="ray", scheduler=given, **TOURNAMENT)
    with pytest.raises(ValueError, match="--scheduler 127.0.0.1: give a Ray cluster's address as HOST:PORT"):
        run_tournament(backend="ray", scheduler="127.0.0.1", **TOURNAMENT)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = main(["tournament", "--variant", "block", "--bots", "easy,medium", "--hands", "2",
                 "--backend", "ray", "--scheduler", addr, "--out", "r.csv"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and addr in err[0] and "--scheduler" in err[0], err
    assert list(tmp_path.iterdir()) == []
