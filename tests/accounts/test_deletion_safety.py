"""Deleting a player never changes past boards (issue 28): ``Attempt.player`` is
PROTECT, so a user with games cannot be deleted by a slip (a shell's
``user.delete()``, a script); every legitimate path still works — the guest
purge deletes the guests' games first (none is on a board), deleting an account
anonymises it (tests/accounts/test_privacy.py), the admin refuses to delete and
anonymises instead (tests/games/test_admin_readonly.py, and below)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.db.models import ProtectedError
from django.test import Client as DjangoClient
from django.utils import timezone

from accounts.models import User
from accounts.services import guests_purge
from games.models import Action, Attempt
from games.services import attempts_of_guests_delete
from tests.support.api import Client
from tests.support.results import daily_of, finished, user_of

pytestmark = pytest.mark.django_db


def board(client: Client, attempt: Attempt) -> list[tuple[str, int]]:
    assert attempt.daily is not None
    path = f"/api/leaderboard/{attempt.daily.date.isoformat()}/{attempt.daily.variant}/"
    response = client.get(path)
    assert response.status_code == 200, response.content
    return [(row["player"], row["score"]) for row in response.json()["results"]]


def test_a_shell_delete_of_a_player_with_results_raises_and_changes_nothing(anon, make_player):
    alice, bob = make_player("alice"), make_player("bob")
    yesterday = daily_of(days_ago=1)
    won = finished(user_of(alice), yesterday, score=500)
    finished(user_of(bob), yesterday, score=400)
    before = board(anon, won)
    assert before == [("alice", 500), ("bob", 400)]

    with pytest.raises(ProtectedError):
        User.objects.get(username="alice").delete()
    with pytest.raises(ProtectedError):
        User.objects.filter(username__in=["alice", "bob"]).delete()

    assert User.objects.filter(username="alice").exists()
    assert Attempt.objects.filter(pk=won.pk).exists()
    assert board(anon, won) == before


def test_a_user_without_games_can_still_be_deleted(db):
    User.objects.create_user("nobody", password="x").delete()
    assert not User.objects.filter(username="nobody").exists()


def _guest(anon: Client) -> Client:
    response = anon.send("/api/auth/guest/", None)
    assert response.status_code in (200, 201), response.content
    return anon


def test_the_guest_purge_deletes_the_guests_games_ranked_ones_too(anon, make_player):
    alice = make_player("alice")
    guest = _guest(anon)
    game = guest.send("/api/games/", {"daily": "SH1-C4"}).json()
    practice = guest.send("/api/games/", {"random": "EH1-N"}).json()
    guest.send(f"/api/games/{practice['id']}/actions/", {"seq": 0, "action": {"type": "stock"}})
    guest.send(f"/api/games/{game['id']}/resign/", None)
    kept = finished(user_of(alice), daily_of(days_ago=1), score=700)
    today_alice = finished(user_of(alice), daily_of(), score=300)
    before = board(make_player("carol"), today_alice)
    assert Attempt.objects.filter(player__is_guest=True).count() == 2

    later = timezone.now() + dt.timedelta(days=settings.GUEST_IDLE_DAYS + 1)
    User.objects.filter(is_guest=False).update(date_joined=timezone.now() - dt.timedelta(days=999))
    assert guests_purge(idle=dt.timedelta(days=settings.GUEST_IDLE_DAYS), now=later) == 1

    assert not User.objects.filter(is_guest=True).exists()
    assert not Attempt.objects.filter(pk__in=[game["id"], practice["id"]]).exists()
    assert not Action.objects.filter(attempt_id=practice["id"]).exists()
    assert Attempt.objects.filter(pk__in=[kept.pk, today_alice.pk]).count() == 2
    assert board(make_player("dave"), today_alice) == before  # a guest is on no board


def test_the_purge_receiver_never_deletes_an_accounts_games(make_player):
    alice = make_player("alice")
    won = finished(user_of(alice), daily_of(days_ago=1))
    assert attempts_of_guests_delete(guest_ids=[user_of(alice).pk]) == 0
    assert Attempt.objects.filter(pk=won.pk).exists()


def test_the_admin_offers_no_delete_of_users(make_player):
    alice = make_player("alice")
    finished(user_of(alice), daily_of(days_ago=1))
    staff = User.objects.create_superuser("boss", password="correct horse battery")
    admin = DjangoClient()
    admin.force_login(staff)
    base = f"/{settings.ADMIN_PATH}accounts/user/"
    listing = admin.get(base).content.decode()
    assert 'value="delete_selected"' not in listing and 'value="anonymise"' in listing
    target = user_of(alice)
    bulk = {"action": "delete_selected", "_selected_action": [target.pk], "post": "yes"}
    admin.post(base, bulk)
    assert admin.get(f"{base}{target.pk}/delete/").status_code == 403
    target.refresh_from_db()
    assert target.username == "alice" and target.attempts.count() == 1
