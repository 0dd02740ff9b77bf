"""Background jobs of the accounts app (Celery); the schedule is
``CELERY_BEAT_SCHEDULE`` in ``config/settings.py``."""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.conf import settings

from .services import guests_purge


@shared_task
def purge_idle_guests() -> int:
    """Delete guests idle longer than ``GUEST_IDLE_DAYS`` (no session can hold them
    any more), with their games; returns how many. Safe to run twice."""
    return guests_purge(idle=dt.timedelta(days=settings.GUEST_IDLE_DAYS))


# The mails' tasks live beside their texts; imported here so a worker knows them.
from .mail import mail_email_verification, mail_password_reset, mail_password_reset_for  # noqa: E402

__all__ = [
    "mail_email_verification",
    "mail_password_reset",
    "mail_password_reset_for",
    "purge_idle_guests",
]
