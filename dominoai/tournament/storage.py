"""Tournament storage: the tables' schemas, part files, the manifest, results files.

A running tournament keeps its finished batches under ``<out>.parts/``:
``hands-NNNNNN.parquet`` (and ``matches-NNNNNN.parquet`` when whole matches
are played) per batch, and ``manifest.json`` (format
``dominoai.tournament/1``: the configuration, the tournament id, the number
of batches and those done). Every file is written to a temporary name in the
same folder, then moved into place with :func:`os.replace`
(:func:`dominoai._files.atomic_write`), so a reader, or a resume after a kill, never sees half
a file; a batch's hands part is written last and marks it done. The final
results file is ``.parquet`` or ``.csv`` (``.csv.gz``), the matches table
beside it as ``<stem>.matches.<ext>``; :func:`load_results` reads both back
with the same dtypes (:data:`HANDS_SCHEMA`, :data:`MATCHES_SCHEMA`).

Every results file says how it was made: its *provenance*, a JSON object
(format ``dominoai.provenance/1``, :func:`make_provenance`) with the command
line, the seed, the dominoai version and code hash, the rules and the bot
specs. A parquet file keeps it in its schema's key/value metadata under the
key ``dominoai.provenance`` (:data:`PROVENANCE_KEY`); a CSV file in a
sidecar JSON file, ``<stem>.provenance.json`` (:func:`provenance_path`).
:func:`read_provenance` reads it back, and so does :func:`load_results`
(``result.provenance``).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .. import __version__
from .._files import atomic_write
from .._numba_cache import source_hash
from .loop import HAND_COLUMNS, MATCH_COLUMNS

__all__ = ["TournamentResult", "load_results", "PROVENANCE_KEY", "PROVENANCE_FORMAT",
           "make_provenance", "provenance_path", "read_provenance", "HANDS_SCHEMA", "MATCHES_SCHEMA", "MANIFEST",
           "MANIFEST_FORMAT", "results_format", "matches_path", "parts_dir",
           "write_table", "read_table", "write_json", "read_manifest", "write_manifest",
           "done_batches", "check_parts", "write_part", "read_parts", "assemble", "to_arrow"]

MANIFEST = "manifest.json"
#: the parquet schema metadata key that holds a results file's provenance (JSON)
PROVENANCE_KEY = "dominoai.provenance"
PROVENANCE_FORMAT = "dominoai.provenance/1"
MANIFEST_FORMAT = "dominoai.tournament/1"

_STR, _I64, _F64, _BOOL = pa.string(), pa.int64(), pa.float64(), pa.bool_()
_TYPES = {"tournament": _STR, "table": _I64, "pairing": _STR, "deal": _I64, "rotation": _I64,
          "match": _I64, "hand": _I64, "deal_seed": _I64, "variant": _STR, "players": _I64,
          "seat": _I64, "side": _I64, "bot": _STR, "points": _I64, "score": _I64, "margin": _F64,
          "won": _BOOL, "end": _STR, "pips": _I64, "moves": _I64, "time": _F64, "hands": _I64,
          "finished": _BOOL}
#: the Arrow schema of the hands table (column order of :data:`~dominoai.tournament.loop.HAND_COLUMNS`)
HANDS_SCHEMA = pa.schema([(c, _TYPES[c]) for c in HAND_COLUMNS])
#: the Arrow schema of the matches table
MATCHES_SCHEMA = pa.schema([(c, _TYPES[c]) for c in MATCH_COLUMNS])
_PD_TYPES = {c: ("bool" if t == _BOOL else "int64" if t == _I64 else "float64")
             for c, t in _TYPES.items() if t != _STR}


def to_arrow(cols: dict, schema: pa.Schema) -> pa.Table:
    """The column lists of :func:`~dominoai.tournament.loop.run_batch` as an Arrow table."""
    return pa.Table.from_pydict(cols, schema=schema)


def _pandas(table: pa.Table) -> pd.DataFrame:
    return _normalize(table.to_pandas())


def _normalize(df: pd.DataFrame) -> pd.DataFrame:
    """Fixed dtypes, whatever the file format was."""
    return df.astype({c: t for c, t in _PD_TYPES.items() if c in df.columns})


# ------------------------------------------------------------------ files
def results_format(path: Path) -> str:
    """``"parquet"`` or ``"csv"``, from the name of a results file.

    :raises ValueError: any other extension.
    """
    name = path.name.lower()
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".csv", ".csv.gz")):
        return "csv"
    raise ValueError(f"{path}: the results file must end in .parquet or .csv")


def matches_path(path: Path) -> Path:
    """Where the matches table goes beside a results file:
    ``ladder.parquet`` -> ``ladder.matches.parquet``."""
    name = path.name
    for ext in (".csv.gz", ".parquet", ".pq", ".csv"):
        if name.lower().endswith(ext):
            return path.with_name(name[: -len(ext)] + ".matches" + name[-len(ext):])
    return path.with_name(name + ".matches")


def parts_dir(path: Path) -> Path:
    """The folder of a running tournament's parts: ``<out>.parts``."""
    return path.with_name(path.name + ".parts")


