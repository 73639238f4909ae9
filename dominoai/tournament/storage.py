"""Tournament storage: the tables' schemas, part files, the manifest, results files.

A running tournament keeps its finished batches under ``<out>.parts/``:
``hands-NNNNNN.parquet`` (and ``matches-NNNNNN.parquet`` when whole matches
are played) per batch, and ``manifest.json`` (format
``dominoai.tournament/1``: the configuration, the tournament id, the number
of batches and those done). Every file is written to a temporary name in the
same folder, then moved into place with :func:`os.replace`
(:func:`atomic_write`), so a reader, or a resume after a kill, never sees half
a file; a batch's hands part is written last and marks it done. The final
results file is ``.parquet`` or ``.csv`` (``.csv.gz``), the matches table
beside it as ``<stem>.matches.<ext>``; :func:`load_results` reads both back
with the same dtypes (:data:`HANDS_SCHEMA`, :data:`MATCHES_SCHEMA`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .loop import HAND_COLUMNS, MATCH_COLUMNS

__all__ = ["TournamentResult", "load_results", "HANDS_SCHEMA", "MATCHES_SCHEMA", "MANIFEST",
           "MANIFEST_FORMAT", "results_format", "matches_path", "parts_dir", "atomic_write",
           "write_table", "read_table", "write_json", "read_manifest", "write_manifest",
           "done_batches", "write_part", "read_parts", "assemble", "to_arrow"]

MANIFEST = "manifest.json"
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


def atomic_write(path: Path, write) -> None:
    """Write a file through ``write(tmp_path)`` to a temporary name, then move
    it into place, so a reader (or a resume) never sees half a file."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_table(df: pd.DataFrame, path: Path) -> None:
    """Write a table as ``path``'s format says (:func:`results_format`), atomically."""
    if results_format(path) == "parquet":
        atomic_write(path, lambda p: df.to_parquet(p, index=False))
    else:
        atomic_write(path, lambda p: df.to_csv(p, index=False,
                                               compression="gzip" if path.name.endswith(".gz") else None))


def read_table(path: Path) -> pd.DataFrame:
    """A table written by :func:`write_table`, with the fixed dtypes."""
    if results_format(path) == "parquet":
        df = pd.read_parquet(path)
    else:
        df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return _normalize(df)


def write_json(path: Path, obj) -> None:
    """Write ``obj`` as JSON, atomically."""
    atomic_write(path, lambda p: p.write_text(json.dumps(obj, indent=1), encoding="utf-8"))


# ------------------------------------------------------------------ parts
_PART = re.compile(r"^hands-(\d{6})\.parquet$")


def done_batches(parts: Path) -> set[int]:
    """The batches whose hands part is in ``parts`` (finished batches)."""
    return {int(m.group(1)) for f in os.listdir(parts) if (m := _PART.match(f))}


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
    """A results file written by :func:`~dominoai.tournament.run.run_tournament` (``.parquet`` or
    ``.csv``; the matches table beside it is read when present)."""
    path = Path(path)
    hands = read_table(path)
    mp = matches_path(path)
    matches = read_table(mp) if mp.exists() else None
    return TournamentResult(hands, matches, path=path)
