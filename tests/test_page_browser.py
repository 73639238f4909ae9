"""The table page of ``dominoai serve`` in a real browser (Playwright driving
the system's Chromium; Playwright's own browser download is never used).

The server runs in-process (uvicorn in a thread, bots in a one-thread pool,
level ``easy``); the deals are fixed by fixing the tables' seeds. The page's
lit tiles are checked against the legal moves of the server's frames (which
tests/test_serve.py checks against the engine), a refused tile's reason
against the open ends, and the line's tiles against the viewport.

Screenshots go to ``tmp_path``; with ``DOMINOAI_DOCS_SCREENSHOTS=1`` the two
of "the line fits" are also copied to docs/img/ (for the docs page).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="dominoai serve needs starlette (the serve extra)")
pytest.importorskip("uvicorn", reason="dominoai serve needs uvicorn (the serve extra)")
pytest.importorskip("websockets", reason="the server tests' helpers use websockets")
pytest.importorskip("playwright.sync_api", reason="the page is driven by playwright (pip install playwright)")

from serving import Running, stored_record  # noqa: E402


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("page_browser"),   # one browser under --dist loadgroup
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                 "(apt-get install -y chromium; .ci/run does it)")]
ROOT = Path(__file__).resolve().parents[1]
WAIT = 30_000      # ms
PORTRAIT, LANDSCAPE = {"width": 390, "height": 844}, {"width": 844, "height": 390}

# table seeds (the deal and the bots' decisions follow from them), chosen so
# that each test sees what it is about: in Draw the person draws, in All
# Fives the spinner gets a third arm, the long hand lays many tiles
SEED_DRAW = 5
SEED_FIVES = 3
SEED_LONG = 3


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with Running(tmp_path_factory.mktemp("page") / "serve.sqlite3", bot_pause=0.0) as srv:
        yield srv


class Page:
    """One person's browser (its own context: its own guest cookie)."""

    def __init__(self, browser, server, viewport=PORTRAIT):
        self.ctx = browser.new_context(viewport=viewport)
        self.page = self.ctx.new_page()
        self.errors: list = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.base = f"http://127.0.0.1:{server.port}/"
        self.goto()
        self.taps = self.drags = self.draws = self.two_ends = 0

    def goto(self, hash_: str = ""):
        self.page.goto(self.base + hash_)
        self.page.wait_for_selector("#open-variant option", state="attached", timeout=WAIT)

    def close(self):
        self.ctx.close()
        assert not self.errors, self.errors

    def frame(self) -> dict:
        """The last table frame the page received for the table on screen."""
        return self.page.evaluate("window.dai.current()")

    def open(self, variant: str, players: int | None = None, alone=True, listed=False, target=None) -> str:
        p = self.page
        p.select_option("#open-variant", variant)
        if players is not None:
            p.select_option("#open-players", str(players))
        p.fill("#open-target", "" if target is None else str(target))
        p.select_option("#open-level", "easy")
        p.set_checked("#open-alone", alone)
        p.set_checked("#open-listed", listed)
        p.click("#open-button")
        p.wait_for_function("document.body.dataset.screen === 'table' && window.dai.current()", timeout=WAIT)
        return self.frame()["code"]

    def wait_turn(self) -> dict:
        """Wait until the person is to play or the hand is over; the frame."""
        self.page.wait_for_function(
            "(() => { const f = window.dai.current(); return f && document.body.dataset.status === f.status &&"
            " (f.status !== 'playing' || f.hand.your_turn); })()", timeout=WAIT)
        return self.frame()

    def my_turn(self) -> bool:
        return self.page.evaluate("(() => { const f = window.dai.current();"
                                  " return !!f && f.status === 'playing' && f.hand.your_turn; })()")

    def draw_all(self):
        """Tap the boneyard while the page asks for it: a face-down tile,
        and by turns the boneyard's label (the whole lit boneyard takes the
        tap); each tap draws exactly one tile."""
        while self.page.locator("#boneyard.lit").count():
            before = self.page.locator("#boneyard .tile.back").count()
            self.page.locator("#boneyard .label" if self.draws % 2 else "#boneyard .tile.back").first.click()
            assert self.page.locator("#boneyard .tile.back").count() == before - 1
            self.draws += 1

    def check_lit(self, f: dict):
        """The lit tiles are the frame's legal tiles; every other tile is dimmed."""
        legal = {m["tile"] for m in f["hand"]["legal"]}
        lit = set(self.page.eval_on_selector_all("#hand .tile.lit", "ns => ns.map(n => n.dataset.tile)"))
        dim = set(self.page.eval_on_selector_all("#hand .tile.dim", "ns => ns.map(n => n.dataset.tile)"))
        assert lit == legal and not lit & dim
        assert lit | dim == set(f["hand"]["tiles"])
        labels = self.page.eval_on_selector_all("#hand .tile", "ns => ns.map(n => [n.dataset.tile, "
                                                "n.getAttribute('aria-label')])")
        assert all(label.split(",")[0] == t for t, label in labels)

    def play(self, how: str = "tap") -> str:
        """Play the first lit tile by tapping (tile, then a lit end if it fits
        two) or by dragging it to an end; the tile played."""
        p = self.page
        self.draw_all()
        f = self.frame()
        self.check_lit(f)
        moves = f["moves"]
        tile = p.locator("#hand .tile.lit").first
        name = tile.get_attribute("data-tile")
        ends = next(m["ends"] for m in f["hand"]["legal"] if m["tile"] == name)
        if how == "tap":
            tile.click()
            if len(ends) > 1:
                p.wait_for_selector(f'#hand .tile.selected[data-tile="{name}"]', timeout=WAIT)
                assert p.eval_on_selector_all("#board .place.lit", "ns => ns.map(n => n.dataset.end)") == \
                    [e["end"] for e in f["hand"]["ends"] if e["end"] in ends]
                p.locator(f'#board .place.lit[data-end="{ends[-1]}"]').click()
                self.two_ends += 1
            self.taps += 1
        else:
            box = tile.bounding_box()
            target = (p.locator(f'#board .place[data-end="{ends[-1]}"]') if ends
                      else p.locator("#board .place").first).bounding_box()
            p.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            p.mouse.down()
            p.mouse.move(box["x"] + box["width"] / 2, box["y"] - 30, steps=3)
            p.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=5)
            p.mouse.up()
            self.drags += 1
        p.wait_for_function(f"window.dai.current().moves > {moves}", timeout=WAIT)
        after = self.frame()
        mine = [e for e in after["hand"]["events"][f["hand"]["step"]:] if e["kind"] == "play"]
        assert mine and mine[0]["seat"] == f["seat"] and mine[0]["tile"] == name
        if ends:
            assert mine[0]["end"] == ends[-1]
        return name

    def play_hand(self, how: str = "tap", until=None) -> dict:
        """Play until the hand is over (or ``until(frame)`` at the person's turn)."""
        while True:
            f = self.wait_turn()
            if f["status"] != "playing" or (until and until(f)):
                return f
            self.play(how)


