"""The race rating's jobs (Celery; issue 29): a race's end is rated as a job that
runs again when the database does not answer in time (``DATABASE_RETRY``), and a
periodic sweep rates a finished race its end never rated (a lost message, a
process gone between the end's commit and the queue, retries spent). The
schedule is ``CELERY_BEAT_SCHEDULE`` in ``config/settings.py``; the receiver at
the end of this module is connected when the app is ready (``leaderboard/apps.py``)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any

from celery import shared_task
from django.dispatch import receiver
from django.utils import timezone

from games.tasks import DATABASE_RETRY
from kit.commits import queue_on_commit
from races.signals import race_finished

from .ratings import race_rate, races_unrated

log = logging.getLogger(__name__)

SWEEP_DAYS = 7
"""How far back the sweep looks for a race left unrated: far beyond the retries'
half hour and a beat down for a day or two, near enough to stay a small query."""


@shared_task(**DATABASE_RETRY)
def rate_race(race_id: int, standings: Sequence[Any], variant: str) -> int:
    """Rate a finished race (``ratings.race_rate``) from its announced standings;
    a race rated already changes nothing. Returns how many racers it rated."""
    return len(race_rate(race_id=race_id, standings=standings, variant=variant))


@shared_task
def rate_unrated_races() -> int:
    """Queue the rating of each race finished in the last ``SWEEP_DAYS`` that is
    not rated yet: a safety net, the rating itself is idempotent. Returns how
    many were queued."""
    since = timezone.now() - dt.timedelta(days=SWEEP_DAYS)
    unrated = races_unrated(since=since)
    for race_id, standings, variant in unrated:
        rate_race.delay(race_id, standings, variant)
    if unrated:
        log.info("queued the rating of %d unrated races", len(unrated))
    return len(unrated)


# --- what the race services announce (races/signals.py) ------------------------------------


@receiver(race_finished, dispatch_uid="leaderboard.tasks.rate_finished")
def _rate_finished(
    sender: Any, *, race_id: int, standings: Sequence[Any], variant: str, **kwargs: Any
) -> None:
    """A race ended (sent after commit): its rating, queued; a broker that does
    not answer is a warning (the sweep rates the race later)."""
    queue_on_commit(rate_race, race_id, list(standings), variant)
