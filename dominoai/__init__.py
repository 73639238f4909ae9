"""dominoai: an AI research toolkit for imperfect-information dominoes.

The public API is re-exported here; see the README for a tour.
"""
from .tiles import Tile, TileSet
from .rules import Rules, get_rules, preset_names, PRESETS
from .game import END_NAMES, Event, Hand, HandResult, IllegalMoveError, Match, MatchResult, Move
from .observation import Observation, observe

__all__ = [
    "Tile", "TileSet", "Rules", "get_rules", "preset_names", "PRESETS",
    "END_NAMES", "Event", "Hand", "HandResult", "IllegalMoveError", "Match", "MatchResult", "Move",
    "Observation", "observe",
]
__version__ = "0.1.0"
