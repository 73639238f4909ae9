"""Helpers of the server's tests: ``dominoai serve`` in a thread, a
scripted guest, and the reference check of every frame against the stored
record. Imported by the test modules that need them (after their
``importorskip`` of the serve extra and websockets)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from websockets.sync.client import connect

from dominoai.records import match_from_record
from dominoai.tiles import Tile

TIMEOUT = 60.0
TILE_RX = re.compile(r"(?<![\d:])(\d):(\d)(?![\d:])")


# ---------------------------------------------------------------- a server in a thread
class Running:
    """``dominoai serve``'s app on uvicorn in a thread, on a free port of 127.0.0.1."""

    def __init__(self, db, pool=None, bot_pause=0.0, workers=None):
        import uvicorn

        from dominoai.serve.app import create_app
        self.db = db
        self.pool = ThreadPoolExecutor(1) if pool is None and workers is None else pool
        self.app = create_app(db, pool=self.pool, workers=workers, bot_pause=bot_pause)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on",
                                                    ws_max_size=1 << 16))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def state(self):
        return self.app.state.server

    def __enter__(self):
        warm_engine()
        self.thread.start()
        t0 = time.time()
        while not self.server.started:
            assert time.time() - t0 < 60, "the server did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(30)
        if isinstance(self.pool, ThreadPoolExecutor):
            self.pool.shutdown(wait=True)


def warm_engine() -> None:
    """Compile (or load from the cache) the kernels the server and the bots
    the tests seat call, before the server starts: a first compile while
    clients wait would make them time out on a cold cache."""
    from dominoai.bots import make_bot
    from dominoai.game import Match
    from dominoai.serve.app import warm_engine as warm_server
    warm_server()
    bots = [make_bot("easy", seed=1), make_bot("hard", seed=1)]
    h = Match("all_fives", seed=1).new_hand()
    while not h.over:
        for b in bots:
            b.act(h.observe(h.seat))
        h.play(h.legal_moves()[0])


class Client:
    """A scripted guest: a websocket, every frame it received, and its token."""

    def __init__(self, url: str, token: str | None = None):
        headers = {"Cookie": f"dominoai_guest={token}"} if token else None
        self.ws = connect(url, additional_headers=headers, open_timeout=TIMEOUT, max_size=1 << 22,
                          ping_interval=None).__enter__()     # closed by close()
        self.frames: list[dict] = []
        self.welcome = self.recv()
        assert self.welcome["type"] == "welcome"
        self.token = self.welcome.get("token", token)

    def recv(self, timeout: float = TIMEOUT) -> dict:
        f = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(f)
        return f

    def send(self, msg) -> None:
        self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    def until(self, pred, timeout: float = TIMEOUT) -> dict:
        """The first frame from now on for which ``pred`` is true."""
        end = time.time() + timeout
        while True:
            f = self.recv(max(0.01, end - time.time()))
            if pred(f):
                return f

    def request(self, msg) -> dict:
        """Send ``msg`` and return the next frame that is not a table update."""
        self.send(msg)
        return self.until(lambda f: f["type"] != "table")

    def resume(self, code: str) -> dict:
        """The table ``code`` as it stands (the answer to ``resume``)."""
        self.send({"type": "resume", "code": code})
        return self.until(lambda f: f["type"] == "table" and f["code"] == code)

    def close(self):
        self.ws.close()

    def play_on(self, code: str, hands: int = 1, until=None) -> dict:
        """Play the first legal move at every turn (and ask for the next hand)
        until ``hands`` hands are over or ``until(frame)``; the last frame."""
        done, acted, over_at = 0, -1, -1
        self.send({"type": "resume", "code": code})    # the table as it stands now
        while True:
            f = self.until(lambda f: f["type"] == "error" or f["type"] == "table" and f["code"] == code)
            assert f["type"] == "table", f
            if until is not None and until(f):
                return f
            if f["status"] in ("hand_over", "finished") and f["result"] is not None:
                if f["moves"] == over_at:
                    continue
                over_at = f["moves"]
                done += 1
                if done >= hands or f["status"] == "finished":
                    return f
                self.send({"type": "next", "code": code})
                continue
            h = f["hand"]
            if f["status"] == "playing" and h["your_turn"] and f["moves"] != acted:
                acted = f["moves"]      # one move per position, however many frames show it
                self.send(first_move(code, h))


def first_move(code: str, h: dict) -> dict:
    if h["legal"]:
        m = h["legal"][0]
        msg = {"type": "play", "code": code, "tile": m["tile"]}
        if m["ends"]:
            msg["end"] = m["ends"][0]
        return msg
    assert h["replace"], h
    return {"type": "play", "code": code, "replace": True}


# ---------------------------------------------------------------- the reference check
def stored_record(srv, code: str) -> dict:
    row = next(r for r in srv.state.store.tables() if r["code"] == code)
    return row["record"]


def observation_at(record: dict, hand: int, step: int, seat: int):
    """Seat ``seat``'s Observation after ``step`` events of hand ``hand``,
    replayed from the stored ``record`` (an independent path: the records
    module and the engine, not the server's view)."""
    rec = dict(record)
    rec.pop("play", None)
    hands = [dict(h) for h in rec["hands"][:hand + 1]]
    hands[-1]["moves"] = hands[-1]["moves"][:step]
    rec["hands"] = hands
    m = match_from_record(rec, seed=0)
    h = m.current
    return h, h.observe(seat)


def tiles_in(frame: dict) -> set:
    return {Tile.parse(f"{a}:{b}") for a, b in TILE_RX.findall(json.dumps(frame))}


def check_frames(frames: list[dict], record: dict) -> int:
    """Every ``table`` frame agrees with its seat's Observation and carries no
    tile that seat may not see. Returns the number of frames checked."""
    n = 0
    for f in frames:
        if f.get("type") != "table" or f["hand"] is None:
            continue
        seat, hv = f["seat"], f["hand"]
        hand, obs = observation_at(record, hv["index"], hv["step"], seat)
        assert sorted(map(Tile.parse, hv["tiles"])) == sorted(obs.hand), f
        assert hv["sizes"] == list(obs.hand_sizes)
        assert hv["boneyard"] == obs.boneyard_size
        assert hv["to_move"] == obs.to_move and hv["your_turn"] == obs.my_turn
        assert [(e["end"], e["pip"]) for e in hv["ends"]] == [
            (("left", "right", "up", "down")[k], p) for k, p, _ in obs.ends]
        assert {Tile.parse(m["tile"]) for m in hv["legal"]} == {m.tile for m in obs.legal_moves() if not m.replace}
        allowed = set(obs.hand) | set(obs.line)
        if f["result"] is not None:
            assert hand.over
            allowed |= {t for s in range(hand.rules.players) for t in hand.tiles(s)}
        else:
            assert not hand.over
        leaked = tiles_in(f) - allowed
        assert not leaked, f"seat {seat} was sent {sorted(map(str, leaked))}: {f}"
        bone_left = set(hand.boneyard) - {t for s in range(hand.rules.players) for t in hand.tiles(s)} \
            - set(hand.line)
        assert not (tiles_in(f) & bone_left), "a boneyard tile was sent"
        n += 1
    return n
