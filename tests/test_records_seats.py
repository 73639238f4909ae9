"""Who sat in each seat: a record's ``seat_kinds`` (a person or a bot).

A person may take any name, a bot's spec included, so a record's names
alone cannot tell people from bots: ``seat_kinds`` does. Records written
before it existed still read (their kinds are unknown); the server's
export says the kind of every seat, also of hands stored before.
"""

from __future__ import annotations

import json

import pytest

from dominoai.game import Match
from dominoai.records import RecordError, dumps_record, load_record, parse_record, record_from_match, replay
from dominoai.table import Table

# the compiled kernels it needs (conftest.WARM_GROUPS): none compiles while its
# server test waits for a frame
pytestmark = pytest.mark.kernels("search")


def _played(preset="block", seed=4) -> Match:
    m = Match(preset, seed=seed)
    h = m.new_hand(leader=0)
    for _ in range(5):
        h.play(h.legal_moves()[0])
    return m


# ---------------------------------------------------------------- the format
def test_seat_kinds_are_written_read_and_written_back():
    m = _played()
    rec = record_from_match(m, ["easy", "easy"], ["person", "bot"])
    assert rec["seats"] == ["easy", "easy"] and rec["seat_kinds"] == ["person", "bot"]
    r = load_record(json.loads(dumps_record(rec)))
    assert r.seats == ("easy", "easy") and r.seat_kinds == ("person", "bot")
    assert "seat_kinds" not in r.extra
    assert r.to_dict()["seat_kinds"] == ["person", "bot"]
    assert replay(r).to_dict() == replay(record_from_match(m)).to_dict()
    assert "0: easy [person], 1: easy [bot]" in replay(r).summary().splitlines()[0]


def test_a_record_without_kinds_still_reads():
    rec = record_from_match(_played(), ["easy", "hard"])
    assert "seat_kinds" not in rec
    r = parse_record(rec)
    assert r.seats == ("easy", "hard") and r.seat_kinds is None
    assert "seat_kinds" not in r.to_dict()


@pytest.mark.parametrize("kinds, why", [
    (["person"], r"^seat_kinds must be a list of 2 kinds, \"person\" or \"bot\" \(one per seat\), not \[\"person\"\]$"),
    (["person", "human"], r"^seat_kinds must be a list of 2 kinds.*; \"human\" is not a kind$"),
    ("bot", r"^seat_kinds must be a list of 2 kinds"),
])
def test_bad_seat_kinds_are_refused_in_one_line(kinds, why):
    rec = record_from_match(_played(), ["a", "b"])
    rec["seat_kinds"] = kinds
    with pytest.raises(RecordError, match=why):
        parse_record(rec)


def test_kinds_need_the_seats_names():
    rec = record_from_match(_played())
    rec["seat_kinds"] = ["person", "bot"]
    with pytest.raises(RecordError, match=r"^seat_kinds needs seats"):
        parse_record(rec)
    with pytest.raises(ValueError, match="give the seats' names too"):
        record_from_match(_played(), None, ["person", "bot"])
    with pytest.raises(ValueError, match="one of person, bot per seat"):
        record_from_match(_played(), ["a", "b"], ["person", "robot"])


# ---------------------------------------------------------------- the table
def test_a_person_named_like_a_bot_is_a_person_in_the_tables_record():
    t = Table.new("block", 2, "easy", [0], seed=7, names=["easy"], build_bots=False)
    t.start_hand()
    rec = t.record()
    assert rec["seats"] == ["easy", "easy"]
    assert rec["seat_kinds"] == ["person", "bot"]
    again = Table.from_record(rec, build_bots=False)
    assert again.record()["seat_kinds"] == ["person", "bot"]


# ---------------------------------------------------------------- the server's export
def _play_alone_as(url: str, name: str) -> dict:
    """Name a new guest, open a Block table alone against ``easy`` and play
    the first legal move at each turn until the hand is over; the last frame."""
    from websockets.sync.client import connect

    with connect(url, open_timeout=30) as ws:
        def recv() -> dict:
            return json.loads(ws.recv(timeout=60))

        assert recv()["type"] == "welcome"
        ws.send(json.dumps({"type": "hello", "name": name}))
        assert recv()["name"] == name
        ws.send(json.dumps({"type": "open", "variant": "block", "alone": True, "level": "easy"}))
        answered = -1
        while True:
            f = recv()
            assert f["type"] in ("opened", "table"), f
            if f["type"] != "table":
                continue
            if f["status"] in ("hand_over", "finished"):
                return f
            h = f["hand"]
            if f["status"] == "playing" and h["your_turn"] and f["moves"] != answered:
                answered = f["moves"]
                m = h["legal"][0]
                ws.send(json.dumps({"type": "play", "code": f["code"], "tile": m["tile"],
                                    **({"end": m["ends"][0]} if m["ends"] else {})}))


def test_the_servers_export_tells_a_person_named_easy_from_the_bot_easy(live_server, tmp_path, monkeypatch):
    import dominoai.serve.app as serve_app
    from dominoai.serve import export
    from dominoai.serve.store import Store

    monkeypatch.setattr(serve_app, "fresh_seed", lambda: 5)
    f = _play_alone_as(live_server.ws_url, "easy")
    assert [(s["name"], s["bot"]) for s in f["seats"]] == [("easy", None), ("easy", "easy")]

    files = export(live_server.db, tmp_path / "out")
    assert len(files) == 1
    rec = json.loads(files[0].read_text())
    assert rec["seats"] == ["easy", "easy"]
    assert rec["seat_kinds"] == ["person", "bot"]
    assert load_record(files[0]).seat_kinds == ("person", "bot")

    # a hand stored before records said who sat where: the export takes the kinds from the table
    store = Store(live_server.db)
    try:
        (hand_id, text), = store.db.execute("SELECT id, record FROM records").fetchall()
        old = json.loads(text)
        old.pop("seat_kinds")
        store.db.execute("UPDATE records SET record=? WHERE id=?", (json.dumps(old), hand_id))
    finally:
        store.close()
    rec = json.loads(export(live_server.db, tmp_path / "again")[0].read_text())
    assert rec["seats"] == ["easy", "easy"] and rec["seat_kinds"] == ["person", "bot"]
