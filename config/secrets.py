"""The secrets' checks (issue 25: nothing guessable anywhere) and a debug run's
made secrets, for ``config/settings.py``, which alone reads the environment and
passes the values here: ``SECRET_KEY`` and ``DAILY_DEAL_SECRET`` long, random and
no placeholder; the VAPID key pair a pair; a debug run's secrets random, made
once per install and kept in ``.local/secrets.env`` (0600)."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

# The secrets, at least this long (SECRET_KEY: Django's own deploy check asks 50)
# and not a placeholder. Nothing guessable anywhere (issue 25): a constant debug
# key let anyone compute a debug instance's dailies from their commitments.
SECRET_MIN_LENGTH = {"SECRET_KEY": 50, "SECRET_KEY_FALLBACKS": 50, "DAILY_DEAL_SECRET": 32}
_PLACEHOLDER = re.compile(
    r"change.?me|replace.?me|example|placeholder|insecure|development|debug|dummy|default"
    r"|not.?secret|secret.?key|your.?secret|build.?only",
    re.IGNORECASE,
)


def secret_problem(name: str, value: str) -> str | None:
    """Why ``value`` will not do as the production ``name``, or None."""
    if _PLACEHOLDER.search(value):
        return f"{name} is a placeholder: set a random value (e.g. {SECRET_ADVICE})."
    if len(value) < SECRET_MIN_LENGTH[name] or len(set(value)) < 10:
        return (
            f"{name} is too short or too plain: at least {SECRET_MIN_LENGTH[name]} random "
            f"characters (e.g. {SECRET_ADVICE})."
        )
    return None


SECRET_ADVICE = "python -c 'import secrets; print(secrets.token_urlsafe(50))'"


def local_secrets(
    path: Path, names: list[str], make: Callable[[], dict[str, str]] | None = None
) -> dict[str, str]:
    """A debug run's secrets: random ones made once per install, kept in ``path``
    (``.local/secrets.env``, git- and docker-ignored, 0600) and read on later runs.
    ``make`` makes the ones that must be made together (a key pair), by name."""
    values: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() and value.strip():  # all kept: another call's secrets stay in the file
                values[key.strip()] = value.strip()
    if all(name in values for name in names):
        return {name: values[name] for name in names}
    made = make() if make else {}
    values.update({n: made.get(n) or secrets.token_urlsafe(50) for n in names if n not in values})
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        draft = path.with_name(f"{path.name}.{os.getpid()}")
        with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write("".join(f"{name}={value}\n" for name, value in values.items()))
        os.replace(draft, path)
    except OSError as exc:
        raise ImproperlyConfigured(
            f"Set {' and '.join(names)}: a debug run could not keep random ones in {path} ({exc})."
        ) from None
    return {name: values[name] for name in names}


def vapid_pair() -> dict[str, str]:
    """A new VAPID key pair, as the settings take it."""
    from base64 import urlsafe_b64encode

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    private = key.private_numbers().private_value.to_bytes(32, "big")
    return {
        "VAPID_PUBLIC_KEY": urlsafe_b64encode(public).rstrip(b"=").decode(),
        "VAPID_PRIVATE_KEY": urlsafe_b64encode(private).rstrip(b"=").decode(),
    }


def vapid_problem(public: str, private: str) -> str | None:
    """Why the pair will not do, or None: both base64url, the private key's
    public half the public key given."""
    from base64 import urlsafe_b64decode

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        raw = urlsafe_b64decode(private + "=" * (-len(private) % 4))
        key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
        derived = key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        given = urlsafe_b64decode(public + "=" * (-len(public) % 4))
    except ValueError:
        return "VAPID_PRIVATE_KEY and VAPID_PUBLIC_KEY must be base64url keys of P-256."
    if len(raw) != 32 or derived != given:
        return "VAPID_PUBLIC_KEY is not the public half of VAPID_PRIVATE_KEY."
    return None
