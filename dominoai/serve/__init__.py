"""Play on a server (``dominoai serve``): tables for friends and bots over websockets.

The parts: :mod:`.app` (the Starlette application: guests, tables, the
bots' driver, the websocket), :mod:`.protocol` (reading a client's
message, building a seat's view from its Observation), :mod:`.store` (the
SQLite store, WAL mode) and :mod:`.thinking` (bots deciding in a process
pool). The tables are :class:`dominoai.table.Table`, as in ``dominoai
play``. :func:`serve` runs the server on uvicorn; :func:`export` writes the
finished hands' records to a folder. Needs the ``serve`` extra
(``pip install dominoai[serve]``: starlette, uvicorn, websockets).
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

from .._files import user_data_path

__all__ = ["serve", "export", "default_db", "DB_FILE"]

DB_FILE = "serve.sqlite3"


def default_db() -> Path:
    """The default store: ``serve.sqlite3`` in the user data directory
    (:func:`dominoai.play.user_data_path`)."""
    return user_data_path() / DB_FILE


def export(db: "str | os.PathLike", directory: "str | os.PathLike") -> list[Path]:
    """Write the records of the finished hands in the store ``db`` to
    ``directory``: one ``table-<id>.json`` per table, its match up to its
    last finished hand (:meth:`Store.export <dominoai.serve.store.Store.export>`).

    :raises FileNotFoundError: no store at ``db``.
    :raises OSError: the folder cannot be written.
    """
    from .store import Store
    if not Path(db).is_file():
        raise FileNotFoundError(f"no server database at {db}")
    store = Store(db)
    try:
        return store.export(directory)
    finally:
        store.close()


def serve(host: str = "127.0.0.1", port: int = 8000, db: "str | os.PathLike | None" = None,
          workers: int | None = None, bot_pause: float | None = None, out=None, origins=(),
          trusted_proxies=()) -> None:
    """Run the server until interrupted: bind ``host:port`` (port 0: a free
    one), open the store, print the address to ``out`` (default: standard
    output), serve.

    :param db: the SQLite file (default :func:`default_db`).
    :param workers: processes bots think in (default: the CPU count).
    :param bot_pause: seconds before a bot's move is sent (default
        :data:`~dominoai.serve.app.BOT_PAUSE`).
    :param origins: origins besides the server's own whose pages may open a
        websocket (``https://dominoes.example.org``: the address a proxy
        serves the page under).
    :param trusted_proxies: addresses or networks of the proxies whose
        ``X-Forwarded-For`` names the client (none by default: the headers
        are ignored).
    :raises InputError: an origin or a proxy that is not one (checked
        before anything is bound or opened).
    :raises StoreError: the store ``db`` cannot be opened (the address is
        let go again).
    :raises OSError: the address cannot be bound.
    """
    import uvicorn

    from .app import BOT_PAUSE, check_origins, check_proxies, create_app
    from .protocol import MAX_MESSAGE
    out = sys.stdout if out is None else out
    origins, trusted_proxies = check_origins(origins), check_proxies(trusted_proxies)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)            # clients wait in the backlog until the server is up
        bound = sock.getsockname()[1]
        app = create_app(default_db() if db is None else db, workers=workers,
                         bot_pause=BOT_PAUSE if bot_pause is None else bot_pause, origins=origins,
                         trusted_proxies=trusted_proxies)
    except BaseException:
        sock.close()
        raise
    # the app reads forwarded headers itself, from the trusted proxies only
    config = uvicorn.Config(app, log_level="warning", ws_max_size=4 * MAX_MESSAGE, lifespan="on",
                            proxy_headers=False)
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    print(f"dominoai serve: http://{shown}:{bound}/ (websocket /ws); Ctrl-C stops", file=out, flush=True)
    server.run(sockets=[sock])
