"""``dominoai serve``: the server's guarantees, checked over real websockets.

The server runs in-process (uvicorn in a thread, on a free port), its bots
thinking in a one-thread pool so the tests stay small; the process pool
itself is exercised by tests/test_serve_e2e.py. Every ``table`` frame a
seat receives is checked against that seat's Observation, recomputed
independently by replaying the stored record up to the frame's move: no
other seat's tile before the hand ends, never the boneyard's tiles.
"""

from __future__ import annotations

import base64
import re
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

pytest.importorskip("starlette", reason="dominoai serve needs starlette (the serve extra)")
pytest.importorskip("uvicorn", reason="dominoai serve needs uvicorn (the serve extra)")
pytest.importorskip("websockets", reason="the tests talk to the server with websockets")

from dominoai.records import load_record, replay  # noqa: E402
from dominoai.rules import PRESETS, get_rules  # noqa: E402
from dominoai.tiles import Tile  # noqa: E402

from serving import TIMEOUT, Client, Running, check_frames, first_move, stored_record  # noqa: E402


@pytest.fixture
def server(tmp_path):
    with Running(tmp_path / "serve.sqlite3") as s:
        yield s


# ---------------------------------------------------------------- nothing hidden leaks
def test_no_hidden_tile_in_any_frame_in_every_preset(server):
    """A whole hand alone against bots in every preset; every frame checked."""
    c = Client(server.url)
    checked = 0
    for preset in PRESETS:
        opened = c.request({"type": "open", "variant": preset, "alone": True, "level": "easy"})
        assert opened["type"] == "opened", opened
        code = opened["code"]
        start = len(c.frames)
        last = c.play_on(code, hands=1)
        assert last["result"] is not None and last["status"] in ("hand_over", "finished")
        frames = [f for f in c.frames[start:] if f.get("code") == code]
        checked += check_frames(frames, stored_record(server, code))
        assert not [f for f in c.frames[start:] if f["type"] == "error"]
    assert checked >= 3 * len(PRESETS)
    c.close()


def test_two_friends_and_bots_see_only_their_own_tiles(server):
    """Kozel with two friends (seats 0 and 1) and bots: both seats' frames
    checked over a hand; each friend's partner bot plays hard."""
    a, b = Client(server.url), Client(server.url)
    code = a.request({"type": "open", "variant": "kozel", "level": "easy", "fill": True})["code"]
    b.send({"type": "join", "code": code})
    fa = a.until(lambda f: f["type"] == "table" and f["status"] == "playing")
    assert [s["bot"] for s in fa["seats"]] == [None, None, "hard", "hard"]
    assert fa["seat"] == 0 and [s["name"] for s in fa["seats"]][:2] == [a.welcome["name"], b.welcome["name"]]
    failed = []

    def run(cl):
        try:
            cl.play_on(code, hands=1)
        except BaseException as e:   # raised again below, in the test's own thread
            failed.append(e)
    tb = threading.Thread(target=run, args=(b,), daemon=True)
    tb.start()
    a.play_on(code, hands=1)
    tb.join(TIMEOUT)
    assert not tb.is_alive(), "seat 1 did not finish its hand"
    if failed:
        raise failed[0]
    rec = stored_record(server, code)
    assert check_frames(a.frames, rec) > 3 and check_frames(b.frames, rec) > 3
    a.close()
    b.close()


# ---------------------------------------------------------------- codes, seats, messages
def test_codes_carry_96_random_bits_and_unknown_codes_find_nothing(server):
    c = Client(server.url)
    codes = {c.request({"type": "open", "variant": "block", "listed": True})["code"] for _ in range(50)}
    assert len(codes) == 50
    assert c.request({"type": "open", "variant": "block"})["error"] == "too_many_tables"   # 50 at most
    for code in codes:
        raw = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        assert len(raw) * 8 >= 96
    lobby = c.request({"type": "lobby"})
    assert {t["code"] for t in lobby["tables"]} == codes
    for bad in ("A" * 16, "", "x"):
        err = c.request({"type": "join", "code": bad})
        assert err["type"] == "error" and err["error"] == "no_table"
    c.close()