def drawn_to_play(f: dict) -> int:
    """The tiles the engine drew for the person just before this turn (the
    draws by their seat at the end of the hand's events, each event with its
    count) when the turn comes with a tile they must play; 0 otherwise."""
    h = f["hand"]
    if not (f["status"] == "playing" and h["your_turn"] and h["must_play"]):
        return 0
    n = 0
    for e in reversed(h["events"]):
        if e["kind"] != "draw" or e["seat"] != f["seat"]:
            break
        n += e["count"]
    return n


def inside(page, selector: str, viewport: dict) -> list:
    """The elements of ``selector`` whose bounding box leaves the viewport."""
    out = []
    for i, b in enumerate(page.eval_on_selector_all(selector, "ns => ns.map(n => { const r = "
                                                                 "n.getBoundingClientRect(); return [r.x, r.y, "
                                                                 "r.right, r.bottom]; })")):
        x0, y0, x1, y1 = b
        if x0 < -0.5 or y0 < -0.5 or x1 > viewport["width"] + 0.5 or y1 > viewport["height"] + 0.5:
            out.append((selector, i, b))
    return out


# ---------------------------------------------------------------- the tests
def test_two_friends_and_a_bot_play_a_hand_by_tapping_and_dragging(server, browser, seed):
    seed(SEED_DRAW)
    a, b = Page(browser, server), Page(browser, server)
    try:
        code = a.open("block", players=3, alone=False, listed=True)
        assert a.page.locator("#table-code").inner_text() == code
        b.page.fill("#name-input", "Bob <b>")         # a name is shown as text, never as markup
        b.page.click("#name-form button")
        b.page.click("#lobby-refresh")
        row = b.page.locator(f'.lobby-table[data-code="{code}"]')
        row.wait_for(timeout=WAIT)
        assert "block, 3 players" in row.inner_text()
        b.page.fill("#join-code", code)                 # join by the code the opener gives
        b.page.click("#join-form button")
        for p in (a, b):
            p.page.wait_for_function("document.body.dataset.status === 'playing'", timeout=WAIT)
        f = a.frame()
        assert [s["bot"] for s in f["seats"]] == [None, None, "easy"]
        assert b.frame()["seat"] == 1
        # the bot's name is shown with the others' counts; the hands are face down
        others = a.page.locator("#others .other")
        assert others.count() == 2 and "easy (bot)" in others.nth(1).inner_text()
        assert others.nth(0).locator(".name").inner_text().startswith("Bob <b> ·")
        while True:     # seat 0 taps, seat 1 drags, seat 2 is the bot
            a.page.wait_for_function("(() => { const f = window.dai.current(); return f.status !== 'playing'"
                                     " || f.hand.to_move !== 2; })()", timeout=WAIT)
            f = a.frame()
            if f["status"] != "playing":
                break
            p = a if f["hand"]["to_move"] == 0 else b
            p.wait_turn()
            p.play("tap" if p is a else "drag")
        for p in (a, b):
            p.page.wait_for_selector("#sheet:not([hidden])", timeout=WAIT)
        assert a.taps and b.drags
        f = a.frame()
        shown = a.page.eval_on_selector_all("#sheet .sheet-seat", "ns => ns.map(n => [...n.querySelectorAll("
                                            "'.tile')].map(t => t.getAttribute('aria-label')))")
        assert shown == f["result"]["tiles"]
        a.page.click("#next-hand")
        a.page.wait_for_function("document.getElementById('sheet').innerText.includes('Waiting for')",
                                 timeout=WAIT)
        assert "NEXT HAND" not in a.page.locator("#sheet").inner_text()
        b.page.keyboard.press("n")
        a.page.wait_for_function("document.body.dataset.status === 'playing'", timeout=WAIT)
        assert a.frame()["hand"]["index"] == 1
    finally:
        a.close()
        b.close()


