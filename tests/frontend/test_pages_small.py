"""Small defects of the page shells (issue 15, deliverable 8), through Django's
test client: an unknown player's page and the sign-in link's ``next``."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_an_unknown_players_page_is_a_404_that_says_so(client):
    response = client.get("/players/nobody-by-this-name/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "No such player" in html
    assert "nobody-by-this-name" in html
    # No empty records table, and no script that would fetch a record there is not.
    assert 'id="player-variants"' not in html
    assert "js/player.js" not in html


@pytest.mark.django_db
def test_a_known_players_page_is_their_records(make_player, client):
    name = make_player().username
    response = client.get(f"/players/{name.upper()}/")  # names match in any case
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="player-variants"' in html
    assert "No such player" not in html
