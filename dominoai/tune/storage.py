"""Where a study lives: an SQLite file, a PostgreSQL database, or a journal
file on a shared file system (Optuna's ``JournalStorage``).

``storage`` (``--storage``) names the kind by its form:

====================================  =========================================
``sqlite:///results/tune.db``         an SQLite file (one machine)
``postgresql://user@host:5432/db``    a PostgreSQL database (needs ``psycopg``:
                                      ``pip install 'dominoai[postgres]'``)
``journal:/shared/tune.journal``      a journal file (every machine sees the
                                      same file system)
====================================  =========================================

``study`` (``--study``) is then the study's name in it; without
``storage``, ``study`` is an SQLite file (``results/tune.db``), the study
named ``dominoai-tune`` in it.

:func:`stored_identity` reads what a storage holds for a study without
writing anything (an unreachable database, a storage of unknown kind or a
file that is no study are refused here, before any work).

>>> ref = parse_storage("journal:tune.journal", "insane-draw")
>>> ref.kind, ref.name, str(ref.path)
('journal', 'insane-draw', 'tune.journal')
>>> parse_storage("mysql://x/y", "s")
Traceback (most recent call last):
...
dominoai.errors.InputError: storage mysql://x/y: unknown kind of storage; give sqlite:///FILE.db, postgresql://USER@HOST/DB or journal:FILE
"""

from __future__ import annotations

import inspect
import json
import sqlite3
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

__all__ = ["StorageRef", "parse_storage", "stored_identity", "open_storage", "STUDY_NAME"]

#: the study's name in an SQLite file given as ``study`` alone
STUDY_NAME = "dominoai-tune"
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_KINDS = "give sqlite:///FILE.db, postgresql://USER@HOST/DB or journal:FILE"


@dataclass(frozen=True)
class StorageRef:
    """A study's place: ``kind`` (``"sqlite"``, ``"postgresql"``,
    ``"journal"`` or ``"memory"``), ``name`` (the study's name), ``path``
    (the file of an SQLite or journal storage, else None), ``url`` (the
    SQLAlchemy URL of a database, else None) and ``text`` (as given, for
    messages)."""

    kind: str
    name: str
    path: Path | None = None
    url: str | None = None
    text: str = ""

    @property
    def heartbeat_native(self) -> bool:
        """Whether the storage records Optuna's heartbeats (a database)."""
        return self.kind in ("sqlite", "postgresql")


def _postgres_url(url: str) -> str:
    """``postgresql://`` with the psycopg (3) driver, which the
    ``[postgres]`` extra installs; a URL naming its driver stays."""
    scheme, _, rest = url.partition("://")
    if "+" in scheme:
        return url
    return f"postgresql+psycopg://{rest}"


def parse_storage(storage: "str | Path | None", study: "str | Path | None") -> StorageRef:
    """The :class:`StorageRef` of ``storage`` and ``study`` (see the module).

    :raises InputError: a storage of unknown kind; an SQLite ``study`` not
        named ``.db``; an empty study name.
    """
    if storage is None:
        if study is None:
            return StorageRef("memory", STUDY_NAME)
        path = Path(study)
        if path.suffix not in SQLITE_SUFFIXES:
            raise InputError("study", study, f"$study {study}: the study is an SQLite file: end it in .db "
                             "(or give a $storage and the study's name)", "storage")
        return StorageRef("sqlite", STUDY_NAME, path, None, str(study))
    text = str(storage).strip()
    name = STUDY_NAME if study is None else str(study).strip()
    if not name:
        raise InputError("study", study, "$study: give the study's name")
    low = text.lower()
    if low.startswith("sqlite:///"):
        path = Path(text[len("sqlite:///"):])
        if not path.name or path.suffix not in SQLITE_SUFFIXES:
            raise InputError("storage", text, f"$storage {text}: name the SQLite file, ending in .db")
        return StorageRef("sqlite", name, path, None, text)
    if low.startswith(("postgresql://", "postgresql+", "postgres://")):
        url = "postgresql://" + text.split("://", 1)[1] if low.startswith("postgres://") else text
        return StorageRef("postgresql", name, None, _postgres_url(url), text)
    if low.startswith("journal:"):
        rest = text[len("journal:"):]
        rest = rest[2:] if rest.startswith("//") else rest
        if not rest:
            raise InputError("storage", text, f"$storage {text}: name the journal file (journal:FILE)")
        return StorageRef("journal", name, Path(rest), None, text)
    if Path(text).suffix in SQLITE_SUFFIXES and "://" not in text:
        return StorageRef("sqlite", name, Path(text), None, text)
    raise InputError("storage", text, f"$storage {text}: unknown kind of storage; {_KINDS}")


