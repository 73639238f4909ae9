"""Play a match against the bots in a terminal (``dominoai play``).

:func:`play_game` is the whole game loop, reading answers from one text
stream and writing to another, so it runs the same in a terminal, under a
test (``io.StringIO``) or through a pipe. The table is shown before each of
the human's decisions: the line (with the spinner and its arms), the open
ends, the human's tiles, every hand size, the boneyard, the score and the
target; then the legal moves, numbered. Bots' moves, forced draws (with
their counts) and passes are shown as they happen; the hand's result (each
seat's tiles left, pips, points) between hands.

At the prompt the human types the number of a listed move, or a tile
(``6:4`` or ``4:6``) with an end if needed (``6:4 left``, ``6:4 l``); a tile
that fits two ends that are not equivalent asks which. ``help`` lists the
commands, ``quit`` saves and stops. Anything that is not a legal move gets a
one-line reason (:meth:`~dominoai.game.Hand.explain`) and the prompt again;
end of input saves and stops cleanly. There is no undo (seed 000: taking a
tile back after seeing the replies would reveal hidden tiles).

The match is written as a ``dominoai.record/1`` record to
``<data>/current_match.json`` after the deal and after every move (a temporary
file, then :func:`os.replace`), with a ``"play"`` entry naming the human's
seat and the bots; ``resume=True`` (``dominoai play --continue``) replays it
(:func:`~dominoai.records.match_from_record`) and goes on. When the match
ends, ``<data>/stats.json`` counts matches, wins, losses, draws, hands and
hands won per variant and opponent level (seed 002), is shown, and the saved
match is removed. ``<data>`` is ``$DOMINOAI_DATA_DIR`` if set, else
``platformdirs.user_data_dir("dominoai")``.

In partnership presets (Kozel, Express in pairs) the human's partner plays at
least ``hard`` (seed 002): ``easy`` and ``medium`` opponents get a ``hard``
partner; any stronger level (``insane``) plays the partner too.

>>> import io, tempfile
>>> out = io.StringIO()
>>> with tempfile.TemporaryDirectory() as d:
...     code = play_game("draw", opponents="easy", seed=5, target=10, data_dir=d,
...                      stdin=io.StringIO("1\\n" * 300), stdout=out)
>>> code, "Match over" in out.getvalue()
(0, True)
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .game import END_NAMES, Hand, Match, Move
from .rules import PRESETS, Rules, get_rules
from .tiles import Tile, parse_tile

__all__ = [
    "PlayError",
    "play_game",
    "user_data_path",
    "partner_spec",
    "variant_key",
    "level_name",
    "load_stats",
    "format_stats",
    "MATCH_FILE",
    "STATS_FILE",
    "ENV_DATA_DIR",
]

ENV_DATA_DIR = "DOMINOAI_DATA_DIR"
MATCH_FILE = "current_match.json"
STATS_FILE = "stats.json"
STATS_FORMAT = "dominoai.stats/1"
PLAY_FORMAT = "dominoai.play/1"
DEFAULT_VARIANT = "draw"
DEFAULT_OPPONENTS = "medium"
RESUME_HINT = "`dominoai play --continue` resumes it"

_END_WORDS = {"l": 0, "left": 0, "r": 1, "right": 1, "u": 2, "up": 2, "d": 3, "down": 3}
_QUIT = ("quit", "q", "exit")
_HELP = ("help", "h", "?")
_SHOW = ("show", "table", "s")

HELP_TEXT = """\
Commands at "Your move":
  N           play move number N of the list
  6:4         play the tile 6:4 (4:6 is the same tile); if it fits two ends
              that lead to different positions, you are asked which
  6:4 left    play it at an end: left (l), right (r), up (u), down (d)
  replace     Dominoball: draw a tile for replacement instead of playing
  show        show the table again
  help        this text
  quit        save the match and stop; `dominoai play --continue` resumes it
