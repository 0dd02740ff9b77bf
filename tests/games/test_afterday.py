"""Which days the after-the-day jobs (issue 27) work on: over, closed, recent."""

from __future__ import annotations

import datetime as dt

import pytest

from games.afterday import LOOK_BACK, days_closed
from games.dailies import utc_today
from games.models import Attempt
from games.services import _create_attempt
from tests.support.results import daily_of, finished, user_of

pytestmark = pytest.mark.django_db


def test_only_days_over_and_closed_in_the_last_week(player):
    user = user_of(player)
    today, yesterday, before = (daily_of(days_ago=d) for d in (0, 1, 2))
    long_ago = daily_of(days_ago=LOOK_BACK.days + 1)
    for daily in (today, yesterday, before, long_ago):
        finished(user, daily)
    assert [d.date for d in days_closed()] == [before.date, yesterday.date]


def test_a_day_waits_while_one_of_its_ranked_games_is_still_playing(player, make_player):
    yesterday = daily_of(days_ago=1)
    finished(user_of(player), yesterday)
    late = _create_attempt(
        player=user_of(make_player()), deal=yesterday.deal, daily=yesterday, ranked=True
    )
    assert days_closed() == []
    late.status = Attempt.Status.ABANDONED
    late.save()
    assert [d.pk for d in days_closed()] == [yesterday.pk]


def test_a_practice_game_left_open_does_not_hold_a_day(player):
    yesterday = daily_of(days_ago=1)
    _create_attempt(player=user_of(player), deal=yesterday.deal, daily=yesterday, ranked=False)
    assert [d.pk for d in days_closed(within=dt.timedelta(days=1))] == [yesterday.pk]
    assert days_closed(within=dt.timedelta(days=0)) == []
    assert utc_today() - yesterday.date == dt.timedelta(days=1)
