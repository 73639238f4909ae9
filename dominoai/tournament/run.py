"""Run a tournament: batches on the backends, resume, reproduction.

:func:`run_tournament` plays a :mod:`schedule <dominoai.tournament.schedule>`
in batches (:func:`~dominoai.tournament.loop.run_batch`, the play loop) on a
:mod:`backend <dominoai.tournament.backends>` (joblib's local process pool by
default; Dask through joblib's backend switch; Ray tasks), writes every finished batch as a part file under
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

import inspect
import json
import re
import shutil
import tempfile
import time
import warnings
from dataclasses import MISSING, dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any, Mapping, Sequence

from tqdm import tqdm

from .._compile import warm_up_tournament
from ..bots.base import BOTS, make_bot
from ..bots.spec import parse_spec
from ..errors import InputError, check_int, check_jobs
from ..game import Match
from ..records import dumps_record, load_record
from ..rules import Rules, get_rules
from .backends import check_backend, cluster_session, execute, local_jobs
from .loop import BotFailure, play_hand, play_match, run_batch
from .schedule import make_schedule
from .storage import (HANDS_SCHEMA, MATCHES_SCHEMA, TournamentResult, assemble, check_parts,
                      load_results, make_provenance, matches_path, parts_dir, read_manifest,
                      read_parts, results_format, to_arrow, write_manifest, write_part, write_table)

__all__ = [
    "TournamentSpec", "BotError", "BotFailure", "TournamentResult", "play_hand", "play_match",
    "run_tournament", "load_results", "reproduce", "play_records",
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


def _jsonable(x):
    """``x`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(x))


def _warm_up(rules: Rules, specs: list[str], progress: bool) -> None:
    """Compile (or load) the kernels of every bot in this process first, so
    they are cached on disk before the workers load them, with one line and a
    progress bar when this version of the code compiles for the first time
    (:func:`dominoai._compile.warm_up_tournament`)."""
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


# ------------------------------------------------------------------ the tournament's settings
@dataclass(frozen=True)
class TournamentSpec:
    """Everything a tournament is: what :func:`run_tournament` takes,
    checked once when made.

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
    :param backend: None (local processes, joblib), ``"dask"`` (joblib's
        Dask backend) or ``"ray"`` (Ray tasks); ``scheduler`` is the cluster
        address (Dask: ``tcp://host:8786``, Ray: ``host:6379``; without it an
        existing Dask client or Ray connection is used, or a local cluster
        started: :func:`cluster_session`).
    :param progress: show a progress bar (hands/s, ETA) on stderr.
    :param batch_units: (table, deal) units per batch (default: about 64
        hands or 8 matches, at most ~200 batches; a resumed run keeps its own).
    :param analysis: with ``records``, store each searched decision's move
        values in the records (``"analysis"`` on the move: see
        :func:`~dominoai.decide.analysis_of`; docs/render.md).
    :param command: the command line to record in the provenance (the CLI
        passes ``sys.argv``); None records the Python call.
    :param rules_overrides: :class:`Rules` fields that change the preset.
    :raises InputError: (a ValueError naming the argument) a count out of
        range, ``analysis`` without ``records``, ``resume`` without ``out``,
        ``out`` a directory, a ``scheduler`` without a cluster backend.
    :raises ValueError: an unknown preset, bot, parameter or backend, a
        backend whose library is missing, no cluster answering at
        ``scheduler``, an ``out`` not ``.parquet`` or ``.csv``.

    After checking, ``rules``, ``mode`` (``"hands"`` or ``"matches"``) and
    ``deals`` (per table) are set.
    """

    variant: "str | Rules" = "draw"
    bots: Sequence = ("easy", "medium")
    players: int | None = None
    hands: int = 100
    matches: int | None = None
    jobs: int = 1
    seed: int = 0
    out: "str | Path | None" = None
    records: "str | Path | None" = None
    resume: bool = False
    backend: str | None = None
    scheduler: str | None = None
    progress: bool = True
    batch_units: int | None = None
    analysis: bool = False
    command: str | None = None
    rules_overrides: Mapping[str, Any] = field(default_factory=dict)
    rules: Rules = field(init=False, repr=False, compare=False)
    mode: str = field(init=False, repr=False, compare=False)
    deals: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        put = partial(object.__setattr__, self)
        put("bots", tuple(self.bots))
        put("rules_overrides", dict(self.rules_overrides))
        put("rules", get_rules(self.variant, **({"players": self.players} if self.players is not None else {}),
                               **self.rules_overrides))
        if self.analysis and self.records is None:
            raise InputError("analysis", True, "$analysis is stored in the records: give a $records directory too",
                             "records")
        mode = "matches" if self.matches is not None else "hands"
        put("mode", mode)
        put("deals", check_int(mode, self.matches if mode == "matches" else self.hands, 1))
        check_int("seed", self.seed, 0)
        check_jobs(self.jobs)
        if self.out is not None:
            put("out", Path(self.out))
            results_format(self.out)
            if self.out.is_dir():
                raise InputError("out", self.out,
                                 f"{self.out} is a directory; $out names the results file (.parquet or .csv)")
        elif self.resume:
            raise InputError("resume", True, "$resume needs $out, the results file of the run to continue", "out")
        if self.records is not None:
            put("records", Path(self.records))
        check_backend(self.backend, self.scheduler)
        for s in dict.fromkeys(x for b in self.bots for x in (b if isinstance(b, (tuple, list)) else (b,))):
            make_bot(s, 0)  # unknown bots and parameters fail here, before any work

    def python_call(self) -> str:
        """The Python call of :func:`run_tournament` with the variant, the
        bots and the arguments that differ from their defaults, as text (the
        provenance's ``command`` when none is given)."""
        parts = []
        for f in fields(self):
            if not f.init or f.name in ("command", "rules_overrides"):
                continue
            value = getattr(self, f.name)
            default = f.default if f.default_factory is MISSING else f.default_factory()
            if f.name == "variant" and isinstance(value, Rules):
                value = value.preset
            if f.name == "bots":
                value, default = list(value), list(default)
            if value != default or f.name in ("variant", "bots"):
                parts.append(f"{f.name}={str(value) if isinstance(value, Path) else value!r}")
        parts += [f"{k}={v!r}" for k, v in self.rules_overrides.items()]
        return f"run_tournament({', '.join(parts)})"


# ------------------------------------------------------------------ the tournament
def run_tournament(variant: "str | Rules | TournamentSpec" = "draw", bots: Sequence = ("easy", "medium"),
                   players: int | None = None, hands: int = 100, matches: int | None = None,
                   jobs: int = 1, seed: int = 0, out=None, records=None, resume: bool = False,
                   backend: str | None = None, scheduler: str | None = None, progress: bool = True,
                   batch_units: int | None = None, analysis: bool = False, command: str | None = None,
                   **rules_overrides) -> TournamentResult:
    """Play a tournament of ``bots`` and return its tables and statistics:
    ``run_tournament(TournamentSpec(...))``, or the same settings as
    arguments (see :class:`TournamentSpec` for each).

    :raises InputError, ValueError: bad arguments (as :class:`TournamentSpec`),
        or ``<out>.parts/`` exists without ``resume``, or belongs to a
        different tournament, or ``out`` holds another tournament (with ``resume``).
    :raises BotError: a bot raised; its record is written to ``records``,
        else beside ``out`` (``<out>.failure-<bot>-<deal seed>.json``), else
        a temporary directory. The parts written stay; fix the bot and resume.
    :raises TypeError: a :class:`TournamentSpec` with other arguments.
    """
    if isinstance(variant, TournamentSpec):
        given = {k: v for k, v in locals().items() if k in _RUN_DEFAULTS}
        if rules_overrides or any(v != _RUN_DEFAULTS[k] for k, v in given.items()):
            raise TypeError("run_tournament(spec): a TournamentSpec holds every setting; give no other argument")
        return _run(variant)
    return _run(TournamentSpec(variant, bots, players, hands, matches, jobs, seed, out, records, resume,
                               backend, scheduler, progress, batch_units, analysis, command, rules_overrides))


_RUN_DEFAULTS = {k: p.default for k, p in inspect.signature(run_tournament).parameters.items()
                 if k not in ("variant", "rules_overrides")}


def _models_of(specs, rules: Rules) -> dict:
    """``{spec: "NAME@HASH12"}`` for each bot that plays a learned model
    (its ``model_ident`` under ``rules``): the provenance names the model by
    name and content hash, whatever file it came from."""
    out = {}
    for s in specs:
        try:
            bot = make_bot(s)
        except Exception:  # noqa: BLE001 - a spec that does not build fails later, where it always did
            continue
        if hasattr(bot, "model_ident"):
            bot.use_rules(rules)
            out[s] = bot.model_ident
    return out


def _run(spec: TournamentSpec) -> TournamentResult:
    """The tournament of ``spec``: resume or start, play the batches left,
    assemble and write the tables."""
    parts = parts_dir(spec.out) if spec.out is not None else None
    manifest = _manifest(spec, parts)
    batch_units = spec.batch_units
    if manifest is not None and batch_units is None:
        batch_units = manifest.get("config", {}).get("batch_units")
    sched = make_schedule(spec.rules, spec.bots, spec.deals, spec.seed, spec.mode, batch_units)
    ident = sched.ident()
    config = dict(sched.config(), bots=[list(b) if isinstance(b, tuple) else b for b in spec.bots], id=ident)
    specs = list(dict.fromkeys(s for t in sched.tables for s in t.specs()))
    models = _models_of(specs, spec.rules)
    provenance = make_provenance(spec.command or spec.python_call(), spec.rules, config["bots"], spec.seed,
                                 mode=spec.mode, deals=spec.deals, tournament=ident,
                                 tables=[t.label for t in sched.tables], **({"models": models} if models else {}))
    done: set[int] = set()
    if manifest is not None:
        done = _resumable(manifest, sched, parts, spec.mode == "matches")
    elif spec.resume and spec.out.exists():
        return _finished(spec, ident, config, provenance)
    jobs = local_jobs(spec.jobs, spec.backend)  # every input has passed: a note, then the work
    # the cluster is reached and the kernels compiled before any file is written: an
    # unreachable scheduler or an interrupt here leaves nothing
    with cluster_session(spec.backend, spec.scheduler, jobs):
        _warm_up(spec.rules, specs, spec.progress)
        if parts is not None:
            manifest = write_manifest(parts, sched.config(), ident, sched.n_batches, done)
        if spec.records is not None:
            spec.records.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        tables, played = _play(spec, jobs, sched, ident, done, parts, manifest)
        elapsed = time.perf_counter() - t0
    if parts is not None:
        tables = read_parts(parts, spec.mode == "matches")
    hands_df, matches_df = assemble(tables, spec.mode == "matches")
    if spec.out is not None:
        spec.out.parent.mkdir(parents=True, exist_ok=True)
        if matches_df is not None:
            write_table(matches_df, matches_path(spec.out), provenance)
        write_table(hands_df, spec.out, provenance)
        shutil.rmtree(parts)
    return TournamentResult(hands_df, matches_df, config, elapsed, played, spec.out, provenance)


def _manifest(spec: TournamentSpec, parts: Path | None) -> dict | None:
    """The manifest of an unfinished run in ``parts`` (None when there is none).

    :raises InputError: unfinished parts without ``resume``."""
    if parts is None or not parts.exists():
        return None
    if not spec.resume:
        raise InputError("resume", False, f"{parts} holds an unfinished tournament, or one still running: "
                                          "once no run is writing it, resume it ($resume) or delete it")
    return read_manifest(parts)


def _resumable(manifest: dict, sched, parts: Path, with_matches: bool) -> set[int]:
    """The batches done of an unfinished run of this schedule.

    :raises ValueError: the parts belong to another tournament, or one of
        them cannot be read."""
    if _jsonable(manifest.get("config")) != _jsonable(sched.config()):
        old, new = manifest.get("config", {}), _jsonable(sched.config())
        diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise ValueError(f"{parts} belongs to a different tournament ({', '.join(diff)} differ); "
                         f"run the same command to resume, or delete it")
    return check_parts(parts, with_matches)


#: the provenance fields that tell two tournaments apart, as a reader names them
_TOLD_APART = ("variant", "players", "rules", "bots", "mode", "deals", "seed")


def _what_differs(old: dict | None, new: dict) -> str:
    """`` (played with deals 300, seed 1)``: the fields of :data:`_TOLD_APART` in which the
    provenance ``old`` of a finished run differs from ``new``'s, with
    ``old``'s values (``rules`` by name only); ``""`` when none is known."""
    if not old:
        return ""
    said = []
    for k in _TOLD_APART:
        if k in old and old.get(k) != new.get(k):
            v = old[k]
            said.append("other rules" if k == "rules" else
                        f"bots {','.join(map(str, v))}" if isinstance(v, list) else f"{k} {v}")
    return f" (played with {', '.join(said)})" if said else ""


def _finished(spec: TournamentSpec, ident: str, config: dict, provenance: dict) -> TournamentResult:
    """The result of a run that finished already (``resume`` of a written ``out``).

    :raises InputError: ``out`` holds another tournament."""
    prev = load_results(spec.out)     # not a results file: ValueError
    if not (len(prev.hands) and prev.hands["tournament"].iloc[0] == ident):
        differs = _what_differs(prev.provenance, provenance)
        raise InputError("out", spec.out, f"{spec.out} holds another tournament{differs}, not this one: give "
                                          "another $out, or replace it (run without $resume, with $overwrite)",
                         "resume", "overwrite")
    prev.config = config
    if not prev.provenance:
        prev.provenance = provenance
    return prev


def _play(spec: TournamentSpec, jobs: int, sched, ident: str, done: set[int], parts: Path | None,
          manifest: dict | None) -> tuple[list, int]:
    """Play the batches not ``done`` (writing each as a part when there is
    ``parts``, else keeping its tables); return the tables kept and the
    hands played. On any failure or interrupt, parts of a run that finished
    no batch are removed."""
    todo = [b for b in sched.batches() if b.index not in done]
    want = ("analysis" if spec.analysis else True) if spec.records is not None else False
    factories = {n: BOTS[n] for n in dict.fromkeys(parse_spec(s)[0] for t in sched.tables for s in t.specs())}
    calls = [(run_batch, (sched, b, ident, want, factories)) for b in todo]
    games_done = sum(min(b.stop, sched.units) - b.start for b in sched.batches() if b.index in done) * sched.rotations
    bar = tqdm(total=sched.games, initial=games_done, unit="hand" if spec.mode == "hands" else "match",
               disable=not spec.progress, dynamic_ncols=True, smoothing=0.05,
               desc=f"{spec.rules.preset} {len(sched.tables)} table{'s' * (len(sched.tables) > 1)}")
    tables: list = []  # (hands, matches) Arrow tables of the batches, without parts on disk
    played = 0
    t0 = time.perf_counter()
    results = execute(calls, jobs, spec.backend, spec.scheduler)
    try:
        for res in results:
            if res["failure"] is not None:
                raise _fail(res["failure"], spec.records, spec.out)
            for name, rec in res["records"]:
                (spec.records / name).write_text(dumps_record(rec), encoding="utf-8")
            h = to_arrow(res["hands"], HANDS_SCHEMA)
            m = to_arrow(res["matches"], MATCHES_SCHEMA) if res["matches"] is not None else None
            if parts is not None:
                write_part(parts, manifest, res["batch"], h, m)
            else:
                tables.append((h, m))
            played += res["n_hands"]
            bar.update(res["n_games"])
            if spec.mode == "matches":
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
    return tables, played


# ------------------------------------------------------------------ self-play data
def play_records(variant: "str | Rules" = "draw", bots: Sequence = ("insane",), hands: int = 100, *,
                 matches: int | None = None, players: int | None = None, jobs: int = 1, seed: int = 0,
                 backend: str | None = None, scheduler: str | None = None, analysis: bool = False,
                 progress: bool = False, **rules_overrides) -> list:
    """Self-play data: the game records of a tournament of ``bots`` (one
    bot plays itself), played on the same backends as
    :func:`run_tournament` (local processes, Dask, Ray), so the same
    ``seed`` gives the same records on every backend and for any ``jobs``.

    >>> recs = play_records("block", ["easy"], hands=2)
    >>> len(recs), recs[0].seats[0].split(":")[0]     # 2 deals x 2 rotations
    (4, 'easy')

    :param analysis: each searched decision's move values in the records
        (``"analysis"`` on the move: targets for a learned bot).
    :returns: a list of :class:`~dominoai.records.Record`, one per match, in
        match order; the other arguments are :func:`run_tournament`'s.
    :raises InputError: bad arguments, as :func:`run_tournament`.
    :raises ValueError: an unknown preset, bot or backend, as :func:`run_tournament`.
    :raises BotError: a bot raised, as :func:`run_tournament`.
    """
    with tempfile.TemporaryDirectory(prefix="dominoai-records-") as tmp:
        run_tournament(variant, bots, players=players, hands=hands, matches=matches, jobs=jobs, seed=seed,
                       records=tmp, backend=backend, scheduler=scheduler, progress=progress,
                       analysis=analysis, **rules_overrides)
        return [load_record(p) for p in sorted(Path(tmp).glob("match-*.json"))]


# ------------------------------------------------------------------ reproduction
def reproduce(record) -> Match:
    """Play a record's deals again with the bots its ``seats`` name (their
    seeds included), as the tournament did: a record written for a
    :class:`BotError` raises the same failure again.

    :raises BotFailure: a bot raised (or moved illegally), as in the tournament.
    :raises ValueError: the record names no seats.
    """
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
