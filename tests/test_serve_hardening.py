"""``dominoai serve`` against hostile or careless clients.

One message's fault is an error frame, never a dropped connection (a
fuzzing run of thousands of generated messages over one connection); a
page of another origin cannot open a websocket; guests are stored only
once they act, at a capped rate per client address, and removed when idle;
a client that reads nothing is closed before its frames pile up; a
finished match's stats are written with the table; the command line names
the database when the database is what fails.

Most tests drive the application in-process through Starlette's
``TestClient`` (one event loop, no sockets); those about sockets (the
origin's HTTP 403, a client that stops reading) run it on uvicorn in a
thread, as ``dominoai serve`` does.
"""

from __future__ import annotations

import json
import logging
import socket
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest

pytest.importorskip("starlette", reason="dominoai serve needs starlette (the serve extra)")
pytest.importorskip("uvicorn", reason="dominoai serve needs uvicorn (the serve extra)")
pytest.importorskip("websockets", reason="the tests talk to the server with websockets")
pytest.importorskip("hypothesis", reason="the fuzzing test draws its messages with hypothesis")

import anyio  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from dominoai.serve.app import create_app  # noqa: E402
from dominoai.serve.protocol import MAX_DEPTH, MAX_MESSAGE, MESSAGE_TYPES  # noqa: E402

# the compiled kernels it needs (conftest.WARM_GROUPS): none compiles while a test
# waits for a frame (a compile holds the GIL, and the server's loop with it)
pytestmark = pytest.mark.kernels("search")

TIMEOUT = 60.0
COOKIE = "dominoai_guest"


# ---------------------------------------------------------------- in-process clients
def make_app(tmp_path, **kw):
    """The application over a fresh store, its bots thinking in one thread
    and moving at once."""
    kw.setdefault("pool", ThreadPoolExecutor(1))
    kw.setdefault("bot_pause", 0.0)
    return create_app(tmp_path / "serve.sqlite3", **kw)


def recv(ws, timeout: float = TIMEOUT) -> dict:
    """The next frame of a TestClient websocket, failing after ``timeout``
    seconds instead of waiting for ever."""
    async def get():
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()
    m = ws.portal.call(get)
    assert m["type"] == "websocket.send", m
    return json.loads(m["text"])


def until(ws, pred, timeout: float = TIMEOUT) -> dict:
    end = time.monotonic() + timeout
    while True:
        f = recv(ws, max(0.01, end - time.monotonic()))
        if pred(f):
            return f


def request(ws, msg) -> dict:
    """Send ``msg`` (text as is, bytes as a binary frame, else JSON) and
    return the next frame that is not a table update."""
    if isinstance(msg, bytes):
        ws.send_bytes(msg)
    else:
        ws.send_text(msg if isinstance(msg, str) else json.dumps(msg))
    return until(ws, lambda f: f["type"] != "table")


@contextmanager
def serving(app, **kw):
    """A TestClient of ``app`` (its lifespan run) that closes every
    websocket :func:`connect` opened before it stops, whatever happened."""
    with TestClient(app, **kw) as tc:
        tc.websockets = []
        try:
            yield tc
        finally:
            for ws in tc.websockets:
                try:
                    ws.__exit__(None, None, None)
                except Exception:      # closed already
                    pass


def connect(tc, token: str | None = None, **headers):
    """A websocket of ``tc`` (from :func:`serving`) and its welcome frame."""
    if token:
        headers["cookie"] = f"{COOKIE}={token}"
    ws = tc.websocket_connect("/ws", headers=headers).__enter__()
    tc.websockets.append(ws)
    welcome = recv(ws)
    assert welcome["type"] == "welcome", welcome
    return ws, welcome


def alone_at_my_turn(ws, variant: str = "block") -> tuple[str, dict]:
    """Open a table alone against easy bots; its code and the first frame
    where the guest is to move (nothing moves until the guest plays)."""
    code = request(ws, {"type": "open", "variant": variant, "alone": True, "level": "easy"})["code"]
    f = until(ws, lambda f: f["type"] == "table" and f["code"] == code and f["hand"]["your_turn"])
    return code, f


def first_move(code: str, h: dict) -> dict:
    m = h["legal"][0]
    return {"type": "play", "code": code, "tile": m["tile"], **({"end": m["ends"][0]} if m["ends"] else {})}


def guest_rows(db) -> dict:
    con = sqlite3.connect(db)
    try:
        return {t: (n, s) for t, n, s in con.execute("SELECT token, name, stats FROM guests")}
    finally:
        con.close()


def table_rows(db) -> list:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT code, guests, status, record, ready FROM tables ORDER BY id").fetchall()
    finally:
        con.close()


