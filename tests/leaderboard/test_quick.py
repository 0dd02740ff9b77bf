"""Quick race (issue 39, ``leaderboard/quick.py``): who races whom
(``quick_groups``, plain Python), then the queue over HTTP against the real
database — a full race at once, a short one after the wait, the seats of closed
pages dropped, matchings at once racing each seat once, and every refusal."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games.models import Attempt
from leaderboard import quick
from leaderboard.models import QuickSeat, RaceRating
from leaderboard.quick import FULL, Seat, quick_groups, quick_match, window
from races.models import Race, Racer
from races.services import QUICK_COUNTDOWN, race_leave
from tests.support.api import assert_error, guest
from tests.support.concurrency import at_once
from tests.support.hidden import Wire, code_secrets

WAIT = 20.0


def seat(player: int, rating: float = 1500.0, waited: float = 0.0) -> Seat:
    return Seat(player, rating, waited)


def players(groups: list[list[Seat]]) -> list[list[int]]:
    return [[s.player for s in g] for g in groups]


# --- who races whom -------------------------------------------------------------------


def test_eight_near_each_other_race_at_once_the_nearest_eight():
    seats = [seat(i, 1500 + 10 * i, waited=10 - i) for i in range(9)]  # player 8: 1580
    groups = quick_groups(seats, wait=WAIT)
    assert players(groups) == [[0, 1, 2, 3, 4, 5, 6, 7]]  # the longest waiting hosts
    assert FULL == 8


def test_fewer_than_eight_wait_then_race_once_the_longest_has_waited():
    seats = [seat(1, 1500, waited=WAIT - 1), seat(2, 1550, waited=3), seat(3, 1450, waited=1)]
    assert quick_groups(seats, wait=WAIT) == []
    seats[0] = seat(1, 1500, waited=WAIT)
    assert players(quick_groups(seats, wait=WAIT)) == [[1, 2, 3]]


def test_a_lone_seat_never_races_alone():
    assert quick_groups([seat(1, waited=600)], wait=WAIT) == []


def test_ratings_far_apart_meet_only_once_the_window_has_widened():
    far = 1500 + window(WAIT) + 50  # beyond the window at the wait
    seats = [seat(1, 1500, waited=WAIT), seat(2, far, waited=WAIT)]
    assert quick_groups(seats, wait=WAIT) == []
    later = WAIT + 10  # 15 a second wider: 150 more
    seats = [seat(1, 1500, waited=later), seat(2, far, waited=later)]
    assert players(quick_groups(seats, wait=WAIT)) == [[1, 2]]


def test_a_full_field_of_others_races_while_the_longest_waiting_seat_waits():
    lone = seat(100, 2400, waited=15)
    field = [seat(i, 1500 + i, waited=2) for i in range(8)]
    assert players(quick_groups([lone, *field], wait=WAIT)) == [list(range(8))]


def test_each_seat_races_once_and_the_rest_form_their_own_races():
    seats = [seat(i, 1500 + (i % 3), waited=30 - i) for i in range(19)]
    groups = quick_groups(seats, wait=WAIT)
    raced = [p for g in players(groups) for p in g]
    assert len(raced) == len(set(raced)) == 19
    assert [len(g) for g in groups] == [8, 8, 3]


# --- the queue over HTTP --------------------------------------------------------------


@pytest.fixture(autouse=True)
def pages_never_lapse(monkeypatch):
    """A seat lapses 6 s after its page's last ask: a test's asks on a loaded CI
    machine could cross that, so here a seat lasts 10 minutes (the lapse itself is
    tested with its seen_at set back past it)."""
    monkeypatch.setattr(quick, "SEEN_S", 600.0)


def ask(client: Any, variant: str = "SH1-C4", status: int = 200) -> dict[str, Any]:
    response = client.send("/api/races/quick/", {"variant": variant})
    assert response.status_code == status, response.content
    return response.json()


def age(*clients: Any, seconds: float) -> None:
    """The clients' seats queued ``seconds`` earlier (seen now)."""
    QuickSeat.objects.filter(player__username__in=[c.username for c in clients]).update(
        queued_at=timezone.now() - dt.timedelta(seconds=seconds)
    )


