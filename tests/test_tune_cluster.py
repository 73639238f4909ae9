"""One study, many workers: the storages (SQLite, PostgreSQL, a journal
file), two ``dominoai tune`` processes sharing a study while one of them is
killed in the middle of a trial, the liveness rules, and the bad input of
the storage options.

Sizes are tiny: insane in Block against easy, one searched parameter
(worlds), four enqueued settings, 8 deals per trial in 2 chunks. The
reference values come from one uninterrupted process in memory: the deals
are common random numbers, so each setting scores the same wherever it is
played.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from glob import glob
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai.bots.base import bot_params
from dominoai.cli import main

ROOT = Path(__file__).resolve().parents[1]
FIX = ("rollouts=1,exact=0,policy_weight=4,rollout_policy=random,hard_plies=0,hard_prior=0,"
       "sharp_weight=0.3,resample=1")
SETTINGS = dict(variant="block", bot="insane", opponents=["easy"], space="worlds=2..40", fix=FIX, seed=5,
                trials=4, hands=8, chunk=4, validate_hands=0)
ENQUEUED = ["insane:worlds=3", "insane:worlds=6", "insane:worlds=12", "insane:worlds=24"]
ARGS = ["tune", "--variant", "block", "--bot", "insane", "--opponents", "easy", "--space", "worlds=2..40",
        "--fix", FIX, "--seed", "5", "--trials", "4", "--hands", "8", "--chunk", "4", "--validate-hands", "0",
        "--no-progress", *[a for e in ENQUEUED for a in ("--enqueue", e)]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spec(worlds: int) -> str:
    return f"insane:worlds={worlds},rollouts=1,rollout_policy=random,exact=0,policy_weight=4.0"


# ---------------------------------------------------------------- bad input (no game is played)
def test_unknown_storage_and_unreachable_database(tmp_path, capsys):
    before = sorted(tmp_path.iterdir())
    assert main([*ARGS, "--storage", "mysql://u@h/db", "--study", "s"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--storage mysql://u@h/db: unknown kind of storage" in err, err
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
    url = f"postgresql://nobody@127.0.0.1:{_free_port()}/nothing"
    assert main([*ARGS, "--storage", url, "--study", "s"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot reach the database" in err and "--storage" in err, err
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.parametrize("kind", ["sqlite", "journal"])
def test_a_study_of_another_bot_or_preset_is_refused(tmp_path, capsys, kind):
    import optuna

    from dominoai.tune import StudySpec
    from dominoai.tune.storage import open_storage, parse_storage
    url = f"sqlite:///{tmp_path / 's.db'}" if kind == "sqlite" else f"journal:{tmp_path / 's.journal'}"
    # the study "shared" holds a study of hard in Draw (its identity only: no trial)
    other = StudySpec(variant="draw", bot="hard", opponents=["easy"], trials=4, hands=8)
    st = optuna.create_study(study_name="shared", storage=open_storage(parse_storage(url, "shared")),
                             direction="maximize")
    for k, v in other.ident.items():
        st.set_user_attr(k, v)
    del st
    path = tmp_path / ("s.db" if kind == "sqlite" else "s.journal")
    before = path.read_bytes()
    assert main([*ARGS, "--storage", url, "--study", "shared"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--study shared in" in err and "a study for another setting" in err, err
    assert "variant 'draw' there, 'block' asked" in err and "bot 'hard' there, 'insane' asked" in err
    assert path.read_bytes() == before


def test_an_sqlite_file_whose_tables_are_being_made_holds_no_study_yet(tmp_path, capsys):
    """A second worker can read the file while the first is making Optuna's
    tables: an empty database, or one with only some of Optuna's tables, holds
    no study yet; a database with tables of its own is not a study."""
    import sqlite3

    from dominoai.tune.storage import parse_storage, stored_identity
    ref = lambda p: parse_storage(f"sqlite:///{p}", "s")  # noqa: E731
    empty = tmp_path / "empty.db"
    empty.touch()
    partial = tmp_path / "partial.db"
    other = tmp_path / "other.db"
    for path, tables in ((partial, ("version_info", "studies")), (other, ("studies", "notes"))):
        con = sqlite3.connect(path)
        for t in tables:
            con.execute(f"CREATE TABLE {t} (x INTEGER)")
        con.commit()
        con.close()
    assert stored_identity(ref(empty)) is None
    assert stored_identity(ref(partial)) is None
    with pytest.raises(ValueError, match="not a dominoai tune study"):
        stored_identity(ref(other))
    # on the command line, whatever the study's name: the file is at fault
    before = other.read_bytes()
    for name in ("s", "another"):
        assert main([*ARGS, "--storage", f"sqlite:///{other}", "--study", name]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{other}: not an Optuna storage (give another --storage file)" in err, err
    assert other.read_bytes() == before


def test_a_file_that_is_no_journal_is_refused_untouched(tmp_path, capsys):
    """Optuna would append the study to any file and fail on the next read;
    a journal's last line cut short by a writer that died is no fault."""
    from dominoai.tune.storage import parse_storage, stored_identity
    for text in (b"hi\n", b"hi\n\n", b'{"op_code": 0}\nhi\n', b'{"op_code":0}\n[1, 2]\n{"op_code":1}\n'):
        notes = tmp_path / "notes.txt"
        notes.write_bytes(text)
        assert main([*ARGS, "--storage", f"journal:{notes}", "--study", "s"]) == 2
        err = capsys.readouterr().err
        bad = 2 if text.startswith(b"{") else 1
        assert err.count("\n") == 1 and f"--storage journal:{notes}: not a journal file (line {bad} is no " \
            "journal entry); nothing was written to it" in err, err
        assert notes.read_bytes() == text
    cut = tmp_path / "cut.journal"
    cut.write_bytes(b'{"op_code":0,"worker_id":"w","study_name":"other","directions":[2]}\n{"op_co')
    assert stored_identity(parse_storage(f"journal:{cut}", "s")) is None


