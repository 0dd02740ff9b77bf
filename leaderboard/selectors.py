"""Daily rankings (RULES.md C11) and player records: the one module that decides
which results count and in which order they rank (the live board, ``realtime.py``,
reads them from here)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import connection
from django.db.models import F, QuerySet, Window
from django.db.models.functions import Rank

from accounts.models import User
from games.dailies import utc_today
from games.engine import ALL_VARIANTS, parse_variant
from games.models import Attempt, DailyDeal, counted_attempts
from games.selectors import REPLAYS_CLOSED, Viewer, replay_url, viewer_won_daily
from kit.errors import Invalid, NotFound

PAGE_SIZE = 50

# Won before not won, then higher score, shorter time, fewer moves, earlier finish (C11).
RANKING = (
    F("won").desc(),
    F("score").desc(),
    F("elapsed_ms").asc(),
    F("moves").asc(),
    F("finished_at").asc(),
)


def _counted(**where: Any) -> QuerySet[Attempt]:
    """Ranked results that count, on the board and in a record: the rule is
    ``games.models.counted_attempts`` (a day's measured difficulty counts the same)."""
    return counted_attempts(**where)


def ranked_attempts(*, daily: DailyDeal) -> QuerySet[Attempt]:
    """The results of one daily deal that count (``_counted``) with their ``rank``."""
    return (
        _counted(daily=daily)
        .select_related("player")
        .annotate(rank=Window(Rank(), order_by=RANKING))
        .order_by(*RANKING, "pk")
    )


def viewer_row(attempts: QuerySet[Attempt], *, player_id: int) -> Attempt | None:
    """The viewer's attempt with its rank among *all* rows. (A plain ``.filter()``
    would run before the window function and rank the viewer first.)"""
    sql, params = attempts.values("pk", "player_id", "rank").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT ranked.pk, ranked.rank FROM ({sql}) ranked WHERE ranked.player_id = %s",
            [*params, player_id],
        )
        found = cursor.fetchone()
    if found is None:
        return None
    attempt = Attempt.objects.select_related("player").get(pk=found[0])
    attempt.rank = found[1]  # type: ignore[attr-defined]
    return attempt


def result_json(attempt: Attempt, *, show_replay: bool) -> dict[str, Any]:
    return {
        "rank": attempt.rank,  # type: ignore[attr-defined]
        "player": attempt.player.get_username(),
        "won": attempt.won,
        "score": attempt.score,
        "ms": attempt.elapsed_ms,
        "moves": attempt.moves,
        "status": attempt.status,
        # Checked by replaying its actions (PRODUCT.md); pending until the check has run.
        "verified": attempt.verified is True,
        "pending": attempt.verified is None,
        "replay": replay_url(attempt.pk) if show_replay else None,
    }


