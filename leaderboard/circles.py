"""The boards of a player's circles (issue 29): a day's board filtered to a
club's members or to the players one follows, the result card's "#3 of 12 you
follow", a club's weekly standing and a player's ranks among a club.

Every one is the day's board (``games.ranking``: the same results counted, the
same order, RANKING the one rule) with only some players' rows: nothing is
shown that the public board does not show (it shows every row to anyone while
the day runs), and the replay links follow the public board's rule."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import connection
from django.db.models import Count, F, Window
from django.db.models.functions import Rank

from accounts.models import User
from clubs.models import Club
from clubs.selectors import account_of, clubs_of, followed_ids, member_club, member_ids
from games.dailies import utc_today
from games.engine import parse_variant
from games.models import Attempt, DailyDeal
from games.ranking import RANKING, counted, ranked_attempts
from games.selectors import Viewer, viewer_won_daily
from kit.errors import Invalid, NotFound

from .selectors import PAGE_SIZE, _closed_reason, leaderboard_variant, result_json


def _global_ranks(daily: DailyDeal, player_ids: list[int]) -> list[tuple[int, int]]:
    """(attempt pk, rank on the whole board) of ``player_ids``' rows, in board order."""
    if not player_ids:
        return []
    sql, params = (
        ranked_attempts(daily=daily).values("pk", "player_id", "rank").query.sql_with_params()
    )
    marks = ", ".join(["%s"] * len(player_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT ranked.pk, ranked.rank FROM ({sql}) ranked"
            f" WHERE ranked.player_id IN ({marks}) ORDER BY ranked.rank, ranked.pk",
            [*params, *player_ids],
        )
        return [(int(pk), int(rank)) for pk, rank in cursor.fetchall()]


def filtered_rows(daily: DailyDeal, player_ids: list[int]) -> list[Attempt]:
    """The board's rows of ``player_ids`` in board order, each with ``rank`` (in
    the filter: level results share one, as on the board) and ``global_rank``."""
    found = _global_ranks(daily, player_ids)
    attempts = Attempt.objects.select_related("player").in_bulk([pk for pk, _ in found])
    rows: list[Attempt] = []
    for index, (pk, global_rank) in enumerate(found):
        attempt = attempts[pk]
        previous = rows[-1] if rows else None
        same = previous is not None and previous.global_rank == global_rank  # type: ignore[attr-defined]
        attempt.rank = previous.rank if same else index + 1  # type: ignore[attr-defined,union-attr]
        attempt.global_rank = global_rank  # type: ignore[attr-defined]
        rows.append(attempt)
    return rows


def circle_of(
    *, viewer: Viewer, club: str | None, following: bool
) -> tuple[dict[str, Any], list[int]]:
    """The filter asked for and its players: a club's members (members only, 403
    ``not_member``), or the players the viewer follows and the viewer."""
    if club is not None and following:
        raise Invalid("bad_filter", "Filter by 'club' or by 'following', not both.")
    if club is not None:
        found = member_club(slug=club, user=viewer)
        return {"club": found.slug, "following": False}, member_ids(club=found)
    user = account_of(viewer)
    return {"club": None, "following": True}, [*followed_ids(user=user), user.pk]


def filtered_board(
    *, date: dt.date, variant: str, viewer: Viewer, club: str | None, following: bool, page: int
) -> dict[str, Any]:
    variant = leaderboard_variant(date=date, variant=variant)
    circle, players = circle_of(viewer=viewer, club=club, following=following)
    daily = DailyDeal.objects.filter(date=date, variant=variant).first()
    rows = filtered_rows(daily, players) if daily else []
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    if page > pages:
        raise NotFound("no_page", f"Page {page} is past the last page ({pages}).")
    replays_open = bool(
        daily
        and viewer.is_authenticated
        and (date < utc_today() or viewer_won_daily(viewer=viewer, daily=daily))
    )

    def row(attempt: Attempt) -> dict[str, Any]:
        return {
            **result_json(attempt, show_replay=replays_open),
            "global_rank": attempt.global_rank,  # type: ignore[attr-defined]
        }

    start = (page - 1) * PAGE_SIZE
    mine = next((r for r in rows if r.player_id == viewer.pk), None)
    return {
        "date": date.isoformat(),
        "variant": variant,
        "page": page,
        "page_size": PAGE_SIZE,
        "count": len(rows),
        "pages": pages,
        "results": [row(a) for a in rows[start : start + PAGE_SIZE]],
        "me": row(mine) if mine else None,
        "replays_open": replays_open,
        "replays_closed_reason": None if replays_open else _closed_reason(viewer),
        "filter": circle,
    }


def _rank_in(daily: DailyDeal, player_ids: list[int], me: int) -> dict[str, int] | None:
    rows = filtered_rows(daily, player_ids)
    mine = next((r for r in rows if r.player_id == me), None)
    if mine is None:
        return None
    return {"rank": mine.rank, "count": len(rows)}  # type: ignore[attr-defined]


def circles(*, date: dt.date, variant: str, viewer: Viewer) -> dict[str, Any]:
    """The viewer's rank among the players they follow (and themselves) and in
    each of their clubs, on one daily: the result card's lines. Null where the
    viewer has no result on the board."""
    variant = parse_variant(variant).id
    user = account_of(viewer)
    daily = DailyDeal.objects.filter(date=date, variant=variant).first()
    followed = followed_ids(user=user)
    result: dict[str, Any] = {"date": date.isoformat(), "variant": variant}
    if daily is None:
        return {**result, "following": None, "clubs": []}
    result["following"] = _rank_in(daily, [*followed, user.pk], user.pk) if followed else None
    result["clubs"] = [
        {"slug": club.slug, "name": club.name, **found}
        for club in clubs_of(user=user)
        if (found := _rank_in(daily, member_ids(club=club), user.pk)) is not None
    ]
    return result


def _club_ranks(player_ids: list[int], **where: Any) -> Any:
    """Counted results of ``player_ids`` with their rank among them per daily
    (``club_rank``) and how many they were (``club_count``)."""
    return (
        counted(player_id__in=player_ids, **where)
        .select_related("daily", "player")
        .annotate(
            club_rank=Window(Rank(), partition_by=[F("daily_id")], order_by=RANKING),
            club_count=Window(Count("pk"), partition_by=[F("daily_id")]),
        )
        .order_by("daily__date", "daily__variant", *RANKING, "pk")
    )


def iso_week(text: str | None) -> dt.date:
    """``YYYY-Www`` (ISO week) as its Monday; the current week (UTC) if None."""
    if text is None:
        today = utc_today()
        return today - dt.timedelta(days=today.weekday())
    try:
        if len(text) == 8 and text[4:6] == "-W":
            return dt.date.fromisocalendar(int(text[:4]), int(text[6:]), 1)
    except ValueError:
        pass
    raise Invalid("bad_week", f"{text[:20]!r} is not an ISO week (YYYY-Www, e.g. 2026-W49).")


def _week_text(monday: dt.date) -> str:
    year, week, _ = monday.isocalendar()
    return f"{year:04d}-W{week:02d}"


def week_standing(*, slug: str, viewer: Viewer, week: str | None) -> dict[str, Any]:
    """A club's standing over an ISO week (Monday to Sunday, UTC): on each daily
    and variant, a member with a counted result scores one point for each member
    with a result there whom they rank level with or ahead of, themselves
    included (``count - rank + 1``: the last scores 1, the first as many as
    played). Points sum over the week's dailies, today's included as its board
    stands (it is the public board's order). Ties: more wins, then the name."""
    club = member_club(slug=slug, user=viewer)
    monday = iso_week(week)
    today = utc_today()
    this_monday = today - dt.timedelta(days=today.weekday())
    if monday > this_monday:
        raise NotFound("no_week", f"The week {_week_text(monday)} has not begun.")
    sunday = monday + dt.timedelta(days=6)
    members = {
        user.pk: user.get_username()
        for user in User.objects.filter(club_memberships__club=club).only("pk", "username")
    }
    table = {
        pk: {"player": name, "points": 0, "played": 0, "won": 0, "days": {}}
        for pk, name in members.items()
    }
    for attempt in _club_ranks(
        list(members), daily__date__gte=monday, daily__date__lte=min(sunday, today)
    ):
        entry = table[attempt.player_id]
        points = attempt.club_count - attempt.club_rank + 1
        entry["points"] += points
        entry["played"] += 1
        entry["won"] += int(attempt.won)
        day = entry["days"].setdefault(attempt.daily.date.isoformat(), {})
        day[attempt.daily.variant] = {"rank": attempt.club_rank, "points": points}
    standing = sorted(table.values(), key=lambda e: (-e["points"], -e["won"], e["player"].lower()))
    previous = None
    for index, entry in enumerate(standing):
        key = (entry["points"], entry["won"])
        entry["rank"] = previous["rank"] if previous and previous["key"] == key else index + 1
        entry["key"] = key
        previous = entry
    for entry in standing:
        del entry["key"]
    return {
        "club": club.slug,
        "week": _week_text(monday),
        "start": monday.isoformat(),
        "end": sunday.isoformat(),
        "previous": _week_text(monday - dt.timedelta(days=7)),
        "next": _week_text(monday + dt.timedelta(days=7)) if monday < this_monday else None,
        "standing": standing,
    }


def player_club_ranks(*, username: str, club: str, viewer: Viewer) -> dict[str, Any]:
    """What a club filter means on a player record: the player's rank among the
    club's members on each daily they played (members only; the player must be
    a member too)."""
    found: Club = member_club(slug=club, user=viewer)
    members = member_ids(club=found)
    user = User.objects.filter(username__iexact=username, pk__in=members).first()
    if user is None:
        raise NotFound("not_a_member", f"{username[:40]!r} is not a member of this club.")
    results = [
        {
            "date": a.daily.date.isoformat(),
            "variant": a.daily.variant,
            "rank": a.club_rank,
            "count": a.club_count,
        }
        for a in _club_ranks(members, daily_id__in=counted(player=user).values("daily_id"))
        if a.player_id == user.pk
    ]
    return {"slug": found.slug, "name": found.name, "results": results}
