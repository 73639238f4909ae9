"""Play a match against the bots in a terminal (``dominoai play``).

The package's parts: :mod:`.session` (the game loop, :func:`play_game`),
:mod:`.display` (drawing the table in text), :mod:`.input` (reading and
parsing the human's answers), :mod:`.saving` (the saved match, resume),
:mod:`.stats` (wins and losses per variant and level) and :mod:`.command`
(the ``dominoai play`` command). The package's names are imported from
their module on first use, so that ``dominoai --help`` loads no numba.

:func:`play_game` is the whole game loop, reading answers from one text
stream and writing to another, so it runs the same in a terminal, under a
test (``io.StringIO``) or through a pipe. The table is shown before each of
the human's decisions: the line, laid as on the table from the same layout
as the SVG pictures (:mod:`dominoai.render.layout`), the open ends, the human's tiles, every hand size, the boneyard, the score and the
target; then the legal moves, numbered. Bots' moves, forced draws (with
their counts) and passes are shown as they happen; the hand's result (each
seat's tiles left, pips, points) between hands.

At the prompt the human types the number of a listed move, or a tile
(``6:4`` or ``4:6``) with an end if needed (``6:4 left``, ``6:4 l``); a tile
that fits two ends that are not equivalent asks which. ``help`` lists the
commands, ``quit`` saves and stops. Anything that is not a legal move gets a
one-line reason (:meth:`~dominoai.game.Hand.explain`) and the prompt again;
end of input saves and stops cleanly. There is no undo ("How to play
Dominoes" (Bulgarian): taking a tile back after seeing the replies would
reveal hidden tiles).

The match is written as a ``dominoai.record/1`` record to
``<data>/current_match.json`` after the deal and after every move (a temporary
file, then :func:`os.replace`), with a ``"play"`` entry naming the human's
seat and the bots; ``resume=True`` (``dominoai play --continue``) replays it
(:func:`~dominoai.records.match_from_record`) and goes on. When the match
ends, ``<data>/stats.json`` counts matches, wins, losses, draws, hands and
hands won per variant and opponent level (as "How to play Domino"
(Russian) asks), is shown, and the saved match is removed. With ``analysis=True`` (``dominoai play --analysis``) each
bot decision a bot analysed (``insane``: its move values) is stored with the
move in the saved match, and the finished match is kept as
``<data>/last_match.json`` for ``dominoai view``. ``<data>`` is ``$DOMINOAI_DATA_DIR`` if set, else
``platformdirs.user_data_dir("dominoai")``.

In partnership presets (Kozel, Express in pairs) the human's partner plays at
least ``hard`` ("How to play Domino" (Russian); docs/rules.md, Kozel):
``easy`` and ``medium`` opponents get a ``hard`` partner; any stronger level
(``insane``) plays the partner too.

>>> import io, tempfile
>>> from dominoai.play import play_game
>>> out = io.StringIO()
>>> with tempfile.TemporaryDirectory() as d:
...     code = play_game("draw", opponents="easy", seed=5, target=10, data_dir=d,
...                      stdin=io.StringIO("1\\n" * 300), stdout=out)
>>> code, "Match over" in out.getvalue()
(0, True)
"""

from __future__ import annotations

from .._lazy import lazy_names as _lazy_names

# public name -> its module: one of this package, or ".._files", dominoai's own
_WHERE = {
    "PlayError": "errors", "play_game": "session", "partner_spec": "session",
    "variant_key": "stats", "level_name": "stats", "load_stats": "stats", "format_stats": "stats",
    "STATS_FILE": "stats", "MATCH_FILE": "saving", "LAST_MATCH_FILE": "saving",
    "REPLACED_MATCH_FILE": "saving",
    "user_data_path": ".._files", "ENV_DATA_DIR": ".._files",
}

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
    "LAST_MATCH_FILE",
    "REPLACED_MATCH_FILE",
    "STATS_FILE",
    "ENV_DATA_DIR",
]


__getattr__, __dir__ = _lazy_names(__name__, _WHERE, globals(), __all__)
