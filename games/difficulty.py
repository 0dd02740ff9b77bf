"""How hard a day was (issue 27, "How hard it was"): predicted at preparation,
measured after the day, and the day's outcome histogram.

* **Predicted** (``DailyDeal.predicted``): the engine's statistics of the deal
  and their level (``games/engine/difficulty.py``), stored when the day is
  prepared (``dailies.daily_deal_prepare``) or, for a day prepared before,
  by ``daily_deal_predict``. Counts only — no card, move or position — so it
  is published beside the commitment while the day runs. A day made on demand,
  unproven, has none ("unknown").
* **Measured** (``DailyDeal.measured``): once the day is over, from the
  results that count (``ranking.counted``, as the leaderboard counts them):
  players, win rate, the wins' median time and moves, and a level on the same
  five-step scale; games resigned or abandoned within ``EARLY_MOVES`` moves are
  left out (someone who looked and left did not find the deal hard) and
  counted as ``discounted``.
* **Histogram**: the wins' moves and times in buckets and the losses' share.
  It is an aggregate of exactly the rows the public live leaderboard shows
  (every finisher's won, moves, time and status), so it is shown live too —
  the result card marks the player's own result in it, as Wordle does. Once
  measured, the stored one is shown.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import statistics
from collections.abc import Sequence
from typing import Any

from games.engine import ALL_VARIANTS, GameCode
from games.engine.difficulty import LEVELS
from kit.errors import Invalid

from .dailies import day_over, predicted, utc_today
from .models import Attempt, DailyDeal
from .ranking import counted

log = logging.getLogger(__name__)

EARLY_MOVES = 3
"""A game resigned or abandoned after at most this many moves is not counted
in the measured difficulty: a look at the deal, not an attempt at it."""

MIN_PLAYERS = 5
"""Fewer counted players than this give a win rate but no measured level."""

WIN_RATE_LEVELS = (0.85, 0.65, 0.45, 0.25)
"""The measured level: a win rate of at least 85 % is level 1 (easy), 65 % level
2, 45 % level 3, 25 % level 4, less level 5 (fiendish). Set by hand before any
day was measured; the archive's table of predicted against measured is there to
tune them (and the predicted thresholds) once days have been played."""

MOVE_FACTORS = (1.0, 1.25, 1.5, 2.0, 3.0)
"""The wins' moves histogram: buckets up to par × each factor, then the rest."""

TIME_BUCKETS_MS = (120_000, 300_000, 600_000, 1_200_000, 2_400_000)
"""The wins' time histogram: up to 2, 5, 10, 20 and 40 minutes, then the rest."""

Row = tuple[bool, int, int | None, str]
"""A counted result as the leaderboard shows it: won, moves, ms, status."""


# --- the histogram ---------------------------------------------------------------------


def _buckets(values: Sequence[int], edges: Sequence[int]) -> list[dict[str, int | None]]:
    counts = [0] * (len(edges) + 1)
    for value in values:
        counts[next((i for i, edge in enumerate(edges) if value <= edge), len(edges))] += 1
    return [
        {"up_to": edge, "count": count} for edge, count in zip([*edges, None], counts, strict=True)
    ]


def _rows(daily: DailyDeal) -> list[Row]:
    return list(counted(daily=daily).values_list("won", "moves", "elapsed_ms", "status"))


def histogram(daily: DailyDeal, rows: list[Row] | None = None) -> dict[str, Any]:
    """The day's outcomes so far: the wins' moves (buckets by par) and times, and
    how many resigned or were abandoned."""
    rows = _rows(daily) if rows is None else rows
    wins = [row for row in rows if row[0]]
    moves = [row[1] for row in wins]
    base = daily.par or (int(statistics.median(moves)) if moves else 100)
    edges = sorted({math.ceil(base * factor) for factor in MOVE_FACTORS})
    resigned = sum(row[3] == Attempt.Status.RESIGNED for row in rows if not row[0])
    return {
        "players": len(rows),
        "wins": len(wins),
        "resigned": resigned,
        "abandoned": len(rows) - len(wins) - resigned,
        "loss_share": round(1 - len(wins) / len(rows), 3) if rows else None,
        "moves": _buckets(moves, edges),
        "ms": _buckets([row[2] for row in wins if row[2] is not None], TIME_BUCKETS_MS),
    }


# --- measured --------------------------------------------------------------------------


def measured_level(win_rate: float) -> int:
    """1-5 on the predicted scale (``WIN_RATE_LEVELS``)."""
    return 1 + sum(win_rate < edge for edge in WIN_RATE_LEVELS)


