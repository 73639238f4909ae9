"""The ``dominoai render`` and ``dominoai view`` subcommands: their parsers
(:func:`add_parser`), the commands, and the work they do
(:func:`render_command`, :func:`view_command`).

Both check the whole record with the replay first; any problem is the
replay's one-line :class:`~dominoai.records.RecordError` (prefixed with the
file's name), and nothing is written: files are written to a temporary
name and renamed only once complete. Importing this module loads no numba:
the records are imported when a command runs.
"""

from __future__ import annotations

from pathlib import Path

from .._cli_support import int_at_least, usage_error
from .._files import atomic_write
from ..errors import InputError

__all__ = ["render_command", "view_command", "add_parser", "cmd_render", "cmd_view"]


def add_parser(sub) -> None:
    """Add the ``render`` and ``view`` subcommands to ``sub`` (the command's subparsers)."""
    rd = sub.add_parser("render", help="draw one position of a record as SVG",
                        description="Draw hand H of a record after its first M moves as SVG. Hands and "
                                    "moves count from 1, as the replay numbers them (move 0: the deal).")
    rd.add_argument("file", metavar="RECORD")
    rd.add_argument("--hand", type=int_at_least(1), default=1, help="hand number, 1-based (default 1)")
    rd.add_argument("--move", type=int_at_least(0), default=0,
                    help="record moves played, 1-based as the replay counts them; 0 = the deal (default)")
    rd.add_argument("--seat", type=int_at_least(0), help="that seat's view (default: all face up)")
    rd.add_argument("--out", required=True, metavar="SVG")
    rd.set_defaults(func=cmd_render)

    vw = sub.add_parser("view", help="write a self-contained HTML replay viewer of a record or a folder",
                        description="Write a self-contained HTML page stepping through a record; for a "
                                    "folder, one page per *.json record beside OUT and OUT as their index.")
    vw.add_argument("path", metavar="RECORD_OR_DIR")
    vw.add_argument("--seat", type=int_at_least(0), help="that seat's view (default: all face up)")
    vw.add_argument("--out", required=True, metavar="HTML")
    vw.set_defaults(func=cmd_view)


def cmd_render(args) -> int:
    """``dominoai render RECORD --out SVG``: draw the position, print the picture's path."""
    from ..records import RecordError
    try:
        path = render_command(args.file, args.hand, args.move, args.out, args.seat)
    except (RecordError, InputError) as e:
        raise usage_error(e) from None
    print(f"picture: {path}")
    return 0


def cmd_view(args) -> int:
    """``dominoai view RECORD_OR_DIR --out HTML``: write the viewer pages,
    print the page to open (for a folder, the index)."""
    from ..records import RecordError
    try:
        paths = view_command(args.path, args.out, args.seat)
    except (RecordError, InputError) as e:
        raise usage_error(e) from None
    more = len(paths) - 1
    print(f"page: {paths[-1]}" + (f" (the index of {more} record page{'s' if more != 1 else ''})" if more else ""))
    return 0


def _prefixed(e, name: str):
    """The error ``e`` with the file's ``name`` in front (once)."""
    if isinstance(e, InputError):
        text = e.text if e.text.startswith(f"{name}: ") else f"{name}: {e.text}"
        return InputError(e.field, e.value, text, *e.fields[1:])
    from ..records import RecordError
    msg = str(e)
    return RecordError(msg if msg.startswith(f"{name}: ") else f"{name}: {msg}")


def render_command(file, hand: int, move: int, out, seat: int | None = None) -> Path:
    """Write the SVG of ``file``'s hand ``hand`` (1-based) after ``move``
    record moves (1-based count; 0 = the deal) to ``out``; return its path.

    :raises RecordError: ``"FILE: hand H, move M: why"`` (see
        :func:`~dominoai.render.viewer.render_record`).
    :raises InputError: ``"FILE: seat must be a seat 0..N (got S)"``.
    """
    from ..records import RecordError
    from .viewer import render_record
    try:
        text = render_record(file, hand, move, seat)
    except (RecordError, InputError) as e:
        raise _prefixed(e, str(file)) from None
    except ValueError as e:  # a seat not at the table (position_of names it "perspective")
        msg = str(e).replace("perspective must be a seat", "$seat must be a seat").replace(" or None", "")
        raise InputError("seat", seat, f"{file}: {msg}") from None
    return _write(atomic_write, out, text)


def _write(fn, out, *a):
    from ..records import RecordError
    try:
        return fn(out, *a)
    except OSError as e:
        raise RecordError(f"{out}: cannot write: {e.strerror or e}") from None


def view_command(path, out, seat: int | None = None) -> list:
    """``path`` a record: write its viewer page to ``out``. ``path`` a
    folder: write one viewer page per ``*.json`` record beside ``out`` and
    ``out`` as their index. Returns the paths written.

    :raises RecordError: one line naming the file and the problem.
    :raises InputError: a seat not at the table (naming ``seat``).
    """
    from ..records import RecordError
    from .viewer import write_index, write_viewer
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
