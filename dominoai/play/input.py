"""Reading the human's answers in ``dominoai play`` and parsing them into moves.

At the prompt the human types the number of a listed move, or a tile
(``6:4`` or ``4:6``) with an end if needed (``6:4 left``, ``6:4 l``); a tile
that fits two ends that are not equivalent asks which (Enter goes back).
``help`` lists the commands (:data:`HELP_TEXT`), ``show`` draws the table
again, ``quit`` stops (:class:`~dominoai.play.errors.Stop`, the match is
saved). Anything that is not a legal move gets a one-line reason, from
:meth:`~dominoai.game.Hand.explain` told to "you"
(:class:`~dominoai.play.errors.Retry`), and the prompt again. End of input
stops cleanly; a line that is not UTF-8 is an answer like any other.
There is no undo ("How to play Dominoes" (Bulgarian): taking a tile back
after seeing the replies would reveal hidden tiles).
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

from ..game import END_NAMES, Hand, Move
from ..tiles import Tile, parse_tile
from .errors import Retry, Stop

__all__ = ["Answers", "HELP_TEXT", "HELP_WORDS", "SHOW_WORDS", "QUIT_WORDS", "END_WORDS"]

END_WORDS = {"l": 0, "left": 0, "r": 1, "right": 1, "u": 2, "up": 2, "d": 3, "down": 3}
QUIT_WORDS = ("quit", "q", "exit")
HELP_WORDS = ("help", "h", "?")
SHOW_WORDS = ("show", "table", "s")

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


class Answers:
    """The human's answers, read from ``stdin`` with the prompts written to
    ``view`` (a :class:`~dominoai.play.display.TableView`). When ``stdin`` is
    not a terminal each answer is echoed, so a transcript reads like a
    session; when both streams are the process's terminal, :func:`input`
    reads the line (with line editing)."""

    def __init__(self, stdin: TextIO, view):
        self.inp = stdin
        self.view = view
        self.out = view.out
        self.seat = view.seat
        self.rules = view.rules
        try:
            self.echo = not stdin.isatty()
        except (AttributeError, ValueError):
            self.echo = True
        try:
            self.tty = stdin is sys.stdin and self.out is sys.stdout and stdin.isatty() and self.out.isatty()
        except (AttributeError, ValueError):
            self.tty = False

    def say(self, text: str = "") -> None:
        self.view.say(text)

    def ask(self, prompt: str) -> str:
        """One answer (stripped); :class:`~dominoai.play.errors.Stop` on end of input or ``quit``."""
        self.out.flush()
        if self.tty:
            try:
                line = input(prompt)
            except EOFError:
                self.say()
                raise Stop("eof") from None
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
                raise Stop("eof")
            text = line.strip()
            if self.echo:
                self.say(text)
        if text.lower() in QUIT_WORDS:
            raise Stop("quit")
        return text

    def ends_hint(self, hand: Hand) -> str:
        ends = ", ".join(f"{END_NAMES[k]} {p}" for k, p, _ in hand.ends)
        return f" (open ends: {ends})" if ends else ""

    def human(self, why: str, hand: Hand) -> str:
        """Turn an explanation about seat N into one about "you"."""
        s = f"seat {self.seat}"
        why = why.replace(f"{s}: ", "").replace(f"{s} does not", "you do not").replace(f"{s} ", "you ")
        if why.startswith("you must play") and hand.ends:
            why += ", the tile you just drew"
        why = re.sub(r" \(it shows (\d)\)", r", which shows \1", why)
        if "does not fit" in why or "no open" in why:
            why += self.ends_hint(hand)
        return why[0].upper() + why[1:] + "."

    def parse_answer(self, hand: Hand, moves: list[Move], text: str) -> Move | None:
        """The move an answer names; :class:`~dominoai.play.errors.Retry` with the reason when it
        names none; None when the human went back from the end question."""
        low = text.lower()
        if low.isdigit():
            n = int(low)
            if 1 <= n <= len(moves):
                return moves[n - 1]
            raise Retry(f"There is no move {n}: choose 1 to {len(moves)}, or type a tile.")
        if low in ("replace", "replacement") or (low == "r" and self.rules.max_replacements):
            m = Move.replacement()
            why = hand.explain(m)
            if why is not None:
                raise Retry(self.human(why, hand))
            return m
        parts = low.replace("@", " ").split()
        if ":" not in parts[0] or len(parts) > 2:
            raise Retry(f"I do not understand {text!r}. Type the number of a move, a tile like 6:4 "
                         f"(with left/right/up/down if needed), or help.")
        try:
            tile = Tile(parse_tile(parts[0]))
        except ValueError as e:
            raise Retry(f"{str(e)[0].upper()}{str(e)[1:]}.") from None
        end = None
        if len(parts) == 2:
            end = END_WORDS.get(parts[1])
            if end is None:
                open_ = ", ".join(END_NAMES[k] for k, _, _ in hand.ends) or "none before the lead"
                raise Retry(f"There is no end {parts[1]!r}: the ends are left (l), right (r), up (u) "
                             f"and down (d); open now: {open_}.")
        fits = [m for m in moves if not m.replace and m.tile == tile]
        if end is not None:
            if not hand.ends:  # the lead takes no end; left/right are let through
                if end in (2, 3):
                    raise Retry(f"There is no {END_NAMES[end]} end yet: the line is empty. "
                                 f"Type {tile} to lead it.")
                if fits:
                    return fits[0]
            else:
                why = hand.explain(Move(tile, end))
                if why is None:
                    return Move(tile, end)
                raise Retry(self.human(why, hand))
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1:
            return self.ask_end(hand, tile, fits)
        why = hand.explain(Move(tile)) or f"{tile} is not a move here"
        if "does not fit" in why:
            why = f"{tile} does not fit any open end"
        raise Retry(self.human(why, hand))

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
            if low in HELP_WORDS:
                self.say(f"Type one of {', '.join(names)} (or its first letter) to play {tile} "
                         f"there; Enter goes back to the moves; quit saves and stops.")
                continue
            end = END_WORDS.get(low)
            if end is None and low.isdigit() and 1 <= int(low) <= len(fits):
                end = fits[int(low) - 1].end
            if end is None:
                self.say(f"There is no end {text!r}: type {' or '.join(names)}.")
                continue
            why = hand.explain(Move(tile, end))
            if why is None:
                return Move(tile, end)
            self.say(self.human(why, hand))
