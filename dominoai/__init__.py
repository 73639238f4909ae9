"""dominoai: an AI research toolkit for imperfect-information dominoes.

The public API is re-exported here; see the README for a tour.

``import dominoai`` is light: every name below is imported when first used
(PEP 562), so the command line starts at once and ``import dominoai`` loads
neither numba nor pandas, scipy, pyarrow or matplotlib. ``from dominoai
import run_tournament`` works as usual (it imports the tournament then).
Importing changes nothing outside the package: no import hook, no numba
setting (:mod:`dominoai._numba_cache` keeps the kernels' cache fresh). Once
the kernels are loaded, numba inlines the package's own helpers through
:mod:`dominoai._numba_inline`; other code is inlined as numba does it.
"""
from ._lazy import lazy_names as _lazy_names

__version__ = "0.1.0"

# public name -> the module (relative to this package) that defines it
_LAZY = {
    "Tile": "tiles", "TileSet": "tiles",
    "Rules": "rules", "get_rules": "rules", "preset_names": "rules", "PRESETS": "rules",
    "END_NAMES": "game", "Event": "game", "Hand": "game", "HandResult": "game",
    "IllegalMoveError": "game", "Match": "game", "MatchResult": "game", "Move": "game",
    "Observation": "observation", "observe": "observation",
    "make_bot": "bots", "register_bot": "bots", "register_plugin": "bots",
    "run_tournament": "tournament", "TournamentSpec": "tournament", "load_results": "tournament",
    "StudySpec": "tune", "InputError": "errors",
}
# subpackages and modules reachable as attributes after a bare ``import dominoai``
_SUBMODULES = frozenset({
    "bots", "cli", "engine", "game", "observation", "play", "plots", "records", "rules", "tiles",
    "simulate", "tournament", "tune", "render", "viewer", "moves", "interop", "errors",
})

__all__ = [
    "Tile", "TileSet", "Rules", "get_rules", "preset_names", "PRESETS",
    "END_NAMES", "Event", "Hand", "HandResult", "IllegalMoveError", "Match", "MatchResult", "Move",
    "Observation", "observe", "make_bot", "register_bot", "register_plugin", "run_tournament", "TournamentSpec",
    "load_results", "StudySpec", "InputError",
]


__getattr__, __dir__ = _lazy_names(__name__, _LAZY, globals(), __all__, _SUBMODULES)
