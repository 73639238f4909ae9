"""The study: an Optuna study (an SQLite file, a PostgreSQL database or a
journal file: :mod:`.storage`), resumable, shared by any number of workers.

:func:`tune` validates every argument (and, for an existing study, that it
was made for the same variant, bot, opponent pool, objective, deals and
search space) *before* it opens the storage, so bad input leaves it as it
was. A worker runs its trials one after another (the parallelism is inside
each tournament: local processes, Dask or Ray), which with a sampler
seeded from ``seed`` and the number of trials already in the study makes a
study of one worker reproducible for any number of jobs. Rerunning the same
command resumes: the study goes on until ``trials`` have finished.

Several workers (``dominoai tune`` processes on one machine or many, given
the same storage and study) share the study: Optuna gives each trial
number once, every trial plays the same chunk deals (common random
numbers), pruning compares trials across workers, and one worker validates
(:mod:`.workers`). A trial whose worker died is marked ``FAIL`` and its
setting queued again; a live worker's trial is never touched.

Each trial reports its running value after every chunk of deals; Optuna's
``MedianPruner`` stops trials below the median of the earlier ones at the
same step (they played the same deals). With ``max_ms``, a trial whose
median ms per decision exceeds it is infeasible (``TPESampler``'s
``constraints_func``); one more than 1.5 times over after a chunk stops
there.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
import warnings
import dataclasses
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Sequence

import numpy as np
from tqdm import tqdm

from .._files import atomic_write, nearest_existing
from ..bots.base import bot_params, make_bot
from ..bots.spec import parse_spec
from ..bots.spec import split_bot_specs
from ..errors import InputError, check_int, check_jobs, check_number, is_int
from ..rules import Rules, get_rules
from ..tournament.backends import check_backend, cluster_session, local_jobs
from .objective import OBJECTIVE, PROBE, SEARCH, Evaluation, canonical, play_chunk, stage_seed
from .space import cheapest_specs, make_space, spec_of
from .storage import STUDY_NAME, StorageRef, _optuna, open_storage, parse_storage, stored_identity
from .validation import Verdict, validate
from .workers import Liveness, me

__all__ = ["tune", "StudySpec", "TuneResult", "load_study", "trials_frame", "STUDY_NAME", "FORMAT"]

FORMAT = "dominoai.tune/1"
#: settings whose difference makes a study file another study
IDENTITY = ("format", "variant", "players", "bot", "opponents", "objective", "hands", "chunk", "seed",
            "max_ms", "space", "fix")
TOO_SLOW = 1.5   # a trial this many times over max_ms after a chunk stops there
POLL = 1.0       # seconds between looks at the study while other workers finish
CLAIM_WAIT = 0.5  # seconds a validation claim is left to settle before it is trusted


@dataclass
class TuneResult:
    """What :func:`tune` returns: ``trials`` (one row per trial: ``number``,
    ``state``, ``value`` and its interval ``lo``, ``hi`` in points per hand,
    ``ms_per_decision``, ``feasible``, ``deals`` used, ``spec``, ``seconds``,
    ``tournament_seconds``, ``run``, ``stopped``, ``repeat_of``: the earlier
    trial whose result a trial took because it played the same spec, -1 if
    it played; ``retry_of``: the trial, failed with its worker, whose
    setting this trial plays again, -1 if none; ``worker``: host:pid;
    then one column per parameter),
    ``best_spec`` (the best feasible finished trial's spec, or None),
    ``verdict`` (a :class:`~.validation.Verdict`, or None when validation
    was skipped or no trial is feasible), ``study_path``, ``trials_path``."""

    trials: "object"
    best_spec: str | None
    verdict: Verdict | None
    study_path: Path | None = None
    trials_path: Path | None = None
    elapsed: float = 0.0

    @property
    def verdict_line(self) -> str:
        if self.verdict is not None:
            return self.verdict.line
        if self.best_spec is None:
            return "no feasible trial: keep the defaults"
        return f"best {self.best_spec} (not validated)"

    def summary(self, listed: int = 5) -> str:
        """What ``dominoai tune`` prints: the trials finished; the best
        ``listed`` feasible complete trials (within ``max_ms``) by points
        per hand against the pool on the search's deals, said to be a top
        ``listed`` of so many; ``best by search``, the first of them
        (:attr:`best_spec`); ``validated winner``, the setting the
        validation accepted against the defaults on fresh deals (one of the
        candidates replayed, not always the best by search), or none; then
        the validation's own line."""
        df = self.trials
        done = df[df["state"].isin(["COMPLETE", "PRUNED"])]
        complete = done[done["state"] == "COMPLETE"]
        lines = [f"{len(done)} trials finished ({int((df['state'] == 'PRUNED').sum())} pruned, "
                 f"{int((df['state'] == 'FAIL').sum())} failed)"]
        feasible = complete[complete["feasible"]]
        slow = len(complete) - len(feasible)
        best = feasible.sort_values(["value", "number"], ascending=[False, True]).head(listed)
        if len(best):
            within = f" within the time limit ({slow} more too slow)" if slow else ""
            which = (f"top {len(best)} of {len(feasible)}" if len(best) < len(feasible)
                     else f"all {len(best)}")
            lines.append(f"{which} complete trials{within}, best first, by points per hand vs the "
                         "pool on the search's deals:")
        for r in best.itertuples():
            lines.append(f"  #{r.number:<4d} {r.value:+.3f} [{r.lo:+.3f}, {r.hi:+.3f}] "
                         f"{r.ms_per_decision:.2f} ms/decision  {r.spec}")

        def number(spec):
            rows = complete[complete["spec"] == spec].sort_values("number")
            return int(rows["number"].iloc[0]) if len(rows) else None

        if self.best_spec:
            b = complete[complete["spec"] == self.best_spec]["value"]
            value = f" ({float(b.iloc[0]):+.3f} points/hand vs the pool)" if len(b) else ""
            lines.append(f"best by search: #{number(self.best_spec)} {self.best_spec}{value}")
        else:
            lines.append("best by search: none (no feasible trial)")
        v = self.verdict
        if v is None:
            lines.append("validated winner: none (not validated)" if self.best_spec
                         else "validated winner: none: keep the defaults")
        else:
            if v.accepted:
                which = ("the best by search" if v.spec == self.best_spec else
                         f"#{number(v.spec)} of the search, not its best")
                lines.append(f"validated winner: {v.spec} ({which})")
            else:
                lines.append("validated winner: none: keep the defaults")
            lines.append(f"validation: {v.line}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


# ---------------------------------------------------------------- checks
def _check_writable(path: Path, field: str = "study") -> None:
    """Raise InputError (naming ``field``) unless ``path`` can be written
    (without changing it)."""
    def bad(why: str) -> InputError:
        return InputError(field, path, f"${field} {path}: {why}")
    if path.exists():
        if path.is_dir():
            raise bad("is a directory")
        try:
            with open(path, "r+b"):
                pass
        except OSError as e:
            raise bad(f"not writable: {e.strerror or e}") from None
        return
    top = nearest_existing(path.parent)
    if not top.is_dir():
        raise bad("a part of its folder path is a file")
    try:
        fd, tmp = tempfile.mkstemp(dir=top, prefix=".dominoai-tune-")
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise bad(f"cannot write in {top}: {e.strerror or e}") from None


def _stored_identity(ref: StorageRef, hint: str = "") -> dict | None:
    """The identity of the study ``ref`` names (read-only), None if the
    storage has no such study yet, or one with no attribute at all (another
    worker made it this instant and is writing its settings: they are
    compared once written). :raises ValueError: not a dominoai tune study
    (the message ends with ``hint``)."""
    where = ref.text if ref.kind != "sqlite" or ref.text == str(ref.path) else str(ref.path)
    try:
        attrs = stored_identity(ref)
    except InputError:
        raise
    except ValueError as e:
        if "needs psycopg" in str(e):
            raise
        if ref.text != str(ref.path):   # --storage names the file: the file itself is wrong
            raise ValueError(f"{where}: not an Optuna storage (give another --storage file)") from None
        attrs = {"format": None}
    if not attrs:
        return None
    if attrs.get("format") != FORMAT:
        name = "" if ref.name == STUDY_NAME else f" (study {ref.name!r})"
        raise ValueError(f"{where}{name}: not a dominoai tune study{hint}")
    return attrs


def _compare(ref: StorageRef, stored: dict, ident: dict) -> None:
    diff = [k for k in IDENTITY if stored.get(k) != ident.get(k)]
    if diff:
        what = "; ".join(f"{k} {stored.get(k)!r} there, {ident.get(k)!r} asked" for k in diff)
        if ref.kind == "sqlite" and ref.name == STUDY_NAME:
            raise InputError("study", ref.path, f"$study {ref.path} is a study for another setting ({what}); "
                             "use another $study file")
        raise InputError("study", ref.name, f"$study {ref.name} in {ref.text} is a study for another "
                         f"setting ({what}); give another $study name", "storage")


def _probe(variant, players, specs, opponent, max_ms, seed) -> None:
    """Refuse a time limit that not even the cheapest settings meet."""
    best = (math.inf, None)
    for spec in specs:
        _, ms, _, _ = play_chunk(variant, players, spec, opponent, 4, stage_seed(seed, PROBE, 0), 1)
        med = float(np.median(ms)) if len(ms) else 0.0
        if med <= max_ms:
            return
        best = min(best, (med, spec))
    raise InputError("max_ms", max_ms, f"$max_ms {max_ms}: no setting can meet it: the cheapest "
                     f"({best[1]}) takes {best[0]:.3g} ms per decision")


# ---------------------------------------------------------------- the table
def _played(trials, spec: str):
    """The first complete trial among ``trials`` that played ``spec``, or None."""
    for t in trials:
        if t.state.name == "COMPLETE" and t.user_attrs.get("start", {}).get("spec") == spec \
                and "result" in t.user_attrs and t.value is not None:
            return t
    return None


def trials_frame(study, params: Sequence[str] | None = None):
    """The trials of an Optuna ``study`` as a DataFrame (see :class:`TuneResult`)."""
    import pandas as pd
    rows = []
    names = list(params) if params is not None else list(json.loads(
        json.dumps(study.user_attrs.get("space", {}))))
    for t in study.get_trials(deepcopy=False):
        u = {"run": t.user_attrs.get("worker", {}).get("run", 0), **t.user_attrs.get("start", {}),
             **t.user_attrs.get("result", {})}
        r = {"number": t.number, "state": t.state.name,
             "value": u.get("value", t.value if t.value is not None else math.nan),
             "lo": u.get("lo", math.nan), "hi": u.get("hi", math.nan),
             "ms_per_decision": u.get("ms", math.nan), "feasible": bool(u.get("feasible", False)),
             "deals": int(u.get("deals", 0)), "spec": u.get("spec", ""),
             "seconds": u.get("seconds", math.nan), "tournament_seconds": u.get("tournament_seconds", math.nan),
             "run": int(u.get("run", 0)), "stopped": u.get("stopped", ""),
             "repeat_of": int(u.get("repeat_of", -1)), "retry_of": int(t.user_attrs.get("retry_of", -1)),
             "worker": u.get("worker", "")}
        for k in names:
            r[k] = u.get("values", {}).get(k, t.params.get(k))  # as played (floats rounded)
        rows.append(r)
    cols = ["number", "state", "value", "lo", "hi", "ms_per_decision", "feasible", "deals", "spec",
            "seconds", "tournament_seconds", "run", "stopped", "repeat_of", "retry_of", "worker", *names]
    return pd.DataFrame(rows, columns=cols)


def load_study(study, storage=None):
    """The Optuna study (read as is) and its trials DataFrame: ``study`` an
    SQLite file, or with ``storage`` (see :mod:`.storage`) the study's name.

    :raises ValueError: no such study, or not a dominoai tune study.
    """
    ref = parse_storage(storage, study)
    if _stored_identity(ref) is None:
        raise ValueError(f"no such study file: {study}" if storage is None
                         else f"no study {ref.name!r} in {ref.text}")
    optuna = _optuna()
    st = optuna.load_study(study_name=ref.name, storage=open_storage(ref))
    return st, trials_frame(st)


def _write_trials(df, path: Path) -> None:
    """The trials table, whole or not at all (each worker of a shared study
    writes it through a temporary file of its own)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".parquet":
        atomic_write(path, lambda tmp: df.to_parquet(tmp, index=False))
    else:
        atomic_write(path, lambda tmp: df.to_csv(tmp, index=False))


# ---------------------------------------------------------------- the study's settings
@dataclass(frozen=True)
class StudySpec:
    """Everything a study is: what :func:`tune` takes, checked once when made.

    :param variant: the preset; ``players`` adjusts it.
    :param bot: the bot to tune; its declared ranges (``Param.low``,
        ``high``, ``log``, ``choices``) are the search space, narrowed or
        overridden by ``space`` (``"worlds=50..1600:log,rollouts=1..4"``)
        and frozen by ``fix`` (``"rollout_policy=hard"``).
    :param opponents: the pool (specs, or one comma-separated string); each
        trial plays ``hands`` deals against each, in every seat rotation.
    :param trials: trials to have finished (complete or pruned) in the study.
    :param hands: deals per trial and opponent (at least 2).
    :param chunk: deals per pruning step (default ``hands // 4``, at least 1).
    :param jobs: worker processes of each tournament (-1: every core); with
        a cluster ``backend``, passed to it as given.
    :param seed: the root of the deals and the sampler.
    :param study: without ``storage``, the SQLite file (``.db``); None keeps
        the study in memory. With ``storage``, the study's name in it
        (default ``dominoai-tune``). An existing study resumes (and other
        workers may share it); one made for another setting is refused.
    :param max_ms: median ms per decision above which a setting is infeasible.
    :param top: the best feasible trials replayed against the defaults.
    :param validate_hands: fresh deals of the validation (0: skip it; None,
        the default: ten times ``hands``, at most 4,000).
    :param out: the trials table (``.csv`` or ``.parquet``); default: beside
        the study (``<stem>.trials.csv``), none without a study file.
    :param progress: a progress bar on stderr.
    :param storage: where the study lives, shared by every worker given
        it: ``sqlite:///FILE.db``, ``postgresql://USER@HOST/DB`` or
        ``journal:FILE`` (:mod:`.storage`).
    :param enqueue: bot specs (``"insane:worlds=200"``) to try first, each
        queued once in the study (a spec already queued or played is not
        queued again); the searched parameters they leave out are sampled.
    :param heartbeat: seconds between a worker's signs of life; a trial
        silent for three is its dead worker's, failed and queued again
        (:mod:`.workers`).
    :param backend: where each tournament's games run: None (local
        processes), ``"dask"`` or ``"ray"``; ``scheduler`` the cluster's
        address (as :func:`~dominoai.tournament.run_tournament`).
    :raises InputError: (a ValueError naming the argument) a count out of
        range, no or repeated opponents, a bad file name, a storage of
        unknown kind, a bad range, an enqueued spec outside the space.
    :raises ValueError: an unknown preset, bot, parameter or backend, a
        backend whose library is missing.

    After checking, ``rules``, ``dims`` (the searched dimensions), ``fixed``
    (the frozen values), ``ident`` (what makes a study this study), ``ref``
    (the :class:`~.storage.StorageRef`) and ``queued`` (the enqueued
    parameters) are set.
    """

    variant: str = "draw"
    bot: str = "insane"
    opponents: "str | Sequence[str]" = ("hard",)
    trials: int = 60
    hands: int = 400
    chunk: int | None = None
    jobs: int = 1
    seed: int = 0
    study: "str | Path | None" = None
    space: "str | dict" = ""
    fix: "str | Sequence[str] | dict" = ""
    max_ms: float | None = None
    top: int = 3
    validate_hands: int | None = None
    players: int | None = None
    out: "str | Path | None" = None
    progress: bool = True
    storage: str | None = None
    enqueue: "str | Sequence[str]" = ()
    heartbeat: float = 60.0
    backend: str | None = None
    scheduler: str | None = None
    rules: Rules = field(init=False, repr=False, compare=False)
    dims: dict = field(init=False, repr=False, compare=False)
    fixed: dict = field(init=False, repr=False, compare=False)
    ident: dict = field(init=False, repr=False, compare=False)
    ref: StorageRef = field(init=False, repr=False, compare=False)
    queued: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        put = partial(object.__setattr__, self)
        if self.validate_hands is None and is_int(self.hands):
            put("validate_hands", min(4000, 10 * self.hands))
        for name, lo in (("trials", 1), ("hands", 2), ("top", 1), ("validate_hands", 0)):
            check_int(name, getattr(self, name), lo)
        check_jobs(self.jobs)
        chunk = max(1, self.hands // 4) if self.chunk is None else self.chunk
        put("chunk", check_int("chunk", chunk, 1, self.hands, what=f"between 1 and $hands ({self.hands})",
                               also=("hands",)))
        if self.max_ms is not None:
            check_number("max_ms", self.max_ms, positive=True, what="a positive number of milliseconds")
        put("rules", get_rules(self.variant, **({"players": self.players} if self.players is not None else {})))
        if isinstance(self.bot, str) and ":" in self.bot:
            name, _, given = self.bot.partition(":")
            raise InputError("bot", self.bot, f"$bot takes a bot's name ({name!r}); freeze its parameters "
                             f"with $fix ({given!r}) or search them with $space", "fix", "space")
        bot_params(self.bot)  # unknown bot
        dims, fixed = make_space(self.bot, self.space, self.fix)
        put("dims", dims)
        put("fixed", fixed)
        opponents = split_bot_specs(self.opponents) if isinstance(self.opponents, str) else self.opponents
        put("opponents", tuple(str(o) for o in opponents))
        if not self.opponents:
            raise InputError("opponents", self.opponents, "$opponents needs at least one bot spec")
        opp = [canonical(o) for o in self.opponents]  # unknown bots and parameters
        if len(set(opp)) != len(opp):
            raise InputError("opponents", self.opponents,
                             f"$opponents lists a bot twice ({', '.join(self.opponents)})")
        spec_of(self.bot, fixed)
        if self.out is not None:
            put("out", Path(self.out))
            if self.out.suffix not in (".csv", ".parquet"):
                raise InputError("out", self.out, f"$out {self.out}: the trials table must end in .csv or .parquet")
        put("ref", parse_storage(self.storage, self.study))
        if self.ref.kind == "sqlite" and self.storage is None:
            put("study", self.ref.path)
        check_number("heartbeat", self.heartbeat, positive=True, what="a positive number of seconds")
        if self.heartbeat < 1:
            raise InputError("heartbeat", self.heartbeat, f"$heartbeat must be at least 1 second (got {self.heartbeat})")
        check_backend(self.backend, self.scheduler)
        enq = split_bot_specs(self.enqueue) if isinstance(self.enqueue, str) else list(self.enqueue)
        put("enqueue", tuple(str(e) for e in enq))
        put("queued", tuple(_params_of(self.bot, e, dims, fixed, self.rules.preset) for e in self.enqueue))
        r = self.rules
        put("ident", json.loads(json.dumps({
            "format": FORMAT, "variant": r.preset, "players": r.players, "bot": self.bot, "opponents": opp,
            "objective": OBJECTIVE, "hands": self.hands, "chunk": self.chunk, "seed": self.seed,
            "max_ms": self.max_ms, "space": {k: d.text() for k, d in dims.items()}, "fix": dict(fixed)})))


def _params_of(bot: str, spec: str, dims: dict, fixed: dict, preset: str) -> dict:
    """The searched parameters of an enqueued ``spec`` (typed): those it
    sets, and for the others the bot's default under ``preset`` (its
    per-preset default, else its declared one) where that lies in the
    study's range; a default outside it is left to the sampler. So
    ``insane`` queues insane's defaults, ``insane:worlds=800`` the same
    with 800 worlds.

    :raises InputError: another bot, a parameter that is not searched or a
        value outside its range or choices.
    """
    def bad(why):
        return InputError("enqueue", spec, f"$enqueue {spec}: {why}")
    name, given = parse_spec(spec)
    if name != bot:
        raise bad(f"a spec of {bot!r} is needed (the bot tuned)")
    params = bot_params(bot)
    out = {}
    for k, v in given.items():
        if k == "seed":
            continue
        if k not in params:
            raise bad(f"bot {bot!r} has no parameter {k!r}")
        x = params[k].parse(bot, k, str(v))
        if k in fixed:
            if x != fixed[k]:
                raise bad(f"{k} is fixed at {fixed[k]} in this study")
            continue
        d = dims.get(k)
        if d is None:
            raise bad(f"{k} is not searched in this study")
        if d.choices is not None and x not in d.choices or d.choices is None and not d.low <= x <= d.high:
            raise bad(f"{k}={x} is outside its range {d.text()}")
        out[k] = x
    defaults = make_bot(bot).defaults_for(preset)
    for k, d in dims.items():
        x = defaults.get(k)
        if k not in out and x is not None and (x in d.choices if d.choices is not None else d.low <= x <= d.high):
            out[k] = x
    return out


# ---------------------------------------------------------------- tune
def tune(variant: "str | StudySpec" = "draw", *settings, **named) -> TuneResult:
    """Tune a bot's parameters for points per hand against a pool of
    opponents: ``tune(StudySpec(...))``, or the settings of a
    :class:`StudySpec` given here, in its order or by name
    (``tune("draw", "insane", ["hard"], trials=60, hands=400)``).

    Every check runs before the study is opened, so bad input leaves it as
    it was. Several workers given the same ``storage`` and ``study`` share
    the study (docs/cluster.md).

    :returns: a :class:`TuneResult`.
    :raises InputError: (a ValueError naming the argument) bad input, as
        :class:`StudySpec`; a study for another setting, a file that cannot
        be written, a database that cannot be reached; a time limit no
        setting meets.
    :raises ValueError: an unknown preset, bot or parameter.
    :raises TypeError: a :class:`StudySpec` with other arguments, or a
        setting :class:`StudySpec` does not have.
    """
    if isinstance(variant, StudySpec):
        if settings or named:
            raise TypeError("tune(spec): a StudySpec holds every setting; give no other argument")
        return _run(variant)
    return _run(StudySpec(variant, *settings, **named))


def _run(spec: StudySpec) -> TuneResult:
    """The study of ``spec``: check the files, search, validate, write the table."""
    t_start = time.perf_counter()
    _check_files(spec)
    jobs = local_jobs(spec.jobs, spec.backend)  # capped at the cores once, here, not at every chunk
    if jobs != spec.jobs:
        spec = dataclasses.replace(spec, jobs=jobs)
    with cluster_session(spec.backend, spec.scheduler, spec.jobs):
        if spec.max_ms is not None:
            _probe(spec.variant, spec.players, cheapest_specs(spec.bot, spec.dims, spec.fixed), spec.opponents[0],
                   float(spec.max_ms), spec.seed)
        st, run, live = _open(spec)
        _search(spec, st, run, live)
        df = trials_frame(st, list(spec.dims))
        ok = df[(df["state"] == "COMPLETE") & df["feasible"]].sort_values(["value", "number"],
                                                                         ascending=[False, True])
        best_spec = str(ok["spec"].iloc[0]) if len(ok) else None
        verdict = None
        if spec.validate_hands and best_spec is not None:
            verdict = _validated(spec, st, list(dict.fromkeys(ok["spec"]))[:spec.top], live)
    out = spec.out
    where = spec.ref.path if spec.ref.kind in ("sqlite", "journal") else None
    if out is None and where is not None:
        out = where.with_name(where.stem + ".trials.csv")
    if out is not None:
        _write_trials(df, out)
    return TuneResult(df, best_spec, verdict, where, out, time.perf_counter() - t_start)


def _check_files(spec: StudySpec) -> None:
    """The trials table and the study's file can be written, the database
    reached; an existing study is a study of these settings. Nothing is
    changed."""
    if spec.out is not None:
        _check_writable(spec.out, "out")
    ref = spec.ref
    if ref.kind == "memory":
        return
    if ref.path is not None:
        _check_writable(ref.path, "study" if spec.storage is None else "storage")
    hint = " (a new study needs a new file name)" if spec.storage is None else " (a new study needs a new name)"
    stored = _stored_identity(ref, hint)
    if stored is not None:
        _compare(ref, stored, spec.ident)


def _open(spec: StudySpec):
    """The Optuna study (created, or loaded to resume or to join other
    workers), this run's number and its :class:`~.workers.Liveness`; trials
    of dead workers are failed and queued again, the enqueued specs queued."""
    optuna = _optuna()
    beat = max(1, int(round(spec.heartbeat)))
    storage = open_storage(spec.ref, beat, Liveness.requeue)
    live = Liveness(storage, spec.ref.heartbeat_native, beat)
    st = optuna.create_study(study_name=spec.ref.name, storage=storage, direction="maximize",
                             load_if_exists=True, sampler=_sampler(spec, 0),
                             pruner=optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=0))
    if not st.user_attrs.get("format"):    # new (or made this instant by another worker)
        for k, v in spec.ident.items():
            st.set_user_attr(k, v)
        _compare(spec.ref, st.user_attrs, spec.ident)
    run = int(st.user_attrs.get("runs", 0)) + 1
    st.set_user_attr("runs", run)
    live.fail_stale(st)
    if spec.queued:
        _enqueue(st, spec, live)
    return st, run, live


def _enqueue(st, spec: StudySpec, live: Liveness) -> None:
    """Queue each of ``spec.queued`` unless a trial with the same
    parameters is already queued, running or finished (one worker at a
    time: workers started together queue each setting once)."""
    from optuna.trial import TrialState
    mine = _claim(spec, st, live, "enqueuing", "enqueue", lambda: False)
    have = [t.params or t.system_attrs.get("fixed_params", {}) for t in st.get_trials(deepcopy=False)
            if t.state != TrialState.FAIL]
    for params in spec.queued:
        if not any(all(h.get(k) == v for k, v in params.items()) and len(h) >= len(params) for h in have):
            st.enqueue_trial(dict(params))
            have.append(dict(params))
    st.set_user_attr("enqueuing", dict(mine, done=True))


def _on(spec: StudySpec) -> dict:
    """The backend arguments of the tournaments (none for local processes)."""
    return {} if spec.backend is None else {"backend": spec.backend, "scheduler": spec.scheduler}


def _constraints(ft):
    return ft.user_attrs.get("constraint", (1.0,))


def _sampler(spec: StudySpec, n: int):
    """The TPE sampler of trial ``n``, seeded from the study's seed and ``n``
    (so a resumed study samples as an uninterrupted one)."""
    optuna = _optuna()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # multivariate TPE is 'experimental'
        return optuna.samplers.TPESampler(
            seed=stage_seed(spec.seed, SEARCH, 1_000_000 + n), multivariate=True,
            n_startup_trials=min(10, max(2, spec.trials // 4)),
            constraints_func=_constraints if spec.max_ms is not None else None)


def _finished(st) -> list:
    from optuna.trial import TrialState
    return st.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))


def _best_text(st) -> str:
    from optuna.trial import TrialState
    ok = [t for t in _finished(st) if t.state == TrialState.COMPLETE
          and t.user_attrs.get("result", {}).get("feasible")]
    if not ok:
        return ""
    b = max(ok, key=lambda t: t.value)
    return f"best {b.value:+.3f} (#{b.number})"


def _search(spec: StudySpec, st, run: int, live: Liveness) -> None:
    """Ask, play and tell trials until ``spec.trials`` have finished in the
    study (by any worker); while the last ones run on other workers, wait
    for them (taking over any whose worker dies)."""
    from optuna.exceptions import UpdateFinishedTrialError
    from optuna.trial import TrialState
    bar = tqdm(total=spec.trials, initial=min(len(_finished(st)), spec.trials), unit="trial",
               disable=not spec.progress, desc=f"tune {spec.bot} {spec.rules.preset}", dynamic_ncols=True)
    try:
        while True:
            live.fail_stale(st)
            trials = st.get_trials(deepcopy=False)
            states = [t.state for t in trials]
            done = sum(s in (TrialState.COMPLETE, TrialState.PRUNED) for s in states)
            bar.update(min(done, spec.trials) - bar.n)
            if done >= spec.trials:
                break
            if done + states.count(TrialState.RUNNING) >= spec.trials:
                time.sleep(POLL)      # the last trials run on other workers
                continue
            st.sampler = live.mark(_sampler(spec, len(trials)), run, len(trials))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # Optuna's heartbeat is meant for optimize(): beaten here
                trial = st.ask()
            try:
                with live.trial_beating(trial._trial_id):
                    value, pruned = _trial(spec, st, trial, run)
                if pruned:
                    st.tell(trial, state=TrialState.PRUNED, skip_if_finished=True)
                else:
                    st.tell(trial, value, skip_if_finished=True)
            except UpdateFinishedTrialError:
                # another worker took this one for dead (no heartbeat for three
                # intervals, e.g. the network was down) and queued its setting again
                continue
            except BaseException:
                st.tell(trial, state=TrialState.FAIL, skip_if_finished=True)
                raise
            bar.update(1)
            bar.set_postfix_str(_best_text(st), refresh=True)
    finally:
        bar.close()


def _trial(spec: StudySpec, st, trial, run: int) -> tuple[float, bool]:
    """Play one trial (or take the result of an earlier trial of the same
    spec); store its result; return ``(value, pruned)``."""
    t0 = time.perf_counter()
    values = dict(spec.fixed, **{k: d.suggest(trial) for k, d in spec.dims.items()})
    bot = spec_of(spec.bot, values, spec.rules)   # idle parameters dropped
    # few writes: each is a SQLite commit (about 20 ms on a busy disk)
    trial.set_user_attr("start", {"spec": bot, "run": run, "worker": f"{me()['host']}:{me()['pid']}"})
    prev = _played(_finished(st), bot)
    if prev is not None:
        # the same bot on the same chunk seeds scores the same (common random
        # numbers): a sampled setting that differs only in idle parameters, or
        # a repeat, takes the earlier trial's result instead of replaying it
        r = dict(prev.user_attrs["result"], values=values, run=run, seconds=0.0,
                 tournament_seconds=0.0, repeat_of=prev.number)
        if "constraint" in prev.user_attrs:
            trial.set_user_attr("constraint", prev.user_attrs["constraint"])
        trial.set_user_attr("result", json.loads(json.dumps(r)))
        return prev.value, False
    ev = Evaluation()
    pruned = stopped = False
    n_chunks = math.ceil(spec.hands / spec.chunk)
    for k in range(n_chunks):
        n = min(spec.chunk, spec.hands - k * spec.chunk)
        cs = stage_seed(spec.seed, SEARCH, k)
        for o in spec.opponents:
            d, ms, sec, _ = play_chunk(spec.variant, spec.players, bot, o, n, cs, spec.jobs, **_on(spec))
            ev.add(d, ms, sec, n)
        ev.chunks.append(cs)
        trial.report(ev.value, k)
        if spec.max_ms is not None and ev.ms_per_decision > TOO_SLOW * spec.max_ms:
            stopped = True
            break
        if k < n_chunks - 1 and trial.should_prune():
            pruned = True
            break
    m, lo, hi = ev.interval()
    msd = ev.ms_per_decision
    if spec.max_ms is not None:
        trial.set_user_attr("constraint", [msd - spec.max_ms])
    trial.set_user_attr("result", json.loads(json.dumps({
        "values": values, "run": run, "value": m, "lo": lo, "hi": hi, "ms": msd,
        "deals": ev.deals, "feasible": spec.max_ms is None or msd <= spec.max_ms, "chunks": ev.chunks,
        "seconds": time.perf_counter() - t0, "tournament_seconds": ev.seconds,
        "stopped": "too slow" if stopped else "pruned" if pruned else ""})))
    return m, pruned


def _claim(spec: StudySpec, st, live: Liveness, attr: str, key: str, done) -> dict | None:
    """Claim the study attribute ``attr`` for this worker (a study-wide step
    done by one worker at a time): wait while another live worker holds it
    for ``key``, write this worker's claim, let simultaneous claims settle
    (the last written wins) and return it; None once ``done()``."""
    while True:
        if done():
            return None
        claim = st.user_attrs.get(attr)
        if (claim and claim.get("key") == key and not claim.get("done") and claim.get("worker") != me()
                and not live.claim_dead(claim)):
            time.sleep(POLL)
            continue
        mine = {"key": key, "worker": me(), "beat": 0}
        st.set_user_attr(attr, mine)
        if spec.ref.kind == "memory":
            return mine
        time.sleep(CLAIM_WAIT)
        if st.user_attrs.get(attr, {}).get("worker") == me():
            return mine


def _validated(spec: StudySpec, st, cands: list[str], live: Liveness) -> Verdict:
    """The verdict of the best ``cands`` against the defaults on fresh deals
    (stored in the study, and taken from it when the candidates are the
    same). One worker validates: it claims the study's ``validating``
    attribute; the others wait for its verdict, or take over if it dies."""
    key = json.dumps({"candidates": cands, "hands": spec.validate_hands, "jobs_free": True})

    def stored():
        v = st.user_attrs.get("validation")
        return v if v and v.get("key") == key else None
    mine = _claim(spec, st, live, "validating", key, stored)
    if mine is None:
        return Verdict(**stored()["verdict"])
    if spec.progress:
        sys.stderr.write(f"validating the best {len(cands)} setting(s) against the defaults on "
                         f"{spec.validate_hands:,} fresh deals each\n")
    with live.claim_beating(st, "validating", mine):
        verdict = validate(spec.variant, spec.players, cands, spec_of(spec.bot, {}), spec.validate_hands,
                           spec.seed, spec.jobs, progress=spec.progress, **_on(spec))
    st.set_user_attr("validation", {"key": key, "verdict": json.loads(json.dumps(
        verdict.to_dict(), default=float))})
    st.set_user_attr("validating", dict(mine, done=True))
    return verdict
