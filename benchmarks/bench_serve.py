"""A move's round trip on ``dominoai serve`` with many tables at once.

```bash
python benchmarks/bench_serve.py                         # 50 tables, draw for 4, easy bots
python benchmarks/bench_serve.py --tables 50 --hands 2 --level medium --out /tmp/serve.json
```

The server runs in its own process (``dominoai.serve.serve`` on a free
port of 127.0.0.1, a fresh database, ``--workers`` bot processes, the bots'
usual pause before each move). One asyncio client process opens
``--tables`` tables, each one scripted person alone against bots over its
own websocket, and plays ``--hands`` hands at every table at once, always
the first legal move, as soon as it is its turn.

Measured, for each of the person's moves: the round trip, from sending the
``play`` message to receiving the ``table`` frame that shows it played
(the server checks the move, plays it, writes the table to SQLite and
sends the frame). The bots' pause and thinking come after that frame, so
they are not in it; they are what keeps every table busy meanwhile.
Reported: moves timed, the median, the 95th percentile and the worst, in
milliseconds, against the goal (95th percentile <= 50 ms). The client
shares the machine with the server: on a busy machine the figures are
upper bounds.

A script, not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import args_record, print_table  # noqa: E402

GOAL_P95_MS = 50.0
ROOT = Path(__file__).resolve().parents[1]


def start_server(db: Path, workers: int, pause: float) -> tuple[subprocess.Popen, int]:
    code = ("import sys; from dominoai.serve import serve; "
            f"serve('127.0.0.1', 0, {str(db)!r}, workers={workers}, bot_pause={pause})")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    line = p.stdout.readline()
    if "http://127.0.0.1:" not in line:
        p.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return p, int(line.split("http://127.0.0.1:")[1].split("/")[0])


async def one_table(url: str, args, trips: list, errors: list) -> None:
    from websockets.asyncio.client import connect
    async with connect(url, max_size=1 << 22, ping_interval=None) as ws:
        async def recv():
            return json.loads(await asyncio.wait_for(ws.recv(), args.timeout))

        await recv()                                   # welcome
        await ws.send(json.dumps({"type": "open", "variant": args.variant, "players": args.players,
                                  "alone": True, "level": args.level}))
        code = None
        acted, sent_at, done, over_at = -1, None, 0, -1
        while done < args.hands:
            f = await recv()
            if f["type"] == "opened":
                code = f["code"]
                continue
            if f["type"] == "error":
                errors.append(f)
                return
            if f["type"] != "table" or f["code"] != code:
                continue
            if sent_at is not None and f["moves"] > acted:
                trips.append(time.perf_counter() - sent_at)
                sent_at = None
            if f["result"] is not None and f["status"] in ("hand_over", "finished"):
                if f["moves"] != over_at:
                    over_at = f["moves"]
                    done += 1
                    if f["status"] == "finished":
                        return
                    if done < args.hands:
                        await ws.send(json.dumps({"type": "next", "code": code}))
                continue
            h = f["hand"]
            if f["status"] == "playing" and h["your_turn"] and f["moves"] != acted and sent_at is None:
                acted = f["moves"]
                m = h["legal"][0] if h["legal"] else None
                msg = {"type": "play", "code": code}
                if m is None:
                    msg["replace"] = True
                else:
                    msg["tile"] = m["tile"]
                    if m["ends"]:
                        msg["end"] = m["ends"][0]
                sent_at = time.perf_counter()
                await ws.send(json.dumps(msg))


async def run_clients(port: int, args) -> tuple[list, list, float]:
    url = f"ws://127.0.0.1:{port}/ws"
    trips: list = []
    errors: list = []
    t0 = time.perf_counter()
    await asyncio.gather(*(one_table(url, args, trips, errors) for _ in range(args.tables)))
    return trips, errors, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=50, help="tables played at once (default 50)")
    ap.add_argument("--hands", type=int, default=2, help="hands per table (default 2)")
    ap.add_argument("--variant", default="draw", help="the preset (default draw)")
    ap.add_argument("--players", type=int, default=4, help="seats per table (default 4)")
    ap.add_argument("--level", default="easy", help="the bots' level (default easy)")
    ap.add_argument("--workers", type=int, default=2, help="bot processes of the server (default 2)")
    ap.add_argument("--pause", type=float, default=None, help="the bots' pause in seconds (default: the server's)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for any one frame")
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    from dominoai.serve.app import BOT_PAUSE, warm_engine
    warm_engine()      # compile the kernels into numba's cache before the server and its workers load them
    pause = BOT_PAUSE if args.pause is None else args.pause
    with tempfile.TemporaryDirectory() as d:
        server, port = start_server(Path(d) / "bench.sqlite3", args.workers, pause)
        try:
            time.sleep(1.0)
            trips, errors, wall = asyncio.run(run_clients(port, args))
        finally:
            server.terminate()
            server.wait(30)
    if not trips:
        raise SystemExit(f"no move was timed; errors: {errors[:3]}")
    ms = sorted(t * 1000 for t in trips)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    res = {"tables": args.tables, "moves": len(ms), "median_ms": round(statistics.median(ms), 2),
           "p95_ms": round(p95, 2), "max_ms": round(ms[-1], 2), "goal_p95_ms": GOAL_P95_MS,
           "met": p95 <= GOAL_P95_MS, "errors": len(errors), "wall_s": round(wall, 1), "pause_s": pause,
           "cpus": os.cpu_count(), "args": args_record(args)}
    print(f"dominoai serve: {args.tables} tables of {args.variant} for {args.players} against {args.level} bots, "
          f"{args.hands} hand(s) each, {args.workers} bot processes, pause {pause} s; {wall:.1f} s")
    print_table(["what", "moves", "median ms", "p95 ms", "max ms", "goal p95 ms", "met?"],
                [["move round trip", len(ms), f"{res['median_ms']:.1f}", f"{p95:.1f}", f"{ms[-1]:.1f}",
                  f"{GOAL_P95_MS:.0f}", "yes" if res["met"] else "no"]])
    if errors:
        print(f"errors: {len(errors)}, e.g. {errors[0]}")
    if args.out:
        args.out.write_text(json.dumps(res, indent=2) + "\n")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