PRESET_PLAYERS = {"draw": 2, "block": 2, "all_fives": 2, "fives": 2, "kozel": 4, "express": 2,
                  "dominoball": 2, "openspiel_block": 2, "openspiel_team": 4, "pydominoes": 4}


def test_a_hand_in_each_preset_with_draws_and_the_spinner(server, browser, seed):
    p = Page(browser, server)
    try:
        for i, (variant, players) in enumerate(PRESET_PLAYERS.items()):
            seed(SEED_FIVES if variant == "all_fives" else SEED_DRAW if variant == "draw" else 11 + i)
            p.goto()
            p.open(variant, players)
            badges = p.page.locator("#badges").inner_text()
            f = p.frame()
            assert f["rules"]["preset"] == variant and len(f["seats"]) == players
            assert str(f["rules"]["target"]) in badges
            arms = set()
            draws_before = p.draws
            queues: list = []

            def look(fr):
                # the page lays the line out as dominoai.render does (the frame's line, 26 units wide)
                mine = p.page.evaluate("(h => window.dai.lineLayout(h.events, h.spinner))", fr["hand"])
                assert mine == fr["hand"]["line"], variant
                arms.update(p.page.eval_on_selector_all("#board .tile.line", "ns => ns.map(n => n.dataset.arm)"))
                # a dashed place at each open end (one in the middle before the lead); the last tile framed
                places = p.page.eval_on_selector_all("#board .place", "ns => ns.map(n => n.dataset.end)")
                assert places == ([e["end"] for e in fr["hand"]["ends"]] if fr["hand"]["line"] else ["lead"])
                framed = p.page.eval_on_selector_all("#board .tile.line.last", "ns => ns.map(n => n.dataset.tile)")
                assert framed == ([fr["hand"]["last"]] if fr["hand"]["line"] else [])
                # on the person's turn their name is lit, no other
                assert p.page.locator("#hand-name.to-move").count() == 1
                assert p.page.locator("#others .other.to-move").count() == 0
                if fr["rules"]["drawing"]:
                    # tiles the engine just drew for the person wait face down in the boneyard
                    # (it is lit) until tapped, and the badge still counts them
                    queued = drawn_to_play(fr)
                    queues.append(queued)
                    assert p.page.locator("#boneyard.lit").count() == (queued > 0), (variant, queued)
                    assert p.page.locator("#badge-boneyard").inner_text() == \
                        f"boneyard {fr['hand']['boneyard'] + queued}", (variant, queued)
                if fr["rules"]["end_scoring"] != "none":
                    assert p.page.locator("#badge-count").inner_text() == f"ends {fr['hand']['count']}"
                return False

            f = p.play_hand("tap", until=look)
            assert f["status"] in ("hand_over", "finished"), variant
            assert p.page.locator("#sheet:not([hidden]), #results:not([hidden])").count() == 1
            if variant == "draw":
                assert p.draws > draws_before, "the person never drew from the boneyard"
                assert max(queues) > 0, "the boneyard badge was never checked with tiles waiting in it"
            if variant == "all_fives":
                assert arms & {"up", "down"}, arms
            if f["status"] == "finished":      # a match of one hand: the results screen
                res = p.page.locator("#results")
                res.wait_for(timeout=WAIT)
                p.page.wait_for_selector("#results table.stats", timeout=WAIT)
                text = res.inner_text()
                for side, (score, won) in enumerate(zip(f["match"]["scores"], f["match"]["hands_won"])):
                    assert f": {score} {f['rules']['points_unit']}, {won} hand" in text
                assert variant.replace("_", " ") in p.page.locator("#results table.stats").inner_text()
            if variant == "kozel":
                assert "carried" in p.page.locator("#badges").inner_text()
        assert p.two_ends, "no tile fitted two ends"
    finally:
        p.close()