Draws and passes happen by themselves. There is no undo: taking a tile back
after seeing the replies would reveal hidden tiles."""


class PlayError(ValueError):
    """A game that cannot start or go on (bad options, no saved match, an
    unreadable save, a data directory that cannot be written): one line."""


class _Stop(Exception):
    """The human stops: ``reason`` is ``"eof"`` or ``"quit"``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _BotFailed(Exception):
    """A bot raised or chose an illegal move: reported, the match kept."""


class _Retry(Exception):
    """An answer that is not a move: the message, then the prompt again."""


# ---------------------------------------------------------------- helpers
def user_data_path(override: "str | os.PathLike | None" = None) -> Path:
    """The user data directory: ``override``, else ``$DOMINOAI_DATA_DIR``, else
    ``platformdirs.user_data_dir("dominoai")``. Not created here."""
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env)
    from platformdirs import user_data_dir
    return Path(user_data_dir("dominoai"))


def partner_spec(opponents: str) -> str:
    """The human's partner in partnership presets: at least ``hard`` (seed
    002: Max plays at least "Сложный"); stronger opponents' level otherwise.

    >>> partner_spec("easy"), partner_spec("medium:seed=3"), partner_spec("insane")
    ('hard', 'hard', 'insane')
    """
    from .bots import parse_spec
    name, _ = parse_spec(opponents)
    return "hard" if name in ("easy", "medium") else opponents


def level_name(spec: str) -> str:
    """The opponent level a bot spec counts under in the stats: the spec
    without its seed, parameters sorted.

    >>> level_name("insane:seed=4,worlds=50"), level_name(" hard ")
    ('insane:worlds=50', 'hard')
    """
    from .bots import parse_spec
    name, params = parse_spec(spec)
    params.pop("seed", None)
    return name + (":" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) if params else "")


def variant_key(rules: Rules) -> str:
    """The variant a match counts under in the stats: the preset, with the
    number of players when it is not the preset's default, and ``-pairs``
    for partnerships the preset does not have by default.

    >>> variant_key(get_rules("draw")), variant_key(get_rules("draw", players=3))
    ('draw', 'draw-3p')
    >>> variant_key(get_rules("express", players=4, partnerships=True))
    'express-4p-pairs'
    """
    key = rules.preset
    default_players = PRESETS[rules.preset][1]
    if rules.players != default_players:
        key += f"-{rules.players}p"
    if rules.partnerships and not get_rules(rules.preset, players=rules.players).partnerships:
        key += "-pairs"
    return key


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


_STAT_FIELDS = ("matches", "wins", "losses", "draws", "hands", "hands_won")


def load_stats(directory: "str | os.PathLike") -> dict:
    """The stats ``{variant: {level: {matches, wins, losses, draws, hands,
    hands_won}}}`` kept in ``directory``; empty when there are none.

    :raises ValueError: a stats file that cannot be read or is malformed.
    """
    path = Path(directory) / STATS_FILE
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
    games = data.get("games") if isinstance(data, dict) and data.get("format") == STATS_FORMAT else None
    if not isinstance(games, dict) or not all(
            isinstance(v, dict) and all(isinstance(e, dict) for e in v.values()) for v in games.values()):
        raise ValueError(f"{path}: not a {STATS_FORMAT} file")
    out: dict = {}
    for variant, levels in games.items():
        for level, entry in levels.items():
            out.setdefault(variant, {})[level] = {
                k: int(entry[k]) if isinstance(entry.get(k), int) and not isinstance(entry.get(k), bool) else 0
                for k in _STAT_FIELDS}
    return out