# ---------------------------------------------------------------- a server on a socket
class Running:
    """The application on uvicorn in a thread, on a free port of 127.0.0.1,
    configured as ``dominoai serve`` configures it."""

    def __init__(self, app):
        import uvicorn
        self.app = app
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", proxy_headers=False,
                                                    ws_max_size=4 * MAX_MESSAGE))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def __enter__(self):
        self.thread.start()
        end = time.monotonic() + 120
        while not self.server.started:
            assert time.monotonic() < end, "the server did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(30)


# ---------------------------------------------------------------- 1. a message never drops the connection
DEEP = "[" * 2000 + "]" * 2000                        # valid JSON, 4,000 bytes: under the size limit


def test_a_too_deep_message_or_a_lone_surrogate_gets_an_error_frame_and_changes_nothing(tmp_path):
    """2,000 levels of nesting (valid JSON under the size limit) and a name
    holding a lone surrogate, escaped or raw: each gets its error frame; the
    connection, the guest's other connection, the guest and the table are
    as they were."""
    db = tmp_path / "serve.sqlite3"
    with serving(make_app(tmp_path)) as tc:
        ws, welcome = connect(tc)
        token = welcome["token"]
        assert request(ws, {"type": "hello", "name": "Ann"})["name"] == "Ann"
        other, _ = connect(tc, token)
        code = request(ws, {"type": "open", "variant": "draw", "players": 2, "fill": False})["code"]
        before = until(ws, lambda f: f["type"] == "table" and f["code"] == code)
        until(other, lambda f: f["type"] == "table" and f["code"] == code)
        guests, tables = guest_rows(db), table_rows(db)
        cases = [(DEEP, "too_deep", None),
                 ('{"type": "open", "variant": ' + "[" * 1000 + "]" * 1000 + "}", "too_deep", None),
                 ('{"type":"hello","name":"\\ud800"}', "bad_unicode", "hello"),
                 ('{"type":"hello","name":"A\\udfffnn"}', "bad_unicode", "hello"),
                 ('{"type":"hello","name":"\ud800"}', "bad_unicode", "hello"),
                 ('{"\\udc00":1,"type":"lobby"}', "bad_unicode", "lobby")]
        for text, want, req in cases:
            assert len(text.encode("utf-8", "surrogatepass")) <= MAX_MESSAGE
            err = request(ws, text)
            assert err["type"] == "error" and err["error"] == want and err.get("request") == req, (text[:40], err)
            assert err["message"]
        assert request(ws, {"type": "hello"})["name"] == "Ann"               # the guest's name is kept
        other.send_text(json.dumps({"type": "resume", "code": code}))           # the other connection serves
        assert until(other, lambda f: f["type"] == "table") == before
        ws.send_text(json.dumps({"type": "resume", "code": code}))
        assert until(ws, lambda f: f["type"] == "table") == before
        assert guest_rows(db) == guests and table_rows(db) == tables
        other.send_text(json.dumps({"type": "leave", "code": code}))          # and both still act
        assert until(other, lambda f: f["type"] == "left")["code"] == code
        ws.send_text(json.dumps({"type": "join", "code": code, "seat": 1}))
        assert until(ws, lambda f: f["type"] == "table")["seat"] == 1
        ws.__exit__(None, None, None)
        other.__exit__(None, None, None)


def test_over_a_socket_a_deep_message_and_a_surrogate_keep_the_connection(tmp_path):
    """The same faults over a real websocket: an error frame each, and the
    connection goes on (no close code 1006)."""
    from websockets.sync.client import connect as ws_connect
    with Running(make_app(tmp_path)) as srv:
        with ws_connect(srv.url, open_timeout=TIMEOUT, ping_interval=None) as ws:
            assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "welcome"
            for text, want in ((DEEP, "too_deep"), ('{"type":"hello","name":"\\ud800"}', "bad_unicode")):
                ws.send(text)
                err = json.loads(ws.recv(timeout=TIMEOUT))
                assert err["type"] == "error" and err["error"] == want, err
            ws.send(json.dumps({"type": "hello", "name": "Bea"}))
            assert json.loads(ws.recv(timeout=TIMEOUT)) == {"type": "welcome", "name": "Bea", "tables": []}


