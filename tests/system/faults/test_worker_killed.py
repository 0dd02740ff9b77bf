"""A Celery worker killed mid-verification (issue 7): the attempt is verified once
a worker is back — exactly once, nothing duplicated.

Real processes throughout: ``celery -A config worker`` (prefork, one pool child,
the production settings) on the real Redis and pytest's PostgreSQL database.

The kill lands mid-check by construction, not by timing: the test holds the
attempt's row lock (``SELECT … FOR UPDATE`` on a connection of its own), so the
check, its replay done, waits inside the task on the ``UPDATE`` that records the
verdict; the test waits until PostgreSQL shows that UPDATE waiting for the lock,
and only then sends SIGKILL. Two cases:

* the pool child running the task is killed: with ``task_reject_on_worker_lost``
  the worker gives the message back at once and its new child takes it — seen
  waiting on the lock again while the test still holds it;
* the whole worker (its process group) is killed: nothing gives the message
  back; it stays taken and unacknowledged in Redis until the broker's visibility
  timeout (``CELERY_VISIBILITY_TIMEOUT``) has passed since it was taken, and a
  worker restores it (kombu does as a worker starts, and every 10 s while one
  runs). Both workers run with a timeout of ``VISIBILITY`` (30 s) so the
  suite does not sit idle for a deployment's 210 s; that value and its place
  just above the tasks' time limit are pinned by ``tests/games/test_tasks.py``,
  and the mechanism is the same. The next worker starts at once, as compose
  and ``make stack`` restart one: the check runs again within the timeout and
  10 s, not before it (kombu restores nothing younger). Before
  then, the attempt is shown still unchecked: the killed worker's PostgreSQL
  session, granted the lock once the test lets go, is rolled back (its client
  is gone), so nothing of the first run is written.

Then the attempt is verified, and only once: the worker logs show the check
received twice and run to the end once, no message is left in Redis, and the
daily leaderboard and the player's record have the one win, verified.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import connection

from games.dailies import deal_get, utc_today
from games.engine import GameCode, new_game, solve
from games.models import Attempt, DailyDeal
from tests.support.api import Client, requires_postgres, requires_redis
from tests.support.celery_worker import WAIT, Worker, real_broker, worker_env, workers
from tests.support.waiting import wait_for

pytestmark = [requires_postgres, requires_redis, pytest.mark.django_db(transaction=True)]

VARIANT = "SH1-C4"
CODE = "SH1-C4-AAAAAJ2"  # winnable: the solver's line wins it
VERIFY = "games.tasks.verify_attempt"
QUEUE = settings.CELERY_TASK_ROUTES[VERIFY]["queue"]  # its queue (issue 38): a Redis list
PREFORK = ("--pool", "prefork", "--concurrency", "1")
VISIBILITY = 30
"""Seconds: the whole-worker case's ``CELERY_VISIBILITY_TIMEOUT`` (a deployment's
is 210 s); longer than the replay check takes, as a deployment's is longer than
any task may take."""
RESTORE_EVERY = settings.CELERY_BROKER_TRANSPORT_OPTIONS["unacked_restore_interval"]


class RowLock:
    """An attempt's row locked ``FOR UPDATE`` on a connection of the test's own."""

    def __init__(self) -> None:
        self.connection: psycopg.Connection | None = None

    def hold(self, attempt_id: int) -> None:
        db = connection.settings_dict
        self.connection = psycopg.connect(
            host=db["HOST"],
            port=db["PORT"],
            dbname=db["NAME"],
            user=db["USER"],
            password=db["PASSWORD"] or None,
        )
        self.connection.execute(
            "SELECT id FROM games_attempt WHERE id = %s FOR UPDATE", [attempt_id]
        )

    def release(self) -> None:
        if self.connection is not None:
            self.connection.close()  # the transaction ends with it
            self.connection = None


@pytest.fixture
def row_lock() -> Iterator[RowLock]:
    lock = RowLock()
    try:
        yield lock
    finally:
        lock.release()


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    with real_broker(), workers(tmp_path) as start:
        yield start


# --- the game, the queue, the database -----------------------------------------


def daily_won(player: Client) -> int:
    """Today's daily is ``CODE`` (stored directly: the job's choice is not in
    question), and ``player`` wins it through the API. Returns the attempt's id."""
    line = solve(new_game(CODE)).line
    DailyDeal.objects.create(
        date=utc_today(),
        variant=VARIANT,
        deal=deal_get(code=GameCode.parse(CODE)),
        proven=True,
        proof=[action.to_json() for action in line],
        par=len(line),
    )
    game = player.send("/api/games/", {"daily": VARIANT}).json()
    for seq, action in enumerate(line):
        response = player.send(
            f"/api/games/{game['id']}/actions/", {"seq": seq, "action": action.to_json()}
        )
        assert response.status_code == 200, response.content
    assert response.json()["status"] == "won"
    return game["id"]


def broker_redis() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)


def message_task(message: dict[str, Any]) -> tuple[str, str, list[object]]:
    """(task id, task name, args) of a Celery message as kombu stores it."""
    args = json.loads(base64.b64decode(message["body"]))[0]
    return message["headers"]["id"], message["headers"]["task"], args


