"""Streak freezes through the HTTP API (issue 27, deliverable 5): the record's
``streak`` adds ``tokens`` and ``frozen`` beside ``current`` and ``longest``, and
the calendar marks each day a freeze was spent on (``frozen``). The rules
themselves are tested on constructed day lists in ``test_freeze.py``; here the
days are real counted results (``tests/support/results.py``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games.dailies import utc_today
from games.models import Attempt
from tests.support.results import daily_of, finished, record, streak, user_of


def iso(days_ago: int) -> str:
    return (utc_today() - dt.timedelta(days=days_ago)).isoformat()


def calendar(client: Any, username: str | None, day: str) -> dict[str, dict[str, Any]]:
    """The calendar month of ``day``, by date."""
    path = f"/api/players/{username}/calendar/" if username else "/api/calendar/"
    response = client.get(path, {"month": day[:7]})
    assert response.status_code == 200, response.content
    return {d["date"]: d for d in response.json()["days"]}


def win_days(user: Any, days_ago: list[int], variant: str = "SH1-C4") -> None:
    for n in days_ago:
        finished(user, daily_of(variant, n))


def test_ten_days_won_then_one_missed_is_frozen_in_the_record_and_calendar(anon, make_player):
    client = make_player()
    user = user_of(client)
    win_days(user, list(range(13, 3, -1)))  # ten days: the token comes with the 10th (4 ago)
    finished(user, daily_of("SH1-C4", 3), won=False)  # lost, not won: the day is missed
    win_days(user, [2, 1])
    assert record(anon, client.username)["streak"] == streak(12, 12, frozen=[iso(3)])
    for viewer in (anon, client):  # a player's calendar is public, as its results are
        days = calendar(viewer, client.username, iso(3))
        assert days[iso(3)]["frozen"] is True
        assert days[iso(3)]["results"] == {"SH1-C4": "resigned"}
        assert [d for d, day in days.items() if day["frozen"]] == [iso(3)]
    # The month before, if the days span two, has none; the anonymous calendar none at all.
    if iso(13)[:7] != iso(3)[:7]:
        assert not any(day["frozen"] for day in calendar(anon, client.username, iso(13)).values())
    assert not any(day["frozen"] for day in calendar(anon, None, iso(3)).values())


def test_a_token_held_shows_in_the_record(anon, make_player):
    client = make_player()
    user = user_of(client)
    win_days(user, list(range(10, 0, -1)))
    assert record(anon, client.username)["streak"] == streak(10, 10, tokens=1)


def test_only_counted_wins_earn_tokens(anon, make_player):
    """A win staff disqualified, or one the replay check failed, is no day won:
    nine counted days earn nothing, and the gap it leaves breaks the streak."""
    client = make_player()
    user = user_of(client)
    win_days(user, list(range(10, 0, -1)))
    Attempt.objects.filter(player=user, daily=daily_of("SH1-C4", 5)).update(disqualified=True)
    assert record(anon, client.username)["streak"] == streak(4, 5)
    Attempt.objects.filter(player=user, daily=daily_of("SH1-C4", 5)).update(disqualified=False)
    Attempt.objects.filter(player=user, daily=daily_of("SH1-C4", 2)).update(verified=False)
    assert record(anon, client.username)["streak"]["tokens"] == 0


def test_wins_in_two_variants_on_one_day_are_one_day(anon, make_player):
    client = make_player()
    user = user_of(client)
    win_days(user, list(range(9, 0, -1)))
    win_days(user, [1], variant="EH1-N")  # the same day again: still nine days
    assert record(anon, client.username)["streak"]["tokens"] == 0
    win_days(user, [0], variant="SH1-C1")  # today won: the tenth day
    assert record(anon, client.username)["streak"]["tokens"] == 1