def test_a_seat_is_refused_to_a_connection_that_does_not_hold_it(server):
    a, b, stranger = Client(server.url), Client(server.url), Client(server.url)
    code = a.request({"type": "open", "variant": "draw", "players": 3, "level": "easy"})["code"]
    b.send({"type": "join", "code": code})
    f = a.until(lambda f: f["type"] == "table" and f["status"] == "playing" and f["hand"]["to_move"] in (0, 1))
    moves = f["moves"]
    turn = f["hand"]["to_move"]           # a person's turn: nothing moves until they play
    holder, notholder = (a, b) if turn == 0 else (b, a)
    hand = f["hand"] if turn == 0 else \
        b.until(lambda f: f["type"] == "table" and f["moves"] == moves and f["hand"]["your_turn"])["hand"]
    msg = first_move(code, hand)
    for cl, extra in ((notholder, {"seat": turn}), (stranger, {}), (stranger, {"seat": turn})):
        err = cl.request({**msg, **extra})
        assert err["type"] == "error" and err["error"] == "not_your_seat", err
    err = notholder.request(msg)      # its own seat, not its turn
    assert err["error"] == "not_your_turn" and f"seat {turn}'s turn" in err["message"]
    err = stranger.request({"type": "resume", "code": code})
    assert err["error"] == "not_your_seat"
    err = stranger.request({"type": "join", "code": code})
    assert err["error"] == "started"
    assert holder.resume(code)["moves"] == moves
    for cl in (a, b, stranger):
        cl.close()


#: the deal of this seed gives the person, at their first turn, open ends and
#: tiles that fit neither (the bot leads; its moves follow from the seed too)
STUCK_SEED = 3


def test_bad_messages_get_an_error_frame_and_change_nothing(server, monkeypatch):
    import dominoai.serve.app as app_module
    monkeypatch.setattr(app_module, "fresh_seed", lambda: STUCK_SEED)
    c = Client(server.url)
    code = c.request({"type": "open", "variant": "block", "alone": True, "level": "easy"})["code"]
    f = c.until(lambda f: f["type"] == "table" and f["hand"]["your_turn"])
    before = f["hand"]
    rec = stored_record(server, code)
    bad = [("x" * 5000, "too_large"), ("{not json", "bad_json"), ("[1, 2]", "bad_message"),
           ('"play"', "bad_message"), ({"type": "dance"}, "unknown_type"), ({"kind": "play"}, "bad_message"),
           ({"type": "play", "code": code, "tile": 64}, "bad_field"),
           ({"type": "play", "code": code, "tile": "6:4", "hack": 1}, "bad_field"),
           ({"type": "play", "tile": "6:4"}, "bad_field"),
           ({"type": "open", "variant": "chess"}, "bad_field"),
           ({"type": "open", "variant": "fives", "players": 4}, "bad_field"),
           ({"type": "open", "level": "omniscient"}, "bad_field"),
           ({"type": "open", "variant": "kozel", "players": 3}, "bad_field"),
           ({"type": "open", "variant": "block", "colour": "red"}, "bad_field"),
           ({"type": "hello", "name": ""}, "bad_field"),
           ({"type": "play", "code": code, "tile": "9:9"}, "illegal_move"),
           ({"type": "next", "code": code}, "not_over")]
    for msg, want in bad:
        err = c.request(msg)
        assert err["type"] == "error" and err["error"] == want, (msg, err)
        assert err["message"]
        # a refused message of a known type names it, however it was refused
        if isinstance(msg, dict) and msg.get("type") in ("play", "open", "hello", "next"):
            assert err.get("request") == msg["type"], (msg, err)
    assert c.request({"type": "open", "variant": "kozel", "players": 3})["message"] == \
        "open: kozel takes exactly 4 players (got 3)"
    c.ws.send(b"\x00\x01binary")
    assert c.until(lambda f: f["type"] != "table")["error"] == "bad_message"
    # an illegal tile gets the reason the terminal game gives
    held = set(before["tiles"])
    legal = {m["tile"] for m in before["legal"]}
    not_held = next(str(Tile(i)) for i in range(28) if str(Tile(i)) not in held)
    err = c.request({"type": "play", "code": code, "tile": not_held})
    assert err["error"] == "illegal_move" and f"does not hold {not_held}" in err["message"]
    stuck = [t for t in before["tiles"] if t not in legal]
    assert stuck and before["ends"], before     # the seed's deal: a tile that fits no open end
    err = c.request({"type": "play", "code": code, "tile": stuck[0]})
    ends = ", ".join(f"{e['end']} {e['pip']}" for e in before["ends"])
    assert err["error"] == "illegal_move", err
    assert err["message"] == f"{stuck[0]} does not fit any open end (open: {ends})", err
    after = c.resume(code)
    assert after["hand"] == before
    assert stored_record(server, code) == rec
    c.close()


