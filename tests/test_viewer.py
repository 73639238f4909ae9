"""The replay viewer in a real browser (headless Chromium), and the
``render``/``view`` commands: what they write, and what they refuse.

Chromium is Debian's package (``.ci/run`` installs it when absent); without
it the browser tests are skipped."""

from __future__ import annotations

import copy
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

pytestmark = pytest.mark.kernels("search")  # the compiled kernels it needs (conftest.WARM_GROUPS)

from dominoai.cli import main
from dominoai.errors import InputError
from dominoai.records import RecordError
from dominoai.viewer import record_frames, viewer_html, write_viewer
from dominoai.viewer.commands import render_command, view_command

from handmade import BLOCK_REC

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                    "(apt-get install -y chromium; .ci/run does it)")


def chromium(*args, tmp_path):
    """Run headless Chromium with a fresh profile; return its stdout."""
    profile = tempfile.mkdtemp(prefix="chromium-", dir=tmp_path)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def analysed_record():
    rec = copy.deepcopy(BLOCK_REC)
    rec["seats"] = ["insane", "hard"]
    rec["hands"][0]["moves"][2]["analysis"] = [{"move": "6:5 right", "value": 7.25, "n": 200},
                                               {"move": "6:4 right", "value": -1.5, "n": 200}]
    return rec


def test_frames_of_a_known_record():
    d = record_frames(analysed_record())
    f = d["frames"]
    # the deal, then one frame per tile played (5 tiles)
    assert [x["play"] for x in f] == [0, 1, 2, 3, 4, 5]
    assert [x["moves"] for x in f] == [[], [1, 2], [3], [4], [5], [6]]
    assert f[1]["events"] == ["seat 0 leads 6:6", "seat 1 passes (no 6)"]
    assert f[1]["voids"] == [[], [6]]              # seat 1 passed on the 6
    assert f[1]["sizes"] == [6, 7]
    assert f[2]["analysis"][0] == {"move": "6:5 right", "value": 7.25, "n": 200}
    assert f[3]["analysis"] is None
    assert [len(re.findall("class=.tile line", x["svg"])) for x in f] == [0, 1, 2, 3, 4, 5]
    assert d["seats"] == ["insane", "hard"] and d["result"]["hands"][0]["end"] is None


