"""Drawing the table of ``dominoai play`` in text.

:class:`TableView` writes everything the human sees to one text stream: the
table before each decision (the line laid as on the table, drawn from the
same layout as the SVG pictures, :mod:`dominoai.render.layout`; the open
ends, the human's tiles, every hand size, the boneyard, the score and the
target), the legal moves, numbered, with what each scores at once; the
bots' moves, forced draws (with their counts) and passes as they happen; and
the hand's result (each seat's tiles left, pips, points). Scores and points
are labelled in the rules' unit (:attr:`Rules.points_unit
<dominoai.rules.Rules.points_unit>`: points, recorded points, strikes), and
where low is good (:attr:`Rules.low_is_good <dominoai.rules.Rules.low_is_good>`,
Kozel) the score line says so. It reads the match; it never changes it.
"""

from __future__ import annotations

from typing import TextIO

from ..bots.simple import immediate_points
from ..game import END_NAMES, Hand, Match, Move
from ..observation import O_CARRY
from ..render.layout import line_layout
from ..render.textdraw import line_text
from ..rules import Rules
from .stats import hands_won

__all__ = ["TableView", "unit_label", "plural", "TABLE_WIDTH"]

#: the table's width for the line in the terminal, in layout units (a tile
#: is 2 units, 4 columns per unit: 72 columns, plus the indent)
TABLE_WIDTH = 18.0


def plural(n: int, word: str) -> str:
    """``"1 tile"``, ``"3 tiles"``: ``n`` and ``word``, with an ``s`` unless ``n`` is 1."""
    return f"{n} {word}" + ("" if n == 1 else "s")


_plural = plural


def unit_label(rules: Rules) -> str:
    """The heading of a row of points in ``rules``' unit: ``"Points"``,
    ``"Recorded"`` (Kozel) or ``"Strikes"`` (Dominoball).

    >>> from dominoai.rules import get_rules
    >>> [unit_label(get_rules(p)) for p in ("draw", "kozel", "dominoball")]
    ['Points', 'Recorded', 'Strikes']
    """
    return rules.points_unit.split()[0].capitalize()


