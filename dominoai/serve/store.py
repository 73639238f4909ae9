"""The server's store: one SQLite file in WAL mode.

Four tables: ``guests`` (a cookie's token, the name, the stats as
``dominoai.stats/1`` counts, when it was last seen), ``tables`` (the code,
the settings, who sits in each seat, the status and the match so far as a
``dominoai.record/1`` record, written after every move), ``records``
(every finished hand: the record of the match up to that hand, with the
seats' names or bot specs and their kinds, person or bot) and nothing
else. Every write is one transaction, so a server killed at any moment
restarts with every table at its last move; a finished match's stats are
written in the transaction that stores the table as finished.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from .._files import atomic_write
from ..records import dumps_record
from ..table import add_match

__all__ = ["Store", "StoreError", "SCHEMA_VERSION", "check_store"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS guests (
    token TEXT PRIMARY KEY, name TEXT NOT NULL, created REAL NOT NULL, stats TEXT NOT NULL DEFAULT '{}',
    seen REAL);
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT UNIQUE NOT NULL, created REAL NOT NULL,
    settings TEXT NOT NULL, guests TEXT NOT NULL, status TEXT NOT NULL, record TEXT,
    ready TEXT NOT NULL DEFAULT '[]', updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY AUTOINCREMENT, table_id INTEGER NOT NULL, hand INTEGER NOT NULL,
    seats TEXT NOT NULL, record TEXT NOT NULL, created REAL NOT NULL, UNIQUE (table_id, hand));
"""


class StoreError(Exception):
    """The store cannot be opened: its folder cannot be made, or SQLite
    cannot open or write the file. The message names the file and says why
    in one line."""


def check_store(path: "str | Path") -> None:
    """Check that ``path`` can hold the server's store: missing, empty, or a
    SQLite database that is empty or the server's own (its tables, or its
    ``user_version``). Opens it read-only and changes nothing.

    :raises ValueError: a file that is not a SQLite database, or a database
        of something else (the reason in one line).
    """
    path = Path(path)
    if not path.exists() or path.is_file() and path.stat().st_size == 0:
        return
    if not path.is_file():
        raise ValueError(f"{path} is not a file")
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            version = con.execute("PRAGMA user_version").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as e:
        raise ValueError(f"{path} is not a server database ({e})") from None
    if names and not {"guests", "tables", "records"} <= names:
        raise ValueError(f"{path} is a SQLite database of something else (tables: {', '.join(sorted(names))})")
    if version not in (0, SCHEMA_VERSION):
        raise ValueError(f"{path} is a server database of schema {version}; this version reads {SCHEMA_VERSION}")


