#!/usr/bin/env python
"""Random-playout throughput of the engine, per preset, on one core.

For every preset (``dominoai.preset_names()``, or ``--presets``) it measures
random hands per second of:

- the engine's batch playout: ``dominoai.engine.fast.simulate_fast`` when that
  module exists, else ``dominoai.engine.kernels.simulate`` (``--playout``
  forces one); a warm-up call first so numba compilation is excluded, then the
  best of ``--repeats`` timed calls of ``--hands`` hands each. The ``loop``
  column names the loop ``simulate_fast`` runs for the preset (``pair``: its
  own loop for two seats of Block's shape; ``block2``, ``line``,
  ``spinner``: ``fast.playout_path``'s fused loops; ``kernels``: the generic
  fallback);
- the plain-Python reference (``tests/reference.py`` ``RefMatch``, uniformly
  random legal moves; ``--ref-hands`` hands, best of ``--repeats``);
- OpenSpiel's ``python_block_dominoes`` / ``python_team_dominoes`` (random
  games, chance outcomes included) for the ``openspiel_*`` presets, when
  ``open_spiel`` is installed (``--os-games`` games, best of ``--repeats``).

A "hand" is the same unit everywhere: shuffle and deal, lead, random legal
moves to the end of the hand (forced draws and passes included).

With ``--prototype PATH`` (a single-purpose numba prototype of random Block
playouts for two seats: a ``sol.py`` exposing ``build``, ``rb_xs``,
``kth_loop``, ``kth_pdep`` and ``seeds``, or the folder holding it) it
also compares, on Block for two players and in the same process, the
engine with that prototype: hands per CPU second of the prototype's serial
loop, its interleaved loop (``--lanes`` hands at a time), the engine's
serial loop (``simulate_fast``), its interleaved one (``simulate_lanes``
with ``--lanes`` seeds) and ``dominoai simulate``'s own loop
(``run_simulation``), in rounds that alternate them, with each round's
ratio to the prototype's serial loop.

It prints a table and writes everything to ``--out`` as JSON. See
``benchmarks/README.md``.

Usage::

    python benchmarks/bench_engine.py
    python benchmarks/bench_engine.py --hands 2000000 --presets block draw
    python benchmarks/bench_engine.py --presets block --prototype path/to/sol.py
"""

from __future__ import annotations

import os as _os
import sys as _sys

_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))  # benchmarks/_common.py
from _common import args_record, pin_one_core, print_table as print_rows, write_json  # noqa: E402

import argparse
import datetime as _dt
import importlib
import importlib.util
import os
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_OUT = HERE / "results" / "engine.json"

# hands/s targets (engine, one core); every preset not listed: DEFAULT_TARGET
TARGETS = {"block": 4_000_000, "draw": 1_800_000}
DEFAULT_TARGET = 1_000_000

OPENSPIEL_GAMES = {"openspiel_block": "python_block_dominoes", "openspiel_team": "python_team_dominoes"}


# ---------------------------------------------------------------- setup




def pick_playout(choice: str):
    """``(function, name, note)`` of the batch playout to benchmark."""
    from dominoai.engine import kernels

    note = ""
    if choice in ("auto", "fast"):
        if importlib.util.find_spec("dominoai.engine.fast") is not None:
            try:
                fast = importlib.import_module("dominoai.engine.fast")
                return fast.simulate_fast, "dominoai.engine.fast.simulate_fast", note
            except Exception as e:  # exists but broken: say so, loudly
                note = f"dominoai.engine.fast exists but failed to import ({type(e).__name__}: {e})"
                if choice == "fast":
                    raise SystemExit(note)
        elif choice == "fast":
            raise SystemExit("--playout fast: dominoai.engine.fast does not exist")
        else:
            note = "dominoai.engine.fast not found"
    return kernels.simulate, "dominoai.engine.kernels.simulate", note


