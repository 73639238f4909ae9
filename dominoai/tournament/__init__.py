"""Tournaments: bots against each other on duplicate deals, in parallel.

>>> from dominoai.tournament import run_tournament
>>> res = run_tournament("block", ["easy", "medium"], hands=8, progress=False)
>>> sorted(res.hands["bot"].unique())
['easy', 'medium']
>>> len(res.hands)             # 8 deals x 2 rotations x 2 seats
32
>>> p = res.pairings.iloc[0]
>>> p.bot_a, p.bot_b, int(p.games)
('easy', 'medium', 16)

- :mod:`.schedule`: pairings (tables), seat rotations, seeds, batches;
- :mod:`.loop`: the play loop: :func:`play_hand`, :func:`play_match`,
  positions from bot games (:func:`decision_positions`),
  one batch of games in a worker (no pandas); a bot is asked through
  :func:`dominoai.decide.decide`, its analysis of a decision kept through
  :func:`dominoai.decide.analysis_of` (both exported here too);
- :mod:`.storage`: the tables' schemas, part files, the manifest, results
  files and their provenance, :class:`TournamentResult` and
  :func:`load_results`;
- :mod:`.backends`: where the batches run: joblib's local process pool, a
  Dask or a Ray cluster (:func:`~.backends.check_backend`,
  :func:`~.backends.local_jobs`), and :func:`cluster_session` (one
  connection to a cluster for many tournaments, or a study's trials);
- :mod:`.run`: :class:`TournamentSpec` (a tournament's settings, checked
  once), :func:`run_tournament` (batches on the backends, resume) and
  :func:`reproduce`, :func:`play_records` (self-play data through the same
  backends);
- :mod:`.stats`: Wilson intervals, the paired duplicate interval, ratings.

The names below are imported from their module on first use, so that
``import dominoai.tournament.loop`` (the play loop, in a worker) does not
load pandas and pyarrow.
"""
from __future__ import annotations

from .._lazy import lazy_names as _lazy_names

# public name -> its module: one of this package, or "..name", dominoai's own
_WHERE = {
    "run_tournament": "run", "TournamentSpec": "run", "BotError": "run", "reproduce": "run",
    "play_records": "run", "cluster_session": "backends",
    "TournamentResult": "storage", "load_results": "storage", "read_provenance": "storage",
    "analysis_of": "..decide", "decide": "..decide", "decision_positions": "loop",
    "BotFailure": "loop", "play_hand": "loop", "play_match": "loop",
    "Schedule": "schedule", "Table": "schedule", "make_schedule": "schedule", "pairings": "schedule",
    "rotations": "schedule", "seating": "schedule",
    "wilson": "stats", "paired_ci": "stats", "outcomes": "stats", "pairing_stats": "stats",
    "win_matrix": "stats", "bradley_terry": "stats", "ratings": "stats",
}

__all__ = [
    "run_tournament", "TournamentSpec", "TournamentResult", "load_results", "read_provenance", "BotError", "BotFailure",
    "reproduce", "play_records", "cluster_session", "play_hand", "play_match", "decide", "analysis_of", "decision_positions",
    "Schedule", "Table", "make_schedule", "pairings", "rotations", "seating",
    "wilson", "paired_ci", "outcomes", "pairing_stats", "win_matrix", "bradley_terry", "ratings",
]


__getattr__, __dir__ = _lazy_names(__name__, _WHERE, globals(), __all__)
