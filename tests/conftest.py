"""Shared fixtures: API clients that sign up, keep the CSRF cookie and send it back."""

from __future__ import annotations

import datetime as dt
import itertools
import time
from collections.abc import Iterator

import pytest
from celery._state import _set_task_join_will_block
from django.core.cache import cache
from django.db import connection, connections

from games.engine import GameSpec, register, unregister
from kit.api import local_counts
from kit.sockets import FRAMES, SNAPSHOTS
from tests.support.api import Client, sign_up, uses_postgres
from tests.support.toy_bakers import BAKERS

_names = itertools.count()


@pytest.fixture(scope="session", autouse=True)
def _close_stray_connections(django_db_setup, django_db_blocker):
    """Websocket handlers run on threads of their own, and async tests reach Django
    through asgiref's shared thread; connections those threads leave open would
    keep the test database from being dropped. End them before it is. (A run
    whose tests need no database makes none: then there is nothing to end.)"""
    yield
    with django_db_blocker.unblock():
        connections.close_all()
        if uses_postgres() and connection.settings_dict["NAME"].startswith("test_"):
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            connection.close()


MIDNIGHT_MARGIN_S = 300
"""No test starts in the last this many seconds of a UTC day (``_not_at_midnight``)."""


@pytest.fixture(autouse=True)
def _not_at_midnight():
    """Today's daily ends at 00:00 UTC, and most tests about it run in real time
    (daphne, Celery and browser tests cannot share a test's clock): one started
    just before midnight sees its daily end mid-game (a full run at 23:58 did, in
    tests/system/hostile/test_hidden_information.py). So a test due to start in
    the day's last ``MIDNIGHT_MARGIN_S`` seconds waits for the new day: once a
    run, at most that long, a margin above the longest real-time test (the
    thousand games: 157 s on a clean-clone CI run). Tests on
    ``tests/support/fairplay.py``'s clock, which plays an hour of time, start it
    at 01:00 instead."""
    now = dt.datetime.now(dt.UTC)
    left = dt.datetime.combine(now.date(), dt.time(), tzinfo=dt.UTC) + dt.timedelta(days=1) - now
    if left.total_seconds() < MIDNIGHT_MARGIN_S:
        time.sleep(left.total_seconds() + 1)


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()  # throttles count per test
    local_counts.forget()  # and so do their counts kept in process
    FRAMES.forget()  # and the sockets' budgets per player (kit/sockets.py)
    SNAPSHOTS.forget()
    yield


@pytest.fixture(autouse=True)
def _no_task_running():
    """Celery's eager mode (``CELERY_EAGER=1``) marks "a task is running" in one
    process-wide flag, set around each eager task and put back as it was found:
    two eager tasks overlapping on two threads (a socket's handler thread and the
    test's) can leave it set, and then every later ``result.get()`` in the process
    raises "Never call result.get() within a task!". (Seen: the thousand games of
    tests/system/hostile/test_hidden_information.py, then tests/games/test_partitions.py
    on the same xdist worker.) Each test starts with no task running."""
    _set_task_join_will_block(False)


@pytest.fixture
def bakers_game() -> Iterator[GameSpec]:
    """The toy Baker's Game (``tests/support/toy_bakers.py``) registered for one
    test, and forgotten after it: the service itself never knows it."""
    register(BAKERS)
    spec: GameSpec = BAKERS
    yield spec
    unregister(BAKERS.prefix)


@pytest.fixture
def make_player(db):
    def make(name: str | None = None, password: str = "correct horse battery") -> Client:
        return sign_up(name or f"player{next(_names)}", password)

    return make


@pytest.fixture
def player(make_player):
    return make_player()


@pytest.fixture
def anon(db):
    return Client()


@pytest.fixture
def clock(monkeypatch):
    """The server's clock, moved by the test (``tests/support/fairplay.py``, ``Clock``)."""
    from tests.support.fairplay import Clock

    return Clock(monkeypatch)