def provenance_path(path: Path) -> Path:
    """The sidecar that holds a CSV results file's provenance:
    ``ladder.csv`` (or ``ladder.csv.gz``) -> ``ladder.provenance.json``."""
    name = path.name
    for ext in (".csv.gz", ".parquet", ".pq", ".csv"):
        if name.lower().endswith(ext):
            return path.with_name(name[: -len(ext)] + ".provenance.json")
    return path.with_name(name + ".provenance.json")


def make_provenance(command, rules, bots, seed: int, **more) -> dict:
    """A results file's provenance: ``format`` (``dominoai.provenance/1``),
    ``command`` (the command line as a string: ``sys.argv`` from the CLI,
    else the Python call), ``seed``, ``dominoai`` (the version), ``code_hash``
    (:func:`dominoai._numba_cache.source_hash`: the package's sources, numba's
    and Python's versions), ``rules`` (every :class:`~dominoai.rules.Rules`
    field by name), ``variant`` and ``players`` (the preset and the number of
    seats, for titles), ``bots`` (the bot specs as given; a partnership
    pair as a list), ``created`` (UTC, ISO 8601) and ``more`` (e.g.
    ``mode``, ``deals``, ``tournament``). JSON-compatible throughout."""
    fields = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    prov = {"format": PROVENANCE_FORMAT, "command": command, "seed": int(seed),
            "dominoai": __version__, "code_hash": source_hash(),
            "variant": rules.preset, "players": int(rules.players),
            "rules": json.loads(json.dumps(fields, default=str)),
            "bots": [list(b) if isinstance(b, tuple) else b for b in bots],
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    prov.update(json.loads(json.dumps(more, default=str)))
    return prov


def write_table(df: pd.DataFrame, path: Path, provenance: dict | None = None) -> None:
    """Write a table as ``path``'s format says (:func:`results_format`),
    atomically; ``provenance`` (a JSON-compatible dict) goes into a parquet
    file's schema metadata (:data:`PROVENANCE_KEY`), or beside a CSV file
    (:func:`provenance_path`), written before the table."""
    if results_format(path) == "parquet":
        def write(p):
            table = pa.Table.from_pandas(df, preserve_index=False)
            if provenance is not None:
                meta = dict(table.schema.metadata or {})
                meta[PROVENANCE_KEY.encode()] = json.dumps(provenance).encode()
                table = table.replace_schema_metadata(meta)
            pq.write_table(table, p)
        atomic_write(path, write)
    else:
        if provenance is not None:
            write_json(provenance_path(path), provenance)
        atomic_write(path, lambda p: df.to_csv(p, index=False,
                                               compression="gzip" if path.name.endswith(".gz") else None))


def read_provenance(path) -> dict:
    """The provenance of a results file written by :func:`write_table`
    (a dict, :func:`make_provenance`); ``{}`` when it has none (a file
    written before provenance was kept).

    :raises ValueError: the stored provenance is not valid JSON.
    """
    path = Path(path)
    if results_format(path) == "parquet":
        meta = pq.read_schema(path).metadata or {}
        raw = meta.get(PROVENANCE_KEY.encode())
        if raw is None:
            return {}
        where = f"{path} (parquet metadata {PROVENANCE_KEY})"
    else:
        side = provenance_path(path)
        if not side.exists():
            return {}
        raw = side.read_bytes()
        where = str(side)
    try:
        prov = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"{where}: the provenance is not valid JSON ({e})") from None
    if not isinstance(prov, dict):
        raise ValueError(f"{where}: the provenance is not a JSON object")
    return prov


