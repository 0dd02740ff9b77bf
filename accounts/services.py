"""Accounts: sign-up with Django's password validators, and names unique whatever
their case and whatever they look like (a confusable name is refused, naming the
player it looks like: accounts/names.py)."""

from __future__ import annotations

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from config.errors import ApiError

from .models import User
from .names import username_skeleton

USERNAME_MIN = 3
USERNAME_MAX = 30


def user_register(*, username: str, password: str) -> User:
    username = username.strip()
    if not USERNAME_MIN <= len(username) <= USERNAME_MAX:
        raise ApiError(
            400, "bad_username", f"A username has {USERNAME_MIN} to {USERNAME_MAX} characters."
        )
    try:
        User.username_validator(username)
    except ValidationError:
        raise ApiError(
            400, "bad_username", "A username may hold letters, digits and @ . + - _ only."
        ) from None
    if User.objects.filter(username__iexact=username).exists():
        raise ApiError(409, "username_taken", f"The name {username!r} is taken.")
    skeleton = username_skeleton(username)
    refuse_lookalike(username, skeleton)
    candidate = User(username=username)
    try:
        password_validation.validate_password(password, user=candidate)
    except ValidationError as exc:
        raise ApiError(400, "weak_password", " ".join(exc.messages)) from None
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, password=password)
    except IntegrityError:
        # A concurrent sign-up took the name (the case-insensitive constraint) or
        # one that looks like it (the unique skeleton): say which.
        refuse_lookalike(username, skeleton)
        raise ApiError(409, "username_taken", f"The name {username!r} is taken.") from None


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
        raise ApiError(
            400,
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
