"""The messages of ``dominoai serve``: reading a client's, building a seat's view.

Every frame is one JSON object with a ``"type"``. A client's message is
read by :func:`parse_message`: text of at most :data:`MAX_MESSAGE` bytes,
nested at most :data:`MAX_DEPTH` deep (counted before the text is decoded),
an object whose strings are all unicode characters (no lone surrogate), a
known ``type`` and fields of the right kinds; anything else raises
:class:`ProtocolError` (sent back as an ``error`` frame; nothing changes).
A seat's view of its table is built by :func:`seat_view` from that seat's
:class:`~dominoai.observation.Observation` alone, plus the public facts of
the table (names, level, who is ready); the tiles left in every hand are
added only once the hand is over (:func:`hand_result`). So no frame
carries another seat's tiles before the hand ends, nor the boneyard's
order (docs/serve.md lists every field).
"""

from __future__ import annotations

import json
import re

from ..moves import END_NAMES
from ..observation import O_CARRY, Observation
from ..records import lone_surrogate
from ..render.layout import line_layout

__all__ = ["MAX_MESSAGE", "MAX_DEPTH", "MESSAGE_TYPES", "ProtocolError", "parse_message", "seat_view", "hand_result",
           "rules_view", "error_frame"]

#: the largest client message, in bytes of UTF-8 text
MAX_MESSAGE = 4096
#: the deepest nesting of arrays and objects a client message may have (a
#: message is one flat object: depth 1)
MAX_DEPTH = 16