def loop_name(sim_name: str, rv) -> str:
    """The loop that plays ``rv``: ``pair`` (``fast.in_pair_shape``),
    ``fast.playout_path``'s choice, or ``kernels``."""
    if not sim_name.startswith("dominoai.engine.fast"):
        return "kernels"
    from dominoai.engine import fast

    if getattr(fast, "in_pair_shape", None) is not None and fast.in_pair_shape(rv):
        return "pair"

    names = {getattr(fast, f"PATH_{k.upper()}", None): k for k in ("block2", "line", "spinner", "kernels")}
    path = getattr(fast, "playout_path", None)
    return names.get(int(path(rv)), "?") if path is not None else "fused"


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# ---------------------------------------------------------------- measurements
def bench_engine(sim, rules, n_hands: int, repeats: int, seed: int) -> dict:
    rv = rules.vector()
    warm = np.zeros(16, np.int64)
    sim(rv, seed, 1000, warm)  # compile (or load from cache) and warm up
    times, cpu = [], []
    stats = None
    for r in range(repeats):
        stats = np.zeros(16, np.int64)
        c0 = time.process_time()
        t0 = time.perf_counter()
        sim(rv, seed + 1 + r, n_hands, stats)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    ended = int(stats[4] + stats[5] + stats[6])
    if ended != n_hands:
        raise RuntimeError(f"{rules.preset}: the playout reported {ended} hand ends for {n_hands} hands")
    best = min(range(repeats), key=times.__getitem__)
    return {
        "hands": n_hands,
        "seconds": times,
        "cpu_seconds": cpu,
        "hands_per_s": n_hands / times[best],
        # CPU time / wall time of the best repeat: well below 1 means another
        # process shared the core and the wall-clock rate is pessimistic
        "cpu_share": cpu[best] / times[best],
        "moves_per_hand": float(stats[12]) / n_hands,
        "domino_share": float(stats[4]) / n_hands,
        "blocked_share": float(stats[5]) / n_hands,
    }


def _ref_hand(RefMatch, preset: str, rng: random.Random) -> None:
    m = RefMatch(preset)
    c = m.cfg
    tiles = list(range(28))
    rng.shuffle(tiles)
    hs = c.hand_size
    deal = [tiles[i * hs:(i + 1) * hs] for i in range(c.players)]
    leader = rng.randrange(c.players) if c.first_lead == "lot" else None
    m.new_hand(deal, tiles[c.players * hs:], leader)
    while not m.hand_over():
        moves = sorted(m.legal_moves())
        m.play(moves[rng.randrange(len(moves))])


def bench_reference(preset: str, n_hands: int, repeats: int, seed: int) -> dict:
    sys.path.insert(0, str(REPO / "tests"))
    try:
        from reference import RefMatch
    finally:
        sys.path.pop(0)
    times = []
    for r in range(repeats):
        rng = random.Random(seed + r)
        t0 = time.perf_counter()
        for _ in range(n_hands):
            _ref_hand(RefMatch, preset, rng)
        times.append(time.perf_counter() - t0)
    return {"hands": n_hands, "seconds": times, "hands_per_s": n_hands / min(times)}


