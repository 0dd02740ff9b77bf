"""The reminder of the new daily (issue 28, deliverable 3): Web Push through a
real local push service — the payload decrypted as the browser would, the VAPID
JWT verified against the settings' key — and mail through a real SMTP server,
with its one-click unsubscribe; once a day, at the hour asked for."""

from __future__ import annotations

import datetime as dt
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from accounts import reminders
from accounts.models import PushSubscription, Reminder, User
from accounts.reminders import due_at, reminders_send
from accounts.tasks import send_reminders
from tests.support.api import Client, assert_error, sign_up
from tests.support.concurrency import at_once
from tests.support.push import (  # noqa: F401 (the push fixture)
    BrowserSubscription,
    PushService,
    push_service,
    vapid_claims,
    wait_quiet,
)
from tests.support.smtp import Mailbox, body, smtp_server  # noqa: F401 (the smtp fixture)

PASSWORD = "correct horse battery"
REMINDERS = "/api/reminders/"
PUSH = "/api/reminders/push/"
pytestmark = pytest.mark.django_db


def tomorrow_at(hour: int, minute: int = 0) -> dt.datetime:
    day = timezone.now().astimezone(dt.UTC).date() + dt.timedelta(days=1)
    return dt.datetime.combine(day, dt.time(hour), dt.UTC) + dt.timedelta(minutes=minute)


def subscribed(client: Client, push: PushService, **choice) -> BrowserSubscription:
    browser = BrowserSubscription(push)
    response = client.send(PUSH, browser.json(label="Firefox on Linux"))
    assert response.status_code == 201, response.content
    chosen = client.put(REMINDERS, {"channel": "push", **choice}, format="json")
    assert chosen.status_code == 200, chosen.content
    return browser


def test_the_public_key_and_the_choice(push: PushService, settings):
    assert Client().get("/api/reminders/key/").json() == {
        "push_available": True,
        "vapid_public_key": settings.VAPID_PUBLIC_KEY,
    }
    client = sign_up("ada", PASSWORD)
    state = client.get(REMINDERS).json()
    assert (state["channel"], state["hour"], state["subscriptions"]) == ("off", None, [])
    subscribed(client, push, hour=8, timezone="Europe/Sofia")
    state = client.get(REMINDERS).json()
    assert (state["channel"], state["hour"], state["timezone"]) == ("push", 8, "Europe/Sofia")
    (device,) = state["subscriptions"]
    assert device["label"] == "Firefox on Linux" and device["last_success"] is None
    assert "endpoint" not in device


def test_a_push_arrives_encrypted_and_signed(push: PushService, settings):
    client = sign_up("bea", PASSWORD)
    browser = subscribed(client, push)  # when the day opens
    assert reminders_send(now=tomorrow_at(0, 5)) == {"sent": 1}
    wait_quiet(push, 1)
    (received,) = push.to(browser.path)
    day = tomorrow_at(0).date()
    payload = browser.decrypt(received)
    assert payload["url"] == "/daily/" and payload["tag"] == f"daily-{day.isoformat()}"
    assert set(payload) == {"title", "body", "url", "tag"}
    assert str(day.day) in payload["body"]
    claims = vapid_claims(received, settings.VAPID_PUBLIC_KEY)
    assert claims["aud"] == push.origin and claims["sub"] == "mailto:ops@example.org"
    assert claims["exp"] > timezone.now().timestamp()
    # Worth nothing once the day is over: the push service may drop it then.
    assert 0 < int(received.headers["ttl"]) <= 86400
    sub = PushSubscription.objects.get()
    assert sub.last_success is not None


def test_one_reminder_a_day_and_the_next_day_again(push: PushService):
    client = sign_up("cat", PASSWORD)
    browser = subscribed(client, push)
    assert reminders_send(now=tomorrow_at(0, 1)) == {"sent": 1}
    for minutes in (15, 30, 600):  # the beat's later runs that day
        assert reminders_send(now=tomorrow_at(0, minutes)) == {}
    assert len(push.to(browser.path)) == 1
    assert reminders_send(now=tomorrow_at(0, 1) + dt.timedelta(days=1)) == {"sent": 1}
    wait_quiet(push, 2)
    assert len(push.to(browser.path)) == 2


