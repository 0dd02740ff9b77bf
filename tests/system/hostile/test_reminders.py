"""Attacking the reminders (issue 28, deliverable 3): another player's push
subscription can be neither listed nor removed; an endpoint that would make the
server post into its own network (http://, loopback, private, link-local, a
name resolving there, credentials) is refused, as are malformed keys; guests
cannot opt in; a forged unsubscribe token stops nothing; and every byte a push
carries, decrypted, says nothing of a deal."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.utils import timezone

from accounts.models import PushSubscription, Reminder
from accounts.reminders import SUBSCRIPTIONS_MAX, reminders_send
from tests.support.api import Client, assert_error, sign_up
from tests.support.push import (  # noqa: F401 (the push fixture)
    BrowserSubscription,
    PushService,
    b64url,
    push_service,
)

PASSWORD = "correct horse battery"
PUSH = "/api/reminders/push/"
REMINDERS = "/api/reminders/"
pytestmark = pytest.mark.django_db


def test_another_players_subscription_is_neither_listed_nor_removed(push: PushService):
    owner, thief = sign_up("owner", PASSWORD), sign_up("thief", PASSWORD)
    browser = BrowserSubscription(push)
    made = owner.send(PUSH, browser.json(label="Owner's phone"))
    assert made.status_code == 201
    assert thief.get(REMINDERS).json()["subscriptions"] == []
    by_endpoint = thief.delete(PUSH, {"endpoint": browser.endpoint}, format="json")
    assert_error(by_endpoint, 404, "no_subscription")
    by_id = thief.delete(PUSH, {"id": made.json()["id"]}, format="json")
    assert_error(by_id, 404, "no_subscription")
    assert PushSubscription.objects.get().user.username == "owner"
    # The thief subscribing the same endpoint gets a row of its own, not the owner's.
    assert thief.send(PUSH, browser.json()).status_code == 201
    assert PushSubscription.objects.filter(user__username="owner").count() == 1
    # The owner removes theirs by its endpoint.
    gone = owner.delete(PUSH, {"endpoint": browser.endpoint}, format="json")
    assert gone.status_code == 200 and gone.json()["subscriptions"] == []


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://push.example.org/x",
        "ftp://push.example.org/x",
        "https://127.0.0.1/x",
        "https://127.0.0.1:8000/x",
        "https://localhost/x",
        "https://[::1]/x",
        "https://[::ffff:127.0.0.1]/x",
        "https://10.1.2.3/x",
        "https://192.168.0.1/x",
        "https://172.16.0.9/x",
        "https://169.254.169.254/latest/meta-data/",
        "https://100.64.0.1/x",
        "https://0.0.0.0/x",
        "https://user:pw@push.example.org/x",
        "https:///x",
        "not a url",
        "https://push.example.org/" + "x" * 1100,
        "https://push.example.org/\nx",
        "https://does-not-resolve.invalid/x",
    ],
)
def test_endpoints_off_the_public_net_are_refused(push: PushService, endpoint: str):
    client = sign_up("ssrf", PASSWORD)
    body = {**BrowserSubscription(push).json(), "endpoint": endpoint}
    error = assert_error(client.send(PUSH, body), 400)
    assert error["code"] in ("bad_endpoint", "invalid"), error
    assert not PushSubscription.objects.exists()


def test_the_test_origin_is_only_the_one_named(push: PushService):
    client = sign_up("origin", PASSWORD)
    port = int(push.origin.rsplit(":", 1)[1])
    other = BrowserSubscription(push).json(endpoint=f"http://127.0.0.1:{port + 1}/push/x")
    assert_error(client.send(PUSH, other), 400, "bad_endpoint")


def _keys(**keys: str) -> dict:
    return keys


@pytest.mark.parametrize(
    ("keys", "field"),
    [
        (_keys(p256dh="not base64!", auth=b64url(b"a" * 16)), "p256dh"),
        (_keys(p256dh=b64url(b"\x04" + b"\x01" * 64), auth=b64url(b"a" * 16)), "p256dh"),
        (_keys(p256dh=b64url(b"\x04" + b"\x01" * 10), auth=b64url(b"a" * 16)), "p256dh"),
        (_keys(p256dh="A" * 199, auth=b64url(b"a" * 16)), "p256dh"),
        ("auth-short", "auth"),
        ("auth-bad", "auth"),
    ],
)
def test_malformed_keys_are_refused(push: PushService, keys, field: str):
    client = sign_up("keys", PASSWORD)
    browser = BrowserSubscription(push)
    good = browser.json()["keys"]
    if keys == "auth-short":
        keys = {**good, "auth": b64url(b"a" * 15)}
    elif keys == "auth-bad":
        keys = {**good, "auth": "*" * 22}
    error = assert_error(client.send(PUSH, {**browser.json(), "keys": keys}), 400, "bad_key")
    assert error["params"]["field"] == field


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"endpoint": "https://push.example.org/x"},
        {"endpoint": 5, "keys": {"p256dh": "x", "auth": "y"}},
        {"endpoint": "https://push.example.org/x", "keys": "x"},
        {"endpoint": "https://push.example.org/x", "keys": {"p256dh": "x"}},
        {"endpoint": "https://push.example.org/x", "keys": {"p256dh": "x", "auth": "y"}, "z": 1},
        [],
    ],
)
def test_malformed_bodies_are_a_clear_400(push: PushService, body):
    client = sign_up("shape", PASSWORD)
    assert_error(client.send(PUSH, body), 400)


@pytest.mark.parametrize(
    "choice",
    [
        {"channel": "sms"},
        {"channel": "push", "hour": 24, "timezone": "Europe/Sofia"},
        {"channel": "push", "hour": -1, "timezone": "Europe/Sofia"},
        {"channel": "push", "hour": "8", "timezone": "Europe/Sofia"},
        {"channel": "push", "hour": 8},
        {"channel": "push", "hour": 8, "timezone": "Mars/Olympus"},
        {"channel": "push", "hour": 8, "timezone": "../../etc/passwd"},
        {"channel": "push", "hour": 8, "timezone": "x" * 65},
        {"hour": 8},
    ],
)
def test_bad_choices_are_a_clear_400(push: PushService, choice):
    client = sign_up("choice", PASSWORD)
    assert_error(client.put(REMINDERS, choice, format="json"), 400)
    assert not Reminder.objects.exclude(channel="off").exists()


def test_guests_and_visitors_cannot_opt_in(push: PushService):
    visitor = Client()
    assert_error(visitor.get(REMINDERS), 401, "not_authenticated")
    guest = Client()
    assert guest.send("/api/auth/guest/").status_code == 201
    refused = guest.put(REMINDERS, {"channel": "push"}, format="json")
    error = assert_error(refused, 403, "account_required")
    assert "guest" in error["message"]
    assert_error(guest.send(PUSH, BrowserSubscription(push).json()), 403, "account_required")


def test_subscriptions_are_capped(push: PushService):
    client = sign_up("many", PASSWORD)
    for _ in range(SUBSCRIPTIONS_MAX):
        assert client.send(PUSH, BrowserSubscription(push).json()).status_code == 201
    assert_error(client.send(PUSH, BrowserSubscription(push).json()), 409, "too_many")


def test_a_forged_unsubscribe_token_stops_nothing(push: PushService):
    client = sign_up("forge", PASSWORD)
    client.send(PUSH, BrowserSubscription(push).json())
    client.put(REMINDERS, {"channel": "push"}, format="json")
    for token in ("", "x", "eyJ1IjoxfQ:1abc:forged", "a" * 600):
        assert_error(Client().send("/api/reminders/unsubscribe/", {"token": token}), 400)
    assert Reminder.objects.get().channel == "push"


def test_a_push_says_nothing_of_the_deal(push: PushService):
    """Every byte a push carries, decrypted: the title, a line naming the day,
    /daily/ and a tag of the date — no card, no code, no seed."""
    client = sign_up("fair", PASSWORD)
    browser = BrowserSubscription(push)
    client.send(PUSH, browser.json())
    client.put(REMINDERS, {"channel": "push"}, format="json")
    day = timezone.now().astimezone(dt.UTC).date() + dt.timedelta(days=1)
    reminders_send(now=dt.datetime.combine(day, dt.time(0, 1), dt.UTC))
    (received,) = push.to(browser.path)
    payload = browser.decrypt(received)
    assert set(payload) == {"title", "body", "url", "tag"}
    assert payload["url"] == "/daily/" and payload["tag"] == f"daily-{day.isoformat()}"
    text = json.dumps(payload)
    for forbidden in ("EH", "SH", "seed", "code", "card", "\u2660", "\u2665"):
        assert forbidden not in text.replace("daily", ""), (forbidden, text)
    assert len(received.body) < 4096
