"""The ``dominoai render`` and ``dominoai view`` subcommands: their parsers
and the functions that run them (the work is
:mod:`dominoai.viewer.commands`').

Importing this module loads no numba: the records and the viewer are
imported when a command runs, so that ``dominoai --help`` stays light.
"""

from __future__ import annotations

from ._cli_support import UsageError, int_at_least, usage_error
from .errors import InputError

__all__ = ["add_parser", "cmd_render", "cmd_view"]


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


def _check_suffix(out: str, suffixes: tuple, what: str) -> None:
    """Refuse an ``--out`` whose name does not say what the command writes."""
    if not str(out).lower().endswith(suffixes):
        raise UsageError(f"--out {out}: the command writes {what}; the name must end in "
                         f"{' or '.join(suffixes)}")


def cmd_render(args) -> int:
    """``dominoai render RECORD --out SVG``: draw the position, print the picture's path."""
    from .records import RecordError
    from .viewer.commands import render_command
    _check_suffix(args.out, (".svg",), "an SVG picture")
    try:
        path = render_command(args.file, args.hand, args.move, args.out, args.seat)
    except (RecordError, InputError) as e:
        raise usage_error(e) from None
    print(f"picture: {path}")
    return 0


def cmd_view(args) -> int:
    """``dominoai view RECORD_OR_DIR --out HTML``: write the viewer pages,
    print the page to open (for a folder, the index)."""
    from .records import RecordError
    from .viewer.commands import view_command
    _check_suffix(args.out, (".html", ".htm"), "an HTML page")
    try:
        paths = view_command(args.path, args.out, args.seat)
    except (RecordError, InputError) as e:
        raise usage_error(e) from None
    more = len(paths) - 1
    print(f"page: {paths[-1]}" + (f" (the index of {more} record page{'s' if more != 1 else ''})" if more else ""))
    return 0
