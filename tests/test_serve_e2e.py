"""``dominoai serve`` end to end: bots in a real process pool under load, and
a server process killed mid-hand and started again on the same database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="dominoai serve needs starlette (the serve extra)")
pytest.importorskip("uvicorn", reason="dominoai serve needs uvicorn (the serve extra)")
pytest.importorskip("websockets", reason="the tests talk to the server with websockets")

from serving import Client, Running, check_frames, stored_record, warm_engine  # noqa: E402

from dominoai.records import replay  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TABLES = 20


@pytest.mark.e2e
def test_twenty_tables_with_bots_in_a_process_pool_lose_and_double_no_move(tmp_path):
    """20 tables, each one scripted person against three bots thinking in a
    two-process pool, all at once: no error frame, every move the person
    sent is in the record once, the frames' move counts never go back, and
    the records replay."""
    with Running(tmp_path / "serve.sqlite3", workers=2, bot_pause=0.02) as srv:
        assert isinstance(srv.state.pool, ProcessPoolExecutor)
        clients = [Client(srv.url) for _ in range(TABLES)]
        codes, errors = [], []

        def run(i):
            c = clients[i]
            try:
                code = c.request({"type": "open", "variant": "draw", "players": 4, "alone": True,
                                  "level": "easy"})["code"]
                codes.append((i, code))
                c.play_on(code, hands=1)
            except Exception as e:  # reported below, with the table
                errors.append((i, repr(e)))

        t0 = time.time()
        threads = [threading.Thread(target=run, args=(i,)) for i in range(TABLES)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(240)
        took = time.time() - t0
        assert not errors, errors
        assert took < 240, f"{TABLES} hands took {took:.0f} s"
        assert len(codes) == TABLES
        for i, code in codes:
            c = clients[i]
            assert not [f for f in c.frames if f["type"] == "error"], i
            mine = [f for f in c.frames if f["type"] == "table" and f["code"] == code]
            counts = [f["moves"] for f in mine]
            assert counts == sorted(counts), "a frame went back in the match"
            rec = stored_record(srv, code)
            res = replay(rec)
            assert res.hands[0]["end"] in ("domino", "blocked")
            plays = sum(1 for m in rec["hands"][0]["moves"] if "tile" in m)
            human = sum(1 for ev in res.match.hands[0].events if ev.kind == "play" and ev.seat == 0)
            acted = len({f["moves"] for f in mine if f["status"] == "playing" and f["hand"]["your_turn"]})
            assert human == acted, (human, acted)    # each move sent is in the record once
            assert plays == sum(1 for ev in res.match.hands[0].events if ev.kind == "play")
            assert check_frames(mine, rec) >= acted
        for c in clients:
            c.close()


def _start(db: Path, log: Path) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = open(log, "w")
    p = subprocess.Popen([sys.executable, "-m", "dominoai", "serve", "--port", "0", "--db", str(db),
                          "--workers", "1"], stdout=subprocess.PIPE, stderr=out, text=True, env=env, cwd=ROOT)
    line = p.stdout.readline()
    assert "http://127.0.0.1:" in line, (line, log.read_text())
    port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
    return p, f"ws://127.0.0.1:{port}/ws"


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc; none elsewhere)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


@pytest.mark.e2e
def test_a_server_killed_mid_hand_restarts_with_every_table_at_its_last_move(tmp_path):
    warm_engine()        # the engine's kernels compiled and cached before the server starts
    db = tmp_path / "serve.sqlite3"
    p, url = _start(db, tmp_path / "first.log")
    try:
        c = Client(url)
        waiting = c.request({"type": "open", "variant": "kozel", "fill": False, "listed": True})["code"]
        code = c.request({"type": "open", "variant": "draw", "alone": True, "level": "easy"})["code"]
        seen = c.play_on(code, until=lambda f: f["status"] == "playing" and f["hand"]["your_turn"]
                         and f["moves"] >= 4)
        c.close()
        workers = _children(p.pid)          # the bots' pool
    finally:
        p.send_signal(signal.SIGKILL)       # no shutdown: as a crash
        p.wait(30)
    # the pool's workers end by themselves when their server is gone
    assert workers or not Path("/proc").is_dir()
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [w for w in workers if Path(f"/proc/{w}").exists()], "a killed server's bot workers live on"
    p, url = _start(db, tmp_path / "second.log")
    try:
        c2 = Client(url, c.token)
        assert sorted(c2.welcome["tables"]) == sorted([waiting, code])
        back = c2.resume(code)
        assert back["hand"] == seen["hand"] and back["match"] == seen["match"] and back["moves"] == seen["moves"]
        assert c2.resume(waiting)["status"] == "waiting"
        assert waiting in {t["code"] for t in c2.request({"type": "lobby"})["tables"]}
        last = c2.play_on(code, hands=1)
        assert last["result"] is not None
        c2.close()
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
    assert "Traceback" not in (tmp_path / "second.log").read_text()