def measure(daily: DailyDeal) -> dict[str, Any]:
    """The day's measured difficulty from its counted results, with its histogram."""
    rows = _rows(daily)
    kept = [row for row in rows if row[0] or row[1] > EARLY_MOVES]
    wins = [row for row in kept if row[0]]
    rate = len(wins) / len(kept) if kept else None
    times = [row[2] for row in wins if row[2] is not None]
    level = measured_level(rate) if rate is not None and len(kept) >= MIN_PLAYERS else None
    return {
        "level": level,
        "name": LEVELS[level - 1] if level else "unknown",
        "players": len(kept),
        "discounted": len(rows) - len(kept),
        "early_moves": EARLY_MOVES,
        "wins": len(wins),
        "win_rate": round(rate, 3) if rate is not None else None,
        "median_ms": int(statistics.median(times)) if times else None,
        "median_moves": int(statistics.median(row[1] for row in wins)) if wins else None,
        "histogram": histogram(daily, rows),
    }


def daily_deal_measure(*, daily_id: int) -> DailyDeal | None:
    """Measure a daily deal whose day is over and store it (again: a result staff
    disqualify later changes it; the hourly job keeps it current for a week).
    None, and nothing stored, for a day still running or a deal not found."""
    daily = DailyDeal.objects.filter(pk=daily_id).first()
    if daily is None or not day_over(daily.date):
        log.warning("daily %s not measured: not found or its day is not over", daily_id)
        return None
    found = measure(daily)
    if found != daily.measured:
        daily.measured = found
        daily.save(update_fields=["measured"])
    return daily


# --- predicted, for the days prepared without it ---------------------------------------


def dailies_unpredicted() -> list[int]:
    """The proven daily deals without a prediction (prepared before there was one)."""
    return list(
        DailyDeal.objects.filter(proven=True, predicted__isnull=True)
        .order_by("-date")
        .values_list("pk", flat=True)
    )


def daily_deal_predict(*, daily_id: int) -> DailyDeal | None:
    """Predict a proven daily deal's difficulty if it has none yet (safe to run
    twice: the row is written only while it has none)."""
    daily = DailyDeal.objects.select_related("deal").filter(pk=daily_id).first()
    if daily is None or not daily.proven or daily.predicted is not None:
        return daily
    found = predicted(code=GameCode.parse(daily.deal.code), variant=daily.variant)
    DailyDeal.objects.filter(pk=daily_id, predicted__isnull=True).update(predicted=found)
    daily.refresh_from_db(fields=["predicted"])
    return daily


# --- what is shown ---------------------------------------------------------------------


def difficulty_json(daily: DailyDeal, *, over: bool) -> dict[str, Any]:
    """An entry's ``difficulty`` in ``/api/daily/{date}/``: the prediction (counts
    only) from the start; the measure once the day is over; the histogram,
    stored once measured, live before (the live leaderboard's rows, counted)."""
    measured = dict(daily.measured) if over and daily.measured else None
    shown = measured.pop("histogram") if measured else histogram(daily)
    return {"predicted": daily.predicted, "measured": measured, "histogram": shown}


def _next_month(month: dt.date) -> dt.date:
    return (month.replace(day=28) + dt.timedelta(days=4)).replace(day=1)


def _levels(block: dict[str, Any] | None) -> dict[str, Any] | None:
    return {"level": block.get("level"), "name": block.get("name")} if block else None


def difficulty_month(*, month: dt.date) -> dict[str, Any]:
    """The archive's table: each daily deal of ``month`` (its first day) whose day
    is over, its predicted and measured levels and the measured win rate. A day
    still running is not listed (its measure does not exist yet)."""
    today = utc_today()
    if month > today:
        raise Invalid("month_out_of_range", f"{month:%Y-%m} has not begun (UTC).")
    days = DailyDeal.objects.filter(date__gte=month, date__lt=min(_next_month(month), today)).only(
        "date", "variant", "predicted", "measured"
    )  # not the proofs
    order = {variant: i for i, variant in enumerate(ALL_VARIANTS)}
    rows = []
    for daily in sorted(days, key=lambda d: (d.date, order.get(d.variant, len(order)))):
        predicted_level = (daily.predicted or {}).get("level")
        measured = daily.measured or {}
        rows.append(
            {
                "date": daily.date.isoformat(),
                "variant": daily.variant,
                "predicted": _levels(daily.predicted),
                "measured": _levels(daily.measured),
                "players": measured.get("players"),
                "win_rate": measured.get("win_rate"),
                "delta": measured["level"] - predicted_level
                if measured.get("level") and predicted_level
                else None,
            }
        )
    return {"month": f"{month:%Y-%m}", "variants": list(ALL_VARIANTS), "days": rows}
