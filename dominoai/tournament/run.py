"""Run a tournament: batches on joblib's backends, resume, reproduction.

:func:`run_tournament` plays a :mod:`schedule <dominoai.tournament.schedule>`
in batches (:func:`~dominoai.tournament.loop.run_batch`, the play loop) with
joblib (the local process pool by default; Dask or Ray through joblib's
backend switch), writes every finished batch as a part file under
``<out>.parts/`` (:mod:`~dominoai.tournament.storage`), and assembles the
final tables from the parts. A killed run continues with ``resume=True``:
the parts on disk are the finished batches, the manifest holds the
configuration they belong to. :func:`reproduce` plays a failure's record
again.

Seeds are addressed per game (see :mod:`~dominoai.tournament.schedule`), so
the tables are identical for any number of jobs, any backend, and across a
resume (except the ``time`` column, the decision time measured).

The hands table has one row per hand and seat:

==============  ===============================================================
``tournament``  the tournament id (a hash of its configuration)
``table``       the line-up number; ``pairing`` its label (``"easy v medium"``)
``deal``        the deal number (the same deals at every table)
``rotation``    the seat rotation (0 .. rotations-1)
``match``       the game number (unique; one hand per match with ``hands``)
``hand``        the hand within the match (0-based)
``deal_seed``   ``Match(rules, seed=deal_seed)`` deals the same hands
``variant``     the preset; ``players`` the number of seats
``seat``        the seat; ``side`` its side (the seat, or the pair 0/1)
``bot``         the bot spec in the seat (as given, without the seed)
``points``      what the seat's side scored in the hand, in
                :attr:`Rules.points_unit <dominoai.rules.Rules.points_unit>`
                (Kozel: recorded, low is good)
``score``       the side's match score after the hand
``margin``      the side's points minus the mean of the other sides' (sign
                turned where :attr:`Rules.low_is_good
                <dominoai.rules.Rules.low_is_good>`, Kozel, so more is
                always better)
``won``         the side won the hand
``end``         ``domino``, ``blocked``, or ``cut`` (the match target was
                reached during the hand, Fives)
``pips``        pips left in the seat's hand
``moves``       decisions the seat made in the hand
``time``        CPU seconds the seat's bot spent deciding in the hand (process time)
==============  ===============================================================

With ``hands=N`` (single hands) every match is one hand: ``hand`` is
always 0 and ``score`` equals ``points``; both columns are kept so that the
hands table has one schema in both modes (README, "Tournaments").

The matches table (``matches=N``) has one row per match and seat with the
same keys and ``score`` (final), ``won`` (won the match), ``hands``,
``finished``.

The results files carry their provenance (the command line, seed, version
and code hash, rules and bot specs; :func:`~dominoai.tournament.storage.make_provenance`),
and so does the returned :class:`TournamentResult` (``result.provenance``).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import tempfile
import time
import warnings
from pathlib import Path
from typing import Iterable, Sequence

from ..bots.base import BOTS, make_bot, parse_spec
from ..game import Match
from ..records import dumps_record
from ..rules import Rules, get_rules
from .loop import BotFailure, decide, play_hand, play_match, run_batch
from .schedule import make_schedule
from .storage import (HANDS_SCHEMA, MATCHES_SCHEMA, TournamentResult, assemble, done_batches,
                      load_results, make_provenance, matches_path, parts_dir, read_manifest,
                      read_parts, results_format, to_arrow, write_manifest, write_part, write_table)

__all__ = [
    "BotError", "BotFailure", "TournamentResult", "decide", "play_hand", "play_match",
    "run_tournament", "load_results", "reproduce",
]


# ------------------------------------------------------------------ errors
class BotError(RuntimeError):
    """A bot failed during :func:`run_tournament`. ``str(err)`` is one line
    naming the bot, the deal seed and the record file that reproduces it
    (:func:`reproduce`). Parts written before the failure stay valid."""

    def __init__(self, message: str, bot: str, seat: int, deal_seed: int, record: Path, error: str):
        super().__init__(message)
        self.bot = bot
        self.seat = seat
        self.deal_seed = deal_seed
        self.record = record
        self.error = error


# ------------------------------------------------------------------ execution
@contextlib.contextmanager
def _backend(backend: str | None, scheduler: str | None, jobs: int):
    """joblib's backend switch: the local pool, or Dask / Ray clusters."""
    import joblib
    if backend in (None, "loky", "multiprocessing", "threading"):
        if scheduler:
            raise ValueError("a scheduler address needs backend 'dask' or 'ray'")
        with joblib.parallel_config(backend=backend or "loky"):
            yield
        return
    if backend == "dask":
        try:
            from dask.distributed import Client, get_client
        except ImportError:
            raise ValueError("backend 'dask' needs dask[distributed]: pip install 'dominoai[dask]'") from None
        own = None
        if scheduler:
            own = Client(scheduler)
        else:
            try:
                get_client()
            except ValueError:
                own = Client(processes=True, n_workers=jobs if jobs > 0 else None, threads_per_worker=1)
        try:
            with joblib.parallel_config(backend="dask"):
                yield
        finally:
            if own is not None:
                own.close()
        return
    if backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError:
            raise ValueError("backend 'ray' needs ray: pip install 'ray[default]'") from None
        if not ray.is_initialized():
            ray.init(address=scheduler)
        register_ray()
        with joblib.parallel_config(backend="ray"):
            yield
        return
    raise ValueError(f"unknown backend {backend!r}; backends are loky (local), dask, ray")


