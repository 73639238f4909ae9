"""The page of ``dominoai serve`` as a new player meets it, measured in a real
browser (Playwright driving the system's Chromium, never a downloaded one).

- On a wide screen (1280x800) the line and the hand are drawn to the board's
  size: a tile of the line at least 90 px long, a tile of the hand at least
  48 px wide, and the line runs straight across at least 60% of the board
  before it turns. Narrow screens (390x844, 844x390) keep everything on the
  screen and nothing on top of anything else.
- The waiting panel and the end-of-hand sheet are opaque (nothing behind
  them shows through), and the sheet can be put aside to look at the
  finished board.
- The open form's "Play to" shows the game's target at the number of
  players chosen.
- Seats are told apart: two bots of one level by their seat, a person whose
  name reads like a bot's label as a person.

The server runs in-process (tests/conftest.py's ``live_server``: uvicorn in
a thread, bots in one thread, no pause); the deals follow from the tables'
seeds, fixed here.
"""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("playwright.sync_api", reason="the page is driven by playwright (pip install playwright)")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("page_browser"),   # one browser under --dist loadgroup
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")]
WAIT = 30_000      # ms
WIDE, PORTRAIT, LANDSCAPE = ({"width": 1280, "height": 800}, {"width": 390, "height": 844},
                             {"width": 844, "height": 390})
#: a Draw deal whose line grows long enough to turn on a wide board
SEED_LONG_DRAW = 8
SEED_BLOCK = 5

# the boxes of the page's parts, and of the line's tiles, in px
BOXES = """(() => {
  const box = (n) => { const r = n.getBoundingClientRect(); return [r.x, r.y, r.right, r.bottom]; };
  const part = (id) => { const n = document.getElementById(id);
                         return n && !n.hidden && n.offsetParent !== null && n.getBoundingClientRect().height > 0
                                ? box(n) : null; };
  return {
    parts: Object.fromEntries(["bar", "others", "board", "me-row", "actions", "hand"].map((id) => [id, part(id)])),
    line: [...document.querySelectorAll('#board .tile.line')].map((n) => ({arm: n.dataset.arm, box: box(n)})),
    places: [...document.querySelectorAll('#board .place')].map(box),
    hand: [...document.querySelectorAll('#hand .tile')].map(box),
  };
})()"""


class Person:
    """One person's browser: its own context, so its own guest cookie."""

    def __init__(self, browser, server, viewport=WIDE, name: str | None = None):
        self.ctx = browser.new_context(viewport=viewport)
        self.page = self.ctx.new_page()
        self.errors: list = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(server.url)
        self.page.wait_for_selector("#open-variant option", state="attached", timeout=WAIT)
        if name is not None:
            self.page.wait_for_function("document.getElementById('name-input').value !== ''", timeout=WAIT)
            self.page.fill("#name-input", name)
            self.page.click("#name-form button")
            self.page.wait_for_function(f"window.dai.state.name === {name!r}", timeout=WAIT)

    def close(self):
        self.ctx.close()
        assert not self.errors, self.errors

    def frame(self) -> dict:
        return self.page.evaluate("window.dai.current()")

    def open(self, variant: str, players: int, alone=True) -> dict:
        p = self.page
        p.select_option("#open-variant", variant)
        p.select_option("#open-players", str(players))
        p.select_option("#open-level", "easy")
        p.set_checked("#open-alone", alone)
        p.set_checked("#open-fill", True)
        p.click("#open-button")
        p.wait_for_function("document.body.dataset.screen === 'table' && window.dai.current()", timeout=WAIT)
        return self.frame()

    def settle(self):
        """Wait until the page has drawn the frame it holds, then two animation frames."""
        self.page.wait_for_function("(() => { const f = window.dai.current(); return f &&"
                                    " document.body.dataset.status === f.status &&"
                                    " document.body.dataset.moves === String(f.moves); })()", timeout=WAIT)
        self.page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def resize(self, viewport: dict):
        self.page.set_viewport_size(viewport)
        self.page.wait_for_function(f"window.innerWidth === {viewport['width']} &&"
                                    f" window.innerHeight === {viewport['height']}", timeout=WAIT)
        self.settle()

    def wait_turn(self) -> dict:
        """Wait until the person is to play or the hand is over; the frame."""
        self.page.wait_for_function(
            "(() => { const f = window.dai.current(); return f && document.body.dataset.status === f.status &&"
            " document.body.dataset.moves === String(f.moves) &&"
            " (f.status !== 'playing' || f.hand.your_turn); })()", timeout=WAIT)
        return self.frame()

    def play_one(self, f: dict):
        """Draw while the page asks, then tap the first lit tile (and the last lit end if it fits two)."""
        p = self.page
        while p.locator("#boneyard.lit").count():
            p.locator("#boneyard .tile.back").first.click()
        tile = p.locator("#hand .tile.lit").first
        name = tile.get_attribute("data-tile")
        ends = next(m["ends"] for m in f["hand"]["legal"] if m["tile"] == name)
        tile.click()
        if len(ends) > 1:
            p.locator(f'#board .place.lit[data-end="{ends[-1]}"]').click()
        p.wait_for_function(f"window.dai.current().moves > {f['moves']}", timeout=WAIT)

    def play_hand(self, at_turn=None) -> dict:
        """Play until the hand is over, calling ``at_turn(frame)`` at each of
        the person's turns; the frame of the hand's end."""
        while True:
            f = self.wait_turn()
            if f["status"] != "playing":
                return f
            self.settle()
            if at_turn is not None:
                at_turn(f)
            self.play_one(f)

    def boxes(self) -> dict:
        return self.page.evaluate(BOXES)


