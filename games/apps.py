from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.db import connections
from django.db.models.signals import post_migrate, pre_migrate

from . import partitions


def _ensure_partitions(sender: AppConfig, *, using: str, **kwargs: Any) -> None:
    """Every ``migrate`` (compose's web start, the Kubernetes job, ``make stack``,
    a fresh clone) leaves the action log's months ahead made, whatever beat did
    (games/partitions.py; nothing on SQLite)."""
    partitions.ensure(connections[using])


def _unbounded_migrations(sender: AppConfig, *, using: str, **kwargs: Any) -> None:
    """A migration may rewrite a table or wait for a lock for long: no statement
    or lock limit on ``migrate``'s own session (the limits of issue 25 are for
    requests and jobs; ``_database_bounds`` puts them back at the end)."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0; SET lock_timeout = 0")


def _database_bounds(sender: AppConfig, *, using: str, **kwargs: Any) -> None:
    """Make ``DB_STATEMENT_TIMEOUT`` and ``DB_LOCK_TIMEOUT`` the defaults of this
    role in this database (issue 25). A direct connection carries them in its
    start-up options already; through PgBouncer, which refuses those options and
    gives a transaction whichever server connection is free, a default of the
    role its server connections log in as is the one way they hold on every
    path. Ordinary roles may set their own defaults (PostgreSQL's ALTER ROLE)."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        database = connection.ops.quote_name(connection.settings_dict["NAME"])
        for name, ms in (
            ("statement_timeout", settings.DB_STATEMENT_TIMEOUT_MS),
            ("lock_timeout", settings.DB_LOCK_TIMEOUT_MS),
        ):
            cursor.execute(f"ALTER ROLE CURRENT_USER IN DATABASE {database} SET {name} = {ms:d}")
        cursor.execute("RESET statement_timeout; RESET lock_timeout")


def _export_games(sender: type, *, user: Any, **kwargs: Any) -> dict[str, Any]:
    """A player takes their data (issue 28): the games section of the export."""
    from .privacy import player_export

    return player_export(user=user)


def _claim_guest(sender: type, *, guest: Any, account: Any, **kwargs: Any) -> dict[str, Any]:
    """A guest signed up or in: its games become the account's (issue 24). Run in
    the request that signed in, whose answer says what was claimed."""
    from .services import attempts_claim

    return attempts_claim(guest=guest, account=account)


def _forget_player(sender: type, *, user: Any, former: str, **kwargs: Any) -> None:
    """A deleted account (issue 37): its former name out of the reviews, and the
    results files that named it re-issued once the deletion is committed."""
    from .privacy import player_forget
    from .tasks import reissue_day_results

    reissue_day_results(daily_ids=player_forget(user=user, former=former))


def _expire_guest_games(sender: type, *, ended_before: Any, batch: int, **kwargs: Any) -> int:
    """The guests' old practice games go, the guests staying (issue 38)."""
    from .services import attempts_of_guests_expire

    return attempts_of_guests_expire(ended_before=ended_before, batch=batch)


def _purge_guests(sender: type, *, guest_ids: list[int], **kwargs: Any) -> None:
    """The guest purge deletes idle guests: their games first (issue 28)."""
    from .services import attempts_of_guests_delete

    attempts_of_guests_delete(guest_ids=guest_ids)


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        from accounts.privacy import account_deleted, export_requested
        from accounts.signals import guest_claimed, guest_games_expiring, guests_purging

        # The engine's errors said as the kit's refusals, for every door.
        # The jobs, registered: the services queue them by name (games/followups.py).
        from . import (
            errors,  # noqa: F401
            tasks,  # noqa: F401
        )

        guest_claimed.connect(_claim_guest, dispatch_uid="games.claim_guest")
        export_requested.connect(_export_games, dispatch_uid="games.export")
        account_deleted.connect(_forget_player, dispatch_uid="games.forget_player")
        guests_purging.connect(_purge_guests, dispatch_uid="games.purge_guests")
        guest_games_expiring.connect(_expire_guest_games, dispatch_uid="games.expire_guest_games")

        post_migrate.connect(_ensure_partitions, sender=self, dispatch_uid="games.partitions")
        pre_migrate.connect(_unbounded_migrations, sender=self, dispatch_uid="games.unbounded")
        post_migrate.connect(_database_bounds, sender=self, dispatch_uid="games.bounds")
