"""Small helpers shared by the hand-made rules tests (tests/test_rules_*.py)."""

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
