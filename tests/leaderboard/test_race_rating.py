"""The race rating's receiver and API (issue 29): ``races.signals.race_finished``
sent with made-up standings (rated by the job it queues, ``leaderboard/tasks.py``,
run in process here) for players made here (the race services have their
own tests), read back through ``/api/players/{name}/`` and
``/api/races/{race}/ratings/``."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from django.test import TestCase
from django.utils import timezone

from accounts.models import User
from kit.errors import Invalid
from leaderboard import glicko2
from leaderboard.models import RaceRating, RaceRatingChange
from leaderboard.ratings import race_rate
from races.models import Race
from races.services import race_create
from races.signals import race_finished
from tests.support.api import assert_error
from tests.support.concurrency import at_once

_names = itertools.count()
_races = itertools.count(1000)
RATING_KEYS = {"rating", "deviation", "races", "provisional", "history"}
CHANGE_KEYS = {"player", "place", "before", "after", "delta", "deviation", "provisional"}


def racer(*, guest: bool = False) -> User:
    return User.objects.create_user(username=f"racer{next(_names)}", password="x", is_guest=guest)


def finish(standings: list[tuple[User, int]], race: int | None = None) -> int:
    """Announce the end of ``race`` (a race opened by the first racer if None)
    with these standings; returns the race's pk."""
    if race is None:
        race = race_create(host=standings[0][0], code="SH1-C4-AAAAAAE").pk
    # The rating is queued on commit (leaderboard/tasks.py): this test's
    # transaction never commits, so run what a commit would.
    with TestCase.captureOnCommitCallbacks(execute=True):
        race_finished.send(
            sender=None,
            race_id=race,
            standings=[(user.pk, place) for user, place in standings],
            variant="SH1-C4",
        )
    return race


def slug(race: int) -> str:
    return Race.objects.get(pk=race).slug


def rating_of(user: User) -> RaceRating:
    return RaceRating.objects.get(player=user)


@pytest.mark.django_db
def test_a_race_rates_every_racer_from_the_ratings_before_it():
    a, b, c, d = racer(), racer(), racer(), racer()
    RaceRating.objects.create(player=a, rating=1700, deviation=80, races=12)
    race = finish([(a, 2), (b, 1), (c, 3), (d, 3)])
    before = {
        a.pk: glicko2.Rating(1700, 80),
        b.pk: glicko2.Rating(),
        c.pk: glicko2.Rating(),
        d.pk: glicko2.Rating(),
    }
    # a's deviation grew for the moments since it was rated: well under a point.
    expected = glicko2.rate_race([(a.pk, 2), (b.pk, 1), (c.pk, 3), (d.pk, 3)], before)
    for user in (a, b, c, d):
        row = rating_of(user)
        assert row.rating == pytest.approx(expected[user.pk].rating, abs=0.01)
        assert row.deviation == pytest.approx(expected[user.pk].deviation, abs=0.01)
    assert rating_of(a).races == 13 and rating_of(b).races == 1
    assert rating_of(b).rating > 1500 > rating_of(c).rating == rating_of(d).rating
    assert rating_of(a).rating < 1700  # beaten by a new player
    changes = {ch.player_id: ch for ch in RaceRatingChange.objects.filter(race_id=race)}
    assert set(changes) == {a.pk, b.pk, c.pk, d.pk}
    assert changes[a.pk].before == pytest.approx(1700)
    assert changes[a.pk].after == pytest.approx(rating_of(a).rating)
    assert (changes[b.pk].place, changes[b.pk].racers, changes[b.pk].variant) == (1, 4, "SH1-C4")
    assert changes[b.pk].deviation_before == pytest.approx(350)
    assert changes[b.pk].deviation_after == pytest.approx(rating_of(b).deviation)


@pytest.mark.django_db
def test_a_second_announcement_changes_nothing():
    a, b = racer(), racer()
    race = finish([(a, 1), (b, 2)])
    rows = {
        u.pk: (r.rating, r.deviation, r.volatility, r.races) for u in (a, b) for r in [rating_of(u)]
    }
    finish([(a, 2), (b, 1)], race=race)  # even with other standings: the race is rated
    assert {
        u.pk: (r.rating, r.deviation, r.volatility, r.races) for u in (a, b) for r in [rating_of(u)]
    } == rows
    assert RaceRatingChange.objects.filter(race_id=race).count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_announcements_at_once_rate_the_race_once():
    a, b, c = racer(), racer(), racer()
    race = next(_races)
    standings = [(a.pk, 1), (b.pk, 2), (c.pk, 3)]
    at_once([lambda: race_rate(race_id=race, standings=standings, variant="SH1-C4")] * 2)
    assert RaceRatingChange.objects.filter(race_id=race).count() == 3
    assert [rating_of(u).races for u in (a, b, c)] == [1, 1, 1]


