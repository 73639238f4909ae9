"""Tuning a bot: a noise-aware, resumable Optuna study over the bot's own
parameter declarations, built on the tournament machinery.

>>> from dominoai.tune import tune                       # doctest: +SKIP
>>> res = tune("draw", "insane", ["hard"], trials=60, hands=400,
...            study="results/tune-draw.db")             # doctest: +SKIP
>>> res.best_spec, res.verdict.line                      # doctest: +SKIP

- :mod:`.space`: the search space from ``Param`` ranges, ``--space``, ``--fix``;
- :mod:`.objective`: a trial's points per hand, chunked tournaments on common deals;
- :mod:`.study`: :func:`tune`, the SQLite study, resume, pruning, time limit;
- :mod:`.validation`: the best trials against the defaults on fresh deals;
- :mod:`.plots`: optimisation history, importance, strength against time;
- :mod:`.command`: the ``dominoai tune`` and ``dominoai bots`` commands.

Importing this package imports neither optuna nor pandas; :func:`tune` does.
From the top package: ``dominoai.tune.tune(...)``.
"""
from .space import Dim, make_space, parse_fix, spec_of
from .study import StudySpec, TuneResult, load_study, trials_frame, tune
from .validation import Verdict, validate

__all__ = ["tune", "StudySpec", "TuneResult", "Verdict", "validate", "load_study", "trials_frame", "make_space",
           "parse_fix", "spec_of", "Dim"]
