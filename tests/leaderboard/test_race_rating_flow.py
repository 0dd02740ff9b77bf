"""A race played through the race rooms' API ends rated (issue 29): the race
services announce the end after commit, the leaderboard's receiver rates it,
and the player record and ``/api/races/{race}/ratings/`` show it."""

from __future__ import annotations

import datetime as dt

import pytest

from races import services
from tests.support.api import act
from tests.support.races import WIN_CODE, create, get, post, win_line


def started(host, *joiners) -> str:
    """A race on ``WIN_CODE`` that ``host`` opens, ``joiners`` join and ``host``
    starts (no countdown: the tests set none); its slug."""
    slug = create(host, {"code": WIN_CODE})["id"]
    for joiner in joiners:
        post(joiner, slug, "join")
    post(host, slug, "start")
    return slug


@pytest.mark.django_db(transaction=True)
def test_a_race_played_to_its_end_is_rated(make_player, anon, monkeypatch):
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    host, rival = make_player(), make_player()
    slug = started(host, rival)
    assert anon.get(f"/api/races/{slug}/ratings/").json() == {
        "race": slug,
        "rated": False,
        "changes": [],
    }
    mine, theirs = get(host, slug)["you"]["attempt"], get(rival, slug)["you"]["attempt"]
    line = win_line()
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
    slug = started(host, idle, rival)
    attempt = {p: get(p, slug)["you"]["attempt"] for p in (host, idle, rival)}
    line = win_line()
    post(idle, slug, "leave")
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
    slug = started(host, idle)
    mine = get(host, slug)["you"]["attempt"]
    post(idle, slug, "leave")
    line = win_line()
    for seq, move in enumerate(line):
        assert act(host, mine, seq, move.to_json()).status_code == 200
    assert anon.get(f"/api/races/{slug}/").json()["status"] == "finished"
    assert anon.get(f"/api/races/{slug}/ratings/").json()["rated"] is False
    assert anon.get(f"/api/players/{host.username}/").json()["race_rating"] is None
