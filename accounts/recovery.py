"""Keeping an account (issue 28): an optional email, verified by a link; a
password reset by email; a password change; "sign out everywhere".

Why Django's own machinery behind our API, not django-allauth headless: our
doors are a session + CSRF JSON API with a look-alike name rule (accounts/names.py),
a per-account sign-in budget and the hashing threads (accounts/signin.py);
allauth brings its own flows, forms, rate limits and models beside ours, to be
reconciled with each. What the feature needs from a library is the tokens:

- **Reset**: ``default_token_generator`` — an HMAC of the user's id, password
  hash, last sign-in, email and a timestamp. Single-use because setting the
  password changes its hash; expiring after ``PASSWORD_RESET_TIMEOUT``; bound to
  the account of its ``uid`` (another uid's hash differs).
- **Verification**: ``django.core.signing``, the account's id and the address,
  expiring after ``EMAIL_VERIFY_TIMEOUT``; it verifies only the address it was
  sent to (a changed address makes the old link void).
- **Sign out everywhere**: ``User.session_generation`` in the session hash
  (accounts/models.py), which Django checks on every request.

A session is not the account (issue 37): a moment at an unlocked browser must
not keep it for good. So what recovers the account — its email, its password —
changes only with the current password, and each change (a sign-in from a
browser new to the account too, ``SIGNIN_NOTICES``) is told to the address that
was verified when it happened, with a "this wasn't me" link
(``account_secure``): it puts that address back, confirmed, makes the password
unusable, ends every session and socket, and answers a reset token so its
follower chooses a new password at once. The link is signed
(``accounts/tokens.py``), expires after ``ACCOUNT_SECURE_TIMEOUT`` and works
once: ``User.secured_at`` voids every link issued before it. It does not depend
on the password, so an intruder who changes the password next cannot void it.
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode

from kit.commits import queue_on_commit
from kit.errors import Conflict, Invalid

from .mail import mail_account_notice, mail_email_verification, mail_password_reset_for
from .models import User
from .names import username_skeleton
from .tokens import SECURE_SALT, VERIFY_SALT, reset_token, reset_uid

EMAIL_MAX = 254


def normalized_email(email: str) -> str:
    """``email`` trimmed, its domain lower-cased, if it is an address; else 400
    ``bad_email``. Empty: no email."""
    email = email.strip()
    if not email:
        return ""
    try:
        validate_email(email)
    except ValidationError:
        raise Invalid("bad_email", "That is not an email address.") from None
    if len(email) > EMAIL_MAX:
        raise Invalid("bad_email", f"An email address has at most {EMAIL_MAX} characters.")
    local, _, domain = email.rpartition("@")
    return f"{local}@{domain.lower()}"


def email_set(*, user: User, email: str) -> User:
    """Give the account ``email`` (or none, for ``""``), unverified until the link
    mailed to it is followed; the old address no longer receives resets. Whether
    another account verified it is not said here (that would tell who uses it):
    verifying it is refused then."""
    email = normalized_email(email)
    if email.lower() == user.email.lower() and user.email_verified:
        return user
    user.email = email
    user.email_verified = False
    user.save(update_fields=["email", "email_verified"])
    if email:
        user_id = user.pk
        queue_on_commit(mail_email_verification, user_id, email)
    return user


def _check_current_password(user: User, password: str, field: str) -> None:
    if not user.check_password(password):
        raise Invalid("bad_password", "The current password is not right.", params={"field": field})


def _notice(user: User, what: str, *, address: str, detail: str = "") -> None:
    """Once committed, mail ``address`` (the verified email when ``what``
    happened) a notice of it with a "this wasn't me" link (``account_secure``)."""
    user_id, issued = user.pk, time.time()
    queue_on_commit(mail_account_notice, user_id, address, what, issued, detail)


def email_change(*, user: User, email: str, password: str) -> User:
    """The signed-in ``user`` sets, changes or removes (``""``) their email; the
    current ``password`` confirms it (400 ``bad_password``): a borrowed session
    cannot move the account's recovery to another mailbox. The address verified
    before, if it changes, gets a notice with a "this wasn't me" link."""
    _check_current_password(user, password, "password")
    before = user.email if user.email_verified else ""
    user = email_set(user=user, email=email)
    if before and before.lower() != user.email.lower():
        _notice(user, "email", address=before, detail=user.email)
    return user


def signin_noticed(*, user: User) -> None:
    """A sign-in to ``user`` from a browser not known to the account: a notice
    to its verified address, unless ``SIGNIN_NOTICES`` is off."""
    if settings.SIGNIN_NOTICES and user.email and user.email_verified:
        _notice(user, "signin", address=user.email)


def account_secure(*, token: str) -> tuple[User, dict[str, str]]:
    """The "this wasn't me" link of a notice, followed: the address it names
    becomes the account's email again — confirmed, unless another account
    confirmed it meanwhile — the password is made unusable (whoever changed it
    cannot sign in with it), every session ends; returns the account and a
    password reset (``uid``, ``token``) to choose a new password with. 400
    ``bad_token`` for a forged, expired or used link, or a deleted account."""
    try:
        value = signing.loads(token, salt=SECURE_SALT, max_age=settings.ACCOUNT_SECURE_TIMEOUT)
        user_id, email, issued = int(value["u"]), str(value["e"]), float(value["t"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise Invalid("bad_token", "This link is not valid or has expired.") from None
    with transaction.atomic():
        user = (
            User.objects.select_for_update()
            .filter(pk=user_id, is_guest=False, is_active=True)
            .first()
        )
        if user is None:
            raise Invalid("bad_token", "This link is not valid or has expired.")
        if user.secured_at is not None and user.secured_at.timestamp() >= issued:
            raise Invalid("bad_token", "This link was used already: the account is secured.")
        taken = (
            User.objects.filter(email__iexact=email, email_verified=True)
            .exclude(pk=user.pk)
            .exists()
        )
        user.email, user.email_verified = email, not taken
        user.set_unusable_password()  # every session's hash changes: all end
        user.session_generation = F("session_generation") + 1
        user.secured_at = timezone.now()
        user.save(
            update_fields=[
                "email",
                "email_verified",
                "password",
                "session_generation",
                "secured_at",
            ]
        )
        user.refresh_from_db(fields=["session_generation"])
    return user, {"uid": reset_uid(user), "token": reset_token(user)}


def email_verification_resend(*, user: User) -> User:
    """Mail the verification link again to ``user``'s address (the first mail
    lost, or its link expired): 400 ``no_email`` when the account has none, 409
    ``email_verified`` when it is confirmed already. The link is a new one; an
    earlier one still works until it expires (both verify the same address)."""
    if not user.email:
        raise Invalid("no_email", "This account has no email to confirm: save one first.")
    if user.email_verified:
        raise Conflict("email_verified", "This account's email is confirmed already.")
    user_id, email = user.pk, user.email
    queue_on_commit(mail_email_verification, user_id, email)
    return user


def email_verify(*, token: str) -> User:
    """Mark the address the token was sent to verified, if the account still has
    it; 400 ``bad_token`` for a forged, expired or outdated link, 409
    ``email_taken`` when another account verified it first."""
    try:
        value = signing.loads(token, salt=VERIFY_SALT, max_age=settings.EMAIL_VERIFY_TIMEOUT)
        user = User.objects.get(pk=int(value["u"]), is_guest=False)
    except (signing.BadSignature, User.DoesNotExist, KeyError, TypeError, ValueError):
        raise Invalid("bad_token", "This link is not valid or has expired.") from None
    if user.email.lower() != value["e"]:
        raise Invalid("bad_token", "This link is for an address the account no longer has.")
    if not user.email_verified:
        user.email_verified = True
        try:
            with transaction.atomic():
                user.save(update_fields=["email_verified"])
        except IntegrityError:
            raise Conflict(
                "email_taken", "Another account has verified this address already."
            ) from None
    return user


def reset_target_key(target: str) -> str:
    """The per-target budget's key for a name or address as typed: a name's
    look-alike skeleton (``Ada`` and ``АDA`` are one budget), an address
    lower-cased; hashed, so Redis spells neither."""
    folded = target.strip().casefold()
    key = folded if "@" in folded else username_skeleton(folded)
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def password_reset_request(*, target: str) -> None:
    """Mail a reset link to the account ``target`` names, if it has a verified
    address; nothing otherwise, and nothing said either way. Whether it does is
    found out by the task, not here: the request does the same (queues one task)
    whatever exists, so it takes as long either way."""
    queue_on_commit(mail_password_reset_for, target)


def _check_password(password: str, user: User) -> None:
    try:
        password_validation.validate_password(password, user=user)
    except ValidationError as exc:
        raise Invalid("weak_password", " ".join(exc.messages)) from None


def password_reset_confirm(*, uid: str, token: str, password: str) -> User:
    """Set the password of the account ``uid`` names if ``token`` is a reset
    token of it, unused and not expired; every session of it ends (the session
    hash holds the password's). 400 ``bad_token`` otherwise — which of the
    reasons is not said."""
    try:
        user = User.objects.get(pk=int(force_str(urlsafe_base64_decode(uid))), is_guest=False)
    except (User.DoesNotExist, ValueError, TypeError, OverflowError):
        user = None
    if user is None or not default_token_generator.check_token(user, token):
        raise Invalid("bad_token", "This reset link is not valid, used, or has expired.")
    _check_password(password, user)
    user.set_password(password)
    user.save(update_fields=["password"])
    return user


def password_change(*, user: User, old: str, new: str) -> User:
    """Change the password of the signed-in ``user``; ``old`` must be the current
    one (400 ``bad_password``). Other sessions end (the hash changes); the
    caller keeps its own (``update_session_auth_hash``). The verified address
    gets a notice with a "this wasn't me" link."""
    _check_current_password(user, old, "old")
    _check_password(new, user)
    user.set_password(new)
    user.save(update_fields=["password"])
    if user.email and user.email_verified:
        _notice(user, "password", address=user.email)
    return user


def sessions_end_all(*, user: User) -> User:
    """End every session of ``user``, this one too: the next request of each
    finds its session hash out of date (accounts/models.py)."""
    User.objects.filter(pk=user.pk).update(session_generation=F("session_generation") + 1)
    user.refresh_from_db(fields=["session_generation"])
    return user
