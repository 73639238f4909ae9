"""Run a tournament: the play loop, joblib batches, parts on disk, resume.

:func:`play_hand` is the whole evaluation loop (OpenSpiel's
``evaluate_bots`` in spirit): deal, ask the bot to move, play, until the
hand is over. :func:`run_tournament` plays a :mod:`schedule
<dominoai.tournament.schedule>` in batches with joblib (the local process
pool by default; Dask or Ray through joblib's backend switch), writes every
finished batch as a part file under ``<out>.parts/`` (written to a temporary
name, then ``os.replace``), and assembles the final tables from the parts.
A killed run continues with ``resume=True``: the parts on disk are the
finished batches, the manifest holds the configuration they belong to.

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
``points``      what the seat's side scored in the hand (Kozel: recorded,
                low is good)
``score``       the side's match score after the hand
``margin``      the side's points minus the mean of the other sides' (sign
                turned in Kozel, so more is always better)
``won``         the side won the hand
``end``         ``domino``, ``blocked``, or ``cut`` (the match target was
                reached during the hand, Fives)
``pips``        pips left in the seat's hand
``moves``       decisions the seat made in the hand
``time``        seconds the seat's bot spent deciding in the hand
==============  ===============================================================

The matches table (``matches=N``) has one row per match and seat with the
same keys and ``score`` (final), ``won`` (won the match), ``hands``,
``finished``.
"""

from __future__ import annotations

import contextlib
import json

import os
import re
import shutil
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..bots.base import BOTS, make_bot, parse_spec
from ..game import Hand, Match
from ..records import dumps_record, record_from_match
from ..rules import Rules, get_rules
from .schedule import Batch, Schedule, make_schedule

__all__ = [
    "BotError", "BotFailure", "TournamentResult", "decide", "play_hand", "play_match",
    "run_tournament", "load_results", "reproduce",
]

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "dominoai.tournament/1"
MAX_HANDS = 1000  # a match longer than this is taken as a runaway


# ------------------------------------------------------------------ errors
class BotFailure(Exception):
    """A bot raised (or chose an illegal move) in :func:`play_hand`.
    ``seat``: the seat to move; ``error``: the original exception."""

    def __init__(self, seat: int, error: BaseException):
        super().__init__(seat, error)
        self.seat = seat
        self.error = error

    def __str__(self) -> str:
        return f"seat {self.seat}: {type(self.error).__name__}: {self.error}"


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


# ------------------------------------------------------------------ play loop
def decide(bot, obs, match: Match):
    """The bot's move for ``obs``; a bot with ``act_with_state`` (the
    omniscient research baseline) is also handed a copy of the true state."""
    if hasattr(bot, "act_with_state"):
        return bot.act_with_state(obs, match.state_copy())
    return bot.act(obs)


def play_hand(match: Match, bots: Sequence, clock: np.ndarray | None = None, **deal) -> Hand:
    """Deal the next hand of ``match`` (``deal``: :meth:`Match.new_hand`'s
    arguments) and play it out, ``bots[seat]`` deciding. ``clock``, a float
    array of shape ``(players, 2)``, gets each seat's decisions and seconds.

    :raises BotFailure: a bot raised or chose an illegal move.
    """
    hand = match.new_hand(**deal)
    while not hand.over:
        seat = hand.seat
        obs = hand.observe(seat)
        try:
            t = time.perf_counter()
            move = decide(bots[seat], obs, match)
            if clock is not None:
                clock[seat] += (1.0, time.perf_counter() - t)
            hand.play(move)
        except Exception as e:
            raise BotFailure(seat, e) from e
    return hand


def play_match(match: Match, bots: Sequence) -> Match:
    """Play hands until the match is over (see :func:`play_hand`)."""
    while not match.finished:
        play_hand(match, bots)
    return match


# ------------------------------------------------------------------ one batch (in a worker)
_HAND_COLS = ["tournament", "table", "pairing", "deal", "rotation", "match", "hand", "deal_seed",
              "variant", "players", "seat", "side", "bot", "points", "score", "margin", "won",
              "end", "pips", "moves", "time"]
_MATCH_COLS = ["tournament", "table", "pairing", "deal", "rotation", "match", "deal_seed",
               "variant", "players", "seat", "side", "bot", "score", "won", "hands", "finished"]