def leaderboard_for_day(
    *, date: dt.date, variant: str, viewer: Viewer, page: int = 1
) -> dict[str, Any]:
    variant = parse_variant(variant).id
    if date > utc_today():
        raise NotFound("no_daily", f"There is no daily deal for {date} yet.")
    daily = DailyDeal.objects.filter(date=date, variant=variant).first()
    base = {"date": date.isoformat(), "variant": variant, "page": page, "page_size": PAGE_SIZE}
    attempts = ranked_attempts(daily=daily) if daily else Attempt.objects.none()
    count = attempts.count()
    pages = max(1, -(-count // PAGE_SIZE))
    if page > pages:
        raise NotFound("no_page", f"Page {page} is past the last page ({pages}).")
    if daily is None:
        return {
            **base,
            "count": 0,
            "pages": pages,
            "results": [],
            "me": None,
            "replays_open": False,
            "replays_closed_reason": None,
        }
    # Replays of a daily whose day runs are for those who won it — a resigned
    # player's own too (PRODUCT.md, anti-cheat); replays need a signed-in viewer.
    replays_open = viewer.is_authenticated and (
        date < utc_today() or viewer_won_daily(viewer=viewer, daily=daily)
    )
    start = (page - 1) * PAGE_SIZE
    mine = None
    if viewer.is_authenticated:
        row = viewer_row(attempts, player_id=viewer.pk)
        mine = result_json(row, show_replay=replays_open) if row else None
    return {
        **base,
        "count": count,
        "pages": pages,
        "results": [
            result_json(a, show_replay=replays_open) for a in attempts[start : start + PAGE_SIZE]
        ],
        "me": mine,
        "replays_open": replays_open,
        "replays_closed_reason": None if replays_open else _closed_reason(viewer),
    }


def _closed_reason(viewer: Viewer) -> str:
    if not viewer.is_authenticated:
        return "Sign in to watch replays."
    return REPLAYS_CLOSED


def _streaks(days: list[dt.date]) -> tuple[int, int]:
    """(current, longest) streaks in ``days``, the sorted days on which the
    player won a ranked daily (``counted_results``), in any variant.

    A streak is a run of consecutive UTC days each with at least one such win.
    The current streak is the run that ends today or yesterday: today counts
    once won, and a streak that ended yesterday is not broken until today ends
    (today's deals may still be ahead). The one definition: the player record,
    the lobby and the result card read it from here."""
    longest = run = 0
    previous: dt.date | None = None
    for day in days:
        run = run + 1 if previous and day - previous == dt.timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    current = run if previous and utc_today() - previous <= dt.timedelta(days=1) else 0
    return current, longest


def counted_results(*, user: User) -> QuerySet[Attempt]:
    """The player's ranked results that count in their record and streak: finished,
    not disqualified by staff, not failed by the replay check (pending ones count,
    as on the leaderboard)."""
    return _counted(player=user)


def player_get(*, username: str) -> User | None:
    """The player named ``username`` (any case), or None; never a guest (issue 24:
    guests have no page, no record)."""
    # PostgreSQL text cannot hold NUL (the query would fail); no username has one.
    if "\x00" in username:
        return None
    return User.objects.filter(username__iexact=username, is_guest=False).first()


def player_record(*, username: str) -> dict[str, Any]:
    user = player_get(username=username)
    if user is None:
        raise NotFound("not_found", f"No player {username!r}.")
    finished = counted_results(user=user).select_related("daily")
    # Results staff took off the board count nowhere above; they are listed instead.
    disqualified = [
        {
            "date": a.daily.date.isoformat(),
            "variant": a.daily.variant,
            "reason": getattr(getattr(a, "review", None), "decision_reason", ""),
        }
        for a in Attempt.objects.filter(player=user, ranked=True, disqualified=True)
        .select_related("daily", "review")
        .order_by("daily__date", "daily__variant")
        if a.daily is not None
    ]
    variants: dict[str, dict[str, Any]] = {}
    won_days: set[dt.date] = set()
    for attempt in finished:
        assert attempt.daily is not None  # ranked attempts always have one
        record = variants.setdefault(
            attempt.daily.variant,
            {"played": 0, "won": 0, "win_rate": 0.0, "best_ms": None, "best_score": None},
        )
        record["played"] += 1
        if attempt.won:
            record["won"] += 1
            won_days.add(attempt.daily.date)
            if record["best_ms"] is None or attempt.elapsed_ms < record["best_ms"]:
                record["best_ms"] = attempt.elapsed_ms
        if record["best_score"] is None or attempt.score > record["best_score"]:
            record["best_score"] = attempt.score
    for record in variants.values():
        record["win_rate"] = round(record["won"] / record["played"], 4)
    current, longest = _streaks(sorted(won_days))
    return {
        "username": user.get_username(),
        "joined": user.date_joined.date().isoformat(),
        "played": sum(r["played"] for r in variants.values()),
        "won": sum(r["won"] for r in variants.values()),
        "variants": variants,
        "streak": {"current": current, "longest": longest},
        "disqualified": len(disqualified),
        "disqualifications": disqualified,
    }


# --- the archive's calendar --------------------------------------------------------


def _month_start(day: dt.date) -> dt.date:
    return day.replace(day=1)


def _next_month(month: dt.date) -> dt.date:
    return (month + dt.timedelta(days=31)).replace(day=1)


def _month_text(month: dt.date) -> str:
    return f"{month.year:04d}-{month.month:02d}"


def calendar_result(attempt: Attempt) -> str:
    """What a ranked attempt shows on the calendar. Only ``won`` counts for the
    record and the streak, exactly when ``counted_results`` counts it as a win:
    a result staff disqualified or the replay check failed shows as such."""
    if attempt.disqualified:
        return "disqualified"
    if attempt.verified is False:
        return "failed_check"
    return str(attempt.status)


def calendar_month(*, month: dt.date, user: User | None) -> dict[str, Any]:
    """The days of ``month`` (its first day) up to today, with the variants that
    had a daily deal that day and, for ``user``, their ranked result on each
    (``calendar_result``). Nothing names a deal: no code, no commitment. Months
    run from the first with a stored daily deal to the current one (UTC)."""
    today = utc_today()
    current = _month_start(today)
    earliest = DailyDeal.objects.filter(date__lte=today).order_by("date").first()
    first = min(_month_start(earliest.date), current) if earliest else current
    if not first <= month <= current:
        raise Invalid(
            "month_out_of_range",
            f"No calendar for {_month_text(month)}: 'month' runs from"
            f" {_month_text(first)} to {_month_text(current)}.",
        )
    end = min(_next_month(month) - dt.timedelta(days=1), today)
    dailies: dict[dt.date, list[str]] = {}
    for date, variant in DailyDeal.objects.filter(date__gte=month, date__lte=end).values_list(
        "date", "variant"
    ):
        dailies.setdefault(date, []).append(variant)
    # Today's deals are made on demand by the first who asks (PRODUCT.md): it has them.
    if month <= today <= end:
        dailies[today] = list(ALL_VARIANTS)
    results: dict[dt.date, dict[str, str]] = {}
    if user is not None:
        for attempt in Attempt.objects.filter(
            player=user, ranked=True, daily__date__gte=month, daily__date__lte=end
        ).select_related("daily"):
            assert attempt.daily is not None  # ranked attempts always have one
            results.setdefault(attempt.daily.date, {})[attempt.daily.variant] = calendar_result(
                attempt
            )
    days = []
    day = month
    while day <= end:
        days.append(
            {
                "date": day.isoformat(),
                "today": day == today,
                "dailies": [v for v in ALL_VARIANTS if v in dailies.get(day, ())],
                "results": results.get(day, {}),
            }
        )
        day += dt.timedelta(days=1)
    previous = _month_start(month - dt.timedelta(days=1))
    return {
        "month": _month_text(month),
        "today": today.isoformat(),
        "player": user.get_username() if user is not None else None,
        "variants": list(ALL_VARIANTS),
        "first": _month_text(first),
        "previous": _month_text(previous) if month > first else None,
        "next": _month_text(_next_month(month)) if month < current else None,
        "days": days,
    }


def player_calendar(*, username: str, month: dt.date) -> dict[str, Any]:
    user = player_get(username=username)
    if user is None:
        raise NotFound("not_found", f"No player {username!r}.")
    return calendar_month(month=month, user=user)
