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