def test_a_worker_whose_trial_number_was_taken_reseeds_its_sampler():
    """Workers seed the sampler of a new trial from the number of trials
    they see; two that ask at once see the same number and would play the
    same setting. The one given a later number than it seeded for reseeds;
    a queued trial (an earlier number) and an uncontested one do not."""
    import optuna

    from dominoai.tune.workers import Liveness
    st = optuna.create_study(direction="maximize")
    live = Liveness(st._storage, False, 1)
    calls = []

    def sampler():
        s = optuna.samplers.RandomSampler(seed=7)
        s.reseed_rng = lambda: calls.append(1)
        return s

    n = len(st.trials)
    st.sampler = live.mark(sampler(), 1, n)
    assert st.ask().number == n and calls == []
    st.sampler = live.mark(sampler(), 1, n)          # seeded for n, which the other worker took
    assert st.ask().number == n + 1 and calls == [1]
    st.enqueue_trial({"worlds": 3})
    queued = len(st.trials) - 1
    st.sampler = live.mark(sampler(), 1, len(st.trials))
    assert st.ask().number == queued and calls == [1]


def test_an_enqueued_spec_outside_the_space_is_refused(tmp_path, capsys):
    for bad, needle in (("insane:worlds=80", "outside its range 2..40"), ("insane:rollouts=2", "fixed at 1"),
                        ("hard", "a spec of 'insane' is needed")):
        assert main([*ARGS, "--study", str(tmp_path / "t.db"), "--enqueue", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--enqueue {bad}: " in err and needle in err, err
    assert not (tmp_path / "t.db").exists()


def test_an_enqueued_bot_name_queues_its_defaults_under_the_preset(tmp_path):
    """A bare spec queues the bot's defaults for the searched parameters (its
    per-preset ones where it has them), a spec with values those values on
    top; a default outside a narrowed range is left to the sampler."""
    from dominoai.bots.pimc.bots import TUNED_DEFAULTS
    from dominoai.tune import StudySpec

    spec = StudySpec(variant="block", bot="hard", opponents=["easy"], trials=1, hands=8,
                     enqueue=["hard", "hard:void=9"], study=tmp_path / "h.db")
    defaults = {k: p.default for k, p in bot_params("hard").items()}
    assert spec.queued[0] == {k: defaults[k] for k in spec.queued[0]} and len(spec.queued[0]) > 2
    assert spec.queued[1] == dict(spec.queued[0], void=9.0)
    assert spec.queued[0]["void"] != 9.0
    spec = StudySpec(variant="draw", bot="insane", opponents=["easy"], trials=1, hands=8,
                     space="worlds=2..40", enqueue=["insane"], study=tmp_path / "i.db")
    q = spec.queued[0]
    assert TUNED_DEFAULTS["draw"]["worlds"] > 40 and "worlds" not in q   # left to the sampler
    assert q["rollouts"] == TUNED_DEFAULTS["draw"]["rollouts"] != bot_params("insane")["rollouts"].default
    assert q["exact"] == TUNED_DEFAULTS["draw"]["exact"] and len(q) > 3
    assert not (tmp_path / "h.db").exists() and not (tmp_path / "i.db").exists()


# ---------------------------------------------------------------- liveness (no game is played)
def test_stale_trials_are_failed_and_queued_again(tmp_path, monkeypatch):
    """A trial of a process of this machine that is gone fails at once; one
    of another machine after three heartbeats without a beat; a live
    worker's trial never. Each failed setting is queued again once.

    The liveness clock is the test's: a slow machine between two calls
    does not count as heartbeats missed."""
    import types

    import optuna
    from optuna.trial import TrialState

    from dominoai.tune import workers as workers_module
    from dominoai.tune.storage import open_storage, parse_storage
    from dominoai.tune.workers import Liveness, me
    clock = [1000.0]
    monkeypatch.setattr(workers_module, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    ref = parse_storage(f"journal:{tmp_path / 'l.journal'}", "live")
    storage = open_storage(ref)
    st = optuna.create_study(study_name="live", storage=storage, direction="maximize")
    live = Liveness(storage, False, 10.0)          # stale after 30 s of the clock without a beat
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    workers = {"gone": dict(me(), pid=int(gone), token="x"), "remote": {"host": "elsewhere", "pid": 1},
               "alive": me()}
    number = {}
    for i, (name, w) in enumerate(workers.items()):
        t = st.ask()
        t.suggest_int("worlds", 2, 40)
        t.set_user_attr("worker", w)
        number[name] = t.number
    assert live.fail_stale(st) == [number["gone"]]
    assert live.fail_stale(st) == []               # the remote one is watched from now on
    clock[0] += 29.0                               # not yet three heartbeats without a beat
    assert live.fail_stale(st) == []
    clock[0] += 2.0                                # now more than three
    assert live.fail_stale(st) == [number["remote"]]
    clock[0] += 1000.0
    assert live.fail_stale(st) == []               # the live worker's trial: never
    trials = st.get_trials(deepcopy=False)
    state = {t.number: t.state for t in trials}
    assert state[number["alive"]] == TrialState.RUNNING
    assert state[number["gone"]] == state[number["remote"]] == TrialState.FAIL
    queued = [t for t in trials if t.state == TrialState.WAITING]
    assert sorted(t.user_attrs["retry_of"] for t in queued) == sorted([number["gone"], number["remote"]])
    params = {t.number: t.params for t in trials}
    for q in queued:
        assert q.system_attrs["fixed_params"] == params[q.user_attrs["retry_of"]]


@pytest.mark.filterwarnings("ignore:Heartbeat of storage")   # Optuna's: beaten by hand here
def test_database_heartbeat_fails_a_silent_trial(tmp_path):
    """SQLite records Optuna's heartbeats: a trial of another machine whose
    heartbeat stops is failed after three intervals (1 s each; the
    database's clock counts whole seconds)."""
    import optuna
    from optuna.trial import TrialState

    from dominoai.tune.storage import open_storage, parse_storage
    from dominoai.tune.workers import Liveness
    ref = parse_storage(f"sqlite:///{tmp_path / 'h.db'}", "beat")
    storage = open_storage(ref, 1, Liveness.requeue)
    st = optuna.create_study(study_name="beat", storage=storage, direction="maximize")
    live = Liveness(storage, True, 1)
    t = st.ask()
    t.suggest_int("worlds", 2, 40)
    t.set_user_attr("worker", {"host": "elsewhere", "pid": 1})
    storage.record_heartbeat(t._trial_id)
    assert live.fail_stale(st) == []
    time.sleep(5)
    assert live.fail_stale(st) == [t.number]
    waiting = st.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    assert len(waiting) == 1 and waiting[0].user_attrs["retry_of"] == t.number


# ---------------------------------------------------------------- two workers, one killed
# `python -m dominoai ARGS` that, once it has played the first chunk of its
# first trial, writes the barrier file and waits there (the test kills it)
STOP_IN_A_TRIAL = """
import pathlib, runpy, sys, time
import dominoai.tune.study as study
barrier, play = pathlib.Path(sys.argv[1]), study.play_chunk
def play_then_wait(*a, **k):
    out = play(*a, **k)
    barrier.write_text("in the middle of a trial")
    time.sleep(3600)
study.play_chunk = play_then_wait
sys.argv = ["dominoai", *sys.argv[2:]]
runpy.run_module("dominoai", run_name="__main__", alter_sys=True)
"""
# ... that, once it has told its first trial, writes the barrier file and
# waits until the go file exists
PAUSE_AFTER_A_TRIAL = """
import pathlib, runpy, sys, time
import optuna
barrier, go, tell = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), optuna.study.Study.tell
def tell_then_pause(self, *a, **k):
    out = tell(self, *a, **k)
    if not barrier.exists():
        barrier.write_text("one trial told")
        while not go.exists():
            time.sleep(0.05)
    return out
optuna.study.Study.tell = tell_then_pause
sys.argv = ["dominoai", *sys.argv[3:]]
runpy.run_module("dominoai", run_name="__main__", alter_sys=True)
"""


@pytest.fixture(scope="module")
def reference():
    """Each enqueued setting's value in one uninterrupted process (in memory)."""
    from dominoai import get_rules
    from dominoai._compile import warm_up_tournament
    from dominoai.tune import tune
    # compile here, once: the worker processes then load every kernel from the cache
    warm_up_tournament(get_rules("block"), ["insane", "easy"], progress=False)
    res = tune(**SETTINGS, enqueue=ENQUEUED, progress=False)
    df = res.trials
    assert sorted(df["spec"]) == sorted(_spec(w) for w in (3, 6, 12, 24)) and set(df["state"]) == {"COMPLETE"}
    return dict(zip(df["spec"], df["value"]))


def _wait_for(path: Path, proc) -> None:
    deadline = time.monotonic() + 600
    while not path.exists():
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, f"no {path.name}"
        time.sleep(0.05)


def _two_workers(tmp_path, storage: str, reference: dict):
    from optuna.trial import TrialState

    from dominoai.tune import load_study
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [*ARGS, "--storage", storage, "--study", "pair"]
    a_in, b_told, go = tmp_path / "a-in-trial", tmp_path / "b-told", tmp_path / "go"
    a = subprocess.Popen([sys.executable, "-c", STOP_IN_A_TRIAL, str(a_in), *cmd], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    b = None
    try:
        _wait_for(a_in, a)
        b = subprocess.Popen([sys.executable, "-c", PAUSE_AFTER_A_TRIAL, str(b_told), str(go), *cmd], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=False)
        _wait_for(b_told, b)
        st, df = load_study("pair", storage)
        first = df.iloc[0]
        # A's trial is live: B played the next setting and left A's alone
        assert first["state"] == "RUNNING" and first["worker"].endswith(f":{a.pid}")
        assert first["spec"] == _spec(3)
        assert df[df["state"] == "COMPLETE"]["worker"].str.endswith(f":{b.pid}").all()
        a.send_signal(signal.SIGKILL)
        a.wait()
        go.write_text("go")
        out, err = b.communicate(timeout=600)
        assert b.returncode == 0, err.decode()
    finally:
        for p in (a, b):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    st, df = load_study("pair", storage)
    assert df["number"].is_unique and df["number"].tolist() == list(range(len(df)))
    killed = df[df["number"] == first["number"]].iloc[0]
    assert killed["state"] == "FAIL"
    again = df[df["retry_of"] == killed["number"]]
    # the killed trial ran again, by B, with the same setting
    assert len(again) == 1 and again.iloc[0]["state"] == "COMPLETE" and again.iloc[0]["spec"] == killed["spec"]
    done = df[df["state"] == "COMPLETE"]
    assert len(done) == 4 and sorted(done["spec"]) == sorted(reference)
    # every setting's value is its value in one uninterrupted process
    assert dict(zip(done["spec"], done["value"])) == reference
    assert not st.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING))
    assert b"4 trials finished (0 pruned, 1 failed)" in out
    return df


@pytest.mark.e2e
def test_two_workers_share_a_journal_file(tmp_path, reference):
    _two_workers(tmp_path, f"journal:{tmp_path / 'pair.journal'}", reference)


def _postgres_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    hits = sorted(glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return hits[-1] if hits else None


@pytest.fixture
def postgres(tmp_path):
    """A private PostgreSQL server on a free port (its URL): initdb and
    pg_ctl run as an unprivileged user when the tests run as root (initdb
    refuses root), in a folder that user owns."""
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("PostgreSQL (initdb, pg_ctl) is not installed")
    kw = {}
    if os.geteuid() == 0:
        import pwd
        user = pwd.getpwnam("nobody")
        kw = dict(user=user.pw_uid, group=user.pw_gid, extra_groups=[])
        top = Path(tempfile.mkdtemp(prefix="dominoai-pg-"))   # tmp_path's parents are root's only
        os.chown(top, user.pw_uid, user.pw_gid)
    else:
        top = tmp_path
    data, port = top / "data", _free_port()
    log = top / "server.log"
    try:
        subprocess.run([initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
                       check=True, capture_output=True, cwd=top, **kw)
        subprocess.run([pg_ctl, "-D", str(data), "-l", str(log), "-w", "-t", "120", "-o",
                        f"-p {port} -k {top} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                       check=True, capture_output=True, cwd=top, **kw)
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True, cwd=top, **kw)
        if top != tmp_path:
            shutil.rmtree(top, ignore_errors=True)


@pytest.mark.e2e
def test_two_workers_share_a_postgresql_study(tmp_path, postgres, reference):
    _two_workers(tmp_path, postgres, reference)


@pytest.mark.e2e
def test_two_workers_validate_once(tmp_path, reference):
    """Two workers on one SQLite storage finish the search together; one
    validates, the other waits for its verdict and prints the same."""
    from dominoai.tune import load_study
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = [a for a in ARGS if a != "--no-progress"]
    args[args.index("--validate-hands") + 1] = "4"
    storage = f"sqlite:///{tmp_path / 'both.db'}"
    cmd = [sys.executable, "-m", "dominoai", *args, "--top", "1", "--progress", "--storage", storage,
           "--study", "both"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e for _, e in outs]
    verdicts = [[ln for ln in out.splitlines() if ln.startswith("validation: ")] for out, _ in outs]
    assert len(verdicts[0]) == 1 and verdicts[0] == verdicts[1]
    assert sum("validating the best 1 setting(s)" in err for _, err in outs) == 1
    st, df = load_study("both", storage)
    done = df[df["state"] == "COMPLETE"]
    # each enqueued setting queued once (the workers started together) and
    # played once; two workers asking at the same moment for the last trial
    # may both get one (a sampled setting)
    queued = done[done["spec"].isin(reference)]
    assert df["number"].is_unique and set(queued["spec"]) == set(reference) and 4 <= len(done) <= 5
    assert (df["state"] != "FAIL").all() and len(df) <= 5     # four queued, not eight
    assert all(reference[s] == v for s, v in zip(queued["spec"], queued["value"]))
    assert st.user_attrs["validation"]["verdict"]["deals"] == 4
    # both workers played: the trials name two processes
    assert done["worker"].nunique() == 2 and set(done["worker"]) == {f"{socket.gethostname()}:{p.pid}"
                                                                     for p in procs}


def test_a_trial_taken_for_dead_is_left_to_its_retry(tmp_path, monkeypatch, reference):
    """Another worker fails this worker's trial while it plays (it heard no
    heartbeat: a network outage, say): this worker drops that trial and goes
    on with the next, without an error."""
    import optuna
    from optuna.trial import TrialState

    import dominoai.tune.study as study_mod
    from dominoai.tune import tune
    from dominoai.tune.storage import open_storage, parse_storage
    url = f"journal:{tmp_path / 'net.journal'}"
    other = optuna.load_study  # the other worker: its own storage object on the same file
    play = study_mod.play_chunk

    def play_then_lose_the_trial(*a, **k):
        out = play(*a, **k)
        st = other(study_name="net", storage=open_storage(parse_storage(url, "net")))
        for t in st.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            if t.number == 0:
                st._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
        return out
    monkeypatch.setattr(study_mod, "play_chunk", play_then_lose_the_trial)
    res = tune(**dict(SETTINGS, trials=2), enqueue=ENQUEUED[:3], storage=url, study="net", progress=False)
    df = res.trials
    assert df["state"].tolist() == ["FAIL", "COMPLETE", "COMPLETE"]
    assert df["spec"].tolist()[1:] == [_spec(6), _spec(12)]
    assert df["value"].tolist()[1:] == [reference[_spec(6)], reference[_spec(12)]]
