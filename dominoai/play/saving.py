"""The saved match of ``dominoai play``: where it lives, writing it, resuming it.

The match is written as a ``dominoai.record/1`` record to
``<data>/current_match.json`` (:data:`MATCH_FILE`) after the deal and after
every move, with a ``"play"`` entry (format ``dominoai.play/1``: the human's
``seat``, the ``bots`` in the other seats, ``opponents``, ``partner``,
``level``, ``variant``, ``seed`` and ``analysis``: whether the bots'
analyses are stored). With ``analysis`` each bot decision a bot analysed
carries its move values (``"analysis"`` on the move, docs/render.md), and a
finished match is kept as ``<data>/last_match.json`` (:data:`LAST_MATCH_FILE`)
for ``dominoai view``. Every write goes to a temporary file in
the same folder, then :func:`os.replace` (:func:`atomic_write`), so a kill
never leaves half a save. :func:`load_saved` replays a save
(:func:`~dominoai.records.match_from_record`) to continue it. ``<data>`` is
:func:`user_data_path`: ``$DOMINOAI_DATA_DIR`` if set, else
``platformdirs.user_data_dir("dominoai")``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .._files import atomic_write_text

from ..game import Match
from ..records import RecordError, dumps_record, load_record, match_from_record, record_from_match
from ..tournament.loop import add_analysis
from .errors import PlayError

__all__ = ["ENV_DATA_DIR", "MATCH_FILE", "LAST_MATCH_FILE", "PLAY_FORMAT", "saved_analyses", "RESUME_HINT", "user_data_path",
           "atomic_write", "save_match", "load_saved"]

ENV_DATA_DIR = "DOMINOAI_DATA_DIR"
MATCH_FILE = "current_match.json"
LAST_MATCH_FILE = "last_match.json"
PLAY_FORMAT = "dominoai.play/1"
RESUME_HINT = "`dominoai play --continue` resumes it"


def user_data_path(override: "str | os.PathLike | None" = None) -> Path:
    """The user data directory: ``override``, else ``$DOMINOAI_DATA_DIR``, else
    ``platformdirs.user_data_dir("dominoai")``. Not created here."""
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env)
    from platformdirs import user_data_dir
    return Path(user_data_dir("dominoai"))


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same
    folder (created if needed), flushed to disk, then :func:`os.replace`.

    :raises OSError: the folder or the file cannot be written (no temporary
        file is left behind).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text, sync=True)


def save_match(path: Path, match: Match, meta: dict, analyses: list | None = None) -> None:
    """Write ``match`` to ``path`` as a record whose ``seats`` are ``"you"``
    for the human and the bot specs of ``meta["bots"]`` for the others, with
    ``meta`` as its ``"play"`` entry and ``analyses`` (``(hand, move,
    entries)``, 0-based; :func:`~dominoai.tournament.loop.add_analysis`)
    on their moves.

    :raises PlayError: the file cannot be written.
    """
    seat = int(meta["seat"])
    seats = ["you" if s == seat else meta["bots"][s] for s in range(match.rules.players)]
    rec = record_from_match(match, seats)
    if analyses:
        add_analysis(rec, analyses)
    rec["play"] = meta
    try:
        atomic_write(path, dumps_record(rec))
    except OSError as e:
        raise PlayError(f"cannot save the match to {path}: {e.strerror or e}") from None


def saved_analyses(rec) -> list:
    """The analyses a saved record carries, as ``(hand, move, entries)``
    (0-based), to go on saving them after a resume."""
    return [(h, m, [dict(e) for e in mv.analysis]) for h, hr in enumerate(rec.hands)
            for m, mv in enumerate(hr.moves) if mv.analysis is not None]


def load_saved(path: Path, seed: "int | None", new_seed) -> tuple[Match, dict]:
    """The saved match at ``path``, replayed, and its ``"play"`` entry. The
    replayed match's future deals are seeded from ``seed`` (else the save's
    ``seed``, else ``new_seed()``), the number of hands and of moves.

    :raises PlayError: no saved match, an unreadable record, a record without
        a valid ``"play"`` entry, or one that does not replay.
    """
    if not path.exists():
        raise PlayError(f"no saved match to continue (looked for {path}); start one with `dominoai play`")
    try:
        rec = load_record(path)
    except RecordError as e:
        raise PlayError(f"the saved match cannot be read: {e}") from None
    meta = rec.extra.get("play")
    players = rec.rules.players
    ok = (isinstance(meta, dict) and isinstance(meta.get("seat"), int)
          and 0 <= meta["seat"] < players and isinstance(meta.get("bots"), list)
          and len(meta["bots"]) == players
          and all((b is None) == (s == meta["seat"]) and (b is None or isinstance(b, str))
                  for s, b in enumerate(meta["bots"]))
          and isinstance(meta.get("variant"), str) and isinstance(meta.get("level"), str))
    if not ok:
        raise PlayError(f"{path} is not a match saved by `dominoai play` (no valid \"play\" entry)")
    base = meta.get("seed") if isinstance(meta.get("seed"), int) else new_seed()
    if seed is not None:
        base = int(seed)
    moves = sum(len(h.moves) for h in rec.hands)
    try:
        match = match_from_record(rec, seed=[base, len(rec.hands), moves])
    except RecordError as e:
        raise PlayError(f"the saved match {path} cannot be replayed: {e}") from None
    return match, meta