# ---------------------------------------------------------------- tables
def test_fill_with_bots_starts_when_a_second_person_sits(server):
    a, b = Client(server.url), Client(server.url)
    code = a.request({"type": "open", "variant": "draw", "players": 4, "level": "medium", "fill": True,
                      "listed": True})["code"]
    assert a.until(lambda f: f["type"] == "table")["status"] == "waiting"
    assert code in {t["code"] for t in b.request({"type": "lobby"})["tables"]}
    b.send({"type": "join", "code": code, "seat": 2})
    f = b.until(lambda f: f["type"] == "table" and f["status"] == "playing")
    assert f["seat"] == 2 and [s["bot"] for s in f["seats"]] == [None, "medium", None, "medium"]
    assert code not in {t["code"] for t in b.request({"type": "lobby"})["tables"]}
    # without "fill", a table waits for every seat
    code2 = a.request({"type": "open", "variant": "draw", "players": 3, "fill": False})["code"]
    # a seat the table does not have is a bad field, not a taken seat
    err = b.request({"type": "join", "code": code2, "seat": 5})
    assert (err["type"], err["error"], err["message"]) == ("error", "bad_field", "join: seat must be 0..2")
    b.send({"type": "join", "code": code2})
    assert b.until(lambda f: f["type"] == "table" and f["code"] == code2)["status"] == "waiting"
    for cl in (a, b):
        cl.close()


def test_http_gives_the_page_the_lobby_and_the_guest(server):
    import httpx
    base = f"http://127.0.0.1:{server.port}"
    page = httpx.get(base + "/", timeout=TIMEOUT)
    assert page.status_code == 200 and '<script src="page.js">' in page.text
    script = httpx.get(base + "/page.js", timeout=TIMEOUT)
    assert script.status_code == 200 and "new WebSocket(" in script.text
    presets = httpx.get(base + "/api/presets", timeout=TIMEOUT).json()
    assert [p["name"] for p in presets["presets"]] == list(PRESETS)
    assert presets["presets"][0] == {"name": "draw", "players": 2, "min_players": 2, "max_players": 4,
                                     "target": 100, "drawing": True, "end_scoring": "none"}
    assert presets["levels"] == ["easy", "medium", "hard", "insane"]
    tiles = httpx.get(base + "/api/tiles.svg", timeout=TIMEOUT)
    assert tiles.headers["content-type"].startswith("image/svg+xml")
    six = re.search(r'<g id="dai-p6"[^>]*>(.*?)</g>', tiles.text).group(1)
    assert six.count("<circle") == 6 and 'id="dai-face"' in tiles.text
    me = httpx.get(base + "/api/me", timeout=TIMEOUT)
    token = me.cookies.get("dominoai_guest")
    assert token and me.json()["tables"] == [] and "token" not in me.json()
    c = Client(server.url, token)                 # the page's websocket carries the cookie
    assert c.welcome["name"] == me.json()["name"] and "token" not in c.welcome
    code = c.request({"type": "open", "variant": "block", "listed": True})["code"]
    assert httpx.get(base + "/api/lobby", timeout=TIMEOUT).json()["tables"][0]["code"] == code
    again = httpx.get(base + "/api/me", cookies={"dominoai_guest": token}, timeout=TIMEOUT)
    assert again.json()["tables"] == [code] and "dominoai_guest" not in again.cookies
    c.close()


