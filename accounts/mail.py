"""The mails of the accounts (issue 28): text only, in the player's language,
sent by Celery after the change that asks for them is committed (in process
when Celery runs eagerly). The links point at ``SITE_URL``, never at the Host
a request named, so a forged Host cannot send a player's token elsewhere."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMessage, send_mail
from django.utils import translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from .models import User
from .tokens import email_verify_token, reset_token, reset_uid


def _link(path: str, **query: str) -> str:
    return f"{settings.SITE_URL.rstrip('/')}{path}?{urlencode(query)}"


@shared_task
def mail_email_verification(user_id: int, email: str) -> bool:
    """Mail ``email`` the link that verifies it for ``user_id``, if the account
    still has that address unverified (safe to run twice: a second mail, the
    same link's meaning). Returns whether a mail went."""
    user = User.objects.filter(pk=user_id, email__iexact=email, email_verified=False).first()
    if user is None:
        return False
    link = _link("/account/verify/", token=email_verify_token(user_id=user.pk, email=user.email))
    hours = settings.EMAIL_VERIFY_TIMEOUT // 3600
    with translation.override(user.language or settings.LANGUAGE_CODE):
        subject = _("Confirm your email for Patience Daily")
        body = _(
            "Hello %(name)s,\n\nto confirm this address for your Patience Daily account, "
            "open this link within %(hours)d hours:\n\n%(link)s\n\n"
            "If you did not ask for this, ignore this mail."
        ) % {"name": user.username, "hours": hours, "link": link}
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email])
    return True


def reset_recipient(*, target: str) -> User | None:
    """The account a reset for ``target`` (a username or an email) is mailed to:
    one with a verified address; else None. Asked by the task, off the request
    (accounts/recovery.py, ``password_reset_request``)."""
    target = target.strip()
    if "@" in target:
        found = User.objects.filter(email__iexact=target, email_verified=True)
    else:
        found = User.objects.filter(username__iexact=target, email_verified=True)
    return found.filter(is_guest=False, is_active=True).first()


@shared_task
def mail_password_reset_for(target: str) -> bool:
    """A reset asked for the account ``target`` names (a username or an email):
    mailed if it has a verified address. Returns whether a mail went."""
    user = reset_recipient(target=target)
    return user is not None and mail_password_reset(user.pk)


@shared_task
def mail_password_reset(user_id: int) -> bool:
    """Mail ``user_id``'s verified address a password-reset link. Safe to run
    twice: each link works until the password changes or it expires."""
    user = User.objects.filter(pk=user_id, email_verified=True, is_guest=False).first()
    if user is None or not user.email:
        return False
    link = _link("/account/reset/", uid=reset_uid(user), token=reset_token(user))
    minutes = settings.PASSWORD_RESET_TIMEOUT // 60
    with translation.override(user.language or settings.LANGUAGE_CODE):
        subject = _("Reset your Patience Daily password")
        body = _(
            "Hello %(name)s,\n\nsomeone (we hope you) asked to reset the password of your "
            "Patience Daily account. Open this link within %(minutes)d minutes to choose "
            "a new one:\n\n%(link)s\n\nThe link works once. If you did not ask for this, "
            "ignore this mail: your password stays as it is."
        ) % {"name": user.username, "minutes": minutes, "link": link}
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email])
    return True


def mail_reminder(*, user: User, day: dt.date, token: str) -> None:
    """The reminder that ``day``'s dailies are open, to ``user``'s verified
    address, with a one-click unsubscribe (RFC 8058: ``List-Unsubscribe`` and
    ``List-Unsubscribe-Post``, and a link in the text). Sent by the beat job
    (accounts/reminders.py), which retries a later run if the server is away."""
    page = _link("/account/reminders/off/", token=token)
    one_click = _link("/api/reminders/unsubscribe/", token=token)
    with translation.override(user.language or settings.LANGUAGE_CODE):
        subject = _("The daily deals of %(day)s are open") % {
            "day": date_format(day, "DATE_FORMAT")
        }
        body = _(
            "Hello %(name)s,\n\ntoday's Easy Harp and Seahaven Towers deals are waiting: "
            "%(site)s/daily/\n\nYou asked for this reminder. To stop it, open this "
            "link: %(off)s"
        ) % {"name": user.username, "site": settings.SITE_URL.rstrip("/"), "off": page}
    EmailMessage(
        subject,
        body,
        settings.DEFAULT_FROM_EMAIL,
        [user.email],
        headers={
            "List-Unsubscribe": f"<{one_click}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    ).send()