def _optuna():
    try:
        import optuna
    except ImportError:  # pragma: no cover - a dependency
        raise ValueError("tuning needs optuna: pip install 'optuna>=3.4'") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def _first_line(e: BaseException) -> str:
    text = str(getattr(e, "orig", None) or e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _attrs_sql(rows) -> dict:
    return {k: json.loads(v) for k, v in rows} if rows else {}


def _optuna_table(name: str) -> bool:
    """True for the name of a table an Optuna storage makes."""
    return name in ("studies", "trials", "version_info", "alembic_version") or name.startswith(("study_", "trial_"))


def _sqlite_attrs(path: Path, name: str) -> dict | None:
    if not path.exists():
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        head = b"?"
    if head not in (b"", b"SQLite format 3\x00"):
        raise ValueError(f"{path}: not a dominoai tune study")
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            if not {"studies", "study_user_attributes"} <= set(tables):
                if all(_optuna_table(t) for t in tables):
                    return None      # empty, or another worker is making the tables this instant
                raise ValueError(f"{path}: not a dominoai tune study")   # tables of its own
            rows = con.execute(
                "SELECT a.key, a.value_json FROM studies s JOIN study_user_attributes a "
                "ON a.study_id = s.study_id WHERE s.study_name = ?", (name,)).fetchall()
            studies = con.execute("SELECT COUNT(*) FROM studies WHERE study_name = ?", (name,)).fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        raise ValueError(f"{path}: not a dominoai tune study") from None
    return _attrs_sql(rows) if studies else None


def _engine(ref: StorageRef):
    import sqlalchemy
    if ref.url.startswith("postgresql+psycopg:"):
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise ValueError("a postgresql storage needs psycopg: pip install 'dominoai[postgres]'") from None
    return sqlalchemy.create_engine(ref.url, connect_args={"connect_timeout": 10}, poolclass=sqlalchemy.pool.NullPool)


def _database_attrs(ref: StorageRef) -> dict | None:
    import sqlalchemy
    engine = _engine(ref)
    try:
        with engine.connect() as con:
            if not sqlalchemy.inspect(con).has_table("studies"):
                return None
            sid = con.execute(sqlalchemy.text("SELECT study_id FROM studies WHERE study_name = :n"),
                              {"n": ref.name}).scalar()
            if sid is None:
                return None
            rows = con.execute(sqlalchemy.text(
                "SELECT key, value_json FROM study_user_attributes WHERE study_id = :i"), {"i": sid}).fetchall()
    except sqlalchemy.exc.SQLAlchemyError as e:
        raise InputError("storage", ref.text, f"$storage {ref.text}: cannot reach the database: "
                         f"{_first_line(e)}") from None
    finally:
        engine.dispose()
    return _attrs_sql(rows)


def _check_journal(ref: StorageRef) -> None:
    """Refuse a file that is not Optuna's journal before Optuna appends to
    it: every line a JSON object with an ``op_code`` (the last line may be
    cut short by a writer that died mid-line; Optuna skips it)."""
    try:
        lines = ref.path.read_bytes().split(b"\n")
    except OSError as e:
        raise InputError("storage", ref.text, f"$storage {ref.text}: cannot read: {e.strerror}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        cut_short = n == len(lines) and (line.startswith(b'{"op_code"') or b'{"op_code"'.startswith(line))
        if not (isinstance(entry, dict) and "op_code" in entry) and not cut_short:
            raise InputError("storage", ref.text, f"$storage {ref.text}: not a journal file (line {n} is no "
                             "journal entry); nothing was written to it")


def _journal_attrs(ref: StorageRef) -> dict | None:
    if not ref.path.exists():
        return None
    if ref.path.is_dir():
        raise InputError("storage", ref.text, f"$storage {ref.text}: is a directory")
    _check_journal(ref)
    storage = open_storage(ref)
    try:
        for s in storage.get_all_studies():
            if s.study_name == ref.name:
                return dict(s.user_attrs)
    except (ValueError, KeyError) as e:
        raise InputError("storage", ref.text, f"$storage {ref.text}: not a journal file: {_first_line(e)}") from None
    return None


def stored_identity(ref: StorageRef) -> dict | None:
    """The user attributes of the study ``ref`` names (read, nothing
    written); None when the storage has no such study yet.

    :raises InputError: a database that cannot be reached; a journal path
        that is a directory or not a journal.
    :raises ValueError: an SQLite file that is not an Optuna storage, or
        the driver of a database missing.
    """
    if ref.kind == "memory":
        return None
    if ref.kind == "sqlite":
        return _sqlite_attrs(ref.path, ref.name)
    if ref.kind == "postgresql":
        return _database_attrs(ref)
    return _journal_attrs(ref)


def open_storage(ref: StorageRef, heartbeat: int | None = None, on_stale=None):
    """The Optuna storage of ``ref`` (made if missing). With ``heartbeat``
    (seconds), a database storage records Optuna's heartbeats at that
    interval and a trial without one for three intervals is stale
    (``on_stale(study, trial)`` is called for it by
    ``optuna.storages.fail_stale_trials``)."""
    optuna = _optuna()
    if ref.kind == "memory":
        return optuna.storages.InMemoryStorage()
    if ref.kind == "journal":
        try:
            from optuna.storages.journal import JournalFileBackend as Backend
        except ImportError:  # optuna 3
            from optuna.storages import JournalFileStorage as Backend
        ref.path.parent.mkdir(parents=True, exist_ok=True)
        return optuna.storages.JournalStorage(Backend(str(ref.path)))
    url = ref.url if ref.kind == "postgresql" else f"sqlite:///{ref.path.resolve()}"
    kw = {}
    if heartbeat is not None:
        kw = dict(heartbeat_interval=int(heartbeat), grace_period=3 * int(heartbeat))
        names = inspect.signature(optuna.storages.RDBStorage).parameters
        if on_stale is not None:
            kw["heartbeat_stale_trial_callback" if "heartbeat_stale_trial_callback" in names
               else "failed_trial_callback"] = on_stale
    if ref.kind == "sqlite":
        ref.path.parent.mkdir(parents=True, exist_ok=True)
        kw["engine_kwargs"] = {"connect_args": {"timeout": 60}}
    else:
        _engine(ref).dispose()   # the driver's message when it is missing
    import sqlalchemy
    for attempt in range(6):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")   # the heartbeat is 'experimental'
                return optuna.storages.RDBStorage(url, **kw)
        except (sqlalchemy.exc.IntegrityError, sqlalchemy.exc.OperationalError):
            # workers started together make the tables at the same moment: one
            # wins, the others find them made
            if attempt == 5:
                raise
            time.sleep(0.2 * (attempt + 1))
