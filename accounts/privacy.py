"""A player's own data (issue 28, privacy): leaving without unmaking the past,
and taking everything we hold along.

Deleting an account anonymises it rather than removing the row: its results,
replays and the staff decisions on them stay, so a past leaderboard reads the
same but for the name, which becomes a placeholder (``DELETED_PREFIX``) that no
one can sign in to and no sign-up can take or imitate. Removing the row would
take the player's games with it and change boards already published.

The name the player had is held from sign-ups for ``DELETED_NAME_HOLD_DAYS``
(``HeldName``: its look-alike skeleton), so an old link to their page or a
mention of them is not someone else's for that long (issue 37). The apps above
take the name out of every copy they keep (``account_deleted``): the games app
re-issues each day's results file that named it (games/privacy.py).

The export gathers what every app holds about a player. Imports run one way
(accounts knows nothing of games), so the apps above answer ``export_requested``
with their own sections, as they answer ``guest_claimed``
(accounts/signals.py)."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.utils import timezone

from kit.errors import Forbidden, Invalid

from .models import HeldName, User
from .names import username_skeleton
from .reminders import reminders_export, reminders_forget
from .services import DELETED_PREFIX, SETTINGS, account_required
from .sockets import sockets_close

EXPORT_VERSION = 1
"""The export document's shape; raised when a field changes meaning."""

export_requested = Signal()
"""Sent with ``sender=User`` and ``user``; a receiver answers ``{section: data}``
of what its app holds about ``user``, in JSON types."""

account_deleted = Signal()
"""Sent with ``sender=User``, ``user`` and ``former`` (the name it had) once an
account is anonymised: the apps above drop what ties it to other players (clubs,
follows: clubs/services.py) and re-issue what named it (games/privacy.py)."""


def is_deleted(user: User) -> bool:
    return user.username.startswith(DELETED_PREFIX) and not user.has_usable_password()


def _placeholder() -> str:
    return f"{DELETED_PREFIX}{secrets.token_hex(6)}"


def _check_own_account(user: Any) -> User:
    """The signed-in account itself: a guest has none to delete or export (its
    games are purged with it, accounts/services.py ``guests_purge``)."""
    account = account_required(user, "Only a signed-in account has data to export or delete.")
    if is_deleted(account):  # pragma: no cover - a closed account is inactive too
        raise Forbidden("account_required", "This account is closed.")
    return account


def account_anonymise(*, user: User) -> User:
    """Make ``user`` no one: a placeholder name (its skeleton stored, so the
    name stays unique), no password, email or names, no staff rights, the
    settings back to their defaults, and every session and socket ended. The
    row stays, so its results, replays and the decisions on them stay, and a
    past board shows the placeholder. Staff decisions this account took keep
    the name they were taken under (``ReviewDecision.staff_username``: the
    audit trail). Safe to run twice."""
    model = get_user_model()
    defaults = {name: model._meta.get_field(name).get_default() for name in SETTINGS}
    former = user.get_username()
    while True:
        name = _placeholder()
        try:
            with transaction.atomic():
                locked = model.objects.select_for_update().get(pk=user.pk)
                if not is_deleted(locked):  # a second run holds no placeholder
                    former = locked.get_username()
                    name_hold(former)
                locked.username = name
                locked.username_skeleton = username_skeleton(name)
                locked.set_unusable_password()  # also ends every session: their hash changes
                locked.email = ""
                locked.email_verified = False
                locked.first_name = locked.last_name = ""
                locked.is_staff = locked.is_superuser = False
                locked.is_active = False
                locked.last_login = None
                for field, value in defaults.items():
                    setattr(locked, field, value)
                locked.save()
                locked.groups.clear()
                locked.user_permissions.clear()
                reminders_forget(user=locked)  # no reminder for no one
            break
        except IntegrityError:  # 2^48 names: a clash is all but impossible, still not an error
            continue
    sockets_close(user_id=user.pk)
    account_deleted.send(sender=User, user=locked, former=former)
    return locked


def name_hold(name: str) -> None:
    """Hold ``name`` (the skeleton of it case-folded) from sign-ups for
    ``DELETED_NAME_HOLD_DAYS``."""
    until = timezone.now() + dt.timedelta(days=settings.DELETED_NAME_HOLD_DAYS)
    HeldName.objects.update_or_create(
        skeleton=username_skeleton(name.casefold()), defaults={"until": until}
    )


def held_names_release(*, now: dt.datetime | None = None) -> int:
    """Forget the held names whose period is over; returns how many."""
    deleted, _ = HeldName.objects.filter(until__lte=now or timezone.now()).delete()
    return deleted


def account_delete(*, user: Any, password: str) -> User:
    """The signed-in player deletes their account, the password confirming it
    (a session left open on a shared computer is not enough): 400
    ``bad_password`` if it does not match."""
    account = _check_own_account(user)
    if not isinstance(password, str) or not account.check_password(password):
        raise Invalid("bad_password", "That is not this account's password.")
    return account_anonymise(user=account)


def account_export(*, user: Any) -> dict[str, Any]:
    """Everything we hold about the signed-in player, as one JSON document: the
    account (not the password hash), its settings, and each app's section
    (``export_requested``). Only ever the player's own: no argument names
    another."""
    account = _check_own_account(user)
    document: dict[str, Any] = {
        "version": EXPORT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "account": {
            "id": account.pk,
            "username": account.get_username(),
            "email": account.email,
            "email_verified": account.email_verified,
            "first_name": account.first_name,
            "last_name": account.last_name,
            "date_joined": account.date_joined.isoformat(),
            "last_login": account.last_login.isoformat() if account.last_login else None,
            "is_staff": account.is_staff,
        },
        "settings": {name: getattr(account, name) for name in SETTINGS},
        "reminders": reminders_export(user=account),
    }
    for _receiver, sections in export_requested.send(sender=User, user=account):
        document.update(sections or {})
    return document
