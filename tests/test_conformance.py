"""One conformance suite, run on every preset (and a few player-count variants).

Random playouts through the facade (:class:`dominoai.Match` dealing by its own
seeded generator), with these checks after every move:

- the 28 tiles are always accounted for: the hands, the boneyard still to be
  drawn and the line are disjoint and make up the whole set;
- the events are consistent with the tiles: every hand is the dealt tiles
  minus its plays plus its draws (the tiles drawn are the next ones of the
  boneyard), and ``Hand.hand_sizes`` is right for every seat;
- a seat that could play never draws or passes (the open pips a forced event
  names are the real ones, and the seat held none of them); a seat draws one
  tile at a time and stops at the first that fits, which is then the only
  tile it may play; a pass comes only when the boneyard is down to its reserve;
- every listed legal move is legal, and every legal (tile, end) is covered by
  a listed move at an equivalent end (conventions.md);
- illegal moves raise :class:`IllegalMoveError` and leave the engine state, the
  events and the legal moves unchanged; so does any play once the hand is over
  (also on a hand that is no longer the current one), and a finished match
  refuses a new hand;
- an unfinished hand has no result (``None``);
- points never go negative; the ends score what the count says, for the seat
  that laid the tile; at the hand end only the winner's side scores (Kozel:
  only the losing pair records); the match scores are the sum of the hands'
  points; a hand ends at once (no pass after the ending event).

Then perft-like regression counts (python-chess's ``perft`` idea): for each
preset, from three fixed seeded deals, the number of distinct legal move
sequences of depth 3 (forced draws and passes are part of a transition; a
sequence that ends the hand sooner is a leaf too). ``PERFT`` below was computed
with the reference implementation (``python tests/test_conformance.py
--perft`` prints it again); the engine must give the same numbers.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pytest

import dominoai
from dominoai import IllegalMoveError, Match, Move, Tile
from dominoai.tiles import FULL_MASK, TILE_HIGH, TILE_LOW

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference as ref  # noqa: E402

BASE_SEED = 77001
HANDS = 300             # random hands per preset and variant (default suite)
SLOW_HANDS = 6_000      # the same with -m slow
MATCH_SHARE = 4         # one run in MATCH_SHARE plays a whole match
PROBE_SHARE = 3         # illegal moves are probed in one hand in PROBE_SHARE
PROBES = 6              # illegal moves tried at each probed decision

PRESETS = dominoai.preset_names()
VARIANTS = [
    ("draw", {"players": 4}),
    ("block", {"players": 3}),
    ("all_fives", {"players": 4}),
    ("express", {"players": 4, "partnerships": True}),
    ("express", {"players": 3}),
]
CONFIGS = [(p, {}) for p in PRESETS] + VARIANTS


def _cid(c):
    preset, ov = c
    return preset + "".join(f"-{k}={v}" for k, v in ov.items())


def _fits(t: int, pips) -> bool:
    return int(TILE_HIGH[t]) in pips or int(TILE_LOW[t]) in pips


def _mask_of(tiles) -> int:
    return tiles.mask


def _ends_gain(rules, count: int) -> int:
    """What the count of the ends scores (docs/rules.md: `all_fives`, `fives`, `dominoball`)."""
    if rules.end_scoring == "none" or count <= 0 or count % 5:
        return 0
    return count if rules.end_scoring == "points" else count // 5


class Checker:
    """Follows one hand through its events and checks it against the facade."""

    def __init__(self, m: Match, h, ctx: str):
        self.m, self.h, self.r, self.ctx = m, h, m.rules, ctx
        n = self.r.players
        self.hands = [set(t.id for t in h.dealt(s)) for s in range(n)]
        self.bone = [t.id for t in h.boneyard]
        self.pos = 0          # next tile of the boneyard to be drawn
        self.line: set = set()
        self.n_ev = 0
        self.repl = [0] * n   # replacements used this hand by each seat
        self.expect = h.leader  # the seat whose turn it is, by the events
        assert all(len(x) == self.r.hand_size for x in self.hands), ctx
        assert len(self.bone) == 28 - n * self.r.hand_size, ctx
        assert h.result is None and not h.over, ctx
        assert h.leader == h.seat, ctx
        self.check_state()

    def fail(self, what):
        raise AssertionError(f"{self.ctx}: {what}")

    # -- invariants of the current state
    def check_state(self):
        h, r = self.h, self.r
        n = r.players
        held = [_mask_of(h.tiles(s)) for s in range(n)]
        for s in range(n):
            if held[s] != sum(1 << t for t in self.hands[s]):
                self.fail(f"seat {s} holds {h.tiles(s)}, the events give "
                          f"{dominoai.TileSet.from_tiles(self.hands[s])}")
        sizes = tuple(len(x) for x in self.hands)
        if h.hand_sizes != sizes:
            self.fail(f"hand_sizes {h.hand_sizes}, should be {sizes}")
        left = len(self.bone) - self.pos
        if h.boneyard_size != left:
            self.fail(f"boneyard_size {h.boneyard_size}, should be {left}")
        bone_mask = sum(1 << t for t in self.bone[self.pos:])
        line_mask = _mask_of(h.line)
        if line_mask != sum(1 << t for t in self.line):
            self.fail(f"line {h.line}, the events give {sorted(self.line)}")
        parts = held + [bone_mask, line_mask]
        total = 0
        for p in parts:
            if total & p:
                self.fail(f"a tile is in two places: hands {held}, boneyard {bone_mask}, line {line_mask}")
            total |= p
        if total != FULL_MASK:
            self.fail(f"tiles missing: {dominoai.TileSet(FULL_MASK & ~total)}")
        if any(p < 0 for p in h.points):
            self.fail(f"negative points {h.points}")
        if h.over:
            if h.seat is not None or h.legal_moves() != []:
                self.fail("a finished hand still has a seat to play or moves")
            if h.result is None:
                self.fail("a finished hand has no result")
        else:
            if h.result is not None:
                self.fail(f"an unfinished hand gives a result: {h.result}")
            if self.m.result.finished:
                self.fail("the match is finished while a hand is being played")

    def open_pips(self) -> set:
        return {p for _, p, _ in self.h.ends}

    def can_play(self, s: int, pips: set) -> bool:
        return any(_fits(t, pips) for t in self.hands[s])

    # -- legal moves at a decision
    def check_moves(self):
        h, r = self.h, self.r
        s = h.seat
        moves = h.legal_moves()
        if s != self.expect:
            self.fail(f"seat {s} is to play, but by the events it is seat {self.expect}'s turn")
        if not moves:
            self.fail(f"seat {s} is to play with no legal move")
        must = h.must_play
        ends = {k: (p, kind) for k, p, kind in h.ends}
        kinds_matter = r.spinner != "none" or r.end_scoring != "none"
        listed = set()
        for mv in moves:
            if mv.replace:
                if r.max_replacements == 0 or must is not None:
                    self.fail(f"replacement offered ({r.preset}, must play {must})")
                if not self.can_play(s, self.open_pips()) and ends:
                    self.fail("replacement offered to a seat that cannot play")
                continue
            t = mv.tile.id
            if t not in self.hands[s]:
                self.fail(f"{mv} listed but seat {s} does not hold it")
            if must is not None and t != must.id:
                self.fail(f"{mv} listed but {must} must be played")
            if not ends:
                if mv.end != 0:
                    self.fail(f"the lead {mv} names end {mv.end}")
            elif mv.end not in ends or not _fits(t, {ends[mv.end][0]}):
                self.fail(f"{mv} listed but does not fit (ends {h.ends})")
            key = (t, ends[mv.end] if kinds_matter else ends[mv.end][0]) if ends else (t,)
            if key in listed:
                self.fail(f"{mv} listed twice (equivalent ends): {moves}")
            listed.add(key)
        # every legal (tile, end) is covered by a listed move
        tiles = [must.id] if must is not None else sorted(self.hands[s])
        for t in tiles:
            if not ends:
                if (t,) not in listed:
                    self.fail(f"the lead {Tile(t)} is not listed")
                continue
            for k, (p, kind) in ends.items():
                if _fits(t, {p}):
                    key = (t, (p, kind) if kinds_matter else p)
                    if key not in listed:
                        self.fail(f"{Tile(t)} at end {k} is legal but not listed: {moves}")
        return moves

    def is_legal(self, t: int, end: int) -> bool:
        """Independent legality of laying tile t at end (play() accepts any end it fits)."""
        h = self.h
        s = h.seat
        if t not in self.hands[s]:
            return False
        must = h.must_play
        if must is not None and must.id != t:
            return False
        ends = {k: p for k, p, _ in h.ends}
        if not ends:
            return end in (0, 1)
        return end in ends and _fits(t, {ends[end]})

    # -- events after a move
    def after_move(self, mv: Move, seat: int, orient: int, pts_before: tuple):
        h, r = self.h, self.r
        evs = h.events
        new = evs[self.n_ev:]
        self.n_ev = len(evs)
        if not new:
            self.fail(f"no event for the move {mv}")
        e0 = new[0]
        n = r.players
        for e in new:
            if e.seat != self.expect:
                self.fail(f"{e} out of turn (seat {self.expect} to act): {new}")
            self.expect = e.seat if e.kind in ("draw", "replace") else (e.seat + 1) % n
        if mv.replace:
            if (e0.kind, e0.seat) != ("replace", seat) or len(new) != 1:
                self.fail(f"replacement gave events {new}")
            t = self.bone[self.pos]
            self.pos += 1
            self.hands[seat].add(t)
            self.repl[seat] += 1
            if h.seat != seat:
                self.fail("after a replacement the same seat keeps the turn")
            delta = [a - b for a, b in zip(h.points, pts_before)]
            side = r.side_of(seat)
            if any(d for i, d in enumerate(delta) if i != side) or delta[side] not in (0, -1):
                self.fail(f"replacement changed the points by {delta}")
            self.check_state()
            return
        lead = not self.line
        want_end = (orient if not Tile(mv.tile.id).is_double else 0) if lead else mv.end
        if (e0.kind, e0.seat, e0.tile, e0.end) != ("play", seat, mv.tile, want_end):
            self.fail(f"move {mv} by seat {seat} logged as {e0}")
        t = mv.tile.id
        self.hands[seat].discard(t)
        self.line.add(t)
        # ends scoring, for the seat that laid the tile (before any hand-end count)
        if not h.over or h.result.end is None:
            gain = _ends_gain(r, h.count)
            if lead and t == 0:
                gain += r.zero_lead_strikes
            want = list(pts_before)
            want[r.side_of(seat)] += gain
            if not h.over and list(h.points) != want:
                self.fail(f"after {mv} (count {h.count}) points {h.points}, should be {want}")
            if h.over and list(h.result.points) != want:
                self.fail(f"cut short after {mv}: points {h.result.points}, should be {want}")
        pips = self.open_pips()
        # forced events: draws and passes of the seats that cannot play
        for i, e in enumerate(new[1:], 1):
            s = e.seat
            if e.kind == "play" or e.kind == "replace":
                self.fail(f"a second move event {e} after {mv}")
            if self.can_play(s, pips):
                self.fail(f"{e}: seat {s} could play ({dominoai.TileSet.from_tiles(self.hands[s])} on {sorted(pips)})")
            if set(e.on) != pips:
                self.fail(f"{e}: names open pips {e.on}, the ends show {sorted(pips)}")
            left = len(self.bone) - self.pos
            if e.kind == "pass":
                if r.drawing and left > r.boneyard_reserve:
                    self.fail(f"{e} with {left} tiles in the boneyard (reserve {r.boneyard_reserve})")
                continue
            # a draw
            if not r.drawing or left <= r.boneyard_reserve or e.count < 1:
                self.fail(f"{e} not allowed ({left} left, reserve {r.boneyard_reserve})")
            drawn = self.bone[self.pos:self.pos + e.count]
            if len(drawn) != e.count or left - e.count < r.boneyard_reserve:
                self.fail(f"{e}: draws beyond the reserve")
            self.pos += e.count
            self.hands[s].update(drawn)
            if any(_fits(x, pips) for x in drawn[:-1]):
                self.fail(f"{e}: went on drawing after a tile that fits ({[str(Tile(x)) for x in drawn]})")
            if _fits(drawn[-1], pips):
                if i != len(new) - 1 or h.seat != s:
                    self.fail(f"{e}: the tile drawn fits but seat {s} does not play it next")
                if h.must_play != Tile(drawn[-1]):
                    self.fail(f"{e}: must_play is {h.must_play}, not the drawn {Tile(drawn[-1])}")
                if any(m.replace or m.tile.id != drawn[-1] for m in h.legal_moves()):
                    self.fail(f"after drawing {Tile(drawn[-1])} other moves are legal: {h.legal_moves()}")
            elif len(self.bone) - self.pos != r.boneyard_reserve:
                self.fail(f"{e}: stopped drawing with no fitting tile and "
                          f"{len(self.bone) - self.pos} tiles left")
        if new[-1].kind == "pass" and h.over:
            self.fail(f"a pass after the hand ended: {new}")
        if not h.over and h.seat is not None and self.hands[h.seat] and not self.can_play(h.seat, pips):
            self.fail(f"seat {h.seat} is to decide but cannot play")
        self.check_state()

    # -- hand end
    def check_end(self, last_seat: int, pts_after_ends: list, scores_before: tuple):
        h, r, m = self.h, self.r, self.m
        res = h.result
        n = r.players
        if res.end == "domino":
            if self.hands[last_seat]:
                self.fail(f"domino but seat {last_seat} still holds {self.hands[last_seat]}")
        elif res.end == "blocked":
            pips = self.open_pips()
            if any(self.can_play(s, pips) for s in range(n)):
                self.fail("blocked but a seat can play")
            if r.drawing and len(self.bone) - self.pos > r.boneyard_reserve:
                self.fail("blocked but the boneyard can still be drawn")
        else:
            if not r.instant_target or not m.finished:
                self.fail(f"hand cut short ({res}) without an instant target reached")
            if m.winner != r.side_of(last_seat):
                self.fail(f"cut short by seat {last_seat}, match winner {m.winner}")
        if res.pips != tuple(sum(int(TILE_HIGH[t] + TILE_LOW[t]) for t in x) for x in self.hands):
            self.fail(f"result pips {res.pips}")
        if any(p < 0 for p in res.points):
            self.fail(f"negative points {res.points}")
        award = [a - b for a, b in zip(res.points, pts_after_ends)]
        w = res.winner
        for side, a in enumerate(award):
            if a < 0:
                self.fail(f"hand end took points from side {side}: {award}")
            if not a:
                continue
            scorer = None if w is None else (1 - w if r.hand_scoring == "losers_record" else w)
            if side != scorer:
                self.fail(f"hand-end points {award} go to side {side}; winner {w} ({res.end})")
        if res.end is None and any(award):
            self.fail(f"hand cut short, but hand-end points were added: {award}")
        got = tuple(a - b for a, b in zip(m.scores, scores_before))
        if got != tuple(res.points):
            self.fail(f"match scores moved by {got}, the hand's points are {res.points}")


def _expect_illegal(ck: Checker, h, mv, why: str):
    try:
        h.play(mv)
    except IllegalMoveError:
        return
    except Exception as e:  # noqa: BLE001
        ck.fail(f"{why}: {mv!s} raised {type(e).__name__}: {e}, not IllegalMoveError")
    ck.fail(f"{why}: {mv!s} was accepted")


def _probe_illegal(m: Match, h, ck: Checker, rng, moves):
    """Try illegal moves: each must raise and change nothing."""
    st, ev = m._st.copy(), m._ev.copy()
    n_ev = len(h.events)
    cands = []
    for t in rng.choice(28, size=10, replace=False):
        for end in range(4):
            if not ck.is_legal(int(t), end):
                cands.append(Move(Tile(int(t)), end))
    if not any(mv.replace for mv in moves):
        cands.append(Move.replacement())
    picks = [cands[i] for i in rng.choice(len(cands), size=min(PROBES, len(cands)), replace=False)]
    picks += ["7:1", "6:6 sideways", "nonsense"]
    # a tile listed at two ends, given without an end, is ambiguous
    per_tile: dict = {}
    for mv in moves:
        if not mv.replace:
            per_tile.setdefault(mv.tile, []).append(mv)
    picks += [str(t) for t, ms in per_tile.items() if len(ms) > 1][:2]
    for mv in picks:
        _expect_illegal(ck, h, mv, f"illegal move of seat {h.seat} (ends {h.ends}, must {h.must_play})")
        if isinstance(mv, Move) and h.explain(mv) is None:
            ck.fail(f"explain() finds nothing wrong with the illegal {mv}")
        if not (np.array_equal(m._st, st) and np.array_equal(m._ev, ev)):
            ck.fail(f"the illegal move {mv} changed the state")
    if len(h.events) != n_ev:    # the events are read once (they are built from m._ev, compared above)
        ck.fail("probing illegal moves changed the events")
    if h.legal_moves() != moves:
        ck.fail("probing illegal moves changed the legal moves")
    # every (tile, end) the rules allow is accepted by explain()
    for t in ck.hands[h.seat]:
        for end in range(4):
            if ck.is_legal(t, end) and h.explain(Move(Tile(t), end)) is not None:
                ck.fail(f"explain() refuses the legal {Tile(t)} at end {end}: {h.explain(Move(Tile(t), end))}")


def play_run(preset: str, overrides: dict, seed, whole_match: bool, probe: bool) -> int:
    """One random first hand or whole match, checked throughout. Returns hands played."""
    rng = np.random.default_rng(seed)
    m = Match(preset, seed=np.random.default_rng((seed, 1)), **overrides)
    r = m.rules
    n_hands = 0
    hand_points_sum = [0] * r.sides
    prev = None
    while True:
        ctx = f"{preset} {overrides} seed={seed!r} whole_match={whole_match} hand {n_hands + 1}"
        scores_before = m.scores
        h = m.new_hand()
        ck = Checker(m, h, ctx)
        if prev is not None:
            _expect_illegal(ck, prev, Move(Tile(0), 0), "a move on the previous hand")
        while not h.over:
            moves = ck.check_moves()
            if probe:
                _probe_illegal(m, h, ck, rng, moves)
            mv = moves[int(rng.integers(len(moves)))]
            seat = h.seat
            orient = int(rng.integers(2)) if not ck.line and not mv.replace else 0
            pts_before = h.points
            if mv.replace or rng.integers(3):
                h.play(mv, orientation=orient)
            elif sum(1 for x in moves if x.tile == mv.tile) == 1:
                h.play(str(mv.tile), orientation=orient)   # the end is the only one it fits
            else:
                h.play(f"{mv.tile} {dominoai.END_NAMES[mv.end]}", orientation=orient)
            if h.over and not mv.replace:
                # the ends of the last tile count before the hand-end count
                pts_after_ends = list(pts_before)
                gain = _ends_gain(r, h.count)
                pts_after_ends[r.side_of(seat)] += gain
            ck.after_move(mv, seat, orient, pts_before)
            if h.over:
                ck.check_end(seat, pts_after_ends, scores_before)
                # nothing is accepted once the hand is over
                st = m._st.copy()
                for late in [mv, moves[0], Move.replacement()]:
                    _expect_illegal(ck, h, late, "a move after the hand end")
                if not np.array_equal(m._st, st):
                    ck.fail("a move after the hand end changed the state")
        n_hands += 1
        hand_points_sum = [a + b for a, b in zip(hand_points_sum, h.result.points)]
        if list(m.scores) != hand_points_sum:
            ck.fail(f"match scores {m.scores} != sum of hand points {hand_points_sum}")
        if m.finished:
            res = m.result
            assert res.finished and res.scores == m.scores, ctx
            try:
                m.new_hand()
            except ValueError:
                pass
            else:
                ck.fail("a finished match dealt a new hand")
            break
        if not whole_match:
            break
        assert n_hands < 500, f"{ctx}: the match does not end"
        prev = h
    return n_hands


def run_conformance(preset, overrides, n_hands, tag):
    hands = runs = 0
    while hands < n_hands:
        seed = (BASE_SEED, tag, runs)
        hands += play_run(preset, overrides, seed, whole_match=runs % MATCH_SHARE == MATCH_SHARE - 1,
                          probe=runs % PROBE_SHARE == 0)
        runs += 1
    return runs, hands


@pytest.mark.parametrize("config", CONFIGS, ids=[_cid(c) for c in CONFIGS])
def test_conformance(config):
    preset, ov = config
    run_conformance(preset, ov, HANDS, CONFIGS.index(config))


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=[_cid(c) for c in CONFIGS])
def test_conformance_slow(config):
    preset, ov = config
    run_conformance(preset, ov, SLOW_HANDS, CONFIGS.index(config) + 50)


# ---------------------------------------------------------------- perft
PERFT_DEPTHS = (3, 6)   # depth 3 through the facade; depth 6 through the kernels
PERFT_SEEDS = (1, 2, 3)


def perft_deal(preset: str, seed: int):
    """The fixed deal of a perft position: (deal, boneyard, leader)."""
    rng = np.random.default_rng([seed, PRESETS.index(preset)])
    rules = dominoai.get_rules(preset)
    n, hs = rules.players, rules.hand_size
    perm = [int(x) for x in rng.permutation(28)]
    leader = int(rng.integers(n)) if rules.first_lead == "lot" else None
    return [perm[s * hs:(s + 1) * hs] for s in range(n)], perm[n * hs:], leader


def ref_perft(r: ref.RefMatch, depth: int) -> int:
    """Leaf nodes of the move tree below ``r`` to ``depth`` moves (a position
    where the hand is over is a leaf, whatever its depth)."""
    if depth == 0 or r.hand_over():
        return 1
    total = 0
    for mv in sorted(r.legal_moves()):
        child = copy.deepcopy(r)
        child.play(mv)
        total += ref_perft(child, depth - 1)
    return total


def ref_perft_counts(preset: str, depth: int) -> tuple:
    out = []
    for seed in PERFT_SEEDS:
        deal, bone, leader = perft_deal(preset, seed)
        r = ref.RefMatch(preset)
        r.new_hand(deal, bone, leader=leader)
        out.append(ref_perft(r, depth))
    return tuple(out)


def facade_perft(preset: str, deal, bone, leader, path: list, depth: int) -> int:
    """Leaves below the position reached by ``path``, replayed from the deal
    through the public facade only."""
    h = Match(preset, seed=0).new_hand(deal, bone, leader=leader)
    for mv in path:
        h.play(mv)
    if depth == 0 or h.over:
        return 1
    return sum(facade_perft(preset, deal, bone, leader, path + [mv], depth - 1)
               for mv in h.legal_moves())


def kernel_perft(preset: str, deal, bone, leader, depth: int) -> int:
    """The same count through the engine kernels (copying the flat state)."""
    from dominoai.engine import kernels as K
    from dominoai.engine import layout as L
    rules = dominoai.get_rules(preset)
    rv = rules.vector()
    st = np.zeros(L.S_SIZE, np.int64)
    ev = np.zeros((L.MAX_EVENTS, 4), np.int64)
    K.new_match(st, rv)
    st[L.S_LOG] = 0
    K.start_hand(st, rv, np.array([t for h in deal for t in h] + bone, np.int64),
                 -1 if leader is None else leader)

    def rec(st, depth):
        if depth == 0 or st[L.S_CUR] < 0:
            return 1
        buf = np.zeros(L.MAX_MOVES, np.int64)
        n = K.legal_moves(st, rv, buf)
        total = 0
        for code in buf[:n]:
            child = st.copy()
            K.apply_move(child, rv, ev, code)
            total += rec(child, depth - 1)
        return total

    return rec(st, depth)


# Computed with the reference implementation: python tests/test_conformance.py --perft
# preset: ((perft(3) for seeds 1, 2, 3), (perft(6) for seeds 1, 2, 3))
PERFT = {
    'draw': ((61, 42, 39), (759, 594, 601)),
    'block': ((57, 40, 39), (1034, 229, 241)),
    'all_fives': ((52, 69, 32), (606, 1839, 439)),
    'fives': ((5, 3, 5), (95, 31, 77)),
    'kozel': ((4, 8, 5), (136, 198, 181)),
    'express': ((5, 7, 7), (75, 95, 98)),
    'dominoball': ((133, 161, 133), (7660, 10425, 8310)),
    'openspiel_block': ((63, 37, 62), (1016, 601, 675)),
    'openspiel_team': ((50, 54, 54), (1268, 1254, 1193)),
    'pydominoes': ((7, 6, 11), (174, 210, 180)),
}


@pytest.mark.parametrize("preset", PRESETS)
def test_perft_engine(preset):
    d3, d6 = PERFT_DEPTHS
    want3, want6 = PERFT[preset]
    got3 = tuple(facade_perft(preset, *perft_deal(preset, s), [], d3) for s in PERFT_SEEDS)
    assert got3 == want3, f"{preset}: facade perft({d3}) {got3}, reference {want3} (seeds {PERFT_SEEDS})"
    got6 = tuple(kernel_perft(preset, *perft_deal(preset, s), d6) for s in PERFT_SEEDS)
    assert got6 == want6, f"{preset}: kernel perft({d6}) {got6}, reference {want6} (seeds {PERFT_SEEDS})"


@pytest.mark.parametrize("preset", PRESETS)
def test_perft_reference(preset):
    """The stored counts still are the reference's (depth 3; depth 6 with -m slow)."""
    assert ref_perft_counts(preset, PERFT_DEPTHS[0]) == PERFT[preset][0]


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_perft_reference_deep(preset):
    assert ref_perft_counts(preset, PERFT_DEPTHS[1]) == PERFT[preset][1]


if __name__ == "__main__":
    if "--perft" in sys.argv:
        print("PERFT = {")
        for p in PRESETS:
            print(f"    {p!r}: ({ref_perft_counts(p, PERFT_DEPTHS[0])}, {ref_perft_counts(p, PERFT_DEPTHS[1])}),")
        print("}")
    else:
        import time
        n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
        for c in CONFIGS:
            t0 = time.perf_counter()
            runs, hands = run_conformance(c[0], c[1], n, CONFIGS.index(c))
            print(f"{_cid(c):40s} {runs:5d} runs {hands:5d} hands {time.perf_counter() - t0:6.2f}s")
