"""A day anyone can re-check (issue 27, deliverable 3): once a daily deal's day
is closed, the file of every counted ranked result with its full action list
(``games/engine/dayfile.py`` writes and checks it), stored with its SHA-256,
and the download of it.

The file holds exactly the leaderboard's rows in its order (``ranking.py``),
so ``python -m games.engine verify-day FILE`` re-checks the whole board
offline. It names the deal's code: nothing of it is built or given while the
day runs, to anyone — a winner included (PRODUCT.md, "Fair daily deals").

When a closed day's board changes — staff disqualify or clear a result
(``fairplay.py``), or a late replay check fails one — ``result_changed`` is
sent; ``tasks._rebuild_day_results`` queues :func:`day_results_build` again
for a day already built, and the published hash changes with the file. So
does a player on it deleting their account (issue 37, games/privacy.py): the
file is re-issued naming them as the board does. Each hash replaced is kept
with when and why (``DayResults.earlier``), and the day page lists them: a
hash someone noted before still says which file it was.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import logging
import time
from collections import defaultdict
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.engine import parse_variant
from games.engine.dayfile import write_day
from kit.errors import Conflict, Forbidden, NotFound

from . import afterday
from .dailies import day_over, utc_today
from .models import Action, Attempt, DailyDeal, DayResults
from .ranking import ranked_attempts

log = logging.getLogger(__name__)

RUNNING = (
    "The results file of a day opens when the day is over (00:00 UTC): it names the deal's code."
)


def _results(daily: DailyDeal) -> list[dict[str, Any]] | None:
    """The board's rows with their actions, in the board's order; None when an
    attempt's moves are no longer all in the log (archived: docs/operations.md,
    "The action log") — a file that lies about a result is worse than none."""
    rows = list(ranked_attempts(daily=daily))
    actions: dict[int, list[dict[str, Any]]] = defaultdict(list)
    logged = (
        Action.objects.filter(attempt_id__in=[row.pk for row in rows])
        .order_by("attempt_id", "seq")
        .values_list("attempt_id", "action", "ms")
    )
    for attempt_id, action, ms in logged.iterator(chunk_size=5000):
        actions[attempt_id].append({"action": action, "ms": ms})
    if any(len(actions[row.pk]) != row.seq for row in rows):
        return None
    return [
        {
            "rank": row.rank,  # type: ignore[attr-defined]
            "player": row.player.get_username(),
            "attempt": row.pk,
            "status": row.status,
            "won": row.won,
            "score": row.score,
            "moves": row.moves,
            "elapsed_ms": row.elapsed_ms,
            "finished_at": row.finished_at.isoformat() if row.finished_at else None,
            "actions": actions[row.pk],
        }
        for row in rows
    ]


def day_results_bytes(daily: DailyDeal) -> tuple[bytes, int] | None:
    """The file of ``daily`` as it stands now and how many results it holds;
    None when a result's moves are archived."""
    results = _results(daily)
    if results is None:
        return None
    data = write_day(
        date=daily.date.isoformat(),
        variant=daily.variant,
        code=daily.deal.code,
        par=daily.par,
        results=results,
    )
    return data, len(results)


def _closed(daily: DailyDeal) -> bool:
    """The day is over and none of its ranked games is still playing (as
    ``afterday.days_closed`` asks, for any day however old: a staff decision
    may come later than its week)."""
    return (
        day_over(daily.date)
        and not Attempt.objects.filter(
            daily=daily, ranked=True, status=Attempt.Status.PLAYING
        ).exists()
    )


REISSUE_REASONS = ("changed", "deleted")
"""Why a file was built again: a result on its board changed; a player on it
deleted their account."""


def day_results_build(
    *, daily_id: int, rebuild: bool = False, reason: str = "changed"
) -> DayResults | None:
    """Build and store the results file of a closed day (none for a day that is
    not, or whose moves are archived). Safe to run twice: a day built returns
    at once unless ``rebuild`` or it is due (``DayResults.reissue``, whose
    reason then wins over ``reason``: ``REISSUE_REASONS``). A rebuild that
    makes the same bytes keeps the stored file and its ``built_at``; one that
    does not keeps the replaced hash in ``earlier``. The mark is cleared only
    if no change set it again while the file was being made."""
    daily = DailyDeal.objects.select_related("deal").filter(pk=daily_id).first()
    if daily is None or not _closed(daily):
        return None
    stored = DayResults.objects.filter(daily=daily).defer("data").first()
    due = stored.reissue if stored is not None else ""
    if stored is not None and not (rebuild or due):
        return stored
    built = day_results_bytes(daily)
    if built is None:
        log.warning("results file of %s not built: moves of a result are archived", daily)
        return stored
    data, count = built
    digest = hashlib.sha256(data).hexdigest()
    now = timezone.now()
    with transaction.atomic():
        replaced = DayResults.objects.select_for_update().filter(daily=daily).defer("data").first()
        if replaced is not None and replaced.sha256 == digest:
            if replaced.reissue == due and due:
                replaced.reissue = ""
                replaced.save(update_fields=["reissue"])
            return replaced
        earlier = []
        if replaced is not None:
            why = due.partition(":")[0] or reason
            earlier = [
                *replaced.earlier,
                {
                    "sha256": replaced.sha256,
                    "built_at": replaced.built_at.isoformat(),
                    "replaced_at": now.isoformat(),
                    "reason": why if why in REISSUE_REASONS else "changed",
                },
            ]
        still_due = replaced.reissue if replaced is not None and replaced.reissue != due else ""
        results, _ = DayResults.objects.update_or_create(
            daily=daily,
            defaults={
                "data": gzip.compress(data, mtime=0),
                "sha256": digest,
                "count": count,
                "built_at": now,
                "earlier": earlier,
                "reissue": still_due,
            },
        )
    log.info("results file of %s: %d results, sha256 %s", daily, count, digest)
    return results


def day_results_due(*, daily_ids: list[int], reason: str) -> list[int]:
    """Mark the built files of these dailies due to be built again for
    ``reason`` (``REISSUE_REASONS``); returns the dailies marked. The build is
    queued by the caller and caught up by the hourly after-the-day job."""
    built = DayResults.objects.filter(daily_id__in=daily_ids)
    marked = list(built.values_list("daily_id", flat=True))
    built.update(reissue=f"{reason}:{time.time_ns()}")
    return marked


def day_results_get(*, date: dt.date, variant: str) -> tuple[DayResults, bytes]:
    """The stored file of one closed day and its plain bytes. Refused while the
    day runs (403, to everyone: it holds the code), for a day or variant that
    had no daily (404), while it is not built yet (409), and for a day older
    than the after-the-day job looks back that never had one (404)."""
    variant = parse_variant(variant).id
    if date > utc_today():
        raise NotFound("no_daily", f"The daily deals of {date} are not published yet.")
    if not day_over(date):
        raise Forbidden("day_running", RUNNING)
    daily = DailyDeal.objects.filter(date=date, variant=variant).first()
    if daily is None:
        raise NotFound("no_daily", f"There was no {variant} daily deal on {date}.")
    results = DayResults.objects.filter(daily=daily).select_related("daily").first()
    if results is None and date >= utc_today() - afterday.LOOK_BACK:
        raise Conflict(
            "not_built",
            "This day's results file is not built yet: it is made within the hour after"
            " the day's last games close.",
        )
    if results is None:
        raise NotFound(
            "no_results",
            f"No results file was made for {date}: files are made for the days of the week"
            " before, from the day this feature began.",
        )
    return results, gzip.decompress(results.data)
