"""Pictures of positions: SVG and text (docs/render.md).

:func:`svg` and :func:`text` draw a ``Hand``, a ``Match`` (its current hand),
an ``Observation`` or a :class:`Position`, from one layout of the line
(:func:`~dominoai.render.layout.line_layout`). A picture is drawn from plain
data: :func:`position_of` asks the object for its own :class:`Position`
(``Hand.position``, ``Match.position``, ``Observation.position``), so this
package imports nothing of the game and loads no numpy. The pictures of
records and the replay viewer are :mod:`dominoai.viewer`.

>>> from dominoai import Match
>>> from dominoai.render import svg, text
>>> h = Match("block", seed=1).new_hand()
>>> h.play(h.legal_moves()[0])
>>> svg(h).count('class="tile line')   # one tile on the line
1
>>> print(text(h, perspective=0).splitlines()[0])
block, 2 players · hand 1 · seat 1 to play
"""

from .layout import Placement, line_layout
from .position import Position, position_of
from .svgdraw import svg
from .textdraw import text

__all__ = ["svg", "text", "line_layout", "Placement", "Position", "position_of"]