def test_page_is_self_contained():
    rec = analysed_record()
    rec["seats"] = ["</script><b>x", "hard"]
    page = viewer_html(rec)
    assert page.count("</script>") == 2
    assert "<script src" not in page and "<link" not in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    urls = set(re.findall(r"https?://[^\s\"'<>\\]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}
    # the record's frames are inline JSON that a </script> inside cannot end
    data = re.search(r'<script id="dai-data" type="application/json">(.*?)</script>', page, re.S).group(1)
    assert len(json.loads(data)["frames"]) == 6
    assert json.loads(data)["record"]["seats"][0] == "</script><b>x"


def test_seat_view_hides_the_other_hand():
    d = record_frames(BLOCK_REC, seat=1)
    f = d["frames"]
    assert f[0]["svg"].count("class='tile back'") == 7
    assert f[0]["svg"].count("class='tile hand'") == 7
    assert "record" not in d
    # seat 0's tiles are nowhere in the page's data before they are played
    assert "data-tile='6:1'" not in json.dumps(d)
    assert "data-tile='6:1'" in record_frames(BLOCK_REC)["frames"][0]["svg"]  # face up, it is there
    assert record_frames(BLOCK_REC)["record"] == BLOCK_REC


@pytest.mark.e2e
@needs_chromium
def test_browser_steps_with_the_keyboard(tmp_path):
    page = write_viewer(_write(tmp_path, "game.json", analysed_record()), tmp_path / "replay.html")
    url = page.as_uri()
    # RRRL: three steps forward, one back -> step 2 (after 6:5 right)
    dom = chromium("--dump-dom", "--virtual-time-budget=5000", url + "?keys=RRRL", tmp_path=tmp_path)
    assert 'data-step="2"' in dom
    assert re.search(r'id="step">step 2 / 5<', dom)
    assert re.search(r'id="scores">0 – 0<', dom)
    assert "<td>7.25</td>" in dom and "<td>6:5 right</td>" in dom
    board = re.search(r'<div id="board">(.*?)</div>', dom, re.S).group(1)
    assert len(re.findall('class="tile line', board)) == 2
    assert re.search(r"<td>seat 1</td><td>7</td><td>6</td>", dom)
    # a fragment opens a step; End goes to the last
    dom = chromium("--dump-dom", "--virtual-time-budget=5000", url + "#step=4", tmp_path=tmp_path)
    assert 'data-step="4"' in dom
    dom = chromium("--dump-dom", "--virtual-time-budget=5000", url + "?keys=E", tmp_path=tmp_path)
    assert 'data-step="5"' in dom and "seat 0 plays 6:4 left" in html.unescape(dom)
    shot = tmp_path / "replay.png"
    chromium(f"--screenshot={shot}", "--window-size=1100,800", "--virtual-time-budget=5000",
             url + "?keys=RRR", tmp_path=tmp_path)
    assert shot.stat().st_size > 10_000


@pytest.mark.e2e
@needs_chromium
def test_browser_shows_a_real_insane_analysis(tmp_path):
    """A tournament's record with a real insane bot's analysis (``--records
    DIR --analysis``): the viewer, stepped to the first analysed decision,
    lists every candidate's value as the record holds it."""
    from dominoai.tournament import run_tournament
    rec_dir = tmp_path / "rec"
    run_tournament("block", ["insane:worlds=16", "hard"], hands=1, seed=3, progress=False,
                   records=rec_dir, analysis=True)
    path = sorted(rec_dir.glob("match-*.json"))[0]
    rec = json.loads(path.read_text())
    frames = record_frames(rec)["frames"]
    step = next(i for i, f in enumerate(frames) if f["analysis"])
    mv = next(m for m in rec["hands"][0]["moves"] if "analysis" in m)
    assert frames[step]["analysis"] == mv["analysis"]
    page = write_viewer(path, tmp_path / "replay.html")
    dom = chromium("--dump-dom", "--virtual-time-budget=5000", page.as_uri() + "?keys=" + "R" * step,
                   tmp_path=tmp_path)
    assert f'data-step="{step}"' in dom
    table = html.unescape(re.search(r'<div id="analysis">(.*?)</div>', dom, re.S).group(1))
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>", table)
    # one row per candidate, in the record's order; values shown to 2 decimals
    assert [m for m, _, _ in rows] == [e["move"] for e in mv["analysis"]]
    assert [int(n) for _, _, n in rows] == [e["n"] for e in mv["analysis"]] == [16] * len(rows)
    for (_, v, _), e in zip(rows, mv["analysis"]):
        assert abs(float(v) - e["value"]) <= 0.005 + 1e-9


@pytest.mark.e2e
@needs_chromium
def test_svg_rasterises(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    svg = render_command(_write(tmp_path, "game.json", BLOCK_REC), 1, 6, tmp_path / "pos.svg")
    shot = tmp_path / "pos.png"
    chromium(f"--screenshot={shot}", "--window-size=700,420", svg.as_uri(), tmp_path=tmp_path)
    img = Image.open(shot).convert("RGB")
    colours = img.getcolors(maxcolors=1_000_000)
    counts = {c: n for n, c in colours}
    # the table's felt, the tiles' faces and the last tile's gold outline are drawn
    assert counts.get((0x2f, 0x6b, 0x45), 0) > 20_000
    assert counts.get((0xfb, 0xf8, 0xef), 0) > 5_000
    assert counts.get((0xe0, 0xa8, 0x00), 0) > 50


def _write(d, name, rec):
    p = d / name
    p.write_text(json.dumps(rec))
    return str(p)


def _listing(d):
    return sorted(os.listdir(d))


def test_bad_records_write_nothing(tmp_path):
    """The commands check the whole record first: any problem is one line
    naming the file, and nothing is written."""
    bad = copy.deepcopy(BLOCK_REC)
    bad["hands"][0]["moves"][1] = {"tile": "5:5", "end": "right"}  # seat 1 cannot play 5:5 on 6:6
    src = _write(tmp_path, "bad.json", bad)
    out = tmp_path / "out"
    out.mkdir()

    def error(write) -> str:
        with pytest.raises(RecordError) as e:
            write()
        assert "\n" not in str(e.value)
        return str(e.value)

    for write in (lambda: view_command(src, out / "r.html"), lambda: render_command(src, 1, 1, out / "p.svg")):
        assert re.match(r".*bad\.json: hand 1, move 2: ", error(write))
    good = _write(tmp_path, "good.json", BLOCK_REC)
    assert "hand 1, move 7: move 7 is past the end of the hand: it has 6 moves" in \
        error(lambda: render_command(good, 1, 7, out / "p.svg"))
    assert "there is no hand 2: the record has 1" in error(lambda: render_command(good, 2, 0, out / "p.svg"))
    (tmp_path / "notjson.json").write_text("{")
    assert "invalid JSON" in error(lambda: view_command(tmp_path / "notjson.json", out / "r.html"))
    (tmp_path / "array.json").write_text("[1, 2]")   # the replay's words, not the library's
    assert error(lambda: view_command(tmp_path / "array.json", out / "r.html")).endswith(
        "array.json: a record is a JSON object, not list")
    ana = copy.deepcopy(BLOCK_REC)
    ana["hands"][0]["moves"][0]["analysis"] = {"6:6": 1}
    assert 'hand 1, move 1: "analysis" must be a list' in \
        error(lambda: view_command(_write(tmp_path, "ana.json", ana), out / "r.html"))
    # a folder with one bad record: no page at all, not even the good ones
    assert re.match(r".*(ana|bad|notjson)\.json: ", error(lambda: view_command(tmp_path, out / "index.html")))
    assert _listing(out) == []  # nothing written, no temporary file left


def test_a_seat_not_at_the_table_is_named(tmp_path):
    src = _write(tmp_path, "g.json", BLOCK_REC)
    for write in (lambda: view_command(src, tmp_path / "r.html", seat=2),
                  lambda: render_command(src, 1, 0, tmp_path / "p.svg", seat=2)):
        with pytest.raises(InputError, match=r"g\.json: .*seat.* 0\.\.1") as e:
            write()
        assert e.value.field == "seat"
    assert _listing(tmp_path) == ["g.json"]


def test_view_folder_writes_an_index(tmp_path):
    recs = tmp_path / "records"
    recs.mkdir()
    _write(recs, "a.json", BLOCK_REC)
    _write(recs, "b.json", analysed_record())
    out = tmp_path / "site" / "index.html"
    assert view_command(recs, out) == [out.parent / "a.html", out.parent / "b.html", out]
    assert _listing(out.parent) == ["a.html", "b.html", "index.html"]
    idx = out.read_text()
    assert 'href="a.html"' in idx and 'href="b.html"' in idx and "insane, hard" in idx
    assert 'href="index.html"' in (out.parent / "a.html").read_text()


def test_render_help_says_how_moves_count(capsys):
    assert main(["render", "--help"]) == 0
    h = " ".join(capsys.readouterr().out.split())
    assert "1-based" in h and "0 = the deal" in h


@pytest.mark.parametrize("argv, pattern", [
    (["render", "x.json"], r"required: --out"),
    (["view"], r"required: RECORD_OR_DIR"),
    (["render", "x.json", "--hand", "0", "--out", "p.svg"], r"argument --hand: must be at least 1"),
    (["render", "x.json", "--move", "-1", "--out", "p.svg"], r"argument --move: must be at least 0"),
    (["render", "x.json", "--out", "p.png"], r"--out p\.png: the command writes an SVG picture; "
                                             r"the name must end in \.svg$"),
    (["view", "x.json", "--out", "v.txt"], r"--out v\.txt: the command writes an HTML page; "
                                           r"the name must end in \.html or \.htm$"),
])
def test_bad_options(argv, pattern, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("dominoai: error: ")
    assert re.search(pattern, err), err
    assert os.listdir(tmp_path) == []


def test_a_bad_record_is_one_line_and_exit_code_2(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = copy.deepcopy(BLOCK_REC)
    bad["hands"][0]["moves"][1] = {"tile": "5:5", "end": "right"}
    src = _write(tmp_path, "bad.json", bad)
    for argv in (["view", src, "--out", "r.html"], ["render", src, "--hand", "1", "--move", "1", "--out", "p.svg"],
                 ["render", "nowhere.json", "--out", "p.svg"]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1
        assert re.match(r"dominoai: error: .*(bad\.json: hand 1, move 2: |nowhere\.json)", err), err
    assert _listing(tmp_path) == ["bad.json"]


def test_seat_not_at_the_table(tmp_path, capsys):
    src = _write(tmp_path, "g.json", BLOCK_REC)
    for argv in (["view", src, "--seat", "2", "--out", str(tmp_path / "r.html")],
                 ["render", src, "--seat", "2", "--out", str(tmp_path / "p.svg")]):
        assert main(argv) == 2
        assert re.search(r"g\.json: .*seat.* 0\.\.1", capsys.readouterr().err)
    assert _listing(tmp_path) == ["g.json"]


@pytest.mark.e2e
def test_imports_stay_light():
    # dominoai.render adds only its own modules and the standard library's to
    # what `import dominoai` loads (no numba, numpy, pandas, matplotlib), and
    # the CLI loads it only for render/view
    code = ("import sys, dominoai, dominoai.cli; before = set(sys.modules); "
            "assert not any(m.startswith('dominoai.render') for m in before), 'cli imports render'; "
            "import dominoai.render; "
            "print(sorted(m for m in set(sys.modules) - before if not m.startswith('dominoai.render')"
            " and m.split('.')[0].lstrip('_') not in {n.lstrip('_') for n in sys.stdlib_module_names}))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


@pytest.mark.parametrize("preset", ["dominoball", "fives", "draw", "kozel"])
def test_frames_agree_with_the_replay(preset):
    import random

    from dominoai import Match
    from dominoai.records import record_from_match, replay

    m = Match(preset, seed=4)
    rng = random.Random(4)
    for _ in range(3):
        if m.finished:
            break
        h = m.new_hand()
        while not h.over:
            h.play(rng.choice(h.legal_moves()))
    rec = record_from_match(m)
    res = replay(rec)
    f = record_frames(rec)["frames"]
    assert f[-1]["scores"] == res.scores
    for hi, hand in enumerate(res.match.hands, 1):
        mine = [x for x in f if x["hand"] == hi]
        plays = [e for e in hand.events if e.kind in ("play", "replace")]
        assert len(mine) == len(plays) + 1
        # the tiles on each step's line: the plays so far, replacements not counted
        on_line = [sum(e.kind == "play" for e in plays[:k]) for k in range(len(plays) + 1)]
        assert [len(re.findall("class=.tile line", x["svg"])) for x in mine] == on_line
        # all the hand's events are shown, once each, in order
        assert [e for x in mine for e in x["events"]] == [str(e) for e in hand.events]


def test_render_and_view_say_what_they_wrote(tmp_path, capsys):
    good = _write(tmp_path, "good.json", BLOCK_REC)
    assert main(["render", good, "--hand", "1", "--move", "2", "--out", str(tmp_path / "p.svg")]) == 0
    assert main(["view", good, "--out", str(tmp_path / "r.html")]) == 0
    assert capsys.readouterr().out == f"picture: {tmp_path / 'p.svg'}\npage: {tmp_path / 'r.html'}\n"
    assert (tmp_path / "p.svg").read_text().startswith("<svg") and (tmp_path / "r.html").stat().st_size > 1000
    recs = tmp_path / "records"
    recs.mkdir()
    _write(recs, "a.json", BLOCK_REC)
    _write(recs, "b.json", analysed_record())
    assert main(["view", str(recs), "--out", str(tmp_path / "site" / "index.html")]) == 0
    assert capsys.readouterr().out == f"page: {tmp_path / 'site' / 'index.html'} (the index of 2 record pages)\n"


def test_the_outputs_folder_is_made_and_a_file_in_its_way_is_named(tmp_path, capsys):
    """As the other commands do, a missing folder of --out is made; a file
    where a folder should be is refused naming the output, not the record."""
    good = _write(tmp_path, "good.json", BLOCK_REC)
    assert main(["render", good, "--hand", "1", "--move", "2", "--out", str(tmp_path / "pics" / "p.svg")]) == 0
    assert (tmp_path / "pics" / "p.svg").read_text().startswith("<svg")
    capsys.readouterr()
    (tmp_path / "afile").write_text("x")
    for argv in (["view", good, "--out", str(tmp_path / "afile" / "v.html")],
                 ["render", good, "--out", str(tmp_path / "afile" / "sub" / "p.svg")]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == (f"dominoai: error: {argv[-1]}: cannot write: {tmp_path / 'afile'} is a file, "
                                     "not a folder\n")
    assert _listing(tmp_path) == ["afile", "good.json", "pics"] and _listing(tmp_path / "pics") == ["p.svg"]
