"""The ``dominoai serve`` subcommand: run the server (:func:`dominoai.serve.serve`)
or write out its records (:func:`dominoai.serve.export`).

Importing this module loads neither the server's extra nor the store: they
are imported when the command runs, so that ``dominoai --help`` stays light.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from .._cli_support import UsageError, int_at_least, usage_error
from ..errors import InputError

__all__ = ["add_parser", "cmd_serve"]


def add_parser(sub) -> None:
    """Add the ``serve`` subcommand to ``sub`` (the command's subparsers)."""
    g = sub.add_parser(
        "serve", help="serve tables for friends and bots over websockets (needs dominoai[serve])",
        description="Serve tables of dominoes: guests open tables for friends (by code or in the lobby), "
                    "fill empty seats with bots, or play alone against bots. Every finished hand is kept "
                    "as a dominoai.record/1 record in the database; --export writes them out.",
        epilog="Friends on your network: the server listens on 127.0.0.1 (this computer only) unless "
               "--host says otherwise. Start it with --host 0.0.0.0 (every interface) and give your "
               "friends http://YOUR-IP:PORT/ (your address on the network, e.g. from `ip addr` or "
               "`ipconfig`); allow the port in your firewall. Anyone who can reach the port can open "
               "tables; a table is joined by its code.")
    g.add_argument("--host", default="127.0.0.1", metavar="HOST",
                   help="address to listen on (default 127.0.0.1: this computer only; 0.0.0.0: every interface)")
    g.add_argument("--port", type=int_at_least(0, 65535), default=8000, metavar="N",
                   help="port to listen on (default 8000; 0: a free port, printed)")
    g.add_argument("--db", metavar="PATH",
                   help="the SQLite database of tables, records and stats (default: serve.sqlite3 in the "
                        "user data directory; $DOMINOAI_DATA_DIR overrides)")
    g.add_argument("--export", metavar="DIR",
                   help="write the records of the finished hands to DIR (one file per table, for "
                        "'dominoai replay' and 'dominoai view') and exit")
    g.add_argument("--workers", type=int_at_least(1), metavar="N",
                   help="processes the bots think in (default: the CPU count)")
    g.add_argument("--origin", action="append", default=[], metavar="URL",
                   help="an origin besides the server's own whose pages may open a websocket, e.g. "
                        "https://dominoes.example.org when a proxy serves the page there (repeatable)")
    g.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                   help="the address or network of a proxy in front of the server: its X-Forwarded-For "
                        "names the client (default: none, the header is ignored; repeatable)")
    g.set_defaults(func=cmd_serve)


def cmd_serve(args) -> int:
    """``dominoai serve``: with ``--export``, write the finished hands'
    records and exit; else serve until interrupted (Ctrl-C ends it with 0)."""
    from . import default_db, export, serve
    from .store import StoreError, check_store
    db = Path(args.db) if args.db else default_db()
    try:
        check_store(db)
    except ValueError as e:
        raise UsageError(f"--db: {e}") from None
    if args.export:
        if not db.is_file():
            raise UsageError(f"--db: no server database at {db}")
        out = Path(args.export)
        if out.exists() and not out.is_dir():
            raise UsageError(f"--export: {out} exists and is not a folder")
        try:
            files = export(db, out)
        except OSError as e:
            why = e.strerror or str(e)
            where = e.filename if e.filename is not None else out
            raise UsageError(f"--export: cannot write the records to {out}: {why.lower()} ({where})") from None
        except ValueError as e:
            raise UsageError(f"--export: {e}") from None
        print(f"dominoai serve: {len(files)} record{'s' if len(files) != 1 else ''} written to {out}")
        return 0
    missing = [m for m in ("starlette", "uvicorn", "websockets") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(f"serve needs {', '.join(missing)}: pip install 'dominoai[serve]'")
    if db.exists() and not db.is_file():
        raise UsageError(f"--db: {db} is not a file")
    try:
        serve(args.host, args.port, db, workers=args.workers, origins=args.origin,
              trusted_proxies=args.trusted_proxy)
    except InputError as e:
        raise usage_error(e, origins="--origin", trusted_proxies="--trusted-proxy") from None
    except StoreError as e:
        raise UsageError(f"--db: {e}") from None
    except OSError as e:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from None
    except KeyboardInterrupt:
        pass
    return 0
