"""Which ranked results count and in which order they rank (RULES.md C11): the
one definition, read by the leaderboard (``leaderboard/selectors.py``) and by
the day's results file (``games/dayfile.py``), which must hold exactly the
board's rows in the board's order. It lives with the models, under both, as
imports run one way (``games`` ← ``leaderboard``)."""

from __future__ import annotations

from typing import Any

from django.db.models import F, QuerySet, Window
from django.db.models.functions import Rank

from .models import Attempt, DailyDeal

# Won before not won, then higher score, shorter time, fewer moves, earlier finish (C11).
RANKING = (
    F("won").desc(),
    F("score").desc(),
    F("elapsed_ms").asc(),
    F("moves").asc(),
    F("finished_at").asc(),
)


def counted(**where: Any) -> QuerySet[Attempt]:
    """Ranked results that count, on the board and in a record: finished, not
    disqualified by staff (games/fairplay.py), not failed by the replay check
    (pending ones count, marked), and an account's — a guest's result counts once
    an account claims it (issue 24)."""
    return (
        Attempt.objects.filter(ranked=True, disqualified=False, player__is_guest=False, **where)
        .exclude(status=Attempt.Status.PLAYING)
        .exclude(verified=False)
    )


def ranked_attempts(*, daily: DailyDeal) -> QuerySet[Attempt]:
    """The results of one daily deal that count (``counted``) with their ``rank``."""
    return (
        counted(daily=daily)
        .select_related("player")
        .annotate(rank=Window(Rank(), order_by=RANKING))
        .order_by(*RANKING, "pk")
    )
