"""Small helpers and hand-made records shared by the tests (the rules tests,
tests/test_rules_*.py; the render and viewer tests)."""

# The set in id order (conventions.md: a:b with a >= b has id a*(a+1)//2 + b).
SET = [f"{a}:{b}" for a in range(7) for b in range(a + 1)]


def norm(t):
    """``"3:5"`` -> ``"5:3"``: the higher pip first."""
    a, b = (int(x) for x in t.split(":"))
    return f"{max(a, b)}:{min(a, b)}"


def rest(*groups):
    """The tiles of the set not in any of ``groups``, in id order."""
    used = {norm(t) for g in groups for t in g}
    return [t for t in SET if t not in used]


def legal(h):
    """The legal moves of a hand as sorted strings."""
    return sorted(str(m) for m in h.legal_moves())


def play(h, moves):
    """Play the moves (strings) in order."""
    for mv in moves:
        h.play(mv)


# Block: seat 0 holds the sixes, seat 1 the fives and 4:4; seat 0 leads.
BLOCK_REC = {
    "format": "dominoai.record/1", "rules": "block",
    "hands": [{"deal": [["6:6", "6:5", "6:4", "6:3", "6:2", "6:1", "6:0"],
                        ["5:5", "5:4", "5:3", "5:2", "5:1", "5:0", "4:4"]],
               "leader": 0,
               "moves": [{"tile": "6:6"}, {"pass": True}, {"tile": "6:5", "end": "right"},
                         {"tile": "5:5", "end": "right"}, {"tile": "6:4", "end": "left"},
                         {"tile": "4:4", "end": "left"}]}]}