def test_any_fault_in_handling_a_message_is_an_error_frame_and_a_log_line(tmp_path, monkeypatch, caplog):
    """A message the server itself fails on (here: the store refuses to
    write in the middle of a move) gets a ``server_error`` frame and a log
    line with the traceback; the table is as stored before the move, the
    connection serves on, and the move, sent again, is played."""
    from dominoai.serve.store import Store
    real = Store.save_table
    fail = {"on": True}

    def save_table(self, *args, **kw):
        if fail["on"]:
            raise sqlite3.OperationalError("disk I/O error")
        return real(self, *args, **kw)

    with serving(make_app(tmp_path)) as tc:
        ws, _ = connect(tc)
        code, before = alone_at_my_turn(ws)
        monkeypatch.setattr(Store, "save_table", save_table)
        move = first_move(code, before["hand"])
        with caplog.at_level(logging.ERROR, logger="dominoai.serve"):
            err = request(ws, move)
        assert err == {"type": "error", "error": "server_error", "request": "play",
                       "message": "the server failed on that message; nothing changed"}
        failed = [r for r in caplog.records if r.name == "dominoai.serve" and r.levelno == logging.ERROR]
        assert failed and failed[0].exc_info and "disk I/O error" in str(failed[0].exc_info[1])
        ws.send_text(json.dumps({"type": "resume", "code": code}))
        back = until(ws, lambda f: f["type"] == "table")
        assert back["moves"] == before["moves"] and back["hand"] == before["hand"]
        fail["on"] = False
        ws.send_text(json.dumps(move))
        after = until(ws, lambda f: f["type"] == "table" and f["moves"] > before["moves"])
        assert after["hand"]["events"][:len(before["hand"]["events"])] == before["hand"]["events"]
        assert after["hand"]["events"][len(before["hand"]["events"])]["seat"] == before["seat"]
        ws.__exit__(None, None, None)


# ---------------------------------------------------------------- the fuzzing run
# Every strategy is built once, here, and each message takes few choices
# (combinations are drawn as one): thousands of messages generate in seconds.
ALPHABET = st.characters(blacklist_categories=("Cs",))    # every character but the surrogates
_ODD = [None, True, False, 0, 1, -1, 7, 1000, 1001, -1001, 10**30, -(10**30), 0.5, 1.0, -0.0, 1e308,
        float("nan"), float("inf"), float("-inf"), "", " ", "6:4", "left", "draw", "\u00e9", "\U0001d11e",
        "\x00", "x" * 65]
_SCALARS = st.one_of(st.sampled_from(_ODD), st.integers(), st.text(ALPHABET, max_size=8))
JSON1 = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=3),
                  st.dictionaries(st.text(ALPHABET, max_size=4), _SCALARS, max_size=2))
_IS = {"str": lambda v: isinstance(v, str) and len(v) <= 64,
       "int": lambda v: isinstance(v, int) and not isinstance(v, bool) and -1000 <= v <= 1000,
       "bool": lambda v: isinstance(v, bool)}
#: per field kind, a JSON value that is not a good field of that kind: of
#: another kind (a bool is not an int, an int is not a bool) or out of bounds
_CONTAINERS = st.one_of(st.lists(_SCALARS, max_size=3),
                        st.dictionaries(st.text(ALPHABET, max_size=4), _SCALARS, max_size=2))
WRONG = {
    "str": st.one_of(st.sampled_from([v for v in _ODD if not _IS["str"](v)]), st.integers(), _CONTAINERS,
                     st.text(ALPHABET, min_size=65, max_size=80)),
    "int": st.one_of(st.sampled_from([v for v in _ODD if not _IS["int"](v)]), st.integers(min_value=1001),
                     st.integers(max_value=-1001), st.text(ALPHABET, max_size=8), _CONTAINERS),
    "bool": st.one_of(st.sampled_from([v for v in _ODD if not _IS["bool"](v)]), st.integers(),
                      st.text(ALPHABET, max_size=8), _CONTAINERS),
}
FIELDS = st.sampled_from([(t, f, k) for t, fields in MESSAGE_TYPES.items() for f, k in fields.items()])
CATEGORY = st.sampled_from(["depth", "size", "unicode", "types", "kinds", "shape", "noise"])
DEEP_FORM = st.sampled_from([(n, c, w) for n in (("[", "]"), ('{"k":', "}"), ('[{"a":', "}]"))
                             for c in ("1", "null", '"x"', "[]", "{}") for w in ("alone", "field", "type")])
SIZE_FORM = st.sampled_from([(c, f) for c in ("x", "\u00e9", "\u20ac", "\U0001d11e")
                             for f in ("name", "variant", "junk")])
LONE_FORM = st.sampled_from([(f, w, t, pre, post) for f in ("lower", "upper", "raw")
                             for w in ("value", "key", "type", "list") for t in MESSAGE_TYPES
                             for pre, post in (("", ""), ("a", ""), ("", "z"), ("ab ", " yz"))])
NOT_A_TYPE = st.one_of(st.text(ALPHABET, max_size=10), JSON1).filter(
    lambda t: not (isinstance(t, str) and t in MESSAGE_TYPES))
NOT_AN_OBJECT = st.one_of(_SCALARS, st.lists(JSON1, max_size=3))
NOISE = st.text(ALPHABET, max_size=60)