_STR, _INT, _BOOL = "str", "int", "bool"
#: the fields each client message may carry (name -> kind); others are refused
MESSAGE_TYPES: dict[str, dict[str, str]] = {
    "hello": {"name": _STR},
    "lobby": {},
    "open": {"variant": _STR, "players": _INT, "level": _STR, "fill": _BOOL, "listed": _BOOL,
             "alone": _BOOL, "target": _INT, "seat": _INT},
    "join": {"code": _STR, "seat": _INT},
    "play": {"code": _STR, "seat": _INT, "tile": _STR, "end": _STR, "replace": _BOOL},
    "next": {"code": _STR, "seat": _INT},
    "resume": {"code": _STR},
    "leave": {"code": _STR},
    "stats": {},
}
_REQUIRED = {"join": ("code",), "play": ("code",), "next": ("code",), "leave": ("code",)}
_KINDS = {_STR: (str,), _INT: (int,), _BOOL: (bool,)}
_END_KIND = ("plain", "double", "spinner")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests ``[`` and ``{`` deeper than :data:`MAX_DEPTH`
    outside its strings (read without decoding, so that no depth can
    exhaust the decoder)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for m in _BRACKET.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        else:
            depth -= 1
    return False


#: the longest name a guest may take, and the rule a refused name is told
NAME_LENGTH = 24
NAME_RULE = f"hello: a name is 1 to {NAME_LENGTH} printable characters (no control, format or invisible ones)"


def good_name(name: str) -> bool:
    """Whether ``name`` (stripped) may be a guest's name: 1 to
    :data:`NAME_LENGTH` characters, each printable (``str.isprintable``: no
    control characters, no format characters such as a zero-width space or
    a right-to-left override, no separators but the space)."""
    return 1 <= len(name) <= NAME_LENGTH and name.isprintable()


class ProtocolError(ValueError):
    """A message the server refuses: ``code`` names the kind (``"too_large"``,
    ``"too_deep"``, ``"bad_json"``, ``"bad_unicode"``, ``"bad_message"``,
    ``"unknown_type"``, ``"bad_field"``,
    and the table's: ``"no_table"``, ``"not_your_seat"``, ``"illegal_move"``,
    ...), the message says why in one line; ``request`` is the refused
    message's type where it is known."""

    def __init__(self, code: str, message: str, request: str | None = None):
        super().__init__(message)
        self.code = code
        self.request = request


def error_frame(code: str, message: str, request: str | None = None) -> dict:
    """The frame telling a client its message was refused."""
    d = {"type": "error", "error": code, "message": message}
    if request is not None:
        d["request"] = request
    return d


def parse_message(text) -> dict:
    """A client's message as a ``dict``, checked.

    :param text: the frame's text (``str``; ``bytes`` are refused).
    :raises ProtocolError: not text (``bad_message``), longer than
        :data:`MAX_MESSAGE` bytes (``too_large``), nested deeper than
        :data:`MAX_DEPTH` (``too_deep``), not JSON (``bad_json``), a string
        holding a lone surrogate (``bad_unicode``), not an object, an unknown ``type``, an unknown field, a
        field of the wrong kind, a required field missing, a string field
        longer than 64 characters.

    >>> parse_message('{"type": "play", "code": "abc", "tile": "6:4"}')
    {'type': 'play', 'code': 'abc', 'tile': '6:4'}
    >>> parse_message('{"type": "dance"}')
    Traceback (most recent call last):
    ...
    dominoai.serve.protocol.ProtocolError: unknown message type 'dance'; known: hello, lobby, open, join, play, next, resume, leave, stats
    """
    if not isinstance(text, str):
        raise ProtocolError("bad_message", "messages are JSON text, not binary frames")
    if len(text) > MAX_MESSAGE or len(text.encode("utf-8", "replace")) > MAX_MESSAGE:
        raise ProtocolError("too_large", f"a message may be at most {MAX_MESSAGE} bytes")
    if _too_deep(text):
        raise ProtocolError("too_deep", f"a message may nest arrays and objects at most {MAX_DEPTH} deep")
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ProtocolError("bad_json", f"not JSON: {e}") from None
    bad = lone_surrogate(msg)
    if bad is not None:
        kind = msg.get("type") if isinstance(msg, dict) else None
        raise ProtocolError("bad_unicode", f"a string holds a lone surrogate (U+{ord(bad):04X}), "
                                           "which is not a character", kind if kind in MESSAGE_TYPES else None)
    if not isinstance(msg, dict):
        raise ProtocolError("bad_message", "a message is a JSON object with a \"type\"")
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message is a JSON object with a \"type\" (a string)")
    if kind not in MESSAGE_TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {kind!r}; known: {', '.join(MESSAGE_TYPES)}")
    fields = MESSAGE_TYPES[kind]
    for k, v in msg.items():
        if k == "type":
            continue
        want = fields.get(k)
        if want is None:
            raise ProtocolError("bad_field", f"{kind}: unknown field {k!r}"
                                + (f"; fields: {', '.join(fields)}" if fields else "; it takes none"), request=kind)
        ok = isinstance(v, _KINDS[want]) and not (want == _INT and isinstance(v, bool))
        if not ok:
            raise ProtocolError("bad_field", f"{kind}: {k} must be a{'n' if want == _INT else ''} "
                                f"{ {'str': 'string', 'int': 'integer', 'bool': 'boolean'}[want]}", request=kind)
        if kind == "hello" and k == "name" and len(v) > NAME_LENGTH:
            raise ProtocolError("bad_field", NAME_RULE, request=kind)
        if want == _STR and len(v) > 64:
            raise ProtocolError("bad_field", f"{kind}: {k} is longer than 64 characters", request=kind)
        if want == _INT and not -1000 <= v <= 1000:
            raise ProtocolError("bad_field", f"{kind}: {k} is out of range", request=kind)
    for k in _REQUIRED.get(kind, ()):
        if k not in msg:
            raise ProtocolError("bad_field", f"{kind}: {k} is required", request=kind)
    return msg


def rules_view(rules) -> dict:
    """The rules a page needs to draw and label the table."""
    return {"preset": rules.preset, "players": rules.players, "partnerships": rules.partnerships,
            "sides": rules.sides, "target": rules.target, "points_unit": rules.points_unit,
            "low_is_good": rules.low_is_good, "drawing": rules.drawing, "end_scoring": rules.end_scoring,
            "match_hands": rules.match_hands, "boneyard_reserve": rules.boneyard_reserve,
            "max_replacements": rules.max_replacements}


def _event(ev) -> dict:
    if ev.kind == "play":
        d = {"kind": "play", "seat": ev.seat, "tile": str(ev.tile)}
        if ev.lead:
            t = ev.tile
            d["lead"] = True
            d["shown"] = f"{t.low}:{t.high}" if ev.end == 1 else f"{t.high}:{t.low}"
        else:
            d["end"] = END_NAMES[ev.end]
        return d
    if ev.kind == "draw":
        return {"kind": "draw", "seat": ev.seat, "count": ev.count, "on": list(ev.on)}
    if ev.kind == "pass":
        return {"kind": "pass", "seat": ev.seat, "on": list(ev.on)}
    return {"kind": "replace", "seat": ev.seat}


def _legal(obs: Observation) -> tuple[list, bool]:
    moves = obs.legal_moves()
    by_tile: dict[str, list] = {}
    for m in moves:
        if not m.replace:
            by_tile.setdefault(str(m.tile), []).append(END_NAMES[m.end])
    if not obs.ends:  # the lead: no end to choose
        by_tile = {t: [] for t in by_tile}
    return [{"tile": t, "ends": e} for t, e in by_tile.items()], any(m.replace for m in moves)


def seat_view(obs: Observation, hand_index: int, scores: tuple, goals: tuple | None) -> dict:
    """What ``obs``'s seat sees of the hand: its tiles, every hand's size,
    the boneyard's size, the events, the line laid out as the pictures lay
    it (:func:`~dominoai.render.layout.line_layout`), the open ends, the count,
    the spinner, whose turn, the legal moves (each tile with the ends it
    fits), the scores and the carried points. Built from ``obs`` only.

    :param hand_index: the hand's index in the match (0-based).
    :param scores: the match score per side (including this hand's points).
    :param goals: Dominoball's goals per side, or None.
    """
    events = obs.events
    line = [{"tile": str(p.tile), "a": p.a, "b": p.b, "x": p.x, "y": p.y, "dx": p.dx, "dy": p.dy,
             "arm": p.arm, "order": p.order, "last": p.last} for p in line_layout(events, obs.spinner)]
    legal, replace = _legal(obs) if obs.my_turn else ([], False)
    last = next((e for e in reversed(events) if e.kind == "play"), None)
    return {
        "index": hand_index,
        "step": len(events),
        "leader": obs.leader,
        "to_move": obs.to_move,
        "your_turn": obs.my_turn,
        "tiles": [str(t) for t in sorted(obs.hand, key=lambda t: (-t.pips, -t.high))],
        "sizes": list(obs.hand_sizes),
        "boneyard": obs.boneyard_size,
        "events": [_event(e) for e in events],
        "last": None if last is None else str(last.tile),
        "line": line,
        "ends": [{"end": END_NAMES[k], "pip": p, "kind": _END_KIND[kind]} for k, p, kind in obs.ends],
        "count": obs.count if obs.ends else 0,
        "spinner": None if obs.spinner is None else str(obs.spinner),
        "must_play": None if obs.must_play is None or not obs.my_turn else str(obs.must_play),
        "legal": legal,
        "replace": replace,
        "points": list(obs.points),
        "scores": list(scores),
        "goals": None if goals is None else list(goals),
        "carry": int(obs.array[O_CARRY]),
    }


def hand_result(hand) -> dict | None:
    """A finished hand's result for every seat: how it ended, the winning
    side, the points, the pips and the tiles left in each hand (shown only
    once the hand is over); None while it is played."""
    res = hand.result
    if res is None:
        return None
    return {"end": res.end, "winner": res.winner, "points": list(res.points), "pips": list(res.pips),
            "tiles": [[str(t) for t in hand.tiles(s)] for s in range(hand.rules.players)]}
