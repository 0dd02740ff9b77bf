from typing import Any

from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate

from . import partitions


def _ensure_partitions(sender: AppConfig, *, using: str, **kwargs: Any) -> None:
    """Every ``migrate`` (compose's web start, the Kubernetes job, ``make stack``,
    a fresh clone) leaves the action log's months ahead made, whatever beat did
    (games/partitions.py; nothing on SQLite)."""
    partitions.ensure(connections[using])


def _claim_guest(sender: type, *, guest: Any, account: Any, **kwargs: Any) -> dict[str, Any]:
    """A guest signed up or in: its games become the account's (issue 24). Run in
    the request that signed in, whose answer says what was claimed."""
    from .services import attempts_claim

    return attempts_claim(guest=guest, account=account)


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        from accounts.signals import guest_claimed

        # The jobs' receivers of the services' signals (games/signals.py).
        from . import tasks  # noqa: F401

        guest_claimed.connect(_claim_guest, dispatch_uid="games.claim_guest")

        post_migrate.connect(_ensure_partitions, sender=self, dispatch_uid="games.partitions")
