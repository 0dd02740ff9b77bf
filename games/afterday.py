"""After the day (issue 27): what is worked out once a daily deal's day is over
and every ranked game of it is closed — where each lost game went wrong, how
hard the day was, the file anyone can re-check its board with.

Nothing here is shown while a day runs: each piece is computed only for a day
``days_closed`` returns, and each reader checks ``day_over`` again. Each piece
is idempotent and stores what it found; ``games.tasks.after_the_day`` (beat,
hourly) queues them for the days closed in the last ``LOOK_BACK`` days, so a
piece that failed, or a worker that was down, catches up within the hour.
"""

from __future__ import annotations

import datetime as dt

from .dailies import utc_today
from .models import Attempt, DailyDeal

LOOK_BACK = dt.timedelta(days=7)
"""How far back the hourly job looks for days whose after-the-day work is not done."""


def days_closed(*, within: dt.timedelta = LOOK_BACK) -> list[DailyDeal]:
    """The daily deals whose day is over (before today, UTC), at most ``within``
    ago, none of whose ranked attempts is still playing (``close_stale_attempts``
    closes them within the hour after midnight: a day waits for it)."""
    today = utc_today()
    open_days = Attempt.objects.filter(
        ranked=True, status=Attempt.Status.PLAYING, daily__date__lt=today
    ).values("daily_id")
    return list(
        DailyDeal.objects.filter(date__lt=today, date__gte=today - within)
        .exclude(pk__in=open_days)
        .select_related("deal")
        .order_by("date", "variant")
    )
