"""A position to draw: what one picture of a hand shows, from a Hand, a Match
or an Observation.

:func:`position_of` reads only public names of the facade (``Hand``,
``Match``, ``Observation``) and the event list; it decides nothing about the
rules. The line's geometry comes from :func:`dominoai.render.layout.line_layout`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Position", "position_of"]

_STATUS_WORDS = {None: "", "domino": "domino", "blocked": "blocked"}


@dataclass(frozen=True)
class Position:
    """One position of a hand, as drawn.

    ``hands[i]`` is seat i's tiles (a tuple of :class:`~dominoai.tiles.Tile`)
    when shown face up, None when face down; ``sizes[i]`` its number of
    tiles. ``events`` are the hand's public events so far (plays give the
    line). ``voids[i]`` the pips seat i has publicly shown it lacks now.
    ``scores`` per side (points; Kozel: recorded, low is good; Dominoball:
    strikes), ``target`` the match target, ``boneyard`` the tiles left in
    it, ``count`` the count of the ends (pips), ``to_move`` the seat to
    decide (None once over), ``status`` ``""`` while playing, else
    ``"domino"``, ``"blocked"`` or ``"cut short"``; ``hand_no`` 1-based.
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
    """The :class:`Position` of a ``Hand``, a ``Match`` (its current hand) or
    an ``Observation``.

    ``perspective``: the seat whose tiles are face up, the others face down;
    None shows every seat face up (a Hand or Match). An Observation always
    shows only its own seat face up (``perspective`` must be None or that
    seat).

    :raises ValueError: a Match with no hand dealt yet, a seat not at the
        table, or an Observation asked for another seat's view.
    :raises TypeError: anything else than a Hand, Match or Observation.
    """
    from ..game import Hand, Match
    from ..observation import Observation

    if isinstance(x, Match):
        if x.current is None:
            raise ValueError("the match has no hand dealt yet: nothing to draw")
        x = x.current
    if isinstance(x, Observation):
        if perspective is not None and perspective != x.seat:
            raise ValueError(f"an observation of seat {x.seat} shows only seat {x.seat}'s tiles "
                             f"(perspective {perspective} asked)")
        r = x.rules
        hands = tuple(tuple(x.hand) if i == x.seat else None for i in range(r.players))
        hand_no = int(x.array[_o_hand_no()])
        status = _status_of_obs(x)
        return Position(r, hands, tuple(x.hand_sizes), tuple(x.events), x.spinner,
                        tuple(x.void(i) for i in range(r.players)), tuple(x.scores), x.target,
                        x.boneyard_size, x.count, x.to_move, status, hand_no, x.seat)
    if not isinstance(x, Hand):
        raise TypeError(f"render draws a Hand, a Match or an Observation, not {type(x).__name__}")
    r = x.rules
    if perspective is not None and (isinstance(perspective, bool) or not isinstance(perspective, int)
                                    or not 0 <= perspective < r.players):
        raise ValueError(f"perspective must be a seat 0..{r.players - 1} or None (got {perspective!r})")
    hands = tuple(tuple(x.tiles(i)) if perspective in (None, i) else None for i in range(r.players))
    obs = x.observe(0)
    res = x.result
    status = ""
    if res is not None:
        status = _STATUS_WORDS.get(res.end, "cut short")
    scores = tuple(obs.scores)
    return Position(r, hands, tuple(x.hand_sizes), tuple(x.events), x.spinner,
                    tuple(obs.void(i) for i in range(r.players)), scores, r.target,
                    x.boneyard_size, x.count, x.seat, status, x.index + 1, perspective)


def _o_hand_no() -> int:
    from ..observation import O_HAND_NO
    return O_HAND_NO


def _status_of_obs(obs) -> str:
    from ..observation import O_STATUS
    return {0: "", 1: "domino", 2: "blocked"}.get(int(obs.array[O_STATUS]), "cut short")
