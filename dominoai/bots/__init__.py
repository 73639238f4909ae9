"""Bots: the protocol and registry, and the bot levels (see DESIGN.md)."""
from .base import BOTS, PEER_BOTS, BaseBot, Bot, Param, bot_names, bot_params, make_bot, parse_spec, register_bot
from . import simple  # noqa: F401  (registers easy, medium)
from . import hard  # noqa: F401  (registers hard)
from . import worlds  # noqa: F401  (consistent worlds for the insane bot)
from . import pimc  # noqa: F401  (registers insane, omniscient)

__all__ = ["Bot", "BaseBot", "Param", "BOTS", "PEER_BOTS", "bot_names", "bot_params", "make_bot", "parse_spec",
           "register_bot"]
