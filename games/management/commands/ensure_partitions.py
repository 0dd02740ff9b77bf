"""``manage.py ensure_partitions``: the beat job ``ensure_action_partitions`` on
demand (issue 17; docs/operations.md, "The action log")."""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import connection

from games import partitions


class Command(BaseCommand):
    help = (
        "Create this month's and the next months' partitions of the action log, and move"
        " rows out of its DEFAULT partition (PostgreSQL; idempotent)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        if not partitions.partitioned(connection):
            self.stdout.write(
                "The action log is not partitioned here (not PostgreSQL): nothing to do."
            )
            return
        created = partitions.ensure(connection)
        self.stdout.write(f"created: {', '.join(created) or 'none'}")
        self.stdout.write(
            "partitions: "
            + ", ".join(partitions.partition_name(m) for m in partitions.months(connection))
        )
