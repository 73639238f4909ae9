"""The saved match of ``dominoai play``: where it lives, writing it, resuming it.

The match is written as a ``dominoai.record/1`` record to
``<data>/current_match.json`` (:data:`MATCH_FILE`) after the deal and after
every move, with a ``"play"`` entry (format ``dominoai.play/1``: the human's
``seat``, the ``bots`` in the other seats, ``opponents``, ``partner``,
``level``, ``variant``, ``seed`` and ``analysis``: whether the bots'
analyses are stored). With ``analysis`` each bot decision a bot analysed
carries its move values (``"analysis"`` on the move, docs/render.md), and a
finished match is kept as ``<data>/last_match.json`` (:data:`LAST_MATCH_FILE`)
for ``dominoai view``. Every write goes to a temporary file in the same
folder, flushed to disk, then :func:`os.replace`
(:func:`dominoai._files.atomic_write`), so a kill never leaves half a save.
:func:`load_saved` replays a save (:meth:`Table.from_record
<dominoai.table.Table.from_record>`) to continue it. ``<data>`` is
:func:`dominoai._files.user_data_path`: ``$DOMINOAI_DATA_DIR`` if set, else
``platformdirs.user_data_dir("dominoai")``.
"""

from __future__ import annotations

from pathlib import Path

from .._files import atomic_write
from ..records import dumps_record
from ..table import PLAY_FORMAT, Table, TableError
from .errors import PlayError

__all__ = ["MATCH_FILE", "LAST_MATCH_FILE", "REPLACED_MATCH_FILE", "PLAY_FORMAT", "RESUME_HINT", "save_table",
           "load_saved"]

MATCH_FILE = "current_match.json"
LAST_MATCH_FILE = "last_match.json"
#: where a new match moves the unfinished one it replaces (kept, not lost)
REPLACED_MATCH_FILE = "replaced_match.json"
RESUME_HINT = "`dominoai play --continue` resumes it"


def save_table(path: Path, table: Table) -> None:
    """Write ``table`` to ``path`` as a record (:meth:`Table.record
    <dominoai.table.Table.record>`: the seats' names, ``"you"`` for the
    human, and bot specs; the bots' analyses; the ``"play"`` entry), its
    folder made if needed, flushed to disk before it replaces the last save.

    :raises PlayError: the file cannot be written.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, dumps_record(table.record()), sync=True)
    except OSError as e:
        raise PlayError(f"cannot save the match to {path}: {e.strerror or e}") from None


def load_saved(path: Path, seed: "int | None") -> Table:
    """The table saved at ``path``, its match replayed
    (:meth:`Table.from_record <dominoai.table.Table.from_record>`; future
    deals seeded from ``seed``, else the save's ``seed``, the number of
    hands and of moves).

    :raises PlayError: no saved match, an unreadable record, a record without
        a valid ``"play"`` entry for one human, or one that does not replay.
    """
    if not path.exists():
        raise PlayError(f"no saved match to continue (looked for {path}); start one with `dominoai play`")
    try:
        return Table.from_record(path, seed=seed, one_person=True)
    except TableError as e:
        if "not a saved table" in str(e):
            raise PlayError(f"{path} is not a match saved by `dominoai play` (no valid \"play\" entry)") from None
        if e.code == "bad_bot":
            raise PlayError(f"the saved match names a bot that cannot be built: {e}") from None
        msg = str(e)
        raise PlayError(msg if str(path) in msg else f"{msg} ({path})") from None   # the path once
