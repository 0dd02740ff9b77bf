"""The API as a browser uses it, in process: a client that keeps the CSRF cookie,
the error shape, starting and playing games, and the markers of the tests that
need the real PostgreSQL or Redis."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from games.dailies import daily_deal_get, daily_deal_prepare, deal_get, utc_today
from games.engine import GameCode
from kit.api import _parse_rate
from tests.support.concurrency import at_once
from tests.support.smtp import Mailbox, link_query


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


def sign_up(name: str, password: str) -> Client:
    """A new player, signed up through the API: signed in on the client returned."""
    client = Client()
    response = client.send("/api/auth/register/", {"username": name, "password": password})
    assert response.status_code == 201, response.content
    client.username = name  # type: ignore[attr-defined]
    return client


def sign_up_at_once(names: list[str], password: str) -> dict[str, Any]:
    """Each name registered by a client of its own, the requests released together
    (``at_once``); the responses, by name."""
    clients = [Client() for _ in names]
    sent = at_once(
        [
            lambda client=client, name=name: client.send(
                "/api/auth/register/", {"username": name, "password": password}
            )
            for client, name in zip(clients, names, strict=True)
        ]
    )
    return dict(zip(names, sent, strict=True))


def put_email(client: Client, email: Any, password: str = "correct horse battery") -> Any:
    """``PUT /api/auth/email/`` as the settings send it: the address and the
    current password (issue 37)."""
    return client.put("/api/auth/email/", {"email": email, "password": password}, format="json")


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


def guest() -> Client:
    """A signed-out visitor made a guest through the API (issue 24): a player
    bound to the client's session, with no password."""
    client = Client()
    response = client.send("/api/auth/guest/", None)
    assert response.status_code == 201, response.content
    return client


def start(
    client: Any,
    body: dict[str, Any] | None = None,
    *,
    status: int | tuple[int, ...] = (200, 201),
    **fields: Any,
) -> dict[str, Any]:
    """A game started through ``POST /api/games/`` with ``body`` (or ``fields``:
    ``code=``, ``daily=``, ``random=``), answered with ``status``: the attempt."""
    statuses = (status,) if isinstance(status, int) else status
    response = client.send("/api/games/", fields if body is None else body)
    assert response.status_code in statuses, (
        response.status_code,
        body or fields,
        response.content,
    )
    return response.json()


def legacy_daily_practice(client: Any, variant: str, code: str | None = None) -> dict[str, Any]:
    """A practice game of today's daily of ``variant`` for ``client``'s player, as
    the API dealt one (``{"daily", "practice": true}``, or by ``code``: the
    daily's cards in another cell count) before running dailies were closed to
    practice (issue 36): such games exist and keep the daily's rules. Made by
    the service's own maker, since the API refuses it now. Returns the attempt
    object as its player reads it."""
    from accounts.models import User
    from games.services import _create_attempt

    daily = daily_deal_get(date=utc_today(), variant=variant)
    deal = daily.deal if code is None else deal_get(code=GameCode.parse(code))
    player = User.objects.get(pk=client.session["_auth_user_id"])
    attempt = _create_attempt(player=player, deal=deal, daily=daily, ranked=False)
    response = client.get(f"/api/games/{attempt.pk}/")
    assert response.status_code == 200, response.content
    return response.json()


def act(client: Client, attempt_id: int, seq: int, action: dict[str, Any]) -> Any:
    return client.send(f"/api/games/{attempt_id}/actions/", {"seq": seq, "action": action})


def run_at_once(calls: list[Any]) -> list[Any]:
    """Each request made at the same moment (``at_once``); their (status, body)."""

    def answer(call: Any) -> tuple[int, Any]:
        response = call()
        return response.status_code, response.json()

    return at_once([lambda call=call: answer(call) for call in calls])


DEFAULTS = {
    "language": "",
    "double_click": True,
    "interactive_rules": True,
    "theme": "",
    "deck": "two",
    "sounds": False,
    "motion": "",
    "tap": "best",
}
"""The settings of a new account (``/api/auth/settings/``)."""


WINDOW_MARGIN_S = 20
"""``throttle_rates`` starts no count with fewer seconds than this left in a window."""


def throttle_rates(overrides: Any, *, num_proxies: int | None = None, **rates: str) -> None:
    """Set throttle rates (``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, e.g.
    ``login="10/min"``) and ``NUM_PROXIES`` on pytest-django's ``settings``
    fixture (``overrides``), for one test. The limits count in fixed windows
    (``kit.api.rate_limit``): a test that counts up to a limit across a window's
    end sees its count start again (a clean-clone CI run's 11th guess at 10/min
    was let through). So when a window of an hour or less has fewer than
    ``WINDOW_MARGIN_S`` seconds left, this waits for the next one."""
    framework = dict(overrides.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {**framework["DEFAULT_THROTTLE_RATES"], **rates}
    if num_proxies is not None:
        framework["NUM_PROXIES"] = num_proxies  # X-Forwarded-For names the client
    overrides.REST_FRAMEWORK = framework  # DRF reloads its settings on the change
    for period in sorted({_parse_rate(rate)[1] for rate in rates.values()}):
        left = period - time.time() % period
        if WINDOW_MARGIN_S < period <= 3600 and left < WINDOW_MARGIN_S:
            time.sleep(left + 0.05)


def with_verified_email(
    name: str, email: str, smtp: Mailbox, password: str = "correct horse battery"
) -> Client:
    """A new player, signed in on the client returned, whose ``email`` is set in
    the settings and confirmed by the link mailed to it."""
    client = sign_up(name, password)
    assert put_email(client, email, password).status_code == 200
    token = link_query(smtp.wait_for(email))["token"]
    assert client.send("/api/auth/email/verify/", {"token": token}).status_code == 200
    return client
