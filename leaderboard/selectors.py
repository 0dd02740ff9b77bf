"""Daily rankings (RULES.md C11) and player records: the boards and records of
the results that count, in their order (``games/ranking.py`` defines both; the
live board, ``realtime.py``, reads the boards from here)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Q, QuerySet

from accounts.models import User
from games.dailies import utc_today
from games.engine import ALL_VARIANTS, parse_variant
from games.models import Attempt, DailyDeal
from games.ranking import RANKING, ranked_attempts
from games.ranking import counted as _counted
from games.selectors import (
    REPLAYS_CLOSED,
    Viewer,
    attempt_of_player,
    replay_url,
    viewer_won_daily,
)
from kit.errors import Conflict, Invalid, NotFound

from .ratings import race_rating_of

PAGE_SIZE = 50


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


def leaderboard_variant(*, date: dt.date, variant: str) -> str:
    """The id of ``variant`` (``"sh1-c4"`` → ``"SH1-C4"``) when its board of
    ``date`` may be read; refused otherwise: a variant the engine does not know
    (malformed: ``bad_variant``, ``bad_code``), a day not begun (``no_daily``: no
    daily is dealt before its day). A day begun that has no daily is an empty
    board, not a refusal. Both doors to a board ask this — the REST leaderboard
    and its socket (``leaderboard/consumers.py``) — so one refuses what the other
    does (issue 37: the socket subscribed to 9999-12-31, which REST answers 404)."""
    variant = parse_variant(variant).id
    if date > utc_today():
        raise NotFound("no_daily", f"There is no daily deal for {date} yet.")
    return variant


def leaderboard_for_day(
    *, date: dt.date, variant: str, viewer: Viewer, page: int = 1
) -> dict[str, Any]:
    variant = leaderboard_variant(date=date, variant=variant)
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


# --- where a practice of a past daily would have ranked (issue 27) ----------------


def _ranked_against(attempt: Attempt) -> tuple[Q, Q]:
    """The results that rank before ``attempt`` by ``RANKING`` (C11) — one key
    better, the keys before it equal — and those level with it on every key
    (ranked as one by the board's ``Rank()``; hardly ever, as two finishes are
    seldom at one instant)."""
    ahead = Q()
    equal: dict[str, Any] = {}
    for key in RANKING:
        field = key.expression.name
        value = getattr(attempt, field)
        ahead |= Q(**equal, **{f"{field}__{'gt' if key.descending else 'lt'}": value})
        equal[field] = value
    return ahead, Q(**equal)


def past_daily_of(attempt: Attempt) -> DailyDeal:
    """The daily whose deal ``attempt`` practised, once its day is over. The same
    ``Deal`` only: the same cards with another cell count are another variant,
    played on another board. Refused while that day runs — nothing of a running
    daily's board is told through a practice (PRODUCT.md, anti-cheat)."""
    dailies = DailyDeal.objects.filter(deal_id=attempt.deal_id).order_by("-date")
    if any(daily.date >= utc_today() for daily in dailies):
        raise Conflict(
            "day_running",
            "This deal is a daily whose day is still running: where a practice would"
            " rank is told once the day is over.",
        )
    daily = dailies.first()
    if daily is None:
        raise NotFound("no_daily", f"Game {attempt.pk} is not on a past daily's deal.")
    return daily


def would_rank(*, attempt_id: int, player: User) -> dict[str, Any]:
    """Where the player's finished practice game on a past daily's deal would have
    ranked among that day's counted results (``ranked_attempts``), by the board's
    order (C11) — its finish, after the day, loses a tie on every other key.
    ``rank`` k of ``count`` N (the day's results and this one), shared with any
    result level on every key, as the board's ranks are; ``beaten``: the day's
    results it ranks strictly before; ``percentile``: ``beaten`` as a share of the
    day's results, in percent rounded down to one decimal (null if there were
    none). Read only: no board, record or streak changes (a practice counts
    nowhere)."""
    attempt = attempt_of_player(attempt_id=attempt_id, player=player)
    if attempt.ranked:
        raise Invalid("ranked", "A ranked game is on its day's board: its rank is there.")
    if not attempt.finished:
        raise Conflict("not_finished", "The game is not over: finish or resign it first.")
    daily = past_daily_of(attempt)
    board = _counted(daily=daily)
    before, level = _ranked_against(attempt)
    day_count = board.count()
    ahead = board.filter(before).count()
    beaten = day_count - ahead - board.filter(level).count()
    return {
        "game": attempt.pk,
        "date": daily.date.isoformat(),
        "variant": daily.variant,
        "rank": ahead + 1,
        "count": day_count + 1,
        "beaten": beaten,
        "percentile": math.floor(1000 * beaten / day_count) / 10 if day_count else None,
        "leaderboard": f"/leaderboard/{daily.date.isoformat()}/{daily.variant}/",
    }


STREAK_TOKEN_EVERY = 10
"""A streak freeze is earned on every 10th day won (the 10th, 20th, 30th …)."""
STREAK_TOKENS_HELD = 3
"""At most this many freezes are held; one earned beyond it is lost."""