class Store:
    """The SQLite store at ``path`` (created with its folder if missing).

    Used from one thread (the server's event loop); each call is short.

    :raises StoreError: the folder cannot be made (a part of it is a file,
        no permission), or SQLite cannot open the file as a database.
    """

    def __init__(self, path: "str | Path"):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            file = next((p for p in reversed(self.path.parents) if p.exists() and not p.is_dir()), None)
            why = f"{file} is a file, not a folder" if file is not None else (e.strerror or str(e))
            raise StoreError(f"cannot open the server database {self.path}: {why}") from None
        try:
            self.db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA busy_timeout=5000")
            self.db.executescript(_SCHEMA)
            if "seen" not in {r[1] for r in self.db.execute("PRAGMA table_info(guests)")}:
                self.db.execute("ALTER TABLE guests ADD COLUMN seen REAL")    # a store of an older server
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.Error as e:
            raise StoreError(f"cannot open the server database {self.path}: {e}") from None

    def close(self) -> None:
        self.db.close()

    # -- guests
    def guest(self, token: str) -> dict | None:
        """The guest with cookie ``token``: ``{"token", "name", "stats"}``, or None."""
        row = self.db.execute("SELECT name, stats FROM guests WHERE token=?", (token,)).fetchone()
        if row is None:
            return None
        return {"token": token, "name": row[0], "stats": json.loads(row[1])}

    def add_guest(self, token: str, name: str) -> None:
        now = time.time()
        self.db.execute("INSERT INTO guests (token, name, created, seen) VALUES (?, ?, ?, ?)",
                        (token, name, now, now))

    def rename_guest(self, token: str, name: str) -> None:
        self.db.execute("UPDATE guests SET name=? WHERE token=?", (name, token))

    def touch_guest(self, token: str, when: float | None = None) -> None:
        """Mark the guest ``token`` as seen at ``when`` (a Unix time in
        seconds; default now)."""
        self.db.execute("UPDATE guests SET seen=? WHERE token=?", (time.time() if when is None else when, token))

    def remove_idle_guests(self, seen_before: float, keep=()) -> int:
        """Delete the guests last seen before ``seen_before`` (a Unix time in
        seconds) that sit at no table, finished or not, and have no stats,
        except the tokens in ``keep``. Returns how many were deleted."""
        keep = set(keep)
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            idle = [t for (t,) in self.db.execute(
                "SELECT token FROM guests WHERE COALESCE(seen, created) < ? AND stats = '{}' "
                "AND NOT EXISTS (SELECT 1 FROM tables, json_each(tables.guests) "
                "WHERE json_each.value = guests.token)", (seen_before,)) if t not in keep]
            self.db.executemany("DELETE FROM guests WHERE token=?", [(t,) for t in idle])
        return len(idle)

    def count_match(self, token: str, variant: str, level: str, outcome: str, hands: int, won: int) -> None:
        """Add one finished match to a guest's stats (:func:`~dominoai.table.add_match`)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self._count_match(token, variant, level, outcome, hands, won)

    def _count_match(self, token: str, variant: str, level: str, outcome: str, hands: int, won: int) -> None:
        g = self.guest(token)
        if g is not None:
            stats = add_match(g["stats"], variant, level, outcome, hands, won)
            self.db.execute("UPDATE guests SET stats=? WHERE token=?", (json.dumps(stats, sort_keys=True), token))

    # -- tables
    def add_table(self, code: str, settings: dict, guests: list, status: str) -> int:
        now = time.time()
        cur = self.db.execute(
            "INSERT INTO tables (code, created, settings, guests, status, updated) VALUES (?, ?, ?, ?, ?, ?)",
            (code, now, json.dumps(settings), json.dumps(guests), status, now))
        return int(cur.lastrowid)

    def save_table(self, code: str, guests: list, status: str, record: dict | None, ready: list,
                   finished_hand: "tuple[int, list, dict] | None" = None, matches=()) -> None:
        """Write a table as it stands (one transaction); ``finished_hand``:
        ``(hand index, seats, record)`` of a hand that just ended, kept in
        ``records`` (once per hand); ``matches``: per person of a match that
        just ended ``(token, variant, level, outcome, hands, hands won)``,
        added to their stats in the same transaction (:meth:`count_match`)."""
        rec_text = None if record is None else json.dumps(record, separators=(",", ":"))
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("UPDATE tables SET guests=?, status=?, record=?, ready=?, updated=? WHERE code=?",
                            (json.dumps(guests), status, rec_text, json.dumps(ready), time.time(), code))
            if finished_hand is not None:
                hand, seats, rec = finished_hand
                tid = self.db.execute("SELECT id FROM tables WHERE code=?", (code,)).fetchone()[0]
                self.db.execute("INSERT OR IGNORE INTO records (table_id, hand, seats, record, created) "
                                "VALUES (?, ?, ?, ?, ?)",
                                (tid, hand, json.dumps(seats), json.dumps(rec, separators=(",", ":")),
                                 time.time()))
            for counted in matches:
                self._count_match(*counted)

    def tables(self) -> list[dict]:
        """Every table: ``{"id", "code", "settings", "guests", "status", "record", "ready"}``."""
        out = []
        for tid, code, settings, guests, status, record, ready in self.db.execute(
                "SELECT id, code, settings, guests, status, record, ready FROM tables ORDER BY id"):
            out.append({"id": tid, "code": code, "settings": json.loads(settings), "guests": json.loads(guests),
                        "status": status, "record": None if record is None else json.loads(record),
                        "ready": json.loads(ready)})
        return out

    # -- records
    def records(self) -> list[dict]:
        """Every finished hand's record: ``{"table", "hand", "seats", "record"}``, oldest first."""
        return [{"table": t, "hand": h, "seats": json.loads(s), "record": json.loads(r)}
                for t, h, s, r in self.db.execute(
                    "SELECT table_id, hand, seats, record FROM records ORDER BY table_id, hand")]

    def export(self, directory: "str | Path") -> list[Path]:
        """Write, for each table with a finished hand, the record of its match
        up to its last finished hand as ``table-<id>.json`` in ``directory``
        (created if needed), for ``dominoai replay``, ``dominoai view`` and
        training. Returns the files written. Each record says who sat in
        each seat (``seat_kinds``: a person or a bot); a hand stored before
        records said so takes the kinds from its table.

        :raises OSError: the folder or a file cannot be written.
        """
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        last: dict = {}
        for r in self.records():
            last[r["table"]] = r["record"]
        bots = {t["id"]: ((t["record"] or {}).get("play") or {}).get("bots") for t in self.tables()}
        for tid, rec in last.items():
            b = bots.get(tid)
            if "seat_kinds" not in rec and isinstance(b, list) and len(b) == len(rec.get("seats") or ()):
                rec["seat_kinds"] = ["person" if x is None else "bot" for x in b]
        out = []
        for tid, rec in sorted(last.items()):
            path = directory / f"table-{tid}.json"
            atomic_write(path, dumps_record(rec))
            out.append(path)
        return out
