"""Interop with the field (issue 12; docs/interop.md): OpenSpiel games and
search bots (:mod:`.openspiel`), a PettingZoo environment (:mod:`.pettingzoo`)
and the ``dominoes`` package's players as bots (:mod:`.pydominoes`).

Importing this package registers the peer bots whose library is installed
(``ismcts``, ``mcts``, ``pydominoes-*``) in :mod:`dominoai.bots`; each
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