@st.composite
def hostile(draw) -> tuple:
    """One message a client should not send: ``(frame, errors, request)``
    where ``frame`` is text (or bytes: a binary frame), ``errors`` the error
    kinds it may get, ``request`` the type the error frame must name (None:
    any)."""
    kind = draw(CATEGORY)
    if kind == "depth":         # nested deeper than MAX_DEPTH, within MAX_MESSAGE bytes
        (opener, closer), core, where = draw(DEEP_FORM)
        depth = min(draw(st.integers(MAX_DEPTH + 1, 2000)), (MAX_MESSAGE - 40) // (len(opener) + len(closer)))
        nested = opener * depth + core + closer * depth
        text = nested if where == "alone" else \
            (f'{{"type":"open","variant":{nested}}}' if where == "field" else f'{{"type":{nested}}}')
        return text, {"too_deep"}, None
    if kind == "size":          # over MAX_MESSAGE bytes (not always characters), under 16 KiB
        ch, field = draw(SIZE_FORM)
        body = len(ch.encode())
        n = draw(st.integers(MAX_MESSAGE // body + 1, 16000 // body))
        return f'{{"type":"hello","{field}":"{ch * n}"}}', {"too_large"}, None
    if kind == "unicode":       # a lone surrogate, escaped or raw, in a value, a key, the type, a list
        form, where, typ, pre, post = draw(LONE_FORM)
        s = draw(st.integers(0xD800, 0xDFFF))
        bad = pre + (chr(s) if form == "raw" else (f"\\u{s:04x}" if form == "lower" else f"\\u{s:04X}")) + post
        text = {"value": f'{{"type":"{typ}","code":"{bad}"}}', "key": f'{{"type":"{typ}","{bad}":1}}',
                "type": f'{{"type":"{bad}"}}', "list": f'{{"type":"{typ}","seat":["{bad}"]}}'}[where]
        return text, {"bad_unicode"}, (None if where == "type" else typ)
    if kind == "types":         # a known type, one of its fields of the wrong kind or out of bounds
        typ, field, want = draw(FIELDS)
        return json.dumps({"type": typ, field: draw(WRONG[want])}), {"bad_field"}, typ
    if kind == "kinds":         # an unknown or missing type
        typ = draw(NOT_A_TYPE)
        msg = {"type": typ} if draw(st.booleans()) else {"kind": typ}
        named = "type" in msg and isinstance(typ, str)   # a string type the server does not know
        return json.dumps(msg), {"unknown_type"} if named else {"bad_message"}, None
    if kind == "shape":         # JSON that is not an object, as text or as a binary frame
        text = json.dumps(draw(NOT_AN_OBJECT))
        return (text if draw(st.booleans()) else text.encode()), {"bad_message"}, None
    return draw(NOISE), {"bad_json", "bad_message", "unknown_type", "too_deep"}, None


FUZZ_EXAMPLES, FUZZ_BATCH = 510, 10


def test_the_server_survives_thousands_of_hostile_messages_on_one_connection(tmp_path):
    """At least 5,000 generated messages (depth, size, unicode, field kinds,
    message types, shapes, noise) over one connection: each gets exactly
    one error frame of the documented kind, and afterwards a valid message
    still works and the table and the store are unchanged."""
    db = tmp_path / "serve.sqlite3"
    sent = []
    with serving(make_app(tmp_path)) as tc:
        ws, _ = connect(tc)
        code, before = alone_at_my_turn(ws)
        tables = table_rows(db)

        @settings(max_examples=FUZZ_EXAMPLES, suppress_health_check=list(HealthCheck),
                  phases=(Phase.explicit, Phase.generate))
        @given(st.lists(hostile(), min_size=FUZZ_BATCH, max_size=FUZZ_BATCH))
        def run(messages):
            for frame, errors, req in messages:
                if isinstance(frame, bytes):
                    ws.send_bytes(frame)
                else:
                    ws.send_text(frame)
                sent.append(frame)
                f = recv(ws)
                assert f["type"] == "error" and f["error"] in errors, (frame[:80], f)
                assert isinstance(f["message"], str) and "\n" not in f["message"]
                if req is not None:
                    assert f.get("request") == req, (frame[:80], f)

        run()
        assert len(sent) >= 5000
        ws.send_text(json.dumps({"type": "resume", "code": code}))
        assert until(ws, lambda f: f["type"] == "table") == before
        assert request(ws, {"type": "lobby"}) == {"type": "lobby", "tables": []}
        assert table_rows(db) == tables
        ws.send_text(json.dumps(first_move(code, before["hand"])))        # the table plays on
        assert until(ws, lambda f: f["type"] == "table" and f["moves"] > before["moves"])["code"] == code
        ws.__exit__(None, None, None)


# ---------------------------------------------------------------- 2. the origin
def test_a_websocket_from_another_origin_is_refused_even_with_a_valid_cookie(tmp_path):
    """By default only the server's own origin (or none: a script) is served;
    a page elsewhere is refused before the handshake, cookie or not."""
    with serving(make_app(tmp_path)) as tc:
        ws, welcome = connect(tc)
        token = welcome["token"]
        assert request(ws, {"type": "hello", "name": "Ann"})["name"] == "Ann"    # a stored guest
        ws.__exit__(None, None, None)
        for origin in ("http://evil.example", "null", "http://testserver.evil.example", "https://testserver",
                       "http://testserver:8080", "http://testserver/page"):
            with pytest.raises(WebSocketDisconnect) as e:
                connect(tc, token, origin=origin)
            assert e.value.code == 1008, origin
        for origin in ("http://testserver", "HTTP://TestServer:80", None):    # however written
            ws, welcome = connect(tc, token, **({"origin": origin} if origin else {}))
            assert welcome["name"] == "Ann", origin
            ws.__exit__(None, None, None)


def test_the_origins_a_deployment_names_are_served_too(tmp_path):
    with serving(make_app(tmp_path, origins=["https://Dominoes.Example.org:443/"])) as tc:
        for origin, served in (("https://dominoes.example.org", True), ("http://testserver", True),
                               ("https://dominoes.example.org:8443", False), ("http://dominoes.example.org", False),
                               ("http://evil.example", False)):
            if served:
                ws, welcome = connect(tc, origin=origin)
                assert welcome["type"] == "welcome"
                ws.__exit__(None, None, None)
            else:
                with pytest.raises(WebSocketDisconnect) as e:
                    connect(tc, origin=origin)
                assert e.value.code == 1008, origin


def test_over_a_socket_another_origin_gets_http_403(tmp_path):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect as ws_connect
    with Running(make_app(tmp_path)) as srv:
        with pytest.raises(InvalidStatus) as e:
            ws_connect(srv.url, origin="http://evil.example", open_timeout=TIMEOUT)
        assert e.value.response.status_code == 403
        own = f"http://127.0.0.1:{srv.port}"
        with ws_connect(srv.url, origin=own, open_timeout=TIMEOUT, ping_interval=None) as ws:
            assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "welcome"


def test_serve_takes_origins_and_trusted_proxies_and_refuses_bad_ones(tmp_path, monkeypatch, capsys):
    import dominoai.serve.app as app_module
    from dominoai.cli import main
    seen = {}

    def fake_create_app(db, **kw):
        seen.update(kw)
        raise KeyboardInterrupt     # as Ctrl-C right after the start: nothing is served
    monkeypatch.setattr(app_module, "create_app", fake_create_app)
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "a.db"), "--origin", "https://A.example",
                 "--origin", "http://b.example:8080", "--trusted-proxy", "127.0.0.1",
                 "--trusted-proxy", "10.1.0.0/16"]) == 0
    assert seen["origins"] == ["https://a.example", "http://b.example:8080"]
    assert seen["trusted_proxies"] == ["127.0.0.1", "10.1.0.0/16"]
    capsys.readouterr()
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "b.db"), "--origin", "evil.example/x"]) == 2
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "b.db"), "--trusted-proxy", "proxy.lan"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["dominoai: error: --origin: 'evil.example/x' is not an origin: scheme://host[:port], "
                   "e.g. https://dominoes.example.org",
                   "dominoai: error: --trusted-proxy: 'proxy.lan' is neither an IP address nor a network "
                   "(203.0.113.7, 10.0.0.0/8)"]
    assert not (tmp_path / "b.db").exists()


