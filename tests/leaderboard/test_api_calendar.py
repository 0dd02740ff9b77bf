"""The archive's calendar (issue 15, deliverable 3) through the HTTP API:
``GET /api/players/{username}/calendar/?month=YYYY-MM`` and ``GET /api/calendar/``.

Results are built through the ORM as in ``test_leaderboard.py``; here only what
the calendar says of them is in question: per day and variant the player's
ranked result, only a counted win showing as ``won`` (the record and the streak
count the same ones), month boundaries, and bad input named in a 4xx.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from games.dailies import utc_today
from games.engine import ALL_VARIANTS
from games.models import Attempt
from games.services import _create_attempt
from tests.support.api import assert_error
from tests.support.days import month_of
from tests.support.results import daily_of, finished, record, streak, user_of


def first_of_previous_month(months: int = 1) -> dt.date:
    day = utc_today().replace(day=1)
    for _ in range(months):
        day = (day - dt.timedelta(days=1)).replace(day=1)
    return day


def ago(day: dt.date) -> int:
    return (utc_today() - day).days


def calendar(client: Any, username: str | None, month: str | None = None) -> dict[str, Any]:
    path = f"/api/players/{username}/calendar/" if username else "/api/calendar/"
    response = client.get(path, {"month": month} if month else {})
    assert response.status_code == 200, response.content
    return response.json()


def by_date(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {day["date"]: day for day in data["days"]}


def test_each_result_per_day_and_variant(anon, make_player):
    client = make_player()
    user = user_of(client)
    start = first_of_previous_month()
    day = [start + dt.timedelta(days=i) for i in range(6)]
    finished(user, daily_of("EH1-N", ago(day[0])))  # won
    finished(user, daily_of("SH1-C4", ago(day[0])), won=False)  # resigned
    finished(user, daily_of("SH1-C2", ago(day[1])), won=False, status=Attempt.Status.ABANDONED)
    finished(user, daily_of("SH1-C1", ago(day[2])), verified=None)  # won, check pending
    gone = finished(user, daily_of("EH1-N", ago(day[3])))  # won, then disqualified by staff
    Attempt.objects.filter(pk=gone.pk).update(disqualified=True)
    finished(user, daily_of("EH1-N", ago(day[4])), verified=False)  # won, failed the replay check
    daily_of("SH1-C4", ago(day[5]))  # a day with a deal the player did not play
    practice = _create_attempt(
        player=user, deal=daily_of("SH1-C1", ago(day[5])).deal, daily=None, ranked=False
    )
    Attempt.objects.filter(pk=practice.pk).update(status=Attempt.Status.WON, won=True)

    data = calendar(anon, client.username.upper(), month_of(start))  # names match in any case
    assert data["player"] == client.username and data["month"] == month_of(start)
    assert data["variants"] == list(ALL_VARIANTS)
    days = by_date(data)
    assert [d["date"] for d in data["days"]][:6] == [d.isoformat() for d in day]
    assert days[day[0].isoformat()]["results"] == {"EH1-N": "won", "SH1-C4": "resigned"}
    assert days[day[1].isoformat()]["results"] == {"SH1-C2": "abandoned"}
    assert days[day[2].isoformat()]["results"] == {"SH1-C1": "won"}
    assert days[day[3].isoformat()]["results"] == {"EH1-N": "disqualified"}
    assert days[day[4].isoformat()]["results"] == {"EH1-N": "failed_check"}
    # A practice game is no ranked result; the day had a deal all the same.
    assert days[day[5].isoformat()]["results"] == {}
    assert "SH1-C4" in days[day[5].isoformat()]["dailies"]
    assert days[day[0].isoformat()]["dailies"] == ["EH1-N", "SH1-C4"]  # in ALL_VARIANTS order
    assert all(not d["today"] for d in data["days"])
    # One idea of a win: the days shown won are the days the record counts.
    won_days = {d["date"] for d in data["days"] if "won" in d["results"].values()}
    assert won_days == {day[0].isoformat(), day[2].isoformat()}
    mine = record(anon, client.username)
    assert mine["won"] == 2 and mine["disqualified"] == 1
    # Nothing names a deal: no code, no commitment, nothing but variants and results.
    text = str(data)
    for d in day:
        for variant in ALL_VARIANTS:
            assert daily_of(variant, ago(d)).deal.code not in text


def test_today_playing_and_the_current_month(anon, make_player):
    client = make_player()
    user = user_of(client)
    today = utc_today()
    _create_attempt(
        player=user, deal=daily_of("SH1-C2").deal, daily=daily_of("SH1-C2"), ranked=True
    )
    finished(user, daily_of("EH1-N"))
    data = calendar(anon, client.username)  # no month: the current one
    assert data["month"] == month_of(today) and data["today"] == today.isoformat()
    assert data["next"] is None
    # The days up to today, not one more; today has every variant's deal (made on demand).
    assert data["days"][-1]["date"] == today.isoformat()
    assert len(data["days"]) == today.day
    last = data["days"][-1]
    assert last["today"] is True and last["dailies"] == list(ALL_VARIANTS)
    assert last["results"] == {"SH1-C2": "playing", "EH1-N": "won"}
    assert record(anon, client.username)["streak"]["current"] == 1


def test_month_boundaries(anon, make_player):
    client = make_player()
    user = user_of(client)
    month = first_of_previous_month()
    before = month - dt.timedelta(days=1)  # the last day of the month before
    last = (month + dt.timedelta(days=31)).replace(day=1) - dt.timedelta(days=1)
    finished(user, daily_of("SH1-C4", ago(before)))
    finished(user, daily_of("SH1-C4", ago(month)), won=False)
    finished(user, daily_of("EH1-N", ago(last)))

    data = calendar(anon, client.username, month_of(month))
    assert data["days"][0]["date"] == month.isoformat()
    assert data["days"][-1]["date"] == last.isoformat()  # the whole month: it is over
    assert len(data["days"]) == last.day
    days = by_date(data)
    assert days[month.isoformat()]["results"] == {"SH1-C4": "resigned"}
    assert days[last.isoformat()]["results"] == {"EH1-N": "won"}
    assert before.isoformat() not in days
    assert (data["previous"], data["next"]) == (month_of(before), month_of(utc_today()))
    assert data["first"] == month_of(before)

    earlier = calendar(anon, client.username, month_of(before))
    assert by_date(earlier)[before.isoformat()]["results"] == {"SH1-C4": "won"}
    assert month.isoformat() not in by_date(earlier)
    # The first month with a daily deal has no month before it.
    assert earlier["previous"] is None and earlier["next"] == month_of(month)
    # Won, lost, won: no two wins in a row.
    assert record(anon, client.username)["streak"]["longest"] == 1


def test_a_streak_runs_across_the_month_boundary(anon, make_player):
    client = make_player()
    user = user_of(client)
    month = first_of_previous_month()
    for day in (month - dt.timedelta(days=1), month, month + dt.timedelta(days=1)):
        finished(user, daily_of("SH1-C1", ago(day)))
    assert record(anon, client.username)["streak"]["longest"] == 3
    won = [
        d["date"] for d in calendar(anon, client.username, month_of(month))["days"] if d["results"]
    ]
    assert won == [month.isoformat(), (month + dt.timedelta(days=1)).isoformat()]


def test_another_players_calendar_and_the_anonymous_one(make_player):
    viewer, other = make_player(), make_player()
    finished(user_of(other), daily_of("SH1-C4", 1))
    finished(user_of(viewer), daily_of("EH1-N", 1), won=False)
    yesterday = (utc_today() - dt.timedelta(days=1)).isoformat()
    month = month_of(utc_today() - dt.timedelta(days=1))
    theirs = by_date(calendar(viewer, other.username, month))
    assert theirs[yesterday]["results"] == {"SH1-C4": "won"}  # theirs, not the viewer's
    mine = by_date(calendar(other, viewer.username, month))
    assert mine[yesterday]["results"] == {"EH1-N": "resigned"}

    days = calendar(viewer, None, month)
    assert days["player"] is None
    assert by_date(days)[yesterday]["dailies"] == ["EH1-N", "SH1-C4"]
    assert all(d["results"] == {} for d in days["days"])


@pytest.mark.parametrize(
    "month",
    ["2026-13", "2026-00", "2026-1", "202612", "26-12", "2026-12-01", "abcd-ef", "", " 2026-12",
     "0000-01", "2026-1\x00", "9" * 300],
)  # fmt: skip
def test_a_malformed_month_is_a_400_naming_it(anon, make_player, month):
    client = make_player()
    for path in (f"/api/players/{client.username}/calendar/", "/api/calendar/"):
        error = assert_error(anon.get(path, {"month": month}), 400, "bad_month")
        assert "YYYY-MM" in error["message"]


def test_a_month_out_of_range_is_a_400_naming_the_range(anon, make_player):
    client = make_player()
    today = utc_today()
    daily_of("SH1-C4", ago(first_of_previous_month()))  # the first month with a deal
    after = month_of((today.replace(day=1) + dt.timedelta(days=31)).replace(day=1))
    too_early = month_of(first_of_previous_month(2))
    for month in (after, too_early, "9999-12", "0001-01"):
        for path in (f"/api/players/{client.username}/calendar/", "/api/calendar/"):
            error = assert_error(anon.get(path, {"month": month}), 400, "month_out_of_range")
            assert month in error["message"]
            assert (
                f"from {month_of(first_of_previous_month())} to {month_of(today)}"
                in (error["message"])
            )


def test_an_unknown_player_is_a_404_naming_them(anon):
    error = assert_error(anon.get("/api/players/nobody_at_all/calendar/"), 404, "not_found")
    assert "nobody_at_all" in error["message"]
    assert_error(anon.get("/api/players/a%00b/calendar/"), 404, "not_found")
    # Both wrong: the month is read first, and named.
    response = anon.get("/api/players/nobody_at_all/calendar/", {"month": "x"})
    assert_error(response, 400, "bad_month")


def test_a_disqualified_win_breaks_the_streak_on_the_calendar_too(anon, make_player):
    client = make_player()
    user = user_of(client)
    for days_ago in (3, 2, 1):
        finished(user, daily_of("SH1-C4", days_ago))
    middle = Attempt.objects.get(player=user, daily=daily_of("SH1-C4", 2))
    Attempt.objects.filter(pk=middle.pk).update(disqualified=True)
    assert record(anon, client.username)["streak"] == streak(1, 1)
    two_ago = (utc_today() - dt.timedelta(days=2)).isoformat()
    data = calendar(anon, client.username, two_ago[:7])
    assert by_date(data)[two_ago]["results"] == {"SH1-C4": "disqualified"}
