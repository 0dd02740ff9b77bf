"""``manage.py judge_knowledge``: what the player knew (games/knowledge.py) on demand —
for chosen attempts, or every ranked result of a day's Easy Harp daily that would
rank (docs/operations.md, "Fair-play review"). Where tasks run in-process
(``FAIRPLAY_KNEW`` off) this is how the test is run at all."""

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import knowledge
from games.models import Attempt


class Command(BaseCommand):
    help = "Test finished ranked Easy Harp results for hidden knowledge and store the verdict."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("attempts", nargs="*", type=int, help="attempt ids")
        parser.add_argument("--date", help="every finished ranked result of this day (YYYY-MM-DD)")

    def handle(self, *args: Any, **options: Any) -> None:
        ids: list[int] = list(options["attempts"])
        if options["date"]:
            try:
                day = dt.date.fromisoformat(options["date"])
            except ValueError:
                raise CommandError(
                    f"--date: not a date (YYYY-MM-DD): {options['date']!r}"
                ) from None
            ids += (
                Attempt.objects.filter(daily__date=day, ranked=True)
                .exclude(status=Attempt.Status.PLAYING)
                .order_by("pk")
                .values_list("pk", flat=True)
            )
        if not ids:
            raise CommandError("Name attempt ids or a --date.")
        for attempt_id in ids:
            review = knowledge.attempt_knowledge(attempt_id=attempt_id)
            if review is None:
                self.stdout.write(f"#{attempt_id}: nothing to judge")
                continue
            verdict = review.signals["knew"]
            self.stdout.write(
                f"#{attempt_id}: {'FLAGGED' if verdict['flagged'] else 'not flagged'}, "
                f"evidence {verdict['evidence']:.1f}, solver line {verdict['line_share']:.0%}"
                f"{': ' + verdict['reason'] if verdict['flagged'] else ''}"
            )