class TableView:
    """What the human at ``seat`` sees of ``match``, written to ``out``.

    ``printed`` (events of the current hand already shown), ``mine`` (the
    human's tiles as last shown) and ``shown_result`` (the current hand's
    result is on screen) are what it remembers between calls.
    """

    def __init__(self, match: Match, seat: int, out: TextIO):
        self.match = match
        self.rules = match.rules
        self.seat = int(seat)
        self.out = out
        self.side = self.rules.side_of(self.seat)
        self.partner = (self.seat + 2) % 4 if self.rules.partnerships else None
        self.printed = 0
        self.mine: set = set()
        self.shown_result = False

    def say(self, text: str = "") -> None:
        """One line of output."""
        self.out.write(text + "\n")

    # -- names
    def name(self, seat: int, cap: bool = False) -> str:
        if seat == self.seat:
            n = "you"
        elif seat == self.partner:
            n = f"seat {seat} (partner)"
        else:
            n = f"seat {seat}"
        return n[0].upper() + n[1:] if cap else n

    def verb(self, seat: int, verb: str) -> str:
        if seat == self.seat:
            return verb
        return verb + ("es" if verb.endswith("ss") else "s")

    def side_name(self, side: int) -> str:
        if self.rules.partnerships:
            return "your pair" if side == self.side else "their pair"
        return self.name(side)

    def sides_line(self, values) -> str:
        return " · ".join(f"{self.side_name(s)} {v}" for s, v in enumerate(values))

    def line_text(self, hand: Hand) -> list[str]:
        """The line as text, laid as on the table: the snake layout of the
        SVG pictures (:func:`dominoai.render.layout.line_layout`, drawn by
        :func:`dominoai.render.textdraw.line_text`) on a table
        :data:`TABLE_WIDTH` units wide, so that it fits 80 columns. A tile
        along a row reads ``[ 6|4 ]``, one standing up ``[6]`` over ``[4]``,
        the tile laid last has braces."""
        if not hand.line:
            return ["(empty: the first tile leads)"]
        return line_text(line_layout(hand.events, hand.spinner, width=TABLE_WIDTH))

    def ends_text(self, hand: Hand) -> str:
        parts = []
        for k, pip, kind in hand.ends:
            extra = " (double)" if kind == 1 else " (open side of the spinner)" if kind == 2 else ""
            parts.append(f"{END_NAMES[k]} {pip}{extra}")
        return " · ".join(parts) if parts else "none yet"

    def score_text(self) -> str:
        """The match score line: its unit (:attr:`Rules.points_unit`), the
        goals where strikes count, and what the target means (low is good:
        :attr:`Rules.low_is_good`)."""
        r = self.rules
        m = self.match
        label = "Score" if r.points_unit == "points" else unit_label(r)
        if r.points_unit == "strikes":
            goals = " : ".join(str(g) for g in m.goals)
            return (f"{label}: {self.sides_line(m.scores)}   goals {goals} (the first goal needs 5 "
                    f"strikes, each further goal 4 more; one hand)")
        if r.low_is_good:
            carry = self.carry()
            eggs = f"; eggs carried {carry}" if carry else ""
            who = "pair" if r.partnerships else "seat"
            return (f"{label}: {self.sides_line(m.scores)}   (low is good: the first {who} to "
                    f"{r.target} loses{eggs})")
        if r.match_hands == 1:
            return f"{label}: {self.sides_line(m.scores)}   (a one-hand match)"
        when = "reaching it wins at once" if r.instant_target else "checked after each hand"
        return f"{label}: {self.sides_line(m.scores)}   (target {r.target}, {when})"

    def carry(self) -> int:
        """Kozel's eggs: points carried into the next hand (0 elsewhere)."""
        h = self.match.current
        return int(h.observe(self.seat).array[O_CARRY]) if h is not None else 0

    def show_table(self, hand: Hand) -> None:
        r = self.rules
        self.say()
        self.say(f"--- Hand {hand.index + 1}, your turn " + "-" * 40)
        lines = self.line_text(hand)
        if hand.line:
            self.say(f"Line:   ({_plural(len(hand.line), 'tile')}; the last one laid in braces)")
            for row in lines:
                self.say(f"    {row}")
        else:
            self.say(f"Line:   {lines[0]}")
        ends = f"Ends:   {self.ends_text(hand)}"
        if r.end_scoring != "none" and hand.ends:
            ends += f"   (count {hand.count})"
        self.say(ends)
        sizes = " · ".join(f"{self.name(s)} {n}" for s, n in enumerate(hand.hand_sizes))
        if r.drawing:
            bone = hand.boneyard_size
            sizes += f" · boneyard {bone}" + (f" ({r.boneyard_reserve} never drawn)" if r.boneyard_reserve else "")
        self.say(f"Tiles:  {sizes}")
        self.say(self.score_text())
        self.say(f"Your tiles: {self.tiles_text(hand.tiles(self.seat))}")

    @staticmethod
    def tiles_text(tiles) -> str:
        ts = sorted(tiles, key=lambda t: (-t.pips, -t.high))
        return " ".join(str(t) for t in ts) if ts else "(none)"

    def move_label(self, hand: Hand, move: Move, pts: int) -> str:
        r = self.rules
        if move.replace:
            used = hand.observe(self.seat).replacements_used[self.seat]
            cost = "free" if used < r.free_replacements else "costs 1 strike"
            return (f"replace: draw a tile for replacement instead of playing "
                    f"({cost}; {r.max_replacements - used} left)")
        if not hand.ends:
            text = f"lead {move.tile}"
        else:
            pip = dict((k, p) for k, p, _ in hand.ends)[move.end]
            text = f"{move.tile} {END_NAMES[move.end]} (on the {pip})"
        if pts:
            text += f"   +{_plural(pts, r.points_unit_one)}"
        return text

    def show_moves(self, hand: Hand, moves: list[Move]) -> None:
        pts = self.move_points(hand, moves)
        must = hand.must_play
        if must is not None and hand.ends and any(e.kind == "draw" and e.seat == self.seat
                                                  for e in hand.events[-1:]):
            self.say(f"You must play {must}, the tile you just drew.")
        self.say("Your moves:")
        for i, (m, p) in enumerate(zip(moves, pts), 1):
            self.say(f"  {i:>2}) {self.move_label(hand, m, p)}")

    def move_points(self, hand: Hand, moves: list[Move]) -> list[int]:
        """What each of ``moves`` scores at once (the ends; 0 for a replacement)."""
        if self.rules.end_scoring == "none":
            return [0] * len(moves)
        obs = hand.observe(self.seat)
        st = obs.engine_state()
        rv = obs.rules_vector
        return [0 if m.replace else int(immediate_points(st, rv, m.code)) for m in moves]

    def flush_events(self, hand: Hand, scored: tuple | None = None) -> None:
        """Show the events of ``hand`` not shown yet; ``scored``: the points each
        side made by the first of them (a play)."""
        evs = hand.events
        new = evs[self.printed:]
        first_play = not any(e.kind == "play" for e in evs[:self.printed])
        for i, ev in enumerate(new):
            n = self.name(ev.seat, cap=True)
            if ev.kind == "play":
                if first_play:
                    t = ev.tile
                    text = f"{t.low}:{t.high}" if ev.end == 1 else f"{t.high}:{t.low}"
                    line = f"{n} {self.verb(ev.seat, 'lead')} {text}"
                    first_play = False
                else:
                    line = f"{n} {self.verb(ev.seat, 'play')} {ev.tile} {END_NAMES[ev.end]}"
                if i == 0 and scored and any(scored):
                    unit = self.rules.points_unit_one
                    got = ", ".join(f"{self.side_name(s)} {'+' if v > 0 else ''}{_plural(v, unit)}"
                                    for s, v in enumerate(scored) if v)
                    line += f"  [{got}; count {hand.count}]"
            elif ev.kind == "draw":
                on = f" (no {'/'.join(map(str, ev.on))})" if ev.on else ""
                line = f"{n} {self.verb(ev.seat, 'draw')} {_plural(ev.count, 'tile')}{on}"
            elif ev.kind == "pass":
                on = f" (no {'/'.join(map(str, ev.on))})" if ev.on else ""
                line = f"{n} {self.verb(ev.seat, 'pass')}{on}"
            else:
                line = f"{n} {self.verb(ev.seat, 'draw')} a tile for replacement"
            self.say(f"  {line}.")
        self.printed = len(evs)
        now = set(hand.tiles(self.seat))
        drawn = now - self.mine
        if drawn and any(e.kind in ("draw", "replace") and e.seat == self.seat for e in new):
            self.say(f"  You drew: {self.tiles_text(drawn)}.")
        self.mine = now

    def show_result(self, hand: Hand) -> None:
        r = self.rules
        res = hand.result
        self.flush_events(hand)
        self.say()
        if res.end == "domino":
            last = [e for e in hand.events if e.kind == "play"][-1].seat
            how = f"domino: {self.name(last)} played the last tile"
        elif res.end == "blocked":
            how = "blocked: nobody can play"
        else:
            how = "cut short: the target was reached"
        if res.winner is None:
            won = "nobody wins the hand"
        elif r.partnerships:
            won = f"{self.side_name(res.winner)} wins the hand"
        else:
            won = f"{self.name(res.winner)} {self.verb(res.winner, 'win')} the hand"
        self.say(f"Hand {hand.index + 1} over ({how}); {won}.")
        names = [self.name(s, cap=True) + ":" for s in range(r.players)]
        tiles = [self.tiles_text(hand.tiles(s)) for s in range(r.players)]
        wn, wt = max(map(len, names)), max(map(len, tiles))
        for s in range(r.players):
            self.say(f"  {names[s]:<{wn}}  {tiles[s]:<{wt}}  {_plural(res.pips[s], 'pip')}")
        self.say(f"  {unit_label(r)} this hand: {self.sides_line(res.points)}")
        if r.hand_scoring == "losers_record" and res.winner is None and res.end == "blocked":
            self.say(f"  Eggs: equal pips; {self.carry()} carried into the next hand.")
        self.say(self.score_text())
        self.shown_result = True

    def show_hand_start(self, hand: Hand) -> None:
        """A new hand: who leads, and the human's tiles (remembered as shown)."""
        self.printed = 0
        self.shown_result = False
        self.mine = set(hand.tiles(self.seat))
        self.say()
        self.say(f"=== Hand {hand.index + 1} === {self.name(hand.leader, cap=True)} "
                 f"{self.verb(hand.leader, 'lead')}.")
        self.say(f"Your tiles: {self.tiles_text(hand.tiles(self.seat))}")

    def show_resumed(self, hand: Hand) -> None:
        """A continued match: the result of its last hand if it is over, else
        its latest moves."""
        self.mine = set(hand.tiles(self.seat))
        evs = hand.events
        self.printed = len(evs)
        if hand.over:
            self.show_result(hand)
        elif not evs:
            self.say(f"Resuming hand {hand.index + 1}, before its first move.")
        else:
            self.say(f"Resuming hand {hand.index + 1}; the latest moves:")
            self.printed = max(0, len(evs) - 4)
            self.flush_events(hand)

    def show_match_over(self) -> str:
        """The end of the match: who won, the final score, the hands won.
        Returns the human's outcome for the stats: ``"wins"``, ``"losses"``
        or ``"draws"``."""
        r = self.rules
        m = self.match
        w = m.winner
        self.say()
        if w is None:
            self.say("=== Match over: a draw. ===")
            outcome = "draws"
        elif w == self.side:
            self.say("=== Match over: you win! ===" if not r.partnerships else
                     "=== Match over: your pair wins! ===")
            outcome = "wins"
        else:
            who = "their pair" if r.partnerships else self.name(w)
            self.say(f"=== Match over: {who} {'wins' if r.partnerships else self.verb(w, 'win')}. ===")
            outcome = "losses"
        if m.result.dry_goat:
            self.say("A dry goat: the winners recorded nothing.")
        final = self.score_text()
        self.say("Final " + final[0].lower() + final[1:])
        won = hands_won(m)
        self.say(f"Hands won: {self.sides_line(won)}   ({_plural(len(m.hands), 'hand')} played)")
        return outcome
