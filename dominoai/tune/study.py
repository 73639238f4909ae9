"""The study: an Optuna study in SQLite, resumable, one trial at a time.

:func:`tune` validates every argument (and, for an existing study file,
that it was made for the same variant, bot, opponent pool, objective, deals
and search space) *before* it opens the storage, so bad input leaves the
file as it was. Trials run one after another (the parallelism is inside
each tournament), which with a sampler seeded from ``seed`` and the number
of trials already in the study makes a study reproducible for any number
of jobs. Rerunning the same command resumes: trials left ``RUNNING`` by a
killed run are marked ``FAIL`` (their numbers are not reused, no finished
trial is replayed) and the study goes on until ``trials`` have finished.

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
import sqlite3
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .._files import nearest_existing
from ..bots.base import bot_params, make_bot
from .objective import OBJECTIVE, PROBE, SEARCH, Evaluation, canonical, play_chunk, stage_seed
from .space import cheapest_specs, make_space, spec_of
from .validation import Verdict, validate

__all__ = ["tune", "TuneResult", "load_study", "trials_frame", "STUDY_NAME", "FORMAT"]

STUDY_NAME = "dominoai-tune"
FORMAT = "dominoai.tune/1"
#: settings whose difference makes a study file another study
IDENTITY = ("format", "variant", "players", "bot", "opponents", "objective", "hands", "chunk", "seed",
            "max_ms", "space", "fix")
TOO_SLOW = 1.5   # a trial this many times over --max-ms after a chunk stops there


@dataclass
class TuneResult:
    """What :func:`tune` returns: ``trials`` (one row per trial: ``number``,
    ``state``, ``value`` and its interval ``lo``, ``hi`` in points per hand,
    ``ms_per_decision``, ``feasible``, ``deals`` used, ``spec``, ``seconds``,
    ``tournament_seconds``, ``run``, ``stopped``, ``repeat_of``: the earlier
    trial whose result a trial took because it played the same spec, -1 if
    it played; then one column per parameter),
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
            lines.append(f"  #{r.number:<4d} {r.value:+.3f} [{r.lo:.3f}, {r.hi:.3f}] "
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
def _optuna():
    try:
        import optuna
    except ImportError:  # pragma: no cover - a dependency
        raise ValueError("tuning needs optuna: pip install 'optuna>=3.4'") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def _check_writable(path: Path, flag: str = "--study") -> None:
    """Raise ValueError unless ``path`` (given as ``flag``) can be written
    (without changing it)."""
    if path.exists():
        if path.is_dir():
            raise ValueError(f"{flag} {path}: is a directory")
        try:
            with open(path, "r+b"):
                pass
        except OSError as e:
            raise ValueError(f"{flag} {path}: not writable: {e.strerror or e}") from None
        return
    top = nearest_existing(path.parent)
    if not top.is_dir():
        raise ValueError(f"{flag} {path}: a part of its folder path is a file")
    try:
        fd, tmp = tempfile.mkstemp(dir=top, prefix=".dominoai-tune-")
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise ValueError(f"{flag} {path}: cannot write in {top}: {e.strerror or e}") from None


def _stored_identity(path: Path, hint: str = "") -> dict | None:
    """The identity of the study stored in ``path`` (read-only), None if the
    file does not exist. :raises ValueError: not a dominoai tune study (the
    message ends with ``hint``)."""
    if not path.exists():
        return None
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            rows = con.execute(
                "SELECT a.key, a.value_json FROM studies s JOIN study_user_attributes a "
                "ON a.study_id = s.study_id WHERE s.study_name = ?", (STUDY_NAME,)).fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        rows = None
    attrs = {k: json.loads(v) for k, v in rows} if rows else {}
    if attrs.get("format") != FORMAT:
        raise ValueError(f"{path}: not a dominoai tune study{hint}")
    return attrs


def _compare(path: Path, stored: dict, ident: dict) -> None:
    diff = [k for k in IDENTITY if stored.get(k) != ident.get(k)]
    if diff:
        what = "; ".join(f"{k} {stored.get(k)!r} there, {ident.get(k)!r} asked" for k in diff)
        raise ValueError(f"--study {path} is a study for another setting ({what}); "
                         "use another --study file")


def _probe(variant, players, specs, opponent, max_ms, seed) -> None:
    """Refuse a time limit that not even the cheapest settings meet."""
    best = (math.inf, None)
    for spec in specs:
        _, ms, _, _ = play_chunk(variant, players, spec, opponent, 4, stage_seed(seed, PROBE, 0), 1)
        med = float(np.median(ms)) if len(ms) else 0.0
        if med <= max_ms:
            return
        best = min(best, (med, spec))
    raise ValueError(f"--max-ms {max_ms}: no setting can meet it: the cheapest ({best[1]}) takes "
                     f"{best[0]:.3g} ms per decision")


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
        u = {**t.user_attrs.get("start", {}), **t.user_attrs.get("result", {})}
        r = {"number": t.number, "state": t.state.name,
             "value": u.get("value", t.value if t.value is not None else math.nan),
             "lo": u.get("lo", math.nan), "hi": u.get("hi", math.nan),
             "ms_per_decision": u.get("ms", math.nan), "feasible": bool(u.get("feasible", False)),
             "deals": int(u.get("deals", 0)), "spec": u.get("spec", ""),
             "seconds": u.get("seconds", math.nan), "tournament_seconds": u.get("tournament_seconds", math.nan),
             "run": int(u.get("run", 0)), "stopped": u.get("stopped", ""),
             "repeat_of": int(u.get("repeat_of", -1))}
        for k in names:
            r[k] = u.get("values", {}).get(k, t.params.get(k))  # as played (floats rounded)
        rows.append(r)
    cols = ["number", "state", "value", "lo", "hi", "ms_per_decision", "feasible", "deals", "spec",
            "seconds", "tournament_seconds", "run", "stopped", "repeat_of", *names]
    return pd.DataFrame(rows, columns=cols)


def load_study(path):
    """The Optuna study in ``path`` (read as is) and its trials DataFrame.

    :raises ValueError: the file is missing or not a dominoai tune study.
    """
    path = Path(path)
    if _stored_identity(path) is None:
        raise ValueError(f"no such study file: {path}")
    optuna = _optuna()
    study = optuna.load_study(study_name=STUDY_NAME, storage=f"sqlite:///{path.resolve()}")
    return study, trials_frame(study)


def _write_trials(df, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    if path.suffix == ".parquet":
        df.to_parquet(tmp, index=False)
    else:
        df.to_csv(tmp, index=False)
    os.replace(tmp, path)


# ---------------------------------------------------------------- tune
def tune(variant: str = "draw", bot: str = "insane", opponents: "str | Sequence[str]" = ("hard",),
         trials: int = 60, hands: int = 400, chunk: int | None = None, jobs: int = 1, seed: int = 0,
         study=None, space="", fix="", max_ms: float | None = None, top: int = 3,
         validate_hands: int = 4000, players: int | None = None, out=None,
         progress: bool = True) -> TuneResult:
    """Tune ``bot``'s parameters for points per hand against ``opponents``.

    :param variant: the preset; ``players`` adjusts it.
    :param bot: the bot to tune; its declared ranges (``Param.low``,
        ``high``, ``log``, ``choices``) are the search space, narrowed or
        overridden by ``space`` (``"worlds=50..1600:log,rollouts=1..4"``)
        and frozen by ``fix`` (``"rollout_policy=hard"``).
    :param opponents: the pool (specs, or one comma-separated string); each
        trial plays ``hands`` deals against each, in every seat rotation.
    :param trials: trials to have finished (complete or pruned) in the study.
    :param chunk: deals per pruning step (default ``hands // 4``, at least 1).
    :param jobs: worker processes of each tournament (-1: every core).
    :param seed: the root of the deals and the sampler.
    :param study: the SQLite file (``.db``); None keeps the study in memory.
        An existing file resumes; one made for another setting is refused.
    :param max_ms: median ms per decision above which a setting is infeasible.
    :param top: the best feasible trials replayed against the defaults.
    :param validate_hands: fresh deals of the validation (0: skip it).
    :param out: the trials table (``.csv`` or ``.parquet``); default: beside
        the study (``<stem>.trials.csv``), none without a study file.
    :returns: a :class:`TuneResult`.
    :raises ValueError: bad input, before the study file is opened (unknown
        preset, bot or parameter; an empty, inverted or unacceptable range;
        ``trials`` < 1; a time limit no setting meets; a study file for
        another setting; an unwritable study path).
    """
    from ..rules import get_rules
    t_start = time.perf_counter()
    # ---- every check before the storage is touched
    for name, v, lo in (("trials", trials, 1), ("hands", hands, 2), ("top", top, 1),
                        ("validate_hands", validate_hands, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"--{name.replace('_', '-')} must be an integer of at least {lo} (got {v!r})")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise ValueError(f"--jobs must be a positive number of processes or -1 (got {jobs!r})")
    chunk = max(1, hands // 4) if chunk is None else chunk
    if isinstance(chunk, bool) or not isinstance(chunk, int) or not 1 <= chunk <= hands:
        raise ValueError(f"--chunk must be between 1 and --hands ({hands}) (got {chunk!r})")
    if max_ms is not None and not (isinstance(max_ms, (int, float)) and math.isfinite(max_ms) and max_ms > 0):
        raise ValueError(f"--max-ms must be a positive number of milliseconds (got {max_ms!r})")
    rules = get_rules(variant, **({"players": players} if players is not None else {}))
    bot_params(bot)  # unknown bot
    dims, fixed = make_space(bot, space, fix)
    if isinstance(opponents, str):
        from ..cli import split_bot_specs
        opponents = split_bot_specs(opponents)
    opponents = [str(o) for o in opponents]
    if not opponents:
        raise ValueError("--opponents needs at least one bot spec")
    opp = [canonical(o) for o in opponents]  # unknown bots and parameters
    if len(set(opp)) != len(opp):
        raise ValueError(f"--opponents lists a bot twice ({', '.join(opponents)})")
    spec_of(bot, fixed)
    ident = {"format": FORMAT, "variant": rules.preset, "players": rules.players, "bot": bot,
             "opponents": opp, "objective": OBJECTIVE, "hands": hands, "chunk": chunk, "seed": seed,
             "max_ms": max_ms, "space": {k: d.text() for k, d in dims.items()},
             "fix": {k: v for k, v in fixed.items()}}
    ident = json.loads(json.dumps(ident))
    if out is not None and Path(out).suffix not in (".csv", ".parquet"):
        raise ValueError(f"--out {out}: the trials table must end in .csv or .parquet")
    if out is not None:
        _check_writable(Path(out), "--out")
    path = Path(study) if study is not None else None
    if path is not None:
        if path.suffix not in (".db", ".sqlite", ".sqlite3"):
            raise ValueError(f"--study {path}: the study is an SQLite file: end it in .db")
        _check_writable(path)
        stored = _stored_identity(path, " (a new study needs a new file name)")
        if stored is not None:
            _compare(path, stored, ident)
    if max_ms is not None:
        _probe(variant, players, cheapest_specs(bot, dims, fixed), opponents[0], float(max_ms), seed)

    from ..tournament.run import local_jobs
    jobs = local_jobs(jobs)   # capped at the cores once, here, not at every chunk

    # ---- the storage
    optuna = _optuna()
    from optuna.trial import TrialState
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        storage = optuna.storages.RDBStorage(f"sqlite:///{path.resolve()}")
    else:
        storage = optuna.storages.InMemoryStorage()

    def constraints(ft):
        return ft.user_attrs.get("constraint", (1.0,))

    def sampler_for(n: int):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # multivariate TPE is 'experimental'
            return optuna.samplers.TPESampler(
                seed=stage_seed(seed, SEARCH, 1_000_000 + n), multivariate=True,
                n_startup_trials=min(10, max(2, trials // 4)),
                constraints_func=constraints if max_ms is not None else None)

    st = optuna.create_study(study_name=STUDY_NAME, storage=storage, direction="maximize",
                             load_if_exists=True, sampler=sampler_for(0),
                             pruner=optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=0))
    if not st.user_attrs.get("format"):
        for k, v in ident.items():
            st.set_user_attr(k, v)
    run = int(st.user_attrs.get("runs", 0)) + 1
    st.set_user_attr("runs", run)
    for t in st.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING)):
        if "start" not in t.user_attrs:   # killed between ask() and its first write: the last run's
            storage.set_trial_user_attr(t._trial_id, "start", {"spec": "", "run": run - 1})
        storage.set_trial_state_values(t._trial_id, TrialState.FAIL)  # left by a killed run

    def finished() -> list:
        return st.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))

    n_chunks = math.ceil(hands / chunk)
    from tqdm import tqdm
    done0 = len(finished())
    bar = tqdm(total=trials, initial=min(done0, trials), unit="trial", disable=not progress,
               desc=f"tune {bot} {rules.preset}", dynamic_ncols=True)

    def best_text() -> str:
        ok = [t for t in finished() if t.state == TrialState.COMPLETE
              and t.user_attrs.get("result", {}).get("feasible")]
        if not ok:
            return ""
        b = max(ok, key=lambda t: t.value)
        return f"best {b.value:+.3f} (#{b.number})"

    try:
        while len(finished()) < trials:
            st.sampler = sampler_for(len(st.get_trials(deepcopy=False)))
            trial = st.ask()
            t0 = time.perf_counter()
            try:
                values = dict(fixed, **{k: d.suggest(trial) for k, d in dims.items()})
                spec = spec_of(bot, values, rules)   # idle parameters dropped
                # few writes: each is a SQLite commit (about 20 ms on a busy disk)
                trial.set_user_attr("start", {"spec": spec, "run": run})
                prev = _played(finished(), spec)
                if prev is not None:
                    # the same bot on the same chunk seeds scores the same (common random
                    # numbers): a sampled setting that differs only in idle parameters, or
                    # a repeat, takes the earlier trial's result instead of replaying it
                    r = dict(prev.user_attrs["result"], values=values, run=run, seconds=0.0,
                             tournament_seconds=0.0, repeat_of=prev.number)
                    if "constraint" in prev.user_attrs:
                        trial.set_user_attr("constraint", prev.user_attrs["constraint"])
                    trial.set_user_attr("result", json.loads(json.dumps(r)))
                    m, pruned = prev.value, False
                else:
                    ev = Evaluation()
                    pruned = stopped = False
                    for k in range(n_chunks):
                        n = min(chunk, hands - k * chunk)
                        cs = stage_seed(seed, SEARCH, k)
                        for o in opponents:
                            d, ms, sec, _ = play_chunk(variant, players, spec, o, n, cs, jobs)
                            ev.add(d, ms, sec, n)
                        ev.chunks.append(cs)
                        trial.report(ev.value, k)
                        if max_ms is not None and ev.ms_per_decision > TOO_SLOW * max_ms:
                            stopped = True
                            break
                        if k < n_chunks - 1 and trial.should_prune():
                            pruned = True
                            break
                    m, lo, hi = ev.interval()
                    msd = ev.ms_per_decision
                    feasible = max_ms is None or msd <= max_ms
                    if max_ms is not None:
                        trial.set_user_attr("constraint", [msd - max_ms])
                    trial.set_user_attr("result", json.loads(json.dumps({
                        "values": values, "run": run, "value": m, "lo": lo, "hi": hi, "ms": msd,
                        "deals": ev.deals, "feasible": feasible, "chunks": ev.chunks,
                        "seconds": time.perf_counter() - t0, "tournament_seconds": ev.seconds,
                        "stopped": "too slow" if stopped else "pruned" if pruned else ""})))
            except BaseException:
                st.tell(trial, state=TrialState.FAIL)
                raise
            if pruned:
                st.tell(trial, state=TrialState.PRUNED)
            else:
                st.tell(trial, m)
            bar.update(1)
            bar.set_postfix_str(best_text(), refresh=True)
    finally:
        bar.close()

    names = list(dims)
    df = trials_frame(st, names)
    ok = df[(df["state"] == "COMPLETE") & df["feasible"]].sort_values(["value", "number"],
                                                                     ascending=[False, True])
    best_spec = str(ok["spec"].iloc[0]) if len(ok) else None
    verdict = None
    if validate_hands and best_spec is not None:
        cands = list(dict.fromkeys(ok["spec"]))[:top]
        key = json.dumps({"candidates": cands, "hands": validate_hands, "jobs_free": True})
        stored = st.user_attrs.get("validation")
        if stored and stored.get("key") == key:
            verdict = Verdict(**stored["verdict"])
        else:
            if progress:
                sys.stderr.write(f"validating the best {len(cands)} setting(s) against the defaults on "
                                 f"{validate_hands:,} fresh deals each\n")
            verdict = validate(variant, players, cands, spec_of(bot, {}), validate_hands, seed, jobs,
                               progress=progress)
            st.set_user_attr("validation", {"key": key, "verdict": json.loads(json.dumps(
                verdict.to_dict(), default=float))})
    if out is None and path is not None:
        out = path.with_name(path.stem + ".trials.csv")
    out = Path(out) if out is not None else None
    if out is not None:
        _write_trials(df, out)
    return TuneResult(df, best_spec, verdict, path, out, time.perf_counter() - t_start)