def test_reconnect_and_restart_give_the_seat_back_at_the_last_move(tmp_path):
    db = tmp_path / "serve.sqlite3"
    with Running(db) as srv:
        c = Client(srv.url)
        code = c.request({"type": "open", "variant": "draw", "alone": True, "level": "easy"})["code"]
        f = c.play_on(code, until=lambda f: f["hand"] and f["hand"]["your_turn"] and f["moves"] >= 3)
        c.close()
        c2 = Client(srv.url, c.token)           # the cookie: the same guest
        assert c2.welcome["tables"] == [code] and "token" not in c2.welcome
        g = c2.until(lambda x: x["type"] == "table")
        assert g["seat"] == f["seat"] and g["hand"] == f["hand"] and g["moves"] == f["moves"]
        c2.close()
    with Running(db) as srv:                  # a new server on the same database
        c3 = Client(srv.url, c.token)
        g = c3.until(lambda x: x["type"] == "table")
        assert g["hand"] == f["hand"] and g["match"] == f["match"]
        last = c3.play_on(code, hands=1)       # and the hand goes on to its end
        assert last["result"] is not None
        c3.close()


def test_records_are_kept_and_exported_for_replay(tmp_path):
    from dominoai.cli import main
    db = tmp_path / "serve.sqlite3"
    with Running(db) as srv:
        c = Client(srv.url)
        assert c.request({"type": "hello", "name": "Ann"})["name"] == "Ann"
        code = c.request({"type": "open", "variant": "kozel", "alone": True, "level": "easy"})["code"]
        c.play_on(code, hands=2)
        stats = c.request({"type": "stats"})
        assert stats["stats"] == {}            # the match is not over: nothing counted yet
        c.close()
        rows = srv.state.store.records()
    assert [r["hand"] for r in rows] == [0, 1]
    assert rows[0]["seats"] == ["Ann", "easy", "hard", "easy"]
    out = tmp_path / "out"
    assert main(["serve", "--db", str(db), "--export", str(out)]) == 0
    files = sorted(out.iterdir())
    assert len(files) == 1
    rec = load_record(files[0])
    assert list(rec.seats) == ["Ann", "easy", "hard", "easy"]
    assert len(rec.hands) == 2 and replay(rec).hands[1] is not None
    assert main(["serve", "--db", str(tmp_path / "none.db"), "--export", str(out)]) == 2


def test_a_finished_match_counts_in_the_guest_stats(server):
    c = Client(server.url)
    code = c.request({"type": "open", "variant": "block", "alone": True, "level": "easy", "target": 1})["code"]
    last = c.play_on(code, hands=30)
    assert last["status"] == "finished" and last["match"]["finished"]
    stats = c.request({"type": "stats"})["stats"]
    e = stats["block"]["easy"]
    won = last["match"]["winner"] == 0
    assert e["matches"] == 1 and e["wins"] == int(won) and e["hands"] == last["match"]["hands"]
    c.close()


# ---------------------------------------------------------------- the table model
def test_table_model_refuses_with_the_reason_and_keeps_kozel_partners_hard():
    from dominoai.table import Table, TableError, seat_specs
    assert seat_specs(get_rules("kozel"), [1], "medium") == ["medium", None, "medium", "hard"]
    assert seat_specs(get_rules("kozel"), [1], "insane") == ["insane", None, "insane", "insane"]
    t = Table.new("block", None, "easy", [0], seed=3, names=["Ann"])
    t.start_hand()
    h = t.hand
    wrong = 1 - h.seat
    with pytest.raises(TableError) as e:
        t.play(wrong, h.legal_moves()[0])
    assert e.value.code == "not_your_turn"
    not_held = next(x for x in map(Tile, range(28)) if x not in h.tiles(h.seat))
    with pytest.raises(TableError, match=f"does not hold {not_held}") as e:
        t.play(h.seat, str(not_held))
    assert e.value.code == "illegal_move" and t.step == 0
    t.play(h.seat, h.legal_moves()[0])
    rec = t.record()
    assert rec["seats"] == ["Ann", "easy"] and rec["play"]["names"] == ["Ann", "easy"]
    back = Table.from_record(rec)
    assert back.step == t.step == 1 and back.names() == ["Ann", "easy"] and back.people == [0]


