"""Background jobs of the accounts app (Celery); the schedule is
``CELERY_BEAT_SCHEDULE`` in ``config/settings.py``."""

from __future__ import annotations

import datetime as dt
import logging

from celery import shared_task
from django.conf import settings

from .privacy import held_names_release
from .reminders import reminders_due, reminders_send
from .services import guest_games_purge, guests_purge

log = logging.getLogger(__name__)


@shared_task
def purge_idle_guests() -> dict[str, int]:
    """Delete guests idle longer than ``GUEST_IDLE_DAYS`` (no session can hold them
    any more), with their games; the guests' practice games ended longer than
    ``GUEST_GAMES_DAYS`` ago (issue 38); and release the deleted accounts' names
    held longer than ``DELETED_NAME_HOLD_DAYS``. Returns how many guests and
    games went. Safe to run twice."""
    held_names_release()
    guests = guests_purge(idle=dt.timedelta(days=settings.GUEST_IDLE_DAYS))
    games = guest_games_purge(older=dt.timedelta(days=settings.GUEST_GAMES_DAYS))
    if guests or games:
        log.info("guest purge: %d guests, %d of their old practice games", guests, games)
    return {"guests": guests, "games": games}


@shared_task
def send_reminders() -> dict[str, int]:
    """Remind the players due that the new daily is open (accounts/reminders.py):
    a batch a run, every 15 minutes — and at once again while a batch left some
    due (the midnight crowd). Safe to run twice: each player's day is claimed
    before anything is sent."""
    totals = reminders_send()
    if totals:
        log.info("reminders: %s", ", ".join(f"{what} {n}" for what, n in sorted(totals.items())))
    if totals and reminders_due():  # each counted one moved on: no run repeats itself
        send_reminders.delay()  # the rest now, not a quarter of an hour on
    return totals


# The mails' tasks live beside their texts; imported here so a worker knows them.
from .mail import mail_email_verification, mail_password_reset, mail_password_reset_for  # noqa: E402

__all__ = [
    "mail_email_verification",
    "mail_password_reset",
    "mail_password_reset_for",
    "purge_idle_guests",
    "send_reminders",
]
