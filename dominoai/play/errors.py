"""What stops or interrupts a game of ``dominoai play``.

:class:`PlayError` is public (a game that cannot start or go on); the
others are signals between the parts of the game: :class:`Stop` (the human
stops), :class:`BotFailed` (a bot failed; the match is kept), :class:`Retry`
(an answer that is not a move).
"""

from __future__ import annotations

from ..errors import InputError

__all__ = ["PlayError", "PlayInputError", "Stop", "BotFailed", "Retry"]


class PlayError(ValueError):
    """A game that cannot start or go on (bad options, no saved match, an
    unreadable save, a data directory that cannot be written): one line."""


class PlayInputError(InputError, PlayError):
    """A :class:`PlayError` for a bad argument of :func:`~dominoai.play.play_game`,
    naming it (an :class:`~dominoai.errors.InputError`: ``field``, ``value``)."""


class Stop(Exception):
    """The human stops: ``reason`` is ``"eof"`` (end of input) or ``"quit"``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class BotFailed(Exception):
    """A bot raised or chose an illegal move: reported, the match kept."""


class Retry(Exception):
    """An answer that is not a move: the message, then the prompt again."""
