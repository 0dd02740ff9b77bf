"""How hard a day was (issue 27, ``games/difficulty.py``): the prediction stored
when a day is prepared (and filled for days prepared before), the measure of a
closed day from the results that count (games left at once discounted), the
``difficulty`` block of ``/api/daily/{date}/`` and the archive's month table."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

from accounts.models import User
from games import difficulty, tasks
from games.dailies import daily_deal_get, utc_today
from games.models import Attempt, DailyDeal
from tests.support.api import assert_error
from tests.support.hidden import prepared
from tests.support.results import daily_of, finished

pytestmark = pytest.mark.django_db

_names = itertools.count()


def user(*, guest: bool = False) -> User:
    return User.objects.create_user(username=f"measured{next(_names)}", is_guest=guest)


def closed_day() -> DailyDeal:
    """Yesterday's SH1-C4 (made on demand: unproven, par unknown) with its results:
    five wins, a late resignation, an early one and an early abandon (both
    discounted), and three that do not count (a guest, a disqualified win, a
    failed replay check)."""
    daily = daily_of("SH1-C4", days_ago=1)
    for moves, ms in [(90, 150_000), (95, 200_000), (100, 400_000), (130, 700_000), (300, 3e6)]:
        finished(user(), daily, moves=moves, ms=int(ms))
    finished(user(), daily, won=False, moves=40)
    finished(user(), daily, won=False, moves=2)
    finished(user(), daily, won=False, moves=0, status=Attempt.Status.ABANDONED)
    finished(user(guest=True), daily, moves=80)
    cheat = finished(user(), daily, moves=60)
    cheat.disqualified = True
    cheat.save()
    finished(user(), daily, moves=70, verified=False)
    return daily


# --- predicted ---------------------------------------------------------------------------


def test_preparing_a_day_stores_its_predicted_difficulty():
    daily = prepared("SH1-C4")
    predicted = daily.predicted
    assert predicted is not None and predicted["level"] in range(1, 6)
    assert predicted["bound"] == 52 and predicted["line"] >= 52
    assert predicted["first_moves"] >= predicted["winning_first"] >= 0
    assert DailyDeal.objects.get(pk=daily.pk).predicted == predicted


def test_a_day_made_on_demand_has_no_prediction(anon):
    daily = daily_deal_get(date=utc_today(), variant="SH1-C2")
    assert not daily.proven and daily.predicted is None
    entry = next(d for d in anon.get("/api/daily/").json()["deals"] if d["variant"] == "SH1-C2")
    assert entry["difficulty"]["predicted"] is None
    assert difficulty.daily_deal_predict(daily_id=daily.pk).predicted is None  # nothing to fill


def test_a_day_prepared_before_predictions_gets_one_by_its_task():
    daily = prepared("SH1-C4", utc_today() + dt.timedelta(days=1))
    stored = daily.predicted
    DailyDeal.objects.filter(pk=daily.pk).update(predicted=None)
    assert daily.pk in difficulty.dailies_unpredicted()
    assert tasks.predict_daily_deal.delay(daily.pk).get() is True
    assert DailyDeal.objects.get(pk=daily.pk).predicted == stored  # deterministic
    assert daily.pk not in difficulty.dailies_unpredicted()
    assert tasks.predict_daily_deal.delay(daily.pk).get() is True  # again: nothing changes


# --- measured ----------------------------------------------------------------------------


def test_the_after_the_day_job_measures_a_closed_day():
    daily = closed_day()
    assert tasks.after_the_day.delay().get() >= 1
    measured = DailyDeal.objects.get(pk=daily.pk).measured
    assert measured["players"] == 6  # 5 wins and the late resignation
    assert measured["discounted"] == 2 and measured["early_moves"] == difficulty.EARLY_MOVES
    assert measured["wins"] == 5 and measured["win_rate"] == pytest.approx(5 / 6, abs=0.001)
    assert measured["median_moves"] == 100 and measured["median_ms"] == 400_000
    assert measured["level"] == 2 and measured["name"] == "moderate"  # 83 %: 65-85 %
    histogram = measured["histogram"]
    # The histogram is the board's rows: every counted result, the early ones too.
    assert (histogram["players"], histogram["wins"]) == (8, 5)
    assert (histogram["resigned"], histogram["abandoned"]) == (2, 1)
    assert histogram["loss_share"] == pytest.approx(3 / 8, abs=0.001)
    # Unproven: the buckets go by the wins' median moves (100), up to ×3, then the rest.
    assert [b["up_to"] for b in histogram["moves"]] == [100, 125, 150, 200, 300, None]
    assert [b["count"] for b in histogram["moves"]] == [3, 0, 1, 0, 1, 0]
    assert [b["count"] for b in histogram["ms"]] == [0, 2, 1, 1, 0, 1]


def test_a_running_day_is_never_measured():
    daily = daily_of("SH1-C4")
    finished(user(), daily)
    assert difficulty.daily_deal_measure(daily_id=daily.pk) is None
    assert tasks.measure_daily_deal.delay(daily.pk).get() is False
    assert DailyDeal.objects.get(pk=daily.pk).measured is None


def test_too_few_players_give_a_win_rate_but_no_level():
    daily = daily_of("SH1-C4", days_ago=2)
    finished(user(), daily)
    finished(user(), daily, won=False, moves=30)
    measured = difficulty.daily_deal_measure(daily_id=daily.pk).measured
    assert measured["win_rate"] == 0.5 and measured["level"] is None
    assert measured["name"] == "unknown"


def test_measured_levels_follow_the_win_rate():
    assert [difficulty.measured_level(r) for r in (1.0, 0.85, 0.7, 0.5, 0.3, 0.0)] == [
        1,
        1,
        2,
        3,
        4,
        5,
    ]


# --- the API -----------------------------------------------------------------------------


def test_a_closed_day_shows_predicted_measured_and_its_histogram(anon):
    daily = closed_day()
    difficulty.daily_deal_measure(daily_id=daily.pk)
    day = anon.get(f"/api/daily/{daily.date}/").json()
    entry = next(d for d in day["deals"] if d["variant"] == "SH1-C4")
    block = entry["difficulty"]
    assert set(block) == {"predicted", "measured", "histogram"}
    assert block["measured"]["players"] == 6 and "histogram" not in block["measured"]
    assert block["histogram"]["players"] == 8


def test_a_running_day_shows_the_live_histogram_and_no_measure(anon):
    daily = prepared("SH1-C4")
    finished(user(), daily, moves=daily.par, ms=100_000)
    finished(user(), daily, won=False, moves=10)
    entry = next(d for d in anon.get("/api/daily/").json()["deals"] if d["variant"] == "SH1-C4")
    block = entry["difficulty"]
    assert block["measured"] is None
    assert block["predicted"] == daily.predicted
    assert (block["histogram"]["players"], block["histogram"]["wins"]) == (2, 1)
    assert block["histogram"]["moves"][0] == {"up_to": daily.par, "count": 1}  # at par


def test_the_month_table_lists_the_days_that_are_over(anon):
    daily = closed_day()
    difficulty.daily_deal_measure(daily_id=daily.pk)
    daily_of("SH1-C4")  # today: not listed
    month = daily.date.strftime("%Y-%m")
    body = anon.get(f"/api/difficulty/?month={month}").json()
    assert body["month"] == month
    rows = [d for d in body["days"] if d["date"] == daily.date.isoformat()]
    assert rows == [
        {
            "date": daily.date.isoformat(),
            "variant": "SH1-C4",
            "predicted": None,  # made on demand: unproven
            "measured": {"level": 2, "name": "moderate"},
            "players": 6,
            "win_rate": 0.833,
            "delta": None,
        }
    ]
    assert all(d["date"] < utc_today().isoformat() for d in body["days"])
    assert anon.get("/api/difficulty/").json()["month"] == utc_today().strftime("%Y-%m")


@pytest.mark.parametrize(
    "query",
    ["month=2026-13", "month=2026-1", "month=abc", "month=", "month=0000-01", "month=2026-12-01"],
)
def test_a_bad_month_is_a_400_naming_it(anon, query):
    error = assert_error(anon.get(f"/api/difficulty/?{query}"), 400, "bad_month")
    assert "month" in error["message"]


def test_a_month_not_begun_is_refused(anon):
    future = (utc_today().replace(day=1) + dt.timedelta(days=40)).strftime("%Y-%m")
    assert_error(anon.get(f"/api/difficulty/?month={future}"), (400, 422), "month_out_of_range")
