"""Records as pictures: one position as SVG, and the self-contained HTML
replay viewer (docs/render.md).

The viewer page holds everything inline (no network, no CDN): the record
itself, one *frame* per step computed here in Python with the engine, and
a small script that only shows frames. A frame is the position after a
tile is played (or a Dominoball replacement), the forced draws and passes
that follow included; each hand starts with a frame of its deal. Voids
(the pips a seat has shown it lacks) come from the engine's
:class:`~dominoai.observation.Observation`, so no rule is re-implemented in
JavaScript.

The record may carry a bot's analysis of a decision: a tile move (or a
replacement) can hold ``"analysis": [{"move": "6:4 right", "value": 3.5},
...]``, one entry per candidate move, ``value`` in the bot's own units
(e.g. insane's mean points of the hand for the mover's side over its
worlds), optionally ``"n"`` (the samples behind it). The viewer lists
these values with the step of that decision. The key is checked with
:func:`dominoai.records.parse_analysis` (as the replay checks it) and read
here.
"""

from __future__ import annotations

import copy
import html
import json
import os
from pathlib import Path

from .._files import atomic_write
from ..errors import InputError
from ..game import Match, Move
from ..records import RecordError, load_record, match_from_record, not_an_object, parse_analysis, replay
from ..render.position import position_of
from ..render.svgdraw import DEFS, STYLE, svg_of_position

__all__ = ["render_record", "record_frames", "viewer_html", "write_viewer", "write_index",
           "split_analysis"]


def _read_json(source):
    """The record's JSON data (a dict) from a path or a dict; errors as the replay gives them."""
    if isinstance(source, dict):
        return source
    if isinstance(source, (str, os.PathLike)):
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            load_record(source)  # raises the replay's one-line error
            raise  # pragma: no cover - load_record failed to read it too
        if not isinstance(data, dict):
            raise not_an_object(data)
        return data
    return load_record(source).to_dict()


def split_analysis(data) -> tuple:
    """``(record without analysis, analysis)``: ``analysis[(h, m)]`` is the
    list of ``{"move", "value"[, "n"]}`` of hand ``h``, record move ``m``
    (both 1-based, as the replay counts them).

    :raises RecordError: an ``analysis`` of another shape
        (:func:`dominoai.records.parse_analysis`).
    """
    if not isinstance(data, dict) or not isinstance(data.get("hands"), list):
        return data, {}
    data = copy.deepcopy(data)
    found = {}
    for hi, h in enumerate(data["hands"], 1):
        if not isinstance(h, dict) or not isinstance(h.get("moves"), list):
            continue
        for mi, mv in enumerate(h["moves"], 1):
            if isinstance(mv, dict) and "analysis" in mv:
                found[(hi, mi)] = [dict(e) for e in parse_analysis(mv.pop("analysis"), hi, mi)]
    return data, found


def _checked(source):
    """``(replay result, analysis)`` of a record, every move checked."""
    data, analysis = split_analysis(_read_json(source))
    return replay(data), analysis, data


def render_record(source, hand: int, move: int, perspective: int | None = None) -> str:
    """The SVG of a record's position: hand ``hand`` (1-based) after its
    first ``move`` entries (1-based count, as the replay numbers moves;
    0 = the deal, before the lead). The whole record is checked first.

    :raises RecordError: a malformed record or one that breaks the rules (the
        replay's one-line error), a hand that does not exist, or a move past
        the end of the hand.
    """
    res, _, data = _checked(source)
    hands = data["hands"]
    if isinstance(hand, bool) or not isinstance(hand, int) or not 1 <= hand <= len(hands):
        raise RecordError(f"there is no hand {hand}: the record has {len(hands)} (hands count from 1)")
    n = len(hands[hand - 1].get("moves", []))
    if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move <= n:
        raise RecordError(f"move {move} is past the end of the hand: it has {n} moves "
                          f"(moves count from 1; 0 is the deal)", hand, move)
    cut = copy.deepcopy(data)
    cut["hands"] = cut["hands"][:hand]
    cut["hands"][-1]["moves"] = cut["hands"][-1].get("moves", [])[:move]
    m = match_from_record(cut, seed=0)
    return svg_of_position(position_of(m.current, perspective))


