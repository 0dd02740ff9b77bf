"""The race pages' shells (issue 29), through Django's test client: the room's
link, the lobby's Race window and a past day's "Race this deal". The race
itself — joined, started, raced, finished — is in
``tests/system/browser/test_race.py``, in real browsers against the race API."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_a_race_link_is_a_page_for_anyone_that_asks_the_api_itself(make_player, client):
    for who in (client, make_player()):
        response = who.get("/race/ABCDEFGHIJ/")
        assert response.status_code == 200
        html = response.content.decode()
        assert 'id="race" data-race="ABCDEFGHIJ"' in html
        assert "raceroom" in html  # the room's module: it fetches the race and follows its socket
        for hook in ("race-join", "race-start", "race-leave", "race-copy", "race-invite", "racers"):
            assert f'id="{hook}"' in html, hook


@pytest.mark.django_db
@pytest.mark.parametrize("bad", ["no-such_race", "x" * 33, "%C3%A9t%C3%A9"])
def test_a_malformed_race_id_is_a_404(client, bad):
    assert client.get(f"/race/{bad}/").status_code == 404


@pytest.mark.django_db
def test_the_lobby_opens_a_race_on_any_variant_or_a_code(client):
    html = client.get("/").content.decode()
    assert 'id="race-new"' in html
    assert 'id="race-dialog"' in html
    for variant in ("EH1-N", "SH1-C4", "SH1-C2", "SH1-C1"):
        assert f'name="race-variant" value="{variant}"' in html
    assert 'id="race-code"' in html
    assert 'id="race-capacity" name="capacity" min="2" max="50"' in html
