"""One model of a table, shared by ``dominoai play`` and ``dominoai serve``.

A :class:`~dominoai.table.model.Table` holds a match, who sits in each seat
(a person, by name, or a bot, by spec), the bots, and the ``"play"`` entry
that a saved match carries; it deals hands, checks and plays a seat's move
(refusing it with the reason the terminal game gives), asks a bot for its
move, writes itself as a ``dominoai.record/1`` record and reads itself back
from one. The stats of a finished match are counted by :func:`add_match`.
Only the view and the store differ: the terminal draws text and keeps
files (:mod:`dominoai.play`); the server sends JSON frames and keeps SQLite
(:mod:`dominoai.serve`). The Kozel rule ("How to play Domino" (Russian);
docs/rules.md) holds in both: a person's partner bot plays at least
``hard`` (:func:`partner_spec`, :func:`seat_specs`).
"""

from __future__ import annotations

from .model import (LEVELS, PLAY_FORMAT, STAT_FIELDS, Table, TableError, add_match, bot_seeds, decision_seed, fresh_seed,
                    hands_won, level_name, meta_problem, outcome_of, partner_spec, seat_specs, variant_key)

__all__ = ["Table", "TableError", "PLAY_FORMAT", "LEVELS", "STAT_FIELDS", "partner_spec", "seat_specs",
           "bot_seeds", "fresh_seed", "decision_seed", "add_match", "hands_won", "outcome_of", "level_name", "variant_key",
           "meta_problem"]