def _seated_spec(bot, spec: str, seed: int) -> str:
    """A spec that rebuilds this very bot, seed included."""
    s = getattr(bot, "spec", None)
    if isinstance(s, str) and "seed=" in s:
        return s
    if "seed=" in spec:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"


def _margins(rules: Rules, points: tuple) -> list[float]:
    sign = -1 if rules.target_mode == "reach_loses" else 1
    g = [sign * p for p in points]
    tot, n = sum(g), len(g)
    return [x - (tot - x) / (n - 1) for x in g]


def _run_batch(sched: Schedule, batch: Batch, ident: str, want_records: bool, factories: dict) -> dict:
    """Play the games of one batch; return its tables (column dicts), its
    records, and a failure (or None). Runs in a worker process."""
    for name, f in factories.items():
        BOTS[name] = f  # the parent's registry, bots registered at run time included
    rules = sched.rules
    n, mode = rules.players, sched.mode
    H = {c: [] for c in _HAND_COLS}
    M = {c: [] for c in _MATCH_COLS}
    records = []
    n_hands = 0
    for u in range(batch.start, batch.stop):
        t, d = sched.unit(u)
        dseed = sched.deal_seed(d)
        label = sched.tables[t].label
        for r in range(sched.rotations):
            specs = sched.seating(t, r)
            seeds = [sched.bot_seed(t, d, r, s) for s in range(n)]
            gid = sched.game_id(t, d, r)
            match = Match(rules, seed=dseed)
            bots = []
            try:
                bots = [make_bot(sp, sd) for sp, sd in zip(specs, seeds)]
                while True:
                    clock = np.zeros((n, 2))
                    hand = play_hand(match, bots, clock)
                    n_hands += 1
                    res = hand.result
                    marg = _margins(rules, res.points)
                    scores = match.scores
                    for s in range(n):
                        side = rules.side_of(s)
                        row = (ident, t, label, d, r, gid, hand.index, dseed, rules.preset, n, s, side,
                               specs[s], res.points[side], scores[side], marg[side], res.winner == side,
                               res.end or "cut", res.pips[s], int(clock[s, 0]), float(clock[s, 1]))
                        for c, v in zip(_HAND_COLS, row):
                            H[c].append(v)
                    if mode == "hands" or match.finished:
                        break
                    if len(match.hands) >= MAX_HANDS:
                        raise RuntimeError(f"match {gid} ({label}, deal seed {dseed}) is not over "
                                           f"after {MAX_HANDS} hands")
            except BotFailure as e:
                seated = [_seated_spec(b, sp, sd) for b, sp, sd in zip(bots, specs, seeds)]
                rec = record_from_match(match, seated)
                info = {"bot": specs[e.seat], "seat": e.seat, "bot_seed": seated[e.seat],
                        "deal_seed": dseed, "table": t, "deal": d, "rotation": r,
                        "hand": len(match.hands) - 1, "error": f"{type(e.error).__name__}: {e.error}"}
                rec["failure"] = info
                return {"batch": batch.index, "failure": dict(info, record=rec)}
            if mode == "matches":
                mres = match.result
                for s in range(n):
                    side = rules.side_of(s)
                    row = (ident, t, label, d, r, gid, dseed, rules.preset, n, s, side, specs[s],
                           mres.scores[side], mres.winner == side, len(match.hands), mres.finished)
                    for c, v in zip(_MATCH_COLS, row):
                        M[c].append(v)
            if want_records:
                seated = [_seated_spec(b, sp, sd) for b, sp, sd in zip(bots, specs, seeds)]
                rec = record_from_match(match, seated)
                rec["tournament"] = {"id": ident, "table": t, "pairing": label, "deal": d,
                                     "rotation": r, "match": gid, "deal_seed": dseed}
                records.append((f"match-{gid:08d}.json", rec))
    return {"batch": batch.index, "failure": None, "hands": H, "matches": M if mode == "matches" else None,
            "records": records, "n_hands": n_hands, "n_games": (batch.stop - batch.start) * sched.rotations}