def queued_checks(attempt_id: int) -> list[str]:
    """Ids of the replay checks of the attempt waiting on the queue."""
    return [
        task_id
        for task_id, name, args in (
            message_task(json.loads(raw)) for raw in broker_redis().lrange(QUEUE, 0, -1)
        )
        if name == VERIFY and args == [attempt_id]
    ]


def unacked() -> dict[str, float]:
    """Messages a worker took and has not acknowledged: task id → when taken."""
    client = broker_redis()
    return {
        message_task(json.loads(raw)[0])[0]: client.zscore("unacked_index", tag)
        for tag, raw in client.hgetall("unacked").items()
    }


def sessions(where: str = "TRUE") -> set[int]:
    """PostgreSQL sessions (pids) on the test database, other than the test's own."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            f" AND pid <> pg_backend_pid() AND {where}"
        )
        return {pid for (pid,) in cursor.fetchall()}


def waiting_checks() -> set[int]:
    """Sessions waiting for a lock to record an attempt's verdict."""
    return sessions(
        "wait_event_type = 'Lock' AND query LIKE 'UPDATE \"games_attempt\" SET \"verified\"%'"
    )


def verdict(attempt_id: int) -> bool | None:
    return Attempt.objects.get(pk=attempt_id).verified


def wait_for_waiting_check() -> set[int]:
    wait_for(waiting_checks, "the worker's check to wait on the row lock")
    return waiting_checks()


# --- what "verified once" means ----------------------------------------------


def assert_verified_once(
    attempt_id: int, task_id: str, logs: list[Worker], within: float | None = None
) -> None:
    """Verified by a check that ran to its end once (within ``within`` seconds,
    else the default bounded wait), the message acknowledged."""
    received = f"Task {VERIFY}[{task_id}] received"
    succeeded = f"Task {VERIFY}[{task_id}] succeeded"

    def log() -> str:
        return "".join(worker.log() for worker in logs)

    wait_for(lambda: succeeded in log(), "the check to run to its end", within or WAIT)
    wait_for(lambda: not unacked(), "the message to be acknowledged")
    assert queued_checks(attempt_id) == []  # nothing left to run it again
    assert verdict(attempt_id) is True
    assert log().count(received) == 2  # by the killed process, then again
    assert log().count(succeeded) == 1


def assert_one_verified_win(player: Client) -> None:
    """The daily leaderboard has the player's one row, verified; the record one win."""
    board = player.get(f"/api/leaderboard/{utc_today().isoformat()}/{VARIANT}/").json()
    assert board["count"] == 1
    (row,) = board["results"]
    assert (row["player"], row["won"], row["verified"], row["pending"]) == (
        player.username,
        True,
        True,
        False,
    )
    record = player.get(f"/api/players/{player.username}/").json()
    assert (record["played"], record["won"]) == (1, 1)


# --- the tests ---------------------------------------------------------------


def test_pool_child_killed_mid_check_the_task_is_given_back_at_once(start, row_lock, make_player):
    player = make_player()
    attempt_id = daily_won(player)
    (task_id,) = queued_checks(attempt_id)  # queued on the finishing commit
    row_lock.hold(attempt_id)
    worker = start(*PREFORK)
    first = wait_for_waiting_check()

    (child,) = worker.children()
    os.kill(child, signal.SIGKILL)
    # Given back at once — not after the visibility timeout (minutes) — and
    # taken by the child started in its place, while the test still holds the lock.
    wait_for(lambda: waiting_checks() - first, "the check to run again in a new pool child")
    assert worker.alive() and child not in worker.children()
    assert verdict(attempt_id) is None

    row_lock.release()
    assert_verified_once(attempt_id, task_id, [worker])
    assert_one_verified_win(player)


def test_whole_worker_killed_mid_check_the_next_worker_runs_it(start, row_lock, make_player):
    player = make_player()
    attempt_id = daily_won(player)
    (task_id,) = queued_checks(attempt_id)
    row_lock.hold(attempt_id)
    short = worker_env(CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY))
    killed = start(*PREFORK, env=short)
    stuck = wait_for_waiting_check()

    killed.kill()  # SIGKILL to the worker and its pool child at once
    # Nothing gave it back: taken, never acknowledged, not on the queue.
    assert task_id in unacked()
    assert queued_checks(attempt_id) == []

    row_lock.release()
    wait_for(lambda: not stuck & sessions(), "the killed worker's sessions to end")
    # Its session was granted the lock and rolled back: the kill came before the
    # verdict was written, and nothing has checked the attempt since.
    assert verdict(attempt_id) is None
    row = player.get(f"/api/leaderboard/{utc_today().isoformat()}/{VARIANT}/").json()["me"]
    assert (row["verified"], row["pending"]) == (False, True)

    taken_at = unacked()[task_id]
    again = start(*PREFORK, env=short)  # at once, as compose and make stack restart one
    # Bounded: the timeout, kombu's next look, and a minute for a busy machine.
    assert_verified_once(
        attempt_id, task_id, [killed, again], within=VISIBILITY + RESTORE_EVERY + 60
    )
    assert time.time() - taken_at >= VISIBILITY  # by the timeout, and not before
    assert_one_verified_win(player)
