"""The Django admin lives at ``ADMIN_PATH`` (not /admin/), and its sign-in form
counts against the API login's budget: one limit per address, whichever door
the wrong passwords knock on (issue 17: 15 wrong admin passwords were 15 × 200
while the API's login answered 429 after 10). Counted in the real Redis."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client as DjangoClient

from tests.support.api import Client, assert_error, requires_redis, throttle_rates

ADMIN = f"/{settings.ADMIN_PATH}"


@pytest.fixture
def login_rate(settings):
    """The login limit at 10 per day: the count is what is tested, and a day's
    window (unlike a minute's) does not turn over in the middle of a test."""
    throttle_rates(settings, login="10/day")


def admin_login(client: DjangoClient, password: str) -> object:
    """The admin's sign-in form as a browser posts it (its CSRF token included)."""
    form = client.get(f"{ADMIN}login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.content.decode())
    assert token, form.content[:300]
    return client.post(
        f"{ADMIN}login/",
        {"username": "boss", "password": password, "csrfmiddlewaretoken": token[1]},
    )


@pytest.mark.django_db
def test_the_admin_is_at_its_path_and_not_at_admin(anon):
    assert ADMIN != "/admin/"
    assert anon.get(f"{ADMIN}login/").status_code == 200
    assert anon.get("/admin/").status_code == 404
    assert anon.get("/admin/login/").status_code == 404
    assert anon.get(ADMIN).status_code == 302  # signed out: to the sign-in form


@requires_redis
@pytest.mark.django_db
def test_wrong_admin_passwords_are_throttled_with_the_api_login(django_user_model, login_rate):
    django_user_model.objects.create_superuser("boss", password="boss-password-1")
    browser, api = DjangoClient(enforce_csrf_checks=True), Client()
    for _ in range(5):
        wrong = admin_login(browser, "not the password")
        assert wrong.status_code == 200 and b"errornote" in wrong.content
    for _ in range(5):
        refused = api.send("/api/auth/login/", {"username": "boss", "password": "nope"})
        assert_error(refused, 400, "bad_credentials")
    # The 11th sign-in from this address in the window, at either door: 429.
    error = assert_error(admin_login(browser, "boss-password-1"), 429, "throttled")
    assert "try again" in error["message"]
    assert admin_login(browser, "boss-password-1")["Retry-After"]
    refused = api.send("/api/auth/login/", {"username": "boss", "password": "boss-password-1"})
    assert_error(refused, 429, "throttled")


@requires_redis
@pytest.mark.django_db
def test_the_admin_form_alone_is_throttled_after_ten(django_user_model, login_rate):
    django_user_model.objects.create_superuser("boss", password="boss-password-1")
    browser = DjangoClient(enforce_csrf_checks=True)
    statuses = [admin_login(browser, "not the password").status_code for _ in range(15)]
    assert statuses == [200] * 10 + [429] * 5
    # Reading the form is never counted.
    assert browser.get(f"{ADMIN}login/").status_code == 200