def bench_openspiel(game_name: str, n_games: int, repeats: int, seed: int) -> dict:
    import pyspiel
    from open_spiel.python import games  # noqa: F401  (registers the python games)

    game = pyspiel.load_game(game_name)
    times = []
    for r in range(repeats):
        rng = random.Random(seed + r)
        t0 = time.perf_counter()
        for _ in range(n_games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
        times.append(time.perf_counter() - t0)
    return {"game": game_name, "hands": n_games, "seconds": times, "hands_per_s": n_games / min(times)}


def load_prototype(path: Path):
    """The prototype module ``sol.py`` at ``path`` (the file or its folder).

    :raises ValueError: no such file, or it lacks a name the comparison calls.
    """
    f = path / "sol.py" if path.is_dir() else path
    if not f.is_file():
        raise ValueError(f"--prototype: no sol.py at {path}")
    spec = importlib.util.spec_from_file_location("prototype_sol", f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name in ("build", "rb_xs", "kth_loop", "kth_pdep", "seeds"):
        if not hasattr(mod, name):
            raise ValueError(f"--prototype: {f} has no {name}")
    return mod


def _part_kernels():
    """numba kernels timing parts of a Block hand alone (compiled on first use):
    the general loop's deal, its deal and hand end, the pair loop's deal."""
    from numba import njit

    from dominoai.engine import block2 as B
    from dominoai.engine import kernels as K
    from dominoai.engine import layout as L
    from dominoai.engine.rng import below
    from dominoai.tiles import N_TILES

    @njit(cache=True)
    def general_deal(rv, seed, n, end, stats):
        # what _simulate_fused does around a hand's playout: the match fields,
        # deal_perm, start_hand, and with ``end`` finish_hand (blocked) and tally
        st = np.zeros(L.S_SIZE, np.int64)
        perm = np.zeros(N_TILES, np.int64)
        rs = np.zeros(1, np.uint64)
        rs[0] = np.uint64(seed)
        K.new_match(st, rv)
        st[L.S_LOG] = 0
        acc = 0
        k = rv[L.R_PLAYERS] * rv[L.R_HAND_SIZE]
        for _ in range(n):
            for s in range(4):
                st[L.S_SCORE + s] = 0
                st[L.S_REPL + s] = 0
            st[L.S_HAND_NO] = 0
            st[L.S_CARRY] = 0
            st[L.S_MATCH_OVER] = 0
            st[L.S_MATCH_WINNER] = -1
            K.deal_perm(rs, perm, k)
            K.start_hand(st, rv, perm, K.rng_below(rs, 2))
            if end:
                K.finish_hand(st, rv, np.int64(L.ST_BLOCKED))
                K.tally(st, stats)
            acc ^= st[L.S_HAND] ^ st[L.S_HAND + 1]
        return acc

    @njit(cache=True)
    def pair_deal(rv, seed, n):
        # seven tiles a hand as a constant, as the pair loop has it
        assert rv[L.R_HAND_SIZE] == 7
        perm = np.empty(N_TILES, np.int64)
        s = np.uint64(seed)
        acc = 0
        for _ in range(n):
            s, h0, h1 = B.deal_pair(s, perm, 7)
            s, lot = below(s, 2)
            acc ^= h0 ^ h1 ^ lot
        return acc

    return general_deal, pair_deal


def bench_parts(sol, n_hands: int, repeats: int, seed: int) -> dict:
    """ns of CPU per Block hand of the deal alone (the general loop's, the
    pair loop's, the prototype's) and of the general loop's deal with the
    hand's end and statistics; best of ``repeats``."""
    from dominoai import get_rules

    rv = get_rules("block", players=2).vector()
    general_deal, pair_deal = _part_kernels()
    proto_deal = sol.build(sol.rb_xs, sol.kth_loop)["deal_only"]
    stats = np.zeros(16, np.int64)
    calls = {
        "general_deal": lambda r: general_deal(rv, seed + r, n_hands, False, stats),
        "general_deal_and_end": lambda r: general_deal(rv, seed + r, n_hands, True, stats),
        "pair_deal": lambda r: pair_deal(rv, seed + r, n_hands),
        "prototype_deal": lambda r: proto_deal(n_hands, sol.seeds(1, 7 + r)[0]),
    }
    general_deal(rv, 0, 10, True, stats)
    pair_deal(rv, 0, 10)
    proto_deal(10, sol.seeds(1)[0])
    out = {k: [] for k in calls}
    for r in range(repeats):
        for k, f in calls.items():
            c0 = time.process_time()
            f(r)
            out[k].append((time.process_time() - c0) / n_hands * 1e9)
    return {k: {"ns_per_hand": v, "best": min(v)} for k, v in out.items()}


def bench_yardstick(sol, n_hands: int, repeats: int, lanes: int, seed: int) -> dict:
    """Block, two players: hands per CPU second of the prototype's serial
    and interleaved loops and of the engine's serial loop, general fused
    loop, interleaved loop and ``run_simulation``, ``repeats`` rounds alternating them (each call
    warmed up first). Per round, each rate's ratio to the prototype's
    serial rate of that round."""
    from dominoai import get_rules
    from dominoai.engine import fast
    from dominoai.simulate import run_simulation

    rules = get_rules("block", players=2)
    rv = rules.vector()
    serial = sol.build(sol.rb_xs, sol.kth_loop)["run_serial"]
    inter = sol.build(sol.rb_xs, sol.kth_pdep, FAST=True)["run_interleaved"]
    path = fast.playout_path(rv)
    per = -(-n_hands // lanes)
    counts = np.full(lanes, per, np.int64)

    def lane_seeds(r):
        return np.array([seed + 1000 * r + j for j in range(lanes)], np.uint64)

    calls = {
        "prototype_serial": lambda r: serial(n_hands, sol.seeds(1, 100 + r)[0], False),
        "prototype_interleaved": lambda r: inter(n_hands, sol.seeds(lanes, 500 + r), False),
        "engine_serial": lambda r: fast.simulate_fast(rv, seed + r, n_hands, np.zeros(16, np.int64)),
        "engine_general": lambda r: fast._simulate_fused(rv, seed + r, n_hands, np.zeros(16, np.int64), path),
        "engine_interleaved": lambda r: fast.simulate_lanes(rv, lane_seeds(r), counts, np.zeros(16, np.int64)),
        "engine_one_lane": lambda r: fast.simulate_lanes(rv, lane_seeds(r)[:1], np.array([n_hands], np.int64),
                                                         np.zeros(16, np.int64)),
        "simulate_command": lambda r: run_simulation(rules, n_hands, seed + r),
    }
    hands = {k: (per * lanes if k == "engine_interleaved" else n_hands) for k in calls}
    serial(1000, sol.seeds(1)[0], False)
    inter(1000, sol.seeds(lanes), False)
    fast.simulate_fast(rv, 0, 1000, np.zeros(16, np.int64))
    fast._simulate_fused(rv, 0, 1000, np.zeros(16, np.int64), path)
    fast.simulate_lanes(rv, lane_seeds(0), np.full(lanes, 100, np.int64), np.zeros(16, np.int64))
    run_simulation(rules, 1000, 0)
    rates = {k: [] for k in calls}
    for r in range(repeats):
        for k, f in calls.items():
            c0 = time.process_time()
            f(r)
            rates[k].append(hands[k] / (time.process_time() - c0))
    base = rates["prototype_serial"]
    out = {"preset": "block", "players": 2, "hands": n_hands, "lanes": lanes, "rounds": repeats, "rows": {},
           "parts": bench_parts(sol, n_hands, repeats, seed)}
    for k, v in rates.items():
        ratios = [x / b for x, b in zip(v, base)]
        out["rows"][k] = {"hands_per_cpu_s": v, "best": max(v), "ratio_to_prototype_serial": ratios,
                          "ratio_of_bests": max(v) / max(base)}
    return out


def print_yardstick(y: dict) -> None:
    print(f"\nBlock, 2 players, against the prototype: hands per CPU second, {y['rounds']} rounds of "
          f"{y['hands']:,} hands, {y['lanes']} lanes where interleaved")
    body = []
    for k, r in y["rows"].items():
        rs = r["ratio_to_prototype_serial"]
        body.append([k, _fmt_rate(r["best"]), " ".join(_fmt_rate(x) for x in r["hands_per_cpu_s"]),
                     f"{r['ratio_of_bests']:.2f}", f"{min(rs):.2f}-{max(rs):.2f}"])
    print_rows(["loop", "best h/cpu-s", "per round", "best/best", "per-round ratio"], body)
    print("\nparts of a hand alone, ns of CPU per hand")
    print_rows(["part", "best", "per round"],
               [[k, f"{p['best']:.1f}", " ".join(f"{x:.1f}" for x in p["ns_per_hand"])]
                for k, p in y["parts"].items()])


# ---------------------------------------------------------------- output
def _fmt_rate(x) -> str:
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def _fmt_ratio(x) -> str:
    return "-" if x is None else f"{x:,.0f}x"


def print_table(rows: list[dict]) -> None:
    head = ["preset", "loop", "engine h/s", "reference h/s", "openspiel h/s", "eng/ref", "eng/os",
            "target h/s", "met?", "moves/hand"]
    body = []
    for r in rows:
        body.append([
            r["preset"], r.get("loop", "-"), _fmt_rate(r["engine_hands_per_s"]), _fmt_rate(r["reference_hands_per_s"]),
            _fmt_rate(r["openspiel_hands_per_s"]), _fmt_ratio(r["speedup_vs_reference"]),
            _fmt_ratio(r["speedup_vs_openspiel"]), _fmt_rate(r["target_hands_per_s"]),
            "yes" if r["target_met"] else "NO", f"{r['moves_per_hand']:.2f}",
        ])
    print_rows(head, body)


def main(argv=None) -> int:
    import dominoai
    from dominoai import get_rules

    names = dominoai.preset_names()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=1_000_000,
                    help="engine hands per timed repeat (default 1,000,000)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help="JSON results path (default benchmarks/results/engine.json)")
    ap.add_argument("--presets", nargs="+", default=None, metavar="PRESET",
                    help=f"presets to run, space- or comma-separated (default all: {', '.join(names)})")
    ap.add_argument("--repeats", type=int, default=3, help="timed repeats; the best counts (default 3)")
    ap.add_argument("--ref-hands", type=int, default=2_000,
                    help="reference hands per repeat (default 2,000; 0 skips the reference)")
    ap.add_argument("--os-games", type=int, default=2_000,
                    help="OpenSpiel games per repeat (default 2,000; 0 skips OpenSpiel)")
    ap.add_argument("--playout", choices=("auto", "fast", "kernels"), default="auto",
                    help="auto: fast.simulate_fast if dominoai/engine/fast.py exists, else kernels.simulate")
    ap.add_argument("--core", type=int, default=None, help="CPU to pin to (default: the last allowed one)")
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--prototype", type=Path, default=None, metavar="PATH",
                    help="a prototype's sol.py (or its folder): also compare Block 2p with it, in this run")
    ap.add_argument("--lanes", type=int, default=4,
                    help="hands played interleaved in the --prototype comparison (default 4)")
    args = ap.parse_args(argv)

    presets = names
    if args.presets:
        presets = [p for item in args.presets for p in item.split(",") if p]
        unknown = [p for p in presets if p not in names]
        if unknown:
            ap.error(f"unknown preset(s) {', '.join(unknown)}; presets are: {', '.join(names)}")
    if args.hands < 1 or args.repeats < 1:
        ap.error("--hands and --repeats must be >= 1")
    if args.lanes < 1:
        ap.error("--lanes must be >= 1")
    sol = None
    if args.prototype is not None:
        try:
            sol = load_prototype(args.prototype)
        except ValueError as e:
            ap.error(str(e))

    core = pin_one_core(args.core)
    sim, sim_name, note = pick_playout(args.playout)
    have_os = importlib.util.find_spec("open_spiel") is not None
    print(f"playout: {sim_name}" + (f"  ({note})" if note else ""))
    print(f"pinned to core: {core if core is not None else 'not supported here'};  cpu: {cpu_name()}")
    print(f"engine: {args.hands:,} hands x {args.repeats} (best);  reference: {args.ref_hands:,} hands;  "
          f"openspiel: {args.os_games:,} games{'' if have_os else ' (not installed)'}")
    print()

    rows = []
    for p in presets:
        rules = get_rules(p)
        eng = bench_engine(sim, rules, args.hands, args.repeats, args.seed)
        ref = bench_reference(p, args.ref_hands, args.repeats, args.seed) if args.ref_hands > 0 else None
        osr = None
        if p in OPENSPIEL_GAMES and have_os and args.os_games > 0:
            osr = bench_openspiel(OPENSPIEL_GAMES[p], args.os_games, args.repeats, args.seed)
        e = eng["hands_per_s"]
        target = TARGETS.get(p, DEFAULT_TARGET)
        rows.append({
            "preset": p,
            "players": rules.players,
            "loop": loop_name(sim_name, rules.vector()),
            "engine_hands_per_s": e,
            "reference_hands_per_s": ref and ref["hands_per_s"],
            "openspiel_hands_per_s": osr and osr["hands_per_s"],
            "speedup_vs_reference": ref and e / ref["hands_per_s"],
            "speedup_vs_openspiel": osr and e / osr["hands_per_s"],
            "target_hands_per_s": target,
            "target_met": e >= target,
            "moves_per_hand": eng["moves_per_hand"],
            "engine": eng,
            "reference": ref,
            "openspiel": osr,
        })
        share = eng["cpu_share"]
        warn = "  <- core shared with another process: rate understated" if share < 0.95 else ""
        print(f"  {p}: engine {_fmt_rate(e)} hands/s (cpu share {share:.2f}){warn}", flush=True)
    print()
    print_table(rows)
    met = sum(r["target_met"] for r in rows)
    print(f"\n{met}/{len(rows)} presets meet their target  (playout: {sim_name})")
    contended = [r["preset"] for r in rows if r["engine"]["cpu_share"] < 0.95]
    if contended:
        print(f"warning: the core was shared during {', '.join(contended)} (cpu share < 0.95); "
              f"rerun on a quiet machine")

    yard = None
    if sol is not None:
        yard = bench_yardstick(sol, args.hands, args.repeats, args.lanes, args.seed)
        print_yardstick(yard)

    import numba
    result = {
        "benchmark": "engine random playouts, one core",
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "playout": sim_name,
        "playout_note": note,
        "pinned_core": core,
        "cpu": cpu_name(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "dominoai": dominoai.__version__,
        "args": args_record(args),
        "targets": {p: TARGETS.get(p, DEFAULT_TARGET) for p in presets},
        "all_targets_met": met == len(rows),
        "results": rows,
        "prototype": yard,
    }
    write_json(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
