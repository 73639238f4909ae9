"""A position to draw: what one picture of a hand shows, as plain data.

:class:`Position` holds everything a picture shows; the drawings of this
package read nothing else. A ``Hand``, a ``Match`` (its current hand) and an
``Observation`` each build their own (their ``position`` method), so this
package imports neither the game nor the engine. The line's geometry comes
from :func:`dominoai.render.layout.line_layout`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Position", "position_of"]


@dataclass(frozen=True)
class Position:
    """One position of a hand, as drawn.

    ``rules`` are the hand's :class:`~dominoai.rules.Rules`. ``hands[i]``
    is seat i's tiles (a tuple of :class:`~dominoai.tiles.Tile`) when shown
    face up, None when face down; ``sizes[i]`` its number of tiles.
    ``events`` are the hand's public events so far (plays give the line),
    ``spinner`` its spinner tile (None without one). ``voids[i]`` the pips
    seat i has publicly shown it lacks now. ``scores`` per side (points;
    Kozel: recorded, low is good; Dominoball: strikes), ``target`` the
    match target, ``boneyard`` the tiles left in it, ``count`` the count of
    the ends (pips), ``to_move`` the seat to decide (None once over),
    ``status`` ``""`` while playing, else ``"domino"``, ``"blocked"`` or
    ``"cut short"``; ``hand_no`` 1-based; ``perspective`` the seat whose
    tiles alone are face up, None when every seat's are.
    """

    rules: object
    hands: tuple
    sizes: tuple
    events: tuple
    spinner: object
    voids: tuple
    scores: tuple
    target: int
    boneyard: int
    count: int
    to_move: int | None
    status: str
    hand_no: int
    perspective: int | None

    @property
    def players(self) -> int:
        return len(self.sizes)


def position_of(x, perspective: int | None = None) -> Position:
    """The :class:`Position` to draw of ``x``: a Position as it is, or what
    ``x.position(perspective)`` gives (a ``Hand``; a ``Match``: its current
    hand; an ``Observation``).

    ``perspective``: the seat whose tiles are face up, the others face
    down; None shows every seat face up (a Hand or Match). An Observation
    always shows only its own seat face up (``perspective`` must be None or
    that seat); a Position is drawn as it was made (``perspective`` must be
    None or its own).

    :raises ValueError: a Match with no hand dealt yet, a seat not at the
        table, an Observation asked for another seat's view, or a Position
        asked for another perspective.
    :raises TypeError: anything else than a Position or an object with a
        ``position`` method.
    """
    if isinstance(x, Position):
        if perspective is not None and perspective != x.perspective:
            raise ValueError(f"a Position is drawn as it was made (perspective {x.perspective}); "
                             f"ask its hand for perspective {perspective}")
        return x
    make = getattr(x, "position", None)
    if not callable(make):
        raise TypeError(f"render draws a Hand, a Match, an Observation or a Position, not {type(x).__name__}")
    pos = make(perspective)
    if not isinstance(pos, Position):
        raise TypeError(f"{type(x).__name__}.position() gave a {type(pos).__name__}, not a Position")
    return pos
