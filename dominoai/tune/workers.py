"""Many workers on one study: who runs a trial, whether that worker is
alive, and the trials of a dead worker queued again.

Every trial records its worker (``worker``: host, process id and a token
of the process) as Optuna creates it, and a live worker beats while the
trial runs, every ``heartbeat`` seconds:

- in a database (SQLite, PostgreSQL), with Optuna's heartbeat
  (``RDBStorage.record_heartbeat``);
- in a journal file, which has none, by raising the trial's ``beat``
  counter (a user attribute).

A ``RUNNING`` trial is **stale** (its worker died) when

- its worker ran on this machine and that process is gone (seen at once);
- or, in a database, Optuna's last heartbeat of it is older than three
  intervals (``optuna.storages.fail_stale_trials``, before every trial);
- or, in a journal file (or for a trial with no heartbeat at all), its
  ``beat`` has not changed for three intervals as this worker watches it
  (measured on this worker's own clock, so the machines' clocks need not
  agree; a worker that has just started waits three intervals before it
  calls another machine's trial stale).

A stale trial is marked ``FAIL`` and, when it had drawn its parameters,
queued again with them (a ``WAITING`` trial whose ``retry_of`` names the
first trial), at most :data:`MAX_RETRIES` times. Its result is the one an
uninterrupted worker gets: the deals are common random numbers.

The validation is claimed the same way (the study's ``validating``
attribute, with a beat), so one worker validates and the others wait for
its verdict.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
import warnings

__all__ = ["me", "is_dead", "Liveness", "MAX_RETRIES"]

#: a setting whose trial was stale this many times is not queued again
MAX_RETRIES = 3
_TOKEN = uuid.uuid4().hex[:12]


def me() -> dict:
    """This worker: ``{"host", "pid", "token"}`` (the token tells a later
    process that reuses the pid from this one)."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "token": _TOKEN}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    try:   # a zombie (killed, not yet reaped) is dead
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return True


def is_dead(worker: dict | None) -> bool:
    """True when ``worker`` ran on this machine and its process is gone."""
    if not isinstance(worker, dict) or worker.get("host") != socket.gethostname():
        return False
    if worker.get("pid") == os.getpid():
        return worker.get("token") != _TOKEN
    return not _pid_alive(int(worker.get("pid", -1)))


class Liveness:
    """The liveness rules of one study's storage for this worker.

    :param storage: the Optuna storage; ``native``: it records Optuna's
        heartbeats (a database opened with ``heartbeat``).
    :param heartbeat: seconds between beats; stale after three.
    """

    def __init__(self, storage, native: bool, heartbeat: float):
        self.storage = storage
        self.native = native
        self.heartbeat = float(heartbeat)
        self.grace = 3 * self.heartbeat
        self._seen: dict = {}

    # ---------------------------------------------------------- watching
    def quiet_for(self, key, value) -> float:
        """Seconds (this worker's clock) since ``value`` of ``key`` last changed."""
        now = time.monotonic()
        old = self._seen.get(key)
        if old is None or old[0] != value:
            self._seen[key] = (value, now)
            return 0.0
        return now - old[1]

    def _stale(self, t) -> bool:
        w = t.user_attrs.get("worker")
        if is_dead(w):
            return True
        if w is not None and w.get("token") == _TOKEN:
            return False
        if self.native and w is not None:
            return False     # Optuna's heartbeat decides (fail_stale_trials)
        return self.quiet_for(("trial", t._trial_id), t.user_attrs.get("beat", 0)) > self.grace

    def fail_stale(self, study) -> list[int]:
        """Mark the stale trials of ``study`` failed and queue their
        settings again; return the numbers failed here."""
        import optuna
        from optuna.trial import TrialState
        failed = []
        if self.native:
            before = {t.number for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # 'experimental'
                optuna.storages.fail_stale_trials(study)   # calls requeue for each
            after = {t.number for t in study.get_trials(deepcopy=False, states=(TrialState.FAIL,))}
            failed += sorted(before & after)
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            if self._stale(t) and self._fail(t):
                self.requeue(study, t)
                failed.append(t.number)
        return failed

    def _fail(self, t) -> bool:
        from optuna.exceptions import UpdateFinishedTrialError
        from optuna.trial import TrialState
        try:
            return bool(self.storage.set_trial_state_values(t._trial_id, TrialState.FAIL))
        except (UpdateFinishedTrialError, RuntimeError):
            return False    # another worker failed it first

    @staticmethod
    def requeue(study, t) -> None:
        """Queue the setting of the failed trial ``t`` again (if it drew
        one, and at most :data:`MAX_RETRIES` times)."""
        if not t.params:
            return
        first = t.user_attrs.get("retry_of", t.number)
        tries = int(t.user_attrs.get("retries", 0)) + 1
        if tries > MAX_RETRIES:
            return
        study.enqueue_trial(dict(t.params), user_attrs={"retry_of": first, "retries": tries})

    # ---------------------------------------------------------- marking and beating
    def mark(self, sampler, run: int, number: int | None = None):
        """``sampler`` recording this worker and its ``run`` (and a first
        heartbeat) on each trial as Optuna creates it, before anything else
        can happen to it. ``number``: the trial number ``sampler`` was
        seeded for; when another worker made that trial first (both asked at
        once, with the same trials behind them) and this one gets a later
        number, the sampler is reseeded so that the two do not play the same
        setting."""
        storage, native, orig = self.storage, self.native, sampler.before_trial
        worker = dict(me(), run=run)

        def before_trial(study, trial):
            storage.set_trial_user_attr(trial._trial_id, "worker", worker)
            if native:
                storage.record_heartbeat(trial._trial_id)
            if number is not None and trial.number > number:   # (a queued trial has a smaller one)
                sampler.reseed_rng()
            orig(study, trial)
        sampler.before_trial = before_trial
        return sampler

    @contextlib.contextmanager
    def _beating(self, beat):
        stop = threading.Event()

        def loop():
            n = 0
            while not stop.wait(self.heartbeat):
                n += 1
                try:
                    beat(n)
                except Exception:    # a lost connection: the next beat tries again
                    pass
        th = threading.Thread(target=loop, name="dominoai-heartbeat", daemon=True)
        th.start()
        try:
            yield
        finally:
            stop.set()
            th.join()

    def trial_beating(self, trial_id: int):
        """A context: the trial's heartbeat recorded every ``heartbeat`` seconds."""
        if self.native:
            return self._beating(lambda n: self.storage.record_heartbeat(trial_id))
        return self._beating(lambda n: self.storage.set_trial_user_attr(trial_id, "beat", n))

    def claim_beating(self, study, attr: str, claim: dict):
        """A context: the study attribute ``attr`` (this worker's ``claim``) beats."""
        return self._beating(lambda n: study.set_user_attr(attr, dict(claim, beat=n)))

    def claim_dead(self, claim: dict) -> bool:
        """Whether the worker of a claim (the study's ``validating``) is gone."""
        w = claim.get("worker")
        return is_dead(w) or self.quiet_for(("claim", (w or {}).get("token")), claim.get("beat", 0)) > self.grace
