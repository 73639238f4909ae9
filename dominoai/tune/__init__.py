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
The package itself is callable, so ``dominoai.tune(...)`` is :func:`tune`.
"""
import sys as _sys
import types as _types

from .space import Dim, make_space, parse_fix, spec_of
from .study import TuneResult, load_study, trials_frame, tune
from .validation import Verdict, validate

__all__ = ["tune", "TuneResult", "Verdict", "validate", "load_study", "trials_frame", "make_space",
           "parse_fix", "spec_of", "Dim"]


class _CallableModule(_types.ModuleType):
    """``dominoai.tune`` is both this package and :func:`tune`."""

    def __call__(self, *args, **kwargs):
        return tune(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