def record_frames(source, seat: int | None = None) -> dict:
    """The viewer's data for a record: ``{"title", "rules", "seats",
    "result", "frames"}``, and ``"record"`` (the record as given, analysis
    included) when all seats are shown. Each frame is a dict: ``hand`` (1-based),
    ``play`` (tiles played so far in the hand, replacements counted),
    ``moves`` (the record's move numbers it covers, 1-based; empty for a
    deal), ``svg`` (the picture), ``events`` (the event lines it adds),
    ``scores``, ``sizes``, ``voids`` (per seat, the pips it has shown it
    lacks), ``to_move``, ``status`` and ``analysis`` (the move values of
    the decision made, or None). ``seat``: show that seat's view (its
    tiles face up, the others face down); None shows all face up.

    :raises RecordError: as :func:`dominoai.records.replay`, or a bad
        ``analysis`` (see :func:`split_analysis`).
    :raises InputError: a seat not at the table (naming ``seat``).
    """
    res, analysis, data = _checked(source)
    rec = res.record
    r = rec.rules
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < r.players):
        raise InputError("seat", seat, f"$seat must be a seat 0..{r.players - 1} (got {seat})")
    m = Match(r, seed=0)
    frames = []
    for hi, (hr, played) in enumerate(zip(rec.hands, res.match.hands), 1):
        hand = m.new_hand([[t.id for t in s] for s in hr.deal],
                          None if hr.boneyard is None else [t.id for t in hr.boneyard], hr.leader)
        # the record's move numbers of its plays/replacements, in order
        idx = [i for i, mv in enumerate(hr.moves, 1) if mv.kind in ("play", "replace")]
        bounds = idx[1:] + [len(hr.moves) + 1]
        seen = 0
        frames.append(_frame(hand, hi, 0, [], seen, seat, None))
        seen = len(hand.events)
        k = 0
        for ev in played.events:
            if ev.kind not in ("play", "replace"):
                continue
            if ev.kind == "replace":
                hand.play(Move.replacement())
            elif ev.lead:
                hand.play(Move(ev.tile), orientation=ev.end)
            else:
                hand.play(Move(ev.tile, ev.end))
            moves = list(range(idx[k], bounds[k])) if k < len(idx) else []
            a = analysis.get((hi, idx[k])) if k < len(idx) else None
            k += 1
            frames.append(_frame(hand, hi, k, moves, seen, seat, a))
            seen = len(hand.events)
    names = data.get("seats") or [f"seat {i}" for i in range(r.players)]
    out = {"title": f"{r.preset}, {r.players} players: {' vs '.join(map(str, names))}",
           "rules": r.to_record(), "seats": names, "result": res.to_dict(),
           "view": "all face up" if seat is None else f"seat {seat}'s view",
           "frames": frames}
    if seat is None:  # a seat's view keeps the hidden tiles out of the page
        out["record"] = _read_json(source) if not isinstance(source, dict) else source
    return out


def _frame(hand, hi, k, moves, seen, seat, analysis) -> dict:
    pos = position_of(hand, seat)
    ev = hand.events
    return {"hand": hi, "play": k, "moves": moves, "svg": svg_of_position(pos, standalone=False).replace('"', "'"),
            "events": [str(e) for e in ev[seen:]], "scores": list(pos.scores),
            "sizes": list(pos.sizes), "voids": [list(v) for v in pos.voids],
            "to_move": pos.to_move, "status": pos.status, "analysis": analysis}


_CSS = """
body{font-family:sans-serif;margin:0;background:#10261b;color:#eee}
header{padding:8px 14px;background:#0b1a12}
h1{font-size:18px;margin:0}
#controls{padding:8px 14px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
button{font-size:15px;padding:3px 10px}
#slider{flex:1;min-width:200px}
main{display:flex;gap:14px;padding:0 14px 14px;flex-wrap:wrap}
#board svg{max-width:100%;height:auto}
aside{min-width:260px;max-width:380px;font-size:14px}
table{border-collapse:collapse}td,th{border:1px solid #456;padding:2px 6px}
#events li{margin:1px 0}.chosen{color:#ffd54a;font-weight:bold}
a{color:#9cf}
"""

