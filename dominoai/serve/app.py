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
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import secrets
from concurrent.futures import Executor
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from ..game import Match
from ..moves import Move
from ..render.svgdraw import DEFS
from ..rules import PRESETS, get_rules
from ..table import LEVELS, Table, TableError, decision_seed, fresh_seed, hands_won, outcome_of
from .protocol import ProtocolError, error_frame, hand_result, parse_message, rules_view, seat_view
from .store import Store
from .thinking import make_pool, request, think, warm

__all__ = ["Server", "LiveTable", "create_app", "presets_view", "tiles_svg", "warm_engine", "COOKIE",
           "CODE_BYTES", "BOT_PAUSE", "STATIC_DIR", "MAX_TABLES"]

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
_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,24}$")


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


class Server:
    """Guests, tables and connections over one :class:`Store`.

    :param db: the SQLite file.
    :param pool: the executor bots think in (default: a process pool of
        ``workers`` processes, :func:`~dominoai.serve.thinking.make_pool`).
    :param bot_pause: seconds before a bot's move is sent.
    """

    def __init__(self, db: "str | Path", pool: Executor | None = None, workers: int | None = None,
                 bot_pause: float = BOT_PAUSE):
        self.store = Store(db)
        self.own_pool = pool is None
        self.pool = pool
        self.workers = workers
        self.bot_pause = float(bot_pause)
        self.tables: dict[str, LiveTable] = {}
        self.conns: dict[str, set] = {}
        self.names: dict[str, str] = {}

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

    async def stop(self) -> None:
        for live in self.tables.values():
            if live.task is not None:
                live.task.cancel()
        if self.own_pool and self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        self.store.close()

    # -- sending
    def send(self, token: str, frame: dict) -> None:
        for q in self.conns.get(token, ()):
            q.put_nowait(frame)

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
        """The listed tables waiting for people."""
        out = []
        for live in self.tables.values():
            if live.status == "waiting" and live.settings.get("listed"):
                out.append({"code": live.code, "variant": live.settings["variant"], "players": live.players,
                            "level": live.settings["level"], "fill": live.settings["fill"],
                            "seats": [self.name_of(k) if k else None for k in live.tokens]})
        return out

    # -- guests
    def guest(self, token: str | None) -> tuple[str, str, bool]:
        """``(token, name, new)``: the guest of ``token``, or a new guest."""
        if token:
            g = self.store.guest(token)
            if g is not None:
                self.names[token] = g["name"]
                return token, g["name"], False
        token = secrets.token_urlsafe(24)
        name = f"Guest {secrets.token_hex(2)}"
        self.store.add_guest(token, name)
        self.names[token] = name
        return token, name, True

    def name_of(self, token: str) -> str:
        """A guest's name (from the store when the guest has not connected
        since the server started)."""
        name = self.names.get(token)
        if name is None:
            g = self.store.guest(token)
            name = self.names[token] = g["name"] if g else "guest"
        return name

    def welcome(self, token: str, new: bool) -> dict:
        tables = [live.code for live in self.tables.values()
                  if token in live.tokens and live.status != "finished"]
        d = {"type": "welcome", "name": self.names.get(token), "tables": tables}
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

    def save(self, live: LiveTable, finished_hand=None) -> None:
        rec = None if live.table is None else live.table.record()
        self.store.save_table(live.code, live.tokens, live.status, rec, sorted(live.ready), finished_hand)

    def open(self, token: str, msg: dict) -> LiveTable:
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
        code = secrets.token_urlsafe(CODE_BYTES)
        tokens: list = [None] * players
        tokens[seat] = token
        tid = self.store.add_table(code, settings, tokens, "waiting")
        live = LiveTable(tid, code, settings, tokens)
        self.tables[code] = live
        self.save(live)
        return live

    def join(self, token: str, live: LiveTable, seat: int | None) -> None:
        if live.seat_of(token) is not None:
            return  # already there: the view is sent again
        if live.status != "waiting":
            raise ProtocolError("started", "that table has started; its seats are taken")
        if sum(1 for x in self.tables.values() if token in x.tokens and x.status != "finished") >= MAX_TABLES:
            raise ProtocolError("too_many_tables", f"a guest may sit at {MAX_TABLES} unfinished tables at most")
        free = [s for s, k in enumerate(live.tokens) if k is None]
        if seat is None:
            seat = free[0]
        elif seat not in free:
            raise ProtocolError("seat_taken", f"seat {seat} is not free; free: {free}")
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
        finished = None
        if h.over:
            live.status = "finished" if t.match.finished else "hand_over"
            live.ready = set()
            rec = t.record()
            rec.pop("play", None)
            finished = (h.index, t.names(), rec)
        self.save(live, finished)
        if live.status == "finished":
            variant, level = t.meta["variant"], t.meta["level"]
            won = hands_won(t.match)
            for s in t.people:
                self.store.count_match(live.tokens[s], variant, level, outcome_of(t.match, s),
                                       len(t.match.hands), won[t.rules.side_of(s)])
        self.broadcast(live)
        self.kick(live)

    def play(self, token: str, live: LiveTable, msg: dict) -> None:
        seat = self.owned_seat(token, live, msg)
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
    def handle(self, token: str, text) -> list[dict]:
        """The frames answering one message of ``token`` (its tables' frames go
        out by :meth:`broadcast`). A refused message gets one ``error`` frame
        and changes nothing."""
        kind = None
        try:
            msg = parse_message(text)
            kind = msg["type"]
            if kind == "hello":
                if "name" in msg:
                    name = msg["name"].strip()
                    if not _NAME.match(name):
                        raise ProtocolError("bad_field", "hello: a name is 1 to 24 printable characters")
                    self.store.rename_guest(token, name)
                    self.names[token] = name
                return [self.welcome(token, False)]
            if kind == "lobby":
                return [{"type": "lobby", "tables": self.lobby()}]
            if kind == "stats":
                g = self.store.guest(token)
                return [{"type": "stats", "stats": g["stats"] if g else {}}]
            if kind == "open":
                live = self.open(token, msg)
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
                self.join(token, live, msg.get("seat"))
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
        except ProtocolError as e:
            return [error_frame(e.code, str(e), kind or e.request)]

    async def connect(self, websocket) -> None:
        """Serve one websocket: the guest's cookie (or a new guest), then its
        messages until it closes."""
        token, name, new = self.guest(websocket.cookies.get(COOKIE))
        headers = []
        if new:
            headers = [(b"set-cookie", f"{COOKIE}={token}; Path=/; Max-Age=31536000; HttpOnly; "
                                       f"SameSite=Lax".encode())]
        await websocket.accept(headers=headers)
        queue: asyncio.Queue = asyncio.Queue()
        self.conns.setdefault(token, set()).add(queue)

        async def writer():
            while True:
                frame = await queue.get()
                await websocket.send_json(frame)

        wtask = asyncio.get_running_loop().create_task(writer())
        queue.put_nowait(self.welcome(token, new))
        mine = [live for live in self.tables.values() if token in live.tokens]
        for live in mine:
            self.broadcast(live)
        try:
            while True:
                m = await websocket.receive()
                if m["type"] == "websocket.disconnect":
                    break
                text = m.get("text")
                if text is None:
                    text = m.get("bytes")
                for frame in self.handle(token, text):
                    queue.put_nowait(frame)
        finally:
            self.conns.get(token, set()).discard(queue)
            if not self.conns.get(token):
                self.conns.pop(token, None)
            # let the frames already queued go out, then stop the writer
            for _ in range(50):
                if queue.empty():
                    break
                await asyncio.sleep(0.01)
            wtask.cancel()
            for live in mine:
                self.broadcast(live)


def create_app(db: "str | Path", pool: Executor | None = None, workers: int | None = None,
               bot_pause: float = BOT_PAUSE, static: "str | Path | None" = None):
    """The Starlette application of ``dominoai serve`` over the SQLite file ``db``.

    :param pool: the executor bots think in (default: a process pool).
    :param workers: processes in the default pool (default: the CPU count).
    :param bot_pause: seconds before a bot's move is sent.
    :param static: the folder served at ``/`` (default: the package's).
    :returns: the application; its ``state.server`` is the :class:`Server`.
    """
    server = Server(db, pool=pool, workers=workers, bot_pause=bot_pause)

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
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app
