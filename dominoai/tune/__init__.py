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
- :mod:`.command`: the ``dominoai tune`` command.

Importing this package imports neither optuna nor pandas; :func:`tune` does.
From the top package: ``dominoai.tune.tune(...)``.

The names below are imported from their module on first use, so that
``dominoai --help`` (which reads :mod:`.command`) loads neither the bots nor
numba.
"""
from __future__ import annotations

from .._lazy import lazy_names as _lazy_names

# public name -> its module in this package
_WHERE = {
    "tune": "study", "StudySpec": "study", "TuneResult": "study", "load_study": "study", "trials_frame": "study",
    "Verdict": "validation", "validate": "validation",
    "make_space": "space", "parse_fix": "space", "spec_of": "space", "Dim": "space",
}

__all__ = ["tune", "StudySpec", "TuneResult", "Verdict", "validate", "load_study", "trials_frame", "make_space",
           "parse_fix", "spec_of", "Dim"]


__getattr__, __dir__ = _lazy_names(__name__, _WHERE, globals(), __all__)
