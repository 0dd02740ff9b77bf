"""Accounts: sign-up with Django's password validators, and names unique whatever
their case and whatever they look like (a confusable name is refused, naming the
player it looks like: accounts/names.py); guests, the players signed-out
visitors play as, and the job that clears them away."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from kit.errors import Conflict, Forbidden, Invalid

from .models import HeldName, User
from .names import username_skeleton
from .signals import guest_games_expiring, guests_purging

USERNAME_MIN = 3
USERNAME_MAX = 30


def account_required(user: Any, why: str) -> User:
    """``user`` as a signed-in account, or 403 ``account_required`` saying
    ``why``: a guest (a player, but no one's account), no one, or an account
    closed. The one refusal of every account-only feature (issue 40)."""
    if not isinstance(user, User) or user.is_guest or not user.is_active:
        raise Forbidden("account_required", why)
    return user


DELETED_PREFIX = "deleted-"
"""A deleted account's name starts with it (accounts/privacy.py), and no sign-up's may."""

GUEST_PREFIX = "guest-"
"""Guests' names start with it, and no account's may: a guest is never taken
for a player on a page, and signing up names the account anew."""


def _check_new_name(username: str) -> str:
    """``username`` stripped, if an account may take it; else the 4xx that says why."""
    username = username.strip()
    if not USERNAME_MIN <= len(username) <= USERNAME_MAX:
        raise Invalid(
            "bad_username", f"A username has {USERNAME_MIN} to {USERNAME_MAX} characters."
        )
    try:
        User.username_validator(username)
    except ValidationError:
        raise Invalid(
            "bad_username", "A username may hold letters, digits and @ . + - _ only."
        ) from None
    if username.lower().startswith(GUEST_PREFIX):
        raise Invalid("bad_username", f"Names starting with {GUEST_PREFIX!r} are kept for guests.")
    if username.lower().startswith(DELETED_PREFIX):
        raise Invalid(
            "bad_username", f"Names starting with {DELETED_PREFIX!r} are kept for deleted accounts."
        )
    if User.objects.filter(username__iexact=username).exists():
        raise Conflict("username_taken", f"The name {username!r} is taken.")
    skeleton = username_skeleton(username)
    refuse_lookalike(username, skeleton)
    # The name in any case too: the skeleton of ``ALICE`` is not that of ``alice``.
    skeletons = {skeleton, username_skeleton(username.casefold())}
    held = HeldName.objects.filter(skeleton__in=skeletons, until__gt=timezone.now()).first()
    if held is not None:  # a deleted account's, or one like it (accounts/privacy.py)
        until = held.until.date().isoformat()
        raise Conflict(
            "username_held",
            f"The name {username!r} belonged to a deleted account: it is held until {until}.",
            params={"until": until},
        )
    return username


def user_register(*, username: str, password: str, guest: User | None = None) -> User:
    """A new account. Signed up from a guest's session (``guest``), the guest
    becomes the account — the same row, so its games, the daily attempts among
    them, are the account's as they were played: same clock, same check, same
    review (issue 24). The caller announces the claim (``guest_claimed``)."""
    username = _check_new_name(username)
    try:
        password_validation.validate_password(password, user=User(username=username))
    except ValidationError as exc:
        raise Invalid("weak_password", " ".join(exc.messages)) from None
    try:
        with transaction.atomic():
            if guest is None:
                return User.objects.create_user(username=username, password=password)
            guest.username = username
            guest.username_skeleton = username_skeleton(username)
            guest.is_guest = False
            guest.set_password(password)
            guest.save(update_fields=["username", "username_skeleton", "is_guest", "password"])
            return guest
    except IntegrityError:
        # A concurrent sign-up took the name (the case-insensitive constraint) or
        # one that looks like it (the unique skeleton): say which.
        refuse_lookalike(username, username_skeleton(username))
        raise Conflict("username_taken", f"The name {username!r} is taken.") from None


def guest_create() -> User:
    """A guest: the player a signed-out visitor plays as, bound to their session
    (issue 24). It has no usable password — the session is its only key — and a
    name no account can take (``GUEST_PREFIX``). Every rule holds for it as for
    an account (rate limits, the spoiler rule, the review); its daily results are
    on no board until an account claims them."""
    while True:
        name = f"{GUEST_PREFIX}{secrets.token_hex(6)}"
        try:
            with transaction.atomic():
                return User.objects.create_user(username=name, password=None, is_guest=True)
        except IntegrityError:  # 2^48 names: a clash is all but impossible, still not an error
            continue


PURGE_BATCH = 500
"""Guests deleted by one run at most (each takes its games and their action
log with it): a run stays short; the next takes the rest."""


def guests_purge(*, idle: dt.timedelta, now: dt.datetime | None = None) -> int:
    """Delete the guests nobody can play as any more: made, and last playing
    (their games' last change), longer than ``idle`` ago — longer than a session
    lives, so no browser holds one. Their games go with them (none is on a
    board). Returns how many guests were deleted."""
    cutoff = (now or timezone.now()) - idle
    idle_guests = (
        User.objects.filter(is_guest=True, date_joined__lt=cutoff)
        .annotate(last_played=Max("attempts__updated_at"))
        .filter(Q(last_played__isnull=True) | Q(last_played__lt=cutoff))
    )
    ids = list(idle_guests.values_list("pk", flat=True)[:PURGE_BATCH])
    if not ids:
        return 0
    with transaction.atomic():
        # Locked: a guest signing up meanwhile (``user_register``) waits, and one
        # that did already is no guest any more and stays, with its games.
        locked = User.objects.select_for_update().filter(pk__in=ids, is_guest=True)
        ids = list(locked.order_by("pk").values_list("pk", flat=True))
        if not ids:
            return 0
        guests_purging.send(sender=User, guest_ids=ids)
        User.objects.filter(pk__in=ids, is_guest=True).delete()
    return len(ids)


GUEST_GAMES_BATCH = 1000
"""Guests' old games deleted in one transaction at most (each with its action log)."""
GUEST_GAMES_BATCHES = 20
"""Batches one run deletes at most: 20,000 games an hourly run; the next takes the rest."""


def guest_games_purge(*, older: dt.timedelta, now: dt.datetime | None = None) -> int:
    """Delete the guests' practice games that ended longer than ``older`` ago
    (issue 38), the guests staying: a guest farm's games do not wait the
    guests' ``GUEST_IDLE_DAYS``. A guest's dailies stay until an account claims
    them or the guest is purged (PRODUCT.md, anti-cheat); so do its games going
    on or ended since. Returns how many games were deleted. Safe to run twice."""
    cutoff = (now or timezone.now()) - older
    total = 0
    for _batch in range(GUEST_GAMES_BATCHES):
        answers = guest_games_expiring.send(
            sender=User, ended_before=cutoff, batch=GUEST_GAMES_BATCH
        )
        deleted = sum(int(said or 0) for _receiver, said in answers)
        total += deleted
        if deleted < GUEST_GAMES_BATCH:
            break
    return total


def lookalike(username: str, skeleton: str, *, exclude: int | None = None) -> str | None:
    """The name of an existing player (other than the account ``exclude``) that
    looks like ``username`` — not merely the same name in another case: that one
    is taken, which the case-insensitive constraint says."""
    existing = User.objects.filter(username_skeleton=skeleton).exclude(pk=exclude)
    for other in existing.values_list("username", flat=True):
        if other.lower() != username.lower():
            return other
    return None


def confusable_message(username: str, other: str) -> str:
    return f"{username!r} looks like the existing player \u201c{other}\u201d: choose another name."


def refuse_lookalike(username: str, skeleton: str) -> None:
    """400 ``username_confusable`` naming the existing player whose name looks
    like ``username``."""
    other = lookalike(username, skeleton)
    if other is not None:
        raise Invalid(
            "username_confusable",
            confusable_message(username, other),
            params={"existing": other},
        )


SETTINGS = (
    "language",
    "double_click",
    "interactive_rules",
    "theme",
    "deck",
    "sounds",
    "motion",
    "tap",
)


def user_settings(user: User) -> dict[str, object]:
    return {name: getattr(user, name) for name in SETTINGS}


def user_update_settings(
    *,
    user: User,
    language: str | None = None,
    double_click: bool | None = None,
    interactive_rules: bool | None = None,
    theme: str | None = None,
    deck: str | None = None,
    sounds: bool | None = None,
    motion: str | None = None,
    tap: str | None = None,
) -> User:
    """Change the client settings stored with the account; None leaves one as it is.
    The values are already checked (the API's serializer): all are saved or none."""
    given = {
        "language": language,
        "double_click": double_click,
        "interactive_rules": interactive_rules,
        "theme": theme,
        "deck": deck,
        "sounds": sounds,
        "motion": motion,
        "tap": tap,
    }
    changed = {name: value for name, value in given.items() if value is not None}
    for name, value in changed.items():
        setattr(user, name, value)
    if changed:
        user.save(update_fields=list(changed))
    return user