# ---------------------------------------------------------------- 3. bounded growth
def test_guests_are_stored_only_once_they_act_and_keep_their_cookie(tmp_path):
    """200 cookieless websockets and 200 GET /api/me store no guest; a
    guest's cookie and name stay the same until it acts, and it is stored
    when it opens a table, joins one or sets its name."""
    db = tmp_path / "serve.sqlite3"
    with serving(make_app(tmp_path)) as tc:
        tokens = []
        for _ in range(200):
            ws, welcome = connect(tc)
            tokens.append((welcome["token"], welcome["name"]))
            ws.__exit__(None, None, None)
        for _ in range(200):
            tc.cookies.clear()
            me = tc.get("/api/me")
            assert me.status_code == 200 and me.cookies.get(COOKIE)
        tc.cookies.clear()
        assert guest_rows(db) == {} and len({t for t, _ in tokens}) == 200
        server = tc.app.state.server
        assert server.names == {} and server.conns == {}           # nothing kept in memory either
        opener, named, joiner = tokens[:3]
        for token, name in (opener, named, joiner):                 # back with the cookie: the same guest
            ws, welcome = connect(tc, token)
            assert welcome == {"type": "welcome", "name": name, "tables": []}
            assert request(ws, {"type": "stats"}) == {"type": "stats", "stats": {}}
            ws.__exit__(None, None, None)
        tc.cookies.set(COOKIE, opener[0])
        me = tc.get("/api/me")
        assert me.json()["name"] == opener[1] and "set-cookie" not in me.headers
        tc.cookies.clear()
        assert guest_rows(db) == {}
        ws, _ = connect(tc, opener[0])
        code = request(ws, {"type": "open", "variant": "draw", "players": 3, "fill": False})["code"]
        assert guest_rows(db) == {opener[0]: (opener[1], "{}")}
        ws2, _ = connect(tc, named[0])
        assert request(ws2, {"type": "hello", "name": "Cy"})["name"] == "Cy"
        ws3, _ = connect(tc, joiner[0])
        ws3.send_text(json.dumps({"type": "join", "code": code}))
        assert until(ws3, lambda f: f["type"] == "table")["seat"] == 1
        assert guest_rows(db) == {opener[0]: (opener[1], "{}"), named[0]: ("Cy", "{}"),
                                  joiner[0]: (joiner[1], "{}")}
        for w in (ws, ws2, ws3):
            w.__exit__(None, None, None)


