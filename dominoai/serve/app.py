"""The server of ``dominoai serve``: guests, tables, bots, the websocket.

:func:`create_app` builds the Starlette application around a :class:`Server`:
``/ws`` is the websocket every client talks through (docs/serve.md, the
protocol), ``/api/lobby`` lists the open tables as JSON, ``/api/me`` tells
a page its guest (setting the cookie for a new one), ``/api/presets`` and
``/api/tiles.svg`` give the page its form's choices and the tiles' drawing,
and ``/`` serves the page (the ``static`` folder: plain HTML, CSS and
JavaScript). All table state is changed on the event loop's
thread, one message or one bot move at a time, and written to the
:class:`~dominoai.serve.store.Store` before anyone is told; bots think in a
process pool (:mod:`~dominoai.serve.thinking`) after a short pause.

The server guards itself against its clients: a websocket from another
origin than its own (or the ``origins`` it is given) is refused; one
message's fault, whatever it is, is answered by an ``error`` frame and a
log line, never by a dropped connection; a guest is stored only once it
acts (opens, joins or sits at a table, or sets its name), at most
:data:`NEW_GUESTS_PER_MINUTE` new guests a minute per client address, and
removed after :data:`IDLE_GUEST` seconds unseen if it holds no seat and no
finished game; a connection whose client falls more than
:data:`SEND_QUEUE` frames behind for :data:`SEND_GRACE` seconds is closed
with code :data:`CLOSE_BEHIND`.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import ipaddress
import logging
import os
import re
import secrets
import time
from concurrent.futures import Executor
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from ..errors import InputError
from ..game import Match
from ..moves import Move
from ..render.svgdraw import DEFS
from ..rules import PRESETS, get_rules
from ..table import LEVELS, Table, TableError, decision_seed, fresh_seed, hands_won, outcome_of
from .protocol import (NAME_RULE, ProtocolError, error_frame, good_name, hand_result, parse_message, rules_view,
                       seat_view)
from .store import Store
from .thinking import make_pool, request, think, warm

__all__ = ["Server", "LiveTable", "Connection", "create_app", "presets_view", "tiles_svg", "warm_engine",
           "check_origins", "check_proxies", "guest_name", "COOKIE", "CODE_BYTES", "BOT_PAUSE", "STATIC_DIR",
           "MAX_TABLES", "NEW_GUESTS_PER_MINUTE", "IDLE_GUEST", "SWEEP_EVERY", "SEND_QUEUE", "SEND_GRACE",
           "CLOSE_BEHIND", "CLOSE_ORIGIN"]

log = logging.getLogger("dominoai.serve")

#: the cookie that keeps a guest's seat and stats
COOKIE = "dominoai_guest"
#: random bytes in a table code (96 bits, from :mod:`secrets`)
CODE_BYTES = 12
#: seconds a bot waits before its move is sent (default)
BOT_PAUSE = 0.6
STATIC_DIR = Path(__file__).parent / "static"
#: unfinished tables a guest may sit at
MAX_TABLES = 50
#: new guests one client address may make in a minute (a guest is new when
#: it is first stored: when it first opens, joins or sits at a table, or sets
#: its name)
NEW_GUESTS_PER_MINUTE = 30
#: seconds after which a guest not seen since, who holds no seat and no
#: finished game, is removed (30 days)
IDLE_GUEST = 30 * 86400.0
#: seconds between two looks for idle guests
SWEEP_EVERY = 3600.0
#: frames a connection may have waiting to be sent; a client over it for
#: :data:`SEND_GRACE` seconds, or over 4 times it at all, is closed
SEND_QUEUE = 64
#: seconds a connection may stay over :data:`SEND_QUEUE`
SEND_GRACE = 10.0
#: the close code of a connection whose client fell behind (policy violation)
CLOSE_BEHIND = 1008
#: the close code of a websocket refused for its origin (sent before the
#: handshake completes, so the client sees an HTTP 403)
CLOSE_ORIGIN = 1008
#: seconds the server waits to send the close frame to a client that fell behind
CLOSE_WAIT = 5.0
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32}$")
_DEFAULT_PORT = {"http": 80, "https": 443}


def guest_name(token: str) -> str:
    """The name a guest has until it picks one: ``Guest`` and 4 hex digits
    that follow from its token (so it stays the same before the guest is
    stored)."""
    return f"Guest {hashlib.sha256(token.encode()).hexdigest()[:4]}"


def _origin(text: str) -> str | None:
    """``text`` as an origin ``scheme://host[:port]`` (scheme and host in
    lower case, the scheme's default port left out), or None if it is not
    one (another scheme, a path, a query, ``null``)."""
    try:
        u = urlsplit(text.strip())
        port = u.port
    except ValueError:
        return None
    if u.scheme not in _DEFAULT_PORT or not u.hostname or u.path not in ("", "/") or u.query or u.fragment \
            or u.username is not None or u.password is not None:
        return None
    host = f"[{u.hostname}]" if ":" in u.hostname else u.hostname
    if port is not None and port != _DEFAULT_PORT[u.scheme]:
        host += f":{port}"
    return f"{u.scheme}://{host}"


def _client_key(address: str) -> str:
    """The key new guests are counted under: the client's address, or for
    an IPv6 address its /64 network (one client's whole prefix)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def check_origins(origins) -> list[str]:
    """The origins a deployment names (``https://dominoes.example.org``, as
    a browser sends them in its ``Origin`` header), each as
    ``scheme://host[:port]``.

    :raises InputError: one that is not an origin of ``http`` or ``https``.
    """
    out = []
    for o in [origins] if isinstance(origins, str) else list(origins or ()):
        got = _origin(o) if isinstance(o, str) else None
        if got is None:
            raise InputError("origins", o, f"$origins: {o!r} is not an origin: scheme://host[:port], "
                                           "e.g. https://dominoes.example.org")
        out.append(got)
    return out


def check_proxies(proxies) -> list[str]:
    """The addresses (``203.0.113.7``) or networks (``10.0.0.0/8``) of the
    proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` headers are
    believed.

    :raises InputError: one that is neither an IP address nor a network.
    """
    out = []
    for p in [proxies] if isinstance(proxies, str) else list(proxies or ()):
        try:
            out.append(str(ipaddress.ip_network(p.strip(), strict=False)) if "/" in p
                       else str(ipaddress.ip_address(p.strip())))
        except (ValueError, AttributeError, TypeError):
            raise InputError("trusted_proxies", p, f"$trusted_proxies: {p!r} is neither an IP address "
                                                   "nor a network (203.0.113.7, 10.0.0.0/8)") from None
    return out


def warm_engine() -> None:
    """Play one small hand through every call the server makes, so that the
    engine's kernels are compiled (or loaded from numba's cache) before the
    first client: a compile later would stall the event loop."""
    for preset in ("all_fives", "dominoball"):
        m = Match(preset, seed=1)
        h = m.new_hand()
        while not h.over:
            h.observe(h.seat).legal_moves()
            h.explain(Move.parse("6:6 up"))
            h.play(h.legal_moves()[0])
        h.observe(0).count
        h.result
        m.result


def presets_view() -> dict:
    """What the page's "open a table" form offers: ``presets`` (per preset its
    ``name``, default ``players``, allowed ``min_players`` and ``max_players``,
    ``target``, ``drawing`` and ``end_scoring``), the bot ``levels``, and
    ``targets``: per preset, the match target at each number of players it
    allows (``{"draw": {"2": 100, "3": 61, "4": 61}, ...}``)."""
    out, targets = [], {}
    for name, (_, players, (lo, hi), _) in PRESETS.items():
        r = get_rules(name)
        out.append({"name": name, "players": players, "min_players": lo, "max_players": hi,
                    "target": r.target, "drawing": r.drawing, "end_scoring": r.end_scoring})
        targets[name] = {str(n): get_rules(name, players=n).target for n in range(lo, hi + 1)}
    return {"presets": out, "levels": list(LEVELS), "targets": targets}


def tiles_svg() -> str:
    """An SVG document holding only the definitions every tile of
    :mod:`dominoai.render` is drawn from (``#dai-face``: a tile's blank face,
    2 x 1 units centred on 0; ``#dai-p0`` .. ``#dai-p6``: a half's pips, 1 x 1
    centred on 0), so that the page draws its tiles as the pictures do."""
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0">{DEFS}</svg>'


class LiveTable:
    """A table on the server: its ``code``, its ``settings`` (``variant``,
    ``players``, ``level``, ``fill``, ``listed``, ``alone``, ``target``),
    the guest ``tokens`` per seat (None: empty or a bot), the
    :class:`~dominoai.table.Table` once it has started, its ``status``
    (``"waiting"``, ``"playing"``, ``"hand_over"``, ``"finished"``) and the
    seats ``ready`` for the next hand."""

    def __init__(self, tid: int, code: str, settings: dict, tokens: list, status: str = "waiting",
                 table: Table | None = None, ready=()):
        self.id = tid
        self.code = code
        self.settings = settings
        self.tokens = tokens
        self.status = status
        self.table = table
        self.ready = set(ready)
        self.task: asyncio.Task | None = None

    @property
    def players(self) -> int:
        return int(self.settings["players"])

    def seat_of(self, token: str) -> int | None:
        return next((s for s, t in enumerate(self.tokens) if t == token), None)

    def moves(self) -> int:
        """Events of the whole match so far (every move, draw and pass)."""
        if self.table is None:
            return 0
        return sum(len(h.events) for h in self.table.match.hands)


class Connection:
    """One websocket's frames waiting to be sent, and whether its client has
    fallen behind: over ``limit`` frames for ``grace`` seconds, or over 4
    times ``limit`` at all. Then ``behind`` is set, the frames waiting are
    dropped and no more are taken; the server closes the connection."""

    def __init__(self, address: str, limit: int = SEND_QUEUE, grace: float = SEND_GRACE):
        self.address = address
        self.limit = int(limit)
        self.grace = float(grace)
        self.queue: asyncio.Queue = asyncio.Queue()
        self.over_since: float | None = None
        self.behind = asyncio.Event()

    def push(self, frame: dict) -> None:
        """Queue ``frame`` to be sent (dropped once the client is behind)."""
        if self.behind.is_set():
            return
        self.queue.put_nowait(frame)
        n = self.queue.qsize()
        if n > 4 * self.limit:
            self.fall_behind()
        elif n > self.limit and self.over_since is None:
            loop = asyncio.get_running_loop()
            self.over_since = loop.time()
            loop.call_later(self.grace, self._check)

    def sent(self) -> None:
        """A frame went out: the queue may be back under its bound."""
        if self.queue.qsize() <= self.limit:
            self.over_since = None

    def _check(self) -> None:
        if self.over_since is None or self.behind.is_set():
            return
        loop = asyncio.get_running_loop()
        left = self.over_since + self.grace - loop.time()
        if left > 0:        # it went under and over again since: look again then
            loop.call_later(left, self._check)
        else:
            self.fall_behind()

    def fall_behind(self) -> None:
        self.behind.set()
        while not self.queue.empty():
            self.queue.get_nowait()


class Server:
    """Guests, tables and connections over one :class:`Store`.

    :param db: the SQLite file.
    :param pool: the executor bots think in (default: a process pool of
        ``workers`` processes, :func:`~dominoai.serve.thinking.make_pool`).
    :param bot_pause: seconds before a bot's move is sent.
    :param origins: origins besides the server's own whose pages may open
        a websocket (:func:`check_origins`).
    :param guests_per_minute: new guests one client address may make in a
        minute.
    :param idle_guest: seconds after which an unseen guest with no seat and
        no finished game is removed.
    :raises StoreError: the store cannot be opened.
    :raises InputError: an origin that is not one.
    """

    #: frames a connection may have waiting, and seconds it may stay over that
    send_queue, send_grace = SEND_QUEUE, SEND_GRACE

    def __init__(self, db: "str | Path", pool: Executor | None = None, workers: int | None = None,
                 bot_pause: float = BOT_PAUSE, origins=(), guests_per_minute: int = NEW_GUESTS_PER_MINUTE,
                 idle_guest: float = IDLE_GUEST):
        self.origins = set(check_origins(origins))
        self.store = Store(db)
        self.own_pool = pool is None
        self.pool = pool
        self.workers = workers
        self.bot_pause = float(bot_pause)
        self.guests_per_minute = int(guests_per_minute)
        self.idle_guest = float(idle_guest)
        self.tables: dict[str, LiveTable] = {}
        self.conns: dict[str, set] = {}
        self.names: dict[str, str] = {}
        self.clock = time.monotonic
        self.new_guests: dict[str, collections.deque] = {}
        self._pruned = 0.0
        self._sweeper: asyncio.Task | None = None

    # -- life
    async def start(self) -> None:
        """Load the engine's kernels, open the pool, load every unfinished
        table from the store, set their bots going."""
        warm_engine()
        if self.pool is None:
            self.pool = make_pool(self.workers)
            loop = asyncio.get_running_loop()
            for _ in range(self.workers or os.cpu_count() or 1):
                loop.run_in_executor(self.pool, warm)
        for row in self.store.tables():
            if row["status"] == "finished":
                continue    # its records stay in the store; the table is not played again
            table = None
            if row["record"] is not None:
                try:
                    table = Table.from_record(row["record"], build_bots=False)
                except TableError as e:
                    log.error("table %s cannot be restored: %s", row["id"], e)
                    continue
            live = LiveTable(row["id"], row["code"], row["settings"], row["guests"], row["status"], table,
                             row["ready"])
            self.tables[live.code] = live
            self.kick(live)
        self._sweeper = asyncio.get_running_loop().create_task(self.sweep())

    async def sweep(self) -> None:
        """Remove the idle guests now and every :data:`SWEEP_EVERY` seconds."""
        while True:
            try:
                self.remove_idle_guests()
            except Exception:     # a store that cannot be written now may be later
                log.exception("idle guests could not be removed")
            await asyncio.sleep(SWEEP_EVERY)

    def remove_idle_guests(self, now: float | None = None) -> int:
        """Remove the guests not seen for ``idle_guest`` seconds before
        ``now`` (a Unix time; default now) that hold no seat, have no
        finished game and are not connected. Returns how many."""
        now = time.time() if now is None else now
        n = self.store.remove_idle_guests(now - self.idle_guest, keep=self.conns)
        if n:
            log.info("removed %d idle guest%s", n, "" if n == 1 else "s")
        return n

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        for live in self.tables.values():
            if live.task is not None:
                live.task.cancel()
        if self.own_pool and self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        self.store.close()

    # -- sending
    def send(self, token: str, frame: dict) -> None:
        for conn in self.conns.get(token, ()):
            conn.push(frame)

    def view(self, live: LiveTable, token: str) -> dict:
        """The ``table`` frame for the guest ``token`` at ``live``: the public
        facts, and the hand as its seat's Observation shows it."""
        seat = live.seat_of(token)
        t = live.table
        names = t.names() if t is not None else [self.name_of(k) if k else None for k in live.tokens]
        seats = []
        for s in range(live.players):
            bot = t.meta["bots"][s] if t is not None else None
            seats.append({"seat": s, "name": names[s], "bot": bot, "you": s == seat,
                          "connected": bot is not None or bool(live.tokens[s] and self.conns.get(live.tokens[s]))})
        frame = {"type": "table", "code": live.code, "seat": seat, "status": live.status,
                 "settings": {k: live.settings[k] for k in ("variant", "players", "level", "fill", "listed")},
                 "seats": seats, "ready": sorted(live.ready), "moves": live.moves(), "hand": None,
                 "result": None, "match": None}
        if t is None:
            frame["rules"] = rules_view(self.rules_of(live.settings))
            return frame
        r = t.rules
        frame["rules"] = rules_view(r)
        m = t.match
        res = m.result
        frame["match"] = {"hands": len(m.hands), "scores": list(m.scores), "target": r.target,
                          "finished": m.finished, "winner": res.winner, "dry_goat": res.dry_goat,
                          "hands_won": hands_won(m)}
        h = m.current
        if h is not None and seat is not None:
            goals = m.goals if r.hand_scoring == "strikes" else None
            frame["hand"] = seat_view(h.observe(seat), h.index, m.scores, goals)
        if h is not None and h.over:
            frame["result"] = hand_result(h)
        return frame

    def broadcast(self, live: LiveTable) -> None:
        for token in set(k for k in live.tokens if k):
            if token in self.conns:
                self.send(token, self.view(live, token))

    def lobby(self) -> list[dict]:
        """The listed tables waiting for people (a table everyone has left is
        not listed; its code still finds it)."""
        out = []
        for live in self.tables.values():
            if live.status == "waiting" and live.settings.get("listed") and any(live.tokens):
                out.append({"code": live.code, "variant": live.settings["variant"], "players": live.players,
                            "level": live.settings["level"], "fill": live.settings["fill"],
                            "seats": [self.name_of(k) if k else None for k in live.tokens]})
        return out

    # -- guests
    def guest(self, token: str | None) -> tuple[str, str, bool]:
        """``(token, name, new)``: the guest of the cookie ``token`` (a
        stored guest, marked as seen now, or a guest not stored yet whose
        token has the form the server gives), else a new guest with a new
        token. Nothing is stored: a guest is stored when it first acts
        (:meth:`enlist`)."""
        if token:
            g = self.store.guest(token)
            if g is not None:
                self.names[token] = g["name"]
                self.store.touch_guest(token)
                return token, g["name"], False
            if _TOKEN.match(token):
                return token, self.name_of(token), False
        token = secrets.token_urlsafe(24)
        return token, guest_name(token), True

    def enlist(self, token: str, address: str, name: str | None = None) -> bool:
        """Store the guest ``token`` (named ``name``, default its name now)
        if it is not stored yet; True if it was stored now.

        :raises ProtocolError: ``too_many_guests``: the client address
            ``address`` made :attr:`guests_per_minute` new guests in the
            last minute.
        """
        if self.store.guest(token) is not None:
            return False
        now = self.clock()
        if now - self._pruned > 60.0:       # forget the addresses quiet for a minute
            self.new_guests = {a: q for a, q in self.new_guests.items() if q and q[-1] > now - 60.0}
            self._pruned = now
        made = self.new_guests.setdefault(_client_key(address), collections.deque())
        while made and made[0] <= now - 60.0:
            made.popleft()
        if len(made) >= self.guests_per_minute:
            wait = max(1, int(made[0] + 60.0 - now + 0.999))
            raise ProtocolError("too_many_guests", f"{self.guests_per_minute} new guests came from this "
                                f"address in the last minute; try again in {wait} s")
        made.append(now)
        self.store.add_guest(token, name or self.name_of(token))
        if name:
            self.names[token] = name
        return True

    def name_of(self, token: str) -> str:
        """A guest's name (from the store when the guest has not connected
        since the server started; :func:`guest_name` while it is not stored)."""
        name = self.names.get(token)
        if name is None:
            g = self.store.guest(token)
            if g is None:
                return guest_name(token)    # not kept: a guest not stored costs no memory
            name = self.names[token] = g["name"]
        return name

    def welcome(self, token: str, new: bool) -> dict:
        tables = [live.code for live in self.tables.values()
                  if token in live.tokens and live.status != "finished"]
        d = {"type": "welcome", "name": self.name_of(token), "tables": tables}
        if new:
            d["token"] = token
        return d

    # -- tables
    @staticmethod
    def rules_of(settings: dict):
        over = {"players": settings["players"]}
        if settings.get("target") is not None:
            over["target"] = settings["target"]
        return get_rules(settings["variant"], **over)

    def save(self, live: LiveTable, finished_hand=None, matches=()) -> None:
        rec = None if live.table is None else live.table.record()
        self.store.save_table(live.code, live.tokens, live.status, rec, sorted(live.ready), finished_hand,
                              matches)

    def restore(self, code: str) -> None:
        """Put the table ``code`` back as the store holds it: after a fault in
        the middle of a change, the table is as it was before the change (or
        gone, if it was never stored)."""
        old = self.tables.pop(code, None)
        if old is not None and old.task is not None:
            old.task.cancel()
        row = next((r for r in self.store.tables() if r["code"] == code), None)
        if row is None:
            return
        table = None if row["record"] is None else Table.from_record(row["record"], build_bots=False)
        live = LiveTable(row["id"], row["code"], row["settings"], row["guests"], row["status"], table, row["ready"])
        self.tables[code] = live
        self.kick(live)

    def open(self, token: str, msg: dict, address: str = "") -> LiveTable:
        variant = msg.get("variant", "draw")
        if variant not in PRESETS:
            raise ProtocolError("bad_field", f"open: unknown variant {variant!r}; presets: {', '.join(PRESETS)}")
        lo, hi = PRESETS[variant][2]
        players = msg.get("players", PRESETS[variant][1])
        if not lo <= players <= hi:
            seats = f"exactly {lo}" if lo == hi else f"{lo} to {hi}"
            raise ProtocolError("bad_field", f"open: {variant} takes {seats} players (got {players})")
        level = msg.get("level", "medium")
        if level not in LEVELS:
            raise ProtocolError("bad_field", f"open: level must be one of {', '.join(LEVELS)} (got {level!r})")
        settings = {"variant": variant, "players": players, "level": level, "fill": bool(msg.get("fill", True)),
                    "listed": bool(msg.get("listed", False)) and not msg.get("alone", False),
                    "alone": bool(msg.get("alone", False)), "target": msg.get("target"),
                    "seed": fresh_seed()}
        try:
            self.rules_of(settings)
        except (ValueError, TypeError) as e:
            raise ProtocolError("bad_field", f"open: {e}") from None
        mine = sum(1 for x in self.tables.values() if token in x.tokens and x.status != "finished")
        if mine >= MAX_TABLES:
            raise ProtocolError("too_many_tables", f"a guest may sit at {MAX_TABLES} unfinished tables at most")
        seat = msg.get("seat", 0)
        if not 0 <= seat < players:
            raise ProtocolError("bad_field", f"open: seat must be 0..{players - 1}")
        self.enlist(token, address)
        code = secrets.token_urlsafe(CODE_BYTES)
        tokens: list = [None] * players
        tokens[seat] = token
        tid = self.store.add_table(code, settings, tokens, "waiting")
        live = LiveTable(tid, code, settings, tokens)
        self.tables[code] = live
        self.save(live)
        return live

    def join(self, token: str, live: LiveTable, seat: int | None, address: str = "") -> None:
        if live.seat_of(token) is not None:
            return  # already there: the view is sent again
        if live.status != "waiting":
            raise ProtocolError("started", "that table has started; its seats are taken")
        if sum(1 for x in self.tables.values() if token in x.tokens and x.status != "finished") >= MAX_TABLES:
            raise ProtocolError("too_many_tables", f"a guest may sit at {MAX_TABLES} unfinished tables at most")
        free = [s for s, k in enumerate(live.tokens) if k is None]
        if seat is None:
            seat = free[0]
        elif not 0 <= seat < live.players:
            raise ProtocolError("bad_field", f"join: seat must be 0..{live.players - 1}")
        elif seat not in free:
            raise ProtocolError("seat_taken", f"seat {seat} is not free; free: {free}")
        self.enlist(token, address)
        live.tokens[seat] = token
        people = sum(1 for k in live.tokens if k)
        if people == live.players or (live.settings["fill"] and people >= 2):
            self.begin(live)
        else:
            self.save(live)

    def begin(self, live: LiveTable) -> None:
        """Seat bots in the empty seats (a person's partner at least ``hard``)
        and deal the first hand."""
        s = live.settings
        people = [i for i, k in enumerate(live.tokens) if k]
        names = [self.name_of(live.tokens[i]) for i in people]
        over = {} if s.get("target") is None else {"target": s["target"]}
        live.table = Table.new(s["variant"], s["players"], s["level"], people, s["seed"], over,
                               names=names, build_bots=False)
        live.table.start_hand()
        live.status = "playing"
        self.after_move(live)

    def after_move(self, live: LiveTable) -> None:
        """Store the table, tell its people, set its bots going; a hand that
        just ended is kept as a record, a match that ended counts in the stats."""
        t = live.table
        h = t.hand
        finished, matches = None, []
        if h.over:
            live.status = "finished" if t.match.finished else "hand_over"
            live.ready = set()
            rec = t.record()
            rec.pop("play", None)
            finished = (h.index, t.names(), rec)
        if live.status == "finished":       # counted in the transaction that stores the table finished
            variant, level = t.meta["variant"], t.meta["level"]
            won = hands_won(t.match)
            matches = [(live.tokens[s], variant, level, outcome_of(t.match, s), len(t.match.hands),
                        won[t.rules.side_of(s)]) for s in t.people]
        self.save(live, finished, matches)
        self.broadcast(live)
        self.kick(live)

    def play(self, token: str, live: LiveTable, msg: dict) -> None:
        seat = self.owned_seat(token, live, msg)
        if live.status == "waiting":
            raise ProtocolError("not_started", "the table's first hand has not started: it waits for people "
                                               "to sit")
        if live.table is None or live.status != "playing":
            raise ProtocolError("hand_over", "no hand is in play at that table")
        if msg.get("replace"):
            move: "Move | str" = "replace"
        else:
            if "tile" not in msg:
                raise ProtocolError("bad_field", "play: tile (or replace) is required")
            move = msg["tile"] + (" " + msg["end"] if msg.get("end") else "")
        try:
            live.table.play(seat, move)
        except TableError as e:
            raise ProtocolError(e.code, str(e)) from None
        self.after_move(live)

    def next_hand(self, token: str, live: LiveTable, msg: dict) -> None:
        seat = self.owned_seat(token, live, msg)
        if live.status == "waiting":
            raise ProtocolError("not_started", "the table's first hand has not started: it waits for people "
                                               "to sit")
        if live.status != "hand_over":
            raise ProtocolError("not_over", "the next hand starts only once this one is over")
        live.ready.add(seat)
        if all(s in live.ready for s in live.table.people):
            live.table.start_hand()
            live.status = "playing"
            live.ready = set()
            self.after_move(live)
        else:
            self.save(live)
            self.broadcast(live)

    def owned_seat(self, token: str, live: LiveTable, msg: dict) -> int:
        seat = live.seat_of(token)
        if seat is None or ("seat" in msg and msg["seat"] != seat):
            raise ProtocolError("not_your_seat", "this connection does not hold that seat")
        return seat

    def table_for(self, msg: dict) -> LiveTable:
        live = self.tables.get(msg.get("code", ""))
        if live is None:
            raise ProtocolError("no_table", "no table has that code")
        return live

    # -- bots
    def kick(self, live: LiveTable) -> None:
        """Start the table's bot driver if a bot is to move and none runs."""
        t = live.table
        if t is None or live.status != "playing" or t.to_move is None or not t.is_bot(t.to_move):
            return
        if live.task is not None and not live.task.done():
            return
        live.task = asyncio.get_running_loop().create_task(self.drive(live))

    async def drive(self, live: LiveTable) -> None:
        """Play the bots' moves while a bot is to move: a pause, the decision
        in the pool, the move checked and played, then stored and sent."""
        loop = asyncio.get_running_loop()
        t = live.table
        while live.status == "playing" and t.to_move is not None and t.is_bot(t.to_move):
            seat, hand, step = t.to_move, t.hand.index, t.step
            if self.bot_pause > 0:
                await asyncio.sleep(self.bot_pause)
            args = request(t, decision_seed(int(live.settings["seed"]), hand, step, seat))
            try:
                code = await loop.run_in_executor(self.pool, think, *args)
                move = Move.from_code(code)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a failing bot must not stop the table: it plays its first legal move
                log.error("bot %s at table %s failed: %s: %s", args[0], live.id, type(e).__name__, e)
                move = t.hand.legal_moves()[0]
            if t.to_move != seat or t.hand.index != hand or t.step != step:
                continue  # the table moved on meanwhile (never expected): decide again
            try:
                t.play_bot(move)
            except ValueError as e:
                log.error("bot %s at table %s chose an illegal move: %s", args[0], live.id, e)
                t.play_bot(t.hand.legal_moves()[0])
            self.after_move(live)

    # -- messages
    def handle(self, token: str, text, address: str = "") -> list[dict]:
        """The frames answering one message of ``token`` from the client
        address ``address`` (its tables' frames go out by :meth:`broadcast`).
        A refused message gets one ``error`` frame and changes nothing; so
        does a message the server fails on (``server_error``, logged with its
        traceback; the table it names is put back as stored)."""
        kind, msg, known = None, None, len(self.tables)
        try:
            msg = parse_message(text)
            kind = msg["type"]
            return self._answer(token, msg, address)
        except ProtocolError as e:
            log.info("refused %s from %s: %s: %s", kind or "a message", address or "?", e.code, e)
            return [error_frame(e.code, str(e), kind or e.request)]
        except Exception:
            log.exception("a %s message from %s failed", kind or "malformed", address or "?")
            code = msg.get("code") if isinstance(msg, dict) else None
            if len(self.tables) > known:        # the table this message opened
                code = next(reversed(self.tables))
            if isinstance(code, str) and code in self.tables:
                try:
                    self.restore(code)
                except Exception:
                    log.exception("table %s could not be restored", code)
            return [error_frame("server_error", "the server failed on that message; nothing changed", kind)]

    def _answer(self, token: str, msg: dict, address: str) -> list[dict]:
        kind = msg["type"]
        if kind == "hello":
            if "name" in msg:
                name = msg["name"].strip()
                if not good_name(name):
                    raise ProtocolError("bad_field", NAME_RULE)
                if not self.enlist(token, address, name):
                    self.store.rename_guest(token, name)
                self.names[token] = name
            return [self.welcome(token, False)]
        if kind == "lobby":
            return [{"type": "lobby", "tables": self.lobby()}]
        if kind == "stats":
            g = self.store.guest(token)
            return [{"type": "stats", "stats": g["stats"] if g else {}}]
        if kind == "open":
            live = self.open(token, msg, address)
            self.send(token, {"type": "opened", "code": live.code})
            if live.settings["alone"]:
                self.begin(live)
            else:
                self.broadcast(live)
            return []
        if kind == "resume":
            tables = [self.table_for(msg)] if "code" in msg else \
                [x for x in self.tables.values() if token in x.tokens]
            out = []
            for live in tables:
                if token not in live.tokens:
                    raise ProtocolError("not_your_seat", "you hold no seat at that table")
                out.append(self.view(live, token))
            return out
        live = self.table_for(msg)
        if kind == "join":
            already = live.seat_of(token) is not None
            self.join(token, live, msg.get("seat"), address)
            if already:
                self.send(token, self.view(live, token))
            elif live.status == "waiting":
                self.broadcast(live)
            return []
        if kind == "play":
            self.play(token, live, msg)
            return []
        if kind == "next":
            self.next_hand(token, live, msg)
            return []
        if kind == "leave":
            seat = self.owned_seat(token, live, msg)
            if live.status != "waiting":
                raise ProtocolError("started", "a started table cannot be left; its seat stays yours")
            live.tokens[seat] = None
            self.save(live)
            self.broadcast(live)
            return [{"type": "left", "code": live.code}]
        raise ProtocolError("unknown_type", f"unknown message type {kind!r}")  # pragma: no cover

    # -- connections
    def origin_allowed(self, origin: str, websocket) -> bool:
        """Whether a page of ``origin`` (the ``Origin`` header) may open a
        websocket: the server's own origin (the scheme and ``Host`` the
        request came with) or one of :attr:`origins`."""
        got = _origin(origin)
        if got is None:
            return False
        if got in self.origins:
            return True
        host = websocket.headers.get("host")
        scheme = "https" if websocket.url.scheme in ("wss", "https") else "http"
        return host is not None and got == _origin(f"{scheme}://{host}")

    async def connect(self, websocket) -> None:
        """Serve one websocket: its origin checked (another origin is refused
        with :data:`CLOSE_ORIGIN` before the handshake, an HTTP 403), the
        guest's cookie (or a new guest), then its messages until it closes,
        or until it falls behind (closed with :data:`CLOSE_BEHIND`)."""
        address = websocket.client.host if websocket.client else ""
        origin = websocket.headers.get("origin")
        if origin is not None and not self.origin_allowed(origin, websocket):
            log.warning("refused a websocket from %s: origin %r is not this server's", address or "?", origin)
            await websocket.close(code=CLOSE_ORIGIN)
            return
        token, name, new = self.guest(websocket.cookies.get(COOKIE))
        headers = []
        if new:
            headers = [(b"set-cookie", f"{COOKIE}={token}; Path=/; Max-Age=31536000; HttpOnly; "
                                       f"SameSite=Lax".encode())]
        await websocket.accept(headers=headers)
        conn = Connection(address, self.send_queue, self.send_grace)
        self.conns.setdefault(token, set()).add(conn)
        loop = asyncio.get_running_loop()

        async def writer():
            while True:
                frame = await conn.queue.get()
                await websocket.send_json(frame)
                conn.sent()

        async def reader():
            while True:
                m = await websocket.receive()
                if m["type"] == "websocket.disconnect":
                    return
                text = m.get("text")
                if text is None:
                    text = m.get("bytes")
                for frame in self.handle(token, text, address):
                    conn.push(frame)

        tasks = [loop.create_task(writer()), loop.create_task(reader()), loop.create_task(conn.behind.wait())]
        for t in tasks:     # a writer that failed (the client is gone) ends the connection; nothing to report
            t.add_done_callback(lambda t: t.cancelled() or t.exception())
        conn.push(self.welcome(token, new))
        for live in [x for x in self.tables.values() if token in x.tokens]:
            self.broadcast(live)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            self.conns.get(token, set()).discard(conn)
            if not self.conns.get(token):
                self.conns.pop(token, None)
                self.names.pop(token, None)
            if conn.behind.is_set():
                log.warning("closed the connection of %s: its client fell more than %d frames behind",
                            address or "?", conn.limit)
                try:
                    await asyncio.wait_for(websocket.close(code=CLOSE_BEHIND), CLOSE_WAIT)
                except Exception:     # the close frame could not go out either: the socket is dropped
                    pass
            for live in [x for x in self.tables.values() if token in x.tokens]:
                self.broadcast(live)


def create_app(db: "str | Path", pool: Executor | None = None, workers: int | None = None,
               bot_pause: float = BOT_PAUSE, static: "str | Path | None" = None, origins=(),
               trusted_proxies=(), guests_per_minute: int = NEW_GUESTS_PER_MINUTE,
               idle_guest: float = IDLE_GUEST):
    """The Starlette application of ``dominoai serve`` over the SQLite file ``db``.

    :param pool: the executor bots think in (default: a process pool).
    :param workers: processes in the default pool (default: the CPU count).
    :param bot_pause: seconds before a bot's move is sent.
    :param static: the folder served at ``/`` (default: the package's).
    :param origins: the origins (``https://dominoes.example.org``) whose
        pages may open a websocket besides the server's own: those a proxy
        in front of the server serves the page under.
    :param trusted_proxies: the addresses or networks of the proxies in
        front of the server: from these alone the client's address is taken
        from ``X-Forwarded-For`` (and the scheme from ``X-Forwarded-Proto``);
        from any other client those headers are ignored. Run the
        application on uvicorn with ``proxy_headers=False``, which would
        otherwise trust 127.0.0.1 by itself.
    :param guests_per_minute: new guests one client address may make in a
        minute (:data:`NEW_GUESTS_PER_MINUTE`).
    :param idle_guest: seconds after which an unseen guest with no seat and
        no finished game is removed (:data:`IDLE_GUEST`).
    :returns: the application; its ``state.server`` is the :class:`Server`.
    :raises InputError: an origin or a proxy that is not one.
    :raises StoreError: the store cannot be opened.
    """
    proxies = check_proxies(trusted_proxies)
    server = Server(db, pool=pool, workers=workers, bot_pause=bot_pause, origins=origins,
                    guests_per_minute=guests_per_minute, idle_guest=idle_guest)

    @asynccontextmanager
    async def lifespan(app):
        await server.start()
        try:
            yield
        finally:
            await server.stop()

    async def lobby(request):
        return JSONResponse({"tables": server.lobby()})

    async def me(request):
        token, name, new = server.guest(request.cookies.get(COOKIE))
        body = server.welcome(token, False)
        resp = JSONResponse(body)
        if new:
            resp.set_cookie(COOKIE, token, max_age=31536000, httponly=True, samesite="lax")
        return resp

    async def presets(request):
        return JSONResponse(presets_view())

    async def tiles(request):
        return Response(tiles_svg(), media_type="image/svg+xml")

    async def ws(websocket):
        await server.connect(websocket)

    routes = [Route("/api/lobby", lobby), Route("/api/me", me), Route("/api/presets", presets),
              Route("/api/tiles.svg", tiles), WebSocketRoute("/ws", ws),
              Mount("/", StaticFiles(directory=str(static or STATIC_DIR), html=True))]
    middleware = [Middleware(ProxyHeadersMiddleware, trusted_hosts=proxies)] if proxies else []
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.server = server
    return app
