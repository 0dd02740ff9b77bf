"""Come back tomorrow (issue 28, deliverable 3): an opt-in reminder when the new
daily opens — a Web Push notification on the devices a player subscribed, or a
mail to their verified address — sent by the beat job ``send_reminders``.

**When.** When the new day opens (00:00 UTC), or at a local hour of the IANA
time zone the browser reported: the first time that hour strikes inside the
UTC day of the daily. Each player is reminded of a UTC day at most once
(``Reminder.reminded_on``, claimed by a compare-and-set before anything is
sent, so two runs at once cannot both send); a run after downtime still sends
today's reminder, never yesterday's (``next_at`` from a past day is moved on
without sending).

**Push.** ``pywebpush`` encrypts (RFC 8291, aes128gcm) and signs the VAPID JWT
(RFC 8292) with ``VAPID_PRIVATE_KEY``; the payload says the day and links to
/daily/ — nothing of any card. The push service's answer decides: 201 kept,
404/410 the subscription deleted, 429/5xx (or no answer) tried again at a later
run (after ``Retry-After``, at least ``RETRY_AFTER``), other 4xx given up for
the day. An endpoint is a URL a client gave us, so it is held to https on a
public address when it is given and again before each post (no redirects
followed): the server never posts to its own network (SSRF).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import ipaddress
import json
import logging
import re
import socket
import time
import zoneinfo
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core import signing
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from pywebpush import WebPushException, webpush

from kit.errors import Conflict, Invalid, NotFound

from . import metrics
from .mail import mail_reminder
from .models import PushSubscription, Reminder, User
from .services import account_required

log = logging.getLogger(__name__)

SUBSCRIPTIONS_MAX = 10
"""Push subscriptions a player may hold (a browser each)."""
BATCH = 100
"""Players one run reminds at most: a run stays well inside the task's time limit
(each push waits at most ``PUSH_TIMEOUT``); the next run, 15 minutes on, goes on."""
PUSH_TIMEOUT = 5.0
RUN_SECONDS = 90.0
"""A run stops taking players after this long (the rest wait 15 minutes for the
next): slow push services cannot push it past the task's 120 s soft limit."""
RETRY_AFTER = dt.timedelta(minutes=15)
"""The least wait before a push service that said 429/5xx is asked again."""
ENDPOINT_MAX = 1024
LABEL_MAX = 80
OFF_SALT = "accounts.reminders.off"
_B64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")


def push_available() -> bool:
    """Whether this server can send Web Push: a VAPID key pair is set."""
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


def _account(user: Any) -> User:
    """A guest cannot opt in: it has no way back to its games tomorrow."""
    return account_required(
        user, "Sign up first: a guest cannot be reminded (its games stay with this browser only)."
    )


# --- the subscription's fields -------------------------------------------------------------


def _b64url(value: str, *, name: str, size: int) -> bytes:
    if not isinstance(value, str) or not _B64URL.fullmatch(value) or len(value) > 200:
        raise Invalid("bad_key", f"{name} must be base64url.", params={"field": name})
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        raise Invalid("bad_key", f"{name} must be base64url.", params={"field": name}) from None
    if len(raw) != size:
        raise Invalid(
            "bad_key",
            f"{name} must decode to {size} bytes, not {len(raw)}.",
            params={"field": name},
        )
    return raw