_STR, _I64, _F64, _BOOL = pa.string(), pa.int64(), pa.float64(), pa.bool_()
_TYPES = {"tournament": _STR, "table": _I64, "pairing": _STR, "deal": _I64, "rotation": _I64,
          "match": _I64, "hand": _I64, "deal_seed": _I64, "variant": _STR, "players": _I64,
          "seat": _I64, "side": _I64, "bot": _STR, "points": _I64, "score": _I64, "margin": _F64,
          "won": _BOOL, "end": _STR, "pips": _I64, "moves": _I64, "time": _F64, "hands": _I64,
          "finished": _BOOL}
HANDS_SCHEMA = pa.schema([(c, _TYPES[c]) for c in _HAND_COLS])
MATCHES_SCHEMA = pa.schema([(c, _TYPES[c]) for c in _MATCH_COLS])
_PD_TYPES = {c: ("bool" if t == _BOOL else "int64" if t == _I64 else "float64")
             for c, t in _TYPES.items() if t != _STR}


def _arrow(cols: dict, schema: pa.Schema) -> pa.Table:
    return pa.Table.from_pydict(cols, schema=schema)


def _pandas(table: pa.Table) -> pd.DataFrame:
    return _normalize(table.to_pandas())


def _normalize(df: pd.DataFrame) -> pd.DataFrame:
    """Fixed dtypes, whatever the file format was."""
    return df.astype({c: t for c, t in _PD_TYPES.items() if c in df.columns})


# ------------------------------------------------------------------ files
def _format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".csv", ".csv.gz")):
        return "csv"
    raise ValueError(f"{path}: the results file must end in .parquet or .csv")


def _matches_path(path: Path) -> Path:
    """``ladder.parquet`` -> ``ladder.matches.parquet``."""
    name = path.name
    for ext in (".csv.gz", ".parquet", ".pq", ".csv"):
        if name.lower().endswith(ext):
            return path.with_name(name[: -len(ext)] + ".matches" + name[-len(ext):])
    return path.with_name(name + ".matches")


def _parts_dir(path: Path) -> Path:
    return path.with_name(path.name + ".parts")


