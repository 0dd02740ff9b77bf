"""The tokens the account mails carry (accounts/recovery.py says why these)."""

from __future__ import annotations

from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from .models import User

VERIFY_SALT = "accounts.recovery.email_verify"


def email_verify_token(*, user_id: int, email: str) -> str:
    """A signed, timestamped token naming the account and the address it verifies."""
    return signing.dumps({"u": user_id, "e": email.lower()}, salt=VERIFY_SALT, compress=True)


def reset_uid(user: User) -> str:
    return urlsafe_base64_encode(force_bytes(user.pk))


def reset_token(user: User) -> str:
    return default_token_generator.make_token(user)


SECURE_SALT = "accounts.recovery.account_secure"


def secure_token(*, user_id: int, email: str, issued: float) -> str:
    """The "this wasn't me" link of a notice (issue 37): signed, naming the account,
    the verified address to put back, and when it was issued (a link issued
    before the account was last secured is void: ``User.secured_at``)."""
    return signing.dumps({"u": user_id, "e": email, "t": issued}, salt=SECURE_SALT, compress=True)
