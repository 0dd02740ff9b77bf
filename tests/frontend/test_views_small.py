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


def signin_href(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('id="signin-link" href="') + len('id="signin-link" href="')
    return html[start : html.index('"', start)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/rules/", "/login/?next=/rules/"),
        ("/login/?next=/rules/", "/login/?next=/rules/"),
        ("/signup/?next=/leaderboard/", "/login/?next=/leaderboard/"),
        ("/login/", "/login/?next=/"),
    ],
)
def test_the_sign_in_link_carries_the_original_target_once(client, path, expected):
    href = signin_href(client, path)
    assert href == expected
    assert "next%3D" not in href


CHECKED = "Checked: the server replayed the game and got the same result."


@pytest.mark.django_db
def test_the_checked_column_is_named_and_explained(client):
    html = client.get("/leaderboard/2026-01-01/SH1-C4/").content.decode()
    start = html.index('class="col-check"')
    head = html[start : html.index("</th>", start)]
    # An accessible name (the text a screen reader reads, the mark itself hidden),
    # an explanation on hover, and a legend anyone can read under the table.
    assert '<span class="sr-only">Checked</span>' in head
    assert '<span aria-hidden="true">✓</span>' in head
    assert f'<abbr title="{CHECKED}">' in head
    assert 'aria-describedby="lb-legend"' in head
    assert f'id="lb-legend"><span aria-hidden="true">✓</span> {CHECKED}</p>' in html


@pytest.mark.django_db
def test_the_checked_columns_explanation_is_translated(client):
    html = client.get("/leaderboard/2026-01-01/SH1-C4/", HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert 'lang="bg"' in html
    assert CHECKED not in html
