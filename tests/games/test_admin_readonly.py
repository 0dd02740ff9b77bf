"""The admin's attempt pages are read-only (issue 28): an attempt is evidence,
changed only through the services that keep the audit trail (the review's
disqualify and clear); no page lists every player or deal in a select; and
deleting an account in the admin anonymises it instead of taking its results
off past boards."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client as DjangoClient

from accounts.models import User
from games.models import Attempt
from tests.support.results import daily_of, finished

ADMIN = f"/{settings.ADMIN_PATH}"
pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser() -> DjangoClient:
    staff = User.objects.create_superuser("boss", password="correct horse battery")
    client = DjangoClient()
    client.force_login(staff)
    return client


@pytest.fixture
def attempt() -> Attempt:
    for n in range(3):  # players and deals a select list would show
        User.objects.create_user(f"someone{n}", password="x")
    player = User.objects.create_user("alice", password="x")
    return finished(player, daily_of(days_ago=1), score=500)


def test_the_attempt_page_is_read_only_and_lists_no_one(superuser, attempt):
    page = superuser.get(f"{ADMIN}games/attempt/{attempt.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<select" not in html
    assert 'name="score"' not in html and 'name="_save"' not in html
    assert "alice" in html  # the player shown as text


def test_a_post_to_the_attempt_page_changes_nothing(superuser, attempt):
    other = User.objects.get(username="someone0")
    body = {"player": other.pk, "score": 1, "status": "resigned", "disqualified": "on"}
    response = superuser.post(f"{ADMIN}games/attempt/{attempt.pk}/change/", body)
    assert response.status_code == 403
    fresh = Attempt.objects.get(pk=attempt.pk)
    assert (fresh.player_id, fresh.score, fresh.status, fresh.disqualified) == (
        attempt.player_id,
        500,
        "won",
        False,
    )


def test_attempts_are_neither_added_nor_deleted_in_the_admin(superuser, attempt):
    assert superuser.get(f"{ADMIN}games/attempt/add/").status_code == 403
    gone = superuser.post(f"{ADMIN}games/attempt/{attempt.pk}/delete/", {"post": "yes"})
    assert gone.status_code == 403
    bulk = {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"}
    superuser.post(f"{ADMIN}games/attempt/", bulk)
    assert Attempt.objects.filter(pk=attempt.pk).exists()


def test_the_daily_deal_page_lists_no_deal(superuser, attempt):
    assert attempt.daily is not None
    page = superuser.get(f"{ADMIN}games/dailydeal/{attempt.daily.pk}/change/").content.decode()
    assert not re.search(r"<select[^>]*name=\"deal\"", page)


def test_deleting_a_user_in_the_admin_anonymises_and_keeps_the_board(superuser, attempt):
    player = attempt.player
    gone = superuser.post(f"{ADMIN}accounts/user/{player.pk}/delete/", {"post": "yes"})
    assert gone.status_code == 403
    body = {"action": "anonymise", "_selected_action": [player.pk]}
    assert superuser.post(f"{ADMIN}accounts/user/", body).status_code == 302
    player.refresh_from_db()
    assert player.username.startswith("deleted-") and not player.has_usable_password()
    assert Attempt.objects.get(pk=attempt.pk).score == 500
    board = superuser.get(f"/api/leaderboard/{attempt.daily.date}/{attempt.daily.variant}/").json()
    assert [row["player"] for row in board["results"]] == [player.username]
