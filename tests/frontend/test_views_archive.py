"""The archive's page shell and the lobby's streak hook (issue 15, deliverable 3),
through Django's test client; what the calendar shows is in
``tests/system/browser/test_archive.py``, its data in ``tests/leaderboard/test_api_calendar.py``."""

from __future__ import annotations

import re

import pytest

from games.dailies import utc_today


def page(client, path: str, **headers: str) -> str:
    response = client.get(path, **headers)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


@pytest.mark.django_db
def test_the_archive_is_the_current_month_and_in_the_site_navigation(client):
    today = utc_today()
    html = page(client, "/archive/")
    assert f'data-month="{today.year:04d}-{today.month:02d}"' in html
    assert 'href="/archive/" aria-current="page">Archive</a>' in html
    assert re.search(r'src="/js/header~archive\.', html)  # its modules, joined (issue 24)
    assert re.search(r'href="/css/[a-z~-]*~archive\.', html)
    assert 'id="archive-signin"' in html and 'id="archive-legend"' not in html  # signed out
    assert 'href="/archive/">Archive</a>' in page(client, "/rules/")  # on every page


@pytest.mark.django_db
def test_a_month_is_chosen_by_its_query(client):
    assert 'data-month="2020-05"' in page(client, "/archive/?month=2020-05")


@pytest.mark.django_db
@pytest.mark.parametrize("month", ["2026-13", "2026-1", "x", "", "2026-12-01"])
def test_a_malformed_month_is_no_page(client, month):
    assert client.get("/archive/", {"month": month}).status_code == 404


@pytest.mark.django_db
def test_signed_in_the_legend_and_the_lobbys_streak(client, make_player):
    player = make_player()
    client.login(username=player.username, password="correct horse battery")
    html = page(client, "/archive/")
    assert 'id="archive-legend"' in html and 'id="archive-signin"' not in html
    assert 'id="streak"' in page(client, "/")


@pytest.mark.django_db
def test_signed_out_the_lobby_has_no_streak(client):
    html = page(client, "/")
    assert 'id="streak"' not in html
    assert 'id="archive-link" href="/archive/"' in html


@pytest.mark.django_db
def test_the_archive_is_translated(client):
    html = page(client, "/archive/", HTTP_ACCEPT_LANGUAGE="bg")
    assert 'lang="bg"' in html
    assert "Sign in to see which days you played and won." not in html
