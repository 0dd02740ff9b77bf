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
