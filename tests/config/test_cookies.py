"""Every cookie the app sets, with the flags it should carry (issue 25: the
language cookie was not Secure under HTTPS=1). ``HTTPS=1`` turns the settings'
*_COOKIE_SECURE on (tests/config/test_settings.py checks that in a subprocess); here
they are on, and each cookie a browser meets on the way is checked."""

from __future__ import annotations

import pytest

from tests.support.api import Client

READ_BY_THE_CLIENT = {"csrftoken", "django_language"}  # api.js, settings.js


@pytest.fixture
def https(settings):
    settings.SESSION_COOKIE_SECURE = True
    settings.CSRF_COOKIE_SECURE = True
    settings.LANGUAGE_COOKIE_SECURE = True


@pytest.mark.django_db
def test_every_cookie_set_is_secure_lax_and_httponly_unless_read(https):
    seen = {}
    browser = Client()
    seen.update(browser.cookies)
    for path, body in (
        ("/api/auth/register/", {"username": "cookie", "password": "correct horse battery"}),
        ("/api/auth/logout/", None),
        ("/api/auth/login/", {"username": "cookie", "password": "correct horse battery"}),
    ):
        answer = browser.send(path, body)
        assert answer.status_code in (200, 201), answer.content
        seen.update(answer.cookies)
    answer = browser.patch("/api/auth/settings/", {"language": "bg"}, format="json")
    seen.update(answer.cookies)
    answer = browser.post("/i18n/setlang/", {"language": "tr"})  # Django's own view
    seen.update(answer.cookies)
    assert {"sessionid", "csrftoken", "django_language", "known_device"} <= set(seen)
    for name, cookie in seen.items():
        if not cookie.value:
            continue  # a deletion
        assert cookie["secure"], name
        assert cookie["samesite"] == "Lax", name
        assert bool(cookie["httponly"]) == (name not in READ_BY_THE_CLIENT), name
