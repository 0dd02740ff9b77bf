"""The race pages' shells (issue 29), through Django's test client: the room's
link, the lobby's Race window and a past day's "Race this deal". The race
itself — joined, started, raced, finished — is in
``tests/system/browser/test_race.py``, in real browsers against the race API."""

from __future__ import annotations

import pytest

from games.engine import ALL_VARIANTS


@pytest.mark.django_db
def test_a_race_link_is_a_page_for_anyone_that_asks_the_api_itself(make_player, client):
    for who in (client, make_player()):
        response = who.get("/race/abcdefghij/")
        assert response.status_code == 200
        html = response.content.decode()
        assert 'id="race" data-race="abcdefghij"' in html
        assert "raceroom" in html  # the room's module: it fetches the race and follows its socket
        for hook in ("race-join", "race-start", "race-leave", "race-copy", "race-invite", "racers"):
            assert f'id="{hook}"' in html, hook


@pytest.mark.django_db
@pytest.mark.parametrize("bad", ["no-such_race", "x" * 17, "%C3%A9t%C3%A9", "ABCDEFGHIJ"])
def test_a_malformed_race_id_is_a_404(client, bad):
    assert client.get(f"/race/{bad}/").status_code == 404


@pytest.mark.django_db
def test_the_lobby_opens_a_race_on_any_variant_or_a_code(client):
    html = client.get("/").content.decode()
    assert 'id="race-new"' in html
    assert 'id="race-dialog"' in html
    for variant in ALL_VARIANTS:
        assert f'name="race-variant" value="{variant}"' in html
    assert 'id="race-code"' in html
    assert 'id="race-capacity" name="capacity" min="2" max="50"' in html


def send(client, path: str, body: object = None) -> dict:
    response = client.send(path, body)
    assert response.status_code in (200, 201), response.content
    return response.json()


@pytest.mark.django_db(transaction=True)
def test_a_started_race_gives_its_racers_their_board_and_others_the_room(make_player, client):
    host, racer, spectator = make_player(), make_player(), make_player()
    race = send(host, "/api/races/", {"code": "SH1-C4-AAAAAJ2"})["id"]
    send(racer, f"/api/races/{race}/join/")
    # Before the start: the room for everyone, racers too.
    for who in (host, racer, spectator, client):
        html = who.get(f"/race/{race}/").content.decode()
        assert f'id="race" data-race="{race}"' in html, who
        assert 'id="play"' not in html
    started = send(host, f"/api/races/{race}/start/")
    attempts = {}
    for who in (host, racer):
        attempt = who.get(f"/api/races/{race}/").json()["you"]["attempt"]
        html = who.get(f"/race/{race}/").content.decode()
        # The play page for the racer's own game, with the race's strip and its answers embedded.
        assert f'id="play" data-attempt="{attempt}"' in html
        assert f'id="race-strip" data-race="{race}"' in html
        assert f'"/api/games/{attempt}/"' in html and f'"/api/races/{race}/"' in html
        assert "racestrip" in html
        attempts[who.username] = attempt
    assert len(set(attempts.values())) == 2
    for who in (spectator, client):
        html = who.get(f"/race/{race}/").content.decode()
        assert 'id="play"' not in html
        for attempt in attempts.values():  # a spectator's page names no racer's game
            assert f"/api/games/{attempt}/" not in html
    assert started["status"] == "running"