@pytest.mark.django_db(transaction=True)
def test_two_players_race_after_the_wait_a_started_rated_race(make_player, settings):
    settings.QUICK_RACE_WAIT = WAIT
    first, second = make_player(), make_player()
    RaceRating.objects.create(
        player=User.objects.get(username=second.username), rating=1620, races=3
    )
    queued = ask(first)
    assert queued["race"] is None and queued["queue"] == 1 and queued["rating"] == 1500
    assert queued["wait_s"] == WAIT and queued["full"] == FULL and queued["window"] == 100
    second_queued = ask(second)
    assert second_queued["race"] is None and second_queued["queue"] == 2
    assert second_queued["rating"] == 1620  # its own rating, never the other's
    assert "player" not in str(second_queued) and first.username not in str(second_queued)

    age(first, second, seconds=WAIT + 1)  # ±115: 1500 and 1620 are near enough
    slug = ask(first)["race"]
    assert slug and ask(second)["race"] == slug
    race = Race.objects.get(slug=slug)
    assert race.quick and race.status == Race.Status.RUNNING and race.capacity == 2
    assert race.host.username == first.username  # the longest waiting
    assert sorted(Racer.objects.filter(race=race).values_list("player__username", flat=True)) == (
        sorted([first.username, second.username])
    )
    assert race.starts_at - race.created_at >= QUICK_COUNTDOWN  # the quick countdown
    assert all(a.sealed and not a.ranked for a in Attempt.objects.filter(racer__race=race))
    shown = first.get(f"/api/races/{slug}/").json()
    assert shown["quick"] is True and shown["you"]["attempt"]
    assert QuickSeat.objects.filter(race__isnull=True).count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_eighth_racer_starts_the_race_at_once_and_the_ninth_waits(make_player):
    clients = [make_player() for _ in range(9)]
    answers = [ask(c) for c in clients[:8]]
    assert [a["race"] for a in answers[:7]] == [None] * 7
    slug = answers[7]["race"]
    assert slug  # the eighth's own answer names the race
    assert {ask(c)["race"] for c in clients[:8]} == {slug}
    assert Race.objects.get(slug=slug).racers.count() == 8
    ninth = ask(clients[8])
    assert ninth["race"] is None and ninth["queue"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_seat_whose_page_stopped_asking_is_dropped_not_raced(make_player):
    here, gone = make_player(), make_player()
    ask(gone)
    ask(here)
    QuickSeat.objects.filter(player__username=gone.username).update(
        seen_at=timezone.now() - dt.timedelta(seconds=quick.SEEN_S + 1)
    )
    age(here, gone, seconds=WAIT + 1)
    assert quick_match(variant="SH1-C4") == []
    assert not QuickSeat.objects.filter(player__username=gone.username).exists()
    assert ask(here)["race"] is None


@pytest.mark.django_db(transaction=True)
def test_matchings_at_once_race_each_seat_once():
    """Four matchings at once on sixteen waiting seats (each thread its own
    connection): the locked seats make them run in turn — two races of eight."""
    now = timezone.now()
    users = [User.objects.create_user(f"q{i}", password="x" * 12) for i in range(16)]
    QuickSeat.objects.bulk_create(
        [
            QuickSeat(player=u, variant="SH1-C4", rating=1500 + i, seen_at=now)
            for i, u in enumerate(users)
        ]
    )
    matched = at_once([lambda: quick_match(variant="SH1-C4")] * 4, timeout=60)
    started: list[Race] = [race for races in matched for race in races]
    assert len(started) == 2
    racers = list(Racer.objects.filter(race__quick=True).values_list("player_id", flat=True))
    assert sorted(racers) == sorted(u.pk for u in users)  # each once


@pytest.mark.django_db(transaction=True)
def test_a_racer_gets_their_race_until_it_is_over_for_them_then_queues_again(make_player):
    clients = [make_player() for _ in range(FULL)]
    for c in clients:
        slug = ask(c)["race"]
    assert ask(clients[0], "EH1-N")["race"] == slug  # still racing: the race, whatever variant
    assert clients[0].delete("/api/races/quick/").status_code == 204
    assert ask(clients[0])["race"] == slug  # leaving the queue is not leaving the race
    race_leave(
        slug=slug,
        player=Racer.objects.get(race__slug=slug, player__username=clients[0].username).player,
    )
    again = ask(clients[0], "EH1-N")
    assert again["race"] is None and again["variant"] == "EH1-N" and again["queue"] == 1


@pytest.mark.django_db(transaction=True)
def test_leaving_the_queue(make_player):
    player = make_player()
    ask(player)
    assert player.delete("/api/races/quick/").status_code == 204
    assert not QuickSeat.objects.exists()
    assert player.delete("/api/races/quick/").status_code == 204  # twice: no error


@pytest.mark.django_db
def test_refusals_name_what_is_wrong(make_player, anon):
    player = make_player()
    assert_error(anon.send("/api/races/quick/", {"variant": "SH1-C4"}), 401, "not_authenticated")
    assert_error(guest().send("/api/races/quick/", {"variant": "SH1-C4"}), 403, "account_required")
    error = assert_error(player.send("/api/races/quick/", {"variant": "XX9"}), 400)
    assert error.get("field") == "variant"
    assert_error(player.send("/api/races/quick/", {}), 400)
    assert_error(player.send("/api/races/quick/", {"variant": "SH1-C4", "rating": 3000}), 400)
    assert_error(player.send("/api/races/quick/", {"variant": ["SH1-C4"]}), 400)
    assert_error(player.send("/api/races/quick/", "SH1-C4"), 400)
    assert_error(player.get("/api/races/quick/"), 405)
    assert not QuickSeat.objects.exists()  # nothing half-done


@pytest.mark.django_db(transaction=True)
def test_an_easy_harp_quick_race_names_its_secret_deal_to_nobody_while_it_runs(make_player, anon):
    """Played as an attacker with three accounts and a spectator: every byte of
    the queue's answers, the race and each racer's own game while the race runs
    names none of the deal's code, key or key number (PRODUCT.md, anti-cheat)."""
    wire = Wire()
    racers = [make_player() for _ in range(3)]
    for c in racers:
        wire.http("queue", c.send("/api/races/quick/", {"variant": "EH1-N"}))
    age(*racers, seconds=WAIT + 1)
    slug = ask(racers[0], "EH1-N")["race"]
    assert slug
    race = Race.objects.select_related("deal").get(slug=slug)
    assert race.deal.code.startswith("EH1-N-") and len(race.deal.code) > 20  # a fresh secret key
    for c in racers:
        wire.http("queue", c.send("/api/races/quick/", {"variant": "EH1-N"}))
        body = wire.http("race", c.get(f"/api/races/{slug}/")).json()
        assert body["code"] is None
        wire.http("game", c.get(f"/api/games/{body['you']['attempt']}/"))
        wire.http("rooms", c.get("/api/races/"))
    wire.http("spectator", anon.get(f"/api/races/{slug}/"))
    for where, blob in wire.received:
        text = blob.decode("utf-8", "replace")
        for secret in code_secrets(race.deal.code):
            assert secret not in text, f"{where} names {secret!r} of the running quick race"