def test_serve_command_refuses_bad_input_in_one_line(tmp_path, capsys):
    from dominoai.cli import main
    assert main(["serve", "--port", "70000", "--db", str(tmp_path / "a.db")]) == 2
    assert main(["serve", "--host", "256.0.0.1", "--port", "0", "--db", str(tmp_path / "b.db")]) == 2
    assert main(["serve", "--db", str(tmp_path / "none.db"), "--export", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("dominoai: error:") for line in err), err
    assert "65535" in err[0] and "cannot listen on 256.0.0.1" in err[1] and "no server database" in err[2]
    # a port below the range is worded as one above it
    assert main(["serve", "--port", "-1", "--db", str(tmp_path / "a.db")]) == 2
    assert capsys.readouterr().err == "dominoai: error: argument --port: must be at least 0 (got -1)\n"
    assert err[0] == "dominoai: error: argument --port: must be at most 65535 (got 70000)"
    assert not (tmp_path / "out").exists() and not (tmp_path / "b.db").exists()
    # a --db that is not the server's: a text file, another program's database
    text = tmp_path / "notes.sqlite3"
    text.write_text("not a database\n")
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE scores (x)")
    con.commit()
    con.close()
    before = {p.name: p.read_bytes() for p in (text, other)}
    assert main(["serve", "--port", "0", "--db", str(text)]) == 2
    assert main(["serve", "--db", str(text), "--export", str(tmp_path / "out")]) == 2
    assert main(["serve", "--port", "0", "--db", str(other)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("dominoai: error: --db: ") for line in err), err
    assert "is not a server database" in err[0] and "is not a server database" in err[1]
    assert "a SQLite database of something else (tables: scores)" in err[2]
    assert {p.name: p.read_bytes() for p in (text, other)} == before and not (tmp_path / "out").exists()


def test_the_documented_script_plays_a_hand(server):
    """The script of docs/serve.md, run as written against this server."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs" / "serve.md").read_text()
    code = re.search(r"### A script\n\n```python\n(.+?)```", text, re.S).group(1)
    assert "ws://127.0.0.1:8000/ws" in code
    scope: dict = {}
    exec(code.replace("ws://127.0.0.1:8000/ws", server.url).replace("print(", "len("), scope)
    f = scope["f"]
    assert f["type"] == "table" and f["status"] in ("hand_over", "finished")
    assert f["result"]["end"] in ("domino", "blocked")
    assert sum(1 for e in f["hand"]["events"] if e["kind"] == "play" and e["seat"] == 0) >= 1


def test_a_tile_that_fits_nowhere_is_refused_with_the_open_ends():
    from dominoai.table import Table, TableError
    t = Table.new("block", None, "easy", [0, 1], seed=1, names=["A", "B"], build_bots=False)
    h = t.start_hand()
    t.play(h.seat, h.legal_moves()[0])
    (left, lp, _), (right, rp, _) = h.ends
    stuck = next((x for x in h.tiles(h.seat) if lp not in (x.high, x.low) and rp not in (x.high, x.low)), None)
    assert stuck is not None       # the deal of seed 1 leaves the second player such a tile
    with pytest.raises(TableError) as e:
        t.play(h.seat, str(stuck))
    assert str(e.value) == f"{stuck} does not fit any open end (open: left {lp}, right {rp})"
    assert t.step == 1


def test_a_slow_bot_does_not_hold_up_another_table(tmp_path, monkeypatch):
    """While a bot at one table is still thinking, a whole hand is played at
    another: the server waits on the pool, never in its own loop. The slow
    bot thinks until the quick hand is over (at most 120 s): a server that
    waited for it would finish the quick hand only after it returned."""
    import dominoai.serve.app as app_module
    real = app_module.think
    release, returned = threading.Event(), []

    def think(spec, *args):
        if spec == "medium":
            release.wait(120.0)      # the slow table's bots (the pool runs them in threads here)
            returned.append(spec)
        return real(spec, *args)
    monkeypatch.setattr(app_module, "think", think)
    with Running(tmp_path / "serve.sqlite3", pool=ThreadPoolExecutor(2)) as srv:
        slow, quick = Client(srv.url), Client(srv.url)
        s_code = slow.request({"type": "open", "variant": "block", "alone": True, "level": "medium"})["code"]
        f = slow.resume(s_code)
        if f["hand"]["your_turn"]:
            slow.send(first_move(s_code, f["hand"]))
        slow.until(lambda x: x["type"] == "table" and not x["hand"]["your_turn"])   # a slow bot to move
        q_code = quick.request({"type": "open", "variant": "draw", "players": 4, "alone": True,
                                "level": "easy"})["code"]
        last = quick.play_on(q_code, hands=1)
        assert last["result"] is not None and last["hand"]["step"] > 8
        assert returned == [], "the quick table waited for the slow one"
        release.set()
        slow.close()
        quick.close()