def read_table(path: Path) -> pd.DataFrame:
    """A table written by :func:`write_table`, with the fixed dtypes."""
    if results_format(path) == "parquet":
        df = pd.read_parquet(path)
    else:
        df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return _normalize(df)


def write_json(path: Path, obj) -> None:
    """Write ``obj`` as JSON, atomically.

    :raises OSError: the folder or the file cannot be written.
    """
    atomic_write(path, json.dumps(obj, indent=1))


# ------------------------------------------------------------------ parts
_PART = re.compile(r"^hands-(\d{6})\.parquet$")


def done_batches(parts: Path) -> set[int]:
    """The batches whose hands part is in ``parts`` (finished batches)."""
    return {int(m.group(1)) for f in os.listdir(parts) if (m := _PART.match(f))}


def check_parts(parts: Path, with_matches: bool) -> set[int]:
    """The finished batches in ``parts``, each part's footer read first, so
    that a damaged part is found before any batch is played.

    :raises ValueError: a part that cannot be read (the message names it and
        says to delete it: its batch is then played again).
    """
    done = done_batches(parts)
    for i in sorted(done):
        for kind in ("hands", "matches") if with_matches else ("hands",):
            part = parts / f"{kind}-{i:06d}.parquet"
            try:
                pq.read_metadata(part)
            except (OSError, pa.ArrowException) as e:
                reason = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise ValueError(f"{part}: not a readable part ({reason}); delete it and resume "
                                 f"(batch {i} is played again), or delete {parts} to start over") from None
    return done