def test_the_beat_task_sends(push: PushService):
    client = sign_up("cyd", PASSWORD)
    browser = subscribed(client, push)
    Reminder.objects.update(next_at=timezone.now() - dt.timedelta(minutes=1))
    send_reminders.delay()
    # Today's due time (00:00 UTC) has passed: the run sends today's now.
    wait_quiet(push, 1)
    assert browser.decrypt(push.to(browser.path)[0])["url"] == "/daily/"
    send_reminders.delay()
    assert len(push.received) == 1


def test_a_gone_subscription_is_removed(push: PushService):
    client = sign_up("dan", PASSWORD)
    gone = subscribed(client, push)
    kept = BrowserSubscription(push)
    assert client.send(PUSH, kept.json()).status_code == 201
    push.answers[gone.path] = 410
    assert reminders_send(now=tomorrow_at(0, 1)) == {"gone": 1, "sent": 1}
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [kept.endpoint]
    push.answers[kept.path] = 404
    assert reminders_send(now=tomorrow_at(0, 1) + dt.timedelta(days=1)) == {"gone": 1}
    assert not PushSubscription.objects.exists()


def test_a_busy_push_service_is_asked_again_later(push: PushService):
    client = sign_up("eve", PASSWORD)
    browser = subscribed(client, push)
    push.answers[browser.path] = 429
    push.retry_after = "1800"
    first = tomorrow_at(0, 1)
    assert reminders_send(now=first) == {"retry": 1}
    reminder = Reminder.objects.get()
    assert reminder.reminded_on is None  # not reminded: today's is still owed
    assert reminder.next_at == first + dt.timedelta(seconds=1800)  # its Retry-After
    assert reminders_send(now=first + dt.timedelta(minutes=15)) == {}  # politely not yet
    del push.answers[browser.path]
    assert reminders_send(now=first + dt.timedelta(minutes=31)) == {"sent": 1}
    assert len(push.to(browser.path)) == 2


def test_a_local_hour(push: PushService):
    client = sign_up("fay", PASSWORD)
    browser = subscribed(client, push, hour=8, timezone="America/New_York")
    # The first 08:00 in New York after the choice: today's UTC day's before 12:00 or
    # 13:00 UTC, else tomorrow's (a test run in the UTC morning takes today's).
    due = Reminder.objects.get().next_at
    day = due.date()
    assert due == due_at(hour=8, zone="America/New_York", day=day)
    assert due.hour in (12, 13)  # 08:00 in New York: 12:00 UTC in summer, 13:00 in winter
    assert timezone.now() < due <= timezone.now() + dt.timedelta(days=1)
    assert reminders_send(now=due - dt.timedelta(minutes=10)) == {}
    assert reminders_send(now=due + dt.timedelta(minutes=2)) == {"sent": 1}
    assert len(push.to(browser.path)) == 1
    # East of UTC, 08:00 local falls on the evening before in UTC: the UTC day's
    # 08:00 is the one inside it (Tokyo: 23:00 UTC, Sofia: 06:00 UTC in winter).
    assert due_at(hour=8, zone="Asia/Tokyo", day=day) == dt.datetime.combine(
        day, dt.time(23), dt.UTC
    )
    assert due_at(hour=None, zone="", day=day) == dt.datetime.combine(day, dt.time(0), dt.UTC)


def test_after_downtime_today_is_caught_up_never_yesterday(push: PushService):
    client = sign_up("gil", PASSWORD)
    browser = subscribed(client, push, hour=8, timezone="America/New_York")
    day = tomorrow_at(0).date()
    due = due_at(hour=8, zone="America/New_York", day=day)
    # The beat down from before the hour until the evening: today's goes then.
    assert reminders_send(now=due + dt.timedelta(hours=7)) == {"sent": 1}
    # Down the whole next UTC day past its hour… and back the day after, before
    # that day's hour: the missed day's reminder is not sent late.
    later = due_at(hour=8, zone="America/New_York", day=day + dt.timedelta(days=2))
    assert reminders_send(now=later - dt.timedelta(hours=1)) == {"skipped": 1}
    assert len(push.to(browser.path)) == 1
    assert reminders_send(now=later + dt.timedelta(minutes=1)) == {"sent": 1}