def keys_check(*, p256dh: str, auth: str) -> None:
    """The browser's keys: ``p256dh`` a P-256 public point (65 bytes,
    uncompressed), ``auth`` a 16-byte secret; else 400 ``bad_key``."""
    point = _b64url(p256dh, name="p256dh", size=65)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise Invalid(
            "bad_key", "p256dh is not a point of the P-256 curve.", params={"field": "p256dh"}
        ) from None
    _b64url(auth, name="auth", size=16)


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def endpoint_check(endpoint: str) -> str:
    """``endpoint`` if a push may be posted to it: an https URL whose host
    resolves to public addresses only; else 400 ``bad_endpoint``. Asked when it is
    given and before each post (a name may resolve elsewhere later)."""
    bad = lambda why: Invalid("bad_endpoint", why, params={"field": "endpoint"})  # noqa: E731
    if not isinstance(endpoint, str) or len(endpoint) > ENDPOINT_MAX:
        raise bad(f"An endpoint is a URL of at most {ENDPOINT_MAX} characters.")
    if any(ord(c) <= 32 or ord(c) == 127 for c in endpoint):
        raise bad("An endpoint has no spaces or control characters.")
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError:
        raise bad("That endpoint is not a URL.") from None
    if f"{parts.scheme}://{parts.netloc}" in settings.PUSH_ENDPOINT_TEST_ORIGINS:
        return endpoint
    if parts.scheme != "https" or not parts.hostname:
        raise bad("A push endpoint is an https:// URL.")
    if parts.username is not None or parts.password is not None:
        raise bad("A push endpoint carries no user name or password.")
    try:
        found = socket.getaddrinfo(parts.hostname, port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise bad("The endpoint's host does not resolve.") from None
    if not found or not all(_public(str(info[4][0])) for info in found):
        raise bad("A push endpoint must be on a public address.")
    return endpoint


def _label(text: str) -> str:
    text = "".join(c for c in text if c.isprintable()).strip()
    return text[:LABEL_MAX]


# --- the player's doors ---------------------------------------------------------------------


def reminder_of(user: User) -> Reminder:
    found: Reminder | None = Reminder.objects.filter(user=user).first()
    return found if found is not None else Reminder(user=user)


def reminder_state(*, user: Any) -> dict[str, Any]:
    """What the settings show: the choice, whether push and email can be chosen,
    and this player's subscriptions (their labels, never another's)."""
    account = _account(user)
    reminder = reminder_of(account)
    subscriptions = PushSubscription.objects.filter(user=account).order_by("created", "pk")
    return {
        "channel": reminder.channel,
        "hour": reminder.hour,
        "timezone": reminder.timezone,
        "push_available": push_available(),
        "vapid_public_key": settings.VAPID_PUBLIC_KEY or None,
        "email_ready": bool(account.email and account.email_verified),
        "subscriptions": [
            {
                "id": s.pk,
                "label": s.label,
                "created": s.created.isoformat(),
                "last_success": s.last_success.isoformat() if s.last_success else None,
            }
            for s in subscriptions
        ],
    }


@cache
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def timezone_check(name: str) -> str:
    if name not in _zones():
        raise Invalid(
            "bad_timezone",
            "That is not an IANA time zone (such as Europe/Sofia).",
            params={"field": "timezone"},
        )
    return name


def due_at(*, hour: int | None, zone: str, day: dt.date) -> dt.datetime:
    """When the reminder of the UTC ``day`` is due: its start (00:00 UTC), or the
    first time the local ``hour`` of ``zone`` strikes inside it (the start, if a
    change of clocks skips it)."""
    start = dt.datetime.combine(day, dt.time(0), dt.UTC)
    if hour is None:
        return start
    tz = zoneinfo.ZoneInfo(zone)
    for local_day in (day - dt.timedelta(days=1), day, day + dt.timedelta(days=1)):
        when = dt.datetime.combine(local_day, dt.time(hour), tz).astimezone(dt.UTC)
        if start <= when < start + dt.timedelta(days=1):
            return when
    return start


def _next_due(reminder: Reminder, now: dt.datetime) -> dt.datetime:
    """The next reminder's time: today's if it is still ahead and today is not
    reminded yet, else tomorrow's (a choice made at 15:00 for 08:00 starts tomorrow)."""
    today = now.astimezone(dt.UTC).date()
    when = due_at(hour=reminder.hour, zone=reminder.timezone, day=today)
    if reminder.reminded_on == today or when <= now:
        when = due_at(hour=reminder.hour, zone=reminder.timezone, day=today + dt.timedelta(days=1))
    return when


def reminder_set(
    *, user: Any, channel: str, hour: int | None = None, zone: str | None = None
) -> Reminder:
    """The player's choice: ``off``, ``push`` (this server must have VAPID keys:
    else 409 ``push_unavailable``) or ``email`` (a verified address: else 409
    ``email_unverified``); at ``hour`` (0–23) of ``zone``, or when the day opens."""
    account = _account(user)
    if channel not in Reminder.Channel.values:
        raise Invalid("bad_channel", "Choose off, push or email.", params={"field": "channel"})
    if hour is not None and not 0 <= hour <= 23:
        raise Invalid("bad_hour", "An hour is 0 to 23.", params={"field": "hour"})
    if zone:
        timezone_check(zone)
    elif hour is not None:
        raise Invalid(
            "bad_timezone",
            "A local hour needs the time zone it is in.",
            params={"field": "timezone"},
        )
    if channel == Reminder.Channel.PUSH and not push_available():
        raise Conflict(
            "push_unavailable", "This server does not send push notifications: choose email."
        )
    if channel == Reminder.Channel.EMAIL and not (account.email and account.email_verified):
        raise Conflict(
            "email_unverified",
            "Give an email in the settings and open the link we mail to it first.",
        )
    with transaction.atomic():
        reminder, _created = Reminder.objects.select_for_update().get_or_create(user=account)
        reminder.channel = channel
        reminder.hour = hour
        reminder.timezone = zone or ""
        reminder.next_at = (
            None if channel == Reminder.Channel.OFF else _next_due(reminder, timezone.now())
        )
        reminder.save()
    return reminder


def push_subscribe(
    *, user: Any, endpoint: str, p256dh: str, auth: str, label: str = ""
) -> PushSubscription:
    """Keep a browser's push subscription for the player (the same endpoint again:
    its keys renewed). At most ``SUBSCRIPTIONS_MAX`` a player: 409 ``too_many``."""
    account = _account(user)
    if not push_available():
        raise Conflict(
            "push_unavailable", "This server does not send push notifications: choose email."
        )
    endpoint_check(endpoint)
    keys_check(p256dh=p256dh, auth=auth)
    with transaction.atomic():
        # The player's row locked: two subscriptions at once cannot pass the cap together.
        User.objects.select_for_update().filter(pk=account.pk).first()
        found = PushSubscription.objects.filter(user=account, endpoint=endpoint).first()
        if found is None:
            if PushSubscription.objects.filter(user=account).count() >= SUBSCRIPTIONS_MAX:
                raise Conflict(
                    "too_many",
                    f"At most {SUBSCRIPTIONS_MAX} devices: remove one first.",
                    limit=SUBSCRIPTIONS_MAX,
                )
            found = PushSubscription(user=account, endpoint=endpoint)
        found.p256dh, found.auth, found.label = p256dh, auth, _label(label)
        found.save()
    return found


def push_unsubscribe(*, user: Any, endpoint: str | None = None, pk: int | None = None) -> int:
    """Remove one of the player's subscriptions, named by its endpoint or its id;
    404 ``no_subscription`` if the player has none such (another player's is
    none of theirs)."""
    account = _account(user)
    mine = PushSubscription.objects.filter(user=account)
    mine = mine.filter(endpoint=endpoint) if endpoint is not None else mine.filter(pk=pk)
    removed, _kinds = mine.delete()
    if not removed:
        raise NotFound("no_subscription", "You have no such push subscription.")
    return removed


def off_token(user: User) -> str:
    """The signed token of a reminder mail's unsubscribe link (no expiry: an old
    mail's link still stops them)."""
    return signing.dumps({"u": user.pk}, salt=OFF_SALT)


def reminder_off_by_token(*, token: str) -> User:
    """The one-click unsubscribe: mail reminders off for the account the token
    names; 400 ``bad_token`` for a forged one. A choice of push stays as it is."""
    try:
        user = User.objects.get(pk=int(signing.loads(token, salt=OFF_SALT)["u"]))
    except (signing.BadSignature, User.DoesNotExist, KeyError, TypeError, ValueError):
        raise Invalid("bad_token", "This link is not valid.") from None
    Reminder.objects.filter(user=user, channel=Reminder.Channel.EMAIL).update(
        channel=Reminder.Channel.OFF, next_at=None
    )
    return user


def reminders_forget(*, user: User) -> None:
    """A deleted account is reminded of nothing (accounts/privacy.py)."""
    PushSubscription.objects.filter(user=user).delete()
    Reminder.objects.filter(user=user).delete()


# --- the beat job ---------------------------------------------------------------------------


class _NoRedirects(requests.Session):
    """A push service answers; it does not send us elsewhere (a redirect could
    name an address of our own network)."""

    def post(self, url: Any, data: Any = None, json: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        kwargs["allow_redirects"] = False
        return super().post(url, data=data, json=json, **kwargs)


@dataclass
class Outcome:
    sent: int = 0
    retry: dt.timedelta | None = None
    counts: dict[str, int] = field(default_factory=dict)

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1


def _retry_after(response: Any) -> dt.timedelta:
    try:
        seconds = int(response.headers.get("Retry-After", "0"))
    except (AttributeError, TypeError, ValueError):
        seconds = 0
    return max(RETRY_AFTER, dt.timedelta(seconds=min(seconds, 6 * 3600)))


def push_payload(*, user: User, day: dt.date) -> dict[str, str]:
    """What the notification says, in the player's language: the day, and where
    to go. Nothing of the deals."""
    with translation.override(user.language or settings.LANGUAGE_CODE):
        return {
            "title": _("Patience Daily"),
            "body": _("The daily deals of %(day)s are open.")
            % {"day": date_format(day, "DATE_FORMAT")},
            "url": "/daily/",
            "tag": f"daily-{day.isoformat()}",
        }


def _push(user: User, day: dt.date, now: dt.datetime, outcome: Outcome) -> None:
    payload = json.dumps(push_payload(user=user, day=day))
    end_of_day = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(0), dt.UTC)
    ttl = max(60, int((end_of_day - now).total_seconds()))  # moot once the day is over
    session = _NoRedirects()
    for sub in PushSubscription.objects.filter(user=user).order_by("pk"):
        try:
            endpoint_check(sub.endpoint)
        except Invalid:
            log.warning("reminders: subscription %s now points off the public net: removed", sub.pk)
            sub.delete()
            outcome.count("refused")
            continue
        try:
            webpush(
                subscription_info={
                    "endpoint": sub.endpoint,
                    "keys": {"p256dh": sub.p256dh, "auth": sub.auth},
                },
                data=payload,
                vapid_private_key=settings.VAPID_PRIVATE_KEY,
                vapid_claims={"sub": settings.VAPID_SUBJECT},
                ttl=ttl,
                timeout=PUSH_TIMEOUT,
                headers={"Urgency": "normal"},
                requests_session=session,
            )
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else None
            if status in (404, 410):
                sub.delete()
                outcome.count("gone")
            elif status is None or status == 429 or status >= 500:
                outcome.retry = max(outcome.retry or RETRY_AFTER, _retry_after(exc.response))
                outcome.count("retry")
            else:
                log.warning("reminders: push to subscription %s refused: %s", sub.pk, status)
                outcome.count("failed")
            continue
        except requests.RequestException:
            outcome.retry = outcome.retry or RETRY_AFTER
            outcome.count("retry")
            continue
        PushSubscription.objects.filter(pk=sub.pk).update(last_success=now)
        outcome.sent += 1
        outcome.count("sent")
    session.close()


def _email(user: User, day: dt.date, outcome: Outcome) -> None:
    if not (user.email and user.email_verified):
        outcome.count("no_address")
        return
    try:
        mail_reminder(user=user, day=day, token=off_token(user))
    except OSError:  # the SMTP server away: smtplib's errors are OSErrors
        outcome.retry = RETRY_AFTER
        outcome.count("retry")
        return
    outcome.sent += 1
    outcome.count("sent")


def _due(now: dt.datetime) -> Any:
    return (
        Reminder.objects.filter(next_at__lte=now)
        .exclude(channel=Reminder.Channel.OFF)
        .filter(user__is_active=True, user__is_guest=False)
    )


def reminders_due(*, now: dt.datetime | None = None) -> bool:
    """Players are due now whom a run has not reached yet: the task runs again
    at once (issue 38: at 00:00 UTC a crowd is due, and 100 a quarter of an hour
    left the 1 001st waiting for hours)."""
    return bool(_due(now or timezone.now()).exists())


def reminders_send(*, now: dt.datetime | None = None) -> dict[str, int]:
    """One run of the beat job: remind the players due (at most ``BATCH``).
    Safe to run twice, and at once: each player's day is claimed first."""
    now = now or timezone.now()
    today = now.astimezone(dt.UTC).date()
    tomorrow = today + dt.timedelta(days=1)
    totals: dict[str, int] = {}
    due = _due(now).select_related("user").order_by("next_at")[:BATCH]
    deadline = time.monotonic() + RUN_SECONDS
    for reminder in due:
        if time.monotonic() > deadline:
            totals["deferred"] = totals.get("deferred", 0) + 1
            break
        when_today = due_at(hour=reminder.hour, zone=reminder.timezone, day=today)
        if reminder.reminded_on == today or when_today > now:
            # Reminded already, or a day gone by while the job was down (never
            # sent late): on to the next one due.
            Reminder.objects.filter(pk=reminder.pk, next_at=reminder.next_at).update(
                next_at=_next_due(reminder, now)
            )
            totals["skipped"] = totals.get("skipped", 0) + 1
            continue
        claimed = Reminder.objects.filter(
            Q(reminded_on__isnull=True) | ~Q(reminded_on=today),
            pk=reminder.pk,
            next_at=reminder.next_at,
        ).update(
            reminded_on=today,
            next_at=due_at(hour=reminder.hour, zone=reminder.timezone, day=tomorrow),
        )
        if not claimed:  # another run has it
            continue
        outcome = Outcome()
        if reminder.channel == Reminder.Channel.PUSH:
            _push(reminder.user, today, now, outcome)
        else:
            _email(reminder.user, today, outcome)
        if not outcome.sent and outcome.retry is not None:
            # Nothing reached the player and a service asked us to wait: today's
            # reminder is tried again then (the day unclaimed), politely.
            Reminder.objects.filter(pk=reminder.pk, reminded_on=today).update(
                reminded_on=reminder.reminded_on, next_at=now + outcome.retry
            )
        for what, n in outcome.counts.items():
            totals[what] = totals.get(what, 0) + n
            metrics.reminder_counted(reminder.channel, what, n)
    return totals


def reminders_export(*, user: User) -> dict[str, Any]:
    """The export's section (accounts/privacy.py): the choice and the devices."""
    reminder = reminder_of(user)
    return {
        "channel": reminder.channel,
        "hour": reminder.hour,
        "timezone": reminder.timezone,
        "reminded_on": reminder.reminded_on.isoformat() if reminder.reminded_on else None,
        "push_subscriptions": [
            {
                "endpoint": s.endpoint,
                "label": s.label,
                "created": s.created.isoformat(),
                "last_success": s.last_success.isoformat() if s.last_success else None,
            }
            for s in PushSubscription.objects.filter(user=user).order_by("pk")
        ],
    }
