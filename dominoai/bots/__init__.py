"""Bots: the protocol and registry, the spec grammar, and the bot levels (see docs/bots.md)."""
from .base import (BOTS, ENTRY_POINT_GROUP, BaseBot, Bot, Param, bot_names, bot_params, make_bot, plugins,
                   register_bot, register_plugin)
from .spec import SpecError, parse_spec, split_bot_specs
from . import simple  # noqa: F401  (registers easy, medium)
from . import hard  # noqa: F401  (registers hard)
from . import worlds  # noqa: F401  (consistent worlds for the insane bot)
from . import pimc  # noqa: F401  (registers insane, omniscient)
from . import neural  # noqa: F401  (registers neural: the shipped learned policies)

__all__ = ["Bot", "BaseBot", "Param", "BOTS", "ENTRY_POINT_GROUP", "bot_names", "bot_params", "make_bot",
           "parse_spec", "split_bot_specs", "SpecError", "register_bot", "register_plugin", "plugins"]