def format_stats(stats: dict, variant: str, level: str | None = None) -> str:
    """A small table of ``stats`` for ``variant``, one row per opponent level
    (``level``, the one just played, marked with ``*``)."""
    levels = stats.get(variant, {})
    if not levels:
        return f"No statistics yet for {variant}."
    order = {n: i for i, n in enumerate(("easy", "medium", "hard", "insane"))}
    rows = sorted(levels, key=lambda n: (order.get(n.partition(":")[0], 9), n))
    w = max(8, *(len(n) for n in rows)) + 2
    lines = [f"Your statistics for {variant}:",
             f"  {'level':<{w}}{'matches':>8}{'wins':>6}{'losses':>8}{'draws':>7}{'hands':>7}{'won':>6}"]
    for n in rows:
        e = levels[n]
        mark = "*" if n == level else " "
        lines.append(f"{mark} {n:<{w}}{e['matches']:>8}{e['wins']:>6}{e['losses']:>8}{e['draws']:>7}"
                     f"{e['hands']:>7}{e['hands_won']:>6}")
    return "\n".join(lines)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _new_seed() -> int:
    return int(np.random.SeedSequence().entropy % (1 << 63))


def _bot_seeds(seed: int, players: int) -> list[int]:
    return [int(c.generate_state(1, np.uint64)[0] & np.uint64(0x7FFFFFFFFFFFFFFF))
            for c in np.random.SeedSequence(seed).spawn(players)]