@pytest.mark.django_db
def test_guests_are_left_out_and_the_others_keep_their_order():
    a, guest, b = racer(), racer(guest=True), racer()
    race = finish([(guest, 1), (a, 2), (b, 3)])
    assert not RaceRating.objects.filter(player=guest).exists()
    change = RaceRatingChange.objects.get(race_id=race, player=a)
    assert change.racers == 2 and change.after > change.before  # a beat b
    # Only guests besides one player: nothing to rate.
    lone = finish([(racer(guest=True), 1), (b, 2)])
    assert not RaceRatingChange.objects.filter(race_id=lone).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "standings",
    [
        [(1, 1), (1, 2)],  # one player twice
        [(1, 0), (2, 1)],  # a place below 1
        [(1, "1"), (2, 2)],
        [(1,), (2, 1)],
        [None, (2, 1)],
        [(True, 1), (2, 1)],
    ],
)
def test_bad_standings_are_refused_and_change_nothing(standings):
    a, b = racer(), racer()
    ids = {1: a.pk, 2: b.pk}

    def real(item):
        if isinstance(item, tuple) and item and type(item[0]) is int:
            return (ids[item[0]], *item[1:])
        return item

    with pytest.raises(Invalid):
        race_rate(race_id=next(_races), standings=[real(s) for s in standings], variant="SH1-C4")
    assert not RaceRating.objects.exists() and not RaceRatingChange.objects.exists()


@pytest.mark.django_db
def test_a_players_deviation_grows_between_races():
    a, b = racer(), racer()
    year_ago = timezone.now() - dt.timedelta(days=365)
    RaceRating.objects.create(player=a, rating=1600, deviation=60, races=10, updated_at=year_ago)
    race = finish([(a, 1), (b, 2)])
    change = RaceRatingChange.objects.get(race_id=race, player=a)
    # Glicko-2's step 6 for each period without a race: 0.21436 periods a day.
    grown = glicko2.absent(glicko2.Rating(1600, 60), 365 * 0.21436).deviation
    assert change.deviation_before == pytest.approx(grown, abs=0.01)
    assert change.deviation_before > 100


# --- the API ------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_player_record_has_the_race_rating(anon, player):
    user = User.objects.get(username=player.username)
    data = anon.get(f"/api/players/{player.username}/").json()
    assert data["race_rating"] is None  # no race yet
    assert {"username", "played", "won", "variants", "streak", "disqualified"} <= set(data)
    rival = racer()
    race = finish([(user, 1), (rival, 2)])
    rating = anon.get(f"/api/players/{player.username}/").json()["race_rating"]
    assert set(rating) == RATING_KEYS
    row = rating_of(user)
    assert rating["rating"] == round(row.rating) and rating["rating"] > 1500
    assert rating["deviation"] == round(row.deviation) and rating["provisional"] is True
    assert rating["races"] == 1
    (entry,) = rating["history"]
    assert entry["race"] == slug(race)
    assert (entry["place"], entry["racers"], entry["variant"]) == (1, 2, "SH1-C4")
    assert entry["delta"] == entry["after"] - entry["before"] > 0


@pytest.mark.django_db
def test_a_settled_rating_is_not_provisional(anon, player):
    user = User.objects.get(username=player.username)
    RaceRating.objects.create(player=user, rating=1812.4, deviation=60, races=40)
    rating = anon.get(f"/api/players/{player.username}/").json()["race_rating"]
    assert (rating["rating"], rating["deviation"], rating["provisional"]) == (1812, 60, False)
    assert rating["history"] == []


@pytest.mark.django_db
def test_a_races_rating_changes(anon):
    a, b, c = racer(), racer(), racer()
    race = finish([(a, 2), (b, 1), (c, 2)])
    data = anon.get(f"/api/races/{slug(race)}/ratings/").json()
    assert data["race"] == slug(race) and data["rated"] is True
    assert [row["player"] for row in data["changes"]] == [
        b.username,
        *sorted([a.username, c.username]),
    ]
    for row in data["changes"]:
        assert set(row) == CHANGE_KEYS
        assert row["delta"] == row["after"] - row["before"]
        assert row["before"] == 1500 and row["provisional"] is True
    assert data["changes"][0]["delta"] > 0 > data["changes"][1]["delta"]


@pytest.mark.django_db
def test_a_race_not_rated_yet_has_no_changes(anon):
    race = race_create(host=racer(), code="SH1-C4-AAAAAAE").slug
    data = anon.get(f"/api/races/{race}/ratings/").json()
    assert data == {"race": race, "rated": False, "changes": []}


@pytest.mark.django_db
@pytest.mark.parametrize("race", ["x", "12a", "%C2%B2", "1" * 40, "-1", "%00", "a%00"])
def test_a_race_id_that_is_no_race_is_404(anon, race):
    assert_error(anon.get(f"/api/races/{race}/ratings/"), 404, "not_found")
