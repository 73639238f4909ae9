"""Pictures of positions and records: SVG, text, and a self-contained HTML
replay viewer (docs/render.md).

- :func:`svg` and :func:`text` draw a ``Hand``, a ``Match`` (its current
  hand) or an ``Observation``, from one layout of the line
  (:func:`~dominoai.render.layout.line_layout`).
- :func:`render_record` draws one position of a record;
  :func:`viewer_html` / :func:`write_viewer` make the replay viewer page;
  :func:`write_index` a page listing a folder of records.

Importing this package loads no numba kernel and no pandas; the functions
import the game facade when called.

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

__all__ = ["svg", "text", "line_layout", "Placement", "Position", "position_of",
           "render_record", "viewer_html", "write_viewer", "write_index", "record_frames"]


def __getattr__(name):  # the record tools, loaded on first use
    if name in ("render_record", "viewer_html", "write_viewer", "write_index", "record_frames"):
        from . import viewer
        return getattr(viewer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
