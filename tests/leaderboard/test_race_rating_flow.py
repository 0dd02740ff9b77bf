"""A race played through the race rooms' API ends rated (issue 29): the race
services announce the end after commit, the leaderboard's receiver rates it,
and the player record and ``/api/races/{race}/ratings/`` show it."""

from __future__ import annotations

import datetime as dt

import pytest

from races import services
from tests.support.api import act
from tests.support.search import find_win

WIN_CODE = "SH1-C4-AAAAAAE"  # tests/support/search.py wins it at once


@pytest.mark.django_db(transaction=True)
def test_a_race_played_to_its_end_is_rated(make_player, anon, monkeypatch):
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    host, rival = make_player(), make_player()
    slug = host.send("/api/races/", {"code": WIN_CODE}).json()["id"]
    assert rival.send(f"/api/races/{slug}/join/").status_code == 200
    assert host.send(f"/api/races/{slug}/start/").status_code == 200
    assert anon.get(f"/api/races/{slug}/ratings/").json() == {
        "race": slug,
        "rated": False,
        "changes": [],
    }
    mine = host.get(f"/api/races/{slug}/").json()["you"]["attempt"]
    theirs = rival.get(f"/api/races/{slug}/").json()["you"]["attempt"]
    line = find_win(WIN_CODE)
    assert line is not None
    for seq, move in enumerate(line):
        assert act(host, mine, seq, move.to_json()).status_code == 200
    assert act(rival, theirs, 0, line[0].to_json()).status_code == 200  # rival played
    assert rival.send(f"/api/games/{theirs}/resign/").status_code == 200
    assert anon.get(f"/api/races/{slug}/").json()["status"] == "finished"

    rated = anon.get(f"/api/races/{slug}/ratings/").json()
    assert rated["rated"] is True
    assert [(c["player"], c["place"]) for c in rated["changes"]] == [
        (host.username, 1),
        (rival.username, 2),
    ]
    assert rated["changes"][0]["delta"] > 0 > rated["changes"][1]["delta"]
    record = anon.get(f"/api/players/{host.username}/").json()["race_rating"]
    assert record["races"] == 1 and record["history"][0]["race"] == slug

    # The racer's export (issue 28) holds the room and the rating's change; the
    # other racers' names stay theirs.
    export = host.get("/api/auth/export/").json()
    assert [(r["race"], r["place"], r["game"], r["host"]) for r in export["races"]] == [
        (slug, 1, mine, True)
    ]
    assert [c["race"] for c in export["race_rating"]["changes"]] == [slug]
    assert rival.username not in str(export["races"]) + str(export["race_rating"])


@pytest.mark.django_db(transaction=True)
def test_a_racer_who_never_moved_is_not_rated_nor_beaten(make_player, anon, monkeypatch):
    """A second account that joins, starts and leaves without a move is no
    opponent beaten; with one racer left who moved, the race is not rated."""
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    host, idle, rival = make_player(), make_player(), make_player()
    slug = host.send("/api/races/", {"code": WIN_CODE}).json()["id"]
    for joiner in (idle, rival):
        assert joiner.send(f"/api/races/{slug}/join/").status_code == 200
    assert host.send(f"/api/races/{slug}/start/").status_code == 200
    attempt = {
        p: p.get(f"/api/races/{slug}/").json()["you"]["attempt"] for p in (host, idle, rival)
    }
    line = find_win(WIN_CODE)
    assert line is not None
    assert idle.send(f"/api/races/{slug}/leave/").status_code == 200
    assert act(rival, attempt[rival], 0, line[0].to_json()).status_code == 200
    assert rival.send(f"/api/games/{attempt[rival]}/resign/").status_code == 200
    for seq, move in enumerate(line):
        assert act(host, attempt[host], seq, move.to_json()).status_code == 200
    assert anon.get(f"/api/races/{slug}/").json()["status"] == "finished"

    rated = anon.get(f"/api/races/{slug}/ratings/").json()
    assert [(c["player"], c["place"]) for c in rated["changes"]] == [
        (host.username, 1),
        (rival.username, 2),
    ]
    assert anon.get(f"/api/players/{idle.username}/").json()["race_rating"] is None


@pytest.mark.django_db(transaction=True)
def test_a_race_where_only_one_racer_moved_is_not_rated(make_player, anon, monkeypatch):
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    host, idle = make_player(), make_player()
    slug = host.send("/api/races/", {"code": WIN_CODE}).json()["id"]
    assert idle.send(f"/api/races/{slug}/join/").status_code == 200
    assert host.send(f"/api/races/{slug}/start/").status_code == 200
    mine = host.get(f"/api/races/{slug}/").json()["you"]["attempt"]
    assert idle.send(f"/api/races/{slug}/leave/").status_code == 200
    line = find_win(WIN_CODE)
    assert line is not None
    for seq, move in enumerate(line):
        assert act(host, mine, seq, move.to_json()).status_code == 200
    assert anon.get(f"/api/races/{slug}/").json()["status"] == "finished"
    assert anon.get(f"/api/races/{slug}/ratings/").json()["rated"] is False
    assert anon.get(f"/api/players/{host.username}/").json()["race_rating"] is None