_JS = r"""
(function(){
var D=JSON.parse(document.getElementById('dai-data').textContent);
var F=D.frames,i=0;
function $(id){return document.getElementById(id);}
function show(n){
  i=Math.max(0,Math.min(F.length-1,n));var f=F[i];
  $('board').innerHTML=f.svg;
  $('slider').value=i;
  $('step').textContent='step '+i+' / '+(F.length-1);
  $('where').textContent='hand '+f.hand+', tiles played '+f.play+
     (f.moves.length?' (record move '+f.moves.join(', ')+')':' (the deal)')+
     (f.status?' \u2014 hand over: '+f.status:'');
  $('scores').textContent=f.scores.join(' \u2013 ');
  var ev=$('events');ev.innerHTML='';
  for(var j=0;j<=i;j++){if(F[j].hand!==f.hand)continue;
    F[j].events.forEach(function(t){var li=document.createElement('li');li.textContent=t;
      if(j===i)li.className='chosen';ev.appendChild(li);});}
  var vb=$('voids');vb.innerHTML='';
  f.voids.forEach(function(v,s){var tr=document.createElement('tr');
    tr.innerHTML='<td>seat '+s+'</td><td>'+f.sizes[s]+'</td><td>'+(v.length?v.join(', '):'\u2013')+'</td>';
    vb.appendChild(tr);});
  var an=$('analysis');an.innerHTML='';
  if(f.analysis){var t=document.createElement('table');
    t.innerHTML='<tr><th>move</th><th>value</th><th>n</th></tr>';
    f.analysis.forEach(function(a){var tr=document.createElement('tr');
      tr.innerHTML='<td></td><td></td><td></td>';tr.cells[0].textContent=a.move;
      tr.cells[1].textContent=(+a.value).toFixed(2);tr.cells[2].textContent=a.n==null?'':a.n;
      t.appendChild(tr);});an.appendChild(t);}
  else an.textContent='(no analysis stored for this step)';
  document.body.setAttribute('data-step',String(i));
  document.body.setAttribute('data-hand',String(f.hand));
}
window.daiShow=show;
$('first').onclick=function(){show(0);};
$('prev').onclick=function(){show(i-1);};
$('next').onclick=function(){show(i+1);};
$('last').onclick=function(){show(F.length-1);};
$('slider').max=F.length-1;
$('slider').oninput=function(){show(+this.value);};
document.addEventListener('keydown',function(e){
  if(e.key==='ArrowRight'){show(i+1);e.preventDefault();}
  else if(e.key==='ArrowLeft'){show(i-1);e.preventDefault();}
  else if(e.key==='Home'){show(0);}else if(e.key==='End'){show(F.length-1);}
});
var m=/step=(\d+)/.exec(location.hash);show(m?+m[1]:0);
/* test hook: ?keys=RRRL presses ArrowRight, ArrowRight, ArrowRight, ArrowLeft */
var q=/[?&]keys=([RLHE]+)/.exec(location.search);
if(q){var names={R:'ArrowRight',L:'ArrowLeft',H:'Home',E:'End'};
  q[1].split('').forEach(function(c){
    document.dispatchEvent(new KeyboardEvent('keydown',{key:names[c],bubbles:true}));});}
})();
"""


def _inline_json(obj) -> str:
    """JSON that a ``<script>`` element holds safely: no ``</`` (which would
    end it) and no ``<!--``; the pictures' quotes written as ``'``."""
    s = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return s.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def viewer_html(source, seat: int | None = None, back: str | None = None) -> str:
    """The replay viewer of a record as one self-contained HTML page (``str``).

    Steps move by move with the buttons, the slider, the arrow keys (Home,
    End); ``#step=N`` in the URL opens step N. ``seat``: that seat's view
    (None: all face up). ``back``: a link to show at the top (an index page).

    :raises RecordError: as :func:`record_frames`.
    """
    d = record_frames(source, seat)
    res = d["result"]
    link = f' · <a href="{html.escape(back)}">all records</a>' if back else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{html.escape(d['title'])}</title>
