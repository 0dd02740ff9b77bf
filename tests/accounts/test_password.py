"""Changing a password, sign out everywhere, and sessions of about 90 days
(issue 28): the current session goes on after a change, every other ends; sign
out everywhere ends them all — checked on the next request of each, no session
table scanned."""

from __future__ import annotations

import pytest
from django.conf import settings

from accounts.models import User
from tests.support.api import Client, assert_error, sign_up, throttle_rates

PASSWORD = "correct horse battery"
NEW = "staple battery horse"


def sign_in(name: str, password: str) -> Client:
    client = Client()
    response = client.send("/api/auth/login/", {"username": name, "password": password})
    assert response.status_code == 200, response.content
    return client


def signed_in(client: Client) -> bool:
    return bool(client.get("/api/auth/me/").json()["authenticated"])


@pytest.mark.django_db
def test_a_change_keeps_this_session_and_ends_the_others():
    here = sign_up("ada", PASSWORD)
    elsewhere = sign_in("ada", PASSWORD)
    response = here.send("/api/auth/password/", {"old": PASSWORD, "new": NEW})
    assert response.status_code == 200, response.content
    assert response.json()["authenticated"] is True
    assert signed_in(here)
    assert not signed_in(elsewhere)
    assert_error(Client().send("/api/auth/login/", {"username": "ada", "password": PASSWORD}), 400)
    assert signed_in(sign_in("ada", NEW))


@pytest.mark.django_db
def test_change_errors_name_what_is_wrong():
    client = sign_up("bea", PASSWORD)
    wrong = assert_error(
        client.send("/api/auth/password/", {"old": "not it", "new": NEW}), 400, "bad_password"
    )
    assert wrong["params"] == {"field": "old"}
    for weak in ("123", "bea"):
        response = client.send("/api/auth/password/", {"old": PASSWORD, "new": weak})
        assert_error(response, 400, "weak_password")
    for body in ({}, {"old": PASSWORD}, {"new": NEW}, {"old": 1, "new": NEW}, [], "x"):
        assert_error(client.send("/api/auth/password/", body), 400)
    assert_error(client.send("/api/auth/password/", {"old": PASSWORD, "new": NEW, "x": 1}), 400)
    assert User.objects.get(username="bea").check_password(PASSWORD)  # unchanged
    assert_error(Client().send("/api/auth/password/", {"old": PASSWORD, "new": NEW}), 401)


@pytest.mark.django_db
def test_sign_out_everywhere_ends_every_session():
    here = sign_up("cat", PASSWORD)
    phone, tablet = sign_in("cat", PASSWORD), sign_in("cat", PASSWORD)
    other_player = sign_up("dan", PASSWORD)
    response = here.send("/api/auth/logout/everywhere/")
    assert response.status_code == 200, response.content
    assert response.json()["authenticated"] is False
    assert not any(signed_in(c) for c in (here, phone, tablet))
    assert_error(phone.send("/api/games/", {"random": "easy-harp"}), (401, 403))
    assert signed_in(other_player)
    # The password still works: a new session is a new sign-in.
    assert signed_in(sign_in("cat", PASSWORD))
    assert_error(Client().send("/api/auth/logout/everywhere/"), 401)


@pytest.mark.django_db
def test_sessions_from_before_the_generation_column_survive_it():
    """Generation 0 hashes as Django did: no one is signed out by the migration."""
    user = User.objects.create_user(username="eve", password=PASSWORD)
    django_hash = super(User, user)._get_session_auth_hash()
    assert user.get_session_auth_hash() == django_hash
    user.session_generation = 1
    assert user.get_session_auth_hash() != django_hash


def test_a_session_lives_about_ninety_days_and_a_guest_a_day_longer():
    assert settings.SESSION_COOKIE_AGE == 90 * 86400
    assert settings.GUEST_IDLE_DAYS == 91


@pytest.mark.django_db
def test_the_session_cookie_says_ninety_days():
    client = Client()
    response = client.send("/api/auth/register/", {"username": "fay", "password": PASSWORD})
    assert response.cookies["sessionid"]["max-age"] == 90 * 86400


@pytest.mark.django_db
def test_changes_are_limited_per_player(settings):
    throttle_rates(settings, **{"account-changes": "2/hour"})
    client, other = sign_up("gil", PASSWORD), sign_up("hux", PASSWORD)
    for _ in range(2):
        wrong = client.send("/api/auth/password/", {"old": "guess", "new": NEW})
        assert_error(wrong, 400, "bad_password")
    assert_error(client.send("/api/auth/password/", {"old": PASSWORD, "new": NEW}), 429)
    # Per player, not per address: another player from the same address goes on.
    assert other.send("/api/auth/password/", {"old": PASSWORD, "new": NEW}).status_code == 200