def test_a_short_match_to_a_target_of_ones_own(server, browser, seed):
    """The form's "Play to" sets the match target (empty: the preset's,
    shown as the placeholder); a target the rules refuse is said in the
    lobby and opens nothing. Block to 1 point ends with the first hand
    that scores, so the results screen follows it."""
    seed(11)
    p = Page(browser, server)
    try:
        p.goto()
        p.page.select_option("#open-variant", "block")
        assert p.page.get_attribute("#open-target", "placeholder") == "100"
        p.page.select_option("#open-variant", "all_fives")
        assert p.page.get_attribute("#open-target", "placeholder") == "150"
        p.page.select_option("#open-variant", "block")
        p.page.fill("#open-target", "0")
        p.page.evaluate("document.getElementById('open-target').removeAttribute('min')")   # past the form's check
        p.page.click("#open-button")
        p.page.wait_for_function("document.getElementById('lobby-message').textContent.includes('target')",
                                 timeout=WAIT)
        assert "target" in p.page.locator("#lobby-message").inner_text()
        assert p.page.evaluate("document.body.dataset.screen") != "table"
        p.open("block", 2, target=1)
        f = p.frame()
        assert f["rules"]["target"] == 1 and "/ 1" in p.page.locator("#badges").inner_text()
        while f["status"] != "finished":
            f = p.play_hand("tap")
            if f["status"] == "hand_over":
                p.page.click("#next-hand")
                f = p.wait_turn()
        p.page.wait_for_selector("#results table.stats", timeout=WAIT)
        assert "block" in p.page.locator("#results table.stats").inner_text()
        assert max(f["match"]["scores"]) >= 1
    finally:
        p.close()


def test_the_line_fits_portrait_and_landscape_late_in_a_long_hand(server, browser, seed, tmp_path):
    seed(SEED_LONG)
    p = Page(browser, server)
    try:
        p.open("all_fives")
        f = p.play_hand("tap", until=lambda fr: len(fr["hand"]["line"]) >= 14)
        assert f["status"] == "playing", "the hand ended before the line was long"
        shots = []
        for name, vp in (("portrait", PORTRAIT), ("landscape", LANDSCAPE)):
            p.page.set_viewport_size(vp)
            p.page.wait_for_function(f"window.innerWidth === {vp['width']}", timeout=WAIT)
            p.page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            n = p.page.locator("#board .tile.line").count()
            assert n == len(f["hand"]["line"])
            out = inside(p.page, "#board .tile.line", vp) + inside(p.page, "#hand .tile", vp) + \
                inside(p.page, "#board .place", vp) + inside(p.page, ".tile.back", vp)
            assert not out, (name, out)
            # and the line is not shrunk to nothing: a tile on it is at least 24 px long
            longest = p.page.eval_on_selector_all("#board .tile.line", "ns => ns.map(n => { const r = "
                                                  "n.getBoundingClientRect(); return Math.max(r.width, r.height); })")
            assert min(longest) >= 24, (name, min(longest))
            shot = tmp_path / f"serve-table-{name}.png"
            p.page.screenshot(path=str(shot))
            shots.append(shot)
        if os.environ.get("DOMINOAI_DOCS_SCREENSHOTS") == "1":
            for s in shots:
                shutil.copy(s, ROOT / "docs" / "img" / s.name)
    finally:
        p.close()