@dataclass(frozen=True)
class Streak:
    """A player's streak as of ``today`` (``streak_of``): the current run, the
    longest, the freezes held and the days a freeze was spent on."""

    current: int
    longest: int
    tokens: int
    frozen: tuple[dt.date, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "current": self.current,
            "longest": self.longest,
            "tokens": self.tokens,
            "frozen": [day.isoformat() for day in self.frozen],
        }


def streak_of(won: Collection[dt.date], *, today: dt.date) -> Streak:
    """The streak, its freezes and its frozen days, given ``won``: the days on which
    the player won a ranked daily that counts (``counted_results``), in any variant.

    A streak is a run of consecutive UTC days each with at least one such win.
    The current streak is the run that ends today or yesterday: today counts
    once won, and a streak that ended yesterday is not broken until today ends
    (today's deals may still be ahead). The one definition: the player record,
    the lobby, the calendar and the result card read it from here.

    Streak freeze (issue 27): every ``STREAK_TOKEN_EVERY``-th day won, counted
    over all the player's won days (a broken streak keeps them), earns a token;
    at most ``STREAK_TOKENS_HELD`` are held. Once a day without a win is over
    (never today: it may still be won), a token held is spent on it if a streak
    is running: that day is *frozen*, the streak goes on without counting it.
    Without a token, or with no streak to keep, the day breaks the run. So two
    missed days in a row with one token: the first is frozen, the second breaks."""
    days = {day for day in won if day <= today}
    if not days:
        return Streak(current=0, longest=0, tokens=0, frozen=())
    run = longest = earned = tokens = 0
    frozen: list[dt.date] = []
    day = min(days)
    while day <= today:
        if day in days:
            run += 1
            earned += 1
            if earned % STREAK_TOKEN_EVERY == 0:
                tokens = min(tokens + 1, STREAK_TOKENS_HELD)
        elif day < today:
            if run and tokens:
                tokens -= 1
                frozen.append(day)
            else:
                run = 0
        longest = max(longest, run)
        day += dt.timedelta(days=1)
    return Streak(current=run, longest=longest, tokens=tokens, frozen=tuple(frozen))


def won_days(*, user: User) -> set[dt.date]:
    """The days with a counted ranked win of ``user``: what ``streak_of`` reads."""
    return set(counted_results(user=user).filter(won=True).values_list("daily__date", flat=True))


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
    won: set[dt.date] = set()
    for attempt in finished:
        assert attempt.daily is not None  # ranked attempts always have one
        record = variants.setdefault(
            attempt.daily.variant,
            {"played": 0, "won": 0, "win_rate": 0.0, "best_ms": None, "best_score": None},
        )
        record["played"] += 1
        if attempt.won:
            record["won"] += 1
            won.add(attempt.daily.date)
            if record["best_ms"] is None or attempt.elapsed_ms < record["best_ms"]:
                record["best_ms"] = attempt.elapsed_ms
        if record["best_score"] is None or attempt.score > record["best_score"]:
            record["best_score"] = attempt.score
    for record in variants.values():
        record["win_rate"] = round(record["won"] / record["played"], 4)
    return {
        "username": user.get_username(),
        "joined": user.date_joined.date().isoformat(),
        "played": sum(r["played"] for r in variants.values()),
        "won": sum(r["won"] for r in variants.values()),
        "variants": variants,
        "streak": streak_of(won, today=utc_today()).to_json(),
        "disqualified": len(disqualified),
        "disqualifications": disqualified,
        "race_rating": race_rating_of(user=user),
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
    frozen: set[dt.date] = set()
    if user is not None:
        frozen = set(streak_of(won_days(user=user), today=today).frozen)
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
                # A streak freeze was spent on it (``streak_of``): the streak went on.
                "frozen": day in frozen,
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


# --- one result as the board shows it (issue 28: the share page) ------------------


def result_shown(*, attempt_id: int) -> tuple[Attempt, int] | None:
    """The result ``attempt_id`` as the public board shows it — the attempt with
    its ``rank`` among every counted result of its daily, and how many those
    are — or None when no board shows it (a practice game, a guest's, one not
    finished, disqualified or failed by the replay check: ``counted``)."""
    attempt = Attempt.objects.select_related("daily").filter(pk=attempt_id, ranked=True).first()
    if attempt is None or attempt.daily is None:
        return None
    rows = ranked_attempts(daily=attempt.daily)
    sql, params = rows.values("pk", "rank").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT ranked.rank, (SELECT COUNT(*) FROM ({sql}) every) "
            f"FROM ({sql}) ranked WHERE ranked.pk = %s",
            [*params, *params, attempt_id],
        )
        found = cursor.fetchone()
    if found is None:
        return None
    shown = Attempt.objects.select_related("player", "daily").get(pk=attempt_id)
    shown.rank = found[0]  # type: ignore[attr-defined]
    return shown, int(found[1])


def replays_open_to(*, viewer: Viewer, attempt_id: int) -> bool:
    """Whether ``viewer`` may watch the replay of the daily result ``attempt_id``,
    as its board says (``leaderboard_for_day``'s ``replays_open``)."""
    attempt = Attempt.objects.select_related("daily").filter(pk=attempt_id).first()
    daily = attempt.daily if attempt else None
    return (
        daily is not None
        and viewer.is_authenticated
        and (daily.date < utc_today() or viewer_won_daily(viewer=viewer, daily=daily))
    )
