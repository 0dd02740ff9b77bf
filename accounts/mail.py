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
from .tokens import email_verify_token, reset_token, reset_uid, secure_token


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


def masked_email(email: str) -> str:
    """An address as a notice names it: its first character and its domain
    (``e…@example.org``), enough to recognise, not to copy."""
    local, _, domain = email.rpartition("@")
    return f"{local[:1]}\u2026@{domain}" if local else email


NOTICES = ("email", "password", "signin")
"""What a notice says happened: the email changed (or was removed), the
password changed, a sign-in from a browser new to the account."""


@shared_task
def mail_account_notice(
    user_id: int, address: str, what: str, issued: float, detail: str = ""
) -> bool:
    """Tell ``address`` — the account's verified email when ``what`` happened —
    that it happened, with a "this wasn't me" link that puts ``address`` back
    as the account's confirmed email, signs every device out and offers a new
    password (accounts/recovery.py, ``account_secure``). ``detail``: the new
    address, for an email change ("" when it was removed). Returns whether a
    mail went (not for an account deleted meanwhile)."""
    user = User.objects.filter(pk=user_id, is_guest=False, is_active=True).first()
    if user is None or what not in NOTICES:
        return False
    token = secure_token(user_id=user.pk, email=address, issued=issued)
    link = _link("/account/secure/", token=token)
    days = settings.ACCOUNT_SECURE_TIMEOUT // 86400
    when = dt.datetime.fromtimestamp(issued, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    with translation.override(user.language or settings.LANGUAGE_CODE):
        if what == "email" and detail:
            subject = _("The email of your Patience Daily account was changed")
            happened = _("the email of your account was changed to %(email)s") % {
                "email": masked_email(detail)
            }
        elif what == "email":
            subject = _("The email of your Patience Daily account was removed")
            happened = _("the email of your account was removed")
        elif what == "password":
            subject = _("The password of your Patience Daily account was changed")
            happened = _("the password of your account was changed")
        else:
            subject = _("A new sign-in to your Patience Daily account")
            happened = _("your account was signed in to from a browser it was not used on before")
        body = _(
            "Hello %(name)s,\n\non %(when)s %(happened)s.\n\nIf that was you, there is "
            "nothing to do. If it was not, open this link within %(days)d days: it makes "
            "%(address)s your account's email again, signs out every device and lets you "
            "choose a new password.\n\n%(link)s"
        ) % {
            "name": user.username,
            "when": when,
            "happened": happened,
            "days": days,
            "address": address,
            "link": link,
        }
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [address])
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
            "Hello %(name)s,\n\ntoday's daily deals are waiting: "
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