def test_reload_mid_hand_and_continue_after_closing(server, browser, seed):
    seed(SEED_DRAW)
    p = Page(browser, server)
    try:
        code = p.open("block")
        p.play_hand("tap", until=lambda fr: fr["moves"] >= 4)
        before = p.frame()
        p.page.reload()
        p.page.wait_for_function("document.body.dataset.screen === 'table' && window.dai.current()", timeout=WAIT)
        f = p.wait_turn()
        assert f["code"] == code and f["moves"] == before["moves"]
        assert sorted(p.page.eval_on_selector_all("#hand .tile", "ns => ns.map(n => n.dataset.tile)")) == \
            sorted(before["hand"]["tiles"])
        # the keyboard plays too: the first lit tile's number, then an end's key when it fits two
        tiles = p.page.eval_on_selector_all("#hand .tile", "ns => ns.map(n => n.dataset.tile)")
        m = f["hand"]["legal"][0]
        p.page.keyboard.press(str(tiles.index(m["tile"]) + 1))
        if len(m["ends"]) > 1:
            p.page.keyboard.press(m["ends"][0][0])
        p.page.wait_for_function(f"window.dai.current().moves > {f['moves']}", timeout=WAIT)
        played = [e for e in p.frame()["hand"]["events"][f["hand"]["step"]:] if e["kind"] == "play"][0]
        assert played["tile"] == m["tile"] and played["seat"] == f["seat"]
        # the redrawn hand keeps the keyboard's focus on a tile
        assert p.page.evaluate("!!document.activeElement.closest('#hand .tile')")
        # the page closed and opened again: CONTINUE brings the table back
        p.goto()
        p.page.locator(f'button.continue[data-code="{code}"]').click()
        p.page.wait_for_function(f"document.body.dataset.screen === 'table' && window.dai.current() &&"
                                 f" window.dai.current().code === '{code}'", timeout=WAIT)
        assert p.wait_turn()["moves"] >= f["moves"] + 1
    finally:
        p.close()


def test_a_refused_tile_shakes_and_the_top_line_says_why(server, browser, seed):
    seed(SEED_DRAW)
    p = Page(browser, server)
    try:
        code = p.open("block")

        def has_dim(fr):
            return fr["hand"]["events"] and len(fr["hand"]["legal"]) < len(fr["hand"]["tiles"])

        f = p.play_hand("tap", until=has_dim)
        assert f["status"] == "playing", "no turn with a tile that fits nowhere"
        rec = stored_record(server, code)
        tile = p.page.locator("#hand .tile.dim").first
        name = tile.get_attribute("data-tile")
        tile.click()
        p.page.wait_for_selector(f'#hand .tile.shake[data-tile="{name}"]', timeout=WAIT)
        ends = ", ".join(f"{e['end']} {e['pip']}" for e in f["hand"]["ends"])
        line = p.page.locator("#topline")
        line.wait_for(timeout=WAIT)
        p.page.wait_for_function("document.getElementById('topline').classList.contains('refused')", timeout=WAIT)
        assert line.inner_text() == f"{name} does not fit any open end (open: {ends})"
        # the server has answered the move with its refusal: nothing was played or stored
        assert stored_record(server, code) == rec
        g = p.frame()
        assert g["moves"] == f["moves"] and g["hand"] == f["hand"]
        assert p.page.locator(f'#hand .tile[data-tile="{name}"]').count() == 1
        # the menu: sound off (kept for the next visit), pause and resume
        p.page.click("#menu-button")
        p.page.click("#menu-sound")
        assert p.page.locator("#menu-sound").inner_text() == "Sound on"
        assert p.page.evaluate("localStorage.getItem('dai-sound')") == "off"
        p.page.click("#menu-pause")
        p.page.wait_for_selector("#paused:not([hidden])", timeout=WAIT)
        p.page.click("#resume-button")
        p.page.wait_for_selector("#paused", state="hidden", timeout=WAIT)
    finally:
        p.close()
