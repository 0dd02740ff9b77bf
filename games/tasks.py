"""Background jobs (Celery). Each takes ids, calls one service and is safe to run
twice; the schedule of the periodic ones is ``CELERY_BEAT_SCHEDULE`` in
``config/schedule.py``. The services ask for jobs by name, with the change that
sets them off (``games/followups.py``, ``games/proofs.py``): the names are
these tasks' own."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.db import OperationalError, connection
from django.utils import timezone

from games.engine import ALL_VARIANTS
from kit.commits import Followups

from . import (
    afterday,
    analysis,
    dailies,
    dayfile,
    difficulty,
    fairplay,
    knowledge,
    partitions,
    practice,
    privacy,
    proofs,
    services,
)
from .models import Attempt, DayResults

log = logging.getLogger(__name__)


DATABASE_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": 5,
    "retry_backoff_max": 300,
    "retry_jitter": True,
    "max_retries": 10,
}
"""The jobs of one attempt run again when the database did not answer in time
(a stall, a lock held past ``DB_LOCK_TIMEOUT``, PgBouncer's ``query_wait_timeout``:
docs/operations.md, "Bounded waits"): 5 s, 10 s, … up to 5 min apart, about half
an hour in all. Each is idempotent, so a second run changes nothing twice; the
periodic jobs catch up what still fails after that."""


@shared_task
def prepare_daily_deals(start: str | None = None, days: int = dailies.DAYS_AHEAD) -> int:
    """Queue the daily deal of each variant of ``start`` (ISO date; default today)
    and the following days, one task each (``prepare_daily_deal``; a day already
    stored returns at once). One task a deal keeps every task within a minute or
    so of solver search, under the time limit and so under the broker's
    visibility timeout (``config/settings.py``): a killed worker's deal is taken
    up again within minutes, never while it still runs. Returns how many."""
    first = dt.date.fromisoformat(start) if start else dailies.utc_today()
    queued = 0
    for offset in range(days):
        for variant in ALL_VARIANTS:
            prepare_daily_deal.delay((first + dt.timedelta(days=offset)).isoformat(), variant)
            queued += 1
    # The days prepared before predictions existed get theirs (issue 27), one task each.
    for daily_id in difficulty.dailies_unpredicted():
        predict_daily_deal.delay(daily_id)
    return queued


@shared_task
def prepare_daily_deal(date: str, variant: str) -> str:
    """Prove and store the daily deal of ``date`` (ISO) and ``variant`` unless it
    is stored. Returns its commitment (a task's result is stored in the broker:
    it must not hold a key)."""
    daily = dailies.daily_deal_prepare(date=dt.date.fromisoformat(date), variant=variant)
    return dailies.commitment(daily.deal.code)


@shared_task
def fill_practice_pools() -> int:
    """Queue ``fill_practice_pool`` for each variant (one task each: each within
    ``practice.FILL_SECONDS`` of search, under the time limit). Returns how many."""
    for variant in ALL_VARIANTS:
        fill_practice_pool.delay(variant)
    return len(ALL_VARIANTS)


@shared_task
def fill_practice_pool(variant: str, size: int | None = None) -> int:
    """Add proven numbered deals to ``variant``'s practice pool up to ``size``
    (default ``practice.POOL_SIZE``); a full pool returns at once. Returns how
    many were added."""
    return practice.pool_fill(variant=variant, size=size or practice.POOL_SIZE)


@shared_task(**DATABASE_RETRY)
def verify_attempt(attempt_id: int) -> bool | None:
    return services.attempt_verify(attempt_id=attempt_id)


@shared_task(**DATABASE_RETRY)
def review_attempt(attempt_id: int) -> bool | None:
    """Fair-play signals of a finished ranked attempt; returns whether it was
    flagged (None: no such attempt). Flags only: staff decide (games/fairplay.py)."""
    review = fairplay.attempt_review(attempt_id=attempt_id)
    return None if review is None else review.flagged


@shared_task(**DATABASE_RETRY, soft_time_limit=150, time_limit=180)
def judge_knowledge(attempt_id: int) -> bool | None:
    """What the player knew (games/knowledge.py): seconds of solver work per win, on
    the ``fairplay`` queue of its own (``CELERY_TASK_ROUTES``). Returns whether it
    was flagged (None: nothing to judge). Its work is bounded by node budgets
    (``games/engine/knew.py``, at most 10 to 60 s on a busy 2-core machine: see
    docs/fairplay.md); its time limits stay under the broker's visibility timeout
    (``CELERY_VISIBILITY_TIMEOUT``, 210 s), so it is never handed to two workers."""
    review = knowledge.attempt_knowledge(attempt_id=attempt_id)
    return None if review is None else review.flagged


PENDING_GRACE = dt.timedelta(minutes=5)


@shared_task
def verify_pending_attempts() -> int:
    """Queue the replay check again for finished attempts still pending after a
    few minutes (a lost message): a safety net, the check itself is idempotent."""
    pending = Attempt.objects.filter(
        verified__isnull=True, finished_at__lt=timezone.now() - PENDING_GRACE
    ).values_list("pk", flat=True)
    count = 0
    for attempt_id in pending.iterator():
        verify_attempt.delay(attempt_id)
        count += 1
    if count:
        log.info("queued %d pending replay checks again", count)
    return count


@shared_task
def close_stale_attempts() -> int:
    return services.attempts_close_stale()


@shared_task
def ensure_action_partitions() -> list[str]:
    """This month's and the next ``partitions.AHEAD`` months' partitions of the
    action log, and a partition for any month whose rows went to DEFAULT.
    Returns the partitions created (none on SQLite, or when all exist)."""
    created = partitions.ensure(connection)
    if created:
        log.info("action log partitions created: %s", ", ".join(created))
    return created


@shared_task
def purge_old_addresses() -> int:
    """Forget the client addresses and device ids older than
    ``ADDRESS_RETENTION_DAYS`` (games/privacy.py), a batch a run; returns how
    many attempts were purged. Safe to run twice."""
    return privacy.addresses_purge(older_than=dt.timedelta(days=settings.ADDRESS_RETENTION_DAYS))


@shared_task(**DATABASE_RETRY)
def prove_lost(attempt_id: int, seq: int | None = None) -> bool:
    """``seq`` None (as ``proofs.queue_proof`` sends): the position the attempt has now;
    actions from here on queue a proof of their own."""
    return (
        _prove_pending(attempt_id)
        if seq is None
        else services.attempt_prove_lost(attempt_id=attempt_id, seq=seq)
    )


def _prove_pending(attempt_id: int) -> bool:
    """The pending proof of the attempt's position now: its mark cleared first,
    so actions from here on queue a proof of their own."""
    try:
        cache.delete(proofs.proof_key(attempt_id))
    except Exception:  # the key expires by itself (proofs.PROOF_PENDING_S); prove anyway
        log.warning("proof of %s: the cache did not answer", attempt_id)
    return services.attempt_prove_lost(attempt_id=attempt_id)


@shared_task(soft_time_limit=60, time_limit=90)
def prove_lost_each(attempt_ids: list[int]) -> int:
    """Proofs ``proofs.queue_proof`` sent together (``proofs.PROOF_BATCH_MAX`` at most, about a
    second each), each as ``prove_lost`` sends them; a failure is logged and the
    others run (the pending mark expires, a later action asks again). Returns how
    many proved a dead end."""
    proved = 0
    for attempt_id in attempt_ids:
        try:
            proved += _prove_pending(attempt_id)
        except Exception:
            log.warning("proof of %s failed", attempt_id, exc_info=True)
    return proved


@shared_task
def after_the_day() -> int:
    """Queue the after-the-day jobs (``games/afterday.py``, issue 27) of every
    day closed in the last week; each job is idempotent and returns at once
    for a day it has done. Returns how many days."""
    days = afterday.days_closed()
    for daily in days:
        analyse_day.delay(daily.pk)
        build_day_results.delay(daily.pk)
        measure_daily_deal.delay(daily.pk)
    # Files of any day due to be re-issued whose build was lost (games/dayfile.py).
    for daily_id in DayResults.objects.exclude(reissue="").values_list("daily_id", flat=True):
        build_day_results.delay(daily_id, True)
    return len(days)


@shared_task
def analyse_day(daily_id: int) -> int:
    """Queue the post-mortem of each finished game of a closed day not analysed
    yet (``analysis.day_attempts_to_analyse``: none while the day runs), one task
    a game: each within ``analysis.ANALYSIS_SECONDS`` of search, well under the
    time limit. Returns how many were queued."""
    pending = analysis.day_attempts_to_analyse(daily_id=daily_id)
    for attempt_id in pending:
        analyse_attempt.delay(attempt_id)
    return len(pending)


ANALYSIS_PENDING_S = 120
"""At most this long one queued analysis keeps others of its game off the queue
(a lost message must not silence it for good)."""


def queue_analysis(attempt_id: int, *, budget: Callable[[], None] | None = None) -> None:
    """Queue the analysis of a game asked for (``analysis.analysed_on_demand``),
    coalesced: at most one pending per game (a key in the shared cache), however
    often its page asks. ``budget`` is called only when one is about to be
    queued — a page asking again for a pending one spends nothing — and may
    refuse by raising (the door's per-player budget, ``ANALYSIS_RATE``: issue 38),
    before anything is queued. A broker or cache that does not answer is a
    warning: the page asks again."""
    key = f"analysis-pending:{attempt_id}"
    try:
        if cache.get(key) is not None:
            return
    except Exception:
        log.warning("analysis of %s not queued: the cache did not answer", attempt_id)
        return
    if budget is not None:
        budget()
    try:
        if cache.add(key, 1, timeout=ANALYSIS_PENDING_S):
            analyse_attempt.delay(attempt_id)
    except Exception:
        log.warning("analysis of %s not queued: the broker did not answer", attempt_id)


@shared_task(**DATABASE_RETRY)
def analyse_attempt(attempt_id: int) -> bool:
    """Where one finished game went wrong (``analysis.attempt_analyse``):
    whether an analysis is stored (False: a game whose cards a running daily
    deals, one going on, or archived)."""
    return analysis.attempt_analyse(attempt_id=attempt_id) is not None


@shared_task(**DATABASE_RETRY)
def build_day_results(daily_id: int, rebuild: bool = False, reason: str = "changed") -> str | None:
    """The results file of a closed day (``games/dayfile.py``); ``rebuild`` when
    its board changed or a player on it deleted their account (``reason``).
    Returns the file's SHA-256 (None: the day is not closed)."""
    results = dayfile.day_results_build(daily_id=daily_id, rebuild=rebuild, reason=reason)
    return results.sha256 if results else None


@shared_task(**DATABASE_RETRY)
def measure_daily_deal(daily_id: int) -> bool:
    """Measure how hard a day that is over was (``games/difficulty.py``); False
    for a day still running."""
    return difficulty.daily_deal_measure(daily_id=daily_id) is not None


@shared_task
def predict_daily_deal(daily_id: int) -> bool:
    """Predict a proven daily deal's difficulty if it has none (a day prepared
    before there were predictions); a few seconds of solver search."""
    daily = difficulty.daily_deal_predict(daily_id=daily_id)
    return daily is not None and daily.predicted is not None


def reissue_day_results(*, daily_ids: list[int]) -> None:
    """Once committed, build again the files ``day_results_due`` marked (the
    hourly ``after_the_day`` catches up any whose task was lost)."""
    with Followups() as after:
        for daily_id in daily_ids:
            after.queue(build_day_results, daily_id, True)
