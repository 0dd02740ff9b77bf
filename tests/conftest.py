"""Shared fixtures: API clients that sign up, keep the CSRF cookie and send it back."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection, connections
from rest_framework.test import APIClient

from games.dailies import daily_deal_prepare, utc_today

_names = itertools.count()


def uses_postgres() -> bool:
    return connection.vendor == "postgresql"


requires_postgres = pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
    reason="needs the real PostgreSQL (none answered on 127.0.0.1:5432)",
)
requires_redis = pytest.mark.skipif(
    not settings.REDIS_URL, reason="needs the real Redis (none answered on 127.0.0.1:6379)"
)


def win_daily(client: Any, variant: str) -> dict[str, Any]:
    """Win today's daily of ``variant`` through the HTTP API by playing the solver's
    line: the day is prepared proven first, as the job prepares it. Returns the
    attempt object after the winning action."""
    daily = daily_deal_prepare(date=utc_today(), variant=variant)
    assert daily.proof, f"no proven {variant} daily"
    started = client.send("/api/games/", {"daily": variant})
    assert started.status_code in (200, 201), started.content
    attempt = started.json()
    for seq, action in enumerate(daily.proof):
        response = client.send(
            f"/api/games/{attempt['id']}/actions/", {"seq": seq, "action": action}
        )
        assert response.status_code == 200, response.content
    won = response.json()
    assert won["won"] is True and won["status"] == "won", won
    return won


def assert_error(response: Any, status: int | tuple[int, ...], code: str | None = None) -> dict:
    """``response`` has one of the statuses and the error shape; returns the error."""
    statuses = (status,) if isinstance(status, int) else status
    assert response.status_code in statuses, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert isinstance(error.get("code"), str) and error["code"], body
    assert isinstance(error.get("message"), str) and error["message"].strip(), body
    if code is not None:
        assert error["code"] == code, body
    return error


class Client(APIClient):
    """A browser-like API client: JSON bodies, CSRF header from the cookie."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(enforce_csrf_checks=True, **kwargs)
        self.get("/api/auth/me/")

    def generic(self, method: str, path: str, data: Any = "", content_type: str = "", **extra: Any):  # type: ignore[override]
        token = self.cookies.get("csrftoken")
        if token is not None and "HTTP_X_CSRFTOKEN" not in extra:
            extra["HTTP_X_CSRFTOKEN"] = token.value
        return super().generic(method, path, data, content_type, **extra)

    def send(self, path: str, body: Any = None) -> Any:
        """POST ``body`` as JSON."""
        return self.post(path, body, format="json")


@pytest.fixture(scope="session", autouse=True)
def _close_stray_connections(django_db_setup, django_db_blocker):
    """Websocket handlers run on threads of their own, and async tests reach Django
    through asgiref's shared thread; connections those threads leave open would
    keep the test database from being dropped. End them before it is. (A run
    whose tests need no database makes none: then there is nothing to end.)"""
    yield
    with django_db_blocker.unblock():
        connections.close_all()
        if uses_postgres() and connection.settings_dict["NAME"].startswith("test_"):
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            connection.close()


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()  # throttles count per test
    yield


@pytest.fixture
def make_player(db):
    def make(name: str | None = None, password: str = "correct horse battery") -> Client:
        client = Client()
        name = name or f"player{next(_names)}"
        response = client.send("/api/auth/register/", {"username": name, "password": password})
        assert response.status_code == 201, response.content
        client.username = name  # type: ignore[attr-defined]
        return client

    return make


@pytest.fixture
def player(make_player):
    return make_player()


@pytest.fixture
def anon(db):
    return Client()


@pytest.fixture
def clock(monkeypatch):
    """The server's clock, moved by the test (``tests/support/fairplay.py``, ``Clock``)."""
    from tests.support.fairplay import Clock

    return Clock(monkeypatch)
