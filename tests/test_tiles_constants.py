"""Every number that follows from the tile set is named in ``dominoai/tiles.py``.

The set (double-six today) is meant to become a rule, so no size, mask or pip
range derived from it may be written as a number anywhere else in the package:
the code says ``N_TILES``, ``N_PIPS``, ``FULL_MASK``, ``4 * N_TILES``, ...
This test reads the package's source with :mod:`ast` (it imports nothing) and
fails on what it finds, naming ``file:line``.

What it looks for, and why these and not others:

- the integer literals in :data:`SET_NUMBERS`: the set's size, its top tile id
  and bit, its full mask, the vector-block and action-id sizes that are
  multiples of 28, and the pip-set sizes. These are values that hardly occur
  for any other reason in this code.
- ``range(...)`` with a literal 6 or 7 among its arguments: a loop over pips
  (``range(7)``, ``range(6, -1, -1)``). A bare 6 or 7 is not scanned: they
  are far too common (field offsets, hand sizes, which are rules data in
  ``dominoai/rules.py``, font sizes), so those were checked by reading.
- Not scanned, by the same reasoning: 12 (the most pips on a tile, but also
  the exact solver's default), 13 and 21 (the pip sums and the non-doubles,
  but also many offsets of ``engine/layout.py``), 128 (``2 ** N_PIPS``, but
  also every default hidden width).

:data:`ALLOWED` lists the literals that equal one of these values by
coincidence, each with its reason, by file and source line (so that editing
the line asks for a fresh look).
"""
from __future__ import annotations

import ast
from pathlib import Path

import dominoai

PACKAGE = Path(dominoai.__file__).parent

#: the numbers that follow from the double-six set -> what they are
SET_NUMBERS = {
    27: "the top tile id / highest tile bit (N_TILES - 1, TOP_DOUBLE)",
    28: "the tiles of the set (N_TILES)",
    56: "two tile blocks (2 * N_TILES)",
    84: "three tile blocks (3 * N_TILES)",
    112: "four tile blocks / the replacement's action id (4 * N_TILES)",
    113: "the action ids (4 * N_TILES + 1)",
    127: "every pip as a bit set ((1 << N_PIPS) - 1)",
    196: "seven tile blocks (N_PIPS * N_TILES)",
    2 ** 27: "the top tile's bit (1 << (N_TILES - 1))",
    2 ** 28: "one past the full mask (1 << N_TILES)",
    2 ** 28 - 1: "the full mask (FULL_MASK)",
}

#: literals in a ``range(...)`` that mark a loop over pips
PIP_RANGE_NUMBERS = {6, 7}

#: (file under dominoai/, stripped source line) -> why its number is not the set's
ALLOWED = {
    ("engine/rng.py", "_U30, _U27, _U31, _U33 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(33)"):
        "SplitMix64's shift amounts",
    ("tune/storage.py", "for attempt in range(6):"):
        "retries of a locked database",
}


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel != "tiles.py":
            yield rel, path.read_text(encoding="utf-8")


def _is_int(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _findings(rel: str, text: str) -> list[str]:
    lines = text.splitlines()
    found = []

    def report(node, what):
        line = lines[node.lineno - 1].strip()
        if (rel, line) not in ALLOWED:
            found.append((node.lineno, f"dominoai/{rel}:{node.lineno}: {what}: {line}"))

    for node in ast.walk(ast.parse(text, filename=rel)):
        if _is_int(node) and node.value in SET_NUMBERS:
            report(node, f"{node.value} is {SET_NUMBERS[node.value]}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
              and any(_is_int(a) and a.value in PIP_RANGE_NUMBERS for a in node.args)):
            report(node, "a loop over pips (use N_PIPS / MAX_PIP)")
    return [text for _, text in sorted(found)]


def test_no_number_of_the_set_outside_tiles():
    found = [f for rel, text in _sources() for f in _findings(rel, text)]
    assert not found, "numbers of the tile set outside dominoai/tiles.py:\n" + "\n".join(found)


def test_allowed_entries_are_still_there():
    """Every allowlist entry matches a line of the package (a stale entry is dropped)."""
    lines = {(rel, line.strip()) for rel, text in _sources() for line in text.splitlines()}
    assert set(ALLOWED) <= lines, sorted(set(ALLOWED) - lines)


def test_the_scan_finds_what_it_should():
    src = ("x = 1 << 27\n"
           "for p in range(7):\n    pass\n"
           "for d in range(6, -1, -1):\n    pass\n"
           "hidden = (128, 128)\n")
    assert [f.split(":")[1] for f in _findings("example.py", src)] == ["1", "2", "4"]


def test_set_names_agree():
    from dominoai import tiles as T

    assert T.N_PIPS == T.MAX_PIP + 1
    assert T.N_TILES == T.N_PIPS * (T.N_PIPS + 1) // 2
    assert T.FULL_MASK == (1 << T.N_TILES) - 1
    assert T.TOP_DOUBLE == T.tile_id(T.MAX_PIP, T.MAX_PIP) == T.N_TILES - 1
    assert sorted(T.HEAVY_RANK) == list(range(T.N_TILES))
    assert [int(t) for t in T.HEAVY_ORDER] == sorted(range(T.N_TILES), key=lambda t: -T.HEAVY_RANK[t])
    assert T.PIP_SET_MASK.shape == (1 << T.N_PIPS,)
    for v in range(1 << T.N_PIPS):
        showing = [t for t in range(T.N_TILES) if T.TILE_PIP_SET[t] & v]
        assert T.PIP_SET_MASK[v] == sum(1 << t for t in showing)
