"""Records as pictures: a record's position as SVG, and the self-contained
HTML replay viewer (docs/render.md).

This package stands above both :mod:`dominoai.records` (it replays the
record with the engine) and :mod:`dominoai.render` (it draws each position):

- :func:`render_record` draws one position of a record;
- :func:`record_frames` is the viewer's data of a record (one frame per
  step); :func:`viewer_html` / :func:`write_viewer` make the viewer page;
  :func:`write_index` a page listing a folder of records;
- :mod:`dominoai.viewer.commands` holds the work of ``dominoai render`` and
  ``dominoai view``.

>>> from dominoai.viewer import render_record
>>> rec = {"format": "dominoai.record/1", "rules": "block",
...        "hands": [{"deal": [["6:6", "6:5", "5:5", "4:4", "3:3", "2:2", "1:1"],
...                            ["0:0", "1:0", "2:0", "3:0", "4:0", "5:0", "6:0"]],
...                   "leader": 0, "moves": [{"tile": "6:6"}]}]}
>>> render_record(rec, 1, 1).count('class="tile line')   # after the lead
1
"""

from .pages import record_frames, render_record, split_analysis, viewer_html, write_index, write_viewer

__all__ = ["render_record", "record_frames", "viewer_html", "write_viewer", "write_index", "split_analysis"]
