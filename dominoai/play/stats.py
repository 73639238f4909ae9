"""The human's statistics of ``dominoai play``: wins and losses per variant and level.

``<data>/stats.json`` (:data:`STATS_FILE`, format ``dominoai.stats/1``)
counts matches, wins, losses, draws, hands and hands won per variant
(:func:`~dominoai.table.variant_key`) and opponent level
(:func:`~dominoai.table.level_name`), as "How to play Domino" (Russian)
asks; :func:`record_match` adds a finished match
(:func:`~dominoai.table.add_match`, as the server counts a guest's),
:func:`format_stats` shows them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .._files import atomic_write, free_path
from ..table import STAT_FIELDS, add_match, hands_won, level_name, variant_key

__all__ = ["STATS_FILE", "STATS_FORMAT", "STAT_FIELDS", "variant_key", "level_name", "load_stats",
           "format_stats", "hands_won", "record_match"]

STATS_FILE = "stats.json"
#: where a stats file that cannot be read is set aside before one is started afresh
UNREADABLE_STATS_FILE = "stats-unreadable.json"
STATS_FORMAT = "dominoai.stats/1"


def load_stats(directory: "str | os.PathLike") -> dict:
    """The stats ``{variant: {level: {matches, wins, losses, draws, hands,
    hands_won}}}`` kept in ``directory``; empty when there are none.

    :raises ValueError: a stats file that cannot be read or is malformed.
    """
    path = Path(directory) / STATS_FILE
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
    games = data.get("games") if isinstance(data, dict) and data.get("format") == STATS_FORMAT else None
    if not isinstance(games, dict) or not all(
            isinstance(v, dict) and all(isinstance(e, dict) for e in v.values()) for v in games.values()):
        raise ValueError(f"{path}: not a {STATS_FORMAT} file")
    out: dict = {}
    for variant, levels in games.items():
        for level, entry in levels.items():
            out.setdefault(variant, {})[level] = {
                k: int(entry[k]) if isinstance(entry.get(k), int) and not isinstance(entry.get(k), bool) else 0
                for k in STAT_FIELDS}
    return out


def format_stats(stats: dict, variant: str, level: str | None = None) -> str:
    """A small table of ``stats`` for ``variant``, one row per opponent level
    (``level``, the one just played, marked with ``*``)."""
    levels = stats.get(variant, {})
    if not levels:
        return f"No statistics yet for {variant}."
    order = {n: i for i, n in enumerate(("easy", "medium", "hard", "insane"))}
    rows = sorted(levels, key=lambda n: (order.get(n.partition(":")[0], 9), n))
    w = max(8, *(len(n) for n in rows)) + 2
    lines = [f"Your statistics for {variant}:",
             f"  {'level':<{w}}{'matches':>8}{'wins':>6}{'losses':>8}{'draws':>7}{'hands':>7}{'won':>6}"]
    for n in rows:
        e = levels[n]
        mark = "*" if n == level else " "
        lines.append(f"{mark} {n:<{w}}{e['matches']:>8}{e['wins']:>6}{e['losses']:>8}{e['draws']:>7}"
                     f"{e['hands']:>7}{e['hands_won']:>6}")
    return "\n".join(lines)


def record_match(directory: Path, variant: str, level: str, outcome: str, hands: int, won: int,
                 say) -> dict:
    """Add one finished match to the stats in ``directory`` and return them.
    ``outcome`` is ``"wins"``, ``"losses"`` or ``"draws"``; ``hands``: hands
    played, ``won``: hands the human's side won. A stats file that cannot be
    read is set aside (as ``stats-unreadable.json``, ``-2``, …) and started
    afresh, and one that cannot be written is kept as it was; either is told
    through ``say`` (one line), never raised."""
    try:
        stats = load_stats(directory)
    except ValueError as e:
        stats = {}
        try:
            kept = free_path(directory / UNREADABLE_STATS_FILE)
            os.replace(directory / STATS_FILE, kept)
            say(f"(The stats file could not be read ({e}); it is kept as {kept} and started afresh.)")
        except OSError as err:
            say(f"(The stats file could not be read ({e}) nor set aside ({err.strerror or err}); "
                "it is left as it was.)")
            return stats
    add_match(stats, variant, level, outcome, hands, won)
    text = json.dumps({"format": STATS_FORMAT, "games": stats}, indent=2, sort_keys=True) + "\n"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write(directory / STATS_FILE, text, sync=True)
    except OSError as err:
        say(f"(The stats could not be saved to {directory / STATS_FILE}: {err.strerror or err}.)")
    return stats
