"""The ``dominoai replay`` subcommand: check a game record against the rules
and show its result (the work is :func:`dominoai.records.replay`).

Importing this module loads no numba: the records are imported when the
command runs, so that ``dominoai --help`` stays light.
"""

from __future__ import annotations

import json
import sys

from ._cli_support import UsageError

__all__ = ["add_parser", "cmd_replay"]


def add_parser(sub) -> None:
    """Add the ``replay`` subcommand to ``sub`` (the command's subparsers)."""
    r = sub.add_parser("replay", help="check a game record against the rules and show its result",
                       description="Replay a dominoai.record/1 file, checking every move; "
                                   "'-' reads the record from standard input.")
    r.add_argument("file", metavar="FILE", help="record file (JSON), or - for standard input")
    r.add_argument("--json", action="store_true",
                   help="print the result as one JSON object (docs/records.md) instead of a summary")
    r.set_defaults(func=cmd_replay)


def cmd_replay(args) -> int:
    """``dominoai replay FILE [--json]``: replay the record (``-``: from
    standard input) and print its summary, or its result as JSON."""
    from .records import RecordError, _loads, load_record, parse_record, replay

    name = "<stdin>" if args.file == "-" else args.file
    try:
        if args.file == "-":
            try:
                text = sys.stdin.buffer.read().decode("utf-8")
            except UnicodeDecodeError:
                raise RecordError("not UTF-8 text") from None
            # parsed JSON is a record or nothing: a JSON string is never a path
            rec = parse_record(_loads(text))
        else:
            rec = load_record(args.file)
        res = replay(rec)
    except RecordError as e:
        msg = str(e)
        raise UsageError(msg if msg.startswith(f"{name}: ") else f"{name}: {msg}") from None
    if args.json:
        print(json.dumps(res.to_dict()))
    else:
        print(res.summary())
    return 0