# ---------------------------------------------------------------- the game
class _Game:
    """One play session: the match, the bots, the streams, the save file."""

    def __init__(self, match: Match, meta: dict, bots: dict, directory: Path,
                 stdin: TextIO, stdout: TextIO):
        self.match = match
        self.rules = match.rules
        self.meta = meta
        self.seat = int(meta["seat"])
        self.bots = bots
        self.dir = directory
        self.inp = stdin
        self.out = stdout
        self.path = directory / MATCH_FILE
        self.side = self.rules.side_of(self.seat)
        self.partner = (self.seat + 2) % 4 if self.rules.partnerships else None
        self.printed = 0              # events of the current hand already shown
        self.mine: set = set()        # the human's tiles as last shown
        self.shown_result = False     # the current hand's result is on screen
        try:
            self.echo = not stdin.isatty()
        except (AttributeError, ValueError):
            self.echo = True
        try:
            self.tty = stdin is sys.stdin and stdout is sys.stdout and stdin.isatty() and stdout.isatty()
        except (AttributeError, ValueError):
            self.tty = False

    # -- output and input
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def ask(self, prompt: str) -> str:
        """One answer (stripped); :class:`_Stop` on end of input or ``quit``."""
        self.out.flush()
        if self.tty:
            try:
                line = input(prompt)
            except EOFError:
                self.say()
                raise _Stop("eof") from None
            text = line.strip()
        else:
            self.out.write(prompt)
            self.out.flush()
            try:
                line = self.inp.readline()
            except UnicodeDecodeError:
                line = "\ufffd\n"
            if not line:
                self.say()
                raise _Stop("eof")
            text = line.strip()
            if self.echo:
                self.say(text)
        if text.lower() in _QUIT:
            raise _Stop("quit")
        return text

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

    # -- saving
    def save(self) -> None:
        from .records import dumps_record, record_from_match
        seats = ["you" if s == self.seat else self.meta["bots"][s] for s in range(self.rules.players)]
        rec = record_from_match(self.match, seats)
        rec["play"] = self.meta
        try:
            _atomic_write(self.path, dumps_record(rec))
        except OSError as e:
            raise PlayError(f"cannot save the match to {self.path}: {e.strerror or e}") from None

    # -- the table
    def line_text(self, hand: Hand) -> list[str]:
        """The line as text: left arm, lead, right arm; up and down arms below."""
        arms: dict[int, list[str]] = {0: [], 1: [], 2: [], 3: []}
        pips: dict[int, int] = {}
        lead = None
        spinner = hand.spinner
        for ev in hand.events:
            if ev.kind != "play":
                continue
            t = ev.tile
            if lead is None:
                a, b = (t.low, t.high) if ev.end == 1 else (t.high, t.low)
                lead = f"{a}:{b}"
                pips = {0: a, 1: b}
                continue
            k = ev.end
            touch = pips.get(k, spinner.high if spinner is not None else t.high)
            outer = t.low if t.high == touch else t.high
            pips[k] = outer
            if k == 0:
                arms[0].insert(0, f"{outer}:{touch}")
            else:
                arms[k].append(f"{touch}:{outer}")
        if lead is None:
            return ["(empty: the first tile leads)"]
        main = arms[0] + [lead] + arms[1]
        if spinner is not None:
            s = str(spinner)
            main = [f"[{x}]" if x == s else x for x in main]
        out = [" ".join(main)]
        if spinner is not None and any(e[0] in (2, 3) for e in hand.ends):
            side = [f"{END_NAMES[k]}: " + (" ".join(arms[k]) if arms[k] else "(open)") for k in (2, 3)]
            out.append(f"from [{spinner}]  " + "   ".join(side))
        return out

    def ends_text(self, hand: Hand) -> str:
        parts = []
        for k, pip, kind in hand.ends:
            extra = " (double)" if kind == 1 else " (open side of the spinner)" if kind == 2 else ""
            parts.append(f"{END_NAMES[k]} {pip}{extra}")
        return " · ".join(parts) if parts else "none yet"

    def score_text(self) -> str:
        r = self.rules
        m = self.match
        if r.hand_scoring == "losers_record":
            carry = self._carry()
            eggs = f"; eggs carried {carry}" if carry else ""
            return (f"Recorded: {self.sides_line(m.scores)}   (low is good: the first pair to "
                    f"{r.target} loses{eggs})")
        if r.hand_scoring == "strikes":
            goals = " : ".join(str(g) for g in m.goals)
            return (f"Strikes: {self.sides_line(m.scores)}   goals {goals} (the first goal needs 5 "
                    f"strikes, each further goal 4 more; one hand)")
        if r.match_hands == 1:
            return f"Score: {self.sides_line(m.scores)}   (a one-hand match)"
        when = "reaching it wins at once" if r.instant_target else "checked after each hand"
        return f"Score: {self.sides_line(m.scores)}   (target {r.target}, {when})"

    def _carry(self) -> int:
        from .observation import O_CARRY
        h = self.match.current
        return int(h.observe(self.seat).array[O_CARRY]) if h is not None else 0

    def show_table(self, hand: Hand) -> None:
        r = self.rules
        self.say()
        self.say(f"--- Hand {hand.index + 1}, your turn " + "-" * 40)
        lines = self.line_text(hand)
        self.say(f"Line:   {lines[0]}" + (f"   ({_plural(len(hand.line), 'tile')})" if hand.ends else ""))
        for extra in lines[1:]:
            self.say(f"        {extra}")
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
            unit = "strike" if r.end_scoring == "strikes" else "point"
            text += f"   +{_plural(pts, unit)}"
        return text

    def show_moves(self, hand: Hand, moves: list[Move]) -> None:
        pts = self._move_points(hand, moves)
        must = hand.must_play
        if must is not None and hand.ends and any(e.kind == "draw" and e.seat == self.seat
                                                  for e in hand.events[-1:]):
            self.say(f"You must play {must}, the tile you just drew.")
        self.say("Your moves:")
        for i, (m, p) in enumerate(zip(moves, pts), 1):
            self.say(f"  {i:>2}) {self.move_label(hand, m, p)}")

    def _move_points(self, hand: Hand, moves: list[Move]) -> list[int]:
        if self.rules.end_scoring == "none":
            return [0] * len(moves)
        from .bots.simple import immediate_points
        st = hand.observe(self.seat).engine_state()
        rv = self.rules.vector()
        return [0 if m.replace else int(immediate_points(st, rv, m.code)) for m in moves]

    # -- events
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
                    unit = "strike" if self.rules.end_scoring == "strikes" else "point"
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

    # -- hands
    def start_hand(self) -> Hand:
        hand = self.match.new_hand()
        self.save()
        self.printed = 0
        self.shown_result = False
        self.mine = set(hand.tiles(self.seat))
        self.say()
        self.say(f"=== Hand {hand.index + 1} === {self.name(hand.leader, cap=True)} "
                 f"{self.verb(hand.leader, 'lead')}.")
        self.say(f"Your tiles: {self.tiles_text(hand.tiles(self.seat))}")
        return hand

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
        unit = {"losers_record": "Recorded", "strikes": "Strikes"}.get(r.hand_scoring, "Points")
        self.say(f"  {unit} this hand: {self.sides_line(res.points)}")
        if r.hand_scoring == "losers_record" and res.winner is None and res.end == "blocked":
            self.say(f"  Eggs: equal pips; {self._carry()} carried into the next hand.")
        self.say(self.score_text())
        self.shown_result = True

    # -- turns
    def bot_turn(self, hand: Hand) -> None:
        seat = hand.seat
        bot = self.bots[seat]
        self.out.flush()  # show what happened so far while the bot thinks
        try:
            move = bot.act(hand.observe(seat))
            before = hand.points
            hand.play(move)
        except Exception as e:  # a bot that fails must not lose the match
            raise _BotFailed(f"the bot at seat {seat} ({self.meta['bots'][seat]}) failed: "
                             f"{type(e).__name__}: {e}") from None
        self.save()
        after = hand.points
        self.flush_events(hand, tuple(a - b for a, b in zip(after, before)) if not hand.over else None)

    def human_turn(self, hand: Hand) -> None:
        self.flush_events(hand)
        moves = hand.legal_moves()
        self.show_table(hand)
        self.show_moves(hand, moves)
        while True:
            text = self.ask("Your move: ")
            low = text.lower()
            if not low:
                self.say("Type the number of a move, a tile like 6:4, or help.")
                continue
            if low in _HELP:
                self.say(HELP_TEXT)
                continue
            if low in _SHOW:
                self.show_table(hand)
                self.show_moves(hand, moves)
                continue
            try:
                move = self.parse_answer(hand, moves, text)
            except _Retry as e:
                self.say(str(e))
                continue
            if move is None:  # went back from the end question
                self.show_moves(hand, moves)
                continue
            break
        before = hand.points
        hand.play(move)
        self.save()
        after = hand.points
        self.flush_events(hand, tuple(a - b for a, b in zip(after, before)) if not hand.over else None)

    def _ends_hint(self, hand: Hand) -> str:
        ends = ", ".join(f"{END_NAMES[k]} {p}" for k, p, _ in hand.ends)
        return f" (open ends: {ends})" if ends else ""

    def _human(self, why: str, hand: Hand) -> str:
        """Turn an explanation about seat N into one about "you"."""
        s = f"seat {self.seat}"
        why = why.replace(f"{s}: ", "").replace(f"{s} does not", "you do not").replace(f"{s} ", "you ")
        if why.startswith("you must play") and hand.ends:
            why += ", the tile you just drew"
        why = re.sub(r" \(it shows (\d)\)", r", which shows \1", why)
        if "does not fit" in why or "no open" in why:
            why += self._ends_hint(hand)
        return why[0].upper() + why[1:] + "."

    def parse_answer(self, hand: Hand, moves: list[Move], text: str) -> Move | None:
        """The move an answer names; :class:`_Retry` with the reason when it
        names none; None when the human went back from the end question."""
        low = text.lower()
        if low.isdigit():
            n = int(low)
            if 1 <= n <= len(moves):
                return moves[n - 1]
            raise _Retry(f"There is no move {n}: choose 1 to {len(moves)}, or type a tile.")
        if low in ("replace", "replacement") or (low == "r" and self.rules.max_replacements):
            m = Move.replacement()
            why = hand.explain(m)
            if why is not None:
                raise _Retry(self._human(why, hand))
            return m
        parts = low.replace("@", " ").split()
        if ":" not in parts[0] or len(parts) > 2:
            raise _Retry(f"I do not understand {text!r}. Type the number of a move, a tile like 6:4 "
                         f"(with left/right/up/down if needed), or help.")
        try:
            tile = Tile(parse_tile(parts[0]))
        except ValueError as e:
            raise _Retry(f"{str(e)[0].upper()}{str(e)[1:]}.") from None
        end = None
        if len(parts) == 2:
            end = _END_WORDS.get(parts[1])
            if end is None:
                open_ = ", ".join(END_NAMES[k] for k, _, _ in hand.ends) or "none before the lead"
                raise _Retry(f"There is no end {parts[1]!r}: the ends are left (l), right (r), up (u) "
                             f"and down (d); open now: {open_}.")
        fits = [m for m in moves if not m.replace and m.tile == tile]
        if end is not None:
            if not hand.ends:  # the lead takes no end; left/right are let through
                if end in (2, 3):
                    raise _Retry(f"There is no {END_NAMES[end]} end yet: the line is empty. "
                                 f"Type {tile} to lead it.")
                if fits:
                    return fits[0]
            else:
                why = hand.explain(Move(tile, end))
                if why is None:
                    return Move(tile, end)
                raise _Retry(self._human(why, hand))
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1:
            return self.ask_end(hand, tile, fits)
        why = hand.explain(Move(tile)) or f"{tile} is not a move here"
        if "does not fit" in why:
            why = f"{tile} does not fit any open end"
        raise _Retry(self._human(why, hand))

    def ask_end(self, hand: Hand, tile: Tile, fits: list[Move]) -> Move | None:
        names = [END_NAMES[m.end] for m in fits]
        pips = dict((k, p) for k, p, _ in hand.ends)
        where = " and ".join(f"{END_NAMES[m.end]} (on the {pips[m.end]})" for m in fits)
        self.say(f"{tile} fits {where}.")
        while True:
            text = self.ask(f"Which end? [{'/'.join(names)}, Enter to choose again]: ")
            low = text.lower()
            if low in ("", "back", "cancel", "b"):
                return None
            if low in _HELP:
                self.say(f"Type one of {', '.join(names)} (or its first letter) to play {tile} "
                         f"there; Enter goes back to the moves; quit saves and stops.")
                continue
            end = _END_WORDS.get(low)
            if end is None and low.isdigit() and 1 <= int(low) <= len(fits):
                end = fits[int(low) - 1].end
            if end is None:
                self.say(f"There is no end {text!r}: type {' or '.join(names)}.")
                continue
            why = hand.explain(Move(tile, end))
            if why is None:
                return Move(tile, end)
            self.say(self._human(why, hand))

    # -- the match
    def finish(self) -> None:
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
        won = [0] * r.sides
        for h in m.hands:
            res = h.result
            if res is not None and res.winner is not None:
                won[res.winner] += 1
        self.say(f"Hands won: {self.sides_line(won)}   ({_plural(len(m.hands), 'hand')} played)")
        variant, level = self.meta["variant"], self.meta["level"]
        try:
            stats = load_stats(self.dir)
        except ValueError as e:
            self.say(f"(The stats file could not be read ({e}); it is started afresh.)")
            stats = {}
        e = stats.setdefault(variant, {}).setdefault(level, {k: 0 for k in _STAT_FIELDS})
        e["matches"] += 1
        e[outcome] += 1
        e["hands"] += len(m.hands)
        e["hands_won"] += won[self.side]
        text = json.dumps({"format": STATS_FORMAT, "games": stats}, indent=2, sort_keys=True) + "\n"
        try:
            _atomic_write(self.dir / STATS_FILE, text)
        except OSError as err:
            self.say(f"(The stats could not be saved to {self.dir / STATS_FILE}: {err.strerror or err}.)")
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as err:
            self.say(f"(The finished match could not be removed from {self.path}: {err.strerror or err}.)")
        self.say()
        self.say(format_stats(stats, variant, level))

    def run(self, resumed: bool) -> int:
        hand = self.match.current
        if resumed and hand is not None:
            self.mine = set(hand.tiles(self.seat))
            evs = hand.events
            self.printed = len(evs)
            if hand.over:
                self.show_result(hand)
            else:
                self.say(f"Resuming hand {hand.index + 1}; the latest moves:")
                self.printed = max(0, len(evs) - 4)
                self.flush_events(hand)
        while True:
            hand = self.match.current
            if hand is None or hand.over:
                if hand is not None and not self.shown_result:
                    self.show_result(hand)
                if self.match.finished:
                    self.finish()
                    return 0
                if hand is not None:
                    self.ask("Press Enter for the next hand (or quit): ")
                hand = self.start_hand()
                continue
            if hand.seat == self.seat:
                self.human_turn(hand)
            else:
                self.bot_turn(hand)


