"""The link previews of a day's page (issue 28, deliverable 3): the OpenGraph
and Twitter cards of ``/daily/<date>/`` — where a shared result links — and
their image ``/og/<date>.png``, from the day's public figures."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from games.dailies import utc_today
from tests.support.api import win_daily


def metas(html: str) -> dict[str, str]:
    found = re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', html)
    return dict(found)


@pytest.mark.django_db
def test_the_days_page_carries_its_cards_with_the_predicted_level_and_the_results(
    anon, make_player
):
    win_daily(make_player(), "SH1-C4")
    today = utc_today().isoformat()
    response = anon.get(f"/daily/{today}/")
    assert response.status_code == 200
    card = metas(response.content.decode())
    assert card["og:title"] == card["twitter:title"] == f"Daily deals of {today}"
    assert card["twitter:card"] == "summary_large_image"
    assert card["og:url"] == f"http://testserver/daily/{today}/"
    assert card["og:image"] == card["twitter:image"] == f"http://testserver/og/{today}.png"
    assert (card["og:image:width"], card["og:image:height"]) == ("1200", "630")
    # The won daily's line: its name, its predicted level, its counted results.
    line = re.search(r"Seahaven Towers[^—]*?: (\w+) · 1 played, 1 won", card["og:description"])
    assert line, card["og:description"]
    assert line.group(1) in {"Easy", "Moderate", "Hard", "Tough", "Fiendish", "Unknown"}


@pytest.mark.django_db
def test_the_cards_image_is_a_png_of_the_preview_size_cached(anon, make_player):
    today = utc_today().isoformat()
    first = anon.get(f"/og/{today}.png")
    assert first.status_code == 200 and first["Content-Type"] == "image/png"
    assert first["Cache-Control"] == "max-age=300, public"  # the day runs: figures move
    with Image.open(io.BytesIO(first.content)) as image:
        assert image.size == (1200, 630)
    assert anon.get(f"/og/{today}.png").content == first.content
    # A new result changes the figures, so the picture.
    win_daily(make_player(), "SH1-C4")
    assert anon.get(f"/og/{today}.png").content != first.content


@pytest.mark.django_db
@pytest.mark.parametrize("date", ["2026-13-01", "tomorrow", "2026-1-05", "9999-12-31"])
def test_no_image_for_what_is_no_published_day(anon, date):
    response = anon.get(f"/og/{date}.png")
    assert response.status_code == 404
