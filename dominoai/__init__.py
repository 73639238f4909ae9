"""dominoai: an AI research toolkit for imperfect-information dominoes.

The public API is re-exported here; see the README for a tour.
"""
from . import _numba_cache

_numba_cache.configure()  # before any kernel is defined (see _numba_cache)

from .tiles import Tile, TileSet  # noqa: E402
from .rules import Rules, get_rules, preset_names, PRESETS
from .game import END_NAMES, Event, Hand, HandResult, IllegalMoveError, Match, MatchResult, Move
from .observation import Observation, observe
from .bots import make_bot, register_bot
from .tournament import run_tournament, load_results

__all__ = [
    "Tile", "TileSet", "Rules", "get_rules", "preset_names", "PRESETS",
    "END_NAMES", "Event", "Hand", "HandResult", "IllegalMoveError", "Match", "MatchResult", "Move",
    "Observation", "observe", "make_bot", "register_bot", "run_tournament", "load_results",
]
__version__ = "0.1.0"
