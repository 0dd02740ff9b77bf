"""Idle guests' games purged sooner (issue 38): a guest's finished practice
games go GUEST_GAMES_DAYS after they ended, with their action log, while the
guest stays; its daily attempts stay until an account claims them or the guest
is purged (PRODUCT.md, anti-cheat), and so do its recent and open games, its
race games and every account's games."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts import services
from accounts.models import User
from accounts.tasks import purge_idle_guests
from games.models import Action, Attempt
from tests.support.api import Client, guest, start
from tests.support.fairplay import today_daily

# Committed, as the hourly job sees the games (and as a claim announces a result).
pytestmark = pytest.mark.django_db(transaction=True)


def resigned(client: Client, **fields: str) -> int:
    """A game started with ``fields``, one action played, then resigned: its id."""
    game = start(client, **fields)
    if not fields.get("daily"):
        played = client.send(
            f"/api/games/{game['id']}/actions/", {"seq": 0, "action": {"type": "stock"}}
        )
        assert played.status_code == 200, played.content
    answer = client.send(f"/api/games/{game['id']}/resign/", None)
    assert answer.status_code == 200, answer.content
    return int(game["id"])


def ended(days: float, *ids: int) -> None:
    """The games ``ids`` ended (and were last changed) ``days`` ago."""
    when = timezone.now() - dt.timedelta(days=days)
    Attempt.objects.filter(pk__in=ids).update(finished_at=when, updated_at=when)


def test_a_guests_old_practice_games_go_and_its_daily_and_recent_games_stay(settings, player):
    settings.GUEST_GAMES_DAYS = 7
    today_daily("EH1-N")
    visitor = guest()
    old = resigned(visitor, random="EH1-N")
    recent = resigned(visitor, random="EH1-N")
    daily = resigned(visitor, daily="EH1-N")
    open_game = start(visitor, random="EH1-N")["id"]
    accounts_old = resigned(player, random="EH1-N")
    ended(10, old, daily, accounts_old)
    ended(6, recent)
    Attempt.objects.filter(pk=open_game).update(updated_at=timezone.now() - dt.timedelta(days=6))
    assert Action.objects.filter(attempt_id=old).exists()

    purge_idle_guests()

    assert not Attempt.objects.filter(pk=old).exists()
    assert not Action.objects.filter(attempt_id=old).exists()
    left = set(Attempt.objects.values_list("pk", flat=True))
    assert left == {recent, daily, open_game, accounts_old}
    assert User.objects.filter(is_guest=True).count() == 1  # the guest stays
    purge_idle_guests()  # safe to run twice
    assert set(Attempt.objects.values_list("pk", flat=True)) == left

    # The daily it kept is still the guest's to claim onto a board.
    answer = visitor.send("/api/auth/register/", {"username": "ada", "password": "a long phrase"})
    assert answer.status_code == 201, answer.content
    assert answer.json()["claim"]["claimed"] == sorted([recent, daily, open_game])


def test_old_guest_games_go_in_batches_until_none_is_left(settings, monkeypatch):
    settings.GUEST_GAMES_DAYS = 3
    monkeypatch.setattr(services, "GUEST_GAMES_BATCH", 2)  # a run: this many a batch …
    monkeypatch.setattr(services, "GUEST_GAMES_BATCHES", 2)  # … and this many batches
    farm = [guest() for _ in range(2)]
    games = [resigned(visitor, random="EH1-N") for visitor in farm for _ in range(3)]
    ended(4, *games)

    assert purge_idle_guests()["games"] == 4
    assert Attempt.objects.count() == 2
    assert purge_idle_guests()["games"] == 2  # the next run takes the rest
    assert purge_idle_guests()["games"] == 0
    assert not Attempt.objects.exists() and not Action.objects.exists()
    assert User.objects.filter(is_guest=True).count() == 2
