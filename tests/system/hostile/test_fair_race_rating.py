"""The race rating (issue 29) played as an attacker: what it shows names no card
and nothing of a running daily, and nothing over HTTP writes it.

Today's dailies run (secret keys, proven). Four accounts are rated by two races
(announced as the race services announce an end); a fifth account and an
anonymous visitor look on. Every byte of each player's record and each race's
ratings, as each of them asks, is kept (``Wire``): no card, no byte of a
running daily's code or key, no game id or link to one. Each write to the
rating's doors (POST, PUT, PATCH, DELETE), signed in as a racer, is refused with
the error shape and changes no rating."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import TestCase

from accounts.models import User
from leaderboard.models import RaceRating, RaceRatingChange
from races.services import race_create
from races.signals import race_finished
from tests.support.api import assert_error
from tests.support.hidden import Wire, check_cardless, prepared, secrets_of


def announce(standings: list[tuple[Any, int]]) -> str:
    """A race opened by its winner on a practice deal, announced as ended."""
    users = [(User.objects.get(username=c.username), p) for c, p in standings]
    race = race_create(host=users[0][0], code="SH1-C4-AAAAAAE")
    with TestCase.captureOnCommitCallbacks(execute=True):  # the rating is queued on commit
        race_finished.send(
            sender=None,
            race_id=race.pk,
            standings=[(u.pk, p) for u, p in users],
            variant="SH1-C4",
        )
    return race.slug


def snapshot() -> list[tuple[Any, ...]]:
    return sorted(
        RaceRating.objects.values_list("player_id", "rating", "deviation", "volatility", "races")
    )


def test_the_race_rating_shows_no_card_and_takes_no_write(make_player, anon):
    running = [prepared("SH1-C4"), prepared("EH1-N")]
    secrets = [s for daily in running for s in secrets_of(daily)]
    racers = [make_player() for _ in range(4)]
    other = make_player()
    races = [
        announce([(racers[0], 1), (racers[1], 2), (racers[2], 2), (racers[3], 4)]),
        announce([(racers[3], 1), (racers[0], 2)]),
    ]
    assert RaceRatingChange.objects.count() == 6

    wire = Wire()
    for viewer_name, viewer in [("anon", anon), ("other", other), ("racer", racers[0])]:
        for c in racers:
            path = f"/api/players/{c.username}/"
            body = wire.http(f"{viewer_name} {path}", viewer.get(path)).json()
            assert body["race_rating"]["races"] >= 1
        for race in races:
            path = f"/api/races/{race}/ratings/"
            response = wire.http(f"{viewer_name} {path}", viewer.get(path))
            assert response.json()["rated"] is True
    for where, raw in wire.received:
        body = json.loads(raw)
        check_cardless(body, where)
        text = raw.decode()
        for secret in secrets:
            assert secret not in text, (where, secret)
        for link in ("/play/", "/replay/", "/watch/", '"attempt"', '"game"', '"code"'):
            assert link not in text, (where, link)

    before = snapshot()
    attacker = racers[3]
    for path in (f"/api/races/{races[0]}/ratings/", f"/api/players/{attacker.username}/"):
        for method in ("post", "put", "patch", "delete"):
            body = {"rating": 3000, "deviation": 30, "races": 100}
            response = getattr(attacker, method)(path, body, format="json")
            assert_error(response, 405)
    assert snapshot() == before
    assert RaceRatingChange.objects.count() == 6


@pytest.mark.parametrize("path", ["/api/races/{}/ratings/", "/api/players/{}/"])
def test_a_name_or_id_that_is_no_one_is_a_404_with_the_error_shape(anon, db, path):
    for bad in ("%00", "..%2F..", "x" * 200, "%E2%80%AE"):
        assert_error(anon.get(path.format(bad)), 404)
