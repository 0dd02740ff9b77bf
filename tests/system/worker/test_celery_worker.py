"""A real Celery worker process on the real Redis runs the replay check (issue 5).

The worker is ``celery -A config worker`` started by the test with the
production settings (``config.settings``), pointed at pytest's test database
and a Redis database of its own; the test process queues tasks to it through
the same broker — the eager mode of the other tests is switched off here.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from games.dailies import utc_today
from games.engine import ALL_VARIANTS, new_game, solve
from games.models import Action, Attempt, DailyDeal
from games.tasks import prepare_daily_deals, verify_attempt
from tests.support.api import Client, requires_postgres, requires_redis
from tests.support.celery_worker import Worker, real_broker, workers
from tests.support.waiting import wait_for

pytestmark = [requires_postgres, requires_redis, pytest.mark.django_db(transaction=True)]

CODE = "SH1-C4-AAAAAJ2"


@pytest.fixture
def broker() -> Iterator[None]:
    with real_broker():
        yield


@pytest.fixture
def worker(broker: None, tmp_path: Path) -> Iterator[Worker]:
    with workers(tmp_path) as start:
        yield start("--pool", "solo")


def verdict(attempt_id: int) -> bool | None:
    return Attempt.objects.get(pk=attempt_id).verified


def test_the_worker_verifies_a_won_game_and_flags_a_tampered_log(worker, make_player):
    player: Client = make_player()
    game = player.send("/api/games/", {"code": CODE}).json()
    line = solve(new_game(CODE)).line
    assert line
    for seq, action in enumerate(line):
        response = player.send(
            f"/api/games/{game['id']}/actions/", {"seq": seq, "action": action.to_json()}
        )
        assert response.status_code == 200, response.content
    assert response.json()["status"] == "won"
    # Finishing queued the check on commit; the worker process runs it.
    wait_for(lambda: verdict(game["id"]) is not None, "the replay check")
    assert verdict(game["id"]) is True

    # Someone edits the stored log: the next check flags the result.
    first = Action.objects.get(attempt_id=game["id"], seq=0)
    Action.objects.filter(pk=first.pk).update(score=first.score + 10)
    verify_attempt.delay(game["id"])
    wait_for(lambda: verdict(game["id"]) is False, "the tampered log to be flagged")
    assert worker.alive()  # the worker is still up


def test_a_check_queued_while_no_worker_runs_is_done_when_one_starts(
    make_player, request: pytest.FixtureRequest
):
    player: Client = make_player()
    game = player.send("/api/games/", {"random": "SH1-C2"}).json()
    player.send(f"/api/games/{game['id']}/resign/")  # eager here: checked in-process
    Attempt.objects.filter(pk=game["id"]).update(verified=None)
    request.getfixturevalue("broker")
    verify_attempt.delay(game["id"])  # on Redis; no worker consumes it yet
    time.sleep(0.5)
    assert verdict(game["id"]) is None
    request.getfixturevalue("worker")
    wait_for(lambda: verdict(game["id"]) is True, "the queued check")


def test_daily_preparation_is_one_short_task_a_deal(worker):
    """``prepare_daily_deals`` (beat, hourly) queues one ``prepare_daily_deal`` a
    day and variant, which the worker runs: no task holds a worker for the
    minutes several solver searches can take, so every task stays under the
    time limit and the broker's visibility timeout (issue 17)."""
    day = utc_today() + dt.timedelta(days=30)
    prepare_daily_deals.delay(day.isoformat(), 1)
    one = re.compile(r"Task games\.tasks\.prepare_daily_deal\[[^]]+\] succeeded")

    def succeeded() -> int:
        return len(one.findall(worker.log()))

    wait_for(lambda: succeeded() == len(ALL_VARIANTS), "a task a deal to run", timeout=300)
    assert "Task games.tasks.prepare_daily_deals[" in worker.log()  # the fan-out
    stored = DailyDeal.objects.filter(date=day).values_list("variant", flat=True)
    assert sorted(stored) == sorted(ALL_VARIANTS)
