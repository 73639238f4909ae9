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
- :mod:`.run`: :func:`run_tournament`, the play loop, parts and resume;
- :mod:`.stats`: Wilson intervals, the paired duplicate interval, ratings.
"""
from .run import (BotError, BotFailure, TournamentResult, decide, load_results, play_hand, play_match,
                  reproduce, run_tournament)
from .schedule import Schedule, Table, make_schedule, pairings, rotations, seating
from .stats import bradley_terry, outcomes, paired_ci, pairing_stats, ratings, wilson, win_matrix

__all__ = [
    "run_tournament", "TournamentResult", "load_results", "BotError", "BotFailure", "reproduce",
    "play_hand", "play_match", "decide",
    "Schedule", "Table", "make_schedule", "pairings", "rotations", "seating",
    "wilson", "paired_ci", "outcomes", "pairing_stats", "win_matrix", "bradley_terry", "ratings",
]
