"""Start-up and first-run costs of the command line.

```bash
python benchmarks/bench_startup.py                  # warm cache: --help, replay --json, import
python benchmarks/bench_startup.py --cold           # + compile profile of the tournament warm-up
python benchmarks/bench_startup.py --cold --job 2000  # + the README's main job on an empty cache
```

Warm: each command is run ``--repeats`` times in a fresh interpreter
(``python -m dominoai ...``) after one untimed run that fills the cache;
reported are the median and best wall seconds and the median user+system
CPU seconds of the child (``resource.getrusage``), against the goals
(``--help`` <= 0.3 s, ``replay FILE --json`` <= 0.8 s). On a busy machine
the CPU figure is the steadier one.

Cold: with an empty numba cache (a fresh ``NUMBA_CACHE_DIR``), the warm-up
of the main job (one hand per bot: the engine, easy, medium, hard, insane on
Draw) is run in a child process with a listener on numba's compile events:
wall and CPU seconds per step, and per compiled function the number of
signatures and the *exclusive* wall and CPU seconds (its callees' compile
excluded), plus the functions compiled for more than one signature. The
warm-up's second process (``dominoai._compile.side_steps``) runs beside it
and its CPU seconds are printed apart; ``--alone`` leaves it out, so that
every function is in the table.
``--job N`` also runs ``dominoai tournament --variant draw --players 2 --bots
easy,medium,hard,insane --hands N --jobs -1`` on another empty cache and
reports its wall time, so the compile phase and the play can be told apart
(compare with the same command on the warm cache, also run).

A script, not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table  # noqa: E402

GOALS = {"--help": 0.3, "replay --json": 0.8}
MAIN_JOB = ["tournament", "--variant", "draw", "--players", "2", "--bots", "easy,medium,hard,insane",
            "--jobs", "-1", "--seed", "0", "--no-progress"]


def timed(argv: list[str], env=None) -> tuple[float, float, subprocess.CompletedProcess]:
    """Run ``argv``; wall seconds, child CPU seconds (user + system), the process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return wall, cpu, p


def warm(repeats: int) -> list[list]:
    from dominoai.game import Match
    from dominoai.records import dumps_record, record_from_match

    m = Match("block", seed=3)
    h = m.new_hand(leader=0)
    while not h.over:
        h.play(h.legal_moves()[0])
    rec = Path(tempfile.mkdtemp()) / "block.json"
    rec.write_text(dumps_record(record_from_match(m)))
    py = sys.executable
    cases = {"--help": [py, "-m", "dominoai", "--help"],
             "replay --json": [py, "-m", "dominoai", "replay", str(rec), "--json"],
             "import dominoai": [py, "-c", "import dominoai"],
             "python -c pass": [py, "-c", "pass"]}
    rows = []
    for name, argv in cases.items():
        timed(argv)  # fill the cache, warm the file system
        runs = [timed(argv)[:2] for _ in range(repeats)]
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        goal = GOALS.get(name)
        rows.append([name, f"{statistics.median(walls):.3f}", f"{min(walls):.3f}",
                     f"{statistics.median(cpus):.3f}", "-" if goal is None else f"{goal:.1f}",
                     "-" if goal is None else ("yes" if min(walls) <= goal else "no")])
    return rows


# ---------------------------------------------------------------- cold: compile profile (child)
def profile_child(preset: str, specs: list[str], side: bool) -> dict:
    """Run in a child with an empty cache: the warm-up steps under a listener
    on numba's compile events (with ``side``, the second process of the
    warm-up compiling its side steps meanwhile, as ``warm_up_tournament``
    does). Returns the figures as a dict."""
    from numba.core import event as ev

    from dominoai._compile import _SideProcess, side_steps, tournament_steps
    from dominoai.rules import get_rules

    stack: list = []
    excl_w, excl_c, count = defaultdict(float), defaultdict(float), defaultdict(int)
    sigs: dict = defaultdict(set)

    class Listener(ev.Listener):
        def on_start(self, event):
            d = event.data["dispatcher"]
            name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
            now = (time.perf_counter(), time.process_time())
            if stack:  # the caller's own time stops while a callee compiles
                excl_w[stack[-1][0]] += now[0] - stack[-1][1]
                excl_c[stack[-1][0]] += now[1] - stack[-1][2]
            stack.append([name, *now])
            count[name] += 1
            sigs[name].add(str(event.data["args"]))

        def on_end(self, event):
            now = (time.perf_counter(), time.process_time())
            name, w, c = stack.pop()
            excl_w[name] += now[0] - w
            excl_c[name] += now[1] - c
            if stack:
                stack[-1][1:] = now

    ev.register("numba:compile", Listener())
    rules = get_rules(preset, players=2)
    steps = []
    names = side_steps(specs) if side else []
    w00 = time.perf_counter()
    helper = _SideProcess(rules, names) if names else None
    for name, call in tournament_steps(rules, specs):
        w0, c0 = time.perf_counter(), time.process_time()
        call()
        steps.append([name, time.perf_counter() - w0, time.process_time() - c0])
    side_res = None
    if helper is not None:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        helper.wait()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        side_res = {"names": names, "wall_total": time.perf_counter() - w00,
                    "cpu": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)}
    funcs = [[n, count[n], excl_w[n], excl_c[n]] for n in excl_c]
    multi = {n: sorted(s) for n, s in sigs.items() if len(s) > 1 and n.startswith("dominoai")}
    return {"steps": steps, "functions": funcs, "multi": multi, "side": side_res}


