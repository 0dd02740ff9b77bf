"""A player's result, shared (issue 28): ``/r/<game id>/`` — the board's line of
one counted daily result, with its OpenGraph and Twitter cards — and their
image ``/og/r/<game id>.png``. A result no board shows is 404 for both. What
they must never show of a running deal: tests/system/hostile/test_fair_result_cards.py."""

from __future__ import annotations

import html
import io
import re

import pytest
from PIL import Image

from accounts.models import User
from games.models import Attempt
from games.services import attempt_start
from tests.support.results import daily_of, finished, user_of

pytestmark = pytest.mark.django_db


def metas(page: str) -> dict[str, str]:
    found = re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', page)
    return {name: html.unescape(value) for name, value in found}


def test_a_counted_result_has_its_page_with_the_boards_line(anon, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    daily = daily_of("SH1-C4", days_ago=1)
    finished(user_of(bob), daily, score=900, ms=100_000, moves=80)
    mine = finished(user_of(alice), daily, score=500, ms=192_000, moves=98)
    response = anon.get(f"/r/{mine.pk}/")
    assert response.status_code == 200, response.content[:300]
    card = metas(response.content.decode())
    day = daily.date.strftime("%B ") + str(daily.date.day) + daily.date.strftime(", %Y")
    assert card["og:title"] == card["twitter:title"]
    assert card["og:title"] == f"alice on Seahaven Towers · Easy (4 cells) — {day}"
    line = card["og:description"]
    assert line == card["twitter:description"] == card["description"]
    assert line.startswith("Won · score 500 · 98 moves · 3:12 · #2 of 2 · difficulty: "), line
    assert card["twitter:card"] == "summary_large_image"
    assert card["og:url"] == f"http://testserver/r/{mine.pk}/"
    assert card["og:image"] == card["twitter:image"] == f"http://testserver/og/r/{mine.pk}.png"
    page = response.content.decode()
    assert f'href="/daily/{daily.date.isoformat()}/"' in page
    assert f'href="/leaderboard/{daily.date.isoformat()}/SH1-C4/"' in page
    assert 'id="result-replay"' not in page  # signed out: replays need an account
    assert f'href="/replay/{mine.pk}/"' in bob.get(f"/r/{mine.pk}/").content.decode()  # day over


def test_the_replay_link_follows_the_replay_rule_while_the_day_runs(make_player):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    today = daily_of("SH1-C4")
    mine = finished(user_of(alice), today)
    finished(user_of(bob), today, won=False)
    path = f"/r/{mine.pk}/"
    assert 'id="result-replay"' in alice.get(path).content.decode()  # won it
    assert 'id="result-replay"' not in bob.get(path).content.decode()  # resigned: waits
    assert 'id="result-replay"' not in carol.get(path).content.decode()  # not played


def test_the_image_is_a_png_with_an_etag_and_cache_headers(anon, make_player):
    alice = make_player("alice")
    past = finished(user_of(alice), daily_of(days_ago=2))
    response = anon.get(f"/og/r/{past.pk}.png")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    with Image.open(io.BytesIO(response.content)) as png:
        assert png.size == (1200, 630)
    assert response["Cache-Control"] == "max-age=86400, public"
    etag = response["ETag"]
    again = anon.get(f"/og/r/{past.pk}.png", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag

    running = finished(user_of(alice), daily_of())
    first = anon.get(f"/og/r/{running.pk}.png")
    assert first["Cache-Control"] == "max-age=300, public"
    # Someone ranks ahead: the drawing changes (#2 of 2), so does its ETag.
    finished(user_of(make_player("bob")), daily_of(), score=10_000)
    second = anon.get(f"/og/r/{running.pk}.png", HTTP_IF_NONE_MATCH=first["ETag"])
    assert second.status_code == 200 and second["ETag"] != first["ETag"]
    assert second.content != first.content


def _not_shown(make_player) -> dict[str, int]:
    alice, bob = make_player("alice"), make_player("bob")
    yesterday = daily_of(days_ago=1)
    out = {}
    out["disqualified"] = finished(user_of(alice), yesterday).pk
    Attempt.objects.filter(pk=out["disqualified"]).update(disqualified=True)
    out["failed check"] = finished(user_of(bob), yesterday, verified=False).pk
    guest = User.objects.create_user("guest-0123456789ab", password=None, is_guest=True)
    out["guest's"] = finished(guest, daily_of("SH1-C2", days_ago=1)).pk
    out["playing"] = attempt_start(player=user_of(alice), daily="SH1-C1")[0].pk
    out["practice"] = attempt_start(player=user_of(alice), random="SH1-C4")[0].pk
    out["no such game"] = 987_654
    return out


def test_a_result_no_board_shows_is_404_for_page_and_image(anon, make_player):
    for why, attempt_id in _not_shown(make_player).items():
        assert anon.get(f"/r/{attempt_id}/").status_code == 404, why
        assert anon.get(f"/og/r/{attempt_id}.png").status_code == 404, why


@pytest.mark.parametrize("path", ["/r/x/", "/r/-1/", "/og/r/1e3.png", "/r/99999999999999999999/"])
def test_a_malformed_id_is_404(anon, path):
    assert anon.get(path).status_code == 404
