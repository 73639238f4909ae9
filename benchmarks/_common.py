"""Helpers shared by the benchmark scripts: pinning to one core, tables, the
JSON results file."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path


def pin_one_core(core: int | None) -> int | None:
    """Restrict this process to one CPU (the least busy allowed one, or
    ``core``); returns the core, None where the OS does not support it."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if core is None:
        core = least_busy(allowed)
    elif core not in allowed:
        raise SystemExit(f"--core {core} is not available (allowed: {allowed})")
    os.sched_setaffinity(0, {core})
    return core


def least_busy(cores: list[int]) -> int:
    """The core of ``cores`` with the most idle time over a short sample (Linux
    ``/proc/stat``); the last one when that cannot be read."""
    def idle():
        out = {}
        with open("/proc/stat") as f:
            for line in f:
                name, *vals = line.split()
                if name.startswith("cpu") and name[3:].isdigit():
                    out[int(name[3:])] = int(vals[3]) + int(vals[4])  # idle + iowait
        return out
    try:
        a = idle()
        time.sleep(0.3)
        b = idle()
        return max(reversed(cores), key=lambda c: b.get(c, 0) - a.get(c, 0))
    except (OSError, ValueError, IndexError):
        return cores[-1]


def print_table(head: list[str], body: list[list]) -> None:
    """Print rows aligned: the first column left, the others right."""
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]

    def line(cells):
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))
    print(line(head))
    print("  ".join("-" * w for w in widths))
    for b in body:
        print(line(b))


def args_record(args) -> dict:
    """The command's options as JSON values (paths as text)."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}


def write_json(path: Path, doc: dict) -> None:
    """Write the results ``doc`` to ``path`` (its folder made) and say so."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {path}")
