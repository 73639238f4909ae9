"""Asking a bot for its move, and keeping its analysis of the decision.

:func:`decide` is where every harness asks a bot: the tournament's play loop
(:mod:`dominoai.tournament.loop`), the table that ``dominoai play`` and
``dominoai serve`` drive (:class:`dominoai.table.Table`). Every bot gets the
seat's :class:`~dominoai.observation.Observation`; a bot that declares
``needs_state = True`` (the ``omniscient`` research baseline, a named cheat)
gets ``act_with_state(observation, state)`` with a copy of the true state
instead (:meth:`Match.state_copy <dominoai.game.Match.state_copy>`).

A bot's analysis of a decision (:func:`analysis_of`) can be stored in the
records: a searching bot that leaves its search in a ``last`` attribute
(``moves``, ``values``, ``worlds``, as the ``insane`` bot's ``SearchResult``)
has the values of every candidate written beside the move it chose
(``"analysis"``, docs/render.md; :func:`add_analysis`). This is duck-typed
(this module imports no bot), and :func:`gives_analysis` is its one
definition: the policy learner's move-value target asks it of a teacher too.

This module imports neither pandas nor pyarrow, nor the engine's kernels.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .moves import Move

if TYPE_CHECKING:
    from .game import Match

__all__ = ["decide", "gives_analysis", "analysis_of", "add_analysis"]


def decide(bot, obs, match: "Match"):
    """The move ``bot`` chooses for ``obs``, the observation of the seat to
    move in ``match``'s current hand: ``bot.act(obs)``, or, for a bot whose
    ``needs_state`` attribute is true, ``bot.act_with_state(obs, state)``
    with a copy of the true state (an ``int64`` array, the engine layout).
    The one signal for "needs the true state" is ``needs_state``.

    :raises Exception: whatever the bot raises; the move is not checked here.
    """
    if getattr(bot, "needs_state", False):
        return bot.act_with_state(obs, match.state_copy())
    return bot.act(obs)


def gives_analysis(bot) -> bool:
    """True when ``bot`` gives its analysis of its decisions: it has a
    ``last`` attribute, which it sets after each decision to its search
    (``moves``, ``values``, ``worlds``; None after a forced move), as
    ``insane`` does. The one test of "this bot gives move values": of
    :func:`analysis_of`, and of a teacher for the policy's ``values``
    target (:func:`dominoai.learn.imitation.train_run`).

    >>> from dominoai.bots import make_bot
    >>> gives_analysis(make_bot("insane")), gives_analysis(make_bot("hard"))
    (True, False)
    """
    return hasattr(bot, "last")


def analysis_of(bot) -> list | None:
    """The bot's analysis of the decision it just made, as a record stores
    it: ``[{"move": "6:4 right", "value": 3.5, "n": 200}, ...]``, one entry
    per candidate in the bot's order, ``move`` as :class:`~dominoai.moves.Move`
    prints it, ``value`` a float rounded to 4 decimals (the bot's unit; for
    ``insane``, mean points of the hand for the mover's side), ``n`` the
    worlds searched. None when the bot gives no analysis
    (:func:`gives_analysis`), when its ``last`` is None (a forced move), or
    when that lacks ``moves``, ``values`` or ``worlds``; candidates whose
    value is not finite are left out.

    >>> class Last:
    ...     moves, values, worlds = [101, 5], [3.14159, -1.0], 50
    >>> class Bot:
    ...     last = Last()
    >>> analysis_of(Bot())
    [{'move': '6:4 right', 'value': 3.1416, 'n': 50}, {'move': '1:0 right', 'value': -1.0, 'n': 50}]
    """
    if not gives_analysis(bot):
        return None
    last = bot.last
    if last is None:
        return None
    try:
        moves, values, worlds = last.moves, last.values, int(last.worlds)
        entries = [(str(Move.from_code(int(c))), float(v)) for c, v in zip(moves, values)]
    except (AttributeError, TypeError, ValueError):
        return None
    return [{"move": m, "value": round(v, 4), "n": worlds} for m, v in entries if math.isfinite(v)]


def add_analysis(record: dict, analyses: list) -> dict:
    """Write ``analyses`` (``(hand index, move index, entries)``, both
    0-based, the move index being the chosen move's place in the hand's
    events; ``entries`` as :func:`analysis_of` gives them) into ``record``'s
    moves as ``"analysis"`` (for a record written by
    :func:`~dominoai.records.record_from_match`: one move per event).
    Returns ``record``.

    :raises IndexError: a hand or move index the record does not have.
    """
    for h, m, entries in analyses:
        record["hands"][h]["moves"][m]["analysis"] = entries
    return record
