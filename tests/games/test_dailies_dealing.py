"""Today's deals while they are being dealt (issue 38): the service starts
answering at once and queues their preparation (``prepare_dailies --queue``),
marking them being dealt; until each is stored, reading it is refused 409
``being_dealt`` with the seconds to wait — never made on demand unproven, which
a day once stored would stay — and once dealt, it is shown. A mark lapses
(``DEALING_S``): with no worker to deal them, a day is still made on demand."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command

from games import dailies
from games.dailies import Effort, daily_deal_prepare, daily_deals_mark, utc_today
from games.engine import ALL_VARIANTS
from games.models import DailyDeal
from tests.support.api import assert_error

pytestmark = pytest.mark.django_db

QUICK = Effort(nodes=50, candidates=1, seconds=5)  # no proof: a deal in milliseconds


def test_todays_deals_being_dealt_are_refused_until_dealt_then_shown(anon, player):
    assert daily_deals_mark() == len(ALL_VARIANTS) * dailies.DAYS_AHEAD
    error = assert_error(anon.get("/api/daily/"), 409, "being_dealt")
    assert error["params"]["wait"] == dailies.DEALING_RETRY_S
    assert_error(player.send("/api/games/", {"daily": "SH1-C4"}), 409, "being_dealt")
    assert not DailyDeal.objects.exists()  # nothing made on demand, unproven

    for variant in ALL_VARIANTS:
        daily_deal_prepare(date=utc_today(), variant=variant, effort=QUICK)
    shown = anon.get("/api/daily/")
    assert shown.status_code == 200, shown.content
    assert {d["variant"] for d in shown.json()["deals"]} == set(ALL_VARIANTS)
    assert all(d.tried == 1 for d in DailyDeal.objects.all())  # the job's, not on demand
    assert player.send("/api/games/", {"daily": "SH1-C4"}).status_code == 201


def test_a_lapsed_mark_leaves_the_day_to_be_made_on_demand(anon):
    daily_deals_mark()
    cache.clear()  # DEALING_S passed, no worker dealt them
    assert anon.get("/api/daily/").status_code == 200
    assert DailyDeal.objects.filter(date=utc_today(), tried=0).count() == len(ALL_VARIANTS)


def test_prepare_dailies_queue_marks_the_days_and_queues_their_preparation(
    settings, monkeypatch, anon
):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # a broker: queued, not run here
    sent: list[tuple[str, tuple]] = []
    monkeypatch.setattr(
        "celery.current_app.send_task", lambda name, args: sent.append((name, args))
    )
    out = StringIO()
    call_command("prepare_dailies", "--queue", stdout=out)
    assert sent == [("games.tasks.prepare_daily_deals", (None, dailies.DAYS_AHEAD))]
    assert f"{len(ALL_VARIANTS) * dailies.DAYS_AHEAD} daily deal(s) being dealt" in out.getvalue()
    assert_error(anon.get("/api/daily/"), 409, "being_dealt")
    assert not DailyDeal.objects.exists()