def test_new_guests_are_capped_per_address_and_minute(tmp_path):
    """30 new guests a minute from one address: the 31st is refused, and
    nothing is stored for it; so the 50 tables a guest may open bound the
    tables one address can open."""
    db = tmp_path / "serve.sqlite3"
    with serving(make_app(tmp_path), client=("203.0.113.5", 40000)) as tc:
        answers = []
        for _ in range(31):
            ws, _ = connect(tc)
            answers.append(request(ws, {"type": "open", "variant": "block"}))
            ws.__exit__(None, None, None)
        assert [a["type"] for a in answers] == ["opened"] * 30 + ["error"]
        assert answers[-1]["error"] == "too_many_guests" and answers[-1]["request"] == "open", answers[-1]
        assert len(guest_rows(db)) == 30 and len(table_rows(db)) == 30


def test_the_address_is_forwarded_only_by_a_trusted_proxy_and_the_cap_lasts_a_minute(tmp_path):
    """Behind a trusted proxy each client's address is the one
    X-Forwarded-For names, and each has its own cap; from any other client
    the header is ignored. A refused address may make guests again a
    minute after its first."""
    db = tmp_path / "serve.sqlite3"
    app = make_app(tmp_path, guests_per_minute=3, trusted_proxies=["198.51.100.7"])
    with serving(app, client=("198.51.100.7", 40000)) as tc:     # the proxy
        server = app.state.server
        now = [1000.0]
        server.clock = lambda: now[0]

        def newcomer(address: str) -> dict:
            ws, _ = connect(tc, **{"x-forwarded-for": f"192.0.2.200, {address}"})
            answer = request(ws, {"type": "open", "variant": "block"})
            ws.__exit__(None, None, None)
            return answer

        assert [newcomer("203.0.113.5")["type"] for _ in range(3)] == ["opened"] * 3
        err = newcomer("203.0.113.5")
        assert err["error"] == "too_many_guests" and err["request"] == "open", err
        assert err["message"] == "3 new guests came from this address in the last minute; try again in 60 s"
        assert len(guest_rows(db)) == 3 and len(table_rows(db)) == 3
        assert newcomer("203.0.113.6")["type"] == "opened"         # another client behind the proxy
        now[0] += 30
        assert newcomer("203.0.113.5")["error"] == "too_many_guests"
        now[0] += 31
        assert newcomer("203.0.113.5")["type"] == "opened"         # a minute later
        assert len(guest_rows(db)) == 5 and len(table_rows(db)) == 5
        # an IPv6 client has a whole /64 of addresses: it counts as one
        assert [newcomer(f"2001:db8:1::{i}")["type"] for i in (1, 2, 3, 4)] == ["opened"] * 3 + ["error"]
        assert newcomer("2001:db8:2::1")["type"] == "opened"
    app = create_app(tmp_path / "other.sqlite3", pool=ThreadPoolExecutor(1), bot_pause=0.0, guests_per_minute=2)
    with serving(app, client=("198.51.100.7", 40000)) as tc:     # no trusted proxy: the header is ignored
        answers = []
        for i in range(3):
            ws, _ = connect(tc, **{"x-forwarded-for": f"203.0.113.{10 + i}"})
            answers.append(request(ws, {"type": "hello", "name": f"P{i}"}))
            ws.__exit__(None, None, None)
        assert [a["type"] for a in answers] == ["welcome", "welcome", "error"]
        assert answers[2]["error"] == "too_many_guests" and answers[2]["request"] == "hello"
        assert sorted(n for n, _ in guest_rows(tmp_path / "other.sqlite3").values()) == ["P0", "P1"]