def _overlap(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def _inside(a, outer) -> bool:
    return a[0] >= outer[0] - 0.5 and a[1] >= outer[1] - 0.5 and a[2] <= outer[2] + 0.5 and a[3] <= outer[3] + 0.5


def check_fits(b: dict, viewport: dict, where: str):
    """Every part on the screen and none over another; the line and its
    places on the board; the hand's tiles on the screen, side by side."""
    screen = [0, 0, viewport["width"], viewport["height"]]
    parts = {k: v for k, v in b["parts"].items() if v is not None}
    for k, v in parts.items():
        assert _inside(v, screen), (where, k, v)
    names = sorted(parts)
    for i, k in enumerate(names):
        for m in names[i + 1:]:
            assert not _overlap(parts[k], parts[m]), (where, k, parts[k], m, parts[m])
    for t in b["line"]:
        assert _inside(t["box"], parts["board"]), (where, "line", t)
    for pl in b["places"]:
        assert _inside(pl, parts["board"]), (where, "place", pl)
    for i, t in enumerate(b["hand"]):
        assert _inside(t, screen), (where, "hand", t)
        if i:
            assert not _overlap(b["hand"][i - 1], t), (where, "hand", b["hand"][i - 1], t)


# ---------------------------------------------------------------- the line and the hand
def test_the_line_and_the_hand_are_drawn_to_a_wide_board(live_server, browser, seed, tmp_path):
    seed(SEED_LONG_DRAW)
    me = Person(browser, live_server, WIDE)
    seen = {"turns": 0, "turned": 0, "longest": 0}

    def measure(f):
        b = me.boxes()
        check_fits(b, WIDE, f"{len(b['line'])} tiles")
        board = b["parts"]["board"]
        bw = board[2] - board[0]
        for t in b["line"]:
            x0, y0, x1, y1 = t["box"]
            assert max(x1 - x0, y1 - y0) >= 90, ("a tile of the line", t)
        for x0, y0, x1, y1 in b["hand"]:
            assert x1 - x0 >= 48, ("a tile of the hand", x1 - x0)
        if b["line"]:
            # the row of the lead: the tiles level with it; a tile off that row came after a turn
            root = next(t["box"] for t in b["line"] if t["arm"] == "root")
            mid = (root[1] + root[3]) / 2
            row = [t["box"] for t in b["line"] if abs((t["box"][1] + t["box"][3]) / 2 - mid) < 1]
            span = max(r[2] for r in row) - min(r[0] for r in row)
            if len(row) < len(b["line"]):
                seen["turned"] += 1
                assert span >= 0.6 * bw, ("the line turned at", span, "of", bw)
        seen["turns"] += 1
        seen["longest"] = max(seen["longest"], len(b["line"]))

    try:
        me.open("draw", 2)
        f = me.play_hand(measure)
        assert f["status"] in ("hand_over", "finished")
        me.page.screenshot(path=str(tmp_path / "wide.png"))
        assert seen["turns"] >= 5 and seen["longest"] >= 14, seen
        assert seen["turned"], f"the line never turned ({seen}): the test needs a longer deal"
    finally:
        me.close()


@pytest.mark.parametrize("viewport", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
def test_narrow_screens_keep_everything_on_the_screen(live_server, browser, seed, viewport):
    seed(SEED_LONG_DRAW)
    me = Person(browser, live_server, viewport)
    try:
        me.open("draw", 2)
        f = me.play_hand(lambda fr: check_fits(me.boxes(), viewport, f"{len(fr['hand']['line'])} tiles"))
        me.settle()
        me.page.click("#sheet-hide")                       # the finished board, the sheet put aside
        me.page.wait_for_selector("#sheet-show", timeout=WAIT)
        me.settle()
        b = me.boxes()
        check_fits(b, viewport, "the hand is over")
        assert len(b["line"]) == len(f["hand"]["line"])
    finally:
        me.close()


# ---------------------------------------------------------------- the panels
BEHIND = "#others, #board, #me-row, #actions, #hand"


def shows_through(page, panel: str) -> bool:
    """Whether what lies behind ``panel`` changes how it looks: its screenshot
    with the table behind it drawn, and with the table hidden."""
    r = page.eval_on_selector(panel, "n => { const r = n.getBoundingClientRect();"
                                     " return {x: r.x, y: r.y, width: r.width, height: r.height}; }")
    assert r["width"] > 100 and r["height"] > 100, (panel, r)
    drawn = page.screenshot(clip=r)
    page.evaluate(f"document.querySelectorAll({BEHIND!r}).forEach(n => n.style.visibility = 'hidden')")
    try:
        hidden = page.screenshot(clip=r)
    finally:
        page.evaluate(f"document.querySelectorAll({BEHIND!r}).forEach(n => n.style.visibility = '')")
    return drawn != hidden


def test_the_waiting_panel_and_the_sheet_hide_what_is_behind_and_the_board_can_be_seen(
        live_server, browser, seed):
    seed(SEED_BLOCK)
    me = Person(browser, live_server, PORTRAIT)
    try:
        # a table waiting for a friend: the seats' names behind the panel do not show through it
        me.open("block", 2, alone=False)
        me.page.wait_for_selector("#waiting:not([hidden])", timeout=WAIT)
        me.settle()
        assert me.page.locator("#others .other .name").count() == 1
        assert not shows_through(me.page, "#waiting")
        me.page.click("#leave-button")
        me.page.wait_for_function("document.body.dataset.screen === 'lobby'", timeout=WAIT)

        # a hand played to its end: the line does not show through the sheet
        me.open("block", 2)
        f = me.play_hand()
        me.page.wait_for_selector("#sheet:not([hidden])", timeout=WAIT)
        me.settle()
        tiles = me.boxes()["line"]
        assert len(tiles) == len(f["hand"]["line"])
        assert not shows_through(me.page, "#sheet")

        # put aside: every tile of the line is in sight, the others' tiles face up; then back
        me.page.click("#sheet-hide")
        me.page.wait_for_selector("#sheet", state="hidden", timeout=WAIT)
        me.settle()
        for t in me.boxes()["line"]:
            x0, y0, x1, y1 = t["box"]
            assert me.page.evaluate(f"!!document.elementFromPoint({(x0 + x1) / 2}, {(y0 + y1) / 2})"
                                    ".closest('#board .tile.line')"), t
        shown = me.page.eval_on_selector_all("#others .other .tile.shown", "ns => ns.map(n => n.getAttribute("
                                             "'aria-label'))")
        assert shown == f["result"]["tiles"][1]
        me.page.click("#sheet-show")
        me.page.wait_for_selector("#sheet:not([hidden])", timeout=WAIT)
        me.page.keyboard.press("s")                         # the key puts it aside too
        me.page.wait_for_selector("#sheet", state="hidden", timeout=WAIT)
        me.page.click("#next-hand-bar")                     # and the next hand starts from there
        me.page.wait_for_function("window.dai.current().hand.index === 1", timeout=WAIT)
    finally:
        me.close()


# ---------------------------------------------------------------- the open form
def test_play_to_shows_the_target_at_the_number_of_players_chosen(live_server, browser, seed):
    seed(SEED_BLOCK)
    me = Person(browser, live_server, PORTRAIT)
    p = me.page
    try:
        def shown() -> str:
            return p.get_attribute("#open-target", "placeholder")

        p.select_option("#open-variant", "draw")
        assert p.input_value("#open-players") == "2" and shown() == "100"
        p.select_option("#open-players", "3")
        assert shown() == "61"
        p.select_option("#open-players", "4")
        assert shown() == "61"
        p.select_option("#open-players", "2")
        assert shown() == "100"
        p.select_option("#open-variant", "block")
        p.select_option("#open-players", "3")
        assert shown() == "61"
        p.select_option("#open-variant", "all_fives")        # the count goes back to the game's own
        assert p.input_value("#open-players") == "2" and shown() == "150"
        # the table opened with "Play to" left empty plays to the target shown
        f = me.open("draw", 3)
        assert f["rules"]["target"] == 61
        me.settle()
        assert "/ 61" in p.locator("#badges").inner_text()
    finally:
        me.close()


# ---------------------------------------------------------------- who sits where
def test_two_bots_are_told_apart_and_a_person_named_like_a_bot_is_a_person(live_server, browser, seed):
    seed(SEED_BLOCK)
    a = Person(browser, live_server, PORTRAIT)
    b = Person(browser, live_server, PORTRAIT, name="easy (bot)")
    try:
        code = a.open("block", 4, alone=False)["code"]
        b.page.fill("#join-code", code)
        b.page.click("#join-form button")
        a.page.wait_for_function("document.body.dataset.status === 'playing'", timeout=WAIT)
        a.settle()
        f = a.frame()
        assert [(s["name"], s["bot"]) for s in f["seats"]][1:] == [("easy (bot)", None), ("easy", "easy"),
                                                                    ("easy", "easy")]
        names = a.page.eval_on_selector_all("#others .other", "ns => ns.map(n => [n.dataset.seat, n.dataset.kind,"
                                            " n.querySelector('.name').textContent.split(' · ')[0]])")
        assert names == [["1", "person", "easy (bot) (person)"], ["2", "bot", "easy (bot, seat 2)"],
                         ["3", "bot", "easy (bot, seat 3)"]]
        # the score badge names each side as the seats are named
        assert a.page.locator("#badge-score").inner_text().startswith(
            "You 0 · easy (bot) (person) 0 · easy (bot, seat 2) 0 · easy (bot, seat 3) 0")
        check_fits(a.boxes(), PORTRAIT, "four seats")
    finally:
        a.close()
        b.close()