def _execute(calls: list, jobs: int, backend: str | None, scheduler: str | None) -> Iterable[dict]:
    """Run the batch calls, yielding each result as it finishes."""
    if not calls:
        return
    if backend is None and jobs == 1:
        for f, args in calls:
            yield f(*args)
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


def local_jobs(jobs: int, backend: str | None = None) -> int:
    """``jobs`` for the local process pool (``backend`` None, ``"loky"``,
    ``"multiprocessing"`` or ``"threading"``), at most the machine's cores
    (:func:`os.cpu_count`): more workers than cores only share them. When
    it caps, one note on stderr says so. ``-1`` (every core) and the
    cluster backends (Dask, Ray: their workers are elsewhere) pass as given.

    >>> local_jobs(1), local_jobs(-1), local_jobs(10_000, "dask")
    (1, -1, 10000)
    """
    import os
    import sys
    cores = os.cpu_count() or 1
    if backend in (None, "loky", "multiprocessing", "threading") and jobs > cores:
        sys.stderr.write(f"dominoai: note: {jobs} worker processes asked for (--jobs), but this "
                         f"machine has {cores} cores: running {cores}\n")
        return cores
    return jobs


def _jsonable(x):
    """``x`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(x))


def _warm_up(rules: Rules, specs: list[str], progress: bool) -> None:
    """Compile (or load) the kernels of every bot in this process first, so
    they are cached on disk before the workers load them, with one line and a
    progress bar when this version of the code compiles for the first time
    (:func:`dominoai._compile.warm_up_tournament`)."""
    from .._compile import warm_up_tournament
    warm_up_tournament(rules, specs, progress=progress)


def _fail(f: dict, records: Path | None, out: Path | None) -> BotError:
    """Write the failure's record (into ``records``, else beside ``out``, else
    a temporary directory) and make the one-line error."""
    safe = re.sub(r"[^A-Za-z0-9_.=-]+", "_", f["bot"])
    name = f"failure-{safe}-{f['deal_seed']}.json"
    if records is not None:
        path = records / name
    elif out is not None:
        path = out.with_name(f"{out.name}.{name}")
    else:
        path = Path(tempfile.gettempdir()) / "dominoai-failures" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps_record(f["record"]), encoding="utf-8")
    error = " ".join(f["error"].split())
    msg = (f"bot {f['bot']} failed in seat {f['seat']} of deal seed {f['deal_seed']} "
           f"(hand {f['hand'] + 1}): {error}; reproduce it with the record {path}")
    return BotError(msg, f["bot"], f["seat"], f["deal_seed"], path, error)


def _python_call(given: dict, overrides: dict) -> str:
    """The Python call of :func:`run_tournament` with the arguments that
    differ from its defaults, as text (the provenance's ``command``)."""
    import inspect
    sig = inspect.signature(run_tournament)
    parts = []
    for name, value in given.items():
        default = sig.parameters[name].default
        if isinstance(value, tuple) and name == "bots":
            value = list(value)
        if default is inspect.Parameter.empty or value != default or name == "variant":
            if isinstance(value, Path):
                value = str(value)
            parts.append(f"{name}={value!r}")
    parts += [f"{k}={v!r}" for k, v in overrides.items()]
    return f"run_tournament({', '.join(parts)})"


def run_tournament(variant: "str | Rules" = "draw", bots: Sequence = ("easy", "medium"),
                   players: int | None = None, hands: int = 100, matches: int | None = None,
                   jobs: int = 1, seed: int = 0, out=None, records=None, resume: bool = False,
                   backend: str | None = None, scheduler: str | None = None, progress: bool = True,
                   batch_units: int | None = None, analysis: bool = False, command: str | None = None,
                   **rules_overrides) -> TournamentResult:
    """Play a tournament of ``bots`` and return its tables and statistics.

    :param variant: a preset name (or :class:`Rules`); ``players`` and
        ``rules_overrides`` adjust it (:func:`~dominoai.rules.get_rules`).
    :param bots: bot specs (``"insane:worlds=400"``); in partnership presets
        also ``(a, b)`` pairs. Tables: see :func:`~dominoai.tournament.schedule.pairings`.
    :param hands: deals per table, each played as one hand in every seat rotation.
    :param matches: instead, whole matches per table (each in every rotation,
        its deals drawn in turn from the match's deal seed).
    :param jobs: worker processes (-1: every core); 1 plays in this process.
    :param seed: the root of every seed (``numpy.random.SeedSequence``).
    :param out: results file (``.parquet`` or ``.csv``); parts go to
        ``<out>.parts/`` while running and are removed once the file is
        written. With ``matches``, the matches table goes beside it
        (``<stem>.matches.parquet``).
    :param records: a directory to get the JSON record of every match.
    :param resume: continue the run whose parts are in ``<out>.parts/``.
    :param backend: joblib backend: None (local processes), ``"dask"`` or
        ``"ray"``; ``scheduler`` is the cluster address (Dask:
        ``tcp://host:8786``; without it an existing Dask client is used, or a
        local cluster started).
    :param progress: show a progress bar (hands/s, ETA) on stderr.
    :param batch_units: (table, deal) units per batch (default: about 64
        hands or 8 matches, at most ~200 batches).
    :param analysis: with ``records``, store each searched decision's move
        values in the records (``"analysis"`` on the move: see
        :func:`~dominoai.tournament.loop.analysis_of`; docs/render.md).
    :param command: the command line to record in the provenance (the CLI
        passes ``sys.argv``); None records this Python call.
    :raises ValueError: bad arguments (unknown preset, bot, parameter,
        output extension), or ``<out>.parts/`` exists without ``resume``, or
        belongs to a different tournament, or ``analysis`` without ``records``.
    :raises BotError: a bot raised; its record is written to ``records``,
        else beside ``out`` (``<out>.failure-<bot>-<deal seed>.json``), else
        a temporary directory. The parts written stay; fix the bot and resume.
    """
    if command is None:
        command = _python_call(dict(variant=variant if isinstance(variant, str) else variant.preset,
                                    bots=bots, players=players, hands=hands, matches=matches,
                                    jobs=jobs, seed=seed, out=out, records=records, resume=resume,
                                    backend=backend, scheduler=scheduler, progress=progress,
                                    batch_units=batch_units, analysis=analysis), rules_overrides)
    rules = get_rules(variant, **({"players": players} if players is not None else {}), **rules_overrides)
    if analysis and records is None:
        raise ValueError("analysis is stored in the records: give a records directory too")
    mode, deals = ("matches", matches) if matches is not None else ("hands", hands)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise ValueError(f"jobs must be a positive number of processes or -1 (got {jobs!r})")
    out = Path(out) if out is not None else None
    if out is not None:
        results_format(out)
    elif resume:
        raise ValueError("--resume needs --out, the results file of the run to continue")
    if out is not None and out.is_dir():
        raise ValueError(f"{out} is a directory; --out names the results file (.parquet or .csv)")
    if backend not in (None, "loky", "multiprocessing", "threading", "dask", "ray"):
        raise ValueError(f"unknown backend {backend!r}; backends are loky (local), dask, ray")
    if backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise ValueError("backend 'dask' needs dask[distributed]: pip install 'dominoai[dask]'") from None
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ValueError("backend 'ray' needs ray: pip install 'ray[default]'") from None
    if scheduler and backend not in ("dask", "ray"):
        raise ValueError("a scheduler address needs backend 'dask' or 'ray'")
    parts = parts_dir(out) if out is not None else None
    manifest = None
    if parts is not None and parts.exists():
        if not resume:
            raise ValueError(f"{parts} holds an unfinished tournament: resume it (--resume) or delete it")
        manifest = read_manifest(parts)
        if batch_units is None:
            batch_units = manifest.get("config", {}).get("batch_units")
    sched = make_schedule(rules, bots, deals, seed, mode, batch_units)
    ident = sched.ident()
    config = dict(sched.config(), bots=[list(b) if isinstance(b, tuple) else b for b in bots], id=ident)
    specs = list(dict.fromkeys(s for t in sched.tables for s in t.specs()))
    for s in specs:  # unknown bots and parameters fail here, before any work
        make_bot(s, 0)
    factories = {parse_spec(s)[0]: BOTS[parse_spec(s)[0]] for s in specs}
    provenance = make_provenance(command, rules, config["bots"], seed, mode=mode, deals=deals,
                                 tournament=ident, tables=[t.label for t in sched.tables])

    done: set[int] = set()
    if manifest is not None:
        if _jsonable(manifest.get("config")) != _jsonable(sched.config()):
            old, new = manifest.get("config", {}), _jsonable(sched.config())
            diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
            raise ValueError(f"{parts} belongs to a different tournament ({', '.join(diff)} differ); "
                             f"run the same command to resume, or delete it")
        done = done_batches(parts)
    elif resume and out is not None and out.exists():
        prev = load_results(out)     # not a results file: ValueError
        if not (len(prev.hands) and prev.hands["tournament"].iloc[0] == ident):
            raise ValueError(f"{out} holds another tournament, not this one: give another --out, "
                             "or --overwrite instead of --resume to replace it")
        prev.config = config
        if not prev.provenance:
            prev.provenance = provenance
        return prev  # finished already
    jobs = local_jobs(jobs, backend)  # every input has passed: a note, then the work
    _warm_up(rules, specs, progress)  # before any file is written: an interrupt here leaves nothing
    if parts is not None:
        manifest = write_manifest(parts, sched.config(), ident, sched.n_batches, done)
    rec_dir = Path(records) if records is not None else None
    if rec_dir is not None:
        rec_dir.mkdir(parents=True, exist_ok=True)

    todo = [b for b in sched.batches() if b.index not in done]
    want = ("analysis" if analysis else True) if rec_dir is not None else False
    calls = [(run_batch, (sched, b, ident, want, factories)) for b in todo]
    games_done = sum(min(b.stop, sched.units) - b.start for b in sched.batches() if b.index in done) * sched.rotations
    from tqdm import tqdm
    unit = "hand" if mode == "hands" else "match"
    bar = tqdm(total=sched.games, initial=games_done, unit=unit, disable=not progress,
               desc=f"{rules.preset} {len(sched.tables)} table{'s' * (len(sched.tables) > 1)}",
               dynamic_ncols=True, smoothing=0.05)
    tables: list = []  # (hands, matches) Arrow tables of the batches, without parts on disk
    played = 0
    t0 = time.perf_counter()
    results = _execute(calls, jobs, backend, scheduler)
    try:
        for res in results:
            if res["failure"] is not None:
                raise _fail(res["failure"], rec_dir, out)
            for name, rec in res["records"]:
                (rec_dir / name).write_text(dumps_record(rec), encoding="utf-8")
            h = to_arrow(res["hands"], HANDS_SCHEMA)
            m = to_arrow(res["matches"], MATCHES_SCHEMA) if res["matches"] is not None else None
            if parts is not None:
                write_part(parts, manifest, res["batch"], h, m)
            else:
                tables.append((h, m))
            played += res["n_hands"]
            bar.update(res["n_games"])
            if mode == "matches":
                bar.set_postfix_str(f"{played / max(1e-9, time.perf_counter() - t0):.0f} hands/s", refresh=False)
    except BaseException:
        if parts is not None and not manifest["done"]:
            shutil.rmtree(parts, ignore_errors=True)  # nothing to resume: leave no trace
        raise
    finally:
        bar.close()
        with warnings.catch_warnings():  # joblib warns about the batches a failure cancelled
            warnings.simplefilter("ignore")
            results.close()
    elapsed = time.perf_counter() - t0

    if parts is not None:
        tables = read_parts(parts, mode == "matches")
    hands_df, matches_df = assemble(tables, mode == "matches")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        if matches_df is not None:
            write_table(matches_df, matches_path(out), provenance)
        write_table(hands_df, out, provenance)
        shutil.rmtree(parts)
    return TournamentResult(hands_df, matches_df, config, elapsed, played, out, provenance)


# ------------------------------------------------------------------ reproduction
def reproduce(record) -> Match:
    """Play a record's deals again with the bots its ``seats`` name (their
    seeds included), as the tournament did: a record written for a
    :class:`BotError` raises the same failure again.

    :raises BotFailure: a bot raised (or moved illegally), as in the tournament.
    :raises ValueError: the record names no seats.
    """
    from ..records import load_record
    rec = load_record(record)
    if rec.seats is None:
        raise ValueError("the record names no bots (seats)")
    bots = [make_bot(s) for s in rec.seats]
    match = Match(rec.rules)
    for h in rec.hands:
        deal = [[t.id for t in seat] for seat in h.deal]
        bone = None if h.boneyard is None else [t.id for t in h.boneyard]
        play_hand(match, bots, deal=deal, boneyard=bone, leader=h.leader)
    return match
