"""The game loop of ``dominoai play``: a match between the human and bots.

:func:`play_game` ties the parts together: a :class:`Session` holds the
match, the bots and the data directory; it draws the table through
:class:`~dominoai.play.display.TableView`, reads answers through
:class:`~dominoai.play.input.Answers`, saves after the deal and after every
move (:mod:`~dominoai.play.saving`) and counts the finished match in the
stats (:mod:`~dominoai.play.stats`). A bot is asked for its move as in a
tournament (:func:`~dominoai.decide.decide`: a bot that declares
``needs_state`` gets the true state). In partnership presets (Kozel, Express
in pairs) the human's partner plays at least ``hard`` ("How to play
Domino" (Russian); docs/rules.md, Kozel): :func:`~dominoai.table.partner_spec`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .._files import free_path, user_data_path
from ..bots.spec import join_spec_params
from ..game import Hand
from ..rules import get_rules
from ..table import Table, fresh_seed, hands_won, partner_spec
from .display import TableView
from .errors import BotFailed, PlayError, PlayInputError, Retry, Stop
from .input import HELP_TEXT, HELP_WORDS, SHOW_WORDS, Answers
from .saving import LAST_MATCH_FILE, MATCH_FILE, REPLACED_MATCH_FILE, RESUME_HINT, load_saved, save_table
from .stats import format_stats, record_match

__all__ = ["play_game", "partner_spec", "Session", "setup_new", "DEFAULT_VARIANT", "DEFAULT_OPPONENTS"]

DEFAULT_VARIANT = "draw"
DEFAULT_OPPONENTS = "medium"


class Session:
    """One play session: the table (:class:`~dominoai.table.Table`: the
    match, the bots, the ``"play"`` entry, the bots' analyses), the
    streams, the save file.
    """

    def __init__(self, table: Table, directory: Path, stdin: TextIO, stdout: TextIO):
        self.table = table
        self.match = table.match
        self.rules = table.rules
        self.meta = table.meta
        self.seat = int(table.meta["seat"])
        self.dir = directory
        self.path = directory / MATCH_FILE
        self.view = TableView(self.match, self.seat, stdout)
        self.answers = Answers(stdin, self.view)

    def save(self, path: Path | None = None) -> None:
        """Save the match as it stands (:func:`~dominoai.play.saving.save_table`)
        to ``path`` (default: the current match's file).

        :raises PlayError: it cannot be written.
        """
        save_table(self.path if path is None else path, self.table)

    # -- hands and turns
    def start_hand(self) -> Hand:
        hand = self.table.start_hand()
        self.save()
        self.view.show_hand_start(hand)
        return hand

    def bot_turn(self, hand: Hand) -> None:
        seat = hand.seat
        self.view.out.flush()  # show what happened so far while the bot thinks
        try:
            move, entries = self.table.bot_decide()
            before = hand.points
            self.table.play_bot(move, entries)
        except Exception as e:  # a bot that fails must not lose the match
            raise BotFailed(f"the bot at seat {seat} ({self.meta['bots'][seat]}) failed: "
                             f"{type(e).__name__}: {e}") from None
        self.save()
        after = hand.points
        self.view.flush_events(hand, tuple(a - b for a, b in zip(after, before)) if not hand.over else None)

    def human_turn(self, hand: Hand) -> None:
        self.view.flush_events(hand)
        moves = hand.legal_moves()
        self.view.show_table(hand)
        self.view.show_moves(hand, moves)
        while True:
            text = self.answers.ask("Your move: ")
            low = text.lower()
            if not low:
                self.view.say("Type the number of a move, a tile like 6:4, or help.")
                continue
            if low in HELP_WORDS:
                self.view.say(HELP_TEXT)
                continue
            if low in SHOW_WORDS:
                self.view.show_table(hand)
                self.view.show_moves(hand, moves)
                continue
            try:
                move = self.answers.parse_answer(hand, moves, text)
            except Retry as e:
                self.view.say(str(e))
                continue
            if move is None:  # went back from the end question
                self.view.show_moves(hand, moves)
                continue
            break
        before = hand.points
        self.table.play(self.seat, move)
        self.save()
        after = hand.points
        self.view.flush_events(hand, tuple(a - b for a, b in zip(after, before)) if not hand.over else None)

    # -- the match
    def finish(self) -> None:
        """The match is over: show it, count it in the stats, remove the save."""
        outcome = self.view.show_match_over()
        variant, level = self.meta["variant"], self.meta["level"]
        won = hands_won(self.match)[self.view.side]
        stats = record_match(self.dir, variant, level, outcome, len(self.match.hands), won, self.view.say)
        if self.meta.get("analysis"):
            last = self.dir / LAST_MATCH_FILE
            try:
                self.save(last)
                self.view.say(f"The match, with the bots' analyses, is in {last} "
                              f"(`dominoai view` it).")
            except PlayError as err:
                self.view.say(f"({err}.)")
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as err:
            self.view.say(f"(The finished match could not be removed from {self.path}: {err.strerror or err}.)")
        self.view.say()
        self.view.say(format_stats(stats, variant, level))

    def run(self, resumed: bool) -> int:
        hand = self.match.current
        if resumed and hand is not None:
            self.view.show_resumed(hand)
        while True:
            hand = self.match.current
            if hand is None or hand.over:
                if hand is not None and not self.view.shown_result:
                    self.view.show_result(hand)
                if self.match.finished:
                    self.finish()
                    return 0
                if hand is not None:
                    self.answers.ask("Press Enter for the next hand (or quit): ")
                hand = self.start_hand()
                continue
            if hand.seat == self.seat:
                self.human_turn(hand)
            else:
                self.bot_turn(hand)


def setup_new(variant, players, opponents, seat, seed, overrides, analysis: bool = False) -> Table:
    """The table of a new terminal match: the human in ``seat`` (default 0),
    ``opponents`` (default ``medium``) in the others (a partner at least
    ``hard``: :func:`~dominoai.table.partner_spec`).

    :raises PlayError: bad rules, seat or bot spec.
    """
    variant = DEFAULT_VARIANT if variant is None else variant
    opponents = DEFAULT_OPPONENTS if opponents is None else str(opponents).strip()
    opponents = join_spec_params(opponents)      # 'insane:worlds=400+exact=0', as the tournament
    if players is not None:
        overrides = {"players": players, **overrides}
    try:
        rules = get_rules(variant, **overrides)
    except (ValueError, TypeError) as e:
        raise PlayError(str(e)) from None
    seat = 0 if seat is None else seat
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < rules.players:
        raise PlayInputError("seat", seat, f"$seat must be a seat 0..{rules.players - 1} (got {seat!r})")
    seed = fresh_seed() if seed is None else int(seed)
    try:
        return Table.new(variant, None, opponents, [int(seat)], seed, overrides, analysis)
    except (ValueError, TypeError) as e:
        raise PlayError(str(e)) from None


def play_game(variant: str | None = None, players: int | None = None, opponents: str | None = None,
              seat: int | None = None, seed: int | None = None, data_dir: "str | os.PathLike | None" = None,
              stdin: TextIO | None = None, stdout: TextIO | None = None, resume: bool = False,
              analysis: bool = False, **rules_overrides: Any) -> int:
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
        ``opponents``, ``seat``, ``analysis`` and rules overrides are then
        taken from it.
    :param analysis: store each bot decision's move values in the saved
        match (a bot with a ``last`` search result, as ``insane``:
        :func:`~dominoai.decide.analysis_of`); the finished match
        is kept as ``<data>/last_match.json`` for ``dominoai view``.
    :raises PlayError: bad options, no saved match to continue, an
        unreadable save, or a save that cannot be written.
    """
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
        table = load_saved(path, seed)
        meta = table.meta
        given = [n for n, v in (("--variant", variant), ("--players", players), ("--opponents", opponents),
                                ("--seat", seat)) if v is not None] + [f"--{k}" for k in rules_overrides]
        if analysis and not meta.get("analysis"):
            given.append("--analysis")
    else:
        table = setup_new(variant, players, opponents, seat, seed, rules_overrides, analysis)
        meta = table.meta
    match = table.match
    r = match.rules
    game = Session(table, directory, stdin, out)
    human = game.seat
    pairs = ", pairs 0+2 v 1+3" if r.partnerships else ""
    if resume:
        game.view.say(f"dominoai play: continuing the saved {meta['variant']} match "
                 f"(hand {len(match.hands)}).")
        if given:
            game.view.say(f"({', '.join(given)} ignored: a continued match keeps its settings.)")
    else:
        if path.exists():
            kept = free_path(directory / REPLACED_MATCH_FILE)
            os.replace(path, kept)
            game.view.say(f"(The unfinished match saved before is kept in {kept}; to continue it "
                          f"instead, quit and move it back to {path}.)")
        game.view.say(f"dominoai play: {r.preset}, {r.players} players{pairs}.")
    if r.partnerships:
        p = game.view.partner
        opp = ", ".join(f"seat {s} ({meta['bots'][s]})" for s in range(r.players) if s not in (human, p))
        game.view.say(f"You are seat {human}; your partner is seat {p} ({meta['bots'][p]}); "
                 f"opponents: {opp}.")
    else:
        opp = ", ".join(f"seat {s} ({meta['bots'][s]})" for s in range(r.players) if s != human)
        game.view.say(f"You are seat {human}; opponents: {opp}.")
    game.view.say(game.view.score_text())
    game.view.say("Type help for the commands. There is no undo.")
    try:
        return game.run(resumed=resume)
    except Stop as s:
        game.save()
        why = "End of input" if s.reason == "eof" else "Stopped"
        game.view.say(f"{why}: the match is saved; {RESUME_HINT}.")
        out.flush()
        return 0
    except BotFailed as e:
        game.view.say(f"Error: {e}. The match is saved as it was before that move; {RESUME_HINT}.")
        out.flush()
        return 1
    except KeyboardInterrupt:
        try:
            game.save()
        except PlayError:
            pass
        game.view.say(f"\nInterrupted: the match is saved; {RESUME_HINT}.")
        out.flush()
        return 130