def read_manifest(parts: Path) -> dict:
    """The manifest of the run whose parts are in ``parts``.

    :raises ValueError: it cannot be read (the message says to delete ``parts``).
    """
    try:
        return json.loads((parts / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{parts / MANIFEST}: cannot read the manifest ({e}); delete {parts} to start over") from None


def write_manifest(parts: Path, config: dict, ident: str, n_batches: int, done) -> dict:
    """Start ``parts`` (created, with any temporary file a killed writer left
    removed) and write its manifest; return the manifest (``done`` sorted)."""
    parts.mkdir(parents=True, exist_ok=True)  # (out's directory too)
    for f in parts.glob(".*.tmp*"):
        f.unlink()  # left by a killed writer
    manifest = {"format": MANIFEST_FORMAT, "config": config, "id": ident,
                "batches": n_batches, "done": sorted(done)}
    write_json(parts / MANIFEST, manifest)
    return manifest


def write_part(parts: Path, manifest: dict, index: int, hands: pa.Table, matches: pa.Table | None) -> None:
    """Write batch ``index``'s tables into ``parts`` and mark it done in the
    manifest: the matches part first, the hands part last (it marks the
    batch done), then the manifest."""
    if matches is not None:
        atomic_write(parts / f"matches-{index:06d}.parquet", lambda p: pq.write_table(matches, p))
    atomic_write(parts / f"hands-{index:06d}.parquet", lambda p: pq.write_table(hands, p))
    manifest["done"].append(index)
    write_json(parts / MANIFEST, manifest)


def read_parts(parts: Path, with_matches: bool) -> list[tuple[pa.Table, pa.Table | None]]:
    """The ``(hands, matches)`` tables of every finished batch in ``parts``,
    in batch order (``matches`` None unless ``with_matches``)."""
    return [(pq.read_table(parts / f"hands-{i:06d}.parquet"),
             pq.read_table(parts / f"matches-{i:06d}.parquet") if with_matches else None)
            for i in sorted(done_batches(parts))]


def assemble(tables: list, with_matches: bool) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The hands table (sorted by match, hand, seat) and the matches table
    (sorted by match, seat; None unless ``with_matches``) from the
    ``(hands, matches)`` Arrow tables of the batches."""
    hands = _pandas(pa.concat_tables([h for h, _ in tables]) if tables else HANDS_SCHEMA.empty_table())
    hands = hands.sort_values(["match", "hand", "seat"], ignore_index=True)
    matches = None
    if with_matches:
        matches = _pandas(pa.concat_tables([m for _, m in tables]) if tables else MATCHES_SCHEMA.empty_table())
        matches = matches.sort_values(["match", "seat"], ignore_index=True)
    return hands, matches


# ------------------------------------------------------------------ results
@dataclass
class TournamentResult:
    """What :func:`~dominoai.tournament.run.run_tournament` returns (or :func:`load_results` reads).

    ``hands``: the hands table (module docstring); ``matches``: the matches
    table when whole matches were played, else None; ``config``: the
    tournament's configuration; ``elapsed``: seconds this run took;
    ``played``: hands played by this run (a resume plays only the rest);
    ``provenance``: how the results were made (:func:`make_provenance`:
    command line, seed, version and code hash, rules, bot specs; ``{}``
    for a file written without it). ``pairings`` and ``ratings`` are computed on first use
    (:mod:`~dominoai.tournament.stats`); ``summary()`` prints both.
    """

    hands: pd.DataFrame
    matches: pd.DataFrame | None = None
    config: dict = field(default_factory=dict)
    elapsed: float = 0.0
    played: int = 0
    path: Path | None = None
    provenance: dict = field(default_factory=dict)

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
        """The pairings and ratings as a text table, the ratings with each
        bot's median CPU ms per decision."""
        from .stats import format_summary, median_ms_per_decision
        n_hands = len(self.hands) // max(1, int(self.hands["players"].iloc[0])) if len(self.hands) else 0
        games = f"{n_hands} hands"
        if self.matches is not None:
            games = f"{self.matches['match'].nunique()} matches, {n_hands} hands"
        variant = self.hands["variant"].iloc[0] if len(self.hands) else "?"
        players = self.hands["players"].iloc[0] if len(self.hands) else "?"
        head = f"{variant}, {players} players: {games}"
        if self.elapsed > 0 and self.played:
            rate = self.hands_per_second
            secs = f"{self.elapsed:.1f}" if self.elapsed >= 0.1 else f"{self.elapsed:.2g}"   # never "0.0 s"
            head += f"; {self.played} played in {secs} s ({rate:.{0 if rate >= 10 else 1}f} hands/s)"
        head += "\n\n"
        return head + format_summary(self.pairings, self.ratings, median_ms_per_decision(self.hands))

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        n = len(self.hands)
        what = f"{self.hands['variant'].iloc[0]}, {self.hands['players'].iloc[0]} players: " if n else ""
        games = f"{self.matches['match'].nunique()} matches, " if self.matches is not None else ""
        hands = n // max(1, int(self.hands["players"].iloc[0])) if n else 0
        return f"<TournamentResult {what}{games}{hands} hands, bots {', '.join(self.bots)}>"


def load_results(path) -> TournamentResult:
    """A results file written by :func:`~dominoai.tournament.run.run_tournament` (``.parquet`` or
    ``.csv``; the matches table beside it is read when present), with its
    provenance (``result.provenance``, :func:`read_provenance`).

    :raises ValueError: an extension other than ``.parquet``/``.csv``, a
        file that does not parse as such a table or lacks one of its columns
        (:data:`~dominoai.tournament.loop.HAND_COLUMNS`; the matches table:
        ``MATCH_COLUMNS``), or a provenance that is not valid JSON.
    :raises OSError: the file cannot be read.
    """
    path = Path(path)
    hands = _read_results_table(path, HAND_COLUMNS)
    mp = matches_path(path)
    matches = _read_results_table(mp, MATCH_COLUMNS) if mp.exists() else None
    return TournamentResult(hands, matches, path=path, provenance=read_provenance(path))


def _read_results_table(path: Path, columns: list) -> pd.DataFrame:
    """:func:`read_table`, refusing a file that is not such a table (one that
    does not parse, or lacks some of ``columns``) with a one-line ValueError."""
    try:
        df = read_table(path)
    except (ValueError, TypeError, pa.ArrowException) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if str(path) in first:   # the reason after the file's name (it is said once, below)
            first = first.split(str(path), 1)[1].lstrip("'\": ") or first
        raise ValueError(f"{path} is not a dominoai results file ({first})") from None
    missing = [c for c in columns if c not in df.columns]
    if missing and columns is HAND_COLUMNS and ".matches." in path.name.lower() \
            and all(c in df.columns for c in MATCH_COLUMNS):
        raise ValueError(f"{path} is the matches table of a run: give its results file (the hands "
                         "table beside it), not its .matches table")
    if missing:
        raise ValueError(f"{path} is not a dominoai results file: it lacks the column"
                         f"{'s' * (len(missing) > 1)} {', '.join(missing[:4])}"
                         f"{', ...' if len(missing) > 4 else ''}")
    return df