def test_idle_guests_without_a_seat_or_a_finished_game_are_removed(tmp_path):
    """A store written before guests had a last-seen time: at the start, the
    guests unseen for 30 days who sit at no table and finished no game are
    removed; one seated at a waiting table, one with a finished game and a
    recent one stay. A connected guest is never removed."""
    db = tmp_path / "serve.sqlite3"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE guests (token TEXT PRIMARY KEY, name TEXT NOT NULL, created REAL NOT NULL,
                             stats TEXT NOT NULL DEFAULT '{}');
        CREATE TABLE tables (id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT UNIQUE NOT NULL, created REAL NOT NULL,
                             settings TEXT NOT NULL, guests TEXT NOT NULL, status TEXT NOT NULL, record TEXT,
                             ready TEXT NOT NULL DEFAULT '[]', updated REAL NOT NULL);
        CREATE TABLE records (id INTEGER PRIMARY KEY AUTOINCREMENT, table_id INTEGER NOT NULL, hand INTEGER NOT NULL,
                              seats TEXT NOT NULL, record TEXT NOT NULL, created REAL NOT NULL,
                              UNIQUE (table_id, hand));
        PRAGMA user_version=1;
    """)
    now = time.time()
    old, recent = now - 40 * 86400, now - 86400
    idle, seated, finished, fresh = ("i" * 32, "s" * 32, "f" * 32, "r" * 32)
    con.executemany("INSERT INTO guests (token, name, created, stats) VALUES (?, ?, ?, ?)",
                    [(idle, "Idle", old, "{}"), (seated, "Seated", old, "{}"),
                     (finished, "Done", old, '{"block": {"easy": {"matches": 1}}}'), (fresh, "Fresh", recent, "{}")])
    settings_ = json.dumps({"variant": "draw", "players": 2, "level": "easy", "fill": False, "listed": False,
                            "alone": False, "target": None, "seed": 1})
    con.executemany("INSERT INTO tables (code, created, settings, guests, status, updated) VALUES (?, ?, ?, ?, ?, ?)",
                    [("waitingcode", old, settings_, json.dumps([seated, None]), "waiting", old),
                     ("finishedcode", old, settings_, json.dumps([finished, None]), "finished", old)])
    con.commit()
    con.close()
    with serving(make_app(tmp_path)) as tc:
        end = time.monotonic() + TIMEOUT
        while idle in guest_rows(db):
            assert time.monotonic() < end, "the idle guest was not removed"
            time.sleep(0.02)
        assert sorted(guest_rows(db)) == sorted([seated, finished, fresh])
        server = tc.app.state.server
        ws, welcome = connect(tc, fresh)                  # connected, and unseen for 40 days by then
        assert welcome["name"] == "Fresh"
        assert tc.portal.call(server.remove_idle_guests, now + 40 * 86400) == 0
        assert fresh in guest_rows(db)
        ws.__exit__(None, None, None)
        assert tc.portal.call(server.remove_idle_guests, now + 40 * 86400) == 1
        assert sorted(guest_rows(db)) == sorted([seated, finished])


def test_a_client_that_reads_nothing_is_closed_with_1008(tmp_path):
    """A client that sends and never reads: once its frames wait over the
    bound for the grace time, the server drops them and closes the
    connection; the client, reading again, gets its frames and then close
    code 1008."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect as ws_connect
    app = make_app(tmp_path)
    server = app.state.server
    server.send_queue, server.send_grace = 8, 0.3
    with Running(app) as srv:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)   # a small window: the server's sends block
        sock.connect(("127.0.0.1", srv.port))
        ws = ws_connect(srv.url, sock=sock, open_timeout=TIMEOUT, ping_interval=None, max_queue=2).__enter__()
        json.loads(ws.recv(timeout=TIMEOUT))
        code = None
        ws.send(json.dumps({"type": "open", "variant": "draw", "players": 4, "alone": True, "level": "easy"}))
        while code is None:
            f = json.loads(ws.recv(timeout=TIMEOUT))
            code = f.get("code") if f["type"] == "opened" else None
        conns = lambda: [c for cs in list(server.conns.values()) for c in cs]     # noqa: E731
        conn = conns()[0]
        sent, end = 0, time.monotonic() + 30
        while conns() and sent < 20000 and time.monotonic() < end:   # read nothing, ask again and again
            ws.send(json.dumps({"type": "resume", "code": code}))
            sent += 1
            if sent % 50 == 0:
                time.sleep(0.01)
        assert not conns(), f"not closed after {sent} messages"
        assert conn.behind.is_set() and conn.queue.qsize() == 0    # the frames waiting were dropped
        got = 0
        with pytest.raises(ConnectionClosed) as e:
            while True:
                ws.recv(timeout=TIMEOUT)
                got += 1
        assert e.value.rcvd is not None and e.value.rcvd.code == 1008, (got, e.value)
        end = time.monotonic() + TIMEOUT
        while conns():
            assert time.monotonic() < end
            time.sleep(0.01)


