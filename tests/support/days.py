"""Days as the dailies and the archive count them: today (UTC), a month's key
(``?month=YYYY-MM``), and ranked dailies won on past days, stored through the
browser tests' server (``server.python``) as the ranked games would have left
them."""

from __future__ import annotations

import datetime as dt
from typing import Any


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def month_of(day: dt.date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def won_days_ago(server: Any, name: str, days: list[int], variant: str = "SH1-C4") -> None:
    """``name`` won the ranked daily of ``variant`` on each of ``days`` days ago."""
    server.python(
        "import datetime as dt\n"
        "from django.utils import timezone\n"
        "from accounts.models import User\n"
        "from games.dailies import daily_deal_get, utc_today\n"
        "from games.models import Attempt\n"
        "from games.services import _create_attempt\n"
        f"user = User.objects.get(username={name!r})\n"
        f"for n in {days!r}:\n"
        "    date = utc_today() - dt.timedelta(days=n)\n"
        f"    daily = daily_deal_get(date=date, variant={variant!r})\n"
        "    a = _create_attempt(player=user, deal=daily.deal, daily=daily, ranked=True)\n"
        "    Attempt.objects.filter(pk=a.pk).update(status='won', won=True, verified=True,"
        " score=500, moves=90, elapsed_ms=90_000, finished_at=timezone.now())"
    )
