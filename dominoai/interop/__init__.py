"""Interop with the field (docs/interop.md): OpenSpiel games and search
bots (:mod:`.openspiel`), a PettingZoo environment (:mod:`.pettingzoo`) and
the ``dominoes`` package's players as bots (:mod:`.pydominoes`).

The bots (``ismcts``, ``mcts``, ``pydominoes-*``) are plug-ins: the package
declares them as entry points of the group ``dominoai.bots``, so a spec that
names one imports its module on first use (:func:`dominoai.bots.plugins`).
Importing this package registers those whose library is installed; each
submodule raises ImportError naming the ``interop`` extra when its library
is missing. Nothing here is imported by ``import dominoai``.
"""

from __future__ import annotations

import importlib

__all__ = ["available"]

available: dict[str, bool] = {}
for _name in ("openspiel", "pydominoes"):
    try:
        importlib.import_module(f"{__name__}.{_name}")
        available[_name] = True
    except ImportError:
        available[_name] = False
