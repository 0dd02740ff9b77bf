"""``manage.py detach_partitions --before YYYY-MM``: the retention step of the
action log (issue 17; docs/operations.md, "The action log": dump, then drop)."""

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from games import partitions


class Command(BaseCommand):
    help = (
        "Detach the action log's monthly partitions older than a month (PostgreSQL): each"
        " becomes a plain table to dump to cold storage; --drop removes it instead."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--before", required=True, help="YYYY-MM: months before this one go")
        parser.add_argument("--drop", action="store_true", help="drop them (dump them first!)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            before = dt.date.fromisoformat(options["before"] + "-01")
        except ValueError as exc:
            raise CommandError(f"--before: YYYY-MM expected ({exc})") from exc
        this_month = dt.datetime.now(dt.UTC).date().replace(day=1)
        if before > partitions.add_months(this_month, -1):
            # Last month's games may still be playing (a practice game runs for days).
            raise CommandError("--before: keep at least last month and this month")
        if not partitions.partitioned(connection):
            raise CommandError("The action log is not partitioned here (not PostgreSQL).")
        with transaction.atomic():
            names = partitions.detach(connection, before=before, drop=options["drop"])
        for name in names:
            if options["drop"]:
                self.stdout.write(f"dropped {name}")
            else:
                self.stdout.write(
                    f"detached {name}: pg_dump -Fc -t {name} > {name}.dump, then DROP TABLE {name}"
                )
        if not names:
            self.stdout.write("nothing older than that")