def cold(preset: str, specs: list[str], top: int, side: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        wall, cpu, p = timed([sys.executable, __file__, "--profile-child", preset, ",".join(specs),
                              "side" if side else "alone"], env=env)
    res = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"\ncold warm-up of {preset} ({','.join(specs)}), empty cache: {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU (child, import included)")
    print_table(["step", "wall s", "cpu s"], [[n, f"{w:.2f}", f"{c:.2f}"] for n, w, c in res["steps"]])
    if res.get("side"):
        sd = res["side"]
        print(f"second process ({', '.join(sd['names'])}): {sd['cpu']:.2f} s CPU, not in the table "
              f"below; warm-up with it: {sd['wall_total']:.2f} s wall")
    print("\nthis process:" if res.get("side") else "")
    funcs = sorted(res["functions"], key=lambda r: -r[3])
    print_table(["function (exclusive compile)", "n", "wall s", "cpu s"],
                [[n, k, f"{w:.2f}", f"{c:.2f}"] for n, k, w, c in funcs[:top]])
    rest = funcs[top:]
    if rest:
        print(f"... {len(rest)} more functions, {sum(r[3] for r in rest):.2f} s CPU together")
    print(f"total: {sum(r[3] for r in funcs):.2f} s CPU compiling {len(funcs)} functions")
    if res["multi"]:
        print("\ncompiled for more than one signature:")
        for n, s in res["multi"].items():
            print(f"  {n}: {len(s)}")
            for sig in s:
                print(f"      {sig}")


def job(hands: int) -> None:
    argv = [sys.executable, "-m", "dominoai", *MAIN_JOB, "--hands", str(hands)]
    with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        w1, c1, p1 = timed(argv + ["--out", str(Path(out) / "cold.parquet")], env=env)
        w2, c2, _ = timed(argv + ["--out", str(Path(out) / "warm.parquet")], env=env)
    print(f"\nmain job, {hands} hands per pairing, --jobs -1:")
    print_table(["cache", "wall s", "cpu s (parent + reaped children)"],
                [["empty", f"{w1:.1f}", f"{c1:.1f}"], ["warm", f"{w2:.1f}", f"{c2:.1f}"]])
    print(f"compile phase (empty - warm): {w1 - w2:.1f} s wall")
    first = p1.stderr.splitlines()[:1]
    print(f"first line on stderr: {first[0] if first else '(none)'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7, help="timed runs per warm command (7)")
    ap.add_argument("--cold", action="store_true", help="also profile compilation on an empty cache")
    ap.add_argument("--preset", default="draw", help="preset of the cold profile (draw)")
    ap.add_argument("--bots", default="easy,medium,hard,insane", help="bots of the cold profile")
    ap.add_argument("--top", type=int, default=25, help="functions listed in the profile (25)")
    ap.add_argument("--job", type=int, metavar="HANDS", help="also time the main job, cold and warm")
    ap.add_argument("--skip-warm", action="store_true", help="skip the warm start-up timings")
    ap.add_argument("--alone", action="store_true",
                    help="cold profile without the warm-up's second process (every function here)")
    ap.add_argument("--profile-child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.profile_child:
        print(json.dumps(profile_child(a.profile_child[0], a.profile_child[1].split(","),
                                       a.profile_child[2] == "side")))
        return 0
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not a.skip_warm:
        print_table(["warm cache", "median s", "best s", "cpu s", "goal s", "met?"], warm(a.repeats))
    if a.cold:
        cold(a.preset, a.bots.split(","), a.top, not a.alone)
    if a.job:
        job(a.job)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