def _setup_new(variant, players, opponents, seat, seed, overrides) -> tuple[Match, dict]:
    from .bots import make_bot
    variant = DEFAULT_VARIANT if variant is None else variant
    opponents = DEFAULT_OPPONENTS if opponents is None else str(opponents).strip()
    if players is not None:
        overrides = {"players": players, **overrides}
    try:
        rules = get_rules(variant, **overrides)
    except (ValueError, TypeError) as e:
        raise PlayError(str(e)) from None
    seat = 0 if seat is None else seat
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < rules.players:
        raise PlayError(f"--seat must be a seat 0..{rules.players - 1} (got {seat!r})")
    seed = _new_seed() if seed is None else int(seed)
    partner = partner_spec(opponents) if rules.partnerships else None
    try:
        level = level_name(opponents)
        specs: list = [None] * rules.players
        for s in range(rules.players):
            if s != seat:
                specs[s] = partner if rules.partnerships and s == (seat + 2) % 4 else opponents
                make_bot(specs[s])  # check the spec now
    except ValueError as e:
        raise PlayError(str(e)) from None
    meta = {"format": PLAY_FORMAT, "seat": int(seat), "opponents": opponents, "level": level,
            "partner": partner, "bots": specs, "variant": variant_key(rules), "seed": seed}
    return Match(rules, seed=seed), meta