# ---------------------------------------------------------------- 5. one transaction
def test_a_finished_match_is_counted_in_the_transaction_that_stores_it(tmp_path, monkeypatch):
    """The moment the table is stored as finished, the guest's stats already
    count the match: a server killed right after that write keeps them."""
    from dominoai.serve.store import Store
    db = tmp_path / "serve.sqlite3"
    real = Store.save_table
    at_finish = []

    def save_table(self, code, guests, status, *args, **kw):
        real(self, code, guests, status, *args, **kw)
        if status == "finished":                # what a second connection sees right after the commit
            at_finish.append(guest_rows(db))
    monkeypatch.setattr(Store, "save_table", save_table)
    with serving(make_app(tmp_path)) as tc:
        ws, welcome = connect(tc)
        token = welcome["token"]
        code = request(ws, {"type": "open", "variant": "block", "alone": True, "level": "easy",
                            "target": 1})["code"]
        acted, over = -1, -1
        while True:
            f = until(ws, lambda f: f["type"] == "table" and f["code"] == code)
            if f["status"] == "finished":
                break
            if f["status"] == "hand_over" and f["moves"] != over:
                over = f["moves"]
                ws.send_text(json.dumps({"type": "next", "code": code}))
            elif f["status"] == "playing" and f["hand"]["your_turn"] and f["moves"] != acted:
                acted = f["moves"]
                ws.send_text(json.dumps(first_move(code, f["hand"])))
        ws.__exit__(None, None, None)
    assert len(at_finish) == 1
    stats = json.loads(at_finish[0][token][1])
    assert stats["block"]["easy"]["matches"] == 1 and stats["block"]["easy"]["hands"] == f["match"]["hands"]
    assert json.loads(guest_rows(db)[token][1]) == stats          # counted once


# ---------------------------------------------------------------- 9. the command line
def test_serve_names_the_database_when_it_cannot_be_opened(tmp_path, capsys):
    from dominoai.cli import main
    afile = tmp_path / "afile"
    afile.write_text("a file, not a folder\n")
    assert main(["serve", "--port", "0", "--db", str(afile / "x.sqlite3")]) == 2
    assert main(["serve", "--port", "0", "--db", str(afile / "deeper" / "x.sqlite3")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"dominoai: error: --db: cannot open the server database {afile / 'x.sqlite3'}: "
                   f"{afile} is a file, not a folder",
                   f"dominoai: error: --db: cannot open the server database {afile / 'deeper' / 'x.sqlite3'}: "
                   f"{afile} is a file, not a folder"]
    # a port that cannot be bound is still a listening error, and no database is made for it
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", str(tmp_path / "c.db")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"dominoai: error: cannot listen on 127.0.0.1:{port}: "), err
    assert not (tmp_path / "c.db").exists()


# ---------------------------------------------------------------- names, waiting tables, the lobby
def test_invisible_or_too_long_names_are_refused_with_the_rule(tmp_path):
    app = make_app(tmp_path)
    with serving(app) as tc:
        ws, _ = connect(tc)
        for name in ("\u200b", "\u202eevil", "a\u2028b", "x" * 30, "y" * 100):
            f = request(ws, {"type": "hello", "name": name})
            assert f["type"] == "error" and f["error"] == "bad_field", (name, f)
            assert "1 to 24 printable characters" in f["message"], (name, f)
        f = request(ws, {"type": "hello", "name": "Ana María"})
        assert f["type"] == "welcome" and f["name"] == "Ana María"
    assert [n for n, _ in guest_rows(tmp_path / "serve.sqlite3").values()] == ["Ana María"]


def test_a_message_without_a_string_type_is_a_bad_message(tmp_path):
    with serving(make_app(tmp_path)) as tc:
        ws, _ = connect(tc)
        for msg in ({"kind": "play"}, {"type": 5}, {"type": None}):
            f = request(ws, msg)
            assert (f["type"], f["error"]) == ("error", "bad_message"), (msg, f)
        assert request(ws, {"type": "dance"})["error"] == "unknown_type"


def test_play_or_next_at_a_table_not_started_says_so(tmp_path):
    with serving(make_app(tmp_path)) as tc:
        ws, _ = connect(tc)
        code = request(ws, {"type": "open", "variant": "block", "listed": True, "fill": False})["code"]
        for msg in ({"type": "play", "code": code, "tile": "x:y"}, {"type": "play", "code": code, "tile": "6:6",
                                                                      "end": "middle"},
                    {"type": "next", "code": code}):
            f = request(ws, msg)
            assert (f["type"], f["error"]) == ("error", "not_started"), (msg, f)
            assert "has not started" in f["message"]


def test_a_table_everyone_has_left_leaves_the_lobby(tmp_path):
    with serving(make_app(tmp_path)) as tc:
        host, _ = connect(tc)
        other, _ = connect(tc)
        code = request(host, {"type": "open", "variant": "block", "listed": True, "fill": False})["code"]
        listed = request(other, {"type": "lobby"})
        assert [t["code"] for t in listed["tables"]] == [code]
        request(host, {"type": "leave", "code": code})
        assert request(other, {"type": "lobby"})["tables"] == []


def test_export_into_a_path_through_a_file_names_the_reason(tmp_path, capsys):
    from dominoai.cli import main
    from dominoai.serve.store import Store
    db = tmp_path / "serve.sqlite3"
    Store(db).close()
    afile = tmp_path / "afile"
    afile.write_text("a file, not a folder\n")
    assert main(["serve", "--db", str(db), "--export", str(afile / "x")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"dominoai: error: --export: cannot write the records to {afile / 'x'}: not a directory "
                   f"({afile / 'x'})"], err
