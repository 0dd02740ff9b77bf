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


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        # The jobs' receivers of the services' signals (games/signals.py).
        from . import tasks  # noqa: F401

        post_migrate.connect(_ensure_partitions, sender=self, dispatch_uid="games.partitions")