def _load_saved(path: Path, seed) -> tuple[Match, dict]:
    from .records import RecordError, load_record, match_from_record
    if not path.exists():
        raise PlayError(f"no saved match to continue (looked for {path}); start one with `dominoai play`")
    try:
        rec = load_record(path)
    except RecordError as e:
        raise PlayError(f"the saved match cannot be read: {e}") from None
    meta = rec.extra.get("play")
    players = rec.rules.players
    ok = (isinstance(meta, dict) and isinstance(meta.get("seat"), int)
          and 0 <= meta["seat"] < players and isinstance(meta.get("bots"), list)
          and len(meta["bots"]) == players
          and all((b is None) == (s == meta["seat"]) and (b is None or isinstance(b, str))
                  for s, b in enumerate(meta["bots"]))
          and isinstance(meta.get("variant"), str) and isinstance(meta.get("level"), str))
    if not ok:
        raise PlayError(f"{path} is not a match saved by `dominoai play` (no valid \"play\" entry)")
    base = meta.get("seed") if isinstance(meta.get("seed"), int) else _new_seed()
    if seed is not None:
        base = int(seed)
    moves = sum(len(h.moves) for h in rec.hands)
    try:
        match = match_from_record(rec, seed=[base, len(rec.hands), moves])
    except RecordError as e:
        raise PlayError(f"the saved match {path} cannot be replayed: {e}") from None
    return match, meta


