"""The work of the ``dominoai render`` and ``dominoai view`` subcommands
(:func:`render_command`, :func:`view_command`; their parsers are
:mod:`dominoai.viewer_command`'s).

Both check the whole record with the replay first; any problem is the
replay's one-line :class:`~dominoai.records.RecordError` (prefixed with the
file's name), and nothing is written: files are written to a temporary
name and renamed only once complete. """

from __future__ import annotations

from pathlib import Path

from .._files import atomic_write, nearest_existing
from ..errors import InputError
from ..records import RecordError
from .pages import render_record, write_index, write_viewer

__all__ = ["render_command", "view_command"]


def _prefixed(e, name: str):
    """The error ``e`` with the file's ``name`` in front (once); an output
    that cannot be written is named alone."""
    if isinstance(e, _WriteError):
        return e
    if isinstance(e, InputError):
        text = e.text if e.text.startswith(f"{name}: ") else f"{name}: {e.text}"
        return InputError(e.field, e.value, text, *e.fields[1:])
    msg = str(e)
    return RecordError(msg if msg.startswith(f"{name}: ") else f"{name}: {msg}")


def render_command(file, hand: int, move: int, out, seat: int | None = None) -> Path:
    """Write the SVG of ``file``'s hand ``hand`` (1-based) after ``move``
    record moves (1-based count; 0 = the deal) to ``out``; return its path.

    :raises RecordError: ``"FILE: hand H, move M: why"`` (see
        :func:`~dominoai.viewer.render_record`).
    :raises InputError: ``"FILE: seat must be a seat 0..N (got S)"``.
    """
    try:
        text = render_record(file, hand, move, seat)
    except (RecordError, InputError) as e:
        raise _prefixed(e, str(file)) from None
    except ValueError as e:  # a seat not at the table (a hand's position names it "perspective")
        msg = str(e).replace("perspective must be a seat", "$seat must be a seat").replace(" or None", "")
        raise InputError("seat", seat, f"{file}: {msg}") from None
    return _write(atomic_write, out, text)


class _WriteError(RecordError):
    """The output could not be written (named alone: the record is not at fault)."""


def _write(fn, out, *a):
    """``fn(out, *a)``, the folder of ``out`` made first if missing (as the
    other commands make their output's folder)."""
    up = nearest_existing(Path(out).absolute().parent)
    if not up.is_dir():
        raise _WriteError(f"{out}: cannot write: {up} is a file, not a folder")
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        return fn(out, *a)
    except OSError as e:
        raise _WriteError(f"{out}: cannot write: {e.strerror or e}") from None


def view_command(path, out, seat: int | None = None) -> list:
    """``path`` a record: write its viewer page to ``out``. ``path`` a
    folder: write one viewer page per ``*.json`` record beside ``out`` and
    ``out`` as their index. Returns the paths written.

    :raises RecordError: one line naming the file and the problem.
    :raises InputError: a seat not at the table (naming ``seat``).
    """
    p = Path(path)
    if p.is_dir():
        try:
            return _write(lambda o: write_index(p, o, seat), out)
        except (RecordError, InputError) as e:
            raise _prefixed(e, str(p)) from None
    try:
        return [_write(lambda o: write_viewer(p, o, seat), out)]
    except (RecordError, InputError) as e:
        raise _prefixed(e, str(p)) from None