def test_the_email_reminder_and_its_unsubscribe(smtp: Mailbox):
    client = sign_up("hal", PASSWORD)
    refused = client.put(REMINDERS, {"channel": "email"}, format="json")
    assert_error(refused, 409, "email_unverified")
    User.objects.filter(username="hal").update(email="hal@example.org", email_verified=True)
    chosen = client.put(REMINDERS, {"channel": "email"}, format="json")
    assert chosen.status_code == 200, chosen.content
    assert reminders_send(now=tomorrow_at(0, 3)) == {"sent": 1}
    message = smtp.wait_for("hal@example.org")
    assert "/daily/" in body(message)
    # RFC 8058's one-click: a mail client posts to the header's URL, no cookie, no CSRF.
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    header = "".join(str(message["List-Unsubscribe"]).split())  # unfolded
    one_click = re.fullmatch(r"<(https?://\S+)>", header).group(1)
    page = re.search(r"https?://\S+/account/reminders/off/\?token=\S+", body(message)).group(0)
    assert parse_qs(urlsplit(page).query)["token"] == parse_qs(urlsplit(one_click).query)["token"]
    assert Client().get(urlsplit(page).path + "?" + urlsplit(page).query).status_code == 200
    stranger = Client()
    answer = stranger.post(
        f"{urlsplit(one_click).path}?{urlsplit(one_click).query}",
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"username": "hal", "channel": "off"}
    assert client.get(REMINDERS).json()["channel"] == "off"
    assert reminders_send(now=tomorrow_at(0, 3) + dt.timedelta(days=1)) == {}


def test_the_unsubscribe_page_posts_the_token_as_json(smtp: Mailbox):
    client = sign_up("ida", PASSWORD)
    User.objects.filter(username="ida").update(email="ida@example.org", email_verified=True)
    client.put(REMINDERS, {"channel": "email"}, format="json")
    reminders_send(now=tomorrow_at(0, 3))
    text = body(smtp.wait_for("ida@example.org"))
    page = re.search(r"https?://\S+/account/reminders/off/\?token=\S+", text).group(0)
    token = parse_qs(urlsplit(page).query)["token"][0]
    answer = Client().send("/api/reminders/unsubscribe/", {"token": token})
    assert answer.status_code == 200, answer.content
    assert Reminder.objects.get().channel == "off"


def test_without_vapid_keys_push_is_off_and_email_still_works(settings, smtp: Mailbox):
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    assert Client().get("/api/reminders/key/").json() == {
        "push_available": False,
        "vapid_public_key": None,
    }
    client = sign_up("jon", PASSWORD)
    assert_error(client.put(REMINDERS, {"channel": "push"}, format="json"), 409, "push_unavailable")
    User.objects.filter(username="jon").update(email="jon@example.org", email_verified=True)
    assert client.put(REMINDERS, {"channel": "email"}, format="json").status_code == 200
    assert reminders_send(now=tomorrow_at(0, 3)) == {"sent": 1}
    smtp.wait_for("jon@example.org")


def test_a_deleted_account_is_reminded_of_nothing(push: PushService):
    client = sign_up("kim", PASSWORD)
    subscribed(client, push)
    response = client.delete("/api/auth/account/", {"password": PASSWORD}, format="json")
    assert response.status_code == 200, response.content
    assert not PushSubscription.objects.exists() and not Reminder.objects.exists()
    assert reminders_send(now=tomorrow_at(0, 3)) == {}
    assert push.received == []


@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_remind_once(push: PushService):
    """Two beat runs at the same moment (a second beat, a retried task): each
    player's day is claimed before anything is sent, so one push goes."""
    client = sign_up("lea", PASSWORD)
    browser = subscribed(client, push)
    now = tomorrow_at(0, 2)
    results = at_once([lambda: reminders_send(now=now)] * 2)
    assert sorted(r.get("sent", 0) for r in results) == [0, 1], results
    assert len(push.to(browser.path)) == 1


def test_a_midnight_crowd_is_reminded_in_one_go_not_a_batch_a_quarter(smtp: Mailbox, monkeypatch):
    """Issue 38: more players due than a run's batch — the task runs again at
    once while some are due, instead of leaving them to the next beat run."""
    monkeypatch.setattr(reminders, "BATCH", 2)
    names = [f"crowd{n}" for n in range(5)]
    for name in names:
        client = sign_up(name, PASSWORD)
        User.objects.filter(username=name).update(email=f"{name}@example.org", email_verified=True)
        chosen = client.put(REMINDERS, {"channel": "email"}, format="json")
        assert chosen.status_code == 200, chosen.content
    Reminder.objects.update(next_at=timezone.now() - dt.timedelta(minutes=1))
    send_reminders.delay()  # one beat run (tasks run in process here)
    for name in names:
        smtp.wait_for(f"{name}@example.org")
    assert not reminders.reminders_due()