def play_game(variant: str | None = None, players: int | None = None, opponents: str | None = None,
              seat: int | None = None, seed: int | None = None, data_dir: "str | os.PathLike | None" = None,
              stdin: TextIO | None = None, stdout: TextIO | None = None, resume: bool = False,
              **rules_overrides: Any) -> int:
    """Play a match against bots, reading answers from ``stdin`` and writing
    to ``stdout`` (default: the process's). Returns the exit code: 0 when
    the match ends, or when the human quits or input ends (the match is
    saved; ``resume=True`` goes on with it); 1 when a bot fails (reported,
    the match saved before its move); 130 on Ctrl-C (saved too).

    :param variant: a preset (default ``draw``); ``players``: its player
        count (default: the preset's); ``rules_overrides``: other
        :class:`~dominoai.rules.Rules` fields (e.g. ``target=20``).
    :param opponents: a bot spec (``easy``, ``medium``, ``hard``, ``insane``
        or any registered bot, with parameters); default ``medium``.
    :param seat: the human's seat (default 0).
    :param seed: seeds the deals and the bots (default: fresh entropy).
    :param data_dir: where the saved match and the stats live (default:
        :func:`user_data_path`).
    :param resume: continue the saved match; ``variant``, ``players``,
        ``opponents``, ``seat`` and rules overrides are then taken from it.
    :raises PlayError: bad options, no saved match to continue, an
        unreadable save, or a save that cannot be written.
    """
    from .bots import make_bot
    out = sys.stdout if stdout is None else stdout
    if stdin is None:
        stdin = sys.stdin
        try:  # a line that is not UTF-8 is an answer like any other, not a crash
            stdin.reconfigure(errors="replace")
        except (AttributeError, ValueError, OSError):
            pass
    directory = user_data_path(data_dir)
    path = directory / MATCH_FILE
    if resume:
        match, meta = _load_saved(path, seed)
        given = [n for n, v in (("--variant", variant), ("--players", players), ("--opponents", opponents),
                                ("--seat", seat)) if v is not None] + [f"--{k}" for k in rules_overrides]
    else:
        match, meta = _setup_new(variant, players, opponents, seat, seed, rules_overrides)
    r = match.rules
    base_seed = meta.get("seed") if isinstance(meta.get("seed"), int) else 0
    seeds = _bot_seeds(base_seed, r.players)
    try:
        bots = {s: make_bot(spec, seed=seeds[s]) for s, spec in enumerate(meta["bots"]) if spec is not None}
    except ValueError as e:
        raise PlayError(f"the saved match names a bot that cannot be built: {e}") from None
    game = _Game(match, meta, bots, directory, stdin, out)
    human = game.seat
    pairs = ", pairs 0+2 v 1+3" if r.partnerships else ""
    if resume:
        game.say(f"dominoai play: continuing the saved {meta['variant']} match "
                 f"(hand {len(match.hands)}).")
        if given:
            game.say(f"({', '.join(given)} ignored: a continued match keeps its settings.)")
    else:
        if path.exists():
            game.say(f"(An unfinished match was saved in {path}; this new match replaces it.)")
        game.say(f"dominoai play: {r.preset}, {r.players} players{pairs}.")
    if r.partnerships:
        p = game.partner
        opp = ", ".join(f"seat {s} ({meta['bots'][s]})" for s in range(r.players) if s not in (human, p))
        game.say(f"You are seat {human}; your partner is seat {p} ({meta['bots'][p]}); "
                 f"opponents: {opp}.")
    else:
        opp = ", ".join(f"seat {s} ({meta['bots'][s]})" for s in range(r.players) if s != human)
        game.say(f"You are seat {human}; opponents: {opp}.")
    game.say(game.score_text())
    game.say("Type help for the commands. There is no undo.")
    try:
        return game.run(resumed=resume)
    except _Stop as s:
        game.save()
        why = "End of input" if s.reason == "eof" else "Stopped"
        game.say(f"{why}: the match is saved; {RESUME_HINT}.")
        out.flush()
        return 0
    except _BotFailed as e:
        game.say(f"Error: {e}. The match is saved as it was before that move; {RESUME_HINT}.")
        out.flush()
        return 1
    except KeyboardInterrupt:
        try:
            game.save()
        except PlayError:
            pass
        game.say(f"\nInterrupted: the match is saved; {RESUME_HINT}.")
        out.flush()
        return 130