<style>{_CSS}</style>{STYLE}</head>
<body>
<svg width="0" height="0" style="position:absolute" aria-hidden="true">{DEFS}</svg>
<header><h1>{html.escape(d['title'])}</h1>
<div>{html.escape(d['view'])} · final scores {html.escape(' – '.join(map(str, res['scores'])))}
 · {'finished' if res['finished'] else 'not finished'}{link}</div></header>
<div id="controls">
<button id="first" title="first step (Home)">&#x00AB; first</button>
<button id="prev" title="previous step (left arrow)">&#x25C0;</button>
<button id="next" title="next step (right arrow)">&#x25B6;</button>
<button id="last" title="last step (End)">last &#x00BB;</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
<span id="step"></span></div>
<main><div id="board"></div>
<aside><p id="where"></p>
<p>scores: <b id="scores"></b></p>
<h3>hands and voids</h3>
<table><thead><tr><th>seat</th><th>tiles</th><th>has shown it lacks</th></tr></thead>
<tbody id="voids"></tbody></table>
<h3>events of the hand</h3><ol id="events"></ol>
<h3>the decision's move values</h3><div id="analysis"></div>
</aside></main>
<script id="dai-data" type="application/json">{_inline_json(d)}</script>
<script>{_JS}</script>
</body></html>
"""


def write_viewer(source, out, seat: int | None = None) -> Path:
    """Write :func:`viewer_html` of ``source`` to ``out`` (atomically)."""
    return atomic_write(out, viewer_html(source, seat))


def write_index(folder, out, seat: int | None = None) -> list:
    """For every ``*.json`` record in ``folder`` (sorted by name), write a
    viewer page ``<name>.html`` beside ``out`` and ``out`` itself: a page
    that lists them with their rules, seats and final scores. Every record
    is checked before anything is written.

    :returns: the paths written, ``out`` last.
    :raises RecordError: ``"<file>: <the replay's error>"`` for the first
        bad record, or a folder with no record; nothing is written then.
    """
    folder, out = Path(folder), Path(out)
    files = sorted(p for p in folder.glob("*.json") if p.is_file())
    if not files:
        raise RecordError(f"{folder}: no *.json record in this folder")
    pages, rows = [], []
    for p in files:
        try:
            page = viewer_html(p, seat, back=out.name)
            d = json.loads(p.read_text(encoding="utf-8"))
            res, _, _ = _checked(p)
        except RecordError as e:
            raise RecordError(f"{p.name}: {e}") from None
        name = p.stem + ".html"
        pages.append((out.parent / name, page))
        rules = res.record.rules
        seats = d.get("seats") or []
        rows.append(f"<tr><td><a href=\"{html.escape(name)}\">{html.escape(p.name)}</a></td>"
                    f"<td>{html.escape(rules.preset)}, {rules.players}</td>"
                    f"<td>{html.escape(', '.join(map(str, seats)))}</td>"
                    f"<td>{len(res.hands)}</td>"
                    f"<td>{html.escape(' – '.join(map(str, res.scores)))}</td></tr>")
    index = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>records: {html.escape(folder.name)}</title>
<style>{_CSS}</style></head><body>
<header><h1>{len(files)} record{"" if len(files) == 1 else "s"} in {html.escape(folder.name)}</h1></header>
<main><table id="records"><thead><tr><th>record</th><th>rules, players</th><th>seats</th>
<th>hands</th><th>final scores</th></tr></thead><tbody>
{''.join(rows)}
</tbody></table></main></body></html>
"""
    out.parent.mkdir(parents=True, exist_ok=True)
    written = [atomic_write(path, page) for path, page in pages]
    written.append(atomic_write(out, index))
    return written
