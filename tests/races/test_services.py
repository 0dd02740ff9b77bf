"""The race rooms' services called directly (issue 40: they were tested only
through their doors): a room opened, joined to its capacity, handed on by a
host who leaves, started once and only by its host with two racers, a quick
race started at once, a racer's finish, the end placing everyone, a rematch
asked twice giving one room."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import User
from games.models import Attempt
from games.services import attempt_apply_action
from races import services
from races.models import Race, Racer
from tests.support.races import WIN_CODE, win_line

pytestmark = pytest.mark.django_db(transaction=True)


def account(name: str) -> User:
    return User.objects.create_user(name, password="x" * 12)


def refused(call, code: str) -> None:
    with pytest.raises(Exception) as caught:
        call()
    assert getattr(caught.value, "code", None) == code, caught.value


def test_a_room_fills_to_its_capacity_and_a_leaving_host_hands_it_on():
    host, second, third = account("host"), account("second"), account("third")
    race = services.race_create(host=host, code=WIN_CODE, capacity=2)
    assert race.status == Race.Status.OPEN and not race.quick
    services.race_join(slug=race.slug, player=second)
    services.race_join(slug=race.slug, player=second)  # again: no error, no second seat
    refused(lambda: services.race_join(slug=race.slug, player=third), "full")
    services.race_leave(slug=race.slug, player=host)
    race.refresh_from_db()
    assert race.host == second and list(race.racers.values_list("player", flat=True)) == [second.pk]
    services.race_leave(slug=race.slug, player=second)  # the last one out closes it
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED


def test_only_the_host_starts_with_two_racers_and_once():
    host, other = account("host"), account("other")
    race = services.race_create(host=host, code=WIN_CODE)
    refused(lambda: services.race_start(slug=race.slug, host=host), "too_few")
    services.race_join(slug=race.slug, player=other)
    refused(lambda: services.race_start(slug=race.slug, host=other), "not_host")
    started = services.race_start(slug=race.slug, host=host)
    assert started.status == Race.Status.RUNNING
    assert started.starts_at - timezone.now() <= services.COUNTDOWN
    attempts = Attempt.objects.filter(racer__race=race)
    assert attempts.count() == 2 and {a.started_at for a in attempts} == {started.starts_at}
    assert all(a.sealed and not a.ranked for a in attempts)
    refused(lambda: services.race_start(slug=race.slug, host=host), "not_open")
    refused(lambda: services.race_join(slug=race.slug, player=account("late")), "closed_room")


def test_a_quick_race_starts_at_once_with_its_longer_countdown():
    players = [account(f"q{i}") for i in range(3)]
    race = services.race_quick(players=players, variant="SH1-C4")
    assert race.quick and race.status == Race.Status.RUNNING and race.capacity == 3
    assert race.host == players[0]
    assert race.starts_at - race.created_at >= services.QUICK_COUNTDOWN  # 10 s, not a room's 5
    assert Racer.objects.filter(race=race, status=Racer.Status.RACING).count() == 3
    refused(lambda: services.race_quick(players=players[:1], variant="SH1-C4"), "invalid")


def test_a_finish_then_the_end_place_everyone_and_a_rematch_is_one_room(monkeypatch):
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))
    host, slow = account("host"), account("slow")
    race = services.race_create(host=host, code=WIN_CODE)
    services.race_join(slug=race.slug, player=slow)
    services.race_start(slug=race.slug, host=host)
    won = Attempt.objects.get(racer__race=race, player=host)
    for seq, action in enumerate(win_line()):
        attempt_apply_action(attempt_id=won.pk, player=host, seq=seq, action=action.to_json())
    services.racer_finished(attempt_id=won.pk)  # safe twice: the game's commit ran it too
    assert Racer.objects.get(race=race, player=host).status == Racer.Status.WON
    assert Race.objects.get(pk=race.pk).status == Race.Status.RUNNING  # slow still races
    assert services.race_end(slug=race.slug) is False  # not due: someone races
    assert services.race_end(slug=race.slug, now=timezone.now() + dt.timedelta(hours=1))
    places = dict(Racer.objects.filter(race=race).values_list("player__username", "place"))
    assert places == {"host": 1, "slow": 2}
    assert not Attempt.objects.filter(racer__race=race, sealed=True).exists()
    refused(lambda: services.race_rematch(slug=race.slug, host=slow), "not_host")
    first = services.race_rematch(slug=race.slug, host=host)
    assert services.race_rematch(slug=race.slug, host=host) == first
    assert list(first.invites.values_list("player__username", flat=True)) == ["slow"]