def _atomic(path: Path, write) -> None:
    """Write a file through ``write(tmp_path)`` to a temporary name, then move
    it into place, so a reader (or a resume) never sees half a file."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _write_table(df: pd.DataFrame, path: Path) -> None:
    if _format(path) == "parquet":
        _atomic(path, lambda p: df.to_parquet(p, index=False))
    else:
        _atomic(path, lambda p: df.to_csv(p, index=False, compression="gzip" if path.name.endswith(".gz") else None))


def _read_table(path: Path) -> pd.DataFrame:
    if _format(path) == "parquet":
        df = pd.read_parquet(path)
    else:
        df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return _normalize(df)


def _write_json(path: Path, obj) -> None:
    _atomic(path, lambda p: p.write_text(json.dumps(obj, indent=1), encoding="utf-8"))


_PART = re.compile(r"^hands-(\d{6})\.parquet$")


def _done_batches(parts: Path) -> set[int]:
    return {int(m.group(1)) for f in os.listdir(parts) if (m := _PART.match(f))}


def _jsonable(x):
    return json.loads(json.dumps(x))


# ------------------------------------------------------------------ results
@dataclass
class TournamentResult:
    """What :func:`run_tournament` returns (or :func:`load_results` reads).

    ``hands``: the hands table (module docstring); ``matches``: the matches
    table when whole matches were played, else None; ``config``: the
    tournament's configuration; ``elapsed``: seconds this run took;
    ``played``: hands played by this run (a resume plays only the rest).
    ``pairings`` and ``ratings`` are computed on first use
    (:mod:`~dominoai.tournament.stats`); ``summary()`` prints both.
    """

    hands: pd.DataFrame
    matches: pd.DataFrame | None = None
    config: dict = field(default_factory=dict)
    elapsed: float = 0.0
    played: int = 0
    path: Path | None = None

    @property
    def hands_per_second(self) -> float:
        return self.played / self.elapsed if self.elapsed > 0 else float("nan")

    @property
    def bots(self) -> list[str]:
        """The bot specs in the order they were given."""
        return [str(b) for b in pd.unique(self.hands["bot"])]

    @cached_property
    def pairings(self) -> pd.DataFrame:
        """Per pair of bots: games, wins, win rate with a Wilson interval, and
        the points-per-hand difference with a paired (duplicate) interval."""
        from .stats import pairing_stats
        return pairing_stats(self.hands, self.matches, bots=self.bots)

    @cached_property
    def ratings(self) -> pd.DataFrame:
        """Bradley–Terry ratings on the Elo scale with bootstrap intervals."""
        from .stats import ratings
        return ratings(self.matches if self.matches is not None else self.hands, bots=self.bots)

    def summary(self) -> str:
        """The pairings and ratings as a text table."""
        from .stats import format_summary
        n_hands = len(self.hands) // max(1, int(self.hands["players"].iloc[0])) if len(self.hands) else 0
        games = f"{n_hands} hands"
        if self.matches is not None:
            games = f"{self.matches['match'].nunique()} matches, {n_hands} hands"
        variant = self.hands["variant"].iloc[0] if len(self.hands) else "?"
        players = self.hands["players"].iloc[0] if len(self.hands) else "?"
        head = f"{variant}, {players} players: {games}"
        if self.elapsed > 0 and self.played:
            rate = self.hands_per_second
            head += f"; {self.played} played in {self.elapsed:.1f} s ({rate:.{0 if rate >= 10 else 1}f} hands/s)"
        head += "\n\n"
        return head + format_summary(self.pairings, self.ratings)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        n = len(self.hands)
        what = f"{self.hands['variant'].iloc[0]}, {self.hands['players'].iloc[0]} players: " if n else ""
        games = f"{self.matches['match'].nunique()} matches, " if self.matches is not None else ""
        hands = n // max(1, int(self.hands["players"].iloc[0])) if n else 0
        return f"<TournamentResult {what}{games}{hands} hands, bots {', '.join(self.bots)}>"


def load_results(path) -> TournamentResult:
    """A results file written by :func:`run_tournament` (``.parquet`` or
    ``.csv``; the matches table beside it is read when present)."""
    path = Path(path)
    hands = _read_table(path)
    mp = _matches_path(path)
    matches = _read_table(mp) if mp.exists() else None
    return TournamentResult(hands, matches, path=path)


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


def _warm_up(rules: Rules, specs: list[str]) -> None:
    """Play one hand per bot in this process first, so numba kernels are
    compiled and cached on disk before the workers load them."""
    for spec in specs:
        with contextlib.suppress(Exception):
            play_hand(Match(rules, seed=0), [make_bot(spec, 0) for _ in range(rules.players)])


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


def run_tournament(variant: "str | Rules" = "draw", bots: Sequence = ("easy", "medium"),
                   players: int | None = None, hands: int = 100, matches: int | None = None,
                   jobs: int = 1, seed: int = 0, out=None, records=None, resume: bool = False,
                   backend: str | None = None, scheduler: str | None = None, progress: bool = True,
                   batch_units: int | None = None, **rules_overrides) -> TournamentResult:
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
    :raises ValueError: bad arguments (unknown preset, bot, parameter,
        output extension), or ``<out>.parts/`` exists without ``resume``, or
        belongs to a different tournament.
    :raises BotError: a bot raised; its record is written to ``records``,
        else beside ``out`` (``<out>.failure-<bot>-<deal seed>.json``), else
        a temporary directory. The parts written stay; fix the bot and resume.
    """
    rules = get_rules(variant, **({"players": players} if players is not None else {}), **rules_overrides)
    mode, deals = ("matches", matches) if matches is not None else ("hands", hands)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise ValueError(f"jobs must be a positive number of processes or -1 (got {jobs!r})")
    out = Path(out) if out is not None else None
    if out is not None:
        _format(out)
    elif resume:
        raise ValueError("resume needs the results file (out) of the run to continue")
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
    parts = _parts_dir(out) if out is not None else None
    manifest = None
    if parts is not None and parts.exists():
        if not resume:
            raise ValueError(f"{parts} holds an unfinished tournament: resume it (--resume) or delete it")
        try:
            manifest = json.loads((parts / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ValueError(f"{parts / MANIFEST}: cannot read the manifest ({e}); delete {parts} to start over") from None
        if batch_units is None:
            batch_units = manifest.get("config", {}).get("batch_units")
    sched = make_schedule(rules, bots, deals, seed, mode, batch_units)
    ident = sched.ident()
    config = dict(sched.config(), bots=[list(b) if isinstance(b, tuple) else b for b in bots], id=ident)
    specs = list(dict.fromkeys(s for t in sched.tables for s in t.specs()))
    for s in specs:  # unknown bots and parameters fail here, before any work
        make_bot(s, 0)
    factories = {parse_spec(s)[0]: BOTS[parse_spec(s)[0]] for s in specs}

    done: set[int] = set()
    if manifest is not None:
        if _jsonable(manifest.get("config")) != _jsonable(sched.config()):
            old, new = manifest.get("config", {}), _jsonable(sched.config())
            diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
            raise ValueError(f"{parts} belongs to a different tournament ({', '.join(diff)} differ); "
                             f"run the same command to resume, or delete it")
        done = _done_batches(parts)
    elif resume and out is not None and out.exists():
        prev = load_results(out)
        if len(prev.hands) and prev.hands["tournament"].iloc[0] == ident:
            prev.config = config
            return prev  # finished already
    if jobs != 1 or backend is not None:
        _warm_up(rules, specs)  # before any file is written: an interrupt here leaves nothing
    if parts is not None:
        parts.mkdir(parents=True, exist_ok=True)  # (out's directory too)
        for f in parts.glob(".*.tmp*"):
            f.unlink()  # left by a killed writer
        manifest = {"format": MANIFEST_FORMAT, "config": sched.config(), "id": ident,
                    "batches": sched.n_batches, "done": sorted(done)}
        _write_json(parts / MANIFEST, manifest)
    rec_dir = Path(records) if records is not None else None
    if rec_dir is not None:
        rec_dir.mkdir(parents=True, exist_ok=True)

    todo = [b for b in sched.batches() if b.index not in done]
    calls = [(_run_batch, (sched, b, ident, rec_dir is not None, factories)) for b in todo]
    games_done = sum(min(b.stop, sched.units) - b.start for b in sched.batches() if b.index in done) * sched.rotations
    from tqdm import tqdm
    unit = "hand" if mode == "hands" else "match"
    bar = tqdm(total=sched.games, initial=games_done, unit=unit, disable=not progress,
               desc=f"{rules.preset} {len(sched.tables)} table{'s' * (len(sched.tables) > 1)}",
               dynamic_ncols=True, smoothing=0.05)
    tables: list[tuple[pa.Table, pa.Table | None]] = []
    played = 0
    t0 = time.perf_counter()
    results = _execute(calls, jobs, backend, scheduler)
    try:
        for res in results:
            if res["failure"] is not None:
                raise _fail(res["failure"], rec_dir, out)
            for name, rec in res["records"]:
                (rec_dir / name).write_text(dumps_record(rec), encoding="utf-8")
            h = _arrow(res["hands"], HANDS_SCHEMA)
            m = _arrow(res["matches"], MATCHES_SCHEMA) if res["matches"] is not None else None
            if parts is not None:
                i = res["batch"]
                if m is not None:
                    _atomic(parts / f"matches-{i:06d}.parquet", lambda p: pq.write_table(m, p))
                # the hands part goes last: it marks the batch done
                _atomic(parts / f"hands-{i:06d}.parquet", lambda p: pq.write_table(h, p))
                manifest["done"].append(i)
                _write_json(parts / MANIFEST, manifest)
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
        ids = sorted(_done_batches(parts))
        tables = [(pq.read_table(parts / f"hands-{i:06d}.parquet"),
                   pq.read_table(parts / f"matches-{i:06d}.parquet") if mode == "matches" else None)
                  for i in ids]
    hands_df = _pandas(pa.concat_tables([h for h, _ in tables]) if tables else HANDS_SCHEMA.empty_table())
    hands_df = hands_df.sort_values(["match", "hand", "seat"], ignore_index=True)
    matches_df = None
    if mode == "matches":
        matches_df = _pandas(pa.concat_tables([m for _, m in tables]) if tables else MATCHES_SCHEMA.empty_table())
        matches_df = matches_df.sort_values(["match", "seat"], ignore_index=True)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        if matches_df is not None:
            _write_table(matches_df, _matches_path(out))
        _write_table(hands_df, out)
        shutil.rmtree(parts)
    return TournamentResult(hands_df, matches_df, config, elapsed, played, out)


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
