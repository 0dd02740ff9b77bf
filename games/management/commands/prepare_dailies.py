"""``manage.py prepare_dailies``: the daily-deal job, on demand (issue 5).

``--queue`` (at start: compose's and Kubernetes' migrations, ``deploy/stack.py``,
issue 38): the days' deals are marked being dealt and their preparation queued
for the heavy workers, in a second or two, so nothing heavy holds the service
back; the lobby shows each deal once it is dealt (``games/dailies.py``)."""

import datetime as dt
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.dailies import DAYS_AHEAD, commitment, daily_deals_mark, daily_deals_prepare, day_over


class Command(BaseCommand):
    help = "Choose and prove the daily deals of a day and the days after it (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--date", help="first day, YYYY-MM-DD (default: today, UTC)")
        parser.add_argument("--days", type=int, default=DAYS_AHEAD, help="how many days")
        parser.add_argument(
            "--queue",
            action="store_true",
            help="mark them being dealt and queue their preparation for the workers; return"
            " at once (tasks run in process, without a broker: prepared now)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            start = dt.date.fromisoformat(options["date"]) if options["date"] else None
        except ValueError as exc:
            raise CommandError(f"--date: {exc}") from exc
        if options["days"] < 1:
            raise CommandError("--days must be at least 1")
        if options["queue"] and not settings.CELERY_TASK_ALWAYS_EAGER:
            marked = daily_deals_mark(start=start, days=options["days"])
            # By name: the tasks are an interface above this command (pyproject's layers).
            current_app.send_task(
                "games.tasks.prepare_daily_deals",
                args=(start.isoformat() if start else None, options["days"]),
            )
            self.stdout.write(f"{marked} daily deal(s) being dealt; their preparation is queued")
            return
        for daily in daily_deals_prepare(start=start, days=options["days"]):
            proof = f"par {daily.par}" if daily.proven else "UNPROVEN"
            # A day not over is named by its commitment: its key stays in the database.
            name = daily.deal.code if day_over(daily.date) else commitment(daily.deal.code)[:16]
            self.stdout.write(
                f"{daily.date} {daily.variant:7} {name:33} {proof} "
                f"({daily.tried} candidate(s) tried)"
            )
